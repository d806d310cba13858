"""Bad inputs of the scaling sweep's recipe modules (dl4nlp.recipes.scaling_run, scaling_spec, scaling_sweep).

Every case fails before any training starts.
"""

import json
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
            ("not a checkpoint", folder / "junk.pt", "junk.pt"),
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


# --- dl4nlp.recipes.scaling_spec ------------------------------------------------------------------
from dl4nlp.recipes import scaling_spec as P  # noqa: E402
from dl4nlp.recipes import scaling_sweep as W  # noqa: E402

exempt(
    "takes no arguments (the runs' shared settings, the spec's hash)",
    "dl4nlp.recipes.scaling_spec.SweepSpec.settings",
    "dl4nlp.recipes.scaling_spec.SweepSpec.key",
)
exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.scaling_sweep.main",
    "dl4nlp.recipes.scaling_sweep.parser",
)
exempt("takes no arguments (writes the sweep's state)", "dl4nlp.recipes.scaling_sweep.Sweep.save")


@cases("dl4nlp.recipes.scaling_spec.SweepSpec")
def _():
    S = P.SweepSpec
    yield from vary(
        S,
        {},
        "sizes",
        [("empty", (), "()"), ("a bad size", ("1x8", "2-32"), "'2-32'"), ("a repeat", ("1x8", "1x8"), "1x8")],
    )
    yield from vary(S, {}, "sizes", [("one string", "1x8", "str")])
    yield from vary(
        S,
        {},
        "compute_levels",
        [("zero", (0.0, 1e11), "0.0"), ("decreasing", (2e11, 1e11), "200000000000.0"), ("a number", 1e11, "float")],
    )
    yield from vary(S, {}, "min_steps", int_variants(1))
    yield from vary(S, {}, "max_steps", [("below min_steps", 64, "64")])
    yield from vary(S, {}, "lr_base", [("zero", 0.0, "0.0"), ("a string", "1e-3", "str"), ("NaN", math.nan, "nan")])
    yield from vary(S, {}, "lr_factor", [("one", 1.0, "1.0"), ("a string", "2", "str")])
    yield from vary(S, {}, "lr_backoff", int_variants(0))
    yield from vary(S, {}, "lr_bracket", int_variants(1))
    yield from vary(S, {}, "constant_sizes", [("not among sizes", ("9x8",), "9x8"), ("a bad size", ("9x9",), "'9x9'")])
    yield from vary(S, {}, "shape_reference", [("not among sizes", "9x8", "'9x8'")])
    yield from vary(S, {}, "second_seed", [("equal to seed", 0, "0"), ("a string", "1", "'1'")])
    yield from vary(
        S,
        {},
        "min_lr_ratio",
        [("one", 1.0, "1.0"), ("a string", "0.1", "str")],
    )
    yield from vary(
        S, {}, "betas", [("one number", 0.9, "float"), ("three", (0.9, 0.95, 0.99), "0.99"), ("one", (0.9, 1.0), "1.0")]
    )
    yield from vary(S, {}, "clip_norm", [("zero", 0.0, "0.0")])
    yield from vary(S, {}, "corpus", [("an unknown file", "missing.txt", ("missing.txt", "tinyshakespeare.txt"))])
    yield from vary(S, {}, "heldout_fraction", [("one", 1.0, "1.0"), ("NaN", math.nan, "nan")])
    yield from vary(
        S, {}, "emergence_start", int_variants(0)[:2] + [("too late for the context", 60, ("context", "64"))]
    )
    yield from vary(S, {}, "seed", int_variants(0)[:3])


@cases("dl4nlp.recipes.scaling_spec.SweepSpec.lr")
def _():
    yield from vary(
        P.SweepSpec().lr, {}, "index", [("a float", 2.5, "2.5"), ("a string", "3", "'3'"), ("True", True, "True")]
    )


