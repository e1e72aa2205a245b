#!/usr/bin/env python3
"""Walkthrough 7: one layer's tensors, and what the scratchpad size does to their DDR traffic.

The layer: Conv 3x3, 64 -> 128 channels on 56x56 (ResNet stage 2), INT8. 56*56*128*64*9 =
231 M MACs. Its tensors: input 56*56*64 = 196 KiB, weights 3*3*64*128 = 72 KiB, output
56*56*128 = 392 KiB, and one the model file does not show: the int32 accumulators, 4 x the
output = 1568 KiB. If every tensor crossed DDR once, the layer would move 660 KiB (+ bias and
requantisation parameters).

The script compiles this one layer for configs/seed-5.7tops.yaml with the scratchpad set from
32 KiB to 4 MiB (npusim.with_values(cfg, {"sram.capacity_kib": ...}); the tiler plans against
the size) and runs each timing-only: DDR bytes per tensor (how often the input and the weights
are read), DMA transfers, cycles and the layer's arithmetic intensity against the ridge.

    python3 examples/walkthroughs/w7_one_layer.py [--quick]

--quick: four scratchpad sizes instead of eight.
"""
import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, save_figure, save_summary

CONFIG = REPO / "configs" / "seed-5.7tops.yaml"
C_IN, C_OUT, HW = 64, 128, 56
SIZES_KIB = [32, 64, 128, 256, 512, 1024, 2048, 4096]
QUICK_SIZES_KIB = [32, 128, 512, 2048]


