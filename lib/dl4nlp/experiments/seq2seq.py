"""Chapters 06 and 07's experiments on string reversal, as functions of a seed.

Every model here is a small ``dl4nlp.seq2seq.Seq2Seq`` trained the same way
(``REVERSAL``: lengths 2-10, the same data, a finished cosine schedule) on the
training split of ``dl4nlp.date_task.reverse_pairs``, and tested on strings of
the test split (disjoint by construction; asserted here). Training runs are
cached per (variant, seed), so the experiments that share a model train it once.

- ``bottleneck``: accuracy against input length with and without attention (chapter 06).
- ``longer_training``: the bottleneck model with more steps (chapter 06, Going further).
- ``score_comparison``: the dot, general and additive scores, trained the same way (chapter 06).
- ``exposure_bias``: a teacher-forced model fed its own (or a wrong) previous
  character, against one trained with scheduled sampling (chapter 07).
- ``beam_vs_greedy``: beam search and greedy decoding on the uncertain model, and how many of
  their wrong outputs are search errors (the model scores the right string higher) (chapter 07).

The thresholds the notebooks and ``tests/claims/test_06_seq2seq.py`` and
``test_07_decoding.py`` assert are the named constants below. ``alignment_redrawer``
is chapter 06's widget plumbing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Optional

import matplotlib.pyplot as plt
import torch
from matplotlib.transforms import ScaledTranslation

from dl4nlp._checks import check_callable, check_choice, check_int, check_number, check_str, check_type, given
from dl4nlp.attention import SCORES
from dl4nlp.checkpoint import read_json
from dl4nlp.data import data_path
from dl4nlp.date_task import REVERSE_VOCAB, batch_sampler, encode_batch, overlap, reverse_pairs
from dl4nlp.plots import plot_attention
from dl4nlp.seq2seq import Seq2Seq, beam_search, greedy_search
from dl4nlp.train import History, train
from dl4nlp.vocab import Seq2SeqVocab

LENGTHS = tuple(range(2, 11))
LONG = (8, 9, 10)  # "long" inputs for the bottleneck claim
TRAIN_PAIRS, TEST_PER_LENGTH = 10_000, 100

# Claim thresholds (shared by chapters 06 and 07 and their claims tests).
ATTENTION_LONG_MIN = 0.8  # with attention: accuracy at every long length at least this
BOTTLENECK_LONG_MAX = 0.15  # without attention: accuracy at every long length at most this
BOTTLENECK_SHORT_MIN = 0.6  # without attention: length 2 still mostly right
BOTTLENECK_LOSS_RATIO_MIN = 10.0  # the bottleneck model's final training loss at least this many times the other's
SCORE_LONG_MIN = 0.85  # every score function: mean accuracy over the long lengths at least this


@dataclass(frozen=True)
class Reversal:
    """How every reversal model of this module is trained (one thing at a time is changed)."""

    score: Optional[str] = "dot"
    sampling_prob: float = 0.0  # > 0: scheduled sampling, rising linearly from 0 to this over training
    steps: int = 100
    batch_size: int = 128
    lr: float = 1e-2
    d_embed: int = 16
    d_hidden: int = 48

    def __post_init__(self) -> None:
        if self.score is not None:
            check_choice("score", self.score, SCORES)
        check_number("sampling_prob", self.sampling_prob, 0.0, 1.0)
        for name in ("steps", "batch_size", "d_embed", "d_hidden"):
            check_int(name, getattr(self, name))
        check_number("lr", self.lr, 0.0, low_open=True)


REVERSAL = Reversal()


def _check_seed(seed: int) -> None:
    check_int("seed", seed, low=0)


def training_strings(seed: int) -> list[tuple[str, str]]:
    """The training strings (training split only) for ``seed``."""
    _check_seed(seed)
    return reverse_pairs(TRAIN_PAIRS, LENGTHS, seed=1000 + seed, split="train")


def held_out_strings(length: int, seed: int, n: int = TEST_PER_LENGTH) -> list[tuple[str, str]]:
    """Held-out strings (test split) of one length."""
    _check_seed(seed)
    check_int("length", length)
    return reverse_pairs(n, [length], seed=2000 + 100 * seed + length, split="test")


@lru_cache(maxsize=16)
def train_reverser(variant: Reversal, seed: int) -> tuple[Seq2Seq, History]:
    """Train (once per variant and seed) a reverser; the weights come from ``torch.manual_seed(seed)``."""
    check_type("variant", variant, Reversal, "a Reversal")
    _check_seed(seed)
    torch.manual_seed(seed)
    vocab = REVERSE_VOCAB
    model = Seq2Seq(len(vocab), len(vocab), d_embed=variant.d_embed, d_hidden=variant.d_hidden, score=variant.score)
    optimizer = torch.optim.Adam(model.parameters(), lr=variant.lr)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=variant.steps)
    next_batch = batch_sampler(
        training_strings(seed), variant.batch_size, seed=seed, source_vocab=vocab, target_vocab=vocab
    )
    coins = torch.Generator().manual_seed(seed)  # scheduled sampling's coin flips, apart from everything else
    done = [0]  # steps taken so far

    def loss(model: Seq2Seq, batch: dict) -> torch.Tensor:
        p = variant.sampling_prob * done[0] / max(variant.steps - 1, 1)  # the schedule: 0 -> sampling_prob
        done[0] += 1
        return model.loss(batch, sampling_prob=p, generator=coins)

    history = train(
        model,
        loss,
        next_batch,
        steps=variant.steps,
        optimizer=optimizer,
        scheduler=schedule,
        clip_norm=1.0,
        progress=False,
    )
    return model.eval(), history


def accuracy(model: Seq2Seq, pairs: list[tuple[str, str]], vocab: Seq2SeqVocab = REVERSE_VOCAB) -> float:
    """Fraction of pairs the model's greedy output gets exactly right."""
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    batch = encode_batch(pairs, vocab, vocab)
    device = next(model.parameters()).device  # the batch is built on the CPU, the model may be on a GPU
    ids, _ = model.greedy_decode(batch["src"].to(device), batch["src_lengths"].to(device),
                                 max_len=max(len(t) for _, t in pairs) + 1)  # fmt: skip
    return sum(vocab.decode(row) == target for row, (_, target) in zip(ids.tolist(), pairs)) / len(pairs)


