"""Notebook 04's experiment-level claims, re-run on the claim seeds (notebook 04 asserts them on seed 0).

Budget: at most 70 s of CPU for the whole file (about 54 s measured, plus about 8 s for length
normalisation); the experiments share trained models through ``train_reverser``'s cache, so each seed
trains five small models. The length-normalisation claim decodes other samples of held-out words with
the shipped pronunciation model (no training).
"""

from dataclasses import replace

import pytest

from dl4nlp.experiments import CLAIM_SEEDS, length_normalisation
from dl4nlp.experiments import seq2seq as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_attention_beats_the_bottleneck_at_long_inputs(seed):
    result = experiments.bottleneck(seed)
    assert experiments.bottleneck_claim(result), result


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


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_held_out_strings_are_never_training_strings(seed):
    training = {source for source, _ in experiments.training_strings(seed)}
    held_out = [source for n in experiments.LENGTHS for source, _ in experiments.held_out_strings(n, seed)]
    assert held_out and not any(source in training for source in held_out)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_longer_training_at_the_notebooks_budget_is_the_bottleneck_run(seed):
    """At 100 steps ``longer_training`` is ``bottleneck``'s no-attention model (cached: no new training), so the
    table's first budget starts where the notebook's figure does."""
    run = experiments.longer_training(seed, experiments.REVERSAL.steps)
    assert run.accuracy == experiments.bottleneck(seed).bottleneck
    assert max(dict(zip(run.lengths, run.accuracy))[n] for n in experiments.LONG) <= experiments.BOTTLENECK_LONG_MAX


def test_more_training_lets_the_bottleneck_model_catch_up_on_every_shipped_seed():
    """The shipped longer-training table (``python -m dl4nlp.recipes.reverser_budget``, no training here)."""
    table = experiments.load_budget_table()
    assert set(CLAIM_SEEDS) <= set(table["seeds"])
    for seed in table["seeds"]:
        assert experiments.budget_claim(table, seed), {steps: experiments.budget_accuracy(table, seed, steps)
                                                       for steps in table["budgets"]}  # fmt: skip


def test_train_reverser_trains_each_variant_and_seed_once():
    variant = replace(experiments.REVERSAL, steps=2)
    model, history = experiments.train_reverser(variant, 1)
    assert experiments.train_reverser(variant, 1)[0] is model and len(history.loss) == 2


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_length_normalisation_hardly_changes_the_pronunciation_models_answers(seed):
    result = length_normalisation.length_normalisation(seed)
    assert length_normalisation.length_normalisation_claim(result), result


def test_the_length_normalisation_words_are_held_out_and_differ_by_seed():
    from dl4nlp.phonemes import phoneme_pairs
    from dl4nlp.recipes.phoneme_model import held_out_pairs

    samples = {seed: {w for w, _ in length_normalisation.held_out_words(seed)} for seed in (0, *CLAIM_SEEDS)}
    excluded = {w for w, _ in phoneme_pairs("train")} | {w for w, _ in held_out_pairs()}  # trained on, or tested above
    assert all(len(words) == length_normalisation.WORDS and not words & excluded for words in samples.values())
    assert all(samples[0] != samples[seed] for seed in CLAIM_SEEDS)
