"""Notebook 00's claims about precision, on other seeds: on the CPU, autocast changes nothing and
a float32 matrix product agrees with float64 to float32 rounding; bfloat16 rounding (emulated on
the CPU) stays within bfloat16's rounding but is visibly, thousands of times, larger."""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import start_here as e


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_matmul_precision_on_the_cpu(seed):
    result = e.matmul_precision(seed=seed, device="cpu")
    assert result.plain_dtype == result.autocast_dtype == "torch.float32"
    assert result.plain_error <= result.tolerance(result.plain_dtype)
    assert result.autocast_error == result.plain_error  # a no-op: the very same product
    assert result.emulated_bfloat16_error <= result.tolerance("torch.bfloat16", e.EMULATED_BFLOAT16_UNITS)
    assert result.emulated_bfloat16_error > e.BFLOAT16_VISIBLE * result.plain_error
