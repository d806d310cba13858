"""The experiments of chapter 03 (plain RNNs, and why they forget), as functions of a seed.

- ``jacobian_products``: ‖∂h(T)/∂h(T-k)‖ for W_h = ρQ, with and without tanh.
- ``gradient_reaching_inputs``: the gradient a loss at the last of 60 steps sends to each input.
- ``clipping``: IRNNs trained by SGD with momentum, with and without gradient clipping.
- ``memory_by_lag``: accuracy on the long-lag memory task for three recurrent networks that
  differ one thing at a time (tanh with PyTorch's W_h; tanh with W_h = I; ReLU with W_h = I,
  the IRNN), scored on held-out sequences that never occur in training, and
  ``initial_gradient_ratio``: why, at initialisation.
- ``irnn_learning_rate``: the IRNN at lag 50 with a three times larger learning rate.
- ``load_memory_by_lag``: seed 0's ``memory_by_lag`` and ``irnn_learning_rate``, trained
  beforehand by ``python -m dl4nlp.recipes.rnn_memory_by_lag`` (the notebook re-runs lag 20 live).
- ``load_seed_sweep`` / ``seed_sweep_counts``: the IRNN at lag 50 and the clipping experiment
  over many seeds, from the table ``python -m dl4nlp.recipes.rnn_seed_sweep`` ships.
- ``language_model``: a small RNN language model trained for 100 steps, its held-out
  perplexity next to chapter 02's count-based unigram and bigram models, and a sample.
- ``book_training``: the same model trained on the book itself by truncated BPTT, with the
  student's training loop (section 2's exercise).
- ``plot_jacobian_products``, ``plot_clipping``, ``plot_memory_by_lag``: the chapter's figures
  (layout only; the notebook shows the call).

Every experiment takes ``seed`` and returns a frozen dataclass; the thresholds the
prose states are the constants below, shared with ``tests/claims/test_03_rnns.py``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Optional

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch import nn

from dl4nlp._checks import check_array, check_choice, check_int, check_number, check_sequence, given
from dl4nlp.checkpoint import read_json
from dl4nlp.data import data_path, load_text, random_windows
from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.ngram import count_model_loss
from dl4nlp.rnn import (
    RecurrentClassifier,
    RecurrentLM,
    UnrolledRNN,
    identity_init_,
    jacobian_norms,
    next_token_loss,
    sample,
    scaled_orthogonal,
)
from dl4nlp.tasks import fit_long_lag, long_lag_task
from dl4nlp.train import train
from dl4nlp.vocab import CharVocab

# --- thresholds of the prose -------------------------------------------------
CHANCE = 0.25  # four classes
SOLVED = 0.95  # accuracy that counts as "remembers"
AT_CHANCE = 0.40  # accuracy below this counts as "at chance"
ABOVE_CHANCE = 0.60  # "learns it": far above chance
FAILED_LR = 0.60  # the IRNN with the larger learning rate stays below this
REACHES = 0.50  # the IRNN "reaches" lag 50 on every seed: at least twice chance (it solves it on most seeds)
CLIPPED_LEARN = 3  # of the four clipped runs of a seed, at least this many end below CLIPPED_FINAL
VANISHED = 1e-6  # a gradient ratio below this: the early steps are not learned from
LOG4 = math.log(4)  # the loss of predicting 1/4 for every class
CLIPPED_FINAL = 0.9  # a clipped run that ends below this loss has learned
STUCK = 1.3  # an unclipped run that ends above this loss is stuck near log 4
RNN_BELOW_BIGRAM = 0.85  # the RNN's held-out perplexity is below this fraction of the bigram model's
SPACE_TOLERANCE = 0.05  # the sample's share of spaces is within this of the held-out text's
REAL_WORDS = 0.5  # fewer than this share of the sample's words occur in the training text

RADII = (0.5, 0.9, 1.0, 1.5, 3.0)
VARIANTS = ("tanh, default W_h", "tanh, W_h = I", "IRNN (ReLU, W_h = I)")
LAGS = (5, 10, 20, 50)  # lag 2 would hold nothing out: its 4 · 8² = 256 possible sequences all occur in training
HELDOUT_SEQUENCES, HELDOUT_SEED = 1000, 12345  # the held-out batch, as in dl4nlp.tasks.long_lag_accuracy
HELD_OUT_FRACTION = 0.05  # the last 5% of the corpus is never trained on (as in chapters 02 and 05)


@dataclass(frozen=True)
class JacobianProducts:
    radii: tuple[float, ...]
    distance: int
    linear: dict[float, tuple[float, ...]]  # ρ -> ‖∂h(T)/∂h(T-k)‖ for k = 0..distance, no tanh
    tanh: dict[float, tuple[float, ...]]  # ρ -> the same with tanh


def jacobian_products(seed: int = 0, radii: tuple[float, ...] = RADII, distance: int = 60) -> JacobianProducts:
    """Products of step Jacobians for W_h = ρQ (Q a random orthogonal 64×64 matrix drawn from ``seed``)."""
    check_int("seed", seed, low=0)
    for rho in check_sequence("radii", radii):
        check_number("radii", rho, 0.0, low_open=True)
    check_int("distance", distance)
    generator = torch.Generator().manual_seed(seed)
    recurrent = {rho: scaled_orthogonal(64, rho, generator) for rho in radii}
    return JacobianProducts(
        tuple(radii),
        distance,
        {rho: tuple(jacobian_norms(w, distance, "linear", seed=seed)) for rho, w in recurrent.items()},
        {rho: tuple(jacobian_norms(w, distance, "tanh", input_scale=0.5, seed=seed)) for rho, w in recurrent.items()},
    )


def _gradient_per_step(rho: float, steps: int = 60, seed: int = 0) -> np.ndarray:
    """‖∂J/∂e(t)‖ for every input of a float64 ``UnrolledRNN`` with W_h = ρQ and a loss on h(T) only."""
    generator = torch.Generator().manual_seed(seed)
    model = UnrolledRNN(16, 64).double()
    with torch.no_grad():
        model.cell.weight_hh.copy_(scaled_orthogonal(64, rho, generator))
        model.cell.weight_ih.normal_(0.0, 0.5 / 4, generator=generator)  # inputs of size about 0.5
        model.cell.bias_ih.zero_()
        model.cell.bias_hh.zero_()
    e = torch.randn(32, steps, 16, generator=generator, dtype=torch.float64)  # (B, T, E)
    readout = torch.randn(64, generator=generator, dtype=torch.float64)
    return time_step_gradient_norms(lambda x: (model(x)[1] @ readout).pow(2).mean(), e)


@dataclass(frozen=True)
class GradientReachingInputs:
    norms: dict[float, tuple[float, ...]]  # ρ -> gradient norm at each input, t = 1..60
    first_over_last: dict[float, float]


def gradient_reaching_inputs(seed: int = 0, radii: tuple[float, ...] = RADII) -> GradientReachingInputs:
    check_int("seed", seed, low=0)
    for rho in check_sequence("radii", radii):
        check_number("radii", rho, 0.0, low_open=True)
    norms = {rho: _gradient_per_step(rho, seed=seed) for rho in radii}
    return GradientReachingInputs(
        {rho: tuple(float(v) for v in n) for rho, n in norms.items()},
        {rho: float(n[0] / n[-1]) for rho, n in norms.items()},
    )


def irnn(seed: int, hidden_size: int = 32) -> RecurrentClassifier:
    """The IRNN of Le, Jaitly & Hinton (2015) for the memory task: ReLU units, W_h = I, zero biases."""
    check_int("seed", seed, low=0)
    check_int("hidden_size", hidden_size)
    torch.manual_seed(seed)
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=hidden_size, kind="rnn", nonlinearity="relu")
    identity_init_(model.recurrent)
    return model


def memory_model(variant: str, seed: int) -> RecurrentClassifier:
    """One of ``VARIANTS``, all three with the same embedding, input weights, zero biases and read-out.

    Each starts as the IRNN does (``identity_init_``: W_h = I, biases 0, input weights N(0, 0.1²));
    the first then gets back the W_h PyTorch drew (uniform in ±1/√32), and the last uses ReLU.
    So the first two differ only in W_h, the last two only in the nonlinearity.
    """
    check_int("seed", seed, low=0)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}; got {variant!r}")
    torch.manual_seed(seed)
    nonlinearity = "relu" if variant == VARIANTS[2] else "tanh"
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=32, kind="rnn", nonlinearity=nonlinearity)
    default_w_h = model.recurrent.weight_hh_l0.detach().clone()  # (32, 32), PyTorch's draw
    identity_init_(model.recurrent)
    if variant == VARIANTS[0]:
        with torch.no_grad():
            model.recurrent.weight_hh_l0.copy_(default_w_h)
    return model


@dataclass(frozen=True)
class Clipping:
    seeds: tuple[int, ...]
    unclipped: tuple[tuple[float, ...], ...]  # loss per step of each unclipped run (stops where it diverged)
    clipped: tuple[tuple[float, ...], ...]
    unclipped_diverged: tuple[bool, ...]
    clipped_diverged: tuple[bool, ...]
    steps: int

    def final(self, losses: tuple[float, ...]) -> float:
        """Mean loss of the last 20 steps of a run that finished, inf for one that diverged."""
        losses = check_array("losses", losses, ndim=1, nonempty=False)
        return float(np.mean(losses[-20:])) if len(losses) == self.steps else math.inf

    @property
    def unclipped_failed(self) -> int:
        """Unclipped runs that diverged or ended stuck near log 4."""
        return sum(self.final(run) > STUCK for run in self.unclipped)


def clipping(seed: int = 0, runs: int = 4, steps: int = 300, lag: int = 30, lr: float = 0.02) -> Clipping:
    """IRNNs trained by SGD with momentum 0.9, unclipped and clipped at norm 1.

    The runs use model and data seeds ``seed * runs ... seed * runs + runs - 1``.
    """
    check_int("seed", seed, low=0)
    check_int("runs", runs)
    check_int("steps", steps)
    check_int("lag", lag)
    check_number("lr", lr, 0.0, low_open=True)
    seeds = tuple(range(seed * runs, (seed + 1) * runs))
    histories = {}
    for clip in (None, 1.0):
        for s in seeds:
            model = irnn(s)
            sgd = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
            histories[clip, s] = fit_long_lag(
                model, lag=lag, steps=steps, optimizer=sgd, clip_norm=clip, seed=s, progress=False
            )
    return Clipping(
        seeds,
        tuple(tuple(histories[None, s].loss) for s in seeds),
        tuple(tuple(histories[1.0, s].loss) for s in seeds),
        tuple(histories[None, s].diverged for s in seeds),
        tuple(histories[1.0, s].diverged for s in seeds),
        steps,
    )


def _training_sequences(lag: int, steps: int, seed: int, batch_size: int = 64) -> set[tuple[int, ...]]:
    """Every sequence ``fit_long_lag(model, lag, steps, seed=seed)`` trains on, drawn again from its generator."""
    generator = torch.Generator().manual_seed(seed)
    return {tuple(row) for _ in range(steps) for row in long_lag_task(batch_size, lag, generator=generator)[0].tolist()}


def _heldout_accuracy(model: nn.Module, lag: int, training: set[tuple[int, ...]]) -> tuple[float, int]:
    """Accuracy on ``long_lag_accuracy``'s held-out sequences not in ``training``, and how many were left out."""
    tokens, labels = long_lag_task(HELDOUT_SEQUENCES, lag, generator=torch.Generator().manual_seed(HELDOUT_SEED))
    unseen = torch.tensor([tuple(row) not in training for row in tokens.tolist()])  # (1000,)
    model.eval()
    with torch.no_grad():
        predictions = model(tokens[unseen]).argmax(dim=-1)
    return float((predictions == labels[unseen]).float().mean()), int((~unseen).sum())


