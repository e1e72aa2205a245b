"""Sweep specs: axis forms, sampling, constraints, point ids; and bad specs, each one clear
line on stderr naming the key."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
from npusim import sweep_cli  # noqa: E402
from npusim.sweep_points import sweep_points  # noqa: E402
from npusim.sweep_spec import load_sweep_spec  # noqa: E402

HEAD = f"""\
base: {ROOT}/configs/default.yaml
models:
  - path: {ROOT}/models/tiny_convnet.onnx
"""


def write_spec(tmp_path, body, head=HEAD):
    path = tmp_path / "spec.yaml"
    path.write_text(head + textwrap.dedent(body))
    return path


def test_axis_forms_and_grid(tmp_path):
    spec = load_sweep_spec(write_spec(tmp_path, """\
        axes:
          rows: [8, 16]
          cols: {from: 8, to: 32, step: 8}
          sram_kib: {from: 64, to: 1024, factor: 4}
          ddr.bandwidth_gbps: {from: 6.4, to: 51.2, num: 4, scale: log}
          memory: {zip: {dma.channels: [1, 2], ddr.latency_ns: [50, 100]}}
        """))
    values = {a.name: a.values for a in spec.axes}
    assert values["cols"] == [(8,), (16,), (24,), (32,)]
    assert values["sram_kib"] == [(64,), (256,), (1024,)]
    assert values["ddr.bandwidth_gbps"] == [(6.4,), (12.8,), (25.6,), (51.2,)]
    assert values["memory"] == [(1, 50), (2, 100)]
    points = sweep_points(spec)
    assert len(points) == 2 * 4 * 3 * 4 * 2
    assert points[0].design.overrides == {"mac_array.rows": 8, "mac_array.cols": 8, "sram.capacity_kib": 64,
                                          "ddr.bandwidth_gbps": 6.4, "dma.channels": 1, "ddr.latency_ns": 50}
    assert len({p.id for p in points}) == len(points)
    assert [p.id for p in sweep_points(load_sweep_spec(spec.path))] == [p.id for p in points]  # stable ids


def test_constraints_filter_points(tmp_path):
    spec = load_sweep_spec(write_spec(tmp_path, """\
        axes:
          rows: [8, 16, 32]
          cols: [8, 16, 32]
          sram_kib: [16, 64]
        constraints:
          - sram_kib * 1024 >= rows * cols * 64
          - mac_array.rows <= cols
        """))
    points = sweep_points(spec)
    for p in points:
        v = p.design.values
        assert v["sram_kib"] * 1024 >= v["rows"] * v["cols"] * 64 and v["rows"] <= v["cols"]
    assert len(points) == 4 + 6  # sram 16: rows*cols <= 256; sram 64: <= 1024


@pytest.mark.parametrize("method", ["random", "lhs"])
def test_sampling_is_seeded_and_covers_levels(tmp_path, method):
    body = f"""\
        axes:
          rows: {{from: 4, to: 64, step: 4}}
          sram_kib: {{from: 32, to: 4096, factor: 2}}
          ddr_gbps: {{from: 5, to: 50, num: 10}}
        sampling: {{method: {method}, points: 16, seed: 7}}
        """
    a = sweep_points(load_sweep_spec(write_spec(tmp_path, body)))
    b = sweep_points(load_sweep_spec(write_spec(tmp_path, body)))
    assert [p.id for p in a] == [p.id for p in b] and len(a) == 16
    if method == "lhs":  # 16 strata over 16 row levels: each level exactly once
        assert sorted(p.design.values["rows"] for p in a) == list(range(4, 65, 4))
    c = sweep_points(load_sweep_spec(write_spec(tmp_path, body.replace("seed: 7", "seed: 8"))))
    assert [p.id for p in c] != [p.id for p in a]


BAD_SPECS = [
    ("axes:\n  mac_array.rowz: [8]\n", "axes.mac_array.rowz", "did you mean \"mac_array.rows\""),
    ("axes:\n  channels: [1, 2]\n", "axes.channels", "ambiguous"),
    ("axes:\n  rows: {from: 64, to: 16, step: 16}\n", "axes.rows", "empty range"),
    ("axes:\n  rows: []\n", "axes.rows", "empty list"),
    ("axes:\n  rows: [8, '16']\n", "axes.rows", "expected a number for mac_array.rows"),
    ("axes:\n  rows: 16\n", "axes.rows", "expected a list of values or a range"),
    ("axes:\n  rows: [8.5]\n", "axes.rows", "whole number"),
    ("axes:\n  rows: [0, 8]\n", "axes.rows", "outside"),
    ("axes:\n  dataflow: [ws, xs]\n", "axes.dataflow", "not one of ws, os, is"),
    ("axes:\n  g: {zip: {rows: [8, 16], cols: [8]}}\n", "axes.g", "same number of values"),
    ("axes:\n  rows: [8, 16]\nconstraints:\n  - rows > 100\n", "constraints", "reject every one of the 2 points"),
    ("axes:\n  rows: [8]\nconstraints:\n  - rowz > 1\n", "constraints[0]", "unknown name 'rowz'"),
    ("axes:\n  rows: [8]\nconstraints:\n  - __import__('os').system('true')\n", "constraints[0]", "only these functions"),
    ("axes:\n  rows: [8]\nconstraints:\n  - rows >\n", "constraints[0]", "not a valid expression"),
    ("axis:\n  rows: [8]\n", "axis", "unknown key"),
    ("axes:\n  rows: [8\n", "spec.yaml:", "invalid YAML"),
    ("axes: [rows]\n", "axes", "expected a mapping"),
    ("axes:\n  rows: [8]\nsampling: {method: sobol}\n", "sampling.method", "expected one of grid, random, lhs"),
    ("axes:\n  rows: [8]\nsampling: {method: lhs}\n", "sampling.points", "needs points"),
    ("axes:\n  rows: [8]\ntiming_only: yes please\n", "timing_only", "expected true or false"),
]


@pytest.mark.parametrize("body,key,needle", BAD_SPECS, ids=[b[1] + ":" + b[2][:20] for b in BAD_SPECS])
def test_bad_spec_is_one_line_naming_the_key(tmp_path, capsys, body, key, needle):
    spec = write_spec(tmp_path, body)
    assert sweep_cli.main([str(spec), "-o", str(tmp_path / "out.parquet"), "-q"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"npusim sweep: error: {spec}") and f"{key}" in err[0] and needle in err[0], err[0]


@pytest.mark.parametrize("head,key,needle", [
    (f"models: []\nbase: {ROOT}/configs/default.yaml\n", "models", "non-empty list"),
    (f"base: {ROOT}/configs/default.yaml\nmodels:\n  - path: nope.onnx\n", "models[0].path", "no such file"),
    (f"base: {ROOT}/configs/default.yaml\nmodels:\n  - {{generate: resnet18, input_size: big}}\n",
     "models[0].input_size", "positive integer"),
    (f"base: {{clock: {{frequency_mhz: 1000}}}}\nmodels: [{ROOT}/models/tiny_convnet.onnx]\n", "base",
     "ddr.bandwidth_gbps: missing required key"),
])
def test_bad_models_and_base(tmp_path, capsys, head, key, needle):
    spec = write_spec(tmp_path, "axes:\n  rows: [8]\n", head=head)
    assert sweep_cli.main([str(spec), "-o", str(tmp_path / "out.parquet"), "-q"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f": {key}: " in err[0] and needle in err[0], err


def test_bad_spec_from_the_command_line(tmp_path):
    spec = write_spec(tmp_path, "axes:\n  sram.capcity_kib: [64]\n")
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    proc = subprocess.run([sys.executable, "-m", "npusim", "sweep", str(spec), "-o", str(tmp_path / "r.parquet")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"npusim sweep: error: {spec}: axes.sram.capcity_kib: unknown config key, "
                                   "did you mean \"sram.capacity_kib\"?")


def test_engines_is_a_sweep_axis_and_scales_area_and_peak():
    """`engines: [1, 4]` sweeps engines.count; every engine brings its array, scratchpad, lanes
    and DMA, so the per-engine parts of the area and the peak scale by the count."""
    from npusim.config import load_config, with_values
    from npusim.config_key_paths import resolve
    assert resolve("engines") == "engines.count"
    base = load_config(str(ROOT / "configs" / "default.yaml"))
    one, four = base, with_values(base, {"engines.count": 4})
    a, b = one.costs(), four.costs()
    for part in ("sram", "mac_array", "vector", "dma"):
        assert b[f"area_{part}_mm2"] == pytest.approx(4 * a[f"area_{part}_mm2"], rel=1e-9)
        assert b[f"leakage_{part}_mw"] == pytest.approx(4 * a[f"leakage_{part}_mw"], rel=1e-9)
    assert b["area_fixed_mm2"] == pytest.approx(a["area_fixed_mm2"])
