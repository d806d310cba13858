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
