"""BERT: masked-language-model corruption, next-sentence pairs, and a BERT around ``TransformerEncoder``.

Masking (Devlin et al., 2019): choose ``MASK_PROB`` = 15 % of the ordinary
tokens (never a special token, never padding); of the chosen ones
``MASK_TOKEN_PROB`` = 80 % become [MASK], ``RANDOM_TOKEN_PROB`` = 10 % a random
token and ``KEEP_PROB`` = 10 % stay as they are. The loss is computed on the
chosen positions only (labels elsewhere are ``IGNORE_INDEX``).

``Bert`` = token + segment + position embeddings (summed, then LayerNorm) ->
``dl4nlp.transformer.TransformerEncoder`` -> an MLM head (tied to the token
embedding) and an NSP head on the pooled [CLS] vector. ``bert_config('base')``
and ``bert_config('large')`` give the published sizes. Pre-training data and
the loop live in ``dl4nlp.bert_pretrain``; ``load_pretrained`` loads the tiny
BERT that ``python -m dl4nlp.recipes.tiny_bert`` trained. Taught in notebook 13.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import (
    check_device,
    check_file,
    check_ids,
    check_ids_list,
    check_int,
    check_number,
    check_same_dtype,
    check_sequence,
    check_tensor,
    check_type,
    within_model,
)
from dl4nlp.checkpoint import PathLike, load_checkpoint
from dl4nlp.data import data_path
from dl4nlp.positional import make_positional
from dl4nlp.transformer import TransformerConfig, TransformerEncoder, _init_weights, count_parameters
from dl4nlp.wordpiece import WordPiece

MASK_PROB = 0.15  # share of ordinary tokens chosen for prediction
MASK_TOKEN_PROB = 0.8  # ... of those, replaced by [MASK]
RANDOM_TOKEN_PROB = 0.1  # ... replaced by a random ordinary token
KEEP_PROB = 0.1  # ... left unchanged
IGNORE_INDEX = -100  # label of a position that is not predicted (F.cross_entropy's default)

# What happened to each position, as recorded in ``MaskedTokens.action``.
UNCHOSEN, MASKED, RANDOMIZED, KEPT = 0, 1, 2, 3

SIZES = {  # the published BERT sizes (Devlin et al., 2019, section 3)
    "base": dict(vocab_size=30522, d_model=768, n_heads=12, n_layers=12),
    "large": dict(vocab_size=30522, d_model=1024, n_heads=16, n_layers=24),
}


@dataclass
class MaskedTokens:
    """The corrupted input, the labels, which positions were chosen, and what was done to each."""

    input_ids: torch.Tensor  # (B, T) what the model sees
    labels: torch.Tensor  # (B, T) the original id where chosen, IGNORE_INDEX elsewhere
    chosen: torch.Tensor  # (B, T) bool
    action: torch.Tensor  # (B, T) UNCHOSEN, MASKED, RANDOMIZED or KEPT


def mask_tokens(
    ids: torch.Tensor,
    *,
    mask_id: int,
    special_ids: Sequence[int],
    vocab_size: int,
    mask_prob: float = MASK_PROB,
    mask_token_prob: float = MASK_TOKEN_PROB,
    random_token_prob: float = RANDOM_TOKEN_PROB,
    keep_prob: float = KEEP_PROB,
    generator: Optional[torch.Generator] = None,
    word_start: Optional[torch.Tensor] = None,
) -> MaskedTokens:
    """BERT's corruption of token ids (B, T): each ordinary token is chosen with probability ``mask_prob``.

    A chosen token becomes ``mask_id`` with probability ``mask_token_prob``, a
    uniformly drawn ordinary (non-special) token with ``random_token_prob``, or
    stays with ``keep_prob``; the three must sum to one. Special ids (padding
    included) are never chosen, nor drawn as a random replacement (Hugging
    Face's ``DataCollatorForLanguageModeling`` draws from the whole vocabulary).

    ``word_start`` (B, T) bool turns on *whole-word masking*: a word (a piece
    where ``word_start`` is True and the ``##`` pieces after it) is chosen as a
    whole, with probability ``mask_prob``; each of its pieces is then
    corrupted 80/10/10 on its own.
    """
    check_int("vocab_size", vocab_size)
    check_ids("ids", ids, vocab_size, bound="vocab_size", shape=("B", "T"))
    special_ids = check_ids_list("special_ids", special_ids, vocab_size)
    check_int("mask_id", mask_id, low=0, high=vocab_size - 1)
    if mask_id not in special_ids:
        raise ValueError(f"mask_id must be one of special_ids {list(special_ids)}; got {mask_id}")
    check_number("mask_prob", mask_prob, 0.0, 1.0)
    shares = dict(mask_token_prob=mask_token_prob, random_token_prob=random_token_prob, keep_prob=keep_prob)
    for name, share in shares.items():
        check_number(name, share, 0.0, 1.0)
    if not math.isclose(sum(shares.values()), 1.0, abs_tol=1e-9):
        raise ValueError(
            f"mask_token_prob + random_token_prob + keep_prob must be 1 with each >= 0; "
            f"got {mask_token_prob} + {random_token_prob} + {keep_prob} = {sum(shares.values())}"
        )
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    special = torch.tensor(sorted(set(special_ids)), device=ids.device)
    ordinary_ids = torch.arange(vocab_size, device=ids.device)
    ordinary_ids = ordinary_ids[~torch.isin(ordinary_ids, special)]  # what a random replacement may be
    if len(ordinary_ids) == 0:
        raise ValueError(f"vocab_size={vocab_size} leaves no ordinary token besides special_ids {list(special_ids)}")

    def uniform() -> torch.Tensor:  # (B, T) draws in [0, 1), from ``generator`` when given
        where = generator.device if generator is not None else ids.device
        return torch.rand(ids.shape, generator=generator, device=where).to(ids.device)

    eligible = ~torch.isin(ids, special)  # (B, T): never a special token or padding
    pick = uniform()  # (B, T): a token is chosen when its draw is below mask_prob
    if word_start is not None:
        if word_start.shape != ids.shape or word_start.dtype != torch.bool:
            raise ValueError(
                f"word_start must be a bool tensor of shape {tuple(ids.shape)}; "
                f"got {word_start.dtype} of shape {tuple(word_start.shape)}"
            )
        starts = word_start.to(ids.device) | ~eligible  # a special token ends the word before it
        positions = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)
        first = torch.where(starts, positions, torch.zeros_like(positions)).cummax(dim=1).values  # (B, T)
        pick = pick.gather(1, first)  # every piece of a word shares its first piece's draw
    chosen = eligible & (pick < mask_prob)
    draw = uniform()  # a second draw decides what happens to a chosen token
    masked = chosen & (draw < mask_token_prob)
    randomized = chosen & (draw >= mask_token_prob) & (draw < mask_token_prob + random_token_prob)
    kept = chosen & ~masked & ~randomized
    random_index = (uniform() * len(ordinary_ids)).long().clamp_max(len(ordinary_ids) - 1)
    corrupted = torch.where(masked, torch.full_like(ids, mask_id), ids)
    corrupted = torch.where(randomized, ordinary_ids[random_index], corrupted)
    action = torch.full_like(ids, UNCHOSEN)
    action[masked], action[randomized], action[kept] = MASKED, RANDOMIZED, KEPT
    labels = torch.where(chosen, ids, torch.full_like(ids, IGNORE_INDEX))
    return MaskedTokens(corrupted, labels, chosen, action)


def binomial_interval(trials: int, p: float, z: float = 4.0) -> tuple[float, float]:
    """The counts within ``z`` standard deviations of the mean of a Binomial(``trials``, ``p``).

    ``z = 4`` keeps a correct sampler's count inside with probability about
    0.99994 (normal approximation), so a count outside is evidence of a bug.

    >>> [round(bound) for bound in binomial_interval(10_000, 0.15)]
    [1357, 1643]
    """
    check_int("trials", trials, low=0)
    check_number("p", p, 0, 1)
    check_number("z", z, 0, low_open=True)
    half = z * math.sqrt(trials * p * (1 - p))
    return trials * p - half, trials * p + half


def pair_inputs(a: Sequence, b: Sequence, cls="[CLS]", sep="[SEP]") -> tuple[list, list[int], list[int]]:
    """BERT's input for a pair of segments: ``[CLS] a [SEP] b [SEP]``, segment ids and positions.

    >>> pair_inputs(["my", "dog"], ["he"])
    (['[CLS]', 'my', 'dog', '[SEP]', 'he', '[SEP]'], [0, 0, 0, 0, 1, 1], [0, 1, 2, 3, 4, 5])

    Works for token strings or ids (pass the ids of [CLS] and [SEP]); ``a`` and
    ``b`` are lists (a string would be read one character at a time).
    """
    a = check_sequence("a", a, nonempty=False, what="a list of tokens or ids")
    b = check_sequence("b", b, nonempty=False, what="a list of tokens or ids")
    tokens = [cls, *a, sep, *b, sep]
    segments = [0] * (len(a) + 2) + [1] * (len(b) + 1)
    return tokens, segments, list(range(len(tokens)))


def bert_config(size: str = "base", **overrides) -> TransformerConfig:
    """A ``TransformerConfig`` shaped like BERT: post-LN, GELU, learned positions (512), d_ff = 4 d_model.

    ``size`` is ``'base'`` (12 layers, 768 hidden, 12 heads) or ``'large'``
    (24, 1024, 16), both with the 30,522-piece WordPiece vocabulary; keyword
    ``overrides`` change any field (a tiny model: ``bert_config('base', d_model=128, ...)``).
    """
    if size not in SIZES:
        raise ValueError(f"size must be one of {tuple(SIZES)}; got {size!r}")
    known = {f.name for f in dataclasses.fields(TransformerConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(f"overrides must be fields of TransformerConfig {sorted(known)}; got {unknown}")
    fields = dict(max_len=512, norm_first=False, positional="learned", layer_norm_eps=1e-12, tie_weights=True)
    fields.update(SIZES[size])
    fields.update(overrides)
    return TransformerConfig(**fields)


class Bert(nn.Module):
    """BERT for pre-training: ids (B, T), segments (B, T), valid (B, T) -> hidden states (B, T, C).

    ``mlm_logits(hidden, chosen)`` scores the vocabulary at the chosen
    positions only (N, V); ``nsp_logits(hidden)`` scores IsNext / NotNext from
    the pooled [CLS] vector (B, 2). ``type_vocab_size`` segments (A and B).
    """

    def __init__(self, config: TransformerConfig, type_vocab_size: int = 2):
        super().__init__()
        check_type("config", config, TransformerConfig, "a TransformerConfig")
        check_int("type_vocab_size", type_vocab_size)
        C = config.d_model
        self.config = config
        self.token_embedding = nn.Embedding(config.vocab_size, C)
        self.segment_embedding = nn.Embedding(type_vocab_size, C)
        self.position = make_positional(config.positional, config.max_len, C)
        self.embedding_norm = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.dropout)
        self.encoder = TransformerEncoder(config)
        self.pooler = nn.Linear(C, C)  # tanh(W h_[CLS] + b), BERT's sentence vector
        self.nsp_head = nn.Linear(C, 2)
        self.mlm_transform = nn.Linear(C, C)
        self.mlm_norm = nn.LayerNorm(C, eps=config.layer_norm_eps)
        self.mlm_decoder = nn.Linear(C, config.vocab_size)
        self.apply(_init_weights)
        if config.tie_weights:
            self.mlm_decoder.weight = self.token_embedding.weight

    def embed(self, ids: torch.Tensor, segments: Optional[torch.Tensor] = None) -> torch.Tensor:
        """LayerNorm(token + segment + position embeddings): (B, T) -> (B, T, C)."""
        check_ids("ids", ids, self.config.vocab_size, shape=("B", "T"))
        if self.config.positional != "none" and ids.shape[1] > self.config.max_len:
            raise ValueError(
                f"ids must have at most max_len={self.config.max_len} positions; got shape {tuple(ids.shape)}"
            )
        segments = torch.zeros_like(ids) if segments is None else segments
        check_ids("segments", segments, self.segment_embedding.num_embeddings, shape=tuple(ids.shape))
        x = self.position(self.token_embedding(ids) + self.segment_embedding(segments))  # (B, T, C)
        return self.dropout(self.embedding_norm(x))

    def forward(
        self, ids: torch.Tensor, segments: Optional[torch.Tensor] = None, valid: Optional[torch.Tensor] = None
    ) -> torch.Tensor:
        """Hidden states (B, T, C); ``valid`` (B, T) bool is False at padding, which no token attends to."""
        check_ids("ids", ids, self.config.vocab_size, shape=("B", "T"))
        if valid is not None:
            check_tensor("valid", valid, dtype="bool", shape=tuple(ids.shape))
            empty = ~valid.any(dim=1)
            if bool(empty.any()):  # a row of padding only: a mask of the other polarity (True = padding)?
                raise ValueError(
                    f"valid must be True on each row's real tokens and False on padding; got a row with no True "
                    f"(row {int(empty.nonzero()[0])}: a mask of the other polarity, True = padding?)"
                )
        mask = None if valid is None else valid[:, None, None, :]  # (B, 1, 1, T): keys that may be attended
        with within_model():  # a diverging run's inf reaches the loss, not a finiteness error
            return self.encoder(self.embed(ids, segments), mask=mask)

    def _check_hidden(self, hidden: torch.Tensor) -> None:
        check_tensor("hidden", hidden, shape=("B", "T", self.config.d_model), dtype="float", finite=True)
        check_same_dtype("hidden", hidden, self)

    def mlm_logits(self, hidden: torch.Tensor, chosen: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Vocabulary scores (N, V) at the ``chosen`` (B, T) bool positions, or (B, T, V) everywhere."""
        self._check_hidden(hidden)
        if chosen is not None:
            check_tensor("chosen", chosen, dtype="bool", shape=tuple(hidden.shape[:2]), nonempty=False)
        h = hidden[chosen] if chosen is not None else hidden  # (N, C)
        return self.mlm_decoder(self.mlm_norm(F.gelu(self.mlm_transform(h))))

    def nsp_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """(B, 2) scores of NotNext (0) and IsNext (1) from the [CLS] position."""
        self._check_hidden(hidden)
        return self.nsp_head(torch.tanh(self.pooler(hidden[:, 0])))


def _check_batch(model: Bert, batch: dict, nsp: bool) -> None:
    check_type("batch", batch, dict, "a dict of tensors (input_ids, segments, valid, labels, is_next)")
    needed = ("input_ids", "segments", "valid", "labels") + (("is_next",) if nsp else ())
    missing = [key for key in needed if key not in batch]
    if missing:
        raise ValueError(f"batch must hold {list(needed)}; missing {missing}")
    shape = tuple(getattr(batch["input_ids"], "shape", ()))
    labels = check_tensor("batch['labels']", batch["labels"], dtype="integer", shape=shape or ("B", "T"))
    V = model.config.vocab_size
    bad = labels[(labels != IGNORE_INDEX) & ((labels < 0) | (labels >= V))]
    if len(bad):
        raise ValueError(f"batch['labels'] must hold ids in [0, {V}) or IGNORE_INDEX={IGNORE_INDEX}; got {bad[0]}")
    if nsp:
        is_next = check_tensor("batch['is_next']", batch["is_next"], dtype="integer", shape=shape[:1] or ("B",))
        if ((is_next != 0) & (is_next != 1)).any():
            raise ValueError(f"batch['is_next'] must hold 0 (NotNext) or 1 (IsNext); got {is_next.tolist()}")


def pretraining_loss(model: Bert, batch: dict, nsp_weight: float = 1.0) -> tuple[torch.Tensor, dict]:
    """MLM cross-entropy on the chosen positions (+ ``nsp_weight`` × NSP cross-entropy) and accuracies.

    ``batch`` holds ``input_ids``, ``segments``, ``valid``, ``labels`` (B, T)
    and ``is_next`` (B,). Returns the loss and a dict of floats for logging.
    """
    check_type("model", model, Bert, "a Bert")
    nsp_weight = check_number("nsp_weight", nsp_weight, 0.0)
    _check_batch(model, batch, nsp=bool(nsp_weight))
    hidden = model(batch["input_ids"], batch["segments"], batch["valid"])
    chosen = batch["labels"] != IGNORE_INDEX  # (B, T)
    logits = model.mlm_logits(hidden, chosen)  # (N, V)
    targets = batch["labels"][chosen]  # (N,)
    mlm = F.cross_entropy(logits, targets) if len(targets) else hidden.sum() * 0.0
    stats = {"mlm_loss": mlm.item(), "mlm_accuracy": (logits.argmax(-1) == targets).float().mean().item()}
    loss = mlm
    if nsp_weight:
        nsp_logits = model.nsp_logits(hidden)
        nsp = F.cross_entropy(nsp_logits, batch["is_next"])
        stats.update(
            nsp_loss=nsp.item(), nsp_accuracy=(nsp_logits.argmax(-1) == batch["is_next"]).float().mean().item()
        )
        loss = loss + nsp_weight * nsp
    return loss, stats


def parameter_breakdown(model: Bert) -> dict[str, int]:
    """Parameters per component (tied weights counted once, where they first appear); sums to the total."""
    check_type("model", model, Bert, "a Bert")
    groups = {
        "token embeddings": [model.token_embedding],
        "position embeddings": [model.position],
        "segment embeddings": [model.segment_embedding],
        "embedding LayerNorm": [model.embedding_norm],
        "self-attention (all layers)": [b.self_attn for b in model.encoder.blocks],
        "feed-forward (all layers)": [m for b in model.encoder.blocks for m in (b.linear1, b.linear2)],
        "LayerNorms (all layers)": [m for b in model.encoder.blocks for m in (b.norm1, b.norm2)]
        + [model.encoder.final_norm],
        "pooler": [model.pooler],
        "MLM head (transform, LayerNorm, bias)": [model.mlm_transform, model.mlm_norm, model.mlm_decoder],
        "NSP head": [model.nsp_head],
    }
    seen, out = set(), {}
    for name, modules in groups.items():
        total = 0
        for module in modules:
            for p in module.parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    total += p.numel()
        out[name] = total
    if sum(out.values()) != count_parameters(model):
        raise RuntimeError(f"the groups hold {sum(out.values())} parameters; expected all {count_parameters(model)}")
    return out


CHECKPOINT_KIND = "tiny_bert"
SHIPPED = "tiny_bert.pt"  # in data/, made by ``python -m dl4nlp.recipes.tiny_bert``


def checkpoint_state(model: Bert) -> dict[str, torch.Tensor]:
    """The weights to ship: float16, the MLM output weight left out when it is tied to the token embedding."""
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    return {
        k: v.detach().to("cpu", torch.float16)
        for k, v in model.state_dict().items()
        if not (model.config.tie_weights and k == "mlm_decoder.weight")
    }


def load_pretrained(path: Optional[PathLike] = None, device: Optional[torch.device] = None) -> tuple[Bert, WordPiece]:
    """The pre-trained tiny BERT (float32, eval mode) and its WordPiece tokenizer, checksum verified.

    ``path`` defaults to the shipped ``data/tiny_bert.pt``; any other kind of
    checkpoint, or a damaged file, is refused with a message naming it.
    """
    device = torch.device("cpu") if device is None else check_device("device", device, available=True)
    checkpoint = load_checkpoint(data_path(SHIPPED) if path is None else check_file("path", path), kind=CHECKPOINT_KIND)
    model = Bert(TransformerConfig(**checkpoint.config))
    state = {k: v.float() for k, v in checkpoint.state_dict.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or set(missing) - {"mlm_decoder.weight"}:
        raise ValueError(f"{checkpoint.path} does not match the model: missing {missing}, unexpected {unexpected}")
    extra = checkpoint.extra
    tokenizer = WordPiece(
        extra["tokens"], specials=extra["specials"], continuation=extra["continuation"], lowercase=extra["lowercase"]
    )
    return model.to(device).eval(), tokenizer
