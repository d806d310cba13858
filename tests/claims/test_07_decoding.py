"""Chapter 07's experiment-level claims, re-run on the claim seeds (chapter 07 asserts them on seed 0).

Budget: about 40 s of CPU for the whole file: each seed trains three small reversers (teacher-forced,
scheduled sampling, no attention) through ``train_reverser``'s cache, and the length-normalisation
claim decodes other samples of held-out words with the shipped pronunciation model (no training).
"""

import pytest

from dl4nlp import translation
from dl4nlp.checkpoint import read_provenance
from dl4nlp.data import data_path
from dl4nlp.experiments import CLAIM_SEEDS, length_normalisation
from dl4nlp.experiments import seq2seq as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_exposure_bias_and_scheduled_sampling(seed):
    result = experiments.exposure_bias(seed)
    assert experiments.exposure_claim(result), result


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_beam_search_against_greedy(seed):
    result = experiments.beam_vs_greedy(seed)
    assert experiments.beam_claim(result), result


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


@pytest.mark.parametrize("checkpoint", translation.CHECKPOINTS + translation.ALIGNED_CHECKPOINTS)
def test_decoding_claims_hold_for_every_shipped_translator(checkpoint):
    record = read_provenance(data_path(checkpoint))
    assert translation.decoding_claim(record), translation.decoding_claim_sentence(0, record)
