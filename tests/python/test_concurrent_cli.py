"""`npusim concurrent`: several models on one simulated NPU, each on its engines, sharing the DDR."""
import json
import os
import pathlib
import sys

import pytest

from conftest import assert_one_line_error

TINY = "models/tiny_convnet.onnx"
CNN = "models/exported/fashion_mnist_cnn.onnx"
SQUEEZE = "models/exported/squeezenet1_1.onnx"


@pytest.fixture
def two_engines(root, tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(f"base: {root / 'configs' / 'default.yaml'}\nname: default-x2\nengines:\n  count: 2\n")
    return path


def test_two_models_together_beat_one_after_another(npusim, root, tmp_path, two_engines):
    out = tmp_path / "c.json"
    r = npusim("concurrent", root / SQUEEZE, root / CNN, "-c", two_engines, "--json", out, "--trace", tmp_path / "t.json")
    assert r.code == 0, r.err
    c = json.loads(out.read_text())
    squeeze, cnn = c["models"]
    assert (squeeze["first_engine"], squeeze["engine_count"]) == (0, 1)
    assert (cnn["first_engine"], cnn["engine_count"]) == (1, 1)
    for m in c["models"]:
        assert m["together_cycles"] >= m["solo_cycles"] > 0   # sharing the DDR never helps
    assert c["makespan_cycles"] == max(m["together_cycles"] for m in c["models"])
    assert c["makespan_cycles"] < c["sum_solo_cycles"]
    assert "slowdown" in r.out and "makespan" in r.out
    trace = json.loads((tmp_path / "t.json").read_text())
    assert {e["pid"] for e in trace["traceEvents"] if e.get("ph") == "X"} == {1, 2}   # a group per engine


def test_alone_is_the_models_own_timing_only_run(npusim, root, tmp_path, two_engines):
    """A model's `alone` figure is what `npusim run --timing-only` gives it on a one-engine NPU."""
    out, run = tmp_path / "c.json", tmp_path / "r.json"
    assert npusim("concurrent", root / TINY, root / CNN, "-c", two_engines, "--json", out).code == 0
    assert npusim("run", root / TINY, "-c", root / "configs" / "default.yaml", "--timing-only",
                  "--json", run, "--quiet").code == 0
    assert json.loads(out.read_text())["models"][0]["solo_cycles"] == json.loads(run.read_text())["cycles"]


@pytest.mark.parametrize("spec, needles", [
    ("tiny_convnet=0-1,fashion_mnist_cnn=1", ["engine 1 is already tiny_convnet's"]),
    ("tiny_convnet=0,fashion_mnist_cnn=1-2", ["engines 1-2 are not within the config's 0-1"]),
    ("tiny_convnet=0,resnet=1", ["no model named resnet"]),
    ("tiny_convnet=0", ["gives fashion_mnist_cnn no engines"]),
    ("tiny_convnet:0,fashion_mnist_cnn=1", ["expected NAME=FIRST-LAST"]),
])
def test_bad_engine_assignments_are_one_line(npusim, root, two_engines, spec, needles):
    r = npusim("concurrent", root / TINY, root / CNN, "-c", two_engines, "--engines", spec)
    assert_one_line_error(r, *needles)


def test_a_model_with_cpu_steps_is_refused_by_name(npusim, root, tmp_path, two_engines):
    from onnx import TensorProto, helper, save
    # LpNormalization has no NPU instruction: a CPU step between two NPU ones.
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("LpNormalization", ["r"], ["n"], axis=1),
             helper.make_node("Relu", ["n"], ["y"])]
    graph = helper.make_graph(nodes, "cpu_step", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 4, 4])])
    model = tmp_path / "with_cpu_step.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(model))
    r = npusim("concurrent", root / TINY, model, "-c", two_engines)
    assert_one_line_error(r, "with_cpu_step.onnx", "whole on the NPU")


def test_python_concurrent_matches_the_cli(npusim, root, tmp_path, two_engines):
    sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(pathlib.Path(__file__).resolve().parents[2] / "build" / "python")))
    import npusim as nps
    out = tmp_path / "c.json"
    assert npusim("concurrent", root / TINY, root / CNN, "-c", two_engines, "--json", out).code == 0
    py = nps.concurrent([root / TINY, root / CNN], two_engines, engines={"tiny_convnet": (1, 1), "fashion_mnist_cnn": (0, 0)})
    cli = json.loads(out.read_text())
    # Swapped engines: each model's own figures are the same on an engine of the same kind.
    assert [m["solo_cycles"] for m in py["models"]] == [m["solo_cycles"] for m in cli["models"]]
    assert [m["first_engine"] for m in py["models"]] == [1, 0]
