"""host.layer_dispatch_us: each NPU layer that runs code costs the device runtime's dispatch,
in series with the NPU's work (what makes small, many-layer models slower on real NPUs than
their MACs and bytes say); a reshape that runs no code costs nothing."""
import json
import pathlib

import pytest

from conftest import run_npusim

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "tiny_convnet.onnx"


def run(tmp_path, dispatch_us):
    config = tmp_path / f"d{dispatch_us}.yaml"
    config.write_text(f"base: {ROOT / 'configs' / 'default.yaml'}\nhost:\n  layer_dispatch_us: {dispatch_us}\n")
    out = tmp_path / f"d{dispatch_us}.json"
    r = run_npusim("run", MODEL, "-c", config, "--timing-only", "--json", out)
    assert r.code == 0, r.err
    return json.loads(out.read_text()), r.out


def test_every_npu_layer_with_code_costs_one_dispatch(tmp_path):
    base, _ = run(tmp_path, 0)
    slow, text = run(tmp_path, 2.5)
    # tiny_convnet: stem, block1, pool, block2, gap and fc run code; flatten is a reshape.
    assert [l["name"] for l in slow["layers"]] == ["stem_conv", "block1_conv", "pool", "block2_conv", "gap",
                                                   "flatten", "fc"]
    assert slow["host"]["dispatch_us"] == pytest.approx(6 * 2.5, abs=1e-12)
    assert slow["npu_latency_us"] == base["npu_latency_us"]
    assert slow["latency_us"] - base["latency_us"] == pytest.approx(15.0, abs=1e-9)
    assert "layer dispatch 15.000 us" in text


def test_a_negative_dispatch_cost_is_refused(tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text(f"base: {ROOT / 'configs' / 'default.yaml'}\nhost:\n  layer_dispatch_us: -1\n")
    r = run_npusim("run", MODEL, "-c", config, "--timing-only")
    assert r.code != 0 and "host.layer_dispatch_us" in r.err and len(r.err.strip().splitlines()) == 1, r.err
