#!/usr/bin/env python3
"""Random byte mutations of the inputs users hand npusim, fed through the CLI.

Starts from the repository's own files (ONNX models, compiled programs, YAML configs, .npy
inputs), mutates bytes (flips, overwrites with boundary values, inserts, deletes, truncates,
duplicates a range) and runs the command that reads each kind:

  onnx     npusim run MUTANT.onnx -c configs/tiny-8x8.yaml            (compile + functional run)
  npuprog  npusim run MUTANT.npuprog -c configs/tiny-8x8.yaml, then npusim disasm MUTANT.npuprog
  yaml     npusim run models/tiny_convnet.onnx -c MUTANT.yaml --timing-only
  npy      npusim run models/tiny_convnet.onnx -c configs/tiny-8x8.yaml --input input=MUTANT.npy

Each run is classified:
  ok      exit 0
  error   exit 1 or 2 with one "npusim <cmd>: error: ..." line on stderr (warnings aside):
          the clean rejection users are promised
  crash   anything else: a signal (segmentation fault, abort), another exit code, a sanitizer
          report, a hang (over --timeout seconds), or an error that is not one clean line

Crashing inputs are kept in --keep DIR with the command and its stderr. Exit code 1 when any
run crashed. Point --npusim at build-fuzz/bin/npusim (scripts/build_sanitized.sh) to have
AddressSanitizer and UBSan catch memory errors that do not crash a Release build.

  python3 scripts/mutate_inputs.py --runs 300 --seed 1
"""
import argparse
import collections
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SMALL_CONFIG = ROOT / "configs/tiny-8x8.yaml"
MODEL = ROOT / "models/tiny_convnet.onnx"
KINDS = ("onnx", "npuprog", "yaml", "npy")
SANITIZER_EXIT = 86


def seeds(kind, npusim, work):
    """The unmutated inputs of one kind, from the repository's own files."""
    if kind == "onnx":
        return [MODEL] + sorted((ROOT / "tests/fuzz/corpus/onnx_compile").glob("test_*.onnx"))[:6]
    if kind == "yaml":
        return sorted((ROOT / "configs").glob("*.yaml"))
    if kind == "npuprog":
        out = []
        for precision in ("int8", "fp16"):
            path = work / f"tiny_convnet_{precision}.npuprog"
            subprocess.run([str(npusim), "compile", str(MODEL), "-c", str(SMALL_CONFIG), "--precision", precision,
                            "-o", str(path)], check=True, capture_output=True)
            out.append(path)
        for asm in sorted((ROOT / "examples").glob("*.npuasm")):
            path = work / (asm.stem + ".npuprog")
            subprocess.run([str(npusim), "asm", str(asm), "-o", str(path)], check=True, capture_output=True)
            out.append(path)
        return out
    if kind == "npy":
        import numpy as np
        path = work / "input.npy"
        np.save(path, np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32))
        return [path]
    raise ValueError(kind)


