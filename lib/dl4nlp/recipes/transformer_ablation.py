"""Notebook 10's ablations across seeds: the ingredient ladder and the warm-up study, as one JSON table.

    python -m dl4nlp.recipes.transformer_ablation --out data/transformer_ablation.json --threads 1

Runs ``dl4nlp.experiments.transformer.ingredient_ladder`` with every variant
(the four steps and the two ablations) for ``--ladder-seeds`` seeds, and
``warmup_runs`` for ``--warmup-seeds`` seeds, at the sizes the module fixes;
writes their numbers with the provenance (command, versions, corpus md5, wall
time). The notebook runs the cheap part live and reads the rest from here.
Resumable: finished seeds are kept in ``OUT.partial`` and skipped by ``--resume``;
a partial file of other steps or sizes is refused, and the wall time recorded is
that of every session.
"""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Optional, Sequence

from dl4nlp._checks import check_int
from dl4nlp.checkpoint import check_output
from dl4nlp.experiments import transformer as experiment
from dl4nlp.recipes import (
    recipe_parser,
    resume_rows,
    save_rows,
    start,
    table_provenance,
    write_table,
)

NAME = "transformer_ablation"


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Run the seeds and write the table; returns what was written."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--ladder-seeds", type=int, default=5, help="seeds 0 .. N-1 of the ingredient ladder")
    parser.add_argument("--warmup-seeds", type=int, default=3, help="seeds 0 .. N-1 of the warm-up study")
    parser.add_argument("--ladder-steps", type=int, default=experiment.LADDER_SIZES["steps"])
    parser.add_argument("--warmup-steps", type=int, default=experiment.WARMUP_SIZES["steps"])
    parser.add_argument("--resume", action="store_true", help="keep the seeds finished in OUT.partial")
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".json")
    check_int("--ladder-seeds", args.ladder_seeds, 0)
    check_int("--warmup-seeds", args.warmup_seeds, 0)
    partial = out.with_name(out.name + ".partial")
    device = start(args)
    started = time.perf_counter()
    spec = json.loads(json.dumps({
        "ladder_sizes": {**experiment.LADDER_SIZES, "steps": args.ladder_steps},
        "ladder_variants": experiment.LADDER,
        "warmup_sizes": {**experiment.WARMUP_SIZES, "steps": args.warmup_steps},
    }))  # fmt: skip
    rows, elapsed = resume_rows(partial, spec) if args.resume else ([], 0.0)  # another spec's: refused
    done: dict = {"ladder": {}, "warmup": {}}
    for study, seed, result in rows:
        done[study][str(seed)] = result

    def save() -> None:
        finished = [[study, int(seed), result] for study in done for seed, result in done[study].items()]
        save_rows(partial, spec, finished, elapsed + time.perf_counter() - started)

    variants = tuple(experiment.LADDER)
    for seed in range(args.ladder_seeds):
        if str(seed) not in done["ladder"]:
            done["ladder"][str(seed)] = dataclasses.asdict(
                experiment.ingredient_ladder(seed, variants, {"steps": args.ladder_steps})
            )
            save()
            print(f"ladder seed {seed}: {done['ladder'][str(seed)]['heldout']}", flush=True)
    for seed in range(args.warmup_seeds):
        if str(seed) not in done["warmup"]:
            done["warmup"][str(seed)] = dataclasses.asdict(experiment.warmup_runs(seed, {"steps": args.warmup_steps}))
            save()
            print(f"warm-up seed {seed}: {done['warmup'][str(seed)]['heldout']}", flush=True)
    record = {
        "what": "held-out losses (nats per character) of notebook 10's ingredient ladder and warm-up study",
        "ladder_sizes": {**experiment.LADDER_SIZES, "steps": args.ladder_steps},
        "ladder_variants": {name: switches for name, switches in experiment.LADDER.items()},
        "warmup_sizes": {**experiment.WARMUP_SIZES, "steps": args.warmup_steps},
        "ladder": [done["ladder"][str(s)] for s in range(args.ladder_seeds)],
        "warmup": [done["warmup"][str(s)] for s in range(args.warmup_seeds)],
        "provenance": table_provenance(NAME, argv, args, device, started, elapsed, corpora=[experiment.CORPUS]),
    }
    return write_table(out, record, partial)


if __name__ == "__main__":
    main()
