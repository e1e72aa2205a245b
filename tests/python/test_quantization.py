"""Quantisation options end to end: calibration methods recorded in the program, `npusim
quant-report`, mixed precision reaching its target on the NPU's own output, QDQ models from ONNX
Runtime's quantiser run with their own parameters, and bad input.

The model is generated here: conv -> relu -> conv (one output channel 40x the others) -> relu ->
conv (whose weights reading that channel are 40x smaller, so its per-output-channel int8 weights
round them to zero and lose a fifth of the signal) -> global pool -> gemm. conv3 is the layer
int8 hurts; the report must rank it first and mixed precision must promote it.
"""
import json
import re

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import assert_one_line_error, calibration_reader

CONFIG = "configs/default.yaml"


def make_model(path):
    rng = np.random.default_rng(5)
    w1 = rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32)
    w2 = rng.normal(0, 0.2, (8, 8, 3, 3)).astype(np.float32)
    w2[0] *= 40.0  # the outlier channel
    w3 = rng.normal(0, 0.2, (8, 8, 1, 1)).astype(np.float32)
    w3[:, 0] /= 40.0  # same product, but below half an int8 step of the channel's weight scale
    wg = rng.normal(0, 0.3, (8, 10)).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (w2, "w2"), (w3, "w3"), (wg, "wg"))]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("Conv", ["r2", "w3"], ["c3"], name="conv3"),
        helper.make_node("GlobalAveragePool", ["c3"], ["p"], name="pool"),
        helper.make_node("Flatten", ["p"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "wg"], ["y"], name="fc"),
    ]
    graph = helper.make_graph(nodes, "sensitive", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)
    return path


@pytest.fixture(scope="module")
def model_and_calib(tmp_path_factory):
    d = tmp_path_factory.mktemp("quant")
    model = make_model(d / "sensitive.onnx")
    calib = d / "calib"
    calib.mkdir()
    rng = np.random.default_rng(9)
    for i in range(6):
        np.save(calib / f"x_{i}.npy", rng.normal(0, 1, (1, 3, 16, 16)).astype(np.float32))
    return model, calib


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def npu_output(npusim, root, prog, x_file, tmp_path):
    out = tmp_path / "out"
    r = npusim("run", prog, "--config", root / CONFIG, "--input", f"x={x_file}", "--save-outputs", out)
    assert r.code == 0, r.err
    return np.load(out / "y.npy"), r.out


def test_quant_report_ranks_the_sensitive_layer_first(npusim, root, model_and_calib, tmp_path):
    model, calib = model_and_calib
    js = tmp_path / "q.json"
    r = npusim("quant-report", model, "--config", root / CONFIG, "--calib", calib, "--json", js)
    assert r.code == 0, r.err
    rep = json.loads(js.read_text())
    assert rep["samples"] == 6
    assert rep["scheme"].startswith("mse calibration")  # the default
    names = [l["layer"] for l in rep["layers"]]
    assert any("conv2" in n for n in names), names
    worst = min(rep["layers"], key=lambda l: l["model_cosine_alone"])
    assert worst["layer"] == "conv3", rep["layers"]
    conv1 = next(l for l in rep["layers"] if "conv1" in l["layer"])
    # conv1's output alone on its own int8 grid: 255 steps over its range, ~40 dB and more.
    assert conv1["alone_sqnr_db"] > 35
    assert worst["alone_sqnr_db"] < conv1["alone_sqnr_db"]
    assert rep["all_int8_cosine"] <= worst["model_cosine_alone"] + 1e-9
    for l in rep["layers"]:
        assert l["cumulative_cosine"] <= 1.0 + 1e-9 and l["alone_cosine"] <= 1.0 + 1e-9
    assert "most sensitive" in r.out and "conv3" in r.out.split("most sensitive")[1].split(",")[0]


@pytest.mark.parametrize("method", ["minmax", "percentile", "entropy"])
def test_calibration_method_recorded_in_program_and_report(npusim, root, model_and_calib, tmp_path, method):
    model, calib = model_and_calib
    prog = tmp_path / "m.npuprog"
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", calib, "--calib-method", method, "-o", prog)
    assert r.code == 0, r.err
    assert f"quantisation: {method}" in r.out and "from 6 calibration sample(s)" in r.out
    js = tmp_path / "run.json"
    r = npusim("run", prog, "--config", root / CONFIG, "--json", js)
    assert r.code == 0, r.err
    assert f"quantisation      {method}" in r.out
    assert json.loads(js.read_text())["quantization"]["scheme"].startswith(method)


