"""Attention as transformers 4.38 and later exports it: rotary cos/sin computed in the graph from
position_ids.float() (inv_freq @ positions, Concat, Cos, Sin) and the padded causal mask built with
Equal(causal + mask, 0), Where(., float32's lowest, causal) and a ScatterND over the whole mask.
The front end makes cos/sin Gathers of tables by position (frontend/position_tables.cpp) and the
mask products (frontend/integer_masks.cpp), so the block runs whole on the NPU; outputs against
ONNX Runtime, with padded positions and with positions far beyond the calibration's. Also GPT-2's
causal Where with a constant condition and DistilBERT's Equal on the int64 mask."""
import os
import pathlib
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402

T, HEADS, DH, D = 8, 2, 64, 128
LOWEST = np.finfo(np.float32).min
CONFIG = ROOT / "configs/npu-40tops-55gbps.yaml"


def block(path, with_mask=True, output="y"):
    rng = np.random.default_rng(11)
    inv_freq = (1.0 / 10000 ** (np.arange(0, DH, 2) / DH)).astype(np.float32)[None, :, None]
    inits = {"inv_freq": inv_freq,
             "wq": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "wk": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "wv": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "heads": np.array([1, T, HEADS, DH], np.int64), "ax1": np.array([1], np.int64),
             "ax2": np.array([2], np.int64), "half": np.array([DH // 2], np.int64),
             "zero_i": np.array([0], np.int64), "end": np.array([DH], np.int64), "last": np.array([-1], np.int64),
             "scale": np.array(1 / np.sqrt(DH), np.float32), "zero": np.array(0, np.float32),
             "lowest": np.array(LOWEST, np.float32),
             "causal": np.triu(np.full((T, T), LOWEST, np.float32), 1)[None, None],
             "every": np.stack(np.meshgrid(np.zeros(1), np.zeros(1), np.arange(T), np.arange(T), indexing="ij"),
                               -1).astype(np.int64)}
    n = helper.make_node
    nodes = [n("Unsqueeze", ["position_ids", "ax1"], ["p3"]), n("Cast", ["p3"], ["pf"], to=TensorProto.FLOAT),
             n("MatMul", ["inv_freq", "pf"], ["freqs"]), n("Transpose", ["freqs"], ["freqs_t"], perm=[0, 2, 1]),
             n("Concat", ["freqs_t", "freqs_t"], ["emb"], axis=-1), n("Cos", ["emb"], ["cos3"]),
             n("Sin", ["emb"], ["sin3"]), n("Unsqueeze", ["cos3", "ax1"], ["cos"]), n("Unsqueeze", ["sin3", "ax1"], ["sin"])]
    for name in ("q", "k"):
        nodes += [n("MatMul", ["x", "w" + name], [name + "_flat"]), n("Reshape", [name + "_flat", "heads"], [name + "_h"]),
                  n("Transpose", [name + "_h"], [name + "_t"], perm=[0, 2, 1, 3]),
                  n("Slice", [name + "_t", "zero_i", "half", "last"], [name + "_lo"]),
                  n("Slice", [name + "_t", "half", "end", "last"], [name + "_hi"]),
                  n("Neg", [name + "_hi"], [name + "_neg"]),
                  n("Concat", [name + "_neg", name + "_lo"], [name + "_rot"], axis=-1),
                  n("Mul", [name + "_t", "cos"], [name + "_c"]), n("Mul", [name + "_rot", "sin"], [name + "_s"]),
                  n("Add", [name + "_c", name + "_s"], [name + "_r"])]
    nodes += [n("MatMul", ["x", "wv"], ["v_flat"]), n("Reshape", ["v_flat", "heads"], ["v_h"]),
              n("Transpose", ["v_h"], ["v"], perm=[0, 2, 1, 3]),
              n("Transpose", ["k_r"], ["k_tr"], perm=[0, 1, 3, 2]), n("MatMul", ["q_r", "k_tr"], ["qk"]),
              n("Mul", ["qk", "scale"], ["scores"])]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, T, D]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, T])]
    if with_mask:
        nodes += [n("Unsqueeze", ["attention_mask", "ax1"], ["m1"]), n("Unsqueeze", ["m1", "ax2"], ["m2"]),
                  n("Cast", ["m2"], ["mf"], to=TensorProto.FLOAT), n("Add", ["causal", "mf"], ["sum"]),
                  n("Equal", ["sum", "zero"], ["padding"]), n("Cast", ["padding"], ["padding_b"], to=TensorProto.BOOL),
                  n("Where", ["padding_b", "lowest", "causal"], ["filled"]),
                  n("ScatterND", ["causal", "every", "filled"], ["full"]), n("Add", ["scores", "full"], ["masked"])]
        inputs.append(helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, T]))
    else:
        nodes += [n("Add", ["scores", "causal"], ["masked"])]
    nodes += [n("Softmax", ["masked"], ["probs"], axis=-1), n("MatMul", ["probs", "v"], ["y"])]
    graph = helper.make_graph(nodes, "attention", inputs,
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, [1, HEADS, T, DH])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def feeds(first_position, padded):
    rng = np.random.default_rng(12)
    f = {"x": rng.standard_normal((1, T, D)).astype(np.float32),
         "position_ids": np.arange(first_position, first_position + T, dtype=np.int64)[None]}
    if padded is not None:
        mask = np.ones((1, T), np.int64)
        mask[0, :padded] = 0
        f["attention_mask"] = mask
    return f


