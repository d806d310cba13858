"""Checking a student's exercise answer against a reference, kindly, and using it downstream.

``check`` never raises for the student's answer: it prints what is right or
names the first thing that is wrong (which element, which gradient, expected
and given values) and returns a bool, so a student can run it on an unfinished
answer. Solution cells ``assert`` it. A mistake of the notebook's author (a
reference that is not numbers, a negative tolerance) is an error, raised at once.

``attempt`` is how a later cell uses what the student wrote: the student's
result when the exercise is solved, else the library's reference with a
one-line note, so the notebook runs top to bottom either way.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Optional, Sequence, TypeVar

import numpy as np

from dl4nlp._checks import check_bool, check_callable, check_number, check_str, given

T = TypeVar("T")


def _as_array(value: Any) -> np.ndarray:
    """Real numbers (a number, bool, list, array or tensor) as an array; text is not a number, even "1.0"."""
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, (str, bytes)) or callable(value) or value is None:
        raise TypeError(f"not numbers: {given(value)}")
    try:
        array = np.asarray(value)
    except OverflowError:
        raise TypeError(f"a number too large to compare: {given(value)}") from None
    if array.dtype == object and any(v is None or v is Ellipsis for v in array.ravel()):
        raise TypeError(f"not numbers (some entries are unanswered): {given(value)}")
    if array.dtype.kind in "USV" or array.dtype == object:
        try:
            array = array.astype(float)
        except OverflowError:
            raise TypeError(f"a number too large to compare: {given(value)}") from None
        except (TypeError, ValueError):
            raise TypeError(f"not real numbers: {given(value)}") from None
    if array.dtype.kind == "c":
        raise TypeError(f"complex numbers, not real ones: {given(value)}")
    if array.dtype.kind == "b":
        return array
    return array.astype(float)


def _flatten_named(value: Any) -> tuple[list[str] | None, Any]:
    """A mapping name -> numbers as (names, values in that order); anything else unchanged."""
    if isinstance(value, Mapping):
        return [str(k) for k in value], list(value.values())
    return None, value


def _label(index: tuple[int, ...], shape: tuple[int, ...], names: Optional[Sequence[str]]) -> str:
    if not shape:
        return "your answer"
    if names is not None and len(names) == shape[0]:
        rest = f"[{', '.join(map(str, index[1:]))}]" if len(index) > 1 else ""
        return f"{names[index[0]]}{rest}"
    return f"element [{', '.join(map(str, index))}]"


def _show(x: Any, as_bool: bool) -> str:
    return repr(bool(x)) if as_bool else f"{float(x):.6g}"


def _bool_entries(expected: Any, size: int) -> np.ndarray:
    """Which entries of ``expected`` are booleans (a list may mix them with numbers), as a flat mask."""
    if isinstance(expected, (list, tuple)) and len(expected) == size:
        return np.array([isinstance(v, (bool, np.bool_)) for v in expected])
    return np.full(size, _as_array(expected).dtype.kind == "b")


def check(
    name: str,
    answer: Callable[[], Any] | Any,
    expected: Any,
    atol: float = 1e-6,
    rtol: float = 1e-5,
    names: Optional[Sequence[str]] = None,
) -> bool:
    """Compare ``answer`` (a value, or a function to call with no arguments) with ``expected``.

    Prints a one-line verdict naming the exercise; returns True when every
    number matches to ``atol + rtol * |expected|`` (booleans exactly). When
    something differs, the verdict names the first element that does, with the
    expected and the given value: by position, by ``names`` (one per entry of
    the first axis, e.g. the gradients' names) or by the keys of a dict ``expected``.

    >>> check("Exercise 1", [1.0, 2.0, 3.5], [1.0, 2.0, 3.0], names=["dL/dx", "dL/dy", "dL/dz"])
    Exercise 1: not yet - dL/dz is 3.5, expected 3 (1 of 3 entries differ).
    False
    >>> check("Exercise 2", {"a": 1.0, "b": False}, {"a": 1.0, "b": True})
    Exercise 2: not yet - b is False, expected True (1 of 2 entries differ).
    False
    >>> check("Exercise 3", lambda: 0.1 + 0.2, 0.3)
    Exercise 3: correct.
    True
    """
    check_str("name", name, nonempty=True)
    check_number("atol", atol, 0.0)
    check_number("rtol", rtol, 0.0)
    keys, expected = _flatten_named(expected)
    if names is not None and keys is not None:
        raise ValueError("give names or a dict expected, not both")
    names = keys if keys is not None else names
    if names is not None:
        names = [check_str("names[i]", n) for n in names]
    try:
        expected_array = _as_array(expected)
    except (TypeError, ValueError):
        raise TypeError(
            f"expected must be numbers (the notebook's reference, not the student's); got {given(expected)}"
        ) from None
    if expected_array.dtype.kind != "b" and not np.isfinite(expected_array).all():
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
    if keys is not None:
        if not isinstance(got, Mapping) or [str(k) for k in got] != keys:
            print(f"{name}: expected a dict with the keys {keys}, got {given(got)}.")
            return False
        got = list(got.values())
    try:
        got_array = _as_array(got)
    except (TypeError, ValueError) as error:
        print(f"{name}: expected numbers, got {error}.")
        return False
    if got_array.shape != expected_array.shape:
        print(f"{name}: expected shape {expected_array.shape}, got shape {got_array.shape}.")
        return False
    booleans = _bool_entries(expected, expected_array.size).reshape(expected_array.shape)
    if got_array.dtype.kind == "b" and not booleans.all():  # True is not the number 1.0 that was asked for
        print(f"{name}: expected numbers, got True/False: {given(got)}.")
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.isclose(got_array.astype(float), expected_array.astype(float), atol=atol, rtol=rtol)
    wrong = np.where(booleans, got_array.astype(float) != expected_array.astype(float), ~close)
    if wrong.any():
        first = tuple(int(i) for i in np.argwhere(wrong)[0]) if wrong.ndim else ()
        label = _label(first, expected_array.shape, names)
        as_bool = bool(booleans[first])
        given_value, expected_value = _show(got_array[first], as_bool), _show(expected_array[first], as_bool)
        count = f" ({int(wrong.sum())} of {wrong.size} entries differ)" if wrong.size > 1 else ""
        print(f"{name}: not yet - {label} is {given_value}, expected {expected_value}{count}.")
        return False
    print(f"{name}: correct.")
    return True


def attempt(exercise: Callable[[], T], fallback: Callable[[], T], *, name: str, solved: bool = True) -> T:
    """What the student's exercise gives, or the library's reference with a one-line note when it is unsolved.

    ``exercise`` and ``fallback`` take no arguments; the fallback is used when
    ``solved`` is False (pass what ``check`` returned), or when the exercise
    raises (``NotImplementedError`` while it is unanswered, or any error).

    >>> def unsolved():
    ...     raise NotImplementedError
    >>> attempt(unsolved, lambda: 42, name="Exercise 1")
    Exercise 1 is not solved yet: the cells below use the library's version instead.
    42
    >>> attempt(lambda: 41, lambda: 42, name="Exercise 1")
    41
    """
    check_callable("exercise", exercise)
    check_callable("fallback", fallback)
    check_str("name", name, nonempty=True)
    if check_bool("solved", solved):
        try:
            return exercise()
        except NotImplementedError:
            pass
        except Exception as error:  # the student's code failed: say so once and carry on with the reference
            print(f"{name} raised {type(error).__name__}: {error}; the cells below use the library's version instead.")
            return fallback()
    print(f"{name} is not solved yet: the cells below use the library's version instead.")
    return fallback()


def isclose(a: float, b: float, tol: float = 1e-9) -> bool:
    """``math.isclose`` with an absolute tolerance, for checkpoint asserts on scalars.

    >>> isclose(0.1 + 0.2, 0.3), isclose(1.0, 1.001, tol=1e-2), isclose(1.0, 1.001)
    (True, True, False)
    """
    a, b = check_number("a", a, finite=False), check_number("b", b, finite=False)
    tol = check_number("tol", tol, 0.0)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
