"""The vectorised kernel of seed 000: many fights at once, one loop over rounds.

Layout ("lanes"): fights run along axis 0 of every array; each combatant slot ``s``
(side A first, ``S <= 6``) has its own 1-D array per state variable (``st.pts[s]``, ...).
Who attacks whom differs from fight to fight, so per-fight slot indices (``a``, ``d``) are
resolved by arithmetic selection (``x0 + (x1 - x0) * a`` for a duel) rather than by
gathers, and updates are masked, full-width, in-place arithmetic: on this hardware an
element-wise operation costs ~0.1 ns per fight while a gather, scatter, ``np.where`` on a
random mask or bounded random integer costs 3-10 ns.  Rare events (ripostes, overpower
blocks, add-d20 ties, group re-targeting, deaths in groups) are handled on index subsets.
Finished fights are compacted out once a quarter of a batch has finished.

Random numbers come from the generator's raw 64-bit output viewed as 16-bit words, made
exactly uniform on ``[0, k)`` by rejection (``u < 65536 - 65536 % k``).  One word gives
both d20s of an opposed roll (k = 400), another the 2d6 and the d20 location of a wound
(k = 720), another four initiative dice (k = 1296).

Every step follows :mod:`.reference`; the static modifiers come from the same
:class:`~.profile.Profile` parts and the same ``best`` attack-type table
(:func:`~.policy.matchup_setup`), and the situation modifiers (alone, ranked, leader,
outnumbered) from :func:`~.profile.situation_parts` tabulated over who is standing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...dice import codes_from_bits
from ...outcomes import Outcomes
from ...results import Winner
from . import rules as R
from . import tables as T
from .policy import matchup_setup
from .profile import (
    BLOCK,
    BOTH_PARRY,
    DODGE,
    SHIELD_PARRY,
    WEAPON_PARRY,
    Profile,
    range_phase,
    situation_parts,
    total,
)
from .reference import CAUSES
from .rules import Combatant, Rules

__all__ = ["simulate"]

KILLED, UNCONSCIOUS, INSTANT, LIMB, KNOCKED_OUT, MAX_ROUNDS = range(len(CAUSES))
_CAUSE_OF_CODE = np.array([KNOCKED_OUT, -1, LIMB, INSTANT, UNCONSCIOUS], np.int8)
"""Cause of going out by wound value + 4 (values >= 0: points, unconscious or killed)."""
NO_WOUND = -3
"""Value of a hit the armour stopped (wound rank below F)."""
KO_CODE = -4
"""Value marking a knock-out (``ko_rules``)."""
UNAVAILABLE = -10000
"""Total of a defence that cannot be made (far below any real total)."""
PREFERRED = 5000
"""Added to the defences a policy prefers, so they win whenever one is available."""
DEFENDED = -2500
"""A chosen defence scoring above this exists (below: every option was unavailable)."""
KINDS = (WEAPON_PARRY, SHIELD_PARRY, DODGE, BLOCK, BOTH_PARRY)
COST_TOP = 47
"""Action costs enter the ordering key as ``COST_TOP - cost`` in 6 bits: costs -16..47."""
BATCH = 1 << 15
"""Fights per internal batch: keeps a batch's arrays in cache."""


# --- the dice layer --------------------------------------------------------------------------


def uniform(bits: Any, m: int, k: int) -> np.ndarray:
    """``m`` 16-bit words exactly uniform on ``[0, 65536 - 65536 % k)``, a multiple of
    ``k`` (:func:`balance.dice.codes_from_bits`): so ``u % k`` is exactly uniform on
    ``[0, k)`` and ``u // k`` on a multiple of any divisor of ``(65536 - 65536 % k) / k``
    (the next digits of a mixed-radix roll)."""
    return codes_from_bits(k, m, bits)


