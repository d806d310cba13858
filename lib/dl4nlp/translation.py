"""English -> French sentence pairs from Tatoeba, split by English sentence, as word tokens.

``data/tatoeba_eng_fra_18k.tsv`` holds 18,065 short pairs (Tatoeba Project,
tatoeba.org, via manythings.org/anki; CC-BY 2.0 France), several French
translations for many English sentences. The split is made by *English
sentence*: about one English sentence in ten (CRC-32 of its text divisible by
10, the rule of ``date_task.split_of``) goes to the test set with *all* of its
French translations, which become its references. No test sentence is ever
seen in training, not even with another translation.

Tokens are lower-cased words and punctuation marks; French elisions are split
after the apostrophe ("j'ai" -> "j'", "ai"). Words seen fewer than
``MIN_COUNT`` times in training become ``<unk>``. Used in notebooks 06 and 07.

>>> tokenize("I have a red car.", "en")
['i', 'have', 'a', 'red', 'car', '.']
>>> tokenize("J'ai une voiture rouge.", "fr")
["j'", 'ai', 'une', 'voiture', 'rouge', '.']
>>> detokenize(["j'", 'ai', 'une', 'voiture', 'rouge', '.'])
"j'ai une voiture rouge."
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Sequence

from dl4nlp._checks import check_choice, check_int, check_str, check_strings, check_type, given
from dl4nlp.data import data_path, md5sum
from dl4nlp.vocab import Seq2SeqVocab

DATA = "tatoeba_eng_fra_18k.tsv"
DATA_BYTES, DATA_MD5 = 686_457, "fc3c2b6551a579c119b70725a6d3c2df"
TEST_BUCKETS = 10
MIN_COUNT = 3
UNK = "<unk>"
LANGUAGES = ("en", "fr")
SPLITS = ("train", "test")
MODEL_ERROR_SHARE = 0.99  # chapter 07: at least this share of a beam of 8's wrong outputs are model errors
BEAM_BLEU_CHANGE_MAX = 2.0  # and a beam of 4 changes corpus BLEU by at most this many points
_WORDS = {
    "en": re.compile(r"\w+(?:['’]\w+)*|[^\w\s]"),  # "don't" stays one word
    "fr": re.compile(r"\w+['’]|\w+(?:-\w+)*|[^\w\s]"),  # "j'ai" -> "j'", "ai"; "est-ce" stays
}


def tokenize(text: str, language: str) -> list[str]:
    """Lower-cased words and punctuation marks of ``text`` (``language`` 'en' or 'fr')."""
    check_str("text", text)
    check_choice("language", language, LANGUAGES)
    return _WORDS[language].findall(text.lower().replace("’", "'"))


def detokenize(tokens: Sequence[str]) -> str:
    """Tokens joined back into text: no space after an elision or before . , ; : ! ?"""
    tokens = check_strings("tokens", tokens, nonempty=False)
    text = ""
    for token in tokens:
        glue = not text or text.endswith("'") or token in {".", ",", ";", ":", "!", "?"}
        text += token if glue else " " + token
    return text


def split_of(english: str) -> str:
    """``'test'`` for about one English sentence in ten (CRC-32 of the text divisible by 10), else ``'train'``."""
    check_str("english", english, nonempty=True)
    return "test" if zlib.crc32(english.encode("utf-8")) % TEST_BUCKETS == 0 else "train"


@lru_cache(maxsize=1)
def _all_pairs() -> tuple[tuple[str, str], ...]:
    path = data_path(DATA)
    if path.stat().st_size != DATA_BYTES or md5sum(path) != DATA_MD5:
        raise ValueError(f"{DATA} must be the shipped file of {DATA_BYTES:,} bytes (md5 {DATA_MD5}); {path} is not")
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ValueError(f"{path}, line {number}: expected 'English<TAB>French'; got {line!r}")
        pairs.append((parts[0], parts[1]))
    return tuple(pairs)


def sentence_pairs(split: Optional[str] = "train") -> list[tuple[str, str]]:
    """(English, French) pairs of the raw file in ``split`` ('train', 'test' or None for all)."""
    if split is not None:
        check_choice("split", split, SPLITS)
    return [p for p in _all_pairs() if split is None or split_of(p[0]) == split]


def references(split: str = "test") -> dict[str, list[str]]:
    """English sentence -> all its French translations in ``split`` (file order)."""
    out: dict[str, list[str]] = {}
    for english, french in sentence_pairs(split):
        out.setdefault(english, []).append(french)
    return out


def held_out_references(english: Sequence[str]) -> dict[str, list[str]]:
    """``references('test')``, after checking that every sentence of ``english`` is a test sentence (has references).

    >>> first = list(references("test"))[0]
    >>> held_out_references([first])[first][0]  # its first French translation
    'Va !'
    """
    english = check_strings("english", english)
    held_out = references("test")
    missing = [e for e in english if e not in held_out]
    if missing:
        raise ValueError(f"english must be test sentences (ones with references); not in the test split: {missing[:3]}")
    return held_out


@dataclass(frozen=True)
class TranslationVocabs:
    """The source (English) and target (French) vocabularies, ``<unk>`` included."""

    source: Seq2SeqVocab
    target: Seq2SeqVocab

    def __post_init__(self) -> None:
        for name in ("source", "target"):
            check_type(name, getattr(self, name), Seq2SeqVocab, "a Seq2SeqVocab")

    def encode_pair(self, english: str, french: str) -> tuple[str, str]:
        """The pair as space-separated known tokens (unknown words -> <unk>), ready for ``encode_batch``."""
        return (_known(tokenize(english, "en"), self.source), _known(tokenize(french, "fr"), self.target))

    def source_text(self, english: str) -> str:
        """``english`` as space-separated known tokens."""
        return _known(tokenize(english, "en"), self.source)


def _known(tokens: list[str], vocab: Seq2SeqVocab) -> str:
    return " ".join(t if t in vocab.stoi else UNK for t in tokens)


@lru_cache(maxsize=1)
def vocabularies(min_count: int = MIN_COUNT) -> TranslationVocabs:
    """Word vocabularies of the training pairs: every token seen at least ``min_count`` times, plus <unk>."""
    check_int("min_count", min_count)
    counts = {"en": Counter(), "fr": Counter()}
    for english, french in sentence_pairs("train"):
        counts["en"].update(tokenize(english, "en"))
        counts["fr"].update(tokenize(french, "fr"))
    vocabs = []
    for language in LANGUAGES:
        words = sorted(w for w, c in counts[language].items() if c >= min_count)
        vocabs.append(Seq2SeqVocab([UNK] + words, separator=" "))
    return TranslationVocabs(*vocabs)


def punctuation_ids() -> tuple[int, ...]:
    """Source-vocabulary ids of the punctuation marks and of <eos> (for ``Seq2SeqConfig.unattended``).

    >>> [vocabularies().source.itos[i] for i in punctuation_ids()]
    ['<eos>', '!', ',', '.', ':', '?']
    """
    source = vocabularies().source
    return tuple(sorted({source.stoi[p] for p in PUNCTUATION if p in source.stoi} | {source.EOS}))


def training_pairs() -> list[tuple[str, str]]:
    """The training pairs as token strings (unknown words -> <unk>), for ``date_task.batch_sampler``."""
    vocabs = vocabularies()
    return [vocabs.encode_pair(e, f) for e, f in sentence_pairs("train")]


def corpus_scores(hypotheses: Sequence[str], english: Sequence[str]) -> dict[str, float]:
    """Corpus BLEU and chrF (``sacrebleu``, lower-cased) of ``hypotheses`` against all references of each sentence.

    ``english`` names the test sentences (keys of ``references('test')``); every
    French translation of a sentence is one of its references.
    """
    import sacrebleu

    hypotheses = check_strings("hypotheses", hypotheses)
    english = check_strings("english", english)
    if len(hypotheses) != len(english):
        raise ValueError(f"hypotheses and english must have the same length; got {len(hypotheses)} and {len(english)}")
    refs = held_out_references(english)
    width = max(len(refs[e]) for e in english)
    streams = [[refs[e][i] if i < len(refs[e]) else None for e in english] for i in range(width)]
    bleu = sacrebleu.metrics.BLEU(lowercase=True).corpus_score(list(hypotheses), streams)
    chrf = sacrebleu.metrics.CHRF(lowercase=True).corpus_score(list(hypotheses), streams)
    return {"bleu": bleu.score, "chrf": chrf.score}


CHECKPOINTS = ("seq2seq_eng_fra_seed0.pt", "seq2seq_eng_fra_seed1.pt", "seq2seq_eng_fra_seed2.pt")
# The same model whose attention may weigh only the English words themselves (``Seq2SeqConfig.lexical``, with
# punctuation and <eos> ``unattended``), 3,000 steps: the translators whose attention aligns (chapter 06, section 8).
ALIGNED_CHECKPOINTS = tuple(f"seq2seq_eng_fra_aligned_seed{seed}.pt" for seed in range(3))


def greedy_translations(model: Any, english: Sequence[str], max_len: int = 20) -> list[str]:
    """Greedy French translations of ``english`` by a ``Seq2Seq`` trained on ``vocabularies()`` (one batch)."""
    from dl4nlp.date_task import translate

    english = check_strings("english", english)
    vocabs = vocabularies()
    outputs = translate(model, [vocabs.source_text(e) for e in english], vocabs.source, vocabs.target, max_len=max_len)
    return [detokenize(o.split(" ")) if o else "" for o in outputs]


def alignment(model: Any, english: str, french: Optional[str] = None) -> tuple[list[str], list[str], Any]:
    """(English tokens + <eos>, French tokens + <eos>, weights (T_out + 1, T_in + 1)) of ``model`` writing ``french``.

    ``french`` defaults to the model's own greedy translation; unknown words show as <unk>.
    """
    from dl4nlp.date_task import attention_weights

    check_str("english", english, nonempty=True)
    vocabs = vocabularies()
    if french is None:
        french = greedy_translations(model, [english])[0]
    source, target = vocabs.encode_pair(english, french)
    weights = attention_weights(model, source, target, vocabs.source, vocabs.target)
    return source.split(" ") + ["<eos>"], (target.split(" ") if target else []) + ["<eos>"], weights


def _beam_rows(record: Any) -> dict[str, dict[str, float]]:
    """The recipe's per-beam-size results of a translator's provenance record (``results.beam``)."""
    if not isinstance(record, dict) or not isinstance(record.get("results"), dict):
        raise TypeError(f"record must be a translator's provenance (a dict with results); got {type(record).__name__}")
    rows = record["results"].get("beam")
    if not isinstance(rows, dict) or set(rows) != {"1", "4", "8"}:
        raise ValueError(f"record['results']['beam'] must hold beam sizes '1', '4' and '8'; got {rows!r:.80}")
    return rows


def decoding_claim(record: Any) -> bool:
    """Chapter 07's claims on one shipped translator (see ``decoding_claim_sentence``)."""
    rows = _beam_rows(record)
    greedy, beam8 = rows["1"], rows["8"]
    wrong = beam8["search_error"] + beam8["model_error"]
    return (
        beam8["search_error"] < greedy["search_error"]
        and beam8["model_error"] >= MODEL_ERROR_SHARE * wrong
        and abs(rows["4"]["bleu"] - greedy["bleu"]) <= BEAM_BLEU_CHANGE_MAX
    )


