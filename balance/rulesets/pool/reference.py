"""Scalar reference of seed 003: one fight, plain Python, optionally narrated.

This is the executable reading of the rules (003.2 with the digest's defaults):

1. Turn order by Turn Value = Co - Status + Misc, ties by higher Co, higher Combat, lower
   Status, then the ST's call (a seeded coin); the order is fixed for the fight (003.3 #4).
2. Each fighter has its Combat Pool, floor((Co + Int) / 2), for the whole fight.
3. Each round, each fighter still standing, in order, attacks a foe (``target_policy``):
   both sides commit pool points (``bid_protocol``), the attack Co + Combat + Misc +
   spend (+ die) must beat the defence Fort + Combat + Misc + spend (+ die); a hit deals
   weapon damage + floor(Co / 3) (+ floor(margin / 2) with ``margin_damage``), taken from
   the armour's Wound Points first, the overflow from the wearer's.  A fighter's
   ``turn_policy`` may declare full defence or aid instead (aid only to an ally who will
   attack on its next turn), and under ``margin_failure_damage`` ``attack`` declines an
   attack it cannot possibly hit (docs/pool.md).
4. A fighter whose WP fall to ``down_at`` or below is out; a side with nobody standing
   loses.  At the start of a round, if nobody can possibly hit any more (every defence
   that applies counted, and every aid that may come), the fight is a
   draw after ``stalemate_rounds`` full rounds (played where a miss can still hurt the
   attacker, ``margin_failure_damage``); after ``max_rounds`` it is a draw.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...language import narrate_total
from ...outcomes import EndCauses, Outcome
from ...results import Winner
from ..base import Log
from ..house import HouseRules
from .language import best_case, house_rules, static_value
from .rules import (
    Combatant,
    Profile,
    Rules,
    apply_damage,
    failure_damage,
    keeps_guard,
    margin_bonus,
    may_aid,
    order_groups,
    profile,
    turn_value,
)

__all__ = ["CAUSES", "fight"]

CAUSES = EndCauses("down", "stalemate", "max_rounds", "withdrew")


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
    withdrawn: bool = False
    full_defence: bool = False  # + full_defence_bonus to its defence until its next turn
    aided: int = 0              # bonus to its next attack from allies' aid

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def standing(self) -> bool:
        """WP above ``down_at`` and not withdrawn: still in the fight (003.4)."""
        return self.wound_points > self.down_at and not self.withdrawn


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

        solved = exact.for_equilibrium_policy(rules, side_a, side_b)
        self.space = solved.space
        self.strategies = solved.solution_for(order).strategies
        self.cap = rules.max_rounds
        self.lookups = [self.space.health_lookup(f) for f in range(self.space.k)]

    def row(self, rnd: int, actor: int, fighters: Sequence[Fighter], stale: int = 0,
            held: int = 0) -> int:
        """The strategy row of ``actor``'s turn in round ``rnd`` (``stale``: the rounds to
        a played stalemate's draw, 0 outside one; ``held``: the aid the actor held as its
        turn began)."""
        h, p = [], []
        flags = 0
        aid_unit = max(self.space.rules.aid_bonus, 1)
        for f, fighter in enumerate(fighters):
            low, table = self.lookups[f]
            health = max(fighter.wound_points + fighter.armour_wp, low)
            h.append(int(table[health - low]) if fighter.standing else 0)
            p.append(fighter.pool)
            aided = held if f == actor else fighter.aided
            guard = fighter.full_defence and f != actor  # its own lapses with its turn
            flags += (int(guard) * int(self.space.g_stride[f])
                      + aided // aid_unit * int(self.space.a_stride[f]))
        state = actor * self.space.n_cores + self.space.core_index(h, p) + flags
        if stale:  # a stalemate the solver did not play: nothing can happen, bid nothing
            rows = self.strategies.stale_row
            return 0 if rows is None else int(rows[stale, state])
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
            + f", damage {p.damage}, policy {p.policy}"
            + (f", turns {p.turn_policy}" if p.turn_policy != "attack" else "")
            + (f", withdraws at {p.withdraw_at} WP" if p.withdraw_at else ""))
    equilibrium = (_equilibrium(rules, tuple(side_a), tuple(side_b), tuple(order))
                   if any(f.profile.policy == "equilibrium" for f in fighters) else None)
    low, high = (1, rules.die_sides) if rules.die_sides else (0, 0)
    rows = house_rules(rules)
    house = _House(rules, rows, everyone, fighters, rng, say) if rows else None
    guards = [keeps_guard(f.profile.turn_policy, rules,
                          [g.profile.turn_policy for g in fighters
                           if g.profile.side == f.profile.side]) for f in fighters]

    def extras() -> dict[str, float]:
        return {"a_pool_spent": float(sum(f.spent for f in fighters if f.profile.side == 0)),
                "b_pool_spent": float(sum(f.spent for f in fighters if f.profile.side == 1))}

    stale_end = 0  # the last round of a played stalemate (0: none)
    for rnd in range(1, rules.max_rounds + 1):
        standing = [f for f in fighters if f.standing]
        if house is not None:
            house.round = rnd
        threat = any(_can_hit(rules, x, y, fighters, guards, low, high, house)
                     for x in standing for y in standing if x.profile.side != y.profile.side)
        if not threat and not stale_end and rules.margin_failure_damage:
            stale_end = rnd + rules.stalemate_rounds - 1
            say(f"Round {rnd}: nobody can hit any more; a miss still costs the attacker, so "
                f"the fight goes on to a draw at the end of round {stale_end}"
                + (f" (the cap, {rules.max_rounds}, comes first)"
                   if stale_end > rules.max_rounds else ""))
        elif not threat and not stale_end:
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
            actor = fighters[i]
            if not actor.standing:
                continue
            actor.full_defence = False  # full defence lasts until the fighter's next turn
            ended = _turn(rules, rnd, actor, fighters, order, equilibrium, low, high, rng, say,
                          house, stale_end and min(stale_end, rules.max_rounds) - rnd + 1)
            if ended is not None:
                winner, cause = ended
                side = "A" if winner == Winner.A else "B"
                if cause == "withdrew":
                    say(f"Side {'B' if side == 'A' else 'A'} has left the field: side "
                        f"{side} wins in round {rnd}")
                else:
                    say(f"Side {side} wins in round {rnd}")
                return Outcome(winner, rnd, cause, extras())
        if rnd == stale_end:
            say(f"Stalemate: a draw after round {rnd}")
            return Outcome(Winner.DRAW, rnd, "stalemate", extras())
    say(f"Round cap {rules.max_rounds} reached: a draw")
    return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds", extras())


class _House:
    """The house rules read for one fight: each modifier and effect that fires narrated
    with why."""

    def __init__(self, rules: Rules, house: HouseRules, everyone: Sequence[Combatant],
                 fighters: Sequence[Fighter], rng: np.random.Generator, say: Log) -> None:
        self.rules, self.house, self.everyone = rules, house, everyone
        self.fighters, self.rng, self.say = fighters, rng, say
        self.round = 0

    def env(self, me: Fighter, foe: Fighter) -> dict[str, Any]:
        env: dict[str, Any] = {}
        for name in self.house.names:
            if name == "round":
                env[name] = self.round
            elif name in ("foes_standing", "allies_standing"):
                ours = [f for f in self.fighters if f.standing
                        and (f.profile.side == me.profile.side) == (name == "allies_standing")]
                env[name] = len(ours) - (name == "allies_standing")
            else:
                role, _, field = name.partition(".")
                who = me if role == "self" else foe
                state = {"wound_points": who.wound_points, "armour_wp": who.armour_wp,
                         "pool": who.pool}
                env[name] = (state[field] if field in state
                             else static_value(field, self.everyone[who.index], self.rules))
        return env

    def total(self, to: str, me: Fighter, foe: Fighter) -> int:
        """The modifiers on ``to`` of ``me`` facing ``foe``, each that fired narrated."""
        if not any(m.to == to for m in self.house.modifiers):
            return 0
        value, lines = narrate_total(self.house.modifiers, to, self.env(me, foe), self.rng)
        for line in lines:
            self.say(f"    {me.name}: {line}")
        return value

    def fire(self, outcome: str, attacker: Fighter, target: Fighter) -> None:
        """The effects on ``outcome`` of ``attacker``'s attack on ``target``: every row reads
        the names as they stand now (one reading), then each takes hold in the order
        written, narrated with why."""
        effects = [e for e in self.house.effects if e.on == outcome]
        if not effects:
            return
        env = self.env(attacker, target)
        for effect in effects:
            value, line = effect.read(env, self.rng)
            if line is None:  # its condition failed
                continue
            who = attacker if effect.who == "self" else target
            setattr(who, effect.set, int(value))  # pool's states: pool, armour_wp
            self.say(f"    {attacker.name}: {line} ({target.name})")

    def reach(self, attacker: Fighter, target: Fighter) -> int:
        """The house rules at their best for ``attacker`` asking whether he can possibly
        hit ``target`` (``language.best_case``)."""
        rows = self.house.modifiers
        return int(best_case(rows, "attack", self.env(attacker, target), n=1, high=True)[0]
                   - best_case(rows, "defence", self.env(target, attacker), n=1,
                               high=False)[0])


def _can_hit(rules: Rules, x: Fighter, y: Fighter, fighters: Sequence[Fighter],
             guards: Sequence[bool], low: int, high: int, house: _House | None) -> bool:
    """003.4's test: ``x`` may attack (not ``full_defence``) and could beat ``y``'s defence
    as it will stand (full defence counted where ``y`` keeps it, ``guards``), with its aid
    held, the aid its standing allies may still give, and the house rules at their best."""
    if x.profile.turn_policy == "full_defence":
        return False
    aid = x.aided + rules.aid_bonus * sum(
        1 for g in fighters if g is not x and g.standing and g.profile.side == x.profile.side
        and may_aid(g.profile.turn_policy, rules))
    guard = rules.full_defence_bonus if y.full_defence and guards[y.index] else 0
    reach = 0 if house is None else house.reach(x, y)
    return x.profile.attack + x.pool + aid + high + reach > y.profile.defence + guard + low


def _side_out(fighters: Sequence[Fighter], side: int) -> bool:
    return not any(f.standing for f in fighters if f.profile.side == side)


def _turn(rules: Rules, rnd: int, actor: Fighter, fighters: Sequence[Fighter],
          order: Sequence[int], equilibrium: _Equilibrium | None, low: int, high: int,
          rng: np.random.Generator, say: Log, house: _House | None = None, stale: int = 0
          ) -> tuple[Winner, str] | None:
    """One fighter's turn: what it declares (003.2 step 3) and, for an attack, the check,
    the damage and the margin's repercussions (``stale``: the rounds to a played
    stalemate's draw, 0 outside one).  Returns (winner, cause) if it ends the fight."""
    p = actor.profile
    if p.withdraw_at and actor.wound_points <= p.withdraw_at:
        actor.withdrawn = True
        say(f"  {actor.name} withdraws from the fight ({actor.wound_points} WP, at or below "
            f"{p.withdraw_at})")
        if _side_out(fighters, p.side):
            return (Winner.B if p.side == 0 else Winner.A), "withdrew"
        return None
    target = _target(rules, actor, fighters)
    hopeless = _reach(rules, actor, target, low, high, house) <= 0
    stance = p.turn_policy
    # a hopeless attack only costs where a miss hurts the attacker: declined (docs/pool.md)
    declines = hopeless and rules.margin_failure_damage and stance != "attack_always"
    if stance == "full_defence" or (stance == "defend_if_no_hit" and hopeless):
        _full_defence(rules, actor, say, "it cannot hit" if hopeless else "")
        return None
    if stance == "aid" or (hopeless and stance == "aid_if_no_hit") or declines:
        ally = _aid_recipient(rules, actor, fighters, order, low, high, house)
        if ally is not None:
            ally.aided += rules.aid_bonus
            actor.aided = 0  # its own aid held lapses with its turn
            say(f"  {actor.name} aids {ally.name} (+{rules.aid_bonus} to its next attack)"
                + (": it cannot hit" if hopeless else ""))
            return None
    if declines:
        _full_defence(rules, actor, say, f"it cannot hit {target.name}, and a miss would "
                                         "cost it")
        return None
    return _attack(rules, rnd, actor, target, fighters, equilibrium, low, high, rng, say,
                   house, stale)


