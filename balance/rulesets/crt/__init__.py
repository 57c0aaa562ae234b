"""``crt``: the simultaneous 2d6 Combat Results Table of seed 001 ("Bruggish the Bull Breaker")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import BenchCase, Log, Outcome, Outcomes, Probabilities, RulesetBase, Side
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from .presets import PRESETS, SCENARIOS
from .rules import Combatant, Rules
from .rules import Rules as _Rules

__all__ = ["CRT", "Combatant", "Rules"]


class CRT(RulesetBase):
    """Seed 001: combat score bands on a 2d6 table, simultaneous strokes, draws."""

    name = "crt"
    title = "Simultaneous 2d6 Combat Results Table (Bruggish the Bull Breaker)"
    seed_document = "001_181facada193c2cd.txt"
    digest = "001-crt.md"
    Combatant = Combatant
    Rules = Rules
    causes = _reference.CAUSES
    presets = PRESETS
    scenarios = SCENARIOS
    max_side = 3

    def simulate(self, rules: _Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        return _kernel.simulate(rules, side_a, side_b, n=n, rng=rng)

    def fight(self, rules: _Rules, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        return _reference.fight(rules, side_a, side_b, rng=rng, log=log)

    def exact(self, rules: _Rules, side_a: Side, side_b: Side, /) -> Probabilities:
        why = _exact.unsupported(rules, side_a, side_b)
        if why:
            raise self.exact_unavailable(why)
        return _exact.solve(rules, side_a[0], side_b[0],
                            assumptions=self.assumptions(rules, side_a, side_b))

    def exact_check(self, rules: _Rules, side_a: Side, side_b: Side) -> str | None:
        """Why ``exact`` cannot answer this matchup, or ``None`` (no solving; the sweep
        runner asks it of every cell of an exact sweep)."""
        why = _exact.unsupported(rules, side_a, side_b)
        return self.exact_unavailable(why).reason if why else None

    def assumptions(self, rules: _Rules, side_a: Side, side_b: Side) -> tuple[str, ...]:
        # Only the readings that can touch this matchup.
        skip: set[str] = set()
        if not rules.extraordinary:
            skip |= {"max_table_chain", "es2_mode", "es7_own_stroke", "es11", "ef6_no_shield",
                     "ef9", "divert_12_es", "leader_break_p"}
        if len(side_a) == len(side_b) == 1:
            skip |= {"multi_zero_mode", "divert_scope", "leader_break_p"}
        if rules.ambush == "none":
            skip |= {"ambush_skill", "ambush_tables"}
        everyone: Sequence[Any] = side_a + side_b
        if all(c.divert == "never" for c in everyone):
            skip |= {"divert_12_es", "divert_scope"}
        if rules.health != "fixed":
            skip.add("fixed_health")
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip)

    def bench_cases(self) -> Sequence[BenchCase]:
        duelist = PRESETS["duelist"]
        plain = Rules(extraordinary=False)
        bruggish = SCENARIOS["bruggish-vs-watchmen"]
        return (
            BenchCase("plain duel", "equal scores, health 10, 1d6 damage, no tables, no "
                      "diversion (issue 2's reference case)", plain, (duelist,), (duelist,)),
            BenchCase("full duel", "the same duel with every table on and diversion when "
                      "behind", Rules(), (duelist,),
                      (Combatant(name="duelist", agility=10, toughness=10, divert="below_health"),)),
            BenchCase("bruggish 1v3", "001.7: Bruggish against three watchmen, every table on",
                      Rules(), bruggish.side_a, bruggish.side_b),
        )
