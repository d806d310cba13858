"""The Transformer decoder block with cross-attention, and the encoder-decoder Transformer.

A decoder block has three sublayers, each with a residual connection and a
LayerNorm (after it, ``norm_first=False``, as in Vaswani et al. 2017; or before
it, ``norm_first=True``):

1. masked (causal) self-attention over the target so far;
2. cross-attention: queries from the decoder, keys and values from the
   encoder's output (the "memory"), as the attention of notebook 06;
3. the position-wise feed-forward network.

``DecoderBlock`` is tested equal to ``torch.nn.TransformerDecoderLayer`` with
copied weights (``DecoderBlock.from_torch``). ``Seq2SeqTransformer`` puts an
encoder (``dl4nlp.transformer.TransformerEncoder``) and a stack of decoder
blocks between embeddings and an output layer, with the interface of
``dl4nlp.seq2seq.Seq2Seq`` (``loss(batch)``, ``greedy_decode``), so the date task
of notebook 06 trains and scores both alike. Taught in notebook 11.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_ids,
    check_int,
    check_mask,
    check_same_dtype,
    check_tensor,
    check_type,
    measures_in_eval_mode,
    within_model,
)
from dl4nlp.attention import MultiHeadAttention
from dl4nlp.positional import make_positional
from dl4nlp.seq2seq import _check_batch, _check_source
from dl4nlp.transformer import TransformerConfig, TransformerEncoder, _check_input, _is_gelu


class DecoderBlock(nn.Module):
    """Causal self-attention, cross-attention to ``memory``, feed-forward; (B, T, C) -> (B, T, C)."""

    def __init__(self, config: TransformerConfig):
        super().__init__()
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        C = config.d_model
        self.n_heads = config.n_heads
        self.norm_first = config.norm_first
        self.self_attn = MultiHeadAttention(C, config.n_heads, fast=config.fast_attention)
        self.multihead_attn = MultiHeadAttention(C, config.n_heads, fast=config.fast_attention)  # cross-attention
        self.linear1 = nn.Linear(C, config.d_ff)
        self.linear2 = nn.Linear(config.d_ff, C)
        self.norm1 = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.norm2 = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.norm3 = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)

    def _feed_forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.linear2(self.dropout(F.gelu(self.linear1(x)))))  # (B, T, C)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        memory_mask: Optional[torch.Tensor] = None,
        causal: bool = True,
    ) -> torch.Tensor:
        """x (B, T, C) attends causally to itself and to ``memory`` (B, S, C) where ``memory_mask`` allows."""
        _check_input(self, x, self.linear1.in_features)
        B, T, C = x.shape
        check_tensor("memory", memory, shape=(B, "S", C), dtype="float", finite=True)
        check_same_dtype("memory", memory, x)
        if memory_mask is not None:
            S = memory.shape[1]
            check_mask("memory_mask", memory_mask, (B, self.n_heads, T, S), expected=f"(B={B}, H, T={T}, S={S})")
        check_bool("causal", causal)
        sa = lambda h: self.dropout(self.self_attn(h, causal=causal))  # noqa: E731
        ca = lambda h: self.dropout(self.multihead_attn(h, context=memory, mask=memory_mask))  # noqa: E731
        if self.norm_first:
            x = x + sa(self.norm1(x))
            x = x + ca(self.norm2(x))
            return x + self._feed_forward(self.norm3(x))
        x = self.norm1(x + sa(x))
        x = self.norm2(x + ca(x))
        return self.norm3(x + self._feed_forward(x))

    @classmethod
    @torch.no_grad()
    def from_torch(cls, reference: nn.TransformerDecoderLayer) -> DecoderBlock:
        """A block with the sizes, dtype, device and weights of a ``torch.nn.TransformerDecoderLayer`` (GELU)."""
        if not isinstance(reference, nn.TransformerDecoderLayer):
            raise TypeError(f"reference must be a torch.nn.TransformerDecoderLayer; got {type(reference).__name__}")
        if not _is_gelu(reference.activation):  # as TransformerBlock.from_torch: tanh-approximate GELU differs
            name = getattr(reference.activation, "__name__", None) or repr(reference.activation)
            raise ValueError(f"reference must use the block's activation, GELU (exact); got {name}")
        if reference.linear1.bias is None or reference.norm1.bias is None:
            raise ValueError("reference must have biases (bias=True), as the block does; got bias=False")
        config = TransformerConfig(
            vocab_size=1,
            dropout=reference.dropout.p,  # the reference's dropout, kept (as TransformerBlock.from_torch does)
            d_model=reference.self_attn.embed_dim,
            n_heads=reference.self_attn.num_heads,
            d_ff=reference.linear1.out_features,
            norm_first=reference.norm_first,
            layer_norm_eps=reference.norm1.eps,
        )
        block = cls(config).to(reference.linear1.weight.device, reference.linear1.weight.dtype)
        block.self_attn = MultiHeadAttention.from_torch(reference.self_attn, fast=config.fast_attention)
        block.multihead_attn = MultiHeadAttention.from_torch(reference.multihead_attn, fast=config.fast_attention)
        for name in ("linear1", "linear2", "norm1", "norm2", "norm3"):
            getattr(block, name).load_state_dict(getattr(reference, name).state_dict())
        return block.eval() if not reference.training else block


@dataclass
class Seq2SeqTransformerConfig:
    """Sizes of an encoder-decoder Transformer; ``d_ff`` defaults to 4 × ``d_model``."""

    source_vocab_size: int
    target_vocab_size: int
    d_model: int = 64
    n_heads: int = 4
    encoder_layers: int = 2
    decoder_layers: int = 2
    d_ff: Optional[int] = None
    max_len: int = 128
    dropout: float = 0.0
    norm_first: bool = True
    positional: str = "sinusoidal"
    pad_id: int = 0

    def __post_init__(self) -> None:
        for name in ("source_vocab_size", "target_vocab_size", "encoder_layers", "decoder_layers"):
            check_int(name, getattr(self, name))
        check_int("pad_id", self.pad_id, 0, min(self.source_vocab_size, self.target_vocab_size) - 1)
        self.block_config()  # validates the shared sizes

    def block_config(self, n_layers: Optional[int] = None) -> TransformerConfig:
        """The ``TransformerConfig`` of the encoder's (or decoder's) blocks; ``n_layers`` defaults to the encoder's."""
        n_layers = self.encoder_layers if n_layers is None else check_int("n_layers", n_layers)
        return TransformerConfig(
            vocab_size=max(self.source_vocab_size, self.target_vocab_size),
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=n_layers,
            d_ff=self.d_ff,
            max_len=self.max_len,
            dropout=self.dropout,
            norm_first=self.norm_first,
            positional=self.positional,
        )


