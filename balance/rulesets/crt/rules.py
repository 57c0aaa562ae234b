"""Seed 001 (simultaneous 2d6 Combat Results Table) as data: tables, fields, scores.

Every table cites the seed text or the digest entry (``../shared/rules/001-crt.md``) it comes
from.  Tags: TEXT (the seed says it), AMBIG (a chosen reading), DEFAULT (a gap filled).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

from ...errors import SpecError
from ...fields import Table, check_fields, param
from ...language import Name, Names, Vocabulary
from ..house import house_rules_param, read

ABILITIES: tuple[str, ...] = ("agility", "strength", "toughness", "creativity")
WEAPON_TYPES: tuple[str, ...] = ("one_handed", "two_handed", "unarmed")
SKILL_LEVELS: tuple[str, ...] = ("unskilled", "skilled", "expert", "veteran", "superior", "master")
ARMOURS: tuple[str, ...] = ("none", "leather", "mail", "plate")
SHIELDS: tuple[str, ...] = ("none", "buckler", "round", "large")
DIVERT_POLICIES: tuple[str, ...] = ("never", "always", "if_deficit", "below_health", "random",
                                    "reactive", "by_band")

# 001.9 "Abilities for skill levels 4-5 and for other weapon types" [DEFAULT], except the
# one-handed base and levels 1-3 (agility; strength, toughness, creativity), which are TEXT
# (the Bruggish example).  Index 0 is the ability that governs unskilled use (001.2).
LEVEL_ABILITIES = {
    "one_handed": ("agility", "strength", "toughness", "creativity", "agility", "strength"),
    "two_handed": ("strength", "toughness", "agility", "creativity", "strength", "toughness"),
    "unarmed": ("toughness", "strength", "agility", "creativity", "toughness", "strength"),
}

# 001.4 Combat Results Table: the seven bands of the advantage (own score - foe's score),
# from the seed's "minus 25 and lower" to "plus 25 and higher".
BANDS: tuple[str, ...] = ("great_deficit", "deficit", "slight_deficit", "zero",
                          "slight_advantage", "advantage", "great_advantage")

# Where the bands begin (TEXT, 001.4): "plus 1 to 12", "plus 13-24", "plus 25 and higher" and
# their mirror images.  A band runs from its edge up to the next band's (the advantage
# bands) or down from it (the deficit bands); "zero" is exactly 0.
BAND_EDGES = {"advantage": 13, "great_advantage": 25, "deficit": -13, "great_deficit": -25}

# The 2d6 roll each band needs (that roll or higher scores; TEXT, 001.4).  At zero only
# that one roll (7) and a 12 score, and 11 fails there (001.8.1-2).
BAND_NEEDED = {"great_advantage": 4, "advantage": 5, "slight_advantage": 6, "zero": 7,
               "slight_deficit": 8, "deficit": 9, "great_deficit": 10}

# 001.6 Extraordinary Failure (you rolled a 2) and Success (you rolled a 12): the effect of
# a fresh 2d6 roll (TEXT), named as the kernel and reference implement them; the digest's
# implementation column gives the DEFAULT reading of each.  A rule table: any entry may
# name any effect of its own table ("nothing" / "stroke" blank an entry).
EF_EFFECTS: tuple[str, ...] = ("slain", "unconscious", "maimed", "tripped", "shattered",
                               "foe_reroll", "stripped", "dropped", "nothing", "struck_self",
                               "won_through")
ES_EFFECTS: tuple[str, ...] = ("devil", "extra_exchange", "extra_stroke", "two_extra_attacks",
                               "max_damage_stuck", "slip_saves", "two_strokes",
                               "strike_through", "disarm", "break_weapon", "enemy_breaks",
                               "stroke")
EF_TABLE = {"2": "slain", "3": "unconscious", "4": "maimed", "5": "tripped", "6": "shattered",
            "7": "foe_reroll", "8": "stripped", "9": "dropped", "10": "nothing",
            "11": "struck_self", "12": "won_through"}
ES_TABLE = {"2": "devil", "3": "extra_exchange", "4": "extra_stroke", "5": "two_extra_attacks",
            "6": "max_damage_stuck", "7": "slip_saves", "8": "two_strokes",
            "9": "strike_through", "10": "disarm", "11": "break_weapon", "12": "enemy_breaks"}

def _band_mix(**p_by_kind: float) -> dict[str, float]:
    """A per-band diversion table from probabilities for the deficit bands, zero and the
    advantage bands (the three of each side alike)."""
    kinds = {"great_deficit": "deficit", "deficit": "deficit", "slight_deficit": "deficit",
             "zero": "zero", "slight_advantage": "advantage", "advantage": "advantage",
             "great_advantage": "advantage"}
    return {name: float(p_by_kind.get(kind, 0.0)) for name, kind in kinds.items()}


NO_DIVERSION = _band_mix()

# 001.3 opening ambush / sneak attack: the result of each total of 1d6 + skill level (0-5).
AMBUSH_RESULTS: tuple[str, ...] = ("warned", "none", "brief", "surprise", "total")
AMBUSH_TABLE = {"1": "warned", "2": "none", "3": "none", "4": "none", "5": "brief",
                "6": "brief", "7": "surprise", "8": "surprise", "9": "total", "10": "total",
                "11": "total"}
# The combat-score bonus of hand-to-hand attacks in the brief surprise and surprise results.
AMBUSH_BONUS = {"brief": 6, "surprise": 12}


def band(advantage: int, rules: Rules) -> str:
    """The name of the band of ``advantage`` under ``rules.band_edges`` (001.4)."""
    edges = rules.band_edges
    if advantage == 0:
        return "zero"
    if advantage > 0:
        return ("great_advantage" if advantage >= edges["great_advantage"] else
                "advantage" if advantage >= edges["advantage"] else "slight_advantage")
    return ("great_deficit" if advantage <= edges["great_deficit"] else
            "deficit" if advantage <= edges["deficit"] else "slight_deficit")


def needed(advantage: int, rules: Rules) -> int:
    """The 2d6 roll a fighter with ``advantage`` needs (at zero: the only roll, with 12)."""
    return int(rules.band_needed[band(advantage, rules)])


def scores(advantage: int, roll: int, rules: Rules) -> bool:
    """Whether ``roll`` on 2d6 is a damaging stroke for a fighter with ``advantage``.

    2 never scores, 12 always does, 11 does except at exactly zero, and at zero only the
    zero band's roll (7) and 12 score (001.4).
    """
    if roll == 2:
        return False
    if roll == 12:
        return True
    if advantage == 0:
        return roll == rules.band_needed["zero"]
    return roll >= needed(advantage, rules)


def ambush_result(total: int, rules: Rules) -> str:
    """Name of the ambush result for ``1d6 + skill`` (001.3)."""
    return str(rules.ambush_table[str(total)])


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
                            "diverts only if the foe declared an attack), by_band (with "
                            "divert_by_band)", policy=True)
    divert_health: int = param(3, tag="DEFAULT", low=0, high=999, policy=True,
                               search=(1, 2, 3, 4, 5, 6),
                               doc="below_health policy: divert when health is at most this")
    divert_p: float = param(0.5, tag="DEFAULT", low=0.0, high=1.0, policy=True,
                            search=(0.25, 0.5, 0.75),
                            doc="random policy: probability of diverting each exchange")
    divert_by_band: Table = param(
        NO_DIVERSION, tag="DEFAULT", low=0.0, high=1.0, policy=True,
        search=(NO_DIVERSION, _band_mix(deficit=0.5), _band_mix(deficit=1.0),
                _band_mix(deficit=0.5, zero=0.5, advantage=0.5)),
        doc="by_band policy: probability of diverting in each band of the exchange's "
            "advantage (001.5, the digest's mixed strategy per band)")
    es11: str = param("damage", tag="DEFAULT", choices=("damage", "surrender"), policy=True,
                      doc="ES 11 'break your foe's weapon and may calculate damage if you "
                          "wish or accept his surrender': the roller's choice -- the damage "
                          "(foe disarmed) or his surrender (the foe is out)")
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
    ef6_no_shield: str = param("nothing", tag="DEFAULT", choices=("nothing", "weapon"),
                               doc="EF 6 shield result (d6 1-3) with no shield: nothing, or "
                                   "the weapon shatters instead")
    ef8: str = param("foe_takes_it", tag="DEFAULT", choices=("foe_takes_it", "lost"),
                     doc="EF 8 'stripped of your weapon [they have it]': the roller is unarmed "
                         "and the foe has the weapon, wielding it when it gives him a higher "
                         "combat score; or the weapon is simply lost")
    ef9: str = param("lose_next_attack", tag="DEFAULT", choices=("lose_next_attack", "nothing"),
                     doc="EF 9 dropped weapon: the next round is a forced diversion")
    declarations: str = param(
        "deficit_first", tag="TEXT", choices=("deficit_first", "secret"),
        doc="diversion declarations (001.5): the deficit side declares first, in public, and "
            "the advantaged answers (at zero both write theirs down); or always written "
            "down. The reactive policy and exact best play read it")
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
    shield_stops_12: bool = param(
        False, tag="DEFAULT",
        doc="a shield may deflect a 12 read without the Extraordinary Success table (tables "
            "off, the chain cap, extra attack rolls); 001.9: a 12 cannot be deflected. A 12 "
            "through a diversion is an ordinary stroke either way (001.5)")
    level_abilities: Table = param(
        LEVEL_ABILITIES, tag="DEFAULT",
        doc="ability governing each weapon type (index 0) and added at skill levels 1-5; "
            "one-handed 0-3 are TEXT (001.2, 001.9)")
    band_edges: Table = param(
        BAND_EDGES, tag="TEXT", low=-99, high=99,
        doc="where the advantage bands begin: 'advantage' (plus 13-24) and "
            "'great_advantage' (plus 25 and higher), 'deficit' (minus 13-24) and "
            "'great_deficit' (minus 25 and lower); the slight bands fill the rest but zero "
            "(001.4)")
    band_needed: Table = param(
        BAND_NEEDED, tag="TEXT", low=4, high=11,
        doc="the 2d6 roll each band needs (that roll or higher; at zero only that roll); "
            "2 never scores, 12 always does (001.4)")
    ef_table: Table = param(
        EF_TABLE, tag="TEXT", choices=EF_EFFECTS,
        doc="Extraordinary Failure table: the effect of each fresh 2d6 roll (001.6)")
    es_table: Table = param(
        ES_TABLE, tag="TEXT", choices=ES_EFFECTS,
        doc="Extraordinary Success table: the effect of each fresh 2d6 roll (001.6)")
    ambush_table: Table = param(
        AMBUSH_TABLE, tag="TEXT", choices=AMBUSH_RESULTS,
        doc="the opening's result for each total of 1d6 + ambush skill (001.3)")
    ambush_bonus: Table = param(
        AMBUSH_BONUS, tag="TEXT", low=0, high=99,
        doc="combat-score bonus of the ambushers' hand-to-hand attacks in the brief "
            "surprise and surprise results (001.3)")
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
    max_rounds: int = param(200, tag="DEFAULT", low=1, high=10_000,
                            doc="rounds after which the fight is a draw (001.9)")
    # crt has no content rows to hang a modifier on (three weapon types; tables of one
    # number each): a designer's mechanics are rows of their own (balance.rulesets.house)
    house_rules: Table = house_rules_param("crt", "score, damage", "wound")

    def __post_init__(self) -> None:
        check_fields(self)
        if self.house_rules:  # compiled now: a mistake is refused before any fight runs
            read(vocabulary(), self.house_rules)
        for kind, abilities in self.level_abilities.items():
            if kind not in WEAPON_TYPES or len(abilities) != 6 or any(
                    a not in ABILITIES for a in abilities):
                raise SpecError("crt rules field 'level_abilities' must map each of "
                                f"{', '.join(WEAPON_TYPES)} to 6 abilities from "
                                f"{', '.join(ABILITIES)}; got {kind}: {abilities!r}")
        edges = self.band_edges
        if not (1 <= edges["advantage"] <= edges["great_advantage"]
                and edges["great_deficit"] <= edges["deficit"] <= -1):
            raise SpecError("crt rules field 'band_edges' must keep the bands in order: "
                            "1 <= advantage <= great_advantage and great_deficit <= deficit "
                            f"<= -1; got {dict(edges)}")

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


# --- the rules language: what house rules may read and change (issue 21) -----------
MAX_SCORE = 30 + 5 * 30 + 1000 + 100
"""The highest combat score the combatant fields allow (abilities 0..30, combats 0..1000,
bonus -100..100): the range the checker bounds amounts with."""

FIGHTER_NAMES: dict[str, Name] = {
    "weapon": Name(str, choices=WEAPON_TYPES, tag="TEXT",
                   doc="weapon type in hand now (EF 8, ES 6, 10, 11 can leave him unarmed)"),
    "shield": Name(str, choices=SHIELDS, tag="DEFAULT",
                   doc="shield carried now (EF 6 can shatter it)"),
    "armour": Name(str, choices=ARMOURS, tag="DEFAULT", doc="armour worn"),
    "skill": Name(int, range=(0, 5), tag="TEXT",
                  doc="skill level with his own weapon type (0 unskilled ... 5 master)"),
    "combats": Name(int, range=(0, 1000), tag="TEXT", doc="combats survived"),
    **{ability: Name(int, range=(0, 30), tag="TEXT", doc=f"{ability} (ability)")
       for ability in ABILITIES},
    "score": Name(int, range=(-100, MAX_SCORE), tag="TEXT",
                  doc="combat score with the weapon in hand, before modifiers (001.2)"),
    "health": Name(int, range=(1, 999), tag="DEFAULT", doc="health now"),
    "max_health": Name(int, range=(1, 999), tag="DEFAULT", doc="health at the start"),
    "wounds": Name(int, range=(0, 998), tag="DEFAULT",
                   doc="damage taken so far (max_health - health)"),
    "leader": Name(bool, tag="DEFAULT", doc="a leader or champion (ES 12)"),
}
SITUATION_NAMES: dict[str, Name] = {
    "round": Name(int, range=(0, 10_000), tag="DEFAULT",
                  doc="the round, from 1; 0 in an ambush's opening exchange (001.3)"),
    "foes_engaged": Name(int, range=(1, 3), tag="TEXT",
                         doc="foes the fighter faces this round (001.7; 1 in a duel)"),
}
TARGETS = {"score": "the combat score the Combat Results Table compares (001.4)",
           "damage": "each stroke's damage, after the weapon modifier, before the least "
                     "damage and armour (001.9)"}

OUTCOMES = {"wound": "the fighter's stroke of the exchange wounded its target this round "
                    "(damage after shield and armour of 1 or more; not the strokes the "
                    "Extraordinary tables or a total surprise make); self is the striker, "
                    "target the one struck; effects take hold at the round's end"}
CONDITIONS = {"defend_only": "may only defend (a forced diversion, as EF 5's 'may only "
                             "defend next round') for the rounds given after this one"}
STATES = {"shield": Name(str, choices=SHIELDS, tag="TEXT",
                         doc="the shield carried ('none': shattered or lost, as EF 6)")}

STATIC_NAMES = frozenset({"armour", "skill", "combats", *ABILITIES, "max_health", "leader"})
"""Fighter fields no round changes."""
TABLE_STATE = frozenset({"weapon", "shield", "score"})
"""Fighter names only the Extraordinary tables change (fixed in the plain duel)."""
STATE_NAMES = frozenset({"health", "wounds"})
"""Fighter names the plain duel's Markov chain holds."""


@functools.cache
def vocabulary() -> Vocabulary:
    """crt's vocabulary (built once)."""
    names = Names.for_fighters(FIGHTER_NAMES) | Names(SITUATION_NAMES)
    return Vocabulary(names, targets=TARGETS, outcomes=OUTCOMES, conditions=CONDITIONS,
                      states=STATES)
