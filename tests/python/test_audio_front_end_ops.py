"""Patterns of audio front ends and streaming models that compiled wrongly or fell to the CPU: a
MatMul over a 4-D [1, 1, frames, bins] value (a mel filterbank after an STFT written as a
strided Conv1d; its image view is one channel, its gemm view frames x bins), a Clip whose floor
is computed at run time (log-mel floored at its maximum minus 80 dB), and Slices with a negative
step (reflect padding, time reversal). Each runs whole on the NPU with ONNX Runtime's outputs."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import ROOT, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


def model(nodes, shape, inits=()):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(nodes, "m", [x], [y], list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def const(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def run_both(tmp_path, m, precision, explain_needle=""):
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", precision, "--strict", "--explain", "-o",
                   tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert explain_needle in r.out, r.out
    shape = [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(7).uniform(-2, 2, shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = np.load(tmp_path / "out" / "y.npy")
    assert got.shape == want.shape
    return got, want


@pytest.mark.parametrize("shape", [[1, 1, 5, 257], [1, 1, 8, 64], [1, 2, 5, 64]])
@pytest.mark.parametrize("precision", ["fp16", "int8"])
def test_matmul_over_a_4d_value_with_one_leading_channel(tmp_path, shape, precision):
    w = (np.random.default_rng(8).standard_normal((shape[-1], 32)) * 0.1).astype(np.float32)
    got, want = run_both(tmp_path, model([helper.make_node("MatMul", ["x", "w"], ["y"])], shape, [const("w", w)]), precision)
    # The image view of [1, 1, M, K] made this an M*K x 1 x 1 gemm (a check failure, or in FP16 a
    # silently wrong output of cosine ~0).
    cos = float(np.dot(got.ravel(), want.ravel()) / np.linalg.norm(got) / np.linalg.norm(want))
    if precision == "fp16":
        assert np.abs(got - want).max() <= 2e-2 * np.abs(want).max()
        assert cos > 0.9999, cos
    else:  # int8 activations calibrated on two random samples: about one step per output
        assert cos > 0.995, cos


@pytest.mark.parametrize("bounds", ["run_time_min", "run_time_min_constant_max", "constant_min_run_time_max"])
def test_clip_with_a_bound_computed_at_run_time(tmp_path, bounds):
    nodes = [helper.make_node("ReduceMax", ["x"], ["peak"], keepdims=0),
             helper.make_node("Sub", ["peak", "range"], ["floor"])]
    inits = [const("range", np.float32(1.5)), const("ceiling", np.float32(1.2)), const("low", np.float32(-0.5))]
    if bounds == "run_time_min":
        nodes.append(helper.make_node("Clip", ["x", "floor"], ["y"]))
    elif bounds == "run_time_min_constant_max":
        nodes.append(helper.make_node("Clip", ["x", "floor", "ceiling"], ["y"]))
    else:
        nodes.append(helper.make_node("Clip", ["x", "low", "peak"], ["y"]))
    got, want = run_both(tmp_path, model(nodes, [1, 4, 6, 16], inits), "fp16", "1 Clip with run-time bounds as Max/Min")
    assert np.abs(got - want).max() <= 4e-3, np.abs(got - want).max()


@pytest.mark.parametrize("axis,start,end,step", [(2, -1, -100, -1), (2, 10, 1, -2), (1, 2, -5, -1), (0, 0, -2, -1)])
def test_slice_with_a_negative_step_is_a_copy_on_the_npu(tmp_path, axis, start, end, step):
    inits = [const("s", np.array([start], np.int64)), const("e", np.array([end], np.int64)),
             const("a", np.array([axis], np.int64)), const("p", np.array([step], np.int64))]
    m = model([helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])], [1, 3, 12, 20], inits)
    got, want = run_both(tmp_path, m, "fp16")
    # A copy: bit-exact in FP16 once both sides round their input to FP16.
    assert np.abs(got - want).max() <= 2e-3, np.abs(got - want).max()


def hann(n):
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)).astype(np.float32)


def assert_spectrum_close(got, want):
    cos = float(np.dot(got.ravel(), want.ravel()) / np.linalg.norm(got) / np.linalg.norm(want))
    assert cos > 0.9999, cos
    assert np.abs(got - want).max() <= 1e-2 * np.abs(want).max(), np.abs(got - want).max()


@pytest.mark.parametrize("signal_shape,window,frame_length,onesided", [
    ([1, 4000], 400, None, 1),        # Whisper / NeMo: a Hann window, one-sided
    ([2, 3000, 1], None, 256, 0),     # a batch of two, rectangular frames, both sides
])
def test_stft_runs_as_a_conv1d_on_the_npu(tmp_path, signal_shape, window, frame_length, onesided):
    inits = [const("step", np.array(160, np.int64))]
    inputs = ["x", "step"]
    if window:
        inits.append(const("window", hann(window)))
        inputs.append("window")
    if frame_length:
        inits.append(const("length", np.array(frame_length, np.int64)))
        inputs += [""] * (3 - len(inputs)) + ["length"]
    m = model([helper.make_node("STFT", inputs, ["y"], onesided=onesided)], signal_shape, inits)
    got, want = run_both(tmp_path, m, "fp16", "1 STFT as a Conv1d, 0 DFT as a MatMul")
    assert_spectrum_close(got, want)


def test_dft_of_frames_runs_as_a_matmul_on_the_npu(tmp_path):
    """wespeaker's front end: frames [1, T, 100, 1] -> DFT of length 128 (zero-padded), one-sided."""
    m = model([helper.make_node("DFT", ["x", "n"], ["y"], axis=-2, onesided=1)], [1, 12, 100, 1],
              [const("n", np.array(128, np.int64))])
    got, want = run_both(tmp_path, m, "fp16", "0 STFT as a Conv1d, 1 DFT as a MatMul")
    assert got.shape == (1, 12, 65, 2)
    assert_spectrum_close(got, want)


