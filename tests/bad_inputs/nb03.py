"""Bad inputs of what notebooks 04 and 05 added: LSTM variants, lstm_trace, RecurrentTagger, RecurrentLMConfig,
nearest_centroid_accuracy, the char-LSTM recipe's split_text, the cell diagrams, and experiments.lstm / char_lstm."""

import math

import numpy as np
import torch
from torch import nn

from bad_inputs.harness import cases, choice_variants, exempt, float_variants, id_variants, int_variants, vary, with_nan
from dl4nlp import diagrams as G
from dl4nlp import lstm as L
from dl4nlp import probes
from dl4nlp import rnn as R
from dl4nlp.experiments import char_lstm as EC
from dl4nlp.experiments import lstm as EL
from dl4nlp.recipes import char_lstm
from dl4nlp.vocab import CharVocab

exempt(
    "records of an experiment's numbers, returned by the experiment functions",
    "dl4nlp.experiments.char_lstm.BoundaryGates",
    "dl4nlp.experiments.char_lstm.QuotationCell",
    "dl4nlp.experiments.char_lstm.WordSenses",
    "dl4nlp.experiments.lstm.DirectionAndDepth",
    "dl4nlp.experiments.lstm.ExplodingGradient",
    "dl4nlp.experiments.lstm.LagMemory",
)
exempt("takes no arguments (its repr)", "dl4nlp.lstm.GRUCell.extra_repr")
exempt(
    "experiments over the shipped char-LSTM checkpoints, whose only argument, seed, picks a shipped file: "
    "their bad seeds are the cases of char_model_path, which each of them calls first",
    "dl4nlp.experiments.char_lstm.boundary_gates",
    "dl4nlp.experiments.char_lstm.left_senses",
    "dl4nlp.experiments.char_lstm.quotation_cell",
)


def _seed_variants():
    return [("negative", -1, "-1"), ("a float", 0.5, "0.5"), ("a string", "0", "'0'")]


# --- lstm -------------------------------------------------------------------------------------
def _cell_cases(cell_class):
    cell = cell_class(3, 4)
    x, h = torch.randn(2, 3), torch.zeros(2, 4)
    good = dict(x=x, state=(h, h))
    yield from vary(cell, good, "x", float_variants(x)[:6])
    yield from vary(
        cell,
        good,
        "state",
        [
            ("one (2, H) tensor, not (h, c)", h, "tensor"),
            ("three tensors", (h, h, h), "3"),
            ("a NaN in c", (h, with_nan(h)), "nan"),
            ("nn.LSTM-style (1, B, H)", (h[None], h[None]), ("state", "(1, 2, 4)")),
        ],
    )


@cases("dl4nlp.lstm.PeepholeLSTMCell.forward")
def _():
    yield from _cell_cases(L.PeepholeLSTMCell)


@cases("dl4nlp.lstm.CoupledLSTMCell.forward")
def _():
    yield from _cell_cases(L.CoupledLSTMCell)


@cases("dl4nlp.lstm.PeepholeLSTMCell")
def _():
    yield from vary(L.PeepholeLSTMCell, dict(input_size=3, hidden_size=4), "hidden_size", int_variants(1))


@cases("dl4nlp.lstm.CoupledLSTMCell")
def _():
    yield from vary(L.CoupledLSTMCell, dict(input_size=3, hidden_size=4), "input_size", int_variants(1))


def _pre_activation_cases(cell_class):
    cell = cell_class(3, 4)
    x, h = torch.randn(2, 3), torch.zeros(2, 4)
    yield from vary(cell.pre_activations, dict(x=x, h=h), "x", float_variants(x)[:6])
    yield from vary(cell.pre_activations, dict(x=x, h=h), "h", [("(1, B, H)", h[None], "(1, 2, 4)")])


@cases("dl4nlp.lstm.LSTMCell.pre_activations")
def _():
    yield from _pre_activation_cases(L.LSTMCell)


@cases("dl4nlp.lstm.PeepholeLSTMCell.pre_activations")
def _():
    yield from _pre_activation_cases(L.PeepholeLSTMCell)


