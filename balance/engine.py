"""Run a ruleset's kernel over many fights, in chunks, each chunk on its own stream.

The numbers chunk ``i`` of a run sees come from ``stream(entropy, *key, i)``, so a run is a
pure function of (ruleset, rules, sides, entropy, key, chunk size, number of fights): the
same on any machine, in any process, whatever else runs beside it.  Memory is bounded by the
chunk size: only one chunk's arrays exist at a time, and a chunk is folded into an additive
:class:`~balance.results.Tally` as soon as it is done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from . import stats
from .batching import Segment, SegmentedRng, pack
from .errors import SpecError
from .outcomes import Outcomes
from .results import Tally
from .rulesets.base import Ruleset, Side

__all__ = ["DEFAULT_CHUNK_SIZE", "MAX_FIGHTS", "batches", "chunk_sizes", "run", "run_chunk",
           "run_segments", "simulate_segments"]

DEFAULT_CHUNK_SIZE = 1 << 18
"""Fights per chunk: large enough to amortise NumPy's per-call overhead, small enough that
a chunk's arrays stay well inside the L2/L3 working set and memory stays bounded."""

MAX_FIGHTS = 1_000_000_000
"""Upper bound on a precision-targeted run when no ``n`` is given."""


def check_count(name: str, value: int | None, *, low: int = 1) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise SpecError(f"{name} must be an integer >= {low}, got {value!r}")


def chunk_sizes(n: int, chunk_size: int) -> Iterator[int]:
    """Sizes of the chunks that make up ``n`` fights: full chunks, then the remainder."""
    full, rest = divmod(n, chunk_size)
    yield from (chunk_size for _ in range(full))
    if rest:
        yield rest


def run_chunk(ruleset: Ruleset, rules: Any, side_a: Side, side_b: Side, *, size: int,
              entropy: int, key: tuple[Any, ...] = (), index: int = 0) -> Tally:
    """Simulate chunk ``index`` of a run: ``size`` fights on ``stream(entropy, *key, index)``."""
    segment = Segment(rules, tuple(side_a), tuple(side_b), size, tuple(key), index)
    return run_segments(ruleset, [segment], entropy=entropy)[0]


def batches(ruleset: Ruleset) -> bool:
    """Whether ``ruleset``'s kernel runs many segments in one call (it overrides
    :meth:`~balance.rulesets.base.Ruleset.simulate_segments`): only then is it worth
    sending many small chunks as one task."""
    return type(ruleset).simulate_segments is not Ruleset.simulate_segments


def run_segments(ruleset: Ruleset, segments: Sequence[Segment], *, entropy: int,
                 batch_fights: int = DEFAULT_CHUNK_SIZE) -> list[Tally]:
    """The tally of each segment, the segments packed into kernel calls of at most
    ``batch_fights`` fights (:func:`balance.batching.pack`, grouped by the ruleset's
    ``batch_key``).  A segment's tally is the one it has alone, whatever it is packed with."""
    tallies: list[Tally | None] = [None] * len(segments)
    for members, outcomes in _packed(ruleset, segments, entropy, batch_fights):
        for i, out in zip(members, outcomes, strict=True):
            tallies[i] = Tally.from_outcomes(out)
    return [t for t in tallies if t is not None]


def simulate_segments(ruleset: Ruleset, segments: Sequence[Segment], *, entropy: int,
                      batch_fights: int = DEFAULT_CHUNK_SIZE) -> list[Outcomes]:
    """As :func:`run_segments`, each segment's fights themselves (for callers that read
    fight by fight, such as best play's paired screening fights)."""
    found: list[Outcomes | None] = [None] * len(segments)
    for members, outcomes in _packed(ruleset, segments, entropy, batch_fights):
        for i, out in zip(members, outcomes, strict=True):
            found[i] = out
    return [o for o in found if o is not None]


def _packed(ruleset: Ruleset, segments: Sequence[Segment], entropy: int, batch_fights: int
            ) -> Iterator[tuple[list[int], list[Outcomes]]]:
    """Each kernel call's segment indices and outcomes, checked for size."""
    for members in pack(segments, key=ruleset.batch_key, batch_fights=batch_fights):
        batch = [segments[i] for i in members]
        outcomes = ruleset.simulate_segments(batch, SegmentedRng.of(batch, entropy))
        if len(outcomes) != len(batch):
            raise RuntimeError(f"{ruleset.name} kernel returned {len(outcomes)} segments, "
                               f"not {len(batch)}")
        for segment, out in zip(batch, outcomes, strict=True):
            if len(out) != segment.n:
                raise RuntimeError(f"{ruleset.name} kernel returned {len(out)} fights, "
                                   f"not {segment.n}")
        yield members, list(outcomes)


def run(ruleset: Ruleset, rules: Any, side_a: Side, side_b: Side, *, entropy: int,
        n: int | None = None, precision: float | None = None, key: tuple[Any, ...] = (),
        chunk_size: int = DEFAULT_CHUNK_SIZE, confidence: float = 0.95,
        on_chunk: Callable[[Tally], None] | None = None) -> Tally:
    """Run fights until ``n`` are done or every interval half-width is at most ``precision``.

    Parameters
    ----------
    ruleset, rules, side_a, side_b
        What to simulate.
    entropy
        Root entropy of the run's streams (record it to reproduce the run).
    n
        Number of fights; with ``precision`` it is the cap (default :data:`MAX_FIGHTS`).
    precision
        Target half-width of the Wilson interval of each of the A-win, B-win and draw
        rates, checked after every chunk.
    key
        Extra spawn-key parts naming this run (a sweep cell's key).
    chunk_size
        Fights per kernel call.
    on_chunk
        Called with the running total after each chunk (progress reporting).

    Returns
    -------
    Tally
        Counts over every fight run.
    """
    check_count("n", n)
    check_count("chunk_size", chunk_size)
    if precision is not None and not 0 < precision < 0.5:
        raise SpecError(f"precision must be a half-width in (0, 0.5), got {precision!r}")
    if n is None and precision is None:
        raise SpecError("give n (fights) or precision (target half-width)")
    total = Tally.empty(getattr(ruleset, "causes", ()))
    cap = n if n is not None else MAX_FIGHTS
    for index, size in enumerate(chunk_sizes(cap, chunk_size)):
        total = total + run_chunk(ruleset, rules, side_a, side_b, size=size, entropy=entropy,
                                  key=key, index=index)
        if on_chunk is not None:
            on_chunk(total)
        if precision is not None and reached(total, precision, confidence):
            break
    return total


def reached(tally: Tally, precision: float, confidence: float = 0.95) -> bool:
    """Whether every rate of ``tally`` is known to ``precision`` (interval half-width)."""
    return bool(np.all(stats.half_width(tally.wins, tally.n, confidence) <= precision))
