"""Dependency trees of real sentences: read CoNLL-U, find who agrees with whom, draw the tree.

The Universal Dependencies English Web Treebank (``data/en_ewt-ud-dev.conllu`` and
``-test.conllu``, CC BY-SA 4.0) gives every word its head and relation. Chapter 03
counts how far a subject sits from the finite verb that agrees with it (the distance
an RNN must carry "singular or plural"); chapter 05 draws trees and composes
vectors along them (``dl4nlp.recursive``).

>>> sentences = read_conllu("en_ewt-ud-dev.conllu")
>>> len(sentences), sentences[0].text
(2001, 'From the AP comes this story :')
>>> [(t.form, t.head, t.deprel) for t in sentences[0].tokens[:4]]
[('From', 3, 'case'), ('the', 3, 'det'), ('AP', 4, 'obl'), ('comes', 0, 'root')]
>>> pair = subject_verb_pairs(sentences[:1])[0]  # "story" is the subject of "comes", 2 words before it
>>> pair.subject, pair.verb, pair.distance
('story', 'comes', 2)
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Optional, Sequence, Union

import matplotlib.pyplot as plt
import numpy as np

from dl4nlp._checks import check_int, check_sequence, check_str, check_type, given

SUBJECT_RELATIONS = ("nsubj", "nsubj:pass")
FINITE_HELPERS = ("aux", "aux:pass", "cop")  # a finite auxiliary or copula carries the agreement


class Token(NamedTuple):
    id: int  # 1-based position in the sentence
    form: str
    upos: str  # universal part of speech
    xpos: str  # Penn Treebank tag (VBZ: 3rd person singular present, VBP: other present)
    feats: dict  # morphological features, e.g. {"Number": "Plur"}
    head: int  # id of the head word, 0 for the root
    deprel: str  # relation to the head


@dataclass(frozen=True)
class Sentence:
    sent_id: str
    text: str
    tokens: tuple[Token, ...]

    def children(self, token_id: int) -> list[Token]:
        """The dependents of word ``token_id`` (0: the root), in sentence order."""
        return [t for t in self.tokens if t.head == token_id]


def _features(column: str) -> dict:
    return {} if column == "_" else dict(part.split("=", 1) for part in column.split("|"))


def read_conllu(source: Union[str, Path]) -> list[Sentence]:
    """The sentences of a CoNLL-U file: a file name in ``data/`` or a path.

    Multi-word tokens (``3-4``) and empty nodes (``8.1``) are skipped, so token ids are
    word positions; every sentence must be a tree (one root, heads within the sentence).
    """
    from dl4nlp.data import data_path

    if isinstance(source, str) and Path(source).name == source:
        try:
            path = data_path(check_str("source", source, nonempty=True))
        except FileNotFoundError as error:
            raise FileNotFoundError(f"source must name a CoNLL-U file in data/ or a path: {error}") from None
    else:
        path = Path(check_type("source", source, (str, Path), "a file name in data/ or a path"))
    lines = path.read_text(encoding="utf-8").splitlines() + [""]
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of small objects: the cyclic collector would rescan them all, again and again
    try:
        return _parse(lines, path)
    finally:
        if collecting:
            gc.enable()


def _parse(lines: list[str], path: Path) -> list[Sentence]:
    sentences, tokens, text, sent_id = [], [], "", ""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            if tokens:
                sentences.append(_sentence(sent_id, text, tokens, path))  # checks that it is a tree
                if not sent_id:
                    raise ValueError(f"{path}, line {number}: the sentence ending here has no '# sent_id = ...' line")
            tokens, text, sent_id = [], "", ""
        elif line.startswith("# text = "):
            text = line[len("# text = ") :]
        elif line.startswith("# sent_id = "):
            sent_id = line[len("# sent_id = ") :]
        elif not line.startswith("#"):
            columns = line.split("\t")
            if len(columns) != 10:
                raise ValueError(f"{path}, line {number}: a CoNLL-U word line has 10 tab-separated columns; "
                                 f"got {len(columns)}: {line[:60]!r}")  # fmt: skip
            if "-" in columns[0] or "." in columns[0]:
                continue
            index, form, _, upos, xpos, feats, head, deprel = columns[:8]
            tokens.append(Token(int(index), form, upos, xpos, _features(feats), int(head), deprel))
    if not sentences:
        raise ValueError(f"{path} holds no CoNLL-U sentences: it must have at least one; it has none")
    return sentences


def _sentence(sent_id: str, text: str, tokens: list[Token], path: Path) -> Sentence:
    ids = [t.id for t in tokens]
    if ids != list(range(1, len(tokens) + 1)):
        raise ValueError(f"{path}, sentence {sent_id!r}: word ids must run 1..{len(tokens)}; got {ids[:10]}")
    if sum(t.head == 0 for t in tokens) != 1 or any(not 0 <= t.head <= len(tokens) for t in tokens):
        raise ValueError(f"{path}, sentence {sent_id!r}: not a tree (one root, heads within the sentence)")
    return Sentence(sent_id, text, tuple(tokens))


@dataclass(frozen=True)
class SubjectVerb:
    sentence: int  # index in the list given
    subject: str
    verb: str  # the finite word that agrees with the subject (the verb, or its finite auxiliary/copula)
    subject_id: int
    verb_id: int
    distance: int  # |verb_id - subject_id|, in words
    characters: int  # characters from the subject's first to the verb's first (words joined by spaces)
    across_relative_clause: bool  # a relative clause of the subject stands between them
    attractor: Optional[str]  # the first noun between them of the other number ("lists" in "item on ... lists is")


def subject_verb_pairs(sentences: Sequence[Sentence]) -> list[SubjectVerb]:
    """Every nominal subject (a noun, proper noun or pronoun: ``nsubj``, ``nsubj:pass``) with its finite verb.

    The word that agrees is the head's finite auxiliary or copula when it has one
    ("The keys ... *are* lost"), else the head itself when it is finite ("... *holds*");
    subjects of non-finite clauses are skipped.
    """
    for sentence in check_sequence("sentences", sentences):
        check_type("sentences[i]", sentence, Sentence, "a Sentence (read_conllu)")
    pairs = []
    for index, sentence in enumerate(sentences):
        words = {t.id: t for t in sentence.tokens}
        for subject in sentence.tokens:
            if subject.deprel not in SUBJECT_RELATIONS or subject.upos not in ("NOUN", "PROPN", "PRON"):
                continue
            head = words.get(subject.head)
            if head is None:
                continue
            helpers = [c for c in sentence.children(head.id)
                       if c.deprel in FINITE_HELPERS and c.feats.get("VerbForm") == "Fin"]  # fmt: skip
            verb = helpers[0] if helpers else (head if head.feats.get("VerbForm") == "Fin" else None)
            if verb is None:
                continue
            low, high = sorted((subject.id, verb.id))
            between = [words[i] for i in range(low + 1, high)]
            number = subject.feats.get("Number")
            attractor = next((t.form for t in between if t.upos == "NOUN" and number is not None
                              and t.feats.get("Number") not in (None, number)), None)  # fmt: skip
            relative = any(c.deprel == "acl:relcl" and low < c.id < high for c in sentence.children(subject.id))
            characters = sum(len(words[i].form) + 1 for i in range(low, high))
            pairs.append(SubjectVerb(index, subject.form, verb.form, subject.id, verb.id, high - low, characters,
                                     relative, attractor))  # fmt: skip
    return pairs


def share_farther(distances: Sequence[int], k: int) -> float:
    """The share of ``distances`` greater than ``k``.

    >>> share_farther([1, 2, 3, 10], 2)
    0.5
    """
    values = check_sequence("distances", distances)
    check_int("k", k, low=0)
    return sum(d > k for d in values) / len(values)


def draw_dependency_tree(sentence: Sentence, ax: Optional[plt.Axes] = None, title: Optional[str] = None) -> plt.Axes:
    """The sentence's words in a row, each arc drawn from head to dependent above them with its relation."""
    check_type("sentence", sentence, Sentence, "a Sentence (read_conllu)")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(sentence.tokens)), 2.8))
    n = len(sentence.tokens)
    for token in sentence.tokens:
        ax.text(token.id, 0, token.form, ha="center", va="top", fontsize=10)
        ax.text(token.id, -0.45, token.upos, ha="center", va="top", fontsize=7, color="grey")
        if token.head == 0:
            ax.annotate("", xy=(token.id, 0.1), xytext=(token.id, 2.6), arrowprops={"arrowstyle": "->", "lw": 1})
            ax.text(token.id, 2.65, "root", ha="center", va="bottom", fontsize=8, color="tab:red")
            continue
        span = abs(token.head - token.id)
        height = 0.45 + 0.38 * span
        start = token.head + 0.15 * np.sign(token.id - token.head)  # leave the head beside its own label
        t = np.linspace(0.0, 1.0, 41)
        x, y = start + (token.id - start) * t, 0.1 + 4 * height * t * (1 - t)
        ax.plot(x[:-4], y[:-4], color="tab:blue", linewidth=1)
        ax.annotate("", xy=(x[-1], y[-1]), xytext=(x[-5], y[-5]),
                    arrowprops={"arrowstyle": "-|>", "color": "tab:blue", "lw": 1, "shrinkA": 0, "shrinkB": 0,
                                "mutation_scale": 9})  # fmt: skip
        ax.text((token.id + token.head) / 2, 0.1 + height + 0.03, token.deprel, ha="center", va="bottom",
                fontsize=7, color="tab:blue", backgroundcolor="white")  # fmt: skip
    ax.set_xlim(0.3, n + 0.7)
    ax.set_ylim(-0.9, 0.45 + 0.38 * max([abs(t.head - t.id) for t in sentence.tokens if t.head] + [1]) + 0.9)
    ax.axis("off")
    if title is not None:
        ax.set_title(title, fontsize=10)
    return ax


def describe(pair: SubjectVerb, sentences: Sequence[Sentence]) -> str:
    """One line: the sentence's words from the subject to the verb, subject and verb in capitals."""
    check_type("pair", pair, SubjectVerb, "a SubjectVerb (subject_verb_pairs)")
    sentence = check_sequence("sentences", sentences)[pair.sentence]
    low, high = sorted((pair.subject_id, pair.verb_id))
    words = [t.form.upper() if t.id in (low, high) else t.form for t in sentence.tokens[low - 1 : high]]
    if not words:
        raise ValueError(f"the pair does not fit its sentence: {given(pair)}")
    return " ".join(words)
