"""Bad inputs of dl4nlp.experiments.transformer (chapters 10 and 11: experiments and plumbing).

Every case fails before any training starts (the experiments check their arguments first).
"""

import functools
import json

import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, exempt, id_variants, int_variants, scratch, vary
from dl4nlp.experiments import transformer as E
from dl4nlp.sweep import CharData
from dl4nlp.transformer import TransformerConfig, TransformerLM

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.transformer.DateComparison",
    "dl4nlp.experiments.transformer.GradientNorms",
    "dl4nlp.experiments.transformer.InductionResult",
    "dl4nlp.experiments.transformer.LadderResult",
    "dl4nlp.experiments.transformer.LiveGPTRun",
    "dl4nlp.experiments.transformer.RepeatBatch",
    "dl4nlp.experiments.transformer.WarmupResult",
)
exempt(
    "inherited from dl4nlp.attention.MultiHeadAttention.from_torch, whose cases cover it",
    "dl4nlp.experiments.transformer.CausalAttention.from_torch",
)
exempt("takes no arguments (the record's own masks)", "dl4nlp.experiments.transformer.RepeatBatch.masks")

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'"), ("None", None, "None")]


def _sizes_variants(defaults):
    count = next(k for k, v in defaults.items() if isinstance(v, int))
    rate = next(k for k, v in defaults.items() if isinstance(v, float))
    return [
        ("an unknown key", {"bogus": 1}, "bogus"),
        ("a list", [1, 2], "list"),
        (f"{count} = 0", {count: 0}, (count, "0")),
        (f"{count} a string", {count: "3"}, (count, "'3'")),
        (f"{rate} negative", {rate: -1.0}, (rate, "-1.0")),
        (f"{rate} NaN", {rate: float("nan")}, (rate, "nan")),
    ]


@functools.cache
def data() -> CharData:
    return CharData("the cat sat on the mat. " * 20, heldout_fraction=0.2)


@functools.cache
def induction() -> TransformerLM:
    torch.manual_seed(0)
    return E.induction_model(dict(d_model=8, n_heads=2))


@cases("dl4nlp.experiments.transformer.LadderResult.loss")
def _():
    result = E.LadderResult(0, ("+ residual",), (1.5,), 2.0, 3.0, 10)
    yield from vary(result.loss, {}, "variant", [("not trained", "+ LayerNorm", "'+ LayerNorm'"), ("an int", 0, "0")])


@cases("dl4nlp.experiments.transformer.WarmupResult.loss")
def _():
    result = E.WarmupResult(0, ("pre-LN, warm-up",), (1.5,), (False,))
    yield from vary(result.loss, {}, "run", [("not run", "post-LN", "'post-LN'"), ("an int", 0, "0")])


@cases("dl4nlp.experiments.transformer.reset_to_pytorch_init")
def _():
    yield from vary(
        E.reset_to_pytorch_init,
        {},
        "model",
        [("a string", "model", "str"), ("a config", TransformerConfig(5), "TransformerConfig")],
    )


@cases("dl4nlp.experiments.transformer.ladder_model")
def _():
    good = dict(variant="+ residual", vocab_size=5, sizes=dict(d_model=8, n_heads=2))
    yield from vary(E.ladder_model, good, "variant", choice_variants(E.LADDER))
    yield from vary(E.ladder_model, good, "vocab_size", int_variants(1))
    yield from vary(E.ladder_model, good, "sizes", _sizes_variants(E.LADDER_SIZES))


