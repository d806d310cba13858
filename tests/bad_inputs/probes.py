"""Bad inputs of dl4nlp.probes."""

import numpy as np
import torch

from bad_inputs.harness import cases, vary
from dl4nlp import probes as P


@cases("dl4nlp.probes.inside_quotes")
def _():
    good = dict(text="a “b” c")
    yield from vary(
        P.inside_quotes,
        good,
        "text",
        [("a list of lines", ["a “b”", "c"], "list"), ("None", None, "None"), ("bytes", b"a", "bytes")],
    )
    yield from vary(P.inside_quotes, good, "open_quote", [("two characters", "``", "'``'"), ("empty", "", "''")])
    yield from vary(P.inside_quotes, good, "close_quote", [("None", None, "None")])


@cases("dl4nlp.probes.column_in_line")
def _():
    yield from vary(
        P.column_in_line,
        {},
        "text",
        [("a list of lines", ["ab", "c"], "list"), ("None", None, "None"), ("a number", 12, "int")],
    )


def _activations():
    return np.random.default_rng(0).normal(size=(6, 3))


@cases("dl4nlp.probes.unit_auc")
def _():
    acts = _activations()
    labels = np.array([True, False] * 3)
    good = dict(activations=acts, labels=labels)
    nan_acts, inf_acts = acts.copy(), acts.copy()
    nan_acts[0, 1], inf_acts[2, 0] = np.nan, np.inf
    yield from vary(
        P.unit_auc,
        good,
        "activations",
        [
            ("a NaN in one unit", nan_acts, "nan"),
            ("an inf", inf_acts, "inf"),
            ("one dimension", acts[:, 0], "(6,)"),
            ("a string", "acts", "str"),
            ("no rows", acts[:0], "(0, 3)"),
        ],
    )
    yield from vary(
        P.unit_auc,
        good,
        "labels",
        [
            ("one class only", np.ones(6, dtype=bool), "6 positive"),
            ("one label too many", np.array([True, False] * 3 + [True]), "(7,)"),
            ("numbers other than 0 and 1", np.array([0, 1, 2, 0, 1, 2]), "2"),
            ("a NaN", np.array([1.0, 0.0, np.nan, 1.0, 0.0, 1.0]), "nan"),
            ("a string", "TFTFTF", "str"),
        ],
    )


@cases("dl4nlp.probes.unit_correlation")
def _():
    acts = _activations()
    target = np.arange(6.0)
    good = dict(activations=acts, target=target)
    nan_acts, inf_acts = acts.copy(), acts.copy()
    nan_acts[0, 1], inf_acts[2, 0] = np.nan, np.inf
    yield from vary(
        P.unit_correlation,
        good,
        "activations",
        [
            ("a NaN in one unit", nan_acts, "nan"),
            ("an inf", inf_acts, "inf"),
            ("one dimension", acts[:, 0], "(6,)"),
            ("no rows", acts[:0], "(0, 3)"),
            ("a list of strings", ["a", "b"], "list"),
        ],
    )
    yield from vary(
        P.unit_correlation,
        good,
        "target",
        [
            ("a NaN", np.array([0.0, 1.0, np.nan, 3.0, 4.0, 5.0]), "nan"),
            ("constant", np.ones(6), "constant"),
            ("one too few", target[:5], "(5,)"),
            ("a tensor of another length", torch.arange(7.0), "(7,)"),
            ("a string", "012345", "str"),
        ],
    )
