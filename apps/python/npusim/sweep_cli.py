"""`npusim-sweep SPEC.yaml -o results.parquet` (also `python3 -m npusim sweep ...`)."""
import argparse
import sys

from .errors import Error


def main(argv=None):
    ap = argparse.ArgumentParser(prog="npusim sweep", description="Run a design-space sweep (configs/sweeps/*.yaml) "
                                 "on Dask; rerunning resumes where a killed sweep stopped.")
    ap.add_argument("spec", help="sweep spec YAML")
    ap.add_argument("-o", "--output", required=True, help="results file: .parquet or .csv")
    ap.add_argument("-w", "--workers", type=int, help="LocalCluster worker processes (default: one per core)")
    ap.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://host:8786")
    ap.add_argument("--restart", action="store_true", help="forget earlier results of this output and start over")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--flush-seconds", type=float, default=2.0, help="write finished rows at least this often")
    args = ap.parse_args(argv)
    from .sweep_runner import run_sweep  # after argument errors, which need no Dask

    try:
        table = run_sweep(args.spec, args.output, workers=args.workers, scheduler=args.scheduler,
                          restart=args.restart, progress=not args.quiet, flush_seconds=args.flush_seconds)
    except Error as e:
        print(f"npusim sweep: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("npusim sweep: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    failed = int((table["status"] != "ok").sum()) if len(table) else 0
    if not args.quiet:
        print(f"{args.output}: {len(table)} points, {failed} failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
