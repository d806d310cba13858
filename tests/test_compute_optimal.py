"""dl4nlp.compute_optimal and dl4nlp.sweep_analysis: Hoffmann et al.'s three methods recover a known loss surface."""

import math

import numpy as np
import pytest

from dl4nlp.compute_optimal import (
    aicc,
    envelope,
    fit_parametric,
    fit_slope,
    isoflop_minimum,
    local_slopes,
    loo_rmse,
)
from dl4nlp.diagrams import shapes_diagram
from dl4nlp.sweep import model_config
from dl4nlp.sweep_analysis import (
    data_slopes,
    envelope_allocation,
    finished_cosine,
    isoflop_allocation,
    isoflop_profiles,
    parametric_allocation,
    schedule_pairs,
    select,
)

TRUE = dict(E=1.3, A=40.0, alpha=0.45, B=300.0, beta=0.35)


def surface(n, d):
    return (
        TRUE["E"]
        + TRUE["A"] * np.asarray(n, float) ** -TRUE["alpha"]
        + TRUE["B"] * np.asarray(d, float) ** -TRUE["beta"]
    )


def test_fit_slope_recovers_an_exact_power_law_and_its_interval_covers_a_noisy_one():
    x = np.geomspace(1e9, 1e12, 6)
    exact = fit_slope(x, 3 * x**0.5, n_bootstrap=50)
    assert exact.value == pytest.approx(0.5) and exact.se < 1e-12 and exact(1e10) == pytest.approx(3e5)
    rng = np.random.default_rng(0)
    noisy = fit_slope(x, 3 * x**0.5 * np.exp(rng.normal(0, 0.05, x.size)))
    assert noisy.ci[0] < 0.5 < noisy.ci[1] and abs(noisy.value - 0.5) < 3 * noisy.se


def test_local_slopes_are_constant_only_for_a_pure_power_law():
    d = np.geomspace(1e5, 1e7, 5)
    assert local_slopes(d, 2 * d**-0.1) == pytest.approx([0.1] * 4)
    bent = local_slopes(d, 1.5 + 2 * d**-0.3)
    assert np.all(np.diff(bent) < 0)  # a floor makes the local slope fall with D


def test_aicc_penalises_parameters_more_on_few_points():
    assert aicc(1.0, 10, 2) == pytest.approx(10 * math.log(0.1) + 4 + 12 / 7)
    assert aicc(1.0, 8, 3) - aicc(1.0, 8, 2) > aicc(1.0, 80, 3) - aicc(1.0, 80, 2)
    with pytest.raises(ValueError, match="more points than parameters"):
        aicc(1.0, 4, 3)


def test_leave_one_out_prefers_the_true_model():
    x = np.geomspace(1e3, 1e6, 9)
    y = 1.2 + (5e4 / x) ** 0.5

    def plain(xs, ys):
        s = fit_slope(xs, ys, n_bootstrap=0)
        return s

    def with_floor(xs, ys):
        return lambda z: 1.2 + (5e4 / np.asarray(z)) ** 0.5  # the truth, for the comparison

    assert loo_rmse(with_floor, x, y) < 1e-12 < loo_rmse(plain, x, y)


def test_envelope_keeps_only_runs_no_cheaper_run_beats():
    flops = [1, 2, 2, 4, 8, 3]
    loss = [3.0, 2.5, 2.7, 2.6, 2.0, 2.4]
    assert envelope(flops, loss).tolist() == [0, 1, 5, 4]  # the run at 4 FLOPs is beaten by the one at 3
    with pytest.raises(ValueError, match="same length"):
        envelope([1, 2], [1.0])
    with pytest.raises(ValueError, match="finite and > 0"):
        envelope([1, float("nan")], [1.0, 2.0])


def test_isoflop_minimum_finds_the_vertex_of_a_parabola_in_log_n():
    n = np.geomspace(1e3, 1e5, 5)
    loss = 2.0 + 0.1 * (np.log(n) - math.log(7e3)) ** 2
    found = isoflop_minimum(n, loss)
    assert found.n_opt == pytest.approx(7e3) and found.loss == pytest.approx(2.0) and found.inside
    assert not isoflop_minimum(n, 2.0 + 0.1 * (np.log(n) - math.log(3e5)) ** 2).inside
    with pytest.raises(ValueError, match="no minimum"):
        isoflop_minimum(n, 2.0 - 0.1 * (np.log(n) - 9) ** 2)
    with pytest.raises(ValueError, match="at least 3 different sizes"):
        isoflop_minimum([1e3, 1e3, 1e4], [2.0, 2.1, 2.2])


