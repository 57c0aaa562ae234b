"""Exact solution of the one-zone melee duel: a Markov chain over hit points.

With one combatant a side, both in the same location from the start and neither shooting,
nobody moves: every activation is the same plan (``steady`` Steady actions, up to
``max_attacks`` Strikes with the MAP applied per attack in the activation, the spare actions
on Defend or nothing), so its damage is a fixed distribution, the sum of independent
ladder results.  The only state besides the two HP totals is whether the foe is Defending
(+Defense until its next activation), which is the same every activation after the very
first one.  The chain is run forward round by round up to ``max_rounds``; what is left is
the draw.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ...outcomes import Probabilities
from ..base import Side
from .maps import compile_map
from .reference import CAUSES
from .rules import (
    Combatant,
    Rules,
    activation_order,
    damage,
    ladder_pmf,
    melee_damage,
    start_location,
    starting_hp,
    total_defense,
)

__all__ = ["activation_damage", "solve", "unsupported"]


def unsupported(rules: Rules, side_a: Side, side_b: Side) -> str | None:
    """Why the exact solver cannot take this matchup (None if it can)."""
    if len(side_a) != 1 or len(side_b) != 1:
        return "only the 1-against-1 duel is solved exactly"
    cmap = compile_map(rules.battlefield)
    a, b = side_a[0], side_b[0]
    if start_location(a, 0, rules, cmap) != start_location(b, 1, rules, cmap):
        return ("the duellists must start in one location (initial_gap='contact', or the "
                "same zone); the approach is not solved")
    for c in (a, b):
        if c.policy == "skirmish" and c.ranged != "none":
            return f"{c.name} skirmishes with a ranged weapon (breaks away): not a melee duel"
        if c.policy in ("hold", "guard") and c.ranged != "none" and c.max_attacks == 0:
            return f"{c.name} would shoot"  # pragma: no cover - max_attacks >= 1
    return None


def activation_damage(rules: Rules, attacker: Combatant, target: Combatant,
                      target_defending: bool, commanding: bool) -> dict[int, Fraction]:
    """Exact distribution of the damage one activation of ``attacker`` deals ``target``."""
    n_actions = rules.actions_per_activation
    steadies = min(attacker.steady, n_actions - 1)
    attacks = min(attacker.max_attacks, n_actions - steadies)
    steady = min(steadies * rules.steady_bonus, rules.steady_max)
    high = rules.higher_ground_bonus if (commanding and rules.higher_ground
                                         == "any_from_commanding") else 0
    defense = total_defense(target, rules) + (rules.defend_defense_bonus if target_defending
                                              else 0)
    dmg = melee_damage(attacker, rules)
    total: dict[int, Fraction] = {0: Fraction(1)}
    for k in range(attacks):
        m = attacker.might + rules.attack_penalty(k) + high - defense + (steady if k == 0 else 0)
        one: dict[int, Fraction] = {}
        for cat, p in enumerate(ladder_pmf(m, rules.ladder)):
            if p:
                d = damage(cat, dmg, target.armor, rules)
                one[d] = one.get(d, Fraction(0)) + p
        nxt: dict[int, Fraction] = {}
        for x, px in total.items():
            for y, py in one.items():
                nxt[x + y] = nxt.get(x + y, Fraction(0)) + px * py
        total = nxt
    return total


def _defends(rules: Rules, c: Combatant) -> bool:
    n_actions = rules.actions_per_activation
    steadies = min(c.steady, n_actions - 1)
    attacks = min(c.max_attacks, n_actions - steadies)
    return c.spare == "defend" and n_actions - steadies - attacks > 0


def _chain(rules: Rules, first: Combatant, second: Combatant, first_is_a: bool,
           commanding: bool) -> tuple[np.ndarray, np.ndarray]:
    """P(first wins at round r), P(second wins at round r) for r = 1..max_rounds."""
    h1, h2 = starting_hp(first, rules), starting_hp(second, rules)
    d1_open = activation_damage(rules, first, second, False, commanding)
    d1 = activation_damage(rules, first, second, _defends(rules, second), commanding)
    d2 = activation_damage(rules, second, first, _defends(rules, first), commanding)
    p = np.zeros((h1 + 1, h2 + 1))
    p[h1, h2] = 1.0
    win1 = np.zeros(rules.max_rounds + 1)
    win2 = np.zeros(rules.max_rounds + 1)

    def hit(dist: np.ndarray, table: dict[int, Fraction], axis: int) -> np.ndarray:
        """Move the mass at HP h along ``axis`` to max(0, h - damage)."""
        if axis == 0:
            return hit(dist.T, table, 1).T
        out = np.zeros_like(dist)
        size = dist.shape[1]
        for d, pd in table.items():
            w = float(pd)
            if d == 0:
                out += w * dist
                continue
            if d < size - 1:
                out[:, 1:size - d] += w * dist[:, 1 + d:]
            out[:, 0] += w * dist[:, 1:min(d, size - 1) + 1].sum(axis=1)
        return out

    for rnd in range(1, rules.max_rounds + 1):
        p = hit(p, d1_open if rnd == 1 else d1, axis=1)
        win1[rnd] = p[1:, 0].sum()
        p[:, 0] = 0.0
        p = hit(p, d2, axis=0)
        win2[rnd] = p[0, 1:].sum()
        p[0, :] = 0.0
    if not first_is_a:
        return win2, win1
    return win1, win2


def solve(rules: Rules, side_a: Side, side_b: Side) -> Probabilities:
    """Exact win / loss / draw of a one-zone melee duel (see the module docstring)."""
    start = time.perf_counter()
    a, b = side_a[0], side_b[0]
    cmap = compile_map(rules.battlefield)
    loc = start_location(a, 0, rules, cmap)
    commanding = bool(cmap.commanding[loc])
    firsts = (0, 1) if rules.first_side == "random" else ("ab".index(rules.first_side),)
    win_a = np.zeros(rules.max_rounds + 1)
    win_b = np.zeros(rules.max_rounds + 1)
    for first in firsts:
        order = activation_order(rules, side_a, side_b, first)
        first_is_a = order[0] == 0
        lead, follow = (a, b) if first_is_a else (b, a)
        wa, wb = _chain(rules, lead, follow, first_is_a, commanding)
        win_a += wa / len(firsts)
        win_b += wb / len(firsts)
    p_a, p_b = float(win_a.sum()), float(win_b.sum())
    draw = max(0.0, 1.0 - p_a - p_b)
    rounds = np.arange(rules.max_rounds + 1)
    mean_rounds = float((rounds * (win_a + win_b)).sum() + rules.max_rounds * draw)
    details = {"method": "Markov chain over (HP A, HP B), one activation a step",
               "states": (starting_hp(a, rules) + 1) * (starting_hp(b, rules) + 1),
               "end_causes": CAUSES[0] + ", " + CAUSES[2],
               "seconds": round(time.perf_counter() - start, 4)}
    return Probabilities("zones", p_a, p_b, draw, mean_rounds, details,
                         assumptions=_assumptions(rules))


def rounds_distribution(rules: Rules, side_a: Side, side_b: Side) -> np.ndarray:
    """float ``(3, max_rounds + 1)``: P(draw / A wins / B wins and the fight lasts r rounds).

    Draws all last ``max_rounds`` rounds.  Used by the agreement tests.
    """
    a, b = side_a[0], side_b[0]
    cmap = compile_map(rules.battlefield)
    commanding = bool(cmap.commanding[start_location(a, 0, rules, cmap)])
    firsts = (0, 1) if rules.first_side == "random" else ("ab".index(rules.first_side),)
    out = np.zeros((3, rules.max_rounds + 1))
    for first in firsts:
        first_is_a = activation_order(rules, side_a, side_b, first)[0] == 0
        lead, follow = (a, b) if first_is_a else (b, a)
        wa, wb = _chain(rules, lead, follow, first_is_a, commanding)
        out[1] += wa / len(firsts)
        out[2] += wb / len(firsts)
    out[0, rules.max_rounds] = max(0.0, 1.0 - out[1:].sum())
    return out


def _assumptions(rules: Rules) -> tuple[str, ...]:
    names = ("ladder", "map", "weapon_damage", "armor_mode", "hp", "defend_defense_bonus",
             "steady_bonus", "activation", "first_side", "max_rounds")
    return tuple(f"{n}={getattr(rules, n)!r}" for n in names)
