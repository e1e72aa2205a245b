"""Running sweeps: the 24-point example on two Dask workers equals running each point by
itself; an impossible point is recorded as failed with the compiler's reason; a sweep
killed halfway resumes and ends with every point exactly once."""
import os
import pathlib
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
import npusim  # noqa: E402
from npusim.sweep_points import sweep_points  # noqa: E402
from npusim.sweep_runner import run_sweep  # noqa: E402
from npusim.sweep_spec import load_sweep_spec  # noqa: E402

SPEC_24 = ROOT / "configs" / "sweeps" / "array-sram-bandwidth.yaml"


def test_two_workers_equal_one_by_one(tmp_path):
    out = tmp_path / "results.parquet"
    table = run_sweep(SPEC_24, out, workers=2, progress=False)
    assert len(table) == 24 and table["point_id"].is_unique
    assert pd.read_parquet(out).equals(table)
    assert len(set(table["worker_pid"])) == 2  # both workers did some

    failed = table[table["status"] == "failed"]
    assert len(failed) == 4 and set(failed["model"]) == {"yolo_style-32"} and set(failed["sram_kib"]) == {1}
    assert all("needs" in e and "bytes of SRAM" in e for e in failed["error"])

    spec = load_sweep_spec(SPEC_24)
    models = {m.label: m for m in spec.models}
    models["yolo_style-32"].path = str(out) + ".parts/models/yolo_style-32.onnx"
    rows = table.set_index("point_id")
    for point in sweep_points(spec):
        row = rows.loc[point.id]
        config = npusim.with_values(spec.base_config, point.design.overrides)
        try:
            session = npusim.compile(models[point.model.label].path, config, precision=point.model.precision)
        except npusim.CompileError as e:
            assert row["status"] == "failed" and row["error"] == f"compile: {e}"
            continue
        _, report = session.run(timing_only=True)
        assert row["status"] == "ok", row["error"]
        assert row["cycles"] == report["cycles"] and row["latency_us"] == report["latency_us"]
        assert row["ddr_bus_bytes"] == report["ddr"]["bus_bytes"]
        assert row["energy_uj"] == pytest.approx(report["energy"]["total_uj"], rel=1e-12)
        assert row["area_mm2"] == report["area"]["total_mm2"] == config.costs()["area_mm2"]
        assert row["power_mw"] == report["energy"]["average_power_mw"]
        assert row["edp_uj_us"] == report["energy"]["energy_delay_uj_us"]

    again = run_sweep(SPEC_24, out, workers=2, progress=False)  # everything done: nothing runs
    assert again.equals(table)


def part_rows(parts):
    total = 0
    for f in parts.glob("part-*.parquet"):
        try:
            total += len(pd.read_parquet(f))
        except Exception:  # being renamed into place
            pass
    return total


def test_killed_sweep_resumes_each_point_exactly_once(tmp_path):
    spec = tmp_path / "long.yaml"
    spec.write_text(f"""\
base: {ROOT}/configs/default.yaml
models:
  - generate: resnet18
    input_size: 32
axes:
  sram_kib: [256, 1024]
  rows: [16, 32]
  ddr_gbps: {{from: 4, to: 64, num: 10}}
""")
    out = tmp_path / "r.parquet"
    cmd = [sys.executable, "-m", "npusim", "sweep", str(spec), "-o", str(out), "-w", "2", "-q", "--flush-seconds", "0.2"]
    env = {**os.environ, "PYTHONPATH": PACKAGE_DIR}
    # Own session, so the kill takes the Dask worker processes with it, as a Ctrl-\ or OOM would.
    proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parts = pathlib.Path(str(out) + ".parts")
    # Kill once some points are on disk; the deadline only stops a hung sweep (a loaded machine
    # just takes longer to get there).
    deadline = time.monotonic() + 600
    while part_rows(parts) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = pd.concat([pd.read_parquet(f) for f in parts.glob("part-*.parquet")])
    assert 5 <= len(before) < 40, f"kill came too late or too early ({len(before)} rows)"
    assert not out.exists()

    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    final = pd.read_parquet(out)
    assert len(final) == 40 and final["point_id"].is_unique and (final["status"] == "ok").all()
    kept = final.set_index("point_id").loc[before["point_id"], "finished_at"]
    assert (kept.values == before["finished_at"].values).all()  # finished points were not redone
    rows_written = sum(len(pd.read_parquet(f)) for f in parts.glob("part-*.parquet"))
    assert rows_written == 40  # the rerun added only what was missing
