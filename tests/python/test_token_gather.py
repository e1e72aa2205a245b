"""Gather by run-time indices on the NPU (token embeddings): the gather instruction fetches the
rows the ids name from the table in DDR (isa/ISA.md "gather"). Outputs against ONNX Runtime,
every layer on the NPU, timing independent of the ids, and a clear error for an id outside
the table."""
import json

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper, save

from conftest import assert_one_line_error

CONFIG = "configs/default.yaml"


def embedding_model(path, vocab, dim, tokens, ids_type=TensorProto.INT64, table_input=False, seed=0):
    """ids [1, tokens] -> Gather(table [vocab, dim]) -> + position row -> MatMul [dim, 16] -> y.
    Table values are multiples of 1/64 in [-2, 2]: exact in fp16, so an fp16 run matches exactly."""
    rng = np.random.default_rng(seed)
    table = (rng.integers(-128, 128, (vocab, dim)) / 64).astype(np.float32)
    pos = (rng.integers(-64, 64, (1, tokens, dim)) / 64).astype(np.float32)
    w = (rng.integers(-8, 8, (dim, 16)) / 64).astype(np.float32)
    inits = [numpy_helper.from_array(pos, "pos"), numpy_helper.from_array(w, "w")]
    inputs = [helper.make_tensor_value_info("ids", ids_type, [1, tokens])]
    if table_input:
        inputs.append(helper.make_tensor_value_info("table", TensorProto.FLOAT, [vocab, dim]))
    else:
        inits.append(numpy_helper.from_array(table, "table"))
    nodes = [helper.make_node("Gather", ["table", "ids"], ["emb"], name="embed", axis=0),
             helper.make_node("Add", ["emb", "pos"], ["h"], name="add_pos"),
             helper.make_node("MatMul", ["h", "w"], ["y"], name="proj")]
    graph = helper.make_graph(nodes, "embedding", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, tokens, 16])],
                              initializer=inits)
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return table


def run(npusim, root, tmp_path, model, feeds, *extra):
    args = ["run", model, "--config", root / CONFIG, "--json", tmp_path / "r.json", "--save-outputs", tmp_path / "out", "-q"]
    for name, value in feeds.items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / (name + '.npy')}"]
    r = npusim(*args, *extra)
    assert r.code == 0, r.err
    return json.loads((tmp_path / "r.json").read_text()), np.load(tmp_path / "out" / "y.npy")


def reference(model, feeds):
    return ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, feeds)[0]


@pytest.mark.parametrize("ids_type", [TensorProto.INT64, TensorProto.INT32], ids=["int64", "int32"])
def test_embedding_runs_whole_on_the_npu_in_fp16(npusim, root, tmp_path, ids_type):
    model = tmp_path / "emb.onnx"
    embedding_model(model, vocab=300, dim=64, tokens=12, ids_type=ids_type)
    ids = np.array([[0, 299, 7, 7, -1, -300, 150, 3, 1, 298, 42, 0]], dtype=np.int64 if ids_type == TensorProto.INT64 else np.int32)
    report, y = run(npusim, root, tmp_path, model, {"ids": ids}, "--precision", "fp16")
    assert [l["name"] for l in report["layers"] if l["device"] != "npu"] == []
    assert next(l for l in report["layers"] if l["name"] == "embed")["device"] == "npu"
    ref = reference(model, {"ids": ids})
    # The gathered rows and the add are exact in fp16; the MatMul rounds its fp16 output.
    np.testing.assert_allclose(y, ref, rtol=2e-3, atol=2e-3)


def test_the_table_may_be_a_graph_input(npusim, root, tmp_path):
    model = tmp_path / "emb.onnx"
    table = embedding_model(model, vocab=50, dim=32, tokens=5, table_input=True)
    ids = np.array([[49, 0, 25, 25, 1]], dtype=np.int64)
    report, y = run(npusim, root, tmp_path, model, {"ids": ids, "table": table}, "--precision", "fp16")
    assert next(l for l in report["layers"] if l["name"] == "embed")["device"] == "npu"
    np.testing.assert_allclose(y, reference(model, {"ids": ids, "table": table}), rtol=2e-3, atol=2e-3)