class Seq2SeqTransformer(nn.Module):
    """Encoder-decoder Transformer: source ids (B, S) and target inputs (B, T) -> logits (B, T, V_target).

    >>> config = Seq2SeqTransformerConfig(source_vocab_size=12, target_vocab_size=7, d_model=16, n_heads=2)
    >>> model = Seq2SeqTransformer(config)
    >>> src, src_lengths = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]]), torch.tensor([3, 2])  # 0 pads
    >>> logits, cross = model(src, src_lengths, torch.ones(2, 6, dtype=torch.long))  # target inputs (B=2, T=6)
    >>> logits.shape, cross.shape, bool((cross[1, :, 2:] == 0).all())  # no attention to the padding
    (torch.Size([2, 6, 7]), torch.Size([2, 6, 4]), True)
    """

    def __init__(self, config: Seq2SeqTransformerConfig):
        super().__init__()
        check_type("config", config, Seq2SeqTransformerConfig, "a Seq2SeqTransformerConfig")
        self.config = config
        C = config.d_model
        self.source_embedding = nn.Embedding(config.source_vocab_size, C, padding_idx=config.pad_id)
        self.target_embedding = nn.Embedding(config.target_vocab_size, C, padding_idx=config.pad_id)
        self.position = make_positional(config.positional, config.max_len, C)
        self.encoder = TransformerEncoder(config.block_config(config.encoder_layers))
        decoder_config = config.block_config(config.decoder_layers)
        self.decoder = nn.ModuleList(DecoderBlock(decoder_config) for _ in range(config.decoder_layers))
        self.final_norm = nn.LayerNorm(C) if config.norm_first else nn.Identity()
        self.output = nn.Linear(C, config.target_vocab_size)

    def encode(self, src: torch.Tensor, src_lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The memory (B, S, C) and the key mask (B, 1, 1, S) that hides padding."""
        _check_source(src, src_lengths, self.config.source_vocab_size, "src_lengths")
        if src.shape[1] > self.config.max_len:
            raise ValueError(
                f"src must have at most max_len={self.config.max_len} positions; got shape {tuple(src.shape)}"
            )
        lengths = src_lengths.to(src.device)
        mask = (torch.arange(src.shape[1], device=src.device)[None, :] < lengths[:, None])[:, None, None, :]
        with within_model():  # a diverging run's inf reaches the loss, not a finiteness error
            memory = self.encoder(self.position(self.source_embedding(src)), mask=mask)  # (B, S, C)
        return memory, mask

    def decode(self, tgt_in: torch.Tensor, memory: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits (B, T, V) for every target position, each seeing the target before it and the whole source."""
        check_ids("tgt_in", tgt_in, self.config.target_vocab_size, shape=("B", "T"))
        B, T = tgt_in.shape
        if T > self.config.max_len:
            raise ValueError(f"tgt_in must be (B, T) with T <= {self.config.max_len}; got {tuple(tgt_in.shape)}")
        check_tensor("memory", memory, shape=(B, "S", self.config.d_model), dtype="float", finite=True)
        check_same_dtype("memory", memory, self)
        S = memory.shape[1]
        check_mask("mask", mask, (B, self.config.n_heads, T, S), expected=f"(B={B}, 1, 1, S={S})")
        with within_model():
            x = self.position(self.target_embedding(tgt_in))  # (B, T, C)
            for block in self.decoder:
                x = block(x, memory, memory_mask=mask)
            return self.output(self.final_norm(x))  # (B, T, V)

    def forward(
        self, src: torch.Tensor, src_lengths: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Teacher forcing: logits (B, T, V), and the last layer's cross-attention averaged over heads (B, T, S)."""
        memory, mask = self.encode(src, src_lengths)
        check_ids("tgt_in", tgt_in, self.config.target_vocab_size, shape=(memory.shape[0], "T"))
        with within_model():  # the memory the model computed: a diverging run's inf reaches the loss
            logits = self.decode(tgt_in, memory, mask)
        weights = self.decoder[-1].multihead_attn.last_weights
        return logits, None if weights is None else weights.mean(1)

    def loss(self, batch: dict) -> torch.Tensor:
        """Mean cross-entropy of the target characters (padding ignored); ``batch`` from ``date_task.encode_batch``."""
        _check_batch(batch, self.config.target_vocab_size)
        logits, _ = self(batch["src"], batch["src_lengths"], batch["tgt_in"])
        return F.cross_entropy(logits.flatten(0, 1), batch["tgt_out"].flatten(), ignore_index=self.config.pad_id)

    @torch.no_grad()
    @measures_in_eval_mode
    def greedy_decode(
        self, src: torch.Tensor, src_lengths: torch.Tensor, max_len: int, bos: int = 1
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Batched greedy decoding: ids (B, max_len) and the last layer's cross-attention (B, max_len, S)."""
        check_int("max_len", max_len, 1, self.config.max_len - 1)
        check_int("bos", bos, 0, self.config.target_vocab_size - 1)
        memory, mask = self.encode(src, src_lengths)
        ids = torch.full((src.shape[0], 1), bos, dtype=torch.long, device=src.device)
        for _ in range(max_len):  # the whole prefix again at every step: targets are short
            with within_model():
                logits = self.decode(ids, memory, mask)[:, -1]  # (B, V)
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
        weights = self.decoder[-1].multihead_attn.last_weights
        return ids[:, 1:], None if weights is None else weights.mean(1)

    def attention_maps(self) -> dict[str, list[Optional[torch.Tensor]]]:
        """Weights (B, H, T_q, T_k) of every layer from the last forward pass: encoder, decoder self, cross."""
        return {
            "encoder": self.encoder.attention_weights(),
            "decoder": [block.self_attn.last_weights for block in self.decoder],
            "cross": [block.multihead_attn.last_weights for block in self.decoder],
        }
