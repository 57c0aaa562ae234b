"""Shared helpers for the strike-rank tests."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from balance.rulesets.strike_rank import StrikeRank


class Scripted:
    """A stand-in for ``numpy.random.Generator`` that returns scripted dice.

    ``integers(low, high)`` pops the next scripted value (checked to lie in
    ``[low, high)``); ``random()`` returns 0.5.  Lets a test drive the reference through a
    worked example roll by roll.
    """

    def __init__(self, values: Iterable[int]) -> None:
        self.values = list(values)

    def integers(self, low: int, high: int | None = None) -> int:
        if high is None:
            low, high = 0, low
        if not self.values:
            raise AssertionError("the scenario rolled more dice than scripted")
        value = self.values.pop(0)
        assert low <= value < high, f"scripted {value} outside [{low}, {high})"
        return value

    def random(self) -> float:
        return 0.5


@pytest.fixture(scope="session")
def rs() -> StrikeRank:
    return StrikeRank()
