"""dl4nlp.lstm: LSTM and GRU cells against torch.nn.LSTM / nn.GRU; the char-model command."""

import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from dl4nlp.data import CORPORA
from dl4nlp.lstm import (
    GRUCell,
    LSTMCell,
    UnrolledGRU,
    UnrolledLSTM,
    load_char_model,
    main,
    set_forget_bias_,
    stream_batches,
    train_char_model,
)


@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 4),
    steps=st.integers(1, 9),
    inputs=st.integers(1, 6),
    hidden=st.integers(1, 8),
    seed=st.integers(0, 1000),
    with_state=st.booleans(),
)
def test_unrolled_lstm_equals_torch_lstm(batch, steps, inputs, hidden, seed, with_state):
    torch.manual_seed(seed)
    reference = nn.LSTM(inputs, hidden, batch_first=True)
    ours = UnrolledLSTM.from_torch(reference)
    x = torch.randn(batch, steps, inputs)
    state = (torch.randn(1, batch, hidden), torch.randn(1, batch, hidden)) if with_state else None
    expected, (h_ref, c_ref) = reference(x, state)
    outputs, (h, c), trace = ours(x, None if state is None else (state[0][0], state[1][0]))
    assert torch.allclose(outputs, expected, atol=1e-5)
    assert torch.allclose(h, h_ref[0], atol=1e-5) and torch.allclose(c, c_ref[0], atol=1e-5)
    assert set(trace) == {"input", "forget", "candidate", "output", "cell"}
    assert all(v.shape == (batch, steps, hidden) for v in trace.values())


def test_gates_obey_the_lstm_equations():
    torch.manual_seed(0)
    ours = UnrolledLSTM(3, 6)
    outputs, _, trace = ours(torch.randn(2, 10, 3))
    i, f, g, o, c = (trace[k] for k in ["input", "forget", "candidate", "output", "cell"])
    for gate in (i, f, o):
        assert torch.all((gate > 0) & (gate < 1))
    assert torch.all(g.abs() < 1)
    previous = torch.cat([torch.zeros_like(c[:, :1]), c[:, :-1]], dim=1)
    assert torch.allclose(c, f * previous + i * g, atol=1e-6)
    assert torch.allclose(outputs, o * torch.tanh(c), atol=1e-6)


def test_one_cell_step_returns_gates_by_name():
    cell = LSTMCell(2, 3)
    step = cell(torch.zeros(1, 2), (torch.zeros(1, 3), torch.zeros(1, 3)))
    assert set(step.gates) == {"input", "forget", "candidate", "output"}
    assert step.h.shape == step.c.shape == (1, 3)
    h, gates = GRUCell(2, 3)(torch.zeros(1, 2), torch.zeros(1, 3))
    assert set(gates) == {"reset", "update", "candidate"} and h.shape == (1, 3)


def test_stacked_bidirectional_lstm_layer_by_layer():
    torch.manual_seed(0)
    reference = nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(2, 7, 3)
    out, _ = reference(x)  # (B, T, 2H)

    def both_directions(layer, inputs):
        forward = UnrolledLSTM.from_torch(reference, layer=layer)(inputs)[0]
        backward = UnrolledLSTM.from_torch(reference, layer=layer, reverse=True)(inputs.flip(1))[0].flip(1)
        return torch.cat([forward, backward], dim=-1)

    assert torch.allclose(both_directions(1, both_directions(0, x)), out, atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(
    batch=st.integers(1, 3),
    steps=st.integers(1, 8),
    inputs=st.integers(1, 5),
    hidden=st.integers(1, 6),
    seed=st.integers(0, 1000),
)
def test_unrolled_gru_equals_torch_gru(batch, steps, inputs, hidden, seed):
    torch.manual_seed(seed)
    reference = nn.GRU(inputs, hidden, batch_first=True)
    x, h0 = torch.randn(batch, steps, inputs), torch.randn(1, batch, hidden)
    expected, expected_last = reference(x, h0)
    outputs, last, trace = UnrolledGRU.from_torch(reference)(x, h0[0])
    assert torch.allclose(outputs, expected, atol=1e-5) and torch.allclose(last, expected_last[0], atol=1e-5)
    z, n = trace["update"], trace["candidate"]
    previous = torch.cat([h0[0][:, None], outputs[:, :-1]], dim=1)
    assert torch.allclose(outputs, (1 - z) * n + z * previous, atol=1e-6)


def test_errors_name_what_was_expected():
    with pytest.raises(TypeError, match="module must be a torch.nn.LSTM; got GRU"):
        UnrolledLSTM.from_torch(nn.GRU(2, 3))
    with pytest.raises(TypeError, match="module must be a torch.nn.GRU; got LSTM"):
        UnrolledGRU.from_torch(nn.LSTM(2, 3))
    with pytest.raises(ValueError, match=r"layer must be an integer in \[0, 1\]; got 5"):
        UnrolledLSTM.from_torch(nn.LSTM(2, 3, num_layers=2), layer=5)
    with pytest.raises(ValueError, match=r"x must have shape \(B, 2\); got \(1, 3\)"):
        LSTMCell(2, 3)(torch.zeros(1, 3), (torch.zeros(1, 3), torch.zeros(1, 3)))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, 2\); got \(4, 2\)"):
        UnrolledLSTM(2, 3)(torch.zeros(4, 2))
    with pytest.raises(TypeError, match="module must be a torch.nn.LSTM; got RNN"):
        set_forget_bias_(nn.RNN(2, 3), 1.0)


