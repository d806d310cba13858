"""Notebook 07's encoder-decoder Transformer on 04's dates, against 04's GRU with attention, across seeds.

    python -m dl4nlp.recipes.date_transformer --out data/date_transformer.pt --threads 1

For seeds 0 .. ``--seeds`` - 1, ``dl4nlp.experiments.transformer.compare_on_dates``
trains both models on the same pairs, batches and number of steps and scores
them on held-out dates by source length; the seed-0 Transformer is written in
the one checkpoint format, every seed's numbers into its provenance. With
``--workers N`` the seeds train in N processes of one thread each (the numbers do
not depend on N).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Optional, Sequence

import torch

from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.experiments import transformer as experiment
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "date_transformer"


def _one_seed(seed: int, steps: int) -> tuple[dict, dict]:
    """One seed's comparison and its Transformer's weights (run in a worker process on one thread)."""
    torch.set_num_threads(1)
    comparison, model = experiment.compare_on_dates(seed, steps=steps)
    return dataclasses.asdict(comparison), {k: v.detach().clone() for k, v in model.state_dict().items()}


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Compare on every seed; write seed 0's Transformer and everyone's numbers."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 .. N-1")
    parser.add_argument("--steps", type=int, default=400, help="training steps of each model")
    parser.add_argument("--workers", type=int, default=1, help="seeds trained in parallel, one thread each")
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    device = start(args)
    started = time.perf_counter()
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1; got {args.workers}")
    seeds = list(range(args.seeds))
    if args.workers == 1:
        runs = [_one_seed(seed, args.steps) for seed in seeds]
    else:
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            runs = list(pool.map(_one_seed, seeds, [args.steps] * len(seeds)))
    results = [comparison for comparison, _ in runs]
    for c in results:
        print(f"seed {c['seed']}: transformer {c['transformer'][-1]}, gru {c['gru'][-1]}", flush=True)
    return save_checkpoint(
        out,
        kind=experiment.DATE_KIND,
        config=experiment.date_transformer(0).config,
        state_dict=runs[0][1],
        extra={"sizes": dict(experiment.DATE_SIZES)},
        provenance=provenance(
            command=command_line(NAME, argv),
            arguments={"seeds": args.seeds, "steps": args.steps, "threads": args.threads, "workers": args.workers},
            seed=0,
            device=device,
            started=started,
            results={"seeds": results},
        ),
        overwrite=args.overwrite,
    )


if __name__ == "__main__":
    main()
