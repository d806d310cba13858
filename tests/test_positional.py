"""The properties of the sinusoids that notebook 09 proves, and the relative alternatives (rotary, clipped)."""

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.positional import (
    binary_encoding,
    clipped_relative_positions,
    frequencies,
    rotary,
    shift_matrix,
    sinusoidal_encoding,
)


def table64(max_len, d_model, base=10000.0):
    """The sinusoid table in float64, straight from the formula."""
    pos = torch.arange(max_len, dtype=torch.float64)[:, None]
    angle = pos * frequencies(d_model, base)
    return torch.stack([torch.sin(angle), torch.cos(angle)], dim=-1).flatten(1)  # sin, cos interleaved


def test_float64_formula_matches_the_library_table():
    assert torch.allclose(table64(100, 64).float(), sinusoidal_encoding(100, 64), atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(offset=st.integers(-300, 300), half=st.integers(1, 32), base=st.sampled_from([100.0, 10000.0]))
def test_shift_matrix_moves_every_position_by_the_offset(offset, half, base):
    d = 2 * half
    table = table64(700, d, base)
    M = shift_matrix(offset, d, base)
    positions = torch.arange(max(0, -offset), min(700, 700 - offset))
    assert torch.allclose(table[positions] @ M.T, table[positions + offset], atol=1e-9)
    assert torch.allclose(M.T @ M, torch.eye(d, dtype=torch.float64), atol=1e-12)  # a rotation: orthogonal
    assert torch.allclose(
        shift_matrix(offset, d, base) @ shift_matrix(-offset, d, base), torch.eye(d, dtype=torch.float64), atol=1e-12
    )


def test_dot_product_depends_only_on_the_offset_and_has_a_closed_form():
    table = table64(120, 512)
    gram = table @ table.T  # (T, T)
    offsets = torch.arange(120, dtype=torch.float64)
    closed = torch.cos(offsets[:, None] * frequencies(512)).sum(1)  # sum_i cos(w_i k)
    for p in range(0, 60, 7):
        for q in range(0, 60, 5):
            assert gram[p, q].item() == pytest.approx(closed[abs(p - q)].item(), abs=1e-9)
    assert torch.allclose(gram.diagonal(), torch.full((120,), 256.0, dtype=torch.float64))  # |PE|^2 = d/2


def test_binary_encoding_counts():
    bits = binary_encoding(16, 4)
    assert bits[13].tolist() == [1.0, 0.0, 1.0, 1.0]  # 13 = 1101 in binary, least significant bit first
    assert torch.equal((bits * 2 ** torch.arange(4)).sum(1), torch.arange(16).float())
    for j in range(4):  # bit j flips every 2^j positions
        flips = (bits[1:, j] != bits[:-1, j]).nonzero().flatten() + 1
        assert torch.equal(flips % 2**j, torch.zeros_like(flips))
    with pytest.raises(ValueError, match=r"max_len must be an integer in \[1, 16\]; got 17"):
        binary_encoding(17, 4)


def test_clipped_relative_positions():
    table = clipped_relative_positions(5, 2)
    assert table[0].tolist() == [0, 1, 2, 2, 2] and table[4].tolist() == [-2, -2, -2, -1, 0]
    with pytest.raises(ValueError, match="max_distance must be an integer >= 1; got 0"):
        clipped_relative_positions(5, 0)


@settings(max_examples=25, deadline=None)
@given(m=st.integers(0, 500), n=st.integers(0, 500), shift=st.integers(0, 500), half=st.integers(1, 16))
def test_rotary_scores_depend_only_on_the_relative_offset(m, n, shift, half):
    generator = torch.Generator().manual_seed(m * 1000 + n)
    q, k = torch.randn(2, 1, 2 * half, dtype=torch.float64, generator=generator)  # one query, one key
    score = (rotary(q, positions=[m]) * rotary(k, positions=[n])).sum()
    shifted = (rotary(q, positions=[m + shift]) * rotary(k, positions=[n + shift])).sum()
    assert score.item() == pytest.approx(shifted.item(), abs=1e-9)
    assert rotary(q, positions=[0]).equal(q)  # position 0: no rotation


ROTARY_TOLERANCE = {torch.float64: 1e-12, torch.float32: 1e-5, torch.float16: 4e-3, torch.bfloat16: 4e-2}


@settings(max_examples=60, deadline=None)
@given(
    lead=st.lists(st.integers(1, 3), max_size=2),
    T=st.integers(1, 6),
    half_d=st.integers(1, 4),
    dtype=st.sampled_from(list(ROTARY_TOLERANCE)),
    positions=st.sampled_from(["default", "integers", "floats"]),
    seed=st.integers(0, 10_000),
)
def test_rotary_fast_path_equals_readable_path_on_every_input_it_accepts(lead, T, half_d, dtype, positions, seed):
    """Any leading dimensions, any even d, every float dtype (bfloat16 and float16 included), any positions."""
    generator = torch.Generator().manual_seed(seed)
    x = (torch.randn(*lead, T, 2 * half_d, generator=generator, dtype=torch.float64) * 2).to(dtype)
    where = {
        "default": None,
        "integers": torch.randint(-50, 50, (T,), generator=generator),
        "floats": torch.randn(T, generator=generator, dtype=torch.float64) * 30,
    }[positions]
    readable, fast = rotary(x, positions=where), rotary(x, positions=where, fast=True)
    assert fast.dtype == readable.dtype == dtype and fast.shape == readable.shape == x.shape
    scale = x.double().abs().max().item()
    assert torch.allclose(fast.double(), readable.double(), rtol=0, atol=ROTARY_TOLERANCE[dtype] * scale)


def test_rotary_fast_path_equals_readable_path_and_keeps_norms():
    x = torch.randn(2, 3, 10, 8)
    assert torch.allclose(rotary(x), rotary(x, fast=True), atol=1e-6)
    assert torch.allclose(rotary(x).norm(dim=-1), x.norm(dim=-1), atol=1e-5)
    with pytest.raises(ValueError, match=r"d even; got \(2, 3, 10, 7\)"):
        rotary(torch.randn(2, 3, 10, 7))
    with pytest.raises(ValueError, match=r"positions must have shape \(10,\)"):
        rotary(x, positions=torch.arange(3))


def test_frequency_range():
    w = frequencies(512)
    assert w[0].item() == 1.0 and w[-1].item() == pytest.approx(10000 ** (-510 / 512))
    assert 2 * math.pi / w[-1].item() < 2 * math.pi * 10000  # the slowest wavelength stays below 2π·base
    with pytest.raises(ValueError, match="base must be a finite number > 1.0; got 1"):
        frequencies(8, base=1)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 100), T=st.integers(2, 8))
