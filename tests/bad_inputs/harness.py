"""The bad-input harness: which public callables exist, which bad inputs each is tried on, and how each fared.

Every public function, class and method of every module under ``lib/dl4nlp``
is found by importing the modules (``public_api()``), so a callable added
tomorrow is caught the day it is added: it needs bad-input cases here or an
exemption with a reason (``exempt(...)``).

A case is one clearly bad call. Register the cases of an entry point with a
generator that yields ``(label, call, mentions)``::

    @cases("dl4nlp.attention.masked_softmax")
    def _():
        yield "scores with a NaN", lambda: masked_softmax(with_nan(scores)), ("scores", "nan")

``call`` makes the bad call; ``mentions`` are what the error message must
name: the argument (or what was expected) and what was given (a value, a
shape such as ``"(2, 5)"``, a dtype such as ``"int64"``). Word-like mentions
match whole words, case-insensitively. ``vary(fn, good, name, variants)``
turns one good call and a list of bad values for one argument into cases;
``tensor_variants`` / ``id_variants`` / ``int_variants`` … supply the usual
bad values.

Each case ends in one of three outcomes:

- ``good``: an exception raised by a ``raise`` statement inside ``lib/dl4nlp``,
  of an ordinary type (ValueError, TypeError, LookupError, OSError,
  RuntimeError), whose message names every mention;
- ``deep``: any other exception (from inside PyTorch, NumPy or Python, an
  AttributeError of duck typing, a ZeroDivisionError, or a message that does not
  name what was expected and given);
- ``silent``: the call returned a result.

Each case is also of one of two kinds, tallied apart by the report:

- ``clear``: a value wrong on its face (a string for a tensor, a NaN, a
  shape that does not fit, an unknown name): what ``vary`` and the
  ``*_variants`` helpers generate;
- ``semantic``: a value right in type, shape and range but wrong in meaning,
  the mistake a student actually makes and no type check sees: probabilities
  where log-probabilities are expected, quotation marks swapped, a mask of the
  wrong polarity, an optimiser that holds another model's parameters, a file
  cut short. Write one with ``semantic(label, call, mentions)`` inside a
  ``@cases`` generator (or ``semantic_vary`` for several values of one
  argument); its error must name what was expected and what was given, like
  any other case's.

Cases that need files make them in ``scratch()`` folders, all under one root
that is removed when the test module ends and, failing that, when Python exits:
nothing is left behind in the temporary folder.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import inspect
import io
import linecache
import math
import pkgutil
import re
import shutil
import tempfile
import traceback
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

import dl4nlp

LIBRARY = Path(dl4nlp.__file__).resolve().parent
GOOD, DEEP, SILENT = "good", "deep", "silent"
OUTCOMES = (GOOD, DEEP, SILENT)
GOOD_ERRORS = (ValueError, TypeError, LookupError, OSError, RuntimeError)
CLEAR, SEMANTIC = "clear", "semantic"
KINDS = (CLEAR, SEMANTIC)
CASE_MODULES = Path(__file__).resolve().parent


@dataclass
class Case:
    """One clearly bad call of ``target`` and what its error message must name."""

    target: str
    label: str
    call: Callable[[], Any]
    mentions: tuple[str, ...]
    known: str = ""  # a reason, when the case is known not to get a good error (reported, xfail)
    kind: str = CLEAR  # CLEAR: wrong on its face; SEMANTIC: right in type, wrong in meaning

    @property
    def module(self) -> str:
        return _module_of(self.target)

    def __str__(self) -> str:
        return f"{self.target}: {self.label}" + (" [semantic]" if self.kind == SEMANTIC else "")


@dataclass
class Result:
    case: Case
    outcome: str
    detail: str  # the error (type and message) or the type of what was returned


_FACTORIES: dict[str, list[Callable[[], Iterable[tuple]]]] = defaultdict(list)
EXEMPT: dict[str, str] = {}


def cases(target: str) -> Callable:
    """Register a generator of ``(label, call, mentions[, known])`` tuples as bad inputs of ``target``."""

    def register(factory: Callable[[], Iterable[tuple]]) -> Callable:
        _FACTORIES[target].append(factory)
        return factory

    return register


class Semantic(tuple):
    """A case tuple ``(label, call, mentions[, known])`` marked as a semantic mistake (see ``semantic``)."""


def semantic(label: str, call: Callable[[], Any], mentions, known: str = "") -> Semantic:
    """A *semantic* bad input: an argument right in type but wrong in meaning, for a ``@cases`` generator.

    ``yield semantic("log_probs: probabilities", lambda: beam_search(...), ("log-probabilities", "0.5"))``;
    the mentions are what the error must name, as for any case.
    """
    return Semantic((label, call, mentions, known) if known else (label, call, mentions))


def semantic_vary(fn: Callable, good: dict, name: str, variants: Iterable[tuple]) -> Iterator[Semantic]:
    """``vary`` whose cases are semantic mistakes: ``good[name]`` replaced by values right in type, wrong in meaning."""
    for case in vary(fn, good, name, variants):
        yield Semantic(case)


PENDING = "pending: "  # the reason's prefix of callables not yet covered (reported as such, not as exempt)


def pending(reason: str, *targets: str) -> None:
    """Callables whose cases are not written yet: allowed by the coverage test, counted apart in the report."""
    exempt(PENDING + reason, *targets)


def exempt(reason: str, *targets: str) -> None:
    """Exempt public callables from bad-input cases, with the reason (shown in the report)."""
    if not reason:
        raise ValueError("an exemption needs a reason")
    for target in targets:
        EXEMPT[target] = reason


# --- scratch folders -----------------------------------------------------------------------
_SCRATCH_ROOT: Optional[Path] = None


def scratch() -> Path:
    """A new empty folder for a case's files, under one root that ``remove_scratch()`` deletes."""
    global _SCRATCH_ROOT
    if _SCRATCH_ROOT is None or not _SCRATCH_ROOT.is_dir():
        _SCRATCH_ROOT = Path(tempfile.mkdtemp(prefix="dl4nlp-bad-inputs-"))
    return Path(tempfile.mkdtemp(dir=_SCRATCH_ROOT))


