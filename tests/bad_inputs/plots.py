"""Bad inputs of dl4nlp.plots (shapes and names; a NaN in plotted data is drawn as a gap, as matplotlib does)."""

import matplotlib.pyplot as plt
import numpy as np
import torch

from bad_inputs.harness import cases, vary
from dl4nlp import plots as P
from dl4nlp.autograd import Value


@cases("dl4nlp.plots.use_style")
def _():
    # the argument is called name; the message says what it must be: a style
    yield "name: an unknown style", lambda: P.use_style("dark"), ("style", "'dark'", "notebook")
    yield "name: a number", lambda: P.use_style(3), ("style", "3")


@cases("dl4nlp.plots.draw_graph")
def _():
    yield "root: a float", lambda: P.draw_graph(1.0), ("root", "float")
    yield "root: a list of Values", lambda: P.draw_graph([Value(1.0)]), ("root", "list")
    yield "ax: a string", lambda: P.draw_graph(Value(1.0), ax="left"), ("ax", "str")
    yield "root: a tensor (has .data and .grad, no .inputs)", lambda: P.draw_graph(torch.ones(2)), ("root", "Tensor")


@cases("dl4nlp.plots.plot_gradient_norms")
def _():
    good = dict(norms_by_name={"a": [1.0, 0.5]})
    yield from vary(
        P.plot_gradient_norms,
        good,
        "norms_by_name",
        [
            ("a list, not a mapping", [1.0, 0.5], "list"),
            ("strings as norms", {"a": ["x", "y"]}, "'a'"),
            ("a negative norm", {"a": [1.0, -0.5]}, "-0.5"),
            ("empty", {}, "{}"),
            ("a 2-D array of norms", {"a": np.ones((2, 2))}, "(2, 2)"),
        ],
    )


@cases("dl4nlp.plots.plot_power_law")
def _():
    good = dict(x=[1.0, 10.0, 100.0], y=[3.0, 2.0, 1.0])
    yield from vary(
        P.plot_power_law,
        good,
        "y",
        [
            ("another length", [3.0, 2.0], "2"),
            ("a negative value", [3.0, -2.0, 1.0], "-2.0"),
            ("strings", ["a", "b", "c"], "'a'"),
        ],
    )
    yield from vary(P.plot_power_law, good, "x", [("zero", [0.0, 10.0, 100.0], "0.0"), ("empty", [], "0")])
    yield from vary(P.plot_power_law, good, "fit", [("a number", 0.3, "float")])


@cases("dl4nlp.plots.plot_curves")
def _():
    good = dict(curves={"a": ([1.0, 2.0], [3.0, 2.0])})
    yield from vary(
        P.plot_curves,
        good,
        "curves",
        [
            ("x and y of different lengths", {"a": ([1.0, 2.0, 3.0], [3.0, 2.0])}, ("'a'", "3", "2")),
            ("a list, not a mapping", [([1.0], [2.0])], "list"),
            ("one array, not (x, y)", {"a": [1.0, 2.0]}, "'a'"),
            ("a non-positive x on a log axis", {"a": ([0.0, 2.0], [3.0, 2.0])}, "0.0"),
        ],
    )
    yield from vary(P.plot_curves, good, "colors", [("fewer colours than curves", [], "0")])


@cases("dl4nlp.plots.plain_log_ticks")
def _():
    yield "axis: 'z'", lambda: P.plain_log_ticks(plt.subplots()[1], axis="z"), ("axis", "'z'")
    yield "ax: a string", lambda: P.plain_log_ticks("ax"), ("ax", "str")


@cases("dl4nlp.plots.plot_position_heatmap")
def _():
    yield from vary(
        P.plot_position_heatmap,
        dict(table=np.zeros((4, 6))),
        "table",
        [
            ("one dimension", np.zeros(4), "(4,)"),
            ("strings", [["a"]], "'a'"),
            ("three dimensions", np.zeros((2, 4, 6)), "(2, 4, 6)"),
        ],
    )
    yield from vary(
        P.plot_position_heatmap,
        dict(table=np.zeros((4, 6))),
        "highlight",
        [("beyond the table", 9, "9"), ("a string", "2", "'2'")],
    )
    yield from vary(
        P.plot_position_heatmap, dict(table=np.zeros((4, 6))), "cmap", [("an unknown colour map", "bogus", "'bogus'")]
    )


@cases("dl4nlp.plots.plot_accuracy_by_position")
def _():
    good = dict(accuracy_by_name={"a": [1.0, 0.5]})
    yield from vary(
        P.plot_accuracy_by_position,
        good,
        "accuracy_by_name",
        [
            ("an accuracy above 1", {"a": [1.0, 50.0]}, "50.0"),
            ("a list, not a mapping", [1.0, 0.5], "list"),
            ("strings", {"a": ["x"]}, "'a'"),
        ],
    )
    yield from vary(P.plot_accuracy_by_position, good, "chance", [("above 1", 2.0, "2.0")])
    yield from vary(P.plot_accuracy_by_position, good, "train_length", [("negative", -1, "-1")])


