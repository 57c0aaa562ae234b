"""``strike-rank``: the Abstract Combat System of seed 000 (*Avatar*, Discordia Inc.).

Strike Rank initiative with Index Resolution dice and carry-over, opposed d20 attacks
against parry / dodge / Armour block, thrust / swing / blow / riposte, the cumulative
defence penalty, overpowering, every fighting style of 5.6 and the Wound Matrix.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import SpecError
from ...language import Vocabulary
from ...outcomes import Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Side, Witness
from . import exact as _exact
from . import kernel as _kernel
from . import reference as _reference
from . import tables as T
from .conditions import place
from .conditions import vocabulary as _vocabulary
from .presets import PRESETS, SCENARIOS
from .profile import profiles, range_phase
from .rules import Combatant, Rules, style_of
from .rules import Rules as _Rules

if TYPE_CHECKING:
    from ...batching import Segment, SegmentedRng

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
    max_side = 6

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
        raise self.exact_unavailable(_exact.unsupported(rules, side_a, side_b))

    def setup(self, rules: _Rules, side_a: Side, side_b: Side, /) -> Any:
        # the race model's score tables of attack_policy="best" (the costly part)
        from .policy import race_tables

        return race_tables(rules, tuple(side_a), tuple(side_b)) or None

    def adopt(self, setup: Any, /) -> None:
        from .race import adopt

        adopt(setup)

    def exact_check(self, rules: _Rules, side_a: Side, side_b: Side, /) -> str | None:
        return self.exact_unavailable(_exact.unsupported(rules, side_a, side_b)).reason

    def vocabulary(self) -> Vocabulary:
        # the default rows' words; rules with other rows read their own (Rules.vocabulary)
        return _vocabulary()

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
        for side in (side_a, side_b):
            if sum(c.formation == "ranked" for c in side) > rules.rank_frontage:
                break
        else:
            skip |= {"rank_frontage", "rank_reach"}
        if not any(c.surprised for c in everyone):
            skip.add("ambush_rules")
        for mechanic, names in (("hunter", {"hunter_parry_mode"}),
                                ("heavy_armour", {"knight_unarmoured_scope"}),
                                ("throwables_in_melee", {"bladesman_mode"}),
                                ("shield_step", {"shieldman_step_scope", "shield_riposte"}),
                                ("armour_rank_limit", {"armour_rank_mode"}),
                                ("mobility", {"mobility_task"}),
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
        if all(c.second_style == "none" for c in everyone):
            skip.add("style_mix")
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
                     if a.split("=", 1)[0] not in skip) + invented + _row_items(
                         rules, side_a, side_b)

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

    # what every field changes (balance.testing.check_every_field_matters) ----------------
    def field_witnesses(self) -> Sequence[Witness]:
        sk = "skirmisher"
        legion = {"preset": "legionnaire"}
        ranked = {"preset": "legionnaire", "formation": "ranked"}
        disarmer = {"preset": "overpowering_swashbuckler", "overpower_policy": "disarm"}
        dodger = {"preset": "swashbuckler", "skill": 45, "defence_policy": "dodge"}
        swinger = {"preset": sk, "attack_policy": "swing", "defence_policy": "armour_block",
                   "armour": "torso:3"}
        return (
            Witness("second_style", ("gladiator", "knight"),
                    {"preset": "archer", "second_skill": 40}, sk,
                    why="an archer with a second, melee style"),
            Witness("second_skill", (0, 60), {"preset": "archer", "second_style": sk,
                                              "second_skill": 30}, sk,
                    why="an archer who defends with a melee style"),
            Witness("style_mix", ("per_fight",), {"preset": "archer", "second_style": sk,
                                                  "second_skill": 25}, sk,
                    why="an archer with a second, melee style: one style a fight"),
            Witness("when_disarmed", ("fight_unarmed",), sk, disarmer, why="side B disarms"),
            Witness("unarmed_move", ("knee", "straight kick"),
                    {"preset": sk, "when_disarmed": "fight_unarmed", "skill": 20},
                    {**disarmer, "defence_policy": "none"},
                    why="side A, often disarmed, fights on unarmed against a foe who never "
                        "defends"),
            Witness("animal", (True,), "hunter", "feral", side="b",
                    why="a Hunter against an animal"),
            Witness("formation", ("ranked",), (legion, legion), (sk, sk),
                    why="two Legionnaires"),
            Witness("leader", (True,), (legion, legion), (sk, sk), {"auto_leader": False},
                    why="two Legionnaires, no leader named"),
            Witness("specialist_weapon", ("long sword",),
                    {"preset": "specialist", "weapon": "long sword"}, sk,
                    why="a Specialist wielding a long sword"),
            Witness("target_policy", ("weakest", "strongest"), sk,
                    ({"preset": sk, "skill": 10, "name": "weak"}, sk),
                    why="one against a weak and a strong foe"),
            Witness("knockout", (True,), sk, sk, {"ko_rules": True}, why="knock-out rules on"),
            Witness("block_rounding", ("floor",), "quick_dex25", sk, why="DEX 25"),
            Witness("swing_penalty_armour_block", (True,), swinger, sk,
                    why="side A swings and blocks with its armour"),
            Witness("riposte_requires_thrust", (False,),
                    {"preset": sk, "weapon": "great axe", "strength": 20, "skill": 60}, sk,
                    why="a great axe, which cannot thrust, parrying well"),
            Witness("half_skill_mode", ("with_mods",), dodger, (sk, sk),
                    why="a Swashbuckler dodging behind two foes"),
            Witness("behind_duration", ("next_attack",), dodger, (sk, sk),
                    why="a Swashbuckler dodging behind two foes"),
            Witness("disarm_effect", ("none",), sk, disarmer, why="side B disarms"),
            Witness("shield_riposte", (False,), {"preset": "shieldman", "skill": 60}, sk,
                    why="a skilled Shieldman"),
            Witness("shieldman_step_scope", ("shield_parries",),
                    {"preset": "shieldman", "defence_policy": "dodge"}, sk,
                    why="a Shieldman dodging"),
            Witness("armour_block_base_penalty", (0, -30),
                    {"preset": sk, "defence_policy": "armour_block", "armour": "torso:3"}, sk,
                    why="a Skirmisher blocking with armour"),
            Witness("untrained_skill", ("3d10", "20"), {"preset": sk, "untrained": True}, sk,
                    why="an untrained Skirmisher"),
            Witness("group_alone_penalty_dodge", (True,),
                    {"preset": "legionnaire", "defence_policy": "dodge"}, sk,
                    why="a lone Legionnaire dodging"),
            Witness("task_assist_bonus", (0, 15), ({**legion, "leader": True}, legion),
                    (sk, sk), why="two Legionnaires, one leading"),
            Witness("auto_leader", (False,), (legion, legion), (sk, sk),
                    why="two Legionnaires, no leader named"),
            Witness("legionnaire_leaderless", (-5,), (legion, legion), (sk, sk),
                    {"auto_leader": False}, why="two Legionnaires without a leader"),
            Witness("rank_bonus_group", (0, 15), (ranked, ranked), (sk, sk),
                    why="two ranked Legionnaires"),
            Witness("rank_frontage", (1,), (ranked, ranked), (sk, sk),
                    why="two ranked Legionnaires"),
            Witness("rank_reach", (5.0,), (ranked, {"preset": "spearman", "formation": "ranked"}),
                    (sk, sk), {"rank_frontage": 1},
                    why="a ranked spearman behind a Legionnaire"),
            Witness("outnumbered_mode", ("two_foes",), ("footpad", "footpad"), (sk, sk),
                    why="two Footpads against two"),
            Witness("knight_unarmoured_scope", ("all",),
                    {"preset": "knight_unarmoured", "defence_policy": "dodge"}, sk,
                    why="a Knight out of armour, dodging"),
            Witness("bladesman_mode", ("throwables_0",), "bladesman", sk, why="a Bladesman"),
            Witness("shield_penalty_scope", ("all_rolls",),
                    {"preset": "swashbuckler", "shield": "buckler"}, sk,
                    why="a Swashbuckler with a buckler"),
            Witness("mobility_task", ("off",), {"preset": "swashbuckler",
                                                "defence_policy": "dodge"}, sk,
                    why="a Swashbuckler dodging"),
            Witness("armour_rank_mode", ("torso",), {"preset": "swashbuckler",
                                                     "armour": "head:3"}, sk,
                    why="a Swashbuckler in a heavy helmet"),
            Witness("gladiator_untrained_shield", (0, -30),
                    {"preset": "gladiator", "shield_trained": False}, sk,
                    why="a Gladiator untrained with its shield"),
            Witness("martial_weapons", ("hammer",),
                    {"preset": "martial_artist", "weapon": "hammer"}, sk,
                    why="a Martial artist with a hammer"),
            Witness("feral_as", ("skirmisher",), {"preset": "feral", "weapon": "long sword"},
                    sk, why="a Feral fighter with a sword"),
            Witness("mounted_penalty", (0, -30), {"preset": sk, "mounted": True}, sk,
                    why="a mounted Skirmisher"),
            Witness("aim_step", (0, 15), {"preset": "archer", "aim_actions": 1}, sk,
                    why="an Archer aiming"),
            Witness("aim_max", (0, 5), {"preset": "archer", "aim_actions": 1}, sk,
                    why="an Archer aiming"),
            Witness("armour_roll_per_ai", (0, 6), "knight", sk,
                    {"armour_mode": "roll_reduction"},
                    why="a Knight in armour, roll reduction"),
            Witness("ko_rules", (True,), {"preset": sk, "knockout": True}, sk,
                    why="side A tries knock-outs"),
            Witness("max_rounds", (3,), sk, sk, why="a fight cut short"),
        )

    def inert_fields(self) -> dict[str, str]:
        return {
            "combatant.name": "display name: only the narration and the tables show it",
            "combatant.strength": "a requirement only (000.8.1-2): a weapon or shield too "
                                  "heavy for it is refused; no fight it may fight changes",
            "weapon_str_mode": "checks the input only: whether Strength requirements are "
                               "enforced (a fighter below one is refused)",
        }

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
            BenchCase("6v6 ranks", "three ranked legionnaires (a leader) in front of three "
                      "spearmen striking from the second rank, against six skirmishers",
                      Rules(), SCENARIOS["ranks-6v6"].side_a, SCENARIOS["ranks-6v6"].side_b),
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


def _row_items(rules: _Rules, side_a: Side, side_b: Side) -> tuple[str, ...]:
    """The modifier and effect rows of the weapons, missile weapons and styles anyone here
    uses, one item a row (each content row once)."""
    if not rules.has_language:
        return ()
    used: dict[tuple[str, str], None] = {}
    for p in profiles(rules, side_a, side_b):
        used[("weapons", p.weapon.name)] = None
        if p.missile is not None:
            used[("missile_weapons", p.missile.name)] = None
        used[("styles", p.c.style)] = None
    return tuple(item for table, name in used
                 for item in Ruleset.row_items(place(table, name), rules.language(table, name)))
