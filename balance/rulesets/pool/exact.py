"""The whole fight of seed 003 as a zero-sum stochastic game, solved exactly.

State
-----
A *core* is every fighter's health (Wound Points + armour WP, see :mod:`.rules`) and
remaining Combat Pool; a *state* is a core plus whose turn it is.  Health is stored as an
index into the values a fighter's health can actually take (full health minus sums of the
damages its foes can deal), index 0 meaning "out".

Exchange
--------
In a state, the actor attacks its target (``target_policy``); the actor's side bids ``a``
(0..its pool), the target's side ``d``.  ``M[a, d]`` is the expected value of the
successor states (over the randomiser's dice, if any).  Under ``bid_protocol="sealed"`` the
exchange is the matrix game ``M`` (:func:`.matrix_game.solve_sealed`: saddle point, a small
simplex, ``scipy.optimize.linprog``); under the informed protocols it is max-min or min-max.

Order of solution (backward induction)
--------------------------------------
Every transition either spends pool or lowers a health index -- except the *null*
transition (both bid 0 and nothing lands), which keeps the core and passes the turn.  So
cores are solved in increasing order of ``sum(health index) + sum(pool)``, every
non-null successor is solved first, and the only cycle is the turn passing round the
living fighters of one core with nobody spending.  That cycle is a small recursive game:
``x_i = val(M_i(x_next))``, each ``val`` monotone and 1-Lipschitz in the one unknown entry;
it is solved as a scalar fixed point of the composition, started from the draw value
(the limit of ever longer finite fights) and finished by bisection when plain iteration
is slow.

Draws and the objective
-----------------------
Side A maximises ``P(A wins) + draw_worth * P(draw)`` (``draw_worth = 0.5`` is the same as
maximising ``P(A wins) - P(B wins)``); side B minimises it.  A core where nobody can
possibly hit is a draw (the stalemate rule).  The round cap ``max_rounds`` is not part of
the state: the solved game is the fight without a cap, endless mutual waiting being a
draw.  The reported win / draw / loss probabilities are then computed *exactly with the
cap*, by propagating the state distribution round by round under the equilibrium
strategies (a Markov chain), which is what Monte Carlo with ``pool_policy="equilibrium"``
estimates; ``capped_mass`` says how much probability the cap cut off.

Turn-order ties left after every tie-break (a seeded coin) are averaged over; orders that
are rotations of each other share one solved game (only the starting fighter differs).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse

from ...errors import IntractableError
from ..base import Probabilities
from .matrix_game import GameSolution, solve_game
from .rules import Combatant, Profile, Rules, can_possibly_hit, margin_bonus, order_groups, profile

__all__ = [
    "MAX_STATES",
    "EquilibriumTable",
    "Solution",
    "Space",
    "solve",
    "solve_space",
]

MAX_STATES = 3_000_000
"""Largest number of (whose turn, core) states the solver accepts."""

A_WINS, B_WINS, DRAW, LIVE = 1, 0, 2, 3  # core status codes


# --- the state space ---------------------------------------------------------------------


@dataclass
class PairTable:
    """How an attack by fighter ``i`` on fighter ``j`` can end, by ``s = a - d``.

    ``p_miss[s + offset]`` and ``p_hit[s + offset, k]`` (damage ``damage[k]``) are
    probabilities over the randomiser's dice; ``after[h, k]`` is the target's health index
    after taking ``damage[k]`` at health index ``h``.
    """

    offset: int
    p_miss: np.ndarray
    p_hit: np.ndarray
    damage: np.ndarray
    after: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))


def dice_difference(rules: Rules) -> dict[int, float]:
    """Distribution of (attacker's die - defender's die); ``{0: 1}`` without a randomiser."""
    n = rules.die_sides
    if not n:
        return {0: 1.0}
    return {t: (n - abs(t)) / n**2 for t in range(-(n - 1), n)}


class Space:
    """The cores of one matchup: health indices and pools of every fighter.

    Order-independent; :func:`solve_space` solves it for one cyclic turn order.
    """

    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant]
                 ) -> None:
        self.rules = rules
        self.profiles: list[Profile] = ([profile(c, rules, 0) for c in side_a]
                                        + [profile(c, rules, 1) for c in side_b])
        self.k = k = len(self.profiles)
        self.side = np.array([p.side for p in self.profiles])
        self.pool = np.array([p.pool for p in self.profiles])
        self.max_pool = int(self.pool.max())
        self.draw_worth = rules.draw_worth
        diff = dice_difference(rules)
        self.pairs: dict[tuple[int, int], PairTable] = {}
        for i, j in itertools.product(range(k), range(k)):
            if self.side[i] != self.side[j]:
                self.pairs[i, j] = self._pair_table(i, j, diff)
        # health values each fighter can take: full health minus sums of possible damages
        self.health_values: list[np.ndarray] = []
        for j in range(k):
            hits = {int(x) for (i, jj), t in self.pairs.items() if jj == j
                    for x in t.damage if x > 0}
            self.health_values.append(self._reachable_health(self.profiles[j].health, hits))
        for (_i, j), t in self.pairs.items():
            values = self.health_values[j]
            lookup = {int(v): n for n, v in enumerate(values)}
            after = np.zeros((len(values), len(t.damage)), np.int64)
            for n, v in enumerate(values):
                if n == 0:
                    continue
                for m, dmg in enumerate(t.damage):
                    after[n, m] = lookup.get(int(v - dmg), 0)
            t.after = after
        self.wp_full = np.array([p.wound_points for p in self.profiles])
        self.wp_at = [np.minimum(v, w) for v, w in zip(self.health_values, self.wp_full,
                                                       strict=True)]
        dims = [len(v) for v in self.health_values] + [int(p) + 1 for p in self.pool]
        self.dims = tuple(dims)
        self.n_cores = int(np.prod(dims))
        if k * self.n_cores > MAX_STATES:
            raise IntractableError(
                f"pool has no exact solution here: {k * self.n_cores:,} states "
                f"(health values {[len(v) for v in self.health_values]}, pools "
                f"{self.pool.tolist()}) exceed the solver's limit of {MAX_STATES:,}")
        strides = np.ones(len(dims), np.int64)
        for n in range(len(dims) - 2, -1, -1):
            strides[n] = strides[n + 1] * dims[n + 1]
        self.h_stride = strides[:k]
        self.p_stride = strides[k:]
        index = np.indices(dims, dtype=np.int16).reshape(len(dims), -1).T
        self.h_idx = index[:, :k]
        self.pools = index[:, k:]
        self.full_core = int(sum((len(v) - 1) * s for v, s in zip(self.health_values,
                                                                 self.h_stride, strict=True))
                             + int((self.pool * self.p_stride).sum()))
        self.status = self._statuses()

    # ------------------------------------------------------------------------------------
    def _pair_table(self, i: int, j: int, diff: dict[int, float]) -> PairTable:
        att, dfn = self.profiles[i], self.profiles[j]
        lead = att.attack - dfn.defence
        s_values = range(-dfn.pool, att.pool + 1)
        damages: dict[int, int] = {}
        rows = []
        for s in s_values:
            miss = 0.0
            hit: dict[int, float] = {}
            for t, pt in diff.items():
                margin = lead + s + t
                if margin > 0:  # the attack must beat the defence (003.2)
                    dmg = att.damage + margin_bonus(self.rules, margin)
                    hit[dmg] = hit.get(dmg, 0.0) + pt
                    damages.setdefault(dmg, len(damages))
                else:
                    miss += pt
            rows.append((miss, hit))
        order = sorted(damages)
        p_miss = np.array([r[0] for r in rows])
        p_hit = np.zeros((len(rows), len(order)))
        for n, (_, hit) in enumerate(rows):
            for dmg, pr in hit.items():
                p_hit[n, order.index(dmg)] = pr
        return PairTable(dfn.pool, p_miss, p_hit, np.array(order, np.int64))

    def _reachable_health(self, full: int, damages: set[int]) -> np.ndarray:
        down = self.rules.down_at
        seen = {full}
        frontier = [full]
        while frontier:
            value = frontier.pop()
            for dmg in damages:
                nxt = value - dmg
                if nxt > down and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return np.array([down, *sorted(seen)], np.int64)  # index 0: out of the fight

    def _statuses(self) -> np.ndarray:
        alive = self.h_idx > 0
        a_alive = alive[:, self.side == 0].any(axis=1)
        b_alive = alive[:, self.side == 1].any(axis=1)
        status = np.full(self.n_cores, LIVE, np.int8)
        can_hit = np.zeros(self.n_cores, bool)
        for (i, j), _ in self.pairs.items():
            threshold = np.array([can_possibly_hit(self.profiles[i], p, self.profiles[j],
                                                   self.rules)
                                  for p in range(self.pool[i] + 1)])
            can_hit |= alive[:, i] & alive[:, j] & threshold[self.pools[:, i]]
        status[~can_hit] = DRAW
        status[~b_alive] = A_WINS
        status[~a_alive] = B_WINS
        return status

    # ------------------------------------------------------------------------------------
    def core_index(self, h: Sequence[int], p: Sequence[int]) -> int:
        return int(np.dot(h, self.h_stride) + np.dot(p, self.p_stride))

    def alive_mask(self, core: int) -> int:
        return sum(1 << f for f in range(self.k) if self.h_idx[core, f] > 0)

    def target(self, i: int, core: int) -> int:
        """Whom fighter ``i`` attacks in ``core`` (``target_policy``, ties to the first)."""
        foes = [j for j in range(self.k) if self.side[j] != self.side[i]
                and self.h_idx[core, j] > 0]
        if self.rules.target_policy == "first" or len(foes) == 1:
            return foes[0]
        return min(foes, key=lambda j: (self.wp_at[j][self.h_idx[core, j]], j))

    def describe_core(self, core: int) -> str:
        """``"A: 12 WP + 4 armour, pool 3 | B: ..."`` for tables and logs."""
        parts = []
        for f, p in enumerate(self.profiles):
            health = int(self.health_values[f][self.h_idx[core, f]])
            if self.h_idx[core, f] == 0:
                parts.append(f"{p.name}: out")
                continue
            armour = max(0, health - p.wound_points)
            wp = health - armour
            text = f"{p.name}: {wp} WP" + (f" + {armour} armour" if p.armour_wp else "")
            parts.append(f"{text}, pool {int(self.pools[core, f])}")
        return " | ".join(parts)

    def health_lookup(self, f: int) -> tuple[int, np.ndarray]:
        """``(low, table)``: health index of fighter ``f`` is ``table[clip(H, low) - low]``."""
        values = self.health_values[f]
        low = int(values[0])
        table = np.full(int(values[-1]) - low + 1, -1, np.int64)
        table[0] = 0
        table[values[1:] - low] = np.arange(1, len(values))
        return low, table


@dataclass
class Exchange:
    """What can follow one state: ``succ[a, d, o]`` (flat state indices) with ``prob``."""

    target: int
    succ: np.ndarray
    prob: np.ndarray
    null: float
    """Probability, at ``a = d = 0``, that the core is unchanged (the turn just passes)."""


def next_alive_table(k: int, cycle: Sequence[int]) -> np.ndarray:
    """``nxt[i, mask]``: the first living fighter after ``i`` in the cyclic turn order."""
    nxt = np.zeros((k, 1 << k), np.int64)
    pos = {f: n for n, f in enumerate(cycle)}
    for i in range(k):
        for mask in range(1 << k):
            for step in range(1, k + 1):
                f = cycle[(pos[i] + step) % k]
                if mask >> f & 1:
                    nxt[i, mask] = f
                    break
    return nxt


def exchange(space: Space, nxt: np.ndarray, i: int, core: int) -> Exchange:
    """Every outcome of fighter ``i``'s attack in ``core``, for every pair of bids."""
    j = space.target(i, core)
    pa, pd = int(space.pools[core, i]), int(space.pools[core, j])
    table = space.pairs[i, j]
    a = np.arange(pa + 1)[:, None]
    d = np.arange(pd + 1)[None, :]
    s = a - d + table.offset
    n = space.n_cores
    base = core - a * space.p_stride[i] - d * space.p_stride[j]
    mask = space.alive_mask(core)
    h_j = int(space.h_idx[core, j])
    new_h = table.after[h_j]                                     # (K,)
    died = new_h == 0
    next_hit = np.where(died, nxt[i, mask & ~(1 << j)], nxt[i, mask])
    hit_succ = (next_hit * n + (new_h - h_j) * space.h_stride[j])[None, None, :] + base[..., None]
    miss_succ = nxt[i, mask] * n + base
    succ = np.concatenate([miss_succ[..., None], hit_succ], axis=-1)
    prob = np.concatenate([table.p_miss[s][..., None], table.p_hit[s]], axis=-1)
    null = float(table.p_miss[table.offset] + table.p_hit[table.offset][new_h == h_j].sum())
    return Exchange(j, succ, prob, null)


