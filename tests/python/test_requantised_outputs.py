"""Fully-integer QDQ models whose int8 graph output (or input) holds other parameters than the
value the NPU computes: the requantising QuantizeLinear (DequantizeLinear) runs on the NPU as an
int8 -> int8 table (compiler/backend/integer_boundary.cpp), not as a CPU step. Outputs are int8,
ONNX Runtime's within one step (the table computes round((x - z1) * s1 / s2) + z2 as it does)."""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from conftest import ROOT, calibration_reader, litert_reference, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


def scalar(name, value, dtype):
    return numpy_helper.from_array(np.array(value, dtype), name)


def conv_model(path, inner, outer, extra_outputs=(), between=None, input_pair=None, seed=0, io=np.int8):
    """int8 x -> DQ(0.02, 3) -> Conv(int8 weights, int32 bias) -> Relu -> Q(inner) -> DQ(inner)
    [-> `between` op] -> Q(outer) -> int8 y. extra_outputs: more outputs of the value before the
    final Q: ("float", name) as it is, ("q", name, scale, zp) through another QuantizeLinear.
    input_pair: (scale, zp) of a QDQ pair on the dequantised input (its NPU readers' grid).
    io: the activations' integer type (np.uint8: ONNX Runtime's QUInt8, zero points 0..255)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(-127, 128, (8, 4, 3, 3)).astype(np.int8)
    w[:, 0, 0, 0] = 127  # symmetric weights on the max / 127 grid, as quantisers write them
    b = rng.integers(-500, 500, (8,)).astype(np.int32)
    inits = [numpy_helper.from_array(w, "w"), scalar("ws", 0.01, np.float32), scalar("wz", 0, np.int8),
             numpy_helper.from_array(b, "b"), scalar("bs", 0.02 * 0.01, np.float32), scalar("bz", 0, np.int32),
             scalar("xs", 0.02, np.float32), scalar("xz", 3 if io == np.int8 else 131, io),
             scalar("ys", inner[0], np.float32), scalar("yz", inner[1], io),
             scalar("os", outer[0], np.float32), scalar("oz", outer[1], io)]
    nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
             helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wf"]),
             helper.make_node("DequantizeLinear", ["b", "bs", "bz"], ["bf"])]
    conv_in = "xf"
    if input_pair:
        inits += [scalar("ps", input_pair[0], np.float32), scalar("pz", input_pair[1], io)]
        nodes += [helper.make_node("QuantizeLinear", ["xf", "ps", "pz"], ["xq"]),
                  helper.make_node("DequantizeLinear", ["xq", "ps", "pz"], ["xp"])]
        conv_in = "xp"
    nodes += [helper.make_node("Conv", [conv_in, "wf", "bf"], ["c"], pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["c"], ["r"]),
              helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["rq"]),
              helper.make_node("DequantizeLinear", ["rq", "ys", "yz"], ["rf"])]
    last = "rf"
    if between:
        nodes.append(helper.make_node(between[0], ["rf"], ["m"], **between[1]))
        last = "m"
    nodes.append(helper.make_node("QuantizeLinear", [last, "os", "oz"], ["y"]))
    elem = TP.INT8 if io == np.int8 else TP.UINT8
    outputs = [helper.make_tensor_value_info("y", elem, [1, 8, 16, 16])]
    for extra in extra_outputs:
        if extra[0] == "float":
            nodes.append(helper.make_node("Identity", [last], [extra[1]]))
            outputs.append(helper.make_tensor_value_info(extra[1], TP.FLOAT, [1, 8, 16, 16]))
        else:
            _, name, s, z = extra
            inits += [scalar(name + "_s", s, np.float32), scalar(name + "_z", z, io)]
            nodes.append(helper.make_node("QuantizeLinear", [last, name + "_s", name + "_z"], [name]))
            outputs.append(helper.make_tensor_value_info(name, elem, [1, 8, 16, 16]))
    g = helper.make_graph(nodes, "requant", [helper.make_tensor_value_info("x", elem, [1, 4, 16, 16])], outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, str(path))
    return path


def compile_and_run(path, tmp_path, x, *options):
    prog = tmp_path / "m.npuprog"
    r = run_npusim("compile", path, "-c", CONFIG, "--explain", "-o", prog, *options)
    assert r.code == 0, r.err
    np.save(tmp_path / "x.npy", x)
    run = run_npusim("run", prog, "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "out", "-q")
    assert run.code == 0, run.err
    return r.out, lambda name: np.load(tmp_path / "out" / f"{name}.npy")


def onnx_runtime(path, x):
    """ONNX Runtime's reference kernels, node by node: its graph optimiser drops a Q -> DQ -> Q
    round trip whose intermediate is a graph output too, then refuses the model it made."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    s = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, {"x": x})))


