"""Positional encodings: the fixed sinusoids of Vaswani et al. (2017) and learned embeddings.

    PE(pos, 2i)   = sin(pos / base^(2i / d_model))
    PE(pos, 2i+1) = cos(pos / base^(2i / d_model))

Both modules map token embeddings (B, T, C) to embeddings with positions
added. Taught in notebook 06.
"""
from __future__ import annotations

import torch
from torch import nn


def sinusoidal_encoding(max_len: int, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The (max_len, d_model) table of sinusoidal position codes (float32)."""
    if not isinstance(max_len, int) or max_len < 1:
        raise ValueError(f"max_len must be a positive integer; got {max_len!r}")
    if not isinstance(d_model, int) or d_model < 2 or d_model % 2:
        raise ValueError(f"d_model must be a positive even integer; got {d_model!r}")
    if not base > 1:
        raise ValueError(f"base must be greater than 1; got {base!r}")
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (T, 1)
    frequency = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (C/2,)
    table = torch.empty(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table.float()


class _Positional(nn.Module):
    max_len: int

    def _check(self, x: torch.Tensor) -> None:
        if x.dim() != 3:
            raise ValueError(f"expected embeddings of shape (B, T, C); got {tuple(x.shape)}")
        if x.shape[1] > self.max_len:
            raise ValueError(f"sequence length {x.shape[1]} exceeds max_len={self.max_len}")


class SinusoidalPositionalEncoding(_Positional):
    """Adds the fixed sinusoid table to (B, T, C) embeddings; nothing to learn."""

    def __init__(self, max_len: int, d_model: int, base: float = 10000.0):
        super().__init__()
        self.max_len = max_len
        self.register_buffer("table", sinusoidal_encoding(max_len, d_model, base), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, T, C)
        self._check(x)
        return x + self.table[: x.shape[1]].to(x.dtype)


class LearnedPositionalEmbedding(_Positional):
    """Adds a trained vector per position (BERT, GPT-2); cannot go beyond ``max_len``."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        self.max_len = max_len
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, T, C)
        self._check(x)
        return x + self.embedding.weight[: x.shape[1]]


def make_positional(kind: str, max_len: int, d_model: int) -> nn.Module:
    """``'sinusoidal'``, ``'learned'`` or ``'none'`` (identity: no position information)."""
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(max_len, d_model)
    if kind == "learned":
        return LearnedPositionalEmbedding(max_len, d_model)
    if kind == "none":
        return nn.Identity()
    raise ValueError(f"positional must be one of ('sinusoidal', 'learned', 'none'); got {kind!r}")
