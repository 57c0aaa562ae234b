"""The whole fight of seed 003 as a zero-sum stochastic game, solved exactly.

State
-----
A *core* is every fighter's health (Wound Points + armour WP, see :mod:`.rules`) and
remaining Combat Pool.  Health is stored as an index into the values it can actually take
(full health minus sums of the damages the foes can deal), index 0 meaning "out".  A
*state* is a core plus whose turn it is; the game's state is a state plus the number of
rounds left before ``max_rounds``.  Where turns that are not attacks can happen (full
defence, aid, withdrawal; :mod:`.exact_turns`) the core also holds a guard bit per fighter
who may declare full defence and an aid count per fighter who may be aided; a fighter who
withdraws is out.

Turns
-----
Under the fighters' own ``turn_policy`` / ``withdraw_at`` each state's turn is the kernel's
decision read from the state; under best play (``choose_turns``) the actor's side takes the
best of an attack (the exchange below), full defence, aid and withdrawal.  Only states
whose actor's own guard is clear are solved (``Space.canon``: the guard lapses with the
turn); a turn into a new round keeps it for the stalemate test.

Exchange
--------
In a state whose turn is an attack the actor attacks its target (``target_policy``, its
aid held and the target's full defence in the lead); the actor's side bids ``a``
(0..its pool), the target's side ``d``.  ``M[a, d]`` is side A's expected value of the
successor states, over the randomiser's dice if any.  Under ``bid_protocol="sealed"`` the
exchange is the matrix game ``M`` (saddle points by array operations, the rest by a
certified simplex, ``scipy.optimize.linprog`` as the fallback; :mod:`balance.matrix_game`); under
the informed protocols it is max-min (the attacker bids first) or min-max.  The attacking
side picks the row: side A maximises, side B minimises.

Backward induction
------------------
The fight is solved exactly *with* the round cap.  ``V[r]`` holds every state's value with
``r`` rounds left (``V[0]``: the cap is reached, a draw).  Within a layer, every transition
either spends pool or lowers a health index, and so goes to a core of smaller potential
``sum(health index) + sum(pool)`` -- except the null transition (both bid 0, nothing
lands; a full defence or an aid, which change only the flags), which keeps the potential
and passes the turn to the next fighter of the round, or, at
the end of the round, to layer ``r - 1``.  So each layer is solved in increasing
potential, and within one potential from the last fighter of the round to the first; every
successor is solved first, and all states with the same potential and actor form one batch
solved by array operations.  A state whose successors' values did not change from the
previous layer keeps its previous value and strategy (this is what makes a cap of 50 rounds
cheap: most fights are decided, or their values settled, long before).

Solving the uncapped game instead (a stationary recursive game, endless waiting = draw) is
not enough here: in diceless wars of attrition its value is only approached, by
strategies that attack with ever smaller probability, and its stationary strategies wait
for ever.  With the cap every state has an exact value and an optimal strategy that
depends on the rounds left.

Draws and the objective
-----------------------
Side A maximises ``P(A wins) + draw_worth * P(draw)`` (``draw_worth = 0.5`` is the same as
maximising ``P(A wins) - P(B wins)``); side B minimises it.  A core where nobody can
possibly hit any more is a draw (the stalemate rule: at the end of the ``stalemate_rounds``-th
round from the start of the round that finds it); reaching the cap is a draw.  Where a miss
can hurt the attacker (``margin_failure_damage``) those rounds are played: the stalemate is a
game of its own, ``stalemate_rounds`` layers over every undecided core ending in a draw, whose
values a turn into a new round on a stalemated core reads (:func:`solve_order`); elsewhere
nothing can happen in them and the core is worth a draw at once.  The
win / draw / loss probabilities, the distribution of fight length and the opening states
come from propagating the state distribution round by round under the equilibrium
strategies (:func:`outcome_chain`); ``A wins + draw_worth * draw`` equals the game value.

Turn-order ties left after every tie-break (a seeded coin) are averaged over, each order
solved as its own game.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import IntractableError
from ...language import names_used, total
from ...matrix_game import solve_batch
from ...outcomes import Probabilities
from ..house import HouseRules
from . import exact_turns as turns_
from .language import house_rules, rolls, static_value
from .rules import (
    Combatant,
    Profile,
    Rules,
    failure_damage,
    margin_bonus,
    order_groups,
    profile,
)

__all__ = [
    "MAX_STATES",
    "Distribution",
    "Solution",
    "Solved",
    "Space",
    "outcome_chain",
    "outcome_distribution",
    "solve",
    "solve_with",
    "solved",
    "unsupported",
]

MAX_STATES = 1_000_000
"""Largest number of (whose turn, core) states the solver accepts.  Memory grows as
``(max_rounds + 1) x states x 12`` bytes (values and strategy indices of every layer) plus
the strategies themselves: about 1 GB at the limit with the default cap."""
MAX_WORK = 2_000_000
"""States x turn orders: each order is a game of its own (a few minutes at the limit)."""

A_WINS, B_WINS, DRAW, LIVE = 1, 0, 2, 3  # core status codes


# --- the state space ---------------------------------------------------------------------


@dataclass
class PairTable:
    """How an attack by fighter ``i`` on fighter ``j`` can end, by ``s = a - d``.

    ``p_miss[s + offset]`` and ``p_hit[s + offset, k]`` (damage ``damage[k]``) are
    probabilities over the randomiser's dice; ``after[h, k]`` is the target's health index
    after taking ``damage[k]`` at health index ``h``; ``back_after[h, m]`` the attacker's
    after a backlash of ``backlash[m]``.
    """

    offset: int
    """``s + offset`` is the row of ``s = a - d`` (plus the house rules' lead, if any)."""
    p_miss: np.ndarray
    p_hit: np.ndarray
    damage: np.ndarray
    after: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    p_back: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    """``p_back[s + offset, m]``: a miss that hurts the attacker by ``backlash[m]``
    (``margin_failure_damage``); ``p_miss`` then holds only the harmless misses."""
    backlash: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    back_after: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.int64))
    n_s: int = 0
    """Rows per damage class: the house rules' damage modifier ``x`` reads the block of
    rows ``(x - low) * n_s`` on (one block without house rules)."""


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

    def __init__(self, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                 *, layout_only: bool = False, choose_turns: bool = False) -> None:
        # layout_only: stop once the sizes are known and checked (see `unsupported`);
        # choose_turns: best play, every kind of turn open (see `exact_turns`)
        self.rules = rules
        self.profiles: list[Profile] = ([profile(c, rules, 0) for c in side_a]
                                        + [profile(c, rules, 1) for c in side_b])
        names = [p.name for p in self.profiles]
        if len(set(names)) < len(names):  # e.g. the same preset on both sides: say whose
            self.profiles = [dataclasses.replace(p, name=f"{'AB'[p.side]} {p.name}")
                             for p in self.profiles]
        self.k = k = len(self.profiles)
        self.side = np.array([p.side for p in self.profiles])
        self.fighters = (*side_a, *side_b)
        self.house = house_rules(rules)
        house_lead, self.damage_range = _house_ranges(self.house)
        self.flags = turns_.Flags.of(rules, self.profiles, choose_turns, house_lead[1])
        # the turns widen the lead: a target's full defence, the aid an attacker holds
        self.lead_range = (house_lead[0] - rules.full_defence_bonus * any(self.flags.guard),
                           house_lead[1] + rules.aid_bonus * max(map(len, self.flags.helpers)))
        self.defence = np.array([p.defence for p in self.profiles])
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
            hits |= {int(x) for (i, _), t in self.pairs.items() if i == j for x in t.backlash}
            self.health_values.append(self._reachable_health(self.profiles[j].health, hits))
        for (i, j), t in self.pairs.items():
            t.after = self._after(j, t.damage)
            t.back_after = self._after(i, t.backlash)
        self.wp_full = np.array([p.wound_points for p in self.profiles])
        self.wp_at = [np.minimum(v, w) for v, w in zip(self.health_values, self.wp_full,
                                                       strict=True)]
        dims = ([len(v) for v in self.health_values] + [int(p) + 1 for p in self.pool]
                + self.flags.dims())
        self.dims = tuple(dims)
        self.n_cores = int(np.prod(dims))
        if k * self.n_cores > MAX_STATES:
            raise IntractableError(
                f"pool has no exact solution here: {k * self.n_cores:,} states "
                f"(health values {[len(v) for v in self.health_values]}, pools "
                f"{self.pool.tolist()}{self._flag_words()}) exceed the solver's limit of "
                f"{MAX_STATES:,}")
        n_orders = len(linear_orders(rules, (*side_a, *side_b)))
        if k * self.n_cores * n_orders > MAX_WORK:
            raise IntractableError(
                f"pool has no exact solution here: {k * self.n_cores:,} states x {n_orders} "
                f"turn orders (Turn Value ties, each solved as its own game) exceed the "
                f"solver's limit of {MAX_WORK:,} (minutes of work); set "
                "tv_final_tiebreak=listed for one order, or simulate")
        if layout_only:
            return
        strides = np.ones(len(dims), np.int64)
        for n in range(len(dims) - 2, -1, -1):
            strides[n] = strides[n + 1] * dims[n + 1]
        self.h_stride = strides[:k]
        self.p_stride = strides[k:2 * k]
        index = np.indices(dims, dtype=np.int16).reshape(len(dims), -1).T
        self.h_idx = index[:, :k]
        self.pools = index[:, k:2 * k]
        self._flag_axes(strides, index)
        self.full_core = int(sum((len(v) - 1) * s for v, s in zip(self.health_values,
                                                                 self.h_stride, strict=True))
                             + int((self.pool * self.p_stride).sum()))
        self.status = self._statuses()
        # a miss can hurt the attacker: a stalemate's rounds are played, not skipped
        self.plays_stalemate = any(len(t.backlash) for t in self.pairs.values())

    def _flag_axes(self, strides: np.ndarray, index: np.ndarray) -> None:
        """``guard`` / ``aided`` ((n_cores, k) int8) and their strides (0 for a fighter
        without the flag): the flag dimensions follow health and pools."""
        k, n = self.k, self.n_cores
        self.guard = np.zeros((n, k), np.int8)
        self.aided = np.zeros((n, k), np.int8)
        self.g_stride = np.zeros(k, np.int64)
        self.a_stride = np.zeros(k, np.int64)
        axis = 2 * k
        for f in range(k):
            if self.flags.guard[f]:
                self.guard[:, f], self.g_stride[f] = index[:, axis], strides[axis]
                axis += 1
        for f in range(k):
            if self.flags.helpers[f]:
                self.aided[:, f], self.a_stride[f] = index[:, axis], strides[axis]
                axis += 1

    def _flag_words(self) -> str:
        """``", full defence of A, B (x2 each)"``: the flags that multiply the states."""
        guards = [p.name for p, g in zip(self.profiles, self.flags.guard, strict=True) if g]
        aided = [p.name for p, h in zip(self.profiles, self.flags.helpers, strict=True) if h]
        words = ""
        if guards:
            words += f", full defence of {', '.join(guards)} (x2 each)"
        if aided:
            words += f", aid held by {', '.join(aided)}"
        return words

    def _pair_table(self, i: int, j: int, diff: dict[int, float]) -> PairTable:
        """The outcomes of ``i`` attacking ``j``: a row per ``s = a - d`` (widened by the
        house rules' lead ``lead_range``), in blocks per damage modifier
        (``damage_range``)."""
        att, dfn = self.profiles[i], self.profiles[j]
        lead = att.attack - dfn.defence
        (lead_low, lead_high), (bonus_low, bonus_high) = self.lead_range, self.damage_range
        s_values = range(-dfn.pool + lead_low, att.pool + lead_high + 1)
        damages: set[int] = set()
        backlashes: set[int] = set()
        rows = []
        for bonus, s in itertools.product(range(bonus_low, bonus_high + 1), s_values):
            miss = 0.0
            hit: dict[int, float] = {}
            back: dict[int, float] = {}
            for t, pt in diff.items():
                margin = lead + s + t
                if margin > 0:  # the attack must beat the defence (003.2)
                    dmg = max(0, att.damage + margin_bonus(self.rules, margin) + bonus)
                    hit[dmg] = hit.get(dmg, 0.0) + pt
                    damages.add(dmg)
                elif failure_damage(self.rules, -margin) > 0:
                    hurt = failure_damage(self.rules, -margin)
                    back[hurt] = back.get(hurt, 0.0) + pt
                    backlashes.add(hurt)
                else:
                    miss += pt
            rows.append((miss, hit, back))
        order, back_order = sorted(damages), sorted(backlashes)
        p_miss = np.array([r[0] for r in rows])
        p_hit = np.zeros((len(rows), len(order)))
        p_back = np.zeros((len(rows), len(back_order)))
        for n, (_, hit, back) in enumerate(rows):
            for dmg, pr in hit.items():
                p_hit[n, order.index(dmg)] = pr
            for hurt, pr in back.items():
                p_back[n, back_order.index(hurt)] = pr
        return PairTable(dfn.pool - lead_low, p_miss, p_hit, np.array(order, np.int64),
                         p_back=p_back, backlash=np.array(back_order, np.int64),
                         n_s=len(s_values))

    def _after(self, f: int, damages: np.ndarray) -> np.ndarray:
        """``after[h, m]``: fighter ``f``'s health index after ``damages[m]`` at index h."""
        values = self.health_values[f]
        lookup = {int(v): n for n, v in enumerate(values)}
        after = np.zeros((len(values), len(damages)), np.int64)
        for n, v in enumerate(values):
            if n == 0:
                continue
            for m, dmg in enumerate(damages):
                after[n, m] = lookup.get(int(v - dmg), 0)
        return after

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
        status[~turns_.can_hit(self)] = DRAW
        status[~b_alive] = A_WINS
        status[~a_alive] = B_WINS
        return status

    # --- house rules -----------------------------------------------------------------------
    def terms(self, i: int, j: int, cores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The house rules when ``i`` attacks ``j`` in ``cores``: the lead they add (``i``'s
        attack modifiers - ``j``'s defence modifiers) and ``i``'s damage modifier (int64
        arrays; zeros without house rules)."""
        n = len(cores)
        rows = self.house.modifiers
        if not rows:
            return np.zeros(n, np.int64), np.zeros(n, np.int64)
        mine, theirs = self.env(i, j, cores), self.env(j, i, cores)
        lead = (total(rows, "attack", mine, n=n).value - total(rows, "defence", theirs, n=n).value)
        return lead, total(rows, "damage", mine, n=n).value

    def env(self, me: int, foe: int, cores: np.ndarray) -> dict[str, Any]:
        """The names the house rules read, for ``me`` facing ``foe`` in ``cores``."""
        env: dict[str, Any] = {}
        for name in self.house.names:
            role, _, field_ = name.partition(".")
            f = me if role == "self" else foe
            if name in ("foes_standing", "allies_standing"):
                alive = self.h_idx[cores] > 0
                ours = self.side == self.side[me]
                env[name] = (alive[:, ~ours].sum(axis=1) if name == "foes_standing"
                             else alive[:, ours].sum(axis=1) - 1)
            elif field_ in ("wound_points", "armour_wp"):
                health = self.health_values[f][self.h_idx[cores, f]]
                wp = self.wp_at[f][self.h_idx[cores, f]]
                env[name] = wp if field_ == "wound_points" else health - wp
            elif field_ == "pool":
                env[name] = self.pools[cores, f]
            else:
                env[name] = static_value(field_, self.fighters[f], self.rules)
        return env

    # ------------------------------------------------------------------------------------
    def core_index(self, h: Sequence[int], p: Sequence[int]) -> int:
        return int(np.dot(h, self.h_stride) + np.dot(p, self.p_stride))

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
            text += f", pool {int(self.pools[core, f])}"
            if self.guard[core, f]:
                text += ", full defence"
            if self.aided[core, f]:
                text += f", aid +{int(self.aided[core, f]) * self.rules.aid_bonus}"
            parts.append(text)
        return " | ".join(parts)

    def health_lookup(self, f: int) -> tuple[int, np.ndarray]:
        """``(low, table)``: health index of fighter ``f`` is ``table[clip(H, low) - low]``."""
        values = self.health_values[f]
        low = int(values[0])
        table = np.full(int(values[-1]) - low + 1, -1, np.int64)
        table[0] = 0
        table[values[1:] - low] = np.arange(1, len(values))
        return low, table


    @functools.cached_property
    def canon(self) -> np.ndarray:
        """``canon[state]``: the state with its actor's own guard cleared (the same turn:
        full defence lasts until the fighter's next turn).  Only canonical states are
        solved; a turn into a new round keeps the guard for the stalemate test."""
        n = self.n_cores
        return np.concatenate([np.arange(n) + f * n - self.guard[:, f] * self.g_stride[f]
                               for f in range(self.k)])

    def alive_masks(self, cores: np.ndarray) -> np.ndarray:
        """Bit ``f`` set where fighter ``f`` is standing, per core."""
        bits = (self.h_idx[cores] > 0).astype(np.int64) << np.arange(self.k)
        return bits.sum(axis=1)

    def targets(self, i: int, cores: np.ndarray) -> np.ndarray:
        """Whom fighter ``i`` attacks in each core (``target_policy``; ties to the first)."""
        foes = np.flatnonzero(self.side != self.side[i])
        if len(foes) == 1:
            return np.full(len(cores), foes[0])
        standing = self.h_idx[cores][:, foes] > 0
        if self.rules.target_policy == "first":
            return foes[np.argmax(standing, axis=1)]
        wp = np.stack([self.wp_at[j][self.h_idx[cores, j]] for j in foes], axis=1)
        return foes[np.argmin(np.where(standing, wp, np.iinfo(np.int64).max), axis=1)]


# --- house rules --------------------------------------------------------------------------

MAX_HOUSE_SPAN = 60
"""Widest range of values the house rules may add to the lead, or to damage, in the game
(the exchange tables grow with it)."""


def _house_ranges(house: HouseRules) -> tuple[tuple[int, int], tuple[int, int]]:
    """The least and most the house rules can add to the lead of an exchange (attack
    modifiers - defence modifiers) and to a hit's damage, from the ranges of their amounts;
    an ``IntractableError`` naming a row the game cannot hold (an effect, dice, the
    round)."""
    for e in house.effects:
        raise IntractableError(f"pool has no exact solution here: house rule {e.name!r} has an "
                               f"effect ({e.line()}); the game's exchanges move health and "
                               "bids only (simulate it with duel)")
    spans = {"attack": [0, 0], "defence": [0, 0], "damage": [0, 0]}
    for m in house.modifiers:
        if rolls(m):
            raise IntractableError(f"pool has no exact solution here: house rule {m.name!r} "
                                   f"rolls dice ({m.label()}); the game holds fixed "
                                   "modifiers per state (simulate it with duel)")
        if "round" in names_used(m):
            raise IntractableError(f"pool has no exact solution here: house rule {m.name!r} "
                                   "reads round; the game's states do not hold the round "
                                   "(simulate it with duel)")
        low, high = m.amount.range or (None, None)
        if low is None or high is None:
            raise IntractableError(f"pool has no exact solution here: house rule {m.name!r} "
                                   f"can add any amount ({m.label()})")
        if m.when is not None:
            low, high = min(low, 0), max(high, 0)
        spans[m.to][0] += low
        spans[m.to][1] += high
    lead = (spans["attack"][0] - spans["defence"][1], spans["attack"][1] - spans["defence"][0])
    damage = (spans["damage"][0], spans["damage"][1])
    for what, (low, high) in (("lead", lead), ("damage", damage)):
        if high - low > MAX_HOUSE_SPAN:
            raise IntractableError(f"pool has no exact solution here: the house rules can add "
                                   f"{low}..{high} to the {what}, wider than the "
                                   f"{MAX_HOUSE_SPAN} the game's tables hold")
    return lead, damage


# --- turn order --------------------------------------------------------------------------


def linear_orders(rules: Rules, fighters: Sequence[Combatant]) -> list[tuple[tuple[int, ...], float]]:
    """Every turn order the fight can have, with its probability (ties by a fair coin)."""
    groups = order_groups(tuple(fighters))
    if rules.tv_final_tiebreak == "listed":
        return [(tuple(i for g in groups for i in g), 1.0)]
    weight = 1.0 / math.prod(math.factorial(len(g)) for g in groups)
    return [(tuple(i for p in perms for i in p), weight)
            for perms in itertools.product(*(itertools.permutations(g) for g in groups))]


@dataclass
class TurnOrder:
    """Who acts after fighter ``i`` when the fighters in ``mask`` stand, and whether that
    starts a new round: ``following[i, mask]``, ``wraps[i, mask]``."""

    order: tuple[int, ...]
    following: np.ndarray
    wraps: np.ndarray

    @classmethod
    def of(cls, k: int, order: Sequence[int]) -> TurnOrder:
        following = np.zeros((k, 1 << k), np.int64)
        wraps = np.zeros((k, 1 << k), bool)
        pos = {f: p for p, f in enumerate(order)}
        for i in range(k):
            for mask in range(1, 1 << k):
                later = [f for f in order[pos[i] + 1:] if mask >> f & 1]
                if later:
                    following[i, mask] = later[0]
                else:
                    following[i, mask] = next(f for f in order if mask >> f & 1)
                    wraps[i, mask] = True
        return cls(tuple(order), following, wraps)


# --- one batch of exchanges ---------------------------------------------------------------


@dataclass
class Moves:
    """Every outcome of fighter ``actor`` attacking ``target`` in each of ``cores`` (or,
    ``target < 0``, of its turn of that kind: :func:`turn_moves`).

    ``succ[b, a, d, o]`` is the flat successor state (``next actor * n_cores + core``) of
    outcome ``o`` (0: a miss, then one per damage amount) after bids ``a, d``, plus
    ``n_states`` when the turn passes into the next round; its probability is
    ``table[s[b, a, d], o]``.  Bids beyond a state's pool repeat bid 0 (``valid_a``,
    ``valid_d`` say which are real), so every batch has one shape.
    """

    actor: int
    target: int
    cores: np.ndarray
    succ: np.ndarray
    s: np.ndarray
    table: np.ndarray
    valid_a: np.ndarray
    valid_d: np.ndarray

    prob: np.ndarray | None = None

    def probabilities(self) -> np.ndarray:
        """``(b, A, D, O)``: the probability of each outcome (kept once computed)."""
        if self.prob is None:
            self.prob = self.table[self.s]
        return self.prob

    def rows(self, keep: np.ndarray) -> Moves:
        """The moves of the states ``keep`` (a mask or indices) only."""
        return Moves(self.actor, self.target, self.cores[keep], self.succ[keep], self.s[keep],
                     self.table, self.valid_a[keep], self.valid_d[keep],
                     None if self.prob is None else self.prob[keep])


def moves(space: Space, turns: TurnOrder, actor: int, target: int, cores: np.ndarray) -> Moves:
    """The :class:`Moves` of ``actor`` against ``target`` in ``cores`` (vectorised)."""
    i, j, n = actor, target, space.n_cores
    pair = space.pairs[i, j]
    a = np.arange(space.pool[i] + 1)
    d = np.arange(space.pool[j] + 1)
    valid_a = a[None, :] <= space.pools[cores, i][:, None]
    valid_d = d[None, :] <= space.pools[cores, j][:, None]
    a_eff = np.where(valid_a, a[None, :], 0)
    d_eff = np.where(valid_d, d[None, :], 0)
    s = a_eff[:, :, None] - d_eff[:, None, :] + pair.offset
    lead = turns_.bonus(space, i, j, cores)  # aid held, the target's full defence
    if space.house.modifiers:  # the house rules' lead and damage block, core by core
        house_lead, extra = space.terms(i, j, cores)
        lead = lead + house_lead + (extra - space.damage_range[0]) * pair.n_s
    s = s + lead[:, None, None]
    s = s.astype(np.int16 if pair.p_miss.size < 2**15 else np.int32)
    h_j = space.h_idx[cores, j].astype(np.int64)
    h_i = space.h_idx[cores, i].astype(np.int64)
    after = pair.after[h_j]                                         # (b, K)
    back = pair.back_after[h_i]                                     # (b, M)
    dh = np.concatenate([np.zeros((len(cores), 1), np.int64),
                         (after - h_j[:, None]) * space.h_stride[j],
                         (back - h_i[:, None]) * space.h_stride[i]], axis=1)
    mask = space.alive_masks(cores)
    # outcomes: a harmless miss, a hit per damage (the target may fall), a backlash per
    # amount (the attacker may fall)
    mask_o = np.concatenate([mask[:, None],
                             np.where(after == 0, mask[:, None] & ~(1 << j), mask[:, None]),
                             np.where(back == 0, mask[:, None] & ~(1 << i), mask[:, None])],
                            axis=1)
    nxt = turns.following[i, mask_o]
    wrap = turns.wraps[i, mask_o]
    head = (nxt * n + dh + wrap * (space.k * n)                     # (b, O)
            - turns_.next_guard(space, cores[:, None], nxt, wrap))
    base = (turns_.cleared(space, i, cores)[:, None, None] - a_eff[:, :, None] * space.p_stride[i]
            - d_eff[:, None, :] * space.p_stride[j])               # (b, A, D)
    succ = base[..., None] + head[:, None, None, :]
    if 2 * space.k * n < 2**31:
        succ = succ.astype(np.int32)
    table = np.concatenate([pair.p_miss[:, None], pair.p_hit, pair.p_back], axis=1)
    return Moves(i, j, cores, succ, s, table, valid_a, valid_d)


def turn_moves(space: Space, turns: TurnOrder, actor: int, kind: int, cores: np.ndarray
               ) -> Moves:
    """The :class:`Moves` of ``actor``'s turn of ``kind`` in ``cores``: an attack on
    ``kind``, or a turn that is not an attack as a one-outcome move (no bids: one row, one
    column, its successor for certain)."""
    if kind >= 0:
        return moves(space, turns, actor, kind, cores)
    succ = turns_.idle_successors(space, turns, actor, kind, cores)
    b = len(cores)
    ones = np.ones((b, 1), bool)
    return Moves(actor, kind, cores, succ.reshape(b, 1, 1, 1), np.zeros((b, 1, 1), np.int16),
                 np.ones((1, 1)), ones, ones)


# --- solving -------------------------------------------------------------------------------


@dataclass
class Strategies:
    """Solved strategies, shared between layers: ``row[r, state]`` indexes the arrays.

    ``attack[row, a]`` / ``defence[row, d]``: probability of each bid (one-hot for the side
    bidding first under an informed protocol); ``attack_reply[row, d]`` /
    ``defence_reply[row, a]``: the informed side's bid in reply to the other's.  Row 0 is
    "bid nothing" (states where nothing can be won).
    """

    protocol: str
    row: np.ndarray
    attack: np.ndarray
    defence: np.ndarray
    attack_reply: np.ndarray
    defence_reply: np.ndarray

    n_cores: int
    stale_row: np.ndarray | None = None
    """``stale_row[m, state]``: the rows of a stalemate's game with ``m`` rounds to the
    draw (where its rounds are played: ``margin_failure_damage``), else ``None``."""

    choice: np.ndarray | None = None
    """``choice[r, state]``: the kind of turn taken (:mod:`.exact_turns`; an attack on
    ``j`` is ``j``), by rounds left; ``stale_choice[m, state]`` in a played stalemate."""
    stale_choice: np.ndarray | None = None

    def kinds(self, r: int, states: Any, stale: int = 0) -> Any:
        """The kind of turn taken in ``states`` with ``r`` rounds left (``stale``: in a
        stalemate that many rounds from its draw)."""
        if stale:
            assert self.stale_choice is not None
            return self.stale_choice[stale, states]
        assert self.choice is not None
        return self.choice[r, states]

    def rows_at(self, r: int, states: Any, stale: int = 0) -> Any:
        """The strategy rows of ``states`` with ``r`` rounds left, or (``stale > 0``) in a
        stalemate ``stale`` rounds from its draw."""
        if stale:
            assert self.stale_row is not None
            return self.stale_row[stale, states]
        return self.row[r, states]

    def joint(self, r: int, mv: Moves, stale: int = 0) -> np.ndarray:
        """Probability of each bid pair in the states of ``mv`` with ``r`` rounds left
        (``stale``: in a stalemate that many rounds from its draw), ``(b, A, D)``."""
        rows = self.rows_at(r, mv.actor * self.n_cores + mv.cores, stale)
        return _joint(self.protocol, self.attack[rows], self.defence[rows],
                      self.attack_reply[rows], self.defence_reply[rows], mv)


def _joint(protocol: str, attack: np.ndarray, defence: np.ndarray, attack_reply: np.ndarray,
           defence_reply: np.ndarray, mv: Moves) -> np.ndarray:
    n_a, n_d = mv.valid_a.shape[1], mv.valid_d.shape[1]
    attack, defence = attack[:, :n_a], defence[:, :n_d]
    b = len(mv.cores)
    if protocol == "sealed":
        return attack[:, :, None] * defence[:, None, :]
    out = np.zeros((b, n_a, n_d))
    rows = np.arange(b)[:, None]
    if protocol == "attacker_first":
        reply = np.clip(defence_reply[:, :n_a], 0, None)
        out[rows, np.arange(n_a)[None, :], reply] = attack
    else:
        reply = np.clip(attack_reply[:, :n_d], 0, None)
        out[rows, reply, np.arange(n_d)[None, :]] = defence
    return out


@dataclass
class Solution:
    """The solved game for one turn order: values and strategies by rounds left."""

    space: Space
    turns: TurnOrder
    value: np.ndarray
    """``value[r, actor * n_cores + core]``: A's equilibrium payoff with ``r`` rounds left."""
    strategies: Strategies
    counts: dict[str, int]
    seconds: float
    stale_value: np.ndarray | None = None
    """``stale_value[m, state]``: A's payoff in a stalemate ``m`` rounds from its draw
    (where its rounds are played), else ``None``."""

    @property
    def start(self) -> int:
        return self.turns.order[0] * self.space.n_cores + self.space.full_core

    def start_value(self, r: int) -> float:
        """A's payoff of the fight with ``r`` rounds left, from its first turn (a fight
        stalemated from the start plays the stalemate's rounds)."""
        if self.space.status[self.space.full_core] == DRAW:
            if self.stale_value is None:  # nothing can happen before the draw
                return self.space.draw_worth
            return float(self.stale_value[min(r, len(self.stale_value) - 1), self.start])
        return float(self.value[r, self.start])


Group = tuple[int, np.ndarray, list[tuple[int, np.ndarray]]]
"""``(actor, cores, options)``: the states of one actor and potential; ``options`` the
``(kind, positions in cores)`` of each turn it may take there (:func:`exact_turns.options`)."""


def _groups(space: Space, turns: TurnOrder, played: np.ndarray) -> list[Group]:
    """The :data:`Group` of the ``played`` cores, in an order where every successor is
    solved first (potential ``sum(health index) + sum(pool)`` up, then the round's
    fighters from last to first; the flags do not count: a turn that changes only them
    passes to the next fighter)."""
    live = np.flatnonzero(played)
    potential = (space.h_idx[live].sum(axis=1, dtype=np.int64)
                 + space.pools[live].sum(axis=1, dtype=np.int64))
    out = []
    for phi in np.unique(potential):
        cores = live[potential == phi]
        for actor in reversed(turns.order):
            mine = cores[(space.h_idx[cores, actor] > 0) & (space.guard[cores, actor] == 0)]
            if len(mine):
                out.append((actor, mine, turns_.options(space, turns, actor, mine)))
    return out


CACHE_BYTES = 400_000_000
"""Memory for the successor arrays (and, in the first half, their probabilities) kept
between layers; what does not fit is recomputed in every layer."""


class _Store:
    """The strategy rows of every layer solved (one table for the stalemate's layers and
    the main game's)."""

    def __init__(self, space: Space) -> None:
        width = space.max_pool + 1
        self.width = width
        self.attack: list[np.ndarray] = [np.eye(width)[:1]]
        self.defence: list[np.ndarray] = [np.eye(width)[:1]]
        self.attack_reply: list[np.ndarray] = [np.zeros((1, width), np.int16)]
        self.defence_reply: list[np.ndarray] = [np.zeros((1, width), np.int16)]
        self.n_rows = 1
        self.counts = {"saddle": 0, "simplex": 0, "linprog": 0, "minimax": 0, "unchanged": 0}

    def add(self, sol: Any, mv: Moves, shape: tuple[int, ...]) -> np.ndarray:
        """Keep the strategies of one solved batch; returns their rows."""
        b, width = len(mv.cores), self.width
        for key, c in sol.methods.items():
            self.counts[key] += c
        att = np.zeros((b, width))
        dfn = np.zeros((b, width))
        att[:, :shape[1]] = _fold(sol.attack, mv.valid_a)
        dfn[:, :shape[2]] = _fold(sol.defence, mv.valid_d)
        ra = np.full((b, width), -1, np.int16)
        rd = np.full((b, width), -1, np.int16)
        if sol.attack_response is not None:
            ra[:, :shape[2]] = sol.attack_response
        if sol.defence_response is not None:
            rd[:, :shape[1]] = sol.defence_response
        self.attack.append(att)
        self.defence.append(dfn)
        self.attack_reply.append(ra)
        self.defence_reply.append(rd)
        rows = np.arange(self.n_rows, self.n_rows + b)
        self.n_rows += b
        return rows

    def strategies(self, protocol: str, row: np.ndarray, stale_row: np.ndarray | None,
                   n_cores: int, choice: np.ndarray, stale_choice: np.ndarray | None
                   ) -> Strategies:
        return Strategies(protocol, row, np.concatenate(self.attack),
                          np.concatenate(self.defence), np.concatenate(self.attack_reply),
                          np.concatenate(self.defence_reply), n_cores, stale_row, choice,
                          stale_choice)


def solve_order(space: Space, order: Sequence[int], *, method: str = "auto") -> Solution:
    """Backward induction, layer by layer of rounds left, for one turn order.

    Where a miss can hurt the attacker (``margin_failure_damage``) the rounds of a
    stalemate are played: first the stalemate's own game, ``stalemate_rounds`` layers over
    every undecided core ending in a draw; then the main game, whose turn into a new round
    reads a stalemated core's value from the stalemate's layer of the rounds left (the
    draw comes at the end of the ``stalemate_rounds``-th round, or at the cap).  Elsewhere a
    core found stalemated at the start of a round is a draw at once; in the middle of a
    round its turns are played (a withdrawal may still end the fight)."""
    start = time.perf_counter()
    rules = space.rules
    turns = TurnOrder.of(space.k, order)
    store = _Store(space)
    undecided = (space.status == LIVE) | (space.status == DRAW)
    stale = None
    if space.plays_stalemate:
        hold = min(rules.stalemate_rounds, rules.max_rounds)
        stale = _layers(space, turns, hold, undecided, store, method)
    main = _layers(space, turns, rules.max_rounds, undecided, store, method,
                   stale=None if stale is None else stale.value,
                   draw_stalemates=stale is None)
    strategies = store.strategies(rules.bid_protocol, main.row,
                                  None if stale is None else stale.row, space.n_cores,
                                  main.choice, None if stale is None else stale.choice)
    return Solution(space, turns, main.value, strategies, store.counts,
                    time.perf_counter() - start, None if stale is None else stale.value)


def _wrapped(value: np.ndarray, r: int, stale: np.ndarray | None,
             stale_states: np.ndarray, draw: float | None, canon: np.ndarray) -> np.ndarray:
    """The values a turn into a new round with ``r`` rounds left reads: ``value[r]`` of the
    canonical state, a stalemated core's (its guards all counted) from the stalemate's
    layer ``min(r, stalemate_rounds)`` or, where its rounds are not played, ``draw``."""
    out = value[r][canon]
    if stale is not None:
        out[stale_states] = stale[min(r, len(stale) - 1), canon[stale_states]]
    elif draw is not None:
        out[stale_states] = draw
    return out


@dataclass
class _Layers:
    """What :func:`_layers` solves: ``value``, strategy ``row`` and turn ``choice`` (a
    kind of :mod:`.exact_turns`) of every state, by rounds left."""

    value: np.ndarray
    row: np.ndarray
    choice: np.ndarray


def _layers(space: Space, turns: TurnOrder, cap: int, played: np.ndarray, store: _Store,
            method: str, *, stale: np.ndarray | None = None, draw_stalemates: bool = False
            ) -> _Layers:
    """Backward induction over ``cap`` layers of rounds left on the ``played`` cores
    (layer 0 and every other undecided core: a draw); ``stale``: the stalemate's values, read
    by a turn into a new round on a stalemated core (``draw_stalemates``: a draw there)."""
    k, n = space.k, space.n_cores
    kn = k * n
    w = space.draw_worth
    template = np.select([space.status == A_WINS, space.status == B_WINS, ~played],
                         [1.0, 0.0, w], np.nan)
    template = np.tile(template, k)
    out = _Layers(np.empty((cap + 1, kn)), np.zeros((cap + 1, kn), np.int32),
                  np.zeros((cap + 1, kn), np.int8))
    out.value[:] = template
    out.value[0, np.isnan(template)] = w
    stale_states = np.flatnonzero(np.tile(space.status == DRAW, k))
    canon = space.canon
    groups = _groups(space, turns, played)
    cache = _MoveCache(space, turns)
    changed_prev = np.ones(kn, bool)
    for r in range(1, cap + 1):
        pair_values = np.concatenate([out.value[r],
                                      _wrapped(out.value, r - 1, stale, stale_states,
                                               w if draw_stalemates else None, canon)])
        wrap_changed = changed_prev[canon]
        if stale is not None and r > 1:  # the stalemate's layers differ up to its length
            at = canon[stale_states]
            wrap_changed[stale_states] |= (stale[min(r - 1, len(stale) - 1), at]
                                           != stale[min(r - 2, len(stale) - 1), at])
        pair_changed = np.concatenate([np.zeros(kn, bool), wrap_changed])
        for number, group in enumerate(groups):
            _solve_group(space, out, r, group, [cache.get(number, o, group)
                                                for o in range(len(group[2]))],
                         pair_values, pair_changed, store, method)
        changed_prev = pair_changed[:kn].copy()
    return out


class _MoveCache:
    """The moves of every group's options, kept between layers within a memory budget
    (their probabilities too while there is room); what does not fit is recomputed."""

    def __init__(self, space: Space, turns: TurnOrder) -> None:
        self.space, self.turns = space, turns
        self.kept: dict[tuple[int, int], Moves] = {}
        self.budget = CACHE_BYTES
        self.fresh = True

    def get(self, number: int, option: int, group: Group) -> Moves:
        key = (number, option)
        if key in self.kept:
            return self.kept[key]
        actor, cores, options = group
        kind, pos = options[option]
        mv = turn_moves(self.space, self.turns, actor, kind, cores[pos])
        size = mv.succ.nbytes + mv.s.nbytes
        if size <= self.budget:
            self.budget -= size
            self.kept[key] = mv
            if 2 * mv.succ.size * 8 <= self.budget - CACHE_BYTES // 2:
                self.budget -= mv.succ.size * 8
                mv.probabilities()
        return mv


TIE = 1e-12
"""Under best play a turn that is not an attack is chosen only where it is better by more
than this (ties keep the attack, then the kinds in the order listed)."""


def _solve_group(space: Space, out: _Layers, r: int, group: Group, mvs: list[Moves],
                 pair_values: np.ndarray, pair_changed: np.ndarray, store: _Store,
                 method: str) -> None:
    """Solve one group's states with ``r`` rounds left: each option's exchange (a matrix
    game for an attack, its successor's value otherwise), the actor's side taking the best
    option (the only one under fixed turn policies); states whose successors did not change
    keep the previous layer's answer."""
    actor, cores, options = group
    n = space.n_cores
    states = actor * n + cores
    todo = np.ones(len(cores), bool)
    if r > 1:
        todo[:] = False
        for (_, pos), mv in zip(options, mvs, strict=True):
            todo[pos] |= pair_changed[mv.succ].reshape(len(pos), -1).any(axis=1)
        same = states[~todo]
        for name in ("value", "row", "choice"):
            getattr(out, name)[r, same] = getattr(out, name)[r - 1, same]
        pair_values[same] = out.value[r - 1, same]
        store.counts["unchanged"] += len(same)
        if not todo.any():
            return
    sign = 1.0 if space.side[actor] == 0 else -1.0
    best = np.full(len(cores), np.nan)
    row = np.zeros(len(cores), np.int32)
    choice = np.zeros(len(cores), np.int8)
    for (kind, pos), mv in zip(options, mvs, strict=True):
        keep = todo[pos]
        if not keep.any():
            continue
        mv, pos = (mv, pos) if keep.all() else (mv.rows(keep), pos[keep])
        probs = mv.prob if mv.prob is not None else mv.table[mv.s]
        M = (probs * pair_values[mv.succ]).sum(axis=-1)
        if kind >= 0:
            sol = solve_batch(sign * M, space.rules.bid_protocol, method=method)
            v, rows = sign * sol.value, store.add(sol, mv, M.shape)
        else:
            v, rows = M[:, 0, 0], np.zeros(len(pos), np.int32)
        better = np.isnan(best[pos]) | (sign * v > sign * best[pos] + TIE)
        best[pos] = np.where(better, v, best[pos])
        row[pos] = np.where(better, rows, row[pos])
        choice[pos] = np.where(better, kind, choice[pos])
    done = states[todo]
    out.value[r, done] = best[todo]
    out.row[r, done] = row[todo]
    out.choice[r, done] = choice[todo]
    pair_values[done] = best[todo]
    pair_changed[done] = best[todo] != out.value[r - 1, done]


def _fold(strategy: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Move the weight of padding bids (copies of bid 0) back onto bid 0."""
    out = np.where(valid, strategy, 0.0)
    out[:, 0] += np.where(valid, 0.0, strategy).sum(axis=1)
    return out


# --- the outcome distribution under given strategies ----------------------------------------

KindFn = Callable[..., np.ndarray]
"""``kinds(rounds_left, actor, cores, stale=0)`` -> the kind of turn taken in each core."""
JointFn = Callable[..., np.ndarray]
"""``joint(rounds_left, moves, stale=0)`` -> probabilities of the bid pairs, ``(b, A, D)``
(``stale > 0``: in a played stalemate that many rounds from its draw)."""


@dataclass
class Chain:
    """Exact outcome distribution of one turn order under given (mixed) strategies.

    ``a_win[t]``, ``b_win[t]``, ``stalemate[t]``: probability that the fight ends that way
    in round ``t``; ``capped``: probability that it reaches ``max_rounds`` undecided.
    ``opening``: ``(round, actor, core, probability)`` of the states met in the first
    rounds.
    """

    a_win: np.ndarray
    b_win: np.ndarray
    stalemate: np.ndarray
    capped: float
    states_visited: int
    opening: list[tuple[int, int, int, float]] = field(default_factory=list)
    turns: dict[tuple[int, str], float] = field(default_factory=dict)
    """``(side, kind of turn)`` -> the expected number of such turns in a fight
    (:func:`exact_turns.kind_class`)."""


def outcome_chain(space: Space, turns: TurnOrder, joint: JointFn, kinds: KindFn, *,
                  opening_rounds: int = 1) -> Chain:
    """Propagate the state distribution of one fight round by round to ``max_rounds``.

    Stalemate is tested at the start of each round, as the rules say: a stalemated core
    ends as a draw at the end of the ``stalemate_rounds``-th round from there (or at the
    cap).  Where a miss cannot hurt, nothing can happen in those rounds: the draw is booked
    at once (in the middle of a round such a core's turns are played).  Where it can
    (``margin_failure_damage``), the stalemate's rounds are played under its own strategies
    (``joint(m, moves, stale=m)``, ``m`` rounds from the draw) and may still end in a win.
    ``kinds(r, actor, cores, stale=0)``: the kind of turn taken (:mod:`.exact_turns`).
    """
    rules = space.rules
    n, kn = space.n_cores, space.k * space.n_cores
    cap, hold = rules.max_rounds, rules.stalemate_rounds
    stale = np.tile(space.status == DRAW, space.k)
    tally = _Tally(np.zeros(cap + 1), np.zeros(cap + 1), np.zeros(cap + 1),
                   np.zeros(kn, bool), [])
    capped = 0.0
    u = np.zeros(kn)
    u[turns.order[0] * n + space.full_core] = 1.0
    table = _MoveTable(space, turns)
    # a played stalemate: (rounds to its draw, whether the draw is the stalemate's) -> states
    clocks: dict[tuple[int, bool], np.ndarray] = {}
    for t in range(1, cap + 1):
        r = cap - t + 1
        mass = u[stale].sum()
        if mass and space.plays_stalemate:
            key = (min(r, hold), t + hold - 1 <= cap)
            clocks[key] = clocks.get(key, np.zeros(kn)) + np.where(stale, u, 0.0)
            u[stale] = 0.0
        elif mass:
            if t + hold - 1 <= cap:
                tally.stalemate[t + hold - 1] += mass
            else:
                capped += mass
            u[stale] = 0.0
        u = _play_round(space, turns, table, (functools.partial(joint, r),
                                               functools.partial(kinds, r)),
                        u, t, tally, opening=t <= opening_rounds)
        running, clocks = clocks, {}
        for (m, by_stalemate), dist in running.items():
            nxt = _play_round(space, turns, table,
                              (functools.partial(joint, m, stale=m),
                               functools.partial(kinds, m, stale=m)), dist, t, tally,
                              opening=False)
            if m > 1:
                clocks[m - 1, by_stalemate] = nxt
            elif by_stalemate:
                tally.stalemate[t] += nxt.sum()
            else:
                capped += float(nxt.sum())
        if not u.any() and not clocks:
            break
    capped += float(u.sum())
    return Chain(tally.a_win, tally.b_win, tally.stalemate, capped,
                 int(tally.visited.sum()), tally.opening, tally.turns)


@dataclass
class _Tally:
    """What :func:`outcome_chain` books round by round."""

    a_win: np.ndarray
    b_win: np.ndarray
    stalemate: np.ndarray
    visited: np.ndarray
    opening: list[tuple[int, int, int, float]]
    turns: dict[tuple[int, str], float] = field(default_factory=dict)


def _play_round(space: Space, turns: TurnOrder, table: _MoveTable,
                play: tuple[Callable[[Moves], np.ndarray], Callable[..., np.ndarray]],
                u: np.ndarray, t: int, tally: _Tally, *, opening: bool) -> np.ndarray:
    """Play round ``t`` from the distribution ``u`` over its states (consumed), booking the
    wins in ``tally``; returns the distribution at the start of the next round.  ``play``:
    the bid pairs' probabilities of an attack's moves, and the kind of turn taken by an
    actor in cores."""
    n = space.n_cores
    joint, kinds = play
    later = np.zeros(space.k * n)
    u = np.bincount(space.canon, u, minlength=space.k * n)  # the actor's guard lapses
    for actor in turns.order:
        cores = np.flatnonzero(u[actor * n:(actor + 1) * n] > 0)
        if not len(cores):
            continue
        weight = u[actor * n + cores]
        u[actor * n + cores] = 0.0
        tally.visited[actor * n + cores] = True
        if opening:
            tally.opening.extend((t, actor, int(c), float(m))
                                 for c, m in zip(cores, weight, strict=True))
        kind = kinds(actor, cores)
        for j in np.unique(kind):
            pick = kind == j
            key = (int(space.side[actor]), turns_.kind_class(int(j)))
            tally.turns[key] = tally.turns.get(key, 0.0) + float(weight[pick].sum())
            if j < 0:  # a turn that is not an attack: its one successor
                succ = turns_.idle_successors(space, turns, actor, int(j), cores[pick])
                _book(space, weight[pick], succ, t, tally, u, later)
                continue
            mv = table.moves(actor, int(j), cores[pick])
            flow = (weight[pick][:, None, None, None] * joint(mv)[..., None]
                    * mv.probabilities()).ravel()
            keep = flow > 0
            _book(space, flow[keep], mv.succ.ravel()[keep], t, tally, u, later)
    return later


def _book(space: Space, flow: np.ndarray, succ: np.ndarray, t: int, tally: _Tally,
          u: np.ndarray, later: np.ndarray) -> None:
    """Move ``flow`` to the flat successors ``succ``: a win is booked in round ``t``, the
    rest goes on this round (``u``) or into the next (``later``)."""
    kn = space.k * space.n_cores
    wrap = succ >= kn
    state = succ % kn
    core_status = space.status[state % space.n_cores]
    tally.a_win[t] += flow[core_status == A_WINS].sum()
    tally.b_win[t] += flow[core_status == B_WINS].sum()
    going = (core_status != A_WINS) & (core_status != B_WINS)
    u += np.bincount(state[going & ~wrap], flow[going & ~wrap], minlength=kn)
    later += np.bincount(state[going & wrap], flow[going & wrap], minlength=kn)


class _MoveTable:
    """:func:`moves` of every undecided core, per (actor, target), computed once and sliced
    (within a memory budget; beyond it, computed on demand)."""

    def __init__(self, space: Space, turns: TurnOrder) -> None:
        self.space, self.turns = space, turns
        self.full: dict[tuple[int, int], tuple[np.ndarray, Moves] | None] = {}
        self.budget = CACHE_BYTES // 4

    def moves(self, actor: int, target: int, cores: np.ndarray) -> Moves:
        key = (actor, target)
        if key not in self.full:
            space = self.space
            played = (space.status == LIVE) | (space.status == DRAW)
            live = np.flatnonzero(played & (space.h_idx[:, actor] > 0)
                                  & (space.h_idx[:, target] > 0))
            live = live[space.targets(actor, live) == target]
            size = 3 * len(live) * (space.pool[actor] + 1) * (space.pool[target] + 1) * (
                1 + len(space.pairs[actor, target].damage))
            if size <= self.budget:
                self.budget -= size
                index = np.full(space.n_cores, -1, np.int64)
                index[live] = np.arange(len(live))
                mv = moves(space, self.turns, actor, target, live)
                mv.probabilities()
                self.full[key] = (index, mv)
            else:
                self.full[key] = None
        entry = self.full[key]
        if entry is None:
            return moves(self.space, self.turns, actor, target, cores)
        index, mv = entry
        return mv.rows(index[cores])


# --- fixed policies as bid distributions -----------------------------------------------------


def policy_probabilities(policy: str, attacking: bool, own: np.ndarray, other: np.ndarray,
                         lead: Any, told: int | None, width: int) -> np.ndarray:
    """``(b, width)`` probabilities of each bid of a fixed ``pool_policy`` (see
    :mod:`.rules`); ``lead`` = base attack - base defence, ``told`` the other side's bid
    when this side bids second."""
    bids = np.arange(width)[None, :]
    if policy == "random_mixed":
        return (bids <= own[:, None]) / (own[:, None] + 1.0)
    if policy == "all_in_first":
        bid = own
    else:
        best = other if told is None else np.full_like(other, told)
        if attacking:
            need = np.zeros_like(own) if policy == "save_for_defence" else best - lead + 1
        else:
            need = best + lead
        if policy == "save_for_defence" and not attacking and told is None:
            bid = np.clip(need, 0, own)
        else:
            bid = np.where((need > 0) & (need <= own), need, 0)
    return (bids == bid[:, None]).astype(float)


def policy_joint(space: Space, solution: Solution | None) -> JointFn:
    """The bid-pair distribution when every fighter plays its own ``pool_policy``
    (fighters set to ``"equilibrium"`` read the solved strategies)."""
    protocol = space.rules.bid_protocol

    def joint(r: int, mv: Moves, stale: int = 0) -> np.ndarray:
        att, dfn = space.profiles[mv.actor], space.profiles[mv.target]
        # the policies read the lead with the turns' bonuses and the house rules in it
        lead: Any = att.attack - dfn.defence + turns_.bonus(space, mv.actor, mv.target,
                                                            mv.cores)
        if space.house.modifiers:
            lead = lead + space.terms(mv.actor, mv.target, mv.cores)[0]
        pa = space.pools[mv.cores, mv.actor].astype(np.int64)
        pd = space.pools[mv.cores, mv.target].astype(np.int64)
        n_a, n_d = mv.valid_a.shape[1], mv.valid_d.shape[1]
        eq = solution.strategies if solution is not None else None
        rows = (eq.rows_at(r, mv.actor * space.n_cores + mv.cores, stale) if eq is not None
                else None)

        def bids(attacking: bool, told: int | None) -> np.ndarray:
            """The attacker's (or defender's) bid distribution, told the other's bid."""
            fighter, own, other, width = ((att, pa, pd, n_a) if attacking else
                                          (dfn, pd, pa, n_d))
            if fighter.policy != "equilibrium":
                return policy_probabilities(fighter.policy, attacking, own, other, lead, told,
                                            width)
            assert eq is not None and rows is not None
            if told is None:
                return (eq.attack if attacking else eq.defence)[rows, :width]
            reply = eq.attack_reply if attacking else eq.defence_reply
            return np.eye(width)[np.clip(reply[rows, told], 0, None)]

        def attack(told: int | None) -> np.ndarray:
            return bids(True, told)

        def defence(told: int | None) -> np.ndarray:
            return bids(False, told)

        if protocol == "sealed":
            return attack(None)[:, :, None] * defence(None)[:, None, :]
        out = np.zeros((len(mv.cores), n_a, n_d))
        if protocol == "attacker_first":
            lead_probs = attack(None)
            for a in range(n_a):
                out[:, a, :] = lead_probs[:, a, None] * defence(a)
        else:
            lead_probs = defence(None)
            for d in range(n_d):
                out[:, :, d] = lead_probs[:, d, None] * attack(d)
        return out

    return joint


# --- the public entry ----------------------------------------------------------------------


@dataclass
class Solved:
    """Every turn order of a matchup, solved (cached: the kernel's and the reference's
    ``equilibrium`` policy read these tables)."""

    space: Space
    solutions: dict[tuple[int, ...], Solution]
    orders: list[tuple[tuple[int, ...], float]]

    def solution_for(self, order: Sequence[int]) -> Solution:
        return self.solutions[tuple(order)]


def unsupported(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
                *, choose_turns: bool = False) -> str | None:
    """Why the solver cannot answer this matchup (too many states), or ``None``; cheap: it
    sizes the state space without building it (``choose_turns``: under best play)."""
    try:
        Space(rules, side_a, side_b, layout_only=True, choose_turns=choose_turns)
    except IntractableError as exc:
        return exc.reason
    return None


_CACHE: dict[Any, Solved] = {}


def clear_cache() -> None:
    """Forget every solved game (benchmarks time a cold solve)."""
    _CACHE.clear()


def solved(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
           method: str = "auto", choose_turns: bool = False) -> Solved:
    """Solve the game of a matchup for every turn order it can have (cached;
    ``choose_turns``: best play, every kind of turn chosen state by state)."""
    key = (rules, tuple(side_a), tuple(side_b), method, choose_turns)
    if key in _CACHE:
        return _CACHE[key]
    space = Space(rules, side_a, side_b, choose_turns=choose_turns)
    orders = linear_orders(rules, (*side_a, *side_b))
    solutions = {tuple(order): solve_order(space, order, method=method) for order, _ in orders}
    result = Solved(space, solutions, orders)
    if len(_CACHE) >= 12:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def for_equilibrium_policy(rules: Rules, side_a: Sequence[Combatant],
                           side_b: Sequence[Combatant]) -> Solved:
    """:func:`solved`, for a fighter whose ``pool_policy`` is ``"equilibrium"`` (its bids
    are sampled from the game's strategies): where the game cannot be solved, an
    ``IntractableError`` saying that this policy is what needs it."""
    try:
        return solved(rules, side_a, side_b)
    except IntractableError as exc:
        raise IntractableError(f"pool_policy 'equilibrium' samples the exact game's "
                               f"strategies, and {exc.reason}; give the fighters another "
                               "pool_policy") from None


def _opening_bids(solution: Solution, rnd: int, actor: int, core: int) -> dict[str, Any]:
    """One row of :func:`strategy_frame`: the attacker, defender, state, each side's bids,
    P(hit) and the value of ``actor``'s turn in ``core`` in round ``rnd``."""
    space, eq = solution.space, solution.strategies
    r = space.rules.max_rounds - rnd + 1
    state = actor * space.n_cores + core
    protocol = space.rules.bid_protocol
    kind = int(eq.kinds(r, state))
    row: dict[str, Any] = {"attacker": space.profiles[actor].name,
                           "defender": space.profiles[kind].name if kind >= 0 else "",
                           "state": space.describe_core(core)}
    if kind < 0:  # no bids: what the actor declares
        names = [p.name for p in space.profiles]
        return {**row, "attack bids": turns_.describe(kind, names), "defence bids": "",
                "P(hit)": 0.0, "value": round(float(solution.value[r, state]), 6)}
    mv = moves(space, solution.turns, actor, kind, np.array([core]))
    joint = eq.joint(r, mv)[0]
    n_hit = len(space.pairs[actor, kind].damage)
    p_hit = float((joint * mv.probabilities()[0, ..., 1:1 + n_hit].sum(axis=-1)).sum())
    rows = eq.row[r, state]
    pa, pd = int(space.pools[core, actor]), int(space.pools[core, kind])
    attack, defence = _mix(eq.attack[rows, :pa + 1]), _mix(eq.defence[rows, :pd + 1])
    if protocol == "attacker_first":
        defence = "reply " + " ".join(f"{a}->{eq.defence_reply[rows, a]}" for a in range(pa + 1))
    if protocol == "defender_first":
        attack = "reply " + " ".join(f"{d}->{eq.attack_reply[rows, d]}" for d in range(pd + 1))
    return {**row, "attack bids": attack, "defence bids": defence, "P(hit)": round(p_hit, 6),
            "value": round(float(solution.value[r, state]), 6)}


def _mix(probs: np.ndarray) -> str:
    """``"0:0.25 2:0.75"``: the bids played with positive probability (``"2"`` if pure)."""
    return " ".join(f"{b}" if p > 1 - 1e-12 else f"{b}:{p:.3g}"
                    for b, p in enumerate(probs) if p > 1e-9)


def strategy_frame(result: Solved, chains: list[tuple[tuple[int, ...], float, Chain]],
                   limit: int = 8) -> Any:
    """The equilibrium bids in the opening states (round 1), most likely first per turn;
    a turn that is not an attack shows what the actor declares."""
    import pandas

    space = result.space
    records = []
    for order, weight, chain in chains:
        solution = result.solution_for(order)
        by_actor: dict[int, list[tuple[int, int, int, float]]] = {}
        for entry in chain.opening:
            by_actor.setdefault(entry[1], []).append(entry)
        for turn, actor in enumerate(order, start=1):
            entries = sorted(by_actor.get(actor, []), key=lambda e: -e[3])[:limit]
            for rnd, _, core, reach in entries:
                if space.status[core] != LIVE:
                    continue
                records.append({
                    "order": " > ".join(space.profiles[f].name for f in order),
                    "turn": turn, "reach": round(weight * reach, 6),
                    **_opening_bids(solution, rnd, actor, core)})
    frame = pandas.DataFrame.from_records(records)
    if len(chains) == 1 and len(frame):
        frame = frame.drop(columns="order")
    worth = space.rules.draw_worth
    notes = [
        "reach: the chance the fight passes through the state (under these strategies); "
        "bids: the equilibrium's mix, bid (probability); P(hit): the chance the exchange "
        f"lands; value: A's worth from the state, P(A wins) + {worth:g} x P(draw).",
    ]
    if len(frame) and bool((frame["P(hit)"] == 0).all()):
        notes.append(
            "No opening exchange can land under the equilibrium: the solver's optimal "
            "strategy waits (here waiting loses nothing: the value is already secured). Other optimal "
            "strategies act sooner; the value is the same, but the fight lengths and the "
            "win / draw split are those of this one (see value_by_max_rounds for how soon "
            "the value is reached).")
    frame.attrs["notes"] = notes
    return frame


@dataclass
class Distribution:
    """The exact outcome distribution of a matchup, averaged over turn orders.

    ``a_win[t]``, ``b_win[t]``, ``stalemate[t]``: probability of each ending in round
    ``t``; ``capped``: probability of reaching ``max_rounds`` undecided (a draw).
    """

    a_win: np.ndarray
    b_win: np.ndarray
    stalemate: np.ndarray
    capped: float
    game_value: float | None
    result: Solved | None
    chains: list[tuple[tuple[int, ...], float, Chain]]
    solve_s: float

    def categories(self) -> tuple[np.ndarray, list[str]]:
        """Probabilities of (winner, end cause): A down, B down, stalemate, max_rounds."""
        return (np.array([self.a_win.sum(), self.b_win.sum(), self.stalemate.sum(),
                          self.capped]),
                ["a_win down", "b_win down", "draw stalemate", "draw max_rounds"])

    def rounds(self) -> np.ndarray:
        """``p[t]``: probability that the fight lasts ``t`` rounds."""
        out = self.a_win + self.b_win + self.stalemate
        out[-1] += self.capped
        return out


def outcome_distribution(rules: Rules, side_a: Sequence[Combatant],
                         side_b: Sequence[Combatant], *, method: str = "auto",
                         choose_turns: bool = False) -> Distribution:
    """Solve (where needed) and propagate the fight: see :func:`solve`."""
    t0 = time.perf_counter()
    fighters = (*side_a, *side_b)
    use_policies = rules.exact_play == "policies"
    result: Solved | None = None
    if not use_policies or any(c.pool_policy == "equilibrium" for c in fighters):
        result = solved(rules, side_a, side_b, method=method,
                        choose_turns=choose_turns and not use_policies)
        space, orders = result.space, result.orders
    else:
        space, orders = Space(rules, side_a, side_b), linear_orders(rules, fighters)
    solve_s = time.perf_counter() - t0
    chains: list[tuple[tuple[int, ...], float, Chain]] = []
    game_value = 0.0
    cap = rules.max_rounds
    for order, weight in orders:
        solution = result.solution_for(order) if result is not None else None
        if solution is not None:
            turns = solution.turns
            game_value += weight * solution.start_value(cap)
        else:
            turns = TurnOrder.of(space.k, order)
        if use_policies:
            joint = policy_joint(space, solution)
            kinds = _fixed_kinds(space, turns)
        else:
            assert solution is not None
            joint = solution.strategies.joint
            kinds = _solved_kinds(solution)
        chains.append((tuple(order), weight, outcome_chain(space, turns, joint, kinds)))

    def mix(part: Callable[[Chain], np.ndarray]) -> np.ndarray:
        return np.sum([w * part(c) for _, w, c in chains], axis=0)

    return Distribution(mix(lambda c: c.a_win), mix(lambda c: c.b_win),
                        mix(lambda c: c.stalemate),
                        float(sum(w * c.capped for _, w, c in chains)),
                        game_value if result is not None else None, result, chains, solve_s)


def _turn_counts(chains: list[tuple[tuple[int, ...], float, Chain]]) -> str:
    """``"A: attack 3.1, full defence 0.4; B: attack 2.9"``: each side's expected turns of
    each kind in a fight (averaged over the turn orders)."""
    counts: dict[tuple[int, str], float] = {}
    for _, w, chain in chains:
        for key, c in chain.turns.items():
            counts[key] = counts.get(key, 0.0) + w * c
    return "; ".join(
        "AB"[side] + ": " + ", ".join(f"{kind} {counts[side, kind]:.4g}"
                                      for kind in turns_.KIND_CLASSES if (side, kind) in counts)
        for side in (0, 1))


def _fixed_kinds(space: Space, turns: TurnOrder) -> KindFn:
    """The kinds of turn under the fighters' own turn policies (any rounds left)."""
    def kinds(r: int, actor: int, cores: np.ndarray, stale: int = 0) -> np.ndarray:
        return turns_.fixed_kinds(space, turns, actor, cores)
    return kinds


def _solved_kinds(solution: Solution) -> KindFn:
    """The kinds of turn the solved game takes, by rounds left."""
    n = solution.space.n_cores

    def kinds(r: int, actor: int, cores: np.ndarray, stale: int = 0) -> np.ndarray:
        return solution.strategies.kinds(r, actor * n + cores, stale)
    return kinds


def solve(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], /
          ) -> Probabilities:
    """Exact win / loss / draw probabilities of a matchup (see the module docstring).

    With ``rules.exact_play="equilibrium"`` both sides play the solved equilibrium; with
    ``"policies"`` every fighter plays its own ``pool_policy`` (those set to
    ``"equilibrium"`` read the solved strategies) and the answer is the exact outcome of
    that play.  :func:`solve_with` takes the matrix-game method.
    """
    return solve_with(rules, side_a, side_b, method="auto")


def solve_with(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], /, *,
               method: str = "auto", choose_turns: bool = False) -> Probabilities:
    """:func:`solve` with the matrix-game ``method``: ``"linprog"`` solves every mixed
    exchange with ``linprog`` (slow; a cross-check of the simplex); ``choose_turns``:
    every turn's kind (attack, full defence, aid, withdrawal) chosen state by state too."""
    t0 = time.perf_counter()
    dist = outcome_distribution(rules, side_a, side_b, method=method,
                                choose_turns=choose_turns)
    result, cap = dist.result, rules.max_rounds
    fighters = (*side_a, *side_b)
    use_policies = rules.exact_play == "policies"
    mean_rounds = float((np.arange(cap + 1) * dist.rounds()).sum())
    details: dict[str, Any] = {
        "play": ("equilibrium" if not use_policies else
                 "pool_policy " + ", ".join(f"{c.name}={c.pool_policy}" for c in fighters)),
        "bid_protocol": rules.bid_protocol,
        "objective": f"A maximises P(A wins) + {rules.draw_worth:g} x P(draw)",
        "draws": f"stalemate {float(dist.stalemate.sum()):.6f}, max_rounds {dist.capped:.6f}",
    }
    if result is not None:
        space, orders = result.space, result.orders
        counts: dict[str, int] = {}
        for sol in result.solutions.values():
            for key, c in sol.counts.items():
                counts[key] = counts.get(key, 0) + c
        assert dist.game_value is not None
        details["game_value"] = round(dist.game_value, 12)
        by_cap = [r for r in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if r < cap] + [cap]
        details["value_by_max_rounds"] = ", ".join(
            f"{r}: " + format(sum(w * result.solution_for(o).start_value(r)
                                  for o, w in orders), ".6f")
            for r in by_cap)
        live = int((space.status == LIVE).sum())
        details["states"] = space.k * space.n_cores
        details["state_space"] = (f"{space.k * space.n_cores:,} states ({space.n_cores:,} "
                                  f"cores x {space.k} turns, {live:,} cores undecided) x {cap} "
                                  "rounds left"
                                  + (f" x {len(orders)} turn orders" if len(orders) > 1 else ""))
        details["exchanges"] = ", ".join(f"{key} {c:,}" for key, c in counts.items())
    details["turns"] = _turn_counts(dist.chains)
    details["turn_orders"] = len(dist.chains)
    details["solve_s"] = round(dist.solve_s, 3)
    details["total_s"] = round(time.perf_counter() - t0, 3)
    strategy = (strategy_frame(result, dist.chains)
                if result is not None and not use_policies else None)
    return Probabilities("pool", float(dist.a_win.sum()), float(dist.b_win.sum()),
                         float(dist.stalemate.sum() + dist.capped), mean_rounds, details,
                         strategy)