def _check_held_out(seed: int) -> None:
    tests = [pair for n in LENGTHS for pair in held_out_strings(n, seed)]
    shared = overlap(training_strings(seed), tests, dates=False)
    if not shared.disjoint:
        raise AssertionError(
            f"test strings must be held out; {shared.same_source} of {shared.test_size} are in training"
        )


# --- 1. the bottleneck --------------------------------------------------------
@dataclass(frozen=True)
class BottleneckResult:
    lengths: tuple[int, ...]
    attention: tuple[float, ...]  # accuracy per length, dot attention
    bottleneck: tuple[float, ...]  # accuracy per length, no attention
    final_loss_attention: float  # mean training loss over the last 10 steps
    final_loss_bottleneck: float

    def at(self, lengths: tuple[int, ...], which: str) -> list[float]:
        check_choice("which", which, ("attention", "bottleneck"))
        values = dict(zip(self.lengths, getattr(self, which)))
        missing = [n for n in lengths if n not in values] if isinstance(lengths, (tuple, list)) else lengths
        if missing:
            raise ValueError(f"lengths must be among the measured {self.lengths}; got {missing!r}")
        return [values[n] for n in lengths]


def bottleneck(seed: int = 0, steps: int = REVERSAL.steps) -> BottleneckResult:
    """Accuracy against length of two models that differ only in attention (dot score vs none)."""
    _check_seed(seed)
    check_int("steps", steps)
    _check_held_out(seed)
    with_attention, h_att = train_reverser(replace(REVERSAL, score="dot", steps=steps), seed)
    without, h_none = train_reverser(replace(REVERSAL, score=None, steps=steps), seed)
    tests = {n: held_out_strings(n, seed) for n in LENGTHS}
    return BottleneckResult(
        LENGTHS,
        tuple(accuracy(with_attention, tests[n]) for n in LENGTHS),
        tuple(accuracy(without, tests[n]) for n in LENGTHS),
        sum(h_att.loss[-10:]) / 10,
        sum(h_none.loss[-10:]) / 10,
    )


def bottleneck_claim(result: BottleneckResult) -> bool:
    """Attention holds up at long inputs, where the bottleneck fails; length 2 is easy for both; and the
    bottleneck model's training loss is still far above the attention model's when the schedule ends."""
    check_type("result", result, BottleneckResult, "a BottleneckResult (from bottleneck)")
    return (
        min(result.at(LONG, "attention")) >= ATTENTION_LONG_MIN
        and max(result.at(LONG, "bottleneck")) <= BOTTLENECK_LONG_MAX
        and result.at((2,), "bottleneck")[0] >= BOTTLENECK_SHORT_MIN
        and result.final_loss_bottleneck >= BOTTLENECK_LOSS_RATIO_MIN * result.final_loss_attention
    )


