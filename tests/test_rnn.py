"""dl4nlp.rnn against torch.nn.RNN, closed forms and autograd; dl4nlp.gradflow over time."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from dl4nlp.gradflow import time_step_gradient_norms
from dl4nlp.rnn import (
    RecurrentClassifier,
    RecurrentLM,
    RNNCell,
    UnrolledRNN,
    identity_init_,
    jacobian_norms,
    language_model_loss,
    make_recurrent,
    sample,
    scaled_orthogonal,
)


@settings(max_examples=25, deadline=None)
@given(
    batch=st.integers(1, 4),
    steps=st.integers(1, 9),
    inputs=st.integers(1, 6),
    hidden=st.integers(1, 8),
    nonlinearity=st.sampled_from(["tanh", "relu"]),
    seed=st.integers(0, 1000),
)
def test_unrolled_rnn_equals_torch_rnn(batch, steps, inputs, hidden, nonlinearity, seed):
    torch.manual_seed(seed)
    reference = nn.RNN(inputs, hidden, nonlinearity=nonlinearity, batch_first=True)
    ours = UnrolledRNN.from_torch(reference)
    x, h0 = torch.randn(batch, steps, inputs), torch.randn(1, batch, hidden)
    expected, expected_last = reference(x, h0)
    outputs, last = ours(x, h0[0])
    assert outputs.shape == (batch, steps, hidden)
    assert torch.allclose(outputs, expected, atol=1e-5) and torch.allclose(last, expected_last[0], atol=1e-5)


def test_second_layer_and_reverse_direction_are_copied():
    torch.manual_seed(0)
    reference = nn.RNN(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    x = torch.randn(2, 5, 3)
    out, _ = reference(x)  # (B, T, 2H)
    layer0_forward = UnrolledRNN.from_torch(reference, layer=0)
    layer0_backward = UnrolledRNN.from_torch(reference, layer=0, reverse=True)
    first = torch.cat([layer0_forward(x)[0], layer0_backward(x.flip(1))[0].flip(1)], dim=-1)
    second = UnrolledRNN.from_torch(reference, layer=1)(first)[0]
    assert torch.allclose(second, out[..., :4], atol=1e-5)


def test_from_torch_errors_name_what_was_expected():
    with pytest.raises(TypeError, match="module must be a torch.nn.RNN; got LSTM"):
        UnrolledRNN.from_torch(nn.LSTM(2, 3))
    with pytest.raises(ValueError, match=r"layer must be an integer in \[0, 0\]; got 1"):
        UnrolledRNN.from_torch(nn.RNN(2, 3), layer=1)
    with pytest.raises(ValueError, match="reverse=True needs a bidirectional module"):
        UnrolledRNN.from_torch(nn.RNN(2, 3), reverse=True)
    with pytest.raises(ValueError, match=r"bias=True.*; got bias=False"):
        UnrolledRNN.from_torch(nn.RNN(2, 3, bias=False))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_from_torch_keeps_the_reference_dtype(dtype):
    model = UnrolledRNN.from_torch(nn.RNN(2, 3, batch_first=True).to(dtype))
    assert {p.dtype for p in model.parameters()} == {dtype}


def test_states_of_the_wrong_shape_are_errors_not_broadcast():
    cell, x = RNNCell(3, 5), torch.zeros(2, 3)
    with pytest.raises(ValueError, match=r"h must have shape \(B=2, 5\), one state per sequence; got \(1, 5\)"):
        cell(x, torch.zeros(1, 5))  # a batch-1 state would broadcast over the batch
    with pytest.raises(ValueError, match=r"h0 must have shape \(B, 5\); got \(1, 2, 5\)"):
        UnrolledRNN(3, 5)(torch.zeros(2, 4, 3), torch.zeros(1, 2, 5))  # nn.RNN's (layers, B, H)


def test_bad_shapes_and_choices_are_named():
    with pytest.raises(ValueError, match=r"x must have shape \(B, 3\); got \(2, 4\)"):
        RNNCell(3, 5)(torch.zeros(2, 4), torch.zeros(2, 5))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, 3\); got \(2, 3\)"):
        UnrolledRNN(3, 5)(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="nonlinearity must be one of .* got 'sigmoid'"):
        RNNCell(3, 5, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="kind must be one of .* got 'transformer'"):
        make_recurrent("transformer", 3, 5)


def test_identity_init_and_classifier_shapes():
    model = RecurrentClassifier(vocab_size=12, num_classes=4, hidden_size=8, kind="rnn", nonlinearity="relu")
    identity_init_(model.recurrent)
    assert torch.equal(model.recurrent.weight_hh_l0, torch.eye(8))
    assert torch.all(model.recurrent.bias_hh_l0 == 0) and torch.all(model.recurrent.bias_ih_l0 == 0)
    tokens = torch.randint(0, 12, (5, 7))
    logits = model(tokens)
    assert logits.shape == (5, 4)
    assert torch.allclose(model(tokens, embedded=model.embedding(tokens)), logits)
    for kind in ["lstm", "gru"]:
        assert RecurrentClassifier(12, 4, 8, kind=kind)(tokens).shape == (5, 4)


def test_language_model_loss_sums_over_time():
    torch.manual_seed(0)
    model = RecurrentLM(vocab_size=10, hidden_size=8, kind="rnn", embedding_dim=4)
    ids = torch.randint(0, 10, (3, 9))
    logits, _ = model(ids[:, :-1])
    summed = language_model_loss(logits, ids[:, 1:], reduction="sum")
    by_hand = sum(-torch.log_softmax(logits[b, t], -1)[ids[b, t + 1]] for b in range(3) for t in range(8))
    assert summed.item() == pytest.approx(by_hand.item(), rel=1e-5)
    assert language_model_loss(logits, ids[:, 1:]).item() == pytest.approx(summed.item() / 24, rel=1e-5)
    with pytest.raises(ValueError, match=r"targets must have shape \(3, 8\); got \(3, 9\)"):
        language_model_loss(logits, ids)
    with pytest.raises(ValueError, match="reduction must be one of"):
        language_model_loss(logits, ids[:, 1:], reduction="none")


def test_sample_is_reproducible_and_cold_sampling_is_greedy():
    torch.manual_seed(0)
    model = RecurrentLM(vocab_size=7, hidden_size=8, kind="lstm", embedding_dim=4)
    a = sample(model, [1, 2], 20, temperature=1.0, generator=torch.Generator().manual_seed(3))
    b = sample(model, [1, 2], 20, temperature=1.0, generator=torch.Generator().manual_seed(3))
    assert a == b and len(a) == 20 and all(0 <= t < 7 for t in a)
    greedy, ids = [], [1, 2]
    with torch.no_grad():
        for _ in range(10):
            token = int(model(torch.tensor([ids]))[0][0, -1].argmax())
            greedy.append(token)
            ids.append(token)
    assert sample(model, [1, 2], 10, temperature=1e-4, generator=torch.Generator().manual_seed(0)) == greedy
    with pytest.raises(ValueError, match="temperature must be a finite number > 0.0; got 0.0"):
        sample(model, [1], 3, temperature=0)
    with pytest.raises(ValueError, match=r"prompt must not be empty; got \[\]"):
        sample(model, [], 3)


def test_scaled_orthogonal_has_all_singular_values_equal_to_the_radius():
    w = scaled_orthogonal(16, 0.7, torch.Generator().manual_seed(0))
    assert torch.allclose(torch.linalg.svdvals(w), torch.full((16,), 0.7, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(torch.linalg.eigvals(w).abs(), torch.full((16,), 0.7, dtype=torch.float64), atol=1e-10)
    with pytest.raises(ValueError, match="radius must be a finite number > 0.0; got 0.0"):
        scaled_orthogonal(4, 0)


@pytest.mark.parametrize("radius", [0.5, 1.0, 1.3])
def test_jacobian_norms_closed_form_and_tanh_bound(radius):
    w = scaled_orthogonal(12, radius, torch.Generator().manual_seed(1))
    k = np.arange(31)
    assert np.allclose(jacobian_norms(w, 30, "linear"), radius**k, rtol=1e-10)
    assert np.all(jacobian_norms(w, 30, "tanh") <= radius**k * (1 + 1e-10))


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_jacobian_norms_match_autograd(nonlinearity):
    """Rebuild the same random run and differentiate h(T) with respect to h(T-k) with autograd."""
    size, steps, seed, scale = 6, 8, 4, 0.7
    w = torch.randn(size, size, generator=torch.Generator().manual_seed(9), dtype=torch.float64) * 0.6
    norms = jacobian_norms(w, steps, nonlinearity, input_scale=scale, seed=seed)
    generator = torch.Generator().manual_seed(seed)
    inputs = [scale * torch.randn(size, generator=generator, dtype=torch.float64) for _ in range(steps)]
    act = torch.tanh if nonlinearity == "tanh" else torch.relu
    states = [torch.zeros(size, dtype=torch.float64)]
    for u in inputs:
        states.append(act(w @ states[-1] + u))
    for k in [1, 3, steps]:

        def run(h, k=k):
            for u in inputs[steps - k :]:
                h = act(w @ h + u)
            return h

        jacobian = torch.autograd.functional.jacobian(run, states[steps - k])
        assert norms[k] == pytest.approx(torch.linalg.matrix_norm(jacobian, ord=2).item(), rel=1e-9, abs=1e-14)


def test_jacobian_norms_errors():
    with pytest.raises(ValueError, match="steps must be an integer >= 1; got 0"):
        jacobian_norms(torch.eye(3), 0)
    with pytest.raises(ValueError, match="nonlinearity must be one of .* got 'gelu'"):
        jacobian_norms(torch.eye(3), 3, "gelu")


def test_time_step_gradient_norms_match_autograd_and_vanish_for_a_contracting_rnn():
    torch.manual_seed(0)
    model = UnrolledRNN(3, 5).double()
    with torch.no_grad():
        model.cell.weight_hh.mul_(0.3)
    x = torch.randn(4, 12, 3, dtype=torch.float64)
    norms = time_step_gradient_norms(lambda e: model(e)[1].sum(), x)
    leaf = x.clone().requires_grad_(True)
    model(leaf)[1].sum().backward()
    assert norms.shape == (12,)
    assert np.allclose(norms, [leaf.grad[:, t].norm().item() for t in range(12)], rtol=1e-12)
    assert norms[0] < 1e-3 * norms[-1]
    with pytest.raises(ValueError, match="scalar tensor; got shape"):
        time_step_gradient_norms(lambda e: model(e)[1], x)
    with pytest.raises(ValueError, match=r"inputs must have shape \(batch, time, ...\); got \(3,\)"):
        time_step_gradient_norms(lambda e: e.sum(), torch.zeros(3))


def test_identity_init_sets_every_layer_and_direction():
    # issue 22: the reverse direction of a bidirectional nn.RNN kept its random W_hh (half an IRNN)
    rnn = nn.RNN(3, 4, num_layers=2, bidirectional=True, nonlinearity="relu")
    identity_init_(rnn)
    for layer in range(2):
        for suffix in ("", "_reverse"):
            assert torch.equal(getattr(rnn, f"weight_hh_l{layer}{suffix}"), torch.eye(4))
            assert (
                not getattr(rnn, f"bias_hh_l{layer}{suffix}").any()
                and not getattr(rnn, f"bias_ih_l{layer}{suffix}").any()
            )


def test_sample_at_a_tiny_temperature_is_greedy_not_nan():
    # issue 22 (as next_token_probabilities): logits / 1e-39 overflowed to inf and the softmax gave NaN
    torch.manual_seed(0)
    model = RecurrentLM(vocab_size=6, hidden_size=8)
    tiny = sample(model, [1, 2], 5, temperature=1e-39, generator=torch.Generator().manual_seed(0))
    assert tiny == sample(model, [1, 2], 5, temperature=1e-4, generator=torch.Generator().manual_seed(0))
