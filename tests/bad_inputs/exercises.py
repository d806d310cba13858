"""Bad inputs of dl4nlp.exercises: the author's mistakes (a student's wrong answer is not an error: check says why)."""

import math

from bad_inputs.harness import cases, vary
from dl4nlp import exercises as E


@cases("dl4nlp.exercises.check")
def _():
    good = dict(name="q", answer=1.0, expected=1.0)
    yield from vary(
        E.check,
        good,
        "expected",
        [
            ("not a number", "one", "'one'"),
            ("None", None, "None"),
            ("NaN", math.nan, "nan"),
            ("a function", lambda: 1.0, "function"),
        ],
    )
    yield from vary(
        E.check, good, "atol", [("negative", -1.0, "-1.0"), ("NaN", math.nan, "nan"), ("a string", "0", "'0'")]
    )
    yield from vary(E.check, good, "rtol", [("negative", -1.0, "-1.0")])
    yield from vary(E.check, good, "name", [("not a string", 3, "3"), ("empty", "", "''")])
    yield from vary(E.check, good, "names", [("names of the wrong kind", [1], "1")])


@cases("dl4nlp.exercises.isclose")
def _():
    good = dict(a=1.0, b=1.0)
    yield from vary(E.isclose, good, "a", [("a string", "1", "'1'"), ("None", None, "None")])
    yield from vary(E.isclose, good, "b", [("a list", [1.0], "list")])
    yield from vary(E.isclose, good, "tol", [("negative", -1e-9, "-1e-09"), ("NaN", math.nan, "nan")])


@cases("dl4nlp.exercises.attempt")
def _():
    good = dict(exercise=lambda: 1, fallback=lambda: 2, name="Exercise 1")
    yield from vary(E.attempt, good, "exercise", [("a value, not a function", 1, "1")])
    yield from vary(E.attempt, good, "fallback", [("a value, not a function", 2, "2")])
    yield from vary(E.attempt, good, "name", [("empty", "", "''")])
    yield from vary(E.attempt, good, "solved", [("the string 'no'", "no", "'no'")])
