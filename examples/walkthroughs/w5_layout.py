#!/usr/bin/env python3
"""Walkthrough 5: channel-last (NHWC) is the layout the DMA and the array want.

The array reduces over input channels: for every output pixel a conv tile multiplies the
C channels of each of the 3x3 neighbours with the weights, so the scratchpad wants the C
values of a pixel side by side (NHWC). ONNX models are NCHW. Someone has to transpose.

Part 1, the compiled model: the same conv (3x3, 64 -> 128 on 56x56; --quick: 16 -> 32 on 28x28)
exported twice, with an NCHW input and with an NHWC input followed by Transpose(0,3,1,2) (what
a TensorFlow-style or camera pipeline that produces HWC frames gives). `npusim compile --explain`
says what the layout pass did (relayout copies on the NPU, NCHW<->NHWC conversions at the
boundary) and `npusim run` where each transpose ran: in the runtime's conversion records (on the
host, at the NPU boundary), as an NPU Relayout layer (its cycles), or nowhere. The NCHW input is
transposed on the host; the NHWC input's Transpose is folded into its layout (the program
records host layout NHWC for it), so its bytes go to the conv as they are.

Part 2, the cost, on the DMA: hand-written programs (`npusim sim`, configs/default.yaml: 64-byte
bursts, 25.6 GB/s) that bring one conv input tile (10 rows x 56 x 64 channels, int8) into the
scratchpad:
  nhwc            NHWC in DDR: one contiguous run of 35840 bytes
  nchw planar     NCHW in DDR, kept channel-planar: 64 runs of 560 bytes (the array cannot use it as is)
  nchw dma gather NCHW in DDR transposed by the DMA: 35840 runs of 1 byte, each costing a whole burst
  nchw + vector   NCHW loaded planar, then the vector unit's `transpose` instruction
and a narrow tile (18 x 18 pixels x 64 channels) from each layout: NHWC gives 18 runs of 1152
bytes, NCHW 1152 runs of 18 bytes, and a burst moves 64 bytes whatever the run length.

    python3 examples/walkthroughs/w5_layout.py [--quick]
"""
import json
import time

import numpy as np

from _common import REPO, import_npusim, npusim_cli, parse_args, pyplot, save_figure, save_summary

CONFIG = REPO / "configs" / "default.yaml"
H, W, C = 56, 56, 64
ROWS = 10   # an 8-row output tile plus the 3x3 halo

TILE_PROGRAMS = {
    "nhwc": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0={ROWS * W * C}",
    "nchw planar": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0={ROWS * W} count1={C} ddr_stride1={H * W} "
                   f"sram_stride1={ROWS * W}",
    "nchw dma gather": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0=1 count1={C} ddr_stride1={H * W} "
                       f"sram_stride1=1 count2={ROWS * W} ddr_stride2=1 sram_stride2={C}",
    "nchw + vector": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0={ROWS * W} count1={C} ddr_stride1={H * W} "
                     f"sram_stride1={ROWS * W} push=vector\n"
                     f"  transpose dtype=int8 dst_addr=0x10000 src_addr=0 batch=1 rows={C} cols={ROWS * W} pop=load",
    "box nhwc": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0={18 * C} count1=18 ddr_stride1={W * C} "
                f"sram_stride1={18 * C}",
    "box nchw": f"load channel=0 ddr_addr=0x10000 sram_addr=0 len0=18 count1=18 ddr_stride1={W} sram_stride1=18 "
                f"count2={C} ddr_stride2={H * W} sram_stride2={18 * 18}",
}


