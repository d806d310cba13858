"""dl4nlp.unigram: Viterbi against brute force and Hugging Face's Unigram model; EM's expected counts by hand."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.bpe import word_counts
from dl4nlp.data import load_text
from dl4nlp.unigram import UNK, Unigram, expected_counts, removal_losses, unigram_splits, viterbi

tokenizers = pytest.importorskip("tokenizers")

PIECES = {"a": -2.0, "b": -2.5, "c": -2.2, "ab": -3.0, "bc": -3.1, "abc": -6.0, "ca": -4.0}


def reference(model: Unigram):
    """Hugging Face's Unigram model on our pieces, [UNK] first, lowercased and split like ours."""
    hf = tokenizers.Tokenizer(tokenizers.models.Unigram([(UNK, 0.0)] + model.pieces, unk_id=0))
    hf.normalizer = tokenizers.normalizers.Lowercase()
    hf.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    return hf


@pytest.fixture(scope="module")
def trained():
    text = load_text("tinystories.txt")[:60_000]
    return Unigram.train(word_counts(text), vocab_size=120)


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet="abc", min_size=1, max_size=9))
def test_viterbi_finds_the_best_of_all_splits(word):
    splits = unigram_splits(word, PIECES)
    best = max(sum(PIECES[p] for p in s) for s in splits)
    pieces, score = viterbi(word, PIECES)
    assert "".join(pieces) == word and math.isclose(score, best) and math.isclose(sum(PIECES[p] for p in pieces), score)


def test_the_number_of_splits_with_every_substring_is_two_to_the_n_minus_one():
    word = "abcdef"
    every = {word[i:j] for i in range(len(word)) for j in range(i + 1, len(word) + 1)}
    assert len(unigram_splits(word, every)) == 2 ** (len(word) - 1)


def test_expected_counts_sum_over_all_splits_weighted_by_probability():
    log_probs = {"a": math.log(0.2), "b": math.log(0.3), "ab": math.log(0.5)}
    counts, likelihood = expected_counts({"ab": 3, "b": 1}, log_probs)
    z = 0.2 * 0.3 + 0.5  # the two splits of "ab"
    assert math.isclose(counts["ab"], 3 * 0.5 / z)
    assert math.isclose(counts["a"], 3 * 0.06 / z) and math.isclose(counts["b"], 3 * 0.06 / z + 1)
    assert math.isclose(likelihood, 3 * math.log(z) + math.log(0.3))


def test_training_keeps_the_alphabet_and_reaches_the_size(trained):
    text = load_text("tinystories.txt")[:60_000].lower()
    alphabet = {ch for word in word_counts(text) for ch in word}
    assert len(trained) == 120 and alphabet <= set(trained.log_probs)
    assert math.isclose(sum(math.exp(v) for v in trained.log_probs.values()), 1.0)
    sizes = [n for n, _ in trained.history]
    assert sizes[-1] == 120 and all(a > b for a, b in zip(sizes, sizes[1:]))


def test_unused_pieces_cost_nothing_to_remove():
    losses = removal_losses({"ab": 5}, {"a": -1.0, "b": -1.0, "ab": -0.5, "ba": -0.1})
    assert losses["ba"] == 0.0 and math.isclose(losses["ab"], 5 * (-0.5 - (-2.0)))


def test_equal_to_hugging_faces_unigram_on_held_out_text_with_unknown_characters(trained):
    hf = reference(trained)
    ids = {p: i for i, (p, _) in enumerate([(UNK, 0.0)] + trained.pieces)}
    lines = [t for t in load_text("sherlock_holmes.txt").splitlines() if t.strip()][:400]
    lines.append("Café naïve — “Holmes!” 🙂👍🏽 ½")
    for line in lines:
        assert [ids[p] for p in trained.tokenize(line)] == hf.encode(line).ids, line
    assert UNK in trained.tokenize("🙂👍🏽") and trained.tokenize("🙂👍🏽") == [UNK]  # fused, as Hugging Face


def test_a_word_that_cannot_be_split_raises_without_unk():
    with pytest.raises(ValueError, match="cannot be split"):
        viterbi("abz", PIECES)
    assert viterbi("abz", PIECES, unk_score=-20.0)[0] == ["ab", UNK]
