"""Positional encodings: the fixed sinusoids of Vaswani et al. (2017) and learned embeddings.

    PE(pos, 2i)   = sin(pos / base^(2i / d_model))
    PE(pos, 2i+1) = cos(pos / base^(2i / d_model))

Both modules map token embeddings (B, T, C) to embeddings with positions
added. The helpers below them compute what notebook 09 proves about the
sinusoids: ``shift_matrix(k)`` is the fixed linear map (one 2 × 2 rotation per
frequency) taking PE(pos) to PE(pos + k) for every pos; ``binary_encoding`` is
the counting intuition behind them; ``rotary`` (RoPE) and
``clipped_relative_positions`` are the relative alternatives, and
``RotaryAttention`` is multi-head self-attention with RoPE inside, which
``dl4nlp.taggers.Tagger`` uses. ``rope_decay_bound`` is the long-term decay
bound of Su et al. (2021). Taught in notebook 09.
"""

from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_choice,
    check_int,
    check_number,
    check_same_dtype,
    check_tensor,
    given,
    is_int,
)
from dl4nlp.attention import MultiHeadAttention, _fused_attention, scaled_dot_product_attention


def _check_even(name: str, value: int) -> int:
    if not is_int(value) or value < 2 or value % 2:
        raise ValueError(f"{name} must be a positive even integer; got {value!r}")
    return value


def _check_base(base: float) -> float:
    return check_number("base", base, 1.0, low_open=True)


