"""Bad inputs of dl4nlp.experiments.bert (chapter 13). Every case fails before any model is loaded."""

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, vary
from dl4nlp.checkpoint import save_table
from dl4nlp.experiments import bert as E

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.bert.FewLabels",
    "dl4nlp.experiments.bert.LessContext",
)

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'"), ("None", None, "None")]
CURVE = [
    dict(task="classification", budget=32, seed=s, method=m, steps=50, accuracy=0.5 + 0.1 * (m == "pretrained"))
    for s in (0, 1)
    for m in ("pretrained", "scratch")
]
SWEEP = [dict(rate=r, seed=s, accuracy_at_15=0.1 + r / 10) for r in (0.15, 0.5) for s in (0, 1)]


def other_table():
    path = scratch() / "other.csv"
    save_table(path, [{"a": 1}], provenance={"command": "x"})
    return path


@cases("dl4nlp.experiments.bert.few_labels")
def _():
    yield from vary(E.few_labels, {}, "seed", SEEDS)
    yield from vary(E.few_labels, dict(seed=0), "budget", [("not a multiple of 4", 30, "30"), *int_variants(4)])
    yield from vary(E.few_labels, dict(seed=0), "test_per_cell", int_variants(1))
    yield from vary(
        E.few_labels,
        dict(seed=0),
        "methods",
        [("an unknown method", ["pretrained"], "pretrained"), ("empty", [], "empty"), ("a string", "probe", "str")],
    )


@cases("dl4nlp.experiments.bert.less_context")
def _():
    yield from vary(E.less_context, {}, "seed", SEEDS)
    yield from vary(
        E.less_context,
        dict(seed=0),
        "rates",
        [("zero", (0.0, 0.5), "0.0"), ("above one", (1.5,), "1.5"), ("empty", (), "()"), ("one number", 0.5, "float")],
    )
    yield from vary(E.less_context, dict(seed=0), "n_pairs", int_variants(1))


for _loader in (E.chosen_settings, E.load_learning_curve, E.load_mask_sweep):

    @cases(f"dl4nlp.experiments.bert.{_loader.__name__}")
    def _(loader=_loader):
        yield "path: missing", lambda: loader(str(scratch() / "missing.csv")), ("path", "missing.csv")
        yield "path: a folder", lambda: loader(scratch()), ("path", "folder")
        yield "path: an int", lambda: loader(3), ("path", "int")
        yield "path: a table of other columns", lambda: loader(other_table()), ("other.csv", "path")


@cases("dl4nlp.experiments.bert.curve_summary")
def _():
    yield from vary(
        E.curve_summary, dict(rows=CURVE), "task", [("an unknown task", "tagging", ("'tagging'", "classification"))]
    )
    yield from vary(
        E.curve_summary,
        dict(rows=CURVE),
        "rows",
        [
            ("empty", [], "[]"),
            ("lists", [[1, 2]], "list"),
            ("rows without accuracy", [{"task": "classification"}], "accuracy"),
        ],
    )


@cases("dl4nlp.experiments.bert.gains_by_seed")
def _():
    good = dict(rows=CURVE, budget=32)
    yield from vary(E.gains_by_seed, good, "budget", [("absent", 64, "64"), ("a string", "32", "'32'"), ("0", 0, "0")])
    yield from vary(E.gains_by_seed, good, "method", [("an unknown method", "svm", "'svm'"), ("None", None, "None")])
    yield from vary(E.gains_by_seed, good, "task", [("an unknown task", "tagging", "'tagging'")])
    yield from vary(E.gains_by_seed, good, "rows", [("no scratch rows", CURVE[::2], "scratch"), ("None", None, "None")])


for _fn in (E.sweep_by_seed, E.sweep_summary):

    @cases(f"dl4nlp.experiments.bert.{_fn.__name__}")
    def _(fn=_fn):
        yield from vary(fn, dict(rows=SWEEP), "column", [("an unknown column", "bogus", ("'bogus'", "accuracy_at_15"))])
        yield from vary(
            fn,
            dict(rows=SWEEP),
            "rows",
            [
                ("empty", [], "[]"),
                ("rows without a rate", [{"seed": 0, "accuracy_at_15": 0.1}], "rate"),
                ("a dict", SWEEP[0], "dict"),
            ],
        )


@cases("dl4nlp.experiments.bert.curve_steps")
def _():
    yield from vary(E.curve_steps, {}, "budget", int_variants(1))


def _masking_good():
    from dl4nlp.wordpiece import WordPiece

    tokenizer = WordPiece(["a", "b", "##c"])
    ids = torch.tensor([[tokenizer["[CLS]"], tokenizer["a"], tokenizer["b"], tokenizer["[SEP]"]]])
    return dict(mask_prob=0.15, mask_token_prob=0.8, random_share_of_rest=0.5, ids=ids, tokenizer=tokenizer)


@cases("dl4nlp.experiments.bert.draw_masking")
def _():
    good = _masking_good()
    yield from vary(E.draw_masking, good, "mask_prob", [("above one", 1.5, "1.5"), ("a string", "0.1", "'0.1'")])
    yield from vary(E.draw_masking, good, "mask_token_prob", [("negative", -0.1, "-0.1")])
    yield from vary(E.draw_masking, good, "random_share_of_rest", [("above one", 2.0, "2.0")])
    yield from vary(E.draw_masking, good, "tokenizer", [("a string", "bert", "str")])
    yield from vary(
        E.draw_masking, good, "ids", [("floats", good["ids"].float(), "float32"), ("one row", good["ids"][0], "(4,)")]
    )


