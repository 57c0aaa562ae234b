"""Seed 000 (*Avatar*, Abstract Combat System) as data: the literal tables.

Every table cites the seed section or the digest entry (``../shared/rules/000-strike-rank.md``)
it comes from.  Tags: TEXT (the seed says it), SRC (the identified source game, recovered
by the digest), DEFAULT (invented by the digest to fill a gap).  Functions that read these
tables live in :mod:`.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from ... import dice as _dice

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
INDEX_RESOLUTION = _dice.INDEX_RESOLUTION  # 5 -> +1, 6 -> +2 (the one table, in dice.py)

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


@dataclass(frozen=True)
class Weapon:
    """One row of the weapon tables.

    ``thrust`` / ``swing`` / ``blow`` are damage modifiers added to the 2d6 wound roll, or
    ``None`` where the attack type is impossible ("NA"); ``parry`` is the Parry bonus or
    ``None`` (cannot parry with it); ``strength`` is the first Strength number (the minimum
    to wield, 000.8.1 note); ``size`` is the length in metres (``None``: "NA", worn on the
    hand); ``hands`` is "1", "2" or "1+".  ``kind`` groups rows for the style rules:
    axe, blade, club, spear, polearm, unarmed, improvised, whip.
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

    def damage(self, attack_type: int) -> int | None:
        """Damage modifier of attack type 0 thrust, 1 swing, 2 blow (``None``: impossible)."""
        return (self.thrust, self.swing, self.blow)[attack_type]

    @property
    def two_handed(self) -> bool:
        return self.hands == "2"


def _w(name: str, thrust: int | None, swing: int | None, blow: int | None, parry: int | None,
       speed: int, strength: int, size: float | None, hands: str, kind: str,
       throwable: bool = False, specialist: bool = False) -> Weapon:
    return Weapon(name, thrust, swing, blow, parry, speed, strength, size, hands, kind,
                  throwable, specialist)


NA = None

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

# The digest's invented rows [DEFAULT] (000.8.1 notes, 000.10): a punch (Table 36), a spear,
# the improvised weapon of 5.19 (a Cleaver with Parry -5), and two rows the digest asks for
# but does not give, invented here on the same patterns: a polearm (halberd) for the
# Poleaxeman and a whip for the Specialist.  Rule parameter ``extra_weapons`` can replace
# their numbers.
EXTRA_WEAPONS: tuple[Weapon, ...] = (
    _w("punch", -4, -4, -3, -10, -2, 0, 0.0, "1", "unarmed"),
    _w("spear", 1, -1, 1, 5, 0, 6, 1.8, "1+", "spear", throwable=True),
    _w("improvised", -2, 0, 1, -5, 0, 6, 0.3, "1", "improvised"),
    _w("halberd", 1, 2, 3, 10, 1, 12, 2.0, "2", "polearm"),
    _w("whip", NA, -2, -1, NA, 0, 4, 3.0, "1", "whip", specialist=True),
)

WEAPONS = MappingProxyType({w.name: w for w in (*AXES, *BLADES, *CLUBS, *EXTRA_WEAPONS)})
WEAPON_NAMES: tuple[str, ...] = tuple(WEAPONS)
SPECIALIST_WEAPONS: tuple[str, ...] = tuple(w.name for w in WEAPONS.values() if w.specialist)


def extra_weapon_rows() -> dict[str, tuple[int | float | str | None, ...]]:
    """The invented rows as the ``extra_weapons`` rule parameter's default:
    name -> (thrust, swing, blow, parry, speed, strength, size, hands)."""
    return {w.name: (w.thrust, w.swing, w.blow, w.parry, w.speed, w.strength, w.size, w.hands)
            for w in EXTRA_WEAPONS}


# --- Missile and thrown weapons [DEFAULT] (000.10: Table 32 and the missile tables) ---------
# The seed's missile tables and Table 32 (throwables) were not retrieved; 000.10 asks for
# invented rows.  These are invented on the melee tables' scale (a damage modifier added to
# the 2d6 wound roll, a Speed, a minimum Strength, a size in metres and the hands), plus
# ``reload``: range actions a shot needs before the next (a crossbow is spanned).  Rule
# parameter ``missile_weapons`` can replace the numbers.  ``kind`` feeds the style rules:
# bow, crossbow, sling, thrown (knives, axes), spear (javelins, thrown spears).


@dataclass(frozen=True)
class Missile:
    """One invented missile / thrown weapon row; ``thrown`` marks throwables (Table 32)."""

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
                      self.size, self.hands, self.kind, throwable=self.thrown)


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
MISSILE_NAMES: tuple[str, ...] = tuple(MISSILES)


def missile_rows() -> dict[str, tuple[int | float | str, ...]]:
    """The invented rows as the ``missile_weapons`` rule parameter's default:
    name -> (damage, speed, strength, size, hands, reload)."""
    return {m.name: (m.damage, m.speed, m.strength, m.size, m.hands, m.reload)
            for m in MISSILES.values()}


