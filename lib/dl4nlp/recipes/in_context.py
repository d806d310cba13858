"""Train chapter 11's in-context learners on prompts of noisy examples of a fresh lookup table; ship seed 0's model.

    python -m dl4nlp.recipes.in_context --out data/in_context.pt --threads 1

Runs ``dl4nlp.icl.train_icl_model`` for seeds 0 .. ``--seeds`` - 1 at the sizes
``dl4nlp.icl.ICL_SIZES`` fixes, and writes seed 0's model (float32: it is
small) in the one checkpoint format; the provenance beside it holds every
seed's training-loss curve (every 25th step) and its table from
``dl4nlp.icl.icl_table`` (accuracy by number of examples on held-out prompts,
the corrupted-prompt control and the two reference readers), so that the
notebook and the claims suite can check the finding across seeds without
training.
"""

from __future__ import annotations

import time
from typing import Optional, Sequence

from dl4nlp import icl
from dl4nlp._checks import check_int
from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.recipes import command_line, provenance, recipe_parser, start

NAME = "in_context"


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Train every seed; write seed 0's checkpoint and everyone's numbers."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="train seeds 0 .. N-1")
    parser.add_argument("--steps", type=int, default=icl.ICL_SIZES["steps"])
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    check_int("--seeds", args.seeds)  # seed 0's model is what ships
    check_int("--steps", args.steps)
    device = start(args)
    started = time.perf_counter()
    sizes = {**icl.ICL_SIZES, "steps": args.steps}
    results, first_model = [], None
    for seed in range(args.seeds):
        began = time.perf_counter()
        model, losses = icl.train_icl_model(seed, sizes)
        table = icl.icl_table(model, seed, sizes=sizes)
        table["loss"] = [round(x, 5) for x in losses[::25]]
        table["seconds"] = round(time.perf_counter() - began, 1)
        results.append(table)
        first_model = first_model or model
        print(f"seed {seed}: accuracy by examples {[round(a, 3) for a in table['accuracy']]}", flush=True)
    return save_checkpoint(
        out,
        kind=icl.ICL_KIND,
        config=first_model.config,
        state_dict=first_model.state_dict(),
        extra={"sizes": sizes},
        provenance=provenance(
            command=command_line(NAME, argv),
            arguments={"seeds": args.seeds, "steps": args.steps, "threads": args.threads},
            seed=0,
            device=device,
            started=started,
            results={"seeds": results, "test_prompts": icl.TEST_PROMPTS},
        ),
        overwrite=args.overwrite,
    )


if __name__ == "__main__":
    main()
