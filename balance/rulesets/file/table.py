"""A round tabulated over its dice: the kernel's fast path for a round that reads no state.

Where nothing a round works out (choices, rolls, lets, outcomes, damage, effects, modifiers)
reads a ``[state]`` value or the round number, what the round does to a fight depends on
its dice alone.  Number every way the round's dice can fall -- each dice term of each
fighter a digit, its ordered outcomes (``sides ** count``) the digit's radix, in the order
the engine rolls them -- and the round is a table: for each code, what every state value
gains before each check of ``out``.  The table is made by playing the engine's own round
(:class:`~.engine.Engine`) once over every code, each die read from its digit
(:class:`_CodeDice`), so it holds what the kernel would do, not a second reading of the
rules.

When the codes number at most :data:`MAX_CODES`, a round of the kernel is then one 16-bit
word a fight (:func:`balance.dice.codes_from_bits`: exactly uniform over the codes, so each
die exactly uniform and independent, as drawn one by one), a lookup and an addition per
state value, the clip to its range, and ``out``: what the built-in crt kernel does for its
plain duel, found here for any file whose round qualifies.

The gains of one step are summed and clipped once; that equals the engine's clip after
each change where every change of a ranged value in the step has one sign (the table
checks; a set effect, or changes of both signs, leaves the round to the general kernel).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dice import WordDice, expand, sum_table
from ...language import UnknownRead
from .batch import Batch, constant_column
from .engine import Engine
from .schema import System

__all__ = ["MAX_CODES", "RoundTable", "Step", "round_table", "why_not"]

MAX_CODES = 1 << 16
"""Most dice outcomes of a round a table holds: one 16-bit word draws a round."""
MAX_CACHED = 64
"""Tables kept an engine (a matchup's table is made once and reused by later batches)."""


class Untabulable(Exception):
    """The round cannot be tabulated (the message says why)."""


@dataclass(frozen=True)
class Step:
    """What each state value gains before one check of ``out``: per name, A's and B's gains
    (shape ``(2, limit)``, tiled over :func:`~balance.dice.codes`' words), and whether any
    gain is below or above zero (only then the clip to the range's low or high end)."""

    gains: tuple[tuple[str, np.ndarray, bool, bool], ...]


@dataclass(frozen=True)
class RoundTable:
    """A round of one matchup as a table (see the module docstring)."""

    codes: int  # the ways the round's dice fall
    steps: tuple[Step, ...]
    dtype: Any  # of the state values the kernel keeps
    names: tuple[str, ...]  # the state values a round changes


def why_not(system: System) -> str | None:
    """Why a system's round cannot be tabulated whatever the matchup, or ``None`` (whether
    the round reads a state value is found when the table is made: a policy for another
    setting may read one that this matchup's round never does)."""
    if system.order.kind != "simultaneous":
        return "a sequential round (who moves is part of the round)"
    if any(s.reset != "never" for s in system.state):
        return "a state value reset each round or turn"
    end = [e for e in (system.end.out, system.end.draw_when) if e is not None]
    fixed = ({s.name for s in system.fighter} | {d.name for d in system.derived}
             | {s.name for s in system.state})
    for expression in end:
        if expression.has_dice:
            return f"{expression.text!r} rolls dice"
        for name in expression.names_used:
            _, dot, field = name.partition(".")
            if dot and field not in fixed:
                return f"{expression.text!r} reads {name}, worked out in the round"
    return None


def round_table(engine: Engine, fixed: Mapping[str, np.ndarray], rules: Mapping[str, Any],
                max_rounds: int) -> RoundTable | None:
    """The table of ``engine``'s round for this matchup (its fixed values and rule
    parameters), or ``None`` where the round cannot be tabulated; made once a matchup."""
    cache: dict[Any, RoundTable | None] = engine.__dict__.setdefault("_tables", {})
    key = (tuple((k, tuple(v.tolist())) for k, v in sorted(fixed.items())),
           tuple(sorted(rules.items())), max_rounds)
    if key not in cache:
        if len(cache) >= MAX_CACHED:
            cache.clear()
        cache[key] = _tabulate(engine, fixed, rules, max_rounds)
    return cache[key]


def _tabulate(engine: Engine, fixed: Mapping[str, np.ndarray], rules: Mapping[str, Any],
              max_rounds: int) -> RoundTable | None:
    if why_not(engine.system) is not None:
        return None
    try:
        probe = _CodeDice(1)
        _play(engine, fixed, rules, probe)  # one row: which dice, in which order
        dice = _CodeDice(probe.radix, probe.calls)
        steps = _play(engine, fixed, rules, dice)
        dice.finished()
    except Untabulable:
        return None
    return _table(engine, probe.radix, steps, max_rounds)


def _table(engine: Engine, codes: int,
           steps: list[dict[str, np.ndarray]], max_rounds: int) -> RoundTable:
    """The steps' gains in the narrowest integer type the state values need."""
    names = tuple(sorted({k for step in steps for k, v in step.items() if v.any()}))
    dtype = _dtype(engine, names, steps, max_rounds)
    made = []
    for step in steps:
        gains = []
        for name in names:
            gain = step[name]
            if not gain.any():  # this step leaves it alone
                continue
            tiled = np.stack([expand(gain[0], codes), expand(gain[1], codes)]).astype(dtype)
            gains.append((name, tiled, bool((gain < 0).any()), bool((gain > 0).any())))
        made.append(Step(tuple(gains)))
    return RoundTable(codes, tuple(made), dtype, names)


def _dtype(engine: Engine, names: tuple[str, ...], steps: list[dict[str, np.ndarray]],
           max_rounds: int) -> Any:
    """int16 or int32 if every value a changed state can reach fits (its range and the most
    a step adds before the clip, or, unranged, its start moved by the most a round can add,
    every round), else int64."""
    low = high = 0
    for name in names:
        most = [int(np.abs(step[name]).max()) for step in steps]
        bounds = engine.ranges.get(name)
        if bounds is not None:
            low, high = min(low, bounds[0] - max(most)), max(high, bounds[1] + max(most))
            continue
        start = engine.system.state[[s.name for s in engine.system.state].index(name)].start
        span = start.range if start.range is not None else (None, None)
        if span[0] is None or span[1] is None:
            return np.int64
        reach = max_rounds * sum(most)
        low, high = min(low, span[0] - reach), max(high, span[1] + reach)
    for dtype in (np.int16, np.int32):
        if np.iinfo(dtype).min <= low and high <= np.iinfo(dtype).max:
            return dtype
    return np.int64


# --- playing the engine's round over every code ---------------------------------------------
class _CodeDice(WordDice):
    """Dice read from each row's round code: each call rolls one digit per fighter (the
    calls' order is the engine's, the same every time).  With ``calls`` (the probe's), the
    rows are the codes ``0 .. codes - 1`` and the dice must be rolled as the probe saw."""

    def __init__(self, codes: int, calls: list[tuple[int, int, int]] | None = None) -> None:
        self.m = codes
        self.code = None if calls is None else np.arange(codes)
        self.expected = calls
        self.calls: list[tuple[int, int, int]] = []
        self.radix = 1

    def nd(self, n: int, sides: int, size: int) -> np.ndarray:
        fighters, rest = divmod(size, self.m)
        if rest or fighters not in (1, 2) or sides**n > MAX_CODES:
            raise Untabulable("dice not rolled once a fighter")
        self.calls.append((n, sides, fighters))
        if self.expected is not None and self.calls != self.expected[:len(self.calls)]:
            raise Untabulable("the dice rolled depend on the dice")
        values = []
        for _ in range(fighters):
            radix = sides**n
            digit = (np.zeros(self.m, np.int64) if self.code is None
                     else (self.code // self.radix) % radix)
            self.radix *= radix
            if self.radix > MAX_CODES:
                raise Untabulable(f"more than {MAX_CODES} ways the round's dice fall")
            values.append(sum_table(n, sides)[digit])
        return np.concatenate(values) if fighters == 2 else values[0]

    def finished(self) -> None:
        if self.calls != self.expected:
            raise Untabulable("the dice rolled depend on the dice")

    def __getattr__(self, name: str) -> Any:  # a pool's dice (rng.integers), a coin, ...
        if name.startswith("__"):
            raise AttributeError(name)
        raise Untabulable(f"dice drawn by {name}")


class _Backend:
    """The kernel's way of settling dice (every expression over every row), its dice read
    from the round code.  Each fighter's rows are worked out apart, so its own fixed values
    are numbers and settle what they can (``self.divert == 'below_health' and ...`` for a
    fighter that never diverts); the state values and the round number are unknown, so an
    expression that still needs one is a round that reads the state."""

    weighted = False

    def __init__(self, dice: _CodeDice, state: frozenset[str]) -> None:
        self.dice = dice
        self.state = state

    def evaluate(self, expression: Any, batch: Batch, view: Any,
                 mask: np.ndarray | None = None) -> np.ndarray:
        n = view.size(batch.m)
        if expression.constant is not None:
            return constant_column(expression, n)
        sides = (0, 1) if view.kind == "both" else (0,)
        return np.concatenate([self._side(expression, batch, side) for side in sides])

    def _side(self, expression: Any, batch: Batch, side: int) -> np.ndarray:
        """``expression`` for fighter ``side``'s rows (0: A against B, 1: B against A)."""
        unknown = frozenset(k for k in expression.names_used
                            if k == "round" or k.partition(".")[2] in self.state)
        env = {k: _side_value(batch, k, side) for k in expression.names_used
               if k not in unknown}
        try:
            return expression.evaluate(env, self.dice, n=batch.m, unknown=unknown)
        except UnknownRead as exc:
            raise Untabulable(f"the round {exc}") from None

    def coin(self, batch: Batch, mask: np.ndarray) -> np.ndarray:
        raise Untabulable("a coin")


def _side_value(batch: Batch, name: str, side: int) -> Any:
    """The value of ``name`` with fighter ``side`` as ``self``: a number for a fixed value,
    else that fighter's (or its foe's) rows."""
    role, dot, field = name.partition(".")
    if not dot:
        return batch.scalars[name] if name in batch.scalars else batch.rules[name]
    who = side if role == "self" else 1 - side
    if field in batch.fixed:
        return batch.fixed[field][who].item()
    return batch.state[field][who]


class _Recorder(Engine):
    """The engine with nothing clipped and ``out`` never checked: each check instead notes
    what every state value gained since the last."""

    def __init__(self, engine: Engine) -> None:
        self.__dict__.update(engine.__dict__)
        self.clipped = dict(engine.ranges)
        self.ranges = {}
        self.steps: list[dict[str, np.ndarray]] = []
        self.last: dict[str, np.ndarray] = {}
        self.signs: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def check_out(self, batch: Batch, backend: Any) -> None:
        now = {name: grid.copy() for name, grid in batch.state.items() if name in self.last}
        self.steps.append({name: now[name] - self.last[name] for name in now})
        self.last = now
        self.signs = {}

    def change(self, batch: Batch, view: Any, name: str, who: str, values: np.ndarray,
               mask: np.ndarray | None, op: str) -> None:
        if op != "add":
            raise Untabulable("a value set in the round")
        before = batch.state[name]
        super().change(batch, view, name, who, values, mask, op)
        if name in self.clipped:  # one sign a step, so one clip a step is the same
            gained = batch.state[name] - before
            down, up = self.signs.get(name, (np.zeros(gained.shape, bool),) * 2)
            down, up = down | (gained < 0), up | (gained > 0)
            if (down & up).any():
                raise Untabulable(f"{name} both raised and lowered in one step")
            self.signs[name] = (down, up)


def _play(engine: Engine, fixed: Mapping[str, np.ndarray], rules: Mapping[str, Any],
          dice: _CodeDice) -> list[dict[str, np.ndarray]]:
    """The gains of every step of one round, for each of ``dice``'s rows."""
    recorder = _Recorder(engine)
    batch = Batch(dice.m, fixed, rules, engine.system.names)
    batch.fight["live"] = np.ones(dice.m, bool)
    for var in engine.system.state:
        if var.kind != "bool":
            batch.state[var.name] = np.zeros((2, dice.m), np.int64)
    recorder.last = {name: grid.copy() for name, grid in batch.state.items()}
    state = frozenset(var.name for var in engine.system.state)
    recorder.play_both(batch, _Backend(dice, state))
    return recorder.steps

