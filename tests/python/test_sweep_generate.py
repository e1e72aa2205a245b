"""Sweeping what the compiler is told (precision, weights, group size) and decoders' generation
loops: a sweep's rows equal `npusim.generate` and `npusim.compile(..., weights=...)` run one by
one, point ids of specs without these keys stay what they were, and bad entries are one line
naming the key."""
import hashlib
import json
import os
import pathlib
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE_DIR = os.environ.get("NPUSIM_PYTHONPATH", str(ROOT / "build" / "python"))
sys.path.insert(0, PACKAGE_DIR)
import npusim  # noqa: E402
from npusim import plot, sweep_cli  # noqa: E402
from npusim.sweep_compile import compile_key  # noqa: E402
from npusim.sweep_points import point_id, sweep_points  # noqa: E402
from npusim.sweep_runner import run_sweep  # noqa: E402
from npusim.sweep_spec import load_sweep_spec  # noqa: E402

EXPORTED = ROOT / "models" / "exported"
PREFILL = EXPORTED / "gpt_tiny_dynamic_prefill.onnx"
DECODE = EXPORTED / "gpt_tiny_dynamic_decode.onnx"
CONFIG = ROOT / "configs" / "npu-40tops-55gbps.yaml"
DECODER = f"{{prefill: {PREFILL}, decode: {DECODE}, prompt: 16, tokens: 2}}"


def write_spec(tmp_path, text):
    path = tmp_path / "spec.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def test_a_decoder_sweep_equals_generate_point_by_point(tmp_path):
    spec_path = write_spec(tmp_path, f"""\
        base: {CONFIG}
        models:
          - decoder: {DECODER}
            name: gpt
        axes:
          ddr_gbps: [27.5, 55]
          quant: {{zip: {{precision: [int8, int8, fp16], weights: [none, int4, int4]}}}}
        objectives: [tokens_per_s, energy_per_token_uj]
        """)
    table = run_sweep(spec_path, tmp_path / "r.parquet", workers=1, progress=False)
    assert len(table) == 6 and (table["status"] == "ok").all(), list(table["error"])
    assert list(table.columns[:6]) == ["point_id", "model", "precision", "ddr_gbps", "weights", "status"]

    spec = load_sweep_spec(spec_path)
    rows = table.set_index("point_id")
    for point in sweep_points(spec):
        row = rows.loc[point.id]
        options = point.model.options(point.design.compile)
        config = npusim.with_values(spec.base_config, point.design.overrides)
        g = npusim.generate(PREFILL, DECODE, config, prompt=16, tokens=2, precision=options["precision"],
                            weights=options["weights"] or None, timing_only=True)
        assert row["precision"] == options["precision"] and row["weights"] == point.design.values["weights"]
        assert row["time_to_first_token_us"] == g["time_to_first_token_us"]
        assert row["decode_us"] == g["decode_us"] and row["tokens_per_s"] == g["tokens_per_s"]
        assert row["energy_per_token_uj"] == g["energy_per_token_uj"]
        assert row["latency_us"] == pytest.approx(sum(s["latency_us"] for s in g["steps"]), rel=1e-12)
        assert row["cycles"] == sum(s["cycles"] for s in g["steps"])
        decode = [s for s in g["steps"] if s["phase"] == "decode"]
        assert row["decode_bound_us"] == pytest.approx(sum(s["bound_us"] for s in decode), rel=1e-12)
        assert row["decode_of_bound"] == pytest.approx(row["decode_bound_us"] / row["decode_us"], rel=1e-12)

    # The front table says how each row was compiled; the compile options count as axes.
    objectives = [("tokens_per_s", "max"), ("energy_per_token_uj", "min")]
    header = plot.format_front(plot.pareto_front(table, objectives), objectives).splitlines()[0].split()
    assert header == ["model", "ddr_gbps", "weights", "precision", "tokens_per_s", "energy_per_token_uj"]
    assert plot.axis_columns(table) == ["ddr_gbps", "weights", "precision"]

    by = {(r["ddr_gbps"], r["precision"], r["weights"]): r for r in table.to_dict("records")}
    for quant in [("int8", "none"), ("int8", "int4"), ("fp16", "int4")]:
        assert by[(55, *quant)]["tokens_per_s"] > by[(27.5, *quant)]["tokens_per_s"]  # faster DDR, faster tokens
    for bw in (27.5, 55):  # int4 weights: fewer bytes to bound each step
        assert by[(bw, "int8", "int4")]["decode_bound_us"] < by[(bw, "int8", "none")]["decode_bound_us"]


def test_a_weights_entry_compiles_as_npusim_compile_does(tmp_path):
    model = EXPORTED / "gpt_tiny_decode.onnx"
    spec_path = write_spec(tmp_path, f"""\
        base: {CONFIG}
        models:
          - path: {model}
            precision: fp16
            weights: int4
            group_size: 32
        axes:
          sram_kib: [512, 2048]
        """)
    table = run_sweep(spec_path, tmp_path / "r.parquet", workers=1, progress=False)
    assert (table["status"] == "ok").all(), list(table["error"])
    assert list(table["weights"]) == ["int4", "int4"] and list(table["precision"]) == ["fp16", "fp16"]
    spec = load_sweep_spec(spec_path)
    for point, row in zip(sweep_points(spec), table.to_dict("records")):
        config = npusim.with_values(spec.base_config, point.design.overrides)
        session = npusim.compile(model, config, precision="fp16", weights="int4", group_size=32)
        _, report = session.run(timing_only=True)
        assert row["cycles"] == report["cycles"] and row["ddr_bus_bytes"] == report["ddr"]["bus_bytes"]
        assert row["instructions"] == session.compiled.instructions


