"""Chapter 02's claims on other seeds (the notebook asserts the same on seed 0).

A neural language model reading five characters, concatenated, beats add-one bigram counts on the
same 55,769 held-out predictions; averaging the same five characters does worse than the bigram.
"""

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments.before_recurrence import train_nnlm
from dl4nlp.ngram import perplexity


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_concatenation_beats_counts_and_averaging(seed):
    concat = train_nnlm(seed=seed, combine="concat")
    mean = train_nnlm(seed=seed, combine="mean")
    bigram = perplexity(concat.bigram_loss)
    assert concat.heldout_predictions == mean.heldout_predictions == 55_769
    assert round(bigram, 1) == 11.9
    assert 7 < concat.heldout_perplexity < 9.5, concat.heldout_perplexity
    assert mean.heldout_perplexity > bigram + 2 and 15 < mean.heldout_perplexity < 20, (mean.heldout_perplexity, bigram)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_textcnn_beats_majority_but_not_bag_of_words(seed):
    """Section 6's claims on other seeds: TextCNN > majority + 0.15, bag of words > TextCNN, TextCNN overfits."""
    from dl4nlp.experiments.before_recurrence import majority_accuracy, train_bag_of_words, train_textcnn

    cnn, bow = train_textcnn(seed=seed), train_bag_of_words(seed=seed)
    majority = majority_accuracy()
    assert round(majority, 3) == 0.263
    assert cnn.test_accuracy > majority + 0.15, (cnn.test_accuracy, majority)
    assert bow.test_accuracy > cnn.test_accuracy, (bow.test_accuracy, cnn.test_accuracy)
    assert cnn.train_accuracy > cnn.test_accuracy + 0.2, (cnn.train_accuracy, cnn.test_accuracy)


def test_backbone_table_is_measured_and_counted():
    """Section 7's table: reach by gradients, parameters by numel, FLOPs by formula and by PyTorch's counter."""
    from dl4nlp.experiments.before_recurrence import compare_backbones

    for d, T, n, k in ((64, 64, 5, 3), (32, 20, 3, 5)):
        rows = compare_backbones(d=d, T=T, n=n, k=k)
        assert [row.reach for row in rows] == [n - 1, k - 1, T - 1, T - 1]
        assert [row.parameters for row in rows] == [n * d * d + d, k * d * d + d, 2 * d * d + 2 * d, 4 * d * d + 4 * d]
        assert all(row.counted_flops_per_token == row.flops_per_token for row in rows)
