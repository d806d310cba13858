"""Train the character-level GPT of notebook 10 on ``tinyshakespeare.txt`` and write ``gpt_shakespeare.pt``.

    python -m dl4nlp.recipes.gpt_shakespeare --out data/gpt_shakespeare.pt --threads 1

The model is ``dl4nlp.gpt.gpt_config`` (4 pre-LN layers of width 128, 4 heads,
context 256, learned positions, tied output layer; about 0.83 M parameters).
The corpus is split once: the first 90 % trains, the last 10 % is held out, and
no training window reaches past the split (asserted). AdamW with weight decay on
the matrices, a linear warm-up then a cosine decay of the learning rate to a
tenth, gradients clipped to norm 1. The held-out loss of the shipped (float16)
weights over every non-overlapping held-out window is recorded with the loss of
every training step, so a short re-run can be compared with the shipped record
step by step. ``--resume`` continues an interrupted run from its last saved
state (``OUT.partial``), bit for bit.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_int, check_number, check_type
from dl4nlp.checkpoint import atomic_write, check_output, save_checkpoint
from dl4nlp.data import load_text
from dl4nlp.gpt import KIND, gpt_config, model_from_weights, weights_to_store
from dl4nlp.recipes import command_line, load_state, provenance, recipe_parser, start
from dl4nlp.sampling import generate
from dl4nlp.sweep import CharData, heldout_loss, lr_factor
from dl4nlp.train import train
from dl4nlp.transformer import TransformerLM, count_parameters
from dl4nlp.vocab import CharVocab

NAME = "gpt_shakespeare"
CORPUS = "tinyshakespeare.txt"


@dataclasses.dataclass(frozen=True)
class Recipe:
    """Everything that decides the shipped model besides the seed."""

    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 4
    context: int = 256
    batch_size: int = 16
    steps: int = 2500
    lr: float = 2e-3
    warmup_steps: int = 100
    min_lr_ratio: float = 0.1
    weight_decay: float = 0.1
    clip_norm: float = 1.0
    heldout_fraction: float = 0.1
    eval_every: int = 250
    eval_windows: int = 64  # evenly spaced held-out windows for the curve; the final loss uses all of them

    def __post_init__(self) -> None:
        for name in ("d_model", "n_heads", "n_layers", "context", "batch_size", "steps", "eval_every", "eval_windows"):
            check_int(name, getattr(self, name))
        check_int("warmup_steps", self.warmup_steps, 0)
        check_number("lr", self.lr, 0, low_open=True)
        check_number("min_lr_ratio", self.min_lr_ratio, 0, 1)
        check_number("weight_decay", self.weight_decay, 0)
        check_number("clip_norm", self.clip_norm, 0, low_open=True)
        check_number("heldout_fraction", self.heldout_fraction, 0, 1, low_open=True, high_open=True)


def optimizer_for(model: TransformerLM, recipe: Recipe) -> torch.optim.AdamW:
    """AdamW with weight decay on the weight matrices and embeddings only (not on biases and LayerNorms)."""
    check_type("model", model, TransformerLM, "a dl4nlp.transformer.TransformerLM")
    check_type("recipe", recipe, Recipe, "a gpt_shakespeare.Recipe")
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": recipe.weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=recipe.lr, betas=(0.9, 0.99))


def all_heldout_windows(data: CharData, context: int) -> torch.Tensor:
    """Every non-overlapping window of ``context + 1`` held-out characters, (N, T+1)."""
    check_type("data", data, CharData, "a dl4nlp.sweep.CharData")
    check_int("context", context)
    n = (len(data.heldout) - 1) // context
    if n < 1:
        raise ValueError(f"context must be below the {len(data.heldout)} held-out characters; got {context}")
    return torch.stack([data.heldout[i * context : i * context + context + 1] for i in range(n)])


def main(argv: Optional[Sequence[str]] = None) -> dict:
    """Train, then write the checkpoint and its provenance; returns the provenance written."""
    parser = recipe_parser(NAME, __doc__.strip().splitlines()[0])
    for field in dataclasses.fields(Recipe):
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=type(field.default), default=field.default)
    parser.add_argument("--resume", action="store_true", help="continue from OUT.partial if it exists")
    parser.add_argument(
        "--heldout-windows",
        type=int,
        default=0,
        help="score the final model on the first N "
        "held-out windows only (default 0: all of them; smaller for quick checks)",
    )
    parser.add_argument("--sample-chars", type=int, default=200, help="length of the greedy sample recorded")
    args = parser.parse_args(argv)
    recipe = Recipe(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Recipe)})
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    partial = out.with_name(out.name + ".partial")
    device = start(args)
    started, cpu_started = time.perf_counter(), time.process_time()

    text = load_text(CORPUS)
    vocab = CharVocab.from_text(text)
    data = CharData(text, heldout_fraction=recipe.heldout_fraction)
    split = len(data.train)
    assert "".join(vocab.chars) == "".join(data.chars) and split + len(data.heldout) == len(text)
    # Training windows start below split - context - 1, so none reaches the held-out tail.
    config = gpt_config(
        len(vocab), d_model=recipe.d_model, n_heads=recipe.n_heads, n_layers=recipe.n_layers, max_len=recipe.context
    )
    model = TransformerLM(config).to(device)
    optimizer = optimizer_for(model, recipe)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        # LambdaLR also asks for step == steps after the last step; sweep.lr_factor's cosine over steps + 1
        # gives, for steps 0..steps, exactly the schedule the shipped model was trained with.
        optimizer,
        lambda step: lr_factor(step, recipe.steps + 1, "cosine", recipe.warmup_steps, recipe.min_lr_ratio),
    )
    generator = torch.Generator().manual_seed(args.seed)
    curve_windows = data.windows("heldout", recipe.eval_windows, recipe.context)
    losses, curve, done, cpu_before, wall_before = [], [], 0, 0.0, 0.0
    if args.resume and partial.is_file():
        state = load_state(partial)
        if state.get("recipe") != dataclasses.asdict(recipe) or state.get("seed") != args.seed:
            raise ValueError(f"{partial} was written by another recipe or seed; delete it or drop --resume")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        schedule.load_state_dict(state["schedule"])
        generator.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        losses, curve, done, cpu_before = state["losses"], state["curve"], state["done"], state["cpu_seconds"]
        wall_before = state.get("wall_seconds", 0.0)  # the earlier sessions' wall time
        print(f"resumed from {partial} at step {done}", flush=True)

    def next_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        return data.batch(recipe.batch_size, recipe.context, generator)

    while done < recipe.steps:
        chunk = min(recipe.eval_every - done % recipe.eval_every, recipe.steps - done)
        history = train(
            model,
            lambda m, batch: m.loss(*batch),
            next_batch,
            steps=chunk,
            optimizer=optimizer,
            scheduler=schedule,
            clip_norm=recipe.clip_norm,
            device=device,
            progress=False,
        )
        if history.diverged:
            raise RuntimeError(f"training diverged near step {done + len(history.loss)}")
        losses += history.loss
        done += chunk
        curve.append({"step": done, "heldout_loss": heldout_loss(model, curve_windows)})
        cpu = cpu_before + time.process_time() - cpu_started
        print(
            f"step {done}/{recipe.steps}: train {sum(losses[-50:]) / len(losses[-50:]):.4f}, "
            f"held-out {curve[-1]['heldout_loss']:.4f}, {cpu:.0f} CPU s",
            flush=True,
        )
        if done < recipe.steps:
            state = {
                "recipe": dataclasses.asdict(recipe),
                "seed": args.seed,
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "schedule": schedule.state_dict(),
                "generator": generator.get_state(),
                "torch_rng": torch.get_rng_state(),
                "losses": losses,
                "curve": curve,
                "done": done,
                "cpu_seconds": cpu,
                "wall_seconds": wall_before + time.perf_counter() - started,
            }
            atomic_write(partial, lambda tmp, state=state: torch.save(state, tmp))

    weights = weights_to_store(model)  # float16: what ships, so what is evaluated
    shipped = model_from_weights(config, weights).to(device)
    final_windows = all_heldout_windows(data, recipe.context)
    final_windows = final_windows[: args.heldout_windows] if args.heldout_windows > 0 else final_windows
    loss = heldout_loss(shipped, final_windows)
    prompt = torch.tensor([vocab.encode("ROMEO:\n")], device=device)
    greedy = vocab.decode(generate(shipped, prompt, args.sample_chars, temperature=0, use_cache=False)[0].tolist())
    results = {
        "parameters": count_parameters(model),
        "split_index": split,
        "train_characters": split,
        "heldout_characters": len(data.heldout),
        "heldout_loss": loss,
        "heldout_perplexity": math.exp(loss),
        "heldout_windows": len(final_windows),
        "heldout_loss_float32": heldout_loss(model, final_windows),
        "train_loss_last_100": sum(losses[-100:]) / len(losses[-100:]),
        "tokens_seen": recipe.steps * recipe.batch_size * recipe.context,
        "cpu_seconds": round(cpu_before + time.process_time() - cpu_started, 1),
        "curve": curve,
        "losses": losses,
        "greedy_sample": greedy,
    }
    record = provenance(
        command=command_line(NAME, argv),
        arguments={**dataclasses.asdict(recipe), "seed": args.seed, "threads": args.threads},
        seed=args.seed,
        device=device,
        started=started,
        corpora=[CORPUS],
        results=results,
    )
    record["wall_seconds"] = round(wall_before + time.perf_counter() - started, 1)  # every session's
    record = save_checkpoint(
        out,
        kind=KIND,
        config=config,
        state_dict=weights,
        extra={"chars": vocab.chars, "split_index": split},
        provenance=record,
        overwrite=args.overwrite,
    )
    if partial.exists():
        partial.unlink()
    print(
        f"{out}: held-out loss {loss:.4f} nats/char (perplexity {math.exp(loss):.2f}), {count_parameters(model):,} "
        f"parameters, {results['cpu_seconds']:.0f} CPU s",
        flush=True,
    )
    return record


if __name__ == "__main__":
    main()
