"""Bad inputs of dl4nlp.sweep (the scaling sweep's models, data, schedules and loaders)."""

import math

import torch

from bad_inputs.harness import cases, choice_variants, int_variants, scratch, vary
from dl4nlp import sweep as W

TEXT = "to be or not to be, that is the question. " * 4
SIZES = [
    ("a number", 32, "32"),
    ("no x", "2-32", "'2-32'"),
    ("an odd width", "2x33", "'2x33'"),
    ("no layers", "0x32", "'0x32'"),
]


@cases("dl4nlp.sweep.check_int")
def _():
    # the message names the checked argument (name=), not check_int's own parameter
    for label, value, mention in int_variants(1):
        yield f"value: {label}", lambda value=value: W.check_int("steps", value), ("steps", mention)
    yield "minimum: a float", lambda: W.check_int("steps", 3, minimum=0.5), ("minimum", "0.5")
    yield "name: a number", lambda: W.check_int(3, 3), ("name", "int")


@cases("dl4nlp.sweep.parse_size")
def _():
    yield from vary(W.parse_size, {}, "size", SIZES)


@cases("dl4nlp.sweep.model_config")
def _():
    good = dict(size="2x32", vocab_size=65, context=64)
    yield from vary(W.model_config, good, "size", SIZES)
    yield from vary(W.model_config, good, "vocab_size", int_variants(1))
    yield from vary(W.model_config, good, "context", int_variants(1))
    yield from vary(W.model_config, good, "fast", [("a string", "yes", "str")])


@cases("dl4nlp.sweep.training_flops_per_token")
def _():
    good = dict(config=W.model_config("1x8", 65, 16), context=16)
    yield from vary(W.training_flops_per_token, good, "config", [("a size name", "1x8", "str")])
    yield from vary(W.training_flops_per_token, good, "context", int_variants(1))


@cases("dl4nlp.sweep.CharData")
def _():
    good = dict(text=TEXT)
    yield from vary(W.CharData, good, "text", [("one character", "a", "str"), ("a list", list(TEXT), "list")])
    yield from vary(
        W.CharData,
        good,
        "heldout_fraction",
        [("zero", 0.0, "0.0"), ("one", 1.0, "1.0"), ("NaN", math.nan, "nan"), ("a string", "0.1", "str")],
    )


@cases("dl4nlp.sweep.CharData.batch")
def _():
    data = W.CharData(TEXT)
    good = dict(batch_size=2, context=8, generator=torch.Generator().manual_seed(0))
    yield from vary(data.batch, good, "batch_size", int_variants(1))
    yield from vary(data.batch, good, "context", int_variants(1) + [("longer than the text", 10_000, "10000")])
    yield from vary(data.batch, good, "generator", [("a seed", 0, "int")])


@cases("dl4nlp.sweep.CharData.windows")
def _():
    data = W.CharData(TEXT)
    good = dict(part="heldout", count=2, context=4)
    yield from vary(data.windows, good, "part", choice_variants(["heldout", "train"]))
    yield from vary(data.windows, good, "count", int_variants(1))
    yield from vary(data.windows, good, "context", int_variants(1) + [("longer than the part", 10_000, "10000")])


@cases("dl4nlp.sweep.lr_factor")
def _():
    good = dict(step=5, steps=100, schedule="wsd", warmup=10)
    yield from vary(W.lr_factor, good, "step", int_variants(0) + [("equal to steps", 100, "100")])
    yield from vary(W.lr_factor, good, "steps", int_variants(1))
    yield from vary(W.lr_factor, good, "schedule", choice_variants(W.SCHEDULES))
    yield from vary(W.lr_factor, good, "warmup", int_variants(0))
    yield from vary(
        W.lr_factor,
        good,
        "min_ratio",
        [("negative", -0.1, "-0.1"), ("NaN", math.nan, "nan"), ("a string", "0.1", "str")],
    )
    yield from vary(
        W.lr_factor, good, "decay_fraction", [("zero", 0.0, "0.0"), ("one", 1.0, "1.0"), ("a string", "0.2", "str")]
    )


@cases("dl4nlp.sweep.decay_start")
def _():
    good = dict(steps=100)
    yield from vary(W.decay_start, good, "steps", int_variants(1))
    yield from vary(
        W.decay_start,
        good,
        "decay_fraction",
        [("zero", 0.0, "0.0"), ("NaN", math.nan, "nan"), ("a string", "0.2", "str")],
    )


@cases("dl4nlp.sweep.eval_steps")
def _():
    good = dict(steps=64)
    yield from vary(W.eval_steps, good, "steps", int_variants(1))
    yield from vary(
        W.eval_steps, good, "extra", [("a number", 3, "int"), ("a step 0", [0], "0"), ("a string", "12", "str")]
    )


def tiny_model_and_windows():
    torch.manual_seed(0)
    model = W.TransformerLM(W.model_config("1x8", 10, 8))
    windows = torch.randint(0, 10, (3, 9))
    return model, windows


WINDOWS = [
    ("one dimension", torch.zeros(9, dtype=torch.long), "(9,)"),
    ("floats", torch.zeros(3, 9), "float32"),
    ("too long for the model", torch.zeros(3, 20, dtype=torch.long), "(3, 20)"),
    ("an id beyond the vocabulary", torch.full((3, 9), 10), "10"),
    ("empty", torch.zeros(0, 9, dtype=torch.long), "(0, 9)"),
]


@cases("dl4nlp.sweep.heldout_loss")
def _():
    model, windows = tiny_model_and_windows()
    good = dict(model=model, windows=windows)
    yield from vary(
        W.heldout_loss,
        good,
        "model",
        [("a string", "1x8", "str"), ("a module without parameters", torch.nn.ReLU(), "ReLU")],
    )
    yield from vary(W.heldout_loss, good, "windows", WINDOWS)
    yield from vary(W.heldout_loss, good, "batch_size", int_variants(1))


@cases("dl4nlp.sweep.continuation_metrics")
def _():
    model, windows = tiny_model_and_windows()
    good = dict(model=model, windows=windows, chars="abcdefghij", start=2, max_k=3)
    yield from vary(W.continuation_metrics, good, "windows", WINDOWS)
    yield from vary(W.continuation_metrics, good, "chars", [("too few", "abc", "str"), ("None", None, "NoneType")])
    yield from vary(W.continuation_metrics, good, "start", int_variants(0) + [("too late", 7, "7")])
    yield from vary(W.continuation_metrics, good, "max_k", int_variants(1))


@cases("dl4nlp.sweep.load_sweep")
def _():
    folder = scratch()
    (folder / "bad.json").write_text("{not json", encoding="utf-8")
    (folder / "list.json").write_text("[1, 2]", encoding="utf-8")
    yield from vary(
        W.load_sweep,
        {},
        "path",
        [
            ("a missing file", folder / "missing.json", "missing.json"),
            ("not JSON", folder / "bad.json", "bad.json"),
            ("JSON but no sweep", folder / "list.json", ("list.json", "recipe")),
            ("a number", 3, "int"),
        ],
    )


@cases("dl4nlp.sweep.load_models")
def _():
    folder = scratch()
    (folder / "junk.pt").write_bytes(b"not a checkpoint")
    yield from vary(
        W.load_models,
        {},
        "path",
        [
            ("a missing file", folder / "missing.pt", "missing.pt"),
            ("a number", 3, "int"),
            ("a folder", folder, "folder"),
        ],
    )
