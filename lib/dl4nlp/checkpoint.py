"""The one on-disk format of everything a recipe ships: checkpoints and their provenance.

A checkpoint is a ``torch.save`` of a plain dictionary (so it loads with
``torch.load(weights_only=True)``, which cannot run code)::

    {"format": "dl4nlp-checkpoint", "version": 1, "kind": "char_lstm",
     "config": {...}, "state_dict": {...}, "extra": {...}}

``kind`` names what the file holds (a loader refuses any other kind), ``config``
is the model's config dataclass as a dict, ``extra`` holds what else the model
needs (a vocabulary, say). Beside ``NAME.pt`` lies ``NAME.json``, its
provenance: the command that made it, its arguments, seed, versions, device,
wall time, results, and the file's size and SHA-256, which ``load_checkpoint``
verifies, so one flipped byte is an error rather than a silently different
model.

Every write is atomic (a temporary file in the same folder, then a rename), so
a crash or Ctrl-C never leaves a half-written file where a good one was, and
``check_output`` refuses to replace an existing file unless asked.

>>> import tempfile, torch
>>> scratch = tempfile.TemporaryDirectory()
>>> folder = Path(scratch.name)
>>> info = save_checkpoint(folder / "w.pt", kind="demo", config={"size": 2},
...                        state_dict={"w": torch.ones(2)}, provenance={"command": "doctest"})
>>> loaded = load_checkpoint(folder / "w.pt", kind="demo")
>>> loaded.config, loaded.state_dict["w"].tolist(), info["artifact"]["bytes"] > 0
({'size': 2}, [1.0, 1.0], True)
>>> scratch.cleanup()
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import os
import platform
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy
import torch

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_device,
    check_file,
    check_path,
    check_sequence,
    check_str,
    check_type,
    given,
)
from dl4nlp._version import __version__
from dl4nlp.kernels import kernel_fingerprint

FORMAT = "dl4nlp-checkpoint"
VERSION = 1
PathLike = Union[str, os.PathLike]


# --- atomic writes and the overwrite guard -----------------------------------
def atomic_write(path: PathLike, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``.

    Either the whole new file is there afterwards or the old one is untouched.
    """
    path = _file_to_write(path)
    check_callable("write", write, "a function write(tmp_path) that writes the file")
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        with open(tmp, "rb") as stream:  # make the bytes durable before the rename
            os.fsync(stream.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def _file_to_write(path: Any) -> Path:
    path = check_path("path", path)
    if path.is_dir():
        raise IsADirectoryError(f"path must name a file to write; got the folder {path}")
    return path


def write_json(path: PathLike, obj: Any) -> Path:
    """Write ``obj`` as indented JSON, atomically (strict JSON: no NaN or infinity)."""
    path = _file_to_write(path)
    try:
        text = json.dumps(obj, indent=1, sort_keys=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as error:
        raise type(error)(f"obj must be JSON (dicts, lists, strings, finite numbers); {error}") from None
    return atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def read_json(path: PathLike, what: str = "a JSON file") -> Any:
    """The JSON value stored in ``path``; a missing file, a folder or text that is not JSON is an error naming the
    file and ``what`` it should have been.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     table = write_json(Path(folder) / "table.json", {"seeds": [0, 1]})
    ...     read_json(table, "a table")
    {'seeds': [0, 1]}
    """
    check_str("what", what, nonempty=True)
    path = check_file("path", path, what)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"path must be {what}; {path} is not JSON ({error})") from None


def check_output(path: PathLike, *, overwrite: bool = False, suffix: Optional[str] = None) -> Path:
    """The output path of a recipe, refused if it exists (unless ``overwrite``) or has the wrong suffix.

    A recipe writes its provenance to ``path.with_suffix('.json')``, so a checkpoint
    path must not itself end in ``.json`` (it would be overwritten by its own recipe),
    and a file that is already there under the provenance's name (another recipe's
    results, say ``--out data/scaling_sweep.pt`` beside ``data/scaling_sweep.json``)
    is refused like the output itself.
    """
    path = _file_to_write(path)
    check_bool("overwrite", overwrite)
    if suffix is not None and path.suffix != suffix:
        raise ValueError(f"the output must be a {suffix} file; got path {str(path)!r}")
    if path.exists() and not overwrite:
        raise FileExistsError(
            f"{path} exists; the recipe never replaces a file unless asked: pass --overwrite "
            f"(or overwrite=True), or choose another --out"
        )
    record = path.with_suffix(".json")
    if path.suffix != ".json" and record.exists() and not overwrite:
        raise FileExistsError(
            f"{record} exists, and the provenance of {path.name} would replace it; the recipe never replaces "
            f"a file unless asked: pass --overwrite (or overwrite=True), or choose another --out"
        )
    return path


def sha256sum(path: PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    path = check_file("path", path)
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance_path(path: PathLike) -> Path:
    """Where the provenance of the checkpoint ``path`` lives: the same name with ``.json``."""
    path = check_path("path", path)
    if path.suffix == ".json":  # its provenance would be the file itself
        raise ValueError(f"path must be a checkpoint (such as model.pt), not a provenance .json; got {str(path)!r}")
    return path.with_suffix(".json")


def environment() -> dict[str, Any]:
    """Versions, device, threads and the CPU kernels' fingerprint (``dl4nlp.kernels``), as recorded in every
    provenance."""
    return {
        "dl4nlp": __version__,
        "torch": torch.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "torch_threads": torch.get_num_threads(),
        "kernel_fingerprint": kernel_fingerprint(),
    }


# --- checkpoints ---------------------------------------------------------------
@dataclass
class Checkpoint:
    """A loaded checkpoint: what kind it is, the config dict, the weights, extras and provenance."""

    kind: str
    config: dict
    state_dict: dict
    extra: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    path: Optional[Path] = None


def _plain(config: Any) -> dict:
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return dataclasses.asdict(config)
    if isinstance(config, Mapping):
        return dict(config)
    raise TypeError(f"config must be a dataclass instance or a mapping; got {type(config).__name__}")


def save_checkpoint(
    path: PathLike,
    *,
    kind: str,
    config: Any,
    state_dict: Mapping[str, torch.Tensor],
    provenance: Mapping[str, Any],
    extra: Optional[Mapping[str, Any]] = None,
    overwrite: bool = False,
) -> dict:
    """Write a checkpoint and its provenance (``NAME.json``) atomically; returns the provenance written.

    The weights are moved to the CPU. The provenance gains ``kind``, ``environment``
    (unless given) and ``artifact`` (file name, bytes, SHA-256).
    """
    path = check_output(path, overwrite=overwrite, suffix=".pt")
    if not isinstance(kind, str) or not kind:
        raise ValueError(f"kind must be a non-empty string; got {kind!r}")
    check_type("state_dict", state_dict, Mapping, "a mapping from name to tensor")
    check_type("provenance", provenance, Mapping, "a mapping (the provenance record)")
    if extra is not None:
        check_type("extra", extra, Mapping, "a mapping or None")
    bad = [name for name, value in state_dict.items() if not isinstance(value, torch.Tensor)]
    if bad:
        raise TypeError(f"state_dict must map names to tensors; not tensors: {bad[:5]}")
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "kind": kind,
        "config": _plain(config),
        "state_dict": {name: value.detach().cpu() for name, value in state_dict.items()},
        "extra": dict(extra or {}),
    }
    buffer = io.BytesIO()  # torch.save names its zip folder after the file: save to memory, so the
    torch.save(payload, buffer)  # bytes do not depend on the (temporary) file name and a re-run is identical
    atomic_write(path, lambda tmp: tmp.write_bytes(buffer.getvalue()))
    record = {"kind": kind, **dict(provenance)}
    record.setdefault("environment", environment())
    record["artifact"] = {"file": path.name, "bytes": path.stat().st_size, "sha256": sha256sum(path)}
    write_json(provenance_path(path), record)
    return record


def save_table(
    path: PathLike,
    rows: Sequence[Mapping[str, Any]],
    *,
    provenance: Mapping[str, Any],
    overwrite: bool = False,
) -> dict:
    """Write ``rows`` (dicts with the same keys) as a CSV file and its provenance, atomically, like a checkpoint."""
    path = check_output(path, overwrite=overwrite, suffix=".csv")
    rows = check_sequence("rows", rows, what="a list of dicts")
    bad = [row for row in rows if not isinstance(row, Mapping)]
    if bad:
        raise TypeError(f"rows must hold dicts (column -> value); got {given(bad[0])}")
    if any(list(row) != list(rows[0]) for row in rows):
        odd = next(list(row) for row in rows if list(row) != list(rows[0]))
        raise ValueError(f"rows must all have the keys {list(rows[0])} in that order; got a row with {odd}")
    check_type("provenance", provenance, Mapping, "a dict (at least the command that made the table)")
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, lambda tmp: tmp.write_text(buffer.getvalue(), encoding="utf-8"))
    record = dict(provenance)
    record.setdefault("environment", environment())
    record["artifact"] = {"file": path.name, "bytes": path.stat().st_size, "sha256": sha256sum(path)}
    write_json(provenance_path(path), record)
    return record


