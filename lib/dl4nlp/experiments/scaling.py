"""Chapter 14's experiments: a live schedule race, the claims about the shipped sweep per seed, and figures.

``schedule_race(seed)`` trains one small model three ways with the same initial
weights and batches (cosine, constant, and warmup-stable-decay branched off the
constant run) and returns their final held-out losses: the live version of the
sweep's schedule comparison. ``sweep_claims(results, seed)`` computes, from the
shipped sweep (``dl4nlp.sweep.load_sweep()``), every number the notebook's prose
interprets, for one of the sweep's two seeds; the notebook asserts them on seed 0
and ``tests/claims/test_14_scaling.py`` on both. Helpers select runs from the
results with ``dl4nlp.sweep_analysis``.
"""

from __future__ import annotations

import functools
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from dl4nlp._checks import check_int, check_number, check_type, given
from dl4nlp.compute_optimal import aicc, envelope, fit_slope, loo_rmse
from dl4nlp.data import load_text
from dl4nlp.recipes.scaling_run import Run, train_run
from dl4nlp.recipes.scaling_spec import SweepSpec, trunk_and_branches
from dl4nlp.scaling import fit_power_law
from dl4nlp.sweep import CharData, parse_size
from dl4nlp.sweep_analysis import (
    data_slopes,
    envelope_allocation,
    final_loss,
    finished_cosine,
    fixed_data,
    isoflop_allocation,
    isoflop_profiles,
    parametric_allocation,
    schedule_pairs,
)

# ---- thresholds of the claims (shared by notebook and tests) --------------------------------
SCHEDULE_MIN_STEPS = 900  # from this many steps (1.8M characters) on, the schedules rank as Hoffmann et al. saw
FLAT_SIZES = ("1x8",)  # L(D) flat from the first budget: every local slope under ...
FLAT_SLOPE = 0.025  # ... this
BENDING_SIZES = ("1x16", "2x16", "2x24", "2x32")  # L(D) bends: the last local slope is under ...
BENDING_RATIO = 0.5  # ... this fraction of the steepest (first seed: the second has three budgets per size)
STEADY_SIZES = ("3x40", "3x64")  # L(D) still straight: the last local slope is over ...
STEADY_RATIO = 0.7  # ... this fraction of the steepest
ISOFLOP_EXCLUDES = 0.5  # the IsoFLOP interval of a excludes Hoffmann et al.'s 0.5 ...
ISOFLOP_INCLUDES = 0.73  # ... and includes Kaplan et al.'s 0.73, on both seeds
SHAPE_SPREAD_MIN = 0.05  # the worst shape ends more than this fraction above the best, ...
SHAPE_SPREAD_MAX = 0.10  # ... and less than this
NEAR_SHAPES = ("3x26", "4x22")  # on both seeds these end within SHAPE_NEAR of the best shape ...
SHAPE_NEAR = 0.03
DEEP_SHAPES = ("6x18", "8x16")  # ... and these more than SHAPE_FAR above it
SHAPE_FAR = 0.05
EMERGENCE_K = 8  # exact match of this many characters: the all-or-nothing metric of the widget
EMERGENCE_RISE = 20  # along the envelope, whole-word completions rise more than this factor ...
SMOOTH_RISE = 3  # ... while the letters of the same completions rise less than this factor,
SMOOTH_R2 = 0.9  # and a straight line in log C explains more than this share of their variance
CONVENTION_NAMES = ("counted", "chinchilla", "kaplan")


# ---- the live schedule race -----------------------------------------------------------------
@dataclass(frozen=True)
class ScheduleRace:
    """Final held-out losses of one size trained three ways for ``steps`` steps from the same start."""

    seed: int
    size: str
    steps: int
    lr: float
    cosine: float
    constant: float
    wsd: float
    curves: dict  # schedule -> [(step, held-out loss), ...]


def _live_setting(seed: int, size: str, steps: int, lr: float) -> tuple[SweepSpec, CharData]:
    """The sweep's spec and data for a live run of ``size`` (arguments checked): what the sweep's own runs used."""
    check_int("seed", seed, low=0)
    check_type("size", size, str, "a size name 'LAYERSxWIDTH' such as '1x8'")
    parse_size(size)
    check_int("steps", steps)
    check_number("lr", lr, 0, low_open=True)
    spec = SweepSpec(seed=seed, second_seed=None if seed != 1 else 2, lr_search_steps=steps)
    data = CharData(load_text(spec.corpus), spec.heldout_fraction)
    return spec, data


