#!/usr/bin/env python3
"""Several engines (issue 18): per model, INT8 timing-only latency on default.yaml with 1, 2 and 4
engines (each engine default.yaml's whole array: 4 engines have 4x the MACs) and the speed-up
over one engine, with the issue's targets beside them; each engine's compute busy share; then
the simulator's own speed with 6 engines of default.yaml (CPU seconds of a
timing-only run of the compiled program, against the one-engine run per simulated engine-cycle).
Prints figures, asserts nothing.

  python3 scripts/bench_engines.py [--build DIR] [--models DIR]
"""
import argparse
import json
import pathlib
import resource
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TARGETS = {("resnet50", 4): 2.5, ("mobilenetv2", 4): 2.0}  # speed-up over one engine, at least


def cpu_seconds(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(map(str, command))}: {done.stderr.strip()}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def config_with_engines(work, base, engines):
    path = work / f"{base.stem}-x{engines}.yaml"
    path.write_text(f"base: {base}\nname: {base.stem}-x{engines}\nengines:\n  count: {engines}\n")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=str(ROOT / "build"))
    parser.add_argument("--models", default=str(ROOT / "models" / "generated"))
    args = parser.parse_args()
    npusim = pathlib.Path(args.build) / "bin" / "npusim"
    models = pathlib.Path(args.models)
    if not (models / "resnet50.onnx").exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(models)], check=True)
    exported = ROOT / "models" / "exported" / "transformer_encoder.onnx"
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        base = ROOT / "configs" / "default.yaml"
        print(f"{'model':<22} {'engines':>7} {'cycles':>12} {'speed-up':>9} {'target':>8}  compute busy per engine")
        for model in [models / "resnet50.onnx", models / "mobilenetv2.onnx", exported]:
            one = None
            for engines in (1, 2, 4):
                config = config_with_engines(work, base, engines)
                report = work / "r.json"
                cpu_seconds([npusim, "run", model, "-c", config, "--timing-only", "--json", report, "--quiet"])
                r = json.loads(report.read_text())
                one = one or r["cycles"]
                speedup = one / r["cycles"]
                target = TARGETS.get((model.stem, engines))
                busy = " ".join(f"{100 * e['compute']['busy_cycles'] / r['cycles']:.0f}%" for e in r["engines"])
                print(f"{model.stem:<22} {engines:>7} {r['cycles']:>12,} {speedup:>8.2f}x "
                      f"{(f'>={target}x' if target else '-'):>8}  {busy}")
        # Simulation speed: the compiled program, timing-only, on 1 and 6 engines.
        print()
        for engines in (1, 6):
            config = config_with_engines(work, base, engines)
            prog = work / f"r50-x{engines}.npuprog"
            cpu_seconds([npusim, "compile", models / "resnet50.onnx", "-c", config, "-o", prog, "-q"])
            report = work / "s.json"
            seconds = min(cpu_seconds([npusim, "run", prog, "-c", config, "--timing-only", "--json", report, "--quiet"])
                          for _ in range(3))
            cycles = json.loads(report.read_text())["cycles"]
            print(f"ResNet-50 timing-only on {engines} engine(s): {seconds:.3f} s CPU (best of 3), {cycles:,} cycles, "
                  f"{1e9 * seconds / (cycles * engines):.2f} ns per simulated engine-cycle  [6 engines: <= 0.4 s]")


if __name__ == "__main__":
    main()
