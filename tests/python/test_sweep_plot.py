"""npusim plot: the Pareto front is exactly the non-dominated points; both PNGs are written."""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
from npusim.plot import axis_columns, pareto_mask  # noqa: E402


def test_pareto_mask_is_the_non_dominated_set():
    rng = np.random.default_rng(0)
    x, y = rng.random(300), rng.random(300)
    mask = pareto_mask(x, y)
    for i in range(300):
        dominated = np.any((x <= x[i]) & (y <= y[i]) & ((x < x[i]) | (y < y[i])))
        assert mask[i] == (not dominated)


def fake_results():
    rows = []
    for model in ("a", "b"):
        for rows_ in (16, 32, 64):
            for sram in (256, 512):
                for bw in (10, 20):
                    lat = 1000 / rows_ + 50000 / sram / bw
                    rows.append({"point_id": f"{model}{rows_}{sram}{bw}", "model": model, "precision": "int8",
                                 "rows": rows_, "sram_kib": sram, "ddr_gbps": bw, "status": "ok", "error": "",
                                 "latency_us": lat, "energy_uj": rows_ * 0.5 + sram * 0.01 + 100 / bw})
    rows.append({**rows[0], "point_id": "bad", "status": "failed", "error": "compile: too small",
                 "latency_us": None, "energy_uj": None})
    return pd.DataFrame(rows)


def test_plot_command_writes_both_pngs(tmp_path):
    table = fake_results()
    assert axis_columns(table) == ["rows", "sram_kib", "ddr_gbps"]
    table.to_parquet(tmp_path / "r.parquet", index=False)
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    proc = subprocess.run([sys.executable, "-m", "npusim", "plot", str(tmp_path / "r.parquet")], capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "over rows x sram_kib" in proc.stdout
    for name in ("r-pareto.png", "r-heatmap.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run([sys.executable, "-m", "npusim", "plot", str(tmp_path / "r.parquet"), "--y", "watts"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 1 and "no column 'watts'" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
