#!/usr/bin/env python3
"""Walkthrough 15: one big array or several engines.

The same 4096 INT8 MACs and 4 MiB of scratchpad, built three ways on configs/default.yaml's
DDR (25.6 GB/s): one 64x64 array with 4 MiB, two engines of 32x64 with 2 MiB each, four
engines of 32x32 with 1 MiB each (engines.count; every engine has its own array, vector unit,
scratchpad and DMA channels, and all share the DDR). The compiler splits each conv/gemm
across the engines by output rows or output channels, or keeps it whole on one engine, as its
cost model prices fastest (`npusim compile --explain` says which and why). Each model runs at
the preset's bandwidth and at 4x it: where the engines win, and where the shared DDR eats it.

    python3 examples/walkthroughs/w15_engines.py [--quick]

Models: ResNet-50 and MobileNetV2 (scripts/make_models.py; 224x224, --quick 64x64) and the
exported transformer encoder block (models/exported/transformer_encoder.onnx).
"""
import subprocess
import sys

import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, save_figure, save_summary

CONFIG = REPO / "configs" / "default.yaml"
# (name, engines, rows, cols, scratchpad KiB per engine): the same MACs and scratchpad in all.
LAYOUTS = [("1 x 64x64", 1, 64, 64, 4096), ("2 x 32x64", 2, 32, 64, 2048), ("4 x 32x32", 4, 32, 32, 1024)]
BANDWIDTHS = [25.6, 102.4]


def models(args):
    size = 64 if args.quick else 224
    found = {}
    for name in ("resnet50", "mobilenetv2"):
        path = args.out / "models" / f"{name}_{size}.onnx"
        if not path.exists():
            made = args.out / "models" / f"{size}"
            subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out", str(made),
                            "--only", name, "--input-size", str(size)], check=True, capture_output=True)
            (made / f"{name}.onnx").rename(path)
        found[name] = path
    found["transformer"] = REPO / "models" / "exported" / "transformer_encoder.onnx"
    return found


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    base = npusim.load_config(str(CONFIG))
    rows = []
    for model, path in models(args).items():
        for bandwidth in BANDWIDTHS:
            for layout, engines, r, c, kib in LAYOUTS:
                cfg = npusim.with_values(base, {"engines.count": engines, "mac_array.rows": r, "mac_array.cols": c,
                                                "sram.capacity_kib": kib, "ddr.bandwidth_gbps": bandwidth})
                _, rep = npusim.compile(str(path), cfg, precision="int8").run(timing_only=True)
                busy = [e["compute"]["busy_cycles"] / rep["cycles"] for e in rep["engines"]]
                ddr_bytes = rep["ddr"]["bytes_read"] + rep["ddr"]["bytes_written"]
                rows.append({"model": model, "bandwidth_gbps": bandwidth, "layout": layout, "engines": engines,
                             "macs_per_cycle": engines * r * c, "cycles": rep["cycles"],
                             "latency_us": rep["npu_latency_us"], "macs": int(rep["macs"]), "ddr_bytes": ddr_bytes,
                             "ddr_share": ddr_bytes / rep["cycles"] / (bandwidth * 1e3 / rep["clock_mhz"]),
                             "compute_busy": busy, "engines_used": sum(1 for b in busy if b > 0)})
    for row in rows:
        one = next(o for o in rows if o["model"] == row["model"] and o["bandwidth_gbps"] == row["bandwidth_gbps"]
                   and o["engines"] == 1)
        row["speedup"] = one["cycles"] / row["cycles"]

    print(f"config {CONFIG.relative_to(REPO)}: 4096 MACs and 4 MiB of scratchpad as 1, 2 or 4 engines")
    print(f"{'model':12s} {'DDR GB/s':>8s} {'layout':10s} {'cycles':>10s} {'vs 1 array':>10s} {'DDR busy':>8s} "
          f"{'DDR MB':>7s}  compute busy per engine")
    for r in rows:
        busy = " ".join(f"{b:4.0%}" for b in r["compute_busy"])
        print(f"{r['model']:12s} {r['bandwidth_gbps']:8.1f} {r['layout']:10s} {r['cycles']:10d} {r['speedup']:9.2f}x "
              f"{r['ddr_share']:8.0%} {r['ddr_bytes'] / 1e6:7.2f}  {busy}")
    for model in dict.fromkeys(r["model"] for r in rows):
        four = {r["bandwidth_gbps"]: r for r in rows if r["model"] == model and r["engines"] == 4}
        print(f"{model}: 4 engines against one array {four[BANDWIDTHS[0]]['speedup']:.2f}x at {BANDWIDTHS[0]} GB/s, "
              f"{four[BANDWIDTHS[1]]['speedup']:.2f}x at {BANDWIDTHS[1]} GB/s")

    plt = pyplot()
    names = list(dict.fromkeys(r["model"] for r in rows))
    fig, axes = plt.subplots(1, len(BANDWIDTHS), figsize=(12, 4.2), sharey=True)
    x = np.arange(len(names))
    for ax, bandwidth in zip(axes, BANDWIDTHS):
        for i, (layout, *_rest) in enumerate(LAYOUTS):
            ax.bar(x + (i - 1) * 0.27, [next(r["speedup"] for r in rows if r["model"] == m and r["layout"] == layout
                                             and r["bandwidth_gbps"] == bandwidth) for m in names], 0.27, label=layout)
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_xticks(x, names)
        ax.set_title(f"DDR {bandwidth} GB/s")
        ax.set_ylabel("speed-up over one 64x64 array")
        ax.legend(fontsize=8)
    fig.suptitle("The same MACs as one array or several engines")
    save_figure(fig, args.out, "w15_engines")
    save_summary(args.out, "w15_engines", {"config": str(CONFIG), "rows": rows})


if __name__ == "__main__":
    main()
