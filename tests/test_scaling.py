"""dl4nlp.scaling and dl4nlp.sweep: counts against the modules, fits against known laws, a resumable sweep."""

import json
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp.data import load_text
from dl4nlp.scaling import (
    attention_share,
    fit_power_law,
    flops_breakdown,
    frontier,
    kaplan_forward_flops,
    kaplan_parameters,
    measure_forward_flops,
    non_embedding_parameters,
    training_flops,
)
from dl4nlp.sweep import (
    CharData,
    SweepSpec,
    continuation_metrics,
    eval_steps,
    heldout_loss,
    load_models,
    load_sweep,
    lr_factor,
    main,
    model_config,
    models_path,
    parse_size,
    peak_lr,
    run_sweep,
)
from dl4nlp.transformer import TransformerConfig, TransformerLM, count_parameters


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny models train fastest on one thread (and much faster on a busy CPU)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


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


# ---- the sweep --------------------------------------------------------------
TINY = dict(
    sizes=("1x8", "1x16"),
    steps=16,
    budget_fractions=(0.5, 1.0),
    constant_lr_sizes=("1x8",),
    batch_size=4,
    context=16,
    eval_windows=8,
    emergence_windows=16,
    emergence_start=4,
    max_k=4,
)


def test_sizes_schedules_and_evaluation_points():
    assert parse_size("3x64") == (3, 64, 4) and parse_size("2x24") == (2, 24, 1) and parse_size("3x40") == (3, 40, 2)
    with pytest.raises(ValueError, match="LAYERSxWIDTH"):
        parse_size("big")
    with pytest.raises(ValueError, match="even width"):
        parse_size("2x7")
    assert model_config("2x32", 65, 64).n_heads == 2
    assert [lr_factor(s, 100, "cosine", 10, 0.1) for s in (0, 9, 10)] == [0.1, 1.0, 1.0]
    assert lr_factor(100, 100, "cosine", 10, 0.1) == pytest.approx(0.1)
    assert lr_factor(55, 100, "cosine", 10, 0.1) == pytest.approx(0.55)
    assert lr_factor(99, 100, "constant", 10, 0.1) == 1.0
    with pytest.raises(ValueError, match="schedule must be"):
        lr_factor(50, 100, "linear", 10, 0.1)
    assert eval_steps(64) == [2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    with pytest.raises(ValueError, match="constant_lr_sizes must be among sizes"):
        SweepSpec(sizes=("1x8",), constant_lr_sizes=("2x32",))
    with pytest.raises(ValueError, match="must lie in"):
        SweepSpec(budget_fractions=(0.5,))
    with pytest.raises(ValueError, match="corpus must be one of"):
        SweepSpec(corpus="wiki.txt")
    with pytest.raises(ValueError, match="steps must be a positive integer; got 0"):
        SweepSpec(steps=0)
    with pytest.raises(ValueError, match="emergence_start \\+ max_k must be <= context=16"):
        SweepSpec(context=16)


def test_continuation_metrics_of_a_perfect_and_a_constant_predictor():
    chars = [" ", "a", "b"]
    windows = torch.tensor([[1, 2, 0, 1, 1, 2, 0, 2, 1]])  # "ab aab ba"

    class Oracle(torch.nn.Module):
        def __init__(self, answer):
            super().__init__()
            self.answer, self.w = answer, torch.nn.Parameter(torch.zeros(1))

        def forward(self, ids):
            return torch.nn.functional.one_hot(self.answer[:, : ids.shape[1]], 3).float()

    perfect = continuation_metrics(Oracle(windows[:, 1:]), windows, chars, start=0, max_k=3, min_completion=2)
    assert perfect["token_accuracy"] == 1.0 and perfect["exact_match"] == [1.0, 1.0, 1.0]
    assert perfect["words"] == 1 and perfect["word_exact_match"] == 1.0  # "aab"; "ba" runs into the window's edge
    assert perfect["completions"] == 1 and perfect["completion_exact_match"] == 1.0  # "ab" after the first "a"
    always_a = continuation_metrics(
        Oracle(torch.ones_like(windows[:, 1:])), windows, chars, start=0, max_k=3, min_completion=2
    )
    assert always_a["token_accuracy"] == pytest.approx(3 / 8)  # targets "b aab ba": an a at 3 of 8
    assert always_a["exact_match"][1] == pytest.approx(1 / 7) and always_a["exact_match"][2] == 0.0
    assert always_a["word_exact_match"] == 0.0 and always_a["completion_exact_match"] == 0.0
    assert always_a["completion_char_accuracy"] == 0.5
    assert continuation_metrics(Oracle(windows[:, 1:]), windows, chars, start=0, max_k=3)["completions"] == 0


def test_sweep_resumes_to_the_same_numbers(tmp_path):
    spec = SweepSpec(**TINY)
    whole = run_sweep(spec, tmp_path / "whole.json", tmp_path / "w1", torch.device("cpu"), progress=False)
    assert whole["complete"] and len(whole["runs"]) == 5
    out = tmp_path / "sliced.json"
    first = run_sweep(spec, out, tmp_path / "w2", torch.device("cpu"), max_steps=20, progress=False, command="x")
    assert not first["complete"] and list((tmp_path / "w2").glob("*.pt")), "a checkpoint of the run in progress"
    while not json.loads(out.read_text())["complete"]:
        run_sweep(spec, out, tmp_path / "w2", torch.device("cpu"), max_steps=5, progress=False, command="x")
    sliced = load_sweep(out)
    assert sliced["recipe"]["sessions"][1]["resumed"] and len(sliced["recipe"]["sessions"]) > 2
    assert sliced["runs"] == whole["runs"]  # bit for bit: model, optimiser, schedule and data order restored
    recipe = sliced["recipe"]
    assert recipe["corpus_md5"] == "6fb458f1232090904fb40fe944165e91" and recipe["command"] == "x"
    run = sliced["runs"]["1x16-cosine-16"]
    assert run["non_embedding_params"] == 3312 and len(run["curve"]) == len(eval_steps(16))
    assert run["curve"][-1]["flops"] == 6 * 3312 * run["curve"][-1]["tokens"] == 6 * 3312 * 16 * 4 * 16
    assert 0 <= run["continuation"]["token_accuracy"] <= 1 and len(run["continuation"]["exact_match"]) == 4
    models, chars = load_models(models_path(out))
    assert set(models) == {"1x8", "1x16"} and len(chars) == 65
    assert models["1x16"].lm_head.weight is models["1x16"].token_embedding.weight  # still tied after loading
    data = CharData(load_text("tinyshakespeare.txt"))
    final = run["curve"][-1]["heldout_loss"]
    assert heldout_loss(models["1x16"], data.heldout_windows(spec.eval_windows, spec.context)) == pytest.approx(
        final, abs=0.01
    )  # float16 storage changes the loss by far less than 0.01
    assert peak_lr(3e-3, 16) == pytest.approx(6e-3)
    with pytest.raises(ValueError, match="different spec"):
        run_sweep(SweepSpec(**{**TINY, "lr": 1e-2}), out, tmp_path / "w2", progress=False)


def test_an_interrupted_sweep_keeps_its_wall_time(tmp_path, monkeypatch):
    import dl4nlp.sweep

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(dl4nlp.sweep, "_train_run", interrupted)
    out = tmp_path / "stopped.json"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(SweepSpec(**TINY), out, tmp_path / "w", torch.device("cpu"), progress=False)
    stored = load_sweep(out)
    assert not stored["complete"] and stored["runs"] == {} and len(stored["recipe"]["sessions"]) == 1


def test_cli_help_and_a_tiny_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0 and "--max-steps" in capsys.readouterr().out
    out = tmp_path / "cli.json"
    assert (
        main(
            [
                "--sizes",
                "1x8",
                "--steps",
                "8",
                "--budgets",
                "1/2,1",
                "--constant-lr-sizes",
                "",
                "--batch-size",
                "2",
                "--context",
                "64",
                "--out",
                str(out),
                "--workdir",
                str(tmp_path / "w"),
                "--device",
                "cpu",
                "--no-progress",
            ]
        )
        == 0
    )
    stored = load_sweep(out)
    assert stored["complete"] and stored["recipe"]["command"].startswith("python -m dl4nlp.scaling --sizes 1x8")
    with pytest.raises(SystemExit):
        main(["--budgets", "half"])
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "dl4nlp.scaling", "--help"], capture_output=True, text=True)
    assert shown.returncode == 0 and "resumes where it stopped" in shown.stdout


def test_char_data_splits_and_windows():
    data = CharData("abcdefghij" * 10, heldout_fraction=0.2)
    assert len(data.chars) == 10 and len(data.train) == 80 and len(data.heldout) == 20
    x, y = data.batch(3, 5, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (3, 5) and torch.equal(x[:, 1:], y[:, :-1])
    assert data.heldout_windows(4, 5).shape == (4, 6)
    with pytest.raises(ValueError, match="heldout_fraction must be in"):
        CharData("abc", heldout_fraction=1.5)


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
