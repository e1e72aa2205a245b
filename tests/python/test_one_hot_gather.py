"""Embeddings written as a one-hot product (Magika's: integer ids -> Reshape [..., 1] -> Equal with
an iota -> Cast to float -> MatMul by a constant table) become Clip(ids, -1, V) -> Gather of the
table with a zero row appended (compiler/frontend/one_hot_gather.cpp), which runs on the NPU as
an int32 clip and the DMA gather. Exact ONNX semantics: an id outside [0, V) reads a zero row,
as the one-hot product gives it, never an error."""
import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper, save

from conftest import ROOT, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"
VOCAB, DIM, TOKENS = 257, 32, 64
# In range, the ends of the table, and outside it both ways (to the ends of int32).
EDGE_IDS = [0, 256, -1, -5000, 257, 300, 2**31 - 1, -2**31]


def one_hot_model(path, ids_type=TP.INT32, table=None, iota=None, head=False, seed=0):
    """ids [1, TOKENS] -> Reshape [1, TOKENS, 1] -> Equal(iota [VOCAB]) -> Cast -> MatMul(table)
    [-> MatMul by [DIM, 16]] -> y. Table values are multiples of 1/64 in [-2, 2): exact in fp16."""
    rng = np.random.default_rng(seed)
    if table is None:
        table = (rng.integers(-128, 128, (VOCAB, DIM)) / 64).astype(np.float32)
    np_ids = np.int32 if ids_type == TP.INT32 else np.int64
    if iota is None:
        iota = np.arange(VOCAB)
    inits = [numpy_helper.from_array(table, "table"), numpy_helper.from_array(np.asarray(iota, np_ids), "iota"),
             numpy_helper.from_array(np.array([1, TOKENS, 1], np.int64), "shape")]
    nodes = [helper.make_node("Reshape", ["ids", "shape"], ["column"]),
             helper.make_node("Equal", ["column", "iota"], ["hot"]),
             helper.make_node("Cast", ["hot"], ["one_hot"], to=TP.FLOAT),
             helper.make_node("MatMul", ["one_hot", "table"], ["emb" if head else "y"], name="embed")]
    width = DIM
    if head:
        w = (rng.integers(-8, 8, (DIM, 16)) / 64).astype(np.float32)
        inits.append(numpy_helper.from_array(w, "w"))
        nodes.append(helper.make_node("MatMul", ["emb", "w"], ["y"], name="head"))
        width = 16
    graph = helper.make_graph(nodes, "one_hot", [helper.make_tensor_value_info("ids", ids_type, [1, TOKENS])],
                              [helper.make_tensor_value_info("y", TP.FLOAT, [1, TOKENS, width])], inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def ids_for(ids_type, seed=1):
    np_ids = np.int32 if ids_type == TP.INT32 else np.int64
    ids = np.random.default_rng(seed).integers(0, VOCAB, (1, TOKENS)).astype(np_ids)
    ids[0, :len(EDGE_IDS)] = EDGE_IDS
    return ids


def compile_and_run(path, tmp_path, ids, *options):
    prog = tmp_path / "m.npuprog"
    r = run_npusim("compile", path, "-c", CONFIG, "--explain", "-o", prog, *options)
    assert r.code == 0, r.err
    np.save(tmp_path / "ids.npy", ids.astype(np.int32))  # the program's ids are the NPU's int32
    run = run_npusim("run", prog, "-c", CONFIG, "--input", f"ids={tmp_path / 'ids.npy'}", "--save-outputs",
                     tmp_path / "out", "-q")
    assert run.code == 0, run.err
    return r.out, np.load(tmp_path / "out" / "y.npy")


def placement(out):
    return next(l for l in out.splitlines() if l.startswith("placement:"))


def reference(path, ids):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"ids": ids})[0]


@pytest.mark.parametrize("ids_type", [TP.INT32, TP.INT64], ids=["int32", "int64"])
def test_one_hot_embedding_is_a_gather_equal_to_onnx_runtime_in_fp16(tmp_path, ids_type):
    path = one_hot_model(tmp_path / "oh.onnx", ids_type)
    ids = ids_for(ids_type)
    out, y = compile_and_run(path, tmp_path, ids, "--precision", "fp16", "--strict")
    assert "1 one-hot MatMul(s) as Clip + Gather of the table with a zero row" in out, out
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    want = reference(path, ids)
    np.testing.assert_array_equal(y, want)  # rows are exact in fp16; out-of-range ids read zeros
    assert not y[0, 2:len(EDGE_IDS)].any()


@pytest.mark.parametrize("head", [False, True], ids=["embedding", "with_head"])
def test_one_hot_embedding_in_int8(tmp_path, head):
    """The gathered rows are the table's int8 values (its grid covers the whole table, zero row
    included): within half a step (4 / 255 / 2) of ONNX Runtime. A MatMul after it runs on the
    NPU too (its accuracy is its calibration's: 2 generated samples)."""
    path = one_hot_model(tmp_path / "oh.onnx", head=head)
    ids = ids_for(TP.INT32)
    out, y = compile_and_run(path, tmp_path, ids, "--strict")
    assert "1 one-hot MatMul(s) as Clip + Gather of the table with a zero row" in out, out
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    if not head:
        want = reference(path, ids)
        assert np.abs(y - want).max() <= 4 / 255 / 2 + 1e-6, np.abs(y - want).max()
        assert not y[0, 2:len(EDGE_IDS)].any()


@pytest.mark.parametrize("case", ["inf_in_table", "iota_with_a_gap"])
def test_inexact_one_hot_products_are_not_rewritten(tmp_path, case):
    rng = np.random.default_rng(0)
    table = (rng.integers(-128, 128, (VOCAB, DIM)) / 64).astype(np.float32)
    iota = np.arange(VOCAB)
    if case == "inf_in_table":
        table[5, 3] = np.inf  # the product is NaN in column 3 of every row; a gather would not be
    else:
        iota[7] = 1000
    path = one_hot_model(tmp_path / "oh.onnx", table=table, iota=iota)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "one-hot-gather" not in r.out, r.out
    assert "(Equal)" in r.out  # left as it was: on the CPU
