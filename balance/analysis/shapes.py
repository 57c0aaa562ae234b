"""The shape of an effect: how a rate moves over the values of one stat.

A verdict that says what a point of a stat is worth says it "on average" only where the
steps agree; otherwise it names the shape (:func:`shape`), from the steps between
consecutive values (each with its 95% half-width, 0 when exact):

* **flat**: every step is *still* -- within :data:`TIE`, or not beyond it by a difference
  Holm's procedure over the curve's steps claims at 5% (each step's interval the two
  cells' in quadrature) -- and so is the whole change, first value to last (where it is
  not, no step is still: a gradual change);
* **cliff**: one step carries at least :data:`CLIFF_SHARE` of the whole movement and at
  least :data:`CLIFF_RATIO` times the next largest step ("0% / 28.8% / 100%");
* **pairs** (or threes, ...): still and moving steps alternate with a period (every
  second point moves: a stat that enters as ``x // 2``);
* **staircase**: still steps (ties) between the moving ones, without a period;
* **peaked**: it rises then falls (or falls then rises): moving steps of both signs, each
  beyond its interval;
* **linear**: the steps between the plateaus agree within their intervals and
  :data:`ROUGHLY` of the mean step (tested before ties, so noise that hides a step is not
  called a staircase);
* **diminishing** / **increasing**: the steps shrink (grow) from the first to the last,
  beyond their intervals and :data:`ROUGHLY` of the mean, and no step grows (shrinks) on
  the one before by more than that;
* **uneven**: none of these.

Still steps at either end (a rate that has reached 0% or 100%, or not yet left it) are a
*plateau*, reported beside the shape of the steps between them.  Whole-number stats are
named in whole numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["CLIFF_RATIO", "CLIFF_SHARE", "ROUGHLY", "TIE", "Shape", "shape"]

TIE = 0.001
"""A step of an exact curve is still when it moves by at most this (a tenth of a point);
a simulated step, unless Holm's procedure over the curve's steps claims it moves by more."""
CLIFF_SHARE = 0.6
"""A cliff's step carries at least this share of the curve's whole movement..."""
CLIFF_RATIO = 2.0
"""... and at least this many times the next largest step."""
ROUGHLY = 0.25
"""Steps agree (a roughly linear effect) when they differ by no more than their intervals
allow plus this share of the mean step; the first and last steps of a diminishing or
increasing effect differ by more."""


@dataclass(frozen=True)
class Shape:
    """A curve's shape (see the module): ``kind``, the values ``xs`` and ``ys``, the steps
    between them per point of ``x`` (``steps``, with 95% half-widths ``halves``),
    which steps are still, the largest step's index (``top``), the period of a ``pairs``
    curve, and the plateaus: the first moving step's index and the last's."""

    kind: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    steps: tuple[float, ...]
    halves: tuple[float, ...]
    still: tuple[bool, ...]
    top: int = 0
    period: int = 0
    first: int = 0
    last: int = 0

    @property
    def moving(self) -> list[int]:
        """The indices of the steps that move."""
        return [i for i, s in enumerate(self.still) if not s]

    @property
    def total(self) -> float:
        """The whole change, first value to last."""
        return self.ys[-1] - self.ys[0]

    @property
    def mean(self) -> float:
        """The mean step per point (the whole change over the whole range)."""
        return self.total / (self.xs[-1] - self.xs[0])


def shape(xs: Sequence[float], ys: Sequence[float], halves: Sequence[float] | None = None
          ) -> Shape:
    """The shape of the curve ``ys`` over ``xs`` (sorted, at least two values), each value
    with its 95% half-width in ``halves`` (``None``: exact)."""
    x = np.asarray(xs, float)
    y = np.asarray(ys, float)
    if len(x) < 2:
        raise ValueError("a shape needs at least two values")
    h = np.zeros(len(y)) if halves is None else np.asarray(halves, float)
    width = np.diff(x)
    raw = np.diff(y)
    raw_half = np.hypot(h[:-1], h[1:])
    steps, step_half = raw / width, raw_half / width
    still = ~_moves(raw, raw_half)
    if still.all() and _moves(np.array([y[-1] - y[0]]), np.array([np.hypot(h[0], h[-1])]))[0]:
        still[:] = False  # no step alone is sure, yet the whole moves: a gradual change
    moving = np.flatnonzero(~still)

    def made(kind: str, **extra: int) -> Shape:
        first = int(moving[0]) if len(moving) else 0
        last = int(moving[-1]) if len(moving) else len(steps) - 1
        return Shape(kind, tuple(x.tolist()), tuple(y.tolist()), tuple(steps.tolist()),
                     tuple(step_half.tolist()), tuple(bool(s) for s in still),
                     first=first, last=last, **extra)

    if len(moving) == 0:
        return made("flat")
    size = np.abs(raw)
    order = np.argsort(size)[::-1]
    top = int(order[0])
    runner = float(size[order[1]]) if len(size) > 1 else 0.0
    if (len(size) > 1 and size[top] >= CLIFF_SHARE * size.sum()
            and size[top] >= CLIFF_RATIO * runner):
        return made("cliff", top=top)
    span = slice(int(moving[0]), int(moving[-1]) + 1)  # between the plateaus
    if _agree(steps[span], step_half[span]):
        return made("linear", top=top)
    inner = still[span]
    if inner.any():
        period = _period(inner)
        return made("pairs", top=top, period=period) if period else made("staircase", top=top)
    signs = np.sign(raw[moving])
    if (signs > 0).any() and (signs < 0).any():
        return made("peaked", top=top)
    s, hs = steps[moving], step_half[moving]
    slack = ROUGHLY * abs(float(s.mean()))
    mag = np.abs(s)
    change = np.diff(mag)
    allowed = hs[:-1] + hs[1:] + slack  # what one step may differ from the next by
    if mag[0] - mag[-1] > hs[0] + hs[-1] + slack and not (change > allowed).any():
        return made("diminishing", top=top)
    if mag[-1] - mag[0] > hs[0] + hs[-1] + slack and not (-change > allowed).any():
        return made("increasing", top=top)
    return made("uneven", top=top)


def _moves(raw: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Which steps move: by more than :data:`TIE`, the steps of one curve tested together
    under Holm's procedure at 5% (a curve of sixty steps has three that clear their own 95%
    interval by chance); an exact step (``half`` 0) moves when it is larger than
    :data:`TIE`."""
    from ..stats import holm, normal_pvalue, z_value

    return holm(normal_pvalue(raw, half / z_value(0.95), TIE)) < 0.05


def _agree(steps: np.ndarray, halves: np.ndarray) -> bool:
    """Whether the steps agree: every two differ by no more than their half-widths together
    plus :data:`ROUGHLY` of the mean step (and the mean step is not 0)."""
    mean = abs(float(steps.mean()))
    if mean == 0:
        return False
    slack = ROUGHLY * mean
    return all(abs(steps[i] - steps[j]) <= halves[i] + halves[j] + slack
               for i in range(len(steps)) for j in range(i + 1, len(steps)))


def _period(still: np.ndarray) -> int:
    """The period of a run of steps whose moving ones come every ``p``-th step (``p - 1``
    still steps between each two, the run starting and ending on a moving step); 0 when
    none."""
    moving = np.flatnonzero(~still)
    if len(moving) < 2:
        return 0
    gaps = set(np.diff(moving).tolist())
    return int(gaps.pop()) if len(gaps) == 1 and 1 not in gaps else 0
