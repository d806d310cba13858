"""Turning text into integer ids and back.

``CharVocab`` is the character-level vocabulary of notebook 03: one id per
distinct character of a corpus, in sorted order, so the same text always
gives the same ids.

>>> vocab = CharVocab.from_text("hello")
>>> vocab.chars, vocab.encode("hell"), vocab.decode([3, 1])
('ehlo', [1, 0, 2, 2], 'oh')
"""

from __future__ import annotations

from typing import Iterable

from dl4nlp._checks import check_ids_list, check_str, given

CURLY_DOUBLE_QUOTES = "“”"


def straighten_quotes(text: str) -> str:
    """``text`` with the curly double quotes “ and ” both replaced by the straight quote ``"``.

    With one symbol for opening and closing, a character model can only tell
    what a ``"`` means by remembering whether a quotation is open (notebook 03).

    >>> straighten_quotes("“Yes,” he said.")
    '"Yes," he said.'
    """
    check_str("text", text)
    return text.translate({ord(q): '"' for q in CURLY_DOUBLE_QUOTES})


class CharVocab:
    """A character vocabulary: ``chars[i]`` is the character with id ``i``."""

    def __init__(self, chars: str):
        if not isinstance(chars, str) or not chars:
            raise ValueError(f"chars must be a non-empty string of distinct characters; got {given(chars)}")
        if len(set(chars)) != len(chars):
            repeated = sorted({c for c in chars if chars.count(c) > 1})
            raise ValueError(f"chars must hold each character once; these repeat: {repeated}")
        self.chars = chars
        self.stoi = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_text(cls, text: str) -> CharVocab:
        """The sorted set of characters that occur in ``text``."""
        check_str("text", text, nonempty=True)
        return cls("".join(sorted(set(text))))

    def __len__(self) -> int:
        return len(self.chars)

    def __repr__(self) -> str:
        return f"CharVocab({len(self)} characters)"

    def encode(self, text: str) -> list[int]:
        """The id of every character of ``text``; an unknown character raises ``KeyError`` naming it."""
        check_str("text", text)
        try:
            return [self.stoi[c] for c in text]
        except KeyError as error:
            raise KeyError(
                f"text has the character {error.args[0]!r}, which is not in the vocabulary of {len(self)} characters"
            ) from None

    def decode(self, ids: Iterable[int]) -> str:
        """The text spelled by ``ids`` (ints or a 1-D tensor)."""
        ids = check_ids_list("ids", ids, len(self), nonempty=False)
        return "".join(self.chars[i] for i in ids)
