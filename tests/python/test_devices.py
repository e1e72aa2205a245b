"""Real-device back ends on a machine without an NPU: openvino:CPU and ort:cpu run real models
through the code paths openvino:NPU and ort:qnn use (only the device/provider name differs);
ort:qnn runs on the HTP emulator where onnxruntime-qnn provides it; missing devices and
libraries are one-line errors with a reason."""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from conftest import NPUSIM, ROOT

TINY = ROOT / "models" / "tiny_convnet.onnx"
COSINE_MIN = 0.9999


def devices_status(env=None):
    proc = subprocess.run([str(NPUSIM), "devices", "--json"], capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    return {d["device"]: d for d in json.loads(proc.stdout[proc.stdout.index("["):])}


def require_device(name):
    status = devices_status()[name]
    if not status["available"]:
        reason = f"{name} is not available here: {status['reason']}"
        print(reason)
        pytest.skip(reason)


def compare(npusim, tmp_path, model, *devices, extra=()):
    out = tmp_path / "compare.json"
    args = ["compare", model, "-c", ROOT / "configs" / "default.yaml", "--runs", "3", "--warmup", "1",
            "--json", out, *extra]
    for d in devices:
        args += ["--device", d]
    r = npusim(*args)
    assert r.code == 0, r.err
    return r, json.loads(out.read_text())


def by_device(report):
    return {d["device"]: d for d in report["devices"]}


@pytest.fixture(scope="module")
def resnet18(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(out), "--only", "resnet18",
                    "--input-size", "32"], check=True, capture_output=True, timeout=300)
    return out / "resnet18.onnx"


@pytest.fixture(scope="module")
def hardmax_model(tmp_path_factory):
    """Relu then Hardmax: QNN's HTP takes the Relu but not the Hardmax."""
    from onnx import TensorProto, helper, save
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu0"),
             helper.make_node("Hardmax", ["r"], ["y"], name="odd_op")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8, 8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("models") / "hardmax.onnx"
    save(model, str(path))
    return path


def test_devices_lists_every_backend_with_a_reason(npusim):
    r = npusim("devices")
    assert r.code == 0, r.err
    for name in ["sim", "openvino:NPU", "openvino:GPU", "openvino:CPU", "ort:cpu", "ort:qnn", "ort:openvino"]:
        line = next(l for l in r.out.splitlines() if l.startswith(name + " "))
        assert "available" in line
        if "not available" in line:
            assert len(line.split("not available:", 1)[1].strip()) > 10, line


def test_openvino_npu_without_an_npu_is_one_line_and_nonzero(npusim):
    if not pathlib.Path("/dev/accel/accel0").exists():
        status = devices_status()["openvino:NPU"]
        assert not status["available"]
        assert "/dev/accel/accel0" in status["reason"]
    r = npusim("compare", TINY, "-c", ROOT / "configs" / "intel-npu-lunar-lake.yaml", "--device", "openvino:NPU")
    if devices_status()["openvino:NPU"]["available"]:
        pytest.skip("this machine has an Intel NPU")
    assert r.code == 1
    assert r.out == ""
    assert r.err.count("\n") == 1
    assert r.err.startswith("npusim compare: error: device openvino:NPU is not available: ")


def test_tiny_model_on_openvino_cpu_and_ort_cpu_matches_fp32(npusim, tmp_path):
    require_device("openvino:CPU")
    _, report = compare(npusim, tmp_path, TINY, "openvino:CPU", "ort:cpu")
    devices = by_device(report)
    for name in ["openvino:CPU", "ort:cpu"]:
        d = devices[name]
        assert d["outputs"] and all(o["cosine"] >= COSINE_MIN for o in d["outputs"]), d["outputs"]
        assert d["latency_us"]["median"] > 0 and len(d["latency_us"]["runs"]) == 3
        assert d["placement"] and d["fallback_nodes"] == 0
    assert {p["device"] for p in devices["openvino:CPU"]["placement"]} == {"CPU"}
    assert all(p["exec_type"] for p in devices["openvino:CPU"]["placement"])
    assert {p["device"] for p in devices["ort:cpu"]["placement"]} == {"CPUExecutionProvider"}
    assert {p["node"] for p in devices["ort:cpu"]["placement"]} >= {"stem_conv", "fc"}


