"""Seed 000 (*Avatar*, Abstract Combat System): fields, rule parameters and pure helpers.

The tables themselves are in :mod:`.tables`.  Every field is declared with its provenance
tag (TEXT / SRC / AMBIG / DEFAULT) and a doc line citing the digest section
(``../shared/rules/000-strike-rank.md``).  The helpers here are plain scalar functions
used both by the scalar reference (directly, per roll) and by the kernel (to build its
lookup tables once per matchup), so the two read the rules from one place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, ClassVar

from ...errors import SpecError
from ...fields import Table, check_fields, param
from . import tables as T
from .conditions import EMPTY, LANGUAGE_COLUMNS, RowLanguage, place, read_row, vocabulary

if TYPE_CHECKING:
    from ...language import Vocabulary

ATTACK_POLICIES: tuple[str, ...] = ("thrust", "swing", "blow", "best")
DEFENCE_POLICIES: tuple[str, ...] = ("best", "parry", "dodge", "armour_block", "none")
HOLD_POLICIES: tuple[str, ...] = ("never", "react")
RIPOSTE_POLICIES: tuple[str, ...] = ("riposte", "disarm", "never")
OVERPOWER_POLICIES: tuple[str, ...] = ("head", "rank", "disarm")
BERSERK_TRIGGERS: tuple[str, ...] = ("never", "start", "on_first_wound")
TARGET_POLICIES: tuple[str, ...] = ("random", "weakest", "strongest")
TIEBREAKS: tuple[str, ...] = ("action_cost", "dex", "agility", "random")
OVERPOWER_OPTIONS: tuple[str, ...] = ("location", "rank", "disarm")

NO_ARMOUR = {"head": 0, "arms": 0, "torso": 0, "legs": 0}


# --- the combatant ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Combatant:
    """One fighter of seed 000: attributes, style, equipment, situation flags and policies."""

    _owner: ClassVar[str] = "strike-rank combatant"

    name: str = param("fighter", tag="TEXT", doc="display name in logs and tables")
    style: str = param("skirmisher", tag="TEXT",
                       doc="fighting style used to attack, parry and armour block: a row of "
                           "rules 'styles' (5.6, 000.7)")
    skill: int = param(30, tag="DEFAULT", low=0, high=100,
                       doc="Skill in that style, added to 1d20 (5.4); Table 14 suggests 0-60")
    second_style: str = param("none", tag="TEXT",
                              doc="a second fighting style it knows (none, or a row of "
                                  "'styles'): styles may be freely mixed, so each attack, "
                                  "parry, dodge and Armour block is made in the style that "
                                  "gives the higher total (5.6: the archer who defends with a "
                                  "melee style)")
    second_skill: int = param(0, tag="DEFAULT", low=0, high=100,
                              doc="Skill in the second style (5.6)")
    when_disarmed: str = param("recover", tag="DEFAULT", choices=("recover", "fight_unarmed"),
                               doc="disarmed: spend the next attack recovering the weapon, or "
                                   "fight on with the unarmed move, in the better of its "
                                   "styles, without recovering (000.6: 'or fights with "
                                   "Brawling / Martial artist if it has them')", policy=True)
    unarmed_move: str = param("punch", tag="DEFAULT",
                              doc="the Table 36 move it fights with unarmed (an unarmed row of "
                                  "'weapons')")
    untrained: bool = param(False, tag="TEXT",
                            doc="has no Skill points in its style: Brawling and Skirmisher, "
                                "which everyone can perform, then fight on a natural skill "
                                "rolled each fight from rules untrained_skill, not 'skill' "
                                "(5.6)")
    dodge: int = param(20, tag="DEFAULT", low=0, high=100, doc="Dodge skill (5.4)")
    agility: int = param(12, tag="DEFAULT", low=1, high=60,
                         doc="Agility: base Actions, Table 16 (5.3, 000.2.1)")
    dexterity: int = param(12, tag="DEFAULT", low=1, high=60,
                           doc="Dexterity: Initiative Index, Table 17 (5.3, 000.2.2)")
    endurance: int = param(14, tag="DEFAULT", low=1, high=60,
                           doc="Endurance: wound code (Table 27 default) and death thresholds "
                               "(000.8.4); 14 is the source's M S S example")
    strength: int = param(12, tag="DEFAULT", low=0, high=60,
                          doc="Strength: weapon and shield requirements (000.8.1-2)")
    weapon: str = param("long sword", tag="SRC",
                        doc="weapon in hand: a row of rules 'weapons' (Tables 18-20, the "
                            "digest's invented rows, or a designer's)")
    missile: str = param("none", tag="DEFAULT",
                         doc="missile or thrown weapon used in the range phase: none or a "
                             "row of rules 'missile_weapons' (000.10 Table 32); 'weapon' is "
                             "then its melee sidearm")
    missiles: int = param(6, tag="DEFAULT", low=0, high=99,
                          doc="shots carried: arrows, bolts, stones or throwables (000.10)")
    aim_actions: int = param(0, tag="DEFAULT", low=0, high=4,
                             doc="range actions spent aiming before each shot, each "
                                 "+aim_step up to aim_max (5.16 Aim, 000.10)", policy=True, search=(0, 1, 2))
    shield: str = param("none", tag="SRC", choices=T.SHIELD_CLASSES,
                        doc="shield class (5.13, 000.8.2)")
    buckler_strapped: bool = param(False, tag="SRC",
                                   doc="buckler strapped to the forearm: Parry +0, hands free "
                                       "(000.8.2)")
    armour: Table = param(NO_ARMOUR, tag="DEFAULT", low=0, high=6,
                          doc="Armour Index per location group head, arms, torso, legs "
                              "(5.11 missing; 000.10)")
    berserker: bool = param(False, tag="TEXT",
                            doc="also knows the Berserker style, so can go berserk whatever "
                                "style it fights in (5.6 Berserker)")
    mounted: bool = param(False, tag="TEXT", doc="fights on horseback (5.6 Horseman, 5.23)")
    animal: bool = param(False, tag="TEXT", doc="is an animal, for the Hunter (5.6 Hunter)")
    surprised: bool = param(False, tag="TEXT",
                            doc="has been ambushed at the start of the fight (5.21; Assassin)")
    formation: str = param("loose", tag="TEXT", choices=("loose", "ranked"),
                           doc="loose group or ranked formation when it has allies (5.6, 5.25)")
    leader: bool = param(False, tag="TEXT",
                         doc="designated leader of a group-style side, Task Assisting the "
                             "others (5.6)")
    shield_trained: bool = param(True, tag="TEXT",
                                 doc="Gladiator: trained with the shield, so uses it without "
                                     "penalty (5.6 Gladiator)")
    specialist_weapon: str = param("whip", tag="TEXT",
                                   doc="Specialist: the specialist weapon of its style, a "
                                       "specialist row of rules 'weapons' (5.6)")
    aim_shift: int = param(0, tag="TEXT", low=-3, high=3,
                           doc="Archer / Bladesman: shift on the Hit Distribution table, "
                               "negative = higher (5.6)")
    compat_mod: int = param(0, tag="TEXT", low=-40, high=40,
                            doc="GM's modifier for how well the described attacks suit the "
                                "style (5.4), on attacks")
    attack_policy: str = param("best", tag="DEFAULT", choices=ATTACK_POLICIES,
                               doc="attack type: always thrust / swing / blow, or best = "
                                   "chosen by the race model of the whole fight (000.11)",
                               policy=True)
    hold_policy: str = param("never", tag="DEFAULT", choices=HOLD_POLICIES,
                             doc="holding (5.2): never, or react = hold until its target "
                                 "declares, then act just before it, knowing its declared "
                                 "attack type (only if the target acts later and is not "
                                 "itself holding)", policy=True)
    defence_policy: str = param("best", tag="DEFAULT", choices=DEFENCE_POLICIES,
                                doc="defence: the highest total among those allowed, or "
                                    "prefer parry / dodge / armour block, or none", policy=True)
    knight_double: bool = param(True, tag="DEFAULT",
                                doc="Knight in heavy armour: follow a failed parry with an "
                                    "Armour block (5.6 Knight)", policy=True)
    riposte_policy: str = param("riposte", tag="DEFAULT", choices=RIPOSTE_POLICIES,
                                doc="after a parry by 20+: riposte; or disarm at 30+ (else "
                                    "riposte); or never (5.5)", policy=True)
    overpower_policy: str = param("head", tag="DEFAULT", choices=OVERPOWER_POLICIES,
                                  doc="attacker's overpower blocks: head = called shot to the "
                                      "head then +1 rank each; rank = +1 rank each; disarm "
                                      "first, then ranks (5.5)", policy=True)
    berserk_trigger: str = param("on_first_wound", tag="AMBIG", choices=BERSERK_TRIGGERS,
                                 doc="when a Berserker goes berserk: never, from the start, or "
                                     "when first wounded ('injured', 5.6)", policy=True)
    target_policy: str = param("random", tag="DEFAULT", choices=TARGET_POLICIES,
                               doc="group fights: random (kept until it falls), or the "
                                   "weakest / strongest living foe each round (000.10)", policy=True)
    knockout: bool = param(False, tag="DEFAULT",
                           doc="attempts knock-outs when rule ko_rules is on (5.12 missing)", policy=True)

    def __post_init__(self) -> None:
        check_fields(self)
        if set(self.armour) != set(T.ARMOUR_GROUPS):
            raise SpecError("strike-rank combatant field 'armour' must have the keys "
                            + ", ".join(T.ARMOUR_GROUPS))


# --- the rules --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The rule parameters of seed 000: every AMBIG reading and DEFAULT gap-filler."""

    _owner: ClassVar[str] = "strike-rank rules"

    @staticmethod
    def row_cell(table: str, column: str, text: str) -> object:
        """A row's column from the command line (``weapons.NAME.COLUMN=VALUE``,
        :mod:`balance.rowkeys`): read as the ``col=value/...`` row text reads it."""
        return _parse_cell(text)

    # initiative (000.2)
    block_rounding: str = param("ceil", tag="AMBIG", choices=("ceil", "floor"),
                                doc="'each additional block of 4 above 24' (Tables 16, 17, 26): "
                                    "a started block counts (ceil: DEX 25 -> 4+2) or only a "
                                    "complete one (000.2.2)")
    carry_mode: str = param("reroll", tag="AMBIG", choices=("reroll", "keep"),
                            doc="dice that showed 5 or 6 are re-rolled next round, or keep "
                                "their face (000.2.3)")
    sr_tiebreak: tuple[str, ...] = param(("action_cost", "dex", "random"), tag="DEFAULT",
                                         choices=TIEBREAKS,
                                         doc="Strike Rank ties: lowest action cost, then "
                                             "higher DEX, then random (000.2.4)")
    action_cost: Table = param({"thrust": 1, "swing": 2, "blow": 3}, tag="DEFAULT",
                               low=0, high=20,
                               doc="Action cost by attack type, plus the weapon's Speed "
                                   "(000.2.4)")
    action_cost_floor: int | None = param(None, tag="DEFAULT", low=-20, high=20,
                                          doc="lowest action cost: none (the digest's "
                                              "formula, so a rapier thrust costs 0 and a "
                                              "knife's -1, winning ties against a long "
                                              "sword's 1), or this number (000.2.4)")
    attacks_per_round: int = param(1, tag="AMBIG", low=1, high=5,
                                   doc="attacks each combatant makes per round, plus ripostes "
                                       "(000.2.4)")
    action_economy: str = param("one_attack", tag="AMBIG", choices=("one_attack", "budget"),
                                doc="budget = each attack costs its action cost (at least "
                                    "1) from the Strike Rank and the highest remaining acts "
                                    "next (experimental, 000.2.4)")
    # attacks (000.3-000.6)
    tie_rule: str = param("defender", tag="AMBIG", choices=("defender", "add_d20"),
                          doc="equal totals: the attack fails, or both add another d20 until "
                              "they differ (000.3)")
    attack_penalty_scope: str = param("whole_round", tag="AMBIG",
                                      choices=("whole_round", "after_attack"),
                                      doc="swing / blow penalty on own parries and dodges for "
                                          "the whole round, or only after the attack (000.4)")
    swing_penalty_armour_block: bool = param(False, tag="AMBIG",
                                             doc="the swing / blow penalty also applies to "
                                                 "Armour blocks (000.4)")
    riposte_requires_thrust: bool = param(True, tag="DEFAULT",
                                          doc="weapons with no Thrust value cannot riposte; "
                                              "off: they riposte with their Swing (000.4)")
    max_riposte_depth: int = param(10, tag="DEFAULT", low=0, high=50,
                                   doc="cap on riposte chains (000.4)")
    overpower_strict: bool = param(False, tag="AMBIG",
                                   doc="'by 20' means a margin > 20 (on) or >= 20 (off) "
                                       "(000.9 #6)")
    overpower_menu: tuple[str, ...] = param(OVERPOWER_OPTIONS, tag="AMBIG",
                                            choices=OVERPOWER_OPTIONS,
                                            doc="what an attacker's overpower block may buy, "
                                                "one option per block; rank may repeat (000.6)")
    half_skill_mode: str = param("skill_only", tag="DEFAULT",
                                 choices=("skill_only", "with_mods"),
                                 doc="dodged-behind 'half skill': halve the skill before "
                                     "modifiers, or the whole fixed part (000.6)")
    behind_duration: str = param("next_round", tag="DEFAULT",
                                 choices=("next_round", "next_attack"),
                                 doc="getting behind lasts until the end of the next round or "
                                     "the dodger's next attack on that foe, or only the latter")
    disarm_effect: str = param("lose_next_attack", tag="DEFAULT",
                               choices=("lose_next_attack", "none"),
                               doc="a disarmed fighter spends its next attack recovering the "
                                   "weapon and cannot parry with it meanwhile (000.6)")
    shield_riposte: bool = param(True, tag="DEFAULT",
                                 doc="a Shieldman's shield parry by 20+ gives the shield "
                                     "riposte (foe may only dodge or block) instead of a "
                                     "riposte (000.6)")
    # defence (000.5)
    shieldman_step_scope: str = param("all_with_shield", tag="AMBIG",
                                      choices=("all_with_shield", "shield_parries"),
                                      doc="the Shieldman's -2 step covers every defensive move "
                                          "while it has a shield, or only shield parries")
    parry_bonus_mode: str = param("choose", tag="DEFAULT", choices=("choose", "sum"),
                                  doc="a parry uses the weapon's or the shield's Parry bonus "
                                      "(the better), or both summed (000.8.2)")
    armour_block_base_penalty: int = param(-10, tag="AMBIG", low=-40, high=0,
                                           doc="Armour block penalty for all but Gladiators "
                                               "and armoured Knights (000.9 #12)")
    armour_block_ai_mult: int = param(5, tag="DEFAULT", low=0, high=20,
                                      doc="Armour block total = skill + this x torso AI + "
                                          "d20 (000.10)")
    armour_block_success: str = param("absorb", tag="DEFAULT",
                                      choices=("absorb", "double_armour"),
                                      doc="a successful Armour block absorbs the blow, or lets "
                                          "it through at double armour (000.10)")
    # styles (000.7)
    untrained_skill: str = param("1d10", tag="DEFAULT",
                                 doc="natural skill of the untrained in Brawling and "
                                     "Skirmisher, rolled each fight: NdS, NdS+K or a number "
                                     "(Table 10 row 0 missing; 000.10)")
    group_alone_penalty_dodge: bool = param(False, tag="AMBIG",
                                            doc="the group styles' -5 alone also applies to "
                                                "Dodge (000.7)")
    task_assist_bonus: int = param(5, tag="DEFAULT", low=0, high=20,
                                   doc="a group-style leader's Task Assist to each other "
                                       "group-style member (4.5 missing; 000.10)")
    auto_leader: bool = param(True, tag="DEFAULT",
                              doc="with no designated leader, the first living group-style "
                                  "member leads (5.6)")
    legionnaire_leaderless: int = param(0, tag="DEFAULT", low=-10, high=0,
                                        doc="Legionnaire penalty in a group with no leader "
                                            "('may suffer -5, if the GM considers it')")
    rank_bonus_group: int = param(5, tag="DEFAULT", low=0, high=20,
                                  doc="group styles fighting ranked (5.25 missing; 000.10)")
    rank_frontage: int = param(3, tag="DEFAULT", low=1, high=6,
                               doc="a side's ranked fighters stand in ranks this wide: those "
                                   "behind the front rank cannot be attacked and attack only "
                                   "with a reach weapon; the next steps up when one falls "
                                   "(5.25 missing)")
    rank_reach: float = param(1.8, tag="DEFAULT", low=0.0, high=10.0,
                              doc="weapons this long (m) or longer (spears, polearms, great "
                                  "weapons) strike from the second rank (5.25 missing)")
    outnumbered_mode: str = param("side_count", tag="AMBIG",
                                  choices=("side_count", "two_foes"),
                                  doc="Footpad 'outnumbered': more living foes than living "
                                      "members of its side, or two or more living foes")
    hunter_parry_mode: str = param("net_zero", tag="AMBIG", choices=("net_zero", "minus_ten"),
                                   doc="Hunter vs animals: +10 Skill and -10 Parry net 0 on "
                                       "parries, or parries at -10 (000.9 #10)")
    berserk_replaces_normal: bool = param(True, tag="AMBIG",
                                          doc="berserk penalties replace the normal mode's -5 "
                                              "on defences (else they stack) (000.9 #11)")
    knight_unarmoured_scope: str = param("attacks_parries", tag="AMBIG",
                                         choices=("attacks_parries", "all"),
                                         doc="the Knight's -5 out of heavy armour: attacks and "
                                             "parries, or every roll (000.9 #13)")
    bladesman_mode: str = param("throwables_minus_5", tag="AMBIG",
                                choices=("throwables_minus_5", "throwables_0"),
                                doc="Bladesman in melee with a throwable weapon: -5 or 0 "
                                    "(000.9 #16)")
    shield_penalty_scope: str = param("shield_parries", tag="AMBIG",
                                      choices=("shield_parries", "all_rolls"),
                                      doc="style shield penalties apply to shield parries, or "
                                          "to every roll while carrying it (000.9 #17)")
    mobility_task: str = param("dodge_on_skill", tag="DEFAULT",
                               choices=("dodge_on_skill", "off"),
                               doc="the abstract duel's moving task is the dodge (out of the "
                                   "way, or behind the foe by 20): a style with mobility "
                                   "(Swashbuckler) dodges on its style skill where higher, "
                                   "unless in armour rank > 2; or off (5.6)")
    armour_rank_mode: str = param("highest", tag="AMBIG", choices=("highest", "torso"),
                                  doc="Swashbuckler 'Armour Rank': the highest AI worn, or the "
                                      "torso's (000.9 #20)")
    gladiator_weapons: tuple[str, ...] = param(("any",), tag="DEFAULT",
                                               doc="weapons a Gladiator is trained in ('any', "
                                                   "or rows of 'weapons'); others at -10 "
                                                   "(5.6)")
    gladiator_untrained_shield: int = param(-10, tag="DEFAULT", low=-40, high=0,
                                            doc="Gladiator with a shield it is not trained "
                                                "in (5.6)")
    martial_weapons: tuple[str, ...] = param((), tag="DEFAULT",
                                             doc="weapons a martial art covers (rows of "
                                                 "'weapons', e.g. staves); others at -20 (5.6)")
    feral_as: str = param("brawling_claws", tag="DEFAULT",
                          choices=("brawling_claws", "skirmisher"),
                          doc="Feral (5.26 missing): as Brawling with natural weapons, or as "
                              "Skirmisher (000.10)")
    mounted_penalty: int = param(-10, tag="DEFAULT", low=-40, high=0,
                                 doc="attacks of a mounted non-Horseman (5.23 missing)")
    ambush_rules: str = param("free_attack", tag="DEFAULT",
                              choices=("free_attack", "first_round"),
                              doc="a surprised fighter suffers one free, undefended attack from "
                                  "each foe before round 1, or cannot act or defend in round 1 "
                                  "(5.21 missing)")
    # the missile layer (000.7 missile clauses, 000.10 Aim and Table 32)
    range_rounds: int = param(2, tag="DEFAULT", low=0, high=20,
                              doc="abstract range phase: rounds before the sides close in "
                                  "which only missile and thrown attacks are made, when "
                                  "anyone has shots and nobody is surprised (0: start in "
                                  "melee; 000.10)")
    aim_step: int = param(5, tag="DEFAULT", low=0, high=20,
                          doc="bonus per aim action on the next shot (5.16 Aim, 000.10)")
    aim_max: int = param(10, tag="DEFAULT", low=0, high=40,
                         doc="cap on the aim bonus; step and cap doubled for Archer and "
                             "Bladesman (5.16, 000.7, 000.10)")
    missile_weapon_parry: bool = param(False, tag="DEFAULT",
                                       doc="shots may be parried with the melee weapon too; "
                                           "off: only Dodge or a shield parry (000.10)")
    missile_weapons: Table = param(T.missile_rows(), tag="DEFAULT", open_keys=True,
                                   doc="invented missile / thrown rows by name, columns "
                                       "damage, speed, strength, size, hands, kind, thrown, "
                                       "reload (000.10 Table 32), and optional modifiers "
                                       "and effects in the rules language; a new name adds "
                                       "one ('like = NAME' copies a row), given columns "
                                       "replace")
    # equipment and wounds (000.8, 000.10)
    weapon_str_mode: str = param("min_first", tag="DEFAULT", choices=("min_first", "off"),
                                 doc="Strength to wield: at least the first number of 'a / b' "
                                     "(shield added, strictly higher), or not checked")
    weapons: Table = param(T.weapon_rows(), tag="SRC", open_keys=True,
                           doc="weapon rows by name, columns thrust, swing, blow (damage "
                               "modifiers or NA), parry (or NA), speed, strength, size (m or "
                               "NA), hands (1, 2, 1+), kind, throwable, specialist: Tables "
                               "18-20 [SRC] and the invented punch, spear, improvised, "
                               "halberd, whip [DEFAULT]; optional modifiers and effects in "
                               "the rules language; a new name adds a weapon ('like = "
                               "NAME' copies a row), given columns replace (000.8.1)")
    styles: Table = param(T.STYLE_ROWS, tag="TEXT", open_keys=True,
                          doc="fighting styles by name, columns group (solo, group, none), "
                              "weapons and missiles ([test, modifier] pairs), buckler, shield, "
                              "skill_mod, aim_doubled, mechanics (5.6, 000.7), optional "
                              "modifiers and effects in the rules language; a new name adds "
                              "a style ('like = NAME' copies a row), given columns replace")
    hit_table: Table = param(T.HIT_FACES, tag="DEFAULT", low=0, high=20,
                             doc="d20 faces per location, top to bottom (Table 28 missing; "
                                 "000.10); must sum to 20")
    armour_mode: str = param("rank_reduction", tag="DEFAULT",
                             choices=("rank_reduction", "roll_reduction"),
                             doc="armour lowers the wound rank by its AI, or the wound roll "
                                 "by armour_roll_per_ai per AI (000.10)")
    armour_roll_per_ai: int = param(3, tag="DEFAULT", low=0, high=12,
                                    doc="armour_mode=roll_reduction: wound-roll points each AI "
                                        "removes (3 is about one rank); lower it to weaken armour")
    rank_shift_mode: str = param("post_lookup", tag="DEFAULT",
                                 choices=("post_lookup", "roll_plus_3"),
                                 doc="'one damage rank higher': a step up after the table, or "
                                     "+3 on the wound roll (000.8.4)")
    wound_code_table: Table = param(T.WOUND_CODES, tag="DEFAULT",
                                    doc="wound code (wounded / unconscious / killed) by "
                                        "Endurance band (Table 27 missing; 000.10)")
    rank_ratio: int = param(3, tag="DEFAULT", low=2, high=10,
                            doc="wound points: L = 1 and each rank above this times the last "
                                "(000.10)")
    f_points: int = param(0, tag="DEFAULT", low=0, high=1, doc="wound points of an F wound")
    wounded_penalty: int = param(-5, tag="DEFAULT", low=-40, high=0,
                                 doc="to all combat rolls in the wounded state (000.10)")
    limb_destroyed: str = param("out", tag="DEFAULT", choices=("out", "crippled"),
                                doc="an MM limb wound: out of the fight, or crippled (weapon arm: "
                                    "no attacks or weapon parries; off arm: no shield; leg: no "
                                    "dodge)")
    ko_rules: bool = param(False, tag="DEFAULT",
                           doc="knock-out attacks: a head hit of S or more knocks out; Footpad "
                               "one rank higher (5.12 missing)")
    max_rounds: int = param(100, tag="DEFAULT", low=1, high=10_000,
                            doc="rounds after which the fight is a draw (000.10)")

    def __post_init__(self) -> None:
        for field in ("weapons", "missile_weapons", "styles"):  # rows given partly: merged
            object.__setattr__(self, field, _merge_rows(getattr(self, field), field))
        check_fields(self)
        if sum(self.hit_table.values()) != 20 or list(self.hit_table) != list(T.LOCATIONS):
            raise SpecError("strike-rank rules field 'hit_table' must give d20 faces for "
                            + ", ".join(T.LOCATIONS) + " summing to 20, got "
                            + str(dict(self.hit_table)))
        if not self.sr_tiebreak or len(set(self.sr_tiebreak)) != len(self.sr_tiebreak):
            raise SpecError("strike-rank rules field 'sr_tiebreak' must list distinct tie-breaks "
                            "from " + ", ".join(TIEBREAKS))
        for band, code in self.wound_code_table.items():
            if not isinstance(code, str) or len(code.split()) != 3 or any(
                    not _is_rank_letter(x) for x in code.split()):
                raise SpecError("strike-rank rules field 'wound_code_table' maps END bands to "
                                f"three rank letters such as 'M S S', got {band}: {code!r}")
        object.__setattr__(self, "weapons", _rows(self.weapons, T.weapon_rows(), _weapon_row,
                                                  "weapons"))
        object.__setattr__(self, "missile_weapons",
                           _rows(self.missile_weapons, T.missile_rows(), _missile_row,
                                 "missile_weapons"))
        object.__setattr__(self, "styles", _rows(self.styles, T.STYLE_ROWS, _style_row, "styles"))
        # the rows as objects, once (not fields: equality and hashing see the tables)
        object.__setattr__(self, "_weapon_rows", _weapon_table(self.weapons))
        object.__setattr__(self, "_missile_rows", _missile_table(self.missile_weapons))
        object.__setattr__(self, "_style_rows", _style_table(self.styles))
        object.__setattr__(self, "_language", _language(self))
        for field in ("gladiator_weapons", "martial_weapons"):
            for name in getattr(self, field):
                if name not in self.weapons and not (field == "gladiator_weapons"
                                                     and name == "any"):
                    raise SpecError(f"strike-rank rules field '{field}' names weapon {name!r}; "
                                    "weapons: " + ", ".join(self.weapons))
        for name, row in self.styles.items():
            for clause in ("weapons", "missiles"):
                for test, _ in row[clause]:
                    _parse_test(test, self, f"{place('styles', name)}.{clause}")
        natural_dice(self.untrained_skill)  # a well-formed dice expression
        if self.range_rounds >= self.max_rounds:
            raise SpecError("strike-rank rules field 'range_rounds' must be below max_rounds "
                            f"({self.max_rounds}), got {self.range_rounds}")
        _code_bands(self.wound_code_table)

    def vocabulary(self) -> Vocabulary:
        """What the rows' conditions may name under these rules (their styles and weapons
        are the words of ``style`` and ``weapon``)."""
        return vocabulary(tuple(self.styles), tuple(self.weapons))

    def language(self, table: str, name: str) -> RowLanguage:
        """The modifiers and effects of row ``name`` of ``table`` (weapons, missile_weapons,
        styles); empty for a row without them."""
        return self._language.get((table, name), EMPTY)  # type: ignore[attr-defined]

    @property
    def has_language(self) -> bool:
        """Whether any row has modifiers or effects."""
        return bool(self._language)  # type: ignore[attr-defined]

    def missile(self, name: str) -> T.Missile:
        """The missile row ``name`` under these rules (``missile_weapons``)."""
        try:
            return self._missile_rows[name]  # type: ignore[attr-defined]
        except KeyError:
            raise SpecError(f"unknown missile {name!r}; missile_weapons: none, "
                            + ", ".join(self.missile_weapons)) from None

    def weapon(self, name: str) -> T.Weapon:
        """The weapon row ``name`` under these rules (``weapons``)."""
        try:
            return self._weapon_rows[name]  # type: ignore[attr-defined]
        except KeyError:
            raise SpecError(f"unknown weapon {name!r}; weapons: "
                            + ", ".join(self.weapons)) from None

    def style(self, name: str) -> Style:
        """The style row ``name`` under these rules (``styles``)."""
        try:
            return self._style_rows[name]  # type: ignore[attr-defined]
        except KeyError:
            raise SpecError(f"unknown style {name!r}; styles: "
                            + ", ".join(self.styles)) from None


