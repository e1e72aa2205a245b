"""`npusim calibrate`: fits recover known parameters; bad input is one clear line."""
import json
import subprocess
import sys
import re

import pytest

from conftest import assert_one_line_error

# Compute-bound, memory-bound and small (launch-dominated) models, so that the clock, the DDR
# bandwidth and the per-inference launch cost each move the latencies differently.
MODELS = [
    "models/tiny_convnet.onnx",
    "models/exported/fashion_mnist_cnn.onnx",
    "models/exported/squeezenet1_1.onnx",
    "models/exported/resnet_small_opset11.onnx",
    "models/exported/transformer_encoder.onnx",
    "models/exported/vgg_small_opset9.onnx",
]
# At 3.2 GB/s these models are partly bandwidth-bound: with the step scheduler hiding DMA
# behind compute, default.yaml's 25.6 GB/s moves their latencies by under 1 % per 5 % of
# bandwidth, too little to identify the key.
TRUTH = {"clock.frequency_mhz": 1000.0, "ddr.bandwidth_gbps": 3.2, "host.launch_us": 40.0}


def config(path, root, name, clock, bandwidth, launch):
    path.write_text(f"base: {root / 'configs/default.yaml'}\nname: {name}\n"
                    f"clock:\n  frequency_mhz: {clock}\nddr:\n  bandwidth_gbps: {bandwidth}\n"
                    f"host:\n  launch_us: {launch}\n")
    return path


@pytest.fixture
def simulated(npusim, root, tmp_path):
    """Latencies simulated on the true config, written as a measurement CSV."""
    truth = config(tmp_path / "truth.yaml", root, "truth", *TRUTH.values())
    rows = ["model,input_shape,precision,latency_ms"]
    for m in MODELS:
        out = tmp_path / "run.json"
        r = npusim("run", root / m, "-c", truth, "--timing-only", "--json", out, "-q")
        assert r.code == 0, r.err
        rows.append(f"{root / m},,int8,{json.loads(out.read_text())['latency_us'] / 1000:.9g}")
    csv = tmp_path / "simulated.csv"
    csv.write_text("\n".join(rows) + "\n")
    return csv


def fitted_value(yaml_text, section, key):
    block = yaml_text.split(f"\n{section}:\n", 1)[1]
    return float(re.search(rf"^  {key}: ([-0-9.e+]+)", block, re.M).group(1))


def test_calibrate_recovers_perturbed_keys(npusim, root, tmp_path, simulated):
    start = config(tmp_path / "start.yaml", root, "start", 1300, 2.4, 10)
    out = tmp_path / "fitted.yaml"
    r = npusim("calibrate", "-c", start, "-m", simulated, "--fit", ",".join(TRUTH), "-o", out)
    assert r.code == 0, r.err
    text = out.read_text()
    for path, want in TRUTH.items():
        section, key = path.split(".")
        got = fitted_value(text, section, key)
        assert abs(got / want - 1) <= 0.02, f"{path}: fitted {got}, true {want}"
        assert re.search(rf"{re.escape(path)}: \"fitted \d{{4}}-\d\d-\d\d simulated.csv", text), text
    # every other key as in the start config
    assert fitted_value(text, "dma", "setup_cycles") == 32
    assert "leave-one-out" in r.out and "median |error|" in r.out
    # the fitted config loads and reproduces a measurement
    check = tmp_path / "check.json"
    assert npusim("run", root / MODELS[2], "-c", out, "--timing-only", "--json", check, "-q").code == 0
    measured = float(simulated.read_text().splitlines()[3].split(",")[3]) * 1000
    assert abs(json.loads(check.read_text())["latency_us"] / measured - 1) < 0.01


def test_unknown_key_is_one_line(npusim, root, tmp_path, simulated):
    r = npusim("calibrate", "-c", root / "configs/default.yaml", "-m", simulated,
               "--fit", "clock.frequncy_mhz", "-o", tmp_path / "f.yaml")
    assert_one_line_error(r, "clock.frequncy_mhz", "did you mean clock.frequency_mhz")


