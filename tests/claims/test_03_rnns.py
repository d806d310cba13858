"""Chapter 03's claims on other seeds (the notebook asserts the same on seed 0)."""

import numpy as np
import pytest
import torch

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import rnn as e
from dl4nlp.ngram import perplexity


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_jacobian_products(seed):
    result = e.jacobian_products(seed=seed)
    k = np.arange(result.distance + 1)
    for rho in result.radii:
        assert np.allclose(result.linear[rho], rho**k, rtol=1e-9)
        assert np.all(np.array(result.tanh[rho]) <= rho**k * (1 + 1e-9))
    end = {rho: result.tanh[rho][-1] for rho in result.radii}
    assert all(end[rho] < e.VANISHED for rho in (0.5, 0.9, 1.0)), end
    assert 1 < end[1.5] < 1e-9 * 1.5**result.distance and end[3.0] > 1e3, end


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_gradient_reaching_inputs(seed):
    ratios = e.gradient_reaching_inputs(seed=seed).first_over_last
    assert all(ratios[rho] < e.VANISHED for rho in (0.5, 0.9, 1.0)), ratios


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_language_model(seed):
    run = e.language_model(seed=seed)
    assert run.heldout_windows_in_training == 0
    assert np.mean(run.losses[-10:]) < run.losses[0] - 1.5
    assert perplexity(run.heldout_loss) < e.RNN_BELOW_BIGRAM * perplexity(run.bigram_loss)
    assert perplexity(run.bigram_loss) < 0.5 * perplexity(run.unigram_loss) < 0.5 * run.vocab_size
    assert 7 < perplexity(run.heldout_loss) < 9.5
    assert abs(run.sample_space_fraction - run.heldout_space_fraction) < e.SPACE_TOLERANCE
    assert run.sample_real_words < e.REAL_WORDS


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_clipping(seed):
    run = e.clipping(seed=seed)
    assert run.unclipped_failed >= 3, [run.final(r) for r in run.unclipped]
    assert not any(run.clipped_diverged)
    assert sum(run.final(r) < e.CLIPPED_FINAL for r in run.clipped) >= e.CLIPPED_LEARN, [
        run.final(r) for r in run.clipped
    ]


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_memory_by_lag(seed):
    """Only the lags the notebook's checkpoint states something about."""
    tanh_default, tanh_identity, irnn = e.VARIANTS
    run = e.memory_by_lag(seed=seed, lags=(5, 20, 50), variants=(tanh_default,))
    assert 60 < run.heldout_in_training[0] < 120 and run.heldout_in_training[1:] == (0, 0), run.heldout_in_training
    default = run.accuracy[tanh_default]
    assert default[0] > e.SOLVED and max(default[1:]) < e.AT_CHANCE, default
    identity = e.memory_by_lag(seed=seed, lags=(20, 50), variants=(tanh_identity,)).accuracy[tanh_identity]
    assert identity[0] > e.ABOVE_CHANCE and identity[1] < e.AT_CHANCE, identity
    relu = e.memory_by_lag(seed=seed, lags=(50,), variants=(irnn,)).accuracy[irnn]
    assert relu[0] > e.REACHES, relu
    IRNN_LAG_50[seed] = relu[0]
    assert e.irnn_learning_rate(seed=seed) < e.FAILED_LR


def test_the_shipped_section_6_runs_are_what_the_notebook_claims():
    """The notebook loads seed 0's memory_by_lag (load_memory_by_lag) and asserts these sides of the thresholds; seeds
    1-3 are re-run live above. The re-run of the shipped row itself is tests/test_rnn_memory_by_lag.py."""
    tanh_default, tanh_identity, irnn = e.VARIANTS
    shipped = e.load_memory_by_lag(seed=0)
    accuracy, lags = shipped.run.accuracy, {lag: i for i, lag in enumerate(shipped.run.lags)}
    assert accuracy[tanh_default][lags[5]] > e.SOLVED
    assert max(accuracy[tanh_default][lags[20]], accuracy[tanh_default][lags[50]]) < e.AT_CHANCE
    assert accuracy[tanh_identity][lags[20]] > e.ABOVE_CHANCE > e.AT_CHANCE > accuracy[tanh_identity][lags[50]]
    assert accuracy[irnn][lags[50]] > e.REACHES and shipped.irnn_larger_lr < e.FAILED_LR
    assert 60 < shipped.run.heldout_in_training[0] < 120 and shipped.run.heldout_in_training[1:] == (0, 0, 0)


IRNN_LAG_50: dict = {}  # seed -> the IRNN's accuracy at lag 50, filled by test_memory_by_lag


def test_the_irnn_solves_lag_50_outright_on_most_seeds():
    """ "On most seeds it solves it outright": at least two of the three claim seeds above SOLVED."""
    tanh_default, tanh_identity, irnn = e.VARIANTS
    for seed in CLAIM_SEEDS:
        if seed not in IRNN_LAG_50:  # run alone, or on another worker than test_memory_by_lag
            IRNN_LAG_50[seed] = e.memory_by_lag(seed=seed, lags=(50,), variants=(irnn,)).accuracy[irnn][0]
    assert sum(IRNN_LAG_50[seed] > e.SOLVED for seed in CLAIM_SEEDS) >= 2, IRNN_LAG_50


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_initial_gradient_ratio(seed):
    ratio = e.initial_gradient_ratio(seed=seed)
    tanh_default, tanh_identity, irnn = e.VARIANTS
    assert ratio[tanh_default] < 1e-10 and 1e-3 < ratio[tanh_identity] < 1e-1 and ratio[irnn] > 0.1, ratio


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_initial_spectral_radius(seed):
    radius = {
        variant: torch.linalg.eigvals(e.memory_model(variant, seed).recurrent.weight_hh_l0.detach()).abs().max().item()
        for variant in e.VARIANTS
    }
    tanh_default, tanh_identity, irnn = e.VARIANTS
    assert 0.5 < radius[tanh_default] < 0.7 and radius[tanh_identity] == radius[irnn] == 1, radius


TRUNCATED: dict[int, object] = {}


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_truncated_bptt_at_k_below_the_lag_learns_above_chance_but_less_than_full_bptt(seed):
    """Going further: the gradient cut every 10 steps never reaches the lag-20 signal, yet the carried state does."""
    TRUNCATED[seed] = run = e.truncated_memory(seed=seed)
    assert run.full > e.SOLVED and run.heldout_in_training == 0, run
    assert 0.3 < run.truncated < 0.9, run  # seeds 0-3 ended at 0.56, 0.80, 0.38, 0.74 on the bench machine


def test_truncated_bptt_learns_more_than_half_on_most_seeds():
    for seed in CLAIM_SEEDS:
        if seed not in TRUNCATED:
            TRUNCATED[seed] = e.truncated_memory(seed=seed)
    assert sum(TRUNCATED[seed].truncated > 0.5 for seed in CLAIM_SEEDS) >= 2, TRUNCATED


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_book_training(seed):
    """Section 2's truncated-BPTT training on the book (the reference loop; the notebook runs the student's)."""
    run = e.book_training(seed=seed)
    assert run.characters == 40_960 and run.streams_end < run.heldout_start
    assert np.mean(run.losses[-10:]) < run.losses[0] - 1.5, run.losses
    assert 9 < perplexity(run.heldout_loss) < 12.5, perplexity(run.heldout_loss)