CURVE_SUMMARY = {"probe": {32: (0.75, 0.01, 3, [])}, "scratch": {32: (0.6, 0.02, 3, [])}}
BAD_CURVES = [
    ("a list", [1, 2], "list"),
    ("empty", {}, "dict"),
    ("a method without (mean, sd, n)", {"probe": {32: 0.75}}, "'probe'"),
]

for _fn in (E.curve_table, E.plot_learning_curve):

    @cases(f"dl4nlp.experiments.bert.{_fn.__name__}")
    def _(fn=_fn):
        yield from vary(fn, dict(curve=CURVE_SUMMARY), "curve", BAD_CURVES)


@cases("dl4nlp.experiments.bert.plot_learning_curve")
def _():
    yield from vary(E.plot_learning_curve, dict(curve=CURVE_SUMMARY), "test_sentences", int_variants(1))


@cases("dl4nlp.experiments.bert.compare_with_paper")
def _():
    record = {"arguments": dict(steps=10, batch_size=2, max_len=8, lr=0.1, warmup=1), "results": {"training_tokens": 1}}
    yield from vary(
        E.compare_with_paper,
        dict(record=record),
        "record",
        [
            ("a string", "tiny_bert.json", "str"),
            ("empty", {}, "arguments"),
            ("no steps", {**record, "arguments": {"lr": 0.1}}, "arguments.steps"),
            ("no training tokens", {**record, "results": {}}, "results.training_tokens"),
        ],
    )


@cases("dl4nlp.experiments.bert.plot_masking_rates")
def _():
    context = E.LessContext(rates=(0.15, 1.0), accuracy=(0.3, 0.1), unigram=(0.05, 0.05), targets=(10, 60))
    good = dict(context=context, by_seed={0: {0.15: 0.2}}, unigram=0.05)
    yield from vary(E.plot_masking_rates, good, "context", [("None", None, "None"), ("a dict", {}, "dict")])
    yield from vary(
        E.plot_masking_rates, good, "by_seed", [("a list", [0.2], "list"), ("rates not a dict", {0: 1}, "dict")]
    )
    yield from vary(E.plot_masking_rates, good, "unigram", [("above one", 2.0, "2.0"), ("a string", "x", "'x'")])


@cases("dl4nlp.experiments.bert.masking_drawer")
def _():
    good = _masking_good()
    good = {"ids": good["ids"], "tokenizer": good["tokenizer"]}
    yield from vary(E.masking_drawer, good, "tokenizer", [("a string", "bert", "str")])
    yield from vary(
        E.masking_drawer, good, "ids", [("floats", good["ids"].float(), "float32"), ("one row", good["ids"][0], "(4,)")]
    )


exempt("takes no arguments (the shipped EWT files, split once)", "dl4nlp.experiments.bert.pos_sets")
POS_SENTENCES = [(["The", "dog"], [5, 7])]


@cases("dl4nlp.experiments.bert.pos_scores")
def _():
    good = dict(seed=0, budget=32, learning_rates={"pretrained": 1e-3})
    yield from vary(E.pos_scores, good, "seed", SEEDS)
    yield from vary(E.pos_scores, good, "budget", [("more than the dev file", 2002, "2002"), *int_variants(1)])
    yield from vary(
        E.pos_scores,
        good,
        "learning_rates",
        [
            ("a list", [1e-3], "list"),
            ("an unknown method", {"probe": 1e-3}, "probe"),
            ("a zero rate", {"scratch": 0.0}, "0"),
        ],
    )
    yield from vary(E.pos_scores, good, "scored", [("train", "train", "'train'")])
    yield from vary(E.pos_scores, good, "steps", int_variants(1))
    yield from vary(E.pos_scores, good, "n_scored", [("zero", 0, "0")])


@cases("dl4nlp.experiments.bert.pos_live")
def _():
    yield from vary(E.pos_live, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.bert.pos_steps")
def _():
    yield from vary(E.pos_steps, {}, "budget", int_variants(1))


@cases("dl4nlp.experiments.bert.majority_accuracy")
def _():
    good = dict(train=POS_SENTENCES, test=POS_SENTENCES)
    yield from vary(E.majority_accuracy, good, "train", [("empty", [], "[]"), ("a string", "the dog", "str")])
    yield from vary(E.majority_accuracy, good, "test", [("empty", [], "empty"), ("None", None, "None")])


@cases("dl4nlp.experiments.bert.load_pos_curve")
def _():
    yield from vary(E.load_pos_curve, {}, "path", [("missing", "/nonexistent/x.csv", "x.csv")])
    yield "path: another table", lambda: E.load_pos_curve(other_table()), ("path", "lacks")


@cases("dl4nlp.experiments.bert.pos_chosen")
def _():
    yield from vary(E.pos_chosen, {}, "path", [("missing", "/nonexistent/x.csv", "x.csv")])


@cases("dl4nlp.experiments.bert.plot_pos_curve")
def _():
    good = dict(curve={"majority": {32: (0.6, 0.0, 1, [0.6])}})
    yield from vary(E.plot_pos_curve, good, "curve", [("empty", {}, "{}"), ("a list", [1], "list")])
    yield from vary(E.plot_pos_curve, good, "test_sentences", int_variants(1))
