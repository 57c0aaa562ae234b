"""A tiny deterministic ruleset used to test the experiment runner in isolation.

"Coin": each round both sides toss; a side scores when at least one of its tossers lands
heads and the other side's do not.  The first side to ``target`` points wins; a fight still
open after ``max_rounds`` rounds is a draw.  It implements the whole ruleset contract
(kernel, scalar reference, exact solver, presets, bench case) in a few lines, so the runner
tests do not depend on any real ruleset.

Specs refer to it by import path: ``ruleset = "tests.sweep.coin:COIN"``.

Setting the environment variable ``BALANCE_COIN_DELAY`` (seconds) makes every kernel call
sleep that long.  Setting ``BALANCE_COIN_GATE`` to a folder makes every kernel call wait at
a gate the test controls (:class:`tests.sweep.helpers.Gate`): it goes through by taking one
``pass-*`` file from the folder (each pass lets one call through, in whatever process it
runs), or freely once the folder holds ``open``.  So a test stops a sweep part-way at a
point it chose, whatever the machine's load, without changing its numbers.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from balance.errors import SpecError
from balance.fields import check_fields, param
from balance.outcomes import EndCauses, Outcome, Outcomes, Probabilities, Winner
from balance.rulesets.base import BenchCase, Log, Ruleset, Side, Witness

CAUSES = EndCauses("decided", "max_rounds")


@dataclass(frozen=True, kw_only=True)
class Combatant:
    _owner: ClassVar[str] = "coin combatant"

    name: str = param("tosser", tag="DEFAULT", doc="display name")
    bias: float = param(0.5, tag="DEFAULT", low=0.0, high=1.0, doc="chance a toss lands heads")
    level: int = param(0, tag="DEFAULT", low=0, high=5,
                       doc="skill: each level adds 0.05 to bias (at most 1)")
    call: str = param("heads", tag="DEFAULT", choices=("heads", "tails"),
                      doc="the face that scores; tails scores with 1 - bias")

    def __post_init__(self) -> None:
        check_fields(self)

    def chance(self) -> float:
        p = min(1.0, self.bias + 0.05 * self.level)
        return p if self.call == "heads" else 1.0 - p


@dataclass(frozen=True, kw_only=True)
class Rules:
    _owner: ClassVar[str] = "coin rules"

    max_rounds: int = param(20, tag="DEFAULT", low=1, high=1000,
                            doc="rounds after which the fight is a draw")
    target: int = param(1, tag="DEFAULT", low=1, high=5, doc="points needed to win")
    handicap: tuple[float, ...] = param((0.0, 0.0), tag="DEFAULT", low=-0.5, high=0.5,
                                        doc="chance added to side A's and side B's toss")

    def __post_init__(self) -> None:
        check_fields(self)
        if len(self.handicap) != 2:
            raise SpecError("coin rules field 'handicap' must be a list of 2 numbers "
                            f"(side A, side B), got {list(self.handicap)!r}")


def side_chance(side: Side, bonus: float) -> float:
    """Chance that at least one tosser of ``side`` scores in a round."""
    miss = 1.0
    for c in side:
        miss *= 1.0 - c.chance()
    return float(min(1.0, max(0.0, 1.0 - miss + bonus)))


def _delay() -> None:
    seconds = float(os.environ.get("BALANCE_COIN_DELAY", "0") or 0)
    if seconds > 0:
        time.sleep(seconds)
    folder = os.environ.get("BALANCE_COIN_GATE")
    if folder:
        _through_gate(Path(folder))


def _through_gate(gate: Path) -> None:
    """Wait until this call may go on: a pass taken (removing a file succeeds for exactly
    one caller), or the gate open."""
    while not (gate / "open").exists():
        for ticket in sorted(gate.glob("pass-*")):
            try:
                ticket.unlink()
            except FileNotFoundError:  # another call took it first
                continue
            return
        time.sleep(0.005)  # the test's next move is a file in the folder: look again


class Coin(Ruleset):
    name: ClassVar[str] = "coin"
    title: ClassVar[str] = "coin tossing duel (test ruleset)"
    seed_document: ClassVar[str] = "none"
    digest: ClassVar[str] = "tests/sweep/coin.py"
    Combatant: ClassVar[type] = Combatant
    Rules: ClassVar[type] = Rules
    causes: ClassVar[tuple[str, ...]] = CAUSES
    max_side: ClassVar[int] = 2
    presets: ClassVar[Any] = {
        "fair": Combatant(name="fair"),
        "lucky": Combatant(name="lucky", bias=0.6),
        "hopeless": Combatant(name="hopeless", bias=0.1),
        "pro": Combatant(name="pro", level=5),
    }

    def simulate(self, rules: Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        _delay()
        pa = side_chance(side_a, rules.handicap[0])
        pb = side_chance(side_b, rules.handicap[1])
        winner = np.zeros(n, np.int8)
        rounds = np.full(n, rules.max_rounds, np.int16)
        cause = np.full(n, CAUSES.index("max_rounds"), np.int8)
        points_a = np.zeros(n, np.int16)
        points_b = np.zeros(n, np.int16)
        active = np.arange(n)
        for r in range(1, rules.max_rounds + 1):
            if active.size == 0:
                break
            heads_a = rng.random(active.size) < pa
            heads_b = rng.random(active.size) < pb
            points_a[active] += heads_a & ~heads_b
            points_b[active] += heads_b & ~heads_a
            won_a = points_a[active] >= rules.target
            won_b = points_b[active] >= rules.target
            over = won_a | won_b
            done = active[over]
            winner[done] = np.where(won_a[over], Winner.A, Winner.B)
            rounds[done] = r
            cause[done] = CAUSES.index("decided")
            active = active[~over]
        margin = (points_a - points_b).astype(float)
        return Outcomes(winner, rounds, cause, CAUSES, {"margin": margin})

    def fight(self, rules: Rules, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        pa = side_chance(side_a, rules.handicap[0])
        pb = side_chance(side_b, rules.handicap[1])
        points = [0, 0]
        for r in range(1, rules.max_rounds + 1):
            heads_a, heads_b = rng.random() < pa, rng.random() < pb
            if heads_a and not heads_b:
                points[0] += 1
            elif heads_b and not heads_a:
                points[1] += 1
            if log is not None:
                log(f"round {r}: A {'heads' if heads_a else 'tails'}, "
                    f"B {'heads' if heads_b else 'tails'}; points {points[0]}-{points[1]}")
            if max(points) >= rules.target:
                winner = Winner.A if points[0] >= rules.target else Winner.B
                return Outcome(winner, r, "decided", {"margin": float(points[0] - points[1])})
        return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds",
                       {"margin": float(points[0] - points[1])})

    def exact(self, rules: Rules, side_a: Side, side_b: Side, /) -> Probabilities:
        if rules.target != 1:
            raise self.exact_unavailable("only target = 1 is solved")
        pa = side_chance(side_a, rules.handicap[0])
        pb = side_chance(side_b, rules.handicap[1])
        win_a, win_b = pa * (1 - pb), pb * (1 - pa)
        go_on = 1 - win_a - win_b
        if go_on >= 1:
            return Probabilities(self.name, 0.0, 0.0, 1.0)
        reach = (1 - go_on ** rules.max_rounds) / (1 - go_on)
        return Probabilities(self.name, win_a * reach, win_b * reach,
                             go_on ** rules.max_rounds)

    def field_witnesses(self) -> list[Witness]:
        # a fair coin scores as often on tails as on heads: call needs a biased one
        return [Witness("call", ("tails",), "lucky", "fair", why="a biased tosser")]

    def inert_fields(self) -> dict[str, str]:
        return {"name": "display name"}

    def bench_cases(self) -> list[BenchCase]:
        return [BenchCase("fair", "two fair tossers", Rules(), (Combatant(),), (Combatant(),))]


COIN = Coin()
