"""Architecture diagrams drawn by code, so a figure can never drift from the model it shows.

A ``Diagram`` is a list of boxes (a name, a label, a centre, a kind that picks
its colour) and arrows between them; ``draw()`` renders it with matplotlib
alone and returns the figure. The builders below read a model's own structure
(its config, its modules, ``norm_first`` …) and lay out its diagram, so a
change to the model changes its picture.

>>> d = Diagram()
>>> d.box("x", "x(t)", (0, 0), kind="input").box("h", "h(t)", (0, 1.5), kind="state")
Diagram(2 boxes, 0 arrows)
>>> d.arrow("x", "h", label="W_ih")
Diagram(2 boxes, 1 arrows)
>>> fig = d.draw()
>>> len(fig.axes[0].texts) >= 3
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import ArrowStyle, FancyArrowPatch, FancyBboxPatch
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_number,
    check_sequence,
    check_str,
    check_strings,
    check_type,
    given,
)
from dl4nlp.decoder import Seq2SeqTransformerConfig
from dl4nlp.lstm import GRUCell, LSTMCell
from dl4nlp.positional import LearnedPositionalEmbedding, SinusoidalPositionalEncoding
from dl4nlp.scalar_nn import MLP
from dl4nlp.scaling import non_embedding_parameters
from dl4nlp.transformer import TransformerConfig

# What each kind of box looks like: (face colour, edge colour).
KINDS: dict[str, tuple[str, str]] = {
    "input": ("#f2f2f2", "#666666"),
    "output": ("#e8f4e8", "#2e7d32"),
    "state": ("#eef3fb", "#3a5a8c"),
    "param": ("#fdf0e6", "#b35c00"),
    "op": ("#fff4d6", "#a07a1a"),
    "gate": ("#fde8ec", "#b0304a"),
    "attention": ("#efe6fa", "#6a3d9a"),
    "norm": ("#e6f6f8", "#1f7f8c"),
    "ffn": ("#eaf5e1", "#4d8a1f"),
    "embedding": ("#f5f0e1", "#8a6d1f"),
    "group": ("#ffffff", "#999999"),
}


@dataclass
class Box:
    name: str
    label: str
    xy: tuple[float, float]
    kind: str = "op"
    width: float = 1.6
    height: float = 0.6


@dataclass
class Arrow:
    source: str
    target: str
    label: str = ""
    bend: float = 0.0  # curvature: 0 is straight, ±0.3 a gentle arc
    style: str = "-|>"
    dashed: bool = False


@dataclass
class Diagram:
    """Boxes and arrows; ``box`` and ``arrow`` return the diagram so calls chain."""

    boxes: dict[str, Box] = field(default_factory=dict)
    arrows: list[Arrow] = field(default_factory=list)
    groups: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)

    def __post_init__(self) -> None:  # usually built empty; given parts, they must be what box/arrow/group make
        check_type("boxes", self.boxes, dict, "a dict of name -> Box")
        bad = [(k, v) for k, v in self.boxes.items() if not (isinstance(k, str) and isinstance(v, Box))]
        if bad:
            raise TypeError(f"boxes must map names to Boxes; got {bad[0][0]!r:.30} -> {type(bad[0][1]).__name__}")
        check_type("arrows", self.arrows, list, "a list of Arrows")
        if not all(isinstance(a, Arrow) for a in self.arrows):
            raise TypeError(f"arrows must hold Arrows only; got {[type(a).__name__ for a in self.arrows]}")
        check_type("groups", self.groups, list, "a list of (label, (left, bottom, right, top))")
        if not all(isinstance(g, tuple) and len(g) == 2 and isinstance(g[0], str) for g in self.groups):
            raise TypeError(f"groups must hold (label, (left, bottom, right, top)) pairs; got {self.groups!r:.60}")

    def __repr__(self) -> str:
        return f"Diagram({len(self.boxes)} boxes, {len(self.arrows)} arrows)"

    def box(
        self,
        name: str,
        label: str,
        xy: tuple[float, float],
        kind: str = "op",
        width: float = 1.6,
        height: float = 0.6,
    ) -> Diagram:
        """Add a box centred at ``xy``; ``kind`` is one of ``KINDS``."""
        check_choice("kind", kind, KINDS)
        check_str("name", name, nonempty=True)
        if name in self.boxes:
            raise ValueError(f"name must be unique: a box named {name!r} exists already")
        check_str("label", label)
        if not isinstance(xy, (tuple, list)) or len(xy) != 2:
            raise TypeError(f"xy must be a pair of numbers (x, y); got {given(xy)}")
        x, y = (check_number("xy", v) for v in xy)
        check_number("width", width, 0.0, low_open=True)
        check_number("height", height, 0.0, low_open=True)
        self.boxes[name] = Box(name, label, (x, y), kind, width, height)
        return self

    def arrow(
        self, source: str, target: str, label: str = "", bend: float = 0.0, dashed: bool = False, style: str = "-|>"
    ) -> Diagram:
        """Add an arrow from box ``source`` to box ``target`` (both must exist)."""
        for role, end in (("source", source), ("target", target)):
            if not isinstance(end, str) or end not in self.boxes:
                raise KeyError(f"{role} must name a box; no box named {end!r}; boxes: {sorted(self.boxes)}")
        check_str("label", label)
        check_number("bend", bend)
        check_bool("dashed", dashed)
        check_choice("style", style, ArrowStyle.get_styles())
        self.arrows.append(Arrow(source, target, label, bend, style, dashed))
        return self

    def group(self, label: str, names: list[str], pad: float = 0.35) -> Diagram:
        """Draw a labelled frame around the boxes ``names`` (e.g. one layer, one block, one time step)."""
        check_str("label", label)
        names = check_strings("names", names)
        missing = [n for n in names if n not in self.boxes]
        if missing:
            raise KeyError(f"names must name existing boxes; missing {missing}; boxes: {sorted(self.boxes)}")
        check_number("pad", pad, 0.0)
        boxes = [self.boxes[n] for n in names]
        left = min(b.xy[0] - b.width / 2 for b in boxes) - pad
        right = max(b.xy[0] + b.width / 2 for b in boxes) + pad
        bottom = min(b.xy[1] - b.height / 2 for b in boxes) - pad
        top = max(b.xy[1] + b.height / 2 for b in boxes) + pad
        self.groups.append((label, (left, bottom, right, top)))
        return self

    def _extent(self) -> tuple[float, float, float, float]:
        xs = [b.xy[0] - b.width / 2 for b in self.boxes.values()] + [b.xy[0] + b.width / 2 for b in self.boxes.values()]
        ys = [b.xy[1] - b.height / 2 for b in self.boxes.values()] + [
            b.xy[1] + b.height / 2 for b in self.boxes.values()
        ]
        for _, (left, bottom, right, top) in self.groups:
            xs += [left, right]
            ys += [bottom, top + 0.4]
        return min(xs), max(xs), min(ys), max(ys)

    def draw(self, ax: Optional[plt.Axes] = None, title: str = "", scale: float = 1.0) -> plt.Figure:
        """Render the diagram; the figure's size follows the diagram's extent times ``scale``."""
        if not self.boxes:
            raise ValueError("the diagram has no boxes to draw: add one with box() first")
        check_number("scale", scale, 0.0, low_open=True)
        check_str("title", title)
        if ax is not None:
            check_type("ax", ax, plt.Axes, "a matplotlib Axes or None")
        left, right, bottom, top = self._extent()
        if ax is None:
            width, height = right - left + 0.6, top - bottom + 0.6
            fig, ax = plt.subplots(figsize=(min(scale * 0.9 * width + 0.4, 16), min(scale * 0.9 * height + 0.4, 11)))
        else:
            fig = ax.figure
        for label, (g_left, g_bottom, g_right, g_top) in self.groups:
            face, edge = KINDS["group"]
            ax.add_patch(
                FancyBboxPatch(
                    (g_left, g_bottom),
                    g_right - g_left,
                    g_top - g_bottom,
                    boxstyle="round,pad=0.02,rounding_size=0.15",
                    facecolor="none",
                    edgecolor=edge,
                    linestyle="--",
                    zorder=0,
                )
            )
            ax.text(g_left + 0.1, g_top + 0.05, label, ha="left", va="bottom", color=edge, fontsize="small")
        for box in self.boxes.values():
            face, edge = KINDS[box.kind]
            x, y = box.xy
            ax.add_patch(
                FancyBboxPatch(
                    (x - box.width / 2, y - box.height / 2),
                    box.width,
                    box.height,
                    boxstyle="round,pad=0.02,rounding_size=0.12",
                    facecolor=face,
                    edgecolor=edge,
                    linewidth=1.4,
                    zorder=2,
                )
            )
            ax.text(x, y, box.label, ha="center", va="center", zorder=3)
        for arrow in self.arrows:
            start, end = self.boxes[arrow.source], self.boxes[arrow.target]
            patch = FancyArrowPatch(
                start.xy,
                end.xy,
                arrowstyle=arrow.style,
                mutation_scale=12,
                connectionstyle=f"arc3,rad={arrow.bend}",
                color="#444444",
                linestyle="--" if arrow.dashed else "-",
                linewidth=1.2,
                shrinkA=0,
                shrinkB=0,
                zorder=1,
                patchA=None,
                patchB=None,
            )
            # Clip the arrow at the box edges: shrink by the distance from centre to edge along the arrow.
            patch.set_positions(_edge_point(start, end.xy), _edge_point(end, start.xy))
            ax.add_patch(patch)
            if arrow.label:
                (x0, y0), (x1, y1) = start.xy, end.xy
                horizontal = abs(x1 - x0) > abs(y1 - y0)  # label above a horizontal arrow, right of a vertical one
                ax.text(
                    (x0 + x1) / 2 + (0 if horizontal else 0.08),
                    (y0 + y1) / 2 + (0.08 if horizontal else 0),
                    arrow.label,
                    ha="center" if horizontal else "left",
                    va="bottom" if horizontal else "center",
                    fontsize="small",
                    color="#444444",
                    zorder=3,
                    bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8),
                )
        ax.set_xlim(left - 0.3, right + 0.3)
        ax.set_ylim(bottom - 0.3, top + 0.3)
        ax.set_aspect("equal")
        ax.axis("off")
        if title:
            ax.set_title(title)
        return fig


def _edge_point(box: Box, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the segment from the centre of ``box`` to ``toward`` leaves the box."""
    (x, y), (tx, ty) = box.xy, toward
    dx, dy = tx - x, ty - y
    if dx == 0 and dy == 0:
        return x, y
    scale = min(
        (box.width / 2) / abs(dx) if dx else float("inf"),
        (box.height / 2) / abs(dy) if dy else float("inf"),
    )
    scale = min(scale, 1.0)
    return x + dx * scale, y + dy * scale