@cases("dl4nlp.recipes.scaling_spec.SweepSpec.lr_index")
def _():
    yield from vary(
        P.SweepSpec().lr_index,
        {},
        "lr",
        [("zero", 0.0, "0.0"), ("negative", -0.01, "-0.01"), ("a string", "0.01", "str")],
    )


@cases("dl4nlp.recipes.scaling_spec.SweepSpec.budgets")
def _():
    budgets = P.SweepSpec().budgets
    good = dict(flops_per_token=10_000)
    yield from vary(budgets, good, "flops_per_token", int_variants(1))
    yield from vary(
        budgets, good, "levels", [("one number", 1e11, "float"), ("a zero", (0.0,), "0.0"), ("a string", "1e11", "str")]
    )


@cases("dl4nlp.recipes.scaling_spec.spec_dict")
def _():
    yield from vary(P.spec_dict, {}, "spec", [("a dict", {"sizes": ["1x8"]}, "dict")])


@cases("dl4nlp.recipes.scaling_spec.default_workdir")
def _():
    yield from vary(P.default_workdir, {}, "spec", [("a dict", {"sizes": ["1x8"]}, "dict"), ("None", None, "None")])


@cases("dl4nlp.recipes.scaling_spec.trunk_and_branches")
def _():
    good = dict(spec=P.SweepSpec(), size="1x8", budgets=[16, 32], lr=0.01, seed=0)
    yield from vary(P.trunk_and_branches, good, "spec", [("a dict", {}, "dict")])
    yield from vary(P.trunk_and_branches, good, "size", SIZES)
    yield from vary(
        P.trunk_and_branches,
        good,
        "budgets",
        [("one number", 16, "int"), ("a zero", [0, 16], "0"), ("a float", [2.5], "2.5")],
    )
    yield from vary(P.trunk_and_branches, good, "lr", [("zero", 0.0, "0.0"), ("a string", "0.01", "'0.01'")])
    yield from vary(P.trunk_and_branches, good, "seed", int_variants(0)[:3])


@cases("dl4nlp.recipes.scaling_spec.check_unique")
def _():
    run = R.Run(**GOOD_RUN)
    yield from vary(
        P.check_unique,
        {},
        "runs",
        [
            ("one run", run, "Run"),
            ("run ids", [run.id], "str"),
            ("two runs of one id", [run, R.Run(**GOOD_RUN, extra_evals=(3,))], run.id),
        ],
    )


# --- dl4nlp.recipes.scaling_sweep -----------------------------------------------------------------
TINY_SPEC = dict(sizes=("1x8", "1x16"), compute_levels=(2.6e7, 5.2e7), second_seed_levels=(5.2e7,), min_steps=8,
                 max_steps=60, lr_search_steps=8, constant_sizes=("1x8",), shapes=(), eval_windows=4,
                 final_windows=4, max_k=2, emergence_start=4, context=16, batch_size=4)  # fmt: skip


def a_sweep():
    return W.Sweep(P.SweepSpec(**TINY_SPEC), scratch(), "cpu")


@cases("dl4nlp.recipes.scaling_sweep.Sweep")
def _():
    good = dict(spec=P.SweepSpec(**TINY_SPEC), workdir=scratch(), device="cpu")
    yield from vary(W.Sweep, good, "spec", [("a dict", dict(TINY_SPEC), "dict")])
    yield from vary(W.Sweep, good, "workdir", [("a number", 3, "int"), ("None", None, "None")])
    yield from vary(W.Sweep, good, "device", [("an unknown name", "gpu0", "'gpu0'")])
    yield from vary(W.Sweep, good, "command", [("a list", ["python", "-m"], "list")])
    yield from vary(W.Sweep, good, "progress", [("a string", "yes", "str")])
    yield from vary(W.Sweep, good, "reuse", [("a number", 3, "int"), ("a missing file", "missing.json", "missing")])


