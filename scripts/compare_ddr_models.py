#!/usr/bin/env python3
"""Runs one compiled model on a config with the command-level DRAM model (ddr.model: dram) and
on the same config with ddr.model: simple (same peak bandwidth, channels and latency), and
explains the difference per layer by what the DRAM saw: row-hit rate, row misses and the
read/write turnaround of each layer's transfers (sim/README.md "DDR dram").

    python3 scripts/compare_ddr_models.py [--model models/generated/resnet50.onnx]
        [--config configs/default-dram.yaml] [--build build] [--top 15]

The program is compiled once, for the dram config, so both runs execute the same
instructions. Asserts nothing; prints a table.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]


def channel_count(config):
    """ddr.channels of a config file (following base: files)."""
    sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
    import npusim  # noqa: E402
    return int(npusim.config_to_dict(npusim.load_config(config))["ddr"]["channels"])


def run(npusim, program, config, out):
    subprocess.run([npusim, "run", str(program), "--config", str(config), "--timing-only", "-q", "--json", str(out)],
                   check=True)
    return json.loads(pathlib.Path(out).read_text())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(ROOT / "models" / "generated" / "resnet50.onnx"))
    ap.add_argument("--config", default=str(ROOT / "configs" / "default-dram.yaml"))
    ap.add_argument("--build", default=os.environ.get("NPUSIM_BUILD", str(ROOT / "build")))
    ap.add_argument("--top", type=int, default=15, help="layers with the largest difference")
    args = ap.parse_args()
    npusim = pathlib.Path(args.build) / "bin" / "npusim"
    model = pathlib.Path(args.model)
    if not model.exists():
        sys.exit(f"{model}: not found (python3 scripts/make_models.py --out models/generated)")
    config = pathlib.Path(args.config).resolve()
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        simple = work / "simple.yaml"
        simple.write_text(f"base: {config}\nname: {config.stem}-simple\nddr:\n  model: simple\n")
        program = work / "model.npuprog"
        subprocess.run([npusim, "compile", str(model), "--config", str(config), "-o", str(program), "-q"], check=True)
        dram = run(npusim, program, config, work / "dram.json")
        base = run(npusim, program, simple, work / "simple.json")

    d = dram["ddr"]
    channels = channel_count(config)
    # Refresh blocks each channel tRFC every tREFI: the share of a channel's time it takes.
    refresh_share = d["refresh_ns"] / (channels * dram["latency_us"] * 1e3)
    print(f"{model.name} on {config.name}: dram {dram['cycles']} cycles, simple {base['cycles']} cycles "
          f"(x{dram['cycles'] / base['cycles']:.3f}) at {d['peak_gbps']:g} GB/s peak")
    print(f"dram: {100 * d['row_hit_rate']:.1f}% row hits ({d['row_misses']} misses, {d['row_conflicts']} conflicts), "
          f"bank parallelism {d['bank_parallelism']:.2f}; refresh {d['refresh_ns'] / 1e3:.0f} us "
          f"({100 * refresh_share:.1f}% of each channel's time) and read/write turnaround "
          f"{d['turnaround_ns'] / 1e3:.0f} us of channel time (summed over {channels} channels)")
    simple_layers = {l["name"]: l for l in base["layers"]}
    rows = []
    for l in dram["layers"]:
        s = simple_layers.get(l["name"])
        if not s or l["device"] != "npu":
            continue
        bursts = l["ddr_row_hits"] + l["ddr_row_misses"]
        dma = max(l["load_cycles"], l["store_cycles"])
        rows.append((l["cycles"] - s["cycles"], l, s, bursts, dma))
    rows.sort(key=lambda r: -abs(r[0]))
    print(f"\n{args.top} layers with the largest difference, in cycles. DMA share: the busier of its loads and "
          "stores over the layer's cycles (dram run); refresh: that DMA time x the refresh share, what a memory-bound "
          "layer loses to refresh alone; the rest comes from row misses (each a tRP + tRCD on its bank) and the "
          "read/write turnaround (cycles summed over channels):")
    print(f"{'layer':<22} {'simple':>9} {'dram':>9} {'diff':>8} {'DMA share':>9} {'refresh':>8} {'DDR B':>9} "
          f"{'row hits':>8} {'misses':>7} {'turnaround':>10}")
    for diff, l, s, bursts, dma in rows[:args.top]:
        hit = 100.0 * l["ddr_row_hits"] / bursts if bursts else 0.0
        share = 100.0 * dma / l["cycles"] if l["cycles"] else 0.0
        print(f"{l['name'][:22]:<22} {s['cycles']:>9} {l['cycles']:>9} {diff:>+8} {share:>8.0f}% "
              f"{dma * refresh_share:>8.0f} {l['ddr_bytes']:>9} {hit:>7.1f}% {l['ddr_row_misses']:>7} "
              f"{l['ddr_turnaround_cycles']:>10.0f}")
    slower = [r for r in rows if r[0] > 0]
    print(f"\n{len(slower)} of {len(rows)} NPU layers slower under dram, {sum(r[0] for r in slower)} cycles in all; "
          "a layer loses most where its DMA share is high (memory-bound) and its row-hit rate low or its "
          "turnaround high; compute-bound layers hide the DRAM behind the array")


if __name__ == "__main__":
    main()
