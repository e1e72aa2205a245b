"""Pictures and tables of sweep results: Pareto fronts (two metrics, or every pair of a
sweep's objectives, each minimised or maximised), the front over all objectives as a table,
and a heat map of one metric over two axes. PNG via matplotlib's Agg backend, so no display
is needed."""
import itertools

import numpy as np

from .sweep_metrics import direction


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def axis_columns(table):
    """The sweep's axis columns: the results file puts them between `precision` and `status`;
    `weights` and `precision` (compile options, written before them) count, after them, where they vary."""
    cols = list(table.columns)
    if "precision" in cols and "status" in cols:
        options = [c for c in ("weights", "precision") if c in cols and table[c].nunique() > 1]
        return list(dict.fromkeys(cols[cols.index("precision") + 1:cols.index("status")] + options))
    return []


def _tick(value):
    return str(value) if isinstance(value, str) else f"{value:g}"


def heatmap_axes(table):
    """The first two axis columns that vary independently (zipped keys move together and
    would only fill a diagonal); [] when there are none."""
    columns = [c for c in axis_columns(table) if table[c].nunique() > 1]
    for i, x in enumerate(columns):
        for y in columns[i + 1:]:
            pairs = len(table[[x, y]].drop_duplicates())
            if pairs > max(table[x].nunique(), table[y].nunique()):
                return [x, y]
    return []


def pareto_mask(x, y):
    """True where no other point is at least as good in both and better in one (minimising)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    order = np.lexsort((y, x))
    mask = np.zeros(len(x), bool)
    best_y = np.inf
    for i in order:
        if y[i] < best_y:
            mask[i] = True
            best_y = y[i]
    return mask


def dominated_mask(values):
    """values: n x k, every column minimised. True where another row is at least as good in
    every column and better in one."""
    v = np.asarray(values, float)
    out = np.zeros(len(v), bool)
    for i in range(len(v)):
        no_worse = np.all(v <= v[i], axis=1)
        better = np.any(v < v[i], axis=1)
        out[i] = bool(np.any(no_worse & better))
    return out


def _minimised(rows, objectives):
    """The objective columns, negated where more is better."""
    return np.column_stack([rows[c].to_numpy(float) * (-1.0 if sense == "max" else 1.0) for c, sense in objectives])


def pareto_front(table, objectives):
    """The rows no other row of the same model beats in every objective ([(column, "min"|
    "max")]), feasible points only when the table has a `feasible` column; sorted by model and
    the first objective."""
    import pandas as pd

    rows = _ok(table, *(c for c, _ in objectives))
    fronts = []
    for model in dict.fromkeys(rows["model"]):
        group = rows[rows["model"] == model]
        fronts.append(group[~dominated_mask(_minimised(group, objectives))])
    if not fronts:
        return rows.iloc[0:0]
    return pd.concat(fronts).sort_values(["model", objectives[0][0]], ascending=[True, objectives[0][1] == "min"])


def format_front(front, objectives, max_rows=40):
    """The front as a text table: model, the axis columns, the objectives."""
    # How a row was compiled, whenever a sweep tells (weights, or a precision other than int8).
    tells = "weights" in front.columns or ("precision" in front.columns and (front["precision"] != "int8").any())
    compiled = [c for c in ("weights", "precision") if tells and c in front.columns]
    columns = ["model", *[c for c in axis_columns(front) if c in front.columns], *compiled, *(c for c, _ in objectives)]
    columns = list(dict.fromkeys(columns))
    shown = front[columns].head(max_rows)
    text = shown.to_string(index=False, float_format=lambda v: f"{v:.4g}")
    if len(front) > max_rows:
        text += f"\n... {len(front) - max_rows} more rows"
    return text


def plot_pareto_pairs(table, out_png, objectives):
    """One panel per (objective pair, model): every feasible point and the 2-D front of the
    pair; returns the number of panels."""
    plt = _pyplot()
    rows = _ok(table, *(c for c, _ in objectives))
    if rows.empty:
        raise ValueError("no successful point has every objective")
    models = list(dict.fromkeys(rows["model"]))
    pairs = list(itertools.combinations(objectives, 2))
    fig, axes = plt.subplots(len(pairs), len(models), figsize=(5 * len(models), 4 * len(pairs)), squeeze=False)
    for r, ((x, sx), (y, sy)) in enumerate(pairs):
        for ax, model in zip(axes[r], models):
            group = rows[rows["model"] == model]
            mask = ~dominated_mask(_minimised(group, [(x, sx), (y, sy)]))
            front = group[mask].sort_values(x)
            ax.scatter(group[x], group[y], s=10, alpha=0.35, color="tab:blue", label=f"{len(group)} points")
            ax.plot(front[x], front[y], "o-", color="tab:red", markersize=4, label=f"front ({len(front)})")
            ax.set_xlabel(f"{x} ({'lower' if sx == 'min' else 'higher'} is better)", fontsize=8)
            ax.set_ylabel(f"{y} ({'lower' if sy == 'min' else 'higher'} is better)", fontsize=8)
            ax.set_title(f"{model}: {y} vs {x}", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    plt.close(fig)
    return len(pairs) * len(models)


def objectives_of(table, columns=None):
    """[(column, sense)]: the given columns, else the sweep's (stored with the results), else
    latency and energy. A column's sense is its own (sweep_metrics.METRICS)."""
    if columns:
        return [(c, direction(c)) for c in columns]
    stored = table.attrs.get("npusim", {}).get("objectives")
    if stored:
        return [(c, s) for c, s in stored]
    return [("latency_us", "min"), ("energy_uj", "min")]


