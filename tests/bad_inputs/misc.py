"""Bad inputs of the small modules: dl4nlp.notebook, dl4nlp.recipes, dl4nlp.tasks, dl4nlp.tokenize, dl4nlp.train,
dl4nlp.widgets."""

import argparse
import time

import ipywidgets as widgets
import matplotlib.pyplot as plt
import torch
from torch import nn

from bad_inputs.harness import cases, exempt, int_variants, scratch, semantic, vary
from dl4nlp import notebook, recipes, tasks, tokenize, train
from dl4nlp import widgets as W
from dl4nlp.rnn import RecurrentClassifier


@cases("dl4nlp.notebook.start")
def _():
    yield from vary(notebook.start, {}, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])
    yield from vary(notebook.start, {}, "threads", [("0", 0, "0"), ("a float", 1.5, "1.5"), ("True", True, "True")])
    yield from vary(notebook.start, {}, "style", [("an unknown style", "dark", "'dark'")])


@cases("dl4nlp.notebook.claim")
def _():
    good = dict(sentence="a claim", holds=True)
    yield from vary(notebook.claim, good, "sentence", [("empty", "", "''"), ("not text", 3, "3")])
    yield from vary(notebook.claim, good, "holds", [("a number, not a comparison", 0.9, "0.9"),
                                                   ("a whole mask", torch.tensor([True, False]), "(2,)")])  # fmt: skip


# --- recipes ---------------------------------------------------------------------------------
@cases("dl4nlp.recipes.recipe_parser")
def _():
    yield from vary(
        recipes.recipe_parser,
        dict(name="x", description="d"),
        "name",
        [("a module path", "dl4nlp.recipes.x", "'dl4nlp.recipes.x'"), ("empty", "", "''"), ("None", None, "None")],
    )


@cases("dl4nlp.recipes.command_line")
def _():
    yield from vary(
        recipes.command_line,
        dict(name="x"),
        "argv",
        [("one string, not a list", "--out a.pt", "str"), ("numbers", [1, 2], "int")],
    )
    yield from vary(recipes.command_line, dict(name="x", argv=[]), "name", [("None", None, "None")])


@cases("dl4nlp.recipes.seeded_table_run")
def _():
    out = str(scratch() / "table.json")
    good = dict(name="x", doc="d", argv=["--out", out], seeds=2, seeds_help="s", resume_help="r")
    yield from vary(recipes.seeded_table_run, good, "name", [("empty", "", "''")])
    run = recipes.seeded_table_run
    csv = ["--out", str(scratch() / "table.csv")]
    yield semantic("argv: an output that is not .json", lambda: run(**{**good, "argv": csv}), ".json")
    no_seeds = ["--out", out, "--seeds", "0"]
    yield semantic("argv: no seeds", lambda: run(**{**good, "argv": no_seeds}), ("--seeds", "0"))


@cases("dl4nlp.recipes.run_seeds")
def _():
    out = str(scratch() / "seeds.json")
    run = recipes.seeded_table_run("x", "d", ["--out", out], seeds=1, seeds_help="s", resume_help="r")
    good = dict(name="x", argv=["--out", out], run=run, spec={}, seed_row=lambda s: {"seed": s}, progress=str, what="w")
    yield from vary(recipes.run_seeds, good, "run", [("a pair", (1, 2), "(1, 2)"), ("a list", list(run), "list")])
    yield from vary(recipes.run_seeds, good, "seed_row", [("None", None, "None")])
    yield from vary(recipes.run_seeds, good, "spec", [("a list", [], "list")])


def _args(**values):
    return argparse.Namespace(**{**dict(threads=1, seed=0, device="cpu"), **values})


@cases("dl4nlp.recipes.start")
def _():
    yield from vary(
        recipes.start,
        {},
        "args",
        [
            ("threads 0", _args(threads=0), ("threads", "0")),
            ("a dict", dict(threads=1, seed=0, device="cpu"), "dict"),
            ("a negative seed", _args(seed=-1), ("seed", "-1")),
            ("an unknown device", _args(device="gpu"), "'gpu'"),
            ("no threads", argparse.Namespace(seed=0, device="cpu"), "threads"),
        ],
    )


@cases("dl4nlp.recipes.not_reproducible_here")
def _():
    yield from vary(
        recipes.not_reproducible_here,
        {},
        "record",
        [
            ("a path, not the record", "data/seq2seq_dates_dot.json", "str"),
            ("a record without its environment", {"command": "x"}, ("environment", "torch")),
            ("an environment without torch", {"environment": {"python": "3.11"}}, ("environment", "torch")),
        ],
    )


