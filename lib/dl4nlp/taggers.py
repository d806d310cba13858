"""A small Transformer that puts a label on every position, and the tasks that probe it.

Notebook 08 trains it to reverse strings and reads its attention maps, layer by
layer; notebook 09 trains it to name each token's left neighbour with each kind
of position information (none, learned, sinusoidal, rotary) and tests it beyond
the training length, and trains a causal version with no positions at all to
name its own position. One model, ``Tagger``, with a ``TaggerConfig``:

    ids (B, T) -> token embedding -> + positions -> Transformer encoder -> linear -> logits (B, T, labels)

With ``positional='rope'`` nothing is added to the embeddings; every attention
layer rotates its queries and keys instead (``dl4nlp.positional.RotaryAttention``).
With ``causal=True`` position t attends to positions 0..t only.

The tasks are plain functions returning ``(ids, targets)``; a target of
``IGNORE`` (-100, PyTorch's ``ignore_index``) marks a position with nothing to
predict. ``bag_of_words_ceiling`` is the best accuracy on the previous-token
task that any model blind to order can reach, computed exactly.

>>> model = Tagger(TaggerConfig(vocab_size=5, d_model=8, n_heads=2, max_len=6))
>>> model(torch.zeros(3, 6, dtype=torch.long)).shape
torch.Size([3, 6, 5])
>>> round(bag_of_words_ceiling(3, 2), 12)  # two symbols, length 3: checked against every sequence in the tests
0.75
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import measures_in_eval_mode
from dl4nlp.positional import RotaryAttention, make_positional
from dl4nlp.train import train
from dl4nlp.transformer import TransformerConfig, TransformerEncoder

IGNORE = -100  # target of a position with nothing to predict (F.cross_entropy's default ignore_index)
TAGGER_POSITIONS = ("none", "learned", "sinusoidal", "rope")


@dataclass(frozen=True)
class TaggerConfig:
    """Sizes and switches of a ``Tagger``. ``n_labels`` defaults to ``vocab_size``."""

    vocab_size: int
    n_labels: Optional[int] = None
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 1
    max_len: int = 64
    positional: str = "sinusoidal"  # 'none', 'learned', 'sinusoidal' (added to the embeddings) or 'rope'
    causal: bool = False

    def __post_init__(self) -> None:
        for name in ("vocab_size", "d_model", "n_heads", "n_layers", "max_len"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        labels = self.n_labels
        if labels is not None and (not isinstance(labels, int) or isinstance(labels, bool) or labels < 1):
            raise ValueError(f"n_labels must be a positive integer or None; got {self.n_labels!r}")
        if self.positional not in TAGGER_POSITIONS:
            raise ValueError(f"positional must be one of {TAGGER_POSITIONS}; got {self.positional!r}")
        if self.d_model % self.n_heads or (self.positional == "rope" and (self.d_model // self.n_heads) % 2):
            raise ValueError(
                f"d_model must split into n_heads heads (of even size for 'rope'); "
                f"got d_model={self.d_model}, n_heads={self.n_heads}"
            )
        if not isinstance(self.causal, bool):
            raise TypeError(f"causal must be a bool; got {self.causal!r}")

    @property
    def labels(self) -> int:
        return self.vocab_size if self.n_labels is None else self.n_labels

    def transformer(self) -> TransformerConfig:
        """The ``TransformerConfig`` of the encoder inside (pre-LN, GELU, d_ff = 4 d_model)."""
        return TransformerConfig(
            vocab_size=self.vocab_size,
            d_model=self.d_model,
            n_heads=self.n_heads,
            n_layers=self.n_layers,
            max_len=self.max_len,
            positional="none",
        )


class Tagger(nn.Module):
    """Token embedding + positions -> Transformer encoder -> a label per position; ids (B, T) -> (B, T, labels)."""

    def __init__(self, config: TaggerConfig):
        super().__init__()
        if not isinstance(config, TaggerConfig):
            raise TypeError(f"config must be a TaggerConfig; got {type(config).__name__}")
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        additive = config.positional if config.positional != "rope" else "none"
        self.position = make_positional(additive, config.max_len, config.d_model)
        self.encoder = TransformerEncoder(config.transformer())
        if config.positional == "rope":
            for block in self.encoder.blocks:  # rotate queries and keys inside every attention layer
                block.self_attn = RotaryAttention(config.d_model, config.n_heads)
        self.head = nn.Linear(config.d_model, config.labels)

    def forward(self, ids: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Logits (B, T, labels) for ids (B, T); ``mask`` (bool, broadcast to (B, H, T, T)) limits attention further."""
        if not isinstance(ids, torch.Tensor) or ids.dim() != 2 or 0 in ids.shape:
            raise ValueError(f"ids must be a tensor of shape (B, T) with B, T >= 1; got {_describe(ids)}")
        if ids.dtype not in (torch.int64, torch.int32):
            raise TypeError(f"ids must be an integer tensor; got dtype {ids.dtype}")
        if ids.numel() and (ids.min() < 0 or ids.max() >= self.config.vocab_size):
            raise ValueError(
                f"ids must lie in [0, {self.config.vocab_size - 1}]; got values from {ids.min()} to {ids.max()}"
            )
        if ids.shape[1] > self.config.max_len:
            raise ValueError(f"ids: sequence length {ids.shape[1]} exceeds max_len={self.config.max_len}")
        x = self.position(self.embedding(ids))  # (B, T, C)
        return self.head(self.encoder(x, mask=mask, causal=self.config.causal))  # (B, T, labels)

    def attention_weights(self) -> list[Optional[torch.Tensor]]:
        """Each layer's attention weights (B, H, T, T) from the last forward pass."""
        return self.encoder.attention_weights()


