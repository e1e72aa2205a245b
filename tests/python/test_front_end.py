"""The static-shape front end on real exported models.

Each model is compiled with `npusim compile --dump-dir` and the graph of the last front-end pass
(before fusion: `*-batchnorm-folding.onnx`) is checked:
  - no shape-computing nodes remain (Shape, Size, ConstantOfShape, Range, and no node whose
    inputs are all constants), every parameter is an attribute or an initializer;
  - every value has a static shape (value_info / outputs with fixed dims);
  - it computes what the original model computes: both run in ONNX Runtime on the same
    random input, cosine >= 0.9999 per output (FP32).

Models: the PyTorch-exported corpus models/exported/ (MANIFEST.json), YOLOv8n (`320n.onnx`
from the PyPI wheel nudenet 3.4.2) at 640x640 and 320x320, and PP-OCR (rapidocr-onnxruntime
1.4.4: v4 detector at 1x3x640x640, v2 classifier at 1x3x48x192, v4 recogniser at 1x3x48x320).

Also: the old-opset (opset 6) converted-PyTorch node tests of Debian's libonnx-testdata
(pytorch-converted, pytorch-operator) run through the opset upgrade and `npusim run` (NPU in
FP16 or the CPU path in ONNX Runtime, which refuses some opset-6 nodes unless upgraded) and must
match their reference outputs. All 118 also run in-process through the upgrade and the FP32
evaluator (tests/compiler/import_test.cpp); here every 3rd, plus the 3-D ones the evaluator
leaves to the CPU path, keeps this file near a minute (NPUSIM_OLD_OPSET_TESTS=all runs all).
"""
import json
import os
import pathlib

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "default.yaml"
EXPORTED = ROOT / "models" / "exported"
TESTDATA = pathlib.Path("/usr/include/onnx/backend/test/data")
FRONT_END_LAST = "batchnorm-folding"
SHAPE_OPS = {"Shape", "Size", "ConstantOfShape", "Range"}


def package_dir(module):
    try:
        mod = __import__(module)
    except ImportError:
        return None
    return pathlib.Path(mod.__file__).parent


def real_models():
    """(id, path, {input: shape})"""
    out = []
    nude = package_dir("nudenet")
    if nude:
        for size in (640, 320):
            out.append((f"yolov8n-{size}", nude / "320n.onnx", {"images": (1, 3, size, size)}))
    ocr = package_dir("rapidocr_onnxruntime")
    if ocr:
        for name, shape in (("ch_PP-OCRv4_det_infer", (1, 3, 640, 640)), ("ch_ppocr_mobile_v2.0_cls_infer", (1, 3, 48, 192)),
                            ("ch_PP-OCRv4_rec_infer", (1, 3, 48, 320))):
            out.append((name, ocr / "models" / f"{name}.onnx", {"x": shape}))
    return out


def exported_models():
    manifest = json.loads((EXPORTED / "MANIFEST.json").read_text())
    return [(m["file"][:-5], EXPORTED / m["file"], {i["name"]: tuple(i["shape"]) for i in m["inputs"]})
            for m in manifest["models"]]


MODELS = exported_models() + real_models()


def random_inputs(model, shapes, seed=0):
    rng = np.random.default_rng(seed)
    feeds = {}
    initializers = {i.name for i in model.graph.initializer}
    for inp in model.graph.input:
        if inp.name in initializers:
            continue
        elem = inp.type.tensor_type.elem_type
        shape = shapes[inp.name]
        if elem == onnx.TensorProto.INT64:
            feeds[inp.name] = rng.integers(0, 100, size=shape).astype(np.int64)
        else:
            feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def ort_run(model_bytes, feeds):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds), [o.name for o in session.get_outputs()]


def cosine(a, b):
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 1.0 if np.array_equal(a, b) else 0.0
    return float(a @ b / (na * nb))


def front_end_dump(npusim, path, shapes, tmp_path):
    args = ["compile", path, "--config", CONFIG, "-o", tmp_path / "m.npuprog", "--precision", "fp16",
            "--dump-dir", tmp_path / "dump"]
    for name, shape in shapes.items():
        args += ["--input-shape", f"{name}={'x'.join(map(str, shape))}"]
    result = npusim(*args)
    assert result.code == 0, result.err
    dumps = sorted((tmp_path / "dump").glob(f"*-{FRONT_END_LAST}.onnx"))
    assert len(dumps) == 1, sorted(p.name for p in (tmp_path / "dump").iterdir())
    return dumps[0]