@dataclass(frozen=True)
class BudgetResult:
    """The no-attention reverser after one finished schedule of ``steps`` steps (``longer_training``)."""

    steps: int
    lengths: tuple[int, ...]
    accuracy: tuple[float, ...]  # held-out sequence accuracy per length, no attention
    final_loss: float  # mean training loss over the last 10 steps


def longer_training(seed: int = 0, steps: int = REVERSAL.steps) -> BudgetResult:
    """The bottleneck model (no attention) trained for ``steps`` steps instead of 100: does it catch up?

    Everything else is ``bottleneck``'s (data, seed, held-out strings, a cosine schedule that finishes at
    ``steps``). Each budget is its own run, not a checkpoint of a longer one. Costs about 0.05 s a step on one
    CPU thread, so the budgets beyond 100 steps come from ``python -m dl4nlp.recipes.reverser_budget``.
    """
    _check_seed(seed)
    check_int("steps", steps)
    _check_held_out(seed)
    model, history = train_reverser(replace(REVERSAL, score=None, steps=steps), seed)
    accuracies = tuple(accuracy(model, held_out_strings(n, seed)) for n in LENGTHS)
    return BudgetResult(steps, LENGTHS, accuracies, sum(history.loss[-10:]) / 10)


BUDGET_TABLE = "reverser_budget.json"  # in data/, by `python -m dl4nlp.recipes.reverser_budget`
STILL_LEARNING_STEPS, STILL_LEARNING_MAX = 1000, 0.7  # 10x the budget: length 10 still at most this
CAUGHT_UP_STEPS = 10_000  # 100x the budget: every long length at least ATTENTION_LONG_MIN, like attention at 100


def load_budget_table(path=None) -> dict:
    """The shipped ``longer_training`` runs (``data/reverser_budget.json`` by default), checked complete.

    ``table["runs"]`` holds one ``BudgetResult`` (as a dict) per seed and budget; ``table["attention_at_100_steps"]``
    the attention model's accuracy per length, per seed.
    """
    path = data_path(BUDGET_TABLE) if path is None else path
    table = read_json(path, "the reverser budget table (JSON)")
    return _check_budget_table(table, str(path))


def _check_budget_table(table: dict, source: str = "table") -> dict:
    """``table``, if it is the complete reverser budget table; else an error naming ``source``."""
    keys = ("lengths", "budgets", "seeds", "runs", "attention_at_100_steps")
    if not isinstance(table, dict) or any(k not in table for k in keys):
        raise ValueError(f"{source} must be the reverser budget table (load_budget_table) with keys {keys}; "
                         f"got {given(table) if not isinstance(table, dict) else sorted(table)}")  # fmt: skip
    runs = table["runs"]
    steps = [run.get("steps") if isinstance(run, dict) else None for run in runs] if isinstance(runs, list) else None
    if steps != table["budgets"] * len(table["seeds"]) or table["lengths"] != list(LENGTHS):
        raise ValueError(
            f"{source} is incomplete: runs must be seed by seed, each with the budgets {table['budgets']}, for the "
            f"seeds {table['seeds']} and lengths {list(LENGTHS)}; got steps {steps} and lengths {table['lengths']}"
        )
    return table


def budget_accuracy(table: dict, seed: int, steps: int) -> dict[int, float]:
    """Held-out accuracy by length of the no-attention model of ``seed`` after ``steps`` steps, from the table."""
    _check_budget_table(table)
    check_int("seed", seed, 0)
    check_int("steps", steps)
    if seed not in table["seeds"] or steps not in table["budgets"]:
        raise ValueError(
            f"the table has seeds {table['seeds']} and budgets {table['budgets']}; got seed {seed!r}, steps {steps!r}"
        )
    run = table["runs"][table["seeds"].index(seed) * len(table["budgets"]) + table["budgets"].index(steps)]
    return dict(zip(run["lengths"], run["accuracy"]))


