"""Many matchups in one kernel call, each matchup on its own stream.

A designer's question is rarely one big matchup: a round robin, a sweep of small cells and a
best-play payoff matrix are many matchups of a few thousand fights each.  Run one at a time,
a kernel spends its time in NumPy's per-call overhead; run together, it works at its full
rate.  This module is the contract that lets them share a kernel call without sharing
random numbers.

A :class:`Segment` is one chunk of one matchup: rules, two sides, a number of fights and the
key of its stream (``stream(entropy, *key, index)``, exactly the stream the chunk had when it
ran alone).  A kernel given many segments draws every random number through a
:class:`SegmentedRng`, naming the segment of each lane it draws for; the numbers a segment's
fights see come from that segment's generator only, in the order its own lanes ask for them.

The invariant (checked for every batching kernel by :func:`balance.testing.check_batch_invariance`):

    **A segment's outcomes do not depend on what it is batched with.**  Alone, in a batch of
    one, or among hundreds of other matchups, in any order, its fights end the same way.

A kernel keeps it by three rules:

1. *Every draw goes through the* :class:`SegmentedRng` with the segment ids of exactly the
   lanes drawn for, in lane order.  Lanes of a segment keep their fights' order (ascending
   fight index) so each segment's draws land on its fights in the same order as alone.
2. *What a lane draws depends only on its own segment's fights.*  Batch-wide guards
   (``if mask.any():``) and loops to a batch-wide maximum are fine: a segment with no lane
   at a draw site draws nothing, and a draw of nothing consumes no state.  Drawing for lanes
   whose fight is over is not fine when they are dropped depends on the whole batch
   (compaction when a quarter of the batch is done, say); neither is refilling lanes with a
   segment's later fights at a time other segments decide, nor a branch on a batch-wide
   setup flag that changes what a lane draws rather than only how fast.
3. *A segment's own setup stays its own*: per-fight tables (combatants, rule values) are
   gathered by each lane's segment id.

Rulesets without a batching kernel get :meth:`balance.rulesets.base.Ruleset.simulate_segments`'s
default, which runs the segments one after another with :meth:`simulate` on their own
streams: the same numbers as before batching existed.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dice import code_limit, codes_from_raw
from .random import stream

__all__ = ["SEEDING", "Lanes", "Segment", "SegmentedRng", "pack"]

SEEDING = 1
"""Version of the seeding scheme: how a chunk's stream is named and how kernels draw from it.
Recorded in a run's ``meta.json``; bump it when a kernel's draws change, so that cached chunks
of an older scheme simply do not match."""


@dataclass(frozen=True, eq=False)
class Segment:
    """One chunk of one matchup: ``n`` fights of ``side_a`` against ``side_b`` under ``rules``,
    on ``stream(entropy, *key, index)``."""

    rules: Any
    side_a: tuple[Any, ...]
    side_b: tuple[Any, ...]
    n: int
    key: tuple[Any, ...] = ()
    index: int | str = 0
    """The chunk's number, or a named stream of the matchup (best play's ``"screen"``)."""

    def stream(self, entropy: int) -> np.random.Generator:
        return stream(entropy, *self.key, self.index)


class Lanes:
    """Where each segment's lanes sit in a draw: the segments with lanes (ascending), the
    run ``[start, stop)`` of each among the lanes sorted by segment (stably), and the sort
    (``None`` when the lanes already are in segment order).

    Made once per ``seg`` array (:meth:`of`, or :meth:`ascending` for one a kernel keeps in
    segment order), so a kernel drawing several times for the same lanes pays for it once.
    """

    __slots__ = ("order", "runs", "size")

    def __init__(self, size: int, runs: list[tuple[int, int, int]],
                 order: np.ndarray | None) -> None:
        self.size = size
        self.runs = runs
        """``(segment, start, stop)`` of each segment with lanes, in segment order."""
        self.order = order

    @classmethod
    def of(cls, seg: np.ndarray, n_segments: int) -> Lanes:
        seg = np.asarray(seg)
        if len(seg) < 2 or bool((seg[1:] >= seg[:-1]).all()):
            return cls.ascending(seg, n_segments)
        order = np.argsort(seg, kind="stable")
        lanes = cls.ascending(seg[order], n_segments)
        lanes.order = order
        return lanes

    @classmethod
    def ascending(cls, seg: np.ndarray, n_segments: int) -> Lanes:
        """The lanes of ``seg``, which must be in ascending segment order."""
        if len(seg) <= 16:  # a few lanes (a table's events): cheaper read in Python
            values = seg.tolist()
            runs, start = [], 0
            for i in range(1, len(values) + 1):
                if i == len(values) or values[i] != values[start]:
                    runs.append((values[start], start, i))
                    start = i
            return cls(len(values), runs, None)
        bounds = np.searchsorted(seg, np.arange(n_segments + 1))
        lo, hi = bounds[:-1], bounds[1:]
        drawn = np.flatnonzero(hi > lo)
        runs = list(zip(drawn.tolist(), lo[drawn].tolist(), hi[drawn].tolist(), strict=True))
        return cls(len(seg), runs, None)

    def place(self, out: np.ndarray, axis: int = 0) -> np.ndarray:
        """``out`` filled in segment order along ``axis`` (0 or 1), put back in lane order."""
        if self.order is None:
            return out
        placed = np.empty_like(out)
        if axis == 0:
            placed[self.order] = out
        else:
            placed[:, self.order] = out
        return placed


class SegmentedRng:
    """Random numbers for lanes of many segments, each lane's from its own segment's
    generator.

    Every method takes ``seg``, the segment id of each lane drawn for (an integer array, in
    lane order, or its :class:`Lanes`), and returns one value (or one row) per lane.
    Segment ``s``'s values are the next ones of ``generators[s]``, in the order its lanes
    appear in ``seg``: so a segment's lanes get the same numbers whatever other segments'
    lanes sit beside them.  A segment with no lane in ``seg`` draws nothing.

    A segment's draw is one call of its generator, as it makes alone (a lane's value when
    the segment has one lane is the same call with no size, which numpy makes several times
    faster and which draws the same number).
    """

    def __init__(self, generators: Sequence[np.random.Generator]) -> None:
        self.generators = list(generators)
        self.bits = [g.bit_generator for g in self.generators]
        self.single = len(self.generators) == 1
        # bound once: a batch draws from each segment many times a round
        self._integers = [g.integers for g in self.generators]
        self._random = [g.random for g in self.generators]
        self._raw = [b.random_raw for b in self.bits]

    @classmethod
    def of(cls, segments: Sequence[Segment], entropy: int) -> SegmentedRng:
        return cls([s.stream(entropy) for s in segments])

    def __len__(self) -> int:
        return len(self.generators)

    def lanes(self, seg: np.ndarray | Lanes) -> Lanes:
        """The :class:`Lanes` of ``seg`` (made once, for several draws for the same lanes)."""
        return seg if isinstance(seg, Lanes) else Lanes.of(seg, len(self.generators))

    # -- the one primitive --------------------------------------------------------------------
    def draw(self, seg: np.ndarray | Lanes, make: Callable[[Any, int], np.ndarray],
             rows: int = 1) -> np.ndarray:
        """``make(source, count)`` for each segment with lanes in ``seg`` (``source`` its
        Generator), stitched back into lane order along axis 0.  With ``rows`` above 1,
        each segment draws ``rows`` values per lane at once, row-major: the result is
        ``(rows, lanes)``, as ``make`` for ``np.tile(seg, rows)`` reshaped, without the
        tiling."""
        return self._draw(self.generators, seg, make, rows)

    def draw_bits(self, seg: np.ndarray | Lanes, make: Callable[[Any, int], np.ndarray],
                  rows: int = 1) -> np.ndarray:
        """As :meth:`draw`, with each segment's ``BitGenerator`` as the source."""
        return self._draw(self.bits, seg, make, rows)

    def _draw(self, sources: list[Any], seg: np.ndarray | Lanes,
              make: Callable[[Any, int], np.ndarray], rows: int) -> np.ndarray:
        n = _size(seg)
        if self.single:
            got = make(sources[0], rows * n)
            return got if rows == 1 else got.reshape(rows, n)
        lanes = self.lanes(seg)
        if not lanes.runs:
            got = make(sources[0], 0)
            return got if rows == 1 else got.reshape(rows, 0)
        parts = [(lo, hi, make(sources[s], rows * (hi - lo))) for s, lo, hi in lanes.runs]
        first = parts[0][2]
        if rows == 1:
            out = np.empty((n, *first.shape[1:]), first.dtype)
            for lo, hi, part in parts:
                out[lo:hi] = part
            return lanes.place(out)
        out = np.empty((rows, n), first.dtype)
        for lo, hi, part in parts:
            out[:, lo:hi] = part.reshape(rows, hi - lo)
        return lanes.place(out, axis=1)

    # -- the draws kernels use ------------------------------------------------------------------
    def random(self, seg: np.ndarray | Lanes) -> np.ndarray:
        """Uniform floats in [0, 1), one per lane."""
        if self.single:
            return self.generators[0].random(_size(seg))
        lanes = self.lanes(seg)
        out = np.empty(lanes.size)
        random = self._random
        for s, lo, hi in lanes.runs:
            if hi - lo == 1:
                out[lo] = random[s]()
            else:
                out[lo:hi] = random[s](hi - lo)
        return lanes.place(out)

    def integers(self, low: int, high: int, seg: np.ndarray | Lanes, dtype: Any = np.int64,
                 columns: int | None = None) -> np.ndarray:
        """Integers in ``[low, high)``, one per lane (or ``columns`` per lane, row-major as
        ``Generator.integers(low, high, (count, columns))`` draws them)."""
        if columns is not None:  # one flat call per segment: the same values, row-major
            return self.draw(seg, lambda g, c: g.integers(low, high, c * columns, dtype=dtype)
                             .reshape(c, columns))
        if self.single:
            return self.generators[0].integers(low, high, _size(seg), dtype=dtype)
        lanes = self.lanes(seg)
        out = np.empty(lanes.size, dtype)
        integers = self._integers
        a, b = _bounds(low, high)
        for s, lo, hi in lanes.runs:
            if hi - lo == 1:
                out[lo] = integers[s](a, b, None, dtype)
            else:
                out[lo:hi] = integers[s](a, b, _Count(hi - lo), dtype)
        return lanes.place(out)

    def codes(self, k: int, seg: np.ndarray | Lanes, rows: int = 1) -> np.ndarray:
        """16-bit words exactly uniform on a multiple of ``k`` (:func:`balance.dice.codes_from_bits`),
        one per lane (``rows`` per lane as :meth:`draw`'s ``rows``)."""
        limit = code_limit(k)
        if self.single:
            return self.draw_bits(seg, lambda b, c: codes_from_raw(limit, c, b.random_raw),
                                  rows)
        lanes = self.lanes(seg)
        out = np.empty((rows, lanes.size), np.uint16)
        raw = self._raw
        for s, lo, hi in lanes.runs:
            out[:, lo:hi] = codes_from_raw(limit, rows * (hi - lo), raw[s]).reshape(rows, hi - lo)
        out = lanes.place(out, axis=1)
        return out[0] if rows == 1 else out

    def raw(self, seg: np.ndarray | Lanes) -> np.ndarray:
        """One raw 64-bit word per lane."""
        return self.draw_bits(seg, lambda b, c: np.asarray(b.random_raw(c), np.uint64))


