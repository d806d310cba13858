"""Notebook 03's section 6 trained beforehand: three RNNs at four lags, and the IRNN at a larger learning rate.

    python -m dl4nlp.recipes.rnn_memory_by_lag --out data/rnn_memory_by_lag.json --threads 1

For each seed 0 .. N-1 (the notebook reads seed 0) runs
``dl4nlp.experiments.rnn.memory_by_lag`` (each of the three variants trained
afresh at lags 5, 10, 20 and 50: 200 Adam steps at 3e-3, clipped at 1) and
``dl4nlp.experiments.rnn.irnn_learning_rate`` (the IRNN at lag 50 with 1e-2),
exactly as the notebook used to run them live, and writes the held-out
accuracies, the held-out sequences left out because training saw them, and
the provenance (command, versions, CPU kernels, wall time). About 30 s a seed
on one thread; the notebook re-runs a small part of it live (lag 20).
Resumable like ``rnn_seed_sweep``.
"""

from __future__ import annotations

from typing import Optional, Sequence

from dl4nlp._checks import check_int
from dl4nlp.experiments import rnn as experiment
from dl4nlp.recipes import run_seeds, seeded_table_run

NAME = "rnn_memory_by_lag"


def seed_row(seed: int) -> dict:
    """Section 6's numbers for one seed: accuracy per variant and lag, and the IRNN at learning rate 1e-2."""
    check_int("seed", seed, 0)
    run = experiment.memory_by_lag(seed=seed)
    return {
        "seed": seed,
        "accuracy": {variant: list(row) for variant, row in run.accuracy.items()},
        "heldout_in_training": list(run.heldout_in_training),
        "irnn_larger_lr": experiment.irnn_learning_rate(seed=seed),
    }


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run the seeds and write the table; returns what was written."""
    run = seeded_table_run(
        NAME, __doc__, argv, seeds=1, seeds_help="seeds 0 .. N-1", resume_help="keep the seeds finished in OUT.partial"
    )
    spec = {"lags": list(experiment.LAGS), "variants": list(experiment.VARIANTS), "steps": 200, "lr": 3e-3,
            "larger_lr": 1e-2}  # fmt: skip
    return run_seeds(
        NAME,
        argv,
        run,
        spec,
        seed_row,
        lambda row: f"{row['accuracy']}, IRNN at 1e-2 {row['irnn_larger_lr']:.3f}",
        "notebook 03, section 6: held-out accuracy of three 32-unit RNNs (memory_by_lag) on the memory task "
        "at each lag, and of the IRNN at lag 50 with learning rate 1e-2 (irnn_learning_rate)",
    )


if __name__ == "__main__":
    main()
