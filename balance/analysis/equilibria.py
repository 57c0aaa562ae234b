"""The metagame: which mix of styles a clever table would settle on, and who is dominated."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from .scores import score_matrix

__all__ = ["dominated", "metagame"]


def _exact(table: pd.DataFrame) -> bool:
    """An exact run's table: rates without counts, nothing to resample."""
    return bool((table["n"] == 0).any())


def _resampled_scores(table: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """One parametric bootstrap replicate: each pair's counts redrawn from its rates."""
    out = table.copy()
    counts = table[["a_wins", "b_wins", "draws"]].to_numpy(float)
    n = counts.sum(axis=1)
    probs = counts / n[:, None]
    draws = np.array([rng.multinomial(int(k), p) for k, p in zip(n, probs, strict=True)])
    out[["a_wins", "b_wins", "draws"]] = draws
    return out


def _payoff(table: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    score, _ = score_matrix(table)
    a = score.to_numpy(dtype=float, copy=True) - 0.5
    np.fill_diagonal(a, 0.0)  # a style against itself is even, whatever the seats say
    return list(score.index), np.nan_to_num(a)


def metagame(table: pd.DataFrame, *, resamples: int = 200, seed: int = 0,
             confidence: float = 0.90) -> pd.DataFrame:
    """The symmetric Nash equilibrium over entrants, with its uncertainty.

    The game: both players pick an entrant; the payoff is the seat-averaged expected score
    minus 0.5.  The equilibrium mix is solved by linear programming; its uncertainty comes
    from a parametric bootstrap of every pair's counts (``resamples`` replicates).  An
    exact run's table (``n = 0``) has no sampling uncertainty: its interval is the weight.

    Returns
    -------
    DataFrame
        Indexed by entrant: ``weight`` (equilibrium probability), ``weight_low`` /
        ``weight_high`` (bootstrap ``confidence`` interval), ``in_support`` (share of
        replicates in which the entrant is played, weight > 1%).
    """
    names, payoff = _payoff(table)
    weight, _ = stats.symmetric_nash(payoff)
    if _exact(table):
        resamples = 0
    rng = np.random.default_rng(seed)
    boot = np.empty((resamples, len(names)))
    for i in range(resamples):
        _, p = _payoff(_resampled_scores(table, rng))
        boot[i], _ = stats.symmetric_nash(p)
    tail = (1 - confidence) / 2
    if resamples == 0:
        boot = weight[None, :]
    out = pd.DataFrame({"weight": weight,
                        "weight_low": np.quantile(boot, tail, axis=0),
                        "weight_high": np.quantile(boot, 1 - tail, axis=0),
                        "in_support": (boot > 0.01).mean(axis=0)}, index=names)
    out.index.name = "entrant"
    out.attrs["resamples"] = resamples
    return out.sort_values("weight", ascending=False)


def dominated(table: pd.DataFrame, *, resamples: int = 200, seed: int = 1) -> pd.DataFrame:
    """Entrants strictly dominated by a mix of the others.

    ``margin`` > 0 means some mix of the other entrants scores at least that much more
    than this one against every opponent; ``dominated_share`` is the share of bootstrap
    replicates in which the margin is positive (how sure we are; 0 or 1 for an exact
    run's table).
    """
    names, payoff = _payoff(table)
    margin = np.array([stats.domination_margin(payoff, i) for i in range(len(names))])
    if _exact(table):
        share = (margin > 0).astype(float)
    else:
        rng = np.random.default_rng(seed)
        hits = np.zeros(len(names))
        for _ in range(resamples):
            _, p = _payoff(_resampled_scores(table, rng))
            hits += np.array([stats.dominated_by_mix(p, i) for i in range(len(names))])
        share = hits / resamples
    out = pd.DataFrame({"margin": margin, "dominated": margin > 0,
                        "dominated_share": share}, index=names)
    out.index.name = "entrant"
    return out.sort_values("margin", ascending=False)
