"""Subword tokenization for teaching: byte-pair encoding and WordPiece's merge score.

BPE (Sennrich et al., 2016) starts from single characters and repeatedly
merges the adjacent pair of symbols seen most often in the training words:

>>> bpe = train_bpe({"low": 5, "lower": 2, "newest": 6, "widest": 3}, num_merges=3)
>>> [(m.left + m.right, m.count) for m in bpe.merges]
[('es', 9), ('est', 9), ('lo', 7)]
>>> bpe.tokenize("lowest")
['lo', 'w', 'est']

WordPiece (Schuster and Nakajima, 2012; used by BERT) merges the pair with
the highest count(ab) / (count(a) count(b)) instead: ``score='wordpiece'``.
Ties are broken as Hugging Face's ``tokenizers`` BPE trainer breaks them
(the pair of older symbols first; the alphabet is ordered by code point), so
the merges here equal the production trainer's. ``train_bpe`` has a readable
path (recount every pair after each merge) and a fast path (update only the
words a merge touches, keep the counts in a heap), tested equal.

Taught in notebook 12. The word-level vocabulary is ``dl4nlp.vocab.WordVocab``.
"""

from __future__ import annotations

import heapq
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

from dl4nlp._checks import check_bool, check_choice, check_int, check_str, check_strings, check_type, given, is_int

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
SCORES = ("frequency", "wordpiece")

# Hugging Face's `Whitespace` pre-tokenizer splits with the Rust regex r"\w+|[^\w\s]+" (tokenizers,
# src/pre_tokenizers/whitespace.rs). Rust's \w is Unicode's word class (UTS #18): Alphabetic, Mark,
# Decimal_Number, Connector_Punctuation, Join_Control; its \s is the White_Space property. Python's own
# \w differs (it includes numerals such as ½ and ², excludes combining accents), so we build the class.
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
)
# Other_Alphabetic characters outside the Mark categories (Unicode PropList.txt): circled and squared letters.
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def is_word_char(ch: str) -> bool:
    """Is ``ch`` in Unicode's word class (letters, marks, decimal digits, letter numerals, ``_``, ZWJ/ZWNJ)?

    >>> [is_word_char(c) for c in ["a", "7", "\u0301", "½", "²", "_", "-"]]
    [True, True, True, False, False, True, False]
    """
    if not isinstance(ch, str) or len(ch) != 1:
        raise TypeError(f"ch must be a single character (a str of length 1); got {ch!r}")
    category = unicodedata.category(ch)
    if category[0] in "LM" or category in ("Nd", "Nl", "Pc") or ch in "\u200c\u200d":
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _ALPHABETIC_SYMBOLS)


@lru_cache(maxsize=256)
def _pattern(extra_word_chars: str) -> re.Pattern:
    word = "A-Za-z0-9_" + re.escape(extra_word_chars)
    return re.compile(f"[{word}]+|[^{word}{re.escape(WHITE_SPACE)}]+")


def word_pattern(text: str) -> re.Pattern:
    """``\\w+|[^\\w\\s]+`` with Unicode's classes, for the characters that occur in ``text``."""
    check_str("text", text)
    extra = "".join(sorted(c for c in set(text) if ord(c) > 127 and is_word_char(c)))
    return _pattern(extra)


