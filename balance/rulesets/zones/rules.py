"""Seed 002 (abstract zones for a 3d6-ladder skirmish core) as data: tables, fields, helpers.

The seed changes only position tracking; the core it rests on (ladder, MAP, damage, armour,
HP, Defend, Steady, death saves) is missing, so the digest's [DEFAULT] core (002.8) is used,
every number a named parameter.  Every table cites the seed text or the digest entry
(``../shared/rules/002-zones.md``) it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from ... import dice
from ...errors import SpecError
from ...fields import Table, check_fields, param
from .maps import MAPS, CompiledMap, map_table
from .weapons import ROW_COLUMNS, WeaponRow, read_rows

if TYPE_CHECKING:
    from ...language import Vocabulary

MELEE_WEAPONS: tuple[str, ...] = ("unarmed", "light", "one_handed", "two_handed")
RANGED_WEAPONS: tuple[str, ...] = ("none", "short_bow", "long_bow", "crossbow", "thrown",
                                   "spell", "blast", "breath")
POLICIES: tuple[str, ...] = ("advance", "hold", "skirmish", "guard")
TARGETS: tuple[str, ...] = ("nearest", "weakest", "priority")
SPARES: tuple[str, ...] = ("defend", "pass")
CATEGORIES: tuple[str, ...] = ("Failure", "Partial", "Success", "Critical")

# 002.8 Damage [DEFAULT]: weapon damage; "spell" is the caster's close-range bolt of the
# worked example (002.6 step 6), given a one-handed weapon's damage.  002.1's area effects
# ("a blast, a breath: everyone in one zone") as ranged weapons that hit a whole zone
# [DEFAULT]: a thrown blast (a fire pot, a bomb) and a Large creature's breath.
WEAPON_DAMAGE = {"unarmed": 1, "light": 3, "one_handed": 4, "two_handed": 6, "short_bow": 3,
                 "long_bow": 4, "crossbow": 5, "thrown": 3, "spell": 4, "blast": 3,
                 "breath": 4}

# 002.8 Range bands [DEFAULT]: short = thrown / short bow, medium = crossbow, long = long bow.
WEAPON_RANGE = {"short_bow": "short", "long_bow": "long", "crossbow": "medium",
                "thrown": "short", "spell": "short", "blast": "short", "breath": "short"}
RANGE_STEPS = {"short": 1, "medium": 2, "long": 3}

# 002.8 Initial gap [DEFAULT] long; 002.7.1 gap in {long=3, medium=2, short=1}; 0 = contact.
GAPS = {"contact": 0, "short": 1, "medium": 2, "long": 3}


@dataclass(frozen=True, kw_only=True)
class Combatant:
    """One combatant of seed 002: the core's attributes (002.8) and a behaviour policy."""

    _owner: ClassVar[str] = "zones combatant"

    name: str = param("fighter", tag="TEXT", doc="display name in logs and tables")
    might: int = param(1, tag="DEFAULT", low=0, high=4,
                       doc="melee attack (and damage if might_to_damage) (002.8 attributes)")
    agility: int = param(1, tag="DEFAULT", low=0, high=4, doc="ranged attack (002.8)")
    defence: int = param(1, tag="DEFAULT", low=0, high=4,
                         doc="subtracted from attacks against it (002.8; +1 with a shield)")
    shield: bool = param(False, tag="DEFAULT", doc="carries a shield: +shield_defence (002.8)")
    speed: int = param(2, tag="DEFAULT", low=1, high=3,
                       doc="order within a side, pursuit, shift rules (002.3, 002.7.3)")
    armour: int = param(1, tag="DEFAULT", low=0, high=3, doc="damage soaked (002.8)")
    hp: int | None = param(None, tag="DEFAULT", low=1, high=60,
                           doc="hit points; none = the rules' hp (x large_hp_factor if large)")
    large: bool = param(False, tag="TEXT",
                        doc="Large (ogre, troll): up to 4 may ring it (002.4), more HP (002.8)")
    weapon: str = param("one_handed", tag="DEFAULT",
                        doc="melee weapon: " + ", ".join(MELEE_WEAPONS) + " (002.8 "
                            "weapon_damage) or a melee row of rules 'weapons'")
    ranged: str = param("none", tag="DEFAULT",
                        doc="ranged weapon: none, " + ", ".join(RANGED_WEAPONS[1:])
                            + " (002.1, 002.8: its band sets its reach) or a ranged row of "
                              "rules 'weapons'")
    slowed: bool = param(False, tag="TEXT",
                         doc="Slowed: 4 Moves a band, 2 a shift (002.2), all fight long")
    entangled: bool = param(False, tag="TEXT",
                            doc="starts Entangled: no movement until it passes its save (002.2)")
    zone: str = param("", tag="TEXT",
                      doc="starting zone; empty = the side's front zone (002.1)")
    gap: int | None = param(None, tag="AMBIG", low=0, high=3,
                            doc="starting bands out on its side's open ground; none = the "
                                "rules' initial_gap for the approaching side, else 0 (002.7.1)")
    policy: str = param("advance", tag="DEFAULT", choices=POLICIES,
                        doc="advance and strike | hold ground | skirmish: shoot and keep "
                            "distance | guard an ally", policy=True)
    target: str = param("nearest", tag="DEFAULT", choices=TARGETS,
                        doc="target choice: nearest (fewest steps), weakest (lowest HP), "
                            "priority (highest foe priority), ties to the nearer, then order", policy=True)
    priority: int = param(0, tag="DEFAULT", low=0, high=9,
                          doc="how much foes with target=priority want this one (002.6: both "
                              "raiders want Sela)")
    guard: str = param("", tag="DEFAULT",
                       doc="guard policy: name of the ally to protect (go to its zone when a "
                           "foe is there and none is in yours)")
    max_attacks: int = param(2, tag="DEFAULT", low=1, high=3,
                             doc="attacks per activation at most; 3 takes the third at MAP -4 "
                                 "(002.9 q1)", policy=True, search=(1, 2, 3))
    steady: int = param(0, tag="DEFAULT", low=0, high=2,
                        doc="Steady actions before the first attack, if one action is left "
                            "to attack", policy=True, search=(0, 1, 2))
    spare: str = param("defend", tag="DEFAULT", choices=SPARES,
                       doc="what an action with nothing better does: Defend (hold ground) "
                           "or pass", policy=True)
    defends: int = param(6, tag="DEFAULT", low=1, high=6,
                         doc="most Defend actions an activation when spare is Defend; later "
                             "spare actions pass (002.6: 'each spent an action' on Defend)", policy=True, search=(1, 2, 3, 6))
    leave_engaged: bool = param(True, tag="DEFAULT",
                                doc="advance: leave a zone where it may strike a foe for a "
                                    "better target elsewhere; false: fight where engaged "
                                    "(002.6: the second raider is left trading at the gate)", policy=True)
    frontage_full: str = param("shoot", tag="DEFAULT", choices=("shoot", "switch", "wait"),
                               doc="advance, with foes here but none it may strike (the "
                                   "frontage is full): strike from range (a ranged weapon), "
                                   "turn on a foe elsewhere, or wait for an opening (002.4)",
                               policy=True)
    advance_fire: bool = param(False, tag="DEFAULT",
                               doc="advance: spend the actions that cannot finish its next "
                                   "step this activation shooting a foe in reach, rather "
                                   "than banking a Move (002.2, 002.6)", policy=True)
    disengage: bool = param(True, tag="DEFAULT",
                            doc="spend a Maneuver to Disengage before leaving a zone a foe "
                                "holds (002.3); false: leave and take the free Strikes", policy=True)
    keep_distance: int = param(0, tag="DEFAULT", low=0, high=3,
                               doc="skirmish: fall back while a foe is within this many "
                                   "steps (0 = only break away when engaged)", policy=True, search=(0, 1, 2))
    long_shots: bool = param(True, tag="DEFAULT",
                             doc="shoot at one band past reach (-1) rather than close in", policy=True)
    area_allies: str = param("avoid", tag="DEFAULT", choices=("avoid", "accept"),
                             doc="with an area weapon: never aim at a zone holding an ally "
                                 "(or itself), or accept hitting them", policy=True)
    melee_first: bool = param(True, tag="DEFAULT",
                              doc="with a foe in its zone, Strike it rather than Shoot (a "
                                  "caster's close-range spell: false)", policy=True)

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class Rules:
    """The rule parameters of seed 002 and its [DEFAULT] core, each with its provenance."""

    _owner: ClassVar[str] = "zones rules"

    battlefield: Table = param(map_table("field"), tag="TEXT",
                               doc="the zone map: a preset (" + ", ".join(MAPS) + ") or a "
                                   "[battlefield] table in a scenario file (002.1)")
    initial_gap: str = param("long", tag="DEFAULT", choices=tuple(GAPS),
                             doc="bands the approaching side starts out (002.8 initial_gap)")
    approach_side: str = param("b", tag="DEFAULT", choices=("a", "b"),
                               doc="the side that starts on its open ground at initial_gap; "
                                   "the other stands in its front zone (002.7.1)")
    actions_per_activation: int = param(3, tag="TEXT", low=1, high=6,
                                        doc="actions an activation (002 intro, 002.2)")
    activation: str = param("alternate", tag="DEFAULT",
                            choices=("alternate", "initiative_speed", "side_all"),
                            doc="order: sides alternate (within a side higher Speed first) | "
                                "all by Speed | one side then the other; fixed at the start, "
                                "a Down combatant's turn is skipped (002.8)")
    first_side: str = param("random", tag="DEFAULT", choices=("random", "a", "b"),
                            doc="who acts first, drawn once a fight (002.8: 'ambusher first')")
    ladder: tuple[int, ...] = param((9, 12, 17), tag="DEFAULT", low=-20, high=40,
                                    doc="lowest total of Partial, Success, Critical; 13 must be "
                                        "a Success (002.5, 002.8)")
    map: tuple[int, ...] = param((0, -2, -4), tag="DEFAULT", low=-20, high=0,
                                 doc="Multiple Attack Penalty of the 1st, 2nd, 3rd attack in an "
                                     "activation; only -2 is TEXT (002.5, 002.8)")
    weapon_damage: Table = param(WEAPON_DAMAGE, tag="DEFAULT", low=0, high=20,
                                 doc="damage by weapon (002.8)")
    weapon_range: Table = param(WEAPON_RANGE, tag="DEFAULT",
                                choices=tuple(RANGE_STEPS),
                                doc="range band of each ranged weapon (002.8)")
    range_steps: Table = param(RANGE_STEPS, tag="DEFAULT", low=0, high=6,
                               doc="steps a band reaches; one past = long shot, two past = out "
                                   "of reach (002.1, 002.8)")
    area_weapons: tuple[str, ...] = param(("blast", "breath"), tag="DEFAULT",
                                          choices=RANGED_WEAPONS[1:],
                                          doc="ranged weapons that hit everyone in the "
                                              "target's zone, one roll each (002.1 'an area "
                                              "effect (a blast, a breath): everyone in one "
                                              "zone')")
    area_friendly_fire: bool = param(True, tag="TEXT",
                                     doc="an area attack hits allies in the zone too, the "
                                         "attacker itself if there (002.1 'everyone')")
    reloading: tuple[str, ...] = param(("crossbow",), tag="DEFAULT",
                                       choices=RANGED_WEAPONS[1:],
                                       doc="ranged weapons that need a Reload action after "
                                           "each shot (002.8)")
    armour_mode: str = param("subtract", tag="DEFAULT", choices=("subtract", "success_bypasses"),
                             doc="subtract: Success dmg-Armour, Partial half that, Critical "
                                 "full; success_bypasses: Success full, Partial dmg-Armour "
                                 "(002.8; the seed's 'full damage past armor')")
    critical_bonus: int = param(0, tag="DEFAULT", low=0, high=20,
                                doc="extra damage on a Critical (002.8 gives none)")
    might_to_damage: bool = param(False, tag="DEFAULT",
                                  doc="add Might to melee damage (002.8 'optionally')")
    hp: int = param(12, tag="DEFAULT", low=1, high=60, doc="hit points for everyone (002.8)")
    large_hp_factor: int = param(2, tag="DEFAULT", low=1, high=4,
                                 doc="HP multiplier of a Large combatant (002.8)")
    shield_defence: int = param(1, tag="DEFAULT", low=0, high=4,
                                doc="Defence a shield adds (002.8)")
    defend_defence_bonus: int = param(1, tag="DEFAULT", low=0, high=4,
                                      doc="Defend also gives this Defence vs melee until the "
                                          "defender's next activation, not stacking (002.8)")
    steady_bonus: int = param(1, tag="DEFAULT", low=0, high=4,
                              doc="Steady: bonus to the next attack this activation (002.8)")
    steady_max: int = param(2, tag="DEFAULT", low=0, high=8,
                            doc="most Steady bonus one attack can carry (002.8)")
    charge_bonus: int = param(1, tag="TEXT", low=-4, high=4,
                              doc="charging into melee (002.5)")
    outnumber_bonus: int = param(1, tag="TEXT", low=-4, high=4,
                                 doc="outnumbering / flanking (002.5)")
    higher_ground_bonus: int = param(1, tag="TEXT", low=-4, high=4,
                                     doc="attacking from a commanding zone (002.5)")
    cover_penalty: int = param(-1, tag="TEXT", low=-4, high=4,
                               doc="shooting at a target in a cover zone (002.5)")
    long_shot_penalty: int = param(-1, tag="TEXT", low=-4, high=4,
                                   doc="a shot one band past the weapon's reach (002.1)")
    moved_target_penalty: int = param(-1, tag="TEXT", low=-4, high=4,
                                      doc="shooting a target that spent a Move this "
                                          "activation, until its next (002.5, abstract only)")
    penalty_stacking: str = param("stack", tag="AMBIG", choices=("stack", "worst"),
                                  doc="moved-target, cover and long-shot penalties add up, or "
                                      "only the worst applies (002.7.8)")
    charge_scope: str = param("first_strike", tag="AMBIG", choices=("first_strike", "all_strikes"),
                              doc="charge +1 on the first Strike after closing the last band, "
                                  "or on every Strike that activation (002.7.5)")
    charge_on_shift: bool = param(False, tag="DEFAULT",
                                  doc="an in-fray shift into a foe's zone also counts as a "
                                      "charge (002.5 reads 'close the last band')")
    outnumber_scope: str = param("zone", tag="AMBIG", choices=("zone", "off"),
                                 doc="outnumbering counted among all combatants in the zone, "
                                     "attacker included, at the moment of attack (002.7.6)")
    higher_ground: str = param("split", tag="AMBIG", choices=("split", "any_from_commanding"),
                               doc="split: +1 to shots from a commanding zone into others, and "
                                   "to melee by those there since round start vs foes who "
                                   "entered it this round; or +1 to every attack made from one "
                                   "(002.7.7)")
    cover_same_zone: bool = param(False, tag="DEFAULT",
                                  doc="cover also protects against shots from inside the zone "
                                      "(002.1: a melee attacker who shares the zone ignores it)")
    band_cost: int = param(2, tag="TEXT", low=1, high=6,
                           doc="Move actions to cross one band (002.2)")
    shift_cost: int = param(1, tag="TEXT", low=1, high=6,
                            doc="Move actions for an in-fray shift to an adjacent zone (002.2)")
    slowed_factor: int = param(2, tag="TEXT", low=1, high=4,
                               doc="Slowed multiplies band and shift costs (002.2: 4 and 2)")
    bank_limit: int = param(1, tag="TEXT", low=0, high=5,
                            doc="leftover Moves that bank toward the next step (002.2: a "
                                "single one)")
    shift_speed_rule: str = param("flat", tag="AMBIG",
                                  choices=("flat", "speed2_first_shift_free",
                                           "speed1_shift_costs_2"),
                                  doc="how Speed prices in-fray shifts (002.7.3)")
    hazard_cost: int = param(1, tag="TEXT", low=0, high=3,
                             doc="Move actions lost on the next activation after entering a "
                                 "hazard (caltrops) zone (002.2)")
    hazard_is_move: bool = param(True, tag="DEFAULT",
                                 doc="picking clear of caltrops counts as spending a Move "
                                     "(for the moved-target penalty)")
    entangle_save: int = param(12, tag="DEFAULT", low=3, high=30,
                               doc="Entangled save: 1 action, 3d6 + Might >= this (002.8)")
    pursuit: str = param("speed", tag="TEXT", choices=("speed", "free"),
                         doc="speed: a foe who broke away from an engagement cannot be closed "
                             "on, until its next activation, by a slower foe (002.3); free: "
                             "anyone may follow")
    hold_strikes: str = param("per_holder", tag="AMBIG", choices=("per_holder", "per_leave"),
                              doc="'no foe struck twice': each holder strikes each leaver at "
                                  "most once, or a leaver draws one free Strike in all (002.7.4)")
    free_strike_map: bool = param(False, tag="AMBIG",
                                  doc="a holder's later free Strikes take the MAP (002.7.9)")
    free_strike_frontage: bool = param(False, tag="AMBIG",
                                       doc="free Strikes count toward and obey frontage (002.7.9)")
    frontage: int = param(2, tag="TEXT", low=1, high=12,
                          doc="melee attackers that may press one target in a round (002.4)")
    frontage_large: int = param(4, tag="TEXT", low=1, high=12,
                                doc="the same against a Large target (002.4)")
    chokepoint_scope: str = param("per_side", tag="AMBIG", choices=("per_side", "total"),
                                  doc="a chokepoint's cap counts fighters of each side, or of "
                                      "both together, per round (002.4)")
    death_saves: bool = param(False, tag="DEFAULT",
                              doc="Down combatants roll death saves (only the casualty count "
                                  "changes: a Down combatant is out of the fight) (002.8)")
    death_save_target: int = param(10, tag="DEFAULT", low=3, high=18,
                                   doc="death save: 3d6 >= this succeeds (002.8)")
    death_save_count: int = param(3, tag="DEFAULT", low=1, high=9,
                                  doc="successes to stabilise / failures to die (002.8)")
    stress: bool = param(False, tag="DEFAULT", choices=(False,),
                         doc="stress is not modelled (002.8)")
    max_rounds: int = param(50, tag="DEFAULT", low=1, high=10_000,
                            doc="rounds after which the fight is a draw")
    weapons: Table = param({}, tag="DEFAULT", open_keys=True,
                           doc="weapon rows by name: a built-in weapon's row gives it "
                               "ammunition, modifiers and effects; a new name is a weapon "
                               "'like' a built-in one, with its own damage and range if given "
                               "(columns " + ", ".join(ROW_COLUMNS) + "; docs/zones.md)")

    def __post_init__(self) -> None:
        # A Table is checked too: one built by hand may name a front that is no zone.
        object.__setattr__(self, "battlefield", map_table(
            self.battlefield if not isinstance(self.battlefield, Table)
            else dict(self.battlefield)))
        check_fields(self)
        if len(self.ladder) != 3 or not self.ladder[0] <= self.ladder[1] < self.ladder[2]:
            raise SpecError("zones rules field 'ladder' must be 3 ascending totals (Partial, "
                            f"Success, Critical), got {list(self.ladder)!r}")
        if not self.ladder[1] <= 13 < self.ladder[2]:
            raise SpecError("zones rules field 'ladder' must make 13 a Success (002.5: '13 "
                            f"lands a clean Success'), got {list(self.ladder)!r}")
        if self.stress:
            raise SpecError("zones rules field 'stress' must be false: stress is not modelled "
                            "(002.8)")
        if not 1 <= len(self.map) <= 6:
            raise SpecError("zones rules field 'map' lists the penalty of the 1st, 2nd, ... "
                            f"attack (1 to 6 values), got {list(self.map)!r}")
        for weapon in RANGED_WEAPONS[1:]:
            band = self.weapon_range[weapon]
            if band not in self.range_steps:
                raise SpecError(f"zones rules field 'weapon_range' names band {band!r}; bands: "
                                + ", ".join(self.range_steps))
        # the rows as objects, once (not a field: equality and hashing see the table)
        object.__setattr__(self, "_weapon_rows", read_rows(self))

    # small derived readings -------------------------------------------------------------
    def attack_penalty(self, index: int) -> int:
        """MAP of the attack with 0-based ``index`` in an activation (last value repeats)."""
        return self.map[min(index, len(self.map) - 1)]

    def weapon_row(self, name: str) -> WeaponRow:
        """The weapon ``name`` under these rules: built-in columns and its row."""
        try:
            return self._weapon_rows[name]  # type: ignore[attr-defined]
        except KeyError:
            raise SpecError(f"unknown weapon {name!r}; weapons: "
                            + ", ".join(self._weapon_rows)) from None  # type: ignore[attr-defined]

    def weapon_names(self, kind: str) -> tuple[str, ...]:
        """The melee or ranged weapons these rules know, built-in first."""
        rows = self._weapon_rows.values()  # type: ignore[attr-defined]
        return tuple(r.name for r in rows if r.kind == kind)

    def reach(self, ranged: str) -> int:
        """Steps the ranged weapon reaches at no penalty (002.8 range_steps)."""
        return int(self.range_steps[str(self.weapon_row(ranged).band)])

    def reloads(self, ranged: str) -> bool:
        """Whether the ranged weapon needs a Reload after each shot (its built-in's)."""
        return ranged != "none" and self.weapon_row(ranged).like in self.reloading

    def is_area(self, ranged: str) -> bool:
        """Whether the ranged weapon hits a whole zone (its built-in's)."""
        return ranged != "none" and self.weapon_row(ranged).like in self.area_weapons

    def ranged_damage(self, ranged: str) -> int:
        return 0 if ranged == "none" else self.weapon_row(ranged).damage

    def vocabulary(self) -> Vocabulary:
        """What rows under these rules may name (the weapon names included)."""
        from .weapons import vocabulary
        return vocabulary(self.weapon_names("melee"), self.weapon_names("ranged"))

    @property
    def has_rows(self) -> bool:
        """Whether any weapon carries modifiers or effects."""
        return any(r.has_rows for r in self._weapon_rows.values())  # type: ignore[attr-defined]


