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


_RUNS = {}


@pytest.fixture(scope="module")
def walk(tmp_path_factory):
    """run_walkthrough once per script and arguments for the whole module (several tests read one run)."""
    def run(script, *extra):
        key = (script, extra)
        if key not in _RUNS:
            _RUNS[key] = run_walkthrough(tmp_path_factory.mktemp(pathlib.Path(script).stem), script, *extra)
        return _RUNS[key]
    return run


def test_w1_40tops_npu_delivers_far_less(tmp_path):
    s, out = run_walkthrough(tmp_path, "w1_peak_vs_achieved.py")
    assert s["peak_tops"] == pytest.approx(40.0, rel=1e-6)
    assert 0 < s["achieved_tops"] <= 0.5 * s["peak_tops"]
    tops = [p["achieved_tops"] for p in s["sweep"]]
    assert all(b >= a for a, b in zip(tops, tops[1:])), tops          # more bandwidth never hurts
    # Steep while memory bound, flat at the end (the first doubling gave x1.20 with the step
    # scheduler, x1.4 before it, x1.08 since every layer's region stays clear of its
    # predecessors' and the tiny model's weights load under earlier layers even at 6.9 GB/s:
    # the claim is the shape, not the figure).
    assert tops[1] / tops[0] > 1.05, tops
    assert tops[-1] / tops[-2] < 1.02, tops
    assert tops[1] / tops[0] > tops[-1] / tops[-2], tops
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


def test_w7_scratchpad_size_sets_one_layers_ddr_traffic(walk):
    s, _ = walk("w7_one_layer.py")
    assert s["macs"] == 231_211_008
    assert s["tensor_bytes"] == {"input": 200_704, "weights": 73_728, "output": 401_408}
    rows = s["sizes"]
    total = [r["ddr_read"] + r["ddr_written"] for r in rows]
    dmas = [r["dma_transfers"] for r in rows]
    for r, t in zip(rows, total):
        assert t >= s["one_pass_bytes"]                          # no tensor crosses DDR less than once
        assert r["output_written"] == s["tensor_bytes"]["output"]   # the output is written exactly once
    assert all(b <= a for a, b in zip(total, total[1:])), total   # more scratchpad never moves more bytes
    assert all(b <= a for a, b in zip(dmas, dmas[1:])), dmas
    assert total[0] > 2 * s["one_pass_bytes"] and dmas[0] > 10 * dmas[-1]   # small: tiled, re-read
    assert rows[0]["bound"] == "memory" and rows[-1]["bound"] == "compute"   # SRAM moves it across the ridge
    assert rows[-1]["weights_read"] == s["tensor_bytes"]["weights"]


def test_w7_large_scratchpad_moves_each_tensor_once(walk):
    s, _ = walk("w7_one_layer.py")
    big = s["sizes"][-1]
    assert big["input_read"] == s["tensor_bytes"]["input"]
    assert big["ddr_read"] + big["ddr_written"] == s["one_pass_bytes"]


def test_w11_pipelining_raises_throughput_not_latency(tmp_path):
    s, _ = run_walkthrough(tmp_path, "w11_pipelining.py")
    sched = s["schedules"]
    stages = {"pre": s["pre_ms"], "inference": s["infer_ms"], "post": s["post_ms"]}
    slowest = max(stages.values())
    assert s["slowest_stage"] == max(stages, key=stages.get) == "inference"
    assert sched["2 buffers"]["throughput_fps"] >= 1.25 * sched["serial"]["throughput_fps"]
    assert sched["2 buffers"]["frame_interval_us"] == pytest.approx(1000 * slowest, rel=1e-6)
    assert sched["serial"]["frame_interval_us"] == pytest.approx(1000 * sum(stages.values()), rel=1e-6)
    assert sched["1 buffer"]["frame_interval_us"] == pytest.approx(1000 * (s["pre_ms"] + s["infer_ms"]), rel=1e-6)
    assert sched["3 buffers"]["frame_interval_us"] == pytest.approx(sched["2 buffers"]["frame_interval_us"])
    # Latency: the first frame takes all three stages either way; later ones wait for the NPU.
    assert sched["2 buffers"]["first_latency_us"] == pytest.approx(sched["serial"]["first_latency_us"])
    assert sched["2 buffers"]["mean_latency_us"] >= sched["serial"]["mean_latency_us"]


