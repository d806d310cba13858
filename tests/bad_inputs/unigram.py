"""Bad inputs of dl4nlp.unigram (the Unigram tokenizer of notebook 12)."""

import functools

from bad_inputs.harness import cases, int_variants, vary
from dl4nlp import unigram as U

LOG_PROBS = {"a": -1.0, "b": -1.5, "ab": -1.2}
COUNTS = {"ab": 3, "ba": 1}
BAD_LOG_PROBS = [
    ("a list", [("a", -1.0)], "list"),
    ("empty", {}, "{}"),
    ("a probability above 1", {"a": 0.5}, "0.5"),
    ("a NaN", {"a": float("nan")}, "nan"),
    ("an empty piece", {"": -1.0}, "''"),
]
BAD_COUNTS = [
    ("a list", ["ab"], "list"),
    ("empty", {}, "{}"),
    ("a zero count", {"ab": 0}, "0"),
    ("an empty word", {"": 2}, "''"),
]


@functools.cache
def model() -> U.Unigram:
    return U.Unigram(LOG_PROBS)


@cases("dl4nlp.unigram.viterbi")
def _():
    good = dict(word="abab", log_probs=LOG_PROBS)
    yield from vary(U.viterbi, good, "word", [("empty", "", "''"), ("an int", 3, "int")])
    yield from vary(U.viterbi, good, "log_probs", BAD_LOG_PROBS)
    yield from vary(U.viterbi, good, "unk_score", [("a string", "low", "str"), ("inf", float("-inf"), "inf")])
    yield "word: a character no piece covers", lambda: U.viterbi("abz", LOG_PROBS), ("abz", "split")


@cases("dl4nlp.unigram.unigram_splits")
def _():
    good = dict(word="abab", pieces=LOG_PROBS)
    yield from vary(U.unigram_splits, good, "word", [("empty", "", "''"), ("too long", "a" * 21, "21")])
    yield from vary(U.unigram_splits, good, "pieces", [("a list", ["a", "b"], "list")])


@cases("dl4nlp.unigram.expected_counts")
def _():
    good = dict(counts=COUNTS, log_probs=LOG_PROBS)
    yield from vary(U.expected_counts, good, "counts", BAD_COUNTS)
    yield from vary(U.expected_counts, good, "log_probs", BAD_LOG_PROBS)


@cases("dl4nlp.unigram.removal_losses")
def _():
    good = dict(counts=COUNTS, log_probs=LOG_PROBS)
    yield from vary(U.removal_losses, good, "counts", BAD_COUNTS)
    yield from vary(U.removal_losses, good, "log_probs", BAD_LOG_PROBS)


@cases("dl4nlp.unigram.seed_pieces")
def _():
    good = dict(counts=COUNTS, size=10)
    yield from vary(U.seed_pieces, good, "counts", BAD_COUNTS)
    yield from vary(U.seed_pieces, good, "size", int_variants(1))
    yield from vary(U.seed_pieces, good, "max_piece_len", [("one", 1, "1")])


@cases("dl4nlp.unigram.Unigram")
def _():
    good = dict(log_probs=LOG_PROBS)
    yield from vary(U.Unigram, good, "log_probs", [*BAD_LOG_PROBS, ("with [UNK]", {"[UNK]": -1.0}, "[UNK]")])
    yield from vary(U.Unigram, good, "lowercase", [("a string", "yes", "str")])


@cases("dl4nlp.unigram.Unigram.train")
def _():
    good = dict(counts=COUNTS, vocab_size=4)
    yield from vary(U.Unigram.train, good, "counts", BAD_COUNTS)
    yield from vary(U.Unigram.train, good, "vocab_size", int_variants(1))
    yield from vary(U.Unigram.train, good, "seed_size", [("below vocab_size", 2, "2")])
    yield from vary(U.Unigram.train, good, "shrink", [("one", 1.0, "1"), ("zero", 0.0, "0"), ("a string", "x", "str")])
    yield from vary(U.Unigram.train, good, "em_steps", [("zero", 0, "0")])
    yield from vary(U.Unigram.train, good, "max_piece_len", [("one", 1, "1")])


@cases("dl4nlp.unigram.Unigram.tokenize")
def _():
    yield from vary(model().tokenize, {"text": "ab"}, "text", [("an int", 3, "int"), ("a list", ["ab"], "list")])


@cases("dl4nlp.unigram.Unigram.tokenize_word")
def _():
    yield from vary(model().tokenize_word, {"word": "ab"}, "word", [("empty", "", "''"), ("None", None, "None")])
