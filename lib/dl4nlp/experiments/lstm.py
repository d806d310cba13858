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
- ``gating_comparison``: chapter 03's tanh RNN with W_h = I and IRNN against the LSTM
  and the GRU, at a lag and a learning rate; ``COMPARISON_SETTINGS`` are the three the
  shipped sweep (``python -m dl4nlp.recipes.gating_sweep``) runs over seeds.
- ``forget_bias_memory``: the lag-50 LSTM started with forget-gate biases -3, 0 and 3.
- ``char_lm`` / ``lm_sizes``: character language models (RNN, GRU, LSTM) of
  ``sherlock_holmes.txt`` at equal parameter count; the shipped comparison is made
  by ``python -m dl4nlp.recipes.rnn_lm_compare``.
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

from dl4nlp._checks import (
    check_choice,
    check_ids,
    check_int,
    check_number,
    check_sequence,
    check_tensor,
    check_type,
    given,
)
from dl4nlp.checkpoint import read_json
from dl4nlp.data import data_path, load_text, random_windows
from dl4nlp.experiments import rnn as rnn_experiments
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.lstm import GRUCell, LSTMCell, set_forget_bias_, set_update_bias_
from dl4nlp.rnn import RecurrentClassifier, RecurrentLM, RecurrentTagger, next_token_loss
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.train import train
from dl4nlp.vocab import CharVocab


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


def join_lag_memory(parts) -> LagMemory:
    """One ``LagMemory`` from ``lag_memory`` runs of different kinds (the notebook trains one kind per cell).

    Each kind's run depends only on the seed, so joining ``lag_memory(s, ("rnn",))`` and
    ``lag_memory(s, ("lstm",))`` gives what ``lag_memory(s, ("rnn", "lstm"))`` does.
    """
    parts = check_sequence("parts", parts, what="a list of LagMemory results of lag_memory")
    for part in parts:
        if not isinstance(part, LagMemory):
            raise TypeError(f"parts must hold LagMemory results of lag_memory; got {given(part)}")
    kinds = [kind for part in parts for kind in part.accuracy]
    if len(set(kinds)) != len(kinds):
        raise ValueError(f"parts must train different kinds; got {kinds}")
    fields = ("accuracy", "gradient_ratio_start", "gradient_ratio_end", "steps_to_solve", "norms_start")
    return LagMemory(*({k: v for part in parts for k, v in getattr(part, name).items()} for name in fields))


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


# --- where gating's advantage over chapter 03's RNNs is real ------------------------
COMPARISON_MODELS = ("tanh, W_h = I", "IRNN", "LSTM", "GRU")
COMPARISON_SETTINGS = ((50, 3e-3), (50, 1e-2), (100, 3e-3))  # (lag, Adam's learning rate)
_RNN_VARIANTS = {"tanh, W_h = I": rnn_experiments.VARIANTS[1], "IRNN": rnn_experiments.VARIANTS[2]}


def comparison_model(name: str, seed: int) -> RecurrentClassifier:
    """One of ``COMPARISON_MODELS``, 32 units: chapter 03's RNNs as ``rnn_experiments.memory_model`` builds them,
    the LSTM and GRU as ``lag_memory`` does (forget / update gates started at σ(3) = 0.95).

    >>> [type(comparison_model(name, 0).recurrent).__name__ for name in COMPARISON_MODELS]
    ['RNN', 'RNN', 'LSTM', 'GRU']
    """
    check_choice("name", name, COMPARISON_MODELS)
    _check_seed(seed)
    if name in _RNN_VARIANTS:
        return rnn_experiments.memory_model(_RNN_VARIANTS[name], seed)
    return _lag_model(name.lower(), seed)


def gating_comparison(
    seed: int = 0,
    lag: int = 100,
    lr: float = LAG_LR,
    models: tuple[str, ...] = COMPARISON_MODELS,
    steps: int = LAG_STEPS,
) -> dict[str, float]:
    """Each of ``models`` trained afresh at ``lag`` with Adam at ``lr`` (clip 1, batches of 64, ``steps`` steps,
    the same batches for every model): name -> accuracy on chapter 03's held-out sequences that training never saw.
    """
    _check_seed(seed)
    check_int("lag", lag, low=1)
    check_number("lr", lr, 0.0, low_open=True)
    check_int("steps", steps, low=1)
    for name in check_sequence("models", models, what="a tuple of names from COMPARISON_MODELS"):
        check_choice("models", name, COMPARISON_MODELS)
    training = rnn_experiments._training_sequences(lag, steps, seed)  # noqa: SLF001 - chapter 03's own split
    accuracy = {}
    for name in models:
        model = comparison_model(name, seed)
        fit_long_lag(model, lag=lag, steps=steps, lr=lr, seed=seed, progress=False)
        accuracy[name] = rnn_experiments._heldout_accuracy(model, lag, training)[0]  # noqa: SLF001
    return accuracy


# --- the forget gate's starting bias ---------------------------------------------------
FORGET_BIASES = (-3.0, 0.0, 3.0)