# --- solving -----------------------------------------------------------------------------


@dataclass
class EquilibriumTable:
    """The solved strategies, per flat state ``actor * n_cores + core``.

    ``attack[s, a]`` and ``defence[s, d]``: probabilities of each bid (the leader's
    one-hot under an informed protocol); ``attack_response[s, d]`` / ``defence_response[s,
    a]``: the informed side's reply (-1 where unused).  ``target[s]`` is the defender.
    """

    protocol: str
    attack: np.ndarray
    defence: np.ndarray
    attack_response: np.ndarray
    defence_response: np.ndarray
    target: np.ndarray

    def joint(self, state: int, pa: int, pd: int) -> np.ndarray:
        """Probability of each bid pair ``(a, d)`` in ``state``: shape ``(pa+1, pd+1)``."""
        if self.protocol == "sealed":
            return np.outer(self.attack[state, :pa + 1], self.defence[state, :pd + 1])
        out = np.zeros((pa + 1, pd + 1))
        if self.protocol == "attacker_first":
            for a in range(pa + 1):
                out[a, self.defence_response[state, a]] = self.attack[state, a]
        else:
            for d in range(pd + 1):
                out[self.attack_response[state, d], d] = self.defence[state, d]
        return out


@dataclass
class Solution:
    """The solved game for one cyclic turn order."""

    space: Space
    cycle: tuple[int, ...]
    nxt: np.ndarray
    value: np.ndarray
    """``value[actor * n_cores + core]``: A's equilibrium payoff from that state."""
    table: EquilibriumTable
    counts: dict[str, int]
    seconds: float


