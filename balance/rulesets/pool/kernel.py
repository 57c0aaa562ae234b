"""Vectorised kernel of seed 003: many fights at once, one Python loop over turns.

Structure of arrays over fights (axis 0) and fighters (axis 1): Wound Points, armour WP
and pool as int16.  Fights are split by turn order (a tie after every tie-break is a
coin, so an order is drawn per fight) and each group runs with its order fixed, so the
actor of every turn is one fighter for the whole group.  Finished fights are compacted
out at the end of every round.  The rules are those of :mod:`.reference`, which this
kernel must match in distribution (``tests/pool/test_agreement.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...language import total
from ...outcomes import Outcomes
from ...results import Winner
from ..house import HouseRules
from .language import best_case, house_rules, static_value
from .reference import CAUSES
from .rules import Combatant, Profile, Rules, failure_damage, margin_bonus, profile

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

        solved = exact.solved(rules, side_a, side_b)
        space = solved.space
        eq = solved.solution_for(order).strategies
        self.cap = rules.max_rounds
        self.n_cores = space.n_cores
        self.h_stride = space.h_stride
        self.p_stride = space.p_stride
        self.lookups = [space.health_lookup(f) for f in range(space.k)]
        self.row = eq.row
        self.stale_row = eq.stale_row
        self.attack_cdf = np.cumsum(eq.attack, axis=1)
        self.defence_cdf = np.cumsum(eq.defence, axis=1)
        self.attack_reply = eq.attack_reply
        self.defence_reply = eq.defence_reply

    def rows(self, rnd: int, actor: int, wp: np.ndarray, armour: np.ndarray, pool: np.ndarray,
             stale: np.ndarray | None = None) -> np.ndarray:
        """Strategy rows of the states of a batch of fights in round ``rnd`` (``stale``: per
        fight, the rounds to the draw of a played stalemate, 0 outside one; in a stalemate
        the solver did not play, where nothing can happen, row 0: bid nothing)."""
        core = np.zeros(len(wp), np.int64)
        for f, (low, table) in enumerate(self.lookups):
            health = np.maximum(wp[:, f].astype(np.int64) + armour[:, f], low)
            core += table[health - low] * self.h_stride[f]
            core += pool[:, f].astype(np.int64) * self.p_stride[f]
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
    """The house rules' modifiers over a batch of fights (rows of the state arrays ``wp``,
    ``armour``, ``pool``, ``withdrawn``: (n, k)); arrays are built only for the names the
    rows read.  A fight without house rules never makes one."""

    def __init__(self, rules: Rules, house: HouseRules, fighters: Sequence[Combatant],
                 side: np.ndarray, rng: np.random.Generator) -> None:
        self.rules, self.rows, self.side, self.rng = rules, house.modifiers, side, rng
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
        return total(self.rows, to, self.env(me, foe, rows), self.rng, n=len(rows)).value

    def best(self, to: str, me: Any, foe: Any, rows: np.ndarray) -> np.ndarray:
        """The modifiers on ``to`` at their best for the attacker (``best_case``)."""
        return best_case(self.rows, to, self.env(me, foe, rows), n=len(rows),
                         high=to == "attack")


_STATIC_FIELDS = frozenset({"coordination", "intellect", "fortitude", "combat", "status",
                            "weapon", "armour", "max_wound_points", "max_pool"})


def simulate(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights; :class:`Outcomes` with extras ``a_pool_spent``, ``b_pool_spent``."""
    from .exact import linear_orders

    everyone = (*side_a, *side_b)
    profiles = ([profile(c, rules, 0) for c in side_a] + [profile(c, rules, 1) for c in side_b])
    orders = linear_orders(rules, everyone)
    # one order per fight: the coin of 003.3 #3 over every order the ties allow
    counts = np.array([n]) if len(orders) == 1 else rng.multinomial(n, [w for _, w in orders])
    parts = [_simulate_order(rules, side_a, side_b, profiles, order, int(m), rng)
             for (order, _), m in zip(orders, counts, strict=True) if m]
    winner, rounds, cause, spent_a, spent_b = (np.concatenate(x) for x in zip(*parts,
                                                                               strict=True))
    return Outcomes(winner, rounds, cause, CAUSES,
                    {"a_pool_spent": spent_a, "b_pool_spent": spent_b})


