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


def test_train_refuses_an_optimizer_of_another_model_and_a_loss_without_gradient():
    # issue 22: SGD(other.parameters()) ran and the model never learned
    torch.manual_seed(0)
    model, other = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    batch = torch.ones(3, 2)
    with pytest.raises(ValueError, match="optimizer must hold the model's parameters"):
        train(model, lambda m, b: m(b).pow(2).mean(), lambda s: batch, steps=1, progress=False,
              optimizer=torch.optim.SGD(other.parameters(), lr=0.1))  # fmt: skip
    with torch.no_grad():
        before = model.weight.clone()
    head_only = torch.optim.SGD([model.bias], lr=0.1)  # some of the model's parameters: legal (a frozen weight)
    train(model, lambda m, b: m(b).pow(2).mean(), lambda s: batch, steps=1, progress=False, optimizer=head_only)
    assert torch.equal(model.weight, before)
    with pytest.raises(ValueError, match="does not require grad"):
        train(model, lambda m, b: m(b).pow(2).mean().detach(), lambda s: batch, steps=1, progress=False)


def test_measurements_run_in_eval_mode_and_give_the_mode_back():
    # issue 22: a model left in train mode was measured with dropout on (a different loss at every call)
    from dl4nlp.sweep import heldout_loss
    from dl4nlp.transformer import TransformerConfig, TransformerLM

    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=7, d_model=8, n_heads=2, n_layers=1, d_ff=16, max_len=8, dropout=0.5)
    model = TransformerLM(config)
    windows = torch.randint(0, 7, (4, 9), generator=torch.Generator().manual_seed(0))
    model.train()
    in_train_mode = [heldout_loss(model, windows) for _ in range(2)]
    assert model.training  # given back as it came
    model.eval()
    assert in_train_mode == [heldout_loss(model, windows)] * 2 and not model.training
