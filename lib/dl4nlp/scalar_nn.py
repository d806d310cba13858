"""A neuron, a layer and an MLP built from scalar ``Value``s, trained by gradient descent.

The network of notebook 01, in the style of micrograd: every weight is one
``dl4nlp.autograd.Value``, a neuron is ``act(w · x + b)``, a layer is a list of
neurons, an MLP is a list of layers whose last one is linear. ``to_torch``
copies the weights into an equal ``torch.nn.Sequential`` (float64), which the
notebook and the tests use to check the engine's outputs and gradients against
``torch.autograd`` and to draw a decision boundary quickly.

>>> model = MLP(2, [4, 1], seed=0)
>>> out = model([0.5, -1.0])
>>> len(model.parameters()), type(out).__name__
(17, 'Value')
"""

from __future__ import annotations

import math
import random
from typing import Sequence, Union

import torch
from torch import nn

from dl4nlp._checks import check_bool
from dl4nlp.autograd import Value

Scalar = Union[Value, int, float]
NONLINEARITIES = ("tanh", "relu", "linear")


def _check_inputs(x: Sequence[Scalar], expected: int) -> None:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__len__"):
        raise TypeError(f"x must be a sequence of {expected} numbers or Values; got {type(x).__name__}")
    if len(x) != expected:
        raise ValueError(f"x must hold {expected} inputs; got {len(x)}")
    for item in x:
        if not isinstance(item, Value) and (isinstance(item, bool) or not isinstance(item, (int, float))):
            raise TypeError(f"x must hold numbers or Values; got {type(item).__name__} {item!r}")
        value = item.data if isinstance(item, Value) else item
        if not math.isfinite(value):
            raise ValueError(f"x must hold finite numbers; got {value!r}")


class Neuron:
    """act(w · x + b) on ``n_inputs`` scalars; weights uniform in [-1, 1] (as in micrograd), bias 0."""

    def __init__(self, n_inputs: int, nonlinearity: str = "tanh", rng: random.Random | None = None):
        if isinstance(n_inputs, bool) or not isinstance(n_inputs, int) or n_inputs < 1:
            raise ValueError(f"n_inputs must be a positive integer; got {n_inputs!r}")
        if nonlinearity not in NONLINEARITIES:
            raise ValueError(f"nonlinearity must be one of {NONLINEARITIES}; got {nonlinearity!r}")
        if rng is not None and not isinstance(rng, random.Random):
            raise TypeError(f"rng must be a random.Random or None; got {type(rng).__name__} {rng!r}")
        rng = rng or random.Random(0)
        self.w = [Value(rng.uniform(-1.0, 1.0), label="w") for _ in range(n_inputs)]
        self.b = Value(0.0, label="b")
        self.nonlinearity = nonlinearity

    def __call__(self, x: Sequence[Scalar]) -> Value:
        _check_inputs(x, len(self.w))
        return self._forward(x)

    def _forward(self, x: Sequence[Scalar]) -> Value:  # x already checked
        s = self.b
        for wi, xi in zip(self.w, x):
            s = s + wi * xi
        if self.nonlinearity == "tanh":
            return s.tanh()
        if self.nonlinearity == "relu":
            return s.relu()
        return s

    def parameters(self) -> list[Value]:
        return self.w + [self.b]

    def __repr__(self) -> str:
        return f"Neuron({len(self.w)} inputs, {self.nonlinearity})"


class Layer:
    """``n_outputs`` neurons reading the same ``n_inputs`` scalars."""

    def __init__(self, n_inputs: int, n_outputs: int, nonlinearity: str = "tanh", rng: random.Random | None = None):
        if isinstance(n_outputs, bool) or not isinstance(n_outputs, int) or n_outputs < 1:
            raise ValueError(f"n_outputs must be a positive integer; got {n_outputs!r}")
        rng = rng or random.Random(0)
        self.neurons = [Neuron(n_inputs, nonlinearity, rng) for _ in range(n_outputs)]

    def __call__(self, x: Sequence[Scalar]) -> list[Value]:
        _check_inputs(x, len(self.neurons[0].w))
        return [neuron._forward(x) for neuron in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for neuron in self.neurons for p in neuron.parameters()]

    def __repr__(self) -> str:
        first = self.neurons[0]
        return f"Layer({len(first.w)} -> {len(self.neurons)}, {first.nonlinearity})"


class MLP:
    """Layers of sizes ``n_inputs -> sizes[0] -> ... -> sizes[-1]``; hidden layers use
    ``nonlinearity``, the last layer is linear (it outputs scores). Seeded by ``seed``."""

    def __init__(self, n_inputs: int, sizes: Sequence[int], nonlinearity: str = "tanh", seed: int = 0):
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__len__") or len(sizes) == 0:
            raise ValueError(f"sizes must be a non-empty list of layer widths; got {sizes!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer; got {seed!r}")
        bad = [w for w in sizes if isinstance(w, bool) or not isinstance(w, int) or w < 1]
        if bad:
            raise ValueError(f"sizes must be positive integer layer widths; got {list(sizes)}")
        rng = random.Random(seed)
        widths = [n_inputs, *sizes]
        self.layers = [
            Layer(widths[i], widths[i + 1], nonlinearity if i < len(sizes) - 1 else "linear", rng)
            for i in range(len(sizes))
        ]

    def __call__(self, x: Sequence[Scalar]) -> Union[Value, list[Value]]:
        """The output Value (or list of Values when the last layer is wider than one)."""
        for layer in self.layers:
            x = layer(x)
        return x[0] if len(x) == 1 else x

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return "MLP(" + ", ".join(repr(layer) for layer in self.layers) + ")"


