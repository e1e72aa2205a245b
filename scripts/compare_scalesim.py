#!/usr/bin/env python3
"""Cross-checks npusim's per-layer compute_cycles against SCALE-Sim on the ideal presets.

    python3 scripts/compare_scalesim.py [--build DIR] [--dataflow ws os is] [--only TEXT] [--tolerance 2]

For each layer below (ResNet-18's distinct conv shapes and its classifier) and each dataflow it
writes a one-layer ONNX model, compiles and runs it with `npusim compile/run` on
configs/ideal-32x32-<df>.yaml (timing-only) and reads the layer's `compute_cycles` from the
`--json` report: the sum of the durations of the layer's conv/gemm instructions.

SCALE-Sim (PyPI `scalesim`, 3.0.0 here; pip install scalesim) maps a conv to a gemm exactly as
npusim does: T = ofmap pixels, Sr = R*S*C (window), Sc = filters. Its compute module
(scalesim.compute.systolic_compute_<df>) builds per-fold demand matrices whose row count is the
stall-free cycle count; its memory model only adds stall cycles (total = the cycle the last
ofmap row is served), and with ideal memory, what the ideal presets model, there are none.
This script runs that compute module, not SCALE-Sim's whole run (which also needs its config
and layout files and takes minutes per layer).

Why the figures can differ: npusim's compiler tiles layers to fit the scratchpad, and every
tile is its own conv/gemm instruction that pays the array's fill and drain again, so
compute_cycles = sum over tiles. On the ideal presets the 16 MiB scratchpad holds each of
these layers whole, so each is one instruction (the `tiles` column) and the formulas must
agree; on configs with small SRAM (default.yaml, tiny-8x8.yaml) they legitimately do not.
SCALE-Sim takes no padding: it is given the padded ifmap (H + pads), which has the same output
size and gemm shape.

Exits 1 when any layer differs by more than --tolerance percent (default 2).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, ifmap H=W, channels, kernel, filters, stride, pad (a 1x1 "kernel" on a 1x1 ifmap is
# the fully connected classifier, compiled from a Gemm).
LAYERS = [
    ("conv1 7x7/2", 224, 3, 7, 64, 2, 3),
    ("s1 3x3", 56, 64, 3, 64, 1, 1),
    ("s2 3x3/2", 56, 64, 3, 128, 2, 1),
    ("s2 1x1/2 down", 56, 64, 1, 128, 2, 0),
    ("s2 3x3", 28, 128, 3, 128, 1, 1),
    ("s3 3x3", 14, 256, 3, 256, 1, 1),
    ("s4 3x3", 7, 512, 3, 512, 1, 1),
    ("fc gemm", 1, 512, 1, 1000, 1, 0),
]


def write_layer_model(path, hw, c, k, m, stride, pad):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    if hw == 1 and k == 1:  # classifier: Gemm on [1, C]
        w = rng.normal(0, 0.05, (m, c)).astype(np.float32)
        node = helper.make_node("Gemm", ["x", "w"], ["y"], name="layer", transB=1)
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c])
    else:
        w = rng.normal(0, 0.05, (m, c, k, k)).astype(np.float32)
        node = helper.make_node("Conv", ["x", "w"], ["y"], name="layer", kernel_shape=[k, k],
                                strides=[stride, stride], pads=[pad] * 4)
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])
    graph = helper.make_graph([node], "layer", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def npusim_layer(npusim, workdir, name, config, layer):
    _, hw, c, k, m, stride, pad = layer
    onnx_path = os.path.join(workdir, name + ".onnx")
    prog = os.path.join(workdir, name + ".npuprog")
    report = os.path.join(workdir, name + ".json")
    if not os.path.exists(onnx_path):
        write_layer_model(onnx_path, hw, c, k, m, stride, pad)
    subprocess.run([npusim, "compile", onnx_path, "--config", config, "-o", prog, "--precision", "int8", "-q"],
                   check=True)
    subprocess.run([npusim, "run", prog, "--config", config, "--timing-only", "--json", report, "-q"], check=True)
    layers = [l for l in json.load(open(report))["layers"] if l["macs"] > 0]
    assert len(layers) == 1, layers
    asm = subprocess.run([npusim, "disasm", prog], check=True, capture_output=True, text=True).stdout
    tiles = sum(1 for line in asm.splitlines() if line.split() and line.split()[0] in ("conv", "gemm"))
    return layers[0]["compute_cycles"], tiles


def scalesim_compute_cycles(dataflow, rows, cols, layer):
    """Stall-free cycles from SCALE-Sim's own compute module (demand matrix rows)."""
    from scalesim.compute.systolic_compute_is import systolic_compute_is
    from scalesim.compute.systolic_compute_os import systolic_compute_os
    from scalesim.compute.systolic_compute_ws import systolic_compute_ws
    from scalesim.scale_config import scale_config

    _, hw, c, k, m, stride, pad = layer
    out = (hw + 2 * pad - k) // stride + 1
    T, Sr, Sc = out * out, k * k * c, m
    cfg = scale_config()
    cfg.array_rows, cfg.array_cols, cfg.df = rows, cols, dataflow
    cfg.valid_conf_flag = True
    # Operand matrices hold addresses; only their shapes (and -1 for "no request") matter for
    # cycles, so distinct non-negative addresses do.
    ifmap = np.arange(T * Sr, dtype=np.int64).reshape(T, Sr)
    filt = np.arange(Sr * Sc, dtype=np.int64).reshape(Sr, Sc) + 10_000_000
    ofmap = np.arange(T * Sc, dtype=np.int64).reshape(T, Sc) + 20_000_000
    compute = {"ws": systolic_compute_ws, "os": systolic_compute_os, "is": systolic_compute_is}[dataflow]()
    compute.set_params(config_obj=cfg, ifmap_op_mat=ifmap, filter_op_mat=filt, ofmap_op_mat=ofmap)
    compute.create_demand_matrices()
    ifmap_demand, _, _ = compute.get_demand_matrices()
    return ifmap_demand.shape[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory with bin/npusim")
    ap.add_argument("--dataflow", nargs="+", default=["ws", "os", "is"], choices=["ws", "os", "is"])
    ap.add_argument("--only", metavar="TEXT", help="just the layers whose name contains TEXT")
    ap.add_argument("--tolerance", type=float, default=2.0, help="allowed difference in percent")
    args = ap.parse_args()
    npusim = os.path.join(args.build, "bin", "npusim")
    try:
        import scalesim  # noqa: F401
    except ImportError:
        sys.exit("compare_scalesim: SCALE-Sim is not installed (pip install scalesim)")
    worst = 0.0
    with tempfile.TemporaryDirectory() as workdir:
        header = f"{'layer':<16} {'df':<3} {'gemm M x K x N':>18} {'tiles':>5} {'npusim':>9} {'SCALE-Sim':>9} {'diff %':>7}"
        print(header)
        for df in args.dataflow:
            config = os.path.join(ROOT, "configs", f"ideal-32x32-{df}.yaml")
            for i, layer in enumerate(LAYERS):
                name, hw, c, k, m, stride, pad = layer
                if args.only and args.only not in name:
                    continue
                ours, tiles = npusim_layer(npusim, workdir, f"layer{i}", config, layer)
                theirs = scalesim_compute_cycles(df, 32, 32, layer)
                diff = 100.0 * (ours - theirs) / theirs
                worst = max(worst, abs(diff))
                out = (hw + 2 * pad - k) // stride + 1
                shape = f"{out * out}x{k * k * c}x{m}"
                line = f"{name:<16} {df:<3} {shape:>18} {tiles:>5} {ours:>9} {theirs:>9} {diff:>7.2f}"
                print(line, flush=True)
    ok = worst <= args.tolerance
    print(f"largest difference {worst:.2f} % ({'within' if ok else 'OUTSIDE'} {args.tolerance:g} %)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
