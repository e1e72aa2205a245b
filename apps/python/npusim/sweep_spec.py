"""Sweep specifications (configs/sweeps/*.yaml): a base config, the models, the axes, the
constraints and how to sample. Every problem is one SweepSpecError line naming the spec file
and the key: "<spec>: axes.rows: 0 is outside [1, 4096] for mac_array.rows"."""
import os
import pathlib
from dataclasses import dataclass, field

import yaml

from . import config_key_paths as config_keys
from .config import config_to_dict, load_config, load_yaml
from .errors import Error, SweepSpecError
from .safe_expression import FUNCTIONS, Expression, ExpressionError
from .sweep_axes import AxisError, check_compile_option, parse_axis
from .sweep_compile import SHAREABLE_KEYS
from .sweep_metrics import DESIGN_METRICS, METRICS

TOP_LEVEL_KEYS = {"name", "base", "models", "axes", "constraints", "objectives", "sampling", "timing_only",
                  "precision", "share_program_across"}
DEFAULT_OBJECTIVES = ("latency_us", "energy_uj")
MODEL_KEYS = {"name", "path", "generate", "decoder", "input_size", "precision", "weights", "group_size",
              "input_shapes", "calib", "strict"}
DECODER_KEYS = {"prefill", "decode", "prompt", "tokens"}
SAMPLING_METHODS = ("grid", "random", "lhs")


@dataclass
class ModelEntry:
    label: str                 # the `model` column of the results
    path: str = ""             # ONNX file (absolute), or "" until `generate` has made it
    generate: str = ""         # a scripts/make_models.py model name
    input_size: int = 0        # make_models.py --input-size
    precision: str = "int8"
    input_shapes: dict = field(default_factory=dict)
    calib: str = ""
    strict: bool = False
    weights: str = ""          # "", "int8" or "int4": `npusim compile --weights`
    group_size: int = 0        # 0: the compiler's default
    # A generation loop instead of one run (`npusim generate`): {prefill, decode (absolute
    # paths), prompt, tokens}; its rows carry time to first token, tokens/s and energy per token.
    decoder: dict = field(default_factory=dict)

    def compile_options(self):
        """The compile options the entry fixes besides its precision (for point ids)."""
        out = {}
        if self.weights:
            out["weights"] = self.weights
        if self.group_size:
            out["group_size"] = self.group_size
        return out

    def options(self, design_options=None):
        """What a point compiles with: {precision, weights ("" when none), group_size (0: the
        compiler's default)}, an axis's value over the entry's own."""
        chosen = {"precision": self.precision, "weights": self.weights, "group_size": self.group_size,
                  **(design_options or {})}
        if chosen["weights"] == "none":
            chosen["weights"] = ""
        return chosen


@dataclass
class Sampling:
    method: str = "grid"
    points: int = 0            # random / lhs
    seed: int = 0


@dataclass
class SweepSpec:
    path: str
    name: str
    base_config: object        # npusim.Config
    base_values: dict          # {key path: value} of the base config
    models: list
    axes: list
    constraints: list          # [(text, Expression)] over config values and design costs: before running
    sampling: Sampling
    timing_only: bool = True
    result_constraints: list = field(default_factory=list)  # [(text, Expression)] naming run results
    objectives: list = field(default_factory=list)          # [(column, "min" | "max")]
    # Key paths whose values do not get their own compile: points differing only in them run
    # the program compiled with the base config's values (share_program_across).
    shared_program_keys: tuple = ()


def _fail(spec_path, key, problem):
    raise SweepSpecError(f"{spec_path}: {key}: {problem}")


