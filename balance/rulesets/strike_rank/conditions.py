"""Conditional modifiers and effects in strike-rank's content rows (the rules language).

Weapon, missile and style rows take two optional columns, ``modifiers`` and ``effects``
(:mod:`balance.language`): a war pick's "+1 to hit against Armour Rank 3 or more" is::

    [[rules.weapons."war pick".modifiers]]
    to = "attack"
    amount = 1
    when = "target.armour_rank >= 3"

What they may name is :func:`vocabulary`: ``self.`` / ``target.`` fields of the fighter
and its foe, the situation (``round``, ``foes_engaged``, ...), the targets a modifier
changes (``attack``, ``parry``, ``dodge``, ``armour_block``, ``damage``, ``strike_rank``),
the outcomes an effect hangs on (``hit``, ``miss``) and what it inflicts (``disarmed``,
``berserk``).

Which rows a roll sees: the fighter's weapon row (its parries too, but not a shield parry),
its missile row for shots (``attack`` and ``damage`` only), and the row of the style the
roll is made in.  A modifier whose condition and amount read only names fixed in the
matchup (the fighters' attributes, and in a duel the head counts) and roll no dice is
*static*: it is evaluated once per pair of fighters and folded into the profile's parts
(:mod:`.profile`), so the reference narrates it, the kernel's lookup tables hold it and the
race model sees it exactly, at no cost per round.  The others are *per fight*: the kernel
evaluates them over its batch of fights, the reference per roll.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...errors import SpecError
from ...language import Effect, Modifier, Name, Names, Vocabulary
from ...reading import join
from . import tables as T

if TYPE_CHECKING:
    from .profile import Profile

__all__ = ["DYNAMIC_FIELDS", "EMPTY", "OUTCOMES", "SITUATION", "TARGETS", "RowLanguage",
           "fighter_values", "read_row", "vocabulary"]

TARGETS: dict[str, str] = {
    "attack": "the attack total (skill + modifiers + d20): melee attacks and ripostes with "
              "the weapon, shots with the missile weapon",
    "parry": "the parry total: parries with the weapon (a weapon row), or any parry (a style "
             "row); a shield parry takes only the style's",
    "dodge": "the Dodge total",
    "armour_block": "the Armour block total (a Knight's parry-then-block included)",
    "damage": "the damage modifier added to the 2d6 wound roll of a hit",
    "strike_rank": "the Strike Rank each round (rolled before targets are chosen, so it "
                   "cannot read target. names)",
}
MISSILE_TARGETS = ("attack", "damage")
OUTCOMES: dict[str, str] = {
    "hit": "an attack, riposte or shot of the row's fighter hit (after the wound, if the "
           "target still stands)",
    "miss": "it was parried, dodged or blocked",
}
CONDITIONS: dict[str, str] = {
    "disarmed": "disarmed: spends its next attack recovering its weapon (or fights "
                "unarmed, when_disarmed); until removed (no rounds)",
    "berserk": "berserk for the rest of the fight: +1 damage rank, no Dodge, parry -10, "
               "Armour block -20 (5.6 Berserker); no rounds",
}

FIGHTER_FIELDS: dict[str, Name] = {
    "armour_rank": Name(int, range=(0, 6), tag="AMBIG",
                        doc="Armour Rank: the highest Armour Index worn (rule "
                            "armour_rank_mode: or the torso's) (000.9 #20)"),
    "shield": Name(str, choices=T.SHIELD_CLASSES, doc="shield class carried"),
    "weapon_kind": Name(str, choices=T.WEAPON_KINDS,
                        doc="kind of the weapon in hand (a weapon row's kind)"),
    "hands": Name(str, choices=T.HANDS, doc="hands of the weapon in hand: 1, 2 or 1+"),
    "style_group": Name(str, choices=T.STYLE_GROUPS,
                        doc="group of the style the roll is made in: solo, group, none"),
    "skill": Name(int, range=(0, 100), doc="skill in the style the roll is made in"),
    "agility": Name(int, range=(1, 60), doc="Agility"),
    "dexterity": Name(int, range=(1, 60), doc="Dexterity"),
    "endurance": Name(int, range=(1, 60), doc="Endurance"),
    "strength": Name(int, range=(0, 60), doc="Strength"),
    "mounted": Name(bool, doc="fights on horseback"),
    "animal": Name(bool, doc="is an animal"),
    "wounds": Name(int, range=(0, None), doc="wound points taken so far (per fight)"),
    "wounded": Name(bool, doc="in the wounded state or worse: the wounded penalty applies "
                              "(per fight)"),
    "berserk": Name(bool, doc="berserk now (per fight)"),
}
"""Fields of a fighter, read as ``self.<field>`` and ``target.<field>`` (``weapon`` and
``style``, whose words are the rules' rows, are added by :func:`vocabulary`)."""
DYNAMIC_FIELDS = frozenset({"wounds", "wounded", "berserk"})
"""Fighter fields that change during a fight; the rest are fixed for the matchup."""

SITUATION: dict[str, Name] = {
    "round": Name(int, range=(1, 10_000), doc="the round, 1 first (range rounds count)"),
    "foes_engaged": Name(int, range=(0, 6),
                         doc="living foes whose target is this fighter (1 in a duel)"),
    "foes_standing": Name(int, range=(0, 6), doc="living foes (1 in a duel)"),
    "allies_standing": Name(int, range=(0, 5),
                            doc="living members of its side besides itself (0 in a duel)"),
}
GROUP_SITUATION = ("foes_engaged", "foes_standing", "allies_standing")
"""Situation names fixed in a duel (1, 1, 0) and per fight in a group fight."""
DUEL_SITUATION: dict[str, int] = {"foes_engaged": 1, "foes_standing": 1, "allies_standing": 0}


@lru_cache(maxsize=64)
def vocabulary(styles: tuple[str, ...] = T.STYLES,
               weapons: tuple[str, ...] = tuple(T.WEAPONS)) -> Vocabulary:
    """What strike-rank's rows may name, for rules whose style and weapon rows are
    ``styles`` and ``weapons`` (``self.style == "gladiator"``, ``target.weapon ==
    "war pick"``)."""
    fields = {
        "weapon": Name(str, choices=weapons, doc="the weapon in hand: a row of 'weapons'"),
        "style": Name(str, choices=styles,
                      doc="the style the roll is made in: a row of 'styles'"),
        **FIGHTER_FIELDS,
    }
    names = Names.for_fighters(fields) | Names(SITUATION)
    return Vocabulary(names, targets=TARGETS, outcomes=OUTCOMES, conditions=CONDITIONS)


def fighter_values(p: Profile) -> dict[str, Any]:
    """The fixed fields of ``p``'s fighter as the language reads them (words as words)."""
    c = p.c
    return {
        "armour_rank": T.armour_rank(c.armour, p.rules.armour_rank_mode), "shield": c.shield, "weapon": p.weapon.name,
        "weapon_kind": p.weapon.kind, "hands": p.weapon.hands, "style": c.style,
        "style_group": p.style.group, "skill": c.skill, "agility": c.agility,
        "dexterity": c.dexterity, "endurance": c.endurance, "strength": c.strength,
        "mounted": c.mounted, "animal": c.animal,
    }


# --- rows --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RowLanguage:
    """The modifiers and effects of one content row."""

    modifiers: tuple[Modifier, ...] = ()
    effects: tuple[Effect, ...] = ()

    def on(self, to: str) -> tuple[Modifier, ...]:
        return tuple(m for m in self.modifiers if m.to == to)

    def __bool__(self) -> bool:
        return bool(self.modifiers or self.effects)


EMPTY = RowLanguage()
LANGUAGE_COLUMNS = ("modifiers", "effects")


def place(table: str, name: str) -> str:
    """``weapons."war pick"`` (TOML's quoting where the name needs it)."""
    bare = name.replace("_", "").replace("-", "").isalnum()
    return f"{table}.{name}" if bare else f'{table}."{name}"'


def _listed(value: Any) -> Sequence[Any]:
    """A column of rows: a list, or one row (a table or a one-line string)."""
    if isinstance(value, list | tuple):
        return value
    return [value]


def read_row(table: str, name: str, row: Mapping[str, Any], vocab: Vocabulary) -> RowLanguage:
    """The ``modifiers`` and ``effects`` columns of row ``name`` of ``table`` (weapons,
    missile_weapons, styles), each error naming its key path."""
    if not any(col in row for col in LANGUAGE_COLUMNS):
        return EMPTY
    where = place(table, name)
    mods = tuple(vocab.modifier(m, where=join(join(where, "modifiers"), i), name=name)
                 for i, m in enumerate(_listed(row.get("modifiers", ()))))
    effects = tuple(_effect(vocab, e, join(join(where, "effects"), i), name)
                    for i, e in enumerate(_listed(row.get("effects", ()))))
    for i, m in enumerate(mods):
        at = join(join(where, "modifiers"), i)
        if table == "missile_weapons" and m.to not in MISSILE_TARGETS:
            raise SpecError(f"a missile row's modifiers are to {' or '.join(MISSILE_TARGETS)} "
                            f"(its shots and their hits), got {m.to!r}", where=join(at, "to"))
        if m.to == "strike_rank":
            reads = [n for n in _reads(m) if n.startswith("target.")]
            if reads:
                raise SpecError(f"a strike_rank modifier cannot read {reads[0]}: Strike Rank "
                                "is rolled before targets are chosen", where=at)
    for i, e in enumerate(effects):
        at = join(join(where, "effects"), i)
        if e.rounds is not None:
            raise SpecError(f"{e.inflict} has no duration here ({CONDITIONS[e.inflict]}); "
                            "omit rounds", where=join(at, "rounds"))
    return RowLanguage(mods, effects)


def _effect(vocab: Vocabulary, data: Any, where: str, name: str) -> Effect:
    try:
        return vocab.effect(data, where=where, name=name)
    except SpecError as exc:
        action = (exc.where or "").rsplit(".", 1)[-1]
        if action in ("spend", "set"):  # the core lists the (here no) resources or states
            raise SpecError(f"strike-rank effects inflict a condition ({', '.join(CONDITIONS)}); "
                            f"there is nothing to {action}", where=exc.where) from None
        raise


def _reads(row: Modifier | Effect) -> tuple[str, ...]:
    from ...language import names_used

    return names_used(row)
