"""One engine (runtime/engine.h) behind every app: a model on a config has one latency whether
`npusim run`, stream, compare, compare-configs, calibrate or the Python package runs it, and
one seed gives the same generated inputs through the CLI and Python."""
import json
import os
import pathlib
import re
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from conftest import run_npusim  # noqa: E402

CONFIG = ROOT / "configs" / "default.yaml"
# A CNN; and a decoder with an int64 input (token ids the NPU's gather takes as int32) and
# several inputs (each generated from its own seed), where skipping the ONNX file's declared
# boundary would show.
MODELS = [ROOT / "models" / "tiny_convnet.onnx", ROOT / "models" / "exported" / "gpt_tiny_decode.onnx"]


def cli_json(tmp_path, *args):
    out = tmp_path / "out.json"
    r = run_npusim(*args, "--json", out)
    assert r.code == 0, r.err
    return json.loads(out.read_text())


def run_latency_us(tmp_path, model):
    return cli_json(tmp_path, "run", model, "-c", CONFIG, "--timing-only", "-q")["latency_us"]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.stem)
def test_every_app_reports_the_latency_of_npusim_run(tmp_path, model):
    latency = run_latency_us(tmp_path, model)

    session = npusim.compile(model, CONFIG)
    assert session.run(timing_only=True)[1]["latency_us"] == latency
    assert session.stream(frames=2)["inference"]["latency_us"] == latency
    stream = cli_json(tmp_path, "stream", model, "-c", CONFIG, "--frames", "2", "-q")
    assert stream["inference"]["latency_us"] == latency
    configs = cli_json(tmp_path, "compare-configs", model, "-c", CONFIG, "-c", CONFIG)
    assert next(m for m in configs["metrics"] if m["name"] == "latency")["values"] == [latency, latency]
    compare = cli_json(tmp_path, "compare", model, "-c", CONFIG, "-q")
    assert next(d for d in compare["devices"] if d["device"] == "sim")["latency_us"]["runs"] == [latency]


# A key each model's latency follows (one token of gpt_tiny_decode is bound by DDR bandwidth).
@pytest.mark.parametrize("model,key,base", [(MODELS[0], "ddr.bandwidth_gbps", "25.6"), (MODELS[1], "ddr.bandwidth_gbps", "25.6")],
                         ids=lambda v: getattr(v, "stem", ""))
def test_calibrate_simulates_what_npusim_run_reports(tmp_path, model, key, base):
    # Measured exactly what `npusim run` reports on the base config: calibrate's own simulation
    # of the base must match it to within the fit's own tolerance (log residuals below 1e-9, so
    # the fit stops where it starts) and print the same latency.
    latency = run_latency_us(tmp_path, model)
    csv = tmp_path / "measured.csv"
    csv.write_text(f"model,input_shape,precision,latency_ms\n{model},,int8,{latency / 1000:.17g}\n")
    r = run_npusim("calibrate", "-c", CONFIG, "-m", csv, "--fit", key, "--no-leave-one-out",
                   "--allow-public", "-o", tmp_path / "fitted.yaml")
    assert r.code == 0, r.err
    assert "round 1: converged in 1 iterations (the residuals vanished), rms log error 0.0000;" in r.out, r.out
    # (-0.0%: a key fitted in log space comes back from exp(log(x)) one rounding off.)
    assert re.search(rf"^{re.escape(key)} +{base} +{base} +\S+ +[-+]0\.0% ", r.out, re.M), r.out
    row = next(line for line in r.out.splitlines() if line.startswith(model.stem + " "))
    assert row.split()[1:5] == [f"{latency / 1000:.4g}"] * 3 + ["+0.0%"], row


def test_one_seed_gives_the_same_inputs_through_the_cli_and_python(tmp_path):
    model = MODELS[1]
    session = npusim.compile(model, CONFIG)
    names = [d["name"] for d in session.inputs]
    assert len(names) > 2
    for seed in (None, 7):
        seed_args = [] if seed is None else ["--seed", seed]
        out = tmp_path / f"out-{seed}"
        cli = cli_json(tmp_path, "run", model, "-c", CONFIG, "--save-outputs", out, "-q", *seed_args)
        outputs, report = session.run() if seed is None else session.run(seed=seed)
        first = 1 if seed is None else seed  # the default seed, runtime::kDefaultInputSeed
        # Input i from seed + i, in both; the notes differ only in how to give real data.
        expected = [f"input {n}: random .* \\(seed {first + i}; " for i, n in enumerate(names)]
        for notes in (cli["notes"], report["notes"]):
            assert all(re.match(e, note) for e, note in zip(expected, notes)), notes
        assert cli["notes"][0].endswith(f"give --input {names[0]}=FILE for real data)")
        assert report["notes"][0].endswith(f"pass inputs={{'{names[0]}': array}} for real data)")
        for name, array in outputs.items():
            np.testing.assert_array_equal(array, np.load(out / f"{name.replace('/', '_')}.npy"))
    assert any(not np.array_equal(np.load(tmp_path / "out-None" / p.name), np.load(p))
               for p in (tmp_path / "out-7").glob("*.npy")), "seed 7 gave the default seed's outputs"
