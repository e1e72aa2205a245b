#!/usr/bin/env python3
"""Walkthrough 10: mixed precision puts the few int8-sensitive layers in fp16.

A small CNN (seven convs, global pool, a classifier) with two spots int8 handles badly, built
the way real ones come about. Seen from the tensors:

  conv6 -> c6   one output channel is 300x larger than the others (a channel a trained net
                leans on). Per-tensor int8 activations give that channel the 255 steps and the
                other 63 at most a step or two.
  conv7         reads c6 through weights that undo the 300x on that channel. conv7's int8
                weights are per output channel, so its scale is set by the other (large)
                weights and the small ones round to zero: the outlier channel's contribution
                disappears.
  conv2, conv3  the same pair early in the net with a 40x channel: int8 hurts, but little.

The other layers quantise well. The walkthrough:

  1. `npusim quant-report` measures per layer the output SQNR/cosine with only that layer in
     int8 and the model output's cosine with only that layer in int8, and names the most
     sensitive ones;
  2. `npusim compile --precision mixed --accuracy-target cosine=X` promotes layers to fp16 by
     the noise each removes per cycle it adds (its fp16 cost plus the int8<->fp16 converters
     around it), until X is reached, then drops the promotions X does not need; a cheap
     neighbour of a promoted layer (a pool) may join it, moving the converter to a smaller value;
  3. the int8, mixed and fp16 programs run on the simulated NPU (`npusim run`) on held-out
     inputs: cosine of the NPU's output against ONNX Runtime's FP32, top-1 agreement, and
     simulated latency.

    python3 examples/walkthroughs/w10_mixed_precision.py [--quick]

--config CFG picks the preset (default configs/default.yaml, where an FP16 MAC takes 4 INT8 slots).
--quick: 16x16 input, 4 calibration and 4 evaluation inputs; full mode: 32x32, 8 and 32.
"""
import json
from pathlib import Path

import numpy as np

from _common import REPO, npusim_cli, parse_args, pyplot, rel, save_summary

DEFAULT_CONFIG = REPO / "configs" / "default.yaml"
TARGET = 0.999
CLASSES = 10
LATE_OUTLIER = 300.0    # conv6's large channel, undone by conv7's weights: int8 hurts badly
EARLY_OUTLIER = 40.0    # conv2's, undone by conv3's: int8 hurts a little


