"""Bad inputs of dl4nlp.date_task (its training command is a recipe: entry points only)."""

import datetime as dt
import functools
import random

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp import date_task as T
from dl4nlp.seq2seq import Seq2Seq

DATE = dt.date(1998, 3, 3)
PAIRS = [("3 may 2020", "2020-05-03"), ("4 june 1999", "1999-06-04")]

exempt("a record of what a test set shares with a training set, made by overlap", "dl4nlp.date_task.Overlap")


@functools.cache
def model() -> Seq2Seq:
    torch.manual_seed(0)
    return Seq2Seq(len(T.SOURCE_VOCAB), len(T.TARGET_VOCAB), d_embed=4, d_hidden=8).eval()


@cases("dl4nlp.date_task.attention_weights")
def _():
    good = dict(model=model(), source="3 may 2020", target="2020-05-03")
    yield from vary(T.attention_weights, good, "model", [("a string", "dot", "str")])
    yield from vary(T.attention_weights, good, "source", [("a list of strings", ["3 may 2020"], "list")])
    yield from vary(T.attention_weights, good, "target", [("None", None, "NoneType")])
    yield from vary(T.attention_weights, good, "source", [("an unknown character", "3 May 2020", ("source", "'M'"))])
    no_attention = Seq2Seq(len(T.SOURCE_VOCAB), len(T.TARGET_VOCAB), d_embed=4, d_hidden=8, score=None)
    yield from vary(T.attention_weights, good, "model", [("without attention", no_attention, "score=None")])


@cases("dl4nlp.date_task.ordinal_word")
def _():
    yield from vary(T.ordinal_word, {}, "day", int_variants(1) + [("32", 32, "32")])


@cases("dl4nlp.date_task.ordinal_suffix")
def _():
    yield from vary(T.ordinal_suffix, {}, "day", int_variants(1) + [("32", 32, "32")])


@cases("dl4nlp.date_task.format_date")
def _():
    good = dict(date=DATE, fmt="d month yyyy")
    yield from vary(T.format_date, good, "fmt", choice_variants(T.FORMATS))
    yield from vary(T.format_date, good, "date", [("a string", "1998-03-03", "str"), ("None", None, "None")])


@cases("dl4nlp.date_task.field_spans")
def _():
    good = dict(date=DATE, fmt="d month yyyy")
    yield from vary(T.field_spans, good, "fmt", choice_variants(T.FORMATS))
    yield from vary(T.field_spans, good, "date", [("a string", "1998-03-03", "str"), ("an int", 1998, "int")])


@cases("dl4nlp.date_task.encode_batch")
def _():
    yield from vary(
        T.encode_batch,
        {},
        "pairs",
        [
            ("empty", [], "[]"),
            ("one pair, not a list of pairs", PAIRS[0], "tuple"),
            ("a string", "3 may 2020", "str"),
            ("a pair with a number", [("3 may 2020", 20200503)], "int"),
            ("triples", [("3 may", "2020-05-03", "x")], "3"),
        ],
    )
    yield "source_vocab: a string", lambda: T.encode_batch(PAIRS, source_vocab="abc"), ("source_vocab", "str")


@cases("dl4nlp.date_task.random_date")
def _():
    rng = random.Random(0)
    yield "last_year before first_year", lambda: T.random_date(rng, 2000, 1999), ("last_year", "1999", "2000")
    yield "first_year: 0", lambda: T.random_date(rng, 0, 10), ("first_year", "0")
    yield "rng: a seed, not a Random", lambda: T.random_date(0), ("rng", "int")
    yield "first_year: a float", lambda: T.random_date(rng, 1950.5, 2000), ("first_year", "1950.5")


@cases("dl4nlp.date_task.make_pair")
def _():
    good = dict(rng=random.Random(0))
    yield from vary(T.make_pair, good, "n_dates", int_variants(1))
    yield from vary(
        T.make_pair,
        good,
        "formats",
        [
            ("an unknown format", ["d month yyyy", "bogus"], "'bogus'"),
            ("a string", "d month yyyy", "str"),
            ("empty", [], "[]"),
        ],
    )
    yield from vary(T.make_pair, good, "rng", [("a seed", 0, "int")])


@cases("dl4nlp.date_task.make_pairs")
def _():
    good = dict(n=3)
    yield from vary(T.make_pairs, good, "n", int_variants(1))
    yield from vary(
        T.make_pairs, good, "n_dates", [("empty", [], "[]"), ("an int, not a list", 2, "int"), ("a zero", [0, 1], "0")]
    )
    yield from vary(T.make_pairs, good, "formats", [("an unknown format", ["bogus"], "'bogus'")])


@cases("dl4nlp.date_task.reverse_pairs")
def _():
    good = dict(n=3, lengths=[3, 4])
    yield from vary(T.reverse_pairs, good, "n", int_variants(1))
    yield from vary(
        T.reverse_pairs,
        good,
        "lengths",
        [("empty", [], "[]"), ("a zero", [0, 3], "0"), ("an int, not a list", 3, "int"), ("a float", [2.5], "2.5")],
    )
    yield from vary(T.reverse_pairs, good, "alphabet", [("empty", "", "''"), ("a list", ["ab", "c"], "list")])


@cases("dl4nlp.date_task.batch_sampler")
def _():
    good = dict(pairs=PAIRS, batch_size=2)
    yield from vary(T.batch_sampler, good, "batch_size", int_variants(1) + [("more than the pairs", 3, "3")])
    yield from vary(
        T.batch_sampler,
        good,
        "pairs",
        [("empty", [], "[]"), ("a string", "3 may", "str"), ("an unknown character", [("3 May", "x")], "'M'")],
    )
    yield from vary(T.batch_sampler, good, "seed", [("a string", "0", "'0'"), ("negative", -1, "-1")])


@cases("dl4nlp.date_task.translate")
def _():
    good = dict(model=model(), sources=["3 may 2020"])
    yield from vary(
        T.translate,
        good,
        "sources",
        [
            ("a string, not a list", "3 may 2020", "str"),
            ("empty", [], "[]"),
            ("an unknown character", ["3 May"], "'M'"),
            ("None", None, "None"),
        ],
    )
    yield from vary(T.translate, good, "max_len", int_variants(1))
    yield from vary(T.translate, good, "model", [("a string", "model", "str")])


@cases("dl4nlp.date_task.sequence_accuracy")
def _():
    good = dict(model=model(), pairs=PAIRS)
    yield from vary(
        T.sequence_accuracy,
        good,
        "pairs",
        [("empty", [], "[]"), ("a string", "3 may", "str"), ("one pair", PAIRS[0], "tuple")],
    )
    yield from vary(T.sequence_accuracy, good, "model", [("a string", "model", "str")])


@cases("dl4nlp.date_task.split_of")
def _():
    yield from vary(T.split_of, {}, "key", [("empty", "", "''"), ("a date", DATE, "datetime"), ("None", None, "None")])


@cases("dl4nlp.date_task.dates_of")
def _():
    yield from vary(T.dates_of, {}, "pairs", [("one pair", PAIRS[0], "tuple"), ("a string", "2020-05-03", "str")])


@cases("dl4nlp.date_task.overlap")
def _():
    good = dict(train=PAIRS, test=PAIRS)
    yield from vary(T.overlap, good, "test", [("empty", [], "[]"), ("a string", "3 may 2020", "str")])
    yield from vary(T.overlap, good, "train", [("one pair", PAIRS[0], "tuple")])
    yield from vary(T.overlap, good, "dates", [("a string", "yes", "'yes'")])
