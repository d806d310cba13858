"""Subword tokenization for teaching: byte-pair encoding, WordPiece's merge score, a word vocabulary.

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

``WordVocab`` maps whole words to ids, with BERT's special tokens first.
Taught in notebook 08.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from dl4nlp._checks import check_choice, check_ids_list, check_int, check_str, check_strings, check_type, given, is_int

# Hugging Face's `Whitespace` pre-tokenizer uses this pattern: runs of word characters, or of punctuation.
WORD_PATTERN = re.compile(r"\w+|[^\w\s]+")
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
SCORES = ("frequency", "wordpiece")


def pre_tokenize(text: str, lowercase: bool = True) -> list[str]:
    """Split text into words and punctuation runs: ``'The dog, barked.'`` -> ``['the', 'dog', ',', 'barked', '.']``."""
    check_str("text", text)
    return WORD_PATTERN.findall(text.lower() if lowercase else text)


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
    """A trained BPE: its alphabet and its merges in the order they were learned."""

    alphabet: list[str]
    merges: list[Merge]
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
            symbols.add(merge.left + merge.right)
        self.ranks = {(m.left, m.right): rank for rank, m in enumerate(self.merges)}

    @property
    def vocabulary(self) -> list[str]:
        """The alphabet followed by every merged symbol, in the order they were made."""
        return self.alphabet + [m.left + m.right for m in self.merges]

    def tokenize_word(self, word: str) -> list[str]:
        """Split one word: apply the learned merges, earliest-learned first, until none applies."""
        check_str("word", word, nonempty=True, what="one word (a string)")
        if any(c.isspace() for c in word):
            raise ValueError(f"word must be one word, without spaces (use tokenize for text); got {word!r}")
        return self._split(word)

    def _split(self, word: str) -> list[str]:
        symbols = list(word)
        while len(symbols) > 1:
            ranked = [(self.ranks.get(pair, len(self.ranks)), i) for i, pair in enumerate(zip(symbols, symbols[1:]))]
            rank, i = min(ranked)
            if rank == len(self.ranks):
                break
            symbols = _merge_word(symbols, self.merges[rank].left, self.merges[rank].right)
        return symbols

    def tokenize(self, text: str, lowercase: bool = True, continuation: str = "") -> list[str]:
        """Pre-tokenize ``text`` and split every word; ``continuation='##'`` marks word-inner pieces as BERT does."""
        check_str("text", text)
        check_str("continuation", continuation)
        pieces = []
        for word in pre_tokenize(text, lowercase=lowercase):
            split = self._split(word)
            pieces += split[:1] + [continuation + piece for piece in split[1:]]
        return pieces


def _merge_word(symbols: Sequence[str], left: str, right: str) -> list[str]:
    """Replace every non-overlapping occurrence of (left, right), scanning left to right."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == left and symbols[i + 1] == right:
            out.append(left + right)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def _check(counts: Mapping[str, int], num_merges: int, score: str) -> None:
    check_type("counts", counts, Mapping, "a mapping from word to count (e.g. word_counts(text))")
    if not counts:
        raise ValueError("counts must hold at least one word; got {}")
    bad = [(w, c) for w, c in counts.items() if not isinstance(w, str) or not w or not is_int(c) or c < 1]
    if bad:
        raise ValueError(f"counts must map non-empty words to positive integer counts; got {bad[:3]}")
    check_int("num_merges", num_merges, low=0)
    check_choice("score", score, SCORES)


def train_bpe(counts: Mapping[str, int], num_merges: int, score: str = "frequency", fast: bool = False) -> BPE:
    """Learn up to ``num_merges`` merges from word ``counts`` (stops early when no pair is left).

    ``score='frequency'`` is BPE: merge the most frequent adjacent pair.
    ``score='wordpiece'`` merges the pair with the largest count(ab) / (count(a) count(b)).
    ``fast=True`` (frequency only) updates counts incrementally; same merges.
    """
    _check(counts, num_merges, score)
    alphabet = sorted({ch for word in counts for ch in word})
    if fast:
        if score != "frequency":
            raise ValueError(f"the fast path implements score='frequency' only; got score={score!r}")
        return BPE(alphabet, _train_fast(counts, num_merges, alphabet))
    order = {symbol: i for i, symbol in enumerate(alphabet)}  # tie-break: older symbols first
    words = [(list(word), count) for word, count in counts.items()]
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
        order.setdefault(best[0] + best[1], len(order))
        words = [(_merge_word(word, *best), count) for word, count in words]
    return BPE(alphabet, merges)


def _train_fast(counts: Mapping[str, int], num_merges: int, alphabet: list[str]) -> list[Merge]:
    """BPE with incremental pair counts: only the words containing the merged pair are recounted."""
    order = {symbol: i for i, symbol in enumerate(alphabet)}
    words = [list(word) for word in counts]
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
        order.setdefault(best[0] + best[1], len(order))
        changed = set()
        for index in where.pop(best, set()):
            word = words[index]
            for pair in zip(word, word[1:]):
                pairs[pair] -= freq[index]
                changed.add(pair)
            words[index] = word = _merge_word(word, *best)
            for pair in zip(word, word[1:]):
                pairs[pair] += freq[index]
                where.setdefault(pair, set()).add(index)
                changed.add(pair)
        for pair in changed:
            if pairs[pair] > 0:
                heapq.heappush(heap, (-pairs[pair], order[pair[0]], order[pair[1]], pair))
            else:
                del pairs[pair]
    return merges


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
        counts: Counter = Counter()
        for text in texts:
            counts.update(pre_tokenize(text, lowercase=lowercase))
        ranked = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
        return cls(ranked[: max_size - len(SPECIAL_TOKENS)])

    def __len__(self) -> int:
        return len(self.itos)

    def __getitem__(self, token: str) -> int:
        return self.stoi.get(token, self.stoi["[UNK]"])

    @property
    def special_ids(self) -> list[int]:
        """Ids of the special tokens ([PAD], [UNK], [CLS], [SEP], [MASK])."""
        return [self.stoi[s] for s in self.specials]

    def encode(self, text: str, lowercase: bool = True) -> list[int]:
        """Ids of the words of ``text`` (unknown words -> ``[UNK]``)."""
        check_str("text", text)
        return [self[w] for w in pre_tokenize(text, lowercase=lowercase)]

    def decode(self, ids: Iterable[int]) -> str:
        """The tokens of ``ids`` joined by spaces."""
        return " ".join(self.itos[i] for i in check_ids_list("ids", ids, len(self), nonempty=False))