def sinusoidal_encoding(
    max_len: int, d_model: int, base: float = 10000.0, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """The (max_len, d_model) table of sinusoidal position codes (computed in float64, returned as ``dtype``).

    Columns 2i and 2i+1 are sin and cos of position · base^(-2i/d_model): position 0
    is (0, 1, 0, 1, ...), and the first pair turns by one radian per position.

    >>> table = sinusoidal_encoding(3, 4, dtype=torch.float64)
    >>> table.shape, table[0].tolist()
    (torch.Size([3, 4]), [0.0, 1.0, 0.0, 1.0])
    >>> import math
    >>> abs(table[1, 0].item() - math.sin(1.0)) < 1e-12
    True
    """
    check_int("max_len", max_len)
    _check_even("d_model", d_model)
    _check_base(base)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype; got {given(dtype)}")
    position = torch.arange(max_len, dtype=torch.float64)[:, None]  # (T, 1)
    frequency = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # (C/2,)
    table = torch.empty(max_len, d_model, dtype=torch.float64)
    table[:, 0::2] = torch.sin(position * frequency)
    table[:, 1::2] = torch.cos(position * frequency)
    return table.to(dtype)


POSITIONAL_KINDS = ("sinusoidal", "learned", "none")


class _Positional(nn.Module):
    max_len: int
    d_model: int

    def _check(self, x: torch.Tensor) -> None:
        check_tensor("x", x, shape=("B", "T", self.d_model), dtype="float", finite=True)
        if x.shape[1] > self.max_len:
            raise ValueError(
                f"x: sequence length {x.shape[1]} exceeds max_len={self.max_len}; got shape {tuple(x.shape)}"
            )


class SinusoidalPositionalEncoding(_Positional):
    """Adds the fixed sinusoid table to (B, T, C) embeddings; nothing to learn."""

    def __init__(self, max_len: int, d_model: int, base: float = 10000.0):
        super().__init__()
        self.max_len, self.d_model = max_len, d_model
        self.register_buffer("table", sinusoidal_encoding(max_len, d_model, base), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, T, C)
        self._check(x)
        return x + self.table[: x.shape[1]].to(x.dtype)


class LearnedPositionalEmbedding(_Positional):
    """Adds a trained vector per position (BERT, GPT-2); cannot go beyond ``max_len``."""

    def __init__(self, max_len: int, d_model: int):
        super().__init__()
        check_int("max_len", max_len)
        check_int("d_model", d_model)
        self.max_len, self.d_model = max_len, d_model
        self.embedding = nn.Embedding(max_len, d_model)
        nn.init.normal_(self.embedding.weight, std=0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, T, C)
        self._check(x)
        check_same_dtype("x", x, self)
        return x + self.embedding.weight[: x.shape[1]]


def make_positional(kind: str, max_len: int, d_model: int) -> nn.Module:
    """``'sinusoidal'``, ``'learned'`` or ``'none'`` (identity: no position information)."""
    check_choice("kind", kind, POSITIONAL_KINDS)
    check_int("max_len", max_len)
    check_int("d_model", d_model)
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(max_len, d_model)
    if kind == "learned":
        return LearnedPositionalEmbedding(max_len, d_model)
    if kind == "none":
        return nn.Identity()
    raise ValueError(f"positional must be one of ('sinusoidal', 'learned', 'none'); got {kind!r}")


# --- what notebook 09 proves about the sinusoids ------------------------------
def frequencies(d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The (d_model/2,) angular frequencies w_i = base^(-2i/d_model) of the sinusoid pairs (float64)."""
    _check_even("d_model", d_model)
    base = _check_base(base)
    return base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)


def shift_matrix(offset: float, d_model: int, base: float = 10000.0) -> torch.Tensor:
    """The (d_model, d_model) matrix M with PE(pos + offset) = M @ PE(pos) for every pos (float64).

    It is block-diagonal: for the pair (sin(w pos), cos(w pos)) the block is the
    rotation [[cos(w k), sin(w k)], [-sin(w k), cos(w k)]] with k = ``offset``;
    it depends on the offset, never on the position.
    """
    offset = check_number("offset", offset)
    angle = frequencies(d_model, base) * offset  # (C/2,)
    matrix = torch.zeros(d_model, d_model, dtype=torch.float64)
    even, odd = torch.arange(0, d_model, 2), torch.arange(1, d_model, 2)
    matrix[even, even] = torch.cos(angle)
    matrix[even, odd] = torch.sin(angle)
    matrix[odd, even] = -torch.sin(angle)
    matrix[odd, odd] = torch.cos(angle)
    return matrix


def binary_encoding(max_len: int, n_bits: int) -> torch.Tensor:
    """(max_len, n_bits) table of each position written in binary, least significant bit first.

    Bit j flips every 2^j positions: the counting intuition behind the sinusoids,
    whose pair i turns every 2π · base^(2i/d) positions.
    """
    check_int("n_bits", n_bits)
    check_int("max_len", max_len, low=1, high=2**n_bits)
    positions = torch.arange(max_len)[:, None]  # (T, 1)
    return ((positions >> torch.arange(n_bits)) & 1).float()  # (T, n_bits)


def clipped_relative_positions(length: int, max_distance: int) -> torch.Tensor:
    """(T, T) integer table of key minus query position, clipped to [-max_distance, max_distance].

    Shaw et al. (2018) learn one vector per entry of this table, so a model
    sees how far apart two tokens are, never where they are.
    """
    check_int("length", length)
    check_int("max_distance", max_distance)
    positions = torch.arange(length)
    return (positions[None, :] - positions[:, None]).clamp(-max_distance, max_distance)


def rotary(
    x: torch.Tensor, positions: torch.Tensor | None = None, base: float = 10000.0, fast: bool = False
) -> torch.Tensor:
    """Rotary position embedding (RoPE, Su et al. 2021) of queries or keys x (..., T, d).

    Each pair (x_2i, x_2i+1) at position m is rotated by the angle m · w_i, so
    rotary(q)[m] · rotary(k)[n] depends on m - n only. ``positions`` (T,)
    defaults to 0..T-1. ``fast=True`` does the same with complex numbers.
    """
    check_tensor("x", x, min_ndim=2, dtype="float", finite=True, expected="(..., T, d) with d even")
    if x.shape[-1] % 2:
        raise ValueError(f"x must have shape (..., T, d) with d even; got {tuple(x.shape)}")
    T, d = x.shape[-2], x.shape[-1]
    base = _check_base(base)
    check_bool("fast", fast)
    if positions is None:
        positions = torch.arange(T)
    else:
        if isinstance(positions, (list, tuple)) and all(isinstance(p, (int, float)) for p in positions):
            positions = torch.tensor(positions)
        check_tensor("positions", positions, dtype=("float", "integer"), finite=True, expected=f"({T},)")
        if positions.shape != (T,):
            raise ValueError(f"positions must have shape ({T},), one per time step; got {tuple(positions.shape)}")
    # the angles in float64 on the CPU (an Apple GPU has no float64), the same on every device; then x's device
    angle = positions.cpu().to(torch.float64)[:, None] * frequencies(d, base)  # (T, d/2)
    cos, sin = (part.to(x.dtype).to(x.device) for part in (torch.cos(angle), torch.sin(angle)))  # (T, d/2) each
    if fast:  # complex numbers need float32 or float64 (none for bfloat16; float16's are experimental)
        work = x if x.dtype in (torch.float32, torch.float64) else x.float()
        pairs = torch.view_as_complex(work.reshape(*x.shape[:-1], d // 2, 2).contiguous())  # (..., T, d/2)
        turns = torch.polar(torch.ones_like(angle), angle).to(pairs.dtype).to(x.device)  # (T, d/2) e^{i m w}
        turned = torch.view_as_real(pairs * turns)
        return turned.flatten(-2).to(x.dtype)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]  # (..., T, d/2) each
    out = torch.empty_like(x)
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out


class RotaryAttention(MultiHeadAttention):
    """Multi-head self-attention with rotary positions (RoPE): each head's queries and keys are rotated.

    Nothing is added to the embeddings. Query i and key j of every head are
    rotated by ``rotary`` by the angles of positions i and j, so their score
    depends on the content and on i - j only (Su et al., 2021). ``fast=True``
    scores with PyTorch's fused kernel (same result, no weights kept).
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, fast: bool = False, base: float = 10000.0):
        super().__init__(d_model, n_heads, bias=bias, fast=fast)
        if (d_model // n_heads) % 2:
            raise ValueError(f"rotary heads need an even size; got d_model={d_model}, n_heads={n_heads}")
        if isinstance(base, bool) or not isinstance(base, (int, float)) or not 1 < base < float("inf"):
            raise ValueError(f"base must be a number greater than 1; got {base!r}")
        self.base = float(base)

    def forward(
        self,
        x: torch.Tensor,
        context: Optional[torch.Tensor] = None,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
    ) -> torch.Tensor:
        if context is not None:
            raise ValueError("RotaryAttention is self-attention: context must be None (positions of x are used)")
        self._check(x, None, mask, causal)  # x, mask and causal checked as MultiHeadAttention checks them
        q = rotary(self._split(self.q_proj(x)), base=self.base)  # (B, H, T, d_head), rotated by position
        k = rotary(self._split(self.k_proj(x)), base=self.base)
        v = self._split(self.v_proj(x))
        if self.fast:  # the fused kernel, made to agree with the readable path on every mask
            out, self.last_weights = _fused_attention(q, k, v, mask, causal), None
        else:
            out, self.last_weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal)
        B, _, T, _ = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(B, T, self.d_model))  # heads concatenated: (B, T, C)


