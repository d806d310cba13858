"""Bad inputs of dl4nlp.rnn and dl4nlp.lstm: cells, unrolled loops, models, losses, sampling."""

import torch
from torch import nn

from bad_inputs.harness import (
    cases,
    choice_variants,
    exempt,
    float_variants,
    id_variants,
    int_variants,
    scratch,
    shape,
    vary,
    with_nan,
)
from dl4nlp import lstm as L
from dl4nlp import rnn as R
from dl4nlp.checkpoint import save_checkpoint
from dl4nlp.recipes import char_lstm

IN, H, Bn, T = 3, 4, 2, 5


def rand(*size, seed=0, dtype=torch.float32):
    return torch.randn(*size, generator=torch.Generator().manual_seed(seed), dtype=dtype)


exempt("the command line of a recipe (argparse reports bad arguments)", "dl4nlp.recipes.char_lstm.main")
exempt("a record (h, c, gates) that LSTMCell returns", "dl4nlp.lstm.LSTMStep")


def _size_cases(cls, **extra):
    good = dict(input_size=IN, hidden_size=H, **extra)
    yield from vary(cls, good, "input_size", int_variants(1))
    yield from vary(cls, good, "hidden_size", int_variants(1))


def _x_cases(fn, good, x):
    yield from vary(
        fn,
        good,
        "x",
        float_variants(x) + [("another input size", rand(*x.shape[:-1], IN + 1), shape(rand(*x.shape[:-1], IN + 1)))],
    )
    yield "x: float64 into a float32 module", lambda: fn(**{**good, "x": x.double()}), ("x", "float64")


def _state_variants(batch=Bn):
    h = rand(batch, H, seed=1)
    return [
        ("a batch-1 state for a batch of 2", h[:1], "(1, 4)"),
        ("nn.RNN-style (1, B, H)", h[None], "(1, 2, 4)"),
        ("another hidden size", rand(batch, H + 1), "(2, 5)"),
        ("a NaN", with_nan(h), "nan"),
        ("a string", "zeros", "str"),
        ("float64 into a float32 module", h.double(), "float64"),
    ]


# --- dl4nlp.rnn -----------------------------------------------------------------------------
@cases("dl4nlp.rnn.RNNCell")
def _():
    yield from _size_cases(R.RNNCell)
    yield from vary(R.RNNCell, dict(input_size=IN, hidden_size=H), "nonlinearity", choice_variants(R.NONLINEARITIES))


@cases("dl4nlp.rnn.RNNCell.forward")
def _():
    cell = R.RNNCell(IN, H)
    x, h = rand(Bn, IN), rand(Bn, H, seed=1)
    yield from _x_cases(cell, dict(x=x, h=h), x)
    yield from vary(cell, dict(x=x, h=h), "h", _state_variants() + [("None", None, "None")])


@cases("dl4nlp.rnn.RNNCell.pre_activation")
def _():
    cell = R.RNNCell(IN, H)
    x, h = rand(Bn, IN), rand(Bn, H, seed=1)
    yield from vary(
        cell.pre_activation,
        dict(x=x, h=h),
        "x",
        [("another input size", rand(Bn, IN + 1), "(2, 4)"), ("a string", "x", "str")],
    )
    yield from vary(cell.pre_activation, dict(x=x, h=h), "h", _state_variants()[:3])


@cases("dl4nlp.rnn.UnrolledRNN")
def _():
    yield from _size_cases(R.UnrolledRNN)
    yield from vary(
        R.UnrolledRNN, dict(input_size=IN, hidden_size=H), "nonlinearity", choice_variants(R.NONLINEARITIES)[:1]
    )


@cases("dl4nlp.rnn.UnrolledRNN.forward")
def _():
    model, x = R.UnrolledRNN(IN, H), rand(Bn, T, IN)
    yield from _x_cases(model, dict(x=x), x)
    yield "x: no time steps", lambda: model(x[:, :0]), ("x", "(2, 0, 3)")
    yield from vary(model, dict(x=x), "h0", _state_variants())