def test_mixed_precision_reaches_its_target_on_the_npu(npusim, root, model_and_calib, tmp_path):
    model, calib = model_and_calib
    x_file = calib / "x_0.npy"
    ref = ort.InferenceSession(str(model)).run(None, {"x": np.load(x_file)})[0]
    int8 = tmp_path / "int8.npuprog"
    assert npusim("compile", model, "--config", root / CONFIG, "--calib", calib, "-o", int8).code == 0
    y8, _ = npu_output(npusim, root, int8, x_file, tmp_path)
    cos8 = cosine(y8, ref)
    target = 0.9999
    assert cos8 < target, "the generated model must need fp16 layers"
    mixed = tmp_path / "mixed.npuprog"
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", calib, "--precision", "mixed",
               "--accuracy-target", f"cosine={target}", "-o", mixed)
    assert r.code == 0, r.err
    line = next(l for l in r.out.splitlines() if l.startswith("mixed precision for cosine="))
    # conv3 is the promotion the target needs; pool and fc after it (tiny layers) then cost less
    # in fp16 than the Quantize that conv3's 16x16 output would need: the cost-aware search
    # promotes them too, so the converter sits on the 1x1 pooled value or nowhere.
    assert "promoted to fp16: conv3" in line, r.out
    assert set(line.split("fp16: ", 1)[1].split(", ")) <= {"conv3", "pool", "fc"}, line
    times = mixed_times(r.out)
    ym, _ = npu_output(npusim, root, mixed, x_file, tmp_path)
    # The NPU's own output (fp16 layers, converters, int8 elsewhere), not the simulation of it.
    assert cosine(ym, ref) >= target, (cos8, cosine(ym, ref))
    # --keep-fp16 conv3 alone reaches the target too, at a higher simulated time.
    keep = tmp_path / "keep.npuprog"
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", calib, "--keep-fp16", "conv3", "-o", keep)
    assert r.code == 0, r.err
    assert "fp16 layers by --keep-fp16 (1)" in r.out
    yk, _ = npu_output(npusim, root, keep, x_file, tmp_path)
    assert cosine(yk, ref) >= target
    keep_times = mixed_times(r.out)
    assert times["int8"] == keep_times["int8"] and times["fp16"] == keep_times["fp16"]
    assert times["int8"] < times["mixed"] < keep_times["mixed"] < times["fp16"], (times, keep_times)
    # Each figure is what `npusim run --timing-only` reports for that program.
    assert times["mixed"] == pytest.approx(timing_only_us(npusim, root, mixed), abs=0.05)
    assert times["int8"] == pytest.approx(timing_only_us(npusim, root, int8), abs=0.05)


def mixed_times(out):
    """The compile summary's 'simulated time: M us with the fp16 layers, I us all int8 (...), F us
    all fp16 (...)' as {'mixed': M, 'int8': I, 'fp16': F}."""
    m = re.search(r"^simulated time: (\S+) us with the fp16 layers, (\S+) us all int8 \(.*?\), (\S+) us all fp16", out,
                  re.M)
    assert m, out
    return {"mixed": float(m[1]), "int8": float(m[2]), "fp16": float(m[3])}


def timing_only_us(npusim, root, prog):
    r = npusim("run", prog, "--config", root / CONFIG, "--timing-only")
    assert r.code == 0, r.err
    line = next(l for l in r.out.splitlines() if l.startswith("end to end"))
    return float(line.split()[3])


def test_unreachable_target_says_the_best_it_reached(npusim, root, model_and_calib, tmp_path):
    model, calib = model_and_calib
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", calib, "--precision", "mixed",
               "--accuracy-target", "sqnr=150", "-o", tmp_path / "m.npuprog")
    assert_one_line_error(r, "--accuracy-target sqnr=150", "out of reach", "best is SQNR", "conv3")


