#!/usr/bin/env python3
"""Walkthrough 15: one big array or several engines.

The same 4096 INT8 MACs at 1 GHz (8.2 TOPS) built three ways on configs/default.yaml: one 64x64
array with a 4 MiB scratchpad, two engines of 32x64 with 2 MiB each, or four engines of 32x32
with 1 MiB each (`engines.count`; each engine has its own array, vector unit of as many lanes as
columns, scratchpad and two DMA channels, and all share the DDR). The compiler splits each
conv/gemm across the engines by output rows or output channels, or keeps it on one engine: it
builds the program by each layer's own timed parts and by the fewest DDR bytes (rows that overlap
by the next 3x3 conv's halo so values stay on each engine's chip) and keeps the faster by the
timing core (`npusim compile --explain` says which and why; compiler/README.md).

Several small engines keep more of their MACs busy than one big array on layers with few
output channels or pixels (a 64-wide array is half idle on a 32-channel layer), but each engine
fetches its own share of the weights and halo rows, and all of them wait on one DDR. Each model
runs timing-only at 25.6 GB/s (default.yaml's LPDDR4x) and at 102.4 GB/s: where the split wins,
and where DDR contention eats the gain.

    python3 examples/walkthroughs/w15_engines.py [--quick]

--quick: ResNet-style (models/exported/resnet_small_opset11.onnx), MobileNetV2 at 64x64 and a
transformer encoder block (models/exported/transformer_encoder.onnx); full mode: ResNet-50 and
MobileNetV2 at 224x224 (scripts/make_models.py) and the same transformer block.
"""

import subprocess
import sys

import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, save_figure, save_summary

CONFIG = REPO / "configs" / "default.yaml"
DESIGNS = [  # (name, engines, rows, cols, scratchpad KiB per engine)
    ("1 x 64x64", 1, 64, 64, 4096),
    ("2 x 32x64", 2, 32, 64, 2048),
    ("4 x 32x32", 4, 32, 32, 1024),
]
BANDWIDTHS = [25.6, 102.4]


def models(args):
    found = {}
    size = 64 if args.quick else 224
    cnns = ("resnet_small", "mobilenetv2") if args.quick else ("resnet50", "mobilenetv2")
    for name in cnns:
        if name == "resnet_small":
            found[name] = REPO / "models" / "exported" / "resnet_small_opset11.onnx"
            continue
        path = args.out / "models" / f"{name}_{size}.onnx"
        if not path.exists():
            tmp = args.out / "models" / f"tmp_{size}"
            subprocess.run([sys.executable, str(REPO / "scripts" / "make_models.py"), "--out", str(tmp),
                            "--only", name, "--input-size", str(size)], check=True, capture_output=True)
            (tmp / f"{name}.onnx").rename(path)
        found[f"{name}@{size}"] = path
    found["transformer"] = REPO / "models" / "exported" / "transformer_encoder.onnx"
    return found


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    base = npusim.load_config(str(CONFIG))
    rows = []
    for model, path in models(args).items():
        for gbps in BANDWIDTHS:
            row = {"model": model, "ddr_gbps": gbps, "designs": []}
            for name, engines, r, c, sram in DESIGNS:
                cfg = npusim.with_values(base, {"engines.count": engines, "mac_array.rows": r, "mac_array.cols": c,
                                                "vector.lanes": c, "sram.capacity_kib": sram,
                                                "ddr.bandwidth_gbps": gbps})
                _, rep = npusim.compile(str(path), cfg, precision="int8").run(timing_only=True)
                row["designs"].append({"design": name, "engines": engines, "latency_us": rep["latency_us"],
                                       "achieved_tops": rep["achieved_tops"], "peak_tops": rep["peak_tops"],
                                       "ddr_utilization": rep["ddr"]["bandwidth_utilization"],
                                       "ddr_bytes": rep["ddr"]["bytes_read"] + rep["ddr"]["bytes_written"]})
            one = row["designs"][0]["latency_us"]
            for d in row["designs"]:
                d["speedup"] = one / d["latency_us"]
            rows.append(row)

    print(f"4096 INT8 MACs at 1 GHz ({rows[0]['designs'][0]['peak_tops']:.1f} TOPS) on {CONFIG.relative_to(REPO)}, "
          "built as one array or as several engines sharing the DDR (timing-only, INT8)")
    print(f"{'model':18s} {'DDR GB/s':>8s} | " + " | ".join(f"{n:>26s}" for n, *_ in DESIGNS))
    print(f"{'':18s} {'':>8s} | " + " | ".join(f"{'us':>8s} {'speed-up':>8s} {'DDR busy':>8s}" for _ in DESIGNS))
    for row in rows:
        cells = [f"{d['latency_us']:8.1f} {d['speedup']:7.2f}x {d['ddr_utilization']:8.0%}" for d in row["designs"]]
        print(f"{row['model']:18s} {row['ddr_gbps']:8.1f} | " + " | ".join(cells))
    for model in dict.fromkeys(r["model"] for r in rows):
        s = {r["ddr_gbps"]: r["designs"][-1]["speedup"] for r in rows if r["model"] == model}
        print(f"{model}: four engines {s[BANDWIDTHS[0]]:.2f}x at {BANDWIDTHS[0]} GB/s, {s[BANDWIDTHS[1]]:.2f}x at "
              f"{BANDWIDTHS[1]} GB/s")

    plt = pyplot()
    fig, axes = plt.subplots(1, len(BANDWIDTHS), figsize=(13, 4.4), sharey=True)
    model_names = list(dict.fromkeys(r["model"] for r in rows))
    x = np.arange(len(model_names))
    width = 0.8 / len(DESIGNS)
    for ax, gbps in zip(axes, BANDWIDTHS):
        for i, (name, *_rest) in enumerate(DESIGNS):
            ys = [next(r for r in rows if r["model"] == m and r["ddr_gbps"] == gbps)["designs"][i]["speedup"]
                  for m in model_names]
            ax.bar(x + (i - (len(DESIGNS) - 1) / 2) * width, ys, width, label=name)
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xticks(x, model_names, fontsize=8)
        ax.set_title(f"DDR {gbps} GB/s")
        ax.set_ylabel("speed-up over one 64x64 array")
        ax.legend(fontsize=8)
    fig.suptitle("the same 4096 MACs as one array or as 2 or 4 engines sharing the DDR")
    save_figure(fig, args.out, "w15_engines")
    save_summary(args.out, "w15_engines", {"config": str(CONFIG), "designs": [d[0] for d in DESIGNS],
                                           "bandwidths_gbps": BANDWIDTHS, "rows": rows})


if __name__ == "__main__":
    main()
