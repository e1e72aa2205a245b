#!/usr/bin/env python3
"""Walkthrough 8: TOPS is 2 x MACs x clock; what feeds them is DDR bandwidth.

Part 1, the datasheet number: peak TOPS = 2 ops (multiply + add) x MACs x clock. For the seed
preset, 64 x 32 = 2048 INT8 MACs at 1.4 GHz: 2 x 2048 x 1.4e9 = 5.73 TOPS; a preset with several
engines counts every engine's MACs (Lunar Lake: 6 x 2048). The script checks the formula against
the simulator's peak for every preset.

Part 2, the bytes behind it. "INT8 needs at least 2 bytes per MAC" is true only with no reuse:
one activation byte and one weight byte from DDR per MAC, so 40 TOPS (20 T MACs/s) would need
40 TB/s. "40 TOPS needs 80 GB/s" assumes 80e9 / 20e12 = 0.004 DDR bytes per MAC, i.e. every
byte fetched from DDR is used by 250 MACs (500 ops per byte). What a real layer reaches is its
arithmetic intensity, MACs per DDR byte as the simulator counts them; the bandwidth that
would feed the peak is peak MACs/s / intensity.

Part 3, the wall: each model compiled INT8 for configs/npu-40tops-55gbps.yaml (40 TOPS,
55 GB/s) and run timing-only, once with the bus to itself and once with 30 % of it taken by
the CPU/GPU (ddr.other_agents_share = 0.3, as on a shared LPDDR5x bus): achieved TOPS against
the roofline bound min(peak, 2 x intensity x bandwidth).

    python3 examples/walkthroughs/w8_tops_bandwidth.py [--quick]

--quick: the bundled tiny ConvNet, two exported models and the 3x3 64->128 56x56 conv of
walkthrough 7; full mode adds ResNet-18 and ResNet-50 at 224x224 (scripts/make_models.py).
"""

import numpy as np

from _common import REPO, import_npusim, model_ladder, parse_args, pyplot, rel, save_figure, save_summary

CONFIG = REPO / "configs" / "npu-40tops-55gbps.yaml"
PRESETS = ["default.yaml", "seed-5.7tops.yaml", "npu-40tops-55gbps.yaml", "intel-npu-lunar-lake.yaml",
           "snapdragon-8-elite-htp.yaml"]
SHARED = 0.3


