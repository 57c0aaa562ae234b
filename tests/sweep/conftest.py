"""Fixtures of the runner tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .helpers import to_toml


@pytest.fixture
def write_spec(tmp_path: Path):
    """Write a spec mapping as a TOML file in tmp_path; returns its path."""

    def write(spec: dict[str, Any], name: str = "exp.toml") -> Path:
        path = tmp_path / name
        path.write_text(to_toml(spec), encoding="utf-8")
        return path

    return write
