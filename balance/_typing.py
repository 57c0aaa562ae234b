"""Type aliases shared by the public API."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np

SeedLike: TypeAlias = int | Sequence[int] | np.random.SeedSequence | np.random.Generator | None
"""Anything :func:`balance.random.as_generator` accepts."""

FieldValues: TypeAlias = Mapping[str, Any]
"""Field overrides, name -> value (values may be strings from the command line)."""

IntArray: TypeAlias = np.ndarray
"""An integer ``numpy.ndarray``; the dtype is stated where it is used."""
