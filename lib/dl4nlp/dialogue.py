"""Dialogue or narration? A labelled task whose labels come from the text itself, and BERT's corpus mix.

Two shipped corpora, *The Adventures of Sherlock Holmes* (curly quotes “ ”)
and TinyStories (straight quotes "), are cut into paragraphs and sentences. A
sentence whose every word lies inside double quotation marks is **dialogue**
(label 1); one with no word inside them is **narration** (label 0); mixed
sentences (*"Come in," said Holmes.*) are left out. Then every quotation mark
is removed (single quotes too, except apostrophes between letters), so the
label cannot be read off the input: a model has to tell speech from narration
by its language. Sherlock Holmes is narrated in the first person by Watson,
so *I* and *my* occur on both sides.

The last ``HELD_OUT_SHARE`` of each corpus's paragraphs are held out: they are
never pre-trained on, and the task's test sentences come from them only.
Pre-training reads the other paragraphs with the quotation marks removed (so
the labels never appear in pre-training either). Taught in notebook 13.

>>> label_sentences("“Come here, Watson. I want you.” He said nothing. “Now!”", "“", "”")
[('Come here, Watson.', 1), ('I want you.', 1), ('He said nothing.', 0), ('Now!', 1)]
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

from dl4nlp._checks import check_choice, check_int, check_sequence, check_str, given
from dl4nlp.bpe import pre_tokenize
from dl4nlp.data import load_text

CORPORA = ("sherlock_holmes.txt", "tinystories.txt")
QUOTES = {"sherlock_holmes.txt": ("“", "”"), "tinystories.txt": ('"', '"')}
HELD_OUT_SHARE = 0.2  # the last 20 % of each corpus's paragraphs
DIALOGUE, NARRATION = 1, 0
LABEL_NAMES = ("narration", "dialogue")
MIN_WORDS = 3  # shorter sentences ("No.") are left out of the task

_ABBREVIATION = re.compile(r"\b(?:Mr|Mrs|Dr|St|Messrs|Mme|Col|Capt|Prof|Rev|Lt|Gen|Co|No|vs)\.$")
_SENTENCE_END = re.compile(r"(?<=[.!?])[”\"’)]*\s+")
_QUOTE_MARKS = re.compile(r"[“”\"]|(?<![A-Za-z])[‘’']|[‘’'](?![A-Za-z])")


def paragraphs(corpus: str) -> list[str]:
    """The paragraphs of a shipped corpus, each on one line (Sherlock's wrapped lines joined; underscores gone)."""
    check_choice("corpus", corpus, CORPORA)
    text = load_text(corpus)
    if corpus == "sherlock_holmes.txt":  # paragraphs are separated by blank lines, lines are wrapped
        blocks = re.split(r"\n\s*\n", text.replace("_", ""))
    else:  # TinyStories: one paragraph per line
        blocks = text.split("\n")
    return [" ".join(block.split()) for block in blocks if block.strip()]


def split(corpus: str) -> dict[str, list[str]]:
    """The paragraphs of ``corpus`` cut into ``'train'`` (the first 80 %) and ``'held_out'`` (the rest)."""
    every = paragraphs(corpus)
    cut = round(len(every) * (1 - HELD_OUT_SHARE))
    return {"train": every[:cut], "held_out": every[cut:]}


def _sentence_spans(paragraph: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(paragraph):
        if _ABBREVIATION.search(paragraph[start : match.start()].rstrip('”"’)')):
            continue
        spans.append((start, match.start()))
        start = match.end()
    if start < len(paragraph):
        spans.append((start, len(paragraph)))
    return spans


def strip_quotes(text: str) -> str:
    """``text`` without double quotes and without single quotes that are not apostrophes inside a word.

    >>> strip_quotes("“It’s ‘nothing’,” he said.")
    "It's nothing, he said."
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str; got {type(text).__name__}")
    return " ".join(_QUOTE_MARKS.sub("", text).replace("’", "'").split())


def label_sentences(paragraph: str, open_quote: str, close_quote: str) -> list[tuple[str, Optional[int]]]:
    """Every sentence of ``paragraph`` (quotes removed) with its label: 1 dialogue, 0 narration, None mixed.

    A quotation still open at the end of a paragraph (the convention for a
    speech running over several paragraphs) ends there.
    """
    flags = _inside_quotes(paragraph, open_quote, close_quote)
    out = []
    for start, end in _sentence_spans(paragraph):
        letters = [flag for ch, flag in zip(paragraph[start:end], flags[start:end]) if ch.isalnum()]
        text = strip_quotes(paragraph[start:end])
        if not letters or not text:
            continue
        label = DIALOGUE if all(letters) else NARRATION if not any(letters) else None
        out.append((text, label))
    return out


_CURLY_PAIRS = (("\u201c", "\u201d"), ("\u2018", "\u2019"))  # (opening, closing): “ ” and ‘ ’


def _inside_quotes(paragraph: str, open_quote: str, close_quote: str) -> list[bool]:
    """For every character of ``paragraph``: is it inside a quotation (the marks themselves included)?"""
    if not isinstance(paragraph, str):
        raise TypeError(f"paragraph must be a str; got {type(paragraph).__name__}")
    for name, mark in (("open_quote", open_quote), ("close_quote", close_quote)):
        if not isinstance(mark, str) or len(mark) != 1:
            raise ValueError(f"{name} must be one character; got {mark!r}")
    if (close_quote, open_quote) in _CURLY_PAIRS:  # swapped: every label would be inverted
        raise ValueError(
            f"open_quote and close_quote must be the opening and the closing mark, such as "
            f"open_quote={close_quote!r}, close_quote={open_quote!r}; got them swapped: "
            f"open_quote={open_quote!r}, close_quote={close_quote!r}"
        )
    inside, flags = False, []
    for ch in paragraph:
        if ch == open_quote and (open_quote != close_quote or not inside):
            inside = True
        elif ch == close_quote:
            inside = False
        flags.append(inside)
    return flags


@dataclass(frozen=True)
class Example:
    """One sentence of the task: its text (no quotation marks), its label and the corpus it came from."""

    text: str
    label: int
    corpus: str

    def __post_init__(self):
        check_str("text", self.text)
        check_choice("label", self.label, (NARRATION, DIALOGUE))
        check_str("corpus", self.corpus)


def labelled_sentences(part: str) -> list[Example]:
    """The task's sentences from the ``'train'`` or ``'held_out'`` paragraphs of both corpora (mixed ones left out)."""
    if part not in ("train", "held_out"):
        raise ValueError(f"part must be 'train' or 'held_out'; got {part!r}")
    out = []
    for corpus in CORPORA:
        for paragraph in split(corpus)[part]:
            for text, label in label_sentences(paragraph, *QUOTES[corpus]):
                if label is not None and len(text.split()) >= MIN_WORDS:
                    out.append(Example(text, label, corpus))
    return out


VALIDATION_PER_CELL = 60  # validation sentences per (corpus, label), from the training paragraphs
TEST_PER_CELL = 160  # test sentences per (corpus, label), from the held-out paragraphs


@lru_cache(maxsize=1)
def task_sets() -> dict[str, tuple[Example, ...]]:
    """The task's fixed splits: ``train`` (the pool label budgets are drawn from), ``validation`` and ``test``.

    Validation sentences (for choosing learning rates) come from the training
    paragraphs and are removed from the pool; test sentences come from the
    held-out paragraphs, which pre-training never read, and are sentences that
    never occur in the training paragraphs. No text is in two of the three.
    """
    pool = labelled_sentences("train")
    seen = {e.text for e in pool}  # a sentence that also occurs in the training paragraphs is not a test
    test = balanced_sample([e for e in labelled_sentences("held_out") if e.text not in seen], 4 * TEST_PER_CELL, 12345)
    validation = balanced_sample(pool, 4 * VALIDATION_PER_CELL, seed=999)
    taken = {e.text for e in validation}
    train = tuple(e for e in pool if e.text not in taken)
    return {"train": train, "validation": tuple(validation), "test": tuple(test)}


def balanced_sample(examples: Sequence[Example], n: int, seed: int) -> list[Example]:
    """``n`` examples, a quarter from each (corpus, label) cell, drawn without replacement with ``seed``.

    So neither the corpus nor chance tells the label: both classes are equally
    frequent, and equally frequent within each corpus.
    """
    examples = check_sequence("examples", examples, nonempty=False, what="a list of Example")
    bad = [e for e in examples if not isinstance(e, Example)]
    if bad:
        raise TypeError(f"examples must hold dl4nlp.dialogue.Example records; got {given(bad[0])}")
    if check_int("n", n, low=4) % 4:
        raise ValueError(f"n must be a positive multiple of 4; got {n!r}")
    check_int("seed", seed, low=0)
    rng = random.Random(seed)
    out = []
    for corpus in CORPORA:
        for label in (NARRATION, DIALOGUE):
            cell = [e for e in examples if e.corpus == corpus and e.label == label]
            if len(cell) < n // 4:
                raise ValueError(
                    f"n={n} asks for {n // 4} sentences per (corpus, label); "
                    f"examples hold only {len(cell)} {LABEL_NAMES[label]} sentences of {corpus}"
                )
            out += rng.sample(cell, n // 4)
    rng.shuffle(out)
    return out


def tag_words(paragraph: str, open_quote: str, close_quote: str) -> list[tuple[list[str], list[int]]]:
    """Every sentence of ``paragraph`` as words (quotes removed, lowercased) with a tag each: 1 inside quotes.

    >>> tag_words('"Come in," said Tom. "Now."', '"', '"')
    [(['come', 'in', ',', 'said', 'tom', '.'], [1, 1, 1, 0, 0, 0]), (['now', '.'], [1, 1])]
    """
    flags = _inside_quotes(paragraph, open_quote, close_quote)
    out = []
    for start, end in _sentence_spans(paragraph):
        words, tags, piece_start = [], [], start
        for i in range(start, end + 1):  # cut the sentence where the quotation state changes
            if i == end or (i > start and flags[i] != flags[i - 1]):
                piece = pre_tokenize(strip_quotes(paragraph[piece_start:i]))
                words += piece
                tags += [int(flags[i - 1])] * len(piece)
                piece_start = i
        if words:
            out.append((words, tags))
    return out


def tagged_sentences(part: str) -> list[tuple[list[str], list[int], str]]:
    """The token-level task: every sentence of ``part`` (mixed ones included) as (words, tags, corpus)."""
    if part not in ("train", "held_out"):
        raise ValueError(f"part must be 'train' or 'held_out'; got {part!r}")
    return [
        (words, tags, corpus)
        for corpus in CORPORA
        for paragraph in split(corpus)[part]
        for words, tags in tag_words(paragraph, *QUOTES[corpus])
        if len(words) >= MIN_WORDS
    ]


def pretraining_documents(part: str = "train") -> list[list[str]]:
    """Paragraphs of both corpora as lists of sentences, quotation marks removed: the pre-training text."""
    if part not in ("train", "held_out"):
        raise ValueError(f"part must be 'train' or 'held_out'; got {part!r}")
    documents = []
    for corpus in CORPORA:
        for paragraph in split(corpus)[part]:
            sentences = [strip_quotes(paragraph[a:b]) for a, b in _sentence_spans(paragraph)]
            documents.append([s for s in sentences if s])
    return documents