def test_resnet18_table_and_json_agree(npusim, tmp_path, resnet18):
    require_device("openvino:CPU")
    r, report = compare(npusim, tmp_path, resnet18, "openvino:CPU", "ort:cpu")
    devices = by_device(report)
    assert devices["sim"]["simulated"] and devices["sim"]["latency_us"]["median"] > 0
    rows = {l.split()[0]: l for l in r.out.splitlines() if re.match(r"^(sim|openvino:CPU|ort:cpu) ", l)}
    for name in ["openvino:CPU", "ort:cpu"]:
        d = devices[name]
        assert d["outputs"][0]["cosine"] >= COSINE_MIN
        assert f"{d['outputs'][0]['cosine']:.6f}" in rows[name]
        assert f"{d['sim_over_measured']:.3f}" in rows[name]
        median = d["latency_us"]["median"]
        shown = f"{median / 1000:.2f} ms" if median >= 10000 else f"{median:.1f} us"
        assert shown in rows[name]
        assert f"placement on {name} ({len(d['placement'])} nodes/layers" in r.out
    sim_median = devices["sim"]["latency_us"]["median"]
    assert (f"{sim_median / 1000:.2f} ms*" if sim_median >= 10000 else f"{sim_median:.1f} us*") in rows["sim"]
    assert "CPU FALLBACK" not in r.out


def test_ort_qnn_on_the_htp_emulator(npusim, tmp_path):
    require_device("ort:qnn")
    _, report = compare(npusim, tmp_path, TINY, "ort:qnn")
    d = by_device(report)["ort:qnn"]
    assert all(o["cosine"] >= COSINE_MIN for o in d["outputs"]), d["outputs"]
    assert d["fallback_nodes"] == 0
    assert {p["device"] for p in d["placement"]} == {"QNNExecutionProvider"}


def test_fallback_is_flagged_and_strict_names_the_node(npusim, tmp_path, hardmax_model):
    require_device("ort:qnn")
    r, report = compare(npusim, tmp_path, hardmax_model, "ort:qnn")
    d = by_device(report)["ort:qnn"]
    assert d["fallback_nodes"] == 1
    assert [p["node"] for p in d["placement"] if p["fallback"]] == ["odd_op"]
    assert "!! CPU FALLBACK on ort:qnn: 1 node(s) did not run on the requested device: odd_op (Hardmax)" in r.out

    strict = npusim("compare", hardmax_model, "-c", ROOT / "configs" / "default.yaml", "--device", "ort:qnn", "--strict")
    assert strict.code == 1
    errors = [l for l in strict.err.splitlines() if l.startswith("npusim")]
    assert errors == ["npusim compare: error: ort:qnn --strict: 1 node(s) would fall back from QNNExecutionProvider: "
                      "odd_op (Hardmax) on CPUExecutionProvider"]


def test_missing_openvino_library_is_a_clear_reason(npusim):
    env = dict(os.environ, NPUSIM_OPENVINO_LIB="/nonexistent")
    status = devices_status(env)
    for name in ["openvino:NPU", "openvino:CPU", "openvino:GPU"]:
        assert status[name]["reason"] == "NPUSIM_OPENVINO_LIB=/nonexistent: no such file or directory"
    proc = subprocess.run([str(NPUSIM), "compare", str(TINY), "-c", str(ROOT / "configs" / "default.yaml"),
                           "--device", "openvino:CPU"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1
    assert proc.stderr == ("npusim compare: error: device openvino:CPU is not available: "
                           "NPUSIM_OPENVINO_LIB=/nonexistent: no such file or directory\n")


def test_onnxruntime_too_old_for_the_qnn_plugin_is_a_version_mismatch(tmp_path):
    """An onnxruntime without the plugin-EP API (as 1.20 was) in front of the real one."""
    fake = tmp_path / "onnxruntime"
    fake.mkdir()
    (fake / "__init__.py").write_text('__version__ = "1.20.1"\n'
                                      'def get_available_providers():\n    return ["CPUExecutionProvider"]\n')
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    status = devices_status(env)
    if "onnxruntime-qnn" not in " ".join(status["ort:qnn"]["versions"]):
        pytest.skip(f"onnxruntime-qnn is not installed: {status['ort:qnn']['reason']}")
    reason = status["ort:qnn"]["reason"]
    assert reason.startswith("version mismatch: onnxruntime 1.20.1 cannot load plugin execution providers; "
                             "onnxruntime-qnn ")
    assert "needs onnxruntime>=" in reason