def _full_defence(rules: Rules, actor: Fighter, say: Log, why: str) -> None:
    actor.full_defence = True
    actor.aided = 0  # aid held lapses with its turn
    say(f"  {actor.name} declares full defence (+{rules.full_defence_bonus} defence "
        "until its next turn)" + (f": {why}" if why else ""))


def _target(rules: Rules, actor: Fighter, fighters: Sequence[Fighter]) -> Fighter:
    """Whom ``actor`` would attack now (``target_policy``)."""
    foes = [f for f in fighters if f.standing and f.profile.side != actor.profile.side]
    if rules.target_policy == "lowest_wp":
        return min(foes, key=lambda f: (f.wound_points, f.index))
    return foes[0]


def _reach(rules: Rules, x: Fighter, y: Fighter, low: int, high: int, house: _House | None,
           extra: int = 0) -> int:
    """How far ``x``'s best attack (base, aid held + ``extra``, whole pool, best die, house
    rules at their best) beats ``y``'s defence as it stands (base, full defence, worst
    die); <= 0: ``x`` cannot possibly hit ``y``."""
    guard = rules.full_defence_bonus if y.full_defence else 0
    best = 0 if house is None else house.reach(x, y)
    return (x.profile.attack + x.aided + extra + x.pool + high + best
            - y.profile.defence - guard - low)


