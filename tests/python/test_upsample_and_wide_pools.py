"""Layers the NPU instructions cannot take directly, rewritten by passes/npu_lowering.cpp into ones
they can, exactly: bilinear upsampling by a whole factor (half-pixel or asymmetric coordinates) as
an edge pad, a depthwise 3x3 Conv per output phase, their Concat and DepthToSpace; average and max pools whose
window (= stride) is wider than the pool instruction's fields as chains of narrower pools. Both
run whole on the NPU, with ONNX Runtime's outputs."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conftest import ROOT, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


def resize_model(coords, factor, size):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, size, size])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, size * factor, size * factor])
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1, 1, factor, factor])
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", coordinate_transformation_mode=coords)
    return helper.make_model(helper.make_graph([node], "resize", [x], [y], [scales]), opset_imports=[helper.make_opsetid("", 17)])


def pool_model(op, window, size):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, size, size])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, size // window, size // window])
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[window, window], strides=[window, window])
    return helper.make_model(helper.make_graph([node], "pool", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])


def run_both(tmp_path, model, explain_needle):
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--strict", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert explain_needle in r.out, r.out
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(0).uniform(-2, 2, shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs",
                   tmp_path / "out", "-q")
    assert r.code == 0, r.err
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    return np.load(tmp_path / "out" / "y.npy"), want


@pytest.mark.parametrize("coords,factor", [("half_pixel", 2), ("pytorch_half_pixel", 4), ("asymmetric", 3)])
def test_linear_upsampling_is_exact_on_the_npu(tmp_path, coords, factor):
    got, want = run_both(tmp_path, resize_model(coords, factor, 12), "1 linear Resize as depthwise Convs + DepthToSpace")
    # FP16 on the NPU: within its rounding of values up to 2, borders included (the edge pad).
    assert np.abs(got - want).max() <= 4e-3, np.abs(got - want).max()
    assert np.abs(got[..., 0, :] - want[..., 0, :]).max() <= 4e-3


@pytest.mark.parametrize("op,window", [("AveragePool", 32), ("MaxPool", 16), ("AveragePool", 64)])
def test_pools_wider_than_the_instruction_run_as_chains(tmp_path, op, window):
    got, want = run_both(tmp_path, pool_model(op, window, 128), "1 wide pools as chains")
    assert np.abs(got - want).max() <= 4e-3, np.abs(got - want).max()
