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

from .dice import codes_from_bits
from .random import stream

__all__ = ["SEEDING", "Segment", "SegmentedRng", "pack"]

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


class SegmentedRng:
    """Random numbers for lanes of many segments, each lane's from its own segment's
    generator.

    Every method takes ``seg``, the segment id of each lane drawn for (an integer array, in
    lane order), and returns one value (or one row) per lane.  Segment ``s``'s values are the
    next ones of ``generators[s]``, in the order its lanes appear in ``seg``: so a segment's
    lanes get the same numbers whatever other segments' lanes sit beside them.  A segment
    with no lane in ``seg`` draws nothing.
    """

    def __init__(self, generators: Sequence[np.random.Generator]) -> None:
        self.generators = list(generators)
        self.bits = [g.bit_generator for g in self.generators]
        self.single = len(self.generators) == 1

    @classmethod
    def of(cls, segments: Sequence[Segment], entropy: int) -> SegmentedRng:
        return cls([s.stream(entropy) for s in segments])

    def __len__(self) -> int:
        return len(self.generators)

    # -- the one primitive --------------------------------------------------------------------
    def draw(self, seg: np.ndarray, make: Callable[[Any, int], np.ndarray]) -> np.ndarray:
        """``make(source, count)`` for each segment with lanes in ``seg`` (``source`` its
        Generator), stitched back into lane order along axis 0."""
        if self.single:
            return make(self.generators[0], len(seg))
        return _stitch(seg, len(self.generators), lambda s, c: make(self.generators[s], c))

    def draw_bits(self, seg: np.ndarray, make: Callable[[Any, int], np.ndarray]) -> np.ndarray:
        """As :meth:`draw`, with each segment's ``BitGenerator`` as the source."""
        if self.single:
            return make(self.bits[0], len(seg))
        return _stitch(seg, len(self.bits), lambda s, c: make(self.bits[s], c))

    # -- the draws kernels use ------------------------------------------------------------------
    def random(self, seg: np.ndarray) -> np.ndarray:
        """Uniform floats in [0, 1), one per lane."""
        return self.draw(seg, lambda g, c: g.random(c))

    def integers(self, low: int, high: int, seg: np.ndarray, dtype: Any = np.int64,
                 columns: int | None = None) -> np.ndarray:
        """Integers in ``[low, high)``, one per lane (or ``columns`` per lane, row-major as
        ``Generator.integers(low, high, (count, columns))`` draws them)."""
        if columns is None:
            return self.draw(seg, lambda g, c: g.integers(low, high, c, dtype=dtype))
        return self.draw(seg, lambda g, c: g.integers(low, high, (c, columns), dtype=dtype))

    def codes(self, k: int, seg: np.ndarray) -> np.ndarray:
        """16-bit words exactly uniform on a multiple of ``k`` (:func:`balance.dice.codes_from_bits`),
        one per lane."""
        return self.draw_bits(seg, lambda b, c: codes_from_bits(k, c, b))

    def raw(self, seg: np.ndarray) -> np.ndarray:
        """One raw 64-bit word per lane."""
        return self.draw_bits(seg, lambda b, c: np.asarray(b.random_raw(c), np.uint64))


def _stitch(seg: np.ndarray, n_segments: int, part: Callable[[int, int], np.ndarray]
            ) -> np.ndarray:
    """Each segment's ``part(s, count)`` placed on its lanes, in lane order."""
    seg = np.asarray(seg)
    counts = np.bincount(seg, minlength=n_segments)
    drawn = np.flatnonzero(counts)
    parts = [part(s, c) for s, c in zip(drawn.tolist(), counts[drawn].tolist(), strict=True)]
    if not parts:
        return part(0, 0)
    joined = np.concatenate(parts)
    if len(seg) < 2 or bool(np.all(seg[1:] >= seg[:-1])):
        return joined
    out = np.empty_like(joined)
    out[np.argsort(seg, kind="stable")] = joined
    return out


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
