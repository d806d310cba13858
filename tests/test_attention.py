"""dl4nlp.attention against PyTorch's fused attention and nn.MultiheadAttention."""

import math

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from dl4nlp.attention import MultiHeadAttention, causal_mask, masked_softmax, padding_mask, scaled_dot_product_attention


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@settings(max_examples=40, deadline=None)
@given(
    B=st.integers(1, 3),
    H=st.integers(1, 3),
    Tq=st.integers(1, 6),
    Tk=st.integers(1, 6),
    d=st.integers(1, 8),
    dv=st.integers(1, 8),
    seed=st.integers(0, 1000),
)
def test_sdpa_matches_torch_for_any_shape(B, H, Tq, Tk, d, dv, seed):
    q, k, v = rand(B, H, Tq, d, seed=seed), rand(B, H, Tk, d, seed=seed + 1), rand(B, H, Tk, dv, seed=seed + 2)
    out, weights = scaled_dot_product_attention(q, k, v)
    assert out.shape == (B, H, Tq, dv) and weights.shape == (B, H, Tq, Tk)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v), atol=1e-12)
    assert torch.allclose(weights.sum(-1), torch.ones(B, H, Tq, dtype=torch.float64))


def test_sdpa_causal_and_padding_masks_match_torch():
    q, k, v = rand(2, 4, 5, 8), rand(2, 4, 5, 8, seed=1), rand(2, 4, 5, 8, seed=2)
    out, weights = scaled_dot_product_attention(q, k, v, causal=True)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-12)
    assert torch.all(weights.triu(1) == 0)
    pad = padding_mask(torch.tensor([5, 3]), 5)  # (B, 1, 1, T)
    out, weights = scaled_dot_product_attention(q, k, v, mask=pad)
    assert torch.allclose(out, F.scaled_dot_product_attention(q, k, v, attn_mask=pad), atol=1e-12)
    assert torch.all(weights[1, :, :, 3:] == 0)


def test_masked_softmax_fully_masked_row_is_zero_not_nan():
    scores = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    mask = torch.tensor([[True, False], [False, False]])
    weights = masked_softmax(scores, mask)
    assert torch.equal(weights, torch.tensor([[1.0, 0.0], [0.0, 0.0]]))


def test_worked_example_scores_scale_to_softmax():
    # q.k = 112 and 96 with d_k = 64: scaled to 14 and 12, softmax 0.8808 / 0.1192.
    scores = torch.tensor([112.0, 96.0], dtype=torch.float64) / math.sqrt(64)
    weights = torch.softmax(scores, 0)
    assert scores.tolist() == [14.0, 12.0]
    assert weights[0].item() == pytest.approx(1 / (1 + math.exp(-2)), abs=1e-15)
    assert round(weights[0].item(), 4) == 0.8808 and round(weights[1].item(), 4) == 0.1192