def natural_dice(text: str) -> tuple[int, int, int]:
    """``(n, sides, plus)`` of an ``untrained_skill`` expression: ``"1d10"``, ``"2d6+3"`` or
    ``"5"`` (no dice)."""
    import re

    m = re.fullmatch(r"\s*(?:(\d+)\s*d\s*(\d+))?\s*([+-]?\s*\d+)?\s*", text)
    if not m or not (m.group(1) or m.group(3)):
        raise SpecError("strike-rank rules field 'untrained_skill' must be NdS, NdS+K or a "
                        f"number, e.g. 1d10, got {text!r}")
    n, sides = int(m.group(1) or 0), int(m.group(2) or 1)
    plus = int((m.group(3) or "0").replace(" ", ""))
    if n > 10 or not 1 <= sides <= 100 or not -20 <= plus <= 100:
        raise SpecError("strike-rank rules field 'untrained_skill' allows up to 10 dice of "
                        f"1..100 sides plus -20..100, got {text!r}")
    return n, sides, plus


def natural_skill_mean(rules: Rules) -> float:
    n, sides, plus = natural_dice(rules.untrained_skill)
    return n * (sides + 1) / 2 + plus


def _is_rank_letter(text: str) -> bool:
    return text == "F" or text in ("L", "S") or (len(text) >= 1 and set(text) == {"M"})


