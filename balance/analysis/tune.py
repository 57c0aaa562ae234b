"""What would make it fair: the value of a knob that makes a matchup even or hits a target
rate (:func:`tune`), and per-entrant handicaps that flatten a round robin (:func:`handicaps`).

A **knob** is one integer or real field: ``a.<i>.<field>`` / ``b.<i>.<field>`` for a
combatant of side A / B (``a.*.<field>``: every combatant of the side), ``rules.<name>`` (or
the bare ``<name>``) for a rule parameter -- the field paths of experiment axes.  Its range is
the field's declared ``low..high`` (``balance show RULESET``), narrowed by ``bounds``.

The **metric** is side A's expected score, ``A wins + draw_worth x draw`` (``draw_worth``
0.5, or the ruleset's own ``draw_worth`` rule where it has one), or one rate: ``a_win``,
``b_win``, ``draw``.  Tuning finds the knob value at which it equals ``target`` (0.5: even).

Method
------
Exact (``method="exact"``, the default where the ruleset's exact solver answers the
matchup): the metric is solved at each knob value tried.  An integer knob is bisected over
its range to the two neighbouring values whose exact rates straddle the target -- the
answer is that **bracket** with both rates, and the crossing of the straight line between
them (a rule with band edges moves in steps, so no whole value need hit the target); a real
knob is root-found by Brent's method, and a jump of the rate across the target is reported
as such.  An :class:`~balance.errors.IntractableError` at any value tried falls back to
simulation (``method=None``) or is an error (``method="exact"``).

Monte Carlo (``method="simulate"``): stochastic root finding on **common random numbers**.
Every knob value is simulated on the same streams (chunk ``i`` of every value draws from
``stream(entropy, i)``, the streams of ``balance.duel(..., seed=entropy,
chunk_size=chunk_size)``), so fight ``j`` at one value is paired with fight ``j`` at every
other, and the estimated curve is a fixed function of the seed (sample-average
approximation).  The knob's range is put on a lattice (integer knobs: the whole values; real
knobs: steps of ``precision``), then

1. both ends are simulated (``2**14`` fights each); if they lie on the same side of the
   target, outside their intervals, the target cannot be reached within the bounds and the
   closest end is reported with its rate;
2. the lattice is bisected at that size to a bracket of neighbouring values;
3. the crossing is the root of the straight-line interpolation of the estimated rates, and
   its 95% interval is the set of knob values at which the interpolated rate's confidence
   band contains the target (a test inversion: at the true crossing the band holds the
   target with probability 95%).  The band's variance comes from the paired fights, so it
   counts the covariance that common random numbers induce between neighbouring values.
   Neighbours are added while the set reaches the edge of the values simulated, and every
   value near the crossing is simulated with twice as many fights (extending the same
   streams) until the interval's half-width is at most ``precision`` (knob units) or the cap
   ``max_fights`` is reached.

For a real knob the answer carries the error of straight-line interpolation over one lattice
step, which is small next to ``precision`` unless the rate curves sharply within a step.

Round robin (:func:`handicaps`): the same machinery finds, for one entrant at a time, the
value of a named combatant field that brings its expected score against the field (every
other entrant, both seats, equally weighted) nearest to 50%, the others held; passes repeat
over the entrants (Gauss-Seidel) until every score is within ``margin`` of 50%, nothing
changes, or a handicap vector recurs.  One entrant (the strongest at the start, or
``anchor``) keeps its value: only differences matter to a zero-sum score, and the scores
always average exactly 50%.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import stats
from ..api import check_play, get, matchup
from ..errors import IntractableError, SpecError
from ..fields import check_text
from ..labels import field_label, rate_with_interval
from ..outcomes import rests_on
from ..random import root_entropy, stream
from ..reading import Reader, field_path
from ..rulesets.base import Ruleset, Side

__all__ = ["METRICS", "Handicaps", "Point", "Tuning", "handicaps", "knob_for", "parse_knob",
           "tune"]

METRICS: tuple[str, ...] = ("score", "a_win", "b_win", "draw")
METHODS: tuple[str, ...] = ("exact", "simulate")
CHUNK_SIZE = 1 << 14
"""Fights per kernel call while tuning; also the first sample size of every value."""
MAX_FIGHTS = 1 << 22
"""Default cap on the fights simulated at one knob value."""
BEST_MAX_FIGHTS = 1 << 16
"""Default cap under Monte Carlo best play: fights a profile pair at one knob value (each
value is a game solved over the policy profiles)."""
MAX_VALUES = 400
"""Most refinement steps of one search (a guard against a flat, noisy curve)."""
MAX_WINDOW = 24
"""Most neighbouring lattice values the interval is traced over: past that the rate stays
within noise of the target (a plateau), and the interval is reported as at least that."""
RR_FIGHTS = 20_000
"""Default fights per ordered pair and knob value in a simulated round robin."""
NEAR = 0.01
"""An integer knob's answer: a whole value whose rate is within this of the target (one
point; its interval's nearer end, simulated) is the answer; beyond it, the answer is that no
whole value gets there, with the two that bracket the target."""
WHOLE_HALF_WIDTH = 0.005
"""Simulated integer knob: the two whole values bracketing the target are simulated until
their rates' 95% half-widths are at most this (half a point), or the cap."""

Progress = Callable[[int], None]
"""Called with the number of evaluations so far (a knob value's rate, simulated or solved)."""


# --- knobs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """A numeric field to tune: where it lives, its type and its range."""

    path: str
    """Canonical path: ``"b.0.combats"``, ``"a.*.agility"``, ``"rules.damage_die"``."""
    target: str
    """``"a"``, ``"b"`` or ``"rules"``."""
    member: int | str | None
    """Combatant index, ``"*"`` (all of the side) or ``None`` (a rule)."""
    name: str
    integer: bool
    low: float
    high: float
    label: str = ""
    """The field in words ("combats survived"), from its documentation."""
    origin: str = "declared"
    """Where the range comes from: ``"declared"`` (the field's ``low..high``), ``"rules"``
    (narrowed by the rules, e.g. pool's ``stat_ranges``) or ``"bounds"`` (given)."""

    def range_text(self) -> str:
        """``"1..10 (the range the rules allow)"``: the range searched and its origin."""
        why = {"declared": "the field's range", "rules": "the range the rules allow",
               "bounds": "the bounds given"}[self.origin]
        return f"{self.fmt(self.low)}..{self.fmt(self.high)} ({why})"

    @property
    def side(self) -> str | None:
        return None if self.target == "rules" else self.target.upper()

    def fmt(self, value: float | None, *, crossing: bool = False,
            half: float | None = None) -> str:
        """A knob value as text: whole values plain; a crossing to one decimal (a real
        knob's to its range's scale), or to the first significant digit of ``half``, the
        half-width of its interval."""
        if value is None:
            return "default"
        if self.integer and not crossing:
            return f"{round(value)}"
        span = self.high - self.low
        decimals = 1 if self.integer else max(0, 2 - math.floor(math.log10(span)))
        if half is not None and half > 0:
            decimals = max(decimals, -math.floor(math.log10(half)))
        return f"{value:.{min(decimals, 9)}f}"


def _numeric_type(tp: Any) -> type | None:
    """``int`` or ``float`` for a field of that type (optionally ``| None``), else ``None``."""
    if typing.get_origin(tp) in (types.UnionType, typing.Union):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        tp = args[0] if len(args) == 1 else None
    return tp if tp in (int, float) else None


def _numeric_fields(cls: type) -> dict[str, type]:
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        kind = _numeric_type(hints[f.name]) if "tag" in f.metadata else None
        if kind is not None:
            out[f.name] = kind
    return out


def parse_knob(ruleset: str | Ruleset, text: str, *, sides: Mapping[str, Side] | None = None,
               bounds: Sequence[float] | None = None, allow_import: bool = False,
               allowed: tuple[float, float] | None = None) -> Knob:
    """Read a knob path (see the module docstring) and its range (``allow_import``: as
    :func:`balance.duel`; ``allowed``: the range the rules allow, inside the declared one).

    Raises :class:`SpecError` naming the knobs allowed when ``text`` is not an integer or
    real field, and when ``bounds`` are not an increasing pair inside the field's range.
    """
    rs = get(ruleset, allow_import=allow_import)
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"knob must be a field path such as b.0.combats or rules.<name>, "
                        f"got {text!r}")
    text = text.strip()
    if "." not in text:
        if text in _numeric_fields(rs.Rules) or text not in _numeric_fields(rs.Combatant):
            text = f"rules.{text}"
        else:
            raise SpecError(f"knob {text!r}: a combatant field needs its side and slot, e.g. "
                            f"b.0.{text} (a.<i>.{text}, b.<i>.{text} or a.*.{text})")
    sides = dict(sides or {})
    try:
        path = field_path(text, "knob", rs, sides, Reader(None))
    except SpecError as exc:
        raise SpecError(exc.reason.replace(" to sweep", " to tune"), where="knob") from None
    parts = path.split(".")
    if parts[0] == "rules":
        cls, target, member, name = rs.Rules, "rules", None, parts[1]
        where = f"{rs.name} rule parameters"
    elif len(parts) == 3 and parts[2] != "preset":
        cls, target, name = rs.Combatant, parts[0], parts[2]
        member = "*" if parts[1] == "*" else int(parts[1])
        where = f"{rs.name} combatant fields"
    else:
        raise SpecError(f"knob {text!r} is a preset or a whole side; tune takes one integer or "
                        f"real field, e.g. b.0.{next(iter(_numeric_fields(rs.Combatant)), 'x')}")
    numeric = _numeric_fields(cls)
    if name not in numeric:
        raise SpecError(f"knob {path!r} is not an integer or real field; tunable {where}: "
                        + ", ".join(numeric))
    info = next(f for f in dataclasses.fields(cls) if f.name == name)
    low, high = info.metadata.get("low"), info.metadata.get("high")
    origin = "declared"
    if allowed is not None:
        low = allowed[0] if low is None else max(low, allowed[0])
        high = allowed[1] if high is None else min(high, allowed[1])
        origin = "rules"
    integer = numeric[name] is int
    if bounds is not None:
        if (not isinstance(bounds, Sequence) or len(bounds) != 2
                or any(isinstance(b, bool) or not isinstance(b, int | float) for b in bounds)):
            raise SpecError(f"bounds must be two numbers (low, high), got {bounds!r}")
        lo, hi = (float(b) for b in bounds)
        if integer and not (lo.is_integer() and hi.is_integer()):
            raise SpecError(f"bounds of the integer knob {path} must be whole numbers, "
                            f"got {bounds!r}")
        within = f"{_num(low)}..{_num(high)}" + (" (the range the rules allow)"
                                                  if origin == "rules" else "")
        if not lo < hi or (low is not None and lo < low) or (high is not None and hi > high):
            raise SpecError(f"bounds of {path} must be low < high inside {within}, "
                            f"got {_num(lo)}..{_num(hi)}")
        low, high, origin = lo, hi, "bounds"
    if low is None or high is None:
        raise SpecError(f"knob {path} has no declared range; give bounds=(low, high) "
                        "(--bounds LOW,HIGH)")
    return Knob(path, target, member, name, integer, float(low), float(high),
                field_label(name, info.metadata.get("doc", "")), origin)


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return f"{value:g}"


