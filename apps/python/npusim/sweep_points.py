"""The design points of a sweep: the axes' levels combined on a grid or sampled (uniform
random or Latin hypercube, with a seed), kept only where every constraint holds, and each
crossed with every model. A point's id is a hash of its model and axis values, so a rerun
recognises the points it already has."""
import hashlib
import itertools
import json
import math
import random
from dataclasses import dataclass, field

from . import config_key_paths as config_keys
from .config import with_values
from .errors import Error, SweepSpecError
from .safe_expression import ExpressionError
from .sweep_axes import COMPILE_OPTION_PREFIX
from .sweep_metrics import DESIGN_METRICS, design_metrics

_MAX_GRID = 10_000_000  # a grid larger than this must be sampled (random or lhs)


@dataclass
class DesignPoint:
    values: dict      # {column as written in the spec: value}
    overrides: dict   # {config key path: value}
    compile: dict = field(default_factory=dict)  # {compile option (precision, weights, group_size): value}


@dataclass
class SweepPoint:
    id: str
    index: int        # order in the sweep; results are sorted by it
    model: object     # sweep_spec.ModelEntry
    design: DesignPoint


def _design(axes, levels):
    values, overrides, options = {}, {}, {}
    for axis, level in zip(axes, levels):
        for column, path, value in zip(axis.columns, axis.paths, axis.values[level]):
            values[column] = value
            if path.startswith(COMPILE_OPTION_PREFIX):
                options[path[len(COMPILE_OPTION_PREFIX):]] = value
            else:
                overrides[path] = value
    return DesignPoint(values, overrides, options)


def constraint_names(spec, design):
    """What a constraint may read: every config key by path, by unique short name and by
    alias, each axis column as written, and macs = rows * cols."""
    flat = dict(spec.base_values)
    flat.update(design.overrides)
    names = dict(flat)
    for short, path in config_keys.short_names().items():
        if path in flat:
            names[short] = flat[path]
    names.update(design.values)
    names["macs"] = flat["mac_array.rows"] * flat["mac_array.cols"]
    return names


def _with_design_costs(spec, design, names):
    """Adds the design costs known before running (npusim.Config.costs(): area, leakage,
    static power) to `names`; False for a point whose config is invalid (run_sweep records it
    as failed rather than dropping it here)."""
    try:
        config = with_values(spec.base_config, design.overrides, origin=f"{spec.path} point {design.values}")
    except Error:
        return False
    needed = set().union(*(e.names() for _, e in spec.constraints)) & DESIGN_METRICS
    for column, value in design_metrics(config).items():
        if value is None and column in needed:
            raise SweepSpecError(f"{spec.path}: constraints: {column} is not known for these configs "
                                 "(give the base config an area: section or energy: {model: derived})")
        names[column] = value
    return True


def _accepts(spec, design):
    names = constraint_names(spec, design)
    if any(e.names() & DESIGN_METRICS for _, e in spec.constraints) and not _with_design_costs(spec, design, names):
        return True
    for i, (text, expression) in enumerate(spec.constraints):
        try:
            if not expression.evaluate(names):
                return False
        except ExpressionError as e:
            raise SweepSpecError(f"{spec.path}: constraints[{i}]: '{text}': {e}") from None
        except (ArithmeticError, TypeError, ValueError) as e:
            raise SweepSpecError(f"{spec.path}: constraints[{i}]: '{text}': {e} at {design.values}") from None
    return True


def _grid_levels(axes):
    return itertools.product(*(range(len(a.values)) for a in axes))


def _lhs_levels(axes, n, rng):
    """Latin hypercube over discrete levels: each axis's range is cut into n strata, each
    stratum used once, and a stratum maps to the level it falls in."""
    columns = []
    for axis in axes:
        strata = list(range(n))
        rng.shuffle(strata)
        columns.append([min(len(axis.values) - 1, int((s + rng.random()) / n * len(axis.values))) for s in strata])
    return list(zip(*columns)) if axes else [()]


def design_points(spec):
    """The sweep's design points in a fixed order (same spec and seed, same points)."""
    axes = spec.axes
    grid_size = math.prod(len(a.values) for a in axes)
    method = spec.sampling.method
    if method == "grid" or grid_size <= spec.sampling.points:
        if grid_size > _MAX_GRID:
            raise SweepSpecError(f"{spec.path}: axes: the grid has {grid_size} points; use sampling: "
                                 "{method: random, points: N} or lhs")
        candidates = _grid_levels(axes)
    elif method == "random":
        rng = random.Random(spec.sampling.seed)
        chosen = rng.sample(range(grid_size), spec.sampling.points)  # no repeats
        sizes = [len(a.values) for a in axes]

        def unravel(i):
            levels = []
            for size in reversed(sizes):
                i, level = divmod(i, size)
                levels.append(level)
            return tuple(reversed(levels))

        candidates = [unravel(i) for i in chosen]
    else:
        candidates = _lhs_levels(axes, spec.sampling.points, random.Random(spec.sampling.seed))

    points, seen, considered = [], set(), 0
    for levels in candidates:
        if levels in seen:
            continue
        seen.add(levels)
        considered += 1
        design = _design(axes, levels)
        if _accepts(spec, design):
            points.append(design)
    if not points:
        which = (f"'{spec.constraints[0][0]}'" if len(spec.constraints) == 1
                 else "together (" + "; ".join(t for t, _ in spec.constraints) + ")")
        raise SweepSpecError(f"{spec.path}: constraints: {which} reject every one of the {considered} points")
    return points


def point_id(model, design):
    key = {"model": model.label, "precision": model.precision, "input_shapes": model.input_shapes,
           "values": design.overrides}
    # Only when given, so the points of specs without them keep their ids (and resume).
    options = {**model.compile_options(), **design.compile}
    if options:
        key["compile"] = options
    if model.decoder:
        key["decoder"] = model.decoder
    return hashlib.sha1(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]


def sweep_points(spec):
    """Every (model, design point) of the spec."""
    designs = design_points(spec)
    points = []
    for model in spec.models:
        for design in designs:
            points.append(SweepPoint(point_id(model, design), len(points), model, design))
    return points
