"""``crt``: the simultaneous 2d6 Combat Results Table of seed 001 ("Bruggish the Bull Breaker")."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...outcomes import Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Side
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from .presets import PRESETS, SCENARIOS
from .rules import Combatant, Rules
from .rules import Rules as _Rules

__all__ = ["CRT", "Combatant", "Rules"]


class CRT(Ruleset):
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

    def exact_check(self, rules: _Rules, side_a: Side, side_b: Side, /) -> str | None:
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
            skip |= {"ambush_skill", "ambush_tables", "total_surprise_12"}
        everyone: Sequence[Any] = side_a + side_b
        if all(c.divert == "never" for c in everyone):
            skip |= {"divert_12_es", "divert_scope"}
        if rules.health != "fixed":
            skip.add("fixed_health")
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip)

    def idle_policies(self, rules: _Rules, side_a: Side, side_b: Side) -> set[str]:
        divert = {c.divert for c in (*side_a, *side_b)}
        idle = set()
        if not divert & {"below_health", "reactive"}:
            idle.add("divert_health")
        if "random" not in divert:
            idle.add("divert_p")
        return idle

    def bench_extra_cases(self) -> tuple[str, ...]:
        """The names of the rows :meth:`bench_extra` can time."""
        return tuple(spec[0] for spec in self._exact_bench_specs())

    def _exact_bench_specs(self) -> list[tuple[Any, ...]]:
        """(name, description, rules, A, B) of each exact-solver bench row."""
        duelist = PRESETS["duelist"]
        return [
            ("exact plain duel", "Markov-chain solve of the plain duel (equal scores, "
             "health 10, 1d6)", Rules(extraordinary=False), duelist, duelist),
            ("exact duel, diversion", "the same duel, B diverting at health 3 or less",
             Rules(extraordinary=False), duelist,
             Combatant(name="duelist", agility=10, toughness=10, divert="below_health")),
            ("exact duel health 30", "a long duel: toughness 30 on both sides, B 2 points "
             "better", Rules(extraordinary=False),
             Combatant(name="a", agility=10, toughness=30),
             Combatant(name="b", agility=12, toughness=30)),
        ]

    def bench_extra(self, cases: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Exact-solver timings for ``balance bench``: the median of repeated solves (each
        from scratch; the solver keeps no cache) of plain duels."""
        specs = self._exact_bench_specs()
        rows = []
        for name, description, rules, a, b in specs:
            if cases is not None and name not in cases:
                continue
            times = []
            for _ in range(21):
                start = time.perf_counter()
                result = self.exact(rules, (a,), (b,))
                times.append(time.perf_counter() - start)
            ms = 1000 * float(np.median(times))
            rows.append({"ruleset": self.name, "case": name, "description": description,
                         "exact_s": ms / 1000,
                         "summary": f"exact solve {ms:.2f} ms (median of {len(times)}); "
                                    f"A {result.a_win:.4f}, B {result.b_win:.4f}, "
                                    f"draw {result.draw:.4f}"})
        return rows

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
