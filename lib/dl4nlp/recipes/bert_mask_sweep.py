"""Recipe: too little and too much masking, measured: small BERTs pre-trained at each masking rate, several seeds.

    python -m dl4nlp.recipes.bert_mask_sweep --out data/bert_mask_sweep.csv

Every run trains the same small masked LM (no next-sentence task) for the same
number of steps on the same pairs of sentences, with the tiny BERT's WordPiece
vocabulary and text (``dl4nlp.recipes.tiny_bert.prepare``); only the share of
tokens chosen for prediction changes. Each is then scored on the held-out
paragraphs in one way: masked-token accuracy with the standard 15 % masking.
Rows: rate, seed, the held-out accuracy and loss at 15 %, the accuracy at the
run's own rate, the unigram baseline on the same positions, and the number of
prediction targets per training batch. The provenance JSON records each run's
training loss at its first ten steps and every tenth step after
(``results["losses"]["<rate>,<seed>"]``), so a short re-run checks the trained
columns' runs bit for bit. Rows are saved as they finish to a state file beside
``--out``; the same command resumes.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_device, check_int, check_number, check_type
from dl4nlp.bert_pretrain import Pretrainer, PretrainingData, evaluate, make_model
from dl4nlp.checkpoint import check_output, save_table
from dl4nlp.dialogue import CORPORA
from dl4nlp.recipes import (
    _check_args,
    comma_floats,
    comma_ints,
    command_line,
    parallel_map,
    provenance,
    recipe_parser,
    resume_rows,
    save_rows,
    start,
)
from dl4nlp.recipes.tiny_bert import prepare

NAME = "bert_mask_sweep"
HISTORY = ("python -m dl4nlp.bert_pretrain mask-sweep --out data/bert_mask_rates.csv --steps 800 --threads 1",)
EVAL_RATE = 0.15


def parser() -> argparse.ArgumentParser:
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--rates", default="0.05,0.15,0.3,0.5,0.8,1.0")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--steps", type=int, default=1500)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--vocab-size", type=int, default=4096, help="the tiny BERT's vocabulary (same text, same size)")
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--max-len", type=int, default=64)
    p.add_argument("--eval-pairs", type=int, default=512)
    p.add_argument("--jobs", type=int, default=1, help="processes (the result does not depend on it)")
    return p


def recorded_steps(steps: int) -> list[int]:
    """The steps whose training loss the table records: the first ten, then every tenth.

    >>> recorded_steps(35)
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 30]
    """
    check_int("steps", steps)
    return [s for s in range(1, steps + 1) if s <= 10 or s % 10 == 0]


def build(args: argparse.Namespace, data, vocab_size: int, rate: float, seed: int, device: torch.device) -> Pretrainer:
    """The seeded model and trainer of one run (masking ``rate``, ``seed``), before any step."""
    _check_args(args, ("d_model", "layers", "heads", "max_len", "steps", "batch_size", "lr", "warmup"))
    check_type("data", data, PretrainingData, "a PretrainingData (from dl4nlp.recipes.tiny_bert.prepare)")
    check_int("vocab_size", vocab_size)
    check_number("rate", rate, 0, 1, low_open=True)
    check_int("seed", seed, low=0)
    check_device("device", device)
    torch.manual_seed(seed)
    model = make_model(
        vocab_size, d_model=args.d_model, n_layers=args.layers, n_heads=args.heads, d_ff=4 * args.d_model,
        max_len=args.max_len,
    )  # fmt: skip
    trainer = Pretrainer(
        model, data, steps=args.steps, batch_size=args.batch_size, lr=args.lr, warmup=args.warmup, seed=seed,
        mask_prob=rate, nsp_weight=0.0, device=device,
    )  # fmt: skip
    return trainer


def run(args: argparse.Namespace, data, vocab_size: int, rate: float, seed: int, device: torch.device) -> dict:
    """Train one small masked LM at masking ``rate`` with ``seed`` and score it on the held-out pairs.

    The row's ``losses`` are the training losses at ``recorded_steps(args.steps)``; ``main`` moves them to
    the provenance JSON.
    """
    _check_args(args, ("d_model", "layers", "heads", "max_len", "steps", "batch_size", "lr", "warmup", "eval_pairs"))
    trainer = build(args, data, vocab_size, rate, seed, device)
    model = trainer.model
    trainer.run(progress=False)
    at_15 = evaluate(model, data, n_pairs=args.eval_pairs, mask_prob=EVAL_RATE)
    own = evaluate(model, data, n_pairs=args.eval_pairs, mask_prob=rate)
    return dict(
        rate=rate,
        seed=seed,
        accuracy_at_15=round(at_15["masked_accuracy"], 6),
        loss_at_15=round(at_15["masked_loss"], 6),
        unigram_at_15=round(at_15["unigram_accuracy"], 6),
        accuracy_at_own_rate=round(own["masked_accuracy"], 6),
        targets_per_batch=round(own["predicted_tokens"] / args.eval_pairs * args.batch_size, 2),
        final_training_loss=round(sum(trainer.history.loss[-20:]) / len(trainer.history.loss[-20:]), 6),
        losses=[trainer.history.loss[s - 1] for s in recorded_steps(args.steps)],
    )


_SHARED: dict = {}  # what the worker processes read; filled before the pool forks


def _unit(unit: tuple[float, int]) -> dict:
    torch.set_num_threads(_SHARED["args"].threads)
    rate, seed = unit
    return run(_SHARED["args"], _SHARED["data"], _SHARED["vocab_size"], rate, seed, _SHARED["device"])


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".csv")
    rates, seeds = comma_floats("--rates", args.rates, 0, 1), comma_ints("--seeds", args.seeds, 0)
    state_path = out.with_name(f".{out.stem}.rows.json")
    device = start(args)
    started = time.perf_counter()
    tokenizer, data = prepare(args)
    # What a saved row depends on beyond its (rate, seed): the training settings. The lists of rates and seeds
    # are not in it, so a run asking for fewer or more units resumes the same state, keeping only its own rows.
    ignored = ("out", "overwrite", "threads", "device", "jobs", "rates", "seeds")
    spec = {k: v for k, v in vars(args).items() if k not in ignored}
    rows, elapsed = resume_rows(state_path, spec)
    done = {(r["rate"], r["seed"]) for r in rows}
    _SHARED.update(args=args, data=data, vocab_size=len(tokenizer), device=device)
    units = [(rate, seed) for seed in seeds for rate in rates if (rate, seed) not in done]
    for row in parallel_map(_unit, units, args.jobs):
        rows.append(row)
        print(row, flush=True)
        save_rows(state_path, spec, rows, elapsed + time.perf_counter() - started)
    rows = [dict(r) for r in rows if r["rate"] in rates and r["seed"] in seeds]
    rows.sort(key=lambda r: (r["seed"], r["rate"]))
    losses = {f"{r['rate']},{r['seed']}": r.pop("losses") for r in rows}
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=seeds[0],
        device=device,
        started=started - elapsed,
        corpora=CORPORA,
        results={
            "vocabulary_size": len(tokenizer),
            "eval_rate": EVAL_RATE,
            "seeds": seeds,
            "rates": rates,
            "loss_steps": recorded_steps(args.steps),
            "losses": losses,
        },
        history=HISTORY,
    )
    save_table(out, rows, provenance=record, overwrite=args.overwrite)
    state_path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