def test_point_ids_and_compile_keys():
    spec = load_sweep_spec(ROOT / "configs" / "sweeps" / "array-sram-bandwidth.yaml")
    point = sweep_points(spec)[0]
    # The formula of the points stored before compile options could be swept: their sweeps resume.
    old = {"model": point.model.label, "precision": point.model.precision, "input_shapes": point.model.input_shapes,
           "values": point.design.overrides}
    assert point.id == hashlib.sha1(json.dumps(old, sort_keys=True).encode()).hexdigest()[:16]

    model, values = point.model, dict(spec.base_values)
    plain = model.options()
    assert plain == {"precision": "int8", "weights": "", "group_size": 0}
    int4 = model.options({"weights": "int4"})
    assert compile_key(model, values, int4) != compile_key(model, values, plain) == compile_key(model, values)
    assert model.options({"weights": "none"}) == plain
    assert point_id(model, point.design.__class__({}, {}, {"weights": "int4"})) != point_id(model, point.design.__class__({}, {}))


BAD = [
    (f"models:\n  - decoder: {{prefill: {PREFILL}}}\n", "models[0].decoder.decode", "expected the decode graph"),
    (f"models:\n  - decoder: {{prefill: {PREFILL}, decode: nope.onnx}}\n", "models[0].decoder.decode", "no such file"),
    (f"models:\n  - decoder: {{prefill: {PREFILL}, decode: {DECODE}, tokens: 0}}\n", "models[0].decoder.tokens",
     "expected a whole number >= 1"),
    (f"models:\n  - decoder: {{prefill: {PREFILL}, decode: {DECODE}, steps: 3}}\n", "models[0].decoder.steps",
     "unknown key"),
    (f"models:\n  - decoder: {DECODER}\n    input_shapes: {{x: 1x2}}\n", "models[0].input_shapes", "not for a decoder"),
    (f"models:\n  - path: {DECODE}\n    generate: resnet18\n", "models[0]", "exactly one of path"),
    (f"models:\n  - path: {DECODE}\n    weights: int2\n", "models[0].weights", "'int2' is not one of none, int8, int4"),
    (f"models:\n  - path: {DECODE}\n    group_size: 0\n", "models[0].group_size", "positive whole number"),
    (f"models:\n  - path: {DECODE}\naxes:\n  weights: [int4, int3]\n", "axes.weights", "'int3' is not one of"),
    (f"models:\n  - path: {DECODE}\naxes:\n  q: {{zip: {{precision: [int8, int16], rows: [8, 16]}}}}\n",
     "axes.q", "zip.precision: 'int16' is not one of int8, fp16"),
    (f"models:\n  - decoder: {DECODER}\naxes:\n  ddr_gbps: [10, 20]\nshare_program_across: [ddr.bandwidth_gbps]\n",
     "share_program_across", "is a decoder"),
]


@pytest.mark.parametrize("body,key,needle", BAD, ids=[b[1] + ":" + b[2][:16] for b in BAD])
def test_bad_entries_are_one_line_naming_the_key(tmp_path, capsys, body, key, needle):
    spec = write_spec(tmp_path, f"base: {CONFIG}\n" + body)
    assert sweep_cli.main([str(spec), "-o", str(tmp_path / "out.parquet"), "-q"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"npusim sweep: error: {spec}: {key}: ") and needle in err[0], err[0]


def test_a_point_the_compiler_refuses_is_a_failed_row(tmp_path):
    # int8 weights are what int8 precision has already: the compiler's own line, in that row only.
    spec_path = write_spec(tmp_path, f"""\
        base: {CONFIG}
        models:
          - decoder: {DECODER}
        axes:
          weights: [none, int8]
        """)
    table = run_sweep(spec_path, tmp_path / "r.parquet", workers=1, progress=False)
    status = dict(zip(table["weights"], table["status"]))
    assert status == {"none": "ok", "int8": "failed"}
    error = table.loc[table["weights"] == "int8", "error"].item()
    assert error.startswith("generate: ") and "int8 weights are what --precision int8 has already" in error


def test_the_bundled_generation_sweep_is_thirty_loops():
    spec = load_sweep_spec(ROOT / "configs" / "sweeps" / "gpt-generation.yaml")
    points = sweep_points(spec)
    assert len(points) == 30 and all(p.model.decoder["tokens"] == 8 for p in points)
    quant = {(p.model.options(p.design.compile)["precision"], p.model.options(p.design.compile)["weights"]) for p in points}
    assert quant == {("int8", ""), ("int8", "int4"), ("fp16", ""), ("fp16", "int8"), ("fp16", "int4")}