def budget_claim(table: dict, seed: int) -> bool:
    """For ``seed``: the bottleneck model fails long inputs after 100 steps, still gets at most 70 % of length 10
    right after 10x the training, and after 100x reaches at every long length what attention reaches in 100 steps."""
    _check_budget_table(table)
    budgets = (REVERSAL.steps, STILL_LEARNING_STEPS, CAUGHT_UP_STEPS)
    at = {steps: budget_accuracy(table, seed, steps) for steps in budgets}
    attention = dict(zip(table["lengths"], table["attention_at_100_steps"][table["seeds"].index(seed)]))
    return (
        max(at[REVERSAL.steps][n] for n in LONG) <= BOTTLENECK_LONG_MAX
        and at[STILL_LEARNING_STEPS][max(LONG)] <= STILL_LEARNING_MAX
        and min(at[CAUGHT_UP_STEPS][n] for n in LONG) >= ATTENTION_LONG_MIN
        and min(attention[n] for n in LONG) >= ATTENTION_LONG_MIN
    )


# --- 2. the score functions ------------------------------------------------------
@dataclass(frozen=True)
class ScoreResult:
    scores: tuple[str, ...]
    long_accuracy: tuple[float, ...]  # mean accuracy over the long lengths, per score
    parameters: tuple[int, ...]  # parameters of the score module


def score_comparison(seed: int = 0) -> ScoreResult:
    """Dot, general and additive attention, trained the same way; mean accuracy on long inputs."""
    _check_seed(seed)
    _check_held_out(seed)
    tests = [pair for n in LONG for pair in held_out_strings(n, seed)]
    scores, accuracies, parameters = ("dot", "general", "additive"), [], []
    for score in scores:
        model, _ = train_reverser(replace(REVERSAL, score=score), seed)
        accuracies.append(accuracy(model, tests))
        parameters.append(sum(p.numel() for p in model.score.parameters()))
    return ScoreResult(scores, tuple(accuracies), tuple(parameters))


# --- 3. exposure bias and scheduled sampling -----------------------------------
EXPOSURE_LENGTHS = (6, 7, 8)
SAMPLING_PROB = 0.5  # scheduled sampling ends with half of the inputs the model's own


@dataclass(frozen=True)
class ExposureResult:
    teacher_forced: float  # per-character accuracy, true previous characters (teacher forcing)
    free_running: float  # per-character accuracy, own previous characters (greedy decoding)
    clean_after: float  # true previous characters, scored on the positions below
    after_wrong_input: float  # the characters from a wrong previous character on
    sampled_teacher_forced: float  # the same four for the scheduled-sampling model
    sampled_free_running: float
    sampled_clean_after: float
    sampled_after_wrong_input: float


def _character_accuracies(model: Seq2Seq, pairs: list[tuple[str, str]], seed: int) -> tuple[float, ...]:
    """Per-character accuracies: teacher forced, free running, and, on the characters from one wrong
    previous character on, with the true inputs (clean) and with the wrong one."""
    vocab = REVERSE_VOCAB
    batch = encode_batch(pairs, vocab, vocab)
    mask = batch["tgt_out"] != Seq2SeqVocab.PAD
    with torch.no_grad():
        logits, _ = model(batch["src"], batch["src_lengths"], batch["tgt_in"])
        teacher = ((logits.argmax(-1) == batch["tgt_out"]) & mask).sum() / mask.sum()
        ids, _ = model.greedy_decode(batch["src"], batch["src_lengths"], max_len=batch["tgt_out"].shape[1])
        free = ((ids == batch["tgt_out"]) & mask).sum() / mask.sum()
        # One wrong input: replace the previous character at a random position j >= 1 by another letter,
        # and score the characters from position j on.
        rng = random.Random(seed)
        corrupted, after = batch["tgt_in"].clone(), torch.zeros_like(mask)
        for b, (_, target) in enumerate(pairs):
            j = rng.randrange(1, len(target))
            wrong = rng.choice([c for c in "abcdefghij" if c != target[j - 1]])
            corrupted[b, j] = vocab.stoi[wrong]
            after[b, j : len(target)] = True
        clean = ((logits.argmax(-1) == batch["tgt_out"]) & after).sum() / after.sum()  # logits: true inputs
        logits, _ = model(batch["src"], batch["src_lengths"], corrupted)
        wrong_input = ((logits.argmax(-1) == batch["tgt_out"]) & after).sum() / after.sum()
    return teacher.item(), free.item(), clean.item(), wrong_input.item()


def exposure_bias(seed: int = 0) -> ExposureResult:
    """A dot-attention reverser trained with teacher forcing, and the same with scheduled sampling."""
    _check_seed(seed)
    _check_held_out(seed)
    tests = [pair for n in EXPOSURE_LENGTHS for pair in held_out_strings(n, seed)]
    forced, _ = train_reverser(REVERSAL, seed)
    sampled, _ = train_reverser(replace(REVERSAL, sampling_prob=SAMPLING_PROB), seed)
    return ExposureResult(*_character_accuracies(forced, tests, seed), *_character_accuracies(sampled, tests, seed))


