"""Byte-level BPE (GPT-2): the base symbols are the 256 byte values, so no text is ever unknown.

Text is split into words by GPT-2's pattern (a word keeps the space before
it: ``' dog'``), every word becomes its UTF-8 bytes, and each byte is shown as
one printable character (GPT-2's table: printable bytes stand for themselves,
the others are shifted above U+0100, so the space is ``Ġ``). BPE merges are
learned on those byte strings by ``dl4nlp.bpe.train_bpe``. Decoding joins the
pieces, maps the characters back to bytes and decodes UTF-8: an exact round
trip for any text, accents and emoji included, which a WordPiece vocabulary
with ``[UNK]`` cannot promise. Checked against Hugging Face's
``ByteLevelBPETokenizer`` in the tests and notebook 12.

>>> to_bytes("é!")
'Ã©!'
>>> bpe = ByteBPE.train(["low lower lowest"] * 3, num_merges=4)
>>> bpe.tokenize("lowest 🙂")
['low', 'e', 's', 't', 'Ġ', 'ð', 'Ł', 'Ļ', 'Ĥ']
>>> bpe.decode(bpe.tokenize("lowest 🙂"))
'lowest 🙂'
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

from dl4nlp._checks import check_int, check_str, check_strings, check_type
from dl4nlp.bpe import BPE, WHITE_SPACE, train_bpe


def _byte_table() -> dict[int, str]:
    """GPT-2's ``bytes_to_unicode``: printable bytes map to themselves, the other 68 to U+0100 onwards."""
    printable = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    table, shift = {b: chr(b) for b in printable}, 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + shift)
            shift += 1
    return table


BYTE_TO_CHAR = _byte_table()
CHAR_TO_BYTE = {c: b for b, c in BYTE_TO_CHAR.items()}


def to_bytes(text: str) -> str:
    """``text`` as its UTF-8 bytes, one printable character per byte."""
    check_str("text", text)
    return "".join(BYTE_TO_CHAR[b] for b in text.encode("utf-8"))


def from_bytes(symbols: str) -> str:
    """The inverse of ``to_bytes`` (bytes that are not valid UTF-8 become U+FFFD, as in Hugging Face)."""
    check_str("symbols", symbols, what="a str of byte symbols")
    return _decode("symbols", symbols)


def _decode(name: str, symbols: str) -> str:
    unknown = [c for c in symbols if c not in CHAR_TO_BYTE]
    if unknown:
        raise ValueError(f"{name} must hold byte symbols only (see to_bytes); got {unknown[0]!r}, not one of the 256")
    return bytes(CHAR_TO_BYTE[c] for c in symbols).decode("utf-8", errors="replace")


@lru_cache(maxsize=256)
def _pattern(letters: str, numbers: str) -> re.Pattern:
    L, N, S = "A-Za-z" + re.escape(letters), "0-9" + re.escape(numbers), re.escape(WHITE_SPACE)
    return re.compile(rf"'s|'t|'re|'ve|'m|'ll|'d| ?[{L}]+| ?[{N}]+| ?[^{S}{L}{N}]+|[{S}]+(?![^{S}])|[{S}]+")


def split_words(text: str) -> list[str]:
    """GPT-2's pre-tokenizer: contractions, letters, numbers or other symbols, each with one leading space.

    The pattern of Hugging Face's ``ByteLevel`` (``\\p{L}`` letters, ``\\p{N}``
    numbers); pieces cover the text exactly.

    >>> split_words("Hello  world, it's 2024!")
    ['Hello', ' ', ' world', ',', ' it', "'s", ' 2024', '!']
    """
    check_str("text", text)
    extra = {c for c in set(text) if ord(c) > 127}
    letters = "".join(sorted(c for c in extra if unicodedata.category(c)[0] == "L"))
    numbers = "".join(sorted(c for c in extra if unicodedata.category(c)[0] == "N"))
    return _pattern(letters, numbers).findall(text)


@dataclass
class ByteBPE:
    """A byte-level BPE: the merges learned on byte strings (see the module's docstring)."""

    bpe: BPE

    def __post_init__(self):
        check_type("bpe", self.bpe, BPE, "a dl4nlp.bpe.BPE (learn one with ByteBPE.train)")

    @classmethod
    def train(cls, texts: Iterable[str], num_merges: int) -> ByteBPE:
        """Learn ``num_merges`` merges from the byte strings of the words of ``texts``."""
        texts = check_strings("texts", list(texts) if isinstance(texts, Iterator) else texts)
        check_int("num_merges", num_merges, low=0)
        counts: Counter = Counter()
        for text in texts:
            counts.update(to_bytes(word) for word in split_words(text))
        if not counts:
            raise ValueError("texts hold no words to learn merges from")
        return cls(train_bpe(counts, num_merges, fast=True))

    @property
    def vocabulary(self) -> list[str]:
        """The 256 byte symbols (in byte order) and every merged symbol, in the order they were made."""
        return [BYTE_TO_CHAR[b] for b in range(256)] + [self.bpe.joined(m) for m in self.bpe.merges]

    def tokenize(self, text: str) -> list[str]:
        """The byte-level pieces of ``text``."""
        check_str("text", text)
        return [piece for word in split_words(text) for piece in self.bpe.tokenize_word(to_bytes(word))]

    def decode(self, pieces: Sequence[str]) -> str:
        """The text spelled by ``pieces``: join, map back to bytes, decode UTF-8."""
        pieces = check_strings("pieces", pieces, nonempty=False)
        return _decode("pieces", "".join(pieces))
