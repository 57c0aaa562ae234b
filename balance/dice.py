"""Dice: vectorised samplers and their exact distributions.

Conventions, stated once (after icepool): ``d(6)`` is one six-sided die, ``nd(2, 6)`` the sum
of two; samplers take the number of rolls and a keyword-only ``rng``; exact distributions
are :class:`Pmf` values with :class:`fractions.Fraction` probabilities, immutable.

Samplers never use modulo tricks that bias small dice: ``nd`` draws one unbiased integer
over all ``sides**n`` ordered outcomes and reads the sum from a lookup table, which is both
exact and one random draw per roll.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

import numpy as np

__all__ = [
    "Pmf",
    "WordDice",
    "categorical",
    "codes",
    "codes_from_bits",
    "d",
    "die",
    "expand",
    "nd",
    "outcome_table",
    "pmf",
    "sum_table",
    "words16",
]


class Pmf(Mapping[int, Fraction]):
    """An exact probability mass function over integers.

    Behaves as a read-only mapping ``outcome -> Fraction``; outcomes with zero probability
    are dropped.  ``a + b`` convolves two independent Pmfs, ``a + 3`` shifts one.

    Examples
    --------
    >>> two_d6 = pmf(2, 6)
    >>> two_d6[7]
    Fraction(1, 6)
    >>> (die(6) + die(6)) == two_d6
    True
    """

    __slots__ = ("_p",)

    def __init__(self, probabilities: Mapping[int, Any] | Iterable[tuple[int, Any]]) -> None:
        items = probabilities.items() if isinstance(probabilities, Mapping) else probabilities
        p: dict[int, Fraction] = {}
        for outcome, prob in items:
            prob = Fraction(prob)
            if prob < 0:
                raise ValueError(f"negative probability {prob} for outcome {outcome}")
            if prob:
                p[int(outcome)] = p.get(int(outcome), Fraction(0)) + prob
        total = sum(p.values(), Fraction(0))
        if total != 1:
            raise ValueError(f"probabilities sum to {total}, not 1")
        self._p = dict(sorted(p.items()))

    def __getitem__(self, outcome: int) -> Fraction:
        return self._p.get(outcome, Fraction(0))

    def __iter__(self) -> Iterator[int]:
        return iter(self._p)

    def __len__(self) -> int:
        return len(self._p)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Pmf) and self._p == other._p

    def __hash__(self) -> int:
        return hash(tuple(self._p.items()))

    def __repr__(self) -> str:
        body = ", ".join(f"{k}: {v}" for k, v in self._p.items())
        return f"Pmf({{{body}}})"

    def __add__(self, other: Pmf | int) -> Pmf:
        if isinstance(other, int):
            return Pmf({k + other: v for k, v in self._p.items()})
        out: dict[int, Fraction] = {}
        for a, pa in self._p.items():
            for b, pb in other._p.items():
                out[a + b] = out.get(a + b, Fraction(0)) + pa * pb
        return Pmf(out)

    __radd__ = __add__

    def map(self, f: Callable[[int], int]) -> Pmf:
        """The distribution of ``f(X)``."""
        out: dict[int, Fraction] = {}
        for k, v in self._p.items():
            out[f(k)] = out.get(f(k), Fraction(0)) + v
        return Pmf(out)

    def probability(self, event: Callable[[int], bool]) -> Fraction:
        """``P(event(X))``."""
        return sum((v for k, v in self._p.items() if event(k)), Fraction(0))

    def at_least(self, k: int) -> Fraction:
        """``P(X >= k)``."""
        return self.probability(lambda x: x >= k)

    def mean(self) -> Fraction:
        return sum((k * v for k, v in self._p.items()), Fraction(0))

    def variance(self) -> Fraction:
        mu = self.mean()
        return sum(((k - mu) ** 2 * v for k, v in self._p.items()), Fraction(0))

    def to_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(outcomes int64, probabilities float64)``, sorted by outcome."""
        return (np.fromiter(self._p, dtype=np.int64, count=len(self._p)),
                np.array([float(v) for v in self._p.values()]))


@cache
def die(sides: int) -> Pmf:
    """One fair die numbered 1..sides."""
    if sides < 1:
        raise ValueError(f"a die needs at least one side, got {sides}")
    return Pmf({face: Fraction(1, sides) for face in range(1, sides + 1)})


@cache
def pmf(n: int, sides: int) -> Pmf:
    """The exact distribution of the sum of ``n`` dice with ``sides`` sides (``nds``)."""
    if n < 0:
        raise ValueError(f"number of dice must be >= 0, got {n}")
    total = Pmf({0: 1})
    for _ in range(n):
        total = total + die(sides)
    return total


def _dtype_for(high: int) -> type[np.integer]:
    return np.int8 if high <= 127 else np.int16 if high <= 32767 else np.int32


def d(sides: int, size: int | tuple[int, ...], *, rng: np.random.Generator,
      dtype: Any = None) -> np.ndarray:
    """Roll one ``sides``-sided die ``size`` times (values 1..sides)."""
    dtype = dtype or _dtype_for(sides)
    return rng.integers(1, sides + 1, size=size, dtype=dtype)


@cache
def outcome_table(n: int, sides: int) -> np.ndarray:
    """Faces of every ordered outcome of ``n`` dice: shape ``(sides**n, n)``, int8.

    Row ``code`` holds the faces whose mixed-radix number is ``code``; so one uniform draw
    in ``[0, sides**n)`` is one roll of all ``n`` dice.
    """
    faces = np.array(list(product(range(1, sides + 1), repeat=n)), dtype=np.int8)
    faces.setflags(write=False)
    return faces.reshape(sides**n, n)