def test_rows_longer_than_a_dma_run_and_more_ids_than_a_tile(npusim, root, tmp_path):
    # 40000 fp16 elements = 80000 bytes a row: longer than the gather's len0 (65535), so each row
    # goes in column chunks; the output is the rows themselves (no MatMul), compared exactly.
    vocab, dim = 6, 40000
    rng = np.random.default_rng(1)
    table = (rng.integers(-128, 128, (vocab, dim)) / 64).astype(np.float32)
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"], name="embed", axis=0),
             helper.make_node("Relu", ["g"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "wide", [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, dim])],
                              initializer=[numpy_helper.from_array(table, "table")])
    model = tmp_path / "wide.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(model))
    ids = np.array([5, 0, 3], dtype=np.int64)
    report, y = run(npusim, root, tmp_path, model, {"ids": ids}, "--precision", "fp16")
    assert next(l for l in report["layers"] if l["name"] == "embed")["device"] == "npu"
    np.testing.assert_array_equal(y, np.maximum(table[ids], 0))

    # 3000 ids of 64 fp16 elements: several tiles of ids.
    model = tmp_path / "many.onnx"
    embedding_model(model, vocab=500, dim=64, tokens=3000)
    ids = np.random.default_rng(2).integers(-500, 500, (1, 3000)).astype(np.int64)
    report, y = run(npusim, root, tmp_path, model, {"ids": ids}, "--precision", "fp16")
    assert next(l for l in report["layers"] if l["name"] == "embed")["device"] == "npu"
    np.testing.assert_allclose(y, reference(model, {"ids": ids}), rtol=2e-3, atol=2e-3)


def test_int8_covers_the_whole_table_not_only_the_calibration_rows(npusim, root, tmp_path):
    # Calibration is generated (16 uniform ids of 400); row 399 holds values up to 8, four times
    # any other row's. The embedding's int8 scale covers every row of the table, so row 399 comes
    # back within half a step ((8 - -2) / 255 / 2 = 0.0196) instead of clipped near 2.
    vocab, dim = 400, 64
    table = (np.random.default_rng(3).integers(-128, 128, (vocab, dim)) / 64).astype(np.float32)
    table[399] = np.abs(table[399]) * 4
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"], name="embed", axis=0),
             helper.make_node("Relu", ["g"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "emb", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, dim])],
                              initializer=[numpy_helper.from_array(table, "table")])
    model = tmp_path / "emb.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(model))
    ids = np.array([[399, 398, 0, 1, 200, 201, 5, 6]], dtype=np.int64)
    report, y = run(npusim, root, tmp_path, model, {"ids": ids}, "--precision", "int8")
    assert [l["name"] for l in report["layers"] if l["device"] != "npu"] == []
    err = np.abs(y - np.maximum(table[ids], 0)).max()
    assert err <= (table.max() - min(table.min(), 0)) / 255 / 2 + 1e-6, err


def test_timing_does_not_depend_on_the_ids(npusim, root, tmp_path):
    model = tmp_path / "emb.onnx"
    embedding_model(model, vocab=300, dim=64, tokens=12)
    cycles = []
    for k, ids in enumerate([np.zeros((1, 12), np.int64), np.arange(288, 300, dtype=np.int64)[None]]):
        np.save(tmp_path / f"ids{k}.npy", ids)
        for timing in ([], ["--timing-only"]):
            r = npusim("run", model, "--config", root / CONFIG, "--precision", "fp16", "-q", *timing,
                       "--input", f"ids={tmp_path / f'ids{k}.npy'}", "--json", tmp_path / "r.json")
            assert r.code == 0, r.err
            cycles.append(json.loads((tmp_path / "r.json").read_text())["cycles"])
    assert len(set(cycles)) == 1 and cycles[0] > 0, cycles


def test_an_id_outside_the_table_is_one_line_naming_the_layer(npusim, root, tmp_path):
    model = tmp_path / "emb.onnx"
    embedding_model(model, vocab=300, dim=64, tokens=3)
    np.save(tmp_path / "ids.npy", np.array([[1, 300, 2]], dtype=np.int64))
    r = npusim("run", model, "--config", root / CONFIG, "--precision", "fp16", "-q", "--input", f"ids={tmp_path / 'ids.npy'}")
    assert_one_line_error(r, "layer 'embed' (Gather)", "index 300 of run 1 is outside [-300, 300)")
    np.save(tmp_path / "ids.npy", np.array([[1, 2**33, 2]], dtype=np.int64))
    r = npusim("run", model, "--config", root / CONFIG, "--precision", "fp16", "-q", "--input", f"ids={tmp_path / 'ids.npy'}")
    assert_one_line_error(r, "input ids", "element 1 = 8589934592 does not fit the NPU's int32")
