"""Weapon rows of seed 002: the content a designer writes, with modifiers and effects.

The built-in weapons are the digest's (002.8): their damage, band, Reload and area are the
rules tables ``weapon_damage``, ``weapon_range``, ``reloading`` and ``area_weapons``.  The
rules table ``weapons`` holds rows by weapon name that add to them:

* a row for a built-in weapon gives it ``ammunition``, ``modifiers`` and ``effects``;
* a row under a new name is a new weapon ``like`` a built-in one (its kind, damage, band,
  Reload and area), with ``damage`` and ``range`` of its own if given::

      [rules.weapons.bola]
      like = "thrown"
      damage = 1
      ammunition = 3
      effects = ["on success inflict entangled for 1d3 rounds", "on attack spend 1 ammunition"]

``modifiers`` and ``effects`` are rows of the rules language (``balance.language``), read
against :func:`vocabulary`: the names a condition may read (``self.*`` / ``target.*``, the
situation), the targets a modifier changes, the outcomes an effect hangs on (the 3d6
ladder's), the conditions it inflicts and the resource it spends.  What each does to a
fight is stated here once and read by the kernel, the reference and the exact solver.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import SpecError

if TYPE_CHECKING:
    from ...language import Effect, Modifier, Vocabulary

__all__ = ["CONDITIONS", "OUTCOMES", "ROW_COLUMNS", "TARGETS", "UNTIL_REMOVED", "WeaponRow",
           "fighter_names", "read_rows", "vocabulary"]

MELEE = ("unarmed", "light", "one_handed", "two_handed")
RANGED = ("short_bow", "long_bow", "crossbow", "thrown", "spell", "blast", "breath")
ROW_COLUMNS = ("like", "damage", "range", "ammunition", "modifiers", "effects")
MAX_AMMUNITION = 99
MAX_HP = 240            # hp 60 x large_hp_factor 4 (rules.py bounds)
MAX_DISTANCE = 7
"""``distance`` reads 7 for seven steps or more (and for a location out of sight)."""
UNTIL_REMOVED = 32_767
"""The count of a condition inflicted without ``rounds``: it never runs out."""

TARGETS = {
    "attack": "the attack total of an attack with this weapon (3d6 + attribute + "
              "modifiers - Defence) [DEFAULT]",
    "defence": "the wielder's Defence against every attack on it (the rows of both its "
               "weapons count; self is the defender, target the attacker) [DEFAULT]",
    "damage": "the weapon damage of an attack with this weapon, before armour (002.8 "
              "armour_mode then applies) [DEFAULT]",
    "movement": "Move actions each step costs the wielder (band or shift), at least 1, "
                "before Slowed multiplies it (rows of both its weapons; reads self.* and "
                "the situation only: a step has no target) [DEFAULT]",
}
OUTCOMES = {
    "attack": "every attack made with the weapon, whatever it rolls",
    "miss": "a Failure on the 3d6 ladder",
    "partial": "a Partial, exactly",
    "hit": "a Partial or better (the attack deals damage past a Failure)",
    "success": "a Success or a Critical ('on a success', 002.5 '13 lands a clean Success')",
    "critical": "a Critical",
}
CONDITIONS = {
    "slowed": "band and shift costs x slowed_factor (002.2: 4 Moves a band, 2 a shift)",
    "entangled": "no movement at all until its save (002.2; 1 action, 3d6 + Might >= "
                 "entangle_save, 002.8) or until its rounds run out",
}
RESOURCES = {
    "ammunition": "of the ranged weapon (its 'ammunition' column); at 0 the fighter has "
                  "no ranged weapon for the rest of the fight",
}
SITUATION_ONLY_TARGETS = ("movement",)
"""Targets whose rows are read with no foe: they may not read target.*, distance or
attack_number."""
NO_FOE_NAMES = ("distance", "attack_number")


def fighter_names(melee: tuple[str, ...], ranged: tuple[str, ...]) -> dict[str, Any]:
    """What ``self.X`` and ``target.X`` may read, one :class:`Name` each."""
    from ...language import Name

    return {
        "hp": Name(int, range=(0, MAX_HP), doc="hit points left (002.8 hp)", tag="DEFAULT"),
        "wounds": Name(int, range=(0, MAX_HP), doc="hit points lost so far", tag="DEFAULT"),
        "might": Name(int, range=(0, 4), doc="Might (002.8)", tag="DEFAULT"),
        "agility": Name(int, range=(0, 4), doc="Agility (002.8)", tag="DEFAULT"),
        "defence": Name(int, range=(0, 8), doc="Defence with its shield, without Defend's "
                        "bonus (002.8)", tag="DEFAULT"),
        "armour": Name(int, range=(0, 3), doc="Armour (002.8)", tag="DEFAULT"),
        "speed": Name(int, range=(1, 3), doc="Speed (002.3)", tag="DEFAULT"),
        "shield": Name(bool, doc="carries a shield (002.8)", tag="DEFAULT"),
        "large": Name(bool, doc="Large (002.4)", tag="TEXT"),
        "weapon": Name(str, choices=melee, doc="its melee weapon (a row of the weapons)",
                       tag="DEFAULT"),
        "ranged": Name(str, choices=("none", *ranged), doc="its ranged weapon, none once "
                       "its ammunition is spent", tag="DEFAULT"),
        "slowed": Name(bool, doc="Slowed now (002.2)", tag="TEXT"),
        "entangled": Name(bool, doc="Entangled now (002.2)", tag="TEXT"),
        "defending": Name(bool, doc="spent a Defend since its last activation began "
                          "(+Defence vs melee, holding ground; 002.3, 002.8)", tag="TEXT"),
        "moved": Name(bool, doc="spent a Move since its last activation began (002.5's "
                      "moved-target reading)", tag="TEXT"),
        "cover": Name(bool, doc="stands in a zone tagged cover (002.1)", tag="TEXT"),
        "commanding": Name(bool, doc="stands in a zone tagged commanding (002.1)",
                           tag="TEXT"),
        "hazard": Name(bool, doc="stands in a hazard zone (002.2)", tag="TEXT"),
        "chokepoint": Name(bool, doc="stands in a chokepoint zone (002.4)", tag="TEXT"),
    }


def situation_names() -> dict[str, Any]:
    """The names without a prefix: the fight around the fighter the row belongs to."""
    from ...language import Name

    return {
        "round": Name(int, range=(1, 10_000), doc="the round, from 1 (002.7.11: every "
                      "combatant activates once)", tag="DEFAULT"),
        "distance": Name(int, range=(0, MAX_DISTANCE), doc="steps from self to target along "
                         "the line of sight: 0 the same zone (engaged), 1 short, 2 medium, 3 "
                         "long under the default range_steps; 7 for 7 or more (002.1, 002.8)",
                         tag="DEFAULT"),
        "attack_number": Name(int, range=(1, 6), doc="which attack of the activation this "
                              "is, from 1 (the MAP's index + 1); a free Strike: which of "
                              "the holder's (002.5, 002.7.9)", tag="DEFAULT"),
        "foes_engaged": Name(int, range=(0, 6), doc="standing foes in self's zone (002.1 "
                             "engaged)", tag="TEXT"),
        "allies_engaged": Name(int, range=(0, 5), doc="standing allies in self's zone, self "
                               "not counted", tag="TEXT"),
        "foes_standing": Name(int, range=(0, 6), doc="foes not Down", tag="DEFAULT"),
        "allies_standing": Name(int, range=(0, 5), doc="allies not Down, self not counted",
                                tag="DEFAULT"),
    }


@functools.cache
def vocabulary(melee: tuple[str, ...] = MELEE, ranged: tuple[str, ...] = RANGED
               ) -> Vocabulary:
    """What zones' rows may name, for these weapon names (built-in and new rows)."""
    from ...language import Names, Vocabulary

    names = Names.for_fighters(fighter_names(melee, ranged)) | Names(situation_names())
    return Vocabulary(names, targets=TARGETS, outcomes=OUTCOMES, conditions=CONDITIONS,
                      resources=RESOURCES)


