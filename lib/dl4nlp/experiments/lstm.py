"""The experiments of chapters 04 (LSTM and GRU) and 05 (bidirectional and stacked) on synthetic tasks.

Each returns a frozen dataclass of numbers; the notebooks assert their claims on
``seed=0`` and ``tests/claims/test_04_lstm.py`` / ``test_05_recurrent_lm.py`` on
``CLAIM_SEEDS``, with the thresholds below. The experiments on the shipped
character LSTMs are in ``dl4nlp.experiments.char_lstm``.

- ``lag_memory``: the long-lag task at lag 50 for a tanh RNN, an LSTM and a GRU
  of the same width, trained the same way; and how much gradient reaches the
  signal in the RNN and the LSTM.
- ``exploding_gradient``: an LSTM's gradient still explodes when its recurrent
  weights are large (the forget gate only removes the vanishing).
- ``direction_and_depth``: per-position tagging tasks where a bidirectional
  LSTM should help (the label is the *next* token) and where stacking should
  help (the label compares the previous and the next token, which a single
  bidirectional layer can only combine linearly), each with its control.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from dl4nlp._checks import check_choice, check_ids, check_number, check_sequence, check_tensor
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.lstm import GRUCell, LSTMCell, set_forget_bias_, set_update_bias_
from dl4nlp.rnn import RecurrentClassifier, RecurrentTagger
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.train import train


# --- one LSTM step, for the notebook's exercise 1 ----------------------------------
def library_lstm_step(
    x: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor,
    bias_hh: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One LSTM step by ``dl4nlp.lstm.LSTMCell`` with PyTorch's four parameters: the new ``(h, c)``, (B, H) each.

    The signature of chapter 04's exercise 1 (``lstm_step``); the notebook uses it
    where the exercise is not solved yet.

    >>> torch.manual_seed(0) and None
    >>> cell = nn.LSTMCell(2, 3)
    >>> x, h, c = torch.randn(4, 2), torch.randn(4, 3), torch.randn(4, 3)
    >>> with torch.no_grad():
    ...     ours = library_lstm_step(x, h, c, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    ...     print(torch.allclose(torch.stack(ours), torch.stack(cell(x, (h, c))), atol=1e-6))
    True
    """
    x = check_tensor("x", x, ndim=2, dtype="float", expected="(B, I)")
    h = check_tensor("h", h, ndim=2, dtype="float", expected="(B, H)")
    hidden, inputs = h.shape[1], x.shape[1]
    parameters = {"weight_ih": weight_ih, "weight_hh": weight_hh, "bias_ih": bias_ih, "bias_hh": bias_hh}
    shapes = {"weight_ih": (4 * hidden, inputs), "weight_hh": (4 * hidden, hidden)}
    shapes.update(bias_ih=(4 * hidden,), bias_hh=(4 * hidden,))
    cell = LSTMCell(inputs, hidden).to(device=x.device, dtype=x.dtype)  # computed where x is
    with torch.no_grad():
        for name, value in parameters.items():
            getattr(cell, name).copy_(check_tensor(name, value, shape=shapes[name], dtype="float"))
    step = cell(x, (h, c))
    return step.h, step.c


