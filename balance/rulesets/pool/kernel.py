"""Vectorised kernel of seed 003: many fights at once, one Python loop over turns.

Structure of arrays over fights (axis 0) and fighters (axis 1): Wound Points, armour WP
and pool as int16.  Each fight carries its own turn order (``orders``): a tie after every
tie-break is a coin (003.3 #3), drawn per fight.  A turn position held by one fighter is
one step over every fight; a position a tied group shares is one step per member, over
the fights where that member holds it.  Finished fights are compacted out at the end of
every round.  The rules are those of :mod:`.reference`, which this
kernel must match in distribution (``tests/pool/test_agreement.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...language import fire, total
from ...outcomes import Outcomes
from ...results import Winner
from ..house import HouseRules
from .language import best_case, house_rules, static_value
from .reference import CAUSES
from .rules import (
    Combatant,
    Profile,
    Rules,
    failure_damage,
    keeps_guard,
    margin_bonus,
    may_aid,
    order_groups,
    profile,
)

__all__ = ["simulate"]


def policy_bids(policy: str, attacking: bool, own: np.ndarray, other: np.ndarray, lead: int,
                told: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """Bids of a fixed policy for a batch of exchanges (int16, same shape as ``own``)."""
    if policy == "all_in_first":
        return own.copy()
    if policy == "random_mixed":
        return np.floor(rng.random(own.shape) * (own + 1)).astype(np.int16)
    best = other if told is None else told
    if attacking:
        if policy == "save_for_defence":
            return np.zeros_like(own)
        need = best - lead + 1
    else:
        need = best + lead
        if policy == "save_for_defence" and told is None:
            return np.clip(need, 0, own).astype(np.int16)
    return np.where((need > 0) & (need <= own), need, 0).astype(np.int16)


class _EquilibriumTables:
    """The solver's strategies, indexed like the solver's states and rounds left."""

    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 order: Sequence[int]) -> None:
        from . import exact

        solved = exact.for_equilibrium_policy(rules, side_a, side_b)
        space = solved.space
        eq = solved.solution_for(order).strategies
        self.cap = rules.max_rounds
        self.n_cores = space.n_cores
        self.h_stride = space.h_stride
        self.p_stride = space.p_stride
        self.lookups = [space.health_lookup(f) for f in range(space.k)]
        self.g_stride, self.a_stride = space.g_stride, space.a_stride
        self.aid_bonus = max(rules.aid_bonus, 1)
        self.row = eq.row
        self.stale_row = eq.stale_row
        self.attack_cdf = np.cumsum(eq.attack, axis=1)
        self.defence_cdf = np.cumsum(eq.defence, axis=1)
        self.attack_reply = eq.attack_reply
        self.defence_reply = eq.defence_reply

    def rows(self, rnd: int, actor: int, wp: np.ndarray, armour: np.ndarray, pool: np.ndarray,
             turns: tuple[np.ndarray, np.ndarray], stale: np.ndarray | None = None
             ) -> np.ndarray:
        """Strategy rows of the states of a batch of fights in round ``rnd`` (``turns``:
        each fighter's full defence and aid held; ``stale``: per fight, the rounds to the
        draw of a played stalemate, 0 outside one; in a stalemate the solver did not play,
        where nothing can happen, row 0: bid nothing)."""
        guard, aided = turns
        core = np.zeros(len(wp), np.int64)
        for f, (low, table) in enumerate(self.lookups):
            health = np.maximum(wp[:, f].astype(np.int64) + armour[:, f], low)
            core += table[health - low] * self.h_stride[f]
            core += pool[:, f].astype(np.int64) * self.p_stride[f]
            core += guard[:, f] * self.g_stride[f]
            core += aided[:, f].astype(np.int64) // self.aid_bonus * self.a_stride[f]
        states = actor * self.n_cores + core
        rows = self.row[self.cap - rnd + 1, states]
        if stale is not None and stale.any():
            in_stale = stale > 0
            rows = np.where(in_stale, 0 if self.stale_row is None else
                            self.stale_row[np.where(in_stale, stale, 0), states], rows)
        return rows

    def bids(self, rows: np.ndarray, attacking: bool, own: np.ndarray,
             told: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        if told is not None:
            reply = self.attack_reply if attacking else self.defence_reply
            return reply[rows, told].astype(np.int16)
        cdf = (self.attack_cdf if attacking else self.defence_cdf)[rows]
        u = rng.random(len(rows))
        return np.minimum((u[:, None] >= cdf).sum(axis=1), own).astype(np.int16)


class _HouseTerms:
    """The house rules' modifiers and effects over a batch of fights (rows of the state
    arrays ``wp``, ``armour``, ``pool``, ``withdrawn``: (n, k)); arrays are built only for
    the names the rows read.  A fight without house rules never makes one."""

    def __init__(self, rules: Rules, house: HouseRules, fighters: Sequence[Combatant],
                 side: np.ndarray, rng: np.random.Generator) -> None:
        self.rules, self.rows, self.side, self.rng = rules, house.modifiers, side, rng
        self.effects = house.effects
        self.names = house.names
        self.static = {name.split(".", 1)[1]: np.array([static_value(name.split(".", 1)[1], c,
                                                                     rules) for c in fighters])
                       for name in self.names
                       if "." in name and name.split(".", 1)[1] in _STATIC_FIELDS}
        self.state: dict[str, np.ndarray] = {}
        self.round = 0

    def bind(self, rnd: int, **state: np.ndarray) -> None:
        """This moment's state arrays (``wp``, ``armour``, ``pool``, ``withdrawn``)."""
        self.round, self.state = rnd, state

    def env(self, me: Any, foe: Any, rows: np.ndarray) -> dict[str, Any]:
        """The names for fighter ``me`` facing ``foe`` (each an int, or an array along
        ``rows``) in the fights ``rows``."""
        state, env = self.state, {}
        for name in self.names:
            if name == "round":
                env[name] = self.round
                continue
            if name in ("foes_standing", "allies_standing"):
                up = (state["wp"][rows] > self.rules.down_at) & ~state["withdrawn"][rows]
                mine = self.side[None, :] == np.take(self.side, me)[..., None]
                n = ((up & ~mine) if name == "foes_standing" else (up & mine)).sum(axis=1)
                env[name] = n - (name == "allies_standing")  # not counting himself
                continue
            role, _, field = name.partition(".")
            who = me if role == "self" else foe
            if field in self.static:
                env[name] = np.take(self.static[field], who)
            else:
                key = {"wound_points": "wp", "armour_wp": "armour", "pool": "pool"}[field]
                env[name] = state[key][rows, who]
        return env

    def total(self, to: str, me: Any, foe: Any, rows: np.ndarray) -> np.ndarray:
        """int64 (len(rows),): the modifiers on ``to`` of ``me`` facing ``foe``."""
        if not any(m.to == to for m in self.rows):
            return np.zeros(len(rows), np.int64)
        return total(self.rows, to, self.env(me, foe, rows), self.rng, n=len(rows)).value

    def best(self, to: str, me: Any, foe: Any, rows: np.ndarray) -> np.ndarray:
        """The modifiers on ``to`` at their best for the attacker (``best_case``)."""
        if not any(m.to == to for m in self.rows):
            return np.zeros(len(rows), np.int64)
        return best_case(self.rows, to, self.env(me, foe, rows), n=len(rows),
                         high=to == "attack")

    def fire(self, outcome: str, me: int, foe: int, rows: np.ndarray) -> None:
        """The effects on ``outcome`` of ``me``'s attack on ``foe`` in the fights ``rows``,
        carried out in place on the bound state arrays: every row reads the names as they
        stand now (one reading), then each takes hold in the order written."""
        if not len(rows) or not any(e.on == outcome for e in self.effects):
            return
        env = self.env(me, foe, rows)
        for firing in fire(self.effects, {outcome: np.ones(len(rows), bool)}, env, self.rng,
                           n=len(rows)):
            effect, mask = firing.row, firing.mask
            assert firing.quantity is not None  # a set: pool's effects set a state
            who = me if effect.who == "self" else foe  # type: ignore[union-attr]
            state = self.state[_STATE_ARRAYS[effect.subject]]  # type: ignore[union-attr]
            state[rows[mask], who] = firing.quantity[mask]


