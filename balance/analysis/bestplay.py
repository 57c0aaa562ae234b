"""Best play: each side's policies chosen to do its best against the other's.

The game
--------
Two players, side A and side B.  A side's strategy is a **profile**: one value for each
combatant-scope policy of the ruleset (:meth:`~balance.rulesets.base.Ruleset.policy_space`:
attack type, defence, diversion, bids, targets ...), played by *every member of the side*
-- the game is between the sides, not between their fighters, so a group plays one profile
for all its members.  Rule-scope policies (one setting for everyone) are not searched: they
are disclosed as they are.  A's payoff is its expected score ``P(A wins) + draw_worth x
P(draw)``; B minimises it (with ``draw_worth = 1/2`` that is the same as B maximising its
own expected score).  The value of this zero-sum game is what each side can make sure of,
whatever the other does.

Three ways to answer, strongest first:

* ``exact`` over the states: the ruleset's own solver,
  :meth:`~balance.rulesets.base.Ruleset.exact_best_play`, where one reaches -- the
  decisions are taken state by state (an optimal, state-dependent policy), a richer game
  than the profiles.
* ``exact`` over the profiles: where ``Ruleset.exact`` answers every profile pair, the
  matrix game of exact payoffs, grown by the double oracle with exact best responses and
  solved by linear programming: the equilibrium of the declared profiles, certified.
* ``simulate`` (Monte Carlo) elsewhere: the payoff matrix over profile pairs estimated
  with **common random numbers** (every profile pair of a matchup fights on the same
  streams: the same entropy and spawn key, chunk by chunk), solved by linear programming.
  The profile sets grow by **double oracle**: both start from the policies as given; each
  round adds each side's best response to the other's current equilibrium mix, found from
  the whole space -- every distinct profile when there are few (``SCREEN_ALL``), else by
  coordinate search (one policy changed at a time, the best move taken, until no move
  helps) -- judged cheaply on screening fights (their own common streams, per-fight
  paired differences) and added only when it gains more than ``tolerance`` beyond twice
  its standard error.  The value's interval is a percentile bootstrap over the matrix's
  chunks (independent tallies; each resample's matrix game solved again), widened by any
  best-response gain left unexploited.

Profiles that behave alike are one profile: two profiles whose disclosure
(:meth:`~balance.rulesets.base.Ruleset.policies`, which leaves out the policies that
cannot matter via ``idle_policies``) is the same are not told apart, and under common
random numbers two profiles that play identically score identically, so a best response
never moves to a mere synonym.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from .. import stats
from ..errors import IntractableError, SpecError
from ..fields import build, plain
from ..labels import percent
from ..matrix_game import solve_batch
from ..outcomes import Probabilities, rests_on
from ..random import root_entropy, stream
from ..resolving import matchup
from ..rulesets.base import Policy, Ruleset, Side

__all__ = [
    "DEFAULT_PRECISION",
    "METHODS",
    "SPACES",
    "BestPlay",
    "DoubleOracle",
    "Profile",
    "ProfileSpace",
    "VerdictChanges",
    "best_play",
    "compare_verdicts",
    "double_oracle",
    "game_values",
    "run_steps",
    "solve",
    "solve_steps",
    "together",
    "verdict_changes",
    "zero_sum",
]

METHODS: tuple[str, ...] = ("exact", "simulate")
SPACES: tuple[str, ...] = ("states", "profiles")
DEFAULT_PRECISION = 0.01
"""Target half-width of the value's interval: one point of expected score."""
CHUNK_SIZE = 1_000
"""Fights per chunk of a payoff-matrix entry (the unit the bootstrap resamples)."""
MIN_CHUNKS = 8
"""Chunks every matrix entry gets before its interval is trusted."""
MAX_PAIR_FIGHTS = 400_000
"""Most fights a profile pair gets while chasing a precision (the cap without ``n``)."""
SCREEN_FIGHTS = 1_000
"""Fights on the screening streams a candidate best response is judged on."""
SCREEN_ALL = 32
"""A side with at most this many distinct profiles has every one screened each round."""
LIST_TO_SCREEN = 128
"""Most profiles listed to count the distinct ones (listing costs a disclosure each)."""
ENUMERATE = 4_096
"""Largest product of searched values a side's profiles are listed from."""
EXACT_PROFILES = 512
"""Most distinct profiles per side the exact matrix game enumerates."""
MAX_SUPPORT = 12
"""Most profiles per side in the Monte Carlo restricted game."""
MAX_SWEEPS = 6
"""Coordinate-search moves per best response."""
RESAMPLES = 200
"""Bootstrap replicates of the value's interval."""
Z_ADD = 2.0
"""A best response joins the game only if its gain on the confirming fights exceeds this
many standard errors (and the tolerance)."""


