#!/usr/bin/env python3
"""Walkthrough 14: LLM decode is memory-bound: tokens per second = DDR bandwidth / weight bytes.

Generating one token runs every weight of the model once, for one row of activations: each
weight byte fetched from DDR does one MAC (INT8) or two (INT4, two weights per byte). That is
an arithmetic intensity of about 1 MAC per byte, far left of any NPU's ridge (tens to hundreds
of MACs per byte), so the time per token is the time to stream the weights (and the KV cache)
from DDR, whatever the TOPS.

The script builds one GPT-2-style decoder block with onnx.helper (pre-LN, multi-head attention
over a KV cache of length L, GELU MLP of 4 d; d = 512, 8 heads; --quick: prefill of 32 tokens, two presets) in
two forms: decode (1 new token, past K/V of length L as inputs, present K/V as outputs) and
prefill (T tokens at once, causal mask). Each is compiled INT8 for the presets and run
timing-only; decode is compared with (weight bytes + KV-cache bytes) / DDR bandwidth, prefill
and decode are placed on the roofline, and the KV-cache length is swept (decode time grows
with L only through the cache's bytes). Then the decode step of a decoder: 8 such blocks
chained (d = 256 and 512; --quick: 4 blocks of d = 256), whose step pays one block's start and
end once instead of once per block.

    python3 examples/walkthroughs/w14_llm_decode.py [--quick] [--width D]

Needs the transformer ops on the NPU (MatMul of two activations, LayerNormalization, Softmax,
GELU: the npu-ops-compiler branch); on a compiler without them the blocks fall back to the CPU
and the script says so.

INT4 weights beside INT8 activations (W4A8, `--precision int8 --weights int4`, how NPU runtimes
ship INT4 LLM weights): the same decode step streams half the weight bytes through the same
integer array, each output column's scale folded into the requantisation.

Weight-only quantisation (`--precision fp16 --weights int8|int4`, as LLM weights ship to NPUs):
the decode step compiled with FP16 activations and FP16, INT8 (one fp16 scale per output
channel) or INT4 weights (two per byte, one fp16 scale per 128 weights) streams 2, 1 or about
0.52 bytes per weight, so tokens per second should follow bandwidth / weight bytes while the
array keeps up. A batch-1 GEMV uses one row of the array per weight streamed (R weights per
fp16 MAC slot), so where the DDR delivers more INT4 weights per cycle than that, the array sets
the pace instead: the script prints both bounds.
"""
import numpy as np

from _common import REPO, import_npusim, parse_args, pyplot, save_summary

PRESETS = ["npu-40tops-55gbps.yaml", "seed-5.7tops.yaml", "intel-npu-lunar-lake.yaml"]