def _will_attack(rules: Rules, g: Fighter, fighters: Sequence[Fighter], low: int, high: int,
                 house: _House | None) -> bool:
    """Whether ally ``g`` will attack on its next turn, as its policy reads the fight now
    with an aid counted (an ``aid`` fighter aids rather than takes aid)."""
    p = g.profile
    if not g.standing or (p.withdraw_at and g.wound_points <= p.withdraw_at):
        return False
    if p.turn_policy in ("full_defence", "aid"):
        return False
    if p.turn_policy == "attack_always" or (p.turn_policy == "attack"
                                            and not rules.margin_failure_damage):
        return True
    return _reach(rules, g, _target(rules, g, fighters), low, high, house,
                  rules.aid_bonus) > 0


def _aid_recipient(rules: Rules, actor: Fighter, fighters: Sequence[Fighter],
                   order: Sequence[int], low: int, high: int, house: _House | None
                   ) -> Fighter | None:
    """The ally an aid goes to: the soonest after ``actor`` (every ally acts before the
    actor's next turn) who will attack on its next turn; ``None`` if none will."""
    at = list(order).index(actor.index)
    for k in list(order[at + 1:]) + list(order[:at]):
        f = fighters[k]
        if (f.profile.side == actor.profile.side
                and _will_attack(rules, f, fighters, low, high, house)):
            return f
    return None