@dataclass(frozen=True)
class ForgetBias:
    """An LSTM of 32 cells at lag ``LAG`` for each starting forget-gate bias (all else as in ``lag_memory``)."""

    accuracy: dict  # bias -> held-out accuracy after training
    final_bias: dict  # bias -> mean forget-gate bias (b_ih + b_hh) after training


def forget_bias_memory(seed: int = 0, biases: tuple[float, ...] = FORGET_BIASES, lag: int = LAG) -> ForgetBias:
    """Train the lag experiment's LSTM once per starting forget bias: the same seed, batches, optimiser and steps."""
    _check_seed(seed)
    check_int("lag", lag, low=1)
    for bias in check_sequence("biases", biases, what="a tuple of forget-gate biases"):
        check_number("biases", bias)
    training = rnn_experiments._training_sequences(lag, LAG_STEPS, seed)  # noqa: SLF001
    accuracy, final = {}, {}
    for bias in biases:
        model = _lag_model("lstm", seed)
        set_forget_bias_(model.recurrent, float(bias))
        fit_long_lag(model, lag=lag, steps=LAG_STEPS, lr=LAG_LR, seed=seed, progress=False)
        accuracy[bias] = rnn_experiments._heldout_accuracy(model, lag, training)[0]  # noqa: SLF001
        hidden = model.recurrent.hidden_size
        with torch.no_grad():
            summed = model.recurrent.bias_ih_l0[hidden : 2 * hidden] + model.recurrent.bias_hh_l0[hidden : 2 * hidden]
        final[bias] = float(summed.mean())
    return ForgetBias(accuracy, final)


# --- character language models at equal parameter count ---------------------------
LM_CORPUS = "sherlock_holmes.txt"
LM_KINDS = ("rnn", "gru", "lstm")
LM_LSTM_HIDDEN = 128  # the LSTM's width; the RNN and the GRU get the width whose count is closest to its count
LM_EMBEDDING = 32
LM_WINDOW = 65  # 64 characters read, 64 predicted
LM_BATCH = 32
LM_STEPS = 600
LM_RATES = (3e-3, 1e-2)  # Adam's learning rates tried for each kind on seed 0; the lower validation loss wins
LM_VALIDATION, LM_TEST = 0.05, 0.10  # of the text: validation (chooses the learning rate) then test, at the end


