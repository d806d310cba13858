"""dl4nlp.sampling (decoding rules, generation) and dl4nlp.sparse (masks, blockwise attention)."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.attention import scaled_dot_product_attention
from dl4nlp.sampling import (
    filter_top_k,
    filter_top_p,
    generate,
    next_token_probabilities,
    perplexity,
    sample_next,
)
from dl4nlp.sparse import (
    attention_cost,
    bigbird_mask,
    blockwise_attention,
    global_mask,
    random_mask,
    sliding_window_mask,
)
from dl4nlp.transformer import TransformerConfig, TransformerLM

logits_strategy = st.lists(st.floats(-8, 8, allow_nan=False), min_size=2, max_size=12).map(
    lambda xs: torch.tensor(xs, dtype=torch.float64)
)


@settings(max_examples=60, deadline=None)
@given(logits=logits_strategy, k=st.integers(1, 12))
def test_top_k_keeps_exactly_the_k_largest_and_renormalises(logits, k):
    k = min(k, len(logits))
    probs = next_token_probabilities(logits, top_k=k)
    kept = probs > 0
    assert kept.sum() == k
    assert logits[kept].min() >= logits[~kept].max() if k < len(logits) else True
    full = torch.softmax(logits, -1)
    assert torch.allclose(probs[kept], full[kept] / full[kept].sum(), atol=1e-12)
    assert math.isclose(probs.sum().item(), 1.0, abs_tol=1e-12)


@settings(max_examples=60, deadline=None)
@given(logits=logits_strategy, p=st.floats(0.01, 1.0))
def test_nucleus_keeps_the_smallest_set_reaching_p(logits, p):
    probs = next_token_probabilities(logits, top_p=p)
    full = torch.softmax(logits, -1)
    kept = probs > 0
    if (~kept).any():
        assert full[kept].min() >= full[~kept].max()  # the kept tokens are the most probable ones
    assert full[kept].sum() >= p - 1e-12  # they reach p ...
    assert full[kept].sum() - full[kept].min() < p  # ... and without the least of them they would not
    assert torch.allclose(probs[kept], full[kept] / full[kept].sum(), atol=1e-12)


def test_worked_example_of_each_rule():
    logits = torch.tensor([2.0, 1.0, 0.0, -1.0], dtype=torch.float64)
    p = torch.softmax(logits, -1)  # 0.644, 0.237, 0.087, 0.032
    greedy = next_token_probabilities(logits, temperature=0)
    assert torch.equal(greedy, torch.tensor([1.0, 0, 0, 0], dtype=torch.float64))
    assert torch.allclose(next_token_probabilities(logits, temperature=2), torch.softmax(logits / 2, -1))
    assert (next_token_probabilities(logits, top_p=0.9) > 0).tolist() == [True, True, True, False]  # 0.881 < 0.9
    assert (next_token_probabilities(logits, top_p=0.88) > 0).tolist() == [True, True, False, False]  # 0.881 >= 0.88
    assert (next_token_probabilities(logits, top_p=0.5) > 0).tolist() == [True, False, False, False]
    assert torch.allclose(next_token_probabilities(logits, top_p=1.0), p)
    assert torch.equal(filter_top_k(logits, 4), logits)


def test_temperature_to_zero_approaches_greedy_and_sampling_matches_the_distribution():
    logits = torch.tensor([[1.0, 0.5, -0.5]])
    assert next_token_probabilities(logits, temperature=0.01)[0, 0] > 0.999
    assert torch.equal(sample_next(logits, temperature=0), torch.tensor([[0]]))
    generator = torch.Generator().manual_seed(0)
    draws = sample_next(logits.expand(20000, 3), top_k=2, generator=generator).flatten()
    frequency = torch.bincount(draws, minlength=3).double() / len(draws)
    expected = next_token_probabilities(logits[0].double(), top_k=2)
    assert frequency[2] == 0 and torch.allclose(frequency, expected, atol=0.015)  # 4.5 standard errors


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: filter_top_k(torch.zeros(5), 0), r"k must be an integer in \[1, 5\]"),
        (lambda: filter_top_k(torch.zeros(5), 6), r"k must be an integer in \[1, 5\]"),
        (lambda: filter_top_p(torch.zeros(5), 0.0), r"p must be a finite number in \(0, 1\]"),
        (lambda: filter_top_p(torch.zeros(5), 1.5), r"p must be a finite number in \(0, 1\]"),
        (lambda: next_token_probabilities(torch.zeros(5), temperature=-1), "temperature must be a finite number >= 0"),
        (lambda: next_token_probabilities(torch.tensor([1.0, float("nan")])), "NaN"),
        (lambda: next_token_probabilities(torch.tensor([1, 2])), "floating-point"),
        (lambda: next_token_probabilities(torch.full((3,), float("-inf"))), "at least one finite"),
        (lambda: next_token_probabilities(torch.zeros(2, 3, 4)), r"shape \(V,\) or \(B, V\)"),
        (lambda: perplexity(-0.1), "loss must be a finite"),
    ],
)
def test_rules_fail_loudly(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def _model():
    torch.manual_seed(0)
    return TransformerLM(TransformerConfig(vocab_size=9, d_model=16, n_heads=2, n_layers=2, max_len=12)).double()


@pytest.mark.parametrize("rule", [dict(temperature=0), dict(temperature=0.8, top_k=3), dict(top_p=0.9)])
def test_generation_with_and_without_the_cache_is_the_same_even_past_max_len(rule):
    model = _model()
    prompt = torch.tensor([[1, 2, 3], [4, 5, 6]])
    with_cache = generate(model, prompt, 16, generator=torch.Generator().manual_seed(1), **rule)
    without = generate(model, prompt, 16, generator=torch.Generator().manual_seed(1), use_cache=False, **rule)
    assert with_cache.shape == (2, 19) and torch.equal(with_cache, without)
    assert torch.equal(with_cache[:, :3], prompt)


def test_generate_fails_loudly():
    model = _model()
    with pytest.raises(ValueError, match="new_tokens must be an integer >= 0"):
        generate(model, torch.zeros(1, 2, dtype=torch.long), -1)
    with pytest.raises(ValueError, match=r"top_k must be an integer in \[1, 9\]"):
        generate(model, torch.zeros(1, 2, dtype=torch.long), 1, top_k=0)
    with pytest.raises(ValueError, match=r"ids must have shape \(B, T\)"):
        generate(model, torch.zeros(3, dtype=torch.long), 1)


def test_perplexity_is_the_exponential_of_the_loss():
    assert perplexity(math.log(65)) == pytest.approx(65)


# --- sparse patterns and blockwise attention ---------------------------------------
def test_masks_count_their_entries():
    n = 64
    assert sliding_window_mask(n, 3).sum() == n + 2 * sum(n - d for d in range(1, 4))
    assert global_mask(n, [0, 5]).sum() == 2 * 2 * n - 4  # two full rows and columns, the 2 x 2 overlap once
    random = random_mask(n, 4, torch.Generator().manual_seed(0))
    assert (random.sum(1) == 4).all()
    combined = bigbird_mask(n, 3, [0], 2, torch.Generator().manual_seed(0))
    assert (combined >= sliding_window_mask(n, 3)).all() and (combined[0] | combined[:, 0]).all()
    assert torch.equal(sliding_window_mask(5, 0), torch.eye(5, dtype=torch.bool))
    for bad, message in [
        (lambda: sliding_window_mask(0, 1), "length must be an integer >= 1"),
        (lambda: sliding_window_mask(4, -1), "window must be an integer >= 0"),
        (lambda: global_mask(4, [4]), r"positions must be integers in \[0, 4\)"),
        (lambda: random_mask(4, 5), r"per_query must be an integer in \[0, 4\]"),
    ]:
        with pytest.raises(ValueError, match=message):
            bad()


@settings(max_examples=25, deadline=None)
@given(T=st.integers(1, 40), block=st.integers(1, 17), causal=st.booleans())
def test_blockwise_attention_equals_full_attention(T, block, causal):
    generator = torch.Generator().manual_seed(T)
    q, k, v = (torch.randn(2, 3, T, 8, dtype=torch.float64, generator=generator) for _ in range(3))
    expected, _ = scaled_dot_product_attention(q, k, v, causal=causal)
    assert torch.allclose(blockwise_attention(q, k, v, block, causal=causal), expected, atol=1e-12)
    assert torch.allclose(F.scaled_dot_product_attention(q, k, v, is_causal=causal), expected, atol=1e-12)


def test_blockwise_attention_fails_loudly():
    q = torch.zeros(1, 4, 8)
    with pytest.raises(ValueError, match="block_size must be an integer >= 1"):
        blockwise_attention(q, q, q, 0)
    with pytest.raises(ValueError, match=r"k must have shape \(1, T_k, 8\)"):
        blockwise_attention(q, torch.zeros(1, 4, 7), q)
    with pytest.raises(ValueError, match="causal attention needs as many queries as keys"):
        blockwise_attention(q, torch.zeros(1, 5, 8), torch.zeros(1, 5, 8), causal=True)


def test_complexity_table_rows():
    n, d = 1024, 64
    assert attention_cost(n, d, "self-attention") == {"operations": n * n * d, "sequential": 1, "path": 1}
    assert attention_cost(n, d, "recurrent") == {"operations": n * d * d, "sequential": n, "path": n}
    assert attention_cost(n, d, "convolutional", k=4)["path"] == pytest.approx(5)  # log_4 1024
    restricted = attention_cost(n, d, "restricted self-attention", r=32)
    assert restricted == {"operations": 32 * n * d, "sequential": 1, "path": 32}
    with pytest.raises(ValueError, match="kind must be one of"):
        attention_cost(n, d, "linear")


def test_a_tiny_temperature_is_computed_stably():
    # issue 22: temperature=1e-39 gave NaN everywhere (logits / 1e-39 overflow, inf - inf); the limit is greedy
    logits = torch.tensor([[2.0, 1.0, -3.0, float("-inf")], [0.5, 4.0, 4.0, -1.0]])
    probs = next_token_probabilities(logits, temperature=1e-39)
    assert not probs.isnan().any()
    assert probs[0].tolist() == [1.0, 0.0, 0.0, 0.0] and probs[1].tolist() == [0.0, 0.5, 0.5, 0.0]  # ties share
    assert torch.equal(next_token_probabilities(logits, temperature=1e-39, top_k=1)[0], probs[0])
    usual = next_token_probabilities(logits, temperature=0.7)  # the usual path is unchanged
    assert torch.equal(usual, torch.softmax(logits / 0.7, dim=-1))


def test_top_p_below_float32s_smallest_number_keeps_the_most_probable_token():
    # found by the issue-22 audit: p = 1e-300 is 0 in float32, so nothing was kept and the probabilities were NaN
    logits = torch.tensor([1.0, 2.0])
    assert filter_top_p(logits, 1e-300).tolist() == [float("-inf"), 2.0]
    assert next_token_probabilities(logits, top_p=1e-300).tolist() == [0.0, 1.0]
