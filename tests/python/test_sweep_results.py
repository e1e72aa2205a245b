"""The results store behind resume: part files, one row per point, refusing to mix sweeps;
and a sweep on an already running Dask scheduler (--scheduler)."""
import os
import pathlib
import sys

import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from npusim.sweep_results import ResultStore  # noqa: E402
from npusim.sweep_runner import run_sweep  # noqa: E402

FINGERPRINT = {"base config": "abc", "timing_only": True}


def row(point_id, cycles):
    return {"point_id": point_id, "model": "m", "precision": "int8", "rows": 8, "status": "ok", "error": "",
            "cycles": cycles}


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_rows_survive_a_restart_once_each_in_sweep_order(tmp_path, suffix):
    out = tmp_path / f"r{suffix}"
    store = ResultStore(out, FINGERPRINT, flush_seconds=0)
    store.add(row("b", 2))
    store.add(row("a", 1))
    again = ResultStore(out, FINGERPRINT)  # as a resumed sweep sees it
    assert again.done_ids() == {"a", "b"}
    again.add(row("a", 99))  # a point finished twice (e.g. a retried task) is kept once, first wins
    again.add(row("c", 3))
    table = again.finish({"a": 0, "b": 1, "c": 2, "not run": 3})
    assert list(table["point_id"]) == ["a", "b", "c"] and list(table["cycles"]) == [1, 2, 3]
    read = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
    assert list(read["point_id"]) == ["a", "b", "c"]
    assert not list(tmp_path.rglob("*.tmp"))


def test_results_of_another_base_config_are_not_mixed_in(tmp_path):
    ResultStore(tmp_path / "r.parquet", FINGERPRINT).add(row("a", 1))
    with pytest.raises(npusim.Error, match="different base config; pass --restart"):
        ResultStore(tmp_path / "r.parquet", {**FINGERPRINT, "base config": "xyz"})
    assert ResultStore(tmp_path / "r.parquet", {**FINGERPRINT, "base config": "xyz"}, restart=True).done_ids() == set()


def test_sweep_on_a_running_scheduler(tmp_path):
    from dask.distributed import LocalCluster

    spec = tmp_path / "s.yaml"
    spec.write_text(f"""\
base: {ROOT}/configs/tiny-8x8.yaml
models: [{ROOT}/models/tiny_convnet.onnx]
axes:
  rows: [4, 8]
  sram_kib: [64, 128]
""")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(pathlib.Path(npusim.__file__).parent.parent),
                                                             os.environ.get("PYTHONPATH")]))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        table = run_sweep(spec, tmp_path / "r.parquet", scheduler=cluster.scheduler_address, progress=False)
    assert len(table) == 4 and (table["status"] == "ok").all()
    assert table["cycles"].iloc[0] > table["cycles"].iloc[2]  # 4x4 array slower than 8x8
