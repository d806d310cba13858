"""Bad inputs of the experiments of chapters 00 (the PyTorch primer) and 01 (backpropagation)."""

import torch
from torch import nn

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp.experiments import backprop, start_here

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.start_here.LogisticRegression",
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
