"""NHWC model inputs and outputs cross the NPU boundary as they are (issue 14).

A model that starts with Transpose(0,3,1,2) from an NHWC input (TensorFlow/keras exports) and
ends with Transpose(0,2,3,1) must compile to a program whose boundary tensors record host
layout NHWC: the runtime copies (and quantises) the bytes, nothing is transposed on the host and
no relayout runs on the NPU. Its outputs must equal ONNX Runtime's as every model's do, and be
bit-identical to the NCHW twin of the same conv (same weights, same calibration data), which
the NPU runs on the same NHWC bytes.
"""
import json
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import ROOT

sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim as npusim_package  # noqa: E402  (the `npusim` fixture runs the CLI)

CONFIG = ROOT / "configs" / "default.yaml"
THRESHOLD = {"fp16": 0.999, "int8": 0.99}   # as tests/python/test_models.py
H, W, C_IN, C_OUT = 8, 8, 8, 16


def conv_model(path, layout, cpu_op=None):
    """Conv 3x3 + Relu; layout "nhwc": NHWC input and output through Transposes, "nchw": none.
    cpu_op: an op the NPU lacks (Hardmax) before and after the transposes, so the NHWC values
    cross between CPU and NPU steps instead of at the model's edge."""
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((C_OUT, C_IN, 3, 3)) * 0.1)
                                .astype(np.float32), "w")
    b = numpy_helper.from_array(np.linspace(-0.2, 0.2, C_OUT).astype(np.float32), "b")
    nodes, x, y = [], "x", "y"
    if cpu_op:
        nodes.append(helper.make_node(cpu_op, ["x"], ["x_cpu"], name="cpu_in", axis=-1))
        x = "x_cpu"
    if layout == "nhwc":
        nodes.append(helper.make_node("Transpose", [x], ["x_nchw"], name="to_nchw", perm=[0, 3, 1, 2]))
        x = "x_nchw"
    nodes += [helper.make_node("Conv", [x, "w", "b"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["c"], ["r"], name="relu")]
    r = "r"
    if layout == "nhwc":
        nodes.append(helper.make_node("Transpose", ["r"], ["r_nhwc"], name="to_nhwc", perm=[0, 2, 3, 1]))
        r = "r_nhwc"
    if cpu_op:
        nodes.append(helper.make_node(cpu_op, [r], [y], name="cpu_out", axis=-1))
    else:
        nodes[-1].output[0] = y
    shape_in = [1, H, W, C_IN] if layout == "nhwc" else [1, C_IN, H, W]
    shape_out = [1, H, W, C_OUT] if layout == "nhwc" else [1, C_OUT, H, W]
    graph = helper.make_graph(nodes, f"conv_{layout}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_in)],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, shape_out)], [w, b])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def samples(count):
    """NCHW images: calibration samples, then the input."""
    rng = np.random.default_rng(7)
    return [rng.standard_normal((1, C_IN, H, W)).astype(np.float32) for _ in range(count)]


def run(npusim, tmp_path, model, precision, images, to_layout):
    """npusim run with images[-1] as the input and the rest as calibration; (output, report, explain)."""
    tag = model.stem + "_" + precision
    as_given = (lambda a: np.ascontiguousarray(a.transpose(0, 2, 3, 1))) if to_layout == "nhwc" else (lambda a: a)
    calib = tmp_path / f"calib_{tag}"
    calib.mkdir()
    for i, a in enumerate(images[:-1]):
        np.save(calib / f"x_{i}.npy", as_given(a))
    np.save(tmp_path / f"x_{tag}.npy", as_given(images[-1]))
    prog = tmp_path / f"{tag}.npuprog"
    c = npusim("compile", model, "--config", CONFIG, "--precision", precision, "--calib", calib, "-o", prog,
               "--explain")
    assert c.code == 0, c.err
    explain = next(line for line in c.out.splitlines() if line.startswith("layout "))
    r = npusim("run", prog, "--config", CONFIG, "--input", f"x={tmp_path / f'x_{tag}.npy'}", "--json",
               tmp_path / f"{tag}.json", "--save-outputs", tmp_path / f"out_{tag}", "--quiet")
    assert r.code == 0, r.err
    return (np.load(tmp_path / f"out_{tag}" / "y.npy"), json.loads((tmp_path / f"{tag}.json").read_text()), explain,
            as_given(images[-1]))


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def onnxruntime_output(model, x):
    import onnxruntime as ort
    return ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]


@pytest.mark.parametrize("precision", ["fp16", "int8"])
def test_nhwc_model_crosses_the_boundary_as_it_is(npusim, tmp_path, precision):
    images = samples(4)
    nhwc_model = conv_model(tmp_path / "conv_nhwc.onnx", "nhwc")
    nchw_model = conv_model(tmp_path / "conv_nchw.onnx", "nchw")
    y_nhwc, rep_nhwc, explain_nhwc, x_nhwc = run(npusim, tmp_path, nhwc_model, precision, images, "nhwc")
    y_nchw, rep_nchw, explain_nchw, _ = run(npusim, tmp_path, nchw_model, precision, images, "nchw")

    # The compiler folded both transposes: no relayout on the NPU, no NCHW<->NHWC at the boundary.
    assert "0 relayout copies, 0 NCHW<->NHWC conversions" in explain_nhwc, explain_nhwc
    assert "2 NHWC value(s) passed as the host holds them" in explain_nhwc, explain_nhwc
    assert "0 relayout copies, 2 NCHW<->NHWC conversions" in explain_nchw, explain_nchw   # the twin transposes
    conversions = {c["role"]: c for c in rep_nhwc["conversions"]}
    device_type = {"fp16": "float16", "int8": "int8"}[precision]
    assert conversions["input"]["from"] == "float32 NHWC" and conversions["input"]["to"] == f"{device_type} NHWC"
    assert conversions["output"]["from"] == f"{device_type} NHWC" and conversions["output"]["to"] == "float32 NHWC"
    moved = [l["name"] for l in rep_nhwc["layers"] if "Relayout" in l["op"] or (l["op"] == "Transpose" and l["cycles"])]
    assert moved == [], moved                                  # the transposes are views: no instruction, no cycle
    assert rep_nhwc["fallbacks"] == [] and rep_nhwc["transitions"] == 0

    # The user's shapes are the model's: NHWC in, NHWC out, equal to ONNX Runtime ...
    assert y_nhwc.shape == (1, H, W, C_OUT)
    assert cosine(y_nhwc, onnxruntime_output(nhwc_model, x_nhwc)) >= THRESHOLD[precision]
    # ... and bit for bit the NCHW twin's output: the NPU computed on the same bytes.
    np.testing.assert_array_equal(y_nhwc, y_nchw.transpose(0, 2, 3, 1))
    # Same instructions on the conv, no relayout: not slower (simulated cycles, not wall time).
    assert rep_nhwc["cycles"] <= rep_nchw["cycles"], (rep_nhwc["cycles"], rep_nchw["cycles"])


@pytest.mark.parametrize("precision", ["fp16", "int8"])
def test_nhwc_values_cross_between_cpu_and_npu_steps_as_they_are(npusim, tmp_path, precision):
    """Hardmax (CPU) -> Transpose(0,3,1,2) -> Conv -> Relu -> Transpose(0,2,3,1) -> Hardmax (CPU): the
    NHWC values handed to and from the CPU steps are copied, and the result is ONNX Runtime's."""
    model = conv_model(tmp_path / "conv_nhwc_cpu.onnx", "nhwc", cpu_op="Hardmax")
    # Hardmax's one-hot output is a fine conv input; inputs scaled so ties (first index wins) are rare.
    y, rep, explain, x = run(npusim, tmp_path, model, precision, [3 * a for a in samples(4)], "nhwc")
    assert [f["node"] for f in rep["fallbacks"]] == ["cpu_in", "cpu_out"]
    assert "0 relayout copies, 0 NCHW<->NHWC conversions" in explain, explain
    crossings = {c["role"]: c for c in rep["conversions"]}
    assert crossings["to npu"]["from"].endswith(" NHWC") and crossings["to npu"]["to"].endswith(" NHWC"), crossings
    assert crossings["to cpu"]["from"].endswith(" NHWC") and crossings["to cpu"]["to"].endswith(" NHWC"), crossings
    reference = onnxruntime_output(model, x)
    # One-hot outputs: the argmax of each pixel's channels must agree (a near-tie may flip one).
    agree = np.mean(np.argmax(y, axis=-1) == np.argmax(reference, axis=-1))
    assert agree >= 0.95, agree


def two_reader_model(path, second_reader):
    """x (NHWC) -> Transpose(0,3,1,2) -> 1x1 Conv -> Transpose(0,2,3,1), added to `second_reader`(x)."""
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((C_IN, C_IN, 1, 1)) * 0.1)
                                .astype(np.float32), "w")
    nodes = [helper.make_node("Transpose", ["x"], ["x_nchw"], name="to_nchw", perm=[0, 3, 1, 2]),
             helper.make_node("Conv", ["x_nchw", "w"], ["c"], name="conv", kernel_shape=[1, 1]),
             helper.make_node("Transpose", ["c"], ["c_nhwc"], name="to_nhwc", perm=[0, 2, 3, 1])]
    if second_reader == "MaxPool":   # reads x as an NCHW image (channels = H): not an NHWC image then
        nodes.append(helper.make_node("MaxPool", ["x"], ["x2"], name="pool", kernel_shape=[1, 1]))
    else:
        nodes.append(helper.make_node("Identity", ["x"], ["x2"], name="same"))
    nodes.append(helper.make_node("Add", ["c_nhwc", "x2"], ["y"], name="residual"))
    graph = helper.make_graph(nodes, "two_readers",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, H, W, C_IN])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, H, W, C_IN])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_nhwc_input_with_a_residual_reader_moves_no_byte(npusim, tmp_path):
    """An NHWC image also read element-wise (a residual Add of the transposed-back conv output) stays
    row-major: the Add works on channels-last bytes on both sides, nothing is converted or relaid."""
    model = two_reader_model(tmp_path / "residual.onnx", "Identity")
    y, rep, explain, x = run(npusim, tmp_path, model, "fp16", samples(2), "nhwc")
    assert "0 relayout copies, 0 NCHW<->NHWC conversions" in explain, explain
    texts = [c["text"] for c in rep["conversions"]]
    assert texts[0].startswith("input x: converted float32 NHWC → float16 NHWC"), texts
    assert texts[1].startswith("output y: converted float16 ND → float32 ND"), texts   # row-major [1,H,W,C]
    assert y.shape == (1, H, W, C_IN)
    assert cosine(y, onnxruntime_output(model, x)) >= THRESHOLD["fp16"]