BOUNDARY_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFF, 0xFE, 0x3F, 0x40]


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 8])):
        if not data:
            data.extend(rng.randbytes(4))
        # Mostly in place: a length-prefixed format (protobuf, the .npuprog sections) rejects
        # nearly every shifted byte at the first length, which says nothing new.
        op = rng.choice([0, 0, 1, 1, 2, 2, 2, 3, 4, 5, 6])
        i = rng.randrange(len(data))
        if op == 0:
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[i] = rng.randrange(256)
        elif op == 2:
            data[i] = rng.choice(BOUNDARY_BYTES)
        elif op == 3:
            data[i:i] = rng.randbytes(rng.randint(1, 8))
        elif op == 4:
            del data[i:i + rng.randint(1, 16)]
        elif op == 5:
            del data[rng.randint(len(data) // 2, len(data)):]
        else:
            j = rng.randrange(len(data))
            data[j:j] = data[i:i + rng.randint(1, 32)]
    return bytes(data)


def fnv1a64(data, h=0xCBF29CE484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def reseal_npuprog(data):
    """Header file size and checksum made to agree with the bytes (isa/program.cpp's
    reseal_program_bytes), so the mutation reaches the loader and the simulator."""
    if len(data) < 32:
        return data
    data = bytearray(data)
    data[16:24] = len(data).to_bytes(8, "little")
    data[24:32] = fnv1a64(data[32:], fnv1a64(data[:24])).to_bytes(8, "little")
    return bytes(data)


def commands(kind, npusim, mutant, work):
    run = [str(npusim), "run", "--quiet"]
    if kind == "onnx":
        return [run + [str(mutant), "-c", str(SMALL_CONFIG)]]
    if kind == "npuprog":
        return [run + [str(mutant), "-c", str(SMALL_CONFIG)],
                [str(npusim), "disasm", str(mutant), "-o", str(work / "disasm.npuasm")]]
    if kind == "yaml":
        return [run + [str(MODEL), "-c", str(mutant), "--timing-only"]]
    if kind == "npy":
        return [run + [str(MODEL), "-c", str(SMALL_CONFIG), "--input", f"input={mutant}"]]
    raise ValueError(kind)


PREFIX = re.compile(r"^npusim [a-z-]+: (error: )?")
WARNING_LINE = re.compile(r"^npusim [a-z-]+: warning: ")
ERROR_LINE = re.compile(r"^npusim [a-z-]+: (error: )?\S")  # "error: ..." (exit 1) or a usage line (exit 2)


def classify(proc):
    if proc is None:
        return "crash", "hang"
    err_lines = [l for l in proc.stderr.splitlines() if l.strip()]
    if proc.returncode == 0:
        return "ok", ""
    if proc.returncode in (1, 2):
        lines = [l for l in err_lines if not WARNING_LINE.match(l)]
        errors = [l for l in lines if ERROR_LINE.match(l)]
        others = [l for l in lines if not ERROR_LINE.match(l)]
        if len(errors) == 1 and not others:
            return "error", errors[0]
        return "crash", "unclean error output: " + " | ".join(err_lines[:4])[:300]
    if proc.returncode < 0:
        return "crash", f"signal {-proc.returncode}"
    return "crash", f"exit code {proc.returncode}: " + " | ".join(err_lines[-3:])[:300]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=300, help="mutants per kind (default 300)")
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--npusim", default=str(ROOT / "build/bin/npusim"))
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a run counts as a hang")
    ap.add_argument("--keep", default=str(ROOT / "build/mutations"), help="where crashing inputs are kept")
    args = ap.parse_args()

    npusim = pathlib.Path(args.npusim)
    if not npusim.exists():
        sys.exit(f"{npusim} is not built; run scripts/build.sh")
    env = dict(os.environ,
               # No leak check: SystemC's guarded coroutine stacks crash LeakSanitizer's scan.
               ASAN_OPTIONS=f"exitcode={SANITIZER_EXIT}:detect_leaks=0",
               UBSAN_OPTIONS=f"exitcode={SANITIZER_EXIT}:print_stacktrace=1:halt_on_error=1")
    keep = pathlib.Path(args.keep)
    rng = random.Random(args.seed)
    totals = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="npusim-mutate-") as tmp:
        work = pathlib.Path(tmp)
        for kind in args.kinds:
            originals = [p.read_bytes() for p in seeds(kind, npusim, work)]
            counts = collections.Counter()
            first_errors = collections.Counter()
            mutant = work / f"mutant.{kind}"
            if kind == "yaml":  # beside copies of the presets, so that `base:` finds them
                (work / "configs").mkdir(exist_ok=True)
                for preset in (ROOT / "configs").glob("*.yaml"):
                    (work / "configs" / preset.name).write_bytes(preset.read_bytes())
                mutant = work / "configs/mutant.yaml"
            for i in range(args.runs):
                # Half from the first seed (the bundled model, the compiled programs), whose
                # bytes are mostly data a mutation leaves parseable.
                data = mutate(originals[0] if rng.random() < 0.5 else rng.choice(originals), rng)
                if kind == "npuprog" and i % 4:  # three in four past the checksum
                    data = reseal_npuprog(data)
                mutant.write_bytes(data)
                for cmd in commands(kind, npusim, mutant, work):
                    try:
                        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                              timeout=args.timeout, env=env)
                    except subprocess.TimeoutExpired:
                        proc = None
                    outcome, detail = classify(proc)
                    counts[outcome] += 1
                    if outcome == "error":
                        message = PREFIX.sub("", detail.replace(str(mutant), "MUTANT"))
                        first_errors[re.sub(r"[0-9]+", "N", message)[:80]] += 1
                    if outcome == "crash":
                        keep.mkdir(parents=True, exist_ok=True)
                        name = f"{kind}-{args.seed}-{i}"
                        (keep / f"{name}.{kind}").write_bytes(data)
                        (keep / f"{name}.txt").write_text(" ".join(cmd) + "\n" + detail + "\n" +
                                                          (proc.stderr if proc else "") + "\n")
                        print(f"  CRASH {kind} #{i}: {detail} (kept as {keep / name}.{kind})", flush=True)
            totals.update(counts)
            print(f"{kind:8s} {args.runs} mutants, {sum(counts.values())} runs: "
                  f"crash {counts['crash']}, ok {counts['ok']}, error {counts['error']}", flush=True)
            for text, n in first_errors.most_common(3):
                print(f"           {n:4d} x error: {text}")
    print(f"total    crash {totals['crash']}, ok {totals['ok']}, error {totals['error']}")
    return 1 if totals["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