def test_encoder_without_positions_is_permutation_equivariant(seed, T):
    from dl4nlp.positional import make_positional
    from dl4nlp.transformer import TransformerConfig, TransformerEncoder

    torch.manual_seed(seed)
    encoder = TransformerEncoder(TransformerConfig(vocab_size=2, d_model=16, n_heads=2, n_layers=2)).double().eval()
    x = torch.randn(1, T, 16, dtype=torch.float64)
    permutation = torch.randperm(T)
    none, sinusoids = make_positional("none", 16, 16), make_positional("sinusoidal", 16, 16).double()
    assert torch.allclose(encoder(none(x[:, permutation])), encoder(none(x))[:, permutation], atol=1e-10)
    if not torch.equal(permutation, torch.arange(T)):
        assert not torch.allclose(
            encoder(sinusoids(x[:, permutation])), encoder(sinusoids(x))[:, permutation], atol=1e-6
        )


def test_position_plots_return_figures():
    import matplotlib.pyplot as plt

    from dl4nlp.plots import plot_accuracy_by_position, plot_position_heatmap

    fig = plot_position_heatmap(sinusoidal_encoding(10, 8), highlight=3)
    assert fig.axes[0].images[0].get_array().shape == (10, 8)
    fig2 = plot_accuracy_by_position({"a": [0.5, 1.0], "b": [0.1, 0.2]}, train_length=1, chance=0.1, first_position=1)
    assert [line.get_label() for line in fig2.axes[0].lines][:2] == ["a", "b"]
    assert list(fig2.axes[0].lines[0].get_xdata()) == [1, 2]
    plt.close("all")


# --- rotary attention inside a model, and RoPE's long-term decay ------------------------------------
def rotary_attention_by_hand(attention, x):
    """RoPE attention written out: project, rotate each head's queries and keys, attend, concatenate, project."""
    from dl4nlp.positional import RotaryAttention  # noqa: F401  (the class under test)

    B, T, C = x.shape
    H, d = attention.n_heads, attention.d_head

    def heads(t):  # (B, T, C) -> (B, H, T, d)
        return t.view(B, T, H, d).transpose(1, 2)

    q, k, v = (heads(p(x)) for p in (attention.q_proj, attention.k_proj, attention.v_proj))
    angle = torch.arange(T, dtype=torch.float64)[:, None] * frequencies(d)  # (T, d/2)
    cos, sin = torch.cos(angle).to(x.dtype), torch.sin(angle).to(x.dtype)

    def rotate(t):  # pair (t_2i, t_2i+1) at position m turned by m * w_i
        out = t.clone()
        out[..., 0::2] = t[..., 0::2] * cos - t[..., 1::2] * sin
        out[..., 1::2] = t[..., 0::2] * sin + t[..., 1::2] * cos
        return out

    weights = torch.softmax(rotate(q) @ rotate(k).transpose(-2, -1) / math.sqrt(d), dim=-1)
    return attention.out_proj((weights @ v).transpose(1, 2).reshape(B, T, C)), weights


