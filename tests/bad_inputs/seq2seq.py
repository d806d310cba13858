"""Bad inputs of dl4nlp.seq2seq."""

import functools

import torch

from bad_inputs.harness import cases, choice_variants, exempt, id_variants, int_variants, scratch, vary
from dl4nlp import seq2seq as S

V_SRC, V_TGT = 12, 9
exempt(
    "records of a (partial) output and of a beam search's result",
    "dl4nlp.seq2seq.Hypothesis",
    "dl4nlp.seq2seq.BeamSearchResult",
)


@functools.cache
def model() -> S.Seq2Seq:
    torch.manual_seed(0)
    return S.Seq2Seq(V_SRC, V_TGT, d_embed=4, d_hidden=6).eval()


def src():
    return torch.tensor([[3, 4, 5, 2], [6, 7, 2, 0]]), torch.tensor([4, 3])


@cases("dl4nlp.seq2seq.Encoder")
def _():
    good = dict(vocab_size=V_SRC, d_embed=4, d_hidden=6)
    yield from vary(S.Encoder, good, "vocab_size", int_variants(1))
    yield from vary(S.Encoder, good, "d_embed", int_variants(1)[:2])
    yield from vary(S.Encoder, good, "d_hidden", int_variants(1)[:2])


@cases("dl4nlp.seq2seq.Encoder.forward")
def _():
    torch.manual_seed(0)
    encoder = S.Encoder(V_SRC, 4, 6)
    ids, lengths = src()
    good = dict(src=ids, lengths=lengths)
    yield from vary(encoder, good, "src", id_variants(ids, V_SRC))
    yield from vary(
        encoder,
        good,
        "lengths",
        [
            ("a zero length", torch.tensor([4, 0]), "0"),
            ("longer than src", torch.tensor([5, 3]), "5"),
            ("another batch size", torch.tensor([4]), "(1,)"),
            ("a list", [4, 3], "list"),
            ("float", lengths.float(), "float32"),
        ],
    )


@cases("dl4nlp.seq2seq.Seq2Seq")
def _():
    good = dict(source_vocab_size=V_SRC, target_vocab_size=V_TGT)
    yield from vary(S.Seq2Seq, good, "source_vocab_size", int_variants(1))
    yield from vary(S.Seq2Seq, good, "target_vocab_size", int_variants(1)[:2])
    yield from vary(S.Seq2Seq, good, "d_hidden", int_variants(1)[:2])
    yield from vary(
        S.Seq2Seq, good, "score", choice_variants(("dot", "general", "additive"))[:1] + [("a bool", False, "False")]
    )


@cases("dl4nlp.seq2seq.Seq2Seq.encode")
def _():
    ids, lengths = src()
    good = dict(src=ids, src_lengths=lengths)
    yield from vary(model().encode, good, "src", id_variants(ids, V_SRC))
    yield from vary(
        model().encode,
        good,
        "src_lengths",
        [
            ("a zero length", torch.tensor([4, 0]), "0"),
            ("longer than src", torch.tensor([4, 9]), "9"),
            ("a list", [4, 3], "list"),
        ],
    )


def _state():
    ids, lengths = src()
    return model().encode(ids, lengths)


@cases("dl4nlp.seq2seq.Seq2Seq.decode")
def _():
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    good = dict(tgt_in=tgt, state=_state())
    yield from vary(model().decode, good, "tgt_in", id_variants(tgt, V_TGT))
    state = _state()
    yield from vary(
        model().decode,
        good,
        "state",
        [
            ("a tensor, not the encoder's state", state[0], "Tensor"),
            ("three parts", state[:3], "3"),
            ("another batch size", tuple(s[:1] for s in state), "(1, 6)"),
        ],
    )


@cases("dl4nlp.seq2seq.Seq2Seq.forward")
def _():
    ids, lengths = src()
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    good = dict(src=ids, src_lengths=lengths, tgt_in=tgt)
    yield from vary(model(), good, "tgt_in", id_variants(tgt, V_TGT) + [("another batch size", tgt[:1], "(1, 3)")])
    yield from vary(model(), good, "src", [("an id beyond the vocabulary", torch.full_like(ids, V_SRC), str(V_SRC))])


