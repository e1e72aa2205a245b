"""int16 graph inputs and outputs (TFLite 16x8 models, ONNX QDQ models with ONNX Runtime's int16
Quantize/DequantizeLinear at the boundary) on the NPU: the host's int16 is held as int32 there,
and the conversion to or from the NPU's int8 value runs in fp32 on the vector unit
(compiler/backend/codegen_convert.cpp), not as a CPU step. The NPU keeps int8 activations inside:
outputs are within one step of the NPU value's int8 grid of the reference (ONNX Runtime /
LiteRT), and exactly the reference where the model itself holds its values on that grid."""
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from conftest import ROOT, assert_one_line_error, litert_reference, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"
MS = "com.microsoft"


def scalar(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype), name)


def qdq16_model(path, x16=(1e-4, 7), y16=(2e-4, -11), seed=0, conv=True):
    """int16 x -> DQ(x16) -> QDQ pair (0.02, 3) -> Conv(int8 weights) -> Relu -> QDQ (0.05, -5)
    -> Q(y16) -> int16 y; the int16 Quantize/DequantizeLinear of ONNX Runtime's domain (as its
    quantiser writes them below opset 21). conv=False: the Relu alone, between two pairs (0.02, 3)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8)
    w[:, 0, 0, 0] = 127
    b = rng.integers(-500, 500, (8,)).astype(np.int32)
    inits = [numpy_helper.from_array(w, "w"), scalar("ws", 0.01, np.float32), scalar("wz", 0, np.int8),
             numpy_helper.from_array(b, "b"), scalar("bs", 0.02 * 0.01, np.float32), scalar("bz", 0, np.int32),
             scalar("xs", x16[0], np.float32), scalar("xz", x16[1], np.int16),
             scalar("ps", 0.02, np.float32), scalar("pz", 3, np.int8),
             scalar("ys", 0.05, np.float32), scalar("yz", -5, np.int8),
             scalar("os", y16[0], np.float32), scalar("oz", y16[1], np.int16)]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"], domain=MS),
             helper.make_node("QuantizeLinear", ["xf", "ps", "pz"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "ps", "pz"], ["xp"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"]),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"]),
             helper.make_node("Conv", ["xp", "wf", "bf"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["rq"]),
             helper.make_node("DequantizeLinear", ["rq", "ys", "yz"], ["rf"]),
             helper.make_node("QuantizeLinear", ["rf", "os", "oz"], ["y"], domain=MS)]
    if not conv:
        nodes = nodes[:3] + [helper.make_node("Relu", ["xp"], ["r"]),
                             helper.make_node("QuantizeLinear", ["r", "ps", "pz"], ["rq"]),
                             helper.make_node("DequantizeLinear", ["rq", "ps", "pz"], ["rf"]), nodes[-1]]
        inits = [i for i in inits if i.name not in ("w", "ws", "wz", "b", "bs", "bz", "ys", "yz")]
    g = helper.make_graph(nodes, "int16_io", [helper.make_tensor_value_info("x", TP.INT16, [1, 4, 16, 16])],
                          [helper.make_tensor_value_info("y", TP.INT16, [1, 8 if conv else 4, 16, 16])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return path


def placement(out):
    return next(l for l in out.splitlines() if l.startswith("placement:"))


def compile_and_run(path, tmp_path, name, x, *options):
    prog = tmp_path / "m.npuprog"
    r = run_npusim("compile", path, "-c", CONFIG, "--explain", "-o", prog, *options)
    assert r.code == 0, r.err
    np.save(tmp_path / "x.npy", x)
    run = run_npusim("run", prog, "-c", CONFIG, "--input", f"{name}={tmp_path / 'x.npy'}", "--save-outputs",
                     tmp_path / "out", "-q")
    assert run.code == 0, run.err
    return r.out, lambda output: np.load(tmp_path / "out" / f"{output}.npy")


# (x16, y16): zero points 0 (TFLite's symmetric int16) and not, a coarse output grid whose int16
# range the int8 value overflows (saturation at 32767).
GRIDS = [((1e-4, 7), (2e-4, -11)), ((3.0517578e-05, 0), (1.5e-4, 0)), ((1e-4, -300), (1e-5, 25))]


@pytest.mark.parametrize("x16,y16", GRIDS)
def test_int16_qdq_model_runs_whole_on_the_npu_like_onnx_runtime(tmp_path, x16, y16):
    path = qdq16_model(tmp_path / "q16.onnx", x16, y16)
    x = np.random.default_rng(1).integers(-32768, 32768, (1, 4, 16, 16)).astype(np.int16)
    out, got = compile_and_run(path, tmp_path, "x", x, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    assert "2 requantised on the NPU (2 of them int16 on the host, held as int32;" in out, out
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    y = got("y")
    assert y.dtype == np.int16 and y.shape == want.shape
    # The model holds y on the int8 grid (0.05, -5): one of its steps is 0.05 / s16 int16 steps.
    # The input's DequantizeLinear -> QuantizeLinear onto (0.02, 3) is one fp32 division on the
    # NPU; ONNX Runtime multiplies then divides, so a tie can fall the other way (one conv step).
    step = 0.05 / y16[0]
    diff = np.abs(y.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= step + 1, (diff.max(), step)
    assert (diff == 0).mean() >= 0.98, (diff == 0).mean()


@pytest.mark.parametrize("x16,y16", GRIDS)
def test_int16_conversions_equal_onnx_runtime(tmp_path, x16, y16):
    """The conversions alone (and an int8 Relu between them): ONNX Runtime's values exactly, the
    NPU computing (x - z16) * s16 / s8 and (y - z8) * s8 / s16 in fp32 as it does."""
    path = qdq16_model(tmp_path / "q16.onnx", x16, y16, conv=False)
    x = np.random.default_rng(2).integers(-32768, 32768, (1, 4, 16, 16)).astype(np.int16)
    x[0, 0, 0, :8] = [-32768, 32767, 0, x16[1], x16[1] + 100, x16[1] - 100, x16[1] + 300, x16[1] - 300]  # ties
    out, got = compile_and_run(path, tmp_path, "x", x, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got("y"), want)


def test_int16_sides_are_int16_on_the_host(tmp_path):
    """The program alone describes them: int16 in and out (held as int32 on the NPU)."""
    path = qdq16_model(tmp_path / "q16.onnx")
    prog = tmp_path / "m.npuprog"
    assert run_npusim("compile", path, "-c", CONFIG, "-o", prog).code == 0
    np.save(tmp_path / "bad.npy", np.zeros((1, 4, 16, 16), np.float32))
    r = run_npusim("run", prog, "-c", CONFIG, "--input", f"x={tmp_path / 'bad.npy'}")
    assert_one_line_error(r, "x", "int16")


def test_fp16_program_keeps_int16_conversions_on_the_cpu(tmp_path):
    """Only an int8 program's values meet an int16 side on the NPU; FP16 leaves the conversions
    to ONNX Runtime (its com.microsoft ops, imported into the CPU step) and still runs."""
    path = qdq16_model(tmp_path / "q16.onnx")
    # Inside the input pair's int8 range ([-2.62, 2.48]): FP16 computes the QDQ values unrounded,
    # so it differs from ONNX Runtime by the int8 roundings the model makes (not by clipping).
    x = np.random.default_rng(3).integers(-24000, 24000, (1, 4, 16, 16)).astype(np.int16)
    out, got = compile_and_run(path, tmp_path, "x", x, "--precision", "fp16")
    assert "fallback DequantizeLinear_0 (DequantizeLinear)" in out and "(QuantizeLinear)" in out, out
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    y = got("y")
    assert y.dtype == np.int16
    assert np.abs(y.astype(np.int64) - want.astype(np.int64)).max() <= 4 * 0.05 / 2e-4


def test_tflite_16x8_model_runs_whole_on_the_npu_within_an_int8_step_of_litert(tmp_path):
    """scripts/make_tflite_models.py conv_int16x8: int16 input and output, two convs. LiteRT
    computes with int16 activations; the NPU with int8 ones on the calibrated grids, so the output
    is within two steps of the NPU's int8 grid over the output's int16 range (one is 257 int16
    steps; measured: 286 at most, 77 on average), the rounding of int8 activations."""
    pytest.importorskip("ai_edge_litert.interpreter")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_tflite_models.py"), "--out", str(tmp_path),
                    "--only", "conv_int16x8"], check=True, capture_output=True)
    path = tmp_path / "conv_int16x8.tflite"
    x = np.random.default_rng(6).integers(-32768, 32768, (1, 16, 16, 4)).astype(np.int16)
    out, got = compile_and_run(path, tmp_path, "input", x, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    want = litert_reference(path, x)
    y = got("proj")
    assert y.dtype == np.int16 and y.shape == want.shape
    diff = np.abs(y.astype(np.int64) - want.astype(np.int64))
    assert diff.max() <= 2 * 257, diff.max()
