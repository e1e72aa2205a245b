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


@pytest.fixture(scope="module")
def three_conv_cnn(tmp_path_factory):
    """Three Conv(+bias)+Relu blocks on 1x3x32x32: every layer is real work for the NPU and for
    OpenVINO's CPU plugin, which renames each (the Conv without its bias, the Relu fused)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper, save
    rng = np.random.default_rng(7)
    nodes, inits, prev, channels = [], [], "x", 3
    for i in range(3):
        w = numpy_helper.from_array(rng.normal(0, 0.2, (16, channels, 3, 3)).astype(np.float32), f"w{i}")
        b = numpy_helper.from_array(rng.normal(0, 0.1, (16,)).astype(np.float32), f"b{i}")
        inits += [w, b]
        nodes.append(helper.make_node("Conv", [prev, f"w{i}", f"b{i}"], [f"conv{i}_out"], name=f"conv{i}",
                                      pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
        nodes.append(helper.make_node("Relu", [f"conv{i}_out"], [f"relu{i}_out"], name=f"relu{i}"))
        prev, channels = f"relu{i}_out", 16
    graph = helper.make_graph(nodes, "three_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16, 32, 32])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path_factory.mktemp("models") / "three_conv.onnx"
    save(model, str(path))
    return path


def test_devices_lists_every_backend_with_a_reason(npusim):
    r = npusim("devices")
    assert r.code == 0, r.err
    for name in ["sim", "openvino:NPU", "openvino:GPU", "openvino:CPU", "ort:cpu", "ort:qnn", "ort:openvino", "litert:cpu"]:
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


def test_openvino_cpu_per_layer_times_every_simulated_layer(npusim, tmp_path, three_conv_cnn):
    require_device("openvino:CPU")
    r, report = compare(npusim, tmp_path, three_conv_cnn, "openvino:CPU",
                        extra=("--timing-only", "--per-layer", "--layer-runs", "3"))
    assert "per layer against openvino:CPU" in r.out
    devices = by_device(report)
    ov, sim = devices["openvino:CPU"], devices["sim"]
    rows = ov["per_layer"]["rows"]
    # every layer the simulated NPU runs has OpenVINO's time for the ONNX nodes it fused
    npu_layers = {p["node"] for p in sim["placement"] if p["device"].endswith("NPU")}
    assert npu_layers == {"conv0", "conv1", "conv2"}
    by_layer = {row["layer"]: row for row in rows}
    for layer in npu_layers:
        row = by_layer[layer]
        assert row["sim_layers"] == [layer] and row["measured_us"] > 0 and row["sim_us"] > 0, row
        # OpenVINO names the Conv without its bias "conv0/WithoutBiases" and fuses the Relu into it
        assert row["runtime_nodes"] == [f"{layer}/WithoutBiases"] and row["onnx_nodes"] == [layer], row
        assert row["ratio"] == pytest.approx(row["sim_us"] / row["measured_us"])
    gaps = [abs(row["sim_us"] - row["measured_us"]) for row in rows]
    assert gaps == sorted(gaps, reverse=True)
    # the layout Reorders OpenVINO inserts around the convolutions are a row of their own, not lost
    internal = by_layer["openvino-internal: Reorder"]
    assert internal["sim_layers"] == [] and internal["measured_us"] > 0 and internal["runtime_nodes"]
    assert "openvino-internal: Reorder" in r.out
    # Every profiled layer lands in exactly one row. The profiled node times (a separately compiled,
    # profiled model: they leave out OpenVINO's per-inference overhead outside the layers) are
    # scaled to the measured median, so the rows add up to it.
    profiled = ov["layer_times"]
    assert sorted(n for row in rows for n in row["runtime_nodes"]) == sorted(t["node"] for t in profiled)
    assert ov["per_layer"]["profiled_total_us"] == pytest.approx(sum(t["time_us"] for t in profiled))
    median = ov["latency_us"]["median"]
    assert sum(row["measured_us"] for row in rows) == pytest.approx(median, rel=1e-9)
    assert ov["per_layer"]["measured_total_us"] == pytest.approx(median, rel=1e-9)
