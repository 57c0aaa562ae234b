"""pool's house rules: their vocabulary (declared in :mod:`.rules`, with the other rules
data) and the values the kernel, the reference and the exact game give its names.

pool has no content rows of its own (its weapon and armour tables map a name to one
number), so a designer's mechanics live in the rule parameter ``house_rules``
(:mod:`balance.rulesets.house`): named rows of modifiers and effects, each applying to every
fighter.

* ``to = "attack"``: added to the attack check; ``self`` is the attacker, ``target`` the
  defender (003.2).
* ``to = "defence"``: added to the defence check; ``self`` is the defender, ``target`` the
  attacker.
* ``to = "damage"``: added to a hit's damage (weapon + strength modifier, + the margin
  option), which is then at least 0; ``self`` is the attacker.

Effects hang on an attack's outcome, ``hit`` (after its damage) or ``miss`` (after any
margin-of-failure damage), ``self`` the attacker and ``target`` the defender; they set a
fighter's ``pool`` or ``armour_wp``.  Every effect of an outcome reads the names as they
stand then (one reading), and each takes hold in the order written; a blow that ends the
fight takes no effect.  The exact game refuses them (:func:`.exact._house_ranges`).

Modifiers' names are read when the attack is declared.  The bidding policies read the lead with the
modifiers in it, and "can possibly hit" (the stalemate rule, 003.4, and the turn policies)
counts them too: each row at its value, or, if it rolls dice, at its best for the attacker.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...language import Modifier, names_used, total
from .. import house
from .rules import FIGHTER_NAMES, SITUATION_NAMES, STATE_NAMES, TARGETS, Rules, vocabulary

__all__ = ["FIGHTER_NAMES", "SITUATION_NAMES", "STATE_NAMES", "TARGETS", "best_case",
           "house_rules", "vocabulary"]


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
