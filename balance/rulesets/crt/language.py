"""crt's house rules: their vocabulary (declared in :mod:`.rules`, with the other rules
data) and the values the kernel, the reference and the exact chain give its names.

crt has no content rows of its own (three weapon types, and tables mapping a name to one
number), so a designer's mechanics live in the rule parameter ``house_rules``
(:mod:`balance.rulesets.house`): named rows of modifiers, each applying to every fighter.

* ``to = "score"``: added to the fighter's combat score where the Combat Results Table reads
  it (the advantage of each exchange; in a pack, the aggregate).  ``target`` is the foe the
  fighter faces first this round, paired as the scores before modifiers rank them (001.7).
* ``to = "damage"``: added to each stroke's damage after the weapon modifier, before the
  least damage and armour (001.9).  ``self`` is the striker, ``target`` the one struck.

A fighter's names (``self.`` and ``target.``) are read as they stand at the start of the
round; ``round`` is 0 in an ambush's opening exchange (001.3).
"""

from __future__ import annotations

from typing import Any

from .. import house
from .rules import (
    FIGHTER_NAMES,
    SITUATION_NAMES,
    STATE_NAMES,
    STATIC_NAMES,
    TARGETS,
    Rules,
    vocabulary,
)

__all__ = ["FIGHTER_NAMES", "SITUATION_NAMES", "STATE_NAMES", "STATIC_NAMES", "TARGETS",
           "house_rules", "vocabulary"]


def house_rules(rules: Rules) -> house.HouseRules:
    """The compiled house rules of ``rules`` (cached)."""
    return house.read(vocabulary(), rules.house_rules)


def field_of(name: str) -> str:
    """``self.health`` -> ``health``; ``round`` -> ``round``."""
    return name.split(".", 1)[-1]


def fighter_value(field: str, fighter: Any, rules: Rules) -> Any:
    """One fighter's value of ``field`` (no prefix) for a scalar environment.  ``fighter``
    is a :class:`~.rules.Combatant` (as it starts the fight) or anything with ``c`` (its
    combatant), ``weapon``, ``shield`` and ``health`` (as it stands now; the reference's
    fighters)."""
    from .rules import Combatant, combat_score, starting_health

    c = fighter if isinstance(fighter, Combatant) else fighter.c
    start = starting_health(c, rules)
    weapon, shield, health = ((c.weapon_type, c.shield, start) if fighter is c
                              else (fighter.weapon, fighter.shield, fighter.health))
    values = {"weapon": weapon, "shield": shield, "health": health, "max_health": start,
              "wounds": start - health}
    if field == "score":
        return combat_score(c, rules, weapon)
    return values[field] if field in values else getattr(c, field)


def scalar_env(names: Any, me: Any, foe: Any, rules: Rules, *, round_number: int | None,
               foes_engaged: int) -> dict[str, Any]:
    """The values of ``names`` for one fighter ``me`` facing ``foe`` (see
    :func:`fighter_value`); ``round_number`` ``None`` where no row may read it."""
    env: dict[str, Any] = {}
    for name in names:
        role, _, rest = name.partition(".")
        if name == "round":
            if round_number is None:
                raise ValueError("this environment has no round")
            env[name] = round_number
        elif name == "foes_engaged":
            env[name] = foes_engaged
        else:
            env[name] = fighter_value(rest, me if role == "self" else foe, rules)
    return env


# --- the exact solver's terms (see .exact) -----------------------------------------------------
MAX_DICE_STATES = 20_000
"""Most health states the exact solver reads damage modifiers that roll dice in (each
state's distribution is worked out on its own)."""

Extra = tuple[tuple[int, float], ...]
"""A damage modifier's distribution: ``(value, probability)`` pairs."""


def _rolls(m: Any) -> bool:
    return bool(m.amount.has_dice or (m.when is not None and m.when.has_dice))


