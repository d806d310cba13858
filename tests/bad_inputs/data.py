"""Bad inputs of dl4nlp.data."""

import os
from contextlib import contextmanager

import torch

from bad_inputs.harness import cases, exempt, id_variants, int_variants, scratch, vary
from dl4nlp import data as D

exempt("a record that check_corpora returns; nothing to validate", "dl4nlp.data.FileCheck")
exempt("takes no arguments (the data folder is checked by data_dir)", "dl4nlp.data.check_corpora")


@contextmanager
def environment(**values):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _data_dir_with(value):
    with environment(DL4NLP_DATA=value):
        return D.data_dir()


@cases("dl4nlp.data.data_dir")
def _():
    yield (
        "DL4NLP_DATA: a folder that does not exist",
        lambda: _data_dir_with("/no/such/folder"),
        ("DL4NLP_DATA", "/no/such/folder"),
    )
    file = scratch() / "a-file"
    file.write_text("")
    file = str(file)
    yield "DL4NLP_DATA: a file, not a folder", lambda: _data_dir_with(file), ("DL4NLP_DATA", file)


@cases("dl4nlp.data.data_path")
def _():
    yield "name: a file that is not shipped", lambda: D.data_path("missing.txt"), ("missing.txt",)
    yield "name: None", lambda: D.data_path(None), ("name", "None")
    yield "name: a path outside data/", lambda: D.data_path("../README.md"), ("name", "../README.md")
    yield "name: empty", lambda: D.data_path(""), ("name", "''")


@cases("dl4nlp.data.load_text")
def _():
    # the argument is called name; the message says what it must be: a corpus
    yield "name: an unknown corpus", lambda: D.load_text("hamlet.txt"), ("corpus", "hamlet.txt", "tinyshakespeare.txt")
    yield "name: None", lambda: D.load_text(None), ("corpus", "None")
    yield "name: a path", lambda: D.load_text(D.data_dir() / "tinystories.txt"), ("corpus", "PosixPath")


@cases("dl4nlp.data.md5sum")
def _():
    yield "path: missing", lambda: D.md5sum("/no/such/file.txt"), ("path", "/no/such/file.txt")
    yield "path: a folder", lambda: D.md5sum(scratch()), ("path", "folder")


@cases("dl4nlp.data.random_windows")
def _():
    ids = torch.arange(20)
    good = dict(ids=ids, batch_size=3, length=5)
    yield from vary(
        D.random_windows,
        good,
        "ids",
        [v for v in id_variants(ids, 1000) if "vocabulary" not in v[0] and "negative" not in v[0]]
        + [("shorter than length", ids[:4], "(4,)")],
    )
    yield from vary(D.random_windows, good, "batch_size", int_variants(1))
    yield from vary(D.random_windows, good, "length", int_variants(1))
    yield from vary(D.random_windows, good, "generator", [("a seed, not a Generator", 0, "int")])
