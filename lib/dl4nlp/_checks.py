"""Checks of arguments at the library's boundary, shared by every module.

Each check raises at once, with a message that names the argument, what was
expected and what was given (``ValueError("x must have shape (B, T, 64); got
(2, 5)")``), so a mistake surfaces where it was made rather than as an error
from deep inside PyTorch or, worse, as a silently wrong result. Each returns
the value it checked (converted where that is harmless), so a call reads
``n = check_int("n", n)``.

>>> check_int("length", 0)
Traceback (most recent call last):
...
ValueError: length must be an integer >= 1; got 0
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import numbers
import os
from pathlib import Path
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np
import torch

Dim = Union[int, str, None]  # a size that must match, or a name (any size)
DTypeSpec = Union[torch.dtype, str, tuple]


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def given(value: Any) -> str:
    """What was given, for a message: the type, and the value when it is short enough to read."""
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return f"{type(value).__name__} {short(value)}"


def shape_text(shape: Sequence[Dim]) -> str:
    """('B', 'T', 64) -> '(B, T, 64)'."""
    parts = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


# --- scalars ----------------------------------------------------------------------------------
def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value: Any, low: Optional[int] = 1, high: Optional[int] = None) -> int:
    """An integer (not a bool) in [low, high]; ``low=None`` for no lower bound."""
    if not is_int(value) or (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            expected = f"an integer in [{low}, {high}]"
        elif low is not None:
            expected = f"an integer >= {low}"
        elif high is not None:
            expected = f"an integer <= {high}"
        else:
            expected = "an integer"
        raise ValueError(f"{name} must be {expected}; got {short(value)}")
    return int(value)


def check_number(
    name: str,
    value: Any,
    low: Optional[float] = None,
    high: Optional[float] = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
) -> float:
    """A real number (not a bool, not NaN; finite unless ``finite=False``) in the interval given.

    ``low_open`` / ``high_open`` exclude the bound itself: (0, 1] is ``low=0, low_open=True, high=1``.
    """
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.dtype == torch.bool:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number{_interval(low, high, low_open, high_open)}; got {given(value)}")
    value = float(value)
    bad = math.isnan(value) or (finite and math.isinf(value))
    if low is not None:
        bad = bad or value < low or (low_open and value == low)
    if high is not None:
        bad = bad or value > high or (high_open and value == high)
    if bad:
        what = "a finite number" if finite else "a number"
        raise ValueError(f"{name} must be {what}{_interval(low, high, low_open, high_open)}; got {short(value)}")
    return value


def _interval(low, high, low_open, high_open) -> str:
    if low is None and high is None:
        return ""
    if high is None:
        return f" {'>' if low_open else '>='} {low}"
    if low is None:
        return f" {'<' if high_open else '<='} {high}"
    return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {given(value)}")
    return bool(value)


def check_choice(name: str, value: Any, choices: Iterable) -> Any:
    """One of ``choices`` (an unknown name lists the valid ones)."""
    choices = tuple(choices)
    try:
        known = value in choices
    except TypeError:  # an unhashable value against a dict's keys
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {choices}; got {short(value)}")
    return value


def check_str(name: str, value: Any, *, nonempty: bool = False, what: str = "a string") -> str:
    if not isinstance(value, str):
        raise TypeError(f"{name} must be {what}; got {given(value)}")
    if nonempty and not value:
        raise ValueError(f"{name} must be a non-empty string; got ''")
    return value


def check_type(name: str, value: Any, types: Union[type, tuple], what: str) -> Any:
    """An instance of ``types``; ``what`` says it in words ("a torch.nn.LSTM")."""
    if not isinstance(value, types):
        raise TypeError(f"{name} must be {what}; got {given(value)}")
    return value


def check_callable(name: str, value: Any, what: str = "a function") -> Any:
    if not callable(value):
        raise TypeError(f"{name} must be {what}; got {given(value)}")
    return value


def check_sequence(name: str, value: Any, *, nonempty: bool = True, what: str = "a list") -> list:
    """A list, tuple, range or other sequence (never a string, which would be read one character at a time)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be {what}; got {given(value)}")
    if nonempty and len(value) == 0:
        raise ValueError(f"{name} must not be empty; got {short(value)}")
    return list(value)


def check_strings(name: str, value: Any, *, nonempty: bool = True) -> list[str]:
    """A list or tuple of strings (not one string, which would be read one character at a time)."""
    value = check_sequence(name, value, nonempty=nonempty, what="a list of strings")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must hold strings only; got {type(bad[0]).__name__} {short(bad[0])}")
    return value