# --- content as data: weapon, missile and style rows -------------------------------------------


@dataclass(frozen=True)
class Style:
    """One fighting style row (the ``styles`` rule parameter, 5.6)."""

    name: str
    group: str
    weapons: tuple[tuple[str, int], ...]
    missiles: tuple[tuple[str, int], ...]
    buckler: int
    shield: int
    skill_mod: int
    aim_doubled: bool
    mechanics: frozenset[str]

    @property
    def solo(self) -> bool:
        return self.group == "solo"

    def has(self, mechanic: str) -> bool:
        return mechanic in self.mechanics


def _merge_rows(value: object, field: str) -> object:
    """Rows given partly (a TOML table, a ``col=value/col=value`` string from the command
    line) merged over the row they change -- the default row of that name, or the row
    named by ``like`` -- and the default rows not given kept."""
    defaults = {"weapons": T.weapon_rows, "missile_weapons": T.missile_rows,
                "styles": lambda: T.STYLE_ROWS}[field]()
    if not isinstance(value, Mapping):
        return value  # check_fields reports it
    out: dict[str, object] = {k: Table(v) for k, v in defaults.items()}
    for name, row in value.items():
        where = place(field, name)  # the row's key path: each error names it once
        if isinstance(row, str):
            row = _parse_row(row, where)
        if not isinstance(row, Mapping):
            raise SpecError(f"must be a table of columns, got {row!r}", where=where)
        row = dict(row)
        like = row.pop("like", None)
        if like is not None:
            if like not in value and like not in defaults:
                raise SpecError(f"{like!r} is not a row; rows: "
                                + ", ".join(dict.fromkeys([*defaults, *value])),
                                where=f"{where}.like")
            given = value[like] if like in value and like != name else None
            if isinstance(given, str):
                given = _parse_row(given, where)
            # a row given partly is read over its default row (its own 'like' not followed)
            base = {**defaults.get(like, {}), **(given or {})}
            base.pop("like", None)
        else:
            base = dict(out.get(name, {}))  # type: ignore[call-overload]
        out[name] = Table({**base, **row})
    return Table(out)