@pytest.mark.parametrize("fast", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_multi_head_matches_nn_multiheadattention(fast, bias):
    torch.manual_seed(0)
    reference = nn.MultiheadAttention(16, 4, bias=bias, batch_first=True).double()
    mine = MultiHeadAttention.from_torch(reference, fast=fast)
    assert mine.q_proj.weight.dtype == torch.float64 and (mine.q_proj.bias is not None) == bias
    x, context = rand(3, 5, 16), rand(3, 7, 16, seed=1)
    expected, expected_weights = reference(x, context, context, average_attn_weights=False)
    assert torch.allclose(mine(x, context), expected, atol=1e-12)
    if not fast:
        assert torch.allclose(mine.last_weights, expected_weights, atol=1e-12)


@pytest.mark.parametrize("fast", [False, True])
def test_multi_head_masks_match_nn_multiheadattention(fast):
    torch.manual_seed(1)
    reference = nn.MultiheadAttention(8, 2, batch_first=True).double()
    mine = MultiHeadAttention.from_torch(reference, fast=fast)
    x = rand(2, 6, 8)
    # causal: torch takes a float/bool mask where True means *masked*
    expected, _ = reference(x, x, x, attn_mask=~causal_mask(6))
    assert torch.allclose(mine(x, causal=True), expected, atol=1e-12)
    lengths = torch.tensor([6, 4])
    expected, _ = reference(x, x, x, key_padding_mask=~padding_mask(lengths, 6)[:, 0, 0, :])
    assert torch.allclose(mine(x, mask=padding_mask(lengths, 6)), expected, atol=1e-12)


def test_errors_name_expected_and_received():
    with pytest.raises(ValueError, match="d_model must be divisible by n_heads; got d_model=10, n_heads=3"):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, 8\); got \(2, 5\)"):
        MultiHeadAttention(8, 2)(torch.zeros(2, 5))
    with pytest.raises(ValueError, match=r"k must have the last dimension d_k = 4 of q; got shape \(1, 2, 3\)"):
        scaled_dot_product_attention(torch.zeros(1, 2, 4), torch.zeros(1, 2, 3), torch.zeros(1, 2, 3))
    with pytest.raises(ValueError, match=r"v must have the length T_k = 2 of k; got shape \(1, 3, 4\)"):
        scaled_dot_product_attention(torch.zeros(1, 2, 4), torch.zeros(1, 2, 4), torch.zeros(1, 3, 4))
    with pytest.raises(TypeError, match="mask must be a bool tensor"):
        masked_softmax(torch.zeros(2), torch.ones(2))
    with pytest.raises(ValueError, match=r"every length in lengths must be in \[1, 4\]; got \[5\]"):
        padding_mask(torch.tensor([5]), 4)
    with pytest.raises(ValueError, match="length must be an integer >= 1; got 0"):
        causal_mask(0)
    with pytest.raises(ValueError, match="kdim"):
        MultiHeadAttention.from_torch(nn.MultiheadAttention(8, 2, kdim=4, vdim=4))


