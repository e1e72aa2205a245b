#!/usr/bin/env python3
"""Checks the PyTorch-exported corpus and prints which ONNX ops each model uses.

    python3 scripts/check_exported_models.py [--dir models/exported] [--json OUT.json] [--seed N]

Runs with the project's python (onnx + onnxruntime; no torch). For every model in
DIR/MANIFEST.json: the file exists and its size/sha256 match the manifest, onnx.checker accepts
it, the graph's inputs/outputs have the manifest's names and static shapes, and ONNX Runtime
(CPU) runs it with finite outputs of the manifest's shapes. The input is the exporter's reference
input (numpy.random.default_rng(seed): float32 N(0,1), int64 ids in [0, int_high), recorded in
the manifest), and the outputs must match the fingerprint of torch's outputs for it (mean, std
and 16 sampled values, within 1e-3 of max |y|); --seed N uses other random inputs instead and
checks only that the model runs. A recorded Fashion-MNIST test accuracy is re-measured over the
10k test images (Debian's dataset-fashion-mnist) and must match (--no-accuracy skips it). Then it prints an op-type histogram per model (ops of
the main graph, "domain::" prefix for non-default domains) and the union over the corpus: the
ops the compiler has to cover. Exit code 1 if any check fails.
"""
import argparse
import collections
import hashlib
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fashion_mnist  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = {"float32": np.float32, "int64": np.int64, "int32": np.int32, "bool": np.bool_}


def op_histogram(model):
    hist = collections.Counter()
    for node in model.graph.node:
        hist[(node.domain + "::" if node.domain not in ("", "ai.onnx") else "") + node.op_type] += 1
    return hist


def make_input(desc, rng, int_high):
    shape, dtype = desc["shape"], DTYPES[desc["dtype"]]
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, int_high, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def compare_reference(name, y, ref, problems):
    """ORT output vs the torch fingerprint the exporter recorded for the same input."""
    flat = y.reshape(-1).astype(np.float64)
    got = flat[np.asarray(ref["sample_index"], dtype=np.int64)]
    scale = max(ref["abs_max"], 1e-6)
    err = float(np.max(np.abs(got - np.asarray(ref["sample"])))) / scale
    if err > 1e-3 or abs(flat.mean() - ref["mean"]) > 1e-3 * scale or abs(flat.std() - ref["std"]) > 1e-3 * scale:
        problems.append(f"output {name} differs from torch: max sample error {err:.2e} of max |y|, "
                        f"mean {flat.mean():.4g} vs {ref['mean']:.4g}, std {flat.std():.4g} vs {ref['std']:.4g}")
    return err


def static_shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in dims]


