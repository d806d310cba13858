"""Train notebook 11's two-layer attention-only models on repeated random sequences; ship seed 0's weights.

    python -m dl4nlp.recipes.induction_heads --out data/induction_heads.pt --threads 1

Runs ``dl4nlp.experiments.transformer.train_induction_model`` for seeds
0 .. ``--seeds`` - 1 at the sizes the module fixes, and writes seed 0's model
(float32: it is small) in the one checkpoint format; the provenance beside it
holds every seed's loss curves and attention scores, so the notebook and the
claims suite can check the finding across seeds without training.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Optional, Sequence

from dl4nlp._checks import check_int
from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.experiments import transformer as experiment
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "induction_heads"


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Train every seed; write seed 0's checkpoint and everyone's numbers."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="train seeds 0 .. N-1")
    parser.add_argument("--steps", type=int, default=experiment.INDUCTION_SIZES["steps"])
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    check_int("--seeds", args.seeds)  # seed 0's model is what ships
    device = start(args)
    started = time.perf_counter()
    results, first_model = [], None
    for seed in range(args.seeds):
        model, result = experiment.train_induction_model(seed, {"steps": args.steps})
        results.append(dataclasses.asdict(result))
        first_model = first_model or model
        print(f"seed {seed}: repeat loss {result.repeat_loss[-1]:.3f}, best head {result.best_head}", flush=True)
    return save_checkpoint(
        out,
        kind=experiment.INDUCTION_KIND,
        config=first_model.config,
        state_dict=first_model.state_dict(),
        extra={"sizes": {**experiment.INDUCTION_SIZES, "steps": args.steps}},
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
