#!/usr/bin/env python3
"""Walkthrough 9: a silent CPU fallback can make the NPU slower than the CPU alone.

A small segmentation network (encoder of three 3x3 convs, a bottleneck conv, two nearest-
neighbour upsamplings with convs, a 1x1 head to 4 classes) with two ops in the middle that no
NPU preset here runs and none will after the NPU op-coverage work either: a CumSum along the
width (a row-integral feature, torch.cumsum in the source model) before the bottleneck conv
and a ScatterND after it (x[:, :, 0, :] = 0, which PyTorch's exporter emits for an in-place
slice assignment). Data-dependent scans and scatters with index tensors are not array or
vector-unit work; real NPU compilers send them to the CPU too.

`npusim run` accepts the model without complaint: the only hint is the "fallbacks" line of
the report. Each fallback is a round trip (NPU -> CPU -> NPU) paying host.transition_us, the
copy of the tensor both ways and the CPU's time for the op. Compared, on one laptop:

  cpu alone       the same model on configs/laptop-cpu-host.yaml: the Lunar Lake CPU cores
                  with their INT8 kernels as the "array" (Intel's 5 CPU TOPS), no transitions
  npu + fallback  the model on configs/intel-npu-lunar-lake.yaml (48 TOPS NPU, same CPU)
  npu, no odd ops the same network without CumSum and ScatterND, on the NPU: what the
                  NPU would do if it took the whole model

and what finds it before run time: `npusim compile --explain` lists every fallback with its
reason, and `--strict` turns the first one into an error.

    python3 examples/walkthroughs/w9_silent_fallback.py [--quick]

--quick: 64x64 input; full mode: 128x128 and a sweep over 64, 128, 256.
"""
import numpy as np

from _common import REPO, import_npusim, npusim_cli, parse_args, pyplot, save_figure, save_summary

NPU = REPO / "configs" / "intel-npu-lunar-lake.yaml"
CPU = REPO / "configs" / "laptop-cpu-host.yaml"
CLASSES = 4