def test_w8_tops_formula_and_the_bandwidth_wall(walk):
    s, _ = walk("w8_tops_bandwidth.py")
    peaks = {p["config"]: p for p in s["presets"]}
    for p in peaks.values():
        assert p["simulator_peak_tops"] == pytest.approx(p["formula_tops"], rel=1e-9)
    assert peaks["seed-5.7tops.yaml"]["formula_tops"] == pytest.approx(5.73, abs=0.01)
    assert peaks["npu-40tops-55gbps.yaml"]["formula_tops"] == pytest.approx(40.0, rel=1e-9)
    assert [a["gbps_for_40_tops"] for a in s["assumptions"]] == pytest.approx([40000.0, 80.0])
    for m in s["models"]:
        alone, shared = m["alone"], m["shared"]
        assert alone["achieved_tops"] <= alone["bound_tops"] * (1 + 1e-9), m   # nothing beats the roofline
        assert shared["achieved_tops"] <= shared["bound_tops"] * (1 + 1e-9), m
        assert alone["achieved_tops"] < 0.5 * alone["peak_tops"], m            # half of peak is already good
        assert shared["achieved_tops"] <= alone["achieved_tops"], m             # sharing the bus never helps
        assert m["gbps_for_peak"] > alone["ddr_gbps"], m                        # 55 GB/s cannot feed 40 TOPS


def test_w9_silent_fallback_is_slower_than_the_cpu(walk):
    s, out = walk("w9_silent_fallback.py")
    cases = s["cases"]
    fb = cases["npu + fallback"]
    reasons = {f["op"]: f["reason"] for f in fb["fallbacks"]}
    assert set(reasons) == {"CumSum", "ScatterND"}, reasons
    assert fb["transitions"] == 4 and fb["transfer_bytes"] > 0            # two round trips NPU -> CPU -> NPU
    assert fb["latency_us"] > cases["cpu alone"]["latency_us"]           # the claim
    assert cases["npu, no odd ops"]["latency_us"] < cases["cpu alone"]["latency_us"]   # the NPU itself is faster
    assert cases["npu, no odd ops"]["fallbacks"] == [] and cases["npu, no odd ops"]["transitions"] == 0
    # what finds it: --explain lists each fallback, --strict refuses naming the first odd op
    assert any("row_integral (CumSum)" in line for line in s["explain_fallbacks"])
    assert any("mask_top_row (ScatterND)" in line for line in s["explain_fallbacks"])
    assert s["strict_exit"] == 1 and "--strict: node 'row_integral' (CumSum) would fall back" in s["strict_error"]


def test_w10_mixed_precision_promotes_the_sensitive_layers(walk):
    s, out = walk("w10_mixed_precision.py")
    c, target = s["cases"], s["target_cosine"]
    # accuracy: the NPU's own output against ONNX Runtime on inputs calibration never saw
    assert c["int8"]["cosine_mean"] < target <= c["mixed"]["cosine_mean"], c
    assert c["mixed"]["cosine_min"] <= c["mixed"]["cosine_mean"] <= c["fp16"]["cosine_mean"] + 1e-9
    # time: mixed costs more than int8 and less than fp16
    assert c["int8"]["latency_us"] < c["mixed"]["latency_us"] < c["fp16"]["latency_us"], c
    # the most sensitive layer of quant-report is promoted, and not every layer is
    ranking, promoted = s["report"]["ranking"], s["promoted"]
    assert 0 < len(promoted) < len(ranking), promoted
    assert ranking[0] in promoted, (promoted, ranking)
    assert s["report"]["all_int8_cosine"] < target
    # the extra time is in the promoted layers and the int8<->fp16 converters around them
    # (a promoted conv takes 4 MAC slots per fp16 MAC; a promoted pool may cost the same as before)
    changed = set(s["changed_layers"])
    assert {n for n in promoted if n.startswith("conv")} <= changed, (changed, promoted)
    assert any(n.endswith(("_quantize", "_dequantize")) for n in changed), changed
    assert f"promoted to fp16: {', '.join(promoted)}" in out
    # --keep-fp16 with the same layers builds the same program
    keep = s["keep_fp16"]
    assert keep["line"].startswith(f"fp16 layers by --keep-fp16 ({len(promoted)})"), keep["line"]
    assert keep["latency_us"] == c["mixed"]["latency_us"]
    assert keep["cosine_mean"] == pytest.approx(c["mixed"]["cosine_mean"], abs=1e-6)


