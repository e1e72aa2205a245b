"""npusim from Python: hardware configs, compiling ONNX models, running them on the SystemC
NPU model, and design-space sweeps (npusim.sweep, `python3 -m npusim sweep`).

    import npusim
    cfg = npusim.load_config("configs/default.yaml")
    session = npusim.compile("models/tiny_convnet.onnx", cfg, precision="int8")
    outputs, report = session.run({"input": x})
    report["latency_us"], report.layers_frame()
"""
from .config import Config, config_keys, config_to_dict, load_config, with_values
from .errors import CompileError, ConfigError, Error, SweepSpecError
from .report import Report
from .session import Session, compile, concurrent, generate, host_time, program_from_bytes, read_onnx_boundary

__all__ = ["Config", "CompileError", "ConfigError", "Error", "Report", "Session", "SweepSpecError", "compile", "concurrent", "generate",
           "config_keys", "config_to_dict", "host_time", "load_config", "program_from_bytes", "read_onnx_boundary", "with_values"]
