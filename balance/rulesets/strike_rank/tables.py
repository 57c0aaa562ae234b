"""Seed 000 (*Avatar*, Abstract Combat System) as data: the literal tables.

Every table cites the seed section or the digest entry (``../shared/rules/000-strike-rank.md``)
it comes from.  Tags: TEXT (the seed says it), SRC (the identified source game, recovered
by the digest), DEFAULT (invented by the digest to fill a gap).  Functions that read these
tables live in :mod:`.rules`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

# --- Table 16: Number of Actions from Agility [TEXT] (000.2.1) --------------------------------
# (highest Agility of the band, Actions); above 24: +1 per (started) block of 4.
ACTIONS_TABLE: tuple[tuple[int, int], ...] = (
    (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (10, 6), (15, 7), (18, 8), (20, 9), (24, 10))

# --- Table 17: Initiative Index from Dexterity [TEXT] (000.2.2) -------------------------------
# (highest Dexterity of the band, dice, flat bonus); above 24: +1 flat per block of 4.
INDEX_TABLE: tuple[tuple[int, int, int], ...] = (
    (5, 1, 0), (13, 2, 0), (17, 3, 0), (20, 4, 0), (24, 4, 1))

TABLE_TOP = 24
"""Both tables grow by one per block of 4 above 24 ("each additional block of 4 above 24")."""

# --- Index Resolution [TEXT] (5.3, 000.2.3): d6 face -> bonus Actions --------------------------
# A d6 face counts 0 on 1-4, +1 on a 5, +2 on a 6; only the dice that showed 5 or 6 stay in
# the initiative index for the next round.
INDEX_RESOLUTION: tuple[int, ...] = (0, 0, 0, 0, 0, 1, 2)  # indexed by face 1..6 (0 unused)

# --- Attack types [TEXT] (5.4, 000.4) ---------------------------------------------------------
ATTACK_TYPES: tuple[str, ...] = ("thrust", "swing", "blow")
OWN_DEFENCE_PENALTY: tuple[int, ...] = (0, -5, -10)
"""Penalty on the attacker's own parries and dodges in a round it thrusts / swings / blows."""
DEFENCE_STEP = -5
"""Cumulative penalty per earlier defensive move in the round (5.4)."""
SHIELDMAN_STEP = -2
"""The Shieldman's step instead (5.6 Shieldman)."""
OVERPOWER_BLOCK = 20
"""Margin per attacker overpower block; also the riposte and dodge-behind margin (5.5)."""
DISARM_MARGIN = 30
"""Parry margin that allows disarming the attacker instead of riposting (5.5)."""


# --- Weapons: Tables 18-20 [SRC] (000.8.1) and the digest's invented rows [DEFAULT] -----------
# Each weapon is a named row with named columns; the rule parameter ``weapons`` holds them
# (rules.py), so a designer can change a column or add a weapon by name.  "NA" (the
# source's own word) marks an impossible attack type, no Parry, or no length.

NA = None
WEAPON_COLUMNS: tuple[str, ...] = ("thrust", "swing", "blow", "parry", "speed", "strength",
                                   "size", "hands", "kind", "throwable", "specialist")
WEAPON_KINDS: tuple[str, ...] = ("axe", "blade", "club", "spear", "polearm", "unarmed",
                                 "improvised", "whip", "flail")
"""Kinds the style rules test (``kind=...`` and the named tests of :data:`WEAPON_TESTS`)."""
HANDS: tuple[str, ...] = ("1", "2", "1+")


@dataclass(frozen=True)
class Weapon:
    """One row of the weapon tables.

    ``thrust`` / ``swing`` / ``blow`` are damage modifiers added to the 2d6 wound roll, or
    ``None`` where the attack type is impossible ("NA"); ``parry`` is the Parry bonus or
    ``None`` (cannot parry with it); ``strength`` is the first Strength number (the minimum
    to wield, 000.8.1 note); ``size`` is the length in metres (``None``: "NA", worn on the
    hand); ``hands`` is "1", "2" or "1+".  ``kind`` groups rows for the style rules
    (:data:`WEAPON_KINDS`); ``throwable`` marks rows a Bladesman may throw (Table 32);
    ``specialist`` rows need the Specialist style; ``missile`` marks a missile or thrown
    row seen by the style rules (:meth:`Missile.as_weapon`).
    """

    name: str
    thrust: int | None
    swing: int | None
    blow: int | None
    parry: int | None
    speed: int
    strength: int
    size: float | None
    hands: str
    kind: str
    throwable: bool = False
    specialist: bool = False
    missile: bool = False

    def damage(self, attack_type: int) -> int | None:
        """Damage modifier of attack type 0 thrust, 1 swing, 2 blow (``None``: impossible)."""
        return (self.thrust, self.swing, self.blow)[attack_type]

    @property
    def two_handed(self) -> bool:
        return self.hands == "2"

    def row(self) -> dict[str, object]:
        """The row's columns, "NA" for ``None`` (as a TOML table)."""
        return {col: "NA" if getattr(self, col) is None else getattr(self, col)
                for col in WEAPON_COLUMNS}