def test_w13_dynamic_shape_refused_then_fixed(walk):
    s, _ = walk("w13_static_shapes.py")
    assert s["refused_exit"] == 1
    assert "input 'input' dim 0 ('batch') is dynamic" in s["refused_error"] and "--input-shape" in s["refused_error"]
    assert len(s["refused_error"].splitlines()) == 1
    assert s["fixed_exit"] == 0
    big, small = s["big"], s["small"]
    assert s["wrong_shape_exit"] == 1
    assert f"expected float32[1x3x{big}x{big}] NCHW, got float32[1x3x{small}x{small}]" in s["wrong_shape_error"]
    pad, exact, cpu = s["options"]
    assert pad["macs"] == 4 * exact["macs"] == 4 * pad["useful_macs"]   # padding 2x per side: 4x the work
    assert exact["latency_us"] < pad["latency_us"] < cpu["latency_us"]


def test_w6_misaligned_input_bounces_and_is_slower(walk):
    s, _ = walk("w6_alignment.py")
    for r in s["rows"]:
        assert r["misaligned"]["bounce_copies"] > r["aligned"]["bounce_copies"], r   # the input's reads bounce
        assert r["misaligned"]["latency_us"] > r["aligned"]["latency_us"], r     # the aligned pipeline is faster
    for p in s["sweep"]:   # the stem model: nothing but its input is off the grid
        assert (p["bounce_copies"] == 0) == (p["offset"] % s["alignment"] == 0), p
    stem_default = next(r for r in s["rows"] if r["model"].startswith("stem") and r["preset"] == "default.yaml")
    assert stem_default["slowdown"] > 0.10            # an input-bound model pays double-digit percent ...
    for r in s["rows"]:
        if r["model"].startswith("resnet_small"):
            assert r["slowdown"] < 0.05, r            # ... a model with real work behind the input does not


def test_w5_channel_last_suits_the_dma(walk):
    s, _ = walk("w5_layout.py")
    t = s["tiles"]
    assert t["nhwc"]["bus_bytes"] == t["nhwc"]["bytes"]                    # one long run: no burst wasted
    assert t["nchw dma gather"]["bus_bytes"] == 64 * t["nchw dma gather"]["bytes"]   # a 64-byte burst per byte
    assert t["nchw dma gather"]["cycles"] > 10 * t["nhwc"]["cycles"]
    assert t["nchw + vector"]["vector_cycles"] > 0
    assert t["nhwc"]["cycles"] < t["nchw + vector"]["cycles"] < t["nchw dma gather"]["cycles"]
    assert t["box nchw"]["bus_bytes"] > 2 * t["box nhwc"]["bus_bytes"]      # short runs of a narrow tile
    assert t["box nchw"]["cycles"] > t["box nhwc"]["cycles"]
    # The NCHW model's input is transposed on the host, at the NPU boundary, by the runtime.
    conv = s["compiled"]["nchw"]["input_conversion"]
    assert conv["from"] == "float32 NCHW" and conv["to"] == "int8 NHWC", conv
    assert s["cosine"] > 0.99                                             # both models compute the same conv


