"""The cost of attention: sparse patterns as masks, and attention that never stores the n × n scores.

Full self-attention scores every pair of positions: n² entries per head. Two
ways around it, both taught in notebook 11:

- **Sparse patterns** let each query see only some keys. Longformer (Beltagy et
  al., 2020) combines a sliding window with a few global tokens; BigBird (Zaheer
  et al., 2020) adds a few random keys per query. Here each is a boolean mask
  (True = may attend) whose True entries are what must be computed; with a
  fixed window, global set and random count the number grows like n, not n².
- **Memory-efficient (flash) attention** computes exactly full attention, but in
  blocks of keys with a running maximum and a running sum (the "online
  softmax"), so no n × n matrix is ever stored. ``blockwise_attention`` is the
  readable version; PyTorch's ``F.scaled_dot_product_attention`` dispatches to
  fused kernels that do the same.

>>> sliding_window_mask(5, window=1).sum().item()       # 5 diagonal + 2 × 4 neighbours
13
>>> global_mask(4, [0]).int().tolist()
[[1, 1, 1, 1], [1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from dl4nlp._checks import (
    check_bool,
    check_callable,
    check_choice,
    check_int,
    check_same_dtype,
    check_tensor,
    check_type,
)


def _check_length(length: int) -> None:
    check_int("length", length, 1)


def _check_positions(name: str, positions: Sequence[int], length: int) -> list[int]:
    if isinstance(positions, (str, bytes)) or not isinstance(positions, (Sequence, range, torch.Tensor)):
        raise TypeError(f"{name} must be a list of positions in [0, {length}); got {type(positions).__name__}")
    positions = positions.tolist() if isinstance(positions, torch.Tensor) else list(positions)
    bad = [p for p in positions if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < length]
    if bad:
        raise ValueError(f"{name} must be integers in [0, {length}); got {bad}")
    return positions


def _check_generator(generator: Optional[torch.Generator]) -> None:
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")


def sliding_window_mask(length: int, window: int) -> torch.Tensor:
    """(n, n) mask: position i may attend to j when |i - j| <= ``window`` (Longformer's local attention)."""
    _check_length(length)
    check_int("window", window, 0)
    positions = torch.arange(length)
    return (positions[:, None] - positions[None, :]).abs() <= window


def global_mask(length: int, positions: Sequence[int]) -> torch.Tensor:
    """(n, n) mask: the global positions attend to everything and everything attends to them."""
    _check_length(length)
    positions = _check_positions("positions", positions, length)
    mask = torch.zeros(length, length, dtype=torch.bool)
    mask[positions, :] = True
    mask[:, positions] = True
    return mask


def random_mask(length: int, per_query: int, generator: Optional[torch.Generator] = None) -> torch.Tensor:
    """(n, n) mask: each query may attend to ``per_query`` keys drawn at random without replacement (BigBird)."""
    _check_length(length)
    check_int("per_query", per_query, 0, length)
    _check_generator(generator)
    scores = torch.rand(length, length, generator=generator)
    keys = scores.topk(per_query, dim=-1).indices  # (n, r): a random subset of each row
    return torch.zeros(length, length, dtype=torch.bool).scatter_(1, keys, True)


def bigbird_mask(
    length: int,
    window: int,
    global_positions: Sequence[int],
    per_query: int,
    generator: Optional[torch.Generator] = None,
) -> torch.Tensor:
    """Sliding window, global tokens and random keys together (BigBird's pattern; Longformer is without the random)."""
    _check_length(length)
    check_int("window", window, 0)
    global_positions = _check_positions("global_positions", global_positions, length)
    check_int("per_query", per_query, 0, length)
    _check_generator(generator)
    return (
        sliding_window_mask(length, window)
        | global_mask(length, global_positions)
        | random_mask(length, per_query, generator)
    )


def blockwise_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int = 64, causal: bool = False
) -> torch.Tensor:
    """softmax(Q Kᵀ / √d) V computed over blocks of keys, never storing more than (…, T_q, block) scores.

    For each block of keys: scores s, new running max m' = max(m, max s), the
    old sum and output rescaled by exp(m - m'), then sum += Σ exp(s - m') and
    out += exp(s - m') V_block. At the end out / sum is exactly the softmax
    average. q (…, T_q, d), k (…, T_k, d), v (…, T_k, d_v) -> (…, T_q, d_v).
    """
    check_tensor("q", q, min_ndim=2, dtype="float", finite=True, expected="(…, T_q, d)")
    lead = tuple(q.shape[:-2])
    check_tensor("k", k, shape=(*lead, "T_k", q.shape[-1]), dtype="float", finite=True)
    check_tensor("v", v, shape=(*lead, k.shape[-2], "d_v"), dtype="float", finite=True)
    check_same_dtype("k", k, q)
    check_same_dtype("v", v, q)
    check_int("block_size", block_size, 1)
    check_bool("causal", causal)
    T_q, T_k = q.shape[-2], k.shape[-2]
    if causal and T_q != T_k:
        raise ValueError(f"causal attention needs as many queries as keys; got {T_q} and {T_k}")
    scale = 1.0 / math.sqrt(q.shape[-1])
    running_max = torch.full((*q.shape[:-1], 1), float("-inf"), dtype=q.dtype, device=q.device)  # (…, T_q, 1)
    running_sum = torch.zeros_like(running_max)
    out = torch.zeros(*q.shape[:-1], v.shape[-1], dtype=q.dtype, device=q.device)  # (…, T_q, d_v)
    query_positions = torch.arange(T_q, device=q.device)[:, None]
    for start in range(0, T_k, block_size):
        scores = (q @ k[..., start : start + block_size, :].transpose(-2, -1)) * scale  # (…, T_q, block)
        if causal:
            key_positions = torch.arange(start, start + scores.shape[-1], device=q.device)[None, :]
            scores = scores.masked_fill(key_positions > query_positions, float("-inf"))
        new_max = torch.maximum(running_max, scores.amax(-1, keepdim=True))
        safe_max = new_max.nan_to_num(neginf=0.0)  # a row whose keys so far are all masked
        correction = torch.exp(running_max - safe_max)
        weights = torch.exp(scores - safe_max)  # (…, T_q, block)
        running_sum = running_sum * correction + weights.sum(-1, keepdim=True)
        out = out * correction + weights @ v[..., start : start + block_size, :]
        running_max = new_max
    return out / running_sum


