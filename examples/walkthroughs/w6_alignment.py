#!/usr/bin/env python3
"""Walkthrough 6: a misaligned input buffer goes through the DMA's bounce buffer.

Pre-processing writes the model input into a buffer it allocated; the NPU's DMA reads it from
there. If that buffer does not start on the DMA's alignment (here 32 bytes: dma.min_alignment_bytes
set to 32 on each preset), every DMA transfer from it goes through a bounce buffer: an extra copy
of bounce_setup_cycles + bytes / bounce_bytes_per_cycle on the DMA channel (sim/README.md).

`npusim run --misalign-inputs N` (Python: compile(..., input_misalignment_bytes=N)) places every
model input N bytes past a 4 KiB boundary instead of where the compiler put it (64-byte
aligned), the way a pre-processing buffer might sit. The script runs each model with its input
aligned and 16 bytes off, on four presets, counts the bounce copies and compares latency; then
sweeps the offset 0..64 bytes on one model: only offsets that are not a multiple of 32 bounce.

    python3 examples/walkthroughs/w6_alignment.py [--quick]

Models: "stem" is one conv (3 -> 16 channels, 3x3 stride 2, ReLU) on a 224x224 image, a model
whose work is mostly reading its input, as in a tiny detector's first stage; models/tiny_convnet.onnx
(32x32); models/exported/resnet_small_opset11.onnx (128x128). --quick: two presets instead of four.
"""
import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, save_figure, save_summary

ALIGNMENT = 32
OFFSET = 16
PRESETS = ["default.yaml", "seed-5.7tops.yaml", "npu-40tops-55gbps.yaml", "intel-npu-lunar-lake.yaml"]
QUICK_PRESETS = ["default.yaml", "intel-npu-lunar-lake.yaml"]


def stem_model(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((16, 3, 3, 3)) * 0.2).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w"], ["c"], name="stem", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          strides=[2, 2]),
         helper.make_node("Relu", ["c"], ["output"], name="relu")],
        "stem", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 16, 112, 112])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def runner(npusim, model, cfg):
    """Compile once; run the same program with the input at any offset (placement is a runtime choice)."""
    compiled = npusim.compile(str(model), cfg, precision="int8")
    declared = npusim.read_onnx_boundary(model)

    def run(offset):
        session = npusim.Session(compiled.compiled, cfg, str(model), declared, "sim", offset)
        _, rep = session.run(timing_only=True)
        return {"latency_us": rep["latency_us"], "bounce_copies": sum(d["bounce_copies"] for d in rep["dma_channels"]),
                "bus_bytes": rep["ddr"]["bus_bytes"]}
    return run


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    models = {"stem 224x224": stem_model(args.out / "w6_stem.onnx"),
              "tiny_convnet 32x32": REPO / "models" / "tiny_convnet.onnx",
              "resnet_small 128x128": REPO / "models" / "exported" / "resnet_small_opset11.onnx"}
    rows = []
    sweep_runner = None
    for preset in QUICK_PRESETS if args.quick else PRESETS:
        cfg = npusim.with_values(npusim.load_config(str(REPO / "configs" / preset)),
                                 {"dma.min_alignment_bytes": ALIGNMENT})
        d = npusim.config_to_dict(cfg)
        for name, model in models.items():
            run = runner(npusim, model, cfg)
            aligned, off = run(0), run(OFFSET)
            rows.append({"preset": preset, "model": name, "aligned": aligned, "misaligned": off,
                         "slowdown": off["latency_us"] / aligned["latency_us"] - 1,
                         "bounce_bytes_per_cycle": d["dma"]["bounce_bytes_per_cycle"],
                         "ddr_bytes_per_cycle": d["ddr"]["bandwidth_gbps"] / (d["clock"]["frequency_mhz"] / 1000)})
            if preset == "default.yaml" and name == "stem 224x224":
                sweep_runner = run
    print(f"dma.min_alignment_bytes = {ALIGNMENT} on every preset; input {OFFSET} bytes past a 4 KiB boundary "
          f"vs where the compiler put it")
    print(f"{'preset':26s} {'model':22s} {'aligned us':>11s} {'+16 B us':>10s} {'bounces':>9s} {'slower':>7s} "
          f"{'bounce B/cyc':>12s} {'DDR B/cyc':>10s}")
    for r in rows:
        print(f"{r['preset']:26s} {r['model']:22s} {r['aligned']['latency_us']:11.2f} {r['misaligned']['latency_us']:10.2f} "
              f"{r['aligned']['bounce_copies']:4d}/{r['misaligned']['bounce_copies']:<4d} {100 * r['slowdown']:6.1f}% {r['bounce_bytes_per_cycle']:12d} "
              f"{r['ddr_bytes_per_cycle']:10.1f}")
    print("bounces: aligned / misaligned input (an aligned run can bounce too: the compiler's own tiles, e.g. a "
          "classifier's 25-class output slices, may start off the 32-byte grid)")
    offsets = list(range(0, 65, 4 if not args.quick else 8))
    sweep = [{"offset": o, **sweep_runner(o)} for o in offsets]
    base = sweep[0]["latency_us"]
    print("stem 224x224 on default.yaml, input offset sweep:")
    print("  " + "  ".join(f"{s['offset']:>3d}:{100 * (s['latency_us'] / base - 1):5.1f}%" for s in sweep))
    worst = max(rows, key=lambda r: r["slowdown"])
    print(f"largest effect: {worst['model']} on {worst['preset']}, {100 * worst['slowdown']:.1f} % (bounce copy "
          f"{worst['bounce_bytes_per_cycle']} B/cycle vs DDR {worst['ddr_bytes_per_cycle']:.1f} B/cycle); the other "
          f"models lose {100 * max(r['slowdown'] for r in rows if not r['model'].startswith('stem')):.1f} % at most")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(14, 4.6))
    labels = [f"{r['model'].split()[0]}\n{r['preset'].replace('.yaml', '')}" for r in rows]
    ax[0].bar(range(len(rows)), [100 * r["slowdown"] for r in rows],
              color=["tab:red" if r["model"].startswith("stem") else "tab:blue" for r in rows])
    ax[0].set_xticks(range(len(rows)), labels, fontsize=6, rotation=90)
    ax[0].set_ylabel(f"slower with the input {OFFSET} B off (%)")
    ax[0].set_title(f"bounce-buffer cost, dma.min_alignment_bytes = {ALIGNMENT}")
    ax[1].plot(offsets, [100 * (s["latency_us"] / base - 1) for s in sweep], "o-")
    for o in range(0, 65, ALIGNMENT):
        ax[1].axvline(o, color="0.7", ls=":")
    ax[1].set_xlabel("input offset past a 4 KiB boundary (bytes)")
    ax[1].set_ylabel("slower than aligned (%)")
    ax[1].set_title("stem 224x224 on default: only offsets off the 32-byte grid bounce")
    save_figure(fig, args.out, "w6_alignment")
    save_summary(args.out, "w6_alignment", {"alignment": ALIGNMENT, "offset": OFFSET, "rows": rows, "sweep": sweep})


if __name__ == "__main__":
    main()
