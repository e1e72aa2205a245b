#!/usr/bin/env python3
"""Compiles every bundled model on the reference presets and records a hash of each program.

A refactor of the compiler must leave every compiled program byte for byte as it was. Record
a baseline before the change and compare after it:

    python3 scripts/check_programs_identical.py --record /tmp/baseline.json
    python3 scripts/check_programs_identical.py --compare /tmp/baseline.json

Models: models/*.onnx, models/exported/*.onnx and models/generated/*.onnx (made first with
`python3 scripts/make_models.py --out models/generated` when that folder is missing). Configs
and precisions: CONFIGS x PRECISIONS below. A combination that fails to compile is recorded
with its exit status and the last line it printed, and compares equal only to the same failure.
Each program is hashed whole and without its metadata sections (pass summaries, the plan:
`npusim disasm` minus its .section blocks); a change that only rewords a pass summary differs
whole but not in code, and --compare says which.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIGS = ["default", "npu-40tops-55gbps", "intel-npu-lunar-lake", "default-dram", "tiny-8x8"]
PRECISIONS = ["int8", "fp16"]


def model_paths():
    generated = ROOT / "models" / "generated"
    if not any(generated.glob("*.onnx")):
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_models.py"), "--out", str(generated)], check=True)
    paths = []
    for folder in ["models", "models/exported", "models/generated"]:
        paths += sorted((ROOT / folder).glob("*.onnx"))
    return paths


def compile_one(npusim, model, config, precision, workdir):
    key = f"{model.relative_to(ROOT)} {config} {precision}"
    out = pathlib.Path(workdir) / (hashlib.sha1(key.encode()).hexdigest() + ".npuprog")
    cmd = [str(npusim), "compile", str(model), "-c", str(ROOT / "configs" / f"{config}.yaml"),
           "-o", str(out), "--precision", precision, "-q"]
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        return key, {"status": done.returncode, "error": lines[-1] if lines else ""}, seconds
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    listing = subprocess.run([str(npusim), "disasm", str(out)], capture_output=True, text=True).stdout
    out.unlink()
    return key, {"status": 0, "sha256": digest, "code_sha256": hashlib.sha256(code_only(listing).encode()).hexdigest()}, seconds


def code_only(listing):
    """The disassembly without comments and without each .section block (its .hex lines)."""
    kept, in_section = [], False
    for line in listing.splitlines():
        if line.startswith(".section"):
            in_section = True
            continue
        if in_section and line.startswith(".hex"):
            continue
        in_section = False
        if not line.startswith("#"):
            kept.append(line.split("  #")[0])
    return "\n".join(kept)


def run_all(npusim, jobs):
    results, times = {}, {}
    with tempfile.TemporaryDirectory() as workdir, concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(compile_one, npusim, m, c, p, workdir)
                   for m in model_paths() for c in CONFIGS for p in PRECISIONS]
        for f in concurrent.futures.as_completed(futures):
            key, result, seconds = f.result()
            results[key] = result
            times[key] = round(seconds, 2)
    return dict(sorted(results.items())), dict(sorted(times.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--record", metavar="JSON", help="write every combination's hash (or failure) here")
    what.add_argument("--compare", metavar="JSON", help="compile again and list every combination that differs")
    ap.add_argument("--npusim", default=str(ROOT / "build" / "bin" / "npusim"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args()

    start = time.monotonic()
    results, times = run_all(args.npusim, args.jobs)
    failed = sum(1 for r in results.values() if r["status"] != 0)
    print(f"{len(results)} combinations, {failed} fail to compile, {time.monotonic() - start:.0f} s")
    if args.record:
        pathlib.Path(args.record).write_text(json.dumps({"programs": results, "seconds": times}, indent=1) + "\n")
        return 0
    baseline = json.loads(pathlib.Path(args.compare).read_text())["programs"]
    differ, metadata_only = [], []
    for k in sorted(set(baseline) | set(results)):
        was, now = baseline.get(k), results.get(k)
        if was == now:
            continue
        if was and now and was.get("code_sha256") and was.get("code_sha256") == now.get("code_sha256"):
            metadata_only.append(k)
            continue
        differ.append(k)
        print(f"DIFFERS {k}: was {was}, now {now}")
    if metadata_only:
        print(f"{len(metadata_only)} combination(s) differ only in their metadata sections (same code and data)")
    print("identical" if not differ else f"{len(differ)} combination(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