def _fixed_point(f: Callable[[float], float], start: float) -> tuple[float, int]:
    """The fixed point of a monotone, 1-Lipschitz ``f`` on [0, 1] reached from ``start``.

    This is the limit of ``f^n(start)``: plain iteration first, then bisection on the sign
    of ``f(x) - x`` (non-increasing) for the nearest fixed point in the direction of travel.
    Returns the point and the number of evaluations.
    """
    x, fx, evals = start, f(start), 1
    for _ in range(60):
        if abs(fx - x) <= 1e-14:
            return fx, evals
        x, fx, evals = fx, f(fx), evals + 1
    up = fx > x
    lo, hi = (x, 1.0) if up else (0.0, x)
    for _ in range(60):
        if hi - lo <= 1e-14:
            break
        mid = 0.5 * (lo + hi)
        g = f(mid) - mid
        evals += 1
        if up:
            lo, hi = (mid, hi) if g > 1e-15 else (lo, mid)
        else:
            lo, hi = (lo, mid) if g < -1e-15 else (mid, hi)
    return (hi if up else lo), evals


def solve_space(space: Space, cycle: Sequence[int], *, method: str = "auto") -> Solution:
    """Backward induction over every core of ``space`` for the cyclic turn order ``cycle``."""
    start = time.perf_counter()
    rules = space.rules
    k, n = space.k, space.n_cores
    w = space.draw_worth
    nxt = next_alive_table(k, cycle)
    value = np.zeros(k * n)
    terminal = np.select([space.status == A_WINS, space.status == B_WINS,
                          space.status == DRAW], [1.0, 0.0, w], 0.0)
    for f in range(k):
        value[f * n:(f + 1) * n] = terminal
    width = space.max_pool + 1
    table = EquilibriumTable(
        rules.bid_protocol, np.zeros((k * n, width)), np.zeros((k * n, width)),
        np.full((k * n, width), -1, np.int16), np.full((k * n, width), -1, np.int16),
        np.full(k * n, -1, np.int16))
    table.attack[:, 0] = table.defence[:, 0] = 1.0  # bid nothing where nothing can be won
    counts = {"cores": n, "states": 0, "saddle": 0, "simplex": 0, "linprog": 0, "minimax": 0,
              "cycles": 0, "cycle_evaluations": 0}
    live = np.flatnonzero(space.status == LIVE)
    potential = space.h_idx[live].sum(axis=1, dtype=np.int64) + space.pools[live].sum(
        axis=1, dtype=np.int64)
    protocol = rules.bid_protocol
    for core in live[np.argsort(potential, kind="stable")]:
        core = int(core)
        actors = [f for f in cycle if space.h_idx[core, f] > 0]
        known, nulls, targets = [], [], []
        for f in actors:
            ex = exchange(space, nxt, f, core)
            known.append((ex.prob * value[ex.succ]).sum(axis=-1))
            nulls.append(ex.null)
            targets.append(ex.target)
        m = len(actors)
        signs = [1.0 if space.side[f] == 0 else -1.0 for f in actors]

        def play(t: int, x_next: float, known: list[np.ndarray] = known,
                 nulls: list[float] = nulls, signs: list[float] = signs) -> GameSolution:
            # The attacker's side picks the row: side A maximises A's value, side B
            # minimises it, i.e. maximises its negation.
            M = signs[t] * known[t]
            if nulls[t] > 0.0:
                M[0, 0] += signs[t] * nulls[t] * x_next
            sol = solve_game(M, protocol, method=method)
            return dataclasses.replace(sol, value=signs[t] * sol.value)

        x = [0.0] * m
        breaks = [t for t in range(m) if nulls[t] == 0.0]
        if breaks:
            first = breaks[0]
            walk = [(first - r) % m for r in range(m)]
        else:
            def around(x0: float) -> float:
                v = x0
                for t in range(m - 1, -1, -1):
                    v = play(t, v).value
                return v

            x0, evals = _fixed_point(around, w)
            counts["cycles"] += 1
            counts["cycle_evaluations"] += evals
            x[0] = x0
            walk = [(-r) % m for r in range(1, m)] + [0]
        for t in walk:
            sol = play(t, x[(t + 1) % m])
            x[t] = sol.value
            state = actors[t] * n + core
            value[state] = sol.value
            pa, pd = len(sol.attack), len(sol.defence)
            table.attack[state, :] = 0.0
            table.defence[state, :] = 0.0
            table.attack[state, :pa] = sol.attack
            table.defence[state, :pd] = sol.defence
            if sol.attack_response is not None:
                table.attack_response[state, :pd] = sol.attack_response
            if sol.defence_response is not None:
                table.defence_response[state, :pa] = sol.defence_response
            table.target[state] = targets[t]
            counts[sol.method] += 1
            counts["states"] += 1
    return Solution(space, tuple(cycle), nxt, value, table, counts, time.perf_counter() - start)