@cases("dl4nlp.experiments.transformer.bigram_loss")
def _():
    windows = data().windows("heldout", 4, 5)
    good = dict(data=data(), windows=windows)
    yield from vary(E.bigram_loss, good, "data", [("a string", "the cat", "str")])
    yield from vary(
        E.bigram_loss,
        good,
        "windows",
        id_variants(windows, len(data().chars)) + [("one character per window", windows[:, :1], "(4, 1)")],
    )
    yield from vary(
        E.bigram_loss, good, "alpha", [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")]
    )


@cases("dl4nlp.experiments.transformer.ingredient_ladder")
def _():
    good = dict(seed=0)
    yield from vary(E.ingredient_ladder, good, "seed", SEEDS)
    yield from vary(
        E.ingredient_ladder,
        good,
        "variants",
        [
            ("an unknown variant", ["+ dropout"], "'+ dropout'"),
            ("empty", [], "[]"),
            ("one name, not a list", "+ residual", "str"),
        ],
    )
    yield from vary(E.ingredient_ladder, good, "sizes", _sizes_variants(E.LADDER_SIZES))
    yield from vary(E.ingredient_ladder, good, "eval_windows", int_variants(1)[:3])


@cases("dl4nlp.experiments.transformer.layer_gradient_norms")
def _():
    good = dict(seed=0)
    fn = E.layer_gradient_norms
    yield from vary(fn, good, "seed", SEEDS)
    yield from vary(
        fn,
        good,
        "depths",
        [("empty", [], "[]"), ("a zero depth", [2, 0], "0"), ("an int", 4, "int"), ("a float", [2.5], "2.5")],
    )
    yield from vary(fn, good, "d_model", int_variants(1)[:3] + [("not divisible by 4 heads", 30, "30")])
    yield from vary(fn, good, "context", int_variants(2)[:3])
    yield from vary(fn, good, "batch_size", int_variants(1)[:3])


@cases("dl4nlp.experiments.transformer.warmup_runs")
def _():
    yield from vary(E.warmup_runs, dict(seed=0), "seed", SEEDS)
    yield from vary(E.warmup_runs, dict(seed=0), "sizes", _sizes_variants(E.WARMUP_SIZES))
    yield from vary(E.warmup_runs, dict(seed=0), "eval_windows", int_variants(1)[:3])


@cases("dl4nlp.experiments.transformer.repeat_batch")
def _():
    good = dict(n=4, generator=torch.Generator().manual_seed(0))
    yield from vary(E.repeat_batch, good, "n", int_variants(1))
    yield from vary(E.repeat_batch, good, "generator", [("a seed", 0, "int"), ("None", None, "None")])
    yield from vary(
        E.repeat_batch,
        good,
        "sizes",
        _sizes_variants(E.INDUCTION_SIZES)
        + [
            ("repeat an int", {"repeat": 5}, ("repeat", "int")),
            ("repeat of three", {"repeat": (2, 3, 4)}, ("repeat", "[2, 3, 4]")),
            ("repeat longer than half the length", {"repeat": (3, 30)}, ("repeat", "30")),
        ],
    )


@cases("dl4nlp.experiments.transformer.induction_model")
def _():
    yield from vary(E.induction_model, {}, "sizes", _sizes_variants(E.INDUCTION_SIZES))
    yield "sizes: d_model not divisible", lambda: E.induction_model({"d_model": 30}), ("d_model", "30", "n_heads")


@cases("dl4nlp.experiments.transformer.prefix_matches")
def _():
    ids = torch.randint(5, (2, 6), generator=torch.Generator().manual_seed(0))
    yield from vary(E.prefix_matches, {}, "ids", [v for v in id_variants(ids, 1000) if "vocabulary" not in v[0]])


@cases("dl4nlp.experiments.transformer.induction_scores")
def _():
    batch = E.repeat_batch(4, torch.Generator().manual_seed(0))
    good = dict(model=induction(), batch=batch)
    yield from vary(
        E.induction_scores, good, "model", [("an nn.Linear", nn.Linear(2, 2), "Linear"), ("a string", "m", "str")]
    )
    yield from vary(
        E.induction_scores,
        good,
        "batch",
        [
            ("a tensor of ids", batch.ids, "Tensor"),
            ("ids beyond the vocabulary", E.RepeatBatch(batch.ids + 32, batch.half), "32"),
            ("longer than max_len + 1", E.RepeatBatch(torch.zeros(4, 42, dtype=torch.long), batch.half), "(4, 42)"),
        ],
    )
    fast = E.induction_model(dict(d_model=8, n_heads=2))
    fast.config.fast_attention = True
    yield "model: on the fast attention path", lambda: E.induction_scores(fast, batch), ("model", "fast_attention")


@cases("dl4nlp.experiments.transformer.first_token_attention")
def _():
    batch = E.repeat_batch(4, torch.Generator().manual_seed(0))
    good = dict(model=induction(), batch=batch)
    yield from vary(E.first_token_attention, good, "model", [("an nn.Linear", nn.Linear(2, 2), "Linear")])
    yield from vary(
        E.first_token_attention,
        good,
        "batch",
        [
            ("a tensor of ids", batch.ids, "Tensor"),
            ("ids beyond the vocabulary", E.RepeatBatch(batch.ids + 32, batch.half), "32"),
        ],
    )
    fast = E.induction_model(dict(d_model=8, n_heads=2))
    fast.config.fast_attention = True
    yield "model: on the fast attention path", lambda: E.first_token_attention(fast, batch), ("model", "fast_attention")


@cases("dl4nlp.experiments.transformer.train_induction_model")
def _():
    yield from vary(E.train_induction_model, dict(seed=0), "seed", SEEDS)
    yield from vary(E.train_induction_model, dict(seed=0), "eval_every", int_variants(1))
    yield from vary(E.train_induction_model, dict(seed=0), "sizes", _sizes_variants(E.INDUCTION_SIZES))


@cases("dl4nlp.experiments.transformer.induction_heads")
def _():
    yield from vary(E.induction_heads, dict(seed=0), "seed", SEEDS)
    yield from vary(E.induction_heads, dict(seed=0), "sizes", _sizes_variants(E.INDUCTION_SIZES)[:3])


def _file_cases(load):
    folder = scratch()
    not_json = folder / "not.json"
    not_json.write_text("not json")
    yield "path: no such file", lambda: load(folder / "missing.pt"), ("missing.pt",)
    yield "path: a folder", lambda: load(folder), (folder.name,)
    yield "path: an int", lambda: load(3), ("path", "int")
    yield "path: a text file", lambda: load(not_json), ("not.json",)


@cases("dl4nlp.experiments.transformer.load_ablation_table")
def _():
    yield from _file_cases(E.load_ablation_table)
    other = scratch() / "other.json"
    other.write_text(json.dumps({"ladder": []}))
    yield "path: JSON without the warm-up runs", lambda: E.load_ablation_table(other), ("other.json", "warmup")


@cases("dl4nlp.experiments.transformer.load_induction_model")
def _():
    yield from _file_cases(E.load_induction_model)


@cases("dl4nlp.experiments.transformer.load_date_transformer")
def _():
    yield from _file_cases(E.load_date_transformer)


@cases("dl4nlp.experiments.transformer.date_transformer")
def _():
    yield from vary(E.date_transformer, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.transformer.date_test_pairs")
def _():
    from dl4nlp.date_task import make_pairs

    test = make_pairs(E.DATE_TEST["n"], seed=E.DATE_TEST["seed"], split="test")
    yield from vary(
        E.date_test_pairs,
        {},
        "train_pairs",
        [
            ("the test pairs themselves", test[:50], "disjoint"),
            ("a string", "3 may 1999", "str"),
            ("one pair", ("3 may 1999", "1999-05-03"), "tuple"),
        ],
    )


@cases("dl4nlp.experiments.transformer.accuracy_by_length")
def _():
    model = E.date_transformer(0).eval()
    pairs = [("3 may 1999", "1999-05-03")]
    good = dict(model=model, pairs=pairs)
    yield from vary(
        E.accuracy_by_length,
        good,
        "model",
        [("a string", "model", "str"), ("a TransformerLM", induction(), "TransformerLM")],
    )
    yield from vary(
        E.accuracy_by_length,
        good,
        "pairs",
        [("empty", [], "[]"), ("one pair", pairs[0], "tuple"), ("a string", "3 may 1999", "str")],
    )
    yield from vary(
        E.accuracy_by_length,
        good,
        "bins",
        [
            ("low above high", ((20, 10),), "(20, 10)"),
            ("a flat pair", (8, 14), "8"),
            ("empty", (), "()"),
            ("a negative length", ((-1, 10),), "-1"),
        ],
    )


@cases("dl4nlp.experiments.transformer.compare_on_dates")
def _():
    yield from vary(E.compare_on_dates, dict(seed=0), "seed", SEEDS)
    yield from vary(E.compare_on_dates, dict(seed=0), "steps", int_variants(1))
    yield from vary(E.compare_on_dates, dict(seed=0), "progress", [("a string", "yes", "'yes'")])
    yield from vary(
        E.compare_on_dates, dict(seed=0), "eval_size", [*int_variants(1), ("beyond the test set", 2001, "2001")]
    )
    yield from vary(
        E.compare_on_dates, dict(seed=0, steps=3), "stop_after", [*int_variants(1), ("beyond steps", 4, "4")]
    )


@cases("dl4nlp.experiments.transformer.date_comparison")
def _():
    yield from vary(E.date_comparison, {}, "seed", SEEDS)


@cases("dl4nlp.experiments.transformer.ladder_claims")
def _():
    rung = {"attention only": 2.5, "+ feed-forward": 2.49, "+ residual": 2.0, "+ LayerNorm": 2.01}
    good = dict(losses=rung, bigram=2.4, unigram=3.2)
    yield from vary(
        E.ladder_claims,
        good,
        "losses",
        [
            ("a list", [2.5], "list"),
            ("a missing rung", {"+ residual": 2.0}, "'+ LayerNorm'"),
            ("a NaN loss", {**rung, "+ residual": float("nan")}, "nan"),
        ],
    )
    yield from vary(E.ladder_claims, good, "bigram", [("negative", -1.0, "-1.0"), ("text", "2.4", "str")])


# --- the plumbing chapters 10 and 11 call ---------------------------------------------------
def _block() -> nn.Module:
    return nn.Module()


@cases("dl4nlp.experiments.transformer.copy_into_library_block")
def _():
    good = dict(mine=_block(), switches={}, norm_first=False)
    yield from vary(E.copy_into_library_block, good, "mine", [("a string", "block", "str")])
    yield from vary(E.copy_into_library_block, good, "switches", [("a list", ["use_residual"], "list")])
    yield from vary(E.copy_into_library_block, good, "norm_first", [("a string", "yes", "'yes'")])


@cases("dl4nlp.experiments.transformer.ladder_figure")
def _():
    live = E.LadderResult(0, ("+ residual",), (1.5,), 2.0, 3.0, 10)
    yield from vary(E.ladder_figure, dict(table={"ladder": []}, live=live), "table", [("a list", [], "list")])
    yield from vary(E.ladder_figure, dict(table={"ladder": []}, live=live), "live", [("a dict", {}, "dict")])


@cases("dl4nlp.experiments.transformer.gradient_norm_figure")
def _():
    yield from vary(E.gradient_norm_figure, {}, "norms", [("a dict", {}, "dict"), ("a list", [[1.0]], "list")])


@cases("dl4nlp.experiments.transformer.generation_step_seconds")
def _():
    torch.manual_seed(0)
    model = TransformerLM(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=8))
    good = dict(model=model, n=4, use_cache=True)
    yield from vary(E.generation_step_seconds, good, "model", [("a string", "gpt", "str")])
    yield from vary(E.generation_step_seconds, good, "n", int_variants(2)[:3] + [("beyond the context", 9, "9")])
    yield from vary(E.generation_step_seconds, good, "use_cache", [("a string", "yes", "'yes'")])
    yield from vary(E.generation_step_seconds, good, "repeats", int_variants(1)[:2])


@cases("dl4nlp.experiments.transformer.kv_timing_figure")
def _():
    good = dict(lengths=[16, 32], full=[1.0, 2.0], cached=[1.0, 1.0])
    yield from vary(E.kv_timing_figure, good, "lengths", [("empty", [], "[]"), ("a string", "16", "str")])
    yield from vary(E.kv_timing_figure, good, "full", [("one too short", [1.0], "1")])


@cases("dl4nlp.experiments.transformer.sampling_explorer")
def _():
    torch.manual_seed(0)
    model = TransformerLM(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=8))
    good = dict(model=model, vocab=None, prompt="ab")
    yield from vary(E.sampling_explorer, good, "model", [("a string", "gpt", "str")])
    yield from vary(E.sampling_explorer, good, "prompt", [("empty", "", "''"), ("an int", 3, "int")])
    yield from vary(E.sampling_explorer, good, "shown", int_variants(1)[:2])


