"""The sweep shares one compiled program between points that differ only in keys listed in
npusim.sweep_compile.TIMING_ONLY_KEYS. This checks the claim against the compiler: changing
any one of those keys must leave the program byte-identical, on a roomy and a tight config."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python")))
import npusim  # noqa: E402
from npusim import config_key_paths, sweep_compile  # noqa: E402

TINY = ROOT / "models" / "tiny_convnet.onnx"


def other_value(field, value):
    """Valid values different from `value`, nearest first."""
    if field["kind"] == "choice":
        return [c for c in field["choices"].split("|") if c != value]
    if field["kind"] in ("text", "path"):  # energy.dram_technology, energy.tech_table: one valid value of each
        return [v for v in ("LPDDR4", str(ROOT / "configs" / "tech" / "7nm.yaml")) if v != value]
    if field["power_of_two"]:
        return [value * 2, value // 2]
    if field["kind"] == "number":
        return [value * 2 if value else 1.0, value / 2]
    return [value * 2 if value else 1, value + 1, value - 1]


def timing_only_paths():
    table = config_key_paths.key_table()
    return sorted(p for p in table if not sweep_compile.compiler_reads(p))


@pytest.mark.parametrize("preset,precision", [("default", "int8"), ("tiny-8x8", "int8"), ("tiny-8x8", "fp16")])
def test_timing_only_keys_do_not_change_the_program(preset, precision):
    base = npusim.load_config(ROOT / "configs" / f"{preset}.yaml")
    reference = npusim.compile(TINY, base, precision=precision).compiled.to_bytes()
    values = config_key_paths.flatten(npusim.config_to_dict(base))
    checked = []
    for path in timing_only_paths():
        if path not in values:  # an absent optional section (energy, area)
            continue
        for candidate in other_value(config_key_paths.key_table()[path], values[path]):
            try:
                changed = npusim.with_values(base, {path: candidate})
            except npusim.ConfigError:
                continue  # e.g. burst larger than the interleave: try the next value
            program = npusim.compile(TINY, changed, precision=precision).compiled.to_bytes()
            assert program == reference, f"the compiler reads {path}: remove it from TIMING_ONLY_KEYS"
            checked.append(path)
            break
    assert len(checked) >= len(sweep_compile.TIMING_ONLY_KEYS) - 2, checked


def test_compile_relevant_keys_do_change_the_key():
    model = type("M", (), {"path": "m.onnx", "precision": "int8", "input_shapes": {}, "calib": "", "strict": False})
    base = {"sram.capacity_kib": 64, "mac_array.rows": 8, "ddr.bandwidth_gbps": 1.6, "controller.queue_depth": 8}
    key = sweep_compile.compile_key(model, base)
    assert sweep_compile.compile_key(model, {**base, "controller.queue_depth": 16}) == key
    assert sweep_compile.compile_key(model, {**base, "mac_array.rows": 16}) != key
    assert sweep_compile.compile_key(model, {**base, "ddr.bandwidth_gbps": 3.2}) != key
    assert sweep_compile.compile_key(model, {**base, "sram.capacity_kib": 128}) != key
