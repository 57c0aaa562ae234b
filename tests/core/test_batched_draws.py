"""Batched draws are the numbers a segment draws alone, however they are made.

:class:`balance.batching.SegmentedRng` makes each segment's draw as cheaply as it can (a
lane alone drawn without a size, rows drawn for all entries at once, columns drawn flat):
each way must give exactly the numbers of one plain ``Generator`` call for the segment.  And
the crt kernel's counts of a pinned batch are pinned: a faster kernel or draw that changes
one fight's outcome under the same seed fails here (the seeding scheme, ``SEEDING``, would
have to change with it).
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

import balance
from balance import engine
from balance.batching import SEEDING, Lanes, Segment, SegmentedRng
from balance.dice import codes_from_bits

SEEDS = [3, 100, 2**40 + 7]
LANES = [np.array([0]), np.array([2, 0, 2, 1, 0, 2, 2]), np.array([0, 0, 1, 1, 1, 2]),
         np.repeat(np.arange(3), [1, 17, 2]), np.array([1, 1, 0]),
         np.array([], np.int64)]
"""One lane, unsorted lanes, sorted lanes, a segment with one lane among long runs, no
lane at all."""


def _fresh(seed: int, k: int = 3) -> SegmentedRng:
    return SegmentedRng([np.random.default_rng([seed, s]) for s in range(k)])


def _alone(seed: int, s: int) -> np.random.Generator:
    return np.random.default_rng([seed, s])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seg", LANES, ids=range(len(LANES)))
@pytest.mark.parametrize(("low", "high", "dtype"), [
    (0, 36, np.uint8), (1, 7, np.int8), (1, 7, np.int64), (0, 1000, np.int16),
    (0, 2**40, np.int64), (0, 2, bool), (5, 70_000, np.uint32)])
def test_integers_are_each_segments_own_call(seed: int, seg: np.ndarray, low: int, high: int,
                                             dtype: type) -> None:
    """Segment ``s``'s values are one ``integers`` call with a size for its lanes (a lone
    lane's, drawn without a size, too), and its stream is left where that call leaves it."""
    rng = _fresh(seed)
    alone = [_alone(seed, s) for s in range(3)]
    for _ in range(2):  # a second draw continues each stream
        drawn = rng.integers(low, high, seg, dtype=dtype)
        assert drawn.dtype == np.dtype(dtype) and drawn.shape == seg.shape
        for s in range(3):
            lanes = np.flatnonzero(seg == s)
            if lanes.size:  # a segment without lanes draws nothing
                expected = alone[s].integers(low, high, lanes.size, dtype=dtype)
                assert np.array_equal(drawn[lanes], expected)
    assert ([g.bit_generator.state for g in rng.generators]
            == [g.bit_generator.state for g in alone])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seg", LANES, ids=range(len(LANES)))
def test_random_is_each_segments_own_call(seed: int, seg: np.ndarray) -> None:
    drawn = _fresh(seed).random(seg)
    for s in range(3):
        lanes = np.flatnonzero(seg == s)
        assert np.array_equal(drawn[lanes], _alone(seed, s).random(lanes.size))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("seg", LANES, ids=range(len(LANES)))
@pytest.mark.parametrize("rows", [1, 2, 3])
def test_rows_are_the_tiled_lanes_drawn_at_once(seed: int, seg: np.ndarray, rows: int) -> None:
    """``codes(k, seg, rows=r)`` is ``codes(k, np.tile(seg, r))`` reshaped, as the crt
    kernel drew it before: each segment's ``r * lanes`` words in one call, row-major."""
    at_once = _fresh(seed).codes(1296, seg, rows=rows)
    assert at_once.shape == ((rows, seg.size) if rows > 1 else seg.shape)  # one row: 1-d
    at_once = at_once.reshape(rows, seg.size)
    tiled = _fresh(seed).codes(1296, np.tile(seg, rows)).reshape(rows, seg.size)
    assert at_once.dtype == tiled.dtype
    assert np.array_equal(at_once, tiled)
    for s in range(3):
        lanes = np.flatnonzero(seg == s)
        words = codes_from_bits(1296, rows * lanes.size, _alone(seed, s).bit_generator)
        assert np.array_equal(at_once[:, lanes], words.reshape(rows, lanes.size))
    uniforms = _fresh(seed).draw(seg, lambda g, c: g.random(c), rows=rows).reshape(rows,
                                                                                   seg.size)
    assert np.array_equal(uniforms, _fresh(seed).random(np.tile(seg, rows)).reshape(rows,
                                                                                   seg.size))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("count", "columns", "dtype"), [
    (1, 1, np.int64), (5, 3, np.int64), (4, 7, np.uint8), (9, 2, np.int16), (0, 3, np.int8)])
