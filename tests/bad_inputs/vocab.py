"""Bad inputs of dl4nlp.vocab (the character, word and seq2seq vocabularies)."""

import functools

import torch

from bad_inputs.harness import cases, id_variants, int_variants, vary
from dl4nlp import vocab as V
from dl4nlp.date_task import SOURCE_VOCAB, TARGET_VOCAB


@functools.cache
def vocab() -> V.WordVocab:
    return V.WordVocab.build(["the cat sat", "the dog ran"], max_size=20)


@cases("dl4nlp.vocab.CharVocab")
def _():
    yield from vary(
        V.CharVocab,
        {},
        "chars",
        [
            ("a repeated character", "abca", "'a'"),
            ("empty", "", "''"),
            ("a list", ["a", "b"], "list"),
            ("None", None, "None"),
        ],
    )


@cases("dl4nlp.vocab.CharVocab.from_text")
def _():
    yield from vary(
        V.CharVocab.from_text,
        {},
        "text",
        [("empty", "", "''"), ("a list of words", ["ab", "c"], "list"), ("None", None, "None")],
    )


@cases("dl4nlp.vocab.CharVocab.encode")
def _():
    vocab = V.CharVocab("abc")
    yield from vary(
        vocab.encode,
        {},
        "text",
        [("an unknown character", "abd", "'d'"), ("a list of strings", ["ab"], "list"), ("None", None, "None")],
    )


@cases("dl4nlp.vocab.CharVocab.decode")
def _():
    vocab = V.CharVocab("abc")
    ids = torch.tensor([0, 1])
    yield from vary(
        vocab.decode,
        {},
        "ids",
        [v for v in id_variants(ids, 3) if v[0] not in ("one dimension too many", "an empty batch")]
        + [("a 2-D tensor", ids[None], "(1, 2)"), ("a float", [1.5], "1.5"), ("None", None, "None")],
    )


@cases("dl4nlp.vocab.WordVocab")
def _():
    yield "tokens: a string", lambda: V.WordVocab("hello"), ("tokens", "str")
    yield "tokens: a repeated word", lambda: V.WordVocab(["the", "cat", "the"]), ("tokens", "'the'")
    yield "tokens: not strings", lambda: V.WordVocab([1, 2]), ("tokens", "1")
    yield (
        "specials: without [MASK]",
        lambda: V.WordVocab(["the"], specials=("[PAD]", "[UNK]", "[CLS]", "[SEP]")),
        ("specials", "[MASK]"),
    )


@cases("dl4nlp.vocab.WordVocab.build")
def _():
    good = dict(texts=["the cat sat"], max_size=20)
    yield from vary(
        V.WordVocab.build,
        good,
        "texts",
        [("a string (one text)", "the cat sat", "str"), ("empty", [], "[]"), ("numbers", [1, 2], "int")],
    )
    yield from vary(V.WordVocab.build, good, "max_size", int_variants(6) + [("only the special tokens", 5, "5")])
    yield from vary(V.WordVocab.build, good, "min_count", int_variants(1))


@cases("dl4nlp.vocab.WordVocab.encode")
def _():
    yield "text: a list of words", lambda: vocab().encode(["the", "cat"]), ("text", "list")
    yield "text: None", lambda: vocab().encode(None), ("text", "None")


@cases("dl4nlp.vocab.WordVocab.decode")
def _():
    n = len(vocab())
    yield "ids: an id beyond the vocabulary", lambda: vocab().decode([5, n]), ("ids", str(n))
    yield "ids: a negative id", lambda: vocab().decode([5, -1]), ("ids", "-1")
    yield "ids: a string of digits", lambda: vocab().decode("56"), ("ids", "str")
    yield "ids: a float", lambda: vocab().decode([5.5]), ("ids", "5.5")
    yield "ids: a 2-D tensor", lambda: vocab().decode(torch.tensor([[5, 6]])), ("ids", "(1, 2)")


@cases("dl4nlp.vocab.Seq2SeqVocab")
def _():
    yield "alphabet: a repeated character", lambda: V.Seq2SeqVocab("abca"), ("alphabet", "'a'")
    yield "alphabet: empty", lambda: V.Seq2SeqVocab(""), ("alphabet", "''")
    yield "alphabet: None", lambda: V.Seq2SeqVocab(None), ("alphabet", "None")
    yield "alphabet: words without a separator", lambda: V.Seq2SeqVocab(["ab", "c"]), ("alphabet", "'ab'")


@cases("dl4nlp.vocab.Seq2SeqVocab.encode")
def _():
    vocab = SOURCE_VOCAB
    yield "text: an unknown character", lambda: vocab.encode("3 May"), ("text", "'M'")
    yield "text: None", lambda: vocab.encode(None), ("text", "None")
    yield "text: a list of strings", lambda: vocab.encode(["3 may"]), ("text", "list")


@cases("dl4nlp.vocab.Seq2SeqVocab.decode")
def _():
    vocab = TARGET_VOCAB
    n = len(vocab)
    yield "ids: an id beyond the vocabulary", lambda: vocab.decode([4, n]), ("ids", str(n))
    yield "ids: a negative id", lambda: vocab.decode([4, -1]), ("ids", "-1")
    yield "ids: a string of digits", lambda: vocab.decode("45"), ("ids", "str")
    yield "ids: a 2-D tensor", lambda: vocab.decode(torch.tensor([[4, 5]])), ("ids", "(1, 2)")


@cases("dl4nlp.vocab.Seq2SeqVocab.tokens")
def _():
    yield from vary(SOURCE_VOCAB.tokens, {}, "text", [("None", None, "None"), ("a list", ["3", "may"], "list")])