def _enter(context) -> None:
    with context:
        pass


@cases("dl4nlp.recipes.recorded_threads")
def _():
    for label, record, mentions in [
        ("a list", [1], ("record", "list")),
        ("a record without torch_threads", {"environment": {"torch": "2.5"}}, ("record", "torch_threads")),
        ("zero threads", {"environment": {"torch_threads": 0}}, ("torch_threads", "0")),
    ]:
        yield f"record: {label}", lambda record=record: _enter(recipes.recorded_threads(record)), mentions


@cases("dl4nlp.recipes.provenance")
def _():
    good = dict(command="c", arguments={}, seed=0, device="cpu", started=time.perf_counter())
    yield from vary(
        recipes.provenance,
        good,
        "corpora",
        [("an unknown corpus", ["hamlet.txt"], "hamlet.txt"), ("one string, not a list", "tinystories.txt", "str")],
    )
    yield from vary(recipes.provenance, good, "arguments", [("a list", ["--out"], "list")])
    yield from vary(
        recipes.provenance,
        good,
        "started",
        [("a date string", "2024-01-01", "str"), ("a time.time() stamp, later than perf_counter", 4e9, "4000000000.0")],
    )
    yield from vary(recipes.provenance, good, "results", [("a list", [1.0], "list")])


# --- tasks -----------------------------------------------------------------------------------
@cases("dl4nlp.tasks.long_lag_task")
def _():
    good = dict(batch_size=2, lag=3)
    yield from vary(tasks.long_lag_task, good, "batch_size", int_variants(1))
    yield from vary(tasks.long_lag_task, good, "lag", int_variants(1))
    yield from vary(tasks.long_lag_task, good, "num_classes", int_variants(2)[:3])
    yield from vary(tasks.long_lag_task, good, "num_distractors", int_variants(1)[:2])
    yield from vary(tasks.long_lag_task, good, "generator", [("a seed, not a Generator", 0, "int")])


def _classifier():
    torch.manual_seed(0)
    return RecurrentClassifier(12, 4, hidden_size=4, embedding_dim=3)


@cases("dl4nlp.tasks.long_lag_accuracy")
def _():
    good = dict(model=_classifier(), lag=3, samples=10)
    yield from vary(tasks.long_lag_accuracy, good, "samples", int_variants(1))
    yield from vary(tasks.long_lag_accuracy, good, "lag", int_variants(1)[:2])
    yield from vary(
        tasks.long_lag_accuracy,
        good,
        "model",
        [("a string", "rnn", "str"), ("too few output classes", RecurrentClassifier(12, 2, 4, embedding_dim=3), "2")],
    )
    yield from vary(
        tasks.long_lag_accuracy, good, "num_distractors", [("a vocabulary larger than the model's", 20, "24")]
    )


