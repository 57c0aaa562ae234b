"""Exact solution of the one-zone melee duel: a Markov chain over hit points.

With one combatant a side, both in the same location from the start and neither shooting,
nobody moves: every activation is the same plan (``steady`` Steady actions, up to
``max_attacks`` Strikes with the MAP applied per attack in the activation, the spare actions
on Defend or nothing), so its damage is a fixed distribution, the sum of independent
ladder results.  The only state besides the two HP totals is whether the foe is Defending
(+Defence until its next activation), which is the same every activation after the very
first one.  The chain is run forward round by round up to ``max_rounds``; what is left is
the draw.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...language.rows import names_used, total_distribution
from ...outcomes import Probabilities
from ..base import Side
from .maps import compile_map
from .rules import (
    Combatant,
    Rules,
    activation_order,
    damage,
    ladder_pmf,
    melee_damage,
    start_location,
    starting_hp,
    total_defence,
)
from .weapons import WeaponRow

__all__ = ["ACTIONS", "Plan", "activation_damage", "best_play", "best_play_unsupported",
           "own_plan", "plan_damage", "plans", "solve", "unsupported"]


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
        if c.policy in ("hold", "guard") and c.ranged != "none" and not c.melee_first:
            return (f"{c.name} would shoot in contact (melee_first=false): the exact chain "
                    "plays Strikes only")
    return rows_unsupported(rules, a, b, rounds=True)


FIXED_NAMES = frozenset(
    f"{role}.{field}" for role in ("self", "target")
    for field in ("might", "agility", "defence", "armour", "speed", "shield", "large",
                  "weapon", "ranged", "cover", "commanding", "hazard", "chokepoint", "moved",
                  "defending", "slowed", "entangled")) | {
    "distance", "attack_number", "foes_engaged", "allies_engaged", "foes_standing",
    "allies_standing"}
"""Names the one-zone duel fixes per matchup or per attack (nobody moves; one foe each;
the Defend state and the attack's place in the plan are the chain's), so its rows are
solved exactly; ``round`` is the chain's step in :func:`solve`."""


def rows_unsupported(rules: Rules, a: Combatant, b: Combatant, *, rounds: bool
                     ) -> str | None:
    """Why the duel's weapon rows are beyond the exact chain, naming the row and the name
    (None if they are within it).  ``rounds``: the chain reads ``round`` (not best play)."""
    if not rules.has_rows:
        return None
    fixed = FIXED_NAMES | ({"round"} if rounds else set())
    inflicted = {e.inflict for c in (a, b) for w in _arms(c)
                 for e in rules.weapon_row(w).effects if e.inflict}
    for c in (a, b):
        for weapon in _arms(c):
            row = rules.weapon_row(weapon)
            # effects touch the duel only through a condition a modifier reads (checked
            # here) or ammunition (a Shoot: best play refuses it); nobody moves
            for k, modifier in enumerate(row.modifiers):
                if modifier.to == "movement":
                    continue
                for name in names_used(modifier):
                    condition = name.partition(".")[2]
                    if name not in fixed or condition in inflicted:
                        why = ("changes as the fight goes" if name not in fixed else
                               f"changes when a row inflicts {condition}")
                        return (f"weapons.{weapon}.modifiers[{k}] reads {name}, which {why}: "
                                "not part of the exact duel's state (use duel or matchups: "
                                "Monte Carlo)")
    return None


def _arms(c: Combatant) -> tuple[str, ...]:
    return (c.weapon,) if c.ranged == "none" else (c.weapon, c.ranged)


def duel_env(rules: Rules, me: Combatant, foe: Combatant, zone: _Zone, number: int,
             me_defending: bool, foe_defending: bool, rnd: int = 1) -> dict[str, Any]:
    """The names of ``me`` (self) attacking or defending against ``foe`` (target) in the
    one-zone duel, as ``reference._Fight.env`` reads them there."""
    env: dict[str, Any] = {"round": rnd, "attack_number": number, "distance": 0,
                           "foes_engaged": 1, "allies_engaged": 0, "foes_standing": 1,
                           "allies_standing": 0}
    for role, c, defending in (("self", me, me_defending), ("target", foe, foe_defending)):
        env.update({f"{role}.might": c.might, f"{role}.agility": c.agility,
                    f"{role}.defence": total_defence(c, rules), f"{role}.armour": c.armour,
                    f"{role}.speed": c.speed, f"{role}.shield": c.shield,
                    f"{role}.large": c.large, f"{role}.weapon": c.weapon,
                    f"{role}.ranged": c.ranged, f"{role}.slowed": c.slowed,
                    f"{role}.entangled": c.entangled, f"{role}.defending": defending,
                    f"{role}.moved": False, f"{role}.cover": zone.cover,
                    f"{role}.commanding": zone.commanding, f"{role}.hazard": zone.hazard,
                    f"{role}.chokepoint": zone.chokepoint})
    return env


