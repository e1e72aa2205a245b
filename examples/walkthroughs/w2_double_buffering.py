#!/usr/bin/env python3
"""Walkthrough 2: double buffering hides DMA behind compute.

Simulates the hand-written examples/gemm_int8_double_buffered.npuasm (dependency tokens let
the load, compute and store queues run concurrently) and its serialised twin
examples/walkthroughs/gemm_int8_serialised.npuasm (a barrier after every instruction) with
`npusim sim --json --trace`, prints total cycles next to the sum of the units' busy cycles,
checks both give the same C, and draws both timelines from the traces.

    python3 examples/walkthroughs/w2_double_buffering.py [--config configs/default.yaml] [--quick]
"""
import json

from _common import REPO, npusim_cli, parse_args, pyplot, rel, save_figure, save_summary

PROGRAMS = {
    "double-buffered": REPO / "examples" / "gemm_int8_double_buffered.npuasm",
    "serialised": REPO / "examples" / "walkthroughs" / "gemm_int8_serialised.npuasm",
}
TRACKS = ["load", "dma0", "compute", "store", "dma1"]
COLORS = {"load": "tab:blue", "dma0": "tab:cyan", "compute": "tab:orange", "store": "tab:green",
          "dma1": "tab:olive"}


def main():
    args = parse_args(__doc__.splitlines()[0], lambda p: p.add_argument(
        "--config", default=str(REPO / "configs" / "default.yaml"), help="hardware config"))
    results = {}
    for name, prog in PROGRAMS.items():
        js, tr, outs = (args.out / f"w2_{name}.{ext}" for ext in ("json", "trace.json", "outputs"))
        argv = ["sim", prog, "--config", args.config, "--json", js, "--trace", tr, "--quiet"]
        argv += ["--timing-only"] if args.quick else ["--save-outputs", outs]
        npusim_cli(args.build, *argv)
        rep = json.loads(js.read_text())
        trace = json.loads(tr.read_text())
        events = trace["traceEvents"] if isinstance(trace, dict) else trace
        tids = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
        spans = {}
        for e in events:
            if e.get("ph") == "X" and tids.get(e["tid"]) in TRACKS:
                spans.setdefault(tids[e["tid"]], []).append((e["args"]["start_cycle"], e["args"]["cycles"]))
        busy = {u: rep[u]["busy_cycles"] for u in ("load", "compute", "vector", "store")}
        results[name] = {"cycles": rep["cycles"], "busy": busy, "busy_sum": sum(busy.values()),
                         "spans": spans, "mac_utilization": rep["mac_utilization"]}

    db, se = results["double-buffered"], results["serialised"]
    print(f"config {rel(args.config)}")
    print(f"{'program':16s} {'cycles':>7s} {'load':>6s} {'compute':>8s} {'store':>6s} {'busy sum':>9s} {'MAC util':>9s}")
    for name, r in results.items():
        b = r["busy"]
        print(f"{name:16s} {r['cycles']:7d} {b['load']:6d} {b['compute']:8d} {b['store']:6d} {r['busy_sum']:9d} "
              f"{100 * r['mac_utilization']:8.1f}%")
    ratio = db["cycles"] / se["cycles"]
    hidden = db["busy_sum"] - db["cycles"]
    print(f"double-buffered / serialised = {ratio:.3f}; the double-buffered run ends {hidden} cycles before "
          f"the sum of its units' busy cycles: that much load/store time ran under compute")
    same = None
    if not args.quick:
        import numpy as np
        c = [np.load(args.out / f"w2_{n}.outputs" / "C.npy") for n in PROGRAMS]
        same = bool((c[0] == c[1]).all())
        print(f"C identical in both programs: {same}")

    plt = pyplot()
    end = max(db["cycles"], se["cycles"])
    fig, axes = plt.subplots(2, 1, figsize=(12, 5.2), sharex=True)
    for ax, (name, r) in zip(axes, results.items()):
        for i, track in enumerate(TRACKS):
            bars = [(s, max(c, end / 400)) for s, c in r["spans"].get(track, [])]
            ax.broken_barh(bars, (i - 0.4, 0.8), color=COLORS[track], edgecolor="k", linewidth=0.4)
        ax.set_yticks(range(len(TRACKS)), TRACKS)
        ax.invert_yaxis()
        ax.axvline(r["cycles"], color="red", ls="--")
        ax.set_title(f"{name}: {r['cycles']} cycles (units busy {r['busy_sum']} cycles in total)", fontsize=10)
    axes[-1].set_xlabel("cycle")
    axes[-1].set_xlim(0, end * 1.02)
    fig.suptitle(f"INT8 GEMM 128x64x64 in four tiles on {REPO.joinpath(args.config).stem}: "
                 f"double buffering = {ratio:.2f} x the serialised time")
    save_figure(fig, args.out, "w2_double_buffering")
    save_summary(args.out, "w2_double_buffering", {
        "config": args.config, "double_buffered_cycles": db["cycles"], "serialised_cycles": se["cycles"],
        "double_buffered_busy": db["busy"], "serialised_busy": se["busy"], "ratio": ratio,
        "outputs_identical": same})


if __name__ == "__main__":
    main()
