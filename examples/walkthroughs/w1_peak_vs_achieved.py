#!/usr/bin/env python3
"""Walkthrough 1: a 40-TOPS NPU delivers far less on real layers.

Runs a model on configs/npu-40tops-55gbps.yaml (128x128 INT8 MACs at 1.22 GHz = 40 TOPS,
55 GB/s DDR), prints peak vs achieved TOPS and each layer's roofline point, then sweeps the
DDR bandwidth (npusim.with_values on the same compiled program) to show achieved TOPS rising
with bandwidth and flattening once the layers stop being memory bound.

    PYTHONPATH=build/python python3 examples/walkthroughs/w1_peak_vs_achieved.py [--quick]

Full mode generates ResNet-18 at 224x224 (scripts/make_models.py) into OUT/models/;
--quick uses models/tiny_convnet.onnx.
"""
import subprocess
import sys
from pathlib import Path

from _common import REPO, import_npusim, parse_args, pyplot, rel, save_figure, save_summary

CONFIG = REPO / "configs" / "npu-40tops-55gbps.yaml"
BANDWIDTHS = [6.875, 13.75, 27.5, 55, 110, 220, 440, 880, 1760]   # 1/8x .. 32x the preset's 55 GB/s


def model_path(args):
    if args.quick:
        return REPO / "models" / "tiny_convnet.onnx"
    path = args.out / "models" / "resnet18.onnx"
    if not path.exists():
        subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out", str(path.parent),
                        "--only", "resnet18", "--input-size", "224"], check=True)
    return path


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    cfg = npusim.load_config(str(CONFIG))
    model = model_path(args)
    session = npusim.compile(str(model), cfg, precision="int8")
    _, report = session.run(timing_only=True)
    peak, achieved = report["peak_tops"], report["achieved_tops"]
    roof = report["roofline"]
    ridge = roof["ridge_macs_per_byte"]
    layers = report.layers_frame()
    npu = layers[(layers["device"] == "npu") & (layers["macs"] > 0)].copy()
    total_macs = int(report["macs"])
    total_bytes = int(report["ddr"]["bytes_read"] + report["ddr"]["bytes_written"])

    print(f"model   {rel(model)}")
    print(f"config  {CONFIG.relative_to(REPO)}: peak {peak:.1f} TOPS, DDR {roof['ddr_gbps']:.0f} GB/s, "
          f"ridge {ridge:.1f} MACs/B")
    print(f"whole model: {achieved:.3f} TOPS achieved of {peak:.1f} peak = {100 * achieved / peak:.1f} % "
          f"({report['cycles']} cycles, {total_macs} MACs, {total_bytes} DDR B, "
          f"{total_macs / max(total_bytes, 1):.1f} MACs/B)")
    nmem = int((npu["bound"] == "memory").sum())
    print(f"layers with MACs: {len(npu)}, memory bound {nmem}, compute bound {len(npu) - nmem}")
    show = npu.sort_values("cycles", ascending=False).head(8)
    print(f"{'layer':24s} {'op':14s} {'MACs':>11s} {'DDR B':>10s} {'MAC/B':>7s} {'cycles':>9s} {'TOPS':>7s} bound")
    for _, r in show.iterrows():
        print(f"{r['name'][:24]:24s} {r['op'][:14]:14s} {int(r['macs']):11d} {int(r['ddr_bytes']):10d} "
              f"{r['arithmetic_intensity']:7.1f} {int(r['cycles']):9d} {r['achieved_tops']:7.3f} {r['bound']}")

    sweep = []
    for bw in BANDWIDTHS:
        _, r = session.with_config(npusim.with_values(cfg, {"ddr.bandwidth_gbps": bw})).run(timing_only=True)
        sweep.append({"ddr_gbps": bw, "achieved_tops": r["achieved_tops"], "cycles": r["cycles"]})
    # bandwidth at which the whole model's average intensity reaches the ridge
    model_ridge_gbps = peak * 1e12 / (2 * total_macs / max(total_bytes, 1)) / 1e9
    print("DDR bandwidth sweep (same program, ddr.bandwidth_gbps changed):")
    for s in sweep:
        print(f"  {s['ddr_gbps']:8.3f} GB/s  {s['achieved_tops']:7.3f} TOPS  {s['cycles']:9d} cycles")
    gain = [b["achieved_tops"] / a["achieved_tops"] for a, b in zip(sweep, sweep[1:])]
    print(f"first doubling x{gain[0]:.2f}, last doubling x{gain[-1]:.3f}; at {sweep[-1]['ddr_gbps']:.0f} GB/s "
          f"still {100 * sweep[-1]['achieved_tops'] / peak:.1f} % of peak (the whole model's MACs/B would need "
          f"{model_ridge_gbps:.0f} GB/s to reach the roof; what remains is DMA latency, fill/drain and "
          f"under-filled array tiles)")

    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.8))
    ax[0].bar(["peak", "achieved"], [peak, achieved], color=["0.7", "tab:red"])
    ax[0].set_ylabel("TOPS (INT8)")
    ax[0].set_title(f"{model.stem} on npu-40tops-55gbps")
    ax[0].text(1, achieved, f"{achieved:.2f}\n({100 * achieved / peak:.1f} %)", ha="center", va="bottom")
    # roofline in MACs/DDR byte vs TOPS
    import numpy as np
    xs = np.logspace(np.log10(max(npu["arithmetic_intensity"].min() / 3, 0.05)),
                     np.log10(max(npu["arithmetic_intensity"].max(), ridge) * 5), 200)
    ax[1].loglog(xs, np.minimum(peak, 2 * xs * roof["ddr_gbps"] / 1000), "k-", label="roofline (55 GB/s)")
    ax[1].axvline(ridge, color="0.6", ls=":", label=f"ridge {ridge:.0f} MACs/B")
    for bound, color in (("memory", "tab:blue"), ("compute", "tab:orange")):
        sel = npu[npu["bound"] == bound]
        ax[1].scatter(sel["arithmetic_intensity"], sel["achieved_tops"].clip(lower=1e-4), c=color, s=18,
                      label=f"{bound}-bound layers ({len(sel)})")
    ax[1].set_xlabel("arithmetic intensity (MACs per DDR byte)")
    ax[1].set_ylabel("achieved TOPS")
    ax[1].set_title("per-layer roofline points")
    ax[1].legend(fontsize=8, loc="lower right")
    ax[2].semilogx([s["ddr_gbps"] for s in sweep], [s["achieved_tops"] for s in sweep], "o-")
    ax[2].axvline(55, color="tab:red", ls="--", label="preset: 55 GB/s")
    ax[2].axvline(model_ridge_gbps, color="0.5", ls=":", label=f"model ridge {model_ridge_gbps:.0f} GB/s")
    ax[2].set_xlabel("DDR bandwidth (GB/s)")
    ax[2].set_ylabel("achieved TOPS")
    ax[2].set_title("bandwidth sweep (peak stays 40 TOPS)")
    ax[2].legend(fontsize=8)
    ax[2].set_ylim(bottom=0)
    save_figure(fig, args.out, "w1_peak_vs_achieved")
    save_summary(args.out, "w1_peak_vs_achieved", {
        "model": str(model), "peak_tops": peak, "achieved_tops": achieved, "cycles": report["cycles"],
        "ridge_macs_per_byte": ridge, "memory_bound_layers": nmem, "compute_bound_layers": len(npu) - nmem,
        "model_ridge_gbps": model_ridge_gbps, "sweep": sweep})


if __name__ == "__main__":
    main()
