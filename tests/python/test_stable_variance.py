"""Variance written as mean(x^2) - mean(x)^2 (TensorFlow/JAX exports: magika's LayerNorm) runs in
FP16 as mean((x - mean)^2) (compiler/frontend/stable_variance.cpp).

The inputs have a mean far larger than their spread, as such layers see after a ReLU or a max
pool: in fp16, mean(x^2) and mean(x)^2 each round to a step larger than the variance itself, so
the model's own order of operations gives noise (checked on the data below with numpy's fp16:
the test fails if the rewrite is gone), while the centred form keeps the variance. Outputs are
compared with ONNX Runtime in FP32.
"""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

N, C = 48, 64  # normalised over N (axis 1) of [1, N, C], as magika's first LayerNorm


def layernorm_model(path, reduce_mean):
    """y = (x - m) * gamma / sqrt(max(mean(x*x) - m*m, 0) + eps) + beta, m = mean(x) over axis 1;
    mean as ReduceSum * 1/N (jax2tf) or ReduceMean, keepdims 0 as the exporter writes it."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(np.array([1], np.int64), "axes"),
             numpy_helper.from_array(np.array([1.0 / N], np.float32), "inv_n"),
             numpy_helper.from_array(np.array([0.0], np.float32), "zero"),
             numpy_helper.from_array(np.array([1e-6], np.float32), "eps"),
             numpy_helper.from_array(np.array([1, 1, C], np.int64), "kept"),
             numpy_helper.from_array(rng.uniform(0.5, 1.5, (C,)).astype(np.float32), "gamma"),
             numpy_helper.from_array(rng.uniform(-0.5, 0.5, (C,)).astype(np.float32), "beta")]
    nodes = []
    if reduce_mean:
        nodes += [helper.make_node("ReduceMean", ["x"], ["mean"], axes=[1], keepdims=0),
                  helper.make_node("Mul", ["x", "x"], ["sq"]),
                  helper.make_node("ReduceMean", ["sq"], ["mean_sq"], axes=[1], keepdims=0)]
    else:
        nodes += [helper.make_node("ReduceSum", ["x", "axes"], ["sum"], keepdims=0),
                  helper.make_node("Mul", ["sum", "inv_n"], ["mean"]),
                  helper.make_node("Mul", ["x", "x"], ["sq"]),
                  helper.make_node("ReduceSum", ["sq", "axes"], ["sum_sq"], keepdims=0),
                  helper.make_node("Mul", ["sum_sq", "inv_n"], ["mean_sq"])]
    nodes += [helper.make_node("Mul", ["mean", "mean"], ["mean_2"]),
              helper.make_node("Sub", ["mean_sq", "mean_2"], ["var_raw"]),
              helper.make_node("Max", ["zero", "var_raw"], ["var"]),
              helper.make_node("Reshape", ["var", "kept"], ["var_kept"]),
              helper.make_node("Add", ["var_kept", "eps"], ["var_eps"]),
              helper.make_node("Sqrt", ["var_eps"], ["std"]),
              helper.make_node("Reciprocal", ["std"], ["inv_std"]),
              helper.make_node("Mul", ["inv_std", "gamma"], ["gain"]),
              helper.make_node("Reshape", ["mean", "kept"], ["mean_kept"]),
              helper.make_node("Sub", ["x", "mean_kept"], ["d"]),
              helper.make_node("Mul", ["d", "gain"], ["scaled"]),
              helper.make_node("Add", ["scaled", "beta"], ["y"])]
    graph = helper.make_graph(nodes, "layernorm_as_exported", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, N, C])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N, C])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def inputs():
    # Mean about 30, spread about 0.3 (variance 0.09): each fp16 mean of squares has a step of 0.5.
    rng = np.random.default_rng(7)
    return (30 + rng.uniform(-3, 3, (1, 1, C)) + 0.3 * rng.standard_normal((1, N, C))).astype(np.float32)


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_the_data_defeats_the_exported_order_in_fp16():
    x = inputs().astype(np.float16)
    mean_sq = (x * x).astype(np.float16).mean(axis=1, dtype=np.float16)
    mean = x.mean(axis=1, dtype=np.float16)
    naive = (mean_sq - (mean * mean).astype(np.float16)).astype(np.float32)
    true = inputs().astype(np.float64).var(axis=1)
    assert np.median(np.abs(naive - true) / true) > 0.5


@pytest.mark.parametrize("reduce_mean", [False, True], ids=["reducesum-times-inverse", "reducemean"])
def test_fp16_layernorm_as_exported_follows_onnx_runtime(npusim, root, tmp_path, reduce_mean):
    import onnxruntime as ort
    model = layernorm_model(tmp_path / "ln.onnx", reduce_mean)
    x = inputs()
    np.save(tmp_path / "x.npy", x)
    dump = tmp_path / "dump"
    config = root / "configs" / "default.yaml"
    r = npusim("compile", model, "-c", config, "--precision", "fp16", "-o", tmp_path / "ln.npuprog", "--dump-dir", dump, "-q")
    assert r.code == 0, r.err
    r = npusim("run", tmp_path / "ln.npuprog", "-c", config, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs",
               tmp_path / "out", "-q")
    assert r.code == 0, r.err
    rewritten = onnx.load(str(next(dump.glob("*-stable-variance.onnx"))))
    assert not any(n.op_type == "Sub" and n.input[1] == "mean_2" for n in rewritten.graph.node)
    assert sum(n.name.endswith("_centred") for n in rewritten.graph.node) >= 1
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    got = np.load(tmp_path / "out" / "y.npy")
    assert cosine(expected, got) >= 0.999
    # x itself rounds to fp16 steps of 1/64 near 30, a twentieth of its spread: about 0.05 of
    # the normalised output, times gamma; the exported order would be off by the output's size.
    assert np.abs(expected - got).max() < 0.3
