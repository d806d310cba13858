"""Bad inputs of dl4nlp.positional."""

import torch

from bad_inputs.harness import cases, choice_variants, float_variants, int_variants, vary, with_nan
from dl4nlp import positional as P

BASE_VARIANTS = [
    ("1", 1.0, "1.0"),
    ("negative", -2.0, "-2.0"),
    ("NaN", float("nan"), "nan"),
    ("a string", "10000", "'10000'"),
]
EVEN_VARIANTS = int_variants(2) + [("odd", 5, "5")]


@cases("dl4nlp.positional.sinusoidal_encoding")
def _():
    good = dict(max_len=4, d_model=6)
    yield from vary(P.sinusoidal_encoding, good, "max_len", int_variants(1))
    yield from vary(P.sinusoidal_encoding, good, "d_model", EVEN_VARIANTS)
    yield from vary(P.sinusoidal_encoding, good, "base", BASE_VARIANTS)
    yield from vary(
        P.sinusoidal_encoding,
        good,
        "dtype",
        [("an integer dtype", torch.long, "int64"), ("a string", "float32", "'float32'")],
    )


def _module_cases(cls):
    good = dict(max_len=4, d_model=6)
    yield from vary(cls, good, "max_len", int_variants(1))
    yield from vary(cls, good, "d_model", int_variants(1) if cls is P.LearnedPositionalEmbedding else EVEN_VARIANTS)


def _forward_cases(module):
    x = torch.randn(2, 3, 6)
    yield from vary(
        module,
        {},
        "x",
        float_variants(x)
        + [
            ("longer than max_len", torch.randn(2, 5, 6), ("5", "4")),
            ("another width", torch.randn(2, 3, 4), "(2, 3, 4)"),
        ],
    )


@cases("dl4nlp.positional.SinusoidalPositionalEncoding")
def _():
    yield from _module_cases(P.SinusoidalPositionalEncoding)
    yield from vary(P.SinusoidalPositionalEncoding, dict(max_len=4, d_model=6), "base", BASE_VARIANTS[:2])


@cases("dl4nlp.positional.SinusoidalPositionalEncoding.forward")
def _():
    yield from _forward_cases(P.SinusoidalPositionalEncoding(4, 6))


@cases("dl4nlp.positional.LearnedPositionalEmbedding")
def _():
    yield from _module_cases(P.LearnedPositionalEmbedding)


@cases("dl4nlp.positional.LearnedPositionalEmbedding.forward")
def _():
    yield from _forward_cases(P.LearnedPositionalEmbedding(4, 6))


@cases("dl4nlp.positional.make_positional")
def _():
    good = dict(kind="sinusoidal", max_len=4, d_model=6)
    yield from vary(P.make_positional, good, "kind", choice_variants(("sinusoidal", "learned", "none")))
    yield from vary(P.make_positional, good, "max_len", int_variants(1)[:2])
    yield "d_model: 0 with kind='none'", lambda: P.make_positional("none", 4, 0), ("d_model", "0")


@cases("dl4nlp.positional.frequencies")
def _():
    yield from vary(P.frequencies, dict(d_model=6), "d_model", EVEN_VARIANTS)
    yield from vary(P.frequencies, dict(d_model=6), "base", BASE_VARIANTS)


@cases("dl4nlp.positional.shift_matrix")
def _():
    good = dict(offset=2, d_model=6)
    yield from vary(
        P.shift_matrix,
        good,
        "offset",
        [
            ("NaN", float("nan"), "nan"),
            ("a string", "2", "'2'"),
            ("a tensor of offsets", torch.tensor([1, 2]), "Tensor"),
        ],
    )
    yield from vary(P.shift_matrix, good, "d_model", EVEN_VARIANTS[:2])


@cases("dl4nlp.positional.binary_encoding")
def _():
    good = dict(max_len=4, n_bits=3)
    yield from vary(P.binary_encoding, good, "max_len", int_variants(1) + [("beyond 2**n_bits", 9, "9")])
    yield from vary(P.binary_encoding, good, "n_bits", int_variants(1))


@cases("dl4nlp.positional.clipped_relative_positions")
def _():
    good = dict(length=4, max_distance=2)
    yield from vary(P.clipped_relative_positions, good, "length", int_variants(1))
    yield from vary(P.clipped_relative_positions, good, "max_distance", int_variants(1))


@cases("dl4nlp.positional.rotary")
def _():
    x = torch.randn(2, 3, 4)
    good = dict(x=x)
    for fast in (False, True):
        tag = " (fast)" if fast else ""
        for label, call, mentions in vary(
            lambda fast=fast, **kw: P.rotary(fast=fast, **kw),
            good,
            "x",
            float_variants(x, ndim=False)
            + [("odd width", torch.randn(2, 3, 5), "(2, 3, 5)"), ("one dimension", x[0, 0], "(4,)")],
        ):
            yield label + tag, call, mentions
    yield from vary(
        P.rotary,
        good,
        "positions",
        [
            ("one too few", torch.arange(2), "(2,)"),
            ("a NaN", with_nan(torch.arange(3.0)), "nan"),
            ("a string", "012", "str"),
            ("(B, T)", torch.arange(3).repeat(2, 1), "(2, 3)"),
        ],
    )
    yield from vary(P.rotary, good, "base", BASE_VARIANTS)