class _Count(int):
    """A draw's size that numpy's ``Generator.integers`` reads without ``np.prod``'s
    conversion (it asks the size for its ``prod``): the same size, so the same numbers."""

    __slots__ = ()

    def prod(self, *args: Any, **kwargs: Any) -> int:
        return int(self)


def _bounds(low: Any, high: Any) -> tuple[Any, Any]:
    """``low`` and ``high`` as the 0-d int64 arrays ``Generator.integers`` makes of them
    (made once, not once a segment), or as given beyond int64."""
    try:
        return np.array(low, np.int64), np.array(high, np.int64)
    except (OverflowError, TypeError, ValueError):
        return low, high


def _size(seg: np.ndarray | Lanes) -> int:
    return seg.size if isinstance(seg, Lanes) else len(seg)


def pack(segments: Sequence[Segment], *, key: Callable[[Segment], Hashable],
         batch_fights: int) -> Iterator[list[int]]:
    """Indices of ``segments`` in batches: segments with equal ``key`` together, in their
    given order, at most ``batch_fights`` fights a batch (a larger segment is a batch of its
    own).  Which segments share a batch never changes a segment's outcomes; packing only
    decides how many kernel calls a question takes."""
    groups: dict[Hashable, list[int]] = {}
    for i, s in enumerate(segments):
        groups.setdefault(key(s), []).append(i)
    for members in groups.values():
        batch: list[int] = []
        fights = 0
        for i in members:
            n = segments[i].n
            if batch and fights + n > batch_fights:
                yield batch
                batch, fights = [], 0
            batch.append(i)
            fights += n
        if batch:
            yield batch
