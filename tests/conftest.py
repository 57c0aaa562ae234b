"""Shared fixtures."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

# The race model's tables on disk (balance.rulesets.strike_rank.race_store) stay out of the
# tests, and out of the processes they start: a test computes what it checks.  The tests of
# the store turn it on in a folder of their own.
os.environ["BALANCE_CACHE"] = "off"

from balance.cli import main
from balance.testing import ScriptedRng


@pytest.fixture
def scripted():
    """The :class:`balance.testing.ScriptedRng` class, to replay scripted dice."""
    return ScriptedRng


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """The command line run in this process: ``cli("duel", "crt", ...)`` gives
    ``(exit status, stdout, stderr)``, argparse's own exits included."""

    def run(*argv: str) -> tuple[int, str, str]:
        try:
            status = main(list(argv))
        except SystemExit as exc:  # argparse's own errors
            status = exc.code if isinstance(exc.code, int) else 2
        out, err = capsys.readouterr()
        return status, out, err

    return run
