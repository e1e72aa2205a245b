"""If nodes whose condition is known at compile time: the compiler inlines the branch the
condition takes (compiler/frontend/if_folding.cpp), so the graph runs on the NPU instead of
falling back to the CPU, with ONNX Runtime's outputs."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import assert_one_line_error, run_npusim, ROOT

CONFIG = ROOT / "configs" / "default.yaml"


def reference(model, x, **extra):
    # Graph optimisations off: ONNX Runtime 1.24.4's optimiser gets the else branch of if_model
    # wrong (channel 0 all 1.0; the unoptimised session and numpy agree with each other).
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    (y,) = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"]).run(None, {"x": x, **extra})
    return y


def if_model(path, size, cond=None, sample_rate=False):
    """x: 1x8xSIZExSIZE. If H == 16: Conv(w_then) + Relu of x (an outer value, an outer weight),
    else: Conv of x with the branch's own weight, then Sigmoid. `cond` replaces the shape test by a
    constant of that value."""
    rng = np.random.default_rng(3)
    w_then = numpy_helper.from_array((rng.standard_normal((16, 8, 3, 3)) * 0.2).astype(np.float32), "w_then")
    w_else = numpy_helper.from_array((rng.standard_normal((16, 8, 1, 1)) * 0.2).astype(np.float32), "w_else")
    then_graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w_then"], ["t_conv"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["t_conv"], ["t_out"])],
        "then", [], [helper.make_tensor_value_info("t_out", TensorProto.FLOAT, [1, 16, size, size])])
    else_graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w_else"], ["e_conv"]),
         helper.make_node("Sigmoid", ["e_conv"], ["e_out"])],
        "else", [], [helper.make_tensor_value_info("e_out", TensorProto.FLOAT, [1, 16, size, size])], [w_else])
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, size, size])]
    if sample_rate:
        nodes = [helper.make_node("Equal", ["sample_rate", "rate_16k"], ["cond"])]
        inits = [numpy_helper.from_array(np.array(16000, np.int64), "rate_16k")]
        inputs.append(helper.make_tensor_value_info("sample_rate", TensorProto.INT64, []))
    elif cond is None:
        nodes = [helper.make_node("Shape", ["x"], ["shape"]),
                 helper.make_node("Gather", ["shape", "two"], ["h"], axis=0),
                 helper.make_node("Equal", ["h", "sixteen"], ["cond"])]
        inits = [numpy_helper.from_array(np.array(2, np.int64), "two"),
                 numpy_helper.from_array(np.array(16, np.int64), "sixteen")]
    else:
        nodes = []
        inits = [numpy_helper.from_array(np.array(cond, np.bool_), "cond")]
    nodes += [helper.make_node("If", ["cond"], ["branch_out"], then_branch=then_graph, else_branch=else_graph),
              helper.make_node("MaxPool", ["branch_out"], ["y"], kernel_shape=[2, 2], strides=[2, 2])]
    graph = helper.make_graph(nodes, "if_model", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, size // 2, size // 2])],
                              [w_then] + inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


@pytest.mark.parametrize("size,branch", [(16, "then"), (8, "else")])
def test_the_branch_the_shape_picks_runs_on_the_npu(tmp_path, size, branch):
    model = if_model(tmp_path / f"if_{size}.onnx", size)
    x = np.random.default_rng(0).standard_normal((1, 8, size, size)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "--strict",
                   "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "fallback" not in r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    got = np.load(tmp_path / "out" / "y.npy")
    want = reference(model, x)
    assert got.shape == want.shape == (1, 16, size // 2, size // 2)
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max() + 1e-3, branch
    # The other branch would give other values: a wrong pick cannot pass.
    other = if_model(tmp_path / "other.onnx", size, cond=(branch == "else"))
    wrong = reference(other, x)
    assert np.abs(got - wrong).max() > 0.1


def test_a_constant_condition_and_the_pass_summary(tmp_path):
    model = if_model(tmp_path / "if_const.onnx", 8, cond=True)
    dump = tmp_path / "dump"
    r = run_npusim("compile", model, "-c", CONFIG, "--strict", "--dump-dir", dump, "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    (static,) = dump.glob("*-static-shapes.onnx")
    ops = [n.op_type for n in onnx.load(str(static)).graph.node]
    assert "If" not in ops and "Conv" in ops and "Relu" in ops and "Sigmoid" not in ops, ops


def test_a_condition_of_several_elements_is_one_line(tmp_path):
    model = onnx.load(str(if_model(tmp_path / "if_bad.onnx", 8, cond=True)))
    for init in model.graph.initializer:
        if init.name == "cond":
            init.CopyFrom(numpy_helper.from_array(np.array([True, False]), "cond"))
    onnx.save(model, str(tmp_path / "bad.onnx"))
    r = run_npusim("compile", tmp_path / "bad.onnx", "-c", CONFIG, "-o", tmp_path / "m.npuprog")
    assert_one_line_error(r, "node 'If_", "(If): condition 'cond' has 2 elements, not one")


@pytest.mark.parametrize("rate,branch", [(16000, "then"), (8000, "else")])
def test_an_input_value_fixed_at_compile_time_picks_the_branch(tmp_path, rate, branch):
    """--input-value sample_rate=R: the input becomes a constant, the If folds, the program has
    one input left and the outputs are ONNX Runtime's with that sample rate."""
    model = if_model(tmp_path / "rate.onnx", 8, sample_rate=True)
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--strict", "--explain",
                   "--input-value", f"sample_rate={rate}", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert f"sample_rate = {rate}" in r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    got = np.load(tmp_path / "out" / "y.npy")
    want = reference(model, x, sample_rate=np.array(rate, np.int64))
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max() + 1e-3, branch
    other = reference(model, x, sample_rate=np.array(24000 - rate, np.int64))
    assert np.abs(got - other).max() > 0.1


