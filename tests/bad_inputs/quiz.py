"""Bad inputs of dl4nlp.quiz."""

from bad_inputs.harness import cases, exempt
from dl4nlp import quiz as Q

exempt(
    "records of a parsed quiz, made by Quiz.from_dict (or load), which checks every field",
    "dl4nlp.quiz.Answer",
    "dl4nlp.quiz.Question",
    "dl4nlp.quiz.Quiz",
)

GOOD = {
    "question": "q?",
    "section": "1. S",
    "type": "single",
    "answers": [
        {"answer": "a", "correct": True, "explanation": "why a"},
        {"answer": "b", "correct": False, "explanation": "why b"},
    ],
}


def quiz_with(**change):
    return {"chapter": "99", "questions": [{**GOOD, **change}]}


@cases("dl4nlp.quiz.Quiz.from_dict")
def _():
    yield "no questions", lambda: Q.Quiz.from_dict({"chapter": "99", "questions": []}), ("questions", "[]")
    yield "an unknown type", lambda: Q.Quiz.from_dict(quiz_with(type="open")), ("type", "open")
    yield "one answer", lambda: Q.Quiz.from_dict(quiz_with(answers=GOOD["answers"][:1])), ("answers", "2")
    two = [dict(a, correct=True) for a in GOOD["answers"]]
    yield (
        "two correct answers to a single-choice question",
        lambda: Q.Quiz.from_dict(quiz_with(answers=two)),
        ("exactly", "2"),
    )
    yield (
        "correct given as a string",
        lambda: Q.Quiz.from_dict(quiz_with(answers=[dict(GOOD["answers"][0], correct="yes"), GOOD["answers"][1]])),
        ("correct", "yes"),
    )
    yield "a chapter that is a number", lambda: Q.Quiz.from_dict({"chapter": 3, "questions": []}), ("chapter", "3")


@cases("dl4nlp.quiz.load")
def _():
    yield "a chapter of one digit", lambda: Q.load("3"), ("chapter", "3")
    yield "a chapter as an int", lambda: Q.load(3), ("chapter", "3")
    yield "a chapter without a file", lambda: Q.load("99"), ("chapter", "99")


@cases("dl4nlp.quiz.show")
def _():
    yield "a chapter of one digit", lambda: Q.show("3"), ("chapter", "3")
