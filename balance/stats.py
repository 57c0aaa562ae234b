"""Interval estimates and the statistical tests the test suite and analyses use.

All functions are pure: counts in, numbers out.
"""

from __future__ import annotations

import numpy as np
from scipy import stats as _st

__all__ = [
    "chi2_homogeneity",
    "clopper_pearson",
    "gof_pvalue",
    "half_width",
    "wilson",
    "z_value",
]


def z_value(confidence: float) -> float:
    """Two-sided normal quantile for a confidence level (1.959964 for 0.95)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return float(_st.norm.ppf(0.5 + confidence / 2))


def wilson(k: np.ndarray | int, n: np.ndarray | int, confidence: float = 0.95
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


def half_width(k: np.ndarray | int, n: np.ndarray | int, confidence: float = 0.95) -> np.ndarray:
    """Half the width of the Wilson interval (the "± precision" of a rate)."""
    low, high = wilson(k, n, confidence)
    return (high - low) / 2


def clopper_pearson(k: np.ndarray | int, n: np.ndarray | int, confidence: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Exact (conservative) Clopper-Pearson interval."""
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
    table = np.array([rows_a, rows_b])
    return float(_st.chi2_contingency(table, correction=False).pvalue)
