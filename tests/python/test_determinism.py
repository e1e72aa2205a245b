"""Determinism across processes and inside the Python package's one process: the same model
and inputs give byte-identical report JSON, trace and outputs from two `npusim run`s, and the
same report and outputs from a session however many other models ran in between.
(tests/determinism/test_determinism.cpp checks the C++ API on more models, traces included.)"""
import json
import os
import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from conftest import run_npusim  # noqa: E402

MODELS = [ROOT / "models/tiny_convnet.onnx", ROOT / "models/exported/fashion_mnist_cnn.onnx",
          ROOT / "models/exported/gpt_tiny_decode.onnx"]


def test_two_cli_runs_write_identical_files(tmp_path):
    for k in (1, 2):
        out = tmp_path / str(k)
        out.mkdir()
        r = run_npusim("run", MODELS[0], "-c", ROOT / "configs/default.yaml", "-q", "--json", out / "r.json",
                       "--trace", out / "t.json", "--save-outputs", out / "outputs")
        assert r.code == 0, r.err
    outputs = sorted(p.name for p in (tmp_path / "1/outputs").iterdir())
    assert outputs
    for name in ["r.json", "t.json"] + ["outputs/" + o for o in outputs]:
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes(), name
    assert json.loads((tmp_path / "1/r.json").read_text())["cycles"] > 0


def test_one_process_any_order():
    cfg = npusim.load_config(str(ROOT / "configs/default.yaml"))
    sessions = [npusim.compile(str(m), cfg) for m in MODELS]

    def observe(session):
        outputs, report = session.run()  # the CLI's seeded random inputs
        return {k: np.asarray(v).tobytes() for k, v in outputs.items()}, json.dumps(dict(report), sort_keys=True)

    first = [observe(s) for s in sessions]
    again = [observe(s) for s in reversed(sessions)][::-1]
    fresh = [observe(npusim.compile(str(m), cfg)) for m in reversed(MODELS)][::-1]
    assert first == again == fresh
