"""Reading the shipped scaling sweep: select runs, and apply Hoffmann et al.'s three methods to one seed.

Every analysis takes the sweep's results (``dl4nlp.sweep.load_sweep()``) and a
seed, uses finished runs only (a run's final held-out loss, never a point in the
middle of its schedule), and counts parameters and compute by one of three
conventions (``CONVENTIONS``):

- ``'counted'``: total parameters, and the training FLOPs the sweep counted
  (three forward passes: linear layers, dense attention, the output layer);
- ``'chinchilla'``: total parameters N_T and C = 6 N_T D (Hoffmann et al. 2022);
- ``'kaplan'``: non-embedding parameters N and C = 6 N D (Kaplan et al. 2020).

>>> from dl4nlp.sweep import load_sweep
>>> results = load_sweep()  # the shipped data/scaling_sweep.json
>>> seeds(results), len(finished_cosine(results, seed=0))
([0, 1], 43)
>>> method_1 = envelope_allocation(results, seed=0, n_bootstrap=10)
>>> round(method_1.a.value, 2), round(method_1.b.value, 2)  # N_opt ∝ C^a, D_opt ∝ C^b
(0.61, 0.39)

Taught in notebook 14.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from dl4nlp._checks import check_choice, check_int, check_type, given
from dl4nlp.compute_optimal import (
    IsoFLOPMinimum,
    ParametricFit,
    Slope,
    envelope,
    fit_parametric,
    fit_slope,
    isoflop_minimum,
    local_slopes,
)
from dl4nlp.sweep import SCHEDULES

ROLES = ("lr_search", "grid", "schedules", "fixed_data")
CONVENTIONS = {
    "counted": ("total_params", "flops"),
    "chinchilla": ("total_params", "total_param_flops"),
    "kaplan": ("non_embedding_params", "kaplan_flops"),
}


def _convention(name: str) -> tuple[str, str]:
    return CONVENTIONS[check_choice("convention", name, CONVENTIONS)]


def _results(results) -> dict:
    """The sweep's results as ``dl4nlp.sweep.load_sweep()`` returns them: a dict with 'runs' and 'recipe'."""
    expected = "the sweep's results (dl4nlp.sweep.load_sweep(): a dict with 'runs' and 'recipe')"
    if not isinstance(results, dict):
        raise TypeError(f"results must be {expected}; got {given(results)}")
    if not isinstance(results.get("runs"), dict) or "recipe" not in results:
        raise ValueError(f"results must be {expected}; found no 'runs' or 'recipe' in a dict with keys {list(results)}")
    return results


def _seed(results: dict, seed) -> int:
    """One of the seeds the sweep trained."""
    trained = seeds(results)
    if isinstance(seed, bool) or seed not in trained:
        raise ValueError(f"seed must be one of the sweep's seeds {trained}; got {seed!r}")
    return int(seed)


def _run(run) -> dict:
    """One run of the sweep's results, with its evaluations ('curve')."""
    if not isinstance(run, dict) or not isinstance(run.get("curve"), list) or not run["curve"]:
        raise TypeError(
            f"run must be one run of the sweep's results (a dict with a non-empty 'curve'); got {given(run)}"
        )
    return run


def select(
    results: dict,
    *,
    role: Optional[str] = None,
    seed: Optional[int] = None,
    size: Optional[str] = None,
    schedule: Optional[str] = None,
) -> list[dict]:
    """The runs with this role ('lr_search', 'grid', 'schedules', 'fixed_data'), seed, size and schedule (each
    optional) that did not diverge, sorted by non-embedding size, then size name, then steps."""
    _results(results)
    if role is not None and role not in ROLES:
        raise ValueError(f"role must be one of {ROLES} or None; got {role!r}")
    if schedule is not None and schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES} or None; got {schedule!r}")
    if seed is not None:
        check_int("seed", seed, low=0)
    if size is not None and not isinstance(size, str):
        raise TypeError(f"size must be a size name (a string) or None; got {given(size)}")
    out = [
        r
        for r in results["runs"].values()
        if not r["diverged"]
        and (role is None or role in r["roles"])
        and (seed is None or r["seed"] == seed)
        and (size is None or r["size"] == size)
        and (schedule is None or r["schedule"] == schedule)
    ]
    return sorted(out, key=lambda r: (r["non_embedding_params"], r["size"], r["steps"]))


