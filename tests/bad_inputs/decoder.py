"""Bad inputs of dl4nlp.decoder."""

import functools

import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, float_variants, id_variants, int_variants, vary, with_nan
from dl4nlp import decoder as D
from dl4nlp.transformer import TransformerConfig

V_SRC, V_TGT = 7, 6


def rand(*size, dtype=torch.float32, seed=0):
    return torch.randn(*size, generator=torch.Generator().manual_seed(seed), dtype=dtype)


def config(**overrides) -> D.Seq2SeqTransformerConfig:
    sizes = dict(source_vocab_size=V_SRC, target_vocab_size=V_TGT, d_model=8, n_heads=2, encoder_layers=1)
    return D.Seq2SeqTransformerConfig(**{**sizes, "decoder_layers": 1, "max_len": 10, **overrides})


@functools.cache
def model() -> D.Seq2SeqTransformer:
    torch.manual_seed(0)
    return D.Seq2SeqTransformer(config()).eval()


def source():
    return torch.tensor([[1, 2, 3, 0], [4, 5, 0, 0]]), torch.tensor([3, 2])


def block_config() -> TransformerConfig:
    return TransformerConfig(vocab_size=1, d_model=8, n_heads=2, d_ff=16)


@cases("dl4nlp.decoder.DecoderBlock")
def _():
    yield "config: a dict", lambda: D.DecoderBlock(dict(d_model=8)), ("config", "dict")
    yield "config: a Seq2SeqTransformerConfig", lambda: D.DecoderBlock(config()), ("config", "Seq2SeqTransformerConfig")


@cases("dl4nlp.decoder.DecoderBlock.forward")
def _():
    torch.manual_seed(0)
    block = D.DecoderBlock(block_config())
    x, memory = rand(2, 3, 8), rand(2, 4, 8, seed=1)
    good = dict(x=x, memory=memory)
    yield from vary(block, good, "x", float_variants(x) + [("another width", rand(2, 3, 6), "(2, 3, 6)")])
    yield from vary(
        block,
        good,
        "memory",
        [
            ("another batch size", rand(3, 4, 8), "(3, 4, 8)"),
            ("another width", rand(2, 4, 6), "(2, 4, 6)"),
            ("two dimensions", rand(4, 8), "(4, 8)"),
            ("a NaN", with_nan(memory), "nan"),
            ("float64 with float32 x", memory.double(), "float64"),
            ("a string", "memory", "str"),
            ("an empty source", memory[:, :0], "(2, 0, 8)"),
        ],
    )
    yield from vary(
        block,
        good,
        "memory_mask",
        [
            ("a 0/1 long mask", torch.ones(2, 1, 1, 4, dtype=torch.long), "int64"),
            ("a shape that does not broadcast", torch.ones(2, 1, 1, 3, dtype=torch.bool), "(2, 1, 1, 3)"),
            ("the lengths, not a mask", torch.tensor([4, 2]), "int64"),
        ],
    )
    yield from vary(block, good, "causal", [("a string", "yes", "'yes'"), ("None", None, "None")])


