"""dl4nlp.scaling: parameter and FLOP counts against the modules, power-law fits against known laws, the frontier."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.scaling import (
    _cpu_flash_attention_flops,
    attention_share,
    fit_power_law,
    flop_formulas,
    flops_breakdown,
    frontier,
    kaplan_forward_flops,
    kaplan_parameters,
    measure_forward_flops,
    non_embedding_parameters,
    training_flops,
)
from dl4nlp.transformer import TransformerConfig, TransformerLM, count_parameters

pytestmark = pytest.mark.usefixtures("one_thread")


# ---- counts -----------------------------------------------------------------
@settings(max_examples=15, deadline=None)
@given(layers=st.integers(1, 3), heads=st.integers(1, 4), head_dim=st.integers(1, 8), norm_first=st.booleans())
def test_parameter_formula_matches_the_module(layers, heads, head_dim, norm_first):
    config = TransformerConfig(
        vocab_size=11, d_model=2 * heads * head_dim, n_heads=heads, n_layers=layers, max_len=16, norm_first=norm_first
    )
    model = TransformerLM(config)
    assert non_embedding_parameters(config) == count_parameters(model, exclude_embeddings=True)
    d = config.d_model
    assert kaplan_parameters(layers, d) == 12 * layers * d * d  # Kaplan's weights-only approximation
    assert non_embedding_parameters(config) - kaplan_parameters(layers, d) == layers * 13 * d + 2 * d * norm_first


@pytest.mark.parametrize("layers,width,n_ctx", [(1, 8, 16), (2, 32, 64), (3, 48, 32)])
def test_flop_breakdown_equals_torch_flop_counter(layers, width, n_ctx):
    config = TransformerConfig(vocab_size=65, d_model=width, n_heads=2, n_layers=layers, max_len=64)
    model = TransformerLM(config)  # readable attention path: its matrix products are visible to the counter
    parts = flops_breakdown(config, n_ctx)
    assert measure_forward_flops(model, n_ctx, batch_size=2) == sum(parts.values())
    assert parts["linear"] == 2 * kaplan_parameters(layers, width)
    kaplan = kaplan_forward_flops(kaplan_parameters(layers, width), layers, n_ctx, width)
    assert parts["attention"] == 2 * (kaplan - parts["linear"])  # dense QKᵀ and AV: twice Kaplan's causal term


@pytest.mark.parametrize("layers,width,n_ctx,batch", [(1, 8, 16, 1), (2, 32, 64, 2), (3, 48, 32, 3)])
def test_fused_attention_counts_as_the_readable_path(layers, width, n_ctx, batch):
    # On PyTorch >= 2.2 the fused path runs the CPU flash-attention kernel, which the counter knows only through
    # flop_formulas(); on 2.1 it runs the math fallback. Either way the count equals the readable path's.
    readable = TransformerConfig(vocab_size=65, d_model=width, n_heads=2, n_layers=layers, max_len=64)
    fused = TransformerConfig(**{**readable.__dict__, "fast_attention": True})
    counted = measure_forward_flops(TransformerLM(fused), n_ctx, batch_size=batch)
    expected = sum(flops_breakdown(fused, n_ctx).values())
    assert counted == measure_forward_flops(TransformerLM(readable), n_ctx) == expected


def test_cpu_flash_attention_formula_takes_tensors_or_shapes():
    import torch

    q, k, v = torch.zeros(2, 3, 5, 4), torch.zeros(2, 3, 7, 4), torch.zeros(2, 3, 7, 6)
    expected = 2 * 2 * 3 * 5 * 7 * 4 + 2 * 2 * 3 * 5 * 7 * 6  # QKᵀ and weights·V, 2 FLOPs per multiply-add
    assert _cpu_flash_attention_flops(q, k, v, 0.0, True, out_val=None) == expected
    assert _cpu_flash_attention_flops(q.shape, k.shape, v.shape, out_shape=None) == expected
    kernel = getattr(torch.ops.aten, "_scaled_dot_product_flash_attention_for_cpu", None)
    assert list(flop_formulas()) == ([] if kernel is None else [kernel])


def test_bad_counting_arguments_are_refused():
    model = TransformerLM(TransformerConfig(vocab_size=5, d_model=8, n_heads=1, n_layers=1, max_len=8))
    with pytest.raises(ValueError, match="n_ctx must be an integer >= 1; got 0"):
        measure_forward_flops(model, 0)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1; got 1.5"):
        measure_forward_flops(model, 4, batch_size=1.5)


def test_attention_flops_grow_quadratically_per_sequence():
    config = TransformerConfig(vocab_size=20, d_model=16, n_heads=2, n_layers=2, max_len=128)
    model = TransformerLM(config)
    per_seq = {T: measure_forward_flops(model, T) * T for T in (32, 64, 128)}
    attention = {
        T: per_seq[T] - T * (flops_breakdown(config, T)["linear"] + flops_breakdown(config, T)["de-embedding"])
        for T in per_seq
    }
    assert attention[64] == 4 * attention[32] and attention[128] == 4 * attention[64]


def test_small_formulas_and_their_errors():
    assert training_flops(1e6, 2e6) == 1.2e13
    assert attention_share(12 * 64, 64) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="n_ctx must be an integer >= 1; got 0"):
        flops_breakdown(TransformerConfig(vocab_size=5, d_model=8, n_heads=1), 0)


# ---- fits -------------------------------------------------------------------
def test_fit_recovers_an_exact_power_law():
    x = np.geomspace(1e3, 1e6, 8)
    fit = fit_power_law(x, (8.8e13 / x) ** 0.076)
    assert fit.alpha == pytest.approx(0.076, rel=1e-9) and fit.x_c == pytest.approx(8.8e13, rel=1e-6)
    assert fit.r2 == pytest.approx(1.0) and fit.alpha_se < 1e-9
    assert fit(1e4) == pytest.approx((8.8e13 / 1e4) ** 0.076)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_recovers_a_noisy_power_law_within_its_interval(seed):
    rng = np.random.default_rng(seed)
    x = np.geomspace(1e3, 3e5, 12)
    y = (2e8 / x) ** 0.3 * np.exp(rng.normal(0, 0.01, x.size))
    fit = fit_power_law(x, y, n_bootstrap=300, seed=seed)
    assert abs(fit.alpha - 0.3) < 4 * fit.alpha_se
    assert fit.alpha_ci[0] - 0.01 < 0.3 < fit.alpha_ci[1] + 0.01
    assert fit.r2 > 0.99 and fit.n_params == 2


def test_fit_with_irreducible_term_recovers_it_and_wins_on_aic():
    x = np.geomspace(1e3, 3e5, 10)
    y = 1.2 + (5e4 / x) ** 0.5
    with_floor = fit_power_law(x, y, irreducible=True, n_bootstrap=50)
    plain = fit_power_law(x, y, n_bootstrap=50)
    assert with_floor.irreducible == pytest.approx(1.2, abs=1e-4)
    assert with_floor.alpha == pytest.approx(0.5, abs=1e-4) and with_floor.x_c == pytest.approx(5e4, rel=1e-3)
    assert with_floor.aic < plain.aic - 10 and plain.alpha < 0.5  # ignoring the floor flattens the slope
    assert "+ 1.200" in str(with_floor)


def test_fit_rejects_bad_input():
    with pytest.raises(ValueError, match="same length; got 3 and 2"):
        fit_power_law([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 3 points to fit a power law; got 2"):
        fit_power_law([1, 2], [1, 2])
    with pytest.raises(ValueError, match=r"y must be finite and > 0.0; got 0.0 at index \(1,\)"):
        fit_power_law([1, 2, 3], [1, 0, 2])
    with pytest.raises(ValueError, match="do not decrease"):
        fit_power_law([1, 2, 3], [1, 2, 3], irreducible=True, n_bootstrap=0)
    with pytest.raises(ValueError, match="two distinct values to fit an exponent; got all 1000.0"):
        fit_power_law([1e3, 1e3, 1e3], [3.0, 2.0, 1.0])  # used to give a standard error of about 4e7


def test_frontier_takes_the_lowest_curve_where_it_exists():
    a = ([1, 100], [4.0, 1.0])
    b = ([10, 1000], [3.0, 0.5])
    best, which = frontier([a, b], [1, 10, 100, 1000, 1e4], at_most=False)
    assert list(which) == [0, 0, 0, 1, -1]  # at 100, a is at 1.0 and b at sqrt(3 * 0.5)
    assert best[0] == 4.0 and best[1] == pytest.approx(2.0) and math.isnan(best[4])
    c = ([300, 3000], [1.2, 0.9])  # worse than a at the compute where a ends
    best, which = frontier([a, c], [1, 100, 300, 1000, 3000, 1e4])
    assert list(which) == [0, 0, 0, 0, 1, 1] and best[3] == 1.0 and best[5] == 0.9  # at most C: never worse
    with pytest.raises(ValueError, match="strictly increasing"):
        frontier([a], [10, 1])
    with pytest.raises(ValueError, match="equal length; got 2 and 1"):
        frontier([([1, 2], [1.0])], [1])
    with pytest.raises(ValueError, match=r"curves\[0\] flops must be strictly increasing; got \[100.0, 1.0\]"):
        frontier([([100, 1], [1.0, 4.0])], [1, 10])  # unsorted flops used to give a wrong frontier


def test_plot_helpers_draw_points_fits_and_curves():
    import matplotlib.pyplot as plt

    from dl4nlp.plots import plain_log_ticks, plot_curves, plot_power_law

    x = np.geomspace(1e3, 1e5, 5)
    fit = fit_power_law(x, (1e9 / x) ** 0.1, n_bootstrap=10)
    fig = plot_power_law(x, fit(x), fit, label="data", xlabel="N")
    ax = fig.axes[0]
    assert len(ax.lines) == 2 and ax.get_xscale() == "log" and "α = 0.100" in ax.get_legend().texts[1].get_text()
    assert ax.yaxis.get_major_formatter()(2.0, 0) == "2"  # a narrow log axis gets plain labels
    fig = plot_curves({"a": ([1, 10], [4.0, 3.0]), "b": ([1, 100], [3.5, 2.0])}, xlabel="tokens")
    assert [line.get_label() for line in fig.axes[0].lines] == ["a", "b"]
    with pytest.raises(ValueError, match="axis must be 'x' or 'y'; got 'z'"):
        plain_log_ticks(fig.axes[0], "z")
    plt.close("all")