@dataclass(frozen=True)
class MemoryByLag:
    lags: tuple[int, ...]
    accuracy: dict[str, tuple[float, ...]]  # variant -> accuracy at each lag, on held-out sequences not trained on
    heldout_in_training: tuple[int, ...]  # per lag: held-out sequences left out because training saw them


def memory_by_lag(
    seed: int = 0, lags: tuple[int, ...] = LAGS, variants: tuple[str, ...] = VARIANTS, steps: int = 200
) -> MemoryByLag:
    """Each variant trained afresh at each lag: ``steps`` Adam steps at 3e-3, clipped at 1, batches of 64.

    Scored on the 1000 held-out sequences of ``long_lag_accuracy`` minus any that training saw
    (every variant trains on the same batches, drawn from ``seed``).
    """
    check_int("seed", seed, low=0)
    for lag in check_sequence("lags", lags):
        check_int("lags", lag)
    for variant in check_sequence("variants", variants):
        check_choice("variants", variant, VARIANTS)
    check_int("steps", steps)
    training = {lag: _training_sequences(lag, steps, seed) for lag in lags}
    accuracy, left_out = {}, {}
    for variant in variants:
        row = []
        for lag in lags:
            model = memory_model(variant, seed)
            fit_long_lag(model, lag=lag, steps=steps, lr=3e-3, seed=seed, progress=False)
            score, left_out[lag] = _heldout_accuracy(model, lag, training[lag])
            row.append(score)
        accuracy[variant] = tuple(row)
    return MemoryByLag(tuple(lags), accuracy, tuple(left_out.get(lag, 0) for lag in lags))


