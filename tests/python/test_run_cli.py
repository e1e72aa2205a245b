"""`npusim compile` / `npusim run` on bad input: one clear line on stderr and a non-zero exit.
Also the good path: outputs saved as <output-name>.npy, the JSON report's per-layer list."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import assert_one_line_error

RNG = np.random.default_rng(0)


def save_model(path, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def conv_relu_model(path, batch=1):
    """Conv(3->8, 3x3) + Relu on a 1x3x16x16 input (batch may be a symbolic name)."""
    w = numpy_helper.from_array((RNG.standard_normal((8, 3, 3, 3)) * 0.2).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    return save_model(path, nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 16, 16])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])


def two_input_model(path):
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"), helper.make_node("Relu", ["s"], ["y"], name="relu")]
    ins = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 4, 8, 8]) for n in ("a", "b")]
    return save_model(path, nodes, ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])


@pytest.fixture
def cfg(root):
    return root / "configs" / "default.yaml"


def test_truncated_onnx(npusim, tmp_path, cfg):
    good = conv_relu_model(tmp_path / "good.onnx")
    bad = tmp_path / "cut.onnx"
    bad.write_bytes(good.read_bytes()[:200])
    assert_one_line_error(npusim("run", bad, "--config", cfg), "cut.onnx")
    assert_one_line_error(npusim("compile", bad, "--config", cfg, "-o", tmp_path / "x.npuprog"), "cut.onnx")


def test_not_an_onnx_file(npusim, tmp_path, cfg):
    bad = tmp_path / "notes.onnx"
    bad.write_text("these are my notes, not a model\n")
    assert_one_line_error(npusim("run", bad, "--config", cfg), "notes.onnx")


def test_strict_rejects_an_op_the_npu_lacks(npusim, tmp_path, cfg):
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Hardmax", ["r"], ["y"], name="my_hardmax")]
    model = save_model(tmp_path / "erf.onnx", nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    assert_one_line_error(npusim("run", model, "--config", cfg, "--strict"), "my_hardmax")
    assert_one_line_error(npusim("compile", model, "--config", cfg, "--strict", "-o", tmp_path / "x.npuprog"),
                          "my_hardmax")
    # Without --strict the same model runs, with Hardmax on the CPU and the fallback reported.
    r = npusim("run", model, "--config", cfg, "--json", tmp_path / "r.json")
    assert r.code == 0, r.err
    report = json.loads((tmp_path / "r.json").read_text())
    assert [f["node"] for f in report["fallbacks"]] == ["my_hardmax"]
    assert any(l["device"] == "cpu" and l["name"] == "my_hardmax" for l in report["layers"])
    assert report["transitions"] == 1


def test_dynamic_dimension_is_named_until_fixed(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "dyn.onnx", batch="N")
    assert_one_line_error(npusim("run", model, "--config", cfg), "x", "N")
    r = npusim("run", model, "--config", cfg, "--input-shape", "x=1x3x16x16")
    assert r.code == 0, r.err


def test_smallest_tile_does_not_fit_sram(npusim, tmp_path, root):
    # A grouped conv (512 input channels per group, 7x7): its smallest tile — one output row of one
    # output channel with the whole reduction — exceeds tiny-8x8's 64 KiB, and the tiler splits
    # the reduction of ungrouped convs only.
    w = numpy_helper.from_array((RNG.standard_normal((64, 512, 7, 7)) * 0.01).astype(np.float32), "w")
    model = save_model(tmp_path / "big.onnx", [helper.make_node("Conv", ["x", "w"], ["y"], name="bigconv",
                                                                pads=[3, 3, 3, 3], group=2)],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1024, 8, 8])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    r = npusim("run", model, "--config", root / "configs" / "tiny-8x8.yaml")
    assert_one_line_error(r, "bigconv", "SRAM")


def test_missing_input(npusim, tmp_path, cfg):
    model = two_input_model(tmp_path / "two.onnx")
    a = tmp_path / "a.npy"
    np.save(a, np.ones((1, 4, 8, 8), np.float32))
    assert_one_line_error(npusim("run", model, "--config", cfg, "--input", f"a={a}"),
                          "missing input 'b'", "float32[1x4x8x8]")


def test_unknown_input_name(npusim, tmp_path, cfg):
    model = two_input_model(tmp_path / "two.onnx")
    a = tmp_path / "a.npy"
    np.save(a, np.ones((1, 4, 8, 8), np.float32))
    assert_one_line_error(npusim("run", model, "--config", cfg, "--input", f"c={a}"), "'c'", "a, b")


def test_wrong_input_shape(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    x = tmp_path / "x.npy"
    np.save(x, np.ones((1, 3, 32, 32), np.float32))
    assert_one_line_error(npusim("run", model, "--config", cfg, "--input", f"x={x}"),
                          "input 'x'", "x.npy", "float32[1x3x16x16]", "1x3x32x32")


def test_wrong_input_dtype(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    x = tmp_path / "x.npy"
    np.save(x, np.ones((1, 3, 16, 16), np.float64))
    assert_one_line_error(npusim("run", model, "--config", cfg, "--input", f"x={x}"),
                          "input 'x'", "float32[1x3x16x16]", "float64")


def test_missing_input_file(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    assert_one_line_error(npusim("run", model, "--config", cfg, "--input", "x=/nonexistent/x.npy"),
                          "/nonexistent/x.npy")


def test_bad_precision(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    assert_one_line_error(npusim("run", model, "--config", cfg, "--precision", "int4"), "int4")


def test_compile_then_run_saves_outputs_and_layers(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    prog = tmp_path / "m.npuprog"
    r = npusim("compile", model, "--config", cfg, "-o", prog, "--precision", "fp16", "--explain")
    assert r.code == 0, r.err
    assert prog.exists()
    x = (RNG.standard_normal((1, 3, 16, 16))).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    r = npusim("run", prog, "--config", cfg, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", out,
               "--json", tmp_path / "r.json", "--trace", tmp_path / "t.json")
    assert r.code == 0, r.err
    assert "converted float32 NCHW" in r.out
    y = np.load(out / "y.npy")
    assert y.shape == (1, 8, 16, 16) and y.dtype == np.float32
    import onnxruntime as ort
    ref = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    cos = float(np.dot(y.ravel(), ref.ravel()) / (np.linalg.norm(y) * np.linalg.norm(ref)))
    assert cos >= 0.999
    report = json.loads((tmp_path / "r.json").read_text())
    for key in ("cycles", "latency_us", "clock_mhz", "macs", "peak_tops", "achieved_tops", "mac_utilization"):
        assert key in report
    assert report["ddr"]["bytes_read"] > 0
    npu_layers = [l for l in report["layers"] if l["device"] == "npu"]
    assert npu_layers, report["layers"]
    for layer in npu_layers:
        assert set(layer) >= {"name", "op", "device", "macs", "cycles", "compute_cycles", "ddr_bytes"}
    conv = next(l for l in npu_layers if l["macs"] > 0)
    assert conv["macs"] == 8 * 3 * 3 * 3 * 16 * 16
    assert 0 < conv["compute_cycles"] <= conv["cycles"] <= report["cycles"]
    assert json.loads((tmp_path / "t.json").read_text())


def test_timing_only_matches_functional_cycles(npusim, tmp_path, cfg):
    model = conv_relu_model(tmp_path / "m.onnx")
    assert npusim("run", model, "--config", cfg, "--json", tmp_path / "f.json").code == 0
    assert npusim("run", model, "--config", cfg, "--timing-only", "--json", tmp_path / "t.json").code == 0
    f = json.loads((tmp_path / "f.json").read_text())
    t = json.loads((tmp_path / "t.json").read_text())
    assert f["cycles"] == t["cycles"]
    assert [l["cycles"] for l in f["layers"]] == [l["cycles"] for l in t["layers"]]