def test_columns_drawn_flat_are_the_rows_numpy_draws(seed: int, count: int, columns: int,
                                                      dtype: type) -> None:
    flat = _alone(seed, 0).integers(0, 50, count * columns, dtype=dtype).reshape(count, columns)
    rows = _alone(seed, 0).integers(0, 50, (count, columns), dtype=dtype)
    assert np.array_equal(flat, rows)
    seg = np.array([1, 0, 1, 2, 0][: count] if count <= 5 else np.arange(count) % 3)
    drawn = _fresh(seed).integers(0, 50, seg, dtype=dtype, columns=columns)
    assert drawn.shape == (count, columns)
    for s in range(3):
        lanes = np.flatnonzero(seg == s)
        assert np.array_equal(drawn[lanes], _alone(seed, s).integers(0, 50, (lanes.size,
                                                                             columns), dtype=dtype))


def test_lanes_made_once_serve_several_draws() -> None:
    seg = np.array([2, 0, 2, 1, 0])
    rng, again = _fresh(7), _fresh(7)
    lanes = rng.lanes(seg)
    assert rng.lanes(lanes) is lanes
    assert [r[0] for r in lanes.runs] == [0, 1, 2]
    assert np.array_equal(rng.integers(1, 7, lanes), again.integers(1, 7, seg))
    assert np.array_equal(rng.random(lanes), again.random(seg))
    kept = Lanes.ascending(np.array([0, 0, 2]), 3)
    assert kept.order is None and kept.runs == [(0, 0, 2), (2, 2, 3)]


# --- the crt kernel's counts, pinned -------------------------------------------------------

crt = balance.get("crt")

PINNED_DIGEST = "1d8ef8b4b2b195653b2197c49921369379a9eac2f8b9cbf32b0301d60049a788"
"""sha256 of every fight's winner, rounds and cause in :func:`_segments`' batch (seed 29),
as the kernel drew them when the draws were made one ``np.tile``-d call at a time."""

PINNED_COUNTS = [
    (13, 125, 476), (11, 130, 419), (2, 145, 400), (5, 139, 397),  # the grid's first cells
    (16, 125, 447), (13, 126, 424), (8, 136, 386), (7, 138, 387), (10, 140, 377),
    (6, 137, 407),  # ambushes
    (52, 61, 640), (79, 37, 602), (86, 32, 599),  # two against three
    (14, 132, 479), (10, 133, 427), (11, 128, 435), (9, 139, 513)]  # random, never, by band
"""(A wins, B wins, total rounds) of the first four segments and the last thirteen."""


def _segments() -> list[Segment]:
    """A sweep's grid of duels with every table on, ambushes, group fights and diverters of
    every drawing policy, packed into kernel calls of many segments."""
    rules, veteran = crt.Rules(), crt.presets["veteran"]
    grid = [Segment(rules, (crt.Combatant(name="challenger", combats=x),),
                    (dataclasses.replace(veteran, combats=y),), 150 + 10 * (x % 3), (x, y))
            for x in range(0, 16, 2) for y in range(0, 16, 2)]
    ambush = [dataclasses.replace(s, rules=crt.Rules(ambush="a"), key=("ambush", *s.key))
              for s in grid[:6]]
    group = [Segment(rules, (veteran, crt.Combatant(name="c", combats=x)),
                     (crt.Combatant(name="d", combats=6), crt.presets["novice"],
                      crt.presets["duelist"]), 120, ("group", x)) for x in (0, 8, 16)]
    diverters = [Segment(rules, (crt.Combatant(name="a", combats=8, divert=policy),),
                         (veteran,), 150, ("divert", i))
                 for i, policy in enumerate(["random", "never", "by_band", "random"])]
    return grid + ambush + group + diverters


def test_the_crt_kernels_batched_counts_are_pinned() -> None:
    assert SEEDING == 1  # a new scheme re-pins these
    outs = engine.simulate_segments(crt, _segments(), entropy=29, batch_fights=4_000)
    digest = hashlib.sha256()
    for out in outs:
        for column in (out.winner, out.rounds, out.cause):
            digest.update(np.ascontiguousarray(column).tobytes())
    counts = [(int((o.winner == 1).sum()), int((o.winner == 2).sum()), int(o.rounds.sum()))
              for o in outs[:4] + outs[-13:]]
    assert counts == PINNED_COUNTS
    assert digest.hexdigest() == PINNED_DIGEST
