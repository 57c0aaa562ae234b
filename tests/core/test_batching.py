"""The batching contract: a segment's numbers come from its own stream, in its lanes' order."""

from __future__ import annotations

import numpy as np
import pytest

from balance.batching import Segment, SegmentedRng, pack


def _rng(k: int) -> SegmentedRng:
    return SegmentedRng([np.random.default_rng(100 + s) for s in range(k)])


@pytest.mark.parametrize("method", ["random", "raw", "codes", "integers"])
def test_each_segment_draws_its_own_numbers_in_lane_order(method: str) -> None:
    seg = np.array([2, 0, 2, 1, 0, 2, 2])
    args = {"random": (), "raw": (), "codes": (400,), "integers": (1, 7)}[method]
    if method == "codes":
        drawn = SegmentedRng.codes(_rng(3), 400, seg)
    elif method == "integers":
        drawn = _rng(3).integers(1, 7, seg)
    else:
        drawn = getattr(_rng(3), method)(seg)
    for s in range(3):
        alone = SegmentedRng([np.random.default_rng(100 + s)])
        lanes = np.flatnonzero(seg == s)
        one = np.zeros(len(lanes), int)
        expected = (alone.codes(*args, one) if method == "codes"
                    else alone.integers(*args, one) if method == "integers"
                    else getattr(alone, method)(one))
        assert np.array_equal(drawn[lanes], expected)


def test_a_segment_without_lanes_consumes_nothing() -> None:
    rng = _rng(2)
    rng.random(np.array([0, 0]))
    follow = rng.random(np.array([1]))
    assert np.array_equal(follow, np.random.default_rng(101).random(1))


def test_rows_per_lane() -> None:
    seg = np.array([1, 0, 1])
    rows = _rng(2).integers(0, 10, seg, columns=3)
    assert rows.shape == (3, 3)
    assert np.array_equal(rows[[0, 2]], np.random.default_rng(101).integers(0, 10, (2, 3)))


def test_pack_groups_by_key_and_bounds_fights() -> None:
    segs = [Segment(None, (), (), n, (i,)) for i, n in enumerate([5, 5, 20, 5, 5])]
    batches = list(pack(segs, key=lambda s: s.key[0] % 2, batch_fights=10))
    assert batches == [[0], [2], [4], [1, 3]]
