"""How long a run would take, said before it starts; the cap above which it needs a yes;
progress with time left while it runs.

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
from statistics import NormalDist
from typing import IO, Any

from .errors import SpecError

__all__ = ["ESTIMATE_ABOVE", "MAX_SECONDS", "Estimate", "PlainBar", "check", "duration", "estimate",
           "fights_needed", "pilot_rate", "progress_bar"]

MAX_SECONDS = 3600.0
"""Runs estimated to take longer than this (one hour) need ``--yes`` (``max_seconds=None``)."""
ESTIMATE_ABOVE = 2_000_000
"""Fights up to which a run is not estimated (about 40 s at the slowest built-in kernel)."""
PILOT_SECONDS = 0.25
"""The pilot grows until one kernel call takes this long (or reaches the chunk size)."""
PLAIN_EVERY_S = 10.0
"""Without tqdm, a progress line every this many seconds."""


def fights_needed(precision: float, confidence: float = 0.95) -> int:
    """Fights after which every rate's interval half-width is at most ``precision`` whatever
    the rates are (the worst case, a rate of one half): ``z^2 / (4 h^2)``."""
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    if not precision > 1e-12:  # so tiny that it needs more fights than any cap allows
        return 10**30
    return math.ceil((z / (2 * precision)) ** 2)


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


class PlainBar:
    """Progress without tqdm: a line on ``stream`` every :data:`PLAIN_EVERY_S` seconds with
    the share done, the rate and the time left (the part of tqdm's interface the runner
    uses)."""

    def __init__(self, stream: IO[str], *, total: int | None, initial: int = 0,
                 unit: str = "fight", desc: str = "") -> None:
        self.stream, self.total, self.unit, self.desc = stream, total, unit, desc
        self.n = self.first = initial
        self.start = self.last = time.perf_counter()
        self.postfix = ""

    def set_postfix_str(self, text: str, refresh: bool = False) -> None:
        self.postfix = text

    def update(self, n: int) -> None:
        self.n += n
        now = time.perf_counter()
        if now - self.last >= PLAIN_EVERY_S:
            self.last = now
            self.stream.write(self.line(now) + "\n")
            self.stream.flush()

    def line(self, now: float | None = None) -> str:
        elapsed = (now or time.perf_counter()) - self.start
        rate = (self.n - self.first) / elapsed if elapsed > 0 else 0.0
        parts = [f"{self.n:,}" + (f" of {self.total:,}" if self.total else "") + f" {self.unit}s"]
        if self.total:
            parts[0] += f" ({self.n / self.total:.0%})"
        if rate > 0:
            parts.append(f"{rate:,.0f} {self.unit}s/s")
            if self.total:
                parts.append(f"about {duration(max(0, self.total - self.n) / rate)} left")
        if self.postfix:
            parts.append(self.postfix)
        return f"{self.desc}: " + ", ".join(parts)

    def close(self) -> None:
        pass


def progress_bar(stream: IO[str], *, total: int | None, initial: int = 0,
                 unit: str = "fight", desc: str = "") -> Any:
    """A tqdm bar on ``stream`` (the optional extra ``progress``), else a :class:`PlainBar`."""
    try:
        from tqdm import tqdm
    except ImportError:
        return PlainBar(stream, total=total, initial=initial, unit=unit, desc=desc)
    return tqdm(total=total, initial=initial, unit=unit, unit_scale=True, desc=desc,
                file=stream, dynamic_ncols=True, smoothing=0.05)