# --- turn orders --------------------------------------------------------------------------


def linear_orders(rules: Rules, fighters: Sequence[Combatant]) -> list[tuple[tuple[int, ...], float]]:
    """Every turn order the fight can have, with its probability (ties by a fair coin)."""
    groups = order_groups(tuple(fighters))
    if rules.tv_final_tiebreak == "listed":
        return [(tuple(i for g in groups for i in g), 1.0)]
    out = []
    weight = 1.0 / math.prod(math.factorial(len(g)) for g in groups)
    for perms in itertools.product(*(itertools.permutations(g) for g in groups)):
        out.append((tuple(i for p in perms for i in p), weight))
    return out


def canonical_cycle(order: Sequence[int]) -> tuple[int, ...]:
    """The rotation of ``order`` starting at its smallest fighter index."""
    start = list(order).index(min(order))
    return tuple(order[start:]) + tuple(order[:start])


# --- the outcome distribution under given strategies ----------------------------------------

JointFn = Callable[[int, int, int, int, int], np.ndarray]
"""``joint(state, actor, target, pa, pd)`` -> probabilities of bid pairs, ``(pa+1, pd+1)``."""


@dataclass
class Chain:
    """Exact outcome distribution of one turn order under fixed (mixed) strategies."""

    a_win: np.ndarray
    """``a_win[r]``: probability that A wins at the end of round ``r``."""
    b_win: np.ndarray
    stalemate: np.ndarray
    capped: float
    """probability that the fight reaches ``max_rounds`` undecided."""
    states: int
    opening: list[dict[str, Any]]
    """the states of the first turns with their reach probabilities."""


