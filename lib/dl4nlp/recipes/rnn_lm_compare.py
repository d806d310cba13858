"""Notebook 04's character language models: a tanh RNN, a GRU and an LSTM at equal parameter count, as one table.

    python -m dl4nlp.recipes.rnn_lm_compare --out data/rnn_lm_compare.json --threads 1

Each kind gets the width whose parameter count is closest to a 128-cell LSTM's
(``dl4nlp.experiments.lstm.lm_sizes``) and trains by ``char_lm`` (Adam, clipping at
1, ``LM_STEPS`` batches of 32 windows of 65 characters of the first 85 % of
``sherlock_holmes.txt``). On seed 0 each kind tries every rate of ``LM_RATES`` and
keeps the one with the lower loss on the validation text (the next 5 %); the other
seeds train at that rate. Every run is scored on the test text, the last 10 %,
which neither training nor the choice of rate read. Resumable (``OUT.partial``).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Optional, Sequence

from dl4nlp._checks import check_sequence, given
from dl4nlp.experiments import lstm as experiment
from dl4nlp.recipes import resume_rows, save_rows, seeded_table_run, table_provenance, write_table

NAME = "rnn_lm_compare"


def chosen_rates(rows: Sequence[dict]) -> dict[str, float]:
    """kind -> the rate whose seed-0 run has the lowest validation loss.

    >>> chosen_rates([{"kind": "rnn", "seed": 0, "lr": 0.01, "validation_loss": 1.9},
    ...               {"kind": "rnn", "seed": 0, "lr": 0.003, "validation_loss": 2.0}])
    {'rnn': 0.01}
    """
    best: dict[str, dict] = {}
    for row in check_sequence("rows", rows, what="a list of the recipe's runs (dicts)"):
        if not isinstance(row, dict) or any(key not in row for key in ("kind", "seed", "lr", "validation_loss")):
            raise ValueError(f"rows must hold dicts with kind, seed, lr and validation_loss; got {given(row)}")
        if row["seed"] == 0 and (
            row["kind"] not in best or row["validation_loss"] < best[row["kind"]]["validation_loss"]
        ):
            best[row["kind"]] = row
    return {kind: row["lr"] for kind, row in best.items()}


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run the rate search on seed 0, then the other seeds at the chosen rates, and write the table."""
    args, out, partial, device = seeded_table_run(
        NAME,
        __doc__,
        argv,
        seeds=2,
        seeds_help="seeds 0 .. N-1 (seed 0 chooses the rates)",
        resume_help="keep the runs finished in OUT.partial",
    )
    started = time.perf_counter()
    spec = {"kinds": list(experiment.LM_KINDS), "rates": list(experiment.LM_RATES), "steps": experiment.LM_STEPS,
            "lstm_hidden": experiment.LM_LSTM_HIDDEN, "window": experiment.LM_WINDOW, "batch": experiment.LM_BATCH,
            "corpus": experiment.LM_CORPUS}  # fmt: skip
    rows, elapsed = resume_rows(partial, spec) if args.resume else ([], 0.0)

    def run(kind: str, seed: int, lr: float) -> None:
        if any(r["kind"] == kind and r["seed"] == seed and r["lr"] == lr for r in rows):
            return
        result = dataclasses.asdict(experiment.char_lm(kind, seed, lr))
        result["test_perplexity"] = math.exp(result["test_loss"])
        rows.append(result)
        save_rows(partial, spec, rows, elapsed + time.perf_counter() - started)
        print(f"{kind} seed {seed} lr {lr:g}: {result['parameters']} parameters, validation "
              f"{result['validation_loss']:.4f}, test {result['test_loss']:.4f} nats", flush=True)  # fmt: skip

    for kind in experiment.LM_KINDS:
        for lr in experiment.LM_RATES:
            run(kind, 0, lr)
    rates = chosen_rates(rows)
    for seed in range(1, args.seeds):
        for kind in experiment.LM_KINDS:
            run(kind, seed, rates[kind])
    record = {
        "what": "notebook 04: character language models of sherlock_holmes.txt (tanh RNN, GRU, LSTM, one layer, "
        "parameter counts within 2 % of a 128-cell LSTM's), the learning rate chosen per kind on seed 0's "
        "validation loss; test loss (nats per character) on the last 10 % of the text",
        **spec,
        "chosen_rates": rates,
        "runs": rows,
        "provenance": table_provenance(NAME, argv, args, device, started, elapsed, corpora=[experiment.LM_CORPUS]),
    }
    return write_table(out, record, partial)


if __name__ == "__main__":
    main()
