"""The explorer's answers: exact where the solver covers a matchup, Monte Carlo within a time
budget otherwise, refined chunk by chunk while nothing changes; and comparisons of two
variants on common random numbers.

A Monte Carlo answer after ``k`` chunks is exactly ``balance.duel(..., n=k * CHUNK,
seed=seed, chunk_size=CHUNK)``: chunk ``i`` draws from ``stream(seed, i)`` as the engine's
does, so every number the explorer shows can be reproduced from the command line.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine import run_chunk
from ..errors import IntractableError, SpecError
from ..random import stream
from ..results import Summary, Tally, Winner
from ..rulesets.base import Ruleset, Side
from .question import Question

__all__ = ["CHUNK", "Answer", "Comparison", "Difference", "ExactAnswer", "PairedRefiner",
           "Refiner", "answer", "answer_now", "compare", "solve_exact"]

CHUNK = 1 << 14
"""Fights per chunk: small enough that the quickest answer needs one chunk (a few ms for
crt, under 0.2 s for a strike-rank group fight), so the budget is kept; ``balance duel
--chunk-size 16384`` reproduces an explorer answer."""

BUDGET_S = 0.3
"""Time budget of the first answer to a change."""

Superseded = Callable[[], bool]


def _never() -> bool:
    return False


# --- exact answers, cached ----------------------------------------------------------------

_EXACT: OrderedDict[Any, Any] = OrderedDict()
_EXACT_SIZE = 128


def solve_exact(rs: Ruleset, rules: Any, side_a: Side, side_b: Side) -> Any:
    """``balance.exact`` on validated objects, with a small cache (moving a slider back is
    instant); the :class:`~balance.Probabilities` (with the readings and policies it rests
    on), or the reason (a string) the solver cannot answer."""
    from ..api import solve

    key = (rs.name, rules, side_a, side_b)
    if key in _EXACT:
        _EXACT.move_to_end(key)
        return _EXACT[key]
    result: Any = rs.exact_check(rules, side_a, side_b)
    if result is None:
        try:
            result = solve(rs, rules, side_a, side_b)
        except IntractableError as exc:
            result = exc.reason
    _EXACT[key] = result
    if len(_EXACT) > _EXACT_SIZE:
        _EXACT.popitem(last=False)
    return result


# --- one answer -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """What the explorer shows for one question.

    Attributes
    ----------
    method
        ``"exact"`` or ``"monte carlo"``.
    a_win, b_win, draw
        Probabilities (exact) or rates (Monte Carlo).
    a_win_ci, b_win_ci, draw_ci
        95% Wilson intervals; an exact answer's are the value itself.
    n
        Fights simulated: the Monte Carlo sample, or (exact) the sample behind the
        fight-length distribution (0 when none was drawn).
    rounds
        Fight-length histogram (``rounds[r]`` fights lasted ``r`` rounds), simulated.
    mean_rounds
        Mean fight length (exact where the solver gives it).
    causes
        Share of fights ended by each end cause (simulated).
    assumptions, policies
        The DEFAULT / AMBIG readings and the policies the answer rests on.
    why_not_exact
        Why the exact solver could not answer (Monte Carlo answers).
    details
        The exact solver's details.
    elapsed_s
        Wall time spent on the answer so far.
    """

    question: Question
    method: str
    a_win: float
    b_win: float
    draw: float
    a_win_ci: tuple[float, float]
    b_win_ci: tuple[float, float]
    draw_ci: tuple[float, float]
    n: int
    rounds: np.ndarray
    mean_rounds: float
    causes: dict[str, float]
    assumptions: tuple[str, ...]
    policies: tuple[str, ...]
    why_not_exact: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0
    lengths_note: str = ""

    @property
    def exact(self) -> bool:
        return self.method == "exact"

    @property
    def half_width(self) -> float:
        """The widest interval half-width among the three rates (0 when exact)."""
        return max((hi - lo) / 2 for lo, hi in (self.a_win_ci, self.b_win_ci, self.draw_ci))

    @property
    def score(self) -> float:
        """A's expected score: a win counts 1, a draw 1/2."""
        return self.a_win + self.draw / 2