def decoding_claim_sentence(seed: int, record: Any) -> str:
    """The sentence ``decoding_claim`` checks, with the record's numbers."""
    rows = _beam_rows(record)
    greedy, beam4, beam8 = rows["1"], rows["4"], rows["8"]
    wrong = beam8["search_error"] + beam8["model_error"]
    return (
        f"seed {seed}: a beam of 8 leaves {beam8['search_error']} search errors against greedy's "
        f"{greedy['search_error']}; {beam8['model_error']} of its {wrong} wrong outputs are model errors (at least "
        f"{MODEL_ERROR_SHARE:.0%}); a beam of 4 moves BLEU from {greedy['bleu']:.1f} to {beam4['bleu']:.1f} (by at "
        f"most {BEAM_BLEU_CHANGE_MAX:g} points)"
    )


# --- reading the alignments: which English word each French word attends to -----
DICE_MIN = 0.3  # a (English, French) word pair this associated in training counts as a translation pair
PUNCTUATION = frozenset(".,;:!?") | {"<eos>"}


@lru_cache(maxsize=1)
def _cooccurrence() -> tuple[Counter, Counter, Counter]:
    """Sentence counts of each English word, each French word and each (English, French) pair in training."""
    english, french, both = Counter(), Counter(), Counter()
    for e, f in training_pairs():
        e_words, f_words = set(e.split(" ")) - PUNCTUATION, set(f.split(" ")) - PUNCTUATION
        english.update(e_words)
        french.update(f_words)
        both.update((a, b) for a in e_words for b in f_words)
    return english, french, both