@cases("dl4nlp.lstm.CoupledLSTMCell.pre_activations")
def _():
    yield from _pre_activation_cases(L.CoupledLSTMCell)


@cases("dl4nlp.lstm.lstm_trace")
def _():
    module = nn.LSTM(3, 4, batch_first=True)
    x = torch.randn(2, 5, 3)
    good = dict(module=module, x=x)
    yield from vary(L.lstm_trace, good, "x", float_variants(x)[:7])
    yield from vary(
        L.lstm_trace,
        good,
        "module",
        [
            ("a GRU", nn.GRU(3, 4, batch_first=True), "GRU"),
            ("two layers", nn.LSTM(3, 4, num_layers=2, batch_first=True), "2"),
            ("time first", nn.LSTM(3, 4), "batch_first"),
        ],
    )
    yield from vary(L.lstm_trace, good, "cells", [("beyond the hidden size", [4], "4"), ("empty", [], "[]")])


@cases("dl4nlp.lstm.set_update_bias_")
def _():
    good = dict(module=nn.GRU(3, 4), value=1.0)
    yield from vary(L.set_update_bias_, good, "module", [("an LSTM", nn.LSTM(3, 4), "LSTM")])
    yield from vary(L.set_update_bias_, good, "module", [("without biases", nn.GRU(3, 4, bias=False), "bias")])
    yield from vary(L.set_update_bias_, good, "value", [("NaN", math.nan, "nan"), ("a string", "1", "'1'")])


@cases("dl4nlp.lstm.final_states")
def _():
    vocab = CharVocab("abc ")
    model = R.RecurrentLM(vocab_size=4, hidden_size=5, embedding_dim=3)
    good = dict(model=model, vocab=vocab, texts=["ab", "c a"])
    yield from vary(L.final_states, good, "texts", [("one string", "abc", "str"), ("an empty text", ["ab", ""], "''")])
    yield from vary(L.final_states, good, "texts", [("an unknown character", ["abz"], "'z'")])
    yield from vary(L.final_states, good, "model", [("an nn.LSTM", nn.LSTM(3, 5), "LSTM")])
    yield from vary(L.final_states, good, "vocab", [("a string", "abc ", "str")])


# --- rnn --------------------------------------------------------------------------------------
@cases("dl4nlp.rnn.check_token_ids")
def _():
    ids = torch.randint(0, 5, (2, 6))
    yield from vary(R.check_token_ids, dict(ids=ids, vocab_size=5), "ids", id_variants(ids, 5))
    yield from vary(R.check_token_ids, dict(ids=ids, vocab_size=5), "vocab_size", int_variants(1)[:3])


@cases("dl4nlp.rnn.RecurrentTagger")
def _():
    good = dict(vocab_size=5, num_classes=3)
    yield from vary(R.RecurrentTagger, good, "num_classes", int_variants(1))
    yield from vary(R.RecurrentTagger, good, "kind", choice_variants(R.KINDS))
    yield from vary(R.RecurrentTagger, good, "bidirectional", [("a string", "yes", "'yes'")])
    yield from vary(R.RecurrentTagger, good, "num_layers", int_variants(1)[:3])


@cases("dl4nlp.rnn.RecurrentTagger.forward")
def _():
    model = R.RecurrentTagger(vocab_size=5, num_classes=3)
    ids = torch.randint(0, 5, (2, 6))
    yield from vary(model, dict(tokens=ids), "tokens", id_variants(ids, 5))


@cases("dl4nlp.rnn.RecurrentLMConfig")
def _():
    good = dict(vocab_size=5)
    yield from vary(R.RecurrentLMConfig, good, "vocab_size", int_variants(1))
    yield from vary(R.RecurrentLMConfig, good, "kind", choice_variants(R.KINDS))
    yield from vary(R.RecurrentLMConfig, good, "nonlinearity", choice_variants(R.NONLINEARITIES))
    yield from vary(R.RecurrentLMConfig, good, "hidden_size", int_variants(1)[:3])