def _w(name: str, thrust: int | None, swing: int | None, blow: int | None, parry: int | None,
       speed: int, strength: int, size: float | None, hands: str, kind: str,
       throwable: bool = False, specialist: bool = False) -> Weapon:
    return Weapon(name, thrust, swing, blow, parry, speed, strength, size, hands, kind,
                  throwable, specialist)


# Table 18 - Axes [SRC].  "throwable" marks rows the digest's Table 32 stand-in lets a
# Bladesman throw (Table 32 itself was not retrieved) [DEFAULT].
AXES: tuple[Weapon, ...] = (
    _w("cleaver", -2, 0, 1, -5, 0, 6, 0.3, "1", "axe"),
    _w("stone axe", -4, 0, 1, 5, 0, 6, 0.6, "1", "axe"),
    _w("hand axe", -2, 1, 2, 5, 0, 6, 0.8, "1", "axe", throwable=True),
    _w("war axe", -1, 1, 2, 5, 0, 8, 0.8, "1+", "axe"),
    _w("war pick", -4, 1, 3, 10, 0, 6, 1.0, "2", "axe"),
    _w("mattock", -4, 1, 2, 5, 1, 8, 1.2, "2", "axe"),
    _w("battle axe", 0, 2, 4, 10, 1, 10, 1.2, "2", "axe"),
    _w("great axe", NA, 3, 5, 10, 2, 14, 1.8, "2", "axe"),
)

# Table 19 - Blades [SRC].
BLADES: tuple[Weapon, ...] = (
    _w("claws", -2, -3, -3, -10, -2, 0, 0.05, "1", "blade"),
    _w("punch knife", -1, -4, -4, NA, -2, 0, 0.1, "1", "blade"),
    _w("knife", -1, -2, -2, -5, -2, 0, 0.2, "1", "blade", throwable=True),
    _w("sickle", -2, -1, -1, -5, -2, 2, 0.3, "1", "blade"),
    _w("long knife", -1, -1, -1, 0, -2, 2, 0.4, "1", "blade", throwable=True),
    _w("short sword", -1, 0, 1, 0, -1, 4, 0.6, "1", "blade"),
    _w("falchion", 0, 1, 1, 5, 0, 6, 0.7, "1", "blade"),
    _w("scimitar", -1, 1, 2, 5, 0, 6, 0.8, "1", "blade"),
    _w("rapier", 0, -3, -2, 5, -1, 4, 0.9, "1", "blade"),
    _w("long sword", 1, 0, 1, 5, 0, 8, 0.9, "1", "blade"),
    _w("broadsword", 0, 1, 2, 5, 0, 8, 0.9, "1", "blade"),
    _w("bastard sword", 0, 2, 3, 10, 0, 10, 1.0, "1+", "blade"),
    _w("claymore", 1, 2, 3, 10, 1, 12, 1.2, "2", "blade"),
    _w("great sword", 2, 3, 4, 10, 2, 16, 1.8, "2", "blade"),
)

# Table 20 - Clubs [SRC], only the first rows were retrievable.  The hammer's size and
# hands were truncated: 0.5 m and one-handed are [DEFAULT] guesses (they only matter for
# the Footpad, Archer and Legionnaire size limits).
CLUBS: tuple[Weapon, ...] = (
    _w("gauntlet", -4, -4, -4, -10, -2, 0, NA, "1", "club"),
    _w("spiked gauntlet", -2, -3, -3, -10, -2, 0, NA, "1", "club"),
    _w("tool hammer", -5, -2, -2, -5, -2, 0, 0.2, "1", "club"),
    _w("blackjack", NA, -5, -3, -5, 0, 2, 0.3, "1", "club"),
    _w("hammer", -2, -1, 0, 5, 0, 8, 0.5, "1", "club"),
)

