"""The experiments of notebook 01 (backpropagation), as functions of a seed.

- ``depth_gradients``: the gradient reaching each layer of a 20-layer network,
  for the activations, weight scales and residual variants the notebook compares.
- ``he_scale``: ReLU at He's scale √2, with the two losses of
  ``dl4nlp.gradflow.layer_gradient_norms`` (an upstream gradient independent of
  the network, and the mean squared output), over several networks and depths.
- ``residual_depths``: a ReLU residual stack with and without its branches scaled by 1/√depth.
- ``xor_mlp``: a scalar-engine MLP trained by gradient descent on four blobs
  labelled like XOR, next to a linear model trained the same way.

Each returns a frozen dataclass; the thresholds the notebook's prose states are
the constants below, shared by the notebook and ``tests/claims/test_01_backprop.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from dl4nlp._checks import check_choice, check_int, check_sequence
from dl4nlp.gradflow import first_over_last, layer_gradient_norms
from dl4nlp.scalar_nn import MLP, to_torch, train_mlp
from dl4nlp.tasks import xor_blobs

# --- thresholds of the prose -------------------------------------------------
VANISHED = 1e-6  # first/last below this: the bottom layers learn nothing
LEVEL = 10.0  # "level": first/last within a factor LEVEL of 1
EXPLODED = 100.0  # first/last above this: exploded
SIGMOID_FACTOR = 0.25  # a sigmoid layer at scale 1 passes on less than 1/4 of the gradient
HE_LEVEL = 3.0  # at He's scale with an independent upstream gradient: first/last within ×3 of 1
SQUARED_RATIO = (3.0, 7.0)  # median first/last at √2 with the squared loss lies in this range ("about 5")
SQUARED_EXCESS = (4.5, 8.5)  # on the same networks the squared loss multiplies first/last by a factor in this range
TOP_LAYERS = 3  # ... most of it (in log) from this many layers nearest the loss
SCALE_TOLERANCE = 0.03  # the measured level scale lies within this of √2 (independent upstream)
SCALED_RESIDUAL_BOUND = 3.0  # 1/√L-scaled ReLU residual stack: first/last below this up to depth 60
XOR_HELDOUT = 0.95  # the MLP's accuracy on fresh points
LINEAR_HELDOUT = 0.8  # a linear model's accuracy stays below this

DEPTH_SETTINGS: dict[str, dict] = {
    "sigmoid, scale 1": dict(activation="sigmoid", weight_scale=1.0),
    "tanh, scale 1": dict(activation="tanh", weight_scale=1.0),
    "tanh, scale 3": dict(activation="tanh", weight_scale=3.0),
    "relu, scale 1": dict(activation="relu", weight_scale=1.0),
    "relu, scale √2 (He)": dict(activation="relu", weight_scale=math.sqrt(2)),
    "sigmoid, scale 1, residual": dict(activation="sigmoid", weight_scale=1.0, residual=True),
    "relu, scale 1, residual": dict(activation="relu", weight_scale=1.0, residual=True),
    "relu, scale 1, residual ÷ √depth": dict(activation="relu", weight_scale=1.0, residual=True, branch_scale=None),
}


def _settings(depth: int) -> dict[str, dict]:
    out = {}
    for name, kwargs in DEPTH_SETTINGS.items():
        kwargs = dict(kwargs)
        if "branch_scale" in kwargs:
            kwargs["branch_scale"] = 1 / math.sqrt(depth)
        out[name] = kwargs
    return out


@dataclass(frozen=True)
class DepthGradients:
    depth: int
    norms: dict[str, tuple[float, ...]]  # setting -> gradient norm per layer, first layer first
    ratio: dict[str, float]  # setting -> first/last


def depth_gradients(seed: int = 0, depth: int = 20) -> DepthGradients:
    """Per-layer gradient norms of every setting in ``DEPTH_SETTINGS`` (independent upstream gradient)."""
    check_int("seed", seed, low=0)
    check_int("depth", depth, low=2)
    norms = {name: layer_gradient_norms(depth, seed=seed, **kw) for name, kw in _settings(depth).items()}
    return DepthGradients(
        depth,
        {name: tuple(float(v) for v in n) for name, n in norms.items()},
        {name: first_over_last(n) for name, n in norms.items()},
    )


@dataclass(frozen=True)
class HeScale:
    depths: tuple[int, ...]
    networks: int
    median_ratio: dict[str, tuple[float, ...]]  # upstream -> median first/last at √2, per depth
    median_excess: tuple[float, ...]  # median over networks of ratio(squared) / ratio(independent), per depth
    top_share: float  # median share of log(excess) that the TOP_LAYERS layers nearest the loss carry (first depth)
    level_scale: dict[str, float]  # upstream -> median scale at which first/last = 1 (at depths[1])


def he_scale(seed: int = 0, depths: tuple[int, ...] = (20, 30, 60), networks: int = 12) -> HeScale:
    """ReLU networks at He's scale √2 under both losses; networks ``seed*networks ... +networks-1``.

    Because ReLU(c·z) = c·ReLU(z) and the biases are zero, multiplying every weight by c
    multiplies first/last by c^(depth-1) exactly, so the scale at which first/last = 1
    is √2 · ratio(√2)^(-1/(depth-1)).
    """
    check_int("seed", seed, low=0)
    for depth in check_sequence("depths", depths):
        check_int("depths", depth, low=2)
    check_int("networks", networks)
    if networks < 1:
        raise ValueError(f"networks must be a positive integer; got {networks!r}")
    seeds = range(seed * networks, (seed + 1) * networks)
    median_ratio: dict[str, list[float]] = {"independent": [], "squared": []}
    median_excess, level_scale, top_share = [], {}, float("nan")
    for depth in depths:
        runs = {
            up: [layer_gradient_norms(depth, "relu", math.sqrt(2), seed=s, upstream=up) for s in seeds]
            for up in ("independent", "squared")
        }
        ratios = {up: np.array([first_over_last(n) for n in runs[up]]) for up in runs}
        for up in runs:
            median_ratio[up].append(float(np.median(ratios[up])))
        excess = ratios["squared"] / ratios["independent"]
        median_excess.append(float(np.median(excess)))
        if depth == depths[0]:  # how much of log(excess) the top layers carry
            shares = []
            for sq, ind in zip(runs["squared"], runs["independent"]):
                top = np.log(sq[-TOP_LAYERS - 1] / sq[-1]) - np.log(ind[-TOP_LAYERS - 1] / ind[-1])
                shares.append(top / np.log(first_over_last(sq) / first_over_last(ind)))
            top_share = float(np.median(shares))
        if len(depths) == 1 or depth == depths[1]:
            level_scale = {up: float(np.median(math.sqrt(2) * ratios[up] ** (-1 / (depth - 1)))) for up in ratios}
    return HeScale(
        tuple(depths),
        networks,
        {up: tuple(v) for up, v in median_ratio.items()},
        tuple(median_excess),
        top_share,
        level_scale,
    )


@dataclass(frozen=True)
class ResidualDepths:
    depths: tuple[int, ...]
    plain: tuple[float, ...]  # first/last of h + relu(W h), per depth
    scaled: tuple[float, ...]  # first/last of h + relu(W h) / √depth, per depth


def residual_depths(seed: int = 0, depths: tuple[int, ...] = (10, 20, 40, 60)) -> ResidualDepths:
    """First/last of a ReLU residual stack at weight scale 1, unscaled and with branches ÷ √depth."""
    check_int("seed", seed, low=0)
    for depth in check_sequence("depths", depths):
        check_int("depths", depth, low=2)
    plain = [first_over_last(layer_gradient_norms(d, "relu", 1.0, residual=True, seed=seed)) for d in depths]
    scaled = [
        first_over_last(layer_gradient_norms(d, "relu", 1.0, residual=True, seed=seed, branch_scale=1 / math.sqrt(d)))
        for d in depths
    ]
    return ResidualDepths(tuple(depths), tuple(plain), tuple(scaled))


@dataclass(frozen=True)
class XorTraining:
    losses: tuple[float, ...]  # the mini-batch loss at every step
    train_accuracy: float
    heldout_accuracy: float  # on fresh points of the same distribution
    linear_heldout_accuracy: float  # a linear model (no hidden layer) trained the same way
    heldout_in_training: int  # fresh points that are also training points (0: the two sets are disjoint)
    model: MLP = field(compare=False, repr=False)  # the trained network, for drawing its decision boundary


XOR_POINTS, XOR_HIDDEN, XOR_STEPS, XOR_BATCH, XOR_LR = 60, 8, 40, 20, 1.0


def _accuracy(model: MLP, points: torch.Tensor, labels: torch.Tensor) -> float:
    with torch.no_grad():
        return float(((to_torch(model)(points)[:, 0] > 0).long() == labels).double().mean())


def xor_mlp(seed: int = 0, hidden: int = XOR_HIDDEN, steps: int = XOR_STEPS) -> XorTraining:
    """Train a 2-``hidden``-1 tanh MLP of ``Value``s on ``XOR_POINTS`` points; test on 2000 fresh ones."""
    check_int("seed", seed, low=0)
    check_int("hidden", hidden)
    check_int("steps", steps)
    points, labels = xor_blobs(XOR_POINTS, generator=torch.Generator().manual_seed(seed))
    test_points, test_labels = xor_blobs(2000, generator=torch.Generator().manual_seed(10_000 + seed))
    signs = [2 * int(y) - 1 for y in labels]
    model = MLP(2, [hidden, 1], seed=seed)
    losses = train_mlp(model, points.tolist(), signs, steps, XOR_BATCH, XOR_LR, seed)
    linear = MLP(2, [1], seed=seed)
    train_mlp(linear, points.tolist(), signs, steps, XOR_BATCH, XOR_LR, seed)
    shared = int((test_points[:, None, :] == points[None, :, :]).all(dim=-1).any(dim=1).sum())  # (2000, 60) -> count
    return XorTraining(
        tuple(losses),
        _accuracy(model, points, labels),
        _accuracy(model, test_points, test_labels),
        _accuracy(linear, test_points, test_labels),
        shared,
        model,
    )


# --- the reference backward rules of the notebook's Scalar engine -----------------------------------
# The notebook's exercises ask the student to write these; when an exercise is unsolved, the notebook
# carries on with these (through dl4nlp.exercises.attempt). Each adds local derivative × out.grad.


def add_backward(a, b, out) -> None:
    """o = a + b: both inputs receive the upstream gradient unchanged."""
    a.grad += out.grad
    b.grad += out.grad


def mul_backward(a, b, out) -> None:
    """o = a b: each input receives the other's value times the upstream gradient."""
    a.grad += b.data * out.grad
    b.grad += a.data * out.grad


