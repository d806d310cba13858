"""Convolutions over text: a 1-D convolution written out, receptive fields, and Kim's (2014) TextCNN (chapter 02).

A 1-D convolution slides ``C_out`` filters of width ``k`` along a sequence of
vectors: the output of filter ``o`` at position ``t`` is

    y[b, o, t] = bias[o] + sum_c sum_j weight[o, c, j] · x[b, c, t + j]

over ``j = 0 … k-1``: one dot product with every window of ``k`` consecutive
tokens, as ``torch.nn.Conv1d`` computes it (no padding, stride 1). Over word
vectors a filter is a learned detector of ``k``-grams. Kim's TextCNN runs
filters of several widths over a sentence, keeps each filter's largest value
anywhere in the sentence (max-over-time pooling), and classifies the pooled
features with dropout and one linear layer.

>>> x = torch.arange(10.0).reshape(1, 2, 5)  # (B, C_in, T)
>>> weight, bias = torch.ones(1, 2, 3), torch.zeros(1)  # one filter of width 3 that sums its window
>>> conv1d(x, weight, bias)
tensor([[[21., 27., 33.]]])
>>> [receptive_field(3, layers) for layers in (1, 2, 3)], receptive_field(3, 3, dilation_growth=2)
([3, 5, 7], 15)
>>> model = TextCNN(TextCNNConfig(vocab_size=20, classes=5, embed_dim=8, filters=4))
>>> counted = sum(p.numel() for p in model.parameters())
>>> model(torch.tensor([[3, 4, 5, 6, 7, 0]])).shape, parameter_count(model.config), counted
(torch.Size([1, 5]), 621, 621)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from dl4nlp._checks import check_ids, check_int, check_number, check_sequence, check_tensor


def conv1d(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """What ``nn.Conv1d`` gives, (B, C_out, T - k + 1), for x (B, C_in, T), weight (C_out, C_in, k), bias (C_out,)."""
    x = check_tensor("x", x, ndim=3, dtype="float", expected="(B, C_in, T)")
    B, C_in, T = x.shape
    weight = check_tensor("weight", weight, shape=(None, C_in, None), dtype="float", expected=f"(C_out, {C_in}, k)")
    C_out, _, k = weight.shape
    if k > T:
        raise ValueError(f"weight's width k must be at most the length T = {T} of x; got k = {k}")
    check_tensor("bias", bias, shape=(C_out,), dtype="float")
    windows = x.unfold(2, k, 1)  # (B, C_in, T-k+1, k): every window of k positions
    return torch.einsum("bctj,ocj->bot", windows, weight) + bias[:, None]  # (B, C_out, T-k+1)


def receptive_field(k: int, layers: int, dilation_growth: int = 1) -> int:
    """How many input positions one output of ``layers`` stacked width-``k`` convolutions sees.

    Layer ``l`` (from 1) has dilation ``dilation_growth ** (l - 1)`` and adds
    ``(k - 1)`` times it: ``k + (k - 1)(L - 1)`` without dilation.
    """
    k = check_int("k", k)
    layers = check_int("layers", layers)
    dilation_growth = check_int("dilation_growth", dilation_growth)
    return 1 + sum((k - 1) * dilation_growth**layer for layer in range(layers))


@dataclass(frozen=True)
class TextCNNConfig:
    """Sizes of Kim's TextCNN: V words (id 0 is padding), ``filters`` filters of each width, ``classes`` labels."""

    vocab_size: int
    classes: int
    embed_dim: int = 32
    widths: tuple[int, ...] = (3, 4, 5)
    filters: int = 32
    dropout: float = 0.5

    def __post_init__(self) -> None:
        for name in ("vocab_size", "classes", "embed_dim", "filters"):
            check_int(name, getattr(self, name))
        widths = check_sequence("widths", self.widths, what="a tuple of filter widths")
        for width in widths:
            check_int("widths[i]", width)
        object.__setattr__(self, "widths", tuple(widths))
        check_number("dropout", self.dropout, 0.0, 1.0, high_open=True)


