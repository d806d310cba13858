"""The experiments of notebook 03 (LSTM gates), as functions of a seed.

Each returns a frozen dataclass of numbers; the notebook asserts its claims on
``seed=0`` and ``tests/claims/test_03_lstm.py`` on ``CLAIM_SEEDS``, with the
thresholds below.

- ``lag_memory``: the long-lag task at lag 50 for a tanh RNN, an LSTM and a GRU
  of the same width, trained the same way; and how much gradient reaches the
  signal in the RNN and the LSTM.
- ``exploding_gradient``: an LSTM's gradient still explodes when its recurrent
  weights are large (the forget gate only removes the vanishing).
- ``direction_and_depth``: per-position tagging tasks where a bidirectional
  LSTM should help (the label is the *next* token) and where stacking should
  help (the label compares the previous and the next token, which a single
  bidirectional layer can only combine linearly), each with its control.
- ``boundary_gates``: the forget gates of a shipped character LSTM at spaces
  and quotation marks, cells chosen on one part of held-out text and judged
  on another.
- ``quotation_cell``: the cell of a shipped character LSTM that tracks
  quotations, chosen on one passage and scored on all held-out text.
- ``left_senses``: ELMo-style vectors of the word *left* from the shipped
  forward and backward models, against an untrained control.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from dl4nlp.data import data_path, load_text
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.lstm import final_states, load_char_model, lstm_trace, set_forget_bias_, set_update_bias_
from dl4nlp.probes import column_in_line, inside_quotes, nearest_centroid_accuracy, unit_auc, unit_correlation
from dl4nlp.recipes.char_lstm import split_text
from dl4nlp.rnn import RecurrentClassifier, RecurrentLM, RecurrentTagger
from dl4nlp.tasks import fit_long_lag, long_lag_accuracy, long_lag_task
from dl4nlp.tokenize import straighten_quotes
from dl4nlp.train import train

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

    def loss(embedded: torch.Tensor) -> torch.Tensor:
        return nn.functional.cross_entropy(model(tokens, embedded=embedded), labels)

    return time_step_gradient_norms(loss, model.embedding(tokens))


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


# --- the quotation cell of a trained character LSTM ---------------------------------
PASSAGE = (20_000, 23_000)  # held-out characters: a stretch of dialogue in the last story, chosen by hand
DISTANCE_BINS = ((0, 100), (100, 300), (300, None))  # characters since the quotation opened
QUOTE_CELL_ON_PASSAGE = 0.9  # the chosen cell's AUC on the passage it was chosen on is at least this
QUOTE_CELL_HELD_OUT = (0.7, 0.9)  # ... and on all held-out text it lies in this range (the honest number)
QUOTE_CELL_OPTIMISM = 0.1  # ... at least this much below its score on the passage it was chosen on
TYPICAL_CELL = 0.7  # the median cell's AUC on the passage stays below this
LINE_CELL_CEILING = 0.5  # no cell correlates with the column of the line more than this (|r|)


def char_model_path(seed: int) -> str:
    """The shipped character LSTM trained with ``seed`` by ``python -m dl4nlp.recipes.char_lstm``."""
    _check_seed(seed)
    return "char_lstm_sherlock.pt" if seed == 0 else f"char_lstm_sherlock_seed{seed}.pt"


def distance_since_opening(labels: np.ndarray) -> np.ndarray:
    """For each character inside a quotation, how many characters ago the quotation opened (0 at the quote)."""
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.dtype != bool:
        raise ValueError(f"labels must be a 1-D boolean array; got shape {labels.shape}, dtype {labels.dtype}")
    distance = np.zeros(len(labels), dtype=np.int64)
    count = 0
    for index, inside in enumerate(labels):
        count = 0 if inside and (index == 0 or not labels[index - 1]) else count + 1
        distance[index] = count
    return distance


@dataclass(frozen=True)
class QuotationCell:
    """The cell of a character LSTM that best separates inside from outside a quotation."""

    cell: int  # its index, chosen on the passage
    sign: int  # +1 if the cell is higher inside, -1 if lower
    passage_auc: float  # separation (max(AUC, 1 - AUC)) on the passage it was chosen on
    median_passage_auc: float  # the median cell's separation on the passage
    held_out_auc: float  # its separation over every held-out character
    rest_auc: float  # ... over the held-out characters outside the passage (disjoint from the choice)
    auc_by_distance: dict  # (lo, hi) -> separation of outside characters vs inside ones that far from the opening
    inside_fraction: float  # of all held-out characters
    line_cell_correlation: float  # the largest |r| of any cell with the column of the line, on the passage
    passage_values: np.ndarray  # sign * tanh(C) of the cell on the passage, (3000,)
    held_out_values: np.ndarray  # sign * tanh(C) of the cell on all held-out text


def _separation(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    auc = unit_auc(values, labels)
    return np.maximum(auc, 1 - auc)


def quotation_cell(seed: int = 0) -> QuotationCell:
    """Choose the quotation cell of the model trained with ``seed`` on ``PASSAGE``, then score it on all held-out text.

    The model reads the passage from a fresh state to choose the cell (every cell's
    tanh(C) is scored), and the whole held-out text from a fresh state to score the
    chosen cell (``dl4nlp.lstm.lstm_trace`` of that cell alone).
    """
    _check_seed(seed)
    model, vocab = load_char_model(data_path(char_model_path(seed)))
    _, held_out = split_text(straighten_quotes(load_text("sherlock_holmes.txt")))
    passage = held_out[PASSAGE[0] : PASSAGE[1]]

    def cell_values(text: str, cells=None) -> np.ndarray:
        with torch.no_grad():
            embedded = model.embedding(torch.tensor([vocab.encode(text)]))  # (1, T, E)
        return np.tanh(lstm_trace(model.recurrent, embedded, cells)[1]["cell"][0].numpy())  # (T, H or len(cells))

    values = cell_values(passage)  # (T, H)
    labels = inside_quotes(passage, '"', '"')
    separation = _separation(values, labels)
    cell = int(np.argmax(separation))
    sign = 1 if unit_auc(values[:, cell : cell + 1], labels)[0] >= 0.5 else -1
    line = np.abs(unit_correlation(values, column_in_line(passage)))
    everywhere = sign * cell_values(held_out, [cell])[:, 0]  # (N,)
    held_labels = inside_quotes(held_out, '"', '"')
    outside_passage = np.ones(len(held_out), dtype=bool)
    outside_passage[PASSAGE[0] : PASSAGE[1]] = False
    distance = distance_since_opening(held_labels)
    by_distance = {}
    for lo, hi in DISTANCE_BINS:
        far = held_labels & (distance >= lo) & (distance < (hi if hi is not None else len(held_out)))
        keep = far | ~held_labels
        by_distance[lo, hi] = float(_separation(everywhere[keep, None], held_labels[keep])[0])
    return QuotationCell(
        cell=cell,
        sign=sign,
        passage_auc=float(separation[cell]),
        median_passage_auc=float(np.median(separation)),
        held_out_auc=float(_separation(everywhere[:, None], held_labels)[0]),
        rest_auc=float(_separation(everywhere[outside_passage, None], held_labels[outside_passage])[0]),
        auc_by_distance=by_distance,
        inside_fraction=float(held_labels.mean()),
        line_cell_correlation=float(line.max()),
        passage_values=sign * values[:, cell],
        held_out_values=everywhere,
    )


# --- forget gates at word and quotation boundaries -----------------------------------
READING = 12_000  # held-out characters read; cells are chosen on the first half and judged on the second
BOUNDARY_CELLS = 8  # cells chosen per symbol
MEAN_FORGET = (0.77, 0.83)  # the average forget gate over every cell and character of the second half
OPEN_SHARE = 0.6  # more than this share of the gates are above 0.9 (open)
# The space cells' forget gate is below SPACE_CLOSED at a space and above SPACE_ELSEWHERE elsewhere (on average);
# the quote cells' is below QUOTE_CLOSED at a '"' and above QUOTE_ELSEWHERE elsewhere.
SPACE_CLOSED, SPACE_ELSEWHERE = 0.1, 0.4
QUOTE_CLOSED, QUOTE_ELSEWHERE = 0.3, 0.5


@dataclass(frozen=True)
class BoundaryGates:
    """Forget gates of a character LSTM on held-out text: cells chosen on part A, judged on part B."""

    mean_forget: float  # over every cell and character of part B
    open_share: float  # share of part B's gates above 0.9
    space_cells: tuple  # the BOUNDARY_CELLS cells whose forget gate drops most at a space, on part A
    quote_cells: tuple  # ... at a '"' (not among the space cells), on part A
    at_symbol: dict  # symbol -> the chosen cells' mean forget gate at that symbol, on part B
    elsewhere: dict  # symbol -> the chosen cells' mean forget gate at every other character, on part B


def boundary_gates(seed: int = 0) -> BoundaryGates:
    """Choose the cells that reset at a space and at a quote on one part of held-out text; judge them on another.

    Reads the first ``READING`` held-out characters from a fresh state with the model trained with ``seed``
    (``char_model_path``); part A is the first half, part B the second.
    """
    _check_seed(seed)
    model, vocab = load_char_model(data_path(char_model_path(seed)))
    _, held_out = split_text(straighten_quotes(load_text("sherlock_holmes.txt")))
    reading = held_out[:READING]
    with torch.no_grad():
        embedded = model.embedding(torch.tensor([vocab.encode(reading)]))  # (1, T, E)
    forget = lstm_trace(model.recurrent, embedded)[1]["forget"][0].numpy()  # (T, H)
    chars = np.array(list(reading))
    part_a, part_b = slice(0, READING // 2), slice(READING // 2, READING)

    def drop_at(symbol: str, part: slice) -> np.ndarray:
        at = chars[part] == symbol
        return forget[part][at].mean(axis=0) - forget[part][~at].mean(axis=0)  # (H,)

    space_cells = [int(c) for c in np.argsort(drop_at(" ", part_a))[:BOUNDARY_CELLS]]
    quote_cells = [int(c) for c in np.argsort(drop_at('"', part_a)) if c not in space_cells][:BOUNDARY_CELLS]
    at_symbol, elsewhere = {}, {}
    for symbol, cells in [(" ", space_cells), ('"', quote_cells)]:
        at = chars[part_b] == symbol
        at_symbol[symbol] = float(forget[part_b][at][:, cells].mean())
        elsewhere[symbol] = float(forget[part_b][~at][:, cells].mean())
    return BoundaryGates(
        mean_forget=float(forget[part_b].mean()),
        open_share=float((forget[part_b] > 0.9).mean()),
        space_cells=tuple(space_cells),
        quote_cells=tuple(quote_cells),
        at_symbol=at_symbol,
        elsewhere=elsewhere,
    )


# --- ELMo-style word vectors from two character language models -------------------
SENSE_WORD = "left"
DIRECTION_BEFORE = ("the", "his", "her", "your", "my", "a")  # "the left", "his left hand": the direction
VERB_BEFORE = ("had", "have", "has", "i", "he", "she", "we", "they", "and", "just", "been", "was", "were", "then", "it")
SENSE_WINDOW = 100  # characters of context each language model reads before it reaches the word
SENSE_TRAINED = 0.9  # the trained pair's vectors (both halves) tell the senses apart at least this well ...
SENSE_MARGIN = 0.1  # ... and by this much more than the same pair untrained (also the forward half alone)


def sense_occurrences(text: str, window: int = SENSE_WINDOW) -> list[tuple[int, int]]:
    """(start, sense) of each occurrence of ``SENSE_WORD`` whose previous word names its sense (1 = direction, 0 = verb)

    and that has ``window`` characters of context on both sides. Other occurrences are left out.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive integer; got {window!r}")
    found = []
    for match in re.finditer(rf"\b{SENSE_WORD}\b", text):
        start, end = match.span()
        previous = re.findall(r"(\w+)\W*$", text[max(0, start - 20) : start])
        if start < window or end + window > len(text) or not previous:
            continue
        word = previous[0].lower()
        if word in DIRECTION_BEFORE or word in VERB_BEFORE:
            found.append((start, int(word in DIRECTION_BEFORE)))
    return found