def dice(english_word: str, french_word: str) -> float:
    """Dice's association of two words over the training pairs: 2 c(e, f) / (c(e) + c(f)), sentence counts.

    1 when the two always occur in the same pairs, 0 when never together.

    >>> round(dice("car", "voiture"), 2) > round(dice("car", "rouge"), 2)
    True
    """
    check_str("english_word", english_word, nonempty=True)
    check_str("french_word", french_word, nonempty=True)
    english, french, both = _cooccurrence()
    total = english[english_word] + french[french_word]
    return 2 * both[(english_word, french_word)] / total if total else 0.0


def dice_aligned(source: Sequence[str], french_word: str) -> Optional[int]:
    """The position of ``source``'s word most associated with ``french_word`` (``dice``), if at least ``DICE_MIN``.

    None for punctuation, for <unk>, and when no source word reaches ``DICE_MIN``.
    """
    source = check_strings("source", source)
    check_str("french_word", french_word, nonempty=True)
    if french_word in PUNCTUATION or french_word == UNK:
        return None
    scores = [(dice(w, french_word) if w not in PUNCTUATION and w != UNK else 0.0) for w in source]
    best = max(range(len(source)), key=lambda i: scores[i])
    return best if scores[best] >= DICE_MIN else None


def reference_alignments(model: Any, english: Sequence[str], batch_size: int = 256) -> list[tuple]:
    """``alignment`` of ``model`` writing the first reference translation of each test sentence (teacher forcing).

    One (English tokens + <eos>, French tokens + <eos>, weights) per sentence,
    computed in batches (padding is masked, so a sentence's weights do not
    depend on its batch).
    """
    import torch

    from dl4nlp.date_task import encode_batch

    english = check_strings("english", english)
    check_int("batch_size", batch_size)
    held_out = held_out_references(english)
    vocabs = vocabularies()
    device = next(model.parameters()).device
    out = []
    for start in range(0, len(english), batch_size):
        pairs = [vocabs.encode_pair(e, held_out[e][0]) for e in english[start : start + batch_size]]
        batch = encode_batch(pairs, vocabs.source, vocabs.target)
        with torch.no_grad():
            _, weights = model(*(batch[k].to(device) for k in ("src", "src_lengths", "tgt_in")))
        for (source, target), w in zip(pairs, weights.cpu()):
            src, tgt = source.split(" ") + ["<eos>"], (target.split(" ") if target else []) + ["<eos>"]
            out.append((src, tgt, w[: len(tgt), : len(src)]))
    return out


