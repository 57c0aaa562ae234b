"""Interval estimates and the statistical tests the test suite and analyses use.

All functions are pure: counts in, numbers out.  SciPy is imported inside the functions
that need it, so ``import balance`` (and every command that only prints a Wilson interval)
does not pay for ``scipy.stats``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._recent import Recent

__all__ = [
    "SCORES",
    "benjamini_hochberg",
    "bradley_terry",
    "chi2_homogeneity",
    "clopper_pearson",
    "dominated_by_mix",
    "dominated_by_mix_in",
    "domination_margin",
    "gof_pvalue",
    "half_width",
    "holm",
    "newcombe",
    "normal_pvalue",
    "paired_se",
    "symmetric_nash",
    "wilson",
    "z_value",
]


@lru_cache(maxsize=64)
def z_value(confidence: float) -> float:
    """Two-sided normal quantile for a confidence level (1.959964 for 0.95).

    The standard library's ``NormalDist.inv_cdf`` (Wichura's AS241, accurate to about 1e-16)
    gives the same value as ``scipy.stats.norm.ppf`` without importing SciPy.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(k: ArrayLike, n: ArrayLike, confidence: float = 0.95
           ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a binomial proportion ``k / n``.

    Vectorised over ``k`` and ``n``; ``n == 0`` gives the uninformative ``[0, 1]``.
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_value(confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, k / n, 0.5)
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        spread = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
        low = np.where(n > 0, np.clip(centre - spread, 0, 1), 0.0)
        high = np.where(n > 0, np.clip(centre + spread, 0, 1), 1.0)
    # exact ends: no successes -> low is 0, all successes -> high is 1
    low = np.where(k == 0, 0.0, low)
    high = np.where(k == n, 1.0, high)
    return low, high


def half_width(k: ArrayLike, n: ArrayLike, confidence: float = 0.95) -> np.ndarray:
    """Half the width of the Wilson interval (the "± precision" of a rate)."""
    low, high = wilson(k, n, confidence)
    return (high - low) / 2


def clopper_pearson(k: ArrayLike, n: ArrayLike, confidence: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Exact (conservative) Clopper-Pearson interval."""
    from scipy import stats as _st

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    alpha = 1 - confidence
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, _st.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        high = np.where(k < n, _st.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    return low, high


def gof_pvalue(observed: np.ndarray, expected_probs: np.ndarray, *, min_expected: float = 5.0
               ) -> float:
    """Chi-square goodness-of-fit p-value of counts against exact probabilities.

    Cells with expected count below ``min_expected`` are pooled into their neighbour so the
    chi-square approximation holds.  Outcomes the model gives probability 0 but that were
    observed make the p-value 0.
    """
    observed = np.asarray(observed, dtype=float)
    probs = np.asarray(expected_probs, dtype=float)
    n = observed.sum()
    if np.any((probs == 0) & (observed > 0)):
        return 0.0
    keep = probs > 0
    observed, expected = observed[keep], probs[keep] * n
    obs_pooled, exp_pooled = [], []
    acc_o = acc_e = 0.0
    for o, e in zip(observed, expected, strict=True):
        acc_o += o
        acc_e += e
        if acc_e >= min_expected:
            obs_pooled.append(acc_o)
            exp_pooled.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0:
        if exp_pooled:
            obs_pooled[-1] += acc_o
            exp_pooled[-1] += acc_e
        else:
            obs_pooled.append(acc_o)
            exp_pooled.append(acc_e)
    if len(exp_pooled) < 2:
        return 1.0
    from scipy import stats as _st

    return float(_st.chisquare(obs_pooled, exp_pooled).pvalue)


def chi2_homogeneity(counts_a: np.ndarray, counts_b: np.ndarray, *, min_expected: float = 5.0
                     ) -> float:
    """p-value that two samples of categorical counts come from one distribution.

    Used to test a vectorised kernel against its scalar reference.  Categories whose pooled
    expected count is small are merged with their neighbour.
    """
    a = np.asarray(counts_a, dtype=float)
    b = np.asarray(counts_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError("count vectors differ in shape")
    total = a + b
    keep = total > 0
    a, b, total = a[keep], b[keep], total[keep]
    share_a = a.sum() / total.sum()
    rows_a, rows_b = [], []
    acc_a = acc_b = 0.0
    for x, y in zip(a, b, strict=True):
        acc_a += x
        acc_b += y
        expected_small = min(share_a, 1 - share_a) * (acc_a + acc_b)
        if expected_small >= min_expected:
            rows_a.append(acc_a)
            rows_b.append(acc_b)
            acc_a = acc_b = 0.0
    if acc_a + acc_b > 0:
        if rows_a:
            rows_a[-1] += acc_a
            rows_b[-1] += acc_b
        else:
            rows_a.append(acc_a)
            rows_b.append(acc_b)
    if len(rows_a) < 2:
        return 1.0
    from scipy import stats as _st

    table = np.array([rows_a, rows_b])
    return float(_st.chi2_contingency(table, correction=False).pvalue)


# --- many comparisons at once --------------------------------------------------------------


def normal_pvalue(diff: ArrayLike, se: ArrayLike, beyond: ArrayLike = 0.0) -> np.ndarray:
    """Two-sided p-value that a difference lies beyond ``beyond`` (in its own direction).

    ``2 * (1 - Phi((|diff| - beyond) / se))``, capped at 1: below 0.05 exactly where the 95%
    interval ``diff +/- 1.96 se`` clears ``beyond`` on the side of ``diff`` (the rule a
    verdict reads one comparison by).  ``se == 0`` (an exact difference) gives 0 where
    ``|diff| > beyond`` and 1 elsewhere.
    """
    diff = np.abs(np.asarray(diff, dtype=float))
    se = np.asarray(se, dtype=float)
    gap = diff - np.asarray(beyond, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se > 0, gap / np.where(se > 0, se, 1.0), np.where(gap > 0, np.inf, -np.inf))
    tail = np.array([NormalDist().cdf(-float(v)) if np.isfinite(v) else (0.0 if v > 0 else 1.0)
                     for v in np.ravel(z)]).reshape(z.shape)
    return np.minimum(2 * tail, 1.0)


def holm(pvalues: ArrayLike) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control).

    The ``i``-th smallest of ``m`` p-values is multiplied by ``m - i + 1`` (``i`` from 1),
    made non-decreasing along that order and capped at 1; rejecting every hypothesis whose
    adjusted value is below ``alpha`` keeps the chance of any false rejection at most
    ``alpha``, whatever the dependence between the tests (Holm 1979).
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = (m - np.arange(m)) * p[order]
    adjusted = np.minimum(np.maximum.accumulate(scaled), 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(p.shape)


def benjamini_hochberg(pvalues: ArrayLike) -> np.ndarray:
    """Benjamini-Hochberg step-up adjusted p-values (false discovery rate control).

    The ``i``-th smallest of ``m`` p-values is multiplied by ``m / i``, made non-decreasing
    from the largest down and capped at 1; rejecting those below ``q`` keeps the expected
    share of false rejections among the rejections at most ``q`` for independent or
    positively dependent tests (Benjamini and Hochberg 1995).
    """
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(p.shape)


# --- differences, ratings and equilibria -------------------------------------------------


def newcombe(k1: ArrayLike, n1: ArrayLike, k2: ArrayLike,
             n2: ArrayLike, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval for ``k1/n1 - k2/n2`` (independent samples).

    Built from the two Wilson intervals; good coverage even near 0 and 1.
    """
    p1 = np.asarray(k1, float) / np.asarray(n1, float)
    p2 = np.asarray(k2, float) / np.asarray(n2, float)
    l1, u1 = wilson(k1, n1, confidence)
    l2, u2 = wilson(k2, n2, confidence)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return low, high


def bradley_terry(wins: np.ndarray, *, prior: float = 0.0, iterations: int = 10_000,
                  tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry strengths from a matrix of (fractional) wins.

    Parameters
    ----------
    wins
        ``wins[i, j]``: games ``i`` won against ``j`` (draws count half to each).
    prior
        Pseudo-wins added to every pair in both directions (0: plain maximum likelihood;
        a small value keeps strengths finite when a player never loses).

    Returns
    -------
    theta, cov
        Log-strengths centred to sum 0 (``P(i beats j) = 1 / (1 + exp(theta_j - theta_i))``)
        and their covariance from the observed information, on the sum-zero subspace.
    """
    w = np.asarray(wins, float) + prior * (1 - np.eye(len(wins)))
    key = (w.shape, w.tobytes(), iterations, tol)
    if key not in _BT_MADE:
        _BT_MADE.keep(key, _bradley_terry(w, iterations, tol))
    theta, cov = _BT_MADE[key]
    return theta.copy(), cov.copy()


_BT_MADE: Recent[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = Recent(8)
"""The last few fits by their wins: a command that prints a round robin and its verdict
fits the same table twice, and the iteration to 1e-12 is not free."""


def _bradley_terry(w: np.ndarray, iterations: int, tol: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    games = w + w.T
    k = len(w)
    theta = _bt_newton(w, games, tol) if _finite_maximum(w) else None
    if theta is None:  # no finite maximum: the MM iteration, as far as it goes
        theta = _bt_mm(w, games, iterations, tol)
    _, information = _bt_information(theta, games)
    centre = np.eye(k) - 1 / k
    cov = centre @ np.linalg.pinv(information) @ centre
    return theta, cov


def _bt_information(theta: np.ndarray, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``q[i, j]``, the chance ``i`` beats ``j`` at strengths ``theta``, and the observed
    information there (a Laplacian: minus the log-likelihood's Hessian)."""
    q = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    info = games * q * (1 - q)
    return q, np.diag(info.sum(axis=1)) - info


def _finite_maximum(w: np.ndarray) -> bool:
    """Whether the likelihood has a finite maximum (Zermelo, Ford): every entrant reaches
    every other along a chain of wins, whichever way the entrants are split."""
    reach = (w > 0) | np.eye(len(w), dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(len(w)))))):
        reach = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
    return bool(reach.all())


