"""Chapter 12's comparison of section 6, on other slices of TinyStories.

The notebook trains BPE (300 merges), a Unigram tokenizer of the same size and
a WordPiece vocabulary of the same size on the first 300,000 characters of
TinyStories and counts pieces per word on the next 40,000. What it states
(Unigram and BPE within 5 % of each other, WordPiece the most) is checked here on three other slices, each
trained and tested on disjoint text (a held-out line that also occurs
in the training slice, as a few short lines of TinyStories do, is dropped).
"""

import pytest

from dl4nlp.bpe import pre_tokenize, train_bpe, word_counts
from dl4nlp.data import load_text
from dl4nlp.unigram import Unigram
from dl4nlp.wordpiece import WordPiece

SLICES = [340_000, 600_000, 300_000]  # start of each 300,000-character training slice


@pytest.mark.parametrize("start", SLICES)
def test_unigram_and_bpe_need_about_as_many_pieces_per_held_out_word_and_wordpiece_the_most(start):
    text = load_text("tinystories.txt")
    train = text[start : start + 300_000].lower()
    lines = [t for t in text[start + 300_000 : start + 340_000].split("\n") if t.strip()]
    held_out = [t for t in lines if t.lower() not in train]  # TinyStories repeats a few short lines
    assert len(held_out) > 0.9 * len(lines) > 100
    bpe = train_bpe(word_counts(train), num_merges=300, fast=True)
    unigram = Unigram.train(word_counts(train), vocab_size=len(bpe.vocabulary))
    wordpiece = WordPiece.train([train], vocab_size=len(bpe.vocabulary) + 5)
    assert len(unigram) == len(bpe.vocabulary)
    words = sum(len(pre_tokenize(t)) for t in held_out)
    per_word = {
        name: sum(len(tokenize(t)) for t in held_out) / words
        for name, tokenize in (("unigram", unigram.tokenize), ("bpe", bpe.tokenize), ("wordpiece", wordpiece.tokenize))
    }
    assert abs(per_word["unigram"] / per_word["bpe"] - 1) < 0.05, per_word
    assert max(per_word["unigram"], per_word["bpe"]) < per_word["wordpiece"], per_word
    sizes = [size for size, _ in unigram.history]
    likelihoods = [ll for _, ll in unigram.history]
    assert all(a > b for a, b in zip(sizes, sizes[1:])) and all(a > b for a, b in zip(likelihoods, likelihoods[1:]))
