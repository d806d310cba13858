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

Two stages, each training one method on ``BUDGET`` examples drawn by the seed
for ``STEPS`` steps (one epoch, batch 32):

1. **Learning rates, on the validation examples.** For each task and method,
   seed ``--grid-seed`` (0) trains at rates of the ladder ``LADDER`` (steps of
   about 3), starting from the tagging task's choice (``pos_chosen``: 0.003
   pre-trained, 0.001 from scratch) and its two neighbours, and extending the
   grid one rung at a time past whichever end holds the best accuracy on the
   500 validation examples (the last 10 % of each book's pre-training
   paragraphs), until the best rate lies strictly inside the grid. Ties go to
   the smaller rate. The grid (rate -> validation accuracy) and the chosen
   rates go into the JSON; the grid's rows go into the table too (split
   ``validation``; ``load_results`` keeps the test rows).
2. **Test, at the chosen rates.** Seeds ``--seeds`` (0, 1, 2) train each
   method at its chosen rate; all are scored on the 500 test examples. The
   grid seed's model at each grid rate is scored on the test examples in the
   same pass, so that it need not be trained twice; only the score at the
   chosen rate is kept (training is deterministic, so it is the score a
   second run would give), the others are dropped unread.

Shipped (torch 2.13.0+cpu, 1 thread; validation accuracy of seed 0):

- next sentence, pre-trained: 0.0003 0.852, **0.001 0.862**, 0.003 0.790, 0.01 0.644;
- next sentence, from scratch: 0.0003 0.656, 0.001 0.666, **0.003 0.672**, 0.01 0.496;
- span selection, pre-trained: 0.001 0.386, **0.003 0.434**, 0.01 0.388;
- span selection, from scratch: 0.0003 0.380, **0.001 0.390**, 0.003 0.382.

From scratch, both tasks vary by under 0.02 over a factor of 10; fine-tuned,
next sentence falls off above 0.001 and span selection peaks at 0.003. Not
done: a grid per seed (seed 0 alone chooses), rates between the ladder's
rungs, and any search over steps, batch size or warm-up (one epoch of the
3,840 examples throughout; more epochs for span selection were not tried).

Rows (task, split, seed, method, lr, steps, accuracy) are saved as they
finish to a state file beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import math
import random
import sys
import time
from typing import Any, Optional, Sequence

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
LADDER = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1)  # the learning rates a grid may hold


def parser():
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1,2", help="the seeds scored on the test examples at the chosen rates")
    p.add_argument("--grid-seed", type=int, default=0, help="the seed whose validation accuracy chooses the rates")
    return p


def _rung(lr: float) -> int:
    """The index of the ladder's rate nearest ``lr`` (on a log scale)."""
    return min(range(len(LADDER)), key=lambda i: abs(math.log(LADDER[i] / lr)))


def _best(grid: dict) -> float:
    """The rate of the best validation accuracy in ``{rate: accuracy}``; ties go to the smaller rate."""
    return max(sorted(grid), key=lambda lr: (grid[lr], -lr))