# The digest's invented rows [DEFAULT] (000.8.1 notes, 000.10): a punch (Table 36's straight
# punch), a spear, the improvised weapon of 5.19 (a Cleaver with Parry -5), and rows the
# digest asks for but does not give, invented here on the same patterns: the other Table 36
# moves Brawling and Martial artist use (straight kick, butt, knee: no swing, no parry, a
# little harder than a punch, the kick slower), a polearm (halberd) for the Poleaxeman and a
# whip for the Specialist.
INVENTED_WEAPONS: tuple[Weapon, ...] = (
    _w("punch", -4, -4, -3, -10, -2, 0, 0.0, "1", "unarmed"),
    _w("straight kick", -3, NA, -2, NA, -1, 0, 0.0, "1", "unarmed"),
    _w("butt", -3, NA, -3, NA, -2, 0, 0.0, "1", "unarmed"),
    _w("knee", -3, NA, -2, NA, -2, 0, 0.0, "1", "unarmed"),
    _w("spear", 1, -1, 1, 5, 0, 6, 1.8, "1+", "spear", throwable=True),
    _w("improvised", -2, 0, 1, -5, 0, 6, 0.3, "1", "improvised"),
    _w("halberd", 1, 2, 3, 10, 1, 12, 2.0, "2", "polearm"),
    _w("whip", NA, -2, -1, NA, 0, 4, 3.0, "1", "whip", specialist=True),
)
INVENTED_WEAPON_NAMES = frozenset(w.name for w in INVENTED_WEAPONS)
"""Rows the digest invented [DEFAULT]: results that use them list them as readings."""

WEAPONS = MappingProxyType({w.name: w for w in (*AXES, *BLADES, *CLUBS, *INVENTED_WEAPONS)})


def weapon_rows() -> dict[str, dict[str, object]]:
    """Every weapon row as the ``weapons`` rule parameter's default: name -> columns."""
    return {name: w.row() for name, w in WEAPONS.items()}


# --- Missile and thrown weapons [DEFAULT] (000.10: Table 32 and the missile tables) ---------
# The seed's missile tables and Table 32 (throwables) were not retrieved; 000.10 asks for
# invented rows.  These are invented on the melee tables' scale (a damage modifier added to
# the 2d6 wound roll, a Speed, a minimum Strength, a size in metres and the hands), plus
# ``reload``: range actions a shot needs before the next (a crossbow is spanned).  The rule
# parameter ``missile_weapons`` holds them as named rows.  ``kind`` feeds the style rules:
# bow, crossbow, sling, thrown (knives, axes), spear (javelins, thrown spears).

MISSILE_COLUMNS: tuple[str, ...] = ("damage", "speed", "strength", "size", "hands", "kind",
                                    "thrown", "reload")
MISSILE_KINDS: tuple[str, ...] = ("bow", "crossbow", "sling", "thrown", "spear")


@dataclass(frozen=True)
class Missile:
    """One missile / thrown weapon row; ``thrown`` marks throwables (Table 32)."""

    name: str
    damage: int
    speed: int
    strength: int
    size: float
    hands: str
    kind: str
    thrown: bool
    reload: int

    def as_weapon(self) -> Weapon:
        """The row seen by the melee style tests (size, Speed, kind, hands, throwable)."""
        return Weapon(self.name, self.damage, None, None, None, self.speed, self.strength,
                      self.size, self.hands, self.kind, throwable=self.thrown, missile=True)

    def row(self) -> dict[str, object]:
        return {col: getattr(self, col) for col in MISSILE_COLUMNS}


MISSILES = MappingProxyType({m.name: m for m in (
    Missile("short bow", 0, 1, 6, 1.2, "2", "bow", False, 0),
    Missile("long bow", 2, 1, 12, 1.8, "2", "bow", False, 0),
    Missile("crossbow", 3, 2, 8, 0.8, "2", "crossbow", False, 1),
    Missile("sling", -1, 0, 2, 1.0, "1", "sling", False, 0),  # cord length
    Missile("throwing knife", -1, -2, 0, 0.2, "1", "thrown", True, 0),
    Missile("throwing axe", 1, 0, 6, 0.8, "1", "thrown", True, 0),
    Missile("javelin", 1, 0, 6, 1.5, "1", "spear", True, 0),
    Missile("thrown spear", 2, 0, 8, 1.8, "1", "spear", True, 0),
)})