def _ok(table, *columns):
    rows = table[table["status"] == "ok"] if "status" in table.columns else table
    if "feasible" in rows.columns:
        rows = rows[rows["feasible"].astype(bool)]
    for c in columns:
        if c not in rows.columns:
            raise ValueError(f"no column '{c}' in the results (columns: {', '.join(rows.columns)})")
        rows = rows[rows[c].notna()]
    return rows


def plot_pareto(table, out_png, x="latency_us", y="energy_uj"):
    """Every successful point, one panel per model (models differ by orders of magnitude),
    the Pareto front joined by a line; returns the front rows."""
    import pandas as pd

    plt = _pyplot()
    rows = _ok(table, x, y)
    if rows.empty:
        raise ValueError(f"no successful point has both {x} and {y}")
    models = list(dict.fromkeys(rows["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(5.5 * len(models), 4.5), squeeze=False)
    fronts = []
    for ax, model in zip(axes[0], models):
        group = rows[rows["model"] == model]
        front = group[pareto_mask(group[x], group[y])].sort_values(x)
        fronts.append(front)
        ax.scatter(group[x], group[y], s=14, alpha=0.4, color="tab:blue", label=f"{len(group)} points")
        ax.plot(front[x], front[y], "o-", color="tab:red", markersize=5, label=f"Pareto front ({len(front)})")
        ax.set_xlabel(x)
        ax.set_ylabel(y)
        ax.set_title(f"{model}: {y} vs {x} (lower is better)", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
    plt.close(fig)
    return pd.concat(fronts)


def plot_heatmap(table, out_png, x_axis, y_axis, metric="latency_us", reduce="min"):
    """`metric` over two axes, one panel per model; other axes are reduced (min by default:
    the best the other axes can do at each cell)."""
    plt = _pyplot()
    rows = _ok(table, x_axis, y_axis, metric)
    if rows.empty:
        raise ValueError(f"no successful point has {metric}")
    models = list(dict.fromkeys(rows["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(5.5 * len(models), 4.5), squeeze=False)
    for ax, model in zip(axes[0], models):
        grid = rows[rows["model"] == model].pivot_table(index=y_axis, columns=x_axis, values=metric, aggfunc=reduce)
        image = ax.imshow(grid.values, origin="lower", aspect="auto", cmap="viridis")
        ax.set_xticks(range(len(grid.columns)), [_tick(v) for v in grid.columns])
        ax.set_yticks(range(len(grid.index)), [_tick(v) for v in grid.index])
        for (i, j), value in np.ndenumerate(grid.values):
            if not np.isnan(value):
                ax.text(j, i, f"{value:.3g}", ha="center", va="center", fontsize=7, color="white")
        ax.set_xlabel(x_axis)
        ax.set_ylabel(y_axis)
        ax.set_title(f"{model}: {reduce} {metric}")
        fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out_png, dpi=120)
    plt.close(fig)