def hinge_loss(scores: Sequence[Value], labels: Sequence[int]) -> Value:
    """Mean of relu(1 - y · score) over the batch, labels y in {-1, +1} (a max-margin loss)."""
    for name, values in [("scores", scores), ("labels", labels)]:
        if isinstance(values, (str, bytes)) or not isinstance(values, (list, tuple)):
            raise TypeError(f"{name} must be a list; got {type(values).__name__} {values!r:.40}")
    bad_scores = [s for s in scores if not isinstance(s, Value)]
    if bad_scores:
        raise TypeError(f"scores must be Values (the model's outputs); got {type(bad_scores[0]).__name__}")
    if len(scores) != len(labels) or not scores:
        raise ValueError(f"scores and labels must be non-empty, of equal length; got {len(scores)} and {len(labels)}")
    bad = [y for y in labels if y not in (-1, 1)]
    if bad:
        raise ValueError(f"labels must be -1 or +1; got {bad[:5]}")
    total = Value(0.0)
    for score, y in zip(scores, labels):
        total = total + (1 - y * score).relu()
    return total * (1.0 / len(scores))


def to_torch(model: MLP) -> nn.Sequential:
    """The same network as a float64 ``torch.nn.Sequential`` of ``Linear`` and activation modules."""
    if not isinstance(model, MLP):
        raise TypeError(f"model must be a dl4nlp.scalar_nn.MLP; got {type(model).__name__}")
    modules: list[nn.Module] = []
    for layer in model.layers:
        first = layer.neurons[0]
        linear = nn.Linear(len(first.w), len(layer.neurons)).double()
        with torch.no_grad():
            linear.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64))
            linear.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64))
        modules.append(linear)
        if first.nonlinearity == "tanh":
            modules.append(nn.Tanh())
        elif first.nonlinearity == "relu":
            modules.append(nn.ReLU())
    return nn.Sequential(*modules)


def flat_parameters(twin: nn.Sequential, grad: bool = False) -> torch.Tensor:
    """The weights of a ``to_torch`` twin (or, with ``grad=True``, their gradients) as one float64
    vector, in the order of ``MLP.parameters()``: each neuron's weights, then its bias, layer by layer.

    >>> model = MLP(2, [3, 1], seed=0)
    >>> flat_parameters(to_torch(model)).tolist() == [p.data for p in model.parameters()]
    True
    """
    if not isinstance(twin, nn.Sequential):
        raise TypeError(f"twin must be the torch.nn.Sequential that to_torch returns; got {type(twin).__name__}")
    check_bool("grad", grad)
    linears = [module for module in twin if isinstance(module, nn.Linear)]
    if not linears:
        raise ValueError("twin must contain at least one torch.nn.Linear layer; got none")
    pairs = []
    for layer in linears:
        weight, bias = (layer.weight.grad, layer.bias.grad) if grad else (layer.weight, layer.bias)
        if weight is None or bias is None:
            raise ValueError("grad=True needs the twin's gradients; got None (call backward() first)")
        pairs.append(torch.cat([weight, bias[:, None]], dim=1).flatten())  # (n_out * (n_in + 1),)
    return torch.cat(pairs).detach()


def train_mlp(
    model: MLP, points: list[list[float]], labels: list[int], steps: int, batch: int, lr: float, seed: int
) -> list[float]:
    """Mini-batch gradient descent with the hinge loss on the scalar engine; the learning rate
    falls linearly from ``lr`` to ``lr / 10``. Labels in {-1, +1}. Returns the loss of every step.

    Each step samples ``batch`` of the points (without replacement, seeded by ``seed``),
    zeroes every gradient, backpropagates the loss and moves each weight against its gradient.
    """
    if not isinstance(model, MLP):
        raise TypeError(f"model must be a dl4nlp.scalar_nn.MLP; got {type(model).__name__}")
    if len(points) != len(labels) or not points:
        raise ValueError(f"points and labels must be non-empty, of equal length; got {len(points)} and {len(labels)}")
    n_inputs = len(model.layers[0].neurons[0].w)
    for index, point in enumerate(points):
        if len(point) != n_inputs:
            raise ValueError(f"points[{index}] must hold {n_inputs} numbers, one per model input; got {len(point)}")
    for name, value in [("steps", steps), ("batch", batch)]:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if batch > len(points):
        raise ValueError(f"batch must be at most the number of points, {len(points)}; got {batch}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr > 0 or not math.isfinite(lr):
        raise ValueError(f"lr must be a positive number; got {lr!r}")
    rng = random.Random(seed)
    params = model.parameters()
    losses = []
    for step in range(steps):
        idx = rng.sample(range(len(points)), batch)
        loss = hinge_loss([model(points[i]) for i in idx], [labels[i] for i in idx])
        for p in params:
            p.grad = 0.0
        loss.backward()
        rate = lr * (1 - 0.9 * step / steps)
        for p in params:
            p.data -= rate * p.grad
        losses.append(loss.data)
    return losses
