"""Bad inputs of dl4nlp.gpt."""

import dataclasses
import functools

import torch
from torch import nn

from bad_inputs.harness import cases, int_variants, scratch, vary
from dl4nlp import gpt as G
from dl4nlp.checkpoint import save_checkpoint
from dl4nlp.transformer import TransformerLM

SMALL = dict(d_model=8, n_heads=2, n_layers=1, max_len=8)


@functools.cache
def model() -> TransformerLM:
    torch.manual_seed(0)
    return TransformerLM(G.gpt_config(vocab_size=5, **SMALL))


def saved(kind=G.KIND, extra=None):
    path = scratch() / "gpt.pt"
    save_checkpoint(
        path,
        kind=kind,
        config=dataclasses.asdict(model().config),
        state_dict=G.weights_to_store(model()),
        provenance={"command": "test"},
        extra={"chars": "abcde"} if extra is None else extra,
    )
    return path


@cases("dl4nlp.gpt.gpt_config")
def _():
    yield from vary(G.gpt_config, dict(SMALL), "vocab_size", int_variants(1))
    yield "overrides: an unknown field", lambda: G.gpt_config(5, n_layer=2), ("overrides", "n_layer")
    yield "overrides: d_model not divisible", lambda: G.gpt_config(5, d_model=10, n_heads=4), ("d_model", "10")
    yield "overrides: a string size", lambda: G.gpt_config(5, n_layers="2"), ("n_layers", "'2'")


@cases("dl4nlp.gpt.weights_to_store")
def _():
    good = dict(model=model())
    yield from vary(
        G.weights_to_store,
        good,
        "model",
        [("an nn.Linear", nn.Linear(2, 2), "Linear"), ("a state dict", model().state_dict(), "OrderedDict")],
    )
    yield from vary(
        G.weights_to_store,
        good,
        "dtype",
        [("an integer dtype", torch.int64, "int64"), ("a string", "float16", "str"), ("None", None, "None")],
    )


@cases("dl4nlp.gpt.model_from_weights")
def _():
    weights = G.weights_to_store(model())
    good = dict(config=model().config, state_dict=weights)
    yield from vary(
        G.model_from_weights,
        good,
        "config",
        [
            ("a dict with an unknown field", {**dataclasses.asdict(model().config), "n_layer": 1}, "n_layer"),
            ("a string", "config", "str"),
            ("a config of another width", G.gpt_config(5, **{**SMALL, "d_model": 16}), ("(5, 16)", "(5, 8)")),
            ("a config with more layers", G.gpt_config(5, **{**SMALL, "n_layers": 2}), "missing"),
        ],
    )
    yield from vary(
        G.model_from_weights,
        good,
        "state_dict",
        [
            ("a list", list(weights.values()), "list"),
            ("a model", model(), "TransformerLM"),
            ("a value that is not a tensor", {**weights, "final_norm.bias": [0.0] * 8}, "list"),
            ("an unexpected weight", {**weights, "extra.weight": torch.zeros(2)}, "extra.weight"),
        ],
    )


@cases("dl4nlp.gpt.load_gpt")
def _():
    folder = scratch()
    empty = folder / "empty.pt"
    empty.write_bytes(b"")
    yield "path: no such file", lambda: G.load_gpt(folder / "missing.pt"), ("missing.pt", G.KIND)
    yield "path: a folder", lambda: G.load_gpt(folder), (folder.name, G.KIND)
    yield "path: a zero-byte file", lambda: G.load_gpt(empty), ("empty.pt",)
    yield "path: an int", lambda: G.load_gpt(3), ("path", "int")
    yield "path: a checkpoint of another kind", lambda: G.load_gpt(saved(kind="bert")), ("bert", G.KIND)
    yield "path: no characters stored", lambda: G.load_gpt(saved(extra={})), ("chars",)
    yield "path: too few characters", lambda: G.load_gpt(saved(extra={"chars": "abc"})), ("5", "3")
    yield "device: an unknown name", lambda: G.load_gpt(saved(), device="gpu"), ("device", "gpu")