@pytest.mark.parametrize("precision", ["fp16", "int8"])
def test_nhwc_input_normalised_before_the_transpose_moves_no_byte(npusim, tmp_path, precision):
    """(x - mean) * inv_std per channel on the NHWC image, then Transpose(0,3,1,2) -> Conv -> Relu (a
    keras Normalization layer's export): the element-wise ops work channels-last, the input is not
    transposed on the host and nothing is relaid on the NPU."""
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((C_OUT, C_IN, 3, 3)) * 0.1)
                                .astype(np.float32), "w")
    mean = numpy_helper.from_array(np.linspace(0.1, 0.8, C_IN).astype(np.float32), "mean")
    inv_std = numpy_helper.from_array(np.linspace(1.5, 0.5, C_IN).astype(np.float32), "inv_std")
    nodes = [helper.make_node("Sub", ["x", "mean"], ["centred"], name="sub"),
             helper.make_node("Mul", ["centred", "inv_std"], ["normalised"], name="mul"),
             helper.make_node("Transpose", ["normalised"], ["x_nchw"], name="to_nchw", perm=[0, 3, 1, 2]),
             helper.make_node("Conv", ["x_nchw", "w"], ["c"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "normalised",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, H, W, C_IN])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, C_OUT, H, W])],
                              [w, mean, inv_std])
    model = tmp_path / "normalised.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(model))
    y, rep, explain, x = run(npusim, tmp_path, model, precision, samples(4), "nhwc")
    assert "0 relayout copies, 1 NCHW<->NHWC conversions" in explain, explain     # only the NCHW output
    conv = next(c for c in rep["conversions"] if c["role"] == "input")
    assert conv["from"] == "float32 NHWC" and conv["to"].endswith(" NHWC"), conv
    assert cosine(y, onnxruntime_output(model, x)) >= THRESHOLD[precision]