_STATE_ARRAYS = {"pool": "pool", "armour_wp": "armour"}
"""The state array each state an effect sets lives in."""
_STATIC_FIELDS = frozenset({"coordination", "intellect", "fortitude", "combat", "status",
                            "weapon", "armour", "max_wound_points", "max_pool"})


def simulate(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights; :class:`Outcomes` with extras ``a_pool_spent``, ``b_pool_spent``."""
    everyone = (*side_a, *side_b)
    profiles = ([profile(c, rules, 0) for c in side_a] + [profile(c, rules, 1) for c in side_b])
    if any(p.policy == "equilibrium" for p in profiles):
        # the solver's strategies are one table per turn order: a batch per order
        from .exact import linear_orders

        orders = linear_orders(rules, everyone)
        counts = (np.array([n]) if len(orders) == 1
                  else rng.multinomial(n, [w for _, w in orders]))
        parts = [_run(_Fights(rules, side_a, side_b, profiles,
                              np.tile(np.array(order, np.int8), (int(m), 1)), order, rng))
                 for (order, _), m in zip(orders, counts, strict=True) if m]
    else:
        parts = [_run(_Fights(rules, side_a, side_b, profiles,
                              turn_orders(rules, everyone, n, rng), None, rng))]
    winner, rounds, cause, spent_a, spent_b = (np.concatenate(x) for x in zip(*parts,
                                                                               strict=True))
    return Outcomes(winner, rounds, cause, CAUSES,
                    {"a_pool_spent": spent_a, "b_pool_spent": spent_b})


def turn_orders(rules: Rules, fighters: Sequence[Combatant], n: int,
                rng: np.random.Generator) -> np.ndarray:
    """int8 (n, k): each fight's turn order, the fighters' indices in the order they act.

    Ties left after every tie-break are the ST's call (003.3 #3): with
    ``tv_final_tiebreak = "random"`` each tied group is put in a uniformly random order in
    each fight (the reference's coin), else in the listed order."""
    groups = order_groups(tuple(fighters))
    orders = np.empty((n, len(fighters)), np.int8)
    at = 0
    for group in groups:
        members = np.array(group, np.int8)
        if len(group) > 1 and rules.tv_final_tiebreak == "random":
            members = members[np.argsort(rng.random((n, len(group))), axis=1)]
        orders[:, at:at + len(group)] = members
        at += len(group)
    return orders


def _run(fights: _Fights) -> tuple[np.ndarray, ...]:
    """Play a batch of fights to the end: rounds of turns, each turn position's actor
    drawn from the fighters that can hold it (a tied group) fight by fight."""
    rules = fights.rules
    for rnd in range(1, rules.max_rounds + 1):
        if not len(fights.ids):
            break
        running = fights.start_round(rnd)
        for t, candidates in enumerate(fights.slots):
            if len(candidates) == 1:
                fights.turn(candidates[0], rnd, running, running)
                continue
            actor = fights.orders[:, t]
            for f in candidates:
                fights.turn(f, rnd, running, running & (actor == f))
        if fights.end_round(rnd, running):
            break
    return fights.result()


class _Fights:
    """A batch of fights, each with its own turn order (``orders``, (n, k)): the state of
    each fight still running (rows of ``wp``, ``armour``, ``pool`` ...; fight ids in
    ``ids``), the results by fight id, and the steps of a round."""

    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 profiles: list[Profile], orders: np.ndarray, eq_order: Sequence[int] | None,
                 rng: np.random.Generator) -> None:
        self.rules, self.profiles, self.rng = rules, profiles, rng
        n, k = orders.shape[0], len(profiles)
        self.side = side = np.array([p.side for p in profiles])
        self.attack = np.array([p.attack for p in profiles])
        self.defence = np.array([p.defence for p in profiles])
        self.low, self.high = (1, rules.die_sides) if rules.die_sides else (0, 0)
        self.eq = (_EquilibriumTables(rules, side_a, side_b, eq_order)
                   if eq_order is not None else None)
        house = house_rules(rules)
        self.terms = (_HouseTerms(rules, house, (*side_a, *side_b), side, rng)
                      if house else None)
        self.wp = np.tile(np.array([p.wound_points for p in profiles], np.int16), (n, 1))
        self.armour = np.tile(np.array([p.armour_wp for p in profiles], np.int16), (n, 1))
        self.pool = np.tile(np.array([p.pool for p in profiles], np.int16), (n, 1))
        self.withdrawn = np.zeros((n, k), bool)
        self.full_defence = np.zeros((n, k), bool)  # + full_defence_bonus until its next turn
        self.aided = np.zeros((n, k), np.int16)      # bonus to its next attack
        self.stale_end = np.zeros(n, np.int32)       # a played stalemate's last round (0: none)
        self.orders = orders
        # each fighter's turn position in each fight (read only to find whom an aid helps)
        # (a duel has no allies: its orders stand in, never read)
        self.pos = np.argsort(orders, axis=1).astype(np.int8) if k > 2 else orders
        self.ids = np.arange(n)
        self.winner = np.zeros(n, np.int8)
        self.rounds = np.zeros(n, np.int16)
        self.cause = np.full(n, CAUSES.max_rounds, np.int8)
        self.spent = np.zeros((n, k), np.int16)  # by fight id: not compacted
        self.foes = [np.flatnonzero(side != side[f]) for f in range(k)]
        self.mates = [np.flatnonzero((side == side[f]) & (np.arange(k) != f)) for f in range(k)]
        self.pairs = [(i, j) for i in range(k) for j in self.foes[i]]
        policies = [p.turn_policy for p in profiles]
        # for the stalemate test: the allies who may aid each fighter, and whether a
        # fighter in full defence keeps it while nobody can hit
        self.helpers = [np.array([g for g in self.mates[f] if may_aid(policies[g], rules)],
                                 np.int64) for f in range(k)]
        self.defends = any(pol not in ("attack", "attack_always") for pol in policies) or (
            rules.margin_failure_damage and "attack" in policies)  # full defence can happen
        self.guards = [keeps_guard(policies[f], rules,
                                   [policies[g] for g in range(k) if side[g] == side[f]])
                       for f in range(k)]
        # the fighters that can act at each turn position: one, or a group tied on Turn
        # Value and every tie-break (003.3 #3)
        groups = order_groups((*side_a, *side_b))
        if rules.tv_final_tiebreak == "listed":
            groups = [[f] for group in groups for f in group]
        self.slots = [group for group in groups for _ in group]

    def finish(self, done: np.ndarray, who: np.ndarray | int, rnd: np.ndarray | int,
               why: int) -> None:
        self.winner[self.ids[done]] = who
        self.rounds[self.ids[done]] = rnd
        self.cause[self.ids[done]] = why

    def side_out(self, rows: np.ndarray, s: int) -> np.ndarray:
        """Of the fights ``rows``, those where side ``s`` has nobody standing."""
        members = np.flatnonzero(self.side == s)
        up = ((self.wp[np.ix_(rows, members)] > self.rules.down_at)
              & ~self.withdrawn[np.ix_(rows, members)])
        return ~up.any(axis=1)

    def won(self, out: np.ndarray, by_side_a: bool, rnd: int, why: int,
            running: np.ndarray) -> None:
        """The fights ``out`` (rows) end in a win for side A (``by_side_a``) or B."""
        won = np.zeros(len(self.ids), bool)
        won[out] = True
        self.finish(won, Winner.A if by_side_a else Winner.B, rnd, why)
        running[out] = False

    def threat(self) -> np.ndarray:
        """Fights where someone can still possibly hit (003.4's test, every defence that
        applies and every aid that may come counted; see ``reference.fight``'s can_hit)."""
        rules = self.rules
        standing = (self.wp > rules.down_at) & ~self.withdrawn
        threat = np.zeros(len(self.ids), bool)
        every = np.arange(len(self.ids))
        for i, j in self.pairs:
            if self.profiles[i].turn_policy == "full_defence":
                continue
            helpers = self.helpers[i]
            aid = self.aided[:, i] + (rules.aid_bonus * standing[:, helpers].sum(axis=1)
                                      if len(helpers) else 0)
            guard = (self.full_defence[:, j] * rules.full_defence_bonus if self.guards[j]
                     else 0)
            reach = (self.attack[i] + self.pool[:, i] + aid + self.high - self.defence[j]
                     - guard - self.low)
            if self.terms is not None:  # the house rules at their best for the attacker
                reach = (reach + self.terms.best("attack", i, j, every)
                         - self.terms.best("defence", j, i, every))
            threat |= standing[:, i] & standing[:, j] & (reach > 0)
        return threat

    def start_round(self, rnd: int) -> np.ndarray:
        """The stalemate test at the start of round ``rnd``; returns the fights that play
        the round.  Where a miss still costs the attacker (``margin_failure_damage``) the
        stalemate's rounds are played, and the draw comes at the end of the last of them
        (docs/pool.md); otherwise nothing can happen in them and the draw is booked now."""
        rules = self.rules
        if self.terms is not None:
            self.terms.bind(rnd, wp=self.wp, armour=self.armour, pool=self.pool,
                            withdrawn=self.withdrawn)
        threat = self.threat()
        if threat.all() or rules.margin_failure_damage:
            new = ~threat & (self.stale_end == 0)
            self.stale_end[new] = rnd + rules.stalemate_rounds - 1
            return np.ones(len(self.ids), bool)
        end = rnd + rules.stalemate_rounds - 1
        if end <= rules.max_rounds:
            self.finish(~threat, Winner.DRAW, end, CAUSES.stalemate)
        else:
            self.finish(~threat, Winner.DRAW, rules.max_rounds, CAUSES.max_rounds)
        return threat

    def turn(self, f: int, rnd: int, running: np.ndarray, here: np.ndarray) -> None:
        """Fighter ``f``'s turn in the running fights ``here`` (a mask: where it holds this
        turn position): a withdrawal, a turn that is not an attack, or an attack on its
        target."""
        p, rules = self.profiles[f], self.rules
        rows = np.flatnonzero(here & (self.wp[:, f] > rules.down_at) & ~self.withdrawn[:, f])
        if not len(rows):
            return
        if self.defends:  # full defence lasts until the fighter's next turn
            self.full_defence[rows, f] = False
        if p.withdraw_at:
            leaving = self.wp[rows, f] <= p.withdraw_at
            if leaving.any():
                leave = rows[leaving]
                self.withdrawn[leave, f] = True
                rows = rows[~leaving]
                out = leave[self.side_out(leave, self.side[f])]
                if len(out):
                    self.won(out, self.side[f] != 0, rnd, CAUSES.withdrew, running)
        targets = _targets(rules, self.foes[f], self.wp, self.withdrawn, rows)
        if p.turn_policy != "attack_always" and (p.turn_policy != "attack"
                                                 or rules.margin_failure_damage):
            attacks = ~self.other_turn(f, rows, targets)
            rows, targets = rows[attacks], targets[attacks]
        if len(self.foes[f]) == 1:  # a lone foe: every attack is on it
            if len(rows):
                self.exchange(f, int(self.foes[f][0]), rows, rnd, running)
            return
        for j in self.foes[f]:
            mine = rows[targets == j]
            if len(mine):
                self.exchange(f, int(j), mine, rnd, running)

    def exchange(self, f: int, j: int, rows: np.ndarray, rnd: int, running: np.ndarray) -> None:
        """``f`` attacks ``j`` in the fights ``rows``: bids, the check, and a hit's damage
        or a miss's cost to the attacker."""
        rules, terms = self.rules, self.terms
        aid = self.aided[rows, f].astype(np.int32)
        aided_now = self.aided.copy() if self.eq is not None else self.aided
        self.aided[rows, f] = 0
        bonus = aid - self.full_defence[rows, j] * np.int32(rules.full_defence_bonus)
        extra = None
        if terms is not None:  # read when the attack is declared, before any bid
            bonus = bonus + (terms.total("attack", f, j, rows)
                             - terms.total("defence", j, f, rows))
            extra = terms.total("damage", f, j, rows)
        lead = int(self.attack[f] - self.defence[j])
        stale = self.stale_end[rows]
        a, d = _bids(rules, self.profiles, self.eq, rnd, f, j, lead + bonus, rows, self.wp,
                     self.armour, self.pool, (self.full_defence, aided_now), self.rng,
                     np.where(stale > 0, np.minimum(stale, rules.max_rounds) - rnd + 1, 0))
        self.pool[rows, f] -= a
        self.pool[rows, j] -= d
        self.spent[self.ids[rows], f] += a
        self.spent[self.ids[rows], j] += d
        margin = lead + bonus + a.astype(np.int32) - d
        if self.high:
            margin += (self.rng.integers(self.low, self.high + 1, len(rows))
                       - self.rng.integers(self.low, self.high + 1, len(rows)))
        hit = margin > 0  # the attack must beat the defence (003.2)
        if rules.margin_failure_damage:
            self.backlash(f, j, rows[~hit], -margin[~hit], rnd, running)
        if terms is not None:  # the house rules' effects on a miss
            terms.fire("miss", f, j, rows[~hit])
        if hit.any():
            self.hit(f, j, rows[hit], margin[hit], None if extra is None else extra[hit],
                     rnd, running)

    def hit(self, f: int, j: int, rows: np.ndarray, margin: np.ndarray,
            extra: np.ndarray | None, rnd: int, running: np.ndarray) -> None:
        """A hit's damage, off the armour first; a side with nobody standing loses."""
        damage = self.profiles[f].damage + margin_bonus(self.rules, margin)
        if extra is not None:
            damage = np.maximum(0, damage + extra)
        self.hurt(j, rows, damage, f, rnd, running)
        if self.terms is not None:  # the house rules' effects on a hit
            self.terms.fire("hit", f, j, rows)

    def backlash(self, f: int, j: int, rows: np.ndarray, shortfall: np.ndarray, rnd: int,
                 running: np.ndarray) -> None:
        """A miss by ``shortfall`` hurts the attacker ``f`` (``margin_failure_damage``)."""
        damage = failure_damage(self.rules, shortfall)
        hurt = damage > 0
        if hurt.any():
            self.hurt(f, rows[hurt], damage[hurt], j, rnd, running)

    def hurt(self, victim: int, rows: np.ndarray, damage: np.ndarray, by: int, rnd: int,
             running: np.ndarray) -> None:
        """``damage`` to ``victim`` in the fights ``rows``, off its armour first; where its
        side has nobody standing, ``by``'s side wins."""
        absorbed = np.minimum(self.armour[rows, victim], damage)
        self.armour[rows, victim] -= absorbed.astype(np.int16)
        self.wp[rows, victim] -= (damage - absorbed).astype(np.int16)
        fell = rows[self.wp[rows, victim] <= self.rules.down_at]
        if len(fell):
            out = fell[self.side_out(fell, self.side[victim])]
            if len(out):
                self.won(out, self.side[by] == 0, rnd, CAUSES.down, running)

    def reach(self, f: int, targets: np.ndarray, rows: np.ndarray, extra: int = 0
              ) -> np.ndarray:
        """How far ``f``'s best attack (base, aid held + ``extra``, whole pool, best die,
        house rules at their best) beats each target's defence (base, full defence, worst
        die) in the fights ``rows``; <= 0: it cannot possibly hit."""
        t = np.maximum(targets, 0)
        guard = self.full_defence[rows, t] * self.rules.full_defence_bonus
        reach = (self.attack[f] + self.aided[rows, f] + extra + self.pool[rows, f] + self.high
                 - self.defence[t] - guard - self.low)
        if self.terms is not None:  # the house rules at their best for the attacker
            reach = (reach + self.terms.best("attack", f, t, rows)
                     - self.terms.best("defence", t, f, rows))
        return reach

    def other_turn(self, f: int, rows: np.ndarray, targets: np.ndarray) -> np.ndarray:
        """Fighter ``f``'s turns that are not attacks (``turn_policy``) in the fights
        ``rows``, carried out in place; returns the mask of those where it did not attack
        (see ``reference._turn``)."""
        rules, policy = self.rules, self.profiles[f].turn_policy
        hopeless = (self.reach(f, targets, rows) <= 0) & (targets >= 0)
        declines = hopeless & rules.margin_failure_damage
        helps = np.zeros(len(rows), bool)
        if policy == "full_defence":
            defend = np.ones(len(rows), bool)
        elif policy == "defend_if_no_hit":
            defend = hopeless
        else:  # aid (always, or when hopeless), else a declined attack's full defence
            wants = (np.ones(len(rows), bool) if policy == "aid"
                     else hopeless if policy == "aid_if_no_hit" else declines)
            ally = np.full(len(rows), -1)
            if wants.any():
                ally[wants] = self.recipient(f, rows[wants])
            helps = ally >= 0
            self.aided[rows[helps], ally[helps]] += np.int16(rules.aid_bonus)
            defend = declines & ~helps
        self.full_defence[rows[defend], f] = True
        idle = helps | defend
        self.aided[rows[idle], f] = 0  # aid held lapses with its turn
        return idle

    def recipient(self, f: int, rows: np.ndarray) -> np.ndarray:
        """The ally ``f``'s aid goes to in the fights ``rows`` (-1: none): the soonest after
        ``f`` in each fight's order who will attack on its next turn."""
        ally = np.full(len(rows), -1)
        soonest = np.full(len(rows), 99)
        k = len(self.profiles)
        for g in self.mates[f]:
            after = (self.pos[rows, g].astype(np.int16) - self.pos[rows, f]) % k
            sooner = self.will_attack(int(g), rows) & (after < soonest)
            ally = np.where(sooner, g, ally)
            soonest = np.where(sooner, after, soonest)
        return ally

    def will_attack(self, g: int, rows: np.ndarray) -> np.ndarray:
        """Whether ``g`` will attack on its next turn in the fights ``rows``, as its policy
        reads the fight now with an aid counted (``reference._will_attack``)."""
        p, rules = self.profiles[g], self.rules
        able = (self.wp[rows, g] > rules.down_at) & ~self.withdrawn[rows, g]
        if p.withdraw_at:
            able &= self.wp[rows, g] > p.withdraw_at
        if p.turn_policy in ("full_defence", "aid"):
            return np.zeros(len(rows), bool)
        if p.turn_policy == "attack_always" or (p.turn_policy == "attack"
                                                and not rules.margin_failure_damage):
            return able
        targets = _targets(rules, self.foes[g], self.wp, self.withdrawn, rows)
        return able & (targets >= 0) & (self.reach(g, targets, rows, rules.aid_bonus) > 0)

    def end_round(self, rnd: int, running: np.ndarray) -> bool:
        """Book the played stalemates that end now and the round cap; keep the fights still
        running.  Returns whether every fight is over."""
        ending = running & (self.stale_end == rnd)
        if ending.any():
            self.finish(ending, Winner.DRAW, rnd, CAUSES.stalemate)
            running &= ~ending
        if rnd == self.rules.max_rounds:
            self.finish(running, Winner.DRAW, self.rules.max_rounds, CAUSES.max_rounds)
            return True
        if not running.all():
            for name in ("ids", "wp", "armour", "pool", "withdrawn", "full_defence", "aided",
                         "stale_end", "orders", "pos"):
                setattr(self, name, getattr(self, name)[running])
        return False

    def result(self) -> tuple[np.ndarray, ...]:
        spent_a = self.spent[:, self.side == 0].sum(axis=1).astype(np.int16)
        spent_b = self.spent[:, self.side == 1].sum(axis=1).astype(np.int16)
        return self.winner, self.rounds, self.cause, spent_a, spent_b


def _targets(rules: Rules, foes: np.ndarray, wp: np.ndarray, withdrawn: np.ndarray,
             rows: np.ndarray) -> np.ndarray:
    """The target of an attacker whose foes are ``foes`` in each of the fights ``rows``
    (``target_policy``; -1 if none stands)."""
    if len(foes) == 1:
        return np.full(len(rows), foes[0])
    wp, withdrawn = wp[rows][:, foes], withdrawn[rows][:, foes]
    standing = (wp > rules.down_at) & ~withdrawn
    if rules.target_policy == "first":
        pick = np.argmax(standing, axis=1)
    else:  # lowest WP among the standing foes, ties to the first listed
        key = np.where(standing, wp.astype(np.int32), np.iinfo(np.int32).max)
        pick = np.argmin(key, axis=1)
    return np.where(standing.any(axis=1), foes[pick], -1)


def _bids(rules: Rules, profiles: list[Profile], eq: _EquilibriumTables | None, rnd: int,
          f: int, j: int, lead: int, rows: np.ndarray, wp: np.ndarray, armour: np.ndarray,
          pool: np.ndarray, turns: tuple[np.ndarray, np.ndarray], rng: np.random.Generator,
          stale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Attack and defence bids of the exchanges ``rows`` (fighter ``f`` attacks ``j``;
    ``turns``: every fighter's full defence and aid held, (n, k), as the turn began;
    ``stale``: rounds to a played stalemate's draw, 0 outside one)."""
    own_a, own_d = pool[rows, f], pool[rows, j]
    states = (eq.rows(rnd, f, wp[rows], armour[rows], pool[rows],
                      (turns[0][rows], turns[1][rows]), stale)
              if eq is not None else np.empty(0, np.int64))

    def bid(who: int, attacking: bool, told: np.ndarray | None) -> np.ndarray:
        own, other = (own_a, own_d) if attacking else (own_d, own_a)
        if profiles[who].policy == "equilibrium":
            assert eq is not None
            return eq.bids(states, attacking, own, told, rng)
        return policy_bids(profiles[who].policy, attacking, own, other, lead, told, rng)

    if rules.bid_protocol == "attacker_first":
        a = bid(f, True, None)
        return a, bid(j, False, a)
    if rules.bid_protocol == "defender_first":
        d = bid(j, False, None)
        return bid(f, True, d), d
    return bid(f, True, None), bid(j, False, None)