# --- the result ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BestPlay:
    """The answer of :func:`best_play`: the game's value and how each side plays it.

    Attributes
    ----------
    value, value_ci
        A's expected score under best play, ``P(A wins) + draw_worth x P(draw)``, and its
        interval (exact methods: the value twice).  A Monte Carlo interval is a percentile
        bootstrap over chunks, widened by best-response gains left unexploited (``gap``).
    a_win, b_win, draw (and ``_ci``)
        The outcome rates when both sides play their equilibrium policies.
    policy_a, policy_b
        Each side's equilibrium: ``(description, weight)`` pairs, heaviest first; a
        description lists the policy values in the game's words (``"attack_policy=thrust,
        defence_policy=parry"``); one pair of weight 1 is a pure policy.
    given_a, given_b
        Each side's policies as given, in the same words.
    default_value, default_ci
        The value with both sides' policies as given (same streams, same fights): what
        best play changes.
    profiles_a, profiles_b
        Distinct profiles evaluated for each side (screened or in the matrix).
    space_a, space_b
        How many profiles each side could choose from (the product of the searched values;
        distinct profiles where they were listed).
    n
        Fights behind each entry of the final payoff matrix (0: exact).
    fights
        Fights simulated in all, screening included (0: exact).
    method
        ``"exact"`` (the ruleset's state-by-state solver), ``"exact-profiles"`` (matrix
        game of exact payoffs) or ``"simulate"``.
    assumptions, policies
        The DEFAULT / AMBIG readings and the policies the answer rests on: rule-scope
        policies as they are, and each side's equilibrium.
    """

    ruleset: str
    value: float
    value_ci: tuple[float, float]
    a_win: float
    b_win: float
    draw: float
    a_win_ci: tuple[float, float]
    b_win_ci: tuple[float, float]
    draw_ci: tuple[float, float]
    draw_worth: float
    method: str
    policy_a: tuple[tuple[str, float], ...]
    policy_b: tuple[tuple[str, float], ...]
    given_a: str = "as given"
    given_b: str = "as given"
    default_value: float | None = None
    default_ci: tuple[float, float] | None = None
    default_rates: tuple[float, float, float] | None = None
    profiles_a: int = 1
    profiles_b: int = 1
    space_a: int = 1
    space_b: int = 1
    searched: tuple[str, ...] = ()
    matrix: tuple[int, int] = (1, 1)
    n: int = 0
    fights: int = 0
    gap: tuple[float, float] = (0.0, 0.0)
    confidence: float = 0.95
    assumptions: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    details: Mapping[str, Any] = field(default_factory=dict)
    strategy: Any = None
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return self.method != "simulate"

    @property
    def half_width(self) -> float:
        low, high = self.value_ci
        return (high - low) / 2

    def describe_a(self) -> str:
        """Side A's equilibrium policy in one line."""
        return mix_text(self.policy_a)

    def describe_b(self) -> str:
        """Side B's equilibrium policy in one line."""
        return mix_text(self.policy_b)

    def to_row(self) -> dict[str, Any]:
        """One flat record for tables (round robins, sweeps): the rates in the shape of a
        simulated row (``n`` is the fights behind each matrix entry; 0 for exact), the value
        and each side's policy."""
        row: dict[str, Any] = {"n": self.n}
        for rate in ("a_win", "b_win", "draw"):
            low, high = getattr(self, f"{rate}_ci")
            row[rate], row[f"{rate}_low"], row[f"{rate}_high"] = getattr(self, rate), low, high
        row["value"] = self.value
        row["value_low"], row["value_high"] = self.value_ci
        row["default_value"] = math.nan if self.default_value is None else self.default_value
        low, high = self.default_ci or (math.nan, math.nan)
        row["default_value_low"], row["default_value_high"] = low, high
        rates = self.default_rates or (math.nan, math.nan, math.nan)
        row["default_a_win"], row["default_b_win"], row["default_draw"] = rates
        row["policy_a"] = self.describe_a()
        row["policy_b"] = self.describe_b()
        row["given_a"], row["given_b"] = self.given_a, self.given_b
        row["profiles_a"], row["profiles_b"] = self.profiles_a, self.profiles_b
        row["searched"] = (", ".join(self.searched) if self.method != "exact"
                           else "every decision, state by state")
        row["play"] = "best"
        row["method"] = self.method
        row["fights"] = self.fights
        row["draw_worth"] = self.draw_worth
        return row

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (``balance duel --play best --json``)."""
        out: dict[str, Any] = {
            "ruleset": self.ruleset, "play": "best", "method": self.method,
            "draw_worth": self.draw_worth, "value": self.value, "value_ci": list(self.value_ci),
            "confidence": self.confidence,
            "a_win": self.a_win, "b_win": self.b_win, "draw": self.draw,
            "a_win_ci": list(self.a_win_ci), "b_win_ci": list(self.b_win_ci),
            "draw_ci": list(self.draw_ci),
            "policy_a": [{"policy": text, "weight": w} for text, w in self.policy_a],
            "policy_b": [{"policy": text, "weight": w} for text, w in self.policy_b],
            "given_a": self.given_a, "given_b": self.given_b,
            "default_value": self.default_value,
            "default_value_ci": None if self.default_ci is None else list(self.default_ci),
            "profiles_evaluated": {"a": self.profiles_a, "b": self.profiles_b},
            "profiles_declared": {"a": self.space_a, "b": self.space_b},
            "searched": list(self.searched), "matrix": list(self.matrix),
            "n_per_pair": self.n, "fights": self.fights,
            "best_response_gap": {"a": self.gap[0], "b": self.gap[1]},
            "assumptions": list(self.assumptions), "policies": list(self.policies),
        }
        out["details"] = plain(dict(self.details))
        if self.strategy is not None:
            out["strategy"] = self.strategy.to_dict(orient="records")
        out.update(plain(dict(self.meta)))
        return out

    def __str__(self) -> str:
        how = {"exact": "exact, decisions taken state by state by the solver",
               "exact-profiles": "exact matrix game over the policy profiles",
               "simulate": "Monte Carlo over the policy profiles (common random numbers, "
                           "double oracle, linear programming)"}[self.method]
        pct = f"{100 * self.confidence:g}%"
        lines = [f"{self.ruleset}: best play, {how}"]
        objective = f"A's expected score, win + {self.draw_worth:g} x draw"
        if self.exact:
            lines.append(f"  value   {self.value:.4f}   ({objective})")
            for label, rate in (("A wins", self.a_win), ("B wins", self.b_win),
                                ("draw", self.draw)):
                lines.append(f"  {label:<7} {100 * rate:8.4f}%")
        else:
            low, high = self.value_ci
            lines.append(f"  value   {self.value:.4f}  [{low:.4f}, {high:.4f}]  ({objective}; "
                         f"{pct} bootstrap interval)")
            for label, rate, (lo, hi) in (("A wins", self.a_win, self.a_win_ci),
                                          ("B wins", self.b_win, self.b_win_ci),
                                          ("draw", self.draw, self.draw_ci)):
                lines.append(f"  {label:<7} {100 * rate:7.3f}%   [{100 * lo:.3f}%, "
                             f"{100 * hi:.3f}%]")
        if self.default_value is not None:
            given = f"  with the policies as given: {self.default_value:.4f}"
            if self.default_ci is not None and not self.exact:
                given += f"  [{self.default_ci[0]:.4f}, {self.default_ci[1]:.4f}]"
            lines.append(given + f"  (best play moves it {self.value - self.default_value:+.4f})")
        lines.append("  A plays: " + self.describe_a())
        lines.append("  B plays: " + self.describe_b())
        if self.method != "exact":
            size = f"matrix {self.matrix[0]} x {self.matrix[1]}"
            if not self.exact:
                size += f" at {self.n:,} fights a pair; {self.fights:,} fights in all"
            lines.append(f"  profiles evaluated: A {self.profiles_a} of {self.space_a:,}, "
                         f"B {self.profiles_b} of {self.space_b:,} ({size})")
            if self.searched:
                lines.append("  searched: " + ", ".join(self.searched)
                             + "; each side plays one profile for all its members")
        for key, value in self.details.items():
            if key not in ("value", "policy_a", "policy_b"):
                lines.append(f"  {key}: {value}")
        lines.extend(rests_on(self.assumptions, self.policies))
        return "\n".join(lines)


def mix_text(policy: Sequence[tuple[str, float]]) -> str:
    """``"attack_policy=thrust"`` for a pure policy, ``"0.62 x (...) + 0.38 x (...)"`` for a
    mixed one."""
    if len(policy) == 1:
        return policy[0][0]
    return " + ".join(f"{w:.2f} x ({text})" for text, w in policy)


# --- matrix games ---------------------------------------------------------------------------


def zero_sum(payoff: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """Optimal mixed strategies and value of the zero-sum game ``payoff`` (row maximises).

    A pure saddle point is found by array operations; otherwise both players' strategies
    come from linear programs (:func:`balance.stats.symmetric_nash`, which solves the row
    player's maximin of any rectangular game).

    Returns
    -------
    x, y, value
        The row player's and the column player's mixed strategies and the game's value.
    """
    a = np.asarray(payoff, float)
    if a.ndim != 2 or not a.size:
        raise ValueError(f"a payoff matrix is 2-D and not empty, got shape {a.shape}")
    row_floor = a.min(axis=1)
    col_ceiling = a.max(axis=0)
    i, j = int(np.argmax(row_floor)), int(np.argmin(col_ceiling))
    if col_ceiling[j] - row_floor[i] <= 1e-12:  # a saddle point: both play pure
        x, y = np.zeros(a.shape[0]), np.zeros(a.shape[1])
        x[i], y[j] = 1.0, 1.0
        return x, y, float(a[i, j])
    x, value = stats.symmetric_nash(a)
    y, _ = stats.symmetric_nash(-a.T)
    return x, y, value


def game_values(payoffs: np.ndarray) -> np.ndarray:
    """The values of a stack of zero-sum games ``payoffs[k]``, by
    :func:`balance.matrix_game.solve_batch` (saddle points by array operations, the rest
    together by a simplex whose answers are certified optimal, else a linear program)."""
    return solve_batch(np.asarray(payoffs, float), "sealed").value


@dataclass(frozen=True)
class DoubleOracle:
    """The equilibrium the double oracle reached: the rows and columns it kept (indices
    into the full game), their mixes, the value, and its certificate ``lower <= value <=
    upper`` (the best responses' payoffs against the final mixes)."""

    rows: tuple[int, ...]
    cols: tuple[int, ...]
    x: np.ndarray
    y: np.ndarray
    value: float
    lower: float
    upper: float
    evaluated: int
    iterations: int


def double_oracle(payoff: Callable[[int, int], float], n_rows: int, n_cols: int, *,
                  start: tuple[int, int] = (0, 0), tol: float = 1e-12,
                  max_iterations: int | None = None) -> DoubleOracle:
    """Solve a zero-sum game given entry by entry, without filling the whole matrix.

    Start from one row and one column; solve the restricted game; add each player's best
    response (against the other's restricted equilibrium, over *all* its strategies) while
    it gains more than ``tol``.  With exact payoffs this ends at an equilibrium of the full
    game (McMahan, Gordon and Blum 2003); ``evaluated`` counts the entries it needed.
    """
    cache: dict[tuple[int, int], float] = {}

    def entry(i: int, j: int) -> float:
        if (i, j) not in cache:
            cache[(i, j)] = float(payoff(i, j))
        return cache[(i, j)]

    rows, cols = [start[0]], [start[1]]
    limit = max_iterations or (n_rows + n_cols + 2)
    for iteration in range(1, limit + 1):
        matrix = np.array([[entry(i, j) for j in cols] for i in rows])
        x, y, value = zero_sum(matrix)
        y_support = [(cols[c], w) for c, w in enumerate(y) if w > 1e-12]
        x_support = [(rows[r], w) for r, w in enumerate(x) if w > 1e-12]
        against_y = np.array([sum(w * entry(i, j) for j, w in y_support) for i in range(n_rows)])
        against_x = np.array([sum(w * entry(i, j) for i, w in x_support) for j in range(n_cols)])
        best_row, best_col = int(np.argmax(against_y)), int(np.argmin(against_x))
        upper, lower = float(against_y[best_row]), float(against_x[best_col])
        grew = False
        if upper - value > tol and best_row not in rows:
            rows.append(best_row)
            grew = True
        if value - lower > tol and best_col not in cols:
            cols.append(best_col)
            grew = True
        if not grew:
            return DoubleOracle(tuple(rows), tuple(cols), x, y, value, lower, upper,
                                len(cache), iteration)
    raise RuntimeError("double oracle did not converge")  # cannot happen: each round grows


# --- profiles ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Profile:
    """One side's choice: policy values that every member of the side plays (the policies
    not named stay as given).  ``Profile()`` is the side as given."""

    choices: tuple[tuple[str, Any], ...] = ()

    def apply(self, side: Side) -> Side:
        if not self.choices:
            return side
        values = dict(self.choices)
        return tuple(dataclasses.replace(c, **values) for c in side)

    def without(self, name: str) -> Profile:
        """This profile with policy ``name`` back as given."""
        return Profile(tuple((n, v) for n, v in self.choices if n != name))

    def with_choice(self, name: str, value: Any, order: Sequence[str]) -> Profile:
        values = dict(self.choices)
        values[name] = value
        return Profile(tuple((n, values[n]) for n in order if n in values))


def searched_policies(rs: Ruleset, search: Mapping[str, Sequence[Any] | None] | None = None
                      ) -> list[Policy]:
    """The combatant-scope policies best play searches, with their values.

    ``search`` narrows them: policy name -> the values to try (``None``: the declared
    ones).  Every name and value is checked (``SpecError`` naming what is allowed).
    """
    declared = [p for p in rs.policy_space() if p.scope == "combatant"]
    if search is None:
        return [p for p in declared if p.values]
    by_name = {p.name: p for p in declared}
    out = []
    for name, values in search.items():
        if name not in by_name:
            raise SpecError(f"search: {name!r} is not a combatant policy of {rs.name}; "
                            "policies: " + (", ".join(by_name) or "none"))
        tried = by_name[name].values if values is None else tuple(values)
        if not tried:
            raise SpecError(f"search: {name!r} needs at least one value to try")
        for value in tried:
            build(rs.Combatant, {name: value})  # raises a SpecError naming what is allowed
        out.append(dataclasses.replace(by_name[name], values=tuple(tried)))
    return out


def _always_idle(rs: Ruleset, rules: Any, side_a: Side, side_b: Side,
                 policies: Sequence[Policy]) -> set[str]:
    """Policies idle in the matchup as given and after any one searched change on either
    side (a berserk trigger where nobody is a berserker): left out of the search."""
    names = [p.name for p in policies]
    idle = set(rs.idle_policies(rules, side_a, side_b)) & set(names)
    for p in policies:
        if not idle:
            break
        for value in p.values:
            for seat in ("a", "b"):
                change = Profile(((p.name, value),))
                try:
                    a = change.apply(side_a) if seat == "a" else side_a
                    b = change.apply(side_b) if seat == "b" else side_b
                    idle &= set(rs.idle_policies(rules, a, b))
                except SpecError:  # a change this side cannot play
                    continue
    return idle


class ProfileSpace:
    """The distinct profiles of one side of a matchup, registered as they are met.

    Index 0 is the side as given.  Two profiles are the same when the ruleset discloses
    them the same way against the other side as given (``Ruleset.policies``, which leaves
    out idle policies); a profile the ruleset rejects for this side (a thrust with a whip)
    is not registered.
    """

    def __init__(self, rs: Ruleset, rules: Any, side_a: Side, side_b: Side, seat: str,
                 policies: Sequence[Policy]) -> None:
        self.rs, self.rules, self.seat = rs, rules, seat
        self.side_a, self.side_b = side_a, side_b
        self.own = side_a if seat == "a" else side_b
        self.policies = list(policies)
        self.names = [p.name for p in self.policies]
        self.profiles: list[Profile] = []
        self.sides: list[Side] = []
        self.keys: dict[tuple[str, ...], int] = {}
        self.evaluated: set[int] = set()
        self._listed: list[int] | None = None
        if self.add(Profile()) != 0:
            raise SpecError(f"side {seat}: the policies as given are not playable")

    def pair(self, side: Side) -> tuple[Side, Side]:
        return (side, self.side_b) if self.seat == "a" else (self.side_a, side)

    @property
    def size(self) -> int:
        """How many profiles the side chooses from: the distinct ones where they were
        listed, else the product of the searched values."""
        return len(self._listed) if self._listed is not None else self.raw_size

    @property
    def raw_size(self) -> int:
        """The product of the searched values: how many profiles there are to choose from."""
        return math.prod(len(p.values) for p in self.policies) if self.policies else 1

    def add(self, profile: Profile) -> int | None:
        """Register ``profile``; its index (an earlier one if it behaves the same), or
        ``None`` if the ruleset rejects it for this side."""
        try:
            side = profile.apply(self.own)
            self.rs.check_sides(self.rules, *self.pair(side))
        except SpecError:
            return None
        key = tuple(self.rs.policies(self.rules, *self.pair(side)))
        if key in self.keys:
            return self.keys[key]
        self.keys[key] = len(self.profiles)
        self.profiles.append(profile)
        self.sides.append(side)
        return len(self.profiles) - 1

    def distance(self, index: int) -> int:
        """How many searched policies of profile ``index`` differ from the side as given."""
        side = self.sides[index]
        return sum(any(getattr(c, n) != getattr(g, n) for c, g in zip(side, self.own, strict=True))
                   for n in self.names)

    def listed(self) -> list[int]:
        """Every distinct profile, the side as given first, then by how far it strays
        from it (so ties go to the least change)."""
        if self._listed is None:
            if self.raw_size > ENUMERATE:
                raise IntractableError(f"side {self.seat} has {self.raw_size:,} profiles to "
                                       f"list (at most {ENUMERATE:,})")
            found = {0}
            for combo in itertools.product(*(p.values for p in self.policies)):
                index = self.add(Profile(tuple(zip(self.names, combo, strict=True))))
                if index is not None:
                    found.add(index)
            self._listed = sorted(found, key=lambda i: (self.distance(i), i))
        return self._listed

    @property
    def small(self) -> bool:
        """Whether every distinct profile is screened at each best response (few enough
        to list cheaply, and few distinct ones among them)."""
        if self.raw_size <= SCREEN_ALL:
            return True
        return self.raw_size <= LIST_TO_SCREEN and len(self.listed()) <= SCREEN_ALL

    def neighbours(self, index: int) -> Iterator[int]:
        """The distinct profiles one policy away from profile ``index``."""
        seen = {index}
        base = self.profiles[index]
        for p in self.policies:
            for value in p.values:
                other = self.add(base.with_choice(p.name, value, self.names))
                if other is not None and other not in seen:
                    seen.add(other)
                    yield other

    def describe(self, index: int, other: Side) -> str:
        """Profile ``index`` in the game's words: each searched policy that can matter
        for this side, with its value (``[v1, v2]`` where members differ).

        A policy is left out when it is idle in the matchup, or idle when the side meets
        a copy of itself the size of ``other`` (a berserk trigger of a side with no
        berserker: it can matter to the foe's berserker, not to this side)."""
        side = self.sides[index]
        pair = (side, other) if self.seat == "a" else (other, side)
        idle = set(self.rs.idle_policies(self.rules, *pair))
        copy = tuple(side[i % len(side)] for i in range(len(other)))
        with contextlib.suppress(SpecError):  # a ruleset may refuse the copy: then no pruning
            idle |= set(self.rs.idle_policies(self.rules, side, copy))
        parts = []
        for name in self.names:
            if name in idle:
                continue
            values = [plain(getattr(c, name)) for c in side]
            shown = (str(values[0]) if all(v == values[0] for v in values)
                     else "[" + ", ".join(str(v) for v in values) + "]")
            parts.append(f"{name}={shown}")
        return ", ".join(parts) or "as given"


def _spaces(rs: Ruleset, rules: Any, side_a: Side, side_b: Side,
            search: Mapping[str, Sequence[Any] | None] | None
            ) -> tuple[ProfileSpace, ProfileSpace]:
    policies = searched_policies(rs, search)
    idle = _always_idle(rs, rules, side_a, side_b, policies)
    kept = [p for p in policies if p.name not in idle]
    return (ProfileSpace(rs, rules, side_a, side_b, "a", kept),
            ProfileSpace(rs, rules, side_a, side_b, "b", kept))


def _rule_policies(rs: Ruleset, rules: Any, side_a: Side, side_b: Side) -> list[str]:
    """The rule-scope policies this matchup rests on, as ``Ruleset.policies`` shows them."""
    rule_names = {p.name for p in rs.policy_space() if p.scope == "rules"}
    return [text for text in rs.policies(rules, side_a, side_b)
            if text.split("=", 1)[0].split(":", 1)[0] in rule_names]


def _policy_lines(rs: Ruleset, rules: Any, side_a: Side, side_b: Side,
                  policy_a: Sequence[tuple[str, float]],
                  policy_b: Sequence[tuple[str, float]]) -> tuple[str, ...]:
    return (*_rule_policies(rs, rules, side_a, side_b),
            "best play A: " + mix_text(policy_a), "best play B: " + mix_text(policy_b))


def _mix(space: ProfileSpace, indices: Sequence[int], weights: np.ndarray,
         other: Side) -> tuple[tuple[str, float], ...]:
    """A side's equilibrium as (description, weight), heaviest first (weights < 0.1%
    dropped and the rest renormalised)."""
    kept = [(space.describe(i, other), float(w)) for i, w in zip(indices, weights, strict=True)
            if w > 1e-3]
    total = sum(w for _, w in kept)
    merged: dict[str, float] = {}
    for text, w in kept:
        merged[text] = merged.get(text, 0.0) + w / total
    return tuple(sorted(merged.items(), key=lambda item: -item[1]))


# --- the public entry -------------------------------------------------------------------------


def best_play(ruleset: str | Ruleset, a: Any, b: Any, /, *, rules: Any = None,
              draw_worth: float = 0.5, method: str | None = None, space: str | None = None,
              search: Mapping[str, Sequence[Any] | None] | None = None,
              precision: float | None = DEFAULT_PRECISION, n: int | None = None,
              seed: int | None = None, chunk_size: int = CHUNK_SIZE,
              confidence: float = 0.95, tolerance: float | None = None,
              max_support: int = MAX_SUPPORT, resamples: int = RESAMPLES,
              allow_import: bool = False, **rule_overrides: Any) -> BestPlay:
    """Best play of side ``a`` against side ``b``: the zero-sum game over their policies.

    Parameters
    ----------
    ruleset, a, b, rules, allow_import, **rule_overrides
        As :func:`balance.duel`.
    draw_worth
        What a draw is worth to A (0..1): A maximises ``P(A wins) + draw_worth x P(draw)``,
        B minimises it.
    method
        ``"exact"`` (an exact solver: the ruleset's state-by-state best play, else the
        matrix game of exact profile payoffs; raises
        :class:`~balance.errors.IntractableError` where neither reaches), ``"simulate"``
        (Monte Carlo) or ``None``: exact where a solver reaches, else simulate.
    space
        ``"states"`` (decisions per state: the ruleset's exact solver only),
        ``"profiles"`` (the declared policy profiles, one per side) or ``None``: the
        richest the method reaches.
    search
        Policy name -> values to try (``None``: the declared ones), to narrow the profiles
        (default: every combatant-scope policy of the ruleset with its declared values).
    precision, n
        Monte Carlo: target half-width of the value's interval (default 0.01), and/or the
        fights per profile pair (alone: exactly that many; with a precision: the cap).
    seed
        Root seed (``None``: fresh entropy, recorded in ``meta``).
    chunk_size
        Fights per chunk of a matrix entry (the bootstrap's unit).
    tolerance
        Smallest best-response gain worth a new profile (default a quarter of the
        precision).
    max_support
        Most profiles per side in the Monte Carlo restricted game.

    Returns
    -------
    BestPlay
    """
    rs, rules_obj, side_a, side_b = matchup(ruleset, a, b, rules, allow_import=allow_import,
                                            **rule_overrides)
    return solve(rs, rules_obj, side_a, side_b, draw_worth=draw_worth, method=method,
                 space=space, search=search, precision=precision, n=n,
                 entropy=root_entropy(seed), seed=seed, chunk_size=chunk_size,
                 confidence=confidence, tolerance=tolerance, max_support=max_support,
                 resamples=resamples)


def check_options(*, draw_worth: float, method: str | None, space: str | None,
                  precision: float | None, n: int | None, chunk_size: int,
                  confidence: float = 0.95) -> None:
    """Raise a SpecError naming the first bad best-play option."""
    if isinstance(draw_worth, bool) or not isinstance(draw_worth, int | float) \
            or not 0 <= draw_worth <= 1:
        raise SpecError(f"draw_worth must be a number in 0..1, got {draw_worth!r}")
    if method not in (None, *METHODS):
        raise SpecError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if space not in (None, *SPACES):
        raise SpecError(f"space must be one of {', '.join(SPACES)}, got {space!r}")
    if space == "states" and method == "simulate":
        raise SpecError("space 'states' (decisions per state) is the exact solver's; "
                        "Monte Carlo searches the profiles")
    if precision is not None and not 0 < precision < 0.5:
        raise SpecError(f"precision must be a half-width in (0, 0.5), got {precision!r}")
    for name, value in (("n", n), ("chunk_size", chunk_size)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise SpecError(f"{name} must be a whole number >= 1, got {value!r}")
    if not 0 < confidence < 1:
        raise SpecError(f"confidence must be in (0, 1), got {confidence!r}")


def solve(rs: Ruleset, rules: Any, side_a: Side, side_b: Side, /, **options: Any
          ) -> BestPlay:
    """:func:`best_play` on validated objects (what round robins and sweeps call); the
    options are :func:`solve_steps`'s."""
    return run_steps(rs, solve_steps(rs, rules, side_a, side_b, **options))


def solve_steps(rs: Ruleset, rules: Any, side_a: Side, side_b: Side, /, *,
                draw_worth: float = 0.5, method: str | None = None, space: str | None = None,
                search: Mapping[str, Sequence[Any] | None] | None = None,
                precision: float | None = DEFAULT_PRECISION, n: int | None = None,
                entropy: int | None = None, seed: int | None = None,
                key: tuple[Any, ...] = (), chunk_size: int = CHUNK_SIZE,
                confidence: float = 0.95, tolerance: float | None = None,
                max_support: int = MAX_SUPPORT, resamples: int = RESAMPLES
                ) -> Steps[BestPlay]:
    """:func:`solve` in steps (:data:`Steps`): the Monte Carlo fights are asked for, so
    that :func:`together` can run many matchups' in shared kernel calls.

    ``key`` names the matchup's streams (spawn-key parts before the chunk index): every
    profile pair of the matchup fights on ``stream(entropy, *key, i)``.
    """
    check_options(draw_worth=draw_worth, method=method, space=space, precision=precision,
                  n=n, chunk_size=chunk_size, confidence=confidence)
    start = time.perf_counter()
    why: list[str] = []
    if method in (None, "exact"):
        if space in (None, "states"):
            try:
                answer = _exact_states(rs, rules, side_a, side_b, draw_worth)
                return dataclasses.replace(answer, meta={"elapsed_s": time.perf_counter() - start})
            except IntractableError as exc:
                why.append(exc.reason)
        if space in (None, "profiles"):
            try:
                answer = _exact_profiles(rs, rules, side_a, side_b, draw_worth, search)
                return dataclasses.replace(answer, meta={"elapsed_s": time.perf_counter() - start})
            except IntractableError as exc:
                why.append(exc.reason)
        if method == "exact":
            prefixes = (f"{rs.name} has no exact solution here: ",
                        f"{rs.name} has no exact best play here: ")
            reasons = dict.fromkeys(w.removeprefix(prefixes[0]).removeprefix(prefixes[1])
                                    for w in why)
            raise IntractableError(f"{rs.name} has no exact best play here: "
                                   + "; ".join(reasons) + " (Monte Carlo best play reaches "
                                   "it: method 'simulate', `balance duel --play best`)")
    entropy = root_entropy(seed) if entropy is None else entropy
    answer = yield from _simulate(rs, rules, side_a, side_b, draw_worth=draw_worth,
                                  search=search, precision=precision, n=n, entropy=entropy,
                                  key=key, chunk_size=chunk_size, confidence=confidence,
                                  tolerance=tolerance, max_support=max_support,
                                  resamples=resamples)
    meta = {"seed": seed, "entropy": entropy, "chunk_size": answer.meta["chunk_size"],
            "precision": precision, "elapsed_s": time.perf_counter() - start}
    return dataclasses.replace(answer, meta=meta)


# --- exact ------------------------------------------------------------------------------------


def _exact_rates(a_win: float, b_win: float, draw: float) -> dict[str, Any]:
    """The rate fields of an exact answer: each rate, and its "interval" the rate twice."""
    return {"a_win": a_win, "b_win": b_win, "draw": draw, "a_win_ci": (a_win, a_win),
            "b_win_ci": (b_win, b_win), "draw_ci": (draw, draw)}


def _exact_states(rs: Ruleset, rules: Any, side_a: Side, side_b: Side,
                  draw_worth: float) -> BestPlay:
    """The ruleset's state-by-state best play (``Ruleset.exact_best_play``).

    Its details may carry ``"value"`` (else ``a_win + draw_worth x draw``), ``"policy_a"`` /
    ``"policy_b"`` (each side's play in a line) and ``"given"``: the exact ``(a_win, b_win,
    draw)`` with the policies as given, where ``Ruleset.exact`` answers something else
    (pool's ``exact`` is already the equilibrium); else ``Ruleset.exact`` gives it."""
    answer: Probabilities = rs.exact_best_play(rules, side_a, side_b, draw_worth=draw_worth)
    details = dict(answer.details)
    value = float(details.get("value", answer.a_win + draw_worth * answer.draw))
    said = "decided state by state: the solver's equilibrium (see its strategy table)"
    policy_a = ((str(details.get("policy_a", said)), 1.0),)
    policy_b = ((str(details.get("policy_b", said)), 1.0),)
    given: tuple[float, float, float] | None = details.pop("given", None)
    if given is None:  # the policies as given, by the ruleset's exact solver
        try:
            as_given = rs.exact(rules, side_a, side_b)
            given = (as_given.a_win, as_given.b_win, as_given.draw)
        except SpecError:
            pass
    rates = (answer.a_win, answer.b_win, answer.draw)
    return BestPlay(
        rs.name, value, (value, value), **_exact_rates(*rates),
        draw_worth=draw_worth, method="exact", policy_a=policy_a, policy_b=policy_b,
        default_value=None if given is None else given[0] + draw_worth * given[2],
        default_rates=given,
        assumptions=rs.assumptions(rules, side_a, side_b),
        policies=_policy_lines(rs, rules, side_a, side_b, policy_a, policy_b),
        details=details, strategy=answer.strategy)


def _exact_profiles(rs: Ruleset, rules: Any, side_a: Side, side_b: Side, draw_worth: float,
                    search: Mapping[str, Sequence[Any] | None] | None) -> BestPlay:
    """The matrix game of exact payoffs over the declared profiles, by double oracle with
    exact best responses (every distinct profile tried)."""
    why = rs.exact_check(rules, side_a, side_b)
    if why:
        raise IntractableError(why)
    left: dict[str, str] = {}
    if search is None and rs.exact_profiles_skip:
        search = {p.name: None for p in searched_policies(rs)
                  if p.name not in rs.exact_profiles_skip}
        left = {"left as given": ", ".join(rs.exact_profiles_skip) + " (each of its values "
                "one more exact solve a profile; Monte Carlo best play searches it)"}
    space_a, space_b = _spaces(rs, rules, side_a, side_b, search)
    rows, cols = space_a.listed(), space_b.listed()
    for label, listed in (("A", rows), ("B", cols)):
        if len(listed) > EXACT_PROFILES:
            raise IntractableError(f"side {label} has {len(listed):,} distinct profiles; the "
                                   f"exact matrix game enumerates at most {EXACT_PROFILES:,}")
    answers: dict[tuple[int, int], Probabilities] = {}

    def payoff(r: int, c: int) -> float:
        i, j = rows[r], cols[c]
        if (i, j) not in answers:
            answers[(i, j)] = rs.exact(rules, space_a.sides[i], space_b.sides[j])
        p = answers[(i, j)]
        return p.a_win + draw_worth * p.draw

    game = double_oracle(payoff, len(rows), len(cols))
    ia = [rows[r] for r in game.rows]
    ib = [cols[c] for c in game.cols]
    space_a.evaluated.update(i for i, _ in answers)
    space_b.evaluated.update(j for _, j in answers)
    rates = np.zeros(3)
    for (r, wx), (c, wy) in itertools.product(zip(ia, game.x, strict=True),
                                              zip(ib, game.y, strict=True)):
        p = answers[(r, c)]
        rates += wx * wy * np.array([p.a_win, p.b_win, p.draw])
    policy_a = _mix(space_a, ia, game.x, side_b)
    policy_b = _mix(space_b, ib, game.y, side_a)
    default = answers[(0, 0)]
    return BestPlay(
        rs.name, game.value, (game.value, game.value), **_exact_rates(*map(float, rates)),
        draw_worth=draw_worth, method="exact-profiles", policy_a=policy_a, policy_b=policy_b,
        given_a=space_a.describe(0, side_b), given_b=space_b.describe(0, side_a),
        default_value=default.a_win + draw_worth * default.draw,
        default_rates=(default.a_win, default.b_win, default.draw),
        profiles_a=len(space_a.evaluated), profiles_b=len(space_b.evaluated),
        space_a=len(rows), space_b=len(cols), searched=tuple(space_a.names),
        matrix=(len(ia), len(ib)),
        assumptions=rs.assumptions(rules, side_a, side_b),
        policies=_policy_lines(rs, rules, side_a, side_b, policy_a, policy_b),
        details={"exact_solves": len(answers), "double_oracle_rounds": game.iterations,
                 **left})


# --- steps: fights asked for, run alone or many matchups together -------------------------------

_T = TypeVar("_T")
Steps = Generator[tuple[int, list[Any]], "list[Any] | None", _T]
"""A computation that asks for its fights instead of running them: it yields ``(entropy,
segments)`` (:class:`balance.batching.Segment`) and is sent their outcomes, in order, or
``None`` where the kernel refused them; it returns its answer.  :func:`run_steps` runs one
alone, :func:`together` many at once."""


def _fights(rs: Ruleset, entropy: int, segments: list[Any]) -> list[Any] | None:
    """The outcomes of ``segments`` in shared kernel calls, or ``None`` if the kernel
    refuses them."""
    from ..engine import simulate_segments

    try:
        return simulate_segments(rs, segments, entropy=entropy)
    except SpecError:
        return None


def run_steps(rs: Ruleset, steps: Steps[_T]) -> _T:
    """Run a computation in steps by itself: each request in its own kernel calls."""
    try:
        request = next(steps)
        while True:
            request = steps.send(_fights(rs, *request))
    except StopIteration as stop:
        return stop.value


def together(rs: Ruleset, computations: Sequence[Steps[Any]]
             ) -> list[tuple[Any, float, float]]:
    """Many computations in lockstep: each round, the requests of every one still running
    go to the kernel together (by entropy), so that many matchups' small batches are one
    large batch.  A segment's outcomes do not depend on what it is batched with
    (:mod:`balance.batching`), so each answer is the one :func:`run_steps` gives.

    Each computation's answer (or the :class:`SpecError` it raised), with its wall and
    CPU seconds: its own steps', and its share of the shared kernel calls by fights."""
    answers: list[Any] = [None] * len(computations)
    wall, cpu = [0.0] * len(computations), [0.0] * len(computations)
    pending: dict[int, tuple[int, list[Any]]] = {}

    def advance(i: int, sent: list[Any] | None) -> None:
        start, clock = time.perf_counter(), time.process_time()
        try:
            pending[i] = computations[i].send(sent)
        except StopIteration as stop:
            answers[i] = stop.value
        except SpecError as exc:
            answers[i] = exc
        wall[i] += time.perf_counter() - start
        cpu[i] += time.process_time() - clock

    for i in range(len(computations)):
        advance(i, None)
    while pending:
        asked, pending_now = dict(pending), {}
        pending.clear()
        by_entropy: dict[int, list[int]] = {}
        for i, (entropy, _) in asked.items():
            by_entropy.setdefault(entropy, []).append(i)
        for entropy, members in by_entropy.items():
            segments = [s for i in members for s in asked[i][1]]
            start, clock = time.perf_counter(), time.process_time()
            found = _fights(rs, entropy, segments)
            spent = (time.perf_counter() - start, time.process_time() - clock)
            total = max(1, sum(s.n for s in segments))
            at = 0
            for i in members:
                mine = asked[i][1]
                share = sum(s.n for s in mine) / total
                wall[i] += spent[0] * share
                cpu[i] += spent[1] * share
                if found is None:  # refused together: each alone, as run_steps would
                    start, clock = time.perf_counter(), time.process_time()
                    pending_now[i] = _fights(rs, entropy, mine)
                    wall[i] += time.perf_counter() - start
                    cpu[i] += time.process_time() - clock
                else:
                    pending_now[i] = found[at:at + len(mine)]
                at += len(mine)
        for i, outcomes in pending_now.items():
            advance(i, outcomes)
    return list(zip(answers, wall, cpu, strict=True))


# --- Monte Carlo -------------------------------------------------------------------------------


class _Sampler:
    """Fights of profile pairs on common streams: chunk ``i`` of every pair on
    ``stream(entropy, *key, i)``, screening fights on ``stream(entropy, *key, "screen")``
    and confirming fights on ``stream(entropy, *key, "confirm")``."""

    def __init__(self, rs: Ruleset, rules: Any, space_a: ProfileSpace, space_b: ProfileSpace,
                 *, entropy: int, key: tuple[Any, ...], chunk_size: int, draw_worth: float,
                 screen_size: int = SCREEN_FIGHTS) -> None:
        self.rs, self.rules = rs, rules
        self.space_a, self.space_b = space_a, space_b
        self.entropy, self.key = entropy, tuple(key)
        self.chunk_size, self.screen_size = chunk_size, screen_size
        self.points = np.array([draw_worth, 1.0, 0.0])  # A's score by Winner code
        self.chunks: dict[tuple[int, int], list[np.ndarray]] = {}
        self.screens: dict[tuple[int, int], np.ndarray] = {}
        self.confirms: dict[tuple[int, int], np.ndarray] = {}
        self.fights = 0

    def _fight(self, i: int, j: int, n: int, rng: np.random.Generator) -> np.ndarray:
        out = self.rs.simulate(self.rules, self.space_a.sides[i], self.space_b.sides[j], n=n,
                               rng=rng)
        if len(out) != n:
            raise RuntimeError(f"{self.rs.name} kernel returned {len(out)} fights, not {n}")
        self._count(i, j, n)
        return np.asarray(out.winner)

    def prefetch(self, pairs: Iterator[tuple[int, int]] | Sequence[tuple[int, int]], *,
                 k: int = 0, stage: str | None = None) -> Steps[None]:
        """Ask for, in shared kernel calls, what :meth:`counts` (chunks ``0..k-1``) or
        :meth:`screen` (``stage``) would run pair by pair for ``pairs``: the same fights on
        the same streams, fewer calls.  A step (:data:`Steps`): it yields the segments
        and their entropy, and is sent their outcomes, or ``None`` where the kernel refused
        the batch (then the pair-by-pair calls run them, and name the profile)."""
        from ..batching import Segment

        wanted: list[tuple[int, int, Any]] = []
        segments: list[Segment] = []
        for i, j in dict.fromkeys(pairs):
            if stage is None:
                have = len(self.chunks.get((i, j), ()))
                todo: list[Any] = list(range(have, k))
                size = self.chunk_size
            else:
                done = (i, j) in (self.screens if stage == "screen" else self.confirms)
                todo = [] if done else [stage]
                size = self.screen_size if stage == "screen" else 4 * self.screen_size
            for index in todo:
                wanted.append((i, j, index))
                segments.append(Segment(self.rules, tuple(self.space_a.sides[i]),
                                        tuple(self.space_b.sides[j]), size, self.key, index))
        if len(segments) < 2:
            return
        found = yield (self.entropy, segments)
        if found is None:
            return
        for (i, j, _), segment, out in zip(wanted, segments, found, strict=True):
            self._count(i, j, segment.n)
            winner = np.asarray(out.winner)
            if stage is None:
                self.chunks.setdefault((i, j), []).append(
                    np.bincount(winner.astype(np.int64), minlength=3)[:3])
            else:
                (self.screens if stage == "screen" else self.confirms)[(i, j)] = \
                    self.points[winner.astype(np.intp)]

    def _count(self, i: int, j: int, n: int) -> None:
        self.fights += n
        self.space_a.evaluated.add(i)
        self.space_b.evaluated.add(j)

    def counts(self, i: int, j: int, k: int) -> np.ndarray:
        """int64 ``(k, 3)``: draws, A wins, B wins of chunks ``0..k-1`` of pair ``(i, j)``."""
        have = self.chunks.setdefault((i, j), [])
        while len(have) < k:
            winner = self._fight(i, j, self.chunk_size,
                                 stream(self.entropy, *self.key, len(have)))
            have.append(np.bincount(winner.astype(np.int64), minlength=3)[:3])
        return np.array(have[:k])

    def screen(self, i: int, j: int, stage: str = "screen") -> np.ndarray:
        """A's score in each fight of pair ``(i, j)`` on the ``stage`` streams: ``"screen"``
        (``screen_size`` fights, where candidates are judged) or ``"confirm"`` (four times
        as many, fresh, where the chosen one is judged again)."""
        store = self.screens if stage == "screen" else self.confirms
        if (i, j) not in store:
            size = self.screen_size if stage == "screen" else 4 * self.screen_size
            winner = self._fight(i, j, size, stream(self.entropy, *self.key, stage))
            store[(i, j)] = self.points[winner.astype(np.intp)]
        return store[(i, j)]

    def tensor(self, rows: Sequence[int], cols: Sequence[int], k: int) -> Steps[np.ndarray]:
        """int64 ``(k, len(rows), len(cols), 3)``: every pair's chunk counts."""
        yield from self.prefetch([(i, j) for i in rows for j in cols], k=k)
        return np.stack([np.stack([self.counts(i, j, k) for j in cols], axis=1)
                         for i in rows], axis=1)


def _side_score(space: ProfileSpace, sampler: _Sampler, index: int,
                opponent: Sequence[tuple[int, float]], stage: str) -> np.ndarray:
    """Side ``space.seat``'s own score in each ``stage`` fight with profile ``index``
    against the opponent's mix (B's score is minus A's: the game is zero-sum)."""
    total = np.zeros(sampler.screen_size * (1 if stage == "screen" else 4))
    for j, w in opponent:
        pair = (index, j) if space.seat == "a" else (j, index)
        total += w * sampler.screen(*pair, stage=stage)
    return total if space.seat == "a" else -total


def _prefetch_scores(space: ProfileSpace, sampler: _Sampler, indices: Sequence[int],
                     opponent: Sequence[tuple[int, float]], stage: str) -> Steps[None]:
    """The ``stage`` fights :func:`_side_score` reads for each of ``indices``, in shared
    kernel calls."""
    yield from sampler.prefetch([(i, j) if space.seat == "a" else (j, i)
                      for i in indices for j, _ in opponent], stage=stage)


def _gain(space: ProfileSpace, sampler: _Sampler, index: int,
          own: Sequence[tuple[int, float]], opponent: Sequence[tuple[int, float]],
          stage: str) -> Steps[tuple[float, float]]:
    """How much profile ``index`` gains over the side's own equilibrium mix, and the
    standard error of that gain (per-fight paired differences on common streams)."""
    yield from _prefetch_scores(space, sampler, [index, *(i for i, _ in own)], opponent,
                                stage)
    base = sum(w * _side_score(space, sampler, i, opponent, stage) for i, w in own)
    diff = _side_score(space, sampler, index, opponent, stage) - base
    se = float(np.std(diff, ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else 0.0
    return float(np.mean(diff)), se


def _best_response(space: ProfileSpace, sampler: _Sampler, own: Sequence[tuple[int, float]],
                   opponent: Sequence[tuple[int, float]], step: float = 0.0) -> Steps[int]:
    """Side ``space.seat``'s best profile against the opponent's mix, judged on the
    screening fights: every distinct profile when there are few, else coordinate search
    from the best profile of the side's own mix.

    A change counts only if it gains more than ``step`` and more than twice the standard
    error of the paired difference (so the search does not wander among profiles that
    differ by noise), and the profile returned keeps only such changes: every policy whose
    change does not count is put back as given.  A profile the kernel refuses to play is
    passed over."""
    memo: dict[int, np.ndarray | None] = {}

    def score(index: int) -> np.ndarray | None:
        if index not in memo:
            try:
                memo[index] = _side_score(space, sampler, index, opponent, "screen")
            except SpecError:  # the kernel cannot play it (pool's equilibrium bids with
                memo[index] = None  # a turn policy the solver does not model)
        return memo[index]

    def mean(index: int) -> float:
        values = score(index)
        return -math.inf if values is None else float(np.mean(values))

    def better(index: int, than: int) -> bool:
        mine, theirs = score(index), score(than)
        if mine is None or theirs is None:
            return mine is not None
        diff = mine - theirs
        se = float(np.std(diff, ddof=1) / math.sqrt(len(diff))) if len(diff) > 1 else 0.0
        return float(np.mean(diff)) > max(step, Z_ADD * se, 1e-12)

    if space.small:  # every distinct profile, the least change first
        listed = space.listed()
        yield from _prefetch_scores(space, sampler, listed, opponent, "screen")
        top = max(listed, key=mean)
        return next(i for i in listed if i == top or not better(top, i))
    yield from _prefetch_scores(space, sampler, [i for i, _ in own], opponent, "screen")
    best = max((i for i, _ in own), key=mean)
    for _ in range(MAX_SWEEPS):
        moves = list(space.neighbours(best))
        if not moves:
            break
        yield from _prefetch_scores(space, sampler, moves, opponent, "screen")
        top = max(moves, key=mean)
        if not better(top, best):
            break
        best = top
    reverted = True
    while reverted:
        reverted = False
        for name, _ in space.profiles[best].choices:
            back = space.add(space.profiles[best].without(name))
            if back is not None and back != best and not better(best, back):
                best, reverted = back, True
                break
    return best


def _simulate(rs: Ruleset, rules: Any, side_a: Side, side_b: Side, *, draw_worth: float,
              search: Mapping[str, Sequence[Any] | None] | None, precision: float | None,
              n: int | None, entropy: int, key: tuple[Any, ...], chunk_size: int,
              confidence: float, tolerance: float | None, max_support: int,
              resamples: int) -> Steps[BestPlay]:
    """Monte Carlo best play over the profiles (see the module docstring), in steps
    (:data:`Steps`): its fights are asked for, not run, so that many matchups' fights can
    share kernel calls (:func:`together`)."""
    space_a, space_b = _spaces(rs, rules, side_a, side_b, search)
    if n is not None and precision is None:  # a fixed number of fights a pair
        chunk_size = min(chunk_size, max(1, math.ceil(n / MIN_CHUNKS)))
        k, k_cap = math.ceil(n / chunk_size), math.ceil(n / chunk_size)
    else:
        k_cap = math.ceil((n or MAX_PAIR_FIGHTS) / chunk_size)
        k = min(MIN_CHUNKS, k_cap)
    tol = tolerance if tolerance is not None else (precision or DEFAULT_PRECISION) / 4
    sampler = _Sampler(rs, rules, space_a, space_b, entropy=entropy, key=key,
                       chunk_size=chunk_size, draw_worth=draw_worth)
    rng = stream(entropy, *key, "bootstrap")
    rows, cols = [0], [0]
    points = np.array([draw_worth, 1.0, 0.0])
    rounds = 0

    def restricted() -> Steps[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]]:
        counts = yield from sampler.tensor(rows, cols, k)
        scores = counts @ points / chunk_size  # (k, rows, cols): A's score by chunk
        x, y, value = zero_sum(scores.mean(axis=0))
        return counts, scores, x, y, value

    while True:
        gaps = [0.0, 0.0]
        for _ in range(4 * max_support):  # double oracle at k chunks a pair
            rounds += 1
            counts, scores, x, y, value = yield from restricted()
            own_a = [(rows[r], w) for r, w in enumerate(x) if w > 1e-9]
            own_b = [(cols[c], w) for c, w in enumerate(y) if w > 1e-9]
            grew = False
            for side, (space, own, opp, kept) in enumerate(((space_a, own_a, own_b, rows),
                                                            (space_b, own_b, own_a, cols))):
                index = yield from _best_response(space, sampler, own, opp, step=tol)
                if index in kept:
                    continue  # already in the game: the restricted equilibrium weighs it
                # judged again on fresh, four times longer streams (no winner's curse)
                gain, se = yield from _gain(space, sampler, index, own, opp, "confirm")
                if gain > tol and gain > Z_ADD * se and len(kept) < max_support:
                    kept.append(index)
                    grew = True
                else:  # left out: what it would gain widens the value's interval
                    gaps[side] = max(0.0, gain)
            if not grew:
                break
        counts, scores, x, y, value = yield from restricted()
        # the value's interval: percentile bootstrap over chunks (independent tallies)
        weights = rng.multinomial(k, np.full(k, 1 / k), size=resamples) / k
        boot = np.tensordot(weights, scores, axes=(1, 0))  # (resamples, rows, cols)
        values = game_values(boot)
        tail = (1 - confidence) / 2
        low, high = (float(q) for q in np.quantile(values, [tail, 1 - tail]))
        half = (high - low) / 2
        if precision is None or half <= precision or k >= k_cap:
            break
        k = min(k_cap, max(k + 1, math.ceil(k * (half / precision) ** 2 * 1.1)))
    rates_by_chunk = counts / chunk_size  # (k, rows, cols, 3): draw, A, B
    mix = np.einsum("r,c,krco->ko", x, y, rates_by_chunk)  # (k, 3) at the equilibrium
    boot_rates = weights @ mix  # (resamples, 3)
    rate_low, rate_high = np.quantile(boot_rates, [tail, 1 - tail], axis=0)
    rates = mix.mean(axis=0)
    default_boot = boot[:, 0, 0]
    default = scores[:, 0, 0].mean()
    default_rates = rates_by_chunk[:, 0, 0, :].mean(axis=0)
    value_ci = (max(0.0, low - gaps[1]), min(1.0, high + gaps[0]))
    policy_a = _mix(space_a, rows, x, side_b)
    policy_b = _mix(space_b, cols, y, side_a)

    def span(o: int) -> tuple[float, float]:
        return float(rate_low[o]), float(rate_high[o])

    return BestPlay(
        rs.name, float(value), value_ci, a_win=float(rates[1]), b_win=float(rates[2]),
        draw=float(rates[0]), a_win_ci=span(1), b_win_ci=span(2), draw_ci=span(0),
        draw_worth=draw_worth, method="simulate",
        policy_a=policy_a, policy_b=policy_b, given_a=space_a.describe(0, side_b),
        given_b=space_b.describe(0, side_a), default_value=float(default),
        default_ci=(float(np.quantile(default_boot, tail)),
                    float(np.quantile(default_boot, 1 - tail))),
        default_rates=(float(default_rates[1]), float(default_rates[2]),
                       float(default_rates[0])),
        profiles_a=len(space_a.evaluated), profiles_b=len(space_b.evaluated),
        space_a=space_a.size, space_b=space_b.size, searched=tuple(space_a.names),
        matrix=(len(rows), len(cols)), n=k * chunk_size, fights=sampler.fights,
        gap=(gaps[0], gaps[1]), confidence=confidence,
        assumptions=rs.assumptions(rules, side_a, side_b),
        policies=_policy_lines(rs, rules, side_a, side_b, policy_a, policy_b),
        details={"double_oracle_rounds": rounds},
        meta={"chunk_size": chunk_size})


# --- tables: the policies as given beside best play ------------------------------------------


def as_given(table: Any) -> Any:
    """The round-robin table of the policies *as given*, read from a best-play table.

    Every best-play row carries the matchup with both sides' policies as given: for a
    Monte Carlo row, the first entry of its payoff matrix (the same ``n`` fights on the
    same streams), so its counts are real fights; for an exact row, the exact answer.
    The result has the columns the analyses read (``a``, ``b``, ``n``, the rates with their
    intervals, the counts).
    """
    import pandas as pd

    rows = []
    for row in table.itertuples(index=False):
        out: dict[str, Any] = {"a": row.a, "b": row.b, "n": int(row.n)}
        rates = {"a_win": row.default_a_win, "b_win": row.default_b_win,
                 "draw": row.default_draw}
        if row.n:
            n = int(row.n)
            a_wins, draws = round(rates["a_win"] * n), round(rates["draw"] * n)
            counts = {"a_win": a_wins, "b_win": n - a_wins - draws, "draw": draws}
            out.update({"a_wins": counts["a_win"], "b_wins": counts["b_win"],
                        "draws": counts["draw"]})
            for rate, k in counts.items():
                low, high = stats.wilson(k, n)
                out[rate], out[f"{rate}_low"], out[f"{rate}_high"] = k / n, float(low), float(high)
        else:
            for rate, value in rates.items():
                out[rate] = out[f"{rate}_low"] = out[f"{rate}_high"] = float(value)
        rows.append(out)
    frame = pd.DataFrame(rows)
    frame.attrs.update({k: v for k, v in table.attrs.items() if k != "play"})
    frame.attrs["play"] = "default"
    return frame


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


SURE = 0.9
"""A share of bootstrap replicates at least this (or at most 1 - this) is a clear
verdict on dominance; in between it is unsure."""


@dataclass(frozen=True)
class VerdictChanges:
    """What best play changes in a round robin's verdicts (:func:`verdict_changes`), each
    change told apart from noise; ``frame`` holds the two sets of verdicts side by side."""

    frame: Any
    top: str
    top_best: str
    overtakes: dict[str, list[str]]
    """Entrant -> those it overtakes beyond both ratings' 95% intervals."""
    moved: list[str]
    """Entrants whose rank moves only within the ratings' intervals."""
    dominated: dict[str, list[str]]
    """``"given"`` / ``"best"`` / ``"both"`` -> the entrants clearly dominated only with the
    policies as given, only under best play, under both."""
    unsure: list[str]
    support: list[str]
    support_best: list[str]
    flips: list[tuple[str, str, float, float]]
    """Pairings whose favourite changes beyond the 95% interval: (a, b, a's seat-averaged
    expected score as given, under best play)."""
    near: list[tuple[str, str, float, float]]
    """Pairings that cross 1/2 within the noise."""
    exact: bool = False
    """Both plays solved exactly: every difference is real, no noise to tell apart."""

    def sentences(self, who: Callable[[str], str] = str) -> list[str]:
        """Every change, in plain sentences (entrants named by ``who``)."""
        frame = self.frame

        def names(items: Sequence[str]) -> str:
            return ", ".join(who(n) for n in items)

        out = [f"Strongest: {who(self.top)} with the policies as given, {who(self.top_best)} "
               "under best play." if self.top != self.top_best else
               f"Strongest: {who(self.top)}, under both."]
        if self.overtakes:
            out.append("Order changes beyond the ratings' 95% intervals: " + "; ".join(
                f"{who(i)} ({_ordinal(int(frame.loc[i, 'rank']))} -> "
                f"{_ordinal(int(frame.loc[i, 'rank_best']))}) overtakes " + names(js)
                for i, js in self.overtakes.items()) + ".")
        if self.moved:
            out.append("Ranks that move only within the ratings' intervals: " + "; ".join(
                f"{who(n)} {_ordinal(int(frame.loc[n, 'rank']))} -> "
                f"{_ordinal(int(frame.loc[n, 'rank_best']))}" for n in self.moved) + ".")
        if not self.overtakes and not self.moved:
            out.append("The ranking is the same.")
        for key, text in (("given", "dominated only with the policies as given"),
                          ("best", "dominated only under best play"),
                          ("both", "dominated under both")):
            if self.dominated[key]:
                out.append(f"{text.capitalize()}: " + names(self.dominated[key]) + ".")
        if self.unsure:
            out.append("Unsure (dominated in 10-90% of the bootstrap replicates in one play "
                       "or both): " + ", ".join(
                           f"{who(n)} {frame.loc[n, 'dominated']:.0%} -> "
                           f"{frame.loc[n, 'dominated_best']:.0%}" for n in self.unsure) + ".")
        if set(self.support) != set(self.support_best):
            out.append("The metagame plays " + (names(self.support) or "nobody")
                       + " with the policies as given, "
                       + (names(self.support_best) or "nobody") + " under best play.")
        else:
            out.append("The metagame plays " + names(self.support) + " under both.")

        def pairing(p: tuple[str, str, float, float]) -> str:
            return f"{who(p[0])} v {who(p[1])}: {percent(p[2])} -> {percent(p[3])}"

        if self.flips:
            more = f" (and {len(self.flips) - 12} more)" if len(self.flips) > 12 else ""
            out.append(f"{len(self.flips)} pairing(s) change favourite beyond the 95% interval "
                       "(the row's seat-averaged expected score crosses 50%): "
                       + "; ".join(pairing(p) for p in self.flips[:12]) + more + ".")
        else:
            out.append("No pairing changes favourite beyond the 95% interval.")
        if self.near:
            out.append(f"{len(self.near)} pairing(s) cross 50% within the noise: "
                       + "; ".join(pairing(p) for p in self.near[:12]) + ".")
        return out

    def summary(self, who: Callable[[str], str] = str, most: int = 4) -> str:
        """The changes in one sentence for a verdict (entrants named by ``who``; at most
        ``most`` items of each list), or that there are none."""
        parts = []
        if self.top != self.top_best:
            parts.append(f"the strongest is the {who(self.top_best)}, not the {who(self.top)}")
        frame = self.frame

        def some(names: Sequence[str]) -> str:
            shown = [f"the {who(n)}" for n in names[:most]]
            if len(names) > most:
                shown.append(f"{len(names) - most} more")
            return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]

        for i, js in self.overtakes.items():
            parts.append(f"the {who(i)} rises {_ordinal(int(frame.loc[i, 'rank']))} -> "
                         f"{_ordinal(int(frame.loc[i, 'rank_best']))} past {some(js)}")
        newly, freed = self.dominated["best"], self.dominated["given"]
        if newly:
            parts.append(f"{some(newly)} become{'s' if len(newly) == 1 else ''} dominated")
        if freed:
            parts.append(f"{some(freed)} {'is' if len(freed) == 1 else 'are'} no longer "
                         "dominated")
        if set(self.support) != set(self.support_best):
            parts.append("the metagame plays " + some(self.support_best or ["nobody"])
                         + " instead of " + some(self.support or ["nobody"]))
        if self.flips:
            shown = "; ".join(f"the {who(a)} against the {who(b)} {100 * x:.1f}% -> "
                              f"{100 * y:.1f}%" for a, b, x, y in self.flips[:most])
            more = f"; {len(self.flips) - most} more" if len(self.flips) > most else ""
            parts.append(f"{len(self.flips)} pairing{'s' if len(self.flips) > 1 else ''} "
                         f"change{'' if len(self.flips) > 1 else 's'} favourite ({shown}{more})")
        if not parts:
            beyond = "" if self.exact else " beyond the ratings' 95% intervals"
            return ("Best play changes none of the verdicts of the policies as given (the same "
                    f"fights): the {who(self.top)} is strongest under both, no rank moves"
                    f"{beyond}, the same entrants are dominated and no pairing changes "
                    "favourite" + ("" if self.exact else " beyond its 95% interval") + ".")
        same = "" if self.top != self.top_best else f"; the {who(self.top)} is strongest under both"
        return ("Against the policies as given (the same fights), under best play "
                + "; ".join(parts) + same + (" (exact)." if self.exact else
                                             " (each change beyond the noise: 95% intervals, "
                                             "90% of bootstrap replicates)."))


def verdict_changes(default: Any, best: Any, *, resamples: int = 200,
                    seed: int = 0) -> VerdictChanges:
    """The verdicts of a round robin with the policies as given and under best play, side
    by side, and which change.

    Verdicts compared, each change told apart from noise:

    * the Bradley-Terry ranking: who is on top; which pairs of entrants swap order beyond
      their ratings' 95% intervals (each clearly ahead in one play, clearly behind in the
      other), and which ranks move only within them;
    * dominance by a mix of the others: clear when the entrant is dominated in at least
      90% of the bootstrap replicates, or in at most 10%; unsure in between;
    * who the metagame plays (weight above 1%);
    * which pairings change favourite: the seat-averaged expected score on one side of 1/2
      beyond its 95% interval with the policies as given, and on the other under best play.

    ``frame`` has one row per entrant: ``rank`` and ``elo`` (with ``_best``), ``dominated``
    and ``dominated_best`` (the share of replicates in which it is dominated), ``metagame``
    and ``metagame_best`` (equilibrium weights).
    """
    import pandas as pd

    from .equilibria import dominated, metagame
    from .ratings import ratings
    from .scores import score_matrix

    parts, intervals = [], []
    for label, table in (("", default), ("_best", best)):
        rating = ratings(table)
        dom = dominated(table, resamples=resamples, seed=seed + 1)
        meta = metagame(table, resamples=resamples, seed=seed)
        column = "dominated_share" if "dominated_share" in dom else "dominated"
        parts.append(pd.DataFrame({
            f"rank{label}": pd.Series(range(1, len(rating) + 1), index=rating.index),
            f"elo{label}": rating["elo"].round(1),
            f"dominated{label}": dom[column].astype(float),
            f"metagame{label}": meta["weight"].round(3)}))
        intervals.append(rating[["elo_low", "elo_high"]])
    frame = pd.concat(parts, axis=1).sort_values("rank_best")
    frame.index.name = "entrant"
    names = list(frame.index)

    def ahead(which: int, i: str, j: str) -> bool:  # i clearly rated above j
        return bool(intervals[which].loc[i, "elo_low"] > intervals[which].loc[j, "elo_high"])

    overtakes: dict[str, list[str]] = {}
    for i in names:
        for j in names:
            if i != j and ahead(0, j, i) and ahead(1, i, j):
                overtakes.setdefault(i, []).append(j)
    overtakes = dict(sorted(overtakes.items(), key=lambda kv: frame.loc[kv[0], "rank_best"]))
    moved = [n for n in names if frame.loc[n, "rank"] != frame.loc[n, "rank_best"]
             and n not in overtakes and not any(n in js for js in overtakes.values())]

    def state(share: float) -> str:
        return "yes" if share >= SURE else "no" if share <= 1 - SURE else "unsure"

    was = frame["dominated"].map(state)
    now = frame["dominated_best"].map(state)
    dominated_in = {key: list(frame.index[mask]) for key, mask in (
        ("given", (was == "yes") & (now == "no")), ("best", (was == "no") & (now == "yes")),
        ("both", (was == "yes") & (now == "yes")))}
    unsure = list(frame.index[(was == "unsure") | (now == "unsure")])
    z = stats.z_value(0.95)
    (score, fights), (score_best, fights_best) = score_matrix(default), score_matrix(best)

    def side(s: Any, n: Any, a: str, b: str) -> int:  # +1 / -1 beyond the interval, else 0
        value, count = float(s.loc[a, b]), float(n.loc[a, b])
        exact = bool(((default if s is score else best)["n"] == 0).all())
        half = 0.0 if exact else z * math.sqrt(max(value * (1 - value), 0.0) / max(count, 1.0))
        return 1 if value - half > 0.5 else -1 if value + half < 0.5 else 0

    flips, near = [], []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            before, after = side(score, fights, a, b), side(score_best, fights_best, a, b)
            item = (a, b, float(score.loc[a, b]), float(score_best.loc[a, b]))
            if before * after < 0:
                flips.append(item)
            elif (item[2] - 0.5) * (item[3] - 0.5) < 0:
                near.append(item)
    return VerdictChanges(
        frame=frame, top=str(frame["rank"].idxmin()), top_best=str(frame["rank_best"].idxmin()),
        overtakes=overtakes, moved=moved, dominated=dominated_in, unsure=unsure,
        support=list(frame.index[frame["metagame"] > 0.01]),
        support_best=list(frame.index[frame["metagame_best"] > 0.01]), flips=flips, near=near,
        exact=bool((default["n"] == 0).all() and (best["n"] == 0).all()))


def compare_verdicts(default: Any, best: Any, *, resamples: int = 200,
                     seed: int = 0) -> tuple[Any, list[str]]:
    """The verdicts of a round robin with the policies as given and under best play, side
    by side, and the sentences saying which change (:func:`verdict_changes`).

    Returns
    -------
    table, sentences
        :attr:`VerdictChanges.frame` and :meth:`VerdictChanges.sentences`.
    """
    found = verdict_changes(default, best, resamples=resamples, seed=seed)
    return found.frame, found.sentences()
