"""Shared fixtures."""

from __future__ import annotations

import pytest

from balance.testing import ScriptedRng


@pytest.fixture
def scripted():
    """The :class:`balance.testing.ScriptedRng` class, to replay scripted dice."""
    return ScriptedRng