def best_play_unsupported(rules: Rules, side_a: Side, side_b: Side) -> str | None:
    """Why :func:`best_play` cannot take this matchup (None if it can): it solves the duel
    of two fighters in one location, whatever their policy fields (best play replaces
    them; neither side leaves the zone)."""
    if len(side_a) != 1 or len(side_b) != 1:
        return "exact best play solves the 1-against-1 duel only"
    cmap = compile_map(rules.battlefield)
    if start_location(side_a[0], 0, rules, cmap) != start_location(side_b[0], 1, rules, cmap):
        return ("exact best play needs the duellists in one location from the start "
                "(initial_gap='contact', or the same zone); the approach is not solved")
    for c in (side_a[0], side_b[0]):
        if rules.is_area(c.ranged):
            return (f"{c.name}'s {c.ranged} is an area weapon: in contact it would catch the "
                    "shooter too, which the duel's plans do not model")
        if c.ranged != "none" and rules.weapon_row(c.ranged).ammunition is not None:
            return (f"weapons.{c.ranged} carries ammunition, which is not part of the best-"
                    "play game's state")
    return rows_unsupported(rules, side_a[0], side_b[0], rounds=False)


def activation_damage(rules: Rules, attacker: Combatant, target: Combatant,
                      target_defending: bool, commanding: bool | _Zone, rnd: int = 1
                      ) -> dict[int, Fraction]:
    """Exact distribution of the damage one activation of ``attacker`` deals ``target``
    under its own policy fields (``steady`` Steadies, then up to ``max_attacks`` Strikes)."""
    n_actions = rules.actions_per_activation
    steadies = min(attacker.steady, n_actions - 1)
    attacks = min(attacker.max_attacks, n_actions - steadies)
    steady = min(steadies * rules.steady_bonus, rules.steady_max)
    plan = tuple((STRIKE, steady if k == 0 else 0) for k in range(attacks))
    zone = commanding if isinstance(commanding, _Zone) else _Zone(commanding, False)
    return plan_damage(rules, attacker, target, plan, target_defending, zone, rnd)


STRIKE, SHOOT = "Strike", "Shoot"


@dataclass(frozen=True)
class _Zone:
    """The tags of the duel's zone that can touch an attack in contact (002.5)."""

    commanding: bool
    cover: bool
    hazard: bool = False
    chokepoint: bool = False

    @classmethod
    def of(cls, rules: Rules, c: Combatant) -> _Zone:
        """The tags of the zone ``c`` (side A) starts in: the duel's zone."""
        cmap = compile_map(rules.battlefield)
        loc = start_location(c, 0, rules, cmap)
        return cls(bool(cmap.commanding[loc]), bool(cmap.cover[loc]), bool(cmap.hazard[loc]),
                   bool(cmap.chokepoint[loc]))


def attack_modifier(rules: Rules, attacker: Combatant, target: Combatant, kind: str,
                    index: int, steady: int, target_defending: bool, zone: _Zone) -> int:
    """Net modifier of attack number ``index`` (0-based) of an activation in contact:
    attribute + MAP + Steady + position - the target's Defence (002.5, 002.8).

    A Strike meets the Defend bonus; a Shoot does not (Defend is +Defence vs melee), and
    meets the zone's cover only under ``cover_same_zone`` (002.1).  Both sides stand in the
    zone from the start, so higher ground counts only under ``any_from_commanding``
    (002.7.7), and nobody charges, outnumbers or moves.
    """
    high = (rules.higher_ground_bonus if zone.commanding
            and rules.higher_ground == "any_from_commanding" else 0)
    if kind == STRIKE:
        defence = total_defence(target, rules) + (rules.defend_defence_bonus
                                                  if target_defending else 0)
        return attacker.might + rules.attack_penalty(index) + steady + high - defence
    cover = rules.cover_penalty if zone.cover and rules.cover_same_zone else 0
    return (attacker.agility + rules.attack_penalty(index) + steady + high + cover
            - total_defence(target, rules))


