"""Notebook 04's experiment-level claims, re-run on the claim seeds (notebook 04 asserts them on seed 0).

Budget: about 60 s on an idle 2-core CPU for the whole file; the experiments share
trained models through ``train_reverser``'s cache, so each seed trains five small models.
"""

import pytest
import torch

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import seq2seq as experiments


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_attention_beats_the_bottleneck_at_long_inputs(seed):
    result = experiments.bottleneck(seed)
    assert experiments.bottleneck_claim(result), result
    assert result.final_loss_bottleneck > result.final_loss_attention, result


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_every_score_function_handles_long_inputs(seed):
    result = experiments.score_comparison(seed)
    assert min(result.long_accuracy) >= experiments.SCORE_LONG_MIN, result


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_exposure_bias_and_scheduled_sampling(seed):
    result = experiments.exposure_bias(seed)
    assert experiments.exposure_claim(result), result


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_beam_search_against_greedy(seed):
    result = experiments.beam_vs_greedy(seed)
    assert experiments.beam_claim(result), result
