"""Notebook 11's encoder-decoder Transformer on 06's dates, against 06's GRU with attention, across seeds.

    python -m dl4nlp.recipes.date_transformer --out data/date_transformer.pt --threads 1

For seeds 0 .. ``--seeds`` - 1, ``dl4nlp.experiments.transformer.compare_on_dates``
trains both models on the same pairs, batches and number of steps and scores
them on held-out dates by source length; the seed-0 Transformer is written in
the one checkpoint format, every seed's numbers into its provenance. With
``--workers N`` the seeds train in N processes of one thread each (the numbers do
not depend on N).

A short version for checking a recorded run (``tests/test_transformer_recipes.py``):
``--seeds 1 --stop-after 3 --eval-size 50`` trains each model 3 steps of the
``--steps`` schedule and scores 50 test dates, in seconds; its losses are the
recorded run's first ones, bit for bit on the recorded torch, threads and CPU
kernels (``cpu_capability``, recorded).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_int
from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.experiments import transformer as experiment
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "date_transformer"


def _one_seed(seed: int, steps: int, eval_size: Optional[int] = None, stop_after: Optional[int] = None):
    """One seed's comparison (a dict) and its Transformer's weights (run in a worker process on one thread)."""
    torch.set_num_threads(1)
    comparison, model = experiment.compare_on_dates(seed, steps=steps, eval_size=eval_size, stop_after=stop_after)
    return dataclasses.asdict(comparison), {k: v.detach().clone() for k, v in model.state_dict().items()}


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Compare on every seed; write seed 0's Transformer and everyone's numbers."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 .. N-1")
    parser.add_argument("--steps", type=int, default=400, help="training steps of each model")
    parser.add_argument("--workers", type=int, default=1, help="seeds trained in parallel, one thread each")
    parser.add_argument(
        "--eval-size", type=int, default=None, help="score only the first N test dates (default: all of them)"
    )
    parser.add_argument(
        "--stop-after", type=int, default=None, help="end after N steps of the --steps schedule (a short check)"
    )
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    check_int("--seeds", args.seeds)  # seed 0's model is what ships
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1; got {args.workers}")
    if args.eval_size is not None:
        check_int("--eval-size", args.eval_size, 1, experiment.DATE_TEST["n"])
    if args.stop_after is not None:
        check_int("--stop-after", args.stop_after, 1, args.steps)
    device = start(args)
    started = time.perf_counter()
    seeds = list(range(args.seeds))
    n = len(seeds)
    if args.workers == 1:
        runs = [_one_seed(seed, args.steps, args.eval_size, args.stop_after) for seed in seeds]
    else:
        with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            runs = list(pool.map(_one_seed, seeds, [args.steps] * n, [args.eval_size] * n, [args.stop_after] * n))
    results = [comparison for comparison, _ in runs]
    for c in results:
        print(f"seed {c['seed']}: transformer {c['transformer'][-1]}, gru {c['gru'][-1]}", flush=True)
    return save_checkpoint(
        out,
        kind=experiment.DATE_KIND,
        config=experiment.date_transformer(0).config,
        state_dict=runs[0][1],
        extra={"sizes": dict(experiment.DATE_SIZES)},
        provenance={
            **provenance(
                command=command_line(NAME, argv),
                arguments={
                    "seeds": args.seeds,
                    "steps": args.steps,
                    "threads": args.threads,
                    "workers": args.workers,
                    **{k: getattr(args, k) for k in ("eval_size", "stop_after") if getattr(args, k) is not None},
                },
                seed=0,
                device=device,
                started=started,
                results={"seeds": results},
            ),
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        },
        overwrite=args.overwrite,
    )


if __name__ == "__main__":
    main()