def check(entry, directory, seed, check_accuracy):
    problems, notes = [], []
    path = os.path.join(directory, entry["file"])
    data = open(path, "rb").read()
    if len(data) != entry["file_bytes"]:
        problems.append(f"size {len(data)} != manifest {entry['file_bytes']}")
    if "sha256" in entry and hashlib.sha256(data).hexdigest() != entry["sha256"]:
        problems.append("sha256 differs from the manifest")
    model = onnx.load_from_string(data)
    onnx.checker.check_model(model)
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset != entry["opset"]:
        problems.append(f"opset {opset} != manifest {entry['opset']}")
    for kind, graph_vis, descs in (("input", model.graph.input, entry["inputs"]),
                                   ("output", model.graph.output, entry["outputs"])):
        inits = {i.name for i in model.graph.initializer}
        vis = [v for v in graph_vis if v.name not in inits]
        got = [(v.name, static_shape(v)) for v in vis]
        want = [(d["name"], d["shape"]) for d in descs]
        if [g[0] for g in got] != [w[0] for w in want] or any(
                len(g[1]) != len(w[1]) or any(isinstance(a, int) and a != b for a, b in zip(g[1], w[1]))
                for g, w in zip(got, want)):
            problems.append(f"{kind}s {got} != manifest {want}")
        else:  # the exporter sometimes leaves a dim symbolic even for static inputs: a note, not a failure
            notes += [f"graph {kind} {g[0]} declares shape {g[1]} (symbolic dims), runs as {w[1]}"
                      for g, w in zip(got, want) if any(not isinstance(a, int) for a in g[1])]
    ref = entry.get("reference") if seed is None else None
    feeds = None
    if ref is not None and "fashion_mnist_test_index" in ref:  # a trained model: a real test image
        try:
            i = ref["fashion_mnist_test_index"]
            feeds = {entry["inputs"][0]["name"]: fashion_mnist.normalise(fashion_mnist.load("test")[0][i:i + 1])}
        except FileNotFoundError as ex:
            notes.append(f"no reference comparison: {ex}")
            ref = None
    if feeds is None:
        if ref is not None:  # the exporter's input: compare with torch's outputs
            rng, int_high = np.random.default_rng(ref["seed"]), ref["int_high"]
        else:
            rng, int_high = np.random.default_rng(seed or 0), 512
        feeds = {d["name"]: make_input(d, rng, int_high) for d in entry["inputs"]}
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.log_severity_level = 3
    sess = ort.InferenceSession(data, opts, providers=["CPUExecutionProvider"])
    outs = sess.run(None, feeds)
    for d, y in zip(entry["outputs"], outs):
        if list(y.shape) != d["shape"]:
            problems.append(f"output {d['name']} shape {list(y.shape)} != manifest {d['shape']}")
        if not np.all(np.isfinite(y)):
            problems.append(f"output {d['name']} has non-finite values")
    stats = {d["name"]: (float(np.mean(y)), float(np.std(y))) for d, y in zip(entry["outputs"], outs)}
    if ref is not None:
        errs = [compare_reference(d["name"], y, ref["torch_outputs"][d["name"]], problems)
                for d, y in zip(entry["outputs"], outs)]
        notes.append(f"matches torch on the exporter's reference input (max sample error {max(errs):.1e} of max |y|)")
    acc = entry.get("test_top1_fp32_onnxruntime")
    if acc is not None and check_accuracy:
        try:
            got, n = fashion_mnist.evaluate_onnx(path)
            if abs(got - acc["accuracy"]) > 1e-4 or n != acc["images"]:
                problems.append(f"Fashion-MNIST top-1 {got:.4f} over {n} != manifest {acc['accuracy']}")
            else:
                notes.append(f"Fashion-MNIST test top-1 {got * 100:.2f}% over {n} images, as in the manifest")
        except FileNotFoundError as ex:
            notes.append(f"accuracy not re-measured: {ex}")
    return op_histogram(model), problems, notes, stats, opset


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(REPO, "models", "exported"))
    ap.add_argument("--json", help="also write {model: {op: count}} and the union to this file")
    ap.add_argument("--no-accuracy", action="store_true",
                    help="do not re-measure recorded test accuracies (Fashion-MNIST: 10k ORT runs)")
    ap.add_argument("--seed", type=int, default=None,
                    help="random input seed; default: the exporter's reference input, compared with torch")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "MANIFEST.json")) as f:
        manifest = json.load(f)
    failed, report, union = 0, {}, collections.Counter()
    for entry in manifest["models"]:
        try:
            hist, problems, notes, stats, opset = check(entry, a.dir, a.seed, not a.no_accuracy)
        except Exception as ex:
            print(f"FAIL {entry['file']}: {type(ex).__name__}: {ex}")
            failed += 1
            continue
        status = "ok  " if not problems else "FAIL"
        failed += bool(problems)
        first_out = entry["outputs"][0]["name"]
        print(f"{status} {entry['file']} opset {opset}, {sum(hist.values())} nodes, "
              f"{entry['file_bytes'] / 1e6:.2f} MB; ORT ran it, {first_out} mean {stats[first_out][0]:+.3g} "
              f"std {stats[first_out][1]:.3g}")
        for p in problems:
            print(f"     {p}")
        for n in notes:
            print(f"     note: {n}")
        print("     " + " ".join(f"{op}:{n}" for op, n in sorted(hist.items(), key=lambda kv: (-kv[1], kv[0]))))
        report[entry["file"]] = dict(hist)
        for op in hist:
            union[op] += 1
    print(f"\nop types over {len(report)} models ({len(union)} distinct; number of models using each):")
    print("  " + " ".join(f"{op}:{n}" for op, n in sorted(union.items(), key=lambda kv: (-kv[1], kv[0]))))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"models": report, "union": dict(union)}, f, indent=1, sort_keys=True)
    failures = manifest.get("export_failures") or {}
    for name, why in failures.items():
        print(f"export failed earlier: {name}: {why}")
    print(f"{len(manifest['models']) - failed} of {len(manifest['models'])} models passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
