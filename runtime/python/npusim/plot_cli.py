"""`npusim-plot results.parquet` (also `python3 -m npusim plot ...`): writes
<prefix>-pareto.png and <prefix>-heatmap.png."""
import argparse
import pathlib
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(prog="npusim plot", description="Pareto front and heat map of sweep results")
    ap.add_argument("results", help="results file of npusim sweep (.parquet or .csv)")
    ap.add_argument("-o", "--output", help="prefix of the PNG files (default: the results file without suffix)")
    ap.add_argument("--x", default="latency_us", help="Pareto x metric, lower is better (default latency_us)")
    ap.add_argument("--y", default="energy_uj", help="Pareto y metric, lower is better (default energy_uj)")
    ap.add_argument("--heatmap", metavar="X,Y", help="two axis columns (default: the first two that vary "
                    "independently)")
    ap.add_argument("--metric", default="latency_us", help="heat map metric (default latency_us)")
    ap.add_argument("--reduce", default="min", choices=["min", "max", "mean", "median"],
                    help="how the other axes are folded into a cell (default min)")
    args = ap.parse_args(argv)
    from .plot import heatmap_axes, plot_heatmap, plot_pareto
    from .sweep_results import read_results

    prefix = args.output or str(pathlib.Path(args.results).with_suffix(""))
    try:
        table = read_results(args.results)
        front = plot_pareto(table, f"{prefix}-pareto.png", args.x, args.y)
        print(f"{prefix}-pareto.png: {len(front)} points on the Pareto front of {args.y} vs {args.x}")
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
