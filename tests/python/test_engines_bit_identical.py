"""INT8 programs compiled for several engines (engines.count 2 and 4, layers split by the cost
model's choice or every layer by rows or by output channels) give, on the functional simulator,
the very output bytes of the one-engine program."""
import json

import pytest

# resnet18 and mobilenetv2 from scripts/make_models.py; the transformer's attention MatMuls split
# by heads (--engine-split channels forces it).
MODELS = ["models/tiny_convnet.onnx", "resnet18", "mobilenetv2", "models/exported/transformer_encoder.onnx"]


def run_outputs(npusim, model, config, tmp_path, tag, *compile_args):
    prog, outputs = tmp_path / f"{tag}.npuprog", tmp_path / f"out-{tag}"
    r = npusim("compile", model, "-c", config, "-o", prog, "-q", *compile_args)
    assert r.code == 0, r.err
    r = npusim("run", prog, "-c", config, "--save-outputs", outputs, "-q")
    assert r.code == 0, r.err
    files = sorted(outputs.iterdir())
    assert files
    return {f.name: f.read_bytes() for f in files}


@pytest.mark.parametrize("model", MODELS)
def test_several_engines_give_the_one_engine_outputs_byte_for_byte(npusim, root, tmp_path, generated, model):
    model = root / model if model.endswith(".onnx") else generated(model)
    one = run_outputs(npusim, model, root / "configs/default.yaml", tmp_path, "x1")
    for engines, splits in ((2, ["auto"]), (4, ["auto", "rows", "channels"])):
        config = tmp_path / f"default-x{engines}.yaml"
        config.write_text((root / "configs/default.yaml").read_text() + f"\nengines:\n  count: {engines}\n")
        for split in splits:
            several = run_outputs(npusim, model, config, tmp_path, f"x{engines}-{split}", "--engine-split", split)
            assert several == one, f"{engines} engines, split {split}"


def test_grouped_convs_on_several_engines_give_the_one_engine_outputs(npusim, root, tmp_path):
    # RegNet's grouped 3x3 convs (16 channels a group) split by rows only, its other convs by channels.
    model = root / "models/exported/regnet_x_small.onnx"
    one = run_outputs(npusim, model, root / "configs/default.yaml", tmp_path, "x1")
    config = tmp_path / "default-x2.yaml"
    config.write_text((root / "configs/default.yaml").read_text() + "\nengines:\n  count: 2\n")
    assert run_outputs(npusim, model, config, tmp_path, "x2", "--engine-split", "channels") == one


def test_multicast_loads_read_shared_bytes_once_and_change_no_output(npusim, root, tmp_path, generated):
    # engines.shared_loads: multicast (the default) turns the loads every engine makes of the same
    # bytes into mloads; separate keeps a load each. Same outputs, fewer DDR bytes, not slower.
    model = generated("resnet18")
    one = run_outputs(npusim, model, root / "configs/default.yaml", tmp_path, "x1")
    reports = {}
    for loads in ("multicast", "separate"):
        config = tmp_path / f"default-x4-{loads}.yaml"
        config.write_text((root / "configs/default.yaml").read_text() +
                          f"\nengines:\n  count: 4\n  shared_loads: {loads}\n")
        assert run_outputs(npusim, model, config, tmp_path, f"x4-{loads}") == one, loads
        listing = npusim("disasm", tmp_path / f"x4-{loads}.npuprog")
        assert listing.code == 0, listing.err
        mloads = sum(1 for line in listing.out.splitlines() if line.split()[:1] == ["mload"])
        assert (mloads > 0) == (loads == "multicast"), (loads, mloads)
        r = npusim("run", tmp_path / f"x4-{loads}.npuprog", "-c", config, "--timing-only", "-q",
                   "--json", tmp_path / f"{loads}.json")
        assert r.code == 0, r.err
        reports[loads] = json.loads((tmp_path / f"{loads}.json").read_text())
    multicast, separate = reports["multicast"], reports["separate"]
    assert multicast["ddr"]["bus_bytes"] < separate["ddr"]["bus_bytes"] * 0.9
    assert multicast["cycles"] <= separate["cycles"]
    copies = [e["multicast_bytes_read"] for e in multicast["engines"]]
    assert copies[0] == 0 and all(c > 0 for c in copies[1:]), copies
    assert all(e["multicast_bytes_read"] == 0 for e in separate["engines"])
