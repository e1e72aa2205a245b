"""The Python package against the CLI: same outputs, cycles and error lines; many runs in
one process; zero-copy outputs; the report's per-layer frame."""
import json
import os
import pathlib
import pickle
import sys
import threading

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from conftest import run_npusim  # noqa: E402

TINY = ROOT / "models" / "tiny_convnet.onnx"


def tiny_input(session, seed=0):
    desc = session.inputs[0]
    return desc["name"], np.random.default_rng(seed).standard_normal(desc["shape"]).astype(np.float32)


@pytest.mark.parametrize("config,precision", [("default", "int8"), ("tiny-8x8", "fp16")])
def test_outputs_and_cycles_equal_the_cli(tmp_path, config, precision):
    cfg = ROOT / "configs" / f"{config}.yaml"
    session = npusim.compile(TINY, cfg, precision=precision)
    name, x = tiny_input(session)
    np.save(tmp_path / "x.npy", x)
    cli = run_npusim("run", TINY, "-c", cfg, "--precision", precision, "--input", f"{name}={tmp_path / 'x.npy'}",
                 "--save-outputs", tmp_path / "out", "--json", tmp_path / "r.json", "-q")
    assert cli.code == 0, cli.err
    cli_report = json.loads((tmp_path / "r.json").read_text())

    outputs, report = session.run({name: x})
    for out_name, array in outputs.items():
        expected = np.load(tmp_path / "out" / f"{out_name.replace('/', '_')}.npy")
        assert array.dtype == expected.dtype and array.shape == expected.shape
        np.testing.assert_array_equal(array, expected)
    for key in ("cycles", "latency_us", "macs", "mac_utilization", "ddr", "sram", "layers", "steps"):
        assert report[key] == cli_report[key], key

    _, timing = session.run({name: x}, timing_only=True)
    assert timing["cycles"] == cli_report["cycles"] and timing["timing_only"]


def test_fifty_runs_in_one_process():
    base = npusim.compile(TINY, ROOT / "configs" / "default.yaml")
    other = base.with_config(ROOT / "configs" / "seed-5.7tops.yaml")
    name, x = tiny_input(base)
    first_out, first = base.run({name: x})
    other_cycles = other.run(timing_only=True)[1]["cycles"]
    for i in range(50):
        if i % 2:
            assert other.run(timing_only=True)[1]["cycles"] == other_cycles
        else:
            out, report = base.run({name: x})
            assert report["cycles"] == first["cycles"]
            for k in out:
                np.testing.assert_array_equal(out[k], first_out[k])


def test_outputs_are_writable_views_of_the_runtime_buffer():
    session = npusim.compile(TINY, ROOT / "configs" / "default.yaml")
    outputs, _ = session.run(dict([tiny_input(session)]))
    array = next(iter(outputs.values()))
    assert not array.flags.owndata and array.base is not None and array.flags.writeable
    array[...] = 0  # the caller owns it now


def test_report_layers_frame():
    session = npusim.compile(TINY, ROOT / "configs" / "default.yaml")
    _, report = session.run(timing_only=True)
    frame = report.layers_frame()
    assert len(frame) == len(report["layers"]) > 0
    assert {"name", "op", "macs"} <= set(frame.columns)
    assert report["energy"]["total_uj"] > 0  # default.yaml has an energy table


def test_config_from_dict_edits_and_pickle():
    cfg = npusim.load_config(ROOT / "configs" / "default.yaml")
    tree = npusim.config_to_dict(cfg)
    assert npusim.load_config(tree).yaml() == cfg.yaml()
    bigger = npusim.with_values(cfg, {"mac_array.rows": 64, "sram.capacity_kib": 2048})
    assert bigger.macs == 64 * 32 and "capacity_kib: 2048" in bigger.yaml()
    assert pickle.loads(pickle.dumps(bigger)) == bigger


