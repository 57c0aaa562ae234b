"""``crt``: the simultaneous 2d6 Combat Results Table of seed 001 ("Bruggish the Bull Breaker")."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import SpecError
from ...language import Vocabulary
from ...outcomes import Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Side, Witness
from . import exact as _exact
from . import kernel as _kernel
from . import language as _language
from . import reference as _reference
from .presets import PRESETS, SCENARIOS, TITLES
from .rules import Combatant, Rules
from .rules import Rules as _Rules

if TYPE_CHECKING:
    from ...batching import Segment, SegmentedRng

__all__ = ["CRT", "TABLE_CAUSES", "Combatant", "Rules", "decided_by_tables"]

TABLE_CAUSES: tuple[str, ...] = ("extraordinary", "surrender", "broke", "mishap")
"""The end causes that are table results (001.6): kills the strokes of table results
decided, surrenders (ES 11), breaks (ES 12) and mishaps (EF 2-4)."""


def decided_by_tables(summary: Any, /, *, winner: str | None = None,
                      confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The share of fights an Extraordinary table result decided (001.10 q6), with its
    Wilson interval, from a crt :class:`~balance.results.Summary`; ``winner="a"`` or
    ``"b"``: the share of that side's wins."""
    from ... import stats
    from ...outcomes import Winner

    tally = summary.tally
    if winner is None:
        counts = tally.counts.sum(axis=0)
    elif winner in ("a", "b"):
        counts = tally.counts[Winner.A if winner == "a" else Winner.B]
    else:
        raise SpecError(f"winner must be 'a', 'b' or None, got {winner!r}")
    decided = int(sum(counts[tally.causes.index(c)] for c in TABLE_CAUSES))
    total = int(counts.sum())
    low, high = stats.wilson(decided, total, confidence)
    return decided / total, (float(low), float(high))


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
    preset_titles = TITLES
    scenarios = SCENARIOS
    max_side = 12

    def career(self, rules: Any, fighter: Any, foes: Side, /, **options: Any) -> Any:
        """A career of combats survived (:func:`.campaign.career`)."""
        from .campaign import career

        return career(rules, fighter, foes, **options)

    def career_sentence(self, table: Any, fighter: str, foes: str) -> str:
        """:func:`.campaign.summary`."""
        from .campaign import summary

        return summary(table, fighter, foes)

    def simulate(self, rules: _Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        return _kernel.simulate(rules, side_a, side_b, n=n, rng=rng)

    def simulate_segments(self, segments: Sequence[Segment], rng: SegmentedRng, /
                          ) -> list[Outcomes]:
        return _kernel.simulate_segments(segments, rng)

    def batch_key(self, segment: Segment, /) -> Hashable:
        return _kernel.batch_key(segment)

    def fight(self, rules: _Rules, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        return _reference.fight(rules, side_a, side_b, rng=rng, log=log)

    def exact(self, rules: _Rules, side_a: Side, side_b: Side, /) -> Probabilities:
        answer = _exact.solve(rules, side_a, side_b)
        return dataclasses.replace(answer, assumptions=self.assumptions(rules, side_a, side_b),
                                   policies=self.policies(rules, side_a, side_b))

    def exact_best_play(self, rules: _Rules, side_a: Side, side_b: Side, /, *,
                        draw_worth: float = 0.5) -> Probabilities:
        """The plain duel with diversion decided by both sides state by state: a zero-sum
        stochastic game over the health states, solved exactly (001.10 q3, "optimal
        diversion per band"); see :func:`.exact.solve_best_play`."""
        answer = _exact.solve_best_play(rules, side_a, side_b, draw_worth=draw_worth)
        who = answer.details["declares_first"]
        order = ("both write theirs down" if who == "neither"
                 else f"{who} declares first, the other answers")
        return dataclasses.replace(
            answer, assumptions=self.assumptions(rules, side_a, side_b),
            policies=(f"divert: best play for A and B, state by state ({order})",))

    def vocabulary(self) -> Vocabulary:
        """What crt's house rules may read and change (:mod:`.language`)."""
        return _language.vocabulary()

    def exact_check(self, rules: _Rules, side_a: Side, side_b: Side, /) -> str | None:
        """Why ``exact`` cannot answer this matchup, or ``None`` (no solving; the sweep
        runner asks it of every cell of an exact sweep)."""
        why = _exact.unsupported(rules, side_a, side_b)
        return self.exact_unavailable(why).reason if why else None

    def assumptions(self, rules: _Rules, side_a: Side, side_b: Side) -> tuple[str, ...]:
        # Only the readings that can touch this matchup.
        skip: set[str] = set()
        if not rules.extraordinary:
            skip |= {"max_table_chain", "es2_mode", "es7_own_stroke", "ef6_no_shield", "ef8",
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
        if all(rules.shield_block[c.shield] == 0 for c in everyone):
            skip.add("shield_stops_12")
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip) + _house_items(rules)

    def idle_policies(self, rules: _Rules, side_a: Side, side_b: Side) -> set[str]:
        divert = {c.divert for c in (*side_a, *side_b)}
        idle = set()
        if not divert & {"below_health", "reactive"}:
            idle.add("divert_health")
        if "random" not in divert:
            idle.add("divert_p")
        if "by_band" not in divert:
            idle.add("divert_by_band")
        if not rules.extraordinary or rules.max_table_chain == 0 \
                or "break_weapon" not in rules.es_table.values():
            idle.add("es11")  # ES 11 never comes up
        return idle

    # what every field changes (balance.testing.check_every_field_matters) ----------------
    def field_witnesses(self) -> Sequence[Witness]:
        ambusher = {"preset": "duelist", "ambush": 3}
        ambush = {"ambush": "a"}
        return (
            Witness("combatant.ambush", (2, 5), "duelist", "duelist", ambush,
                    why="side A ambushes (001.3)"),
            Witness("divert_p", (0.0, 1.0), {"preset": "duelist", "divert": "random"},
                    "duelist", why="side A diverts at random"),
            Witness("divert_by_band", ("deficit:1,great_deficit:1,slight_deficit:1",),
                    {"preset": "novice", "divert": "by_band"}, "veteran",
                    why="a novice diverting by band, always behind"),
            Witness("declarations", ("secret",),
                    {"preset": "novice", "divert": "reactive", "divert_health": 999},
                    {"preset": "veteran", "divert": "reactive", "divert_health": 999},
                    why="both reactive: the veteran answers the novice's public "
                        "declaration (001.5)"),
            Witness("leader_break_p", (0.0, 0.5), ("veteran", "veteran", "veteran"),
                    ({"preset": "expert", "leader": True}, "expert", "expert"),
                    why="side B's leader breaking breaks the rest (ES 12)"),
            Witness("fixed_health", (4, 20), "duelist", "duelist", {"health": "fixed"},
                    why="health=fixed"),
            Witness("shield_stops_12", (True,), {"preset": "duelist", "shield": "large"},
                    "duelist", {"extraordinary": False},
                    why="a large shield with the tables off (001.9)"),
            Witness("ambush_table", (",".join(f"{k}:total" for k in range(1, 12)),
                                     ",".join(f"{k}:none" for k in range(1, 12))),
                    ambusher, "duelist", ambush, why="side A ambushes (001.3)"),
            Witness("ambush_bonus", ("brief:0,surprise:0", "brief:20,surprise:30"),
                    ambusher, "duelist", ambush, why="side A ambushes (001.3)"),
            Witness("ambush_skill", ("first",), ("duelist", ambusher), "duelist", ambush,
                    why="side A's second fighter is the better ambusher"),
            Witness("ambush_tables", (False,), ambusher, "duelist", ambush,
                    why="side A ambushes (001.3)"),
            Witness("house_rules",
                    ({"first_blood": {"modifiers": [{"to": "damage", "amount": 2,
                                                     "when": "target.wounds == 0"}]}},),
                    {"preset": "duelist", "shield": "round"}, "duelist",
                    why="a house rule: +2 damage on an unhurt foe"),
            Witness("total_surprise_12", ("twice_if_alone",),
                    {"preset": "duelist", "ambush": 5}, "duelist", ambush,
                    why="side A, a master ambusher, strikes a lone foe (001.3)"),
        )

    def inert_fields(self) -> dict[str, str]:
        return {"combatant.name": "display name: only the narration and the tables show it"}

    def bench_extra_cases(self) -> tuple[str, ...]:
        """The names of the rows :meth:`bench_extra` can time."""
        return tuple(spec[0] for spec in self._exact_bench_specs())

    def _exact_bench_specs(self) -> list[tuple[Any, ...]]:
        """(name, description, rules, A, B, solver) of each exact-solver bench row."""
        duelist = PRESETS["duelist"]
        return [
            ("exact plain duel", "Markov-chain solve of the plain duel (equal scores, "
             "health 10, 1d6)", Rules(extraordinary=False), duelist, duelist, self.exact),
            ("exact duel, diversion", "the same duel, B diverting at health 3 or less",
             Rules(extraordinary=False), duelist,
             Combatant(name="duelist", agility=10, toughness=10, divert="below_health"),
             self.exact),
            ("exact duel health 30", "a long duel: toughness 30 on both sides, B 2 points "
             "better", Rules(extraordinary=False),
             Combatant(name="a", agility=10, toughness=30),
             Combatant(name="b", agility=12, toughness=30), self.exact),
            ("exact best play", "the plain duel with diversion decided by both sides state "
             "by state (a stochastic game; value iteration to machine precision)",
             Rules(extraordinary=False), duelist, duelist, self.exact_best_play),
        ]

    def bench_extra(self, cases: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Exact-solver timings for ``balance bench``: the median of repeated solves (each
        from scratch; the solver keeps no cache) of plain duels, and of best play."""
        specs = self._exact_bench_specs()
        rows = []
        for name, description, rules, a, b, solver in specs:
            if cases is not None and name not in cases:
                continue
            times = []
            solver(rules, (a,), (b,))  # once untimed: imports (pandas) are not the solver's
            for _ in range(21):
                start = time.perf_counter()
                result = solver(rules, (a,), (b,))
                times.append(time.perf_counter() - start)
            ms = 1000 * float(np.median(times))
            rows.append({"ruleset": self.name, "case": name, "description": description,
                         "exact_s": ms / 1000,
                         "repeats": len(times) + 1,  # solves in the call (balance bench's cpu_s)
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
            BenchCase("crowd 4v4", "four against four, every table on: pairs at first, then "
                      "lone fighters facing up to three while the rest wait their turn",
                      Rules(), (PRESETS["expert"], PRESETS["skilled"], PRESETS["novice"],
                                PRESETS["novice"]),
                      (PRESETS["veteran"], PRESETS["novice"], PRESETS["novice"],
                       PRESETS["novice"])),
        )


def _house_items(rules: _Rules) -> tuple[str, ...]:
    """The house rules in force (every row applies to every fighter), one item a row."""
    if not rules.house_rules:
        return ()
    from ...outcomes import row_item

    house = _language.house_rules(rules)
    return (tuple(row_item(f"house rule {m.name}", m) for m in house.modifiers)
            + tuple(row_item(f"house rule {e.name}", e) for e in house.effects))
