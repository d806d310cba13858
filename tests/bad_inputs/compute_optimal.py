"""Bad inputs of dl4nlp.compute_optimal (issue 11: the successors of scaling.frontier and fit_power_law)."""

import math

import numpy as np

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp import compute_optimal as C

X, Y = [1e3, 1e4, 1e5, 1e6], [4.0, 2.0, 1.0, 0.5]
N = [1e4, 3e4, 1e5, 3e5, 1e4, 3e4, 1e5, 3e5]
D = [1e6, 1e6, 1e6, 1e6, 1e7, 1e7, 1e7, 1e7]
LOSS = [2.0 + 50 * n**-0.3 + 400 * d**-0.3 for n, d in zip(N, D)]

exempt(
    "records that fit_slope, isoflop_minimum and fit_parametric return",
    "dl4nlp.compute_optimal.Slope",
    "dl4nlp.compute_optimal.IsoFLOPMinimum",
    "dl4nlp.compute_optimal.ParametricFit",
)
exempt("takes no arguments (the exponents of a fit)", "dl4nlp.compute_optimal.ParametricFit.allocation")


def positive_1d_variants(good: list, min_size: int) -> list[tuple]:
    """Bad values of a 1-D array of positive numbers (fitted in log space)."""
    return [
        ("zero", [0.0] + good[1:], "0.0"),
        ("negative", [-1.0] + good[1:], "-1.0"),
        ("a NaN", [math.nan] + good[1:], "nan"),
        ("an inf", [math.inf] + good[1:], "inf"),
        ("strings", [str(v) for v in good], "'"),
        ("a 2-D array", np.ones((2, len(good))), f"(2, {len(good)})"),
        ("empty", [], "0" if min_size > 1 else "(0,)"),
        ("too few", good[: min_size - 1], str(min_size - 1)) if min_size > 1 else ("None", None, "None"),
        ("one more than the others", good + good[-1:], str(len(good) + 1)),
    ]


@cases("dl4nlp.compute_optimal.fit_slope")
def _():
    good = dict(x=X, y=Y, n_bootstrap=5)
    yield from vary(C.fit_slope, good, "x", positive_1d_variants(X, 3) + [("all equal", [1e3] * 4, "1000.0")])
    yield from vary(C.fit_slope, good, "y", positive_1d_variants(Y, 3))
    yield from vary(C.fit_slope, good, "n_bootstrap", int_variants(0))
    yield from vary(C.fit_slope, good, "seed", [("a string", "0", "'0'"), ("a float", 0.5, "0.5")])


@cases("dl4nlp.compute_optimal.Slope.__call__")
def _():
    slope = C.fit_slope(X, Y, n_bootstrap=5)
    yield "x: zero", lambda: slope([0.0, 1.0]), ("x", "0.0")
    yield "x: negative", lambda: slope(-1.0), ("x", "-1.0")
    yield "x: a string", lambda: slope("1e3"), ("x", "str")
    yield "x: a NaN", lambda: slope([math.nan]), ("x", "nan")


@cases("dl4nlp.compute_optimal.local_slopes")
def _():
    good = dict(x=X, y=Y)
    yield from vary(
        C.local_slopes,
        good,
        "x",
        positive_1d_variants(X, 2)
        + [("unsorted", [1e4, 1e3, 1e5, 1e6], "10000.0"), ("a repeated value", [1e3, 1e3, 1e5, 1e6], "1000.0")],
    )
    yield from vary(C.local_slopes, good, "y", positive_1d_variants(Y, 2))


@cases("dl4nlp.compute_optimal.aicc")
def _():
    good = dict(rss=0.1, n_points=10, n_params=2)
    yield from vary(
        C.aicc,
        good,
        "rss",
        [("negative", -0.1, "-0.1"), ("NaN", math.nan, "nan"), ("a string", "0.1", "'0.1'"), ("inf", math.inf, "inf")],
    )
    yield from vary(C.aicc, good, "n_points", int_variants(1) + [("too few for the parameters", 3, "3")])
    yield from vary(C.aicc, good, "n_params", int_variants(1))