def missile_rows() -> dict[str, dict[str, object]]:
    """The invented rows as the ``missile_weapons`` rule parameter's default."""
    return {name: m.row() for name, m in MISSILES.items()}


# --- Shields (5.13) [SRC] (000.8.2) -----------------------------------------------------------


@dataclass(frozen=True)
class Shield:
    """A shield class: Parry bonus, Strength requirement, opponents it covers per round."""

    name: str
    parry: int
    strength: int
    opponents: int  # per round; 99 = any number


SHIELDS = MappingProxyType({
    "none": Shield("none", 0, 0, 0),
    "buckler": Shield("buckler", 5, 1, 99),  # +0 if strapped to the forearm
    "medium": Shield("medium", 10, 3, 1),
    "large": Shield("large", 15, 6, 2),
})
SHIELD_CLASSES: tuple[str, ...] = tuple(SHIELDS)
STRAPPED_BUCKLER_PARRY = 0

# --- Fighting styles (5.6) [TEXT] (000.7) -----------------------------------------------------
# Each style is a named row (the rule parameter ``styles``), composed of the mechanics the
# ruleset has, so a designer can change one or add a style by name:
#
# * ``group``: "solo" (+5 alone, Dodge too; -10 ranked), "group" (-5 alone; ranked bonus;
#   a leader's Task Assist) or "none" (5.6 general);
# * ``weapons``: ordered [test, modifier] pairs; the first test the weapon in hand passes
#   gives the modifier to attacks and parries made with it (tests: WEAPON_TESTS);
# * ``missiles``: the same for its missile / thrown row (empty: ``weapons`` applies);
# * ``buckler`` / ``shield``: the modifier for parrying with a buckler / a medium or large
#   shield (``shield_penalty_scope``);
# * ``skill_mod``: a modifier to every roll on the style skill (attacks, parries, blocks);
# * ``aim_doubled``: Aim bonus doubled and the -3..+3 Hit Distribution shift (5.6 Archer);
# * ``mechanics``: the style's special rules, by name (MECHANICS).

STYLE_COLUMNS: tuple[str, ...] = ("group", "weapons", "missiles", "buckler", "shield",
                                  "skill_mod", "aim_doubled", "mechanics")
STYLE_GROUPS: tuple[str, ...] = ("solo", "group", "none")

WEAPON_TESTS: tuple[str, ...] = (
    "any", "throwable", "bow", "missile", "unarmed", "improvised", "natural", "spear",
    "polearm", "one_handed", "two_handed", "specialist", "gladiator", "martial",
    "size<=X", "speed<=X", "speed==X", "blade<=X", "blade_speed<=X", "kind=KIND",
    "weapon=NAME")
"""Tests a style's weapon clause may use (X a number, KIND a weapon kind, NAME a row)."""

MECHANICS = MappingProxyType({
    "shield_training": "a shield it is not trained in (combatant shield_trained) costs "
                       "gladiator_untrained_shield (5.6 Gladiator)",
    "free_armour_block": "Armour blocks without the base penalty (5.6 Gladiator)",
    "heavy_armour": "-5 out of heavy armour (AI 2+ somewhere); in it, Armour blocks without "
                    "penalty and parry-then-block (5.6 Knight)",
    "shield_step": "defence step -2 with a shield, -5 without one (one-handed weapon), shield "
                   "riposte (5.6 Shieldman)",
    "berserker": "every defence -5; may go berserk (5.6 Berserker)",
    "horseman": "no penalty mounted, -10 to attacks dismounted (5.6 Horseman)",
    "hunter": "+10 against animals, parries -10 (hunter_parry_mode) (5.6 Hunter)",
    "assassin": "+1 damage rank against a surprised foe (5.6 Assassin)",
    "footpad": "-5 when outnumbered; knock-out head hits one rank higher (5.6 Footpad)",
    "armour_rank_limit": "-5 to weapon skills in armour of Armour Rank > 2 (5.6 Swashbuckler)",
    "specialist": "may wield its specialist weapon (combatant specialist_weapon) (5.6)",
    "leaderless": "legionnaire_leaderless when its group has no leader (5.6 Legionnaire)",
    "throwables_in_melee": "its 'throwable' clause follows bladesman_mode (000.9 #16)",
    "feral": "fights as feral_as says (5.26 missing)",
    "mobility": "moving tasks on the style skill: with mobility_task, its dodges may use the "
                "style skill instead of Dodge; lost in armour of Armour Rank > 2 (5.6 "
                "Swashbuckler)",
    "natural": "everyone can perform it: an untrained fighter uses a natural skill rolled "
               "from untrained_skill (5.6 Brawling, Skirmisher)",
})
"""The special rules a style row may name (its ``mechanics``)."""


