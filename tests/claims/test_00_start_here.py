"""Notebook 00's claims on other seeds: the primer's logistic regression learns; and about precision:
on the CPU, autocast changes nothing and a float32 matrix product agrees with float64 to float32
rounding; bfloat16 rounding (emulated on the CPU) stays within bfloat16's rounding but is visibly,
thousands of times, larger."""

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


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_logistic_regression_separates_two_blobs(seed):
    """The primer's claims: the training loop lowers the loss five-fold and fresh points are >95 % right."""
    points, labels = e.two_blobs(200, seed=seed)
    assert points.shape == (200, 2) and labels.sum() == 100
    result = e.logistic_regression(seed=seed)
    assert result.losses[-1] < 0.2 * result.losses[0]
    assert result.heldout_accuracy > 0.95 and result.accuracy > 0.95
