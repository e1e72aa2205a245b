"""Compile a model for a config and run it: `npusim.compile(...)` then `session.run(...)`."""
import functools
import json
import os

import numpy as np

from . import _core
from .config import load_config
from .report import Report


def _shape_args(input_shapes):
    """{"x": (1, 3, 64, 64)} / {"x": "1x3x64x64"} / ["x=1x3x64x64"] -> ["x=1x3x64x64"]."""
    if not input_shapes:
        return []
    if isinstance(input_shapes, dict):
        out = []
        for name, shape in input_shapes.items():
            text = shape if isinstance(shape, str) else "x".join(str(int(d)) for d in shape)
            out.append(f"{name}={text}")
        return out
    return [str(s) for s in input_shapes]


def program_from_bytes(data, origin="<bytes>"):
    """A CompiledModel from .npuprog contents (CompiledModel.to_bytes())."""
    return _core.model_from_bytes(data, origin)


def read_onnx_boundary(path):
    """An ONNX file's declared inputs and outputs, for Session(..., declared=...). Kept per file
    while it is unchanged (size and modification time): reading it parses every weight, a third
    of a ResNet-18 recompile's time in a sweep."""
    path = os.fspath(path)
    st = os.stat(path)
    return _read_onnx_boundary(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _read_onnx_boundary(path, mtime_ns, size):
    return _core.read_onnx_boundary(path)


def host_time(model, config, input_shapes=None):
    """What running a whole ONNX model on the host CPU costs under `config`'s host model (the
    one that times CPU fallback steps): {"flops": ..., "us": flops at host.gflops}. The CPU-only
    baseline a partly offloaded model compares against; also how `npusim stream --pre MODEL`
    times a pre-processing model."""
    config = load_config(config)
    flops = _core.host_flops(os.fspath(model), _shape_args(input_shapes))
    return {"flops": flops, "us": _core.host_compute_us(flops, config)}


def concurrent(models, config, engines=None, precision="int8"):
    """Several models on one simulated NPU at once, as `npusim concurrent`: each compiled for its
    engines (`engines`: {"name": (first, last)} by file name without extension, or None for an
    even split), run together. Returns the JSON report as a dict: per model its engines,
    solo_cycles, together_cycles and slowdown; makespan_cycles and sum_solo_cycles."""
    config = load_config(config)
    spec = ",".join(f"{name}={first}-{last}" for name, (first, last) in (engines or {}).items())
    return json.loads(_core.concurrent([os.fspath(m) for m in models], config, spec, precision))


def generate(prefill, decode, config, prompt=0, tokens=8, precision="int8", weights=None, group_size=None, calib=None,
             timing_only=False, seed=1):
    """A decoder's generation loop, as `npusim generate`: the prefill graph on the prompt (`prompt`
    tokens, 0: the graph's fixed length; token ids uniform from `seed`), then `tokens` decode
    steps, each step's present K/V the next one's past (a decode graph with a dynamic past axis
    is compiled once per cache length). Returns the JSON report as a dict: per step its past
    length, latency_us, weight_bytes, kv_bytes, bound_us (their DDR time) and of_bound, energy_uj,
    the token it chose and its top logits; time_to_first_token_us, tokens_per_s,
    energy_per_token_uj. weights: "int8" or "int4" weight-only MatMul weights (precision "fp16")."""
    config = load_config(config)
    return json.loads(_core.generate(os.fspath(prefill), os.fspath(decode), config, int(prompt), int(tokens), precision,
                                     weights or "", "" if group_size is None else str(group_size),
                                     os.fspath(calib) if calib else "", bool(timing_only), int(seed)))


def compile(model, config, precision="int8", calib=None, strict=False, input_shapes=None, device="sim",
            input_misalignment_bytes=0, calib_method=None, calib_percentile=None, activations=None,
            accuracy_target=None, keep_fp16=None, weights=None, group_size=None, input_values=None):
    """Compiles an ONNX model (or loads a .npuprog) for `config` and returns a Session.

    config: a path, a dict or a Config. precision: "int8" (calibrated on `calib`, a directory
    of .npy files, or on generated inputs), "fp16", or "mixed" (int8 with the most sensitive
    layers in fp16 until `accuracy_target`, e.g. "cosine=0.99", is met). calib_method,
    calib_percentile, activations, keep_fp16 (a list of layer names, or "a,b"): as `npusim
    compile --calib-method ... --keep-fp16 ...` (None: the CLI's default). weights: "int8" or
    "int4", weight-only quantisation of MatMul/Gemm weights with fp16 activations (precision
    "fp16"); group_size: int4's weights per scale (default 128). strict: any CPU fallback is an
    error.
    input_shapes fixes dynamic dims: {"input": (1, 3, 224, 224)}. input_values makes one-element
    inputs constants, so what depends on them folds (an If included): {"sample_rate": 16000}
    (`npusim compile --input-value`). input_misalignment_bytes:
    place the model inputs that many bytes past a 4 KiB boundary in DDR (`npusim run
    --misalign-inputs`)."""
    config = load_config(config)
    path = os.fspath(model)
    if keep_fp16 is not None and not isinstance(keep_fp16, str):
        keep_fp16 = ",".join(keep_fp16)
    quant = dict(calib_method=calib_method, calib_percentile=calib_percentile, activations=activations,
                 accuracy_target=accuracy_target, keep_fp16=keep_fp16, weights=weights,
                 group_size=None if group_size is None else str(group_size))
    compiled, from_onnx = _core.compile_model(path, config, precision, os.fspath(calib) if calib else "",
                                              bool(strict), _shape_args(input_shapes),
                                              input_values=[f"{k}={v}" for k, v in (input_values or {}).items()],
                                              **{k: v for k, v in quant.items() if v is not None})
    # As `npusim run`: an ONNX file's own declarations (exact dtypes, ranks) refine the boundary.
    declared = read_onnx_boundary(path) if from_onnx else None
    session = Session(compiled, config, path, declared, device, input_misalignment_bytes)
    session.inputs  # builds the device now, so a bad device fails here rather than at run()
    return session


class Session:
    """A compiled model bound to a hardware config; run it as often as you like."""

    def __init__(self, compiled, config, model_path="", declared=None, device="sim", input_misalignment_bytes=0):
        """compiled: a CompiledModel (compile() or npusim.program_from_bytes); declared: the
        ONNX file's boundary (npusim.read_onnx_boundary), or None for a .npuprog;
        input_misalignment_bytes: as compile()."""
        self._args = (model_path, declared, device, input_misalignment_bytes)
        self._core = _core.Session(compiled, load_config(config), model_path, declared, device,
                                   int(input_misalignment_bytes))

    @property
    def compiled(self):
        """The CompiledModel (program + plan); .to_bytes() gives the .npuprog contents."""
        return self._core.model

    @property
    def config(self):
        return self._core.config

    @property
    def inputs(self):
        """[{name, dtype, shape, layout}] the model expects."""
        return self._core.inputs()

    @property
    def outputs(self):
        return self._core.outputs()

    def with_config(self, config):
        """The same program on other hardware, without compiling again. Only valid when the
        compiler would produce the same program for `config` (see npusim.sweep_compile)."""
        return Session(self.compiled, config, *self._args)

    def run(self, inputs=None, timing_only=False, seed=1):
        """Runs once. inputs: {name: array}; none given: deterministic random inputs (as the
        CLI). Returns (outputs {name: numpy array}, Report). Timing-only runs do no arithmetic
        and return no outputs, with the same cycle counts."""
        given = []
        for name, value in (inputs or {}).items():
            array = np.asarray(value, order="C")  # no copy when already C-contiguous
            given.append((name, array.dtype.str, list(array.shape), array))
        raw_outputs, report_json = self._core.run(given, bool(timing_only), int(seed))
        outputs = {name: np.frombuffer(buffer, dtype=np.dtype(dtype)).reshape(shape)  # views, no copy
                   for name, dtype, shape, buffer in raw_outputs}
        return outputs, Report.from_json(report_json)

    def stream(self, frames=16, pre_ms=0.0, post_ms=0.0, pre_model=None, post_model=None, depth=2, trace=None,
               seed=1):
        """`npusim stream` on this session: `frames` frames through host pre-processing (pre_ms,
        or pre_model, an ONNX model timed on the host), this model's inference (one timing-only
        simulated run) and host post-processing, pipelined with `depth` buffers per tensor and
        serially. Returns the stream report as a dict (report/stream_report.h: "pipelined",
        "serial", "stages", "speedup", "inference", ...); trace: a path for the Perfetto trace."""
        text = self._core.stream(int(frames), int(depth), float(pre_ms) * 1000.0,
                                 os.fspath(pre_model) if pre_model else "", float(post_ms) * 1000.0,
                                 os.fspath(post_model) if post_model else "", int(seed),
                                 os.fspath(trace) if trace else "")
        return json.loads(text)