def check_ids_list(name: str, value: Any, vocab_size: Optional[int] = None, *, nonempty: bool = True) -> list[int]:
    """A sequence of integer ids (a list, tuple or 1-D tensor), each in [0, vocab_size)."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point() or value.dtype == torch.bool:
            raise TypeError(f"{name} must be integer ids; got dtype {value.dtype}")
        if value.dim() != 1:
            raise ValueError(f"{name} must be a 1-D sequence of ids; got shape {tuple(value.shape)}")
        value = value.tolist()
    elif isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise ValueError(f"{name} must be a 1-D sequence of ids; got shape {value.shape}")
        value = value.tolist()
    value = check_sequence(name, value, nonempty=nonempty, what="a list of integer ids")
    for v in value:
        if not is_int(v):
            raise TypeError(f"{name} must hold integer ids; got {type(v).__name__} {short(v)}")
        if v < 0 or (vocab_size is not None and v >= vocab_size):
            upper = "" if vocab_size is None else f", {vocab_size})"
            raise ValueError(f"{name} must hold ids in [0{upper or ', ...)'}; got {v}")
    return [int(v) for v in value]


# --- tensors ------------------------------------------------------------------------------------
_DTYPE_WORDS = {"float": "floating-point", "integer": "integer", "bool": "bool"}


def _dtype_ok(x: torch.Tensor, dtype: DTypeSpec) -> bool:
    if isinstance(dtype, tuple):
        return any(_dtype_ok(x, d) for d in dtype)
    if dtype == "float":
        return x.is_floating_point()
    if dtype == "integer":
        return not x.is_floating_point() and not x.is_complex() and x.dtype != torch.bool
    if dtype == "bool":
        return x.dtype == torch.bool
    return x.dtype == dtype


def _dtype_text(dtype: DTypeSpec) -> str:
    if isinstance(dtype, tuple):
        return " or ".join(_dtype_text(d) for d in dtype)
    return _DTYPE_WORDS.get(dtype, str(dtype))


def check_tensor(
    name: str,
    x: Any,
    *,
    shape: Optional[Sequence[Dim]] = None,
    ndim: Union[int, tuple, None] = None,
    min_ndim: Optional[int] = None,
    dtype: Optional[DTypeSpec] = None,
    finite: bool = False,
    nonempty: bool = True,
    expected: Optional[str] = None,
) -> torch.Tensor:
    """A tensor with the given shape (ints must match, names or None match anything), rank, dtype.

    ``dtype`` is a ``torch.dtype``, ``'float'``, ``'integer'``, ``'bool'`` or a
    tuple of these; ``finite=True`` rejects NaN and ±inf (float tensors);
    ``nonempty`` rejects a tensor with a dimension of size 0 (an empty batch);
    ``expected`` overrides the wording of the expected shape.
    """
    if not isinstance(x, torch.Tensor):
        what = f" of shape {expected or shape_text(shape)}" if (shape is not None or expected) else ""
        raise TypeError(f"{name} must be a torch.Tensor{what}; got {given(x)}")
    if dtype is not None and not _dtype_ok(x, dtype):
        what = _dtype_text(dtype)
        raise TypeError(f"{name} must be {'an' if what[0] in 'aeiou' else 'a'} {what} tensor; got dtype {x.dtype}")
    wanted = expected or (shape_text(shape) if shape is not None else None)
    if shape is not None:
        if x.dim() != len(shape) or any(isinstance(d, int) and d != n for d, n in zip(shape, x.shape)):
            raise ValueError(f"{name} must have shape {wanted}; got {tuple(x.shape)}")
    ranks = (ndim,) if isinstance(ndim, int) else ndim
    if (ranks is not None and x.dim() not in ranks) or (min_ndim is not None and x.dim() < min_ndim):
        if wanted:
            raise ValueError(f"{name} must have shape {wanted}; got {tuple(x.shape)}")
        rank_text = " or ".join(map(str, ranks)) if ranks is not None else f"at least {min_ndim}"
        raise ValueError(f"{name} must have {rank_text} dimensions; got shape {tuple(x.shape)}")
    if nonempty and x.numel() == 0:
        raise ValueError(f"{name} must not be empty; got shape {tuple(x.shape)}")
    if finite and not _WITHIN_MODEL.get():
        check_finite(name, x)
    return x


def check_finite(name: str, x: torch.Tensor) -> torch.Tensor:
    """No NaN or ±inf in a float tensor (integer tensors pass)."""
    if x.is_floating_point() or x.is_complex():
        bad = ~torch.isfinite(x.detach())
        if bool(bad.any()):
            index = tuple(int(i) for i in bad.nonzero()[0])
            value = x.detach()[index].item()
            raise ValueError(f"{name} must be finite; got {value} at index {index}")
    return x


def check_ids(name: str, ids: Any, vocab_size: Optional[int], *, bound: str = "", **kwargs) -> torch.Tensor:
    """An integer tensor of token ids, each in [0, vocab_size) (``vocab_size=None``: only >= 0).

    ``bound`` names where the upper bound comes from (``'vocab_size'`` -> "[0, vocab_size=10)").
    """
    ids = check_tensor(name, ids, dtype="integer", **kwargs)
    if ids.numel():
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or (vocab_size is not None and high >= vocab_size):
            bad = low if low < 0 else high
            upper = "..." if vocab_size is None else (f"{bound}={vocab_size}" if bound else str(vocab_size))
            raise ValueError(f"{name} must hold ids in [0, {upper}); got {bad}")
    return ids


def check_same_dtype(name: str, x: torch.Tensor, reference: Union[torch.Tensor, torch.nn.Module, torch.dtype]) -> None:
    """A float tensor must have the dtype of the module (its parameters) or tensor it meets."""
    if isinstance(reference, torch.nn.Module):
        param = next(iter(reference.parameters()), None)
        if param is None:
            return
        dtype = param.dtype
    elif isinstance(reference, torch.Tensor):
        dtype = reference.dtype
    else:
        dtype = reference
    if x.dtype != dtype:
        raise TypeError(f"{name} must have dtype {dtype} (that of the module or tensors it meets); got {x.dtype}")


def check_mask(name: str, mask: Any, target: Sequence[int], *, expected: str = "") -> torch.Tensor:
    """A bool mask (True = may attend) that broadcasts to ``target`` without adding dimensions."""
    target = tuple(target)
    what = expected or shape_text(target)
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"{name} must be a bool tensor (True = may attend) broadcastable to {what}; got {given(mask)}")
    if mask.dtype != torch.bool:
        raise TypeError(f"{name} must be a bool tensor (True = may attend); got dtype {mask.dtype}")
    try:
        fits = mask.dim() <= len(target) and torch.broadcast_shapes(mask.shape, target) == target
    except RuntimeError:
        fits = False
    if not fits:
        raise ValueError(f"{name} must broadcast to {what}; got shape {tuple(mask.shape)}")
    if mask.numel() and not bool(mask.any()):  # nothing may attend anywhere: the other polarity (True = masked out)?
        raise ValueError(
            f"{name} must be True where attention is allowed; got False everywhere, a mask that allows nothing "
            "(one of the other polarity, True = masked out, as torch's key_padding_mask? use ~mask)"
        )
    return mask


# --- files ------------------------------------------------------------------------------------
def check_path(name: str, path: Any) -> Path:
    """A path (str or os.PathLike), not empty."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or pathlib.Path); got {given(path)}")
    if str(path) == "":
        raise ValueError(f"{name} must be a path; got ''")
    return Path(path)