def schedule_race(seed: int, size: str = "1x8", steps: int = 512, lr: float = 0.0452548) -> ScheduleRace:
    """Train ``size`` for ``steps`` steps with a cosine, a constant and a warmup-stable-decay schedule (the last
    branched off the constant run), same initial weights and batches for the three; the sweep's settings."""
    spec, data = _live_setting(seed, size, steps, lr)
    settings = spec.settings()
    device = torch.device("cpu")
    with tempfile.TemporaryDirectory() as folder:
        trunk, wsd = trunk_and_branches(spec, size, [steps], lr, seed)
        records = {
            "cosine": train_run(Run(size, "cosine", steps, lr, seed), data, settings, Path(folder), device),
            "constant": train_run(trunk, data, settings, Path(folder), device),
        }
        records["wsd"] = train_run(wsd, data, settings, Path(folder), device)
    curves = {k: [(p["step"], p["heldout_loss"]) for p in r["curve"]] for k, r in records.items()}
    return ScheduleRace(
        seed=seed,
        size=size,
        steps=steps,
        lr=lr,
        cosine=final_loss(records["cosine"]),
        constant=final_loss(records["constant"]),
        wsd=final_loss(records["wsd"]),
        curves=curves,
    )


def retrace_run(seed: int, size: str = "1x8", steps: int = 512, lr: float = 0.0452548) -> dict:
    """Train one cosine run of the sweep again (``size``, ``steps``, peak ``lr``, ``seed``) and return its record:
    ``curve`` (held-out loss along the way) and ``final`` as in ``data/scaling_sweep.json``."""
    spec, data = _live_setting(seed, size, steps, lr)
    with tempfile.TemporaryDirectory() as folder:
        return train_run(Run(size, "cosine", steps, lr, seed), data, spec.settings(), Path(folder), torch.device("cpu"))


# ---- the claims about the shipped sweep, for one seed -----------------------------------------
@dataclass(frozen=True)
class SweepClaims:
    """Every number chapter 14's prose interprets, computed from the shipped sweep for one seed."""

    seed: int
    schedules: tuple  # dicts: size, steps, cosine, wsd, constant, longest_cosine_at_steps
    fixed_sizes: tuple
    fixed_n: np.ndarray  # total parameters of the fixed-data runs
    fixed_loss: np.ndarray
    aicc_plain: float
    aicc_floor: float
    loo_plain: float
    loo_floor: float
    floor: float  # E of the fit with a floor
    floor_interval: tuple  # its 95 % bootstrap interval (residual bootstrap of the power law)
    iso_levels: np.ndarray
    iso_n_opt: np.ndarray
    iso_inside: np.ndarray
    a_isoflop: object  # Slope, or None with fewer than 3 profiles
    a_envelope: dict  # convention -> Slope
    parametric: object  # sweep_analysis.Parametric
    shapes: tuple  # (name, n_layers, d_model, non-embedding parameters, loss) at the fixed budget
    slopes: dict  # size -> local slopes -dlog L/dlog D between neighbouring grid budgets (sizes with >= 3)
    frontier_flops: np.ndarray  # the envelope's finished runs (no cheaper run is better), by compute
    char_accuracy: np.ndarray  # their greedy next-character accuracy (continuous metric)
    exact: np.ndarray  # exact match of the next EMERGENCE_K characters (all-or-nothing)
    completion_exact: np.ndarray  # words completed entirely right from their first letter (all-or-nothing)
    completion_chars: np.ndarray  # letters of those completions right (continuous, the same predictions)


def _floor_fits(n: np.ndarray, loss: np.ndarray):
    plain = fit_power_law(n, loss, n_bootstrap=0)
    floor = fit_power_law(n, loss, irreducible=True, n_bootstrap=200)
    return plain, floor


