"""Bad inputs of dl4nlp.wordpiece and dl4nlp.bytelevel (the tokenizers of notebook 12)."""

import functools

from bad_inputs.harness import cases, int_variants, scratch, vary
from dl4nlp import bytelevel as BL
from dl4nlp import wordpiece as W

TOKENS = ["play", "##ing", "##s", "p", "##l", "##a", "##y", "i", "##n", "##g"]


@functools.cache
def wp() -> W.WordPiece:
    return W.WordPiece(TOKENS)


@functools.cache
def byte_bpe() -> BL.ByteBPE:
    return BL.ByteBPE.train(["low lower lowest"] * 3, num_merges=4)


@cases("dl4nlp.wordpiece.WordPiece")
def _():
    good = dict(tokens=TOKENS)
    yield from vary(
        W.WordPiece,
        good,
        "tokens",
        [
            ("one string", "play", "str"),
            ("an empty piece", ["play", ""], "''"),
            ("a non-string piece", ["play", 3], "int"),
            ("None", None, "None"),
        ],
    )
    yield from vary(W.WordPiece, good, "specials", [("without [UNK]", ["[PAD]", "[CLS]"], "[UNK]")])
    yield from vary(W.WordPiece, good, "continuation", [("empty", "", "''"), ("None", None, "None")])
    yield from vary(W.WordPiece, good, "lowercase", [("a string", "yes", "'yes'")])
    yield "tokens: repeated", lambda: W.WordPiece(["play", "play"]), ("tokens", "'play'")


@cases("dl4nlp.wordpiece.WordPiece.train")
def _():
    good = dict(texts=["playing plays"], vocab_size=40)
    yield from vary(
        W.WordPiece.train,
        good,
        "texts",
        [
            ("one string", "playing", "str"),
            ("empty", [], "[]"),
            ("a list of ints", [1, 2], "int"),
            ("None", None, "None"),
        ],
    )
    yield from vary(W.WordPiece.train, good, "vocab_size", [("too small for the alphabet", 5, "5"), *int_variants(1)])
    yield from vary(W.WordPiece.train, good, "continuation", [("empty", "", "''")])


@cases("dl4nlp.wordpiece.WordPiece.from_file")
def _():
    def empty_file():
        path = scratch() / "vocab.txt"
        path.write_text("")
        return W.WordPiece.from_file(path)

    yield "path: a missing file", lambda: W.WordPiece.from_file(scratch() / "missing.txt"), ("path", "missing.txt")
    yield "path: an empty file", empty_file, ("vocab.txt", "empty")
    yield "path: None", lambda: W.WordPiece.from_file(None), ("path", "None")
    yield "path: a folder", lambda: W.WordPiece.from_file(scratch()), ("path", "folder")


@cases("dl4nlp.wordpiece.WordPiece.tokenize_word")
def _():
    yield "word: two words", lambda: wp().tokenize_word("play ing"), ("word", "'play ing'")
    yield "word: empty", lambda: wp().tokenize_word(""), ("word", "''")
    yield "word: None", lambda: wp().tokenize_word(None), ("word", "None")
    yield "word: a list", lambda: wp().tokenize_word(["play"]), ("word", "list")


@cases("dl4nlp.wordpiece.WordPiece.tokenize")
def _():
    yield "text: None", lambda: wp().tokenize(None), ("text", "None")
    yield "text: a list of words", lambda: wp().tokenize(["play", "ing"]), ("text", "list")
    yield "text: bytes", lambda: wp().tokenize(b"play"), ("text", "bytes")


@cases("dl4nlp.wordpiece.WordPiece.encode")
def _():
    yield "text: None", lambda: wp().encode(None), ("text", "None")
    yield "text: a list of words", lambda: wp().encode(["play", "ing"]), ("text", "list")


@cases("dl4nlp.wordpiece.WordPiece.decode")
def _():
    n = len(wp())
    yield "ids: one beyond the vocabulary", lambda: wp().decode([5, n]), ("ids", str(n))
    yield "ids: negative", lambda: wp().decode([5, -1]), ("ids", "-1")
    yield "ids: a string", lambda: wp().decode("play"), ("ids", "str")
    yield "ids: floats", lambda: wp().decode([5.5]), ("ids", "5.5")
    yield "ids: None", lambda: wp().decode(None), ("ids", "None")


@cases("dl4nlp.wordpiece.WordPiece.is_word_start")
def _():
    n = len(wp())
    yield "ids: one beyond the vocabulary", lambda: wp().is_word_start([5, n]), ("ids", str(n))
    yield "ids: negative", lambda: wp().is_word_start([-1]), ("ids", "-1")
    yield "ids: a string", lambda: wp().is_word_start("play"), ("ids", "str")
    yield "ids: floats", lambda: wp().is_word_start([5.5]), ("ids", "5.5")


@cases("dl4nlp.bytelevel.to_bytes")
def _():
    yield "text: bytes", lambda: BL.to_bytes(b"abc"), ("text", "bytes")
    yield "text: None", lambda: BL.to_bytes(None), ("text", "None")


@cases("dl4nlp.bytelevel.from_bytes")
def _():
    yield "symbols: bytes", lambda: BL.from_bytes(b"abc"), ("symbols", "bytes")
    yield "symbols: a character that is no byte symbol", lambda: BL.from_bytes("a\u4e00"), ("symbols", "'\u4e00'")
    yield "symbols: a list", lambda: BL.from_bytes(["a"]), ("symbols", "list")


@cases("dl4nlp.bytelevel.split_words")
def _():
    yield "text: bytes", lambda: BL.split_words(b"abc"), ("text", "bytes")
    yield "text: a list", lambda: BL.split_words(["a b"]), ("text", "list")


@cases("dl4nlp.bytelevel.ByteBPE")
def _():
    yield "bpe: a string", lambda: BL.ByteBPE("low"), ("bpe", "str")
    yield "bpe: None", lambda: BL.ByteBPE(None), ("bpe", "None")


@cases("dl4nlp.bytelevel.ByteBPE.train")
def _():
    good = dict(texts=["low lower"], num_merges=3)
    yield from vary(
        BL.ByteBPE.train,
        good,
        "texts",
        [("one string", "low", "str"), ("empty", [], "[]"), ("a list of ints", [1, 2], "int"), ("None", None, "None")],
    )
    yield from vary(BL.ByteBPE.train, good, "num_merges", int_variants(0))


@cases("dl4nlp.bytelevel.ByteBPE.tokenize")
def _():
    yield "text: None", lambda: byte_bpe().tokenize(None), ("text", "None")
    yield "text: a list", lambda: byte_bpe().tokenize(["low"]), ("text", "list")


@cases("dl4nlp.bytelevel.ByteBPE.decode")
def _():
    yield "pieces: one string", lambda: byte_bpe().decode("low"), ("pieces", "str")
    yield "pieces: None", lambda: byte_bpe().decode(None), ("pieces", "None")
    yield "pieces: a list of ints", lambda: byte_bpe().decode([1, 2]), ("pieces", "int")
    yield "pieces: a piece that is no byte symbol", lambda: byte_bpe().decode(["lo", "\u4e00"]), ("pieces", "'\u4e00'")
