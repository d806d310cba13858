"""Bad inputs of dl4nlp.sampling."""

import functools
import math

import torch
from torch import nn

from bad_inputs.harness import cases, float_variants, id_variants, int_variants, prob_variants, vary, with_inf
from dl4nlp import sampling as S
from dl4nlp import transformer as T

V = 11
LOGITS = torch.randn(2, V, generator=torch.Generator().manual_seed(0))


@functools.cache
def lm() -> T.TransformerLM:
    torch.manual_seed(0)
    config = T.TransformerConfig(vocab_size=V, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)
    return T.TransformerLM(config).eval()


def _logits_variants():
    minus_inf_row = LOGITS.clone()
    minus_inf_row[1] = -math.inf
    return [
        v
        for v in float_variants(LOGITS)
        if v[0] != "one dimension too few"  # (V,) is a good shape
    ] + [
        ("a row of -inf only", minus_inf_row, ("-inf", "row")),
        ("a list of numbers", LOGITS[0].tolist(), "list"),
    ]


def _rule_variants():
    """Bad temperature, top_k and top_p (as (name, label, value, mentions))."""
    for label, value, mentions in [
        ("negative", -1.0, "-1.0"),
        ("NaN", math.nan, "nan"),
        ("inf", math.inf, "inf"),
        ("a string", "1", "'1'"),
        ("True", True, "True"),
    ]:
        yield "temperature", label, value, mentions
    for label, value, mentions in int_variants(1) + [("above the vocabulary size", V + 1, str(V + 1))]:
        yield "top_k", label, value, mentions
    for label, value, mentions in prob_variants(allow_zero=False):
        yield "top_p", label, value, mentions


@cases("dl4nlp.sampling.filter_top_k")
def _():
    good = dict(logits=LOGITS, k=3)
    yield from vary(S.filter_top_k, good, "logits", _logits_variants())
    yield from vary(S.filter_top_k, good, "k", int_variants(1) + [("above the vocabulary size", V + 1, str(V + 1))])


@cases("dl4nlp.sampling.filter_top_p")
def _():
    good = dict(logits=LOGITS, p=0.9)
    yield from vary(S.filter_top_p, good, "logits", _logits_variants())
    yield from vary(S.filter_top_p, good, "p", prob_variants(allow_zero=False) + [("None", None, "None")])


@cases("dl4nlp.sampling.next_token_probabilities")
def _():
    good = dict(logits=LOGITS)
    yield from vary(S.next_token_probabilities, good, "logits", _logits_variants())
    for name, label, value, mentions in _rule_variants():
        yield from vary(S.next_token_probabilities, good, name, [(label, value, mentions)])


@cases("dl4nlp.sampling.sample_next")
def _():
    good = dict(logits=LOGITS, generator=torch.Generator().manual_seed(0))
    yield from vary(S.sample_next, good, "logits", _logits_variants()[:4])
    yield from vary(S.sample_next, good, "logits", [("an inf", with_inf(LOGITS), "inf")])
    for name, label, value, mentions in _rule_variants():
        yield from vary(S.sample_next, good, name, [(label, value, mentions)])
    yield from vary(S.sample_next, good, "generator", [("a seed", 0, "int"), ("a string", "0", "str")])


@cases("dl4nlp.sampling.generate")
def _():
    ids = torch.randint(V, (2, 3), generator=torch.Generator().manual_seed(1))
    good = dict(model=lm(), ids=ids, new_tokens=2, generator=torch.Generator().manual_seed(0))
    yield from vary(S.generate, good, "ids", id_variants(ids, V) + [("a list of ids", [[1, 2]], "list")])
    yield from vary(S.generate, good, "new_tokens", int_variants(0))
    for name, label, value, mentions in _rule_variants():
        yield from vary(S.generate, good, name, [(label, value, mentions)])
    yield from vary(S.generate, good, "generator", [("a seed", 0, "int")])
    yield from vary(S.generate, good, "use_cache", [("a string", "yes", "'yes'"), ("None", None, "None")])
    yield from vary(
        S.generate,
        good,
        "model",
        [
            ("an nn.Linear", nn.Linear(V, V), "Linear"),
            ("a string", "gpt", "str"),
            ("a config", lm().config, "TransformerConfig"),
        ],
    )


@cases("dl4nlp.sampling.perplexity")
def _():
    yield from vary(
        S.perplexity,
        dict(loss=1.0),
        "loss",
        [
            ("negative", -0.5, "-0.5"),
            ("NaN", math.nan, "nan"),
            ("inf", math.inf, "inf"),
            ("a string", "1.2", "'1.2'"),
            ("None", None, "None"),
            ("a tensor of several losses", torch.tensor([1.0, 2.0]), "(2,)"),
            ("True", True, "True"),
        ],
    )
