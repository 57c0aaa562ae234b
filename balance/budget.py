"""How long a run would take, said before it starts, and the cap above which it needs a yes
(progress with time left while it runs is :mod:`balance.progress`).

A run of many fights (``balance duel``, ``balance matchups``, a sweep) is first timed on a
short **pilot**: kernel calls on a stream of their own, growing until they take
:data:`PILOT_SECONDS` or reach the run's chunk size, never part of any result.  The rate
they show, the work left and the workers give an estimate.  Above :data:`MAX_SECONDS` (one
hour) the command line refuses to start unless ``--yes`` is given, so a typo such as
``-n 10000000000000`` costs a second, not a night.  Runs of at most
:data:`ESTIMATE_ABOVE` fights start at once: at the slowest kernel's rate they take
well under the cap.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from .errors import SpecError

__all__ = ["ESTIMATE_ABOVE", "MAX_SECONDS", "Estimate", "check", "duration", "estimate",
           "fights_needed", "pilot_rate"]

MAX_SECONDS = 3600.0
"""Runs estimated to take longer than this (one hour) need ``--yes`` (``max_seconds=None``)."""
ESTIMATE_ABOVE = 2_000_000
"""Fights up to which a run is not estimated (about 40 s at the slowest built-in kernel)."""
PILOT_SECONDS = 0.25
"""The pilot grows until one kernel call takes this long (or reaches the chunk size)."""


def fights_needed(precision: float, confidence: float = 0.95) -> int:
    """Fights after which every rate's interval half-width is at most ``precision`` whatever
    the rates are (the worst case, a rate of one half): ``z^2 / (4 h^2)``."""
    from .stats import z_value  # numpy: only where a precision is asked for

    z = z_value(confidence)
    if not precision > 1e-12:  # so tiny that it needs more fights than any cap allows
        return 10**30
    return math.ceil((z / (2 * precision)) ** 2)


def smallest_precision(fights: int, confidence: float = 0.95) -> float:
    """The smallest half-width :func:`fights_needed` reaches within ``fights`` fights."""
    from .stats import z_value

    return math.nextafter(z_value(confidence) / (2 * math.sqrt(fights)), math.inf)


def pilot_rate(ruleset: Any, rules: Any, side_a: Any, side_b: Any, *,
               chunk_size: int) -> float:
    """Fights per second of one core on this matchup, from kernel calls of growing size on
    a stream of their own (``key=("pilot",)``: no run ever uses it)."""
    from .engine import run_chunk

    size = min(4096, chunk_size)
    while True:
        start = time.perf_counter()
        run_chunk(ruleset, rules, side_a, side_b, size=size, entropy=0, key=("pilot",))
        elapsed = time.perf_counter() - start
        if elapsed >= PILOT_SECONDS or size >= chunk_size:
            return size / max(elapsed, 1e-9)
        size = min(chunk_size, size * 4)


@dataclass(frozen=True)
class Estimate:
    """The work of a run and how long it should take."""

    fights: int
    rate: float
    """Fights per second of one worker (from the pilot)."""
    workers: int = 1

    @property
    def seconds(self) -> float:
        return self.fights / (self.rate * self.workers)

    def describe(self) -> str:
        on = f" on each of {self.workers} workers" if self.workers > 1 else " on one core"
        return (f"{self.fights:,} fights would take about {duration(self.seconds)} "
                f"(a pilot ran {self.rate:,.0f} fights/s{on})")


def estimate(ruleset: Any, rules: Any, side_a: Any, side_b: Any, *, fights: int,
             chunk_size: int, workers: int = 1) -> Estimate | None:
    """The :class:`Estimate` of ``fights`` fights of this matchup, or ``None`` when there
    are too few to be worth a pilot (:data:`ESTIMATE_ABOVE`)."""
    if fights <= ESTIMATE_ABOVE:
        return None
    rate = pilot_rate(ruleset, rules, side_a, side_b, chunk_size=chunk_size)
    return Estimate(fights, rate, max(1, workers))


def check(found: Estimate | None, what: str, max_seconds: float | None = MAX_SECONDS) -> None:
    """Refuse (a :class:`SpecError`) a run whose estimate is over ``max_seconds``."""
    if found is None or max_seconds is None or found.seconds <= max_seconds:
        return
    raise SpecError(f"{what}: {found.describe()}; runs estimated over "
                    f"{duration(max_seconds)} need --yes (check the number of fights, or "
                    "pass --yes to run it)")


def duration(seconds: float) -> str:
    """A duration in words: ``"40 s"``, ``"12 min"``, ``"1 h"``, ``"3.5 h"``,
    ``"2.4 days"``, ``"317 years"``."""

    def short(value: float, unit: str) -> str:
        text = f"{value:,.1f}".removesuffix(".0") if value < 100 else f"{value:,.0f}"
        return f"{text} {unit}"

    if not math.isfinite(seconds):
        return "forever"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return short(seconds / 3600, "h")
    if seconds < 730 * 86400:
        return short(seconds / 86400, "days")
    return short(seconds / (365.25 * 86400), "years")
