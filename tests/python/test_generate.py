"""`npusim generate`: a decoder's prefill, then one decode step per token with the K/V cache of
each step fed to the next (runtime/generation.h). Tokens and logits against the same loop on
ONNX Runtime, the cache growing one entry a step, each step's DDR bound from its bytes, timing
independent of the values, and one-line errors for graphs that cannot generate."""
import json
import os
import pathlib
import sys

import numpy as np
import onnxruntime as ort
import pytest

from conftest import ROOT, assert_one_line_error

EXPORTED = ROOT / "models" / "exported"
PREFILL = EXPORTED / "gpt_tiny_dynamic_prefill.onnx"
DECODE = EXPORTED / "gpt_tiny_dynamic_decode.onnx"
CONFIG = ROOT / "configs" / "npu-40tops-55gbps.yaml"


def generate(npusim, tmp_path, *args):
    out = tmp_path / "g.json"
    r = npusim("generate", PREFILL, DECODE, "-c", CONFIG, "--json", out, "-q", *args)
    assert r.code == 0, r.err
    return json.loads(out.read_text())


def onnxruntime_loop(prompt_ids, steps):
    """The same greedy loop on ONNX Runtime: [(token, top-5 logits)] for the prefill and each step."""
    prefill = ort.InferenceSession(str(PREFILL), providers=["CPUExecutionProvider"])
    decode = ort.InferenceSession(str(DECODE), providers=["CPUExecutionProvider"])
    out = prefill.run(None, {"input_ids": np.array([prompt_ids], np.int64)})
    chosen = []
    for step in range(steps + 1):
        last = out[0][0, -1]
        top = np.argsort(-last, kind="stable")[:5]
        chosen.append((int(top[0]), last[top]))
        if step == steps:
            break
        feeds = {"input_ids": np.array([[chosen[-1][0]]], np.int64)}
        for value, desc in zip(out[1:], decode.get_inputs()[1:]):
            feeds[desc.name] = value
        out = decode.run(None, feeds)
    return chosen


def test_fp16_generation_follows_onnx_runtime_token_for_token(npusim, tmp_path):
    g = generate(npusim, tmp_path, "--prompt", "12", "--tokens", "5", "--precision", "fp16", "--seed", "3")
    assert len(g["prompt_ids"]) == 12 and all(0 <= t < 512 for t in g["prompt_ids"])
    reference = onnxruntime_loop(g["prompt_ids"], 5)
    assert [s["token"] for s in g["steps"]] == [t for t, _ in reference]
    for step, (_, logits) in zip(g["steps"], reference):
        np.testing.assert_allclose(step["top_logits"], logits, atol=0.02)


def test_the_cache_grows_one_entry_a_step_and_the_bound_is_its_bytes(npusim, tmp_path):
    g = generate(npusim, tmp_path, "--prompt", "16", "--tokens", "4", "--timing-only")
    steps = g["steps"]
    assert [s["phase"] for s in steps] == ["prefill"] + ["decode"] * 4
    assert [s["past"] for s in steps] == [0, 16, 17, 18, 19]
    # int8 K/V: 2 layers x (key + value) x 4 heads x 32 = 512 bytes an entry, in the NPU's
    # tensor table as the decode graph's past inputs (plus their alignment padding, constant).
    kv = [s["kv_bytes"] for s in steps[1:]]
    assert [b - a for a, b in zip(kv, kv[1:])] == [512, 512, 512]
    for s in steps:
        assert s["bound_us"] == pytest.approx((s["weight_bytes"] + s["kv_bytes"]) / (55 * 1e3))
        assert s["of_bound"] == pytest.approx(s["bound_us"] / s["latency_us"])
        assert 0 < s["of_bound"] < 1
        assert s["latency_us"] == s["npu_us"]  # whole on the NPU: no host step
    assert g["time_to_first_token_us"] == steps[0]["latency_us"]
    assert g["tokens_per_s"] == pytest.approx(4 * 1e6 / sum(s["latency_us"] for s in steps[1:]))
    assert g["energy_per_token_uj"] == pytest.approx(sum(s["energy_uj"] for s in steps[1:]) / 4)


def test_timing_does_not_depend_on_the_values(npusim, tmp_path):
    functional = generate(npusim, tmp_path, "--prompt", "8", "--tokens", "2")
    timing = generate(npusim, tmp_path, "--prompt", "8", "--tokens", "2", "--timing-only", "--seed", "9")
    assert [s["cycles"] for s in functional["steps"]] == [s["cycles"] for s in timing["steps"]]
    assert "token" not in timing["steps"][0] and functional["steps"][0]["token"] >= 0


def test_python_and_trace(npusim, tmp_path):
    sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
    import npusim as nps
    py = nps.generate(PREFILL, DECODE, CONFIG, prompt=8, tokens=2, timing_only=True)
    trace = tmp_path / "t.json"
    cli = generate(npusim, tmp_path, "--prompt", "8", "--tokens", "2", "--timing-only", "--trace", trace)
    assert [s["cycles"] for s in py["steps"]] == [s["cycles"] for s in cli["steps"]]
    events = [e for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in events] == ["prefill", "decode 1", "decode 2"]
    assert events[1]["ts"] == pytest.approx(events[0]["dur"])
    # INT4 weights stream half the bytes of INT8 ones: a smaller bound, a faster step.
    int4 = nps.generate(PREFILL, DECODE, CONFIG, prompt=8, tokens=1, precision="fp16", weights="int4", timing_only=True)
    fp16 = nps.generate(PREFILL, DECODE, CONFIG, prompt=8, tokens=1, precision="fp16", timing_only=True)
    assert int4["steps"][1]["weight_bytes"] < fp16["steps"][1]["weight_bytes"]


@pytest.mark.parametrize("args,needles", [
    ((EXPORTED / "gpt_tiny_prefill.onnx", EXPORTED / "gpt_tiny_decode.onnx"),
     ["its past length is fixed at 127 ('past_key_0' axis 2)", "after the 32-token prompt the cache holds 32"]),
    ((PREFILL, PREFILL, "--prompt", "4"), ["no past K/V input"]),
    ((PREFILL, DECODE), ["its prompt length ('input_ids' axis 1) is dynamic: give --prompt N"]),
    ((PREFILL, DECODE, "--prompt", "120", "--tokens", "20"), ["decode step 9 (a cache of 128 entries)", "out of range"]),
    ((EXPORTED / "gpt_tiny_prefill.onnx", DECODE, "--prompt", "16"), ["its prompt is fixed at 32 tokens"]),
    ((PREFILL, DECODE, "--prompt", "4", "--tokens", "0"), ["--tokens: must be at least 1"]),
])
def test_graphs_that_cannot_generate_are_one_line(npusim, args, needles):
    assert_one_line_error(npusim("generate", *args, "-c", CONFIG, "-q"), *needles)


def test_a_cache_larger_than_the_ddr_is_one_line(npusim, tmp_path):
    small = tmp_path / "small.yaml"
    small.write_text(f"base: {ROOT / 'configs' / 'default.yaml'}\nname: small-ddr\nddr:\n  capacity_mib: 1\n")
    r = npusim("generate", PREFILL, DECODE, "-c", small, "--prompt", "16", "--tokens", "1000", "--timing-only", "-q")
    assert_one_line_error(r, "after 1016 tokens the K/V cache takes", "more than the config's DDR (1048576 bytes)")
