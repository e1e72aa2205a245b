"""Pictures of sweep results: the Pareto front of two metrics (lower is better for both,
e.g. latency vs energy) and a heat map of one metric over two axes. PNG via matplotlib's
Agg backend, so no display is needed."""
import numpy as np


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def axis_columns(table):
    """The sweep's axis columns: the results file puts them between `precision` and `status`."""
    cols = list(table.columns)
    if "precision" in cols and "status" in cols:
        return cols[cols.index("precision") + 1:cols.index("status")]
    return []


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


def _ok(table, *columns):
    rows = table[table["status"] == "ok"] if "status" in table.columns else table
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
        ax.set_xticks(range(len(grid.columns)), [f"{v:g}" for v in grid.columns])
        ax.set_yticks(range(len(grid.index)), [f"{v:g}" for v in grid.index])
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