def test_w5_nhwc_input_needs_no_transpose(walk):
    s, _ = walk("w5_layout.py")
    nhwc, nchw = s["compiled"]["nhwc"], s["compiled"]["nchw"]
    assert nhwc["fallbacks"] == [] and nhwc["transitions"] == 0
    # The Transpose(0,3,1,2) is folded into the input's layout: the host hands its NHWC bytes over
    # (quantised, not transposed) and no Relayout runs on the NPU.
    assert nhwc["input_conversion"]["from"] == "float32 NHWC" and nhwc["input_conversion"]["to"] == "int8 NHWC"
    assert not any(text.startswith("input") for text in nhwc["host_transposes"]), nhwc["host_transposes"]
    assert nhwc["npu_relayouts"] == [] and nhwc["npu_relayout_cycles"] == 0
    assert "0 relayout copies, 1 NCHW<->NHWC conversions" in nhwc["layout_pass"], nhwc["layout_pass"]  # the output
    assert nhwc["latency_us"] <= nchw["latency_us"], (nhwc["latency_us"], nchw["latency_us"])


def test_w12_igpu_faster_npu_more_inferences_per_joule(walk):
    s, _ = walk("w12_npu_vs_igpu.py")
    rows = s["models"]
    assert rows[0]["igpu"]["peak_tops"] == pytest.approx(67.2, rel=1e-3)     # Intel's 67 TOPS
    assert rows[0]["npu"]["peak_tops"] == pytest.approx(48.0, rel=1e-6)
    biggest = max(rows, key=lambda r: r["npu"]["macs"])
    assert biggest["igpu"]["latency_us"] < biggest["npu"]["latency_us"]     # the iGPU wins on speed for big models
    for r in rows:
        assert r["npu"]["inferences_per_joule"] > r["igpu"]["inferences_per_joule"], r   # the NPU on energy
        assert r["npu"]["power_mw"] < r["igpu"]["power_mw"], r


def llm_run(walk):
    s, _ = walk("w14_llm_decode.py")
    assert not s["fallback_ops"], f"transformer ops fell back to the CPU: {', '.join(s['fallback_ops'])}"
    return s


def test_w14_decode_is_memory_bound_prefill_is_not(walk):
    s = llm_run(walk)
    for r in s["presets"]:
        dec, pre = r["decode"], r["prefill"]
        dec_intensity = dec["macs"] / (dec["ddr_read"] + dec["ddr_written"])
        pre_intensity = pre["macs"] / (pre["ddr_read"] + pre["ddr_written"])
        assert dec_intensity < 2 < dec["ridge"], r           # about one MAC per weight byte: far left of the ridge
        assert pre_intensity > 10 * dec_intensity, r          # prefill reuses every weight for T tokens
        assert dec["ddr_read"] >= s["weight_bytes"], r        # every weight byte crosses DDR for one token
        assert pre["npu_us"] / s["prefill_tokens"] < dec["npu_us"], r
    times = [p["npu_us"] for p in s["kv_sweep"]]
    assert all(b > a for a, b in zip(times, times[1:])), times   # a longer cache is more bytes per token


def test_w14_w4a8_decode_streams_half_the_weight_bytes(walk):
    """INT4 weights beside INT8 activations: the decode step reads half the weight bytes through
    the same integer array, so it is well below INT8's time and never below its own bytes' bound."""
    s = llm_run(walk)
    for r in s["presets"]:
        w4a8, int8 = r["w4a8"], r["decode"]
        assert w4a8["ddr_read"] < int8["ddr_read"] - 0.45 * s["weight_bytes"], r
        assert w4a8["macs"] == int8["macs"], r
        assert r["w4a8_bound_us"] * 0.99 <= w4a8["npu_us"] < 0.75 * int8["npu_us"], r


