"""Notebook 00's experiments: the PyTorch primer's training loop, and how precisely a matrix product comes out.

``train`` is the primer's ten-line training loop; ``logistic_regression`` runs it
on ``two_blobs``; ``draw_softmax`` is the figure behind the widget.

``matmul_precision`` multiplies two random float32 matrices on ``device``, once
plainly and once inside ``dl4nlp.autocast(device)``, and compares each result
with the float64 product computed on the CPU. The claim of notebook 00 is that
each error is within the rounding of the precision actually used (float32 on
the CPU, where autocast does nothing; bfloat16 under autocast on a CUDA GPU).

So that a student without a GPU sees what bfloat16 does too, it also emulates
a bfloat16 product on the CPU the way a CUDA GPU's autocast computes one:
inputs rounded to bfloat16, products summed in float32, the result rounded to
bfloat16. Only dtype conversions are used, so it runs on any CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import torch

from dl4nlp._checks import check_device, check_int, check_number
from dl4nlp.device import autocast

ROUNDING_UNITS = 16  # an error up to this many machine epsilons of the result's dtype counts as rounding
BFLOAT16_VISIBLE = 1000  # emulated bfloat16 error is more than this many times the float32 error
EMULATED_BFLOAT16_UNITS = 1  # ... and within this many bfloat16 epsilons (it is rounding of inputs and result)


@dataclass(frozen=True)
class MatmulPrecision:
    device: str
    plain_dtype: str  # dtype of a @ b on the device
    plain_error: float  # max |a @ b - exact| / max |exact|
    autocast_dtype: str  # dtype of a @ b inside dl4nlp.autocast(device)
    autocast_error: float
    emulated_bfloat16_error: float  # the same error for a bfloat16 product emulated on the CPU

    @staticmethod
    def tolerance(dtype: str, units: float = ROUNDING_UNITS) -> float:
        """``units`` machine epsilons of ``dtype`` (a name such as 'torch.float32')."""
        found = getattr(torch, dtype.removeprefix("torch."), None) if isinstance(dtype, str) else None
        if not isinstance(found, torch.dtype) or not found.is_floating_point:
            raise ValueError(f"dtype must name a floating-point torch dtype such as 'torch.float32'; got {dtype!r}")
        return units * torch.finfo(found).eps


def matmul_precision(
    seed: int = 0, device: Union[torch.device, str] = "cpu", shape: tuple[int, int, int] = (64, 256, 32)
) -> MatmulPrecision:
    """Errors of a (n, k) @ (k, m) float32 product on ``device``, plain and under autocast, against float64.

    >>> result = matmul_precision(seed=0)
    >>> result.autocast_dtype, result.plain_error <= result.tolerance("torch.float32")
    ('torch.float32', True)
    """
    check_int("seed", seed, low=0)
    device = check_device("device", device)
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise ValueError(f"shape must be (n, k, m), three sizes; got {shape!r}")
    for size in shape:
        check_int("shape", size)
    device = torch.device(device)
    n, k, m = shape
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(n, k, generator=generator)  # (n, k)
    b = torch.randn(k, m, generator=generator)  # (k, m)
    exact = a.double() @ b.double()  # (n, m), on the CPU
    plain = a.to(device) @ b.to(device)
    with autocast(device):
        mixed = a.to(device) @ b.to(device)
    emulated = (a.bfloat16().float() @ b.bfloat16().float()).bfloat16()  # (n, m), float32 sums of bfloat16 inputs

    def error(result: torch.Tensor) -> float:
        return ((result.double().cpu() - exact).abs().max() / exact.abs().max()).item()

    return MatmulPrecision(str(device), str(plain.dtype), error(plain), str(mixed.dtype), error(mixed), error(emulated))


# --- the PyTorch primer of notebook 00 ------------------------------------------------------------


def draw_softmax(temperature: float, scores: tuple[float, ...] = (3.0, 1.0, 0.2, -1.0)):
    """Bar chart of softmax(scores / temperature): the figure behind notebook 00's widget.

    >>> fig = draw_softmax(0.5)
    >>> [round(float(bar.get_height()), 3) for bar in fig.axes[0].patches]
    [0.978, 0.018, 0.004, 0.0]
    """
    import matplotlib.pyplot as plt

    check_number("temperature", temperature, 0.0)
    if not temperature > 0:
        raise ValueError(f"temperature must be positive; got {temperature!r}")
    if not isinstance(scores, (tuple, list)) or len(scores) < 2:
        raise ValueError(f"scores must be a tuple of at least two numbers; got {scores!r}")
    values = torch.tensor([check_number("scores[i]", s) for s in scores], dtype=torch.float64)
    probabilities = torch.softmax(values / temperature, dim=0)
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.bar([chr(ord("a") + i) for i in range(len(scores))], probabilities.numpy(), color="#4c72b0")
    ax.set_ylim(0, 1)
    ax.set_ylabel("probability")
    ax.set_title(f"softmax(scores / {temperature:.2f}), scores = " + ", ".join(f"{s:g}" for s in scores))
    plt.close(fig)
    return fig


def train(model: torch.nn.Module, loss_fn, inputs: torch.Tensor, targets: torch.Tensor, steps: int, lr: float):
    """The ten-line training loop of notebook 00: full-batch SGD; returns the loss before every step.

    >>> model = torch.nn.Linear(1, 1)
    >>> x = torch.linspace(-1, 1, 20)[:, None]  # (20, 1)
    >>> losses = train(model, torch.nn.functional.mse_loss, x, 3 * x, steps=100, lr=0.5)
    >>> losses[-1] < 1e-3 < losses[0]
    True
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module; got {type(model).__name__}")
    if not callable(loss_fn):
        raise TypeError(f"loss_fn must be callable, e.g. torch.nn.functional.mse_loss; got {type(loss_fn).__name__}")
    for name, tensor in [("inputs", inputs), ("targets", targets)]:
        if not isinstance(tensor, torch.Tensor):
            raise TypeError(f"{name} must be a tensor; got {type(tensor).__name__}")
    if len(inputs) != len(targets):
        raise ValueError(f"inputs and targets must hold one row per example; got {len(inputs)} and {len(targets)}")
    check_int("steps", steps)
    check_number("lr", lr, 0.0)
    if not lr > 0:
        raise ValueError(f"lr must be positive; got {lr!r}")
    device = next(model.parameters()).device  # the data goes where the model is (a GPU, when there is one)
    inputs, targets = inputs.to(device), targets.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)  # forward
        optimizer.zero_grad()  # forget the previous step's gradients
        loss.backward()  # backward: fills p.grad for every parameter
        optimizer.step()  # p -= lr * p.grad
        losses.append(loss.item())
    return losses