def _style(group: str, weapons: tuple[tuple[str, int], ...], *, missiles: tuple[tuple[str, int], ...] = (),
           buckler: int = 0, shield: int = 0, skill_mod: int = 0, aim_doubled: bool = False,
           mechanics: tuple[str, ...] = ()) -> dict[str, object]:
    return {"group": group, "weapons": weapons, "missiles": missiles, "buckler": buckler,
            "shield": shield, "skill_mod": skill_mod, "aim_doubled": aim_doubled,
            "mechanics": mechanics}


# The nineteen styles of 5.6 [TEXT], quoted where the clause is read.
STYLE_ROWS: dict[str, dict[str, object]] = {
    # "short weapons (0.8 m or shorter) ... at -10, and any other weapons and shields (except
    # bucklers) at -20"; missiles: "bows & crossbows 0"
    "archer": _style("none", (("size<=0.8", -10), ("any", -20)),
                     missiles=(("bow", 0), ("size<=0.8", -10), ("any", -20)),
                     shield=-20, aim_doubled=True),
    # "restricted to fast weapons (Speed +0 or lower) ... -10 ... Speed +1, -20 ... Speed +2";
    # "bucklers without penalty and other shields at -10"
    "assassin": _style("solo", (("speed<=0", 0), ("speed==1", -10), ("any", -20)), shield=-10,
                       mechanics=("assassin",)),
    # "the only restriction is a -5 penalty when using missile weapons or shields"
    "berserker": _style("none", (("any", 0),), missiles=(("missile", -5),), buckler=-5,
                        shield=-5, mechanics=("berserker",)),
    # "Weapons which can be thrown ... can be used in combat at -5. All other ... -20";
    # thrown attacks 0, missile weapons -5 (000.9 #16 default)
    "bladesman": _style("none", (("throwable", -5), ("any", -20)),
                        missiles=(("throwable", 0), ("missile", -5)), buckler=-20, shield=-20,
                        aim_doubled=True, mechanics=("throwables_in_melee",)),
    # Table 36 moves and improvised weapons without penalty; any other attack -20
    "brawling": _style("none", (("unarmed", 0), ("improvised", 0), ("any", -20)),
                       mechanics=("natural",)),
    # 5.26 missing: as Brawling with natural weapons (claws) [DEFAULT feral_as]
    "feral": _style("none", (("natural", 0), ("unarmed", 0), ("any", -20)),
                    mechanics=("feral",)),
    # "short, concealable weapons (0.4 m or shorter) ... -20 ... any other weapons or shields";
    # "most missile and thrown weapons -5; bows & crossbows -10"
    "footpad": _style("none", (("size<=0.4", 0), ("any", -20)),
                      missiles=(("bow", -10), ("missile", -5)), buckler=-20, shield=-20,
                      mechanics=("footpad",)),
    # culture-specific list (rule parameter gladiator_weapons); others -10
    "gladiator": _style("solo", (("gladiator", 0), ("any", -10)),
                        mechanics=("shield_training", "free_armour_block")),
    "horseman": _style("none", (("any", 0),), mechanics=("horseman",)),
    # "Hunters suffer a -5 penalty with shields"
    "hunter": _style("none", (("any", 0),), buckler=-5, shield=-5, mechanics=("hunter",)),
    # "-20 with missile and thrown weapons"
    "knight": _style("none", (("any", 0),), missiles=(("missile", -20),),
                     mechanics=("heavy_armour",)),
    # "most swords and shorter blades (up to 0.9 metres) ... -10 with other weapons"
    "legionnaire": _style("group", (("blade<=0.9", 0), ("any", -10)),
                          mechanics=("leaderless",)),
    # Table 36 moves; some arts cover a few weapons (rule parameter martial_weapons);
    # "all weapons, shields, missile and thrown weapons are used at -20"
    "martial_artist": _style("none", (("unarmed", 0), ("martial", 0), ("any", -20)),
                             missiles=(("martial", 0), ("missile", -20)), buckler=-20,
                             shield=-20),
    # one-handed 0; "-10 with two handed weapons, missile weapons and thrown weapons (this
    # includes the -5 for fighting without a shield)" -- the -5 is a mechanic
    "shieldman": _style("none", (("one_handed", 0), ("any", -10)),
                        missiles=(("missile", -10),), mechanics=("shield_step",)),
    # "one of the Skills all people have a natural ability to perform"
    "skirmisher": _style("none", (("any", 0),), mechanics=("natural",)),
    # spears 0, polearms -5, "other weapons (including missile weapons) ... -10"; "may throw
    # spears"
    "spearman": _style("group", (("spear", 0), ("polearm", -5), ("any", -10)),
                       missiles=(("spear", 0), ("missile", -10))),
    "poleaxeman": _style("group", (("polearm", 0), ("spear", -5), ("any", -10)),
                         missiles=(("spear", -5), ("missile", -10))),
    # the specialist weapon 0, anything else -20
    "specialist": _style("none", (("specialist", 0), ("any", -20)), buckler=-20, shield=-20,
                         mechanics=("specialist",)),
    # "Blades with a Speed of +0 or lower and Improvised weapons ... other weapons and shields
    # at -10"
    "swashbuckler": _style("solo", (("blade_speed<=0", 0), ("improvised", 0), ("any", -10)),
                           buckler=-10, shield=-10,
                           mechanics=("armour_rank_limit", "mobility")),
}
STYLES: tuple[str, ...] = tuple(STYLE_ROWS)


