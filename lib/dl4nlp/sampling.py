"""Choosing the next token: greedy, temperature, top-k and nucleus (top-p) sampling; generation; perplexity.

A language model gives logits z over the vocabulary. Decoding turns them into
one token:

- greedy: argmax z (deterministic; prone to loops, notebook 10 shows why);
- temperature τ: sample from softmax(z / τ); τ → 0 is greedy, τ = 1 the model's
  own distribution, τ > 1 flatter;
- top-k (Fan et al., 2018): keep the k most probable tokens, renormalise, sample;
- nucleus / top-p (Holtzman et al., 2020): keep the smallest set of most probable
  tokens whose probabilities sum to at least p, renormalise, sample.

``next_token_probabilities`` returns the distribution each rule samples from,
so the rules can be tested and plotted; ``generate`` runs a model with them,
using the KV cache by default. Taught in notebook 10.

>>> logits = torch.tensor([2.0, 1.0, 0.0, -1.0])
>>> next_token_probabilities(logits, top_k=2).tolist()                    # two kept, renormalised
[0.7310585975646973, 0.2689414322376251, 0.0, 0.0]
>>> next_token_probabilities(logits, temperature=0).tolist()              # greedy
[1.0, 0.0, 0.0, 0.0]
>>> (next_token_probabilities(logits, top_p=0.9) > 0).tolist()            # 0.64 + 0.24 < 0.9: three kept
[True, True, True, False]
"""

from __future__ import annotations

import math
from typing import Optional

import torch
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_ids,
    check_int,
    check_not_probabilities,
    check_number,
    check_tensor,
    check_type,
)
from dl4nlp.kv_cache import KVCache
from dl4nlp.transformer import TransformerLM


def _check_logits(logits: torch.Tensor) -> None:
    check_tensor("logits", logits, ndim=(1, 2), dtype="float", expected="(V,) or (B, V)")
    if bool(torch.isnan(logits).any() | torch.isposinf(logits).any()):
        bad = logits[torch.isnan(logits) | torch.isposinf(logits)][0].item()
        raise ValueError(f"logits must not contain NaN or +inf (-inf marks an excluded token); got {bad}")
    if bool(torch.isneginf(logits).all(-1).any()):
        raise ValueError("logits must have at least one finite entry in every row; got a row of -inf only")
    check_not_probabilities("logits", logits)


def _check_rule(temperature: float, top_k: Optional[int], top_p: Optional[float], V: Optional[int] = None) -> None:
    """The decoding rule's settings: temperature >= 0, top_k in [1, V] or None, top_p in (0, 1] or None."""
    check_number("temperature", temperature, 0)
    if top_k is not None:
        check_int("top_k", top_k, 1, V)
    if top_p is not None:
        check_number("top_p", top_p, 0, 1, low_open=True)


def filter_top_k(logits: torch.Tensor, k: int) -> torch.Tensor:
    """``logits`` with every entry outside the ``k`` largest of each row set to -inf (exactly k kept, even on ties)."""
    _check_logits(logits)
    k = check_int("k", k, 1, logits.shape[-1])  # at most the vocabulary size
    keep = torch.zeros_like(logits, dtype=torch.bool).scatter_(-1, logits.topk(k, dim=-1).indices, True)
    return logits.masked_fill(~keep, float("-inf"))


def filter_top_p(logits: torch.Tensor, p: float) -> torch.Tensor:
    """``logits`` with every token outside the nucleus set to -inf.

    The nucleus is the smallest set of most probable tokens whose probabilities
    sum to at least ``p``: tokens are kept in order of probability while the mass
    before them is below ``p``, so the most probable token is always kept.
    """
    _check_logits(logits)
    p = check_number("p", p, 0, 1, low_open=True)
    probs, order = torch.softmax(logits, dim=-1).sort(dim=-1, descending=True)
    mass_before = probs.cumsum(-1) - probs  # (…, V): probability of the tokens ranked above
    keep_sorted = mass_before < p
    keep_sorted[..., 0] = True  # the most probable token, even where p is below float32's smallest number
    keep = torch.zeros_like(keep_sorted).scatter_(-1, order, keep_sorted)
    return logits.masked_fill(~keep, float("-inf"))