def _alignments_of(model: Any, english: list[str], alignments: Optional[Sequence[tuple]]) -> Sequence[tuple]:
    """``alignments`` when given (one per sentence of ``english``), else ``reference_alignments(model, english)``."""
    if alignments is None:
        return reference_alignments(model, english)
    check_type("alignments", alignments, (list, tuple), "reference_alignments(model, english): one per sentence")
    if len(alignments) != len(english):
        raise ValueError(f"alignments must hold one per sentence of english, {len(english)}; got {len(alignments)}")
    return alignments


def attention_agreement(model: Any, english: Sequence[str], *, alignments: Optional[Sequence[tuple]] = None) -> dict:
    """Where ``model``'s attention peaks while it writes the first reference of each test sentence.

    Over every French word of those references (punctuation and <eos> left out):
    ``on_punctuation``, the share whose attention peaks on a punctuation mark or
    <eos> of the source; and over the French words that have a ``dice_aligned``
    English word, ``on_aligned``, the share whose attention peaks on that word.
    ``words`` and ``aligned_words`` are the two counts. ``alignments``, when
    given, is ``reference_alignments(model, english)`` computed once and shared
    with ``crossing_alignments``.
    """
    english = check_strings("english", english)
    words = aligned_words = on_punctuation = on_aligned = 0
    for source, target, weights in _alignments_of(model, english, alignments):
        peaks = weights.argmax(-1).tolist()
        for t, word in enumerate(target[:-1]):
            if word in PUNCTUATION:
                continue
            words += 1
            on_punctuation += source[peaks[t]] in PUNCTUATION
            expected = dice_aligned(source[:-1], word)
            if expected is not None:
                aligned_words += 1
                on_aligned += peaks[t] == expected
    return {
        "words": words,
        "aligned_words": aligned_words,
        "on_punctuation": on_punctuation / max(words, 1),
        "on_aligned": on_aligned / max(aligned_words, 1),
    }