@pytest.mark.parametrize("args,needles", [
    (["--calib-method", "kl"], ["--calib-method 'kl'", "minmax, percentile, entropy, mse"]),
    (["--precision", "mixed", "--accuracy-target", "cosine=1.5"], ["--accuracy-target 'cosine=1.5'"]),
    (["--accuracy-target", "cosine=0.9"], ["--accuracy-target needs --precision mixed"]),
    (["--keep-fp16", "nosuchnode"], ["--keep-fp16", "'nosuchnode'"]),
    (["--keep-fp16", "flatten"], ["--keep-fp16", "'flatten'"]),
    (["--calib-percentile", "20", "--calib-method", "percentile"], ["--calib-percentile"]),
])
def test_bad_quantisation_options(npusim, root, model_and_calib, tmp_path, args, needles):
    model, calib = model_and_calib
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", calib, *args, "-o", tmp_path / "m.npuprog")
    assert_one_line_error(r, *needles)


def test_bad_calibration_directory(npusim, root, model_and_calib, tmp_path):
    model, _ = model_and_calib
    empty = tmp_path / "empty"
    empty.mkdir()
    r = npusim("compile", model, "--config", root / CONFIG, "--calib", empty, "-o", tmp_path / "m.npuprog")
    assert_one_line_error(r, str(empty), "no .npy calibration files")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    np.save(wrong / "x_0.npy", np.zeros((1, 3, 8, 8), np.float32))
    r = npusim("quant-report", model, "--config", root / CONFIG, "--calib", wrong)
    assert_one_line_error(r, "x_0.npy", "does not fit input 'x'")


@pytest.mark.parametrize("per_channel", [False, True])
def test_qdq_model_runs_with_its_own_parameters(npusim, root, model_and_calib, tmp_path, per_channel):
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    model, calib = model_and_calib
    samples = [{"x": np.load(calib / f"x_{i}.npy")} for i in range(4)]

    qdq = tmp_path / "qdq.onnx"
    # reduce_range: 7-bit weights, as ONNX Runtime advises on x86-64 without VNNI, where its
    # u8s8 kernels (pmaddubsw) saturate 16-bit pair sums; with 8-bit weights the reference
    # itself is wrong on those CPUs (measured on an AVX2-only EPYC: 31 steps off in one output).
    quantize_static(str(model), str(qdq), calibration_reader(samples), quant_format=QuantFormat.QDQ, per_channel=per_channel,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, reduce_range=True)
    m = onnx.load(qdq)
    assert sum(n.op_type == "QuantizeLinear" for n in m.graph.node) >= 5
    x_file = tmp_path / "x.npy"
    x = np.random.default_rng(77).normal(0, 1, (1, 3, 16, 16)).astype(np.float32)
    np.save(x_file, x)
    ref = ort.InferenceSession(str(qdq)).run(None, {"x": x})[0]
    # No --calib: the ranges are the file's (the output's scale below is the model's own).
    y, out = npu_output(npusim, root, qdq, x_file, tmp_path)
    assert "the model's QDQ parameters for" in out
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    dq_y = next(n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == "y")
    step = float(inits[dq_y.input[1]])
    assert f"scale {step:.6g}" in out  # the output converted with the file's scale
    err = np.abs(y - ref).max() / step
    assert err <= 1.0 + 1e-3, err
    if per_channel:  # the same integers as ONNX Runtime's QLinear kernels
        assert err <= 1e-3, err


def test_python_compile_takes_the_quantisation_options(root, model_and_calib):
    """npusim.compile spells the options as the CLI does and reads them in the same place:
    mixed precision promotes the same layer, and the NPU's output reaches the target."""
    import os
    import sys
    sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(root / "build" / "python")))
    import npusim

    model, calib = model_and_calib
    x = np.load(calib / "x_0.npy")
    ref = ort.InferenceSession(str(model)).run(None, {"x": x})[0]
    target = 0.9999
    int8 = npusim.compile(model, root / CONFIG, calib=calib, calib_method="percentile", calib_percentile=99.9)
    mixed = npusim.compile(model, root / CONFIG, precision="mixed", calib=calib, accuracy_target=f"cosine={target}")
    keep = npusim.compile(model, root / CONFIG, calib=calib, keep_fp16=["conv3"])
    assert cosine(int8.run({"x": x})[0]["y"], ref) < target
    for session in (mixed, keep):
        assert cosine(session.run({"x": x})[0]["y"], ref) >= target
    with pytest.raises(npusim.Error, match="--accuracy-target needs --precision mixed"):
        npusim.compile(model, root / CONFIG, calib=calib, accuracy_target="cosine=0.9")
    with pytest.raises(npusim.Error, match="--calib-method 'kl'"):
        npusim.compile(model, root / CONFIG, calib=calib, calib_method="kl")