def plan_damage(rules: Rules, attacker: Combatant, target: Combatant,
                attacks: tuple[tuple[str, int], ...], target_defending: bool, zone: _Zone,
                rnd: int = 1) -> dict[int, Fraction]:
    """Exact distribution of the damage of one activation's ``attacks`` ((kind, Steady
    bonus) in order, the MAP by position), the sum of independent ladder results; the
    weapons' rows (their dice their own) in round ``rnd``."""
    total: dict[int, Fraction] = {0: Fraction(1)}
    for k, (kind, steady) in enumerate(attacks):
        m = attack_modifier(rules, attacker, target, kind, k, steady, target_defending, zone)
        weapon = (melee_damage(attacker, rules) if kind == STRIKE
                  else rules.ranged_damage(attacker.ranged))
        row = rules.weapon_row(attacker.weapon if kind == STRIKE else attacker.ranged)
        one: dict[int, Fraction] = {}
        for add, more, q in _row_amounts(rules, row, attacker, target, zone, k + 1,
                                         target_defending, rnd):
            for cat, p in enumerate(ladder_pmf(m + add, rules.ladder)):
                if p:
                    d = damage(cat, max(0, weapon + more), target.armour, rules)
                    one[d] = one.get(d, Fraction(0)) + p * q
        nxt: dict[int, Fraction] = {}
        for x, px in total.items():
            for y, py in one.items():
                nxt[x + y] = nxt.get(x + y, Fraction(0)) + px * py
        total = nxt
    return total


def _row_amounts(rules: Rules, row: WeaponRow, attacker: Combatant, target: Combatant,
                 zone: _Zone, number: int, target_defending: bool, rnd: int
                 ) -> list[tuple[int, int, Fraction]]:
    """(attack added, damage added, probability) of the rows on one attack: the weapon's
    attack and damage modifiers less the target's defence modifiers (002.8 + rows)."""
    if not rules.has_rows:
        return [(0, 0, Fraction(1))]
    env = duel_env(rules, attacker, target, zone, number, False, target_defending, rnd)
    guard_env = duel_env(rules, target, attacker, zone, number, target_defending, False, rnd)
    attack = total_distribution(row.mods("attack"), "attack", env)
    guard = total_distribution(
        [m for w in _arms(target) for m in rules.weapon_row(w).mods("defence")], "defence",
        guard_env)
    more = total_distribution(row.mods("damage"), "damage", env)
    out: dict[tuple[int, int], Fraction] = {}
    for (x, p), (y, q), (z, r) in itertools.product(attack.items(), guard.items(),
                                                    more.items()):
        out[(x - y, z)] = out.get((x - y, z), Fraction(0)) + p * q * r
    return [(x, z, p) for (x, z), p in out.items()]


def _reads_round(rules: Rules, *fighters: Combatant) -> bool:
    return rules.has_rows and any(
        "round" in names_used(rules.weapon_row(w).modifiers)
        for c in fighters for w in _arms(c))


def _defends(rules: Rules, c: Combatant) -> bool:
    n_actions = rules.actions_per_activation
    steadies = min(c.steady, n_actions - 1)
    attacks = min(c.max_attacks, n_actions - steadies)
    return c.spare == "defend" and n_actions - steadies - attacks > 0


def _chain(rules: Rules, first: Combatant, second: Combatant, first_is_a: bool,
           zone: _Zone) -> tuple[np.ndarray, np.ndarray]:
    """P(first wins at round r), P(second wins at round r) for r = 1..max_rounds."""
    h1, h2 = starting_hp(first, rules), starting_hp(second, rules)
    by_round = _reads_round(rules, first, second)

    def damages(rnd: int) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
        """The two activations' damage in round ``rnd`` (the same every round after the
        first, unless a row reads the round)."""
        at = rnd if by_round else min(rnd, 2)
        if at not in cache:
            d1 = activation_damage(rules, first, second,
                                   rnd > 1 and _defends(rules, second), zone, at)
            cache[at] = (d1, activation_damage(rules, second, first, _defends(rules, first),
                                               zone, at))
        return cache[at]

    cache: dict[int, tuple[dict[int, Fraction], dict[int, Fraction]]] = {}
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
        d1, d2 = damages(rnd)
        p = hit(p, d1, axis=1)
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
    zone = _Zone.of(rules, a)
    firsts = (0, 1) if rules.first_side == "random" else ("ab".index(rules.first_side),)
    win_a = np.zeros(rules.max_rounds + 1)
    win_b = np.zeros(rules.max_rounds + 1)
    for first in firsts:
        order = activation_order(rules, side_a, side_b, first)
        first_is_a = order[0] == 0
        lead, follow = (a, b) if first_is_a else (b, a)
        wa, wb = _chain(rules, lead, follow, first_is_a, zone)
        win_a += wa / len(firsts)
        win_b += wb / len(firsts)
    p_a, p_b = float(win_a.sum()), float(win_b.sum())
    draw = max(0.0, 1.0 - p_a - p_b)
    rounds = np.arange(rules.max_rounds + 1)
    mean_rounds = float((rounds * (win_a + win_b)).sum() + rules.max_rounds * draw)
    details = {"method": "Markov chain over (HP A, HP B), one activation a step",
               "states": (starting_hp(a, rules) + 1) * (starting_hp(b, rules) + 1),
               "end_causes": "down, max_rounds",
               "seconds": round(time.perf_counter() - start, 4)}
    return Probabilities("zones", p_a, p_b, draw, mean_rounds, details,
                         assumptions=_assumptions(rules))


