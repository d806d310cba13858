"""Recipe: two pair tasks (does B follow A? span selection) with the tiny BERT fine-tuned, from scratch, a baseline.

    python -m dl4nlp.recipes.pair_tasks --out data/pair_tasks.csv

The tasks are built from the shipped text by ``dl4nlp.pair_tasks``
(``task_sets``): next-sentence pairs and cloze questions whose answer is a
span of the context, both read as ``[CLS] A [SEP] B [SEP]``; training and
validation examples from the paragraphs the tiny BERT was pre-trained on
(different paragraphs), test examples from the held-out paragraphs. Methods:
the shipped tiny BERT fine-tuned with every weight (``pretrained``), the same
architecture from random weights with the same schedule (``scratch``), and the
task's baseline (``baseline``: shared content words for next sentence, the
context's most frequent content word for span selection).

Each method trains at the learning rate chosen for it on the validation
sentences of the tagging task (``dl4nlp.experiments.bert.pos_chosen``: 0.003
pre-trained, 0.001 from scratch); a grid search per pair task did not fit the
shared machine's budget. For each seed, ``BUDGET`` examples drawn by the seed
train every method for ``STEPS`` steps (one epoch); all are scored on the 500
test examples. The validation examples are built but not used here.

Rows (task, split, seed, method, lr, steps, accuracy) are saved as they
finish to a state file beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, Sequence

from dl4nlp.bert import SHIPPED
from dl4nlp.checkpoint import check_output, save_table, sha256sum
from dl4nlp.data import data_path
from dl4nlp.experiments.bert import pos_chosen
from dl4nlp.pair_tasks import SCORED, TASKS, pair_scores
from dl4nlp.recipes import comma_ints, command_line, provenance, recipe_parser, resume_rows, save_rows
from dl4nlp.recipes import start as start_recipe

NAME = "pair_tasks"
METHODS = ("pretrained", "scratch")
BUDGET, STEPS = 3840, 120  # training examples and steps (batch 32: one epoch, no example seen twice)


def parser():
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    seeds = comma_ints("--seeds", args.seeds, 0)
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start_recipe(args)
    started = time.perf_counter()
    spec = {"model_sha256": sha256sum(data_path(SHIPPED)), "budget": BUDGET, "steps": STEPS, "lr": pos_chosen()}
    rows, elapsed = resume_rows(state_path, spec)

    def keep(task: str, split: str, seed: int, rates: dict, scores: dict) -> None:
        for method, value in scores.items():
            rows.append(dict(task=task, split=split, seed=seed, method=method, lr=rates.get(method, ""),
                             steps=STEPS if method != "baseline" else 0, accuracy=round(value, 6)))  # fmt: skip
        print(task, split, seed, rates, {k: round(v, 4) for k, v in scores.items()}, flush=True)
        save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)

    chosen = {task: pos_chosen() for task in TASKS}  # the tagging task's validation choice, for every task
    for task in TASKS:
        for seed in seeds:
            if not any(r["task"] == task and r["split"] == "test" and r["seed"] == seed for r in rows):
                keep(task, "test", seed, chosen[task], pair_scores(task, seed, BUDGET, chosen[task], STEPS))
    rows.sort(key=lambda r: (r["task"], r["seed"], r["method"]))
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=seeds[0],
        device=device,
        started=started - elapsed,
        results={
            "model": {"file": SHIPPED, "sha256": spec["model_sha256"]},
            "chosen_learning_rates": chosen,
            "budget": BUDGET,
            "steps": STEPS,
            "scored": SCORED,
            "seeds": seeds,
        },
    )
    save_table(out, rows, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
