#!/usr/bin/env python3
"""The issue-10 schedule table: per model and preset, INT8 timing-only cycles, DDR traffic
(compulsory and spill), MAC utilisation, overlap efficiency and the compile time, with the
issue's target beside each figure; then the small-scratchpad checks (tiny-8x8, default.yaml at
64 and 128 KiB). Prints figures, asserts nothing (called by scripts/bench_models).

  python3 scripts/bench_schedule.py [--build DIR] [--models DIR] [--only MODEL,...]
"""
import argparse
import json
import pathlib
import subprocess
import sys
import resource
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (preset, model) -> (cycles target, DDR MB target or None), from issue 10.
TARGETS = {
    ("default", "resnet50"): (5_600_000, 65.0),
    ("default", "resnet18"): (2_400_000, None),
    ("default", "mobilenetv2"): (1_500_000, None),
    ("npu-40tops-55gbps", "resnet50"): (1_000_000, 32.0),
    ("npu-40tops-55gbps", "resnet18"): (420_000, None),
    ("npu-40tops-55gbps", "mobilenetv2"): (600_000, None),
    ("npu-40tops-55gbps", "yolo_style"): (300_000, None),
}
OVERLAP_TARGET = 0.9


def run(npusim, model, config, work):
    prog = work / f"{model.stem}-{config.stem}.npuprog"
    report = work / f"{model.stem}-{config.stem}.json"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    compiled = subprocess.run([npusim, "compile", str(model), "-c", str(config), "-o", str(prog), "-q"],
                              capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds (user + system): the machines are shared, wall time is noise.
    compile_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if compiled.returncode != 0:
        return None, compile_s, compiled.stderr.strip().splitlines()[-1]
    ran = subprocess.run([npusim, "run", str(prog), "-c", str(config), "--timing-only", "-q", "--json", str(report)],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        return None, compile_s, ran.stderr.strip().splitlines()[-1]
    return json.loads(report.read_text()), compile_s, ""


def with_sram(config, kib, work):
    text = config.read_text().replace("capacity_kib: 1024", f"capacity_kib: {kib}")
    out = work / f"{config.stem}-{kib}k.yaml"
    out.write_text(text)
    return out


def mark(ok):
    return "ok" if ok else "MISS"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--models", default=None, help="directory of make_models.py models (default BUILD/models)")
    ap.add_argument("--only", default="resnet50,resnet18,mobilenetv2,yolo_style")
    args = ap.parse_args()
    npusim = str(ROOT / args.build / "bin" / "npusim")
    models_dir = pathlib.Path(args.models or ROOT / args.build / "models")
    names = args.only.split(",")
    for name in names:
        if not (models_dir / f"{name}.onnx").exists():
            subprocess.run([sys.executable, str(ROOT / "scripts/make_models.py"), "--out", str(models_dir), "--only", name],
                           check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        print(f"{'preset':20s} {'model':12s} {'cycles':>10s} {'target':>10s}  {'DDR MB':>7s} {'compuls.':>8s} "
              f"{'spill':>6s}  {'MAC util':>8s} {'overlap':>7s}  {'compile cpu s':>13s}")
        for preset in ("default", "npu-40tops-55gbps"):
            config = ROOT / "configs" / f"{preset}.yaml"
            for name in names:
                r, compile_s, err = run(npusim, models_dir / f"{name}.onnx", config, work)
                if r is None:
                    print(f"{preset:20s} {name:12s} failed: {err}")
                    continue
                target, ddr_target = TARGETS.get((preset, name), (None, None))
                ddr_mb = r["ddr"]["bus_bytes"] / 1e6
                cyc = f"{r['cycles']:>10,d}"
                tgt = f"{target:>10,d} {mark(r['cycles'] <= target)}" if target else f"{'':>10s}   "
                ddr = f"{ddr_mb:7.1f}" + (f" ({mark(ddr_mb <= ddr_target)} <= {ddr_target:.0f})" if ddr_target else "")
                print(f"{preset:20s} {name:12s} {cyc} {tgt} {ddr} {r['ddr']['compulsory_bytes'] / 1e6:8.1f} "
                      f"{r['ddr']['spill_bytes'] / 1e6:6.2f}  {100 * r['mac_utilization']:7.1f}% "
                      f"{r['overlap_efficiency']:6.3f} {mark(r['overlap_efficiency'] >= OVERLAP_TARGET):4s} "
                      f"{compile_s:6.2f}")
        print("small scratchpads (every model must compile and run; ResNet-18 at 128 KiB <= 1.5x its 1 MiB cycles)")
        default = ROOT / "configs" / "default.yaml"
        base = {}
        for config, label in ((ROOT / "configs" / "tiny-8x8.yaml", "tiny-8x8 (64 KiB)"),
                              (with_sram(default, 64, work), "default @ 64 KiB"),
                              (with_sram(default, 128, work), "default @ 128 KiB"),
                              (default, "default @ 1 MiB")):
            for name in names:
                r, _, err = run(npusim, models_dir / f"{name}.onnx", config, work)
                print(f"  {label:20s} {name:12s} " + (f"{r['cycles']:>12,d} cycles" if r else f"failed: {err}"))
                if r:
                    base[(label, name)] = r["cycles"]
        if ("default @ 128 KiB", "resnet18") in base and ("default @ 1 MiB", "resnet18") in base:
            ratio = base[("default @ 128 KiB", "resnet18")] / base[("default @ 1 MiB", "resnet18")]
            print(f"  ResNet-18 128 KiB / 1 MiB = {ratio:.2f} (target <= 1.5: {mark(ratio <= 1.5)})")


if __name__ == "__main__":
    main()