def rounds_distribution(rules: Rules, side_a: Side, side_b: Side) -> np.ndarray:
    """float ``(3, max_rounds + 1)``: P(draw / A wins / B wins and the fight lasts r rounds).

    Draws all last ``max_rounds`` rounds.  Used by the agreement tests.
    """
    a, b = side_a[0], side_b[0]
    zone = _Zone.of(rules, a)
    firsts = (0, 1) if rules.first_side == "random" else ("ab".index(rules.first_side),)
    out = np.zeros((3, rules.max_rounds + 1))
    for first in firsts:
        first_is_a = activation_order(rules, side_a, side_b, first)[0] == 0
        lead, follow = (a, b) if first_is_a else (b, a)
        wa, wb = _chain(rules, lead, follow, first_is_a, zone)
        out[1] += wa / len(firsts)
        out[2] += wb / len(firsts)
    out[0, rules.max_rounds] = max(0.0, 1.0 - out[1:].sum())
    return out


def _assumptions(rules: Rules) -> tuple[str, ...]:
    names = ("ladder", "map", "weapon_damage", "armour_mode", "hp", "defend_defence_bonus",
             "steady_bonus", "activation", "first_side", "max_rounds")
    return tuple(f"{n}={getattr(rules, n)!r}" for n in names)


# --- best play: each activation's plan chosen by its side ------------------------------------

ACTIONS = (STRIKE, SHOOT, "Steady", "Reload", "Defend", "Wait")
"""Every action a duellist in contact can take (002.8): a Strike (melee), a Shoot (a ranged
weapon at point-blank), Steady (+``steady_bonus`` to its next attack this activation),
Reload (a weapon in ``reloading``), Defend (+``defend_defence_bonus`` against melee until
its next activation), Wait.  Moving, Disengaging and the rest have nowhere to go in a
one-zone duel."""

STALEMATE_ROUNDS = 2
"""Idle rounds (nobody does anything but Defend or Wait) that end a fight as a stalemate
(the reference's rule: a fixed point of the policies)."""


@dataclass(frozen=True)
class Plan:
    """One activation's actions, chosen when the activation begins.

    ``attacks`` are (kind, Steady bonus) in order (the MAP goes by position);
    ``defends``: at least one Defend; ``active``: anything but Defend and Wait (an
    activation that is not active counts toward a stalemate); ``loaded_after``: the ranged
    weapon's state at the end (always true for a weapon that needs no Reload).
    """

    actions: tuple[str, ...]
    attacks: tuple[tuple[str, int], ...]
    defends: bool
    active: bool
    loaded_after: bool

    @property
    def name(self) -> str:
        return ", ".join(self.actions)


def plan_of(rules: Rules, c: Combatant, actions: tuple[str, ...], loaded: bool
            ) -> Plan | None:
    """The :class:`Plan` of ``actions`` for ``c`` starting with its weapon ``loaded``;
    ``None`` if an action is not open to it (a Shoot without a ranged weapon or unloaded,
    a Reload of a weapon that needs none)."""
    reloads = rules.reloads(c.ranged)
    steady = 0
    attacks: list[tuple[str, int]] = []
    for action in actions:
        if action == STRIKE:
            attacks.append((STRIKE, steady))
            steady = 0
        elif action == SHOOT:
            if c.ranged == "none" or not loaded:
                return None
            attacks.append((SHOOT, steady))
            steady = 0
            loaded = not reloads
        elif action == "Steady":
            steady = min(steady + rules.steady_bonus, rules.steady_max)
        elif action == "Reload":
            if not reloads:
                return None
            loaded = True
        elif action not in ("Defend", "Wait"):
            raise ValueError(f"unknown action {action!r}; actions: {', '.join(ACTIONS)}")
    return Plan(tuple(actions), tuple(attacks), "Defend" in actions,
                any(a not in ("Defend", "Wait") for a in actions), loaded)


def plans(rules: Rules, c: Combatant, loaded: bool = True) -> tuple[Plan, ...]:
    """Every plan open to ``c`` at the start of an activation, one per distinct effect.

    Plans with the same attacks (kinds, Steady bonuses, order), Defend, activity and
    weapon state play alike; the first in the order of :data:`ACTIONS` names them (so
    Defend and Wait come last: "Strike, Strike, Defend").
    """
    seen: dict[tuple, Plan] = {}
    for actions in itertools.product(ACTIONS, repeat=rules.actions_per_activation):
        plan = plan_of(rules, c, actions, loaded)
        if plan is not None:
            seen.setdefault((plan.attacks, plan.defends, plan.active, plan.loaded_after), plan)
    return tuple(seen.values())


