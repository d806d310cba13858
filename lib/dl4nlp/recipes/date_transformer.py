"""Notebook 07's encoder-decoder Transformer on 04's dates, against 04's GRU with attention, across seeds.

    python -m dl4nlp.recipes.date_transformer --out data/date_transformer.pt --threads 1

For seeds 0 .. ``--seeds`` - 1, ``dl4nlp.experiments.transformer.compare_on_dates``
trains both models on the same pairs, batches and number of steps and scores
them on held-out dates by source length; the seed-0 Transformer is written in
the one checkpoint format, every seed's numbers into its provenance.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Optional, Sequence

from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.experiments import transformer as experiment
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "date_transformer"


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Compare on every seed; write seed 0's Transformer and everyone's numbers."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 .. N-1")
    parser.add_argument("--steps", type=int, default=400, help="training steps of each model")
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    device = start(args)
    started = time.perf_counter()
    results, first = [], None
    for seed in range(args.seeds):
        comparison, model = experiment.compare_on_dates(seed, steps=args.steps)
        results.append(dataclasses.asdict(comparison))
        first = first or model
        print(f"seed {seed}: transformer {comparison.transformer[-1]}, gru {comparison.gru[-1]}", flush=True)
    return save_checkpoint(
        out,
        kind=experiment.DATE_KIND,
        config=first.config,
        state_dict=first.state_dict(),
        extra={"sizes": dict(experiment.DATE_SIZES)},
        provenance=provenance(
            command=command_line(NAME, argv),
            arguments={"seeds": args.seeds, "steps": args.steps, "threads": args.threads},
            seed=0,
            device=device,
            started=started,
            results={"seeds": results},
        ),
        overwrite=args.overwrite,
    )


if __name__ == "__main__":
    main()
