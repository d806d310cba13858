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
import random
from dataclasses import dataclass, field

import numpy as np
import torch

from dl4nlp._checks import check_choice, check_int, check_sequence
from dl4nlp.autograd import Value, topological_order
from dl4nlp.gradflow import first_over_last, layer_gradient_norms
from dl4nlp.scalar_nn import MLP, flat_parameters, to_torch, train_mlp
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


@dataclass(frozen=True)
class SymmetricStart:
    hidden_spread: float  # largest difference between two hidden neurons' (weights, bias) after training
    train_accuracy: float
    heldout_accuracy: float  # on xor_mlp's 2000 fresh points


def symmetric_start(seed: int = 0, value: float = 0.5, hidden: int = XOR_HIDDEN) -> SymmetricStart:
    """``xor_mlp``'s network and training, from a start where every weight is ``value`` and every bias 0:
    every hidden neuron computes the same function, receives the same gradient and stays a copy of the others.
    """
    check_int("seed", seed, low=0)
    check_int("hidden", hidden)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"value must be a finite number; got {value!r}")
    points, labels = xor_blobs(XOR_POINTS, generator=torch.Generator().manual_seed(seed))
    test_points, test_labels = xor_blobs(2000, generator=torch.Generator().manual_seed(10_000 + seed))
    model = MLP(2, [hidden, 1], seed=seed)
    for layer in model.layers:
        for neuron in layer.neurons:
            for w in neuron.w:
                w.data = float(value)
            neuron.b.data = 0.0
    train_mlp(model, points.tolist(), [2 * int(y) - 1 for y in labels], XOR_STEPS, XOR_BATCH, XOR_LR, seed)
    rows = [[w.data for w in n.w] + [n.b.data] for n in model.layers[0].neurons]
    spread = max(abs(a - b) for row in rows for a, b in zip(row, rows[0]))
    return SymmetricStart(float(spread), _accuracy(model, points, labels), _accuracy(model, test_points, test_labels))


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


# --- the engine's backward loop, a gradient checker and the PyTorch twin's training (notebook 01) ---------


def backward_pass(root) -> None:
    """The engine's backward loop: ``root.grad = 1``, then every node's ``_backward`` from the root back
    to the leaves (reverse topological order), so that a node's gradient is complete before it is passed on.

    The reference for the notebook's exercise on the order (its ``Scalar`` engine calls it).
    """
    if not all(hasattr(root, name) for name in ("grad", "inputs", "_backward")):
        raise TypeError(
            f"root must be an engine's node (with .grad, .inputs and ._backward); got {type(root).__name__}"
        )
    root.grad = 1.0
    for node in reversed(topological_order(root)):
        node._backward()


def order_report(order, root) -> dict:
    """For every node of ``root``'s graph, named by its position in a correct order, its operation and value:
    does ``order`` hold it exactly once, after every one of its inputs? (The feedback of the notebook's
    exercise on the topological sort: all True when ``order`` is a topological order of the graph.)

    >>> from dl4nlp.autograd import Value
    >>> a = Value(2.0); f = a * a + a
    >>> list(order_report([a, f.inputs[0], f], f).values())
    [True, True, True]
    >>> order_report([f.inputs[0], a, f], f)["node 2 (*, value 4)"]
    False
    """
    if not hasattr(root, "inputs"):
        raise TypeError(f"root must be an engine's node (with .inputs); got {type(root).__name__}")
    if not isinstance(order, (list, tuple)):
        raise TypeError(f"order must be the list your sort returns; got {type(order).__name__}")
    where: dict[int, list[int]] = {}
    for position, node in enumerate(order):
        where.setdefault(id(node), []).append(position)
    report = {}
    for index, node in enumerate(topological_order(root)):
        name = f"node {index + 1} ({node.op or 'input'}, value {node.data:.4g})"
        places = where.get(id(node), [])
        report[name] = len(places) == 1 and all(
            len(where.get(id(p), [])) == 1 and where[id(p)][0] < places[0] for p in node.inputs
        )
    return report