def test_config_keys_give_choice_names_defaults_and_meanings():
    # From the C++ schema and its name tables (hwconfig/config_schema.cpp, config_choices.def).
    keys = {k["path"]: k for k in npusim.config_keys()}
    model = keys["ddr.model"]
    assert model["kind"] == "choice" and model["choices"] == "simple|banked|dram|ideal"
    assert model["default"] == "simple" and model["meaning"] == "timing model"
    assert model["choice_descriptions"]["ideal"] == "zero latency, infinite bandwidth: memory never stalls"
    assert keys["dma.channel_queue"]["choices"] == "serial|pipelined"
    assert keys["ddr.bandwidth_gbps"]["default"] == "25.6" and keys["ddr.bandwidth_gbps"]["choice_descriptions"] == {}
    # A sweep value is a name, as in YAML.
    piped = npusim.with_values(npusim.load_config(ROOT / "configs" / "default.yaml"), {"dma.channel_queue": "pipelined"})
    assert "channel_queue: pipelined" in piped.yaml()
    with pytest.raises(npusim.ConfigError, match=r"dma.channel_queue: must be one of serial, pipelined \(got \"fifo\"\)"):
        npusim.with_values(piped, {"dma.channel_queue": "fifo"})


def test_errors_carry_the_cli_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "configs" / "default.yaml").read_text().replace("capacity_kib: 1024", "capacity_kib: -4"))
    cli = run_npusim("run", TINY, "-c", bad, "-q")
    cli_line = cli.err.strip().split(": error: ", 1)[1]
    with pytest.raises(npusim.ConfigError) as err:
        npusim.compile(TINY, bad)
    assert str(err.value) == cli_line and isinstance(err.value, ValueError)

    with pytest.raises(npusim.Error, match="cannot open file"):
        npusim.compile(tmp_path / "missing.onnx", ROOT / "configs" / "default.yaml")
    session = npusim.compile(TINY, ROOT / "configs" / "default.yaml")
    with pytest.raises(npusim.Error, match="input"):
        session.run({"input": np.zeros((1, 3, 8, 8), np.float32)})
    with pytest.raises(npusim.Error, match="nope"):
        session.run({"nope": np.zeros((1, 3, 32, 32), np.float32)})


def test_runs_from_threads_take_turns():
    session = npusim.compile(TINY, ROOT / "configs" / "default.yaml")
    expected = session.run(timing_only=True)[1]["cycles"]
    seen = []

    def work():
        for _ in range(5):
            seen.append(session.run(timing_only=True)[1]["cycles"])

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [expected] * 15


def erf_model(path):
    """Conv + Relu on the NPU, then Hardmax, which falls back to ONNX Runtime on the CPU."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    w = numpy_helper.from_array((np.random.default_rng(1).standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Hardmax", ["r"], ["y"], name="my_hardmax")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def test_cpu_fallback_runs_on_the_running_interpreter(tmp_path):
    # ONNX Runtime is called through the interpreter this test runs in: the binding releases
    # the GIL around the run and the CPU step takes it back.
    model = erf_model(tmp_path / "erf.onnx")
    cfg = ROOT / "configs" / "default.yaml"
    session = npusim.compile(model, cfg)
    x = np.random.default_rng(2).standard_normal((1, 3, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    cli = run_npusim("run", model, "-c", cfg, "--input", f"x={tmp_path / 'x.npy'}", "--save-outputs", tmp_path / "o",
                     "--json", tmp_path / "r.json", "-q")
    assert cli.code == 0, cli.err
    for _ in range(10):
        outputs, report = session.run({"x": x})
        assert [f["node"] for f in report["fallbacks"]] == ["my_hardmax"] and report["transitions"] == 1
        np.testing.assert_array_equal(outputs["y"], np.load(tmp_path / "o" / "y.npy"))
    with pytest.raises(npusim.CompileError, match="my_hardmax"):
        npusim.compile(model, cfg, strict=True)