@pytest.mark.parametrize("first_position,padded", [(0, 0), (0, 3), (3000, 0)])
def test_fp16_block_matches_onnx_runtime_on_the_npu(tmp_path, first_position, padded):
    model = block(tmp_path / "attention.onnx")
    f = feeds(first_position, padded)
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, f)[0]
    program = npusim.compile(model, CONFIG, precision="fp16")
    outputs, report = program.run(f)
    assert report["fallbacks"] == []
    got = outputs["y"].astype(np.float32)
    # Padded query rows attend to nothing in float32 (a uniform row); compare the others.
    np.testing.assert_allclose(got[:, :, padded:], expected[:, :, padded:], atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("first_position", [0, 3000])
def test_int8_rotated_queries_at_any_position(tmp_path, first_position):
    # Calibration samples positions uniformly over the table (4096 rows); before the tables int8
    # took the positions' range from all-ones samples and saturated every angle (cosine 0.50 for
    # the keys of transformers 4.44's Llama prefill). The rotated queries (the attention itself
    # in int8 is another matter: its causal mask of float32's lowest values has no int8 code).
    model = block(tmp_path / "attention.onnx", with_mask=False, output="q_r")
    f = feeds(first_position, None)
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, f)[0].ravel()
    outputs, report = npusim.compile(model, CONFIG, precision="int8").run(f)
    assert report["fallbacks"] == []
    got = outputs["q_r"].astype(np.float32).ravel()
    cosine = float(np.dot(got, expected) / np.linalg.norm(got) / np.linalg.norm(expected))
    assert cosine > 0.995, cosine


def test_a_position_beyond_the_table_is_a_one_line_error(tmp_path):
    model = block(tmp_path / "attention.onnx", with_mask=False)
    f = feeds(4096 - T + 1, None)  # the last position is 4096: one row past the table
    with pytest.raises(Exception, match=r"index 4096 .*outside \[-4096, 4096\)"):
        npusim.compile(model, CONFIG, precision="fp16").run(f)