def check_file(name: str, path: Any, what: str = "a file") -> Path:
    """An existing regular file (not a folder)."""
    path = check_path(name, path)
    if path.is_dir():
        raise IsADirectoryError(f"{name} must be {what}; got the folder {path}")
    if not path.is_file():
        raise FileNotFoundError(f"{name} must be {what}; no file at {path}")
    return path


def check_device(name: str, device: Any, *, available: bool = False) -> torch.device:
    """A ``torch.device`` or a device name ('cpu', 'cuda', 'cuda:0', 'mps').

    ``available=True`` (where tensors are about to be put there: loaders, training) also refuses a
    device this machine does not have, e.g. 'cuda' on a CPU-only runtime, instead of an error from
    deep inside ``torch.load`` or ``.to()``.
    """
    if isinstance(device, torch.device):
        checked = device
    elif isinstance(device, str):
        try:
            checked = torch.device(device)
        except RuntimeError:
            checked = None
    else:
        checked = None
    if checked is None:
        raise ValueError(f"{name} must be a torch.device or a device name such as 'cpu' or 'cuda'; got {given(device)}")
    if available:
        here = {"cpu": True, "meta": True}
        cuda_ok = checked.index is None or checked.index < torch.cuda.device_count()
        here["cuda"] = torch.cuda.is_available() and cuda_ok
        here["mps"] = torch.backends.mps.is_available()
        if not here.get(checked.type, False):
            have = ["cpu"] + [kind for kind in ("cuda", "mps") if here[kind]]
            raise ValueError(f"{name} must be a device this machine has, one of {have}; got {str(checked)!r}")
    return checked


