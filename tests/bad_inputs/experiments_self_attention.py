"""Bad inputs of chapters 08 and 09's widget and ALiBi helpers in dl4nlp.experiments.attention and .positional."""

import torch

from bad_inputs.harness import cases, exempt, vary
from dl4nlp.experiments import attention as EA
from dl4nlp.experiments import positional as EP

exempt(
    "a record of an experiment's numbers, returned by alibi_extrapolation", "dl4nlp.experiments.positional.AlibiResult"
)
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


@cases("dl4nlp.experiments.positional.plot_binary_codes")
def _():
    yield from vary(
        EP.plot_binary_codes,
        {},
        "bits",
        [("a list", [[0, 1]], "list"), ("1-D", torch.tensor([0, 1]), "(2,)"), ("a 2", torch.tensor([[0, 2]]), "2")],
    )


@cases("dl4nlp.experiments.positional.alibi_extrapolation")
def _():
    yield from vary(EP.alibi_extrapolation, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.positional.AlibiResult.of")
def _():
    result = EP.AlibiResult(("alibi, causal",), (0.5,), (0.5,), (0.4,), 0.197)
    yield from vary(
        result.of, dict(field="in_range", variant="alibi, causal"), "field", [("unknown", "ceiling", "'ceiling'")]
    )
    yield from vary(
        result.of, dict(field="in_range", variant="alibi, causal"), "variant", [("unknown", "rope", "'rope'")]
    )


@cases("dl4nlp.experiments.positional.alibi_claims")
def _():
    yield from vary(EP.alibi_claims, {}, "result", [("a dict", {}, ("dict", "AlibiResult"))])
