"""A synthetic translation task: dates written in many ways -> ISO 8601 dates.

    'tuesday, march 3, 1998'          -> '1998-03-03'
    'the twenty-first of may 2031'    -> '2031-05-21'
    '3 mar 1998 and 21/05/2031'       -> '1998-03-03 2031-05-21'   (n_dates=2)

Translating needs *alignment*: each output digit comes from one place in the
input, and the order changes (the year moves to the front). With several
dates per input, the input gets longer and carries more to remember, which is
what breaks an encoder-decoder without attention. Characters are the tokens.
Taught in notebook 04.
"""
from __future__ import annotations

import datetime as dt
import random
from typing import Optional, Sequence

import torch

MONTHS = ["january", "february", "march", "april", "may", "june", "july",
          "august", "september", "october", "november", "december"]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNITS = ["", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
          "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
          "seventeenth", "eighteenth", "nineteenth"]


def ordinal_word(day: int) -> str:
    """1 -> 'first', 21 -> 'twenty-first', 30 -> 'thirtieth'."""
    if not 1 <= day <= 31:
        raise ValueError(f"day must be in [1, 31]; got {day!r}")
    if day < 20:
        return _UNITS[day]
    tens, unit = divmod(day, 10)
    if unit == 0:
        return {2: "twentieth", 3: "thirtieth"}[tens]
    return {2: "twenty", 3: "thirty"}[tens] + "-" + _UNITS[unit]


def ordinal_suffix(day: int) -> str:
    """1 -> '1st', 2 -> '2nd', 11 -> '11th', 23 -> '23rd'."""
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


# Each format writes one date; keys are the names used by ``format_date``.
FORMATS = {
    "d month yyyy": lambda d: f"{d.day} {MONTHS[d.month - 1]} {d.year}",
    "month d, yyyy": lambda d: f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
    "d mon yyyy": lambda d: f"{d.day} {MONTHS[d.month - 1][:3]} {d.year}",
    "dd/mm/yyyy": lambda d: f"{d.day:02d}/{d.month:02d}/{d.year}",
    "yyyy.mm.dd": lambda d: f"{d.year}.{d.month:02d}.{d.day:02d}",
    "weekday, month d, yyyy": lambda d: f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}",
    "the dth of month yyyy": lambda d: f"the {ordinal_suffix(d.day)} of {MONTHS[d.month - 1]} {d.year}",
    "the spelled day of month yyyy": lambda d: f"the {ordinal_word(d.day)} of {MONTHS[d.month - 1]} {d.year}",
}


def format_date(date: dt.date, fmt: str) -> str:
    """Write ``date`` in the named format (one of ``FORMATS``)."""
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {tuple(FORMATS)}; got {fmt!r}")
    return FORMATS[fmt](date)


class CharVocab:
    """Characters <-> ids, with PAD = 0, BOS = 1 (start of output) and EOS = 2 (end of sequence)."""

    PAD, BOS, EOS = 0, 1, 2
    SPECIALS = ("<pad>", "<bos>", "<eos>")

    def __init__(self, alphabet: str):
        if len(set(alphabet)) != len(alphabet):
            raise ValueError(f"alphabet must not repeat characters; got {alphabet!r}")
        self.itos = list(self.SPECIALS) + list(alphabet)
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def encode(self, text: str, eos: bool = True) -> list[int]:
        """Ids of ``text``'s characters (then EOS); unknown characters raise an error naming them."""
        unknown = sorted(set(text) - set(self.itos[len(self.SPECIALS):]))
        if unknown:
            raise ValueError(f"characters {unknown} are not in the vocabulary {''.join(self.itos[3:])!r}")
        return [self.stoi[ch] for ch in text] + ([self.EOS] if eos else [])

    def decode(self, ids: Sequence[int]) -> str:
        """Text of ``ids``, stopping at the first EOS and skipping PAD and BOS."""
        out = []
        for i in (int(i) for i in ids):
            if i == self.EOS:
                break
            if i not in (self.PAD, self.BOS):
                out.append(self.itos[i])
        return "".join(out)


SOURCE_VOCAB = CharVocab(" ,-./0123456789abcdefghijklmnopqrstuvwxyz")
TARGET_VOCAB = CharVocab(" -0123456789")
REVERSE_VOCAB = CharVocab("abcdefghij")


