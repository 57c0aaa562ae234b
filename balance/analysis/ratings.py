"""Bradley-Terry ratings with intervals from a round-robin table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from .scores import score_matrix

__all__ = ["ratings"]

ELO = 400 / np.log(10)  # log-strength -> Elo points


def ratings(table: pd.DataFrame, *, confidence: float = 0.95,
            prior: float | None = None) -> pd.DataFrame:
    """Bradley-Terry strengths of the entrants of a round robin.

    Draws count half a win to each side; mirror matches carry no information and are
    ignored.  ``prior`` (default 0.5 for simulated tables) adds that many pseudo-wins to
    each direction of every pair so that an entrant who never lost still gets a finite
    rating.

    An exact run's table (``n = 0``: probabilities, not fights) is fitted to its exact score
    matrix, each pair weighted alike, with no prior (default 0) and no sampling interval
    (``_low = _high`` = the value; ``attrs["exact"]`` True).  Where some entrants never
    score against others the fit has no finite maximum: the entrants fall into ``tier``\\ s
    (1 best; an entrant of a better tier scores 1 against every entrant of a worse one in
    the limit of the fit) and ``theta`` / ``elo`` are finite within a tier only, centred on
    each tier.  ``attrs["max_misfit"]`` is the largest gap between a fitted and an exact
    score (how well one strength per entrant describes the matrix).

    Returns
    -------
    DataFrame
        Indexed by entrant, sorted best first: ``theta`` (log-strength, mean 0) with
        ``theta_low``/``theta_high``, the same on the ``elo`` scale, ``expected_score``
        (mean predicted score against the field) and, for exact tables, ``tier``.
    """
    score, games = score_matrix(table)
    names = list(score.index)
    if bool((table["n"] == 0).all()):
        return _exact_ratings(score, 0.0 if prior is None else prior)
    w = (score.fillna(0) * games).to_numpy().copy()
    np.fill_diagonal(w, 0)
    theta, cov = stats.bradley_terry(w, prior=0.5 if prior is None else prior)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = stats.z_value(confidence)
    q = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    np.fill_diagonal(q, np.nan)
    out = pd.DataFrame({"theta": theta, "theta_low": theta - z * se,
                        "theta_high": theta + z * se, "elo": ELO * theta,
                        "elo_low": ELO * (theta - z * se), "elo_high": ELO * (theta + z * se),
                        "expected_score": np.nanmean(q, axis=1)}, index=names)
    out.index.name = "entrant"
    out.attrs["exact"] = False
    return out.sort_values("theta", ascending=False)


def _exact_ratings(score: pd.DataFrame, prior: float) -> pd.DataFrame:
    """Bradley-Terry fitted to an exact score matrix (see :func:`ratings`)."""
    from scipy.sparse.csgraph import connected_components

    names = list(score.index)
    s = score.fillna(0.5).to_numpy(float).copy()
    np.fill_diagonal(s, 0)
    k = len(names)
    # Strongly connected parts of "i scores something against j": within one the fit is
    # finite; between two, every score goes one way (a round robin meets every pair), so
    # the parts are totally ordered.
    n_parts, part = connected_components(s + prior > 1e-12, directed=True, connection="strong")
    beaten = np.zeros(n_parts)  # how many other parts each part shuts out
    for p in range(n_parts):
        inside, outside = part == p, part != p
        beaten[p] = len(set(part[outside][(s[np.ix_(inside, outside)] > 1 - 1e-12).all(axis=0)]))
    tier_of_part = np.empty(n_parts, int)
    tier_of_part[np.argsort(-beaten, kind="stable")] = np.arange(1, n_parts + 1)
    tier = tier_of_part[part]
    theta = np.zeros(k)
    for p in range(n_parts):
        members = np.flatnonzero(part == p)
        if len(members) > 1:
            theta[members], _ = stats.bradley_terry(s[np.ix_(members, members)], prior=prior)
    q = np.where(tier[:, None] == tier[None, :],
                 1 / (1 + np.exp(theta[None, :] - theta[:, None])),
                 (tier[:, None] < tier[None, :]).astype(float))
    np.fill_diagonal(q, np.nan)
    exact_score = score.to_numpy(float).copy()
    np.fill_diagonal(exact_score, np.nan)
    out = pd.DataFrame({"theta": theta, "theta_low": theta, "theta_high": theta,
                        "elo": ELO * theta, "elo_low": ELO * theta, "elo_high": ELO * theta,
                        "expected_score": np.nanmean(q, axis=1), "tier": tier}, index=names)
    out.index.name = "entrant"
    out.attrs.update({"exact": True, "tiers": int(n_parts),
                      "max_misfit": float(np.nanmax(np.abs(q - exact_score))) if k > 1 else 0.0})
    return out.sort_values(["tier", "theta"], ascending=[True, False])
