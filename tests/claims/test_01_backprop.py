"""Notebook 01's claims on other seeds (the notebook asserts the same on seed 0)."""

import math

import pytest

from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import backprop as e


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_depth_gradients(seed):
    ratio = e.depth_gradients(seed=seed, depth=20).ratio
    sigmoid = ratio["sigmoid, scale 1"]
    assert 1e-13 < sigmoid < 1e-11 and sigmoid ** (1 / 19) < e.SIGMOID_FACTOR
    assert 0.5 < ratio["relu, scale 1"] / 2 ** (-19 / 2) < 2
    assert ratio["tanh, scale 3"] > e.EXPLODED
    assert ratio["relu, scale 1, residual"] > e.EXPLODED
    for name in [
        "relu, scale √2 (He)",
        "tanh, scale 1",
        "sigmoid, scale 1, residual",
        "relu, scale 1, residual ÷ √depth",
    ]:
        assert 1 / e.LEVEL < ratio[name] < e.LEVEL, (name, ratio[name])


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_residual_branches_need_scaling(seed):
    result = e.residual_depths(seed=seed)
    assert result.plain[-1] > 1e6 * result.plain[0]
    assert max(result.scaled) < e.SCALED_RESIDUAL_BOUND


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_he_scale_and_the_squared_loss(seed):
    he = e.he_scale(seed=seed)
    for i in range(len(he.depths)):
        assert 1 / e.HE_LEVEL < he.median_ratio["independent"][i] < e.HE_LEVEL, he
        assert e.SQUARED_RATIO[0] < he.median_ratio["squared"][i] < e.SQUARED_RATIO[1], he
        assert e.SQUARED_EXCESS[0] < he.median_excess[i] < e.SQUARED_EXCESS[1], he
    assert list(he.median_ratio["independent"]) == sorted(he.median_ratio["independent"], reverse=True), he
    assert 0.4 < he.top_share < 0.7, he.top_share
    assert abs(he.level_scale["independent"] - math.sqrt(2)) < e.SCALE_TOLERANCE, he.level_scale
    assert he.level_scale["squared"] < math.sqrt(2) - e.SCALE_TOLERANCE, he.level_scale


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_scalar_mlp_solves_xor_blobs(seed):
    run = e.xor_mlp(seed=seed)
    assert run.heldout_in_training == 0
    assert run.train_accuracy == 1.0
    assert run.heldout_accuracy > e.XOR_HELDOUT
    assert run.linear_heldout_accuracy < e.LINEAR_HELDOUT


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_equal_weights_never_break_their_symmetry(seed):
    run = e.symmetric_start(seed=seed, value=0.5)
    assert run.hidden_spread == 0 and run.heldout_accuracy < e.LINEAR_HELDOUT, run


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_pytorch_trains_the_scalar_network_to_the_same_weights(seed):
    import torch

    from dl4nlp.numerics import agree

    run = e.xor_mlp(seed=seed)
    engine = torch.tensor([p.data for p in run.model.parameters()], dtype=torch.float64)
    assert agree(e.twin_training(seed=seed), engine, terms=40 * 1700)


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_initialisation_statistics_and_dead_relus(seed):
    init = e.activation_statistics(seed=seed)
    assert 0.5 < init.rms["relu, variance 1/n"][-1] / 2**-5 < 2, init
    assert 0.5 < init.rms["relu, variance 2/n (He)"][-1] < 2, init
    assert init.saturated["tanh, variance 1"] > 0.8, init
    assert (
        init.saturated["tanh, variance 1/n (Xavier)"] < 0.01 and 0.1 < init.rms["tanh, variance 1/n (Xavier)"][-1] < 0.5
    )
    dead = e.dead_relus(seed=seed)
    assert dead.dead_at_start >= 1 and dead.dead_after == dead.dead_at_start, dead
    assert dead.dead_moved == 0 and dead.live_moved > 0.1, dead
