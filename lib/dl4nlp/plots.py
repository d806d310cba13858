"""Figures shared by the notebooks: one house style, a presentation style, and plots.

``use_style('presentation')`` switches every later figure to large fonts and
thick lines for projecting in class (or set ``DL4NLP_STYLE=presentation``
before starting Jupyter). Every plotting function takes an optional ``ax`` and
returns the figure, so a widget can redraw it and a test can inspect it.

>>> fig = plot_curves({"small": ([1e6, 1e7], [2.0, 1.6]), "large": ([1e6, 1e7], [1.9, 1.3])}, xlabel="tokens")
>>> ax = fig.axes[0]
>>> [line.get_label() for line in ax.lines], ax.get_xscale(), ax.get_xlabel()
(['small', 'large'], 'log', 'tokens')
>>> plt.close(fig)  # a figure made outside a notebook stays open until closed
"""

from __future__ import annotations

import functools
import html
import os
from typing import Mapping, Optional, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PathCollection
from matplotlib.font_manager import FontProperties
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import Affine2D

from dl4nlp._checks import (
    check_array,
    check_bool,
    check_int,
    check_number,
    check_sequence,
    check_str,
    check_type,
    given,
)
from dl4nlp.autograd import Value, topological_order

STYLE_ENV_VAR = "DL4NLP_STYLE"
STYLES: dict[str, dict] = {
    "notebook": {
        "figure.figsize": (7.0, 4.0),
        "figure.dpi": 100,
        "font.size": 10,
        "axes.titlesize": 11,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "lines.linewidth": 1.8,
        "axes.spines.top": False,
        "axes.spines.right": False,
    },
    "presentation": {
        "figure.figsize": (10.0, 5.6),
        "figure.dpi": 100,
        "font.size": 16,
        "axes.titlesize": 18,
        "axes.labelsize": 16,
        "xtick.labelsize": 14,
        "ytick.labelsize": 14,
        "legend.fontsize": 14,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "lines.linewidth": 3.0,
        "lines.markersize": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    },
}


def use_style(name: Optional[str] = None) -> str:
    """Apply a figure style: ``'notebook'`` (default) or ``'presentation'``.

    With no name, ``DL4NLP_STYLE`` chooses (falling back to ``'notebook'``).
    Returns the name applied.
    """
    name = name or os.environ.get(STYLE_ENV_VAR) or "notebook"
    if not isinstance(name, str) or name not in STYLES:
        raise ValueError(f"style must be one of {tuple(STYLES)}; got {name!r}")
    plt.rcParams.update(plt.rcParamsDefault)
    plt.rcParams.update(STYLES[name])
    return name


def _axes(ax: Optional[plt.Axes], figsize: Optional[tuple] = None) -> tuple[plt.Figure, plt.Axes]:
    if ax is not None:
        check_type("ax", ax, plt.Axes, "a matplotlib Axes or None")
        return ax.figure, ax
    fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


# --- computational graphs (notebook 01), drawn with matplotlib alone ---------
OP_SYMBOLS = {"sigmoid": "σ", "**-1": "1/x", "**2": "x²"}


def _check_mapping(name: str, value, what: str) -> None:
    check_type(name, value, Mapping, what)
    if not value:
        raise ValueError(f"{name} must not be empty; got {{}}")


def _check_cmap(cmap: str) -> None:
    if not isinstance(cmap, str) or cmap not in matplotlib.colormaps:
        raise ValueError(f"cmap must be the name of a matplotlib colour map, e.g. 'viridis'; got {given(cmap)}")