WRONG_INPUT_DROP = 0.05  # one wrong previous character costs the teacher-forced model at least this much accuracy
FREE_RUNNING_COST_MAX = 0.01  # reading its own outputs costs the teacher-forced model at most this much
CLEAN_TOLERANCE = 0.005  # scheduled sampling loses no more than this on clean inputs (free running)
SAMPLING_GAIN_MAX = 0.10  # "a few points": scheduled sampling's gain after a wrong input stays below this


def exposure_claim(result: ExposureResult) -> bool:
    """Free running costs the teacher-forced model little, a wrong previous character costs it much;
    scheduled sampling makes the wrong character hurt less (by a few points) without losing clean accuracy."""
    check_type("result", result, ExposureResult, "an ExposureResult (from exposure_bias)")
    gain = result.sampled_after_wrong_input - result.after_wrong_input
    return (
        result.teacher_forced - result.free_running <= FREE_RUNNING_COST_MAX
        and result.after_wrong_input <= result.clean_after - WRONG_INPUT_DROP
        and 0.0 < gain < SAMPLING_GAIN_MAX
        and result.sampled_free_running >= result.free_running - CLEAN_TOLERANCE
    )


# --- 4. beam search against greedy decoding ------------------------------------
BEAM_LENGTHS = (3, 4, 5)
BEAM_SIZE = 5
SCORE_TOLERANCE = 1e-4  # float32 noise between two ways of scoring the same output


@dataclass(frozen=True)
class BeamResult:
    inputs: int
    beam_higher: int  # inputs where beam search found a more probable output than greedy
    beam_lower: int  # inputs where it found a less probable one
    greedy_exact: int  # exactly right outputs
    beam_exact: int
    greedy_search_errors: int  # wrong greedy outputs that the model scores below the right one (search errors)
    search_errors: int  # the same for beam search; its other wrong outputs are the model's errors


def beam_vs_greedy(seed: int = 0, beam_size: int = BEAM_SIZE) -> BeamResult:
    """Greedy and beam search on the no-attention reverser, at lengths where it is unsure."""
    _check_seed(seed)
    check_int("beam_size", beam_size)
    _check_held_out(seed)
    model, _ = train_reverser(replace(REVERSAL, score=None), seed)
    pairs = [pair for n in BEAM_LENGTHS for pair in held_out_strings(n, seed, n=40)]
    vocab = REVERSE_VOCAB
    batch = encode_batch(pairs, vocab, vocab)
    higher = lower = greedy_exact = beam_exact = greedy_search_errors = search_errors = 0
    with torch.no_grad():
        states = model.encode(batch["src"], batch["src_lengths"])
        logits, _ = model(batch["src"], batch["src_lengths"], batch["tgt_in"])  # teacher forcing: the right output
        token_scores = torch.log_softmax(logits, -1).gather(-1, batch["tgt_out"][..., None])[..., 0]  # (B, T)
        right_scores = (token_scores * (batch["tgt_out"] != Seq2SeqVocab.PAD)).sum(1).tolist()  # log P(target)
    for i, (_, target) in enumerate(pairs):
        state = tuple(part[i : i + 1] for part in states)
        g = greedy_search(model.step, state, bos=vocab.BOS, eos=vocab.EOS, max_len=len(target) + 2)
        b = beam_search(model.step, state, bos=vocab.BOS, eos=vocab.EOS, beam_size=beam_size, max_len=len(target) + 2)
        higher += b.best.score > g.score + SCORE_TOLERANCE
        lower += b.best.score < g.score - SCORE_TOLERANCE
        greedy_right, beam_right = vocab.decode(g.tokens) == target, vocab.decode(b.best.tokens) == target
        greedy_exact += greedy_right
        beam_exact += beam_right
        greedy_search_errors += not greedy_right and g.score < right_scores[i] - SCORE_TOLERANCE
        search_errors += not beam_right and b.best.score < right_scores[i] - SCORE_TOLERANCE
    return BeamResult(len(pairs), higher, lower, greedy_exact, beam_exact, greedy_search_errors, search_errors)