def encode_batch(pairs: Sequence[tuple[str, str]], source_vocab: CharVocab = SOURCE_VOCAB,
                 target_vocab: CharVocab = TARGET_VOCAB) -> dict[str, torch.Tensor]:
    """Pad a list of pairs into tensors.

    Returns ``src`` (B, S) ids ending in EOS, ``src_lengths`` (B,),
    ``tgt_in`` (B, T) = BOS + target (the decoder's inputs under teacher
    forcing) and ``tgt_out`` (B, T) = target + EOS (what it must predict), PAD-filled.
    """
    if not pairs:
        raise ValueError("pairs must not be empty")
    sources = [source_vocab.encode(s) for s, _ in pairs]
    targets = [target_vocab.encode(t) for _, t in pairs]
    S, T = max(map(len, sources)), max(map(len, targets))
    src = torch.full((len(pairs), S), CharVocab.PAD, dtype=torch.long)
    tgt_in = torch.full((len(pairs), T), CharVocab.PAD, dtype=torch.long)
    tgt_out = torch.full((len(pairs), T), CharVocab.PAD, dtype=torch.long)
    for b, (s, t) in enumerate(zip(sources, targets)):
        src[b, : len(s)] = torch.tensor(s)
        tgt_out[b, : len(t)] = torch.tensor(t)
        tgt_in[b, : len(t)] = torch.tensor([CharVocab.BOS] + t[:-1])
    return {"src": src, "src_lengths": torch.tensor([len(s) for s in sources]), "tgt_in": tgt_in, "tgt_out": tgt_out}


def random_date(rng: random.Random, first_year: int = 1950, last_year: int = 2049) -> dt.date:
    """A date drawn uniformly between 1 January ``first_year`` and 31 December ``last_year``."""
    start, end = dt.date(first_year, 1, 1).toordinal(), dt.date(last_year, 12, 31).toordinal()
    return dt.date.fromordinal(rng.randint(start, end))


def make_pair(rng: random.Random, n_dates: int = 1, formats: Optional[Sequence[str]] = None) -> tuple[str, str]:
    """One (source, target) pair with ``n_dates`` dates, each in a format drawn from ``formats``."""
    if not isinstance(n_dates, int) or n_dates < 1:
        raise ValueError(f"n_dates must be a positive integer; got {n_dates!r}")
    formats = list(formats or FORMATS)
    dates = [random_date(rng) for _ in range(n_dates)]
    source = " and ".join(format_date(d, rng.choice(formats)) for d in dates)
    return source, " ".join(d.isoformat() for d in dates)


def make_pairs(n: int, n_dates: Sequence[int] = (1,), formats: Optional[Sequence[str]] = None,
               seed: int = 0) -> list[tuple[str, str]]:
    """``n`` pairs; each draws its number of dates uniformly from ``n_dates``. Reproducible by ``seed``."""
    rng = random.Random(seed)
    return [make_pair(rng, rng.choice(list(n_dates)), formats) for _ in range(n)]


# --- a second, simpler task: reverse a string (the bottleneck experiment) ----


def reverse_pairs(n: int, lengths: Sequence[int], seed: int = 0,
                  alphabet: str = "abcdefghij") -> list[tuple[str, str]]:
    """``n`` pairs (random string, the same string reversed), lengths drawn from ``lengths``.

    Every output character comes from one input position, the mirrored one,
    so the task needs alignment and its information grows with the length.
    """
    if not lengths or min(lengths) < 1:
        raise ValueError(f"lengths must be positive integers; got {list(lengths)}")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = "".join(rng.choice(alphabet) for _ in range(rng.choice(list(lengths))))
        out.append((text, text[::-1]))
    return out


def batch_sampler(pairs: Sequence[tuple[str, str]], batch_size: int, seed: int = 0,
                  source_vocab: CharVocab = SOURCE_VOCAB, target_vocab: CharVocab = TARGET_VOCAB):
    """A ``next_batch(step)`` function for ``dl4nlp.train``: random batches drawn from ``pairs``.

    The pairs are encoded once; each batch is cut to its own longest source
    and target, because a recurrent layer's cost grows with the longest
    sequence in the batch.
    """
    if not 1 <= batch_size <= len(pairs):
        raise ValueError(f"batch_size must be in [1, {len(pairs)}] (the number of pairs); got {batch_size!r}")
    pool = encode_batch(pairs, source_vocab, target_vocab)
    target_lengths = (pool["tgt_out"] != CharVocab.PAD).sum(1)
    generator = torch.Generator().manual_seed(seed)

    def next_batch(step: int) -> dict[str, torch.Tensor]:
        index = torch.randint(len(pairs), (batch_size,), generator=generator)
        S, T = int(pool["src_lengths"][index].max()), int(target_lengths[index].max())
        return {"src": pool["src"][index, :S], "src_lengths": pool["src_lengths"][index],
                "tgt_in": pool["tgt_in"][index, :T], "tgt_out": pool["tgt_out"][index, :T]}

    return next_batch
