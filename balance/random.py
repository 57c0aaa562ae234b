"""Seed handling: every stochastic function in balance takes an explicit ``Generator``.

Two entry points, in the style of :func:`numpy.random.default_rng`:

* :func:`as_generator` converts anything seed-like to a ``Generator``, once, at the public
  edge of the API.
* :func:`stream` derives an independent, reproducible stream from a root entropy and a key
  (cell key, chunk index, ...) through ``SeedSequence(entropy, spawn_key=key)``, so that the
  numbers a chunk of work sees depend only on *what* the chunk is, never on which worker ran
  it or in which order chunks finished.

The global NumPy random state and the stdlib ``random`` module are never used.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from ._typing import SeedLike

STREAMS: tuple[str, ...] = ("common", "independent")
"""How the matchups a question compares draw their fights: all on the same streams (common
random numbers: fight ``j`` of each from the same numbers, the default of sweeps and round
robins) or each on streams of its own."""

__all__ = ["as_generator", "fresh_entropy", "key_to_int", "root_entropy", "stream"]


def fresh_entropy() -> int:
    """Return 128 bits of fresh OS entropy, to be recorded so a run can be repeated."""
    return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]


def root_entropy(seed: int | None) -> int:
    """The entropy a run is keyed on: ``seed`` itself, or fresh entropy when it is ``None``."""
    if seed is None:
        return fresh_entropy()
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def as_generator(seed: SeedLike = None) -> np.random.Generator:
    """Convert a seed-like value to a ``numpy.random.Generator``.

    A ``Generator`` is returned unchanged (so callers can share one); ``None`` draws fresh
    OS entropy; an int, a sequence of ints or a ``SeedSequence`` seeds a new PCG64.
    """
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)


def key_to_int(part: object) -> int:
    """Map one key part to a non-negative int for a ``spawn_key``.

    Ints pass through; anything else (a cell's canonical string, say) is hashed with
    BLAKE2b, so the mapping is stable across processes, machines and Python versions
    (unlike ``hash()``).
    """
    if isinstance(part, int | np.integer) and not isinstance(part, bool) and part >= 0:
        return int(part)
    digest = hashlib.blake2b(str(part).encode("utf-8"), digest_size=16).digest()
    return int.from_bytes(digest, "little")


def stream(entropy: int, *key: object) -> np.random.Generator:
    """An independent ``Generator`` for the work item named by ``key`` under ``entropy``.

    ``stream(e, "cell-3f2a", 7)`` always yields the same numbers, and differs from every
    other key under the same entropy (spawn keys are the mechanism ``SeedSequence.spawn``
    itself uses).
    """
    spawn_key = tuple(key_to_int(part) for part in key)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=spawn_key)))


def streams(entropy: int, keys: Iterable[tuple[object, ...]]) -> list[np.random.Generator]:
    """One :func:`stream` per key, in order."""
    return [stream(entropy, *key) for key in keys]
