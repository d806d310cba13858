"""Bad inputs of dl4nlp.bert_pretrain and of the loaders and helpers around notebook 13's BERT."""

import functools
import random

import torch

from bad_inputs.harness import cases, exempt, int_variants, prob_variants, scratch, vary
from dl4nlp import bert as B
from dl4nlp import bert_pretrain as P
from dl4nlp.wordpiece import WordPiece

SENTENCES = [f"Tom had a red ball number {i}. He threw the ball to Sue. Sue caught it. They played." for i in range(8)]
DOCUMENTS = [[s + "." for s in text.split(". ")] for text in SENTENCES]

exempt("takes no arguments (everything a resumed run needs)", "dl4nlp.bert_pretrain.Pretrainer.state_dict")


@functools.cache
def tokenizer() -> WordPiece:
    return WordPiece.train([" ".join(d) for d in DOCUMENTS], vocab_size=60)


@functools.cache
def data() -> P.PretrainingData:
    return P.PretrainingData({"train": DOCUMENTS[:6], "held_out": DOCUMENTS[6:]}, tokenizer())


def model() -> B.Bert:
    torch.manual_seed(0)
    return P.make_model(len(tokenizer()), d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=24)


@cases("dl4nlp.bert_pretrain.make_model")
def _():
    yield from vary(P.make_model, dict(vocab_size=40), "vocab_size", [("0", 0, "0"), ("a float", 2.5, "2.5")])
    yield "overrides: an unknown field", lambda: P.make_model(40, hidden=8), ("hidden",)


@cases("dl4nlp.bert_pretrain.PretrainingData")
def _():
    good = dict(splits={"train": DOCUMENTS[:6]}, tokenizer=tokenizer())
    yield from vary(
        P.PretrainingData,
        good,
        "splits",
        [
            ("no train split", {"held_out": DOCUMENTS}, "'held_out'"),
            ("a list", DOCUMENTS, "list"),
            ("documents as strings", {"train": ["one. two."] * 4}, "str"),
            ("one document", {"train": DOCUMENTS[:1]}, ("at least 2", "'train'")),
            ("sentences as ints", {"train": [[1, 2]] * 4}, "int"),
        ],
    )
    yield from vary(P.PretrainingData, good, "tokenizer", [("a dict", {"[CLS]": 2}, "dict"), ("None", None, "None")])
    yield from vary(P.PretrainingData, good, "min_sentences", int_variants(2))


@cases("dl4nlp.bert_pretrain.PretrainingData.pairs")
def _():
    good = dict(n=4, rng=random.Random(0))
    yield from vary(data().pairs, good, "n", int_variants(1))
    yield from vary(data().pairs, good, "rng", [("an int seed", 0, "int"), ("None", None, "None")])
    yield from vary(data().pairs, good, "split", [("an unknown split", "test", ("'test'", "train"))])
    yield from vary(data().pairs, good, "max_len", int_variants(5))


@cases("dl4nlp.bert_pretrain.PretrainingData.batch")
def _():
    pairs = data().pairs(2, random.Random(0), max_len=24)
    n = len(tokenizer())
    good = dict(pairs=pairs)
    yield from vary(
        data().batch,
        good,
        "pairs",
        [
            ("empty", [], "[]"),
            ("a pair without is_next", [pairs[0][:2]], "tuple"),
            ("is_next 2", [(pairs[0][0], pairs[0][1], 2)], "2"),
            ("an id beyond the vocabulary", [(pairs[0][0] + [n], pairs[0][1], 1)], str(n)),
            ("token strings", [(["tom"], ["sue"], 1)], "'tom'"),
        ],
    )
    yield from vary(data().batch, good, "generator", [("an int seed", 0, "int")])
    yield from vary(data().batch, good, "mask_prob", prob_variants())


def pretrainer_variants():
    return [
        ("model", [("a linear layer", torch.nn.Linear(2, 2), "Linear"), ("None", None, "None")]),
        ("data", [("a dict of documents", {"train": DOCUMENTS}, "dict")]),
        ("steps", int_variants(1)),
        ("batch_size", int_variants(1)),
        ("warmup", int_variants(1)),
        ("lr", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "2e-3", "'2e-3'")]),
        ("seed", [("a string", "0", "'0'"), ("negative", -1, "-1")]),
        ("mask_prob", prob_variants(allow_zero=False)),
        ("nsp_weight", [("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")]),
        ("device", [("an unknown device", "gpu7", "'gpu7'"), ("an int", 3.5, "3.5")]),
    ]


