"""The Transformer: a config, one block, an encoder stack and a decoder-only language model.

A block is self-attention then a position-wise feed-forward network, each
wrapped in a residual connection and a LayerNorm, either after (``norm_first=
False``: the original Transformer and BERT) or before (``norm_first=True``:
GPT-2, easier to train small). ``TransformerBlock`` is tested equal to
``torch.nn.TransformerEncoderLayer`` with copied weights. Used by notebooks
05-09; BERT (``dl4nlp.bert``) puts its own embeddings and heads around
``TransformerEncoder``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp.attention import MultiHeadAttention
from dl4nlp.positional import make_positional


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

    def __post_init__(self) -> None:
        if self.d_ff is None:
            self.d_ff = 4 * self.d_model
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "d_ff", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model must be divisible by n_heads; got d_model={self.d_model}, n_heads={self.n_heads}"
            )
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1); got {self.dropout!r}")


class TransformerBlock(nn.Module):
    """Self-attention and feed-forward sublayers with residuals and LayerNorms; (B, T, C) -> (B, T, C)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        C = config.d_model
        self.norm_first = config.norm_first
        self.self_attn = MultiHeadAttention(C, config.n_heads, fast=config.fast_attention)
        self.linear1 = nn.Linear(C, config.d_ff)
        self.linear2 = nn.Linear(config.d_ff, C)
        self.norm1 = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.norm2 = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)

    def _attend(self, x: torch.Tensor, mask: Optional[torch.Tensor], causal: bool) -> torch.Tensor:
        return self.dropout(self.self_attn(x, mask=mask, causal=causal))

    def _feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.linear2(self.dropout(F.gelu(self.linear1(x)))))  # (B, T, C)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None, causal: bool = False) -> torch.Tensor:
        if self.norm_first:
            x = x + self._attend(self.norm1(x), mask, causal)
            return x + self._feed_forward(self.norm2(x))
        x = self.norm1(x + self._attend(x, mask, causal))
        return self.norm2(x + self._feed_forward(x))

    @torch.no_grad()
    def load_from_torch(self, reference: nn.TransformerEncoderLayer) -> TransformerBlock:
        """Copy the weights of a ``torch.nn.TransformerEncoderLayer`` (GELU, same sizes)."""
        if reference.norm_first != self.norm_first:
            raise ValueError(f"reference must have norm_first={self.norm_first}; got {reference.norm_first}")
        self.self_attn.load_from_torch(reference.self_attn)
        for mine, theirs in [
            (self.linear1, reference.linear1),
            (self.linear2, reference.linear2),
            (self.norm1, reference.norm1),
            (self.norm2, reference.norm2),
        ]:
            if mine.weight.shape != theirs.weight.shape:
                raise ValueError(
                    f"shape mismatch: expected {tuple(mine.weight.shape)}, got {tuple(theirs.weight.shape)}"
                )
            mine.weight.copy_(theirs.weight)
            mine.bias.copy_(theirs.bias)
        return self


class TransformerEncoder(nn.Module):
    """A stack of ``n_layers`` blocks (plus a final LayerNorm when ``norm_first``)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.blocks = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layers))
        self.final_norm = (
            nn.LayerNorm(config.d_model, eps=config.layer_norm_eps) if config.norm_first else nn.Identity()
        )

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None, causal: bool = False) -> torch.Tensor:
        for block in self.blocks:  # (B, T, C) throughout
            x = block(x, mask=mask, causal=causal)
        return self.final_norm(x)

    def attention_weights(self) -> list[Optional[torch.Tensor]]:
        """Each block's attention weights (B, H, T, T) from the last forward pass (readable path only)."""
        return [block.self_attn.last_weights for block in self.blocks]


class TransformerLM(nn.Module):
    """Decoder-only (causal) language model: ids (B, T) -> next-token logits (B, T, V)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, config.d_model)
        self.position = make_positional(config.positional, config.max_len, config.d_model)
        self.encoder = TransformerEncoder(config)
        self.lm_head = nn.Linear(config.d_model, config.vocab_size, bias=False)
        self.apply(_init_weights)
        if config.tie_weights:
            self.lm_head.weight = self.token_embedding.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        if ids.dim() != 2:
            raise ValueError(f"ids must have shape (B, T); got {tuple(ids.shape)}")
        x = self.position(self.token_embedding(ids))  # (B, T, C)
        return self.lm_head(self.encoder(x, causal=True))  # (B, T, V)

    def loss(self, ids: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy of predicting ``targets`` (B, T) from ``ids`` (B, T)."""
        logits = self(ids)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    @torch.no_grad()
    def generate(
        self, ids: torch.Tensor, new_tokens: int, temperature: float = 1.0, generator: Optional[torch.Generator] = None
    ) -> torch.Tensor:
        """Append ``new_tokens`` sampled tokens to ``ids`` (B, T); temperature 0 means greedy."""
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0; got {temperature!r}")
        for _ in range(new_tokens):
            logits = self(ids[:, -self.config.max_len :])[:, -1]  # (B, V)
            if temperature == 0:
                next_id = logits.argmax(-1, keepdim=True)
            else:
                probs = torch.softmax(logits / temperature, dim=-1)
                next_id = torch.multinomial(probs, 1, generator=generator)
            ids = torch.cat([ids, next_id], dim=1)
        return ids


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
    seen, total = set(), 0
    skip = set()
    if exclude_embeddings:
        skip = {id(p) for m in module.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
    for p in module.parameters():
        if id(p) not in seen and id(p) not in skip:
            seen.add(id(p))
            total += p.numel()
    return total
