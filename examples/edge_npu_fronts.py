#!/usr/bin/env python3
"""Reads the fronts of configs/sweeps/edge-npu-design.yaml or edge-npu-design-quick.yaml
(examples/README.md "Sweeps that trade"): per model, where a bigger scratchpad stops paying, which dataflow wins, the best
designs under 4 mm^2 and 1 W, and the latency-energy-area front.

    python3 -m npusim sweep configs/sweeps/edge-npu-design.yaml -o edge.parquet
    python3 examples/edge_npu_fronts.py edge.parquet [--build DIR]
"""
import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
OBJECTIVES = [("latency_us", "min"), ("energy_uj", "min"), ("area_mm2", "min")]
AXES = ["rows", "cols", "dataflow", "sram_kib", "sram.banks", "ddr_gbps", "clock_mhz"]


def by_scratchpad(rows, axes):
    """Median over every other axis of latency, energy and DDR traffic per scratchpad size,
    each relative to the best size, plus the share of designs whose energy is lowest there."""
    import pandas as pd

    others = [a for a in axes if a != "sram_kib"]
    table = rows.pivot_table(index=others, columns="sram_kib", values="energy_uj")
    best_energy = table.idxmin(axis=1).value_counts(normalize=True)
    summary = rows.groupby("sram_kib")[["latency_us", "energy_uj", "energy_sram_uj", "energy_ddr_uj",
                                        "ddr_bus_bytes", "area_mm2"]].median()
    summary["lowest_energy_share"] = best_energy.reindex(summary.index).fillna(0.0)
    return pd.DataFrame(summary)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="results of configs/sweeps/edge-npu-design.yaml (.parquet)")
    ap.add_argument("--build", default=os.environ.get("NPUSIM_BUILD", str(ROOT / "build")))
    args = ap.parse_args()
    sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
    import pandas as pd
    from npusim.plot import format_front, pareto_front
    from npusim.sweep_results import read_results

    pd.set_option("display.width", 200)
    table = read_results(args.results)
    ok = table[table["status"] == "ok"]
    axes = [a for a in AXES if a in table.columns]  # edge-npu-design-quick.yaml has no DDR or clock axis
    print(f"{len(table)} rows, {len(ok)} ok, {int(ok['feasible'].sum())} within 1 W "
          f"(every design is within 4 mm^2: the sweep ran no other)")
    for model in dict.fromkeys(ok["model"]):
        rows = ok[ok["model"] == model]
        feasible = rows[rows["feasible"]]
        print(f"\n=== {model}: {len(rows)} designs, {len(feasible)} within 1 W")
        print("scratchpad (medians over the other axes; lowest_energy_share: share of designs whose energy "
              "is lowest at this size):")
        print(by_scratchpad(rows, axes).to_string(float_format=lambda v: f"{v:.4g}"))
        print("dataflow: best latency, best energy, median energy, designs on the 3-objective front")
        front = pareto_front(rows, OBJECTIVES)
        df = rows.groupby("dataflow").agg(best_latency_us=("latency_us", "min"), best_energy_uj=("energy_uj", "min"),
                                          median_energy_uj=("energy_uj", "median"))
        df["on_front"] = front["dataflow"].value_counts().reindex(df.index).fillna(0).astype(int)
        print(df.to_string(float_format=lambda v: f"{v:.4g}"))
        for column in ("latency_us", "energy_uj"):
            best = feasible.sort_values(column).iloc[0]
            print(f"best {column} within 4 mm^2 and 1 W: " + ", ".join(f"{a}={best[a]}" for a in axes) +
                  f" -> {best['latency_us']:.1f} us, {best['energy_uj']:.1f} uJ, {best['area_mm2']:.3f} mm^2, "
                  f"{best['power_mw']:.0f} mW")
        print(f"front of latency, energy, area: {len(front)} designs; the 12 fastest:")
        print(format_front(front, OBJECTIVES, max_rows=12))
    return 0


if __name__ == "__main__":
    sys.exit(main())
