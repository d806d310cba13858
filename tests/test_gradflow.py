"""dl4nlp.gradflow: the deep-network gradient experiment of notebook 01."""

import numpy as np
import pytest
import torch

from dl4nlp.gradflow import DeepMLP, first_over_last, layer_gradient_norms, time_step_gradient_norms


def test_shape_and_reproducibility():
    a = layer_gradient_norms(7, "tanh", seed=3)
    assert a.shape == (7,) and np.all(a > 0)
    assert np.array_equal(a, layer_gradient_norms(7, "tanh", seed=3))
    assert not np.array_equal(a, layer_gradient_norms(7, "tanh", seed=4))


def test_single_layer_matches_closed_form():
    # upstream="squared": loss = mean(h^2) over B*W entries, so dloss/dh = 2h / (B*W) exactly;
    # upstream="independent": loss = sum(h * r) / B with r drawn after x, so dloss/dh = r / B.
    generator = torch.Generator().manual_seed(0)
    model = DeepMLP(1, width=64, activation="tanh", generator=generator).double()
    x = torch.randn(128, 64, generator=generator, dtype=torch.float64)
    r = torch.randn(128, 64, generator=generator, dtype=torch.float64)
    h = model(x)
    squared = layer_gradient_norms(1, "tanh", width=64, batch=128, seed=0, upstream="squared")[0]
    assert squared == pytest.approx((2 * h / h.numel()).norm().item(), rel=1e-12)
    assert layer_gradient_norms(1, "tanh", width=64, batch=128, seed=0)[0] == pytest.approx((r / 128).norm().item())


def test_relu_ratio_scales_as_a_power_of_the_weight_scale():
    """ReLU without biases is positively homogeneous: first/last grows as scale^(depth - 1), exactly up to the
    float32 rounding of the initial weights (drawn in float32, then converted)."""
    a = first_over_last(layer_gradient_norms(12, "relu", 1.0, seed=5))
    b = first_over_last(layer_gradient_norms(12, "relu", 1.3, seed=5))
    assert b / a == pytest.approx(1.3**11, rel=1e-6)


def test_branch_scale_zero_is_the_identity_and_scaling_tames_a_relu_residual_stack():
    identity = layer_gradient_norms(8, "relu", residual=True, branch_scale=0.0, seed=1)
    assert np.allclose(identity, identity[-1], rtol=0, atol=1e-15)  # no branch: the gradient passes unchanged
    plain = first_over_last(layer_gradient_norms(20, "relu", residual=True))
    scaled = first_over_last(layer_gradient_norms(20, "relu", residual=True, branch_scale=20**-0.5))
    assert plain > 100 and scaled < 3


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
@pytest.mark.parametrize("depth", [2, 60])
@pytest.mark.parametrize("scale", [0.25, 4.0])
@pytest.mark.parametrize("residual", [None, 1.0, "sqrt"])
@pytest.mark.parametrize("upstream", ["independent", "squared"])
def test_every_setting_of_notebook_01s_widget_gives_finite_positive_norms(activation, depth, scale, residual, upstream):
    kwargs = {} if residual is None else dict(residual=True, branch_scale=depth**-0.5 if residual == "sqrt" else 1.0)
    norms = layer_gradient_norms(depth, activation, scale, upstream=upstream, **kwargs)
    assert norms.shape == (depth,) and np.all(np.isfinite(norms)) and np.all(norms > 0)
    assert np.isfinite(first_over_last(norms))


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
        (dict(depth=3, weight_scale=float("nan")), "weight_scale must be a finite number"),
        (dict(depth=3, upstream="mean"), "upstream must be one of"),
        (dict(depth=3, branch_scale=0.5), "branch_scale scales a residual branch, so it needs residual=True"),
        (dict(depth=3, residual=True, branch_scale=-1.0), "branch_scale must be a finite number >= 0.0; got -1.0"),
        (dict(depth=3, batch=0), "batch must be an integer >= 1; got 0"),
        (dict(depth=3, width=0), "width must be an integer >= 1; got 0"),
        (dict(depth=3, seed=-1), "seed must be an integer >= 0; got -1"),
    ],
)
def test_bad_settings_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        layer_gradient_norms(**kwargs)


def test_first_over_last_and_time_step_norms_name_bad_input():
    with pytest.raises(ValueError, match="at least 2 layers"):
        first_over_last(np.array([1.0]))
    with pytest.raises(ValueError, match="finite and positive"):
        first_over_last(np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match="loss_of_inputs must be a function"):
        time_step_gradient_norms("loss", torch.zeros(2, 3, 4))
    with pytest.raises(TypeError, match="inputs must be a floating-point tensor; got dtype torch.int64"):
        time_step_gradient_norms(lambda x: x.sum(), torch.zeros(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="must return a scalar tensor"):
        time_step_gradient_norms(lambda x: x, torch.zeros(2, 3, 4))
