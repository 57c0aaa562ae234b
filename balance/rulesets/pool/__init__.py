"""``pool``: the diceless Turn Value and Combat Pool system of seed 003 ("Courts",
*Worlds Within Worlds*), solved exactly as a game."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import IntractableError, SpecError
from ...language import Vocabulary
from ...outcomes import Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Side, Witness
from . import exact as _exact
from . import kernel as _kernel
from . import language as _language
from . import reference as _reference
from . import rules as _rules
from .presets import PRESETS, SCENARIOS
from .rules import Combatant, Rules, check_stats

__all__ = ["Combatant", "Pool", "Rules"]


class Pool(Ruleset):
    """Seed 003: Turn Value order, one Combat Pool per fight bid on every check, attack must
    beat defence, fixed damage through an armour WP buffer."""

    name = "pool"
    title = "Diceless Turn Value and Combat Pool (Courts, Worlds Within Worlds)"
    seed_document = "003_79467b7acab1cb03.txt"
    digest = "003-pool.md"
    Combatant = Combatant
    Rules = Rules
    causes = _reference.CAUSES
    presets = PRESETS
    scenarios = SCENARIOS
    max_side = 6
    has_strategy = True
    exact_profiles_skip = ("turn_policy",)  # the state game chooses turns state by state

    def simulate(self, rules: _rules.Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        return _kernel.simulate(rules, side_a, side_b, n=n, rng=rng)

    def fight(self, rules: _rules.Rules, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        return _reference.fight(rules, side_a, side_b, rng=rng, log=log)

    def exact(self, rules: _rules.Rules, side_a: Side, side_b: Side, /) -> Probabilities:
        self.check_sides(rules, side_a, side_b)
        return dataclasses.replace(_exact.solve(rules, side_a, side_b),
                                   assumptions=self.assumptions(rules, side_a, side_b))

    def exact_best_play(self, rules: _rules.Rules, side_a: Side, side_b: Side, /, *,
                        draw_worth: float = 0.5) -> Probabilities:
        """Best play exactly: the solver's equilibrium over every bid and every kind of turn
        in every state (attack, full defence, aid to a standing ally, withdrawal; see
        :mod:`.exact_turns`), with A maximising ``P(A wins) + draw_worth x P(draw)``.
        ``pool_policy``, ``turn_policy``, ``withdraw_at`` and ``exact_play`` do not apply:
        every choice is made state by state.  ``details["value"]`` is the game value,
        ``details["given"]`` the exact (A, B, draw) with every policy as given, and
        ``details["turns"]`` how often each kind of turn is taken in the fight."""
        why = _exact.unsupported(rules, side_a, side_b, choose_turns=True)
        if why:  # already "pool has no exact solution here: ..."
            raise IntractableError(why)
        rules = dataclasses.replace(rules, exact_play="equilibrium", draw_worth=draw_worth)
        self.check_sides(rules, side_a, side_b)
        answer = dataclasses.replace(_exact.solve_with(rules, side_a, side_b, choose_turns=True),
                                     assumptions=self.assumptions(rules, side_a, side_b,
                                                                  every_turn=True))
        given = _exact.solve(dataclasses.replace(rules, exact_play="policies"), side_a, side_b)
        details = {"value": answer.details["game_value"], **answer.details,
                   "given": (given.a_win, given.b_win, given.draw)}
        said = ("every bid chosen state by state: the sealed-bid equilibrium (--strategy "
                "shows the opening bids)" if rules.bid_protocol == "sealed" else
                f"every bid chosen state by state ({rules.bid_protocol} bidding)")
        said += "; every turn chosen too (attack, full defence, aid, withdrawal)"
        details["policy_a"] = details["policy_b"] = said
        return dataclasses.replace(answer, details=details)

    def vocabulary(self) -> Vocabulary:
        """What pool's house rules may read and change (:mod:`.language`)."""
        return _language.vocabulary()

    def exact_check(self, rules: _rules.Rules, side_a: Side, side_b: Side, /) -> str | None:
        """Why ``exact`` cannot answer this matchup, or ``None`` (sizes only, no solving;
        the sweep runner asks it of every cell of an exact sweep)."""
        return _exact.unsupported(rules, side_a, side_b)

    def check_sides(self, rules: _rules.Rules, side_a: Side, side_b: Side) -> None:
        super().check_sides(rules, side_a, side_b)
        for label, side in (("a", side_a), ("b", side_b)):
            for n, c in enumerate(side):
                where = f"side {label} combatant {n + 1} ({c.name})"
                check_stats(c, rules, where)
                wp = (c.wound_points if c.wound_points is not None
                      else rules.wp_per_fortitude * c.fortitude)
                if wp <= rules.down_at:
                    raise SpecError(f"{where}: starts out of the fight with {wp} WP; "
                                    f"Wound Points must exceed down_at={rules.down_at}")

    def field_range(self, rules: _rules.Rules, name: str) -> tuple[float, float] | None:
        """A stat's range is the rules' ``stat_ranges`` (003.4 stat scales)."""
        if name in _rules.STATS:
            low, high = rules.stat_range(name)
            return float(low), float(high)
        return None

    def assumptions(self, rules: _rules.Rules, side_a: Side, side_b: Side, *,
                    every_turn: bool = False) -> tuple[str, ...]:
        """The readings a result rests on; ``every_turn``: under exact best play, where
        every fighter may take full defence and aid."""
        skip: set[str] = set()
        everyone: Sequence[Any] = (*side_a, *side_b)
        if len(side_a) == len(side_b) == 1:
            skip.add("target_policy")
        if all(c.wound_points is not None for c in everyone):
            skip.add("wp_per_fortitude")
        if all(c.armour == "none" for c in everyone):
            skip.add("armour_wp")
        if all(c.status == 0 for c in everyone):
            skip.add("status_in_checks")
        if not every_turn:  # the bonuses of the turns the policies can take
            turns = {c.turn_policy for c in everyone}
            declines = rules.margin_failure_damage and bool(
                turns & {"attack", "aid", "aid_if_no_hit"})  # a hopeless attack declined
            if not turns & {"full_defence", "defend_if_no_hit"} and not declines:
                skip.add("full_defence_bonus")
            if not (turns & {"aid", "aid_if_no_hit"} or declines):
                skip.add("aid_bonus")
        if max(len(side_a), len(side_b)) == 1:
            skip.add("aid_bonus")
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip) + _house_items(rules)

    def idle_policies(self, rules: _rules.Rules, side_a: Side, side_b: Side) -> set[str]:
        return {"target_policy"} if len(side_a) == len(side_b) == 1 else set()

    # what every field changes (balance.testing.check_every_field_matters) ----------------
    def field_witnesses(self) -> Sequence[Witness]:
        average = {"coordination": 4, "intellect": 4, "fortitude": 4, "combat": 2}
        example = SCENARIOS["example-8"]
        return (
            Witness("status_in_checks", (2, -2), {**average, "status": 3}, average,
                    why="side A has Status 3"),
            Witness("full_defence_bonus", (0, 5), {**average, "turn_policy": "full_defence"},
                    average, why="side A always on full defence"),
            Witness("aid_bonus", (0, 5), ({**average, "turn_policy": "aid"}, average),
                    (average, average), why="one of side A aids the other"),
            Witness("stalemate_rounds", (1, 5), {**average, "misc_attack": -20},
                    {**average, "misc_attack": -20}, why="nobody can ever hit"),
            Witness("draw_worth", (0.0, 1.0), example.side_a, example.side_b,
                    {"max_rounds": 3}, why="example 8 cut to 3 rounds: draws are likely"),
            Witness("exact_play", ("policies",), {**average, "pool_policy": "all_in_first"},
                    average, why="side A spends all at once, against the equilibrium"),
            Witness("house_rules",
                    ({"wounded_defence": {"modifiers": [{
                        "to": "defence", "amount": 1,
                        "when": "self.wound_points <= self.max_wound_points // 2"}]}},),
                    {**average, "coordination": 6}, average,
                    why="a house rule: +1 defence at half Wound Points or less"),
        )

    def inert_fields(self) -> dict[str, str]:
        return {
            "combatant.name": "display name: only the narration and the tables show it",
            "stat_ranges": "checks the input only: a fighter with a stat outside its range "
                           "is refused; no fight it accepts changes",
        }

    # benchmarks ----------------------------------------------------------------------------
    def bench_cases(self) -> Sequence[BenchCase]:
        duellist = PRESETS["duellist"]
        guards = SCENARIOS["guards-vs-duellist"]
        return (
            BenchCase("duel policies", "duellist (minimal sure hit) against a guard (save for "
                      "defence), diceless", Rules(), (duellist,),
                      (Combatant(name="guard", coordination=5, intellect=3, fortitude=6,
                                 combat=3, weapon="spear", armour="light",
                                 pool_policy="save_for_defence"),)),
            BenchCase("duel random 1d6", "two average fighters, random mixed bids, 1d6 "
                      "randomiser and margin damage", Rules(randomiser="1d6", margin_damage=True),
                      (Combatant(name="A", pool_policy="random_mixed"),),
                      (Combatant(name="B", pool_policy="random_mixed"),)),
            BenchCase("duel equilibrium 1d6", "duellist against guard, both sampling the "
                      "solver's equilibrium, 1d6 randomiser", Rules(randomiser="1d6"),
                      (Combatant(name="duellist", coordination=7, intellect=5, fortitude=4,
                                 combat=4, pool_policy="equilibrium"),),
                      (Combatant(name="guard", coordination=5, intellect=3, fortitude=6,
                                 combat=3, weapon="spear", armour="light",
                                 pool_policy="equilibrium"),)),
            BenchCase("guards 2v1", "two guards against a duellist (minimal sure hit)",
                      Rules(), guards.side_a, guards.side_b),
            BenchCase("melee 3v3", "three against three, 1d6, mixed bids, aid and full "
                      "defence when a fighter cannot hit",
                      Rules(randomiser="1d6"),
                      tuple(Combatant(name=f"A{k}", pool_policy="random_mixed",
                                      turn_policy="aid_if_no_hit") for k in (1, 2, 3)),
                      tuple(Combatant(name=f"B{k}", coordination=3 + k, fortitude=5 - k,
                                      turn_policy="defend_if_no_hit") for k in (1, 2, 3))),
            BenchCase("guards 6v6 tied", "six identical guards against six identical "
                      "duellists: Turn Value ties, a coin per fight for each side's order",
                      Rules(), tuple(dataclasses.replace(PRESETS["guard"], name=f"guard {k}")
                                     for k in range(1, 7)),
                      tuple(dataclasses.replace(duellist, name=f"duellist {k}")
                            for k in range(1, 7))),
            BenchCase("guards 6v6 distinct", "the same fight with distinct Turn Values "
                      "(Misc 0 to -5 on each side): the tied case's yardstick",
                      Rules(), tuple(dataclasses.replace(PRESETS["guard"], name=f"guard {k}",
                                                         misc_turn=1 - k) for k in range(1, 7)),
                      tuple(dataclasses.replace(duellist, name=f"duellist {k}",
                                                misc_turn=1 - k) for k in range(1, 7))),
        )

    def bench_extra_cases(self) -> tuple[str, ...]:
        """The names of the rows :meth:`bench_extra` can time."""
        return tuple(spec[0] for spec in self._exact_bench_specs())

    def _exact_bench_specs(self) -> list[tuple[Any, ...]]:
        """(name, description, rules, A, B) of each exact-solver bench row."""
        # pools 6 and 6, 20 WP, 1 damage a hit (every WP value reachable) and attack equal
        # to defence both ways, so every hit must be bought: the hardest duel of this size
        a = Combatant(name="A", coordination=5, intellect=7, fortitude=5, combat=2,
                      wound_points=20, weapon="unarmed")
        b = Combatant(name="B", coordination=5, intellect=7, fortitude=5, combat=2,
                      wound_points=20, weapon="unarmed", status=1)
        return [
            ("exact duel p6 wp20", "exact sealed-bid solve, pools 6, 20 WP, 1 damage a hit, "
             "attack = defence", Rules(), (a,), (b,)),
            ("exact duel p6 wp20 1d6", "the same duel with the 1d6 randomiser",
             Rules(randomiser="1d6"), (a,), (b,)),
        ]

    def bench_extra(self, cases: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Exact-solver timings for ``balance bench`` (rows with a ``summary`` line)."""
        rows = []
        specs = self._exact_bench_specs()
        for name, description, rules, side_a, side_b in specs:
            if cases is not None and name not in cases:
                continue
            _exact.clear_cache()
            start = time.perf_counter()
            result = _exact.solve(rules, side_a, side_b)
            elapsed = time.perf_counter() - start
            rows.append({"ruleset": self.name, "case": name, "description": description,
                         "exact_s": elapsed, "states": result.details["states"],
                         "exchanges": result.details["exchanges"],
                         "summary": f"exact solve {elapsed:.2f} s; "
                                    f"{result.details['state_space']}"})
        return rows


def _house_items(rules: _rules.Rules) -> tuple[str, ...]:
    """The house rules in force (every row applies to every fighter), one item a row."""
    if not rules.house_rules:
        return ()
    from ...outcomes import row_item

    house = _language.house_rules(rules)
    return (tuple(row_item(f"house rule {m.name}", m) for m in house.modifiers)
            + tuple(row_item(f"house rule {e.name}", e) for e in house.effects))