class Refiner:
    """A Monte Carlo answer that grows one chunk at a time (``step``), on the streams of
    ``balance.duel(seed=question.seed, chunk_size=CHUNK)``."""

    def __init__(self, question: Question, resolved: tuple[Ruleset, Any, Side, Side] | None
                 = None, *, why_not_exact: str | None = None) -> None:
        self.question = question
        self.rs, self.rules, self.side_a, self.side_b = resolved or question.resolve()
        self.tally = Tally.empty(self.rs.causes)
        self.chunks = 0
        self.elapsed_s = 0.0
        self.why_not_exact = why_not_exact

    def step(self) -> None:
        """Run one more chunk."""
        start = time.perf_counter()
        self.tally = self.tally + run_chunk(self.rs, self.rules, self.side_a, self.side_b,
                                            size=CHUNK, entropy=self.question.seed,
                                            index=self.chunks)
        self.chunks += 1
        self.elapsed_s += time.perf_counter() - start

    def run_for(self, seconds: float, *, superseded: Superseded = _never) -> None:
        """Run chunks until ``seconds`` have passed (at least one chunk in all)."""
        deadline = time.perf_counter() + seconds
        while (self.chunks == 0 or time.perf_counter() < deadline) and not superseded():
            self.step()

    def summary(self) -> Summary:
        matchup = (self.rules, self.side_a, self.side_b)
        return Summary(self.rs.name, self.tally, 0.95, {"seed": self.question.seed},
                       self.rs.assumptions(*matchup), self.rs.policies(*matchup))

    def answer(self) -> Answer:
        s = self.summary()
        return Answer(self.question, "monte carlo", s.a_win, s.b_win, s.draw, s.a_win_ci,
                      s.b_win_ci, s.draw_ci, s.n, self.tally.rounds.copy(), s.mean_rounds,
                      s.cause_shares(), s.assumptions, s.policies,
                      why_not_exact=self.why_not_exact, elapsed_s=self.elapsed_s)


class ExactAnswer:
    """An exact answer, with a simulated fight-length distribution that grows like a
    :class:`Refiner` (``step``) where the kernel plays the same game as the solver."""

    LENGTH_FIGHTS = 1 << 18
    """Fights after which the length histogram is fine enough to stop refining it."""

    def __init__(self, question: Question, resolved: tuple[Ruleset, Any, Side, Side],
                 result: Any, elapsed_s: float) -> None:
        self.question, self.resolved, self.result = question, resolved, result
        self.solve_s = elapsed_s
        rs = resolved[0]
        # a game solver's equilibrium is not what the kernel plays (it plays each fighter's
        # own policies), so its fight lengths are not simulated
        self.lengths = None if rs.has_strategy else Refiner(question, resolved)

    @property
    def chunks(self) -> int:
        return self.lengths.chunks if self.lengths is not None else 0

    @property
    def done(self) -> bool:
        return self.lengths is None or self.lengths.tally.n >= self.LENGTH_FIGHTS

    def step(self) -> None:
        if self.lengths is not None:
            self.lengths.step()

    def run_for(self, seconds: float, *, superseded: Superseded = _never) -> None:
        if self.lengths is not None:
            self.lengths.run_for(seconds, superseded=superseded)

    def answer(self) -> Answer:
        question, result, rs = self.question, self.result, self.resolved[0]
        mean = float(result.mean_rounds) if result.mean_rounds is not None else float("nan")
        rounds, causes, n, note = np.zeros(1, np.int64), {}, 0, ""
        elapsed = self.solve_s
        if self.lengths is not None and self.lengths.chunks:
            s = self.lengths.summary()
            rounds, causes, n = self.lengths.tally.rounds.copy(), s.cause_shares(), s.n
            note = f"simulated: {n:,} fights, seed {question.seed}"
            elapsed += self.lengths.elapsed_s
        elif rs.has_strategy:
            note = ("not simulated: the solver plays an equilibrium, the kernel each "
                    "fighter's own policy")
        return Answer(question, "exact", float(result.a_win), float(result.b_win),
                      float(result.draw), (float(result.a_win),) * 2,
                      (float(result.b_win),) * 2, (float(result.draw),) * 2, n, rounds, mean,
                      causes, tuple(result.assumptions), tuple(result.policies),
                      details=dict(result.details), elapsed_s=elapsed,
                      lengths_note=note)


def answer(question: Question, *, budget: float = BUDGET_S, exact: bool = True,
           superseded: Superseded = _never) -> ExactAnswer | Refiner:
    """Start answering ``question``: exact where the solver covers the matchup (an
    :class:`ExactAnswer` with one chunk of simulated fight lengths), else a :class:`Refiner`
    that has run for ``budget`` seconds.  Call ``.answer()`` for the numbers, and keep
    stepping either to refine them.
    """
    start = time.perf_counter()
    resolved = question.resolve()
    why: str | None = "Monte Carlo was asked for" if not exact else None
    if exact:
        result = solve_exact(*resolved)
        if not isinstance(result, str):
            solved = ExactAnswer(question, resolved, result, time.perf_counter() - start)
            if not superseded():
                solved.step()
            return solved
        why = result
    refiner = Refiner(question, resolved, why_not_exact=why)
    refiner.run_for(max(budget - (time.perf_counter() - start), 0.0), superseded=superseded)
    return refiner


def answer_now(question: Question, **kwargs: Any) -> Answer:
    """:func:`answer`'s first :class:`Answer`."""
    return answer(question, **kwargs).answer()


# --- two variants on common random numbers ---------------------------------------------


@dataclass(frozen=True)
class Difference:
    """Variant minus baseline of one rate, with its interval (zero width when exact)."""

    name: str
    value: float
    low: float
    high: float
    independent_half_width: float = float("nan")
    """The half-width the same two samples would give without common random numbers."""


@dataclass(frozen=True)
class Comparison:
    """Two questions answered side by side: their answers and the differences."""

    baseline: Answer
    variant: Answer
    differences: tuple[Difference, ...]
    method: str