def test_w14_weight_only_int4_faster_than_int8_faster_than_fp16(walk):
    """Weight-only quantisation (fp16 activations) on the weight-streaming half of a decode step:
    never faster than its bounds (weight bytes / bandwidth, the array's GEMV rate), and the
    weight bytes set the pace where DDR is the bound."""
    s = llm_run(walk)
    for preset in {f["preset"] for f in s["weight_formats"]}:
        f = {r["weights"]: r for r in s["weight_formats"] if r["preset"] == preset}
        for r in f.values():
            assert r["mlp_us"] >= 0.95 * max(r["mlp_bound_us"], r["mlp_array_us"]), r
        assert f["fp16"]["mlp_us"] > f["int8"]["mlp_us"] >= 0.99 * f["int4"]["mlp_us"], f
        assert f["fp16"]["npu_us"] > f["int4"]["npu_us"], f   # the whole block too, diluted by the KV cache
        ddr_bound = [w for w in ("fp16", "int8") if f[w]["mlp_bound_us"] > f[w]["mlp_array_us"]]
        if ddr_bound == ["fp16", "int8"]:   # both memory-bound: the time follows the bytes
            bytes_ratio = f["fp16"]["mlp_weight_bytes"] / f["int8"]["mlp_weight_bytes"]
            assert f["fp16"]["mlp_us"] / f["int8"]["mlp_us"] > 0.75 * bytes_ratio, f
    assert any(f["weights"] == "int8" and f["mlp_bound_us"] > f["mlp_array_us"] for f in s["weight_formats"])


def test_w14_decode_time_is_weight_bytes_over_bandwidth(walk):
    """d = 512 (--quick too): 3 MB of weights against about 130 cycles of fixed cost per layer.
    At d = 256 the attention chain's round trips are a third of the step (examples/README.md)."""
    s = llm_run(walk)
    for r in s["presets"]:
        assert r["decode"]["npu_us"] == pytest.approx(r["stream_bound_us"], rel=0.15), r


def test_w14_a_decoders_step_is_within_15_percent_of_its_bytes(walk):
    """A decoder's decode step (--quick: four d = 256 blocks) pays one block's start and end once:
    within 15 % of (weights + K/V caches) / bandwidth on both presets, where one d = 256 block
    alone is not (examples/README.md)."""
    s = llm_run(walk)
    assert {r["preset"] for r in s["decoder_steps"]} == {r["preset"] for r in s["presets"]}
    for r in s["decoder_steps"]:
        assert not r["fallbacks"], r
        assert r["weight_bytes"] == r["blocks"] * 12 * r["d"] ** 2, r
        assert r["stream_bound_us"] <= r["npu_us"] <= 1.15 * r["stream_bound_us"], r


def test_w15_engines_win_where_the_ddr_keeps_up(walk):
    """The same 4096 MACs as one array or 2 or 4 engines: the same peak; on the CNNs four engines
    beat the one array at 102.4 GB/s and gain less (or lose) at 25.6 GB/s, where they keep the
    shared DDR busier."""
    s, out = walk("w15_engines.py")
    assert "four engines" in out
    rows = {(r["model"], r["ddr_gbps"]): {d["design"]: d for d in r["designs"]} for r in s["rows"]}
    for designs in rows.values():
        assert {round(d["peak_tops"], 6) for d in designs.values()} == {8.192}
        assert designs["1 x 64x64"]["speedup"] == 1.0
    for cnn in ("resnet_small", "mobilenetv2@64"):
        slow, fast = rows[(cnn, 25.6)]["4 x 32x32"], rows[(cnn, 102.4)]["4 x 32x32"]
        assert fast["speedup"] > 1.15, (cnn, fast)
        assert slow["speedup"] < fast["speedup"] - 0.2, (cnn, slow, fast)
    one, four = rows[("resnet_small", 25.6)]["1 x 64x64"], rows[("resnet_small", 25.6)]["4 x 32x32"]
    assert four["ddr_utilization"] > one["ddr_utilization"] + 0.2, (one, four)