class TextCNN(nn.Module):
    """Embedding → one ``nn.Conv1d`` per width → ReLU → max over time → dropout → linear, as in Kim (2014)."""

    def __init__(self, config: TextCNNConfig):
        super().__init__()
        if not isinstance(config, TextCNNConfig):
            raise TypeError(f"config must be a TextCNNConfig; got {type(config).__name__}")
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.embed_dim, padding_idx=0)
        self.convs = nn.ModuleList(nn.Conv1d(config.embed_dim, config.filters, width) for width in config.widths)
        self.dropout = nn.Dropout(config.dropout)
        self.output = nn.Linear(config.filters * len(config.widths), config.classes)

    def _ids(self, ids: torch.Tensor) -> torch.Tensor:
        ids = check_ids("ids", ids, self.config.vocab_size, ndim=2, expected="(B, T)")
        if ids.shape[1] < max(self.config.widths):
            raise ValueError(
                f"ids must be padded to at least the widest filter, {max(self.config.widths)} positions; "
                f"got shape {tuple(ids.shape)}"
            )
        return ids

    def activations(self, ids: torch.Tensor) -> list[torch.Tensor]:
        """Every filter's ReLU output at every position: one (B, filters, T - k + 1) tensor per width."""
        x = self.embedding(self._ids(ids)).transpose(1, 2)  # (B, m, T): channels first, as Conv1d wants
        return [F.relu(conv(x)) for conv in self.convs]

    def features(self, ids: torch.Tensor) -> torch.Tensor:
        """Max-over-time pooling: each filter's largest activation in the sentence, (B, filters · widths)."""
        return torch.cat([a.amax(dim=2) for a in self.activations(ids)], dim=1)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Class logits (B, classes) for ``ids`` (B, T) padded with 0."""
        return self.output(self.dropout(self.features(ids)))


def parameter_count(config: TextCNNConfig) -> int:
    """V·m (embeddings) + Σ_k (k·m·F + F) (filters and biases) + (F·|widths|)·C + C (output layer)."""
    if not isinstance(config, TextCNNConfig):
        raise TypeError(f"config must be a TextCNNConfig; got {type(config).__name__}")
    m, f = config.embed_dim, config.filters
    convs = sum(k * m * f + f for k in config.widths)
    return config.vocab_size * m + convs + f * len(config.widths) * config.classes + config.classes


def dilate(weight: torch.Tensor, dilation: int) -> torch.Tensor:
    """The filter ``weight`` (C_out, C_in, k) with ``dilation - 1`` zeros between its taps: width (k - 1)·dilation + 1.

    A plain convolution with the dilated filter is ``nn.Conv1d(..., dilation=dilation)``.

    >>> dilate(torch.tensor([[[1.0, 2.0, 3.0]]]), 2)
    tensor([[[1., 0., 2., 0., 3.]]])
    """
    weight = check_tensor("weight", weight, ndim=3, dtype="float", expected="(C_out, C_in, k)")
    dilation = check_int("dilation", dilation)
    C_out, C_in, k = weight.shape
    spread = weight.new_zeros(C_out, C_in, (k - 1) * dilation + 1)
    spread[:, :, ::dilation] = weight
    return spread


def measured_receptive_field(convolve, k: int, layers: int, dilation_growth: int = 1, channels: int = 2) -> int:
    """How many input positions change one output of ``layers`` stacked convolutions computed by ``convolve``.

    ``convolve(x, weight, bias)`` is a 1-D convolution such as ``conv1d``; the filters are random
    and positive (float64), layer ``l`` (from 1) dilated by ``dilation_growth ** (l - 1)``. The
    answer is the span from the first to the last input position where the gradient of the middle
    output is not zero, so this measures what ``receptive_field`` computes (a dilation growing
    faster than ``k`` leaves holes inside the span, which are counted too).

    >>> measured_receptive_field(conv1d, k=3, layers=2), measured_receptive_field(conv1d, 3, 3, dilation_growth=2)
    (5, 15)
    """
    if not callable(convolve):
        raise TypeError(f"convolve must be a function (x, weight, bias) -> output; got {type(convolve).__name__}")
    expected = receptive_field(k, layers, dilation_growth)
    channels = check_int("channels", channels)
    generator = torch.Generator().manual_seed(0)
    x = torch.rand(1, channels, expected + 4, dtype=torch.float64, generator=generator, requires_grad=True)
    h = x
    for layer in range(layers):
        weight = torch.rand(channels, channels, k, dtype=torch.float64, generator=generator) + 0.1
        h = convolve(h, dilate(weight, dilation_growth**layer), torch.zeros(channels, dtype=torch.float64))
    (grad,) = torch.autograd.grad(h[0, 0, h.shape[2] // 2], x)
    seen = torch.nonzero(grad[0].abs().sum(dim=0) > 0).flatten()
    return int(seen.max() - seen.min() + 1)
