#!/usr/bin/env python3
"""Predicted against published latency, one point per published figure, on log axes with the
+-15 % band: the picture of how well a preset agrees with silicon. Reads the JSON of
`npusim compare --published FILE ... --config CFG --json OUT` (one file per preset; several
presets share one plot); fitted figures are filled, held-out figures hollow.

    build/bin/npusim compare --published configs/measurements/snapdragon-8-elite-ai-hub-v0.46.1.csv \\
        -c configs/snapdragon-8-elite-htp-fitted.yaml --json sd.json
    python3 scripts/plot_published.py sd.json [more.json ...] -o published.png
"""
import argparse
import json
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

BAND = 0.15


def points(comparison):
    """(published ms, simulated ms, model, fitted) for every figure of one compare JSON."""
    for m in comparison["models"]:
        for published in m["published_ms"]:
            yield published, m["simulated_ms"], m["model"].split("@")[0], m["status"] == "fitted"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", help="npusim compare --published --json output")
    ap.add_argument("-o", "--out", required=True, help="image file (.png, .svg, .pdf)")
    args = ap.parse_args()
    fig, ax = plt.subplots(figsize=(6, 6))
    lo, hi = float("inf"), 0.0
    for index, path in enumerate(args.json):
        try:
            with open(path) as f:
                comparison = json.load(f)
            figures = list(points(comparison))
        except (OSError, ValueError, KeyError, TypeError) as e:
            sys.exit(f"{path}: not the JSON of npusim compare --published ({e})")
        if not figures:
            sys.exit(f"{path}: no published figures in it")
        colour = f"C{index}"
        for k, (published, simulated, model, fitted) in enumerate(figures):
            ax.scatter([published], [simulated], s=40, edgecolors=colour, facecolors=colour if fitted else "none",
                       label=None if k else comparison["config"])
            ax.annotate(model, (published, simulated), textcoords="offset points", xytext=(4, 4), fontsize=8)
            lo, hi = min(lo, published, simulated), max(hi, published, simulated)
    lo, hi = lo / 1.5, hi * 1.5
    ax.plot([lo, hi], [lo, hi], color="black", linewidth=1)
    ax.fill_between([lo, hi], [lo * (1 - BAND), hi * (1 - BAND)], [lo * (1 + BAND), hi * (1 + BAND)],
                    color="grey", alpha=0.2, label=f"±{BAND:.0%}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("published latency (ms)")
    ax.set_ylabel("simulated latency (ms)")
    ax.set_title("npusim against published device latencies\n(filled: fitted to, hollow: held out)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
