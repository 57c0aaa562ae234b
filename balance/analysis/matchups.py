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
from ..random import root_entropy
from ..results import Summary

__all__ = ["round_robin", "score_matrix"]


def round_robin(ruleset: str, entrants: Mapping[str, Any] | Sequence[str], *,
                rules: Any = None, n: int = 20_000, precision: float | None = None,
                seed: int | None = 0, mirror: bool = True, chunk_size: int = DEFAULT_CHUNK_SIZE,
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

    Returns
    -------
    DataFrame
        One row per ordered pair: ``a``, ``b``, ``n``, ``a_win``/``b_win``/``draw`` with
        ``_low``/``_high`` 95% Wilson bounds, fight-length statistics, and the counts
        ``a_wins``, ``b_wins``, ``draws``.
    """
    if not isinstance(entrants, Mapping):
        entrants = {name: name for name in entrants}
    names = list(entrants)
    if len(names) < 2:
        raise SpecError("a round robin needs at least two entrants")
    entropy = root_entropy(seed)
    pairs = [(a, b) for a in names for b in names if a != b or mirror]
    rows = []
    for i, (a, b) in enumerate(pairs):
        rs, rules_obj, side_a, side_b = matchup(ruleset, entrants[a], entrants[b], rules)
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
                        "entrants": names, "chunk_size": chunk_size})
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
    zeros = np.zeros(len(table))

    def column(name: str) -> np.ndarray:
        return table[name].to_numpy(float) if name in table else zeros

    a_score = np.where(exact, column("a_win") + 0.5 * column("draw"),
                       column("a_wins") + 0.5 * column("draws"))
    b_score = np.where(exact, column("b_win") + 0.5 * column("draw"),
                       column("b_wins") + 0.5 * column("draws"))
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
