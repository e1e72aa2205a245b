#!/usr/bin/python3
"""Decoders at the size issue 32 measures, for scripts/bench_decode.py --model and `npusim generate`:
GPT-2-style (learned positions, LayerNorm, GELU MLP, tied heads) and Llama-style (RMSNorm, rotary
embeddings, grouped-query attention, SiLU-gated MLP) at d = 512 / 8 layers and d = 768 / 12 layers,
each as a one-token decode step with a past of 127 positions and a 128-token prefill, exported by
PyTorch's own torch.onnx.export (opset 14, static shapes) from the classes of
scripts/export_torch_models.py. Random weights (fixed seeds). Too large to keep in the tree
(100-330 MB each): run it once, offline, with Debian's python3-torch:

    /usr/bin/python3 scripts/export_decoders.py --out /tmp/decoders [--only llama512 ...] [--dynamic]
    python3 scripts/bench_decode.py --model /tmp/decoders/llama512_decode.onnx ...
    npusim generate DIR/llama512_prefill.onnx DIR/llama512_decode.onnx -c CFG --prompt 16 --tokens 4
        (with --dynamic: a static decode graph's past length is fixed at 127)
"""
import argparse
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import export_torch_models as E  # noqa: E402

PAST = 127
PROMPT = 128
# name: (family, d, heads, kv_heads, layers, ffn, vocab)
SIZES = {
    "gpt512": ("gpt", 512, 8, 8, 8, 2048, 2048),
    "gpt768": ("gpt", 768, 12, 12, 12, 3072, 4096),
    "llama512": ("llama", 512, 8, 2, 8, 1376, 2048),
    "llama768": ("llama", 768, 12, 4, 12, 2048, 4096),
}


def export(name, out, dynamic):
    family, d, heads, kv_heads, layers, ffn, vocab = SIZES[name]
    torch.manual_seed(sum(map(ord, name)))
    if family == "gpt":
        model = E.FixedPast(E.TinyGPT(vocab=vocab, d=d, heads=heads, layers=layers, n_positions=1024)).eval()
    else:
        model = E.TinyLlama(vocab=vocab, d=d, heads=heads, kv_heads=kv_heads, layers=layers, ffn=ffn,
                            n_positions=1024).eval()
    outputs = ["logits"] + [f"present_{kind}_{i}" for i in range(layers) for kind in ("key", "value")]
    hd = d // heads
    for step, tokens in (("decode", 1), ("prefill", PROMPT)):
        ids = torch.randint(0, vocab, (1, tokens), dtype=torch.long)
        args, names = [ids], ["input_ids"]
        if family == "llama":
            first = PAST if step == "decode" else 0
            args.append(torch.arange(first, first + tokens, dtype=torch.long).unsqueeze(0))
            names.append("position_ids")
        if step == "decode":
            for i in range(layers):
                args += [torch.randn(1, kv_heads, PAST, hd) for _ in range(2)]
                names += [f"past_key_{i}", f"past_value_{i}"]
        path = out / f"{name}_{step}.onnx"
        axes = None
        if dynamic:  # Optimum's axes: the prompt length of a prefill, the cache length of a decode step
            axes = {o: {2: "total_sequence"} for o in outputs[1:]}
            if step == "prefill":
                axes.update({"input_ids": {1: "sequence"}, "logits": {1: "sequence"}})
                if family == "llama":
                    axes["position_ids"] = {1: "sequence"}
            else:
                axes.update({n: {2: "past_sequence"} for n in names if n.startswith("past_")})
        with torch.no_grad():
            torch.onnx.export(model, tuple(args), str(path), opset_version=14, input_names=names,
                              output_names=outputs, do_constant_folding=True, dynamic_axes=axes)
        print(f"{path}: {sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory to write the .onnx files to")
    ap.add_argument("--only", action="append", choices=sorted(SIZES), help="export only these (repeatable)")
    ap.add_argument("--dynamic", action="store_true",
                    help="dynamic prompt and cache axes, as Optimum exports them (for npusim generate)")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in args.only or SIZES:
        export(name, out, args.dynamic)


if __name__ == "__main__":
    main()
