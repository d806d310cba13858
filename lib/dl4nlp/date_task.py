"""Synthetic translation tasks for encoder-decoders: dates -> ISO 8601, and string reversal.

    'tuesday, march 3, 1998'          -> '1998-03-03'
    'the twenty-first of may 2031'    -> '2031-05-21'
    '3 mar 1998 and 21/05/2031'       -> '1998-03-03 2031-05-21'   (n_dates=2)
    'hjbae'                           -> 'eabjh'                   (reverse_pairs)

Translating a date needs *alignment*: each output digit comes from one place
in the input, and the order changes (the year moves to the front). Reversal is
the purest alignment task, and what it must remember grows with its length,
which is what breaks an encoder-decoder without attention. Characters are the
tokens. ``python -m dl4nlp.date_task`` trains the date models shipped in
``data/``. Taught in notebook 04.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import random
import string
from typing import Optional, Sequence

import torch

from dl4nlp._checks import (
    check_choice,
    check_ids_list,
    check_int,
    check_sequence,
    check_str,
    check_strings,
    check_type,
    given,
)
from dl4nlp.data import data_dir, md5sum
from dl4nlp.device import seed_everything
from dl4nlp.seq2seq import Seq2Seq
from dl4nlp.train import History, train

MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNITS = [
    "",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]


def ordinal_word(day: int) -> str:
    """1 -> 'first', 21 -> 'twenty-first', 30 -> 'thirtieth'."""
    check_int("day", day, 1, 31)
    if day < 20:
        return _UNITS[day]
    tens, unit = divmod(day, 10)
    if unit == 0:
        return {2: "twentieth", 3: "thirtieth"}[tens]
    return {2: "twenty", 3: "thirty"}[tens] + "-" + _UNITS[unit]


def ordinal_suffix(day: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'."""
    check_int("day", day, 1, 31)
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


# Each format is a template whose fields are filled from the date; the keys are
# the names used by ``format_date``.
FORMATS = {
    "d month yyyy": "{d} {month} {yyyy}",
    "month d, yyyy": "{month} {d}, {yyyy}",
    "d mon yyyy": "{d} {mon} {yyyy}",
    "dd/mm/yyyy": "{dd}/{mm}/{yyyy}",
    "yyyy.mm.dd": "{yyyy}.{mm}.{dd}",
    "weekday, month d, yyyy": "{weekday}, {month} {d}, {yyyy}",
    "the dth of month yyyy": "the {dth} of {month} {yyyy}",
    "the spelled day of month yyyy": "the {dayword} of {month} {yyyy}",
}
FIELD_KIND = {
    "d": "day",
    "dd": "day",
    "dth": "day",
    "dayword": "day",
    "month": "month",
    "mon": "month",
    "mm": "month",
    "yyyy": "year",
    "weekday": "weekday",
}
ISO_SPANS = {"year": (0, 4), "month": (5, 7), "day": (8, 10)}  # where each field sits in '1998-03-03'


def _fields(date: dt.date) -> dict[str, str]:
    return {
        "d": str(date.day),
        "dd": f"{date.day:02d}",
        "dth": ordinal_suffix(date.day),
        "dayword": ordinal_word(date.day),
        "month": MONTHS[date.month - 1],
        "mon": MONTHS[date.month - 1][:3],
        "mm": f"{date.month:02d}",
        "yyyy": str(date.year),
        "weekday": WEEKDAYS[date.weekday()],
    }


def _check_format(fmt: str, date: dt.date) -> None:
    check_choice("fmt", fmt, FORMATS)
    check_type("date", date, dt.date, "a datetime.date")


def format_date(date: dt.date, fmt: str) -> str:
    """Write ``date`` in the named format (one of ``FORMATS``)."""
    _check_format(fmt, date)
    return FORMATS[fmt].format(**_fields(date))


def field_spans(date: dt.date, fmt: str) -> dict[str, tuple[int, int]]:
    """Where the day, month, year (and weekday) sit in ``format_date(date, fmt)``: kind -> (start, end)."""
    _check_format(fmt, date)
    values, spans, position = _fields(date), {}, 0
    for literal, name, _, _ in string.Formatter().parse(FORMATS[fmt]):
        position += len(literal)
        if name:
            spans[FIELD_KIND[name]] = (position, position + len(values[name]))
            position += len(values[name])
    return spans