# Style missile rules [TEXT] (000.7): ordered (test, modifier) on a missile / thrown row, for
# the styles whose text names missiles.  Tests as in STYLE_WEAPON_RULES plus "bow" (bows and
# crossbows) and "missile" (any row here).  Styles not listed apply their melee rules of
# STYLE_WEAPON_RULES to the row (its size, Speed, kind) [DEFAULT reading].
STYLE_MISSILE_RULES = MappingProxyType({
    # "bows & crossbows 0; short weapons (0.8 m or shorter) -10; all other weapons -20"
    "archer": (("bow", 0), ("size<=0.8", -10), ("any", -20)),
    # "a -5 penalty when using missile weapons" (thrown ones counted as missiles)
    "berserker": (("missile", -5),),
    # "thrown-capable weapons ... and missile weapons -5 in combat": thrown attacks 0,
    # missile weapons -5 (000.9 #16 default)
    "bladesman": (("throwable", 0), ("missile", -5)),
    # "most missile and thrown weapons -5; bows & crossbows -10"
    "footpad": (("bow", -10), ("missile", -5)),
    # "missile and thrown weapons -20"
    "knight": (("missile", -20),),
    # "otherwise all weapons, shields, missile, thrown -20"
    "martial_artist": (("martial", 0), ("missile", -20)),
    # "two-handed, missile, thrown weapons -10"
    "shieldman": (("missile", -10),),
    # "may throw spears" (spears 0); "other weapons incl. missile 'generally' -10"
    "spearman": (("spear", 0), ("missile", -10)),
    # "polearms 0; spears -5; others -10": a thrown spear is a spear
    "poleaxeman": (("spear", -5), ("missile", -10)),
})
AIM_DOUBLED = frozenset({"archer", "bladesman"})
"""Styles whose Aim bonus is doubled (5.6 Archer / Crossbowman, Bladesman)."""


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
STYLES: tuple[str, ...] = (
    "archer", "assassin", "berserker", "bladesman", "brawling", "feral", "footpad",
    "gladiator", "horseman", "hunter", "knight", "legionnaire", "martial_artist",
    "shieldman", "skirmisher", "spearman", "poleaxeman", "specialist", "swashbuckler")
SOLO_STYLES = frozenset({"assassin", "gladiator", "swashbuckler"})
GROUP_STYLES = frozenset({"legionnaire", "spearman", "poleaxeman"})

# Style weapon rules: an ordered list of (test, modifier); the first test the weapon passes
# gives the modifier to attacks and parries made with it.  Tests are read by
# ``rules.weapon_passes``.  The missile clauses of the text are in STYLE_MISSILE_RULES
# (below the missile rows).  Gladiator, Specialist, Shieldman and Feral rows
# depend on combatant fields or rule parameters and are completed in ``rules``.
STYLE_WEAPON_RULES = MappingProxyType({
    # "short weapons (0.8 m or shorter) ... at -10, and any other weapons ... at -20"
    "archer": (("size<=0.8", -10), ("any", -20)),
    # "restricted to fast weapons (Speed +0 or lower) ... -10 ... Speed +1, -20 ... Speed +2"
    "assassin": (("speed<=0", 0), ("speed==1", -10), ("any", -20)),
    # "the only restriction is a -5 penalty when using missile weapons or shields"
    "berserker": (("any", 0),),
    # "Weapons which can be thrown ... can be used in combat at -5. All other ... -20"
    "bladesman": (("throwable", "bladesman"), ("any", -20)),
    # Table 36 moves and improvised weapons without penalty; any other attack -20
    "brawling": (("unarmed", 0), ("improvised", 0), ("any", -20)),
    # 5.26 missing: as Brawling with natural weapons (claws) [DEFAULT feral_as]
    "feral": (("natural", 0), ("unarmed", 0), ("any", -20)),
    # "short, concealable weapons (0.4 m or shorter) ... -20 ... any other weapons"
    "footpad": (("size<=0.4", 0), ("any", -20)),
    # culture-specific list (rule parameter gladiator_weapons); others -10
    "gladiator": (("gladiator", 0), ("any", -10)),
    "horseman": (("any", 0),),
    "hunter": (("any", 0),),
    "knight": (("any", 0),),  # -20 only with missile and thrown weapons
    # "most swords and shorter blades (up to 0.9 metres) ... -10 with other weapons"
    "legionnaire": (("blade<=0.9", 0), ("any", -10)),
    # Table 36 moves; some arts cover a few weapons (rule parameter martial_weapons); else -20
    "martial_artist": (("unarmed", 0), ("martial", 0), ("any", -20)),
    # one-handed 0; two-handed -10 (which includes the -5 for no shield); see rules
    "shieldman": (("one_handed", 0), ("any", -10)),
    "skirmisher": (("any", 0),),
    "spearman": (("spear", 0), ("polearm", -5), ("any", -10)),
    "poleaxeman": (("polearm", 0), ("spear", -5), ("any", -10)),
    # the specialist weapon 0, anything else -20
    "specialist": (("specialist", 0), ("any", -20)),
    # "Blades with a Speed of +0 or lower and Improvised weapons ... other weapons ... -10"
    "swashbuckler": (("blade_speed<=0", 0), ("improvised", 0), ("any", -10)),
})

# Style shield rules: (modifier with a buckler, modifier with a medium or large shield), on
# parries made with the shield (rule parameter shield_penalty_scope) [TEXT, 000.7].  None
# where a combatant field decides (the Gladiator's training).
STYLE_SHIELD_MODS = MappingProxyType({
    "archer": (0, -20), "assassin": (0, -10), "berserker": (-5, -5), "bladesman": (-20, -20),
    "brawling": (0, 0), "feral": (0, 0), "footpad": (-20, -20), "gladiator": (None, None),
    "horseman": (0, 0), "hunter": (-5, -5), "knight": (0, 0), "legionnaire": (0, 0),
    "martial_artist": (-20, -20), "shieldman": (0, 0), "skirmisher": (0, 0),
    "spearman": (0, 0), "poleaxeman": (0, 0), "specialist": (-20, -20),
    "swashbuckler": (-10, -10),
})

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
