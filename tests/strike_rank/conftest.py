"""Shared helpers for the strike-rank tests."""

from __future__ import annotations

import pytest

from balance.rulesets.strike_rank import StrikeRank


@pytest.fixture(scope="session")
def rs() -> StrikeRank:
    return StrikeRank()
