"""A batch of N > 1 images through 2-D convs and pools on the NPU (compiler/passes/batch_split.cpp):
N per-image chains over the same weights, a Split where the batch enters and a Concat where it
leaves. Outputs against ONNX Runtime; every layer on the NPU; an image's result does not depend
on the batch it came in."""
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import ROOT, calibration_reader, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


def convnet(path, batch):
    """conv-BN-relu, max pool, conv-relu-conv + residual, relu, average pool, global pool, Gemm:
    two outputs, the logits [N, 10] and the feature map [N, 8, 4, 4] (a batched graph output)."""
    rng = np.random.default_rng(7)

    def w(name, *shape, scale=0.3):
        return numpy_helper.from_array((scale * rng.standard_normal(shape)).astype(np.float32), name)

    inits = [w("w1", 8, 3, 3, 3), w("b1", 8, scale=0.1), w("w2", 8, 8, 3, 3), w("b2", 8, scale=0.1),
             w("w3", 8, 8, 3, 3), w("b3", 8, scale=0.1), w("fc", 10, 8), w("fcb", 10, scale=0.1),
             numpy_helper.from_array((1 + 0.1 * rng.standard_normal(8)).astype(np.float32), "bn_s"),
             w("bn_b", 8, scale=0.1), w("bn_m", 8, scale=0.1),
             numpy_helper.from_array((0.5 + rng.random(8)).astype(np.float32), "bn_v")]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c1", "bn_s", "bn_b", "bn_m", "bn_v"], ["n1"], name="bn1"),
             helper.make_node("Relu", ["n1"], ["r1"], name="relu1"),
             helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["c3"], name="conv3", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c3", "p1"], ["s"], name="residual"),
             helper.make_node("Relu", ["s"], ["r3"], name="relu3"),
             helper.make_node("AveragePool", ["r3"], ["feat"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["feat"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
             helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], name="fc", transB=1)]
    graph = helper.make_graph(nodes, "batched", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 10]),
                               helper.make_tensor_value_info("feat", TensorProto.FLOAT, [batch, 8, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def images(batch, seed=0):
    return np.random.default_rng(seed).standard_normal((batch, 3, 16, 16)).astype(np.float32)


def compile_and_run(model, tmp_path, x, *options, tag="m"):
    prog = tmp_path / f"{tag}.npuprog"
    r = run_npusim("compile", model, "-c", CONFIG, "--explain", "-o", prog, *options)
    assert r.code == 0, r.err
    np.save(tmp_path / f"{tag}_x.npy", x)
    run = run_npusim("run", prog, "-c", CONFIG, "--input", f"x={tmp_path / f'{tag}_x.npy'}", "--save-outputs",
                     tmp_path / f"{tag}_out", "-q")
    assert run.code == 0, run.err
    return r.out, {name: np.load(tmp_path / f"{tag}_out" / f"{name}.npy") for name in ("y", "feat")}


def onnx_runtime(model, x):
    s = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, {"x": x})))


def data_segments(prog, tmp_path):
    """The program's constant data segments (weights, parameters), from its disassembly's header."""
    r = run_npusim("disasm", prog, "-o", tmp_path / "p.npuasm")
    assert r.code == 0, r.err
    header = (tmp_path / "p.npuasm").read_text().splitlines()[0]
    return int(header.split(" data segments")[0].rsplit(" ", 1)[1])


def placement(out):
    return next(l for l in out.splitlines() if l.startswith("placement:"))


@pytest.mark.parametrize("batch", [2, 3, 4])
def test_batched_convnet_runs_on_the_npu_in_fp16(tmp_path, batch):
    model = convnet(tmp_path / "m.onnx", batch)
    x = images(batch)
    out, got = compile_and_run(model, tmp_path, x, "--precision", "fp16")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    assert f"11 nodes over a batch as {11 * batch} per-image copies, 1 Split(s) in, 2 Concat(s) out" in out, out
    want = onnx_runtime(model, x)
    for name in ("y", "feat"):
        assert got[name].shape == want[name].shape
        assert np.abs(got[name] - want[name]).max() <= 0.01 * np.abs(want[name]).max() + 2e-3, name
    # The copies of a layer read one set of weights: as many constant segments as at batch 1.
    one = convnet(tmp_path / "one.onnx", 1)
    assert run_npusim("compile", one, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "one.npuprog", "-q").code == 0
    assert data_segments(tmp_path / "m.npuprog", tmp_path) == data_segments(tmp_path / "one.npuprog", tmp_path)


