"""Attention: masked softmax, scaled dot-product attention, multi-head attention.

All tensors are batch-first. Masks are boolean and say where attention is
*allowed* (True = may attend), the convention of
``torch.nn.functional.scaled_dot_product_attention``; they broadcast against
the scores, shape (B, H, T_q, T_k). Each readable implementation here is
tested equal to PyTorch's fused one. Taught in notebooks 04 and 05.

>>> q = k = v = torch.eye(2).unsqueeze(0)          # (B=1, T=2, d=2)
>>> out, weights = scaled_dot_product_attention(q, k, v)
>>> weights.shape
torch.Size([1, 2, 2])
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


def _check_mask(mask: Optional[torch.Tensor]) -> None:
    if mask is not None and mask.dtype != torch.bool:
        raise TypeError(f"mask must be a bool tensor (True = may attend); got dtype {mask.dtype}")


def masked_softmax(scores: torch.Tensor, mask: Optional[torch.Tensor] = None, dim: int = -1) -> torch.Tensor:
    """Softmax of ``scores`` over ``dim`` where ``mask`` is True; masked entries get weight 0.

    A row whose entries are all masked gets all-zero weights (not NaN).
    """
    _check_mask(mask)
    if mask is None:
        return torch.softmax(scores, dim=dim)
    scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=dim)
    return weights.nan_to_num(0.0)  # rows with no allowed entry: softmax of all -inf is NaN


def causal_mask(length: int, device: Optional[torch.device] = None) -> torch.Tensor:
    """(T, T) bool mask letting position t attend to positions 0..t only."""
    if not isinstance(length, int) or length < 1:
        raise ValueError(f"length must be a positive integer; got {length!r}")
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: torch.Tensor, max_length: int) -> torch.Tensor:
    """(B, 1, 1, T) bool mask that hides key positions at or beyond each sequence's length."""
    lengths = torch.as_tensor(lengths)
    if lengths.dim() != 1:
        raise ValueError(f"lengths must be 1-D, one length per sequence; got shape {tuple(lengths.shape)}")
    if (lengths < 1).any() or (lengths > max_length).any():
        raise ValueError(f"every length must be in [1, {max_length}]; got {lengths.tolist()}")
    positions = torch.arange(max_length, device=lengths.device)  # (T,)
    return (positions[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, T)


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: Optional[torch.Tensor] = None,
    causal: bool = False,
) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √d_k) V, the readable way; returns ``(output, weights)``.

    Shapes: q (..., T_q, d_k), k (..., T_k, d_k), v (..., T_k, d_v) ->
    output (..., T_q, d_v) and weights (..., T_q, T_k). ``causal=True`` adds
    the lower-triangular mask (queries and keys aligned at the start).
    """
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"queries and keys must share their last dimension d_k; got {q.shape[-1]} and {k.shape[-1]}")
    if k.shape[-2] != v.shape[-2]:
        raise ValueError(f"keys and values must have the same length T_k; got {k.shape[-2]} and {v.shape[-2]}")
    _check_mask(mask)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T_q, T_k)
    if causal:
        allowed = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=q.device).tril()
        mask = allowed if mask is None else mask & allowed
    weights = masked_softmax(scores, mask)  # (..., T_q, T_k)
    return weights @ v, weights


class MultiHeadAttention(nn.Module):
    """Multi-head attention: project, split into heads, attend, concatenate, project.

    ``forward(x, context=None, mask=None, causal=False)`` attends from ``x``
    (B, T_q, C) to ``context`` (B, T_k, C; defaults to ``x``, self-attention)
    and returns (B, T_q, C). After a call, ``last_weights`` holds the attention
    weights (B, H, T_q, T_k) when ``fast`` is False. ``fast=True`` uses
    PyTorch's fused ``F.scaled_dot_product_attention`` (same result, no weights).
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True, fast: bool = False):
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model must be divisible by n_heads; got d_model={d_model}, n_heads={n_heads}")
        self.d_model, self.n_heads, self.d_head = d_model, n_heads, d_model // n_heads
        self.fast = fast
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.last_weights: Optional[torch.Tensor] = None

    def _split(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, C) -> (B, H, T, d_head)
        B, T, _ = x.shape
        return x.view(B, T, self.n_heads, self.d_head).transpose(1, 2)

    def forward(
        self,
        x: torch.Tensor,
        context: Optional[torch.Tensor] = None,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
    ) -> torch.Tensor:
        context = x if context is None else context
        if x.dim() != 3 or x.shape[-1] != self.d_model:
            raise ValueError(f"x must have shape (B, T, {self.d_model}); got {tuple(x.shape)}")
        if context.dim() != 3 or context.shape[-1] != self.d_model:
            raise ValueError(f"context must have shape (B, T, {self.d_model}); got {tuple(context.shape)}")
        q = self._split(self.q_proj(x))  # (B, H, T_q, d_head)
        k = self._split(self.k_proj(context))  # (B, H, T_k, d_head)
        v = self._split(self.v_proj(context))  # (B, H, T_k, d_head)
        if self.fast:
            _check_mask(mask)
            if causal:  # F.sdpa forbids attn_mask together with is_causal: fold it in
                allowed = causal_mask(q.shape[-2], q.device)
                mask, causal = (allowed if mask is None else mask & allowed), False
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            self.last_weights = None
        else:
            out, self.last_weights = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal)
        B, _, T_q, _ = out.shape
        out = out.transpose(1, 2).reshape(B, T_q, self.d_model)  # concatenate heads: (B, T_q, C)
        return self.out_proj(out)

    @torch.no_grad()
    def load_from_torch(self, reference: nn.MultiheadAttention) -> MultiHeadAttention:
        """Copy the weights of a ``torch.nn.MultiheadAttention`` with the same sizes."""
        if reference.embed_dim != self.d_model or reference.num_heads != self.n_heads:
            raise ValueError(
                f"reference must have embed_dim={self.d_model}, num_heads={self.n_heads}; "
                f"got embed_dim={reference.embed_dim}, num_heads={reference.num_heads}"
            )
        w_q, w_k, w_v = reference.in_proj_weight.chunk(3)
        for proj, weight in zip((self.q_proj, self.k_proj, self.v_proj), (w_q, w_k, w_v)):
            proj.weight.copy_(weight)
        self.out_proj.weight.copy_(reference.out_proj.weight)
        if reference.in_proj_bias is not None and self.q_proj.bias is not None:
            for proj, bias in zip((self.q_proj, self.k_proj, self.v_proj), reference.in_proj_bias.chunk(3)):
                proj.bias.copy_(bias)
            self.out_proj.bias.copy_(reference.out_proj.bias)
        return self