@cases("dl4nlp.plots.plot_parameter_breakdown")
def _():
    yield from vary(
        P.plot_parameter_breakdown,
        {},
        "counts_by_model",
        [
            ("a flat mapping of counts", {"embeddings": 10}, "'embeddings'"),
            ("a negative count", {"m": {"embeddings": -10}}, "-10"),
            ("empty", {}, "{}"),
            ("strings as counts", {"m": {"embeddings": "ten"}}, "'ten'"),
        ],
    )


@cases("dl4nlp.plots.plot_attention")
def _():
    good = dict(weights=np.full((2, 3), 1 / 3), source_labels=list("abc"), target_labels=list("xy"))
    yield from vary(
        P.plot_attention,
        good,
        "weights",
        [
            ("transposed", np.full((3, 2), 0.5), "(3, 2)"),
            ("one dimension", np.ones(3), "(3,)"),
            ("strings", [["a"]], "'a'"),
            ("a negative weight", -np.ones((2, 3)), "-1.0"),
        ],
    )
    yield from vary(P.plot_attention, good, "source_labels", [("a string", "abc", "str")])


@cases("dl4nlp.plots.plot_heatmap")
def _():
    good = dict(values=np.zeros((2, 3)))
    yield from vary(
        P.plot_heatmap,
        good,
        "values",
        [("one dimension", np.zeros(3), "(3,)"), ("strings", [["a"]], "'a'"), ("empty", np.zeros((0, 3)), "(0, 3)")],
    )
    yield from vary(P.plot_heatmap, good, "xlabels", [("one label too many", list("abcd"), "4")])
    yield from vary(P.plot_heatmap, good, "ylabels", [("one label too few", ["a"], "1")])
    yield "vmin: above vmax", lambda: P.plot_heatmap(np.zeros((2, 3)), vmin=5.0, vmax=1.0), ("vmin", "5.0")
    yield from vary(P.plot_heatmap, good, "cmap", [("an unknown colour map", "bogus", "'bogus'")])


@cases("dl4nlp.plots.colour_text")
def _():
    good = dict(text="ab", values=[0.1, 0.2])
    yield from vary(
        P.colour_text,
        good,
        "values",
        [("one per word, not per character", [0.1], "(1,)"), ("strings", ["a", "b"], "'a'")],
    )
    yield from vary(P.colour_text, good, "vmax", [("below vmin", -2.0, "-2.0")])
    yield from vary(P.colour_text, good, "text", [("a list of characters", ["a", "b"], "list")])
    yield from vary(P.colour_text, good, "cmap", [("an unknown colour map", "bogus", "'bogus'")])


@cases("dl4nlp.plots.plot_coloured_text")
def _():
    good = dict(text="ab", values=[0.1, 0.2])
    yield from vary(
        P.plot_coloured_text,
        good,
        "values",
        [("one too many", [0.1, 0.2, 0.3], "(3,)"), ("strings", ["a", "b"], "'a'")],
    )
    yield from vary(P.plot_coloured_text, good, "vmax", [("equal to vmin", -1.0, "-1.0")])
    yield from vary(P.plot_coloured_text, good, "text", [("empty", "", "''"), ("None", None, "None")])


@cases("dl4nlp.plots.plot_isoflop_profiles")
def _():
    yield "profiles: empty", lambda: P.plot_isoflop_profiles([]), ("profiles", "none")
    yield "profiles: one Profile, not a list", lambda: P.plot_isoflop_profiles(_profiles()[0]), ("profiles", "Profile")
    yield "profiles: a list of dicts", lambda: P.plot_isoflop_profiles([{"level": 1.0}]), ("profiles", "dict")
    yield "title: a number", lambda: P.plot_isoflop_profiles(_profiles(), title=3), ("title", "int")
    yield "ax: a string", lambda: P.plot_isoflop_profiles(_profiles(), ax="left"), ("ax", "str")


@cases("dl4nlp.plots.plot_allocation")
def _():
    yield "allocation: a dict", lambda: P.plot_allocation({"a": 1}), ("allocation", "dict")
    yield "allocation: the profiles", lambda: P.plot_allocation(_profiles()), ("allocation", "list")
    yield "title: a number", lambda: P.plot_allocation(_allocation(), title=3), ("title", "int")
    yield "ax: a string", lambda: P.plot_allocation(_allocation(), ax="left"), ("ax", "str")


def _profiles():
    from dl4nlp.sweep import load_sweep
    from dl4nlp.sweep_analysis import isoflop_profiles

    return isoflop_profiles(load_sweep(), 0)


def _allocation():
    from dl4nlp.sweep_analysis import isoflop_allocation

    return isoflop_allocation(_profiles(), n_bootstrap=5)
