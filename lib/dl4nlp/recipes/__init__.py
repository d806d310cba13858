"""Recipes: the commands that train what ships in ``data/``, one module per shipped artefact.

Run one as ``python -m dl4nlp.recipes.NAME --out PATH`` (``--help`` lists its
options). Models live in the model modules (``dl4nlp.lstm``, ``dl4nlp.seq2seq``,
``dl4nlp.bert`` …) with their loaders; a recipe only trains and writes. Every
recipe:

- writes the one checkpoint format of ``dl4nlp.checkpoint`` (config +
  ``state_dict`` + extras, loaded with ``torch.load(weights_only=True)``) and,
  beside it, its provenance JSON from ``provenance()`` below, with the file's
  SHA-256;
- writes atomically and never replaces an existing file (the output, or a file
  under its provenance's name) unless ``--overwrite`` is given, so a Ctrl-C, a
  crash or a mistyped ``--out`` cannot damage what ships;
- is deterministic on the CPU for a given seed, torch version and thread count,
  and records all three, so that its recorded command reproduces the shipped
  file (a test re-runs a short version and compares).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shlex
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import torch

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_choice,
    check_file,
    check_int,
    check_number,
    check_path,
    check_sequence,
    check_str,
    check_strings,
    check_type,
)
from dl4nlp.checkpoint import atomic_write, check_output, environment, write_json
from dl4nlp.data import CORPORA, data_path, md5sum
from dl4nlp.device import DEVICE_CHOICES, get_device, seed_everything
from dl4nlp.kernels import kernel_fingerprint


def recipe_parser(name: str, description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every recipe shares: --out, --overwrite, --seed, --threads, --device."""
    check_str("name", name, nonempty=True)
    if not name.isidentifier():
        raise ValueError(f"name must be the recipe's module name (python -m dl4nlp.recipes.NAME); got {name!r}")
    check_str("description", description)
    parser = argparse.ArgumentParser(prog=f"python -m dl4nlp.recipes.{name}", description=description)
    parser.add_argument("--out", type=Path, required=True, help="where to write (its provenance goes beside it)")
    parser.add_argument("--overwrite", action="store_true", help="replace --out if it exists (never by default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (results are bit-for-bit for a given count)"
    )
    parser.add_argument("--device", default="cpu", help="cpu (default, reproducible), cuda or mps")
    return parser


def command_line(name: str, argv: Optional[Sequence[str]]) -> str:
    """The command as a user would type it, for the provenance."""
    check_str("name", name, nonempty=True)
    args = sys.argv[1:] if argv is None else check_strings("argv", argv, nonempty=False)
    return f"python -m dl4nlp.recipes.{name} {shlex.join(args)}".strip()


def comma_ints(option: str, text: str, low: int = 1, empty: bool = False) -> list[int]:
    """The comma-separated integers of a command-line option, each at least ``low`` (checked before any work).

    >>> comma_ints("--budgets", "100,300")
    [100, 300]
    >>> comma_ints("--budgets", "100,abc")
    Traceback (most recent call last):
    ValueError: --budgets must be comma-separated integers; got '100,abc'
    """
    check_str("option", option, nonempty=True)
    check_str(option, text)
    check_int("low", low, low=None)
    check_bool("empty", empty)
    try:
        values = [int(item) for item in text.split(",") if item.strip() or not empty]
    except ValueError:
        raise ValueError(f"{option} must be comma-separated integers; got {text!r}") from None
    if not values and not empty:
        raise ValueError(f"{option} must name at least one integer; got {text!r}")
    for value in values:
        check_int(f"each of {option}", value, low)
    return values


def comma_floats(option: str, text: str, low: float, high: float) -> list[float]:
    """The comma-separated numbers of a command-line option, each in ``(low, high]``.

    >>> comma_floats("--rates", "0.15,1.0", 0, 1)
    [0.15, 1.0]
    """
    check_str("option", option, nonempty=True)
    check_str(option, text)
    try:
        values = [float(item) for item in text.split(",")]
    except ValueError:
        raise ValueError(f"{option} must be comma-separated numbers; got {text!r}") from None
    for value in values:
        check_number(f"each of {option}", value, low, high, low_open=True)
    return values


