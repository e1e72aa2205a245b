"""An attention mask as Hugging Face exports it (int64 input, Unsqueeze, Cast to float, 1 - m,
masked_fill with float32's lowest, added to the scores) runs on the NPU, not as a CPU island:
the mask becomes a float input the host converts, the fill a product. In fp16 the fill is the
largest finite fp16 (no 0 * inf = NaN) and padded keys get no weight."""
import os
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402

HEADS, KEYS = 2, 64


def mask_model(path):
    nodes = [
        helper.make_node("Unsqueeze", ["attention_mask", "ax1"], ["u1"], name="u1"),
        helper.make_node("Unsqueeze", ["u1", "ax2"], ["u2"], name="u2"),
        helper.make_node("Cast", ["u2"], ["m"], name="m", to=TensorProto.FLOAT),
        helper.make_node("Sub", ["one", "m"], ["inv"], name="inv"),
        helper.make_node("Cast", ["inv"], ["padded"], name="padded", to=TensorProto.BOOL),
        helper.make_node("Where", ["padded", "lowest", "inv"], ["fill"], name="fill"),
        helper.make_node("Add", ["scores", "fill"], ["masked"], name="masked"),
        helper.make_node("Softmax", ["masked"], ["probs"], name="probs", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "mask",
        [helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, KEYS]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, HEADS, 1, KEYS])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, HEADS, 1, KEYS])],
        [numpy_helper.from_array(np.array([1], np.int64), "ax1"), numpy_helper.from_array(np.array([2], np.int64), "ax2"),
         numpy_helper.from_array(np.array(1.0, np.float32), "one"),
         numpy_helper.from_array(np.array(np.finfo(np.float32).min, np.float32), "lowest")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_padded_keys_get_no_weight_on_the_npu_in_fp16(tmp_path):
    mask_model(tmp_path / "mask.onnx")
    mask = np.ones((1, KEYS), np.int64)
    mask[0, :5] = 0  # left padding
    scores = np.random.default_rng(4).standard_normal((1, HEADS, 1, KEYS)).astype(np.float32)
    model = npusim.compile(tmp_path / "mask.onnx", ROOT / "configs/npu-40tops-55gbps.yaml", precision="fp16")
    outputs, report = model.run({"attention_mask": mask, "scores": scores})
    assert all(layer["device"] == "npu" for layer in report["layers"]), [l["name"] for l in report["layers"]]
    probs = outputs["probs"].astype(np.float32)
    assert not np.isnan(probs).any()
    z = np.where(mask[:, None, None, :] == 0, -np.inf, scores)
    expected = np.exp(z - z.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    np.testing.assert_array_equal(probs[..., :5], 0)
    np.testing.assert_allclose(probs, expected, atol=2e-3)


def test_padded_keys_get_little_weight_in_int8(tmp_path):
    # Calibrated on an all-ones mask, the mask's path takes the ranges of a mask in [0, 1]
    # (compiler/quant/quantize.cpp mask_path_ranges), so a padded key's fill survives int8 and
    # saturates the scores' grid: it gets less weight than any key that is not padded.
    mask_model(tmp_path / "mask.onnx")
    mask = np.ones((1, KEYS), np.int64)
    mask[0, :5] = 0
    scores = np.random.default_rng(4).standard_normal((1, HEADS, 1, KEYS)).astype(np.float32)
    outputs, report = npusim.compile(tmp_path / "mask.onnx", ROOT / "configs/npu-40tops-55gbps.yaml",
                                     precision="int8").run({"attention_mask": mask, "scores": scores})
    assert all(layer["device"] == "npu" for layer in report["layers"])
    probs = outputs["probs"].astype(np.float32)
    assert probs[..., :5].max() < probs[..., 5:].min(), probs
