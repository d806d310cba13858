"""Word vectors by skip-gram with negative sampling (SGNS; Mikolov et al., 2013), small enough for a CPU (chapter 02).

The pieces, in the order a training run uses them:

- ``words(text)``: the word tokens of a text, lower-cased (letters, with inner
  apostrophes: ``"don't"`` is one word; digits and punctuation are dropped);
- ``SkipGramVocab``: the words seen at least ``min_count`` times, most frequent
  first, with their counts; rarer words are removed from the stream;
- ``keep_probabilities`` / ``subsample``: each occurrence of a word of
  frequency f is kept with probability ``min(1, sqrt(t / f))``, the paper's
  discard rule ``1 - sqrt(t / f)``: "the", "and", "of" are mostly dropped;
- ``context_pairs``: every (centre, context) pair of positions at most
  ``window`` apart;
- ``noise_distribution`` / ``sample_negatives``: k "negative" words per pair,
  drawn from the unigram distribution raised to the power 3/4;
- ``sgns_loss``: per pair, ``-log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c)``, with v_c
  the centre's input vector, u_o the context's output vector and u_k the
  negatives' output vectors;
- ``SkipGram``: the two tables (input vectors V, output vectors U);
  ``train_skipgram`` trains them with Adam;
- ``nearest``: the words whose vectors have the highest cosine with a word's;
  ``class_cosines``: mean cosine within and between word classes;
  ``cooccurrence_vectors``: the count-based control (a word as its row of
  window co-occurrence counts).

>>> vocab = SkipGramVocab.build(words("The cat sat. The cat ran! The dog sat."), min_count=2)
>>> vocab.itos, vocab.counts
(['the', 'cat', 'sat'], [3, 2, 2])
>>> context_pairs(torch.tensor([0, 1, 2]), window=1).tolist()
[[0, 1], [1, 0], [1, 2], [2, 1]]
>>> loss = sgns_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1, 3, 2))
>>> round(loss.item(), 4) == round(4 * math.log(2), 4)  # σ(0) = 1/2 for the true pair and each of 3 negatives
True
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from dl4nlp._checks import (
    check_callable,
    check_ids,
    check_int,
    check_number,
    check_str,
    check_strings,
    check_tensor,
    check_type,
    given,
)

KIND = "skipgram"
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``: runs of letters a-z, with inner apostrophes (curly ones made straight).

    >>> words("“I don’t know,” said Holmes; 221B.")
    ['i', "don't", 'know', 'said', 'holmes', 'b']
    """
    check_str("text", text)
    return _WORD.findall(text.lower().replace("\u2019", "'").replace("\u2018", "'"))


class SkipGramVocab:
    """Words seen at least ``min_count`` times, most frequent first (ties alphabetical), with their counts."""

    def __init__(self, itos: Sequence[str], counts: Sequence[int]):
        itos = check_strings("itos", itos)
        if len(set(itos)) != len(itos):
            raise ValueError(f"itos must hold each word once; got {len(itos) - len(set(itos))} repeats")
        if not isinstance(counts, (list, tuple)) or len(counts) != len(itos):
            raise ValueError(f"counts must be a list of {len(itos)} counts, one per word; got {given(counts)}")
        self.itos = list(itos)
        self.counts = [check_int("each of counts", c) for c in counts]
        self.stoi = {w: i for i, w in enumerate(self.itos)}

    @classmethod
    def build(cls, tokens: Sequence[str], min_count: int = 5) -> SkipGramVocab:
        """The vocabulary of the word list ``tokens`` (from ``words``), keeping words seen ``min_count`` times."""
        tokens = check_strings("tokens", tokens)
        check_int("min_count", min_count)
        counted = Counter(tokens)
        kept = sorted((w for w, c in counted.items() if c >= min_count), key=lambda w: (-counted[w], w))
        if not kept:
            raise ValueError(f"min_count must leave some words; no word of the {len(tokens)} occurs {min_count} times")
        return cls(kept, [counted[w] for w in kept])

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, word: object) -> bool:
        return word in self.stoi

    def __repr__(self) -> str:
        return f"SkipGramVocab({len(self)} words)"

    def encode(self, tokens: Sequence[str]) -> torch.Tensor:
        """The ids of the words of ``tokens`` that are in the vocabulary (the others are dropped), int64."""
        tokens = check_strings("tokens", tokens, nonempty=False)
        return torch.tensor([self.stoi[w] for w in tokens if w in self.stoi], dtype=torch.long)

    def id(self, word: str) -> int:
        """The id of ``word``; a word not in the vocabulary is an error naming it."""
        check_str("word", word)
        if word not in self.stoi:
            raise KeyError(f"word must be in the vocabulary ({len(self)} words seen often enough); got {word!r}")
        return self.stoi[word]