def seeds(results: dict) -> list[int]:
    """The seeds the sweep trained (first the main one)."""
    spec = _results(results)["recipe"]["spec"]
    return [spec["seed"]] + ([spec["second_seed"]] if spec.get("second_seed") is not None else [])


def final_loss(run: dict) -> float:
    """Held-out loss (nats per character) at the end of a finished run."""
    return float(_run(run)["curve"][-1]["heldout_loss"])


def loss_at(run: dict, step: int) -> float:
    """Held-out loss of a run at one of its evaluation points."""
    _run(run)
    check_int("step", step, low=0)
    for point in run["curve"]:
        if point["step"] == step:
            return float(point["heldout_loss"])
    points = [p["step"] for p in run["curve"]]
    raise ValueError(f"run {run['id']} was not evaluated at step {step}; its points: {points}")


def finished_cosine(results: dict, seed: int) -> list[dict]:
    """Every finished cosine run of ``seed`` at its size's chosen learning rate (the grid and the fixed-data
    runs), the shapes of the deeper-versus-wider comparison excluded."""
    seed = _seed(results, seed)
    sizes = set(results["recipe"]["spec"]["sizes"])
    runs = {r["id"]: r for role in ("grid", "fixed_data") for r in select(results, role=role, seed=seed)}
    if not runs:
        raise ValueError(f"the sweep has no finished cosine runs of seed {seed!r}; its seeds: {seeds(results)}")
    return sorted((r for r in runs.values() if r["size"] in sizes), key=lambda r: (r["flops"], r["id"]))


# --- method 1: the envelope of finished runs ----------------------------------------
@dataclass(frozen=True)
class Allocation:
    """N_opt ∝ C^a and D_opt ∝ C^b, fitted to the compute-optimal points of one method."""

    compute: np.ndarray
    n_opt: np.ndarray
    d_opt: np.ndarray
    loss: np.ndarray  # the loss at each compute-optimal point
    a: Slope
    b: Slope


def envelope_allocation(results: dict, seed: int, convention: str = "counted", n_bootstrap: int = 1000) -> Allocation:
    """Method 1: the finished runs no cheaper run beats; N_opt(C) and D_opt(C) are their sizes and tokens."""
    n_key, c_key = _convention(convention)
    runs = finished_cosine(results, seed)
    front = [runs[i] for i in envelope([r[c_key] for r in runs], [final_loss(r) for r in runs])]
    c = np.array([r[c_key] for r in front], dtype=float)
    n = np.array([r[n_key] for r in front], dtype=float)
    d = np.array([r["tokens"] for r in front], dtype=float)
    loss = np.array([final_loss(r) for r in front])
    return Allocation(c, n, d, loss, fit_slope(c, n, n_bootstrap), fit_slope(c, d, n_bootstrap))


# --- method 2: IsoFLOP profiles -------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """The grid runs of one compute level and the parabolas through them (in log N and in log D)."""

    level: float
    runs: list
    n: np.ndarray
    d: np.ndarray
    loss: np.ndarray
    by_n: IsoFLOPMinimum
    by_d: IsoFLOPMinimum


def isoflop_profiles(results: dict, seed: int, min_runs: int = 4, min_steps: int = 0) -> list[Profile]:
    """Method 2: the grid runs of ``seed`` by compute level (counted FLOPs, total parameters), with a parabola
    of loss against log N and against log D through each level with at least ``min_runs`` sizes.

    ``min_steps`` keeps only the runs of at least that many steps (a sensitivity check: short runs are
    where the schedule matters most). A level whose runs do not curve upwards is left out.
    """
    seed = _seed(results, seed)
    min_runs = check_int("min_runs", min_runs, low=3)  # a parabola has three parameters
    min_steps = check_int("min_steps", min_steps, low=0)
    levels: dict[float, list] = {}
    for run in select(results, role="grid", seed=seed):
        if run["steps"] >= min_steps:
            levels.setdefault(run["level"], []).append(run)
    out = []
    for level in sorted(levels):
        runs = levels[level]
        if len(runs) < min_runs:
            continue
        n = np.array([r["total_params"] for r in runs], dtype=float)
        d = np.array([r["tokens"] for r in runs], dtype=float)
        loss = np.array([final_loss(r) for r in runs])
        if np.polyfit(np.log(n), loss, 2)[0] <= 0:
            continue  # no minimum: the parabola opens downwards
        out.append(Profile(level, runs, n, d, loss, isoflop_minimum(n, loss), isoflop_minimum(d, loss)))
    return out


