"""Round-robin matchup tables: every entrant against every other, in both seats."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..api import matchup
from ..engine import DEFAULT_CHUNK_SIZE, run
from ..errors import SpecError
from ..fields import plain
from ..random import root_entropy
from ..results import Summary
from ..sweep.spec import METHODS

__all__ = ["field_scores", "pair_scores", "round_robin", "score_matrix"]


def round_robin(ruleset: str, entrants: Mapping[str, Any] | Sequence[str], *,
                rules: Any = None, n: int = 20_000, precision: float | None = None,
                seed: int | None = 0, mirror: bool = True, chunk_size: int = DEFAULT_CHUNK_SIZE,
                method: str | None = None,
                progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Fight every entrant against every other, in both seats.

    Parameters
    ----------
    ruleset
        Registry name.
    entrants
        Name -> side (anything :func:`balance.duel` accepts), or a list of preset names.
    rules
        Rules object or overrides, shared by every matchup.
    n, precision
        Fights per ordered pair, or a target interval half-width (with ``n`` the cap).
    seed
        Root seed.  Each ordered pair ``(a, b)`` draws from its own streams keyed by the
        two names, so adding an entrant never changes the numbers of the others.
    mirror
        Also fight each entrant against itself (the seat advantage).
    method
        ``"simulate"`` (Monte Carlo, ``n`` / ``precision`` fights a pair) or ``"exact"``
        (each pair solved by the ruleset's exact solver: rates without sampling error,
        ``n = 0``, ``_low = _high`` = the rate, no counts).  ``None`` (the default): exact
        when the ruleset has an exact solver that accepts every pair (its ``exact_check``
        says so without solving), else simulate.  The method used is in ``attrs``.

    Returns
    -------
    DataFrame
        One row per ordered pair: ``a``, ``b``, ``n``, ``a_win``/``b_win``/``draw`` with
        ``_low``/``_high`` 95% Wilson bounds, fight-length statistics, and the counts
        ``a_wins``, ``b_wins``, ``draws``.  Exact rows: ``n = 0``, ``method = "exact"``,
        ``mean_rounds`` where the solver gives it, and the solver's details as
        ``detail_<name>`` columns.
    """
    if not isinstance(entrants, Mapping):
        entrants = {name: name for name in entrants}
    names = list(entrants)
    if len(names) < 2:
        raise SpecError("a round robin needs at least two entrants")
    if method not in (None, *METHODS):
        raise SpecError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    pairs = [(a, b) for a in names for b in names if a != b or mirror]
    resolved = [(a, b, *matchup(ruleset, entrants[a], entrants[b], rules)) for a, b in pairs]
    if method is None:
        method = "exact" if all(_solvable(*m[2:]) for m in resolved) else "simulate"
    if method == "exact":
        return _exact_round_robin(ruleset, names, resolved, progress)
    entropy = root_entropy(seed)
    rows = []
    for i, (a, b, rs, rules_obj, side_a, side_b) in enumerate(resolved):
        start = time.perf_counter()
        tally = run(rs, rules_obj, side_a, side_b, entropy=entropy, n=n if precision is None
                    else None, precision=precision, key=("round-robin", a, b),
                    chunk_size=chunk_size)
        summary = Summary(rs.name, tally)
        draws, a_wins, b_wins = (int(v) for v in tally.wins)
        rows.append({"a": a, "b": b, **summary.to_row(), "a_wins": a_wins, "b_wins": b_wins,
                     "draws": draws, "elapsed_s": time.perf_counter() - start})
        if progress is not None:
            progress(i + 1, len(pairs))
    frame = pd.DataFrame(rows)
    frame.attrs.update({"ruleset": ruleset, "seed": seed, "entropy": entropy,
                        "entrants": names, "chunk_size": chunk_size, "method": "simulate"})
    return frame




def _solvable(rs: Any, rules: Any, side_a: Any, side_b: Any) -> bool:
    """Whether the ruleset says (without solving) that its exact solver answers this pair."""
    return not rs.exact_check(rules, side_a, side_b)


def _exact_round_robin(ruleset: str, names: list[str], resolved: Sequence[tuple[Any, ...]],
                       progress: Callable[[int, int], None] | None) -> pd.DataFrame:
    rows = []
    for i, (a, b, rs, rules_obj, side_a, side_b) in enumerate(resolved):
        start = time.perf_counter()
        try:
            answer = rs.exact(rules_obj, side_a, side_b)
        except SpecError as exc:
            raise SpecError(f"{a} against {b}: {exc.reason} (method 'simulate' runs it by "
                            "Monte Carlo)") from None
        row: dict[str, Any] = {"a": a, "b": b, "n": 0}
        for rate in ("a_win", "b_win", "draw"):
            value = float(getattr(answer, rate))
            row[rate] = row[f"{rate}_low"] = row[f"{rate}_high"] = value
        row["mean_rounds"] = (np.nan if answer.mean_rounds is None
                              else float(answer.mean_rounds))
        row["method"] = "exact"
        for key, value in dict(answer.details).items():
            plain_value = plain(value)
            row[f"detail_{key}"] = (plain_value if plain_value is None or isinstance(
                plain_value, bool | int | float | str) else str(plain_value))
        row["elapsed_s"] = time.perf_counter() - start
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(resolved))
    frame = pd.DataFrame(rows)
    frame.attrs.update({"ruleset": ruleset, "entrants": names, "method": "exact"})
    return frame


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
    rows = []
    for i in names:
        for j in names:
            if i == j:
                continue
            as_a = table[(table["a"] == i) & (table["b"] == j)]
            as_b = table[(table["a"] == j) & (table["b"] == i)]
            if exact:
                parts = [*(as_a["a_win"] + 0.5 * as_a["draw"]),
                         *(as_b["b_win"] + 0.5 * as_b["draw"])]
                if not parts:
                    continue
                score = float(np.mean(parts))
                rows.append({"entrant": i, "opponent": j, "score": score, "score_low": score,
                             "score_high": score, "n": 0})
                continue
            wins = float(as_a["a_wins"].sum() + as_b["b_wins"].sum())
            draws = float(as_a["draws"].sum() + as_b["draws"].sum())
            n = float(as_a["n"].sum() + as_b["n"].sum())
            if n == 0:
                continue
            score = (wins + 0.5 * draws) / n
            se = np.sqrt(max((wins + 0.25 * draws) / n - score**2, 0.0) / n)
            rows.append({"entrant": i, "opponent": j, "score": score,
                         "score_low": max(0.0, score - z * se),
                         "score_high": min(1.0, score + z * se), "n": int(n)})
    return pd.DataFrame(rows, columns=["entrant", "opponent", "score", "score_low",
                                       "score_high", "n"])


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