@cache
def sum_table(n: int, sides: int) -> np.ndarray:
    """Sum of the dice for each outcome code of :func:`outcome_table` (int8/int16)."""
    table = outcome_table(n, sides).sum(axis=1).astype(_dtype_for(n * sides))
    table.setflags(write=False)
    return table


def nd(n: int, sides: int, size: int | tuple[int, ...], *, rng: np.random.Generator) -> np.ndarray:
    """Roll ``n`` dice of ``sides`` sides, ``size`` times, returning the sums.

    Small pools (``sides**n <= 65536``) use one unbiased draw per roll and a lookup;
    larger ones add ``n`` separate dice.
    """
    if sides**n <= 1 << 16:
        code = rng.integers(0, sides**n, size=size, dtype=np.uint16 if sides**n > 256 else np.uint8)
        return sum_table(n, sides)[code]
    total = np.zeros(size, dtype=_dtype_for(n * sides))
    for _ in range(n):
        total += d(sides, size, rng=rng, dtype=total.dtype)
    return total


def words16(size: int, *, rng: np.random.Generator) -> np.ndarray:
    """``size`` uniform 16-bit words (uint16) straight from the bit generator.

    Four words per 64-bit draw: the cheapest randomness NumPy offers.  The words are read
    in the machine's byte order (little-endian on every platform NumPy supports in
    practice), so streams are reproducible across such machines.
    """
    return codes_from_bits(65536, size, rng.bit_generator)


def codes(k: int, size: int, *, rng: np.random.Generator) -> np.ndarray:
    """``size`` exactly uniform integers in ``[0, limit)`` for ``limit = (65536 // k) * k``.

    Each value ``u`` stands for the outcome ``u % k``, uniformly: read outcomes through
    :func:`expand` (a table tiled to ``limit`` entries) to avoid the modulo.  Words at or
    above ``limit`` are rejected and redrawn, so no outcome is favoured.
    """
    return codes_from_bits(k, size, rng.bit_generator)


def codes_from_bits(k: int, size: int, bits: np.random.BitGenerator) -> np.ndarray:
    """:func:`codes` from a bit generator itself (kernels that keep it, to skip the
    Generator's attribute lookup every call); the same words from the same stream."""
    return codes_from_raw(code_limit(k), size, bits.random_raw)


def code_limit(k: int) -> int:
    """The largest multiple of ``k`` words up to 2^16 (:func:`codes` redraws the rest)."""
    if not 1 <= k <= 1 << 16:
        raise ValueError(f"k must be in 1..65536, got {k}")
    return (65536 // k) * k


def codes_from_raw(limit: int, size: int, raw: Callable[[int], np.ndarray]) -> np.ndarray:
    """``size`` 16-bit words below ``limit`` (:func:`code_limit`) from ``raw(n)``, a bit
    generator's ``random_raw``: four words a raw draw, each word at or above the limit
    redrawn, in order, from the words that follow."""
    def words(n: int) -> np.ndarray:
        return np.asarray(raw((n + 3) // 4), dtype=np.uint64).view(np.uint16)[:n]

    u = words(size)
    if limit < 65536:
        bad = np.flatnonzero(u >= limit)
        while bad.size:
            u = u.copy() if not u.flags.writeable else u
            fresh = words(bad.size)
            u[bad] = fresh
            bad = bad[fresh >= limit]
    return u


def expand(table: np.ndarray, k: int | None = None) -> np.ndarray:
    """Tile a lookup table over outcome codes ``0..k-1`` to the ``limit`` of :func:`codes`."""
    k = len(table) if k is None else k
    out = np.tile(np.asarray(table), 65536 // k)
    out.setflags(write=False)
    return out


def categorical(probabilities: np.ndarray, size: int, *, rng: np.random.Generator) -> np.ndarray:
    """Draw indices ``0..k-1`` with the given probabilities (float, summing to 1)."""
    cdf = np.cumsum(probabilities)
    cdf[-1] = 1.0
    return np.searchsorted(cdf, rng.random(size), side="right").astype(np.int16)


@cache
def _word_sums(n: int, sides: int) -> np.ndarray:
    """:func:`sum_table` tiled over the words :func:`codes` keeps (read-only)."""
    return expand(sum_table(n, sides))


class WordDice:
    """Dice read from 16-bit words of a generator's bit stream (:func:`codes_from_bits`):
    an unbiased word per roll of a pool of up to 65,536 ordered outcomes, its sum looked up
    -- several times cheaper than ``Generator.integers`` on a large batch.  A kernel hands
    one to the rules language in place of the generator (its dice terms then draw through
    :meth:`nd`); anything else is the generator's own (``integers``, ``random``, ...)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.bits = rng.bit_generator

    def nd(self, n: int, sides: int, size: int) -> np.ndarray:
        """``size`` sums of ``n`` dice of ``sides`` sides."""
        if sides**n <= 1 << 16:
            return _word_sums(n, sides)[codes_from_bits(sides**n, size, self.bits)]
        total = np.zeros(size, dtype=_dtype_for(n * sides))
        for _ in range(n):
            total += _word_sums(1, sides)[codes_from_bits(sides, size, self.bits)]
        return total

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rng, name)