def isoflop_interval(profiles: list[Profile], n_bootstrap: int = 1000, rng_seed: int = 0) -> tuple[tuple, float]:
    """A 95 % interval of method 2's exponent a that carries each parabola's own uncertainty.

    Two levels of resampling: within every profile whose minimum lies inside its sizes, the parabola's
    residuals are resampled (scaled by sqrt(n / (n - 3)) for the three fitted coefficients) and the vertex
    refitted; then the profiles themselves are resampled and the slope of log N_opt against log C refitted.
    Returns the (2.5 %, 97.5 %) percentiles and the share of resamples in which some parabola no longer
    curved upwards (those have no vertex and are dropped).
    """
    if not isinstance(profiles, (list, tuple)) or not all(isinstance(p, Profile) for p in profiles):
        raise TypeError(f"profiles must be a list of Profile (from isoflop_profiles); got {given(profiles)}")
    n_bootstrap = check_int("n_bootstrap", n_bootstrap, low=1)
    rng_seed = check_int("rng_seed", rng_seed, low=0)
    inside = [p for p in profiles if p.by_n.inside and p.by_d.inside]
    if len(inside) < 3:
        raise ValueError(
            f"profiles must hold at least 3 with their minimum inside; got {len(inside)} of {len(profiles)}"
        )
    rng = np.random.default_rng(rng_seed)
    log_c = np.log([p.level for p in inside])
    fits = []
    for p in inside:
        x = np.log(p.n)
        fitted = np.polyval(np.polyfit(x, p.loss, 2), x)
        fits.append((x, fitted, (p.loss - fitted) * math.sqrt(len(x) / max(len(x) - 3, 1))))
    draws, failed = [], 0
    for _ in range(n_bootstrap):
        log_n = []
        for x, fitted, residuals in fits:
            c2, c1, _ = np.polyfit(x, fitted + rng.choice(residuals, len(residuals)), 2)
            if c2 <= 0:
                break
            log_n.append(-c1 / (2 * c2))
        else:
            pick = rng.integers(0, len(log_c), len(log_c))
            if np.ptp(log_c[pick]) > 0:
                draws.append(np.polyfit(log_c[pick], np.array(log_n)[pick], 1)[0])
            continue
        failed += 1
    if not draws:
        return (math.nan, math.nan), failed / n_bootstrap
    return (float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))), failed / n_bootstrap


def isoflop_allocation(profiles: list[Profile], n_bootstrap: int = 1000) -> Allocation:
    """N_opt ∝ C^a and D_opt ∝ C^b through the vertices of the profiles whose minimum lies inside their sizes."""
    if not isinstance(profiles, (list, tuple)) or not all(isinstance(p, Profile) for p in profiles):
        raise TypeError(f"profiles must be a list of Profile (from isoflop_profiles); got {given(profiles)}")
    inside = [p for p in profiles if p.by_n.inside and p.by_d.inside]
    if len(inside) < 3:
        raise ValueError(
            f"profiles must hold at least 3 with their minimum inside; got {len(inside)} of {len(profiles)}"
        )
    c = np.array([p.level for p in inside])
    n = np.array([p.by_n.n_opt for p in inside])
    d = np.array([p.by_d.n_opt for p in inside])
    loss = np.array([p.by_n.loss for p in inside])
    return Allocation(c, n, d, loss, fit_slope(c, n, n_bootstrap), fit_slope(c, d, n_bootstrap))


# --- method 3: the parametric loss -----------------------------------------------------
@dataclass(frozen=True)
class Parametric:
    """L(N, D) = E + A/N^alpha + B/D^beta over the finished cosine runs of one seed, with bootstrap intervals."""

    fit: ParametricFit
    a: float
    b: float
    intervals: dict  # name -> (2.5 %, 97.5 %) of E, alpha, beta, a over bootstrap resamples of the runs
    n_points: int