def irnn_learning_rate(seed: int = 0, lag: int = 50, lr: float = 1e-2, steps: int = 200) -> float:
    """Held-out accuracy of the IRNN trained at ``lr`` instead of 3e-3 (all else as in ``memory_by_lag``)."""
    check_int("seed", seed, low=0)
    check_int("lag", lag)
    check_number("lr", lr, 0.0, low_open=True)
    check_int("steps", steps)
    model = irnn(seed)
    fit_long_lag(model, lag=lag, steps=steps, lr=lr, seed=seed, progress=False)
    return _heldout_accuracy(model, lag, _training_sequences(lag, steps, seed))[0]


def initial_gradient_ratio(seed: int = 0, lag: int = 50) -> dict[str, float]:
    """For each variant at initialisation: ‖gradient at the signal‖ / ‖gradient at the last token‖."""
    check_int("seed", seed, low=0)
    check_int("lag", lag)
    tokens, labels = long_lag_task(256, lag, generator=torch.Generator().manual_seed(seed + 1))
    out = {}
    for variant in VARIANTS:
        model = memory_model(variant, seed)

        def loss(embedded: torch.Tensor, model: RecurrentClassifier = model) -> torch.Tensor:
            return nn.functional.cross_entropy(model(tokens, embedded=embedded), labels)

        norms = time_step_gradient_norms(loss, model.embedding(tokens))
        out[variant] = float(norms[0] / norms[-1])
    return out