def outcome_chain(space: Space, nxt: np.ndarray, order: Sequence[int], joint: JointFn, *,
                  opening_turns: int = 0) -> Chain:
    """Propagate the state distribution of one fight, round by round, to ``max_rounds``.

    Stalemate is tested at the start of each round, as the rules say; a stalemated core
    ends as a draw ``stalemate_rounds - 1`` rounds later (or at the cap).
    """
    rules = space.rules
    n, k = space.n_cores, space.k
    pos = {f: p for p, f in enumerate(order)}
    start_state = order[0] * n + space.full_core
    local = {start_state: 0}
    states = [start_state]
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    wraps: list[np.ndarray] = []
    cursor = 0
    while cursor < len(states):
        state = states[cursor]
        actor, core = divmod(state, n)
        status = space.status[core]
        if status == LIVE:
            ex = exchange(space, nxt, actor, core)
            pa, pd = ex.prob.shape[0] - 1, ex.prob.shape[1] - 1
            weights = joint(state, actor, ex.target, pa, pd)[..., None] * ex.prob
            keep = weights > 0
            succ, w = ex.succ[keep], weights[keep]
        else:  # stalemated core mid-round: nobody can hit, the turn passes
            succ = np.array([nxt[actor, space.alive_mask(core)] * n + core])
            w = np.array([1.0])
        succ, inverse = np.unique(succ, return_inverse=True)
        w = np.bincount(inverse, weights=w)
        col = np.empty(len(succ), np.int64)
        wrap = np.zeros(len(succ), bool)
        for m, s in enumerate(succ.tolist()):
            nxt_actor, nxt_core = divmod(s, n)
            if space.status[nxt_core] in (A_WINS, B_WINS):
                col[m] = -1 if space.status[nxt_core] == A_WINS else -2
                continue
            if s not in local:
                local[s] = len(states)
                states.append(s)
            col[m] = local[s]
            wrap[m] = pos[nxt_actor] <= pos[actor]
        rows.append(np.full(len(succ), cursor))
        cols.append(col)
        vals.append(w)
        wraps.append(wrap)
        cursor += 1
    size = len(states)
    row = np.concatenate(rows)
    col = np.concatenate(cols)
    val = np.concatenate(vals)
    wrap = np.concatenate(wraps)
    col = np.where(col == -1, size, np.where(col == -2, size + 1, col))
    within = sparse.csr_matrix((val[~wrap], (col[~wrap], row[~wrap])), shape=(size + 2, size))
    across = sparse.csr_matrix((val[wrap], (col[wrap], row[wrap])), shape=(size + 2, size))
    stale = np.array([space.status[s % n] == DRAW for s in states])
    cap, hold = rules.max_rounds, rules.stalemate_rounds
    a_win = np.zeros(cap + 1)
    b_win = np.zeros(cap + 1)
    stalemate = np.zeros(cap + 1)
    capped = 0.0
    u = np.zeros(size)
    u[0] = 1.0
    opening: list[dict[str, Any]] = []
    turn = 0
    for r in range(1, cap + 1):
        if stale.any():
            mass = u[stale].sum()
            if r + hold - 1 <= cap:
                stalemate[r + hold - 1] += mass
            else:
                capped += mass
            u[stale] = 0.0
        cur, nxt_round = u, np.zeros(size)
        for _ in range(k):
            if turn < opening_turns:
                opening.extend({"turn": turn + 1, "round": r, "state": states[m],
                                "reach": float(cur[m])} for m in np.flatnonzero(cur > 0))
                turn += 1
            nxt_round += (across @ cur)[:size]
            out = within @ cur
            a_win[r] += out[size]
            b_win[r] += out[size + 1]
            cur = out[:size]
        u = nxt_round
        if u.sum() < 1e-17:
            break
    capped += float(u.sum())
    return Chain(a_win, b_win, stalemate, capped, size, opening)


