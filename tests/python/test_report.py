"""Reports on real numbers: the classic 3x3 conv, the presets' peaks, the roofline knee of a
bandwidth sweep, energy proportionality, the trace against the report, missing energy
tables and compare-configs. Every model is built here with the onnx package."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


def conv_model(path, cin, cout, hw, k=3, pad=1):
    """One Conv (no bias) on a 1 x cin x hw x hw input, 'same' output when pad = k // 2."""
    w = np.random.default_rng(0).standard_normal((cout, cin, k, k)).astype(np.float32) * 0.05
    out = hw + 2 * pad - k + 1
    node = helper.make_node("Conv", ["x", "W"], ["y"], name="conv", kernel_shape=[k, k], pads=[pad] * 4)
    graph = helper.make_graph([node], "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, hw, hw])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, cout, out, out])],
                              [numpy_helper.from_array(w, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def write_config(path, base, name, **sections):
    """A config YAML overriding `base` (absolute path) key by key: sections={'ddr': {...}}."""
    lines = [f"base: {base}", f"name: {name}"]
    for section, keys in sections.items():
        lines.append(f"{section}:")
        lines += [f"  {k}: {v}" for k, v in keys.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def report_of(npusim, model, config, tmp_path, *extra):
    out = tmp_path / f"{config.stem}.{model.stem}.json"
    r = npusim("run", model, "--config", config, "--timing-only", "--json", out, "-q", *extra)
    assert r.code == 0, r.err
    return json.loads(out.read_text())


@pytest.fixture
def classic_conv(tmp_path):
    # 3x3 conv, 64 -> 128 channels, 56x56 output, pads 1: the classic example
    return conv_model(tmp_path / "conv3x3_64_128_56.onnx", 64, 128, 56)


def test_classic_conv_macs_and_bytes_when_everything_fits_sram(npusim, tmp_path, root, classic_conv):
    # ideal-32x32-ws has 16 MiB of SRAM: input, weights and output each cross DDR once
    rep = report_of(npusim, classic_conv, root / "configs/ideal-32x32-ws.yaml", tmp_path)
    assert rep["macs"] == 231_211_008
    (layer,) = rep["layers"]
    assert layer["macs"] == 231_211_008
    traffic = {t["kind"]: t for t in layer["ddr_traffic"] if t["kind"] != "tensor"}
    tensors = {t["name"]: t for t in layer["ddr_traffic"] if t["kind"] == "tensor"}
    x, y = tensors["x"], tensors["y"]
    assert x["size_bytes"] == 200_704 and x["bytes_read"] == 200_704
    assert traffic["weights"]["size_bytes"] == 73_728 and traffic["weights"]["bytes_read"] == 73_728
    assert y["size_bytes"] == 401_408 and y["bytes_written"] == 401_408
    params = traffic["parameters"]["bytes_read"]  # per-channel bias + requantisation, 128 channels
    assert rep["ddr"]["bytes_read"] == 200_704 + 73_728 + params
    assert rep["ddr"]["bytes_written"] == 401_408
    assert layer["ddr_bytes"] == rep["ddr"]["bytes_read"] + rep["ddr"]["bytes_written"]


def test_classic_conv_moves_at_least_its_tensors_when_tiled(npusim, tmp_path, root, classic_conv):
    rep = report_of(npusim, classic_conv, root / "configs/default.yaml", tmp_path)  # 1 MiB SRAM: tiled
    assert rep["macs"] == 231_211_008
    assert rep["ddr"]["bytes_read"] >= 200_704 + 73_728
    assert rep["ddr"]["bytes_written"] >= 401_408


def test_seed_preset_reports_5_73_peak_tops(npusim, tmp_path, root, classic_conv):
    rep = report_of(npusim, classic_conv, root / "configs/seed-5.7tops.yaml", tmp_path)
    assert round(rep["peak_tops"], 2) == 5.73
    assert rep["layers"][0]["peak_tops"] == rep["peak_tops"]


def test_40_tops_preset_on_a_memory_bound_layer(npusim, tmp_path, root):
    # 1x1 conv 64 -> 64 on 56x56: ~32 MACs per DDR byte, far below the 364 MACs/B ridge
    model = conv_model(tmp_path / "pointwise.onnx", 64, 64, 56, k=1, pad=0)
    rep = report_of(npusim, model, root / "configs/npu-40tops-55gbps.yaml", tmp_path)
    assert rep["peak_tops"] == pytest.approx(40.0)
    assert rep["ddr"]["peak_gbps"] == 55
    (layer,) = rep["layers"]
    assert layer["bound"] == "memory"
    assert layer["arithmetic_intensity"] < rep["roofline"]["ridge_macs_per_byte"]
    assert rep["achieved_tops"] <= 0.5 * rep["peak_tops"]
    assert layer["achieved_tops"] <= 0.5 * layer["peak_tops"]


def test_bandwidth_sweep_bends_at_the_ridge_point(npusim, tmp_path, root, classic_conv):
    # A 16x16 WS array (256 MACs/cycle at 1 GHz) on 256 KiB SRAM tiles the classic conv into
    # bands of rows and chunks of output channels that fill the array's 16 columns, so DDR
    # traffic spreads over the whole layer (with the whole input in SRAM it would all come
    # first). 16-byte bursts make 16-byte output runs whole bursts, so the bus moves exactly
    # the requested bytes and the layer's intensity is the roofline's.
    base = write_config(tmp_path / "sweep-base.yaml", root / "configs/default.yaml", "sweep-base",
                        mac_array={"rows": 16, "cols": 16}, ddr={"burst_bytes": 16}, sram={"capacity_kib": 256})
    program = tmp_path / "conv.npuprog"
    r = npusim("compile", classic_conv, "--config", base, "-o", program)  # one program for every bandwidth
    assert r.code == 0, r.err
    points = []
    for gbps in [0.125, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8, 16]:
        cfg = write_config(tmp_path / f"bw{gbps}.yaml", base, f"bw{gbps}", ddr={"bandwidth_gbps": gbps})
        rep = report_of(npusim, program, cfg, tmp_path)
        (layer,) = rep["layers"]
        points.append((gbps, rep["achieved_tops"], layer["bound"], layer["arithmetic_intensity"], rep["peak_tops"]))
    tops = [p[1] for p in points]
    assert all(b >= a for a, b in zip(tops, tops[1:])), points  # more bandwidth never hurts
    intensity, peak = points[0][3], points[0][4]
    assert all(p[3] == intensity for p in points)
    # the knee: where the memory-bound line (TOPS proportional to bandwidth, fitted through the
    # origin on the lowest points) meets the compute plateau (the highest points)
    slope = np.mean([t / g for g, t, *_ in points[:3]])
    plateau = np.mean(tops[-2:])
    knee_gbps = plateau / slope
    # roofline: ridge = peak ops / bandwidth; the layer turns compute-bound where the ridge
    # falls to its intensity (ops per byte = 2 x MACs per byte)
    ridge_at_knee = peak * 1e12 / (knee_gbps * 1e9)
    assert ridge_at_knee == pytest.approx(2 * intensity, rel=0.10), (knee_gbps, points)
    # and the report's own verdict flips from memory to compute around it
    ridge_gbps = peak * 1e12 / (2 * intensity) / 1e9
    for gbps, _, bound, *_ in points:
        assert bound == ("memory" if gbps < ridge_gbps else "compute"), (gbps, ridge_gbps)
    assert tops[0] < 0.3 * peak and tops[-1] > 0.9 * peak


def test_doubling_ddr_pj_doubles_ddr_energy_exactly(npusim, tmp_path, root, classic_conv):
    a = write_config(tmp_path / "e1.yaml", root / "configs/seed-5.7tops.yaml", "e1", energy={"ddr_byte_pj": 30})
    b = write_config(tmp_path / "e2.yaml", root / "configs/seed-5.7tops.yaml", "e2", energy={"ddr_byte_pj": 60})
    ea, eb = (report_of(npusim, classic_conv, c, tmp_path)["energy"] for c in (a, b))
    assert ea["ddr_uj"] > 0
    assert eb["ddr_uj"] == 2 * ea["ddr_uj"]
    for part in ["mac_int8_uj", "mac_fp16_uj", "sram_uj", "static_uj"]:
        assert eb[part] == ea[part]


def test_energy_parts_add_up_and_give_power(npusim, tmp_path, root, classic_conv):
    explicit = write_config(tmp_path / "explicit.yaml", root / "configs/seed-5.7tops.yaml", "explicit",
                            energy={"model": "explicit", "int8_mac_pj": 0.15})
    for config in (explicit, root / "configs/seed-5.7tops.yaml"):  # stated figures; derived from the 7 nm table
        rep = report_of(npusim, classic_conv, config, tmp_path)
        e = rep["energy"]
        parts = (e["mac_int8_uj"] + e["mac_fp16_uj"] + e["sram_uj"] + e["ddr_uj"] + e["vector_uj"] + e["dma_uj"]
                 + e["static_uj"])
        assert e["total_uj"] == pytest.approx(parts, rel=1e-12)
        assert e["average_power_mw"] == pytest.approx(e["total_uj"] / rep["latency_us"] * 1000)
        assert e["tops_per_watt"] == pytest.approx(2 * rep["macs"] / (e["total_uj"] * 1e6))
        assert e["inferences_per_joule"] == pytest.approx(1e6 / e["total_uj"])
        assert e["energy_delay_uj_us"] == pytest.approx(e["total_uj"] * rep["npu_latency_us"])
        area = rep["area"]
        assert area["peak_tops_per_mm2"] == pytest.approx(rep["peak_tops"] / area["total_mm2"])
    e = report_of(npusim, classic_conv, explicit, tmp_path)["energy"]
    assert e["mac_int8_uj"] == pytest.approx(231_211_008 * 0.15e-6)  # 0.15 pJ per INT8 MAC
    assert e["vector_uj"] == e["dma_uj"] == e["leakage_uj"] == e["clock_uj"] == 0  # not split in this model
    derived = report_of(npusim, classic_conv, root / "configs/seed-5.7tops.yaml", tmp_path)
    e, leak = derived["energy"], derived["leakage"]
    assert derived["cost_model"]["model"] == "derived" and derived["cost_model"]["tech_nm"] == 7
    assert e["vector_uj"] > 0 and e["dma_uj"] > 0 and e["leakage_uj"] > 0 and e["clock_uj"] > 0
    assert e["static_mw"] == pytest.approx(leak["total_mw"] + leak["clock_mw"] + leak["uncore_mw"])
    assert leak["total_mw"] == pytest.approx(sum(v for k, v in leak.items() if k.endswith("_mw") and k not in
                                                 ("total_mw", "clock_mw", "uncore_mw")))
    assert derived["area"]["total_mm2"] == pytest.approx(sum(v for k, v in derived["area"].items() if k.endswith("_mm2")
                                                             and k != "total_mm2" and "per_mm2" not in k))


def test_config_without_energy_table_reports_without_energy_once(npusim, tmp_path, root, classic_conv):
    cfg = root / "configs/ideal-32x32-ws.yaml"  # has no energy section
    out = tmp_path / "r.json"
    r = npusim("run", classic_conv, "--config", cfg, "--timing-only", "--json", out)
    assert r.code == 0, r.err
    text = r.out + r.err
    assert text.count("energy: not modelled") == 1
    assert f"energy: not modelled ({cfg} has no energy table)" in r.out
    rep = json.loads(out.read_text())
    assert rep["energy"] is None and "no energy table" in rep["energy_note"]
    assert rep["macs"] == 231_211_008


def test_trace_tracks_layers_and_busy_cycles_match_the_report(npusim, tmp_path, root):
    model = root / "models/tiny_convnet.onnx"
    trace, out = tmp_path / "t.json", tmp_path / "r.json"
    r = npusim("run", model, "--config", root / "configs/default.yaml", "--timing-only", "--trace", trace,
               "--json", out, "-q")
    assert r.code == 0, r.err
    rep = json.loads(out.read_text())
    events = json.loads(trace.read_text())["traceEvents"]
    tracks = {e["args"]["name"]: e["tid"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    assert {"load", "compute", "vector", "store", "dma0", "dma1"} <= set(tracks)
    counters = [e for e in events if e.get("ph") == "C"]
    assert counters and all(e["name"] == "DDR bandwidth" for e in counters)
    assert max(e["args"]["GB/s"] for e in counters) > 0
    complete = [e for e in events if e.get("ph") == "X"]
    layer_names = {l["name"] for l in rep["layers"] if l["device"] == "npu" and l["cycles"] > 0}
    assert layer_names <= {e["args"].get("layer") for e in complete}
    assert all("tile_index" in e["args"] for e in complete if e["cat"] in ("compute", "vector"))
    for unit in ["load", "compute", "vector", "store"]:
        cycles = sum(e["args"]["cycles"] for e in complete if e["tid"] == tracks[unit])
        assert cycles == rep[unit]["busy_cycles"], unit
    for i, channel in enumerate(rep["dma_channels"]):
        cycles = sum(e["args"]["cycles"] for e in complete if e["tid"] == tracks[f"dma{i}"])
        assert cycles == channel["busy_cycles"]
    # the per-layer busy cycles add up to the units' (layers own disjoint instructions)
    for unit in ["compute", "vector"]:
        assert sum(l[f"{unit}_cycles"] for l in rep["layers"]) == rep[unit]["busy_cycles"]


def test_compare_configs_ratios_match_the_individual_runs(npusim, tmp_path, root):
    model = root / "models/tiny_convnet.onnx"
    a, b = root / "configs/default.yaml", root / "configs/seed-5.7tops.yaml"
    out = tmp_path / "cmp.json"
    r = npusim("compare-configs", model, "--config", a, "--config", b, "--json", out)
    assert r.code == 0, r.err
    assert "B/A" in r.out
    cmp = json.loads(out.read_text())
    ra, rb = report_of(npusim, model, a, tmp_path), report_of(npusim, model, b, tmp_path)
    metrics = {m["name"]: m for m in cmp["metrics"]}
    for name, key in [("NPU cycles", "cycles"), ("achieved TOPS", "achieved_tops"), ("peak TOPS", "peak_tops")]:
        assert metrics[name]["values"] == [ra[key], rb[key]]
        assert metrics[name]["ratios"][1] == pytest.approx(rb[key] / ra[key], rel=1e-12)
    energy = metrics["energy"]
    assert energy["ratios"][1] == pytest.approx(rb["energy"]["total_uj"] / ra["energy"]["total_uj"], rel=1e-12)
    ratio_line = next(l for l in r.out.splitlines() if l.startswith("NPU cycles"))
    assert f"{rb['cycles'] / ra['cycles']:.3f}" in ratio_line


def test_layer_table_csv_and_top(npusim, tmp_path, root):
    csv = tmp_path / "layers.csv"
    r = npusim("run", root / "models/tiny_convnet.onnx", "--config", root / "configs/default.yaml", "--timing-only",
               "--csv", csv, "--top", "2")
    assert r.code == 0, r.err
    rows = csv.read_text().splitlines()
    assert rows[0].startswith("name,op,device,macs,ddr_bytes")
    assert len(rows) == 1 + 7  # every layer in the CSV
    assert "2 costliest of 7 layers by cycles:" in r.out
    table = r.out.split("2 costliest of 7 layers by cycles:")[1].splitlines()
    assert len([l for l in table[2:] if l.strip() and not l.startswith("bound:")]) == 2


def test_roofline_command_text_json_and_png(npusim, tmp_path, root):
    png = tmp_path / "roof.png"
    r = npusim("roofline", root / "models/tiny_convnet.onnx", "--config", root / "configs/npu-40tops-55gbps.yaml",
               "-o", png)
    assert r.code == 0, r.err
    assert "ridge    363.6 MACs per DDR byte" in r.out
    data = json.loads((tmp_path / "roof.json").read_text())
    assert data["ridge_macs_per_byte"] == pytest.approx(16384 / (55e3 / 1220.703125))
    assert all(l["bound"] == "memory" for l in data["layers"])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_script_takes_a_run_report_too(npusim, tmp_path, root):
    import subprocess
    import sys
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    r = npusim("run", root / "models/tiny_convnet.onnx", "--config", root / "configs/default.yaml", "--timing-only",
               "--json", out, "-q")
    assert r.code == 0, r.err
    subprocess.run([sys.executable, str(root / "scripts/plot_roofline.py"), str(out), "-o", str(png)], check=True)
    assert png.read_bytes()[:4] == b"\x89PNG"