@cases("dl4nlp.bert_pretrain.Pretrainer")
def _():
    for name, variants in pretrainer_variants():
        for label, value, mention in variants:
            change = {name: value}
            yield (
                f"{name}: {label}",
                lambda change=change: P.Pretrainer(**{**dict(model=model(), data=data(), steps=2), **change}),
                (name, mention),
            )
    small = P.make_model(10, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=24)
    yield (
        "model: a vocabulary smaller than the data's",
        lambda: P.Pretrainer(small, data(), steps=1),
        ("vocab_size", "10"),
    )


@cases("dl4nlp.bert_pretrain.pretrain")
def _():
    for name, variants in pretrainer_variants():
        for label, value, mention in variants[:2]:
            change = {name: value}
            yield (
                f"{name}: {label}",
                lambda change=change: P.pretrain(
                    **{**dict(model=model(), data=data(), steps=2, progress=False), **change}
                ),
                (name, mention),
            )


@cases("dl4nlp.bert_pretrain.Pretrainer.run")
def _():
    def trainer():
        return P.Pretrainer(model(), data(), steps=2, batch_size=2, warmup=1)

    for label, value, mention in [("-1", -1, "-1"), ("a float", 1.5, "1.5"), ("a string", "1", "'1'")]:
        yield f"n: {label}", lambda value=value: trainer().run(value, progress=False), ("n", mention)
    yield "progress: a string", lambda: trainer().run(1, progress="no"), ("progress", "'no'")
    yield "desc: None", lambda: trainer().run(1, progress=False, desc=None), ("desc", "None")


@cases("dl4nlp.bert_pretrain.Pretrainer.load_state_dict")
def _():
    def trainer():
        return P.Pretrainer(model(), data(), steps=2, batch_size=2, warmup=1)

    yield "state: a model's state_dict", lambda: trainer().load_state_dict(model().state_dict()), ("state", "optimizer")
    yield "state: None", lambda: trainer().load_state_dict(None), ("state", "model")
    yield (
        "state: no history",
        lambda: trainer().load_state_dict({k: v for k, v in trainer().state_dict().items() if k != "history"}),
        ("state", "history"),
    )


@cases("dl4nlp.bert_pretrain.evaluate")
def _():
    good = dict(model=model(), data=data(), n_pairs=4, batch_size=2)
    yield from vary(P.evaluate, good, "model", [("a linear layer", torch.nn.Linear(2, 2), "Linear")])
    yield from vary(P.evaluate, good, "data", [("None", None, "None")])
    yield from vary(P.evaluate, good, "n_pairs", int_variants(1))
    yield from vary(P.evaluate, good, "batch_size", int_variants(1))
    yield from vary(P.evaluate, good, "seed", [("a string", "0", "'0'")])
    yield from vary(P.evaluate, good, "mask_prob", prob_variants(allow_zero=False))
    yield from vary(P.evaluate, good, "split", [("an unknown split", "test", ("'test'", "held_out"))])


# --- dl4nlp.bert: the helpers and the loader -----------------------------------------------
@cases("dl4nlp.bert.binomial_interval")
def _():
    good = dict(trials=100, p=0.15)
    yield from vary(B.binomial_interval, good, "trials", int_variants(0))
    yield from vary(B.binomial_interval, good, "p", prob_variants())
    yield from vary(
        B.binomial_interval, good, "z", [("zero", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "4", "'4'")]
    )


@cases("dl4nlp.bert.checkpoint_state")
def _():
    yield "model: a linear layer", lambda: B.checkpoint_state(torch.nn.Linear(2, 2)), ("model", "Linear")
    yield "model: None", lambda: B.checkpoint_state(None), ("model", "None")


@cases("dl4nlp.bert.load_pretrained")
def _():
    def empty():
        path = scratch() / "empty.pt"
        path.write_bytes(b"")
        return B.load_pretrained(path)

    yield "path: a missing file", lambda: B.load_pretrained(scratch() / "missing.pt"), ("path", "missing.pt")
    yield "path: a folder", lambda: B.load_pretrained(scratch()), ("path", "folder")
    yield "path: an int", lambda: B.load_pretrained(3), ("path", "int")
    yield "path: an empty file", empty, ("empty.pt", "empty")
    yield "device: an unknown device", lambda: B.load_pretrained(device="gpu7"), ("device", "'gpu7'")
