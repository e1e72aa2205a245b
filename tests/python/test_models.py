"""Whole models end to end: `npusim run` outputs against ONNX Runtime on the same inputs.

FP16 must reach cosine similarity >= 0.999 per output, INT8 (calibrated with --calib on
inputs from the same distribution as the test input) >= 0.99.

Models: scripts/make_models.py's ResNet-18, ResNet-50, MobileNetV2, YOLO-style and tiny
convnet (fixed-seed random weights). Real exported models (YOLOv8n, PP-OCR, the PyTorch corpus)
are tests/python/test_real_models.py's.

Sizes: the ResNets run at 128x128 instead of 224x224 (make_models.py --input-size 128, same
weights; they end in GlobalAveragePool, so every layer still runs) to keep INT8 calibration
plus functional simulation of ResNet-50 to a few seconds; ResNet-50 at 224x224 runs once with
--timing-only, where only cycles matter. MobileNetV2 (224), YOLO-style (320) and the tiny net
(32) run at their own sizes.
"""
import json
import pathlib
import subprocess
import sys

import numpy as np
import onnx
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "default.yaml"
THRESHOLD = {"fp16": 0.999, "int8": 0.99}
CALIBRATION_SAMPLES = 4

GENERATED = {  # model -> --input-size (None: the model's own size)
    "tiny_convnet": None,
    "resnet18": 128,
    "resnet50": 128,
    "mobilenetv2": None,
    "yolo_style": None,
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    by_size = {}
    for name, size in GENERATED.items():
        by_size.setdefault(size, []).append(name)
    for size, names in by_size.items():
        cmd = [sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(out)]
        for n in names:
            cmd += ["--only", n]
        if size:
            cmd += ["--input-size", str(size)]
        subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600)
    return out


def input_shape(model_path, fixed=None):
    model = onnx.load(str(model_path), load_external_data=False)
    inits = {i.name for i in model.graph.initializer}
    inputs = [i for i in model.graph.input if i.name not in inits]
    assert len(inputs) == 1, [i.name for i in inputs]
    dims = tuple(d.dim_value for d in inputs[0].type.tensor_type.shape.dim)
    return inputs[0].name, fixed or dims


def random_image(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float(np.dot(a, b) / denom) if denom else float(np.array_equal(a, b))


def run_and_compare(npusim, tmp_path, model_path, precision, make_input, fixed_shape=None):
    name, shape = input_shape(model_path, fixed_shape)
    x = make_input(shape, 1000)
    np.save(tmp_path / "x.npy", x)
    args = ["run", model_path, "--config", CONFIG, "--precision", precision, "--input", f"{name}={tmp_path / 'x.npy'}",
            "--save-outputs", tmp_path / "out", "--json", tmp_path / "report.json", "--quiet"]
    if fixed_shape:
        args += ["--input-shape", f"{name}={'x'.join(map(str, fixed_shape))}"]
    if precision == "int8":
        calib = tmp_path / "calib"
        calib.mkdir()
        for i in range(CALIBRATION_SAMPLES):
            np.save(calib / f"{name}_{i}.npy", make_input(shape, i))
        args += ["--calib", calib]
    r = npusim(*args)
    assert r.code == 0, r.err

    import onnxruntime as ort
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    reference = session.run(None, {name: x})
    report = json.loads((tmp_path / "report.json").read_text())
    sims = {}
    for meta, ref in zip(session.get_outputs(), reference):
        got = np.load(tmp_path / "out" / (meta.name.replace("/", "_").replace(":", "_") + ".npy"))
        assert got.shape == ref.shape, (meta.name, got.shape, ref.shape)
        sims[meta.name] = cosine(got, ref)
    worst = min(sims.values())
    npu_layers = sum(l["device"] == "npu" for l in report["layers"])
    print(f"{model_path.name} {precision}: cosine {worst:.5f} (outputs {sims}), latency {report['latency_us']:.1f} us "
          f"(NPU {report['npu_latency_us']:.1f} us), {report['achieved_tops']:.3f} TOPS, "
          f"{npu_layers}/{len(report['layers'])} layers on the NPU, {len(report['fallbacks'])} fallbacks")
    assert worst >= THRESHOLD[precision], f"{model_path.name} {precision}: cosine {sims} < {THRESHOLD[precision]}"
    assert npu_layers > 0
    return report


@pytest.mark.parametrize("precision", ["fp16", "int8"])
@pytest.mark.parametrize("name", list(GENERATED))
def test_generated_model_matches_onnxruntime(npusim, model_dir, tmp_path, name, precision):
    report = run_and_compare(npusim, tmp_path, model_dir / f"{name}.onnx", precision, random_image)
    assert report["macs"] > 0 and report["cycles"] > 0


def test_resnet50_full_size_timing_only(npusim, tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(tmp_path), "--only",
                    "resnet50"], check=True, capture_output=True, timeout=600)
    r = npusim("run", tmp_path / "resnet50.onnx", "--config", CONFIG, "--precision", "int8", "--timing-only",
               "--json", tmp_path / "r.json", "--quiet")
    assert r.code == 0, r.err
    report = json.loads((tmp_path / "r.json").read_text())
    print(f"resnet50 224x224 int8 timing-only: {report['cycles']} cycles, {report['latency_us']:.1f} us, "
          f"{report['achieved_tops']:.3f} of {report['peak_tops']:.3f} TOPS")
    assert report["macs"] > 4_000_000_000  # ResNet-50 is ~4.1 GMAC at 224x224
    conv_layers = [l for l in report["layers"] if l["device"] == "npu" and l["macs"] > 0]
    assert len(conv_layers) >= 50
    assert sum(l["compute_cycles"] for l in conv_layers) <= report["compute"]["busy_cycles"] * 1.001 + 1