@dataclass(frozen=True)
class WeaponRow:
    """One weapon as the rules read it: built-in columns and the designer's rows."""

    name: str
    kind: str                  # "melee" or "ranged"
    like: str                  # the built-in weapon it copies (itself for a built-in)
    damage: int
    band: str | None           # ranged: its range band
    ammunition: int | None     # ranged: rounds carried; None never runs out
    modifiers: tuple[Modifier, ...] = ()
    effects: tuple[Effect, ...] = ()

    def mods(self, to: str) -> tuple[Modifier, ...]:
        return tuple(m for m in self.modifiers if m.to == to)

    def inflicts(self, condition: str, who: str) -> bool:
        return any(e.inflict == condition and e.who == who for e in self.effects)

    @property
    def spends(self) -> bool:
        return any(e.spend for e in self.effects)

    @property
    def has_rows(self) -> bool:
        return bool(self.modifiers or self.effects)


def read_rows(rules: Any) -> dict[str, WeaponRow]:
    """Every weapon of ``rules`` (built-in and new) as a :class:`WeaponRow`, every mistake
    in the ``weapons`` table one :class:`SpecError` naming its key path."""
    given = rules.weapons
    new = tuple(k for k in given if k not in MELEE and k not in RANGED)
    for name in new:
        if name == "none" or not name.strip():
            raise SpecError(f"{name!r} cannot name a weapon (none means no ranged weapon)",
                            where="weapons")
    melee = MELEE + tuple(k for k in new if _like(given, k) in MELEE)
    ranged = RANGED + tuple(k for k in new if _like(given, k) in RANGED)
    out = {}
    for name in (*MELEE, *RANGED, *new):
        out[name] = _row(rules, name, given.get(name, {}), melee, ranged)
    return out


