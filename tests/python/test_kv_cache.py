"""A decoder's KV-cache update, Concat(past, new) -> present with past a model input: the host
writes past straight into present's bytes (a strided view, layout strided[...]), so the Concat
moves only the new row, and present is still exactly the concatenation."""
import os
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from conftest import run_npusim  # noqa: E402

HEADS, PAST, DH = 2, 5, 16


def cache_model(path, past_also_read=False):
    nodes = [helper.make_node("Mul", ["new", "half"], ["k"], name="k"),
             helper.make_node("Concat", ["past", "k"], ["present"], name="present", axis=2)]
    outputs = [helper.make_tensor_value_info("present", TensorProto.FLOAT, [1, HEADS, PAST + 1, DH])]
    if past_also_read:   # past read by another node too: it must stay a dense tensor of its own
        nodes.append(helper.make_node("Relu", ["past"], ["past_relu"], name="past_relu"))
        outputs.append(helper.make_tensor_value_info("past_relu", TensorProto.FLOAT, [1, HEADS, PAST, DH]))
    graph = helper.make_graph(
        nodes, "kv", [helper.make_tensor_value_info("past", TensorProto.FLOAT, [1, HEADS, PAST, DH]),
                      helper.make_tensor_value_info("new", TensorProto.FLOAT, [1, HEADS, 1, DH])],
        outputs, [numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {"past": rng.standard_normal((1, HEADS, PAST, DH)).astype(np.float32),
            "new": rng.standard_normal((1, HEADS, 1, DH)).astype(np.float32)}


def tensor_lines(tmp_path, model):
    prog = tmp_path / "p.npuprog"
    r = run_npusim("compile", model, "-c", ROOT / "configs/default.yaml", "--precision", "fp16", "-o", prog)
    assert r.code == 0, r.err
    d = run_npusim("disasm", prog)
    assert d.code == 0, d.err
    return {line.split("name=")[1].split()[0]: line for line in d.out.splitlines() if line.startswith(".tensor")}


def test_cache_concat_writes_only_the_new_row(tmp_path):
    model = cache_model(tmp_path / "kv.onnx")
    x = inputs()
    outputs, report = npusim.compile(model, ROOT / "configs/default.yaml", precision="fp16").run(x)
    # fp16 values, and x * 0.5 is exact in fp16: present is the concatenation bit for bit
    expected = np.concatenate([x["past"].astype(np.float16), (x["new"].astype(np.float16) * np.float16(0.5))], axis=2)
    np.testing.assert_array_equal(outputs["present"].astype(np.float16), expected)
    # the Concat moves the new row only: 2 heads x 16 fp16 values read and written
    concat = next(layer for layer in report["layers"] if layer["name"] == "present")
    assert concat["ddr_bytes"] == 2 * HEADS * DH * 2, concat
    # past sits inside present, one row of present per row of past: strides (6*16, 16, 1) elements
    lines = tensor_lines(tmp_path, model)
    assert f'layout="strided[{HEADS * (PAST + 1) * DH},{(PAST + 1) * DH},{DH},1]"' in lines["past"], lines["past"]
    assert "layout=ND " in lines["present"] + " ", lines["present"]


def test_a_past_read_elsewhere_keeps_its_own_bytes(tmp_path):
    model = cache_model(tmp_path / "kv2.onnx", past_also_read=True)
    x = inputs(1)
    outputs, report = npusim.compile(model, ROOT / "configs/default.yaml", precision="fp16").run(x)
    expected = np.concatenate([x["past"].astype(np.float16), (x["new"].astype(np.float16) * np.float16(0.5))], axis=2)
    np.testing.assert_array_equal(outputs["present"].astype(np.float16), expected)
    np.testing.assert_array_equal(outputs["past_relu"].astype(np.float16), np.maximum(x["past"], 0).astype(np.float16))
    concat = next(layer for layer in report["layers"] if layer["name"] == "present")
    assert concat["ddr_bytes"] == 2 * HEADS * (PAST + 1) * DH * 2, concat   # past copied as well
    assert "strided" not in tensor_lines(tmp_path, model)["past"]


def test_sim_writes_a_file_input_into_its_view(tmp_path):
    """`npusim sim PROG --input past=FILE`: the file holds past densely (as `npusim run` takes
    it); the simulator places each row inside present, and present is the concatenation."""
    model = cache_model(tmp_path / "kv3.onnx")
    lines = tensor_lines(tmp_path, model)
    assert "strided[" in lines["past"] and "layout=ND " in lines["new"] + " ", lines
    x = inputs(2)
    past, new = x["past"].astype(np.float16), x["new"].astype(np.float16)
    np.save(tmp_path / "past.npy", past)
    np.save(tmp_path / "new.npy", new)
    r = run_npusim("sim", tmp_path / "p.npuprog", "-c", ROOT / "configs/default.yaml", "--input",
                   f"past={tmp_path / 'past.npy'}", "--input", f"new={tmp_path / 'new.npy'}", "--save-outputs",
                   tmp_path / "out")
    assert r.code == 0, r.err
    present = np.load(tmp_path / "out" / "present.npy").reshape(1, HEADS, PAST + 1, DH)
    np.testing.assert_array_equal(present, np.concatenate([past, new * np.float16(0.5)], axis=2))
    # a file of the wrong size is refused in one line that names the input
    np.save(tmp_path / "short.npy", past[:, :, :-1])
    r = run_npusim("sim", tmp_path / "p.npuprog", "-c", ROOT / "configs/default.yaml", "--input",
                   f"past={tmp_path / 'short.npy'}")
    assert r.code != 0 and "input 'past' needs" in r.err and len(r.err.strip().splitlines()) == 1, r.err
