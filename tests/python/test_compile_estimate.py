"""`npusim compile --json`: the estimated cycles are the timing core's, the same run a timing-only
simulation of the compiled program makes, so they equal `npusim run --timing-only`'s cycles."""
import json

import pytest

# (model, precision): a CNN, an exported CNN, a transformer block, and a decoder step whose
# fp16 program has CPU steps between its NPU steps.
MODELS = [("models/tiny_convnet.onnx", "int8"), ("models/exported/squeezenet1_1.onnx", "int8"),
          ("models/exported/transformer_encoder.onnx", "int8"), ("models/exported/gpt_tiny_decode.onnx", "fp16")]
PRESETS = ["default.yaml", "npu-40tops-55gbps.yaml", "intel-npu-lunar-lake.yaml", "default-dram.yaml"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("preset", PRESETS)
def test_estimated_cycles_equal_the_timing_only_run(npusim, root, tmp_path, model, preset):
    model, precision = model
    config = root / "configs" / preset
    prog, summary, report = tmp_path / "m.npuprog", tmp_path / "c.json", tmp_path / "r.json"
    r = npusim("compile", root / model, "-c", config, "--precision", precision, "-o", prog, "--json", summary, "-q")
    assert r.code == 0, r.err
    compiled = json.loads(summary.read_text())
    npu_steps = [s for s in compiled["steps"] if s["kind"] == "npu"]
    assert npu_steps and all(s["estimated_cycles"] > 0 for s in npu_steps)
    assert compiled["estimated_cycles"] == sum(s["estimated_cycles"] for s in npu_steps)
    r = npusim("run", prog, "-c", config, "--timing-only", "--json", report, "--quiet")
    assert r.code == 0, r.err
    run = json.loads(report.read_text())
    assert compiled["estimated_cycles"] == run["cycles"]
    # Step by step too: a model with CPU steps has several NPU steps.
    simulated = [s["cycles"] for s in run["steps"] if s["kind"] == "npu"]
    assert [s["estimated_cycles"] for s in npu_steps] == simulated


def test_compile_json_to_an_unwritable_path_is_one_line(npusim, root, tmp_path):
    from conftest import assert_one_line_error
    r = npusim("compile", root / "models/tiny_convnet.onnx", "-c", root / "configs/default.yaml",
               "-o", tmp_path / "m.npuprog", "--json", tmp_path / "missing" / "c.json", "-q")
    assert_one_line_error(r, "c.json", "cannot write")


# Several engines: each NPU step's streams run on their engines in the timing core, and the
# compile's estimate is that same run. `rows` splits every layer that can be (auto may find
# engine 0 alone faster for a small model); `auto` as compiled by default.
ENGINE_MODELS = ["models/tiny_convnet.onnx", "models/exported/squeezenet1_1.onnx"]


@pytest.mark.parametrize("model", ENGINE_MODELS)
@pytest.mark.parametrize("engines", [2, 4])
@pytest.mark.parametrize("split", ["rows", "auto"])
def test_estimated_cycles_equal_the_timing_only_run_on_several_engines(npusim, root, tmp_path, model, engines, split):
    config = tmp_path / f"default-x{engines}.yaml"
    config.write_text((root / "configs/default.yaml").read_text() + f"\nengines:\n  count: {engines}\n")
    prog, summary, report = tmp_path / "m.npuprog", tmp_path / "c.json", tmp_path / "r.json"
    r = npusim("compile", root / model, "-c", config, "-o", prog, "--json", summary, "-q", "--engine-split", split)
    assert r.code == 0, r.err
    compiled = json.loads(summary.read_text())
    if split == "rows":
        assert any(" engines by rows " in layer.get("mapping", "") for layer in compiled["layers"])
    r = npusim("run", prog, "-c", config, "--timing-only", "--json", report, "--quiet")
    assert r.code == 0, r.err
    run = json.loads(report.read_text())
    assert compiled["estimated_cycles"] == run["cycles"]