def load_table(path: PathLike, *, verify: bool = True) -> tuple[list[dict[str, str]], dict]:
    """The rows of a CSV written by ``save_table`` (as strings) and its provenance, the checksum verified."""
    path = check_file("path", path, "a .csv table written by a recipe")
    check_bool("verify", verify)
    provenance = read_provenance(path) if verify else {}
    if verify:
        verify_checksum(path, provenance)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        raise ValueError(f"{path} holds no rows; expected a table written by a recipe")
    return rows, provenance


def read_provenance(path: PathLike) -> dict:
    """The provenance JSON beside the checkpoint ``path`` (an error names the file when it is missing)."""
    record_path = provenance_path(path)
    if not record_path.is_file():
        raise FileNotFoundError(
            f"{record_path} is missing: every checkpoint ships with its provenance, which holds "
            f"the checksum that proves {Path(path).name} intact"
        )
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{record_path} is not valid JSON ({error}); expected a checkpoint's provenance") from None
    if not isinstance(record, dict):
        kind = type(record).__name__
        raise ValueError(f"{record_path} must hold a JSON object, a checkpoint's provenance; got {kind}")
    return record


def verify_checksum(path: PathLike, provenance: Optional[Mapping[str, Any]] = None) -> None:
    """Raise ``ValueError`` unless the file's size and SHA-256 equal those its provenance records."""
    path = check_file("path", path, "a checkpoint file")
    if provenance is not None:
        check_type("provenance", provenance, Mapping, "a mapping (the provenance record) or None")
    provenance = read_provenance(path) if provenance is None else provenance
    artifact = provenance.get("artifact")
    if not isinstance(artifact, Mapping) or "sha256" not in artifact:
        raise ValueError(f"the provenance of {path} records no artifact checksum; expected artifact.sha256")
    size = path.stat().st_size
    if size != artifact.get("bytes", size):
        raise ValueError(
            f"{path} has {size:,} bytes but its provenance records {artifact['bytes']:,}: "
            f"the file is truncated or was replaced"
        )
    digest = sha256sum(path)
    if digest != artifact["sha256"]:
        raise ValueError(
            f"{path} is damaged or was replaced: its SHA-256 is {digest}, its provenance records {artifact['sha256']}"
        )