def assert_like_onnx_runtime(got, want):
    assert got.dtype == want.dtype and got.dtype in (np.int8, np.uint8) and got.shape == want.shape
    steps = np.abs(got.astype(int) - want.astype(int))
    assert steps.max() <= 1, steps.max()
    assert (steps == 0).mean() >= 0.95, (steps == 0).mean()


def placement(out):
    return next(l for l in out.splitlines() if l.startswith("placement:"))


# (inner, outer) parameters: a finer grid out, a coarser one (ties half to even: s2 = 2 s1), and
# an outer grid wider than the inner one's range (the inner saturation must show).
GRIDS = [((0.1, -5), (0.05, 7)), ((0.05, 0), (0.1, -3)), ((0.02, -128), (0.2, 10))]


@pytest.mark.parametrize("inner,outer", GRIDS)
def test_requantising_output_runs_on_the_npu_like_onnx_runtime(tmp_path, inner, outer):
    path = conv_model(tmp_path / "rq.onnx", inner, outer)
    x = np.random.default_rng(1).integers(-128, 128, (1, 4, 16, 16)).astype(np.int8)
    out, got = compile_and_run(path, tmp_path, x, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    assert "1 requantised on the NPU" in out, out
    assert not any(l.startswith("fallback") for l in out.splitlines()), out
    assert_like_onnx_runtime(got("y"), onnx_runtime(path, x)["y"])


def test_requantised_output_is_integer_io(tmp_path):
    """The host's output descriptor is int8 (the NPU's bytes as they are, no CPU conversion)."""
    sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
    import npusim
    path = conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.05, 7))
    session = npusim.compile(str(path), str(CONFIG), precision="int8")
    assert [(d["name"], d["dtype"]) for d in session.outputs] == [("y", "int8")]
    assert [(d["name"], d["dtype"]) for d in session.inputs] == [("x", "int8")]
    x = np.random.default_rng(2).integers(-128, 128, (1, 4, 16, 16)).astype(np.int8)
    outputs, report = session.run({"x": x})
    assert report["fallbacks"] == []
    assert_like_onnx_runtime(outputs["y"], onnx_runtime(path, x)["y"])


def test_value_read_elsewhere_keeps_its_grid(tmp_path):
    """The requantised value is also a float output and quantised for a second output on its own
    grid: each output is ONNX Runtime's, all on the NPU."""
    path = conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.05, 7),
                      extra_outputs=[("float", "r_float"), ("q", "y_same", 0.1, -5), ("q", "y_wide", 0.3, 2)])
    x = np.random.default_rng(3).integers(-128, 128, (1, 4, 16, 16)).astype(np.int8)
    out, got = compile_and_run(path, tmp_path, x, "--strict")
    assert "0 CPU island(s)" in placement(out), placement(out)
    want = onnx_runtime(path, x)
    for name in ("y", "y_same", "y_wide"):
        assert_like_onnx_runtime(got(name), want[name])
    # the float output: the inner grid's values, exactly
    np.testing.assert_allclose(got("r_float"), want["r_float"], atol=1e-6)


def test_output_of_a_cpu_layer_stays_a_cpu_conversion(tmp_path):
    """A QuantizeLinear whose input a CPU node computes (LpNormalization has no NPU instruction)
    stays on the CPU with it: the NPU would add a transition, not save one. ONNX Runtime's result."""
    path = conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.005, 0), between=("LpNormalization", {"axis": 1, "p": 2}))
    x = np.random.default_rng(4).integers(-128, 128, (1, 4, 16, 16)).astype(np.int8)
    out, got = compile_and_run(path, tmp_path, x)
    fallbacks = [l for l in out.splitlines() if l.startswith("fallback")]
    assert any("(QuantizeLinear)" in l for l in fallbacks) and any("(LpNormalization)" in l for l in fallbacks), fallbacks
    assert "requantised on the NPU" not in out
    np.testing.assert_array_equal(got("y"), onnx_runtime(path, x)["y"])