def test_parametric_fit_recovers_the_surface_and_chinchillas_allocation():
    n = np.repeat(np.geomspace(1e3, 3e5, 6), 6)
    d = np.tile(np.geomspace(1e5, 3e7, 6), 6)
    rng = np.random.default_rng(1)
    fit = fit_parametric(n, d, surface(n, d) * np.exp(rng.normal(0, 0.002, n.size)))
    assert fit.alpha == pytest.approx(TRUE["alpha"], abs=0.05) and fit.beta == pytest.approx(TRUE["beta"], abs=0.05)
    assert fit.E == pytest.approx(TRUE["E"], abs=0.1) and fit.rmse < 0.005
    a, b = fit.allocation()
    assert a == pytest.approx(fit.beta / (fit.alpha + fit.beta)) and a + b == pytest.approx(1.0)
    again = fit_parametric(n, d, surface(n, d), start=fit)
    assert again.alpha == pytest.approx(TRUE["alpha"], abs=1e-3)
    with pytest.raises(ValueError, match="at least 6 values"):
        fit_parametric(n[:5], d[:5], surface(n[:5], d[:5]))
    with pytest.raises(ValueError, match="two different N"):
        fit_parametric(np.full(8, 1e3), d[:8], surface(1e3, d[:8]))


def synthetic_results():
    """A sweep on the known surface: every size on an IsoFLOP grid (C = 6 N D) and a constant run with branches."""
    sizes = {f"s{i}": n for i, n in enumerate(np.geomspace(1e3, 1e5, 7))}
    runs = {}
    for level in np.geomspace(1e10, 1e12, 5):
        for size, n in sizes.items():
            d = level / (6 * n)
            if not 1e5 <= d <= 3e8:
                continue
            rid = f"{size}-cosine-{level:.3g}-s0"
            runs[rid] = dict(
                id=rid, size=size, seed=0, schedule="cosine", roles=["grid"], level=float(level), diverged=False,
                steps=int(d), tokens=float(d), total_params=float(n), non_embedding_params=float(n) / 2,
                flops=6 * n * d, total_param_flops=6 * n * d, kaplan_flops=3 * n * d,
                curve=[{"step": int(d), "heldout_loss": float(surface(n, d))}],
            )  # fmt: skip
    spec = {"sizes": list(sizes), "seed": 0, "second_seed": None, "shapes": [], "shape_reference": "s3"}
    return {"recipe": {"spec": spec}, "runs": runs}


def test_the_three_methods_agree_on_a_known_surface():
    results = synthetic_results()
    expected_a = TRUE["beta"] / (TRUE["alpha"] + TRUE["beta"])
    profiles = isoflop_profiles(results, 0)
    iso = isoflop_allocation(profiles, n_bootstrap=50)
    assert iso.a.value == pytest.approx(expected_a, abs=0.03) and iso.b.value == pytest.approx(1 - expected_a, abs=0.03)
    parametric = parametric_allocation(results, 0, n_bootstrap=20)
    assert parametric.a == pytest.approx(expected_a, abs=0.01)
    assert parametric.intervals["a"][0] <= parametric.a <= parametric.intervals["a"][1]
    front = envelope_allocation(results, 0, n_bootstrap=50)
    assert 0 < front.a.value < 1 and np.all(np.diff(front.compute) > 0)
    assert len(finished_cosine(results, 0)) == len(results["runs"]) and select(results, role="schedules") == []
    assert schedule_pairs(results, 0) == [] and set(data_slopes(results, 0)) <= set(results["recipe"]["spec"]["sizes"])
    with pytest.raises(ValueError, match="convention must be one of"):
        envelope_allocation(results, 0, convention="gpt")
    with pytest.raises(ValueError, match="found no 'runs'"):
        select({"recipe": {}})


def test_shapes_diagram_is_read_from_the_configs():
    configs = {s: model_config(s, 65, 64) for s in ("1x46", "8x16")}
    diagram = shapes_diagram(configs)
    assert sum(name.startswith("8x16/") and name.split("/")[1].isdigit() for name in diagram.boxes) == 8
    assert diagram.boxes["1x46/0"].label == "25,990" and diagram.boxes["8x16/in"].label == "8 x 16"
    assert diagram.boxes["1x46/0"].width > diagram.boxes["8x16/0"].width  # wider is drawn wider
    with pytest.raises(ValueError, match="at least one model"):
        shapes_diagram({})


def test_the_scaling_plots_draw_profiles_and_allocations():
    import matplotlib.pyplot as plt

    from dl4nlp.plots import plot_allocation, plot_isoflop_profiles

    profiles = isoflop_profiles(synthetic_results(), 0)
    fig = plot_isoflop_profiles(profiles)
    assert len(fig.axes[0].lines) == 3 * len(profiles) and fig.axes[0].get_xscale() == "log"
    allocation = isoflop_allocation(profiles, n_bootstrap=10)
    labels = [t.get_text() for t in plot_allocation(allocation).axes[0].get_legend().texts]
    assert labels[0].startswith(f"N_opt ∝ C^{allocation.a.value:.2f}") and labels[1].startswith("D_opt")
    with pytest.raises(ValueError, match="at least one IsoFLOP profile"):
        plot_isoflop_profiles([])
    with pytest.raises(TypeError, match="must be a dl4nlp.sweep_analysis.Allocation"):
        plot_allocation({"a": 1})
    plt.close("all")
