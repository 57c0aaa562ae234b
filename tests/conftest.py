"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Callable

import pytest

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