def expression_report(expressions: list, engine, reference: list) -> list:
    """One line per expression of an exercise: ✓, or ✗ with the first wrong entry and, where an input is
    used more than once, the hint that contributions must add (``+=``). ``expressions`` holds
    ``(name, build, inputs)``; ``engine(build, inputs)`` returns ``[f, df/dx_1, ...]``; ``reference`` is the
    flat list of every expression's expected values, in order.
    """
    if not isinstance(expressions, (list, tuple)):
        raise TypeError(f"expressions must be a list of (name, build, inputs); got {type(expressions).__name__}")
    if not callable(engine):
        raise TypeError(f"engine must be a function of (build, inputs); got {type(engine).__name__} {engine!r:.40}")
    lines, start = [], 0
    for name, build, inputs in expressions:
        expected = [float(v) for v in reference[start : start + len(inputs) + 1]]
        start += len(inputs) + 1
        leaves = [Value(float(v)) for v in inputs]
        graph = topological_order(build(*leaves))
        uses = [sum(p is leaf for node in graph for p in node.inputs) for leaf in leaves]
        try:
            got = [float(v) for v in engine(build, inputs)]
        except NotImplementedError:  # not answered yet: the exercise's check already says so
            return []
        except Exception as error:  # the student's rule failed on this expression
            lines.append(f"✗ {name}: your code raised {type(error).__name__}: {error}")
            continue
        wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if not abs(g - e) <= 1e-9 * max(1.0, abs(e))]
        if not wrong:
            lines.append(f"✓ {name}")
            continue
        i = wrong[0]
        entry = "value" if i == 0 else f"d/d{'abc'[i - 1]}"
        line = f"✗ {name}: {entry} is {got[i]:.6g}, expected {expected[i]:.6g}"
        if i > 0 and uses[i - 1] > 1:
            line += f" ({'abc'[i - 1]} is used {uses[i - 1]} times: do its contributions add, +=?)"
        lines.append(line)
    return lines


