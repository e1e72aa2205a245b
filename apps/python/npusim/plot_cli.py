"""`npusim-plot results.parquet` (also `python3 -m npusim plot ...`): writes
<prefix>-pareto.png (the 2-D front of every pair of objectives, per model) and
<prefix>-heatmap.png, and prints the front over all objectives as a table."""
import argparse
import pathlib
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="npusim plot", description="Pareto front and heat map of sweep results")
    ap.add_argument("results", help="results file of npusim sweep (.parquet or .csv)")
    ap.add_argument("-o", "--output", help="prefix of the PNG files (default: the results file without suffix)")
    ap.add_argument("--objectives", metavar="A,B[,C...]", help="result columns to trade (default: the sweep "
                    "spec's objectives, stored in the results; else latency_us,energy_uj); each is minimised or "
                    "maximised as its meaning says (apps/python/README.md)")
    ap.add_argument("--x", help="with --y: just this pair of objectives")
    ap.add_argument("--y", help="with --x: just this pair of objectives")
    ap.add_argument("--heatmap", metavar="X,Y", help="two axis columns (default: the first two that vary "
                    "independently)")
    ap.add_argument("--metric", default="latency_us", help="heat map metric (default latency_us)")
    ap.add_argument("--reduce", default="min", choices=["min", "max", "mean", "median"],
                    help="how the other axes are folded into a cell (default min)")
    args = ap.parse_args(argv)
    from .plot import format_front, heatmap_axes, objectives_of, pareto_front, plot_heatmap, plot_pareto_pairs
    from .sweep_results import read_results

    prefix = args.output or str(pathlib.Path(args.results).with_suffix(""))
    try:
        table = read_results(args.results)
        if args.x or args.y:
            columns = [args.x or "latency_us", args.y or "energy_uj"]
        else:
            columns = args.objectives.split(",") if args.objectives else None
        objectives = objectives_of(table, columns)
        if len(objectives) < 2:
            raise ValueError("give at least two objectives")
        panels = plot_pareto_pairs(table, f"{prefix}-pareto.png", objectives)
        front = pareto_front(table, objectives)
        names = ", ".join(f"{c} ({s})" for c, s in objectives)
        print(f"{prefix}-pareto.png: {panels} panels; {len(front)} points on the Pareto front of {names}")
        print(format_front(front, objectives))
        if args.heatmap:
            pair = args.heatmap.split(",")
        else:
            pair = heatmap_axes(table)
        if len(pair) != 2:
            print("npusim plot: no heat map: the results have fewer than two independent axes (give --heatmap X,Y)",
                  file=sys.stderr)
            return 0
        plot_heatmap(table, f"{prefix}-heatmap.png", pair[0], pair[1], args.metric, args.reduce)
        print(f"{prefix}-heatmap.png: {args.reduce} {args.metric} over {pair[0]} x {pair[1]}")
    except (OSError, ValueError) as e:
        print(f"npusim plot: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