def test_structural_key_is_refused(npusim, root, tmp_path, simulated):
    r = npusim("calibrate", "-c", root / "configs/default.yaml", "-m", simulated,
               "--fit", "mac_array.rows", "-o", tmp_path / "f.yaml")
    assert_one_line_error(r, "mac_array.rows", "not a fittable key")


def test_key_that_changes_no_latency_is_refused(npusim, root, tmp_path):
    csv = tmp_path / "m.csv"
    csv.write_text(f"model,input_shape,precision,latency_ms\n{root / MODELS[0]},,int8,0.05\n")
    # tiny_convnet runs wholly on the NPU: the host's memcpy bandwidth moves nothing
    r = npusim("calibrate", "-c", root / "configs/default.yaml", "-m", csv,
               "--fit", "host.memcpy_gbps", "-o", tmp_path / "f.yaml")
    assert_one_line_error(r, "host.memcpy_gbps", "nothing to fit")


def test_model_that_does_not_compile_is_one_line(npusim, root, tmp_path):
    (tmp_path / "broken.onnx").write_bytes(b"not a model")
    csv = tmp_path / "m.csv"
    csv.write_text("model,input_shape,precision,latency_ms\nbroken.onnx,,int8,1.0\n")
    r = npusim("calibrate", "-c", root / "configs/default.yaml", "-m", csv,
               "--fit", "clock.frequency_mhz", "-o", tmp_path / "f.yaml")
    assert_one_line_error(r, "m.csv:2", "broken.onnx", "does not compile")


def test_no_convergence_keeps_the_base(npusim, root, tmp_path, simulated):
    start = config(tmp_path / "start.yaml", root, "start", 1300, 2.4, 10)
    out = tmp_path / "f.yaml"
    r = npusim("calibrate", "-c", start, "-m", simulated, "--fit", ",".join(TRUTH),
               "--max-iterations", "1", "-o", out, "-q")
    assert_one_line_error(r, "did not converge", "keeps the base config")
    assert fitted_value(out.read_text(), "clock", "frequency_mhz") == 1300


def test_compare_per_layer_matches_ort_nodes_through_fusion(npusim, root, tmp_path):
    out = tmp_path / "compare.json"
    r = npusim("compare", root / "models/exported/resnet_small_opset11.onnx", "-c", root / "configs/laptop-cpu-host.yaml",
               "-d", "ort:cpu", "--timing-only", "--runs", "3", "--layer-runs", "2", "--per-layer", "--json", out)
    assert r.code == 0, r.err
    assert "per layer against ort:cpu" in r.out
    device = next(d for d in json.loads(out.read_text())["devices"] if d["device"] == "ort:cpu")
    per_layer = device["per_layer"]
    rows = per_layer["rows"]
    gaps = [abs(row["sim_us"] - row["measured_us"]) for row in rows]
    assert gaps == sorted(gaps, reverse=True)
    # the profiled node times are scaled to the measured median: nothing lost, nothing added (time
    # in no simulated layer has rows of its own, without sim_layers)
    total = sum(row["measured_us"] for row in rows)
    assert abs(total - device["latency_us"]["median"]) < 1e-6 * device["latency_us"]["median"] + 1e-6
    assert sum(len(row["runtime_nodes"]) for row in rows) == len(device["layer_times"])
    # ORT's renamed convolutions land on the simulated layers that fused them
    matched = sum(row["measured_us"] for row in rows if row["sim_layers"])
    assert matched > 0.9 * total
    conv1 = next(row for row in rows if row["layer"] == "/conv1/Conv")
    assert conv1["onnx_nodes"] and conv1["measured_us"] > 0 and conv1["sim_layers"] == ["/conv1/Conv"]