def gpt_block(path, d, heads, tokens, past, seed=0):
    """One pre-LN GPT-2 block. tokens == 1 with past > 0: decode with a KV cache; past == 0:
    prefill of `tokens` tokens with a causal mask. Outputs the hidden state and present K/V."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    dh = d // heads
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(name, shape):
        return const(name, (rng.standard_normal(shape) * (1 / np.sqrt(shape[0]))).astype(np.float32))

    def node(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], **attrs))
        return outs[0]

    def layernorm(x, name):
        return node("LayerNormalization", [x, const(name + "_g", np.ones(d, np.float32)),
                                           const(name + "_b", np.zeros(d, np.float32))], [name], axis=-1,
                    epsilon=1e-5)

    def linear(x, n_in, n_out, name):
        y = node("MatMul", [x, weight(name + "_w", (n_in, n_out))], [name + "_mm"])
        return node("Add", [y, const(name + "_b", np.zeros(n_out, np.float32))], [name])

    def heads_first(x, name):   # [1, T, d] -> [1, heads, T, dh]
        r = node("Reshape", [x, const(name + "_shape", np.array([1, tokens, heads, dh], np.int64))], [name + "_r"])
        return node("Transpose", [r], [name], perm=[0, 2, 1, 3])

    h1 = layernorm("x", "ln1")
    q = heads_first(linear(h1, d, d, "q"), "q_heads")
    k = heads_first(linear(h1, d, d, "k"), "k_heads")
    v = heads_first(linear(h1, d, d, "v"), "v_heads")
    if past:
        k = node("Concat", ["past_k", k], ["present_k"], axis=2)
        v = node("Concat", ["past_v", v], ["present_v"], axis=2)
    else:
        k = node("Identity", [k], ["present_k"])
        v = node("Identity", [v], ["present_v"])
    kt = node("Transpose", [k], ["k_t"], perm=[0, 1, 3, 2])
    scores = node("MatMul", [q, kt], ["scores"])
    scores = node("Mul", [scores, const("scale", np.array(1 / np.sqrt(dh), np.float32))], ["scores_scaled"])
    if not past and tokens > 1:
        mask = np.triu(np.full((tokens, tokens), -1e4, np.float32), 1)[None, None]
        scores = node("Add", [scores, const("causal_mask", mask)], ["scores_masked"])
    probs = node("Softmax", [scores], ["probs"], axis=-1)
    ctx = node("MatMul", [probs, v], ["ctx"])
    ctx = node("Transpose", [ctx], ["ctx_t"], perm=[0, 2, 1, 3])
    ctx = node("Reshape", [ctx, const("ctx_shape", np.array([1, tokens, d], np.int64))], ["ctx_r"])
    x2 = node("Add", ["x", linear(ctx, d, d, "proj")], ["x2"])
    m = linear(layernorm(x2, "ln2"), d, 4 * d, "fc")
    m = gelu_erf(node, const, m)
    out = node("Add", [x2, linear(m, 4 * d, d, "fc_out")], ["out"])

    total = past + tokens
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, tokens, d])]
    if past:
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, heads, past, dh]) for n in ("past_k", "past_v")]
    outputs = [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, tokens, d])] + [
        helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, heads, total, dh]) for n in ("present_k", "present_v")]
    graph = helper.make_graph(nodes, "gpt_block", inputs, outputs, inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path, 12 * d * d   # weights: q, k, v, proj (4 d^2) and the MLP (8 d^2)


def decoder_step(path, d, heads, past, blocks):
    """The decode step of a decoder: `blocks` GPT-2-style blocks (gpt_block, each with its own
    weights and K/V cache of `past`), block i's output feeding block i + 1. Embeddings and the
    LM head are left out: the step's bytes are the blocks' weights and caches."""
    import onnx
    from onnx import compose
    merged = None
    for i in range(blocks):
        one, _ = gpt_block(path.with_name(f"{path.stem}_block{i}.onnx"), d, heads, 1, past, seed=i)
        block = compose.add_prefix(onnx.load(str(one)), f"b{i}/")
        merged = block if merged is None else compose.merge_models(merged, block, io_map=[(f"b{i - 1}/out", f"b{i}/x")])
    onnx.save(merged, str(path))
    return path, blocks * 12 * d * d


def gelu_erf(node, const, x):
    """GELU as PyTorch's exporter writes it before opset 20: 0.5 x (1 + erf(x / sqrt 2))."""
    t = node("Div", [x, const("sqrt2", np.array(np.sqrt(2), np.float32))], ["gelu_div"])
    t = node("Erf", [t], ["gelu_erf"])
    t = node("Add", [t, const("one", np.array(1, np.float32))], ["gelu_add"])
    t = node("Mul", [x, t], ["gelu_mul"])
    return node("Mul", [t, const("half", np.array(0.5, np.float32))], ["gelu"])


def run(npusim, path, cfg, precision="int8", weights=None):
    extra = {"weights": weights} if weights else {}
    _, rep = npusim.compile(str(path), cfg, precision=precision, **extra).run(timing_only=True)
    return {"npu_us": rep["npu_latency_us"], "latency_us": rep["latency_us"],
            "cpu_fallback_us": rep["time"]["cpu_fallback_us"], "macs": int(rep["macs"]),
            "ddr_read": int(rep["ddr"]["bytes_read"]), "ddr_written": int(rep["ddr"]["bytes_written"]),
            "ddr_gbps": rep["roofline"]["ddr_gbps"], "peak_tops": rep["peak_tops"],
            "ridge": rep["roofline"]["ridge_macs_per_byte"], "achieved_tops": rep["achieved_tops"],
            "fallbacks": sorted({f["op"] for f in rep["fallbacks"]})}