def test_rotary_attention_equals_the_computation_written_out_and_the_fused_path():
    from dl4nlp.positional import RotaryAttention

    torch.manual_seed(0)
    attention = RotaryAttention(16, 2).double()
    x = torch.randn(3, 9, 16, dtype=torch.float64)
    expected, weights = rotary_attention_by_hand(attention, x)
    assert torch.allclose(attention(x), expected, atol=1e-12)
    assert torch.allclose(attention.last_weights, weights, atol=1e-12)
    attention.fast = True
    assert torch.allclose(attention(x), expected, atol=1e-12)
    attention.fast = False
    causal = attention(x, causal=True)
    attention.fast = True
    assert torch.allclose(attention(x, causal=True), causal, atol=1e-12)


def test_rotary_attention_scores_are_unchanged_by_a_shift_of_the_whole_sequence():
    """Content placed at positions 0.. or 5..: the same scores among the tokens (relative positions only)."""
    from dl4nlp.positional import RotaryAttention

    torch.manual_seed(1)
    attention = RotaryAttention(8, 2).double()
    content = torch.randn(1, 6, 8, dtype=torch.float64)
    padded = torch.cat([torch.randn(1, 5, 8, dtype=torch.float64), content], dim=1)  # the same six tokens, shifted
    allowed = torch.zeros(11, 11, dtype=torch.bool)
    allowed[5:, 5:] = True
    allowed[:5, :5] = True  # the five extra tokens only see each other
    shifted = attention(padded, mask=allowed)[:, 5:]
    assert torch.allclose(shifted, attention(content), atol=1e-12)


def test_rotary_attention_rejects_what_it_cannot_do():
    from dl4nlp.positional import RotaryAttention

    with pytest.raises(ValueError, match="even size"):
        RotaryAttention(6, 2)
    attention = RotaryAttention(8, 2)
    with pytest.raises(ValueError, match="context must be None"):
        attention(torch.zeros(1, 3, 8), context=torch.zeros(1, 3, 8))
    with pytest.raises(ValueError, match=r"shape \(B, T, 8\)"):
        attention(torch.zeros(3, 8))


def test_rope_decay_bound_matches_the_sum_written_out():
    from dl4nlp.positional import rope_decay_bound

    d = 16
    theta = [10000 ** (-2 * i / d) for i in range(d // 2)]
    for distance in (0, 1, 7, 100):
        partial, sizes = 0j, []
        for t in theta:
            partial += complex(math.cos(distance * t), math.sin(distance * t))
            sizes.append(abs(partial))
        assert math.isclose(
            rope_decay_bound(torch.tensor([distance]), d)[0].item(), sum(sizes) / len(sizes), rel_tol=1e-12
        )
    assert math.isclose(rope_decay_bound(torch.tensor([0.0]), 128)[0].item(), 128 / 4 + 0.5, rel_tol=1e-12)
    with pytest.raises(ValueError, match="1-D"):
        rope_decay_bound(torch.zeros(2, 2), 16)


def test_rope_decay_bound_bounds_every_rotary_score():
    """|q_m . k_n| after RoPE <= max_i |h_(i+1) - h_i| * sum_j |S_j| (Su et al. 2021, eq. 37), for random q, k."""
    from dl4nlp.positional import rope_decay_bound

    generator = torch.Generator().manual_seed(0)
    d = 32
    for _ in range(20):
        q, k = torch.randn(2, 1, d, dtype=torch.float64, generator=generator)
        h = torch.view_as_complex(q.view(d // 2, 2)) * torch.view_as_complex(k.view(d // 2, 2)).conj()
        h = torch.cat([h, torch.zeros(1, dtype=h.dtype)])  # h_{d/2} = 0
        step = (h[1:] - h[:-1]).abs().max().item()
        for m, n in [(3, 0), (40, 2), (0, 25)]:
            score = (rotary(q, positions=[m]) * rotary(k, positions=[n])).sum().item()
            assert abs(score) <= step * rope_decay_bound(torch.tensor([m - n]), d)[0].item() * (d // 2) + 1e-9
