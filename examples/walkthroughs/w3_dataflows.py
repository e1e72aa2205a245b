#!/usr/bin/env python3
"""Walkthrough 3: weight-, output- and input-stationary arrays win on different layer shapes.

Each layer is lowered the way the compiler does it (a convolution as an im2col GEMM,
C[M x N] = A[M x K] * B[K x N], M = output pixels, K = kernel taps x input channels,
N = output channels) and written as a one-instruction `gemm` program, simulated timing-only
on configs/ideal-32x32-{ws,os,is}.yaml (same 32x32 array, ideal DDR, only the dataflow
differs). The cycle counts are compared with the systolic formulas of isa/ISA.md (R = C = 32):

    WS: ceil(K/R) * ceil(N/C) folds of 2R + C + M - 2   (weights pinned, M rows of A stream)
    OS: ceil(M/R) * ceil(N/C) folds of K + R + C - 2    (outputs pinned, K streams)
    IS: ceil(K/R) * ceil(M/C) folds of 2R + C + N - 2   (inputs pinned, N streams)

Whichever dimension streams through the array amortises the fill/drain of each fold; the
others set the number of folds.

    python3 examples/walkthroughs/w3_dataflows.py [--quick]
"""
import json
from math import ceil

from _common import REPO, npusim_cli, parse_args, pyplot, save_figure, save_summary

# name: (M, K, N, what it is)
LAYERS = {
    "early conv": (56 * 56, 3 * 3 * 64, 64, "ResNet-18 stage 1: 3x3 conv, 64->64 ch on 56x56"),
    "late conv": (7 * 7, 3 * 3 * 512, 512, "ResNet-18 stage 4: 3x3 conv, 512->512 ch on 7x7"),
    "FC, batch 1": (1, 512, 1000, "classifier: 512 -> 1000, one image"),
}
DATAFLOWS = ["ws", "os", "is"]
R = C = 32


def predicted(df, m, k, n):
    if df == "ws":
        return ceil(k / R) * ceil(n / C) * (2 * R + C + m - 2)
    if df == "os":
        return ceil(m / R) * ceil(n / C) * (k + R + C - 2)
    return ceil(k / R) * ceil(m / C) * (2 * R + C + n - 2)


def program(m, k, n):
    a, b = 0, m * k
    c = (b + k * n + 63) // 64 * 64
    return (f"# C[{m}x{n}] = A[{m}x{k}] * B[{k}x{n}], operands already in the scratchpad\n"
            f"  gemm mac_dtype=0 a_addr={a:#x} b_addr={b:#x} c_addr={c:#x} m={m} n={n} k={k}\n  halt\n")


def main():
    args = parse_args(__doc__.splitlines()[0])
    rows = []
    for name, (m, k, n, what) in LAYERS.items():
        prog = args.out / f"w3_{name.split(',')[0].replace(' ', '_')}.npuasm"
        prog.write_text(program(m, k, n))
        row = {"layer": name, "what": what, "m": m, "k": k, "n": n, "sim": {}, "formula": {}}
        for df in DATAFLOWS:
            js = args.out / f"w3_{prog.stem}_{df}.json"
            npusim_cli(args.build, "sim", prog, "--config", REPO / "configs" / f"ideal-32x32-{df}.yaml",
                       "--timing-only", "--quiet", "--json", js)
            rep = json.loads(js.read_text())
            row["sim"][df] = rep["compute"]["busy_cycles"]
            row["formula"][df] = predicted(df, m, k, n)
        row["winner"] = min(DATAFLOWS, key=lambda d: row["sim"][d])
        row["predicted_winner"] = min(DATAFLOWS, key=lambda d: row["formula"][d])
        rows.append(row)

    print(f"{'layer':12s} {'M':>5s} {'K':>5s} {'N':>5s} | {'WS':>8s} {'OS':>8s} {'IS':>8s} | winner  (formula: WS, OS, IS)")
    for r in rows:
        s, f = r["sim"], r["formula"]
        print(f"{r['layer']:12s} {r['m']:5d} {r['k']:5d} {r['n']:5d} | {s['ws']:8d} {s['os']:8d} {s['is']:8d} | "
              f"{r['winner'].upper():6s}  ({f['ws']}, {f['os']}, {f['is']})")
    print("simulated compute cycles equal the ISA.md formulas:",
          all(r["sim"] == r["formula"] for r in rows))

    plt = pyplot()
    import numpy as np
    fig, ax = plt.subplots(figsize=(10, 4.8))
    x = np.arange(len(rows))
    colors = {"ws": "tab:blue", "os": "tab:orange", "is": "tab:green"}
    for i, df in enumerate(DATAFLOWS):
        vals = [r["sim"][df] for r in rows]
        bars = ax.bar(x + (i - 1) * 0.27, vals, 0.27, color=colors[df], label=df.upper())
        for bar, r in zip(bars, rows):
            if r["winner"] == df:
                ax.annotate("fewest", (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                            ha="center", va="bottom", fontsize=8, fontweight="bold")
    ax.set_xticks(x, [f"{r['layer']}\nM={r['m']} K={r['k']} N={r['n']}" for r in rows])
    ax.set_yscale("log")
    ax.set_ylabel("MAC-array cycles (32x32, INT8)")
    ax.set_title("same GEMM, three dataflows: the dimension that streams should be the long one")
    ax.legend(title="dataflow")
    save_figure(fig, args.out, "w3_dataflows")
    save_summary(args.out, "w3_dataflows", {"layers": rows})


if __name__ == "__main__":
    main()