@pytest.mark.parametrize("first_position,padded", [(0, 3), (3000, 0)])
def test_int8_block_with_the_padded_causal_mask(tmp_path, first_position, padded):
    # The mask holds float32's lowest value. int8 used to give the scores + mask sum that range
    # (a grid step of 1.3e36: every softmax row uniform, cosine 0.85), and the mask's indicator
    # |sign(x)| came back 1/255 short of 1 (0 read as -1.3e36 where nothing is masked). Now the
    # indicator is sign(|x|), the sum's grid spans the scores (quantize.cpp) and the fill saturates
    # it (quant_math.h).
    model = block(tmp_path / "attention.onnx")
    f = feeds(first_position, padded)
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, f)[0][:, :, padded:].ravel()
    outputs, report = npusim.compile(model, CONFIG, precision="int8").run(f)
    assert report["fallbacks"] == []
    got = outputs["y"].astype(np.float32)[:, :, padded:].ravel()
    cosine = float(np.dot(got, expected) / np.linalg.norm(got) / np.linalg.norm(expected))
    assert cosine > 0.995, cosine


def gpt2_block(path, style="gpt2"):
    """transformers' GPT-2 attention: Where(causal bool, scores, float32's lowest), then the padding
    mask (1 - m) * lowest added, Softmax, the product with V. style "distilbert": no causal mask,
    the padding as Where(Expand(Reshape(Equal(attention_mask, 0))), lowest, scores)."""
    rng = np.random.default_rng(13)
    inits = {"wq": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "wk": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "wv": (rng.standard_normal((D, HEADS * DH)) / np.sqrt(D)).astype(np.float32),
             "heads": np.array([1, T, HEADS, DH], np.int64), "ax1": np.array([1], np.int64),
             "ax2": np.array([2], np.int64), "scale": np.array(1 / np.sqrt(DH), np.float32),
             "one": np.array(1, np.float32), "lowest": np.array(LOWEST, np.float32),
             "keep": np.tril(np.ones((T, T), bool))[None, None], "zero_i": np.array(0, np.int64),
             "row": np.array([1, 1, 1, T], np.int64), "all": np.array([1, HEADS, T, T], np.int64)}
    n = helper.make_node
    nodes = []
    for name in ("q", "k", "v"):
        nodes += [n("MatMul", ["x", "w" + name], [name + "_flat"]), n("Reshape", [name + "_flat", "heads"], [name + "_h"]),
                  n("Transpose", [name + "_h"], [name], perm=[0, 2, 1, 3])]
    nodes += [n("Transpose", ["k"], ["k_t"], perm=[0, 1, 3, 2]), n("MatMul", ["q", "k_t"], ["qk"]),
              n("Mul", ["qk", "scale"], ["scores"])]
    if style == "gpt2":
        nodes += [n("Where", ["keep", "scores", "lowest"], ["causal"]),
                  n("Unsqueeze", ["attention_mask", "ax1"], ["m1"]), n("Unsqueeze", ["m1", "ax2"], ["m2"]),
                  n("Cast", ["m2"], ["mf"], to=TensorProto.FLOAT), n("Sub", ["one", "mf"], ["inv"]),
                  n("Mul", ["inv", "lowest"], ["padding"]), n("Add", ["causal", "padding"], ["masked"])]
    else:
        nodes += [n("Equal", ["attention_mask", "zero_i"], ["padded"]), n("Reshape", ["padded", "row"], ["padded4"]),
                  n("Expand", ["padded4", "all"], ["padded_all"]), n("Where", ["padded_all", "lowest", "scores"], ["masked"])]
    nodes += [n("Softmax", ["masked"], ["probs"], axis=-1), n("MatMul", ["probs", "v"], ["y"])]
    graph = helper.make_graph(nodes, "gpt2_attention",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, T, D]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, T])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, HEADS, T, DH])],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.mark.parametrize("style,precision,padded", [("gpt2", "int8", 0), ("gpt2", "int8", 3),
                                                     ("distilbert", "int8", 3), ("distilbert", "fp16", 3)])