def test_per_layer_needs_a_real_device(npusim, root, tmp_path):
    r = npusim("compare", root / MODELS[0], "-c", root / "configs/default.yaml", "--timing-only", "--per-layer")
    assert_one_line_error(r, "--per-layer", "real device")


def test_config_show_prints_provenance(npusim):
    r = npusim("config", "show", "snapdragon-8-elite-htp-fitted", "--json")
    assert r.code == 0, r.err
    keys = {k["key"]: k for k in json.loads(r.out)["keys"]}
    assert keys["host.launch_us"]["origin"] == "fitted"
    assert "snapdragon-8-elite-ai-hub-v0.46.1.csv" in keys["host.launch_us"]["source"]
    # Physical keys stay physical: the published bandwidth is the base's, not fitted.
    assert keys["ddr.bandwidth_gbps"]["origin"] == "public" and keys["ddr.bandwidth_gbps"]["value"] == "84.8"
    assert keys["sram.alignment_bytes"]["origin"] == "public"
    assert keys["sram.capacity_kib"]["origin"] == "guess"
    assert_one_line_error(npusim("config", "show", "no-such-preset"), "no-such-preset", "no such config")


def test_snapdragon_fitted_predicts_held_out_ai_hub_figures(npusim, root, tmp_path):
    """The preset fitted to ResNet-50 alone predicts the published latencies it was never fitted
    to (configs/measurements/*-held-out.csv) within the issue's +-25 %. A schedule change that
    moves the simulated numbers fails this until the preset is refitted (the command is in
    configs/snapdragon-8-elite-htp-fitted.yaml)."""
    held_out = root / "configs/measurements/snapdragon-8-elite-ai-hub-held-out.csv"
    rows = [line.split(",") for line in held_out.read_text().splitlines()
            if line.strip() and not line.startswith("#")][1:]
    assert rows
    simulated_ms = {}
    for model, shape, precision, measured_ms in rows:
        name = model.rsplit("/", 1)[-1]
        if name not in simulated_ms:
            subprocess.run([sys.executable, str(root / "scripts/make_models.py"), "--out", str(tmp_path), "--only",
                            name.removesuffix(".onnx")], check=True, capture_output=True, timeout=300)
            out = tmp_path / "run.json"
            r = npusim("run", tmp_path / name, "-c", root / "configs/snapdragon-8-elite-htp-fitted.yaml",
                       "--timing-only", "--precision", precision, "--input-shape", f"input={shape}", "--json", out, "-q")
            assert r.code == 0, r.err
            simulated_ms[name] = json.loads(out.read_text())["latency_us"] / 1000
        error = simulated_ms[name] / float(measured_ms) - 1
        print(f"{name} {precision}: simulated {simulated_ms[name]:.4f} ms, published {measured_ms} ms, {error:+.1%}")
        assert abs(error) <= 0.25


def test_a_public_key_is_refused_unless_allowed(npusim, root, tmp_path, simulated):
    """A fitted preset keeps published figures: the base marks ddr.bandwidth_gbps public."""
    start = config(tmp_path / "start.yaml", root, "start", 1300, 2.4, 10)
    start.write_text(start.read_text() + 'provenance:\n  ddr.bandwidth_gbps: "public vendor datasheet"\n')
    r = npusim("calibrate", "-c", start, "-m", simulated, "--fit", "clock.frequency_mhz,ddr.bandwidth_gbps",
               "-o", tmp_path / "f.yaml", "--no-leave-one-out")
    assert_one_line_error(r, "--fit ddr.bandwidth_gbps", "marks it public (vendor datasheet)", "--allow-public")
    assert not (tmp_path / "f.yaml").exists()
    r = npusim("calibrate", "-c", start, "-m", simulated, "--fit", "clock.frequency_mhz,ddr.bandwidth_gbps",
               "-o", tmp_path / "f.yaml", "--no-leave-one-out", "--allow-public")
    assert r.code == 0, r.err