def own_plan(rules: Rules, c: Combatant, loaded: bool = True) -> Plan:
    """The plan ``c``'s policy fields play in a contact duel, action by action as
    ``reference.melee_plan`` / ``ranged_plan`` choose them: a Reload when the weapon is
    empty, Steady while no attack is made and an action is left to attack, up to
    ``max_attacks`` attacks (Shoots when it prefers its ranged weapon, ``hold`` or
    ``guard`` with ``melee_first`` false), then the spare action (Defend at most
    ``defends`` times, then Wait)."""
    shoots = c.ranged != "none" and c.policy in ("hold", "guard") and not c.melee_first
    reloads = rules.reloads(c.ranged)
    n = rules.actions_per_activation
    actions: list[str] = []
    attacks = steadies = defends = 0
    ready = loaded
    for k in range(n):
        if shoots and reloads and not ready:
            actions.append("Reload")
            ready = True
        elif attacks == 0 and steadies < c.steady and n - k >= 2:
            actions.append("Steady")
            steadies += 1
        elif attacks < c.max_attacks:
            actions.append(SHOOT if shoots else STRIKE)
            attacks += 1
            ready = not (shoots and reloads)
        elif c.spare == "defend" and defends < c.defends:
            actions.append("Defend")
            defends += 1
        else:
            actions.append("Wait")
    plan = plan_of(rules, c, tuple(actions), loaded)
    assert plan is not None
    return plan


def _transition(dist: dict[int, Fraction], hp: int) -> np.ndarray:
    """``T[h, h']``: the chance a target at ``h`` HP is left at ``h'`` (0 = Down)."""
    out = np.zeros((hp + 1, hp + 1))
    out[0, 0] = 1.0
    levels = np.arange(1, hp + 1)
    for d, p in dist.items():
        np.add.at(out, (levels, np.maximum(levels - d, 0)), float(p))
    return out


@dataclass
class _Order:
    """One activation order's solved game (``first``: the fighter who activates first).

    ``values[r]``: A's value in every state with ``r`` rounds left, ``(keys + 2, HP A + 1,
    HP B + 1)`` (the last two slots: a stalemate and the round cap, both draws);
    ``choices[r]``: the plan index the mover picks there (-1 where someone is Down).
    """

    first: int
    values: np.ndarray
    choices: np.ndarray


@dataclass
class _Group:
    """The states of one position in the round whose mover has one weapon state: their
    key indices, the plans open to the mover, each plan's target transition and the slot
    each plan leads to (a key index, or a draw slot) -- in the round and, for the last
    round, at the cap."""

    position: int
    mover: int
    keys: np.ndarray          # (K,) key indices
    plans: tuple[Plan, ...]
    mats: np.ndarray          # (K, P, H + 1, H + 1): target HP transition
    successor: np.ndarray     # (K, P) slot the plan leads to
    successor_last: np.ndarray  # (K, P) the same in the last round (the cap)