@cases("dl4nlp.seq2seq.Seq2Seq.loss")
def _():
    ids, lengths = src()
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    batch = dict(src=ids, src_lengths=lengths, tgt_in=tgt, tgt_out=tgt)
    yield from vary(
        model().loss,
        {},
        "batch",
        [
            ("without tgt_out", {k: v for k, v in batch.items() if k != "tgt_out"}, "tgt_out"),
            ("tgt_out of another shape", {**batch, "tgt_out": tgt[:, :2]}, ("tgt_out", "(2, 2)")),
            (
                "a target beyond the vocabulary",
                {**batch, "tgt_out": torch.full_like(tgt, V_TGT)},
                ("tgt_out", str(V_TGT)),
            ),
            ("a tuple, not a dict", tuple(batch.values()), "tuple"),
        ],
    )


@cases("dl4nlp.seq2seq.Seq2Seq.step")
def _():
    good = dict(tokens=torch.tensor([1, 1]), state=_state())
    yield from vary(
        model().step,
        good,
        "tokens",
        [
            ("(N, 1), not (N,)", torch.tensor([[1], [1]]), "(2, 1)"),
            ("an id beyond the vocabulary", torch.tensor([1, V_TGT]), str(V_TGT)),
            ("a list", [1, 1], "list"),
            ("another count than the state", torch.tensor([1]), "(1,)"),
        ],
    )


@cases("dl4nlp.seq2seq.Seq2Seq.greedy_decode")
def _():
    ids, lengths = src()
    good = dict(src=ids, src_lengths=lengths, max_len=3)
    yield from vary(model().greedy_decode, good, "max_len", int_variants(1))
    yield from vary(
        model().greedy_decode, good, "bos", [("beyond the vocabulary", V_TGT, str(V_TGT)), ("negative", -1, "-1")]
    )
    yield from vary(model().greedy_decode, good, "src", [("a string", "3 may", "str")])


@cases("dl4nlp.seq2seq.Seq2Seq.save")
def _():
    folder = scratch()
    yield "path: None", lambda: model().save(None, provenance={}), ("path", "None")
    yield "path: a .json file", lambda: model().save(folder / "m.json", provenance={}), ("path", ".pt")
    yield (
        "provenance: a string",
        lambda: model().save(folder / "p.pt", provenance="made by hand"),
        ("provenance", "str"),
    )


@cases("dl4nlp.seq2seq.Seq2Seq.load")
def _():
    folder = scratch()
    other = folder / "other.pt"
    torch.save({"weights": torch.ones(2)}, other)
    empty = folder / "empty.pt"
    empty.write_bytes(b"")
    yield "path: missing", lambda: S.Seq2Seq.load(folder / "missing.pt"), ("missing.pt",)
    yield "path: a checkpoint without its provenance", lambda: S.Seq2Seq.load(other), ("other.json", "provenance")
    yield "path: an empty file", lambda: S.Seq2Seq.load(empty), ("empty.pt", "empty")


def _table():
    return S.table_step({(): [0.5, 0.3, 0.2], (0,): [0.1, 0.1, 0.8], (1,): [0.2, 0.2, 0.6], (2,): [1 / 3] * 3})


@cases("dl4nlp.seq2seq.beam_search")
def _():
    step, state = _table()
    good = dict(step=step, state=state, bos=0, eos=2, beam_size=2, max_len=2)
    yield from vary(S.beam_search, good, "beam_size", int_variants(1))
    yield from vary(S.beam_search, good, "max_len", int_variants(1)[:3])
    yield from vary(S.beam_search, good, "step", [("not a function", 3, "int")])
    yield from vary(
        S.beam_search, good, "state", [("a tensor, not a tuple of tensors", state[0], "Tensor"), ("empty", (), "()")]
    )
    yield from vary(S.beam_search, good, "eos", [("a string", "</s>", "'</s>'")])


@cases("dl4nlp.seq2seq.greedy_search")
def _():
    step, state = _table()
    good = dict(step=step, state=state, bos=0, eos=2, max_len=2)
    yield from vary(S.greedy_search, good, "max_len", int_variants(1))
    yield from vary(S.greedy_search, good, "bos", [("a string", "<s>", "'<s>'")])


@cases("dl4nlp.seq2seq.table_step")
def _():
    yield from vary(
        S.table_step,
        {},
        "table",
        [
            ("probabilities that do not sum to one", {(): [0.5, 0.3]}, ("()", "0.8")),
            ("a negative probability", {(): [1.5, -0.5]}, "-0.5"),
            ("rows of different lengths", {(): [0.5, 0.5], (0,): [1.0]}, ("(0,)", "1")),
            ("a list, not a mapping", [[0.5, 0.5]], "list"),
            ("empty", {}, "{}"),
            ("a prefix that is not a tuple", {0: [0.5, 0.5]}, "0"),
        ],
    )


