"""Bad inputs of dl4nlp.bert."""

import functools

import torch

from bad_inputs.harness import (
    cases,
    choice_variants,
    exempt,
    float_variants,
    id_variants,
    int_variants,
    prob_variants,
    shape,
    vary,
)
from dl4nlp import bert as B
from dl4nlp.transformer import TransformerConfig, TransformerLM

V = 20


@functools.cache
def tiny() -> B.Bert:
    torch.manual_seed(0)
    return B.Bert(B.bert_config("base", vocab_size=V, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)).eval()


def ids(B_=2, T=5):
    return torch.randint(5, V, (B_, T), generator=torch.Generator().manual_seed(0))


exempt("a record that mask_tokens returns; nothing to validate", "dl4nlp.bert.MaskedTokens")


@cases("dl4nlp.bert.mask_tokens")
def _():
    x = ids()
    good = dict(ids=x, mask_id=4, special_ids=[0, 1, 2, 3, 4], vocab_size=V)
    yield from vary(
        B.mask_tokens,
        good,
        "ids",
        id_variants(x, V, ndim=False) + [("one dimension too many", x[None], shape(x[None]))],
    )
    yield from vary(
        B.mask_tokens,
        good,
        "mask_id",
        [("not special", 7, "7"), ("beyond the vocabulary", 25, "25"), ("a string", "[MASK]", "'[MASK]'")],
    )
    yield from vary(
        B.mask_tokens,
        good,
        "special_ids",
        [
            ("token strings", ["[PAD]", "[MASK]"], "'[PAD]'"),
            ("an id beyond the vocabulary", [0, 4, 30], "30"),
            ("one int", 4, "int"),
        ],
    )
    yield from vary(B.mask_tokens, good, "vocab_size", int_variants(1) + [("smaller than the ids", 10, "10")])
    yield from vary(B.mask_tokens, good, "mask_prob", prob_variants())
    yield from vary(
        B.mask_tokens,
        good,
        "mask_token_prob",
        [("shares that do not sum to one", 0.5, "0.5"), ("NaN", float("nan"), "nan")],
    )
    yield from vary(B.mask_tokens, good, "keep_prob", [("negative", -0.1, "-0.1"), ("a string", "0.1", "'0.1'")])
    yield from vary(B.mask_tokens, good, "generator", [("a seed, not a Generator", 0, "int")])


@cases("dl4nlp.bert.pair_inputs")
def _():
    good = dict(a=["my", "dog"], b=["he"])
    yield from vary(B.pair_inputs, good, "a", [("a string", "my dog", "str"), ("None", None, "None")])
    yield from vary(B.pair_inputs, good, "b", [("a string", "he", "str"), ("an int", 3, "int")])


@cases("dl4nlp.bert.bert_config")
def _():
    yield from vary(B.bert_config, dict(size="base"), "size", choice_variants(B.SIZES))
    yield "overrides: an unknown field", lambda: B.bert_config("base", hidden_size=64), ("hidden_size",)
    yield "overrides: d_model not divisible by n_heads", lambda: B.bert_config("base", d_model=100), ("d_model", "100")


@cases("dl4nlp.bert.Bert")
def _():
    config = B.bert_config("base", vocab_size=V, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8)
    yield "config: a dict", lambda: B.Bert(dict(vocab_size=V)), ("config", "dict")
    yield "config: None", lambda: B.Bert(None), ("config", "None")
    yield from vary(B.Bert, dict(config=config), "type_vocab_size", int_variants(1))


@cases("dl4nlp.bert.Bert.embed")
def _():
    model, x = tiny(), ids()
    good = dict(ids=x, segments=torch.zeros_like(x))
    yield from vary(model.embed, good, "ids", id_variants(x, V))
    yield "ids: longer than max_len", lambda: model.embed(ids(2, 9)), ("ids", "9", "8")
    yield from vary(
        model.embed,
        good,
        "segments",
        [
            ("a segment id of 2 with two segment types", torch.full_like(x, 2), "2"),
            ("a float tensor", torch.zeros(2, 5), "float32"),
            ("another shape", torch.zeros(2, 4, dtype=torch.long), "(2, 4)"),
            ("a string", "ab", "str"),
        ],
    )