def make_model(path, hw):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(5)
    inits, nodes = [], []

    def conv(x, c_in, c_out, name, k=3, stride=1, scale_out=None, scale_in=None, relu=True):
        w = (rng.standard_normal((c_out, c_in, k, k)) * (2 / (c_in * k * k)) ** 0.5).astype(np.float32)
        if scale_out is not None:       # one output channel much larger than the rest
            w[0] *= scale_out
        if scale_in is not None:        # weights reading that channel undo it
            w[:, 0] /= scale_in
        b = np.zeros(c_out, np.float32)
        inits.extend([numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")])
        nodes.append(helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name,
                                      kernel_shape=[k, k], pads=[k // 2] * 4, strides=[stride] * 2))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + "_relu"], name=name + "_relu"))
        return name + "_relu"

    x = conv("x", 3, 16, "conv1")
    x = conv(x, 16, 32, "conv2", scale_out=EARLY_OUTLIER)
    x = conv(x, 32, 32, "conv3", k=1, scale_in=EARLY_OUTLIER)
    x = conv(x, 32, 64, "conv4", stride=2)
    x = conv(x, 64, 64, "conv5", stride=2)
    x = conv(x, 64, 64, "conv6", scale_out=LATE_OUTLIER)
    x = conv(x, 64, 64, "conv7", k=1, scale_in=LATE_OUTLIER)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool"], name="pool"))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], name="flatten"))
    inits.append(numpy_helper.from_array((rng.standard_normal((64, CLASSES)) * 0.3).astype(np.float32), "fc_w"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc_w"], ["y"], name="fc"))
    graph = helper.make_graph(nodes, "sensitive_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, hw, hw])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, CLASSES])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def write_inputs(folder, hw, count, seed):
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    files = []
    for i in range(count):
        files.append(folder / f"x_{i}.npy")
        np.save(files[-1], rng.normal(0, 1, (1, 3, hw, hw)).astype(np.float32))
    return files


def evaluate(build, out, prog, eval_files, refs):
    """Run prog on every held-out input on the simulated NPU: mean cosine, top-1 agreement, latency."""
    cosines, agree, latency_us, layer_cycles = [], 0, None, {}
    for i, (x_file, ref) in enumerate(zip(eval_files, refs)):
        outs, js = out / f"{prog.stem}_out_{i}", out / f"{prog.stem}_run_{i}.json"
        npusim_cli(build, "run", prog, "--config", CONFIG, "--input", f"x={x_file}", "--save-outputs", outs,
                   "--json", js, "--quiet")
        y = np.load(outs / "y.npy")
        cosines.append(cosine(y, ref))
        agree += int(np.argmax(y) == np.argmax(ref))
        rep = json.loads(js.read_text())
        latency_us = rep["latency_us"]
        layer_cycles = {l["name"]: l["cycles"] for l in rep["layers"]}
    return {"cosine_mean": float(np.mean(cosines)), "cosine_min": float(np.min(cosines)),
            "top1_agreement": agree / len(refs), "latency_us": latency_us, "layer_cycles": layer_cycles}


def main():
    args = parse_args(__doc__.splitlines()[0], lambda p: p.add_argument(
        "--config", default=str(DEFAULT_CONFIG), help="hardware preset (default configs/default.yaml)"))
    global CONFIG
    CONFIG = Path(args.config).resolve()
    import onnxruntime as ort
    hw, n_calib, n_eval = (16, 4, 4) if args.quick else (32, 8, 32)
    out = args.out / "w10"
    out.mkdir(parents=True, exist_ok=True)
    model = make_model(out / f"w10_sensitive_cnn_{hw}.onnx", hw)
    calib_dir = out / "calib"
    write_inputs(calib_dir, hw, n_calib, seed=9)
    eval_files = write_inputs(out / "eval", hw, n_eval, seed=21)
    session = ort.InferenceSession(str(model))
    refs = [session.run(None, {"x": np.load(f)})[0] for f in eval_files]

    report_json = out / "quant_report.json"
    rep_cli = npusim_cli(args.build, "quant-report", model, "--config", CONFIG, "--calib", calib_dir, "--json", report_json)
    report = json.loads(report_json.read_text())
    layers = report["layers"]
    ranked = sorted(layers, key=lambda l: l["model_cosine_alone"])
    print(f"{hw}x{hw} CNN, seven convs; calibrated on {n_calib} inputs, evaluated on {n_eval} others; "
          f"{rel(CONFIG)}")
    print(f"$ npusim quant-report {model.name} --config {CONFIG.name} --calib calib/")
    print(f"{'layer':16s} {'SQNR dB alone':>14s} {'cosine alone':>13s} {'model cosine, only it int8':>27s}")
    for l in layers:
        print(f"{l['layer']:16s} {l['alone_sqnr_db']:14.1f} {l['alone_cosine']:13.5f} {l['model_cosine_alone']:27.5f}")
    print(f"all layers int8: model cosine {report['all_int8_cosine']:.5f} (quantisation simulator, calibration data)")

    progs = {"int8": out / "int8.npuprog", "mixed": out / "mixed.npuprog", "fp16": out / "fp16.npuprog"}
    npusim_cli(args.build, "compile", model, "--config", CONFIG, "--calib", calib_dir, "-o", progs["int8"])
    npusim_cli(args.build, "compile", model, "--config", CONFIG, "--precision", "fp16", "-o", progs["fp16"])
    mixed_cli = npusim_cli(args.build, "compile", model, "--config", CONFIG, "--calib", calib_dir, "--precision", "mixed",
                           "--accuracy-target", f"cosine={TARGET}", "-o", progs["mixed"])
    mixed_line = next(line for line in mixed_cli.stdout.splitlines() if line.startswith("mixed precision for"))
    promoted = [n.strip() for n in mixed_line.split("promoted to fp16:")[1].split(",")] \
        if "promoted to fp16:" in mixed_line else []
    print(f"$ npusim compile {model.name} --config {CONFIG.name} --calib calib/ --precision mixed "
          f"--accuracy-target cosine={TARGET}")
    print(f"  {mixed_line}")

    # the same choice by hand: what a user pins once the report has named the layers
    keep = out / "keep_fp16.npuprog"
    keep_cli = npusim_cli(args.build, "compile", model, "--config", CONFIG, "--calib", calib_dir,
                          "--keep-fp16", ",".join(promoted), "-o", keep)
    keep_line = next((line for line in keep_cli.stdout.splitlines() if "--keep-fp16" in line), "")
    print(f"$ npusim compile {model.name} --config {CONFIG.name} --calib calib/ --keep-fp16 {','.join(promoted)}")
    print(f"  {keep_line.strip()}")

    cases = {name: evaluate(args.build, out, prog, eval_files, refs) for name, prog in progs.items()}
    keep_case = evaluate(args.build, out, keep, eval_files, refs)
    print(f"{'precision':10s} {'cosine vs FP32 (mean, min)':>27s} {'top-1 agrees':>13s} {'latency us':>11s}")
    for name, c in cases.items():
        print(f"{name:10s} {c['cosine_mean']:18.5f} {c['cosine_min']:8.5f} {100 * c['top1_agreement']:12.0f}% "
              f"{c['latency_us']:11.2f}")
    print(f"{'keep-fp16':10s} {keep_case['cosine_mean']:18.5f} {keep_case['cosine_min']:8.5f} "
          f"{100 * keep_case['top1_agreement']:12.0f}% {keep_case['latency_us']:11.2f}")
    int8_cycles, mixed_cycles = cases["int8"]["layer_cycles"], cases["mixed"]["layer_cycles"]
    # layers whose span moved by more than scheduling noise (the step scheduler reorders a little)
    changed = [n for n in mixed_cycles if abs(mixed_cycles[n] - int8_cycles.get(n, 0)) > 0.05 * max(mixed_cycles[n], 1)]
    print("where the extra time goes (span in cycles of the layers that changed, int8 -> mixed):")
    for n in changed:
        print(f"  {n:22s} {int8_cycles.get(n, 0):8d} -> {mixed_cycles[n]:8d}")
    cost = cases["mixed"]["latency_us"] / cases["int8"]["latency_us"] - 1
    share = (cases["mixed"]["latency_us"] - cases["int8"]["latency_us"]) / \
        (cases["fp16"]["latency_us"] - cases["int8"]["latency_us"])
    print(f"mixed: {len(promoted)} of {len(layers)} layers in fp16 ({', '.join(promoted)}), "
          f"{100 * cost:+.0f} % latency over int8 ({100 * share:.0f} % of the way to all-fp16)")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(13, 4.6))
    names = [l["layer"] for l in layers]
    x = np.arange(len(layers))
    colors = ["tab:red" if n in promoted else "tab:gray" for n in names]
    ax[0].bar(x, [1 - l["model_cosine_alone"] for l in layers], color=colors)
    ax[0].set_yscale("log")
    ax[0].set_xticks(x)
    ax[0].set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    ax[0].set_ylabel("1 - model cosine with only this layer int8")
    ax[0].set_title("npusim quant-report: red = promoted to fp16 by --precision mixed", fontsize=9)
    for name, color in (("int8", "tab:blue"), ("mixed", "tab:red"), ("fp16", "tab:green")):
        c = cases[name]
        ax[1].plot(c["latency_us"], 1 - c["cosine_mean"], "o", color=color, markersize=9, label=name)
        ax[1].annotate(name, (c["latency_us"], 1 - c["cosine_mean"]), textcoords="offset points", xytext=(6, 6))
    ax[1].axhline(1 - TARGET, color="k", linestyle="--", linewidth=1, label=f"target cosine {TARGET}")
    ax[1].set_yscale("log")
    ax[1].set_xlabel("simulated latency (us)")
    ax[1].set_ylabel("1 - cosine against FP32 (NPU output, held-out inputs)")
    ax[1].set_title(f"accuracy against latency, {CONFIG.name}", fontsize=9)
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    png = args.out / "w10_mixed_precision.png"
    fig.savefig(png, dpi=110)
    print(f"figure: {png}")
    save_summary(args.out, "w10_mixed_precision", {
        "hw": hw, "calib_samples": n_calib, "eval_samples": n_eval, "config": str(rel(CONFIG)), "target_cosine": TARGET,
        "report": {"scheme": report["scheme"], "all_int8_cosine": report["all_int8_cosine"],
                   "layers": [{k: l[k] for k in ("layer", "alone_sqnr_db", "alone_cosine", "model_cosine_alone")}
                              for l in layers],
                   "ranking": [l["layer"] for l in ranked]},
        "mixed_line": mixed_line, "changed_layers": changed, "promoted": promoted, "cases": cases,
        "keep_fp16": {"line": keep_line.strip(), **keep_case},
        "mixed_latency_over_int8": 1 + cost})


if __name__ == "__main__":
    main()