def test_nan_and_inf_scores_are_errors_not_hidden_by_the_mask():
    mask = torch.tensor([True, True, False])
    with pytest.raises(ValueError, match=r"scores must be finite; got nan at index \(0,\)"):
        masked_softmax(torch.tensor([math.nan, 1.0, 2.0]), mask)
    with pytest.raises(ValueError, match="scores must be finite; got inf"):
        attend(torch.tensor([[[math.inf, 1.0, 2.0]]]), torch.zeros(1, 3, 2), mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_from_torch_keeps_the_reference_dtype(dtype):
    reference = nn.MultiheadAttention(8, 2, batch_first=True).to(dtype)
    mine = MultiHeadAttention.from_torch(reference)
    assert {p.dtype for p in mine.parameters()} == {dtype}


@settings(max_examples=80, deadline=None)
@given(
    B=st.integers(1, 3),
    Tq=st.integers(1, 5),
    Tk=st.integers(1, 5),
    causal=st.booleans(),
    mask_kind=st.sampled_from(["none", "keys", "full", "2d"]),
    seed=st.integers(0, 10_000),
    rotary=st.booleans(),
)
def test_fast_path_equals_readable_path_on_every_input_it_accepts(B, Tq, Tk, causal, mask_kind, seed, rotary):
    """Any sizes, causal with T_q != T_k (aligned at the start), any mask, rows with no allowed key included;
    for MultiHeadAttention and for RotaryAttention (self-attention: its keys are its queries, T_k = T_q)."""
    from dl4nlp.positional import RotaryAttention

    Tk = Tq if rotary else Tk
    generator = torch.Generator().manual_seed(seed)
    H, C = 2, 8
    mask = {
        "none": None,
        "keys": torch.rand(B, 1, 1, Tk, generator=generator) < 0.6,
        "full": torch.rand(B, H, Tq, Tk, generator=generator) < 0.5,
        "2d": torch.rand(Tq, Tk, generator=generator) < 0.5,
    }[mask_kind]
    if mask is not None and not mask.any():  # a mask that allows nothing anywhere is refused (test_attention_masks)
        mask.view(-1)[0] = True
    torch.manual_seed(seed)
    module = RotaryAttention if rotary else MultiHeadAttention
    readable = module(C, H).double()
    fast = module(C, H, fast=True).double()
    fast.load_state_dict(readable.state_dict())
    x, context = rand(B, Tq, C, seed=seed), None if rotary else rand(B, Tk, C, seed=seed + 1)
    expected = readable(x, context, mask=mask, causal=causal)
    assert torch.allclose(fast(x, context, mask=mask, causal=causal), expected, atol=1e-12)
    q, k, v = rand(B, H, Tq, 4, seed=seed), rand(B, H, Tk, 4, seed=seed + 2), rand(B, H, Tk, 3, seed=seed + 3)
    from dl4nlp.attention import _fused_attention

    out, _ = scaled_dot_product_attention(q, k, v, mask=mask, causal=causal)
    assert torch.allclose(_fused_attention(q, k, v, mask, causal), out, atol=1e-12)


def test_causal_with_fewer_queries_than_keys_is_aligned_at_the_start():
    q, k, v = rand(1, 1, 1, 4), rand(1, 1, 3, 4, seed=1), rand(1, 1, 3, 2, seed=2)
    _, weights = scaled_dot_product_attention(q, k, v, causal=True)
    assert weights[0, 0, 0].tolist() == [1.0, 0.0, 0.0]  # query 0 sees key 0 only


# --- score functions for encoder-decoder attention (notebook 06) ------------
from dl4nlp.attention import AdditiveScore, DotScore, GeneralScore, attend, make_score  # noqa: E402


def _loop_scores(score_fn, query, keys):
    """Brute force: one score per (batch, t, i), by an explicit loop over pairs."""
    B, Tq, Tk = query.shape[0], query.shape[1], keys.shape[1]
    out = torch.empty(B, Tq, Tk, dtype=query.dtype)
    for b in range(B):
        for t in range(Tq):
            for i in range(Tk):
                out[b, t, i] = score_fn(query[b, t], keys[b, i])
    return out


def test_dot_score_by_hand_and_against_a_loop():
    s = torch.tensor([[[1.0, 2.0]]])  # (B=1, T_q=1, d=2)
    h = torch.tensor([[[3.0, 0.0], [1.0, 1.0], [0.0, -1.0]]])  # (1, T_k=3, 2)
    assert DotScore(2, 2)(s, h).tolist() == [[[3.0, 3.0, -2.0]]]  # s·h_i, computed by hand
    q, k = rand(2, 4, 5), rand(2, 6, 5, seed=1)
    assert torch.allclose(DotScore(5, 5)(q, k), _loop_scores(torch.dot, q, k), atol=1e-12)
    assert torch.allclose(DotScore(5, 5)(q, k), torch.einsum("btd,bid->bti", q, k), atol=1e-12)


def test_general_score_is_a_bilinear_form_and_reduces_to_dot_with_the_identity():
    torch.manual_seed(0)
    score = GeneralScore(3, 5).double()
    q, k = rand(2, 4, 3), rand(2, 6, 5, seed=1)
    W = score.weight.detach()
    assert torch.allclose(score(q, k), _loop_scores(lambda a, b: a @ W @ b, q, k), atol=1e-12)
    assert torch.allclose(score(q, k), torch.einsum("btd,de,bie->bti", q, W, k), atol=1e-12)
    with torch.no_grad():
        square = GeneralScore(5, 5).double()
        square.weight.copy_(torch.eye(5))
    k5 = rand(2, 4, 5, seed=2)
    assert torch.allclose(square(k5, k), DotScore(5, 5)(k5, k), atol=1e-12)


def test_additive_score_is_a_one_hidden_layer_mlp_on_each_pair():
    torch.manual_seed(0)
    score = AdditiveScore(3, 5, d_attn=7).double()
    q, k = rand(2, 4, 3), rand(2, 6, 5, seed=1)

    def mlp(a, b):
        hidden = torch.tanh(score.query_proj.weight @ a + score.key_proj.weight @ b + score.key_proj.bias)
        return score.v.weight[0] @ hidden

    assert torch.allclose(score(q, k), _loop_scores(mlp, q, k), atol=1e-12)


@pytest.mark.parametrize("kind", ["dot", "general", "additive"])
def test_scores_pass_gradcheck(kind):
    torch.manual_seed(0)
    score = make_score(kind, 4, 4).double()
    q = rand(2, 3, 4).requires_grad_(True)
    k = rand(2, 5, 4, seed=1).requires_grad_(True)
    assert torch.autograd.gradcheck(lambda a, b: score(a, b), (q, k), eps=1e-6, atol=1e-8)
    assert score(q, k).shape == (2, 3, 5)


def test_attend_is_the_weighted_sum_of_values_and_respects_the_mask():
    scores = torch.tensor([[[0.0, math.log(3.0), 5.0]]])  # (1, 1, 3)
    values = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [7.0, 7.0]]])
    mask = torch.tensor([[[True, True, False]]])  # the third key is padding
    context, weights = attend(scores, values, mask)
    assert torch.allclose(weights, torch.tensor([[[0.25, 0.75, 0.0]]]))
    assert torch.allclose(context, torch.tensor([[[0.25, 0.75]]]))
    q = rand(2, 3, 4).requires_grad_(True)
    k = rand(2, 5, 4, seed=1)
    assert torch.autograd.gradcheck(lambda a: attend(DotScore(4, 4)(a, k), k)[0], (q,), eps=1e-6, atol=1e-8)


