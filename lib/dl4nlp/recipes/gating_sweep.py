"""Notebook 04's comparisons over seeds: chapter 03's RNNs against the gated cells, and the forget bias, as one table.

    python -m dl4nlp.recipes.gating_sweep --out data/gating_sweep.json --threads 1

For each seed 0 .. N-1 runs ``dl4nlp.experiments.lstm.gating_comparison`` at each
of ``COMPARISON_SETTINGS`` (lag 50 at learning rates 3e-3 and 1e-2, lag 100 at 3e-3:
the tanh RNN with W_h = I, the IRNN, the LSTM and the GRU, held-out accuracy) and
``forget_bias_memory`` (the lag-50 LSTM started with forget biases -3, 0 and 3),
exactly as the notebook runs seed 0; writes the numbers with the provenance
(command, versions, CPU kernels, wall time). Resumable: finished seeds are kept
in ``OUT.partial`` (with the settings, checked on ``--resume``).
"""

from __future__ import annotations

from typing import Optional, Sequence

from dl4nlp._checks import check_int, check_number
from dl4nlp.experiments import lstm as experiment
from dl4nlp.recipes import run_seeds, seeded_table_run

NAME = "gating_sweep"


def setting_key(lag: int, lr: float) -> str:
    """The table's name for one (lag, learning rate) setting.

    >>> setting_key(100, 3e-3)
    'lag 100, lr 0.003'
    """
    check_int("lag", lag)
    check_number("lr", lr, 0.0, low_open=True)
    return f"lag {lag}, lr {lr:g}"


def seed_row(seed: int) -> dict:
    """Every model's held-out accuracy in every setting, and the forget-bias runs, for one seed."""
    check_int("seed", seed, 0)
    comparison = {setting_key(lag, lr): experiment.gating_comparison(seed, lag, lr) for lag, lr in
                  experiment.COMPARISON_SETTINGS}  # fmt: skip
    bias = experiment.forget_bias_memory(seed)
    return {
        "seed": seed,
        "comparison": comparison,
        "forget_bias": {f"{b:g}": bias.accuracy[b] for b in experiment.FORGET_BIASES},
        "forget_bias_after_training": {f"{b:g}": bias.final_bias[b] for b in experiment.FORGET_BIASES},
    }


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run the seeds and write the table; returns what was written."""
    run = seeded_table_run(
        NAME, __doc__, argv, seeds=4, seeds_help="seeds 0 .. N-1", resume_help="keep the seeds finished in OUT.partial"
    )
    spec = {
        "settings": [setting_key(lag, lr) for lag, lr in experiment.COMPARISON_SETTINGS],
        "models": list(experiment.COMPARISON_MODELS),
        "forget_biases": list(experiment.FORGET_BIASES),
        "steps": experiment.LAG_STEPS,
        "hidden": experiment.LAG_HIDDEN,
    }
    return run_seeds(
        NAME,
        argv,
        run,
        spec,
        seed_row,
        lambda row: f"{row['comparison']} forget bias {row['forget_bias']}",
        "notebook 04 over seeds: held-out accuracy on the long-lag task of chapter 03's tanh RNN with "
        "W_h = I and IRNN against an LSTM and a GRU (32 units, 200 Adam steps, clipping at 1) at lag 50 with "
        "learning rates 3e-3 and 1e-2 and at lag 100 with 3e-3; and the lag-50 LSTM started with forget-gate "
        "biases -3, 0 and 3",
    )


if __name__ == "__main__":
    main()
