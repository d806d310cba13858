"""Vocabularies: tokens <-> integer ids, the three kinds the course uses.

- ``CharVocab``: the distinct characters of a corpus, sorted, nothing reserved
  (character language models: notebooks 02, 03, 05, 10, 14).
- ``WordVocab``: whole words, BERT's special tokens first, then words by falling
  frequency; any other word becomes ``[UNK]`` (notebook 12).
- ``Seq2SeqVocab``: a fixed alphabet (or list of symbols) after PAD = 0, BOS = 1
  and EOS = 2, for encoder-decoders; ``decode`` stops at EOS (notebooks 06-09).

Each ``encode`` refuses what it cannot represent (CharVocab and Seq2SeqVocab raise
on an unknown token; WordVocab maps it to ``[UNK]``), and each ``decode`` refuses
ids outside the vocabulary.

>>> vocab = CharVocab.from_text("hello")
>>> vocab.chars, vocab.encode("hell"), vocab.decode([3, 1])
('ehlo', [1, 0, 2, 2], 'oh')
>>> words = WordVocab.build(["the cat sat", "the dog"], max_size=8)
>>> words.encode("the cat ran"), words.itos[5:]
([5, 6, 1], ['the', 'cat', 'dog'])
>>> Seq2SeqVocab("abc").encode("cab")
[5, 3, 4, 2]
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

from dl4nlp._checks import check_bool, check_ids_list, check_int, check_str, check_strings, given
from dl4nlp.bpe import SPECIAL_TOKENS, pre_tokenize


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


class WordVocab:
    """Whole words <-> ids; the special tokens come first, then words by falling frequency.

    ``WordVocab.build(texts, max_size=4000)`` keeps the most frequent words
    (ties alphabetically); any other word becomes ``[UNK]``.
    """

    def __init__(self, tokens: Sequence[str], specials: Sequence[str] = SPECIAL_TOKENS):
        check_strings("tokens", tokens, nonempty=False)
        check_strings("specials", specials)
        missing = [s for s in SPECIAL_TOKENS if s not in specials]
        if missing:
            raise ValueError(f"specials must contain {SPECIAL_TOKENS}; missing {missing}")
        self.itos = list(specials) + [t for t in tokens if t not in specials]
        if len(set(self.itos)) != len(self.itos):
            repeated = sorted({t for t in self.itos if self.itos.count(t) > 1})
            raise ValueError(f"tokens must be distinct; got {repeated} more than once")
        self.stoi = {token: i for i, token in enumerate(self.itos)}
        self.specials = tuple(specials)

    @classmethod
    def build(cls, texts: Iterable[str], max_size: int, min_count: int = 1, lowercase: bool = True) -> WordVocab:
        """The ``max_size`` most frequent words of ``texts`` (special tokens included in the size).

        ``texts`` is a list (or iterable) of strings; one string would be read one character at a time.
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError(f"texts must be a list of strings (one per text); got {given(texts)}")
        if not isinstance(texts, (list, tuple)) and isinstance(texts, Iterable):
            texts = list(texts)
        texts = check_strings("texts", texts)
        check_int("max_size", max_size, low=len(SPECIAL_TOKENS) + 1)
        check_int("min_count", min_count)
        check_bool("lowercase", lowercase)
        counts: Counter = Counter()
        for text in texts:
            counts.update(pre_tokenize(text, lowercase=lowercase))
        ranked = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        return cls(ranked[: max_size - len(SPECIAL_TOKENS)])

    def __len__(self) -> int:
        return len(self.itos)

    def __getitem__(self, token: str) -> int:
        """The id of ``token`` (``[UNK]``'s for an unknown one); an id is refused: ``itos[i]`` is the token of id i."""
        if not isinstance(token, str):
            hint = f" (the token with id {token} is itos[{token}])" if isinstance(token, int) else ""
            raise TypeError(f"token must be a string, a word or piece to look up; got {given(token)}{hint}")
        return self.stoi.get(token, self.stoi["[UNK]"])

    @property
    def special_ids(self) -> list[int]:
        """Ids of the special tokens ([PAD], [UNK], [CLS], [SEP], [MASK])."""
        return [self.stoi[s] for s in self.specials]

    def encode(self, text: str, lowercase: bool = True) -> list[int]:
        """Ids of the words of ``text`` (unknown words -> ``[UNK]``)."""
        check_str("text", text)
        check_bool("lowercase", lowercase)
        return [self[w] for w in pre_tokenize(text, lowercase=lowercase)]

    def decode(self, ids: Iterable[int]) -> str:
        """The tokens of ``ids`` joined by spaces."""
        return " ".join(self.itos[i] for i in check_ids_list("ids", ids, len(self), nonempty=False))


