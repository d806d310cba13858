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


def _check_add(add: float) -> None:
    if isinstance(add, bool) or not isinstance(add, (int, float)) or not add > 0 or not math.isfinite(add):
        raise ValueError(f"add must be a positive number; got {add!r}")


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