@dataclass(frozen=True)
class Crossing:
    """Two French words of a reference whose attention peaks cross: the first written reads the later English word."""

    english: str
    french: str
    first: tuple[str, str]  # (English word, French word) of the earlier French word
    second: tuple[str, str]
    adjacent: bool  # the two French words are neighbours, and so are the two English words

    def __post_init__(self) -> None:
        check_str("english", self.english, nonempty=True)
        check_str("french", self.french, nonempty=True)
        for name in ("first", "second"):
            pair = getattr(self, name)
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(w, str) for w in pair)):
                raise TypeError(f"{name} must be an (English word, French word) pair of strings; got {given(pair)}")
        if not isinstance(self.adjacent, bool):
            raise TypeError(f"adjacent must be a bool; got {self.adjacent!r}")


def _first_crossing(sentence: str, source: list[str], target: list[str], aligned: list[tuple[int, int]]):
    """The first crossing among ``aligned`` (French position, English position) pairs, adjacent swaps first."""
    pairs = [(a, b) for a, b in itertools.combinations(aligned, 2) if a[1] > b[1]]
    if not pairs:
        return None
    pairs.sort(key=lambda ab: (ab[1][0] - ab[0][0] != 1 or ab[0][1] - ab[1][1] != 1, ab[0][0]))
    (t1, i1), (t2, i2) = pairs[0]
    french = references("test")[sentence][0]
    return Crossing(sentence, french, (source[i1], target[t1]), (source[i2], target[t2]), t2 - t1 == 1 and i1 - i2 == 1)


def crossing_alignments(
    model: Any, english: Sequence[str], *, alignments: Optional[Sequence[tuple]] = None
) -> list[Crossing]:
    """Crossings in ``model``'s alignments of the first reference of each test sentence, adjacent swaps first.

    A French word is *aligned* when its attention peaks on the English word
    ``dice_aligned`` names (the model and the training pairs' word
    associations agree). Two aligned French words at t1 < t2 *cross* when their
    English words come in the other order, i1 > i2 (as in "a red car" ->
    "une voiture rouge"). One crossing per sentence, the first found.
    ``alignments``: as in ``attention_agreement``.
    """
    english = check_strings("english", english)
    found = []
    for sentence, (source, target, weights) in zip(english, _alignments_of(model, english, alignments)):
        peaks = weights.argmax(-1).tolist()
        aligned = [(t, peaks[t]) for t, w in enumerate(target[:-1]) if dice_aligned(source[:-1], w) == peaks[t]]
        crossing = _first_crossing(sentence, source, target, aligned)
        if crossing is not None:
            found.append(crossing)
    return sorted(found, key=lambda c: not c.adjacent)


def expected_crossings(english: Sequence[str]) -> list[Crossing]:
    """The crossings the word associations themselves predict: ``crossing_alignments`` with ``dice_aligned`` as peaks.

    Every French word of a test sentence's first reference that has a
    ``dice_aligned`` English word counts as aligned there; a model's crossings
    (``crossing_alignments``) are found only in these sentences.

    >>> [c.english for c in expected_crossings(["I really like you."])]
    ['I really like you.']
    """
    english = check_strings("english", english)
    held_out, vocabs = held_out_references(english), vocabularies()
    found = []
    for sentence in english:
        source, target = (text.split(" ") for text in vocabs.encode_pair(sentence, held_out[sentence][0]))
        aligned = [(t, i) for t, w in enumerate(target) if (i := dice_aligned(source, w)) is not None]
        crossing = _first_crossing(sentence, source, target, aligned)
        if crossing is not None:
            found.append(crossing)
    return sorted(found, key=lambda c: not c.adjacent)