@cases("dl4nlp.decoder.DecoderBlock.from_torch")
def _():
    def from_torch(*args, **kwargs):
        return D.DecoderBlock.from_torch(*args, **kwargs)

    def layer(**kw):
        return nn.TransformerDecoderLayer(
            **{**dict(d_model=8, nhead=2, dim_feedforward=16, activation="gelu", batch_first=True), **kw}
        )

    yield "reference: ReLU", lambda: from_torch(layer(activation="relu")), ("reference", "relu", "GELU")
    yield "reference: a string", lambda: from_torch("layer"), ("reference", "str")
    yield (
        "reference: an nn.TransformerEncoderLayer",
        lambda: from_torch(nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", batch_first=True)),
        ("reference", "TransformerEncoderLayer"),
    )
    yield "reference: without biases", lambda: from_torch(layer(bias=False)), ("reference", "bias")


@cases("dl4nlp.decoder.Seq2SeqTransformerConfig")
def _():
    good = dict(source_vocab_size=V_SRC, target_vocab_size=V_TGT)
    fn = D.Seq2SeqTransformerConfig
    for name in ("source_vocab_size", "target_vocab_size", "encoder_layers", "decoder_layers"):
        yield from vary(fn, good, name, int_variants(1))
    for name in ("d_model", "n_heads", "max_len"):
        yield from vary(fn, good, name, int_variants(1)[:3])
    yield from vary(fn, good, "d_model", [("not divisible by n_heads", 10, "10")])
    yield from vary(fn, good, "dropout", [("1", 1.0, "1.0"), ("negative", -0.1, "-0.1")])
    yield from vary(fn, good, "positional", choice_variants(("sinusoidal", "learned", "none")))
    yield from vary(fn, good, "norm_first", [("a string", "yes", "'yes'")])
    yield from vary(
        fn,
        good,
        "pad_id",
        [("-1", -1, "-1"), ("beyond the target vocabulary", V_TGT, str(V_TGT)), ("None", None, "None")],
    )


@cases("dl4nlp.decoder.Seq2SeqTransformerConfig.block_config")
def _():
    yield from vary(config().block_config, {}, "n_layers", int_variants(1))


@cases("dl4nlp.decoder.Seq2SeqTransformer")
def _():
    yield "config: a dict", lambda: D.Seq2SeqTransformer(dict(source_vocab_size=5)), ("config", "dict")
    yield "config: a TransformerConfig", lambda: D.Seq2SeqTransformer(block_config()), ("config", "TransformerConfig")


def _source_cases(fn, good):
    src, lengths = source()
    yield from vary(
        fn,
        good,
        "src",
        id_variants(src, V_SRC, empty=False) + [("longer than max_len", torch.ones(2, 11, dtype=torch.long), "11")],
    )
    yield from vary(
        fn,
        good,
        "src_lengths",
        [
            ("a length of 0", torch.tensor([3, 0]), "0"),
            ("longer than the source", torch.tensor([5, 2]), "5"),
            ("another batch size", torch.tensor([3]), "(1,)"),
            ("a float tensor", lengths.float(), "float32"),
            ("a list", [3, 2], "list"),
        ],
    )


@cases("dl4nlp.decoder.Seq2SeqTransformer.encode")
def _():
    src, lengths = source()
    yield from _source_cases(model().encode, dict(src=src, src_lengths=lengths))


@cases("dl4nlp.decoder.Seq2SeqTransformer.forward")
def _():
    src, lengths = source()
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    good = dict(src=src, src_lengths=lengths, tgt_in=tgt)
    yield from _source_cases(model(), good)
    yield from vary(
        model(),
        good,
        "tgt_in",
        id_variants(tgt, V_TGT)
        + [
            ("another batch size", tgt[:1], "(1, 3)"),
            ("longer than max_len", torch.ones(2, 11, dtype=torch.long), "11"),
        ],
    )


@cases("dl4nlp.decoder.Seq2SeqTransformer.decode")
def _():
    src, lengths = source()
    memory, mask = model().encode(src, lengths)
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    good = dict(tgt_in=tgt, memory=memory, mask=mask)
    yield from vary(model().decode, good, "tgt_in", id_variants(tgt, V_TGT))
    yield from vary(
        model().decode,
        good,
        "memory",
        [
            ("another batch size", memory[:1], "(1, 4, 8)"),
            ("another width", rand(2, 4, 6), "(2, 4, 6)"),
            ("a NaN", with_nan(memory), "nan"),
            ("float64", memory.double(), "float64"),
            ("a tuple (memory, mask)", (memory, mask), "tuple"),
        ],
    )
    yield from vary(
        model().decode,
        good,
        "mask",
        [
            ("the lengths, not a mask", lengths, "int64"),
            ("a 0/1 long mask", mask.long(), "int64"),
            ("another source length", mask[..., :3], "(2, 1, 1, 3)"),
            ("None", None, "None"),
        ],
    )


@cases("dl4nlp.decoder.Seq2SeqTransformer.loss")
def _():
    src, lengths = source()
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    batch = dict(src=src, src_lengths=lengths, tgt_in=tgt, tgt_out=tgt)
    yield from vary(
        model().loss,
        {},
        "batch",
        [
            ("without tgt_out", {k: v for k, v in batch.items() if k != "tgt_out"}, "tgt_out"),
            ("tgt_out of another shape", {**batch, "tgt_out": tgt[:, :2]}, ("tgt_out", "(2, 2)")),
            ("a target beyond the vocabulary", {**batch, "tgt_out": torch.full_like(tgt, V_TGT)}, ("tgt_out", "6")),
            ("a tuple, not a dict", tuple(batch.values()), "tuple"),
            ("a target of -1", {**batch, "tgt_out": torch.full_like(tgt, -1)}, ("tgt_out", "-1")),
        ],
    )


@cases("dl4nlp.decoder.Seq2SeqTransformer.greedy_decode")
def _():
    src, lengths = source()
    good = dict(src=src, src_lengths=lengths, max_len=3)
    yield from vary(model().greedy_decode, good, "max_len", int_variants(1) + [("max_len of the model", 10, "10")])
    yield from vary(model().greedy_decode, good, "bos", [("-1", -1, "-1"), ("beyond the vocabulary", V_TGT, "6")])
    yield from _source_cases(model().greedy_decode, good)


@cases("dl4nlp.decoder.Seq2SeqTransformer.attention_maps")
def _():
    torch.manual_seed(0)
    yield "before any forward pass", lambda: D.Seq2SeqTransformer(config()).attention_maps(), ("forward",)
