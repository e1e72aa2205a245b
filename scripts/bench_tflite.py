#!/usr/bin/env python3
"""TFLite files through npusim next to LiteRT: for each file, whether it compiles, the share of
simulated time on the NPU (INT8, the placement line), the simulated latency, and the outputs'
cosine against LiteRT with the NPU in FP16 on the same random inputs. Prints a table and the
count of files at >= 95 % NPU time; asserts nothing.

    python3 scripts/bench_tflite.py [--config configs/default.yaml] FILE_OR_DIR ...

With no argument it writes scripts/make_tflite_models.py's models into a temporary directory and
runs those. Point it at a directory of .tflite files (a wheel's models unpacked) to check
models npusim was not built around.
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
NPUSIM = ROOT / "build" / "bin" / "npusim"


def random_feeds(interpreter, seed=0):
    rng = np.random.default_rng(seed)
    feeds = {}
    for d in interpreter.get_input_details():
        if d["dtype"] in (np.float32, np.float16):
            feeds[d["name"]] = rng.uniform(-1, 1, d["shape"]).astype(d["dtype"])
        elif d["dtype"] in (np.int8, np.uint8, np.int16):
            info = np.iinfo(d["dtype"])
            feeds[d["name"]] = rng.integers(info.min // 2, info.max // 2, d["shape"]).astype(d["dtype"])
        else:
            feeds[d["name"]] = rng.integers(0, 4, d["shape"]).astype(d["dtype"])
    return feeds


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    denom = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / denom) if denom else float(np.array_equal(a, b))


def one(path, config, work):
    from ai_edge_litert.interpreter import Interpreter
    row = {"file": path.name}
    r = subprocess.run([str(NPUSIM), "compile", str(path), "-c", str(config), "-o", str(work / "m.npuprog")],
                       capture_output=True, text=True)
    if r.returncode:
        row["error"] = r.stderr.strip().splitlines()[-1][:120] if r.stderr.strip() else "compile failed"
        return row
    placement = re.search(r"([0-9.]+) % of simulated time on the NPU", r.stdout)
    row["npu"] = float(placement.group(1)) if placement else None
    t = subprocess.run([str(NPUSIM), "run", str(work / "m.npuprog"), "-c", str(config), "--timing-only"],
                       capture_output=True, text=True)
    latency = re.search(r"latency\s+(\d+) cycles = ([0-9.]+) us", t.stdout)
    row["us"] = float(latency.group(2)) if latency else None
    try:
        it = Interpreter(model_path=str(path))
        it.allocate_tensors()
    except Exception as e:  # a custom op LiteRT lacks: no reference
        row["reference"] = str(e).splitlines()[0][:60]
        return row
    feeds = random_feeds(it)
    for d in it.get_input_details():
        it.set_tensor(d["index"], feeds[d["name"]])
    it.invoke()
    want = {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}
    args = []
    for k, (name, value) in enumerate(feeds.items()):
        np.save(work / f"in{k}.npy", value)
        args += ["--input", f"{name}={work / f'in{k}.npy'}"]
    out = work / "out"
    for _ in range(8):
        f = subprocess.run([str(NPUSIM), "run", str(path), "-c", str(config), "--precision", "fp16", *args,
                            "--save-outputs", str(out), "-q"], capture_output=True, text=True)
        # A resource variable's state input (state/<name>), which LiteRT keeps inside: zeros, the
        # state LiteRT starts from.
        missing = re.search(r"missing input '(state/[^']+)': expected float32\[([0-9x]+)\]", f.stderr)
        if not missing:
            break
        state = work / f"state{len(args)}.npy"
        np.save(state, np.zeros([int(d) for d in missing.group(2).split("x")], np.float32))
        args += ["--input", f"{missing.group(1)}={state}"]
    if f.returncode:
        row["reference"] = "fp16 run failed: " + (f.stderr.strip().splitlines() or [""])[-1][:80]
        return row
    # --save-outputs writes <name>.npy with '/', '\\' and ':' as '_'
    saved = {n: out / (n.translate(str.maketrans("/\\:", "___")) + ".npy") for n in want}
    # The lowest over outputs that carry a signal (an all-but-zero output has no direction)
    row["cosine"] = min([cosine(np.load(saved[n]), w) for n, w in want.items() if np.abs(w).max() > 1e-6] or [1.0])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help=".tflite files or directories of them")
    ap.add_argument("--config", default=str(ROOT / "configs" / "default.yaml"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="npusim_bench_tflite_") as tmp:
        tmp = pathlib.Path(tmp)
        paths = [pathlib.Path(p) for p in args.paths]
        if not paths:
            subprocess.run([sys.executable, str(ROOT / "scripts" / "make_tflite_models.py"), "--out", str(tmp / "models")],
                           check=True, capture_output=True)
            paths = [tmp / "models"]
        files = sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.tflite")))
        print(f"{'file':48} {'NPU %':>7} {'sim us':>9} {'fp16 cos':>9}  note")
        at_95 = 0
        for k, path in enumerate(files):
            work = tmp / f"w{k}"
            work.mkdir()
            row = one(path, args.config, work)
            npu = row.get("npu")
            at_95 += npu is not None and npu >= 95.0
            print(f"{row['file'][:48]:48} {npu if npu is not None else '-':>7} {row.get('us') or '-':>9} "
                  f"{('%.5f' % row['cosine']) if 'cosine' in row else '-':>9}  {row.get('error') or row.get('reference') or ''}")
        print(f"{at_95} of {len(files)} files at >= 95 % of simulated time on the NPU (INT8, {pathlib.Path(args.config).name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