def _folded_constants(order: Sequence) -> dict[int, object]:
    """The constants drawn inside their gate, as CS231n draws "+1" and "*-1": an unlabelled leaf used
    once, by a two-input operation whose other input is not such a leaf. Maps the gate's id to the constant."""
    uses: dict[int, int] = {}
    for node in order:
        for parent in node.inputs:
            uses[id(parent)] = uses.get(id(parent), 0) + 1

    def is_constant(node) -> bool:
        return not node.inputs and not getattr(node, "label", "") and uses.get(id(node), 0) == 1

    folded = {}
    for node in order:
        if len(node.inputs) == 2 and node.op in ("+", "*"):
            constants = [p for p in node.inputs if is_constant(p)]
            if len(constants) == 1:
                folded[id(node)] = constants[0]
    return folded


def _gate_symbol(node, constant) -> str:
    """The gate's label: '+1', '*-1' for a folded constant, '1/x' for ** -1, else the operation's name."""
    if constant is not None:
        return f"{node.op}{constant.data:g}"
    return OP_SYMBOLS.get(node.op, node.op)


def _graph_layout(root: Value, hidden: frozenset = frozenset()) -> dict[int, tuple[float, float]]:
    """Column = longest path from a leaf (a leaf sits just left of its first consumer);
    rows spread evenly within a column. Nodes whose id is in ``hidden`` are not placed."""
    order = [node for node in topological_order(root) if id(node) not in hidden]
    column: dict[int, int] = {}
    for node in order:
        column[id(node)] = 1 + max((column[id(p)] for p in node.inputs if id(p) not in hidden), default=-1)
    first_use: dict[int, int] = {}
    for node in order:
        for parent in node.inputs:
            if id(parent) in hidden:
                continue
            first_use[id(parent)] = min(first_use.get(id(parent), column[id(node)]), column[id(node)])
    for node in order:
        if not node.inputs and id(node) in first_use:
            column[id(node)] = first_use[id(node)] - 1
    by_column: dict[int, list[Value]] = {}
    for node in order:
        by_column.setdefault(column[id(node)], []).append(node)
    positions = {}
    tallest = max(len(nodes) for nodes in by_column.values())
    for col, nodes in by_column.items():
        offset = (tallest - len(nodes)) / 2
        for row, node in enumerate(nodes):
            positions[id(node)] = (col * 3.2, -(row + offset) * 1.6)
    return positions


def draw_graph(root: Value, ax: Optional[plt.Axes] = None, show_grad: bool = True, title: str = "") -> plt.Figure:
    """Draw the graph behind ``root``: a box per value (name, forward value in
    black, gradient below it) and a circle per operation (a gate), inputs on the left.

    As in CS231n's circuits, a constant that enters a ``+`` or ``*`` is written
    inside its gate ("+1", "*-1") instead of in a box of its own (a constant
    has no gradient worth drawing), and ``x ** -1`` is the gate "1/x".
    ``root`` is a ``Value`` or any engine's node with ``.data``, ``.grad``,
    ``.inputs`` and ``.op`` (a ``.label`` is optional).
    """
    if not all(hasattr(root, name) for name in ("data", "grad", "inputs", "op")):  # a Value, or any engine's node
        raise TypeError(f"root must be a graph node, a Value (with .data, .grad, .inputs, .op); got {given(root)}")
    check_bool("show_grad", show_grad)
    if ax is not None:
        _axes(ax)
    folded = _folded_constants(topological_order(root))
    hidden = frozenset(id(constant) for constant in folded.values())
    order = [node for node in topological_order(root) if id(node) not in hidden]
    positions = _graph_layout(root, hidden)
    width = max(x for x, _ in positions.values()) + 2.5
    height = -min(y for _, y in positions.values()) + 1.5
    fig, ax = _axes(ax, figsize=(min(1.6 + 1.25 * width, 16), min(1.2 + 1.0 * height, 9)))
    box = dict(boxstyle="round,pad=0.35", facecolor="#eef3fb", edgecolor="#3a5a8c")
    for node in order:
        x, y = positions[id(node)]
        label = getattr(node, "label", "")
        text = f"{label + ' = ' if label else ''}{node.data:.4g}"
        if show_grad:
            text += f"\ngrad {node.grad:.4g}"
        ax.text(x, y, text, ha="center", va="center", fontsize=plt.rcParams["font.size"], bbox=box, zorder=3)
        if node.op:
            op_x = x - 1.45
            ax.text(
                op_x,
                y,
                _gate_symbol(node, folded.get(id(node))),
                ha="center",
                va="center",
                zorder=3,
                bbox=dict(boxstyle="circle,pad=0.3", facecolor="#fff4d6", edgecolor="#a07a1a"),
            )
            ax.annotate(
                "",
                xy=(x - 0.75, y),
                xytext=(op_x + 0.25, y),
                arrowprops=dict(arrowstyle="->", color="#555555"),
                zorder=2,
            )
            for parent in node.inputs:
                if id(parent) in hidden:
                    continue
                px, py = positions[id(parent)]
                ax.annotate(
                    "",
                    xy=(op_x - 0.3, y),
                    xytext=(px + 0.75, py),
                    arrowprops=dict(arrowstyle="->", color="#555555"),
                    zorder=1,
                )
    ax.set_xlim(-1.3, width - 1.0)
    ax.set_ylim(-height + 0.6, 0.9)
    ax.axis("off")
    if title:
        ax.set_title(title)
    return fig


