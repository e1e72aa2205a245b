"""Real exported models run whole on the NPU, as they do on real Intel/Qualcomm NPUs.

For every model, with `npusim run` on configs/default.yaml, in FP16 and INT8:
- placement: >= 99 % of its MACs and >= 95 % of its simulated end-to-end time on the NPU
  (report `time.npu_share`), and no CPU step between two NPU steps;
- accuracy against ONNX Runtime on the same input: cosine >= 0.999 per output in FP16, >= 0.99
  in INT8 (calibrated with --calib on 8 inputs from the test input's distribution).

Models: YOLOv8n (`320n.onnx` from the PyPI wheel nudenet 3.4.2) at 1x3x640x640 and
1x3x320x320; from rapidocr-onnxruntime 1.4.4 the PP-OCRv4 text detector (1x3x320x320 here: its
1x3x640x640 run is timing-only, placement checked, because functional simulation plus INT8
calibration at 640 would take ~30 s of the CI budget), the PP-OCR v2 direction classifier
(1x3x48x192) and the PP-OCRv4 recogniser (1x3x48x320); and every committed PyTorch export in
models/exported/. Inputs: natural-image-like fields in [0, 1] for YOLO, dark strokes on a light
page for PP-OCR, N(0, 1) for the corpus (token ids uniform in the vocabulary).

Known shortfalls are listed in EXCEPTIONS with the measured number and the reason, and reported
as xfail (never skipped). `python3 tests/python/test_real_models.py` prints every figure.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "default.yaml"
COSINE = {"fp16": 0.999, "int8": 0.99}
MAC_SHARE, TIME_SHARE = 0.99, 0.95
CALIBRATION_SAMPLES = 8


def _package_file(module, *parts):
    try:
        mod = __import__(module)
    except ImportError:
        return None
    return pathlib.Path(mod.__file__).parent.joinpath(*parts)


def smooth_image(shape, seed):
    """Low-frequency colour field plus a little noise, in [0, 1] (YOLO's input range)."""
    rng = np.random.default_rng(seed)
    n, c, h, w = shape
    coarse = rng.random((n, c, max(2, h // 32), max(2, w // 32)))
    img = coarse.repeat(32, axis=2).repeat(32, axis=3)[:, :, :h, :w]
    img = img + rng.normal(0, 0.05, shape)
    return np.clip(img, 0, 1).astype(np.float32)


def text_like_image(shape, seed):
    """Dark strokes on a light page, normalised as PP-OCR expects ((x/255 - 0.5) / 0.5)."""
    rng = np.random.default_rng(seed)
    _, c, h, w = shape
    page = np.full((h, w), 235.0) + rng.normal(0, 5, (h, w))
    for _ in range(max(2, h // 16)):
        y, x = rng.integers(0, h - 6), rng.integers(0, w // 2)
        length, thick = rng.integers(w // 4, w // 2), rng.integers(3, 7)
        for k in range(x, min(w, x + length), 4):
            page[y:y + thick, k:k + 2] = rng.uniform(10, 60)
    img = np.repeat(page[None], c, axis=0)[None].astype(np.float32)
    return ((img / 255.0 - 0.5) / 0.5).astype(np.float32)


def normal(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


class Model:
    def __init__(self, name, path, make_input, shapes=None, functional=True):
        self.name, self.path, self.make_input = name, path, make_input
        self.shapes = shapes or {}  # input -> fixed shape (dynamic dims)
        self.functional = functional  # False: timing-only placement check

    def inputs(self):
        model = onnx.load(str(self.path), load_external_data=False)
        inits = {i.name for i in model.graph.initializer}
        vocab = {}
        for node in model.graph.node:  # token ids index an embedding table
            if node.op_type == "Gather" and node.input[0] in inits:
                table = next(i for i in model.graph.initializer if i.name == node.input[0])
                vocab[node.input[1]] = table.dims[0]
        result = []
        for i in model.graph.input:
            if i.name in inits:
                continue
            dims = self.shapes.get(i.name) or tuple(d.dim_value for d in i.type.tensor_type.shape.dim)
            result.append((i.name, tuple(dims), i.type.tensor_type.elem_type, vocab.get(i.name, 2)))
        return result

    def sample(self, seed):
        feeds = {}
        for k, (name, dims, elem, vocab) in enumerate(self.inputs()):
            if elem == onnx.TensorProto.INT64:
                feeds[name] = np.random.default_rng(seed + 97 * k).integers(0, vocab, dims).astype(np.int64)
            else:
                feeds[name] = self.make_input(dims, seed + 97 * k)
        return feeds


def _models():
    models = []
    yolo = _package_file("nudenet", "320n.onnx")
    ocr = _package_file("rapidocr_onnxruntime", "models")
    if yolo:
        models.append(Model("yolov8n_640", yolo, smooth_image, {"images": (1, 3, 640, 640)}))
        models.append(Model("yolov8n_320", yolo, smooth_image, {"images": (1, 3, 320, 320)}))
    if ocr:
        det = ocr / "ch_PP-OCRv4_det_infer.onnx"
        models.append(Model("ppocrv4_det_320", det, text_like_image, {"x": (1, 3, 320, 320)}))
        models.append(Model("ppocrv4_det_640", det, text_like_image, {"x": (1, 3, 640, 640)}, functional=False))
        models.append(Model("ppocr_v2_cls", ocr / "ch_ppocr_mobile_v2.0_cls_infer.onnx", text_like_image,
                            {"x": (1, 3, 48, 192)}))
        models.append(Model("ppocrv4_rec", ocr / "ch_PP-OCRv4_rec_infer.onnx", text_like_image, {"x": (1, 3, 48, 320)}))
    # Decoders exported with dynamic axes (for npusim generate), run here at their static twins' shapes.
    past = {f"past_{kind}_{i}": (1, 4, 127, 32) for kind in ("key", "value") for i in range(2)}
    dynamic = {"gpt_tiny_dynamic_prefill": {"input_ids": (1, 32)}, "gpt_tiny_dynamic_decode": past}
    for path in sorted((ROOT / "models" / "exported").glob("*.onnx")):
        models.append(Model(path.stem, path, normal, dynamic.get(path.stem)))
    return models


MODELS = {m.name: m for m in _models()}

# (model, precision, what) -> reason with the measured number; reported as xfail.
# Per-tensor INT8 post-training quantisation itself: the same models with only their
# activations quantised by the min/max rule (QuantizeLinear/DequantizeLinear after every
# value, weights in FP32, in ONNX Runtime) reach lower cosines than the NPU program does. The
# NPU's cosine per calibration method is in compiler/README.md; mse is the default.
PTQ = "per-tensor int8 activations are not enough for this model: cosine {} with mse calibration ({})"
EXCEPTIONS = {
    ("ppocrv4_det_320", "int8", "cosine"): PTQ.format(
        "0.875", "minmax 0.871, percentile 0.912; fake-quantising every activation in ONNX Runtime with min/max "
        "gives 0.62; --precision mixed reaches 0.99"),
    ("efficientnet_b0_w050", "int8", "cosine"): PTQ.format(
        "0.979", "minmax 0.960; min/max fake-quantised activations: 0.80"),
    ("shufflenet_v2_x0_5", "int8", "cosine"): PTQ.format(
        "0.953", "minmax 0.970, the best method here; min/max fake-quantised activations: 0.92"),
    ("vit_tiny_opset14", "int8", "cosine"): PTQ.format(
        "0.986", "minmax 0.960; the class-token Concat's shared scale alone costs 0.02 with min/max"),
    ("vit_tiny_opset17", "int8", "cosine"): PTQ.format(
        "0.986", "minmax 0.960; the class-token Concat's shared scale alone costs 0.02 with min/max"),
}


def run_npusim(model, precision, tmp, calib_method=None):
    """Runs the model; returns (report, outputs or None, feeds)."""
    feeds = model.sample(1000)
    args = [str(ROOT / "build" / "bin" / "npusim"), "run", str(model.path), "--config", str(CONFIG),
            "--precision", precision, "--json", str(tmp / "report.json"), "--quiet"]
    if calib_method:
        args += ["--calib-method", calib_method]
    for name, shape in model.shapes.items():
        args += ["--input-shape", f"{name}={'x'.join(map(str, shape))}"]
    for name, value in feeds.items():
        np.save(tmp / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp / (name + '.npy')}"]
    if precision == "int8":
        calib = tmp / "calib"
        calib.mkdir()
        for i in range(CALIBRATION_SAMPLES):
            for name, value in model.sample(i).items():
                np.save(calib / f"{name}_{i}.npy", value)
        args += ["--calib", str(calib)]
    if model.functional:
        args += ["--save-outputs", str(tmp / "out")]
    else:
        args += ["--timing-only"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp / "report.json").read_text())
    outputs = None
    if model.functional:
        outputs = {}
        for out in onnx.load(str(model.path), load_external_data=False).graph.output:
            outputs[out.name] = np.load(tmp / "out" / (out.name.replace("/", "_").replace(":", "_") + ".npy"))
    return report, outputs, feeds


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float(np.dot(a, b) / denom) if denom else float(np.array_equal(a, b))


def measure(model, precision, tmp, calib_method=None):
    """Every figure the tests assert on."""
    report, outputs, feeds = run_npusim(model, precision, tmp, calib_method)
    layers = report["layers"]
    macs = sum(l["macs"] for l in layers)
    npu_macs = sum(l["macs"] for l in layers if l["device"] == "npu")
    kinds = [s["kind"] for s in report["steps"]]
    islands = sum(1 for i, k in enumerate(kinds) if k == "cpu" and "npu" in kinds[:i] and "npu" in kinds[i + 1:])
    figures = {"mac_share": npu_macs / macs if macs else 1.0, "time_share": report["time"]["npu_share"],
               "cpu_islands": islands, "latency_us": report["latency_us"],
               "cpu_layers": [l["name"] for l in layers if l["device"] != "npu"]}
    if outputs is not None:
        import onnxruntime as ort
        session = ort.InferenceSession(str(model.path), providers=["CPUExecutionProvider"])
        reference = session.run(None, feeds)
        figures["cosine"] = {meta.name: cosine(outputs[meta.name], ref)
                             for meta, ref in zip(session.get_outputs(), reference)}
        for meta, ref in zip(session.get_outputs(), reference):
            assert outputs[meta.name].shape == ref.shape, (meta.name, outputs[meta.name].shape, ref.shape)
    return figures


@pytest.mark.parametrize("precision", ["fp16", "int8"])
@pytest.mark.parametrize("name", list(MODELS))
def test_real_model_runs_whole_on_the_npu(name, precision, tmp_path, request, npusim):
    model = MODELS[name]
    f = measure(model, precision, tmp_path)
    print(f"{name} {precision}: {f}")
    problems = []
    if f["mac_share"] < MAC_SHARE:
        problems.append(("macs", f"MAC share {f['mac_share']:.4f} (CPU: {f['cpu_layers'][:6]})"))
    if f["time_share"] < TIME_SHARE:
        problems.append(("time", f"time share {f['time_share']:.4f} (CPU: {f['cpu_layers'][:6]})"))
    if f["cpu_islands"]:
        problems.append(("islands", f"{f['cpu_islands']} CPU islands (CPU: {f['cpu_layers'][:6]})"))
    for out, c in f.get("cosine", {}).items():
        if c < COSINE[precision]:
            problems.append(("cosine", f"output {out} cosine {c:.5f} < {COSINE[precision]}"))
    # A shortfall nobody listed fails; listed ones are xfail (an xpass once fixed).
    unexpected = [m for what, m in problems if (name, precision, what) not in EXCEPTIONS]
    assert not unexpected, f"{name} {precision}: " + "; ".join(unexpected)
    listed = [r for (n, p, _), r in EXCEPTIONS.items() if n == name and p == precision]
    if listed:
        request.applymarker(pytest.mark.xfail(reason="; ".join(listed), strict=False))
    assert not problems, f"{name} {precision}: " + "; ".join(m for _, m in problems)


def main():
    """Prints every model's figures without asserting: FP16 and INT8, or with `--calib-methods
    minmax,mse,...` the INT8 cosine per calibration method (compiler/README.md's table);
    `--models a,b` limits the models."""
    import argparse
    p = argparse.ArgumentParser()
    p.add_argument("--models", default="")
    p.add_argument("--calib-methods", default="")
    a = p.parse_args()
    names = a.models.split(",") if a.models else list(MODELS)
    runs = [("int8", m) for m in a.calib_methods.split(",")] if a.calib_methods else [("fp16", None), ("int8", None)]
    for name in names:
        model = MODELS[name]
        for precision, method in runs:
            label = f"{precision} {method}" if method else precision
            with tempfile.TemporaryDirectory() as tmp:
                try:
                    f = measure(model, precision, pathlib.Path(tmp), method)
                except AssertionError as e:
                    print(f"{name} {label}: FAILED {str(e)[:300]}")
                    continue
            cos = ", ".join(f"{v:.5f}" for v in f.get("cosine", {}).values())
            print(f"{name:32s} {label}: MACs {100 * f['mac_share']:6.2f} %, time {100 * f['time_share']:6.2f} %, "
                  f"islands {f['cpu_islands']}, latency {f['latency_us']:9.1f} us, cosine [{cos}]", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    main()