def _attack(rules: Rules, rnd: int, attacker: Fighter, target: Fighter,
            fighters: Sequence[Fighter], equilibrium: _Equilibrium | None, low: int,
            high: int, rng: np.random.Generator, say: Log, house: _House | None = None,
            stale: int = 0) -> tuple[Winner, str] | None:
    aid, attacker.aided = attacker.aided, 0
    guard = rules.full_defence_bonus if target.full_defence else 0
    # house rules, read when the attack is declared (before any bid)
    mod_a = mod_d = mod_damage = 0
    if house is not None:
        mod_a = house.total("attack", attacker, target)
        mod_d = house.total("defence", target, attacker)
        mod_damage = house.total("damage", attacker, target)
    a, d = _bids(rules, rnd, attacker, target, fighters, equilibrium, rng,
                 aid - guard + mod_a - mod_d, stale, aid)
    attacker.pool -= a
    attacker.spent += a
    target.pool -= d
    target.spent += d
    att_die = int(rng.integers(low, high + 1)) if high else 0
    def_die = int(rng.integers(low, high + 1)) if high else 0
    attack = attacker.profile.attack + aid + mod_a + a + att_die
    defence = target.profile.defence + guard + mod_d + d + def_die
    dice = (f" + die {att_die}", f" + die {def_die}") if high else ("", "")
    line = (f"  {attacker.name} attacks {target.name}: attack {attacker.profile.attack}"
            + (f" + aid {aid}" if aid else "") + (f" {mod_a:+d} house" if mod_a else "")
            + f" + pool {a}{dice[0]} = {attack} vs "
            f"defence {target.profile.defence}" + (f" + full defence {guard}" if guard else "")
            + (f" {mod_d:+d} house" if mod_d else "") + f" + pool {d}{dice[1]} = {defence}")
    if attack <= defence:  # the attack must beat the defence (003.2)
        backlash = failure_damage(rules, defence - attack)
        if not backlash:
            say(line + " -> miss" + (" (equal)" if attack == defence else ""))
            if house is not None:
                house.fire("miss", attacker, target)
            return None
        before = (attacker.armour_wp, attacker.wound_points)
        attacker.armour_wp, attacker.wound_points = apply_damage(*before, backlash)
        armour_text = f"armour {before[0]} -> {attacker.armour_wp}, " if before[0] else ""
        say(line + f" -> miss by {defence - attack}; the attacker takes {backlash} damage: "
            f"{armour_text}WP {before[1]} -> {attacker.wound_points}"
            + ("" if attacker.standing else f"; {attacker.name} is out"))
        if _side_out(fighters, attacker.profile.side):
            return (Winner.B if attacker.profile.side == 0 else Winner.A), "down"
        if house is not None:
            house.fire("miss", attacker, target)
        return None
    margin = attack - defence
    damage = max(0, attacker.profile.damage + margin_bonus(rules, margin) + mod_damage)
    before = (target.armour_wp, target.wound_points)
    target.armour_wp, target.wound_points = apply_damage(target.armour_wp,
                                                         target.wound_points, damage)
    armour_text = f"armour {before[0]} -> {target.armour_wp}, " if before[0] else ""
    say(line + f" -> hit by {margin}; {damage} damage: {armour_text}WP {before[1]} -> "
        f"{target.wound_points}" + ("" if target.standing else f"; {target.name} is out"))
    if _side_out(fighters, target.profile.side):
        return (Winner.A if attacker.profile.side == 0 else Winner.B), "down"
    if house is not None:  # effects take hold in a fight that goes on
        house.fire("hit", attacker, target)
    return None


def _bids(rules: Rules, rnd: int, attacker: Fighter, target: Fighter,
          fighters: Sequence[Fighter], equilibrium: _Equilibrium | None,
          rng: np.random.Generator, bonus: int = 0, stale: int = 0, held: int = 0
          ) -> tuple[int, int]:
    """Both sides' pool spending for one attack, in the order of the bid protocol
    (``bonus``: aid minus the target's full defence, part of the lead the policies read;
    ``held``: the aid the attacker held)."""
    lead = attacker.profile.attack - target.profile.defence + bonus
    state = (equilibrium.row(rnd, attacker.index, fighters, stale, held)
             if equilibrium is not None else -1)

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
