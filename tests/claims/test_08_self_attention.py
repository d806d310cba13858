"""Chapter 08's experiment-level claims, re-run on the claim seeds (chapter 08 asserts them on seed 0).

Budget: a few seconds per seed on an idle 2-core CPU (one small model trained per seed).
"""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import attention as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_reversal_heads_layer_two_reads_the_mirror_and_is_sharper(seed):
    result = experiments.reversal_heads(seed)
    claims = experiments.heads_claims(result)
    assert all(claims.values()), (claims, result)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_held_out_strings_are_never_training_strings(seed):
    seen = experiments.training_strings(seed)
    held_out = experiments.held_out(seed)
    assert len(held_out) == experiments.TEST_STRINGS
    assert not any(tuple(row) in seen for row in held_out.tolist())


def test_the_reverser_is_trained_once_per_seed():
    assert experiments.trained_reverser(1) is experiments.trained_reverser(1)