def unsupported_rows(house: house.HouseRules, n_states: int) -> str | None:
    """Why the plain duel's chain cannot hold these house rules, or ``None``.  It holds
    every name (the fighters' fields and table states are fixed in a plain duel, health and
    wounds are its states, rounds are iterated one by one, foes_engaged is 1), damage
    modifiers with dice (their distribution), but not a score that rolls dice, nor an
    effect (its condition's rounds and a shield set are not among its states)."""
    for e in house.effects:
        return (f"house rule {e.name!r} has an effect ({e.line()}); the chain holds health "
                "only, not the rounds a fighter may only defend or his shield (simulate it "
                "with duel)")
    for m in house.on("score"):
        if _rolls(m):
            return (f"house rule {m.name!r} rolls dice in a score modifier ({m.label()}); "
                    "the chain holds one score per state (simulate it with duel)")
    rolling = [m for m in house.on("damage") if _rolls(m)]
    if rolling and n_states > MAX_DICE_STATES and {"health", "wounds"} & {
            field_of(n) for n in house.names}:
        return (f"house rule {rolling[0].name!r} rolls dice in a damage modifier that reads "
                f"health: {n_states:,} states exceed the {MAX_DICE_STATES:,} the solver "
                "reads such rows in")
    return None


def best_play_unsupported(house: house.HouseRules) -> str | None:
    """Why exact best play cannot hold these house rules, or ``None``: its stochastic game
    is stationary per health state, with one declaration order (set by the advantage)."""
    for m in house.modifiers:
        if "round" in names_of(m):
            return (f"house rule {m.name!r} reads round; best play solves a game the same "
                    "in every round (simulate it, or solve exact with the fighters' policies)")
        if m.to == "score" and {"health", "wounds"} & {field_of(n) for n in names_of(m)}:
            return (f"house rule {m.name!r} changes the score with health; best play needs "
                    "one declaration order (the deficit side's) in every state")
    return None


def names_of(m: Any) -> tuple[str, ...]:
    from ...language import names_used

    return names_used(m)


def state_terms(rows: house.HouseRules, a: Any, b: Any, rules: Rules, health_a: Any,
                health_b: Any, round_number: int) -> tuple[Any, list[tuple[int, Extra, Extra]]]:
    """The house rules in each state of the plain duel (A at ``health_a``, B at
    ``health_b``, arrays over states) in round ``round_number``: an int array giving each
    state's kind, and the kinds, each ``(A's score modifier - B's, the distribution of A's
    damage modifier, of B's)``."""
    import numpy as np

    from ...language import total
    from ...language.rows import total_distribution

    n_states = len(health_a)
    if not rows.modifiers:
        return np.zeros(n_states, np.int64), [(0, ((0, 1.0),), ((0, 1.0),))]
    names = rows.names
    env_a = _state_env(names, a, b, rules, health_a, health_b, round_number)
    env_b = _state_env(names, b, a, rules, health_b, health_a, round_number)
    score = (total(rows.on("score"), "score", env_a, n=n_states).value
             - total(rows.on("score"), "score", env_b, n=n_states).value)
    damage = rows.on("damage")
    if not any(_rolls(m) for m in damage):
        d_a = total(damage, "damage", env_a, n=n_states).value
        d_b = total(damage, "damage", env_b, n=n_states).value
        keys, group = np.unique(np.stack([score, d_a, d_b], axis=1), axis=0,
                                return_inverse=True)
        kinds: list[tuple[int, Extra, Extra]] = [(int(s), ((int(x), 1.0),), ((int(y), 1.0),))
                                                 for s, x, y in keys]
        return group.ravel(), kinds
    index: dict[tuple[int, Extra, Extra], int] = {}
    group = np.empty(n_states, np.int64)
    for state in range(n_states):
        extras = []
        for env in (env_a, env_b):
            one = {k: (v[state] if isinstance(v, np.ndarray) else v) for k, v in env.items()}
            law = total_distribution(damage, "damage", one)
            extras.append(tuple((int(v), float(p)) for v, p in law.items()))
        key = (int(score[state]), extras[0], extras[1])
        group[state] = index.setdefault(key, len(index))
    return group, list(index)


def _state_env(names: Any, me: Any, foe: Any, rules: Rules, my_health: Any, foe_health: Any,
               round_number: int) -> dict[str, Any]:
    """Arrays over the chain's states (health) and scalars (the rest), words as codes."""
    from .rules import starting_health

    env: dict[str, Any] = {}
    declared = vocabulary().names
    for name in names:
        role, _, field_ = name.partition(".")
        c, health = (me, my_health) if role == "self" else (foe, foe_health)
        if name == "round":
            env[name] = round_number
        elif name == "foes_engaged":
            env[name] = 1
        elif field_ == "health":
            env[name] = health
        elif field_ == "wounds":
            env[name] = starting_health(c, rules) - health
        else:
            value = fighter_value(field_, c, rules)
            env[name] = declared[name].encode(value) if declared[name].kind == "str" else value
    return env
