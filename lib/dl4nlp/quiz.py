"""Concept checks: a chapter's questions, shown as plain HTML that works with no kernel and no network.

The questions of chapter NN live in ``quizzes/NN.json`` at the repository's root::

    {"chapter": "03", "questions": [
      {"question": "...", "section": "4. The eigenvalue argument", "type": "single",
       "answers": [{"answer": "...", "correct": true, "explanation": "..."}, ...]}]}

``type`` is ``"single"`` (exactly one correct answer) or ``"multiple"``
(every correct answer to be found). ``show("03")`` returns an object that
Jupyter displays as HTML: each answer is a ``<details>`` element, so clicking
it reveals whether it is right and why. No JavaScript is involved, so the same
output works in JupyterLab (even in a notebook that is not trusted, whose
scripts JupyterLab does not run), in Colab and in the book. Text between
backticks is shown as code. Used at the end of every chapter (section
"Check your understanding").

>>> quiz = Quiz.from_dict({"chapter": "99", "questions": [{"question": "2 + 2?", "section": "1. Sums",
...     "type": "single", "answers": [{"answer": "4", "correct": True, "explanation": "Two and two."},
...                                  {"answer": "5", "correct": False, "explanation": "One too many."}]}]})
>>> len(quiz.questions), quiz.questions[0].correct
(1, (0,))
>>> "<details" in quiz._repr_html_()
True
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

QUIZZES = Path(__file__).resolve().parents[2] / "quizzes"  # lib/dl4nlp/quiz.py -> repository root
TYPES = ("single", "multiple")


@dataclass(frozen=True)
class Answer:
    answer: str
    correct: bool
    explanation: str


@dataclass(frozen=True)
class Question:
    question: str
    section: str
    type: str
    answers: tuple[Answer, ...]

    @property
    def correct(self) -> tuple[int, ...]:
        """The positions of the correct answers."""
        return tuple(i for i, a in enumerate(self.answers) if a.correct)


def _text(record: dict, key: str, where: str) -> str:
    value = record.get(key) if isinstance(record, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: expected a non-empty string '{key}', got {value!r}")
    return value.strip()


def _question(record: dict, where: str) -> Question:
    kind = _text(record, "type", where)
    if kind not in TYPES:
        raise ValueError(f"{where}: type must be one of {TYPES}, got {kind!r}")
    answers = record.get("answers")
    if not isinstance(answers, list) or len(answers) < 2:
        raise ValueError(f"{where}: expected a list of at least 2 answers, got {answers!r}")
    parsed = []
    for j, answer in enumerate(answers):
        here = f"{where}, answer {j + 1}"
        correct = answer.get("correct") if isinstance(answer, dict) else None
        if not isinstance(correct, bool):
            raise ValueError(f"{here}: expected 'correct' true or false, got {correct!r}")
        parsed.append(Answer(_text(answer, "answer", here), correct, _text(answer, "explanation", here)))
    right = sum(a.correct for a in parsed)
    if (kind == "single" and right != 1) or right == 0:
        raise ValueError(
            f"{where}: a {kind}-choice question needs {'exactly' if kind == 'single' else 'at least'} "
            f"one correct answer, got {right}"
        )
    return Question(_text(record, "question", where), _text(record, "section", where), kind, tuple(parsed))


@dataclass(frozen=True)
class Quiz:
    chapter: str
    questions: tuple[Question, ...]

    @classmethod
    def from_dict(cls, record: dict) -> Quiz:
        """A quiz from its JSON form; raises ValueError naming the first malformed field."""
        chapter = _text(record, "chapter", "the quiz")
        questions = record.get("questions")
        if not isinstance(questions, list) or not questions:
            raise ValueError(f"quiz {chapter}: expected a non-empty list of questions, got {questions!r}")
        return cls(chapter, tuple(_question(q, f"quiz {chapter}, question {i + 1}") for i, q in enumerate(questions)))

    def _repr_html_(self) -> str:
        parts = ['<div class="dl4nlp-quiz">']
        for number, q in enumerate(self.questions, 1):
            how = "one answer is right" if q.type == "single" else "more than one answer may be right"
            parts.append(
                f"<p><b>{number}. {_inline(q.question)}</b><br><small>({how}; click an answer to check it; "
                f"see section {_inline(q.section)})</small></p>"
            )
            for letter, a in zip("ABCDEFGH", q.answers):
                verdict = "✓ Right." if a.correct else "✗ Not this one."
                parts.append(
                    f'<details style="margin:0 0 0.3em 1.5em"><summary>{letter}. {_inline(a.answer)}</summary>'
                    f'<div style="margin:0.2em 0 0.5em 1.2em">{verdict} {_inline(a.explanation)}</div></details>'
                )
        parts.append("</div>")
        return "\n".join(parts)

    def __repr__(self) -> str:
        return f"Concept check of chapter {self.chapter}: {len(self.questions)} questions (shown as HTML)"


def _inline(text: str) -> str:
    """Escape ``text`` for HTML, with `backticks` as code.

    >>> _inline("use `a<b` & more")
    'use <code>a&lt;b</code> &amp; more'
    """
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def load(chapter: str, folder: Path | None = None) -> Quiz:
    """The quiz of ``chapter`` (two digits, e.g. "03") from ``quizzes/NN.json``."""
    if not isinstance(chapter, str) or not re.fullmatch(r"\d\d", chapter):
        raise ValueError(f"chapter: expected two digits such as '03', got {chapter!r}")
    path = (folder or QUIZZES) / f"{chapter}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no concept check for chapter {chapter}: expected the file quizzes/{chapter}.json")
    quiz = Quiz.from_dict(json.loads(path.read_text(encoding="utf-8")))
    if quiz.chapter != chapter:
        raise ValueError(f"quizzes/{chapter}.json: expected chapter {chapter!r}, got {quiz.chapter!r}")
    return quiz


def show(chapter: str) -> Quiz:
    """The concept check of ``chapter``, for display as a cell's result (``dl4nlp.quiz.show("03")``)."""
    return load(chapter)
