"""Checking a student's exercise answer against a reference, kindly.

``check`` never raises for the student's answer: it prints what is right or
wrong and returns a bool, so a student can run it on an unfinished answer.
Solution cells ``assert`` it. A mistake of the notebook's author (a reference
that is not numbers, a negative tolerance) is an error, raised at once.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dl4nlp._checks import check_number, check_str, given, short


def _as_array(value: Any) -> np.ndarray:
    """Numbers (a number, list, array or tensor) as a float array; text is not a number, even "1.0"."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, (str, bytes)) or callable(value) or value is None:
        raise TypeError(f"not numbers: {given(value)}")
    array = np.asarray(value)
    if array.dtype.kind in "USV":
        raise TypeError(f"not numbers: {given(value)}")
    if array.dtype.kind == "c":  # a complex answer is not the real number asked for, even with imaginary part 0
        raise TypeError(f"not real numbers: {given(value)} is complex")
    if array.dtype.kind == "b":  # True is not 1.0
        raise TypeError(f"not numbers: {given(value)} is True/False")
    try:
        out = array.astype(float)
    except OverflowError:  # an int beyond float's range (10**400)
        raise ValueError(f"not numbers a float can hold: {given(value)}") from None
    if array.dtype.kind == "O" and any(isinstance(v, (complex, bool, np.bool_)) for v in array.ravel()):
        raise TypeError(f"not real numbers: {given(value)}")
    return out


def check(name: str, answer: Callable[[], Any] | Any, expected: Any, atol: float = 1e-6, rtol: float = 1e-5) -> bool:
    """Compare ``answer`` (a value, or a function to call with no arguments) with ``expected``.

    Prints a one-line verdict naming the exercise; returns True when every
    number matches to ``atol + rtol * |expected|``.
    """
    check_str("name", name, nonempty=True)
    check_number("atol", atol, 0.0)
    check_number("rtol", rtol, 0.0)
    try:
        expected_array = _as_array(expected)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(
            f"expected must be numbers (the notebook's reference, not the student's); got {given(expected)}"
        ) from None
    if not np.isfinite(expected_array).all():
        raise ValueError(f"expected must be finite numbers (the notebook's reference); got {expected_array.tolist()}")
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
        got_array = _as_array(got)
    except Exception:  # noqa: BLE001 - whatever the student returned, say so; never raise for their answer
        print(f"{name}: expected numbers, got {type(got).__name__} {short(got)}.")  # complex, bool, 10**400 ...
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
    """``math.isclose`` with an absolute tolerance, for checkpoint asserts on scalars.

    >>> isclose(0.1 + 0.2, 0.3), isclose(1.0, 1.001, tol=1e-2), isclose(1.0, 1.001)
    (True, True, False)
    """
    a, b = check_number("a", a, finite=False), check_number("b", b, finite=False)
    tol = check_number("tol", tol, 0.0)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
