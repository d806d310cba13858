"""Recipe: accuracy against the number of labels, pre-trained vs from scratch vs linear probe, several seeds.

    python -m dl4nlp.recipes.bert_learning_curve --out data/bert_learning_curve.csv

The dialogue/narration task (``dl4nlp.dialogue.task_sets``) has a training
pool, validation sentences and test sentences from the held-out paragraphs
that pre-training never read. The methods: the pre-trained tiny BERT
fine-tuned from [CLS] (``pretrained``), the same architecture from random
weights with the same schedule (``scratch``), logistic regression on the
frozen pre-trained [CLS] vector (``probe``), and on which words occur
(``bag_of_words``).

1. Selection: each method's one setting (the fine-tuning learning rate, or
   the regression's L2 weight) is chosen from a grid by validation accuracy,
   averaged over two budgets (64 and 512 labels) and two seeds; the test
   sentences are not looked at.
2. The curve: for each seed and budget, a balanced sample of the pool trains
   every method with its chosen setting; all are scored on the test sentences.
   The token-level task (tag every word inside or outside quotation marks)
   runs at ``--tag-budgets`` with the same settings.

Rows: task (validation, classification, tagging), budget, seed, method,
setting, steps, accuracy. They are saved as they finish to a state file
beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_choice
from dl4nlp.bert import SHIPPED, load_pretrained
from dl4nlp.checkpoint import check_output, save_table, sha256sum
from dl4nlp.data import data_path
from dl4nlp.dialogue import CORPORA, balanced_sample, tagged_sentences, task_sets
from dl4nlp.finetune import METHODS, compare_methods, compare_taggers, default_steps
from dl4nlp.recipes import (
    comma_ints,
    command_line,
    parallel_map,
    provenance,
    recipe_parser,
    resume_rows,
    save_rows,
    start,
)

NAME = "bert_learning_curve"
TAG_TEST_SENTENCES = 400
LEARNING_RATES = (1e-4, 3e-4, 1e-3, 3e-3)  # the grid for fine-tuning (pretrained and scratch)
L2_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1)  # the grid for the regressions (probe and bag_of_words)


def parser() -> argparse.ArgumentParser:
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--model", type=Path, default=None, help="the pre-trained tiny BERT (default: data/tiny_bert.pt)")
    p.add_argument("--seeds", default="0,1,2,3,4")
    p.add_argument("--budgets", default="32,64,128,256,512,1024,2048")
    p.add_argument("--tag-budgets", default="32,128,512")
    p.add_argument("--selection-budgets", default="64,512", help="budgets the settings are chosen with")
    p.add_argument("--selection-seeds", default="100,101", help="seeds the settings are chosen with")
    p.add_argument("--jobs", type=int, default=1, help="processes (the result does not depend on it)")
    p.add_argument("--steps", type=int, default=None,
                   help="fine-tuning steps for every budget and method (default: finetune.default_steps(budget), "
                        "which grows with the budget, so budgets then differ in steps as well as labels)")  # fmt: skip
    return p


def tag_test_set() -> list:
    """The fixed test sentences of the tagging task, from the held-out paragraphs."""
    return random.Random(12345).sample(tagged_sentences("held_out"), TAG_TEST_SENTENCES)


def grid(method: str) -> tuple[float, ...]:
    """The settings tried for ``method``: learning rates (fine-tuning) or L2 weights (regressions)."""
    check_choice("method", method, METHODS)
    return LEARNING_RATES if method in ("pretrained", "scratch") else L2_WEIGHTS


_SHARED: dict = {}  # what the worker processes read; filled before the pool forks


def steps_for(budget: int, steps: Optional[int] = None) -> int:
    """The fine-tuning steps of a unit: ``steps`` for every budget when given, else ``default_steps(budget)``.

    >>> steps_for(64), steps_for(512), steps_for(64, 96)
    (50, 96, 96)
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive integer; got {budget!r}")
    if steps is None:
        return default_steps(budget)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be a positive integer or None; got {steps!r}")
    return steps


