"""Scalar reference of seed 003: one fight, plain Python, optionally narrated.

This is the executable reading of the rules (003.2 with the digest's defaults):

1. Turn order by Turn Value = Co - Status + Misc, ties by higher Co, higher Combat, lower
   Status, then the ST's call (a seeded coin); the order is fixed for the fight (003.3 #4).
2. Each fighter has its Combat Pool, floor((Co + Int) / 2), for the whole fight.
3. Each round, each fighter still standing, in order, attacks a foe (``target_policy``):
   both sides commit pool points (``bid_protocol``), the attack Co + Combat + Misc +
   spend (+ die) must beat the defence Fort + Combat + Misc + spend (+ die); a hit deals
   weapon damage + floor(Co / 3) (+ floor(margin / 2) with ``margin_damage``), taken from
   the armour's Wound Points first, the overflow from the wearer's.
4. A fighter whose WP fall to ``down_at`` or below is out; a side with nobody standing
   loses.  At the start of a round, if nobody can possibly hit any more, the fight is a
   draw after ``stalemate_rounds`` full rounds; after ``max_rounds`` it is a draw.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...outcomes import EndCauses, Outcome
from ...results import Winner
from ..base import Log
from .rules import (
    Combatant,
    Profile,
    Rules,
    apply_damage,
    can_possibly_hit,
    margin_bonus,
    order_groups,
    profile,
    turn_value,
)

__all__ = ["CAUSES", "fight"]

CAUSES = EndCauses("down", "stalemate", "max_rounds")


@dataclass
class Fighter:
    """One fighter's running state."""

    index: int
    profile: Profile
    wound_points: int
    armour_wp: int
    pool: int
    down_at: int
    spent: int = 0

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def standing(self) -> bool:
        """WP above ``down_at``: still in the fight (003.4)."""
        return self.wound_points > self.down_at


def _policy_bid(policy: str, attacking: bool, own: int, other: int, lead: int,
                told: int | None, rng: np.random.Generator) -> int:
    """A fixed policy's bid (the table of policies is in :mod:`.rules`).

    ``lead`` = base attack - base defence; ``other`` = the opponent's remaining pool;
    ``told`` = the opponent's bid when this side bids second.
    """
    if policy == "all_in_first":
        return own
    if policy == "random_mixed":
        return int(rng.integers(0, own + 1))
    opponent_best = other if told is None else told
    if attacking:
        if policy == "save_for_defence":
            return 0
        need = opponent_best - lead + 1       # beat the defence at its best
        return need if 0 < need <= own else 0
    need = opponent_best + lead               # equal the best attack: a block
    if policy == "save_for_defence" and told is None:
        return min(max(need, 0), own)
    return need if 0 < need <= own else 0


class _Equilibrium:
    """Reads the exact solver's strategies for the state of the fight."""

    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 order: Sequence[int]) -> None:
        from . import exact

        solved = exact.solved(rules, side_a, side_b)
        self.space = solved.space
        self.strategies = solved.solution_for(order).strategies
        self.cap = rules.max_rounds
        self.lookups = [self.space.health_lookup(f) for f in range(self.space.k)]

    def row(self, rnd: int, actor: int, fighters: Sequence[Fighter]) -> int:
        """The strategy row of ``actor``'s turn in round ``rnd``."""
        h, p = [], []
        for f, fighter in enumerate(fighters):
            low, table = self.lookups[f]
            health = max(fighter.wound_points + fighter.armour_wp, low)
            h.append(int(table[health - low]) if fighter.standing else 0)
            p.append(fighter.pool)
        state = actor * self.space.n_cores + self.space.core_index(h, p)
        return int(self.strategies.row[self.cap - rnd + 1, state])

    def bid(self, row: int, attacking: bool, own: int, told: int | None,
            rng: np.random.Generator) -> int:
        s = self.strategies
        if told is not None:
            reply = s.attack_reply if attacking else s.defence_reply
            return int(reply[row, told])
        probs = (s.attack if attacking else s.defence)[row, :own + 1]
        u = rng.random()
        return min(int(np.searchsorted(np.cumsum(probs), u, side="right")), own)


@functools.lru_cache(maxsize=8)
def _equilibrium(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...],
                 order: tuple[int, ...]) -> _Equilibrium:
    return _Equilibrium(rules, side_a, side_b, order)


