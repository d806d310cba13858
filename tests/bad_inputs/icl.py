"""Bad inputs of dl4nlp.icl (chapter 11's in-context learning of a fresh lookup table) and its recipe.

Every case fails before any training starts (the functions check their arguments first).
"""

import functools

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, semantic, vary
from dl4nlp import icl
from dl4nlp.transformer import TransformerConfig, TransformerLM

exempt("a record of prompts, returned by mapping_batch and query_batch", "dl4nlp.icl.MappingBatch")
exempt(
    "the command line of a recipe (argparse reports bad arguments; --out is checked before training)",
    "dl4nlp.recipes.in_context.main",
)

SEEDS = [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'"), ("None", None, "None")]
SIZES = [
    ("an unknown key", {"bogus": 1}, "bogus"),
    ("a list", [1, 2], "list"),
    ("pairs = 1", {"pairs": 1}, ("pairs", "1")),
    ("noise = 1", {"noise": 1.0}, ("noise", "1.0")),
    ("n_keys a string", {"n_keys": "8"}, ("n_keys", "'8'")),
]


@functools.cache
def model() -> TransformerLM:
    torch.manual_seed(0)
    return icl.icl_model(dict(d_model=8, n_heads=2))


def gen() -> torch.Generator:
    return torch.Generator().manual_seed(0)


@functools.cache
def batch() -> icl.MappingBatch:
    return icl.query_batch(4, 2, torch.Generator().manual_seed(0))


@cases("dl4nlp.icl.mapping_batch")
def _():
    yield from vary(lambda n, generator, sizes: icl.mapping_batch(n, generator, sizes),
                    dict(n=4, generator=gen(), sizes=None), "n", int_variants(1))  # fmt: skip
    yield from vary(lambda n, generator, sizes: icl.mapping_batch(n, generator, sizes),
                    dict(n=4, generator=gen(), sizes=None), "sizes", SIZES)  # fmt: skip
    yield "generator: a seed", lambda: icl.mapping_batch(4, 0), ("generator", "0")


@cases("dl4nlp.icl.query_batch")
def _():
    yield "count: 12 (only 11 earlier pairs)", lambda: icl.query_batch(4, 12, gen()), ("count", "12")
    yield "count: -1", lambda: icl.query_batch(4, -1, gen()), ("count", "-1")
    yield "n: 0", lambda: icl.query_batch(0, 1, gen()), ("n", "0")
    yield "corrupt: a string", lambda: icl.query_batch(4, 1, gen(), corrupt="yes"), ("corrupt", "'yes'")
    yield "generator: None", lambda: icl.query_batch(4, 1, None), ("generator", "None")


@cases("dl4nlp.icl.icl_model")
def _():
    yield from vary(icl.icl_model, dict(sizes=None), "sizes", SIZES)


@cases("dl4nlp.icl.icl_loss")
def _():
    yield "model: a plain module", lambda: icl.icl_loss(torch.nn.Linear(2, 2), batch()), ("model", "Linear")
    yield "batch: a tensor of ids", lambda: icl.icl_loss(model(), batch().ids), ("batch", "Tensor")
    long = icl.query_batch(2, 1, gen(), dict(pairs=20))
    yield semantic("batch: prompts longer than the model's context", lambda: icl.icl_loss(model(), long),
                   ("max_len", "(2, 40)"))  # fmt: skip


@cases("dl4nlp.icl.accuracy_by_examples")
def _():
    yield "counts: 12", lambda: icl.accuracy_by_examples(model(), gen(), 8, [12]), ("count", "12")
    yield "counts: a number", lambda: icl.accuracy_by_examples(model(), gen(), 8, 3), ("counts", "3")
    yield "n: 0", lambda: icl.accuracy_by_examples(model(), gen(), 0), ("n", "0")
    yield "generator: a seed", lambda: icl.accuracy_by_examples(model(), 7), ("generator", "7")
    yield "model: a string", lambda: icl.accuracy_by_examples("gpt", gen(), 8, [1]), ("model", "'gpt'")


@cases("dl4nlp.icl.ideal_accuracy")
def _():
    yield from vary(icl.ideal_accuracy, dict(count=2), "count", int_variants(0))
    yield "sizes: an unknown key", lambda: icl.ideal_accuracy(2, {"bogus": 1}), ("sizes", "bogus")


@cases("dl4nlp.icl.copy_last_accuracy")
def _():
    yield from vary(icl.copy_last_accuracy, dict(count=2), "count", int_variants(0))


@cases("dl4nlp.icl.train_icl_model")
def _():
    yield from vary(icl.train_icl_model, dict(seed=0), "seed", SEEDS)
    yield from vary(icl.train_icl_model, dict(seed=0), "sizes", SIZES)


@cases("dl4nlp.icl.chance")
def _():
    yield from vary(icl.chance, dict(sizes=None), "sizes", SIZES)


@cases("dl4nlp.icl.heldout_generator")
def _():
    yield from vary(icl.heldout_generator, dict(seed=0), "seed", SEEDS)


@cases("dl4nlp.icl.icl_table")
def _():
    yield from vary(lambda seed: icl.icl_table(model(), seed, n=4), dict(seed=0), "seed", SEEDS)
    yield "n: 0", lambda: icl.icl_table(model(), 0, n=0), ("n", "0")
    yield "model: None", lambda: icl.icl_table(None, 0, n=4), ("model", "None")


@cases("dl4nlp.icl.load_icl_model")
def _():
    folder = scratch()
    missing = folder / "nothing.pt"
    yield "path: a file that does not exist", lambda: icl.load_icl_model(missing), ("nothing.pt",)
    yield "path: a number", lambda: icl.load_icl_model(3), ("path", "3")


@cases("dl4nlp.icl.show_prompt")
def _():
    yield "row: 4 of a batch of 4", lambda: icl.show_prompt(batch(), 4), ("row", "4")
    yield "batch: a tensor", lambda: icl.show_prompt(batch().ids), ("batch", "Tensor")
    yield "sizes: an unknown key", lambda: icl.show_prompt(batch(), 0, {"bogus": 1}), ("sizes", "bogus")


@cases("dl4nlp.icl.accuracy_figure")
def _():
    live = {c: 0.5 for c in icl.COUNTS}
    yield "counts: a number", lambda: icl.accuracy_figure(3, live, live, []), ("counts", "3")
    yield "live: a count missing", lambda: icl.accuracy_figure([0, 1], {0: 0.1}, {0: 0.1, 1: 0.1}, []), ("live", "1")
    yield "seeds: a number", lambda: icl.accuracy_figure([0], {0: 0.1}, {0: 0.1}, 5), ("seeds", "5")


@cases("dl4nlp.icl.attention_on_examples")
def _():
    yield "batch: a tensor", lambda: icl.attention_on_examples(model(), batch().ids), ("batch", "Tensor")
    yield (
        "model: a plain module",
        lambda: icl.attention_on_examples(torch.nn.Linear(2, 2), batch()),
        ("model", "Linear"),
    )
    fast = TransformerLM(TransformerConfig(**{**model().config.__dict__, "fast_attention": True}))
    yield semantic("model: the fused attention path (no weights)", lambda: icl.attention_on_examples(fast, batch()),
                   ("fast_attention", "True"))  # fmt: skip
