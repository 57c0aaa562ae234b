"""Seat advantage, upsets and fight lengths."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import stats
from ..results import Summary, Tally

__all__ = ["fight_lengths", "seat_advantage", "upsets"]


def seat_advantage(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """First-mover (seat A) advantage in mirror matches: ``a_win - b_win`` with an interval.

    Uses the rows of a round robin where ``a == b``; the interval is the normal one for a
    difference of two multinomial shares, ``var = (p_a + p_b - (p_a - p_b)^2) / n``.
    """
    mirror = table[table["a"] == table["b"]]
    z = stats.z_value(confidence)
    pa, pb, n = mirror["a_win"], mirror["b_win"], mirror["n"]
    diff = pa - pb
    se = np.sqrt((pa + pb - diff**2) / n)
    return pd.DataFrame({"entrant": mirror["a"], "advantage": diff, "advantage_low": diff - z * se,
                         "advantage_high": diff + z * se, "draw": mirror["draw"],
                         "n": n}).set_index("entrant")


def upsets(table: pd.DataFrame, rating: pd.DataFrame) -> pd.DataFrame:
    """For each pairing, the chance the lower-rated entrant wins (both seats pooled)."""
    rows = []
    theta = rating["theta"]
    seen: set[frozenset[str]] = set()
    for row in table.itertuples(index=False):
        a, b = row.a, row.b
        if a == b or frozenset((a, b)) in seen:
            continue
        seen.add(frozenset((a, b)))
        both = table[((table["a"] == a) & (table["b"] == b)) | ((table["a"] == b) & (table["b"] == a))]
        weak, strong = (a, b) if theta[a] < theta[b] else (b, a)
        weak_wins = (both["a_wins"].where(both["a"] == weak, both["b_wins"])).sum()
        n = both["n"].sum()
        low, high = stats.wilson(weak_wins, n)
        rows.append({"weaker": weak, "stronger": strong, "upset": weak_wins / n,
                     "upset_low": float(low), "upset_high": float(high), "n": int(n)})
    return pd.DataFrame(rows).sort_values("upset")


def fight_lengths(result: Summary | Tally) -> pd.DataFrame:
    """The distribution of fight length in rounds: count, pmf, cdf, survival."""
    tally = result.tally if isinstance(result, Summary) else result
    counts = tally.rounds
    rounds = np.arange(len(counts))
    pmf = counts / counts.sum()
    frame = pd.DataFrame({"rounds": rounds, "count": counts, "pmf": pmf, "cdf": np.cumsum(pmf)})
    frame["survival"] = 1 - frame["cdf"]
    return frame[frame["count"] > 0].reset_index(drop=True)