def elmo_vectors(forward, backward, vocab, text: str, spans) -> torch.Tensor:
    """[forward state at the word's last character, backward state at its first], (N, 2H), one row per span.

    The forward model reads ``SENSE_WINDOW`` characters before the word and the word; the backward
    model reads the word and ``SENSE_WINDOW`` characters after it, right to left.
    """
    spans = list(spans)
    bad = [
        span
        for span in spans
        if not (isinstance(span, tuple) and len(span) == 2 and 0 <= span[0] < span[1] <= len(text))
    ]
    if not spans or bad:
        raise ValueError(
            f"spans must be a non-empty list of (start, end) with 0 <= start < end <= {len(text)}; got {bad or spans}"
        )
    left = [text[max(0, start - SENSE_WINDOW) : end] for start, end in spans]
    right = [text[start : end + SENSE_WINDOW][::-1] for start, end in spans]
    return torch.cat([final_states(forward, vocab, left), final_states(backward, vocab, right)], dim=1)


@dataclass(frozen=True)
class WordSenses:
    """Leave-one-out nearest-centroid accuracy of telling the two senses of ``SENSE_WORD`` apart."""

    occurrences: int  # labelled occurrences in the book
    direction_fraction: float  # of them, the share with the direction sense
    accuracy: dict  # (model, part) -> accuracy; model 'trained' or 'untrained', part 'forward', 'backward', 'both'


