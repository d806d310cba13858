"""Bad inputs of dl4nlp.kv_cache."""

import torch
from torch import nn

from bad_inputs.harness import cases, exempt, float_variants, int_variants, vary, with_nan
from dl4nlp import kv_cache as K
from dl4nlp import transformer as T
from dl4nlp.attention import MultiHeadAttention

exempt("takes no arguments (the bytes of the tensors the cache holds)", "dl4nlp.kv_cache.KVCache.nbytes")


def rand(*size, dtype=torch.float32, seed=0):
    return torch.randn(*size, generator=torch.Generator().manual_seed(seed), dtype=dtype)


@cases("dl4nlp.kv_cache.LayerCache")
def _():
    keys, values = rand(2, 2, 3, 4), rand(2, 2, 3, 4, seed=1)
    good = dict(keys=keys, values=values)
    yield "values: None with keys given", lambda: K.LayerCache(keys=keys), ("keys", "values", "None")
    yield "keys: None with values given", lambda: K.LayerCache(values=values), ("keys", "values", "None")
    yield from vary(
        K.LayerCache,
        good,
        "keys",
        [
            ("three dimensions", keys[0], "(2, 3, 4)"),
            ("a string", "keys", "str"),
            ("an integer tensor", keys.long(), "int64"),
        ],
    )
    yield from vary(
        K.LayerCache,
        good,
        "values",
        [
            ("another length", rand(2, 2, 5, 4), "(2, 2, 5, 4)"),
            ("another batch size", rand(3, 2, 3, 4), "(3, 2, 3, 4)"),
            ("float64 with float32 keys", values.double(), "float64"),
            ("a list", values.tolist(), "list"),
        ],
    )


@cases("dl4nlp.kv_cache.KVCache")
def _():
    yield from vary(K.KVCache, dict(n_layers=2), "n_layers", int_variants(1))


@cases("dl4nlp.kv_cache.KVCache.empty")
def _():
    config = T.TransformerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1)
    yield from vary(
        K.KVCache.empty,
        {},
        "model",
        [
            ("an nn.Linear", nn.Linear(2, 2), "Linear"),
            ("a string", "gpt", "str"),
            ("None", None, "None"),
            ("a config, not the model", config, "TransformerConfig"),
        ],
    )


@cases("dl4nlp.kv_cache.cached_attention")
def _():
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2)
    x = rand(2, 3, 8)
    full = K.LayerCache(rand(2, 2, 4, 4), rand(2, 2, 4, 4, seed=1))

    def call(attention=attention, x=x, cache=None, mask=None):
        cache = K.LayerCache(full.keys, full.values) if cache is None else cache  # a fresh one per call
        return K.cached_attention(attention, x, cache, mask=mask)

    yield from vary(call, {}, "x", float_variants(x) + [("another width", rand(2, 3, 6), "(2, 3, 6)")])
    yield "x: a NaN into an empty cache", lambda: call(x=with_nan(x), cache=K.LayerCache()), ("x", "nan")
    yield from vary(
        call,
        {},
        "attention",
        [
            ("an nn.MultiheadAttention", nn.MultiheadAttention(8, 2, batch_first=True), "MultiheadAttention"),
            ("a string", "attention", "str"),
        ],
    )
    yield (
        "attention: a float64 module with float32 x",
        lambda: call(attention=MultiHeadAttention(8, 2).double()),
        ("x", "float64", "float32"),
    )
    yield from vary(
        call,
        {},
        "cache",
        [
            ("a KVCache, not one layer's", K.KVCache(1), "KVCache"),
            ("a dict", dict(keys=None, values=None), "dict"),
            ("another batch size", K.LayerCache(rand(3, 2, 4, 4), rand(3, 2, 4, 4)), "(3, 2, 4, 4)"),
            ("another number of heads", K.LayerCache(rand(2, 4, 4, 2), rand(2, 4, 4, 2)), "(2, 4, 4, 2)"),
            ("float64 with float32 x", K.LayerCache(rand(2, 2, 4, 4).double(), rand(2, 2, 4, 4).double()), "float64"),
        ],
    )
    yield from vary(
        call,
        {},
        "mask",
        [
            ("a 0/1 long mask", torch.ones(2, 1, 3, 7, dtype=torch.long), "int64"),
            ("the new positions only", torch.ones(2, 1, 3, 3, dtype=torch.bool), "(2, 1, 3, 3)"),
            (
                "a (B, T_new, T_total) mask, ambiguous against (B, H, ...)",
                torch.ones(2, 3, 7, dtype=torch.bool),
                "(2, 3, 7)",
            ),
            ("a list", [[True]], "list"),
        ],
    )