def pre_tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Split text into words and punctuation runs, exactly as ``tokenizers.pre_tokenizers.Whitespace``.

    Exactly, that is, for every character Python's Unicode database knows
    (``unicodedata.unidata_version``); a character assigned in a later Unicode
    version (unknown here, a letter to the Rust regex) may be split differently.

    >>> pre_tokenize("The dog, barked.")
    ['the', 'dog', ',', 'barked', '.']
    >>> pre_tokenize("café ½ x²", lowercase=False)
    ['café', '½', 'x', '²']
    """
    check_str("text", text)
    check_bool("lowercase", lowercase)
    text = text.lower() if lowercase else text
    return word_pattern(text).findall(text)


def word_counts(text: str, lowercase: bool = True) -> Counter:
    """How often each pre-tokenized word occurs in ``text``."""
    check_str("text", text)
    return Counter(pre_tokenize(text, lowercase=lowercase))


@dataclass(frozen=True)
class Merge:
    """One learned merge: ``left + right`` becomes a new symbol; ``count`` and ``score`` when it was chosen."""

    left: str
    right: str
    count: int
    score: float


@dataclass
class BPE:
    """A trained BPE: its alphabet and its merges in the order they were learned.

    ``continuation`` is the prefix of word-inner symbols (``'##'`` for a
    WordPiece vocabulary, ``''`` for plain BPE); see ``train_bpe``.
    """

    alphabet: list[str]
    merges: list[Merge]
    continuation: str = ""
    ranks: dict[tuple[str, str], int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_strings("alphabet", self.alphabet, nonempty=False)
        check_type("merges", self.merges, list, "a list of Merge records")
        symbols = set(self.alphabet)
        for index, merge in enumerate(self.merges):
            check_type(f"merges[{index}]", merge, Merge, "a Merge record")
            if merge.left not in symbols or merge.right not in symbols:
                raise ValueError(
                    f"merges[{index}] joins {merge.left!r} and {merge.right!r}; each must be in the alphabet "
                    "or made by an earlier merge"
                )
            symbols.add(_join(merge.left, merge.right, self.continuation))
        self.ranks = {(m.left, m.right): rank for rank, m in enumerate(self.merges)}

    def joined(self, merge: Merge) -> str:
        """The symbol a merge makes: ``left + right`` (``right`` without its continuation prefix)."""
        check_type("merge", merge, Merge, "a dl4nlp.bpe.Merge (one of this BPE's merges)")
        return _join(merge.left, merge.right, self.continuation)

    @property
    def vocabulary(self) -> list[str]:
        """The alphabet followed by every merged symbol, in the order they were made."""
        return self.alphabet + [self.joined(m) for m in self.merges]

    def tokenize_word(self, word: str) -> list[str]:
        """Split one word: apply the learned merges, earliest-learned first, until none applies."""
        check_str("word", word, nonempty=True, what="one word (a string)")
        if any(c.isspace() for c in word):
            raise ValueError(f"word must be one word, without spaces (use tokenize for text); got {word!r}")
        return self._split(word)

    def _split(self, word: str) -> list[str]:
        symbols = _initial_symbols(word, self.continuation)
        while len(symbols) > 1:
            ranked = [(self.ranks.get(pair, len(self.ranks)), i) for i, pair in enumerate(zip(symbols, symbols[1:]))]
            rank, i = min(ranked)
            if rank == len(self.ranks):
                break
            merge = self.merges[rank]
            symbols = _merge_word(symbols, merge.left, merge.right, self.joined(merge))
        return symbols

    def tokenize(self, text: str, lowercase: bool = True, continuation: str = "") -> list[str]:
        """Pre-tokenize ``text`` and split every word; ``continuation='##'`` marks word-inner pieces as BERT does."""
        check_str("text", text)
        check_str("continuation", continuation)
        pieces = []
        for word in pre_tokenize(text, lowercase=lowercase):
            split = self._split(word)
            if self.continuation:  # the inner pieces carry their prefix already
                pieces += split
            else:
                pieces += split[:1] + [continuation + piece for piece in split[1:]]
        return pieces


def initial_alphabet(counts: Iterable[str], continuation: str = "") -> list[str]:
    """The symbols BPE starts from: every character by code point, then (with a prefix) the prefixed ones.

    >>> initial_alphabet(["hug", "pug"], continuation="##")
    ['g', 'h', 'p', 'u', '##g', '##u']
    """
    check_str("continuation", continuation)
    if isinstance(counts, str) or not isinstance(counts, Iterable):
        raise TypeError(f"counts must be words (a dict of word counts or a list of words); got {given(counts)}")
    counts = check_strings("counts", list(counts), nonempty=False)
    plain = sorted({ch for word in counts for ch in word})
    inner = {continuation + ch for word in counts for ch in word[1:]} if continuation else set()
    return plain + sorted(inner - set(plain))


def _initial_symbols(word: str, continuation: str) -> list[str]:
    """A word as its characters; with a continuation prefix, every character after the first carries it."""
    return list(word[:1]) + [continuation + ch for ch in word[1:]]


def _join(left: str, right: str, continuation: str) -> str:
    if continuation and right.startswith(continuation):
        right = right[len(continuation) :]
    return left + right


def _merge_word(symbols: Sequence[str], left: str, right: str, joined: str) -> list[str]:
    """Replace every non-overlapping occurrence of (left, right) by ``joined``, scanning left to right."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(joined)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def merge_loop(words: Mapping[tuple, int], num_merges: int) -> list[tuple[str, str, int]]:
    """BPE's training loop in its plainest form, on words already split into symbols.

    ``words`` maps a word as a tuple of symbols (``("r", "i", "c", "e", "</w>")``) to
    its count. ``num_merges`` times: count every adjacent pair, weighted by the
    word's count; merge the most frequent pair everywhere. Ties go to the pair of
    older symbols (the starting symbols in code-point order, then merged symbols
    by age), as Hugging Face's trainer breaks them. Returns ``(left, right,
    count)`` for each merge, fewer if every word has become one symbol.

    >>> merge_loop({("l", "o", "w"): 5, ("l", "o", "w", "e", "r"): 2}, 3)
    [('l', 'o', 7), ('lo', 'w', 7), ('e', 'r', 2)]
    """
    check_type("words", words, Mapping, "a mapping from a word's symbols (a tuple) to its count")
    if not words:
        raise ValueError("words must hold at least one word; got {}")
    bad = [(w, c) for w, c in words.items() if not isinstance(w, tuple) or not w
           or not all(isinstance(s, str) and s for s in w) or not is_int(c) or c < 1]  # fmt: skip
    if bad:
        raise ValueError(f"words must map tuples of non-empty symbols to positive integer counts; got {bad[:2]}")
    check_int("num_merges", num_merges, low=0)
    rank = {symbol: i for i, symbol in enumerate(sorted({s for word in words for s in word}))}
    merges: list[tuple[str, str, int]] = []
    for _ in range(num_merges):
        pairs: Counter = Counter()
        for word, count in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            break
        (left, right), count = min(pairs.items(), key=lambda item: (-item[1], rank[item[0][0]], rank[item[0][1]]))
        joined = left + right
        rank.setdefault(joined, len(rank))
        merged: Counter = Counter()
        for word, n in words.items():
            merged[tuple(_merge_word(word, left, right, joined))] += n
        words = merged
        merges.append((left, right, count))
    return merges