def _check_args(args: Any, names: Sequence[str]) -> argparse.Namespace:
    """The parsed arguments of a recipe's parser, with the attributes ``names``."""
    check_type("args", args, argparse.Namespace, "the parsed arguments of the recipe's parser (an argparse.Namespace)")
    missing = [name for name in names if not hasattr(args, name)]
    if missing:
        raise ValueError(f"args must be the recipe's parsed arguments, with {list(names)}; missing {missing}")
    return args


def start(args: argparse.Namespace) -> torch.device:
    """Apply --threads, --seed and --device; returns the device."""
    check_type("args", args, argparse.Namespace, "the parsed arguments of recipe_parser (an argparse.Namespace)")
    missing = [name for name in ("threads", "seed", "device") if not hasattr(args, name)]
    if missing:
        raise ValueError(f"args must have threads, seed and device (from recipe_parser); missing {missing}")
    check_int("args.threads (--threads)", args.threads)
    check_int("args.seed (--seed)", args.seed, 0, 2**32 - 1)
    check_choice("args.device (--device)", args.device, DEVICE_CHOICES)
    torch.set_num_threads(args.threads)
    seed_everything(args.seed)
    return get_device(args.device)


def seeded_table_run(
    name: str, doc: str, argv: Optional[Sequence[str]], seeds: int, seeds_help: str, resume_help: str
) -> tuple[argparse.Namespace, Path, Path, torch.device]:
    """The command line of a recipe that writes one JSON table over seeds 0 .. N-1 and can resume.

    Parses ``--out``, ``--seeds`` and ``--resume`` (and ``recipe_parser``'s options) from ``argv``, checks them, and
    returns the arguments, the output path, its ``.partial`` resume state beside it, and the device, started.
    """
    parser = recipe_parser(name, doc.strip().splitlines()[0])
    parser.add_argument("--seeds", type=int, default=seeds, help=seeds_help)
    parser.add_argument("--resume", action="store_true", help=resume_help)
    args = parser.parse_args(argv)
    out = check_output(args.out, overwrite=args.overwrite, suffix=".json")
    check_int("--seeds", args.seeds)
    return args, out, out.with_name(out.name + ".partial"), start(args)


def run_seeds(
    name: str,
    argv: Optional[Sequence[str]],
    run: tuple[argparse.Namespace, Path, Path, torch.device],
    spec: Mapping[str, Any],
    seed_row: Callable[[int], dict],
    progress: Callable[[dict], str],
    what: str,
) -> dict:
    """The body of a ``seeded_table_run`` recipe: ``seed_row(seed)`` for seeds 0 .. N-1, then the table written.

    ``run`` is what ``seeded_table_run`` returned. With ``--resume`` the seeds finished in ``.partial`` (of the
    same ``spec``) are kept; the state is saved after every seed and ``progress(row)`` printed. The table holds
    ``what``, the ``spec``, the rows in seed order and the provenance; returns what was written.
    """
    check_str("name", name, nonempty=True)
    check_type("run", run, tuple, "what seeded_table_run returned: (args, out, partial, device)")
    if len(run) != 4 or not isinstance(run[0], argparse.Namespace):
        raise TypeError(f"run must be what seeded_table_run returned: (args, out, partial, device); got {run!r}")
    check_type("spec", spec, Mapping, "a mapping (the settings the table records)")
    check_callable("seed_row", seed_row, "a function of the seed")
    check_callable("progress", progress, "a function of a row")
    check_str("what", what, nonempty=True)
    args, out, partial, device = run
    started = time.perf_counter()
    rows, elapsed = resume_rows(partial, spec) if args.resume else ([], 0.0)  # another spec's: refused
    done = {row["seed"]: row for row in rows}
    for seed in range(args.seeds):
        if seed not in done:
            done[seed] = seed_row(seed)
            save_rows(partial, spec, list(done.values()), elapsed + time.perf_counter() - started)
            print(f"seed {seed}: {progress(done[seed])}", flush=True)
    record = {
        "what": what,
        **spec,
        "seeds": [done[seed] for seed in range(args.seeds)],
        "provenance": table_provenance(name, argv, args, device, started, elapsed),
    }
    return write_table(out, record, partial)


