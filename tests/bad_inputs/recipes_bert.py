"""Bad inputs of the recipes of notebook 13 (tiny_bert, bert_learning_curve, bert_mask_sweep) and the sweep helpers.

Every case fails before any training starts.
"""

import argparse
import json

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, scratch, vary
from dl4nlp import recipes
from dl4nlp.recipes import bert_learning_curve as LC
from dl4nlp.recipes import bert_mask_sweep as MS
from dl4nlp.recipes import tiny_bert as TB

exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.tiny_bert.main",
    "dl4nlp.recipes.bert_learning_curve.main",
    "dl4nlp.recipes.bert_mask_sweep.main",
)
exempt(
    "takes no arguments (the recipe's argument parser)",
    "dl4nlp.recipes.tiny_bert.parser",
    "dl4nlp.recipes.bert_learning_curve.parser",
    "dl4nlp.recipes.bert_mask_sweep.parser",
)
exempt(
    "takes no arguments (the fixed test sentences of the tagging task)",
    "dl4nlp.recipes.bert_learning_curve.tag_test_set",
)


def tb_args(**change):
    return TB.parser().parse_args(["--out", "x.pt", *change.pop("argv", [])])


def ms_args():
    return MS.parser().parse_args(["--out", "x.csv"])


@cases("dl4nlp.recipes.tiny_bert.prepare")
def _():
    yield "args: None", lambda: TB.prepare(None), ("args", "None")
    yield "args: without vocab_size", lambda: TB.prepare(argparse.Namespace(seed=0)), ("args", "vocab_size")
    yield "args: vocab_size 0", lambda: TB.prepare(argparse.Namespace(vocab_size=0)), ("vocab_size", "0")


@cases("dl4nlp.recipes.tiny_bert.build")
def _():
    from bad_inputs.bert_pretrain import data

    good = dict(args=tb_args(), vocab_size=len(data().vocab), device=torch.device("cpu"), data=data())
    yield from vary(
        TB.build, good, "args", [("None", None, "None"), ("a bare Namespace", argparse.Namespace(), "seed")]
    )
    yield from vary(TB.build, good, "vocab_size", int_variants(1))
    yield from vary(TB.build, good, "device", [("an unknown device", "gpu7", "'gpu7'")])
    yield from vary(TB.build, good, "data", [("None", None, "None"), ("documents", {"train": []}, "dict")])


@cases("dl4nlp.recipes.bert_mask_sweep.run")
def _():
    from bad_inputs.bert_pretrain import data

    good = dict(
        args=ms_args(), data=data(), vocab_size=len(data().vocab), rate=0.15, seed=0, device=torch.device("cpu")
    )
    yield from vary(
        MS.run, good, "args", [("None", None, "None"), ("a bare Namespace", argparse.Namespace(), "d_model")]
    )
    yield from vary(MS.run, good, "data", [("None", None, "None")])
    yield from vary(MS.run, good, "vocab_size", int_variants(1))
    yield from vary(
        MS.run, good, "rate", [("zero", 0.0, "0.0"), ("above one", 1.5, "1.5"), ("a string", "0.15", "'0.15'")]
    )
    yield from vary(MS.run, good, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])
    yield from vary(MS.run, good, "device", [("None", None, "None")])