def _parse_row(text: str, where: str) -> dict[str, object]:
    """``col=value/col=value`` (the command line's row): numbers, true / false, NA, and
    lists written ``a;b`` or pairs ``test:mod;test:mod``."""
    row: dict[str, object] = {}
    for part in filter(None, (p.strip() for p in text.split("/"))):
        col, sep, raw = part.partition("=")
        if not sep:
            raise SpecError(f"is written column=value/column=value, got {part!r}", where=where)
        row[col.strip()] = _parse_cell(raw.strip())
    return row


def _parse_cell(raw: str) -> object:
    if ";" in raw or (":" in raw and not raw.startswith("weapon=")):
        items = [x.strip() for x in raw.split(";") if x.strip()]
        return tuple(tuple(_parse_cell(y) for y in x.rsplit(":", 1)) if ":" in x
                     else _parse_cell(x) for x in items)
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw


def _rows(value: Table, defaults: Mapping[str, Mapping[str, object]], check: object,
          field: str) -> Table:
    """Every row of ``value`` checked by ``check(name, row, where)`` (complete and typed)."""
    out = {}
    for name, row in value.items():
        where = place(field, name)
        if not isinstance(row, Mapping):
            raise SpecError(f"must be a table of columns, got {row!r}", where=where)
        out[name] = Table(check(name, row, where))  # type: ignore[operator]
    return Table(out)