# --- score functions for encoder-decoder attention (notebook 04) ------------
# Each maps queries (B, T_q, d_q) and keys (B, T_k, d_k) to scores (B, T_q, T_k):
# how well decoder state s_t matches encoder state h_i. Softmax over i turns a
# row of scores into the attention distribution alpha(t).
def _check_query_key(query: torch.Tensor, keys: torch.Tensor, d_query: int, d_key: int) -> None:
    if query.dim() != 3 or query.shape[-1] != d_query:
        raise ValueError(f"query must have shape (B, T_q, {d_query}); got {tuple(query.shape)}")
    if keys.dim() != 3 or keys.shape[-1] != d_key:
        raise ValueError(f"keys must have shape (B, T_k, {d_key}); got {tuple(keys.shape)}")
    if query.shape[0] != keys.shape[0]:
        raise ValueError(f"query and keys must have the same batch size; got {query.shape[0]} and {keys.shape[0]}")


class DotScore(nn.Module):
    """e_ti = s_tᵀ h_i (Luong et al., 2015, 'dot'); no parameters, needs d_query == d_key."""

    def __init__(self, d_query: int, d_key: int):
        super().__init__()
        if d_query != d_key:
            raise ValueError(f"the dot score needs d_query == d_key; got d_query={d_query}, d_key={d_key}")
        self.d_query = self.d_key = d_query

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(query, keys, self.d_query, self.d_key)
        return query @ keys.transpose(1, 2)  # (B, T_q, T_k)


class GeneralScore(nn.Module):
    """e_ti = s_tᵀ W h_i, a learned bilinear form (Luong et al., 2015, 'general'); W is (d_query, d_key)."""

    def __init__(self, d_query: int, d_key: int):
        super().__init__()
        self.d_query, self.d_key = d_query, d_key
        self.weight = nn.Parameter(torch.empty(d_query, d_key))
        nn.init.normal_(self.weight, std=1.0 / math.sqrt(d_key))

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(query, keys, self.d_query, self.d_key)
        return (query @ self.weight) @ keys.transpose(1, 2)  # (B, T_q, d_k) @ (B, d_k, T_k)


class AdditiveScore(nn.Module):
    """e_ti = vᵀ tanh(W_q s_t + W_k h_i), a one-hidden-layer MLP (Bahdanau et al., 2015, 'concat').

    ``d_attn`` is the MLP's hidden width (default ``d_key``). Every (t, i) pair
    gets its own hidden vector, so memory is (B, T_q, T_k, d_attn).
    """

    def __init__(self, d_query: int, d_key: int, d_attn: Optional[int] = None):
        super().__init__()
        self.d_query, self.d_key = d_query, d_key
        d_attn = d_attn or d_key
        self.query_proj = nn.Linear(d_query, d_attn, bias=False)
        self.key_proj = nn.Linear(d_key, d_attn, bias=True)
        self.v = nn.Linear(d_attn, 1, bias=False)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(query, keys, self.d_query, self.d_key)
        hidden = torch.tanh(self.query_proj(query)[:, :, None, :] + self.key_proj(keys)[:, None, :, :])
        return self.v(hidden).squeeze(-1)  # (B, T_q, T_k, d_attn) -> (B, T_q, T_k)


SCORES = {"dot": DotScore, "general": GeneralScore, "additive": AdditiveScore}


def make_score(kind: str, d_query: int, d_key: int) -> nn.Module:
    """One of the score modules by name: ``'dot'``, ``'general'`` (bilinear) or ``'additive'`` (MLP)."""
    if kind not in SCORES:
        raise ValueError(f"score must be one of {tuple(SCORES)}; got {kind!r}")
    return SCORES[kind](d_query, d_key)


def attend(
    scores: torch.Tensor, values: torch.Tensor, mask: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """alpha = softmax(scores) over the keys (where ``mask`` allows), a = Σ_i alpha_i h_i.

    scores (B, T_q, T_k), values (B, T_k, d_v), mask broadcastable to the
    scores -> (context (B, T_q, d_v), weights (B, T_q, T_k)).
    """
    if scores.shape[-1] != values.shape[-2]:
        raise ValueError(f"scores and values must agree on T_k; got {scores.shape[-1]} and {values.shape[-2]}")
    weights = masked_softmax(scores, mask)  # (B, T_q, T_k)
    return weights @ values, weights