def _unit(unit: tuple) -> tuple:
    """One (task, budget, seed, grid index, settings) unit: every method's accuracy. Independent and seeded,
    so the result does not depend on which process computes it or when."""
    task, budget, seed, _, settings = unit
    torch.set_num_threads(_SHARED["threads"])
    steps = steps_for(budget, _SHARED["steps"])
    model, tokenizer, sets = _SHARED["model"], _SHARED["tokenizer"], _SHARED["sets"]
    if task == "tagging":
        train = random.Random(seed).sample(_SHARED["tag_pool"], budget)
        scores = compare_taggers(model, tokenizer, train, _SHARED["tag_test"], seed=seed, settings=settings,
                                 methods=tuple(settings), steps=steps)  # fmt: skip
    else:
        train = balanced_sample(sets["train"], budget, seed)
        scored = sets["validation"] if task == "validation" else sets["test"]
        scores = compare_methods(model, tokenizer, train, scored, seed=seed, settings=settings, steps=steps)
    return unit, scores


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    steps_for(1, args.steps)  # bad --steps raises before any work
    if args.jobs < 1:
        raise ValueError(f"--jobs must be at least 1; got {args.jobs}")
    seeds = comma_ints("--seeds", args.seeds, 0)
    selection_seeds = comma_ints("--selection-seeds", args.selection_seeds, 0)
    budgets = comma_ints("--budgets", args.budgets)
    selection_budgets = comma_ints("--selection-budgets", args.selection_budgets)
    tag_budgets = comma_ints("--tag-budgets", args.tag_budgets, empty=True)  # bad lists raise before any work
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start(args)
    started = time.perf_counter()
    model, tokenizer = load_pretrained(args.model, device=device)
    model_file = Path(args.model) if args.model else data_path(SHIPPED)
    sets = task_sets()
    tag_pool, tag_test = tagged_sentences("train"), tag_test_set()
    _SHARED.update(model=model, tokenizer=tokenizer, sets=sets, tag_pool=tag_pool, tag_test=tag_test,
                   threads=args.threads, steps=args.steps)  # fmt: skip
    # What a saved row depends on beyond its (task, budget, seed, grid index): the model and the selection (the
    # chosen settings). The lists of seeds and budgets are not in it, so a run asking for fewer or more units
    # resumes the same state, and keeps only the rows it asks for.
    spec = {"selection_budgets": selection_budgets, "selection_seeds": selection_seeds,
            "model_sha256": sha256sum(model_file)}  # fmt: skip
    if args.steps is not None:  # equal steps everywhere: a different sweep (the default keeps older states valid)
        spec["steps"] = args.steps
    rows, elapsed = resume_rows(state_path, spec)
    done = {(r["task"], r["budget"], r["seed"], r["grid_index"]) for r in rows}

    def run(units: list) -> None:
        """Compute the units not done yet and keep their rows (in the order of ``units``), saving after each."""
        pending = [u for u in units if u[:4] not in done]
        for (task, budget, seed, index, settings), scores in parallel_map(_unit, pending, args.jobs):
            for method, value in scores.items():
                row = dict(task=task, budget=budget, seed=seed, method=method, grid_index=index)
                steps = steps_for(budget, args.steps)
                rows.append(dict(row, setting=settings[method], steps=steps, accuracy=round(value, 6)))
            print(task, budget, seed, {k: round(v, 3) for k, v in scores.items()}, flush=True)
            save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)

    # 1. choose each method's setting on the validation sentences (the test sentences are not looked at)
    grid_indices = range(len(LEARNING_RATES))
    run([("validation", budget, seed, index, {m: grid(m)[index] for m in METHODS})
         for budget in selection_budgets for seed in selection_seeds for index in grid_indices])  # fmt: skip
    chosen = {}
    for method in METHODS:
        mean = {i: statistics.mean(r["accuracy"] for r in rows if r["task"] == "validation"
                                   and r["method"] == method and r["grid_index"] == i)
                for i in range(len(LEARNING_RATES))}  # fmt: skip
        chosen[method] = grid(method)[max(mean, key=mean.get)]  # ties: the first (smallest) setting
    print("chosen on validation:", chosen, flush=True)
    # 2. the learning curves with the chosen settings
    taggers = {m: chosen[m] for m in ("pretrained", "scratch", "probe")}
    units = []
    for seed in seeds:
        units += [("classification", budget, seed, -1, chosen) for budget in budgets]
        units += [("tagging", budget, seed, -1, taggers) for budget in tag_budgets]
    run(units)
    wanted = {u[:3] for u in units} | {("validation", b, s) for b in selection_budgets for s in selection_seeds}
    rows = [r for r in rows if (r["task"], r["budget"], r["seed"]) in wanted]
    rows.sort(key=lambda r: (["validation", "classification", "tagging"].index(r["task"]), r["seed"], r["budget"],
                             r["grid_index"], METHODS.index(r["method"])))  # fmt: skip
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=seeds[0],
        device=device,
        started=started - elapsed,
        corpora=CORPORA,
        results={
            "model": {"file": model_file.name, "sha256": spec["model_sha256"]},
            "chosen_settings": chosen,
            "grids": {"learning_rates": LEARNING_RATES, "l2_weights": L2_WEIGHTS},
            "selection": {"budgets": selection_budgets, "seeds": selection_seeds, "sentences": len(sets["validation"])},
            "test_sentences": len(sets["test"]),
            "tag_test_sentences": len(tag_test),
            "seeds": seeds,
            "steps": args.steps if args.steps is not None else "finetune.default_steps(budget)",
        },
    )
    save_table(out, rows, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
