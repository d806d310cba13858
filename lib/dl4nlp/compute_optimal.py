"""Compute-optimal allocation: Hoffmann et al.'s (2022) three methods on a grid of finished runs.

Given finished runs (each a model of N parameters trained on D tokens for C FLOPs,
ending at loss L):

1. ``envelope``: the runs no cheaper run beats (the lower envelope of final loss
   against compute); the sizes and token counts of its runs give N_opt(C) and D_opt(C);
2. ``isoflop_minimum``: at one compute budget, a parabola of L against log N through
   the runs of that budget; its vertex is the optimal size (Hoffmann et al.'s approach 2);
3. ``fit_parametric``: L(N, D) = E + A / N^alpha + B / D^beta over every run, with a
   Huber loss on log L (Hoffmann et al.'s approach 3), and ``ParametricFit.allocation``
   for the exponents a = beta / (alpha + beta), b = alpha / (alpha + beta) it implies.

``fit_slope`` fits a straight line in log-log space with its standard error and a
bootstrap interval (N_opt ∝ C^a); ``aicc`` and ``loo_rmse`` compare fits of different
size on few points; ``local_slopes`` gives the log-log slope between neighbours.
Taught in notebook 14.

>>> slope = fit_slope([1e9, 1e10, 1e11], [10.0, 31.6, 100.0])
>>> round(slope.value, 3)
0.5
>>> local_slopes([1, 10, 100], [4.0, 2.0, 1.0]).round(3).tolist()
[0.301, 0.301]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from dl4nlp._checks import check_array, check_callable, check_int, check_number


def _positive_1d(name: str, values, min_size: int = 1) -> np.ndarray:
    """A 1-D array of at least ``min_size`` finite positive numbers (fitted in log space)."""
    array = check_array(name, values, ndim=1, low=0, low_open=True, expected="1 dimension (one value per run)")
    if array.size < min_size:
        raise ValueError(f"{name} must have at least {min_size} values; got {array.size}: {array.tolist()}")
    return array


def _positive(name: str, values) -> np.ndarray:
    """Numbers of any shape (a scalar too), finite and positive: where a fit is evaluated."""
    return check_array(name, values, low=0, low_open=True, nonempty=False)


def _same_length(**arrays: np.ndarray) -> None:
    sizes = {name: a.size for name, a in arrays.items()}
    if len(set(sizes.values())) != 1:
        raise ValueError(f"{', '.join(sizes)} must have the same length; got {sizes}")


# --- straight lines in log-log space -------------------------------------------
@dataclass(frozen=True)
class Slope:
    """log y = intercept + value * log x, with the standard error of ``value`` and a 95 % bootstrap interval."""

    value: float
    se: float
    ci: tuple[float, float]
    intercept: float
    n_points: int

    def __call__(self, x) -> np.ndarray:
        return np.exp(self.intercept + self.value * np.log(_positive("x", x)))


def fit_slope(x: Sequence[float], y: Sequence[float], n_bootstrap: int = 1000, seed: int = 0) -> Slope:
    """Least-squares line through (log x, log y): the exponent of y ∝ x^value.

    The standard error is the usual sqrt(σ² / Σ(log x - mean)²) with σ² = RSS / (n - 2); the interval
    comes from refitting ``n_bootstrap`` resamples of the points (pairs bootstrap).
    """
    x, y = _positive_1d("x", x, 3), _positive_1d("y", y, 3)
    _same_length(x=x, y=y)
    n_bootstrap = check_int("n_bootstrap", n_bootstrap, low=0)
    seed = check_int("seed", seed, low=0)
    lx, ly = np.log(x), np.log(y)
    if np.ptp(lx) == 0:
        raise ValueError(f"x must take at least two different values; got {x.tolist()}")
    dx = lx - lx.mean()
    slope = float(dx @ (ly - ly.mean()) / (dx @ dx))
    intercept = float(ly.mean() - slope * lx.mean())
    rss = float(np.sum((ly - intercept - slope * lx) ** 2))
    se = math.sqrt(rss / (len(x) - 2) / (dx @ dx)) if len(x) > 2 else math.nan
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_bootstrap):
        pick = rng.integers(0, len(x), len(x))
        if np.ptp(lx[pick]) > 0:
            d = lx[pick] - lx[pick].mean()
            draws.append(d @ (ly[pick] - ly[pick].mean()) / (d @ d))
    ci = (float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))) if draws else (math.nan, math.nan)
    return Slope(value=slope, se=se, ci=ci, intercept=intercept, n_points=len(x))


def local_slopes(x: Sequence[float], y: Sequence[float]) -> np.ndarray:
    """−d log y / d log x between neighbouring points (x strictly increasing): the local exponent of a
    falling power law y ∝ x^(−slope). A pure power law has the same local slope everywhere."""
    x, y = _positive_1d("x", x, 2), _positive_1d("y", y, 2)
    _same_length(x=x, y=y)
    if np.any(np.diff(x) <= 0):
        raise ValueError(f"x must increase strictly; got {x.tolist()}")
    return -np.diff(np.log(y)) / np.diff(np.log(x))


# --- model selection on few points ---------------------------------------------
def aicc(rss: float, n_points: int, n_params: int) -> float:
    """Akaike's criterion with the small-sample correction, for least squares:
    n ln(RSS/n) + 2k + 2k(k+1)/(n-k-1). Lower is better; needs n > k + 1."""
    n_points, n_params = check_int("n_points", n_points), check_int("n_params", n_params)
    if n_points <= n_params + 1:
        raise ValueError(
            "AICc needs more points than parameters + 1 (n_points > n_params + 1); "
            f"got n_points={n_points}, n_params={n_params}"
        )
    rss = check_number("rss", rss, low=0)
    k, n = n_params, n_points
    return n * math.log(max(rss, 1e-300) / n) + 2 * k + 2 * k * (k + 1) / (n - k - 1)


def loo_rmse(fit, x: Sequence[float], y: Sequence[float]) -> float:
    """Leave-one-out error: refit ``fit(x_without_i, y_without_i)`` (which returns a callable) for every
    point i and return the root-mean-square error of log y at the left-out points."""
    check_callable("fit", fit, "a function fit(x, y) returning a callable model")
    x, y = check_array("x", x, ndim=1), _positive_1d("y", y, 3)
    _same_length(x=x, y=y)
    errors = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        model = check_callable("fit's result", fit(x[keep], y[keep]), "a callable model of x")
        errors.append(math.log(float(model(x[i : i + 1])[0])) - math.log(y[i]))
    return float(np.sqrt(np.mean(np.square(errors))))


# --- method 1: the envelope of finished runs ------------------------------------
def envelope(flops: Sequence[float], loss: Sequence[float]) -> np.ndarray:
    """Indices of the runs on the lower envelope, in order of compute: run i is on it when every run
    with at most its compute ends at a higher loss. Only pass finished runs (final losses)."""
    flops, loss = _positive_1d("flops", flops), _positive_1d("loss", loss)
    _same_length(flops=flops, loss=loss)
    order = np.lexsort((loss, flops))  # by compute, ties by loss
    best, front = math.inf, []
    for i in order:
        if loss[i] < best:
            front.append(int(i))
            best = loss[i]
    return np.array(front, dtype=int)


# --- method 2: IsoFLOP profiles ----------------------------------------------
@dataclass(frozen=True)
class IsoFLOPMinimum:
    """The vertex of L = c0 + c1 log N + c2 (log N)^2 at one compute budget."""

    n_opt: float
    loss: float
    curvature: float  # c2 > 0: a minimum
    coefficients: tuple[float, float, float]
    inside: bool  # the vertex lies between the smallest and the largest size tried

    def __call__(self, n) -> np.ndarray:
        c0, c1, c2 = self.coefficients
        ln = np.log(_positive("n", n))
        return c0 + c1 * ln + c2 * ln**2


def isoflop_minimum(n: Sequence[float], loss: Sequence[float]) -> IsoFLOPMinimum:
    """Fit a parabola of loss against log N through the runs of one compute budget (at least 3 sizes)."""
    n, loss = _positive_1d("n", n, 3), _positive_1d("loss", loss, 3)
    _same_length(n=n, loss=loss)
    if len(set(n.tolist())) < 3:
        raise ValueError(f"n must take at least 3 different sizes for a parabola; got {sorted(set(n.tolist()))}")
    c2, c1, c0 = np.polyfit(np.log(n), loss, 2)
    if not c2 > 0:
        raise ValueError(
            f"loss must curve upwards against log n, else the profile has no minimum; got curvature {c2:.3g} "
            f"from {loss.tolist()}"
        )
    ln_opt = -c1 / (2 * c2)
    return IsoFLOPMinimum(
        n_opt=float(math.exp(ln_opt)),
        loss=float(c0 + c1 * ln_opt + c2 * ln_opt**2),
        curvature=float(c2),
        coefficients=(float(c0), float(c1), float(c2)),
        inside=bool(np.log(n.min()) < ln_opt < np.log(n.max())),
    )


# --- method 3: the parametric loss ---------------------------------------------
@dataclass(frozen=True)
class ParametricFit:
    """L(N, D) = E + A / N^alpha + B / D^beta (Hoffmann et al. 2022, eq. 2)."""

    E: float
    A: float
    alpha: float
    B: float
    beta: float
    huber_loss: float
    rmse: float  # of log L
    n_points: int

    def __call__(self, n, d) -> np.ndarray:
        n, d = _positive("n", n), _positive("d", d)
        return self.E + self.A * n**-self.alpha + self.B * d**-self.beta

    def allocation(self) -> tuple[float, float]:
        """(a, b) with N_opt ∝ C^a and D_opt ∝ C^b when C ∝ N D: a = beta/(alpha+beta), b = alpha/(alpha+beta)."""
        return self.beta / (self.alpha + self.beta), self.alpha / (self.alpha + self.beta)


def _huber(r: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta))


def _parametric_residuals(theta: np.ndarray, ln: np.ndarray, ld: np.ndarray, ll: np.ndarray):
    """Residuals log L̂ − log L and their Jacobian for theta = (log E, log A, alpha, log B, beta)."""
    le, la, alpha, lb, beta = theta
    terms = np.stack([np.full_like(ln, le), la - alpha * ln, lb - beta * ld], axis=1)  # (n, 3) log of each term
    top = terms.max(axis=1, keepdims=True)
    weights = np.exp(terms - top)
    total = weights.sum(axis=1, keepdims=True)
    share = weights / total  # each term's share of L̂
    r = (top + np.log(total))[:, 0] - ll
    J = np.stack([share[:, 0], share[:, 1], -share[:, 1] * ln, share[:, 2], -share[:, 2] * ld], axis=1)
    return r, J


def fit_parametric(
    n: Sequence[float],
    d: Sequence[float],
    loss: Sequence[float],
    delta: float = 1e-3,
    exponents: Sequence[float] = tuple(np.linspace(0.05, 1.5, 30)),
    start: Optional[ParametricFit] = None,
) -> ParametricFit:
    """Fit L(N, D) = E + A/N^alpha + B/D^beta minimising the Huber loss (``delta``, Hoffmann et al.: 1e-3)
    of log L̂ − log L.

    Starts from every (alpha, beta) of ``exponents`` × ``exponents`` with E, A, B by least squares
    (non-negative), or from ``start``; then Gauss-Newton steps on the Huber loss from the best few starts.
    """
    n, d, loss = _positive_1d("n", n, 6), _positive_1d("d", d, 6), _positive_1d("loss", loss, 6)
    _same_length(n=n, d=d, loss=loss)
    delta = check_number("delta", delta, low=0, low_open=True)
    exponents = _positive_1d("exponents", exponents)
    if start is not None and not isinstance(start, ParametricFit):
        raise TypeError(f"start must be a ParametricFit or None; got {type(start).__name__} {start!r:.60}")
    if len(set(n.tolist())) < 2 or len(set(d.tolist())) < 2:
        raise ValueError(
            "n and d need at least two different N and two different D to separate their terms; "
            f"got n {sorted(set(n.tolist()))}, d {sorted(set(d.tolist()))}"
        )
    ln, ld, ll = np.log(n), np.log(d), np.log(loss)
    starts = []
    if start is not None:
        starts.append(
            np.array([math.log(start.E), math.log(start.A), start.alpha, math.log(start.B), start.beta], dtype=float)
        )
    else:
        for alpha in exponents:
            for beta in exponents:
                X = np.stack([np.ones_like(ln), n**-alpha, d**-beta], axis=1) / loss[:, None]
                coef, *_ = np.linalg.lstsq(X, np.ones_like(ln), rcond=None)
                if np.all(coef > 0):
                    theta = np.array([math.log(coef[0]), math.log(coef[1]), alpha, math.log(coef[2]), beta])
                    r, _ = _parametric_residuals(theta, ln, ld, ll)
                    starts.append((float(_huber(r, delta).sum()), theta))
        if not starts:
            raise ValueError("no positive E, A, B fit the data at any exponent: the loss does not fall with N and D")
        starts = [theta for _, theta in sorted(starts, key=lambda s: s[0])[:5]]
    best = None
    for theta in starts:
        theta = _gauss_newton(theta, ln, ld, ll, delta)
        r, _ = _parametric_residuals(theta, ln, ld, ll)
        value = float(_huber(r, delta).sum())
        if best is None or value < best[0]:
            best = (value, theta, float(np.sqrt(np.mean(r**2))))
    value, (le, la, alpha, lb, beta), rmse = best
    return ParametricFit(math.exp(le), math.exp(la), float(alpha), math.exp(lb), float(beta), value, rmse, len(n))


def _gauss_newton(theta: np.ndarray, ln, ld, ll, delta: float, steps: int = 200) -> np.ndarray:
    """Iteratively reweighted Gauss-Newton on the Huber loss (weights min(1, delta/|r|)), with step halving."""
    r, J = _parametric_residuals(theta, ln, ld, ll)
    value = _huber(r, delta).sum()
    for _ in range(steps):
        w = np.minimum(1.0, delta / np.maximum(np.abs(r), 1e-300))
        step = np.linalg.lstsq(J * np.sqrt(w)[:, None], -r * np.sqrt(w), rcond=None)[0]
        scale = 1.0
        while scale > 1e-8:
            trial = theta + scale * step
            if trial[2] > 0 and trial[4] > 0:
                r_new, J_new = _parametric_residuals(trial, ln, ld, ll)
                new = _huber(r_new, delta).sum()
                if new < value:
                    break
            scale /= 2
        else:
            break
        improvement = value - new
        theta, r, J, value = trial, r_new, J_new, new
        if improvement < 1e-14 * max(value, 1e-300):
            break
    return theta
