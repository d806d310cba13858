"""Bad inputs of dl4nlp.gradflow."""

import torch

from bad_inputs.harness import cases, choice_variants, float_variants, int_variants, vary
from dl4nlp import gradflow as G


@cases("dl4nlp.gradflow.DeepMLP")
def _():
    good = dict(depth=2, width=4)
    yield from vary(G.DeepMLP, good, "depth", int_variants(1))
    yield from vary(G.DeepMLP, good, "width", int_variants(1))
    yield from vary(G.DeepMLP, good, "activation", choice_variants(G.ACTIVATIONS))
    yield from vary(
        G.DeepMLP,
        good,
        "weight_scale",
        [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "1", "'1'"), ("inf", float("inf"), "inf")],
    )
    yield from vary(G.DeepMLP, good, "generator", [("a seed, not a Generator", 0, "int")])


def _mlp_cases(method):
    x = torch.randn(3, 4)
    yield from vary(
        method,
        {},
        "x",
        float_variants(x, ndim=False)
        + [("another width", torch.randn(3, 5), "(3, 5)"), ("one dimension", x[0], "(4,)")],
    )


@cases("dl4nlp.gradflow.DeepMLP.forward")
def _():
    yield from _mlp_cases(G.DeepMLP(2, 4))


@cases("dl4nlp.gradflow.DeepMLP.hidden_states")
def _():
    yield from _mlp_cases(G.DeepMLP(2, 4).hidden_states)


@cases("dl4nlp.gradflow.layer_gradient_norms")
def _():
    good = dict(depth=2, width=4, batch=3)
    yield from vary(G.layer_gradient_norms, good, "depth", int_variants(1)[:2])
    yield from vary(G.layer_gradient_norms, good, "width", int_variants(1)[:2])
    yield from vary(G.layer_gradient_norms, good, "batch", int_variants(1))
    yield from vary(G.layer_gradient_norms, good, "activation", choice_variants(G.ACTIVATIONS)[:1])
    yield from vary(G.layer_gradient_norms, good, "seed", [("a string", "0", "'0'"), ("negative", -1, "-1")])


@cases("dl4nlp.gradflow.time_step_gradient_norms")
def _():
    x = torch.randn(2, 5, 3)

    def loss(inputs):
        return inputs.pow(2).sum()

    good = dict(loss_of_inputs=loss, inputs=x)
    yield from vary(
        G.time_step_gradient_norms,
        good,
        "inputs",
        float_variants(x, ndim=False) + [("one dimension", x[0, 0], "(3,)"), ("no time steps", x[:, :0], "(2, 0, 3)")],
    )
    yield from vary(
        G.time_step_gradient_norms,
        good,
        "loss_of_inputs",
        [
            ("not a function", 3.0, "float"),
            ("returning a vector", lambda inputs: inputs.sum(dim=(1, 2)), "(2,)"),
            ("returning a float", lambda inputs: 1.0, "float"),
            ("not depending on the inputs", lambda inputs: torch.tensor(1.0, requires_grad=True), "inputs"),
            ("returning NaN", lambda inputs: inputs.sum() * float("nan"), "nan"),
        ],
    )