def _from_torch_cases(cls, torch_cls, other_cls, **extra):
    def from_torch(*args, **kwargs):
        return cls.from_torch(*args, **kwargs)

    yield "module: another kind", lambda: from_torch(other_cls(IN, H)), ("module", other_cls.__name__)
    yield "module: a string", lambda: from_torch("rnn"), ("module", "str")
    yield "layer: beyond num_layers", lambda: from_torch(torch_cls(IN, H, num_layers=2), layer=2), ("layer", "2")
    yield "layer: negative", lambda: from_torch(torch_cls(IN, H), layer=-1), ("layer", "-1")
    yield "layer: a string", lambda: from_torch(torch_cls(IN, H), layer="0"), ("layer", "'0'")
    yield (
        "reverse: without a backward direction",
        lambda: from_torch(torch_cls(IN, H), reverse=True),
        ("reverse", "bidirectional"),
    )
    yield "module: without biases", lambda: from_torch(torch_cls(IN, H, bias=False)), ("module", "bias=False")
    for label, module, mentions in extra.get("more", []):
        yield label, lambda module=module: from_torch(module), mentions


@cases("dl4nlp.rnn.UnrolledRNN.from_torch")
def _():
    yield from _from_torch_cases(R.UnrolledRNN, nn.RNN, nn.GRU)


@cases("dl4nlp.rnn.make_recurrent")
def _():
    good = dict(kind="rnn", input_size=IN, hidden_size=H)
    yield from vary(R.make_recurrent, good, "kind", choice_variants(R.KINDS))
    yield from vary(R.make_recurrent, good, "nonlinearity", choice_variants(R.NONLINEARITIES)[:1])
    yield from vary(R.make_recurrent, good, "hidden_size", int_variants(1))
    yield from vary(R.make_recurrent, good, "input_size", int_variants(1)[:2])
    yield from vary(R.make_recurrent, good, "num_layers", int_variants(1)[:2])


@cases("dl4nlp.rnn.identity_init_")
def _():
    yield "module: an LSTM", lambda: R.identity_init_(nn.LSTM(IN, H)), ("module", "LSTM")
    yield "module: without biases", lambda: R.identity_init_(nn.RNN(IN, H, bias=False)), ("module", "bias=False")
    yield "module: a string", lambda: R.identity_init_("rnn"), ("module", "str")


@cases("dl4nlp.rnn.RecurrentClassifier")
def _():
    good = dict(vocab_size=10, num_classes=3)
    yield from vary(R.RecurrentClassifier, good, "vocab_size", int_variants(1))
    yield from vary(R.RecurrentClassifier, good, "num_classes", int_variants(1)[:2])
    yield from vary(R.RecurrentClassifier, good, "hidden_size", int_variants(1)[:2])
    yield from vary(R.RecurrentClassifier, good, "embedding_dim", int_variants(1)[:2])
    yield from vary(R.RecurrentClassifier, good, "kind", choice_variants(R.KINDS)[:1])


@cases("dl4nlp.rnn.RecurrentClassifier.forward")
def _():
    torch.manual_seed(0)
    model = R.RecurrentClassifier(10, 3)
    tokens = torch.randint(10, (Bn, T))
    yield from vary(
        model, dict(tokens=tokens), "tokens", id_variants(tokens, 10) + [("no time steps", tokens[:, :0], "(2, 0)")]
    )
    yield from vary(
        model,
        dict(tokens=None),
        "embedded",
        [
            ("another embedding size", rand(Bn, T, 5), "(2, 5, 5)"),
            ("a NaN", with_nan(rand(Bn, T, 16)), "nan"),
            ("two dimensions", rand(T, 16), "(5, 16)"),
        ],
    )


@cases("dl4nlp.rnn.RecurrentLM")
def _():
    good = dict(vocab_size=10, hidden_size=8, embedding_dim=4)
    yield from vary(R.RecurrentLM, good, "vocab_size", int_variants(1))
    yield from vary(R.RecurrentLM, good, "hidden_size", int_variants(1)[:2])
    yield from vary(R.RecurrentLM, good, "num_layers", int_variants(1)[:2])
    yield from vary(R.RecurrentLM, good, "kind", choice_variants(R.KINDS))


@cases("dl4nlp.rnn.RecurrentLM.forward")
def _():
    torch.manual_seed(0)
    model = R.RecurrentLM(10, 8, "lstm", 4)
    ids = torch.randint(10, (Bn, T))
    yield from vary(model, dict(ids=ids), "ids", id_variants(ids, 10) + [("no time steps", ids[:, :0], "(2, 0)")])
    h = torch.zeros(1, Bn, 8)
    yield from vary(
        model,
        dict(ids=ids),
        "state",
        [
            ("one tensor for an LSTM", h, "Tensor"),
            ("(B, H) tensors without the layer dimension", (h[0], h[0]), "(2, 8)"),
            ("another batch size", (h[:, :1], h[:, :1]), "(1, 1, 8)"),
        ],
    )