# --- policies as bid distributions ---------------------------------------------------------


def policy_bids(policy: str, role: str, own: int, other: int, lead: int,
                told: int | None = None) -> np.ndarray:
    """Probabilities of each bid ``0..own`` of a fixed ``pool_policy`` (see :mod:`.rules`).

    ``lead`` is base attack - base defence of the exchange; ``other`` the opponent's
    remaining pool; ``told`` the opponent's bid when this side bids second.
    """
    out = np.zeros(own + 1)
    if policy == "random_mixed":
        out[:] = 1.0 / (own + 1)
        return out
    if policy == "all_in_first":
        out[own] = 1.0
        return out
    if role == "attack":
        if policy == "save_for_defence":
            need = 0
        else:  # minimal_sure_hit: beat the defence at its best (or as told)
            need = (other if told is None else told) - lead + 1
            need = need if 0 < need <= own else 0
    else:
        need = (other if told is None else told) + lead  # d >= lead + a blocks
        if policy == "save_for_defence" and told is None:
            need = min(max(need, 0), own)
        else:
            need = need if 0 < need <= own else 0
    out[need] = 1.0
    return out


def policy_joint(space: Space, table: EquilibriumTable | None) -> JointFn:
    """The bid-pair distribution when every fighter plays its own ``pool_policy``."""
    protocol = space.rules.bid_protocol

    def joint(state: int, actor: int, target: int, pa: int, pd: int) -> np.ndarray:
        att, dfn = space.profiles[actor], space.profiles[target]
        lead = att.attack - dfn.defence
        eq_att, eq_def = att.policy == "equilibrium", dfn.policy == "equilibrium"
        if (eq_att or eq_def) and table is None:
            raise ValueError("an equilibrium policy needs the solved table")

        def attack(told: int | None) -> np.ndarray:
            if not eq_att:
                return policy_bids(att.policy, "attack", pa, pd, lead, told)
            assert table is not None
            if told is None:
                return table.attack[state, :pa + 1]
            return np.eye(pa + 1)[table.attack_response[state, told]]

        def defence(told: int | None) -> np.ndarray:
            if not eq_def:
                return policy_bids(dfn.policy, "defence", pd, pa, lead, told)
            assert table is not None
            if told is None:
                return table.defence[state, :pd + 1]
            return np.eye(pd + 1)[table.defence_response[state, told]]

        if protocol == "sealed":
            return np.outer(attack(None), defence(None))
        out = np.zeros((pa + 1, pd + 1))
        if protocol == "attacker_first":
            for a, pr in enumerate(attack(None)):
                if pr:
                    out[a] = pr * defence(a)
        else:
            for d, pr in enumerate(defence(None)):
                if pr:
                    out[:, d] = pr * attack(d)
        return out

    return joint


