"""Scaling laws: parameter and FLOP counts, power-law fits, and the compute frontier.

Kaplan et al. (2020), Table 1, for a decoder-only Transformer with
``d_ff = 4 d_model``: non-embedding parameters ``N ≈ 12 n_layers d_model²`` and
forward FLOPs per token ``C_forward ≈ 2N + 2 n_layers n_ctx d_model``; training
costs about three forward passes, so ``C ≈ 6 N D`` for ``D`` tokens.
``fit_power_law`` fits ``L(x) = (x_c / x)^α`` (optionally ``+ E``) by least
squares in log space, with a standard error and a bootstrap interval on α.
The sweep of tiny models that produces the data is the recipe
``python -m dl4nlp.recipes.scaling_sweep``; Hoffmann et al.'s (2022) methods
for the compute-optimal allocation are in ``dl4nlp.compute_optimal``.
Taught in notebook 14.

>>> fit = fit_power_law([1e3, 1e4, 1e5], [4.0, 2.0, 1.0])
>>> round(fit.alpha, 3)
0.301
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np
import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode, sdpa_flop_count

from dl4nlp._checks import check_array, check_bool, check_int, check_number, check_sequence, check_type, given
from dl4nlp.transformer import TransformerConfig

# ---- parameters and FLOPs ---------------------------------------------------


def kaplan_parameters(n_layers: int, d_model: int, d_ff: Optional[int] = None) -> int:
    """Kaplan's N = 2 d_model n_layers (2 d_attn + d_ff) with d_attn = d_model: weights only, no biases or norms."""
    check_int("n_layers", n_layers)
    check_int("d_model", d_model)
    d_ff = 4 * d_model if d_ff is None else check_int("d_ff", d_ff)
    return 2 * d_model * n_layers * (2 * d_model + d_ff)


def non_embedding_parameters(config: TransformerConfig) -> int:
    """Exact non-embedding parameter count of ``TransformerLM(config)`` with tied weights.

    Per block: Q, K, V and output projections with biases (4 d² + 4 d), the
    feed-forward layers (2 d d_ff + d_ff + d), two LayerNorms (4 d); plus the
    final LayerNorm (2 d) when ``norm_first``. Equals
    ``count_parameters(model, exclude_embeddings=True)``.
    """
    check_type("config", config, TransformerConfig, "a TransformerConfig")
    d, f = config.d_model, config.d_ff
    per_block = 4 * d * d + 4 * d + 2 * d * f + f + d + 4 * d
    return config.n_layers * per_block + (2 * d if config.norm_first else 0)


def kaplan_forward_flops(n_params: float, n_layers: int, n_ctx: int, d_model: int) -> float:
    """Forward FLOPs per token, Kaplan et al. (2020) Table 1: 2N + 2 n_layers n_ctx d_model."""
    check_number("n_params", n_params, 0.0, low_open=True)
    for name, value in [("n_layers", n_layers), ("n_ctx", n_ctx), ("d_model", d_model)]:
        check_int(name, value)
    return 2.0 * n_params + 2.0 * n_layers * n_ctx * d_model


def flops_breakdown(config: TransformerConfig, n_ctx: int) -> dict[str, int]:
    """Forward FLOPs per token of ``TransformerLM(config)`` counted as PyTorch's ``FlopCounterMode`` counts them.

    Only matrix products count (2 FLOPs per multiply-add; biases, softmax,
    LayerNorm and GELU are not counted): ``'linear'`` = 2 × the weights of the
    blocks' linear layers, ``'attention'`` = QKᵀ and weights·V for every one
    of the ``n_ctx`` keys (the causal mask does not save work in a dense
    implementation, so 4 n_layers n_ctx d_model), ``'de-embedding'`` =
    2 d_model V for the output layer.
    """
    check_type("config", config, TransformerConfig, "a TransformerConfig")
    check_int("n_ctx", n_ctx)
    d, L = config.d_model, config.n_layers
    return {
        "linear": 2 * L * (4 * d * d + 2 * d * config.d_ff),
        "attention": 4 * L * n_ctx * d,
        "de-embedding": 2 * d * config.vocab_size,
    }


def _cpu_flash_attention_flops(query, key, value, *args, **kwargs) -> int:
    """FLOPs of ``aten._scaled_dot_product_flash_attention_for_cpu``: those of QKᵀ and weights·V, as
    ``torch.utils.flop_counter.sdpa_flop_count`` counts the CUDA attention kernels. Takes tensors (newer
    PyTorch, because ``_get_raw`` is set) or shapes (PyTorch 2.1, which always passes shapes)."""
    shape = lambda x: tuple(x.shape) if isinstance(x, torch.Tensor) else tuple(x)  # noqa: E731
    return sdpa_flop_count(shape(query), shape(key), shape(value))