def rope_decay_bound(distances: torch.Tensor, d: int, base: float = 10000.0) -> torch.Tensor:
    """Su et al.'s (2021, §3.4.3) relative upper bound on a RoPE score, (1 / (d/2)) Σ_j |S_j|, per distance.

    With h_i = q_[2i:2i+1] k*_[2i:2i+1] (pair i of query and key as complex
    numbers) a rotary score is Re Σ_i h_i e^{i (m-n) θ_i}, and summation by parts
    bounds its size by max_i |h_{i+1} - h_i| · Σ_j |S_j| with partial sums
    S_j = Σ_{i<j} e^{i (m-n) θ_i}. The returned (len(distances),) float64 tensor
    is the mean of |S_1| ... |S_{d/2}| at each distance m - n: d/4 + 1/2 at
    distance 0, falling (not monotonically) as the distance grows.
    """
    if not isinstance(d, int) or isinstance(d, bool) or d < 2 or d % 2:
        raise ValueError(f"d must be a positive even integer; got {d!r}")
    try:
        distances = torch.as_tensor(distances, dtype=torch.float64)
    except (TypeError, ValueError, RuntimeError):
        raise TypeError(f"distances must be a 1-D tensor of numbers; got {type(distances).__name__}") from None
    if distances.dim() != 1 or not torch.isfinite(distances).all():
        raise ValueError(f"distances must be a 1-D tensor of finite numbers; got shape {tuple(distances.shape)}")
    angles = distances[:, None] * frequencies(d, base)  # (N, d/2): (m - n) θ_i
    partial_sums = torch.polar(torch.ones_like(angles), angles).cumsum(dim=1)  # S_1 ... S_{d/2}
    return partial_sums.abs().mean(dim=1)
