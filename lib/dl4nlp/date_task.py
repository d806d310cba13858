"""Synthetic translation tasks for encoder-decoders: dates -> ISO 8601, and string reversal.

    'tuesday, march 3, 1998'          -> '1998-03-03'
    'the twenty-first of may 2031'    -> '2031-05-21'
    '3 mar 1998 and 21/05/2031'       -> '1998-03-03 2031-05-21'   (n_dates=2)
    'hjbae'                           -> 'eabjh'                   (reverse_pairs)

Translating a date needs *alignment*: each output digit comes from one place
in the input, and the order changes (the year moves to the front). Reversal is
the purest alignment task, and what it must remember grows with its length,
which is what breaks an encoder-decoder without attention. Characters are the
tokens. Taught in notebook 06; ``python -m dl4nlp.recipes.date_models`` trains
the date models shipped in ``data/``.

Held out means held out: every date (and every reversal string) belongs to
exactly one ``split``, ``'train'`` or ``'test'``, fixed by a checksum of the
date (or string), so a test set never shares a *date* with a training set,
whatever format either writes it in. ``overlap`` counts what two sets share.

>>> split_of("2031-05-21"), split_of("1950-01-09")
('train', 'test')
"""

from __future__ import annotations

import datetime as dt
import random
import string
import zlib
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import torch

from dl4nlp._checks import (
    check_choice,
    check_int,
    check_sequence,
    check_str,
    check_strings,
    check_type,
    given,
)
from dl4nlp.decoder import Seq2SeqTransformer
from dl4nlp.seq2seq import Seq2Seq
from dl4nlp.vocab import Seq2SeqVocab

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


# --- train / test splits that are disjoint by construction -------------------
SPLITS = ("train", "test")
TEST_BUCKETS = 10  # one checksum bucket in ten is held out: about 10 % of all dates (or strings)


def split_of(key: str) -> str:
    """``'test'`` for about one key in ten (those whose CRC-32 is divisible by 10), else ``'train'``.

    The key is an ISO date for the date task and the string itself for reversal.
    CRC-32 is fixed by its standard, so the split is the same on every machine and
    Python version.
    """
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty string; got {key!r}")
    return "test" if zlib.crc32(key.encode("utf-8")) % TEST_BUCKETS == 0 else "train"


def _check_split(split: Optional[str]) -> None:
    if split is not None and split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS} or None (either); got {split!r}")


def _check_pairs(pairs, name: str = "pairs", nonempty: bool = True) -> None:
    """A (non-empty) list of (source, target) pairs of strings."""
    if isinstance(pairs, tuple) and len(pairs) == 2 and all(isinstance(p, str) for p in pairs):
        raise TypeError(f"{name} must be a list of (source, target) pairs; got a single pair, {given(pairs)}")
    check_sequence(name, pairs, nonempty=nonempty, what="a list of (source, target) pairs of strings")
    for index, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            count = f"{len(pair)} items" if isinstance(pair, (tuple, list)) else given(pair)
            raise ValueError(f"{name}[{index}] must be a (source, target) pair of strings; got {count}")
        for part in pair:
            check_str(f"{name}[{index}]", part, what="a (source, target) pair of strings")


def dates_of(pairs: Sequence[tuple[str, str]]) -> set[str]:
    """The ISO dates in the targets of date pairs."""
    _check_pairs(pairs, nonempty=False)
    return {iso for _, target in pairs for iso in target.split(" ")}


@dataclass(frozen=True)
class Overlap:
    """What a test set shares with a training set: identical inputs, and (date task) dates."""

    test_size: int
    same_source: int  # test pairs whose input string occurs verbatim in training
    same_date: int  # test pairs with a date that occurs in training, in any format (0 for reversal)

    @property
    def disjoint(self) -> bool:
        return self.same_source == 0 and self.same_date == 0


def overlap(train: Sequence[tuple[str, str]], test: Sequence[tuple[str, str]], dates: bool = True) -> Overlap:
    """Count the test pairs whose input, or (``dates=True``) any of whose dates, also occur in ``train``."""
    _check_pairs(train, "train", nonempty=False)
    _check_pairs(test, "test")
    check_type("dates", dates, bool, "True or False")
    train_sources = {source for source, _ in train}
    train_dates = dates_of(train) if dates else set()
    same_source = sum(source in train_sources for source, _ in test)
    same_date = sum(any(iso in train_dates for iso in target.split(" ")) for _, target in test) if dates else 0
    return Overlap(len(test), same_source, same_date)


