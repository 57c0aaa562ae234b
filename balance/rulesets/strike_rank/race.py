"""The model behind ``attack_policy="best"``: a fight is a race between two wound tracks.

Why not one round's expected net damage (the rule this replaces)?  Three things decide a
strike-rank duel that one round's ``gain - loss`` misjudges:

* **The race, not the round.**  A fight is won by whoever fills the other's wound code
  first, so what matters is how a choice changes the *ratio* of the two sides' damage
  rates, not their difference: a favourite that doubles the damage it takes to deal 50%
  more has made a bad trade, though its net damage per round went up (the old rule sent
  strong fighters into blows); an underdog gains from variance.  Wounds accumulate, the
  wounded -5 compounds, and one head wound can end it.
* **The whole round.**  A swing (-5) or a blow (-10) lowers *every* parry and dodge the
  attacker makes that round (``attack_penalty_scope``): against the foe's attack, against
  each riposte in a chain, and in group fights against every attacker, each at the
  cumulative -5 step.
* **Ripostes and overpowering.**  A parry by 20 or more ripostes (a thrust) and a margin of
  20 buys a called shot to the head or a damage rank: the defence penalty feeds the foe's
  ripostes and overpowers, and the attacker's own riposte chances fall with it.

So the model plays the fight out as a Markov chain over both fighters' wound points (the
states up to unconsciousness), one round at a time: in each round the two fighters attack
in Strike Rank order (the chance of acting first comes from the exact Initiative Index
distribution of that round, the dice decaying as only 5s and 6s carry over, then the
tie-breaks, action cost included), each attack resolved on the exact d20-against-d20
margin with the defence the defender's policy chooses, the cumulative defence penalty, the
attack type's own-defence penalty, overpower blocks spent as the attacker's
``overpower_policy`` says, riposte chains (to ``max_riposte_depth``, at most
:data:`MAX_CHAIN`), the Knight's parry-then-block, a held Armour block's blow at double armour
(``armour_block_success="double_armour"``), a hit's Wound Matrix rank with armour,
instant death and destroyed limbs, the wounded penalty and berserk (as wound states).  The
chain gives each pair of attack types a score, ``P(win) + P(draw) / 2`` by ``max_rounds``.

What it leaves out (approximations of a *policy*, not of the rules, which the reference
and the kernel play in full): getting behind by a dodge, disarms, the ambush, knock-outs,
crippled limbs, the action budget.  The range phase is played first (each shooter's shots,
reloads and aims on their schedule; Dodge or a shield parry against each shot).  In group fights the pair ``i``
against ``j`` is modelled as a duel in which ``i`` also takes the attacks of ``j``'s
side-mates (``k_i - 1`` more attacks a round from fighters like ``j``, at the cumulative
step), and likewise ``j``; ripostes against those extra attackers are not followed.

The choice, per attacker ``i`` and target ``j`` (:func:`.policy.best_type_table`): against
a target with a fixed type, the type with the best score against it; against a target that
also plays ``best``, the type whose *worst* score over the target's types is best (a pure
security strategy).  So a fighter playing ``best`` does at least as well, in the model, as
playing any fixed type against the target's best answer to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from ...dice import pmf
from ...language import Modifier
from ...language.rows import total_distribution
from . import race_store
from . import rules as R
from . import tables as T
from .profile import (
    BLOCK,
    BOTH_PARRY,
    DODGE,
    PARRIES,
    SHIELD_PARRY,
    WEAPON_PARRY,
    Profile,
    choose_defence,
    profile,
    total,
    uses_shield,
)
from .rules import Combatant, Rules

__all__ = ["MAX_CHAIN", "race_scores"]

MAX_CHAIN = 4
"""Deepest riposte chain the model follows (a fifth riposte in a row is very rare)."""
MAX_BLOCKS = 4
ON_ARMOUR = -1
"""The overpower blocks of a blow a held Armour block lets through at double armour
(``armour_block_success="double_armour"``, as the reference's ``wound(blocks=0,
armour_mult=2)``): no blocks to spend, the location's armour counted twice."""
"""Overpower blocks the model distinguishes (a margin of 80 or more buys no more)."""
SETTLED = 1e-7
"""The chain stops once less than this share of fights is still undecided."""

_K = np.arange(-19, 20)
_K_WEIGHT = (20 - np.abs(_K)) / 400.0
"""Distribution of X - Y for two independent d20s."""

_TWO_D6 = tuple((roll, float(p)) for roll, p in pmf(2, 6).items())

WOUNDED, BERSERK = 1, 2
"""Bits of a fighter's flag state: wounded (penalty in force), berserk."""


@dataclass(frozen=True)
class _Racer:
    """One fighter as the model sees it."""

    p: Profile
    skill_sit: int  # situation at the start of the fight, on style-skill rolls
    dodge_sit: int  # and on Dodge
    flags: tuple[int, ...]  # flag state by wound points 0 .. n_states - 1
    attack_type: int
    incoming: int = 1  # attacks it takes a round

    @property
    def n_states(self) -> int:
        return len(self.flags)


# --- the rules language's per-fight rows, as the model reads them ----------------------------
MODEL_ROUND = 2
"""The round the model reads in rows of every target but ``strike_rank`` (it applies one
transition to every round; Strike Rank it reads round by round)."""


def _lang(r: _Racer, other: _Racer | None, rows: Sequence[Modifier], flag: int = 0,
          other_flag: int = 0, rnd: int = MODEL_ROUND) -> int:
    """The per-fight ``rows`` as the model sees them: their mean, rounded, in the state of
    the flags (``wounds``: 0, or the wounded threshold once wounded; ``berserk``), at
    round ``rnd``, a group fight's head counts from the model's duel (``foes_engaged`` and
    ``foes_standing`` the attacks it takes a round, ``allies_standing`` 0)."""
    if not rows:
        return 0
    env = r.p.env(None if other is None else other.p)
    for role, x, f in (("self", r, flag), ("target", other, other_flag)):
        if x is not None:
            wounded = bool(f & WOUNDED)
            env.update({f"{role}.wounds": x.p.thresholds[0] if wounded else 0,
                        f"{role}.wounded": wounded, f"{role}.berserk": bool(f & BERSERK)})
    env["round"] = rnd
    if not r.p.fixed:
        env.update(foes_engaged=r.incoming, foes_standing=r.incoming, allies_standing=0)
    mean = sum(v * q for v, q in total_distribution(rows, rows[0].to, env).items())
    return round(mean)


def _flags(p: Profile) -> tuple[int, ...]:
    rules = p.rules
    out = []
    for points in range(p.thresholds[1]):
        f = WOUNDED if points >= p.thresholds[0] and rules.wounded_penalty else 0
        if p.can_berserk and (p.c.berserk_trigger == "start"
                              or (p.c.berserk_trigger == "on_first_wound" and points > 0)):
            f |= BERSERK
        out.append(f)
    return tuple(out)


# --- one attack ---------------------------------------------------------------------------


Memo = dict[tuple[object, ...], Any]
"""What one attacker against one defender comes to, made once: the totals that do not
change within a fight state, the defender's choice of defence and each attack outcome
(:func:`_outcome`) by what they depend on (the race model asks for them for every defence
count and attack type)."""