def layer_model(out):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((C_OUT, C_IN, 3, 3)) * 0.05).astype(np.float32), "w")
    b = numpy_helper.from_array((rng.standard_normal(C_OUT) * 0.1).astype(np.float32), "b")
    graph = helper.make_graph(
        [helper.make_node("Conv", ["input", "w", "b"], ["output"], name="conv", kernel_shape=[3, 3], pads=[1, 1, 1, 1])],
        "one_layer", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, C_IN, HW, HW])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, C_OUT, HW, HW])], [w, b])
    path = out / "w7_conv_64_128_56.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def main():
    args = parse_args(__doc__.splitlines()[0])
    npusim = import_npusim(args.build)
    cfg = npusim.load_config(str(CONFIG))
    model = layer_model(args.out)
    macs = HW * HW * C_OUT * C_IN * 9
    sizes = {"input": HW * HW * C_IN, "weights": 9 * C_IN * C_OUT, "output": HW * HW * C_OUT}
    acc_bytes = 4 * sizes["output"]
    print(f"Conv 3x3 {C_IN}->{C_OUT} on {HW}x{HW}, INT8: {macs / 1e6:.1f} M MACs; input {sizes['input']} B "
          f"({sizes['input'] / 1024:.0f} KiB), weights {sizes['weights']} B ({sizes['weights'] / 1024:.0f} KiB), "
          f"output {sizes['output']} B ({sizes['output'] / 1024:.0f} KiB), int32 accumulators {acc_bytes} B "
          f"({acc_bytes / 1024:.0f} KiB)")
    ridge = None
    rows = []
    for kib in QUICK_SIZES_KIB if args.quick else SIZES_KIB:
        c = npusim.with_values(cfg, {"sram.capacity_kib": kib})
        _, rep = npusim.compile(str(model), c, precision="int8").run(timing_only=True)
        layer = rep["layers"][0]
        traffic = {d["kind"] if d["kind"] != "tensor" else d["name"]: d for d in layer["ddr_traffic"]}
        ridge = rep["roofline"]["ridge_macs_per_byte"]
        read = int(rep["ddr"]["bytes_read"])
        written = int(rep["ddr"]["bytes_written"])
        rows.append({
            "sram_kib": kib, "cycles": int(rep["cycles"]), "ddr_read": read, "ddr_written": written,
            "input_read": int(traffic["input"]["bytes_read"]), "weights_read": int(traffic["weights"]["bytes_read"]),
            "params_read": int(traffic["parameters"]["bytes_read"]),
            "output_written": int(traffic["output"]["bytes_written"]),
            "dma_transfers": sum(int(d["transfers"]) for d in rep["dma_channels"]),
            "sram_peak": int(rep["sram"]["peak_bytes"]), "intensity": macs / (read + written),
            "bound": layer["bound"], "achieved_tops": rep["achieved_tops"]})
    params = rows[-1]["params_read"]
    minimum = sum(sizes.values()) + params
    print(f"config {CONFIG.relative_to(REPO)}: ridge {ridge:.1f} MACs per DDR byte; one pass over every tensor = {minimum} DDR bytes "
          f"(incl. {params} B of bias/requant parameters)")
    print(f"{'SRAM KiB':>8s} {'input rd':>9s} {'x':>5s} {'weights rd':>10s} {'x':>5s} {'out wr':>8s} {'DDR total':>10s} "
          f"{'/min':>5s} {'DMAs':>5s} {'MAC/B':>6s} {'cycles':>8s} {'TOPS':>6s} bound")
    for r in rows:
        total = r["ddr_read"] + r["ddr_written"]
        print(f"{r['sram_kib']:8d} {r['input_read']:9d} {r['input_read'] / sizes['input']:5.2f} "
              f"{r['weights_read']:10d} {r['weights_read'] / sizes['weights']:5.2f} {r['output_written']:8d} "
              f"{total:10d} {total / minimum:5.2f} {r['dma_transfers']:5d} {r['intensity']:6.1f} {r['cycles']:8d} "
              f"{r['achieved_tops']:6.3f} {r['bound']}")
    big = rows[-1]
    print(f"smallest scratchpad: {rows[0]['ddr_read'] + rows[0]['ddr_written']} DDR bytes in {rows[0]['dma_transfers']} "
          f"DMA transfers; largest: {big['ddr_read'] + big['ddr_written']} in {big['dma_transfers']} "
          f"({(big['ddr_read'] + big['ddr_written']) / minimum:.2f} x one pass: weights read "
          f"{big['weights_read'] / sizes['weights']:.2f}x, input {big['input_read'] / sizes['input']:.2f}x)")

    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.6))
    kib = [r["sram_kib"] for r in rows]
    bottom = np.zeros(len(rows))
    for key, label, color in (("input_read", "input read", "tab:blue"), ("weights_read", "weights read", "tab:orange"),
                              ("output_written", "output written", "tab:green"), ("params_read", "parameters", "0.6")):
        vals = np.array([r[key] for r in rows], float)
        ax[0].bar(range(len(rows)), vals, bottom=bottom, color=color, label=label)
        bottom += vals
    ax[0].axhline(minimum, color="k", ls="--", label=f"every tensor once: {minimum} B")
    ax[0].set_xticks(range(len(rows)), kib)
    ax[0].set_xlabel("scratchpad (KiB)")
    ax[0].set_ylabel("DDR bytes")
    ax[0].set_title("DDR traffic per tensor")
    ax[0].legend(fontsize=8)
    ax[1].loglog(kib, [r["dma_transfers"] for r in rows], "o-", base=2)
    ax[1].set_xlabel("scratchpad (KiB)")
    ax[1].set_ylabel("DMA transfers")
    ax[1].set_title("DMA transfers")
    ax[2].semilogx(kib, [r["intensity"] for r in rows], "o-", base=2, label="layer MACs per DDR byte")
    ax[2].axhline(ridge, color="tab:red", ls=":", label=f"ridge {ridge:.0f} MACs/B")
    ax[2].axhline(macs / minimum, color="k", ls="--", label=f"one pass: {macs / minimum:.0f} MACs/B")
    ax[2].set_xlabel("scratchpad (KiB)")
    ax[2].set_ylabel("MACs per DDR byte")
    ax[2].set_title("arithmetic intensity vs the ridge")
    ax[2].legend(fontsize=8)
    for a in ax[1:]:
        a.set_xticks(kib, [str(k) for k in kib])
        a.minorticks_off()
    fig.suptitle(f"Conv 3x3 {C_IN}->{C_OUT} on {HW}x{HW} (231 M MACs) on seed-5.7tops with the scratchpad swept")
    save_figure(fig, args.out, "w7_one_layer")
    save_summary(args.out, "w7_one_layer", {"macs": macs, "tensor_bytes": sizes, "accumulator_bytes": acc_bytes,
                                            "one_pass_bytes": minimum, "ridge_macs_per_byte": ridge, "sizes": rows})


if __name__ == "__main__":
    main()