def next_token_probabilities(
    logits: torch.Tensor, temperature: float = 1.0, top_k: Optional[int] = None, top_p: Optional[float] = None
) -> torch.Tensor:
    """The distribution a decoding rule samples the next token from, same shape as ``logits``.

    Temperature divides the logits first; then top-k, then top-p filter; the rest
    is renormalised by the softmax. ``temperature=0`` is greedy: all mass on the
    argmax (the first one on ties). A temperature so small that the logits divided
    by it overflow is computed with the largest logit subtracted first (the same
    distribution): nearly all mass on the argmax, shared among tied maxima.

    >>> next_token_probabilities(torch.tensor([2.0, 1.0]), temperature=1e-39).tolist()
    [1.0, 0.0]
    """
    _check_logits(logits)
    _check_rule(temperature, top_k, top_p, logits.shape[-1])
    if temperature == 0:
        return torch.zeros_like(logits).scatter_(-1, logits.argmax(-1, keepdim=True), 1.0)
    scaled = logits / temperature
    if bool((torch.isinf(scaled) & torch.isfinite(logits)).any()):  # a tiny temperature overflowed: inf - inf = NaN
        scaled = (logits - logits.max(-1, keepdim=True).values) / temperature  # the same softmax, the top logit at 0
    logits = scaled
    if top_k is not None:
        logits = filter_top_k(logits, top_k)
    if top_p is not None:
        logits = filter_top_p(logits, top_p)
    return torch.softmax(logits, dim=-1)


def sample_next(
    logits: torch.Tensor,
    temperature: float = 1.0,
    top_k: Optional[int] = None,
    top_p: Optional[float] = None,
    generator: Optional[torch.Generator] = None,
) -> torch.Tensor:
    """One token per row of ``logits`` drawn by the rule: ids (B, 1) for logits (B, V), (1,) for (V,).

    The draw happens where ``generator`` lives (a CPU generator with logits on a GPU:
    on the CPU, so the same tokens come out on every device); the ids come back on
    the logits' device.
    """
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    probs = next_token_probabilities(logits, temperature, top_k, top_p)
    if temperature == 0:
        return probs.argmax(-1, keepdim=True)
    where = generator.device if generator is not None else probs.device
    return torch.multinomial(probs.to(where), 1, generator=generator).to(logits.device)


@torch.no_grad()
def generate(
    model: nn.Module,
    ids: torch.Tensor,
    new_tokens: int,
    temperature: float = 1.0,
    top_k: Optional[int] = None,
    top_p: Optional[float] = None,
    generator: Optional[torch.Generator] = None,
    use_cache: bool = True,
) -> torch.Tensor:
    """Append ``new_tokens`` tokens to ``ids`` (B, T), each drawn by the rule from a ``TransformerLM``'s logits.

    With ``use_cache`` the model runs once over the prompt and then once per new
    token on that token alone (``dl4nlp.kv_cache``). Once the sequence is longer
    than the model's ``max_len``, only the last ``max_len`` tokens are seen, whose
    positions shift at every step, so then each step recomputes the window (with
    or without the cache, the same tokens come out). ``ids`` may be on any device:
    the model runs on its own, and the ids come back on the device of ``ids``.
    """
    check_type("model", model, TransformerLM, "a dl4nlp.transformer.TransformerLM")
    check_ids("ids", ids, model.config.vocab_size, bound="vocab_size", shape=("B", "T"))
    check_int("new_tokens", new_tokens, low=0)
    _check_rule(temperature, top_k, top_p, model.config.vocab_size)
    if generator is not None:
        check_type("generator", generator, torch.Generator, "a torch.Generator or None")
    check_bool("use_cache", use_cache)
    max_len = model.config.max_len
    given_on, ids = ids.device, ids.to(next(model.parameters()).device)
    was_training = model.training
    model.eval()
    cache, fed = None, 0  # fed: how many tokens of ids the cache holds
    for _ in range(new_tokens):
        if use_cache and ids.shape[1] <= max_len:
            if cache is None:
                cache = KVCache.empty(model)
            logits = model(ids[:, fed:], cache=cache)[:, -1]  # (B, V)
            fed = ids.shape[1]
        else:
            logits = model(ids[:, -max_len:])[:, -1]
        ids = torch.cat([ids, sample_next(logits, temperature, top_k, top_p, generator)], dim=1)
    model.train(was_training)
    return ids.to(given_on)


def perplexity(loss: float) -> float:
    """exp(mean cross-entropy in nats): the number of equally likely choices that would be as surprising."""
    return math.exp(check_number("loss", loss, 0))  # a finite mean cross-entropy >= 0, in nats
