"""Loop nodes with a trip count known at compile time (and a condition that stays true) are
unrolled by the front end (compiler/frontend/loop_unrolling.cpp): the NPU runs the repeated
body, with ONNX Runtime's outputs; a loop that cannot be unrolled says why."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import run_npusim, ROOT

CONFIG = ROOT / "configs" / "default.yaml"


def loop_model(path, trips=3, trip_input=False, scan=False):
    """v = x; `trips` times: v = Relu(Conv(v, w) + x * i) (w and x from the outer graph, i the
    iteration); y = MaxPool(v). scan: the iterations' v stacked, a second output."""
    rng = np.random.default_rng(5)
    w = numpy_helper.from_array((rng.standard_normal((8, 8, 3, 3)) * 0.15).astype(np.float32), "w")
    body_out = [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
                helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [1, 8, 8, 8])]
    if scan:
        body_out.append(helper.make_tensor_value_info("v_scan", TensorProto.FLOAT, [1, 8, 8, 8]))
    body_nodes = [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                  helper.make_node("Cast", ["i"], ["i_float"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["x", "i_float"], ["x_i"]),
                  helper.make_node("Conv", ["v_in", "w"], ["conv"], pads=[1, 1, 1, 1]),
                  helper.make_node("Add", ["conv", "x_i"], ["sum"]),
                  helper.make_node("Relu", ["sum"], ["v_out"])]
    if scan:
        body_nodes.append(helper.make_node("Identity", ["v_out"], ["v_scan"]))
    body = helper.make_graph(
        body_nodes, "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_in", TensorProto.FLOAT, [1, 8, 8, 8])], body_out)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])]
    inits = [w]
    if trip_input:
        inputs.append(helper.make_tensor_value_info("trips", TensorProto.INT64, []))
    else:
        inits.append(numpy_helper.from_array(np.array(trips, np.int64), "trips"))
    loop_outputs = ["v_final"] + (["stacked"] if scan else [])
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 4, 4])]
    if scan:
        outputs.append(helper.make_tensor_value_info("stacked", TensorProto.FLOAT, [trips, 1, 8, 8, 8]))
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], loop_outputs, body=body),
         helper.make_node("MaxPool", ["v_final"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
        "loop_model", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def reference(model, feeds):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))