def provenance(
    *,
    command: str,
    arguments: Mapping[str, Any],
    seed: int,
    device: torch.device | str,
    started: float,
    corpora: Sequence[str] = (),
    results: Optional[Mapping[str, Any]] = None,
    history: Sequence[str] = (),
) -> dict[str, Any]:
    """The provenance record every recipe writes beside its output.

    ``started`` is ``time.perf_counter()`` at the start; ``corpora`` names the
    shipped corpora read (their md5 is recorded); ``history`` lists earlier
    commands that produced the same file before the recipe moved.
    """
    check_str("command", command)
    check_type("arguments", arguments, Mapping, "a mapping from argument name to value")
    corpora = check_strings("corpora", corpora, nonempty=False)
    check_number("started", started)
    if started > time.perf_counter():
        raise ValueError(f"started must be time.perf_counter() at the start, not later than now; got {started}")
    if results is not None:
        check_type("results", results, Mapping, "a mapping or None")
    unknown = [c for c in corpora if c not in CORPORA]
    if unknown:
        raise ValueError(f"corpora must be among {tuple(CORPORA)}; got {unknown}")
    record: dict[str, Any] = {
        "command": command,
        "arguments": {k: (str(v) if isinstance(v, Path) else v) for k, v in arguments.items()},
        "seed": seed,
        "device": str(device),
        "environment": environment(),
        "corpora": {c: {"md5": md5sum(data_path(c))} for c in corpora},
        "wall_seconds": round(time.perf_counter() - started, 1),
        "results": dict(results or {}),
    }
    if history:
        record["history"] = list(history)
    return record


def table_provenance(
    name: str,
    argv: Optional[Sequence[str]],
    args: argparse.Namespace,
    device: torch.device,
    started: float,
    elapsed: float,
    corpora: Sequence[str] = (),
) -> dict[str, Any]:
    """``provenance()`` for a resumable recipe that writes one JSON table: its arguments (less ``--overwrite`` and
    ``--resume``), the wall time of every session (``elapsed`` before this one) and the CPU kernels (their
    fingerprint is in the environment, which ``not_reproducible_here`` reads)."""  # fmt: skip
    check_type("args", args, argparse.Namespace, "the parsed arguments of the recipe's parser (an argparse.Namespace)")
    check_number("elapsed", elapsed, 0)
    return {
        **provenance(
            command=command_line(name, argv),
            arguments={k: v for k, v in vars(args).items() if k not in ("overwrite", "resume")},
            seed=getattr(args, "seed", 0),
            device=device,
            started=started - elapsed,
            corpora=corpora,
        ),
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }


def write_table(out: Path, record: Mapping[str, Any], partial: Path) -> dict:
    """Write a recipe's finished JSON table to ``out`` (atomically), then remove its resume state ``partial``."""
    out, partial = check_path("out", out), check_path("partial", partial)
    if out.resolve() == partial.resolve() or (out.exists() and partial.exists() and out.samefile(partial)):
        raise ValueError(
            f"partial must be the resume state, a file other than the table out (it is removed once the table is "
            f"written); got partial={str(partial)!r}, the same file as out={str(out)!r}"
        )
    write_json(out, record)
    if partial.exists():
        partial.unlink()
    return dict(record)


def _environment(record: Mapping[str, Any], key: str) -> Any:
    """``record['environment'][key]`` of a provenance record, or an error naming what is missing."""
    check_type("record", record, Mapping, "a provenance record (a mapping, from read_provenance)")
    environment = record.get("environment")
    if not isinstance(environment, Mapping) or key not in environment:
        raise KeyError(f"record must be a provenance with environment[{key!r}]; got keys {sorted(record)[:8]}")
    return environment[key]


def resume_rows(state_path: Path, spec: Mapping[str, Any]) -> tuple[list, float]:
    """The rows and elapsed seconds a sweep saved in ``state_path`` (none yet: ``[], 0.0``).

    A state saved by a run with another ``spec`` is refused, so a different
    sweep never resumes this one.
    """
    state_path = check_path("state_path", state_path)
    check_type("spec", spec, Mapping, "a mapping (the sweep's settings)")
    if not state_path.exists():
        return [], 0.0
    try:
        saved = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"state_path must be a sweep state saved by save_rows; {state_path}: {error}") from None
    if not isinstance(saved, dict) or any(k not in saved for k in ("spec", "rows", "elapsed")):
        raise ValueError(f"state_path must be a sweep state saved by save_rows (spec, rows, elapsed); got {state_path}")
    if saved["spec"] != dict(spec):
        raise ValueError(f"{state_path} holds a run with {saved['spec']}; this command asks for {dict(spec)}")
    print(f"resumed with {len(saved['rows'])} rows from {state_path}", flush=True)
    return saved["rows"], saved["elapsed"]