def segmentation_model(path, hw, odd_ops=True):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def conv(x, c_in, c_out, stride, name, relu=True, k=3):
        w = numpy_helper.from_array((rng.standard_normal((c_out, c_in, k, k)) * (2 / (c_in * k * k)) ** 0.5)
                                    .astype(np.float32), name + "_w")
        b = numpy_helper.from_array(np.zeros(c_out, np.float32), name + "_b")
        inits.extend([w, b])
        nodes.append(helper.make_node("Conv", [x, w.name, b.name], [name], name=name, kernel_shape=[k, k],
                                      pads=[k // 2] * 4, strides=[stride] * 2))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + "_relu"], name=name + "_relu"))
        return name + "_relu"

    x = conv("input", 3, 16, 1, "enc1")
    x = conv(x, 16, 32, 2, "enc2")
    x = conv(x, 32, 64, 2, "enc3")
    if odd_ops:
        inits.append(numpy_helper.from_array(np.array(3, np.int64), "width_axis"))
        nodes.append(helper.make_node("CumSum", [x, "width_axis"], ["row_integral"], name="row_integral"))
        x = "row_integral"
    x = conv(x, 64, 64, 1, "mid")
    if odd_ops:
        top_row = np.array([[0, c, 0] for c in range(64)], np.int64)   # [n, c, h] of every channel's row 0
        inits += [numpy_helper.from_array(top_row, "top_row"),
                  numpy_helper.from_array(np.zeros((64, hw // 4), np.float32), "zeros")]
        nodes.append(helper.make_node("ScatterND", [x, "top_row", "zeros"], ["masked"], name="mask_top_row"))
        x = "masked"
    inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "up2"))
    nodes.append(helper.make_node("Resize", [x, "", "up2"], ["up1"], name="up1", mode="nearest"))
    x = conv("up1", 64, 32, 1, "dec1")
    nodes.append(helper.make_node("Resize", [x, "", "up2"], ["up2_out"], name="up2", mode="nearest"))
    x = conv("up2_out", 32, 16, 1, "dec2")
    x = conv(x, 16, CLASSES, 1, "head", relu=False, k=1)
    graph = helper.make_graph(nodes, "segmentation",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, hw, hw])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, CLASSES, hw, hw])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def run(npusim, path, config):
    _, rep = npusim.compile(str(path), npusim.load_config(str(config)), precision="int8").run(timing_only=True)
    return {"latency_us": rep["latency_us"], "npu_us": rep["npu_latency_us"], "cpu_us": rep["host"]["compute_us"],
            "transition_us": rep["host"]["transition_us"], "transfer_us": rep["host"]["transfer_us"],
            "transitions": rep["transitions"], "transfer_bytes": rep["transfer_bytes"],
            "fallbacks": [{"node": f["node"], "op": f["op"], "reason": f["reason"]} for f in rep["fallbacks"]]}


def compare(npusim, out, hw):
    model = segmentation_model(out / f"w9_segmentation_{hw}.onnx", hw)
    clean = segmentation_model(out / f"w9_segmentation_{hw}_no_odd_ops.onnx", hw, odd_ops=False)
    return model, {"cpu alone": run(npusim, model, CPU), "npu + fallback": run(npusim, model, NPU),
                   "npu, no odd ops": run(npusim, clean, NPU)}


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    hw = 64 if args.quick else 128
    model, cases = compare(npusim, args.out, hw)

    explain = npusim_cli(args.build, "compile", model, "--config", NPU, "-o", args.out / "w9.npuprog", "--explain")
    listed = [line for line in explain.stdout.splitlines() + explain.stderr.splitlines() if line.startswith("fallback ")]
    strict = npusim_cli(args.build, "compile", model, "--config", NPU, "-o", args.out / "w9.npuprog", "--strict",
                        check=False)
    print(f"segmentation model {hw}x{hw} with CumSum and ScatterND in the middle, INT8")
    print(f"$ npusim run ... (no error; the report's fallbacks line is the only sign)")
    print(f"$ npusim compile {model.name} --config {NPU.name} --explain")
    for line in listed:
        print(f"  {line}")
    print(f"$ npusim compile {model.name} --config {NPU.name} --strict  -> exit {strict.returncode}")
    print(f"  {strict.stderr.strip()}")
    print(f"{'case':16s} {'config':26s} {'latency us':>11s} {'NPU':>8s} {'CPU':>8s} {'switches':>9s} {'copies':>8s} "
          f"{'fallbacks':>9s}")
    for name, r in cases.items():
        cfg = CPU.name if name == "cpu alone" else NPU.name
        print(f"{name:16s} {cfg:26s} {r['latency_us']:11.1f} {r['npu_us']:8.1f} {r['cpu_us']:8.1f} "
              f"{r['transition_us']:9.1f} {r['transfer_us']:8.1f} {len(r['fallbacks']):9d}")
    slow = cases["npu + fallback"]["latency_us"] / cases["cpu alone"]["latency_us"]
    gain = cases["cpu alone"]["latency_us"] / cases["npu, no odd ops"]["latency_us"]
    odd = [f for f in cases["npu + fallback"]["fallbacks"] if f["op"] in ("CumSum", "ScatterND")]
    follow = len(cases["npu + fallback"]["fallbacks"]) - len(odd)
    print(f"npu + fallback takes {slow:.2f} x the CPU alone ({100 * (slow - 1):+.0f} %); without the two odd ops the "
          f"NPU would be {gain:.2f} x faster than the CPU")
    if follow:
        print(f"{follow} NPU-capable node(s) after the first odd op fell back too: INT8 calibration has no range "
              f"for what the odd op produces, so everything downstream leaves the NPU")

    sweep = []
    if not args.quick:
        for size in (64, 128, 256):
            _, c = compare(npusim, args.out, size)
            sweep.append({"hw": size, **{k: v["latency_us"] for k, v in c.items()}})
        print("input size   cpu alone   npu + fallback   npu, no odd ops   fallback / cpu")
        for s in sweep:
            print(f"{s['hw']:4d}x{s['hw']:<4d}  {s['cpu alone']:10.1f}   {s['npu + fallback']:14.1f}   "
                  f"{s['npu, no odd ops']:15.1f}   {s['npu + fallback'] / s['cpu alone']:14.2f}")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2 if sweep else 1, figsize=(13 if sweep else 8, 4.6), squeeze=False)
    names = list(cases)
    parts = (("npu_us", "array: the NPU (cpu alone: the CPU's INT8 kernels)", "tab:orange"),
             ("cpu_us", "host steps (FP32 at host.gflops)", "tab:blue"),
             ("transition_us", "NPU<->CPU switches", "tab:red"), ("transfer_us", "copies", "tab:purple"))
    bottom = np.zeros(len(names))
    for key, label, color in parts:
        vals = np.array([cases[n][key] for n in names])
        ax[0][0].bar(names, vals, bottom=bottom, color=color, label=label)
        bottom += vals
    ax[0][0].set_ylabel("latency (us)")
    ax[0][0].set_title(f"{hw}x{hw} segmentation, INT8: fallback {slow:.2f} x the CPU alone")
    ax[0][0].legend(fontsize=8)
    if sweep:
        for key in names:
            ax[0][1].plot([s["hw"] for s in sweep], [s[key] for s in sweep], "o-", label=key)
        ax[0][1].set_xscale("log", base=2)
        ax[0][1].set_yscale("log")
        ax[0][1].set_xlabel("input size (pixels per side)")
        ax[0][1].set_ylabel("latency (us)")
        ax[0][1].legend(fontsize=8)
        ax[0][1].set_title("by input size")
    save_figure(fig, args.out, "w9_silent_fallback")
    save_summary(args.out, "w9_silent_fallback", {"hw": hw, "cases": cases, "fallback_over_cpu": slow,
                                                  "explain_fallbacks": listed, "strict_exit": strict.returncode,
                                                  "strict_error": strict.stderr.strip(), "sweep": sweep})


if __name__ == "__main__":
    main()
