"""Bad inputs of dl4nlp.bpe."""

import functools

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp import bpe

COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

exempt("a record of one learned merge that train_bpe returns", "dl4nlp.bpe.Merge")


@functools.cache
def trained() -> bpe.BPE:
    return bpe.train_bpe(COUNTS, 3)


@functools.cache
def vocab() -> bpe.WordVocab:
    return bpe.WordVocab.build(["the cat sat", "the dog ran"], max_size=20)


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


@cases("dl4nlp.bpe.WordVocab")
def _():
    yield "tokens: a string", lambda: bpe.WordVocab("hello"), ("tokens", "str")
    yield "tokens: a repeated word", lambda: bpe.WordVocab(["the", "cat", "the"]), ("tokens", "'the'")
    yield "tokens: not strings", lambda: bpe.WordVocab([1, 2]), ("tokens", "1")
    yield (
        "specials: without [MASK]",
        lambda: bpe.WordVocab(["the"], specials=("[PAD]", "[UNK]", "[CLS]", "[SEP]")),
        ("specials", "[MASK]"),
    )


@cases("dl4nlp.bpe.WordVocab.build")
def _():
    good = dict(texts=["the cat sat"], max_size=20)
    yield from vary(
        bpe.WordVocab.build,
        good,
        "texts",
        [("a string (one text)", "the cat sat", "str"), ("empty", [], "[]"), ("numbers", [1, 2], "int")],
    )
    yield from vary(bpe.WordVocab.build, good, "max_size", int_variants(6) + [("only the special tokens", 5, "5")])
    yield from vary(bpe.WordVocab.build, good, "min_count", int_variants(1))


@cases("dl4nlp.bpe.WordVocab.encode")
def _():
    yield "text: a list of words", lambda: vocab().encode(["the", "cat"]), ("text", "list")
    yield "text: None", lambda: vocab().encode(None), ("text", "None")


@cases("dl4nlp.bpe.WordVocab.decode")
def _():
    n = len(vocab())
    yield "ids: an id beyond the vocabulary", lambda: vocab().decode([5, n]), ("ids", str(n))
    yield "ids: a negative id", lambda: vocab().decode([5, -1]), ("ids", "-1")
    yield "ids: a string of digits", lambda: vocab().decode("56"), ("ids", "str")
    yield "ids: a float", lambda: vocab().decode([5.5]), ("ids", "5.5")
    yield "ids: a 2-D tensor", lambda: vocab().decode(torch.tensor([[5, 6]])), ("ids", "(1, 2)")


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
