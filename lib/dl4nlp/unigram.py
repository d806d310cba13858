"""The Unigram language-model tokenizer (Kudo, 2018): pieces with probabilities, the best split by Viterbi.

A Unigram tokenizer is a vocabulary of pieces, each with a log-probability.
A word's probability under one segmentation is the product of its pieces'
probabilities, and the tokenizer picks the most probable segmentation
(``viterbi``): dynamic programming over the end positions of the word.

Training goes top-down (``Unigram.train``): start from a large seed
vocabulary (every character and the most frequent substrings of the words),
then repeat

- **E-step**: the expected number of times each piece is used, summed over all
  segmentations of every word weighted by their probability (forward–backward
  over each word's lattice of pieces, exact, not the Viterbi approximation);
- **M-step**: new probabilities, the expected counts normalised (maximum
  likelihood; pieces expected less than half a time are dropped);
- **pruning**: the loss of removing a piece is how much the corpus's Viterbi
  log-likelihood would fall if the words that use it were split the next best
  way; keep the ``shrink`` fraction of pieces with the largest loss (single
  characters are always kept, so every word of the training alphabet can be
  split),

until the vocabulary has ``vocab_size`` pieces. SentencePiece and Hugging
Face's ``UnigramTrainer`` do the same; they also smooth the M-step (a digamma
of the counts) and search seed substrings with a suffix array.

>>> model = Unigram({"h": -3.0, "u": -3.0, "g": -3.0, "s": -3.5, "hug": -2.0, "ug": -2.5, "gs": -4.0})
>>> model.tokenize_word("hugs")
['hug', 's']
>>> viterbi("hugs", model.log_probs)
(['hug', 's'], -5.5)

Taught in notebook 12; tested against ``tokenizers.models.Unigram``.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Mapping, Optional

from dl4nlp._checks import check_int, check_number, check_str, given
from dl4nlp.bpe import pre_tokenize

UNK = "[UNK]"
UNK_PENALTY = 10.0  # an unknown character scores the smallest log-probability minus 10 (SentencePiece, tokenizers)


def _check_log_probs(log_probs) -> dict[str, float]:
    if not isinstance(log_probs, Mapping) or not log_probs:
        raise TypeError(f"log_probs must be a non-empty dict {{piece: log-probability}}; got {given(log_probs)}")
    for piece, lp in log_probs.items():
        if not isinstance(piece, str) or not piece:
            raise ValueError(f"log_probs's pieces must be non-empty strings; got {piece!r}")
        if isinstance(lp, bool) or not isinstance(lp, (int, float)) or not math.isfinite(lp) or lp > 0:
            raise ValueError(f"log_probs[{piece!r}] must be a finite log-probability (<= 0); got {lp!r}")
    return dict(log_probs)


def _check_counts(counts) -> dict[str, int]:
    if not isinstance(counts, Mapping) or not counts:
        raise TypeError(f"counts must be a non-empty dict {{word: count}}; got {given(counts)}")
    for word, count in counts.items():
        if not isinstance(word, str) or not word:
            raise ValueError(f"counts's words must be non-empty strings; got {word!r}")
        check_int(f"counts[{word!r}]", count)
    return dict(counts)


def viterbi(word: str, log_probs: Mapping[str, float], unk_score: Optional[float] = None) -> tuple[list[str], float]:
    """The most probable split of ``word`` into pieces of ``log_probs``, and its log-probability.

    ``best[end]`` is the best score of ``word[:end]``; each end position takes the
    best ``best[start] + log_probs[word[start:end]]`` (on a tie, the smallest
    ``start``, i.e. the longest last piece, as Hugging Face's ``Unigram`` model).
    A character at which no piece of length one starts may be covered by
    ``[UNK]`` at ``unk_score``; with ``unk_score=None`` such a word raises.

    >>> viterbi("abc", {"a": -1.0, "b": -1.0, "c": -1.0, "ab": -1.5, "bc": -3.0})
    (['ab', 'c'], -2.5)
    """
    check_str("word", word, nonempty=True)
    log_probs = _check_log_probs(log_probs)
    if unk_score is not None:
        check_number("unk_score", unk_score)
    return _viterbi(word, log_probs, max(len(p) for p in log_probs), unk_score)


def unigram_splits(word: str, pieces) -> list[list[str]]:
    """Every split of ``word`` into pieces of ``pieces`` (a dict or set), in lexicographic order of cut points.

    There can be up to ``2 ** (len(word) - 1)`` of them: this is for small examples.

    >>> unigram_splits("low", {"l", "o", "w", "lo", "low"})
    [['l', 'o', 'w'], ['lo', 'w'], ['low']]
    """
    check_str("word", word, nonempty=True)
    if not isinstance(pieces, (Mapping, set, frozenset)):
        raise TypeError(f"pieces must be a dict or a set of pieces; got {given(pieces)}")
    if len(word) > 20:
        raise ValueError(f"word must have at most 20 characters (2**19 splits); got {len(word)}")
    if len(word) == 1:
        return [[word]] if word in pieces else []
    splits = []
    for end in range(1, len(word) + 1):
        head = word[:end]
        if head not in pieces:
            continue
        if end == len(word):
            splits.append([head])
        else:
            splits.extend([head, *rest] for rest in unigram_splits(word[end:], pieces))
    return splits


def _viterbi(word, log_probs, longest, unk_score=None, exclude=None):
    n = len(word)
    best: list[Optional[float]] = [0.0] + [None] * n
    back: list[tuple[int, str]] = [(0, "")] * (n + 1)
    for end in range(1, n + 1):
        for start in range(max(0, end - longest), end):
            if best[start] is None:
                continue
            piece = word[start:end]
            score = log_probs.get(piece) if piece != exclude else None
            if score is None and end == start + 1 and unk_score is not None and piece not in log_probs:
                score, piece = unk_score, UNK
            if score is None:
                continue
            total = best[start] + score
            if best[end] is None or total > best[end]:
                best[end], back[end] = total, (start, piece)
    if best[n] is None:
        raise ValueError(f"word {word!r} cannot be split into the given pieces (no piece covers some character)")
    pieces, end = [], n
    while end > 0:
        start, piece = back[end]
        pieces.append(piece)
        end = start
    pieces.reverse()
    return pieces, best[n]


def _lattice(word: str, log_probs: Mapping[str, float], longest: int) -> list[tuple[int, int, str, float]]:
    n, get, edges = len(word), log_probs.get, []
    for start in range(n):
        for end in range(start + 1, min(n, start + longest) + 1):
            lp = get(word[start:end])
            if lp is not None:
                edges.append((start, end, word[start:end], lp))
    return edges


def _logsumexp(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    high, low = (a, b) if a >= b else (b, a)
    return high + math.log1p(math.exp(low - high))


def expected_counts(counts: Mapping[str, int], log_probs: Mapping[str, float]) -> tuple[Counter, float]:
    """E-step: each piece's expected number of uses over all segmentations, and the corpus log-likelihood.

    Forward–backward on each word's lattice: ``alpha[i]`` sums the probabilities
    of all splits of ``word[:i]``, ``beta[i]`` of ``word[i:]``; a piece from
    ``start`` to ``end`` is used with probability
    ``alpha[start] p(piece) beta[end] / alpha[len(word)]``.

    >>> c, ll = expected_counts({"ab": 2}, {"a": math.log(0.25), "b": math.log(0.25), "ab": math.log(0.5)})
    >>> {p: round(v, 4) for p, v in sorted(c.items())}, round(ll, 4)
    ({'a': 0.2222, 'ab': 1.7778, 'b': 0.2222}, -1.1507)
    """
    counts = _check_counts(counts)
    log_probs = _check_log_probs(log_probs)
    longest = max(len(p) for p in log_probs)
    expected: Counter = Counter()
    likelihood = 0.0
    for word, count in counts.items():
        edges = _lattice(word, log_probs, longest)  # by start, then end: alpha forwards, beta backwards
        n = len(word)
        alpha = [0.0] + [-math.inf] * n
        for start, end, _, lp in edges:
            alpha[end] = _logsumexp(alpha[end], alpha[start] + lp)
        if alpha[n] == -math.inf:
            raise ValueError(f"word {word!r} cannot be split into the current pieces")
        beta = [-math.inf] * n + [0.0]
        for start, end, _, lp in reversed(edges):
            beta[start] = _logsumexp(beta[start], lp + beta[end])
        for start, end, piece, lp in edges:
            expected[piece] += count * math.exp(alpha[start] + lp + beta[end] - alpha[n])
        likelihood += count * alpha[n]
    return expected, likelihood


def seed_pieces(counts: Mapping[str, int], size: int, max_piece_len: int = 16) -> dict[str, float]:
    """A seed vocabulary: every character, and the substrings of the words with the largest count × length.

    Log-probabilities are the scores normalised (the first E-step corrects them).

    >>> sorted(seed_pieces({"hug": 3, "pug": 1}, size=6))
    ['g', 'h', 'hug', 'p', 'u', 'ug']
    """
    counts = _check_counts(counts)
    check_int("size", size)
    check_int("max_piece_len", max_piece_len, low=2)
    scores: Counter = Counter()
    characters: Counter = Counter()
    for word, count in counts.items():
        for i, ch in enumerate(word):
            characters[ch] += count
            for j in range(i + 2, min(len(word), i + max_piece_len) + 1):
                scores[word[i:j]] += count * (j - i)
    chosen = dict(characters)
    for piece, score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])):
        if len(chosen) >= size:
            break
        chosen[piece] = score
    total = sum(chosen.values())
    return {piece: math.log(score / total) for piece, score in chosen.items()}


def _m_step(expected: Mapping[str, float], keep: set) -> dict[str, float]:
    kept = {p: c for p, c in expected.items() if c >= 0.5 and p not in keep}
    kept.update({p: max(expected.get(p, 0.0), 1e-3) for p in keep})  # characters stay, however rare
    total = sum(kept.values())
    return {p: math.log(c / total) for p, c in kept.items()}


def removal_losses(counts: Mapping[str, int], log_probs: Mapping[str, float]) -> dict[str, float]:
    """How much the corpus's Viterbi log-likelihood falls if each multi-character piece is removed.

    A piece used ``f`` times by the Viterbi splits would be replaced by the best
    split of the piece itself without it, so its loss is
    ``f * (log p(piece) - log p(best split without it))`` (SentencePiece's
    approximation, without its renormalisation); a piece no best split uses costs 0.
    """
    counts = _check_counts(counts)
    log_probs = _check_log_probs(log_probs)
    longest = max(len(p) for p in log_probs)
    used: Counter = Counter()
    for word, count in counts.items():
        for piece in _viterbi(word, log_probs, longest)[0]:
            used[piece] += count
    losses = {}
    for piece, lp in log_probs.items():
        if len(piece) == 1:
            continue
        if not used[piece]:
            losses[piece] = 0.0
            continue
        losses[piece] = used[piece] * (lp - _viterbi(piece, log_probs, longest, exclude=piece)[1])
    return losses


class Unigram:
    """A Unigram tokenizer: pieces with log-probabilities, each word split by ``viterbi``.

    Text is lowercased and split into words as ``dl4nlp.bpe.pre_tokenize`` (equal
    to Hugging Face's ``Whitespace``); a character outside the pieces becomes
    ``[UNK]`` at the smallest log-probability minus 10, consecutive ones fused,
    as in ``tokenizers.models.Unigram``.
    """

    def __init__(self, log_probs: Mapping[str, float], lowercase: bool = True):
        self.log_probs = _check_log_probs(log_probs)
        if UNK in self.log_probs:
            raise ValueError(f"log_probs must not contain {UNK!r} (it is added for unknown characters)")
        if not isinstance(lowercase, bool):
            raise TypeError(f"lowercase must be True or False; got {given(lowercase)}")
        self.lowercase = lowercase
        self.unk_score = min(self.log_probs.values()) - UNK_PENALTY
        self._longest = max(len(p) for p in self.log_probs)
        self.history: list[tuple[int, float]] = []
        self._cache: dict[str, list[str]] = {}

    def __len__(self) -> int:
        return len(self.log_probs)

    def __repr__(self) -> str:
        return f"Unigram({len(self)} pieces)"

    @property
    def pieces(self) -> list[tuple[str, float]]:
        """``(piece, log-probability)`` pairs, most probable first: what ``tokenizers.models.Unigram`` takes."""
        return sorted(self.log_probs.items(), key=lambda kv: (-kv[1], kv[0]))

    def tokenize_word(self, word: str) -> list[str]:
        check_str("word", word, nonempty=True)
        if word not in self._cache:
            pieces, _ = _viterbi(word, self.log_probs, self._longest, unk_score=self.unk_score)
            fused = [p for i, p in enumerate(pieces) if not (p == UNK and i and pieces[i - 1] == UNK)]
            self._cache[word] = fused
        return list(self._cache[word])

    def tokenize(self, text: str) -> list[str]:
        """Split ``text`` into words, then each word into its most probable pieces."""
        check_str("text", text)
        return [p for word in pre_tokenize(text, lowercase=self.lowercase) for p in self.tokenize_word(word)]

    @classmethod
    def train(
        cls,
        counts: Mapping[str, int],
        vocab_size: int,
        seed_size: Optional[int] = None,
        shrink: float = 0.75,
        em_steps: int = 2,
        max_piece_len: int = 16,
    ) -> Unigram:
        """Learn ``vocab_size`` pieces (or the alphabet, if larger) from word counts by EM and pruning.

        ``seed_size`` (default 10 × ``vocab_size``) candidate pieces, then rounds of
        ``em_steps`` EM steps and pruning to ``shrink`` of the pieces (at least
        down to ``vocab_size``), and ``em_steps`` final EM steps. The model's
        ``history`` lists, after each round's EM, the number of pieces and the
        log-likelihood per word of the training words (summed over all their splits).

        >>> model = Unigram.train({"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}, vocab_size=10)
        >>> [model.tokenize_word(w) for w in ("hugs", "bun", "pug")]
        [['hug', 's'], ['b', 'u', 'n'], ['pug']]
        """
        counts = _check_counts(counts)
        check_int("vocab_size", vocab_size, low=1)
        seed_size = check_int("seed_size", seed_size if seed_size is not None else 10 * vocab_size, low=vocab_size)
        check_number("shrink", shrink, low=0.0, high=1.0, low_open=True, high_open=True)
        check_int("em_steps", em_steps, low=1)
        check_int("max_piece_len", max_piece_len, low=2)
        log_probs = seed_pieces(counts, seed_size, max_piece_len)
        alphabet = {p for p in log_probs if len(p) == 1}

        occurrences = sum(counts.values())
        history = []

        def em(log_probs):
            for _ in range(em_steps):
                log_probs = _m_step(expected_counts(counts, log_probs)[0], alphabet)
            history.append((len(log_probs), expected_counts(counts, log_probs)[1] / occurrences))
            return log_probs

        log_probs = em(log_probs)
        while len(log_probs) > max(vocab_size, len(alphabet)):
            losses = removal_losses(counts, log_probs)
            target = max(vocab_size, len(alphabet), int(len(log_probs) * shrink))
            ranked = sorted(losses, key=lambda p: (-losses[p], p))
            kept = set(ranked[: target - len(alphabet)]) | alphabet
            log_probs = em({p: v for p, v in log_probs.items() if p in kept})
        model = cls(log_probs)
        model.history = history
        return model
