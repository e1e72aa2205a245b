"""`npusim stream`: frames through host pre-processing, the bundled model on the simulated NPU
and host post-processing. Pipelined, the steady frame interval is the slowest stage; serially
it is their sum; the trace shows the three stages of different frames running at once."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conftest import assert_one_line_error


@pytest.fixture
def model(root):
    return root / "models" / "tiny_convnet.onnx"


@pytest.fixture
def cfg(root):
    return root / "configs" / "default.yaml"


def stream(npusim, tmp_path, model, cfg, *args):
    out = tmp_path / "stream.json"
    trace = tmp_path / "stream.trace.json"
    r = npusim("stream", model, "--config", cfg, "--json", out, "--trace", trace, *args)
    assert r.code == 0, r.err
    return json.loads(out.read_text()), json.loads(trace.read_text())["traceEvents"], r.out


def stage_spans(events):
    spans = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("host pre", "inference", "host post"):
            spans.setdefault(e["cat"], {})[e["args"]["frame"]] = (e["ts"], e["ts"] + e["dur"])
    return spans


def test_2_8_1_ms_stages_pre_processing_sets_the_pace(npusim, tmp_path, model, cfg):
    # The bundled model takes microseconds on the NPU: with 2 ms pre- and 1 ms post-processing
    # the host's pre-processing is the slowest stage.
    s, events, out = stream(npusim, tmp_path, model, cfg, "--frames", 10, "--pre-ms", 2, "--post-ms", 1)
    infer = s["stages"]["inference"]["us"]
    assert infer == pytest.approx(s["inference"]["latency_us"])
    assert s["slowest_stage"] == "pre"
    assert s["pipelined"]["frame_interval_us"] == pytest.approx(2000.0)
    assert s["serial"]["frame_interval_us"] == pytest.approx(3000.0 + infer)
    assert s["pipelined"]["throughput_fps"] >= 1.25 * s["serial"]["throughput_fps"]
    assert "slowest stage     pre" in out
    spans = stage_spans(events)
    assert {k: len(v) for k, v in spans.items()} == {"host pre": 10, "inference": 10, "host post": 10}


def test_npu_slowest_stage_at_the_2_8_1_ratio_overlaps_all_three(npusim, tmp_path, model, cfg):
    # The same 2 : 8 : 1 ratio with the simulated inference as the 8: pre and post scaled to it.
    s0, _, _ = stream(npusim, tmp_path, model, cfg, "--frames", 1)
    infer_ms = s0["stages"]["inference"]["us"] / 1000.0
    s, events, _ = stream(npusim, tmp_path, model, cfg, "--frames", 12, "--pre-ms", infer_ms / 4,
                          "--post-ms", infer_ms / 8)
    assert s["slowest_stage"] == "inference"
    assert s["pipelined"]["frame_interval_us"] == pytest.approx(infer_ms * 1000.0)
    assert s["speedup"] == pytest.approx(1.375, rel=1e-6)   # (2 + 8 + 1) / 8
    assert s["pipelined"]["npu_idle_per_frame_us"] == pytest.approx(0.0, abs=1e-6)
    assert s["serial"]["npu_idle_per_frame_us"] == pytest.approx(infer_ms * 1000.0 * 3 / 8)
    # Somewhere frame i-1 is post-processed while frame i is on the NPU and frame i+1 is
    # pre-processed.
    spans = stage_spans(events)
    overlap = [i for i in range(1, 11)
               if max(spans["host post"][i - 1][0], spans["inference"][i][0], spans["host pre"][i + 1][0])
               < min(spans["host post"][i - 1][1], spans["inference"][i][1], spans["host pre"][i + 1][1])]
    assert overlap, spans
    # The NPU's unit tracks appear under every frame's inference.
    frames_with_loads = {e["args"]["frame"] for e in events if e.get("ph") == "X" and e.get("cat") == "load"}
    assert frames_with_loads == set(range(12))


def test_pre_processing_as_an_onnx_model_is_timed_on_the_host(npusim, tmp_path, model, cfg):
    # Normalise a 64x64 RGB frame and resize it to the model's 32x32: (x - mean) * inv_std.
    mean = numpy_helper.from_array(np.full((1, 3, 1, 1), 0.5, np.float32), "mean")
    inv_std = numpy_helper.from_array(np.full((1, 3, 1, 1), 4.0, np.float32), "inv_std")
    scales = numpy_helper.from_array(np.array([1, 1, 0.5, 0.5], np.float32), "scales")
    nodes = [helper.make_node("Sub", ["frame", "mean"], ["c"]), helper.make_node("Mul", ["c", "inv_std"], ["n"]),
             helper.make_node("Resize", ["n", "", "scales"], ["input"], mode="linear")]
    graph = helper.make_graph(nodes, "pre", [helper.make_tensor_value_info("frame", TensorProto.FLOAT, [1, 3, 64, 64])],
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 32, 32])],
                              [mean, inv_std, scales])
    pre = tmp_path / "pre.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(pre))
    s, _, _ = stream(npusim, tmp_path, model, cfg, "--frames", 4, "--pre", pre, "--post-ms", 0)
    flops = s["stages"]["pre"]["flops"]
    assert flops == 3 * 64 * 64 * 2 + 3 * 32 * 32   # Sub and Mul on the frame, Resize's output
    assert s["stages"]["pre"]["us"] == pytest.approx(flops / (50.0 * 1e3))   # default.yaml host: 50 GFLOP/s


def test_bad_stream_arguments(npusim, tmp_path, model, cfg):
    assert_one_line_error(npusim("stream", model, "--config", cfg, "--frames", 0), "--frames", "at least 1")
    assert_one_line_error(npusim("stream", model, "--config", cfg, "--depth", 0), "--depth", "at least 1")
    assert_one_line_error(npusim("stream", model, "--config", cfg, "--pre-ms", 1, "--pre", model),
                          "--pre-ms and --pre")
    assert_one_line_error(npusim("stream", model, "--config", cfg, "--pre-ms", -1), "--pre-ms", ">= 0")