# --- the public entry ----------------------------------------------------------------------


@dataclass
class Solved:
    """Everything one exact solve produced (cached: the kernel's equilibrium policy and the
    reference read the tables)."""

    space: Space
    solutions: dict[tuple[int, ...], Solution]
    orders: list[tuple[tuple[int, ...], float]]

    def solution_for(self, order: Sequence[int]) -> Solution:
        return self.solutions[canonical_cycle(order)]


_CACHE: dict[Any, Solved] = {}


def clear_cache() -> None:
    """Forget every solved game (benchmarks time a cold solve)."""
    _CACHE.clear()


def solved(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
           method: str = "auto") -> Solved:
    """Solve the game of a matchup for every cyclic turn order it can have (cached)."""
    key = (rules, tuple(side_a), tuple(side_b), method)
    if key in _CACHE:
        return _CACHE[key]
    space = Space(rules, side_a, side_b)
    orders = linear_orders(rules, (*side_a, *side_b))
    solutions: dict[tuple[int, ...], Solution] = {}
    for order, _ in orders:
        cycle = canonical_cycle(order)
        if cycle not in solutions:
            solutions[cycle] = solve_space(space, cycle, method=method)
    result = Solved(space, solutions, orders)
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def _mix(probs: np.ndarray) -> str:
    """``"0:0.25 2:0.75"`` -- the bids played with positive probability."""
    return " ".join(f"{b}:{p:.3g}" if p < 1 - 1e-12 else f"{b}"
                    for b, p in enumerate(probs) if p > 1e-9)


def strategy_frame(result: Solved, chains: list[tuple[tuple[int, ...], float, Chain]],
                   limit: int = 6) -> Any:
    """The equilibrium bids in the opening states, one row per state, most likely first."""
    import pandas

    space = result.space
    n = space.n_cores
    protocol = space.rules.bid_protocol
    records = []
    for order, weight, chain in chains:
        solution = result.solution_for(order)
        table = solution.table
        by_turn: dict[int, list[dict[str, Any]]] = {}
        for entry in chain.opening:
            by_turn.setdefault(entry["turn"], []).append(entry)
        for turn, entries in sorted(by_turn.items()):
            entries.sort(key=lambda e: -e["reach"])
            for entry in entries[:limit]:
                state = entry["state"]
                actor, core = divmod(state, n)
                if space.status[core] != LIVE:
                    continue
                target = int(table.target[state])
                pa, pd = int(space.pools[core, actor]), int(space.pools[core, target])
                att = table.attack[state, :pa + 1]
                dfn = table.defence[state, :pd + 1]
                p_hit = _hit_probability(space, solution, state, actor, core)
                if protocol == "attacker_first":
                    defence = "reply " + " ".join(
                        f"{a}->{table.defence_response[state, a]}" for a in range(pa + 1))
                else:
                    defence = _mix(dfn)
                attack = _mix(att)
                if protocol == "defender_first":
                    attack = "reply " + " ".join(
                        f"{d}->{table.attack_response[state, d]}" for d in range(pd + 1))
                records.append({
                    "order": " > ".join(space.profiles[f].name for f in order),
                    "turn": turn, "reach": weight * entry["reach"],
                    "attacker": space.profiles[actor].name,
                    "defender": space.profiles[target].name,
                    "state": space.describe_core(core),
                    "attack bids": attack, "defence bids": defence,
                    "P(hit)": p_hit, "value": float(solution.value[state])})
    frame = pandas.DataFrame.from_records(records)
    if len(frame):
        frame = frame.sort_values(["turn", "reach"], ascending=[True, False], kind="stable")
        if len(chains) == 1:
            frame = frame.drop(columns="order")
        frame["reach"] = frame["reach"].round(6)
        frame["P(hit)"] = frame["P(hit)"].round(6)
        frame["value"] = frame["value"].round(6)
    return frame.reset_index(drop=True)