def conv_layer(out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((128, 64, 3, 3)) * 0.05).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w"], ["output"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
        "conv", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 64, 56, 56])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 128, 56, 56])], [w])
    path = out / "w8_conv_64_128_56.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)

    print("1. peak TOPS = 2 x MACs x clock")
    presets = []
    for name in PRESETS:
        cfg = npusim.load_config(str(REPO / "configs" / name))
        d = npusim.config_to_dict(cfg)
        macs = d["mac_array"]["rows"] * d["mac_array"]["cols"] * d["engines"]["count"]
        formula = 2 * macs * d["clock"]["frequency_mhz"] * 1e6 / 1e12
        presets.append({"config": name, "macs": macs, "clock_mhz": d["clock"]["frequency_mhz"],
                        "formula_tops": formula})
    # the simulator's own peak, from a run's report (a tiny model is enough)
    for p in presets:
        _, rep = npusim.compile(str(REPO / "models" / "tiny_convnet.onnx"),
                                npusim.load_config(str(REPO / "configs" / p["config"]))).run(timing_only=True)
        p["simulator_peak_tops"] = rep["peak_tops"]
        print(f"  {p['config']:28s} {p['macs']:6d} MACs x {p['clock_mhz']:9.3f} MHz x 2 = {p['formula_tops']:7.3f} TOPS "
              f"(simulator: {p['simulator_peak_tops']:.3f})")

    peak_macs_per_s = 20e12   # 40 TOPS
    print("2. bytes per MAC: the bandwidth 40 TOPS (20e12 MACs/s) needs at a given reuse")
    assumptions = [("no reuse: 1 activation + 1 weight byte per MAC", 2.0),
                   ("'40 TOPS needs 80 GB/s': each DDR byte feeds 250 MACs", 1 / 250)]
    for text, bytes_per_mac in assumptions:
        print(f"  {text:58s} {bytes_per_mac:8.4f} B/MAC -> {peak_macs_per_s * bytes_per_mac / 1e9:10.1f} GB/s")

    print(f"3. the wall: {rel(CONFIG)} (40 TOPS, 55 GB/s), alone on the bus and with {SHARED:.0%} taken by others")
    cfg = npusim.load_config(str(CONFIG))
    shared_cfg = npusim.with_values(cfg, {"ddr.other_agents_share": SHARED})
    rows = []
    for name, path in model_ladder(args, **{"conv3x3 64->128 56x56": conv_layer(args.out)}).items():
        session = npusim.compile(str(path), cfg, precision="int8")
        row = {"model": name}
        for label, c in (("alone", cfg), ("shared", shared_cfg)):
            _, rep = session.with_config(c).run(timing_only=True)
            ddr = rep["ddr"]["bytes_read"] + rep["ddr"]["bytes_written"]
            npu_macs = rep["macs"]
            intensity = npu_macs / ddr
            gbps = rep["roofline"]["ddr_gbps"]
            # Roofline over the NPU's own time (CPU fallback steps excluded: they have no DDR bytes here).
            achieved = 2 * npu_macs / (rep["npu_latency_us"] * 1e-6) / 1e12
            row[label] = {"ddr_gbps": gbps, "achieved_tops": achieved, "peak_tops": rep["peak_tops"],
                          "bound_tops": min(rep["peak_tops"], 2 * intensity * gbps / 1000),
                          "npu_us": rep["npu_latency_us"], "fallbacks": len(rep["fallbacks"])}
        row.update({"macs": npu_macs, "ddr_bytes": ddr, "intensity": intensity,
                    "bytes_per_mac": ddr / npu_macs,
                    "gbps_for_peak": peak_macs_per_s / intensity / 1e9})
        rows.append(row)
    print(f"  {'model':24s} {'MACs':>11s} {'DDR B':>10s} {'MAC/B':>7s} {'GB/s for peak':>13s} "
          f"{'TOPS @55':>9s} {'%peak':>6s} {'bound':>7s} {'TOPS @' + str(round(55 * (1 - SHARED), 1)):>10s} {'%peak':>6s}")
    for r in rows:
        a, s = r["alone"], r["shared"]
        print(f"  {r['model']:24s} {r['macs']:11d} {r['ddr_bytes']:10d} {r['intensity']:7.1f} {r['gbps_for_peak']:13.0f} "
              f"{a['achieved_tops']:9.3f} {100 * a['achieved_tops'] / a['peak_tops']:5.1f}% {a['bound_tops']:7.2f} "
              f"{s['achieved_tops']:10.3f} {100 * s['achieved_tops'] / s['peak_tops']:5.1f}%")
    best = max(rows, key=lambda r: r["alone"]["achieved_tops"])
    print(f"  best: {best['model']} at {100 * best['alone']['achieved_tops'] / 40:.1f} % of peak; none reaches half of "
          f"40 TOPS on 55 GB/s" if all(r["alone"]["achieved_tops"] < 20 for r in rows) else
          f"  best: {best['model']} at {100 * best['alone']['achieved_tops'] / 40:.1f} % of peak")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(14, 5))
    xs = np.logspace(-1, 3.5, 200)
    for gbps, style in ((55, "k-"), (55 * (1 - SHARED), "k--"), (80, "g:")):
        ax[0].loglog(xs, np.minimum(40, 2 * xs * gbps / 1000), style, label=f"roof at {gbps:.1f} GB/s")
    for r in rows:
        ax[0].scatter(r["intensity"], r["alone"]["achieved_tops"], s=30)
        ax[0].annotate(r["model"], (r["intensity"], r["alone"]["achieved_tops"]), fontsize=7, xytext=(3, 3),
                       textcoords="offset points")
    ax[0].axvline(250, color="g", ls=":", lw=0.8)
    ax[0].text(250, 0.15, " 250 MACs/B\n (80 GB/s feeds 40 TOPS)", fontsize=7, color="g")
    ax[0].axhline(20, color="tab:red", ls=":", lw=0.8, label="half of peak")
    ax[0].set_xlabel("arithmetic intensity (MACs per DDR byte)")
    ax[0].set_ylabel("TOPS")
    ax[0].set_title("40-TOPS NPU: models under the roofline")
    ax[0].legend(fontsize=8, loc="lower right")
    names = [r["model"] for r in rows]
    ax[1].barh(names, [r["gbps_for_peak"] for r in rows], color="tab:blue")
    ax[1].axvline(55, color="k", label="preset 55 GB/s")
    ax[1].axvline(80, color="g", ls=":", label="'80 GB/s'")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("GB/s that would feed 40 TOPS at the model's intensity")
    ax[1].set_title("bandwidth needed for peak")
    ax[1].legend(fontsize=8)
    save_figure(fig, args.out, "w8_tops_bandwidth")
    save_summary(args.out, "w8_tops_bandwidth", {"presets": presets, "shared_fraction": SHARED,
                                                 "assumptions": [{"text": t, "bytes_per_mac": b,
                                                                  "gbps_for_40_tops": peak_macs_per_s * b / 1e9}
                                                                 for t, b in assumptions],
                                                 "models": rows})


if __name__ == "__main__":
    main()