@cases("dl4nlp.rnn.RecurrentLM.from_config")
def _():
    yield from vary(
        R.RecurrentLM.from_config,
        {},
        "config",
        [
            ("a dict with an unknown field", {"vocab_size": 5, "layers": 2}, "layers"),
            ("a list", [5], "list"),
            ("a dict with a bad size", {"vocab_size": 0}, "0"),
        ],
    )


# --- probes, recipe, diagrams ---------------------------------------------------------------
@cases("dl4nlp.probes.nearest_centroid_accuracy")
def _():
    vectors = np.random.default_rng(0).normal(size=(6, 3))
    labels = np.array([0, 0, 0, 1, 1, 1])
    good = dict(vectors=vectors, labels=labels)
    nan = vectors.copy()
    nan[0, 0] = math.nan
    yield from vary(
        probes.nearest_centroid_accuracy,
        good,
        "vectors",
        [("a NaN", nan, "nan"), ("one dimension", vectors[:, 0], "(6,)"), ("a string", "v", "str")],
    )
    yield from vary(
        probes.nearest_centroid_accuracy,
        good,
        "labels",
        [
            ("one too few", labels[:5], "(5,)"),
            ("one class", np.zeros(6, dtype=int), "counts"),
            ("floats", labels.astype(float), "float64"),
            ("a string", "aaabbb", "str"),
        ],
    )


@cases("dl4nlp.recipes.char_lstm.split_text")
def _():
    yield from vary(char_lstm.split_text, {}, "text", [("one character", "a", "'a'"), ("a list", ["ab"], "list")])


@cases("dl4nlp.diagrams.lstm_cell_diagram")
def _():
    yield from vary(
        G.lstm_cell_diagram, {}, "cell", [("a GRUCell", L.GRUCell(3, 4), "GRUCell"), ("None", None, "None")]
    )


@cases("dl4nlp.diagrams.gru_cell_diagram")
def _():
    yield from vary(
        G.gru_cell_diagram, {}, "cell", [("an LSTMCell", L.LSTMCell(3, 4), "LSTMCell"), ("a string", "gru", "str")]
    )


@cases("dl4nlp.diagrams.elmo_diagram")
def _():
    forward = R.RecurrentLM(vocab_size=4, hidden_size=5, embedding_dim=3)
    good = dict(forward=forward, backward=forward)
    yield from vary(G.elmo_diagram, good, "backward", [("an nn.LSTM", nn.LSTM(3, 5), "LSTM")])
    yield from vary(G.elmo_diagram, good, "word", [("a word not in the text", "right", "right")])


# --- experiments ------------------------------------------------------------------------------
@cases("dl4nlp.experiments.char_lstm.char_model_path")
def _():
    yield from vary(EC.char_model_path, {}, "seed", _seed_variants())


@cases("dl4nlp.experiments.char_lstm.distance_since_opening")
def _():
    yield from vary(
        EC.distance_since_opening,
        {},
        "labels",
        [("a list of strings", ["a", "b"], "<U1"), ("two dimensions", np.zeros((2, 3), dtype=bool), "(2, 3)")],
    )


@cases("dl4nlp.experiments.char_lstm.sense_occurrences")
def _():
    good = dict(text="his left hand " * 20)
    yield from vary(EC.sense_occurrences, good, "text", [("a list", ["left"], "list")])
    yield from vary(EC.sense_occurrences, good, "window", int_variants(1)[:3])


@cases("dl4nlp.experiments.char_lstm.elmo_vectors")
def _():
    vocab = CharVocab("abc ")
    model = R.RecurrentLM(vocab_size=4, hidden_size=5, embedding_dim=3)
    good = dict(forward=model, backward=model, vocab=vocab, text="ab c", spans=[(0, 2)])
    yield from vary(EC.elmo_vectors, good, "spans", [("a span past the text", [(2, 9)], "(2, 9)"), ("empty", [], "[]")])
    yield from vary(EC.elmo_vectors, good, "text", [("an unknown character", "ab z", "'z'")])
    yield from vary(EC.elmo_vectors, good, "forward", [("an nn.LSTM", nn.LSTM(3, 5), "LSTM")])


@cases("dl4nlp.experiments.lstm.direction_and_depth")
def _():
    yield from vary(EL.direction_and_depth, {}, "seed", _seed_variants())


