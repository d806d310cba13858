"""Bad inputs of dl4nlp.sweep (entry points only: the sweep is a recipe being moved to dl4nlp.recipes)."""

import functools
import json

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, vary
from dl4nlp import sweep as W

exempt("the command line (argparse reports bad arguments); a recipe moving to dl4nlp.recipes", "dl4nlp.sweep.main")
TEXT = "the cat sat on the mat. " * 40


@functools.cache
def chars() -> W.CharData:
    return W.CharData(TEXT, 0.25)


@cases("dl4nlp.sweep.SweepSpec")
def _():
    yield from vary(
        W.SweepSpec,
        {},
        "sizes",
        [("empty", (), "()"), ("a malformed size", ("2x",), "'2x'"), ("one string, not a tuple", "2x16", "str")],
    )
    yield from vary(W.SweepSpec, {}, "steps", int_variants(1))
    yield from vary(
        W.SweepSpec,
        {},
        "budget_fractions",
        [("without 1", (0.5,), "(0.5,)"), ("above 1", (1.0, 2.0), "2.0"), ("a repeated budget", (1.0, 1.0), "1.0")],
    )
    yield from vary(W.SweepSpec, {}, "corpus", [("an unknown corpus", "hamlet.txt", "'hamlet.txt'")])
    yield from vary(
        W.SweepSpec, {}, "lr", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")]
    )
    yield from vary(W.SweepSpec, {}, "heldout_fraction", [("0", 0.0, "0.0"), ("1", 1.0, "1.0")])
    yield from vary(W.SweepSpec, {}, "min_lr_ratio", [("negative", -0.1, "-0.1"), ("above 1", 2.0, "2.0")])
    yield from vary(W.SweepSpec, {}, "constant_lr_sizes", [("a size not in sizes", ("9x9",), "'9x9'")])
    yield from vary(W.SweepSpec, {}, "emergence_start", [("too late for the context", 60, "60")])
    yield from vary(W.SweepSpec, {}, "clip_norm", [("0", 0.0, "0.0")])
    yield (
        "steps: budgets that round to the same step count",
        lambda: W.SweepSpec(steps=4, budget_fractions=(1 / 16, 1 / 8, 1.0)),
        ("budget_fractions", "1"),
    )


exempt("takes no arguments (the spec is checked when it is made)", "dl4nlp.sweep.SweepSpec.runs")


@cases("dl4nlp.sweep.parse_size")
def _():
    yield from vary(
        W.parse_size,
        {},
        "size",
        [
            ("no x", "216", "'216'"),
            ("zero layers", "0x16", "'0x16'"),
            ("odd width", "2x15", "'2x15'"),
            ("a tuple", (2, 16), "tuple"),
            ("None", None, "None"),
            ("negative", "-1x16", "'-1x16'"),
        ],
    )


@cases("dl4nlp.sweep.model_config")
def _():
    good = dict(size="1x8", vocab_size=10, context=16)
    yield from vary(W.model_config, good, "size", [("malformed", "1y8", "'1y8'")])
    yield from vary(W.model_config, good, "vocab_size", int_variants(1)[:2])
    yield from vary(W.model_config, good, "context", int_variants(1)[:2])


@cases("dl4nlp.sweep.CharData")
def _():
    good = dict(text=TEXT, heldout_fraction=0.25)
    yield from vary(
        W.CharData, good, "heldout_fraction", [("0", 0.0, "0.0"), ("1", 1.0, "1.0"), ("NaN", float("nan"), "nan")]
    )
    yield from vary(
        W.CharData,
        good,
        "text",
        [("empty", "", "''"), ("a list of lines", TEXT.split("."), "list"), ("None", None, "None")],
    )


@cases("dl4nlp.sweep.CharData.batch")
def _():
    good = dict(batch_size=2, context=8, generator=torch.Generator().manual_seed(0))
    yield from vary(chars().batch, good, "batch_size", int_variants(1))
    yield from vary(
        chars().batch, good, "context", int_variants(1)[:3] + [("longer than the training text", 10_000, "10000")]
    )
    yield from vary(chars().batch, good, "generator", [("a seed", 0, "int")])


@cases("dl4nlp.sweep.CharData.heldout_windows")
def _():
    good = dict(count=3, context=8)
    yield from vary(chars().heldout_windows, good, "count", int_variants(1))
    yield from vary(
        chars().heldout_windows,
        good,
        "context",
        int_variants(1)[:2] + [("longer than the held-out text", 10_000, "10000")],
    )