NEWTON_STEPS = 100
"""Newton steps tried before the fit falls back to the MM iteration."""


def _bt_newton(w: np.ndarray, games: np.ndarray, tol: float) -> np.ndarray | None:
    """The maximum-likelihood log-strengths (sum 0) by Newton's method on the
    log-likelihood, each step halved until the likelihood does not fall; ``None`` if it
    does not settle (a maximum at infinity: someone never loses, no prior)."""
    k = len(w)
    total_wins = w.sum(axis=1)
    centre = np.eye(k) - 1 / k

    def loglik(t: np.ndarray) -> float:
        d = t[:, None] - t[None, :]
        return float((w * -np.logaddexp(0.0, -d)).sum())  # sum w_ij log q_ij

    theta = np.zeros(k)
    value = loglik(theta)
    for _ in range(NEWTON_STEPS):
        q, information = _bt_information(theta, games)
        grad = total_wins - (games * q).sum(axis=1)
        step = centre @ np.linalg.lstsq(information, grad, rcond=None)[0]
        for _ in range(60):  # halve until the likelihood does not fall
            trial = theta + step
            new_value = loglik(trial)
            if new_value >= value - 1e-12 * abs(value):
                break
            step = step / 2
        else:
            return None
        theta, value = trial - trial.mean(), new_value
        if np.max(np.abs(step)) < tol:
            return theta
    return None