@cases("dl4nlp.rnn.language_model_loss")
def _():
    logits, targets = rand(Bn, T, 10), torch.randint(10, (Bn, T))
    good = dict(logits=logits, targets=targets)
    yield from vary(
        R.language_model_loss,
        good,
        "logits",
        float_variants(logits, ndim=False) + [("two dimensions", logits[0], "(5, 10)")],
    )
    yield from vary(
        R.language_model_loss,
        good,
        "targets",
        [
            ("(T, B), transposed", targets.T, "(5, 2)"),
            ("a target beyond the vocabulary", torch.full((Bn, T), 10), "10"),
            ("float", targets.float(), "float32"),
            ("a string", "abc", "str"),
        ],
    )
    yield from vary(R.language_model_loss, good, "reduction", choice_variants(("mean", "sum")))


@cases("dl4nlp.rnn.sample")
def _():
    torch.manual_seed(0)
    model = R.RecurrentLM(10, 8, "lstm", 4)
    good = dict(model=model, prompt=[1, 2], length=3)
    yield from vary(
        R.sample,
        good,
        "prompt",
        [
            ("empty", [], "[]"),
            ("a string", "ab", "str"),
            ("an id beyond the vocabulary", [1, 10], "10"),
            ("a negative id", [-1], "-1"),
            ("floats", [1.5], "1.5"),
        ],
    )
    yield from vary(R.sample, good, "length", int_variants(0))
    yield from vary(
        R.sample,
        good,
        "temperature",
        [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan"), ("a string", "1", "'1'")],
    )
    yield from vary(R.sample, good, "model", [("a string", "lm", "str")])


@cases("dl4nlp.rnn.scaled_orthogonal")
def _():
    good = dict(size=4, radius=1.0)
    yield from vary(R.scaled_orthogonal, good, "size", int_variants(1))
    yield from vary(
        R.scaled_orthogonal,
        good,
        "radius",
        [("0", 0.0, "0.0"), ("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan"), ("inf", float("inf"), "inf")],
    )


@cases("dl4nlp.rnn.jacobian_norms")
def _():
    w = rand(4, 4)
    good = dict(weight_hh=w, steps=3)
    yield from vary(
        R.jacobian_norms,
        good,
        "weight_hh",
        [
            ("not square", rand(4, 3), "(4, 3)"),
            ("a NaN", with_nan(w), "nan"),
            ("a list", w.tolist(), "list"),
            ("one dimension", w[0], "(4,)"),
        ],
    )
    yield from vary(R.jacobian_norms, good, "steps", int_variants(1))
    yield from vary(R.jacobian_norms, good, "nonlinearity", choice_variants(("tanh", "relu", "linear")))
    yield from vary(R.jacobian_norms, good, "input_scale", [("negative", -1.0, "-1.0"), ("NaN", float("nan"), "nan")])


@cases("dl4nlp.rnn.load_weights_")
def _():
    cell = R.RNNCell(IN, H)
    good = dict(target=cell)
    yield from vary(
        R.load_weights_,
        good,
        "weights",
        [
            ("an unknown name", {"weight_xx": torch.zeros(H, IN)}, "'weight_xx'"),
            ("a wrong shape", {"weight_ih": torch.zeros(H, IN + 1)}, "(4, 4)"),
            ("a list, not a tensor", {"weight_ih": [[0.0] * IN] * H}, "list"),
            ("a NaN", {"weight_ih": with_nan(torch.zeros(H, IN))}, "nan"),
        ],
    )


# --- dl4nlp.lstm ----------------------------------------------------------------------------
@cases("dl4nlp.lstm.LSTMCell")
def _():
    yield from _size_cases(L.LSTMCell)


@cases("dl4nlp.lstm.GRUCell")
def _():
    yield from _size_cases(L.GRUCell)


@cases("dl4nlp.lstm.LSTMCell.forward")
def _():
    cell = L.LSTMCell(IN, H)
    x, h, c = rand(Bn, IN), rand(Bn, H, seed=1), rand(Bn, H, seed=2)
    good = dict(x=x, state=(h, c))
    yield from _x_cases(cell, good, x)
    yield from vary(
        cell,
        good,
        "state",
        [
            ("one (2, H) tensor, not (h, c)", torch.stack([h[0], c[0]]), "Tensor"),
            ("None", None, "None"),
            ("three tensors", (h, c, c), "3"),
            ("a batch-1 state for a batch of 2", (h[:1], c[:1]), "(1, 4)"),
            ("nn.LSTM-style (1, B, H)", (h[None], c[None]), "(1, 2, 4)"),
            ("c of another shape", (h, c[:, :3]), "(2, 3)"),
            ("a NaN in c", (h, with_nan(c)), "nan"),
        ],
    )


@cases("dl4nlp.lstm.GRUCell.forward")
def _():
    cell = L.GRUCell(IN, H)
    x, h = rand(Bn, IN), rand(Bn, H, seed=1)
    yield from _x_cases(cell, dict(x=x, h=h), x)
    yield from vary(cell, dict(x=x, h=h), "h", _state_variants() + [("None", None, "None")])


@cases("dl4nlp.lstm.UnrolledLSTM")
def _():
    yield from _size_cases(L.UnrolledLSTM)


@cases("dl4nlp.lstm.UnrolledGRU")
def _():
    yield from _size_cases(L.UnrolledGRU)


@cases("dl4nlp.lstm.UnrolledLSTM.forward")
def _():
    model, x = L.UnrolledLSTM(IN, H), rand(Bn, T, IN)
    h = rand(Bn, H, seed=1)
    yield from _x_cases(model, dict(x=x), x)
    yield "x: no time steps", lambda: model(x[:, :0]), ("x", "(2, 0, 3)")
    yield from vary(
        model,
        dict(x=x),
        "state",
        [
            ("one tensor, not (h, c)", h, "Tensor"),
            ("nn.LSTM-style (1, B, H) each", (h[None], h[None]), "(1, 2, 4)"),
            ("a batch-1 state for a batch of 2", (h[:1], h[:1]), "(1, 4)"),
            ("a NaN in h", (with_nan(h), h), "nan"),
        ],
    )


@cases("dl4nlp.lstm.UnrolledGRU.forward")
def _():
    model, x = L.UnrolledGRU(IN, H), rand(Bn, T, IN)
    yield from _x_cases(model, dict(x=x), x)
    yield "x: no time steps", lambda: model(x[:, :0]), ("x", "(2, 0, 3)")
    yield from vary(model, dict(x=x), "h", _state_variants())


@cases("dl4nlp.lstm.UnrolledLSTM.from_torch")
def _():
    yield from _from_torch_cases(
        L.UnrolledLSTM,
        nn.LSTM,
        nn.GRU,
        more=[("module: with proj_size", nn.LSTM(IN, H, proj_size=2), ("module", "proj_size"))],
    )


@cases("dl4nlp.lstm.UnrolledGRU.from_torch")
def _():
    yield from _from_torch_cases(L.UnrolledGRU, nn.GRU, nn.LSTM)


@cases("dl4nlp.lstm.set_forget_bias_")
def _():
    good = dict(module=nn.LSTM(IN, H), value=1.0)
    yield from vary(
        L.set_forget_bias_,
        good,
        "module",
        [("a GRU", nn.GRU(IN, H), "GRU"), ("an UnrolledLSTM", L.UnrolledLSTM(IN, H), "UnrolledLSTM")],
    )
    yield from vary(
        L.set_forget_bias_,
        good,
        "value",
        [("NaN", float("nan"), "nan"), ("a string", "1", "'1'"), ("inf", float("inf"), "inf")],
    )
    yield (
        "module: without biases",
        lambda: L.set_forget_bias_(nn.LSTM(IN, H, bias=False), 1.0),
        ("module", "bias=False"),
    )


@cases("dl4nlp.recipes.char_lstm.stream_batches")
def _():
    ids = torch.arange(40)
    good = dict(ids=ids, batch_size=2, length=5)
    yield from vary(
        char_lstm.stream_batches,
        good,
        "ids",
        [
            ("a string", "some text", "str"),
            ("two dimensions", ids.view(4, 10), "(4, 10)"),
            ("a float tensor", ids.float(), "float32"),
            ("empty", ids[:0], "(0,)"),
            ("too short for the streams", ids[:8], "8"),
        ],
    )
    yield from vary(char_lstm.stream_batches, good, "batch_size", int_variants(1))
    yield from vary(char_lstm.stream_batches, good, "length", int_variants(1))


@cases("dl4nlp.lstm.load_char_model")
def _():
    folder = scratch()
    other = folder / "other.pt"
    save_checkpoint(other, kind="demo", config={}, state_dict={"w": torch.ones(2)}, provenance={"command": "x"})
    yield "path: missing", lambda: L.load_char_model(folder / "missing.pt"), ("missing.pt",)
    yield "path: a checkpoint of something else", lambda: L.load_char_model(other), ("other.pt", "demo", "char_lstm")
    yield "map_location: an unknown name", lambda: L.load_char_model(other, map_location="gpu"), ("map_location", "gpu")