def central_differences(build, inputs: list, eps: float = 1e-6) -> list:
    """``[df/dx_1, ..., df/dx_n]`` of ``f = build(x_1, ..., x_n)`` estimated by central differences,
    ``(f(x + eps e_i) - f(x - eps e_i)) / (2 eps)``: forward passes only, on ``dl4nlp.autograd.Value``s
    (so ``build`` may use ``.exp()``, ``.tanh()``, ``.relu()``), no backward pass.

    >>> [round(g, 6) for g in central_differences(lambda a, b: a * b + a, [2.0, -3.0])]
    [-2.0, 2.0]
    """
    if not callable(build):
        raise TypeError(f"build must be a function of the inputs; got {type(build).__name__}")
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, (list, tuple)):
        raise TypeError(f"inputs must be a list of numbers; got {type(inputs).__name__}")
    values = [float(x) for x in inputs]
    if not values or not all(math.isfinite(x) for x in values):
        raise ValueError(f"inputs must be a non-empty list of finite numbers; got {values}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 < eps < 1:
        raise ValueError(f"eps must be a small positive number, below 1; got {eps!r}")
    grads = []
    for i in range(len(values)):
        up, down = list(values), list(values)
        up[i] += eps
        down[i] -= eps
        f_up, f_down = (build(*[Value(v) for v in x]).data for x in (up, down))
        grads.append((f_up - f_down) / (2 * eps))
    return grads


def relative_error(analytic: float, numerical: float) -> float:
    """``|a - n| / max(|a|, |n|)``, 0 when both are 0: how many digits two gradients share.

    >>> relative_error(1.0, 1.001) < 1e-3
    True
    """
    for name, value in [("analytic", analytic), ("numerical", numerical)]:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number; got {value!r}")
    scale = max(abs(analytic), abs(numerical))
    return 0.0 if scale == 0 else abs(analytic - numerical) / scale


def twin_training(seed: int = 0, hidden: int = XOR_HIDDEN, steps: int = XOR_STEPS) -> torch.Tensor:
    """The weights of ``xor_mlp``'s network after the same training done by PyTorch: the network copied into
    ``torch.nn`` (``to_torch``), the same mini-batches and learning rates, ``torch.optim.SGD``, the hinge loss.
    Flat, in the order of ``MLP.parameters()``; compare with the scalar engine's trained weights.
    """
    check_int("seed", seed, low=0)
    check_int("hidden", hidden)
    check_int("steps", steps)
    points, labels = xor_blobs(XOR_POINTS, generator=torch.Generator().manual_seed(seed))
    signs = torch.tensor([2 * int(y) - 1 for y in labels], dtype=torch.float64)
    twin = to_torch(MLP(2, [hidden, 1], seed=seed))
    sgd = torch.optim.SGD(twin.parameters(), lr=XOR_LR)
    rng = random.Random(seed)  # the batches of scalar_nn.train_mlp
    for step in range(steps):
        chosen = rng.sample(range(XOR_POINTS), XOR_BATCH)
        for group in sgd.param_groups:
            group["lr"] = XOR_LR * (1 - 0.9 * step / steps)
        sgd.zero_grad()
        torch.relu(1 - signs[chosen] * twin(points[chosen])[:, 0]).mean().backward()
        sgd.step()
    return flat_parameters(twin).detach()


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


# --- initialisation: forward statistics and dead ReLUs (notebook 01, Going further) ----------------------
INIT_SETTINGS: dict[str, tuple[str, float]] = {  # name -> (activation, weight variance times the width n)
    "tanh, variance 1/n (Xavier)": ("tanh", 1.0),
    "tanh, variance 1": ("tanh", float("nan")),  # nan: variance 1, whatever the width
    "relu, variance 1/n": ("relu", 1.0),
    "relu, variance 2/n (He)": ("relu", 2.0),
}


@dataclass(frozen=True)
class ActivationStatistics:
    width: int
    rms: dict[str, tuple[float, ...]]  # setting -> root mean square of each layer's outputs, first layer first
    saturated: dict[str, float]  # setting -> share of the last layer's outputs with |h| > 0.99


def activation_statistics(seed: int = 0, depth: int = 10, width: int = 256, batch: int = 500) -> ActivationStatistics:
    """The forward pass of ``depth`` layers ``h = φ(W h)`` (no biases) of ``width`` units on ``batch`` inputs
    drawn from N(0, 1), for each setting of ``INIT_SETTINGS``: how large each layer's outputs are.

    For ``tanh`` near 0, and for ReLU's halving of the second moment, the variance of a layer's
    pre-activations is n σ² times its input's: 1/n keeps a tanh stack's signal, 2/n a ReLU stack's.
    """
    check_int("seed", seed, low=0)
    check_int("depth", depth)
    check_int("width", width, low=2)
    check_int("batch", batch)
    generator = torch.Generator().manual_seed(seed)
    inputs = torch.randn(batch, width, generator=generator, dtype=torch.float64)
    weights = [torch.randn(width, width, generator=generator, dtype=torch.float64) for _ in range(depth)]
    rms, saturated = {}, {}
    for name, (activation, variance) in INIT_SETTINGS.items():
        std = 1.0 if math.isnan(variance) else math.sqrt(variance / width)
        phi = torch.tanh if activation == "tanh" else torch.relu
        h, sizes = inputs, []
        for w in weights:
            h = phi(h @ (std * w).T)
            sizes.append(float(h.pow(2).mean().sqrt()))
        rms[name] = tuple(sizes)
        saturated[name] = float((h.abs() > 0.99).double().mean())
    return ActivationStatistics(width, rms, saturated)


@dataclass(frozen=True)
class DeadUnits:
    width: int
    dead_at_start: int  # hidden units whose input is negative on every training point
    dead_after: int  # of those, dead after training (all of them: no gradient reaches a dead unit)
    dead_moved: float  # largest change of a dead unit's weights or bias during training
    live_moved: float  # largest change of a live unit's weights or bias
    accuracy: float  # on the training points


def dead_relus(seed: int = 0, width: int = 32, bias: float = -2.0, steps: int = 100, lr: float = 0.5) -> DeadUnits:
    """A 2-``width``-1 ReLU network on the XOR blobs whose hidden biases start at ``bias``: the units that are
    off on every training point at the start receive a gradient of exactly 0 and never move, so they stay dead.
    Trained with ``torch.optim.SGD`` and the logistic loss, float64.
    """
    check_int("seed", seed, low=0)
    check_int("width", width)
    check_int("steps", steps)
    for name, value in [("bias", bias), ("lr", lr)]:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number; got {value!r}")
    if lr <= 0:
        raise ValueError(f"lr must be positive; got {lr!r}")
    points, labels = xor_blobs(XOR_POINTS, generator=torch.Generator().manual_seed(seed))
    points, labels = points.double(), labels.double()
    generator = torch.Generator().manual_seed(seed)
    hidden, out = torch.nn.Linear(2, width).double(), torch.nn.Linear(width, 1).double()
    with torch.no_grad():
        hidden.weight.copy_(torch.randn(width, 2, generator=generator, dtype=torch.float64))
        hidden.bias.fill_(float(bias))
        out.weight.copy_(torch.randn(1, width, generator=generator, dtype=torch.float64) / math.sqrt(width))
        out.bias.zero_()
    start = torch.cat([hidden.weight, hidden.bias[:, None]], dim=1).detach().clone()  # (width, 3)
    dead = (hidden(points) <= 0).all(dim=0)  # (width,)
    sgd = torch.optim.SGD([*hidden.parameters(), *out.parameters()], lr=lr)
    for _ in range(steps):
        sgd.zero_grad()
        scores = out(torch.relu(hidden(points)))[:, 0]
        torch.nn.functional.binary_cross_entropy_with_logits(scores, labels).backward()
        sgd.step()
    with torch.no_grad():
        moved = (torch.cat([hidden.weight, hidden.bias[:, None]], dim=1) - start).abs().amax(dim=1)  # (width,)
        still = (hidden(points) <= 0).all(dim=0)
        accuracy = float(((out(torch.relu(hidden(points)))[:, 0] > 0).double() == labels).double().mean())
    return DeadUnits(
        width,
        int(dead.sum()),
        int((dead & still).sum()),
        float(moved[dead].max()) if dead.any() else 0.0,
        float(moved[~dead].max()) if (~dead).any() else 0.0,
        accuracy,
    )


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
