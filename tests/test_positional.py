"""The properties of the sinusoids that notebook 06 proves, and the relative alternatives (rotary, clipped)."""

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
