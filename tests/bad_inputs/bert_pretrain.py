"""Bad inputs of dl4nlp.bert_pretrain (entry points only: its training command is a recipe)."""

import functools
import random

import torch

from bad_inputs.harness import cases, exempt, int_variants, prob_variants, scratch, vary
from dl4nlp import bert_pretrain as P

TEXT = "\n".join(
    f"The cat {w} sat. It was {w}. The dog ran {w}."
    for w in ("red", "blue", "old", "new", "big", "small", "wet", "dry")
)

exempt(
    "the command line (argparse reports bad arguments); a recipe moving to dl4nlp.recipes", "dl4nlp.bert_pretrain.main"
)


@functools.cache
def data() -> P.PretrainingData:
    return P.PretrainingData(TEXT, vocab_size=40, held_out=0.25)


@functools.cache
def model():
    torch.manual_seed(0)
    return P.make_model(len(data().vocab), d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=16)


@cases("dl4nlp.bert_pretrain.PretrainingData")
def _():
    good = dict(text=TEXT, vocab_size=40, held_out=0.25)
    yield from vary(
        P.PretrainingData,
        good,
        "text",
        [
            ("a list of lines", TEXT.splitlines(), "list"),
            ("empty", "", "''"),
            ("one sentence per paragraph", "One. \nTwo. \nThree.", "min_sentences"),
        ],
    )
    yield from vary(P.PretrainingData, good, "vocab_size", int_variants(6) + [("no room for words", 5, "5")])
    yield from vary(P.PretrainingData, good, "held_out", prob_variants(allow_zero=False, allow_one=False))
    yield from vary(P.PretrainingData, good, "min_sentences", [("1", 1, "1"), ("0", 0, "0"), ("a float", 2.5, "2.5")])


@cases("dl4nlp.bert_pretrain.PretrainingData.pairs")
def _():
    good = dict(n=4, rng=random.Random(0), split="train", max_len=16)
    yield from vary(data().pairs, good, "n", int_variants(1))
    yield from vary(
        data().pairs,
        good,
        "rng",
        [("a seed, not a Random", 0, "int"), ("a torch.Generator", torch.Generator(), "Generator")],
    )
    yield from vary(data().pairs, good, "split", [("an unknown split", "test", "'test'"), ("None", None, "None")])
    yield from vary(data().pairs, good, "max_len", int_variants(5) + [("too short for [CLS] a [SEP] b [SEP]", 4, "4")])


@cases("dl4nlp.bert_pretrain.PretrainingData.batch")
def _():
    pairs = data().pairs(3, random.Random(0), max_len=16)
    good = dict(pairs=pairs)
    yield from vary(
        data().batch,
        good,
        "pairs",
        [
            ("empty", [], "[]"),
            ("one pair, not a list of pairs", pairs[0], "tuple"),
            ("a word id beyond the vocabulary", [([1000], [6], 1)], "1000"),
            ("words, not ids", [(["the", "cat"], ["sat"], 1)], "'the'"),
            ("an is_next of 2", [([6], [7], 2)], "2"),
        ],
    )
    yield from vary(data().batch, good, "mask_prob", prob_variants())
    yield from vary(data().batch, good, "generator", [("a seed, not a Generator", 0, "int")])


@cases("dl4nlp.bert_pretrain.make_model")
def _():
    yield from vary(P.make_model, dict(vocab_size=40), "vocab_size", int_variants(6))
    yield "overrides: an unknown field", lambda: P.make_model(40, hidden=8), ("hidden",)


@cases("dl4nlp.bert_pretrain.pretrain")
def _():
    good = dict(model=model(), data=data(), steps=1, batch_size=2, progress=False)
    yield from vary(P.pretrain, good, "steps", int_variants(1))
    yield from vary(P.pretrain, good, "batch_size", int_variants(1)[:3])
    yield from vary(P.pretrain, good, "warmup", [("0", 0, "0"), ("-1", -1, "-1")])
    yield from vary(
        P.pretrain, good, "lr", [("0", 0.0, "0.0"), ("negative", -0.1, "-0.1"), ("NaN", float("nan"), "nan")]
    )
    yield from vary(P.pretrain, good, "mask_prob", prob_variants(allow_zero=False))
    yield from vary(P.pretrain, good, "model", [("a string", "bert", "str")])
    yield from vary(P.pretrain, good, "data", [("a string", TEXT, "str")])


@cases("dl4nlp.bert_pretrain.evaluate")
def _():
    good = dict(model=model(), data=data(), n_pairs=4, batch_size=2)
    yield from vary(P.evaluate, good, "n_pairs", int_variants(1)[:3])
    yield from vary(P.evaluate, good, "batch_size", int_variants(1)[:3])
    yield from vary(P.evaluate, good, "mask_prob", prob_variants(allow_zero=False))
    yield from vary(P.evaluate, good, "model", [("a string", "bert", "str")])


@cases("dl4nlp.bert_pretrain.save_checkpoint")
def _():
    folder = scratch()
    good = dict(path=folder / "m.pt", model=model(), vocab=data().vocab)
    yield from vary(P.save_checkpoint, good, "model", [("a string", "bert", "str")])
    yield from vary(P.save_checkpoint, good, "vocab", [("a list of words", ["the", "cat"], "list")])
    yield from vary(
        P.save_checkpoint, good, "path", [("in a folder that does not exist", folder / "no" / "m.pt", "no")]
    )


@cases("dl4nlp.bert_pretrain.load_checkpoint")
def _():
    folder = scratch()
    empty = folder / "empty.pt"
    empty.write_bytes(b"")
    other = folder / "other.pt"
    torch.save({"weights": torch.ones(2)}, other)
    yield "path: missing", lambda: P.load_checkpoint(folder / "missing.pt"), ("missing.pt",)
    yield "path: an empty file", lambda: P.load_checkpoint(empty), ("empty.pt", "empty")
    yield "path: a checkpoint of something else", lambda: P.load_checkpoint(other), ("other.pt", "config")
