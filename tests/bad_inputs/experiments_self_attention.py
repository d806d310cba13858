"""Bad inputs of chapters 08 and 09's widget and ALiBi helpers in dl4nlp.experiments.attention and .positional."""

import torch

from bad_inputs.harness import cases, vary
from dl4nlp.experiments import attention as EA

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'")]


@cases("dl4nlp.experiments.attention.head_drawer")
def _():
    weights = [torch.softmax(torch.randn(2, 1, 3, 3), -1)]
    ids = torch.tensor([[0, 1, 2], [2, 1, 0]])
    good = dict(layer_weights=weights, ids=ids, letters="abc")
    yield from vary(
        EA.head_drawer,
        good,
        "layer_weights",
        [("a tensor", weights[0], "Tensor"), ("3-D", [weights[0][0]], "(1, 3, 3)")],
    )
    yield from vary(EA.head_drawer, good, "ids", [("too short", ids[:, :2], "(2, 2)")])
    yield from vary(EA.head_drawer, good, "letters", [("too few letters", "ab", "'ab'")])


@cases("dl4nlp.experiments.attention.softmax_drawer")
def _():
    yield from vary(EA.softmax_drawer, {}, "n_keys", [("one key", 1, "1"), ("a float", 2.5, "2.5")])
    yield from vary(EA.softmax_drawer, {}, "seed", SEEDS)