KINDS = ("self-attention", "recurrent", "convolutional", "restricted self-attention")  # of attention_cost


def attention_cost(length: int, d: int, kind: str, r: int = 0, k: int = 3) -> dict[str, float]:
    """Vaswani et al. (2017), Table 1, for one layer: operations, sequential steps, longest path.

    ``kind`` is 'self-attention', 'recurrent', 'convolutional' (kernel ``k``) or
    'restricted self-attention' (neighbourhood ``r``); the values are the
    table's orders of growth evaluated without constants.
    """
    n = check_int("length", length, 1)
    check_int("d", d, 1)
    check_int("r", r, 0)
    check_int("k", k, 1)
    check_choice("kind", kind, KINDS)
    if kind == "restricted self-attention" and r < 1:
        raise ValueError(f"r (the neighbourhood of restricted self-attention) must be an integer >= 1; got {r}")
    table = {
        "self-attention": (n * n * d, 1, 1),
        "recurrent": (n * d * d, n, n),
        "convolutional": (k * n * d * d, 1, math.log(n, k) if k > 1 else n),
        "restricted self-attention": (r * n * d, 1, n / r if r else math.inf),
    }
    operations, sequential, path = table[kind]
    return {"operations": float(operations), "sequential": float(sequential), "path": float(path)}


def largest_tensor_bytes(fn, *args, **kwargs) -> tuple[object, int]:
    """Run ``fn(*args, **kwargs)``; return its result and the size in bytes of the largest tensor any
    PyTorch operation produced along the way (intermediates included, inputs not).

    Measured by intercepting every operation (``TorchDispatchMode``), so it sees the
    (n, n) score matrix of a readable attention and its absence in a fused kernel; a
    fused kernel's private scratch buffers are not operations and are not counted.

    >>> a, b = torch.zeros(3, 4), torch.zeros(4, 5)
    >>> largest_tensor_bytes(lambda: a @ b)[1]   # the (3, 5) float32 product
    60
    """

    class _Largest(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.largest = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for value in tree_flatten(out)[0]:
                if isinstance(value, torch.Tensor):
                    self.largest = max(self.largest, value.numel() * value.element_size())
            return out

    check_callable("fn", fn)
    with _Largest() as mode:
        result = fn(*args, **kwargs)
    return result, mode.largest
