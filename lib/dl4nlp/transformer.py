"""The Transformer: a config, one block, an encoder stack and a decoder-only language model.

A block is self-attention then a position-wise feed-forward network, each
wrapped in a residual connection and a LayerNorm, either after (``norm_first=
False``: the original Transformer and BERT) or before (``norm_first=True``:
GPT-2, easier to train small). ``TransformerBlock`` is tested equal to
``torch.nn.TransformerEncoderLayer`` with copied weights. The config's four
``use_*`` switches take ingredients out (attention, feed-forward, residual
connections, LayerNorm) for notebook 10's ablation. ``TransformerLM`` accepts a
``dl4nlp.kv_cache.KVCache`` to decode one token at a time without recomputing
the past. Used by notebooks 08-11, 13 and 14; BERT (``dl4nlp.bert``) puts its own
embeddings and heads around ``TransformerEncoder``; the decoder block with
cross-attention is in ``dl4nlp.decoder``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_choice,
    check_ids,
    check_int,
    check_number,
    check_same_dtype,
    check_tensor,
    check_type,
    within_model,
)
from dl4nlp.attention import MultiHeadAttention
from dl4nlp.kv_cache import KVCache, LayerCache, cached_attention
from dl4nlp.positional import POSITIONAL_KINDS, make_positional

INGREDIENTS = ("use_attention", "use_feed_forward", "use_residual", "use_layer_norm")  # notebook 10's switches


@dataclass
class TransformerConfig:
    """Sizes and switches of a Transformer. ``d_ff`` defaults to 4 × ``d_model``."""

    vocab_size: int
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 2
    d_ff: Optional[int] = None
    max_len: int = 256
    dropout: float = 0.0
    norm_first: bool = True
    positional: str = "sinusoidal"  # 'sinusoidal', 'learned' or 'none'
    fast_attention: bool = False  # fused F.scaled_dot_product_attention (no weights to plot)
    tie_weights: bool = True  # language model: output layer shares the token embedding
    layer_norm_eps: float = 1e-5
    # The ingredients of a block, each switchable for notebook 10's ablation (all on: the Transformer).
    use_attention: bool = True
    use_feed_forward: bool = True
    use_residual: bool = True
    use_layer_norm: bool = True

    def __post_init__(self) -> None:
        if self.d_ff is None and isinstance(self.d_model, int):
            self.d_ff = 4 * self.d_model
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "max_len"):
            check_int(name, getattr(self, name))
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model must be divisible by n_heads; got d_model={self.d_model}, n_heads={self.n_heads}"
            )
        check_number("dropout", self.dropout, 0.0, 1.0, high_open=True)
        check_choice("positional", self.positional, POSITIONAL_KINDS)
        if self.positional == "sinusoidal" and self.d_model % 2:
            raise ValueError(f"d_model must be even for positional='sinusoidal' (sin/cos pairs); got {self.d_model}")
        for name in ("norm_first", "fast_attention", "tie_weights", *INGREDIENTS):
            check_bool(name, getattr(self, name))
        if not (self.use_attention or self.use_feed_forward):
            raise ValueError("a block needs attention or a feed-forward layer; got both switched off")
        check_number("layer_norm_eps", self.layer_norm_eps, 0.0, low_open=True)


def _check_input(module: nn.Module, x: torch.Tensor, d_model: int) -> None:
    check_tensor("x", x, shape=("B", "T", d_model), dtype="float", finite=True)
    check_same_dtype("x", x, module)


def _is_gelu(activation) -> bool:
    return activation is F.gelu or (isinstance(activation, nn.GELU) and activation.approximate == "none")


class TransformerBlock(nn.Module):
    """Self-attention and feed-forward sublayers with residuals and LayerNorms; (B, T, C) -> (B, T, C).

    An ingredient switched off in the config is left out: its sublayer (attention
    or feed-forward), the residual connections (``x = f(x)`` instead of
    ``x = x + f(x)``) or the LayerNorms (identity).
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        C = config.d_model
        self.config = config
        self.norm_first = config.norm_first
        self.residual = config.use_residual
        attention = MultiHeadAttention(C, config.n_heads, fast=config.fast_attention)
        self.self_attn = attention if config.use_attention else None
        self.linear1 = nn.Linear(C, config.d_ff) if config.use_feed_forward else None
        self.linear2 = nn.Linear(config.d_ff, C) if config.use_feed_forward else None
        norm = (lambda: nn.LayerNorm(C, eps=config.layer_norm_eps)) if config.use_layer_norm else nn.Identity
        self.norm1 = norm() if config.use_attention else None
        self.norm2 = norm() if config.use_feed_forward else None
        self.dropout = nn.Dropout(config.dropout)

    def _attend(
        self, x: torch.Tensor, mask: Optional[torch.Tensor], causal: bool, cache: Optional[LayerCache]
    ) -> torch.Tensor:
        if cache is not None:
            return self.dropout(cached_attention(self.self_attn, x, cache, mask=mask))
        return self.dropout(self.self_attn(x, mask=mask, causal=causal))

    def _feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.linear2(self.dropout(F.gelu(self.linear1(x)))))  # (B, T, C)

    def _sublayer(self, x: torch.Tensor, f, norm: nn.Module) -> torch.Tensor:
        if self.norm_first:  # pre-LN: x + f(LN(x))
            return x + f(norm(x)) if self.residual else f(norm(x))
        return norm(x + f(x)) if self.residual else norm(f(x))  # post-LN: LN(x + f(x))

    def forward(
        self,
        x: torch.Tensor,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
        cache: Optional[LayerCache] = None,
    ) -> torch.Tensor:
        """x (B, T, C) -> (B, T, C); with a ``cache``, x holds new positions that attend causally to the cached ones."""
        _check_input(self, x, self.config.d_model)
        if cache is not None:
            check_type("cache", cache, LayerCache, "a dl4nlp.kv_cache.LayerCache or None")
        if self.self_attn is not None:
            x = self._sublayer(x, lambda h: self._attend(h, mask, causal, cache), self.norm1)
        if self.linear1 is not None:
            x = self._sublayer(x, self._feed_forward, self.norm2)
        return x

    @classmethod
    @torch.no_grad()
    def from_torch(
        cls, reference: nn.TransformerEncoderLayer, config: Optional[TransformerConfig] = None
    ) -> TransformerBlock:
        """A block with the sizes, dtype, device and weights of a ``torch.nn.TransformerEncoderLayer``.

        The reference must use GELU (as the block does) and have biases. ``config``
        (optional) supplies what the reference does not fix (dropout, the fast
        attention path) and must agree with it on the sizes; without it the block
        gets the reference's sizes and ``vocab_size=1`` (a block has no vocabulary).
        The two agree in eval mode.
        """
        check_type("reference", reference, nn.TransformerEncoderLayer, "a torch.nn.TransformerEncoderLayer")
        if not _is_gelu(reference.activation):
            name = getattr(reference.activation, "__name__", None) or repr(reference.activation)
            raise ValueError(f"reference must use the block's activation, GELU (exact); got {name}")
        if reference.linear1.bias is None or reference.norm1.bias is None:
            raise ValueError("reference must have biases (bias=True), as the block does; got bias=False")
        sizes = dict(
            d_model=reference.self_attn.embed_dim,
            n_heads=reference.self_attn.num_heads,
            d_ff=reference.linear1.out_features,
            norm_first=reference.norm_first,
            layer_norm_eps=reference.norm1.eps,
        )
        if config is None:
            config = TransformerConfig(vocab_size=1, n_layers=1, dropout=reference.dropout.p, **sizes)
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        off = [name for name in INGREDIENTS if not getattr(config, name)]
        if off:
            raise ValueError(f"config must have every ingredient to copy a TransformerEncoderLayer; got {off} off")
        for name, value in sizes.items():
            if getattr(config, name) != value:
                mine = getattr(config, name)
                raise ValueError(f"config must match the reference: {name}={mine}; reference has {value}")
        weight = reference.linear1.weight
        block = cls(config).to(weight.device, weight.dtype)
        block.self_attn = MultiHeadAttention.from_torch(reference.self_attn, fast=config.fast_attention)
        for mine, theirs in [
            (block.linear1, reference.linear1),
            (block.linear2, reference.linear2),
            (block.norm1, reference.norm1),
            (block.norm2, reference.norm2),
        ]:
            mine.weight.copy_(theirs.weight)
            mine.bias.copy_(theirs.bias)
        return block


