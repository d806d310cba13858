"""Bad inputs of dl4nlp.attention."""

import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, float_variants, int_variants, vary, with_inf, with_nan
from dl4nlp import attention as A


def rand(*size, dtype=torch.float32, seed=0):
    return torch.randn(*size, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@cases("dl4nlp.attention.masked_softmax")
def _():
    scores, mask = rand(2, 3), torch.tensor([[True, True, False], [True, False, False]])
    good = dict(scores=scores, mask=mask)
    yield from vary(A.masked_softmax, good, "scores", float_variants(scores, ndim=False))
    yield (
        "scores: a NaN where the mask allows",
        lambda: A.masked_softmax(with_nan(scores.flip(1)), mask),
        ("scores", "nan"),
    )
    yield "scores: an inf, no mask", lambda: A.masked_softmax(with_inf(scores)), ("scores", "inf")
    yield from vary(
        A.masked_softmax,
        good,
        "mask",
        [
            ("a 0/1 long mask", mask.long(), "int64"),
            ("a float mask", mask.float(), "float32"),
            ("a list", mask.tolist(), "list"),
            ("a shape that does not broadcast", torch.ones(2, 4, dtype=torch.bool), "(2, 4)"),
            ("more dimensions than the scores", torch.ones(5, 2, 3, dtype=torch.bool), "(5, 2, 3)"),
        ],
    )
    yield from vary(A.masked_softmax, good, "dim", [("out of range", 2, "2"), ("a string", "-1", "'-1'")])


@cases("dl4nlp.attention.attend")
def _():
    scores, values = rand(2, 3, 4), rand(2, 4, 5, seed=1)
    mask = torch.ones(2, 1, 4, dtype=torch.bool)
    good = dict(scores=scores, values=values, mask=mask)
    yield from vary(A.attend, good, "scores", float_variants(scores))
    yield from vary(
        A.attend,
        good,
        "values",
        [
            ("a string", "text", "str"),
            ("another batch size", rand(3, 4, 5), "(3, 4, 5)"),
            ("another T_k", rand(2, 6, 5), "(2, 6, 5)"),
            ("two dimensions", rand(4, 5), "(4, 5)"),
            ("a NaN", with_nan(values), "nan"),
            ("an integer tensor", values.long(), "int64"),
            ("float64 with float32 scores", values.double(), "float64"),
        ],
    )
    yield from vary(
        A.attend,
        good,
        "mask",
        [("a 0/1 long mask", mask.long(), "int64"), ("a shape that does not broadcast", mask[:, :, :3], "(2, 1, 3)")],
    )


@cases("dl4nlp.attention.causal_mask")
def _():
    yield from vary(A.causal_mask, dict(length=4), "length", int_variants(1))
    yield "device: an unknown name", lambda: A.causal_mask(4, device="gpu"), ("device", "gpu")


@cases("dl4nlp.attention.padding_mask")
def _():
    lengths = torch.tensor([3, 2])
    good = dict(lengths=lengths, max_length=3)
    yield from vary(
        A.padding_mask,
        good,
        "lengths",
        [
            ("a string", "32", "str"),
            ("a float tensor", torch.tensor([2.5, 1.0]), "float32"),
            ("two dimensions", lengths[None], "(1, 2)"),
            ("a zero length", torch.tensor([3, 0]), "0"),
            ("longer than max_length", torch.tensor([4, 2]), "4"),
            ("an empty batch", lengths[:0], "(0,)"),
            ("a list of strings", ["3", "2"], "list"),
        ],
    )
    yield from vary(A.padding_mask, good, "max_length", int_variants(1)[1:])


def _qkv(T_q=3, T_k=4, d=8, dtype=torch.float32):
    return (
        rand(2, 2, T_q, d, dtype=dtype),
        rand(2, 2, T_k, d, dtype=dtype, seed=1),
        rand(2, 2, T_k, 6, dtype=dtype, seed=2),
    )


@cases("dl4nlp.attention.scaled_dot_product_attention")
def _():
    q, k, v = _qkv()
    good = dict(q=q, k=k, v=v)
    fn = A.scaled_dot_product_attention
    yield from vary(fn, good, "q", float_variants(q, ndim=False) + [("one dimension", q[0, 0, 0], "(8,)")])
    yield from vary(
        fn,
        good,
        "k",
        [
            ("another d_k", rand(2, 2, 4, 7), "7"),
            ("a NaN", with_nan(k), "nan"),
            ("another batch size", rand(3, 2, 4, 8), "(3, 2, 4, 8)"),
            ("a string", "k", "str"),
        ],
    )
    yield from vary(
        fn,
        good,
        "v",
        [
            ("another T_k", rand(2, 2, 5, 6), "5"),
            ("an inf", with_inf(v), "inf"),
            ("float64 with float32 q and k", v.double(), "float64"),
        ],
    )
    yield from vary(
        fn,
        good,
        "mask",
        [
            ("a 0/1 long mask", torch.ones(3, 4, dtype=torch.long), "int64"),
            ("a shape that does not broadcast", torch.ones(3, 3, dtype=torch.bool), "(3, 3)"),
        ],
    )
    yield from vary(fn, good, "causal", [("a string", "yes", "'yes'"), ("None", None, "None")])


@cases("dl4nlp.attention.MultiHeadAttention")
def _():
    good = dict(d_model=8, n_heads=2)
    yield from vary(A.MultiHeadAttention, good, "d_model", int_variants(1))
    yield from vary(A.MultiHeadAttention, good, "n_heads", int_variants(1) + [("not a divisor", 3, "3")])
    yield from vary(A.MultiHeadAttention, good, "fast", [("a string", "yes", "'yes'")])
    yield from vary(A.MultiHeadAttention, good, "bias", [("a string", "no", "'no'")])


@cases("dl4nlp.attention.MultiHeadAttention.forward")
def _():
    torch.manual_seed(0)
    for fast in (False, True):
        mha = A.MultiHeadAttention(8, 2, fast=fast)
        x, context = rand(2, 3, 8), rand(2, 4, 8, seed=1)
        good = dict(x=x, context=context)
        tag = " (fast)" if fast else ""
        for label, call, mentions in vary(
            mha, good, "x", float_variants(x) + [("another width", rand(2, 3, 6), "(2, 3, 6)")]
        ):
            yield label + tag, call, mentions
        for label, call, mentions in vary(
            mha,
            good,
            "context",
            [
                ("another width", rand(2, 4, 6), "(2, 4, 6)"),
                ("another batch size", rand(3, 4, 8), "(3, 4, 8)"),
                ("a NaN", with_nan(context), "nan"),
                ("float64", context.double(), "float64"),
            ],
        ):
            yield label + tag, call, mentions
        for label, call, mentions in vary(
            mha,
            good,
            "mask",
            [
                ("a 0/1 long mask", torch.ones(2, 1, 1, 4, dtype=torch.long), "int64"),
                (
                    "a (B, T_q, T_k) mask, ambiguous against (B, H, T_q, T_k)",
                    torch.ones(2, 3, 4, dtype=torch.bool),
                    "(2, 3, 4)",
                ),
                ("a shape that does not broadcast", torch.ones(2, 1, 1, 3, dtype=torch.bool), "(2, 1, 1, 3)"),
            ],
        ):
            yield label + tag, call, mentions
        yield "x: float64 into a float32 module" + tag, lambda mha=mha, x=x: mha(x.double()), ("x", "float64")
        yield "causal: a string" + tag, lambda mha=mha, x=x: mha(x, causal="yes"), ("causal", "'yes'")


def _from_torch_cases(cls):
    def from_torch(*args, **kwargs):
        return cls.from_torch(*args, **kwargs)

    yield "reference: a string", lambda: from_torch("attention"), ("reference", "str")
    yield "reference: an nn.Linear", lambda: from_torch(nn.Linear(8, 8)), ("reference", "Linear")
    yield (
        "reference: separate key and value sizes (kdim)",
        lambda: from_torch(nn.MultiheadAttention(8, 2, kdim=4, vdim=4)),
        ("reference", "kdim"),
    )
    yield (
        "reference: extra key/value biases (add_bias_kv)",
        lambda: from_torch(nn.MultiheadAttention(8, 2, add_bias_kv=True)),
        ("reference", "add_bias_kv"),
    )
    yield (
        "fast: a string",
        lambda: from_torch(nn.MultiheadAttention(8, 2), fast="yes"),
        ("fast", "'yes'"),
    )


@cases("dl4nlp.attention.MultiHeadAttention.from_torch")
def _():
    yield from _from_torch_cases(A.MultiHeadAttention)


@cases("dl4nlp.positional.RotaryAttention.from_torch")
def _():
    from dl4nlp.positional import RotaryAttention

    yield from _from_torch_cases(RotaryAttention)


def _score_cases(cls, d_query=4, d_key=4):
    good = dict(d_query=d_query, d_key=d_key)
    yield from vary(cls, good, "d_query", int_variants(1))
    yield from vary(cls, good, "d_key", int_variants(1))


def _score_forward_cases(module, d_query=4, d_key=4):
    query, keys = rand(2, 3, d_query), rand(2, 5, d_key, seed=1)
    good = dict(query=query, keys=keys)
    yield from vary(module, good, "query", float_variants(query) + [("another width", rand(2, 3, 3), "(2, 3, 3)")])
    yield from vary(
        module,
        good,
        "keys",
        [
            ("another width", rand(2, 5, 3), "(2, 5, 3)"),
            ("another batch size", rand(3, 5, d_key), f"(3, 5, {d_key})"),
            ("a NaN", with_nan(keys), "nan"),
            ("an empty sequence", keys[:, :0], f"(2, 0, {d_key})"),
            ("float64", keys.double(), "float64"),
        ],
    )


@cases("dl4nlp.attention.DotScore")
def _():
    yield from _score_cases(A.DotScore)
    yield "d_key: differs from d_query", lambda: A.DotScore(4, 5), ("d_key", "5")


@cases("dl4nlp.attention.DotScore.forward")
def _():
    yield from _score_forward_cases(A.DotScore(4, 4))


@cases("dl4nlp.attention.GeneralScore")
def _():
    yield from _score_cases(A.GeneralScore)


@cases("dl4nlp.attention.GeneralScore.forward")
def _():
    yield from _score_forward_cases(A.GeneralScore(4, 4))


@cases("dl4nlp.attention.AdditiveScore")
def _():
    yield from _score_cases(A.AdditiveScore)
    yield from vary(A.AdditiveScore, dict(d_query=4, d_key=4), "d_attn", int_variants(1))


@cases("dl4nlp.attention.AdditiveScore.forward")
def _():
    yield from _score_forward_cases(A.AdditiveScore(4, 4))


@cases("dl4nlp.attention.make_score")
def _():
    good = dict(kind="dot", d_query=4, d_key=4)
    yield from vary(A.make_score, good, "kind", choice_variants(A.SCORES))
    yield from vary(A.make_score, good, "d_query", int_variants(1)[:2])
