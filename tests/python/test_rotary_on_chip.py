"""Rotary embeddings on the NPU as Llama exports them: the cos rows gathered by run-time position
ids stay on chip (the gather writes them where the step schedule keeps them, and stores nothing),
and the Mul broadcasting them over the heads reads them and the queries in place. The values are
the reference's."""
import os
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402

T, HEADS, DH, POSITIONS = 8, 4, 64, 32


def rotary_model(path):
    rng = np.random.default_rng(5)
    cos = np.cos(rng.uniform(0, 3, (POSITIONS, DH))).astype(np.float32)
    w = (rng.standard_normal((HEADS * DH, HEADS * DH)) * 0.05).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["cos_table", "position_ids"], ["cos_rows"], name="cos_gather", axis=0),
        helper.make_node("Unsqueeze", ["cos_rows", "axis1"], ["cos"], name="cos_heads"),
        helper.make_node("MatMul", ["x", "w"], ["q_flat"], name="q_proj"),
        helper.make_node("Reshape", ["q_flat", "heads_shape"], ["q_heads"], name="q_heads"),
        helper.make_node("Transpose", ["q_heads"], ["q"], name="q_t", perm=[0, 2, 1, 3]),
        helper.make_node("Mul", ["q", "cos"], ["q_cos"], name="q_cos"),
        helper.make_node("Relu", ["q_cos"], ["y"], name="y"),
    ]
    graph = helper.make_graph(
        nodes, "rotary",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, T, HEADS * DH]),
         helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, T])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, HEADS, T, DH])],
        [numpy_helper.from_array(cos, "cos_table"), numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(np.array([1], np.int64), "axis1"),
         numpy_helper.from_array(np.array([1, T, HEADS, DH], np.int64), "heads_shape")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return cos, w


def test_gathered_cos_rows_and_their_broadcast_mul_stay_on_chip(tmp_path):
    cos, w = rotary_model(tmp_path / "rotary.onnx")
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, T, HEADS * DH)).astype(np.float32)
    ids = np.array([[3, 17, 0, 31, 5, 5, 12, 30]], np.int64)
    outputs, report = npusim.compile(tmp_path / "rotary.onnx", ROOT / "configs/npu-40tops-55gbps.yaml",
                                     precision="fp16").run({"x": x, "position_ids": ids})
    q = (x @ w).reshape(1, T, HEADS, DH).transpose(0, 2, 1, 3)
    expected = np.maximum(q * cos[ids[0]][None, None], 0)
    np.testing.assert_allclose(outputs["y"].astype(np.float32), expected, atol=2e-2, rtol=2e-2)
    layers = {layer["name"]: layer for layer in report["layers"]}
    gather, mul = layers["cos_gather"], layers["q_cos"]
    assert gather["ddr_bytes_written"] == 0, gather            # the rows land on chip only
    assert gather["ddr_bytes_read"] == T * 4 + T * DH * 2, gather  # the ids and the rows it gathers
    assert mul["ddr_bytes"] == 0, mul                          # q and the cos rows read in place
