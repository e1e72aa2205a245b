"""What a Dask worker does: compile a model once per compile key, run design points on it,
and turn each report into one results row. Errors become rows, never exceptions, so one
bad point cannot stop a sweep."""
import os
import time
from collections import OrderedDict

from .config import config_to_dict
from .errors import Error
from . import _core
from .session import Session, compile, program_from_bytes, read_onnx_boundary

# Per worker process: deserialised programs by compile key (a few, ResNet-50 is ~25 MB)
# and ONNX boundaries by file (parsing a 100 MB ONNX file costs more than a timing run).
_PROGRAMS = OrderedDict()
_PROGRAMS_KEPT = 4
_BOUNDARIES = {}


def _error_text(stage, error):
    return f"{stage}: {error}".replace("\n", " ")


def compile_program(model, config_yaml):
    """-> {"ok", "program" (bytes) | "error", "compile_s", "instructions", "fallbacks"}."""
    start = time.perf_counter()
    try:
        config = _core.parse_config(config_yaml, "<sweep point>")
        session = compile(model.path, config, precision=model.precision, calib=model.calib or None,
                          strict=model.strict, input_shapes=model.input_shapes)
        compiled = session.compiled
        return {"ok": True, "program": compiled.to_bytes(), "compile_s": time.perf_counter() - start,
                "instructions": compiled.instructions, "fallbacks": len(compiled.fallbacks)}
    except Error as e:
        return {"ok": False, "error": _error_text("compile", e), "compile_s": time.perf_counter() - start}


def _program(key, compiled):
    if key in _PROGRAMS:
        _PROGRAMS.move_to_end(key)
        return _PROGRAMS[key]
    program = program_from_bytes(compiled["program"], f"<compiled {key}>")
    _PROGRAMS[key] = program
    while len(_PROGRAMS) > _PROGRAMS_KEPT:
        _PROGRAMS.popitem(last=False)
    return program


def _boundary(path):
    if path not in _BOUNDARIES:
        _BOUNDARIES[path] = read_onnx_boundary(path)
    return _BOUNDARIES[path]


def area_mm2(config_tree):
    """The config's area model: per MAC, per KiB of SRAM, plus a fixed part; None without one."""
    area = config_tree.get("area")
    if not area:
        return None
    macs = config_tree["mac_array"]["rows"] * config_tree["mac_array"]["cols"]
    return area["mm2_per_mac"] * macs + area["mm2_per_sram_kib"] * config_tree["sram"]["capacity_kib"] + area["fixed_mm2"]


def metrics(report, config_tree):
    """The summary columns of one results row."""
    energy = report.get("energy") or {}
    ddr = report.get("ddr", {})
    return {
        "cycles": report["cycles"],
        "latency_us": report["latency_us"],
        "npu_latency_us": report.get("npu_latency_us"),
        "achieved_tops": report["achieved_tops"],
        "peak_tops": report["peak_tops"],
        "mac_utilization": report["mac_utilization"],
        "macs": report["macs"],
        "ddr_bytes_read": ddr.get("bytes_read"),
        "ddr_bytes_written": ddr.get("bytes_written"),
        "ddr_bus_bytes": ddr.get("bus_bytes"),
        "sram_peak_bytes": report.get("sram", {}).get("peak_bytes"),
        "energy_uj": energy.get("total_uj"),
        "average_power_mw": energy.get("average_power_mw"),
        "tops_per_watt": energy.get("tops_per_watt"),
        "area_mm2": area_mm2(config_tree),
        "cpu_fallbacks": len(report.get("fallbacks", [])),
    }


def run_point(point, compiled, timing_only, seed=1):
    """point: {"row": {id, model, axis values...}, "config_yaml", "model_path", "compile_key"};
    compiled: compile_program's result. Returns the finished row."""
    row = dict(point["row"])
    row["compile_s"] = compiled["compile_s"]
    start = time.perf_counter()
    try:
        if not compiled["ok"]:
            raise _Failed(compiled["error"])
        config = _core.parse_config(point["config_yaml"], "<sweep point>")
        program = _program(point["compile_key"], compiled)
        path = point["model_path"]
        session = Session(program, config, path, _boundary(path) if path.endswith(".onnx") else None)
        _, report = session.run(timing_only=timing_only, seed=seed)
        row.update(metrics(report, config_to_dict(config)))
        row["instructions"] = compiled["instructions"]
        row["status"], row["error"] = "ok", ""
    except _Failed as e:
        row["status"], row["error"] = "failed", str(e)
    except Error as e:
        row["status"], row["error"] = "failed", _error_text("run", e)
    row["run_s"] = time.perf_counter() - start
    row["worker_pid"] = os.getpid()
    row["finished_at"] = time.time()
    return row


class _Failed(Exception):
    pass
