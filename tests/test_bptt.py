"""dl4nlp.bptt: backpropagation through time by hand equals torch.autograd in float64."""

import pytest
import torch

from dl4nlp.bptt import init_rnn_lm_params, rnn_lm_autograd_gradients, rnn_lm_gradients


@pytest.mark.parametrize(
    "batch, steps, inputs, hidden, vocab, with_h0",
    [(1, 1, 1, 1, 2, False), (3, 7, 4, 5, 6, True), (2, 40, 3, 8, 5, False)],
)
def test_hand_written_bptt_equals_autograd(batch, steps, inputs, hidden, vocab, with_h0):
    generator = torch.Generator().manual_seed(steps)
    params = init_rnn_lm_params(inputs, hidden, vocab, generator)
    x = torch.randn(batch, steps, inputs, dtype=torch.float64, generator=generator)
    targets = torch.randint(0, vocab, (batch, steps), generator=generator)
    h0 = torch.randn(batch, hidden, dtype=torch.float64, generator=generator) if with_h0 else None
    loss, grads = rnn_lm_gradients(params, x, targets, h0)
    loss_ref, grads_ref = rnn_lm_autograd_gradients(params, x, targets, h0)
    assert loss.item() == pytest.approx(loss_ref.item(), abs=1e-10)
    assert sorted(grads) == sorted(grads_ref)
    for name in grads:
        assert grads[name].shape == grads_ref[name].shape, name
        assert torch.allclose(grads[name], grads_ref[name], rtol=0, atol=1e-12), name


def test_the_shared_weights_gradient_is_a_sum_over_time():
    """Untie W_h and W_e into one copy per step: autograd's gradients of the copies sum to the tied gradient."""
    generator = torch.Generator().manual_seed(0)
    params = init_rnn_lm_params(2, 3, 4, generator)
    x = torch.randn(2, 5, 2, dtype=torch.float64, generator=generator)
    targets = torch.randint(0, 4, (2, 5), generator=generator)
    copies = {name: [params[name].clone().requires_grad_(True) for _ in range(5)] for name in ("W_h", "W_e")}
    h = torch.zeros(2, 3, dtype=torch.float64)
    loss = 0
    for t in range(5):
        h = torch.tanh(x[:, t] @ copies["W_e"][t].T + h @ copies["W_h"][t].T + params["b"])
        scores = h @ params["U"].T + params["c"]
        loss = loss + torch.nn.functional.cross_entropy(scores, targets[:, t], reduction="sum")
    loss.backward()
    _, grads = rnn_lm_gradients(params, x, targets)
    for name in ("W_h", "W_e"):
        per_step = [copy.grad for copy in copies[name]]
        assert not torch.allclose(per_step[0], per_step[-1])  # each step contributes its own term
        assert torch.allclose(sum(per_step), grads[name], rtol=0, atol=1e-12), name


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p, x, y: ({k: v for k, v in p.items() if k != "c"}, x, y), "params must be a dict with keys"),
        (lambda p, x, y: ({**p, "W_h": p["W_h"][:2]}, x, y), r"params\['W_h'\] must have shape"),
        (lambda p, x, y: (p, x[0], y), r"x must have shape \(B, T, 2\)"),
        (lambda p, x, y: (p, x[:, :0], y[:, :0]), "with B, T >= 1"),
        (lambda p, x, y: (p, x, y[:, :-1]), r"targets must have shape \(1, 3\)"),
        (lambda p, x, y: (p, x, y + 10), r"targets must be int64 token ids in \[0, 4\)"),
        (lambda p, x, y: (p, x, y.float()), "targets must be int64"),
        (lambda p, x, y: (p, x * float("nan"), y), "x must be finite"),
    ],
)
def test_bad_inputs_are_named(change, message):
    generator = torch.Generator().manual_seed(0)
    params = init_rnn_lm_params(2, 3, 4, generator)
    x = torch.randn(1, 3, 2, dtype=torch.float64, generator=generator)
    targets = torch.zeros(1, 3, dtype=torch.long)
    with pytest.raises(ValueError, match=message):
        rnn_lm_gradients(*change(params, x, targets))
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        init_rnn_lm_params(2, 0, 4)


# --- chapter 03's training loop by truncated BPTT (Exercise 1b) ----------------------------------
def test_contiguous_streams_are_disjoint_slices():
    from dl4nlp.bptt import contiguous_streams

    streams = contiguous_streams(torch.arange(100), batch_size=4, length=9)
    assert streams.shape == (4, 10)
    assert streams[:, 0].tolist() == [0, 25, 50, 75]
    assert all(torch.equal(row, torch.arange(row[0], row[0] + 10)) for row in streams)


def test_the_loop_check_accepts_the_reference_and_names_each_missing_duty(capsys):
    from dl4nlp.bptt import _loop_variant, check_truncated_training, train_truncated_bptt

    assert check_truncated_training("Exercise 1b", train_truncated_bptt)
    expected = {"detach": ".detach()", "carry": "zero state", "clip": "without clipping", "zero": "zero_grad()"}
    for duty, words in expected.items():
        capsys.readouterr()
        faulty = lambda m, s, k, o, c, duty=duty: _loop_variant(m, s, k, o, c, **{duty: False})  # noqa: E731
        assert not check_truncated_training("Exercise 1b", faulty)
        assert words in capsys.readouterr().out, duty


def test_the_reference_loop_takes_one_step_per_chunk_and_carries_the_state():
    from dl4nlp.bptt import train_truncated_bptt
    from dl4nlp.rnn import RecurrentLM

    torch.manual_seed(0)
    model = RecurrentLM(5, hidden_size=4, kind="rnn", embedding_dim=3)
    ids = torch.randint(0, 5, (2, 13), generator=torch.Generator().manual_seed(1))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.0)  # no change: the losses are those of one pass
    losses = train_truncated_bptt(model, ids, 4, optimiser, clip_norm=None)
    logits, _ = model(ids[:, :-1])
    per_position = torch.nn.functional.cross_entropy(logits.flatten(0, 1), ids[:, 1:].flatten(), reduction="none")
    by_chunk = per_position.reshape(2, 12)[:, :].reshape(2, 3, 4).mean(dim=(0, 2))
    assert torch.allclose(torch.tensor(losses), by_chunk, atol=1e-6)
