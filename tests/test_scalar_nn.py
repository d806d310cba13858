"""dl4nlp.scalar_nn: a neuron, a layer and an MLP of Values, checked against their torch twin."""

import pytest
import torch

from dl4nlp.scalar_nn import MLP, Layer, Neuron, flat_parameters, hinge_loss, to_torch, train_mlp
from dl4nlp.tasks import xor_blobs


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_mlp_output_and_gradients_equal_its_torch_twin(nonlinearity):
    model = MLP(3, [5, 4, 1], nonlinearity=nonlinearity, seed=1)
    points = torch.randn(6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    labels = [1, -1, 1, 1, -1, -1]
    loss = hinge_loss([model(p) for p in points.tolist()], labels)
    loss.backward()
    twin = to_torch(model)
    scores = twin(points)[:, 0]
    torch_loss = torch.relu(1 - torch.tensor(labels, dtype=torch.float64) * scores).mean()
    torch_loss.backward()
    torch_grads = flat_parameters(twin, grad=True)
    engine_grads = torch.tensor([p.grad for p in model.parameters()], dtype=torch.float64)
    assert loss.data == pytest.approx(torch_loss.item(), abs=1e-12)
    assert torch.allclose(engine_grads, torch_grads, rtol=0, atol=1e-12)


def test_flat_parameters_follow_the_engines_order():
    model = MLP(3, [4, 2], seed=3)
    twin = to_torch(model)
    assert flat_parameters(twin).tolist() == [p.data for p in model.parameters()]
    with pytest.raises(ValueError, match="call backward"):
        flat_parameters(twin, grad=True)
    with pytest.raises(TypeError, match="nn.Sequential"):
        flat_parameters(model)


def test_sizes_parameters_and_seeding():
    model = MLP(2, [8, 1], seed=0)
    assert len(model.parameters()) == 2 * 8 + 8 + 8 + 1
    assert [p.data for p in model.parameters()] == [p.data for p in MLP(2, [8, 1], seed=0).parameters()]
    assert [p.data for p in model.parameters()] != [p.data for p in MLP(2, [8, 1], seed=1).parameters()]
    assert all(-1 <= w.data <= 1 for w in model.parameters())
    assert isinstance(MLP(2, [3, 2])([0.1, 0.2]), list)


def test_training_on_xor_blobs_reduces_the_loss():
    points, labels = xor_blobs(40, generator=torch.Generator().manual_seed(0))
    model = MLP(2, [6, 1], seed=0)
    losses = train_mlp(model, points.tolist(), [2 * int(y) - 1 for y in labels], steps=15, batch=10, lr=1.0, seed=0)
    assert len(losses) == 15 and sum(losses[-3:]) < sum(losses[:3])


def test_xor_blobs_labels_follow_the_corners():
    points, labels = xor_blobs(400, spread=0.1, generator=torch.Generator().manual_seed(0))
    assert points.dtype == torch.float64 and points.shape == (400, 2)
    assert torch.equal(labels, (points[:, 0] * points[:, 1] < 0).long())  # small spread: the sign tells the corner


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: Neuron(0), ValueError, "n_inputs must be a positive integer; got 0"),
        (lambda: Neuron(2, "gelu"), ValueError, "nonlinearity must be one of"),
        (lambda: Layer(2, 0), ValueError, "n_outputs must be a positive integer; got 0"),
        (lambda: MLP(2, []), ValueError, "sizes must be a non-empty list"),
        (lambda: MLP(2, [3, 1], seed=1.5), ValueError, "seed must be an integer"),
        (lambda: MLP(2, [1])([1.0]), ValueError, "x must hold 2 inputs; got 1"),
        (lambda: MLP(2, [1])("ab"), TypeError, "x must be a sequence"),
        (lambda: MLP(2, [1])([1.0, float("nan")]), ValueError, "x must hold finite numbers"),
        (lambda: MLP(2, [1])([1.0, "b"]), TypeError, "x must hold numbers or Values"),
        (lambda: hinge_loss([], []), ValueError, "non-empty"),
        (lambda: hinge_loss([MLP(2, [1])([1.0, 2.0])], [0]), ValueError, "labels must be -1 or \\+1"),
        (lambda: to_torch("model"), TypeError, "model must be a dl4nlp.scalar_nn.MLP"),
        (lambda: train_mlp(MLP(2, [1]), [[0.0, 1.0]], [1, -1], 1, 1, 0.1, 0), ValueError, "equal length"),
        (lambda: train_mlp(MLP(2, [1]), [[0.0, 1.0]], [1], 1, 2, 0.1, 0), ValueError, "batch must be at most"),
        (lambda: train_mlp(MLP(2, [1]), [[0.0, 1.0]], [1], 0, 1, 0.1, 0), ValueError, "steps must be a positive"),
        (lambda: train_mlp(MLP(2, [1]), [[0.0, 1.0]], [1], 1, 1, -0.1, 0), ValueError, "lr must be a positive"),
        (lambda: xor_blobs(3), ValueError, "n must be an integer >= 4"),
        (lambda: xor_blobs(8, spread=-1.0), ValueError, "spread must be a finite number >= 0"),
    ],
)
def test_bad_input_is_named(make, error, message):
    with pytest.raises(error, match=message):
        make()
