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
   sentences are not looked at. A grid whose best setting lies at one of its
   ends (or ties with it there) is extended at that end (1, 3, 10, ... per
   decade, at most ``MAX_EXTENSIONS`` times per end) until both ends score
   worse than the best; the provenance records each grid and whether it is bracketed.
2. The curve: for each seed and budget, a balanced sample of the pool trains
   every method with its chosen setting; all are scored on the test sentences.
   The token-level task (tag every word inside or outside quotation marks)
   runs at ``--tag-budgets`` with the same settings.

Rows: task (validation, classification, tagging), budget, seed, method,
setting, steps, accuracy; one method per unit (each method is seeded on its
own, so its score does not depend on the others). They are saved as they
finish to a state file beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Mapping, Optional, Sequence

import torch

from dl4nlp._checks import check_bool, check_choice, check_sequence, check_type
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
LEARNING_RATES = (1e-4, 3e-4, 1e-3, 3e-3)  # the starting grid for fine-tuning (pretrained and scratch)
L2_WEIGHTS = (1e-4, 1e-3, 1e-2, 1e-1)  # the starting grid for the regressions (probe and bag_of_words)
MAX_EXTENSIONS = 3  # settings a grid may gain at each end while its best lies there


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
    """The starting grid of ``method``: learning rates (fine-tuning) or L2 weights (regressions)."""
    check_choice("method", method, METHODS)
    return LEARNING_RATES if method in ("pretrained", "scratch") else L2_WEIGHTS


