"""Runs a sweep on Dask: the points of one compile key in tasks of at most POINTS_PER_TASK,
each compiling the program on its worker (or reusing it there) and running its points; rows
are stored as they finish. A LocalCluster of process workers (one thread
each: one simulation at a time per process) by default, or any running scheduler."""
import contextlib
import hashlib
import logging
import os
import pathlib
import subprocess
import sys
import time

from . import config_key_paths
from .config import config_to_dict, with_values
from .errors import Error
from .sweep_compile import compile_key, compile_values
from .safe_expression import ExpressionError
from .sweep_points import constraint_names, sweep_points
from .sweep_results import ResultStore
from .sweep_spec import load_sweep_spec

# Enough points per task that Dask's per-task cost is small next to the runs; few enough that
# a compile key with many points still spreads over the workers.
POINTS_PER_TASK = 8
from .sweep_worker import run_points


def _find_make_models(spec_path):
    """scripts/make_models.py of the checkout the spec or this package lives in."""
    starts = [pathlib.Path(spec_path).resolve().parent, pathlib.Path(__file__).resolve().parent, pathlib.Path.cwd()]
    for start in starts:
        for d in [start, *start.parents]:
            script = d / "scripts" / "make_models.py"
            if script.is_file():
                return script
    return None


def generate_models(spec, directory):
    """Writes the spec's `generate:` models (once; they are deterministic) and fills in paths."""
    for i, model in enumerate(spec.models):
        if not model.generate:
            continue
        target = pathlib.Path(directory) / f"{model.label}.onnx"
        model.path = str(target)
        if target.exists():
            continue
        script = _find_make_models(spec.path)
        if script is None:
            raise Error(f"{spec.path}: models[{i}].generate: scripts/make_models.py not found; give a path instead")
        work = target.with_name(target.name + ".tmp")
        cmd = [sys.executable, str(script), "--out", str(work), "--only", model.generate]
        if model.input_size:
            cmd += ["--input-size", str(model.input_size)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
            raise Error(f"{spec.path}: models[{i}].generate: {model.generate}: {last}")
        os.replace(work / f"{model.generate}.onnx", target)
        work.rmdir()


def fingerprint(spec):
    """What must not change between a sweep and its resumption."""
    out = {"base config": hashlib.sha1(spec.base_config.yaml().encode()).hexdigest(),
           "timing_only": spec.timing_only}
    if spec.shared_program_keys:  # rows run shared programs: not to be mixed with rows that do not
        out["share_program_across"] = list(spec.shared_program_keys)
    return out


@contextlib.contextmanager
def dask_client(workers=None, scheduler=None):
    from dask.distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    # Workers import npusim from wherever this process found it (e.g. PYTHONPATH=build/python).
    package_parent = str(pathlib.Path(__file__).resolve().parent.parent)
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if package_parent not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([package_parent, *filter(None, paths)])
    with LocalCluster(n_workers=workers or os.cpu_count(), threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


def _progress(total, initial, name, enabled):
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, desc=name, unit="pt", disable=not enabled, smoothing=0.1,
                file=sys.stderr, dynamic_ncols=True)


def run_sweep(spec_path, out, workers=None, scheduler=None, restart=False, progress=True, flush_seconds=2.0,
              client=None, phases=None):
    """Runs (or resumes) the sweep of `spec_path` into `out` and returns the results table.
    phases: a dict to fill with the seconds this process spent per phase (prepare: spec,
    points, configs and compile keys; run: waiting on the workers and storing rows; finish:
    the results table), for scripts/bench_sweep."""
    phases = {} if phases is None else phases
    started = time.perf_counter()
    spec = load_sweep_spec(spec_path)
    points = sweep_points(spec)
    store = ResultStore(out, fingerprint(spec), restart=restart, flush_seconds=flush_seconds)
    done = store.done_ids()
    todo = [p for p in points if p.id not in done]
    order = {p.id: p.index for p in points}
    axis_columns = [c for a in spec.axes for c in a.columns if c != "precision"]
    weights_column = ["weights"] if any(m.weights for m in spec.models) and "weights" not in axis_columns else []
    leading = ["point_id", "model", *weights_column, "precision", *axis_columns, "status", "error"]
    designs = {p.id: p.design for p in points}

    def decorate(table):
        return mark_feasible(spec, designs, table)

    if not todo:
        return store.finish(order, leading, decorate)

    generate_models(spec, store.parts / "models")
    base_tree = config_to_dict(spec.base_config)
    base_values = config_key_paths.flatten(base_tree)
    tasks, compile_for = [], {}
    with _progress(len(points), len(points) - len(todo), spec.name, progress) as bar:
        for p in todo:
            options = p.model.options(p.design.compile)
            row = {"point_id": p.id, "model": p.model.label, **p.design.values, "precision": options["precision"]}
            if weights_column:
                row["weights"] = options["weights"] or "none"
            try:
                config = with_values(spec.base_config, p.design.overrides, origin=f"{spec.path} point {p.id}")
            except Error as e:  # e.g. SRAM not a multiple of its alignment: this point only
                store.add({**row, "status": "failed", "error": f"config: {e}"})
                bar.update()
                continue
            shared = spec.shared_program_keys
            values = compile_values({**base_values, **p.design.overrides}, base_values, shared)
            key = compile_key(p.model, values, options)
            config_yaml = config.yaml()
            if key not in compile_for:
                compile_config = config if not shared else with_values(
                    spec.base_config, {k: v for k, v in p.design.overrides.items() if k not in shared})
                compile_for[key] = (p.model, options, compile_config.yaml())
            if shared:
                row["compiled_for"] = ", ".join(f"{k}={base_values[k]}" for k in shared)
            tasks.append(({"row": row, "config_yaml": config_yaml, "model_path": p.model.path}, key))
        phases["prepare"] = time.perf_counter() - started
        started = time.perf_counter()
        try:
            with (contextlib.nullcontext(client) if client else dask_client(workers, scheduler)) as dask:
                _run_on_dask(dask, tasks, compile_for, spec.timing_only, store, bar)
        finally:
            store.flush()
    phases["run"] = time.perf_counter() - started
    started = time.perf_counter()
    table = store.finish(order, leading, decorate)
    phases["finish"] = time.perf_counter() - started
    return table


def mark_feasible(spec, designs, table):
    """`feasible`: the point ran and meets every constraint on results (area_mm2 <= 4 ...);
    attrs["npusim"]: the objectives and constraints, for `npusim plot`."""
    if len(table):
        feasible = []
        for row in table.to_dict("records"):
            ok = row.get("status") == "ok"
            if ok and spec.result_constraints:
                names = {**constraint_names(spec, designs[row["point_id"]]), **row}
                for text, expression in spec.result_constraints:
                    try:
                        value = expression.evaluate(names)
                    except (ExpressionError, ArithmeticError, TypeError, ValueError) as e:
                        raise Error(f"{spec.path}: constraints: '{text}': {e} (point {row['point_id']})") from None
                    if not value:
                        ok = False
                        break
            feasible.append(ok)
        table = table.copy()
        table["feasible"] = feasible
    table.attrs["npusim"] = {"objectives": [list(o) for o in spec.objectives],
                             "constraints": [t for t, _ in spec.constraints + spec.result_constraints]}
    return table


def _run_on_dask(client, tasks, compile_for, timing_only, store, bar):
    from dask.distributed import as_completed

    by_key = {}
    for point, key in tasks:
        by_key.setdefault(key, []).append(point)
    rows = {}
    for key, points in by_key.items():
        model, options, config_yaml = compile_for[key]
        for i in range(0, len(points), POINTS_PER_TASK):
            chunk = points[i:i + POINTS_PER_TASK]
            future = client.submit(run_points, model, options, config_yaml, key, chunk, timing_only,
                                   key=f"points-{key}-{i // POINTS_PER_TASK}", pure=False)
            rows[future] = [p["row"] for p in chunk]
    for future in as_completed(list(rows)):
        try:
            finished = future.result()
        except Exception as e:  # the worker died (e.g. out of memory) or lost the task
            finished = [{**row, "status": "failed", "error": f"worker: {type(e).__name__}: {e}"[:500]}
                        for row in rows[future]]
        for row in finished:
            store.add(row)
        future.release()
        bar.update(len(finished))
