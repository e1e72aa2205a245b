"""One axis of a sweep spec: the values of a config key (or of a compile option: precision,
weights, group_size), written as a list, a linear range, a geometric (log) range, or a zipped
group of keys that vary together. Values are checked
against the key's type and limits here, so a bad spec fails before any simulation."""
import math
from dataclasses import dataclass

from . import config_key_paths as config_keys


class AxisError(ValueError):
    """Message without the spec file and key: the caller prefixes them."""


# Axes that are compile options, not config keys: their values pick how the model is quantised
# (`npusim compile --precision P --weights W --group-size G`). Their key paths live under
# "compile." so they never reach the config.
COMPILE_OPTION_PREFIX = "compile."
COMPILE_OPTIONS = {
    "precision": ("int8", "fp16"),
    "weights": ("none", "int8", "int4"),   # none: weights in the activations' precision
    "group_size": None,                    # a positive whole number (int4 weights per fp16 scale)
}


def check_compile_option(name, value):
    """A compile option's value as the compiler wants it, or AxisError."""
    choices = COMPILE_OPTIONS[name]
    if choices is None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise AxisError(f"expected a positive whole number for {name} (got {value!r})")
        return value
    if value not in choices:
        raise AxisError(f"{value!r} is not one of {', '.join(choices)} ({name})")
    return value


@dataclass
class Axis:
    name: str        # as written in the spec: "rows", "sram.capacity_kib", or a zip group name
    columns: list    # result column per member, the member's name as written
    paths: list      # config key path per member
    values: list     # one tuple per level (one entry per member)


def _number(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AxisError(f"{what} must be a number (got {value!r})")
    return value


def _tidy(x):
    """Kills float noise from ranges (0.1 * 3 -> 0.3) and returns whole floats as ints."""
    x = float(f"{x:.12g}")
    return int(x) if x.is_integer() else x


def expand_levels(spec):
    """A list or a range mapping -> the list of values."""
    if isinstance(spec, list):
        if not spec:
            raise AxisError("empty list of values")
        return list(spec)
    if not isinstance(spec, dict):
        raise AxisError(f"expected a list of values or a range mapping {{from, to, step|factor|num}} (got {spec!r})")
    if "values" in spec:
        return expand_levels(spec["values"])
    unknown = set(spec) - {"from", "to", "step", "factor", "num", "scale"}
    if unknown:
        raise AxisError(f"unknown range key '{sorted(unknown)[0]}' (a range has from, to and step, factor or num)")
    for k in ("from", "to"):
        if k not in spec:
            raise AxisError(f"range without '{k}'")
    lo, hi = _number(spec["from"], "from"), _number(spec["to"], "to")
    given = [k for k in ("step", "factor", "num") if k in spec]
    if len(given) != 1:
        raise AxisError("a range needs exactly one of step, factor or num")
    if "step" in spec:
        step = _number(spec["step"], "step")
        if step == 0 or (hi - lo) * step < 0:
            raise AxisError(f"empty range (from {lo} to {hi} step {step})")
        count = math.floor((hi - lo) / step + 1e-9) + 1
        return [_tidy(lo + i * step) for i in range(count)]
    if "factor" in spec:
        factor = _number(spec["factor"], "factor")
        if lo <= 0 or factor <= 1 or hi < lo:
            raise AxisError(f"empty log range (from {lo} to {hi} factor {factor}; needs 0 < from <= to, factor > 1)")
        count = math.floor(math.log(hi / lo) / math.log(factor) + 1e-9) + 1
        return [_tidy(lo * factor ** i) for i in range(count)]
    num = spec["num"]
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise AxisError(f"num must be a positive integer (got {num!r})")
    scale = spec.get("scale", "linear")
    if scale not in ("linear", "log"):
        raise AxisError(f"scale must be linear or log (got {scale!r})")
    if num == 1:
        return [_tidy(lo)]
    if scale == "log":
        if lo <= 0 or hi <= 0:
            raise AxisError(f"log range needs positive from and to (got {lo}, {hi})")
        return [_tidy(lo * (hi / lo) ** (i / (num - 1))) for i in range(num)]
    return [_tidy(lo + (hi - lo) * i / (num - 1)) for i in range(num)]


def check_value(value, field):
    """The value as the config wants it (whole numbers for integer keys), or AxisError."""
    kind, path = field["kind"], field["path"]
    if kind == "choice":
        choices = field["choices"].split("|")
        if value not in choices:
            raise AxisError(f"{value!r} is not one of {', '.join(choices)} ({path})")
        return value
    if kind == "text":
        if not isinstance(value, str):
            raise AxisError(f"expected text for {path} (got {value!r})")
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise AxisError(f"expected a number for {path} (got {value!r})")
    if kind in ("integer", "kib", "mib"):
        if float(value) != round(value):
            raise AxisError(f"expected a whole number for {path} (got {value!r})")
        value = int(round(value))
    low_ok = value > field["min"] if field["min_exclusive"] else value >= field["min"]
    if not low_ok or value > field["max"]:
        low = "(" if field["min_exclusive"] else "["
        raise AxisError(f"{value} is outside {low}{field['min']:g}, {field['max']:g}] for {path}")
    if field["power_of_two"] and (value <= 0 or int(value) & (int(value) - 1)):
        raise AxisError(f"{value} is not a power of two ({path})")
    return value


def _dedupe(values):
    seen, out = set(), []
    for v in values:
        if v not in seen:
            seen.add(v)
            out.append(v)
    return out


def parse_axis(name, spec):
    """One entry of the spec's `axes` mapping -> Axis (raises AxisError / config_keys.UnknownKey)."""
    if isinstance(spec, dict) and "zip" in spec:
        members = spec["zip"]
        if set(spec) != {"zip"} or not isinstance(members, dict) or not members:
            raise AxisError("a zipped axis is {zip: {key: [values], key: [values], ...}}")
        columns, paths, levels = [], [], []
        for member, member_spec in members.items():
            try:
                if str(member) in COMPILE_OPTIONS:
                    path = COMPILE_OPTION_PREFIX + str(member)
                    levels.append([check_compile_option(str(member), v) for v in expand_levels(member_spec)])
                else:
                    path = config_keys.resolve(str(member))
                    field = config_keys.key_table()[path]
                    levels.append([check_value(v, field) for v in expand_levels(member_spec)])
            except (AxisError, config_keys.UnknownKey) as e:
                raise AxisError(f"zip.{member}: {e}") from None
            columns.append(str(member))
            paths.append(path)
        lengths = {len(v) for v in levels}
        if len(lengths) != 1:
            raise AxisError(f"zipped keys need the same number of values (got {', '.join(str(len(v)) for v in levels)})")
        return Axis(name, columns, paths, _dedupe(list(zip(*levels))))
    if name in COMPILE_OPTIONS:
        values = _dedupe([check_compile_option(name, v) for v in expand_levels(spec)])
        return Axis(name, [name], [COMPILE_OPTION_PREFIX + name], [(v,) for v in values])
    path = config_keys.resolve(name)
    field = config_keys.key_table()[path]
    values = _dedupe([check_value(v, field) for v in expand_levels(spec)])
    return Axis(name, [name], [path], [(v,) for v in values])