def fight(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
          rng: np.random.Generator, log: Log | None = None) -> Outcome:
    """One fight between ``side_a`` and ``side_b``; narrate it to ``log`` if given."""
    say = log or (lambda line: None)
    everyone = (*side_a, *side_b)
    fighters = []
    for i, c in enumerate(everyone):
        p = profile(c, rules, 0 if i < len(side_a) else 1)
        fighters.append(Fighter(i, p, p.wound_points, p.armour_wp, p.pool, rules.down_at))

    # 1. turn order (003.2; ties left after every tie-break: the ST's call, 003.3 #3)
    order: list[int] = []
    for group in order_groups(everyone):
        if len(group) > 1 and rules.tv_final_tiebreak == "random":
            group = [group[int(i)] for i in rng.permutation(len(group))]
            say(f"Turn Value tie between {', '.join(everyone[g].name for g in group)}: "
                "a coin decides")
        order.extend(group)
    say("Turn order: " + ", ".join(f"{fighters[i].name} (TV {turn_value(everyone[i])})"
                                   for i in order))
    for f in fighters:
        p = f.profile
        say(f"  {p.name}: attack {p.attack}, defence {p.defence}, pool {p.pool}, "
            f"{p.wound_points} WP" + (f" + {p.armour_wp} armour WP" if p.armour_wp else "")
            + f", damage {p.damage}, policy {p.policy}")
    equilibrium = (_equilibrium(rules, tuple(side_a), tuple(side_b), tuple(order))
                   if any(f.profile.policy == "equilibrium" for f in fighters) else None)
    low, high = (1, rules.die_sides) if rules.die_sides else (0, 0)

    def extras() -> dict[str, float]:
        return {"a_pool_spent": float(sum(f.spent for f in fighters if f.profile.side == 0)),
                "b_pool_spent": float(sum(f.spent for f in fighters if f.profile.side == 1))}

    for rnd in range(1, rules.max_rounds + 1):
        standing = [f for f in fighters if f.standing]
        threat = any(can_possibly_hit(x.profile, x.pool, y.profile, rules)
                     for x in standing for y in standing if x.profile.side != y.profile.side)
        if not threat:
            end = rnd + rules.stalemate_rounds - 1
            say(f"Round {rnd}: nobody can hit any more (base + pool"
                + (f" + {high}" if high else "") + " never beats the foe's defence"
                + (f" + {low}" if low else "") + ")")
            if end <= rules.max_rounds:
                say(f"Stalemate: a draw after round {end}")
                return Outcome(Winner.DRAW, end, "stalemate", extras())
            say(f"The round cap ({rules.max_rounds}) comes first: a draw")
            return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds", extras())
        say(f"Round {rnd}")
        for i in order:
            attacker = fighters[i]
            if not attacker.standing:
                continue
            foes = [f for f in fighters if f.standing and f.profile.side != attacker.profile.side]
            if rules.target_policy == "lowest_wp":
                target = min(foes, key=lambda f: (f.wound_points, f.index))
            else:
                target = foes[0]
            a, d = _bids(rules, rnd, attacker, target, fighters, equilibrium, rng)
            attacker.pool -= a
            attacker.spent += a
            target.pool -= d
            target.spent += d
            att_die = int(rng.integers(low, high + 1)) if high else 0
            def_die = int(rng.integers(low, high + 1)) if high else 0
            attack = attacker.profile.attack + a + att_die
            defence = target.profile.defence + d + def_die
            dice = (f" + die {att_die}", f" + die {def_die}") if high else ("", "")
            line = (f"  {attacker.name} attacks {target.name}: attack "
                    f"{attacker.profile.attack} + pool {a}{dice[0]} = {attack} vs defence "
                    f"{target.profile.defence} + pool {d}{dice[1]} = {defence}")
            if attack <= defence:  # the attack must beat the defence (003.2)
                say(line + " -> miss" + (" (equal)" if attack == defence else ""))
                continue
            margin = attack - defence
            damage = attacker.profile.damage + margin_bonus(rules, margin)
            before = (target.armour_wp, target.wound_points)
            target.armour_wp, target.wound_points = apply_damage(target.armour_wp,
                                                                 target.wound_points, damage)
            armour_text = (f"armour {before[0]} -> {target.armour_wp}, "
                           if before[0] else "")
            say(line + f" -> hit by {margin}; {damage} damage: {armour_text}WP {before[1]} -> "
                f"{target.wound_points}" + ("" if target.standing else f"; {target.name} is out"))
            if not any(f.standing for f in fighters if f.profile.side == target.profile.side):
                winner = Winner.A if attacker.profile.side == 0 else Winner.B
                say(f"Side {'A' if winner == Winner.A else 'B'} wins in round {rnd}")
                return Outcome(winner, rnd, "down", extras())
    say(f"Round cap {rules.max_rounds} reached: a draw")
    return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds", extras())


def _bids(rules: Rules, rnd: int, attacker: Fighter, target: Fighter,
          fighters: Sequence[Fighter], equilibrium: _Equilibrium | None,
          rng: np.random.Generator) -> tuple[int, int]:
    """Both sides' pool spending for one attack, in the order of the bid protocol."""
    lead = attacker.profile.attack - target.profile.defence
    state = (equilibrium.row(rnd, attacker.index, fighters) if equilibrium is not None else -1)

    def bid(who: Fighter, attacking: bool, told: int | None) -> int:
        other = target if attacking else attacker
        if who.profile.policy == "equilibrium":
            assert equilibrium is not None
            return equilibrium.bid(state, attacking, who.pool, told, rng)
        return _policy_bid(who.profile.policy, attacking, who.pool, other.pool, lead, told, rng)

    if rules.bid_protocol == "attacker_first":
        a = bid(attacker, True, None)
        return a, bid(target, False, a)
    if rules.bid_protocol == "defender_first":
        d = bid(target, False, None)
        return bid(attacker, True, d), d
    return bid(attacker, True, None), bid(target, False, None)
