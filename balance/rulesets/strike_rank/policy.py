"""The ``best`` attack-type policy: a one-round expected-value rule, fixed per matchup.

For attacker ``i`` against target ``j`` each allowed attack type is scored as

    P(hit j) x value(hit on j)  -  incoming x P(j hits i | i's own defence penalty) x value

where ``P(hit)`` is the exact d20-against-d20 probability at the static totals (skill,
style, weapon and shield modifiers, and the situation at the start of the fight), value is
:func:`.exact.hit_value` (the expected share of the victim's capacity one hit takes) and
``incoming`` is the number of foes per member of ``i``'s side.  The type with the highest
score wins (thrust on ties).  With ``hold_policy="react"`` a holder also knows the type its
target declared, whose own-defence penalty raises the first term.  The table is computed
once per matchup, so the reference and the kernel play the same policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from . import tables as T
from .exact import hit_value, p_hit
from .profile import (
    BLOCK,
    BOTH_PARRY,
    DODGE,
    SHIELD_PARRY,
    WEAPON_PARRY,
    Profile,
    profiles,
    situation_parts,
    total,
)
from .rules import Combatant, Rules

UNKNOWN = 0
"""Index of 'target's declared type unknown' in the last axis of :func:`best_type_table`."""


def berserk_at_start(p: Profile) -> bool:
    return p.can_berserk and p.c.berserk_trigger == "start"


def static_defence(dfn: Profile, att: Profile, own_penalty: int, sit: tuple[int, int]
                   ) -> tuple[int | None, dict[int, int]]:
    """The defence ``dfn`` would choose against ``att`` at the start of the fight under its
    defence policy, with its own swing / blow penalty ``own_penalty``: (kind or ``None``,
    totals of every option without the d20)."""
    rules = dfn.rules
    berserk = berserk_at_start(dfn)
    skill_sit, dodge_sit = sit
    block_pen = own_penalty if rules.swing_penalty_armour_block else 0
    options: dict[int, int] = {}

    def parry(kind: int) -> int:
        return (total(dfn.parry_parts(att, kind)) + own_penalty + skill_sit
                + total(dfn.berserker_parts(berserk, kind)))

    if dfn.can_weapon_parry:
        options[WEAPON_PARRY] = parry(WEAPON_PARRY)
    if dfn.has_shield:
        options[SHIELD_PARRY] = parry(SHIELD_PARRY)
        if dfn.can_weapon_parry and rules.parry_bonus_mode == "sum":
            options[BOTH_PARRY] = parry(BOTH_PARRY)
    if not berserk:
        options[DODGE] = (total(dfn.dodge_parts(att)) + own_penalty + dodge_sit
                          + total(dfn.berserker_parts(berserk, DODGE)))
    if dfn.can_block:
        options[BLOCK] = (total(dfn.block_parts(att)) + block_pen + skill_sit
                          + total(dfn.berserker_parts(berserk, BLOCK)))
    return choose_defence(dfn.defence_preference, options)[0], options


def static_hit(a_total: int, dfn: Profile, att: Profile, own_penalty: int,
               sit: tuple[int, int]) -> float:
    """Probability that an attack totalling ``a_total`` + d20 gets through ``dfn``'s chosen
    defence (and a double-defending Knight's Armour block after a failed parry)."""
    kind, options = static_defence(dfn, att, own_penalty, sit)
    if kind is None:
        return 1.0
    rules = dfn.rules
    p = float(p_hit(a_total - options[kind], rules.tie_rule))
    if dfn.knight_double and kind in (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY):
        block = options[BLOCK] + dfn.step(BLOCK)
        p *= float(p_hit(a_total - block, rules.tie_rule))
    return p


def choose_defence(policy: str, options: dict[int, int]) -> tuple[int | None, int]:
    """(kind, total) of the defence chosen among ``options`` (kind -> total).

    ``best``: the highest total, ties in the order parry, shield parry, dodge, block;
    ``parry`` / ``dodge`` / ``armour_block``: that kind if allowed, else the best;
    ``none``: no defence.  Kind ``None`` (total -1000): undefended.
    """
    if policy == "none" or not options:
        return None, -1000
    preferred = {"parry": (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY), "dodge": (DODGE,),
                 "armour_block": (BLOCK,)}.get(policy, ())
    pool = {k: v for k, v in options.items() if k in preferred} or options
    kind = max(sorted(pool), key=lambda k: pool[k])
    return kind, pool[kind]


def _typical_damage(p: Profile) -> int:
    """Damage modifier of the attack ``p`` is assumed to make on us: its fixed type, else
    its first allowed type (thrust where it can)."""
    t = p.types[0] if p.c.attack_policy == "best" else T.ATTACK_TYPES.index(p.c.attack_policy)
    return int(p.weapon.damage(t))  # type: ignore[arg-type]


@lru_cache(maxsize=256)
def matchup_setup(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
                  ) -> tuple[tuple[Profile, ...], tuple[tuple[int, int], ...],
                             tuple[tuple[tuple[int, ...], ...], ...]]:
    """Profiles, starting situations (skill, dodge) and the best-type table of a matchup,
    computed once and shared by the reference and the kernel."""
    ps = tuple(profiles(rules, side_a, side_b))
    everyone = [True] * len(ps)
    sits = []
    for i in range(len(ps)):
        skill, dodge = situation_parts(ps, everyone, i)
        sits.append((total(skill), total(dodge)))
    table = best_type_table(ps, sits)
    return ps, tuple(sits), tuple(tuple(tuple(row) for row in t) for t in table)


def best_type_table(ps: Sequence[Profile], sits: Sequence[tuple[int, int]]
                    ) -> list[list[list[int]]]:
    """``table[i][j][k]``: the attack type (0..2) ``i`` makes on ``j`` knowing ``j``
    declared type ``k - 1`` (``k = 0``: unknown).  Fixed-policy fighters get their type."""
    n = len(ps)
    side_sizes = [sum(1 for p in ps if p.side == s) for s in (0, 1)]

    @cache
    def value(a: int, t: int, dmg: int) -> float:
        return hit_value(ps[a], ps[t], dmg)

    table = [[[0] * 4 for _ in range(n)] for _ in range(n)]
    for i, att in enumerate(ps):
        for j, tgt in enumerate(ps):
            if att.side == tgt.side:
                continue
            if att.c.attack_policy != "best":
                fixed = T.ATTACK_TYPES.index(att.c.attack_policy)
                table[i][j] = [fixed] * 4
                continue
            rules = att.rules
            incoming = side_sizes[tgt.side] / side_sizes[att.side]
            a_total = att.attack_total(tgt) + sits[i][0]
            t_total = tgt.attack_total(att) + sits[j][0]
            for k in range(4):
                known = 0 if k == UNKNOWN or rules.attack_penalty_scope != "whole_round" \
                    else T.OWN_DEFENCE_PENALTY[k - 1]
                p_gain = static_hit(a_total, tgt, att, known, sits[j])
                scores = []
                for t in att.types:
                    gain = p_gain * value(i, j, int(att.weapon.damage(t)))  # type: ignore[arg-type]
                    p_loss = static_hit(t_total, att, tgt, T.OWN_DEFENCE_PENALTY[t], sits[i])
                    loss = incoming * p_loss * value(j, i, _typical_damage(tgt))
                    scores.append((gain - loss, -t))
                table[i][j][k] = -max(scores)[1]
    return table