def _need(row: Mapping[str, object], columns: Sequence[str], where: str) -> None:
    """Every column of ``columns`` given, and nothing else but the optional rules-language
    columns ``modifiers`` and ``effects``."""
    missing = [c for c in columns if c not in row]
    extra = [c for c in row if c not in columns and c not in LANGUAGE_COLUMNS]
    if missing:
        raise SpecError(f"lacks column(s) {', '.join(missing)} (give them, or "
                        "'like = NAME' to start from a row)", where=where)
    if extra:
        raise SpecError(f"has unknown column(s) {', '.join(extra)}; columns: "
                        + ", ".join((*columns, *LANGUAGE_COLUMNS)), where=where)


def _int(row: Mapping[str, object], col: str, where: str, low: int, high: int,
         na: bool = False) -> None:
    v = row[col]
    if na and v == "NA":
        return
    if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
        raise SpecError(f"must be an integer in {low}..{high}" + (" or NA" if na else "")
                        + f", got {v!r}", where=f"{where}.{col}")


def _bool(row: Mapping[str, object], col: str, where: str) -> None:
    if not isinstance(row[col], bool):
        raise SpecError(f"must be true or false, got {row[col]!r}", where=f"{where}.{col}")


def _choice(row: Mapping[str, object], col: str, where: str, choices: Sequence[str]) -> None:
    if row[col] not in choices:
        raise SpecError(f"must be one of {', '.join(choices)}, got {row[col]!r}",
                        where=f"{where}.{col}")