SOURCE_VOCAB = Seq2SeqVocab(" ,-./0123456789abcdefghijklmnopqrstuvwxyz")
TARGET_VOCAB = Seq2SeqVocab(" -0123456789")
REVERSE_VOCAB = Seq2SeqVocab("abcdefghij")


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
                raise ValueError(f"pairs[{index}] {side} has tokens {unknown} not in the {side} vocabulary")
    sources = [source_vocab.encode(s) for s, _ in pairs]
    targets = [target_vocab.encode(t) for _, t in pairs]
    S, T, PAD = max(map(len, sources)), max(map(len, targets)), Seq2SeqVocab.PAD
    src = torch.tensor([s + [PAD] * (S - len(s)) for s in sources], dtype=torch.long)  # (B, S)
    tgt_out = torch.tensor([t + [PAD] * (T - len(t)) for t in targets], dtype=torch.long)  # (B, T)
    tgt_in = torch.tensor([[Seq2SeqVocab.BOS] + t[:-1] + [PAD] * (T - len(t)) for t in targets], dtype=torch.long)
    return {"src": src, "src_lengths": torch.tensor([len(s) for s in sources]), "tgt_in": tgt_in, "tgt_out": tgt_out}


def random_date(
    rng: random.Random, first_year: int = 1950, last_year: int = 2049, split: Optional[str] = None
) -> dt.date:
    """A date drawn uniformly between 1 January ``first_year`` and 31 December ``last_year``.

    With ``split`` ('train' or 'test') the draw is repeated until the date belongs to it.
    """
    check_type("rng", rng, random.Random, "a random.Random")
    check_int("first_year", first_year, 1, dt.MAXYEAR)
    check_int("last_year", last_year, first_year, dt.MAXYEAR)
    _check_split(split)
    start, end = dt.date(first_year, 1, 1).toordinal(), dt.date(last_year, 12, 31).toordinal()
    while True:
        date = dt.date.fromordinal(rng.randint(start, end))
        if split is None or split_of(date.isoformat()) == split:
            return date


def make_pair(
    rng: random.Random, n_dates: int = 1, formats: Optional[Sequence[str]] = None, split: Optional[str] = "train"
) -> tuple[str, str]:
    """One (source, target) pair with ``n_dates`` dates of ``split``, each in a format drawn from ``formats``."""
    check_type("rng", rng, random.Random, "a random.Random")
    check_int("n_dates", n_dates)
    formats = list(FORMATS) if formats is None else check_strings("formats", formats)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError(f"formats must be names from {tuple(FORMATS)}; got {unknown[0]!r}")
    dates = [random_date(rng, split=split) for _ in range(n_dates)]
    source = " and ".join(format_date(d, rng.choice(formats)) for d in dates)
    return source, " ".join(d.isoformat() for d in dates)


def make_pairs(
    n: int,
    n_dates: Sequence[int] = (1,),
    formats: Optional[Sequence[str]] = None,
    seed: int = 0,
    split: Optional[str] = "train",
) -> list[tuple[str, str]]:
    """``n`` pairs whose dates all belong to ``split``; each draws its number of dates from ``n_dates``.

    Reproducible by ``seed``. Training sets use ``split='train'`` (the default) and
    test sets ``split='test'``, so that no test date is ever seen in training.
    """
    check_int("n", n)
    for count in check_sequence("n_dates", n_dates, what="a list of numbers of dates"):
        check_int("n_dates", count)
    check_int("seed", seed, low=None)
    _check_split(split)
    rng = random.Random(seed)
    return [make_pair(rng, rng.choice(list(n_dates)), formats, split) for _ in range(n)]


# --- a second, simpler task: reverse a string (the bottleneck experiment) ----