@pytest.mark.parametrize("name,path,shapes", MODELS, ids=[m[0] for m in MODELS])
def test_front_end_folds_shapes_and_keeps_the_outputs(npusim, name, path, shapes, tmp_path):
    dump = front_end_dump(npusim, path, shapes, tmp_path)
    lowered = onnx.load(str(dump))
    initializers = {i.name for i in lowered.graph.initializer}
    for node in lowered.graph.node:
        assert node.op_type not in SHAPE_OPS, f"{node.name} ({node.op_type}) is still in the graph"
        inputs = [i for i in node.input if i]
        assert not inputs or not all(i in initializers for i in inputs), f"{node.name} ({node.op_type}) has only constant inputs"
    known = {}
    for v in list(lowered.graph.value_info) + list(lowered.graph.output) + list(lowered.graph.input):
        dims = v.type.tensor_type.shape.dim
        known[v.name] = v.type.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims)
    read = {i for node in lowered.graph.node for i in node.input} | {o.name for o in lowered.graph.output}
    for node in lowered.graph.node:
        for out in node.output:
            if out in read:
                assert known.get(out), f"{node.name} ({node.op_type}): output {out} has no static shape"

    original = onnx.load(str(path))
    feeds = random_inputs(original, shapes)
    expected, names = ort_run(original.SerializeToString(), feeds)
    got, got_names = ort_run(lowered.SerializeToString(), feeds)
    got = dict(zip(got_names, got))
    for out_name, value in zip(names, expected):
        assert out_name in got, f"output {out_name} is missing from the lowered graph"
        assert got[out_name].shape == value.shape, out_name
        c = cosine(got[out_name], value)
        assert c >= 0.9999, f"{out_name}: cosine {c:.6f}"


# Old-opset node tests: test name -> reason it cannot pass (reported as xfail, never skipped).
OLD_OPSET_EXCEPTIONS = {}


def old_opset_tests():
    out = []
    run_all = os.environ.get("NPUSIM_OLD_OPSET_TESTS") == "all"
    index = 0
    for folder in ("pytorch-converted", "pytorch-operator"):
        for d in sorted((TESTDATA / folder).glob("test_*")):
            if (d / "model.onnx").exists():
                index += 1
                if not run_all and "3d" not in d.name and (index - 1) % 3:
                    continue
                reason = OLD_OPSET_EXCEPTIONS.get(d.name)
                marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
                out.append(pytest.param(d, id=f"{folder}-{d.name}", marks=marks))
    return out


OLD_OPSET = old_opset_tests()


def test_old_opset_node_tests_are_installed():
    assert len(OLD_OPSET) > 40, f"{TESTDATA}: Debian's libonnx-testdata is missing (scripts/setup.sh)"


@pytest.mark.parametrize("test_dir", OLD_OPSET)
def test_old_opset_node_test(npusim, test_dir, tmp_path):
    model = onnx.load(str(test_dir / "model.onnx"))
    initializers = {i.name for i in model.graph.initializer}
    inputs = [i.name for i in model.graph.input if i.name not in initializers]
    data = sorted(test_dir.glob("test_data_set_*"))[0]
    args = ["run", test_dir / "model.onnx", "--config", CONFIG, "--precision", "fp16", "--save-outputs", tmp_path,
            "--quiet"]
    for k, name in enumerate(inputs):
        args += ["--input", f"{name}={data / f'input_{k}.pb'}"]
    result = npusim(*args)
    assert result.code == 0, result.err
    for k, out in enumerate(model.graph.output):
        expected = numpy_helper.to_array(onnx.load_tensor(str(data / f"output_{k}.pb")))
        got = np.load(tmp_path / f"{out.name}.npy")
        assert got.shape == expected.shape, out.name
        # FP16 on the NPU: 1e-3 relative (as test_node_tests.py), looser absolute for sums of many terms
        assert np.allclose(got, expected, rtol=2e-3, atol=2e-3, equal_nan=True), f"{out.name}: max abs error {np.abs(got - expected).max():.3g}"


def write_model(path, nodes, opset=17, extra_domains=()):
    from onnx import TensorProto, helper
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in extra_domains]
    onnx.save(helper.make_model(graph, opset_imports=imports, ir_version=8), str(path))
    return path


def test_an_op_of_an_unknown_domain_is_one_error_line_naming_the_node(npusim, tmp_path):
    from conftest import assert_one_line_error
    from onnx import helper
    model = write_model(tmp_path / "custom.onnx", [helper.make_node("Frobnicate", ["x"], ["y"], name="the_frob",
                                                                    domain="com.example")],
                        extra_domains=["com.example"])
    result = npusim("compile", model, "--config", CONFIG, "-o", tmp_path / "m.npuprog")
    assert_one_line_error(result, "node 'the_frob' (Frobnicate)", "domain 'com.example'")


def test_a_shape_left_dynamic_names_the_tensor_and_the_node_that_made_it(npusim, tmp_path):
    from conftest import assert_one_line_error
    from onnx import helper
    model = write_model(tmp_path / "nonzero.onnx", [
        helper.make_node("NonZero", ["x"], ["idx"], name="where_nonzero"),
        helper.make_node("Cast", ["idx"], ["y"], name="to_float", to=onnx.TensorProto.FLOAT)])
    strict = npusim("compile", model, "--config", CONFIG, "-o", tmp_path / "m.npuprog", "--strict")
    assert_one_line_error(strict, "tensor 'idx'", "node 'where_nonzero' (NonZero)", "--strict")
    # without --strict it compiles (the dynamic part runs on the CPU) and warns once, naming both
    relaxed = npusim("compile", model, "--config", CONFIG, "-o", tmp_path / "m.npuprog", "--precision", "fp16")
    assert relaxed.code == 0, relaxed.err
    warnings = [l for l in relaxed.err.splitlines() if "dynamic shape" in l]
    assert len(warnings) == 1 and "tensor 'idx'" in warnings[0] and "node 'where_nonzero'" in warnings[0], relaxed.err