def _train_and_score(task: str, seed: int, method: str, lr: float, steps: int) -> dict:
    """``{validation, test, baseline_validation, baseline_test}``: one method trained once on the seed's draw."""
    from dl4nlp.bert import load_pretrained
    from dl4nlp.pair_tasks import _baseline, _trained_head, encode_pairs, pair_accuracy, task_sets

    pool, evaluated = task_sets(task)
    train = random.Random(seed).sample(pool, BUDGET)  # as pair_scores draws them
    model, tokenizer = load_pretrained()
    head = _trained_head(model, train, encode_pairs(train, tokenizer), method, lr, steps, seed)
    out = {}
    for part in ("validation", "test"):
        out[part] = pair_accuracy(head, encode_pairs(evaluated[part], tokenizer))
        out[f"baseline_{part}"] = _baseline(train, evaluated[part], tokenizer)
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    seeds = comma_ints("--seeds", args.seeds, 0)
    grid_seed = comma_ints("--grid-seed", str(args.grid_seed), 0)[0]
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start_recipe(args)
    started = time.perf_counter()
    start_rates = pos_chosen()
    spec = {"model_sha256": sha256sum(data_path(SHIPPED)), "budget": BUDGET, "steps": STEPS, "start": start_rates,
            "ladder": list(LADDER), "grid_seed": grid_seed, "validation": "each book's last 10 %"}  # fmt: skip
    rows, elapsed = resume_rows(state_path, spec)

    def save() -> None:
        save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)

    def row(task: str, split: str, seed: int, method: str, lr, steps: int, accuracy: float) -> dict:
        return dict(task=task, split=split, seed=seed, method=method, lr=lr, steps=steps, accuracy=round(accuracy, 6))

    def found(**key) -> list:
        return [r for r in rows if all(r.get(k) == v for k, v in key.items())]

    def validation(task: str, method: str, lr: float, steps: int) -> float:
        """The grid seed's validation accuracy (trained once; its test score waits in the state as "grid_test")."""
        if not found(task=task, split="validation", method=method, lr=lr, steps=steps):
            scores = _train_and_score(task, grid_seed, method, lr, steps)
            rows.append(row(task, "validation", grid_seed, method, lr, steps, scores["validation"]))
            rows.append(row(task, "grid_test", grid_seed, method, lr, steps, scores["test"]))
            if not found(task=task, split="validation", method="baseline"):
                rows.append(row(task, "validation", grid_seed, "baseline", "", 0, scores["baseline_validation"]))
            save()
            print(task, method, lr, steps, "validation", round(scores["validation"], 4), flush=True)
        return found(task=task, split="validation", method=method, lr=lr, steps=steps)[0]["accuracy"]

    def bracket(ladder: Sequence, first: int, score) -> tuple[dict, Any, bool]:
        """Score rungs first-1 .. first+1 of ladder, then one more past whichever end is best, until it is inside."""
        rungs = list(range(max(first - 1, 0), min(first + 2, len(ladder))))
        while True:
            grid = {ladder[i]: score(ladder[i]) for i in rungs}
            best = _best(grid)
            if best == ladder[rungs[0]] and rungs[0] > 0:
                rungs.insert(0, rungs[0] - 1)
            elif best == ladder[rungs[-1]] and rungs[-1] < len(ladder) - 1:
                rungs.append(rungs[-1] + 1)
            else:
                return grid, best, ladder[rungs[0]] < best < ladder[rungs[-1]]

    # 1. the rates on the validation examples, seed grid_seed
    grids = {task: {} for task in TASKS}
    chosen = {task: {} for task in TASKS}
    for task in TASKS:
        for method in METHODS:
            grid, best, inside = bracket(LADDER, _rung(start_rates[method]),
                                         lambda lr, t=task, m=method: validation(t, m, lr, STEPS))  # fmt: skip
            grids[task][method] = {"validation_accuracy": {str(lr): a for lr, a in grid.items()}, "chosen": best,
                                   "inside": inside}  # fmt: skip
            print(task, method, "grid", grid, "chosen", best, "(inside)" if inside else "(AT AN EDGE)", flush=True)
            chosen[task][method] = best

    # 2. the test examples at the chosen rates and steps, every seed
    for task in TASKS:
        for seed in seeds:
            for method in METHODS:
                lr, steps = chosen[task][method], STEPS
                if found(task=task, split="test", seed=seed, method=method):
                    continue
                cached = found(task=task, split="grid_test", seed=seed, method=method, lr=lr, steps=steps)
                if cached:
                    accuracy = cached[0]["accuracy"]
                else:
                    accuracy = _train_and_score(task, seed, method, lr, steps)["test"]
                rows.append(row(task, "test", seed, method, lr, steps, accuracy))
                save()
                print(task, "test", seed, method, lr, steps, round(accuracy, 4), flush=True)
            if not found(task=task, split="test", seed=seed, method="baseline"):
                baseline = pair_scores(task, seed, BUDGET, {}, STEPS)["baseline"]
                rows.append(row(task, "test", seed, "baseline", "", 0, baseline))
                save()
    kept = [r for r in rows if r["split"] != "grid_test"]  # test scores of rates not chosen are dropped unread
    kept.sort(key=lambda r: (r["task"], r["split"] != "test", r["seed"], r["method"], r["steps"], r["lr"] or 0))
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=grid_seed,
        device=device,
        started=started - elapsed,
        results={
            "model": {"file": SHIPPED, "sha256": spec["model_sha256"]},
            "grid": {
                "seed": grid_seed,
                "scored": "validation",
                "ladder": list(LADDER),
                "start": start_rates,
                "by_task": grids,
            },
            "chosen_learning_rates": chosen,
            "chosen_steps": {task: dict.fromkeys(METHODS, STEPS) for task in TASKS},  # one epoch throughout
            "budget": BUDGET,
            "steps_per_epoch": STEPS,
            "scored": SCORED,
            "seeds": seeds,
        },
    )
    save_table(out, kept, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