def sweep_claims(results: dict, seed: int, n_bootstrap: int = 200) -> SweepClaims:
    """The claims' numbers for ``seed`` (the sweep's first or second seed)."""
    if not isinstance(results, dict) or not isinstance(results.get("runs"), dict):
        raise TypeError(f"results must be the sweep's results (dl4nlp.sweep.load_sweep()); got {given(results)}")
    check_int("seed", seed, low=0)
    check_int("n_bootstrap", n_bootstrap)
    trained = sorted({r["seed"] for r in results["runs"].values()})
    if seed not in trained:
        raise ValueError(f"seed must be one of the sweep's seeds {trained}; the sweep has no runs of seed {seed!r}")
    fixed = fixed_data(results, seed)
    n = np.array([r["total_params"] for r in fixed], dtype=float)
    loss = np.array([final_loss(r) for r in fixed])
    plain, floor = _floor_fits(n, loss)
    loo_plain = loo_rmse(lambda x, y: fit_power_law(x, y, n_bootstrap=0), n, loss)
    loo_floor = loo_rmse(lambda x, y: fit_power_law(x, y, irreducible=True, n_bootstrap=0), n, loss)
    profiles = isoflop_profiles(results, seed)
    inside = [p for p in profiles if p.by_n.inside and p.by_d.inside]
    kinds = fixed_data(results, seed, shapes=True)
    k = EMERGENCE_K
    runs = finished_cosine(results, seed)
    front = [runs[i] for i in envelope([r["flops"] for r in runs], [final_loss(r) for r in runs])]
    return SweepClaims(
        seed=seed,
        schedules=tuple(schedule_pairs(results, seed)),
        fixed_sizes=tuple(r["size"] for r in fixed),
        fixed_n=n,
        fixed_loss=loss,
        aicc_plain=aicc(plain.rss, len(n), 2),
        aicc_floor=aicc(floor.rss, len(n), 3),
        loo_plain=loo_plain,
        loo_floor=loo_floor,
        floor=floor.irreducible,
        floor_interval=_floor_interval(n, loss, floor),
        iso_levels=np.array([p.level for p in profiles]),
        iso_n_opt=np.array([p.by_n.n_opt for p in profiles]),
        iso_inside=np.array([p in inside for p in profiles]),
        a_isoflop=isoflop_allocation(profiles, n_bootstrap).a if len(inside) >= 3 else None,
        a_envelope={
            c: envelope_allocation(results, seed, c, n_bootstrap).a for c in ("counted", "chinchilla", "kaplan")
        },
        parametric=parametric_allocation(results, seed, n_bootstrap=n_bootstrap),
        shapes=tuple((r["size"], r["n_layers"], r["d_model"], r["non_embedding_params"], final_loss(r)) for r in kinds),
        slopes={size: local for size, (_, _, local) in data_slopes(results, seed).items()},
        frontier_flops=np.array([r["flops"] for r in front], dtype=float),
        char_accuracy=np.array([r["final"]["token_accuracy"] for r in front]),
        exact=np.array([r["final"]["exact_match"][k - 1] for r in front]),
        completion_exact=np.array([r["final"]["completion_exact_match"] for r in front]),
        completion_chars=np.array([r["final"]["completion_char_accuracy"] for r in front]),
    )


def _floor_interval(n: np.ndarray, loss: np.ndarray, fit, n_bootstrap: int = 200, seed: int = 0) -> tuple:
    """95 % interval of the floor E: refit resamples of the log residuals around the fit."""
    rng = np.random.default_rng(seed)
    residuals = np.log(loss) - np.log(fit(n))
    draws = []
    for _ in range(n_bootstrap):
        resampled = fit(n) * np.exp(rng.choice(residuals, size=len(n)))
        try:
            draws.append(fit_power_law(n, resampled, irreducible=True, n_bootstrap=0).irreducible)
        except ValueError:
            continue
    return float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))


__all__ = ["ScheduleRace", "SweepClaims", "schedule_race", "sweep_claims", "fit_slope"]


# ---- figures of the notebook's widgets (layout kept out of the student's cells) ----------------
def power_of_ten_formatter():
    """Tick labels ``1e3`` for decades on a log axis, without mathtext (which is slow to redraw).

    >>> power_of_ten_formatter()(1000.0, 0)
    '1e3'
    """
    import matplotlib.ticker

    return matplotlib.ticker.FuncFormatter(lambda value, _: f"1e{math.log10(value):.0f}")


