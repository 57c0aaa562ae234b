"""Helpers for testing rulesets: scripted dice and the categories agreement tests compare.

Like ``numpy.testing``, this module is for test suites (ours and those of anyone adding a
ruleset); nothing in the package imports it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["ROUND_EDGES", "ScriptedRng", "categories", "kernel_counts", "reference_counts"]


class ScriptedRng:
    """A stand-in for ``numpy.random.Generator`` that replays scripted dice.

    ``integers(low, high)`` pops the next scripted value (checked to lie in
    ``[low, high)``); ``random()`` pops a float.  Used to drive the scalar references
    through the digests' worked examples roll by roll.
    """

    def __init__(self, values: Iterable[float]) -> None:
        self.values = list(values)

    def integers(self, low: int, high: int | None = None, size: Any = None,
                 dtype: Any = None) -> Any:
        assert size is None, "scripted rolls are scalar"
        if high is None:
            low, high = 0, low
        value = self.values.pop(0)
        assert low <= value < high, f"scripted value {value} outside [{low}, {high})"
        return value

    def random(self, size: Any = None) -> Any:
        assert size is None
        return self.values.pop(0)

    @property
    def exhausted(self) -> bool:
        return not self.values


ROUND_EDGES = (1, 2, 3, 4, 6, 8, 11, 15, 20, 30, 50)


def categories(winner: Any, cause: Any, rounds: Any, edges: tuple[int, ...] = ROUND_EDGES
               ) -> np.ndarray:
    """One category code per fight: (winner, end cause, fight-length bucket)."""
    bucket = np.digitize(np.asarray(rounds), edges)
    return (np.asarray(winner, np.int64) * 16 + np.asarray(cause)) * 16 + bucket


def kernel_counts(ruleset: Any, rules: Any, side_a: Any, side_b: Any, n: int, seed: int
                  ) -> np.ndarray:
    """Category counts of ``n`` kernel fights."""
    out = ruleset.simulate(rules, side_a, side_b, n=n, rng=np.random.default_rng(seed))
    return np.bincount(categories(out.winner, out.cause, out.rounds), minlength=3 * 256)


def reference_counts(ruleset: Any, rules: Any, side_a: Any, side_b: Any, n: int, seed: int
                     ) -> np.ndarray:
    """Category counts of ``n`` reference fights."""
    rng = np.random.default_rng(seed)
    results = [ruleset.fight(rules, side_a, side_b, rng=rng) for _ in range(n)]
    causes = list(ruleset.causes)
    codes = categories([int(r.winner) for r in results], [causes.index(r.cause) for r in results],
                       [r.rounds for r in results])
    return np.bincount(codes, minlength=3 * 256)
