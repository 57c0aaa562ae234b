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
    difference of two multinomial shares, ``var = (p_a + p_b - (p_a - p_b)^2) / n``.  A row
    of an exact run (``n = 0``) is the exact difference: ``advantage_low = advantage_high =
    advantage`` and ``exact`` True.
    """
    mirror = table[table["a"] == table["b"]]
    z = stats.z_value(confidence)
    pa, pb = mirror["a_win"].to_numpy(float), mirror["b_win"].to_numpy(float)
    n = mirror["n"].to_numpy(float)
    exact = n == 0
    diff = pa - pb
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(exact, 0.0, np.sqrt(np.clip(pa + pb - diff**2, 0, None)
                                          / np.where(exact, 1.0, n)))
    return pd.DataFrame({"entrant": mirror["a"].to_numpy(), "advantage": diff,
                         "advantage_low": diff - z * se, "advantage_high": diff + z * se,
                         "draw": mirror["draw"].to_numpy(float), "n": n.astype(int),
                         "exact": exact}).set_index("entrant")


def upsets(table: pd.DataFrame, rating: pd.DataFrame, *, confidence: float = 0.95
           ) -> pd.DataFrame:
    """For each pairing, the chance the lower-rated entrant wins (both seats pooled).

    Simulated pairs pool the fights of both seats, with a Wilson interval.  A pair of an
    exact run (``n = 0``: rates, no counts) is the exact mean of the two seats' win
    probabilities (each seat counted alike): ``upset_low = upset_high = upset``, ``n = 0``,
    ``exact`` True.
    """
    rows = []
    # Stronger: the better tier (exact ratings, see ratings()), then the higher theta.
    tier = rating["tier"] if "tier" in rating else pd.Series(1, index=rating.index)
    strength = {name: (-int(tier[name]), float(rating.loc[name, "theta"]))
                for name in rating.index}
    names_a, names_b = table["a"].tolist(), table["b"].tolist()
    rows_of: dict[frozenset[str], list[int]] = {}  # each pairing's rows (both seats), in order
    for k, (a, b) in enumerate(zip(names_a, names_b, strict=True)):
        if a != b:
            rows_of.setdefault(frozenset((a, b)), []).append(k)
    fights = table["n"].to_numpy()
    for both in rows_of.values():
        a, b = names_a[both[0]], names_b[both[0]]
        weak, strong = (a, b) if strength[a] < strength[b] else (b, a)
        as_a = np.array([names_a[k] == weak for k in both])  # the weaker sat A in that row
        if (fights[both] == 0).all():
            won = np.where(as_a, table["a_win"].to_numpy(float)[both],
                           table["b_win"].to_numpy(float)[both])
            upset = float(np.mean(won))
            rows.append({"weaker": weak, "stronger": strong, "upset": upset,
                         "upset_low": upset, "upset_high": upset, "n": 0, "exact": True})
            continue
        weak_wins = np.sum(np.where(as_a, table["a_wins"].to_numpy()[both],
                                    table["b_wins"].to_numpy()[both]))
        n = np.sum(fights[both])
        low, high = stats.wilson(weak_wins, n, confidence)
        rows.append({"weaker": weak, "stronger": strong, "upset": weak_wins / n,
                     "upset_low": float(low), "upset_high": float(high), "n": int(n),
                     "exact": False})
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
