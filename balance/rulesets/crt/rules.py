"""Seed 001 (simultaneous 2d6 Combat Results Table) as data: tables, fields, scores.

Every table cites the seed text or the digest entry (``../shared/rules/001-crt.md``) it comes
from.  Tags: TEXT (the seed says it), AMBIG (a chosen reading), DEFAULT (a gap filled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...fields import Table, check_fields, param

ABILITIES: tuple[str, ...] = ("agility", "strength", "toughness", "creativity")
WEAPON_TYPES: tuple[str, ...] = ("one_handed", "two_handed", "unarmed")
SKILL_LEVELS: tuple[str, ...] = ("unskilled", "skilled", "expert", "veteran", "superior", "master")
ARMOURS: tuple[str, ...] = ("none", "leather", "mail", "plate")
SHIELDS: tuple[str, ...] = ("none", "buckler", "round", "large")
DIVERT_POLICIES: tuple[str, ...] = ("never", "always", "if_deficit", "below_health", "random",
                                    "reactive")

# 001.9 "Abilities for skill levels 4-5 and for other weapon types" [DEFAULT], except the
# one-handed base and levels 1-3 (agility; strength, toughness, creativity), which are TEXT
# (the Bruggish example).  Index 0 is the ability that governs unskilled use (001.2).
LEVEL_ABILITIES = {
    "one_handed": ("agility", "strength", "toughness", "creativity", "agility", "strength"),
    "two_handed": ("strength", "toughness", "agility", "creativity", "strength", "toughness"),
    "unarmed": ("toughness", "strength", "agility", "creativity", "toughness", "strength"),
}

# 001.4 Combat Results Table: the 2d6 roll needed (that roll or higher) for an advantage band.
# The zero band is special: only 7 or 12 score, and 11 fails (001.8.1-2).
BAND_EDGES: tuple[tuple[int, int], ...] = ((25, 4), (13, 5), (1, 6), (0, 7), (-12, 8), (-24, 9))
"""(lowest advantage of the band, roll needed); below -24 the roll needed is 10."""

# 001.6 Extraordinary Failure (you rolled a 2) and Success (you rolled a 12): the effect of
# a fresh 2d6 roll, named as the kernel and reference implement them.
EF_TABLE = {2: "slain", 3: "unconscious", 4: "maimed", 5: "tripped", 6: "shattered",
            7: "foe_reroll", 8: "stripped", 9: "dropped", 10: "nothing", 11: "struck_self",
            12: "won_through"}
ES_TABLE = {2: "devil", 3: "extra_exchange", 4: "extra_stroke", 5: "two_extra_attacks",
            6: "max_damage_stuck", 7: "slip_saves", 8: "two_strokes", 9: "strike_through",
            10: "disarm", 11: "break_weapon", 12: "enemy_breaks"}

# 001.3 opening ambush / sneak attack: 1d6 + skill level.
AMBUSH_RESULTS = ((1, "warned"), (4, "none"), (6, "brief"), (8, "surprise"), (99, "total"))
"""(highest total of the result, result)."""


def needed(advantage: int) -> int:
    """The 2d6 roll a fighter with ``advantage`` needs (7 means "only 7 or 12" at zero)."""
    for low, roll in BAND_EDGES:
        if advantage >= low:
            return roll
    return 10


def scores(advantage: int, roll: int) -> bool:
    """Whether ``roll`` on 2d6 is a damaging stroke for a fighter with ``advantage``.

    2 never scores, 12 always does, 11 does except at exactly zero, and at zero only 7
    and 12 score (001.4).
    """
    if roll == 2:
        return False
    if roll == 12:
        return True
    if advantage == 0:
        return roll == 7
    return roll >= needed(advantage)


def ambush_result(total: int) -> str:
    """Name of the ambush result for ``1d6 + skill`` (001.3)."""
    for high, result in AMBUSH_RESULTS:
        if total <= high:
            return result
    raise AssertionError("unreachable")


@dataclass(frozen=True, kw_only=True)
class Combatant:
    """One fighter of seed 001."""

    _owner: ClassVar[str] = "crt combatant"

    name: str = param("fighter", tag="TEXT", doc="display name in logs and tables")
    agility: int = param(7, tag="DEFAULT", low=0, high=30,
                         doc="ability; governs one-handed weapons (001.1; range 3-12 default)")
    strength: int = param(7, tag="DEFAULT", low=0, high=30,
                          doc="ability; governs two-handed weapons (001.1)")
    toughness: int = param(7, tag="DEFAULT", low=0, high=30,
                           doc="ability; governs unarmed combat; health by default (001.9)")
    creativity: int = param(7, tag="DEFAULT", low=0, high=30,
                            doc="ability; the veteran level's ability for one-handed (001.2)")
    combats: int = param(0, tag="TEXT", low=0, high=1000,
                         doc="combats survived, added to the combat score (001.2)")
    weapon_type: str = param("one_handed", tag="TEXT", choices=WEAPON_TYPES,
                             doc="weapon type in use; Bruggish wields a maul one-handed (001.1)")
    skill: int = param(0, tag="TEXT", low=0, high=5,
                       doc="skill level with that weapon type: 0 unskilled ... 5 master (001.1)")
    unarmed_skill: int = param(0, tag="DEFAULT", low=0, high=5,
                               doc="skill level unarmed, used once disarmed (001.6 EF8, ES10)")
    governing: str = param("auto", tag="AMBIG", choices=("auto", *ABILITIES),
                           doc="per-weapon override of the governing ability; the watchmen's "
                               "cudgels use strength (001.8.5)")
    bonus: int = param(0, tag="DEFAULT", low=-100, high=100,
                       doc="situational modifier added to the combat score")
    ambush: int = param(0, tag="TEXT", low=0, high=5,
                        doc="ambush / sneak-attack skill level (001.3)")
    health: int | None = param(None, tag="DEFAULT", low=1, high=999,
                               doc="starting health; none = the rules' health model (001.9)")
    armour: str = param("none", tag="DEFAULT", choices=ARMOURS,
                        doc="armour, a flat reduction per stroke (001.9)")
    shield: str = param("none", tag="DEFAULT", choices=SHIELDS,
                        doc="shield, deflects a scored stroke on d6 <= its block (001.9)")
    divert: str = param("never", tag="DEFAULT", choices=DIVERT_POLICIES,
                        doc="diversion policy (001.5): never, always, if_deficit, below_health "
                            "(health <= divert_health), random (with divert_p), reactive "
                            "(below_health, but declaring second, with the advantage, it "
                            "diverts only if the foe declared an attack)", policy=True)
    divert_health: int = param(3, tag="DEFAULT", low=0, high=999,
                               doc="below_health policy: divert when health is at most this", policy=True, search=(1, 2, 3, 4, 5, 6))
    divert_p: float = param(0.5, tag="DEFAULT", low=0.0, high=1.0,
                            doc="random policy: probability of diverting each exchange", policy=True, search=(0.25, 0.5, 0.75))
    leader: bool = param(False, tag="DEFAULT",
                         doc="a leader or champion whose breaking may break the side (ES 12)")

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The rule parameters of seed 001, each with its provenance tag."""

    _owner: ClassVar[str] = "crt rules"

    extraordinary: bool = param(True, tag="TEXT",
                                doc="roll on the Extraordinary Failure / Success tables on 2 / 12 "
                                    "(001.6); off gives the plain duel")
    max_table_chain: int = param(3, tag="DEFAULT", low=0, high=20,
                                 doc="cap on EF12 -> ES -> ES2 -> EF ... chains, then a plain "
                                     "failure / success (001.6)")
    es2_mode: str = param("roller_fails", tag="AMBIG",
                          choices=("roller_fails", "foe_rolls_ef", "foe_slain"),
                          doc="ES 2 'Before the Devil knows your dead': roller's stroke fails "
                              "and roller rolls EF; or the foe rolls EF; or the foe is slain")
    es7_own_stroke: bool = param(False, tag="AMBIG",
                                 doc="ES 7 'you slip and fall': whether your own stroke still lands")
    es11: str = param("damage", tag="DEFAULT", choices=("damage", "surrender"),
                      doc="ES 11 break foe's weapon: take the damage (foe disarmed) or accept "
                          "his surrender (fight ends)")
    ef6_no_shield: str = param("nothing", tag="DEFAULT", choices=("nothing", "weapon"),
                               doc="EF 6 shield result (d6 1-3) with no shield: nothing, or "
                                   "the weapon shatters instead")
    ef9: str = param("lose_next_attack", tag="DEFAULT", choices=("lose_next_attack", "nothing"),
                     doc="EF 9 dropped weapon: the next round is a forced diversion")
    divert_12_es: bool = param(False, tag="DEFAULT",
                               doc="a diverter who rolls 12 also gets the ES table (001.5)")
    divert_scope: str = param("pair", tag="DEFAULT", choices=("pair", "all"),
                              doc="a diversion protects against the foe of that pairing only, "
                                  "or against all foes (001.5)")
    multi_zero_mode: str = param("symmetric", tag="AMBIG",
                                 choices=("symmetric", "foes_keep_aggregate"),
                                 doc="against the 2nd and 3rd foe: both sides at zero, or the "
                                     "foes keep the aggregate band (001.7)")
    max_foes: int = param(3, tag="TEXT", low=1, high=3,
                          doc="foes that can engage one fighter; more wait and step in "
                              "when one falls (001.7)")
    leader_break_p: float = param(1.0, tag="DEFAULT", low=0.0, high=1.0,
                                  doc="chance the rest of a side breaks when its leader breaks "
                                      "(ES 12)")
    health: str = param("toughness", tag="DEFAULT", choices=("toughness", "fixed"),
                        doc="health model: toughness, or fixed_health for all (001.9)")
    fixed_health: int = param(10, tag="DEFAULT", low=1, high=999,
                              doc="starting health under health=fixed")
    damage_die: int = param(6, tag="DEFAULT", low=1, high=20,
                            doc="sides of the one damage die 'D' (001.8.11, 001.9)")
    min_damage: int = param(1, tag="DEFAULT", low=0, high=20,
                            doc="least damage of a stroke before armour (unarmed -2, min 1)")
    weapon_damage_mod: Table = param(
        {"one_handed": 0, "two_handed": 2, "unarmed": -2}, tag="DEFAULT", low=-20, high=20,
        doc="damage modifier by weapon type (001.9)")
    armour_points: Table = param(
        {"none": 0, "leather": 1, "mail": 2, "plate": 3}, tag="DEFAULT", low=0, high=20,
        doc="damage each armour removes from a stroke (001.9)")
    shield_block: Table = param(
        {"none": 0, "buckler": 1, "round": 2, "large": 3}, tag="DEFAULT", low=0, high=6,
        doc="a scored stroke (not a 12) is deflected on d6 <= block (001.9)")
    level_abilities: Table = param(
        LEVEL_ABILITIES, tag="DEFAULT",
        doc="ability governing each weapon type (index 0) and added at skill levels 1-5; "
            "one-handed 0-3 are TEXT (001.2, 001.9)")
    ambush: str = param("none", tag="TEXT", choices=("none", "a", "b"),
                        doc="which side opens with an ambush / sneak attack roll (001.3)")
    ambush_skill: str = param("best", tag="DEFAULT", choices=("best", "first"),
                              doc="in a group, whose ambush skill counts: the best, or the first")
    ambush_tables: bool = param(True, tag="DEFAULT",
                                doc="one-sided ambush exchanges (results 1, 5-8) use the "
                                    "extraordinary tables like any CRT roll")
    total_surprise_12: str = param(
        "second_target_only", tag="DEFAULT", choices=("second_target_only", "twice_if_alone"),
        doc="total surprise (ambush 9+): a 12 damages a second engaged foe only (nothing more "
            "in a duel), or strikes its one foe twice when there is no second (001.3)")
    max_rounds: int = param(200, tag="DEFAULT", low=1, high=100_000,
                            doc="rounds after which the fight is a draw (001.9)")

    def __post_init__(self) -> None:
        check_fields(self)
        for kind, abilities in self.level_abilities.items():
            if kind not in WEAPON_TYPES or len(abilities) != 6 or any(
                    a not in ABILITIES for a in abilities):
                from ...errors import SpecError
                raise SpecError("crt rules field 'level_abilities' must map each of "
                                f"{', '.join(WEAPON_TYPES)} to 6 abilities from "
                                f"{', '.join(ABILITIES)}; got {kind}: {abilities!r}")

    @property
    def plain(self) -> bool:
        """No extraordinary tables: the duel the exact solver handles (with no diversion
        or ambush)."""
        return not self.extraordinary and self.ambush == "none"


def combat_score(c: Combatant, rules: Rules, weapon_type: str | None = None) -> int:
    """Combat score of ``c`` with ``weapon_type`` (default: the one in hand), 001.2.

    governing ability + combats survived + the ability of each skill level held, + bonus.
    """
    kind = weapon_type or c.weapon_type
    abilities = rules.level_abilities[kind]
    level = c.skill if kind == c.weapon_type else c.unarmed_skill if kind == "unarmed" else 0
    governing = abilities[0] if c.governing == "auto" or kind != c.weapon_type else c.governing
    total = getattr(c, governing) + c.combats + c.bonus
    total += sum(getattr(c, abilities[lvl]) for lvl in range(1, level + 1))
    return total


def starting_health(c: Combatant, rules: Rules) -> int:
    """Health at the start of a fight (001.9: toughness; at <= 0 a fighter is out)."""
    if c.health is not None:
        return c.health
    return max(1, c.toughness) if rules.health == "toughness" else rules.fixed_health