def _weapon_row(name: str, row: Mapping[str, object], where: str) -> Mapping[str, object]:
    _need(row, T.WEAPON_COLUMNS, where)
    for col in ("thrust", "swing", "blow"):
        _int(row, col, where, -20, 20, na=True)
    _int(row, "parry", where, -30, 30, na=True)
    _int(row, "speed", where, -5, 5)
    _int(row, "strength", where, 0, 60)
    size = row["size"]
    if size != "NA" and (isinstance(size, bool) or not isinstance(size, int | float)
                         or not 0 <= size <= 10):
        raise SpecError(f"must be a length in 0..10 m or NA, got {size!r}",
                        where=f"{where}.size")
    hands = row["hands"]
    row = {**row, "hands": str(hands), "size": size if size == "NA" else float(size)}
    _choice(row, "hands", where, T.HANDS)
    _choice(row, "kind", where, T.WEAPON_KINDS)
    _bool(row, "throwable", where)
    _bool(row, "specialist", where)
    if all(row[c] == "NA" for c in ("thrust", "swing", "blow")):
        raise SpecError("allows no attack type (thrust, swing and blow all NA)", where=where)
    return row


def _missile_row(name: str, row: Mapping[str, object], where: str) -> Mapping[str, object]:
    _need(row, T.MISSILE_COLUMNS, where)
    _int(row, "damage", where, -20, 20)
    _int(row, "speed", where, -5, 5)
    _int(row, "strength", where, 0, 60)
    _int(row, "reload", where, 0, 20)
    size = row["size"]
    if isinstance(size, bool) or not isinstance(size, int | float) or not 0 <= size <= 10:
        raise SpecError(f"must be a length in 0..10 m, got {size!r}", where=f"{where}.size")
    row = {**row, "hands": str(row["hands"]), "size": float(size)}
    _choice(row, "hands", where, T.HANDS)
    _choice(row, "kind", where, T.MISSILE_KINDS)
    _bool(row, "thrown", where)
    return row


def _style_row(name: str, row: Mapping[str, object], where: str) -> Mapping[str, object]:
    _need(row, T.STYLE_COLUMNS, where)
    _choice(row, "group", where, T.STYLE_GROUPS)
    for col in ("weapons", "missiles"):
        clauses = row[col]
        if not isinstance(clauses, tuple) or not all(
                isinstance(c, tuple) and len(c) == 2 and isinstance(c[0], str)
                and isinstance(c[1], int) and not isinstance(c[1], bool) for c in clauses):
            raise SpecError(f"must be a list of [test, modifier] pairs, got {clauses!r}",
                            where=f"{where}.{col}")
    if not row["weapons"] or row["weapons"][-1][0] != "any":  # type: ignore[index]
        raise SpecError("must end with an 'any' clause (what every other weapon costs)",
                        where=f"{where}.weapons")
    for col in ("buckler", "shield", "skill_mod"):
        _int(row, col, where, -40, 40)
    _bool(row, "aim_doubled", where)
    mechanics = row["mechanics"]
    if not isinstance(mechanics, tuple) or any(m not in T.MECHANICS for m in mechanics):
        raise SpecError("must be a list of " + ", ".join(T.MECHANICS) + f", got {mechanics!r}",
                        where=f"{where}.mechanics")
    return row


def _na(value: object) -> object:
    return None if value == "NA" else value


@lru_cache(maxsize=64)
def _weapon_table(rows: Table) -> dict[str, T.Weapon]:
    return {name: T.Weapon(name, _na(r["thrust"]), _na(r["swing"]), _na(r["blow"]),  # type: ignore[arg-type]
                           _na(r["parry"]), r["speed"], r["strength"], _na(r["size"]),  # type: ignore[arg-type]
                           r["hands"], r["kind"], r["throwable"], r["specialist"])
            for name, r in rows.items()}


@lru_cache(maxsize=64)
def _missile_table(rows: Table) -> dict[str, T.Missile]:
    return {name: T.Missile(name, r["damage"], r["speed"], r["strength"], r["size"],
                            r["hands"], r["kind"], r["thrown"], r["reload"])
            for name, r in rows.items()}


@lru_cache(maxsize=64)
def _style_table(rows: Table) -> dict[str, Style]:
    return {name: Style(name, r["group"], r["weapons"], r["missiles"], r["buckler"],
                        r["shield"], r["skill_mod"], r["aim_doubled"], frozenset(r["mechanics"]))
            for name, r in rows.items()}


def _language(rules: Rules) -> dict[tuple[str, str], RowLanguage]:
    """Every row's modifiers and effects, read once (only the rows that have some)."""
    if not any(col in row for field in ("weapons", "missile_weapons", "styles")
               for row in getattr(rules, field).values() for col in LANGUAGE_COLUMNS):
        return {}
    vocab = rules.vocabulary()
    out = {}
    for field in ("weapons", "missile_weapons", "styles"):
        for name, row in getattr(rules, field).items():
            found = read_row(field, name, row, vocab)
            if found:
                out[(field, name)] = found
    return out


def _parse_test(test: str, rules: Rules | None, where: str) -> tuple[str, object]:
    """A weapon test of a style clause as (kind, argument); an unknown one is an error."""
    for prefix in ("size<=", "speed<=", "speed==", "blade<=", "blade_speed<="):
        if test.startswith(prefix):
            try:
                return prefix, float(test[len(prefix):])
            except ValueError:
                break
    if test.startswith("kind="):
        kind = test[5:]
        if kind in T.WEAPON_KINDS or kind in T.MISSILE_KINDS:
            return "kind=", kind
    elif test.startswith("weapon="):
        name = test[7:]
        if rules is None or name in rules.weapons or name in rules.missile_weapons:
            return "weapon=", name
    elif test in T.WEAPON_TESTS:
        return test, None
    raise SpecError(f"unknown weapon test {test!r}; tests: " + ", ".join(T.WEAPON_TESTS),
                    where=where)


@lru_cache(maxsize=64)
def _code_bands(table: Table) -> tuple[tuple[int, int, tuple[int, int, int]], ...]:
    bands = []
    for key, code in table.items():
        low, _, high = str(key).partition("-")
        bands.append((int(low), int(high or low), tuple(rank_of(x) for x in code.split())))
    return tuple(sorted(bands))  # type: ignore[arg-type]


# --- Tables 16 and 17: Actions, Initiative Index (000.2) ---------------------------------------


def blocks_above(value: int, top: int, size: int, rounding: str) -> int:
    """Number of blocks of ``size`` above ``top`` (started blocks with ``ceil``)."""
    if value <= top:
        return 0
    if rounding == "ceil":
        return math.ceil((value - top) / size)
    return (value - top) // size


