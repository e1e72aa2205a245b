"""Sweeps that trade: derived energy and area grow with the design. The technology table's
SRAM figures are the component models' own outputs (regenerated here when the model venv
exists); sweeping only the scratchpad of ResNet-18 (configs/sweeps/resnet18-scratchpad.yaml)
makes area rise strictly, energy fall and then rise again, latency fall and then rise with the
SRAM's access time, and the energy-latency front hold more than one design; and bad input is
one line each."""
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest
import yaml

from conftest import assert_one_line_error

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
import npusim  # noqa: E402
from npusim.plot import pareto_front  # noqa: E402
from npusim.sweep_runner import run_sweep  # noqa: E402

HWC_PYTHON = pathlib.Path(os.environ.get("HWC_VENV", "/work/venv-hwc")) / "bin" / "python"
# (capacity KiB, rw ports, banks, port bytes): a small, a default-sized and a large scratchpad.
GRID_POINTS = [(64, 1, 4, 16), (1024, 1, 16, 64), (8192, 2, 32, 128)]
SRAM_FIELDS = ["read_pj_per_byte", "write_pj_per_byte", "leakage_mw", "area_mm2"]


def _hwcomponents_missing():
    if not HWC_PYTHON.exists():
        return f"{HWC_PYTHON} does not exist (made by scripts/make_tech_tables.sh; CI does not build it)"
    probe = subprocess.run([str(HWC_PYTHON), "-c", "import hwcomponents_cacti"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{HWC_PYTHON} cannot import hwcomponents_cacti ({probe.stderr.strip().splitlines()[-1:]})"
    return None


def _table_series(node, ports, banks, port_bytes):
    table = yaml.safe_load((ROOT / "configs" / "tech" / f"{node}nm.yaml").read_text())
    caps = table["sram"]["axes"]["capacity_kib"]
    for s in table["sram"]["series"]:
        if (s["rw_ports"], s["banks"], s["port_bytes"]) == (ports, banks, port_bytes):
            return caps, s
    raise AssertionError("no series")


@pytest.mark.skipif(_hwcomponents_missing() is not None, reason=str(_hwcomponents_missing()))
def test_table_grid_points_are_the_component_models_outputs():
    """CACTI (through hwcomponents-cacti, as scripts/make_tech_tables.py calls it) recomputes
    a few grid points; the table and npusim's derived costs at that size give the same numbers."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(ROOT / 'scripts')!r})
        from make_tech_tables import sig, sram_point
        out = {{}}
        for point in {GRID_POINTS!r}:
            for node, fields in sram_point(tuple(point), [7, 22, 45]).items():
                out[f"{{point}}@{{node}}"] = {{k: sig(v) for k, v in fields.items()}}
        print(json.dumps(out))
        """)
    proc = subprocess.run([str(HWC_PYTHON), "-c", script], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    regenerated = yaml.safe_load(proc.stdout.strip().splitlines()[-1])
    base = npusim.load_config(ROOT / "configs" / "default.yaml")
    for point in GRID_POINTS:
        cap, ports, banks, port_bytes = point
        for node in (7, 22, 45):
            caps, series = _table_series(node, ports, banks, port_bytes)
            model = regenerated[f"{point}@{node}"]
            for field in SRAM_FIELDS:
                assert series[field][caps.index(cap)] == model[field], (point, node, field)
            costs = npusim.with_values(base, {"energy.tech_nm": node, "energy.sram_rw_ports": ports,
                                              "sram.capacity_kib": cap, "sram.banks": banks,
                                              "sram.bank_width_bytes": port_bytes}).costs()
            assert costs["pj"]["sram_read_per_byte"] == model["read_pj_per_byte"]
            assert costs["pj"]["sram_write_per_byte"] == model["write_pj_per_byte"]
            assert costs["leakage_sram_mw"] == model["leakage_mw"]
            assert costs["area_sram_mm2"] == model["area_mm2"]


def test_scratchpad_sweep_trades_latency_against_energy(tmp_path):
    """configs/sweeps/resnet18-scratchpad.yaml: ResNet-18 INT8 at 224x224 on the default design
    at 45 nm with derived SRAM timing, only the scratchpad swept (128 KiB .. 16 MiB)."""
    spec = ROOT / "configs" / "sweeps" / "resnet18-scratchpad.yaml"
    table = run_sweep(spec, tmp_path / "r.parquet", workers=2, progress=False)
    assert (table["status"] == "ok").all(), table["error"].tolist()
    table = table.sort_values("sram_kib")
    assert table["sram_kib"].tolist() == [128 * 2 ** i for i in range(8)]
    area = table["area_mm2"].tolist()
    assert all(b > a for a, b in zip(area, area[1:])), area
    energy = table["energy_uj"].tolist()
    best = energy.index(min(energy))
    assert 0 < best < len(energy) - 1, energy  # falls, then rises: not monotone
    # It falls while DDR traffic falls (spills shrink) and rises with SRAM access energy.
    ddr = table["ddr_bus_bytes"].tolist()
    assert ddr[best] < ddr[0]
    sram = table["energy_sram_uj"].tolist()
    assert sram[-1] > sram[best]
    # Latency falls while spills shrink, then rises with the SRAM's access time: the fastest
    # design is larger than the most frugal one, and every size between them trades one for
    # the other, so the front is exactly the sizes from the most frugal to the fastest.
    latency = table["latency_us"].tolist()
    fastest = latency.index(min(latency))
    assert 0 < fastest < len(latency) - 1 and latency[-1] > latency[fastest], latency
    front = pareto_front(table, [("latency_us", "min"), ("energy_uj", "min")])
    kib = table["sram_kib"].tolist()
    expected = [kib[i] for i in range(len(kib))
                if not any(latency[j] <= latency[i] and energy[j] <= energy[i] and j != i for j in range(len(kib)))]
    assert len(front) > 1, (latency, energy)
    assert sorted(front["sram_kib"].tolist()) == expected
    assert min(expected) == kib[best] and max(expected) == kib[fastest]
    assert table.attrs["npusim"]["objectives"] == [["latency_us", "min"], ["energy_uj", "min"]]


def test_area_and_power_constraints(tmp_path):
    """Area is known before a design runs: a constraint on it removes points up front; one on
    power needs the run and marks rows infeasible."""
    spec = tmp_path / "c.yaml"
    spec.write_text(textwrap.dedent(f"""\
        base: {ROOT}/configs/default.yaml
        models:
          - path: {ROOT}/models/tiny_convnet.onnx
        axes:
          sram_kib: [64, 1024, 8192]
          rows: [16, 64]
        constraints: ["area_mm2 <= 2", "power_mw <= 300"]
        objectives: [latency_us, energy_uj, area_mm2]
        """))
    table = run_sweep(spec, tmp_path / "r.parquet", workers=1, progress=False)
    assert len(table) == 4 and 8192 not in set(table["sram_kib"])  # 8 MiB designs exceed 2 mm^2: never run
    assert (table["area_mm2"] <= 2).all()
    assert (table["feasible"] == (table["power_mw"] <= 300)).all()
    assert not table["feasible"].all() and table["feasible"].any()


def test_bad_input_is_one_line(npusim, tmp_path, root):
    cfg = tmp_path / "node.yaml"
    cfg.write_text(f"base: {root}/configs/default.yaml\nenergy: {{model: derived, tech_nm: 5}}\n")
    assert_one_line_error(npusim("run", root / "models/tiny_convnet.onnx", "--config", cfg, "--timing-only"),
                          f"{cfg}: energy.tech_nm: no technology table for 5 nm (tables exist for 7, 22, 45 nm")

    small = tmp_path / "small.yaml"  # the 7 nm table, its capacities divided by 16: up to 1 MiB
    text = (root / "configs/tech/7nm.yaml").read_text()
    axis = "capacity_kib: [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]"
    small.write_text(text.replace(axis, "capacity_kib: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]"))
    cfg = tmp_path / "size.yaml"
    cfg.write_text(f"base: {root}/configs/default.yaml\nsram: {{capacity_kib: 4096}}\n"
                   "energy: {model: derived, tech_table: small.yaml}\n")
    assert_one_line_error(npusim("run", root / "models/tiny_convnet.onnx", "--config", cfg, "--timing-only"),
                          f"{cfg}: sram.capacity_kib: {small}: sram: 4096 KiB is outside the table (1 to 1024 KiB)")

    spec = tmp_path / "spec.yaml"
    spec.write_text(f"base: {root}/configs/default.yaml\nmodels: [{root}/models/tiny_convnet.onnx]\n"
                    "axes: {rows: [16, 32]}\nconstraints: ['area_mm2 <= 4', 'wats <= 1000']\n")
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    proc = subprocess.run([sys.executable, "-m", "npusim", "sweep", str(spec), "-o", str(tmp_path / "r.parquet")],
                          capture_output=True, text=True, env=env, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert f"{spec}: constraints[1]: 'wats <= 1000': unknown name 'wats'" in lines[0]
    assert "power_mw" in lines[0]  # the message lists the result columns
    spec.write_text(spec.read_text().replace("constraints: ['area_mm2 <= 4', 'wats <= 1000']",
                                             "objectives: [latency_us, joules]"))
    proc = subprocess.run([sys.executable, "-m", "npusim", "sweep", str(spec), "-o", str(tmp_path / "r.parquet")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1 and "objectives[1]: unknown result column 'joules'" in proc.stderr


def test_plot_prints_the_front_and_draws_every_pair(tmp_path):
    import pandas as pd

    rows = []
    for i, (lat, energy, area) in enumerate([(1, 9, 5), (2, 5, 4), (3, 6, 1), (4, 4, 6), (5, 9, 9)]):
        rows.append({"point_id": str(i), "model": "m", "precision": "int8", "rows": 16 * (i + 1), "status": "ok",
                     "error": "", "latency_us": lat, "energy_uj": energy, "area_mm2": area, "feasible": i != 3})
    table = pd.DataFrame(rows)
    table.attrs["npusim"] = {"objectives": [["latency_us", "min"], ["energy_uj", "min"], ["area_mm2", "min"]]}
    table.to_parquet(tmp_path / "r.parquet", index=False)
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    proc = subprocess.run([sys.executable, "-m", "npusim", "plot", str(tmp_path / "r.parquet")], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "3 panels; 3 points on the Pareto front" in proc.stdout  # (4, 4, 6) is infeasible, (5, 9, 9) dominated
    body = [l.split() for l in proc.stdout.splitlines()[2:]]
    assert [r[1] for r in body] == ["16", "32", "48"]  # rows column of the front, by latency
    assert (tmp_path / "r-pareto.png").read_bytes()[:4] == b"\x89PNG"