def _bt_mm(w: np.ndarray, games: np.ndarray, iterations: int, tol: float) -> np.ndarray:
    """The log-strengths (sum 0) by Zermelo's / Hunter's MM iteration."""
    k = len(w)
    p = np.ones(k)
    total_wins = w.sum(axis=1)
    for _ in range(iterations):  # Zermelo / Hunter's MM iteration
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1), p)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.log(new).mean())
        if np.max(np.abs(np.log(new) - np.log(p))) < tol:
            p = new
            break
        p = new
    theta = np.log(p)
    return theta - theta.mean()


def symmetric_nash(payoff: np.ndarray) -> tuple[np.ndarray, float]:
    """A maximin mixed strategy of the row player in the zero-sum game ``payoff``.

    ``payoff[i, j]`` is the row player's gain when row ``i`` meets column ``j``.  Solved
    by linear programming: maximise ``v`` subject to ``x @ payoff >= v``, ``sum(x) = 1``.

    Returns
    -------
    strategy, value
    """
    from scipy.optimize import linprog

    a = np.asarray(payoff, float)
    k, m = a.shape
    # variables: x_1..x_k, v ; minimise -v
    c = np.zeros(k + 1)
    c[-1] = -1
    a_ub = np.hstack([-a.T, np.ones((m, 1))])  # v - x @ a[:, j] <= 0
    b_ub = np.zeros(m)
    a_eq = np.hstack([np.ones((1, k)), np.zeros((1, 1))])
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                  bounds=[(0, None)] * k + [(None, None)], method="highs")
    if not res.success:
        raise RuntimeError(f"linear program failed: {res.message}")
    x = np.clip(res.x[:k], 0, None)
    return x / x.sum(), float(res.x[-1])