def actions(agility: int, rounding: str = "ceil") -> int:
    """Base Actions from Agility (Table 16)."""
    for high, n in T.ACTIONS_TABLE:
        if agility <= high:
            return n
    return T.ACTIONS_TABLE[-1][1] + blocks_above(agility, T.TABLE_TOP, 4, rounding)


def initiative_index(dexterity: int, rounding: str = "ceil") -> tuple[int, int]:
    """Initiative Index (dice, flat bonus) from Dexterity (Table 17); DEX 25 -> (4, 2)."""
    for high, dice, flat in T.INDEX_TABLE:
        if dexterity <= high:
            return dice, flat
    dice, flat = T.INDEX_TABLE[-1][1:]
    return dice, flat + blocks_above(dexterity, T.TABLE_TOP, 4, rounding)


def index_resolution(faces: list[int] | tuple[int, ...]) -> tuple[int, int]:
    """(bonus, dice kept) of one roll of initiative dice: 5 -> +1, 6 -> +2 (5.3)."""
    bonus = sum(T.INDEX_RESOLUTION[f] for f in faces)
    kept = sum(1 for f in faces if f >= 5)
    return bonus, kept


# --- opposed rolls and overpowering (000.3, 000.6) ---------------------------------------------


def overpower_blocks(margin: int, strict: bool = False) -> int:
    """Blocks of 20 an attacker overpowered by (65 vs 17 -> 2)."""
    if margin <= 0:
        return 0
    return (margin - 1) // T.OVERPOWER_BLOCK if strict else margin // T.OVERPOWER_BLOCK


def reaches(margin: int, needed: int, strict: bool = False) -> bool:
    """Whether a margin of ``margin`` is 'by ``needed`` or more' (or strictly more)."""
    return margin > needed if strict else margin >= needed


def spend_overpower(blocks: int, policy: str, rules: Rules) -> tuple[int | None, int, bool]:
    """(called location, rank shift, disarm) an attacker buys with ``blocks`` overpower
    blocks under its ``overpower_policy``: one menu option per block, +1 rank repeatable
    (000.6)."""
    menu = rules.overpower_menu
    location, shift, disarm = None, 0, False
    for b in range(blocks):
        if b == 0 and policy == "head" and "location" in menu:
            location = T.HEAD
        elif b == 0 and policy == "disarm" and "disarm" in menu and rules.disarm_effect != "none":
            disarm = True
        elif "rank" in menu:
            shift += 1
    return location, shift, disarm


def defence_penalty(earlier: int, step: int = T.DEFENCE_STEP) -> int:
    """Cumulative penalty of a defensive move after ``earlier`` moves this round."""
    return earlier * step


# --- wounds (000.8.4, 000.10) ---------------------------------------------------------------


def rank_name(rank: int) -> str:
    return T.RANK_NAMES[rank] if rank < len(T.RANK_NAMES) else "M" * (rank - 2)


def rank_of(letters: str) -> int:
    """Rank index of a wound letter: F 0, L 1, S 2, M 3, MM 4, MMM 5 ..."""
    if letters in ("F", "L", "S"):
        return "FLS".index(letters)
    return 2 + len(letters)


def wound_rank(roll: int, rounding: str = "ceil") -> int:
    """Rank of a wound roll on the Wound Matrix (Table 26); anything <= 2 is F."""
    for high, rank in T.WOUND_MATRIX:
        if roll <= high:
            return rank
    return T.WOUND_MATRIX[-1][1] + blocks_above(roll, T.WOUND_MATRIX_TOP, 4, rounding)


def death_ranks(endurance: int) -> tuple[int, int]:
    """Ranks of instant death (head, torso): M and MM, one M higher per complete block of
    12 Endurance above 20 (000.8.4)."""
    extra = max(0, endurance - T.DEATH_END_BASE) // T.DEATH_END_BLOCK
    return T.HEAD_DEATH_RANK + extra, T.TORSO_DEATH_RANK + extra


def rank_points(rank: int, ratio: int = 3, f_points: int = 0) -> int:
    """Wound points of a rank: F f_points, L 1, S ratio, M ratio^2 ... (000.10)."""
    return f_points if rank <= 0 else ratio ** (rank - 1)


def wound_code(endurance: int, rules: Rules) -> tuple[int, int, int]:
    """The three stage capacities (as ranks) of the wound code (Table 27 default)."""
    bands = _code_bands(rules.wound_code_table)
    for low, high, code in bands:
        if low <= endurance <= high:
            return code
    top_high = bands[-1][1]
    if endurance < bands[0][0]:
        return bands[0][2]
    letters = list(bands[-1][2])
    upgrades = math.ceil((endurance - top_high) / 4)
    for k in range(upgrades):  # one letter per further block of 4, left to right
        letters[k % 3] += 1
    return letters[0], letters[1], letters[2]


def stage_thresholds(endurance: int, rules: Rules) -> tuple[int, int, int]:
    """Cumulative wound points at which the fighter is wounded, unconscious, killed."""
    c = [rank_points(r, rules.rank_ratio, rules.f_points) for r in wound_code(endurance, rules)]
    return c[0], c[0] + c[1], c[0] + c[1] + c[2]


def hit_location(face: int, table: Table, shift: int = 0) -> int:
    """Location index of a d20 face (shifted by an Archer's aim, clamped to 1..20)."""
    face = min(20, max(1, face + shift))
    top = 0
    for loc, n in enumerate(table.values()):
        top += n
        if face <= top:
            return loc
    raise AssertionError("hit table does not cover 20 faces")


# --- style and equipment (000.7, 000.8) --------------------------------------------------------


def weapon_passes(test: str, w: T.Weapon, c: Combatant, rules: Rules) -> bool:
    """Whether weapon ``w`` passes one test of a style's clauses (:data:`T.WEAPON_TESTS`)."""
    kind, arg = _parse_test(test, rules, "styles")
    size = 0.0 if w.size is None else w.size
    match kind:
        case "any":
            return True
        case "size<=":
            return size <= arg  # type: ignore[operator]
        case "speed<=":
            return w.speed <= arg  # type: ignore[operator]
        case "speed==":
            return w.speed == arg
        case "blade<=":
            return w.kind == "blade" and size <= arg  # type: ignore[operator]
        case "blade_speed<=":
            return w.kind == "blade" and w.speed <= arg  # type: ignore[operator]
        case "kind=":
            return w.kind == arg
        case "weapon=":
            return w.name == arg
        case "throwable":
            return w.throwable
        case "bow":
            return w.kind in ("bow", "crossbow")
        case "missile":
            return w.missile
        case "unarmed" | "improvised" | "spear" | "polearm":
            return w.kind == kind
        case "natural":
            return w.name == "claws"
        case "one_handed":
            return not w.two_handed
        case "two_handed":
            return w.two_handed
        case "specialist":
            return w.name == c.specialist_weapon
        case "gladiator":
            return "any" in rules.gladiator_weapons or w.name in rules.gladiator_weapons
        case "martial":
            return w.name in rules.martial_weapons
    raise AssertionError(f"unhandled weapon test {test!r}")


