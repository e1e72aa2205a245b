#!/usr/bin/env python3
"""Plot `npusim quant-report MODEL --config CFG --json Q.json` as a bar chart (PNG).

    python3 scripts/plot_quant_report.py Q.json -o sensitivity.png

One bar per NPU layer in graph order: its output's SQNR (dB) against FP32 with only that layer
quantised, and with every layer up to it quantised.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.json) as f:
        report = json.load(f)
    layers = report["layers"]
    names = [l["layer"] for l in layers]
    x = range(len(layers))
    fig, ax = plt.subplots(figsize=(max(6, 0.25 * len(layers) + 2), 4.5))
    ax.bar([i - 0.2 for i in x], [l["alone_sqnr_db"] for l in layers], width=0.4, label="only this layer int8")
    ax.bar([i + 0.2 for i in x], [l["cumulative_sqnr_db"] for l in layers], width=0.4, label="all layers int8")
    ax.set_xticks(list(x))
    ax.set_xticklabels(names, rotation=90, fontsize=6)
    ax.set_ylabel("output SQNR against FP32 (dB)")
    ax.set_title("{}: {} (all int8: cosine {:.4f})".format(report["model"], report["scheme"], report["all_int8_cosine"]),
                 fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)


if __name__ == "__main__":
    main()
