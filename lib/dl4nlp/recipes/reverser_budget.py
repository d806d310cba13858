"""Notebook 06's bottleneck with more training: the no-attention reverser at several budgets, several seeds.

    python -m dl4nlp.recipes.reverser_budget --out data/reverser_budget.json --threads 1

Runs ``dl4nlp.experiments.seq2seq.longer_training`` for every seed and every
budget (each a finished schedule of its own) and, as the reference, the
attention model of ``bottleneck`` after the notebook's 100 steps; writes their
held-out accuracies per length with the provenance (command, versions, CPU
kernels, wall time). Resumable: finished runs are kept in ``OUT.partial`` (with the settings, checked
on ``--resume``) and skipped by ``--resume``; the wall time sums every session.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import replace
from typing import Optional, Sequence

from dl4nlp._checks import check_int
from dl4nlp.checkpoint import check_output
from dl4nlp.experiments import seq2seq as experiment
from dl4nlp.recipes import (
    comma_ints,
    recipe_parser,
    resume_rows,
    save_rows,
    start,
    table_provenance,
    write_table,
)

NAME = "reverser_budget"


def attention_reference(seed: int) -> list[float]:
    """Held-out accuracy per length of the dot-attention reverser after the notebook's schedule (100 steps)."""
    model, _ = experiment.train_reverser(replace(experiment.REVERSAL, score="dot"), seed)
    return [experiment.accuracy(model, experiment.held_out_strings(n, seed)) for n in experiment.LENGTHS]


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run every (seed, budget) and write the table; returns what was written."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeds 0 .. N-1")
    parser.add_argument("--budgets", default="100,300,1000,3000,10000", help="training steps, comma-separated")
    parser.add_argument("--resume", action="store_true", help="keep the runs finished in OUT.partial")
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".json")
    check_int("--seeds", args.seeds)
    budgets = comma_ints("--budgets", args.budgets)
    if experiment.REVERSAL.steps not in budgets:
        raise ValueError(f"--budgets must include the notebook's {experiment.REVERSAL.steps} steps; got {budgets}")
    partial = out.with_name(out.name + ".partial")
    device = start(args)
    started = time.perf_counter()
    # What a finished run depends on beyond its (seed, budget); the lists of seeds and budgets are not in it.
    spec = {"reversal": dataclasses.asdict(experiment.REVERSAL), "lengths": list(experiment.LENGTHS),
            "test_per_length": experiment.TEST_PER_LENGTH}  # fmt: skip
    rows, elapsed = resume_rows(partial, spec) if args.resume else ([], 0.0)  # another spec's: refused
    done = {(kind, seed, steps): result for kind, seed, steps, result in rows}

    def finish(key: tuple, result) -> None:
        done[key] = result
        finished = [[*k, r] for k, r in done.items()]
        save_rows(partial, spec, finished, elapsed + time.perf_counter() - started)

    for seed in range(args.seeds):
        if ("attention", seed, experiment.REVERSAL.steps) not in done:
            finish(("attention", seed, experiment.REVERSAL.steps), attention_reference(seed))
        for steps in budgets:
            if ("none", seed, steps) not in done:
                result = experiment.longer_training(seed, steps)
                finish(("none", seed, steps), dataclasses.asdict(result))
                print(f"seed {seed}, {steps} steps: {result.accuracy}", flush=True)
            experiment.train_reverser.cache_clear()  # a 10,000-step model is not needed again
    seeds = list(range(args.seeds))
    record = {
        "what": "held-out sequence accuracy per input length of notebook 06's reverser without attention, after "
        "finished schedules of several lengths; with the attention model after 100 steps as the reference",
        "lengths": list(experiment.LENGTHS),
        "budgets": budgets,
        "seeds": seeds,
        "runs": [done[("none", seed, steps)] for seed in seeds for steps in budgets],
        "attention_at_100_steps": [done[("attention", seed, experiment.REVERSAL.steps)] for seed in seeds],
        "provenance": table_provenance(NAME, argv, args, device, started, elapsed),
    }
    return write_table(out, record, partial)


if __name__ == "__main__":
    main()