def _like(given: Mapping[str, Any], name: str) -> str:
    row = given[name]
    where = f"weapons.{name}"
    if not isinstance(row, Mapping):
        raise SpecError(f"must be a table with keys {', '.join(ROW_COLUMNS)}", where=where)
    like = row.get("like")
    if like is None:
        raise SpecError(f"a new weapon needs 'like': the built-in weapon it copies (its "
                        f"kind, damage, band, Reload, area), one of {', '.join(MELEE + RANGED)}",
                        where=where)
    if like not in MELEE + RANGED:
        from ...errors import did_you_mean
        raise SpecError(f"'like' must be a built-in weapon, one of {', '.join(MELEE + RANGED)}"
                        f", got {like!r}{did_you_mean(like, MELEE + RANGED)}",
                        where=f"{where}.like")
    return str(like)


def _row(rules: Any, name: str, data: Mapping[str, Any], melee: tuple[str, ...],
         ranged: tuple[str, ...]) -> WeaponRow:
    from ...reading import Reader

    where = f"weapons.{name}"
    builtin = name in MELEE or name in RANGED
    reader = Reader(None)
    allowed = ROW_COLUMNS[3:] if builtin else ROW_COLUMNS
    for key in data:
        if key not in allowed:
            hint = (f"; a built-in weapon's damage and band are rules.weapon_damage.{name} "
                    f"and rules.weapon_range.{name}" if builtin and key in ROW_COLUMNS
                    else "")
            raise SpecError(f"unknown column {key!r}; a {'built-in' if builtin else 'new'} "
                            f"weapon's columns: {', '.join(allowed)}{hint}",
                            where=f"{where}.{key}")
    like = name if builtin else str(data["like"])
    kind = "melee" if like in MELEE else "ranged"
    damage = int(rules.weapon_damage[like])
    if "damage" in data:
        damage = reader.integer(data["damage"], f"{where}.damage", 0, 20)
    band = None if kind == "melee" else str(rules.weapon_range[like])
    if "range" in data:
        if kind == "melee":
            raise SpecError("a melee weapon reaches its own zone only; range is for ranged "
                            "weapons", where=f"{where}.range")
        band = reader.text(data["range"], f"{where}.range", list(rules.range_steps))
    ammunition = None
    if "ammunition" in data:
        if kind == "melee":
            raise SpecError("ammunition is for ranged weapons: a melee weapon never runs out",
                            where=f"{where}.ammunition")
        ammunition = reader.integer(data["ammunition"], f"{where}.ammunition", 1,
                                    MAX_AMMUNITION)
    modifiers: tuple[Modifier, ...] = ()
    effects: tuple[Effect, ...] = ()
    if "modifiers" in data or "effects" in data:  # the language is loaded for rows only
        words = vocabulary(melee, ranged)
        modifiers = tuple(_labelled(m, f"{where}.modifiers[{k}]", name) for k, m in enumerate(
            words.modifiers(data.get("modifiers", ()), where=f"{where}.modifiers")))
        effects = tuple(_labelled(e, f"{where}.effects[{k}]", name) for k, e in enumerate(
            words.effects(data.get("effects", ()), where=f"{where}.effects")))
    _check_rows(where, modifiers, effects, ammunition)
    return WeaponRow(name, kind, like, damage, band, ammunition, modifiers, effects)