@cases("dl4nlp.experiments.transformer.date_race_figure")
def _():
    yield from vary(E.date_race_figure, {}, "comparisons", [("empty", [], "[]"), ("a string", "seeds", "str")])


@cases("dl4nlp.experiments.transformer.encoder_decoder_maps_figure")
def _():
    good = dict(maps={}, source_labels=["a"], output_labels=["b"])
    yield from vary(
        E.encoder_decoder_maps_figure,
        good,
        "maps",
        [("a list", [], "list"), ("no cross", {"encoder": 1, "decoder": 1}, "cross")],
    )


@cases("dl4nlp.experiments.transformer.mask_figure")
def _():
    yield from vary(E.mask_figure, {}, "masks", [("a list", [], "list"), ("empty", {}, "{}")])


def _tiny_gpt():
    return E.library_gpt(10, d=8, heads=2, layers=1, context=8)


@cases("dl4nlp.experiments.transformer.CausalAttention")
def _():
    yield from vary(E.CausalAttention, dict(d_model=8, n_heads=2), "n_heads", [("not dividing d_model", 3, "3")])


@cases("dl4nlp.experiments.transformer.CausalAttention.forward")
def _():
    attention = E.CausalAttention(8, 2)
    yield "x of the wrong width", lambda: attention(torch.zeros(1, 3, 5)), ("x", "(1, 3, 5)")
    yield "x as ids", lambda: attention(torch.zeros(1, 3, 8, dtype=torch.long)), ("x", "int64")