def knob_for(rs: Ruleset, rules: Any, side_a: Side, side_b: Side, text: str,
             bounds: Sequence[float] | None = None) -> Knob:
    """The knob ``text`` of this matchup, its range narrowed to what the rules allow
    (:meth:`~balance.rulesets.base.Ruleset.field_range`: pool's stat ranges), with both
    ends checked by the ruleset."""
    sides = {"a": side_a, "b": side_b}
    k = parse_knob(rs, text, sides=sides)
    allowed = None if k.target == "rules" else rs.field_range(rules, k.name)
    if allowed is not None:
        k = parse_knob(rs, text, sides=sides, bounds=bounds, allowed=allowed)
    elif bounds is not None:
        k = parse_knob(rs, text, sides=sides, bounds=bounds)
    for end in (k.low, k.high):
        try:
            rs.check_sides(*_apply(rs, k, rules, side_a, side_b, end))
        except SpecError as exc:
            raise SpecError(f"{k.path} = {k.fmt(end)}, an end of the range searched "
                            f"({k.fmt(k.low)}..{k.fmt(k.high)}), is refused: {exc.reason}; "
                            "give bounds inside what is allowed (bounds=, --bounds LOW,HIGH)"
                            ) from None
    return k


def _apply(rs: Ruleset, knob: Knob, rules: Any, side_a: Side, side_b: Side, value: Any
           ) -> tuple[Any, Side, Side]:
    """The matchup with the knob set to ``value`` (validated by the ruleset)."""
    value = int(value) if knob.integer else float(value)
    if knob.target == "rules":
        return rs.rules(rules, **{knob.name: value}), side_a, side_b
    side = list(side_a if knob.target == "a" else side_b)
    slots = range(len(side)) if knob.member == "*" else [int(knob.member or 0)]
    for k in slots:
        side[k] = rs.combatant(side[k], **{knob.name: value})
    if knob.target == "a":
        return rules, tuple(side), side_b
    return rules, side_a, tuple(side)


def _who(knob: Knob, side_a: Side, side_b: Side) -> str | None:
    """The knob's owner in words: the side, or one combatant of a larger side."""
    if knob.side is None:
        return None
    side = side_a if knob.target == "a" else side_b
    if knob.member == "*":
        return f"every combatant of {knob.side}" if len(side) > 1 else knob.side
    if len(side) == 1:
        return knob.side
    i = int(knob.member or 0)
    return f"{knob.side}'s combatant {i} ({getattr(side[i], 'name', '?')})"


def _current(knob: Knob, rules: Any, side_a: Side, side_b: Side) -> float | None:
    if knob.target == "rules":
        return getattr(rules, knob.name)
    side = side_a if knob.target == "a" else side_b
    values = {getattr(c, knob.name) for c in side} if knob.member == "*" \
        else {getattr(side[int(knob.member or 0)], knob.name)}
    return values.pop() if len(values) == 1 else None


# --- evaluating the metric ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Matchup:
    """One matchup behind a value of the tuned quantity; ``flip``: read from seat B."""

    rules: Any
    side_a: Side
    side_b: Side
    flip: bool = False
    key: tuple[Any, ...] = ()


def _where(m: _Matchup) -> str:
    names = [getattr(c, "name", "?") for c in (*m.side_a, *m.side_b)]
    return f"{' + '.join(names[:len(m.side_a)])} against {' + '.join(names[len(m.side_a):])}"


def _metric_table(metric: str, draw_worth: float) -> np.ndarray:
    """The metric's value for a draw, an A win and a B win (indexed by ``Winner``)."""
    return np.array({"score": (draw_worth, 1.0, 0.0), "a_win": (0.0, 1.0, 0.0),
                     "b_win": (0.0, 0.0, 1.0), "draw": (1.0, 0.0, 0.0)}[metric])


