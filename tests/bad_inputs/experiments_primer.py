"""Bad inputs of the experiments of chapters 00 (the PyTorch primer) and 01 (backpropagation)."""

import torch
from torch import nn

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp.experiments import backprop, start_here

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.start_here.LogisticRegression",
    "dl4nlp.experiments.backprop.SymmetricStart",
    "dl4nlp.experiments.backprop.ActivationStatistics",
    "dl4nlp.experiments.backprop.DeadUnits",
)
exempt(
    "the reference backward rules of notebook 01's Scalar engine: they take engine nodes and add to their .grad "
    "(the notebook's exercises 1 and 3 compare them with torch.autograd)",
    "dl4nlp.experiments.backprop.add_backward",
    "dl4nlp.experiments.backprop.mul_backward",
    "dl4nlp.experiments.backprop.pow_backward",
    "dl4nlp.experiments.backprop.exp_backward",
    "dl4nlp.experiments.backprop.tanh_backward",
    "dl4nlp.experiments.backprop.relu_backward",
)

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'")]


@cases("dl4nlp.experiments.start_here.draw_softmax")
def _():
    yield from vary(
        start_here.draw_softmax, dict(temperature=1.0), "temperature", [("zero", 0.0, "0"), ("a string", "1", "'1'")]
    )
    yield from vary(start_here.draw_softmax, dict(temperature=1.0), "scores", [("one score", (1.0,), "(1.0,)")])


@cases("dl4nlp.experiments.start_here.train")
def _():
    good = dict(
        model=nn.Linear(1, 1),
        loss_fn=nn.functional.mse_loss,
        inputs=torch.zeros(4, 1),
        targets=torch.zeros(4, 1),
        steps=1,
        lr=0.1,
    )
    yield from vary(start_here.train, good, "model", [("a function", lambda x: x, "function")])
    yield from vary(start_here.train, good, "loss_fn", [("a number", 1, "int")])
    yield from vary(start_here.train, good, "inputs", [("a list", [[0.0]] * 4, "list")])
    yield from vary(start_here.train, good, "targets", [("one row short", torch.zeros(3, 1), "3")])
    yield from vary(start_here.train, good, "steps", int_variants(1)[:3])
    yield from vary(start_here.train, good, "lr", [("zero", 0.0, "0"), ("negative", -0.1, "-0.1")])


@cases("dl4nlp.experiments.start_here.two_blobs")
def _():
    yield from vary(start_here.two_blobs, {}, "seed", SEEDS)
    yield from vary(start_here.two_blobs, {}, "n", [("one point", 1, "1"), ("a float", 10.0, "10.0")])


@cases("dl4nlp.experiments.start_here.logistic_regression")
def _():
    yield from vary(start_here.logistic_regression, {}, "seed", SEEDS)
    yield from vary(start_here.logistic_regression, {}, "fit", [("a number", 3, "int")])
    yield from vary(start_here.logistic_regression, {}, "steps", [("zero", 0, "0")])


@cases("dl4nlp.experiments.backprop.depth_figure")
def _():
    draw = backprop.depth_figure()
    good = dict(depth=5, activation="relu", weight_scale=1.0, residual="none", loss="independent upstream")
    yield from vary(draw, good, "residual", [("an unknown choice", "α = 2", "α = 2")])
    yield from vary(draw, good, "loss", [("an unknown choice", "hinge", "hinge")])
    yield from vary(draw, good, "depth", [("one layer", 1, "1")])


@cases("dl4nlp.experiments.backprop.hinge")
def _():
    from dl4nlp.autograd import Value

    good = dict(scores=[Value(1.0), Value(-1.0)], signs=[1, -1])
    yield from vary(backprop.hinge, good, "signs", [("a 0 label", [1, 0], "0"), ("one label short", [1], "1")])
    yield from vary(backprop.hinge, good, "scores", [("a tensor", torch.zeros(2), "Tensor")])


@cases("dl4nlp.experiments.backprop.gradient_step")
def _():
    from dl4nlp.scalar_nn import MLP

    good = dict(model=MLP(2, [2, 1], seed=0), points=[[1.0, 1.0]], signs=[1], lr=0.5)
    yield from vary(backprop.gradient_step, good, "lr", [("zero", 0.0, "0.0"), ("negative", -1.0, "-1.0")])
    yield from vary(backprop.gradient_step, good, "model", [("a list", [1.0], "list")])
    yield from vary(backprop.gradient_step, good, "signs", [("a 2 label", [2], "2")])


@cases("dl4nlp.experiments.backprop.backward_pass")
def _():
    yield from vary(
        backprop.backward_pass, {}, "root", [("a float", 1.0, "float"), ("a tensor", torch.ones(1), "Tensor")]
    )


@cases("dl4nlp.experiments.backprop.central_differences")
def _():
    good = dict(build=lambda a: a * a, inputs=[1.0], eps=1e-6)
    yield from vary(backprop.central_differences, good, "build", [("a number", 3.0, "float")])
    yield from vary(backprop.central_differences, good, "inputs", [("empty", [], "[]"), ("a string", "12", "str")])
    yield from vary(backprop.central_differences, good, "eps", [("zero", 0.0, "0.0"), ("one", 1.0, "1.0")])


@cases("dl4nlp.experiments.backprop.relative_error")
def _():
    good = dict(analytic=1.0, numerical=1.0)
    yield from vary(backprop.relative_error, good, "analytic", [("nan", float("nan"), "nan"), ("a string", "1", "'1'")])
    yield from vary(backprop.relative_error, good, "numerical", [("infinite", float("inf"), "inf")])


@cases("dl4nlp.experiments.backprop.twin_training")
def _():
    yield from vary(backprop.twin_training, {}, "seed", [("negative", -1, "-1")])
    yield from vary(backprop.twin_training, {}, "steps", [("zero", 0, "0")])


@cases("dl4nlp.experiments.backprop.order_report")
def _():
    from dl4nlp.autograd import Value

    good = dict(order=[], root=Value(1.0))
    yield from vary(backprop.order_report, good, "root", [("a float", 1.0, "float")])
    yield from vary(backprop.order_report, good, "order", [("a generator", (v for v in []), "generator")])


@cases("dl4nlp.experiments.backprop.expression_report")
def _():
    good = dict(expressions=[], engine=lambda f, xs: [], reference=[])
    yield from vary(backprop.expression_report, good, "expressions", [("a string", "a + b", "str")])
    yield from vary(backprop.expression_report, good, "engine", [("a number", 1.0, "float")])


@cases("dl4nlp.experiments.backprop.symmetric_start")
def _():
    yield from vary(backprop.symmetric_start, {}, "value", [("nan", float("nan"), "nan"), ("a string", "0.5", "'0.5'")])
    yield from vary(backprop.symmetric_start, {}, "seed", [("negative", -1, "-1")])


@cases("dl4nlp.experiments.backprop.activation_statistics")
def _():
    yield from vary(backprop.activation_statistics, {}, "width", [("one", 1, "1"), ("a float", 2.5, "2.5")])
    yield from vary(backprop.activation_statistics, {}, "depth", [("zero", 0, "0")])


@cases("dl4nlp.experiments.backprop.dead_relus")
def _():
    yield from vary(backprop.dead_relus, {}, "lr", [("zero", 0.0, "0.0"), ("nan", float("nan"), "nan")])
    yield from vary(backprop.dead_relus, {}, "bias", [("infinite", float("inf"), "inf")])