def pow_backward(a, k, out) -> None:
    """o = a**k for a constant k: k a^(k-1)."""
    a.grad += k * a.data ** (k - 1) * out.grad


def exp_backward(a, out) -> None:
    """o = e^a: the local derivative is the output itself."""
    a.grad += out.data * out.grad


def tanh_backward(a, out) -> None:
    """o = tanh a: 1 - o²."""
    a.grad += (1 - out.data**2) * out.grad


def relu_backward(a, out) -> None:
    """o = max(0, a): 1 where a > 0, else 0 (PyTorch's choice at 0)."""
    a.grad += (1.0 if a.data > 0 else 0.0) * out.grad


# --- the training step of notebook 01, on any scalar engine ---------------------------------------------


def hinge(scores: list, signs: list):
    """Mean of relu(1 - y · s) over a batch, built from ``-``, ``*``, ``+`` and ``relu`` only.

    Unlike ``dl4nlp.scalar_nn.hinge_loss`` it accepts any engine's nodes (the notebook's ``Scalar`` as
    well as ``Value``), so the student's network can be trained with it.

    >>> from dl4nlp.autograd import Value
    >>> hinge([Value(2.0), Value(0.5)], [1, 1]).data  # (0 + 0.5) / 2
    0.25
    """
    if not isinstance(scores, (list, tuple)) or not isinstance(signs, (list, tuple)):
        raise TypeError(f"scores and signs must be lists; got {type(scores).__name__} and {type(signs).__name__}")
    if len(scores) != len(signs) or not scores:
        raise ValueError(f"scores and signs must be non-empty, of equal length; got {len(scores)} and {len(signs)}")
    bad = [y for y in signs if isinstance(y, bool) or y not in (-1, 1)]
    if bad:
        raise ValueError(f"signs must be -1 or +1; got {bad[:5]}")
    total = 0.0
    for score, y in zip(scores, signs):
        total = (1 - y * score).relu() + total
    return total * (1.0 / len(scores))


