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


RACE = """\
.tensor name=A role=input  dtype=int8  shape=128x64 layout=NC addr=0x10000
.tensor name=B role=input  dtype=int8  shape=64x64  layout=NC addr=0x20000
.tensor name=C role=output dtype=int32 shape=128x64 layout=NC addr=0x30000
  load channel=0 ddr_addr=0x20000 sram_addr=0x0000 len0=4096
  load channel=0 ddr_addr=0x10000 sram_addr=0x1000 len0=8192{load_tokens}
  gemm mac_dtype=0 a_addr=0x1000 b_addr=0x0000 c_addr=0x4000 m=128 n=64 k=64{gemm_tokens}
  store channel=1 ddr_addr=0x30000 sram_addr=0x4000 len0=32768{store_tokens}
"""


def test_check_hazards_finds_a_race_and_passes_the_tokened_program(npusim, tmp_path, root):
    racy = tmp_path / "race.npuasm"
    racy.write_text(RACE.format(load_tokens="", gemm_tokens="", store_tokens=""))
    r = npusim("sim", racy, "-c", root / "configs/default.yaml", "--timing-only", "--check-hazards", "-q")
    assert r.code == 1
    # The gemm starts before both loads of its operands end, the store before the gemm: three races.
    hazards = [l for l in r.err.splitlines() if l.startswith("hazard:")]
    assert len(hazards) == 3, r.err
    assert "instruction 2 (gemm)" in hazards[0] and "instruction 0 (load)" in hazards[0]
    assert "read after write of sram [0x0, 0x1000)" in hazards[0]
    assert "read after write of sram [0x4000, 0xc000)" in hazards[2]
    tokened = tmp_path / "ok.npuasm"
    tokened.write_text(RACE.format(load_tokens=" push=compute", gemm_tokens=" pop=load push=store",
                                   store_tokens=" pop=compute"))
    r = npusim("sim", tokened, "-c", root / "configs/default.yaml", "--timing-only", "--check-hazards")
    assert r.code == 0, r.err
    assert "hazards: none (4 instructions checked" in r.out
    # And a compiled model: the compiler's tokens leave no race.
    prog = tmp_path / "tiny.npuprog"
    assert npusim("compile", root / "models/tiny_convnet.onnx", "-c", root / "configs/npu-40tops-55gbps.yaml",
                  "-o", prog, "-q").code == 0
    r = npusim("sim", prog, "-c", root / "configs/npu-40tops-55gbps.yaml", "--check-hazards")
    assert r.code == 0, r.err
    assert "hazards: none" in r.out
