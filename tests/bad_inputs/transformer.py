"""Bad inputs of dl4nlp.transformer."""

import functools

import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, float_variants, id_variants, int_variants, vary
from dl4nlp import transformer as T

V = 11


def config(**overrides) -> T.TransformerConfig:
    return T.TransformerConfig(
        **{**dict(vocab_size=V, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8), **overrides}
    )


@functools.cache
def lm() -> T.TransformerLM:
    torch.manual_seed(0)
    return T.TransformerLM(config()).eval()


@cases("dl4nlp.transformer.TransformerConfig")
def _():
    good = dict(vocab_size=V)
    for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
        yield from vary(T.TransformerConfig, good, name, int_variants(1))
    yield from vary(T.TransformerConfig, good, "d_ff", int_variants(1)[:2])
    yield from vary(
        T.TransformerConfig,
        good,
        "dropout",
        [("1", 1.0, "1.0"), ("negative", -0.1, "-0.1"), ("NaN", float("nan"), "nan"), ("a string", "0.1", "'0.1'")],
    )
    yield from vary(T.TransformerConfig, good, "positional", choice_variants(("sinusoidal", "learned", "none")))
    yield from vary(T.TransformerConfig, good, "layer_norm_eps", [("0", 0.0, "0.0"), ("negative", -1e-5, "-1e-05")])
    yield from vary(T.TransformerConfig, good, "norm_first", [("a string", "yes", "'yes'")])
    yield from vary(T.TransformerConfig, good, "d_model", [("not divisible by n_heads", 10, "10")])
    yield from vary(
        T.TransformerConfig, dict(vocab_size=V, positional="sinusoidal"), "d_model", [("odd, with sinusoids", 9, "9")]
    )


def _block_or_stack_cases(module):
    x = torch.randn(2, 3, 8)
    good = dict(x=x)
    yield from vary(module, good, "x", float_variants(x) + [("another width", torch.randn(2, 3, 6), "(2, 3, 6)")])
    yield from vary(
        module,
        good,
        "mask",
        [
            ("a 0/1 long mask", torch.ones(2, 1, 1, 3, dtype=torch.long), "int64"),
            ("a shape that does not broadcast", torch.ones(2, 1, 1, 4, dtype=torch.bool), "(2, 1, 1, 4)"),
        ],
    )
    yield from vary(module, good, "causal", [("a string", "yes", "'yes'")])


@cases("dl4nlp.transformer.TransformerBlock")
def _():
    yield "config: a dict", lambda: T.TransformerBlock(dict(d_model=8)), ("config", "dict")
    yield "config: None", lambda: T.TransformerBlock(None), ("config", "None")


@cases("dl4nlp.transformer.TransformerBlock.forward")
def _():
    torch.manual_seed(0)
    yield from _block_or_stack_cases(T.TransformerBlock(config()))


@cases("dl4nlp.transformer.TransformerBlock.from_torch")
def _():
    def from_torch(*args, **kwargs):
        return T.TransformerBlock.from_torch(*args, **kwargs)

    def layer(**kw):
        return nn.TransformerEncoderLayer(
            **{**dict(d_model=8, nhead=2, dim_feedforward=16, activation="gelu", batch_first=True), **kw}
        )

    yield (
        "reference: ReLU while the block uses GELU",
        lambda: from_torch(layer(activation="relu")),
        ("reference", "relu", "gelu"),
    )
    yield "reference: a custom activation", lambda: from_torch(layer(activation=torch.tanh)), ("reference", "tanh")
    yield "reference: a string", lambda: from_torch("layer"), ("reference", "str")
    yield (
        "reference: an nn.TransformerDecoderLayer",
        lambda: from_torch(nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)),
        ("reference", "TransformerDecoderLayer"),
    )
    yield "reference: without biases", lambda: from_torch(layer(bias=False)), ("reference", "bias")
    yield (
        "config: sizes that differ from the reference",
        lambda: from_torch(layer(), config=config(d_model=16)),
        ("d_model", "16", "8"),
    )
    yield (
        "config: norm_first differs from the reference",
        lambda: from_torch(layer(norm_first=True), config=config(norm_first=False)),
        ("norm_first", "False", "True"),
    )


@cases("dl4nlp.transformer.TransformerEncoder")
def _():
    yield "config: a dict", lambda: T.TransformerEncoder(dict(d_model=8)), ("config", "dict")


@cases("dl4nlp.transformer.TransformerEncoder.forward")
def _():
    torch.manual_seed(0)
    yield from _block_or_stack_cases(T.TransformerEncoder(config()))


@cases("dl4nlp.transformer.TransformerEncoder.attention_weights")
def _():
    torch.manual_seed(0)
    yield "before any forward pass", lambda: T.TransformerEncoder(config()).attention_weights(), ("forward",)
    yield "on the fast path (no weights)", lambda: _fast_weights(), ("fast",)


def _fast_weights():
    encoder = T.TransformerEncoder(config(fast_attention=True))
    encoder(torch.randn(1, 3, 8))
    return encoder.attention_weights()


@cases("dl4nlp.transformer.TransformerLM")
def _():
    yield "config: a dict", lambda: T.TransformerLM(dict(vocab_size=V)), ("config", "dict")
    yield "config: a string", lambda: T.TransformerLM("config"), ("config", "str")


@cases("dl4nlp.transformer.TransformerLM.forward")
def _():
    ids = torch.randint(V, (2, 5))
    yield from vary(
        lm(),
        {},
        "ids",
        id_variants(ids, V) + [("longer than max_len", torch.zeros(2, 9, dtype=torch.long), ("9", "8"))],
    )


@cases("dl4nlp.transformer.TransformerLM.loss")
def _():
    ids = torch.randint(V, (2, 5))
    good = dict(ids=ids, targets=ids)
    yield from vary(
        lm().loss,
        good,
        "targets",
        [
            ("(T, B), transposed", ids.T, "(5, 2)"),
            ("a target beyond the vocabulary", torch.full_like(ids, V), str(V)),
            ("float", ids.float(), "float32"),
            ("one dimension", ids[0], "(5,)"),
        ],
    )
    yield from vary(lm().loss, good, "ids", id_variants(ids, V)[:3])


@cases("dl4nlp.transformer.count_parameters")
def _():
    yield "module: a string", lambda: T.count_parameters("model"), ("module", "str")
    yield "module: a config", lambda: T.count_parameters(config()), ("module", "TransformerConfig")
    yield "module: a list of modules", lambda: T.count_parameters([nn.Linear(2, 2)]), ("module", "list")