def _hit_probability(space: Space, solution: Solution, state: int, actor: int, core: int
                     ) -> float:
    ex = exchange(space, solution.nxt, actor, core)
    pa, pd = ex.prob.shape[0] - 1, ex.prob.shape[1] - 1
    return float((solution.table.joint(state, pa, pd) * (1.0 - ex.prob[..., 0])).sum())


def solve(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
          assumptions: tuple[str, ...] = (), method: str = "auto", ruleset: str = "pool"
          ) -> Probabilities:
    """Exact win / loss / draw probabilities of a matchup (see the module docstring).

    With ``rules.exact_play="equilibrium"`` both sides play the solved equilibrium; with
    ``"policies"`` every fighter plays its own ``pool_policy`` (those set to
    ``"equilibrium"`` read the solved table) and the answer is the exact outcome of that
    play.
    """
    t0 = time.perf_counter()
    fighters = (*side_a, *side_b)
    use_policies = rules.exact_play == "policies"
    needs_table = not use_policies or any(c.pool_policy == "equilibrium" for c in fighters)
    if needs_table:
        result = solved(rules, side_a, side_b, method=method)
        space = result.space
        orders = result.orders
    else:
        space = Space(rules, side_a, side_b)
        orders = linear_orders(rules, fighters)
        result = None
    solve_s = time.perf_counter() - t0
    chains: list[tuple[tuple[int, ...], float, Chain]] = []
    game_value = 0.0
    for order, weight in orders:
        if result is not None:
            solution = result.solution_for(order)
            nxt, table = solution.nxt, solution.table
            game_value += weight * float(solution.value[order[0] * space.n_cores
                                                        + space.full_core])
        else:
            nxt, table = next_alive_table(space.k, canonical_cycle(order)), None
        if use_policies:
            joint = policy_joint(space, table)
        else:
            assert table is not None
            eq = table

            def joint(state: int, actor: int, target: int, pa: int, pd: int,
                      eq: EquilibriumTable = eq) -> np.ndarray:
                return eq.joint(state, pa, pd)

        chains.append((tuple(order), weight,
                       outcome_chain(space, nxt, order, joint, opening_turns=space.k + 1)))
    a_win = sum(w * c.a_win for _, w, c in chains)
    b_win = sum(w * c.b_win for _, w, c in chains)
    stalemate = sum(w * c.stalemate for _, w, c in chains)
    capped = sum(w * c.capped for _, w, c in chains)
    rounds = np.arange(rules.max_rounds + 1)
    mean_rounds = float((rounds * (a_win + b_win + stalemate)).sum() + rules.max_rounds * capped)
    total_s = time.perf_counter() - t0
    details: dict[str, Any] = {
        "play": ("equilibrium" if not use_policies else
                 "pool_policy " + " / ".join(f"{c.name}={c.pool_policy}" for c in fighters)),
        "bid_protocol": rules.bid_protocol,
        "objective": f"A maximises P(A wins) + {rules.draw_worth:g} x P(draw)",
        "draws": f"stalemate {float(stalemate.sum()):.6f}, max_rounds {float(capped):.6f}",
    }
    if result is not None:
        counts: dict[str, int] = {}
        for sol in result.solutions.values():
            for key, value in sol.counts.items():
                counts[key] = counts.get(key, 0) + value
        details["game_value"] = round(game_value, 12)
        details["states"] = (f"{counts['states']:,} solved of {space.k * space.n_cores:,} "
                             f"(cores {space.n_cores:,} x {space.k} turns)"
                             + (f", {len(result.solutions)} cyclic orders"
                                if len(result.solutions) > 1 else ""))
        details["exchanges"] = (f"saddle {counts['saddle']:,}, simplex {counts['simplex']:,}, "
                                f"linprog {counts['linprog']:,}, minimax {counts['minimax']:,}; "
                                f"waiting cycles {counts['cycles']:,}")
    details["chain_states"] = sum(c.states for _, _, c in chains)
    details["turn_orders"] = len(orders)
    details["solve_s"] = round(solve_s, 3)
    details["total_s"] = round(total_s, 3)
    strategy = None
    if result is not None and not use_policies:
        strategy = strategy_frame(result, chains)
    return Probabilities(ruleset, float(a_win.sum()), float(b_win.sum()),
                         float(stalemate.sum() + capped), mean_rounds, details, strategy,
                         assumptions)
