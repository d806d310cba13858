"""The KV cache: decode one token at a time without recomputing the past.

In a causal Transformer the keys and values of position t depend only on tokens
0..t, so once computed they never change. Generation appends one token at a
time; instead of running the model over the whole sequence again for every new
token (cost growing like T² per token in attention, T per token everywhere
else), a cache keeps every layer's keys and values, and each step computes
only the new position's query, key and value and attends from it to the cached
keys. The logits are the same as a full recomputation (tested to float64
rounding). Taught in notebook 10.

>>> cache = KVCache(n_layers=2)
>>> cache.length, len(cache.layers)
(0, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
from torch import nn

from dl4nlp._checks import check_int, check_mask, check_same_dtype, check_tensor, check_type, given
from dl4nlp.attention import MultiHeadAttention, _fused_attention, scaled_dot_product_attention


@dataclass
class LayerCache:
    """One layer's keys and values so far, each (B, H, T, d_head), or None before the first step."""

    keys: Optional[torch.Tensor] = None
    values: Optional[torch.Tensor] = None

    def __post_init__(self) -> None:
        if (self.keys is None) != (self.values is None):
            raise ValueError(
                f"keys and values must both be tensors or both None; got keys {given(self.keys)} "
                f"and values {given(self.values)}"
            )
        if self.keys is not None:
            check_tensor("keys", self.keys, ndim=4, dtype="float", expected="(B, H, T, d_head)")
            B, H, T, _ = self.keys.shape
            check_tensor("values", self.values, shape=(B, H, T, "d_head"), dtype="float")
            check_same_dtype("values", self.values, self.keys)

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]


class KVCache:
    """The keys and values of every layer of a decoder (``layers[i]`` for block i)."""

    def __init__(self, n_layers: int):
        check_int("n_layers", n_layers, 1)
        self.layers = [LayerCache() for _ in range(n_layers)]

    @classmethod
    def empty(cls, model: nn.Module) -> KVCache:
        """An empty cache for a model with ``config.n_layers`` blocks (``TransformerLM``)."""
        config = getattr(model, "config", None)
        if not isinstance(model, nn.Module) or not hasattr(config, "n_layers"):
            raise TypeError(f"model must be a TransformerLM (a module with config.n_layers); got {given(model)}")
        return cls(config.n_layers)

    @property
    def length(self) -> int:
        """How many positions the cache holds."""
        return self.layers[0].length

    def nbytes(self) -> int:
        """Memory held by the cached keys and values, in bytes."""
        return sum(
            t.numel() * t.element_size() for layer in self.layers for t in (layer.keys, layer.values) if t is not None
        )

    def __repr__(self) -> str:
        return f"KVCache({len(self.layers)} layers, {self.length} positions)"


def cached_attention(
    attention: MultiHeadAttention, x: torch.Tensor, cache: LayerCache, mask: Optional[torch.Tensor] = None
) -> torch.Tensor:
    """Causal self-attention of new positions ``x`` (B, T_new, C) to the cached ones and to themselves.

    Appends the new keys and values to ``cache`` and returns (B, T_new, C). New
    position i (absolute position ``cache.length + i``) may attend to every cached
    position and to new positions up to itself. ``mask`` (broadcastable to
    (B, H, T_new, T_total), True = may attend) is combined with that.
    """
    check_type("attention", attention, MultiHeadAttention, "a dl4nlp.attention.MultiHeadAttention")
    check_tensor("x", x, shape=("B", "T_new", attention.d_model), dtype="float", finite=True)
    check_same_dtype("x", x, attention)
    check_type("cache", cache, LayerCache, "a dl4nlp.kv_cache.LayerCache")
    B, T_new, C = x.shape
    if cache.keys is not None:
        expected = (B, attention.n_heads, cache.length, attention.d_head)
        if tuple(cache.keys.shape) != expected:
            raise ValueError(
                f"cache must hold keys of shape (B, H, T, d_head) = {expected} to match x and the attention "
                f"(batch {B}); got {tuple(cache.keys.shape)}"
            )
        check_same_dtype("cache", cache.keys, x)
    if mask is not None:  # checked before the cache grows, so a bad mask leaves the cache as it was
        T_total = cache.length + T_new
        check_mask("mask", mask, (B, attention.n_heads, T_new, T_total), expected=f"(B, H, {T_new}, {T_total})")
        if mask.dim() not in (2, 4):
            raise ValueError(
                f"mask must have shape ({T_new}, {T_total}) or (B, H, {T_new}, {T_total}), any of them possibly 1 "
                f"(a 3-D mask is ambiguous: use mask[:, None]); got {tuple(mask.shape)}"
            )
    q = attention._split(attention.q_proj(x))  # (B, H, T_new, d_head)
    k = attention._split(attention.k_proj(x))
    v = attention._split(attention.v_proj(x))
    if cache.keys is not None:
        k = torch.cat([cache.keys, k], dim=2)  # (B, H, T_total, d_head)
        v = torch.cat([cache.values, v], dim=2)
    cache.keys, cache.values = k, v
    start = k.shape[2] - T_new
    allowed = torch.ones(T_new, k.shape[2], dtype=torch.bool, device=x.device).tril(diagonal=start)
    if mask is not None:
        allowed = allowed & mask
    if attention.fast:  # the fused kernel, made to agree with the readable path on every mask
        out = _fused_attention(q, k, v, allowed, False)
        attention.last_weights = None
    else:
        out, attention.last_weights = scaled_dot_product_attention(q, k, v, mask=allowed)
    return attention.out_proj(out.transpose(1, 2).reshape(B, T_new, C))  # concatenate heads: (B, T_new, C)
