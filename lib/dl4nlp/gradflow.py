"""How gradient size changes with depth: deep MLPs and per-layer gradient norms.

A stack of ``depth`` fully connected layers of equal width, with a chosen
activation, weight scale and optional residual connections. Backpropagating a
loss through it shows the gradient shrinking (or growing) by roughly the same
factor per layer. Taught in notebook 01; the recurrent version is notebook 02.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch
from torch import nn

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "relu": torch.relu,
}

# Where the gradient entering the top layer comes from (see ``layer_gradient_norms``).
UPSTREAMS = ("independent", "squared")


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}")


def _check_scale(name: str, value: object, allow_zero: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'non-negative' if allow_zero else 'positive'}; got {value!r}")


class DeepMLP(nn.Module):
    """``depth`` square linear layers, each followed by ``activation``.

    Weights are drawn from N(0, weight_scale² / width) (so ``weight_scale=1`` is
    LeCun initialisation and ``sqrt(2)`` is He initialisation), biases are 0.
    With ``residual=True`` each layer adds its output, times ``branch_scale``,
    to its input: h ← h + branch_scale · act(W h + b).
    """

    def __init__(
        self,
        depth: int,
        width: int = 64,
        activation: str = "sigmoid",
        weight_scale: float = 1.0,
        residual: bool = False,
        generator: torch.Generator | None = None,
        branch_scale: float = 1.0,
    ):
        super().__init__()
        _check_positive_int("depth", depth)
        _check_positive_int("width", width)
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {tuple(ACTIVATIONS)}; got {activation!r}")
        _check_scale("weight_scale", weight_scale)
        _check_scale("branch_scale", branch_scale, allow_zero=True)
        if branch_scale != 1.0 and not residual:
            raise ValueError(f"branch_scale scales a residual branch, so it needs residual=True; got {branch_scale!r}")
        self.activation = activation
        self.residual = residual
        self.branch_scale = float(branch_scale)
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        with torch.no_grad():
            for layer in self.layers:
                layer.weight.normal_(0.0, weight_scale / width**0.5, generator=generator)
                layer.bias.zero_()

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, width) -> (B, width)
        return self.hidden_states(x)[-1]

    def hidden_states(self, x: torch.Tensor) -> list[torch.Tensor]:
        """The output h_l of every layer, first layer first; each (B, width)."""
        act = ACTIVATIONS[self.activation]
        states, h = [], x
        for layer in self.layers:
            z = act(layer(h))
            h = h + self.branch_scale * z if self.residual else z
            states.append(h)
        return states


def layer_gradient_norms(
    depth: int,
    activation: str = "sigmoid",
    weight_scale: float = 1.0,
    residual: bool = False,
    width: int = 64,
    batch: int = 128,
    seed: int = 0,
    *,
    upstream: str = "independent",
    branch_scale: float = 1.0,
) -> np.ndarray:
    """Norm of dLoss/dh_l for the output h_l of every layer l, first layer first. Shape (depth,).

    This is the gradient signal arriving at each layer from above (the factor
    every weight gradient of that layer is multiplied by), in a freshly
    initialised float64 ``DeepMLP`` on standard-normal inputs; everything is
    seeded, so results reproduce exactly.

    ``upstream`` picks the loss, and so the gradient that enters the top layer:

    - ``'independent'`` (the default): loss = Σ r ⊙ h_top / B with r drawn from
      N(0, 1) independently of the network, so the top gradient r / B knows
      nothing of the forward pass. This is what the variance argument of
      Glorot & Bengio (2010) and He et al. (2015) assumes.
    - ``'squared'``: loss = mean(h_top²), whose gradient 2 h_top / (B · width)
      *is* the forward signal; the layers just below the top then pass on more
      than the independent case predicts (notebook 01 measures how much).

    >>> norms = layer_gradient_norms(3, "tanh")
    >>> norms.shape, bool((norms > 0).all())
    ((3,), True)
    """
    if upstream not in UPSTREAMS:
        raise ValueError(f"upstream must be one of {UPSTREAMS}; got {upstream!r}")
    _check_positive_int("batch", batch)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    generator = torch.Generator().manual_seed(seed)
    model = DeepMLP(depth, width, activation, weight_scale, residual, generator=generator, branch_scale=branch_scale)
    model = model.double()  # float64, so that a gradient of 1e-40 is not flushed to 0
    x = torch.randn(batch, width, generator=generator, dtype=torch.float64)  # (B, width)
    hidden = model.hidden_states(x)  # h_1 ... h_depth, each (B, width)
    for state in hidden:
        state.retain_grad()
    if upstream == "independent":
        r = torch.randn(batch, width, generator=generator, dtype=torch.float64)  # (B, width), drawn after x
        loss = (hidden[-1] * r).sum() / batch
    else:
        loss = hidden[-1].pow(2).mean()
    loss.backward()
    return np.array([state.grad.norm().item() for state in hidden])


def first_over_last(norms: np.ndarray) -> float:
    """The gradient norm at the first layer divided by the one at the last: > 1 explodes, < 1 vanishes.

    >>> first_over_last(np.array([0.5, 1.0, 2.0]))
    0.25
    """
    norms = np.asarray(norms, dtype=float)
    if norms.ndim != 1 or len(norms) < 2:
        raise ValueError(f"norms must be a 1-D array of at least 2 layers; got shape {norms.shape}")
    if not np.all(np.isfinite(norms)) or not np.all(norms > 0):
        raise ValueError("norms must be finite and positive; got " + np.array2string(norms, threshold=6))
    return float(norms[0] / norms[-1])


def time_step_gradient_norms(
    loss_of_inputs: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor
) -> np.ndarray:
    """‖∂loss/∂x(t)‖ for every time step t of ``inputs`` (B, T, ...), first step first. Shape (T,).

    The recurrent counterpart of ``layer_gradient_norms`` (notebooks 02 and 03):
    ``loss_of_inputs`` maps the inputs to a scalar loss, e.g. a classifier's
    cross-entropy read at the last step, and the norm is taken over the batch
    and feature dimensions of each step's gradient.
    """
    if not callable(loss_of_inputs):
        raise TypeError(f"loss_of_inputs must be a function of the inputs; got {type(loss_of_inputs).__name__}")
    if not isinstance(inputs, torch.Tensor) or inputs.dim() < 2:
        got = tuple(inputs.shape) if isinstance(inputs, torch.Tensor) else type(inputs).__name__
        raise ValueError(f"inputs must have shape (batch, time, ...); got {got}")
    if not inputs.is_floating_point():
        raise ValueError(f"inputs must be floating point to be differentiated; got {inputs.dtype}")
    x = inputs.detach().clone().requires_grad_(True)
    loss = loss_of_inputs(x)
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
        got = tuple(loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(f"loss_of_inputs must return a scalar tensor; got shape {got}")
    (grad,) = torch.autograd.grad(loss, x)
    return grad.transpose(0, 1).reshape(x.shape[1], -1).norm(dim=1).cpu().numpy()  # (T,)