def _check(counts: Mapping[str, int], num_merges: int, score: str) -> None:
    check_type("counts", counts, Mapping, "a mapping from word to count (e.g. word_counts(text))")
    if not counts:
        raise ValueError("counts must hold at least one word; got {}")
    bad = [(w, c) for w, c in counts.items() if not isinstance(w, str) or not w or not is_int(c) or c < 1]
    if bad:
        raise ValueError(f"counts must map non-empty words to positive integer counts; got {bad[:3]}")
    check_int("num_merges", num_merges, low=0)
    check_choice("score", score, SCORES)


def train_bpe(
    counts: Mapping[str, int],
    num_merges: int,
    score: str = "frequency",
    fast: bool = False,
    continuation: str = "",
) -> BPE:
    """Learn up to ``num_merges`` merges from word ``counts`` (stops early when no pair is left).

    ``score='frequency'`` is BPE: merge the most frequent adjacent pair.
    ``score='wordpiece'`` merges the pair with the largest count(ab) / (count(a) count(b)).
    ``fast=True`` (frequency only) updates counts incrementally; same merges.
    ``continuation='##'`` starts every word as ``w ##o ##r ##d`` and strips the
    prefix when joining (``##o`` + ``##r`` = ``##or``), as Hugging Face's
    ``WordPieceTrainer`` does: a vocabulary of word-initial and word-inner pieces.

    >>> [train_bpe({"hug": 3, "pug": 2}, 2, continuation="##").joined(m) for m in
    ...  train_bpe({"hug": 3, "pug": 2}, 2, continuation="##").merges]
    ['##ug', 'hug']
    """
    _check(counts, num_merges, score)
    check_bool("fast", fast)
    alphabet = initial_alphabet(counts, continuation)
    initial = {word: _initial_symbols(word, continuation) for word in counts}
    if fast:
        if score != "frequency":
            raise ValueError(f"the fast path implements score='frequency' only; got score={score!r}")
        return BPE(alphabet, _train_fast(counts, initial, num_merges, alphabet, continuation), continuation)
    order = {symbol: i for i, symbol in enumerate(alphabet)}  # tie-break: older symbols first
    words = [(initial[word], count) for word, count in counts.items()]
    merges = []
    for _ in range(num_merges):
        pairs, symbols = Counter(), Counter()
        for word, count in words:
            for symbol in word:
                symbols[symbol] += count
            for pair in zip(word, word[1:]):
                pairs[pair] += count
        if not pairs:
            break

        def key(pair, pairs=pairs, symbols=symbols):
            value = pairs[pair] if score == "frequency" else pairs[pair] / (symbols[pair[0]] * symbols[pair[1]])
            return (-value, order[pair[0]], order[pair[1]])

        best = min(pairs, key=key)
        merges.append(Merge(best[0], best[1], pairs[best], -key(best)[0]))
        joined = _join(*best, continuation)
        order.setdefault(joined, len(order))
        words = [(_merge_word(word, *best, joined), count) for word, count in words]
    return BPE(alphabet, merges, continuation)


def _train_fast(
    counts: Mapping[str, int],
    initial: Mapping[str, list[str]],
    num_merges: int,
    alphabet: list[str],
    continuation: str,
) -> list[Merge]:
    """BPE with incremental pair counts: only the words containing the merged pair are recounted."""
    order = {symbol: i for i, symbol in enumerate(alphabet)}
    words = [list(initial[word]) for word in counts]
    freq = list(counts.values())
    pairs: Counter = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pairs[pair] += freq[index]
            where.setdefault(pair, set()).add(index)
    heap = [(-c, order[a], order[b], (a, b)) for (a, b), c in pairs.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges and heap:
        negative, _, _, best = heapq.heappop(heap)
        if pairs.get(best, 0) != -negative or negative == 0:  # stale entry: its count changed since
            continue
        merges.append(Merge(best[0], best[1], -negative, float(-negative)))
        joined = _join(*best, continuation)
        order.setdefault(joined, len(order))
        changed = set()
        for index in where.pop(best, set()):
            word, merged = words[index], _merge_word(words[index], *best, joined)
            if len(merged) == len(word):  # a stale location: the pair is no longer in this word
                continue
            delta = Counter(zip(merged, merged[1:]))
            delta.subtract(zip(word, word[1:]))
            words[index] = merged
            for pair, change in delta.items():  # only the pairs the merge created or destroyed
                if change:
                    pairs[pair] += change * freq[index]
                    changed.add(pair)
                    if change > 0:
                        where.setdefault(pair, set()).add(index)
        for pair in changed:
            if pairs[pair] > 0:
                heapq.heappush(heap, (-pairs[pair], order[pair[0]], order[pair[1]], pair))
            else:
                del pairs[pair]
    return merges
