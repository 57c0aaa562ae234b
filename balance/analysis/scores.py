"""Reading a round-robin table: expected scores, each pair's and each entrant's, with
intervals (also each row's score of a sweep's table), and the policies the table rests
on.

These read the table :func:`balance.analysis.matchups.round_robin` returns (simulated,
exact or under best play) and run nothing, so the analyses above them (ratings,
equilibria, best play's verdict changes) need not import the round robin that runs the
fights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["field_scores", "pair_scores", "policies", "score_matrix", "with_scores"]


def policies(table: pd.DataFrame) -> list[str]:
    """The policies a round-robin table rests on: each distinct disclosure of any pair,
    in order (best-play tables: the rule-scope policies and each pair's equilibria are in
    their ``policy_a`` / ``policy_b`` columns)."""
    seen: dict[str, None] = {}
    for cell in table.get("policies", pd.Series([], dtype=object)):
        for item in str(cell).split("; "):
            if item and item != "none":
                seen.setdefault(item)
    return list(seen)


def score_matrix(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seat-averaged expected score of the row entrant against the column entrant.

    A win scores 1, a draw 0.5.  Both seats are averaged (weighted by fights), so
    ``score[i, j] + score[j, i] = 1``.  A row of an exact run (``n = 0``: rates, no
    counts) counts as one fight with its exact rates.

    Returns
    -------
    score, fights
        Square DataFrames indexed by entrant: the expected score and the fights behind it.
    """
    names = list(dict.fromkeys([*table["a"], *table["b"]]))
    index = {name: i for i, name in enumerate(names)}
    a = np.array([index[x] for x in table["a"]], dtype=np.intp)
    b = np.array([index[x] for x in table["b"]], dtype=np.intp)
    n = table["n"].to_numpy(float)
    exact = n == 0  # an exact answer: its rates, weighted as one fight

    def column(name: str, rows: np.ndarray) -> np.ndarray:
        # Only the rows that use a column are read: exact rows have no counts, simulated
        # ones no meaningful rates-as-scores.
        if name not in table or not rows.any():
            return np.zeros(int(rows.sum()))
        return table[name].to_numpy()[rows].astype(float)

    a_score, b_score = np.empty(len(table)), np.empty(len(table))
    a_score[exact] = column("a_win", exact) + 0.5 * column("draw", exact)
    b_score[exact] = column("b_win", exact) + 0.5 * column("draw", exact)
    counted = ~exact
    a_score[counted] = column("a_wins", counted) + 0.5 * column("draws", counted)
    b_score[counted] = column("b_wins", counted) + 0.5 * column("draws", counted)
    fights = np.where(exact, 1.0, n)
    wins = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    np.add.at(wins, (a, b), a_score)  # unbuffered: repeated pairs add up
    np.add.at(wins, (b, a), b_score)
    np.add.at(games, (a, b), fights)
    np.add.at(games, (b, a), fights)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = pd.DataFrame(wins / games, index=names, columns=names)
    return score, pd.DataFrame(games, index=names, columns=names)