def category(total: int, ladder: tuple[int, ...]) -> int:
    """Ladder result of a total: 0 Failure, 1 Partial, 2 Success, 3 Critical (002.8)."""
    return sum(total >= t for t in ladder)


def damage(cat: int, weapon_damage: int, armour: int, rules: Rules) -> int:
    """Damage of a result category with a weapon against armour (002.8 armour_mode)."""
    if cat == 0:
        return 0
    if cat == 3:
        return weapon_damage + rules.critical_bonus
    if rules.armour_mode == "subtract":
        past = max(0, weapon_damage - armour)
        return past if cat == 2 else past // 2
    return weapon_damage if cat == 2 else max(0, weapon_damage - armour)


def starting_hp(c: Combatant, rules: Rules) -> int:
    if c.hp is not None:
        return c.hp
    return rules.hp * (rules.large_hp_factor if c.large else 1)


def total_defence(c: Combatant, rules: Rules) -> int:
    return c.defence + (rules.shield_defence if c.shield else 0)


def melee_damage(c: Combatant, rules: Rules) -> int:
    return rules.weapon_row(c.weapon).damage + (c.might if rules.might_to_damage else 0)


@cache
def ladder_pmf(modifier: int, ladder: tuple[int, ...]) -> tuple[Fraction, ...]:
    """Exact P(Failure, Partial, Success, Critical) of 3d6 + ``modifier`` (002.8 table)."""
    out = [Fraction(0)] * 4
    for roll, p in dice.pmf(3, 6).items():
        out[category(roll + modifier, ladder)] += p
    return tuple(out)