def domination_margin(payoff: np.ndarray, row: int) -> float:
    """How far row ``row`` is strictly dominated by a mixture of the other rows.

    The largest ``eps`` such that some mixture ``y`` of the other rows gains at least
    ``eps`` more than ``row`` against every column; ``eps > 0`` means dominated.

    That largest ``eps`` is the value of the zero-sum game in which the other rows play
    against the columns with payoff ``payoff[other] - payoff[row]``: solved by
    :func:`balance.matrix_game.solve_sealed` (a saddle point or a simplex, certified
    optimal; a linear program only if the certificate fails).
    """
    from .matrix_game import solve_sealed

    a = np.asarray(payoff, float)
    others = [i for i in range(len(a)) if i != row]
    if not others:
        return float("-inf")
    return solve_sealed(a[others] - a[row][None, :]).value


def dominated_by_mix(payoff: np.ndarray, row: int) -> bool:
    """Whether row ``row`` is strictly dominated by a mixture of the other rows
    (:func:`domination_margin` > 0): :func:`dominated_by_mix_in` of one game."""
    return bool(dominated_by_mix_in(np.asarray(payoff, float)[None], row)[0])


def dominated_by_mix_in(games: np.ndarray, row: int) -> np.ndarray:
    """:func:`dominated_by_mix` in each of the games ``(count, k, k)``, deciding the two
    plain cases by array operations: a row at least as good as every other row against
    some column is not dominated (no mixture beats it there), and a row some single other
    row beats against every column is; the rest by each game's :func:`domination_margin`,
    solved together (:func:`balance.matrix_game.solve_batch`)."""
    from .matrix_game import solve_batch

    mine = games[:, row, :]
    others = np.delete(games, row, axis=1)
    if not others.shape[1]:
        return np.zeros(len(games), bool)
    safe = np.any(mine >= others.max(axis=1), axis=1)
    beaten = np.any(np.all(others > mine[:, None, :], axis=2), axis=1)
    out = beaten & ~safe
    rest = np.flatnonzero(~safe & ~beaten)
    if len(rest):
        out[rest] = solve_batch(others[rest] - mine[rest][:, None, :], "sealed").value > 0
    return out


# --- paired fights (common random numbers) ----------------------------------------------------

SCORES: dict[str, np.ndarray] = {
    "a_win": np.array([0.0, 1.0, 0.0]),
    "score": np.array([0.5, 1.0, 0.0]),
}
"""What a fight of each winner code (draw, A, B) counts for, per column a verdict reads."""


def paired_se(x: np.ndarray, y: np.ndarray, col: str) -> float:
    """Standard error of ``mean(s(x)) - mean(s(y))`` over the fights the two cells share
    (their common prefix), from the per-fight differences (plug-in variance)."""
    n = min(len(x), len(y))
    if n == 0:
        return math.nan
    table = SCORES[col]
    d = table[x[:n]] - table[y[:n]]
    var = max(float(np.mean(d * d)) - float(np.mean(d)) ** 2, 0.0)
    return math.sqrt(var / n)
