"""Recipe: accuracy against the number of labels, pre-trained vs from scratch vs linear probe, several seeds.

    python -m dl4nlp.recipes.bert_learning_curve --out data/bert_learning_curve.csv

For each seed and label budget, a balanced sample of the dialogue/narration
task's training sentences (``dl4nlp.dialogue``) trains: the pre-trained tiny
BERT fine-tuned from [CLS] (``pretrained``), the same architecture from random
weights with the same schedule (``scratch``), logistic regression on the frozen
pre-trained [CLS] vector (``probe``), and on which words occur
(``bag_of_words``). All are scored on one fixed, balanced test set from the
held-out paragraphs, which the pre-training never read. The token-level task
(tag every word inside or outside quotation marks) runs at ``--tag-budgets``.
Each row: task, budget, seed, method, steps, accuracy. Rows are written as
they finish to a state file beside ``--out``, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

from dl4nlp.bert import SHIPPED, load_pretrained
from dl4nlp.checkpoint import atomic_write, check_output, save_table, sha256sum
from dl4nlp.data import data_path
from dl4nlp.dialogue import CORPORA, balanced_sample, labelled_sentences, tagged_sentences
from dl4nlp.finetune import FINE_TUNE_LR, METHODS, compare_methods, compare_taggers, default_steps
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "bert_learning_curve"
TEST_PER_CELL = 160  # test sentences per (corpus, label): 640 in all
TAG_TEST_SENTENCES = 400


def parser() -> argparse.ArgumentParser:
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--model", type=Path, default=None, help="the pre-trained tiny BERT (default: data/tiny_bert.pt)")
    p.add_argument("--seeds", default="0,1,2,3,4")
    p.add_argument("--budgets", default="32,64,128,256,512,1024,2048")
    p.add_argument("--tag-budgets", default="32,128,512")
    p.add_argument("--lr", type=float, default=FINE_TUNE_LR)
    return p


def test_set() -> list:
    """The fixed test sentences: ``TEST_PER_CELL`` per (corpus, label) of the held-out paragraphs."""
    return balanced_sample(labelled_sentences("held_out"), 4 * TEST_PER_CELL, seed=12345)


def tag_test_set() -> list:
    """The fixed test sentences of the tagging task, from the held-out paragraphs."""
    return random.Random(12345).sample(tagged_sentences("held_out"), TAG_TEST_SENTENCES)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start(args)
    started = time.perf_counter()
    model, tokenizer = load_pretrained(args.model, device=device)
    model_file = Path(args.model) if args.model else data_path(SHIPPED)
    seeds = [int(s) for s in args.seeds.split(",")]
    budgets = [int(b) for b in args.budgets.split(",")]
    tag_budgets = [int(b) for b in args.tag_budgets.split(",") if b]
    train_pool, test = labelled_sentences("train"), test_set()
    tag_pool, tag_test = tagged_sentences("train"), tag_test_set()
    spec = {"seeds": seeds, "budgets": budgets, "tag_budgets": tag_budgets, "lr": args.lr,
            "model_sha256": sha256sum(model_file)}  # fmt: skip
    rows, elapsed = [], 0.0
    if state_path.exists():
        saved = json.loads(state_path.read_text())
        if saved["spec"] != spec:
            raise ValueError(f"{state_path} holds a run with {saved['spec']}; this command asks for {spec}")
        rows, elapsed = saved["rows"], saved["elapsed"]
        print(f"resumed with {len(rows)} rows from {state_path}", flush=True)
    done = {(r["task"], r["budget"], r["seed"]) for r in rows}
    plan = [("classification", b, s) for s in seeds for b in budgets]
    plan += [("tagging", b, s) for s in seeds for b in tag_budgets]
    for task, budget, seed in plan:
        if (task, budget, seed) in done:
            continue
        steps = default_steps(budget)
        if task == "classification":
            train = balanced_sample(train_pool, budget, seed)
            scores = compare_methods(model, tokenizer, train, test, seed=seed, methods=METHODS, lr=args.lr)
        else:
            train = random.Random(seed).sample(tag_pool, budget)
            scores = compare_taggers(model, tokenizer, train, tag_test, seed=seed, lr=args.lr)
        for method, value in scores.items():
            rows.append(dict(task=task, budget=budget, seed=seed, method=method, steps=steps, accuracy=round(value, 6)))
        print(task, budget, seed, {k: round(v, 3) for k, v in scores.items()}, flush=True)
        text = json.dumps({"spec": spec, "rows": rows, "elapsed": elapsed + time.perf_counter() - started})
        atomic_write(state_path, lambda tmp, text=text: tmp.write_text(text, encoding="utf-8"))
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=seeds[0],
        device=device,
        started=started - elapsed,
        corpora=CORPORA,
        results={
            "model": {"file": model_file.name, "sha256": spec["model_sha256"]},
            "test_sentences": len(test),
            "tag_test_sentences": len(tag_test),
            "seeds": seeds,
        },
    )
    save_table(out, rows, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
