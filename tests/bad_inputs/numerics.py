"""Bad inputs of dl4nlp.numerics (tolerances from the size of a computation) and dl4nlp.kernels."""

import math

import torch

from bad_inputs.harness import cases, exempt, vary
from dl4nlp import numerics as N


@cases("dl4nlp.numerics.rounding_tolerance")
def _():
    good = dict(terms=10, scale=1.0)
    yield from vary(N.rounding_tolerance, good, "terms", [("zero terms", 0, "0"), ("a float", 1.5, "1.5")])
    yield from vary(N.rounding_tolerance, good, "scale", [("negative", -1.0, "-1.0"), ("NaN", math.nan, "nan")])
    yield from vary(N.rounding_tolerance, good, "dtype", [("an integer dtype", torch.int64, "int64"),
                                                          ("an unknown name", "float8", "'float8'")])  # fmt: skip


@cases("dl4nlp.numerics.agree")
def _():
    good = dict(actual=torch.zeros(2), expected=torch.zeros(2), terms=2)
    yield from vary(
        N.agree, good, "actual", [("a list", [0.0, 0.0], "list"), ("another shape", torch.zeros(3), "(3,)")]
    )
    yield from vary(N.agree, good, "terms", [("zero terms", 0, "0")])


exempt("takes no arguments: the fingerprint of this machine's CPU kernels", "dl4nlp.kernels.kernel_fingerprint")