def death_probability(rules: Rules) -> Fraction:
    """Chance a Down combatant dies: ``death_save_count`` failures before as many successes."""
    p = dice.pmf(3, 6).at_least(rules.death_save_target)
    k = rules.death_save_count
    from math import comb
    # dies on failure number k after j < k successes
    return sum((comb(k - 1 + j, j) * p**j * (1 - p) ** k for j in range(k)), Fraction(0))


def start_location(c: Combatant, side: int, rules: Rules, cmap: CompiledMap) -> int:
    """Where ``c`` of side ``side`` (0 = A, 1 = B) starts (002.7.1 reading).

    An explicit ``zone`` puts it in the fray there; otherwise the approaching side starts
    ``initial_gap`` bands out on its own open ground and the other side in its front zone.
    ``gap`` overrides the number of bands.
    """
    if c.gap is not None:
        gap = c.gap
    elif c.zone:
        gap = 0
    else:
        gap = GAPS[rules.initial_gap] if ("ab"[side] == rules.approach_side) else 0
    if gap > 0:
        return cmap.band_location(side, gap)
    if c.zone:
        return cmap.zone_index(c.zone)
    return cmap.band_location(side, 0)


def activation_order(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...],
                     first: int) -> tuple[int, ...]:
    """Global indices (A first, then B) in activation order when side ``first`` opens (002.8).

    Within a side higher Speed goes first, ties in listing order.  The order is fixed for
    the fight; a Down combatant's turn is skipped.
    """
    n_a = len(side_a)
    members = [sorted(range(n_a), key=lambda i: -side_a[i].speed),
               sorted(range(n_a, n_a + len(side_b)), key=lambda i: -side_b[i - n_a].speed)]
    lead, other = members[first], members[1 - first]
    if rules.activation == "side_all":
        return tuple(lead + other)
    if rules.activation == "alternate":
        out: list[int] = []
        for k in range(max(len(lead), len(other))):
            out += lead[k:k + 1] + other[k:k + 1]
        return tuple(out)
    everyone = list(side_a) + list(side_b)
    rank = {i: (k, 0) for k, i in enumerate(lead)} | {i: (k, 1) for k, i in enumerate(other)}
    # initiative_speed: everyone by Speed; ties to the first side, then listing order
    return tuple(sorted(lead + other, key=lambda i: (-everyone[i].speed, rank[i][1], i)))
