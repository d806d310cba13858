"""The files shipped in ``data/``: where they are, checking them, loading them.

Nothing is ever downloaded: the corpora live in the repository's ``data/``
folder (provenance and licences in ``data/README.md``). ``DL4NLP_DATA`` points
elsewhere when the package is installed without the repository around it
(the Colab set-up cell sets it).

>>> text = load_text("tinyshakespeare.txt")  # read from data/, never downloaded
>>> text[:14], len(text), data_path("tinyshakespeare.txt").stat().st_size  # ASCII: one byte per character
('First Citizen:', 1115394, 1115394)
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from dl4nlp._checks import check_choice, check_file, check_ids, check_int, check_str, check_type

DATA_ENV_VAR = "DL4NLP_DATA"

# name -> (bytes, md5) as shipped; see data/README.md for where each comes from.
CORPORA: dict[str, tuple[int, str]] = {
    "tinyshakespeare.txt": (1_115_394, "6fb458f1232090904fb40fe944165e91"),
    "sherlock_holmes.txt": (575_794, "f79d54f2f318f8d5c764872e68d32bdb"),
    "tinystories.txt": (944_426, "eb3481fe74b74fd8aa2c36e32921d187"),
}


def data_dir() -> Path:
    """The folder holding the shipped data: ``$DL4NLP_DATA``, else the repository's ``data/``."""
    configured = os.environ.get(DATA_ENV_VAR)
    if configured:
        path = Path(configured).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(f"{DATA_ENV_VAR} must name an existing folder; got {configured!r}")
        return path
    path = Path(__file__).resolve().parents[2] / "data"  # lib/dl4nlp/data.py -> repository root
    if not path.is_dir():
        raise FileNotFoundError(
            f"expected the course data folder at {path}, which does not exist; clone the repository "
            f"and install it with 'pip install -e .', or set {DATA_ENV_VAR} to the folder holding the data"
        )
    return path


def data_path(name: str) -> Path:
    """Path of a shipped file, e.g. ``data_path('tinystories.txt')``; errors name what exists."""
    check_str("name", name, nonempty=True, what="the name of a file in the data folder")
    if Path(name).name != name:
        raise ValueError(f"name must be a file name in the data folder, not a path; got {name!r}")
    path = data_dir() / name
    if not path.is_file():
        shipped = sorted(p.name for p in data_dir().iterdir() if p.is_file())
        raise FileNotFoundError(f"no data file {name!r} in {data_dir()}; files there: {shipped}")
    return path


def load_text(name: str) -> str:
    """The text of a shipped corpus (one of ``CORPORA``), read as UTF-8.

    The file is checked against its recorded size and md5 first (``verified_path``),
    wherever it was found (``data/`` or ``$DL4NLP_DATA``): an empty, cut or other file
    under the corpus's name is refused, not read.
    """
    check_choice("corpus", name, CORPORA)
    path = verified_path(name)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"corpus {name!r} must be UTF-8 text; {path} is not ({error})") from None


# Other shipped files whose bytes a loader relies on: name -> (bytes, md5), as data/README.md records them.
RECORDED: dict[str, tuple[int, str]] = {
    **CORPORA,
    "cmudict.dict.gz": (914_689, "d42b521f22eca5c22cad0148e0e46815"),
    "bert_base_uncased_vocab.txt": (231_508, "64800d5d8528ce344256daf115d4965e"),
}
_VERIFIED: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> md5, so a file is hashed once


def verified_path(name: str) -> Path:
    """``data_path(name)``, checked against the size and md5 recorded for it in ``RECORDED``.

    A file found under a recorded name with other bytes (empty, cut short, another
    version) raises an error naming the file, the recorded size and md5 and what was found.
    """
    check_choice("name", name, RECORDED)
    path = data_path(name)
    size, md5 = RECORDED[name]
    stat = path.stat()
    if stat.st_size != size:
        raise ValueError(
            f"{name} must be the shipped file of {size:,} bytes (md5 {md5}, data/README.md); "
            f"{path} has {stat.st_size:,} bytes: replace it with the shipped copy"
        )
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = md5sum(path)
    if _VERIFIED[key] != md5:
        raise ValueError(
            f"{name} must be the shipped file with md5 {md5} (data/README.md); {path} has md5 {_VERIFIED[key]} "
            "(the same size, other bytes): replace it with the shipped copy"
        )
    return path


@dataclass(frozen=True)
class FileCheck:
    """The result of checking one shipped file against its recorded size and md5."""

    name: str
    expected_bytes: int
    found_bytes: int | None
    ok: bool


def md5sum(path: Path) -> str:
    """Hex md5 of a file's bytes."""
    path = check_file("path", path)
    digest = hashlib.md5()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_corpora() -> list[FileCheck]:
    """Check every corpus in ``CORPORA`` is present with the right size and checksum."""
    results = []
    for name, (size, md5) in CORPORA.items():
        path = data_dir() / name
        found = path.stat().st_size if path.is_file() else None
        results.append(FileCheck(name, size, found, found == size and md5sum(path) == md5))
    return results


def random_windows(
    ids: torch.Tensor, batch_size: int, length: int, generator: torch.Generator | None = None
) -> torch.Tensor:
    """``batch_size`` windows of ``length`` consecutive ids, starting at random places. Shape (B, length).

    The language-model batches of notebooks 03 and 05: feed ``w[:, :-1]`` and predict ``w[:, 1:]``.
    """
    check_ids("ids", ids, None, ndim=1, expected="(N,), one text as ids")
    check_int("batch_size", batch_size)
    check_int("length", length)
    if len(ids) < length:
        raise ValueError(f"ids must hold at least length={length} ids; got shape {tuple(ids.shape)}")
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    starts = torch.randint(0, len(ids) - length + 1, (batch_size,), generator=generator)
    return torch.stack([ids[s : s + length] for s in starts.tolist()])  # (B, length)