def check_array(
    name: str,
    values: Any,
    *,
    ndim: Optional[int] = None,
    finite: bool = True,
    low: Optional[float] = None,
    low_open: bool = False,
    high: Optional[float] = None,
    nonempty: bool = True,
    expected: str = "",
) -> np.ndarray:
    """Numbers (a list, array, tensor or number) as a float64 array; text is refused, not parsed.

    ``finite`` rejects NaN and ±inf (``finite=False`` lets them through, e.g. gaps in a plot);
    ``low``/``high`` bound every (non-NaN) value, ``low_open`` excludes ``low`` itself.
    """
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().numpy()
    if isinstance(values, (str, bytes)) or values is None:
        raise TypeError(f"{name} must be numbers; got {given(values)}")
    try:
        raw = np.asarray(values)
        if raw.dtype.kind not in "biuf":
            raise TypeError
        array = raw.astype(np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers; got {type(values).__name__} {short(values)}") from None
    if ndim is not None and array.ndim != ndim:
        wanted = expected or f"{ndim} dimension{'s' if ndim != 1 else ''}"
        raise ValueError(f"{name} must have {wanted}; got shape {array.shape}")
    if nonempty and array.size == 0:
        raise ValueError(f"{name} must not be empty; got shape {array.shape}")
    bad = ~np.isfinite(array) if finite else np.zeros(array.shape, dtype=bool)
    conditions = ["finite"] if finite else []
    if low is not None:
        bad |= (array <= low) if low_open else (array < low)
        conditions.append(f"{'>' if low_open else '>='} {low}")
    if high is not None:
        bad |= array > high
        conditions.append(f"<= {high}")
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" at index {index}" if index else ""
        raise ValueError(f"{name} must be {' and '.join(conditions)}; got {array[index]}{where}")
    return array


_WITHIN_MODEL = contextvars.ContextVar("dl4nlp_within_model", default=False)


def in_model() -> bool:
    """Are we inside a whole model's forward pass (``within_model``), where finiteness checks stand down?"""
    return _WITHIN_MODEL.get()


@contextlib.contextmanager
def within_model():
    """Inside a whole model's forward pass: its layers take activations the model computed, which overflow
    in a diverging run (the training loop records that from the loss), so their finiteness checks stand
    down; shapes and dtypes are still checked. The model checks its own inputs before entering."""
    token = _WITHIN_MODEL.set(True)
    try:
        yield
    finally:
        _WITHIN_MODEL.reset(token)


@contextlib.contextmanager
def evaluating(model: Any):
    """Run ``model`` in eval mode (dropout off) for a measurement, then give it back in the mode it came in.

    A student who measures a model still in train mode (after ``model.train()`` in a loop of their own)
    would otherwise get a loss or accuracy blurred by dropout, different at every call. Anything that
    is not a module passes through untouched (the function's own checks refuse it).
    """
    if not isinstance(model, torch.nn.Module):
        yield model
        return
    was_training = model.training
    model.eval()
    try:
        yield model
    finally:
        model.train(was_training)


def measures_in_eval_mode(fn):
    """Decorate a function whose first argument (``model``, or ``self``) is measured: it runs in eval mode."""

    @functools.wraps(fn)
    def wrapper(model, *args, **kwargs):
        with evaluating(model):
            return fn(model, *args, **kwargs)

    return wrapper


def check_not_probabilities(name: str, logits: torch.Tensor) -> torch.Tensor:
    """Logits (scores before the softmax), not probabilities: refuse a tensor whose every row is a distribution.

    Rows of numbers in [0, 1] that each sum to 1 are what ``softmax`` returns; the softmax (or cross-entropy)
    of them would be a second softmax, a silently flatter distribution. Log-probabilities are fine (the
    softmax of log-probabilities gives the probabilities back). One row alone (a hand-written ``[1.0, 0.0]``
    is fine logits) and rows that are all one-hot are let through: only a batch of distributions is refused.
    """
    if logits.numel() == 0 or logits.shape[-1] < 2 or not logits.is_floating_point():
        return logits
    values = logits.detach()
    if values.numel() // values.shape[-1] < 2 or bool(((values == 0) | (values == 1)).all()):
        return logits
    if bool(((values >= 0) & (values <= 1)).all()):
        sums = values.double().sum(-1)
        if bool(((sums - 1).abs() < 1e-4).all()):
            raise ValueError(
                f"{name} must be logits (scores before the softmax); got rows of probabilities, each summing to 1 "
                f"(the softmax was applied already: pass the scores it was applied to, or their log)"
            )
    return logits