def test_each_fitted_key_has_an_uncertainty(npusim, root, tmp_path, simulated):
    """The recovery fits exact simulated latencies: each key's sigma is tiny against its value."""
    start = config(tmp_path / "start.yaml", root, "start", 1300, 2.4, 10)
    r = npusim("calibrate", "-c", start, "-m", simulated, "--fit", ",".join(TRUTH),
               "-o", tmp_path / "f.yaml", "--no-leave-one-out")
    assert r.code == 0, r.err
    assert "± 1 sigma" in r.out
    for key in TRUTH:
        row = next(l for l in r.out.splitlines() if l.startswith(key))
        fitted, sigma = float(row.split()[2]), float(row.split()[3])
        assert 0 <= sigma < 0.05 * fitted, row


def test_an_overfit_is_refused_unless_forced(npusim, root, tmp_path):
    """Two models whose measurements disagree with each other (one 3x slower than the model
    says, one 3x faster) fitted with a key each: the fit matches both, and each model predicted
    without it misses widely, far beyond twice the training error."""
    rows = ["model,input_shape,precision,latency_ms"]
    for m, factor in (("models/tiny_convnet.onnx", 3.0), ("models/exported/squeezenet1_1.onnx", 1 / 3)):
        out = tmp_path / "run.json"
        assert npusim("run", root / m, "-c", root / "configs/default.yaml", "--timing-only", "--json", out, "-q").code == 0
        rows.append(f"{root / m},,int8,{json.loads(out.read_text())['latency_us'] * factor / 1000:.9g}")
    csv = tmp_path / "m.csv"
    csv.write_text("\n".join(rows) + "\n")
    fit = ["--fit", "clock.frequency_mhz,host.launch_us", "-o", tmp_path / "f.yaml"]
    r = npusim("calibrate", "-c", root / "configs/default.yaml", "-m", csv, *fit)
    assert r.code != 0
    assert "more than twice the training error" in r.err and "--force" in r.err
    assert not (tmp_path / "f.yaml").exists()
    assert npusim("calibrate", "-c", root / "configs/default.yaml", "-m", csv, *fit, "--force").code == 0


def measured_on(npusim, root, tmp_path, truth, models, name):
    rows = ["model,input_shape,precision,latency_ms"]
    for m in models:
        out = tmp_path / "run.json"
        r = npusim("run", root / m, "-c", truth, "--timing-only", "--json", out, "-q")
        assert r.code == 0, r.err
        rows.append(f"{root / m},,int8,{json.loads(out.read_text())['latency_us'] / 1000:.9g}")
    csv = tmp_path / name
    csv.write_text("\n".join(rows) + "\n")
    return csv


def device(path, root, name, clock, dispatch_us):
    path.write_text(f"base: {root / 'configs/default.yaml'}\nname: {name}\nclock:\n  frequency_mhz: {clock}\n"
                    f"host:\n  layer_dispatch_us: {dispatch_us}\n")
    return path