def test_edge_pad_with_a_negative_pad_crops_then_pads_on_the_npu(tmp_path):
    """Kaldi's pre-emphasis: x[t - 1] as an edge pad of one sample in front and one dropped at the end."""
    m = model([helper.make_node("Pad", ["x", "pads"], ["y"], mode="edge")], [1, 2, 300],
              [const("pads", np.array([0, 0, 1, 0, 0, -1], np.int64))])
    got, want = run_both(tmp_path, m, "fp16", "1 reflect/edge Pad as slices and a Concat")
    assert np.abs(got - want).max() <= 2e-3


def test_outputs_folded_to_constants_cost_no_transition(tmp_path):
    """A feature-length output known at compile time (Shape of the input) comes from a CPU step
    with no inputs: it waits for nothing on the NPU, so it is no NPU<->CPU transition."""
    nodes = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Shape", ["x"], ["frames"])]
    m = model(nodes, [1, 4, 8, 8])
    m.graph.output.append(helper.make_tensor_value_info("frames", TensorProto.INT64, None))
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s), 0 transition(s)" in r.out, r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "frames.npy"), [1, 4, 8, 8])


def test_gather_and_scatter_elements_with_constant_indices_are_copies_on_the_npu(tmp_path):
    """Kaldi's front end with its length known: the signal's end reflected (GatherElements) into
    the padding after it (ScatterElements): DMA boxes, the data elements no index names copied as
    they are."""
    n = 40
    inits = [const("from", np.array([[n - 2 - i for i in range(8)]], np.int64)),
             const("to", np.array([[n - 8 + i for i in range(8)]], np.int64))]
    nodes = [helper.make_node("GatherElements", ["x", "from"], ["tail"], axis=1),
             helper.make_node("ScatterElements", ["x", "to", "tail"], ["y"], axis=1)]
    got, want = run_both(tmp_path, model(nodes, [1, n], inits), "fp16")
    assert np.abs(got - want).max() <= 2e-3, np.abs(got - want).max()


@pytest.mark.parametrize("indices,why", [
    (np.array([[1, 1]], np.int64), "two updates of one element (their order is undefined)"),
    (np.array([[0, 9]], np.int64), "index 9 out of range on axis 1"),
])
def test_scatter_elements_the_dma_cannot_take_falls_back_naming_why(tmp_path, indices, why):
    nodes = [helper.make_node("ScatterElements", ["x", "to", "u"], ["y"], axis=1)]
    m = model(nodes, [1, 6], [const("to", indices), const("u", np.ones((1, 2), np.float32))])
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert why in r.out + r.err, r.out + r.err