def parametric_allocation(
    results: dict, seed: int, convention: str = "counted", n_bootstrap: int = 200, rng_seed: int = 0
) -> Parametric:
    """Method 3 with a bootstrap over runs (each resample refitted from the full fit's parameters)."""
    n_key, _ = _convention(convention)
    n_bootstrap = check_int("n_bootstrap", n_bootstrap, low=1)
    rng_seed = check_int("rng_seed", rng_seed, low=0)
    runs = finished_cosine(results, seed)
    n = np.array([r[n_key] for r in runs], dtype=float)
    d = np.array([r["tokens"] for r in runs], dtype=float)
    loss = np.array([final_loss(r) for r in runs])
    fit = fit_parametric(n, d, loss)
    rng = np.random.default_rng(rng_seed)
    draws = []
    for _ in range(n_bootstrap):
        pick = rng.integers(0, len(runs), len(runs))
        if len(set(n[pick])) < 2 or len(set(d[pick])) < 2:
            continue
        f = fit_parametric(n[pick], d[pick], loss[pick], start=fit)
        draws.append((f.E, f.alpha, f.beta, f.allocation()[0]))
    draws = np.array(draws)
    names = ("E", "alpha", "beta", "a")
    intervals = {
        k: (float(np.percentile(draws[:, i], 2.5)), float(np.percentile(draws[:, i], 97.5)))
        for i, k in enumerate(names)
    }
    a, b = fit.allocation()
    return Parametric(fit, a, b, intervals, len(runs))


# --- the other readings ------------------------------------------------------------
def data_slopes(results: dict, seed: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """For each size with at least three grid budgets: tokens D, final loss L, and the local slopes
    −d log L / d log D between neighbouring budgets."""
    seed = _seed(_results(results), seed)
    out = {}
    for size in results["recipe"]["spec"]["sizes"]:
        runs = select(results, role="grid", seed=seed, size=size)
        if len(runs) >= 3:
            d = np.array([r["tokens"] for r in runs], dtype=float)
            loss = np.array([final_loss(r) for r in runs])
            out[size] = (d, loss, local_slopes(d, loss))
    return out


def fixed_data(results: dict, seed: int, shapes: bool = False) -> list[dict]:
    """The fixed-data runs of ``seed`` (every size, or with ``shapes`` every shape and its reference), all at the
    same number of steps and at their chosen rates."""
    seed = _seed(_results(results), seed)
    check_type("shapes", shapes, bool, "True or False")
    spec = results["recipe"]["spec"]
    wanted = set(spec["shapes"]) | {spec["shape_reference"]} if shapes else set(spec["sizes"])
    return [r for r in select(results, role="fixed_data", seed=seed) if r["size"] in wanted]


def schedule_pairs(results: dict, seed: int) -> list[dict]:
    """For each size trained with all three schedules and each of its budgets: the finished cosine and
    warmup-stable-decay losses, the constant-rate run at that step, and the longest cosine run at that step
    (NaN where that step is not among its evaluations, or is the longest run's own end)."""
    seed = _seed(_results(results), seed)
    out = []
    for trunk in select(results, role="schedules", seed=seed, schedule="constant"):
        cosine = {r["steps"]: r for r in select(results, role="grid", seed=seed, size=trunk["size"])}
        wsd = {r["steps"]: r for r in select(results, role="schedules", seed=seed, size=trunk["size"], schedule="wsd")}
        longest = cosine[max(cosine)]
        for steps in sorted(set(cosine) & set(wsd)):
            mid = {p["step"]: p["heldout_loss"] for p in longest["curve"]}.get(steps, math.nan)
            mid = math.nan if steps == longest["steps"] else mid  # the longest run's own end is no comparison
            out.append(
                {
                    "size": trunk["size"],
                    "steps": steps,
                    "cosine": final_loss(cosine[steps]),
                    "wsd": final_loss(wsd[steps]),
                    "constant": loss_at(trunk, steps),
                    "longest_cosine_at_steps": mid,
                }
            )
    return out
