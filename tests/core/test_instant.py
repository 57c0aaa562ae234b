"""Small conveniences of the command line: file modes, names, progress, executors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from balance.sweep import store


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_honour_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        target = tmp_path / "sub" / "table.csv"
        store.atomic_write(target, "a,b\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