_cpu_flash_attention_flops._get_raw = True  # type: ignore[attr-defined]


def flop_formulas() -> dict:
    """Formulas ``FlopCounterMode(custom_mapping=...)`` lacks: the fused CPU attention kernel (present in
    PyTorch >= 2.2), counted like its CUDA siblings. Empty where the kernel does not exist."""
    aten = torch.ops.aten
    if not hasattr(aten, "_scaled_dot_product_flash_attention_for_cpu"):
        return {}
    return {aten._scaled_dot_product_flash_attention_for_cpu: _cpu_flash_attention_flops}


def measure_forward_flops(model: nn.Module, n_ctx: int, batch_size: int = 1) -> float:
    """Forward FLOPs per token of ``model`` on a (batch_size, n_ctx) batch, counted by ``FlopCounterMode``.

    The counter sees only operations it has a formula for. With ``fast_attention=True`` on a CPU, older
    PyTorch versions run attention with a mask through the "math" fallback (ordinary matrix products,
    counted); newer ones run the fused ``_scaled_dot_product_flash_attention_for_cpu`` kernel, for which
    ``torch.utils.flop_counter`` has no formula. ``flop_formulas`` supplies one (QKᵀ and weights·V over
    every key, as the readable path computes them), so both paths count the same on every version.

    >>> from dl4nlp.transformer import TransformerConfig, TransformerLM
    >>> config = TransformerConfig(vocab_size=10, d_model=16, n_heads=2, n_layers=1, max_len=8, fast_attention=True)
    >>> measure_forward_flops(TransformerLM(config), 8) == sum(flops_breakdown(config, 8).values())
    True
    """
    check_type("model", model, nn.Module, "a torch.nn.Module (a TransformerLM)")
    if next(model.parameters(), None) is None:
        raise ValueError(f"model must have parameters (they give its device); got {given(model)}")
    check_int("n_ctx", n_ctx)
    check_int("batch_size", batch_size)
    config = getattr(model, "config", None)
    if isinstance(config, TransformerConfig) and config.positional != "none" and n_ctx > config.max_len:
        raise ValueError(f"n_ctx must be at most the model's max_len={config.max_len}; got {n_ctx}")
    ids = torch.zeros(batch_size, n_ctx, dtype=torch.long, device=next(model.parameters()).device)
    counter = FlopCounterMode(display=False, custom_mapping=flop_formulas())
    with counter, torch.no_grad():
        model(ids)
    return counter.get_total_flops() / (batch_size * n_ctx)


def training_flops(n_params: float, tokens: float) -> float:
    """C ≈ 6 N D: forward (2N) plus backward (4N) per token, Kaplan et al. (2020)."""
    check_number("n_params", n_params, 0.0, low_open=True)
    check_number("tokens", tokens, 0.0, low_open=True)
    return 6.0 * n_params * tokens


def attention_share(n_ctx: float, d_model: float) -> float:
    """Fraction of Kaplan's forward FLOPs spent on attention scores: n_ctx / (12 d_model + n_ctx)."""
    check_number("n_ctx", n_ctx, 0.0, low_open=True)
    check_number("d_model", d_model, 0.0, low_open=True)
    return n_ctx / (12.0 * d_model + n_ctx)


def attention_crossover(d_model: int, dense: bool = False) -> int:
    """The context length at which attention costs as much as a block's linear layers (24 d² FLOPs per token):
    12 d with Kaplan's causal count 2 n d, 6 d for a dense implementation that computes every masked score."""
    d_model = check_int("d_model", d_model)
    return (6 if check_bool("dense", dense) else 12) * d_model


def compute_optimal_split(compute: float, tokens_per_parameter: float = 20.0) -> tuple[float, float]:
    """(N, D) with C = 6 N D and D = tokens_per_parameter × N: Hoffmann et al.'s rule of thumb.

    >>> n, d = compute_optimal_split(6 * 20 * 1e6**2)
    >>> round(n), round(d)
    (1000000, 20000000)
    """
    compute = check_number("compute", compute, low=0, low_open=True)
    tokens_per_parameter = check_number("tokens_per_parameter", tokens_per_parameter, low=0, low_open=True)
    n = math.sqrt(compute / (6.0 * tokens_per_parameter))
    return n, tokens_per_parameter * n


# ---- power-law fits ---------------------------------------------------------


