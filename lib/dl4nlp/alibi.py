"""ALiBi: attention with linear biases (Press, Smith and Lewis, 2022), for chapter 09.

ALiBi adds nothing to the word vectors. Each head subtracts from its attention
scores a penalty proportional to the distance between query and key, with one
fixed slope per head: ``score(i, j) = q_i · k_j / sqrt(d) - m_h |i - j|``. The
paper's decoder biases only the keys before the query (``-m_h (i - j)``, the
future being masked); an encoder sees both sides, so here the penalty is
symmetric in the distance. The slopes are the paper's geometric sequence
``2^(-8/h), 2^(-16/h), …, 2^(-8)`` for ``h`` heads.
"""

from __future__ import annotations

import math
from typing import Optional

import torch

from dl4nlp.attention import MultiHeadAttention, _allowed, _softmax_where


def alibi_slopes(n_heads: int) -> torch.Tensor:
    """The slope of each head, ``2^(-8 i / n_heads)`` for ``i = 1 … n_heads`` (float64, shape (n_heads,)).

    >>> alibi_slopes(8).tolist()[:3], alibi_slopes(8).tolist()[-1]
    ([0.5, 0.25, 0.125], 0.00390625)
    >>> alibi_slopes(2).tolist()
    [0.0625, 0.00390625]
    """
    if isinstance(n_heads, bool) or not isinstance(n_heads, int) or n_heads < 1:
        raise ValueError(f"n_heads must be a positive integer; got {n_heads!r}")
    return torch.tensor([2.0 ** (-8.0 * i / n_heads) for i in range(1, n_heads + 1)], dtype=torch.float64)


def alibi_bias(length: int, slopes: torch.Tensor) -> torch.Tensor:
    """The bias added to every score, ``-slope_h |i - j|``, shape (heads, length, length), in the slopes' dtype.

    >>> alibi_bias(3, torch.tensor([0.5]))
    tensor([[[-0.0000, -0.5000, -1.0000],
             [-0.5000, -0.0000, -0.5000],
             [-1.0000, -0.5000, -0.0000]]])
    """
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a positive integer; got {length!r}")
    if not isinstance(slopes, torch.Tensor) or slopes.dim() != 1 or not slopes.is_floating_point():
        described = (
            f"shape {tuple(slopes.shape)}, dtype {slopes.dtype}"
            if isinstance(slopes, torch.Tensor)
            else type(slopes).__name__
        )
        raise ValueError(f"slopes must be a 1-D floating-point tensor, one slope per head; got {described}")
    if not bool(torch.isfinite(slopes).all()) or bool((slopes < 0).any()):
        raise ValueError(f"slopes must be finite and non-negative; got {slopes.tolist()}")
    positions = torch.arange(length, dtype=slopes.dtype, device=slopes.device)
    distance = (positions[None, :] - positions[:, None]).abs()  # (T, T): |i - j|
    return -slopes[:, None, None] * distance  # (H, T, T)


class ALiBiAttention(MultiHeadAttention):
    """Multi-head self-attention with linear biases (ALiBi): no positions added, a distance penalty per head.

    Scores are ``q_i · k_j / sqrt(d_head) - m_h |i - j|`` with the fixed slopes
    ``alibi_slopes(n_heads)`` (or the given ``slopes``, one per head); a ``mask`` or ``causal`` then hides keys as in
    ``MultiHeadAttention``. The weights are kept in ``last_weights``.

    >>> attention = ALiBiAttention(8, 2)
    >>> attention(torch.randn(1, 5, 8)).shape, attention.last_weights.shape
    (torch.Size([1, 5, 8]), torch.Size([1, 2, 5, 5]))
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, slopes: Optional[torch.Tensor] = None):
        super().__init__(d_model, n_heads, bias=bias)
        if slopes is None:
            slopes = alibi_slopes(n_heads)
        alibi_bias(1, slopes)  # checks them: 1-D, floating point, finite, non-negative
        if slopes.shape != (n_heads,):
            raise ValueError(f"slopes must hold one slope per head, shape ({n_heads},); got {tuple(slopes.shape)}")
        self.register_buffer("slopes", slopes.float(), persistent=False)

    @classmethod
    def from_torch(cls, reference, fast: bool = False):
        """Not available: ``torch.nn.MultiheadAttention`` has no linear biases, so no PyTorch module computes ALiBi."""
        raise TypeError(
            f"ALiBiAttention cannot be made from a PyTorch module (none adds linear biases); got reference of type "
            f"{type(reference).__name__}: build ALiBiAttention(d_model, n_heads) and copy the projections instead"
        )

    def forward(
        self,
        x: torch.Tensor,
        context: Optional[torch.Tensor] = None,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
    ) -> torch.Tensor:
        if context is not None:
            raise ValueError("ALiBiAttention is self-attention: context must be None (positions of x are used)")
        self._check(x, None, mask, causal)  # x, mask and causal checked as MultiHeadAttention checks them
        q, k, v = self._split(self.q_proj(x)), self._split(self.k_proj(x)), self._split(self.v_proj(x))
        B, H, T, d = q.shape
        scores = q @ k.transpose(-2, -1) / math.sqrt(d) + alibi_bias(T, self.slopes.to(q.dtype))  # (B, H, T, T)
        allowed = _allowed(None if mask is None else mask.to(x.device), causal, T, T, x.device)
        weights = _softmax_where(scores, allowed)  # a query with every key hidden gets zero weights, not NaN
        self.last_weights = weights
        out = weights @ v  # (B, H, T, d)
        return self.out_proj(out.transpose(1, 2).reshape(B, T, self.d_model))  # heads concatenated: (B, T, C)