@cases("dl4nlp.sweep.lr_factor")
def _():
    good = dict(step=5, steps=10, schedule="cosine", warmup=2, min_ratio=0.1)
    yield from vary(W.lr_factor, good, "schedule", [("an unknown schedule", "linear", ("'linear'", "cosine"))])
    yield "schedule: unknown, during warm-up", lambda: W.lr_factor(0, 10, "linear", 2, 0.1), ("schedule", "'linear'")
    yield from vary(W.lr_factor, good, "warmup", [("negative", -1, "-1"), ("a float", 2.5, "2.5")])
    yield from vary(W.lr_factor, good, "steps", int_variants(1)[:2])
    yield from vary(W.lr_factor, good, "step", [("negative", -1, "-1"), ("beyond steps", 11, "11")])
    yield from vary(W.lr_factor, good, "min_ratio", [("negative", -0.5, "-0.5"), ("above 1", 2.0, "2.0")])


@cases("dl4nlp.sweep.peak_lr")
def _():
    good = dict(lr_at_64=3e-3, width=16)
    yield from vary(W.peak_lr, good, "width", int_variants(1))
    yield from vary(W.peak_lr, good, "lr_at_64", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0")])


@cases("dl4nlp.sweep.eval_steps")
def _():
    yield from vary(W.eval_steps, {}, "steps", int_variants(1))


def _lm():
    torch.manual_seed(0)
    return W.TransformerLM(W.model_config("1x8", len(chars().chars), 8))


@cases("dl4nlp.sweep.heldout_loss")
def _():
    windows = chars().heldout_windows(3, 8)
    good = dict(model=_lm(), windows=windows)
    yield from vary(
        W.heldout_loss,
        good,
        "windows",
        [
            ("empty", windows[:0], "(0, 9)"),
            ("one dimension", windows[0], "(9,)"),
            ("a float tensor", windows.float(), "float32"),
            ("an id beyond the vocabulary", torch.full_like(windows, 99), "99"),
            ("longer than the model's context", chars().heldout_windows(2, 20), "(2, 21)"),
        ],
    )
    yield from vary(W.heldout_loss, good, "batch_size", int_variants(1)[:3])


@cases("dl4nlp.sweep.continuation_metrics")
def _():
    windows = chars().heldout_windows(3, 8)
    good = dict(model=_lm(), windows=windows, chars=chars().chars, start=2, max_k=3)
    yield from vary(W.continuation_metrics, good, "start", [("negative", -1, "-1"), ("beyond the window", 8, "8")])
    yield from vary(W.continuation_metrics, good, "max_k", int_variants(1)[:2] + [("beyond the window", 9, "9")])
    yield from vary(
        W.continuation_metrics, good, "chars", [("fewer than the ids need", ["a"], "1"), ("a string", "abc", "str")]
    )
    yield from vary(W.continuation_metrics, good, "windows", [("empty", windows[:0], "(0, 9)")])


@cases("dl4nlp.sweep.models_path")
def _():
    yield from vary(W.models_path, {}, "out", [("None", None, "None"), ("empty", "", "''")])


@cases("dl4nlp.sweep.load_models")
def _():
    folder = scratch()
    other = folder / "other.pt"
    torch.save({"weights": torch.ones(2)}, other)
    yield "path: missing", lambda: W.load_models(folder / "missing.pt"), ("missing.pt",)
    yield "path: a checkpoint of something else", lambda: W.load_models(other), ("other.pt", "models")


@cases("dl4nlp.sweep.load_sweep")
def _():
    folder = scratch()
    broken = folder / "broken.json"
    broken.write_text("{not json")
    other = folder / "other.json"
    other.write_text(json.dumps({"hello": 1}))
    yield "path: missing", lambda: W.load_sweep(folder / "missing.json"), ("missing.json",)
    yield "path: invalid JSON", lambda: W.load_sweep(broken), ("broken.json", "JSON")
    yield "path: JSON of something else", lambda: W.load_sweep(other), ("other.json", "runs")


@cases("dl4nlp.sweep.run_sweep")
def _():
    folder = scratch()
    good = dict(
        spec=W.SweepSpec(
            sizes=("1x8",), steps=2, budget_fractions=(1.0,), constant_lr_sizes=(), eval_windows=2, emergence_windows=2
        ),
        out=folder / "s.json",
        workdir=folder / "work",  # not the default folder in /tmp
        progress=False,
        device=torch.device("cpu"),
    )
    yield from vary(W.run_sweep, good, "spec", [("a dict", dict(sizes=("1x8",)), "dict")])
    yield from vary(W.run_sweep, good, "max_steps", [("0", 0, "0"), ("negative", -1, "-1")])
    yield from vary(W.run_sweep, good, "out", [("a .pt file", folder / "s.pt", "s.pt")])
