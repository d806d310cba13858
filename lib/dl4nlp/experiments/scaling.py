"""Notebook 09's experiments: a live schedule race, and the claims about the shipped sweep, per seed.

``schedule_race(seed)`` trains one small model three ways with the same initial
weights and batches (cosine, constant, and warmup-stable-decay branched off the
constant run) and returns their final held-out losses: the live version of the
sweep's schedule comparison. ``sweep_claims(results, seed)`` computes, from the
shipped sweep (``dl4nlp.sweep.load_sweep()``), every number the notebook's prose
interprets, for one of the sweep's two seeds; the notebook asserts them on seed 0
and ``tests/claims/test_09_scaling.py`` on both. Helpers select runs from the
results (``select``) and read a finished run's loss (``final_loss``).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import torch

from dl4nlp.data import load_text
from dl4nlp.recipes.scaling_run import Run, train_run
from dl4nlp.recipes.scaling_sweep import SweepSpec, trunk_and_branches
from dl4nlp.sweep import CharData

# ---- thresholds of the claims (shared by notebook and tests) --------------------------------
SCHEDULE_MARGIN = 0.0  # a finished cosine run ends below the constant-rate run at the same step by more than this


def select(
    results: dict,
    *,
    role: Optional[str] = None,
    seed: Optional[int] = None,
    size: Optional[str] = None,
    schedule: Optional[str] = None,
) -> list[dict]:
    """The runs of the results with this role ('lr_search', 'grid', 'schedules', 'fixed_data'), seed, size and
    schedule (each optional), that did not diverge, sorted by size then steps."""
    if not isinstance(results, dict) or "runs" not in results:
        raise ValueError("results must be the sweep's results (dl4nlp.sweep.load_sweep()); got no 'runs'")
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


def final_loss(run: dict) -> float:
    """Held-out loss (nats per character) at the end of a finished run."""
    return float(run["curve"][-1]["heldout_loss"])


def loss_at(run: dict, step: int) -> float:
    """Held-out loss of a run at one of its evaluation points."""
    for point in run["curve"]:
        if point["step"] == step:
            return float(point["heldout_loss"])
    raise ValueError(
        f"run {run['id']} was not evaluated at step {step}; its points: {[p['step'] for p in run['curve']]}"
    )


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


def schedule_race(seed: int, size: str = "1x16", steps: int = 192, lr: float = 0.045) -> ScheduleRace:
    """Train ``size`` for ``steps`` steps with a cosine, a constant and a warmup-stable-decay schedule (the last
    branched off the constant run), same initial weights and batches for the three; the sweep's settings."""
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    spec = SweepSpec(seed=seed, second_seed=None if seed != 1 else 2, lr_search_steps=steps)
    data = CharData(load_text(spec.corpus), spec.heldout_fraction)
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
