"""Weight-only quantisation (--weights int8|int4, fp16 activations): the NPU's result against a
numpy reference that quantises and dequantises the weights by the documented rule
(compiler/quant/weight_only.h, gemm b_format in isa/ISA.md); DDR weight bytes at the packed size and
the cycles of a memory-bound 4096 x 4096 GEMV; bad options refused in one line."""
import os
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import ROOT, assert_one_line_error

sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402

CONFIG = ROOT / "configs" / "npu-40tops-55gbps.yaml"


def linear_model(path, m, k, n, seed=0):
    """y = x @ W + b with W [k, n] (the weights the compiler quantises)."""
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32)
    b = (rng.standard_normal(n) * 0.1).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm"], name="mm"),
             helper.make_node("Add", ["mm", "b"], ["y"], name="bias")]
    graph = helper.make_graph(nodes, "linear", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path, w, b


def dequantized(w, bits, group=None):
    """Symmetric per column (int8) or per column and group of rows (int4, the last group shorter):
    scale = fp16(max|w| / qmax), q = round-half-even(w / scale) clamped, w' = fp16(q * scale)."""
    k, _ = w.shape
    qmax, qmin = (127, -128) if bits == 8 else (7, -8)
    group = k if group is None or group > k else group
    out = np.empty_like(w, dtype=np.float16)
    for r0 in range(0, k, group):
        block = w[r0:r0 + group]
        scale = (np.abs(block).max(axis=0) / qmax).astype(np.float16)
        scale[scale == 0] = 1
        q = np.clip(np.rint(block.astype(np.float64) / scale.astype(np.float64)), qmin, qmax)
        out[r0:r0 + group] = (q.astype(np.float32) * scale.astype(np.float32)).astype(np.float16)
    return out


def reference(x, w16, b):
    """The array's arithmetic: fp16 activations times fp16 weights summed in fp32, fp32 bias, fp16 out."""
    acc = x.astype(np.float16).astype(np.float32) @ w16.astype(np.float32) + b
    return acc.astype(np.float16).astype(np.float32)


@pytest.mark.parametrize("weights,group", [("int8", None), ("int4", None), ("int4", 64)])
def test_npu_matches_the_dequantised_reference(tmp_path, weights, group):
    # K = 300: groups of 128 leave a last one of 44, groups of 64 one of 44.
    path, w, b = linear_model(tmp_path / "linear.onnx", 5, 300, 70)
    session = npusim.compile(path, CONFIG, precision="fp16", weights=weights, group_size=group)
    x = np.random.default_rng(1).standard_normal((5, 300)).astype(np.float32)
    (y,) = session.run({"x": x})[0].values()
    expected = reference(x, dequantized(w, 8, None) if weights == "int8" else dequantized(w, 4, group or 128), b)
    # Equal up to the fp32 summation order: within one fp16 step of every element.
    step = np.spacing(np.abs(expected).astype(np.float16)).astype(np.float32)
    assert np.all(np.abs(y - expected) <= step), np.max(np.abs(y - expected) / step)
    # ... and not the unquantised fp16 layer: the quantisation error is many steps.
    unquantised = reference(x, w.astype(np.float16), b)
    assert np.max(np.abs(y - unquantised) / step) > (4 if weights == "int8" else 20)


def gemv_run(path, cfg, **weights):
    session = npusim.compile(path, cfg, precision="fp16", **weights)
    _, report = session.run(timing_only=True)
    return report


def test_int4_gemv_reads_a_quarter_of_the_fp16_weight_bytes(tmp_path):
    """A 4096 x 4096 GEMM at batch 1: weight bytes 2 (fp16), 1 (int8), 1/2 + 2/128 (int4 with
    fp16 scales per 128 rows); memory-bound, the cycles follow the bytes."""
    k = n = 4096
    path, _, _ = linear_model(tmp_path / "gemv.onnx", 1, k, n)
    # 20 GB/s on the 40-TOPS array: even int4 is memory-bound (the array takes 64 fp16 weights
    # per cycle as a GEMV, 55 GB/s would feed it 90 int4 weights per cycle).
    cfg = npusim.with_values(npusim.load_config(CONFIG), {"ddr.bandwidth_gbps": 20})
    runs = {w: gemv_run(path, cfg, **({"weights": w} if w != "fp16" else {})) for w in ("fp16", "int8", "int4")}
    other = 2 * k + 4 * n + 2 * n          # x in, fp32 bias in, y out (fp16): the same for all three
    weight_bytes = {w: r["ddr"]["bytes_read"] + r["ddr"]["bytes_written"] - other for w, r in runs.items()}
    assert weight_bytes["fp16"] == pytest.approx(2 * k * n, rel=0.001)
    assert weight_bytes["int8"] == pytest.approx(k * n + 2 * n, rel=0.001)            # + one scale per column
    assert weight_bytes["int4"] == pytest.approx(k * n // 2 + 2 * n * k // 128, rel=0.001)
    ratio = lambda a, b: runs[a]["cycles"] / runs[b]["cycles"]  # noqa: E731
    assert ratio("fp16", "int8") == pytest.approx(weight_bytes["fp16"] / weight_bytes["int8"], rel=0.1)
    assert ratio("fp16", "int4") == pytest.approx(weight_bytes["fp16"] / weight_bytes["int4"], rel=0.15)


def test_int4_weights_beside_int8_activations(npusim, tmp_path):
    """--precision int8 --weights int4: MatMul weights as int4 per output column (scale max|w| / 7
    in the requantisation), int8 activations. The output follows the int4-rounded weights, not the
    FP32 ones, and the program's gemms say b_format int4."""
    path, w, b = linear_model(tmp_path / "linear.onnx", 8, 300, 70)
    x = np.random.default_rng(1).standard_normal((8, 300)).astype(np.float32)
    calib = tmp_path / "calib"
    calib.mkdir()
    np.save(calib / "x.npy", x)
    session = sys.modules["npusim"].compile(path, CONFIG, weights="int4", calib=str(calib))
    (y,) = session.run({"x": x})[0].values()
    scale = np.abs(w).max(axis=0) / 7
    w4 = np.clip(np.rint(w / scale), -7, 7) * scale
    ref4, ref32 = x @ w4 + b, x @ w + b
    # Mean errors: calibration measures ranges with the FP32 weights, so extremes may clip.
    int4_error = np.abs(ref4 - ref32).mean()
    assert np.abs(y - ref4).mean() < 0.25 * int4_error, (np.abs(y - ref4).mean(), int4_error)
    assert np.abs(y - ref32).mean() > 0.75 * int4_error
    prog = tmp_path / "m.npuprog"
    result = npusim("compile", path, "-c", CONFIG, "-o", prog, "--weights", "int4", "--calib", calib)
    assert result.code == 0, result.err
    assert ("weight-only quantisation: int4 per output channel (its scale in the requantisation), int8 activations, "
            "1 MatMul/Gemm layer(s)") in result.out
    listing = npusim("disasm", prog).out
    gemms = [line for line in listing.splitlines() if line.lstrip().startswith("gemm")]
    assert gemms and all("b_format=int4" in g and "mac_dtype=int8" in g and "b_group=0" in g for g in gemms)


def test_int8_gemv_with_int4_weights_reads_half_the_bytes(tmp_path):
    """A 2048 x 2048 GEMV in INT8: int4 weights are k * n / 2 bytes (no scales), and at 55 GB/s
    the layer stays memory-bound (the array takes R = 128 int8 weights per cycle streaming them),
    so its cycles follow the bytes."""
    k = n = 2048
    path, _, _ = linear_model(tmp_path / "gemv.onnx", 1, k, n)
    runs = {}
    for weights in ("int8", "int4"):
        session = npusim.compile(path, CONFIG, **({"weights": "int4"} if weights == "int4" else {}))
        runs[weights] = session.run(timing_only=True)[1]
    other = k + 4 * n + 8 * n + n  # x in (int8), bias and requantisation (int32 x 3) per column, y out
    weight_bytes = {w: r["ddr"]["bytes_read"] + r["ddr"]["bytes_written"] - other for w, r in runs.items()}
    assert weight_bytes["int8"] == pytest.approx(k * n, rel=0.002)
    assert weight_bytes["int4"] == pytest.approx(k * n // 2, rel=0.004)
    assert runs["int4"]["cycles"] / runs["int8"]["cycles"] == pytest.approx(0.5, rel=0.15)


@pytest.mark.parametrize("args,needles", [
    (["--precision", "fp16", "--weights", "int3"], ["--weights 'int3'", "int8, int4"]),
    (["--weights", "int8"], ["--weights int8 with --precision int8", "--weights int4 stores them as int4"]),
    (["--weights", "int4", "--group-size", "64"], ["--group-size 64", "with --precision fp16"]),
    (["--precision", "mixed", "--weights", "int8"], ["--precision fp16", "got mixed"]),
    (["--precision", "fp16", "--weights", "int4", "--group-size", "0"], ["--group-size 0", "1..65535"]),
    (["--precision", "fp16", "--weights", "int4", "--group-size", "12x"], ["--group-size 12x"]),
    (["--precision", "fp16", "--weights", "int8", "--group-size", "64"], ["--group-size 64 needs --weights int4"]),
])
def test_bad_weight_options_are_one_line(npusim, tmp_path, args, needles):
    path, _, _ = linear_model(tmp_path / "linear.onnx", 2, 64, 16)
    result = npusim("compile", path, "-c", CONFIG, "-o", tmp_path / "m.npuprog", *args)
    assert_one_line_error(result, *needles)


def test_python_compile_refuses_like_the_cli(tmp_path):
    path, _, _ = linear_model(tmp_path / "linear.onnx", 2, 64, 16)
    with pytest.raises(npusim.Error, match="--group-size 0 is not a number of weights per scale"):
        npusim.compile(path, CONFIG, precision="fp16", weights="int4", group_size=0)
    with pytest.raises(npusim.Error, match="int8 weights are what --precision int8 has already"):
        npusim.compile(path, CONFIG, weights="int8")


def test_compile_summary_and_program_record_the_weights(npusim, tmp_path):
    path, _, _ = linear_model(tmp_path / "linear.onnx", 2, 256, 32)
    result = npusim("compile", path, "-c", CONFIG, "-o", tmp_path / "m.npuprog", "--precision", "fp16",
                    "--weights", "int4", "--group-size", "64")
    assert result.code == 0, result.err
    what = "int4 per-group (64 weights per fp16 scale), fp16 activations, 1 MatMul/Gemm layer(s)"
    assert f"weight-only quantisation: {what}" in result.out
    run = npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--timing-only")
    assert run.code == 0, run.err
    assert f"weight-only       {what}" in run.out