@dataclass(frozen=True)
class LanguageModelRun:
    losses: tuple[float, ...]  # training loss per step (nats per character)
    heldout_loss: float  # on the first 64 windows of 65 characters of the held-out text
    unigram_loss: float  # a unigram model counted on the training text, same predictions
    bigram_loss: float  # a bigram model counted on the training text, same predictions
    vocab_size: int
    sample_text: str  # 400 characters sampled at temperature 1 after "\n"
    heldout_space_fraction: float
    sample_space_fraction: float
    sample_real_words: float  # share of the sample's words (runs of letters) that occur in the training text
    heldout_windows_in_training: int  # held-out windows found verbatim in the training text (0: disjoint)
    model: RecurrentLM = field(compare=False, repr=False)  # the trained model, for more sampling


def shakespeare_split() -> tuple[CharVocab, torch.Tensor, torch.Tensor]:
    """The character vocabulary of tinyshakespeare and its ids, split into training text and the held-out last 5%."""
    text = load_text("tinyshakespeare.txt")
    vocab = CharVocab.from_text(text)
    ids = torch.tensor(vocab.encode(text))
    split = int((1 - HELD_OUT_FRACTION) * len(ids))
    return vocab, ids[:split], ids[split:]


def language_model(seed: int = 0, steps: int = 100) -> LanguageModelRun:
    """A 64-unit tanh RNN language model trained with ``next_token_loss`` (Adam 1e-2, clip 1, 32 windows of 65)."""
    check_int("seed", seed, low=0)
    check_int("steps", steps)
    vocab, train_ids, heldout_ids = shakespeare_split()
    torch.manual_seed(seed)
    model = RecurrentLM(len(vocab), hidden_size=64, kind="rnn", embedding_dim=32)
    generator = torch.Generator().manual_seed(seed)
    history = train(
        model,
        next_token_loss,
        lambda step: random_windows(train_ids, 32, 65, generator),
        steps=steps,
        lr=1e-2,
        clip_norm=1.0,
        progress=False,
    )
    windows = heldout_ids[: 64 * 65].reshape(64, 65)  # (64, 65)
    with torch.no_grad():
        heldout = next_token_loss(model, windows).item()
    text = vocab.decode(sample(model, vocab.encode("\n"), 400, generator=torch.Generator().manual_seed(seed)))
    space = vocab.stoi[" "]
    train_text = load_text("tinyshakespeare.txt")[: len(train_ids)]  # one character per id
    known = {word.lower() for word in re.findall(r"[A-Za-z]+", train_text)}
    words = [word.lower() for word in re.findall(r"[A-Za-z]+", text)]
    found = sum(vocab.decode(window.tolist()) in train_text for window in windows)
    return LanguageModelRun(
        tuple(history.loss),
        heldout,
        count_model_loss(train_ids, windows, len(vocab), order=1),
        count_model_loss(train_ids, windows, len(vocab), order=2),
        len(vocab),
        text,
        float((windows[:, 1:] == space).double().mean()),
        text.count(" ") / len(text),
        sum(word in known for word in words) / max(len(words), 1),
        found,
        model,
    )


