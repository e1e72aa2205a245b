"""TFLite models (compiler/frontend/tflite/): the models scripts/make_tflite_models.py writes through
our own schema, compiled and run by npusim, against LiteRT (ai-edge-litert) as the reference, the
way ONNX Runtime serves ONNX models. FP32 models: FP16 on the NPU within cosine 0.999; the
full-integer model with its own scales and zero points, int8 in and out."""
import json
import subprocess
import sys

import numpy as np
import pytest
from ai_edge_litert.interpreter import Interpreter

from conftest import ROOT, assert_one_line_error, run_npusim

CONFIG = ROOT / "configs" / "default.yaml"


@pytest.fixture(scope="session")
def tflite(tmp_path_factory):
    out = tmp_path_factory.mktemp("tflite")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_tflite_models.py"), "--out", str(out)], check=True,
                   capture_output=True)
    return lambda name: out / f"{name}.tflite"


def litert(path, feeds):
    """Outputs by name of one LiteRT invocation (inputs by name)."""
    it = Interpreter(model_path=str(path))
    it.allocate_tensors()
    for d in it.get_input_details():
        it.set_tensor(d["index"], feeds[d["name"]])
    it.invoke()
    return {d["name"]: it.get_tensor(d["index"]) for d in it.get_output_details()}


def random_inputs(path, seed=0):
    rng = np.random.default_rng(seed)
    it = Interpreter(model_path=str(path))
    feeds = {}
    for d in it.get_input_details():
        if d["dtype"] == np.float32:
            feeds[d["name"]] = rng.uniform(-1, 1, d["shape"]).astype(np.float32)
        elif d["dtype"] == np.int8:
            feeds[d["name"]] = rng.integers(-100, 100, d["shape"]).astype(np.int8)
        else:  # token ids
            feeds[d["name"]] = rng.integers(0, 16, d["shape"]).astype(d["dtype"])
    return feeds


def npusim_run(path, feeds, tmp_path, *options):
    args = []
    for name, value in feeds.items():
        file = tmp_path / f"in_{len(args)}.npy"
        np.save(file, value)
        args += ["--input", f"{name}={file}"]
    out = tmp_path / "out"
    r = run_npusim("run", path, "-c", CONFIG, *options, *args, "--save-outputs", out, "-q")
    assert r.code == 0, r.err
    return lambda name: np.load(out / (name.replace("/", "_") + ".npy"))


def cosine(a, b):
    a, b = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    return a @ b / (np.linalg.norm(a) * np.linalg.norm(b))


FLOAT_MODELS = ["cnn_float", "cnn_fp16_weights", "cnn_sparse", "lstm", "rnn", "bilstm", "transpose_conv", "transformer_block"]


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_float_models_run_whole_on_the_npu_and_match_litert(tmp_path, tflite, name):
    path = tflite(name)
    strict = [] if name == "transformer_block" else ["--strict"]  # its token Gather reads ids at run time
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", *strict, "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    if strict:
        assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    feeds = random_inputs(path)
    want = litert(path, feeds)
    got = npusim_run(tmp_path / "m.npuprog", feeds, tmp_path)
    for out, w in want.items():
        g = got(out)
        assert g.shape == w.shape, out
        assert cosine(g, w) >= 0.999, (name, out, cosine(g, w))
        assert np.abs(g - w).max() <= 0.02 * max(1.0, np.abs(w).max()), (name, out, np.abs(g - w).max())


def test_ops_without_an_npu_instruction_run_on_the_cpu_and_cost_only_themselves(tmp_path, tflite):
    """EMBEDDING_LOOKUP, GATHER_ND, REVERSE_V2, CUMSUM, LOCAL_RESPONSE_NORMALIZATION, TOPK_V2 run on
    the CPU (ONNX Runtime, as the ops they become), FLOOR_DIV on LiteRT (no translation); L2_POOL_2D
    and ADD_N on the NPU; every output is LiteRT's."""
    path = tflite("misc_ops")
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    fallbacks = [l for l in r.out.splitlines() if l.startswith("fallback")]
    assert not any("l2pool" in l or "total/" in l for l in fallbacks), fallbacks
    assert any("(LRN)" in l for l in fallbacks) and any("(CumSum)" in l for l in fallbacks), fallbacks
    # FLOOR_DIV has no translation: the operator alone, run by LiteRT as a CPU step of its own
    assert any("(FLOOR_DIV): a TFLite op with no ONNX equivalent" in l for l in fallbacks), fallbacks
    feeds = random_inputs(path)
    want = litert(path, feeds)
    got = npusim_run(tmp_path / "m.npuprog", feeds, tmp_path)
    np.testing.assert_array_equal(got("top_indices"), want["top_indices"])
    for out in ("picked", "running", "lrn", "top_values", "floored"):
        assert np.abs(got(out) - want[out]).max() <= 0.01 * max(1.0, np.abs(want[out]).max()), out