# --- one GRU step, for the notebook's exercise 2 ------------------------------------
def library_gru_step(
    x: torch.Tensor,
    h: torch.Tensor,
    weight_ih: torch.Tensor,
    weight_hh: torch.Tensor,
    bias_ih: torch.Tensor,
    bias_hh: torch.Tensor,
    reset_after: bool = True,
) -> tuple[torch.Tensor, dict]:
    """One GRU step by ``dl4nlp.lstm.GRUCell`` with PyTorch's parameters: ``(new h, {"reset", "update", "candidate"})``.

    The signature of chapter 04's exercise 2 (``gru_step``): ``reset_after=True`` is
    PyTorch's form (r scales W_hn h + b_hn), ``False`` Cho et al.'s (r scales h before
    the product). The notebook uses it where the exercise is not solved yet.

    >>> torch.manual_seed(0) and None
    >>> cell = nn.GRUCell(2, 3)
    >>> x, h = torch.randn(4, 2), torch.randn(4, 3)
    >>> with torch.no_grad():
    ...     ours, gates = library_gru_step(x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    ...     print(torch.allclose(ours, cell(x, h), atol=1e-6), sorted(gates))
    True ['candidate', 'reset', 'update']
    """
    x = check_tensor("x", x, ndim=2, dtype="float", expected="(B, I)")
    h = check_tensor("h", h, ndim=2, dtype="float", expected="(B, H)")
    if not isinstance(reset_after, bool):
        raise TypeError(f"reset_after must be a bool; got {reset_after!r}")
    hidden, inputs = h.shape[1], x.shape[1]
    parameters = {"weight_ih": weight_ih, "weight_hh": weight_hh, "bias_ih": bias_ih, "bias_hh": bias_hh}
    shapes = {"weight_ih": (3 * hidden, inputs), "weight_hh": (3 * hidden, hidden)}
    shapes.update(bias_ih=(3 * hidden,), bias_hh=(3 * hidden,))
    cell = GRUCell(inputs, hidden, reset_after=reset_after).to(device=x.device, dtype=x.dtype)  # computed where x is
    with torch.no_grad():
        for name, value in parameters.items():
            getattr(cell, name).copy_(check_tensor(name, value, shape=shapes[name], dtype="float"))
    return cell(x, h)


# --- the long-lag task ----------------------------------------------------------
LAG = 50
LAG_STEPS = 200
LAG_HIDDEN = 32
LAG_LR = 3e-3
KEEP_BIAS = 3.0  # the LSTM's forget-gate bias and the GRU's update-gate bias at the start: σ(3) = 0.95
CHANCE = 0.25  # four classes
SOLVED = 0.9  # accuracy above which a model "solves" the task
AT_CHANCE = 0.4  # accuracy below which a model is "at chance" (chance is 0.25)
LSTM_GRADIENT_FLOOR = 1e-3  # the LSTM's gradient at the signal / at the last step stays above this
RNN_GRADIENT_CEILING = 1e-9  # the RNN's stays below this


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")


def _lag_model(kind: str, seed: int) -> RecurrentClassifier:
    """The classifier of the lag experiment: 32 units, and the LSTM/GRU start by keeping their state."""
    torch.manual_seed(seed)
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=LAG_HIDDEN, kind=kind)
    if kind == "lstm":
        set_forget_bias_(model.recurrent, KEEP_BIAS)
    elif kind == "gru":
        set_update_bias_(model.recurrent, KEEP_BIAS)
    return model


