"""Bad inputs of dl4nlp.scaling."""

import math

import numpy as np
import torch

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp import scaling as S
from dl4nlp.transformer import TransformerConfig, TransformerLM

X, Y = [1e3, 1e4, 1e5, 1e6], [4.0, 2.0, 1.0, 0.5]
CONFIG = TransformerConfig(vocab_size=10, d_model=8, n_heads=2, n_layers=1)

exempt("a record that fit_power_law returns", "dl4nlp.scaling.PowerLawFit")

SIZE = [("0", 0, "0"), ("negative", -1, "-1"), ("NaN", math.nan, "nan"), ("a string", "1e6", "'1e6'")]


@cases("dl4nlp.scaling.PowerLawFit.__call__")
def _():
    fit = S.fit_power_law(X, Y, n_bootstrap=5)
    yield "x: zero", lambda: fit([0.0, 1.0]), ("x", "0.0")
    yield "x: negative", lambda: fit(-1.0), ("x", "-1.0")
    yield "x: a string", lambda: fit("1e3"), ("x", "'1e3'")


@cases("dl4nlp.scaling.kaplan_parameters")
def _():
    good = dict(n_layers=2, d_model=8)
    yield from vary(S.kaplan_parameters, good, "n_layers", int_variants(1))
    yield from vary(S.kaplan_parameters, good, "d_model", int_variants(1))
    yield from vary(S.kaplan_parameters, good, "d_ff", int_variants(1)[:2])


@cases("dl4nlp.scaling.non_embedding_parameters")
def _():
    yield "config: a dict", lambda: S.non_embedding_parameters(dict(d_model=8)), ("config", "dict")
    yield "config: a model", lambda: S.non_embedding_parameters(TransformerLM(CONFIG)), ("config", "TransformerLM")


@cases("dl4nlp.scaling.kaplan_forward_flops")
def _():
    good = dict(n_params=1e6, n_layers=2, n_ctx=64, d_model=8)
    yield from vary(S.kaplan_forward_flops, good, "n_params", SIZE)
    yield from vary(S.kaplan_forward_flops, good, "n_layers", int_variants(1)[:2])
    yield from vary(S.kaplan_forward_flops, good, "n_ctx", int_variants(1)[:2])
    yield from vary(S.kaplan_forward_flops, good, "d_model", int_variants(1)[:2])


@cases("dl4nlp.scaling.flops_breakdown")
def _():
    good = dict(config=CONFIG, n_ctx=16)
    yield from vary(S.flops_breakdown, good, "n_ctx", int_variants(1))
    yield from vary(S.flops_breakdown, good, "config", [("a dict", dict(d_model=8), "dict")])


@cases("dl4nlp.scaling.measure_forward_flops")
def _():
    torch.manual_seed(0)
    good = dict(model=TransformerLM(CONFIG), n_ctx=8)
    yield from vary(S.measure_forward_flops, good, "n_ctx", int_variants(1)[:3] + [("beyond max_len", 300, "300")])
    yield from vary(S.measure_forward_flops, good, "batch_size", int_variants(1)[:3])
    yield from vary(
        S.measure_forward_flops,
        good,
        "model",
        [("a string", "lm", "str"), ("a module without parameters", torch.nn.ReLU(), "parameters")],
    )


@cases("dl4nlp.scaling.training_flops")
def _():
    good = dict(n_params=1e6, tokens=1e9)
    yield from vary(S.training_flops, good, "n_params", SIZE)
    yield from vary(S.training_flops, good, "tokens", SIZE[:3])


@cases("dl4nlp.scaling.attention_share")
def _():
    good = dict(n_ctx=64, d_model=8)
    yield from vary(S.attention_share, good, "n_ctx", SIZE)
    yield from vary(S.attention_share, good, "d_model", SIZE[:3])


@cases("dl4nlp.scaling.fit_power_law")
def _():
    good = dict(x=X, y=Y, n_bootstrap=5)
    yield from vary(
        S.fit_power_law,
        good,
        "x",
        [
            ("all equal", [1e3] * 4, "1000.0"),
            ("zero", [0.0, 1e4, 1e5, 1e6], "0.0"),
            ("a NaN", [math.nan, 1e4, 1e5, 1e6], "nan"),
            ("another length", X[:3], "3"),
            ("strings", ["1", "2", "3", "4"], "'1'"),
            ("a 2-D array", np.ones((2, 2)), "(2, 2)"),
        ],
    )
    yield from vary(
        S.fit_power_law,
        good,
        "y",
        [
            ("negative", [4.0, -2.0, 1.0, 0.5], "-2.0"),
            ("only two points", Y[:2], "2"),
            ("an inf", [math.inf, 2.0, 1.0, 0.5], "inf"),
        ],
    )
    yield (
        "irreducible: increasing data",
        lambda: S.fit_power_law(X, Y[::-1], irreducible=True, n_bootstrap=5),
        ("decrease",),
    )
    yield from vary(S.fit_power_law, good, "n_bootstrap", int_variants(0)[:3])
    yield from vary(S.fit_power_law, good, "seed", [("a string", "0", "'0'")])


@cases("dl4nlp.scaling.frontier")
def _():
    curve = ([1.0, 10.0, 100.0], [3.0, 2.0, 1.5])
    good = dict(curves=[curve], grid=[2.0, 20.0])
    yield from vary(
        S.frontier,
        good,
        "curves",
        [
            ("unsorted flops", [([10.0, 1.0, 100.0], [2.0, 3.0, 1.5])], ("flops", "10.0")),
            ("a zero flop count", [([0.0, 10.0], [3.0, 2.0])], ("flops", "0.0")),
            ("a negative loss", [([1.0, 10.0], [3.0, -2.0])], ("loss", "-2.0")),
            ("flops and loss of different lengths", [([1.0, 10.0], [3.0])], ("2", "1")),
            ("one curve, not a list of curves", curve, "list"),
            ("empty", [], "[]"),
            ("a NaN loss", [([1.0, 10.0], [3.0, math.nan])], "nan"),
        ],
    )
    yield from vary(
        S.frontier,
        good,
        "grid",
        [
            ("decreasing", [20.0, 2.0], "20.0"),
            ("zero", [0.0, 2.0], "0.0"),
            ("empty", [], "[]"),
            ("a NaN", [2.0, math.nan], "nan"),
        ],
    )


exempt("takes no arguments (FlopCounterMode's extra formulas)", "dl4nlp.scaling.flop_formulas")


@cases("dl4nlp.scaling.attention_crossover")
def _():
    good = dict(d_model=64)
    yield from vary(S.attention_crossover, good, "d_model", int_variants(1))
    yield from vary(S.attention_crossover, good, "dense", [("a string", "yes", "str"), ("None", None, "None")])


@cases("dl4nlp.scaling.compute_optimal_split")
def _():
    good = dict(compute=1e18)
    yield from vary(S.compute_optimal_split, good, "compute", SIZE + [("inf", math.inf, "inf")])
    yield from vary(S.compute_optimal_split, good, "tokens_per_parameter", SIZE)