def next_setting(value: float, up: bool) -> float:
    """The neighbour of ``value`` on the ladder 1, 3, 10, 30, ... (times a power of ten), above or below.

    >>> next_setting(1e-4, up=False), next_setting(3e-3, up=True), next_setting(3e-5, up=False)
    (3e-05, 0.01, 1e-05)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ValueError(f"value must be a positive number; got {value!r}")
    check_bool("up", up)
    mantissa, exponent = f"{value:.0e}".split("e")
    exponent = int(exponent)
    if mantissa not in ("1", "3"):
        raise ValueError(f"value must lie on the ladder 1, 3, 10, ... times a power of ten; got {value!r}")
    if up:
        return float(f"3e{exponent}") if mantissa == "1" else float(f"1e{exponent + 1}")
    return float(f"3e{exponent - 1}") if mantissa == "1" else float(f"1e{exponent}")


def grow(grid: Sequence[float], up: bool) -> list[float]:
    """``grid`` (increasing) with one more setting beyond its high end (``up``) or its low end.

    >>> grow([1e-4, 3e-4, 1e-3], up=True), grow([1e-4, 3e-4, 1e-3], up=False)
    ([0.0001, 0.0003, 0.001, 0.003], [3e-05, 0.0001, 0.0003, 0.001])
    """
    grid = [float(k) for k in check_sequence("grid", grid, what="an increasing list of settings")]
    if grid != sorted(set(grid)):
        raise ValueError(f"grid must increase strictly; got {grid}")
    check_bool("up", up)
    return grid + [next_setting(grid[-1], up=True)] if up else [next_setting(grid[0], up=False)] + grid


def best_setting(means: Mapping[float, float]) -> tuple[float, Optional[bool]]:
    """The setting with the highest mean validation accuracy (ties: the smallest) and which end of the grid
    must grow: ``False`` if the low end scores that highest mean, else ``True`` if the high end does (a tie
    there counts too), else ``None`` (every setting at either end is worse: the best is bracketed).

    >>> best_setting({1e-4: 0.8, 3e-4: 0.9, 1e-3: 0.7})
    (0.0003, None)
    >>> best_setting({1e-4: 0.9, 3e-4: 0.8})
    (0.0001, False)
    >>> best_setting({1e-4: 0.7, 3e-4: 0.9, 1e-3: 0.9})
    (0.0003, True)
    """
    check_type("means", means, Mapping, "a mapping {setting: mean accuracy}")
    if len(means) < 2:
        raise ValueError(f"means must hold at least two settings; got {dict(means)}")
    ordered = sorted(means)
    best = max(ordered, key=lambda k: means[k])
    top = means[best]
    return best, (False if means[ordered[0]] == top else True if means[ordered[-1]] == top else None)


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
    """One (task, budget, seed, method, setting) unit: that method's accuracy. Independent and seeded, so the
    result does not depend on which process computes it or when."""
    task, budget, seed, method, setting = unit
    torch.set_num_threads(_SHARED["threads"])
    steps = steps_for(budget, _SHARED["steps"])
    model, tokenizer, sets = _SHARED["model"], _SHARED["tokenizer"], _SHARED["sets"]
    if task == "tagging":
        train = random.Random(seed).sample(_SHARED["tag_pool"], budget)
        scores = compare_taggers(model, tokenizer, train, _SHARED["tag_test"], seed=seed, settings={method: setting},
                                 methods=(method,), steps=steps)  # fmt: skip
    else:
        train = balanced_sample(sets["train"], budget, seed)
        scored = sets["validation"] if task == "validation" else sets["test"]
        scores = compare_methods(model, tokenizer, train, scored, seed=seed, settings={method: setting},
                                 methods=(method,), steps=steps)  # fmt: skip
    return unit, scores.get(method)


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
    done = {(r["task"], r["budget"], r["seed"], r["method"], r["setting"]) for r in rows}

    def run(units: list) -> None:
        """Compute the units not done yet and keep their rows (in the order of ``units``), saving after each."""
        pending = list(dict.fromkeys(u for u in units if u not in done))
        for (task, budget, seed, method, setting), value in parallel_map(_unit, pending, args.jobs):
            steps = steps_for(budget, args.steps)
            rows.append(dict(task=task, budget=budget, seed=seed, method=method, setting=setting, steps=steps,
                             accuracy=round(value, 6)))  # fmt: skip
            done.add((task, budget, seed, method, setting))
            print(task, budget, seed, method, setting, round(value, 3), flush=True)
            save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)

    # 1. choose each method's setting on the validation sentences (the test sentences are not looked at),
    # extending a grid at the end where its best setting lies
    grids = {m: list(grid(m)) for m in METHODS}
    chosen, bracketed, added = {}, {}, {m: {False: 0, True: 0} for m in METHODS}
    while True:
        run([("validation", budget, seed, m, setting) for m in METHODS for setting in grids[m]
             for budget in selection_budgets for seed in selection_seeds])  # fmt: skip
        extended = False
        for m in METHODS:
            mean = {k: statistics.mean(r["accuracy"] for r in rows if r["task"] == "validation" and r["method"] == m
                                       and r["setting"] == k and r["budget"] in selection_budgets
                                       and r["seed"] in selection_seeds)
                    for k in grids[m]}  # fmt: skip
            chosen[m], edge = best_setting(mean)
            bracketed[m] = edge is None
            if edge is not None and added[m][edge] < MAX_EXTENSIONS:
                added[m][edge] += 1
                grids[m] = grow(grids[m], up=edge)
                extended = True
        if not extended:
            break
    print("chosen on validation:", chosen, "bracketed:", bracketed, flush=True)
    # 2. the learning curves with the chosen settings
    units = []
    for seed in seeds:
        units += [("classification", budget, seed, m, chosen[m]) for budget in budgets for m in METHODS]
        units += [("tagging", budget, seed, m, chosen[m]) for budget in tag_budgets
                  for m in ("pretrained", "scratch", "probe")]  # fmt: skip
    run(units)
    validation = {("validation", b, s, m, k) for b in selection_budgets for s in selection_seeds for m in METHODS
                  for k in grids[m]}  # fmt: skip
    wanted = set(units) | validation
    rows = [r for r in rows if (r["task"], r["budget"], r["seed"], r["method"], r["setting"]) in wanted]
    rows.sort(key=lambda r: (["validation", "classification", "tagging"].index(r["task"]), r["seed"], r["budget"],
                             METHODS.index(r["method"]), r["setting"]))  # fmt: skip
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
            "grids": grids,
            "bracketed": bracketed,
            "starting_grids": {"learning_rates": LEARNING_RATES, "l2_weights": L2_WEIGHTS},
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