@cases("dl4nlp.experiments.transformer.ScratchGPT")
def _():
    good = dict(vocab_size=10, d=8, heads=2, layers=1, context=8)
    yield from vary(E.ScratchGPT, good, "layers", int_variants(1))
    yield from vary(E.ScratchGPT, good, "dropout", [("1.0", 1.0, "1.0"), ("negative", -0.1, "-0.1")])


@cases("dl4nlp.experiments.transformer.ScratchGPT.forward")
def _():
    model = E.ScratchGPT(10, d=8, heads=2, layers=1, context=8)
    yield from vary(model.forward, dict(ids=torch.zeros(1, 4, dtype=torch.long)), "ids",
                    id_variants(torch.zeros(1, 4, dtype=torch.long), 10))  # fmt: skip
    yield "ids longer than the context", lambda: model(torch.zeros(1, 9, dtype=torch.long)), ("context", "(1, 9)")


@cases("dl4nlp.experiments.transformer.ScratchGPT.loss")
def _():
    model = E.ScratchGPT(10, d=8, heads=2, layers=1, context=8)
    ids = torch.zeros(2, 4, dtype=torch.long)
    yield (
        "targets of another shape",
        lambda: model.loss(ids, torch.zeros(2, 3, dtype=torch.long)),
        ("targets", "(2, 3)"),
    )
    yield "targets beyond the vocabulary", lambda: model.loss(ids, torch.full((2, 4), 10)), ("targets", "10")