def gradient_step(model, points: list, signs: list, lr: float) -> float:
    """One step of gradient descent on a scalar-engine network: hinge loss, reset, backward, update.

    The reference for the notebook's exercise 5; returns the loss before the step.

    >>> from dl4nlp.scalar_nn import MLP
    >>> net = MLP(2, [4, 1], seed=0)
    >>> first = gradient_step(net, [[1.0, 1.0], [-1.0, 1.0]], [1, -1], lr=0.5)
    >>> gradient_step(net, [[1.0, 1.0], [-1.0, 1.0]], [1, -1], lr=0.5) < first
    True
    """
    if not hasattr(model, "parameters") or not callable(model):
        raise TypeError(f"model must be a scalar-engine network with .parameters(); got {type(model).__name__}")
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr > 0 or not math.isfinite(lr):
        raise ValueError(f"lr must be a positive number; got {lr!r}")
    loss = hinge([model(p) for p in points], signs)
    for p in model.parameters():
        p.grad = 0.0  # forget the previous step's gradients
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad  # downhill
    return loss.data


# --- the depth widget's figure (plumbing kept out of the notebook) --------------------------------------
RESIDUAL_CHOICES = {"none": None, "α = 1": 1.0, "α = 1/√depth": "sqrt"}
LOSS_CHOICES = {"independent upstream": "independent", "squared output": "squared"}


