"""Bad inputs of dl4nlp.sparse."""

import torch

from bad_inputs.harness import cases, choice_variants, float_variants, int_variants, vary, with_inf, with_nan
from dl4nlp import sparse as P


def rand(*size, dtype=torch.float32, seed=0):
    return torch.randn(*size, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def _position_variants(length):
    return [
        ("a position equal to the length", [0, length], str(length)),
        ("a negative position", [-1], "-1"),
        ("a float position", [1.5], "1.5"),
        ("a string", "01", "str"),
        ("an int", 3, "int"),
        ("None", None, "NoneType"),
    ]


@cases("dl4nlp.sparse.sliding_window_mask")
def _():
    good = dict(length=5, window=1)
    yield from vary(P.sliding_window_mask, good, "length", int_variants(1))
    yield from vary(P.sliding_window_mask, good, "window", int_variants(0))


@cases("dl4nlp.sparse.global_mask")
def _():
    good = dict(length=5, positions=[0])
    yield from vary(P.global_mask, good, "length", int_variants(1))
    yield from vary(P.global_mask, good, "positions", _position_variants(5))


@cases("dl4nlp.sparse.random_mask")
def _():
    good = dict(length=5, per_query=2, generator=torch.Generator().manual_seed(0))
    yield from vary(P.random_mask, good, "length", int_variants(1))
    yield from vary(P.random_mask, good, "per_query", int_variants(0) + [("above the length", 6, "6")])
    yield from vary(P.random_mask, good, "generator", [("a seed", 0, "int")])


@cases("dl4nlp.sparse.bigbird_mask")
def _():
    good = dict(length=5, window=1, global_positions=[0], per_query=2, generator=torch.Generator().manual_seed(0))
    yield from vary(P.bigbird_mask, good, "length", int_variants(1))
    yield from vary(P.bigbird_mask, good, "window", int_variants(0)[:3])
    yield from vary(P.bigbird_mask, good, "global_positions", _position_variants(5))
    yield from vary(P.bigbird_mask, good, "per_query", [("above the length", 6, "6"), ("-1", -1, "-1")])
    yield from vary(P.bigbird_mask, good, "generator", [("a seed", 0, "int")])


@cases("dl4nlp.sparse.blockwise_attention")
def _():
    q, k, v = rand(2, 3, 8), rand(2, 5, 8, seed=1), rand(2, 5, 6, seed=2)
    good = dict(q=q, k=k, v=v, block_size=2)
    fn = P.blockwise_attention
    yield from vary(fn, good, "q", float_variants(q, ndim=False) + [("one dimension", q[0, 0], "(8,)")])
    yield from vary(
        fn,
        good,
        "k",
        [
            ("another d", rand(2, 5, 7), "(2, 5, 7)"),
            ("another batch size", rand(3, 5, 8), "(3, 5, 8)"),
            ("a NaN", with_nan(k), "nan"),
            ("a string", "k", "str"),
            ("float64 with float32 q", k.double(), "float64"),
            ("an integer tensor", k.long(), "int64"),
        ],
    )
    yield from vary(
        fn,
        good,
        "v",
        [
            ("another T_k", rand(2, 4, 6), "(2, 4, 6)"),
            ("an inf", with_inf(v), "inf"),
            ("float64 with float32 q", v.double(), "float64"),
            ("no key dimension", rand(2, 6), "(2, 6)"),
        ],
    )
    yield from vary(fn, good, "block_size", int_variants(1))
    yield from vary(fn, good, "causal", [("a string", "yes", "'yes'"), ("None", None, "None")])
    yield "causal: more keys than queries", lambda: fn(q, k, v, causal=True), ("causal", "3", "5")


@cases("dl4nlp.sparse.attention_cost")
def _():
    good = dict(length=64, d=16, kind="self-attention")
    yield from vary(P.attention_cost, good, "length", int_variants(1))
    yield from vary(P.attention_cost, good, "d", int_variants(1))
    yield from vary(P.attention_cost, good, "kind", choice_variants(P.KINDS))
    yield from vary(P.attention_cost, good, "r", [("-1", -1, "-1"), ("a float", 2.5, "2.5")])
    yield from vary(P.attention_cost, good, "k", int_variants(1)[:3])
    yield (
        "r: 0 for restricted self-attention",
        lambda: P.attention_cost(64, 16, "restricted self-attention"),
        ("r", "0"),
    )


@cases("dl4nlp.sparse.largest_tensor_bytes")
def _():
    yield "fn: a string", lambda: P.largest_tensor_bytes("softmax", torch.zeros(2)), ("fn", "str")
    yield "fn: None", lambda: P.largest_tensor_bytes(None), ("fn", "None")
    yield "fn: a tensor", lambda: P.largest_tensor_bytes(torch.zeros(2)), ("fn", "tensor")