# --- gradient flow (notebooks 01 and 03) -------------------------------------
def plot_gradient_norms(
    norms_by_name: Mapping[str, Sequence[float]],
    ax: Optional[plt.Axes] = None,
    xlabel: str = "layer (1 = closest to the input)",
    title: str = "Gradient norm reaching each layer",
) -> plt.Figure:
    """One line per configuration: gradient norm per layer (or time step), log scale."""
    _check_mapping("norms_by_name", norms_by_name, "a mapping from a name to its norms (one per layer)")
    checked = {
        name: check_array(f"norms_by_name[{name!r}]", norms, ndim=1, finite=False, low=0.0)
        for name, norms in norms_by_name.items()
    }
    fig, ax = _axes(ax)
    for name, norms in checked.items():
        ax.plot(
            np.arange(1, len(norms) + 1), np.maximum(norms, np.finfo(float).tiny), marker="o", markersize=3, label=name
        )
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # layers and time steps are whole numbers
    ax.set_xlabel(xlabel)
    ax.set_ylabel("gradient norm (log scale)")
    ax.set_title(title)
    ax.legend(loc="best")
    return fig


# --- scaling laws (notebook 14) ----------------------------------------------
def plot_power_law(
    x: Sequence[float],
    y: Sequence[float],
    fit=None,
    ax: Optional[plt.Axes] = None,
    label: Optional[str] = None,
    color: Optional[str] = None,
    xlabel: str = "",
    ylabel: str = "held-out loss (nats per character)",
    title: str = "",
) -> plt.Figure:
    """Points on log-log axes and, when ``fit`` (a ``dl4nlp.scaling.PowerLawFit``) is given, its curve
    across the points' range, dashed, labelled with the exponent."""
    x = check_array("x", x, ndim=1, low=0.0, low_open=True)  # log axes: positive numbers only
    y = check_array("y", y, ndim=1, low=0.0, low_open=True)
    if y.shape != x.shape:
        raise ValueError(f"y must have one value per x, {len(x)}; got {len(y)}")
    if fit is not None and not (callable(fit) and hasattr(fit, "alpha")):
        raise TypeError(f"fit must be a dl4nlp.scaling.PowerLawFit or None; got {given(fit)}")
    fig, ax = _axes(ax)
    points = ax.plot(x, y, "o", color=color, label=label)[0]
    if fit is not None:
        grid = np.geomspace(x.min(), x.max(), 100)
        ax.plot(
            grid,
            fit(grid),
            "--",
            color=points.get_color(),
            label=f"fit: α = {fit.alpha:.3f} ± {fit.alpha_se:.3f}" + (", with E" if fit.n_params == 3 else ""),
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if label or fit is not None:
        ax.legend(loc="best")
    return fig


def plot_curves(
    curves: Mapping[str, tuple[Sequence[float], Sequence[float]]],
    ax: Optional[plt.Axes] = None,
    xlabel: str = "",
    ylabel: str = "held-out loss (nats per character)",
    title: str = "",
    logx: bool = True,
    logy: bool = True,
    colors: Optional[Sequence] = None,
) -> plt.Figure:
    """One line per named curve ``(x, y)``, e.g. loss against tokens or FLOPs for each model size."""
    _check_mapping("curves", curves, "a mapping from a name to its (x, y)")
    check_bool("logx", logx)
    check_bool("logy", logy)
    checked = {}
    for name, curve in curves.items():
        if not isinstance(curve, (tuple, list)) or len(curve) != 2 or np.ndim(curve[0]) == 0:
            raise TypeError(f"curves[{name!r}] must be a pair (x, y) of sequences; got {given(curve)}")
        x = check_array(f"curves[{name!r}] x", curve[0], ndim=1, finite=False, low=0.0, low_open=logx)
        y = check_array(f"curves[{name!r}] y", curve[1], ndim=1, finite=False, low=0.0, low_open=logy)
        if len(x) != len(y):
            raise ValueError(f"curves[{name!r}] must be a pair (x, y) of equal lengths; got {len(x)} and {len(y)}")
        checked[name] = (x, y)
    if colors is not None and len(colors) < len(curves):
        raise ValueError(f"colors must give one colour per curve, {len(curves)}; got {len(colors)}")
    fig, ax = _axes(ax)
    if colors is None:
        colors = plt.cm.viridis(np.linspace(0, 0.9, max(len(curves), 1)))
    for (name, (x, y)), color in zip(checked.items(), colors):
        ax.plot(x, y, marker=".", color=color, label=name)
    ax.set_xscale("log" if logx else "linear")
    ax.set_yscale("log" if logy else "linear")
    if logy:
        plain_log_ticks(ax)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return fig


def plain_log_ticks(ax: plt.Axes, axis: str = "y") -> None:
    """Label a log axis that spans less than a factor 10 (a loss from 2 to 4, say) with plain numbers
    (2, 3, 4) instead of matplotlib's 2×10⁰, 3×10⁰, 4×10⁰; wider axes keep their powers of ten."""
    check_type("ax", ax, plt.Axes, "a matplotlib Axes")
    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y'; got {axis!r}")
    low, high = ax.get_ylim() if axis == "y" else ax.get_xlim()
    if low > 0 and high / low < 10:
        target = ax.yaxis if axis == "y" else ax.xaxis
        plain = FuncFormatter(lambda value, _: f"{value:g}")
        target.set_major_formatter(plain)
        target.set_minor_formatter(plain)


def plot_isoflop_profiles(profiles: Sequence, ax: Optional[plt.Axes] = None, title: str = "") -> plt.Figure:
    """Each IsoFLOP profile (``dl4nlp.sweep_analysis.Profile``): final loss against total parameters, its
    parabola in log N, and the vertex as a star; one colour per compute budget."""
    check_sequence("profiles", profiles, nonempty=False, what="a list of dl4nlp.sweep_analysis.Profile")
    if not profiles:
        raise ValueError("profiles must hold at least one IsoFLOP profile; got none")
    for profile in profiles:
        if not all(hasattr(profile, name) for name in ("level", "n", "loss", "by_n")):
            raise TypeError(f"each of profiles must be a dl4nlp.sweep_analysis.Profile; got {given(profile)}")
    check_str("title", title)
    fig, ax = _axes(ax)
    for profile, color in zip(profiles, plt.cm.plasma(np.linspace(0, 0.85, len(profiles)))):
        ax.plot(profile.n, profile.loss, "o", color=color, label=f"C = {profile.level:.1e}")
        grid = np.geomspace(profile.n.min(), profile.n.max(), 60)
        ax.plot(grid, profile.by_n(grid), "-", color=color, alpha=0.7)
        ax.plot(profile.by_n.n_opt, profile.by_n.loss, "*", color=color, markersize=14, markeredgecolor="k")
    ax.set_xscale("log")
    ax.set_xlabel("total parameters N_T")
    ax.set_ylabel("final held-out loss (nats per character)")
    ax.set_title(title or "IsoFLOP profiles (star: the parabola's vertex)")
    ax.legend(loc="best", fontsize="x-small")
    return fig


def plot_allocation(allocation, ax: Optional[plt.Axes] = None, title: str = "") -> plt.Figure:
    """Compute-optimal N and D against compute (a ``dl4nlp.sweep_analysis.Allocation``) with their fitted
    power laws N_opt ∝ C^a and D_opt ∝ C^b."""
    for name in ("compute", "n_opt", "d_opt", "a", "b"):
        if not hasattr(allocation, name):
            raise TypeError(f"allocation must be a dl4nlp.sweep_analysis.Allocation; got {type(allocation).__name__}")
    check_str("title", title)
    fig, ax = _axes(ax)
    c = np.asarray(allocation.compute, dtype=float)
    grid = np.geomspace(c.min(), c.max(), 50)
    for values, fit, name, color, marker in (
        (allocation.n_opt, allocation.a, "N_opt", "tab:blue", "o"),
        (allocation.d_opt, allocation.b, "D_opt", "tab:orange", "s"),
    ):
        ax.plot(c, values, marker, color=color, label=f"{name} ∝ C^{fit.value:.2f} ± {fit.se:.2f}")
        ax.plot(grid, fit(grid), "-", color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training compute C (FLOPs)")
    ax.set_title(title)
    ax.legend(loc="best", fontsize="small")
    return fig


# --- positional encodings (notebook 09) and BERT (notebook 13) ---------------
def plot_position_heatmap(
    table,
    ax: Optional[plt.Axes] = None,
    title: str = "Positional encoding",
    xlabel: str = "dimension",
    ylabel: str = "position",
    highlight: Optional[int] = None,
    cmap: str = "RdBu_r",
) -> plt.Figure:
    """A (positions × dimensions) table as a heatmap in [-1, 1]; ``highlight`` outlines one position's row."""
    table = check_array("table", table, ndim=2, expected="shape (positions, dimensions)")
    if highlight is not None:
        check_int("highlight", highlight, 0, table.shape[0] - 1)
    _check_cmap(cmap)
    fig, ax = _axes(ax)
    image = ax.imshow(table, aspect="auto", cmap=cmap, vmin=-1, vmax=1, interpolation="nearest")
    if highlight is not None:
        ax.axhline(highlight - 0.5, color="black", linewidth=1)
        ax.axhline(highlight + 0.5, color="black", linewidth=1)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(False)
    fig.colorbar(image, ax=ax, fraction=0.04)
    return fig


def plot_accuracy_by_position(
    accuracy_by_name: Mapping[str, Sequence[float]],
    train_length: Optional[int] = None,
    chance: Optional[float] = None,
    first_position: int = 0,
    ax: Optional[plt.Axes] = None,
    title: str = "Accuracy at each position",
) -> plt.Figure:
    """One line per model: accuracy (0-1) at each position (the first is ``first_position``);
    the longest training length and chance marked."""
    _check_mapping("accuracy_by_name", accuracy_by_name, "a mapping from a model's name to its accuracies")
    accuracy_by_name = {
        name: check_array(f"accuracy_by_name[{name!r}]", a, ndim=1, finite=False, low=0.0, high=1.0)
        for name, a in accuracy_by_name.items()
    }
    if train_length is not None:
        check_int("train_length", train_length)
    if chance is not None:
        check_number("chance", chance, 0.0, 1.0)
    check_int("first_position", first_position, low=None)
    fig, ax = _axes(ax)
    for name, accuracy in accuracy_by_name.items():
        ax.plot(
            first_position + np.arange(len(accuracy)),
            np.asarray(accuracy, dtype=float),
            marker="o",
            markersize=3,
            label=name,
        )
    if train_length is not None:
        ax.axvline(train_length - 0.5, color="gray", linestyle="--", label="longest training length")
    if chance is not None:
        ax.axhline(chance, color="gray", linestyle=":", label="chance")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("position in the sequence")
    ax.set_ylabel("accuracy")
    ax.set_title(title)
    ax.legend(loc="best")
    return fig


def plot_parameter_breakdown(
    counts_by_model: Mapping[str, Mapping[str, int]],
    ax: Optional[plt.Axes] = None,
    title: str = "Where the parameters are",
) -> plt.Figure:
    """Horizontal stacked bars: one bar per model, one segment per component, in millions of parameters."""
    _check_mapping("counts_by_model", counts_by_model, "a mapping from a model's name to its counts by component")
    for model, counts in counts_by_model.items():
        check_type(f"counts_by_model[{model!r}]", counts, Mapping, "a mapping from component to parameter count")
        for component, count in counts.items():
            check_number(f"counts_by_model[{model!r}][{component!r}]", count, 0.0)
    fig, ax = _axes(ax)
    models = list(counts_by_model)
    components = list(dict.fromkeys(c for counts in counts_by_model.values() for c in counts))
    left = np.zeros(len(models))
    colours = plt.get_cmap("tab10")
    for i, component in enumerate(components):
        values = np.array([counts_by_model[m].get(component, 0) / 1e6 for m in models])
        ax.barh(models, values, left=left, label=component, color=colours(i % 10))
        left += values
    ax.set_xlabel("parameters (millions)")
    ax.set_title(title)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    ax.grid(False, axis="y")
    return fig


# --- attention (notebooks 06 and 08) -----------------------------------------
@functools.lru_cache(maxsize=1024)
def _label_outline(label: str, size: float = 8.0) -> Path:
    """The outline of a short label in points, centred on (0, 0) (cached: a widget redraws the same ones)."""
    path = TextPath((0, 0), label, size=size)
    box = path.get_extents()
    return Path(path.vertices - np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]), path.codes)