def test_score_errors_name_expected_and_received():
    with pytest.raises(ValueError, match="kind must be one of .* got 'cosine'"):
        make_score("cosine", 4, 4)
    with pytest.raises(ValueError, match="dot score needs d_query == d_key; got d_query=3, d_key=4"):
        DotScore(3, 4)
    with pytest.raises(ValueError, match=r"query must have shape \(B, T_q, 3\); got \(2, 4\)"):
        GeneralScore(3, 4)(torch.zeros(2, 4), torch.zeros(2, 5, 4))
    with pytest.raises(ValueError, match=r"keys must have shape \(B, T_k, 4\); got \(2, 5, 3\)"):
        AdditiveScore(3, 4)(torch.zeros(2, 1, 3), torch.zeros(2, 5, 3))
    with pytest.raises(ValueError, match=r"keys must have the batch size of query, 2; got shape \(3, 5, 4\)"):
        DotScore(4, 4)(torch.zeros(2, 1, 4), torch.zeros(3, 5, 4))
    with pytest.raises(ValueError, match=r"values must have shape \(B=1, T_k=3, d_v\) .*; got \(1, 4, 2\)"):
        attend(torch.zeros(1, 1, 3), torch.zeros(1, 4, 2))


def test_a_mask_that_allows_nothing_is_refused():
    # issue 22: a mask of the other polarity (True = masked out, torch's key_padding_mask) on a batch without
    # padding is False everywhere; every output would silently be zero. A row with no allowed key stays legal.
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2)
    x = torch.randn(2, 3, 8)
    with pytest.raises(ValueError, match="mask must be True where attention is allowed; got False everywhere"):
        attention(x, mask=~torch.ones(2, 1, 1, 3, dtype=torch.bool))
    one_row_blind = torch.ones(3, 3, dtype=torch.bool)
    one_row_blind[1] = False
    attention(x, mask=one_row_blind)
    assert not attention.last_weights[:, :, 1].any() and attention.last_weights[:, :, 0].sum(-1).allclose(torch.ones(1))