@cases("dl4nlp.bert.Bert.forward")
def _():
    model, x = tiny(), ids()
    valid = torch.ones(2, 5, dtype=torch.bool)
    good = dict(ids=x, segments=torch.zeros_like(x), valid=valid)
    yield from vary(model, good, "ids", id_variants(x, V))
    yield from vary(
        model,
        good,
        "valid",
        [
            ("a 0/1 long mask", valid.long(), "int64"),
            ("another shape", valid[:, :4], "(2, 4)"),
            ("(B, 1, 1, T), already a mask", valid[:, None, None, :], "(2, 1, 1, 5)"),
            ("a list", valid.tolist(), "list"),
        ],
    )
    yield from vary(model, good, "segments", [("a negative segment", torch.full_like(x, -1), "-1")])


@cases("dl4nlp.bert.Bert.mlm_logits")
def _():
    model = tiny()
    hidden = torch.randn(2, 5, 8)
    chosen = torch.zeros(2, 5, dtype=torch.bool)
    chosen[0, 1] = True
    good = dict(hidden=hidden, chosen=chosen)
    yield from vary(
        model.mlm_logits,
        good,
        "hidden",
        float_variants(hidden) + [("another width", torch.randn(2, 5, 6), "(2, 5, 6)")],
    )
    yield from vary(
        model.mlm_logits,
        good,
        "chosen",
        [
            ("a 0/1 long mask", chosen.long(), "int64"),
            ("another shape", chosen[:, :4], "(2, 4)"),
            ("a list of positions", [1, 2], "list"),
        ],
    )


@cases("dl4nlp.bert.Bert.nsp_logits")
def _():
    model, hidden = tiny(), torch.randn(2, 5, 8)
    yield from vary(
        model.nsp_logits,
        dict(hidden=hidden),
        "hidden",
        float_variants(hidden)
        + [("another width", torch.randn(2, 5, 6), "(2, 5, 6)"), ("no positions", hidden[:, :0], "(2, 0, 8)")],
    )


def _batch():
    x = ids()
    labels = torch.full_like(x, B.IGNORE_INDEX)
    labels[:, 1] = x[:, 1]
    return dict(
        input_ids=x,
        segments=torch.zeros_like(x),
        valid=torch.ones(2, 5, dtype=torch.bool),
        labels=labels,
        is_next=torch.tensor([0, 1]),
    )


@cases("dl4nlp.bert.pretraining_loss")
def _():
    model, batch = tiny(), _batch()
    good = dict(model=model, batch=batch)
    yield from vary(
        B.pretraining_loss,
        good,
        "batch",
        [
            ("without is_next", {k: v for k, v in batch.items() if k != "is_next"}, "is_next"),
            ("a tensor, not a dict", batch["input_ids"], "Tensor"),
            (
                "a label beyond the vocabulary",
                {**batch, "labels": torch.full_like(batch["labels"], V)},
                ("labels", str(V)),
            ),
            ("is_next of 2", {**batch, "is_next": torch.tensor([0, 2])}, ("is_next", "2")),
            ("labels of another shape", {**batch, "labels": batch["labels"][:, :4]}, ("labels", "(2, 4)")),
        ],
    )
    yield from vary(
        B.pretraining_loss,
        good,
        "model",
        [("a TransformerLM", TransformerLM(TransformerConfig(V, 8, 2, 1)), "TransformerLM")],
    )
    yield from vary(
        B.pretraining_loss,
        good,
        "nsp_weight",
        [("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan"), ("a string", "1", "'1'")],
    )


@cases("dl4nlp.bert.parameter_breakdown")
def _():
    yield (
        "model: a TransformerLM",
        lambda: B.parameter_breakdown(TransformerLM(TransformerConfig(V, 8, 2, 1))),
        ("model", "TransformerLM"),
    )
    yield "model: a string", lambda: B.parameter_breakdown("bert"), ("model", "str")
