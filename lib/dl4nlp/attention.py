"""Attention: masked softmax, scaled dot-product attention, multi-head attention.

All tensors are batch-first. Masks are boolean and say where attention is
*allowed* (True = may attend), the convention of
``torch.nn.functional.scaled_dot_product_attention``; they broadcast against
the scores, shape (B, H, T_q, T_k). Each readable implementation here is
tested equal to PyTorch's fused one. Taught in notebooks 06 and 08.

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

from dl4nlp._checks import (
    check_bool,
    check_choice,
    check_device,
    check_int,
    check_mask,
    check_same_dtype,
    check_tensor,
    check_type,
    in_model,
    is_int,
)


def _softmax_where(scores: torch.Tensor, mask: Optional[torch.Tensor], dim: int = -1) -> torch.Tensor:
    """``masked_softmax`` without the checks (for callers that have checked their inputs)."""
    if mask is None:
        return torch.softmax(scores, dim=dim)
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=dim)
    return weights.masked_fill(~mask.any(dim=dim, keepdim=True), 0.0)  # rows with no allowed entry: 0, not NaN


def masked_softmax(scores: torch.Tensor, mask: Optional[torch.Tensor] = None, dim: int = -1) -> torch.Tensor:
    """Softmax of ``scores`` over ``dim`` where ``mask`` is True; masked entries get weight 0.

    A row whose entries are all masked gets all-zero weights (not NaN). The
    scores must be finite: a NaN or inf is an error, never hidden by the mask.

    >>> masked_softmax(torch.tensor([1.0, 1.0, 5.0]), torch.tensor([True, True, False])).tolist()
    [0.5, 0.5, 0.0]
    """
    check_tensor("scores", scores, dtype="float", finite=True)
    check_int("dim", dim, low=-scores.dim(), high=scores.dim() - 1)
    if mask is not None:
        check_mask("mask", mask, scores.shape)
    return _softmax_where(scores, mask, dim)


def causal_mask(length: int, device: Optional[torch.device] = None) -> torch.Tensor:
    """(T, T) bool mask letting position t attend to positions 0..t only."""
    check_int("length", length)
    device = None if device is None else check_device("device", device)
    return torch.ones(length, length, dtype=torch.bool, device=device).tril()


def padding_mask(lengths: torch.Tensor, max_length: int) -> torch.Tensor:
    """(B, 1, 1, T) bool mask that hides key positions at or beyond each sequence's length.

    ``lengths`` is a 1-D integer tensor (or a list of ints), one length in [1, max_length] per sequence.
    """
    check_int("max_length", max_length)
    if isinstance(lengths, (list, tuple)) and all(is_int(n) for n in lengths):
        lengths = torch.tensor(lengths, dtype=torch.long)
    check_tensor("lengths", lengths, ndim=1, dtype="integer", expected="(B,), one length per sequence")
    if (lengths < 1).any() or (lengths > max_length).any():
        raise ValueError(f"every length in lengths must be in [1, {max_length}]; got {lengths.tolist()}")
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
    the lower-triangular mask (queries and keys aligned at the start: query t
    sees keys 0..t). ``mask`` (bool, True = may attend) broadcasts to the weights.
    """
    check_tensor("q", q, min_ndim=2, dtype="float", finite=True, expected="(..., T_q, d_k)")
    check_tensor("k", k, min_ndim=2, dtype="float", finite=True, expected="(..., T_k, d_k)")
    check_tensor("v", v, min_ndim=2, dtype="float", finite=True, expected="(..., T_k, d_v)")
    if k.shape[-1] != q.shape[-1]:
        raise ValueError(f"k must have the last dimension d_k = {q.shape[-1]} of q; got shape {tuple(k.shape)}")
    if v.shape[-2] != k.shape[-2]:
        raise ValueError(f"v must have the length T_k = {k.shape[-2]} of k; got shape {tuple(v.shape)}")
    try:
        batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except RuntimeError:
        raise ValueError(
            f"q, k and v must have leading (batch) dimensions that broadcast; got shapes "
            f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
        ) from None
    check_same_dtype("k", k, q)
    check_same_dtype("v", v, q)
    check_bool("causal", causal)
    if mask is not None:
        check_mask("mask", mask, (*batch, q.shape[-2], k.shape[-2]), expected="the weights (..., T_q, T_k)")
    out, weights = _attention(q, k, v, mask, causal)
    if not in_model() and not bool(torch.isfinite(weights).all()):  # finite q and k, yet the scores overflowed
        biggest = max(q.detach().abs().max().item(), k.detach().abs().max().item())
        raise ValueError(
            f"q and k must be small enough for the scores q·k/√d_k to be finite in {q.dtype}; got entries up to "
            f"{biggest:.3g}, whose scores overflow"
        )
    return out, weights


def _allowed(mask: Optional[torch.Tensor], causal: bool, T_q: int, T_k: int, device) -> Optional[torch.Tensor]:
    """The mask combined with the causal one (queries and keys aligned at the start), or None."""
    if not causal:
        return mask
    allowed = torch.ones(T_q, T_k, dtype=torch.bool, device=device).tril()  # (T_q, T_k)
    return allowed if mask is None else mask & allowed


