"""Bradley-Terry ratings with intervals from a round-robin table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from .matchups import score_matrix

__all__ = ["ratings"]

ELO = 400 / np.log(10)  # log-strength -> Elo points


def ratings(table: pd.DataFrame, *, confidence: float = 0.95, prior: float = 0.5) -> pd.DataFrame:
    """Bradley-Terry strengths of the entrants of a round robin.

    Draws count half a win to each side; mirror matches carry no information and are
    ignored.  ``prior`` adds that many pseudo-wins to each direction of every pair so that
    an entrant who never lost still gets a finite rating.

    Returns
    -------
    DataFrame
        Indexed by entrant, sorted best first: ``theta`` (log-strength, mean 0) with
        ``theta_low``/``theta_high``, the same on the ``elo`` scale, and ``expected_score``
        (mean predicted score against the field).
    """
    score, games = score_matrix(table)
    names = list(score.index)
    w = (score.fillna(0) * games).to_numpy().copy()
    np.fill_diagonal(w, 0)
    theta, cov = stats.bradley_terry(w, prior=prior)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    z = stats.z_value(confidence)
    q = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    np.fill_diagonal(q, np.nan)
    out = pd.DataFrame({"theta": theta, "theta_low": theta - z * se,
                        "theta_high": theta + z * se, "elo": ELO * theta,
                        "elo_low": ELO * (theta - z * se), "elo_high": ELO * (theta + z * se),
                        "expected_score": np.nanmean(q, axis=1)}, index=names)
    out.index.name = "entrant"
    return out.sort_values("theta", ascending=False)
