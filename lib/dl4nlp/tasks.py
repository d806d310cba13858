"""Small synthetic tasks that isolate one ability of a sequence model.

Each task is a self-contained function that draws a fresh batch from a
``torch.Generator``, so experiments reproduce exactly.

``long_lag_task`` (notebooks 03 and 04) tests memory: the label is the first
token of the sequence, and ``lag`` distracting tokens follow it, so a model that
reads the sequence left to right must carry one token across ``lag`` steps.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from dl4nlp._checks import check_int, check_number, check_type, given
from dl4nlp.train import History, train


def long_lag_task(
    batch_size: int,
    lag: int,
    num_classes: int = 4,
    num_distractors: int = 8,
    generator: Optional[torch.Generator] = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of the long-lag memory task: ``(tokens, labels)`` of shapes (B, lag + 1) and (B,).

    ``tokens[:, 0]`` is the label, an id in ``[0, num_classes)``; ``tokens[:, 1:]``
    are distractors drawn uniformly from ``[num_classes, num_classes + num_distractors)``.
    The vocabulary size is ``num_classes + num_distractors``; chance accuracy is ``1 / num_classes``.

    >>> tokens, labels = long_lag_task(2, lag=3, generator=torch.Generator().manual_seed(0))
    >>> tokens.shape, bool((tokens[:, 0] == labels).all()), bool((tokens[:, 1:] >= 4).all())
    (torch.Size([2, 4]), True, True)
    """
    for name, value, low in [
        ("batch_size", batch_size, 1),
        ("lag", lag, 1),
        ("num_classes", num_classes, 2),
        ("num_distractors", num_distractors, 1),
    ]:
        check_int(name, value, low)
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    labels = torch.randint(0, num_classes, (batch_size,), generator=generator)  # (B,)
    distractors = torch.randint(
        num_classes, num_classes + num_distractors, (batch_size, lag), generator=generator
    )  # (B, lag)
    return torch.cat([labels[:, None], distractors], dim=1), labels


def _check_model(model: nn.Module, num_classes: int, num_distractors: int) -> None:
    check_type("model", model, nn.Module, "a torch.nn.Module (tokens (B, T) -> logits (B, C))")
    if next(model.parameters(), None) is None:
        raise ValueError(f"model must have parameters; got {given(model)}")
    embedding = getattr(model, "embedding", None)
    vocab = num_classes + num_distractors if isinstance(num_classes, int) and isinstance(num_distractors, int) else 0
    if isinstance(embedding, nn.Embedding) and embedding.num_embeddings < vocab:
        raise ValueError(
            f"num_classes + num_distractors must fit the model's vocabulary of {embedding.num_embeddings}; "
            f"got {num_classes} + {num_distractors} = {vocab}"
        )


def long_lag_accuracy(
    model: nn.Module, lag: int, num_classes: int = 4, num_distractors: int = 8, samples: int = 1000, seed: int = 12345
) -> float:
    """Accuracy of ``model`` (tokens (B, T) -> logits (B, C)) on a fixed held-out batch of the task."""
    _check_model(model, num_classes, num_distractors)
    check_int("samples", samples)
    generator = torch.Generator().manual_seed(seed)
    tokens, labels = long_lag_task(samples, lag, num_classes, num_distractors, generator)
    device = next(model.parameters()).device
    model.eval()
    with torch.no_grad():
        logits = model(tokens.to(device))
    if logits.shape != (samples, num_classes):
        raise ValueError(f"model must return logits (B, num_classes={num_classes}); got {tuple(logits.shape)}")
    predictions = logits.argmax(dim=-1).cpu()
    return (predictions == labels).float().mean().item()


def fit_long_lag(
    model: nn.Module,
    lag: int,
    steps: int,
    *,
    lr: float = 3e-3,
    clip_norm: Optional[float] = 1.0,
    optimizer: Optional[torch.optim.Optimizer] = None,
    batch_size: int = 64,
    num_classes: int = 4,
    num_distractors: int = 8,
    seed: int = 0,
    progress: bool = True,
    desc: str = "",
) -> History:
    """Train ``model`` on fresh batches of the long-lag task with ``dl4nlp.train.train`` (cross-entropy)."""
    _check_model(model, num_classes, num_distractors)
    long_lag_task(1, lag, num_classes, num_distractors)  # checks the task's sizes before training starts
    check_int("batch_size", batch_size)
    if optimizer is None:
        check_number("lr", lr, 0.0, low_open=True)
    generator = torch.Generator().manual_seed(seed)

    def next_batch(step: int):
        return long_lag_task(batch_size, lag, num_classes, num_distractors, generator)

    def loss_fn(model: nn.Module, batch) -> torch.Tensor:
        tokens, labels = batch
        return nn.functional.cross_entropy(model(tokens), labels)

    return train(
        model,
        loss_fn,
        next_batch,
        steps=steps,
        lr=lr,
        clip_norm=clip_norm,
        optimizer=optimizer,
        progress=progress,
        desc=desc or f"lag {lag}",
    )


def xor_blobs(
    n: int, spread: float = 0.3, generator: Optional[torch.Generator] = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Points (n, 2) float64 around the four corners (±1, ±1), labelled like XOR: labels (n,) in {0, 1}.

    Point i sits at corner i mod 4 plus Gaussian noise of standard deviation
    ``spread``; the corners (1, 1) and (-1, -1) are class 0, (1, -1) and (-1, 1) class 1.
    No straight line separates the classes (notebook 01 trains a scalar-engine MLP on it).

    >>> points, labels = xor_blobs(8, generator=torch.Generator().manual_seed(0))
    >>> points.shape, labels.tolist()
    (torch.Size([8, 2]), [0, 0, 1, 1, 0, 0, 1, 1])
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 4:
        raise ValueError(f"n must be an integer >= 4 (one point per corner); got {n!r}")
    if isinstance(spread, bool) or not isinstance(spread, (int, float)) or not 0 <= spread < float("inf"):
        raise ValueError(f"spread must be a finite number >= 0; got {spread!r}")
    corners = torch.tensor([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]], dtype=torch.float64)
    corner = torch.arange(n) % 4  # (n,)
    points = corners[corner] + spread * torch.randn(n, 2, generator=generator, dtype=torch.float64)
    return points, (corner >= 2).long()