def test_the_python_package_takes_input_values(tmp_path):
    import sys
    from conftest import NPUSIM
    sys.path.insert(0, str(NPUSIM.parent.parent / "python"))
    import npusim
    model = if_model(tmp_path / "rate.onnx", 8, sample_rate=True)
    session = npusim.compile(model, CONFIG, precision="fp16", strict=True, input_values={"sample_rate": 16000})
    assert [i["name"] for i in session.inputs] == ["x"]


@pytest.mark.parametrize("spec,message", [
    ("rate=16000", "--input-value 'rate=16000': the model has no input 'rate' (its inputs: x, sample_rate)"),
    ("x=1", "--input-value 'x=1': input 'x' has shape 1x8x8x8; only a one-element input can be fixed to a value"),
    ("sample_rate=fast", "--input-value 'sample_rate=fast': 'fast' is not a number"),
    ("sample_rate=1.5", "input 'sample_rate' is int64, '1.5' is not a whole number"),
    ("sample_rate", "--input-value 'sample_rate': not of the form NAME=VALUE"),
])
def test_a_bad_input_value_is_one_line(tmp_path, spec, message):
    model = if_model(tmp_path / "rate.onnx", 8, sample_rate=True)
    r = run_npusim("compile", model, "-c", CONFIG, "--input-value", spec, "-o", tmp_path / "m.npuprog")
    assert_one_line_error(r, message)


def test_an_if_known_only_at_run_time_says_how_to_fold_it(tmp_path):
    model = if_model(tmp_path / "rate.onnx", 8, sample_rate=True)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert ("fallback If_1 (If): its condition 'cond' is known only at run time (fold it: --input-value for the "
            "input it comes from)") in r.out, r.out


def test_compare_fixes_shapes_and_values_on_every_device(tmp_path):
    """npusim compare --input-shape / --input-value: the simulator compiles with them (the If
    folds, the dynamic dims are fixed) and ONNX Runtime is fed that shape and that value."""
    import json
    model = onnx.load(str(if_model(tmp_path / "rate.onnx", 8, sample_rate=True)))
    for value in (model.graph.input[0], model.graph.output[0]):
        dims = value.type.tensor_type.shape.dim
        dims[2].dim_param, dims[3].dim_param = "h", "w"
    onnx.save(model, str(tmp_path / "dynamic.onnx"))
    args = ["compare", tmp_path / "dynamic.onnx", "-c", CONFIG, "-d", "ort:cpu", "--precision", "fp16", "--runs", "1",
            "--warmup", "0", "--json", tmp_path / "c.json"]
    r = run_npusim(*args)
    assert_one_line_error(r, "input 'x' dim 2 ('h') is dynamic")
    r = run_npusim(*args, "--input-shape", "x=1x8x8x8", "--input-value", "sample_rate=16000")
    assert r.code == 0, r.err
    c = json.loads((tmp_path / "c.json").read_text())
    assert "input sample_rate: 16000 (--input-value)" in c["inputs"]
    sim = next(d for d in c["devices"] if d["device"] == "sim")
    assert sim["fallback_nodes"] == 0 and not any(p["op_type"] == "If" for p in sim["placement"])
    assert sim["outputs"][0]["cosine"] >= 0.9999
    r = run_npusim(*args, "--input-shape", "y=1x8x8x8")
    assert_one_line_error(r, "--input-shape y: the model has no such input")