@cases("dl4nlp.recipes.scaling_sweep.reusable_runs")
def _():
    other = scratch() / "other.json"
    state = a_sweep().state
    state["recipe"]["spec"] = {**state["recipe"]["spec"], "context": 20}
    other.write_text(json.dumps(state), encoding="utf-8")
    good = dict(spec=P.SweepSpec(**TINY_SPEC), path=other)
    yield from vary(W.reusable_runs, good, "spec", [("a dict", dict(TINY_SPEC), "dict")])
    yield from vary(
        W.reusable_runs, good, "path", [("a number", 3, "int"), ("another sweep's settings", other, "other")]
    )


@cases("dl4nlp.recipes.scaling_sweep.Sweep.ensure")
def _():
    sweep = a_sweep()
    good = dict(run=R.Run(**GOOD_RUN), role="grid", budget=R.Budget())
    yield from vary(sweep.ensure, good, "run", [("a run id", R.Run(**GOOD_RUN).id, "str")])
    yield from vary(sweep.ensure, good, "role", [("a number", 1, "int"), ("empty", "", "''")])
    yield from vary(sweep.ensure, good, "budget", [("a number", 10, "int"), ("None", None, "None")])
    yield from vary(sweep.ensure, good, "keep_model", [("a string", "yes", "str")])


@cases("dl4nlp.recipes.scaling_sweep.Sweep.search")
def _():
    sweep = a_sweep()
    good = dict(size="1x8", start=5, budget=R.Budget())
    yield from vary(sweep.search, good, "size", [("not in the spec", "2x32", ("'2x32'", "1x8")), ("a number", 8, "8")])
    yield from vary(
        sweep.search, good, "start", [("a float", 2.5, "2.5"), ("True", True, "True"), ("a string", "3", "'3'")]
    )
    yield from vary(sweep.search, good, "budget", [("a number", 10, "int")])


@cases("dl4nlp.recipes.scaling_sweep.Sweep.run_all")
def _():
    yield from vary(a_sweep().run_all, {}, "budget", [("a number", 10, "int"), ("None", None, "None")])


STATES = [("a list", [], "list"), ("a dict without runs", {"recipe": {}}, "dict"), ("a path", "state.json", "str")]


@cases("dl4nlp.recipes.scaling_sweep.shipped_models")
def _():
    good = dict(state=a_sweep().state, workdir=scratch())
    yield from vary(W.shipped_models, good, "state", STATES)
    yield from vary(W.shipped_models, good, "workdir", [("a number", 3, "int")])


@cases("dl4nlp.recipes.scaling_sweep.write_outputs")
def _():
    folder = scratch()
    good = dict(
        state=a_sweep().state, workdir=folder, out=folder / "out.json", overwrite=False, started=0.0, device="cpu"
    )
    yield from vary(W.write_outputs, good, "state", STATES)
    yield from vary(W.write_outputs, good, "workdir", [("a number", 3, "int")])
    yield from vary(W.write_outputs, good, "out", [("a number", 3, "int"), ("empty", "", "''")])
    yield from vary(W.write_outputs, good, "overwrite", [("a string", "yes", "str")])
    yield from vary(W.write_outputs, good, "started", [("a string", "now", "str"), ("NaN", math.nan, "nan")])


@cases("dl4nlp.recipes.scaling_sweep.models_path")
def _():
    yield from vary(W.models_path, {}, "out", [("a number", 3, "int"), ("None", None, "None"), ("empty", "", "''")])


@cases("dl4nlp.recipes.scaling_sweep.estimate")
def _():
    good = dict(spec=P.SweepSpec(**TINY_SPEC))
    yield from vary(W.estimate, good, "spec", [("a dict", dict(TINY_SPEC), "dict")])
    yield from vary(
        W.estimate,
        good,
        "searches_per_size",
        [("negative", -1.0, "-1.0"), ("a string", "4", "str"), ("NaN", math.nan, "nan")],
    )