def conv_models(out, c_in, c_out, hw):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array((np.random.default_rng(0).standard_normal((c_out, c_in, 3, 3)) * 0.05)
                                .astype(np.float32), "w")
    y = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, c_out, hw, hw])
    conv = lambda x: helper.make_node("Conv", [x, "w"], ["output"], name="conv", kernel_shape=[3, 3],  # noqa: E731
                                      pads=[1, 1, 1, 1])
    paths = {}
    for name, nodes, shape in (
            ("nchw", [conv("input")], [1, c_in, hw, hw]),
            ("nhwc", [helper.make_node("Transpose", ["input"], ["input_nchw"], name="to_nchw", perm=[0, 3, 1, 2]),
                      conv("input_nchw")], [1, hw, hw, c_in])):
        graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)], [y],
                                  [w])
        paths[name] = out / f"w5_conv_{name}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(paths[name]))
    return paths


def compiled_part(args, c_in, c_out, hw):
    paths = conv_models(args.out, c_in, c_out, hw)
    x = np.random.default_rng(1).standard_normal((1, c_in, hw, hw)).astype(np.float32)
    inputs = {"nchw": x, "nhwc": np.ascontiguousarray(x.transpose(0, 2, 3, 1))}
    result = {}
    for name, path in paths.items():
        npy, rep_path, outs, prog = (args.out / f"w5_{name}{ext}"
                                     for ext in ("_input.npy", ".json", "_outputs", ".npuprog"))
        np.save(npy, inputs[name])
        explain = npusim_cli(args.build, "compile", path, "--config", CONFIG, "-o", prog, "--explain").stdout
        layout_line = next(line for line in explain.splitlines() if line.startswith("layout "))
        npusim_cli(args.build, "run", prog, "--config", CONFIG, "--input", f"input={npy}", "--json", rep_path,
                   "--save-outputs", outs, "--quiet")
        rep = json.loads(rep_path.read_text())
        layout_changes = [c for c in rep["conversions"] if c["from"].split()[-1] != c["to"].split()[-1]]
        relayouts = [layer for layer in rep["layers"] if "Relayout" in layer["op"]]
        result[name] = {"latency_us": rep["latency_us"], "npu_us": rep["npu_latency_us"],
                        "host_us": rep["host"]["time_us"], "transitions": rep["transitions"],
                        "fallbacks": [f"{f['node']} ({f['op']})" for f in rep["fallbacks"]],
                        "layout_pass": layout_line.split(None, 3)[-1].strip(),
                        "conversions": [c["text"] for c in rep["conversions"]],
                        "host_transposes": [c["text"] for c in layout_changes],
                        "npu_relayouts": [layer["name"] for layer in relayouts],
                        "npu_relayout_cycles": sum(layer["cycles"] for layer in relayouts),
                        "cpu_transposes": [f["node"] for f in rep["fallbacks"] if f["op"] == "Transpose"],
                        "input_conversion": next((c for c in rep["conversions"] if c["role"] == "input"), None),
                        "output": np.load(outs / "output.npy")}
    a, b = result["nchw"].pop("output").ravel(), result["nhwc"].pop("output").ravel()
    cosine = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return paths, result, cosine, x


def host_transpose_ms(x):
    """Wall time of numpy's NCHW -> NHWC copy vs a plain copy of the same float32 tensor on this machine."""
    def best(f):
        times = []
        for _ in range(15):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return 1e3 * min(times)
    return best(lambda: np.ascontiguousarray(x.transpose(0, 2, 3, 1))), best(lambda: x.copy())