def reverse_pairs(
    n: int, lengths: Sequence[int], seed: int = 0, alphabet: str = "abcdefghij", split: Optional[str] = "train"
) -> list[tuple[str, str]]:
    """``n`` pairs (random string of ``split``, the same string reversed), lengths drawn from ``lengths``.

    Every output character comes from one input position, the mirrored one,
    so the task needs alignment and its information grows with the length.
    """
    check_int("n", n)
    for length in check_sequence("lengths", lengths, what="a list of lengths"):
        check_int("lengths", length)
    check_str("alphabet", alphabet, nonempty=True)
    check_int("seed", seed, low=None)
    _check_split(split)
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice(list(lengths))))
        if split is None or split_of(text) == split:
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
def _check_vocabularies(model: Any, source_vocab: Any, target_vocab: Any) -> None:
    """The vocabularies must be the model's: as many tokens as its embeddings (else ids mean other tokens)."""
    check_type("source_vocab", source_vocab, Seq2SeqVocab, "a Seq2SeqVocab")
    check_type("target_vocab", target_vocab, Seq2SeqVocab, "a Seq2SeqVocab")
    sizes = (model.config.source_vocab_size, model.config.target_vocab_size)
    if (len(source_vocab), len(target_vocab)) == sizes:
        return
    swapped = " (source_vocab and target_vocab swapped?)" if (len(target_vocab), len(source_vocab)) == sizes else ""
    raise ValueError(
        f"source_vocab and target_vocab must be the model's, of {sizes[0]} and {sizes[1]} tokens "
        f"(source_vocab_size, target_vocab_size); got vocabularies of {len(source_vocab)} and {len(target_vocab)} "
        f"tokens, from another model{swapped}"
    )


def translate(
    model: Union[Seq2Seq, Seq2SeqTransformer],
    sources: Sequence[str],
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
    max_len: int = 12,
) -> list[str]:
    """Greedy translations of ``sources`` (a list of strings) by a ``Seq2Seq`` or ``Seq2SeqTransformer`` (one batch)."""
    check_type("model", model, (Seq2Seq, Seq2SeqTransformer), "a dl4nlp.seq2seq.Seq2Seq or decoder.Seq2SeqTransformer")
    check_strings("sources", sources)
    _check_vocabularies(model, source_vocab, target_vocab)
    for index, source in enumerate(sources):
        unknown = source_vocab._unknown(source)
        if unknown:
            raise ValueError(f"sources[{index}] has tokens {unknown} that are not in the source vocabulary")
    check_int("max_len", max_len)
    batch = encode_batch([(s, "") for s in sources], source_vocab, target_vocab)
    device = next(model.parameters()).device
    ids, _ = model.greedy_decode(batch["src"].to(device), batch["src_lengths"].to(device), max_len=max_len)
    return [target_vocab.decode(row) for row in ids.tolist()]


def attention_weights(
    model: Seq2Seq,
    source: str,
    target: str,
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
) -> torch.Tensor:
    """Where ``model`` looks while it writes ``target`` for ``source`` (teacher forcing): weights (T_out, T_in).

    One row per output token and one column per input token, the end token
    included in both (so a row sums to one over the input). The model must have attention.
    """
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    if not isinstance(source, str) or not isinstance(target, str):
        raise TypeError(f"source and target must be strings; got {type(source).__name__} and {type(target).__name__}")
    if model.config.score is None:
        raise ValueError("the model has no attention (score=None): there are no weights to show")
    _check_vocabularies(model, source_vocab, target_vocab)
    batch = encode_batch([(source, target)], source_vocab, target_vocab)
    device = next(model.parameters()).device
    with torch.no_grad():
        _, weights = model(*(batch[k].to(device) for k in ("src", "src_lengths", "tgt_in")))
    return weights[0].cpu()  # (T_out + 1, T_in + 1)


def sequence_accuracy(
    model: Seq2Seq,
    pairs: Sequence[tuple[str, str]],
    source_vocab: Seq2SeqVocab = SOURCE_VOCAB,
    target_vocab: Seq2SeqVocab = TARGET_VOCAB,
) -> float:
    """Fraction of ``pairs`` whose whole target the model's greedy output gets exactly right."""
    check_type("model", model, Seq2Seq, "a dl4nlp.seq2seq.Seq2Seq")
    _check_pairs(pairs)
    _check_vocabularies(model, source_vocab, target_vocab)
    max_len = max(len(target_vocab.tokens(t)) for _, t in pairs) + 1
    outputs = translate(model, [s for s, _ in pairs], source_vocab, target_vocab, max_len)
    return sum(out == t for out, (_, t) in zip(outputs, pairs)) / len(pairs)


CHECKPOINT = "seq2seq_dates_{score}.pt"  # in data/, made by `python -m dl4nlp.recipes.date_models --score ...`