# --- Wound Matrix, Table 26 (5.9) [SRC] (000.8.4) ---------------------------------------------
# (highest 2d6 + modifier of the band, rank); above 17 one more M per block of 4.
RANK_NAMES: tuple[str, ...] = ("F", "L", "S", "M", "MM")
WOUND_MATRIX: tuple[tuple[int, int], ...] = ((2, 0), (5, 1), (8, 2), (13, 3), (17, 4))
WOUND_MATRIX_TOP = 17
F, L, S, M, MM = range(5)
LIMB_DESTROYED_RANK = MM
"""A limb wound of this rank or more destroys the limb (Table 26, "Special")."""

# Instant death [SRC]: a head wound of M or more, a torso wound of MM or more; both rise by
# one M per complete block of 12 Endurance above 20.
HEAD_DEATH_RANK = M
TORSO_DEATH_RANK = MM
DEATH_END_BASE = 20
DEATH_END_BLOCK = 12

# --- Default Table 27: wound code by Endurance [DEFAULT] (000.10) ------------------------------
# Letters are the capacities of the wounded / unconscious / killed stages, anchored at the
# source's END 14 -> M S S.  Beyond 36: one letter upgraded per further block of 4, left to
# right.
WOUND_CODES: dict[str, str] = {
    "1-4": "S L L", "5-8": "S S L", "9-12": "M S L", "13-16": "M S S", "17-20": "M M S",
    "21-24": "M M M", "25-28": "MM M M", "29-32": "MM MM M", "33-36": "MM MM MM"}
WOUND_CODE_TOP = 36

# --- Default Table 28: hit location on d20 [DEFAULT] (000.10) -----------------------------------
# Faces per location, in table order top (head) to bottom, so an aim shift of -3..+3 moves
# along it.  Armour is worn per group: head, arms, torso, legs.
LOCATIONS: tuple[str, ...] = (
    "head", "weapon_arm", "off_arm", "chest", "abdomen", "right_leg", "left_leg")
HIT_FACES: dict[str, int] = {"head": 2, "weapon_arm": 2, "off_arm": 2, "chest": 6,
                             "abdomen": 2, "right_leg": 3, "left_leg": 3}
ARMOUR_GROUPS: tuple[str, ...] = ("head", "arms", "torso", "legs")
LOCATION_GROUP: tuple[int, ...] = (0, 1, 1, 2, 2, 3, 3)  # location -> armour group
HEAD, WEAPON_ARM, OFF_ARM, CHEST, ABDOMEN, RIGHT_LEG, LEFT_LEG = range(7)
TORSO_LOCATIONS = frozenset({CHEST, ABDOMEN})
LIMB_LOCATIONS = frozenset({WEAPON_ARM, OFF_ARM, RIGHT_LEG, LEFT_LEG})


def armour_rank(armour: Mapping[str, int], mode: str) -> int:
    """The Armour Rank a fighter shows: the highest Armour Index it wears (``mode``
    ``"highest"``) or its torso's (rule ``armour_rank_mode``)."""
    return max(armour.values()) if mode == "highest" else armour["torso"]
