"""Normalising text before it is cut into tokens (notebook 05).

The vocabularies that turn text into ids are in ``dl4nlp.vocab``.
"""

from __future__ import annotations

from dl4nlp._checks import check_str

CURLY_DOUBLE_QUOTES = "“”"


def straighten_quotes(text: str) -> str:
    """``text`` with the curly double quotes “ and ” both replaced by the straight quote ``"``.

    With one symbol for opening and closing, a character model can only tell
    what a ``"`` means by remembering whether a quotation is open (notebook 05).

    >>> straighten_quotes("“Yes,” he said.")
    '"Yes," he said.'
    """
    check_str("text", text)
    return text.translate({ord(q): '"' for q in CURLY_DOUBLE_QUOTES})
