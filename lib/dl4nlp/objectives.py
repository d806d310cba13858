"""Pre-training objectives side by side: what the model reads, what it must predict, where the loss is.

Each function turns one sequence of token ids into the training example of
one objective, a ``TrainingExample``:

- ``masked_lm`` (BERT, an encoder): 15 % of the tokens chosen, 80/10/10
  corrupted; loss at the chosen positions only.
- ``causal_lm`` (GPT, a decoder, notebook 10): read ``x_1 .. x_{T-1}``, predict
  ``x_2 .. x_T``; loss everywhere.
- ``span_corruption`` (T5, an encoder-decoder): spans covering 15 % of the
  tokens (mean length 3) each replaced by a sentinel; the decoder writes
  ``<X> span <Y> span ... <Z>``; loss on every decoder position.
- ``text_infilling`` (BART, an encoder-decoder): spans of Poisson(3) length
  covering 30 % of the tokens each replaced by one ``[MASK]``; the decoder
  writes the whole original; loss everywhere.
- ``replaced_token_detection`` (ELECTRA, an encoder): a small masked LM fills
  the masked positions by sampling; the discriminator reads the result and
  says, at every position, whether the token was replaced; loss everywhere.

T5's sentinels are extra ids above the vocabulary (``vocab_size``,
``vocab_size + 1``, ...), as in T5's own vocabulary. Taught in notebook 13.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import torch

from dl4nlp._checks import check_ids_list, check_int, check_number, check_type, given
from dl4nlp.bert import MASK_PROB, Bert, mask_tokens

T5_NOISE_DENSITY = 0.15  # Raffel et al. (2020): 15 % of the tokens, in spans of mean length 3
T5_MEAN_SPAN = 3.0
BART_MASK_RATIO = 0.3  # Lewis et al. (2020): 30 % of the tokens, span lengths drawn from Poisson(3)
BART_POISSON_LAMBDA = 3.0


@dataclass(frozen=True)
class TrainingExample:
    """One training example of an objective.

    ``inputs`` is what the encoder (or the decoder-only model) reads;
    ``decoder_inputs`` what an encoder-decoder's decoder reads (the targets
    shifted right, after a start symbol), else None; ``targets[i]`` is what
    output position ``i`` must predict and ``loss[i]`` whether it counts.
    """

    objective: str
    family: str  # 'encoder', 'decoder' or 'encoder-decoder'
    inputs: list[int]
    targets: list[int]
    loss: list[bool]
    decoder_inputs: Optional[list[int]] = None

    @property
    def predicted(self) -> int:
        """How many positions carry loss."""
        return sum(self.loss)


def _ids(ids: Sequence[int], vocab_size: Optional[int] = None) -> list[int]:
    ids = check_ids_list("ids", ids, vocab_size)
    if len(ids) < 2:
        raise ValueError(f"ids must be a sequence of at least 2 ids; got {ids}")
    return ids


def _check_vocab(vocab: Any) -> int:
    """A tokenizer vocabulary with [MASK], ``special_ids`` and a length (a ``WordPiece``); its size."""
    if not (hasattr(vocab, "special_ids") and hasattr(vocab, "__getitem__") and hasattr(vocab, "__len__")):
        raise TypeError(f"vocab must be a WordPiece (with [MASK] and special_ids); got {given(vocab)}")
    return len(vocab)


def _check_rng(name: str, rng: Any, kind: type) -> None:
    what = "a torch.Generator" if kind is torch.Generator else "a random.Random"
    check_type(name, rng, kind, f"{what} (for reproducible draws)")


def masked_lm(
    ids: Sequence[int], vocab: Any, generator: torch.Generator, mask_prob: float = MASK_PROB
) -> TrainingExample:
    """BERT: ``dl4nlp.bert.mask_tokens`` on one sequence; the targets are the original tokens."""
    ids = _ids(ids, _check_vocab(vocab))
    _check_rng("generator", generator, torch.Generator)
    check_number("mask_prob", mask_prob, 0, 1, low_open=True)  # 0 would leave nothing to predict
    out = mask_tokens(
        torch.tensor([ids]), mask_id=vocab["[MASK]"], special_ids=vocab.special_ids, vocab_size=len(vocab),
        mask_prob=mask_prob, generator=generator,
    )  # fmt: skip
    return TrainingExample("masked LM", "encoder", out.input_ids[0].tolist(), ids, out.chosen[0].tolist())


def causal_lm(ids: Sequence[int]) -> TrainingExample:
    """GPT: read every token but the last, predict every token but the first.

    >>> example = causal_lm([5, 6, 7, 8])
    >>> example.inputs, example.targets, example.predicted
    ([5, 6, 7], [6, 7, 8], 3)
    """
    ids = _ids(ids)
    return TrainingExample("causal LM", "decoder", ids[:-1], ids[1:], [True] * (len(ids) - 1))


def noise_spans(length: int, noise_density: float, mean_span: float, rng: random.Random) -> list[bool]:
    """T5's ``random_spans_noise_mask``: round(length × density) noise tokens in round(noise / mean_span) spans.

    Noise and non-noise spans alternate, starting with non-noise; every
    segmentation with those counts is equally likely.
    """
    check_int("length", length, low=2)
    check_number("noise_density", noise_density, 0, 1, low_open=True, high_open=True)
    check_number("mean_span", mean_span, 1)
    _check_rng("rng", rng, random.Random)
    noise = min(max(round(length * noise_density), 1), length - 1)
    spans = max(round(noise / mean_span), 1)
    spans = min(spans, noise, length - noise)

    def segment(items: int) -> list[int]:  # a random split of ``items`` into ``spans`` non-empty parts
        cuts = sorted(rng.sample(range(1, items), spans - 1))
        return [b - a for a, b in zip([0, *cuts], [*cuts, items])]

    mask = []
    for keep, drop in zip(segment(length - noise), segment(noise)):
        mask += [False] * keep + [True] * drop
    return mask


def span_corruption(
    ids: Sequence[int],
    vocab_size: int,
    rng: random.Random,
    noise_density: float = T5_NOISE_DENSITY,
    mean_span: float = T5_MEAN_SPAN,
    start_id: int = 0,
) -> TrainingExample:
    """T5: each noise span becomes one sentinel (ids ``vocab_size``, ``vocab_size + 1``, ...) in the input.

    The targets are every sentinel followed by the span it replaced, and a
    final sentinel; the decoder reads them shifted right after ``start_id``.
    """
    check_int("vocab_size", vocab_size)
    check_int("start_id", start_id, low=0)
    ids = _ids(ids, vocab_size)  # ids at or above vocab_size would be taken for sentinels
    mask = noise_spans(len(ids), noise_density, mean_span, rng)
    inputs, targets, sentinel = [], [], vocab_size
    for i, (token, noisy) in enumerate(zip(ids, mask)):
        starts = noisy and (i == 0 or not mask[i - 1])
        if starts:
            inputs.append(sentinel)
            targets.append(sentinel)
            sentinel += 1
        if noisy:
            targets.append(token)
        else:
            inputs.append(token)
    targets.append(sentinel)
    return TrainingExample(
        "span corruption", "encoder-decoder", inputs, targets, [True] * len(targets), [start_id] + targets[:-1]
    )


def text_infilling(
    ids: Sequence[int],
    mask_id: int,
    rng: random.Random,
    mask_ratio: float = BART_MASK_RATIO,
    poisson_lambda: float = BART_POISSON_LAMBDA,
    start_id: int = 0,
) -> TrainingExample:
    """BART: spans of Poisson(``poisson_lambda``) length, covering ``mask_ratio`` of the tokens, each -> one mask.

    A span of length 0 inserts a mask. The decoder reconstructs the whole
    original sequence (read shifted right after ``start_id``).
    """
    ids = _ids(ids)
    check_int("mask_id", mask_id, low=0)
    check_int("start_id", start_id, low=0)
    _check_rng("rng", rng, random.Random)
    check_number("mask_ratio", mask_ratio, 0, 1, low_open=True, high_open=True)
    check_number("poisson_lambda", poisson_lambda, 0, 50, low_open=True)
    budget = math.ceil(len(ids) * mask_ratio)
    masked, inserted = [False] * len(ids), set()

    def poisson() -> int:  # Knuth's method: enough for a small lambda
        limit, k, p = math.exp(-poisson_lambda), 0, 1.0
        while True:
            p *= rng.random()
            if p <= limit:
                return k
            k += 1

    covered, attempts = 0, 0
    while covered < budget and attempts < 100 * len(ids):
        attempts += 1
        length, start = min(poisson(), budget - covered), rng.randrange(len(ids))
        if length == 0:  # a zero-length span: a mask inserted before this token
            inserted.add(start)
            continue
        span = range(start, min(start + length, len(ids)))
        if any(masked[i] for i in span):
            continue
        for i in span:
            masked[i] = True
        covered += len(span)
    inputs = []
    for i, token in enumerate(ids):
        if i in inserted and not masked[i]:
            inputs.append(mask_id)
        if masked[i]:
            if i == 0 or not masked[i - 1]:
                inputs.append(mask_id)
        else:
            inputs.append(token)
    return TrainingExample("text infilling", "encoder-decoder", inputs, ids, [True] * len(ids), [start_id] + ids[:-1])


@torch.no_grad()
def replaced_token_detection(
    ids: Sequence[int],
    generator_model: Bert,
    vocab: Any,
    generator: torch.Generator,
    mask_prob: float = MASK_PROB,
) -> TrainingExample:
    """ELECTRA: mask, let ``generator_model`` (a masked LM) sample a token at each masked position.

    The discriminator's input is the sequence with those samples; its target
    at every ordinary position is 1 (replaced) where the token differs from
    the original and 0 (original) elsewhere, a sampled token that happens to be
    the original counts as original. Special tokens carry no loss.
    """
    check_type("generator_model", generator_model, Bert, "a dl4nlp.bert.Bert (a small masked LM)")
    size = _check_vocab(vocab)
    if size != generator_model.config.vocab_size:
        raise ValueError(
            f"vocab must have the generator model's vocab_size {generator_model.config.vocab_size}; got {size}"
        )
    ids = _ids(ids, size)
    _check_rng("generator", generator, torch.Generator)
    check_number("mask_prob", mask_prob, 0, 1, low_open=True)  # 0 would leave nothing to predict
    x = torch.tensor([ids])
    out = mask_tokens(
        x, mask_id=vocab["[MASK]"], special_ids=vocab.special_ids, vocab_size=len(vocab), mask_prob=mask_prob,
        mask_token_prob=1.0, random_token_prob=0.0, keep_prob=0.0, generator=generator,
    )  # fmt: skip
    corrupted = x.clone()
    if out.chosen.any():
        generator_model.eval()
        device = next(generator_model.parameters()).device  # the model may sit on a GPU; the rest stays on the CPU
        hidden = generator_model(out.input_ids.to(device))  # (1, T, C)
        logits = generator_model.mlm_logits(hidden, out.chosen.to(device)).float().cpu()  # (N, V)
        # sampled on the CPU with the caller's CPU generator: the same draws on every device
        samples = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator)[:, 0]
        corrupted[out.chosen] = samples
    ordinary = ~torch.isin(x, torch.tensor(vocab.special_ids))
    replaced = (corrupted != x).long()
    return TrainingExample(
        "replaced token detection", "encoder", corrupted[0].tolist(), replaced[0].tolist(), ordinary[0].tolist()
    )