BEAM_MIN_EXACT = 0.1  # the comparison means something only if greedy gets a fair share right
BEAM_HIGHER_MIN = 0.15  # "a good share": beam search finds a more probable output on at least this fraction
BEAM_LOWER_MAX = 0.02  # "none or almost none": a less probable one on at most this fraction
BEAM_STILL_WRONG_MIN = 0.4  # "about half are still wrong": beam search leaves at least this fraction wrong
MODEL_ERRORS_MIN = 0.95  # of beam search's wrong outputs, at least this fraction the model prefers to the right one


def beam_claim(result: BeamResult) -> bool:
    """On a model that is right often enough for exact match to be compared, beam search often finds a
    more probable output than greedy and almost never a less probable one, makes fewer search errors
    than greedy, loses no exact matches on balance, and still leaves about half of the strings wrong,
    nearly all of them outputs the model scores above the right one (model errors, which no search fixes)."""
    check_type("result", result, BeamResult, "a BeamResult (from beam_vs_greedy)")
    n, wrong = result.inputs, result.inputs - result.beam_exact
    return (
        result.greedy_exact >= BEAM_MIN_EXACT * n
        and result.beam_higher >= BEAM_HIGHER_MIN * n
        and result.beam_lower <= BEAM_LOWER_MAX * n
        and result.beam_exact >= result.greedy_exact
        and wrong >= BEAM_STILL_WRONG_MIN * n
        and wrong - result.search_errors >= MODEL_ERRORS_MIN * wrong
        and result.greedy_search_errors > result.search_errors
    )


# --- chapter 06's alignment widget ----------------------------------------------
def alignment_redrawer(
    alignment: Callable[[str, str], tuple[str, torch.Tensor]], source: str, score: str
) -> Callable[[str, str], plt.Figure]:
    """A ``redraw(source, score)`` for an alignment widget, drawing into one figure laid out once.

    ``alignment(source, score)`` returns the model's output string and its attention
    weights, (len(output) + 1, len(source) + 1) with the end tokens. The first heatmap is
    drawn by ``dl4nlp.plots.plot_attention`` (for ``source`` and ``score``); every redraw puts
    the new weights, labels and title into the same image and axes. The axis labels and the
    title are placed, not measured against the tick labels, and the cells carry no tick
    marks: far less for matplotlib to lay out on every redraw.

    >>> redraw = alignment_redrawer(lambda s, score: (s[::-1], torch.eye(len(s) + 1)), "abc", "dot")
    >>> figure = redraw("abcd", "dot")
    >>> figure.axes[0].get_title(), figure.axes[0].images[0].get_array().shape
    ("dot score: 'abcd' -> dcba", (5, 5))
    >>> plt.close(figure)
    """
    check_callable("alignment", alignment, "a function alignment(source, score) -> (output, weights)")
    check_str("source", source, nonempty=True)
    check_str("score", score, nonempty=True)
    target, weights = alignment(source, score)
    figure = plot_attention(weights, list(source) + ["<eos>"], list(target) + ["<eos>"], vmax=1.0,
                            title=f"{score} score: {source!r} -> {target}")  # fmt: skip
    ax, inches = figure.axes[0], figure.dpi_scale_trans
    ax.xaxis.set_label_coords(0.5, 0, ax.transAxes + ScaledTranslation(0, -0.5, inches))
    ax.yaxis.set_label_coords(0, 0.5, ax.transAxes + ScaledTranslation(-0.5, 0, inches))
    ax.tick_params(bottom=False, left=False)
    plt.close(figure)  # shown by the widget, not by the cell that makes it

    def redraw(source: str, score: str) -> plt.Figure:
        """The heatmap of one translation, drawn into the widget's figure."""
        check_str("source", source, nonempty=True)
        check_str("score", score, nonempty=True)
        target, weights = alignment(source, score)
        inputs, outputs = [["␣" if c == " " else c for c in text] + ["<eos>"] for text in (source, target)]
        figure.set_size_inches(max(3.0, 0.32 * len(inputs) + 1.6), max(2.5, 0.32 * len(outputs) + 1.2))
        image = ax.images[0]
        image.set_data(weights)
        image.set_extent((-0.5, len(inputs) - 0.5, len(outputs) - 0.5, -0.5))
        ax.set_xticks(range(len(inputs)), inputs)
        for label in ax.get_xticklabels():
            label.set_rotation(90 if len(label.get_text()) > 2 else 0)  # "<eos>" upright, as plot_attention does
        ax.set_yticks(range(len(outputs)), outputs)
        ax.set_title(f"{score} score: {source!r} -> {target}", y=1)
        return figure

    return redraw
