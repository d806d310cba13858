"""Bad inputs of dl4nlp.phonemes and of the recipes of notebook 06 (dl4nlp.recipes.date_models, .phoneme_model)."""

import torch

from bad_inputs.harness import cases, choice_variants, exempt, int_variants, vary
from dl4nlp import phonemes as P
from dl4nlp.recipes import date_models as D
from dl4nlp.recipes import phoneme_model as M
from dl4nlp.seq2seq import Seq2Seq

exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.date_models.main",
    "dl4nlp.recipes.phoneme_model.main",
)
exempt("takes no arguments (the recorded held-out words)", "dl4nlp.recipes.phoneme_model.held_out_pairs")


@cases("dl4nlp.phonemes.strip_stress")
def _():
    yield from vary(P.strip_stress, {}, "phonemes", [("one string", "K AE1 T", "str"), ("numbers", [1, 2], "int")])


@cases("dl4nlp.phonemes.load_dictionary")
def _():
    # the message of a missing file names the file and says it is no data file there (listing those that are)
    yield "name: a file that is not shipped", lambda: P.load_dictionary("cmudict.txt"), ("data file", "cmudict.txt")
    yield "name: None", lambda: P.load_dictionary(None), ("name", "None")


@cases("dl4nlp.phonemes.phoneme_pairs")
def _():
    yield from vary(P.phoneme_pairs, {}, "split", [("an unknown split", "valid", "'valid'")])
    yield from vary(
        P.phoneme_pairs,
        {},
        "dictionary",
        [("a list of words", ["cat"], "list"), ("phonemes as lists", {"cat": ["K", "AE", "T"]}, "'cat'")],
    )


@cases("dl4nlp.phonemes.sample_pairs")
def _():
    yield from vary(P.sample_pairs, dict(n=3), "n", int_variants(1)[:3])
    yield from vary(P.sample_pairs, dict(n=3), "split", [("an unknown split", "valid", "'valid'")])
    yield from vary(P.sample_pairs, dict(n=3), "seed", [("a string", "0", "'0'"), ("None", None, "None")])


@cases("dl4nlp.phonemes.phoneme_error_rate")
def _():
    good = dict(predictions=["K AE T"], targets=["K AE T"])
    yield from vary(
        P.phoneme_error_rate, good, "predictions", [("one string", "K AE T", "str"), ("one too many", ["K", "T"], "2")]
    )
    yield from vary(
        P.phoneme_error_rate,
        good,
        "targets",
        [
            ("empty", [], "0"),
            ("a list of lists", [["K", "AE", "T"]], "list"),
            ("an empty target (no phonemes to count errors against)", [" "], ("phoneme", "' '")),
        ],
    )


@cases("dl4nlp.recipes.date_models.DateRecipe")
def _():
    yield from vary(D.DateRecipe, {}, "score", choice_variants(("dot", "general", "additive")))
    yield from vary(D.DateRecipe, {}, "steps", int_variants(1)[:3])
    yield from vary(D.DateRecipe, {}, "lr", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan")])
    yield from vary(D.DateRecipe, {}, "seed", [("negative", -1, "-1")])


@cases("dl4nlp.recipes.date_models.build_model")
def _():
    yield from vary(
        D.build_model,
        {},
        "recipe",
        [("a dict", dict(score="dot"), "dict"), ("a PhonemeRecipe", M.PhonemeRecipe(), "PhonemeRecipe")],
    )


@cases("dl4nlp.recipes.date_models.train_date_model")
def _():
    yield from vary(D.train_date_model, dict(recipe=D.DateRecipe(), progress=False), "recipe", [("a dict", {}, "dict")])
    yield from vary(
        D.train_date_model,
        dict(recipe=D.DateRecipe(), progress=False),
        "stop_after",
        [("0", 0, "0"), ("beyond the steps", 401, "401")],
    )


@cases("dl4nlp.recipes.date_models.training_pairs")
def _():
    yield from vary(
        D.training_pairs,
        {},
        "record",
        [
            ("without arguments", {"command": "x"}, "arguments"),
            ("a list", [], "list"),
            ("arguments without seed", {"arguments": {"train_pairs": 10}}, "seed"),
        ],
    )


@cases("dl4nlp.recipes.phoneme_model.PhonemeRecipe")
def _():
    yield from vary(M.PhonemeRecipe, {}, "score", choice_variants(("dot", "general", "additive"))[:1])
    yield from vary(M.PhonemeRecipe, {}, "batch_size", int_variants(1)[:3])
    yield from vary(M.PhonemeRecipe, {}, "clip_norm", [("0", 0.0, "0.0")])


@cases("dl4nlp.recipes.phoneme_model.train_phoneme_model")
def _():
    yield from vary(
        M.train_phoneme_model,
        dict(progress=False),
        "recipe",
        [("a DateRecipe", D.DateRecipe(), "DateRecipe"), ("None", None, "None")],
    )


@cases("dl4nlp.recipes.phoneme_model.evaluate")
def _():
    torch.manual_seed(0)
    model = Seq2Seq(len(P.SPELLING_VOCAB), len(P.PHONEME_VOCAB), d_embed=4, d_hidden=4)
    good = dict(model=model, pairs=[("cat", "K AE T")])
    yield from vary(M.evaluate, good, "pairs", [("empty", [], "[]"), ("one pair", ("cat", "K AE T"), "tuple")])
    yield from vary(M.evaluate, good, "model", [("a string", "model", "str")])
