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

import numpy as np

CURLY_DOUBLE_QUOTES = "“”"


def straighten_quotes(text: str) -> str:
    """``text`` with the curly double quotes “ and ” both replaced by the straight quote ``"``.

    With one symbol for opening and closing, a character model can only tell
    what a ``"`` means by remembering whether a quotation is open (notebook 03).

    >>> straighten_quotes("“Yes,” he said.")
    '"Yes," he said.'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    return text.translate({ord(q): '"' for q in CURLY_DOUBLE_QUOTES})


class CharVocab:
    """A character vocabulary: ``chars[i]`` is the character with id ``i``."""

    def __init__(self, chars: str):
        if not isinstance(chars, str) or not chars:
            raise ValueError(f"chars must be a non-empty string of distinct characters; got {chars!r}")
        if len(set(chars)) != len(chars):
            repeated = sorted({c for c in chars if chars.count(c) > 1})
            raise ValueError(f"chars must hold each character once; these repeat: {repeated}")
        self.chars = chars
        self.stoi = {c: i for i, c in enumerate(chars)}

    @classmethod
    def from_text(cls, text: str) -> CharVocab:
        """The sorted set of characters that occur in ``text`` (a non-empty str)."""
        if not isinstance(text, str) or not text:
            raise ValueError(f"text must be a non-empty str; got {text!r:.40}")
        return cls("".join(sorted(set(text))))

    def __len__(self) -> int:
        return len(self.chars)

    def __repr__(self) -> str:
        return f"CharVocab({len(self)} characters)"

    def encode(self, text: str) -> list[int]:
        """The id of every character of ``text``; an unknown character raises ``KeyError`` naming it."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a str; got {type(text).__name__}")
        try:
            return [self.stoi[c] for c in text]
        except KeyError as error:
            raise KeyError(f"character {error.args[0]!r} is not in the vocabulary of {len(self)} characters") from None

    def decode(self, ids: Iterable[int]) -> str:
        """The text spelled by ``ids`` (ints or a 1-D integer tensor)."""
        if isinstance(ids, str):
            raise TypeError("ids must be integers, not a str")
        if hasattr(ids, "dim") and (ids.dim() != 1 or ids.is_floating_point()):
            raise ValueError(f"ids must be a 1-D integer tensor; got shape {tuple(ids.shape)}, dtype {ids.dtype}")
        ids = list(ids.tolist() if hasattr(ids, "tolist") else ids)
        wrong = [i for i in ids if isinstance(i, bool) or not isinstance(i, (int, np.integer))]
        if wrong:
            raise TypeError(f"ids must be integers; got {wrong[:5]}")
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < len(self)]
        if bad:
            raise ValueError(f"ids must lie in [0, {len(self)}); got {bad[:5]}")
        return "".join(self.chars[i] for i in ids)
