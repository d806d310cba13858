"""Bad inputs of dl4nlp.bpe."""

import functools

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp import bpe

COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

exempt("a record of one learned merge that train_bpe returns", "dl4nlp.bpe.Merge")


@functools.cache
def trained() -> bpe.BPE:
    return bpe.train_bpe(COUNTS, 3)


@cases("dl4nlp.bpe.merge_loop")
def _():
    good = dict(words={("l", "o", "w"): 5}, num_merges=2)
    yield from vary(
        bpe.merge_loop,
        good,
        "words",
        [
            ("word counts as strings", {"low": 5}, "low"),
            ("empty", {}, "{}"),
            ("a list", [("l", "o")], "list"),
            ("a zero count", {("l", "o"): 0}, "0"),
            ("an empty symbol", {("l", ""): 1}, "''"),
        ],
    )
    yield from vary(bpe.merge_loop, good, "num_merges", int_variants(0))


@cases("dl4nlp.bpe.pre_tokenize")
def _():
    yield "text: a list of strings", lambda: bpe.pre_tokenize(["the", "dog"]), ("text", "list")
    yield "text: None", lambda: bpe.pre_tokenize(None), ("text", "None")
    yield "text: bytes", lambda: bpe.pre_tokenize(b"the dog"), ("text", "bytes")


@cases("dl4nlp.bpe.word_counts")
def _():
    yield "text: a list of strings", lambda: bpe.word_counts(["the", "dog"]), ("text", "list")
    yield "text: None", lambda: bpe.word_counts(None), ("text", "None")
    yield "text: bytes", lambda: bpe.word_counts(b"the dog"), ("text", "bytes")


@cases("dl4nlp.bpe.BPE")
def _():
    yield "alphabet: a string", lambda: bpe.BPE("abc", []), ("alphabet", "str")
    yield "merges: pairs of strings, not Merge records", lambda: bpe.BPE(["a", "b"], [("a", "b")]), ("merges", "tuple")
    yield (
        "merges: a merge of symbols not in the alphabet",
        lambda: bpe.BPE(["a"], [bpe.Merge("x", "y", 1, 1.0)]),
        ("merges", "'x'"),
    )


@cases("dl4nlp.bpe.BPE.tokenize_word")
def _():
    model = trained()
    yield "word: two words", lambda: model.tokenize_word("low lower"), ("word", "'low lower'")
    yield "word: a list of characters", lambda: model.tokenize_word(["l", "o", "w"]), ("word", "list")
    yield "word: None", lambda: model.tokenize_word(None), ("word", "None")
    yield "word: empty", lambda: model.tokenize_word(""), ("word", "''")


@cases("dl4nlp.bpe.BPE.tokenize")
def _():
    model = trained()
    yield "text: None", lambda: model.tokenize(None), ("text", "None")
    yield "text: a list of words", lambda: model.tokenize(["low", "lower"]), ("text", "list")
    yield "continuation: None", lambda: model.tokenize("lowest", continuation=None), ("continuation", "None")


@cases("dl4nlp.bpe.train_bpe")
def _():
    good = dict(counts=COUNTS, num_merges=3)
    yield from vary(
        bpe.train_bpe,
        good,
        "counts",
        [
            ("a string of text", "low lower newest", "str"),
            ("a list of words", ["low", "lower"], "list"),
            ("empty", {}, "{}"),
            ("a float count", {"low": 2.5}, "2.5"),
            ("a zero count", {"low": 0}, "0"),
            ("an empty word", {"": 3}, "''"),
            ("a word that is not a string", {12: 3}, "12"),
            ("a bool count", {"low": True}, "True"),
        ],
    )
    yield from vary(bpe.train_bpe, good, "num_merges", int_variants(0))
    yield from vary(bpe.train_bpe, good, "score", choice_variants(bpe.SCORES))
    yield (
        "fast: with the wordpiece score",
        lambda: bpe.train_bpe(COUNTS, 3, score="wordpiece", fast=True),
        ("fast", "wordpiece"),
    )


@cases("dl4nlp.bpe.BPE.joined")
def _():
    yield "merge: a pair of strings", lambda: trained().joined(("l", "o")), ("merge", "tuple")
    yield "merge: None", lambda: trained().joined(None), ("merge", "None")


@cases("dl4nlp.bpe.initial_alphabet")
def _():
    yield "counts: a string of text", lambda: bpe.initial_alphabet("low lower"), ("counts", "str")
    yield "counts: None", lambda: bpe.initial_alphabet(None), ("counts", "None")
    yield "counts: ints", lambda: bpe.initial_alphabet([1, 2]), ("counts", "int")
    yield "continuation: None", lambda: bpe.initial_alphabet(["low"], continuation=None), ("continuation", "None")


@cases("dl4nlp.bpe.is_word_char")
def _():
    yield "ch: two characters", lambda: bpe.is_word_char("ab"), ("ch", "'ab'")
    yield "ch: empty", lambda: bpe.is_word_char(""), ("ch", "''")
    yield "ch: an int", lambda: bpe.is_word_char(97), ("ch", "97")
    yield "ch: None", lambda: bpe.is_word_char(None), ("ch", "None")


@cases("dl4nlp.bpe.word_pattern")
def _():
    yield "text: None", lambda: bpe.word_pattern(None), ("text", "None")
    yield "text: a list", lambda: bpe.word_pattern(["a"]), ("text", "list")
    yield "text: bytes", lambda: bpe.word_pattern(b"a"), ("text", "bytes")
