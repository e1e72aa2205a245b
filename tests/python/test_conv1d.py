"""1-D convolutions on the NPU (compiler/passes/npu_lowering.cpp): as 2-D convs over [N, C, 1, L],
and, when the window or stride is beyond the conv instruction (an STFT written as a strided
Conv1d: window 400, hop 160), over stride-sized blocks of the signal. Outputs against ONNX
Runtime; every layer on the NPU."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import run_npusim, ROOT

CONFIG = ROOT / "configs" / "default.yaml"


def conv1d_model(path, samples, channels, out_channels, kernel, stride=1, pads=(0, 0), dilation=1, group=1,
                 power_log=False, batch=1):
    """Conv1d, then (power_log) |.|^2, a mel-like MatMul and Log, as an audio front end does; `batch`
    sequences at once."""
    rng = np.random.default_rng(4)
    w = numpy_helper.from_array((rng.standard_normal((out_channels, channels // group, kernel)) * 0.05)
                                .astype(np.float32), "w")
    b = numpy_helper.from_array((rng.standard_normal(out_channels) * 0.1).astype(np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"], kernel_shape=[kernel], strides=[stride],
                              pads=list(pads), dilations=[dilation], group=group)]
    inits = [w, b]
    last = "conv"
    if power_log:
        mel = numpy_helper.from_array(np.abs(rng.standard_normal((40, out_channels)) * 0.1).astype(np.float32), "mel")
        eps = numpy_helper.from_array(np.array(1e-6, np.float32), "eps")
        nodes += [helper.make_node("Mul", ["conv", "conv"], ["power"]),
                  helper.make_node("MatMul", ["mel", "power"], ["melspec"]),
                  helper.make_node("Clip", ["melspec", "eps"], ["clipped"]),
                  helper.make_node("Log", ["clipped"], ["y"])]
        inits += [mel, eps]
        last = "y"
    else:
        nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
    graph = helper.make_graph(nodes, "conv1d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, channels, samples])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    onnx.save(model, str(path))
    return path


def run_against_ort(tmp_path, model):
    """Runs tmp_path/m.npuprog on tmp_path/x.npy; (its output y, ONNX Runtime's)."""
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    (want,) = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(
        None, {"x": np.load(tmp_path / "x.npy")})
    got = np.load(tmp_path / "out" / "y.npy")
    assert got.shape == want.shape
    return got, want


CASES = {
    "stft": dict(samples=4000, channels=1, out_channels=64, kernel=400, stride=160, power_log=True),
    "stft-centred": dict(samples=4000, channels=1, out_channels=64, kernel=400, stride=160, pads=(200, 200),
                         power_log=True),
    "strided-block-crop": dict(samples=1000, channels=2, out_channels=16, kernel=50, stride=24),
    "small": dict(samples=96, channels=8, out_channels=16, kernel=3, stride=2, pads=(1, 1)),
    "dilated-grouped": dict(samples=96, channels=8, out_channels=16, kernel=5, dilation=2, group=2, pads=(4, 4)),
    # A batch of sequences: rows of one image (the NPU's images are batch 1).
    "small-batch3": dict(samples=96, channels=8, out_channels=16, kernel=3, stride=2, pads=(1, 1), batch=3),
    "dilated-grouped-batch2": dict(samples=96, channels=8, out_channels=16, kernel=5, dilation=2, group=2, pads=(4, 4),
                                   batch=2),
    "stft-batch4": dict(samples=4000, channels=1, out_channels=64, kernel=400, stride=160, power_log=True, batch=4),
}


@pytest.mark.parametrize("case", CASES)
def test_conv1d_runs_on_the_npu(tmp_path, case):
    spec = CASES[case]
    model = conv1d_model(tmp_path / "m.onnx", **spec)
    x = (np.random.default_rng(0).standard_normal((spec.get("batch", 1), spec["channels"], spec["samples"])) * 0.3
         ).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    blocked = "1 of them over stride-sized blocks" in r.out
    assert blocked == (spec["kernel"] > 16 or spec.get("stride", 1) > 8), r.out
    got, want = run_against_ort(tmp_path, model)
    assert np.abs(got - want).max() <= 0.01 * np.abs(want).max() + 2e-3, np.abs(got - want).max()


def pad_model(path, shape, pads, mode):
    graph = helper.make_graph(
        [helper.make_node("Pad", ["x", "pads"], ["p"], mode=mode), helper.make_node("Relu", ["p"], ["y"])], "pad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(pads, np.int64), "pads")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


@pytest.mark.parametrize("mode", ["reflect", "edge"])
@pytest.mark.parametrize("shape,pads", [((1, 8, 16, 16), (0, 0, 2, 1, 0, 0, 1, 3)), ((1, 4, 100), (0, 0, 5, 0, 0, 7)),
                                        # past 64 on the last axis: a Slice times a 0/1 matrix per side
                                        ((4, 576), (0, 128, 0, 128)), ((1, 3, 300), (0, 0, 100, 0, 0, 65))])
def test_reflect_and_edge_pads_run_on_the_npu(tmp_path, mode, shape, pads):
    model = pad_model(tmp_path / "pad.onnx", shape, pads, mode)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "1 reflect/edge Pad as slices and a Concat" in r.out and "0 CPU island(s)" in r.out, r.out
    got, want = run_against_ort(tmp_path, model)
    # Pads move values: exact up to fp16 rounding of each value.
    assert np.abs(got - want).max() <= np.abs(want).max() * 2 ** -10, np.abs(got - want).max()