@pytest.mark.parametrize("scan", [False, True])
def test_a_static_loop_runs_unrolled(tmp_path, scan):
    model = loop_model(tmp_path / "loop.onnx", scan=scan)
    x = np.random.default_rng(0).standard_normal((1, 8, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "1 Loop/Scan nodes unrolled" in r.out
    assert "(Loop)" not in r.out and "(Conv)" not in r.out, r.out  # no fallback line for them
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    want = reference(model, {"x": x})
    for name, ref in want.items():
        got = np.load(tmp_path / "out" / f"{name}.npy")
        assert got.shape == ref.shape
        assert np.abs(got - ref).max() <= 0.02 * np.abs(ref).max() + 1e-3, name
    # Three iterations, not two or four: a miscounted unroll cannot pass.
    for other in (2, 4):
        wrong = reference(loop_model(tmp_path / f"loop{other}.onnx", trips=other), {"x": x})["y"]
        assert np.abs(np.load(tmp_path / "out" / "y.npy") - wrong).max() > 0.1


def test_a_trip_count_known_only_at_run_time_says_so(tmp_path):
    model = loop_model(tmp_path / "loop.onnx", trip_input=True)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert ("(Loop): its trip count is not known at compile time, is over 256, or its condition can change, so it "
            "is not unrolled") in r.out, r.out
    # --input-value makes it known, and the loop unrolls.
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "--input-value", "trips=3",
                   "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "1 Loop/Scan nodes unrolled" in r.out


def scan_model(path, steps=5, axis=0, direction=0, out_direction=0):
    """s = 0; for each x_t along `axis`: s = Tanh(s W + x_t); y stacks every s."""
    rng = np.random.default_rng(8)
    w = numpy_helper.from_array((rng.standard_normal((8, 8)) * 0.4).astype(np.float32), "w")
    body = helper.make_graph(
        [helper.make_node("MatMul", ["s_in", "w"], ["sw"]), helper.make_node("Add", ["sw", "x_t"], ["sum"]),
         helper.make_node("Tanh", ["sum"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y_t"])],
        "body", [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [1, 8]),
                 helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [1, 8])])
    x_shape = [steps, 1, 8] if axis == 0 else [1, steps, 8]
    y_shape = [steps, 1, 8]
    graph = helper.make_graph(
        [helper.make_node("Scan", ["s0", "x"], ["s_final", "y"], body=body, num_scan_inputs=1,
                          scan_input_axes=[axis], scan_input_directions=[direction],
                          scan_output_directions=[out_direction]),
         helper.make_node("Relu", ["s_final"], ["s_relu"])],
        "scan_model", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("s_relu", TensorProto.FLOAT, [1, 8]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        [w, numpy_helper.from_array(np.zeros((1, 8), np.float32), "s0")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path, x_shape


@pytest.mark.parametrize("axis,direction,out_direction", [(0, 0, 0), (1, 1, 0), (0, 0, 1)])
def test_a_static_scan_runs_unrolled(tmp_path, axis, direction, out_direction):
    model, shape = scan_model(tmp_path / "scan.onnx", axis=axis, direction=direction, out_direction=out_direction)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "fp16", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "1 Loop/Scan nodes unrolled" in r.out and "(Scan)" not in r.out, r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    for name, ref in reference(model, {"x": x}).items():
        got = np.load(tmp_path / "out" / f"{name}.npy")
        assert got.shape == ref.shape, name
        assert np.abs(got - ref).max() <= 0.01, (name, np.abs(got - ref).max())


def test_an_if_inside_a_loop_body_reads_each_iterations_values(tmp_path):
    """v = x; 3 times: v = If(i == 0, then: Conv(v) + x, else: v * 0.5). Unrolled, each copy of the
    If reads its own iteration's v (the names the unrolling gives it, not the body's), and folds
    on the now-constant i: the whole model on the NPU, with ONNX Runtime's output."""
    rng = np.random.default_rng(9)
    w = numpy_helper.from_array((rng.standard_normal((8, 8, 3, 3)) * 0.15).astype(np.float32), "w")
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    v = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 8, 8, 8])
    then_branch = helper.make_graph([helper.make_node("Conv", ["v_in", "w"], ["conv"], pads=[1, 1, 1, 1]),
                                     helper.make_node("Add", ["conv", "x"], ["then_v"])], "then", [], [v("then_v")])
    else_branch = helper.make_graph([helper.make_node("Mul", ["v_in", "half"], ["else_v"])], "else", [], [v("else_v")])
    zero = numpy_helper.from_array(np.array(0, np.int64), "zero")
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Equal", ["i", "zero"], ["first"]),
         helper.make_node("If", ["first"], ["v_out"], then_branch=then_branch, else_branch=else_branch)],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), v("v_in")],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), v("v_out")], [zero])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["v_final"], body=body), helper.make_node("Relu", ["v_final"], ["y"])],
        "loop_if", [v("x")], [v("y")], [w, half, numpy_helper.from_array(np.array(3, np.int64), "trips")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    path = tmp_path / "loop_if.onnx"
    onnx.save(model, str(path))
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--strict", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "3 If nodes inlined, 1 Loop/Scan nodes unrolled" in r.out, r.out
    assert "100.0 % of simulated time on the NPU" in r.out, r.out
    r = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}",
                   "--save-outputs", tmp_path / "out", "-q")
    assert r.code == 0, r.err
    want = reference(path, {"x": x})["y"]
    got = np.load(tmp_path / "out" / "y.npy")
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max() + 1e-3
