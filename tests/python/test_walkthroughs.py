"""The examples/walkthroughs/ scripts in --quick mode (timing-only, small inputs), each
asserting the claim it illustrates. The build tree is $NPUSIM_BUILD, else the one holding
$NPUSIM (conftest), else build/."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import NPUSIM, ROOT

BUILD = pathlib.Path(os.environ.get("NPUSIM_BUILD", NPUSIM.parent.parent))
WALK = ROOT / "examples" / "walkthroughs"


def run_walkthrough(tmp_path, script, *extra):
    if not (BUILD / "bin" / "npusim").exists() or not (BUILD / "python" / "npusim").exists():
        pytest.fail(f"{BUILD} has no bin/npusim or python/npusim; run scripts/build.sh")
    proc = subprocess.run([sys.executable, str(WALK / script), "--quick", "--build", str(BUILD),
                           "--out", str(tmp_path), *extra], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    name = pathlib.Path(script).stem
    assert (tmp_path / f"{name}.png").stat().st_size > 10000
    return json.loads((tmp_path / f"{name}.json").read_text()), proc.stdout


def test_w1_40tops_npu_delivers_far_less(tmp_path):
    s, out = run_walkthrough(tmp_path, "w1_peak_vs_achieved.py")
    assert s["peak_tops"] == pytest.approx(40.0, rel=1e-6)
    assert 0 < s["achieved_tops"] <= 0.5 * s["peak_tops"]
    tops = [p["achieved_tops"] for p in s["sweep"]]
    assert all(b >= a for a, b in zip(tops, tops[1:])), tops          # more bandwidth never hurts
    assert tops[1] / tops[0] > 1.2, tops                                 # steep while memory bound
    assert tops[-1] / tops[-2] < 1.02, tops                              # flat at the end
    assert max(tops) <= s["peak_tops"]
    assert "memory" in out


def test_w2_double_buffering_hides_dma(tmp_path):
    s, _ = run_walkthrough(tmp_path, "w2_double_buffering.py")
    db, se = s["double_buffered_cycles"], s["serialised_cycles"]
    assert db < 0.8 * se, (db, se)
    busy_db = sum(s["double_buffered_busy"].values())
    assert db < busy_db                                   # units overlapped
    assert se >= sum(s["serialised_busy"].values())       # nothing overlapped
    assert s["double_buffered_busy"]["compute"] == s["serialised_busy"]["compute"]


def test_w3_dataflow_winner_matches_formula(tmp_path):
    s, _ = run_walkthrough(tmp_path, "w3_dataflows.py")
    winners = {}
    for row in s["layers"]:
        assert row["sim"] == row["formula"], row
        assert row["winner"] == row["predicted_winner"]
        assert row["sim"][row["winner"]] == min(row["sim"].values())
        winners[row["layer"]] = row["winner"]
    assert winners == {"early conv": "ws", "late conv": "os", "FC, batch 1": "is"}


def test_w4_fusion_saves_a_ddr_round_trip(tmp_path):
    s, _ = run_walkthrough(tmp_path, "w4_fusion.py")
    assert s["fused"]["layers"] == ["conv:Conv+Relu"]
    assert s["fused"]["cpu_fallbacks"] == 0 and s["relu_only"]["cpu_fallbacks"] == 0
    assert s["saved_bytes"] == 2 * s["conv_output_bytes"]     # one write, one read of the conv output
    assert s["fused"]["cycles"] < s["unfused"]["cycles"]