def load_checkpoint(
    path: PathLike,
    kind: str,
    *,
    map_location: Union[str, torch.device] = "cpu",
    verify: bool = True,
) -> Checkpoint:
    """Load a checkpoint of the given ``kind`` with ``weights_only=True``, its checksum verified first.

    Errors name the file and what was expected: a missing, empty, truncated or
    damaged file, a file that is not a dl4nlp checkpoint, or one of another kind.
    ``verify=False`` skips the checksum (for a checkpoint a recipe is still writing).
    """
    path = check_path("path", path)
    check_str("kind", kind, nonempty=True)
    map_location = check_device("map_location", map_location, available=True)
    check_bool("verify", verify)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}; expected a {kind!r} checkpoint (.pt)")
    if path.stat().st_size == 0:
        raise ValueError(f"{path} is empty (0 bytes); expected a {kind!r} checkpoint")
    provenance = read_provenance(path) if verify else {}
    if verify:
        verify_checksum(path, provenance)
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # truncated zip, pickle of arbitrary objects, not a torch file
        raise ValueError(
            f"{path} could not be read as a {kind!r} checkpoint with weights_only=True: {type(error).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else ''}"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{path} is not a dl4nlp checkpoint (expected format {FORMAT!r}); got {_describe(payload)}")
    if payload.get("version") != VERSION:
        raise ValueError(f"{path} has checkpoint format version {payload.get('version')!r}; expected {VERSION}")
    if payload.get("kind") != kind:
        raise ValueError(f"{path} holds a {payload.get('kind')!r} checkpoint; expected a {kind!r} checkpoint")
    return Checkpoint(
        kind=kind,
        config=payload["config"],
        state_dict=payload["state_dict"],
        extra=payload.get("extra", {}),
        provenance=provenance,
        path=path,
    )


def _describe(payload: Any) -> str:
    if isinstance(payload, dict):
        return f"a dict with keys {sorted(map(str, payload))[:8]}"
    return f"a {type(payload).__name__}"