class PairedRefiner:
    """Both variants simulated on the same streams, fight for fight (common random
    numbers): chunk ``i`` of each draws from ``stream(seed, i)``, so each side's tally is
    exactly its own ``balance.duel`` and the per-fight differences give a paired interval."""

    OUTCOMES = (("A wins", Winner.A), ("B wins", Winner.B), ("draw", Winner.DRAW))

    def __init__(self, baseline: Refiner, variant: Refiner) -> None:
        if baseline.question.seed != variant.question.seed:
            raise SpecError("compare: both variants need the same seed (common random numbers)")
        self.baseline, self.variant = baseline, variant
        # per outcome (and A's score): sum and sum of squares of the per-fight differences
        self.sums = np.zeros((4, 2))

    @property
    def chunks(self) -> int:
        return self.baseline.chunks

    def step(self) -> None:
        outcomes = []
        for side in (self.baseline, self.variant):
            start = time.perf_counter()
            rng = stream(side.question.seed, side.chunks)
            out = side.rs.simulate(side.rules, side.side_a, side.side_b, n=CHUNK, rng=rng)
            side.tally = side.tally + Tally.from_outcomes(out)
            side.chunks += 1
            side.elapsed_s += time.perf_counter() - start
            outcomes.append(out.winner)
        base, var = outcomes
        for row, (_, code) in enumerate(self.OUTCOMES):
            d = (var == code).astype(np.float64) - (base == code)
            self.sums[row] += (d.sum(), np.square(d).sum())
        score = (np.where(var == Winner.A, 1.0, np.where(var == Winner.DRAW, 0.5, 0.0))
                 - np.where(base == Winner.A, 1.0, np.where(base == Winner.DRAW, 0.5, 0.0)))
        self.sums[3] += (score.sum(), np.square(score).sum())

    def run_for(self, seconds: float, *, superseded: Superseded = _never) -> None:
        deadline = time.perf_counter() + seconds
        while (self.chunks == 0 or time.perf_counter() < deadline) and not superseded():
            self.step()

    def comparison(self) -> Comparison:
        from .. import stats  # scipy: only when a comparison is shown

        base, var = self.baseline.answer(), self.variant.answer()
        n = base.n
        z = stats.z_value(0.95)
        # each fight's variance of the four measures, for the unpaired half-width shown beside
        single = {"A wins": lambda a: a.a_win * (1 - a.a_win),
                  "B wins": lambda a: a.b_win * (1 - a.b_win),
                  "draw": lambda a: a.draw * (1 - a.draw),
                  "A's score": _score_variance}
        diffs = []
        for (name, one), (total, squares) in zip(single.items(), self.sums, strict=True):
            mean = total / n
            var_d = max(squares / n - mean * mean, 0.0) * n / max(n - 1, 1)
            half = z * np.sqrt(var_d / n)
            unpaired = z * np.sqrt((one(base) + one(var)) / n)
            diffs.append(Difference(name, float(mean), float(mean - half), float(mean + half),
                                    float(unpaired)))
        return Comparison(base, var, tuple(diffs), "monte carlo")


def _score_variance(a: Answer) -> float:
    """Variance of one fight's score (1, 1/2 or 0)."""
    mean = a.score
    return a.a_win * (1 - mean) ** 2 + a.draw * (0.5 - mean) ** 2 + a.b_win * mean ** 2


def compare(baseline: Question, variant: Question, *, budget: float = BUDGET_S,
            exact: bool = True, superseded: Superseded = _never) -> Comparison | PairedRefiner:
    """Answer two variants of a question side by side.

    Exact when the solver answers both (the differences then have no interval); otherwise
    both are simulated on common random numbers (the same seed and streams, fight for
    fight), and each difference comes with its paired 95% interval -- a :class:`PairedRefiner`
    that has run for ``budget`` seconds (``.comparison()``; keep stepping it to refine).
    """
    start = time.perf_counter()
    resolved = baseline.resolve(), variant.resolve()
    results = ([solve_exact(*r) for r in resolved] if exact
               else ["Monte Carlo was asked for"] * 2)
    if not any(isinstance(r, str) for r in results):
        elapsed = time.perf_counter() - start
        base, var = (ExactAnswer(q, r, res, elapsed).answer()
                     for q, r, res in zip((baseline, variant), resolved, results, strict=True))
        diffs = tuple(Difference(name, v - b, v - b, v - b) for name, b, v in (
            ("A wins", base.a_win, var.a_win), ("B wins", base.b_win, var.b_win),
            ("draw", base.draw, var.draw), ("A's score", base.score, var.score)))
        return Comparison(base, var, diffs, "exact")
    why = next(r for r in results if isinstance(r, str))
    paired = PairedRefiner(Refiner(baseline, resolved[0], why_not_exact=why),
                           Refiner(variant, resolved[1], why_not_exact=why))
    paired.run_for(max(budget - (time.perf_counter() - start), 0.0), superseded=superseded)
    return paired
