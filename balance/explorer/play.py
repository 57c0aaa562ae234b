"""Best play and "make it even" for the explorer, without widgets.

* :func:`best` -- both sides' best policies for a :class:`~.question.Question`
  (:func:`balance.analysis.bestplay.solve`): exact where a best-play solver reaches, else
  Monte Carlo to :data:`BEST_PRECISION` on the question's seed, with its interval.  Before
  a Monte Carlo search starts, :func:`monte_carlo_estimate` says how long it takes at
  least (a pilot of the matchup's kernel).
* :func:`knobs` and :func:`default_knob` -- the numeric fields "make it even" may turn;
  :func:`make_even` runs ``balance tune`` (:func:`balance.analysis.tune.tune`) on one, and
  its :class:`~balance.analysis.tune.Tuning` names the whole values that bracket even.

Both take a ``superseded`` callable (the panel's: a newer question came) and stop early
by raising :class:`Superseded` from the search's progress callback.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import IntractableError
from .question import Control, Question

__all__ = ["BEST_PRECISION", "Estimate", "Superseded", "best", "default_knob", "knobs",
           "make_even", "monte_carlo_estimate"]

BEST_PRECISION = 0.01
"""Target half-width of Monte Carlo best play's value: one point of expected score (the
default of ``balance duel --play best``)."""

NUMERIC = ("int_slider", "int", "float_slider", "float")
"""Control kinds of the fields tune can turn (an integer or a real field)."""


class Superseded(Exception):
    """The question changed while a search ran: its answer is not wanted any more."""


def best_exact(question: Question) -> Any:
    """Best play by an exact solver (the ruleset's state by state, else the matrix game of
    exact profile payoffs); :class:`IntractableError` where neither reaches."""
    from ..analysis.bestplay import solve

    rs, rules, side_a, side_b = question.resolve()
    return solve(rs, rules, side_a, side_b, method="exact")


def best(question: Question, *, precision: float = BEST_PRECISION) -> Any:
    """Both sides' best play (:class:`~balance.analysis.bestplay.BestPlay`): exact where a
    solver reaches, else Monte Carlo to ``precision`` on the question's seed (``balance duel
    --play best --seed SEED --precision P`` gives the same answer)."""
    try:
        return best_exact(question)
    except IntractableError:
        return best_monte_carlo(question, precision=precision)


def best_monte_carlo(question: Question, *, precision: float = BEST_PRECISION) -> Any:
    from ..analysis.bestplay import solve

    rs, rules, side_a, side_b = question.resolve()
    return solve(rs, rules, side_a, side_b, method="simulate", precision=precision,
                 seed=question.seed)


@dataclass(frozen=True)
class Estimate:
    """How long Monte Carlo best play takes at least: the fights of one profile pair at
    its first sample size, at the rate a pilot of the matchup ran."""

    fights: int
    rate: float

    @property
    def seconds(self) -> float:
        return self.fights / self.rate

    def text(self) -> str:
        from ..budget import duration

        return (f"at least {duration(self.seconds)} ({self.fights:,} fights of a profile pair "
                f"at {self.rate:,.0f} fights a second; a search for better policies adds "
                "more)")


def monte_carlo_estimate(question: Question) -> Estimate:
    """The least time Monte Carlo best play of ``question`` takes (see :class:`Estimate`)."""
    from ..analysis.bestplay import CHUNK_SIZE, MIN_CHUNKS
    from ..budget import pilot_rate

    rs, rules, side_a, side_b = question.resolve()
    rate = pilot_rate(rs, rules, side_a, side_b, chunk_size=CHUNK_SIZE)
    return Estimate(MIN_CHUNKS * CHUNK_SIZE, rate)


# --- make it even -------------------------------------------------------------------------------


def knobs(members_a: Sequence[Sequence[Control]], members_b: Sequence[Sequence[Control]],
          rules: Sequence[Control]) -> list[tuple[str, str]]:
    """The numeric fields "make it even" may turn, as (label, knob path) pairs: each
    fighter's (``a.0.combats``, labelled "A1: combats survived"), then the rules'."""
    out = []
    for side, members in (("a", members_a), ("b", members_b)):
        for i, found in enumerate(members):
            out += [(f"{side.upper()}{i + 1}: {c.label}", f"{side}.{i}.{c.name}")
                    for c in found if c.kind in NUMERIC]
    out += [(f"rules: {c.label}", f"rules.{c.name}") for c in rules if c.kind in NUMERIC]
    return out


def default_knob(members_a: Sequence[Sequence[Control]], presets: Sequence[Any] = ()
                 ) -> str | None:
    """The knob offered first: side A's first fighter's whole-number ability that the
    ruleset's presets spread most over (distinct values among them times the slider's
    span; the first declared on a tie): crt's combats survived, strike-rank's skill, zones'
    might.  ``None`` if the fighter has no whole-number ability."""
    if not members_a:
        return None
    found = [c for c in members_a[0] if c.kind == "int_slider" and not c.policy]
    if not found:
        return None

    def spread(c: Control) -> float:
        low, high = c.span or (c.low or 0, c.high or 0)
        distinct = len({repr(getattr(p, c.name, None)) for p in presets}) or 1
        return distinct * (high - low)

    return f"a.0.{max(found, key=spread).name}"  # max keeps the first of equals


def make_even(question: Question, knob: str, *, play: str = "default",
              superseded: Callable[[], bool] | None = None,
              progress: Callable[[int, float], None] | None = None) -> Any:
    """``balance tune`` on ``knob`` for the question's matchup (its rules, sides and seed):
    the :class:`~balance.analysis.tune.Tuning` that makes A's expected score 50%.

    ``play="best"`` tunes under best play at every value tried.  ``progress`` is told the
    values tried and the seconds spent after each; a true ``superseded()`` stops the
    search (:class:`Superseded`)."""
    from ..analysis.tune import tune

    rs, _, _, _ = question.resolve()
    start = time.perf_counter()

    def tick(tried: int) -> None:
        if superseded is not None and superseded():
            raise Superseded
        if progress is not None:
            progress(tried, time.perf_counter() - start)

    return tune(rs, [m.spec() for m in question.a], [m.spec() for m in question.b],
                rules=dict(question.rules), knob=knob, seed=question.seed, play=play,
                progress=tick)