class Seq2SeqVocab:
    """Characters <-> ids, with PAD = 0, BOS = 1 (start of output) and EOS = 2 (end of sequence).

    A seq2seq vocabulary: unlike ``dl4nlp.tokenize.CharVocab`` (plain characters of a
    corpus, for language models), it reserves ids for padding and the start and end
    of a sequence, and ``decode`` stops at EOS.
    """

    PAD, BOS, EOS = 0, 1, 2
    SPECIALS = ("<pad>", "<bos>", "<eos>")

    def __init__(self, alphabet: str):
        check_str("alphabet", alphabet, nonempty=True, what="a string of distinct characters")
        if len(set(alphabet)) != len(alphabet):
            repeated = sorted({c for c in alphabet if alphabet.count(c) > 1})
            raise ValueError(f"alphabet must not repeat characters; got {repeated} more than once")
        self.itos = list(self.SPECIALS) + list(alphabet)
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str, eos: bool = True) -> list[int]:
        """Ids of ``text``'s characters (then EOS); unknown characters raise an error naming them."""
        check_str("text", text)
        unknown = self._unknown(text)
        if unknown:
            raise ValueError(f"text has characters {unknown} that are not in the vocabulary {''.join(self.itos[3:])!r}")
        return [self.stoi[ch] for ch in text] + ([self.EOS] if eos else [])

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``, stopping at the first EOS and skipping PAD and BOS."""
        out = []
        for i in check_ids_list("ids", ids, len(self), nonempty=False):
            if i == self.EOS:
                break
            if i not in (self.PAD, self.BOS):
                out.append(self.itos[i])
        return "".join(out)

    def _unknown(self, text: str) -> list[str]:
        return sorted(set(text) - set(self.itos[len(self.SPECIALS) :]))


SOURCE_VOCAB = Seq2SeqVocab(" ,-./0123456789abcdefghijklmnopqrstuvwxyz")
TARGET_VOCAB = Seq2SeqVocab(" -0123456789")
REVERSE_VOCAB = Seq2SeqVocab("abcdefghij")


def _check_pairs(pairs) -> None:
    """A non-empty list of (source, target) pairs of strings."""
    if isinstance(pairs, tuple) and len(pairs) == 2 and all(isinstance(p, str) for p in pairs):
        raise TypeError(f"pairs must be a list of (source, target) pairs; got a single pair, {given(pairs)}")
    check_sequence("pairs", pairs, what="a list of (source, target) pairs of strings")
    for index, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            count = f"{len(pair)} items" if isinstance(pair, (tuple, list)) else given(pair)
            raise ValueError(f"pairs[{index}] must be a (source, target) pair of strings; got {count}")
        for part in pair:
            check_str(f"pairs[{index}]", part, what="a (source, target) pair of strings")


def encode_batch(
    pairs: Sequence[tuple[str, str]],
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
) -> dict[str, torch.Tensor]:
    """Pad a list of pairs into tensors.

    Returns ``src`` (B, S) ids ending in EOS, ``src_lengths`` (B,),
    ``tgt_in`` (B, T) = BOS + target (the decoder's inputs under teacher
    forcing) and ``tgt_out`` (B, T) = target + EOS (what it must predict), PAD-filled.
    """
    _check_pairs(pairs)
    check_type("source_vocab", source_vocab, Seq2SeqVocab, "a Seq2SeqVocab")
    check_type("target_vocab", target_vocab, Seq2SeqVocab, "a Seq2SeqVocab")
    for index, pair in enumerate(pairs):
        for side, text, vocab in [("source", pair[0], source_vocab), ("target", pair[1], target_vocab)]:
            unknown = vocab._unknown(text)
            if unknown:
                raise ValueError(f"pairs[{index}] {side} has characters {unknown} not in the {side} vocabulary")
    sources = [source_vocab.encode(s) for s, _ in pairs]
    targets = [target_vocab.encode(t) for _, t in pairs]
    S, T = max(map(len, sources)), max(map(len, targets))
    src = torch.full((len(pairs), S), Seq2SeqVocab.PAD, dtype=torch.long)
    tgt_in = torch.full((len(pairs), T), Seq2SeqVocab.PAD, dtype=torch.long)
    tgt_out = torch.full((len(pairs), T), Seq2SeqVocab.PAD, dtype=torch.long)
    for b, (s, t) in enumerate(zip(sources, targets)):
        src[b, : len(s)] = torch.tensor(s)
        tgt_out[b, : len(t)] = torch.tensor(t)
        tgt_in[b, : len(t)] = torch.tensor([Seq2SeqVocab.BOS] + t[:-1])
    return {"src": src, "src_lengths": torch.tensor([len(s) for s in sources]), "tgt_in": tgt_in, "tgt_out": tgt_out}


def random_date(rng: random.Random, first_year: int = 1950, last_year: int = 2049) -> dt.date:
    """A date drawn uniformly between 1 January ``first_year`` and 31 December ``last_year``."""
    check_type("rng", rng, random.Random, "a random.Random")
    check_int("first_year", first_year, 1, dt.MAXYEAR)
    check_int("last_year", last_year, first_year, dt.MAXYEAR)
    start, end = dt.date(first_year, 1, 1).toordinal(), dt.date(last_year, 12, 31).toordinal()
    return dt.date.fromordinal(rng.randint(start, end))


def make_pair(rng: random.Random, n_dates: int = 1, formats: Optional[Sequence[str]] = None) -> tuple[str, str]:
    """One (source, target) pair with ``n_dates`` dates, each in a format drawn from ``formats``."""
    check_type("rng", rng, random.Random, "a random.Random")
    check_int("n_dates", n_dates)
    formats = list(FORMATS) if formats is None else check_strings("formats", formats)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"formats must be names from {tuple(FORMATS)}; got {unknown[0]!r}")
    dates = [random_date(rng) for _ in range(n_dates)]
    source = " and ".join(format_date(d, rng.choice(formats)) for d in dates)
    return source, " ".join(d.isoformat() for d in dates)


def make_pairs(
    n: int, n_dates: Sequence[int] = (1,), formats: Optional[Sequence[str]] = None, seed: int = 0
) -> list[tuple[str, str]]:
    """``n`` pairs; each draws its number of dates uniformly from ``n_dates``. Reproducible by ``seed``."""
    check_int("n", n)
    for count in check_sequence("n_dates", n_dates, what="a list of numbers of dates"):
        check_int("n_dates", count)
    check_int("seed", seed, low=None)
    rng = random.Random(seed)
    return [make_pair(rng, rng.choice(list(n_dates)), formats) for _ in range(n)]


# --- a second, simpler task: reverse a string (the bottleneck experiment) ----


def reverse_pairs(n: int, lengths: Sequence[int], seed: int = 0, alphabet: str = "abcdefghij") -> list[tuple[str, str]]:
    """``n`` pairs (random string, the same string reversed), lengths drawn from ``lengths``.

    Every output character comes from one input position, the mirrored one,
    so the task needs alignment and its information grows with the length.
    """
    check_int("n", n)
    for length in check_sequence("lengths", lengths, what="a list of lengths"):
        check_int("lengths", length)
    check_str("alphabet", alphabet, nonempty=True)
    check_int("seed", seed, low=None)
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice(list(lengths))))
        out.append((text, text[::-1]))
    return out


def batch_sampler(
    pairs: Sequence[tuple[str, str]],
    batch_size: int,
    seed: int = 0,
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
):
    """A ``next_batch(step)`` function for ``dl4nlp.train``: random batches drawn from ``pairs``.

    The pairs are encoded once; each batch is cut to its own longest source
    and target, because a recurrent layer's cost grows with the longest
    sequence in the batch.
    """
    pool = encode_batch(pairs, source_vocab, target_vocab)
    check_int("batch_size", batch_size, 1, len(pairs))
    check_int("seed", seed, low=0)
    target_lengths = (pool["tgt_out"] != Seq2SeqVocab.PAD).sum(1)
    generator = torch.Generator().manual_seed(seed)

    def next_batch(step: int) -> dict[str, torch.Tensor]:
        index = torch.randint(len(pairs), (batch_size,), generator=generator)
        S, T = int(pool["src_lengths"][index].max()), int(target_lengths[index].max())
        return {
            "src": pool["src"][index, :S],
            "src_lengths": pool["src_lengths"][index],
            "tgt_in": pool["tgt_in"][index, :T],
            "tgt_out": pool["tgt_out"][index, :T],
        }

    return next_batch


# --- translating, scoring, and the recipe of the shipped checkpoints ---------
def translate(
    model: Seq2Seq,
    sources: Sequence[str],
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
    max_len: int = 12,
) -> list[str]:
    """Greedy translations of ``sources`` (a list of strings) by a ``dl4nlp.seq2seq.Seq2Seq`` (one batch)."""
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    check_strings("sources", sources)
    check_type("source_vocab", source_vocab, Seq2SeqVocab, "a Seq2SeqVocab")
    for index, source in enumerate(sources):
        unknown = source_vocab._unknown(source)
        if unknown:
            raise ValueError(f"sources[{index}] has characters {unknown} that are not in the source vocabulary")
    check_int("max_len", max_len)
    batch = encode_batch([(s, "") for s in sources], source_vocab, target_vocab)
    device = next(model.parameters()).device
    ids, _ = model.greedy_decode(batch["src"].to(device), batch["src_lengths"].to(device), max_len=max_len)
    return [target_vocab.decode(row) for row in ids.tolist()]


def sequence_accuracy(
    model: Seq2Seq,
    pairs: Sequence[tuple[str, str]],
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
) -> float:
    """Fraction of ``pairs`` whose whole target the model's greedy output gets exactly right."""
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    _check_pairs(pairs)
    max_len = max(len(t) for _, t in pairs) + 1
    outputs = translate(model, [s for s, _ in pairs], source_vocab, target_vocab, max_len)
    return sum(out == t for out, (_, t) in zip(outputs, pairs)) / len(pairs)


