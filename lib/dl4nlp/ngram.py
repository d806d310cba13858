"""Count-based n-gram language models as baselines, and perplexity.

A neural language model's loss means little alone. Chapter 02 builds what simply
counting gets: a unigram model (how often each token occurs) and a bigram model
(how often each token follows each other token), both with add-k smoothing
(``count_probabilities``); chapter 03 scores them on exactly the predictions
``dl4nlp.rnn.next_token_loss`` scores (``count_model_loss``).

>>> train = torch.tensor([0, 1, 0, 1, 0, 1])
>>> windows = torch.tensor([[0, 1, 0]])
>>> round(count_model_loss(train, windows, vocab_size=2, order=1), 4)  # p = 1/2 for both tokens
0.6931
>>> round(perplexity(math.log(65)), 6)  # guessing uniformly among 65 characters
65.0
"""

from __future__ import annotations

import math

import numpy as np
import torch


def perplexity(loss: float) -> float:
    """e^loss for a mean loss in nats per token: the number of equally likely tokens that would be as uncertain.

    A loss above ~709 nats gives ``inf`` (beyond the largest float), as ``torch.exp`` does.
    """
    if isinstance(loss, bool) or not isinstance(loss, (int, float)) or not math.isfinite(loss) or loss < 0:
        raise ValueError(f"loss must be a finite, non-negative number of nats per token; got {loss!r}")
    try:
        return math.exp(loss)
    except OverflowError:
        return math.inf


def _check_ids(name: str, ids: torch.Tensor, vocab_size: int, dims: int) -> None:
    if not isinstance(ids, torch.Tensor) or ids.dim() != dims or ids.numel() == 0:
        got = tuple(ids.shape) if isinstance(ids, torch.Tensor) else type(ids).__name__
        raise ValueError(f"{name} must be a non-empty {dims}-D tensor of token ids; got {got}")
    if ids.dtype != torch.long or ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(
            f"{name} must hold int64 ids in [0, {vocab_size}); got {ids.dtype} in "
            f"[{ids.min().item()}, {ids.max().item()}]"
        )


def _check_add(add: float, name: str = "add") -> None:
    if isinstance(add, bool) or not isinstance(add, (int, float)) or not add > 0 or not math.isfinite(add):
        raise ValueError(f"{name} must be a positive number; got {add!r}")


def count_probabilities(train_ids: torch.Tensor, vocab_size: int, order: int = 1, add: float = 1.0) -> torch.Tensor:
    """The add-``add`` n-gram model counted on ``train_ids`` (N,), as float64 probabilities.

    ``order`` 1: p(c) = (n(c) + add) / (N + add·V), shape (V,). ``order`` 2:
    p(c | a) = (n(a, c) + add) / (n(a) + add·V), shape (V, V) with row a the
    previous token (n(a) counts a's that have a successor).

    >>> count_probabilities(torch.tensor([0, 1, 1]), vocab_size=3).tolist()  # (1+1, 2+1, 0+1) / 6
    [0.3333333333333333, 0.5, 0.16666666666666666]
    >>> count_probabilities(torch.tensor([0, 1, 1]), vocab_size=3, order=2)[1].tolist()  # after 1: 1 once
    [0.25, 0.5, 0.25]
    """
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive integer; got {vocab_size!r}")
    if isinstance(order, bool) or order not in (1, 2):
        raise ValueError(f"order must be 1 (unigram) or 2 (bigram); got {order!r}")
    _check_add(add)
    _check_ids("train_ids", train_ids, vocab_size, 1)
    if order == 1:
        counts = torch.bincount(train_ids, minlength=vocab_size).double() + add  # (V,)
        return counts / counts.sum()
    if len(train_ids) < 2:
        raise ValueError(f"a bigram model needs at least 2 training ids; got {len(train_ids)}")
    counts = torch.full((vocab_size, vocab_size), float(add), dtype=torch.float64)  # (V, V): previous -> next
    counts.index_put_(
        (train_ids[:-1], train_ids[1:]), torch.ones(len(train_ids) - 1, dtype=torch.float64), accumulate=True
    )
    return counts / counts.sum(dim=1, keepdim=True)


