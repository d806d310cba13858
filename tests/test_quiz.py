"""The concept checks: every quizzes/NN.json is well formed and backed by a section of its chapter, the
HTML shows every answer, and tools/quiz_cells.py places the section idempotently."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

from dl4nlp import quiz

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "quizzes").glob("*.json"))
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
sys.path.insert(0, str(ROOT / "tools"))


def words(text: str) -> list[str]:
    text = re.sub(r"\$[^$]*\$", " ", text)  # a heading's maths
    return re.findall(r"[a-z]+", text.lower())


def test_every_chapter_has_a_quiz_file():
    assert [p.stem for p in FILES] == [p.stem[:2] for p in CHAPTERS]


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_the_questions_are_well_formed(path):
    record = json.loads(path.read_text(encoding="utf-8"))
    loaded = quiz.load(path.stem)  # raises on a missing field, < 2 answers, or a wrong number of correct answers
    assert 3 <= len(loaded.questions) <= 6, "three to six questions per chapter"
    for question, raw in zip(loaded.questions, record["questions"]):
        assert len(question.answers) >= 2
        assert all(a.explanation for a in question.answers), "an explanation for every answer"
        if question.type == "single":
            assert len(question.correct) == 1, f"{question.question!r}: exactly one correct answer"
        assert len({a.answer for a in question.answers}) == len(question.answers), "answers differ"
        assert "$" not in json.dumps(raw, ensure_ascii=False), "no TeX: the quiz is HTML, shown without MathJax"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_question_names_a_section_of_its_chapter(path):
    (py,) = [p for p in CHAPTERS if p.stem.startswith(path.stem)]
    headings = [line[5:] for line in py.read_text(encoding="utf-8").splitlines() if line.startswith("# ## ")]
    for question in quiz.load(path.stem).questions:
        wanted = words(question.section)[:3]
        assert any(words(h)[:3] == wanted for h in headings), f"{question.section!r} is not a section of {py.name}"


def test_the_html_shows_every_answer_escaped():
    shown = quiz.load("03")
    html = shown._repr_html_()
    assert html.count("<details") == sum(len(q.answers) for q in shown.questions)
    assert html.count("✓ Right.") == sum(len(q.correct) for q in shown.questions)
    assert "<script" not in html
    assert quiz._inline("`a<b`") == "<code>a&lt;b</code>"


def test_malformed_quizzes_are_refused_with_the_field_named():
    good = json.loads((ROOT / "quizzes" / "03.json").read_text(encoding="utf-8"))
    two_right = copy.deepcopy(good)
    two_right["questions"][0]["answers"][1]["correct"] = True
    with pytest.raises(ValueError, match="exactly one correct answer, got 2"):
        quiz.Quiz.from_dict(two_right)
    one_answer = copy.deepcopy(good)
    del one_answer["questions"][1]["answers"][1:]
    with pytest.raises(ValueError, match="question 2: expected a list of at least 2 answers"):
        quiz.Quiz.from_dict(one_answer)
    no_why = copy.deepcopy(good)
    no_why["questions"][2]["answers"][0]["explanation"] = " "
    with pytest.raises(ValueError, match="question 3, answer 1: expected a non-empty string 'explanation'"):
        quiz.Quiz.from_dict(no_why)
    with pytest.raises(ValueError, match="two digits"):
        quiz.load("3")
    with pytest.raises(FileNotFoundError, match="quizzes/99.json"):
        quiz.load("99")


def test_the_quiz_section_is_placed_before_the_instructor_notes_idempotently():
    from quiz_cells import HEADING, with_quiz

    notebook = nbformat.read(ROOT / "notebooks" / "03_rnns_forget.ipynb", as_version=4)
    once = with_quiz(copy.deepcopy(notebook), "03")
    twice = with_quiz(copy.deepcopy(once), "03")
    assert nbformat.writes(once) == nbformat.writes(twice)
    heads = [c.source.splitlines()[0] for c in once.cells if c.cell_type == "markdown" and c.source]
    assert heads.count(HEADING) == 1
    assert heads.index(HEADING) + 1 == heads.index("## Instructor notes")
    code = once.cells[[c.source.splitlines()[0] if c.source else "" for c in once.cells].index(HEADING) + 1]
    assert code.source.endswith('quiz.show("03")') and code.outputs[0]["data"]["text/html"].startswith("<div")
