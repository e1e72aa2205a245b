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
from npusim.sweep_spec import ModelEntry  # noqa: E402

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
    model = ModelEntry(label="m", path="m.onnx")
    base = {"sram.capacity_kib": 64, "mac_array.rows": 8, "ddr.bandwidth_gbps": 1.6, "controller.queue_depth": 8,
            "host.gflops": 50}
    key = sweep_compile.compile_key(model, base)
    assert sweep_compile.compile_key(model, {**base, "host.gflops": 100}) == key
    # The program estimate the interleaving chooses by reads the controller's queue.
    assert sweep_compile.compile_key(model, {**base, "controller.queue_depth": 16}) != key
    assert sweep_compile.compile_key(model, {**base, "mac_array.rows": 16}) != key
    assert sweep_compile.compile_key(model, {**base, "ddr.bandwidth_gbps": 3.2}) != key
    assert sweep_compile.compile_key(model, {**base, "sram.capacity_kib": 128}) != key
    # Derived SRAM timing reads the technology table: its node then changes the program.
    derived = {**base, "sram.timing": "derived", "energy.model": "derived", "energy.tech_nm": 7}
    assert sweep_compile.compile_key(model, {**derived, "energy.tech_nm": 45}) != sweep_compile.compile_key(model, derived)
    assert sweep_compile.compile_key(model, {**base, "energy.tech_nm": 45}) == key  # explicit timing: it does not


def test_shared_program_runs_each_point_on_the_base_bandwidths_program(tmp_path):
    """share_program_across: [ddr_gbps, clock_mhz]: one compile per SRAM size; each point's row is
    what the program compiled for the base config's bandwidth and clock does on the point's
    config, and says so in compiled_for."""
    from npusim.sweep_runner import run_sweep
    from npusim.sweep_spec import load_sweep_spec

    spec_path = tmp_path / "shared.yaml"
    spec_path.write_text(f"base: {ROOT}/configs/default.yaml\nmodels: [{TINY}]\n"
                         "axes: {sram_kib: [64, 256], ddr_gbps: [3.2, 25.6], clock_mhz: [500, 1000]}\n"
                         "share_program_across: [ddr_gbps, clock_mhz]\n")
    table = run_sweep(spec_path, tmp_path / "r.parquet", workers=1, progress=False)
    assert len(table) == 8 and (table["status"] == "ok").all(), table["error"].tolist()
    assert table["compiled_for"].unique().tolist() == ["ddr.bandwidth_gbps=25.6, clock.frequency_mhz=1000"]
    assert table.groupby("sram_kib")["compile_s"].nunique().tolist() == [1, 1]  # one compile per SRAM size
    spec = load_sweep_spec(spec_path)
    base = spec.base_config
    for row in table.to_dict("records"):
        compiled = npusim.compile(TINY, npusim.with_values(base, {"sram.capacity_kib": row["sram_kib"]}))
        point = npusim.with_values(base, {"sram.capacity_kib": row["sram_kib"], "ddr.bandwidth_gbps": row["ddr_gbps"],
                                          "clock.frequency_mhz": row["clock_mhz"]})
        _, report = npusim.Session(compiled.compiled, point, str(TINY)).run(timing_only=True)
        assert row["cycles"] == report["cycles"] and row["latency_us"] == report["latency_us"]


def test_only_timing_keys_can_share_a_program(tmp_path):
    from npusim.errors import SweepSpecError
    from npusim.sweep_spec import load_sweep_spec

    spec = tmp_path / "bad.yaml"
    for keys, message in [("[sram_kib]", "share_program_across[0]: sram.capacity_kib decides what the program is"),
                          ("[ddr_gbps, bandwith]", "share_program_across[1]: bandwith: unknown config key")]:
        spec.write_text(f"base: {ROOT}/configs/default.yaml\nmodels: [{TINY}]\naxes: {{rows: [16, 32]}}\n"
                        f"share_program_across: {keys}\n")
        with pytest.raises(SweepSpecError) as e:
            load_sweep_spec(spec)
        assert str(e.value).startswith(f"{spec}: {message}") and "\n" not in str(e.value), str(e.value)