def count_model_loss(
    train_ids: torch.Tensor, windows: torch.Tensor, vocab_size: int, order: int = 1, add: float = 1.0
) -> float:
    """Mean loss (nats) of an add-``add`` n-gram model counted on ``train_ids`` (N,), predicting
    ``windows[:, 1:]`` from ``windows[:, :-1]`` (B, T+1); ``order`` 1 ignores the context, 2 uses the previous token."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        raise ValueError(f"vocab_size must be a positive integer; got {vocab_size!r}")
    if isinstance(order, bool) or order not in (1, 2):
        raise ValueError(f"order must be 1 (unigram) or 2 (bigram); got {order!r}")
    _check_add(add)
    _check_ids("train_ids", train_ids, vocab_size, 1)
    _check_ids("windows", windows, vocab_size, 2)
    if windows.shape[1] < 2:
        raise ValueError(f"windows must have shape (B, T+1) with T+1 >= 2; got {tuple(windows.shape)}")
    targets = windows[:, 1:]  # (B, T)
    log_probs = count_probabilities(train_ids, vocab_size, order, add).log()
    if order == 1:
        return -log_probs[targets].mean().item()
    return -log_probs[windows[:, :-1], targets].mean().item()


class SmoothingCurves:
    """Perplexities of add-k unigram and bigram models counted on growing prefixes of a text, for any k.

    The counts are made once, here; calling the object with a smoothing constant ``k``
    only combines them (a few (V, V) array operations per prefix), so chapter 02's
    widget redraws in milliseconds. For each size n in ``sizes`` the models are counted
    on ``train_ids[:n]`` exactly as ``count_probabilities`` counts them, and scored on
    every prediction of ``heldout_ids[1:]`` from the token before it (and, for the bigram
    model, on the n - 1 predictions of its own training prefix).

    >>> curves = SmoothingCurves(torch.tensor([0, 1, 0, 1]), torch.tensor([0, 1, 1]), vocab_size=2, sizes=[4])
    >>> p = count_probabilities(torch.tensor([0, 1, 0, 1]), 2, order=2, add=0.5)
    >>> bool(abs(curves(0.5)["bigram, held-out"][0] - math.exp(-(p[0, 1].log() + p[1, 1].log()).item() / 2)) < 1e-12)
    True
    """

    NAMES = ("unigram, held-out", "bigram, held-out", "bigram, its training text")

    def __init__(self, train_ids: torch.Tensor, heldout_ids: torch.Tensor, vocab_size: int, sizes) -> None:
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise ValueError(f"vocab_size must be a positive integer; got {vocab_size!r}")
        _check_ids("train_ids", train_ids, vocab_size, 1)
        _check_ids("heldout_ids", heldout_ids, vocab_size, 1)
        if len(heldout_ids) < 2:
            raise ValueError(f"heldout_ids must hold at least 2 ids; got shape {tuple(heldout_ids.shape)}")
        sizes = list(sizes) if isinstance(sizes, (list, tuple, range)) else sizes
        if (
            not isinstance(sizes, list)
            or not sizes
            or any(isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= len(train_ids) for n in sizes)
        ):
            raise ValueError(f"sizes must be a non-empty list of integers in [2, {len(train_ids)}]; got {sizes!r}")
        V = vocab_size
        self.vocab_size, self.sizes = V, sizes
        heldout_pairs = torch.zeros(V, V, dtype=torch.float64)  # (V, V): previous -> next, held-out
        heldout_pairs.index_put_(
            (heldout_ids[:-1], heldout_ids[1:]), torch.ones(len(heldout_ids) - 1, dtype=torch.float64), accumulate=True
        )
        self._heldout_pairs = heldout_pairs.numpy()  # numpy: one thread, no pool to wait for in a redraw
        self._heldout_targets = self._heldout_pairs.sum(axis=0)  # (V,): how often each token is predicted
        unigrams, bigrams = [], []
        for n in sizes:
            counted = train_ids[:n]
            unigrams.append(torch.bincount(counted, minlength=V).double())
            pairs = torch.zeros(V, V, dtype=torch.float64)
            pairs.index_put_((counted[:-1], counted[1:]), torch.ones(n - 1, dtype=torch.float64), accumulate=True)
            bigrams.append(pairs)
        self._unigrams = torch.stack(unigrams).numpy()  # (S, V)
        self._bigrams = torch.stack(bigrams).numpy()  # (S, V, V)

    def __call__(self, k: float) -> dict[str, list[float]]:
        """The three curves (perplexity per size in ``sizes``) for add-``k`` smoothing."""
        _check_add(k, "k")
        V = self.vocab_size
        unigram = np.log((self._unigrams + k) / (self._unigrams.sum(axis=1, keepdims=True) + k * V))  # (S, V)
        bigram = np.log((self._bigrams + k) / (self._bigrams.sum(axis=2, keepdims=True) + k * V))  # (S, V, V)
        predictions = self._heldout_targets.sum()
        unigram_loss = -(unigram * self._heldout_targets).sum(axis=1) / predictions
        bigram_loss = -(bigram * self._heldout_pairs).sum(axis=(1, 2)) / predictions
        own_loss = -(bigram * self._bigrams).sum(axis=(1, 2)) / self._bigrams.sum(axis=(1, 2))
        return {
            name: [perplexity(x) for x in loss.tolist()]
            for name, loss in zip(self.NAMES, (unigram_loss, bigram_loss, own_loss))
        }
