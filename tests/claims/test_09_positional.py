"""Chapter 09's experiment-level claims, re-run on the claim seeds (chapter 09 asserts them on seed 0).

Budget: about 13 s per seed on an idle 2-core CPU (seven previous-token taggers and two position taggers).
"""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import positional as experiments
from dl4nlp.taggers import bag_of_words_ceiling


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_extrapolation_of_each_kind_of_position(seed):
    result = experiments.extrapolation(seed)
    claims = experiments.extrapolation_claims(result)
    assert all(claims.values()), (claims, result)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_alibi_extrapolates_when_causal_and_cannot_tell_left_from_right_when_symmetric(seed):
    result = experiments.alibi_extrapolation(seed)
    claims = experiments.alibi_claims(result)
    assert all(claims.values()), (claims, result)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_a_causal_mask_alone_gives_positions(seed):
    result = experiments.causal_positions(seed)
    claims = experiments.causal_claims(result)
    assert all(claims.values()), (claims, result)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_test_sequences_are_never_training_sequences(seed):
    seen = experiments.training_sequences(seed)
    for length in (experiments.TRAINING.max_length, experiments.LONG):
        ids, _ = experiments.held_out(length, seed)
        assert not any(tuple(row) in seen for row in ids.tolist())


def test_the_ceilings_the_result_reports_are_the_exact_ones():
    assert bag_of_words_ceiling(16, 16) == pytest.approx(0.19687, abs=1e-5)
    assert bag_of_words_ceiling(48, 16) == pytest.approx(0.13416, abs=1e-5)


def test_each_model_is_trained_once_per_seed():
    assert experiments.trained("none", 1) is experiments.trained("none", 1)
