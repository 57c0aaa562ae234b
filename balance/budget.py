"""How much a run would cost, said before it starts, and the caps above which it needs a yes
(progress with time left while it runs is :mod:`balance.progress`).

Every command that can run long or allocate much (``balance duel``, ``matchups`` with its
``--resamples`` and ``--workers``, ``tune``, ``bench --memory``, a sweep, the explorer's
matchup matrix) is costed here before any work starts:

* **Time** rests on **CPU time**, never on the wall clock: a short **pilot** of kernel calls
  on a stream of its own (``key=("pilot",)``, never part of any result), growing until one
  takes :data:`PILOT_SECONDS` of this process's CPU time (:data:`cpu_clock`) or reaches the
  run's chunk size.  CPU seconds a fight hardly move with the machine's load (a busy
  machine gives this process fewer of them, not more expensive ones), so the same command
  is refused or accepted whatever else runs.  The rate, the work and the cores the workers
  can use give the estimate.  Runs of at most :data:`ESTIMATE_ABOVE` fights are not
  piloted: at the slowest built-in kernel's rate they take well under the cap.
* **Memory** is what a kernel call holds (the peak NumPy allocates for
  :data:`PROBE_LANES` fights, traced by :mod:`tracemalloc`: it does not depend on load at
  all, times the lanes of one call and the calls at once), plus what a command keeps (a
  tuning's cached outcomes, a bootstrap's replicates).  Kernel calls of at most
  :data:`PROBE_ABOVE` fights are not probed.

Over :data:`MAX_SECONDS` (one hour) or :data:`MAX_BYTES` (half of this machine's memory) a
command refuses in one line naming the flag, the estimate and the cap, exit status 2,
nothing written, unless ``--yes`` is given: a typo such as ``-n 10000000000000`` costs a
second, not a night or a MemoryError.  Worker counts have one cap, :data:`MAX_WORKERS`,
checked by :func:`check_workers` everywhere.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import SpecError

__all__ = ["ESTIMATE_ABOVE", "MAX_BYTES", "MAX_SECONDS", "MAX_WORKERS", "Estimate", "check",
           "check_all", "check_workers", "cores", "cpu_clock", "duration", "estimate",
           "fights_needed", "kernel_bytes", "pilot_rate", "resample_estimate", "round_robin",
           "size"]

MAX_SECONDS = 3600.0
"""Runs estimated to take longer than this (one hour) need ``--yes`` (``max_seconds=None``)."""
ESTIMATE_ABOVE = 2_000_000
"""Fights up to which a run is not piloted (about 40 s at the slowest built-in kernel)."""
PILOT_SECONDS = 0.25
"""The pilot grows until one kernel call takes this much CPU time (or reaches the chunk)."""
PROBE_ABOVE = 1 << 18
"""Fights a kernel call up to which its memory is not probed (tens of MB at most)."""
PROBE_LANES = 1 << 16
"""Fights of the kernel call whose peak memory is traced (its bytes a fight, scaled)."""
MAX_WORKERS = 256
"""Most worker processes of any command (``--workers``, a sweep's executor)."""
RESAMPLES_ABOVE = 20_000
"""Bootstrap replicates times entrants up to which the replicates are not piloted."""
REPORT_BYTES = 1 << 30
"""Memory at or above which an estimate mentions it even under the cap."""


def _half_of_memory() -> int:
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a modest machine
        total = 8 << 30
    return max(1 << 30, total // 2)


MAX_BYTES = _half_of_memory()
"""Runs estimated to need more memory than this (half of this machine's) need ``--yes``."""

cpu_clock: Callable[[], float] = time.process_time
"""The clock pilots are timed by: this process's CPU seconds (tests inject a fake one)."""


def cores() -> int:
    """The cores this process may run on (its affinity, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: Any, name: str = "workers") -> int:
    """``workers`` if it is a whole number 1..:data:`MAX_WORKERS`, else a :class:`SpecError`."""
    if isinstance(workers, bool) or not isinstance(workers, int) \
            or not 1 <= workers <= MAX_WORKERS:
        raise SpecError(f"{name} must be a whole number 1..{MAX_WORKERS}, got {workers!r}")
    return workers


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
    """Fights per CPU second of one core on this matchup, from kernel calls of growing size
    on a stream of their own (``key=("pilot",)``: no run ever uses it), timed by
    :data:`cpu_clock`."""
    from .engine import run_chunk

    size = min(4096, chunk_size)
    while True:
        start = cpu_clock()
        run_chunk(ruleset, rules, side_a, side_b, size=size, entropy=0, key=("pilot",))
        elapsed = cpu_clock() - start
        if elapsed >= PILOT_SECONDS or size >= chunk_size:
            return size / max(elapsed, 1e-9)
        size = min(chunk_size, size * 4)


def kernel_bytes(ruleset: Any, rules: Any, side_a: Any, side_b: Any) -> float:
    """Bytes a fight of one kernel call holds at its peak: the peak :mod:`tracemalloc` sees
    over a call of :data:`PROBE_LANES` fights, divided by them (the call's fixed part
    spread over its fights: a little over the true share for larger calls)."""
    import tracemalloc

    from .engine import run_chunk

    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        run_chunk(ruleset, rules, side_a, side_b, size=PROBE_LANES, entropy=0,
                  key=("pilot",))
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        if not tracing:
            tracemalloc.stop()
    return max(peak, 0) / PROBE_LANES


@dataclass(frozen=True)
class Estimate:
    """The work of a run, how long it should take and the memory it needs."""

    fights: int
    """Units of work: fights, or bootstrap replicates (``unit``)."""
    rate: float | None
    """Units a CPU second of one worker (from a pilot); ``None``: not timed (too little)."""
    workers: int = 1
    memory: float = 0.0
    """Bytes held at the peak."""
    unit: str = "fights"
    at_least: bool = False
    """The work is a lower bound (a search that may need more)."""

    @property
    def parallel(self) -> int:
        """Workers that run at once: no more than the cores."""
        return max(1, min(self.workers, cores()))

    @property
    def seconds(self) -> float:
        return 0.0 if self.rate is None else self.fights / (self.rate * self.parallel)

    def describe(self, *, memory: bool = False) -> str:
        """The estimate in words (``memory``: say the memory even when it is small)."""
        about = "at least" if self.at_least else "about"
        parts = []
        if self.rate is not None:
            on = ("one core" if self.parallel == 1 else f"{self.parallel} cores"
                  if self.workers == self.parallel else
                  f"{self.workers} workers on {self.parallel} cores")
            parts.append(f"{self.fights:,} {self.unit} would take {about} "
                         f"{duration(self.seconds)} (a pilot ran {self.rate:,.0f} "
                         f"{self.unit} per CPU second; {on})")
        if memory or self.memory >= REPORT_BYTES or self.rate is None:
            lead = "" if parts else f"{self.fights:,} {self.unit} would "
            parts.append(f"{lead}need {about} {size(self.memory)} of memory")
        return " and ".join(parts)


def estimate(ruleset: Any, rules: Any, side_a: Any, side_b: Any, *, fights: int,
             chunk_size: int, workers: int = 1, at_least: bool = False,
             held_bytes: float = 0.0) -> Estimate | None:
    """The :class:`Estimate` of ``fights`` fights of this matchup in kernel calls of
    ``chunk_size`` fights, ``workers`` calls at once, plus ``held_bytes`` the command keeps;
    ``None`` when it is too small to be worth a pilot or a probe."""
    lanes = min(chunk_size, fights)
    if fights <= ESTIMATE_ABOVE and lanes <= PROBE_ABOVE and held_bytes < REPORT_BYTES:
        return None
    workers = max(1, workers)
    rate = (pilot_rate(ruleset, rules, side_a, side_b, chunk_size=chunk_size)
            if fights > ESTIMATE_ABOVE else None)
    memory = held_bytes
    if lanes > PROBE_ABOVE:
        memory += kernel_bytes(ruleset, rules, side_a, side_b) * lanes * min(workers, cores())
    return Estimate(fights, rate, workers, memory, at_least=at_least)


def round_robin(ruleset: Any, entrants: Mapping[str, Any], rules: Any, *, per_pair: int,
                chunk_size: int, workers: int = 1, at_least: bool = False
                ) -> Estimate | None:
    """:func:`estimate` of a round robin of ``entrants`` (name -> side), every ordered pair
    (mirrors too) at ``per_pair`` fights, piloted on the first entrant's mirror match."""
    from .api import matchup

    first = next(iter(entrants.values()))
    rs, rules_obj, side_a, side_b = matchup(ruleset, first, first, rules)
    return estimate(rs, rules_obj, side_a, side_b, fights=per_pair * len(entrants) ** 2,
                    chunk_size=chunk_size, workers=workers, at_least=at_least)


def resample_estimate(entrants: int, resamples: int, *, passes: int = 3) -> Estimate:
    """The bootstrap of a round robin's analyses: ``resamples`` replicates of the metagame
    and of dominance (a linear program each, and one per entrant) over ``entrants``,
    ``passes`` times (the command's table, its verdict, its printout).  Memory: the
    replicates' weights; time: a CPU-timed pilot on a synthetic table of that size, when
    ``resamples x entrants`` exceeds :data:`RESAMPLES_ABOVE`."""
    memory = 8.0 * resamples * entrants
    if resamples * entrants <= RESAMPLES_ABOVE:
        return Estimate(resamples, None, memory=memory, unit="replicates")
    rate = _replicate_rate(entrants) / passes  # a replicate of every pass
    return Estimate(resamples, rate, memory=memory, unit="replicates")


def _replicate_rate(entrants: int) -> float:
    """Bootstrap replicates (metagame and dominance) per CPU second on a synthetic round
    robin of ``entrants`` (seeded counts), growing until one batch takes
    :data:`PILOT_SECONDS` / 5 of CPU time."""
    import numpy as np
    import pandas as pd

    from .analysis.equilibria import dominated, metagame

    rng = np.random.default_rng(0)
    names = [f"e{i}" for i in range(entrants)]
    n = 1000
    a_wins = rng.integers(100, 900, size=entrants * entrants)
    draws = rng.integers(0, 1000 - a_wins)
    table = pd.DataFrame({"a": np.repeat(names, entrants), "b": names * entrants, "n": n,
                          "a_wins": a_wins, "draws": draws, "b_wins": n - a_wins - draws})
    metagame(table, resamples=1, seed=0)  # warm: the solver's imports are not the rate
    dominated(table, resamples=1, seed=1)
    batch = 1
    while True:
        start = cpu_clock()
        metagame(table, resamples=batch, seed=0)
        dominated(table, resamples=batch, seed=1)
        elapsed = cpu_clock() - start
        if elapsed >= PILOT_SECONDS / 5 or batch >= 64:
            return batch / max(elapsed, 1e-9)
        batch *= 4


def check(found: Estimate | None, what: str, max_seconds: float | None = MAX_SECONDS,
          max_bytes: float | None = None) -> None:
    """Refuse (a :class:`SpecError`) a run whose estimate is over ``max_seconds`` or
    ``max_bytes`` (default :data:`MAX_BYTES`); ``max_seconds=None`` (``--yes``) lifts both."""
    check_all([(what, found)], max_seconds, max_bytes)


def check_all(parts: Sequence[tuple[str, Estimate | None]],
              max_seconds: float | None = MAX_SECONDS, max_bytes: float | None = None
              ) -> None:
    """:func:`check` of the parts of one command, run one after the other: their times add
    up, their memory does not (the largest counts).  Each part is ``(the flag, its
    estimate)``; the refusal names every part that was estimated."""
    if max_seconds is None:
        return
    cap_bytes = MAX_BYTES if max_bytes is None else max_bytes
    given = [(what, found) for what, found in parts if found is not None]
    seconds = sum(found.seconds for _, found in given)
    memory = max((found.memory for _, found in given), default=0.0)
    over = ([duration(max_seconds)] if seconds > max_seconds else []) + (
        [f"{size(cap_bytes)} of memory"] if memory > cap_bytes else [])
    if not over:
        return
    said = "; ".join(f"{what}: {found.describe(memory=memory > cap_bytes)}"
                     for what, found in given)
    raise SpecError(f"{said}; runs estimated over {' or '.join(over)} need --yes (check "
                    "the numbers, or pass --yes to run it)")


def duration(seconds: float) -> str:
    """A duration in words: ``"40 s"``, ``"12 min"``, ``"1 h"``, ``"3.5 h"``,
    ``"2.4 days"``, ``"317 years"``."""

    if not math.isfinite(seconds):
        return "forever"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return _short(seconds / 3600, "h")
    if seconds < 730 * 86400:
        return _short(seconds / 86400, "days")
    return _short(seconds / (365.25 * 86400), "years")


def size(n_bytes: float) -> str:
    """A memory size in words: ``"512 KB"``, ``"1.5 GB"``, ``"146 TB"`` (powers of 1024)."""
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if n_bytes < 1024 or unit == "TB":
            return _short(n_bytes, unit) if unit != "bytes" else f"{n_bytes:.0f} bytes"
        n_bytes /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def _short(value: float, unit: str) -> str:
    text = f"{value:,.1f}".removesuffix(".0") if value < 100 else f"{value:,.0f}"
    return f"{text} {unit}"
