"""Models from ONNX Runtime's quantize_dynamic (int8 weights, activations quantised per inference:
DynamicQuantizeLinear, ConvInteger, MatMulInteger, com.microsoft DynamicQuantizeLSTM) run whole
on the NPU: the activation side back to float, the products on the file's integer weights
(frontend/dynamic_quantization.cpp). Outputs against ONNX Runtime running the quantised model."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

from conftest import ROOT, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


def init(name, value):
    return numpy_helper.from_array(np.asarray(value), name)


def quantize_dynamic(tmp_path, graph, **kw):
    from onnxruntime.quantization import quantize_dynamic as ort_quantize_dynamic
    src, dst = tmp_path / "float.onnx", tmp_path / "dynamic.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), src)
    ort_quantize_dynamic(str(src), str(dst), **kw)
    return dst


def conv_matmul_graph():
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Flatten", ["r"], ["f"]), helper.make_node("MatMul", ["f", "w2"], ["m"]),
             helper.make_node("Add", ["m", "b2"], ["y"])]
    return helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1, 3, 8, 8])],
                             [helper.make_tensor_value_info("y", TP.FLOAT, [1, 10])],
                             [init("w", rng.standard_normal((4, 3, 3, 3)).astype(np.float32)),
                              init("b", rng.standard_normal(4).astype(np.float32)),
                              init("w2", (0.1 * rng.standard_normal((256, 10))).astype(np.float32)),
                              init("b2", rng.standard_normal(10).astype(np.float32))])


def lstm_graph():
    rng = np.random.default_rng(5)
    hidden, size = 8, 5
    node = helper.make_node("LSTM", ["x", "W", "R", "B"], ["y", "h", "c"], hidden_size=hidden, direction="bidirectional")
    return helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TP.FLOAT, [6, 1, size])],
                             [helper.make_tensor_value_info("y", TP.FLOAT, None)],
                             [init("W", rng.standard_normal((2, 4 * hidden, size)).astype(np.float32)),
                              init("R", rng.standard_normal((2, 4 * hidden, hidden)).astype(np.float32)),
                              init("B", rng.standard_normal((2, 8 * hidden)).astype(np.float32))])


def legacy_conv_graph():
    """The older form (ddddocr's model): the bias quantised at run time as int32
    floor(b / (x_scale * w_scale)) and added to ConvInteger's accumulator before the Cast."""
    rng = np.random.default_rng(6)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    w_scale = np.float32(np.abs(w).max() / 127)
    nodes = [helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
             helper.make_node("Mul", ["xs", "ws"], ["s"]),
             helper.make_node("Div", ["b", "s"], ["bd"]), helper.make_node("Floor", ["bd"], ["bf"]),
             helper.make_node("Cast", ["bf"], ["bq"], to=TP.INT32),
             helper.make_node("Reshape", ["bq", "bshape"], ["br"]),
             helper.make_node("ConvInteger", ["xq", "wq", "xz", "wz"], ["acc"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["acc", "br"], ["accb"]),
             helper.make_node("Cast", ["accb"], ["accf"], to=TP.FLOAT),
             helper.make_node("Mul", ["accf", "s"], ["y"])]
    return helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TP.FLOAT, [1, 3, 8, 8])],
                             [helper.make_tensor_value_info("y", TP.FLOAT, None)],
                             [init("wq", np.round(w / w_scale).astype(np.int8)), init("wz", np.int8(0)),
                              init("ws", w_scale), init("b", rng.standard_normal(4).astype(np.float32)),
                              init("bshape", np.array([1, 4, 1, 1], np.int64))])


def run_both(tmp_path, path, x, precision):
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", precision, "--strict", "--explain", "-o",
                   tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    np.save(tmp_path / "x.npy", x)
    r2 = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs",
                    tmp_path / "out", "-q")
    assert r2.code == 0, r2.err
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    return r.out, np.load(tmp_path / "out" / "y.npy"), want


@pytest.mark.parametrize("case", ["conv_matmul", "lstm"])
def test_quantize_dynamic_models_run_whole_on_the_npu(tmp_path, case):
    from onnxruntime.quantization import QuantType
    if case == "conv_matmul":
        path = quantize_dynamic(tmp_path, conv_matmul_graph(), weight_type=QuantType.QUInt8,
                                op_types_to_quantize=["Conv", "MatMul"])
        x = np.random.default_rng(1).uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
        needle = "2 DynamicQuantizeLinear back to float, 2 ConvInteger/MatMulInteger as float ops"
    else:
        path = quantize_dynamic(tmp_path, lstm_graph(), weight_type=QuantType.QInt8, op_types_to_quantize=["LSTM"])
        x = np.random.default_rng(2).uniform(-1, 1, (6, 1, 5)).astype(np.float32)
        needle = "1 DynamicQuantizeLSTM as LSTM"
    ops = {n.op_type for n in onnx.load(path).graph.node}
    assert ops & {"ConvInteger", "MatMulInteger", "DynamicQuantizeLSTM"}, ops
    out, got, want = run_both(tmp_path, path, x, "fp16")
    assert needle in out, out
    # ONNX Runtime quantises the activations (one step of their range per value); the NPU runs
    # them in fp16 on the same int8 weights.
    cos = float(np.dot(got.ravel(), want.ravel()) / np.linalg.norm(got) / np.linalg.norm(want))
    assert cos > 0.9995, cos
    assert np.abs(got - want).max() <= 0.05 * np.abs(want).max(), np.abs(got - want).max()


def test_legacy_dynamic_conv_with_an_integer_bias(tmp_path):
    path = tmp_path / "legacy.onnx"
    onnx.save(helper.make_model(legacy_conv_graph(), opset_imports=[helper.make_opsetid("", 17)]), path)
    x = np.random.default_rng(3).uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
    out, got, want = run_both(tmp_path, path, x, "fp16")
    assert "1 DynamicQuantizeLinear back to float, 1 ConvInteger/MatMulInteger as float ops" in out, out
    assert np.abs(got - want).max() <= 0.03 * np.abs(want).max(), np.abs(got - want).max()
