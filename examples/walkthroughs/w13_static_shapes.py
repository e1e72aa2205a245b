#!/usr/bin/env python3
"""Walkthrough 13: NPUs compile for static shapes; a dynamic dimension must be fixed first.

The model (three 3x3 convs with ReLU, strides 1, 2, 2) is exported with a symbolic batch, height
and width, as detectors and segmentation models often are. An NPU compiler lays out tiles,
scratchpad addresses and DMA strides for one shape, so:

  1. `npusim compile` refuses it, naming the input and the dimension;
  2. `--input-shape input=1x3x64x64` fixes it and the program is built for 64x64;
  3. at run time a frame of another size (32x32) is refused by the runtime with one line
     naming the expected shape. What a dynamic-shape runtime could do instead, each measured:
       - pad the frame to 64x64 and run the 64x64 program: the latency of 64x64 for a quarter
         of the pixels;
       - compile a second program for 32x32: its own latency, plus a compile at run time (wall
         time on this machine, printed, not simulated);
       - run the model on the CPU (the host time model, FP32 at host.gflops).

    python3 examples/walkthroughs/w13_static_shapes.py [--quick]

Full and --quick mode differ only in the sizes (quick: 32 -> 16).
"""
import time

import numpy as np

from _common import REPO, import_npusim, npusim_cli, parse_args, pyplot, save_figure, save_summary

CONFIG = REPO / "configs" / "default.yaml"


def dynamic_model(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    inits, nodes, x, c_in = [], [], "input", 3
    for i, (c_out, stride) in enumerate(((16, 1), (32, 2), (64, 2))):
        w = numpy_helper.from_array((rng.standard_normal((c_out, c_in, 3, 3)) * 0.2).astype(np.float32), f"w{i}")
        inits.append(w)
        nodes += [helper.make_node("Conv", [x, w.name], [f"conv{i}"], name=f"conv{i}", kernel_shape=[3, 3],
                                   pads=[1, 1, 1, 1], strides=[stride, stride]),
                  helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"], name=f"relu{i}")]
        x, c_in = f"relu{i}", c_out
    graph = helper.make_graph(nodes, "dynamic", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                               ["batch", 3, "height", "width"])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", 64, "h4", "w4"])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    cfg = npusim.load_config(str(CONFIG))
    big, small = (32, 16) if args.quick else (64, 32)
    model = dynamic_model(args.out / "w13_dynamic.onnx")

    refused = npusim_cli(args.build, "compile", model, "--config", CONFIG, "-o", args.out / "w13.npuprog", check=False)
    print(f"1. $ npusim compile {model.name} --config {CONFIG.name}   -> exit {refused.returncode}")
    print(f"   {refused.stderr.strip().splitlines()[-1]}")

    shape = f"input=1x3x{big}x{big}"
    t0 = time.perf_counter()
    fixed = npusim_cli(args.build, "compile", model, "--config", CONFIG, "-o", args.out / "w13.npuprog",
                       "--input-shape", shape)
    compile_s = time.perf_counter() - t0
    print(f"2. $ npusim compile {model.name} --config {CONFIG.name} --input-shape {shape}   -> exit {fixed.returncode}")
    print(f"   {fixed.stdout.strip().splitlines()[-1]}")

    frame = args.out / f"w13_frame_{small}.npy"
    np.save(frame, np.random.default_rng(1).standard_normal((1, 3, small, small)).astype(np.float32))
    wrong = npusim_cli(args.build, "run", args.out / "w13.npuprog", "--config", CONFIG, "--input", f"input={frame}",
                       check=False)
    print(f"3. $ npusim run w13.npuprog --input input={frame.name}   -> exit {wrong.returncode}")
    print(f"   {wrong.stderr.strip().splitlines()[-1]}")

    program = npusim.compile(str(model), cfg, input_shapes={"input": (1, 3, big, big)})
    _, rep_big = program.run(timing_only=True)
    t0 = time.perf_counter()
    exact = npusim.compile(str(model), cfg, input_shapes={"input": (1, 3, small, small)})
    recompile_s = time.perf_counter() - t0
    _, rep_small = exact.run(timing_only=True)
    cpu = npusim.host_time(model, cfg, input_shapes={"input": (1, 3, small, small)})
    options = [
        {"option": f"pad to {big}x{big}, run the {big}x{big} program", "latency_us": rep_big["latency_us"],
         "macs": int(rep_big["macs"]), "useful_macs": int(rep_small["macs"]), "compile_s": 0.0},
        {"option": f"compile a {small}x{small} program at run time", "latency_us": rep_small["latency_us"],
         "macs": int(rep_small["macs"]), "useful_macs": int(rep_small["macs"]), "compile_s": recompile_s},
        {"option": "run it on the CPU (FP32, host model)", "latency_us": cpu["us"], "macs": None,
         "useful_macs": int(rep_small["macs"]), "compile_s": 0.0},
    ]
    print(f"   what a dynamic-shape runtime could do with the {small}x{small} frame on {CONFIG.name}:")
    print(f"   {'option':44s} {'latency us':>11s} {'MACs':>10s} {'useful':>7s} {'+ compile (wall)':>17s}")
    for o in options:
        useful = f"{100 * o['useful_macs'] / o['macs']:6.0f}%" if o["macs"] else "      -"
        macs = f"{o['macs']:10d}" if o["macs"] else f"{'-':>10s}"
        print(f"   {o['option']:44s} {o['latency_us']:11.2f} {macs} {useful} {o['compile_s']:15.3f} s")
    print(f"   (the first compile with --input-shape took {compile_s:.3f} s wall time including the process start)")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4))
    names = [o["option"] for o in options]
    ax.barh(names, [o["latency_us"] for o in options], color=["tab:orange", "tab:green", "tab:blue"])
    ax.set_xscale("log")
    ax.set_xlabel("latency of one frame (us, simulated; log)")
    for i, o in enumerate(options):
        extra = f" + {o['compile_s'] * 1e3:.0f} ms compile" if o["compile_s"] else ""
        ax.text(o["latency_us"], i, f" {o['latency_us']:.1f} us{extra}", va="center", fontsize=8)
    ax.invert_yaxis()
    ax.set_title(f"a {small}x{small} frame for a program compiled for {big}x{big}")
    save_figure(fig, args.out, "w13_static_shapes")
    save_summary(args.out, "w13_static_shapes", {
        "refused_exit": refused.returncode, "refused_error": refused.stderr.strip(),
        "fixed_exit": fixed.returncode, "wrong_shape_exit": wrong.returncode, "wrong_shape_error": wrong.stderr.strip(),
        "big": big, "small": small, "options": options})


if __name__ == "__main__":
    main()
