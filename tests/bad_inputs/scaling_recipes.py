"""Bad inputs of the scaling sweep's recipe modules (dl4nlp.recipes.scaling_run, scaling_spec, scaling_sweep).

Every case fails before any training starts.
"""

import math

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, scratch, vary
from dl4nlp.recipes import scaling_run as R
from dl4nlp.sweep import CharData

TEXT = "to be or not to be, that is the question. " * 4
GOOD_RUN = dict(size="1x8", schedule="cosine", steps=8, lr=0.01, seed=0)
SETTINGS = dict(
    batch_size=2, context=8, warmup_steps=2, min_lr_ratio=0.1, decay_fraction=0.2, betas=(0.9, 0.95),
    clip_norm=1.0, eval_windows=2, final_windows=2, emergence_start=1, max_k=2,
)  # fmt: skip
SIZES = [("a number", 8, "int"), ("no x", "1-8", "'1-8'"), ("an odd width", "1x9", "'1x9'")]

exempt("an exception raised when a session's step budget runs out", "dl4nlp.recipes.scaling_run.OutOfSteps")
exempt(
    "takes no arguments (the run's record fields and evaluation steps)",
    "dl4nlp.recipes.scaling_run.Run.identity",
    "dl4nlp.recipes.scaling_run.Run.points",
)
exempt(
    "a field of Budget (the progress callback), checked callable by Budget",
    "dl4nlp.recipes.scaling_run.Budget.on_steps",
)


def run_data_settings():
    return R.Run(**GOOD_RUN), CharData(TEXT), R.Settings(**SETTINGS)


@cases("dl4nlp.recipes.scaling_run.Run")
def _():
    yield from vary(R.Run, GOOD_RUN, "size", SIZES)
    yield from vary(R.Run, GOOD_RUN, "schedule", choice_variants(("cosine", "constant", "wsd")))
    yield from vary(R.Run, GOOD_RUN, "steps", int_variants(1))
    yield from vary(
        R.Run, GOOD_RUN, "lr", [("zero", 0.0, "0.0"), ("NaN", math.nan, "nan"), ("a string", "0.01", "'0.01'")]
    )
    yield from vary(R.Run, GOOD_RUN, "seed", int_variants(0))
    yield from vary(R.Run, GOOD_RUN, "extra_evals", [("a list", [3], "list"), ("a step 0", (0,), "0")])
    yield from vary(R.Run, GOOD_RUN, "snapshots", [("a number", 3, "int"), ("a float step", (2.5,), "2.5")])
    yield from vary(
        R.Run, GOOD_RUN, "branch", [("a run id alone", "1x8-constant", "str"), ("a negative step", ("x", -1), "-1")]
    )


@cases("dl4nlp.recipes.scaling_run.run_id")
def _():
    yield from vary(R.run_id, GOOD_RUN, "size", SIZES)
    yield from vary(R.run_id, GOOD_RUN, "steps", int_variants(1)[:3])
    yield from vary(R.run_id, GOOD_RUN, "lr", [("a string", "0.01", "'0.01'")])


@cases("dl4nlp.recipes.scaling_run.run_seed")
def _():
    good = dict(size="1x8", seed=0)
    yield from vary(R.run_seed, good, "size", [("a number", 8, "int"), ("empty", "", "''")])
    yield from vary(R.run_seed, good, "seed", int_variants(0))


@cases("dl4nlp.recipes.scaling_run.Settings")
def _():
    for name in ("batch_size", "context", "eval_windows", "final_windows", "max_k"):
        yield from vary(R.Settings, SETTINGS, name, int_variants(1)[:3])
    yield from vary(R.Settings, SETTINGS, "warmup_steps", int_variants(0)[:2])
    yield from vary(R.Settings, SETTINGS, "min_lr_ratio", [("above one", 1.5, "1.5"), ("NaN", math.nan, "nan")])
    yield from vary(R.Settings, SETTINGS, "decay_fraction", [("zero", 0.0, "0.0"), ("a string", "0.2", "str")])
    yield from vary(R.Settings, SETTINGS, "betas", [("one number", 0.9, "float"), ("one", (0.9, 1.0), "1.0")])
    yield from vary(R.Settings, SETTINGS, "clip_norm", [("zero", 0.0, "0.0"), ("negative", -1.0, "-1.0")])


@cases("dl4nlp.recipes.scaling_run.Budget")
def _():
    yield from vary(R.Budget, {}, "limit", int_variants(0))
    yield from vary(R.Budget, {}, "used", int_variants(0)[:3])
    yield from vary(R.Budget, {}, "on_steps", [("a string", "print", "str")])


@cases("dl4nlp.recipes.scaling_run.Budget.allows")
def _():
    yield from vary(R.Budget(limit=10).allows, {}, "steps", int_variants(0))


def _run_data_settings_cases(fn, **extra):
    run, data, settings = run_data_settings()
    good = dict(run=run, data=data, settings=settings, **extra)
    yield from vary(fn, good, "run", [("a run id", run.id, "str"), ("a dict", dict(GOOD_RUN), "dict")])
    yield from vary(fn, good, "data", [("the text", TEXT, "str")])
    yield from vary(fn, good, "settings", [("a dict", dict(SETTINGS), "dict")])


@cases("dl4nlp.recipes.scaling_run.describe")
def _():
    yield from _run_data_settings_cases(R.describe)


@cases("dl4nlp.recipes.scaling_run.train_run")
def _():
    folder = scratch()
    yield from _run_data_settings_cases(R.train_run, workdir=folder, device="cpu")
    run, data, settings = run_data_settings()
    good = dict(run=run, data=data, settings=settings, workdir=folder, device="cpu")
    yield from vary(R.train_run, good, "workdir", [("a number", 3, "int"), ("None", None, "None")])
    yield from vary(R.train_run, good, "device", [("an unknown name", "gpu0", "'gpu0'"), ("a number", 1.5, "float")])
    yield from vary(R.train_run, good, "budget", [("a number", 10, "int")])
    yield from vary(R.train_run, good, "keep_model", [("a string", "yes", "str")])


@cases("dl4nlp.recipes.scaling_run.finished")
def _():
    run = R.Run(**GOOD_RUN)
    good = dict(workdir=scratch(), run=run)
    yield from vary(R.finished, good, "workdir", [("a number", 3, "int")])
    yield from vary(R.finished, good, "run", [("a run id", run.id, "str")])


@cases("dl4nlp.recipes.scaling_run.load_weights")
def _():
    folder = scratch()
    (folder / "junk.pt").write_bytes(b"not weights")
    yield from vary(
        R.load_weights,
        {},
        "path",
        [
            ("a missing file", folder / "missing.pt", "missing.pt"),
            ("a folder", folder, "folder"),
            (
                "not a checkpoint",
                folder / "junk.pt",
                "junk.pt",
                "the message of _load names the file, not the argument",
            ),
            ("a number", 3, "int"),
        ],
    )


@cases("dl4nlp.recipes.scaling_run.timed_steps")
def _():
    _, data, settings = run_data_settings()
    good = dict(size="1x8", data=data, settings=settings, steps=1)
    yield from vary(R.timed_steps, good, "size", SIZES)
    yield from vary(R.timed_steps, good, "data", [("the text", TEXT, "str")])
    yield from vary(R.timed_steps, good, "settings", [("a dict", dict(SETTINGS), "dict")])
    yield from vary(R.timed_steps, good, "steps", int_variants(1))


_ = torch  # the cases build models on the CPU only through the library