def plot_attention(
    weights,
    source_labels: Sequence[str],
    target_labels: Sequence[str],
    ax: Optional[plt.Axes] = None,
    title: str = "",
    annotate: bool = False,
    vmax: Optional[float] = None,
) -> plt.Figure:
    """Heatmap of attention weights: one row per output (query) position, one column per input (key).

    ``weights`` is (T_out, T_in) (a tensor or an array); a label " " is shown
    as "␣", and input labels longer than two characters (such as "<eos>") are
    turned upright so they do not overlap; ``annotate=True`` writes each weight in
    its cell (for small matrices). The colour scale runs from 0 to ``vmax``
    (default: the largest weight); ``vmax=1`` keeps a diffuse row from looking as
    sharp as a peaked one, and makes heatmaps comparable.
    """
    check_sequence("source_labels", source_labels, what="a list of labels, one per input (key)")
    check_sequence("target_labels", target_labels, what="a list of labels, one per output (query)")
    weights = check_array("weights", weights, ndim=2, low=0.0, expected="shape (T_out, T_in)")
    check_bool("annotate", annotate)
    if weights.shape != (len(target_labels), len(source_labels)):
        raise ValueError(
            f"weights must have shape ({len(target_labels)}, {len(source_labels)}) to match the "
            f"labels; got {weights.shape}"
        )
    fig, ax = _axes(ax, figsize=(max(3.0, 0.32 * len(source_labels) + 1.6), max(2.5, 0.32 * len(target_labels) + 1.2)))
    if vmax is not None and not (isinstance(vmax, (int, float)) and not isinstance(vmax, bool) and vmax > 0):
        raise ValueError(f"vmax must be a positive number or None (the largest weight); got {vmax!r}")
    top = max(1e-12, weights.max()) if vmax is None else float(vmax)
    image = ax.imshow(weights, cmap="Blues", vmin=0.0, vmax=top, aspect="auto")
    ax.set_xticks(range(len(source_labels)), ["␣" if s == " " else s for s in source_labels])  # visible spaces
    ax.set_yticks(range(len(target_labels)), ["␣" if s == " " else s for s in target_labels])
    ax.tick_params(axis="x", labelrotation=0)
    for label in ax.get_xticklabels():
        if len(label.get_text()) > 2:
            label.set_rotation(90)
    ax.grid(False)
    ax.set_xlabel("input (keys)")
    ax.set_ylabel("output (queries)")
    if annotate:  # one collection of outlines, not a Text artist per cell: a widget redraws twice as fast
        cells = [(j, i) for i in range(weights.shape[0]) for j in range(weights.shape[1])]
        size = 0.833 * plt.rcParams["font.size"]  # matplotlib's "small"
        ax.add_collection(
            PathCollection(
                [_label_outline(f"{weights[i, j]:.2f}", size) for j, i in cells],
                offsets=cells,
                offset_transform=ax.transData,
                transform=Affine2D().scale(1 / 72) + fig.dpi_scale_trans,  # outlines in points
                facecolors=["white" if weights[i, j] > 0.6 * top else "black" for j, i in cells],
                linewidths=0,
                label=" ".join(f"{weights[i, j]:.2f}" for j, i in cells),
            ),
            autolim=False,
        )
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    if title:
        ax.set_title(title)
    return fig