class TransformerEncoder(nn.Module):
    """A stack of ``n_layers`` blocks (plus a final LayerNorm when ``norm_first``)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        self.config = config
        self.blocks = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layers))
        final = config.norm_first and config.use_layer_norm
        self.final_norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if final else nn.Identity()

    def forward(
        self,
        x: torch.Tensor,
        mask: Optional[torch.Tensor] = None,
        causal: bool = False,
        cache: Optional[KVCache] = None,
    ) -> torch.Tensor:
        _check_input(self, x, self.config.d_model)
        if cache is not None:
            check_type("cache", cache, KVCache, "a dl4nlp.kv_cache.KVCache or None")
            if len(cache.layers) != len(self.blocks):
                raise ValueError(f"cache must hold {len(self.blocks)} layers; got {len(cache.layers)}")
        for i, block in enumerate(self.blocks):  # (B, T, C) throughout
            x = block(x, mask=mask, causal=causal, cache=None if cache is None else cache.layers[i])
        return self.final_norm(x)

    def attention_weights(self) -> list[torch.Tensor]:
        """Each block's attention weights (B, H, T, T) from the last forward pass (readable path only)."""
        if self.config.fast_attention:
            raise ValueError("attention_weights needs the readable path, not the fast one; got fast_attention=True")
        weights = [None if block.self_attn is None else block.self_attn.last_weights for block in self.blocks]
        if all(w is None for w in weights):
            raise ValueError("no attention weights yet: run a forward pass first; got None")
        return weights  # None for a block whose attention is switched off


