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

__all__ = ["round_robin", "score_matrix"]


def round_robin(ruleset: Any, entrants: Mapping[str, Any] | Sequence[str], *,
                rules: Any = None, n: int = 20_000, precision: float | None = None,
                seed: int | None = 0, mirror: bool = True, chunk_size: int = DEFAULT_CHUNK_SIZE,
                method: str | None = None,
                progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Fight every entrant against every other, in both seats.

    Parameters
    ----------
    ruleset
        Registry name or ruleset object (e.g. one with presets of your own,
        :meth:`~balance.rulesets.base.Ruleset.with_presets`).
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
    from ..api import get

    rs = get(ruleset)
    ruleset = rs.name
    pairs = [(a, b) for a in names for b in names if a != b or mirror]
    resolved = [(a, b, *matchup(rs, entrants[a], entrants[b], rules)) for a, b in pairs]
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