CHECKPOINT = "seq2seq_dates_{score}.pt"  # in data/, made by `python -m dl4nlp.date_task --score ...`
RECIPE = dict(steps=400, batch_size=256, lr=1e-2, d_embed=32, d_hidden=64, train_pairs=20_000, seed=0)


def train_date_model(
    score: Optional[str], steps: int = RECIPE["steps"], seed: int = RECIPE["seed"], progress: bool = True
) -> tuple[Seq2Seq, History]:
    """Train a ``Seq2Seq`` on dates with the shipped recipe (``RECIPE``); returns (model, history)."""
    if score is not None:
        check_choice("score", score, ("dot", "general", "additive"))
    check_int("steps", steps)
    seed_everything(seed)
    model = Seq2Seq(
        len(SOURCE_VOCAB), len(TARGET_VOCAB), d_embed=RECIPE["d_embed"], d_hidden=RECIPE["d_hidden"], score=score
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=RECIPE["lr"])
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
    next_batch = batch_sampler(make_pairs(RECIPE["train_pairs"], seed=seed + 1), RECIPE["batch_size"], seed=seed)
    history = train(
        model,
        lambda m, batch: m.loss(batch),
        next_batch,
        steps=steps,
        optimizer=optimizer,
        scheduler=schedule,
        clip_norm=1.0,
        progress=progress,
        desc=f"dates, {score} score",
    )
    return model, history


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Command line: train the date models of notebook 04 and write them with their recipe to data/."""
    from dl4nlp import __version__

    parser = argparse.ArgumentParser(prog="python -m dl4nlp.date_task", description=main.__doc__)
    parser.add_argument(
        "--score", nargs="+", default=["dot", "general", "additive"], choices=["dot", "general", "additive"]
    )
    parser.add_argument("--steps", type=int, default=RECIPE["steps"])
    parser.add_argument("--seed", type=int, default=RECIPE["seed"])
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    test = make_pairs(1000, seed=12345)
    for score in args.score:
        model, history = train_date_model(score, steps=args.steps, seed=args.seed)
        path = data_dir() / CHECKPOINT.format(score=score)
        model.save(path)
        recipe = {
            "command": f"python -m dl4nlp.date_task --score {score} --steps {args.steps} --seed {args.seed}",
            "recipe": {**RECIPE, "steps": args.steps, "seed": args.seed, "score": score},
            "dl4nlp": __version__,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "device": "cpu (1 thread)",
            "md5": md5sum(path),
            "bytes": path.stat().st_size,
            "test_accuracy": sequence_accuracy(model, test),
            "loss": [round(x, 5) for x in history.loss],
        }
        path.with_suffix(".json").write_text(json.dumps(recipe, indent=1) + "\n")
        print(f"{path.name}: test accuracy {recipe['test_accuracy']:.3f}, md5 {recipe['md5']}")


if __name__ == "__main__":
    main()