def test_several_devices_share_the_fitted_keys(npusim, root, tmp_path):
    # Two chips (different clocks) behind one runtime whose per-layer dispatch costs 3 us: two
    # models measured on each; fitted together, the shared key comes back from a start of 0,
    # each device's own keys stay its own, and each fitted file names its own base.
    a = measured_on(npusim, root, tmp_path, device(tmp_path / "ta.yaml", root, "chip-a", 1000, 3), MODELS[:2], "a.csv")
    b = measured_on(npusim, root, tmp_path, device(tmp_path / "tb.yaml", root, "chip-b", 600, 3), MODELS[2:4], "b.csv")
    start_a, start_b = device(tmp_path / "a.yaml", root, "chip-a", 1000, 0), device(tmp_path / "b.yaml", root, "chip-b", 600, 0)
    out_a, out_b = tmp_path / "fa.yaml", tmp_path / "fb.yaml"
    r = npusim("calibrate", "-c", start_a, "-c", start_b, "-m", f"{a}@chip-a", "-m", f"{b}@b", "--fit",
               "host.layer_dispatch_us", "-o", out_a, "-o", out_b)
    assert r.code == 0, r.err
    assert "calibrating chip-a (" in r.out and " + chip-b (" in r.out and "one value of each key for every config" in r.out
    assert re.search(r"^tiny_convnet on chip-a ", r.out, re.M) and re.search(r"^squeezenet1_1 on chip-b ", r.out, re.M)
    for out, clock in ((out_a, 1000), (out_b, 600)):
        text = out.read_text()
        assert abs(fitted_value(text, "host", "layer_dispatch_us") / 3 - 1) <= 0.01, text
        assert fitted_value(text, "clock", "frequency_mhz") == clock
        assert re.search(r'host.layer_dispatch_us: "fitted \d{4}-\d\d-\d\d a.csv \+ b.csv \(base chip-[ab] = 0\)', text), text


@pytest.mark.parametrize("args,message", [
    (["-m", "{a}"], "say which config measured it: FILE@CONFIG"),
    (["-m", "{a}@chip-a", "-o", "{out}"], "give one output per -c (2 config(s), 1 output(s))"),
])
def test_several_devices_bad_input_is_one_line(npusim, root, tmp_path, args, message):
    a = tmp_path / "a.csv"
    a.write_text(f"model,input_shape,precision,latency_ms\n{root / MODELS[0]},,int8,0.1\n")
    start_a, start_b = device(tmp_path / "a.yaml", root, "chip-a", 1000, 0), device(tmp_path / "b.yaml", root, "chip-b", 600, 0)
    outputs = [] if "-o" in args else ["-o", tmp_path / "fa.yaml", "-o", tmp_path / "fb.yaml"]
    r = npusim("calibrate", "-c", start_a, "-c", start_b, *[x.format(a=a, out=tmp_path / "f.yaml") for x in args],
               "--fit", "host.layer_dispatch_us", *outputs)
    assert_one_line_error(r, message)


@pytest.mark.parametrize("device", ["lunar", "meteor"])
def test_intel_fitted_presets_meet_their_figures(npusim, root, tmp_path, generated, device):
    """The Intel presets fitted jointly to OpenVINO's published latencies (two keys,
    mac_array.depthwise_columns and host.layer_dispatch_us) keep the public keys and land within
    the issue's +-30 % of each
    figure they were fitted to. A schedule change that moves them past it fails this until the
    presets are refitted (the command is in configs/intel-npu-*-lake-fitted.yaml)."""
    preset = f"intel-npu-{device}-lake-fitted"
    keys = {k["key"]: k for k in json.loads(npusim("config", "show", preset, "--json").out)["keys"]}
    assert keys["mac_array.depthwise_columns"]["origin"] == "fitted"
    assert keys["host.layer_dispatch_us"]["origin"] == "fitted"
    for public in ("ddr.bandwidth_gbps", "engines.count"):
        assert keys[public]["origin"] == "public", public
    figures = root / f"configs/measurements/intel-npu-{device}-lake-openvino.csv"
    csv = tmp_path / figures.name
    csv.write_text("".join(line.replace("../../models/generated/resnet50.onnx", str(generated("resnet50")))
                           .replace("../../models/generated/mobilenetv2.onnx", str(generated("mobilenetv2"))) + "\n"
                           for line in figures.read_text().splitlines()))
    out = tmp_path / "published.json"
    r = npusim("compare", "--published", csv, "-c", root / f"configs/{preset}.yaml", "--json", out)
    assert r.code == 0, r.err
    models = json.loads(out.read_text())["models"]
    assert len(models) == 2
    for m in models:
        assert m["status"] == "fitted", m
        assert all(abs(e) <= 0.30 for e in m["errors"]), m