def mlp_block(path, d, seed=1):
    """The weight-streaming half of a decode step on its own: x + fc_out(GELU(fc(LN(x)))) for one
    token, 8 d^2 weights and nothing else worth moving."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, ins, outs, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=outs[0], **attrs))
        return outs[0]

    def linear(x, n_in, n_out, name):
        w = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        y = node("MatMul", [x, const(name + "_w", w)], [name + "_mm"])
        return node("Add", [y, const(name + "_b", np.zeros(n_out, np.float32))], [name])

    h = node("LayerNormalization", ["x", const("g", np.ones(d, np.float32)), const("b", np.zeros(d, np.float32))],
             ["ln"], axis=-1, epsilon=1e-5)
    m = gelu_erf(node, const, linear(h, d, 4 * d, "fc"))
    out = node("Add", ["x", linear(m, 4 * d, d, "fc_out")], ["out"])
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, d])],
                              [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1, d])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path, 8 * d * d


def weight_formats(npusim, decode, mlp, mlp_d, presets, d, heads, past):
    """The decode step with fp16 activations and fp16, int8 or int4 weights on each preset: the
    simulated time, the DDR bound (weight + fp16 KV-cache bytes over the bandwidth) and the
    array's bound for the GEMVs (one array row per weight: k*n / rows fp16 MAC slots each)."""
    macs_per_token = 12 * d * d
    kv_bytes = 2 * 2 * heads * past * (d // heads)          # fp16 K and V
    bytes_per_weight = {"fp16": 2.0, "int8": 1.0 + 2 / (3 * d), "int4": 0.5 + 2 / 128}  # + fp16 scales
    out = []
    for preset in presets:
        cfg = npusim.load_config(str(REPO / "configs" / preset))
        tree = npusim.config_to_dict(cfg)
        rows, mhz = tree["mac_array"]["rows"], tree["clock"]["frequency_mhz"]
        fp16_slots = tree["mac_array"].get("fp16_cycles_per_op", 2)
        for weights in ("fp16", "int8", "int4"):
            r = run(npusim, decode, cfg, "fp16", None if weights == "fp16" else weights)
            m = run(npusim, mlp, cfg, "fp16", None if weights == "fp16" else weights)
            wbytes = int(macs_per_token * bytes_per_weight[weights])
            bound = (wbytes + kv_bytes) / (r["ddr_gbps"] * 1e3)
            out.append({"preset": preset, "weights": weights, "weight_bytes": wbytes, "npu_us": r["npu_us"],
                        "mlp_us": m["npu_us"], "mlp_weight_bytes": int(8 * mlp_d * mlp_d * bytes_per_weight[weights]),
                        "ddr_read": r["ddr_read"], "stream_bound_us": bound,
                        "array_bound_us": macs_per_token / rows * fp16_slots / mhz,
                        "tokens_per_s": 1e6 / r["npu_us"], "fallbacks": r["fallbacks"] + m["fallbacks"]})
            f = out[-1]
            f["mlp_bound_us"] = f["mlp_weight_bytes"] / (r["ddr_gbps"] * 1e3)
            f["mlp_array_us"] = 8 * mlp_d * mlp_d / rows * fp16_slots / mhz
    return out


def main():
    args = parse_args(__doc__.splitlines()[0], lambda p: p.add_argument(
        "--width", type=int, default=512, help="model width d, a multiple of 64 (heads of 64; default 512)"))
    if args.width < 64 or args.width % 64:
        raise SystemExit(f"--width {args.width}: must be a positive multiple of 64 (heads of 64)")
    npusim = import_npusim(args.build)
    # d = 512 by default, --quick too: at d = 256 the attention chain's fixed costs are a third of the step
    d, heads, past, prefill_tokens = args.width, args.width // 64, 127, (32 if args.quick else 128)
    decode, weights = gpt_block(args.out / f"w14_decode_d{d}_L{past}.onnx", d, heads, 1, past)
    prefill, _ = gpt_block(args.out / f"w14_prefill_d{d}_T{prefill_tokens}.onnx", d, heads, prefill_tokens, 0)
    kv_bytes = 2 * heads * past * (d // heads)          # INT8 K and V read by the decode step
    print(f"GPT-2-style block, d {d}, {heads} heads: {weights} INT8 weight bytes; decode with a KV cache of {past} "
          f"({kv_bytes} bytes), prefill of {prefill_tokens} tokens")
    presets = PRESETS[:2] if args.quick else PRESETS
    rows = []
    for preset in presets:
        cfg = npusim.load_config(str(REPO / "configs" / preset))
        dec, pre = run(npusim, decode, cfg), run(npusim, prefill, cfg)
        w4a8 = run(npusim, decode, cfg, "int8", "int4")
        bound_us = (weights + kv_bytes) / (dec["ddr_gbps"] * 1e3)
        rows.append({"preset": preset, "decode": dec, "prefill": pre, "stream_bound_us": bound_us, "w4a8": w4a8,
                     "w4a8_bound_us": (weights / 2 + kv_bytes) / (dec["ddr_gbps"] * 1e3),
                     "weights_only_us": weights / (dec["ddr_gbps"] * 1e3),
                     "tokens_per_s": 1e6 / dec["npu_us"] if dec["npu_us"] else None,
                     "bound_tokens_per_s": 1e6 / bound_us})
    fallbacks = sorted({op for r in rows for op in r["decode"]["fallbacks"] + r["prefill"]["fallbacks"]})
    if fallbacks:
        print(f"NOTE: ops on the CPU with this build: {', '.join(fallbacks)}; the NPU times below leave them out "
              f"(the transformer ops come with the npu-ops-compiler work)")
    print(f"{'preset':26s} {'GB/s':>6s} {'decode us':>10s} {'bytes/BW us':>11s} {'ratio':>6s} {'tok/s':>7s} "
          f"{'MAC/B':>6s} | {'prefill us':>10s} {'us/token':>9s} {'MAC/B':>7s} {'ridge':>6s}")
    intensity = lambda p: p["macs"] / max(1, p["ddr_read"] + p["ddr_written"])  # noqa: E731
    for r in rows:
        dec, pre = r["decode"], r["prefill"]
        print(f"{r['preset']:26s} {dec['ddr_gbps']:6.1f} {dec['npu_us']:10.1f} {r['stream_bound_us']:11.1f} "
              f"{dec['npu_us'] / r['stream_bound_us']:6.2f} {r['tokens_per_s'] or 0:7.0f} {intensity(dec):6.2f} | "
              f"{pre['npu_us']:10.1f} {pre['npu_us'] / prefill_tokens:9.2f} {intensity(pre):7.1f} {dec['ridge']:6.0f}")

    # INT4 weights beside INT8 activations (W4A8): half the weight bytes, the same integer array.
    print(f"{'preset':26s} {'INT8 us':>8s} {'W4A8 us':>8s} {'bytes/BW us':>11s} {'ratio':>6s} {'vs INT8':>7s}")
    for r in rows:
        w = r["w4a8"]["npu_us"]
        print(f"{r['preset']:26s} {r['decode']['npu_us']:8.1f} {w:8.1f} {r['w4a8_bound_us']:11.1f} "
              f"{w / r['w4a8_bound_us']:6.2f} {w / r['decode']['npu_us']:6.2f}x")

    sweep = []
    cfg = npusim.load_config(str(REPO / "configs" / presets[0]))
    for length in ((31, 255, 1023) if args.quick else (31, 255, 511, 1023)):
        path, _ = gpt_block(args.out / f"w14_decode_d{d}_L{length}.onnx", d, heads, 1, length)
        r = run(npusim, path, cfg)
        sweep.append({"kv_length": length, "npu_us": r["npu_us"], "kv_bytes": 2 * heads * length * (d // heads),
                      "ddr_read": r["ddr_read"]})
    print(f"KV-cache sweep on {presets[0]}: " + ", ".join(f"L={s['kv_length']}: {s['npu_us']:.1f} us" for s in sweep))

    # A decoder's decode step: several blocks, so one block's start (its first weights before any
    # compute) and end (its last tile's compute and store) are paid once per step, not per block.
    blocks = 4 if args.quick else 8
    steps = []
    for width in ((256,) if args.quick else (256, 512)):
        path, step_weights = decoder_step(args.out / f"w14_decoder_d{width}_x{blocks}.onnx", width, width // 64, past,
                                          blocks)
        step_kv = blocks * 2 * past * width
        for preset in presets:
            r = run(npusim, path, npusim.load_config(str(REPO / "configs" / preset)))
            steps.append({"preset": preset, "d": width, "blocks": blocks, "npu_us": r["npu_us"],
                          "weight_bytes": step_weights, "kv_bytes": step_kv,
                          "stream_bound_us": (step_weights + step_kv) / (r["ddr_gbps"] * 1e3),
                          "fallbacks": r["fallbacks"]})
    print(f"decode step of a decoder of {blocks} blocks (KV caches of {past}), INT8:")
    print(f"{'preset':26s} {'d':>4s} {'weight B':>9s} {'decode us':>10s} {'bytes/BW us':>11s} {'ratio':>6s}")
    for r in steps:
        print(f"{r['preset']:26s} {r['d']:4d} {r['weight_bytes']:9d} {r['npu_us']:10.1f} {r['stream_bound_us']:11.1f} "
              f"{r['npu_us'] / r['stream_bound_us']:6.2f}")

    # Weight-only quantisation: fp16 activations, fp16 / int8 / int4 weights.
    mlp_d = 512
    mlp, _ = mlp_block(args.out / f"w14_mlp_decode_d{mlp_d}.onnx", mlp_d)
    formats = weight_formats(npusim, decode, mlp, mlp_d, presets, d, heads, past)
    print(f"{'preset':26s} {'weights':7s} {'weight B':>9s} {'decode us':>10s} {'bytes/BW us':>11s} {'ratio':>6s} "
          f"{'array us':>9s} {'tok/s':>7s} {'vs fp16':>7s} | {'MLP us':>7s} {'W/BW us':>7s} {'array us':>8s} {'vs fp16':>7s}")
    for r in formats:
        base = next(f for f in formats if f["preset"] == r["preset"] and f["weights"] == "fp16")
        print(f"{r['preset']:26s} {r['weights']:7s} {r['weight_bytes']:9d} {r['npu_us']:10.1f} {r['stream_bound_us']:11.1f} "
              f"{r['npu_us'] / r['stream_bound_us']:6.2f} {r['array_bound_us']:9.1f} {r['tokens_per_s']:7.0f} "
              f"{base['npu_us'] / r['npu_us']:6.2f}x | {r['mlp_us']:7.1f} {r['mlp_bound_us']:7.1f} {r['mlp_array_us']:8.1f} "
              f"{base['mlp_us'] / r['mlp_us']:6.2f}x")

    plt = pyplot()
    fig, ax = plt.subplots(1, 3, figsize=(20, 4.8))
    r0 = rows[0]
    xs = np.logspace(-1, 3.5, 200)
    ax[0].loglog(xs, np.minimum(r0["decode"]["peak_tops"], 2 * xs * r0["decode"]["ddr_gbps"] / 1000), "k-",
                 label=f"{r0['preset'].replace('.yaml', '')} roofline")
    for key, marker in (("decode", "o"), ("prefill", "s")):
        p = r0[key]
        ax[0].scatter(max(intensity(p), 0.1), max(p["achieved_tops"], 1e-4), marker=marker,
                      s=60, label=key)
    ax[0].set_xlabel("MACs per DDR byte")
    ax[0].set_ylabel("achieved TOPS (NPU time)")
    ax[0].set_title("decode sits on the bandwidth slope, prefill climbs it")
    ax[0].legend(fontsize=8)
    ax[1].plot([s["kv_length"] for s in sweep], [s["npu_us"] for s in sweep], "o-", label="simulated decode step")
    ax[1].plot([s["kv_length"] for s in sweep],
               [(weights + s["kv_bytes"]) / (r0["decode"]["ddr_gbps"] * 1e3) for s in sweep], "k--",
               label="(weights + KV cache) / bandwidth")
    ax[1].set_xlabel("KV-cache length L")
    ax[1].set_ylabel("us per token")
    ax[1].set_ylim(bottom=0)
    ax[1].legend(fontsize=8)
    ax[1].set_title(f"one block, d {d}, on {presets[0]}")
    mine = [f for f in formats if f["preset"] == presets[0]]
    xs = np.arange(len(mine))
    ax[2].bar(xs - 0.27, [f["mlp_us"] for f in mine], 0.27, label="simulated MLP decode step")
    ax[2].bar(xs, [f["mlp_bound_us"] for f in mine], 0.27, label="weight bytes / bandwidth")
    ax[2].bar(xs + 0.27, [f["mlp_array_us"] for f in mine], 0.27, label="array's GEMV rate (R weights per fp16 slot)")
    ax[2].set_xticks(xs, [f"{f['weights']} weights" for f in mine])
    ax[2].set_ylabel("us per token (MLP, d 512, fp16 activations)")
    ax[2].set_title(f"weight-only quantisation on {presets[0]}")
    ax[2].legend(fontsize=8)
    fig.tight_layout()
    png = args.out / "w14_llm_decode.png"
    fig.savefig(png, dpi=110)
    print(f"figure: {png}")
    save_summary(args.out, "w14_llm_decode", {"d": d, "heads": heads, "kv_length": past, "prefill_tokens": prefill_tokens,
                                              "weight_bytes": weights, "kv_bytes": kv_bytes, "presets": rows,
                                              "fallback_ops": fallbacks, "kv_sweep": sweep, "decoder_steps": steps,
                                              "weight_formats": formats})


if __name__ == "__main__":
    main()