class TransformerLM(nn.Module):
    """Decoder-only (causal) language model: ids (B, T) -> next-token logits (B, T, V).

    >>> model = TransformerLM(TransformerConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=1, max_len=8))
    >>> model(torch.zeros(2, 5, dtype=torch.long)).shape  # ids (B=2, T=5) -> logits (B, T, V=10)
    torch.Size([2, 5, 10])
    >>> count_parameters(model), count_parameters(model, exclude_embeddings=True)  # the output layer is tied
    (3472, 3312)
    """

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position = make_positional(config.positional, config.max_len, config.d_model)
        self.encoder = TransformerEncoder(config)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.apply(_init_weights)
        if config.tie_weights:
            self.lm_head.weight = self.token_embedding.weight

    def _check_ids(self, name: str, ids: torch.Tensor, start: int = 0) -> None:
        check_ids(name, ids, self.config.vocab_size, shape=("B", "T"))
        if self.config.positional != "none" and start + ids.shape[1] > self.config.max_len:
            raise ValueError(
                f"{name} must have at most max_len={self.config.max_len} positions"
                + (f" after the {start} cached ones" if start else "")
                + f"; got shape {tuple(ids.shape)}"
            )

    def forward(self, ids: torch.Tensor, cache: Optional[KVCache] = None) -> torch.Tensor:
        """Next-token logits (B, T, V) for ids (B, T).

        With a ``cache`` (``KVCache.empty(model)``), ``ids`` continue the sequence the cache
        holds: only they are computed, their keys and values are appended, and the
        logits equal those of the whole sequence at these positions.
        """
        if cache is not None:
            check_type("cache", cache, KVCache, "a dl4nlp.kv_cache.KVCache or None")
        start = 0 if cache is None else cache.length
        self._check_ids("ids", ids, start)
        if ids.shape[1] == 0:
            raise ValueError(f"ids must hold at least one position; got shape {tuple(ids.shape)}")
        with within_model():  # a diverging run's inf reaches the loss, not a finiteness error
            x = self.token_embedding(ids)  # (B, T, C)
            if start == 0:
                x = self.position(x)
            else:  # the position codes of start..start+T-1: what the module adds to zeros
                zeros = torch.zeros(1, start + ids.shape[1], x.shape[-1], dtype=x.dtype, device=x.device)
                x = x + self.position(zeros)[:, start:]
            return self.lm_head(self.encoder(x, causal=True, cache=cache))  # (B, T, V)

    def loss(self, ids: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy of predicting ``targets`` (B, T) from ``ids`` (B, T)."""
        self._check_ids("ids", ids)
        check_ids("targets", targets, self.config.vocab_size, shape=tuple(ids.shape))
        logits = self(ids)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def _init_weights(module: nn.Module) -> None:
    """GPT-2's initialisation: N(0, 0.02) weights, zero biases."""
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, std=0.02)
    if isinstance(module, nn.Linear) and module.bias is not None:
        nn.init.zeros_(module.bias)


def count_parameters(module: nn.Module, exclude_embeddings: bool = False) -> int:
    """Number of distinct parameters (tied weights counted once).

    ``exclude_embeddings=True`` leaves out ``nn.Embedding`` tables (token and
    learned position embeddings), the convention of Kaplan et al. (2020).
    """
    check_type("module", module, nn.Module, "a torch.nn.Module")
    check_bool("exclude_embeddings", exclude_embeddings)
    seen, total = set(), 0
    skip = set()
    if exclude_embeddings:
        skip = {id(p) for m in module.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    for p in module.parameters():
        if id(p) not in seen and id(p) not in skip:
            seen.add(id(p))
            total += p.numel()
    return total
