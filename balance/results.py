"""From per-fight outcomes to counts, and from counts to rates with honest intervals.

:class:`Tally` is the additive summary of any number of fights (so chunks from any worker
merge in any order to the same totals); :class:`Summary` turns a tally into win / draw rates
with 95% Wilson intervals, fight-length statistics and pandas tables.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import stats
from .outcomes import Winner, rests_on

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["OUTCOMES", "Summary", "Tally", "Winner", "summary_rows"]


OUTCOMES: tuple[str, ...] = ("draw", "a_win", "b_win")  # indexed by Winner


@dataclass
class Tally:
    """Additive counts over fights.

    Attributes
    ----------
    causes
        Names of the end causes, fixed by the ruleset.
    counts
        int64 ``(3, len(causes))``: fights by winner (:class:`Winner`) and end cause.
    rounds
        int64 histogram of fight length: ``rounds[r]`` fights lasted ``r`` rounds.
    extras
        name -> float64 ``[sum, sum of squares]`` of optional per-fight measurements.
    """

    causes: tuple[str, ...]
    counts: np.ndarray
    rounds: np.ndarray
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    @classmethod
    def empty(cls, causes: Sequence[str]) -> Tally:
        return cls(tuple(causes), np.zeros((3, len(causes)), np.int64), np.zeros(1, np.int64))

    @classmethod
    def from_outcomes(cls, outcomes: Any) -> Tally:
        """Count an :class:`~balance.outcomes.Outcomes` batch."""
        k = len(outcomes.causes)
        flat = outcomes.winner.astype(np.int64) * k + outcomes.cause.astype(np.int64)
        counts = np.bincount(flat, minlength=3 * k).reshape(3, k)
        rounds = np.bincount(outcomes.rounds.astype(np.int64), minlength=1)
        extras = {name: np.array([values.sum(dtype=float), np.square(values, dtype=float).sum()])
                  for name, values in outcomes.extras.items()}
        return cls(tuple(outcomes.causes), counts, rounds, extras)

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def wins(self) -> np.ndarray:
        """int64 ``(3,)``: draws, A wins, B wins."""
        return self.counts.sum(axis=1)

    def __add__(self, other: Tally) -> Tally:
        if self.causes != other.causes:
            raise ValueError("cannot add tallies with different end causes")
        size = max(len(self.rounds), len(other.rounds))
        rounds = np.zeros(size, np.int64)
        rounds[: len(self.rounds)] += self.rounds
        rounds[: len(other.rounds)] += other.rounds
        zero = np.zeros(2)
        extras = {k: self.extras.get(k, zero) + other.extras.get(k, zero)
                  for k in {*self.extras, *other.extras}}
        return Tally(self.causes, self.counts + other.counts, rounds, extras)

    def to_dict(self) -> dict[str, Any]:
        kept = np.asarray(self.rounds).nonzero()[0]  # the histogram to its last fight
        return {"causes": list(self.causes), "counts": self.counts.tolist(),
                "rounds": self.rounds[:kept[-1] + 1 if kept.size else 0].tolist(),
                "extras": {k: v.tolist() for k, v in sorted(self.extras.items())}}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Tally:
        rounds = np.asarray(data["rounds"], np.int64) if data["rounds"] else np.zeros(1, np.int64)
        return cls(tuple(data["causes"]), np.asarray(data["counts"], np.int64), rounds,
                   {k: np.asarray(v, float) for k, v in data.get("extras", {}).items()})

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Tally) and self.to_dict() == other.to_dict())


def _quantile_from_hist(hist: np.ndarray, q: float) -> float:
    cdf = np.cumsum(hist)
    if cdf[-1] == 0:
        return float("nan")
    return float(np.searchsorted(cdf, q * cdf[-1], side="left"))


def summary_rows(ruleset: str, tallies: Sequence[Tally], confidence: float = 0.95
                 ) -> list[dict[str, Any]]:
    """``Summary(ruleset, t, confidence).to_row()`` of each of ``tallies``, every number
    computed for all of them at once by the same operations element by element (so the
    same numbers: integer sums, then one division); a tally given more than once (the
    same object) is summarised once."""
    distinct = list({id(t): t for t in tallies}.values())
    if not distinct:
        return []
    causes = distinct[0].causes
    if any(t.causes != causes for t in distinct):  # not one ruleset's: a row at a time
        return [_one_row(ruleset, t, confidence) for t in tallies]
    counts = np.stack([t.counts for t in distinct])  # (k, 3, causes)
    n = counts.sum(axis=(1, 2))
    wins = counts.sum(axis=2)  # (k, 3) by Winner
    lows, highs = stats.wilson(wins, n[:, None], confidence)
    rounds = np.zeros((len(distinct), max(len(t.rounds) for t in distinct)), np.int64)
    for i, t in enumerate(distinct):
        rounds[i, :len(t.rounds)] = t.rounds
    cdf = np.cumsum(rounds, axis=1)
    total = cdf[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(n[:, None] > 0, wins / n[:, None], np.nan)
        mean = np.where(total > 0, (np.arange(rounds.shape[1]) * rounds).sum(axis=1) / total,
                        np.nan)
        shares = counts.sum(axis=1) / n[:, None]  # as cause_shares (nan where n is 0)
    # rounds_quantile: searchsorted(cdf, q * total, "left"), the cdf entries below it
    quantiles = {q: np.where(total > 0, (cdf < q * total[:, None]).sum(axis=1), np.nan)
                 for q in (0.1, 0.5, 0.9)}
    made = {}
    for i, tally in enumerate(distinct):
        row: dict[str, Any] = {"n": int(n[i])}
        for outcome in (Winner.A, Winner.B, Winner.DRAW):
            name = OUTCOMES[outcome]
            row[name] = float(rates[i, outcome])
            row[f"{name}_low"] = float(lows[i, outcome])
            row[f"{name}_high"] = float(highs[i, outcome])
        row["mean_rounds"] = float(mean[i])
        for q, at in quantiles.items():
            row[f"rounds_q{int(q * 100)}"] = float(at[i])
        for cause, share in zip(causes, shares[i].tolist(), strict=True):
            row[f"end_{cause}"] = share
        summary = Summary(ruleset, tally, confidence)
        for name in sorted(tally.extras):
            row[f"mean_{name}"] = summary.extra_mean(name)
        made[id(tally)] = row
    return [dict(made[id(t)]) for t in tallies]


def _one_row(ruleset: str, tally: Tally, confidence: float) -> dict[str, Any]:
    """:func:`summary_rows` of one tally."""
    low, high = stats.wilson(tally.wins, tally.n, confidence)
    intervals = {w: (float(low[w]), float(high[w])) for w in Winner}
    return Summary(ruleset, tally, confidence).to_row(intervals)


@dataclass(frozen=True)
class Summary:
    """Win, loss and draw rates of a batch of fights, with intervals.

    Build one with :func:`balance.duel`.  Rates are fractions of fights; every rate comes
    with a Wilson interval at ``confidence``.

    Attributes
    ----------
    ruleset
        Registry name of the ruleset.
    tally
        The counts behind every number.
    confidence
        Level of the intervals (default 0.95).
    meta
        Provenance: seed entropy, chunk size, rules, sides, versions, elapsed time.
    assumptions
        DEFAULT / AMBIG rule readings the numbers rest on, ``"name=value [TAG]"``.
    policies
        The decisions the fighters made (attack type, diversion, bids, targets), as
        ``"name=value"`` or ``"name: A=value; B=value"``: the numbers rest on them too.
    """

    ruleset: str
    tally: Tally
    confidence: float = 0.95
    meta: Mapping[str, Any] = field(default_factory=dict)
    assumptions: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()

    # --- rates ---------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.tally.n

    def _rate(self, outcome: Winner) -> float:
        return float(self.tally.wins[outcome] / self.n) if self.n else float("nan")

    def _ci(self, outcome: Winner) -> tuple[float, float]:
        low, high = stats.wilson(self.tally.wins[outcome], self.n, self.confidence)
        return float(low), float(high)

    @property
    def a_win(self) -> float:
        return self._rate(Winner.A)

    @property
    def b_win(self) -> float:
        return self._rate(Winner.B)

    @property
    def draw(self) -> float:
        return self._rate(Winner.DRAW)

    @property
    def a_win_ci(self) -> tuple[float, float]:
        return self._ci(Winner.A)

    @property
    def b_win_ci(self) -> tuple[float, float]:
        return self._ci(Winner.B)

    @property
    def draw_ci(self) -> tuple[float, float]:
        return self._ci(Winner.DRAW)

    @property
    def half_width(self) -> float:
        """The widest interval half-width among the three rates."""
        return float(stats.half_width(self.tally.wins, self.n, self.confidence).max())

    # --- fight length ----------------------------------------------------------------------
    @property
    def mean_rounds(self) -> float:
        r = self.tally.rounds
        return float((np.arange(len(r)) * r).sum() / r.sum()) if r.sum() else float("nan")

    def rounds_quantile(self, q: float) -> float:
        return _quantile_from_hist(self.tally.rounds, q)

    def cause_shares(self) -> dict[str, float]:
        """Fraction of fights ended by each cause."""
        per_cause = self.tally.counts.sum(axis=0)
        return {c: float(v / self.n) for c, v in zip(self.tally.causes, per_cause, strict=True)}

    def extra_mean(self, name: str) -> float:
        total, _ = self.tally.extras[name]
        return float(total / self.n)

    # --- tables --------------------------------------------------------------------------
    def to_row(self, intervals: Any = None) -> dict[str, Any]:
        """One flat record: rates, interval ends, counts and fight-length statistics.
        ``intervals``: the Wilson ``(low, high)`` of the A, B and draw rates, already
        computed (:func:`summary_rows`)."""
        # the properties' numbers, each count summed once (a sweep makes a row a cell)
        n, wins = self.n, self.tally.wins
        row: dict[str, Any] = {"n": n}
        for outcome in (Winner.A, Winner.B, Winner.DRAW):
            name = OUTCOMES[outcome]
            low, high = self._ci(outcome) if intervals is None else intervals[outcome]
            row[name] = float(wins[outcome] / n) if n else float("nan")  # as _rate
            row[f"{name}_low"] = low
            row[f"{name}_high"] = high
        row["mean_rounds"] = self.mean_rounds
        cdf = np.cumsum(self.tally.rounds)  # as rounds_quantile
        for q in (0.1, 0.5, 0.9):
            row[f"rounds_q{int(q * 100)}"] = (
                float(np.searchsorted(cdf, q * cdf[-1], side="left")) if cdf[-1] != 0
                else float("nan"))
        per_cause = self.tally.counts.sum(axis=0)  # as cause_shares
        for cause, v in zip(self.tally.causes, per_cause, strict=True):
            row[f"end_{cause}"] = float(v / n)
        for name in sorted(self.tally.extras):
            row[f"mean_{name}"] = self.extra_mean(name)
        return row

    def to_frame(self) -> pd.DataFrame:
        """A tidy table: one row per outcome (A wins, B wins, draw) with count, rate, interval."""
        import pandas as pd

        records = []
        for outcome, label in ((Winner.A, "A wins"), (Winner.B, "B wins"), (Winner.DRAW, "draw")):
            low, high = self._ci(outcome)
            records.append({"outcome": label, "count": int(self.tally.wins[outcome]),
                            "rate": self._rate(outcome), "low": low, "high": high})
        frame = pd.DataFrame.from_records(records).set_index("outcome")
        frame.attrs.update({"ruleset": self.ruleset, "n": self.n, "confidence": self.confidence,
                            "mean_rounds": self.mean_rounds})
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (the ``balance duel --json`` object)."""
        out: dict[str, Any] = {"ruleset": self.ruleset, "n": self.n}
        out.update({k: v for k, v in self.meta.items() if k in ("seed", "entropy")})
        for outcome in (Winner.A, Winner.B, Winner.DRAW):
            out[OUTCOMES[outcome]] = self._rate(outcome)
        for outcome in (Winner.A, Winner.B, Winner.DRAW):
            out[f"{OUTCOMES[outcome]}_ci"] = list(self._ci(outcome))
        out["confidence"] = self.confidence
        out["mean_rounds"] = self.mean_rounds
        out["rounds_median"] = self.rounds_quantile(0.5)
        out["end_causes"] = self.cause_shares()
        out["per_fight"] = {name: self.extra_mean(name) for name in sorted(self.tally.extras)}
        out["assumptions"] = list(self.assumptions)
        out["policies"] = list(self.policies)
        out.update({k: v for k, v in self.meta.items() if k not in ("seed", "entropy")})
        return out

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **kwargs)

    def __str__(self) -> str:
        pct = 100 * self.confidence
        lines = [f"{self.ruleset}: {self.n:,} fights"
                 + (f", seed {self.meta['seed']}" if self.meta.get("seed") is not None else "")]
        for outcome, label in ((Winner.A, "A wins"), (Winner.B, "B wins"), (Winner.DRAW, "draw")):
            low, high = self._ci(outcome)
            lines.append(f"  {label:<7} {100 * self._rate(outcome):7.3f}%   "
                         f"[{100 * low:.3f}%, {100 * high:.3f}%] ({pct:g}% Wilson)")
        lines.append(f"  rounds  mean {self.mean_rounds:.2f}, median {self.rounds_quantile(0.5):g}, "
                     f"90th percentile {self.rounds_quantile(0.9):g}")
        shares = ", ".join(f"{c} {100 * s:.1f}%" for c, s in self.cause_shares().items() if s)
        lines.append(f"  ended by {shares}")
        if self.tally.extras:  # the ruleset's own measures, e.g. casualties, pool spent
            lines.append("  per fight (mean): " + ", ".join(
                f"{name} {self.extra_mean(name):.3g}" for name in sorted(self.tally.extras)))
        lines.extend(rests_on(self.assumptions, self.policies))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        frame = self.to_frame()
        caption = (f"{self.ruleset}: {self.n:,} fights, mean {self.mean_rounds:.2f} rounds; "
                   f"{100 * self.confidence:g}% Wilson intervals")
        return frame.style.format({"rate": "{:.4f}", "low": "{:.4f}", "high": "{:.4f}"}) \
            .set_caption(caption).to_html()
