#!/usr/bin/env python3
"""Plot a roofline JSON (`npusim roofline MODEL --config CFG --json R.json`, or the report of
`npusim run ... --json R.json`) as a PNG.

    python3 scripts/plot_roofline.py R.json -o roofline.png

Log-log: arithmetic intensity (MACs per DDR byte) across, TOPS up; the config's DDR slope
and compute ceiling meet at the ridge point; one labelled point per NPU layer, coloured by
whether the roofline makes it memory- or compute-bound.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def roofline_view(report):
    """The roofline JSON as is; a `npusim run --json` report reduced to the same keys."""
    if not isinstance(report.get("roofline"), dict):
        return report
    roof = report["roofline"]
    layers = [l for l in report["layers"] if l["device"] == "npu" and l["macs"] > 0 and l["ddr_bytes"] > 0]
    return {"config": report["config"], "model": report.get("model", ""), "peak_tops": report["peak_tops"],
            "achieved_tops": report["achieved_tops"], "ddr_gbps": roof["ddr_gbps"],
            "ridge_macs_per_byte": roof["ridge_macs_per_byte"], "layers": layers}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="JSON from npusim roofline --json or npusim run --json")
    parser.add_argument("-o", "--output", default="roofline.png", help="PNG to write")
    parser.add_argument("--labels", type=int, default=12, help="label at most this many points (costliest first)")
    args = parser.parse_args()

    r = roofline_view(json.load(open(args.report)))
    peak, gbps, ridge = r["peak_tops"], r["ddr_gbps"], r["ridge_macs_per_byte"]
    layers = r["layers"]
    xs = [l["arithmetic_intensity"] for l in layers] + [ridge]
    lo, hi = min(xs) / 4, max(xs) * 4
    lo, hi = min(lo, ridge / 100), max(hi, ridge * 10)

    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=120)
    # attainable = min(peak, 2 * intensity * bandwidth): the slope until the ridge, then flat
    ax.plot([lo, ridge, hi], [2 * lo * gbps / 1000, peak, peak], color="black", lw=2, label="roofline")
    ax.axvline(ridge, color="gray", ls=":", lw=1)
    ax.annotate(f"ridge {ridge:.0f} MACs/B", (ridge, peak), textcoords="offset points", xytext=(6, -14),
                fontsize=8, color="gray")
    ax.text(lo * 1.3, peak * 1.08, f"peak {peak:.2f} TOPS", fontsize=8)
    x_label = (lo * ridge) ** 0.5  # halfway up the slope (log axes)
    ax.annotate(f"DDR {gbps:g} GB/s", (x_label, 2 * x_label * gbps / 1000), textcoords="offset points",
                xytext=(-40, 8), fontsize=8)
    colours = {"memory": "tab:red", "compute": "tab:blue"}
    for bound, colour in colours.items():
        pts = [l for l in layers if l["bound"] == bound]
        if pts:
            ax.scatter([l["arithmetic_intensity"] for l in pts], [l["achieved_tops"] for l in pts], s=28,
                       color=colour, zorder=3, label=f"{bound}-bound layers")
    for l in sorted(layers, key=lambda l: -l["cycles"])[: args.labels]:
        ax.annotate(l["name"], (l["arithmetic_intensity"], l["achieved_tops"]), textcoords="offset points",
                    xytext=(4, 3), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ys = [l["achieved_tops"] for l in layers if l["achieved_tops"] > 0] + [peak]
    ax.set_ylim(min(ys + [2 * lo * gbps / 1000]) / 2, peak * 2)
    ax.set_xlabel("arithmetic intensity (MACs per DDR byte)")
    ax.set_ylabel("TOPS")
    model = os.path.basename(r.get("model", ""))
    ax.set_title(f"{model} on {r['config']}: achieved {r.get('achieved_tops', 0):.2f} of {peak:.2f} TOPS",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output)


if __name__ == "__main__":
    main()