@cases("dl4nlp.experiments.lstm.exploding_gradient")
def _():
    yield from vary(EL.exploding_gradient, {}, "seed", _seed_variants())
    yield from vary(EL.exploding_gradient, {}, "scales", [("empty", (), "()"), ("a negative scale", (-1.0,), "-1.0")])


@cases("dl4nlp.experiments.lstm.lag_memory")
def _():
    yield from vary(EL.lag_memory, {}, "seed", _seed_variants())
    yield from vary(
        EL.lag_memory, {}, "kinds", [("an unknown kind", ("transformer",), "transformer"), ("empty", (), "()")]
    )


@cases("dl4nlp.experiments.lstm.join_lag_memory")
def _():
    part = EL.LagMemory({"rnn": 0.3}, {"rnn": 1e-9}, {"rnn": 1e-8}, {"rnn": None}, {"rnn": np.ones(3)})
    yield from vary(
        EL.join_lag_memory,
        {},
        "parts",
        [
            ("a dict", {"rnn": 0.3}, "dict"),
            ("a number in the list", [part, 3], "int"),
            ("a kind twice", [part, part], "rnn"),
        ],
    )


@cases("dl4nlp.experiments.lstm.gradient_reaching_each_step")
def _():
    model = R.RecurrentClassifier(vocab_size=4, num_classes=2, hidden_size=5)
    tokens, labels = torch.randint(0, 4, (3, 6)), torch.tensor([0, 1, 0])
    good = dict(model=model, tokens=tokens, labels=labels)
    yield from vary(EL.gradient_reaching_each_step, good, "tokens", id_variants(tokens, 4)[:5])
    yield from vary(
        EL.gradient_reaching_each_step,
        good,
        "labels",
        [("a class beyond num_classes", torch.tensor([0, 2, 0]), "2"), ("one too few", labels[:2], "(2,)")],
    )
    yield from vary(EL.gradient_reaching_each_step, good, "model", [("an nn.LSTM", nn.LSTM(4, 5), "LSTM")])


@cases("dl4nlp.experiments.lstm.tagger_size")
def _():
    good = dict(num_layers=1, bidirectional=False, target=1000)
    yield from vary(EL.tagger_size, good, "num_layers", int_variants(1)[:3])
    yield from vary(EL.tagger_size, good, "bidirectional", [("a string", "no", "'no'")])
    yield from vary(EL.tagger_size, good, "target", int_variants(1)[:3])


@cases("dl4nlp.experiments.lstm.tagging_task")
def _():
    good = dict(batch_size=2, rule="previous")
    yield from vary(EL.tagging_task, good, "batch_size", int_variants(1)[:3])
    yield from vary(EL.tagging_task, good, "rule", [("an unknown rule", "bogus", "bogus")])
    yield from vary(EL.tagging_task, good, "length", int_variants(1)[:3])
    yield from vary(EL.tagging_task, good, "generator", [("a seed", 0, "int")])


@cases("dl4nlp.experiments.char_lstm.has_quotation_cell")
def _():
    yield from vary(EC.has_quotation_cell, {}, "quote", [("a dict", {"passage_auc": 0.9}, "dict")])


@cases("dl4nlp.probes.linear_probe")
def _():
    import numpy as np

    x = np.array([[0.0, 1.0], [1.0, 0.0], [0.2, 0.8], [0.9, 0.1]])
    good = dict(train_activations=x, train_labels=[True, False, True, False], test_activations=x, ridge=1.0)
    yield from vary(probes.linear_probe, good, "train_activations", [("one dimension", np.zeros(4), "(4,)")])
    yield from vary(probes.linear_probe, good, "train_labels", [("one class", [True] * 4, "4 of 4")])
    yield from vary(probes.linear_probe, good, "train_labels", [("too few", [True, False], "(4,)")])
    yield from vary(probes.linear_probe, good, "test_activations", [("three units", np.zeros((2, 3)), "(2, 3)")])
    yield from vary(probes.linear_probe, good, "ridge", [("zero", 0.0, "0.0"), ("a string", "1", "'1'")])