def remove_scratch() -> None:
    """Delete every folder ``scratch()`` made (idempotent)."""
    global _SCRATCH_ROOT
    if _SCRATCH_ROOT is not None:
        shutil.rmtree(_SCRATCH_ROOT, ignore_errors=True)
        _SCRATCH_ROOT = None


atexit.register(remove_scratch)


# --- finding the public API -----------------------------------------------------------------
def _module_of(target: str) -> str:
    """'dl4nlp.attention.MultiHeadAttention.forward' -> 'dl4nlp.attention'."""
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        name = ".".join(parts[:end])
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        return name
    return parts[0]


def library_modules() -> list[str]:
    """Every public module of the package (packages included), imported."""
    names = ["dl4nlp"]
    for info in pkgutil.walk_packages(dl4nlp.__path__, "dl4nlp."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    for name in names:
        importlib.import_module(name)
    return sorted(names)


def public_api() -> list[str]:
    """Qualified names of every public function, class and method defined in a public module of dl4nlp.

    A class counts (its constructor) together with its public methods, those it
    inherits from dl4nlp's own (private) base classes included; ``forward`` and
    ``__call__`` count as the entry points of calling an instance.
    """
    names = []
    for module_name in library_modules():
        module = importlib.import_module(module_name)
        for name, obj in sorted(vars(module).items()):
            if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
                continue
            if inspect.isclass(obj):
                names.append(f"{module_name}.{name}")
                seen: set[str] = set()
                for klass in obj.__mro__:
                    if not klass.__module__.startswith("dl4nlp"):
                        continue
                    for attr, member in vars(klass).items():
                        if attr in seen or (attr.startswith("_") and attr != "__call__"):
                            continue
                        if isinstance(member, (staticmethod, classmethod)) or inspect.isfunction(member):
                            seen.add(attr)
                            names.append(f"{module_name}.{name}.{attr}")
            elif inspect.isfunction(obj) or (callable(obj) and inspect.isfunction(getattr(obj, "__wrapped__", None))):
                names.append(f"{module_name}.{name}")  # a function, or one wrapped (functools.lru_cache ...)
    return names


# --- loading and running the cases ----------------------------------------------------------
def load_case_modules() -> None:
    """Import every case module in this folder (each registers its cases when imported)."""
    for info in pkgutil.iter_modules([str(CASE_MODULES)]):
        if info.name != "harness":
            importlib.import_module(f"bad_inputs.{info.name}")


def registered_targets() -> set[str]:
    load_case_modules()
    return set(_FACTORIES)


def all_cases(targets: Optional[Iterable[str]] = None) -> list[Case]:
    """Every registered case (of ``targets`` only, when given), in a stable order."""
    load_case_modules()
    wanted = sorted(_FACTORIES) if targets is None else sorted(targets)
    out = []
    for target in wanted:
        for factory in _FACTORIES.get(target, []):
            try:
                with contextlib.redirect_stdout(io.StringIO()):  # a factory may build a figure, which prints
                    entries = list(factory())
            except Exception as error:  # a factory that cannot even build its inputs: one failing case
                entries = [(f"building the cases failed ({factory.__name__})", _reraise(error), ())]
            for entry in entries:
                label, call, mentions, *rest = entry
                mentions = (mentions,) if isinstance(mentions, str) else tuple(mentions)
                kind = SEMANTIC if isinstance(entry, Semantic) else CLEAR
                out.append(Case(target, label, call, mentions, rest[0] if rest else "", kind))
    return out


def _reraise(error: Exception) -> Callable[[], Any]:
    def call():
        raise error

    return call


def _raised_by_library(error: BaseException) -> bool:
    """Was ``error`` raised by a ``raise`` statement in lib/dl4nlp (not by PyTorch, NumPy or Python)?"""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    last = frames[-1]
    try:
        Path(last.filename).resolve().relative_to(LIBRARY)
    except ValueError:
        return False
    lines = [linecache.getline(last.filename, n).strip() for n in range(max(1, last.lineno - 3), last.lineno + 1)]
    return any(line.startswith("raise ") for line in lines)


def message_of(error: BaseException) -> str:
    if isinstance(error, KeyError) and len(error.args) == 1 and isinstance(error.args[0], str):
        return error.args[0]
    return str(error)


def names(message: str, mention: str) -> bool:
    """Does ``message`` name ``mention``? Whole words for word-like mentions, else a substring; any case."""
    if re.fullmatch(r"[\w-]+", mention):
        return re.search(rf"(?<!\w){re.escape(mention)}(?!\w)", message, flags=re.IGNORECASE) is not None
    return mention.lower() in message.lower()


def run(case: Case) -> Result:
    """Make the bad call and classify what happened."""
    import matplotlib.pyplot as plt

    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            returned = case.call()
    except Exception as error:  # noqa: BLE001 - classifying every error is the point
        detail = f"{type(error).__name__}: {message_of(error)}"
        if not isinstance(error, GOOD_ERRORS) or not _raised_by_library(error):
            return Result(case, DEEP, detail)
        missing = [m for m in case.mentions if not names(message_of(error), m)]
        if missing:
            return Result(case, DEEP, f"{detail}  [message does not name {missing}]")
        return Result(case, GOOD, detail)
    finally:
        plt.close("all")
    return Result(case, SILENT, f"returned {type(returned).__name__}")


def run_all(targets: Optional[Iterable[str]] = None) -> list[Result]:
    return [run(case) for case in all_cases(targets)]


def tally(results: list[Result]) -> tuple[Counter, dict[str, Counter]]:
    """Counts by outcome, and by module then outcome (the key ``SEMANTIC`` of a module counts its semantic cases)."""
    overall = Counter(r.outcome for r in results)
    by_module: dict[str, Counter] = defaultdict(Counter)
    for r in results:
        by_module[r.case.module][r.outcome] += 1
        by_module[r.case.module][SEMANTIC] += r.case.kind == SEMANTIC
    return overall, dict(by_module)


def tally_by_kind(results: list[Result]) -> dict[str, Counter]:
    """Counts by outcome of each kind of case (``CLEAR``, ``SEMANTIC``)."""
    return {kind: Counter(r.outcome for r in results if r.case.kind == kind) for kind in KINDS}


def report(results: list[Result], verbose: bool = False) -> str:
    """The tally as text: by outcome, by module, and (``verbose``) every case that did not get a good error."""
    overall, by_module = tally(results)
    api = public_api()
    covered = {r.case.target for r in results}
    waiting = {name for name, reason in EXEMPT.items() if reason.startswith(PENDING)} & set(api)
    lines = [
        f"public callables: {len(api)}; with bad-input cases: {len(covered & set(api))}; "
        f"exempt (with a reason): {len(set(api) & set(EXEMPT) - waiting)}; pending (no cases yet): {len(waiting)}",
        f"bad inputs tried: {len(results)}",
    ]
    outcomes = [
        (GOOD, "(a) error at the boundary naming expected and given"),
        (DEEP, "(b) error from deep inside, or naming too little"),
        (SILENT, "(c) silently returned a result"),
    ]
    for outcome, text in outcomes:
        share = 100 * overall[outcome] / max(len(results), 1)
        lines.append(f"  {text}: {overall[outcome]} ({share:.1f} %)")
    for kind, counts in tally_by_kind(results).items():
        what = "wrong on their face" if kind == CLEAR else "right in type, wrong in meaning"
        lines.append(f"{kind} cases ({what}): {sum(counts.values())}")
        for outcome, text in outcomes:
            share = 100 * counts[outcome] / max(sum(counts.values()), 1)
            lines.append(f"  {text}: {counts[outcome]} ({share:.1f} %)")
    lines.append("")
    lines.append(f"{'module':<30} {'tried':>6} {'good':>6} {'deep':>6} {'silent':>6} {'semantic':>8}")
    for module in sorted(by_module):
        c = by_module[module]
        tried = c[GOOD] + c[DEEP] + c[SILENT]
        lines.append(f"{module:<30} {tried:>6} {c[GOOD]:>6} {c[DEEP]:>6} {c[SILENT]:>6} {c[SEMANTIC]:>8}")
    if verbose:
        for outcome in (SILENT, DEEP):
            chosen = [r for r in results if r.outcome == outcome]
            if chosen:
                lines.append(f"\n{outcome}:")
                lines += [f"  {r.case}  ->  {' '.join(r.detail.split())[:300]}" for r in chosen]
    return "\n".join(lines)


# --- bad values ---------------------------------------------------------------------------
def shape(x) -> str:
    """A shape as the library's messages write it: '(2, 5)'."""
    return str(tuple(x.shape))


def with_nan(x, value: float = math.nan):
    """A copy of the float tensor ``x`` with one entry (the last) set to ``value`` (NaN by default)."""
    x = x.detach().clone()
    x.view(-1)[-1] = value
    return x


def with_inf(x):
    return with_nan(x, math.inf)


def vary(fn: Callable, good: dict, name: str, variants: Iterable[tuple]) -> Iterator[tuple]:
    """Cases calling ``fn(**good)`` with ``good[name]`` replaced by each bad value of ``variants``.

    ``variants`` yields ``(label, value, mentions)``; the argument's name is added to the mentions.
    """
    for label, value, mentions, *known in variants:
        mentions = (mentions,) if isinstance(mentions, str) else tuple(mentions)
        yield (f"{name}: {label}", lambda value=value: fn(**{**good, name: value}), (name, *mentions), *known)


def float_variants(x, *, empty: bool = True, nan: bool = True, ndim: bool = True, dtype: bool = True) -> list[tuple]:
    """The usual bad values of a float tensor argument ``x``: wrong type, rank, dtype, NaN, inf, empty batch."""
    out = [("a string", "text", "str"), ("a list of strings", ["a", "b"], "list")]
    if ndim:
        out.append(("one dimension too many", x[None], shape(x[None])))
        if x.dim() > 1:
            out.append(("one dimension too few", x[0], shape(x[0])))
    if dtype:
        out.append(("an integer tensor", x.round().long(), "int64"))
        out.append(("a bool tensor", x > 0, "bool"))
    if nan:
        out.append(("a NaN", with_nan(x), "nan"))
        out.append(("an inf", with_inf(x), "inf"))
    if empty and x.dim() >= 1:
        empty_x = x[:0]
        out.append(("an empty batch", empty_x, shape(empty_x)))
    return out


def id_variants(ids, vocab_size: int, *, ndim: bool = True, empty: bool = True) -> list[tuple]:
    """The usual bad values of a tensor of token ids: strings, floats, wrong rank, out-of-vocabulary, negative."""
    out = [
        ("a string", "the cat", "str"),
        ("a float tensor", ids.float(), "float32"),
        ("an id equal to the vocabulary size", _set_last(ids, vocab_size), str(vocab_size)),
        ("a negative id", _set_last(ids, -1), "-1"),
    ]
    if ndim:
        out.append(("one dimension too many", ids[None], shape(ids[None])))
        if ids.dim() > 1:
            out.append(("one dimension too few", ids[0], shape(ids[0])))
    if empty:
        out.append(("an empty batch", ids[:0], shape(ids[:0])))
    return out


def _set_last(ids, value: int):
    ids = ids.clone()
    ids.view(-1)[-1] = value
    return ids


def int_variants(low: int = 1, *, name_string: bool = True) -> list[tuple]:
    """Bad values of an integer size/count argument that must be >= ``low``."""
    out = [(f"{low - 1}", low - 1, str(low - 1)), ("a float", 2.5, "2.5"), ("True", True, "True")]
    if low - 1 != -1:
        out.append(("-1", -1, "-1"))
    if name_string:
        out.append(("a string", "3", "'3'"))
    return out


def choice_variants(choices: Iterable[str]) -> list[tuple]:
    """Bad values of a string choice: an unknown name (the message must list a valid one), a non-string."""
    first = next(iter(choices))
    return [("an unknown name", "bogus", ("bogus", first)), ("None", None, ("None", first))]


def prob_variants(allow_zero: bool = True, allow_one: bool = True) -> list[tuple]:
    """Bad values of a probability."""
    out = [
        ("negative", -0.1, "-0.1"),
        ("above one", 1.5, "1.5"),
        ("NaN", math.nan, "nan"),
        ("a string", "0.5", "'0.5'"),
    ]
    if not allow_zero:
        out.append(("zero", 0.0, "0.0"))
    if not allow_one:
        out.append(("one", 1.0, "1.0"))
    return out
