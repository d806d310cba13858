"""dl4nlp.gradflow: the deep-network gradient experiment of notebook 01."""

import numpy as np
import pytest
import torch

from dl4nlp.gradflow import DeepMLP, layer_gradient_norms


def test_shape_and_reproducibility():
    a = layer_gradient_norms(7, "tanh", seed=3)
    assert a.shape == (7,) and np.all(a > 0)
    assert np.array_equal(a, layer_gradient_norms(7, "tanh", seed=3))
    assert not np.array_equal(a, layer_gradient_norms(7, "tanh", seed=4))


def test_single_layer_matches_closed_form():
    # loss = mean(h^2) over B*W entries, so dloss/dh = 2h / (B*W) exactly.
    generator = torch.Generator().manual_seed(0)
    model = DeepMLP(1, width=64, activation="tanh", generator=generator).double()
    x = torch.randn(128, 64, generator=generator, dtype=torch.float64)
    h = model(x)
    expected = (2 * h / h.numel()).norm().item()
    assert layer_gradient_norms(1, "tanh", width=64, batch=128, seed=0)[0] == pytest.approx(expected, rel=1e-12)


def test_deep_sigmoid_vanishes_and_residual_does_not():
    plain = layer_gradient_norms(20, "sigmoid")
    residual = layer_gradient_norms(20, "sigmoid", residual=True)
    assert plain[0] / plain[-1] < 1e-6
    assert 0.1 < residual[0] / residual[-1] < 10


def test_large_weights_explode_towards_the_input():
    norms = layer_gradient_norms(20, "tanh", weight_scale=3.0)
    assert norms[0] / norms[-1] > 100


def test_float64_keeps_tiny_gradients_nonzero():
    assert layer_gradient_norms(50, "sigmoid")[0] > 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(depth=0), "depth must be an integer >= 1; got 0"),
        (dict(depth=3, activation="gelu"), "activation must be one of"),
        (dict(depth=3, weight_scale=0.0), "weight_scale must be a finite number > 0.0; got 0.0"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        layer_gradient_norms(**kwargs)
