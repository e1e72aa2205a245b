"""The sim command's JSON report and Chrome trace."""
import json

EXAMPLE = "examples/gemm_int8_double_buffered.npuasm"


def test_json_report_has_the_documented_keys(npusim, tmp_path, root):
    out = tmp_path / "r.json"
    r = npusim("sim", root / EXAMPLE, "--config", root / "configs/default.yaml", "--json", out)
    assert r.code == 0, r.err
    rep = json.loads(out.read_text())
    for key in ["cycles", "latency_us", "clock_mhz", "macs", "peak_tops", "achieved_tops", "mac_utilization"]:
        assert key in rep
    assert rep["macs"] == 128 * 64 * 64
    assert rep["ddr"]["bytes_read"] == 128 * 64 + 64 * 64
    assert rep["ddr"]["bytes_written"] == 128 * 64 * 4
    for unit in ["load", "compute", "vector", "store"]:
        assert "busy_cycles" in rep[unit]
    assert abs(rep["latency_us"] - rep["cycles"] / rep["clock_mhz"]) < 1e-6
    assert abs(rep["achieved_tops"] - 2 * rep["macs"] / (rep["latency_us"] * 1e-6) / 1e12) < 1e-9


def test_timing_only_same_cycles_on_the_cli(npusim, tmp_path, root):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert npusim("sim", root / EXAMPLE, "-c", root / "configs/default.yaml", "--json", a).code == 0
    assert npusim("sim", root / EXAMPLE, "-c", root / "configs/default.yaml", "--json", b, "--timing-only").code == 0
    assert json.loads(a.read_text())["cycles"] == json.loads(b.read_text())["cycles"]


def test_trace_is_chrome_trace_json_with_one_track_per_unit(npusim, tmp_path, root):
    trace, rep = tmp_path / "t.json", tmp_path / "r.json"
    r = npusim("sim", root / EXAMPLE, "-c", root / "configs/default.yaml", "--trace", trace, "--json", rep)
    assert r.code == 0, r.err
    doc = json.loads(trace.read_text())
    events = doc["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    assert {"load", "compute", "store"} <= names
    tid = {e["args"]["name"]: e["tid"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    report = json.loads(rep.read_text())
    # compute instructions never overlap, so their durations sum to the unit's busy time
    us_per_cycle = 1.0 / report["clock_mhz"]
    compute_us = sum(e["dur"] for e in events if e.get("ph") == "X" and e["tid"] == tid["compute"])
    assert abs(compute_us - report["compute"]["busy_cycles"] * us_per_cycle) < 1e-3


def test_asm_disasm_round_trip_on_the_examples(npusim, tmp_path, root):
    for name in ["gemm_int8_double_buffered", "conv_bias_relu_requant"]:
        p1, p2, text = tmp_path / f"{name}.npuprog", tmp_path / f"{name}2.npuprog", tmp_path / f"{name}.npuasm"
        assert npusim("asm", root / f"examples/{name}.npuasm", "-o", p1).code == 0
        assert npusim("disasm", p1, "-o", text).code == 0
        assert npusim("asm", text, "-o", p2).code == 0
        assert p1.read_bytes() == p2.read_bytes()


def test_every_subcommand_has_help(npusim):
    for cmd in ["asm", "disasm", "sim", "isa-doc"]:
        r = npusim(cmd, "--help")
        assert r.code == 0 and "usage: npusim " + cmd in r.out


def test_isa_md_is_current(npusim, root):
    r = npusim("isa-doc")
    assert r.code == 0
    assert r.out == (root / "isa/ISA.md").read_text(), "regenerate: build/bin/npusim isa-doc -o isa/ISA.md"