class _Curve:
    """The tuned quantity as a function of the knob value: the mean over its matchups of
    the metric (seat-B matchups read from B's side), simulated on common random numbers
    or solved exactly."""

    def __init__(self, rs: Ruleset, matchups: Callable[[Any], list[_Matchup]],
                 table: np.ndarray, *, exact: bool, entropy: int, chunk_size: int,
                 confidence: float, shared: dict[str, Any], tick: Callable[[], None]) -> None:
        self.rs, self.matchups, self.exact = rs, matchups, exact
        self.tables = {False: table, True: table[[0, 2, 1]]}
        self.entropy, self.chunk_size = entropy, chunk_size
        self.z = stats.z_value(confidence)
        self.confidence = confidence
        # caches shared between curves (a round robin's entrants meet the same matchups)
        self.chunks: dict[Any, list[np.ndarray]] = shared.setdefault("chunks", {})
        self.solved: dict[Any, np.ndarray] = shared.setdefault("solved", {})
        self.counters: dict[str, int] = shared.setdefault("counters", {"fights": 0, "solves": 0})
        self.tick = tick
        self.seen: dict[Any, int] = {}  # knob value -> largest n evaluated

    # one matchup --------------------------------------------------------------------------
    def _winners(self, m: _Matchup, n: int) -> np.ndarray:
        chunks = self.chunks.setdefault((m.key, m.rules, m.side_a, m.side_b), [])
        need = -(-n // self.chunk_size)
        while len(chunks) < need:
            rng = stream(self.entropy, *m.key, len(chunks))
            out = self.rs.simulate(m.rules, m.side_a, m.side_b, n=self.chunk_size, rng=rng)
            chunks.append(np.asarray(out.winner, dtype=np.int8))
            self.counters["fights"] += self.chunk_size
        return np.concatenate(chunks[:need])[:n]

    def _rates(self, m: _Matchup) -> np.ndarray:
        """Exact ``[draw, a_win, b_win]``."""
        key = (m.rules, m.side_a, m.side_b)
        if key not in self.solved:
            try:
                p = self.rs.exact(m.rules, m.side_a, m.side_b)
            except IntractableError as exc:
                raise IntractableError(exc.reason, where=_where(m)) from None
            self.solved[key] = np.array([p.draw, p.a_win, p.b_win], dtype=float)
            self.counters["solves"] += 1
        return self.solved[key]

    # the quantity ---------------------------------------------------------------------------
    def outcomes(self, x: Any, n: int) -> np.ndarray:
        """``[draw, win, loss]`` rates at knob value ``x`` from the tuned side's seat
        (A's, or B's in a flipped matchup), averaged over the matchups; ``n`` fights a
        matchup, or solved exactly."""
        rows = []
        for m in self.matchups(x):
            rates = (self._rates(m) if self.exact
                     else np.bincount(self._winners(m, n), minlength=3) / n)
            rows.append(rates[[0, 2, 1]] if m.flip else rates)
        if self.seen.get(x, -1) < n:
            self.seen[x] = n
            self.tick()
        return np.mean(rows, axis=0)

    def estimate(self, x: Any, n: int) -> float:
        """The mean metric at knob value ``x`` over ``n`` fights a matchup (exact: solved)."""
        return float(self.tables[False] @ self.outcomes(x, n))

    def cov(self, x: Any, y: Any, n: int) -> float:
        """Covariance of the estimates at ``x`` and ``y`` from their ``n`` paired fights a
        matchup (0 for exact answers)."""
        if self.exact:
            return 0.0
        total = 0.0
        ms_x, ms_y = self.matchups(x), self.matchups(y)
        for mx, my in zip(ms_x, ms_y, strict=True):
            tx, ty = self.tables[mx.flip], self.tables[my.flip]
            wx, wy = self._winners(mx, n), self._winners(my, n)
            joint = np.bincount(wx.astype(np.int16) * 3 + wy, minlength=9).reshape(3, 3) / n
            total += (tx @ joint @ ty - (tx @ joint.sum(axis=1)) * (ty @ joint.sum(axis=0))) / n
        return total / len(ms_x) ** 2

    def interval(self, x: Any, n: int) -> tuple[float, float]:
        """A confidence interval of the estimate at ``x``: Wilson on the metric's sum for
        one matchup (conservative for a score: its variance is at most that of a coin with
        the same mean), normal over several."""
        value = self.estimate(x, n)
        if self.exact:
            return value, value
        ms = self.matchups(x)
        if len(ms) == 1:
            low, high = stats.wilson(value * n, n, self.confidence)
            return float(low), float(high)
        half = self.z * math.sqrt(max(self.cov(x, x, n), 0.0))
        return max(0.0, value - half), min(1.0, value + half)


class _BestCurve(_Curve):
    """The tuned quantity under best play: each side's policies chosen, at every knob value,
    as the zero-sum game over them (:mod:`balance.analysis.bestplay`) -- solved exactly
    where a best-play solver answers, else by Monte Carlo best play at ``n`` fights a
    profile pair (the same streams at every value; its bootstrap interval, and no
    covariance between values: a wider band than the paired one, never a narrower)."""

    def __init__(self, rs: Ruleset, matchups: Callable[[Any], list[_Matchup]],
                 table: np.ndarray, *, metric: str, draw_worth: float, **options: Any) -> None:
        super().__init__(rs, matchups, table, **options)
        self.metric, self.draw_worth = metric, draw_worth
        self.games: dict[Any, Any] = {}

    def _game(self, m: _Matchup, n: int) -> Any:
        from .bestplay import solve

        key = (m.rules, m.side_a, m.side_b, 0 if self.exact else n)
        if key not in self.games:
            if self.exact:
                try:
                    game = solve(self.rs, m.rules, m.side_a, m.side_b,
                                 draw_worth=self.draw_worth, method="exact")
                except IntractableError as exc:
                    raise IntractableError(exc.reason, where=_where(m)) from None
                self.counters["solves"] += 1
            else:
                game = solve(self.rs, m.rules, m.side_a, m.side_b, draw_worth=self.draw_worth,
                             method="simulate", precision=None, n=n, entropy=self.entropy,
                             key=(*m.key, "best play"), confidence=self.confidence)
                self.counters["fights"] += game.fights
            self.games[key] = game
        return self.games[key]

    def _rates(self, m: _Matchup) -> np.ndarray:
        game = self._game(m, 0)
        return np.array([game.draw, game.a_win, game.b_win], dtype=float)

    def outcomes(self, x: Any, n: int) -> np.ndarray:
        if self.exact:
            return super().outcomes(x, n)
        (m,) = self.matchups(x)
        game = self._game(m, n)
        if self.seen.get(x, -1) < n:
            self.seen[x] = n
            self.tick()
        return np.array([game.draw, game.a_win, game.b_win], dtype=float)

    def _metric(self, x: Any, n: int) -> tuple[float, float, float]:
        """The metric and its interval at ``x`` under Monte Carlo best play (the game's
        value for the score)."""
        self.outcomes(x, n)
        (m,) = self.matchups(x)
        game = self._game(m, n)
        if self.metric == "score":
            return game.value, *game.value_ci
        return getattr(game, self.metric), *getattr(game, f"{self.metric}_ci")

    def estimate(self, x: Any, n: int) -> float:
        return super().estimate(x, n) if self.exact else self._metric(x, n)[0]

    def cov(self, x: Any, y: Any, n: int) -> float:
        if self.exact or x != y:
            return 0.0
        _, low, high = self._metric(x, n)
        return ((high - low) / (2 * self.z)) ** 2

    def interval(self, x: Any, n: int) -> tuple[float, float]:
        if self.exact:
            return super().interval(x, n)
        _, low, high = self._metric(x, n)
        return low, high


# --- the search on a lattice ---------------------------------------------------------------------


def _sign(v: float) -> int:
    return 0 if v == 0 else (1 if v > 0 else -1)


@dataclass
class _Found:
    status: str  # "crossing" or "unreachable"
    n: int
    position: float | None = None  # lattice units
    set_low: float | None = None
    set_high: float | None = None
    clipped: bool = False  # the interval stops at an end of the range
    best: int | None = None  # unreachable: the nearer end (lattice index)
    reached: bool = True
    window: tuple[int, int] = (0, 0)
    wide: bool = False  # the interval reaches past the values simulated


class _Lattice:
    """Knob values ``low + k * step`` for ``k = 0..K`` (exactly the whole values for an
    integer knob)."""

    def __init__(self, knob: Knob, step: float) -> None:
        self.knob = knob
        if knob.integer:
            self.step, self.K = 1.0, int(knob.high - knob.low)
        else:
            self.K = max(1, math.ceil((knob.high - knob.low) / step - 1e-9))
            self.step = (knob.high - knob.low) / self.K

    def value(self, k: int) -> Any:
        if self.knob.integer:
            return int(self.knob.low) + int(k)
        return float(round(self.knob.low + k * self.step, 12))

    def at(self, position: float) -> float:
        return self.knob.low + position * self.step


def _crossings(g: Sequence[float]) -> list[float]:
    """Where the straight-line interpolation of ``g`` (at 0, 1, 2, ...) crosses zero."""
    out: list[float] = []
    for j in range(len(g)):
        if g[j] == 0:
            out.append(float(j))
        elif j + 1 < len(g) and g[j] * g[j + 1] < 0:
            out.append(j + g[j] / (g[j] - g[j + 1]))
    return sorted(set(out))


def _at_or_below_zero(a: float, b: float, c: float) -> list[tuple[float, float]]:
    """The parts of ``[0, 1]`` where ``a u**2 + b u + c <= 0``."""
    def f(u: float) -> float:
        return (a * u + b) * u + c

    roots: list[float] = []
    scale = max(abs(a), abs(b), abs(c))
    if scale == 0:
        return [(0.0, 1.0)]
    if abs(a) > 1e-12 * scale:
        disc = b * b - 4 * a * c
        if disc >= 0:
            q = -0.5 * (b + math.copysign(math.sqrt(disc), b))  # the stable pair of roots
            roots = [q / a] + ([c / q] if q != 0 else [])
    elif b != 0:
        roots = [-c / b]
    cuts = [0.0, *sorted(r for r in roots if 0 < r < 1), 1.0]
    return [(lo, hi) for lo, hi in itertools.pairwise(cuts) if f((lo + hi) / 2) <= 0]


def _band_set(curve: _Curve, lattice: _Lattice, wl: int, wr: int, n: int, target: float,
              crossings: Sequence[float]) -> tuple[float, float, bool, bool]:
    """The knob positions in ``[wl, wr]`` at which the confidence band of the interpolated
    estimate contains the target: ``(low, high, touches_left, touches_right)``.

    On the segment from value ``k`` to ``k + 1`` the interpolated estimate is
    ``(1 - u) g0 + u g1`` (``g``: estimate minus target) with variance
    ``(1 - u)^2 V00 + u^2 V11 + 2 u (1 - u) V01`` from the paired fights; the band holds
    the target where the square of the first is at most ``z^2`` times the second, a
    quadratic inequality in ``u`` solved exactly."""
    z2 = curve.z ** 2
    positions = [wl + c for c in crossings]
    touches_left = touches_right = False
    for k in range(wl, wr):
        x0, x1 = lattice.value(k), lattice.value(k + 1)
        g0, g1 = curve.estimate(x0, n) - target, curve.estimate(x1, n) - target
        v00, v11, v01 = curve.cov(x0, x0, n), curve.cov(x1, x1, n), curve.cov(x0, x1, n)
        step = g1 - g0
        parts = _at_or_below_zero(step * step - z2 * (v00 + v11 - 2 * v01),
                                  2 * g0 * step - 2 * z2 * (v01 - v00),
                                  g0 * g0 - z2 * v00)
        for lo, hi in parts:
            positions.extend((k + lo, k + hi))
            touches_left |= k == wl and lo == 0.0
            touches_right |= k == wr - 1 and hi == 1.0
    return float(min(positions)), float(max(positions)), touches_left, touches_right


def _search(curve: _Curve, lattice: _Lattice, target: float, *, precision: float,
            max_fights: int) -> _Found:
    """Find where the curve crosses ``target`` on the lattice (see the module docstring)."""
    n = curve.chunk_size
    K = lattice.K
    value = lattice.value

    def g(k: int) -> float:
        gap = curve.estimate(value(k), n) - target
        return 0.0 if curve.exact and abs(gap) < 1e-12 else gap  # rounding of exact answers

    # 1. the ends: is the target inside the range at all?
    while True:
        g0, gK = g(0), g(K)
        if _sign(g0) * _sign(gK) <= 0:
            break
        near = K if abs(gK) <= abs(g0) else 0
        low, high = curve.interval(value(near), n)
        if curve.exact or not low <= target <= high or n >= max_fights:
            return _Found("unreachable", n, best=near, reached=not (low <= target <= high))
        n = min(2 * n, max_fights)
    rising = gK > g0

    # 2. bisect to neighbouring values (the first crossing from the low end, where the
    # estimate leaves its sign at 0: a value that hits the target counts as crossed)
    def bracket(lo: int, hi: int) -> tuple[int, int]:
        s_lo = _sign(g(lo))
        if s_lo == 0:
            return lo, lo
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if _sign(g(mid)) == s_lo else (lo, mid)
        return (hi, hi) if _sign(g(hi)) == 0 else (lo, hi)

    lo, hi = bracket(0, K)
    wl, wr = (max(lo - 1, 0), min(hi + 1, K)) if lo == hi else (lo, hi)

    # 3. the crossing of the interpolated curve, and its interval by inverting the band
    tried = 0
    while True:
        tried += 1
        gs = [g(k) for k in range(wl, wr + 1)]
        cross = _crossings(gs)
        if not cross:  # the crossing left the window as the sample grew
            above = gs[0] > 0
            if above == rising:
                if wl == 0:
                    return _Found("crossing", n, 0.0, 0.0, 0.0, clipped=True, reached=False,
                                  window=(wl, wr))
                wl -= 1
            else:
                if wr == K:
                    return _Found("crossing", n, float(K), float(K), float(K), clipped=True,
                                  reached=False, window=(wl, wr))
                wr += 1
            continue
        position = wl + cross[0]
        if curve.exact:
            return _Found("crossing", 0, position, position, position, window=(wl, wr))
        s_lo, s_hi, left, right = _band_set(curve, lattice, wl, wr, n, target, cross)
        room = wr - wl < MAX_WINDOW
        if left and wl > 0 and room:
            wl -= 1
            continue
        if right and wr < K and room:
            wr += 1
            continue
        half = (s_hi - s_lo) / 2 * lattice.step
        clipped = (left and wl == 0) or (right and wr == K)
        wide = (left and wl > 0) or (right and wr < K)
        # values that hit the target with no spread at all (every fight a draw, say): more
        # fights cannot narrow a plateau
        plateau = wide and any(
            gs[j] == 0 and curve.cov(value(wl + j), value(wl + j), n) == 0
            for j in range(len(gs)))
        if half <= precision or n >= max_fights or plateau or tried >= MAX_VALUES:
            return _Found("crossing", n, position, s_lo, s_hi, clipped=clipped,
                          reached=half <= precision, window=(wl, wr), wide=wide)
        # keep the values the set spans around the crossing, and double the fights at each
        # (extending the same streams)
        reach = MAX_WINDOW // 2
        wl = max(wl, min(math.floor(s_lo), math.floor(position)), math.floor(position) - reach)
        wr = min(wr, max(math.ceil(s_hi), math.ceil(position)), math.ceil(position) + reach)
        if wr == wl:
            wr = min(wl + 1, K) if wl < K else wr
            wl = wr - 1
        n = min(2 * n, max_fights)


def _nearest(curve: _Curve, lattice: _Lattice, target: float, n: int) -> tuple[int, bool]:
    """The lattice index whose estimate (at ``n`` fights a matchup) is nearest the target,
    by bisection over the range; and whether the target lies inside the range."""
    value = lattice.value

    def g(k: int) -> float:
        return curve.estimate(value(k), n) - target

    g0, gK = g(0), g(lattice.K)
    if _sign(g0) * _sign(gK) > 0:
        return (0 if abs(g0) <= abs(gK) else lattice.K), False
    lo, hi = 0, lattice.K
    s_lo = _sign(g0)
    if s_lo == 0:
        return 0, True
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _sign(g(mid)) == s_lo else (lo, mid)
    return (lo if abs(g(lo)) < abs(g(hi)) else hi), True


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """The tuned quantity at one knob value: estimate and interval (exact: both ends equal
    the value, ``n = 0``)."""

    value: float
    rate: float
    low: float
    high: float
    n: int
    draw: float = 0.0
    """The draw rate there."""

    def text(self) -> str:
        """``"47.9% [47.2, 48.7]"``, rounded to what the interval supports; an exact rate
        to two decimals of a percent."""
        return rate_with_interval(self.rate, self.low, self.high, exact=self.n == 0)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_WHAT = {"score": "A's expected score", "a_win": "A's win rate", "b_win": "B's win rate",
         "draw": "the draw rate"}


@dataclass(frozen=True)
class Tuning:
    """The answer of :func:`tune`: where the tuned quantity crosses the target.

    ``status`` is ``"crossing"`` (``crossing`` holds the knob value, ``interval`` its 95%
    interval for a simulated answer, ``bracket`` the two neighbouring values tried around
    it), ``"hit"`` (an exact answer lands on a whole value) or ``"unreachable"`` (no value
    in the range gets there: ``best`` is the closest end).
    """

    ruleset: str
    knob: Knob
    metric: str
    target: float
    draw_worth: float
    method: str
    status: str
    current: float | None
    now: Point | None
    crossing: float | None
    interval: tuple[float, float] | None
    bracket: tuple[Point, Point] | None
    best: Point | None
    points: tuple[Point, ...]
    precision: float | None
    reached: bool
    clipped: bool
    fights: int
    solves: int
    seed: int | None
    entropy: int | None
    chunk_size: int | None
    confidence: float
    elapsed_s: float
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    who: str | None = None
    policies: tuple[str, ...] = ()
    """The policies the fighters play, as ``name=value`` (a policy knob: its base value)."""
    monotone: bool = True
    """Whether the rate moves one way over the values tried (compared on the fights they
    share: the first chunk of the common streams), so no other value is nearer the target."""
    play: str = "default"
    """``"best"``: every value tried was played under best play."""

    @property
    def what(self) -> str:
        """The tuned quantity in words."""
        return _WHAT[self.metric]

    def goal(self) -> str:
        if self.metric == "score" and self.target == 0.5:
            return "to be even"
        return f"for {self.what} to be {self.target:.1%}"

    def sentence(self) -> str:
        """The answer in one sentence, with its interval."""
        knob = self.knob
        if self.status == "unreachable":
            assert self.best is not None
            within = (" (its interval holds the target, but no value is shown to reach it)"
                      if self.best.n and self.best.low <= self.target <= self.best.high else "")
            return (f"No {knob.path} in {knob.range_text()} brings "
                    f"{self.what} to {self.target:.1%}: the closest is {knob.path} = "
                    f"{knob.fmt(self.best.value)}, at {self.best.text()}{within}.")
        assert self.crossing is not None
        whole = self.whole()
        if whole is not None:
            return self._whole_sentence(whole)
        exact = self.status == "hit"
        half = None if self.interval is None else (self.interval[1] - self.interval[0]) / 2
        if half is None and not knob.integer:  # an exact root of a real knob: 4 places more
            half = (knob.high - knob.low) * 1e-4

        def fmt(v: float) -> str:
            return knob.fmt(v, crossing=not exact, half=half)

        value = fmt(self.crossing)
        span = "" if self.interval is None else \
            f" [{fmt(self.interval[0])}, {fmt(self.interval[1])}]"
        if knob.side is not None and self.current is not None:
            delta = self.crossing - self.current
            word = "more" if delta >= 0 else "fewer"
            if self.interval is not None:
                ends = sorted((end - self.current) if delta >= 0 else (self.current - end)
                              for end in self.interval)
                span = f" [{fmt(ends[0])}, {fmt(ends[1])}]"
            who = self.who or str(knob.side)
            return (f"{who} needs {'exactly ' if exact else ''}{fmt(abs(delta))} {word} "
                    f"{knob.label}{span} {self.goal()} ({knob.path} from "
                    f"{knob.fmt(self.current)} to {value}).")
        now = (" (unset now: the rules' default applies)" if self.current is None
               else f" (now {knob.fmt(self.current)})")
        result = ("makes it even" if self.metric == "score" and self.target == 0.5
                  else f"makes {self.what} {self.target:.1%}")
        text = f"{knob.path} = {'exactly ' if exact else ''}{value}{span} {result}{now}."
        return text

    def _reach(self) -> str:
        if self.metric == "score" and self.target == 0.5:
            return "makes it even"
        return f"brings {self.what} to {self.target:.1%}"

    def whole(self) -> dict[str, Any] | None:
        """An integer knob whose target lies between two whole values: the nearer one
        (``nearest``, ``other``), how far from the target it is at least (``gap``: 0 where
        its interval holds the target), that distance in points as the sentence claims it
        (``within``, rounded down), whether no whole value gets within :data:`NEAR`
        (``cliff``), the rate's ``step`` between the two, and whether every value tried moves
        one way (``monotone``: then no other whole value is nearer).  ``None`` elsewhere."""
        if not self.knob.integer or self.status != "crossing" or self.bracket is None:
            return None
        lo, hi = self.bracket
        if lo.value == hi.value:
            return None

        def gap(p: Point) -> float:
            return 0.0 if p.low <= self.target <= p.high else min(
                abs(p.low - self.target), abs(p.high - self.target))

        nearest, other = sorted((lo, hi), key=lambda p: abs(p.rate - self.target))
        least = min(gap(lo), gap(hi))
        places = 10 ** (2 if self.method == "exact" else 1)
        within = math.floor(100 * least * places + 1e-9) / places
        return {"nearest": nearest, "other": other, "gap": least, "within": within,
                "cliff": least >= NEAR, "step": abs(hi.rate - lo.rate),
                "monotone": self.monotone}

    def _whole_sentence(self, whole: Mapping[str, Any]) -> str:
        """The answer of an integer knob in whole values (see :meth:`whole`)."""
        knob = self.knob
        near, other = whole["nearest"], whole["other"]
        if whole["cliff"]:
            lo, hi = self.bracket or (near, other)
            who = "no whole value" if whole["monotone"] else "neither"
            digits = 2 if self.method == "exact" else 1
            lead = (f"No whole value of {knob.path}" if knob.side is None else
                    f"No whole number of {knob.label} for {self.who or knob.side} "
                    f"({knob.path})")
            return (f"{lead} {self._reach()}: {knob.fmt(lo.value)} gives "
                    f"{lo.text()} and {knob.fmt(hi.value)} gives {hi.text()}, so {who} is "
                    f"within {whole['within']:.{digits}f} points of {self.target:.1%} (the step "
                    f"from {knob.fmt(lo.value)} to {knob.fmt(hi.value)} moves {self.what} "
                    f"{100 * whole['step']:.1f} points).")
        rates = (f"{knob.fmt(near.value)} gives {near.text()}, {knob.fmt(other.value)} gives "
                 f"{other.text()}")
        if knob.side is not None and self.current is not None:
            delta = near.value - self.current
            word = "more" if delta >= 0 else "fewer"
            who = self.who or str(knob.side)
            return (f"{who} needs {knob.fmt(abs(delta))} {word} {knob.label} {self.goal()}, "
                    f"as near as a whole value gets ({knob.path} from "
                    f"{knob.fmt(self.current)} to {knob.fmt(near.value)}: {rates}).")
        now = ("unset now" if self.current is None else f"now {knob.fmt(self.current)}")
        return (f"{knob.path} = {knob.fmt(near.value)} {self._reach()} as nearly as a whole "
                f"value can ({rates}; {now}).")

    def around(self) -> str:
        """The values on either side of the crossing with their rates (for an integer knob,
        where the straight line between the two whole values that bracket the target
        crosses it), or ``""``."""
        if self.bracket is None:
            return ""
        knob, (lo, hi) = self.knob, self.bracket
        if self.whole() is not None and self.crossing is not None:
            half = (None if self.interval is None
                    else (self.interval[1] - self.interval[0]) / 2)

            def fmt(v: float) -> str:
                return knob.fmt(v, crossing=True, half=half)

            span = ("" if self.interval is None
                    else f" [{fmt(self.interval[0])}, {fmt(self.interval[1])}]")
            return (f"The straight line between {knob.fmt(lo.value)} and {knob.fmt(hi.value)} "
                    f"crosses {self.target:.1%} at {fmt(self.crossing)}{span}, between whole "
                    "values.")
        if self.status == "hit":
            return f"At {knob.path} = {knob.fmt(lo.value)}: {lo.text()}."
        kind = "Whole values" if knob.integer else "Neighbouring values tried"
        return (f"{kind} around it: {knob.fmt(lo.value)} gives {lo.text()}, "
                f"{knob.fmt(hi.value)} gives {hi.text()}.")

    def lines(self) -> list[str]:
        """The sentence, the values around the crossing, and how it was found."""
        knob = self.knob
        out = [f"{self.ruleset}: {self.sentence()}"]
        what = self.what + (f" (win + {self.draw_worth:g} x draw)" if self.metric == "score"
                            else "")
        out.append(f"  target: {what} = {self.target:.1%}")
        if self.bracket is not None:
            out.append("  " + _line(self.around()))
        if self.now is not None:
            out.append(f"  now ({knob.path} = {knob.fmt(self.now.value)}): "
                       f"{self.now.text()}")
        out.extend(f"  note: {note}" for note in self.notes)
        out.append("  " + _line(self.how()))
        out.extend(rests_on(self.assumptions, self.policies))
        return out

    def how(self) -> str:
        """How the answer was found, in a line."""
        tried = f"{len(self.points)} values tried"
        if self.play == "best":
            return self._how_best(tried)
        if self.method == "exact":
            return f"Method: exact ({self.ruleset}'s solver, {tried}, {self.solves} solves; " \
                   "no sampling, so no interval)."
        precision = ""
        if self.precision is not None and self.interval is not None:
            half = (self.interval[1] - self.interval[0]) / 2
            precision = (f"; half-width {half:.3g} "
                         + ("<= " if self.reached else "> ")
                         + f"precision {self.precision:g}")
        seed = (f"seed {self.seed}" if self.seed is not None else
                 f"fresh entropy {self.entropy}: replay with --seed {self.entropy}")
        band = ("" if self.interval is None else f"; {self.confidence:.0%} interval by "
                "inverting the band of the interpolated rate")
        return (f"Method: simulate (common random numbers; {tried}, {self.fights:,} fights; "
                f"{seed}, chunk {self.chunk_size:,}{band}{precision}).")

    def _how_best(self, tried: str) -> str:
        """How an answer under best play was found."""
        if self.method == "exact":
            return (f"Method: best play at every value, exact ({self.ruleset}'s best-play "
                    f"solver: each side's decisions chosen state by state; {tried}, "
                    f"{self.solves} solves; no sampling, so no interval).")
        seed = (f"seed {self.seed}" if self.seed is not None else
                f"fresh entropy {self.entropy}: replay with --seed {self.entropy}")
        return (f"Method: best play at every value, Monte Carlo (the game over the policy "
                f"profiles; {tried}, {self.fights:,} fights; {seed}; {self.confidence:.0%} "
                "bootstrap intervals, the band without the values' covariance).")

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def to_frame(self) -> Any:
        """Every value tried: the tuned quantity with its interval, draws and fights (a
        ``pandas.DataFrame`` of text cells, for reports)."""
        import pandas as pd

        return pd.DataFrame([{self.knob.path: self.knob.fmt(p.value), self.what: p.text(),
                              "draws": f"{p.draw:.1%}",
                              "fights": "exact" if p.n == 0 else f"{p.n:,}"}
                             for p in self.points])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (the ``balance tune --json`` object)."""
        knob = self.knob
        return {
            "ruleset": self.ruleset, "knob": knob.path, "side": knob.side, "field": knob.name,
            "integer": knob.integer, "bounds": [knob.low, knob.high],
            "metric": self.metric, "target": self.target, "draw_worth": self.draw_worth,
            "method": self.method, "status": self.status, "sentence": self.sentence(),
            "current": self.current, "crossing": self.crossing,
            "change": (None if self.crossing is None or self.current is None
                       or knob.side is None else self.crossing - self.current),
            "interval": list(self.interval) if self.interval is not None else None,
            "bracket": [p.to_dict() for p in self.bracket] if self.bracket else None,
            "best": self.best.to_dict() if self.best else None,
            "now": self.now.to_dict() if self.now else None,
            "points": [p.to_dict() for p in self.points],
            "precision": self.precision, "reached": self.reached, "clipped": self.clipped,
            "fights": self.fights, "solves": self.solves, "seed": self.seed,
            "entropy": self.entropy, "chunk_size": self.chunk_size,
            "confidence": self.confidence, "elapsed_s": self.elapsed_s,
            "assumptions": list(self.assumptions), "policies": list(self.policies),
            "notes": list(self.notes), "whole": self._whole_dict(), "play": self.play,
        }

    def _whole_dict(self) -> dict[str, Any] | None:
        whole = self.whole()
        if whole is None:
            return None
        return {"nearest": whole["nearest"].value, "rate": whole["nearest"].rate,
                "other": whole["other"].value, "other_rate": whole["other"].rate,
                "gap": whole["gap"], "within_points": whole["within"],
                "cliff": whole["cliff"], "step": whole["step"],
                "monotone": whole["monotone"]}


@dataclass(frozen=True)
class Handicaps:
    """The answer of :func:`handicaps`: per-entrant values of one combatant field that
    bring every entrant's expected score against the field within ``margin`` of 50%."""

    ruleset: str
    knob: Knob
    entrants: tuple[str, ...]
    base: tuple[float, ...]
    values: tuple[float, ...]
    initial: tuple[Point, ...]
    scores: tuple[Point, ...]
    margin: float
    anchor: str
    method: str
    iterations: int
    converged: bool
    confirmed: bool
    stop: str
    history: tuple[Mapping[str, Any], ...]
    n: int
    fights: int
    solves: int
    seed: int | None
    entropy: int | None
    confidence: float
    elapsed_s: float
    assumptions: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()

    @property
    def handicaps(self) -> tuple[float, ...]:
        return tuple(v - b for v, b in zip(self.values, self.base, strict=True))

    def worst(self) -> float:
        """The largest distance of an entrant's expected score from 50%."""
        return max(abs(p.rate - 0.5) for p in self.scores)

    def sentence(self) -> str:
        knob = self.knob
        moves = ", ".join(f"{name} {_signed(knob, h)}" for name, h in
                          zip(self.entrants, self.handicaps, strict=True) if name != self.anchor)
        if self.converged:
            head = (f"Handicaps on {knob.name} bring every entrant's expected score within "
                    f"{self.margin:.1%} of 50% (largest gap {self.worst():.1%})")
        else:
            head = (f"No handicaps on {knob.name} found bring every entrant within "
                    f"{self.margin:.1%} of 50% ({self.stop}); the closest found leaves a gap "
                    f"of {self.worst():.1%}")
        return f"{head}: {moves}, against {self.anchor} unchanged."

    def lines(self) -> list[str]:
        knob = self.knob
        out = [f"{self.ruleset}: {self.sentence()}"]
        width = max(len(e) for e in self.entrants)
        out.append(f"  {'entrant':<{width}}  {knob.name:>8}  {'change':>7}  expected score "
                   "(both seats, against the field): before -> after")
        for name, b, v, p0, p1 in zip(self.entrants, self.base, self.values, self.initial,
                                      self.scores, strict=True):
            out.append(f"  {name:<{width}}  {knob.fmt(v):>8}  {_signed(knob, v - b):>7}  "
                       f"{p0.text()} -> {p1.text()}" + ("   (anchor)" if name == self.anchor
                                                         else ""))
        if not self.confirmed and self.converged and self.method == "simulate":
            out.append(f"  note: some intervals reach beyond {self.margin:.1%} of 50%: run more "
                       "fights (-n) to confirm")
        out.extend(f"  note: {note}" for note in self.notes)
        out.append("  " + _line(self.how()))
        out.extend(rests_on(self.assumptions, self.policies))
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def how(self) -> str:
        """How the handicaps were found, in a line."""
        how = (f"exact ({self.solves} solves)" if self.method == "exact" else
               f"simulate ({self.n:,} fights a pair and value, {self.fights:,} fights; seed "
               f"{self.seed if self.seed is not None else self.entropy}; "
               f"{self.confidence:.0%} intervals)")
        passes = (f"{self.iterations} pass" + ("" if self.iterations == 1 else "es")
                  + " over the entrants")
        if any(h["pass"] == "even with the anchor" for h in self.history):
            passes = ("started with each entrant even against the anchor, then "
                      + (passes if self.iterations else "no pass needed"))
        return f"Method: {how}; {passes}; stopped: {self.stop}."

    def to_frame(self) -> Any:
        """One row per entrant: value, change, expected score before and after (text cells,
        for reports)."""
        import pandas as pd

        return pd.DataFrame([{"entrant": name + (" (anchor)" if name == self.anchor else ""),
                              self.knob.name: self.knob.fmt(v),
                              "change": _signed(self.knob, v - b), "before": p0.text(),
                              "after": p1.text()}
                             for name, b, v, p0, p1 in zip(self.entrants, self.base,
                                                           self.values, self.initial,
                                                           self.scores, strict=True)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset, "field": self.knob.name, "integer": self.knob.integer,
            "bounds": [self.knob.low, self.knob.high], "margin": self.margin,
            "method": self.method, "sentence": self.sentence(),
            "entrants": [{"name": name, "base": b, "value": v, "handicap": v - b,
                          "initial": p0.to_dict(), "score": p1.to_dict(),
                          "anchor": name == self.anchor}
                         for name, b, v, p0, p1 in zip(self.entrants, self.base, self.values,
                                                       self.initial, self.scores, strict=True)],
            "anchor": self.anchor, "iterations": self.iterations, "converged": self.converged,
            "confirmed": self.confirmed, "stop": self.stop, "history": list(self.history),
            "n": self.n, "fights": self.fights, "solves": self.solves, "seed": self.seed,
            "entropy": self.entropy, "confidence": self.confidence,
            "elapsed_s": self.elapsed_s, "assumptions": list(self.assumptions),
            "policies": list(self.policies), "notes": list(self.notes),
        }


def _line(sentence: str) -> str:
    """A sentence as a detail line of printed output: lower-case lead, no full stop."""
    return sentence[:1].lower() + sentence[1:].rstrip(".")


def _signed(knob: Knob, value: float) -> str:
    text = knob.fmt(abs(value))
    if float(text) == 0:
        return "0" if knob.integer else text
    return ("+" if value > 0 else "-") + text


# --- the public entries ----------------------------------------------------------------------------


def _check_common(metric: str, target: float, method: str | None, confidence: float) -> None:
    if metric not in METRICS:
        raise SpecError(f"metric must be one of {', '.join(METRICS)}, got {metric!r}")
    if isinstance(target, bool) or not isinstance(target, int | float) \
            or not 0 < target < 1:
        raise SpecError(f"target must be a rate strictly between 0 and 1, got {target!r}")
    if method not in (None, *METHODS):
        raise SpecError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if not 0 < confidence < 1:
        raise SpecError(f"confidence must be strictly between 0 and 1, got {confidence!r}")


def _draw_worth(rules: Any, draw_worth: float | None) -> float:
    """The score of a draw: as given, else the ruleset's own ``draw_worth`` rule, else 0.5."""
    if draw_worth is None:
        return float(getattr(rules, "draw_worth", 0.5))
    if isinstance(draw_worth, bool) or not isinstance(draw_worth, int | float) \
            or not 0 <= draw_worth <= 1:
        raise SpecError(f"draw_worth must be a number in 0..1, got {draw_worth!r}")
    return float(draw_worth)


def _precision(knob: Knob, precision: float | None) -> float:
    if precision is None:
        return 0.25 if knob.integer else (knob.high - knob.low) / 100
    if isinstance(precision, bool) or not isinstance(precision, int | float) \
            or not 0 < precision < knob.high - knob.low:
        raise SpecError(f"precision must be a half-width in {knob.path}'s units, above 0 and "
                        f"below its range {knob.high - knob.low:g}, got {precision!r}")
    return float(precision)


def _solvable(rs: Ruleset, rules: Any, side_a: Side, side_b: Side) -> bool:
    return rs.exact_check(rules, side_a, side_b) is None


def _ticker(progress: Progress | None) -> Callable[[], None]:
    calls = [0]

    def tick() -> None:
        calls[0] += 1
        if progress is not None:
            progress(calls[0])

    return tick


def tune(ruleset: str | Ruleset, a: Any, b: Any, /, *, knob: str, target: float = 0.5,
         metric: str = "score", rules: Any = None, method: str | None = None,
         precision: float | None = None, seed: int | None = None,
         bounds: Sequence[float] | None = None, draw_worth: float | None = None,
         max_fights: int | None = None, chunk_size: int = CHUNK_SIZE,
         confidence: float = 0.95, progress: Progress | None = None, play: str = "default",
         allow_import: bool = False, **rule_overrides: Any) -> Tuning:
    """The value of ``knob`` that brings ``metric`` to ``target`` (0.5: an even matchup).

    Parameters
    ----------
    ruleset, a, b, rules, allow_import, **rule_overrides
        The matchup, as :func:`balance.duel` takes it.
    knob
        ``"a.<i>.<field>"``, ``"b.<i>.<field>"``, ``"a.*.<field>"`` or ``"rules.<name>"``
        (or a bare rule name): an integer or real field.
    target
        The rate to reach, strictly between 0 and 1.
    metric
        ``"score"`` (A's expected score: A wins + ``draw_worth`` x draws), ``"a_win"``,
        ``"b_win"`` or ``"draw"``.
    method
        ``"exact"``, ``"simulate"``, or ``None``: exact where the ruleset's solver answers
        the matchup, falling back to simulation if it cannot answer a value tried.
    precision
        Simulation: stop once the crossing's 95% interval half-width is at most this, in
        the knob's units (default 0.25 for an integer knob, 1% of the range for a real one;
        it is also a real knob's lattice step).
    seed
        Root seed of the common random numbers (``None``: fresh entropy, recorded).
    bounds
        ``(low, high)`` inside the field's declared range (default: that range).
    draw_worth
        What a draw scores (default 0.5, or the rules' own ``draw_worth``).
    max_fights
        Cap on the fights simulated at one knob value (default 4,194,304; under Monte
        Carlo best play, fights a profile pair, default 65,536).
    chunk_size
        Fights per kernel call, and the first sample size of every value.
    progress
        Called with the number of evaluations so far after each one (a progress bar).
    play
        ``"default"`` (the policies as given) or ``"best"``: at every knob value each side's
        policies are chosen as the zero-sum game over them (:func:`balance.best_play`),
        solved exactly where a best-play solver answers, else by Monte Carlo best play.

    Returns
    -------
    Tuning
        ``.sentence()`` in words; ``.crossing``, ``.interval``, ``.bracket``, ``.points``;
        ``.to_dict()`` for JSON.  The method is in the module docstring.
    """
    start = time.perf_counter()
    _check_common(metric, target, method, confidence)
    check_play(play)
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, allow_import=allow_import,
                                            **rule_overrides)
    k = knob_for(rs, rules_obj, side_a, side_b, knob, bounds)
    worth = _draw_worth(rules_obj, draw_worth)
    step = _precision(k, precision)
    if max_fights is None:
        max_fights = BEST_MAX_FIGHTS if play == "best" else MAX_FIGHTS
    for name, count in (("max_fights", max_fights), ("chunk_size", chunk_size)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise SpecError(f"{name} must be a whole number >= 1, got {count!r}")
    if max_fights < chunk_size:
        raise SpecError(f"max_fights ({max_fights:,}) must be at least chunk_size "
                        f"({chunk_size:,})")
    entropy = root_entropy(seed)
    current = _current(k, rules_obj, side_a, side_b)

    def matchups(x: Any) -> list[_Matchup]:
        return [_Matchup(*_apply(rs, k, rules_obj, side_a, side_b, x))]

    def curve(exact: bool) -> _Curve:
        options: dict[str, Any] = {"exact": exact, "entropy": entropy, "chunk_size": chunk_size,
                   "confidence": confidence, "shared": {}, "tick": _ticker(progress)}
        table = _metric_table(metric, worth)
        if play == "best":
            return _BestCurve(rs, matchups, table, metric=metric, draw_worth=worth, **options)
        return _Curve(rs, matchups, table, **options)

    notes: list[str] = []
    settings = (k, rules_obj, side_a, side_b, metric, target, worth, current, step, max_fights,
                seed)
    if method == "exact" or (method is None and _solvable(rs, rules_obj, side_a, side_b)):
        try:
            return _tuned(rs, curve(True), *settings, None, None, confidence, start, notes)
        except IntractableError as exc:
            if method == "exact":
                raise IntractableError(f"{exc} (method simulate tunes it by Monte Carlo)"
                                       ) from None
            notes.append(f"the exact solver cannot answer every value tried ({exc}); "
                         "simulated instead")
    return _tuned(rs, curve(False), *settings, entropy, chunk_size, confidence, start, notes)


@dataclass
class _Answer:
    """What a search found, before it is put in words."""

    status: str = "crossing"
    crossing: float | None = None
    interval: tuple[float, float] | None = None
    bracket: tuple[Point, Point] | None = None
    best: Point | None = None
    reached: bool = True
    clipped: bool = False
    wide: bool = False


def _point(curve: _Curve, x: Any) -> Point:
    """The tuned quantity at ``x`` with its interval, at the most fights run there."""
    n = 0 if curve.exact else curve.seen[x]
    low, high = curve.interval(x, n)
    return Point(x, curve.estimate(x, n), low, high, n, float(curve.outcomes(x, n)[0]))


def _tuned(rs: Ruleset, curve: _Curve, k: Knob, rules: Any, side_a: Side, side_b: Side,
           metric: str, target: float, worth: float, current: float | None, step: float,
           max_fights: int, seed: int | None, entropy: int | None, chunk_size: int | None,
           confidence: float, start: float, notes: list[str]) -> Tuning:
    """Run the search on ``curve`` and assemble the :class:`Tuning`."""
    now = None
    if current is not None and k.low <= current <= k.high:
        curve.estimate(current, curve.chunk_size)
        now = _point(curve, current)
    if curve.exact and not k.integer:
        answer = _real_exact(curve, k, metric, target, notes)
    else:
        answer = _on_lattice(curve, k, target, step, max_fights, notes)
    _notes(curve, k, metric, target, answer, step, max_fights, notes)
    points = tuple(sorted((_point(curve, x) for x in curve.seen), key=lambda p: p.value))
    counters = curve.counters
    return Tuning(rs.name, k, metric, target, worth, "exact" if curve.exact else "simulate",
                  answer.status, current, now, answer.crossing, answer.interval,
                  answer.bracket, answer.best, points, None if curve.exact else step,
                  answer.reached, answer.clipped, counters["fights"], counters["solves"],
                  seed, entropy, chunk_size, confidence, time.perf_counter() - start,
                  rs.assumptions(rules, side_a, side_b), tuple(notes),
                  _who(k, side_a, side_b), rs.policies(rules, side_a, side_b),
                  _monotone(curve), "best" if isinstance(curve, _BestCurve) else "default")


def _monotone(curve: _Curve) -> bool:
    """Whether the rate moves one way over the values tried, compared on the fights every
    value shares (the first chunk of the common streams; exact: the solved rates)."""
    if isinstance(curve, _BestCurve) and not curve.exact:  # each value a game of its own
        rates = [curve.estimate(x, curve.seen[x]) for x in sorted(curve.seen)]
    else:
        rates = [curve.estimate(x, curve.chunk_size) for x in sorted(curve.seen)]
    steps = np.diff(rates)
    return bool((steps >= 0).all() or (steps <= 0).all())


def _real_exact(curve: _Curve, k: Knob, metric: str, target: float,
                notes: list[str]) -> _Answer:
    """A real knob on exact answers: Brent's root (a jump across the target noted)."""
    status, crossing, best, jump = _brent(curve, k, target)
    if jump is not None:
        notes.append(f"{curve_what(metric)} jumps across the target at {k.path} = "
                     f"{k.fmt(crossing)}: from {jump[0]:.1%} to {jump[1]:.1%}; no value "
                     "hits it exactly")
    return _Answer(status, crossing, best=best)


def _on_lattice(curve: _Curve, k: Knob, target: float, step: float, max_fights: int,
                notes: list[str]) -> _Answer:
    """The lattice search (an integer knob, or any knob simulated): the crossing, its
    interval and the two values that bracket it."""
    lattice = _Lattice(k, step)
    found = _search(curve, lattice, target, precision=step, max_fights=max_fights)
    answer = _Answer(reached=found.reached, clipped=found.clipped, wide=found.wide)
    if found.status == "unreachable":
        answer.status, answer.best = "unreachable", _point(curve, lattice.value(found.best or 0))
        ends = [curve.estimate(lattice.value(e), curve.seen[lattice.value(e)])
                for e in (0, lattice.K)]
        if ends[0] == ends[1]:
            notes.append(f"{k.path} = {k.fmt(k.low)} and {k.fmt(k.high)} give the same "
                         "rate: the knob may make no difference here")
        return answer
    assert found.position is not None
    answer.crossing = lattice.at(found.position)
    if not curve.exact:
        answer.interval = (lattice.at(found.set_low or 0.0), lattice.at(found.set_high or 0.0))
    if curve.exact and float(found.position).is_integer():
        answer.status = "hit"
        pt = _point(curve, lattice.value(int(found.position)))
        answer.bracket = (pt, pt)
        return answer
    lo = min(math.floor(found.position), lattice.K - 1)
    values = (lattice.value(lo), lattice.value(lo + 1))
    if k.integer and not curve.exact:
        _sharpen(curve, values, max_fights)
    answer.bracket = (_point(curve, values[0]), _point(curve, values[1]))
    return answer


def _sharpen(curve: _Curve, values: Sequence[Any], max_fights: int) -> None:
    """Simulate the whole values that bracket the target (on the same streams) until each
    rate's interval half-width is at most :data:`WHOLE_HALF_WIDTH`, or the cap: the answer
    in whole values rests on their rates."""
    for x in values:
        n = curve.seen[x]
        while n < max_fights:
            low, high = curve.interval(x, n)
            if (high - low) / 2 <= WHOLE_HALF_WIDTH:
                break
            n = min(2 * n, max_fights)
            curve.estimate(x, n)


def _notes(curve: _Curve, k: Knob, metric: str, target: float, answer: _Answer, step: float,
           max_fights: int, notes: list[str]) -> None:
    """The notes an answer needs: stalemates, a plateau, precision, the range's end."""
    bracket = answer.bracket
    if bracket is not None and metric == "score" and max(p.draw for p in bracket) >= 0.5:
        notes.append(f"most fights there are draws ({max(p.draw for p in bracket):.0%})"
                     + (": it is even by stalemate" if target == 0.5 else ""))
    if answer.wide and answer.status != "unreachable":
        notes.append(f"the rate stays within noise of the target over more than {MAX_WINDOW} "
                     f"values of {k.path}: the interval is at least as wide as shown")
    if not curve.exact and not answer.reached and answer.status != "unreachable":
        notes.append(f"precision {step:g} not reached within {max_fights:,} fights a value")
    if answer.clipped:
        notes.append(f"the interval reaches the end of the range of {k.path}; the crossing may "
                     "lie beyond it")


def curve_what(metric: str) -> str:
    return _WHAT[metric][0].upper() + _WHAT[metric][1:]


def _brent(curve: _Curve, k: Knob, target: float
           ) -> tuple[str, float | None, Point | None, tuple[float, float] | None]:
    """Root-find a real knob on exact answers: ``(status, crossing, best, jump)``."""
    from scipy.optimize import brentq

    def f(x: float) -> float:
        return curve.estimate(float(x), 0) - target

    f_lo, f_hi = f(k.low), f(k.high)
    if _sign(f_lo) * _sign(f_hi) > 0:
        end = k.high if abs(f_hi) <= abs(f_lo) else k.low
        value = curve.estimate(end, 0)
        return "unreachable", None, Point(end, value, value, value, 0,
                                          float(curve.outcomes(end, 0)[0])), None
    if f_lo == 0 or f_hi == 0:
        return "crossing", (k.low if f_lo == 0 else k.high), None, None
    span = k.high - k.low
    root = float(brentq(f, k.low, k.high, xtol=1e-9 * span, rtol=1e-12))
    delta = 1e-6 * span
    left, right = f(max(k.low, root - delta)), f(min(k.high, root + delta))
    jump = None
    if abs(left - right) > 1e-4:  # the rate is not continuous there
        jump = (left + target, right + target)
    return "crossing", root, None, jump


def handicaps(ruleset: str | Ruleset, entrants: Sequence[str] | Mapping[str, Any], /, *,
              knob: str, margin: float = 0.02, rules: Any = None, method: str | None = None,
              n: int | None = None, seed: int | None = 0,
              bounds: Sequence[float] | None = None, draw_worth: float | None = None,
              anchor: str | None = None, precision: float | None = None,
              max_iterations: int = 20, confidence: float = 0.95,
              progress: Progress | None = None, allow_import: bool = False,
              **rule_overrides: Any) -> Handicaps:
    """Per-entrant values of one combatant field that bring every entrant's expected score
    against the rest of the field (both seats) within ``margin`` of 50%.

    Parameters
    ----------
    ruleset, rules, allow_import, **rule_overrides
        As :func:`balance.duel`.
    entrants
        Preset names, or name -> combatant (anything ``balance.duel`` takes for one side of
        one).
    knob
        A combatant field (``"combats"``, ``"bonus"``...), integer or real.
    margin
        How close to 50% every score must come.
    n
        Simulation: fights per ordered pair at each value tried (default 20 000); every
        value of one pair is fought on the same streams.
    anchor
        The entrant whose value stays (default: the highest-scoring at the start).
    precision
        A real knob's lattice step (default 1% of its range).
    max_iterations
        Most passes over the entrants.

    Returns
    -------
    Handicaps
        The values, the change for each entrant, the scores before and after with
        intervals, and how the iteration stopped.
    """
    start = time.perf_counter()
    _check_common("score", 0.5, method, confidence)
    rs = get(ruleset, allow_import=allow_import)
    if not isinstance(entrants, Mapping):
        entrants = {str(name): name for name in entrants}
    names = list(entrants)
    _check_round_robin(rs, names, knob, margin, anchor, n, max_iterations)
    rs, rules_obj, _, _ = matchup(rs, entrants[names[0]], entrants[names[1]], rules,
                                  **rule_overrides)
    k = parse_knob(rs, f"a.0.{knob}", bounds=bounds, allowed=rs.field_range(rules_obj, knob))
    k = dataclasses.replace(k, path=knob)
    robin = _RoundRobin(
        rs=rs, rules=rules_obj, knob=k, names=names, base_c=_entrant_combatants(rs, entrants),
        table=_metric_table("score", _draw_worth(rules_obj, draw_worth)),
        lattice=_Lattice(k, _precision(k, precision)), margin=float(margin), anchor=anchor,
        n=RR_FIGHTS if n is None else n, seed=seed, entropy=root_entropy(seed),
        confidence=confidence, max_iterations=max_iterations, progress=progress, start=start)
    sides = [((robin.base_c[x],), (robin.base_c[y],)) for x in names for y in names if x != y]
    exact = method == "exact" or (method is None and all(
        _solvable(rs, rules_obj, sa, sb) for sa, sb in sides))
    if not exact:
        return robin.run(False)
    try:
        return robin.run(True)
    except IntractableError as exc:
        if method == "exact":
            raise IntractableError(f"{exc} (method simulate finds handicaps by Monte "
                                   "Carlo)") from None
        result = robin.run(False)
        return dataclasses.replace(result, notes=(*result.notes, (
            f"the exact solver cannot answer every pairing tried ({exc}); simulated "
            "instead")))


def _check_round_robin(rs: Ruleset, names: Sequence[str], knob: str, margin: float,
                       anchor: str | None, n: int | None, max_iterations: int) -> None:
    """Refuse bad options of :func:`handicaps` in one line each."""
    if len(names) < 2 or len(set(names)) != len(names):
        raise SpecError("a round robin needs at least two entrants, each named once")
    for name in names:
        check_text(str(name), "an entrant's name")
    if isinstance(margin, bool) or not isinstance(margin, int | float) or not 0 < margin < 0.5:
        raise SpecError(f"margin must be a rate strictly between 0 and 0.5, got {margin!r}")
    if isinstance(knob, str) and "." in knob:
        raise SpecError(f"knob {knob!r}: a round robin tunes one combatant field of every "
                        "entrant; give its bare name (e.g. combats)")
    fields = _numeric_fields(rs.Combatant)
    if knob not in fields:
        raise SpecError(f"knob {knob!r} is not an integer or real {rs.name} combatant field; "
                        "tunable fields: " + ", ".join(fields))
    if anchor is not None and anchor not in names:
        raise SpecError(f"anchor {anchor!r} is not an entrant; entrants: " + ", ".join(names))
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise SpecError(f"n must be a whole number >= 1, got {n!r}")
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int) \
            or max_iterations < 1:
        raise SpecError(f"max_iterations must be a whole number >= 1, got {max_iterations!r}")


def _entrant_combatants(rs: Ruleset, entrants: Mapping[str, Any]) -> dict[str, Any]:
    """Each entrant's one combatant (a round robin of handicaps takes one per entrant)."""
    out = {}
    for name, spec in entrants.items():
        side = (spec,) if isinstance(spec, rs.Combatant) else rs.side(spec)
        if len(side) != 1:
            raise SpecError(f"entrant {name!r}: a round robin of handicaps takes one combatant "
                            "per entrant")
        out[name] = side[0]
    return out


@dataclass
class _RoundRobin:
    """The search of :func:`handicaps`, step by step: the field's scores, a start even with
    the anchor, passes over the entrants, and the answer."""

    rs: Ruleset
    rules: Any
    knob: Knob
    names: list[str]
    base_c: dict[str, Any]
    table: np.ndarray
    lattice: _Lattice
    margin: float
    anchor: str | None
    n: int
    seed: int | None
    entropy: int
    confidence: float
    max_iterations: int
    progress: Progress | None
    start: float
    exact: bool = False
    values: dict[str, Any] = dataclasses.field(default_factory=dict)
    shared: dict[str, Any] = dataclasses.field(default_factory=dict)
    tick: Callable[[], None] = lambda: None

    def base(self) -> dict[str, Any]:
        """Each entrant's value of the field as given, checked inside the range tuned."""
        k, out = self.knob, {}
        for name in self.names:
            value = getattr(self.base_c[name], k.name)
            if value is None or not k.low <= value <= k.high:
                raise SpecError(f"entrant {name!r} has {k.name} = {value!r}, outside the range "
                                f"{k.fmt(k.low)}..{k.fmt(k.high)} tuned; set it, or widen "
                                "bounds")
            out[name] = value
        return out

    def curve(self, name: str, against: Sequence[str] | None = None) -> _Curve:
        """``name``'s expected score against the field (or ``against``), both seats, as a
        function of its value, the others at their current values."""
        rs, field_name = self.rs, self.knob.name

        def matchups(x: Any) -> list[_Matchup]:
            me = rs.combatant(self.base_c[name], **{field_name: x})
            out = []
            for other in self.names if against is None else against:
                if other == name:
                    continue
                them = rs.combatant(self.base_c[other], **{field_name: self.values[other]})
                out.append(_Matchup(self.rules, (me,), (them,), False,
                                    ("round-robin", name, other)))
                out.append(_Matchup(self.rules, (them,), (me,), True,
                                    ("round-robin", other, name)))
            return out

        return _Curve(rs, matchups, self.table, exact=self.exact, entropy=self.entropy,
                      chunk_size=self.n, confidence=self.confidence, shared=self.shared,
                      tick=self.tick)

    def scores(self) -> tuple[Point, ...]:
        """Every entrant's expected score against the field at the current values."""
        out = []
        for name in self.names:
            c, x = self.curve(name), self.values[name]
            low, high = c.interval(x, self.n)
            out.append(Point(x, c.estimate(x, self.n), low, high, 0 if self.exact else self.n,
                             float(c.outcomes(x, self.n)[0])))
        return tuple(out)

    def nearest(self, name: str, against: Sequence[str] | None = None) -> Any:
        index, _ = _nearest(self.curve(name, against), self.lattice, 0.5, self.n)
        return self.lattice.value(index)

    def snapshot(self, step: Any, scores: Sequence[Point]) -> dict[str, Any]:
        return {"pass": step, "values": dict(self.values),
                "worst": max(abs(p.rate - 0.5) for p in scores)}

    def passes(self, chosen: str, current: tuple[Point, ...], history: list[dict[str, Any]]
               ) -> tuple[tuple[Point, ...], str, int]:
        """Gauss-Seidel passes over the entrants (the furthest from 50% first), each moved
        to its value nearest 50% against the current field, until every score is within the
        margin, the cap, or a set of values recurs: ``(scores, stop, passes)``."""
        visited = {tuple(self.values.values())}
        stop, count = "within margin", 0
        while max(abs(p.rate - 0.5) for p in current) > self.margin:
            if count == self.max_iterations:
                return current, "iteration cap", count
            count += 1
            order = sorted((i for i, name in enumerate(self.names) if name != chosen),
                           key=lambda i: -abs(current[i].rate - 0.5))
            for i in order:
                self.values[self.names[i]] = self.nearest(self.names[i])
            current = self.scores()
            history.append(self.snapshot(count, current))
            vector = tuple(self.values.values())
            if vector in visited and history[-1]["worst"] > self.margin:
                stop = ("stable: no entrant can move closer" if history[-2]["values"] ==
                        self.values else "cycle: the handicaps repeat")
                break
            visited.add(vector)
        return current, stop, count

    def why_not(self, current: Sequence[Point]) -> str:
        """Why no handicaps reach the margin: the worst entrant's neighbouring values."""
        k, lattice = self.knob, self.lattice
        i = int(np.argmax([abs(p.rate - 0.5) for p in current]))
        name, c = self.names[i], self.curve(self.names[i])
        index = round((self.values[name] - k.low) / lattice.step)
        near = [lattice.value(j) for j in (index - 1, index, index + 1) if 0 <= j <= lattice.K]
        return (f"{name}'s nearest values miss the margin: " + ", ".join(
            f"{k.name} = {k.fmt(x)} gives {c.estimate(x, self.n):.1%}" for x in near)
            + (" (whole steps: no value in between; widen the margin)" if k.integer else ""))

    def run(self, exact: bool) -> Handicaps:
        """The search by one method, from the values as given."""
        self.exact, self.shared, self.tick = exact, {}, _ticker(self.progress)
        base = self.base()
        self.values = dict(base)
        initial = current = self.scores()
        chosen = self.anchor or self.names[int(np.argmax([p.rate for p in initial]))]
        history = [self.snapshot(0, initial)]
        if history[0]["worst"] > self.margin:
            # Start from each entrant even with the anchor alone: where strength is one
            # dimension that is the answer, and elsewhere a start the passes refine.
            for name in self.names:
                if name != chosen:
                    self.values[name] = self.nearest(name, [chosen])
            current = self.scores()
            history.append(self.snapshot("even with the anchor", current))
        current, stop, passes = self.passes(chosen, current, history)
        if stop != "within margin" and len(history) > 1:
            best = min(history, key=lambda h: h["worst"])
            if best["values"] != self.values:
                self.values.update(best["values"])
                current = self.scores()
        return self.answer(base, initial, current, chosen, stop, passes, history)

    def answer(self, base: Mapping[str, Any], initial: tuple[Point, ...],
               current: tuple[Point, ...], chosen: str, stop: str, passes: int,
               history: list[dict[str, Any]]) -> Handicaps:
        converged = max(abs(p.rate - 0.5) for p in current) <= self.margin
        confirmed = converged and all(0.5 - self.margin <= p.low and p.high <= 0.5 + self.margin
                                      for p in current)
        notes = [] if converged else [self.why_not(current)]
        counters, names, exact = self.shared["counters"], self.names, self.exact
        first = ((self.base_c[names[0]],), (self.base_c[names[1]],))
        return Handicaps(self.rs.name, self.knob, tuple(names), tuple(base[x] for x in names),
                         tuple(self.values[x] for x in names), initial, current, self.margin,
                         chosen, "exact" if exact else "simulate", passes, converged,
                         confirmed, stop, tuple(history), 0 if exact else self.n,
                         counters["fights"], counters["solves"], None if exact else self.seed,
                         None if exact else self.entropy, self.confidence,
                         time.perf_counter() - self.start,
                         self.rs.assumptions(self.rules, *first), tuple(notes),
                         self.rs.policies(self.rules, *first))
