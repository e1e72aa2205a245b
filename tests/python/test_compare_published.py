"""`npusim compare --published FILE`: a config's simulated latency of each model in a file of
published figures, the error against each figure, and whether the config was fitted to that
file (its provenance names it in a `fitted` entry) or the figures are held out."""
import json
import pathlib
import subprocess
import sys

import pytest

from conftest import run_npusim

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "models" / "tiny_convnet.onnx"
CONFIG = ROOT / "configs" / "default.yaml"


def simulated_ms(tmp_path, config):
    out = tmp_path / "run.json"
    r = run_npusim("run", MODEL, "-c", config, "--timing-only", "-q", "--json", out)
    assert r.code == 0, r.err
    return json.loads(out.read_text())["latency_us"] / 1000


def figures(tmp_path, name, *latencies_ms):
    path = tmp_path / name
    rows = "".join(f"{MODEL},,int8,{ms!r}\n" for ms in latencies_ms)
    path.write_text("# published somewhere\nmodel,input_shape,precision,latency_ms\n" + rows)
    return path


def compare(tmp_path, config, *files):
    out = tmp_path / "published.json"
    args = [a for f in files for a in ("--published", f)]
    r = run_npusim("compare", *args, "-c", config, "--json", out)
    assert r.code == 0, r.err
    return r.out, json.loads(out.read_text())


def test_held_out_figures_get_their_error(tmp_path):
    sim = simulated_ms(tmp_path, CONFIG)
    csv = figures(tmp_path, "device.csv", sim * 1.25, sim / 0.8)
    text, j = compare(tmp_path, CONFIG, csv)
    (m,) = j["models"]
    assert m["status"] == "held_out" and m["simulated_ms"] == pytest.approx(sim, rel=1e-12)
    assert m["errors"] == pytest.approx([1 / 1.25 - 1, -0.2], abs=1e-12)
    assert j["mean_abs_error_held_out"] == pytest.approx((0.2 + 0.2) / 2, abs=1e-12)
    assert j["mean_abs_error_fitted"] is None and j["max_abs_error"] == pytest.approx(0.2, abs=1e-12)
    assert "-20.0%  held out" in text and "mean |error|: fitted none, held out 20.0%; worst 20.0%" in text


def test_a_file_the_config_was_fitted_to_is_marked_fitted(tmp_path):
    sim = simulated_ms(tmp_path, CONFIG)
    fitted_csv = figures(tmp_path, "fit-set.csv", sim * 1.1)
    held_csv = figures(tmp_path, "other.csv", sim / 1.5)
    config = tmp_path / "fitted.yaml"
    config.write_text(f"base: {CONFIG}\nname: fitted-here\nprovenance:\n"
                      f"  host.launch_us: \"fitted 2026-12-05 fit-set.csv (base 0)\"\n")
    text, j = compare(tmp_path, config, fitted_csv, held_csv)
    assert [m["status"] for m in j["models"]] == ["fitted", "held_out"]
    assert j["mean_abs_error_fitted"] == pytest.approx(1 - 1 / 1.1, abs=1e-12)
    assert j["mean_abs_error_held_out"] == pytest.approx(0.5, abs=1e-12)
    assert text.startswith("fitted-here against published figures")


@pytest.mark.parametrize("args,message", [
    (["--published", "missing.csv"], "missing.csv"),
    (["--published", "{csv}", "--device", "ort:cpu"], "give no model and no --device"),
])
def test_bad_input_is_one_line(tmp_path, args, message):
    csv = figures(tmp_path, "device.csv", 0.1)
    r = run_npusim("compare", *[a.format(csv=csv) for a in args], "-c", CONFIG)
    assert r.code != 0 and message in r.err and len(r.err.strip().splitlines()) == 1, r.err


def test_the_plot_script_draws_the_comparison(tmp_path):
    sim = simulated_ms(tmp_path, CONFIG)
    _, j = compare(tmp_path, CONFIG, figures(tmp_path, "device.csv", sim * 1.2))
    (tmp_path / "c.json").write_text(json.dumps(j))
    done = subprocess.run([sys.executable, ROOT / "scripts" / "plot_published.py", tmp_path / "c.json",
                           "-o", tmp_path / "p.png"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (tmp_path / "bad.json").write_text("{}")
    done = subprocess.run([sys.executable, ROOT / "scripts" / "plot_published.py", tmp_path / "bad.json",
                           "-o", tmp_path / "q.png"], capture_output=True, text=True)
    assert done.returncode != 0 and "not the JSON of npusim compare --published" in done.stderr


def test_every_published_figure_names_a_model_the_repository_generates():
    # The files of configs/measurements/ point at scripts/make_models.py's architectures; a
    # renamed model or a wrong input size would silently compare another network.
    sys.path.insert(0, str(ROOT / "scripts"))
    import make_models
    rows = 0
    for csv in sorted((ROOT / "configs" / "measurements").glob("*.csv")):
        for line in csv.read_text().splitlines():
            if line.startswith("#") or line.startswith("model,"):
                continue
            model, shape, precision, ms = line.split(",")[:4]
            stem = pathlib.Path(model).stem
            assert (csv.parent / model).resolve().parent == ROOT / "models" / "generated", f"{csv.name}: {model}"
            assert stem in make_models.MODELS, f"{csv.name}: {stem} is not a make_models.py model"
            n = {"inception_v3": 299}.get(stem, 224)
            assert shape == f"1x3x{n}x{n}" and precision == "int8" and float(ms) > 0, f"{csv.name}: {line}"
            rows += 1
    assert rows >= 12
