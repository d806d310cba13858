"""Recipe: the character-level LSTM language models of notebook 05.

    python -m dl4nlp.recipes.char_lstm --out data/char_lstm_sherlock.pt

trains a one-layer LSTM (256 cells) on *The Adventures of Sherlock Holmes*
with the curly double quotes straightened (``dl4nlp.tokenize.straighten_quotes``),
by truncated backpropagation through time as in char-rnn: the training text
is read as ``batch_size`` parallel streams, ``seq_len`` characters at a time,
and the LSTM state is carried (detached) from one window to the next, so the
model can learn state that lasts longer than a window, such as being inside a
quotation. The last 5% of the text is held out. ``--reverse`` trains the
backward language model instead (it reads the same training text from its
end to its start), the second half of an ELMo-style pair.

The checkpoint (kind ``char_lstm``, loaded by ``dl4nlp.lstm.load_char_model``)
holds the ``RecurrentLMConfig``, the weights and the vocabulary; the
provenance beside it records the first losses exactly (a test re-runs the
first steps and compares them bit for bit), the loss and gradient-norm curves
in blocks of 50 steps, how often clipping acted, and text sampled from the
model as training progresses. ``--stop-after N`` stops after N steps of the
full schedule (the learning rate follows the ``--steps`` schedule), for tests.

Deterministic on the CPU for a given seed, torch version, thread count and CPU
vector kernels (``torch.backends.cpu.get_cpu_capability()``, recorded): two runs
on one machine agree bit for bit, and ``tests/test_lstm.py`` re-runs the first
steps and compares their losses with the recorded ones. Rounding differs between
kernels (AVX2, AVX512) and grows over thousands of steps until every weight
differs, so a run elsewhere is a sibling of the shipped model, not a copy. The
shipped seed-0 model predates this recipe and recorded neither its losses nor its
CPU; its provenance says what a re-run here gave.
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict
from typing import Optional, Sequence

import torch

from dl4nlp._checks import check_ids, check_int, check_str
from dl4nlp.checkpoint import check_output, save_checkpoint
from dl4nlp.data import load_text
from dl4nlp.lstm import CHAR_LSTM_KIND, set_forget_bias_
from dl4nlp.recipes import command_line, provenance, recipe_parser, start
from dl4nlp.rnn import RecurrentLM, language_model_loss, sample
from dl4nlp.tokenize import straighten_quotes
from dl4nlp.train import train
from dl4nlp.vocab import CharVocab

NAME = "char_lstm"
TRAIN_FRACTION = 0.95  # the first 95% of the corpus trains, the last 5% is held out
CLIP_NORM = 1.0
FORGET_BIAS = 1.0
EXACT_LOSSES = 100  # how many first losses the provenance records exactly
BLOCK = 50  # the loss and gradient-norm curves are recorded per block of this many steps
SAMPLE_AT = (0, 100, 300, 500, 1000, 2000)  # steps at which text is sampled (and after the last step)
SAMPLE_LENGTH = 200
SAMPLE_PROMPT = "\n"


def split_text(text: str) -> tuple[str, str]:
    """(training text, held-out text): the first ``TRAIN_FRACTION`` of ``text`` and the rest.

    >>> split_text("abcdefghijklmnopqrst")
    ('abcdefghijklmnopqrs', 't')
    """
    if len(check_str("text", text)) < 2:
        raise ValueError(f"text must be a str of at least 2 characters; got {text!r:.40}")
    split = int(TRAIN_FRACTION * len(text))
    return text[:split], text[split:]


def stream_batches(ids: torch.Tensor, batch_size: int, length: int):
    """``next_batch(step)`` for truncated BPTT over ``batch_size`` parallel streams of ``ids``.

    The text is cut into ``batch_size`` equal streams; step k returns the k-th
    window of ``length + 1`` ids of every stream, (B, length + 1), and whether
    the streams just started over (so the carried state must be reset).

    >>> next_batch = stream_batches(torch.arange(21), batch_size=2, length=4)
    >>> next_batch(0)[0].tolist(), next_batch(0)[1], next_batch(1)[0][:, 0].tolist()
    ([[0, 1, 2, 3, 4], [10, 11, 12, 13, 14]], True, [4, 14])
    """
    check_ids("ids", ids, None, shape=("N",))
    check_int("batch_size", batch_size)
    check_int("length", length)
    streams = ids[: len(ids) // batch_size * batch_size].view(batch_size, -1)  # (B, N / B)
    windows = (streams.shape[1] - 1) // length
    if windows < 1:
        raise ValueError(
            f"ids must give each of the {batch_size} streams more than length={length} ids; got {len(ids)} ids, "
            f"{streams.shape[1]} per stream"
        )

    def next_batch(step: int):
        k = step % windows
        return streams[:, k * length : (k + 1) * length + 1], k == 0

    return next_batch


def _blocks(values: Sequence[float], reduce) -> list[float]:
    return [round(float(reduce(values[i : i + BLOCK])), 4) for i in range(0, len(values), BLOCK)]


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = recipe_parser(NAME, __doc__.splitlines()[0])
    parser.add_argument("--corpus", default="sherlock_holmes.txt")
    parser.add_argument("--hidden-size", type=int, default=256)
    parser.add_argument("--embedding-dim", type=int, default=32)
    parser.add_argument("--steps", type=int, default=4000, help="length of the schedule")
    parser.add_argument("--stop-after", type=int, default=None, help="stop after this many steps (tests)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--reverse", action="store_true", help="train the backward (right-to-left) language model")
    parser.add_argument("--half", action="store_true", help="store the weights in float16 (half the bytes)")
    parser.add_argument(
        "--curly-quotes",
        dest="straight_quotes",
        action="store_false",
        help="keep “ and ” apart instead of replacing both by a straight quote",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    command = command_line(NAME, argv)
    for name in ("hidden_size", "embedding_dim", "steps", "batch_size", "seq_len"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1; got {getattr(args, name)}")
    if args.stop_after is not None and not 1 <= args.stop_after <= args.steps:
        parser.error(f"--stop-after must be in [1, --steps={args.steps}]; got {args.stop_after}")
    if not args.lr > 0:
        parser.error(f"--lr must be positive; got {args.lr}")
    try:  # before any training: an existing file (or its provenance's name taken), or not a .pt
        check_output(args.out, overwrite=args.overwrite, suffix=".pt")
    except (FileExistsError, ValueError) as error:
        parser.error(str(error))

    started = time.perf_counter()
    device = start(args)
    text = load_text(args.corpus)
    if args.straight_quotes:
        text = straighten_quotes(text)
    vocab = CharVocab.from_text(text)
    train_text, held_out = split_text(text)
    if args.reverse:
        train_text, held_out = train_text[::-1], held_out[::-1]
    train_ids = torch.tensor(vocab.encode(train_text))
    valid_ids = torch.tensor(vocab.encode(held_out))
    model = RecurrentLM(len(vocab), args.hidden_size, "lstm", args.embedding_dim).to(device)
    set_forget_bias_(model.recurrent, FORGET_BIAS)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.steps, eta_min=args.lr / 10)
    batches = stream_batches(train_ids, args.batch_size, args.seq_len)
    carried = {"state": None}
    samples: dict[str, str] = {}

    def draw_sample(step: int) -> None:
        # Its own generator: sampling never touches the global random state, so training is unchanged.
        generator = torch.Generator().manual_seed(args.seed)
        ids = sample(model, vocab.encode(SAMPLE_PROMPT), SAMPLE_LENGTH, temperature=1.0, generator=generator)
        samples[str(step)] = vocab.decode(ids)[:: -1 if args.reverse else 1]
        model.train()

    def next_batch(step: int):
        if step in SAMPLE_AT:  # the model has taken `step` updates
            draw_sample(step)
        return batches(step)

    def loss_fn(model, batch):
        windows, restart = batch
        logits, state = model(windows[:, :-1], None if restart else carried["state"])
        carried["state"] = tuple(s.detach() for s in state)  # truncated BPTT: keep the value, cut the graph
        return language_model_loss(logits, windows[:, 1:])

    history = train(
        model,
        loss_fn,
        next_batch,
        steps=args.stop_after or args.steps,
        optimizer=optimizer,
        scheduler=scheduler,
        clip_norm=CLIP_NORM,
        device=device,
        progress=not args.quiet,
        desc="char LSTM" + (" (backward)" if args.reverse else ""),
    )
    draw_sample(len(history.loss))
    with torch.no_grad():
        logits, _ = model(valid_ids[None, :-1].to(device))  # the held-out text read in one pass
        valid_loss = language_model_loss(logits, valid_ids[None, 1:].to(device)).item()
    tail = history.loss[-50:]
    results = {
        "valid_loss": round(valid_loss, 4),
        "final_train_loss": round(sum(tail) / len(tail), 4),
        "parameters": sum(p.numel() for p in model.parameters()),
        "steps_taken": len(history.loss),
        "diverged": history.diverged,
        "loss_first": history.loss[:EXACT_LOSSES],  # exact floats: a re-run must match them bit for bit
        "loss_per_block": _blocks(history.loss, lambda v: sum(v) / len(v)),
        "grad_norm_max_per_block": _blocks(history.grad_norm, max),
        "clipped_fraction": round(sum(n > CLIP_NORM for n in history.grad_norm) / len(history.grad_norm), 4),
        "samples": samples,
    }
    arguments = {k: v for k, v in vars(args).items() if k not in ("out", "overwrite", "quiet")}
    arguments.update(
        clip_norm=CLIP_NORM,
        forget_bias=FORGET_BIAS,
        schedule="cosine to lr/10 over --steps",
        optimizer="Adam",
        bptt="truncated, state carried across windows of parallel streams",
        held_out=f"the last {1 - TRAIN_FRACTION:.0%} of the corpus",
        block=BLOCK,
        sample_prompt=SAMPLE_PROMPT,
        sample_temperature=1.0,
    )
    results["cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    record = provenance(
        command=command,
        arguments=arguments,
        seed=args.seed,
        device=device,
        started=started,
        corpora=[args.corpus],
        results=results,
    )
    state = model.state_dict()
    if args.half:
        state = {k: v.half() for k, v in state.items()}
    save_checkpoint(
        args.out,
        kind=CHAR_LSTM_KIND,
        config=asdict(model.config),
        state_dict=state,
        extra={"vocab": vocab.chars, "straight_quotes": args.straight_quotes, "reverse": args.reverse},
        provenance=record,
        overwrite=args.overwrite,
    )
    print(f"wrote {args.out}: held-out loss {valid_loss:.4f} nats per character after {len(history.loss)} steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
