"""Chapter 06's experiment-level claims, re-run on the claim seeds (chapter 06 asserts them on seed 0).

Budget: about 40 s of CPU for the whole file; the experiments share trained models through
``train_reverser``'s cache, so each seed trains four small models (dot, none, general, additive).
"""

from dataclasses import replace

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
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


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_the_live_100_step_run_agrees_with_the_shipped_table_within_3_points(seed):
    """Chapter 06's Going further compares its live run with the shipped table to 0.03 in accuracy."""
    table = experiments.load_budget_table()
    shipped = experiments.budget_accuracy(table, seed, experiments.REVERSAL.steps)
    live = dict(zip(experiments.LENGTHS, experiments.bottleneck(seed).bottleneck))
    assert max(abs(shipped[n] - live[n]) for n in experiments.LENGTHS) <= 0.03, (shipped, live)


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


def test_every_shipped_translator_rests_its_attention_on_the_final_punctuation():
    """Section 8's claims on all three shipped translators (the notebook checks them too; seed 0 drawn)."""
    from dl4nlp import translation
    from dl4nlp.data import data_path
    from dl4nlp.seq2seq import Seq2Seq

    english = list(translation.references("test"))
    train = {e for e, _ in translation.sentence_pairs("train")}
    assert not train & set(english) and len(english) == 1124
    for name in translation.CHECKPOINTS:
        agreement = translation.attention_agreement(Seq2Seq.load(data_path(name)), english)
        assert agreement["on_punctuation"] >= 0.985 and agreement["on_aligned"] <= 0.05, (name, agreement)


def test_every_word_key_translator_aligns_and_crosses():
    """Section 8's claims on the three translators whose attention weighs only the words (the notebook checks them)."""
    from dl4nlp import translation
    from dl4nlp.data import data_path
    from dl4nlp.seq2seq import Seq2Seq

    english = list(translation.references("test"))
    expected = {c.english for c in translation.expected_crossings(english)}
    assert len(expected) == 57
    for seed, name in enumerate(translation.ALIGNED_CHECKPOINTS):
        model = Seq2Seq.load(data_path(name))
        shared = translation.reference_alignments(model, english)
        agreement = translation.attention_agreement(model, english, alignments=shared)
        crossings = translation.crossing_alignments(model, english, alignments=shared)
        assert 0.6 <= agreement["on_aligned"] <= 0.72 and agreement["on_punctuation"] == 0.0, (name, agreement)
        assert (len(crossings) >= 30) if seed == 0 else (1 <= len(crossings) <= 10), (name, len(crossings))
        assert {c.english for c in crossings} <= expected, name
    plain = Seq2Seq.load(data_path(translation.CHECKPOINTS[0]))
    assert not translation.crossing_alignments(plain, english)