def _simulate_order(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                    profiles: list[Profile], order: Sequence[int], n: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """``n`` fights with the turn order fixed to ``order``."""
    k = len(profiles)
    side = np.array([p.side for p in profiles])
    attack = np.array([p.attack for p in profiles])
    defence = np.array([p.defence for p in profiles])
    sides = rules.die_sides
    low, high = (1, sides) if sides else (0, 0)
    eq = (_EquilibriumTables(rules, side_a, side_b, order)
          if any(p.policy == "equilibrium" for p in profiles) else None)
    house = house_rules(rules)
    terms = (_HouseTerms(rules, house, (*side_a, *side_b), side, rng) if house.modifiers
             else None)

    wp = np.tile(np.array([p.wound_points for p in profiles], np.int16), (n, 1))
    armour = np.tile(np.array([p.armour_wp for p in profiles], np.int16), (n, 1))
    pool = np.tile(np.array([p.pool for p in profiles], np.int16), (n, 1))
    withdrawn = np.zeros((n, k), bool)
    full_defence = np.zeros((n, k), bool)   # + full_defence_bonus until its next turn
    aided = np.zeros((n, k), np.int16)      # bonus to its next attack
    ids = np.arange(n)
    winner = np.zeros(n, np.int8)
    rounds = np.zeros(n, np.int16)
    cause = np.full(n, CAUSES.max_rounds, np.int8)
    stale_end = np.zeros(n, np.int32)  # a played stalemate's last round (0: none)
    spent = np.zeros((n, k), np.int16)  # by fight id: not compacted
    foes = [np.flatnonzero(side != side[f]) for f in range(k)]
    pairs = [(i, j) for i in range(k) for j in foes[i]]
    # the allies an aid reaches, soonest first (003.2 step 3: "aid" helps the next to act)
    at = {f: p for p, f in enumerate(order)}
    allies = [[g for g in list(order[at[f] + 1:]) + list(order[:at[f]])
               if side[g] == side[f]] for f in range(k)]

    def finish(done: np.ndarray, who: np.ndarray | int, rnd: np.ndarray | int, why: int) -> None:
        winner[ids[done]] = who
        rounds[ids[done]] = rnd
        cause[ids[done]] = why

    def side_out(rows: np.ndarray, s: int) -> np.ndarray:
        """Of the fights ``rows``, those where side ``s`` has nobody standing."""
        members = np.flatnonzero(side == s)
        up = (wp[np.ix_(rows, members)] > rules.down_at) & ~withdrawn[np.ix_(rows, members)]
        return ~up.any(axis=1)

    for rnd in range(1, rules.max_rounds + 1):
        if not len(ids):
            break
        standing = (wp > rules.down_at) & ~withdrawn
        if terms is not None:
            terms.bind(rnd, wp=wp, armour=armour, pool=pool, withdrawn=withdrawn)
        # stalemate: nobody can possibly hit (003.4), tested at the start of the round
        threat = np.zeros(len(ids), bool)
        every = np.arange(len(ids))
        for i, j in pairs:
            reach = attack[i] + pool[:, i] + high - defence[j] - low
            if terms is not None:  # the house rules at their best for the attacker
                reach = reach + terms.best("attack", i, j, every) - terms.best("defence", j, i,
                                                                               every)
            threat |= standing[:, i] & standing[:, j] & (reach > 0)
        if not threat.all() and rules.margin_failure_damage:
            # a miss still costs the attacker: the stalemate's rounds are played, and the
            # draw comes at the end of the last of them (docs/pool.md)
            new = ~threat & (stale_end == 0)
            stale_end[new] = rnd + rules.stalemate_rounds - 1
            running = np.ones(len(ids), bool)
        elif not threat.all():
            end = rnd + rules.stalemate_rounds - 1
            stale = ~threat
            if end <= rules.max_rounds:
                finish(stale, Winner.DRAW, end, CAUSES.stalemate)
            else:
                finish(stale, Winner.DRAW, rules.max_rounds, CAUSES.max_rounds)
            running = threat
        else:
            running = np.ones(len(ids), bool)
        for f in order:
            p = profiles[f]
            act = running & (wp[:, f] > rules.down_at) & ~withdrawn[:, f]
            if not act.any():
                continue
            full_defence[act, f] = False
            if p.withdraw_at:
                leave = np.flatnonzero(act & (wp[:, f] <= p.withdraw_at))
                if len(leave):
                    withdrawn[leave, f] = True
                    act[leave] = False
                    out = leave[side_out(leave, side[f])]
                    if len(out):
                        won = np.zeros(len(ids), bool)
                        won[out] = True
                        finish(won, Winner.B if side[f] == 0 else Winner.A, rnd,
                               CAUSES.withdrew)
                        running[out] = False
            targets = _targets(rules, f, foes[f], wp, withdrawn, act)
            if p.turn_policy != "attack":
                act &= ~_other_turns(rules, p, f, targets, allies[f], act, wp, withdrawn,
                                     pool, attack, defence, full_defence, aided, low, high,
                                     terms)
            for j in foes[f]:
                rows = np.flatnonzero(act & (targets == j))
                if not len(rows):
                    continue
                aid = aided[rows, f].astype(np.int32)
                aided[rows, f] = 0
                guard = full_defence[rows, j] * np.int32(rules.full_defence_bonus)
                bonus = aid - guard
                if terms is not None:  # read when the attack is declared, before any bid
                    bonus = bonus + (terms.total("attack", f, j, rows)
                                     - terms.total("defence", j, f, rows))
                    extra = terms.total("damage", f, j, rows)
                lead = int(attack[f] - defence[j])
                a, d = _bids(rules, profiles, eq, rnd, f, int(j), lead + bonus, rows, wp,
                             armour, pool, rng,
                             np.where(stale_end[rows] > 0, np.minimum(
                                 stale_end[rows], rules.max_rounds) - rnd + 1, 0))
                pool[rows, f] -= a
                pool[rows, j] -= d
                spent[ids[rows], f] += a
                spent[ids[rows], j] += d
                margin = lead + bonus + a.astype(np.int32) - d
                if high:
                    margin += (rng.integers(low, high + 1, len(rows))
                               - rng.integers(low, high + 1, len(rows)))
                hit = margin > 0  # the attack must beat the defence (003.2)
                if rules.margin_failure_damage:
                    _backlash(rules, f, int(j), rows[~hit], -margin[~hit], wp, armour, side_out,
                              finish, running, act, side, len(ids), rnd)
                rows, margin = rows[hit], margin[hit]
                if not len(rows):
                    continue
                damage = profiles[f].damage + margin_bonus(rules, margin)
                if terms is not None:
                    damage = np.maximum(0, damage + extra[hit])
                absorbed = np.minimum(armour[rows, j], damage)
                armour[rows, j] -= absorbed.astype(np.int16)
                wp[rows, j] -= (damage - absorbed).astype(np.int16)
                fell = wp[rows, j] <= rules.down_at
                if fell.any():
                    out = rows[fell]
                    out = out[side_out(out, side[j])]
                    if len(out):
                        won = np.zeros(len(ids), bool)
                        won[out] = True
                        finish(won, Winner.A if side[f] == 0 else Winner.B, rnd, CAUSES.down)
                        running[out] = False
                        act[out] = False
        ending = running & (stale_end == rnd)
        if ending.any():
            finish(ending, Winner.DRAW, rnd, CAUSES.stalemate)
            running &= ~ending
        # compact: keep the fights still running
        keep = running
        if rnd == rules.max_rounds:
            finish(keep, Winner.DRAW, rules.max_rounds, CAUSES.max_rounds)
            break
        if not keep.all():
            ids, wp, armour, pool = ids[keep], wp[keep], armour[keep], pool[keep]
            withdrawn, full_defence, aided = withdrawn[keep], full_defence[keep], aided[keep]
            stale_end = stale_end[keep]
    spent_a = spent[:, side == 0].sum(axis=1).astype(np.int16)
    spent_b = spent[:, side == 1].sum(axis=1).astype(np.int16)
    return winner, rounds, cause, spent_a, spent_b


def _other_turns(rules: Rules, p: Profile, f: int, targets: np.ndarray, allies: list[int],
                 act: np.ndarray, wp: np.ndarray, withdrawn: np.ndarray, pool: np.ndarray,
                 attack: np.ndarray, defence: np.ndarray, full_defence: np.ndarray,
                 aided: np.ndarray, low: int, high: int,
                 terms: _HouseTerms | None = None) -> np.ndarray:
    """Fighter ``f``'s turns that are not attacks (``turn_policy``), carried out in place;
    returns the mask of fights where it did not attack (see ``reference._turn``)."""
    rows = np.arange(len(act))
    t = np.maximum(targets, 0)
    guard = full_defence[rows, t] * rules.full_defence_bonus
    reach = attack[f] + aided[:, f] + pool[:, f] + high - defence[t] - guard - low
    if terms is not None:  # the house rules at their best for the attacker
        reach = reach + terms.best("attack", f, t, rows) - terms.best("defence", t, f, rows)
    hopeless = (reach <= 0) & (targets >= 0)
    policy = p.turn_policy
    if policy in ("full_defence", "defend_if_no_hit"):
        defend = act & (hopeless if policy == "defend_if_no_hit" else True)
        full_defence[defend, f] = True
        return defend
    # aid: the standing ally who acts soonest after f
    ally = np.full(len(act), -1)
    for g in reversed(allies):
        up = (wp[:, g] > rules.down_at) & ~withdrawn[:, g]
        ally = np.where(up, g, ally)
    helps = act & (ally >= 0) & (hopeless if policy == "aid_if_no_hit" else True)
    where = np.flatnonzero(helps)
    aided[where, ally[where]] += np.int16(rules.aid_bonus)
    return helps


def _backlash(rules: Rules, f: int, j: int, rows: np.ndarray, shortfall: np.ndarray,
              wp: np.ndarray, armour: np.ndarray, side_out: Any, finish: Any,
              running: np.ndarray, act: np.ndarray, side: np.ndarray, n: int, rnd: int) -> None:
    """A miss by ``shortfall`` hurts the attacker ``f`` (``margin_failure_damage``)."""
    damage = failure_damage(rules, shortfall)
    hurt = damage > 0
    rows, damage = rows[hurt], damage[hurt]
    if not len(rows):
        return
    absorbed = np.minimum(armour[rows, f], damage)
    armour[rows, f] -= absorbed.astype(np.int16)
    wp[rows, f] -= (damage - absorbed).astype(np.int16)
    fell = rows[wp[rows, f] <= rules.down_at]
    if len(fell):
        out = fell[side_out(fell, side[f])]
        if len(out):
            won = np.zeros(n, bool)
            won[out] = True
            finish(won, Winner.A if side[j] == 0 else Winner.B, rnd, CAUSES.down)
            running[out] = False
            act[out] = False


def _targets(rules: Rules, f: int, foes: np.ndarray, wp: np.ndarray, withdrawn: np.ndarray,
             act: np.ndarray) -> np.ndarray:
    """Each acting fight's target for fighter ``f`` (``target_policy``; -1 if none)."""
    if len(foes) == 1:
        return np.full(len(wp), foes[0])
    standing = (wp[:, foes] > rules.down_at) & ~withdrawn[:, foes]
    if rules.target_policy == "first":
        pick = np.argmax(standing, axis=1)
    else:  # lowest WP among the standing foes, ties to the first listed
        key = np.where(standing, wp[:, foes].astype(np.int32), np.iinfo(np.int32).max)
        pick = np.argmin(key, axis=1)
    return np.where(standing.any(axis=1), foes[pick], -1)


def _bids(rules: Rules, profiles: list[Profile], eq: _EquilibriumTables | None, rnd: int,
          f: int, j: int, lead: int, rows: np.ndarray, wp: np.ndarray, armour: np.ndarray,
          pool: np.ndarray, rng: np.random.Generator, stale: np.ndarray | None = None
          ) -> tuple[np.ndarray, np.ndarray]:
    """Attack and defence bids of the exchanges ``rows`` (fighter ``f`` attacks ``j``;
    ``stale``: rounds to a played stalemate's draw, 0 outside one)."""
    own_a, own_d = pool[rows, f], pool[rows, j]
    states = (eq.rows(rnd, f, wp[rows], armour[rows], pool[rows], stale)
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