BOOK_STREAMS, BOOK_CHUNK, BOOK_CHUNKS = 32, 32, 40  # 32 streams read side by side, 40 chunks of 32 characters each


@dataclass(frozen=True)
class BookTraining:
    losses: tuple[float, ...]  # the loss of each chunk, one optimiser step per chunk
    heldout_loss: float  # on the 64 held-out windows of ``language_model``
    characters: int  # characters trained on: streams × chunks × chunk length
    streams_end: int  # the last training id any stream reaches (below the held-out part's start)
    heldout_start: int


def book_training(loop=None, seed: int = 0) -> BookTraining:
    """Section 1c's 64-unit RNN trained on the book itself by truncated BPTT with ``loop``.

    ``loop(model, streams, k, optimiser, clip_norm) -> losses`` is the student's training loop
    (default: ``dl4nlp.bptt.train_truncated_bptt``): 32 contiguous streams of the training text,
    40 chunks of 32 characters each, Adam at 1e-2, gradient clipped at norm 1.
    """
    from dl4nlp.bptt import contiguous_streams, train_truncated_bptt

    check_int("seed", seed, low=0)
    loop = train_truncated_bptt if loop is None else loop
    if not callable(loop):
        raise TypeError(f"loop must be a function loop(model, streams, k, optimiser, clip_norm); got {given(loop)}")
    vocab, train_ids, heldout_ids = shakespeare_split()
    torch.manual_seed(seed)
    model = RecurrentLM(len(vocab), hidden_size=64, kind="rnn", embedding_dim=32)
    streams = contiguous_streams(train_ids, BOOK_STREAMS, BOOK_CHUNKS * BOOK_CHUNK)  # (32, 1281)
    stride = len(train_ids) // BOOK_STREAMS
    losses = loop(model, streams, BOOK_CHUNK, torch.optim.Adam(model.parameters(), lr=1e-2), 1.0)
    windows = heldout_ids[: 64 * 65].reshape(64, 65)
    with torch.no_grad():
        heldout = next_token_loss(model, windows).item()
    return BookTraining(
        tuple(float(x) for x in losses),
        heldout,
        streams.shape[0] * (streams.shape[1] - 1),
        (BOOK_STREAMS - 1) * stride + streams.shape[1] - 1,
        len(train_ids),
    )


