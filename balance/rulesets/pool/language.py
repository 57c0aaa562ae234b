"""What pool's house rules may read and change: its rules-language vocabulary.

pool has no content rows of its own (its weapon and armour tables map a name to one
number), so a designer's mechanics live in the rule parameter ``house_rules``
(:mod:`balance.rulesets.house`): named rows of modifiers, each applying to every fighter.

* ``to = "attack"``: added to the attack check; ``self`` is the attacker, ``target`` the
  defender (003.2).
* ``to = "defence"``: added to the defence check; ``self`` is the defender, ``target`` the
  attacker.
* ``to = "damage"``: added to a hit's damage (weapon + strength modifier, + the margin
  option), which is then at least 0; ``self`` is the attacker.

Names are read when the attack is declared.  The bidding policies read the lead with the
modifiers in it, and "can possibly hit" (the stalemate rule, 003.4, and the turn policies)
counts them too: each row at its value, or, if it rolls dice, at its best for the attacker.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...language import Modifier, Name, Names, Vocabulary, names_used, total
from .. import house
from .rules import ARMOUR_WP, STATS, WEAPON_DAMAGE, Rules

__all__ = ["FIGHTER_NAMES", "SITUATION_NAMES", "STATE_NAMES", "TARGETS", "best_case",
           "house_rules", "vocabulary"]

MAX_WP = 50 * 99
"""The most Wound Points a fighter can have (wp_per_fortitude up to 50, Fortitude to 99)."""

FIGHTER_NAMES: dict[str, Name] = {
    **{stat: Name(int, range=(0, 99), tag="TEXT", doc=f"{stat.replace('_', '-')} (003.1)")
       for stat in STATS},
    "weapon": Name(str, choices=tuple(WEAPON_DAMAGE), tag="DEFAULT", doc="weapon type"),
    "armour": Name(str, choices=tuple(ARMOUR_WP), tag="DEFAULT", doc="armour worn"),
    "wound_points": Name(int, range=(1, MAX_WP), tag="TEXT",
                         doc="Wound Points now (above down_at: the fighter stands)"),
    "max_wound_points": Name(int, range=(1, MAX_WP), tag="DEFAULT",
                             doc="Wound Points at the start (003.4 wp_formula)"),
    "armour_wp": Name(int, range=(0, 100), tag="TEXT", doc="the armour's Wound Points now"),
    "pool": Name(int, range=(0, 99), tag="TEXT", doc="Combat Pool points left (003.2)"),
    "max_pool": Name(int, range=(0, 99), tag="TEXT",
                     doc="Combat Pool at the start: floor((Co + Int) / 2) (003.2)"),
}
SITUATION_NAMES: dict[str, Name] = {
    "round": Name(int, range=(1, 10_000), tag="TEXT", doc="the round, from 1"),
    "foes_standing": Name(int, range=(1, 6), tag="TEXT",
                          doc="foes of the fighter still in the fight (1 in a duel)"),
    "allies_standing": Name(int, range=(0, 5), tag="TEXT",
                            doc="the fighter's allies still in the fight (0 in a duel)"),
}
TARGETS = {"attack": "the attack check: Co + Combat + Misc (003.2)",
           "defence": "the defence check: Fort + Combat + Misc (003.2)",
           "damage": "a hit's damage: weapon + strength modifier (003.2), at least 0"}
STATE_NAMES = frozenset({"wound_points", "armour_wp", "pool"})
"""Fighter names a fight changes (the exact game's state holds them)."""


@functools.cache
def vocabulary() -> Vocabulary:
    """pool's vocabulary (built once)."""
    names = Names.for_fighters(FIGHTER_NAMES) | Names(SITUATION_NAMES)
    return Vocabulary(names, targets=TARGETS)


def house_rules(rules: Rules) -> house.HouseRules:
    """The compiled house rules of ``rules`` (cached)."""
    return house.read(vocabulary(), rules.house_rules)


def static_value(field: str, c: Any, rules: Rules) -> Any:
    """A fighter field no fight changes, of the combatant ``c`` (words as codes)."""
    from .rules import profile

    if field in ("weapon", "armour"):
        return vocabulary().names[f"self.{field}"].code(getattr(c, field))
    if field == "max_wound_points":
        return profile(c, rules, 0).wound_points
    if field == "max_pool":
        return profile(c, rules, 0).pool
    return getattr(c, field)


def rolls(m: Modifier) -> bool:
    """Whether a row rolls dice (in its amount or its condition)."""
    return bool(m.amount.has_dice or (m.when is not None and m.when.has_dice))


def best_case(rows: tuple[Modifier, ...], to: str, env: dict[str, Any], *, n: int,
              high: bool) -> np.ndarray:
    """The modifiers on ``to`` at their best for an attacker who asks whether he can
    possibly hit (``high``: the highest total, for attack; else the lowest, for defence):
    a row without dice at its value, a row with dice at the end of its range that helps
    him, or not at all if that helps him more and its condition may fail."""
    steady = tuple(m for m in rows if m.to == to and not rolls(m))
    out = total(steady, to, env, n=n).value if steady else np.zeros(n, np.int64)
    for m in rows:
        if m.to != to or not rolls(m):
            continue
        low, top = m.amount.range or (None, None)
        bound = top if high else low
        if bound is None:
            raise ValueError(f"{m.label()}: an unbounded amount")
        holds: Any = (np.ones(n, bool) if m.when is None or m.when.has_dice
                      else m.when.evaluate(env, n=n))
        may_fail = m.when is not None
        best = max(bound, 0) if (high and may_fail) else min(bound, 0) if may_fail else bound
        out = out + np.where(holds, best, 0)
    return out


def uses(rows: house.HouseRules, *fields: str) -> bool:
    """Whether any row reads one of the fighter ``fields`` or situation names."""
    read = {name.split(".", 1)[-1] for name in names_used(rows.modifiers)}
    return bool(read & set(fields))
