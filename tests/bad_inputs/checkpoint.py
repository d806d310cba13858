"""Bad inputs of dl4nlp.checkpoint."""

import json
from pathlib import Path

import torch

from bad_inputs.harness import cases, exempt, scratch, vary
from dl4nlp import checkpoint as C

exempt("a record that load_checkpoint returns; nothing to validate", "dl4nlp.checkpoint.Checkpoint")
exempt("takes no arguments", "dl4nlp.checkpoint.environment")


def folder() -> Path:
    return scratch()


def saved() -> Path:
    path = folder() / "w.pt"
    C.save_checkpoint(path, kind="demo", config={"n": 1}, state_dict={"w": torch.ones(2)}, provenance={"command": "x"})
    return path


@cases("dl4nlp.checkpoint.atomic_write")
def _():
    where = folder()
    yield "write: a string, not a function", lambda: C.atomic_write(where / "a.txt", "hello"), ("write", "str")
    yield "path: None", lambda: C.atomic_write(None, lambda tmp: tmp.write_text("x")), ("path", "None")
    yield "path: an existing folder", lambda: C.atomic_write(where, lambda tmp: tmp.write_text("x")), ("path", "folder")


@cases("dl4nlp.checkpoint.check_output")
def _():
    path = saved()
    yield "path: exists", lambda: C.check_output(path), (path.name, "overwrite")
    yield (
        "path: the wrong suffix",
        lambda: C.check_output(path.with_suffix(".json.x"), suffix=".pt"),
        (".pt", "w.json.x"),
    )
    yield "path: None", lambda: C.check_output(None), ("path", "None")
    yield "path: an existing folder", lambda: C.check_output(path.parent, overwrite=True), ("path", "folder")
    beside = folder()
    (beside / "results.json").write_text("{}")
    yield (
        "path: its provenance's name is taken (another recipe's results.json)",
        lambda: C.check_output(beside / "results.pt", suffix=".pt"),
        ("results.json", "overwrite"),
    )
    yield "overwrite: a string", lambda: C.check_output(beside / "new.pt", overwrite="yes"), ("overwrite", "'yes'")


@cases("dl4nlp.checkpoint.load_checkpoint")
def _():
    path = saved()
    empty = path.with_name("empty.pt")
    empty.write_bytes(b"")
    flipped = path.with_name("flipped.pt")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    flipped.write_bytes(bytes(data))
    flipped.with_suffix(".json").write_text(path.with_suffix(".json").read_text())
    yield "path: missing", lambda: C.load_checkpoint(path.with_name("missing.pt"), "demo"), ("missing.pt", "demo")
    yield "path: empty", lambda: C.load_checkpoint(empty, "demo"), ("empty.pt", "0 bytes")
    yield "path: one flipped byte", lambda: C.load_checkpoint(flipped, "demo"), ("flipped.pt", "SHA-256")
    yield "kind: another kind", lambda: C.load_checkpoint(path, "char_lstm"), ("'demo'", "'char_lstm'")
    yield "path: None", lambda: C.load_checkpoint(None, "demo"), ("path", "None")
    yield "kind: None", lambda: C.load_checkpoint(path, None), ("kind", "None")
    yield (
        "map_location: an unknown device",
        lambda: C.load_checkpoint(path, "demo", map_location="gpu"),
        ("map_location", "gpu"),
    )


@cases("dl4nlp.checkpoint.provenance_path")
def _():
    yield "path: None", lambda: C.provenance_path(None), ("path", "None")
    yield "path: empty", lambda: C.provenance_path(""), ("path", "''")
    yield "path: a provenance .json (its own provenance)", lambda: C.provenance_path("m.json"), ("path", "m.json")


@cases("dl4nlp.checkpoint.read_provenance")
def _():
    path = saved()
    broken = path.with_name("broken.pt")
    broken.with_suffix(".json").write_text("{not json")
    listed = path.with_name("listed.pt")
    listed.with_suffix(".json").write_text(json.dumps([1, 2]))
    yield (
        "path: no provenance beside it",
        lambda: C.read_provenance(path.with_name("alone.pt")),
        ("alone.json", "missing"),
    )
    yield "path: invalid JSON", lambda: C.read_provenance(broken), ("broken.json", "JSON")
    yield "path: JSON that is a list", lambda: C.read_provenance(listed), ("listed.json", "list")
    yield "path: None", lambda: C.read_provenance(None), ("path", "None")
    yield "path: the provenance itself", lambda: C.read_provenance(path.with_suffix(".json")), ("path", "w.json")


