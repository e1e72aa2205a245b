"""LSTM, GRU and RNN unrolled over their time steps into NPU ops (compiler/passes/recurrent_lowering.cpp):
every node of the lowered graph runs on the NPU (FP16) with ONNX Runtime's outputs, forward,
reverse and bidirectional, with and without initial states; what is not lowered says why."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import run_npusim, ROOT

CONFIG = ROOT / "configs" / "default.yaml"
T, B, I, H = 6, 1, 16, 32


def rnn_model(path, op, direction="forward", initial=False, linear_before_reset=0, extra=None):
    """x [T, B, I] -> op -> (Y, Y_h[, Y_c]), then Y_h through a Relu so a layer reads it."""
    rng = np.random.default_rng(11)
    dirs = 2 if direction == "bidirectional" else 1
    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    w = numpy_helper.from_array((rng.standard_normal((dirs, gates * H, I)) * 0.3).astype(np.float32), "W")
    r = numpy_helper.from_array((rng.standard_normal((dirs, gates * H, H)) * 0.3).astype(np.float32), "R")
    b = numpy_helper.from_array((rng.standard_normal((dirs, 2 * gates * H)) * 0.3).astype(np.float32), "B")
    inits = [w, r, b]
    ins = ["x", "W", "R", "B", ""]
    if initial:
        inits.append(numpy_helper.from_array((rng.standard_normal((dirs, B, H)) * 0.5).astype(np.float32), "h0"))
        ins.append("h0")
        if op == "LSTM":
            inits.append(numpy_helper.from_array((rng.standard_normal((dirs, B, H)) * 0.5).astype(np.float32), "c0"))
            ins.append("c0")
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    attrs = dict(hidden_size=H, direction=direction, **(extra or {}))
    if op == "GRU":
        attrs["linear_before_reset"] = linear_before_reset
    nodes = [helper.make_node(op, ins, outs, **attrs), helper.make_node("Relu", ["Y_h"], ["h_relu"])]
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [T, dirs, B, H]),
               helper.make_tensor_value_info("h_relu", TensorProto.FLOAT, [dirs, B, H])]
    if op == "LSTM":
        outputs.append(helper.make_tensor_value_info("Y_c", TensorProto.FLOAT, [dirs, B, H]))
    graph = helper.make_graph(nodes, "rnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [T, B, I])],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def reference(model, x):
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, {"x": x})))


CASES = [("RNN", "forward", True, 0), ("RNN", "bidirectional", False, 0), ("LSTM", "forward", False, 0), ("LSTM", "reverse", True, 0), ("LSTM", "bidirectional", True, 0),
         ("GRU", "forward", False, 0), ("GRU", "bidirectional", True, 0), ("GRU", "forward", True, 1),
         ("GRU", "reverse", False, 1)]


@pytest.mark.parametrize("op,direction,initial,lbr", CASES)
def test_recurrent_layers_run_unrolled_on_the_npu(tmp_path, op, direction, initial, lbr):
    model = rnn_model(tmp_path / "rnn.onnx", op, direction, initial, lbr)
    x = np.random.default_rng(2).standard_normal((T, B, I)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "unrolled over their time steps" in r.out and f"({op})" not in r.out, r.out
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    for name, want in reference(model, x).items():
        got = np.load(tmp_path / "out" / f"{name}.npy")
        assert got.shape == want.shape, name
        # FP16 through T steps of state: a few fp16 ulps of the unit-range states.
        assert np.abs(got - want).max() <= 0.02, (name, np.abs(got - want).max())


def test_what_is_not_lowered_says_why(tmp_path):
    model = rnn_model(tmp_path / "clip.onnx", "LSTM", extra={"clip": 3.0})
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "(LSTM): LSTM not unrolled into NPU ops: it clips its cell input" in r.out, r.out


def test_int8_follows_onnx_runtime(tmp_path):
    """INT8, calibrated on generated inputs: the unrolled LSTM's sequence output stays close."""
    model = rnn_model(tmp_path / "rnn.onnx", "LSTM", "bidirectional", True)
    x = np.random.default_rng(2).standard_normal((T, B, I)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("run", model, "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "out")
    assert r.code == 0, r.err
    assert "(100.0%), CPU fallback 0.000 us" in r.out, r.out
    want = reference(model, x)["Y"]
    got = np.load(tmp_path / "out" / "Y.npy")
    cosine = float((got * want).sum() / np.linalg.norm(got) / np.linalg.norm(want))
    assert cosine >= 0.99, cosine