class _BestPlay:
    """The contact duel as a zero-sum stochastic game (see :func:`best_play`)."""

    def __init__(self, rules: Rules, side_a: Side, side_b: Side, draw_worth: float,
                 plan_sets: Any = None) -> None:
        self.rules = rules
        self.fighters = (side_a[0], side_b[0])
        self.draw_worth = draw_worth
        cmap = compile_map(rules.battlefield)
        loc = start_location(self.fighters[0], 0, rules, cmap)
        self.zone = _Zone(bool(cmap.commanding[loc]), bool(cmap.cover[loc]),
                          bool(cmap.hazard[loc]), bool(cmap.chokepoint[loc]))
        self.hp = tuple(starting_hp(c, rules) for c in self.fighters)
        self.reloads = tuple(rules.reloads(c.ranged) for c in self.fighters)
        self.loads = tuple((False, True) if r else (True,) for r in self.reloads)
        # plans[f][loaded] and the target's HP transition of each, [f][loaded][defending]
        self.plans: list[dict[bool, tuple[Plan, ...]]] = []
        self.trans: list[dict[bool, dict[bool, np.ndarray]]] = []
        for f, c in enumerate(self.fighters):
            target = self.fighters[1 - f]
            by_load: dict[bool, tuple[Plan, ...]] = {}
            trans: dict[bool, dict[bool, np.ndarray]] = {}
            cache: dict[tuple, np.ndarray] = {}
            for loaded in self.loads[f]:
                chosen = (plans(rules, c, loaded) if plan_sets is None
                          else tuple(plan_sets[f](loaded)))
                by_load[loaded] = chosen
                trans[loaded] = {}
                for defending in (False, True):
                    mats = []
                    for plan in chosen:
                        key = (plan.attacks, defending)
                        if key not in cache:
                            cache[key] = _transition(
                                plan_damage(rules, c, target, plan.attacks, defending,
                                            self.zone), self.hp[1 - f])
                        mats.append(cache[key])
                    trans[loaded][defending] = np.stack(mats)
            self.plans.append(by_load)
            self.trans.append(trans)
        self.keys = self._keys(0) + self._keys(1)
        self.index = {key: n for n, key in enumerate(self.keys)}
        self.stalemate_slot, self.cap_slot = len(self.keys), len(self.keys) + 1
        self.start = self.index[(0, False, 0, False, True, True)]

    def _keys(self, position: int) -> list[tuple]:
        """State flags at an activation: (position in the round, the target Defending,
        idle rounds so far, the round active so far, A loaded, B loaded).  At the second
        activation an active round resets the idle count, so it is kept as 0."""
        flags = [(idle, False) for idle in range(STALEMATE_ROUNDS)]
        if position == 1:
            flags.append((0, True))
        return [(position, defending, idle, active, la, lb)
                for defending in (False, True) for idle, active in flags
                for la in self.loads[0] for lb in self.loads[1]]

    def successor(self, key: tuple, mover: int, plan: Plan, last_round: bool) -> int:
        """The slot ``plan`` leads to unless it downs the target: a key of this round or
        the next, or the stalemate or cap slot (002: the reference's end rules)."""
        position, _, idle, active, la, lb = key
        la, lb = (plan.loaded_after, lb) if mover == 0 else (la, plan.loaded_after)
        if position == 0:
            round_active = plan.active
            return self.index[(1, plan.defends, 0 if round_active else idle, round_active,
                               la, lb)]
        idle = 0 if (active or plan.active) else idle + 1
        if idle >= STALEMATE_ROUNDS:
            return self.stalemate_slot
        if last_round:
            return self.cap_slot
        return self.index[(0, plan.defends, idle, False, la, lb)]

    def groups(self, first: int) -> list[_Group]:
        """The states by position (the second activation first: the first reads it) and
        by the mover's weapon state."""
        out = []
        for position in (1, 0):
            mover = first if position == 0 else 1 - first
            for loaded in self.loads[mover]:
                keys = [k for k in self.keys if k[0] == position
                        and (k[4] if mover == 0 else k[5]) == loaded]
                chosen = self.plans[mover][loaded]
                mats = np.stack([self.trans[mover][loaded][k[1]] for k in keys])
                succ = np.array([[self.successor(k, mover, p, False) for p in chosen]
                                 for k in keys])
                last = np.array([[self.successor(k, mover, p, True) for p in chosen]
                                 for k in keys])
                out.append(_Group(position, mover, np.array([self.index[k] for k in keys]),
                                  chosen, mats, succ, last))
        return out

    def solve_order(self, first: int) -> _Order:
        """Backward induction over the rounds left (``max_rounds`` ... 1)."""
        cap = self.rules.max_rounds
        shape = (self.hp[0] + 1, self.hp[1] + 1)
        n_slots = len(self.keys) + 2
        values = np.zeros((cap + 1, n_slots, *shape))
        values[:, self.stalemate_slot:] = self.draw_worth
        choices = np.full((cap + 1, len(self.keys), *shape), -1, np.int16)
        live = np.zeros(shape, bool)
        live[1:, 1:] = True
        groups = self.groups(first)
        for r in range(1, cap + 1):
            for g in groups:
                succ = g.successor_last if r == 1 else g.successor
                # the first activation leads to the second of this round, the second to
                # the next round (r - 1 rounds left) or a draw
                source = values[r] if g.position == 0 else values[r - 1]
                nxt = source[succ]                    # (K, P, HA + 1, HB + 1)
                if g.mover == 0:    # A strikes B: B Down is A's win
                    nxt[..., :, 0] = 1.0
                    ev = nxt @ g.mats.swapaxes(-1, -2)
                    best = ev.max(axis=1)
                    near = ev >= best[:, None] - 1e-12
                else:               # B strikes A: A Down is A's loss
                    nxt[..., 0, :] = 0.0
                    ev = g.mats @ nxt
                    best = ev.min(axis=1)
                    near = ev <= best[:, None] + 1e-12
                # ties go to the first plan listed (so the choice is reproducible)
                choices[r, g.keys] = np.where(live, near.argmax(axis=1), -1)
                best[:, 0, :] = 0.0
                best[:, :, 0] = 1.0
                values[r, g.keys] = best
        return _Order(first, values, choices)

    def chain(self, order: _Order) -> dict[str, Any]:
        """Play the solved game forward from the start: the chance of each ending by
        round, and how often each state is visited under each plan (for the table)."""
        cap = self.rules.max_rounds
        shape = (self.hp[0] + 1, self.hp[1] + 1)
        n_slots = len(self.keys) + 2
        ends = {name: np.zeros(cap + 1) for name in ("a", "b", "stalemate")}
        capped = 0.0
        groups = self.groups(order.first)
        width = max(len(g.plans) for g in groups)
        visits = np.zeros((len(self.keys), width, *shape))
        furthest = np.zeros((len(self.keys), width, *shape), np.int16)
        mass = np.zeros((n_slots, *shape))
        mass[self.start, self.hp[0], self.hp[1]] = 1.0
        for r in range(cap, 0, -1):
            rnd = cap - r + 1
            later = np.zeros((n_slots, *shape))
            for g in reversed(groups):  # the first activation, then the second
                here = mass[g.keys]
                if not here.any():
                    continue
                choice = order.choices[r, g.keys]
                plan_ids = np.arange(len(g.plans))[None, :, None, None]
                part = np.where(choice[:, None] == plan_ids, here[:, None], 0.0)
                seen = part > 0
                visits[g.keys, :len(g.plans)] += part
                first_seen = seen & (furthest[g.keys, :len(g.plans)] == 0)
                furthest[g.keys, :len(g.plans)] += (first_seen * r).astype(np.int16)
                if g.mover == 0:
                    after = part @ g.mats
                    ends["a"][rnd] += after[..., :, 0].sum()
                    after[..., :, 0] = 0.0
                else:
                    after = g.mats.swapaxes(-1, -2) @ part
                    ends["b"][rnd] += after[..., 0, :].sum()
                    after[..., 0, :] = 0.0
                succ = g.successor_last if r == 1 else g.successor
                target = mass if g.position == 0 else later
                for slot in np.unique(succ):
                    target[slot] += after[succ == slot].sum(axis=0)
                mass[g.keys] = 0.0
            ends["stalemate"][rnd] += later[self.stalemate_slot].sum()
            capped += later[self.cap_slot].sum()
            later[self.stalemate_slot:] = 0.0
            mass = later
        return {"ends": ends, "capped": capped, "visits": visits, "furthest": furthest}