# --- multilayer perceptrons (notebooks 00-02) ---------------------------------
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _mlp_layers(model) -> tuple[int, list[tuple[int, str]]]:
    """(number of inputs, [(width, non-linearity) per layer]) of a scalar ``MLP`` or a torch ``nn.Sequential``."""
    if isinstance(model, MLP):
        layers = [(len(layer.neurons), layer.neurons[0].nonlinearity) for layer in model.layers]
        return len(model.layers[0].neurons[0].w), layers
    if not isinstance(model, nn.Sequential):
        raise TypeError(
            "model must be a dl4nlp.scalar_nn.MLP or a torch.nn.Sequential of Linear and activation layers; "
            f"got {given(model)}"
        )
    activations = {nn.Tanh: "tanh", nn.ReLU: "relu", nn.Sigmoid: "sigmoid", nn.GELU: "gelu"}
    inputs, layers = None, []
    for index, module in enumerate(model):
        if isinstance(module, nn.Linear):
            expected = inputs if not layers else layers[-1][0]
            if layers and module.in_features != expected:
                raise ValueError(
                    f"model[{index}] must read {expected} features, the width of the layer before it; "
                    f"got Linear({module.in_features}, {module.out_features})"
                )
            inputs = module.in_features if inputs is None else inputs
            layers.append((module.out_features, "linear"))
        elif type(module) in activations:
            if not layers or layers[-1][1] != "linear":
                where = "first" if not layers else f"after {layers[-1][1]}"
                raise ValueError(
                    f"model[{index}] must follow a Linear layer (one activation per layer); "
                    f"got {type(module).__name__} {where}"
                )
            layers[-1] = (layers[-1][0], activations[type(module)])
        else:
            raise TypeError(
                f"model[{index}] must be an nn.Linear or one of {[a.__name__ for a in activations]}; "
                f"got {type(module).__name__}"
            )
    if not layers:
        raise ValueError("model must hold at least one nn.Linear layer; got an empty nn.Sequential")
    return inputs, layers


def mlp_diagram(model) -> Diagram:
    """A multilayer perceptron, left to right, read from ``model`` (notebook 01).

    ``model`` is a ``dl4nlp.scalar_nn.MLP`` or a ``torch.nn.Sequential`` of
    ``Linear`` layers, each optionally followed by a Tanh, ReLU, Sigmoid or GELU
    (what ``scalar_nn.to_torch`` returns). One box per layer: its width first
    (so ``label.split()[0]`` reads it back), then its non-linearity; each arrow
    is one weight matrix (out × in) and its bias.

    >>> from dl4nlp.scalar_nn import MLP, to_torch
    >>> d = mlp_diagram(MLP(2, [8, 1], seed=0))
    >>> [box.label.split()[0] for box in d.boxes.values()], [arrow.label for arrow in d.arrows]
    (['2', '8', '1'], ['W₁ 8×2, b₁', 'W₂ 1×8, b₂'])
    >>> [b.label for b in mlp_diagram(to_torch(MLP(2, [8, 1]))).boxes.values()] == [b.label for b in d.boxes.values()]
    True
    """
    inputs, layers = _mlp_layers(model)
    plural = lambda n, word: f"{n} {word}" + ("" if n == 1 else "s")  # noqa: E731
    d = Diagram().box("input", f"{plural(inputs, 'input')}\nx", (0.0, 0.0), kind="input", width=1.5, height=0.8)
    previous, before = "input", inputs
    for i, (width, act) in enumerate(layers, start=1):
        last = i == len(layers)
        name = "output" if last else f"hidden{i}"
        label = f"{plural(width, 'output' if last else 'unit')}\n{act}"
        d.box(name, label, (3.0 * i, 0.0), kind="output" if last else "state", width=1.5, height=0.8)
        n = str(i).translate(_SUBSCRIPTS)
        d.arrow(previous, name, label=f"W{n} {width}×{before}, b{n}")
        previous, before = name, width
    return d


# --- recurrent networks (notebooks 03-05) -------------------------------------
def _recurrent_sizes(model) -> tuple[Optional[int], Optional[int], int, str]:
    """(vocab size or None, input size, hidden size, nonlinearity) of an RNN-like model."""
    embedding = getattr(model, "embedding", None)
    recurrent = getattr(model, "recurrent", None) or getattr(model, "cell", None) or model
    vocab = embedding.num_embeddings if isinstance(embedding, nn.Embedding) else None
    if isinstance(recurrent, nn.RNNBase):
        if recurrent.mode != "RNN_TANH" and recurrent.mode != "RNN_RELU":
            raise ValueError(f"model must be a vanilla RNN (unrolled_rnn draws one); got a {type(recurrent).__name__}")
        return vocab, recurrent.input_size, recurrent.hidden_size, recurrent.nonlinearity
    if all(hasattr(recurrent, a) for a in ("input_size", "hidden_size", "nonlinearity")):
        return vocab, recurrent.input_size, recurrent.hidden_size, recurrent.nonlinearity
    raise TypeError(
        "model must be an nn.RNN, a dl4nlp.rnn.UnrolledRNN or RNNCell, or a model with .embedding and an "
        f".recurrent nn.RNN (RecurrentLM, RecurrentClassifier); got {type(model).__name__}"
    )