def main():
    args = parse_args(__doc__.splitlines()[0])
    c_in, c_out, hw = (16, 32, 28) if args.quick else (64, 128, 56)
    paths, compiled, cosine, x = compiled_part(args, c_in, c_out, hw)
    print(f"Part 1: Conv 3x3 {c_in}->{c_out} on {hw}x{hw}, INT8, {CONFIG.relative_to(REPO)}")
    for name, r in compiled.items():
        print(f"  {name} input: latency {r['latency_us']:.2f} us (NPU {r['npu_us']:.2f}, host {r['host_us']:.2f}, "
              f"{r['transitions']} NPU<->CPU switches); fallbacks: {', '.join(r['fallbacks']) or 'none'}")
        print(f"    layout pass: {r['layout_pass']}")
        for text in r["conversions"]:
            print(f"    {text}")
        where = [f"on the host at the NPU boundary ({', '.join(t.split(':')[0] for t in r['host_transposes'])})"
                 if r["host_transposes"] else None,
                 f"on the NPU ({len(r['npu_relayouts'])} Relayout layer(s), {r['npu_relayout_cycles']} cycles)"
                 if r["npu_relayouts"] else None,
                 f"on the CPU ({', '.join(r['cpu_transposes'])})" if r["cpu_transposes"] else None]
        print(f"    transposes run: {'; '.join(w for w in where if w) or 'nowhere'}")
    nchw, nhwc = compiled["nchw"], compiled["nhwc"]
    print(f"  NHWC input {nhwc['latency_us']:.2f} us vs NCHW input {nchw['latency_us']:.2f} us "
          f"({nhwc['latency_us'] / nchw['latency_us']:.3f}x)")
    print(f"  outputs of the two models agree: cosine {cosine:.5f}")
    transpose_ms, copy_ms = host_transpose_ms(x)
    print(f"  on this machine numpy takes {transpose_ms:.3f} ms to transpose the {x.nbytes}-byte float32 input to "
          f"NHWC, {copy_ms:.3f} ms to copy it (wall time, best of 15)")

    print(f"Part 2: one conv input tile into the scratchpad, {CONFIG.relative_to(REPO)}")
    tiles = {}
    for name, body in TILE_PROGRAMS.items():
        prog, js = args.out / f"w5_{name.replace(' ', '_')}.npuasm", args.out / f"w5_{name.replace(' ', '_')}.json"
        prog.write_text(f"# {name}\n  {body}\n  halt\n")
        npusim_cli(args.build, "sim", prog, "--config", CONFIG, "--timing-only", "--json", js, "--quiet")
        rep = json.loads(js.read_text())
        tiles[name] = {"cycles": rep["cycles"], "bytes": rep["ddr"]["bytes_read"], "bus_bytes": rep["ddr"]["bus_bytes"],
                       "vector_cycles": rep["vector"]["busy_cycles"]}
    print(f"  {'program':16s} {'bytes':>7s} {'bus bytes':>10s} {'bus/bytes':>9s} {'cycles':>7s} {'vs nhwc':>8s} "
          f"{'vector cycles':>13s}")
    for name, t in tiles.items():
        ref = tiles["box nhwc" if name.startswith("box") else "nhwc"]["cycles"]
        print(f"  {name:16s} {t['bytes']:7d} {t['bus_bytes']:10d} {t['bus_bytes'] / t['bytes']:9.2f} {t['cycles']:7d} "
              f"{t['cycles'] / ref:7.2f}x {t['vector_cycles']:13d}")

    plt = pyplot()
    fig, ax = plt.subplots(1, 2, figsize=(14, 4.6))
    names = list(tiles)
    ax[0].bar(names, [tiles[n]["cycles"] for n in names],
              color=["tab:green", "tab:olive", "tab:red", "tab:orange", "tab:green", "tab:olive"])
    ax[0].set_yscale("log")
    ax[0].set_ylabel("cycles to bring the tile on chip (log)")
    ax[0].set_title("a conv input tile from NHWC vs NCHW in DDR")
    ax[0].tick_params(axis="x", labelsize=8, rotation=20)
    ax[1].bar(names, [tiles[n]["bus_bytes"] / tiles[n]["bytes"] for n in names], color="tab:blue")
    ax[1].set_yscale("log")
    ax[1].axhline(1, color="k", lw=0.8)
    ax[1].set_ylabel("DDR bytes moved per byte wanted (log)")
    ax[1].set_title("64-byte bursts against run length")
    ax[1].tick_params(axis="x", labelsize=8, rotation=20)
    save_figure(fig, args.out, "w5_layout")
    save_summary(args.out, "w5_layout", {"compiled": compiled, "cosine": cosine, "tiles": tiles,
                                         "host_transpose_ms": transpose_ms, "host_copy_ms": copy_ms})


if __name__ == "__main__":
    main()