def left_senses(seed: int = 0) -> WordSenses:
    """Score the shipped forward and backward character LSTMs on the senses of 'left', against a control.

    The control is the same pair of architectures untrained, initialised with ``seed``: the
    shipped models are one pair (seed 0), so what varies across seeds is the control, which
    shows how much of the separation the untrained network's mixing of characters alone gives.
    """
    _check_seed(seed)
    forward, vocab = load_char_model(data_path(char_model_path(0)))
    backward, backward_vocab = load_char_model(data_path("char_lstm_sherlock_backward.pt"), reverse=True)
    if backward_vocab.chars != vocab.chars:
        raise ValueError("the forward and backward models must share one vocabulary")
    text = straighten_quotes(load_text("sherlock_holmes.txt"))
    found = sense_occurrences(text)
    spans = [(start, start + len(SENSE_WORD)) for start, _ in found]
    labels = np.array([sense for _, sense in found])
    torch.manual_seed(seed)
    untrained = (RecurrentLM.from_config(forward.config).eval(), RecurrentLM.from_config(forward.config).eval())
    accuracy = {}
    hidden = forward.config.hidden_size
    for name, (fwd, bwd) in [("trained", (forward, backward)), ("untrained", untrained)]:
        vectors = elmo_vectors(fwd, bwd, vocab, text, spans).numpy()
        for part, columns in [("forward", slice(0, hidden)), ("backward", slice(hidden, None)), ("both", slice(None))]:
            accuracy[name, part] = float(nearest_centroid_accuracy(vectors[:, columns], labels))
    return WordSenses(len(found), float(labels.mean()), accuracy)