# --- many seeds, from the shipped table -----------------------------------------
SEED_SWEEP = "rnn_seed_sweep.json"  # in data/, by `python -m dl4nlp.recipes.rnn_seed_sweep`
_SWEEP_KEYS = ("seed", "irnn_lag50", "clipped_final", "clipped_diverged", "unclipped_failed")


def load_seed_sweep(path=None) -> dict:
    """The shipped seed sweep of chapter 03 (``data/rnn_seed_sweep.json`` by default), checked complete."""
    path = data_path(SEED_SWEEP) if path is None else path
    table = read_json(path, "the RNN seed sweep (JSON)")
    return _check_seed_sweep(table, str(path))


def _check_seed_sweep(table: dict, source: str = "table") -> dict:
    rows = table.get("seeds") if isinstance(table, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError(f"{source} must be the RNN seed sweep (load_seed_sweep), a dict of seeds; got {given(table)}")
    for i, row in enumerate(rows):
        if not isinstance(row, dict) or any(k not in row for k in _SWEEP_KEYS) or row["seed"] != i:
            raise ValueError(f"{source}: row {i} must be seed {i} with {_SWEEP_KEYS}; got {given(row)}")
    return table


@dataclass(frozen=True)
class SeedSweepCounts:
    seeds: int
    irnn_solved: int  # seeds whose IRNN ends above SOLVED at lag 50
    irnn_reached: int  # seeds whose IRNN ends above REACHES
    irnn_lowest: float
    clipped_runs: int
    clipped_diverged: int
    clipped_stuck: int  # clipped runs that did not end below CLIPPED_FINAL
    sets_with_clipped_learning: int  # seeds where at least CLIPPED_LEARN of the four clipped runs learned
    sets_with_unclipped_failing: int  # seeds where at least three of the four unclipped runs failed


def seed_sweep_counts(table: dict) -> SeedSweepCounts:
    """What the notebook states about the sweep, counted from the table.

    >>> row = {"seed": 0, "irnn_lag50": 0.99, "clipped_final": [0.3, 1.4, 0.2, 0.1],
    ...        "clipped_diverged": [False] * 4, "unclipped_failed": 4}
    >>> seed_sweep_counts({"seeds": [row]}).clipped_stuck
    1
    """
    rows = _check_seed_sweep(table)["seeds"]
    clipped = [final for row in rows for final in row["clipped_final"]]
    return SeedSweepCounts(
        seeds=len(rows),
        irnn_solved=sum(row["irnn_lag50"] > SOLVED for row in rows),
        irnn_reached=sum(row["irnn_lag50"] > REACHES for row in rows),
        irnn_lowest=min(row["irnn_lag50"] for row in rows),
        clipped_runs=len(clipped),
        clipped_diverged=sum(any(row["clipped_diverged"]) for row in rows),
        clipped_stuck=sum(final >= CLIPPED_FINAL for final in clipped),
        sets_with_clipped_learning=sum(
            sum(final < CLIPPED_FINAL for final in row["clipped_final"]) >= CLIPPED_LEARN for row in rows
        ),
        sets_with_unclipped_failing=sum(row["unclipped_failed"] >= 3 for row in rows),
    )


# --- section 6 trained beforehand, from the shipped table -------------------------------
MEMORY_BY_LAG = "rnn_memory_by_lag.json"  # in data/, by `python -m dl4nlp.recipes.rnn_memory_by_lag`


@dataclass(frozen=True)
class ShippedMemory:
    run: MemoryByLag  # memory_by_lag(seed) as the recipe ran it
    irnn_larger_lr: float  # irnn_learning_rate(seed)
    provenance: dict


def load_memory_by_lag(seed: int = 0, path=None) -> ShippedMemory:
    """Seed ``seed``'s row of the shipped section-6 table (``data/rnn_memory_by_lag.json`` by default), checked.

    >>> shipped = load_memory_by_lag()
    >>> shipped.run.lags, sorted(shipped.run.accuracy) == sorted(VARIANTS)
    ((5, 10, 20, 50), True)
    """
    check_int("seed", seed, low=0)
    path = data_path(MEMORY_BY_LAG) if path is None else path
    table = read_json(path, "the RNN memory-by-lag table (JSON)")
    rows = table.get("seeds") if isinstance(table, dict) else None
    if not isinstance(rows, list) or table.get("lags") != list(LAGS) or table.get("variants") != list(VARIANTS):
        raise ValueError(f"{path} must be the table of rnn_memory_by_lag for lags {LAGS} and {VARIANTS}; "
                         f"got {given(table)}")  # fmt: skip
    row = next((r for r in rows if isinstance(r, dict) and r.get("seed") == seed), None)
    if row is None:
        raise ValueError(f"{path} holds no row for seed {seed}; its seeds: {[given(r) for r in rows][:8]}")
    accuracy = row.get("accuracy")
    if (
        not isinstance(accuracy, dict)
        or sorted(accuracy) != sorted(VARIANTS)
        or any(len(accuracy[v]) != len(LAGS) for v in VARIANTS)
    ):
        raise ValueError(f"{path}: seed {seed}'s accuracy must give each of {VARIANTS} one number per lag")
    return ShippedMemory(
        MemoryByLag(LAGS, {v: tuple(accuracy[v]) for v in VARIANTS}, tuple(row["heldout_in_training"])),
        float(row["irnn_larger_lr"]),
        dict(table["provenance"]),
    )


# --- the chapter's figures (layout only) ------------------------------------------------
def _check_record(name: str, value, kind: type) -> None:
    if not isinstance(value, kind):
        raise TypeError(
            f"{name} must be a {kind.__name__} (what {kind.__name__.lower()}-making experiment returns); "
            f"got {given(value)}"
        )


def plot_jacobian_products(result: JacobianProducts) -> plt.Figure:
    """‖∂h(T)/∂h(t)‖ against the distance, one line per radius: without tanh (left) and with it (right)."""
    _check_record("result", result, JacobianProducts)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
    for ax, norms, name in [(axes[0], result.linear, "linear (no tanh)"), (axes[1], result.tanh, "tanh")]:
        for rho, n in norms.items():
            ax.plot(np.arange(result.distance + 1), n, label=f"ρ = {rho:g}")
        ax.set_yscale("log")
        ax.set_xlabel("distance T − t (steps back in time)")
        ax.set_title(f"‖∂h(T)/∂h(t)‖, {name}")
    axes[0].set_ylabel("spectral norm (log scale)")
    axes[0].legend()
    return fig


def plot_clipping(run: Clipping) -> plt.Figure:
    """Training losses of the unclipped (left) and clipped (right) runs, log scale floored at 0.01."""
    _check_record("run", run, Clipping)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
    panels = [(left, run.unclipped, run.unclipped_diverged, "no clipping"),
              (right, run.clipped, run.clipped_diverged, "clipped at norm 1")]  # fmt: skip
    for ax, runs, diverged, title in panels:
        for seed, losses, gone in zip(run.seeds, runs, diverged):
            label = f"seed {seed}" + (f" (diverged at step {len(losses)})" if gone else "")
            ax.plot(np.maximum(losses, 1e-2), label=label)
        ax.axhline(LOG4, color="grey", linestyle="--", linewidth=1)
        ax.set(yscale="log", xlabel="step", title=title)
        ax.legend(fontsize="small")
    left.set_ylabel("training loss (log scale, floored at 0.01)\ndashed: log 4")
    return fig


def plot_memory_by_lag(accuracy: dict[str, tuple[float, ...]], lags: tuple[int, ...], larger_lr: float) -> plt.Figure:
    """Held-out accuracy against the lag for each network, the IRNN at a larger learning rate as a cross at lag 50."""
    if not isinstance(accuracy, dict) or not accuracy:
        raise TypeError(f"accuracy must be a dict network -> accuracy per lag (memory_by_lag); got {given(accuracy)}")
    lags = tuple(check_int("lags", lag) for lag in check_sequence("lags", lags))
    for name, row in accuracy.items():
        if len(check_sequence("accuracy", row)) != len(lags):
            raise ValueError(f"accuracy[{name!r}] must hold one number per lag {lags}; got {given(row)}")
    check_number("larger_lr", larger_lr, 0.0, 1.0)
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for (variant, row), marker in zip(accuracy.items(), "o^s"):
        ax.plot(lags, row, marker=marker, label=variant)
    ax.plot([max(lags)], [larger_lr], marker="x", markersize=10, linestyle="", color="tab:green",
            label="IRNN, learning rate 1e-2")  # fmt: skip
    ax.axhline(CHANCE, color="grey", linestyle="--", label="chance (1 in 4)")
    ax.set(xscale="log", xlabel="lag L (steps between the signal and the answer)", ylabel="held-out accuracy",
           ylim=(0, 1.05), title="Remembering one token across L distractors (200 training steps)")  # fmt: skip
    ax.set_xticks(lags, [str(lag) for lag in lags])
    ax.minorticks_off()
    ax.legend(fontsize="small")
    return fig


# --- truncated backpropagation through time on the memory task (Going further) -----------
TRUNCATION_LAG = 20
TRUNCATION_K = 10


def _truncated_classifier_loss(k: Optional[int]):
    """Cross-entropy of a RecurrentClassifier's read-out of its last state, the graph cut every ``k`` steps."""

    def loss_fn(model: RecurrentClassifier, batch) -> torch.Tensor:
        tokens, labels = batch
        embedded = model.embedding(tokens)  # (B, T, E)
        step = embedded.shape[1] if k is None else k
        state = None
        for start in range(0, embedded.shape[1], step):
            if state is not None:
                state = state.detach()  # keep the value, cut the graph
            _, state = model.recurrent(embedded[:, start : start + step], state)  # (1, B, H)
        return nn.functional.cross_entropy(model.readout(state[0]), labels)

    return loss_fn


@dataclass(frozen=True)
class TruncatedMemory:
    lag: int
    k: int
    full: float  # held-out accuracy of the IRNN trained with full BPTT
    truncated: float  # ... trained with the gradient cut every k steps (the same forward values)
    heldout_in_training: int


def truncated_memory(
    seed: int = 0, lag: int = TRUNCATION_LAG, k: int = TRUNCATION_K, steps: int = 200
) -> TruncatedMemory:
    """The IRNN at ``lag`` trained twice on the same batches: full BPTT, and truncated every ``k`` steps.

    The loss sits at the end of each sequence and the signal at its start, so with
    ``k`` shorter than the sequence no gradient ever reaches the signal. The carried
    state still does: the last window learns to keep whatever state arrives and to
    read it out, so the truncated run learns above chance, though less than full BPTT.
    """
    check_int("seed", seed, low=0)
    check_int("lag", lag)
    check_int("k", k)
    check_int("steps", steps)
    training = _training_sequences(lag, steps, seed)
    scores = {}
    for name, cut in (("full", None), ("truncated", k)):
        model = memory_model(VARIANTS[2], seed)
        generator = torch.Generator().manual_seed(seed)
        batches = lambda step, generator=generator: long_lag_task(64, lag, generator=generator)  # noqa: E731
        train(model, _truncated_classifier_loss(cut), batches, steps=steps, lr=3e-3, clip_norm=1.0, progress=False)
        scores[name], left_out = _heldout_accuracy(model, lag, training)
    return TruncatedMemory(lag, k, scores["full"], scores["truncated"], left_out)