def test_input_a_conv_or_pool_reads_as_nchw_keeps_the_conversion(npusim, tmp_path):
    """An input that a pooling reads directly is an NCHW image to it: the runtime converts it at the
    boundary as before (NCHW -> NHWC), the Transpose's output is relaid on the NPU, and the result
    is still ONNX Runtime's."""
    model = two_reader_model(tmp_path / "pooled.onnx", "MaxPool")
    y, rep, explain, x = run(npusim, tmp_path, model, "fp16", samples(2), "nhwc")
    assert "1 NCHW<->NHWC conversions" in explain and "passed as the host holds them" not in explain, explain
    conv = next(c for c in rep["conversions"] if c["role"] == "input")
    assert conv["from"] == "float32 NCHW" and conv["to"] == "float16 NHWC", conv
    assert cosine(y, onnxruntime_output(model, x)) >= THRESHOLD["fp16"]


def test_python_package_takes_and_gives_nhwc_arrays(npusim, tmp_path):
    """The Python package goes through the same boundary: the session describes the NHWC input as
    the model declares it, takes an NHWC array and gives the CLI's output bit for bit."""
    model = conv_model(tmp_path / "conv_nhwc_py.onnx", "nhwc")
    session = npusim_package.compile(model, CONFIG, precision="fp16")
    assert [(d["name"], list(d["shape"]), d["layout"]) for d in session.inputs] == [("x", [1, H, W, C_IN], "NHWC")]
    assert [(d["name"], list(d["shape"]), d["layout"]) for d in session.outputs] == [("y", [1, H, W, C_OUT], "NHWC")]
    x = np.ascontiguousarray(samples(1)[0].transpose(0, 2, 3, 1))
    outputs, _ = session.run({"x": x})
    np.save(tmp_path / "x.npy", x)
    r = npusim("run", model, "--config", CONFIG, "--precision", "fp16", "--input", f"x={tmp_path / 'x.npy'}",
               "--save-outputs", tmp_path / "out", "--quiet")
    assert r.code == 0, r.err
    np.testing.assert_array_equal(outputs["y"], np.load(tmp_path / "out" / "y.npy"))
    assert cosine(outputs["y"], onnxruntime_output(model, x)) >= THRESHOLD["fp16"]