@dataclass
class PowerLawFit:
    """``L(x) = E + (x_c / x)^alpha``, fitted by least squares on log L (E = 0 without an irreducible term)."""

    alpha: float
    x_c: float
    irreducible: float
    alpha_se: float  # standard error from the fit's covariance
    alpha_ci: tuple[float, float]  # 95% residual-bootstrap interval
    r2: float  # in log space
    rss: float  # residual sum of squares of log L
    n_points: int
    n_params: int = field(default=2)

    def __call__(self, x) -> np.ndarray:
        x = _positive("x", x, ndim=None)
        return self.irreducible + (self.x_c / x) ** self.alpha

    @property
    def aic(self) -> float:
        """Akaike's criterion n ln(RSS/n) + 2k: lower is better, penalising the extra parameter of E."""
        return self.n_points * math.log(max(self.rss, 1e-300) / self.n_points) + 2 * self.n_params

    def __str__(self) -> str:
        extra = f" + {self.irreducible:.3f}" if self.n_params == 3 else ""
        return (
            f"L = ({self.x_c:.3g} / x)^{self.alpha:.3f}{extra};  alpha = {self.alpha:.3f} ± {self.alpha_se:.3f} "
            f"(95% bootstrap {self.alpha_ci[0]:.3f}..{self.alpha_ci[1]:.3f}), R² = {self.r2:.4f}"
        )


def _positive(name: str, values, ndim: Optional[int] = 1) -> np.ndarray:
    """Finite positive numbers (fitted or drawn in log space), as a float array; strings are refused, not parsed."""
    return check_array(name, values, ndim=ndim, low=0.0, low_open=True, nonempty=False, expected="1-D numbers")


def _check_xy(x, y) -> tuple[np.ndarray, np.ndarray]:
    x, y = _positive("x", x), _positive("y", y)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same length; got {x.size} and {y.size}")
    if x.size < 3:
        raise ValueError(f"need at least 3 points to fit a power law; got {x.size}")
    if np.unique(x).size < 2:
        raise ValueError(f"x must hold at least two distinct values to fit an exponent; got all {x[0]}")
    return x, y


def _linear_fit(lx: np.ndarray, ly: np.ndarray) -> tuple[float, float, float, float]:
    """Least squares ly = a + b lx; returns a, b, rss, standard error of b."""
    X = np.stack([np.ones_like(lx), lx], axis=1)
    (a, b), *_ = np.linalg.lstsq(X, ly, rcond=None)
    rss = float(np.sum((ly - a - b * lx) ** 2))
    dof = max(len(lx) - 2, 1)
    cov = rss / dof * np.linalg.inv(X.T @ X)
    return float(a), float(b), rss, float(math.sqrt(max(cov[1, 1], 0.0)))


def _fit_with_floor(lx: np.ndarray, y: np.ndarray, grid: int = 400) -> tuple[float, float, float]:
    """Best (E, alpha, log x_c) for log y = log(E + exp(alpha (log x_c - lx))): a grid over E, then Gauss-Newton."""
    ly = np.log(y)
    E = np.min(y) * (1 - np.geomspace(1.0, 1e-4, grid))[:, None]  # (G, 1): E in [0, min y), denser near min y
    lz = np.log(y - E)  # (G, n): for each E, a straight line log(y - E) = a + b lx
    dx = lx - lx.mean()
    b = (lz - lz.mean(1, keepdims=True)) @ dx / (dx @ dx)  # (G,)
    a = lz.mean(1) - b * lx.mean()
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rss = np.sum((ly - np.log(E + np.exp(a[:, None] + b[:, None] * lx))) ** 2, axis=1)
    rss[~(b < 0) | ~np.isfinite(rss)] = np.inf
    if not np.isfinite(rss).any():
        raise ValueError("the data do not decrease with x: no power law with an irreducible term fits")
    i = int(np.argmin(rss))
    theta = np.array([E[i, 0], -b[i], a[i] / -b[i]])
    for _ in range(50):  # Gauss-Newton steps with step halving, E kept in [0, min y)
        r, J = _residuals_and_jacobian(lx, ly, theta)
        step = np.linalg.lstsq(J, -r, rcond=None)[0]
        base, scale = float(r @ r), 1.0
        while scale > 1e-6:
            trial = theta + scale * step
            if 0 <= trial[0] < np.min(y) and _log_rss(lx, ly, *trial) < base:
                theta = trial
                break
            scale /= 2
        if scale <= 1e-6 or np.max(np.abs(scale * step)) < 1e-12:
            break
    return tuple(float(t) for t in theta)


def _log_rss(lx, ly, E, alpha, log_xc) -> float:
    return float(np.sum((ly - np.log(E + np.exp(alpha * (log_xc - lx)))) ** 2))


def _residuals_and_jacobian(lx, ly, theta) -> tuple[np.ndarray, np.ndarray]:
    E, alpha, log_xc = theta
    power = np.exp(alpha * (log_xc - lx))
    model = E + power
    r = ly - np.log(model)
    J = -np.stack([1 / model, power * (log_xc - lx) / model, power * alpha / model], axis=1)  # d r / d theta
    return r, J