def test_bert_and_gpt2_masks_run_on_the_npu(tmp_path, style, precision, padded):
    # GPT-2: the int8 Where with a fill kept fp16 for a softmax, but the padding mask's Add reads it:
    # Where and Add ran on the CPU; now scores + a constant causal mask (frontend/constant_masks.cpp)
    # and the two sums on the scores' grid. DistilBERT: Equal on the int64 mask, moved by Reshape
    # and Expand into a Where: Equal, Reshape, Expand and Where ran on the CPU.
    model = gpt2_block(tmp_path / "attention.onnx", style)
    f = feeds(0, padded)
    del f["position_ids"]
    # DistilBERT's padded query rows attend to the unpadded keys: compare every row.
    first = padded if style == "gpt2" else 0
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, f)[0][:, :, first:].ravel()
    outputs, report = npusim.compile(model, CONFIG, precision=precision).run(f)
    assert report["fallbacks"] == []
    got = outputs["y"].astype(np.float32)[:, :, first:].ravel()
    cosine = float(np.dot(got, expected) / np.linalg.norm(got) / np.linalg.norm(expected))
    assert cosine > (0.9999 if precision == "fp16" else 0.995), cosine


def t5_cross_attention(path):
    """T5's cross-attention: a zero position bias of [1, heads, 1, n] plus the encoder's mask
    (1 - m) * lowest of [1, 1, 1, n], added to the scores. In int8 the bias + mask Add was a
    one-element-in, one-element-out table although its constant broadcasts the mask over the heads:
    only the first head's rows were written (cosine 0.36)."""
    S = 24
    n = helper.make_node
    inits = [numpy_helper.from_array(np.array([1], np.int64), "ax1"), numpy_helper.from_array(np.array([2], np.int64), "ax2"),
             numpy_helper.from_array(np.array(1, np.float32), "one"), numpy_helper.from_array(np.array(LOWEST, np.float32), "lowest"),
             numpy_helper.from_array(np.zeros((1, HEADS, 1, S), np.float32), "zero_bias")]
    nodes = [n("Unsqueeze", ["attention_mask", "ax1"], ["m1"]), n("Unsqueeze", ["m1", "ax2"], ["m2"]),
             n("Cast", ["m2"], ["mf"], to=TensorProto.FLOAT), n("Sub", ["one", "mf"], ["inv"]),
             n("Mul", ["inv", "lowest"], ["mask"]), n("Add", ["zero_bias", "mask"], ["bias"]),
             n("MatMul", ["q", "k"], ["scores"]), n("Add", ["scores", "bias"], ["masked"]),
             n("Softmax", ["masked"], ["probs"], axis=-1), n("MatMul", ["probs", "v"], ["y"])]
    graph = helper.make_graph(nodes, "t5_cross_attention",
                              [helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, HEADS, T, DH]),
                               helper.make_tensor_value_info("k", TensorProto.FLOAT, [1, HEADS, DH, S]),
                               helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, HEADS, S, DH]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, S])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, HEADS, T, DH])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    rng = np.random.default_rng(14)
    mask = np.ones((1, S), np.int64)
    mask[0, -5:] = 0
    return path, {"q": (rng.standard_normal((1, HEADS, T, DH)) * 0.2).astype(np.float32),
                  "k": rng.standard_normal((1, HEADS, DH, S)).astype(np.float32),
                  "v": rng.standard_normal((1, HEADS, S, DH)).astype(np.float32), "attention_mask": mask}


def test_int8_t5_bias_broadcast_over_heads_and_int64_calibration_masks(tmp_path):
    model, f = t5_cross_attention(tmp_path / "t5.onnx")
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, f)[0].ravel()
    # The calibration files hold the mask as the model declares it, int64 (the front end made the
    # input float: such files were refused with "dtype 'i8' does not fit input").
    calib = tmp_path / "calib"
    calib.mkdir()
    for name, value in f.items():
        np.save(calib / f"{name}.npy", value)
    for kwargs in ({}, {"calib": calib}):
        outputs, report = npusim.compile(model, CONFIG, precision="int8", **kwargs).run(f)
        assert report["fallbacks"] == []
        got = outputs["y"].astype(np.float32).ravel()
        cosine = float(np.dot(got, expected) / np.linalg.norm(got) / np.linalg.norm(expected))
        assert cosine > 0.995, (kwargs, cosine)
