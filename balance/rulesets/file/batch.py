"""A batch of fights of one matchup, and the two ways its dice are settled.

A :class:`Batch` holds ``m`` rows (fights, or in the exact solver weighted branches of
fights): each changing value of a fighter as an array of shape ``(2, m)`` (row 0 fighter
A, row 1 fighter B), each fight-level value as ``(m,)``, and the fixed values (stats,
derived values, rule parameters) once.  A :class:`View` says who ``self`` and ``target``
are in an evaluation: both fighters at once (``2m`` values, A's then B's) or, per fight,
the fighter whose turn it is.

Dice are settled by a backend:

* :class:`Sampler` draws them (the kernel): one vectorised evaluation per expression;
* :class:`Enumerator` branches on them (the exact solver): a row becomes one row per value
  the expression can take, its weight multiplied by that value's exact probability (the
  language's own :meth:`~balance.language.Expression.distribution`), and every array of
  the batch is re-indexed to match.  So the engine code that plays a round never keeps an
  array across an evaluation: it reads the batch again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...language import Expression, Names

__all__ = ["Batch", "Enumerator", "Sampler", "View"]

BOTH = "both"


@dataclass(frozen=True)
class View:
    """Who ``self`` is: ``"both"`` (A's rows then B's), ``"a"`` (A, against B: the fight's
    own point of view), or ``"mover"`` (per fight, the fighter in ``fight["mover"]``; the
    enumerator's ``"_side"`` likewise)."""

    kind: str

    def size(self, m: int) -> int:
        return 2 * m if self.kind == BOTH else m


VIEW_BOTH = View(BOTH)
VIEW_A = View("a")
VIEW_MOVER = View("mover")
VIEW_SIDE = View("_side")  # the enumerator's: one fighter's rows at a time


class Batch:
    """The rows of one matchup in play (see the module docstring)."""

    def __init__(self, m: int, fixed: Mapping[str, np.ndarray], rules: Mapping[str, Any],
                 names: Names, weighted: bool = False) -> None:
        self.m = m
        self.fixed = dict(fixed)       # name -> (2,) per fighter
        self.rules = dict(rules)       # name -> scalar
        self.names = names
        self.state: dict[str, np.ndarray] = {}   # name -> (2, m)
        self.fight: dict[str, np.ndarray] = {}   # name -> (m,)
        self.scalars: dict[str, int] = {}
        self.weight: np.ndarray | None = np.ones(m) if weighted else None
        self._spread: dict[tuple[str, bool], np.ndarray] = {}  # fixed values, both views

    # --- rows ----------------------------------------------------------------------------
    def take(self, index: np.ndarray) -> None:
        """Keep (and repeat) the rows ``index``, in that order."""
        for key, value in self.state.items():
            self.state[key] = value[:, index]
        for key, value in self.fight.items():
            self.fight[key] = value[index]
        if self.weight is not None:
            self.weight = self.weight[index]
        self.m = len(index)
        self._spread.clear()

    def drop(self, names: tuple[str, ...] | list[str], *, fight: tuple[str, ...] = ()) -> None:
        """Forget the fighter values ``names`` (and fight values ``fight``) and merge the
        rows that then agree -- none can unless a forgotten value differed between rows, so
        a batch merged since its last change skips the merge when they were all alike."""
        varied = False
        for store, keys in ((self.state, names), (self.fight, fight)):
            for key in keys:
                value = store.pop(key, None)
                if value is not None and value.size and not varied:
                    varied = bool((value != value.flat[0]).any())
        if varied:
            self.merge()

    def merge(self) -> None:
        """Weighted rows that agree on every state and fight value become one (their
        weights added).  Nothing for an unweighted batch (the kernel's)."""
        if self.m <= 1 or self.weight is None:
            return
        columns = [v.astype(np.int64) for v in self.state.values()]
        columns += [v.astype(np.int64)[None, :] for v in self.fight.values()]
        if not columns:
            return
        first, inverse, count = rows_alike(np.concatenate(columns, axis=0))
        if count == self.m:
            return
        weight: np.ndarray = np.bincount(inverse, weights=self.weight, minlength=count)
        self.take(first)
        self.weight = weight

    # --- what an expression reads ------------------------------------------------------------
    def env(self, expression: Expression, view: View) -> dict[str, Any]:
        """The values ``expression`` reads, for every row of ``view``."""
        out: dict[str, Any] = {}
        for name in expression.names_used:
            out[name] = self.value(name, view)
        return out

    def value(self, name: str, view: View) -> Any:
        role, dot, field = name.partition(".")
        if not dot:
            return self.scalars[name] if name in self.scalars else self.rules[name]
        own = role == "self"
        if field in self.fixed:
            pair = self.fixed[field]
            if pair[0] == pair[1]:  # the same for both fighters: one number for every row
                return pair[0].item()
            if view.kind == BOTH:
                spread = self._spread.get((field, own))
                if spread is None:
                    spread = self._spread[(field, own)] = np.repeat(pair if own else pair[::-1],
                                                                    self.m)
                return spread
            if view.kind == "a":
                return pair[0 if own else 1].item()
            mover = self.fight[view.kind]
            return pair[mover if own else 1 - mover]
        grid = self.state[field]
        if view.kind == BOTH:
            return (grid if own else grid[::-1]).reshape(-1)
        if view.kind == "a":
            return grid[0 if own else 1]
        mover = self.fight[view.kind]
        rows = np.arange(self.m)
        return grid[mover if own else 1 - mover, rows]

    def put(self, name: str, values: np.ndarray, view: View, mask: np.ndarray | None = None,
            *, fill: Any = 0, dtype: Any = None) -> None:
        """Store per-row ``values`` of ``view`` as the fighter value ``name`` (rows of the
        other fighter in a one-sided view, and rows outside ``mask``, keep what they held,
        or ``fill`` for a new name)."""
        values = np.asarray(values)
        dtype = dtype or values.dtype
        if mask is not None and mask.all():  # every row: a store, not a blend
            mask = None
        if (view.kind == BOTH and mask is None and values.shape == (2 * self.m,)
                and values.dtype == dtype):
            self.state[name] = values.reshape(2, self.m)  # the values themselves: no copy
            return
        grid = self.state.get(name)
        if (view.kind == BOTH and mask is not None and values.shape == (2 * self.m,)
                and (grid is None or grid.shape[1] != self.m)):  # new: values or the fill
            self.state[name] = np.where(mask, values, fill).astype(dtype, copy=False).reshape(
                2, self.m)
            return
        if grid is None or grid.shape[1] != self.m:
            grid = np.full((2, self.m), fill, dtype=dtype)
        elif grid.dtype != dtype:
            grid = grid.astype(dtype)
        if view.kind == BOTH:
            shaped = values.reshape(2, self.m) if values.ndim else values
            if mask is None:
                grid[...] = shaped
            else:
                grid[...] = np.where(mask.reshape(2, self.m), shaped, grid)
        else:
            side = 0 if view.kind == "a" else self.fight[view.kind]
            rows = np.arange(self.m)
            old = grid[side, rows]
            grid[side, rows] = values if mask is None else np.where(mask, values, old)
        self.state[name] = grid

    def own(self, name: str, view: View) -> np.ndarray:
        """The per-row values of fighter value ``name`` for the actors of ``view``."""
        return np.asarray(self.value(f"self.{name}", view))

    def foe(self, name: str, view: View) -> np.ndarray:
        return np.asarray(self.value(f"target.{name}", view))


def rows_alike(columns: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Group the rows of ``columns`` (shape ``(k, m)``: k values per row) that are equal:
    (the first row of each group, each row's group, the number of groups).  The values are
    packed into one whole number per row (mixed radix over each column's span) when they
    fit, which sorts far faster than rows."""
    k, m = columns.shape
    if k == 0 or m == 0:
        return np.zeros(min(m, 1), np.int64), np.zeros(m, np.int64), min(m, 1)
    low = columns.min(axis=1)
    span = (columns.max(axis=1) - low + 1).tolist()
    if math.prod(span) < 2**62:
        code = columns[0] - low[0]
        for row in range(1, k):
            code = code * span[row] + (columns[row] - low[row])
        unique, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    else:
        unique, first, inverse = np.unique(columns.T, axis=0, return_index=True,
                                           return_inverse=True)
    return first, inverse.ravel(), len(unique)


_DISTRIBUTIONS: dict[Expression, dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]] = {}
"""Exact distributions already worked out: expression -> the values it read -> (values,
probabilities).  They never change, so one process keeps them (up to a bound an
expression)."""
MAX_CACHED = 100_000


def constant_column(expression: Expression, n: int) -> np.ndarray:
    """A constant expression's value for ``n`` rows (bool for a condition, else int64)."""
    return np.full(n, expression.constant,
                   dtype=bool if expression.purpose == "condition" else np.int64)


class Sampler:
    """Settles dice by drawing them (the kernel)."""

    weighted = False

    def __init__(self, rng: np.random.Generator) -> None:
        from ...dice import WordDice

        self.rng = rng
        self.dice: Any = WordDice(rng)  # the expressions' dice, from 16-bit words

    def evaluate(self, expression: Expression, batch: Batch, view: View,
                 mask: np.ndarray | None = None) -> np.ndarray:
        n = view.size(batch.m)
        if expression.constant is not None:
            return constant_column(expression, n)
        env = batch.env(expression, view)
        if mask is not None and expression.has_dice:
            rows = np.flatnonzero(mask)
            if 2 * len(rows) < n:  # dice for the rows that use them (others read 0)
                values = expression.evaluate(
                    {k: v[rows] if isinstance(v, np.ndarray) else v for k, v in env.items()},
                    self.dice, n=len(rows))
                out = np.zeros(n, values.dtype)
                out[rows] = values
                return out
        return expression.evaluate(env, self.dice, n=n)

    def coin(self, batch: Batch, mask: np.ndarray) -> np.ndarray:
        """A fair coin per row (where ``mask``)."""
        return self.rng.integers(0, 2, batch.m).astype(bool) & mask


class Enumerator:
    """Settles dice by branching on them (the exact solver): see the module docstring."""

    weighted = True

    def evaluate(self, expression: Expression, batch: Batch, view: View,
                 mask: np.ndarray | None = None) -> np.ndarray:
        n = view.size(batch.m)
        if expression.constant is not None:
            return constant_column(expression, n)
        if not expression.has_dice:
            return expression.evaluate(batch.env(expression, view), None, n=n)
        if expression.purpose == "condition":
            try:  # settled without its dice (``False and d100 <= ...``): nothing to branch on
                return expression.evaluate(batch.env(expression, view), None, n=n)
            except ValueError:
                pass
        if view.kind != BOTH:
            return self._branch(expression, batch, view, mask)
        # both fighters roll their own dice: branch on A's rolls, then on B's
        if mask is not None:
            b_mask = mask.reshape(2, batch.m)[1]
            batch.state["_b_mask"] = np.stack([b_mask, b_mask])
        a_values = self._branch(expression, batch, _side(batch, 0),
                                None if mask is None else mask.reshape(2, batch.m)[0])
        batch.state["_a_value"] = np.stack([a_values, a_values])
        b_values = self._branch(expression, batch, _side(batch, 1),
                                None if mask is None else batch.state["_b_mask"][0])
        out = np.concatenate([batch.state.pop("_a_value")[0], b_values])
        batch.state.pop("_b_mask", None)
        batch.fight.pop("_side", None)
        return out.astype(bool) if expression.purpose == "condition" else out

    def _branch(self, expression: Expression, batch: Batch, view: View,
                mask: np.ndarray | None) -> np.ndarray:
        """One row per value ``expression`` takes in each row (where ``mask``; others keep
        one row, value 0), the batch re-indexed and its weights multiplied."""
        m = batch.m
        env = batch.env(expression, view)
        names = expression.names_used
        columns = [np.broadcast_to(np.asarray(env[k]), (m,)).astype(np.int64) for k in names]
        key = np.stack(columns) if columns else np.zeros((0, m), np.int64)
        rows = np.arange(m) if mask is None else np.flatnonzero(mask)
        first, inverse, _ = rows_alike(key[:, rows])
        unique = key[:, rows[first]].T
        cache = _DISTRIBUTIONS.setdefault(expression, {})
        tables = [self._table(expression, cache, tuple(u)) for u in unique.tolist()]
        width = max((len(t[0]) for t in tables), default=1)
        values = np.zeros((len(unique), width), np.int64)
        probs = np.zeros((len(unique), width))
        for i, (v, p) in enumerate(tables):
            values[i, :len(v)], probs[i, :len(p)] = v, p
        # every row's branches (a row outside the mask: one, value 0, probability 1),
        # read row by row: the rows stay in order, each followed by its own branches
        row_values = np.zeros((m, width), np.int64)
        row_probs = np.zeros((m, width))
        row_probs[:, 0] = 1.0
        row_values[rows] = values[inverse]
        row_probs[rows] = probs[inverse]
        row, branch = np.nonzero(row_probs > 0)
        batch.take(row)
        assert batch.weight is not None
        batch.weight = batch.weight * row_probs[row, branch]
        return row_values[row, branch]

    def _table(self, expression: Expression, cache: dict[tuple[int, ...], Any],
               key: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
        """The exact distribution of ``expression`` where its names hold ``key`` (codes),
        as (values, probabilities), cached (``cache``: the expression's own)."""
        cached = cache.get(key)
        if cached is None:
            env = dict(zip(expression.names_used, key, strict=True))
            dist = expression.distribution(env)
            cached = (np.array([int(v) for v in dist], np.int64),
                      np.array([float(p) for p in dist.values()]))
            if len(cache) >= MAX_CACHED:
                cache.clear()
            cache[key] = cached
        return cached

    def contest(self, expression: Expression, batch: Batch) -> tuple[np.ndarray, np.ndarray]:
        """Each fighter rolls ``expression`` (its own dice, its own values): per row, the
        exact chance that B's value is above A's, and that they are equal -- worked out
        once per distinct set of values read, never branching the batch on the values."""
        names = expression.names_used
        m = batch.m
        columns = []
        for side in (0, 1):
            env = batch.env(expression, _side(batch, side))
            columns += [np.broadcast_to(np.asarray(env[k]), (m,)).astype(np.int64)
                        for k in names]
        batch.fight.pop("_side", None)
        key = np.stack(columns) if columns else np.zeros((0, m), np.int64)
        first, inverse, count = rows_alike(key)
        cache = _DISTRIBUTIONS.setdefault(expression, {})
        above, equal = np.zeros(count), np.zeros(count)
        for group, row in enumerate(first.tolist()):
            a_values, a_probs = self._table(expression, cache, tuple(key[:len(names), row]))
            b_values, b_probs = self._table(expression, cache, tuple(key[len(names):, row]))
            gap = b_values[None, :] - a_values[:, None]
            joint = a_probs[:, None] * b_probs[None, :]
            above[group], equal[group] = joint[gap > 0].sum(), joint[gap == 0].sum()
        return above[inverse], equal[inverse]

    def chance(self, batch: Batch, p: np.ndarray) -> np.ndarray:
        """Each row split in two: where an event of chance ``p`` (per row) happens
        (weight ``p``) and where it does not (``1 - p``), a part of chance 0 left out;
        whether it happened, per row of the new batch."""
        rows = np.arange(batch.m)
        index = np.concatenate([rows, rows])
        happened = np.concatenate([np.zeros(batch.m, bool), np.ones(batch.m, bool)])
        weight = np.concatenate([1.0 - p, p])
        keep = np.flatnonzero(weight > 0)
        order = keep[np.argsort(index[keep], kind="stable")]
        batch.take(index[order])
        assert batch.weight is not None
        batch.weight = batch.weight * weight[order]
        return happened[order]

    def coin(self, batch: Batch, mask: np.ndarray) -> np.ndarray:
        rows = np.flatnonzero(mask)
        others = np.flatnonzero(~mask)
        index = np.concatenate([rows, rows, others])
        heads = np.concatenate([np.zeros(len(rows), bool), np.ones(len(rows), bool),
                                np.zeros(len(others), bool)])
        weight = np.concatenate([np.full(2 * len(rows), 0.5), np.ones(len(others))])
        order = np.argsort(index, kind="stable")
        batch.take(index[order])
        assert batch.weight is not None
        batch.weight = batch.weight * weight[order]
        return heads[order]


def _side(batch: Batch, side: int) -> View:
    """A one-sided view with ``self`` fighter ``side`` in every row."""
    batch.fight["_side"] = np.full(batch.m, side, np.int8)
    return VIEW_SIDE