def depth_figure():
    """A figure laid out once and the function that redraws it for one setting (the widget's plain function).

    The returned ``draw(depth, activation, weight_scale, residual, loss)`` moves the line to the
    gradient norm per layer, sets the limits (at least three decades, so every setting is drawn in
    full) and writes the setting and first/last in the title; decades are labelled 10⁻³ with no
    minor ticks, which halves the redraw time.

    >>> draw = depth_figure()
    >>> fig = draw(20, "relu", 1.0, "none", "independent upstream")
    >>> fig.axes[0].get_title().splitlines()[0]
    'relu, scale 1, no residual'
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullLocator

    from dl4nlp.plots import plot_gradient_norms

    superscripts = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    figure, ax = plt.subplots(figsize=(8, 4.2))
    plot_gradient_norms({"gradient norm": [1.0, 1.0]}, ax=ax)
    (line,) = ax.lines
    ax.get_legend().remove()
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "10" + str(round(math.log10(v))).translate(superscripts)))
    ax.yaxis.set_minor_locator(NullLocator())
    plt.close(figure)  # shown by the widget, not by the cell that made it

    def draw(depth: int, activation: str, weight_scale: float, residual: str, loss: str):
        alpha = RESIDUAL_CHOICES[check_choice("residual", residual, tuple(RESIDUAL_CHOICES))]
        upstream = LOSS_CHOICES[check_choice("loss", loss, tuple(LOSS_CHOICES))]
        check_int("depth", depth, low=2)
        kwargs = (
            {}
            if alpha is None
            else dict(residual=True, branch_scale=1 / math.sqrt(depth) if alpha == "sqrt" else alpha)
        )
        n = layer_gradient_norms(depth, activation=activation, weight_scale=weight_scale, upstream=upstream, **kwargs)
        label = f"{activation}, scale {weight_scale:g}, " + ("no residual" if alpha is None else f"residual {residual}")
        line.set_data(np.arange(1, depth + 1), np.maximum(n, np.finfo(float).tiny))  # (depth,) norms, log axis
        ax.set_xlim(0.5 - 0.02 * depth, depth + 0.5 + 0.02 * depth)
        low, high = np.log10(n.min()), np.log10(n.max())
        middle, half = (low + high) / 2, max((high - low) / 2 + 0.5, 1.5)  # at least three decades
        ax.set_ylim(10 ** (middle - half), 10 ** (middle + half))
        ax.set_title(f"{label}\n{loss}: first/last = {first_over_last(n):.2e}")
        return figure

    return draw