def split(u: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``(u % k, u // k)``; NumPy divides by a constant fast, but not its remainder."""
    q = u // k
    return u - q * np.uint16(k), q


def opposed_dice(bits: Any, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Two independent d20s per lane, 0-based (int16 views), from one 16-bit word."""
    x, q = split(uniform(bits, m, 400), 20)
    y = q - (q // 20) * np.uint16(20)
    return x.view(np.int16), y.view(np.int16)


def initiative_dice(bits: Any, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Index Resolution bonus int16, dice showing 5 or 6 int8) of ``dice`` d6 per lane
    (at most 4: one word of 6**4 outcomes gives four dice)."""
    m = len(dice)
    u = uniform(bits, m, 1296)
    bonus = np.zeros(m, np.int16)
    kept = np.zeros(m, np.int8)
    for j in range(int(dice.max(initial=0))):
        face, u = split(u, 6)  # 0..5 for faces 1..6
        live = dice > j
        high = (face >= 4) & live
        bonus += high
        bonus += (face == 5) & live
        kept += high
    return bonus, kept


def wound_dice(bits: Any, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(d20 location face 0..19, 2d6 total 2..12) per lane (int16), from one word."""
    face, q = split(uniform(bits, m, 720), 20)
    dice6, _ = split(q, 36)
    d1, d2 = split(dice6, 6)
    return face.view(np.int16), d1.view(np.int16) + d2.view(np.int16) + np.int16(2)


def rank_of(roll: np.ndarray, rounding: str = "ceil") -> np.ndarray:
    """Wound Matrix rank of each roll (Table 26) by comparisons: F 0, L 1, S 2, M 3, MM 4,
    one more per block of 4 above 17."""
    rank = np.zeros(np.shape(roll), np.int16)
    for high, _ in T.WOUND_MATRIX[:-1]:  # the rows' upper bounds, read from the table
        rank += roll > high
    above = np.maximum(roll - np.int16(T.WOUND_MATRIX_TOP), 0).astype(np.int16)
    rank += (above + np.int16(3)) // 4 if rounding == "ceil" else above // 4
    return rank


# --- static tables of one matchup -----------------------------------------------------------


@dataclass(frozen=True)
class _Static:
    """Per-slot and per-pair constants of one matchup (lists of Python ints by slot)."""

    rules: Rules
    S: int
    side: tuple[int, ...]
    base_sr: tuple[int, ...]
    dice: tuple[int, ...]
    dex: tuple[int, ...]
    agility: tuple[int, ...]
    thr_w: tuple[int, ...]
    thr_u: tuple[int, ...]
    thr_k: tuple[int, ...]
    death_head: tuple[int, ...]
    death_torso: tuple[int, ...]
    dmg: tuple[tuple[int, int, int], ...]  # by slot and type (0 where impossible)
    riposte_dmg: tuple[int, ...]
    can_riposte: tuple[int, ...]
    cost: tuple[tuple[int, int, int], ...]
    budget_cost: tuple[tuple[int, int, int], ...]
    att: tuple[tuple[int, ...], ...]  # [a][d]
    opt: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a], UNAVAILABLE if never
    opt_half: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a] when dodged behind
    block_table: tuple[tuple[int, ...], ...]  # [d][a] Armour block, never pruned
    step: tuple[tuple[int, ...], ...]  # [kind][d]
    bers: tuple[tuple[tuple[int, int], ...], ...]  # [kind][d][berserk]
    pref: tuple[tuple[int, ...], ...]  # [kind][d]
    undefending: tuple[int, ...]  # defence_policy "none"
    best: tuple[tuple[tuple[int, ...], ...], ...]  # [a][t][k]
    policy_best: tuple[int, ...]
    armour: tuple[tuple[int, ...], ...]  # [d][location]
    has_armour: bool
    aim: tuple[int, ...]
    knight_double: tuple[int, ...]
    shield_opps: tuple[int, ...]
    shieldman_riposte: tuple[int, ...]
    riposte_policy: tuple[int, ...]  # 0 riposte, 1 disarm, 2 never
    op_loc: tuple[tuple[int, ...], ...]  # [a][blocks]: forced location or -1
    op_shift: tuple[tuple[int, ...], ...]
    op_disarm: tuple[tuple[int, ...], ...]
    berserk_start: tuple[int, ...]
    berserk_on_wound: tuple[int, ...]
    assassin: tuple[int, ...]
    footpad: tuple[int, ...]
    knockout: tuple[int, ...]
    surprised: tuple[int, ...]
    target_policy: tuple[int, ...]  # 0 random, 1 weakest, 2 strongest
    skill: tuple[int, ...]
    sit_skill: tuple[tuple[int, ...], ...]  # [alive mask][slot]
    sit_dodge: tuple[tuple[int, ...], ...]
    kinds: tuple[int, ...]  # defence kinds anybody may ever use
    points: tuple[int, ...]  # wound points by rank 0..MAX_RANK
    hit_edges: tuple[int, ...]  # d20 face (0-based) at which each location after head starts
    # feature switches (static): skip whole mechanisms nobody in the matchup can trigger
    any_berserk: bool
    any_disarm: bool
    any_behind: bool
    any_shield_limit: bool
    any_knight: bool
    any_own_penalty: bool
    any_riposte: bool
    any_aim: bool
    any_assassin_surprise: bool
    groups: bool
    # the range phase (000.10 DEFAULT)
    ranged: int  # range rounds played (0: none)
    matt: tuple[tuple[int, ...], ...]  # [a][d] static total of a shot
    mdef: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a] against a shot
    mkinds: tuple[int, ...]  # defence kinds anybody may use against shots
    missile_dmg: tuple[int, ...]
    shot_cost: tuple[int, ...]  # range actions between shots (reloads + aims)
    reload: tuple[int, ...]
    ammo: tuple[int, ...]


MAX_RANK = 15


def _prune_defences(ps: Sequence[Profile], opt: Any, pref: Any, best: Any, rules: Rules
                    ) -> Any:
    """Mark as unavailable, in a duel, the defences a fighter's policy can never choose.

    Valid only where availability cannot change during the fight (no disarm, no crippled
    limbs, no shield limits -- a duel has one foe); then the kinds' totals differ only by
    static parts and by the own swing / blow penalty (on parries and dodges, not blocks),
    which is tried at every value it can take.  A fighter that can go berserk keeps all
    its kinds; if anyone may still dodge, its foe keeps dodge and block (it may be got
    behind, which rules out parries); so does everyone facing a Shieldman's shield
    riposte, which rules out parries too."""
    rounds = [list(list(row) for row in table) for table in opt]
    whole = rules.attack_penalty_scope == "whole_round"

    def dominated(d: int, a: int, k: int, behind_safe: bool) -> bool:
        p = ps[d]
        if p.can_berserk and p.c.berserk_trigger != "never":
            return False
        if behind_safe and k in (DODGE, BLOCK):
            return False
        steps = {p.step(j) for j in KINDS}
        if len(steps) > 1:
            return False
        types = {best[d][a][i] for i in range(4)}
        owns = {T.OWN_DEFENCE_PENALTY[t] for t in types} | (set() if whole else {0})
        sk, dg = _start_situation(ps, d)

        def score(j: int, own: int) -> int:
            sit = dg if j == DODGE else sk
            penalty = own if j != BLOCK or rules.swing_penalty_armour_block else 0
            return (rounds[j][d][a] + sit + penalty + total(p.berserker_parts(False, j))
                    + pref[j][d])

        for j in KINDS:
            if j == k or rounds[j][d][a] <= UNAVAILABLE:
                continue
            if all(score(j, o) > score(k, o) or (score(j, o) == score(k, o) and j < k)
                   for o in owns):
                return True
        return False

    # a Shieldman's shield riposte also rules out parries: its foe must keep dodge and block
    shield_riposte = rules.shield_riposte and any(p.shieldman_shield for p in ps)
    for behind_safe in ((True,) if shield_riposte else (False, True)):
        trial = [list(list(row) for row in table) for table in rounds]
        for d in range(len(ps)):
            a = 1 - d
            for k in KINDS:
                if trial[k][d][a] > UNAVAILABLE and dominated(d, a, k, behind_safe):
                    trial[k][d][a] = UNAVAILABLE
        someone_dodges = any(trial[DODGE][d][1 - d] > UNAVAILABLE for d in range(len(ps)))
        if not someone_dodges or behind_safe:
            rounds = trial
            break
    return tuple(tuple(tuple(row) for row in table) for table in rounds)


def _start_situation(ps: Sequence[Profile], i: int) -> tuple[int, int]:
    skill, dodge = situation_parts(ps, [True] * len(ps), i)
    return total(skill), total(dodge)



@lru_cache(maxsize=128)
def _static(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
            ) -> _Static:
    ps, _, best = matchup_setup(rules, side_a, side_b)
    S = len(ps)
    rng_slots = range(S)

    def opp(kind: int, d: Profile, a: Profile, half: bool) -> int:
        if d.side == a.side:
            return UNAVAILABLE
        if kind == WEAPON_PARRY:
            return total(d.parry_parts(a, kind)) if d.can_weapon_parry else UNAVAILABLE
        if kind == SHIELD_PARRY:
            return total(d.parry_parts(a, kind)) if d.has_shield else UNAVAILABLE
        if kind == BOTH_PARRY:
            ok = d.has_shield and d.can_weapon_parry and rules.parry_bonus_mode == "sum"
            return total(d.parry_parts(a, kind)) if ok else UNAVAILABLE
        if kind == DODGE:
            return total(d.dodge_parts(a, half))
        return total(d.block_parts(a, half)) if d.can_block else UNAVAILABLE

    opt = tuple(tuple(tuple(opp(k, d, a, False) for a in ps) for d in ps) for k in KINDS)

    def missile_opp(kind: int, d: Profile, a: Profile) -> int:
        if d.side == a.side or a.missile is None:
            return UNAVAILABLE
        if kind == WEAPON_PARRY and rules.missile_weapon_parry and d.can_weapon_parry:
            return total(d.parry_parts(a, kind))
        if kind == SHIELD_PARRY and d.has_shield:
            return total(d.parry_parts(a, kind))
        return total(d.dodge_parts(a)) if kind == DODGE else UNAVAILABLE

    ranged = range_phase(ps)
    mdef = tuple(tuple(tuple(missile_opp(k, d, a) if ranged else UNAVAILABLE for a in ps)
                       for d in ps) for k in KINDS)
    mkinds = tuple(k for k in KINDS if any(mdef[k][d][a] > UNAVAILABLE
                                           for d in rng_slots for a in rng_slots))
    opt_half = tuple(tuple(tuple(opp(k, d, a, True) if k in (DODGE, BLOCK) else UNAVAILABLE
                                 for a in ps) for d in ps) for k in KINDS)
    preferred = {"parry": (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY), "dodge": (DODGE,),
                 "armour_block": (BLOCK,)}
    pref = tuple(tuple(PREFERRED if k in preferred.get(p.defence_preference, ()) else 0
                       for p in ps) for k in KINDS)
    groups = len(side_a) > 1 or len(side_b) > 1
    disarm_menu = "disarm" in rules.overpower_menu and rules.disarm_effect != "none"
    any_disarm = rules.disarm_effect != "none" and (
        any(p.c.riposte_policy == "disarm" for p in ps)
        or (disarm_menu and any(p.c.overpower_policy == "disarm" for p in ps)))
    block_table = opt[BLOCK]
    if not groups and not any_disarm and rules.limb_destroyed != "crippled":
        opt = _prune_defences(ps, opt, pref, best, rules)
    kinds = tuple(k for k in KINDS
                  if any(opt[k][d][a] > UNAVAILABLE for d in rng_slots for a in rng_slots))
    masks = 1 << S
    sit_skill, sit_dodge = [], []
    for mask in range(masks):
        alive = [bool(mask >> s & 1) for s in rng_slots]
        row_s, row_d = [], []
        for s in rng_slots:
            sk, dg = situation_parts(ps, alive, s)
            row_s.append(total(sk))
            row_d.append(total(dg))
        sit_skill.append(tuple(row_s))
        sit_dodge.append(tuple(row_d))

    def spend(p: Profile) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        loc, shift, dis = [], [], []
        for blocks in range(8):
            location, s, d = R.spend_overpower(blocks, p.c.overpower_policy, rules)
            loc.append(-1 if location is None else location)
            shift.append(s)
            dis.append(int(d))
        return tuple(loc), tuple(shift), tuple(dis)

    spends = [spend(p) for p in ps]
    edges, top = [], 0
    for n in list(rules.hit_table.values())[:-1]:
        top += n
        edges.append(top)
    types_used = {best[a][t][k] for a in rng_slots for t in rng_slots for k in range(4)
                  if ps[a].side != ps[t].side}
    return _Static(
        rules=rules, S=S, side=tuple(p.side for p in ps),
        base_sr=tuple(p.actions + p.flat for p in ps), dice=tuple(p.dice for p in ps),
        dex=tuple(p.c.dexterity for p in ps), agility=tuple(p.c.agility for p in ps),
        thr_w=tuple(p.thresholds[0] for p in ps), thr_u=tuple(p.thresholds[1] for p in ps),
        thr_k=tuple(p.thresholds[2] for p in ps), death_head=tuple(p.death[0] for p in ps),
        death_torso=tuple(p.death[1] for p in ps),
        dmg=tuple(tuple(int(p.weapon.damage(t) or 0) for t in range(3)) for p in ps),  # type: ignore[misc]
        riposte_dmg=tuple(int(p.riposte_damage or 0) for p in ps),
        can_riposte=tuple(int(p.riposte_damage is not None) for p in ps),
        cost=tuple(tuple(R.action_cost(p.c, t, rules) for t in range(3)) for p in ps),  # type: ignore[misc]
        budget_cost=tuple(tuple(R.budget_cost(p.c, t, rules) for t in range(3))  # type: ignore[misc]
                          for p in ps),
        att=tuple(tuple(a.attack_total(d) if a.side != d.side else 0 for d in ps) for a in ps),
        opt=opt, opt_half=opt_half, block_table=block_table,
        step=tuple(tuple(p.step(k) for p in ps) for k in KINDS),
        bers=tuple(tuple((total(p.berserker_parts(False, k)), total(p.berserker_parts(True, k)))
                         for p in ps) for k in KINDS),
        pref=pref, undefending=tuple(int(p.c.defence_policy == "none") for p in ps),
        best=best, policy_best=tuple(int(p.c.attack_policy == "best") for p in ps),
        armour=tuple(tuple(p.c.armour[T.ARMOUR_GROUPS[T.LOCATION_GROUP[loc]]]
                           for loc in range(len(T.LOCATIONS))) for p in ps),
        has_armour=any(v for p in ps for v in p.c.armour.values()),
        aim=tuple(p.aim_shift for p in ps),
        knight_double=tuple(int(p.knight_double) for p in ps),
        shield_opps=tuple(p.shield_opponents for p in ps),
        shieldman_riposte=tuple(int(p.shieldman_shield and rules.shield_riposte) for p in ps),
        riposte_policy=tuple(R.RIPOSTE_POLICIES.index(p.c.riposte_policy) for p in ps),
        op_loc=tuple(s[0] for s in spends), op_shift=tuple(s[1] for s in spends),
        op_disarm=tuple(s[2] for s in spends),
        berserk_start=tuple(int(p.can_berserk and p.c.berserk_trigger == "start") for p in ps),
        berserk_on_wound=tuple(int(p.can_berserk and p.c.berserk_trigger == "on_first_wound")
                               for p in ps),
        assassin=tuple(int(p.style.has("assassin")) for p in ps),
        footpad=tuple(int(p.style.has("footpad")) for p in ps),
        knockout=tuple(int(p.c.knockout and rules.ko_rules) for p in ps),
        surprised=tuple(int(p.c.surprised) for p in ps),
        target_policy=tuple(R.TARGET_POLICIES.index(p.c.target_policy) for p in ps),
        skill=tuple(p.c.skill for p in ps),
        sit_skill=tuple(sit_skill), sit_dodge=tuple(sit_dodge), kinds=kinds,
        points=tuple(R.rank_points(r, rules.rank_ratio, rules.f_points)
                     for r in range(MAX_RANK + 1)),
        hit_edges=tuple(edges),
        any_berserk=any(p.can_berserk and p.c.berserk_trigger != "never" for p in ps),
        any_disarm=any_disarm,
        any_behind=DODGE in kinds,
        any_shield_limit=groups and any(p.has_shield and p.shield_opponents < 99 for p in ps),
        any_knight=any(p.knight_double for p in ps),
        any_own_penalty=bool(types_used - {0}),
        any_riposte=any(p.c.riposte_policy != "never" for p in ps),
        any_aim=any(p.aim_shift for p in ps),
        any_assassin_surprise=any(p.style.has("assassin") for p in ps)
        and any(p.c.surprised for p in ps),
        groups=groups,
        ranged=ranged,
        matt=tuple(tuple(total(a.missile_parts(d)) if a.missile and a.side != d.side else 0
                         for d in ps) for a in ps),
        mdef=mdef, mkinds=mkinds,
        missile_dmg=tuple(p.missile.damage if p.missile else 0 for p in ps),
        shot_cost=tuple(p.shot_cost for p in ps),
        reload=tuple(p.missile.reload if p.missile else 0 for p in ps),
        ammo=tuple(p.c.missiles if p.missile else 0 for p in ps),
    )


# --- lanes: per-slot state arrays of a batch of fights ---------------------------------------

_SLOT_VARS = ("pts", "alive", "sk", "dg", "ndef", "own", "typ", "dmg", "dis", "bers", "beh",
              "behr", "sfoe", "tgt", "crip", "dice", "keep", "sr", "rem", "ammo", "rdy")
_COMBAT_VARS = ("pts", "alive", "sk", "dg", "ndef", "own", "dis", "bers", "beh", "behr",
                "sfoe", "crip")
"""What an attack reads or writes: the variables a riposte's sub-batch carries."""


class _Lanes:
    """State of ``m`` fights: per-slot lists of arrays and per-fight arrays.

    A variable no fighter of the matchup can change is ``None`` (e.g. ``bers`` with no
    berserker), so the kernel skips it and its mechanism entirely."""

    pts: Any  # int32: wound points
    alive: Any  # int8: still in the fight (groups)
    sk: Any  # int16: situation + wounded modifier on style-skill rolls
    dg: Any  # int16: the same on Dodge
    ndef: Any  # int16: defensive moves made this round
    own: Any  # int16: swing / blow penalty on own parries and dodges now
    typ: Any  # int16: attack type this round (-1 recovering a weapon)
    dmg: Any  # int16: damage modifier of that type
    dis: Any  # int8: disarmed
    bers: Any  # int8: berserk
    beh: Any  # int16: slot of the foe this fighter is behind (-1 none)
    behr: Any  # int16: round it got behind
    sfoe: Any  # int16: bitmask of foes parried with the shield this round
    tgt: Any  # int16: target slot (groups)
    crip: Any  # int8: destroyed limbs, bits weapon arm 1, off arm 2, leg 4
    dice: Any  # int8: initiative dice carried over
    keep: Any  # int16: kept initiative bonus (carry_mode="keep")
    sr: Any  # int16: Strike Rank this round
    rem: Any  # int16: Strike Rank left to spend (action_economy="budget")
    ammo: Any  # int16: shots left (range phase)
    rdy: Any  # int16: range actions done towards the next shot

    def __init__(self) -> None:
        self.m = 0
        for v in _SLOT_VARS:
            setattr(self, v, None)
        self.fid: np.ndarray = np.zeros(0, np.int32)  # which fight of the run
        self.done: np.ndarray = np.zeros(0, bool)
        self.rnd: np.ndarray = np.zeros(0, np.int16)  # the round each fight is in
        self.sup: np.ndarray | None = None  # surprise in force (ambush, first round)

    def _fight_vars(self) -> list[str]:
        return ["fid", "done", "rnd"] + (["sup"] if self.sup is not None else [])

    def take(self, idx: np.ndarray) -> _Lanes:
        out = _Lanes()
        out.m = len(idx)
        for v in _COMBAT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(out, v, [x.take(idx) for x in xs])
        for v in self._fight_vars():
            setattr(out, v, getattr(self, v).take(idx))
        return out

    def put(self, idx: np.ndarray, sub: _Lanes) -> None:
        for v in _COMBAT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                for x, y in zip(xs, getattr(sub, v), strict=True):
                    x[idx] = y
        self.done[idx] = sub.done

    def compress(self, keep: np.ndarray) -> None:
        idx = np.flatnonzero(keep)
        for v in _SLOT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(self, v, [x.take(idx) for x in xs])
        for v in self._fight_vars():
            setattr(self, v, getattr(self, v).take(idx))
        self.m = len(idx)

    def extend(self, new: _Lanes) -> None:
        """Append the fights of ``new`` (same matchup) after these."""
        for v in _SLOT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(self, v, [np.concatenate((x, y)) for x, y in zip(xs, getattr(new, v),
                                                                          strict=True)])
        for v in ("fid", "done", "rnd"):
            setattr(self, v, np.concatenate((getattr(self, v), getattr(new, v))))
        self.m += new.m


class _Who:
    """Per-fight slot indices with their one-hot masks (``hot[s]``: lanes where it is s)."""

    __slots__ = ("hot", "idx")

    def __init__(self, idx: np.ndarray, S: int) -> None:
        self.idx = idx.astype(np.int16, copy=False)
        if S == 2:
            b = self.idx.astype(bool)
            self.hot = [~b, b]
        else:
            self.hot = [self.idx == s for s in range(S)]

    def take(self, sub: np.ndarray) -> _Who:
        w = _Who.__new__(_Who)
        w.idx = self.idx.take(sub)
        w.hot = [h.take(sub) for h in self.hot]
        return w


class _Kernel:
    def __init__(self, st: _Static, rng: np.random.Generator) -> None:
        self.s = st
        self.rules = st.rules
        self.S = st.S
        self.bits = rng.bit_generator
        self.after_attack = st.rules.attack_penalty_scope == "after_attack"
        rules, S = st.rules, st.S
        # In a duel with no disarm and no holding, each fighter's attack type is the same
        # every round: its damage, action cost and own-defence penalty are constants.
        self.static_types = (not st.groups and not st.any_disarm
                             and rules.hold_policy == "never")
        types = [st.best[i][1 - i][0] if not st.groups else 0 for i in range(S)]
        self.type_const = tuple(types)
        self.dmg_const = tuple(st.dmg[i][types[i]] for i in range(S))
        self.own_const = tuple(T.OWN_DEFENCE_PENALTY[t] for t in types) \
            if self.static_types and not self.after_attack else None
        # one defence kind, always available, chosen by everyone: no choice to make
        dynamic_availability = (st.any_disarm or st.any_behind or st.any_shield_limit
                                or st.any_berserk or rules.limb_destroyed == "crippled")
        self.wound_table, self.n_dmg, self.dmg_low = _cached_wound_table(st)
        self.wound_rows = tuple(tuple((i * S + j) * self.n_dmg - self.dmg_low for j in range(S))
                                for i in range(S))
        self.single_kind = st.kinds[0] if (
            len(st.kinds) == 1 and not dynamic_availability and not any(st.undefending)
            and not any(st.surprised)
            and all(st.opt[st.kinds[0]][d][a] > UNAVAILABLE
                    for d in range(S) for a in range(S) if st.side[d] != st.side[a])) else None

    # --- random numbers ------------------------------------------------------------------
    def uniform(self, m: int, k: int) -> np.ndarray:
        return uniform(self.bits, m, k)

    # --- selection helpers ---------------------------------------------------------------
    def sel(self, xs: list[np.ndarray], who: _Who) -> np.ndarray:
        if self.S == 2:
            return xs[0] + (xs[1] - xs[0]) * who.idx
        out = xs[0] * who.hot[0]
        for s in range(1, self.S):
            out += xs[s] * who.hot[s]
        return out

    def cst(self, tab: Sequence[int], who: _Who) -> Any:
        """``tab[who]`` per lane (a scalar when every slot has the same value)."""
        first = tab[0]
        if all(v == first for v in tab):
            return np.int16(first)
        if self.S == 2:
            return np.int16(tab[0]) + np.int16(tab[1] - tab[0]) * who.idx
        return np.asarray(tab, np.int16).take(who.idx)

    def pair(self, tab: Sequence[Sequence[int]], x: _Who, y: _Who) -> Any:
        """``tab[x][y]`` per lane (x and y on opposite sides)."""
        if self.S == 2:
            if tab[0][1] == tab[1][0]:
                return np.int16(tab[0][1])
            return np.int16(tab[0][1]) + np.int16(tab[1][0] - tab[0][1]) * x.idx
        flat = np.asarray(tab, np.int16).ravel()
        return flat.take(x.idx * self.S + y.idx)

    def setv(self, xs: list[np.ndarray], who: _Who, val: Any, mask: np.ndarray) -> None:
        for s in range(self.S):
            m = mask & who.hot[s]
            xs[s] += ((val - xs[s]) * m).astype(xs[s].dtype, copy=False)

    def addv(self, xs: list[np.ndarray], who: _Who, inc: Any, mask: np.ndarray) -> None:
        """``xs[who] += inc`` in lanes ``mask`` (``inc`` 1 adds the mask itself)."""
        for s in range(self.S):
            m = mask & who.hot[s]
            if isinstance(inc, int) and inc == 1:
                xs[s] += m
            else:
                xs[s] += (inc * m).astype(xs[s].dtype, copy=False)

    # --- the run -------------------------------------------------------------------------
    def run(self, n: int) -> Outcomes:
        """``n`` fights streamed through a batch of at most :data:`BATCH` lanes: a fight
        that ends makes room for a new one, so the few long fights at the end of the run
        hold up one tail of rounds, not one per batch."""
        rules = self.rules
        self.winner = np.zeros(n, np.int8)
        self.rounds = np.zeros(n, np.int16)
        self.cause = np.full(n, MAX_ROUNDS, np.int8)
        started = min(n, BATCH)
        L = self.start_lanes(np.arange(started, dtype=np.int32))
        first_round_surprise = rules.ambush_rules == "first_round" and any(self.s.surprised)
        while L.m:
            L.sup = (L.rnd == 1) if first_round_surprise else None
            self.play_round(L)
            L.sup = None
            capped = ~L.done & (L.rnd >= rules.max_rounds)
            if capped.any():
                live = L.fid[capped]
                self.winner[live] = Winner.DRAW
                self.rounds[live] = rules.max_rounds
                self.cause[live] = MAX_ROUNDS
                L.done |= capped
            L.rnd += 1
            if int(np.count_nonzero(L.done)) * 4 >= L.m:
                L.compress(~L.done)
                if started < n:
                    more = min(BATCH - L.m, n - started)
                    L.extend(self.start_lanes(np.arange(started, started + more,
                                                        dtype=np.int32)))
                    started += more
        return Outcomes(self.winner, self.rounds, self.cause, CAUSES)

    def start_lanes(self, fid: np.ndarray) -> _Lanes:
        """Fresh fights, through the ambush if anyone is surprised (5.21 default)."""
        L = self.new_lanes(fid)
        if self.rules.ambush_rules == "free_attack" and any(self.s.surprised):
            L.sup = np.ones(L.m, bool)
            self.ambush(L)
            L.sup = None
        for _ in range(self.s.ranged):
            self.range_round(L)
            L.rnd += 1
        return L

    def new_lanes(self, fid: np.ndarray) -> _Lanes:
        s, S, m = self.s, self.S, len(fid)
        L = _Lanes()
        L.m = m
        L.fid = fid
        L.done = np.zeros(m, bool)
        L.rnd = np.ones(m, np.int16)
        full = (1 << S) - 1
        L.pts = [np.zeros(m, np.int32) for _ in range(S)]
        L.alive = [np.ones(m, np.int8) for _ in range(S)]
        L.sk = [np.full(m, s.sit_skill[full][i], np.int16) for i in range(S)]
        if DODGE in s.kinds or DODGE in s.mkinds:
            L.dg = [np.full(m, s.sit_dodge[full][i], np.int16) for i in range(S)]
        L.ndef = [np.zeros(m, np.int16) for _ in range(S)]
        if self.own_const is None:
            L.own = [np.zeros(m, np.int16) for _ in range(S)]
        L.typ = [np.full(m, self.type_const[i] if self.static_types else 0, np.int16)
                 for i in range(S)]
        L.dmg = [np.zeros(m, np.int16) for _ in range(S)]
        L.sr = [np.zeros(m, np.int16) for _ in range(S)]
        L.dice = [np.full(m, s.dice[i], np.int8) for i in range(S)]
        if self.rules.carry_mode == "keep":
            L.keep = [np.zeros(m, np.int16) for _ in range(S)]
        if s.any_disarm:
            L.dis = [np.zeros(m, np.int8) for _ in range(S)]
        if s.any_berserk:
            L.bers = [np.full(m, s.berserk_start[i], np.int8) for i in range(S)]
        if s.any_behind:
            L.beh = [np.full(m, -1, np.int16) for _ in range(S)]
            L.behr = [np.zeros(m, np.int16) for _ in range(S)]
        if s.any_shield_limit:
            L.sfoe = [np.zeros(m, np.int16) for _ in range(S)]
        if s.groups:
            L.tgt = [np.full(m, -1, np.int16) for _ in range(S)]
        if self.rules.limb_destroyed == "crippled":
            L.crip = [np.zeros(m, np.int8) for _ in range(S)]
        if self.rules.action_economy == "budget":
            L.rem = [np.zeros(m, np.int16) for _ in range(S)]
        if s.ranged:
            L.ammo = [np.full(m, s.ammo[i], np.int16) for i in range(S)]
            L.rdy = [np.full(m, s.reload[i], np.int16) for i in range(S)]
        return L

    # --- one round -----------------------------------------------------------------------
    def play_round(self, L: _Lanes) -> None:
        rules, s, S = self.rules, self.s, self.S
        self.initiative(L)
        if s.groups:
            self.round_targets(L)
        self.commit_types(L)
        if rules.action_economy == "budget":
            self.budget_round(L)
        elif S == 2 and self.static_types:
            first = _Who(self.duel_first(L), S)
            second = _Who(1 - first.idx, S)
            for _ in range(rules.attacks_per_round):
                self.act(L, first)
                self.act(L, second)
        else:
            order = self.sr_order(L)
            if rules.hold_policy == "react":
                self.hold(L, order)
            for _ in range(rules.attacks_per_round):
                for who in order:
                    self.act(L, who)
        self.end_round(L)

    def sr_order(self, L: _Lanes) -> list[_Who]:
        """Who acts k-th in each fight, k = 0 .. S-1, by Strike Rank and tie-breaks."""
        S = self.S
        ranks = self.ranks(L, L.sr)
        order = []
        for k in range(S):
            actor = np.zeros(L.m, np.int16)
            for i in range(1, S):
                actor += np.int16(i) * (ranks[i] == k)
            order.append(_Who(actor, S))
        return order

    def initiative(self, L: _Lanes) -> None:
        """Index Resolution of every fighter's dice: 5 -> +1, 6 -> +2; 5s and 6s carry."""
        s = self.s
        keep = self.rules.carry_mode == "keep"
        for i in range(self.S):
            dice = L.dice[i]
            base = np.int16(s.base_sr[i])
            # carry_mode="keep": a fight's dice are rolled once, in its first round, and
            # their bonus is kept (dice 0 afterwards)
            fixed = L.keep[i] + base if keep else base
            if not dice.any():
                L.sr[i][:] = fixed
                continue
            bonus, kept = initiative_dice(self.bits, dice)
            np.add(bonus, fixed, out=L.sr[i])
            if keep:
                L.keep[i] += bonus
                L.dice[i][:] = 0
            else:
                L.dice[i] = kept

    def ranks(self, L: _Lanes, primary: list[np.ndarray], eligible: list[np.ndarray] | None
              = None) -> list[np.ndarray]:
        """Acting rank of each slot (0 acts first): Strike Rank, the tie-breaks, slot."""
        s, S = self.s, self.S
        keys = []
        rand = None
        for i in range(S):
            key = primary[i].astype(np.int64) + 64
            for tb in self.rules.sr_tiebreak:
                if tb == "action_cost":  # a cost in -16..47 keeps to its 6 bits
                    cost = np.int64(COST_TOP) - self.cost_of(L, i)
                    key = (key << 6) | cost
                elif tb == "dex":
                    key = (key << 7) | s.dex[i]
                elif tb == "agility":
                    key = (key << 7) | s.agility[i]
                else:
                    if rand is None:
                        rand = [(self.bits.random_raw(L.m) >> np.uint64(32)).astype(np.int64)
                                for _ in range(S)]
                    key = (key << 32) | rand[i]
            key = (key << 3) | (7 - i)
            dead = L.alive[i] == 0
            if eligible is not None:
                dead = dead | ~eligible[i]
            key[dead] = -1 - i
            keys.append(key)
        if S == 2:
            r1 = (keys[0] > keys[1]).astype(np.int8)
            return [1 - r1, r1]
        out = []
        for i in range(S):
            r = np.zeros(L.m, np.int8)
            for j in range(S):
                if j != i:
                    r += keys[j] > keys[i]
            out.append(r)
        return out

    def duel_first(self, L: _Lanes) -> np.ndarray:
        """Slot (0 or 1) that acts first in each duel: higher Strike Rank, then the
        tie-breaks, all constants here but the random one (000.2.4)."""
        s = self.s
        sr0, sr1 = L.sr
        first = sr1 > sr0
        tie = sr1 == sr0
        for tb in self.rules.sr_tiebreak:
            if tb == "random":
                coin = np.unpackbits(self.bits.random_raw((L.m + 63) // 64).view(np.uint8),
                                     count=L.m).view(bool)
                first |= tie & coin
                break
            if tb == "action_cost":
                v0 = -s.cost[0][self.type_const[0]]
                v1 = -s.cost[1][self.type_const[1]]
            elif tb == "dex":
                v0, v1 = s.dex
            else:
                v0, v1 = s.agility
            if v1 > v0:
                first |= tie
            if v1 != v0:
                break
        return first.view(np.int8)

    def cost_of(self, L: _Lanes, i: int, budget: bool = False) -> np.ndarray:
        """Action cost of slot ``i``'s attack per lane (``budget``: the Actions it spends)."""
        c = self.s.budget_cost[i] if budget else self.s.cost[i]
        t = np.maximum(L.typ[i], 0)
        return np.int64(c[0]) + (t == 1) * np.int64(c[1] - c[0]) + (t == 2) * np.int64(c[2] - c[0])

    def round_targets(self, L: _Lanes) -> None:
        s = self.s
        for i in range(self.S):
            need = L.alive[i] != 0
            if s.target_policy[i] == 0:
                t = L.tgt[i]
                cur_alive = np.zeros(L.m, bool)
                for j in range(self.S):
                    if s.side[j] != s.side[i]:
                        cur_alive |= (t == j) & (L.alive[j] != 0)
                need &= ~cur_alive
            need &= ~L.done
            if need.any():
                idx = np.flatnonzero(need)
                L.tgt[i][idx] = self.pick(L, i, idx)

    def pick(self, L: _Lanes, i: int, idx: np.ndarray, among: Sequence[int] | None = None
             ) -> np.ndarray:
        """A living foe of slot ``i`` in fights ``idx`` by its target policy (-1: none)."""
        s = self.s
        foes = [j for j in range(self.S) if s.side[j] != s.side[i]
                and (among is None or j in among)]
        cand = [L.alive[j].take(idx) != 0 for j in foes]
        m = len(idx)
        out = np.full(m, -1, np.int16)
        policy = s.target_policy[i]
        if policy == 0:
            count = sum(c.astype(np.int16) for c in cand)
            r, _ = split(self.uniform(m, 6), 6)
            r = r.astype(np.int16) % np.maximum(count, 1)  # 6 is a multiple of 1, 2, 3
            cum = np.zeros(m, np.int16)
            for j, c in zip(foes, cand, strict=True):
                hit = c & (cum == r) & (out < 0)
                out[hit] = j
                cum += c
            return out
        best = np.full(m, 1 << 30 if policy == 1 else -(1 << 30), np.int64)
        for j, c in zip(foes, cand, strict=True):
            key = (np.int64(s.thr_u[j]) - L.pts[j].take(idx)) * 256 + s.skill[j]
            better = c & ((key < best) if policy == 1 else (key > best))
            best[better] = key[better]
            out[better] = j
        return out

    def commit_types(self, L: _Lanes) -> None:
        """Attack type per fighter for the round (000.4): its policy against its target."""
        s, S = self.s, self.S
        if self.static_types:
            return
        whole = self.rules.attack_penalty_scope == "whole_round"
        for i in range(S):
            typ: np.ndarray
            if s.groups:
                t = np.maximum(L.tgt[i], 0)
                tab = np.asarray([s.best[i][j][0] for j in range(S)], np.int16)
                typ = tab.take(t)
            else:
                typ = np.full(L.m, s.best[i][1 - i][0], np.int16)
            if L.dis is not None:
                typ[L.dis[i] != 0] = -1
            L.typ[i] = typ
            self.type_effects(L, i, whole)

    def type_effects(self, L: _Lanes, i: int, whole: bool) -> None:
        s = self.s
        typ = L.typ[i]
        d = s.dmg[i]
        L.dmg[i] = (np.int16(d[0]) + (typ == 1) * np.int16(d[1] - d[0])
                    + (typ == 2) * np.int16(d[2] - d[0]))
        if whole and s.any_own_penalty:
            L.own[i] = (typ == 1) * np.int16(-5) + (typ == 2) * np.int16(-10)
        elif not whole:
            L.own[i][:] = 0

    def hold(self, L: _Lanes, order: list[_Who]) -> None:
        """``hold_policy="react"``: all but the last hold; knowing the last one's declared
        type, a holder whose target it is re-picks its type (5.2)."""
        s, S = self.s, self.S
        # the last living actor of each fight
        last = np.full(L.m, -1, np.int16)
        for who in order:
            alive = self.sel(L.alive, who) != 0
            last[alive] = who.idx[alive]
        lw = _Who(np.maximum(last, 0), S)
        ltype = self.sel(L.typ, lw)
        whole = self.rules.attack_penalty_scope == "whole_round"
        for i in range(S):
            if not s.policy_best[i]:
                continue
            tgt = L.tgt[i] if s.groups else np.full(L.m, 1 - i, np.int16)
            mask = (last >= 0) & (last != i) & (tgt == last) & (ltype >= 0) & (L.typ[i] >= 0)
            if not mask.any():
                continue
            flat = np.asarray(s.best[i], np.int16).ravel()  # [t][k]
            new = flat.take(np.maximum(last, 0) * 4 + np.maximum(ltype, 0) + 1)
            L.typ[i] = np.where(mask, new, L.typ[i]).astype(np.int16)
            self.type_effects(L, i, whole)

    def budget_round(self, L: _Lanes) -> None:
        S = self.S
        for i in range(S):
            L.rem[i][:] = L.sr[i]
        while True:
            costs = [self.cost_of(L, i, budget=True).astype(np.int16) for i in range(S)]
            elig = [(L.alive[i] != 0) & (L.rem[i] >= costs[i]) & ~L.done for i in range(S)]
            if not any(e.any() for e in elig):
                return
            ranks = self.ranks(L, L.rem, elig)
            actor = np.zeros(L.m, np.int16)
            for i in range(1, S):
                actor += np.int16(i) * (ranks[i] == 0)
            who = _Who(actor, S)
            anyone = np.zeros(L.m, bool)
            for i in range(S):
                go = elig[i] & who.hot[i]
                anyone |= go
                L.rem[i] -= costs[i] * go
            self.act(L, who, anyone)

    def end_round(self, L: _Lanes) -> None:
        for x in L.ndef:
            x[:] = 0
        if self.after_attack:
            for x in L.own:
                x[:] = 0
        if L.sfoe is not None:
            for x in L.sfoe:
                x[:] = 0
        if L.beh is not None and self.rules.behind_duration == "next_round":
            for b, r in zip(L.beh, L.behr, strict=True):
                b[(b >= 0) & (r + 1 <= L.rnd)] = -1

    # --- actions -------------------------------------------------------------------------
    def target_of(self, L: _Lanes, who: _Who, go: np.ndarray) -> tuple[np.ndarray, _Who]:
        """The target of ``who`` in lanes ``go``, re-picked where it has fallen (groups)."""
        S = self.S
        if not self.s.groups:
            return go, _Who(1 - who.idx, S)
        tgt = self.sel(L.tgt, who)
        tw = _Who(np.maximum(tgt, 0), S)
        bad = go & ((tgt < 0) | (self.sel(L.alive, tw) == 0))
        if bad.any():
            for i in range(S):
                sub = np.flatnonzero(bad & who.hot[i])
                if len(sub):
                    L.tgt[i][sub] = self.pick(L, i, sub)
            tgt = self.sel(L.tgt, who)
            go = go & (tgt >= 0)
            tw = _Who(np.maximum(tgt, 0), S)
        return go, tw

    def act(self, L: _Lanes, who: _Who, extra: np.ndarray | None = None) -> None:
        s, S = self.s, self.S
        go = (self.sel(L.alive, who) != 0) & ~L.done if s.groups else ~L.done
        if extra is not None:
            go &= extra
        if L.sup is not None:
            go &= ~(L.sup & (self.cst(s.surprised, who) != 0))
        if L.crip is not None:
            go &= (self.sel(L.crip, who) & 1) == 0
        if L.dis is not None:
            recovering = go & (self.sel(L.dis, who) != 0)
            if recovering.any():
                self.setv(L.dis, who, 0, recovering)
                go &= ~recovering
        if not go.any():
            return
        go, tw = self.target_of(L, who, go)
        if self.after_attack and s.any_own_penalty:
            # the swing / blow penalty starts with the attack (attack_penalty_scope)
            for i in range(S):
                t = L.typ[i]
                pen = (t == 1) * np.int16(-5) + (t == 2) * np.int16(-10)
                L.own[i] += ((pen - L.own[i]) * (go & who.hot[i])).astype(np.int16)
        behind = None
        if L.beh is not None:
            beh = self.sel(L.beh, who)
            behind = go & (beh == tw.idx)
            if behind.any():
                self.setv(L.beh, who, -1, behind)
            else:
                behind = None
        dmg = self.cst(self.dmg_const, who) if self.static_types else self.sel(L.dmg, who)
        self.attack(L, go, who, tw, dmg, 0, behind=behind)

    # --- the range phase (000.10 DEFAULT) -----------------------------------------------
    def range_round(self, L: _Lanes) -> None:
        """A round before the sides close: in Strike Rank order, one range action each
        (reload, aim or shoot) for fighters with shots; the others close in."""
        S = self.S
        self.initiative(L)
        if self.s.groups:
            self.round_targets(L)
        self.commit_types(L)  # the melee type's action cost breaks Strike Rank ties
        if S == 2 and self.static_types:
            first = _Who(self.duel_first(L), S)
            order = [first, _Who(1 - first.idx, S)]
        else:
            order = self.sr_order(L)
        for who in order:
            self.shoot(L, who)
        self.end_round(L)

    def shoot(self, L: _Lanes, who: _Who) -> None:
        """One range action of ``who``: reload, aim, or a shot against Dodge or a shield
        parry (no riposte, no getting behind), hits wounding as in melee."""
        s, rules = self.s, self.rules
        go = (self.sel(L.alive, who) != 0) & ~L.done if s.groups else ~L.done
        go &= self.sel(L.ammo, who) > 0
        if L.crip is not None:
            go &= (self.sel(L.crip, who) & 1) == 0
        if not go.any():
            return
        go, d = self.target_of(L, who, go)
        prep = go & (self.sel(L.rdy, who) < self.cst(s.shot_cost, who))
        if prep.any():
            self.addv(L.rdy, who, 1, prep)
            go &= ~prep
        if not go.any():
            return
        self.setv(L.rdy, who, 0, go)
        self.addv(L.ammo, who, np.int16(-1), go)
        m = L.m
        x, y = opposed_dice(self.bits, m)
        a_total = self.pair(s.matt, who, d) + self.sel(L.sk, who) + x
        sk_d = self.sel(L.sk, d)
        dg_d = self.sel(L.dg, d) if L.dg is not None else None
        ndef = self.sel(L.ndef, d)
        bers = self.sel(L.bers, d) if L.bers is not None else None
        crip = self.sel(L.crip, d) if L.crip is not None else None
        best_score = None
        d_fixed = np.zeros(m, np.int16)
        for k in s.mkinds:
            tot = self.pair(s.mdef[k], d, who) + (dg_d if k == DODGE else sk_d)
            if any(s.step[k]):
                tot = tot + ndef * self.cst(s.step[k], d)
            no = None
            if bers is not None:
                b0 = self.cst([s.bers[k][i][0] for i in range(self.S)], d)
                b1 = self.cst([s.bers[k][i][1] for i in range(self.S)], d)
                tot = tot + b0 + (b1 - b0) * bers
                if k == DODGE:
                    no = bers != 0
            if k == WEAPON_PARRY and L.dis is not None:
                c = self.sel(L.dis, d) != 0
                no = c if no is None else (no | c)
            if crip is not None:
                c = (crip & {WEAPON_PARRY: 1, SHIELD_PARRY: 2, DODGE: 4}[k]) != 0
                no = c if no is None else (no | c)
            if no is not None:
                tot = tot + (np.int16(UNAVAILABLE - 1000) - tot) * no
            score = tot + self.cst(s.pref[k], d) if any(s.pref[k]) else tot
            if best_score is None:
                best_score, d_fixed = score, tot
            else:
                better = score > best_score
                best_score = np.maximum(best_score, score)
                d_fixed = d_fixed + (tot - d_fixed) * better
        if best_score is None:
            defended = np.zeros(m, bool)
        else:
            defended = best_score > DEFENDED
            if any(s.undefending):
                defended &= self.cst(s.undefending, d) == 0
        margin = a_total - d_fixed - y
        if rules.tie_rule == "add_d20":
            self.break_ties(margin, go & defended)
        self.addv(L.ndef, d, 1, go & defended)
        hit = go & (~defended | (margin > 0))
        if not hit.any():
            return
        dmg = np.broadcast_to(self.cst(s.missile_dmg, who), (m,)).astype(np.int16)
        self.wound(L, hit, who, d, dmg, self.blocks(hit & defended, margin), None)

    def blocks(self, hit: np.ndarray, margin: np.ndarray) -> np.ndarray | None:
        """Attacker's overpower blocks (at most 7) in the defended lanes ``hit`` (000.6)."""
        strict = self.rules.overpower_strict
        strong = hit & (margin >= T.OVERPOWER_BLOCK + int(strict))
        if not strong.any():
            return None
        mm = np.maximum(margin, 1)
        blocks = (mm - 1) // 20 if strict else mm // 20
        return np.minimum(blocks * strong, 7).astype(np.int16)

    def ambush(self, L: _Lanes) -> None:
        """5.21 default: each fighter not surprised attacks a surprised foe, undefended."""
        s, S = self.s, self.S
        surprised = [i for i in range(S) if s.surprised[i]]
        for i in range(S):
            if s.surprised[i]:
                continue
            foes = [j for j in surprised if s.side[j] != s.side[i]]
            if not foes:
                continue
            idx = np.arange(L.m)
            if s.groups:
                t = self.pick(L, i, idx, among=foes)
                L.tgt[i][:] = t
            else:
                t = np.full(L.m, foes[0], np.int16)
            go = (L.alive[i] != 0) & ~L.done & (t >= 0)
            if not go.any():
                continue
            who = _Who(np.full(L.m, i, np.int16), S)
            tw = _Who(np.maximum(t, 0), S)
            flat = np.asarray([s.best[i][j][0] for j in range(S)], np.int16)
            typ = flat.take(tw.idx)
            d = s.dmg[i]
            dmg = np.int16(d[0]) + (typ == 1) * np.int16(d[1] - d[0]) \
                + (typ == 2) * np.int16(d[2] - d[0])
            self.wound(L, go, who, tw, dmg.astype(np.int16), None, None)

    # --- an attack -----------------------------------------------------------------------
    def attack(self, L: _Lanes, go: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray, depth: int,
               *, behind: np.ndarray | None = None, no_parry: np.ndarray | None = None
               ) -> None:
        """Attack of ``a`` on ``d`` in the lanes ``go`` (000.3-000.6), and its sequels."""
        s, rules = self.s, self.rules
        m = L.m
        undefended = None
        if L.sup is not None:
            undefended = L.sup & (self.cst(s.surprised, d) != 0)
        x, y = opposed_dice(self.bits, m)
        a_total = self.pair(s.att, a, d) + self.sel(L.sk, a) + x
        # the defender's options (000.5): static part + situation + own type penalty +
        # cumulative penalty + berserker modifiers; unavailable ones at UNAVAILABLE
        sk_d = self.sel(L.sk, d)
        dg_d = self.sel(L.dg, d) if L.dg is not None else None
        ndef = self.sel(L.ndef, d)
        own = self.own_of(L, d)
        bers = self.sel(L.bers, d) if L.bers is not None else None
        blocked_parry = behind if no_parry is None else (
            no_parry if behind is None else (behind | no_parry))
        dis_d = self.sel(L.dis, d) != 0 if L.dis is not None else None
        crip_d = self.sel(L.crip, d) if L.crip is not None else None
        best_score = None
        kind = np.zeros(m, np.int8)
        d_fixed = np.zeros(m, np.int16)
        if self.single_kind is not None:
            k = self.single_kind
            d_fixed = self.pair(s.opt[k], d, a) + (dg_d if k == DODGE else sk_d)
            if own is not None and (k != BLOCK or rules.swing_penalty_armour_block):
                d_fixed += own
            if any(s.step[k]):
                d_fixed += ndef * self.cst(s.step[k], d)
            kind[:] = k
        for k in (s.kinds if self.single_kind is None else ()):
            base = self.pair(s.opt[k], d, a)
            if behind is not None and k in (DODGE, BLOCK):
                half = self.pair(s.opt_half[k], d, a)
                base = base + (half - base) * behind
            tot = base + (dg_d if k == DODGE else sk_d)
            if own is not None and (k != BLOCK or rules.swing_penalty_armour_block):
                tot += own
            step = s.step[k]
            if any(step) and ndef.any():
                tot += ndef * self.cst(step, d)
            if bers is not None:
                b0 = self.cst([s.bers[k][i][0] for i in range(self.S)], d)
                b1 = self.cst([s.bers[k][i][1] for i in range(self.S)], d)
                tot += b0 + (b1 - b0) * bers
            # dynamic availability
            no = None
            if k in (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY) and blocked_parry is not None:
                no = blocked_parry.copy()
            if k in (WEAPON_PARRY, BOTH_PARRY):
                if dis_d is not None:
                    no = dis_d if no is None else (no | dis_d)
                if crip_d is not None:
                    c = (crip_d & 1) != 0
                    no = c if no is None else (no | c)
            if k in (SHIELD_PARRY, BOTH_PARRY):
                if crip_d is not None:
                    c = (crip_d & 2) != 0
                    no = c if no is None else (no | c)
                if L.sfoe is not None:
                    c = ~self.shield_ok(L, d, a)
                    no = c if no is None else (no | c)
            if k == DODGE:
                if bers is not None:
                    c = bers != 0
                    no = c if no is None else (no | c)
                if crip_d is not None:
                    c = (crip_d & 4) != 0
                    no = c if no is None else (no | c)
            if no is not None:
                tot += (np.int16(UNAVAILABLE - 1000) - tot) * no
            pref = s.pref[k]
            score = tot + self.cst(pref, d) if any(pref) else tot
            if best_score is None:
                best_score = score
                d_fixed = tot
                kind[:] = k
            else:
                better = score > best_score
                best_score = np.maximum(best_score, score)
                d_fixed = d_fixed + (tot - d_fixed) * better
                kind += ((k - kind) * better).astype(np.int8)
        if self.single_kind is not None:
            defended = np.ones(m, bool)
        elif best_score is None:
            defended = np.zeros(m, bool)
        else:
            defended = best_score > DEFENDED
            if any(s.undefending):
                defended &= self.cst(s.undefending, d) == 0
        if undefended is not None:
            defended &= ~undefended
        margin = a_total - d_fixed - y
        if rules.tie_rule == "add_d20":
            self.break_ties(margin, go & defended)
        active_def = go & defended
        self.addv(L.ndef, d, 1, active_def)
        if L.sfoe is not None:
            shield_used = active_def & ((kind == SHIELD_PARRY) | (kind == BOTH_PARRY))
            if shield_used.any():
                bit = (np.int16(1) << a.idx).astype(np.int16)
                for i in range(self.S):
                    L.sfoe[i] |= bit * (shield_used & d.hot[i])
        hit = go & (~defended | (margin > 0))
        if s.any_knight:
            kd = hit & defended & (kind != DODGE) & (kind != BLOCK) \
                & (self.cst(s.knight_double, d) != 0)
            if kd.any():
                margin, kind, hit = self.knight_block(L, kd, a, d, a_total, margin, kind, hit)
        # hits
        if hit.any():
            self.wound(L, hit, a, d, dmg, self.blocks(hit & defended, margin), None)
        # defences that succeeded
        miss = go & defended & ~hit
        if not miss.any():
            return
        if rules.armour_block_success == "double_armour" and BLOCK in s.kinds:
            dbl = miss & (kind == BLOCK)
            if dbl.any():
                self.wound(L, dbl, a, d, dmg, None, 2)
        won = -margin
        need = T.OVERPOWER_BLOCK + int(rules.overpower_strict)
        big = miss & (won >= need)
        if not big.any():
            return
        if s.any_behind:
            dodged = big & (kind == DODGE)
            if dodged.any():
                self.setv(L.beh, d, a.idx, dodged)
                self.setv(L.behr, d, L.rnd, dodged)
        parried = big & (kind != DODGE) & (kind != BLOCK)
        if parried.any() and (s.any_riposte or s.any_disarm):
            self.parry_overpower(L, parried, a, d, won, kind, depth)

    def own_of(self, L: _Lanes, d: _Who) -> np.ndarray | None:
        """The swing / blow penalty on ``d``'s parries and dodges now (``None``: none)."""
        if not self.s.any_own_penalty:
            return None
        if self.own_const is not None:
            return self.cst(self.own_const, d)
        return self.sel(L.own, d)

    def shield_ok(self, L: _Lanes, d: _Who, a: _Who) -> np.ndarray:
        s = self.s
        mask = self.sel(L.sfoe, d)
        seen = ((mask >> a.idx) & 1) != 0
        count = np.zeros(L.m, np.int16)
        for b in range(self.S):
            count += (mask >> b) & 1
        return seen | (count < self.cst(s.shield_opps, d))

    def break_ties(self, margin: np.ndarray, lanes: np.ndarray) -> None:
        tie = np.flatnonzero(lanes & (margin == 0))
        while len(tie):
            x, y = opposed_dice(self.bits, len(tie))
            margin[tie] += x - y
            tie = tie[margin[tie] == 0]

    def knight_block(self, L: _Lanes, kd: np.ndarray, a: _Who, d: _Who, a_total: np.ndarray,
                     margin: np.ndarray, kind: np.ndarray, hit: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The Knight's Armour block after a failed parry, at the next defence step."""
        s, rules = self.s, self.rules
        tot = self.pair(s.block_table, d, a) + self.sel(L.sk, d)
        tot += self.sel(L.ndef, d) * self.cst(s.step[BLOCK], d)
        if rules.swing_penalty_armour_block and s.any_own_penalty:
            tot += self.own_of(L, d)
        if L.bers is not None:
            b0 = self.cst([s.bers[BLOCK][i][0] for i in range(self.S)], d)
            b1 = self.cst([s.bers[BLOCK][i][1] for i in range(self.S)], d)
            tot += b0 + (b1 - b0) * self.sel(L.bers, d)
        _, y = opposed_dice(self.bits, L.m)
        m2 = a_total - tot - y
        if rules.tie_rule == "add_d20":
            self.break_ties(m2, kd)
        self.addv(L.ndef, d, 1, kd)
        margin = margin + (m2 - margin) * kd
        kind = kind + ((BLOCK - kind) * kd).astype(np.int8)
        hit = hit & (~kd | (m2 > 0))
        return margin, kind, hit

    def parry_overpower(self, L: _Lanes, parried: np.ndarray, a: _Who, d: _Who,
                        won: np.ndarray, kind: np.ndarray, depth: int) -> None:
        """Riposte, shield riposte or disarm after a parry by 20+ (5.5, 5.6 Shieldman)."""
        s, rules = self.s, self.rules
        policy = self.cst(s.riposte_policy, d)
        ok = parried & (policy != 2)
        if L.dis is not None:
            ok &= self.sel(L.dis, d) == 0
        if L.crip is not None:
            ok &= (self.sel(L.crip, d) & 1) == 0
        if not ok.any():
            return
        if s.any_disarm:
            dis = ok & (policy == 1) & (won >= T.DISARM_MARGIN + int(rules.overpower_strict))
            if dis.any():
                self.setv(L.dis, a, 1, dis)
                ok &= ~dis
        ok &= self.cst(s.can_riposte, d) != 0
        if depth >= rules.max_riposte_depth or not ok.any():
            return
        idx = np.flatnonzero(ok)
        sub = L.take(idx)
        sa, sd = a.take(idx), d.take(idx)
        shield = None
        if any(s.shieldman_riposte):
            k = kind.take(idx)
            shield = ((k == SHIELD_PARRY) | (k == BOTH_PARRY)) & (
                self.cst(s.shieldman_riposte, sd) != 0)
            if not shield.any():
                shield = None
        go = np.ones(len(idx), bool)
        self.attack(sub, go, sd, sa, self.cst(s.riposte_dmg, sd), depth + 1, no_parry=shield)
        L.put(idx, sub)

    # --- wounds --------------------------------------------------------------------------
    def wound(self, L: _Lanes, hit: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray,
              blocks: np.ndarray | None, armour_mult: int | None) -> None:
        """Resolve the hits in lanes ``hit``: location, Wound Matrix, rank shifts, armour,
        death and the wound code (000.8.4).

        The outcome of a plain hit (no rank shift, no called shot) is a lookup in the
        matchup's wound table by (attacker, defender, damage modifier, dice word); shifted
        or called hits are computed arithmetically on their subset, by the same function
        that built the table.
        """
        s, rules = self.s, self.rules
        m = L.m
        code, _ = split(uniform(self.bits, m, 720), 720)
        shift = None
        forced = None
        disarm = None
        if blocks is not None:
            bidx = np.flatnonzero(blocks)
            if len(bidx):
                key = a.idx.take(bidx) * 8 + blocks.take(bidx)
                shift = np.zeros(m, np.int16)
                shift[bidx] = np.asarray(s.op_shift, np.int16).ravel().take(key)
                loc = np.asarray(s.op_loc, np.int16).ravel().take(key)
                if (loc >= 0).any():
                    forced = np.full(m, -1, np.int16)
                    forced[bidx] = loc
                if s.any_disarm:
                    disarm = np.zeros(m, bool)
                    disarm[bidx] = np.asarray(s.op_disarm, np.int16).ravel().take(key) != 0
        if L.bers is not None:
            extra = self.sel(L.bers, a).astype(np.int16)
            shift = extra if shift is None else shift + extra
        if L.sup is not None and s.any_assassin_surprise:
            extra = L.sup * self.cst(s.assassin, a) * self.cst(s.surprised, d)
            shift = extra if shift is None else shift + extra
        detail = rules.limb_destroyed == "crippled" or any(s.knockout)
        if detail or armour_mult is not None or self.wound_table is None:
            value, loc, rank = wound_outcome(s, rules, a.idx, d.idx, dmg, code, shift, forced,
                                             armour_mult or 1)
        else:
            index = (self.pair(self.wound_rows, a, d) + dmg).astype(np.intp) * 720 + code
            value = self.wound_table.take(index)
            special = None
            if shift is not None:
                special = shift != 0
            if forced is not None:
                special = (forced >= 0) if special is None else (special | (forced >= 0))
            if special is not None:
                sub = np.flatnonzero(special & hit)
                if len(sub):
                    value[sub] = wound_outcome(
                        s, rules, a.idx.take(sub), d.idx.take(sub),
                        np.broadcast_to(dmg, (m,)).take(sub),
                        code.take(sub), None if shift is None else shift.take(sub),
                        None if forced is None else forced.take(sub), 1)[0]
        hurt = hit & (value >= 0)
        lethal = hit & (value < 0) & (value > NO_WOUND)
        cause_code = value  # -1 instant death, -2 limb destroyed, where lethal
        if detail:
            head = loc == T.HEAD
            if any(s.knockout):
                ko = hurt & head & (self.cst(s.knockout, a) != 0) \
                    & (rank + self.cst(s.footpad, a) >= T.S)
                if ko.any():
                    lethal = lethal | ko
                    hurt = hurt & ~ko
                    cause_code = np.where(ko, KO_CODE, cause_code)
            if L.crip is not None:
                limb = ~head & (loc != T.CHEST) & (loc != T.ABDOMEN)
                cr = hurt & limb & (rank >= T.LIMB_DESTROYED_RANK)
                if cr.any():
                    bit = np.where(loc == T.WEAPON_ARM, 1, np.where(loc == T.OFF_ARM, 2, 4))
                    for i in range(self.S):
                        L.crip[i] |= (bit * (cr & d.hot[i])).astype(np.int8)
        gain = value * hurt
        old = self.sel(L.pts, d)
        for i in range(self.S):
            L.pts[i] += gain * d.hot[i]
        pts = old + gain
        out_u = hurt & (pts >= self.cst(s.thr_u, d))
        out = lethal | out_u
        if rules.wounded_penalty:
            w = self.cst(s.thr_w, d)
            crossed = hurt & ~out & (pts >= w) & (old < w)
            if crossed.any():
                self.addv(L.sk, d, np.int16(rules.wounded_penalty), crossed)
                if L.dg is not None:
                    self.addv(L.dg, d, np.int16(rules.wounded_penalty), crossed)
        standing = hit & ~out
        if disarm is not None:
            self.setv(L.dis, d, 1, standing & disarm)
        if L.bers is not None and any(s.berserk_on_wound):
            trig = standing & hurt & (self.cst(s.berserk_on_wound, d) != 0)
            self.setv(L.bers, d, 1, trig)
        if out.any():
            idx = np.flatnonzero(out)
            cc = np.maximum(cause_code.take(idx), KO_CODE) - KO_CODE
            cause = _CAUSE_OF_CODE.take(np.minimum(cc, 4))
            killed = pts.take(idx) >= np.asarray(s.thr_k, np.int32).take(d.idx.take(idx))
            cause[(cc >= 4) & killed] = KILLED
            self.put_out(L, idx, d, cause)

    def put_out(self, L: _Lanes, idx: np.ndarray, d: _Who, cause: np.ndarray) -> None:
        """Fighters ``d`` of fights ``idx`` go out with ``cause``; finished fights are
        recorded."""
        s, S = self.s, self.S
        d_out = d.idx.take(idx)
        if not s.groups:  # a duel ends with its first fighter out
            fid = L.fid.take(idx)
            self.winner[fid] = np.int8(Winner.A) + (d_out == 0)
            self.cause[fid] = cause
            self.rounds[fid] = L.rnd.take(idx)
            L.done[idx] = True
            return
        for i in range(S):
            L.alive[i][idx[d_out == i]] = 0
        a_up = np.zeros(len(idx), bool)
        b_up = np.zeros(len(idx), bool)
        for i in range(S):
            up = L.alive[i].take(idx) != 0
            if s.side[i] == 0:
                a_up |= up
            else:
                b_up |= up
        ended = ~a_up | ~b_up
        winner = np.where(a_up, np.int8(Winner.A), np.int8(Winner.B))
        going = idx[~ended]
        if len(going):
            mask = np.zeros(len(going), np.int32)
            for i in range(S):
                mask |= (L.alive[i].take(going).astype(np.int32)) << i
            sk = np.asarray(s.sit_skill, np.int16)
            dg = np.asarray(s.sit_dodge, np.int16)
            wpen = self.rules.wounded_penalty
            for i in range(S):
                wounded = L.pts[i].take(going) >= s.thr_w[i]
                L.sk[i][going] = sk[mask, i] + wpen * wounded
                if L.dg is not None:
                    L.dg[i][going] = dg[mask, i] + wpen * wounded
        ended &= ~L.done.take(idx)
        if ended.any():
            fights = idx[ended]
            fid = L.fid.take(fights)
            self.winner[fid] = winner[ended]
            self.cause[fid] = cause[ended]
            self.rounds[fid] = L.rnd.take(fights)
            L.done[fights] = True


@lru_cache(maxsize=32)
def _cached_wound_table(s: _Static) -> tuple[np.ndarray | None, int, int]:
    if s.rules.limb_destroyed == "crippled" or any(s.knockout):
        return None, 0, 0
    return _wound_table(s, s.rules)


def wound_outcome(s: _Static, rules: Rules, a: np.ndarray, d: np.ndarray, dmg: np.ndarray,
                  code: np.ndarray, shift: np.ndarray | None, forced: np.ndarray | None,
                  armour_mult: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What one hit does, per lane: (value, location, rank).

    ``code`` (0..719) is the dice word: d20 location face ``code % 20`` and 2d6 from
    ``code // 20``.  ``value`` is the wound points gained, or -1 (instant death), -2 (limb
    destroyed, with ``limb_destroyed="out"``) or :data:`NO_WOUND` (armour stopped it).
    """
    code = code.astype(np.uint16, copy=False)
    face, dice6 = split(code, 20)
    d1, d2 = split(dice6, 6)
    roll = dmg.astype(np.int16) + d1.view(np.int16) + d2.view(np.int16) + np.int16(2)
    face = face.view(np.int16)
    if s.any_aim:
        face = np.clip(face + np.asarray(s.aim, np.int16).take(a), 0, 19).astype(np.int16)
    loc = np.zeros(len(code), np.int16)
    for edge in s.hit_edges:
        loc += face >= edge
    if forced is not None:
        loc = np.where(forced >= 0, forced, loc).astype(np.int16)
    if shift is not None and rules.rank_shift_mode == "roll_plus_3":
        roll = (roll + shift * np.int16(3)).astype(np.int16)
        shift = None
    ai = None
    if s.has_armour:
        ai = np.asarray(s.armour, np.int16).ravel().take(d.astype(np.intp) * len(T.LOCATIONS)
                                                          + loc) * np.int16(armour_mult)
        if rules.armour_mode == "roll_reduction":
            roll = roll - ai * np.int16(rules.armour_roll_per_ai)
            ai = None
    rank = rank_of(roll, rules.block_rounding)
    if shift is not None:
        rank += shift
    if ai is not None:
        rank -= ai
    value = np.asarray(s.points, np.int32).take(np.clip(rank, 0, MAX_RANK))
    head = loc == T.HEAD
    torso = (loc == T.CHEST) | (loc == T.ABDOMEN)
    instant = (head & (rank >= np.asarray(s.death_head, np.int16).take(d))) | (
        torso & (rank >= np.asarray(s.death_torso, np.int16).take(d)))
    value[instant] = -1
    if rules.limb_destroyed == "out":
        value[~head & ~torso & (rank >= T.LIMB_DESTROYED_RANK)] = -2
    value[rank < 0] = NO_WOUND
    return value, loc, rank


def _wound_table(s: _Static, rules: Rules) -> tuple[np.ndarray, int, int]:
    """Every plain hit's value by (attacker, defender, damage modifier, dice word)."""
    S = s.S
    mods = [v for row in s.dmg for v in row] + list(s.riposte_dmg) + list(s.missile_dmg)
    low, high = min(mods), max(mods)
    n_dmg = high - low + 1
    a, d, k, code = np.meshgrid(np.arange(S), np.arange(S), np.arange(n_dmg), np.arange(720),
                                indexing="ij")
    value, _, _ = wound_outcome(s, rules, a.ravel(), d.ravel(),
                                (k.ravel() + low).astype(np.int16), code.ravel(), None, None, 1)
    return value.astype(np.int32), n_dmg, low


def simulate(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights of ``side_a`` against ``side_b``.

    Returns
    -------
    Outcomes
        ``winner`` int8 (n,), ``rounds`` int16 (n,), ``cause`` int8 (n,) indexing
        :data:`.reference.CAUSES`.
    """
    st = _static(rules, tuple(side_a), tuple(side_b))
    return _Kernel(st, rng).run(n)