def test_requantising_input_runs_on_the_npu_like_onnx_runtime(tmp_path):
    """int8 x -> DQ(0.02, 3) -> Q(0.05, -2) -> DQ: the conv reads x on the pair's grid; the input's
    DequantizeLinear requantises on the NPU and the host passes int8 bytes."""
    path = conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.1, -5), input_pair=(0.05, -2))
    x = np.random.default_rng(5).integers(-128, 128, (1, 4, 16, 16)).astype(np.int8)
    out, got = compile_and_run(path, tmp_path, x, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    assert "1 int8 graph input/output conversions taken by the NPU as they are, 1 requantised on the NPU" in out, out
    assert_like_onnx_runtime(got("y"), onnx_runtime(path, x)["y"])


# uint8 grids (ONNX Runtime's QUInt8, zero points 0..255): the same pairs, one equal in and out.
U8_GRIDS = [((0.1, 123), (0.05, 135)), ((0.05, 128), (0.1, 125)), ((0.02, 0), (0.2, 138)), ((0.1, 123), (0.1, 123))]


@pytest.mark.parametrize("inner,outer", U8_GRIDS)
def test_uint8_input_and_output_run_on_the_npu_like_onnx_runtime(tmp_path, inner, outer):
    """uint8 x -> DQ -> Conv -> Relu -> QDQ -> Q -> uint8 y: both conversions run on the NPU as int8
    tables (a uint8 byte u held as u - 128), the host passes uint8 both ways; ONNX Runtime's y."""
    path = conv_model(tmp_path / "u8.onnx", inner, outer, io=np.uint8)
    r = run_npusim("compile", path, "-c", CONFIG, "--explain", "--strict", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(r.out), placement(r.out)
    assert "2 requantised on the NPU (2 of them uint8" in r.out, r.out
    x = np.random.default_rng(6).integers(0, 256, (1, 4, 16, 16)).astype(np.uint8)
    np.save(tmp_path / "x.npy", x)
    run = run_npusim("run", path, "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "out", "-q")
    assert run.code == 0, run.err
    want = onnx_runtime(path, x)["y"]
    got = np.load(tmp_path / "out" / "y.npy")
    assert_like_onnx_runtime(got, want)
    # The program alone (no ONNX declaration) describes the uint8 sides as int8 on the grid
    # (scale 1, zero point -128): the same bytes, u - 128.
    run = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "-q")
    assert run.code == 1 and "expected int8[1x4x16x16]" in run.err, run.err
    np.save(tmp_path / "x8.npy", (x.astype(np.int16) - 128).astype(np.int8))
    run = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x8.npy'}", "--save-outputs",
                     tmp_path / "out8", "-q")
    assert run.code == 0, run.err
    np.testing.assert_array_equal(np.load(tmp_path / "out8" / "y.npy").astype(np.int16) + 128, got.astype(np.int16))


def test_uint8_quantize_static_model_runs_on_the_npu(tmp_path):
    """ONNX Runtime's quantize_static with QuantType.QUInt8 activations (its default), its float
    input quantised by a uint8 QuantizeLinear and its graph output a uint8 QuantizeLinear's:
    every node on the NPU, the output within one step of ONNX Runtime's."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    rng = np.random.default_rng(8)
    w = numpy_helper.from_array((0.3 * rng.standard_normal((8, 4, 3, 3))).astype(np.float32), "w")
    b = numpy_helper.from_array((0.1 * rng.standard_normal(8)).astype(np.float32), "b")
    g = helper.make_graph([helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
                           helper.make_node("Relu", ["c"], ["y"])], "f",
                          [helper.make_tensor_value_info("x", TP.FLOAT, [1, 4, 16, 16])],
                          [helper.make_tensor_value_info("y", TP.FLOAT, [1, 8, 16, 16])], [w, b])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, str(tmp_path / "fp32.onnx"))

    samples = [{"x": rng.standard_normal((1, 4, 16, 16)).astype(np.float32)} for _ in range(4)]
    quantize_static(str(tmp_path / "fp32.onnx"), str(tmp_path / "q.onnx"), calibration_reader(samples), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    # The uint8 boundary as a deployment wants it: uint8 in (the input's DequantizeLinear reads
    # it), uint8 out (the last QuantizeLinear writes it).
    q = onnx.load(str(tmp_path / "q.onnx"))
    nodes = list(q.graph.node)
    qx = next(n for n in nodes if n.op_type == "QuantizeLinear" and n.input[0] == "x")
    dy = next(n for n in nodes if n.op_type == "DequantizeLinear" and n.output[0] == "y")
    qy = next(n for n in nodes if n.op_type == "QuantizeLinear" and n.output[0] == dy.input[0])
    for n in nodes:
        for i, v in enumerate(n.input):
            if v == qx.output[0]:
                n.input[i] = "x"
    q.graph.node.remove(qx)
    q.graph.node.remove(dy)
    qy.output[0] = "y_u8"
    del q.graph.input[:]
    del q.graph.output[:]
    q.graph.input.append(helper.make_tensor_value_info("x", TP.UINT8, [1, 4, 16, 16]))
    q.graph.output.append(helper.make_tensor_value_info("y_u8", TP.UINT8, [1, 8, 16, 16]))
    onnx.checker.check_model(q)
    path = tmp_path / "u8.onnx"
    onnx.save(q, str(path))
    r = run_npusim("compile", path, "-c", CONFIG, "--explain", "--strict", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(r.out), placement(r.out)
    x = rng.integers(0, 256, (1, 4, 16, 16)).astype(np.uint8)
    np.save(tmp_path / "x.npy", x)
    run = run_npusim("run", path, "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "out", "-q")
    assert run.code == 0, run.err
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert_like_onnx_runtime(np.load(tmp_path / "out" / "y_u8.npy"), s.run(None, {"x": x})[0])


@pytest.mark.parametrize("case", ["requantising-output", "requantising-input", "cpu-layer"])
def test_quant_report_strict_agrees_with_compile_strict(tmp_path, case):
    """quant-report --strict judges the int8 boundary conversions after the same integer-boundary
    pass as compile --strict: both accept the models whose conversions the NPU takes, and both
    refuse, with the same line, one whose conversion stays on the CPU with a CPU layer."""
    path = {"requantising-output": lambda: conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.05, 7)),
            "requantising-input": lambda: conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.1, -5), input_pair=(0.05, -2)),
            "cpu-layer": lambda: conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.005, 0),
                                            between=("LpNormalization", {"axis": 1, "p": 2}))}[case]()
    compiled = run_npusim("compile", path, "-c", CONFIG, "--strict", "-o", tmp_path / "m.npuprog", "-q")
    report = run_npusim("quant-report", path, "-c", CONFIG, "--strict")
    if case == "cpu-layer":
        assert compiled.code == 1 and report.code == 1, (compiled.err, report.err)
        line = compiled.err.strip().splitlines()[-1].split("error: ", 1)[1]
        assert "--strict: node '" in line and "would fall back to the CPU" in line, line
        assert report.err.strip().splitlines()[-1].split("error: ", 1)[1] == line, (report.err, line)
    else:
        assert compiled.code == 0, compiled.err
        assert report.code == 0, report.err
        assert "model outputs, all int8" in report.out, report.out


def test_fp16_compile_keeps_the_conversions_on_the_cpu(tmp_path):
    path = conv_model(tmp_path / "rq.onnx", (0.1, -5), (0.05, 7))
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "requantised" not in r.out and "integer-boundary" not in r.out
    assert any("(QuantizeLinear)" in l for l in r.out.splitlines() if l.startswith("fallback")), r.out


def test_tflite_quantize_ops_onto_other_grids_run_on_the_npu_like_litert(tmp_path):
    """A full-integer TFLite model with QUANTIZE int8 -> int8 after its input and before its
    output (scripts/make_tflite_models.py requant_int8): both requantisations run on the NPU, the
    host passes int8 both ways, the output within one step of LiteRT's reference kernels (whose
    requantisations equal the float formula; XNNPACK's differ from them in 13 % of the input's
    elements, by one step, which the conv then carries further). The conv rounds differently in
    places (one conv step, 1 / 1.5 of an output step)."""
    import subprocess
    pytest.importorskip("ai_edge_litert.interpreter")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_tflite_models.py"), "--out", str(tmp_path),
                    "--only", "requant_int8"], check=True, capture_output=True)
    path = tmp_path / "requant_int8.tflite"
    prog = tmp_path / "m.npuprog"
    r = run_npusim("compile", path, "-c", CONFIG, "--strict", "--explain", "-o", prog)
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(r.out), placement(r.out)
    assert "2 requantised on the NPU" in r.out, r.out
    x = np.random.default_rng(6).integers(-128, 128, (1, 16, 16, 4)).astype(np.int8)
    want = litert_reference(path, x)
    np.save(tmp_path / "x.npy", x)
    run = run_npusim("run", prog, "-c", CONFIG, "--input", f"input={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "out", "-q")
    assert run.code == 0, run.err
    got = np.load(tmp_path / "out" / "output.npy")
    assert got.dtype == np.int8 and got.shape == want.shape
    steps = np.abs(got.astype(int) - want.astype(int))
    assert steps.max() <= 1 and (steps == 0).mean() >= 0.75, (steps.max(), (steps == 0).mean())
