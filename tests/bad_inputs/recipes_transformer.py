"""Bad inputs of notebooks 10 and 11's recipes (dl4nlp.recipes.gpt_shakespeare and the recipes' command lines)."""

import functools

import torch
from torch import nn

from bad_inputs.harness import cases, exempt, int_variants, vary
from dl4nlp.recipes import gpt_shakespeare as G
from dl4nlp.recipes import reverser_budget as RB
from dl4nlp.sweep import CharData
from dl4nlp.transformer import TransformerConfig, TransformerLM

exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.date_transformer.main",
    "dl4nlp.recipes.gpt_shakespeare.main",
    "dl4nlp.recipes.induction_heads.main",
    "dl4nlp.recipes.transformer_ablation.main",
    "dl4nlp.recipes.reverser_budget.main",
)


@functools.cache
def model() -> TransformerLM:
    torch.manual_seed(0)
    return TransformerLM(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1, max_len=8))


@cases("dl4nlp.recipes.gpt_shakespeare.Recipe")
def _():
    for name in ("d_model", "n_layers", "steps", "batch_size", "context"):
        yield from vary(G.Recipe, {}, name, int_variants(1)[:3])
    yield from vary(G.Recipe, {}, "warmup_steps", [("-1", -1, "-1")])
    yield from vary(
        G.Recipe, {}, "lr", [("0", 0.0, "0.0"), ("NaN", float("nan"), "nan"), ("a string", "2e-3", "'2e-3'")]
    )
    yield from vary(G.Recipe, {}, "min_lr_ratio", [("above one", 1.5, "1.5")])
    yield from vary(G.Recipe, {}, "weight_decay", [("negative", -0.1, "-0.1")])
    yield from vary(G.Recipe, {}, "clip_norm", [("0", 0.0, "0.0")])
    yield from vary(G.Recipe, {}, "heldout_fraction", [("0", 0.0, "0.0"), ("1", 1.0, "1.0")])


@cases("dl4nlp.recipes.gpt_shakespeare.optimizer_for")
def _():
    good = dict(model=model(), recipe=G.Recipe())
    yield from vary(
        G.optimizer_for, good, "model", [("an nn.Linear", nn.Linear(2, 2), "Linear"), ("None", None, "None")]
    )
    yield from vary(G.optimizer_for, good, "recipe", [("a dict", dict(lr=1e-3), "dict")])


@cases("dl4nlp.recipes.gpt_shakespeare.all_heldout_windows")
def _():
    data = CharData("the cat sat on the mat. " * 20, heldout_fraction=0.2)
    good = dict(data=data, context=8)
    yield from vary(G.all_heldout_windows, good, "data", [("a string", "the cat", "str")])
    yield from vary(
        G.all_heldout_windows, good, "context", int_variants(1) + [("longer than the held-out text", 500, "500")]
    )


@cases("dl4nlp.recipes.reverser_budget.attention_reference")
def _():
    yield from vary(RB.attention_reference, {}, "seed", [("negative", -1, "-1"), ("a string", "0", "'0'")])