# --- heatmaps and coloured text (notebook 05) --------------------------------
def plot_heatmap(
    values,
    ax: Optional[plt.Axes] = None,
    xlabels: Optional[Sequence[str]] = None,
    ylabels: Optional[Sequence[str]] = None,
    title: str = "",
    cmap: str = "viridis",
    vmin: Optional[float] = None,
    vmax: Optional[float] = None,
    colorbar: bool = True,
) -> plt.Figure:
    """A matrix (rows, columns) as coloured cells, e.g. gate values of units (rows) over characters (columns)."""
    values = check_array("values", values, ndim=2, finite=False, expected="2 dimensions, a 2-D matrix")
    _check_cmap(cmap)
    check_bool("colorbar", colorbar)
    if vmin is not None and vmax is not None and not check_number("vmin", vmin) <= check_number("vmax", vmax):
        raise ValueError(f"vmin must be at most vmax; got vmin={vmin}, vmax={vmax}")
    for name, labels, size in [("xlabels", xlabels, values.shape[1]), ("ylabels", ylabels, values.shape[0])]:
        if labels is not None and len(labels) != size:
            raise ValueError(
                f"{name} must have {size} entries, one per {'column' if name[0] == 'x' else 'row'}; got {len(labels)}"
            )
    fig, ax = _axes(ax)
    image = ax.imshow(values, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    ax.grid(False)
    if xlabels is not None:
        ax.set_xticks(range(len(xlabels)), [repr(x)[1:-1] if x in "\n\t " else x for x in xlabels])
    if ylabels is not None:
        ax.set_yticks(range(len(ylabels)), ylabels)
    if colorbar:
        fig.colorbar(image, ax=ax, fraction=0.03, pad=0.02)
    if title:
        ax.set_title(title)
    return fig


def colour_text(text: str, values, vmin: float = -1.0, vmax: float = 1.0, cmap: str = "RdBu_r", title: str = "") -> str:
    """HTML for ``text`` with each character's background coloured by its value (blue low, red high).

    Show it with ``IPython.display.HTML(colour_text(...))``; newlines are kept.
    Hovering a character shows its value.
    """
    check_str("text", text)
    _check_cmap(cmap)
    values = check_array("values", values, ndim=1, nonempty=False, expected=f"shape ({len(text)},)")
    if values.shape != (len(text),):
        raise ValueError(f"values must hold one number per character, shape ({len(text)},); got {values.shape}")
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin; got vmin={vmin}, vmax={vmax}")
    colours = plt.get_cmap(cmap)(np.clip((values - vmin) / (vmax - vmin), 0.0, 1.0))
    spans = []
    for char, value, (r, g, b, _) in zip(text, values, colours):
        shown = "⏎<br>" if char == "\n" else html.escape(char).replace(" ", "&nbsp;")
        spans.append(
            f'<span title="{value:.2f}" style="background-color: rgb({int(255 * r)},{int(255 * g)},'
            f'{int(255 * b)})">{shown}</span>'
        )
    heading = f"<div><b>{html.escape(title)}</b></div>" if title else ""
    return (
        f'{heading}<div style="font-family: monospace; line-height: 1.5; color: black; '
        f'background: white; padding: 4px">{"".join(spans)}</div>'
    )


@functools.lru_cache(maxsize=512)
def _glyph(char: str, size: float = 8.0) -> Path:
    """The outline of one monospace character in points, centred on (0, 0) (cached: a widget redraws the same ones)."""
    if char.isspace():
        return Path(np.zeros((1, 2)), [Path.MOVETO])  # nothing to draw
    font = FontProperties(family="monospace")
    path = TextPath((0, 0), char, size=size, prop=font)
    advance = (
        TextPath((0, 0), "MM", size=size, prop=font).get_extents().width
        - TextPath((0, 0), "M", size=size, prop=font).get_extents().width
    )  # one character's width
    middle = size * 0.35  # about half the height of a lowercase letter above the baseline
    return Path(path.vertices - np.array([advance / 2, middle]), path.codes)


def plot_coloured_text(
    text: str,
    values,
    ax: Optional[plt.Axes] = None,
    vmin: float = -1.0,
    vmax: float = 1.0,
    cmap: str = "RdBu_r",
    title: str = "",
) -> plt.Figure:
    """The figure version of ``colour_text`` (for widgets): one coloured box per character, lines as in ``text``."""
    check_str("text", text, nonempty=True)
    _check_cmap(cmap)
    values = check_array("values", values, ndim=1, expected=f"shape ({len(text)},)")
    if values.shape != (len(text),):
        raise ValueError(f"values must hold one number per character, shape ({len(text)},); got {values.shape}")
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin; got vmin={vmin}, vmax={vmax}")
    lines = text.split("\n")
    width, height = max(len(line) for line in lines) + 1, len(lines)
    fig, ax = _axes(ax, figsize=(min(0.11 * width + 0.5, 16), 0.22 * height + 0.6))
    colours = plt.get_cmap(cmap)(np.clip((values - vmin) / (vmax - vmin), 0.0, 1.0))  # (N, 4)
    image = np.ones((height, width, 4))  # white where there is no character
    row = column = 0
    shown, offsets = [], []
    for char, colour in zip(text, colours):
        image[row, column] = colour
        shown.append("⏎" if char == "\n" else char)
        offsets.append((column, row))
        row, column = (row + 1, 0) if char == "\n" else (row, column + 1)
    ax.imshow(image, aspect="auto", interpolation="nearest")
    # One collection of glyph outlines, not one Text artist per character: ten times fewer
    # artists to lay out, so a widget redraws a few hundred characters well within budget.
    glyphs = PathCollection(
        [_glyph(char) for char in shown],
        offsets=offsets,
        offset_transform=ax.transData,
        transform=Affine2D().scale(1 / 72) + fig.dpi_scale_trans,  # glyphs in points
        facecolors="black",
        linewidths=0,
        label="".join(shown),
    )
    ax.add_collection(glyphs, autolim=False)
    ax.axis("off")
    if title:
        ax.set_title(title, loc="left")
    return fig