def _counts(counts: object) -> torch.Tensor:
    counts = torch.as_tensor(counts, dtype=torch.float64) if isinstance(counts, (list, tuple)) else counts
    counts = check_tensor("counts", counts, ndim=1, dtype="float", expected="(V,) word counts")
    if len(counts) == 0 or not torch.isfinite(counts).all() or (counts <= 0).any():
        raise ValueError(f"counts must be positive and finite, one per word; got {counts[:5].tolist()}...")
    return counts.double()


def keep_probabilities(counts: Sequence[int] | torch.Tensor, threshold: float = 1e-3) -> torch.Tensor:
    """The probability of keeping each occurrence of each word: ``min(1, sqrt(t / f))``, f its frequency, (V,).

    >>> [round(p, 6) for p in keep_probabilities([75, 25], threshold=0.01).tolist()]  # f = 0.75 and 0.25
    [0.11547, 0.2]
    """
    counts = _counts(counts)
    check_number("threshold", threshold, 0, 1, low_open=True)
    return (threshold / (counts / counts.sum())).sqrt().clamp(max=1.0)


def subsample(ids: torch.Tensor, keep: torch.Tensor, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    """The ids that survive: each position is kept with probability ``keep[ids[i]]``, independently."""
    keep = check_tensor("keep", keep, ndim=1, dtype="float", expected="(V,) keep probabilities")
    if ((keep < 0) | (keep > 1)).any():
        raise ValueError(
            f"keep must hold probabilities in [0, 1]; got values from {keep.min():.3g} to {keep.max():.3g}"
        )
    ids = check_ids("ids", ids, len(keep), ndim=1, expected="(N,)")
    return ids[torch.rand(len(ids), generator=generator, dtype=torch.float64) < keep[ids]]


def context_pairs(ids: torch.Tensor, window: int) -> torch.Tensor:
    """Every (centre, context) pair of word ids at most ``window`` positions apart, (P, 2), in text order."""
    ids = check_ids("ids", ids, None, ndim=1, expected="(N,)")
    check_int("window", window)
    n = len(ids)
    positions = torch.arange(n)
    offsets = torch.tensor([o for o in range(-window, window + 1) if o != 0])
    other = positions[:, None] + offsets  # (N, 2w)
    valid = (other >= 0) & (other < n)
    centre = positions[:, None].expand_as(other)[valid]
    return torch.stack([ids[centre], ids[other[valid]]], dim=1)


def noise_distribution(counts: Sequence[int] | torch.Tensor, power: float = 0.75) -> torch.Tensor:
    """The negatives' distribution, ``count^power`` normalised, (V,) float64.

    >>> noise_distribution([81, 1]).tolist()  # 27 : 1 instead of 81 : 1
    [0.9642857142857143, 0.03571428571428571]
    """
    counts = _counts(counts)
    check_number("power", power, 0, 1)
    weights = counts**power
    return weights / weights.sum()


def sample_negatives(noise: torch.Tensor, shape: Sequence[int], generator: Optional[torch.Generator] = None):
    """Word ids drawn from ``noise`` (with replacement), of the given ``shape`` such as (B, k)."""
    noise = check_tensor("noise", noise, ndim=1, dtype="float", expected="(V,) probabilities")
    if (noise < 0).any() or abs(noise.sum().item() - 1) > 1e-6:
        raise ValueError(f"noise must be a probability distribution (non-negative, sum 1); sums to {noise.sum():.4g}")
    if not isinstance(shape, (tuple, list)) or not shape:
        raise ValueError(f"shape must be a tuple of sizes such as (B, k); got {given(shape)}")
    shape = tuple(check_int("each size of shape", s) for s in shape)
    draws = torch.multinomial(noise, math.prod(shape), replacement=True, generator=generator)
    return draws.view(shape)


def sgns_loss(centre: torch.Tensor, context: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
    """Per-pair loss (B,): ``-log σ(u_o·v_c) - Σ_k log σ(-u_k·v_c)``.

    ``centre`` (B, d) holds v_c, ``context`` (B, d) u_o and ``negatives`` (B, k, d) the u_k.
    ``-log σ(x)`` is computed as ``softplus(-x)``, which does not overflow.
    """
    centre = check_tensor("centre", centre, ndim=2, dtype="float", expected="(B, d)")
    B, d = centre.shape
    check_tensor("context", context, shape=(B, d), dtype="float")
    check_tensor("negatives", negatives, shape=(B, None, d), dtype="float", expected=f"({B}, k, {d})")
    positive = (context * centre).sum(-1)  # (B,): u_o · v_c
    negative = torch.einsum("bkd,bd->bk", negatives, centre)  # (B, k): u_k · v_c
    return F.softplus(-positive) + F.softplus(negative).sum(-1)


@dataclass(frozen=True)
class SkipGramConfig:
    """Sizes and settings of a run: the vocabulary size, the vector size, the window, k negatives, subsampling t."""

    vocab_size: int
    dim: int = 50
    window: int = 3
    negatives: int = 5
    threshold: float = 1e-3
    power: float = 0.75

    def __post_init__(self) -> None:
        for name in ("vocab_size", "dim", "window", "negatives"):
            check_int(name, getattr(self, name))
        check_number("threshold", self.threshold, 0, 1, low_open=True)
        check_number("power", self.power, 0, 1)


class SkipGram(nn.Module):
    """Two tables of word vectors: ``input`` (the v, for centre words) and ``output`` (the u, for context words).

    As in word2vec, the input vectors start uniform in ``±0.5/d`` and the output vectors at zero.
    """

    def __init__(self, config: SkipGramConfig):
        super().__init__()
        check_type("config", config, SkipGramConfig, "a SkipGramConfig")
        self.config = config
        self.input = nn.Embedding(config.vocab_size, config.dim)
        self.output = nn.Embedding(config.vocab_size, config.dim)
        nn.init.uniform_(self.input.weight, -0.5 / config.dim, 0.5 / config.dim)
        nn.init.zeros_(self.output.weight)

    def forward(
        self, centres: torch.Tensor, contexts: torch.Tensor, negatives: torch.Tensor, loss: Optional[Callable] = None
    ) -> torch.Tensor:
        """The mean SGNS loss of a batch: ``centres`` (B,), ``contexts`` (B,), ``negatives`` (B, k) word ids.

        ``loss`` replaces ``sgns_loss`` (a student's own version); it must return the (B,) per-pair losses.
        """
        V = self.config.vocab_size
        centres = check_ids("centres", centres, V, ndim=1, expected="(B,)")
        check_ids("contexts", contexts, V, shape=(len(centres),))
        check_ids("negatives", negatives, V, shape=(len(centres), None), expected=f"({len(centres)}, k)")
        per_pair = (loss or sgns_loss)(self.input(centres), self.output(contexts), self.output(negatives))
        return per_pair.mean()


@dataclass(frozen=True)
class SkipGramRun:
    """A trained model, its vocabulary, the loss of every step and how many pairs it saw."""

    model: SkipGram
    vocab: SkipGramVocab
    losses: tuple[float, ...]
    pairs_seen: int

    @property
    def vectors(self) -> torch.Tensor:
        """The input vectors (V, d), the word vectors one keeps."""
        return self.model.input.weight.detach()


def train_skipgram(
    ids: torch.Tensor,
    vocab: SkipGramVocab,
    config: SkipGramConfig,
    *,
    seed: int = 0,
    epochs: float = 1.0,
    batch_size: int = 1024,
    lr: float = 5e-3,
    loss: Optional[Callable] = None,
) -> SkipGramRun:
    """Train ``SkipGram`` with Adam on ``epochs`` passes over the pairs of ``ids`` (re-subsampled every pass).

    Each pass subsamples the stream, forms every pair within ``config.window``, shuffles them and
    draws ``config.negatives`` negatives per pair from the noise distribution. A fractional
    ``epochs`` stops part-way through the last pass.
    """
    check_type("vocab", vocab, SkipGramVocab, "a SkipGramVocab")
    check_type("config", config, SkipGramConfig, "a SkipGramConfig")
    if config.vocab_size != len(vocab):
        raise ValueError(f"config.vocab_size must be the vocabulary's {len(vocab)} words; got {config.vocab_size}")
    ids = check_ids("ids", ids, len(vocab), ndim=1, expected="(N,)")
    check_int("seed", seed, low=0)
    check_number("epochs", epochs, 0, low_open=True)
    check_int("batch_size", batch_size)
    check_number("lr", lr, 0, low_open=True)
    if loss is not None:
        check_callable("loss", loss)
    torch.manual_seed(seed)
    model = SkipGram(config)
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    generator = torch.Generator().manual_seed(seed)
    keep = keep_probabilities(vocab.counts, config.threshold)
    noise = noise_distribution(vocab.counts, config.power)
    losses: list[float] = []
    seen, passes = 0, math.ceil(epochs)
    for p in range(passes):
        pairs = context_pairs(subsample(ids, keep, generator), config.window)
        pairs = pairs[torch.randperm(len(pairs), generator=generator)]
        if p == passes - 1 and epochs < passes:
            pairs = pairs[: max(1, round((epochs - p) * len(pairs)))]
        for start in range(0, len(pairs), batch_size):
            batch = pairs[start : start + batch_size]
            negatives = sample_negatives(noise, (len(batch), config.negatives), generator)
            value = model(batch[:, 0], batch[:, 1], negatives, loss=loss)
            optimiser.zero_grad()
            value.backward()
            optimiser.step()
            losses.append(value.item())
            seen += len(batch)
    return SkipGramRun(model, vocab, tuple(losses), seen)


def _unit(vectors: torch.Tensor) -> torch.Tensor:
    vectors = check_tensor("vectors", vectors, ndim=2, dtype="float", expected="(V, d)")
    return F.normalize(vectors.double(), dim=1)


def nearest(vectors: torch.Tensor, vocab: SkipGramVocab, word: str, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` other words whose vectors have the highest cosine with ``word``'s, with the cosines.

    >>> vocab = SkipGramVocab(["a", "b", "c"], [3, 2, 1])
    >>> nearest(torch.tensor([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]), vocab, "a", k=1)
    [('b', 0.9939)]
    """
    check_type("vocab", vocab, SkipGramVocab, "a SkipGramVocab")
    unit = _unit(vectors)
    if len(unit) != len(vocab):
        raise ValueError(f"vectors must have one row per word of the vocabulary ({len(vocab)}); got {len(unit)}")
    check_int("k", k, high=len(vocab) - 1)
    i = vocab.id(word)
    cosines = unit @ unit[i]
    cosines[i] = -math.inf
    top = cosines.topk(k)
    return [(vocab.itos[j], round(c, 4)) for j, c in zip(top.indices.tolist(), top.values.tolist())]


def _class_cosines_matrix(
    vectors: torch.Tensor, vocab: SkipGramVocab, classes: dict[str, Sequence[str]], min_words: int
) -> tuple[torch.Tensor, list[str]]:
    """Cosines between every pair of the classes' words (W, W), and each word's class, in the classes' order."""
    check_type("vocab", vocab, SkipGramVocab, "a SkipGramVocab")
    if not isinstance(classes, dict) or len(classes) < 2:
        raise ValueError(f"classes must be a dict of at least two classes (name -> words); got {given(classes)}")
    unit = _unit(vectors)
    ids, labels = [], []
    for label, members in classes.items():
        members = check_strings(f"classes[{label!r}]", members)
        if len(members) < min_words:
            raise ValueError(f"classes[{label!r}] must hold at least {min_words} words; got {members}")
        ids += [vocab.id(w) for w in members]
        labels += [label] * len(members)
    return unit[ids] @ unit[ids].T, labels


def class_cosines(
    vectors: torch.Tensor, vocab: SkipGramVocab, classes: dict[str, Sequence[str]]
) -> tuple[float, float]:
    """Mean cosine over pairs of words in the same class, and over pairs of words from different classes.

    >>> vocab = SkipGramVocab(["a", "b", "c", "d"], [4, 3, 2, 1])
    >>> v = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
    >>> class_cosines(v, vocab, {"x": ["a", "b"], "y": ["c", "d"]})
    (1.0, 0.0)
    """
    cosines, labels = _class_cosines_matrix(vectors, vocab, classes, min_words=2)
    same = torch.tensor([[a == b for b in labels] for a in labels])
    off_diagonal = ~torch.eye(len(labels), dtype=torch.bool)
    return cosines[same & off_diagonal].mean().item(), cosines[~same].mean().item()


def cooccurrence_vectors(ids: torch.Tensor, vocab_size: int, window: int) -> torch.Tensor:
    """Each word as its row of counts of the words within ``window`` of it (V, V), float64: the count control."""
    check_int("vocab_size", vocab_size)
    ids = check_ids("ids", ids, vocab_size, ndim=1, expected="(N,)")
    pairs = context_pairs(ids, window)
    counts = torch.zeros(vocab_size, vocab_size, dtype=torch.float64)
    counts.index_put_((pairs[:, 0], pairs[:, 1]), torch.ones(len(pairs), dtype=torch.float64), accumulate=True)
    return counts


def same_class_neighbours(vectors: torch.Tensor, vocab: SkipGramVocab, classes: dict[str, Sequence[str]]) -> float:
    """The fraction of the classes' words whose nearest other word *among the classes' words* is of its class.

    Unlike cosines, this does not depend on the scale of the similarities, so it compares kinds of vectors
    (learned, counted, random). With c classes of equal size, chance is a little below 1/c.

    >>> vocab = SkipGramVocab(["a", "b", "c", "d"], [4, 3, 2, 1])
    >>> v = torch.tensor([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    >>> same_class_neighbours(v, vocab, {"x": ["a", "b"], "y": ["c", "d"]})
    1.0
    """
    cosines, labels = _class_cosines_matrix(vectors, vocab, classes, min_words=1)
    cosines.fill_diagonal_(-math.inf)
    best = cosines.argmax(dim=1).tolist()
    return sum(labels[i] == labels[j] for i, j in enumerate(best)) / len(labels)


@dataclass(frozen=True)
class ShippedVectors:
    """The word vectors a recipe trained: the vocabulary, the input vectors of each seed, the provenance."""

    vocab: SkipGramVocab
    vectors: dict[int, torch.Tensor]  # seed -> (V, d) float32
    config: dict
    provenance: dict


def load_vectors(path=None) -> ShippedVectors:
    """The shipped word vectors (``data/skipgram_sherlock.pt`` unless ``path``), checksum verified."""
    from dl4nlp.checkpoint import load_checkpoint
    from dl4nlp.data import data_path

    path = data_path("skipgram_sherlock.pt") if path is None else path
    checkpoint = load_checkpoint(path, kind=KIND)
    itos, counts = checkpoint.extra.get("itos"), checkpoint.extra.get("counts")
    if not isinstance(itos, list) or not isinstance(counts, list):
        raise ValueError(f"{path} holds no vocabulary (extra['itos'] and extra['counts']); expected lists of words")
    vocab = SkipGramVocab(itos, counts)
    vectors = {}
    for name, tensor in checkpoint.state_dict.items():
        if not name.startswith("seed") or tensor.shape != (len(vocab), checkpoint.config["dim"]):
            raise ValueError(f"{path}: unexpected tensor {name!r} of shape {tuple(tensor.shape)}")
        vectors[int(name[4:])] = tensor.float()
    return ShippedVectors(vocab, vectors, checkpoint.config, checkpoint.provenance)