@cases("dl4nlp.compute_optimal.loo_rmse")
def _():
    def fit(x, y):
        return C.fit_slope(x, y, n_bootstrap=2)

    good = dict(fit=fit, x=X, y=Y)
    yield from vary(
        C.loo_rmse,
        good,
        "fit",
        [("a string", "slope", "str"), ("a function returning a number", lambda x, y: 1.0, ("callable", "float"))],
    )
    yield from vary(C.loo_rmse, good, "x", [("strings", ["1", "2", "3", "4"], "'1'"), ("another length", X[:3], "3")])
    yield from vary(C.loo_rmse, good, "y", positive_1d_variants(Y, 3)[:7])


@cases("dl4nlp.compute_optimal.envelope")
def _():
    good = dict(flops=X, loss=Y)
    yield from vary(C.envelope, good, "flops", positive_1d_variants(X, 1))
    yield from vary(C.envelope, good, "loss", positive_1d_variants(Y, 1))


@cases("dl4nlp.compute_optimal.isoflop_minimum")
def _():
    n, loss = [1e4, 3e4, 1e5, 3e5], [3.0, 2.5, 2.4, 2.7]
    good = dict(n=n, loss=loss)
    yield from vary(
        C.isoflop_minimum,
        good,
        "n",
        positive_1d_variants(n, 3) + [("only two different sizes", [1e4, 1e4, 1e5, 1e5], ("3", "100000.0"))],
    )
    yield from vary(
        C.isoflop_minimum,
        good,
        "loss",
        positive_1d_variants(loss, 3) + [("curving downwards", [2.0, 2.5, 2.6, 2.1], ("upwards", "2.6"))],
    )


@cases("dl4nlp.compute_optimal.IsoFLOPMinimum.__call__")
def _():
    vertex = C.isoflop_minimum([1e4, 3e4, 1e5, 3e5], [3.0, 2.5, 2.4, 2.7])
    yield "n: zero", lambda: vertex([0.0, 1e4]), ("n", "0.0")
    yield "n: negative", lambda: vertex(-1e4), ("n", "-10000.0")
    yield "n: a string", lambda: vertex("1e4"), ("n", "str")


@cases("dl4nlp.compute_optimal.fit_parametric")
def _():
    good = dict(n=N, d=D, loss=LOSS, exponents=(0.2, 0.3, 0.4))
    yield from vary(C.fit_parametric, good, "n", positive_1d_variants(N, 6) + [("all equal", [1e4] * 8, "10000.0")])
    yield from vary(C.fit_parametric, good, "d", positive_1d_variants(D, 6)[:7])
    yield from vary(C.fit_parametric, good, "loss", positive_1d_variants(LOSS, 6)[:7])
    yield from vary(
        C.fit_parametric,
        good,
        "delta",
        [("zero", 0.0, "0.0"), ("negative", -1e-3, "-0.001"), ("NaN", math.nan, "nan"), ("a string", "1e-3", "str")],
    )
    yield from vary(C.fit_parametric, good, "exponents", [("zero", (0.0, 0.3), "0.0"), ("empty", (), "(0,)")])
    yield from vary(C.fit_parametric, good, "start", [("a dict", dict(E=1.0), "dict")])


@cases("dl4nlp.compute_optimal.ParametricFit.__call__")
def _():
    fit = C.fit_parametric(N, D, LOSS, exponents=(0.2, 0.3, 0.4))
    yield "n: zero", lambda: fit(0.0, 1e6), ("n", "0.0")
    yield "d: negative", lambda: fit(1e4, -1e6), ("d", "-1000000.0")
    yield "n: a string", lambda: fit("1e4", 1e6), ("n", "str")
