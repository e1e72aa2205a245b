"""What a Dask worker does: compile a model once per compile key, run design points on it,
and turn each report into one results row. Errors become rows, never exceptions, so one
bad point cannot stop a sweep."""
import json
import os
import time
from collections import OrderedDict

from .errors import Error
from .sweep_metrics import generation_metrics, metrics
from . import _core
from .session import Session, _shape_args, read_onnx_boundary

# Per worker process: compiled programs by compile key (a few, ResNet-50's is ~25 MB); ONNX
# boundaries are kept by read_onnx_boundary itself.
_PROGRAMS = OrderedDict()
_PROGRAMS_KEPT = 4


def _error_text(stage, error):
    return f"{stage}: {error}".replace("\n", " ")


def compile_program(model, options, config_yaml):
    """-> {"ok", "compiled" (CompiledModel) | "error", "compile_s", "instructions", "fallbacks"}.
    options: {precision, weights, group_size} (ModelEntry.options)."""
    start = time.perf_counter()
    try:
        config = _core.parse_config(config_yaml, "<sweep point>")
        # The compiler alone: npusim.compile() would also parse the ONNX file's boundary, which
        # the points read once per worker (_boundary) instead.
        compiled, _ = _core.compile_model(model.path, config, options["precision"], model.calib or "",
                                          bool(model.strict), _shape_args(model.input_shapes),
                                          weights=options["weights"], group_size=_group_size(options))
        return {"ok": True, "compiled": compiled, "compile_s": time.perf_counter() - start,
                "instructions": compiled.instructions, "fallbacks": len(compiled.fallbacks)}
    except Error as e:
        return {"ok": False, "error": _error_text("compile", e), "compile_s": time.perf_counter() - start}


def _group_size(options):
    return str(options["group_size"]) if options["group_size"] else ""


def _program(key, model, options, config_yaml):
    """The compile result of `key`, compiled here unless this worker still has it. Compiling in
    the task that runs the points (rather than shipping the program between workers) costs
    about what serialising it would (ResNet-18: 0.08 s compile vs 0.06 s to and from bytes)."""
    if key in _PROGRAMS:
        _PROGRAMS.move_to_end(key)
        return _PROGRAMS[key]
    compiled = compile_program(model, options, config_yaml)
    _PROGRAMS[key] = compiled
    while len(_PROGRAMS) > _PROGRAMS_KEPT:
        _PROGRAMS.popitem(last=False)
    return compiled


def run_points(model, options, compile_yaml, key, points, timing_only, seed=1):
    """A Dask task: the program of compile key `key` (compiled from `compile_yaml` unless this
    worker has it) run on each point of `points`; for a decoder, the generation loop of each
    point. Returns the finished rows, failures included."""
    if model.decoder:
        return [generate_point(point, model, options, timing_only, seed) for point in points]
    compiled = _program(key, model, options, compile_yaml)
    return [run_point(point, compiled, timing_only, seed) for point in points]


def generate_point(point, model, options, timing_only, seed=1):
    """A decoder's point: `npusim generate` on the point's config (it compiles the prefill and
    each decode step itself, so compile_s is part of run_s here)."""
    row = dict(point["row"])
    start = time.perf_counter()
    try:
        config = _core.parse_config(point["config_yaml"], "<sweep point>")
        d = model.decoder
        report = json.loads(_core.generate(d["prefill"], d["decode"], config, d["prompt"], d["tokens"],
                                           options["precision"], options["weights"], _group_size(options),
                                           model.calib or "", bool(timing_only), int(seed)))
        row.update(generation_metrics(report))
        row["status"], row["error"] = "ok", ""
    except Error as e:
        row["status"], row["error"] = "failed", _error_text("generate", e)
    return _finished(row, start)


def run_point(point, compiled, timing_only, seed=1):
    """point: {"row": {id, model, axis values...}, "config_yaml", "model_path"}; compiled:
    compile_program's result. Returns the finished row."""
    row = dict(point["row"])
    row["compile_s"] = compiled["compile_s"]
    start = time.perf_counter()
    try:
        if not compiled["ok"]:
            raise _Failed(compiled["error"])
        config = _core.parse_config(point["config_yaml"], "<sweep point>")
        program = compiled["compiled"]
        path = point["model_path"]
        session = Session(program, config, path, read_onnx_boundary(path) if path.endswith(".onnx") else None)
        _, report = session.run(timing_only=timing_only, seed=seed)
        row.update(metrics(report))
        row["instructions"] = compiled["instructions"]
        row["status"], row["error"] = "ok", ""
    except _Failed as e:
        row["status"], row["error"] = "failed", str(e)
    except Error as e:
        row["status"], row["error"] = "failed", _error_text("run", e)
    return _finished(row, start)


def _finished(row, start):
    """The row with how long it ran, where and when it finished."""
    row["run_s"] = time.perf_counter() - start
    row["worker_pid"] = os.getpid()
    row["finished_at"] = time.time()
    return row


class _Failed(Exception):
    pass