def gradient_reaching_each_step(model: RecurrentClassifier, tokens: torch.Tensor, labels: torch.Tensor) -> np.ndarray:
    """‖∂loss/∂(embedding of step t)‖ for a cross-entropy read at the last step; shape (T,)."""
    if not isinstance(model, RecurrentClassifier):
        raise TypeError(f"model must be a RecurrentClassifier; got {type(model).__name__}")
    tokens = check_ids("tokens", tokens, model.vocab_size, shape=("B", "T"))
    labels = check_ids("labels", labels, model.readout.out_features, shape=(tokens.shape[0],))
    device = next(model.parameters()).device  # tokens and labels may be on the CPU, the model on a GPU
    tokens, labels = tokens.to(device), labels.to(device)

    def loss(embedded: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(model(tokens, embedded=embedded), labels)

    was_training = model.training
    model.train()  # cuDNN (a GPU) differentiates a recurrence only in training mode; the classifier has no dropout
    try:
        return time_step_gradient_norms(loss, model.embedding(tokens))
    finally:
        model.train(was_training)


@dataclass(frozen=True)
class LagMemory:
    """Accuracy after training at lag ``LAG``, and the gradient at the signal over the gradient at the last step."""

    accuracy: dict  # kind -> held-out accuracy
    gradient_ratio_start: dict  # kind -> ratio at initialisation ('rnn', 'lstm')
    gradient_ratio_end: dict  # kind -> ratio after training
    steps_to_solve: dict  # kind -> first step whose running loss (10 steps) fell below 0.1, or None
    norms_start: dict  # kind -> the gradient reaching each step at initialisation, first step first


def lag_memory(seed: int = 0, kinds: tuple[str, ...] = ("rnn", "lstm", "gru"), progress: bool = False) -> LagMemory:
    """Train each kind of ``kinds`` on the lag-50 task (same data, optimiser and steps) and measure it."""
    _check_seed(seed)
    kinds = check_sequence("kinds", kinds, what="a tuple of recurrent kinds ('rnn', 'lstm', 'gru')")
    for kind in kinds:
        check_choice("kinds", kind, ("rnn", "lstm", "gru"))
    probe_tokens, probe_labels = long_lag_task(256, LAG, generator=torch.Generator().manual_seed(1000 + seed))
    accuracy, start, end, solved_at, norms_start = {}, {}, {}, {}, {}
    for kind in kinds:
        model = _lag_model(kind, seed)
        norms = norms_start[kind] = gradient_reaching_each_step(model, probe_tokens, probe_labels)
        start[kind] = float(norms[0] / norms[-1])
        history = fit_long_lag(model, lag=LAG, steps=LAG_STEPS, lr=LAG_LR, seed=seed, progress=progress, desc=kind)
        accuracy[kind] = long_lag_accuracy(model, LAG)
        norms = gradient_reaching_each_step(model, probe_tokens, probe_labels)
        end[kind] = float(norms[0] / norms[-1])
        running = history.smoothed_loss(10)
        solved_at[kind] = next((step for step, value in zip(history.step, running) if value < 0.1), None)
    return LagMemory(accuracy, start, end, solved_at, norms_start)


# --- exploding gradients in an LSTM -----------------------------------------------
EXPLODE_STEPS = 100
EXPLODE_SCALES = (1.0, 3.0, 6.0)  # recurrent weights multiplied by these
EXPLODES = 1e2  # "explodes": the gradient at the first step is over this many times the one at the last


@dataclass(frozen=True)
class ExplodingGradient:
    """For each scale of W_hh: ‖∂L/∂x(1)‖ / ‖∂L/∂x(T)‖ in a fresh LSTM with forget gates at σ(3) = 0.95."""

    ratio: dict  # scale -> first/last gradient ratio
    norms: dict  # scale -> the norms per step, first step first (for the figure)


def exploding_gradient(seed: int = 0, scales: tuple[float, ...] = EXPLODE_SCALES) -> ExplodingGradient:
    """Gradient reaching each of ``EXPLODE_STEPS`` steps back from a loss on the last hidden state."""
    _check_seed(seed)
    scales = check_sequence("scales", scales, what="a tuple of positive weight scales")
    for scale in scales:
        check_number("scales", scale, 0.0, low_open=True)
    ratio, norms = {}, {}
    for scale in scales:
        torch.manual_seed(seed)
        lstm = set_forget_bias_(nn.LSTM(8, LAG_HIDDEN, batch_first=True), KEEP_BIAS)
        with torch.no_grad():
            lstm.weight_hh_l0.mul_(scale)
        x = torch.randn(16, EXPLODE_STEPS, 8, generator=torch.Generator().manual_seed(seed))
        per_step = time_step_gradient_norms(lambda e, lstm=lstm: lstm(e)[0][:, -1].sum(), x)
        ratio[scale], norms[scale] = float(per_step[0] / per_step[-1]), per_step
    return ExplodingGradient(ratio, norms)


# --- bidirectional and stacked: tagging tasks --------------------------------------
TAG_LENGTH = 16
TAG_STEPS = 150
TAG_LR = 1e-2
TAG_HIDDEN = 16
TAG_RULES = ("previous", "next", "neighbours equal")


def tagging_task(
    batch_size: int, rule: str, length: int = TAG_LENGTH, vocab: int = 4, generator: torch.Generator | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random tokens (B, T) and a label per position (B, T); positions without a label are -100 (ignored).

    ``'previous'``: the token before; ``'next'``: the token after; ``'neighbours equal'``: is the
    token before equal to the token after (drawn from 2 symbols, so half the labels are 1)?
    """
    if rule not in TAG_RULES:
        raise ValueError(f"rule must be one of {TAG_RULES}; got {rule!r}")
    for name, value, low in [("batch_size", batch_size, 1), ("length", length, 3), ("vocab", vocab, 2)]:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    symbols = 2 if rule == "neighbours equal" else vocab
    tokens = torch.randint(0, symbols, (batch_size, length), generator=generator)  # (B, T)
    labels = torch.full_like(tokens, -100)
    if rule == "previous":
        labels[:, 1:] = tokens[:, :-1]
    elif rule == "next":
        labels[:, :-1] = tokens[:, 1:]
    else:
        labels[:, 1:-1] = (tokens[:, :-2] == tokens[:, 2:]).long()
    return tokens, labels


def tagger_size(num_layers: int, bidirectional: bool, target: int, vocab: int = 4, classes: int = 4) -> int:
    """The hidden size whose tagger has the parameter count closest to ``target`` (the control's matching)."""
    for name, value in [("num_layers", num_layers), ("target", target), ("vocab", vocab), ("classes", classes)]:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")

    def count(hidden: int) -> int:
        model = RecurrentTagger(vocab, classes, hidden, num_layers=num_layers, bidirectional=bidirectional)
        return sum(p.numel() for p in model.parameters())

    return min(range(4, 200), key=lambda hidden: abs(count(hidden) - target))


def _tagging_accuracy(
    rule: str, seed: int, num_layers: int = 1, bidirectional: bool = False, hidden_size: int = TAG_HIDDEN
) -> tuple[float, int]:
    """Train a ``RecurrentTagger`` (LSTM) on ``rule``: (held-out accuracy over labelled positions, parameters)."""
    torch.manual_seed(seed)
    classes = 2 if rule == "neighbours equal" else 4
    model = RecurrentTagger(4, classes, hidden_size, num_layers=num_layers, bidirectional=bidirectional)
    generator = torch.Generator().manual_seed(seed)

    def loss_fn(model, batch):
        tokens, labels = batch
        logits = model(tokens)
        return nn.functional.cross_entropy(logits.reshape(-1, classes), labels.reshape(-1), ignore_index=-100)

    next_batch = lambda step: tagging_task(64, rule, generator=generator)  # noqa: E731
    train(model, loss_fn, next_batch, steps=TAG_STEPS, lr=TAG_LR, progress=False)
    tokens, labels = tagging_task(1000, rule, generator=torch.Generator().manual_seed(10_000 + seed))
    with torch.no_grad():
        predictions = model(tokens).argmax(dim=-1)
    scored = labels != -100
    accuracy = (predictions[scored] == labels[scored]).float().mean().item()
    return accuracy, sum(p.numel() for p in model.parameters())


@dataclass(frozen=True)
class DirectionAndDepth:
    """Held-out tagging accuracy of each (rule, model) pair, and each model's parameter count."""

    accuracy: dict  # (rule, model name) -> accuracy
    parameters: dict  # (rule, model name) -> parameter count


def direction_and_depth(seed: int = 0) -> DirectionAndDepth:
    """One change at a time, parameters matched: forward vs bidirectional, one vs two bidirectional layers.

    - 'previous' (control): both directions can see the token before.
    - 'next': only the bidirectional model sees the token after; the forward one is matched in parameters.
    - 'neighbours equal': a 2-layer biLSTM against a wider 1-layer biLSTM with as many parameters.
    """
    _check_seed(seed)
    accuracy, parameters = {}, {}
    stacked = sum(p.numel() for p in RecurrentTagger(4, 2, TAG_HIDDEN, num_layers=2, bidirectional=True).parameters())
    bidirectional = sum(p.numel() for p in RecurrentTagger(4, 4, TAG_HIDDEN, bidirectional=True).parameters())
    wide = tagger_size(1, True, stacked, classes=2)  # a 1-layer biLSTM with as many parameters as the 2-layer one
    runs = [
        ("previous", "forward", dict(hidden_size=tagger_size(1, False, bidirectional))),
        ("previous", "bidirectional", dict(bidirectional=True)),
        ("next", "forward", dict(hidden_size=tagger_size(1, False, bidirectional))),
        ("next", "bidirectional", dict(bidirectional=True)),
        ("neighbours equal", "1-layer bidirectional", dict(bidirectional=True, hidden_size=wide)),
        ("neighbours equal", "2-layer bidirectional", dict(bidirectional=True, num_layers=2)),
    ]
    for rule, name, options in runs:
        accuracy[rule, name], parameters[rule, name] = _tagging_accuracy(rule, seed, **options)
    return DirectionAndDepth(accuracy, parameters)