def test_weights_stored_fp16_and_sparse_are_the_dense_float_weights(tmp_path, tflite):
    """FP16 behind DEQUANTIZE and sparse (block CSR, and MediaPipe's FP16 CSR) behind DENSIFY are
    densified at compile time: the same NPU layers, instructions and cycles as the dense model."""
    def compiled(name):
        r = run_npusim("compile", tflite(name), "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / f"{name}.npuprog")
        assert r.code == 0, r.err
        t = run_npusim("run", tmp_path / f"{name}.npuprog", "-c", CONFIG, "--timing-only", "-q", "--json", tmp_path / f"{name}.json")
        assert t.code == 0, t.err
        import json
        summary = [l for l in r.out.splitlines() if l.startswith(("compiled", "placement"))]
        return [l.split("(fp16)")[-1] for l in summary], json.loads((tmp_path / f"{name}.json").read_text())["cycles"]
    dense = compiled("cnn_float")
    assert compiled("cnn_fp16_weights") == dense
    assert compiled("cnn_sparse") == dense


def test_full_integer_model_runs_with_its_own_scales(tmp_path, tflite):
    """int8 in, int8 out, per-axis weights: the NPU takes the host's int8 bytes as they are (no
    CPU conversion step), and each output lies within a few quantisation steps of LiteRT's
    integer kernels (one step per layer where they round differently, carried through the next)."""
    path = tflite("cnn_int8")
    r = run_npusim("compile", path, "-c", CONFIG, "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    assert "integer input 'input': uniform over int8" in r.err, r.err  # calibration's generated images
    assert "int8 graph input/output conversions taken by the NPU" in run_npusim(
        "compile", path, "-c", CONFIG, "-o", tmp_path / "m2.npuprog", "--explain").out
    feeds = random_inputs(path, seed=1)
    want = litert(path, feeds)
    got = npusim_run(tmp_path / "m.npuprog", feeds, tmp_path)
    probs, seg = got("probs"), got("seg")
    assert probs.dtype == np.int8 and seg.dtype == np.int8
    # Measured: probs all within 1 step; seg at most 4 steps, 27 % of elements off by any.
    assert np.abs(probs.astype(int) - want["probs"]).max() <= 1
    steps = np.abs(seg.astype(int) - want["seg"])
    assert steps.max() <= 5 and (steps <= 1).mean() >= 0.75, (steps.max(), (steps <= 1).mean())


def test_resource_variables_are_state_inputs_and_outputs(tmp_path, tflite):
    """A streaming model whose state lives in VAR_HANDLE/READ_VARIABLE/ASSIGN_VARIABLE: the state
    is the input 'state/buffer' and the output 'state/buffer/next'; fed back, two steps give
    LiteRT's two invocations (whose state carries over inside the interpreter)."""
    path = tflite("streaming_state")
    rng = np.random.default_rng(3)
    frames = [rng.standard_normal((1, 1, 40)).astype(np.float32) for _ in range(2)]
    it = Interpreter(model_path=str(path))
    it.allocate_tensors()
    want = []
    for f in frames:
        it.set_tensor(it.get_input_details()[0]["index"], f)
        it.invoke()
        want.append(it.get_tensor(it.get_output_details()[0]["index"]).copy())
    state = np.zeros((1, 3, 40), np.float32)  # CALL_ONCE's initial value
    for step, f in enumerate(frames):
        d = tmp_path / str(step)
        d.mkdir()
        got = npusim_run(path, {"frame": f, "state/buffer": state}, d, "--precision", "fp16")
        assert cosine(got("fc"), want[step]) >= 0.999
        assert np.abs(got("fc") - want[step]).max() <= 0.02
        state = got("state/buffer/next")
        assert state.shape == (1, 3, 40)
    np.testing.assert_allclose(state[0, -2:], np.concatenate(frames, axis=1)[0], atol=1e-3)


@pytest.mark.parametrize("model,precision", [("streaming_conv", "fp16"), ("streaming_conv_int8", "int8")])
def test_streaming_conv_state_and_long_kernel_run_whole_on_the_npu(tmp_path, tflite, model, precision):
    """A micro wake-word model's streaming layer: the state in a resource variable (int8 in the
    full-integer model, read through its zero point and written back on its grid), a 17-frame
    window and a 17x1 depthwise kernel, longer than the conv instruction's kernel field (run as
    summed pieces). Every layer on the NPU; fed back for four steps, LiteRT's outputs."""
    path = tflite(model)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", precision, "--strict", "--explain", "-o",
                   tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "1 Conv kernel(s) past the kernel field as summed pieces" in r.out, r.out
    it = Interpreter(model_path=str(path))
    it.allocate_tensors()
    frame = it.get_input_details()[0]
    rng = np.random.default_rng(5)
    int8 = frame["dtype"] == np.int8
    state = np.full((1, 16, 1, 24), frame["quantization"][1] if int8 else 0, frame["dtype"])  # CALL_ONCE's zeros
    for step in range(4):
        x = rng.uniform(-1, 1, (1, 1, 1, 24)).astype(np.float32)
        if int8:
            x = np.clip(np.round(x / frame["quantization"][0]) + frame["quantization"][1], -128, 127).astype(np.int8)
        it.set_tensor(frame["index"], x)
        it.invoke()
        want = it.get_tensor(it.get_output_details()[0]["index"])
        d = tmp_path / str(step)
        d.mkdir()
        got = npusim_run(path, {"frame": x, "state/frames": state}, d, "--precision", precision)
        state = got("state/frames/next")
        assert state.dtype == frame["dtype"] and state.shape == (1, 16, 1, 24)
        if int8:
            assert got("fc").dtype == np.int8
            assert np.abs(got("fc").astype(int) - want.astype(int)).max() <= 2, (got("fc"), want)
        else:
            assert np.abs(got("fc") - want).max() <= 0.02, (got("fc"), want)
    # The state ends with the last frame, as the host fed it (int8: the same bytes).
    if int8:
        np.testing.assert_array_equal(state[0, -1, 0], x[0, 0, 0])
    else:
        np.testing.assert_allclose(state[0, -1, 0], x[0, 0, 0], atol=1e-3)


def test_compare_starts_a_streaming_model_from_its_call_once_state(tmp_path, tflite):
    """npusim compare feeds the state input the value the file's CALL_ONCE assigns (int8 zero
    points here), where LiteRT starts: the simulator and LiteRT compute the same first call (with
    random state the two could not agree)."""
    r = run_npusim("compare", tflite("streaming_conv_int8"), "-c", CONFIG, "-d", "litert:cpu", "--runs", "1",
                   "--warmup", "0", "--json", tmp_path / "c.json")
    assert r.code == 0, r.err
    assert "input state/frames: its value before the first call (the file's CALL_ONCE)" in r.out, r.out
    report = json.loads((tmp_path / "c.json").read_text())
    sim = next(d for d in report["devices"] if d["device"] == "sim")
    assert sim["outputs"][0]["output"] == "fc"
    assert sim["outputs"][0]["max_abs_error"] <= 2 and sim["outputs"][0]["cosine"] >= 0.999, sim["outputs"]


def test_layers_after_an_op_calibration_cannot_run_stay_on_the_npu_in_fp16(tmp_path, tflite):
    """A custom op no runtime here resolves (MediaPipe's Landmarks2TransformMatrix to LiteRT) gives
    the layers after it no int8 range: they run in fp16 on the NPU, so the op costs only itself
    (they fell to the CPU with it: face_landmark_with_attention 47 % of its time on the NPU)."""
    r = run_npusim("compile", tflite("unknown_custom_op"), "-c", CONFIG, "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    fallbacks = [line for line in r.out.splitlines() if line.startswith("fallback ")]
    assert len(fallbacks) == 1 and "NpusimUnknownOp" in fallbacks[0], fallbacks
    assert "5 layer(s) in fp16 for want of an int8 range" in r.out, r.out
    assert "placement: 8 of 9 layers, 100.0 % of MACs" in r.out, r.out
    assert "5 layer(s) from 'custom_out/nchw_1' on run in fp16 on the NPU" in r.err, r.err
    run = run_npusim("run", tmp_path / "m.npuprog", "-c", CONFIG, "--timing-only", "--json", tmp_path / "r.json", "-q")
    assert run.code == 0, run.err
    # --strict names the op itself, not the layers after it.
    strict = run_npusim("compile", tflite("unknown_custom_op"), "-c", CONFIG, "--strict", "-o", tmp_path / "s.npuprog")
    assert strict.code != 0 and "'custom_out/NpusimUnknownOp_1' (NpusimUnknownOp) would fall back" in strict.err, strict.err


def test_quant_report_reads_tflite(tmp_path, tflite):
    r = run_npusim("quant-report", tflite("cnn_float"), "-c", CONFIG)
    assert r.code == 0, r.err
    assert "stem" in r.out and "seg_conv" in r.out, r.out


def test_a_malformed_file_is_one_line_naming_it(tmp_path, tflite):
    data = tflite("cnn_float").read_bytes()
    cut = tmp_path / "cut.tflite"
    cut.write_bytes(data[: len(data) // 2])
    assert_one_line_error(run_npusim("compile", cut, "-c", CONFIG, "-o", tmp_path / "x.npuprog"), "cut.tflite",
                          "not a valid TFLite model")
    assert_one_line_error(run_npusim("compile", tflite("cnn_float"), "-c", CONFIG, "--input-shape", "input=1x32x32x3",
                                     "-o", tmp_path / "x.npuprog"), "cnn_float.tflite", "--input-shape",
                          "dim 1 of input 'input' is fixed at 64 in the file")


def test_compare_takes_litert_as_the_reference_for_tflite(tmp_path, tflite):
    """`npusim compare` of a .tflite file checks every device's outputs against LiteRT (litert:cpu),
    and litert:cpu is a device of its own."""
    import json
    out = tmp_path / "cmp.json"
    r = run_npusim("compare", tflite("cnn_float"), "-c", CONFIG, "--device", "litert:cpu", "--runs", "1", "--warmup", "0",
                   "--json", out)
    assert r.code == 0, r.err
    report = json.loads(out.read_text())
    assert report["reference"] == "litert:cpu"
    by_device = {d["device"]: d for d in report["devices"]}
    assert set(by_device) == {"sim", "litert:cpu"}
    # litert:cpu against itself: identical; the simulated INT8 NPU within INT8's error
    assert [o["output"] for o in by_device["sim"]["outputs"]] == ["probs", "seg"], by_device["sim"]["outputs"]
    assert all(o["max_abs_error"] == 0 for o in by_device["litert:cpu"]["outputs"])
    assert all(o["cosine"] >= 0.99 for o in by_device["sim"]["outputs"]), by_device["sim"]["outputs"]


def test_if_with_a_condition_known_at_compile_time_is_the_branch_it_takes(tmp_path, tflite):
    """IF on a constant condition, and IF on the bool input use_relu fixed by --input-value: each is
    replaced by the branch it takes (the same two subgraphs inlined twice), so the model runs whole
    on the NPU, and its output is LiteRT's fed the same flag, for either value."""
    path = tflite("if_branches")
    x = np.random.default_rng(5).uniform(-1, 1, (1, 16)).astype(np.float32)
    for flag in (True, False):
        d = tmp_path / str(flag)
        d.mkdir()
        r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--strict", "--input-value",
                       f"use_relu={str(flag).lower()}", "-o", d / "m.npuprog")
        assert r.code == 0, r.err
        assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
        want = litert(path, {"x": x, "use_relu": np.array(flag)})["y"]
        got = npusim_run(d / "m.npuprog", {"x": x}, d)("y")
        assert got.shape == want.shape
        assert cosine(got, want) >= 0.999, (flag, cosine(got, want))
        assert np.abs(got - want).max() <= 0.02 * max(1.0, np.abs(want).max())


def test_if_on_a_run_time_condition_is_left_to_litert_with_a_placement_line(tmp_path, tflite):
    """Without --input-value, the IF on use_relu stays one operator LiteRT runs (its branches with
    it), named on its fallback line; the IF on a constant is still inlined; outputs are LiteRT's."""
    path = tflite("if_branches")
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    fallbacks = [l for l in r.out.splitlines() if l.startswith("fallback")]
    ifs = [l for l in fallbacks if "(IF)" in l]
    assert len(ifs) == 1, fallbacks
    assert "chosen_branch" in ifs[0] and "condition 'use_relu' is known only at run time" in ifs[0], ifs[0]
    assert "--input-value" in ifs[0], ifs[0]
    x = np.random.default_rng(6).uniform(-1, 1, (1, 16)).astype(np.float32)
    for flag in (True, False):
        d = tmp_path / str(flag)
        d.mkdir()
        feeds = {"x": x, "use_relu": np.array(flag)}
        want = litert(path, feeds)["y"]
        got = npusim_run(tmp_path / "m.npuprog", feeds, d)("y")
        assert cosine(got, want) >= 0.999, (flag, cosine(got, want))


@pytest.mark.parametrize("name, folded", [("while_loop", "0 If nodes inlined, 1 Loop/Scan nodes unrolled"),
                                          ("while_if", "3 If nodes inlined, 1 Loop/Scan nodes unrolled")])
def test_while_with_a_static_trip_count_is_unrolled(tmp_path, tflite, name, folded):
    """while_loop: WHILE in TensorFlow's form, cond loop_counter < maximum_iterations (5) AND i < 3,
    the body stepping both by 1 (x = x * w + b each trip): three copies of the body. while_if: the
    body's IF on i == 0 folds in each copy, where i is a constant (then the first trip, else after),
    each reading its own trip's x. The whole model on the NPU, LiteRT's output."""
    path = tflite(name)
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--strict", "--explain", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert folded in r.out, r.out
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    feeds = random_inputs(path)
    want = litert(path, feeds)["y"]
    got = npusim_run(tmp_path / "m.npuprog", feeds, tmp_path)("y")
    assert cosine(got, want) >= 0.999, cosine(got, want)
    assert np.abs(got - want).max() <= 0.02 * max(1.0, np.abs(want).max())


def test_while_with_a_run_time_trip_count_is_left_to_litert_with_a_placement_line(tmp_path, tflite):
    path = tflite("while_dynamic")
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    whiles = [l for l in r.out.splitlines() if l.startswith("fallback") and "(WHILE)" in l]
    assert len(whiles) == 1 and "trip count is not known at compile time" in whiles[0], r.out
    feeds = {"x": np.random.default_rng(7).uniform(-1, 1, (1, 16)).astype(np.float32), "n": np.array(3, np.int32)}
    want = litert(path, feeds)["y"]
    got = npusim_run(tmp_path / "m.npuprog", feeds, tmp_path)("y")
    assert cosine(got, want) >= 0.999, cosine(got, want)


def test_input_shape_fixes_a_dynamic_batch(tmp_path, tflite):
    """shape_signature [-1,8]: --input-shape x=4x8 gives every activation batch 4 (the RESHAPE's -1
    too), as LiteRT's resize_tensor_input does; a wrong rank or a static dim changed is one line
    naming the file and the input."""
    path = tflite("dynamic_batch")
    r = run_npusim("compile", path, "-c", CONFIG, "--precision", "fp16", "--strict", "--input-shape", "x=4x8",
                   "-o", tmp_path / "m.npuprog")
    assert r.code == 0, r.err
    assert "100.0 % of simulated time on the NPU, 0 CPU island(s)" in r.out, r.out
    x = np.random.default_rng(8).uniform(-1, 1, (4, 8)).astype(np.float32)
    it = Interpreter(model_path=str(path))
    it.resize_tensor_input(it.get_input_details()[0]["index"], [4, 8])
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    want = it.get_tensor(it.get_output_details()[0]["index"])
    got = npusim_run(tmp_path / "m.npuprog", {"x": x}, tmp_path)("probs")
    assert got.shape == want.shape == (4, 4, 4)
    assert cosine(got, want) >= 0.999 and np.abs(got - want).max() <= 0.02
    for spec, needle in (("x=4x8x1", "input 'x' has rank 2 (shape_signature -1x8), not 3"),
                         ("x=4x9", "dim 1 of input 'x' is fixed at 8 in the file"),
                         ("y=4x8", "the model has no input 'y' (its inputs: x)")):
        assert_one_line_error(run_npusim("compile", path, "-c", CONFIG, "--input-shape", spec, "-o", tmp_path / "x.npuprog"),
                              "dynamic_batch.tflite", f"--input-shape '{spec}'", needle)
