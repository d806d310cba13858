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
``MIN_COUNT`` times in training become ``<unk>``. Used in notebook 07.

>>> tokenize("I have a red car.", "en")
['i', 'have', 'a', 'red', 'car', '.']
>>> tokenize("J'ai une voiture rouge.", "fr")
["j'", 'ai', 'une', 'voiture', 'rouge', '.']
>>> detokenize(["j'", 'ai', 'une', 'voiture', 'rouge', '.'])
"j'ai une voiture rouge."
"""

from __future__ import annotations

import re
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Optional, Sequence

from dl4nlp._checks import check_choice, check_int, check_str, check_strings, check_type
from dl4nlp.data import data_path, md5sum
from dl4nlp.vocab import Seq2SeqVocab

DATA = "tatoeba_eng_fra_18k.tsv"
DATA_BYTES, DATA_MD5 = 686_457, "fc3c2b6551a579c119b70725a6d3c2df"
TEST_BUCKETS = 10
MIN_COUNT = 3
UNK = "<unk>"
LANGUAGES = ("en", "fr")
SPLITS = ("train", "test")
MODEL_ERROR_SHARE = 0.8  # chapter 07: at least this share of a beam of 8's wrong outputs are model errors
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
    refs = references("test")
    missing = [e for e in english if e not in refs]
    if missing:
        raise ValueError(f"english must be test sentences; not in the test split: {missing[:3]}")
    width = max(len(refs[e]) for e in english)
    streams = [[refs[e][i] if i < len(refs[e]) else None for e in english] for i in range(width)]
    bleu = sacrebleu.metrics.BLEU(lowercase=True).corpus_score(list(hypotheses), streams)
    chrf = sacrebleu.metrics.CHRF(lowercase=True).corpus_score(list(hypotheses), streams)
    return {"bleu": bleu.score, "chrf": chrf.score}


CHECKPOINTS = ("seq2seq_eng_fra_seed0.pt", "seq2seq_eng_fra_seed1.pt", "seq2seq_eng_fra_seed2.pt")


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