@cases("dl4nlp.checkpoint.save_checkpoint")
def _():
    where = folder()
    good = dict(path=where / "x.pt", kind="demo", config={"n": 1}, state_dict={"w": torch.ones(2)}, provenance={})
    yield from vary(C.save_checkpoint, good, "kind", [("empty", "", "''"), ("None", None, "None")])
    yield from vary(
        C.save_checkpoint,
        good,
        "state_dict",
        [("a non-tensor", {"w": [1.0]}, "'w'"), ("a module", torch.nn.Linear(2, 2), "Linear")],
    )
    yield from vary(C.save_checkpoint, good, "config", [("a list", [1, 2], "list")])
    yield from vary(C.save_checkpoint, good, "provenance", [("a string", "made by hand", "str")])
    yield from vary(C.save_checkpoint, good, "extra", [("a list", ["vocab"], "list")])
    yield from vary(
        C.save_checkpoint, good, "path", [("a .json file", where / "x.json", "x.json"), ("None", None, "None")]
    )


@cases("dl4nlp.checkpoint.sha256sum")
def _():
    where = folder()
    yield "path: missing", lambda: C.sha256sum(where / "missing.bin"), ("path", "missing.bin")
    yield "path: a folder", lambda: C.sha256sum(where), ("path", "folder")
    yield "path: None", lambda: C.sha256sum(None), ("path", "None")


@cases("dl4nlp.checkpoint.verify_checksum")
def _():
    path = saved()
    good = dict(path=path)
    yield from vary(
        C.verify_checksum,
        good,
        "provenance",
        [
            ("without an artifact", {"command": "x"}, "artifact"),
            ("a wrong checksum", {"artifact": {"sha256": "0" * 64}}, "0" * 64),
            ("a string", "abc", "str"),
        ],
    )
    yield (
        "path: missing",
        lambda: C.verify_checksum(path.with_name("gone.pt"), {"artifact": {"sha256": "0"}}),
        ("path", "gone.pt"),
    )


@cases("dl4nlp.checkpoint.write_json")
def _():
    where = folder()
    yield "obj: a tensor (not JSON)", lambda: C.write_json(where / "a.json", {"w": torch.ones(2)}), ("obj", "Tensor")
    yield "path: None", lambda: C.write_json(None, {}), ("path", "None")
    yield "obj: NaN (not valid JSON)", lambda: C.write_json(where / "b.json", {"loss": float("nan")}), ("obj", "nan")


@cases("dl4nlp.checkpoint.read_json")
def _():
    where = folder()
    (where / "broken.json").write_text("{not json")
    yield "path: missing", lambda: C.read_json(where / "gone.json", "a table"), ("path", "gone.json")
    yield "path: not JSON", lambda: C.read_json(where / "broken.json", "a table"), ("path", "broken.json", "a table")
    yield "path: a folder", lambda: C.read_json(where, "a table"), ("path", str(where))
    yield "what: empty", lambda: C.read_json(where / "broken.json", ""), ("what", "''")


def saved_table() -> Path:
    path = folder() / "t.csv"
    C.save_table(path, [{"a": 1, "b": 2}], provenance={"command": "x"})
    return path


@cases("dl4nlp.checkpoint.save_table")
def _():
    def good():
        return dict(path=folder() / "t.csv", rows=[{"a": 1, "b": 2}], provenance={"command": "x"})

    def call(**change):
        return lambda: C.save_table(**{**good(), **change})

    yield "rows: empty", call(rows=[]), ("rows", "[]")
    yield "rows: one dict, not a list", call(rows={"a": 1}), ("rows", "dict")
    yield "rows: lists, not dicts", call(rows=[[1, 2]]), ("rows", "list")
    yield "rows: different keys", call(rows=[{"a": 1}, {"b": 2}]), ("rows", "['b']")
    yield "provenance: None", call(provenance=None), ("provenance", "None")
    yield "path: not a .csv", call(path=folder() / "t.txt"), (".csv", "t.txt")
    yield "path: None", call(path=None), ("path", "None")
    yield "path: exists", lambda: C.save_table(saved_table(), [{"a": 1}], provenance={}), ("t.csv", "overwrite")


@cases("dl4nlp.checkpoint.load_table")
def _():
    def no_rows():
        path = saved_table()
        path.write_text("a,b\n")
        return C.load_table(path, verify=False)

    def edited():
        path = saved_table()
        path.write_text("a,b\n1,3\n")
        return C.load_table(path)

    yield "path: missing", lambda: C.load_table(folder() / "missing.csv"), ("path", "missing.csv")
    yield "path: a folder", lambda: C.load_table(folder()), ("path", "folder")
    yield "path: None", lambda: C.load_table(None), ("path", "None")
    yield "path: a header and no rows", no_rows, ("t.csv", "no rows")
    yield "path: edited after saving", edited, ("t.csv", "SHA-256")
    yield "verify: a string", lambda: C.load_table(saved_table(), verify="no"), ("verify", "'no'")
