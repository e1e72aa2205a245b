"""Python only where it is needed: a run whose CPU steps the FP32 evaluator covers never loads
libpython (runtime/python_bridge.h); a step it does not cover still runs, on ONNX Runtime
through the bridge; and the extension module does not link a libpython of its own.

The dynamic loader's own log (LD_DEBUG=files) lists every library a process loads, dlopen()
included, so the check holds whatever the code does."""
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import NPUSIM, ROOT


def conv_then(op, path):
    """Conv (NPU) followed by `op` (a CPU step: the NPU has no kernel for Neg or LpNormalization)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])
    w = numpy_helper.from_array(np.random.RandomState(0).randn(4, 4, 3, 3).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node(op, ["c"], ["y"], name=op.lower())]
    graph = helper.make_graph(nodes, "g", [x], [y], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def run_logged(tmp_path, model):
    """`npusim run` in FP16 (close to FP32, so outputs compare with ORT); returns the loaded
    files, the output and the report."""
    x = np.random.RandomState(1).randn(1, 4, 8, 8).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    env = dict(os.environ, LD_DEBUG="files")
    proc = subprocess.run([str(NPUSIM), "run", str(model), "-c", str(ROOT / "configs/tiny-8x8.yaml"),
                           "--precision", "fp16", "--input", f"x={tmp_path / 'x.npy'}",
                           "--save-outputs", str(tmp_path / "out")],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = [l for l in proc.stderr.splitlines() if "file=" in l]
    expected = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    return loaded, np.load(tmp_path / "out" / "y.npy"), expected, proc.stdout


def test_model_without_cpu_steps_loads_no_python(tmp_path):
    env = dict(os.environ, LD_DEBUG="files")
    proc = subprocess.run([str(NPUSIM), "run", str(ROOT / "models/tiny_convnet.onnx"), "-c",
                           str(ROOT / "configs/tiny-8x8.yaml"), "--quiet"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = [l for l in proc.stderr.splitlines() if "file=" in l]
    assert any("libsystemc" in l for l in loaded)  # the log does list what was loaded
    assert not [l for l in loaded if "libpython" in l or "python_bridge" in l]


def test_cpu_step_the_evaluator_covers_runs_without_python(tmp_path):
    conv_then("Neg", tmp_path / "neg.onnx")
    loaded, got, expected, report = run_logged(tmp_path, tmp_path / "neg.onnx")
    assert "CPU fallback" in report
    assert not [l for l in loaded if "libpython" in l or "python_bridge" in l]
    np.testing.assert_allclose(got, expected, rtol=0, atol=2e-3 * np.abs(expected).max())


def test_cpu_step_beyond_the_evaluator_runs_on_onnxruntime(tmp_path):
    conv_then("LpNormalization", tmp_path / "lpnorm.onnx")  # no FP32 evaluator kernel
    loaded, got, expected, report = run_logged(tmp_path, tmp_path / "lpnorm.onnx")
    assert "CPU fallback" in report
    assert [l for l in loaded if "python_bridge" in l]
    assert [l for l in loaded if "libpython" in l]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-2)


def test_extension_module_links_no_libpython():
    modules = list((ROOT / "build/python/npusim").glob("_core*.so"))
    if not modules:
        pytest.fail("build/python/npusim/_core*.so is not built; run scripts/build.sh")
    needed = subprocess.run(["readelf", "-d", str(modules[0])], capture_output=True, text=True, check=True).stdout
    assert "NEEDED" in needed and "libsystemc" in needed
    assert "libpython" not in needed
