"""dl4nlp.lstm: LSTM and GRU cells (and variants) against torch.nn.LSTM / nn.GRU; the char-model loader."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from reproduction import TOLERANCE, check_rerun
from torch import nn

from dl4nlp.checkpoint import save_checkpoint
from dl4nlp.lstm import (
    CoupledLSTMCell,
    GRUCell,
    LSTMCell,
    PeepholeLSTMCell,
    UnrolledGRU,
    UnrolledLSTM,
    load_char_model,
    lstm_trace,
    set_forget_bias_,
)
from dl4nlp.rnn import RecurrentLM
from dl4nlp.vocab import CharVocab


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


def test_the_two_gru_forms_differ_and_agree_when_the_reset_gate_is_open():
    torch.manual_seed(0)
    reference = nn.GRU(3, 5, batch_first=True)
    x = torch.randn(4, 6, 3)
    pytorch_form = UnrolledGRU.from_torch(reference)(x)[0]
    cho_form = UnrolledGRU.from_torch(reference, reset_after=False)(x)[0]
    assert torch.allclose(pytorch_form, reference(x)[0], atol=1e-5)
    assert (pytorch_form - cho_form).abs().max() > 1e-2  # a different function of the same weights
    with torch.no_grad():  # r = σ(50) = 1: nothing is reset, and both forms become tanh(W_in x + b_in + W_hn h + b_hn)
        reference.bias_ih_l0[:5] = 50.0
    open_pytorch = UnrolledGRU.from_torch(reference)(x)[0]
    assert torch.allclose(open_pytorch, UnrolledGRU.from_torch(reference, reset_after=False)(x)[0], atol=1e-6)
    cell = GRUCell(3, 5, reset_after=False)
    h, x0 = torch.randn(2, 5), torch.randn(2, 3)
    w_r, w_z, w_n = cell.weight_hh.chunk(3)
    b_r, b_z, b_n = cell.bias_hh.chunk(3)
    i_r, i_z, i_n = (x0 @ cell.weight_ih.T + cell.bias_ih).chunk(3, dim=1)
    r, z = torch.sigmoid(i_r + h @ w_r.T + b_r), torch.sigmoid(i_z + h @ w_z.T + b_z)
    n = torch.tanh(i_n + (r * h) @ w_n.T + b_n)  # Cho et al. (2014): reset h, then multiply
    assert torch.allclose(cell(x0, h)[0], (1 - z) * n + z * h, atol=1e-6)


def test_peephole_cell_is_the_lstm_at_zero_and_peeks_at_the_cell_otherwise():
    torch.manual_seed(0)
    reference = nn.LSTMCell(3, 4)
    cell = PeepholeLSTMCell(3, 4)
    with torch.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(reference, name))
    x, h, c = torch.randn(2, 3), torch.randn(2, 4), torch.randn(2, 4)
    h_ref, c_ref = reference(x, (h, c))
    step = cell(x, (h, c))
    assert torch.allclose(step.h, h_ref, atol=1e-6) and torch.allclose(step.c, c_ref, atol=1e-6)
    with torch.no_grad():
        cell.weight_peephole.normal_()
    step = cell(x, (h, c))
    z_i, z_f, _, z_o = cell.pre_activations(x, h).chunk(4, dim=1)
    p_i, p_f, p_o = cell.weight_peephole
    assert torch.allclose(step.gates["forget"], torch.sigmoid(z_f + p_f * c), atol=1e-6)  # the old cell
    assert torch.allclose(step.gates["input"], torch.sigmoid(z_i + p_i * c), atol=1e-6)
    assert torch.allclose(step.gates["output"], torch.sigmoid(z_o + p_o * step.c), atol=1e-6)  # the new cell


def test_coupled_cell_writes_what_it_forgets_with_three_blocks():
    torch.manual_seed(0)
    outputs, _, trace = UnrolledLSTM(3, 4, variant="coupled")(torch.randn(2, 7, 3))
    assert torch.allclose(trace["input"], 1 - trace["forget"])
    previous = torch.cat([torch.zeros_like(trace["cell"][:, :1]), trace["cell"][:, :-1]], dim=1)
    assert torch.allclose(trace["cell"], trace["forget"] * previous + trace["input"] * trace["candidate"], atol=1e-6)
    count = lambda m: sum(p.numel() for p in m.parameters())  # noqa: E731
    assert count(CoupledLSTMCell(3, 4)) * 4 == count(LSTMCell(3, 4)) * 3
    with pytest.raises(ValueError, match="variant must be one of .* got 'gru'"):
        UnrolledLSTM(3, 4, variant="gru")


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 3), steps=st.integers(1, 30), seed=st.integers(0, 1000))
def test_fast_trace_equals_the_unrolled_loop(batch, steps, seed):
    torch.manual_seed(seed)
    reference = nn.LSTM(4, 6, batch_first=True)
    x = torch.randn(batch, steps, 4)
    outputs, _, trace = UnrolledLSTM.from_torch(reference)(x)
    fast_outputs, fast_trace = lstm_trace(reference, x)
    assert torch.allclose(fast_outputs, outputs, atol=1e-5)
    assert set(fast_trace) == set(trace)
    assert all(torch.allclose(fast_trace[k], trace[k], atol=1e-5) for k in trace)


def test_fast_trace_refuses_what_it_cannot_trace():
    with pytest.raises(ValueError, match="one-layer, one-direction"):
        lstm_trace(nn.LSTM(2, 3, num_layers=2, batch_first=True), torch.zeros(1, 4, 2))
    with pytest.raises(ValueError, match="one-layer, one-direction"):
        lstm_trace(nn.LSTM(2, 3), torch.zeros(1, 4, 2))
    with pytest.raises(ValueError, match=r"x must not be empty; got shape \(1, 0, 2\)"):
        lstm_trace(nn.LSTM(2, 3, batch_first=True), torch.zeros(1, 0, 2))
    with pytest.raises(TypeError, match="module must be a torch.nn.LSTM; got GRU"):
        lstm_trace(nn.GRU(2, 3, batch_first=True), torch.zeros(1, 4, 2))


def test_from_torch_keeps_the_dtype():
    for module, unrolled in [(nn.LSTM(2, 3), UnrolledLSTM), (nn.GRU(2, 3), UnrolledGRU)]:
        copy = unrolled.from_torch(module.double())
        assert all(p.dtype == torch.float64 for p in copy.parameters())
        x = torch.randn(2, 4, 2, dtype=torch.float64)
        assert torch.allclose(copy(x)[0], module(x.transpose(0, 1))[0].transpose(0, 1), atol=1e-12)


def test_bad_states_and_inputs_are_named():
    cell = LSTMCell(2, 3)
    x = torch.zeros(4, 2)
    with pytest.raises(TypeError, match=r"state must be a pair \(h, c\)"):
        cell(x, torch.zeros(2, 3))  # one tensor is not (h, c)
    with pytest.raises(ValueError, match=r"state h must have shape \(B, 3\); got \(1, 4, 3\)"):
        cell(x, (torch.zeros(1, 4, 3), torch.zeros(1, 4, 3)))  # nn.LSTM's (layers, B, H)
    with pytest.raises(ValueError, match=r"state c must have shape \(B=4, 3\), one state per sequence; got \(1, 3\)"):
        cell(x, (torch.zeros(4, 3), torch.zeros(1, 3)))  # no silent broadcast of a batch-1 state
    with pytest.raises(ValueError, match=r"h must have shape \(B=4, 3\), one state per sequence; got \(1, 3\)"):
        GRUCell(2, 3)(x, torch.zeros(1, 3))
    with pytest.raises(TypeError, match="floating-point"):
        cell(torch.zeros(4, 2, dtype=torch.long), (torch.zeros(4, 3), torch.zeros(4, 3)))
    with pytest.raises(ValueError, match=r"x must not be empty; got shape \(1, 0, 2\)"):
        UnrolledLSTM(2, 3)(torch.zeros(1, 0, 2))
    with pytest.raises(ValueError, match=r"h must have shape \(B, 3\); got \(1, 1, 3\)"):
        UnrolledGRU(2, 3)(torch.zeros(1, 4, 2), torch.zeros(1, 1, 3))
    with pytest.raises(ValueError, match="hidden_size must be a positive integer; got 0"):
        LSTMCell(2, 0)
    with pytest.raises(TypeError, match="reset_after must be a bool"):
        GRUCell(2, 3, reset_after="cho")


def _tiny_char_checkpoint(path, reverse=False, kind="char_lstm"):
    model = RecurrentLM(vocab_size=3, hidden_size=4, embedding_dim=2)
    save_checkpoint(
        path,
        kind=kind,
        config=model.config,
        state_dict={k: v.half() for k, v in model.state_dict().items()},
        extra={"vocab": "ab ", "straight_quotes": True, "reverse": reverse},
        provenance={"command": "test"},
    )
    return model


def test_load_char_model_checks_kind_direction_and_bytes(tmp_path):
    model = _tiny_char_checkpoint(tmp_path / "forward.pt")
    loaded, vocab = load_char_model(tmp_path / "forward.pt")
    assert vocab.chars == "ab " and not loaded.training and loaded.config == model.config
    assert loaded.embedding.weight.dtype == torch.float32  # stored in float16, computed in float32
    assert torch.equal(loaded.embedding.weight, model.embedding.weight.half().float())
    with pytest.raises(ValueError, match="holds the forward language model; expected reverse=True"):
        load_char_model(tmp_path / "forward.pt", reverse=True)
    _tiny_char_checkpoint(tmp_path / "backward.pt", reverse=True)
    assert load_char_model(tmp_path / "backward.pt", reverse=True)[1].chars == "ab "
    _tiny_char_checkpoint(tmp_path / "other.pt", kind="seq2seq")
    with pytest.raises(ValueError, match="holds a 'seq2seq' checkpoint; expected a 'char_lstm' checkpoint"):
        load_char_model(tmp_path / "other.pt")
    (tmp_path / "empty.pt").write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_char_model(tmp_path / "empty.pt")
    data = (tmp_path / "forward.pt").read_bytes()
    (tmp_path / "forward.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated"):
        load_char_model(tmp_path / "forward.pt")


# --- the recipe: python -m dl4nlp.recipes.char_lstm ----------------------------------
TINY = ["--hidden-size", "8", "--embedding-dim", "4", "--batch-size", "2", "--seq-len", "8", "--quiet"]


def test_the_recipe_writes_a_checkpoint_with_its_provenance_and_never_overwrites(tmp_path):
    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import CORPORA
    from dl4nlp.recipes import char_lstm

    out = tmp_path / "tiny.pt"
    assert char_lstm.main(["--out", str(out), "--steps", "3", *TINY]) == 0
    record = read_provenance(out)
    assert record["kind"] == "char_lstm" and record["command"].startswith("python -m dl4nlp.recipes.char_lstm --out")
    assert record["corpora"]["sherlock_holmes.txt"]["md5"] == CORPORA["sherlock_holmes.txt"][1]
    assert record["environment"]["torch_threads"] == 1 and record["seed"] == 0
    results = record["results"]
    assert len(results["loss_first"]) == results["steps_taken"] == 3 and set(results["samples"]) == {"0", "3"}
    model, vocab = load_char_model(out)
    assert model.config.hidden_size == 8 and len(vocab) == model.config.vocab_size
    assert '"' in vocab.chars and "“" not in vocab.chars  # straight quotes by default
    with pytest.raises(SystemExit):  # the recipe never replaces a file unless asked
        char_lstm.main(["--out", str(out), "--steps", "3", *TINY])
    assert char_lstm.main(["--out", str(out), "--steps", "3", "--overwrite", *TINY]) == 0
    assert read_provenance(out)["results"]["loss_first"] == results["loss_first"]  # same seed, same losses
    backward = tmp_path / "backward.pt"
    assert char_lstm.main(["--out", str(backward), "--steps", "2", "--reverse", "--half", *TINY]) == 0
    model, _ = load_char_model(backward, reverse=True)
    with pytest.raises(SystemExit):
        char_lstm.main(["--out", str(tmp_path / "x.pt"), "--steps", "3", "--stop-after", "4", *TINY])
    (tmp_path / "results.json").write_text("{}")
    for taken in ("new.json", "results.json", "results.pt"):  # not a .pt, or results.pt's provenance taken
        with pytest.raises(SystemExit):  # refused before training, not after
            char_lstm.main(["--out", str(tmp_path / taken), "--steps", "3", *TINY])
    assert (tmp_path / "results.json").read_text() == "{}"
    assert not (tmp_path / "results.pt").exists() and not (tmp_path / "new.json").exists()


def test_the_recipe_reproduces_its_recorded_first_losses():
    """The first steps of the recipe, re-run, give the losses recorded in the shipped model's provenance.

    What this proves: the recipe is deterministic, and on the recorded torch version, thread
    count and CPU kernels it reproduces the recorded re-run bit for bit (elsewhere, to float32
    rounding). The shipped weights themselves came from an earlier run that recorded neither its
    losses nor its CPU; re-run here they are not reproduced bit for bit (see its provenance).
    """
    import tempfile
    from pathlib import Path

    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import data_path
    from dl4nlp.recipes import char_lstm

    recorded = read_provenance(data_path("char_lstm_sherlock.pt"))["rerun"]
    steps = 3
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "again.pt"
        assert char_lstm.main(["--out", str(out), "--stop-after", str(steps), "--quiet"]) == 0
        again = read_provenance(out)["results"]["loss_first"]
    expected = recorded["results"]["loss_first"][:steps]
    check_rerun("char_lstm_sherlock", again, expected, recorded, **TOLERANCE["char_lstm"])


@pytest.mark.parametrize(
    "name, options",
    [
        ("char_lstm_sherlock_backward.pt", ["--reverse", "--half"]),
        ("char_lstm_sherlock_seed1.pt", ["--seed", "1", "--half"]),
        ("char_lstm_sherlock_seed2.pt", ["--seed", "2", "--half"]),
    ],
)
def test_the_other_shipped_char_models_reproduce_their_recorded_first_losses(name, options):
    """The backward, seed-1 and seed-2 models' runs recorded their first losses: re-run, they agree.

    Bit for bit where the torch version and CPU kernels are the recorded ones (the backward run
    predates the recording of the kernels, so it is compared to float32 rounding only).
    """
    import tempfile
    from pathlib import Path

    from dl4nlp.checkpoint import read_provenance
    from dl4nlp.data import data_path
    from dl4nlp.recipes import char_lstm

    recorded = read_provenance(data_path(name))
    assert recorded["results"]["steps_taken"] == recorded["arguments"]["steps"]  # the run finished
    steps = 3
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "again.pt"
        assert char_lstm.main(["--out", str(out), "--stop-after", str(steps), *options, "--quiet"]) == 0
        again = read_provenance(out)["results"]["loss_first"]
    expected = recorded["results"]["loss_first"][:steps]
    check_rerun(Path(name).stem, again, expected, recorded, **TOLERANCE["char_lstm"])


def test_cell_diagrams_follow_the_cell():
    import matplotlib.pyplot as plt

    from dl4nlp.diagrams import gru_cell_diagram, lstm_cell_diagram

    plain, peep, coupled = (lstm_cell_diagram(c(5, 8)) for c in (LSTMCell, PeepholeLSTMCell, CoupledLSTMCell))
    assert "i = σ(·)" in [b.label for b in plain.boxes.values()]
    assert "i = 1 − f" in [b.label for b in coupled.boxes.values()]
    assert sum(a.dashed for a in peep.arrows) == 3 and not any(a.dashed for a in plain.arrows)
    assert "(8×13)" in plain.groups[0][0] and "3 weight blocks" in coupled.groups[0][0]
    after, before = gru_cell_diagram(GRUCell(5, 8)), gru_cell_diagram(GRUCell(5, 8, reset_after=False))
    assert ("h_prev", "matmul") in {(a.source, a.target) for a in after.arrows}  # multiply, then reset
    assert ("h_prev", "reset_mul") in {(a.source, a.target) for a in before.arrows}  # reset, then multiply
    plt.close(after.draw())


def test_final_states_read_each_text_from_a_fresh_state():
    from dl4nlp.lstm import final_states

    torch.manual_seed(0)
    model, vocab = RecurrentLM(vocab_size=3, hidden_size=5, embedding_dim=2).eval(), CharVocab("ab ")
    texts = ["ab", "ba a", "b"]
    states = final_states(model, vocab, texts)
    for text, state in zip(texts, states):
        with torch.no_grad():
            alone, _ = model.recurrent(model.embedding(torch.tensor([vocab.encode(text)])))
        assert torch.allclose(state, alone[0, -1], atol=1e-6)
    with pytest.raises(TypeError, match="texts must be a list of strings; got str 'ab'"):
        final_states(model, vocab, "ab")


def test_recurrent_lm_config_is_a_dataclass_and_ids_are_checked():
    from dataclasses import FrozenInstanceError, asdict

    from dl4nlp.rnn import RecurrentLMConfig, RecurrentTagger

    model = RecurrentLM(vocab_size=7, hidden_size=8)
    assert isinstance(model.config, RecurrentLMConfig) and asdict(model.config)["vocab_size"] == 7
    assert RecurrentLM.from_config(asdict(model.config)).config == model.config
    with pytest.raises(FrozenInstanceError):
        model.config.hidden_size = 3
    with pytest.raises(ValueError, match="unknown fields"):
        RecurrentLM.from_config({"vocab_size": 7, "size": 3})
    with pytest.raises(ValueError, match=r"ids must hold ids in \[0, 7\); got 7"):
        model(torch.tensor([[0, 7]]))
    with pytest.raises(TypeError, match="ids must be an integer tensor; got dtype torch.float32"):
        model(torch.zeros(1, 3))
    with pytest.raises(ValueError, match=r"ids must have shape \(B, T\); got \(3,\)"):
        model(torch.zeros(3, dtype=torch.long))
    with pytest.raises(ValueError, match="kind must be one of"):
        RecurrentLMConfig(vocab_size=3, kind="transformer")
    tagger = RecurrentTagger(vocab_size=4, num_classes=3, hidden_size=5, num_layers=2, bidirectional=True)
    assert tagger(torch.zeros(2, 6, dtype=torch.long)).shape == (2, 6, 3)
    with pytest.raises(ValueError, match=r"tokens must hold ids in \[0, 4\); got 4"):
        tagger(torch.full((1, 2), 4))


def test_the_shipped_char_models_are_small_documented_and_verified():
    from dl4nlp.checkpoint import read_provenance, sha256sum
    from dl4nlp.data import CORPORA, data_dir, md5sum

    readme = (data_dir() / "README.md").read_text()
    shipped = sorted(data_dir().glob("char_lstm_sherlock*.pt"))
    assert [p.name for p in shipped][:1] == ["char_lstm_sherlock.pt"]
    for path in shipped:
        assert path.stat().st_size < 1_500_000, path  # a few MB at most in the repository
        assert sha256sum(path) in readme and md5sum(path) in readme and f"{path.stat().st_size:,}" in readme, path
        record = read_provenance(path)
        assert record["corpora"]["sherlock_holmes.txt"]["md5"] == CORPORA["sherlock_holmes.txt"][1]
        reverse = record["arguments"]["reverse"]
        model, vocab = load_char_model(path, reverse=reverse)  # verifies the checksum
        assert sum(p.numel() for p in model.parameters()) == record["results"]["parameters"]
        assert record["command"].startswith(f"python -m dl4nlp.recipes.char_lstm --out data/{path.name}")
    converted = read_provenance(data_dir() / "char_lstm_sherlock.pt")
    assert "python -m dl4nlp.lstm train-char-model" in converted["history"][0]  # the old command, kept as history


def test_stream_batches_continue_each_stream_and_restart():
    from dl4nlp.recipes.char_lstm import stream_batches

    ids = torch.arange(41)  # 2 streams of 20: 0..19 and 20..39 (40 is dropped)
    next_batch = stream_batches(ids, batch_size=2, length=6)
    first, restart = next_batch(0)
    second, again = next_batch(1)
    assert restart and not again
    assert first.tolist() == [[0, 1, 2, 3, 4, 5, 6], [20, 21, 22, 23, 24, 25, 26]]
    assert second[:, 0].tolist() == first[:, -1].tolist()  # the next window starts where the last one ended
    assert next_batch(3)[1] and torch.equal(next_batch(3)[0], first)  # 3 windows per stream, then over again
    with pytest.raises(ValueError, match="streams more than length=30 ids; got 41 ids, 20 per stream"):
        stream_batches(ids, batch_size=2, length=30)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1; got 0"):
        stream_batches(ids, batch_size=0, length=3)


def test_update_bias_makes_a_fresh_gru_copy_its_state():
    from dl4nlp.lstm import set_update_bias_

    torch.manual_seed(0)
    reference = set_update_bias_(nn.GRU(2, 3, num_layers=2), 2.0)
    _, _, trace = UnrolledGRU.from_torch(reference, layer=1)(torch.zeros(1, 1, 3))
    assert torch.allclose(trace["update"], torch.sigmoid(torch.tensor(2.0)).expand(1, 1, 3))
    with pytest.raises(TypeError, match="module must be a torch.nn.GRU; got LSTM"):
        set_update_bias_(nn.LSTM(2, 3), 1.0)
    with pytest.raises(ValueError, match="value must be a finite number; got nan"):
        set_forget_bias_(nn.LSTM(2, 3), float("nan"))