def _labelled(row: Any, where: str, weapon: str) -> Any:
    """A row without a ``name`` of its own is named in the log by its weapon."""
    import dataclasses

    return dataclasses.replace(row, name=weapon) if row.name == where else row


def _check_rows(where: str, modifiers: tuple[Modifier, ...], effects: tuple[Effect, ...],
                ammunition: int | None) -> None:
    from ...language import names_used

    for k, m in enumerate(modifiers):
        if m.to in SITUATION_ONLY_TARGETS:
            bad = [n for n in names_used(m) if n.startswith("target.") or n in NO_FOE_NAMES]
            if bad:
                raise SpecError(f"a {m.to} modifier is read when the wielder steps, with no "
                                f"foe: it may read self.* and the situation but not "
                                f"{bad[0]}", where=f"{where}.modifiers[{k}]")
            if m.amount.has_dice or (m.when is not None and m.when.has_dice):
                raise SpecError(f"a {m.to} modifier is read each time a step's cost is "
                                "weighed: it may not roll dice", where=f"{where}.modifiers[{k}]")
    spends = [k for k, e in enumerate(effects) if e.spend]
    for k in spends:
        if effects[k].who != "self":
            raise SpecError("ammunition is spent by the attacker: who must be self",
                            where=f"{where}.effects[{k}].who")
    if spends and ammunition is None:
        raise SpecError("spends ammunition but carries none: give the row an 'ammunition' "
                        "column (rounds carried, 1..99)", where=f"{where}.effects[{spends[0]}]")
    if ammunition is not None and not spends:
        raise SpecError("carries ammunition that nothing spends: add an effect such as "
                        "'on attack spend 1 ammunition'", where=f"{where}.ammunition")


def markdown() -> str:
    """What zones' rows may name, as the Markdown that ``docs/zones.md`` and
    ``docs/rules-language.md`` hold (a test keeps them equal): the names with their values
    and tags, then the targets, outcomes, conditions and resource."""
    words = vocabulary()
    out = [words.names.markdown(), ""]
    for title, table in (("Modifier targets (`to`)", TARGETS), ("Outcomes (`on`)", OUTCOMES),
                         ("Conditions (`inflict`)", CONDITIONS),
                         ("Resources (`spend`)", RESOURCES)):
        out += [f"| {title} | meaning |", "|---|---|"]
        out += [f"| `{key}` | {doc} |" for key, doc in table.items()] + [""]
    return "\n".join(out).rstrip() + "\n"