def _memo(memo: Memo | None, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
    if memo is None:
        return make()
    if key not in memo:
        memo[key] = make()
    return memo[key]


def _defence(d: _Racer, a: _Racer, flag: int, own: int, count: int, no_parry: bool,
             memo: Memo | None = None) -> tuple[int | None, dict[int, int]]:
    """(kind, totals) of ``d``'s defence against ``a`` now (as the reference's
    ``defence_options``, without getting behind, disarms or crippled limbs)."""
    p, rules = d.p, d.p.rules
    berserk = bool(flag & BERSERK)
    wounded = rules.wounded_penalty if flag & WOUNDED else 0
    options: dict[int, int] = {}

    def add(kind: int, base: Callable[[], int], sit: int) -> None:
        penalty = own if kind != BLOCK or rules.swing_penalty_armour_block else 0
        fixed = _memo(memo, ("defence", kind, flag), lambda: (
            base() + sit + wounded + total(p.berserker_parts(berserk, kind))
            + _lang(d, a, _defence_rows(p, a.p, kind), flag)))
        options[kind] = fixed + penalty + count * p.step(kind)  # integers: order is free

    if not no_parry:
        if p.can_weapon_parry:
            add(WEAPON_PARRY, lambda: total(p.parry_parts(a.p, WEAPON_PARRY)), d.skill_sit)
        if p.has_shield:
            add(SHIELD_PARRY, lambda: total(p.parry_parts(a.p, SHIELD_PARRY)), d.skill_sit)
            if p.can_weapon_parry and rules.parry_bonus_mode == "sum":
                add(BOTH_PARRY, lambda: total(p.parry_parts(a.p, BOTH_PARRY)), d.skill_sit)
    if not berserk:
        add(DODGE, lambda: total(p.dodge_parts(a.p)), d.dodge_sit)
    if p.can_block:
        add(BLOCK, lambda: total(p.block_parts(a.p)), d.skill_sit)
    kind, _ = choose_defence(p.defence_preference, options)
    return kind, options


def _defence_rows(p: Profile, attacker: Profile, kind: int) -> tuple[Modifier, ...]:
    """The per-fight rows on ``p``'s defence of ``kind`` (those of the style it is made in,
    and the weapon's unless it is a shield parry)."""
    if kind in PARRIES:
        q = p.chosen(lambda x: x._parry_parts(attacker, kind))
        return q.dynamic_rows("parry", weapon=kind != SHIELD_PARRY)
    if kind == DODGE:
        return p.chosen(lambda x: x._dodge_parts(attacker)).dynamic_rows("dodge")
    return p.chosen(lambda x: x._block_parts(attacker)).dynamic_rows("armour_block")


def _blocks(margin: np.ndarray, strict: bool) -> np.ndarray:
    blocks = (margin - 1) // T.OVERPOWER_BLOCK if strict else margin // T.OVERPOWER_BLOCK
    return np.minimum(blocks, MAX_BLOCKS)


@dataclass(frozen=True)
class _Attack:
    """What one attack does: hit chances by overpower blocks, riposte chance, the defence
    count it costs the defender, and whether the riposte comes with a shield."""

    hit: tuple[tuple[float, int], ...]  # (probability, blocks or ON_ARMOUR): 1 defence
    hit_two: tuple[tuple[float, int], ...]  # through a Knight's parry-then-block: 2
    riposte: float  # parry by 20+ turned into a riposte (defence count +1)
    miss_one: float  # other misses costing one defence
    miss_two: float  # misses costing two (parry failed, Armour block held and absorbed)
    shield_riposte: bool


def _attack(a: _Racer, d: _Racer, fa: int, fd: int, own_d: int, count: int,
            no_parry: bool, memo: Memo | None = None) -> _Attack:
    """One attack of ``a`` on ``d`` at flag states ``fa``, ``fd``; ``d`` has made
    ``count`` defences this round and carries its own-type penalty ``own_d``."""
    rules = d.p.rules
    wounded = rules.wounded_penalty if fa & WOUNDED else 0
    a_total = _memo(memo, ("attack", fa, fd), lambda: (
        a.p.attack_total(d.p) + a.skill_sit + wounded
        + _lang(a, d, a.p.chosen(lambda x: x._attack_parts(d.p)).dynamic_rows("attack"),
                fa, fd)))
    kind, options = _memo(memo, ("defence choice", fd, own_d, count, no_parry),
                          lambda: _defence(d, a, fd, own_d, count, no_parry, memo))
    if kind is None:  # undefended: always hit, no overpower blocks
        return _Attack(((1.0, 0),), (), 0.0, 0.0, 0.0, False)
    lead = a_total - options[kind]
    if not (kind in PARRIES and d.p.knight_double):
        return _memo(memo, ("outcome", kind, lead), lambda: _outcome(d, kind, lead))
    # Knight: a failed parry is followed by an Armour block against the same attack roll
    wounded_d = rules.wounded_penalty if fd & WOUNDED else 0
    block = (_memo(memo, ("knight block", fd, fa), lambda: (
        total(d.p.block_parts(a.p)) + d.skill_sit + wounded_d
        + total(d.p.berserker_parts(bool(fd & BERSERK), BLOCK))
        + _lang(d, a, _defence_rows(d.p, a.p, BLOCK), fd, fa)))
        + (count + 1) * d.p.step(BLOCK) + (own_d if rules.swing_penalty_armour_block else 0))
    return _memo(memo, ("outcome", kind, lead, a_total - block),
                 lambda: _outcome(d, kind, lead, a_total - block))


def _outcome(d: _Racer, kind: int, lead: int, block_lead: int | None = None) -> _Attack:
    """The :class:`_Attack` on ``d`` defending with ``kind`` by an attack whose total
    exceeds the defence's by ``lead`` (and, where ``d`` is a Knight who parries, the
    Armour block's after it by ``block_lead``): the same for every fight state and defence
    count that give the same leads, so made once for them."""
    rules = d.p.rules
    strict = rules.overpower_strict
    margin = lead + _K
    w = _K_WEIGHT
    hit_list = _hits_by_blocks(margin, rules)
    p_hit = sum(q for q, _ in hit_list)
    won = -margin
    parry = kind in PARRIES
    can_riposte = (parry and d.p.c.riposte_policy != "never"
                   and d.p.riposte_damage is not None)
    reach = won > T.OVERPOWER_BLOCK if strict else won >= T.OVERPOWER_BLOCK
    if d.p.c.riposte_policy == "disarm" and rules.disarm_effect != "none":
        disarm = won > T.DISARM_MARGIN if strict else won >= T.DISARM_MARGIN
        reach = reach & ~disarm  # disarming instead: not modelled beyond the lost riposte
    riposte = float(w[reach].sum()) if can_riposte else 0.0
    shield_riposte = (riposte > 0 and uses_shield(kind) and d.p.shieldman_shield
                      and rules.shield_riposte)
    on_armour = rules.armour_block_success == "double_armour"
    if block_lead is None:
        held = 1.0 - p_hit - riposte
        if on_armour and kind == BLOCK:  # the blow lands on the armour, which counts double
            return _Attack((*hit_list, (held, ON_ARMOUR)), (), riposte, 0.0, 0.0,
                           shield_riposte)
        return _Attack(hit_list, (), riposte, held, 0.0, shield_riposte)
    x = np.arange(1, 21)[:, None]  # the attack's d20 (rows) against the defence's d20
    y = np.arange(1, 21)[None, :]
    add_d20 = rules.tie_rule == "add_d20"

    def through(m: np.ndarray) -> np.ndarray:  # chance the attack beats a defence, per die
        return np.where(m > 0, 1.0, np.where((m == 0) & add_d20, 0.5, 0.0)) / 20

    parry_fails = through(lead + x - y).sum(axis=1)  # per attack die
    m2 = block_lead + x - y
    q2 = through(m2) * parry_fails[:, None] / 20
    b2 = _blocks(np.maximum(m2, 0), strict)
    two = {b: float(q2[b2 == b].sum()) for b in range(MAX_BLOCKS + 1)}
    p_two = sum(two.values())
    through_two = tuple((q, b) for b, q in two.items() if q > 0)
    block_held = p_hit - p_two  # the parry failed, the Armour block held
    if on_armour:  # ... and the blow lands on the armour, which counts double
        through_two, block_held = (*through_two, (block_held, ON_ARMOUR)), 0.0
    return _Attack((), through_two, riposte, 1.0 - p_hit - riposte, block_held,
                   shield_riposte)


def _shot(a: _Racer, d: _Racer, fa: int, fd: int, count: int, memo: Memo | None = None
          ) -> _Attack:
    """One shot of ``a`` at ``d`` in the range phase (as the reference's ``shoot``: Dodge
    or a shield parry, no riposte, no own-type penalty)."""
    p, rules = d.p, d.p.rules
    berserk = bool(fd & BERSERK)
    wounded_a = rules.wounded_penalty if fa & WOUNDED else 0
    wounded_d = rules.wounded_penalty if fd & WOUNDED else 0
    a_total = _memo(memo, ("shot", fa, fd), lambda: (
        total(a.p.missile_parts(p)) + a.skill_sit + wounded_a
        + _lang(a, d, a.p.chosen(lambda x: x._missile_parts(p)).dynamic_rows(
            "attack", weapon=False, missile=True), fa, fd)))
    options: dict[int, int] = {}
    kinds = []
    if rules.missile_weapon_parry and p.can_weapon_parry:
        kinds.append(WEAPON_PARRY)
    if p.has_shield:
        kinds.append(SHIELD_PARRY)
    def parry_total(parry: int) -> int:
        return (total(p.parry_parts(a.p, parry)) + d.skill_sit + wounded_d
                + total(p.berserker_parts(berserk, parry))
                + _lang(d, a, _defence_rows(p, a.p, parry), fd, fa))

    for parry in kinds:
        options[parry] = (_memo(memo, ("shot defence", parry, fd, fa),
                                partial(parry_total, parry)) + count * p.step(parry))
    if not berserk:
        options[DODGE] = _memo(memo, ("shot defence", DODGE, fd, fa), lambda: (
            total(p.dodge_parts(a.p)) + d.dodge_sit + wounded_d
            + total(p.berserker_parts(berserk, DODGE))
            + _lang(d, a, _defence_rows(p, a.p, DODGE), fd, fa))) + count * p.step(DODGE)
    kind, _ = choose_defence(p.defence_preference, options)
    if kind is None:
        return _Attack(((1.0, 0),), (), 0.0, 0.0, 0.0, False)
    margin = a_total - options[kind] + _K
    hits = _hits_by_blocks(margin, rules)
    p_hit = sum(q for q, _ in hits)
    return _Attack(hits, (), 0.0, 1.0 - p_hit, 0.0, False)


def _hits_by_blocks(margin: np.ndarray, rules: Rules) -> tuple[tuple[float, int], ...]:
    """((chance, overpower blocks), ...) of the hits among the margins ``margin`` (weights
    of X - Y), a re-rolled tie counting as a hit half the time (``tie_rule="add_d20"``)."""
    hit_w = np.where(margin > 0, _K_WEIGHT, 0.0)
    blocks = _blocks(np.maximum(margin, 0), rules.overpower_strict)
    hits = {b: float(hit_w[blocks == b].sum()) for b in range(MAX_BLOCKS + 1)}
    if rules.tie_rule == "add_d20":
        hits[0] += float(_K_WEIGHT[margin == 0].sum()) / 2
    return tuple((q, b) for b, q in hits.items() if q > 0)


# --- one hit --------------------------------------------------------------------------------


def _hit(a: _Racer, d: _Racer, damage: int, blocks: int, berserk: bool
         ) -> tuple[float, tuple[tuple[int, float], ...]]:
    """(chance ``d`` goes out, ((wound points, chance), ...)) of one hit (as the reference's
    ``wound``, without knock-outs and crippled limbs)."""
    return _wound(d.p.rules, a.p.c.overpower_policy, a.p.aim_shift, d.p.c.armour, d.p.death,
                  damage, blocks, berserk)


@lru_cache(maxsize=4096)
def _wound(rules: Rules, overpower_policy: str, aim: int, armour: Mapping[str, int],
           death: tuple[int, int], damage: int, blocks: int, berserk: bool
           ) -> tuple[float, tuple[tuple[int, float], ...]]:
    """:func:`_hit` from what it reads (the same for every pair that shares them);
    ``blocks`` :data:`ON_ARMOUR`: a blow on the armour, counted twice."""
    armour_mult = 2 if blocks == ON_ARMOUR else 1
    location, shift, _ = R.spend_overpower(max(blocks, 0), overpower_policy, rules)
    shift += int(berserk)
    if location is None:
        by_loc: dict[int, float] = {}
        for face in range(1, 21):
            loc = R.hit_location(face, rules.hit_table, aim)
            by_loc[loc] = by_loc.get(loc, 0.0) + 1 / 20
        locations = list(by_loc.items())
    else:
        locations = [(location, 1.0)]
    out = 0.0
    points: dict[int, float] = {}
    for loc, p_loc in locations:
        ai = armour[T.ARMOUR_GROUPS[T.LOCATION_GROUP[loc]]] * armour_mult
        for dice, p_dice in _TWO_D6:
            q = p_loc * p_dice
            roll = dice + damage
            s = shift
            if rules.rank_shift_mode == "roll_plus_3":
                roll, s = roll + 3 * s, 0
            if rules.armour_mode == "roll_reduction":
                rank = R.wound_rank(roll - rules.armour_roll_per_ai * ai,
                                    rules.block_rounding) + s
            else:
                rank = R.wound_rank(roll, rules.block_rounding) + s - ai
            if rank < 0:
                points[0] = points.get(0, 0.0) + q
            elif ((loc == T.HEAD and rank >= death[0])
                  or (loc in T.TORSO_LOCATIONS and rank >= death[1])
                  or (loc in T.LIMB_LOCATIONS and rank >= T.LIMB_DESTROYED_RANK
                      and rules.limb_destroyed == "out")):
                out += q
            else:
                x = R.rank_points(rank, rules.rank_ratio, rules.f_points)
                points[x] = points.get(x, 0.0) + q
    return out, tuple(sorted(points.items()))


# --- one round as a linear map over the wound states ------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """One attack (or shot) as grids over the (attacker's, defender's) wound states, in the
    order :meth:`_Round.exchange` applies them: made once per :class:`_Direction` for all
    attacks alike (:data:`_Alike`) and used by every pair of attack types, both views of
    the matchup and every batch (the arithmetic on a batch is the same as building each
    grid on the spot)."""

    hits: tuple[tuple[int, np.ndarray, tuple[tuple[int, np.ndarray], ...]], ...]
    """(defences it costs, chance of going out, ((wound points, chance), ...)) by hit kind."""
    misses: tuple[tuple[int, np.ndarray], ...]  # (defences it costs, chance)
    riposte: np.ndarray | None  # chance of a riposte, None if never
    shield: bool  # the riposte comes with a shield


@dataclass(frozen=True)
class _Fused:
    """A :class:`_Plan` in the form :meth:`_Round.exchange` applies to a batch laid out
    ``(n0, n1, B)`` (the batch last) in a race in which the attacker is fighter ``ai``:
    each hit kind as one linear map of the defender's points for each state of the
    attacker, ``op[k]`` an ``(n + 1) x n`` matrix (``n`` the defender's states) applied on
    the left, whose last row is the chance of going out (the plan's, and every shift's
    share that passes the defender's capacity) and whose diagonal holds, besides the hits
    that add no points, the misses that cost as many defences as the hit kind: so one
    stacked matrix product moves a whole batch through the hits and those misses.  The
    other misses' and the riposte's grids with the race's axes and the batch's."""

    hits: tuple[tuple[int, np.ndarray], ...]
    misses: tuple[tuple[int, np.ndarray], ...]
    riposte: np.ndarray | None
    shield: bool

    @classmethod
    def of(cls, plan: _Plan, ai: int) -> _Fused:
        """From ``plan`` as made (the attacker's points along the first axis)."""
        misses = dict(plan.misses)
        hits = []
        for extra, out_grid, shifts in plan.hits:
            n = out_grid.shape[1]
            op = np.zeros((out_grid.shape[0], n + 1, n), out_grid.dtype)
            op[:, n, :] = out_grid
            flat = op.reshape(len(op), -1)  # entry (j, k) at j * n + k
            for x, g in shifts:
                kept = max(n - x, 0)
                flat[:, x * n:x * n + kept * (n + 1):n + 1] += g[:, :kept]  # (k + x, k)
                op[:, n, kept:] += g[:, kept:]  # past its capacity: out
            if extra in misses:  # staying where it is, as a hit of no points does
                flat[:, :n * n:n + 1] += misses.pop(extra)  # (k, k)
            hits.append((extra, op))

        def race_axes(g: np.ndarray) -> np.ndarray:  # fighter 0's points first, batch last
            return np.ascontiguousarray((g if ai == 0 else g.T)[:, :, None])

        return cls(tuple(hits), tuple((extra, race_axes(g)) for extra, g in misses.items()),
                   None if plan.riposte is None else race_axes(plan.riposte), plan.shield)


@dataclass(frozen=True)
class _Scaled:
    """The basis batch (a distribution on each joint state, the batch in the states'
    order) with column ``b`` scaled by ``s.flat[b]``: a round's batch until a hit moves
    it, kept as ``s`` ``(n0, n1)``.  With :class:`_Still`, what is made from it is what
    the dense batch gives, bit for bit (each sum of products it skips has at most one term
    that is not zero), without the dense arithmetic."""

    s: np.ndarray

    def __mul__(self, g: np.ndarray) -> _Scaled:  # by a grid (n0, n1, 1)
        return _Scaled(self.s * g[:, :, 0])

    def still(self, f: int) -> bool:
        return True

    def states(self) -> tuple[int, int]:
        """(n0, n1): the race's wound states, the batch one column for each pair."""
        n0, n1 = self.s.shape
        return n0, n1

    def support(self) -> tuple[np.ndarray, ...]:
        """Where the dense batch holds :meth:`values`: (0's points, 1's, column)."""
        return _support(None, *self.s.shape)

    def values(self) -> np.ndarray:
        return self.s.ravel()

    def as_still(self, f: int) -> np.ndarray:
        """This batch as :class:`_Still` ``f``'s ``u``."""
        n0, n1 = self.s.shape
        u = np.zeros((n0, n1, n1) if f == 0 else (n1, n0, n0))
        on = np.arange(u.shape[1])
        u[:, on, on] = self.s if f == 0 else self.s.T
        return u

    def carried(self, op: np.ndarray, f: int, out: np.ndarray) -> _Still:
        """Moved by the stacked ``op`` of attacker ``f`` (:func:`_move`)."""
        return _Still.made(f, op * (self.s if f == 0 else self.s.T)[:, None, :], out)


@dataclass(frozen=True)
class _Still:
    """The basis batch after hits on fighter ``1 - f`` only, fighter ``f`` still on the
    points its column starts from: for ``f = 0`` ``u[a, j, k]`` is the dense batch's
    ``[a, j, (a, k)]``, for ``f = 1`` ``u[k, i, a]`` its ``[i, k, (a, k)]`` (zero
    elsewhere)."""

    f: int
    u: np.ndarray

    @classmethod
    def made(cls, f: int, full: np.ndarray, out: np.ndarray) -> _Still:
        """From ``full``, a ``u`` with one more row along axis 1: the mass going out,
        added to ``out``."""
        gone = full[:, -1, :]
        out += (gone if f == 0 else gone.T).ravel()
        return cls(f, full[:, :-1, :])

    def __mul__(self, g: np.ndarray) -> _Still:  # by a grid (n0, n1, 1)
        return _Still(self.f, self.u * (g if self.f == 0 else g[:, :, 0].T[:, :, None]))

    def still(self, f: int) -> bool:
        return f == self.f

    def states(self) -> tuple[int, int]:
        """(n0, n1), as :meth:`_Scaled.states`."""
        first, second = self.u.shape[:2]
        return (first, second) if self.f == 0 else (second, first)

    def support(self) -> tuple[np.ndarray, ...]:
        return _support(self.f, *self.states())

    def values(self) -> np.ndarray:
        return self.u.ravel()

    def carried(self, op: np.ndarray, f: int, out: np.ndarray) -> _Still:
        """Moved by the stacked ``op`` of attacker ``f``, the still one (:func:`_move`)."""
        return _Still.made(f, np.matmul(op, self.u), out)

    def spread(self, op: np.ndarray, di: int) -> np.ndarray:
        """Moved by the stacked ``op`` along the still fighter's axis ``di``: the dense
        ``(n0 + 1, n1, B)`` or ``(n0, n1 + 1, B)`` of :func:`_move`."""
        if di == 0:  # [i, j, (a, k)] = op[j, i, a] * u[a, j, k]
            moved = op.transpose(1, 0, 2)[:, :, :, None] * self.u.transpose(1, 0, 2)[None]
        else:  # [i, j, (a, k)] = op[i, j, k] * u[k, i, a]
            moved = op[:, :, None, :] * self.u.transpose(1, 2, 0)[:, None, :, :]
        return moved.reshape(*moved.shape[:2], -1)


@lru_cache(maxsize=16)
def _support(f: int | None, n0: int, n1: int) -> tuple[np.ndarray, ...]:
    """(0's points, 1's, column) of the dense batch's entries that a :class:`_Scaled`
    (``f`` None) or a :class:`_Still` ``f`` holds, in the order of its values (read-only:
    every batch of the shape shares them)."""
    if f is None:
        a, k = np.indices((n0, n1)).reshape(2, -1)
        where = (a, k, a * n1 + k)
    elif f == 0:
        a, j, k = np.indices((n0, n1, n1)).reshape(3, -1)
        where = (a, j, a * n1 + k)
    else:
        k, i, a = np.indices((n1, n0, n0)).reshape(3, -1)
        where = (i, k, a * n1 + k)
    for index in where:
        index.flags.writeable = False
    return where


Lazy = _Scaled | _Still
"""A batch kept as the few entries that are not zero."""
Batch = np.ndarray | Lazy
"""A batch of distributions over (points of 0, points of 1), ``(n0, n1, B)``."""


def _dense(V: Batch) -> np.ndarray:
    """``V`` as an array ``(n0, n1, B)``."""
    if isinstance(V, np.ndarray):
        return V
    n0, n1 = V.states()
    out = np.zeros((n0, n1, n0 * n1))
    out[V.support()] = V.values()
    return out


def _plus(into: Batch, W: Batch) -> Batch:
    """``into + W``, in place where either is an array (every array put in a round's
    branches is this round's own: addition is commutative bit for bit)."""
    if isinstance(into, np.ndarray) and isinstance(W, np.ndarray):
        into += W
        return into
    if isinstance(W, np.ndarray):
        into, W = W, into
    if isinstance(into, np.ndarray):
        assert not isinstance(W, np.ndarray)
        into[W.support()] += W.values()
        return into
    assert not isinstance(W, np.ndarray)
    return _plus_lazy(into, W)


def _plus_lazy(into: Lazy, W: Lazy) -> Batch:
    """``into + W`` of two lazy batches, lazy where they are still alike."""
    if isinstance(into, _Scaled) and isinstance(W, _Scaled):
        return _Scaled(into.s + W.s)
    if isinstance(into, _Scaled) and isinstance(W, _Still):
        return _Still(W.f, W.u + into.as_still(W.f))
    if isinstance(into, _Still) and isinstance(W, _Scaled):
        return _Still(into.f, into.u + W.as_still(into.f))
    assert isinstance(into, _Still) and isinstance(W, _Still)
    if into.f == W.f:
        return _Still(into.f, into.u + W.u)
    return _plus(_dense(into), W)


def _total(batches: Iterable[Batch]) -> np.ndarray:
    """The sum of a round's branches, in their order."""
    return sum((_dense(b) for b in batches), start=np.zeros(()))


def _move(V: Batch, op: np.ndarray, di: int, out: np.ndarray) -> Batch:
    """The batch ``V`` ``(n0, n1, B)`` moved along the defender's axis ``di`` by the
    stacked ``op`` (:class:`_Fused`), the mass it puts out added to ``out`` ``(B,)``: one
    stacked matrix product whose every operand is a row-major matrix (none copied), or
    less on a lazy batch."""
    if not isinstance(V, np.ndarray):
        if V.still(1 - di):
            return V.carried(op, 1 - di, out)
        assert isinstance(V, _Still)  # a scaled basis is still on both axes
        moved = V.spread(op, di)
    elif di == 1:
        moved = np.matmul(op, V)  # (n0, n1 + 1, B)
    else:
        n0, n1, n_batch = V.shape
        moved = np.empty((n0 + 1, n1, n_batch), V.dtype)
        np.matmul(op, V.transpose(1, 0, 2), out=moved.transpose(1, 0, 2))
    if di == 1:
        out += moved[:, -1].sum(axis=0)
        return moved[:, :-1]
    out += moved[-1].sum(axis=0)
    return moved[:-1]


_Alike = tuple[bool, int, tuple[tuple[tuple[int, int], _Attack], ...]]
"""What a plan is made of: (clone, damage, the attacks by flag states); plans whose
attacks are alike (a different penalty and defence count that come to the same totals)
are one plan."""


class _Direction:
    """What one fighter's attacks (and shots) on another are, whatever the pair of attack
    types and whichever of the two is fighter 0 of a race: the attacks by flag states,
    defence count, own-type penalty and parry; the totals they are made of
    (:data:`Memo`); the damage bonuses; their grids (:class:`_Plan`, the attacker's
    points along the first axis).  Shared by the two views of a matchup."""

    def __init__(self) -> None:
        self.attacks: dict[tuple[object, ...], _Attack] = {}
        self.memo: Memo = {}
        self.bonus: dict[bool, int] = {}
        self.alike: dict[tuple[object, ...], _Alike] = {}  # plan key -> what it is made of
        self.plans: dict[_Alike, _Plan] = {}  # attacker's points on axis 0


@lru_cache(maxsize=64)  # the two views of a matchup are asked for one after the other
def _direction(rules: Rules, fixed: tuple[tuple[str, int], ...],
               attacker: tuple[Combatant, tuple[int, int], int],
               defender: tuple[Combatant, tuple[int, int], int]) -> _Direction:
    """The :class:`_Direction` of ``attacker`` on ``defender``, each (combatant, starting
    situation, attacks it takes a round): all a :class:`_Racer` is but its attack type
    and slot, which no attack reads."""
    return _Direction()


class _Round:
    """Applies one round to a batch of distributions over (points of 0, points of 1)."""

    def __init__(self, racers: tuple[_Racer, _Racer], incoming: tuple[int, int],
                 cache: dict[tuple[object, ...], object],
                 directions: tuple[_Direction, _Direction] | None = None) -> None:
        self.r = racers
        self.incoming = incoming
        rules = racers[0].p.rules
        self.rules = rules
        self.whole = rules.attack_penalty_scope == "whole_round"
        self.depth = min(rules.max_riposte_depth, MAX_CHAIN)
        self.flag_maps = [np.asarray(r.flags) for r in racers]
        self.cache = cache  # hits, hit mixes, fused plans: shared by the races of a call
        self.dirs = directions or (_Direction(), _Direction())  # fighter 0's attacks, 1's

    def _cached(self, key: tuple[object, ...], make: Callable[[], Any]) -> Any:
        return _memo(self.cache, key, make)

    def hit(self, ai: int, damage: int, blocks: int, berserk: bool
            ) -> tuple[float, tuple[tuple[int, float], ...]]:
        return self._cached(("hit", ai, damage, blocks, berserk),
                            lambda: _hit(self.r[ai], self.r[1 - ai], damage, blocks, berserk))

    def hit_mix(self, ai: int, damage: int, hits: tuple[tuple[float, int], ...],
                berserk: bool) -> tuple[float, dict[int, float]]:
        """(chance the defender goes out, {wound points: chance}) of one of ``hits``
        ((chance, overpower blocks), ...) landing, made once (attacks share hit lists)."""
        def make() -> tuple[float, dict[int, float]]:
            out = 0.0
            points: dict[int, float] = {}
            for q, b in hits:
                p_out, pts = self.hit(ai, damage, b, berserk)
                out += q * p_out
                for x, px in pts:
                    points[x] = points.get(x, 0.0) + q * px
            return out, points

        return self._cached(("hit mix", ai, damage, hits, berserk), make)

    def attack_table(self, ai: int, own_d: int, count: int, no_parry: bool, clone: bool
                     ) -> dict[tuple[int, int], _Attack]:
        a, d, where = self.r[ai], self.r[1 - ai], self.dirs[ai]
        out: dict[tuple[int, int], _Attack] = {}
        for fa in ((0,) if clone else sorted(set(a.flags))):
            for fd in sorted(set(d.flags)):
                key = ("attack", fa, fd, own_d, count, no_parry)
                if key not in where.attacks:
                    where.attacks[key] = _attack(a, d, fa, fd, own_d, count, no_parry,
                                                 where.memo)
                out[(fa, fd)] = where.attacks[key]
        return out

    def shot_table(self, ai: int, count: int, clone: bool) -> dict[tuple[int, int], _Attack]:
        a, d, where = self.r[ai], self.r[1 - ai], self.dirs[ai]
        out: dict[tuple[int, int], _Attack] = {}
        for fa in ((0,) if clone else sorted(set(a.flags))):
            for fd in sorted(set(d.flags)):
                key = ("shot", fa, fd, count)
                if key not in where.attacks:
                    where.attacks[key] = _shot(a, d, fa, fd, count, where.memo)
                out[(fa, fd)] = where.attacks[key]
        return out

    def range_round(self, V: np.ndarray, first: int, shooting: tuple[bool, bool]
                    ) -> tuple[np.ndarray, np.ndarray]:
        """``V`` after a range round in which ``first`` acts first and fighter ``f`` (and
        its side-mates) shoot where ``shooting[f]``."""
        out = np.zeros((V.shape[2], 2))
        branches: dict[tuple[int, int], Batch] = {(0, 0): V}
        for f in (first, 1 - first):
            if not shooting[f]:
                continue
            missile = self.r[f].p.missile
            assert missile is not None
            damage = missile.damage + self.damage_bonus(f, missile=True)
            for extra in range(self.incoming[1 - f]):
                new: dict[tuple[int, int], Batch] = {}
                for counts, Vc in branches.items():
                    self.exchange(Vc, f, counts, 0, damage, False, extra > 0,
                                  (False, False), out, new, shot=True)
                branches = new
        return _total(branches.values()), out

    def damage_bonus(self, f: int, missile: bool = False) -> int:
        """Damage modifiers of fighter ``f``'s rows against the other: the static ones and
        the per-fight ones as the model reads them (unhurt)."""
        a, d, bonus = self.r[f], self.r[1 - f], self.dirs[f].bonus
        if missile not in bonus:
            bonus[missile] = (total(a.p.damage_parts(d.p, missile=missile))
                              + _lang(a, d, a.p.dynamic_rows("damage", weapon=not missile,
                                                             missile=missile)))
        return bonus[missile]

    def flag_grid(self, ai: int) -> tuple[np.ndarray, np.ndarray]:
        """Flag states of attacker ``ai`` and its target over the (attacker's points,
        target's points) grid."""
        fa = self.flag_maps[ai][:, None]
        fd = self.flag_maps[1 - ai][None, :]
        shape = (len(fa), fd.shape[1])
        return np.broadcast_to(fa, shape), np.broadcast_to(fd, shape)

    def own(self, f: int, attacked: tuple[bool, bool]) -> int:
        if self.whole or attacked[f]:
            return T.OWN_DEFENCE_PENALTY[self.r[f].attack_type]
        return 0

    def run(self, V: np.ndarray | _Scaled, first: int) -> tuple[np.ndarray, np.ndarray]:
        """The batch ``V`` (n0, n1, B) after a round in which ``first`` acts first:
        (V after, out (B, 2): the mass of each fighter going out)."""
        out = np.zeros((V.s.size if isinstance(V, _Scaled) else V.shape[2], 2))
        branches: dict[tuple[int, int], Batch] = {(0, 0): V}
        attacked = [False, False]
        for _ in range(self.rules.attacks_per_round):
            for f in (first, 1 - first):
                dmg = (int(self.r[f].p.weapon.damage(self.r[f].attack_type))  # type: ignore[arg-type]
                       + self.damage_bonus(f))
                for extra in range(self.incoming[1 - f]):
                    clone = extra > 0
                    if not clone:
                        attacked[f] = True
                    new: dict[tuple[int, int], Batch] = {}
                    for counts, Vc in branches.items():
                        self.exchange(Vc, f, counts, 0, dmg, False, clone,
                                      (attacked[0], attacked[1]), out, new)
                    branches = new
        return _total(branches.values()), out

    def plan(self, ai: int, own_d: int, count: int, no_parry: bool, clone: bool, damage: int,
             shot: bool) -> _Fused:
        """The grids of one attack (or shot) of ``ai`` on a defender who has made ``count``
        defences this round, made once (:meth:`_fused`)."""
        key = ("plan", ai, own_d, count, no_parry, clone, damage, shot)
        if key not in self.cache:
            self.cache[key] = self._fused(ai, own_d, count, no_parry, clone, damage, shot)
        return self.cache[key]  # type: ignore[return-value]

    def _fused(self, ai: int, own_d: int, count: int, no_parry: bool, clone: bool,
               damage: int, shot: bool) -> _Fused:
        """:meth:`plan` made: its attacks by flag states, the :class:`_Plan` of all attacks
        alike (:data:`_Alike`, in the direction's), and that plan as fighter ``ai``'s in
        this race (:class:`_Fused`, in the call's)."""
        where, key = self.dirs[ai], (own_d, count, no_parry, clone, damage, shot)
        if key not in where.alike:
            table = (self.shot_table(ai, count, clone) if shot
                     else self.attack_table(ai, own_d, count, no_parry, clone))
            where.alike[key] = (clone, damage, tuple(table.items()))
        alike = where.alike[key]
        if alike not in where.plans:
            where.plans[alike] = self._plan(ai, dict(alike[2]), clone, damage)
        plan = where.plans[alike]
        return self._cached(("fused", ai, alike), lambda: _Fused.of(plan, ai))

    def _plan(self, ai: int, table: dict[tuple[int, int], _Attack], clone: bool, damage: int
              ) -> _Plan:
        """The grids of the attacks ``table`` (by flag states), the attacker's points along
        the first axis."""
        fa_grid, fd_grid = self.flag_grid(ai)
        if clone:
            fa_grid = np.zeros_like(fa_grid)
        values: list[dict[tuple[int, int], float]] = []

        def grid_index(value: dict[tuple[int, int], float]) -> int:  # made all at once below
            values.append(value)
            return len(values) - 1

        hits = []
        for extra, attr in ((1, "hit"), (2, "hit_two")):
            by_points: dict[tuple[int, int], dict[int, float]] = {}
            outs: dict[tuple[int, int], float] = {}
            for flags, att in table.items():
                if getattr(att, attr):
                    outs[flags], points = self.hit_mix(ai, damage, getattr(att, attr),
                                                       bool(flags[0] & BERSERK))
                    if points:
                        by_points[flags] = points
            if not by_points and not outs:
                continue
            xs = sorted({x for d in by_points.values() for x in d})
            hits.append((extra, grid_index(outs), tuple(
                (x, grid_index({f: d.get(x, 0.0) for f, d in by_points.items()})) for x in xs)))
        misses = []
        for extra, attr in ((1, "miss_one"), (2, "miss_two")):
            chance = {f: getattr(att, attr) for f, att in table.items()}
            if any(v > 0 for v in chance.values()):
                misses.append((extra, grid_index(chance)))
        chance = {f: att.riposte for f, att in table.items()}
        riposte = grid_index(chance) if any(v > 0 for v in chance.values()) else None
        luts = np.zeros((len(values), 4, 4))  # by flag states of attacker, target
        for i, value in enumerate(values):
            for (fa, fd), v in value.items():
                luts[i, fa, fd] = v
        g = luts[:, fa_grid, fd_grid]
        return _Plan(tuple((extra, g[out], tuple((x, g[i]) for x, i in shifts))
                           for extra, out, shifts in hits),
                     tuple((extra, g[i]) for extra, i in misses),
                     None if riposte is None else g[riposte],
                     any(att.shield_riposte for att in table.values()))

    def exchange(self, V: Batch, ai: int, counts: tuple[int, int], depth: int,
                 damage: int, no_parry: bool, clone: bool, attacked: tuple[bool, bool],
                 out: np.ndarray, into: dict[tuple[int, int], Batch], *,
                 shot: bool = False) -> None:
        """One attack of ``ai`` (or a side-mate like it) and its riposte chain, or one shot,
        adding the resulting distributions to ``into`` by defence counts."""
        di = 1 - ai
        plan = self.plan(ai, 0 if shot else self.own(di, attacked), counts[di], no_parry,
                         clone, damage, shot)

        def add(extra: int, W: Batch) -> None:
            key = (counts[0] + extra * (di == 0), counts[1] + extra * (di == 1))
            into[key] = _plus(into[key], W) if key in into else W

        # hits: wound points moved along the defender's axis, what passes its capacity
        # out; the misses that cost as many defences with them, the others on their own
        for extra, op in plan.hits:
            add(extra, _move(V, op, di, out[:, di]))
        for extra, g in plan.misses:
            add(extra, V * g)
        # ripostes: the defender attacks back with its riposte (a thrust)
        if plan.riposte is None:
            return
        W = V * plan.riposte
        d = self.r[di]
        if clone or depth + 1 > self.depth or d.p.riposte_damage is None:
            add(1, W)  # a riposte on a side-mate, or past the modelled chain
            return
        one = (counts[0] + (di == 0), counts[1] + (di == 1))
        self.exchange(W, di, one, depth + 1, d.p.riposte_damage + self.damage_bonus(di),
                      plan.shield, False, attacked, out, into)


# --- who acts first ---------------------------------------------------------------------------


def _strike_rank_pmf(r: _Racer, rnd: int) -> tuple[tuple[int, float], ...]:
    """Strike Rank of ``p`` in round ``rnd`` (exact): Actions + flat + Index Resolution of
    the dice still carried (each die stays with chance 1/3 a round; kept faces give the
    first round's bonus again)."""
    p, rules = r.p, r.p.rules
    mod = p.strike_rank_mod + _lang(r, None, p.dynamic_rows("strike_rank"), rnd=rnd)
    stay = 1.0 if rules.carry_mode == "keep" else (1 / 3) ** (rnd - 1)
    out: dict[int, float] = {}
    n = p.dice
    for k in range(n + 1):
        pk = _binomial(n, k, stay)
        if pk == 0:
            continue
        for bonus, pb in _index_pmf(k):
            sr = p.actions + p.flat + bonus + mod
            out[sr] = out.get(sr, 0.0) + pk * pb
    return tuple(sorted(out.items()))


def _binomial(n: int, k: int, q: float) -> float:
    from math import comb

    return comb(n, k) * q ** k * (1 - q) ** (n - k)


@lru_cache(maxsize=16)
def _index_pmf(n: int) -> tuple[tuple[int, float], ...]:
    from .exact import initiative_bonus_pmf

    return tuple((k, float(v)) for k, v in initiative_bonus_pmf(n).items())


def p_first(p0: Profile, p1: Profile, t0: int, t1: int,
            sr0: Sequence[tuple[int, float]], sr1: Sequence[tuple[int, float]]) -> float:
    """Chance that ``p0`` acts before ``p1`` when their Strike Ranks have the
    distributions ``sr0``, ``sr1`` and their attack types are ``t0``, ``t1``: higher
    Strike Rank, then ``sr_tiebreak``, then the lower slot."""
    ahead, tie = _ahead_tie(sr0, sr1)
    return ahead + tie * _tie_first(p0, p1, t0, t1, p0.slot < p1.slot)


def _ahead_tie(sr0: Sequence[tuple[int, float]], sr1: Sequence[tuple[int, float]]
               ) -> tuple[float, float]:
    """(P(Strike Rank 0 > Strike Rank 1), P(equal)) of the two distributions."""
    ahead = tie = 0.0
    for x, px in sr0:
        for y, py in sr1:
            if x > y:
                ahead += px * py
            elif x == y:
                tie += px * py
    return ahead, tie


def _tie_first(p0: Profile, p1: Profile, t0: int, t1: int, lower_slot: bool) -> float:
    """Chance that ``p0`` wins a Strike Rank tie: ``sr_tiebreak`` in turn, then the lower
    slot (``lower_slot``: ``p0``'s)."""
    rules = p0.rules
    first = 1.0 if lower_slot else 0.0
    for tb in rules.sr_tiebreak:
        if tb == "random":
            first = 0.5
            break
        if tb == "action_cost":
            v0, v1 = -R.action_cost(p0.c, t0, rules), -R.action_cost(p1.c, t1, rules)
        elif tb == "dex":
            v0, v1 = p0.c.dexterity, p1.c.dexterity
        else:
            v0, v1 = p0.c.agility, p1.c.agility
        if v0 != v1:
            first = float(v0 > v1)
            break
    return first


# --- the race -----------------------------------------------------------------------------------


MATRIX_STATES = 400
"""Up to this many joint wound states a round is built once as a matrix; beyond, it is
applied to the distribution round by round."""


def _shots(p: Profile, ranged: int) -> list[bool]:
    """Whether ``p`` shoots in each of the ``ranged`` range rounds: one range action a
    round, reloads and aims first (as the reference's ``shoot``)."""
    if p.missile is None:
        return [False] * ranged
    ready, ammo, out = p.missile.reload, p.c.missiles, []
    for _ in range(ranged):
        fire = ammo > 0 and ready >= p.shot_cost
        if fire:
            ready, ammo = 0, ammo - 1
        elif ammo > 0:
            ready += 1
        out.append(fire)
    return out


DICE_ROUNDS = 16
"""Rounds after which the chance of acting first is taken as constant (the carried dice
are almost surely gone: (1/3)**15 of each), range rounds included."""

_COUNTS = {"models": 0, "races": 0}
"""Race models built and races (chains of one pair of attack types) played since the
last :func:`clear_caches`: what the caches save is counted here (the tests read it)."""


class _Model:
    """The race model of one ordered pair of fighters in one matchup's situation.

    It holds what does not depend on the slots (they order only the last Strike Rank
    tie-break): the Strike Rank distributions, the range phase by the chances of acting
    first, and each race's score by (types, chances of acting first).  A matchup and the
    same matchup with the seats swapped ask the same model for the same races: those are
    played once.  (The attacks and their plans are kept by direction, :class:`_Direction`,
    shared by every model of the same two fighters; the hits and the plans in the form a
    race applies them are made per :func:`race_scores` call: ``cache`` of :meth:`score`.)
    """

    def __init__(self, rules: Rules, c0: Combatant, c1: Combatant,
                 sits: tuple[tuple[int, int], tuple[int, int]], incoming: tuple[int, int],
                 ranged: int, fixed: tuple[tuple[str, int], ...]) -> None:
        _COUNTS["models"] += 1
        self.ps = (profile(c0, rules, 0, 0, fixed=fixed), profile(c1, rules, 1, 1, fixed=fixed))
        self.sits, self.incoming, self.ranged = sits, incoming, ranged
        self.flags = (_flags(self.ps[0]), _flags(self.ps[1]))
        sr = [_strike_ranks(rules, c, k, fixed) for c, k in zip((c0, c1), incoming, strict=True)]
        self.ahead_tie = [_ahead_tie(x, y) for x, y in zip(*sr, strict=True)]
        who = ((c0, sits[0], incoming[0]), (c1, sits[1], incoming[1]))
        self.directions = (_direction(rules, fixed, who[0], who[1]),
                           _direction(rules, fixed, who[1], who[0]))
        self.ranges: dict[tuple[float, ...], tuple[float, np.ndarray]] = {}
        self.scores: dict[tuple[int, int, tuple[float, ...]], float] = {}

    def firsts(self, slots: tuple[int, int], t0: int, t1: int) -> tuple[float, ...]:
        """Chance that 0 acts first, round by round (:func:`p_first`)."""
        first = _tie_first(self.ps[0], self.ps[1], t0, t1, slots[0] < slots[1])
        return tuple(ahead + tie * first for ahead, tie in self.ahead_tie)

    def score(self, t0: int, t1: int, firsts: tuple[float, ...],
              cache: dict[tuple[object, ...], object]) -> float:
        """The race of types ``t0``, ``t1``, played once; ``cache``: the hits and fused
        plans of the pair, shared by the races of one call (:class:`_Round`)."""
        key = (t0, t1, firsts)
        if key not in self.scores:
            _COUNTS["races"] += 1
            racers = tuple(_Racer(p, s[0], s[1], f, t, k) for p, s, f, t, k in zip(
                self.ps, self.sits, self.flags, (t0, t1), self.incoming, strict=True))
            step = _Round(racers, self.incoming, cache, self.directions)  # type: ignore[arg-type]
            self.scores[key] = self.race(step, firsts)
        return self.scores[key]

    def range_phase(self, step: _Round, firsts: Sequence[float]) -> tuple[float, np.ndarray]:
        """(fighter 1's mass out, the distribution (n0, n1, 1)) after the range rounds,
        which do not depend on the attack types: played once per chances of acting
        first."""
        key = tuple(firsts[:self.ranged])
        if key in self.ranges:
            return self.ranges[key]
        schedule = [_shots(r.p, self.ranged) for r in step.r]
        won = 0.0
        V = np.zeros((step.r[0].n_states, step.r[1].n_states, 1))
        V[0, 0, 0] = 1.0
        for rnd in range(self.ranged):
            p = firsts[min(rnd, len(firsts) - 1)]
            shooting = (schedule[0][rnd], schedule[1][rnd])
            (v0, o0), (v1, o1) = [step.range_round(V, first, shooting) for first in (0, 1)]
            won += p * float(o0[0, 1]) + (1 - p) * float(o1[0, 1])
            V = p * v0 + (1 - p) * v1
        self.ranges[key] = (won, V)
        return won, V

    def race(self, step: _Round, firsts: Sequence[float]) -> float:
        """Score of fighter 0: P(wins) + P(draw) / 2 by ``max_rounds``, after the range
        rounds; ``firsts[r]`` is the chance that 0 acts first in round ``r + 1`` (the last
        one for later rounds)."""
        rules = step.rules
        n0, n1 = step.r[0].n_states, step.r[1].n_states
        size = n0 * n1
        won = 0.0
        if self.ranged:
            won, V = self.range_phase(step, firsts)
            start = V.reshape(size)
            firsts = firsts[self.ranged:] or firsts[-1:]
        else:
            start = np.zeros(size)
            start[0] = 1.0
        rounds = rules.max_rounds - self.ranged
        if size <= MATRIX_STATES:
            basis = _Scaled(np.ones((n0, n1)))  # double: ties stay ties
            maps = [_round_map(*step.run(basis, first)) for first in (0, 1)]
            return won + _play(start, firsts, maps, rounds)
        V = start.reshape(n0, n1, 1)
        for rnd in range(rounds):
            p = firsts[min(rnd, len(firsts) - 1)]
            (v0, o0), (v1, o1) = [step.run(V, first) for first in (0, 1)]
            won += p * float(o0[0, 1]) + (1 - p) * float(o1[0, 1])
            V = p * v0 + (1 - p) * v1
            if V.sum() < SETTLED:
                break
        return won + float(V.sum()) / 2


def _round_map(moved: np.ndarray, out: np.ndarray) -> np.ndarray:
    """A round played on the basis (:meth:`_Round.run`) as one matrix: row ``s`` the
    distribution after the round from state ``s`` and, in the last column, fighter 1's
    mass going out."""
    size = out.shape[0]
    m = np.empty((size, size + 1))
    m[:, :size] = moved.reshape(size, size).T
    m[:, size] = out[:, 1]
    return m


def _play(v: np.ndarray, firsts: Sequence[float], maps: Sequence[np.ndarray], rounds: int
          ) -> float:
    """Score of fighter 0 from the distribution ``v`` over ``rounds`` rounds, ``maps[f]``
    the round in which ``f`` acts first (:func:`_round_map`), ``firsts`` the chance that
    0 acts first round by round (the last one for later rounds: from there the two maps
    are mixed once)."""
    won, last = 0.0, len(firsts) - 1
    for rnd in range(rounds):
        if rnd < last:
            p = firsts[rnd]
            after = p * (v @ maps[0]) + (1 - p) * (v @ maps[1])
        else:
            if rnd == last:
                mixed = firsts[last] * maps[0] + (1 - firsts[last]) * maps[1]
            after = v @ mixed
        won += float(after[-1])
        v = after[:-1]
        if v.sum() < SETTLED:
            break
    return won + float(v.sum()) / 2


@lru_cache(maxsize=256)
def _strike_ranks(rules: Rules, c: Combatant, incoming: int, fixed: tuple[tuple[str, int], ...]
                  ) -> tuple[tuple[tuple[int, float], ...], ...]:
    """Strike Rank distributions of one fighter in rounds 1 .. :data:`DICE_ROUNDS`."""
    r = _Racer(profile(c, rules, fixed=fixed), 0, 0, (0,), 0, incoming)
    return tuple(_strike_rank_pmf(r, rnd) for rnd in range(1, DICE_ROUNDS + 1))


@lru_cache(maxsize=1024)
def _model(rules: Rules, c0: Combatant, c1: Combatant,
           sits: tuple[tuple[int, int], tuple[int, int]], incoming: tuple[int, int],
           ranged: int, fixed: tuple[tuple[str, int], ...]) -> _Model:
    return _Model(rules, c0, c1, sits, incoming, ranged, fixed)


_ADOPTED: dict[tuple[object, ...], tuple[tuple[float, ...], ...]] = {}
"""Score tables computed elsewhere (a parent process) and handed over: :func:`adopt`."""


@lru_cache(maxsize=1024)
def race_scores(rules: Rules, c0: Combatant, c1: Combatant, slots: tuple[int, int],
                sits: tuple[tuple[int, int], tuple[int, int]], incoming: tuple[int, int],
                types0: tuple[int, ...], types1: tuple[int, ...], ranged: int = 0,
                fixed: tuple[tuple[str, int], ...] = ()) -> tuple[tuple[float, ...], ...]:
    """``scores[a][b]``: fighter 0's score (win + draw / 2) with its ``types0[a]`` against
    fighter 1's ``types1[b]``, in the race model.

    ``slots`` orders the two for the last tie-break, ``sits`` is each fighter's
    (style-skill, Dodge) situation at the start, ``incoming`` the attacks each takes a
    round (1 in a duel), ``ranged`` the range rounds the matchup plays first, ``fixed`` the
    situation names fixed in the matchup (the rules language, :mod:`.conditions`).

    Computed once per model (:class:`_Model`): the same pair with other slots reuses every
    race whose chances of acting first are the same (all of them unless the slot decides
    a tie).  A race is a zero-sum game of its two fighters, so of a call and its mirror
    (the fighters and every argument swapped) only one is computed, the one facing the
    way :func:`_facing` sorts first: the other's scores are ``1 -`` its
    transpose, which is what the mirror's own chain gives (to rounding: the chain is in
    double precision, so a tie between types is a tie on both sides).
    """
    key = (rules, c0, c1, slots, sits, incoming, types0, types1, ranged, fixed)
    if key in _ADOPTED:
        return _ADOPTED[key]
    read0, read1 = as_read(c0), as_read(c1)
    if (read0, read1) != (c0, c1):  # the same race as the fighters the model reads
        return race_scores(rules, read0, read1, slots, sits, incoming, types0, types1, ranged,
                           fixed)
    mirror = (rules, c1, c0, slots[::-1], sits[::-1], incoming[::-1], types1, types0, ranged,
              fixed)
    facing, facing_mirror = _facing(key), _facing(mirror)
    if facing_mirror < facing:  # the same races seen from the other side
        other = race_scores(*mirror)
        return tuple(tuple(1.0 - other[b][a] for b in range(len(types1)))
                     for a in range(len(types0)))
    stored = race_store.key_of(key)
    found = race_store.load(stored)
    if found is not None:
        return found
    model = _model(rules, c0, c1, sits, incoming, ranged, fixed)
    table = _table(model, slots, types0, types1, mirror_match=facing_mirror == facing)
    scores = tuple(tuple(table[t0, t1] for t1 in types1) for t0 in types0)
    race_store.save(stored, scores)
    return scores


def _table(model: _Model, slots: tuple[int, int], types0: tuple[int, ...],
           types1: tuple[int, ...], *, mirror_match: bool) -> dict[tuple[int, int], float]:
    """Every race of ``types0`` against ``types1``.  In a mirror match (the same fighter
    in the same situation on both sides) the race of ``t1`` against ``t0`` is that of
    ``t0`` against ``t1`` seen from the other side wherever the chances of acting first
    are each other's complements (the tie-breaks do not favour a slot): one minus it,
    and an even 0.5 when the two play one type."""
    cache: dict[tuple[object, ...], object] = {}
    out: dict[tuple[int, int], float] = {}
    for t0 in types0:
        for t1 in types1:
            firsts = model.firsts(slots, t0, t1)
            seen = t0 == t1 or (t1, t0) in out
            if mirror_match and seen and _complements(firsts, model.firsts(slots, t1, t0)):
                out[t0, t1] = 0.5 if t0 == t1 else 1.0 - out[t1, t0]
            else:
                out[t0, t1] = model.score(t0, t1, firsts, cache)
    return out


def _complements(firsts: Sequence[float], theirs: Sequence[float]) -> bool:
    """Whether two sides' chances of acting first, round by round, sum to one (to
    :data:`MIRROR_TOL`)."""
    return all(abs(a + b - 1.0) <= MIRROR_TOL for a, b in zip(firsts, theirs, strict=True))


MIRROR_TOL = 1e-12
"""How far from complements two chances of acting first may be (rounding of their sums)
for a mirror match's race to be read from its mirror image."""


def _facing(key: tuple[Any, ...]) -> str:
    """Which way round a race is computed: the key of its arguments but the slots (so a
    matchup and the same with the seats swapped face one way and share the model)."""
    return race_store.key_of(key[:3] + key[4:])


UNREAD = ("attack_policy", "hold_policy", "when_disarmed", "target_policy", "knockout")
"""Combatant fields the model never reads (the attack types come as arguments; holds,
disarms, targets and knock-outs are left out): best play's profiles that differ only in
them share one model and its races."""


@lru_cache(maxsize=4096)
def as_read(c: Combatant) -> Combatant:
    """``c`` with every :data:`UNREAD` field at its default: the fighter as the model sees
    it."""
    defaults = _unread_defaults()
    if all(getattr(c, name) == value for name, value in defaults.items()):
        return c
    return dataclasses.replace(c, **defaults)


@lru_cache(maxsize=1)
def _unread_defaults() -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(Combatant) if f.name in UNREAD}


ADOPTED_MAX = 4096
"""Adopted tables kept (the oldest are let go first: a worker runs one cell at a time)."""


def adopt(tables: dict[tuple[object, ...], tuple[tuple[float, ...], ...]]) -> None:
    """Take score tables computed elsewhere (keyed by :func:`race_scores`'s arguments, in
    order), so that this process does not compute them again."""
    _ADOPTED.update(tables)
    for key in list(_ADOPTED)[:max(0, len(_ADOPTED) - ADOPTED_MAX)]:
        del _ADOPTED[key]


def clear_caches() -> None:
    """Forget every model, score table and adopted table, and zero the counts."""
    _model.cache_clear()
    as_read.cache_clear()
    _direction.cache_clear()
    _strike_ranks.cache_clear()
    _wound.cache_clear()
    race_scores.cache_clear()
    race_store.forget()
    _ADOPTED.clear()
    _COUNTS.update(models=0, races=0)


def security_choice(scores: Sequence[Sequence[float]]) -> int:
    """Row whose worst score is best (first on ties: thrust before swing before blow)."""
    worst = [min(row) for row in scores]
    return int(np.argmax(np.round(worst, 9)))


def best_response(scores: Sequence[Sequence[float]], column: int) -> int:
    """Row with the best score against ``column`` (first on ties)."""
    return int(np.argmax(np.round([row[column] for row in scores], 9)))
