"""Recipe: the tiny BERT of notebook 13, pre-trained on Sherlock Holmes + TinyStories with its own WordPiece.

    python -m dl4nlp.recipes.tiny_bert --out data/tiny_bert.pt

1. Learn a WordPiece vocabulary (``dl4nlp.wordpiece.WordPiece.train``) on the
   pre-training text: the first 80 % of the paragraphs of both corpora,
   quotation marks removed (``dl4nlp.dialogue.pretraining_documents``).
2. Pre-train ``dl4nlp.bert_pretrain.make_model`` with masked LM + next-sentence
   prediction (``Pretrainer``: AdamW, warm-up, linear decay).
3. Evaluate masked-token and NSP accuracy on the held-out 20 % of the paragraphs.
4. Write the one checkpoint format (float16 weights, the vocabulary as
   ``extra``) and its provenance, atomically; every loss is recorded.

Resumable: ``--session-steps N`` stops after N steps and keeps the full
training state in ``--state`` (default: a hidden file beside ``--out``); the
same command resumes it (a state made with other arguments is refused) and
the finished run equals an uninterrupted one bit for bit.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_device, check_int, check_type
from dl4nlp.bert import CHECKPOINT_KIND, checkpoint_state
from dl4nlp.bert_pretrain import TINY, Pretrainer, PretrainingData, evaluate, make_model
from dl4nlp.checkpoint import atomic_write, check_output, save_checkpoint
from dl4nlp.dialogue import CORPORA, pretraining_documents
from dl4nlp.recipes import _check_args, command_line, load_state, provenance, recipe_parser, start
from dl4nlp.transformer import count_parameters
from dl4nlp.wordpiece import WordPiece

NAME = "tiny_bert"
# What shipped before this recipe, kept as history (a 4,096-word vocabulary of TinyStories alone).
HISTORY = ("python -m dl4nlp.bert_pretrain train --out data/tiny_bert_tinystories.pt --threads 1",)
SPEC_KEYS = ("seed", "steps", "batch_size", "lr", "warmup", "vocab_size", "d_model", "layers", "heads", "max_len")


def parser() -> argparse.ArgumentParser:
    p = recipe_parser(NAME, __doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=4000)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=200)
    p.add_argument("--vocab-size", type=int, default=4096)
    p.add_argument("--d-model", type=int, default=TINY["d_model"])
    p.add_argument("--layers", type=int, default=TINY["n_layers"])
    p.add_argument("--heads", type=int, default=TINY["n_heads"])
    p.add_argument("--max-len", type=int, default=TINY["max_len"])
    p.add_argument("--session-steps", type=int, default=None, help="stop after this many steps (resume later)")
    p.add_argument("--save-every", type=int, default=250, help="steps between saves of the training state")
    p.add_argument("--state", type=Path, default=None, help="the training state file (default: beside --out)")
    return p


def prepare(args: argparse.Namespace) -> tuple[WordPiece, PretrainingData]:
    """The tokenizer learned on the pre-training text, and that text encoded with it."""
    _check_args(args, ("vocab_size",))
    check_int("args.vocab_size (--vocab-size)", args.vocab_size, low=8)
    train_documents = pretraining_documents("train")
    tokenizer = WordPiece.train((s for d in train_documents for s in d), vocab_size=args.vocab_size)
    data = PretrainingData({"train": train_documents, "held_out": pretraining_documents("held_out")}, tokenizer)
    return tokenizer, data


def build(args: argparse.Namespace, vocab_size: int, device: torch.device, data: PretrainingData) -> Pretrainer:
    """The model (seeded with ``args.seed``) and its Pretrainer, as ``args`` say."""
    names = ("seed", "d_model", "layers", "heads", "max_len", "steps", "batch_size", "lr", "warmup")
    _check_args(args, names)
    check_int("vocab_size", vocab_size)
    check_device("device", device)
    check_type("data", data, PretrainingData, "a PretrainingData (from prepare)")
    torch.manual_seed(args.seed)
    model = make_model(
        vocab_size, d_model=args.d_model, n_layers=args.layers, n_heads=args.heads, d_ff=4 * args.d_model,
        max_len=args.max_len,
    )  # fmt: skip
    return Pretrainer(
        model, data, steps=args.steps, batch_size=args.batch_size, lr=args.lr, warmup=args.warmup,
        seed=args.seed, device=device,
    )  # fmt: skip


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".pt")  # refuse before hours of work
    state_path = args.state or out.with_name(f".{out.stem}.state.pt")
    device = start(args)
    started = time.perf_counter()
    spec = {k: getattr(args, k) for k in SPEC_KEYS}
    tokenizer, data = prepare(args)
    trainer = build(args, len(tokenizer), device, data)
    elapsed = 0.0
    if state_path.exists():
        state = load_state(state_path)
        if state.get("spec") != spec:
            raise ValueError(f"{state_path} holds a run with {state.get('spec')}; this command asks for {spec}")
        trainer.load_state_dict(state["trainer"])
        elapsed = state["elapsed"]
        print(f"resumed at step {trainer.done} from {state_path}", flush=True)

    def save_state() -> None:
        record = {"spec": spec, "trainer": trainer.state_dict(), "elapsed": elapsed + time.perf_counter() - started}
        atomic_write(state_path, lambda tmp: torch.save(record, tmp))

    target = trainer.steps if args.session_steps is None else min(trainer.steps, trainer.done + args.session_steps)
    while trainer.done < target:
        trainer.run(min(args.save_every, target - trainer.done), desc=f"{NAME} {trainer.done}/{trainer.steps}")
        print(f"step {trainer.done}: loss {trainer.history.loss[-1]:.4f}", flush=True)
        if trainer.history.diverged:
            raise RuntimeError(f"the loss diverged at step {trainer.done}")
        if trainer.done < trainer.steps:
            save_state()
    if trainer.done < trainer.steps:
        print(f"stopped after {trainer.done} of {trainer.steps} steps; the same command resumes", flush=True)
        return 0
    model = trainer.model.eval()
    results = evaluate(model, data)
    record = provenance(
        command=command_line(NAME, argv),
        arguments=vars(args),
        seed=args.seed,
        device=device,
        started=started - elapsed,
        corpora=CORPORA,
        results={
            **results,
            "parameters": count_parameters(model),
            "vocabulary_size": len(tokenizer),
            "training_documents": len(data.documents["train"]),
            "held_out_documents": len(data.documents["held_out"]),
            "training_tokens": int(sum(len(s) for d in data.documents["train"] for s in d)),
            "losses": trainer.history.loss,
        },
        history=HISTORY,
    )
    extra = {
        "tokens": tokenizer.itos[len(tokenizer.specials) :],
        "specials": list(tokenizer.specials),
        "continuation": tokenizer.continuation,
        "lowercase": tokenizer.lowercase,
    }
    save_checkpoint(
        out, kind=CHECKPOINT_KIND, config=model.config, state_dict=checkpoint_state(model), provenance=record,
        extra=extra, overwrite=args.overwrite,
    )  # fmt: skip
    if state_path.exists():
        state_path.unlink()
    print({k: v for k, v in results.items()}, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