def style_of(c: Combatant, rules: Rules) -> Style:
    """The style row whose weapon, shield and aim rules apply to ``c`` (a style with the
    ``feral`` mechanic follows ``feral_as``)."""
    style = rules.style(c.style)
    if style.has("feral") and rules.feral_as == "skirmisher":
        return rules.style("skirmisher")
    return style


def _first_clause(clauses: Sequence[tuple[str, int]], w: T.Weapon, c: Combatant,
                  rules: Rules, style: Style) -> int | None:
    for test, mod in clauses:
        if weapon_passes(test, w, c, rules):
            if (test == "throwable" and style.has("throwables_in_melee") and not w.missile
                    and rules.bladesman_mode == "throwables_0"):
                return 0  # 000.9 #16: a throwable weapon in melee at 0
            return int(mod)
    return None


def style_weapon_mod(c: Combatant, rules: Rules) -> int:
    """The style's modifier for attacks and parries with the weapon in hand (000.7): its
    first ``weapons`` clause the weapon passes (a Shieldman's -10 with a two-handed weapon
    includes its -5 for having no shield, 000.9 #9: that -5 is the ``shield_step``
    mechanic's, for one-handed weapons only)."""
    style = style_of(c, rules)
    mod = _first_clause(style.weapons, rules.weapon(c.weapon), c, rules, style)
    assert mod is not None, "a style's weapons end with an 'any' clause"
    return mod


def style_missile_mod(c: Combatant, rules: Rules) -> int:
    """The style's modifier for shots with its missile / thrown weapon (000.7): the
    style's missile clauses, else its melee clauses applied to the row."""
    w = rules.missile(c.missile).as_weapon()
    style = style_of(c, rules)
    mod = _first_clause(style.missiles, w, c, rules, style)
    if mod is None:
        mod = _first_clause(style.weapons, w, c, rules, style)
    assert mod is not None, "a style's weapons end with an 'any' clause"
    return mod


def aim_doubled(c: Combatant, rules: Rules) -> bool:
    """Aim doubled and the Hit Distribution shift allowed (5.6 Archer, Bladesman)."""
    return style_of(c, rules).aim_doubled


def aim_bonus(c: Combatant, rules: Rules) -> int:
    """Bonus of ``aim_actions`` aims on a shot: +aim_step each up to aim_max, both doubled
    for Archer / Crossbowman and Bladesman (5.16, 000.7, 000.10)."""
    double = 2 if aim_doubled(c, rules) else 1
    return min(c.aim_actions * rules.aim_step, rules.aim_max) * double


def missile_problem(c: Combatant, rules: Rules) -> str | None:
    """Why ``c`` cannot shoot its missile weapon, or ``None`` (Strength, 000.8.1 pattern)."""
    if c.missile == "none":
        return None
    m = rules.missile(c.missile)
    if m.hands == "2" and c.shield != "none" and not (c.shield == "buckler"
                                                       and c.buckler_strapped):
        return (f"{c.name}: the {m.name} is two-handed and cannot be shot with a {c.shield} "
                "shield in hand (field 'missile'; only a strapped buckler leaves the hands "
                "free, 5.6 Archer)")
    if rules.weapon_str_mode != "off" and c.strength < m.strength:
        return (f"{c.name}: Strength {c.strength} is below the {m.name}'s {m.strength} "
                f"(field 'missile', 000.8.1)")
    return None


def style_shield_mod(c: Combatant, rules: Rules) -> int:
    """The style's modifier for using its shield (000.7); a style with
    ``shield_training`` uses a shield it is trained in at 0 (5.6 Gladiator)."""
    if c.shield == "none":
        return 0
    style = style_of(c, rules)
    if style.has("shield_training") and not c.shield_trained:
        return rules.gladiator_untrained_shield
    return style.buckler if c.shield == "buckler" else style.shield


def heavy_armour(c: Combatant) -> bool:
    """Armour Index 2 or better in one or more locations (5.6 Knight)."""
    return max(c.armour.values()) >= 2


def armour_rank(c: Combatant, rules: Rules) -> int:
    return T.armour_rank(c.armour, rules.armour_rank_mode)


def wield_problem(c: Combatant, rules: Rules) -> str | None:
    """Why ``c`` cannot fight with its equipment, or ``None`` (000.8.1-2, 5.6)."""
    w = rules.weapon(c.weapon)
    shield = T.SHIELDS[c.shield]
    specialist = style_of(c, rules).has("specialist") or (
        c.second_style in rules.styles and rules.style(c.second_style).has("specialist"))
    if w.specialist and not (specialist and c.specialist_weapon == w.name):
        return (f"{c.name}: the {w.name} is a specialist weapon; only the specialist style "
                f"for it can fight with it (5.6 Specialist)")
    if c.shield != "none" and w.two_handed and not (c.shield == "buckler" and c.buckler_strapped):
        return (f"{c.name}: the {w.name} is two-handed and cannot be used with a "
                f"{c.shield} shield (only a strapped buckler leaves the hands free)")
    if rules.weapon_str_mode == "off":
        return None
    if c.shield == "none" or c.buckler_strapped:
        if c.strength < w.strength:
            return (f"{c.name}: Strength {c.strength} is below the {w.name}'s {w.strength} "
                    f"(000.8.1)")
    elif c.strength <= w.strength + shield.strength:
        return (f"{c.name}: with a {w.name} ({w.strength}) and a {c.shield} shield "
                f"({shield.strength}) Strength must be higher than "
                f"{w.strength + shield.strength}, got {c.strength} (5.13)")
    return None


def shield_parry_bonus(c: Combatant) -> int:
    if c.shield == "buckler" and c.buckler_strapped:
        return T.STRAPPED_BUCKLER_PARRY
    return T.SHIELDS[c.shield].parry


def attack_types(c: Combatant, rules: Rules) -> tuple[int, ...]:
    """The attack types (0 thrust, 1 swing, 2 blow) the weapon allows."""
    w = rules.weapon(c.weapon)
    return tuple(t for t in range(3) if w.damage(t) is not None)


def riposte_damage(c: Combatant, rules: Rules) -> int | None:
    """Damage modifier of a riposte (a thrust; ``None``: this weapon cannot riposte)."""
    w = rules.weapon(c.weapon)
    if w.thrust is not None:
        return w.thrust
    return None if rules.riposte_requires_thrust else w.swing


def action_cost(c: Combatant, attack_type: int, rules: Rules) -> int:
    """Action cost of an attack: by type plus the weapon's Speed, at least
    ``action_cost_floor`` if it is set (000.2.4: the digest sets no floor)."""
    cost = int(rules.action_cost[T.ATTACK_TYPES[attack_type]]) + rules.weapon(c.weapon).speed
    floor = rules.action_cost_floor
    return cost if floor is None else max(floor, cost)


def budget_cost(c: Combatant, attack_type: int, rules: Rules) -> int:
    """Actions an attack spends under ``action_economy="budget"``: its action cost, at least
    1 (an attack that cost nothing could be repeated without end)."""
    return max(1, action_cost(c, attack_type, rules))