def fit_power_law(
    x: Sequence[float], y: Sequence[float], irreducible: bool = False, n_bootstrap: int = 500, seed: int = 0
) -> PowerLawFit:
    """Fit ``y = (x_c / x)^α`` (``irreducible=True``: ``y = E + (x_c / x)^α``) minimising squared errors of log y.

    α's standard error comes from the covariance of the least-squares fit
    (σ² (JᵀJ)⁻¹, σ² = RSS / (n − k)); the 95% interval from refitting
    ``n_bootstrap`` copies of the data with resampled log residuals.
    """
    x, y = _check_xy(x, y)
    check_bool("irreducible", irreducible)
    check_int("n_bootstrap", n_bootstrap, low=0)
    check_int("seed", seed, low=0)
    lx, ly = np.log(x), np.log(y)
    tss = float(np.sum((ly - ly.mean()) ** 2))

    def solve(yy: np.ndarray) -> tuple[float, float, float]:
        if irreducible:
            return _fit_with_floor(lx, yy)
        a, b, _, _ = _linear_fit(lx, np.log(yy))
        return 0.0, -b, a / -b if b != 0 else math.inf

    E, alpha, log_xc = solve(y)
    r, J = _residuals_and_jacobian(lx, ly, (E, alpha, log_xc))
    k = 3 if irreducible else 2
    rss = float(r @ r)
    if irreducible:
        cov = rss / max(len(x) - k, 1) * np.linalg.pinv(J.T @ J)
        alpha_se = float(math.sqrt(max(cov[1, 1], 0.0)))
    else:
        alpha_se = _linear_fit(lx, ly)[3]
    rng = np.random.default_rng(seed)
    fitted = ly - r
    boot = []
    for _ in range(n_bootstrap):
        try:
            boot.append(solve(np.exp(fitted + rng.choice(r, size=r.size, replace=True)))[1])
        except ValueError:
            continue
    ci = (float(np.percentile(boot, 2.5)), float(np.percentile(boot, 97.5))) if boot else (math.nan, math.nan)
    return PowerLawFit(
        alpha=alpha,
        x_c=math.exp(log_xc),
        irreducible=E,
        alpha_se=alpha_se,
        alpha_ci=ci,
        r2=1 - rss / tss if tss > 0 else 1.0,
        rss=rss,
        n_points=len(x),
        n_params=k,
    )


# ---- the compute-efficient frontier -----------------------------------------


def frontier(
    curves: Sequence[tuple[Sequence[float], Sequence[float]]], grid: Sequence[float], at_most: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The compute-efficient frontier: the lowest loss any of ``curves`` (each a (flops, loss) pair) reaches
    with at most each compute in ``grid`` (``at_most=False``: at exactly that compute).

    Each curve is interpolated linearly in log-log space inside the compute range it covers. Returns
    (best loss, index of the curve that reached it); NaN and -1 where no curve reaches a grid point.
    """
    grid = _positive("grid", grid)
    if grid.size == 0 or np.any(np.diff(grid) <= 0):
        raise ValueError(f"grid must be a non-empty, strictly increasing sequence; got {grid.tolist()[:8]}")
    grid = np.log(grid)
    check_bool("at_most", at_most)
    curves = check_sequence("curves", curves, what="a list of (flops, loss) pairs")
    checked = []
    for index, curve in enumerate(curves):
        if not isinstance(curve, (tuple, list)) or len(curve) != 2 or isinstance(curve[0], (int, float)):
            raise TypeError(f"curves[{index}] must be a pair (flops, loss) of sequences; got {given(curve)}")
        flops, loss = _positive(f"curves[{index}] flops", curve[0]), _positive(f"curves[{index}] loss", curve[1])
        if flops.size != loss.size or flops.size == 0:
            raise ValueError(
                f"curves[{index}]: flops and loss must be non-empty and of equal length; "
                f"got {flops.size} and {loss.size}"
            )
        if np.any(np.diff(flops) <= 0):
            raise ValueError(f"curves[{index}] flops must be strictly increasing; got {flops.tolist()[:8]}")
        checked.append((np.log(flops), np.log(loss)))
    best = np.full(grid.shape, np.nan)
    which = np.full(grid.shape, -1)
    for index, (lf, ll) in enumerate(checked):
        inside = (grid >= lf.min()) & (grid <= lf.max())
        value = np.exp(np.interp(grid[inside], lf, ll))
        better = np.isnan(best[inside]) | (value < best[inside])
        idx = np.flatnonzero(inside)[better]
        best[idx], which[idx] = value[better], index
    if at_most:  # more compute can always stop early: carry the best loss so far forward
        for i in range(1, grid.size):
            if not np.isnan(best[i - 1]) and not (best[i] <= best[i - 1]):
                best[i], which[i] = best[i - 1], which[i - 1]
    return best, which
