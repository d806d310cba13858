"""Notebook 00's claim about precision, on other seeds: on the CPU, autocast changes nothing and
a float32 matrix product agrees with float64 to float32 rounding."""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments.start_here import matmul_precision


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_matmul_precision_on_the_cpu(seed):
    result = matmul_precision(seed=seed, device="cpu")
    assert result.plain_dtype == result.autocast_dtype == "torch.float32"
    assert result.plain_error <= result.tolerance(result.plain_dtype)
    assert result.autocast_error == result.plain_error  # a no-op: the very same product