def two_blobs(n: int = 200, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` points (n, 2): half around (-1.5, -1.5) with label 0, half around (1.5, 1.5) with label 1.

    >>> points, labels = two_blobs(6, seed=0)
    >>> tuple(points.shape), labels.tolist()
    ((6, 2), [0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    """
    check_int("n", n, low=2)
    check_int("seed", seed, low=0)
    generator = torch.Generator().manual_seed(seed)
    labels = (torch.arange(n) >= n // 2).float()  # (n,)
    centres = (labels[:, None] * 2 - 1) * 1.5  # (n, 1): -1.5 or +1.5
    return centres + torch.randn(n, 2, generator=generator), labels


@dataclass(frozen=True)
class LogisticRegression:
    losses: tuple[float, ...]  # before every step
    accuracy: float  # on the training points
    heldout_accuracy: float  # on 1000 fresh points of the same two blobs


def logistic_regression(seed: int = 0, steps: int = 100, lr: float = 0.5, fit=None) -> LogisticRegression:
    """Logistic regression (``nn.Linear(2, 1)`` and the logistic loss) on 200 points of ``two_blobs``.

    ``fit`` is the training loop (default ``train``; notebook 00 passes the student's).

    >>> result = logistic_regression(seed=0)
    >>> result.losses[-1] < result.losses[0], result.heldout_accuracy > 0.95
    (True, True)
    """
    check_int("seed", seed, low=0)
    fit = train if fit is None else fit
    if not callable(fit):
        raise TypeError(f"fit must be a training loop like train; got {type(fit).__name__}")
    points, labels = two_blobs(200, seed=seed)
    fresh_points, fresh_labels = two_blobs(1000, seed=10_000 + seed)
    torch.manual_seed(seed)
    model = torch.nn.Linear(2, 1)
    losses = fit(model, torch.nn.functional.binary_cross_entropy_with_logits, points, labels[:, None], steps, lr)
    with torch.no_grad():
        accuracy = ((model(points)[:, 0] > 0).float() == labels).float().mean().item()
        heldout = ((model(fresh_points)[:, 0] > 0).float() == fresh_labels).float().mean().item()
    return LogisticRegression(tuple(float(v) for v in losses), accuracy, heldout)