def unrolled_rnn(model, steps: int = 3) -> Diagram:
    """A vanilla RNN unrolled over ``steps`` time steps, sizes read from ``model`` (notebook 03).

    One column per step: input, (embedding,) hidden state, and for a language model
    (a model with a ``head``) the next-token distribution. The recurrent arrows carry
    the one matrix W_h shared by every step.

    >>> import torch.nn as nn
    >>> unrolled_rnn(nn.RNN(8, 16), steps=2)
    Diagram(5 boxes, 4 arrows)
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= 8:
        raise ValueError(f"steps must be an integer from 1 to 8; got {steps!r}")
    vocab, inputs, hidden, act = _recurrent_sizes(model)
    head = getattr(model, "head", None) or getattr(model, "readout", None)
    outputs = getattr(head, "out_features", None)
    is_lm = getattr(model, "head", None) is not None
    d = Diagram()
    d.box("h0", "h(0) = 0", (0.0, 2.0), kind="state", width=1.4)
    for t in range(1, steps + 1):
        x = 2.6 * t
        y0 = 0.0
        if vocab is not None:
            d.box(f"x{t}", f"x({t})\none-hot, {vocab}", (x, y0 - 1.6), kind="input", width=1.9, height=0.8)
            d.box(f"e{t}", f"e({t}) ∈ ℝ^{inputs}", (x, y0), kind="embedding", width=1.9)
            d.arrow(f"x{t}", f"e{t}", label="E")
        else:
            d.box(f"e{t}", f"x({t}) ∈ ℝ^{inputs}", (x, y0), kind="input", width=1.9)
        d.box(f"h{t}", f"h({t}) ∈ ℝ^{hidden}\n{act}", (x, 2.0), kind="state", width=1.9, height=0.8)
        d.arrow(f"e{t}", f"h{t}", label="W_e")
        d.arrow("h0" if t == 1 else f"h{t - 1}", f"h{t}", label="W_h")
        if outputs is not None and (is_lm or t == steps):
            label = f"ŷ({t}) = softmax\nover {outputs}" if is_lm else f"logits\n{outputs} classes"
            d.box(f"y{t}", label, (x, 3.9), kind="output", width=1.9, height=0.8)
            d.arrow(f"h{t}", f"y{t}", label="U")
    return d


def lstm_cell_diagram(cell) -> Diagram:
    """The data flow of one LSTM step, read from ``cell`` (an ``dl4nlp.lstm.LSTMCell`` or one of its variants).

    The cell state runs along the top (only ⊙ f and + touch it); the gates sit
    below, each labelled with its non-linearity and its block of the weights. A
    ``PeepholeLSTMCell`` adds dashed peephole arrows from the cell state to its
    gates; a ``CoupledLSTMCell`` computes the input gate as 1 - f. Notebook 04.
    """
    check_type("cell", cell, LSTMCell, "a dl4nlp.lstm.LSTMCell (or a variant)")
    hidden, inputs = cell.hidden_size, cell.input_size
    peephole = hasattr(cell, "weight_peephole")
    coupled = cell.weight_ih.shape[0] == 3 * hidden
    blocks = cell.weight_ih.shape[0] // hidden
    d = Diagram()
    d.box("c_prev", "C(t−1)", (0, 4), "state", width=1.3)
    d.box("forget_mul", "⊙", (3, 4), "op", width=0.6)
    d.box("add", "+", (6, 4), "op", width=0.6)
    d.box("c", "C(t)", (11, 4), "state", width=1.1)
    d.box("hx", f"[h(t−1), x(t)]\n{hidden} + {inputs} values", (1.2, -0.6), "input", width=2.4, height=0.8)
    d.box("forget", "f = σ(·)", (3, 1.6), "gate", width=1.4)
    d.box("input", "i = 1 − f" if coupled else "i = σ(·)", (4.8, 1.6), "gate", width=1.4)
    d.box("candidate", "C̃ = tanh(·)", (6.8, 1.6), "gate", width=1.7)
    d.box("write", "⊙", (6, 2.8), "op", width=0.6)
    d.box("output", "o = σ(·)", (8.8, 1.6), "gate", width=1.4)
    d.box("squash", "tanh", (9.8, 3.1), "op", width=0.9)
    d.box("show", "⊙", (9.8, 2.2), "op", width=0.6)
    d.box("h", "h(t)", (11, 0.4), "output", width=1.1)
    d.arrow("c_prev", "forget_mul").arrow("forget_mul", "add").arrow("add", "c")
    d.arrow("hx", "forget")
    d.arrow("forget", "forget_mul")
    if coupled:
        d.arrow("forget", "input", label="1 − f")
    else:
        d.arrow("hx", "input")
    d.arrow("hx", "candidate").arrow("hx", "output", bend=0.2)  # sags below the candidate's box
    d.arrow("input", "write").arrow("candidate", "write").arrow("write", "add")
    d.arrow("add", "squash", bend=-0.2).arrow("squash", "show").arrow("output", "show").arrow("show", "h")
    if peephole:
        d.arrow("c_prev", "forget", dashed=True, label="peephole", bend=0.2)
        d.arrow("c_prev", "input", dashed=True, bend=-0.15)
        d.arrow("c", "output", dashed=True, bend=0.75)  # around the right of the tanh and ⊙ that make h
    label = f"one LSTM step: {blocks} weight blocks, each ({hidden}×{hidden + inputs})"
    d.group(label, ["forget_mul", "add", "forget", "show"])
    return d


def gru_cell_diagram(cell) -> Diagram:
    """The data flow of one GRU step, read from ``cell`` (a ``dl4nlp.lstm.GRUCell``).

    The state runs along the top, from h(t−1) through the mix to h(t); the gates sit
    below, fed by [h(t−1), x(t)] (the candidate's box says it reads x(t) there). The
    middle row is where the two forms differ: with ``cell.reset_after`` (PyTorch,
    cuDNN) h(t−1) is multiplied by W_hn first and r scales the product; without it
    (Cho et al., 2014) r scales h(t−1) before the product. No arrow crosses a box.
    Notebook 04.
    """
    check_type("cell", cell, GRUCell, "a dl4nlp.lstm.GRUCell")
    hidden, inputs = cell.hidden_size, cell.input_size
    d = Diagram()
    d.box("h_prev", "h(t−1)", (0, 4), "state", width=1.3)
    d.box("mix", "(1 − z) ⊙ n + z ⊙ h(t−1)", (10.2, 4), "op", width=3.4)
    d.box("h", "h(t)", (13.4, 4), "output", width=1.1)
    d.box("hx", f"[h(t−1), x(t)]\n{hidden} + {inputs} values", (0.6, -0.8), "input", width=2.4, height=0.8)
    d.box("reset", "r = σ(·)", (3.8, 1.0), "gate", width=1.4)
    d.box("candidate", "n = tanh(W_in x(t) + b_in + ·)", (7.2, 1.0), "gate", width=3.4)
    d.box("update", "z = σ(·)", (10.2, 1.0), "gate", width=1.4)
    if cell.reset_after:  # PyTorch: multiply, then reset
        d.box("matmul", f"W_hn h(t−1) + b_hn\n({hidden}×{hidden})", (2.4, 2.6), "param", width=2.6, height=0.8)
        d.box("reset_mul", "r ⊙ (·)", (5.2, 2.6), "op", width=1.1)
        d.arrow("h_prev", "matmul").arrow("matmul", "reset_mul").arrow("reset", "reset_mul")
        d.arrow("reset_mul", "candidate")
    else:  # Cho et al.: reset, then multiply
        d.box("reset_mul", "r ⊙ h(t−1)", (2.0, 2.6), "op", width=1.5)
        d.box("matmul", f"W_hn (r ⊙ h(t−1)) + b_hn\n({hidden}×{hidden})", (5.2, 2.6), "param", width=3.0, height=0.8)
        d.arrow("h_prev", "reset_mul").arrow("reset", "reset_mul").arrow("reset_mul", "matmul")
        d.arrow("matmul", "candidate")
    d.arrow("h_prev", "mix").arrow("mix", "h")
    for gate in ("reset", "candidate", "update"):
        d.arrow("hx", gate, bend=0.25 if gate == "update" else 0.0)  # the long one sags below the candidate
    d.arrow("candidate", "mix").arrow("update", "mix")
    return d


def elmo_diagram(forward, backward, text: str = "his left hand", word: str = "left") -> Diagram:
    """Two directional character language models read ``text``; the word's vector joins their states (notebook 05).

    ``forward`` and ``backward`` are ``dl4nlp.rnn.RecurrentLM`` models; their sizes
    (one LSTM each, its hidden size and the vocabulary) are read from their configs.
    The characters sit at the bottom, the backward model above them (reading right to
    left) and the forward model on top (reading left to right). The forward state
    after the word's last character sees the word and what precedes it; the backward
    state after its first character sees the word and what follows it (both drawn in
    the output colour). No arrow passes through a box it does not start or end at.
    Nothing is shared between the models.

    >>> from dl4nlp.rnn import RecurrentLM
    >>> elmo_diagram(RecurrentLM(30, hidden_size=8), RecurrentLM(30, hidden_size=8), "a left b")
    Diagram(25 boxes, 32 arrows)
    """
    configs = [getattr(model, "config", None) for model in (forward, backward)]
    if any(not hasattr(c, "hidden_size") for c in configs):
        raise TypeError(
            f"forward and backward must be RecurrentLM models; got {type(forward).__name__}, {type(backward).__name__}"
        )
    if not isinstance(text, str) or not isinstance(word, str) or not word or word not in text:
        raise ValueError(f"word must be a non-empty str inside text; got word={word!r}, text={text!r}")
    if len(text) > 16:
        raise ValueError(f"text must have at most 16 characters to fit the drawing; got {len(text)}")
    start = text.index(word)
    end = start + len(word) - 1  # the word's last character
    last = len(text) - 1
    d = Diagram()
    # Inputs at the bottom, the backward row half a step to the right of them, the forward row on top. Every
    # arrow from a character up to its forward state passes between two backward boxes, and the backward
    # state at the word's first character reaches the vector straight up, between two forward boxes.
    for t, char in enumerate(text):
        d.box(f"x{t}", "␣" if char == " " else char, (t, 0.0), kind="input", width=0.7)
        d.box(f"b{t}", "←h", (t + 0.5, 1.6), kind="output" if t == start else "state", width=0.7)
        d.box(f"f{t}", "→h", (t, 3.2), kind="output" if t == end else "state", width=0.7)
        d.arrow(f"x{t}", f"f{t}")
        d.arrow(f"x{t}", f"b{t}")
        if t:
            d.arrow(f"f{t - 1}", f"f{t}")
            d.arrow(f"b{t}", f"b{t - 1}")
    hidden = [c.hidden_size for c in configs]
    # High enough that the arrow from the forward state at the word's end clears the forward boxes it passes.
    rise = max(1.9, 0.75 * abs(end - start - 0.5) + 0.6)
    d.box(
        "elmo",
        f"vector of '{word}'\n[→h, ←h]: {hidden[0]} + {hidden[1]} values",
        (start + 0.5, 3.2 + rise),
        kind="output",
        width=3.6,
        height=0.8,
    )
    d.arrow(f"f{end}", "elmo").arrow(f"b{start}", "elmo")  # the two states it joins
    d.group(f"forward LM: {configs[0].kind.upper()}({hidden[0]}), reads left to right", ["f0", f"f{last}"], pad=0.2)
    d.group(
        f"backward LM: {configs[1].kind.upper()}({hidden[1]}), its own weights, reads right to left",
        ["b0", f"b{last}"],
        pad=0.2,
    )
    return d


# --- encoder-decoder with attention (notebook 06) ------------------------------
def seq2seq_diagram(model, source: str = "abcd", target: str = "dcb", step: Optional[int] = None) -> Diagram:
    """The encoder-decoder of a ``dl4nlp.seq2seq.Seq2Seq``, unrolled over ``source`` and ``target``.

    Read from the model: attention or not (``config.score``), which decoder state
    queries the attention (s_t for Luong's decoder, s_{t-1} for Bahdanau's, s_0 = c
    included), whether a_t enters the GRU (Bahdanau) or h~_{t-1} does (input
    feeding), and the sizes. Boxes are named as labelled: h1..hN, s0..sT, a1..aT,
    h~1..h~T (``ht1``..), outputs o1..oT. The attention's arrows from every h_i are
    drawn for one output step (``step``, 1-based, default the last).
    """
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "decoder"):
        raise TypeError(f"model must be a dl4nlp.seq2seq.Seq2Seq; got {type(model).__name__}")
    check_str("source", source)
    check_str("target", target)
    if not source or not target:
        raise ValueError(f"source and target must be non-empty; got {source!r} and {target!r}")
    if step is not None:
        check_int("step", step, low=None)
    T = len(target)
    step = T if step is None else step
    if not 1 <= step <= T:
        raise ValueError(f"step must be in [1, {T}]; got {step}")
    H, attention = config.d_hidden, config.score is not None
    bahdanau, feeding = config.decoder == "bahdanau", config.input_feeding
    d = Diagram()
    N, gap = len(source), 1.9
    for i, ch in enumerate(source, 1):
        d.box(f"x{i}", repr(ch), ((i - 1) * gap, 0), kind="input", width=1.0)
        d.box(f"h{i}", f"h{i}", ((i - 1) * gap, 1.6), kind="state", width=1.0)
        d.arrow(f"x{i}", f"h{i}")
        if i > 1:
            d.arrow(f"h{i - 1}", f"h{i}", style="<|-|>")
    d.group(f"encoder: bidirectional GRU, h_i in R^{H}", [f"{k}{i}" for k in "xh" for i in range(1, N + 1)])
    x0, column = (N - 1) * gap + 2.4, 3.2
    d.box("s0", "s0 = c", (x0, 1.6), kind="state", width=1.3)
    d.arrow(f"h{N}", "s0", label="c", dashed=True)
    previous = ["<bos>"] + [repr(ch) for ch in target[:-1]]
    for t in range(1, T + 1):
        x = x0 + t * column
        d.box(f"y{t}", previous[t - 1], (x, 0), kind="input", width=1.1)
        d.box(f"s{t}", f"s{t}", (x, 1.6), kind="state", width=1.0)
        d.box(f"o{t}", repr(target[t - 1]), (x, 6.4 if attention else 3.4), kind="output", width=1.1)
        d.arrow(f"y{t}", f"s{t}")
        d.arrow(f"s{t - 1}", f"s{t}")
        if not attention:
            d.arrow(f"s{t}", f"o{t}", label="[c; s]" if t == 1 else "")
            continue
        # a_t sits left of its column (Bahdanau: between s_{t-1} and s_t) so no arrow crosses another
        d.box(f"a{t}", f"a{t}", (x - 1.2, 3.4), kind="attention", width=0.9)
        d.box(f"ht{t}", f"h~{t}", (x, 4.9), kind="op", width=1.0)
        query = f"s{t - 1}" if bahdanau else f"s{t}"
        d.arrow(query, f"a{t}", label=f"query ({config.score})" if t == step else "")
        if bahdanau:
            d.arrow(f"a{t}", f"s{t}", label="into GRU" if t == step else "")
        d.arrow(f"a{t}", f"ht{t}")
        d.arrow(f"s{t}", f"ht{t}", label="[a;s]" if t == 1 else "")
        d.arrow(f"ht{t}", f"o{t}")
        if feeding and t > 1:  # h~_{t-1} = tanh(W_c [a_{t-1}; s_{t-1}]) joins the next GRU input
            d.arrow(f"ht{t - 1}", f"s{t}", dashed=True, bend=0.25)  # bowed clear of a_t
    if attention:
        for i in range(1, N + 1):
            d.arrow(f"h{i}", f"a{step}", dashed=True, bend=-0.3)
    name = "no attention (bottleneck)" if not attention else f"{config.decoder} decoder, {config.score} score"
    if feeding:
        name += ", input feeding (dashed: h~ into the next step)"
    members = ["s0"] + [f"{k}{t}" for t in range(1, T + 1) for k in ("y", "s", "o")]
    d.group(f"decoder: GRU, {name}", members)
    return d


# --- the Transformer (notebooks 08, 10 and 11) ----------------------------------
def _block_boxes(
    d: Diagram,
    prefix: str,
    start: str,
    sublayers: list[tuple[str, str, str]],
    x: float,
    y: float,
    norm_first: bool,
    residual: bool = True,
    layer_norm: bool = True,
) -> tuple[str, float, list[str]]:
    """Stack the sublayers of one block upward from ``y`` above box ``start``; returns (last box, next y, boxes).

    Each sublayer is (name, label, kind). With ``norm_first`` the LayerNorm comes
    before the sublayer and the residual adds after it; otherwise the sum comes
    first and the LayerNorm after it (Vaswani et al.'s "Add & Norm"). Residual
    connections are the dashed arcs into the "+" boxes.
    """
    names, last = [], start
    for name, label, kind in sublayers:
        branch = last
        if norm_first and layer_norm:
            d.box(f"{prefix}{name}_ln", "LayerNorm", (x, y), "norm", width=1.8, height=0.45)
            d.arrow(last, f"{prefix}{name}_ln")
            last, y = f"{prefix}{name}_ln", y + 0.8
            names.append(last)
        d.box(f"{prefix}{name}", label, (x, y), kind, width=3.2, height=0.65)
        d.arrow(last, f"{prefix}{name}")
        last, y = f"{prefix}{name}", y + 0.95
        names.append(last)
        if residual:
            d.box(f"{prefix}{name}_add", "+", (x, y), "op", width=0.45, height=0.45)
            d.arrow(last, f"{prefix}{name}_add")
            d.arrow(branch, f"{prefix}{name}_add", bend=1.1, dashed=True)
            last, y = f"{prefix}{name}_add", y + 0.75
            names.append(last)
        if not norm_first and layer_norm:
            d.box(f"{prefix}{name}_ln", "LayerNorm", (x, y), "norm", width=1.8, height=0.45)
            d.arrow(last, f"{prefix}{name}_ln")
            last, y = f"{prefix}{name}_ln", y + 0.8
            names.append(last)
    return last, y, names


def transformer_block_diagram(config) -> Diagram:
    """One Transformer block as its ``TransformerConfig`` builds it: which sublayers, residuals, LayerNorms, where.

    The dashed arcs are the residual connections; "+" adds them.
    """
    check_type("config", config, TransformerConfig, "a dl4nlp.transformer.TransformerConfig")
    d = Diagram()
    d.box("in", "x  (T × d_model)", (0, 0), "input", width=2.6, height=0.5)
    sublayers = []
    if config.use_attention:
        heads = f"{config.n_heads} heads of {config.d_model // config.n_heads}"
        sublayers.append(("attn", f"multi-head attention\n{heads}", "attention"))
    if config.use_feed_forward:
        sublayers.append(("ffn", f"feed-forward\n{config.d_model} → {config.d_ff} → {config.d_model}", "ffn"))
    last, y, names = _block_boxes(
        d, "", "in", sublayers, 0.0, 1.1, config.norm_first, config.use_residual, config.use_layer_norm
    )
    d.box("out", "output  (T × d_model)", (0, y + 0.5), "output", width=2.6, height=0.5)
    d.arrow(last, "out")
    placement = "pre-LN" if config.norm_first else "post-LN"
    d.group(f"one block ({placement}), × {config.n_layers}", names, pad=0.45)
    return d


def decoder_only_diagram(config) -> Diagram:
    """A decoder-only language model (GPT) from its ``TransformerConfig``: embeddings, masked blocks, output layer."""
    check_type("config", config, TransformerConfig, "a dl4nlp.transformer.TransformerConfig")
    d = Diagram()
    d.box("tokens", "tokens x₁ … x_T", (0, 0), "input", width=2.6, height=0.5)
    d.box("emb", f"token embedding ({config.vocab_size} × {config.d_model})", (0, 1.0), "embedding", width=3.6)
    d.box("pos", f"+ {config.positional} positions (up to {config.max_len})", (0, 2.0), "embedding", width=3.6)
    d.arrow("tokens", "emb").arrow("emb", "pos")
    sublayers = [
        ("attn", f"masked multi-head attention\n{config.n_heads} heads, each sees only the past", "attention"),
        ("ffn", f"feed-forward {config.d_model} → {config.d_ff} → {config.d_model}", "ffn"),
    ]
    last, y, names = _block_boxes(d, "", "pos", sublayers, 0.0, 3.1, config.norm_first)
    d.group(f"× {config.n_layers} blocks", names, pad=0.45)
    y += 0.5
    if config.norm_first:
        d.box("final_ln", "final LayerNorm", (0, y), "norm", width=2.0, height=0.45)
        d.arrow(last, "final_ln")
        last, y = "final_ln", y + 0.85
    tied = "\n(tied to the token embedding)" if config.tie_weights else ""
    d.box("head", f"linear → {config.vocab_size} logits{tied}", (0, y), "param", width=3.6, height=0.65)
    d.box("softmax", "softmax: P(next token | tokens so far)", (0, y + 1.0), "output", width=3.6)
    d.arrow(last, "head").arrow("head", "softmax")
    return d


def encoder_decoder_diagram(config) -> Diagram:
    """The encoder-decoder Transformer from its ``Seq2SeqTransformerConfig``: both stacks and the cross-attention."""
    check_type("config", config, Seq2SeqTransformerConfig, "a dl4nlp.decoder.Seq2SeqTransformerConfig")
    d = Diagram()
    for side, x, label in (("e", -3.4, "source"), ("d", 3.4, "target shifted right (BOS first)")):
        d.box(f"{side}tokens", label, (x, 0), "input", width=3.4, height=0.5)
        d.box(f"{side}emb", f"embedding + {config.positional} positions", (x, 1.0), "embedding", width=3.4)
        d.arrow(f"{side}tokens", f"{side}emb")
    enc_last, enc_y, enc_names = _block_boxes(
        d,
        "e",
        "eemb",
        [("attn", "self-attention\n(all source positions)", "attention"), ("ffn", "feed-forward", "ffn")],
        -3.4,
        2.1,
        config.norm_first,
    )
    d.group(f"encoder × {config.encoder_layers}", enc_names, pad=0.45)
    dec_last, dec_y, dec_names = _block_boxes(
        d,
        "d",
        "demb",
        [
            ("attn", "masked self-attention\n(the target so far)", "attention"),
            ("cross", "cross-attention\nQ: decoder; K, V: encoder", "attention"),
            ("ffn", "feed-forward", "ffn"),
        ],
        3.4,
        2.1,
        config.norm_first,
    )
    d.group(f"decoder × {config.decoder_layers}", dec_names, pad=0.45)
    if config.norm_first:  # pre-LN stacks end with a LayerNorm
        for side, x, y, last in (("e", -3.4, enc_y, enc_last), ("d", 3.4, dec_y, dec_last)):
            d.box(f"{side}final", "final LayerNorm", (x, y + 0.5), "norm", width=2.0, height=0.45)
            d.arrow(last, f"{side}final")
        enc_last, dec_last, enc_y, dec_y = "efinal", "dfinal", enc_y + 0.8, dec_y + 0.8
    d.box("memory", "memory: encoder output\n(S × d_model)", (-3.4, enc_y + 0.6), "state", width=3.4, height=0.65)
    d.arrow(enc_last, "memory")
    d.arrow("memory", "dcross", label="K, V", bend=-0.15)
    d.box("head", f"linear + softmax → {config.target_vocab_size} symbols", (3.4, dec_y + 0.6), "output", width=3.6)
    d.arrow(dec_last, "head")
    return d


def multi_head_attention_diagram(attention, show_heads: int = 4) -> Diagram:
    """Multi-head self-attention as a ``dl4nlp.attention.MultiHeadAttention`` computes it (notebook 08).

    Read from the module: the width d_model, the number of heads and their size,
    whether the projections have biases, and whether it rotates queries and keys
    (``RotaryAttention``). X (T × d) is projected to Q, K and V (each T × d) by three
    d × d matrices W_Q, W_K, W_V, each the h heads' own d × d/h projections side by
    side; head i takes columns i·d/h … (i+1)·d/h − 1 of Q, K and V, every one of them
    a learned mix of all d input dimensions (Vaswani et al., 2017, §3.2.2), so a head
    never sees a slice of the word vector; the heads' outputs are concatenated and
    mixed by W^O. At most ``show_heads`` heads are drawn, the rest stand behind a
    "…" box.
    """
    for name in ("d_model", "n_heads", "d_head", "q_proj", "out_proj"):
        if not hasattr(attention, name):
            raise TypeError(f"attention must be a dl4nlp.attention.MultiHeadAttention; got {type(attention).__name__}")
    if not isinstance(show_heads, int) or isinstance(show_heads, bool) or show_heads < 1:
        raise ValueError(f"show_heads must be a positive integer; got {show_heads!r}")
    C, H, d_head = attention.d_model, attention.n_heads, attention.d_head
    bias = " + b" if attention.q_proj.bias is not None else ""
    rotary = hasattr(attention, "base")  # RotaryAttention rotates queries and keys by their positions
    drawn = min(H, show_heads)
    d = Diagram()
    d.box("x", f"X  (T × {C})", (0, 0), "input", width=2.4, height=0.5)
    for j, (name, label) in enumerate((("q", "Q"), ("k", "K"), ("v", "V"))):
        text = f"{label} = X W_{label}{bias}  (T × {C})\nW_{label}: {C} × {C}"
        d.box(name, text, ((j - 1) * 3.4, 1.4), "param", width=3.15, height=0.7)
        d.arrow("x", name)
    gap = 3.4
    xs = [(i - (drawn - 1) / 2) * gap for i in range(drawn)]
    heads = []
    for i, x in enumerate(xs):
        last = i == drawn - 1 and H > drawn
        n = i + 1
        label = f"head {n}\nsoftmax(Q{n} K{n}ᵀ / √{d_head}) V{n}"
        if rotary:
            label = f"head {n}: rotate Q{n}, K{n}\nsoftmax(Q{n} K{n}ᵀ / √{d_head}) V{n}"
        if last:
            label = f"… {H - drawn + 1} more heads"
        d.box(f"h{i}", label, (x, 3.3), "attention", width=3.1, height=0.8)
        for name in ("q", "k", "v"):
            d.arrow(name, f"h{i}", label=f"{d_head} cols of Q" if (i == 0 and name == "q") else "")
        heads.append(f"h{i}")
    d.group(f"{H} heads, each projecting all {C} input dimensions to its own {d_head}", heads, pad=0.3)
    d.box("concat", f"concatenate the heads  (T × {H}·{d_head} = T × {C})", (0, 5.0), "op", width=6.0, height=0.5)
    for name in heads:
        d.arrow(name, "concat")
    d.box("out", f"output = concat · W_O{bias}  (T × {C})", (0, 6.1), "output", width=5.2, height=0.5)
    d.arrow("concat", "out", label=f"W_O: {C} × {C}")
    return d


# --- where position information enters (notebook 09) ---------------------------


def tagger_diagram(tagger, layers: int = 2) -> Diagram:
    """A ``dl4nlp.taggers.Tagger`` from its ids to its labels, showing where positions enter (notebook 09).

    Read from the module: the vocabulary and width of the token embedding, the
    kind of position module (nothing, a learned table, the fixed sinusoids) or
    rotary attention inside every layer, the number of layers, each layer's
    heads, LayerNorm placement (pre- or post-LN), feed-forward width and causal
    mask, and the number of labels. At most ``layers`` layers are drawn; the
    last one stands for the rest.
    """
    for name in ("embedding", "position", "encoder", "head", "config"):
        if not hasattr(tagger, name):
            raise TypeError(f"tagger must be a dl4nlp.taggers.Tagger; got {type(tagger).__name__}")
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 1:
        raise ValueError(f"layers must be a positive integer; got {layers!r}")
    V, C = tagger.embedding.num_embeddings, tagger.embedding.embedding_dim
    blocks = list(tagger.encoder.blocks)
    causal = bool(tagger.config.causal)
    d = Diagram()
    W = 4.2
    d.box("ids", f"ids  (B × T), vocabulary {V}", (0, 0), "input", width=W, height=0.5)
    d.box("embed", f"token embedding  ({V} × {C})", (0, 1.1), "embedding", width=W, height=0.5)
    d.arrow("ids", "embed")
    position = tagger.position
    if isinstance(position, LearnedPositionalEmbedding):
        label, kind = f"+ learned position table\n({position.max_len} × {C}, trained)", "param"
    elif isinstance(position, SinusoidalPositionalEncoding):
        label, kind = f"+ sinusoids PE(pos)\n({position.max_len} × {C}, fixed)", "embedding"
    else:
        label, kind = "+ nothing\n(no position added)", "input"
    d.box("position", label, (0, 2.3), kind, width=W, height=0.75)
    d.arrow("embed", "position")
    below, y = "position", 3.7
    for i, block in enumerate(blocks[:layers]):
        attention = block.self_attn
        rotary = hasattr(attention, "base")  # RotaryAttention rotates queries and keys by their positions
        sees = "causal mask" if causal else "all positions"
        norm, after = ("LayerNorm → ", "") if block.norm_first else ("", " → LayerNorm")
        lines = [f"{norm}self-attention{after}", f"{attention.n_heads} heads of {attention.d_head}, {sees}"]
        if rotary:
            lines.append("q, k rotated by position (RoPE)")
        d.box(
            f"attn{i}", "\n".join(lines + ["+ residual"]), (0, y), "attention", width=W, height=1.25 if rotary else 1.0
        )
        d.box(
            f"ffn{i}",
            f"{norm}feed-forward{after}\n{C} → {block.linear1.out_features} → {C}, + residual",
            (0, y + 1.45),
            "ffn",
            width=W,
            height=0.75,
        )
        d.arrow(below, f"attn{i}").arrow(f"attn{i}", f"ffn{i}")
        last = i == layers - 1 and len(blocks) > layers
        d.group(
            f"layers {i + 1}–{len(blocks)}, alike" if last else f"layer {i + 1} of {len(blocks)}",
            [f"attn{i}", f"ffn{i}"],
            pad=0.2,
        )
        below, y = f"ffn{i}", y + 3.0
    if isinstance(tagger.encoder.final_norm, nn.LayerNorm):
        d.box("final", "final LayerNorm", (0, y - 0.2), "norm", width=W, height=0.5)
        d.arrow(below, "final")
        below, y = "final", y + 0.7
    labels = tagger.head.out_features
    d.box(
        "head",
        f"linear {C} → {labels}\nlogits (B × T × {labels}): a label per position",
        (0, y + 0.1),
        "output",
        width=W,
        height=0.75,
    )
    d.arrow(below, "head")
    return d


# --- BERT and the pre-training families (notebook 13) ---------------------------
def bert_diagram(model: Any, head: str = "pretraining") -> Diagram:
    """BERT drawn from a ``dl4nlp.bert.Bert``: its three embeddings, one encoder layer (× n_layers) and heads.

    The layer is drawn pre-LN or post-LN as ``model.config.norm_first`` says;
    sizes come from the config. ``head`` is ``'pretraining'`` (MLM + NSP) or
    ``'classifier'`` (fine-tuning from the pooled [CLS]).
    """
    check_choice("head", head, ("pretraining", "classifier"))
    config = getattr(model, "config", None)
    if config is None or not hasattr(model, "segment_embedding"):
        raise TypeError(f"model must be a dl4nlp.bert.Bert; got {given(model)}")
    C, H, F, L = config.d_model, config.n_heads, config.d_ff, config.n_layers
    segments = model.segment_embedding.num_embeddings
    d = Diagram()
    d.box("input", "[CLS] segment A [SEP] segment B [SEP]", (0, 0), kind="input", width=5.4)
    for name, label, x in (("token", f"token embedding\n{config.vocab_size:,} × {C}", -3.4),
                           ("segment", f"segment embedding\n{segments} × {C}", 0.0),
                           ("position", f"position embedding\n{config.max_len} × {C}", 3.4)):  # fmt: skip
        d.box(name, label, (x, 1.5), kind="embedding", width=3.1, height=0.85)
    d.box("embed", "sum, then LayerNorm", (0, 2.9), kind="norm", width=3.2)
    for name in ("token", "segment", "position"):
        d.arrow("input", name).arrow(name, "embed")
    attention = f"multi-head self-attention\n{H} heads, no causal mask"
    ffn = f"feed-forward, GELU\n{C} → {F} → {C}"
    y = 4.3
    if config.norm_first:
        layer = [("norm1", "LayerNorm", "norm"), ("attn", attention, "attention"), ("add1", "+ residual", "op"),
                 ("norm2", "LayerNorm", "norm"), ("ffn", ffn, "ffn"), ("add2", "+ residual", "op")]  # fmt: skip
    else:
        layer = [("attn", attention, "attention"), ("add1", "+ residual, LayerNorm", "norm"),
                 ("ffn", ffn, "ffn"), ("add2", "+ residual, LayerNorm", "norm")]  # fmt: skip
    previous = "embed"
    for name, label, kind in layer:
        tall = kind in ("attention", "ffn")
        d.box(name, label, (0, y), kind=kind, width=4.2, height=0.85 if tall else 0.5)
        d.arrow(previous, name)
        previous, y = name, y + (1.15 if tall else 0.85)
    d.arrow("embed", "add1", bend=-1.4, dashed=True)
    d.arrow("add1", "add2", bend=-1.4, dashed=True)
    d.group(f"encoder layer ({'pre-LN' if config.norm_first else 'post-LN'}) × {L}", [n for n, _, _ in layer])
    if config.norm_first:
        d.box("final", "final LayerNorm", (0, y + 0.5), kind="norm", width=2.8)
        d.arrow(previous, "final")
        previous, y = "final", y + 0.5
    top = y + 1.5
    d.box("pooler", "pooler\ntanh(W h[CLS] + b)", (3.0, top), kind="op", width=3.6, height=0.85)
    d.arrow(previous, "pooler", label="h[CLS]")
    if head == "pretraining":
        d.box("mlm", "MLM head: dense, GELU,\nLayerNorm, output layer", (-3.6, top), kind="op", width=3.8, height=0.85)
        d.box("mlm_out", f"scores over {config.vocab_size:,} pieces\nat the chosen positions", (-3.6, top + 1.5),
              kind="output", width=3.8, height=0.85)  # fmt: skip
        d.box("nsp", "IsNext / NotNext", (3.0, top + 1.5), kind="output", width=3.0)
        d.arrow(previous, "mlm", label="h at chosen positions").arrow("mlm", "mlm_out").arrow("pooler", "nsp")
        if config.tie_weights:
            d.arrow("token", "mlm", label="tied weights", dashed=True)
    else:
        d.box("classifier", "dropout, linear layer\n→ class scores", (3.0, top + 1.5), kind="output", width=3.6,
              height=0.85)  # fmt: skip
        d.arrow("pooler", "classifier")
    return d


def objectives_diagram(examples: Sequence[Any], name_of: Callable[[int], str], width: float = 1.3) -> Diagram:
    """One row of boxes per ``dl4nlp.objectives.TrainingExample``: what the model reads, then what it predicts.

    Predicted positions that carry loss are drawn as outputs, the others
    greyed; ``name_of`` turns an id into the text shown. Replaced-token
    detection predicts "orig" (the original token) or "repl" (a replacement).
    """
    examples = check_sequence("examples", examples, what="a list of dl4nlp.objectives.TrainingExample")
    bad = [e for e in examples if not (hasattr(e, "inputs") and hasattr(e, "loss") and hasattr(e, "objective"))]
    if bad:
        raise TypeError(f"examples must hold dl4nlp.objectives.TrainingExample records; got {given(bad[0])}")
    check_callable("name_of", name_of, "a function from a token id to its text")
    check_number("width", width, 0, low_open=True)
    d, y = Diagram(), 0.0
    for k, example in enumerate(examples):
        d.box(f"label{k}", f"{example.objective}\n({example.family})", (-3.1, y - 0.45), kind="group", width=4.3,
              height=1.2)  # fmt: skip
        rows = [("reads", example.inputs, None)]
        if example.decoder_inputs is not None:
            rows.append(("decoder reads", example.decoder_inputs, None))
        rows.append(("predicts", example.targets, example.loss))
        for r, (what, ids, loss) in enumerate(rows):
            row_y = y - 0.6 * r
            d.box(f"what{k}_{r}", what, (0.55, row_y), kind="group", width=2.5, height=0.45)
            for i, token in enumerate(ids):
                if loss is None:
                    kind = "input"
                else:
                    kind = "output" if loss[i] else "group"
                label = name_of(int(token)) if example.objective != "replaced token detection" or loss is None else (
                    "repl" if token else "orig")  # fmt: skip
                d.box(f"t{k}_{r}_{i}", label, (2.3 + i * width, row_y), kind=kind, width=width * 0.92, height=0.45)
        y -= 0.6 * len(rows) + 0.5
    return d


# --- scaling laws (notebook 14) ---------------------------------------------------
def shapes_diagram(configs: dict, width_scale: float = 0.05, gap: float = 1.2) -> Diagram:
    """Decoder-only LMs side by side, each drawn from its ``TransformerConfig`` as a stack: the embeddings,
    one box per block (``d_model * width_scale`` wide, labelled with its parameters) and the tied output
    layer; one scale for all, so shapes with the same number of parameters look as different as they are.
    ``configs`` maps a name (e.g. '2x32') to a config."""
    check_type("configs", configs, dict, "a dict of name -> TransformerConfig")
    if not configs:
        raise ValueError("configs must name at least one model; got none")
    for name, config in configs.items():
        check_str("each name in configs", name, nonempty=True)
        check_type(f"configs[{name!r}]", config, TransformerConfig, "a TransformerConfig")
    check_number("width_scale", width_scale, 0, low_open=True)
    check_number("gap", gap, 0)
    diagram, x = Diagram(), 0.0
    for name, config in configs.items():
        d, layers = config.d_model, config.n_layers
        width = max(1.3, d * width_scale)
        x += width / 2 + 0.3
        per_block = (non_embedding_parameters(config) - (2 * d if config.norm_first else 0)) // layers
        embedding = (config.vocab_size + config.max_len) * d
        diagram.box(f"{name}/emb", f"embed {embedding:,}", (x, 0), kind="embedding", width=width + 0.4, height=0.45)
        previous = f"{name}/emb"
        for i in range(layers):
            label = f"{per_block:,}" if layers <= 3 or i in (0, layers - 1) else ""
            diagram.box(f"{name}/{i}", label, (x, 0.8 + 0.6 * i), kind="attention", width=width, height=0.45)
            diagram.arrow(previous, f"{name}/{i}")
            previous = f"{name}/{i}"
        diagram.box(f"{name}/out", "output", (x, 1.0 + 0.6 * layers), kind="output", width=width + 0.4, height=0.45)
        diagram.arrow(previous, f"{name}/out")
        diagram.box(f"{name}/in", f"{layers} x {d}", (x, -0.75), kind="input", width=width + 0.4, height=0.45)
        diagram.arrow(f"{name}/in", f"{name}/emb")
        x += width / 2 + 0.3 + gap
    return diagram


# --- convolutions over text (notebook 02) ------------------------------------------------------------------------


def textcnn_diagram(model) -> Diagram:
    """Kim's TextCNN, bottom to top, read from a ``dl4nlp.textcnn.TextCNN``: one column per filter width.

    >>> from dl4nlp.textcnn import TextCNN, TextCNNConfig
    >>> d = textcnn_diagram(TextCNN(TextCNNConfig(vocab_size=100, classes=5, filters=8)))
    >>> [d.boxes[f"conv{k}"].label.split(chr(10))[0] for k in (3, 4, 5)], d.boxes["linear"].label
    (['8 filters of width 3', '8 filters of width 4', '8 filters of width 5'], 'linear 24 → 5')
    """
    from dl4nlp.textcnn import TextCNN

    check_type("model", model, TextCNN, "a dl4nlp.textcnn.TextCNN")
    config = model.config
    m, f, widths = config.embed_dim, config.filters, config.widths
    d = Diagram()
    d.box("words", "a sentence of T words (ids)", (0.0, 0.0), kind="input", width=4.2, height=0.5)
    d.box("embed", f"word vectors: T × {m}", (0.0, 1.1), kind="embedding", width=4.2, height=0.5)
    d.arrow("words", "embed", label=f"embedding {config.vocab_size:,} × {m}")
    spacing = 3.2
    for i, k in enumerate(widths):
        x = (i - (len(widths) - 1) / 2) * spacing
        d.box(f"conv{k}", f"{f} filters of width {k}\n{f} × (T − {k - 1})", (x, 2.6), kind="op", width=2.8, height=0.8)
        d.box(f"pool{k}", f"ReLU, max over time\n{f} numbers", (x, 4.0), kind="state", width=2.8, height=0.8)
        d.arrow("embed", f"conv{k}", label=f"{k} × {m} each")
        d.arrow(f"conv{k}", f"pool{k}")
    joined = f * len(widths)
    d.box("concat", f"concatenate: {joined} numbers", (0.0, 5.4), kind="state", width=4.2, height=0.5)
    for k in widths:
        d.arrow(f"pool{k}", "concat")
    d.box("dropout", f"dropout {config.dropout:g}", (0.0, 6.5), kind="op", width=2.8, height=0.5)
    d.box("linear", f"linear {joined} → {config.classes}", (0.0, 7.6), kind="param", width=2.8, height=0.5)
    d.box("out", f"{config.classes} class scores", (0.0, 8.7), kind="output", width=2.8, height=0.5)
    d.arrow("concat", "dropout").arrow("dropout", "linear").arrow("linear", "out")
    return d


def connection_patterns(rows: Sequence[Any], focus: Optional[int] = None) -> plt.Figure:
    """One panel per layer type: which inputs (bottom row) each output (top row) reads, in one layer.

    ``rows`` are ``BackboneRow`` records of ``dl4nlp.experiments.before_recurrence.compare_backbones``
    on a short sequence (every output measured); the lines are their measured dependences. The output
    ``focus`` (default: the last one) and its inputs are drawn in colour. The RNN is drawn as what
    its layer computes, an input into each state and a chain from state to state, with the inputs
    that reach the focus through the chain coloured.
    """
    rows = check_sequence("rows", rows, what="BackboneRow records of compare_backbones")
    for row in rows:
        if not hasattr(row, "dependence") or not hasattr(row, "name"):
            raise TypeError(f"rows must be BackboneRow records of compare_backbones; got {type(row).__name__}")
    fig, axes = plt.subplots(1, len(rows), figsize=(3.3 * len(rows), 2.6), squeeze=False)
    for ax, row in zip(axes[0], rows):
        dependence = row.dependence
        outputs, T = dependence.shape
        if not dependence.any(dim=1).all():
            raise ValueError(f"rows must measure every output (compare_backbones with T <= 16); {row.name} does not")
        target = outputs - 1 if focus is None else check_int("focus", focus, low=0, high=outputs - 1)
        # Centre each output over the inputs it reads in the first row (windows and convolutions shrink the sequence).
        shift = (T - outputs) / 2
        xs_out = [t + shift for t in range(outputs)]
        recurrent = row.name == "RNN"
        for t in range(outputs):
            for s in range(T):
                if not dependence[t, s] or (recurrent and s != t):
                    continue
                coloured = t == target
                ax.plot(
                    [s, xs_out[t]],
                    [0, 1],
                    color="C3" if coloured else "#bbbbbb",
                    linewidth=1.6 if coloured else 0.7,
                    zorder=2 if coloured else 1,
                )
        if recurrent:
            for t in range(1, outputs):
                coloured = t <= target
                ax.annotate(
                    "",
                    xy=(xs_out[t] - 0.12, 1),
                    xytext=(xs_out[t - 1] + 0.12, 1),
                    arrowprops=dict(arrowstyle="-|>", color="C3" if coloured else "#bbbbbb", linewidth=1.2),
                )
        read = dependence[target]
        ax.scatter(range(T), [0] * T, s=40, zorder=3, color=["C3" if r else "#888888" for r in read.tolist()])
        ax.scatter(
            xs_out, [1] * outputs, s=40, zorder=3, color=["C3" if t == target else "#3a5a8c" for t in range(outputs)]
        )
        ax.set_title(f"{row.name}\nreach in one layer: {int(row.reach)}", fontsize="medium")
        ax.set_xlim(-0.6, T - 0.4)
        ax.set_ylim(-0.35, 1.3)
        ax.set_yticks([0, 1], ["inputs", "outputs"])
        ax.set_xticks([])
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
    T = rows[0].dependence.shape[1]
    fig.suptitle(
        f"One layer on {T} tokens. Red: {'the last output' if focus is None else f'output {focus}'} and the "
        "inputs that change it; grey: every other connection",
        fontsize="medium",
    )
    fig.tight_layout()
    return fig
