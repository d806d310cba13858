"""Bad inputs of dl4nlp.alibi."""

import torch

from bad_inputs.harness import cases, int_variants, vary
from dl4nlp import alibi as A


@cases("dl4nlp.alibi.alibi_slopes")
def _():
    yield from vary(A.alibi_slopes, {}, "n_heads", int_variants(1))


@cases("dl4nlp.alibi.alibi_bias")
def _():
    good = dict(length=4, slopes=torch.tensor([0.5, 0.25]))
    yield from vary(A.alibi_bias, good, "length", int_variants(1))
    yield from vary(
        A.alibi_bias,
        good,
        "slopes",
        [
            ("a list", [0.5, 0.25], "list"),
            ("2-D", torch.ones(2, 2), "(2, 2)"),
            ("integers", torch.tensor([1, 2]), "int64"),
            ("negative", torch.tensor([-0.5]), "-0.5"),
            ("NaN", torch.tensor([float("nan")]), "nan"),
        ],
    )


@cases("dl4nlp.alibi.ALiBiAttention")
def _():
    good = dict(d_model=8, n_heads=2)
    yield from vary(A.ALiBiAttention, good, "n_heads", [("not dividing d_model", 3, "3")])
    yield from vary(A.ALiBiAttention, good, "slopes", [("one slope for two heads", torch.tensor([0.5]), "(1,)")])


@cases("dl4nlp.alibi.ALiBiAttention.forward")
def _():
    attention = A.ALiBiAttention(8, 2)
    x = torch.randn(1, 5, 8)
    yield "a context (cross-attention)", lambda: attention(x, context=x), ("context", "None")
    yield "x of the wrong width", lambda: attention(torch.randn(1, 5, 6)), ("x", "6")


@cases("dl4nlp.alibi.ALiBiAttention.from_torch")
def _():
    reference = torch.nn.MultiheadAttention(8, 2)
    yield (
        "a PyTorch module (none computes ALiBi)",
        lambda: A.ALiBiAttention.from_torch(reference),
        (
            "reference",
            "MultiheadAttention",
        ),
    )