def best_play(rules: Rules, side_a: Side, side_b: Side, /, *, draw_worth: float = 0.5,
              plan_sets: Any = None) -> Probabilities:
    """Exact best play of the one-zone contact duel: each activation's plan chosen by its
    side, state by state, as a zero-sum stochastic game.

    The game.  A state is the two HP totals, whose activation it is (first or second of
    the round), whether the target is Defending (its last plan held a Defend), the idle
    rounds so far (two end the fight as a stalemate), whether the round has been active so
    far, the ranged weapons' Reload state, and the rounds left before ``max_rounds``.  At
    each activation the mover picks a :class:`Plan` (every distinct sequence of
    ``actions_per_activation`` actions from :data:`ACTIONS`); its attacks' damage is exact
    (the ladder over 3d6, the MAP by position).  A maximises P(A wins) + ``draw_worth`` x
    P(draw), B minimises it.  Each state has one mover, who sees everything (the foe's
    Defend was public), so each per-state "matrix game" over plans is one row or one
    column: the equilibrium is pure, found by max / min, and the game is solved exactly by
    backward induction over the rounds left (``max_rounds`` is a rule: a draw).  A plan is
    chosen when the activation begins (the simulator's policies are plans too); choosing
    each action after seeing the last roll is not modelled.

    ``plan_sets`` (tests): one function per fighter, loaded -> the plans it may choose from
    (e.g. its own policy's plan, which makes this the fixed-policy chain of :func:`solve`).

    Returns
    -------
    Probabilities
        Rates under the equilibrium (ties between plans go to the first listed);
        ``details["value"]`` A's game value; ``strategy`` a DataFrame of each side's plan
        in every state the equilibrium fight visits.
    """
    import pandas

    start_time = time.perf_counter()
    game = _BestPlay(rules, side_a, side_b, draw_worth, plan_sets)
    firsts = (0, 1) if rules.first_side == "random" else ("ab".index(rules.first_side),)
    weights: dict[int, float] = {}
    for first in firsts:
        mover = activation_order(rules, side_a, side_b, first)[0]
        weights[mover] = weights.get(mover, 0.0) + 1 / len(firsts)
    cap = rules.max_rounds
    a_win, b_win, stalemate = np.zeros(cap + 1), np.zeros(cap + 1), np.zeros(cap + 1)
    capped = value = 0.0
    records = []
    names = tuple(c.name for c in game.fighters)
    if names[0] == names[1]:
        names = (f"A {names[0]}", f"B {names[1]}")
    openings = []
    for first, weight in sorted(weights.items()):
        order = game.solve_order(first)
        cell = (game.hp[0], game.hp[1])
        value += weight * float(order.values[cap, game.start][cell])
        run = game.chain(order)
        a_win += weight * run["ends"]["a"]
        b_win += weight * run["ends"]["b"]
        stalemate += weight * run["ends"]["stalemate"]
        capped += weight * run["capped"]
        opening = order.choices[cap, game.start][cell]
        openings.append(f"{names[first]} first: {game.plans[first][True][opening].name}")
        records += _strategy_rows(game, order, run, names, len(weights) > 1)
    frame = pandas.DataFrame.from_records(records)
    if len(frame):
        for column in ("A loaded", "B loaded", "idle rounds"):
            if column in frame and frame[column].nunique() <= 1:
                frame = frame.drop(columns=column)
        frame = frame.sort_values(["visits"], ascending=False, kind="stable")
        frame = frame.reset_index(drop=True)
    frame.attrs["notes"] = [
        "plan: the equilibrium plan of the side to act (ties go to the first plan listed); "
        "other plans: those it plays in the same state nearer the round cap (from how "
        "many rounds left); visits: the "
        "expected number of times the fight passes through the state; value: A's worth "
        f"there, P(A wins) + {draw_worth:g} x P(draw)."]
    draw = float(stalemate.sum() + capped)
    p_a, p_b = float(a_win.sum()), float(b_win.sum())
    rounds = np.arange(cap + 1)
    mean_rounds = float((rounds * (a_win + b_win + stalemate)).sum() + cap * capped)
    live = (game.hp[0]) * (game.hp[1])
    n_keys = len(game.keys)
    details = {
        "value": value,
        "method": "zero-sum stochastic game over (HP A, HP B, whose activation, Defending, "
                  "idle rounds, rounds left); each activation's plan chosen by its side; "
                  "backward induction over the round cap",
        "objective": f"A maximises P(A wins) + {draw_worth:g} x P(draw)",
        "plans": f"{names[0]} {len(game.plans[0][True])}, {names[1]} "
                 f"{len(game.plans[1][True])}",
        "opening": "; ".join(openings),
        "policy_a": "each activation's plan chosen state by state (the strategy table)",
        "policy_b": "each activation's plan chosen state by state (the strategy table)",
        "states": live * n_keys * cap * len(weights),
        "scope": "the one-zone contact duel: plans of " + ", ".join(ACTIONS) + "; neither "
                 "side leaves the zone",
        "draws": f"stalemate {float(stalemate.sum()):.6f}, max_rounds {capped:.6f}",
        "seconds": round(time.perf_counter() - start_time, 4),
    }
    return Probabilities("zones", p_a, p_b, draw, mean_rounds, details, frame,
                         assumptions=_assumptions(rules),
                         policies=("action plans: best play, chosen per state by each "
                                   "side",))


