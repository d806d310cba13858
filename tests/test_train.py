"""dl4nlp.train: the shared training loop."""

import math

import pytest
import torch

from dl4nlp.train import History, to_device, train


def regression_task(seed=0):
    generator = torch.Generator().manual_seed(seed)
    true_w = torch.tensor([[2.0], [-3.0]])

    def next_batch(step):
        x = torch.randn(32, 2, generator=generator)
        return x, x @ true_w

    return next_batch, true_w


def mse(model, batch):
    x, y = batch
    return torch.nn.functional.mse_loss(model(x), y)


def test_learns_a_linear_map_and_records_history():
    torch.manual_seed(0)
    next_batch, true_w = regression_task()
    model = torch.nn.Linear(2, 1, bias=False)
    history = train(model, mse, next_batch, steps=300, lr=0.05, progress=False)
    assert len(history.loss) == len(history.grad_norm) == len(history.lr) == 300
    assert history.loss[-1] < 1e-4 < history.loss[0]
    assert torch.allclose(model.weight.T, true_w, atol=1e-2)
    assert not history.diverged and not model.training


def test_clipping_bounds_the_update():
    next_batch, _ = regression_task()
    model = torch.nn.Linear(2, 1, bias=False)
    before = model.weight.detach().clone()
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    history = train(model, mse, next_batch, steps=1, optimizer=optimizer, clip_norm=0.1, progress=False)
    assert history.grad_norm[0] > 0.1  # recorded before clipping
    assert (model.weight.detach() - before).norm().item() == pytest.approx(0.1, rel=1e-5)


def test_divergence_stops_the_run_instead_of_raising():
    next_batch, _ = regression_task()
    model = torch.nn.Linear(2, 1, bias=False)
    optimizer = torch.optim.SGD(model.parameters(), lr=10.0)
    history = train(model, mse, next_batch, steps=500, optimizer=optimizer, progress=False)
    assert history.diverged and len(history.loss) < 500


def test_bad_arguments_are_named():
    next_batch, _ = regression_task()
    model = torch.nn.Linear(2, 1)
    with pytest.raises(ValueError, match="steps must be an integer >= 1; got 0"):
        train(model, mse, next_batch, steps=0)
    with pytest.raises(ValueError, match="clip_norm must be a finite number > 0.0; got -1"):
        train(model, mse, next_batch, steps=1, clip_norm=-1)
    with pytest.raises(ValueError, match=r"scalar tensor; got shape \(32, 1\)"):
        train(model, lambda m, b: m(b[0]), next_batch, steps=1, progress=False)


def test_smoothed_loss_and_to_device():
    history = History(loss=[4.0, 2.0, 0.0])
    assert history.smoothed_loss(2) == [4.0, 3.0, 1.0]
    with pytest.raises(ValueError, match="window"):
        history.smoothed_loss(0)
    batch = {"x": torch.ones(2), "pair": (torch.zeros(1), 3)}
    moved = to_device(batch, torch.device("cpu"))
    assert moved["pair"][1] == 3 and torch.equal(moved["x"], batch["x"])
    assert math.isclose(sum(History(loss=[1.0]).smoothed_loss()), 1.0)
