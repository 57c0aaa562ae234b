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
from . import tables as T
from .presets import PRESETS, SCENARIOS
from .profile import profiles, range_phase
from .rules import Combatant, Rules, style_of
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
        mechanics, tests = _style_content(rules, everyone)
        skip: set[str] = set()
        if len(side_a) == len(side_b) == 1:
            skip |= {"task_assist_bonus", "auto_leader", "legionnaire_leaderless",
                     "rank_bonus_group", "outnumbered_mode"}
        if not any(c.surprised for c in everyone):
            skip.add("ambush_rules")
        for mechanic, names in (("hunter", {"hunter_parry_mode"}),
                                ("heavy_armour", {"knight_unarmoured_scope"}),
                                ("throwables_in_melee", {"bladesman_mode"}),
                                ("shield_step", {"shieldman_step_scope", "shield_riposte"}),
                                ("armour_rank_limit", {"armour_rank_mode"}),
                                ("shield_training", {"gladiator_untrained_shield"}),
                                ("feral", {"feral_as"})):
            if mechanic not in mechanics:
                skip |= names
        if "berserker" not in mechanics and not any(c.berserker for c in everyone):
            skip.add("berserk_replaces_normal")
        if "gladiator" not in tests:
            skip.add("gladiator_weapons")
        if "martial" not in tests:
            skip.add("martial_weapons")
        if not any(c.mounted for c in everyone):
            skip.add("mounted_penalty")
        if not range_phase(profiles(rules, side_a, side_b)):
            skip |= {"range_rounds", "aim_step", "aim_max", "missile_weapon_parry",
                     "missile_weapons"}
        if not rules.ko_rules:
            skip.add("ko_rules")
        if rules.action_economy != "budget" and "action_cost" not in rules.sr_tiebreak:
            skip |= {"action_cost", "action_cost_floor"}
        # the invented weapon rows in use, as the digest gave them (000.8.1 DEFAULT)
        invented = tuple(
            f"weapons.{name}=invented row [DEFAULT]"
            for name in sorted({c.weapon for c in everyone} & T.INVENTED_WEAPON_NAMES)
            if rules.weapons[name] == T.weapon_rows()[name])
        return tuple(a for a in super().assumptions(rules, side_a, side_b)
                     if a.split("=", 1)[0] not in skip) + invented

    def idle_policies(self, rules: _Rules, side_a: Side, side_b: Side) -> set[str]:
        everyone: Sequence[Combatant] = (*side_a, *side_b)
        mechanics, _ = _style_content(rules, everyone)
        idle = set()
        if len(side_a) == len(side_b) == 1:
            idle.add("target_policy")
        if "berserker" not in mechanics and not any(c.berserker for c in everyone):
            idle.add("berserk_trigger")
        if "heavy_armour" not in mechanics:
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


def _style_content(rules: _Rules, everyone: Sequence[Combatant]) -> tuple[set[str], set[str]]:
    """The mechanics and weapon tests of the styles in play (a Feral's as it fights)."""
    mechanics: set[str] = set()
    tests: set[str] = set()
    for c in everyone:
        for style in {rules.style(c.style), style_of(c, rules)}:
            mechanics |= style.mechanics
            tests |= {t for t, _ in (*style.weapons, *style.missiles)}
    return mechanics, tests
