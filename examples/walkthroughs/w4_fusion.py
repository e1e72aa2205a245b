#!/usr/bin/env python3
"""Walkthrough 4: fusing Conv+ReLU saves a DDR round trip.

The compiler always fuses Conv + ReLU (there is no switch to turn it off), so the unfused
case is built as two ONNX models: the same Conv alone, and a ReLU alone on the Conv's output
shape. Each is compiled INT8 for the config and run timing-only; the unfused DDR bytes and
cycles are the sum of the two runs. Compared: DDR bytes read + written and cycles of
  fused    = one model Conv -> Relu (the compiler emits one Conv+Relu layer)
  unfused  = model Conv alone + model Relu alone
Everything else (weights, input, output) is the same, so the difference is the conv output
written to DDR and read back by the ReLU layer.

    python3 examples/walkthroughs/w4_fusion.py [--config configs/npu-40tops-55gbps.yaml] [--quick]
"""
import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, rel, save_figure, save_summary


def conv_models(out, c_in, c_out, hw):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array((rng.standard_normal((c_out, c_in, 3, 3)) * 0.1).astype(np.float32), "w")
    b = numpy_helper.from_array((rng.standard_normal(c_out) * 0.1).astype(np.float32), "b")
    x = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, c_in, hw, hw])
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c_out, hw, hw])
    conv = helper.make_node("Conv", ["input", "w", "b"], ["conv_out"], name="conv", kernel_shape=[3, 3],
                            pads=[1, 1, 1, 1])
    paths = {}
    for name, nodes, inits, x_info in (
            ("fused", [conv, helper.make_node("Relu", ["conv_out"], ["output"], name="relu")], [w, b], x),
            ("conv_only", [helper.make_node("Conv", ["input", "w", "b"], ["output"], name="conv",
                                            kernel_shape=[3, 3], pads=[1, 1, 1, 1])], [w, b], x),
            ("relu_only", [helper.make_node("Relu", ["input"], ["output"], name="relu")], [],
             helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, c_out, hw, hw]))):
        g = helper.make_graph(nodes, name, [x_info], [y], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        paths[name] = out / f"w4_{name}.onnx"
        onnx.save(m, str(paths[name]))
    return paths


def main():
    args = parse_args(__doc__.splitlines()[0], lambda p: p.add_argument(
        "--config", default=str(REPO / "configs" / "npu-40tops-55gbps.yaml"), help="hardware config"))
    npusim = import_npusim(args.build)
    cfg = npusim.load_config(args.config)
    c_in, c_out, hw = (16, 32, 28) if args.quick else (64, 64, 56)
    paths = conv_models(args.out, c_in, c_out, hw)
    res = {}
    for name, path in paths.items():
        _, rep = npusim.compile(str(path), cfg, precision="int8").run(timing_only=True)
        layers = rep.layers_frame()
        res[name] = {"read": int(rep["ddr"]["bytes_read"]), "written": int(rep["ddr"]["bytes_written"]),
                     "cycles": int(rep["cycles"]), "layers": [f"{r['name']}:{r['op']}" for _, r in layers.iterrows()],
                     "cpu_fallbacks": int((layers["device"] != "npu").sum())}
    unfused = {k: res["conv_only"][k] + res["relu_only"][k] for k in ("read", "written", "cycles")}
    fused = res["fused"]
    act = c_out * hw * hw   # int8 conv output, bytes
    print(f"Conv 3x3 {c_in}->{c_out} ch on {hw}x{hw} (+ReLU), INT8, {rel(args.config)}")
    print(f"{'case':22s} {'DDR read':>9s} {'written':>9s} {'total':>9s} {'cycles':>8s}  layers")
    for name in ("fused", "conv_only", "relu_only"):
        r = res[name]
        print(f"{name:22s} {r['read']:9d} {r['written']:9d} {r['read'] + r['written']:9d} {r['cycles']:8d}  "
              f"{', '.join(r['layers'])}")
    print(f"{'unfused = conv + relu':22s} {unfused['read']:9d} {unfused['written']:9d} "
          f"{unfused['read'] + unfused['written']:9d} {unfused['cycles']:8d}")
    saved = unfused["read"] + unfused["written"] - fused["read"] - fused["written"]
    print(f"fusion saves {saved} DDR bytes = {saved / act:.2f} x the {act}-byte INT8 conv output "
          f"(one write + one read), and {unfused['cycles'] - fused['cycles']} cycles "
          f"({100 * (1 - fused['cycles'] / unfused['cycles']):.0f} %)")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    labels = ["fused\nConv+Relu", "unfused\nConv, then Relu"]
    conv_r, relu_r = res["conv_only"], res["relu_only"]
    ax[0].bar(labels[0], fused["read"], color="tab:blue", label="read")
    ax[0].bar(labels[0], fused["written"], bottom=fused["read"], color="tab:orange", label="written")
    ax[0].bar(labels[1], conv_r["read"], color="tab:blue")
    ax[0].bar(labels[1], conv_r["written"], bottom=conv_r["read"], color="tab:orange")
    ax[0].bar(labels[1], relu_r["read"], bottom=conv_r["read"] + conv_r["written"], color="tab:blue",
              hatch="//", edgecolor="k", label="ReLU layer: read conv output back")
    ax[0].bar(labels[1], relu_r["written"], bottom=conv_r["read"] + conv_r["written"] + relu_r["read"],
              color="tab:orange", hatch="//", edgecolor="k", label="ReLU layer: write again")
    ax[0].set_ylabel("DDR bytes")
    ax[0].set_title("DDR traffic")
    ax[0].legend(fontsize=8)
    ax[1].bar(labels, [fused["cycles"], unfused["cycles"]], color=["tab:green", "tab:red"])
    ax[1].set_ylabel("cycles")
    ax[1].set_title("latency")
    fig.suptitle(f"Conv 3x3 {c_in}->{c_out} on {hw}x{hw} + ReLU: fusion saves {saved} DDR bytes")
    save_figure(fig, args.out, "w4_fusion")
    save_summary(args.out, "w4_fusion", {"fused": fused, "conv_only": conv_r, "relu_only": relu_r,
                                         "unfused": unfused, "saved_bytes": saved, "conv_output_bytes": act})


if __name__ == "__main__":
    main()
