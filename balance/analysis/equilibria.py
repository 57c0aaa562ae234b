"""The metagame: which mix of styles a clever table would settle on, and who is dominated."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .. import stats
from .._recent import Recent
from ..matrix_game import solve_batch, solve_sealed
from .scores import score_matrix

__all__ = ["dominated", "metagame"]


def _exact(table: pd.DataFrame) -> bool:
    """An exact run's table: rates without counts, nothing to resample."""
    return bool((table["n"] == 0).any())


class _Replicates:
    """Parametric bootstrap replicates of a simulated table's payoff: each pair's counts
    redrawn from its rates, and the payoff :func:`_payoff` would read from the table with
    those counts -- the same numbers, made from arrays rather than a table a replicate."""

    def __init__(self, table: pd.DataFrame) -> None:
        self.names = list(dict.fromkeys([*table["a"], *table["b"]]))
        index = {name: i for i, name in enumerate(self.names)}
        self.a = np.array([index[x] for x in table["a"]], dtype=np.intp)
        self.b = np.array([index[x] for x in table["b"]], dtype=np.intp)
        self.fights = table["n"].to_numpy(float)
        counts = table[["a_wins", "b_wins", "draws"]].to_numpy(float)
        total = counts.sum(axis=1)
        self.total = total.astype(np.int64)
        self.probs = counts / total[:, None]

    def payoff(self, rng: np.random.Generator) -> np.ndarray:
        """One replicate's payoff (row by row, the draws of a multinomial per pair)."""
        return self.payoffs(rng, 1)[0]

    def payoffs(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` replicates' payoffs, ``(count, k, k)``: each the draws of a multinomial
        per pair, replicate after replicate, and each cell summed in the order
        :func:`score_matrix` adds them."""
        drawn = np.stack([rng.multinomial(self.total, self.probs) for _ in range(count)]
                         ).astype(float)
        a_score = drawn[:, :, 0] + 0.5 * drawn[:, :, 2]
        b_score = drawn[:, :, 1] + 0.5 * drawn[:, :, 2]
        k = len(self.names)
        rep = np.repeat(np.arange(count), len(self.a))
        a, b = np.tile(self.a, count), np.tile(self.b, count)
        wins = np.zeros((count, k, k))
        np.add.at(wins, (rep, a, b), a_score.ravel())
        np.add.at(wins, (rep, b, a), b_score.ravel())
        games = np.zeros((k, k))
        np.add.at(games, (self.a, self.b), self.fights)
        np.add.at(games, (self.b, self.a), self.fights)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = wins / games - 0.5
        out[:, np.arange(k), np.arange(k)] = 0.0
        return np.nan_to_num(out)


_MADE: Recent[tuple[Any, ...], pd.DataFrame] = Recent(8)
"""The last few answers of :func:`metagame` and :func:`dominated` by their table's numbers
and arguments: a command that prints a round robin and its verdict asks the same question
twice, and the bootstrap's linear programs are most of its time."""


def _remembered(kind: str, table: pd.DataFrame, *args: Any) -> tuple[Any, ...] | None:
    """The key of a question about ``table``, or ``None`` if its columns cannot be read
    as numbers (then it is not remembered)."""
    try:
        columns = tuple(np.asarray(table[c].to_numpy()).tobytes() if c not in ("a", "b")
                        else tuple(map(str, table[c])) for c in _READ if c in table)
    except (TypeError, ValueError):
        return None
    return (kind, tuple(c for c in _READ if c in table), columns, *args)


_READ = ("a", "b", "n", "a_wins", "b_wins", "draws", "a_win", "b_win", "draw")
"""The columns :func:`_payoff` and :class:`_Replicates` read."""


def _keep(key: tuple[Any, ...] | None, answer: pd.DataFrame) -> pd.DataFrame:
    if key is not None:
        _MADE.keep(key, answer.copy())
    return answer


def _payoff(table: pd.DataFrame) -> tuple[list[str], np.ndarray]:
    score, _ = score_matrix(table)
    a = score.to_numpy(dtype=float, copy=True) - 0.5
    np.fill_diagonal(a, 0.0)  # a style against itself is even, whatever the seats say
    return list(score.index), np.nan_to_num(a)


def metagame(table: pd.DataFrame, *, resamples: int = 200, seed: int = 0,
             confidence: float = 0.90) -> pd.DataFrame:
    """The symmetric Nash equilibrium over entrants, with its uncertainty.

    The game: both players pick an entrant; the payoff is the seat-averaged expected score
    minus 0.5.  The equilibrium mix is a certified solution of that matrix game
    (:mod:`balance.matrix_game`: a saddle point or a simplex whose answer is proved
    optimal, a linear program only if the proof fails); its uncertainty comes from a
    parametric bootstrap of every pair's counts (``resamples`` replicates), whose games
    are solved together the same way.  An exact run's table (``n = 0``) has no sampling
    uncertainty: its interval is the weight.

    Returns
    -------
    DataFrame
        Indexed by entrant: ``weight`` (equilibrium probability), ``weight_low`` /
        ``weight_high`` (bootstrap ``confidence`` interval), ``in_support`` (share of
        replicates in which the entrant is played, weight > 1%).
    """
    key = _remembered("metagame", table, resamples, seed, confidence)
    if key is not None and key in _MADE:
        return _MADE[key].copy()
    names, payoff = _payoff(table)
    weight = solve_sealed(payoff).attack  # certified; a linear program only as a fallback
    if _exact(table):
        resamples = 0
    rng = np.random.default_rng(seed)
    if resamples:
        games = _Replicates(table).payoffs(rng, resamples)
        boot = solve_batch(games, "sealed").attack  # certified, as the point estimate's LP
    else:
        boot = weight[None, :]
    tail = (1 - confidence) / 2
    out = pd.DataFrame({"weight": weight,
                        "weight_low": np.quantile(boot, tail, axis=0),
                        "weight_high": np.quantile(boot, 1 - tail, axis=0),
                        "in_support": (boot > 0.01).mean(axis=0)}, index=names)
    out.index.name = "entrant"
    out.attrs["resamples"] = resamples
    return _keep(key, out.sort_values("weight", ascending=False))


def dominated(table: pd.DataFrame, *, resamples: int = 200, seed: int = 1) -> pd.DataFrame:
    """Entrants strictly dominated by a mix of the others.

    ``margin`` > 0 means some mix of the other entrants scores at least that much more
    than this one against every opponent; ``dominated_share`` is the share of bootstrap
    replicates in which the margin is positive (how sure we are; 0 or 1 for an exact
    run's table).
    """
    key = _remembered("dominated", table, resamples, seed)
    if key is not None and key in _MADE:
        return _MADE[key].copy()
    names, payoff = _payoff(table)
    margin = np.array([stats.domination_margin(payoff, i) for i in range(len(names))])
    if _exact(table):
        share = (margin > 0).astype(float)
    else:
        games = _Replicates(table).payoffs(np.random.default_rng(seed), resamples)
        share = np.array([stats.dominated_by_mix_in(games, i).mean()
                          for i in range(len(names))])
    out = pd.DataFrame({"margin": margin, "dominated": margin > 0,
                        "dominated_share": share}, index=names)
    out.index.name = "entrant"
    return _keep(key, out.sort_values("margin", ascending=False))