def _strategy_rows(game: _BestPlay, order: _Order, run: dict[str, Any],
                   names: tuple[str, str], with_order: bool) -> list[dict[str, Any]]:
    """One row per state the equilibrium fight visits: the plan most visited there, the
    others (nearer the cap), the visits and A's value."""
    visits, furthest = run["visits"], run["furthest"]
    rows = []
    for k, key in enumerate(game.keys):
        position, defending, idle, _, la, lb = key
        mover = order.first if position == 0 else 1 - order.first
        chosen = game.plans[mover][la if mover == 0 else lb]
        total = visits[k].sum(axis=0)
        for ha, hb in zip(*np.nonzero(total), strict=True):
            per_plan = visits[k, :, ha, hb]
            ranked = [n for n in np.argsort(-per_plan, kind="stable") if per_plan[n] > 0]
            main = ranked[0]
            layer = int(furthest[k, main, ha, hb])
            row: dict[str, Any] = {}
            if with_order:
                row["order"] = f"{names[order.first]} first"
            row.update({
                "to act": names[mover], "A HP": int(ha), "B HP": int(hb),
                "foe Defending": bool(defending), "A loaded": la, "B loaded": lb,
                "idle rounds": idle, "plan": chosen[main].name,
                "other plans": "; ".join(
                    f"{chosen[n].name} (from {int(furthest[k, n, ha, hb])} rounds left)"
                    for n in ranked[1:]),
                "visits": round(float(total[ha, hb]), 9),
                "value": round(float(order.values[layer, k, ha, hb]), 9)})
            rows.append(row)
    return rows