@cases("dl4nlp.experiments.transformer.library_gpt")
def _():
    yield from vary(E.library_gpt, dict(vocab_size=10, d=8, heads=2, layers=1, context=8), "d", int_variants(1))


@cases("dl4nlp.experiments.transformer.scratch_state_dict")
def _():
    scratch_model = E.ScratchGPT(10, d=8, heads=2, layers=1, context=8)
    yield from vary(E.scratch_state_dict, {}, "model", [("a ScratchGPT", scratch_model, "ScratchGPT")])
    post_ln = TransformerLM(TransformerConfig(vocab_size=10, d_model=8, n_heads=2, n_layers=1, max_len=8))
    yield "a post-LN model", lambda: E.scratch_state_dict(post_ln), ("model", "pre-LN")


@cases("dl4nlp.experiments.transformer.copy_gpt_weights")
def _():
    yield "target a string", lambda: E.copy_gpt_weights(_tiny_gpt(), "model"), ("target", "str")
    yield "source a string", lambda: E.copy_gpt_weights("model", _tiny_gpt()), ("source", "str")


@cases("dl4nlp.experiments.transformer.param_groups")
def _():
    yield from vary(E.param_groups, dict(model=nn.Linear(2, 2), weight_decay=0.1), "weight_decay",
                    [("negative", -0.1, "-0.1"), ("NaN", float("nan"), "nan")])  # fmt: skip
    yield "model a list of tensors", lambda: E.param_groups([torch.zeros(2)], 0.1), ("model", "list")


@cases("dl4nlp.experiments.transformer.train_live_gpt")
def _():
    good = dict(model=_tiny_gpt(), seed=0)
    yield from vary(E.train_live_gpt, good, "seed", SEEDS)
    yield from vary(E.train_live_gpt, good, "model", [("an nn.Linear", nn.Linear(2, 2), "Linear")])
    yield from vary(E.train_live_gpt, good, "eval_windows", int_variants(1))


@cases("dl4nlp.experiments.transformer.scratch_against_library")
def _():
    yield from vary(E.scratch_against_library, dict(seed=0), "seed", SEEDS)
    yield from vary(E.scratch_against_library, dict(seed=0), "sizes", _sizes_variants(E.LIVE_GPT_SIZES))


@cases("dl4nlp.experiments.transformer.patch_diagram")
def _():
    good = dict(image=torch.rand(8, 8), patch=2)
    yield from vary(
        E.patch_diagram,
        good,
        "image",
        [("a batch of images", torch.rand(2, 8, 8), "(2, 8, 8)"), ("a list", [[0.0] * 8] * 8, "list")],
    )
    yield from vary(E.patch_diagram, good, "patch", int_variants(1))


@cases("dl4nlp.experiments.transformer.cls_attention_figure")
def _():
    good = dict(images=torch.rand(2, 8, 8), attention=torch.rand(2, 16), labels=[1, 2], predictions=[1, 2])
    yield from vary(E.cls_attention_figure, good, "images", [("one image", torch.rand(8, 8), "(8, 8)")])
    yield from vary(E.cls_attention_figure, good, "attention", [("weights on 17 tokens", torch.rand(2, 17), "(2, 17)")])
    yield from vary(E.cls_attention_figure, good, "patch", int_variants(1))
