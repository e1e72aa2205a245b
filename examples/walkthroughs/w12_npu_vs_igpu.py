#!/usr/bin/env python3
"""Walkthrough 12: the iGPU is faster, the NPU does more inferences per joule.

Two accelerators of one laptop (Intel Lunar Lake): configs/intel-npu-lunar-lake.yaml (NPU 4:
48 TOPS in six engines with 2 MiB of scratchpad each, 300 mW static) and configs/igpu-like.yaml (the Arc 140V iGPU
modelled as an accelerator: 67 TOPS, its 8 MB L2 as scratchpad, a larger share of the same
LPDDR5X, 3x the energy per MAC and 5x the static power). Peak, clock, cache and memory are
public; energy per operation and static power of both are guesses (each key's provenance is in
the YAML files): the per-joule result follows from those guesses, and the script prints the
parts so one can see which guess carries it.

Each model is compiled INT8 for each preset and run timing-only: latency, energy per
inference (MACs, SRAM, DDR, static), average power, inferences per joule.

    python3 examples/walkthroughs/w12_npu_vs_igpu.py [--quick]

--quick: the bundled tiny ConvNet and two exported models; full mode adds ResNet-18 and
ResNet-50 at 224x224 (scripts/make_models.py).
"""

import numpy as np

from _common import REPO, import_npusim, model_ladder, parse_args, pyplot, save_figure, save_summary

PRESETS = {"npu": REPO / "configs" / "intel-npu-lunar-lake.yaml", "igpu": REPO / "configs" / "igpu-like.yaml"}




def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    configs = {k: npusim.load_config(str(v)) for k, v in PRESETS.items()}
    rows = []
    for name, path in model_ladder(args).items():
        row = {"model": name}
        for device, cfg in configs.items():
            _, rep = npusim.compile(str(path), cfg, precision="int8").run(timing_only=True)
            e = rep["energy"]
            row[device] = {"latency_us": rep["latency_us"], "macs": int(rep["macs"]), "peak_tops": rep["peak_tops"],
                           "achieved_tops": rep["achieved_tops"], "energy_uj": e["total_uj"],
                           "static_uj": e["static_uj"], "dynamic_uj": e["total_uj"] - e["static_uj"],
                           "ddr_uj": e["ddr_uj"], "power_mw": e["average_power_mw"],
                           "inferences_per_joule": 1e6 / e["total_uj"]}
        row["speedup_igpu"] = row["npu"]["latency_us"] / row["igpu"]["latency_us"]
        row["efficiency_npu"] = row["npu"]["inferences_per_joule"] / row["igpu"]["inferences_per_joule"]
        rows.append(row)
    print(f"NPU  {PRESETS['npu'].relative_to(REPO)}: peak {rows[0]['npu']['peak_tops']:.1f} TOPS")
    print(f"iGPU {PRESETS['igpu'].relative_to(REPO)}: peak {rows[0]['igpu']['peak_tops']:.1f} TOPS")
    print(f"{'model':14s} {'MACs':>11s} | {'NPU us':>9s} {'uJ':>8s} {'mW':>6s} {'inf/J':>8s} | {'iGPU us':>9s} {'uJ':>8s} "
          f"{'mW':>6s} {'inf/J':>8s} | {'iGPU faster':>11s} {'NPU inf/J':>9s}")
    for r in rows:
        n, g = r["npu"], r["igpu"]
        print(f"{r['model']:14s} {n['macs']:11d} | {n['latency_us']:9.1f} {n['energy_uj']:8.2f} {n['power_mw']:6.0f} "
              f"{n['inferences_per_joule']:8.0f} | {g['latency_us']:9.1f} {g['energy_uj']:8.2f} {g['power_mw']:6.0f} "
              f"{g['inferences_per_joule']:8.0f} | {r['speedup_igpu']:10.2f}x {r['efficiency_npu']:8.2f}x")
    big = rows[-1]
    print(f"energy of {big['model']}: NPU {big['npu']['static_uj']:.1f} uJ static + {big['npu']['dynamic_uj']:.1f} uJ "
          f"dynamic; iGPU {big['igpu']['static_uj']:.1f} uJ static + {big['igpu']['dynamic_uj']:.1f} uJ dynamic "
          f"(DDR {big['npu']['ddr_uj']:.1f} vs {big['igpu']['ddr_uj']:.1f} uJ: the same bytes on the same memory)")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(14, 4.6))
    x = np.arange(len(rows))
    for i, (device, color) in enumerate((("npu", "tab:green"), ("igpu", "tab:purple"))):
        ax[0].bar(x + (i - 0.5) * 0.38, [r[device]["latency_us"] for r in rows], 0.38, color=color, label=device)
        ax[1].bar(x + (i - 0.5) * 0.38, [r[device]["inferences_per_joule"] for r in rows], 0.38, color=color,
                  label=device)
    for a, title, label in ((ax[0], "latency (lower is better)", "us per inference (log)"),
                            (ax[1], "inferences per joule (higher is better)", "inferences / J (log)")):
        a.set_xticks(x, [r["model"] for r in rows], fontsize=8)
        a.set_yscale("log")
        a.set_ylabel(label)
        a.set_title(title)
        a.legend()
    fig.suptitle("Lunar Lake NPU vs iGPU presets (energy tables are guesses)")
    save_figure(fig, args.out, "w12_npu_vs_igpu")
    save_summary(args.out, "w12_npu_vs_igpu", {"presets": {k: str(v) for k, v in PRESETS.items()}, "models": rows})


if __name__ == "__main__":
    main()
