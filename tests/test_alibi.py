"""dl4nlp.alibi: the slopes of the paper, the bias of the formula, and the attention that uses it."""

import torch

from dl4nlp.alibi import ALiBiAttention, alibi_bias, alibi_slopes
from dl4nlp.attention import MultiHeadAttention


def test_slopes_are_the_papers_geometric_sequence():
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]
    assert alibi_slopes(16).tolist()[0] == 2.0**-0.5 and alibi_slopes(16).tolist()[-1] == 2.0**-8


def test_bias_is_minus_slope_times_distance_and_depends_on_the_offset_only():
    slopes = torch.tensor([0.5, 0.125], dtype=torch.float64)
    bias = alibi_bias(7, slopes)
    assert bias.shape == (2, 7, 7) and bias.dtype == torch.float64
    for h in range(2):
        for i in range(7):
            for j in range(7):
                assert bias[h, i, j].item() == -slopes[h].item() * abs(i - j)
    assert torch.equal(bias[:, 1:, 1:], bias[:, :-1, :-1])  # shifting query and key together changes nothing


def test_zero_slopes_give_plain_multi_head_attention():
    torch.manual_seed(0)
    alibi = ALiBiAttention(8, 2, slopes=torch.zeros(2)).double()
    plain = MultiHeadAttention(8, 2).double()
    plain.load_state_dict(alibi.state_dict())
    x = torch.randn(3, 5, 8, dtype=torch.float64)
    assert torch.allclose(alibi(x), plain(x), atol=1e-12)
    assert torch.allclose(alibi(x, causal=True), plain(x, causal=True), atol=1e-12)


def test_the_bias_moves_weight_to_near_keys_and_the_masks_hide_keys():
    torch.manual_seed(0)
    attention = ALiBiAttention(8, 2, slopes=torch.tensor([4.0, 4.0])).double()
    for p in attention.parameters():
        torch.nn.init.zeros_(p)  # every content score 0: only the bias decides
    attention(torch.randn(1, 6, 8, dtype=torch.float64))
    weights = attention.last_weights[0, 0]
    assert torch.equal(weights.argmax(-1), torch.arange(6))  # each query's largest weight is on itself
    attention(torch.randn(1, 6, 8, dtype=torch.float64), causal=True)
    assert bool((attention.last_weights.triu(1) == 0).all())