@cases("dl4nlp.recipes.bert_mask_sweep.build")
def _():
    from bad_inputs.bert_pretrain import data

    good = dict(
        args=ms_args(), data=data(), vocab_size=len(data().vocab), rate=0.15, seed=0, device=torch.device("cpu")
    )
    yield from vary(MS.build, good, "args", [("a bare Namespace", argparse.Namespace(), "d_model")])
    yield from vary(MS.build, good, "data", [("a list of pairs", [["a", "b"]], "list")])
    yield from vary(MS.build, good, "rate", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan")])


@cases("dl4nlp.recipes.bert_mask_sweep.recorded_steps")
def _():
    yield from vary(MS.recorded_steps, {}, "steps", int_variants(1))


@cases("dl4nlp.recipes.bert_learning_curve.steps_for")
def _():
    yield from vary(LC.steps_for, {"steps": 96}, "budget", int_variants(1))
    yield from vary(LC.steps_for, {"budget": 64}, "steps", int_variants(1))


@cases("dl4nlp.recipes.bert_learning_curve.grid")
def _():
    yield from vary(LC.grid, {}, "method", choice_variants(("pretrained", "scratch", "probe", "bag_of_words")))


@cases("dl4nlp.recipes.bert_learning_curve.next_setting")
def _():
    good = dict(value=1e-4, up=True)
    bad = [("zero", 0.0, "0.0"), ("off the ladder", 2e-4, "0.0002"), ("a string", "1e-4", "'1e-4'")]
    yield from vary(LC.next_setting, good, "value", bad)
    yield from vary(LC.next_setting, good, "up", [("a string", "yes", "str")])


@cases("dl4nlp.recipes.bert_learning_curve.grow")
def _():
    good = dict(grid=[1e-4, 3e-4], up=True)
    bad = [("decreasing", [3e-4, 1e-4], "0.0003"), ("a number", 1e-4, "float")]
    yield from vary(LC.grow, good, "grid", bad)
    yield from vary(LC.grow, good, "up", [("a string", "yes", "str")])


@cases("dl4nlp.recipes.bert_learning_curve.best_setting")
def _():
    bad = [("one setting", {1e-4: 0.5}, "0.0001"), ("a list", [0.5, 0.6], "list")]
    yield from vary(LC.best_setting, {}, "means", bad)


@cases("dl4nlp.recipes.comma_ints")
def _():
    """A command-line list's errors name the option (what the user typed), not the parameter ``text``."""
    for what, text, shown in [("a word", "100,abc", "'100,abc'"), ("empty", "", "''"), ("a zero", "0,100", "0")]:
        yield f"text: {what}", lambda text=text: recipes.comma_ints("--budgets", text), ("--budgets", shown)
    yield "text: a list", lambda: recipes.comma_ints("--budgets", [100]), ("--budgets", "list")
    yield "option: empty", lambda: recipes.comma_ints("", "100"), ("option", "''")
    yield "low: a string", lambda: recipes.comma_ints("--budgets", "100", low="1"), ("low", "'1'")


@cases("dl4nlp.recipes.comma_floats")
def _():
    for what, text, shown in [("a word", "0.1,abc", "'0.1,abc'"), ("zero", "0", "0.0"), ("above high", "1.5", "1.5"),
                              ("NaN", "nan", "nan")]:  # fmt: skip
        yield f"text: {what}", lambda text=text: recipes.comma_floats("--rates", text, 0, 1), ("--rates", shown)


@cases("dl4nlp.recipes.resume_rows")
def _():
    def state(text):
        path = scratch() / "state.json"
        path.write_text(text)
        return path

    good = dict(state_path=scratch() / "missing.json", spec={"a": 1})
    yield from vary(recipes.resume_rows, good, "state_path", [("None", None, "None"), ("an int", 3, "int")])
    yield from vary(recipes.resume_rows, good, "spec", [("a list", [1], "list"), ("None", None, "None")])
    yield "state_path: not JSON", lambda: recipes.resume_rows(state("{oops"), {}), ("state_path", "state.json")
    yield (
        "state_path: JSON of another shape",
        lambda: recipes.resume_rows(state("[1, 2]"), {}),
        ("state_path", "state.json"),
    )
    yield (
        "spec: another sweep's",
        lambda: recipes.resume_rows(state(json.dumps({"spec": {"a": 2}, "rows": [], "elapsed": 0})), {"a": 1}),
        ("state.json", "{'a': 1}"),
    )


@cases("dl4nlp.recipes.save_rows")
def _():
    def good():
        return dict(state_path=scratch() / "state.json", spec={"a": 1}, rows=[[1, 2]], elapsed=1.0)

    def call(**change):
        return lambda: recipes.save_rows(**{**good(), **change})

    yield "state_path: None", call(state_path=None), ("state_path", "None")
    yield "spec: a list", call(spec=[1]), ("spec", "list")
    yield "rows: a string", call(rows="rows"), ("rows", "str")
    yield "rows: a tensor, not JSON", call(rows=[torch.ones(2)]), ("rows", "Tensor")
    yield "elapsed: negative", call(elapsed=-1.0), ("elapsed", "-1.0")
    yield "elapsed: NaN", call(elapsed=float("nan")), ("elapsed", "nan")


@cases("dl4nlp.recipes.load_state")
def _():
    def state(content: bytes, name: str = "run.state.pt"):
        path = scratch() / name
        path.write_bytes(content)
        return path

    def saved(obj):
        path = scratch() / "run.state.pt"
        torch.save(obj, path)
        return path

    yield from vary(recipes.load_state, {}, "state_path", [("None", None, "None"), ("an int", 3, "int")])
    yield "state_path: missing", lambda: recipes.load_state(scratch() / "gone.pt"), ("state_path", "gone.pt")
    yield "state_path: a folder", lambda: recipes.load_state(scratch()), ("state_path", "folder")
    yield "state_path: empty (0 bytes)", lambda: recipes.load_state(state(b"")), ("run.state.pt", "--resume")
    yield "state_path: not a torch file", lambda: recipes.load_state(state(b"junk")), ("run.state.pt", "--resume")
    yield (
        "state_path: a tensor, not a dict",
        lambda: recipes.load_state(saved(torch.ones(2))),
        ("run.state.pt", "Tensor"),
    )


@cases("dl4nlp.recipes.parallel_map")
def _():
    good = dict(function=abs, items=[1, -2])
    yield from vary(recipes.parallel_map, good, "function", [("a string", "abs", "'abs'"), ("None", None, "None")])
    yield from vary(recipes.parallel_map, good, "items", [("a string", "ab", "str"), ("None", None, "None")])
    yield from vary(recipes.parallel_map, good, "jobs", int_variants(1))


@cases("dl4nlp.recipes.table_provenance")
def _():
    args = argparse.Namespace(out="x.json", seed=0, threads=1, device="cpu")

    def call(**change):
        good = dict(name="rnn_seed_sweep", argv=[], args=args, device=torch.device("cpu"), started=0.0, elapsed=0.0)
        return lambda: recipes.table_provenance(**{**good, **change})

    yield "args: a dict", call(args={"seed": 0}), ("args", "dict")
    yield "elapsed: negative", call(elapsed=-1.0), ("elapsed", "-1.0")
    yield "argv: a string", call(argv="--seeds 3"), ("argv", "str")
    yield "corpora: unknown", call(corpora=["missing.txt"]), ("corpora", "missing.txt")


@cases("dl4nlp.recipes.write_table")
def _():
    where = scratch()
    yield "out: None", lambda: recipes.write_table(None, {}, where / "p.partial"), ("out", "None")
    yield "partial: a number", lambda: recipes.write_table(where / "t.json", {}, 3), ("partial", "int")
    nan = {"loss": float("nan")}
    yield "record: NaN (not JSON)", lambda: recipes.write_table(where / "t.json", nan, where / "p"), ("obj", "nan")