@cases("dl4nlp.tasks.fit_long_lag")
def _():
    good = dict(model=_classifier(), lag=3, steps=1, batch_size=2, progress=False)
    yield from vary(tasks.fit_long_lag, good, "steps", int_variants(1)[:3])
    yield from vary(tasks.fit_long_lag, good, "lag", int_variants(1)[:2])
    yield from vary(
        tasks.fit_long_lag, good, "lr", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")]
    )
    yield from vary(tasks.fit_long_lag, good, "clip_norm", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0")])
    yield from vary(tasks.fit_long_lag, good, "batch_size", int_variants(1)[:2])
    yield from vary(tasks.fit_long_lag, good, "model", [("a string", "rnn", "str")])


# --- tokenize --------------------------------------------------------------------------------
@cases("dl4nlp.tokenize.straighten_quotes")
def _():
    yield from vary(
        tokenize.straighten_quotes,
        {},
        "text",
        [("a list", ["“a”"], "list"), ("None", None, "None"), ("bytes", b"a", "bytes")],
    )


# --- train -----------------------------------------------------------------------------------
@cases("dl4nlp.train.History")
def _():
    yield "loss: a string", lambda: train.History(loss="1.0"), ("loss", "str")
    yield "step and loss of different lengths", lambda: train.History(step=[0, 1], loss=[1.0]), ("loss", "1", "2")


@cases("dl4nlp.train.History.smoothed_loss")
def _():
    history = train.History(step=[0, 1], loss=[1.0, 2.0], grad_norm=[1.0, 1.0], lr=[0.1, 0.1])
    yield from vary(history.smoothed_loss, {}, "window", int_variants(1))


@cases("dl4nlp.train.to_device")
def _():
    yield from vary(
        train.to_device,
        dict(batch=torch.ones(2)),
        "device",
        [("an unknown device", "gpu", "'gpu'"), ("a number", 3.5, "3.5")],
    )


def _linear():
    torch.manual_seed(0)
    return nn.Linear(2, 1)


def _loss(model, batch):
    return model(batch).pow(2).mean()


@cases("dl4nlp.train.train")
def _():
    good = dict(model=_linear(), loss_fn=_loss, next_batch=lambda step: torch.ones(3, 2), steps=1, progress=False)
    yield from vary(train.train, good, "steps", int_variants(1))
    yield from vary(
        train.train,
        good,
        "lr",
        [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan"), ("a string", "0.1", "'0.1'")],
    )
    yield from vary(
        train.train, good, "clip_norm", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")]
    )
    yield from vary(
        train.train,
        good,
        "model",
        [("a string", "model", "str"), ("a module without parameters", nn.ReLU(), "parameters")],
    )
    yield from vary(
        train.train,
        good,
        "loss_fn",
        [
            ("not a function", 3.0, "float"),
            ("returning a float", lambda m, b: 1.0, "float"),
            ("returning a vector", lambda m, b: m(b).squeeze(-1), "(3,)"),
        ],
    )
    yield from vary(train.train, good, "next_batch", [("a tensor, not a function", torch.ones(3, 2), "Tensor")])
    yield from vary(train.train, good, "optimizer", [("a string", "adam", "str")])


# --- widgets ---------------------------------------------------------------------------------
def _draw(weight):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, weight])
    return fig


@cases("dl4nlp.widgets.InteractiveFigure")
def _():
    slider = widgets.FloatSlider(value=1.0, min=0.0, max=2.0)
    good = dict(draw=_draw, controls={"weight": slider})
    yield from vary(W.InteractiveFigure, good, "draw", [("not a function", 3, "3")])
    yield from vary(
        W.InteractiveFigure,
        good,
        "controls",
        [
            ("a control that is not a widget", {"weight": 1.0}, "'weight'"),
            ("a name that draw does not take", {"width": slider}, "'width'"),
            ("a list, not a mapping", [slider], "list"),
        ],
    )


exempt(
    "the controls' callback: its only argument, the change event, is ignored, and draw's errors are shown, not raised",
    "dl4nlp.widgets.InteractiveFigure.redraw",
)


@cases("dl4nlp.widgets.figure_png")
def _():
    axes = plt.subplots()[1]
    yield "figure: None", lambda: W.figure_png(None), ("figure", "None")
    yield "figure: its axes", lambda: W.figure_png(axes), ("figure", "Axes")


@cases("dl4nlp.widgets.interactive_figure")
def _():
    slider = widgets.FloatSlider(value=1.0)
    yield "draw: None", lambda: W.interactive_figure(None, weight=slider), ("draw", "None")
    yield "controls: a number", lambda: W.interactive_figure(_draw, weight=1.0), ("weight", "1.0")
    yield "controls: a name that draw does not take", lambda: W.interactive_figure(_draw, width=slider), ("width",)


exempt(
    "records of a sweep's redraws and of a dropdown option, made by sweep and control_values",
    "dl4nlp.widgets.Option",
    "dl4nlp.widgets.Redraw",
    "dl4nlp.widgets.Sweep",
)


@cases("dl4nlp.widgets.control_values")
def _():
    slider = widgets.IntSlider(min=0, max=10)
    yield from vary(
        W.control_values, dict(control=slider), "control", [("a number", 3, "int"), ("a figure", None, "NoneType")]
    )
    yield from vary(
        W.control_values, dict(control=slider), "interior", [("negative", -1, "-1"), ("a float", 2.5, "2.5")]
    )


@cases("dl4nlp.widgets.sweep")
def _():
    figure = W.InteractiveFigure(_draw, {"weight": widgets.FloatSlider(value=1.0)})
    yield from vary(
        W.sweep,
        dict(figure=figure),
        "figure",
        [("a function", _draw, "function"), ("a widget", widgets.FloatSlider(), "FloatSlider")],
    )
    yield from vary(W.sweep, dict(figure=figure), "max_redraws", [("0", 0, "0"), ("too few for the sweep", 2, "2")])
    yield from vary(W.sweep, dict(figure=figure), "interior", [("negative", -1, "-1")])