def _describe(value) -> str:
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    return type(value).__name__


# --- tasks: (ids, targets), both (B, T) ---------------------------------------------------------
def _random_ids(batch_size: int, length: int, vocab_size: int, generator: torch.Generator) -> torch.Tensor:
    for name, value in (("batch_size", batch_size), ("length", length), ("vocab_size", vocab_size)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator; got {type(generator).__name__}")
    return torch.randint(0, vocab_size, (batch_size, length), generator=generator)


def previous_token_batch(
    batch_size: int, length: int, vocab_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random ids and, at every position t >= 1, the id at t - 1 (position 0: ``IGNORE``)."""
    ids = _random_ids(batch_size, length, vocab_size, generator)
    targets = ids.roll(1, dims=1)
    targets[:, 0] = IGNORE
    return ids, targets


def reversal_batch(
    batch_size: int, length: int, vocab_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random ids and the same string reversed: position t must output the id at T - 1 - t."""
    ids = _random_ids(batch_size, length, vocab_size, generator)
    return ids, ids.flip(1)


def position_batch(
    batch_size: int, length: int, vocab_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """A start symbol (id 0) then random ids from 1..V-1; at every position t >= 1 the label t (position 0: ``IGNORE``).

    The model must know where each token is. The start symbol plays the part of
    a language model's beginning-of-text token.
    """
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool) or vocab_size < 2:
        raise ValueError(f"vocab_size must be an integer >= 2 (id 0 is the start symbol); got {vocab_size!r}")
    ids = _random_ids(batch_size, length, vocab_size - 1, generator) + 1
    ids[:, 0] = 0
    targets = torch.arange(length).expand(batch_size, length).clone()
    targets[:, 0] = IGNORE
    return ids, targets


TASKS: dict[str, Callable[..., tuple[torch.Tensor, torch.Tensor]]] = {
    "previous": previous_token_batch,
    "reverse": reversal_batch,
    "position": position_batch,
}


def _check_targets(ids: torch.Tensor, targets: torch.Tensor, name: str = "targets") -> None:
    if not isinstance(targets, torch.Tensor) or targets.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"{name} must be an integer tensor of the shape of ids; got {_describe(targets)}")
    if not isinstance(ids, torch.Tensor) or targets.shape != ids.shape:
        raise ValueError(f"{name} must have the shape of ids, {_describe(ids)}; got {_describe(targets)}")


def tagging_loss(model: nn.Module, batch: tuple[torch.Tensor, torch.Tensor]) -> torch.Tensor:
    """Mean cross-entropy over every position whose target is not ``IGNORE``."""
    if not isinstance(batch, (tuple, list)) or len(batch) != 2:
        raise ValueError(f"batch must be a pair (ids, targets); got {type(batch).__name__}")
    ids, targets = batch
    _check_targets(ids, targets, name="batch: targets")
    scored = targets != IGNORE
    n_labels = model.config.labels if isinstance(model, Tagger) else None
    outside = scored & (targets < 0) if n_labels is None else scored & ((targets < 0) | (targets >= n_labels))
    if bool(outside.any()):
        bound = "..." if n_labels is None else f"n_labels={n_labels}"
        raise ValueError(f"batch: targets must be in [0, {bound}) or IGNORE ({IGNORE}); got {int(targets[outside][0])}")
    if not bool(scored.any()):
        raise ValueError(f"batch: targets must hold at least one target to learn from; got every one IGNORE ({IGNORE})")
    logits = model(ids.to(next(model.parameters(), ids).device))  # (B, T, labels), on the model's device
    return F.cross_entropy(logits.flatten(0, 1), targets.to(logits.device).flatten(), ignore_index=IGNORE)


@torch.no_grad()
@measures_in_eval_mode
def accuracy_by_position(model: nn.Module, ids: torch.Tensor, targets: torch.Tensor, **kwargs) -> torch.Tensor:
    """Fraction right at each position (T,), NaN where every target is ``IGNORE``; kwargs go to the model."""
    _check_targets(ids, targets)
    device = next(model.parameters(), ids).device  # the model's device: ids and tensor kwargs (a mask) go there
    kwargs = {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    predictions = model(ids.to(device), **kwargs).argmax(-1).cpu()  # (B, T)
    targets = targets.cpu()
    scored = targets != IGNORE
    right = ((predictions == targets) & scored).sum(0).double()
    return right / scored.sum(0).double()  # 0 / 0 = NaN where nothing is scored


# --- the best a model blind to order can do ---------------------------------------------------------
def _partitions(n: int, parts: int, largest: int):
    """Every way of writing n as at most ``parts`` positive integers, largest first, none above ``largest``."""
    if n == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(min(n, largest), 0, -1):
        for rest in _partitions(n - first, parts - 1, first):
            yield (first,) + rest


@lru_cache(maxsize=64)
def bag_of_words_ceiling(length: int, vocab_size: int) -> float:
    """Best expected accuracy on the previous-token task (positions 1..T-1) without any order information.

    A model that cannot see order (a Transformer encoder without positions) sees
    at position t only its own token a and the multiset of the sequence, with
    counts c. Given those, every arrangement is equally likely, so the token
    before an a is b with probability c_b' / (T - 1), where c_b' = c_b - [b = a]:
    the best guess is the most frequent other token. Summed over the positions
    that hold each a, the expected number right is sum_a c_a max_b c_b' / T out
    of T - 1 positions. This averages that over the multinomial distribution of
    the counts exactly, by enumerating the shapes of the counts (partitions of T).
    """
    for name, value in (("length", length), ("vocab_size", vocab_size)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    if length < 2:
        raise ValueError(f"length must be at least 2 (position 0 has nothing before it); got {length}")
    total = 0.0
    log_sequences = length * math.log(vocab_size)
    for shape in _partitions(length, vocab_size, length):
        # Sequences with these counts: choose which symbols get which count, then arrange the tokens.
        multiplicities: dict[int, int] = {}
        for c in shape:
            multiplicities[c] = multiplicities.get(c, 0) + 1
        log_symbols = math.lgamma(vocab_size + 1) - math.lgamma(vocab_size - len(shape) + 1)
        log_symbols -= sum(math.lgamma(m + 1) for m in multiplicities.values())
        log_arrangements = math.lgamma(length + 1) - sum(math.lgamma(c + 1) for c in shape)
        probability = math.exp(log_symbols + log_arrangements - log_sequences)
        first, second = shape[0], shape[1] if len(shape) > 1 else 0
        right = sum(c * (max(first - 1, second) if i == 0 else first) for i, c in enumerate(shape))
        total += probability * right / length
    return total / (length - 1)


# --- training: one recipe for every tagger of notebooks 08 and 09 ---------------------------------
@dataclass(frozen=True)
class Training:
    """How a tagger is trained: the task, the lengths of its training sequences, the schedule."""

    task: str = "previous"  # a key of TASKS
    min_length: int = 8
    max_length: int = 16
    steps: int = 150
    batch_size: int = 64
    lr: float = 1e-2

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise ValueError(f"task must be one of {tuple(TASKS)}; got {self.task!r}")
        for name in ("min_length", "max_length", "steps", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if self.min_length > self.max_length:
            raise ValueError(f"min_length must be at most max_length={self.max_length}; got {self.min_length}")
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not 0 < self.lr < float("inf"):
            raise ValueError(f"lr must be a positive number; got {self.lr!r}")


def train_tagger(config: TaggerConfig, training: Training, seed: int, progress: bool = False) -> tuple[Tagger, list]:
    """A ``Tagger(config)`` with weights from ``torch.manual_seed(seed)``, trained as ``training`` says.

    Each step draws one length uniformly from [min_length, max_length] and a
    batch of fresh random sequences from a generator seeded with ``seed``, so
    a run is reproducible on the CPU. Returns the model (in eval mode) and its
    training losses.
    """
    if not isinstance(config, TaggerConfig):
        raise TypeError(f"config must be a TaggerConfig; got {type(config).__name__}")
    if not isinstance(training, Training):
        raise TypeError(f"training must be a Training; got {type(training).__name__}")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    if training.max_length > config.max_len:
        raise ValueError(f"training.max_length={training.max_length} exceeds config.max_len={config.max_len}")
    torch.manual_seed(seed)
    model = Tagger(config)
    generator = torch.Generator().manual_seed(seed)
    task = TASKS[training.task]

    def next_batch(step: int) -> tuple[torch.Tensor, torch.Tensor]:
        length = int(torch.randint(training.min_length, training.max_length + 1, (1,), generator=generator))
        return task(training.batch_size, length, config.vocab_size, generator)

    history = train(
        model, tagging_loss, next_batch, steps=training.steps, lr=training.lr, progress=progress, desc=training.task
    )
    return model.eval(), history.loss
