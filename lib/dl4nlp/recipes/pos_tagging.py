"""Recipe: part-of-speech tagging on English-EWT by number of labelled sentences: fine-tuned, scratch, majority.

    python -m dl4nlp.recipes.pos_tagging --out data/pos_tagging_curve.csv

Universal Dependencies English-EWT (data/en_ewt-ud-*.conllu, CC BY-SA 4.0):
the 2,001 sentences of its dev file are the labelled pool, its test file
(minus sentences whose text the dev file also has, and those longer than the
tiny BERT reads) gives 300 validation and 1,000 test sentences
(``dl4nlp.experiments.bert.pos_sets``). Methods: the shipped tiny BERT
fine-tuned with a linear layer on every position, each word's tag read from
its first piece (``pretrained``); the same architecture from random weights
with the same schedule (``scratch``); each word's most frequent tag in the
labelled sentences, else the most frequent tag (``majority``).

1. Selection: each fine-tuned method's learning rate is chosen from
   ``POS_LEARNING_RATES`` by validation accuracy with 128 sentences (seed 100);
   the test sentences are not looked at.
2. The curve: for each seed and budget, ``budget`` dev sentences drawn by the
   seed train every method (``pos_steps(budget)`` steps); all are scored on
   the 1,000 test sentences.

Rows (task validation or test, budget, seed, method, lr, steps, accuracy) are
saved as they finish to a state file beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, Sequence

import torch

from dl4nlp.bert import SHIPPED
from dl4nlp.checkpoint import check_output, save_table, sha256sum
from dl4nlp.data import data_path
from dl4nlp.experiments.bert import (
    EWT_DEV,
    EWT_TEST,
    POS_BUDGETS,
    POS_LEARNING_RATES,
    POS_SELECTION_BUDGET,
    POS_SELECTION_SEED,
    pos_scores,
    pos_sets,
    pos_steps,
)
from dl4nlp.recipes import comma_ints, command_line, parallel_map, provenance, recipe_parser, resume_rows, save_rows
from dl4nlp.recipes import start as start_recipe

NAME = "pos_tagging"
METHODS = ("pretrained", "scratch")
_SHARED: dict = {}


def parser():
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1")
    p.add_argument("--budgets", default=",".join(map(str, POS_BUDGETS)))
    p.add_argument("--jobs", type=int, default=1, help="processes (the result does not depend on it)")
    return p


def _unit(unit: tuple) -> tuple:
    """One (task, budget, seed, learning rates) unit; seeded, so independent of the process that runs it."""
    task, budget, seed, rates = unit
    torch.set_num_threads(_SHARED["threads"])
    scored = "validation" if task == "validation" else "test"
    return unit, pos_scores(seed, budget, dict(rates), scored=scored)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    seeds = comma_ints("--seeds", args.seeds, 0)
    budgets = comma_ints("--budgets", args.budgets)
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1; got {args.jobs}")
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start_recipe(args)
    started = time.perf_counter()
    sets = pos_sets()
    _SHARED.update(threads=args.threads)
    spec = {"model_sha256": sha256sum(data_path(SHIPPED)), "grid": list(POS_LEARNING_RATES)}
    rows, elapsed = resume_rows(state_path, spec)
    done = {(r["task"], r["budget"], r["seed"], r["lr_index"]) for r in rows}

    def keep(task: str, budget: int, seed: int, rates: dict, index: int, scores: dict) -> None:
        for method, value in scores.items():
            rows.append(dict(task=task, budget=budget, seed=seed, method=method, lr=rates.get(method, ""),
                             lr_index=index, steps=pos_steps(budget) if method != "majority" else 0,
                             accuracy=round(value, 6)))  # fmt: skip
        print(task, budget, seed, index, {k: round(v, 4) for k, v in scores.items()}, flush=True)
        save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)

    # 1. each method's learning rate, chosen on the validation sentences (the test sentences are not looked at)
    selection = [("validation", POS_SELECTION_BUDGET, POS_SELECTION_SEED, tuple((m, rate) for m in METHODS))
                 for i, rate in enumerate(POS_LEARNING_RATES)
                 if ("validation", POS_SELECTION_BUDGET, POS_SELECTION_SEED, i) not in done]  # fmt: skip
    for (task, budget, seed, rates), scores in parallel_map(_unit, selection, args.jobs):
        keep(task, budget, seed, dict(rates), POS_LEARNING_RATES.index(rates[0][1]), scores)
    chosen = {}
    for method in METHODS:
        by_rate = {r["lr_index"]: r["accuracy"] for r in rows if r["task"] == "validation" and r["method"] == method}
        chosen[method] = POS_LEARNING_RATES[max(sorted(by_rate), key=by_rate.get)]  # ties: the smaller rate
    print("chosen on validation:", chosen, flush=True)
    done = {(r["task"], r["budget"], r["seed"]) for r in rows if r["task"] == "test"}
    units = [("test", b, s, tuple(chosen.items())) for s in seeds for b in budgets if ("test", b, s) not in done]
    # 2. the curve, every method at its chosen rate, scored on the test sentences
    for (task, budget, seed, rates), scores in parallel_map(_unit, units, args.jobs):
        keep(task, budget, seed, dict(rates), -1, scores)
    rows.sort(key=lambda r: (r["task"] != "validation", r["seed"], r["budget"], r["lr_index"], r["method"]))
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=seeds[0],
        device=device,
        started=started - elapsed,
        results={
            "model": {"file": SHIPPED, "sha256": spec["model_sha256"]},
            "data": {name: {"sha256": sha256sum(data_path(name))} for name in (EWT_DEV, EWT_TEST)},
            "chosen_learning_rates": chosen,
            "grid": list(POS_LEARNING_RATES),
            "selection": {
                "budget": POS_SELECTION_BUDGET,
                "seed": POS_SELECTION_SEED,
                "sentences": len(sets["validation"]),
            },  # fmt: skip
            "sentences": {k: len(v) for k, v in sets.items()},
            "steps": {b: pos_steps(b) for b in budgets},
            "seeds": seeds,
        },
    )
    save_table(out, rows, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
