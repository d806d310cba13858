"""Checking a student's exercise answer against a reference, kindly.

``check`` never raises: it prints what is right or wrong and returns a bool, so
a student can run it on an unfinished answer. Solution cells ``assert`` it.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np


def _as_array(value: Any) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=float)


def check(name: str, answer: Callable[[], Any] | Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5) -> bool:
    """Compare ``answer`` (a value, or a function to call with no arguments) with ``expected``.

    Prints a one-line verdict naming the exercise; returns True when every
    number matches to ``atol + rtol * |expected|``.
    """
    try:
        got = answer() if callable(answer) else answer
    except NotImplementedError:
        print(f"{name}: not answered yet - replace the `raise NotImplementedError` line and run again.")
        return False
    except Exception as error:  # the student's code failed: say how, do not crash the notebook
        print(f"{name}: your code raised {type(error).__name__}: {error}")
        return False
    if got is None or got is Ellipsis:
        print(f"{name}: no answer yet (got {got!r}).")
        return False
    try:
        got_array, expected_array = _as_array(got), _as_array(expected)
    except (TypeError, ValueError):
        print(f"{name}: expected numbers, got {type(got).__name__} {got!r}.")
        return False
    if got_array.shape != expected_array.shape:
        print(f"{name}: expected shape {expected_array.shape}, got shape {got_array.shape}.")
        return False
    if not np.allclose(got_array, expected_array, atol=atol, rtol=rtol):
        worst = float(np.max(np.abs(got_array - expected_array)))
        print(f"{name}: not yet - largest difference from the reference is {worst:.3g}.")
        return False
    print(f"{name}: correct.")
    return True


def isclose(a: float, b: float, tol: float = 1e-9) -> bool:
    """``math.isclose`` with an absolute tolerance, for checkpoint asserts on scalars."""
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
