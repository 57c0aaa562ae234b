"""``strike-rank``: the Abstract Combat System of seed 000 (*Avatar*, Discordia Inc.).

Strike Rank initiative with Index Resolution dice and carry-over, opposed d20 attacks
against parry / dodge / Armour block, thrust / swing / blow / riposte, the cumulative
defence penalty, overpowering, every fighting style of 5.6 and the Wound Matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import SpecError
from ...outcomes import Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Side
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from .presets import PRESETS, SCENARIOS
from .profile import profiles, range_phase
from .rules import Combatant, Rules
from .rules import Rules as _Rules

__all__ = ["Combatant", "Rules", "StrikeRank"]


class StrikeRank(Ruleset):
    """Seed 000: Strike Rank order, opposed d20 rolls, fighting styles, the Wound Matrix."""

    name = "strike-rank"
    title = "Avatar Abstract Combat: Strike Rank, opposed d20, fighting styles"
    seed_document = "000_903d9beb0a7feeeb.txt"
    digest = "000-strike-rank.md"
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
        raise self.exact_unavailable(_exact.unsupported(rules, side_a, side_b))

    def exact_check(self, rules: _Rules, side_a: Side, side_b: Side, /) -> str | None:
        return self.exact_unavailable(_exact.unsupported(rules, side_a, side_b)).reason

    def check_sides(self, rules: Any, side_a: Side, side_b: Side) -> None:
        super().check_sides(rules, side_a, side_b)
        try:
            profiles(rules, side_a, side_b)
        except SpecError as exc:
            raise SpecError(exc.reason) from None

    def assumptions(self, rules: _Rules, side_a: Side, side_b: Side) -> tuple[str, ...]:
        # Only the readings that can touch this matchup.
        everyone: Sequence[Combatant] = (*side_a, *side_b)
        styles = {c.style for c in everyone}
        skip: set[str] = set()
        if len(side_a) == len(side_b) == 1:
            skip |= {"task_assist_bonus", "auto_leader", "legionnaire_leaderless",
                     "rank_bonus_group", "outnumbered_mode"}
        if not any(c.surprised for c in everyone):
            skip.add("ambush_rules")
        if "hunter" not in styles:
            skip.add("hunter_parry_mode")
        if "berserker" not in styles and not any(c.berserker for c in everyone):
            skip.add("berserk_replaces_normal")
        if "knight" not in styles:
            skip.add("knight_unarmoured_scope")
        if "bladesman" not in styles:
            skip.add("bladesman_mode")
        if "shieldman" not in styles:
            skip |= {"shieldman_step_scope", "shield_riposte"}
        if "swashbuckler" not in styles:
            skip.add("armour_rank_mode")
        if "gladiator" not in styles:
            skip |= {"gladiator_weapons", "gladiator_untrained_shield"}
        if "martial_artist" not in styles:
            skip.add("martial_weapons")
        if "feral" not in styles:
            skip.add("feral_as")
        if not any(c.mounted for c in everyone):
            skip.add("mounted_penalty")
        if not range_phase(profiles(rules, side_a, side_b)):
            skip |= {"range_rounds", "aim_step", "aim_max", "missile_weapon_parry",
                     "missile_weapons"}
        if not rules.ko_rules:
            skip.add("ko_rules")
        if rules.action_economy != "budget" and "action_cost" not in rules.sr_tiebreak:
            skip.add("action_cost")
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip)

    def idle_policies(self, rules: _Rules, side_a: Side, side_b: Side) -> set[str]:
        everyone: Sequence[Combatant] = (*side_a, *side_b)
        styles = {c.style for c in everyone}
        idle = set()
        if len(side_a) == len(side_b) == 1:
            idle.add("target_policy")
        if "berserker" not in styles and not any(c.berserker for c in everyone):
            idle.add("berserk_trigger")
        if "knight" not in styles:
            idle.add("knight_double")
        if not rules.ko_rules:
            idle.add("knockout")
        if not range_phase(profiles(rules, side_a, side_b)):
            idle.add("aim_actions")
        return idle

    def bench_cases(self) -> Sequence[BenchCase]:
        skirmisher = PRESETS["skirmisher"]
        return (
            BenchCase("skirmisher duel", "two Skirmishers with long swords, every rule at "
                      "its default (issue 3's performance case)", Rules(), (skirmisher,),
                      (skirmisher,)),
            BenchCase("styles duel", "a berserker (battle axe) against an armoured knight "
                      "(long sword, medium shield): berserk, knight double defence, "
                      "armour", Rules(), (PRESETS["berserker"],), (PRESETS["knight"],)),
            BenchCase("archer at range", "an archer (long bow) against a "
                      "skirmisher: two range rounds, then melee with the hand axe", Rules(),
                      (PRESETS["archer"],), (skirmisher,)),
            BenchCase("2v3 group", "two ranked legionnaires with a leader against three "
                      "skirmishers, random targets", Rules(), SCENARIOS["legion-2v3"].side_a,
                      SCENARIOS["legion-2v3"].side_b),
        )
