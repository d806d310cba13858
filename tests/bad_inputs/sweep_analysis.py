"""Bad inputs of dl4nlp.sweep_analysis (the shipped sweep read by notebook 14)."""

import math

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp import sweep_analysis as A
from dl4nlp.sweep import load_sweep

exempt(
    "records that envelope_allocation, isoflop_allocation, isoflop_profiles and parametric_allocation return",
    "dl4nlp.sweep_analysis.Allocation",
    "dl4nlp.sweep_analysis.Profile",
    "dl4nlp.sweep_analysis.Parametric",
)

NOT_RESULTS = [
    ("a list", [], "list"),
    ("a dict without runs", {"recipe": {}}, "dict"),
    ("a path", "data/scaling_sweep.json", "str"),
]
SEEDS = [("not trained", 7, "7"), ("a string", "0", "'0'"), ("True", True, "True"), ("NaN", math.nan, "nan")]


def results_and_seed(fn, **extra):
    """Cases of a function of (results, seed, ...): results not the sweep's, seeds it did not train."""
    results = load_sweep()
    good = dict(results=results, seed=0, **extra)
    yield from vary(fn, good, "results", NOT_RESULTS)
    yield from vary(fn, good, "seed", SEEDS)


@cases("dl4nlp.sweep_analysis.select")
def _():
    results = load_sweep()
    good = dict(results=results)
    yield from vary(A.select, good, "results", NOT_RESULTS)
    yield from vary(A.select, good, "role", [("an unknown name", "bogus", ("bogus", "grid")), ("a number", 1, "1")])
    yield from vary(A.select, good, "schedule", [("an unknown name", "linear", ("linear", "cosine"))])
    yield from vary(A.select, good, "seed", int_variants(0))
    yield from vary(A.select, good, "size", [("a number", 32, "int")])


@cases("dl4nlp.sweep_analysis.seeds")
def _():
    yield from vary(A.seeds, {}, "results", NOT_RESULTS)


@cases("dl4nlp.sweep_analysis.final_loss")
def _():
    yield from vary(
        A.final_loss,
        {},
        "run",
        [("a run id", "1x8-cosine-512", "str"), ("a run without evaluations", {"id": "x", "curve": []}, "dict")],
    )


@cases("dl4nlp.sweep_analysis.loss_at")
def _():
    run = next(iter(load_sweep()["runs"].values()))
    good = dict(run=run, step=run["curve"][0]["step"])
    yield from vary(A.loss_at, good, "run", [("a run id", run["id"], "str"), ("None", None, "None")])
    yield from vary(
        A.loss_at, good, "step", int_variants(0) + [("a step never evaluated", 3, ("3", str(good["step"])))]
    )


@cases("dl4nlp.sweep_analysis.finished_cosine")
def _():
    yield from results_and_seed(A.finished_cosine)


@cases("dl4nlp.sweep_analysis.envelope_allocation")
def _():
    yield from results_and_seed(A.envelope_allocation, n_bootstrap=5)
    good = dict(results=load_sweep(), seed=0, n_bootstrap=5)
    yield from vary(A.envelope_allocation, good, "convention", [("an unknown name", "gpt", ("gpt", "counted"))])
    yield from vary(A.envelope_allocation, good, "n_bootstrap", int_variants(0)[:3])


@cases("dl4nlp.sweep_analysis.isoflop_profiles")
def _():
    yield from results_and_seed(A.isoflop_profiles)
    yield from vary(A.isoflop_profiles, dict(results=load_sweep(), seed=0), "min_runs", int_variants(3))
    yield from vary(A.isoflop_profiles, dict(results=load_sweep(), seed=0), "min_steps", int_variants(0)[:3])


@cases("dl4nlp.sweep_analysis.isoflop_interval")
def _():
    profiles = A.isoflop_profiles(load_sweep(), 0)
    good = dict(profiles=profiles, n_bootstrap=5)
    yield from vary(
        A.isoflop_interval,
        good,
        "profiles",
        [
            ("the sweep's results", load_sweep(), "dict"),
            ("a list of dicts", [{"level": 1.0}], "list"),
            ("fewer than three", profiles[:2], ("3", "2")),
        ],
    )
    yield from vary(A.isoflop_interval, good, "n_bootstrap", int_variants(1)[:3])
    yield from vary(A.isoflop_interval, good, "rng_seed", [("a string", "0", "'0'"), ("-1", -1, "-1")])


@cases("dl4nlp.sweep_analysis.isoflop_allocation")
def _():
    profiles = A.isoflop_profiles(load_sweep(), 0)
    good = dict(profiles=profiles, n_bootstrap=5)
    yield from vary(
        A.isoflop_allocation,
        good,
        "profiles",
        [
            ("the sweep's results", load_sweep(), "dict"),
            ("a list of dicts", [{"level": 1.0}], "list"),
            ("fewer than three", profiles[:2], ("3", "2")),
        ],
    )
    yield from vary(A.isoflop_allocation, good, "n_bootstrap", int_variants(0)[:3])


@cases("dl4nlp.sweep_analysis.parametric_allocation")
def _():
    yield from results_and_seed(A.parametric_allocation, n_bootstrap=2)
    good = dict(results=load_sweep(), seed=0, n_bootstrap=2)
    yield from vary(A.parametric_allocation, good, "convention", [("an unknown name", "gpt", ("gpt", "counted"))])
    yield from vary(A.parametric_allocation, good, "n_bootstrap", int_variants(1)[:3])
    yield from vary(A.parametric_allocation, good, "rng_seed", [("a string", "0", "'0'"), ("-1", -1, "-1")])


@cases("dl4nlp.sweep_analysis.data_slopes")
def _():
    yield from results_and_seed(A.data_slopes)


@cases("dl4nlp.sweep_analysis.fixed_data")
def _():
    yield from results_and_seed(A.fixed_data)
    yield from vary(A.fixed_data, dict(results=load_sweep(), seed=0), "shapes", [("a string", "yes", "str")])


@cases("dl4nlp.sweep_analysis.schedule_pairs")
def _():
    yield from results_and_seed(A.schedule_pairs)