def qdq_convnet(path, tmp_path, batch):
    """ONNX Runtime's quantize_static (QDQ, int8) of the convnet with a dynamic batch, calibrated
    on batch-1 images; its batch fixed to `batch` by --input-shape."""
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static
    fp32 = convnet(tmp_path / "fp32.onnx", "N")

    quantize_static(str(fp32), str(path), calibration_reader([{"x": images(1, seed)} for seed in range(10, 18)]), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return path


def output_step(model, name):
    """The scale of the QuantizeLinear that makes `name`'s int8 value (its last DequantizeLinear)."""
    m = onnx.load(str(model))
    dq = next(n for n in m.graph.node if n.op_type == "DequantizeLinear" and n.output[0] == name)
    return float(numpy_helper.to_array(next(i for i in m.graph.initializer if i.name == dq.input[1])))


@pytest.mark.parametrize("batch", [2, 3, 4])
def test_batched_qdq_convnet_runs_on_the_npu_in_int8(tmp_path, batch):
    model = qdq_convnet(tmp_path / "qdq.onnx", tmp_path, batch)
    x = images(batch)
    shape = f"x={batch}x3x16x16"
    out, got = compile_and_run(model, tmp_path, x, "--input-shape", shape, "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    assert "per-image copies" in out, out
    # ONNX Runtime's reference kernels round some layers differently (one step where they do,
    # carried through the next: the feature map is three convs, a residual and a pool deep), so
    # the batch-1 program is already up to two steps off there; the batch adds nothing to that.
    want = onnx_runtime(model, x)
    for name in ("y", "feat"):
        assert got[name].shape == want[name].shape
        steps = np.abs(got[name] - want[name]) / output_step(model, name)
        assert steps.max() <= 2.01 and (steps <= 1.01).mean() >= 0.98, (name, steps.max(), (steps <= 1.01).mean())
    # Each image alone through the batch-1 program: the same int8 results, bit for bit (the
    # model's own parameters; the chains share them).
    for i in range(batch):
        _, alone = compile_and_run(model, tmp_path, x[i:i + 1], "--input-shape", "x=1x3x16x16", tag=f"alone{i}")
        for name in ("y", "feat"):
            assert np.array_equal(alone[name][0], got[name][i]), (name, i)


def test_batched_convnet_int8_calibrated_runs_on_the_npu(tmp_path):
    """A float model compiled to int8 with the compiler's own calibration: the pieces of a value
    share one range, so every image's chain computes with the same parameters."""
    model = convnet(tmp_path / "m.onnx", 4)
    x = images(4)
    out, got = compile_and_run(model, tmp_path, x, "--precision", "int8", "--strict")
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in placement(out), placement(out)
    one = convnet(tmp_path / "one.onnx", 1)
    assert run_npusim("compile", one, "-c", CONFIG, "--precision", "int8", "-o", tmp_path / "one.npuprog", "-q").code == 0
    assert data_segments(tmp_path / "m.npuprog", tmp_path) == data_segments(tmp_path / "one.npuprog", tmp_path)
    # The same image in every slot: the same int8 result in every slot.
    same = np.repeat(x[:1], 4, axis=0)
    _, rep = compile_and_run(model, tmp_path, same, "--precision", "int8", tag="same")
    for name in ("y", "feat"):
        assert all(np.array_equal(rep[name][0], rep[name][i]) for i in range(1, 4)), name
    want = onnx_runtime(model, x)
    cos = float(np.dot(got["y"].ravel(), want["y"].ravel()) /
                (np.linalg.norm(got["y"]) * np.linalg.norm(want["y"])))
    assert cos >= 0.99, cos


def test_keep_fp16_names_every_image_of_a_batched_layer(tmp_path):
    """--keep-fp16 with a model's node name keeps that layer in fp16 for every image of the batch,
    not only the first copy (an image's precision must not depend on its place in the batch)."""
    model = convnet(tmp_path / "m.onnx", 3)
    r = run_npusim("compile", model, "-c", CONFIG, "--precision", "int8", "--keep-fp16", "conv2", "-o",
                   tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "fp16 layers by --keep-fp16 (3): conv2@image0, conv2@image1, conv2@image2" in r.out, r.out