def save_rows(state_path: Path, spec: Mapping[str, Any], rows: Sequence, elapsed: float) -> None:
    """Save a sweep's rows so far, atomically, for ``resume_rows``."""
    state_path = check_path("state_path", state_path)
    check_type("spec", spec, Mapping, "a mapping (the sweep's settings)")
    rows = check_sequence("rows", rows, nonempty=False, what="a list of rows")
    check_number("elapsed", elapsed, 0)
    try:
        text = json.dumps({"spec": dict(spec), "rows": list(rows), "elapsed": elapsed})
    except (TypeError, ValueError) as error:
        raise TypeError(f"spec and rows must hold JSON values (numbers, strings, lists, dicts); {error}") from None
    atomic_write(state_path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def load_state(state_path: Path) -> dict:
    """A resume state a recipe saved with ``torch.save`` (a dict), loaded with ``weights_only=True``.

    A missing, empty, damaged or foreign file is an error naming it, with what to do
    (delete it, or drop ``--resume``), not an error from deep inside ``torch.load``.
    """
    state_path = check_file("state_path", state_path, "a recipe's saved state")
    try:
        state = torch.load(state_path, map_location="cpu", weights_only=True)
    except Exception as error:  # empty, truncated, not a torch file, or a pickle of arbitrary objects
        detail = f"{type(error).__name__}: {str(error).splitlines()[0]}" if str(error) else type(error).__name__
        raise ValueError(
            f"{state_path} could not be read as a recipe's saved state ({detail}); delete it or drop --resume"
        ) from None
    if not isinstance(state, dict):
        raise ValueError(f"{state_path} must hold a recipe's saved state (a dict); got {type(state).__name__}")
    return state


def parallel_map(function: Callable[[Any], Any], items: Sequence[Any], jobs: int = 1) -> Iterator[Any]:
    """``function`` of each item, in order, computed by ``jobs`` forked processes (1: in this process).

    For independent, seeded units of a sweep, whose result cannot depend on
    the process that computes it; ``function`` must be a module-level function
    (it reads what it needs from module state set before the fork).
    """
    check_callable("function", function)
    items = check_sequence("items", items, nonempty=False, what="a list of work items")
    check_int("jobs", jobs)
    return _parallel_map(function, items, jobs)


def _parallel_map(function: Callable[[Any], Any], items: list, jobs: int) -> Iterator[Any]:
    if jobs == 1 or len(items) < 2:
        yield from map(function, items)
        return
    with multiprocessing.get_context("fork").Pool(min(jobs, len(items))) as pool:
        yield from pool.imap(function, items)


def not_reproducible_here(record: Mapping[str, Any]) -> Optional[str]:
    """Why this machine cannot re-run a recipe bit for bit, or None when it can.

    ``record`` is a provenance record (``read_provenance``). Bit for bit needs the
    recorded torch version and the same bits from the CPU kernels: the record's
    ``environment['kernel_fingerprint']`` (``dl4nlp.kernels``) equal to this
    machine's on the recorded thread count. A record made before fingerprints
    existed is never reproducible bit for bit here (its re-runs are checked to a
    measured tolerance instead); run the re-run inside ``recorded_threads(record)``.

    >>> from dl4nlp.checkpoint import environment
    >>> not_reproducible_here({"environment": environment()}) is None
    True
    >>> not_reproducible_here({"environment": {"torch": "0.1", "torch_threads": 1}}).startswith("bit-for-bit needs")
    True
    """
    recorded = (_environment(record, "torch"), record["environment"].get("kernel_fingerprint"))
    with recorded_threads(record):  # the fingerprint of the thread count the recipe ran on
        here = (torch.__version__, kernel_fingerprint())
    if recorded != here:
        return f"bit-for-bit needs the recorded torch and kernel fingerprint {recorded}; this machine has {here}"
    return None


@contextmanager
def recorded_threads(record: Mapping[str, Any]) -> Iterator[None]:
    """Run the block on the thread count the provenance ``record`` recorded, then restore torch's setting.

    >>> before = torch.get_num_threads()
    >>> with recorded_threads({"environment": {"torch_threads": 1}}):
    ...     torch.get_num_threads()
    1
    >>> torch.get_num_threads() == before
    True
    """
    wanted = _environment(record, "torch_threads")
    if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 1:
        raise ValueError(f"record['environment']['torch_threads'] must be an integer >= 1; got {wanted!r}")
    threads = torch.get_num_threads()
    torch.set_num_threads(wanted)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
