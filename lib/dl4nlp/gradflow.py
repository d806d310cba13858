"""How gradient size changes with depth: deep MLPs and per-layer gradient norms.

A stack of ``depth`` fully connected layers of equal width, with a chosen
activation, weight scale and optional residual connections. Backpropagating a
loss through it shows the gradient shrinking (or growing) by roughly the same
factor per layer. Taught in notebook 01; the recurrent version is notebook 03.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from torch import nn

from dl4nlp._checks import (
    check_array,
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_number,
    check_same_dtype,
    check_tensor,
    check_type,
)

ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "relu": torch.relu,
}

# Where the gradient entering the top layer comes from (see ``layer_gradient_norms``).
UPSTREAMS = ("independent", "squared")


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
        check_int("depth", depth)
        check_int("width", width)
        check_choice("activation", activation, ACTIVATIONS)
        check_number("weight_scale", weight_scale, 0.0, low_open=True)
        check_number("branch_scale", branch_scale, 0.0)
        check_bool("residual", residual)
        if generator is not None:
            check_type("generator", generator, torch.Generator, "a torch.Generator or None")
        if branch_scale != 1.0 and not residual:
            raise ValueError(f"branch_scale scales a residual branch, so it needs residual=True; got {branch_scale!r}")
        self.width = width
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
        check_tensor("x", x, shape=("B", self.width), dtype="float", finite=True)
        check_same_dtype("x", x, self)
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
    check_choice("upstream", upstream, UPSTREAMS)
    check_int("batch", batch)
    check_int("seed", seed, low=0)
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
    norms = check_array("norms", norms, nonempty=False, finite=False)
    if norms.ndim != 1 or len(norms) < 2:
        raise ValueError(f"norms must be a 1-D array of at least 2 layers; got shape {norms.shape}")
    if not np.all(np.isfinite(norms)) or not np.all(norms > 0):
        raise ValueError("norms must be finite and positive; got " + np.array2string(norms, threshold=6))
    return float(norms[0] / norms[-1])


def time_step_gradient_norms(
    loss_of_inputs: Callable[[torch.Tensor], torch.Tensor], inputs: torch.Tensor
) -> np.ndarray:
    """‖∂loss/∂x(t)‖ for every time step t of ``inputs`` (B, T, ...), first step first. Shape (T,).

    The recurrent counterpart of ``layer_gradient_norms`` (notebooks 03 and 04):
    ``loss_of_inputs`` maps the inputs to a scalar loss, e.g. a classifier's
    cross-entropy read at the last step, and the norm is taken over the batch
    and feature dimensions of each step's gradient.
    """
    check_callable("loss_of_inputs", loss_of_inputs, "a function of the inputs returning a scalar loss")
    check_tensor("inputs", inputs, min_ndim=2, dtype="float", finite=True, expected="(batch, time, ...)")
    x = inputs.detach().clone().requires_grad_(True)
    loss = loss_of_inputs(x)
    if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
        what = f"shape {tuple(loss.shape)}" if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise ValueError(f"loss_of_inputs must return a scalar tensor; got {what}")
    if not torch.isfinite(loss):
        raise ValueError(f"loss_of_inputs must return a finite loss; got {loss.item()}")
    if not loss.requires_grad:
        raise ValueError("loss_of_inputs must return a loss computed from its inputs; got one without a gradient")
    (grad,) = torch.autograd.grad(loss, x, allow_unused=True)
    if grad is None:
        raise ValueError("loss_of_inputs must return a loss computed from its inputs; got one that ignores them")
    return grad.transpose(0, 1).reshape(x.shape[1], -1).norm(dim=1).cpu().numpy()  # (T,)