class Seq2SeqVocab:
    """Tokens <-> ids, with PAD = 0, BOS = 1 (start of output) and EOS = 2 (end of sequence).

    A seq2seq vocabulary: unlike ``CharVocab`` (plain characters of a
    corpus, for language models), it reserves ids for padding and the start and end
    of a sequence, and ``decode`` stops at EOS. The tokens are the characters of
    ``alphabet`` (a string), or, given a list of symbols and ``separator=' '``,
    space-separated symbols such as the phonemes 'K AE1 T' (``dl4nlp.phonemes``).

    >>> Seq2SeqVocab(["K", "AE1", "T"], separator=" ").encode("K AE1 T")
    [3, 4, 5, 2]
    """

    PAD, BOS, EOS = 0, 1, 2
    SPECIALS = ("<pad>", "<bos>", "<eos>")

    def __init__(self, alphabet: str | Sequence[str], separator: str = ""):
        if not isinstance(alphabet, str):
            check_strings("alphabet", alphabet)
        check_str("separator", separator)
        symbols = list(alphabet)
        if not symbols or len(set(symbols)) != len(symbols):
            repeated = sorted({c for c in symbols if symbols.count(c) > 1})
            raise ValueError(
                f"alphabet must be non-empty and must not repeat tokens; got {alphabet!r}, repeating {repeated}"
            )
        if separator and any(separator in symbol or not symbol for symbol in symbols):
            raise ValueError(f"tokens must be non-empty and must not contain the separator {separator!r}")
        if not separator and any(len(symbol) != 1 for symbol in symbols):
            long = [symbol for symbol in symbols if len(symbol) != 1]
            raise ValueError(f"alphabet tokens longer than one character need a separator (separator=' '); got {long}")
        self.separator = separator
        self.itos = list(self.SPECIALS) + symbols
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self._symbols = frozenset(symbols)  # what encode accepts (the specials are never text)

    def __len__(self) -> int:
        return len(self.itos)

    def tokens(self, text: str) -> list[str]:
        """``text`` cut into tokens: its characters, or its separator-delimited symbols."""
        check_str("text", text)
        if not self.separator:
            return list(text)
        return text.split(self.separator) if text else []

    def encode(self, text: str, eos: bool = True) -> list[int]:
        """Ids of ``text``'s tokens (then EOS); unknown tokens raise an error naming them."""
        tokens = self.tokens(text)
        check_bool("eos", eos)
        unknown = sorted(set(tokens) - self._symbols)
        if unknown:
            known = self.separator.join(self.itos[3:])
            raise ValueError(f"text has tokens {unknown} that are not in the vocabulary {known!r}")
        return [self.stoi[ch] for ch in tokens] + ([self.EOS] if eos else [])

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``, stopping at the first EOS and skipping PAD and BOS."""
        out = []
        for i in check_ids_list("ids", ids, len(self), nonempty=False):
            if i == self.EOS:
                break
            if i not in (self.PAD, self.BOS):
                out.append(self.itos[i])
        return self.separator.join(out)

    def _unknown(self, text: str) -> list[str]:
        return sorted(set(self.tokens(text)) - self._symbols)