def pair_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Each entrant's expected score against each other entrant, both seats pooled, with an
    interval.

    A win scores 1 and a draw 1/2.  A simulated pair's interval is the normal one for the
    mean score of its fights (variance ``(w + d/4) / n - s^2`` from its win and draw
    counts); an exact pair's is the value itself.  Mirror matches are left out.

    Returns
    -------
    DataFrame
        One row per ordered pair of distinct entrants: ``entrant``, ``opponent``,
        ``score``, ``score_low``, ``score_high``, ``n`` (fights in both seats; 0 exact).
    """
    from ..stats import z_value

    names = list(dict.fromkeys([*table["a"], *table["b"]]))
    exact = bool((table["n"] == 0).all())
    z = z_value(confidence)
    rows_of: dict[tuple[Any, Any], list[int]] = {}  # each ordered pair's rows, in order
    for k, pair in enumerate(zip(table["a"], table["b"], strict=True)):
        rows_of.setdefault(pair, []).append(k)
    column = _columns(table, exact)
    rows = []
    for i in names:
        for j in names:
            if i == j:
                continue
            as_a, as_b = rows_of.get((i, j), []), rows_of.get((j, i), [])
            if exact:
                parts = [*(column["a_win"][as_a] + 0.5 * column["draw"][as_a]),
                         *(column["b_win"][as_b] + 0.5 * column["draw"][as_b])]
                if not parts:
                    continue
                score = float(np.mean(parts))
                rows.append({"entrant": i, "opponent": j, "score": score, "score_low": score,
                             "score_high": score, "n": 0})
                continue
            wins = float(column["a_win"][as_a].sum() + column["b_win"][as_b].sum())
            draws = float(column["draw"][as_a].sum() + column["draw"][as_b].sum())
            n = float(column["n"][as_a].sum() + column["n"][as_b].sum())
            if n == 0:
                continue
            score, low, high = _score_interval(wins, draws, n, z)
            rows.append({"entrant": i, "opponent": j, "score": float(score),
                         "score_low": float(low), "score_high": float(high), "n": int(n)})
    return pd.DataFrame(rows, columns=["entrant", "opponent", "score", "score_low",
                                       "score_high", "n"])


def _columns(table: pd.DataFrame, exact: bool) -> dict[str, np.ndarray]:
    """The columns :func:`pair_scores` reads, as float arrays: an exact table's rates, else
    fights and the count of each end (:func:`_count`)."""
    out = {"n": table["n"].to_numpy(float)}
    for rate in ("a_win", "b_win", "draw"):
        if exact:
            out[rate] = table[rate].to_numpy(float) if rate in table else np.zeros(len(table))
        else:
            out[rate] = _count(table, rate).to_numpy(float)
    return out


def _score_interval(wins: Any, draws: Any, n: Any, z: float) -> tuple[Any, Any, Any]:
    """A's expected score from win and draw counts of ``n`` fights (scalars or arrays), and
    its normal interval: the variance of one fight's score is ``(w + d/4) / n - s^2``."""
    score = (wins + 0.5 * draws) / n
    se = np.sqrt(np.maximum((wins + 0.25 * draws) / n - score**2, 0.0) / n)
    return score, np.maximum(0.0, score - z * se), np.minimum(1.0, score + z * se)


def with_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """``table`` (a sweep's rows: ``a_win``, ``draw``, ``n`` and the counts) with A's expected
    score in each row -- ``score`` (a win 1, a draw 1/2), ``score_low``, ``score_high`` --
    its interval as :func:`pair_scores` makes it (an exact row's, ``n = 0``, is the value).
    A table without ``draw`` has none."""
    from ..stats import z_value

    if {"score", "score_low", "score_high"} <= set(table.columns):
        return table
    n = table["n"].to_numpy(float)
    exact = n == 0
    draw = table["draw"] if "draw" in table else pd.Series(0.0, index=table.index)
    counted = table.assign(draw=draw)
    wins = np.where(exact, table["a_win"].to_numpy(float), _count(counted, "a_win").to_numpy())
    draws = np.where(exact, draw.to_numpy(float), _count(counted, "draw").to_numpy())
    score, low, high = _score_interval(wins, draws, np.where(exact, 1.0, n),
                                       z_value(confidence))
    return table.assign(score=score, score_low=np.where(exact, score, low),
                        score_high=np.where(exact, score, high))


COUNTS = {"a_win": "a_wins", "b_win": "b_wins", "draw": "draws"}


def _count(rows: pd.DataFrame, rate: str) -> pd.Series:
    """Fights of ``rows`` that ended in ``rate``: the count column, or (a table of rates
    and fights only, e.g. best play's) the rate times the fights."""
    if COUNTS[rate] in rows:
        return rows[COUNTS[rate]].astype(float)
    return rows[rate].astype(float) * rows["n"].astype(float)


def field_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Each entrant's mean expected score against the rest of the field, with an interval,
    and its hardest and easiest opponent (see :func:`pair_scores`).

    Returns
    -------
    DataFrame
        Indexed by entrant, best first: ``score``, ``score_low``, ``score_high`` (the mean
        over opponents, each counted alike; its interval from the pairs' standard errors),
        ``worst`` (the opponent it scores least against), ``worst_score`` with
        ``worst_low`` / ``worst_high``, ``best`` and ``best_score``.
    """
    from ..stats import z_value

    pairs = pair_scores(table, confidence=confidence)
    z = z_value(confidence)
    rows = []
    for entrant, part in pairs.groupby("entrant", sort=False):
        se = (part["score_high"] - part["score_low"]) / (2 * z)
        score = float(part["score"].mean())
        half = z * float(np.sqrt(np.sum(np.square(se)))) / len(part)
        worst = part.loc[part["score"].idxmin()]
        best = part.loc[part["score"].idxmax()]
        rows.append({"entrant": entrant, "score": score, "score_low": score - half,
                     "score_high": score + half, "worst": worst["opponent"],
                     "worst_score": float(worst["score"]),
                     "worst_low": float(worst["score_low"]),
                     "worst_high": float(worst["score_high"]), "best": best["opponent"],
                     "best_score": float(best["score"])})
    out = pd.DataFrame(rows).set_index("entrant")
    return out.sort_values("score", ascending=False)
