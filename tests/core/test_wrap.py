"""Long result lines ("rests on" 60 readings: once one line of 2,260 characters) wrapped to
the terminal's width, never splitting a reading."""

from __future__ import annotations

import pytest

from balance.cli import _rests_on_lines
from balance.report.console import wrap

READINGS = [f"reading_{i}=choice_{i} [AMBIG]" for i in range(60)]


def _unwrapped(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines())


@pytest.mark.parametrize("width", [40, 80, 132])
def test_rests_on_is_wrapped_to_the_terminal_width(width: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    lines = _rests_on_lines(READINGS, ["divert: A=never, B=below_health"])
    readings, policies = lines
    assert all(len(line) <= width for text in lines for line in text.splitlines())
    assert len(readings.splitlines()) > 1
    assert all(line.startswith("    ") for line in readings.splitlines()[1:])
    assert _unwrapped(readings) == ("rests on 60 DEFAULT/AMBIG readings (see `balance show`): "
                                    + "; ".join(READINGS))
    assert _unwrapped(policies) == "policies: divert: A=never, B=below_health"


def test_a_word_longer_than_the_line_is_never_split() -> None:
    long = "x=" + "y" * 50
    assert wrap(f"policies: {long}; z=1", 30).splitlines() == ["policies:", f"  {long};",
                                                                "  z=1"]


def test_a_bullet_hangs_under_its_text() -> None:
    text = wrap("; ".join(READINGS[:6]), 50, first="  - ", rest="    ")
    lines = text.splitlines()
    assert lines[0].startswith("  - reading_0=") and len(lines) > 1
    assert all(line.startswith("    ") and line[4] != " " for line in lines[1:])
    assert max(map(len, lines)) <= 50