def _attention(q, k, v, mask, causal) -> tuple[torch.Tensor, torch.Tensor]:
    """The readable path without the checks."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., T_q, T_k)
    weights = _softmax_where(scores, _allowed(mask, causal, q.shape[-2], k.shape[-2], q.device))  # (..., T_q, T_k)
    return weights @ v, weights


def _fused_attention(q, k, v, mask, causal) -> torch.Tensor:
    """The fast path: PyTorch's fused kernel, made to agree with the readable path on every mask.

    The mask is folded in (F.sdpa's own ``is_causal`` aligns differently when T_q != T_k), and a
    query that may attend to no key gets a zero output, as the readable path's all-zero weights give.
    """
    allowed = _allowed(mask, causal, q.shape[-2], k.shape[-2], q.device)
    if allowed is None:
        return F.scaled_dot_product_attention(q, k, v)
    some = allowed.any(dim=-1, keepdim=True)  # (..., T_q, 1): may this query attend anywhere?
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed | ~some)  # no all-masked row: no NaN
    return out.masked_fill(~some, 0.0)


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
        check_int("d_model", d_model)
        check_int("n_heads", n_heads)
        if d_model % n_heads != 0:
            raise ValueError(f"d_model must be divisible by n_heads; got d_model={d_model}, n_heads={n_heads}")
        check_bool("bias", bias)
        check_bool("fast", fast)
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

    def _check(self, x, context, mask, causal) -> None:
        C = self.d_model
        check_tensor("x", x, shape=("B", "T", C), dtype="float", finite=True)
        check_same_dtype("x", x, self)
        if context is not None:
            check_tensor("context", context, shape=("B", "T_k", C), dtype="float", finite=True)
            if context.shape[0] != x.shape[0]:
                raise ValueError(
                    f"context must have the batch size of x, {x.shape[0]}; got shape {tuple(context.shape)}"
                )
            check_same_dtype("context", context, self)
        check_bool("causal", causal)
        if mask is not None:
            T_k = (x if context is None else context).shape[1]
            check_mask("mask", mask, (x.shape[0], self.n_heads, x.shape[1], T_k), expected="(B, H, T_q, T_k)")
            if mask.dim() not in (2, 4):
                raise ValueError(
                    "mask must have shape (T_q, T_k) or (B, H, T_q, T_k), any of them possibly 1 "
                    f"(a (B, T_q, T_k) mask is ambiguous: use mask[:, None]); got {tuple(mask.shape)}"
                )

    def forward(
        self,
        x: torch.Tensor,
        context: Optional[torch.Tensor] = None,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
    ) -> torch.Tensor:
        self._check(x, context, mask, causal)
        context = x if context is None else context
        q = self._split(self.q_proj(x))  # (B, H, T_q, d_head)
        k = self._split(self.k_proj(context))  # (B, H, T_k, d_head)
        v = self._split(self.v_proj(context))  # (B, H, T_k, d_head)
        if self.fast:
            out = _fused_attention(q, k, v, mask, causal)
            self.last_weights = None
        else:
            out, self.last_weights = _attention(q, k, v, mask, causal)
        B, _, T_q, _ = out.shape
        out = out.transpose(1, 2).reshape(B, T_q, self.d_model)  # concatenate heads: (B, T_q, C)
        return self.out_proj(out)

    @classmethod
    @torch.no_grad()
    def from_torch(cls, reference: nn.MultiheadAttention, fast: bool = False) -> MultiHeadAttention:
        """A ``MultiHeadAttention`` with the sizes, dtype, device and weights of a ``torch.nn.MultiheadAttention``.

        The two agree in eval mode (the reference's dropout on attention weights is not copied).
        """
        check_type("reference", reference, nn.MultiheadAttention, "a torch.nn.MultiheadAttention")
        if not reference._qkv_same_embed_dim:
            raise ValueError(
                f"reference must project queries, keys and values of one size (kdim = vdim = embed_dim); "
                f"got embed_dim={reference.embed_dim}, kdim={reference.kdim}, vdim={reference.vdim}"
            )
        if reference.bias_k is not None or reference.add_zero_attn:
            raise ValueError(
                "reference must have add_bias_kv=False and add_zero_attn=False, which MultiHeadAttention lacks; "
                f"got add_bias_kv={reference.bias_k is not None}, add_zero_attn={reference.add_zero_attn}"
            )
        weight = reference.in_proj_weight
        bias = reference.in_proj_bias is not None
        model = cls(reference.embed_dim, reference.num_heads, bias=bias, fast=fast).to(weight.device, weight.dtype)
        for proj, w in zip((model.q_proj, model.k_proj, model.v_proj), weight.chunk(3)):
            proj.weight.copy_(w)
        model.out_proj.weight.copy_(reference.out_proj.weight)
        if bias:
            for proj, b in zip((model.q_proj, model.k_proj, model.v_proj), reference.in_proj_bias.chunk(3)):
                proj.bias.copy_(b)
            model.out_proj.bias.copy_(reference.out_proj.bias)
        return model


# --- score functions for encoder-decoder attention (notebook 06) ------------
# Each maps queries (B, T_q, d_q) and keys (B, T_k, d_k) to scores (B, T_q, T_k):
# how well decoder state s_t matches encoder state h_i. Softmax over i turns a
# row of scores into the attention distribution alpha(t).
def _check_query_key(module: nn.Module, query: torch.Tensor, keys: torch.Tensor) -> None:
    check_tensor("query", query, shape=("B", "T_q", module.d_query), dtype="float", finite=True)
    check_tensor("keys", keys, shape=("B", "T_k", module.d_key), dtype="float", finite=True)
    if query.shape[0] != keys.shape[0]:
        raise ValueError(f"keys must have the batch size of query, {query.shape[0]}; got shape {tuple(keys.shape)}")
    check_same_dtype("keys", keys, query)
    check_same_dtype("query", query, module)


def _check_sizes(**sizes: Optional[int]) -> None:
    for name, value in sizes.items():
        if value is not None:
            check_int(name, value)


class DotScore(nn.Module):
    """e_ti = s_tᵀ h_i (Luong et al., 2015, 'dot'); no parameters, needs d_query == d_key."""

    def __init__(self, d_query: int, d_key: int):
        super().__init__()
        _check_sizes(d_query=d_query, d_key=d_key)
        if d_query != d_key:
            raise ValueError(f"the dot score needs d_query == d_key; got d_query={d_query}, d_key={d_key}")
        self.d_query = self.d_key = d_query

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(self, query, keys)
        return query @ keys.transpose(1, 2)  # (B, T_q, T_k)


class GeneralScore(nn.Module):
    """e_ti = s_tᵀ W h_i, a learned bilinear form (Luong et al., 2015, 'general'); W is (d_query, d_key)."""

    def __init__(self, d_query: int, d_key: int):
        super().__init__()
        _check_sizes(d_query=d_query, d_key=d_key)
        self.d_query, self.d_key = d_query, d_key
        self.weight = nn.Parameter(torch.empty(d_query, d_key))
        nn.init.normal_(self.weight, std=1.0 / math.sqrt(d_key))

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(self, query, keys)
        return (query @ self.weight) @ keys.transpose(1, 2)  # (B, T_q, d_k) @ (B, d_k, T_k)


class AdditiveScore(nn.Module):
    """e_ti = vᵀ tanh(W_q s_t + W_k h_i), a one-hidden-layer MLP (Bahdanau et al., 2015, 'concat').

    ``d_attn`` is the MLP's hidden width (default ``d_key``). Every (t, i) pair
    gets its own hidden vector, so memory is (B, T_q, T_k, d_attn).
    """

    def __init__(self, d_query: int, d_key: int, d_attn: Optional[int] = None):
        super().__init__()
        _check_sizes(d_query=d_query, d_key=d_key, d_attn=d_attn)
        self.d_query, self.d_key = d_query, d_key
        d_attn = d_key if d_attn is None else d_attn
        self.query_proj = nn.Linear(d_query, d_attn, bias=False)
        self.key_proj = nn.Linear(d_key, d_attn, bias=True)
        self.v = nn.Linear(d_attn, 1, bias=False)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        _check_query_key(self, query, keys)
        hidden = torch.tanh(self.query_proj(query)[:, :, None, :] + self.key_proj(keys)[:, None, :, :])
        return self.v(hidden).squeeze(-1)  # (B, T_q, T_k, d_attn) -> (B, T_q, T_k)


SCORES = {"dot": DotScore, "general": GeneralScore, "additive": AdditiveScore}


def make_score(kind: str, d_query: int, d_key: int) -> nn.Module:
    """One of the score modules by name: ``'dot'``, ``'general'`` (bilinear) or ``'additive'`` (MLP)."""
    check_choice("kind", kind, SCORES)
    return SCORES[kind](d_query, d_key)


def attend(
    scores: torch.Tensor, values: torch.Tensor, mask: Optional[torch.Tensor] = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """alpha = softmax(scores) over the keys (where ``mask`` allows), a = Σ_i alpha_i h_i.

    scores (B, T_q, T_k), values (B, T_k, d_v), mask broadcastable to the
    scores -> (context (B, T_q, d_v), weights (B, T_q, T_k)).
    """
    check_tensor("scores", scores, shape=("B", "T_q", "T_k"), dtype="float", finite=True)
    B, _, T_k = scores.shape
    check_tensor("values", values, shape=("B", "T_k", "d_v"), dtype="float", finite=True)
    if values.shape[:2] != (B, T_k):
        raise ValueError(
            f"values must have shape (B={B}, T_k={T_k}, d_v) to match the scores; got {tuple(values.shape)}"
        )
    check_same_dtype("values", values, scores)
    if mask is not None:
        check_mask("mask", mask, scores.shape, expected="the scores (B, T_q, T_k)")
    weights = _softmax_where(scores, mask)  # (B, T_q, T_k)
    return weights @ values, weights
