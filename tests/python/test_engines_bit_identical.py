"""INT8 programs compiled for several engines (engines.count 2 and 4, layers split by the cost
model's choice or every layer by rows or by output channels) give, on the functional simulator,
the very output bytes of the one-engine program."""
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
