"""One explicit training loop shared by the notebooks that train something.

``train(model, loss_fn, next_batch, steps=...)`` runs plain mini-batch
gradient descent: zero the gradients, compute the loss, backpropagate, measure
(and optionally clip) the gradient norm, step the optimiser and the schedule.
It shows a progress bar and returns a ``History`` of loss, gradient norm and
learning rate per step. A loss that becomes NaN or infinite stops the run and
sets ``History.diverged`` instead of raising, so a notebook can show a
diverging run next to a stable one (notebook 03's gradient clipping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import torch
from tqdm.auto import tqdm

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_device,
    check_int,
    check_number,
    check_str,
    check_type,
    given,
)


@dataclass
class History:
    """What happened at every step of a ``train`` run."""

    step: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    grad_norm: list[float] = field(default_factory=list)  # before clipping
    lr: list[float] = field(default_factory=list)
    diverged: bool = False

    def __post_init__(self) -> None:
        lengths = {}
        for name in ("step", "loss", "grad_norm", "lr"):
            values = getattr(self, name)
            if not isinstance(values, list) or not all(isinstance(v, (int, float)) for v in values):
                raise TypeError(f"{name} must be a list of numbers; got {given(values)}")
            if values:
                lengths[name] = len(values)
        if len(set(lengths.values())) > 1:
            raise ValueError(f"step, loss, grad_norm and lr must have one entry per step each; got lengths {lengths}")

    def smoothed_loss(self, window: int = 20) -> list[float]:
        """Running mean of the loss over the last ``window`` steps (for plotting)."""
        check_int("window", window)
        out, total = [], 0.0
        for i, value in enumerate(self.loss):
            total += value
            if i >= window:
                total -= self.loss[i - window]
            out.append(total / min(i + 1, window))
        return out


def to_device(batch: Any, device: torch.device) -> Any:
    """Move a tensor, or tensors nested in tuples, lists and dicts, to ``device``."""
    device = check_device("device", device, available=True)
    return _to_device(batch, device)


def _to_device(batch: Any, device: torch.device) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, (tuple, list)):
        return type(batch)(_to_device(item, device) for item in batch)
    if isinstance(batch, dict):
        return {key: _to_device(value, device) for key, value in batch.items()}
    return batch


def _check_optimizer_holds(optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter]) -> None:
    """The optimiser must step at least one of the model's trainable parameters (else the model never learns)."""
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if not any(id(p) in held for p in params):
        raise ValueError(
            f"optimizer must hold the model's parameters (build it from model.parameters()); got an optimizer "
            f"of {len(held)} tensors, none of them among the model's {len(params)} trainable parameters"
        )


def _check_scheduler(scheduler: Any, optimizer: Optional[torch.optim.Optimizer]) -> None:
    """A learning-rate schedule of the optimiser that ``train`` steps (not of another one)."""
    if not callable(getattr(scheduler, "step", None)) or not hasattr(scheduler, "optimizer"):  # duck-typed, like
        # torch's own schedulers and the scaling sweep's, which sets every step's rate from the run's schedule
        raise TypeError(
            "scheduler must be a learning-rate scheduler (an object with .step() and .optimizer, such as "
            f"torch.optim.lr_scheduler's) or None; got {given(scheduler)}"
        )
    if optimizer is None:
        raise ValueError(
            "scheduler must schedule the optimizer that train steps; got a scheduler but optimizer=None "
            "(train would make its own Adam, which the scheduler does not know): pass optimizer= too"
        )
    if scheduler.optimizer is not optimizer:
        raise ValueError(
            "scheduler must schedule the optimizer passed to train; got a scheduler of another "
            f"{type(scheduler.optimizer).__name__}"
        )


def train(
    model: torch.nn.Module,
    loss_fn: Callable[[torch.nn.Module, Any], torch.Tensor],
    next_batch: Callable[[int], Any],
    *,
    steps: int,
    optimizer: Optional[torch.optim.Optimizer] = None,
    lr: float = 1e-3,
    clip_norm: Optional[float] = None,
    scheduler: Optional[torch.optim.lr_scheduler.LRScheduler] = None,
    device: Optional[torch.device] = None,
    progress: bool = True,
    desc: str = "training",
) -> History:
    """Train ``model`` for ``steps`` steps and return its ``History``.

    ``next_batch(step)`` returns one batch (moved to ``device`` here) and
    ``loss_fn(model, batch)`` returns a scalar loss. The optimiser defaults to
    Adam with learning rate ``lr``. ``clip_norm`` rescales the gradient to at
    most that global L2 norm (``torch.nn.utils.clip_grad_norm_``).

    >>> model = torch.nn.Linear(1, 1, bias=False)  # w starts in [-1, 1]; the data say w = 2
    >>> x = torch.tensor([[1.0], [2.0]])
    >>> def loss_fn(model, x):
    ...     return ((model(x) - 2 * x) ** 2).mean()
    >>> history = train(model, loss_fn, lambda step: x, steps=3, lr=0.1, progress=False)
    >>> len(history.loss), history.loss[0] > history.loss[1] > history.loss[2], history.lr, history.diverged
    (3, True, [0.1, 0.1, 0.1], False)
    """
    check_type("model", model, torch.nn.Module, "a torch.nn.Module")
    if not any(p.requires_grad for p in model.parameters()):
        raise ValueError(f"model must have trainable parameters; got {given(model)}")
    check_callable("loss_fn", loss_fn, "a function loss_fn(model, batch) returning a scalar loss")
    check_callable("next_batch", next_batch, "a function next_batch(step) returning a batch")
    check_int("steps", steps)
    params = [p for p in model.parameters() if p.requires_grad]
    if optimizer is None:
        check_number("lr", lr, 0.0, low_open=True)
    else:
        check_type("optimizer", optimizer, torch.optim.Optimizer, "a torch.optim.Optimizer or None")
        _check_optimizer_holds(optimizer, params)
    if scheduler is not None:
        _check_scheduler(scheduler, optimizer)
    if clip_norm is not None:
        check_number("clip_norm", clip_norm, 0.0, low_open=True)
    check_bool("progress", progress)
    check_str("desc", desc)
    device = check_device("device", device, available=True) if device is not None else next(model.parameters()).device
    optimizer = optimizer or torch.optim.Adam(params, lr=lr)
    history = History()
    model.train()
    bar = tqdm(range(steps), desc=desc, disable=not progress, leave=False)
    for step in bar:
        batch = _to_device(next_batch(step), device)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model, batch)
        if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
            what = f"shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else given(loss)
            raise ValueError(f"loss_fn must return a scalar tensor; got {what}")
        if not torch.isfinite(loss):
            history.diverged = True
            break
        if not loss.requires_grad:  # torch's own error ("does not require grad") would come from backward()
            raise ValueError(
                "loss_fn must return a loss computed from the model's parameters (requires_grad=True); got a tensor "
                "that does not require grad (computed under torch.no_grad(), detached, or from the data alone?)"
            )
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(params, clip_norm if clip_norm else math.inf)
        history.step.append(step)
        history.loss.append(loss.item())
        history.grad_norm.append(norm.item())
        history.lr.append(optimizer.param_groups[0]["lr"])
        if not math.isfinite(norm.item()):
            history.diverged = True
            break
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        if step % 10 == 0:
            bar.set_postfix(loss=f"{loss.item():.3f}")
    bar.close()
    model.eval()
    return history