def attention_share_figure():
    """A figure for the attention-share widget and its drawing function ``draw(d_model, n)``.

    What no control changes is drawn once; a redraw moves the chosen curve, the marker and the bars of
    this one figure (fixed spacing instead of tight_layout, decade labels without mathtext).
    """
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    from dl4nlp.scaling import attention_share

    contexts = np.geomspace(16, 10**5.5, 200)
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    figure.subplots_adjust(left=0.07, right=0.98, bottom=0.14, top=0.91, wspace=0.25)
    for d in (64, 768, 12288):
        left.plot(contexts, [attention_share(n, d) for n in contexts], label=f"d = {d}", alpha=0.5)
    (chosen,) = left.plot(contexts, 0 * contexts, "k")
    marker = left.axvline(512, color="grey", ls=":")
    left.set(xscale="log", xlabel="context length n", ylabel="attention's share of forward FLOPs", ylim=(-0.05, 1.05))
    left.xaxis.set_major_formatter(power_of_ten_formatter())
    left.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    bars = right.bar(["linear layers\n24 d²", "attention\n2 n d"], [1, 1], color=["tab:blue", "tab:orange"])
    right.set(ylabel="FLOPs per token per layer")
    for ax in (left, right):  # labels at fixed places: no measuring of tick labels per redraw
        ax.xaxis.set_label_coords(0.5, -0.1)
        ax.yaxis.set_label_coords(-0.1, 0.5)
    left.set_title("share = n / (12 d + n)", y=1)
    plt.close(figure)  # shown by the widget, not by the cell that builds it

    def draw_attention_share(d_model, n):
        """Forward FLOPs per token split into linear layers and attention (Kaplan's count)."""
        chosen.set_ydata([attention_share(c, d_model) for c in contexts])
        chosen.set_label(f"d = {d_model} (chosen)")
        left.legend(fontsize="small", loc="upper left")
        marker.set_xdata([n, n])
        linear, attention = 24 * d_model**2, 2 * n * d_model
        for bar, flops in zip(bars, (linear, attention)):
            bar.set_height(flops)
        right.set_ylim(0, 1.05 * max(linear, attention))
        right.set_title(f"d = {d_model}, n = {n:,.0f}: {attention_share(n, d_model):.0%}", y=1)
        return figure

    return draw_attention_share


def emergence_drawer(claims: dict, fronts: dict):
    """The drawing function ``draw(k, log_scale)`` of the emergence widget, cached per control value.

    ``claims``: seed -> SweepClaims; ``fronts``: seed -> the envelope's finished runs (their greedy scores).
    Word completion scored all-or-nothing and letter by letter, and exact match of the next k characters,
    along the envelope of both seeds, against training compute, on the same axes.
    """
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    if not isinstance(claims, dict) or not all(isinstance(c, SweepClaims) for c in claims.values()):
        raise TypeError(f"claims must map seeds to SweepClaims; got {given(claims)}")
    if not isinstance(fronts, dict) or set(fronts) != set(claims):
        raise ValueError(f"fronts must map the same seeds as claims {sorted(claims)} to runs; got {given(fronts)}")
    seeds = sorted(claims)

    @functools.cache  # moving back to a value redraws nothing
    def draw_emergence(k, log_scale):
        fig, ax = plt.subplots(figsize=(11, 4.6))
        fig.subplots_adjust(right=0.68)  # the legend sits outside, to the right, over no data
        for seed, style in zip(seeds, ("-", "--")):
            c = claims[seed]
            next_k = [r["final"]["exact_match"][k - 1] for r in fronts[seed]]
            series = [
                (c.completion_chars, "o", "tab:blue", "completion, letters right"),
                (c.completion_exact, "s", "tab:red", "completion, whole word right"),
                (next_k, "^", "grey", f"next {k} characters all right"),
            ]
            for scores, marker, colour, what in series:
                label = f"{what} (seed {seed})"
                ax.plot(c.frontier_flops, scores, marker + style, color=colour, markersize=4, label=label)
        ax.set(
            xscale="log",
            yscale="log" if log_scale else "linear",
            ylim=(1e-4, 1) if log_scale else (0, 1),
            xlabel="training compute C (counted FLOPs)",
            ylabel="score on the same held-out predictions",
        )
        ax.set_title("the same predictions, scored continuously and all-or-nothing", y=1)
        for axis in (ax.xaxis, ax.yaxis) if log_scale else (ax.xaxis,):
            axis.set_major_formatter(power_of_ten_formatter())
            axis.set_minor_locator(matplotlib.ticker.NullLocator())  # decades only: cheaper redraws
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
        return fig

    return draw_emergence