def lm_split() -> tuple[CharVocab, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The vocabulary of ``LM_CORPUS`` and its ids cut into training (first 85 %), validation (5 %) and test
    (last 10 %) text, in that order, with no overlap."""
    text = load_text(LM_CORPUS)
    vocab = CharVocab.from_text(text)
    ids = torch.tensor(vocab.encode(text))
    test_start = int((1 - LM_TEST) * len(ids))
    validation_start = int((1 - LM_TEST - LM_VALIDATION) * len(ids))
    return vocab, ids[:validation_start], ids[validation_start:test_start], ids[test_start:]


def lm_parameters(kind: str, hidden: int, vocab_size: int) -> int:
    """Parameters of a one-layer ``RecurrentLM`` of ``kind`` with ``hidden`` units (embedding ``LM_EMBEDDING``).

    >>> lm_parameters("lstm", 128, 100)
    99044
    """
    check_choice("kind", kind, LM_KINDS)
    check_int("hidden", hidden)
    check_int("vocab_size", vocab_size)
    gates = {"rnn": 1, "gru": 3, "lstm": 4}[kind]
    recurrent = gates * (LM_EMBEDDING * hidden + hidden * hidden + 2 * hidden)
    return vocab_size * LM_EMBEDDING + recurrent + hidden * vocab_size + vocab_size


def lm_sizes(vocab_size: int, lstm_hidden: int = LM_LSTM_HIDDEN) -> dict[str, int]:
    """kind -> hidden size: the LSTM's is ``lstm_hidden``, the others' give the closest parameter count.

    >>> lm_sizes(100)
    {'rnn': 250, 'gru': 148, 'lstm': 128}
    """
    check_int("vocab_size", vocab_size)
    check_int("lstm_hidden", lstm_hidden)
    target = lm_parameters("lstm", lstm_hidden, vocab_size)
    sizes = {kind: min(range(1, 8 * lstm_hidden), key=lambda h, kind=kind: abs(lm_parameters(kind, h, vocab_size) -
             target)) for kind in ("rnn", "gru")}  # fmt: skip
    return {**sizes, "lstm": lstm_hidden}


def lm_loss(model: RecurrentLM, ids: torch.Tensor) -> float:
    """Mean next-character loss (nats) of ``model`` over ``ids`` cut into consecutive windows of ``LM_WINDOW``."""
    check_type("model", model, RecurrentLM, "a dl4nlp.rnn.RecurrentLM")
    ids = check_ids("ids", ids, model.config.vocab_size, ndim=1, expected="(N,)")
    count = len(ids) // LM_WINDOW
    if count < 1:
        raise ValueError(f"ids must hold at least {LM_WINDOW} ids; got {len(ids)}")
    windows = ids[: count * LM_WINDOW].reshape(count, LM_WINDOW)  # (count, LM_WINDOW)
    model.eval()
    with torch.no_grad():
        return float(sum(next_token_loss(model, chunk).item() * len(chunk) for chunk in windows.split(256)) / count)


@dataclass(frozen=True)
class CharLMRun:
    kind: str
    hidden: int
    parameters: int
    lr: float
    seed: int
    steps: int
    validation_loss: float
    test_loss: float
    losses: tuple  # training loss per step


def char_lm(kind: str, seed: int = 0, lr: float = 3e-3, steps: int = LM_STEPS) -> CharLMRun:
    """A one-layer character LM of ``kind`` at its ``lm_sizes`` width, trained with Adam at ``lr`` (clip 1) for
    ``steps`` batches of ``LM_BATCH`` random windows of the training text; scored on validation and test text."""
    check_choice("kind", kind, LM_KINDS)
    _check_seed(seed)
    check_number("lr", lr, 0.0, low_open=True)
    check_int("steps", steps)
    vocab, train_ids, validation_ids, test_ids = lm_split()
    hidden = lm_sizes(len(vocab))[kind]
    torch.manual_seed(seed)
    model = RecurrentLM(len(vocab), hidden_size=hidden, kind=kind, embedding_dim=LM_EMBEDDING)
    generator = torch.Generator().manual_seed(seed)
    history = train(model, next_token_loss, lambda step: random_windows(train_ids, LM_BATCH, LM_WINDOW, generator),
                    steps=steps, lr=lr, clip_norm=1.0, progress=False)  # fmt: skip
    parameters = sum(p.numel() for p in model.parameters())
    return CharLMRun(kind, hidden, parameters, lr, seed, steps, lm_loss(model, validation_ids),
                     lm_loss(model, test_ids), tuple(history.loss))  # fmt: skip


# --- the shipped tables ----------------------------------------------------------------
GATING_SWEEP = "gating_sweep.json"  # in data/, by `python -m dl4nlp.recipes.gating_sweep`
LM_COMPARISON = "rnn_lm_compare.json"  # in data/, by `python -m dl4nlp.recipes.rnn_lm_compare`
IRNN_REACHES = 0.5  # chapter 03's "reaches": at least twice chance


def load_gating_sweep(path=None) -> dict:
    """The shipped sweep of ``gating_comparison`` and ``forget_bias_memory`` (``data/gating_sweep.json``), checked."""
    path = data_path(GATING_SWEEP) if path is None else path
    table = read_json(path, "the gating sweep (JSON)")
    rows = table.get("seeds") if isinstance(table, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"path {str(path)!r} must be the gating sweep (a dict with a list of seeds); got "
                         f"{given(table)}")  # fmt: skip
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or row.get("seed") != i or not {"comparison", "forget_bias"} <= set(row):
            raise ValueError(f"path {str(path)!r}: row {i} must be seed {i} with 'comparison' and 'forget_bias'; "
                             f"got {given(row)}")  # fmt: skip
    return table


def sweep_accuracies(table: dict, setting: str, model: str) -> list[float]:
    """The held-out accuracy of ``model`` in ``setting`` (e.g. ``'lag 100, lr 0.003'``) on every seed of ``table``.

    >>> sweep_accuracies({"seeds": [{"comparison": {"lag 50, lr 0.01": {"GRU": 1.0}}}]}, "lag 50, lr 0.01", "GRU")
    [1.0]
    """
    check_type("table", table, dict, "the gating sweep (load_gating_sweep)")
    try:
        return [float(row["comparison"][setting][model]) for row in table["seeds"]]
    except (KeyError, TypeError) as error:
        raise KeyError(f"table has no accuracy for model {model!r} in setting {setting!r} on every seed") from error


def load_lm_comparison(path=None) -> dict:
    """The shipped character-LM comparison (``data/rnn_lm_compare.json``), checked to hold every kind's runs."""
    path = data_path(LM_COMPARISON) if path is None else path
    table = read_json(path, "the character-LM comparison (JSON)")
    runs = table.get("runs") if isinstance(table, dict) else None
    if not isinstance(runs, list) or {run.get("kind") for run in runs if isinstance(run, dict)} != set(LM_KINDS):
        raise ValueError(f"path {str(path)!r} must be the character-LM comparison with runs of {LM_KINDS}; got "
                         f"{given(table)}")  # fmt: skip
    return table


def sweep_text(table: dict) -> str:
    """The gating sweep as text: one line per setting and model, its accuracy on every seed.

    >>> print(sweep_text({"seeds": [{"comparison": {"lag 50, lr 0.01": {"GRU": 1.0}}}]}))
    setting              model           seed 0
    lag 50, lr 0.01      GRU               1.00
    """
    check_type("table", table, dict, "the gating sweep (load_gating_sweep)")
    rows = table.get("seeds")
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"table must be the gating sweep, with a list of seeds; got {given(table)}")
    lines = [f"{'setting':<20} {'model':<14}" + "".join(f"{f'seed {i}':>8}" for i in range(len(rows)))]
    for setting, models in rows[0]["comparison"].items():
        for model in models:
            lines.append(
                f"{setting:<20} {model:<14}" + "".join(f"{a:8.2f}" for a in sweep_accuracies(table, setting, model))
            )
    return "\n".join(lines)