@pytest.mark.parametrize("cls, reference", [(UnrolledLSTM, nn.LSTM), (UnrolledGRU, nn.GRU)])
def test_from_torch_keeps_the_reference_dtype(cls, reference):
    assert {p.dtype for p in cls.from_torch(reference(2, 3).double()).parameters()} == {torch.float64}


def test_an_lstm_state_is_a_pair_of_batch_by_hidden_tensors():
    cell, x = LSTMCell(2, 3), torch.zeros(2, 2)
    with pytest.raises(TypeError, match=r"state must be a pair \(h, c\) of \(B, 3\) tensors; got a tensor"):
        cell(x, torch.zeros(2, 3))  # one tensor would be split into h and c by rows
    with pytest.raises(ValueError, match=r"state h must have shape \(B=2, 3\), one state per sequence; got \(1, 3\)"):
        cell(x, (torch.zeros(1, 3), torch.zeros(1, 3)))
    with pytest.raises(ValueError, match=r"state h must have shape \(B, 3\); got \(1, 2, 3\)"):
        UnrolledLSTM(2, 3)(torch.zeros(2, 4, 2), (torch.zeros(1, 2, 3), torch.zeros(1, 2, 3)))


def test_forget_bias_sets_the_initial_forget_gate():
    torch.manual_seed(0)
    reference = set_forget_bias_(nn.LSTM(2, 3, num_layers=2, bidirectional=True), 2.0)
    ours = UnrolledLSTM.from_torch(reference, layer=1, reverse=True)
    _, _, trace = ours(torch.zeros(1, 1, 6))
    assert torch.allclose(trace["forget"], torch.sigmoid(torch.tensor(2.0)).expand(1, 1, 3))


def test_train_char_model_command_writes_a_loadable_checkpoint_and_recipe(tmp_path):
    out = tmp_path / "tiny.pt"
    assert (
        main(
            [
                "train-char-model",
                "--out",
                str(out),
                "--steps",
                "3",
                "--hidden-size",
                "8",
                "--embedding-dim",
                "4",
                "--batch-size",
                "2",
                "--seq-len",
                "8",
                "--device",
                "cpu",
            ]
        )
        == 0
    )
    recipe = json.loads(out.with_suffix(".json").read_text())
    assert recipe["corpus_md5"] == CORPORA["sherlock_holmes.txt"][1]
    assert recipe["command"].startswith("python -m dl4nlp.lstm train-char-model")
    assert recipe["arguments"]["steps"] == 3 and recipe["device"] == "cpu" and recipe["arguments"]["seed"] == 0
    model, vocab = load_char_model(out)
    assert len(vocab) == model.config["vocab_size"] and '"' in vocab.chars and "“" not in vocab.chars
    assert recipe["arguments"]["straight_quotes"] is True
    assert model.config["hidden_size"] == 8 and not model.training
    again = train_char_model(
        tmp_path / "again.pt",
        steps=3,
        hidden_size=8,
        embedding_dim=4,
        batch_size=2,
        seq_len=8,
        device="cpu",
        progress=False,
    )
    assert again["final_train_loss"] == recipe["final_train_loss"]  # same seed, same run
    main(
        [
            "train-char-model",
            "--out",
            str(tmp_path / "curly.pt"),
            "--steps",
            "1",
            "--hidden-size",
            "4",
            "--embedding-dim",
            "2",
            "--batch-size",
            "2",
            "--seq-len",
            "8",
            "--curly-quotes",
        ]
    )
    assert "“" in load_char_model(tmp_path / "curly.pt")[1].chars


def test_load_char_model_rejects_other_files(tmp_path):
    path = tmp_path / "other.pt"
    torch.save({"state_dict": {}}, path)
    with pytest.raises(ValueError, match=r"lacks \['config', 'vocab'\]"):
        load_char_model(path)


def test_stream_batches_continue_each_stream_and_restart():
    ids = torch.arange(41)  # 2 streams of 20: 0..19 and 20..39 (40 is dropped)
    next_batch = stream_batches(ids, batch_size=2, length=6)
    first, restart = next_batch(0)
    second, again = next_batch(1)
    assert restart and not again
    assert first.tolist() == [[0, 1, 2, 3, 4, 5, 6], [20, 21, 22, 23, 24, 25, 26]]
    assert second[:, 0].tolist() == first[:, -1].tolist()  # the next window starts where the last one ended
    assert next_batch(3)[1] and torch.equal(next_batch(3)[0], first)  # 3 windows per stream, then over again
    with pytest.raises(ValueError, match="streams more than length=30 ids, at least 62 in all; got 41"):
        stream_batches(ids, batch_size=2, length=30)


def test_the_shipped_checkpoint_is_small_documented_and_matches_its_recipe():
    from dl4nlp.data import data_path, md5sum

    path = data_path("char_lstm_sherlock.pt")
    assert path.stat().st_size < 3_000_000
    readme = (path.parent / "README.md").read_text()
    assert md5sum(path) in readme and f"{path.stat().st_size:,}" in readme
    recipe = json.loads(data_path("char_lstm_sherlock.json").read_text())
    assert recipe["corpus_md5"] == CORPORA[recipe["arguments"]["corpus"]][1]
    model, vocab = load_char_model(path)
    assert sum(p.numel() for p in model.parameters()) == recipe["parameters"]
    ids = torch.tensor([vocab.encode('"Quite so," said Holmes.')])
    with torch.no_grad():
        embedded = model.embedding(ids)
        expected, _ = model.recurrent(embedded)
        outputs, _, _ = UnrolledLSTM.from_torch(model.recurrent)(embedded)
    assert torch.allclose(outputs, expected, atol=1e-5)
