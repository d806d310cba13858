"""Notebook 03's two delicate claims over many seeds: the IRNN at lag 50, and clipping, as one JSON table.

    python -m dl4nlp.recipes.rnn_seed_sweep --out data/rnn_seed_sweep.json --threads 1

For each seed 0 .. N-1 runs ``dl4nlp.experiments.rnn.memory_by_lag`` for the
IRNN alone at lag 50 (held-out accuracy) and ``dl4nlp.experiments.rnn.clipping``
(four models, each trained unclipped and clipped at norm 1: their final losses
and which diverged), exactly as the notebook runs seed 0; writes the numbers
with the provenance (command, versions, CPU kernels, wall time). Seconds per
seed, so the notebook and the claims suite read the table instead of re-running
it. Resumable: finished seeds are kept in ``OUT.partial`` (with the settings,
checked on ``--resume``); the wall time sums every session.
"""

from __future__ import annotations

from typing import Optional, Sequence

from dl4nlp._checks import check_int
from dl4nlp.experiments import rnn as experiment
from dl4nlp.recipes import run_seeds, seeded_table_run

NAME = "rnn_seed_sweep"
LAG = 50
IRNN = experiment.VARIANTS[2]


def seed_row(seed: int) -> dict:
    """The IRNN's lag-50 accuracy and the clipping experiment's outcome for one seed."""
    check_int("seed", seed, 0)
    irnn = experiment.memory_by_lag(seed=seed, lags=(LAG,), variants=(IRNN,)).accuracy[IRNN][0]
    clip = experiment.clipping(seed=seed)
    return {
        "seed": seed,
        "irnn_lag50": irnn,
        "clip_seeds": list(clip.seeds),
        "clipped_final": [clip.final(run) for run in clip.clipped],
        "clipped_diverged": list(clip.clipped_diverged),
        "unclipped_final": [None if d else clip.final(run) for run, d in zip(clip.unclipped, clip.unclipped_diverged)],
        "unclipped_diverged": list(clip.unclipped_diverged),
        "unclipped_failed": clip.unclipped_failed,
    }


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run the seeds and write the table; returns what was written."""
    run = seeded_table_run(
        NAME, __doc__, argv, seeds=32, seeds_help="seeds 0 .. N-1", resume_help="keep the seeds finished in OUT.partial"
    )
    spec = {"lag": LAG, "variant": IRNN, "thresholds": {"solved": experiment.SOLVED, "clipped_final":
            experiment.CLIPPED_FINAL, "stuck": experiment.STUCK}}  # fmt: skip
    return run_seeds(
        NAME,
        argv,
        run,
        spec,
        seed_row,
        lambda row: f"IRNN {row['irnn_lag50']:.3f}, clipped {[round(x, 2) for x in row['clipped_final']]}",
        "notebook 03 over many seeds: the IRNN's held-out accuracy at lag 50 (memory_by_lag) and the "
        "clipping experiment's final losses (clipping: four models per seed, unclipped and clipped at norm 1)",
    )


if __name__ == "__main__":
    main()