@cases("dl4nlp.seq2seq.exhaustive_search")
def _():
    good = dict(table={(): [0.4, 0.6], (1,): [0.9, 0.1]}, eos=0, max_len=2)
    yield from vary(
        S.exhaustive_search,
        good,
        "table",
        [
            ("probabilities that do not sum to one", {(): [0.5, 0.3]}, ("()", "0.8")),
            ("a NaN probability", {(): [float("nan"), 1.0]}, "nan"),
            ("a list, not a mapping", [[0.5, 0.5]], "list"),
            ("no row for the empty prefix", {(1,): [0.5, 0.5]}, "()"),
            ("no row for a reachable prefix", {(): [0.4, 0.6]}, ("(1,)", "prefix")),
        ],
    )
    yield from vary(S.exhaustive_search, good, "eos", [("beyond the rows", 2, "2"), ("negative", -1, "-1")])
    yield from vary(S.exhaustive_search, good, "max_len", int_variants(1))


@cases("dl4nlp.seq2seq.Seq2SeqConfig")
def _():
    good = dict(source_vocab_size=V_SRC, target_vocab_size=V_TGT)
    yield from vary(S.Seq2SeqConfig, good, "d_embed", int_variants(1)[:3])
    yield from vary(S.Seq2SeqConfig, good, "decoder", choice_variants(S.DECODERS))
    yield from vary(S.Seq2SeqConfig, good, "input_feeding", [("a string", "yes", "'yes'")])
    yield from vary(
        S.Seq2SeqConfig, good, "score", [("an unknown score", "cosine", "'cosine'"), ("a list", ["dot"], "['dot']")]
    )
    yield from vary(
        S.Seq2SeqConfig,
        good,
        "unattended",
        [("an int", 2, "int"), ("an id beyond the vocabulary", (V_SRC,), f"{V_SRC}"), ("a string id", ("2",), "'2'")],
    )
    yield (
        "unattended without attention",
        lambda: S.Seq2SeqConfig(V_SRC, V_TGT, score=None, unattended=(2,)),
        ("unattended needs attention", "score=None"),
    )


@cases("dl4nlp.seq2seq.Seq2Seq.from_config")
def _():
    yield from vary(
        S.Seq2Seq.from_config,
        {},
        "config",
        [("a dict", dict(source_vocab_size=V_SRC), "dict"), ("None", None, "NoneType")],
    )


@cases("dl4nlp.seq2seq.Seq2Seq.decode_one")
def _():
    good = dict(tokens=torch.tensor([1, 1]), state=_state())
    yield from vary(
        model().decode_one,
        good,
        "tokens",
        [
            ("(N, 1), not (N,)", torch.tensor([[1], [1]]), "(2, 1)"),
            ("an id beyond the vocabulary", torch.tensor([1, V_TGT]), str(V_TGT)),
            ("a list", [1, 1], "list"),
            ("another count than the state", torch.tensor([1]), "(1,)"),
        ],
    )
    yield from vary(
        model().decode_one,
        good,
        "state",
        [("four parts (an old state)", _state()[:4], "4"), ("a tensor", _state()[0], "Tensor")],
    )


@cases("dl4nlp.seq2seq.Seq2Seq.decode_steps")
def _():
    tgt = torch.tensor([[1, 3, 4], [1, 5, 2]])
    good = dict(tgt_in=tgt, state=_state())
    yield from vary(model().decode_steps, good, "tgt_in", id_variants(tgt, V_TGT)[:5])
    yield from vary(
        model().decode_steps, good, "state", [("another batch size", tuple(s[:1] for s in _state()), "(1, 6)")]
    )


@cases("dl4nlp.seq2seq.length_penalty")
def _():
    yield from vary(S.length_penalty, dict(length=3, alpha=0.6), "length", int_variants(1))
    yield from vary(
        S.length_penalty,
        dict(length=3, alpha=0.6),
        "alpha",
        [
            ("negative", -1.0, "-1.0"),
            ("NaN", float("nan"), "nan"),
            ("a string", "0.6", "'0.6'"),
            ("True", True, "True"),
            ("so large that lp overflows", 1e6, "1000000.0"),
        ],
    )


@cases("dl4nlp.seq2seq.normalized_score")
def _():
    good = dict(hypothesis=S.Hypothesis(-1.0, [1, 3, 2]), alpha=0.6)
    yield from vary(
        S.normalized_score,
        good,
        "hypothesis",
        [("a float score", -1.0, "float"), ("only the start token", S.Hypothesis(0.0, [1]), "[1]")],
    )
    yield from vary(S.normalized_score, good, "alpha", [("negative", -1.0, "-1.0")])