def _read_yaml(path):
    try:
        text = pathlib.Path(path).read_text()
    except OSError as e:
        raise SweepSpecError(f"{path}: cannot read file ({e.strerror})") from None
    try:
        tree = load_yaml(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise SweepSpecError(f"{path}{where}: invalid YAML: {problem}") from None
    if not isinstance(tree, dict):
        raise SweepSpecError(f"{path}: expected a mapping with base, models and axes (got {type(tree).__name__})")
    return tree


def _relative(spec_dir, value):
    return str((spec_dir / os.path.expanduser(value)).resolve())


def _parse_model(spec_path, spec_dir, index, entry, default_precision):
    key = f"models[{index}]"
    if isinstance(entry, str):
        entry = {"path": entry}
    if not isinstance(entry, dict):
        _fail(spec_path, key, f"expected a mapping with path or generate (got {entry!r})")
    unknown = set(entry) - MODEL_KEYS
    if unknown:
        _fail(spec_path, f"{key}.{sorted(unknown)[0]}", f"unknown key (a model has {', '.join(sorted(MODEL_KEYS))})")
    if sum(k in entry for k in ("path", "generate", "decoder")) != 1:
        _fail(spec_path, key, "give exactly one of path (an ONNX file), generate (a scripts/make_models.py name) "
              "or decoder (a prefill and a decode graph)")
    m = ModelEntry(label="", precision=entry.get("precision", default_precision))
    for option in ("precision", "weights", "group_size"):
        if option in entry:
            try:
                check_compile_option(option, entry[option])
            except AxisError as e:
                _fail(spec_path, f"{key}.{option}", str(e))
    m.weights = "" if entry.get("weights", "none") == "none" else entry["weights"]
    m.group_size = entry.get("group_size", 0)
    if "decoder" in entry:
        for fixed in ("input_size", "input_shapes", "strict"):
            if fixed in entry:
                _fail(spec_path, f"{key}.{fixed}", "not for a decoder: its shapes follow from prompt and tokens")
        m.decoder = _parse_decoder(spec_path, spec_dir, key, entry["decoder"])
        m.path = m.decoder["decode"]
        m.label = pathlib.Path(m.path).stem
    elif "path" in entry:
        if not isinstance(entry["path"], str):
            _fail(spec_path, f"{key}.path", f"expected a file path (got {entry['path']!r})")
        m.path = _relative(spec_dir, entry["path"])
        if not os.path.isfile(m.path):
            _fail(spec_path, f"{key}.path", f"no such file {m.path}")
        m.label = pathlib.Path(m.path).stem
    else:
        m.generate = str(entry["generate"])
        size = entry.get("input_size", 0)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            _fail(spec_path, f"{key}.input_size", f"expected a positive integer (got {size!r})")
        m.input_size = size
        m.label = f"{m.generate}-{size}" if size else m.generate
    shapes = entry.get("input_shapes", {})
    if not isinstance(shapes, dict):
        _fail(spec_path, f"{key}.input_shapes", "expected a mapping input name -> shape (1x3x224x224 or a list)")
    for name, shape in shapes.items():
        ok = isinstance(shape, str) or (isinstance(shape, list) and all(isinstance(d, int) and d > 0 for d in shape))
        if not ok:
            _fail(spec_path, f"{key}.input_shapes.{name}", f"expected 1x3x224x224 or [1, 3, 224, 224] (got {shape!r})")
    m.input_shapes = {str(k): (v if isinstance(v, str) else "x".join(map(str, v))) for k, v in shapes.items()}
    if "calib" in entry:
        m.calib = _relative(spec_dir, str(entry["calib"]))
    if not isinstance(entry.get("strict", False), bool):
        _fail(spec_path, f"{key}.strict", f"expected true or false (got {entry['strict']!r})")
    m.strict = entry.get("strict", False)
    m.label = str(entry.get("name", m.label))
    return m


def _parse_decoder(spec_path, spec_dir, key, raw):
    """models[i].decoder: {prefill: FILE, decode: FILE, prompt: N (0: the prefill's fixed length),
    tokens: T (decode steps, default 8)}, as `npusim generate PREFILL DECODE --prompt N --tokens T`."""
    if not isinstance(raw, dict):
        _fail(spec_path, f"{key}.decoder", f"expected a mapping with prefill, decode, prompt and tokens (got {raw!r})")
    unknown = set(raw) - DECODER_KEYS
    if unknown:
        _fail(spec_path, f"{key}.decoder.{sorted(unknown)[0]}",
              f"unknown key (a decoder has {', '.join(sorted(DECODER_KEYS))})")
    out = {}
    for graph in ("prefill", "decode"):
        if not isinstance(raw.get(graph), str):
            _fail(spec_path, f"{key}.decoder.{graph}", f"expected the {graph} graph's ONNX file (got {raw.get(graph)!r})")
        out[graph] = _relative(spec_dir, raw[graph])
        if not os.path.isfile(out[graph]):
            _fail(spec_path, f"{key}.decoder.{graph}", f"no such file {out[graph]}")
    for count, default, least in (("prompt", 0, 0), ("tokens", 8, 1)):
        value = raw.get(count, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            _fail(spec_path, f"{key}.decoder.{count}", f"expected a whole number >= {least} (got {value!r})")
        out[count] = value
    return out


def _parse_sampling(spec_path, tree):
    raw = tree.get("sampling", {"method": "grid"})
    if isinstance(raw, str):
        raw = {"method": raw}
    if not isinstance(raw, dict):
        _fail(spec_path, "sampling", f"expected grid, random or lhs, or a mapping {{method, points, seed}} (got {raw!r})")
    unknown = set(raw) - {"method", "points", "seed"}
    if unknown:
        _fail(spec_path, f"sampling.{sorted(unknown)[0]}", "unknown key (sampling has method, points, seed)")
    s = Sampling(method=raw.get("method", "grid"), points=raw.get("points", 0), seed=raw.get("seed", 0))
    if s.method not in SAMPLING_METHODS:
        _fail(spec_path, "sampling.method", f"expected one of {', '.join(SAMPLING_METHODS)} (got {s.method!r})")
    for k in ("points", "seed"):
        v = getattr(s, k)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            _fail(spec_path, f"sampling.{k}", f"expected a non-negative integer (got {v!r})")
    if s.method != "grid" and s.points < 1:
        _fail(spec_path, "sampling.points", f"{s.method} sampling needs points: N")
    return s


def load_sweep_spec(path):
    """Reads and checks a sweep spec; relative paths in it are relative to the spec file."""
    spec_path = str(path)
    tree = _read_yaml(spec_path)
    spec_dir = pathlib.Path(spec_path).resolve().parent
    unknown = set(tree) - TOP_LEVEL_KEYS
    if unknown:
        _fail(spec_path, sorted(unknown)[0], f"unknown key (a sweep spec has {', '.join(sorted(TOP_LEVEL_KEYS))})")

    base = tree.get("base")
    if base is None:
        _fail(spec_path, "base", "missing: the config every point starts from (a path or a mapping)")
    try:
        base_config = load_config(_relative(spec_dir, base) if isinstance(base, str) else base)
    except (Error, TypeError) as e:
        _fail(spec_path, "base", str(e))
    base_values = config_keys.flatten(config_to_dict(base_config))

    timing_only = tree.get("timing_only", True)
    if not isinstance(timing_only, bool):
        _fail(spec_path, "timing_only", f"expected true or false (got {timing_only!r})")

    models = tree.get("models")
    if not isinstance(models, list) or not models:
        _fail(spec_path, "models", "expected a non-empty list of models ({path: FILE.onnx} or {generate: NAME})")
    default_precision = tree.get("precision", "int8")
    try:
        check_compile_option("precision", default_precision)
    except AxisError as e:
        _fail(spec_path, "precision", str(e))
    parsed_models = [_parse_model(spec_path, spec_dir, i, m, default_precision) for i, m in enumerate(models)]
    labels = [m.label for m in parsed_models]
    for label in labels:
        if labels.count(label) > 1:
            _fail(spec_path, "models", f"two models are called {label}; give one a name:")

    axes_tree = tree.get("axes", {})
    if not isinstance(axes_tree, dict):
        _fail(spec_path, "axes", f"expected a mapping key -> values (got {axes_tree!r})")
    axes, seen_paths = [], {}
    for name, axis_spec in axes_tree.items():
        try:
            axis = parse_axis(str(name), axis_spec)
        except (AxisError, config_keys.UnknownKey) as e:
            _fail(spec_path, f"axes.{name}", str(e))
        for column, key_path in zip(axis.columns, axis.paths):
            if key_path in seen_paths:
                _fail(spec_path, f"axes.{name}", f"{key_path} is already swept by axes.{seen_paths[key_path]}")
            seen_paths[key_path] = name
        axes.append(axis)

    constraints, result_constraints = _parse_constraints(spec_path, tree, axes)
    spec = SweepSpec(path=spec_path, name=str(tree.get("name", pathlib.Path(spec_path).stem)),
                     base_config=base_config, base_values=base_values, models=parsed_models, axes=axes,
                     constraints=constraints, sampling=_parse_sampling(spec_path, tree), timing_only=timing_only,
                     result_constraints=result_constraints, objectives=_parse_objectives(spec_path, tree),
                     shared_program_keys=_parse_shared(spec_path, tree))
    decoders = [i for i, m in enumerate(parsed_models) if m.decoder]
    if spec.shared_program_keys and decoders:
        _fail(spec_path, "share_program_across", f"models[{decoders[0]}] is a decoder, whose generation loop compiles "
              "its own programs for each point: sharing programs does not apply")
    return spec


def _parse_shared(spec_path, tree):
    raw = tree.get("share_program_across", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        _fail(spec_path, "share_program_across", f"expected a list of config keys (got {raw!r})")
    out = []
    for i, name in enumerate(raw):
        try:
            path = config_keys.resolve(str(name))
        except config_keys.UnknownKey as e:
            _fail(spec_path, f"share_program_across[{i}]", f"{name}: {e}")
        if path not in SHAREABLE_KEYS:
            _fail(spec_path, f"share_program_across[{i}]",
                  f"{path} decides what the program is, not only its timing (shareable: {', '.join(SHAREABLE_KEYS)})")
        out.append(path)
    return tuple(out)


def _parse_constraints(spec_path, tree, axes):
    """Constraints naming only config keys, axis columns, macs and design costs (area, static
    power: known before running) select points before they run; any naming a run's result
    (latency_us, power_mw, ...) is checked on the finished rows (the `feasible` column)."""
    raw = tree.get("constraints", [])
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        _fail(spec_path, "constraints", f"expected a list of expressions (got {raw!r})")
    config_names = set(config_keys.key_table()) | set(config_keys.short_names()) | {"macs"}
    config_names |= {c for a in axes for c in a.columns}
    design, results = [], []
    for i, text in enumerate(raw):
        if not isinstance(text, str):
            _fail(spec_path, f"constraints[{i}]", f"expected an expression in quotes (got {text!r})")
        try:
            expression = Expression(text)
        except ExpressionError as e:
            _fail(spec_path, f"constraints[{i}]", f"'{text}': {e}")
        names = expression.names() - set(FUNCTIONS)
        unknown = sorted(names - config_names - set(METRICS))
        if unknown:
            _fail(spec_path, f"constraints[{i}]", f"'{text}': unknown name '{unknown[0]}': neither a config key, an "
                  f"axis column nor a result column ({', '.join(METRICS)})")
        # A config name wins over a result column of the same name (`macs` is rows x cols here).
        run_results = (names - config_names) & (set(METRICS) - DESIGN_METRICS)
        (results if run_results else design).append((text, expression))
    return design, results


def _parse_objectives(spec_path, tree):
    """[(column, "min" | "max")]: names from METRICS (their own direction) or {column: min|max}."""
    raw = tree.get("objectives", list(DEFAULT_OBJECTIVES))
    if not isinstance(raw, list) or len(raw) < 2:
        _fail(spec_path, "objectives", f"expected a list of at least two result columns (got {raw!r})")
    out = []
    for i, entry in enumerate(raw):
        if isinstance(entry, dict) and len(entry) == 1:
            (column, sense), = entry.items()
        elif isinstance(entry, str):
            column, sense = entry, None
        else:
            _fail(spec_path, f"objectives[{i}]", f"expected a result column or {{column: min|max}} (got {entry!r})")
        if column not in METRICS:
            _fail(spec_path, f"objectives[{i}]", f"unknown result column '{column}' (columns: {', '.join(METRICS)})")
        sense = sense or METRICS[column][1]
        if sense not in ("min", "max"):
            _fail(spec_path, f"objectives[{i}].{column}", f"expected min or max (got {sense!r})")
        out.append((column, sense))
    return out
