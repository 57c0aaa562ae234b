"""The vectorised kernel of seed 000: many fights at once, one loop over rounds.

Layout ("lanes"): fights run along axis 0 of every array; each combatant slot ``s``
(side A first) has its own 1-D array per state variable (``lanes.wound_points[s]``, ...);
the matchup's constants are in a :class:`_Setup` (``setup.attack_total[a][d]``, ...).
Who attacks whom differs from fight to fight, so per-fight slot indices (``a``, ``d``) are
resolved by arithmetic selection (``x0 + (x1 - x0) * a`` for a duel) rather than by
gathers, and updates are masked, full-width, in-place arithmetic: on this hardware an
element-wise operation costs ~0.1 ns per fight while a gather, scatter, ``np.where`` on a
random mask or bounded random integer costs 3-10 ns.  Rare events (ripostes, overpower
blocks, add-d20 ties, group re-targeting, deaths in groups) are handled on index subsets.
Finished fights are compacted out once a quarter of a segment's lanes have finished.

Many matchups share a batch (:mod:`balance.batching`): segments whose matchups take the same
code path (:func:`batch_key`) run together, their numeric tables stacked by segment
(:class:`_Stack`, gathered per lane by ``segment * n_slots + slot``); every draw is made for
the lanes of each segment from that segment's stream, as that segment alone would make it
(a draw site guarded by ``mask.any()`` draws for the segments with a lane in ``mask``), and
freed lanes take whole segments, so a segment's fights end the same way in any batch.

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

import dataclasses
import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...batching import Segment, SegmentedRng
from ...dice import codes_from_bits
from ...outcomes import Outcomes
from ...results import Winner
from . import kernel_rows as KR
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

__all__ = ["batch_key", "simulate", "simulate_segments"]

KILLED, KNOCKED_OUT, MAX_ROUNDS = CAUSES.killed, CAUSES.knocked_out, CAUSES.max_rounds
_CAUSE_OF_CODE = np.array([KNOCKED_OUT, -1, CAUSES.limb_destroyed, CAUSES.instant_death,
                           CAUSES.unconscious], np.int8)
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
    return opposed_from(uniform(bits, m, 400))


def opposed_from(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two d20s of :func:`opposed_dice` from its words (uniform on a multiple of 400)."""
    x, q = split(u, 20)
    y = q - (q // 20) * np.uint16(20)
    return x.view(np.int16), y.view(np.int16)


def initiative_dice(bits: Any, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Index Resolution bonus int16, dice showing 5 or 6 int8) of ``dice`` d6 per lane
    (at most 4: one word of 6**4 outcomes gives four dice)."""
    return initiative_from(uniform(bits, len(dice), 1296), dice)


def initiative_from(u: np.ndarray, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`initiative_dice` from its words (uniform on a multiple of 1296)."""
    m = len(dice)
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


def coins_from(bits: Any, m: int) -> np.ndarray:
    """``m`` fair coins (bool), 64 to a raw word."""
    words = np.asarray(bits.random_raw((m + 63) // 64), np.uint64)
    return np.unpackbits(words.view(np.uint8), count=m).view(bool)


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


@dataclass(frozen=True, eq=False)
class _Setup:
    """Per-slot and per-pair constants of one matchup (lists of Python ints by slot);
    compared and hashed by identity (:func:`_static` keeps one per matchup)."""

    rules: Rules
    n_slots: int
    side: tuple[int, ...]
    base_strike_rank: tuple[int, ...]
    dice: tuple[int, ...]
    dex: tuple[int, ...]
    agility: tuple[int, ...]
    wounded_at: tuple[int, ...]
    unconscious_at: tuple[int, ...]
    killed_at: tuple[int, ...]
    death_head: tuple[int, ...]
    death_torso: tuple[int, ...]
    damage_mod: tuple[tuple[int, int, int], ...]  # by slot and type (0 where impossible)
    riposte_damage: tuple[int, ...]
    can_riposte: tuple[int, ...]
    cost: tuple[tuple[int, int, int], ...]
    budget_cost: tuple[tuple[int, int, int], ...]
    attack_total: tuple[tuple[int, ...], ...]  # [a][d]
    defence_total: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a], UNAVAILABLE if never
    defence_half: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a] when dodged behind
    block_total: tuple[tuple[int, ...], ...]  # [d][a] Armour block, never pruned
    step: tuple[tuple[int, ...], ...]  # [kind][d]
    berserker_mod: tuple[tuple[tuple[int, int], ...], ...]  # [kind][d][berserk]
    preferred: tuple[tuple[int, ...], ...]  # [kind][d]
    undefending: tuple[int, ...]  # defence_policy "none"
    untrained: tuple[int, ...]  # fights on a natural skill rolled each fight
    hold: tuple[int, ...]  # hold_policy "react": waits for its target to declare
    ranked: tuple[int, ...]  # formation "ranked"
    ranked_ahead: tuple[tuple[int, ...], ...]  # ranked side-mates in lower slots
    rank_frontage: int
    reach: tuple[int, ...]  # strikes from the second rank
    any_rear: bool  # some side has more ranked fighters than the frontage
    fights_unarmed: tuple[int, ...]  # when_disarmed "fight_unarmed"
    unarmed_attack_total: tuple[tuple[int, ...], ...]  # [a][d] with its unarmed move
    unarmed_damage: tuple[int, ...]  # damage modifier of its unarmed thrust
    best: tuple[tuple[tuple[int, ...], ...], ...]  # [a][t][k]
    policy_best: tuple[int, ...]
    armour: tuple[tuple[int, ...], ...]  # [d][location]
    has_armour: bool
    aim_shift: tuple[int, ...]
    knight_double: tuple[int, ...]
    shield_opponents: tuple[int, ...]
    shieldman_riposte: tuple[int, ...]
    riposte_policy: tuple[int, ...]  # 0 riposte, 1 disarm, 2 never
    overpower_location: tuple[tuple[int, ...], ...]  # [a][blocks]: forced location or -1
    overpower_shift: tuple[tuple[int, ...], ...]
    overpower_disarm: tuple[tuple[int, ...], ...]
    berserk_start: tuple[int, ...]
    berserk_on_wound: tuple[int, ...]
    assassin: tuple[int, ...]
    footpad: tuple[int, ...]
    knockout: tuple[int, ...]
    surprised: tuple[int, ...]
    target_policy: tuple[int, ...]  # 0 random, 1 weakest, 2 strongest
    skill: tuple[int, ...]
    situation_skill: tuple[tuple[int, ...], ...]  # [alive mask][slot]
    situation_dodge: tuple[tuple[int, ...], ...]
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
    shot_total: tuple[tuple[int, ...], ...]  # [a][d] static total of a shot
    shot_defence: tuple[tuple[tuple[int, ...], ...], ...]  # [kind][d][a] against a shot
    shot_kinds: tuple[int, ...]  # defence kinds anybody may use against shots
    missile_damage: tuple[int, ...]
    shot_cost: tuple[int, ...]  # range actions between shots (reloads + aims)
    reload: tuple[int, ...]
    ammo: tuple[int, ...]
    # the rules language: static damage modifiers by pair, per-fight rows (kernel_rows)
    damage_bonus: tuple[tuple[int, ...], ...]  # [a][d] melee weapon and style
    unarmed_damage_bonus: tuple[tuple[int, ...], ...]  # [a][d] the unarmed move
    missile_damage_bonus: tuple[tuple[int, ...], ...]  # [a][d] shots
    lang: KR.Dynamic | None


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



@lru_cache(maxsize=1024)
def _static(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
            ) -> _Setup:
    """The constant tables of one matchup, built in named steps."""
    ps, _, best = matchup_setup(rules, side_a, side_b)
    lang = KR.build(ps)
    groups = len(side_a) > 1 or len(side_b) > 1
    inflicts = lang.inflicts if lang is not None else frozenset()
    defences = _defence_fields(ps, rules, best, lang, groups, inflicts)
    return _Setup(
        rules=rules, n_slots=len(ps), groups=groups, lang=lang, best=best,
        **_fighter_fields(ps, rules),
        **defences,
        **_attack_fields(ps, rules),
        **_style_fields(ps, rules),
        **_switches(ps, rules, best, groups, inflicts, defences),
        **_range_fields(ps, rules),
    )


def _fighter_fields(ps: Sequence[Profile], rules: Rules) -> dict[str, Any]:
    """Initiative, thresholds, situation tables, armour and the wound points by rank."""
    n_slots = len(ps)
    sit_skill, sit_dodge = [], []
    for mask in range(1 << n_slots):
        alive = [bool(mask >> s & 1) for s in range(n_slots)]
        parts = [situation_parts(ps, alive, s) for s in range(n_slots)]
        sit_skill.append(tuple(total(sk) for sk, _ in parts))
        sit_dodge.append(tuple(total(dg) for _, dg in parts))
    edges, top = [], 0
    for n in list(rules.hit_table.values())[:-1]:
        top += n
        edges.append(top)
    return dict(
        side=tuple(p.side for p in ps),
        base_strike_rank=tuple(p.actions + p.flat + p.strike_rank_mod for p in ps),
        dice=tuple(p.dice for p in ps),
        dex=tuple(p.c.dexterity for p in ps), agility=tuple(p.c.agility for p in ps),
        wounded_at=tuple(p.thresholds[0] for p in ps),
        unconscious_at=tuple(p.thresholds[1] for p in ps),
        killed_at=tuple(p.thresholds[2] for p in ps), death_head=tuple(p.death[0] for p in ps),
        death_torso=tuple(p.death[1] for p in ps),
        skill=tuple(p.c.skill for p in ps),
        situation_skill=tuple(sit_skill), situation_dodge=tuple(sit_dodge),
        armour=tuple(tuple(p.c.armour[T.ARMOUR_GROUPS[T.LOCATION_GROUP[loc]]]
                           for loc in range(len(T.LOCATIONS))) for p in ps),
        has_armour=any(v for p in ps for v in p.c.armour.values()),
        points=tuple(R.rank_points(r, rules.rank_ratio, rules.f_points)
                     for r in range(MAX_RANK + 1)),
        hit_edges=tuple(edges),
    )


def _defence_tables(ps: Sequence[Profile], rules: Rules, half: bool
                    ) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Static total of each defence kind ``[kind][d][a]`` (``half``: behind, dodge and block
    only), :data:`UNAVAILABLE` where it can never be made."""

    def opp(kind: int, d: Profile, a: Profile) -> int:
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

    return tuple(tuple(tuple(opp(k, d, a) if not half or k in (DODGE, BLOCK) else UNAVAILABLE
                             for a in ps) for d in ps) for k in KINDS)


def _defence_fields(ps: Sequence[Profile], rules: Rules, best: Any, lang: KR.Dynamic | None,
                    groups: bool, inflicts: frozenset[str]) -> dict[str, Any]:
    """The defences: totals, preferences, the kinds anybody may use (pruned in a duel where
    availability cannot change) and the steps and berserker modifiers."""
    slots = range(len(ps))
    opt = _defence_tables(ps, rules, False)
    preferred = {"parry": (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY), "dodge": (DODGE,),
                 "armour_block": (BLOCK,)}
    pref = tuple(tuple(PREFERRED if k in preferred.get(p.defence_preference, ()) else 0
                       for p in ps) for k in KINDS)
    any_disarm = _any_disarm(ps, rules, inflicts)
    block_table = opt[BLOCK]
    # per-fight defence modifiers or effects change which defence is best fight by fight
    lang_defends = lang is not None and (bool(inflicts) or any(
        KR.defence_key(k) in lang for k in KINDS))
    if (not groups and not any_disarm and rules.limb_destroyed != "crippled"
            and not any(p.c.untrained for p in ps)  # a rolled skill moves parries
            and not lang_defends):
        opt = _prune_defences(ps, opt, pref, best, rules)
    kinds = tuple(k for k in KINDS
                  if any(opt[k][d][a] > UNAVAILABLE for d in slots for a in slots))
    return dict(
        defence_total=opt, defence_half=_defence_tables(ps, rules, True), block_total=block_table,
        step=tuple(tuple(p.step(k) for p in ps) for k in KINDS),
        berserker_mod=tuple(tuple((total(p.berserker_parts(False, k)),
                                   total(p.berserker_parts(True, k)))
                                  for p in ps) for k in KINDS),
        preferred=pref, undefending=tuple(int(p.c.defence_policy == "none") for p in ps),
        kinds=kinds, any_disarm=any_disarm, any_behind=DODGE in kinds,
    )


def _any_disarm(ps: Sequence[Profile], rules: Rules, inflicts: frozenset[str]) -> bool:
    disarm_menu = "disarm" in rules.overpower_menu and rules.disarm_effect != "none"
    return rules.disarm_effect != "none" and (
        any(p.c.riposte_policy == "disarm" for p in ps)
        or (disarm_menu and any(p.c.overpower_policy == "disarm" for p in ps))
        or "disarmed" in inflicts)


def _attack_fields(ps: Sequence[Profile], rules: Rules) -> dict[str, Any]:
    """Attack totals, damage modifiers and action costs by slot and type."""
    return dict(
        damage_mod=tuple(tuple(int(p.weapon.damage(t) or 0) for t in range(3)) for p in ps),
        riposte_damage=tuple(int(p.riposte_damage or 0) for p in ps),
        can_riposte=tuple(int(p.riposte_damage is not None) for p in ps),
        cost=tuple(tuple(R.action_cost(p.c, t, rules) for t in range(3)) for p in ps),
        budget_cost=tuple(tuple(R.budget_cost(p.c, t, rules) for t in range(3)) for p in ps),
        attack_total=tuple(tuple(a.attack_total(d) if a.side != d.side else 0 for d in ps)
                           for a in ps),
        fights_unarmed=tuple(int(p.unarmed is not None) for p in ps),
        unarmed_attack_total=tuple(tuple(a.unarmed.attack_total(d)
                                         if a.unarmed is not None and a.side != d.side else 0
                                         for d in ps) for a in ps),
        unarmed_damage=tuple(int(p.unarmed.weapon.damage(p.unarmed.types[0]) or 0)
                             if p.unarmed is not None else 0 for p in ps),
        policy_best=tuple(int(p.c.attack_policy == "best") for p in ps),
        damage_bonus=_pairs(ps, lambda a, d: total(a.damage_parts(d))),
        unarmed_damage_bonus=_pairs(ps, lambda a, d: total(a.unarmed.damage_parts(d))
                                    if a.unarmed is not None else 0),
        missile_damage_bonus=_pairs(ps, lambda a, d: total(a.damage_parts(d, missile=True))
                                    if a.missile is not None else 0),
    )


def _style_fields(ps: Sequence[Profile], rules: Rules) -> dict[str, Any]:
    """Policies, formations and the fighting styles' mechanisms by slot."""

    def spend(p: Profile) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        loc, shift, dis = [], [], []
        for blocks in range(8):
            location, s, d = R.spend_overpower(blocks, p.c.overpower_policy, rules)
            loc.append(-1 if location is None else location)
            shift.append(s)
            dis.append(int(d))
        return tuple(loc), tuple(shift), tuple(dis)

    spends = [spend(p) for p in ps]
    return dict(
        untrained=tuple(int(p.c.untrained) for p in ps),
        hold=tuple(int(p.c.hold_policy == "react") for p in ps),
        ranked=tuple(int(p.c.formation == "ranked") for p in ps),
        ranked_ahead=tuple(tuple(q.slot for q in ps if q.side == p.side and q.slot < p.slot
                                 and q.c.formation == "ranked") if p.c.formation == "ranked"
                           else () for p in ps),
        rank_frontage=rules.rank_frontage,
        reach=tuple(int(p.weapon.size is not None and p.weapon.size >= rules.rank_reach)
                    for p in ps),
        any_rear=any(sum(1 for q in ps if q.side == side and q.c.formation == "ranked")
                     > rules.rank_frontage for side in (0, 1)),
        aim_shift=tuple(p.aim_shift for p in ps),
        knight_double=tuple(int(p.knight_double) for p in ps),
        shield_opponents=tuple(p.shield_opponents for p in ps),
        shieldman_riposte=tuple(int(p.shieldman_shield and rules.shield_riposte) for p in ps),
        riposte_policy=tuple(R.RIPOSTE_POLICIES.index(p.c.riposte_policy) for p in ps),
        overpower_location=tuple(s[0] for s in spends),
        overpower_shift=tuple(s[1] for s in spends),
        overpower_disarm=tuple(s[2] for s in spends),
        berserk_start=tuple(int(p.can_berserk and p.c.berserk_trigger == "start") for p in ps),
        berserk_on_wound=tuple(int(p.can_berserk and p.c.berserk_trigger == "on_first_wound")
                               for p in ps),
        assassin=tuple(int(p.style.has("assassin")) for p in ps),
        footpad=tuple(int(p.style.has("footpad")) for p in ps),
        knockout=tuple(int(p.c.knockout and rules.ko_rules) for p in ps),
        surprised=tuple(int(p.c.surprised) for p in ps),
        target_policy=tuple(R.TARGET_POLICIES.index(p.c.target_policy) for p in ps),
    )


def _switches(ps: Sequence[Profile], rules: Rules, best: Any, groups: bool,
              inflicts: frozenset[str], defences: dict[str, Any]) -> dict[str, Any]:
    """Feature switches: whole mechanisms nobody in the matchup can trigger are skipped."""
    slots = range(len(ps))
    types_used = {best[a][t][k] for a in slots for t in slots for k in range(4)
                  if ps[a].side != ps[t].side}
    return dict(
        any_berserk=any(p.can_berserk and p.c.berserk_trigger != "never" for p in ps)
        or "berserk" in inflicts,
        any_shield_limit=groups and any(p.has_shield and p.shield_opponents < 99 for p in ps),
        any_knight=any(p.knight_double for p in ps),
        any_own_penalty=bool(types_used - {0}),
        any_riposte=any(p.c.riposte_policy != "never" for p in ps),
        any_aim=any(p.aim_shift for p in ps),
        any_assassin_surprise=any(p.style.has("assassin") for p in ps)
        and any(p.c.surprised for p in ps),
    )


def _range_fields(ps: Sequence[Profile], rules: Rules) -> dict[str, Any]:
    """The range phase (000.10 DEFAULT): shots, their defences, reloads and ammunition."""
    slots = range(len(ps))
    ranged = range_phase(ps)

    def missile_opp(kind: int, d: Profile, a: Profile) -> int:
        if not ranged or d.side == a.side or a.missile is None:
            return UNAVAILABLE
        if kind == WEAPON_PARRY and rules.missile_weapon_parry and d.can_weapon_parry:
            return total(d.parry_parts(a, kind))
        if kind == SHIELD_PARRY and d.has_shield:
            return total(d.parry_parts(a, kind))
        return total(d.dodge_parts(a)) if kind == DODGE else UNAVAILABLE

    mdef = tuple(tuple(tuple(missile_opp(k, d, a) for a in ps) for d in ps) for k in KINDS)
    return dict(
        ranged=ranged,
        shot_total=tuple(tuple(total(a.missile_parts(d)) if a.missile and a.side != d.side
                               else 0 for d in ps) for a in ps),
        shot_defence=mdef,
        shot_kinds=tuple(k for k in KINDS if any(mdef[k][d][a] > UNAVAILABLE
                                                 for d in slots for a in slots)),
        missile_damage=tuple(p.missile.damage if p.missile else 0 for p in ps),
        shot_cost=tuple(p.shot_cost for p in ps),
        reload=tuple(p.missile.reload if p.missile else 0 for p in ps),
        ammo=tuple(p.c.missiles if p.missile else 0 for p in ps),
    )


def _pairs(ps: Sequence[Profile], value: Any) -> tuple[tuple[int, ...], ...]:
    """``value(a, d)`` for every pair of foes ``[a][d]`` (0 between side-mates)."""
    return tuple(tuple(int(value(a, d)) if a.side != d.side else 0 for d in ps) for a in ps)


# --- many matchups in one batch (balance.batching) -----------------------------------------


class _Stack:
    """A table that differs between the segments of a batch: ``table[segment, ...]``.

    Indexing and iteration act on the axes after the segment's, as on the tuple it stands
    for; its truth value is whether any segment's entry is non-zero, which the kernel only
    uses to skip arithmetic, never a draw (fields whose switches change draws are in the
    batch key instead).  The table never changes, so its parts, its raveled array and its
    truth value are made once (the kernel asks for them every round)."""

    __slots__ = ("_any", "_flat", "_parts", "_rows", "table")

    def __init__(self, table: np.ndarray) -> None:
        self.table = table
        self._flat: np.ndarray | None = None
        self._any: bool | None = None
        self._parts: dict[tuple[int, int], _Stack] = {}
        self._rows: list[_Stack] | None = None

    def _part(self, axis: int, i: int) -> _Stack:
        part = self._parts.get((axis, i))
        if part is None:
            part = self._parts[axis, i] = _Stack(self.table[:, i] if axis == 1
                                                 else self.table[:, :, i])
        return part

    def __getitem__(self, i: int) -> _Stack:
        return self._part(1, i)

    def __len__(self) -> int:
        return int(self.table.shape[1])

    def __iter__(self) -> Any:
        if self._rows is None:
            self._rows = [self[j] for j in range(len(self))]
        return iter(self._rows)

    def __bool__(self) -> bool:
        if self._any is None:
            self._any = bool(self.table.any())
        return self._any

    def column(self, j: int) -> _Stack:
        """``tuple(row[j] for row in tab)`` of the table it stands for."""
        return self._part(2, j)

    @property
    def flat(self) -> np.ndarray:
        """The table raveled: ``[segment, x, ...]`` at ``(segment * len + x) * ...``."""
        if self._flat is None:
            self._flat = np.ascontiguousarray(self.table).reshape(-1)
        return self._flat

    @property
    def width(self) -> int:
        """Entries a segment."""
        return len(self.flat) // len(self.table)


def _column(tab: Any, j: int) -> Any:
    return tab.column(j) if isinstance(tab, _Stack) else tuple(row[j] for row in tab)


_FLAT: dict[tuple[int, str], tuple[Any, np.ndarray]] = {}
"""Raveled arrays of setup tables by the table's identity (the table kept beside its array,
so an identity is never reused while cached): a group's tables run to thousands of entries
and are read every round."""


def _flat(tab: Any, dtype: Any = np.int16) -> np.ndarray:
    """``np.asarray(tab, dtype).ravel()``, made once per table (tables are immutable
    tuples)."""
    if not isinstance(tab, tuple):  # only immutable tables are kept
        return np.asarray(tab, dtype).ravel()
    key = (id(tab), np.dtype(dtype).str)
    got = _FLAT.get(key)
    if got is None or got[0] is not tab:
        if len(_FLAT) > 4096:
            _FLAT.clear()
        got = _FLAT[key] = (tab, np.asarray(tab, dtype).ravel())
    return got[1]


@lru_cache(maxsize=4096)
def _uniform(tab: tuple[int, ...]) -> bool:
    """Whether every slot has the same value."""
    return all(v == tab[0] for v in tab)


def _per_slot(tab: Any, rows: np.ndarray, n_slots: int, width: int = 1,
              offset: Any = 0, dtype: Any = np.int16) -> np.ndarray:
    """``tab[row][offset]`` per lane (``width`` entries a slot): ``rows`` are slots, or
    ``segment * n_slots + slot`` keys (:class:`_Who`) in a batch of several segments."""
    if isinstance(tab, _Stack):
        return tab.flat.take(rows * np.intp(width) + offset)
    return _flat(tab, dtype).take((rows % np.int16(n_slots)) * np.intp(width) + offset)


def _combine(values: Sequence[Any]) -> Any:
    """One segment's value for each segment: the value itself if they all agree, else a
    :class:`_Stack` (int16 where every entry fits)."""
    first = values[0]
    if all(v == first for v in values[1:]):
        return first
    table = np.asarray(values, np.int64)
    if table.size and table.min() >= -(1 << 15) and table.max() < 1 << 15:
        table = table.astype(np.int16)
    return _Stack(table)


_NUMERIC = frozenset({
    "base_strike_rank", "dice", "dex", "agility", "wounded_at", "unconscious_at", "killed_at",
    "death_head", "death_torso", "damage_mod", "riposte_damage", "can_riposte", "cost",
    "budget_cost", "attack_total", "defence_total", "defence_half", "block_total", "step",
    "berserker_mod", "preferred", "undefending", "reach", "unarmed_attack_total",
    "unarmed_damage", "best", "policy_best", "armour", "has_armour", "aim_shift",
    "knight_double", "shield_opponents", "shieldman_riposte", "riposte_policy",
    "overpower_location", "overpower_shift", "overpower_disarm", "berserk_start",
    "berserk_on_wound", "assassin", "footpad", "skill", "situation_skill", "situation_dodge",
    "any_knight", "any_own_penalty", "any_riposte", "any_aim", "shot_total", "shot_defence",
    "missile_damage", "shot_cost", "reload", "ammo", "damage_bonus", "unarmed_damage_bonus",
    "missile_damage_bonus"})
"""Fields of :class:`_Setup` that may differ between the segments of one batch: gathered
per lane by its segment (or, for the ``any_`` switches, their union: they only skip
arithmetic that does nothing where they are off).  Every other field, and every switch
derived from them, is in :func:`batch_key`: segments of one batch take the same code path
and make the same draws."""
_UNION = ("kinds", "shot_kinds", "any_behind")
"""Fields a batch takes the union of: a kind nobody in a segment can use has the total
:data:`UNAVAILABLE` in its tables, so it never beats an available one and leaves a
defenceless lane defenceless (its choice then moves nothing)."""
_STRUCTURAL = tuple(f.name for f in dataclasses.fields(_Setup)
                    if f.name not in _NUMERIC and f.name not in _UNION)


def _merge(setups: Sequence[_Setup]) -> _Setup:
    """The setups of a batch's segments as one: numeric tables stacked by segment."""
    first = setups[0]
    if len(setups) == 1:
        return first
    changes: dict[str, Any] = {}  # stacked tables stand where the setup has tuples
    for name in _NUMERIC:
        value = _combine([getattr(s, name) for s in setups])
        if isinstance(value, _Stack):
            changes[name] = value
    for name in ("kinds", "shot_kinds"):
        union = {k for s in setups for k in getattr(s, name)}
        changes[name] = tuple(k for k in KINDS if k in union)
    changes["any_behind"] = DODGE in changes["kinds"]
    for name in _STRUCTURAL:
        if any(getattr(s, name) != getattr(first, name) for s in setups[1:]):
            raise ValueError(f"segments of one strike-rank batch differ in {name}")
    return dataclasses.replace(first, **changes)


def _static_types(setup: _Setup) -> bool:
    """In a duel with no disarm and no holding, each fighter's attack type is the same
    every round: its damage, action cost and own-defence penalty are constants."""
    return not setup.groups and not setup.any_disarm and not any(setup.hold)


def _type_const(setup: _Setup) -> tuple[int, ...]:
    return tuple(setup.best[i][1 - i][0] if not setup.groups else 0
                 for i in range(setup.n_slots))


def _single_kind(setup: _Setup) -> int | None:
    """The one defence kind everybody always has and chooses (``None``: a choice to make)."""
    rules, n_slots = setup.rules, setup.n_slots
    dynamic_availability = (setup.any_disarm or setup.any_behind or setup.any_shield_limit
                            or setup.any_berserk or rules.limb_destroyed == "crippled")
    if (len(setup.kinds) == 1 and not dynamic_availability and not any(setup.undefending)
            and not any(setup.surprised)
            and all(setup.defence_total[setup.kinds[0]][d][a] > UNAVAILABLE
                    for d in range(n_slots) for a in range(n_slots)
                    if setup.side[d] != setup.side[a])):
        return setup.kinds[0]
    return None


def _duel_tie(setup: _Setup) -> int:
    """Who acts first in a duel's Strike Rank tie by the constant tie-breaks (000.2.4):
    slot 1 (1), slot 0 (0), or a coin (-1: the random tie-break is reached)."""
    if setup.n_slots != 2 or setup.groups:
        return 0
    types = _type_const(setup)
    for tb in setup.rules.sr_tiebreak:
        if tb == "random":
            return -1
        if tb == "action_cost":
            v0, v1 = -setup.cost[0][types[0]], -setup.cost[1][types[1]]
        elif tb == "dex":
            v0, v1 = setup.dex
        else:
            v0, v1 = setup.agility
        if v1 != v0:
            return int(v1 > v0)
    return 0


def batch_key(segment: Segment) -> Hashable:
    """Segments with equal keys share a batch: their matchups take the same code path
    (every field outside :data:`_NUMERIC` and the switches derived from them), only their
    numeric tables differ."""
    return _setup_of(segment)[1]


_SEEN: dict[tuple[int, ...], tuple[Any, _Setup, Hashable]] = {}
"""Setup and key by the identity of a segment's rules and fighters (the objects are kept,
so their ids stay theirs): a round robin's segments share them, and hashing rules and
fighters for :func:`_static`'s cache each time costs more than the kernel's work."""
_KEYS: dict[Hashable, int] = {}
_NUMBERS = itertools.count()  # distinct even from threads racing to name new structures


def _setup_of(segment: Segment) -> tuple[_Setup, Hashable]:
    ident = (id(segment.rules), *map(id, segment.side_a), -1, *map(id, segment.side_b))
    seen = _SEEN.get(ident)
    if seen is None:
        setup = _static(segment.rules, tuple(segment.side_a), tuple(segment.side_b))
        if setup.lang is not None:  # runs alone (simulate_segments)
            key: Hashable = ("alone", id(setup))
        else:
            key = _KEYS.setdefault(tuple(getattr(setup, name) for name in _STRUCTURAL),
                                   next(_NUMBERS))
        if len(_SEEN) >= 4096:
            _SEEN.clear()
        seen = _SEEN[ident] = ((segment.rules, segment.side_a, segment.side_b), setup, key)
    return seen[1], seen[2]


class _Runs:
    """The lanes of a batch by segment: segment ``ids[j]`` on the lanes ``starts[j]`` to
    ``starts[j] + counts[j]`` (a batch keeps each segment's lanes together, in segment
    order: started in that order, compacted and refilled at the end)."""

    __slots__ = ("counts", "ids", "starts")

    def __init__(self, ids: np.ndarray, starts: np.ndarray, counts: np.ndarray) -> None:
        self.ids, self.starts, self.counts = ids, starts, counts

    @classmethod
    def of(cls, seg: np.ndarray) -> _Runs:
        if len(seg) and bool(np.any(seg[1:] < seg[:-1])):
            raise AssertionError("a batch's lanes are grouped by segment, in segment order")
        starts = np.diff(seg, prepend=-1).nonzero()[0] if len(seg) else np.zeros(0, np.intp)
        counts = np.diff(starts, append=len(seg))
        return cls(seg.take(starts), starts, counts)

    def where(self, keep: np.ndarray) -> _Runs:
        return _Runs(self.ids[keep], self.starts[keep], self.counts[keep])

    def within(self, idx: np.ndarray) -> _Runs:
        """The runs of the lanes ``idx`` (ascending) of these lanes, read off these runs
        (cheaper than :meth:`of` on their segments: a riposte's lanes ask every time)."""
        edges = np.searchsorted(idx, self.starts)
        counts = np.empty_like(edges)
        counts[:-1] = edges[1:] - edges[:-1]
        counts[-1:] = len(idx) - edges[-1:]
        if counts.all():
            return _Runs(self.ids, edges, counts)
        keep = counts.nonzero()[0]
        return _Runs(self.ids.take(keep), edges.take(keep), counts.take(keep))

    def each(self, bits: Sequence[Any], make: Any) -> np.ndarray:
        """``make(bits[s], count)`` of each run, one after another."""
        parts = [make(bits[s], c) for s, c in zip(self.ids.tolist(), self.counts.tolist(),
                                                   strict=True)]
        return np.concatenate(parts) if parts else make(bits[0], 0)


def _words16(bits: Any, n: int) -> np.ndarray:
    return np.asarray(bits.random_raw((n + 3) // 4), np.uint64).view(np.uint16)[:n]


def _run_codes(k: int, runs: _Runs, bits: Sequence[Any]) -> np.ndarray:
    """:func:`uniform` for each run from its segment's bit generator: the words of
    :func:`balance.dice.codes_from_bits` (each segment's stream read exactly as alone: its
    words, then redraws for its rejected ones, in order), the rejections of all runs
    redrawn together."""
    u = runs.each(bits, _words16)
    limit = (65536 // k) * k
    if limit < 65536:
        bad = (u >= limit).nonzero()[0]
        if bad.size:
            ends = np.cumsum(runs.counts)
            ids = runs.ids.tolist()
            while bad.size:
                owner = np.searchsorted(ends, bad, side="right")
                need = np.bincount(owner, minlength=len(ids))
                fresh = np.concatenate([_words16(bits[ids[j]], int(need[j]))
                                        for j in need.nonzero()[0].tolist()])
                u[bad] = fresh
                bad = bad[fresh >= limit]
    return u


# --- lanes: per-slot state arrays of a batch of fights ---------------------------------------

_SLOT_VARS = ("wound_points", "standing", "natural_skill", "skill_situation", "dodge_situation",
              "defences",
              "own_penalty", "attack_type", "damage", "disarmed", "berserk", "behind",
              "behind_round", "shield_foes", "target", "crippled", "dice", "kept_bonus",
              "strike_rank", "remaining", "ammo", "ready")
_COMBAT_VARS = ("wound_points", "standing", "natural_skill", "skill_situation",
                "dodge_situation", "defences",
                "own_penalty", "disarmed", "berserk", "behind", "behind_round", "shield_foes",
                "crippled", "target")
"""What an attack reads or writes: the variables a riposte's sub-batch carries (``target``:
for the rules language's ``foes_engaged``)."""


class _Lanes:
    """State of ``n_fights`` fights: per-slot lists of arrays and per-fight arrays.

    A variable no fighter of the matchup can change is ``None`` (e.g. ``berserk`` with no
    berserker), so the kernel skips it and its mechanism entirely; each is ``None`` until
    set (on the class: a batch makes many sub-lanes, one a riposte)."""

    wound_points: Any = None  # int32: wound points
    standing: Any = None  # int8: still in the fight (groups)
    natural_skill: Any = None  # int16: an untrained fighter's skill, rolled for the fight (else 0)
    skill_situation: Any = None  # int16: situation + wounded modifier on style-skill rolls
    dodge_situation: Any = None  # int16: the same on Dodge
    defences: Any = None  # int16: defensive moves made this round
    own_penalty: Any = None  # int16: swing / blow penalty on own parries and dodges now
    attack_type: Any = None  # int16: attack type this round (-1 recovering a weapon)
    damage: Any = None  # int16: damage modifier of that type
    disarmed: Any = None  # int8: disarmed
    berserk: Any = None  # int8: berserk
    behind: Any = None  # int16: slot of the foe this fighter is behind (-1 none)
    behind_round: Any = None  # int16: round it got behind
    shield_foes: Any = None  # int16: bitmask of foes parried with the shield this round
    target: Any = None  # int16: target slot (groups)
    crippled: Any = None  # int8: destroyed limbs, bits weapon arm 1, off arm 2, leg 4
    dice: Any = None  # int8: initiative dice carried over
    kept_bonus: Any = None  # int16: kept initiative bonus (carry_mode="keep")
    strike_rank: Any = None  # int16: Strike Rank this round
    remaining: Any = None  # int16: Strike Rank left to spend (action_economy="budget")
    ammo: Any = None  # int16: shots left (range phase)
    ready: Any = None  # int16: range actions done towards the next shot

    def __init__(self) -> None:
        self.n_fights = 0
        self.fight: np.ndarray = np.zeros(0, np.int32)  # which fight of the run
        self.seg: Any = None  # int32: its segment (a batch of several segments; else None)
        self.done: np.ndarray = np.zeros(0, bool)
        self.round: np.ndarray = np.zeros(0, np.int16)  # the round each fight is in
        self.surprise: np.ndarray | None = None  # surprise in force (ambush, first round)
        self._runs: _Runs | None = None

    def runs(self) -> _Runs:
        """The lanes by segment (a batch of several segments)."""
        if self._runs is None:
            self._runs = _Runs.of(self.seg)
        return self._runs

    def _fight_vars(self) -> list[str]:
        return (["fight", "done", "round"] + (["seg"] if self.seg is not None else [])
                + (["surprise"] if self.surprise is not None else []))

    def take(self, idx: np.ndarray) -> _Lanes:
        out = _Lanes()
        out.n_fights = len(idx)
        for v in _COMBAT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(out, v, [x.take(idx) for x in xs])
        for v in self._fight_vars():
            setattr(out, v, getattr(self, v).take(idx))
        if self.seg is not None:
            out._runs = self.runs().within(idx)
        return out

    def put(self, idx: np.ndarray, sub_lanes: _Lanes) -> None:
        for v in _COMBAT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                for x, y in zip(xs, getattr(sub_lanes, v), strict=True):
                    x[idx] = y
        self.done[idx] = sub_lanes.done

    def compress(self, keep: np.ndarray) -> None:
        idx = keep.nonzero()[0]
        for v in _SLOT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(self, v, [x.take(idx) for x in xs])
        for v in self._fight_vars():
            setattr(self, v, getattr(self, v).take(idx))
        self.n_fights = len(idx)
        self._runs = None

    def extend(self, new: _Lanes) -> None:
        """Append the fights of ``new`` (same matchup) after these."""
        for v in _SLOT_VARS:
            xs = getattr(self, v)
            if xs is not None:
                setattr(self, v, [np.concatenate((x, y)) for x, y in zip(xs, getattr(new, v),
                                                                          strict=True)])
        for v in ("fight", "done", "round") + (("seg",) if self.seg is not None else ()):
            setattr(self, v, np.concatenate((getattr(self, v), getattr(new, v))))
        self.n_fights += new.n_fights
        self._runs = None


class _Who:
    """Per-fight slot indices with their one-hot masks (``hot[s]``: lanes where it is s)
    and, in a batch of several segments, ``key``: ``segment * n_slots + slot`` (the row of
    a :class:`_Stack` table)."""

    __slots__ = ("hot", "idx", "key")
    key: Any  # int32 per lane, or None alone

    def __init__(self, idx: np.ndarray, n_slots: int, seg: np.ndarray | None = None) -> None:
        self.idx = idx.astype(np.int16, copy=False)
        if n_slots == 2:
            b = self.idx.astype(bool)
            self.hot = [~b, b]
        else:
            self.hot = [self.idx == s for s in range(n_slots)]
        self.key = None if seg is None else seg * np.int32(n_slots) + self.idx

    def take(self, picked: np.ndarray) -> _Who:
        w = _Who.__new__(_Who)
        w.idx = self.idx.take(picked)
        w.hot = [h.take(picked) for h in self.hot]
        w.key = None if self.key is None else self.key.take(picked)
        return w


class _Defender:
    """What each kind of a defender's defence against one attack reads of it, per lane:
    situation on skill and Dodge, own type penalty, defences made this round (``None``:
    none anywhere), berserk and disarmed (``None`` where nobody can be)."""

    __slots__ = ("berserk", "defences", "disarmed", "dodge", "own", "skill")
    skill: Any
    dodge: Any
    own: Any
    defences: Any
    berserk: Any
    disarmed: Any


class _Kernel:
    """The fights of one or more segments (matchups sharing a :func:`batch_key`), each
    segment's draws from its own stream (:class:`~balance.batching.SegmentedRng`)."""

    def __init__(self, setups: Sequence[_Setup], rng: SegmentedRng) -> None:
        self.setup = setup = _merge(setups)
        self.rules = rules = setup.rules
        self.n_slots = n_slots = setup.n_slots
        self.n_segments = len(setups)
        self.single = self.n_segments == 1
        self.rng = rng
        self.bits = rng.bits[0]
        self.gen = np.random.Generator(self.bits)  # dice of the rules language's rows
        self.lang = setup.lang
        self.after_attack = rules.attack_penalty_scope == "after_attack"
        self.static_types = _static_types(setup)
        types = [_type_const(s) for s in setups]
        self.type_const = _combine(types)
        self.damage_const = _combine([tuple(s.damage_mod[i][t[i]] for i in range(n_slots))
                                      for s, t in zip(setups, types, strict=True)])
        self.own_const = _combine([tuple(T.OWN_DEFENCE_PENALTY[x] for x in t) for t in types]) \
            if self.static_types and not self.after_attack else None
        self.duel_tie = _combine([_duel_tie(s) for s in setups])
        self.wound_table, self.wound_rows = _wound_tables(setups)
        self.detail = rules.limb_destroyed == "crippled" or any(setup.knockout)
        single = {_single_kind(s) for s in setups}  # else: the choice, the same for them
        self.single_kind = single.pop() if len(single) == 1 else None

    # --- random numbers: each lane's from its own segment's stream -------------------------
    def words(self, lanes: _Lanes, k: int, guard: np.ndarray | None = None) -> np.ndarray:
        """A 16-bit word uniform on a multiple of ``k`` per lane, drawn for the lanes of
        the segments with a lane in ``guard`` (all: ``None``) -- the draw each segment
        makes alone when ``guard.any()`` holds for it; 0 in the other lanes."""
        if self.single:
            return uniform(self.bits, lanes.n_fights, k)
        return self.guarded(lanes, guard, lambda runs: _run_codes(k, runs, self.rng.bits),
                            np.uint16)

    def words_at(self, lanes: _Lanes, idx: np.ndarray, k: int) -> np.ndarray:
        """A word as :meth:`words` for each of the lanes ``idx`` (ascending)."""
        if self.single:
            return uniform(self.bits, len(idx), k)
        return _run_codes(k, lanes.runs().within(idx), self.rng.bits)

    def raw31(self, lanes: _Lanes, guard: np.ndarray | None) -> np.ndarray:
        """31 random bits per lane (int64), as :meth:`words` draws."""
        if self.single:
            return (self.bits.random_raw(lanes.n_fights) >> np.uint64(33)).astype(np.int64)
        raw = self.guarded(lanes, guard, lambda runs: runs.each(
            self.rng.bits, lambda b, c: np.asarray(b.random_raw(c), np.uint64)), np.uint64)
        return (raw >> np.uint64(33)).astype(np.int64)

    def coins(self, lanes: _Lanes, guard: np.ndarray | None = None) -> np.ndarray:
        """A fair coin per lane, 64 to a raw word of its segment's stream."""
        if self.single:
            return coins_from(self.bits, lanes.n_fights)
        return self.guarded(lanes, guard, lambda runs: runs.each(self.rng.bits, coins_from),
                            bool)

    def guarded(self, lanes: _Lanes, guard: np.ndarray | None, draw: Any, dtype: Any
                ) -> np.ndarray:
        """``draw(runs)`` for the lanes of the segments with a lane in ``guard``."""
        runs = lanes.runs()
        if guard is not None and len(runs.ids):
            has = np.logical_or.reduceat(guard, runs.starts)
            if not has.all():
                out = np.zeros(lanes.n_fights, dtype)
                out[np.repeat(has, runs.counts)] = draw(runs.where(has))
                return out
        return draw(runs)

    # --- selection helpers ---------------------------------------------------------------
    def who(self, idx: np.ndarray, lanes: _Lanes) -> _Who:
        return _Who(idx, self.n_slots, lanes.seg)

    def sel(self, xs: list[np.ndarray], who: _Who) -> np.ndarray:
        if self.n_slots == 2:
            return xs[0] + (xs[1] - xs[0]) * who.idx
        out = xs[0] * who.hot[0]
        for s in range(1, self.n_slots):
            out += xs[s] * who.hot[s]
        return out

    def cst(self, tab: Any, who: _Who) -> Any:
        """``tab[who]`` per lane (a scalar when every slot has the same value)."""
        if isinstance(tab, _Stack):
            return tab.flat.take(who.key)
        if _uniform(tab):
            return np.int16(tab[0])
        if self.n_slots == 2:
            return np.int16(tab[0]) + np.int16(tab[1] - tab[0]) * who.idx
        return _flat(tab).take(who.idx)

    def pair(self, tab: Any, x: _Who, y: _Who) -> Any:
        """``tab[x][y]`` per lane (x and y on opposite sides)."""
        if isinstance(tab, _Stack):
            return tab.flat.take(x.key * np.int32(self.n_slots) + y.idx)
        if self.n_slots == 2:
            if tab[0][1] == tab[1][0]:
                return np.int16(tab[0][1])
            return np.int16(tab[0][1]) + np.int16(tab[1][0] - tab[0][1]) * x.idx
        flat = _flat(tab)
        return flat.take(x.idx * self.n_slots + y.idx)

    def at(self, value: Any, lanes: _Lanes, idx: np.ndarray | None = None) -> Any:
        """One segment-wide value (an int, or a :class:`_Stack` by segment) per lane (of
        the lanes ``idx``): a scalar where it is one value."""
        if isinstance(value, _Stack):
            seg = lanes.seg if idx is None else lanes.seg.take(idx)
            return value.table.take(seg)
        return np.int16(value)

    def full(self, value: Any, lanes: _Lanes, dtype: Any) -> np.ndarray:
        """:meth:`at` as an array over the lanes."""
        if isinstance(value, _Stack):
            return value.table.take(lanes.seg).astype(dtype)
        return np.full(lanes.n_fights, value, dtype)

    def lookup(self, tab: Any, seg: Any, index: np.ndarray) -> np.ndarray:
        """``tab[index]`` per lane, ``index`` into its segment's raveled table (``seg``: the
        lanes' segments, from :meth:`segs`)."""
        if isinstance(tab, _Stack):
            return tab.flat.take(seg * np.int32(tab.width) + index)
        return _flat(tab).take(index)

    def segs(self, lanes: _Lanes, idx: np.ndarray | None = None) -> np.ndarray | None:
        """The segment of each lane (of the lanes ``idx``); ``None`` alone."""
        if lanes.seg is None:
            return None
        return lanes.seg if idx is None else lanes.seg.take(idx)

    def setv(self, xs: list[np.ndarray], who: _Who, val: Any, mask: np.ndarray) -> None:
        for s in range(self.n_slots):
            m = mask & who.hot[s]
            xs[s] += ((val - xs[s]) * m).astype(xs[s].dtype, copy=False)

    def addv(self, xs: list[np.ndarray], who: _Who, inc: Any, mask: np.ndarray) -> None:
        """``xs[who] += inc`` in lanes ``mask`` (``inc`` 1 adds the mask itself)."""
        for s in range(self.n_slots):
            m = mask & who.hot[s]
            if isinstance(inc, int) and inc == 1:
                xs[s] += m
            else:
                xs[s] += (inc * m).astype(xs[s].dtype, copy=False)

    # --- the run -------------------------------------------------------------------------
    def run(self, sizes: Sequence[int]) -> list[Outcomes]:
        """The fights of each segment (``sizes[s]`` of segment ``s``) streamed through a
        batch of at most :data:`BATCH` lanes, finished fights dropped when a quarter of a
        segment's lanes are done.  Alone, a segment larger than the batch refills lanes
        with its later fights as they free up; in a batch of several segments (each at
        most :data:`BATCH`), freed lanes take whole segments: so what a segment's lanes
        draw never depends on the other segments."""
        if not self.single:
            assert max(sizes) <= BATCH, "a segment larger than the batch runs alone"
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        total_fights = int(offsets[-1])
        self.winner = np.zeros(total_fights, np.int8)
        self.rounds = np.zeros(total_fights, np.int16)
        self.cause = np.full(total_fights, MAX_ROUNDS, np.int8)
        self.pending = [(s, int(offsets[s]), int(sizes[s])) for s in range(len(sizes))]
        lanes = self.refill(None)
        first_round_surprise = (self.rules.ambush_rules == "first_round"
                                and any(self.setup.surprised))
        while lanes.n_fights:
            lanes.surprise = (lanes.round == 1) if first_round_surprise else None
            self.play_round(lanes)
            lanes.surprise = None
            self.cap(lanes)
            lanes.round += 1
            drop = self.finished(lanes)
            if drop is not None:
                lanes.compress(~drop)
                lanes = self.refill(lanes)
        return [Outcomes(self.winner[o:o + n], self.rounds[o:o + n], self.cause[o:o + n],
                         CAUSES) for o, n in zip(offsets[:-1], sizes, strict=True)]

    def cap(self, lanes: _Lanes) -> None:
        """Fights at the last round end in a draw."""
        max_rounds = self.rules.max_rounds
        capped = ~lanes.done & (lanes.round >= max_rounds)
        if np.count_nonzero(capped):
            live = lanes.fight[capped]
            self.winner[live] = Winner.DRAW
            self.rounds[live] = max_rounds
            self.cause[live] = MAX_ROUNDS
            lanes.done |= capped

    def finished(self, lanes: _Lanes) -> np.ndarray | None:
        """The done lanes of the segments a quarter of whose lanes are done (``None``:
        none to drop)."""
        if self.single:
            return lanes.done if int(np.count_nonzero(lanes.done)) * 4 >= lanes.n_fights \
                else None
        here = np.bincount(lanes.seg, minlength=self.n_segments)
        done = np.bincount(lanes.seg[lanes.done], minlength=self.n_segments)
        drop = lanes.done & (done * 4 >= here).take(lanes.seg)
        return drop if np.count_nonzero(drop) else None

    def refill(self, lanes: _Lanes | None) -> _Lanes:
        """Fresh fights in the free lanes: the next fights of a lone segment, or the next
        whole segments that fit."""
        room = BATCH - (lanes.n_fights if lanes is not None else 0)
        fid, seg = [], []
        while self.pending and room > 0:
            s, start, n = self.pending[0]
            take = min(n, room) if self.single else n
            if take > room:
                break
            fid.append(np.arange(start, start + take, dtype=np.int32))
            seg.append(np.full(take, s, np.int32))
            room -= take
            if take == n:
                self.pending.pop(0)
            else:
                self.pending[0] = (s, start + take, n - take)
        if not fid:
            return lanes if lanes is not None else self.start_lanes(
                np.zeros(0, np.int32), np.zeros(0, np.int32))
        new = self.start_lanes(np.concatenate(fid), np.concatenate(seg))
        if lanes is None:
            return new
        lanes.extend(new)
        return lanes

    def start_lanes(self, fid: np.ndarray, seg: np.ndarray) -> _Lanes:
        """Fresh fights, through the ambush if anyone is surprised (5.21 default)."""
        lanes = self.new_lanes(fid, seg)
        if self.rules.ambush_rules == "free_attack" and any(self.setup.surprised):
            lanes.surprise = np.ones(lanes.n_fights, bool)
            self.ambush(lanes)
            lanes.surprise = None
        for _ in range(self.setup.ranged):
            self.range_round(lanes)
            lanes.round += 1
        return lanes

    def new_lanes(self, fid: np.ndarray, seg: np.ndarray) -> _Lanes:
        setup, n_slots, m = self.setup, self.n_slots, len(fid)
        lanes = _Lanes()
        lanes.n_fights = m
        lanes.fight = fid
        lanes.seg = None if self.single else seg
        lanes.done = np.zeros(m, bool)
        lanes.round = np.ones(m, np.int16)
        full = (1 << n_slots) - 1
        lanes.wound_points = [np.zeros(m, np.int32) for _ in range(n_slots)]
        lanes.standing = [np.ones(m, np.int8) for _ in range(n_slots)]
        lanes.skill_situation = [self.full(setup.situation_skill[full][i], lanes, np.int16)
                                 for i in range(n_slots)]
        if any(setup.untrained):
            self.natural_skills(lanes)
        if DODGE in setup.kinds or DODGE in setup.shot_kinds:
            lanes.dodge_situation = [self.full(setup.situation_dodge[full][i], lanes, np.int16)
                                     for i in range(n_slots)]
        lanes.defences = [np.zeros(m, np.int16) for _ in range(n_slots)]
        if self.own_const is None:
            lanes.own_penalty = [np.zeros(m, np.int16) for _ in range(n_slots)]
        lanes.attack_type = [self.full(self.type_const[i] if self.static_types else 0, lanes,
                                       np.int16) for i in range(n_slots)]
        lanes.damage = [np.zeros(m, np.int16) for _ in range(n_slots)]
        lanes.strike_rank = [np.zeros(m, np.int16) for _ in range(n_slots)]
        lanes.dice = [self.full(setup.dice[i], lanes, np.int8) for i in range(n_slots)]
        self.optional_state(lanes)
        return lanes

    def natural_skills(self, lanes: _Lanes) -> None:
        """An untrained fighter's skill, rolled for the fight."""
        n, sides, plus = R.natural_dice(self.rules.untrained_skill)
        lanes.natural_skill = []
        for i in range(self.n_slots):
            natural = np.zeros(lanes.n_fights, np.int16)
            if self.setup.untrained[i]:
                natural += np.int16(plus)
                for _ in range(n):
                    natural += (self.words(lanes, sides) % sides).astype(np.int16) + 1
            lanes.natural_skill.append(natural)
            lanes.skill_situation[i] += natural

    def optional_state(self, lanes: _Lanes) -> None:
        """The state of mechanisms somebody in the matchup can trigger."""
        setup, n_slots, m = self.setup, self.n_slots, lanes.n_fights
        if self.rules.carry_mode == "keep":
            lanes.kept_bonus = [np.zeros(m, np.int16) for _ in range(n_slots)]
        if setup.any_disarm:
            lanes.disarmed = [np.zeros(m, np.int8) for _ in range(n_slots)]
        if setup.any_berserk:
            lanes.berserk = [self.full(setup.berserk_start[i], lanes, np.int8)
                             for i in range(n_slots)]
        if setup.any_behind:
            lanes.behind = [np.full(m, -1, np.int16) for _ in range(n_slots)]
            lanes.behind_round = [np.zeros(m, np.int16) for _ in range(n_slots)]
        if setup.any_shield_limit:
            lanes.shield_foes = [np.zeros(m, np.int16) for _ in range(n_slots)]
        if setup.groups:
            lanes.target = [np.full(m, -1, np.int16) for _ in range(n_slots)]
        if self.rules.limb_destroyed == "crippled":
            lanes.crippled = [np.zeros(m, np.int8) for _ in range(n_slots)]
        if self.rules.action_economy == "budget":
            lanes.remaining = [np.zeros(m, np.int16) for _ in range(n_slots)]
        if setup.ranged:
            lanes.ammo = [self.full(setup.ammo[i], lanes, np.int16) for i in range(n_slots)]
            lanes.ready = [self.full(setup.reload[i], lanes, np.int16) for i in range(n_slots)]

    # --- one round -----------------------------------------------------------------------
    def play_round(self, lanes: _Lanes) -> None:
        rules, setup, n_slots = self.rules, self.setup, self.n_slots
        self.initiative(lanes)
        if setup.groups:
            self.round_targets(lanes)
        self.commit_types(lanes)
        if rules.action_economy == "budget":
            self.budget_round(lanes)
        elif n_slots == 2 and self.static_types:
            first = self.who(self.duel_first(lanes), lanes)
            second = self.who(1 - first.idx, lanes)
            for _ in range(rules.attacks_per_round):
                self.act(lanes, first)
                self.act(lanes, second)
        else:
            ranks = self.ranks(lanes, lanes.strike_rank)
            if any(setup.hold):
                ranks = self.hold(lanes, ranks)
            order = self.sr_order(lanes, ranks)
            for _ in range(rules.attacks_per_round):
                for who in order:
                    self.act(lanes, who)
        self.end_round(lanes)

    def sr_order(self, lanes: _Lanes, ranks: list[np.ndarray] | None = None) -> list[_Who]:
        """Who acts k-th in each fight, k = 0 .. n_slots-1, by Strike Rank and tie-breaks
        (or by ``ranks``: each slot's acting rank)."""
        n_slots = self.n_slots
        if ranks is None:
            ranks = self.ranks(lanes, lanes.strike_rank)
        order = []
        for k in range(n_slots):
            actor = np.zeros(lanes.n_fights, np.int16)
            for i in range(1, n_slots):
                actor += np.int16(i) * (ranks[i] == k)
            order.append(self.who(actor, lanes))
        return order

    def initiative(self, lanes: _Lanes) -> None:
        """Index Resolution of every fighter's dice: 5 -> +1, 6 -> +2; 5s and 6s carry."""
        setup = self.setup
        keep = self.rules.carry_mode == "keep"
        for i in range(self.n_slots):
            dice = lanes.dice[i]
            base = self.at(setup.base_strike_rank[i], lanes)
            # carry_mode="keep": a fight's dice are rolled once, in its first round, and
            # their bonus is kept (dice 0 afterwards)
            fixed = lanes.kept_bonus[i] + base if keep else base
            if not np.count_nonzero(dice):
                lanes.strike_rank[i][:] = fixed
                continue
            bonus, kept = initiative_from(self.words(lanes, 1296, None if self.single
                                                     else dice != 0), dice)
            np.add(bonus, fixed, out=lanes.strike_rank[i])
            if keep:
                lanes.kept_bonus[i] += bonus
                lanes.dice[i][:] = 0
            else:
                lanes.dice[i] = kept
        if self.lang is not None and "strike_rank" in self.lang:
            for i in range(self.n_slots):
                extra = self.lang.slot_total(self, lanes, "strike_rank", i)
                if extra is not None:
                    lanes.strike_rank[i] += extra

    def ranks(self, lanes: _Lanes, primary: list[np.ndarray], eligible: list[np.ndarray] | None
              = None, guard: np.ndarray | None = None) -> list[np.ndarray]:
        """Acting rank of each slot (0 acts first): Strike Rank, the tie-breaks, slot
        (a random tie-break drawn for the segments with a lane in ``guard``)."""
        setup, n_slots = self.setup, self.n_slots
        keys = []
        rand = None
        for i in range(n_slots):
            key = primary[i].astype(np.int64) + 64
            for tb in self.rules.sr_tiebreak:
                if tb == "action_cost":  # a cost in -16..47 keeps to its 6 bits
                    cost = np.int64(COST_TOP) - self.cost_of(lanes, i)
                    key = (key << 6) | cost
                elif tb == "dex":
                    key = (key << 7) | self.at(setup.dex[i], lanes)
                elif tb == "agility":
                    key = (key << 7) | self.at(setup.agility[i], lanes)
                else:
                    if rand is None:
                        rand = [self.raw31(lanes, guard) for _ in range(n_slots)]
                    key = (key << 31) | rand[i]
            key = (key << 4) | (15 - i)  # up to 12 slots
            dead = lanes.standing[i] == 0
            if eligible is not None:
                dead = dead | ~eligible[i]
            key[dead] = -1 - i
            keys.append(key)
        if n_slots == 2:
            r1 = (keys[0] > keys[1]).astype(np.int8)
            return [1 - r1, r1]
        out = []
        for i in range(n_slots):
            r = np.zeros(lanes.n_fights, np.int8)
            for j in range(n_slots):
                if j != i:
                    r += keys[j] > keys[i]
            out.append(r)
        return out

    def duel_first(self, lanes: _Lanes) -> np.ndarray:
        """Slot (0 or 1) that acts first in each duel: higher Strike Rank, then the
        tie-breaks, all constants here but the random one (000.2.4, :func:`_duel_tie`)."""
        sr0, sr1 = lanes.strike_rank
        first = sr1 > sr0
        tie = sr1 == sr0
        if isinstance(self.duel_tie, _Stack):
            rule = self.at(self.duel_tie, lanes)
            first |= tie & (rule > 0)
            if bool((self.duel_tie.table < 0).any()):
                first |= tie & (rule < 0) & self.coins(lanes, rule < 0)
        elif self.duel_tie < 0:
            first |= tie & self.coins(lanes)
        elif self.duel_tie:
            first |= tie
        return first.view(np.int8)

    def cost_of(self, lanes: _Lanes, i: int, budget: bool = False) -> np.ndarray:
        """Action cost of slot ``i``'s attack per lane (``budget``: the Actions it spends)."""
        c = self.setup.budget_cost[i] if budget else self.setup.cost[i]
        t = np.maximum(lanes.attack_type[i], 0)
        c0, c1, c2 = (self.at(c[j], lanes).astype(np.int64) for j in range(3))
        return c0 + (t == 1) * (c1 - c0) + (t == 2) * (c2 - c0)

    def round_targets(self, lanes: _Lanes) -> None:
        setup = self.setup
        for i in range(self.n_slots):
            need = lanes.standing[i] != 0
            if setup.target_policy[i] == 0:
                t = lanes.target[i]
                cur_alive = np.zeros(lanes.n_fights, bool)
                fronts = self.fronts(lanes) if setup.any_rear else None
                for j in range(self.n_slots):
                    if setup.side[j] != setup.side[i]:
                        up = (t == j) & (lanes.standing[j] != 0)
                        cur_alive |= up if fronts is None else (up & fronts[j])
                need &= ~cur_alive
            need &= ~lanes.done
            if np.count_nonzero(need):
                idx = need.nonzero()[0]
                lanes.target[i][idx] = self.pick(lanes, i, idx)

    def fronts(self, lanes: _Lanes) -> list[np.ndarray]:
        """Per slot, the lanes where it stands in its side's front rank: loose, or among the
        first ``rank_frontage`` living ranked fighters of its side (5.25 DEFAULT)."""
        setup, out = self.setup, []
        for j in range(self.n_slots):
            ahead = np.zeros(lanes.n_fights, np.int16)
            for k in setup.ranked_ahead[j]:
                ahead += lanes.standing[k]
            out.append(ahead < setup.rank_frontage if setup.ranked[j]
                       else np.ones(lanes.n_fights, bool))
        return out

    def pick(self, lanes: _Lanes, i: int, idx: np.ndarray, among: Sequence[int] | None = None
             ) -> np.ndarray:
        """A living foe of slot ``i`` in fights ``idx`` by its target policy (-1: none)."""
        setup = self.setup
        foes = [j for j in range(self.n_slots) if setup.side[j] != setup.side[i]
                and (among is None or j in among)]
        cand = [lanes.standing[j].take(idx) != 0 for j in foes]
        if setup.any_rear:  # a foe in a rear rank cannot be reached
            fronts = self.fronts(lanes)
            cand = [c & fronts[j].take(idx) for j, c in zip(foes, cand, strict=True)]
        m = len(idx)
        out = np.full(m, -1, np.int16)
        policy = setup.target_policy[i]
        if policy == 0:
            count = sum(c.astype(np.int16) for c in cand)
            r, _ = split(self.words_at(lanes, idx, 60), 60)
            r = r.astype(np.int16) % np.maximum(count, 1)  # 60: a multiple of 1, 2, ..., 6
            cum = np.zeros(m, np.int16)
            for j, c in zip(foes, cand, strict=True):
                hit = c & (cum == r) & (out < 0)
                out[hit] = j
                cum += c
            return out
        best = np.full(m, 1 << 30 if policy == 1 else -(1 << 30), np.int64)
        for j, c in zip(foes, cand, strict=True):
            left = self.at(setup.unconscious_at[j], lanes, idx).astype(np.int64) \
                - lanes.wound_points[j].take(idx)
            key = left * 256 + self.at(setup.skill[j], lanes, idx)
            better = c & ((key < best) if policy == 1 else (key > best))
            best[better] = key[better]
            out[better] = j
        return out

    def commit_types(self, lanes: _Lanes) -> None:
        """Attack type per fighter for the round (000.4): its policy against its target."""
        setup, n_slots = self.setup, self.n_slots
        if self.static_types:
            return
        whole = self.rules.attack_penalty_scope == "whole_round"
        for i in range(n_slots):
            typ: np.ndarray
            if setup.groups:
                t = np.maximum(lanes.target[i], 0)
                typ = self.lookup(_column(setup.best[i], 0), self.segs(lanes), t)
            else:
                typ = self.full(setup.best[i][1 - i][0], lanes, np.int16)
            if lanes.disarmed is not None:
                typ[lanes.disarmed[i] != 0] = -1
            lanes.attack_type[i] = typ
            self.type_effects(lanes, i, whole)

    def type_effects(self, lanes: _Lanes, i: int, whole: bool) -> None:
        setup = self.setup
        typ = lanes.attack_type[i]
        d0, d1, d2 = (self.at(setup.damage_mod[i][t], lanes) for t in range(3))
        lanes.damage[i] = d0 + (typ == 1) * (d1 - d0) + (typ == 2) * (d2 - d0)
        if whole and setup.any_own_penalty:
            lanes.own_penalty[i] = (typ == 1) * np.int16(-5) + (typ == 2) * np.int16(-10)
        elif not whole:
            lanes.own_penalty[i][:] = 0

    def hold(self, lanes: _Lanes, ranks: list[np.ndarray]) -> list[np.ndarray]:
        """Holding (5.2): a fighter on ``hold_policy="react"`` whose living target acts later
        and is not itself holding waits for it to declare, then acts just before it with
        its best answer to the declared type.  Returns each slot's new acting rank."""
        setup, n_slots, m = self.setup, self.n_slots, lanes.n_fights
        targets = [lanes.target[i] if setup.groups else np.full(m, 1 - i, np.int16)
                   for i in range(n_slots)]
        ranks16 = [r.astype(np.int16) for r in ranks]
        holding = [np.zeros(m, np.int8) for _ in range(n_slots)]
        for k in reversed(range(n_slots)):  # a target acts later: its status is known first
            for h in range(n_slots):
                if not setup.hold[h]:
                    continue
                at = (ranks16[h] == k) & (lanes.standing[h] != 0) & (targets[h] >= 0) \
                    & (lanes.attack_type[h] >= 0)
                if not np.count_nonzero(at):
                    continue
                tw = self.who(np.maximum(targets[h], 0), lanes)
                holds = at & (self.sel(lanes.standing, tw) != 0) \
                    & (self.sel(ranks16, tw) > k) & (self.sel(holding, tw) == 0)
                holding[h] |= holds.astype(np.int8)
        if not any(np.count_nonzero(x) for x in holding):
            return ranks
        keys = []
        whole = self.rules.attack_penalty_scope == "whole_round"
        for i in range(n_slots):
            key = ranks16[i] * np.int16(n_slots + 1) + np.int16(n_slots)
            if setup.hold[i] and np.count_nonzero(holding[i]):
                tw = self.who(np.maximum(targets[i], 0), lanes)
                held = holding[i] != 0
                key = np.where(held, self.sel(ranks16, tw) * np.int16(n_slots + 1) + ranks16[i],
                               key).astype(np.int16)
                # the best answer to the type the target declared
                declared = self.sel(lanes.attack_type, tw)
                answer = held & (declared >= 0)
                new = self.lookup(setup.best[i], self.segs(lanes),  # [target][k]
                                  tw.idx * 4 + np.maximum(declared, 0) + 1)
                lanes.attack_type[i] = np.where(answer, new, lanes.attack_type[i]).astype(np.int16)
                self.type_effects(lanes, i, whole)
            keys.append(key)
        out = []
        for i in range(n_slots):
            r = np.zeros(m, np.int8)
            for j in range(n_slots):
                if j != i:
                    r += keys[j] < keys[i]
            out.append(r)
        return out

    def budget_round(self, lanes: _Lanes) -> None:
        n_slots = self.n_slots
        for i in range(n_slots):
            lanes.remaining[i][:] = lanes.strike_rank[i]
        while True:
            costs = [self.cost_of(lanes, i, budget=True).astype(np.int16) for i in range(n_slots)]
            elig = [(lanes.standing[i] != 0) & (lanes.remaining[i] >= costs[i]) & ~lanes.done
                    for i in range(n_slots)]
            someone = elig[0].copy()
            for e in elig[1:]:
                someone |= e
            if not np.count_nonzero(someone):
                return
            ranks = self.ranks(lanes, lanes.remaining, elig, someone)
            actor = np.zeros(lanes.n_fights, np.int16)
            for i in range(1, n_slots):
                actor += np.int16(i) * (ranks[i] == 0)
            who = self.who(actor, lanes)
            anyone = np.zeros(lanes.n_fights, bool)
            for i in range(n_slots):
                go = elig[i] & who.hot[i]
                anyone |= go
                lanes.remaining[i] -= costs[i] * go
            self.act(lanes, who, anyone)

    def end_round(self, lanes: _Lanes) -> None:
        for x in lanes.defences:
            x[:] = 0
        if self.after_attack:
            for x in lanes.own_penalty:
                x[:] = 0
        if lanes.shield_foes is not None:
            for x in lanes.shield_foes:
                x[:] = 0
        if lanes.behind is not None and self.rules.behind_duration == "next_round":
            for b, r in zip(lanes.behind, lanes.behind_round, strict=True):
                b[(b >= 0) & (r + 1 <= lanes.round)] = -1

    # --- actions -------------------------------------------------------------------------
    def target_of(self, lanes: _Lanes, who: _Who, go: np.ndarray) -> tuple[np.ndarray, _Who]:
        """The target of ``who`` in lanes ``go``, re-picked where it has fallen (groups)."""
        n_slots = self.n_slots
        if not self.setup.groups:
            return go, self.who(1 - who.idx, lanes)
        tgt = self.sel(lanes.target, who)
        tw = self.who(np.maximum(tgt, 0), lanes)
        bad = go & ((tgt < 0) | (self.sel(lanes.standing, tw) == 0))
        if np.count_nonzero(bad):
            for i in range(n_slots):
                refit = (bad & who.hot[i]).nonzero()[0]
                if len(refit):
                    lanes.target[i][refit] = self.pick(lanes, i, refit)
            tgt = self.sel(lanes.target, who)
            go = go & (tgt >= 0)
            tw = self.who(np.maximum(tgt, 0), lanes)
        return go, tw

    def act(self, lanes: _Lanes, who: _Who, extra: np.ndarray | None = None) -> None:
        setup, n_slots = self.setup, self.n_slots
        go = (self.sel(lanes.standing, who) != 0) & ~lanes.done if setup.groups else ~lanes.done
        if extra is not None:
            go &= extra
        if lanes.surprise is not None:
            go &= ~(lanes.surprise & (self.cst(setup.surprised, who) != 0))
        if lanes.crippled is not None:
            go &= (self.sel(lanes.crippled, who) & 1) == 0
        unarmed = None
        if lanes.disarmed is not None:
            recovering = go & (self.sel(lanes.disarmed, who) != 0)
            if np.count_nonzero(recovering):
                if any(setup.fights_unarmed):  # fights on with its unarmed move instead
                    unarmed = recovering & (self.cst(setup.fights_unarmed, who) != 0)
                    recovering &= ~unarmed
                self.setv(lanes.disarmed, who, 0, recovering)
                go &= ~recovering
                if unarmed is not None:
                    go |= unarmed
        if setup.any_rear:  # in a rear rank: only a reach weapon strikes (5.25 DEFAULT)
            front = self.sel([f.astype(np.int8) for f in self.fronts(lanes)], who) != 0
            reach = self.cst(setup.reach, who) != 0
            if unarmed is not None:
                unarmed &= front
            go &= front | (reach & (self.sel(lanes.disarmed, who) == 0)
                           if lanes.disarmed is not None else front | reach)
        if not np.count_nonzero(go):
            return
        guard = go  # the draws of the attack: for the segments with a lane in it
        go, tw = self.target_of(lanes, who, go)
        if unarmed is not None:
            unarmed &= go
            go = go & ~unarmed
            if np.count_nonzero(unarmed):
                dmg = self.cst(setup.unarmed_damage, who) + self.pair(
                    setup.unarmed_damage_bonus, who, tw)
                self.attack(lanes, unarmed, who, tw, self.lang_damage(lanes, dmg, "unarmed_damage",
                                                                       who, tw), 0,
                            totals=setup.unarmed_attack_total, ctx="unarmed_")
            if not np.count_nonzero(go):
                return
            guard = go
        if self.after_attack and setup.any_own_penalty:
            # the swing / blow penalty starts with the attack (attack_penalty_scope)
            for i in range(n_slots):
                t = lanes.attack_type[i]
                pen = (t == 1) * np.int16(-5) + (t == 2) * np.int16(-10)
                change = (pen - lanes.own_penalty[i]) * (go & who.hot[i])
                lanes.own_penalty[i] += change.astype(np.int16)
        behind = None
        if lanes.behind is not None:
            beh = self.sel(lanes.behind, who)
            behind = go & (beh == tw.idx)
            if np.count_nonzero(behind):
                self.setv(lanes.behind, who, -1, behind)
            else:
                behind = None
        dmg = self.cst(self.damage_const, who) if self.static_types else self.sel(lanes.damage, who)
        dmg = self.lang_damage(lanes, dmg + self.pair(setup.damage_bonus, who, tw), "damage",
                               who, tw)
        self.attack(lanes, go, who, tw, dmg, 0, behind=behind, guard=guard)

    def lang_damage(self, lanes: _Lanes, dmg: Any, key: str, who: _Who, tw: _Who) -> Any:
        """``dmg`` with the per-fight damage rows of ``key`` added (int16)."""
        if self.lang is None:
            return dmg
        extra = self.lang.total(self, lanes, key, who, tw)
        return dmg if extra is None else (dmg + extra).astype(np.int16)

    def lang_add(self, lanes: _Lanes, value: Any, key: str, who: _Who, other: _Who) -> Any:
        """``value`` with the per-fight rows of ``key`` (``attack``, ``dodge``, ...) added."""
        if self.lang is None:
            return value
        extra = self.lang.total(self, lanes, key, who, other)
        return value if extra is None else value + extra

    # --- the range phase (000.10 DEFAULT) -----------------------------------------------
    def range_round(self, lanes: _Lanes) -> None:
        """A round before the sides close: in Strike Rank order, one range action each
        (reload, aim or shoot) for fighters with shots; the others close in."""
        n_slots = self.n_slots
        self.initiative(lanes)
        if self.setup.groups:
            self.round_targets(lanes)
        self.commit_types(lanes)  # the melee type's action cost breaks Strike Rank ties
        if n_slots == 2 and self.static_types:
            first = self.who(self.duel_first(lanes), lanes)
            order = [first, self.who(1 - first.idx, lanes)]
        else:
            order = self.sr_order(lanes)
        for who in order:
            self.shoot(lanes, who)
        self.end_round(lanes)

    def shoot(self, lanes: _Lanes, who: _Who) -> None:
        """One range action of ``who``: reload, aim, or a shot against Dodge or a shield
        parry (no riposte, no getting behind), hits wounding as in melee."""
        setup, rules = self.setup, self.rules
        go = (self.sel(lanes.standing, who) != 0) & ~lanes.done if setup.groups else ~lanes.done
        go &= self.sel(lanes.ammo, who) > 0
        if lanes.crippled is not None:
            go &= (self.sel(lanes.crippled, who) & 1) == 0
        if not np.count_nonzero(go):
            return
        go, d = self.target_of(lanes, who, go)
        prep = go & (self.sel(lanes.ready, who) < self.cst(setup.shot_cost, who))
        if np.count_nonzero(prep):
            self.addv(lanes.ready, who, 1, prep)
            go &= ~prep
        if not np.count_nonzero(go):
            return
        self.setv(lanes.ready, who, 0, go)
        self.addv(lanes.ammo, who, np.int16(-1), go)
        m = lanes.n_fights
        x, y = opposed_from(self.words(lanes, 400, go))
        a_total = self.pair(setup.shot_total, who, d) + self.sel(lanes.skill_situation, who) + x
        a_total = self.lang_add(lanes, a_total, "shot", who, d)
        sk_d = self.sel(lanes.skill_situation, d)
        dg_d = self.sel(lanes.dodge_situation, d) if lanes.dodge_situation is not None else None
        ndef = self.sel(lanes.defences, d)
        bers = self.sel(lanes.berserk, d) if lanes.berserk is not None else None
        crip = self.sel(lanes.crippled, d) if lanes.crippled is not None else None
        options = []
        for k in setup.shot_kinds:
            tot = self.pair(setup.shot_defence[k], d, who) + (dg_d if k == DODGE else sk_d)
            tot = self.lang_add(lanes, tot, KR.defence_key(k), d, who)
            if any(setup.step[k]):
                tot = tot + ndef * self.cst(setup.step[k], d)
            no = None
            if bers is not None:
                tot = tot + self.berserker(k, d, bers)
                if k == DODGE:
                    no = bers != 0
            if k == WEAPON_PARRY and lanes.disarmed is not None:
                c = self.sel(lanes.disarmed, d) != 0
                no = c if no is None else (no | c)
            if crip is not None:
                c = (crip & {WEAPON_PARRY: 1, SHIELD_PARRY: 2, DODGE: 4}[k]) != 0
                no = c if no is None else (no | c)
            if no is not None:
                tot = tot + (np.int16(UNAVAILABLE - 1000) - tot) * no
            options.append((k, tot))
        _, d_fixed, defended = self.best_defence(options, d, m)
        margin = a_total - d_fixed - y
        if rules.tie_rule == "add_d20":
            self.break_ties(lanes, margin, go & defended)
        self.addv(lanes.defences, d, 1, go & defended)
        hit = go & (~defended | (margin > 0))
        if self.lang is not None:
            self.lang.fire(self, lanes, "shot_miss", go & ~hit, who, d)
        if not np.count_nonzero(hit):
            return
        dmg = np.broadcast_to(self.cst(setup.missile_damage, who)
                              + self.pair(setup.missile_damage_bonus, who, d), (m,))
        dmg = self.lang_damage(lanes, dmg.astype(np.int16), "shot_damage", who, d)
        self.wound(lanes, hit, who, d, dmg, self.blocks(hit & defended, margin), None)
        if self.lang is not None:
            self.lang.fire(self, lanes, "shot_hit", hit, who, d)

    def berserker(self, k: int, d: _Who, berserk: np.ndarray) -> Any:
        """The berserker modifier on ``d``'s defence of kind ``k``, berserk or not."""
        mods = self.setup.berserker_mod[k]
        b0 = self.cst(_column(mods, 0), d)
        b1 = self.cst(_column(mods, 1), d)
        return b0 + (b1 - b0) * berserk

    def blocks(self, hit: np.ndarray, margin: np.ndarray) -> np.ndarray | None:
        """Attacker's overpower blocks (at most 7) in the defended lanes ``hit`` (000.6)."""
        strict = self.rules.overpower_strict
        strong = hit & (margin >= T.OVERPOWER_BLOCK + int(strict))
        if not np.count_nonzero(strong):
            return None
        mm = np.maximum(margin, 1)
        blocks = (mm - 1) // 20 if strict else mm // 20
        return np.minimum(blocks * strong, 7).astype(np.int16)

    def ambush(self, lanes: _Lanes) -> None:
        """5.21 default: each fighter not surprised attacks a surprised foe, undefended."""
        setup, n_slots = self.setup, self.n_slots
        surprised = [i for i in range(n_slots) if setup.surprised[i]]
        for i in range(n_slots):
            if setup.surprised[i]:
                continue
            foes = [j for j in surprised if setup.side[j] != setup.side[i]]
            if not foes:
                continue
            idx = np.arange(lanes.n_fights)
            if setup.groups:
                t = self.pick(lanes, i, idx, among=foes)
                lanes.target[i][:] = t
            else:
                t = np.full(lanes.n_fights, foes[0], np.int16)
            go = (lanes.standing[i] != 0) & ~lanes.done & (t >= 0)
            if not np.count_nonzero(go):
                continue
            who = self.who(np.full(lanes.n_fights, i, np.int16), lanes)
            tw = self.who(np.maximum(t, 0), lanes)
            typ = self.lookup(_column(setup.best[i], 0), self.segs(lanes), tw.idx)
            d0, d1, d2 = (self.at(setup.damage_mod[i][x], lanes) for x in range(3))
            dmg = d0 + (typ == 1) * (d1 - d0) + (typ == 2) * (d2 - d0) \
                + self.pair(setup.damage_bonus, who, tw)
            dmg = self.lang_damage(lanes, dmg.astype(np.int16), "damage", who, tw)
            self.wound(lanes, go, who, tw, dmg, None, None)
            if self.lang is not None:
                self.lang.fire(self, lanes, "hit", go, who, tw)

    # --- an attack -----------------------------------------------------------------------
    def attack(self, lanes: _Lanes, go: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray, depth: int,
               *, behind: np.ndarray | None = None, no_parry: np.ndarray | None = None,
               totals: Any = None, ctx: str = "", guard: np.ndarray | None = None) -> None:
        """Attack of ``a`` on ``d`` in the lanes ``go`` (000.3-000.6), and its sequels;
        ``ctx`` ``"unarmed_"`` for an attack with the unarmed move (its rows); the dice are
        drawn for the segments with a lane in ``guard`` (default ``go``)."""
        setup, rules = self.setup, self.rules
        x, y = opposed_from(self.words(lanes, 400, go if guard is None else guard))
        a_total = (self.pair(totals if totals is not None else setup.attack_total, a, d)
                   + self.sel(lanes.skill_situation, a) + x)
        a_total = self.lang_add(lanes, a_total, ctx + "attack", a, d)
        kind, d_fixed, defended = self.defence(lanes, a, d, behind, no_parry)
        margin = a_total - d_fixed - y
        if rules.tie_rule == "add_d20":
            self.break_ties(lanes, margin, go & defended)
        active_def = go & defended
        self.addv(lanes.defences, d, 1, active_def)
        if lanes.shield_foes is not None:
            shield_used = active_def & ((kind == SHIELD_PARRY) | (kind == BOTH_PARRY))
            if np.count_nonzero(shield_used):
                bit = (np.int16(1) << a.idx).astype(np.int16)
                for i in range(self.n_slots):
                    lanes.shield_foes[i] |= bit * (shield_used & d.hot[i])
        hit = go & (~defended | (margin > 0))
        if setup.any_knight:
            kd = hit & defended & (kind != DODGE) & (kind != BLOCK) \
                & (self.cst(setup.knight_double, d) != 0)
            if np.count_nonzero(kd):
                margin, kind, hit = self.knight_block(lanes, kd, a, d, a_total, margin, kind, hit)
        # hits
        if np.count_nonzero(hit):
            self.wound(lanes, hit, a, d, dmg, self.blocks(hit & defended, margin), None)
            if self.lang is not None:
                self.lang.fire(self, lanes, ctx + "hit", hit, a, d)
        # defences that succeeded
        miss = go & defended & ~hit
        if np.count_nonzero(miss):
            self.defended(lanes, miss, a, d, dmg, -margin, kind, depth, ctx)

    def defence(self, lanes: _Lanes, a: _Who, d: _Who, behind: np.ndarray | None,
                no_parry: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The defender's choice (000.5) per lane: (kind, its total, defended at all)."""
        setup, m = self.setup, lanes.n_fights
        if self.single_kind is not None:
            k = self.single_kind
            kind = np.full(m, k, np.int8)
            return (kind, self.defence_total(lanes, k, a, d, None, self.defender(lanes, d)),
                    np.ones(m, bool))
        blocked_parry = behind if no_parry is None else (
            no_parry if behind is None else (behind | no_parry))
        options = []
        state = self.defender(lanes, d)
        for k in setup.kinds:
            tot = self.defence_total(lanes, k, a, d, behind, state)
            no = self.unavailable(lanes, k, a, d, blocked_parry, state)
            if no is not None:
                tot += (np.int16(UNAVAILABLE - 1000) - tot) * no
            options.append((k, tot))
        kind, d_fixed, defended = self.best_defence(options, d, m)
        if lanes.surprise is not None:
            defended &= ~(lanes.surprise & (self.cst(setup.surprised, d) != 0))
        return kind, d_fixed, defended

    def best_defence(self, options: Sequence[tuple[int, Any]], d: _Who, m: int
                     ) -> tuple[np.ndarray, Any, np.ndarray]:
        """Of the defences ``options`` (kind, total per lane; an unavailable one far below
        any real total), the one ``d`` chooses per lane -- the best total after the
        policy's preference, the first on ties: (kind, its total, defended at all)."""
        setup = self.setup
        kind = np.zeros(m, np.int8)
        if not options:
            return kind, np.zeros(m, np.int16), np.zeros(m, bool)
        def scored(k: int, tot: Any) -> Any:
            pref = setup.preferred[k]
            return tot + self.cst(pref, d) if any(pref) else tot

        first, d_fixed = options[0]
        kind[:] = first
        best_score = scored(first, d_fixed)
        for k, tot in options[1:]:
            score = scored(k, tot)
            better = score > best_score
            best_score = np.maximum(best_score, score)
            d_fixed = d_fixed + (tot - d_fixed) * better
            kind += ((k - kind) * better).astype(np.int8)
        defended = np.asarray(best_score > DEFENDED)
        if any(setup.undefending):
            defended &= self.cst(setup.undefending, d) == 0
        return kind, d_fixed, defended

    def defender(self, lanes: _Lanes, d: _Who) -> _Defender:
        """What every kind of ``d``'s defence reads, read once for the attack."""
        setup, state = self.setup, _Defender()
        state.skill = self.sel(lanes.skill_situation, d)
        state.dodge = (self.sel(lanes.dodge_situation, d) if DODGE in setup.kinds
                       else None)
        state.own = self.own_of(lanes, d)
        state.defences = None
        if any(any(setup.step[k]) for k in setup.kinds):
            ndef = self.sel(lanes.defences, d)
            state.defences = ndef if np.count_nonzero(ndef) else None
        state.berserk = self.sel(lanes.berserk, d) if lanes.berserk is not None else None
        state.disarmed = (self.sel(lanes.disarmed, d) != 0 if lanes.disarmed is not None
                          else None)
        return state

    def defence_total(self, lanes: _Lanes, k: int, a: _Who, d: _Who,
                      behind: np.ndarray | None, state: _Defender) -> Any:
        """``d``'s total on a defence of kind ``k`` against ``a``: static part + situation
        (halved from behind) + own type penalty + cumulative penalty + berserker modifier
        (``state``: what it reads of ``d``, :meth:`defender`)."""
        setup, rules = self.setup, self.rules
        sit = state.dodge if k == DODGE else state.skill
        sit = self.lang_add(lanes, sit, KR.defence_key(k), d, a)
        tot = self.pair(setup.defence_total[k], d, a) + sit
        if behind is not None and k in (DODGE, BLOCK):
            # at half skill: the skill halved, or the whole with situation and wounds
            if rules.half_skill_mode == "with_mods":
                half = tot // 2
            else:
                half = self.pair(setup.defence_half[k], d, a) + sit
                if k == BLOCK and lanes.natural_skill is not None:
                    natural = self.sel(lanes.natural_skill, d)  # halved like a skill
                    half = half - (natural - natural // 2)
            tot = tot + (half - tot) * behind
        if state.own is not None and (k != BLOCK or rules.swing_penalty_armour_block):
            tot += state.own
        step = setup.step[k]
        if state.defences is not None and any(step):
            tot += state.defences * self.cst(step, d)
        if state.berserk is not None and self.single_kind is None:
            tot += self.berserker(k, d, state.berserk)
        return tot

    def unavailable(self, lanes: _Lanes, k: int, a: _Who, d: _Who,
                    blocked_parry: np.ndarray | None, state: _Defender) -> np.ndarray | None:
        """Lanes where ``d`` cannot make a defence of kind ``k`` now (``None``: none)."""
        no = None

        def add(c: np.ndarray) -> None:
            nonlocal no
            no = c if no is None else (no | c)

        crip_d = self.sel(lanes.crippled, d) if lanes.crippled is not None else None
        if k in (WEAPON_PARRY, SHIELD_PARRY, BOTH_PARRY) and blocked_parry is not None:
            add(blocked_parry.copy())
        if k in (WEAPON_PARRY, BOTH_PARRY):
            if state.disarmed is not None:
                add(state.disarmed)
            if crip_d is not None:
                add((crip_d & 1) != 0)
        if k in (SHIELD_PARRY, BOTH_PARRY):
            if crip_d is not None:
                add((crip_d & 2) != 0)
            if lanes.shield_foes is not None:
                add(~self.shield_ok(lanes, d, a))
        if k == DODGE:
            if state.berserk is not None:
                add(state.berserk != 0)
            if crip_d is not None:
                add((crip_d & 4) != 0)
        return no

    def defended(self, lanes: _Lanes, miss: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray,
                 won: np.ndarray, kind: np.ndarray, depth: int, ctx: str) -> None:
        """The sequels of the defences that succeeded in the lanes ``miss`` (by ``won``):
        the double Armour block, getting behind after a dodge, a riposte or disarm after
        a parry (000.6)."""
        setup, rules = self.setup, self.rules
        if self.lang is not None:
            self.lang.fire(self, lanes, ctx + "miss", miss, a, d)
        # a block is chosen (a kind of the setup) or a Knight's after a failed parry
        if rules.armour_block_success == "double_armour" and (BLOCK in setup.kinds
                                                              or setup.any_knight):
            dbl = miss & (kind == BLOCK)
            if np.count_nonzero(dbl):
                self.wound(lanes, dbl, a, d, dmg, None, 2)
        need = T.OVERPOWER_BLOCK + int(rules.overpower_strict)
        big = miss & (won >= need)
        if not np.count_nonzero(big):
            return
        if setup.any_behind:
            dodged = big & (kind == DODGE)
            if np.count_nonzero(dodged):
                self.setv(lanes.behind, d, a.idx, dodged)
                self.setv(lanes.behind_round, d, lanes.round, dodged)
        parried = big & (kind != DODGE) & (kind != BLOCK)
        if np.count_nonzero(parried) and (setup.any_riposte or setup.any_disarm):
            self.parry_overpower(lanes, parried, a, d, won, kind, depth)

    def own_of(self, lanes: _Lanes, d: _Who) -> np.ndarray | None:
        """The swing / blow penalty on ``d``'s parries and dodges now (``None``: none)."""
        if not self.setup.any_own_penalty:
            return None
        if self.own_const is not None:
            return self.cst(self.own_const, d)
        return self.sel(lanes.own_penalty, d)

    def shield_ok(self, lanes: _Lanes, d: _Who, a: _Who) -> np.ndarray:
        setup = self.setup
        mask = self.sel(lanes.shield_foes, d)
        seen = ((mask >> a.idx) & 1) != 0
        count = np.zeros(lanes.n_fights, np.int16)
        for b in range(self.n_slots):
            count += (mask >> b) & 1
        return seen | (count < self.cst(setup.shield_opponents, d))

    def break_ties(self, lanes: _Lanes, margin: np.ndarray, among: np.ndarray) -> None:
        tie = (among & (margin == 0)).nonzero()[0]
        while len(tie):
            x, y = opposed_from(self.words_at(lanes, tie, 400))
            margin[tie] += x - y
            tie = tie[margin[tie] == 0]

    def knight_block(self, lanes: _Lanes, kd: np.ndarray, a: _Who, d: _Who, a_total: np.ndarray,
                     margin: np.ndarray, kind: np.ndarray, hit: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The Knight's Armour block after a failed parry, at the next defence step."""
        setup, rules = self.setup, self.rules
        tot = self.pair(setup.block_total, d, a) + self.sel(lanes.skill_situation, d)
        tot = self.lang_add(lanes, tot, "armour_block", d, a)
        tot += self.sel(lanes.defences, d) * self.cst(setup.step[BLOCK], d)
        if rules.swing_penalty_armour_block and setup.any_own_penalty:
            tot += self.own_of(lanes, d)
        if lanes.berserk is not None:
            tot += self.berserker(BLOCK, d, self.sel(lanes.berserk, d))
        _, y = opposed_from(self.words(lanes, 400, kd))
        m2 = a_total - tot - y
        if rules.tie_rule == "add_d20":
            self.break_ties(lanes, m2, kd)
        self.addv(lanes.defences, d, 1, kd)
        margin = margin + (m2 - margin) * kd
        kind = kind + ((BLOCK - kind) * kd).astype(np.int8)
        hit = hit & (~kd | (m2 > 0))
        return margin, kind, hit

    def parry_overpower(self, lanes: _Lanes, parried: np.ndarray, a: _Who, d: _Who,
                        won: np.ndarray, kind: np.ndarray, depth: int) -> None:
        """Riposte, shield riposte or disarm after a parry by 20+ (5.5, 5.6 Shieldman)."""
        setup, rules = self.setup, self.rules
        policy = self.cst(setup.riposte_policy, d)
        ok = parried & (policy != 2)
        if lanes.disarmed is not None:
            ok &= self.sel(lanes.disarmed, d) == 0
        if lanes.crippled is not None:
            ok &= (self.sel(lanes.crippled, d) & 1) == 0
        if not np.count_nonzero(ok):
            return
        if setup.any_disarm:
            dis = ok & (policy == 1) & (won >= T.DISARM_MARGIN + int(rules.overpower_strict))
            dis &= self.sel(lanes.disarmed, a) == 0  # a foe already disarmed: riposte
            if np.count_nonzero(dis):
                self.setv(lanes.disarmed, a, 1, dis)
                ok &= ~dis
        ok &= self.cst(setup.can_riposte, d) != 0
        if depth >= rules.max_riposte_depth or not np.count_nonzero(ok):
            return
        idx = ok.nonzero()[0]
        sub_lanes = lanes.take(idx)
        sa, sd = a.take(idx), d.take(idx)
        shield = None
        if any(setup.shieldman_riposte):
            k = kind.take(idx)
            shield = ((k == SHIELD_PARRY) | (k == BOTH_PARRY)) & (
                self.cst(setup.shieldman_riposte, sd) != 0)
            if not np.count_nonzero(shield):
                shield = None
        go = np.ones(len(idx), bool)
        dmg = self.cst(setup.riposte_damage, sd) + self.pair(setup.damage_bonus, sd, sa)
        self.attack(sub_lanes, go, sd, sa, self.lang_damage(sub_lanes, dmg, "damage", sd, sa),
                    depth + 1, no_parry=shield)
        lanes.put(idx, sub_lanes)

    # --- wounds --------------------------------------------------------------------------
    def wound(self, lanes: _Lanes, hit: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray,
              blocks: np.ndarray | None, armour_mult: int | None) -> None:
        """Resolve the hits in lanes ``hit``: location, Wound Matrix, rank shifts, armour,
        death and the wound code (000.8.4); the dice word is drawn for the segments with
        a lane in ``hit``."""
        code, _ = split(self.words(lanes, 720, hit), 720)
        shift, forced, disarm = self.overpower_spent(lanes, a, d, blocks)
        value, loc, rank = self.hit_values(lanes, hit, a, d, dmg, code, shift, forced,
                                           armour_mult)
        self.take_wounds(lanes, hit, a, d, value, loc, rank, disarm)

    def overpower_spent(self, lanes: _Lanes, a: _Who, d: _Who, blocks: np.ndarray | None
                        ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        """(rank shift, forced location or -1, disarm) per lane from the attacker's
        overpower blocks, berserk and the assassin's surprise (``None``: nowhere)."""
        setup, m = self.setup, lanes.n_fights
        shift = forced = disarm = None
        if blocks is not None:
            bidx = blocks.nonzero()[0]
            if len(bidx):
                key = a.idx.take(bidx) * 8 + blocks.take(bidx)
                seg = self.segs(lanes, bidx)
                shift = np.zeros(m, np.int16)
                shift[bidx] = self.lookup(setup.overpower_shift, seg, key)
                loc = self.lookup(setup.overpower_location, seg, key)
                if np.count_nonzero(loc >= 0):
                    forced = np.full(m, -1, np.int16)
                    forced[bidx] = loc
                if setup.any_disarm:
                    disarm = np.zeros(m, bool)
                    disarm[bidx] = self.lookup(setup.overpower_disarm, seg, key) != 0
                    again = disarm & (self.sel(lanes.disarmed, d) != 0)  # R.disarm_fallback
                    if np.count_nonzero(again):
                        disarm &= ~again
                        fallback = R.disarm_fallback(self.rules)
                        if fallback == "rank":
                            shift += again
                        elif fallback == "location":
                            forced = np.where(again, T.HEAD, -1 if forced is None else forced
                                              ).astype(np.int16)
        if lanes.berserk is not None:
            extra = self.sel(lanes.berserk, a).astype(np.int16)
            shift = extra if shift is None else shift + extra
        if lanes.surprise is not None and setup.any_assassin_surprise:
            extra = lanes.surprise * self.cst(setup.assassin, a) * self.cst(setup.surprised, d)
            shift = extra if shift is None else shift + extra
        return shift, forced, disarm

    def hit_values(self, lanes: _Lanes, hit: np.ndarray, a: _Who, d: _Who, dmg: np.ndarray,
                   code: np.ndarray, shift: np.ndarray | None, forced: np.ndarray | None,
                   armour_mult: int | None) -> tuple[np.ndarray, Any, Any]:
        """(value, location, rank) of each hit (:func:`wound_outcome`).  A plain hit (no
        rank shift, no called shot) is a lookup in the matchup's wound table by (attacker,
        defender, damage modifier, dice word); shifted or called hits are computed on their
        subset by the function that built the table.  Location and rank only where the
        rules need them (crippling, knock-outs)."""
        setup, rules, m = self.setup, self.rules, lanes.n_fights
        ar, dr = (a.idx, d.idx) if a.key is None else (a.key, d.key)
        if self.detail or armour_mult is not None or self.wound_table is None:
            return wound_outcome(setup, rules, ar, dr, dmg, code, shift, forced,
                                 armour_mult or 1)
        rows = self.pair(self.wound_rows, a, d)
        index = (np.asarray(rows).astype(np.intp) + dmg) * 720 + code
        value = self.wound_table.take(index)
        special = None
        if shift is not None:
            special = shift != 0
        if forced is not None:
            special = (forced >= 0) if special is None else (special | (forced >= 0))
        if special is not None:
            si = (special & hit).nonzero()[0]
            if len(si):
                value[si] = wound_outcome(
                    setup, rules, ar.take(si), dr.take(si), np.broadcast_to(dmg, (m,)).take(si),
                    code.take(si), None if shift is None else shift.take(si),
                    None if forced is None else forced.take(si), 1)[0]
        return value, None, None

    def take_wounds(self, lanes: _Lanes, hit: np.ndarray, a: _Who, d: _Who, value: np.ndarray,
                    loc: Any, rank: Any, disarm: np.ndarray | None) -> None:
        """The hits' effects on ``d``: knock-outs, crippled limbs, wound points, the wounded
        penalty, disarms, berserk on a first wound, and fighters going out."""
        setup, rules = self.setup, self.rules
        hurt = hit & (value >= 0)
        lethal = hit & (value < 0) & (value > NO_WOUND)
        cause_code = value  # -1 instant death, -2 limb destroyed, where lethal
        if self.detail:
            head = loc == T.HEAD
            if any(setup.knockout):
                ko = hurt & head & (self.cst(setup.knockout, a) != 0) \
                    & (rank + self.cst(setup.footpad, a) >= T.S)
                if np.count_nonzero(ko):
                    lethal = lethal | ko
                    hurt = hurt & ~ko
                    cause_code = np.where(ko, KO_CODE, cause_code)
            if lanes.crippled is not None:
                limb = ~head & (loc != T.CHEST) & (loc != T.ABDOMEN)
                cr = hurt & limb & (rank >= T.LIMB_DESTROYED_RANK)
                if np.count_nonzero(cr):
                    bit = np.where(loc == T.WEAPON_ARM, 1, np.where(loc == T.OFF_ARM, 2, 4))
                    for i in range(self.n_slots):
                        lanes.crippled[i] |= (bit * (cr & d.hot[i])).astype(np.int8)
        gain = value * hurt
        old = self.sel(lanes.wound_points, d)
        for i in range(self.n_slots):
            lanes.wound_points[i] += gain * d.hot[i]
        pts = old + gain
        out = lethal | (hurt & (pts >= self.cst(setup.unconscious_at, d)))
        if rules.wounded_penalty:
            w = self.cst(setup.wounded_at, d)
            crossed = hurt & ~out & (pts >= w) & (old < w)
            if np.count_nonzero(crossed):
                self.addv(lanes.skill_situation, d, np.int16(rules.wounded_penalty), crossed)
                if lanes.dodge_situation is not None:
                    self.addv(lanes.dodge_situation, d, np.int16(rules.wounded_penalty), crossed)
        standing = hit & ~out
        if disarm is not None:
            self.setv(lanes.disarmed, d, 1, standing & disarm)
        if lanes.berserk is not None and any(setup.berserk_on_wound):
            trig = standing & hurt & (self.cst(setup.berserk_on_wound, d) != 0)
            self.setv(lanes.berserk, d, 1, trig)
        if np.count_nonzero(out):
            idx = out.nonzero()[0]
            cc = np.maximum(cause_code.take(idx), KO_CODE) - KO_CODE
            cause = _CAUSE_OF_CODE.take(np.minimum(cc, 4))
            rows = d.idx if d.key is None else d.key
            killed = pts.take(idx) >= _per_slot(setup.killed_at, rows.take(idx), self.n_slots,
                                                dtype=np.int32)
            cause[(cc >= 4) & killed] = KILLED
            self.put_out(lanes, idx, d, cause)

    def put_out(self, lanes: _Lanes, idx: np.ndarray, d: _Who, cause: np.ndarray) -> None:
        """Fighters ``d`` of fights ``idx`` go out with ``cause``; finished fights are
        recorded."""
        setup, n_slots = self.setup, self.n_slots
        d_out = d.idx.take(idx)
        if not setup.groups:  # a duel ends with its first fighter out
            fid = lanes.fight.take(idx)
            self.winner[fid] = np.int8(Winner.A) + (d_out == 0)
            self.cause[fid] = cause
            self.rounds[fid] = lanes.round.take(idx)
            lanes.done[idx] = True
            return
        for i in range(n_slots):
            lanes.standing[i][idx[d_out == i]] = 0
        a_up = np.zeros(len(idx), bool)
        b_up = np.zeros(len(idx), bool)
        for i in range(n_slots):
            up = lanes.standing[i].take(idx) != 0
            if setup.side[i] == 0:
                a_up |= up
            else:
                b_up |= up
        ended = ~a_up | ~b_up
        winner = np.where(a_up, np.int8(Winner.A), np.int8(Winner.B))
        going = idx[~ended]
        if len(going):
            mask = np.zeros(len(going), np.int32)
            for i in range(n_slots):
                mask |= (lanes.standing[i].take(going).astype(np.int32)) << i
            seg = self.segs(lanes, going)
            wpen = self.rules.wounded_penalty
            for i in range(n_slots):
                at = mask * np.int32(n_slots) + i  # [alive mask][slot]
                wounded = lanes.wound_points[i].take(going) >= self.at(setup.wounded_at[i],
                                                                      lanes, going)
                lanes.skill_situation[i][going] = self.lookup(setup.situation_skill, seg, at) \
                    + wpen * wounded
                if lanes.natural_skill is not None:
                    lanes.skill_situation[i][going] += lanes.natural_skill[i].take(going)
                if lanes.dodge_situation is not None:
                    lanes.dodge_situation[i][going] = self.lookup(setup.situation_dodge, seg,
                                                                  at) + wpen * wounded
        ended &= ~lanes.done.take(idx)
        if np.count_nonzero(ended):
            fights = idx[ended]
            fid = lanes.fight.take(fights)
            self.winner[fid] = winner[ended]
            self.cause[fid] = cause[ended]
            self.rounds[fid] = lanes.round.take(fights)
            lanes.done[fights] = True


def _wound_tables(setups: Sequence[_Setup]) -> tuple[np.ndarray | None, Any]:
    """The wound tables of a batch's segments, one after another, and each segment's rows
    into them (``[a][d]``: the block of 720 dice words of its damage modifier 0)."""
    tables = [_cached_wound_table(s) for s in setups]
    if tables[0][0] is None:
        return None, None
    n_slots = setups[0].n_slots
    parts: list[np.ndarray] = []
    start: dict[int, int] = {}  # a table shared by several segments is stored once
    rows = []
    for table, n_dmg, low in tables:
        assert table is not None
        if id(table) not in start:
            start[id(table)] = sum(len(p) for p in parts) // 720
            parts.append(table)
        base = start[id(table)]
        rows.append(tuple(tuple(base + (i * n_slots + j) * n_dmg - low for j in range(n_slots))
                          for i in range(n_slots)))
    return (parts[0] if len(parts) == 1 else np.concatenate(parts)), _combine(rows)


@lru_cache(maxsize=512)
def _cached_wound_table(setup: _Setup) -> tuple[np.ndarray | None, int, int]:
    if setup.rules.limb_destroyed == "crippled" or any(setup.knockout):
        return None, 0, 0
    if KR.damage_range(setup.lang) is None:  # unbounded per-fight damage: computed per hit
        return None, 0, 0
    return _wound_table(setup, setup.rules)


def wound_outcome(setup: _Setup, rules: Rules, a: np.ndarray, d: np.ndarray, dmg: np.ndarray,
                  code: np.ndarray, shift: np.ndarray | None, forced: np.ndarray | None,
                  armour_mult: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What one hit does, per lane: (value, location, rank); ``a`` and ``d`` index the
    per-slot tables (a slot, or ``segment * n_slots + slot`` in a batch's stacked tables).

    ``code`` (0..719) is the dice word: d20 location face ``code % 20`` and 2d6 from
    ``code // 20``.  ``value`` is the wound points gained, or -1 (instant death), -2 (limb
    destroyed, with ``limb_destroyed="out"``) or :data:`NO_WOUND` (armour stopped it).
    """
    code = code.astype(np.uint16, copy=False)
    face, dice6 = split(code, 20)
    d1, d2 = split(dice6, 6)
    roll = dmg.astype(np.int16) + d1.view(np.int16) + d2.view(np.int16) + np.int16(2)
    face = face.view(np.int16)
    if setup.any_aim:
        face = np.clip(face + _per_slot(setup.aim_shift, a, setup.n_slots), 0, 19
                       ).astype(np.int16)
    loc = np.zeros(len(code), np.int16)
    for edge in setup.hit_edges:
        loc += face >= edge
    if forced is not None:
        loc = np.where(forced >= 0, forced, loc).astype(np.int16)
    if shift is not None and rules.rank_shift_mode == "roll_plus_3":
        roll = (roll + shift * np.int16(3)).astype(np.int16)
        shift = None
    ai = None
    if setup.has_armour:
        ai = _per_slot(setup.armour, d, setup.n_slots, len(T.LOCATIONS), loc
                       ) * np.int16(armour_mult)
        if rules.armour_mode == "roll_reduction":
            roll = roll - ai * np.int16(rules.armour_roll_per_ai)
            ai = None
    rank = rank_of(roll, rules.block_rounding)
    if shift is not None:
        rank += shift
    if ai is not None:
        rank -= ai
    value = np.asarray(setup.points, np.int32).take(np.clip(rank, 0, MAX_RANK))
    head = loc == T.HEAD
    torso = (loc == T.CHEST) | (loc == T.ABDOMEN)
    instant = (head & (rank >= _per_slot(setup.death_head, d, setup.n_slots))) | (
        torso & (rank >= _per_slot(setup.death_torso, d, setup.n_slots)))
    value[instant] = -1
    if rules.limb_destroyed == "out":
        value[~head & ~torso & (rank >= T.LIMB_DESTROYED_RANK)] = -2
    value[rank < 0] = NO_WOUND
    return value, loc, rank


def _wound_table(setup: _Setup, rules: Rules) -> tuple[np.ndarray, int, int]:
    """Every plain hit's value by (attacker, defender, damage modifier, dice word)."""
    n_slots = setup.n_slots
    mods = ([v for row in setup.damage_mod for v in row] + list(setup.riposte_damage)
            + list(setup.missile_damage) + list(setup.unarmed_damage))
    bonus = [v for table in (setup.damage_bonus, setup.unarmed_damage_bonus,
                             setup.missile_damage_bonus) for row in table for v in row]
    extra = KR.damage_range(setup.lang)
    assert extra is not None
    low = min(mods) + min(0, *bonus) + extra[0]
    high = max(mods) + max(0, *bonus) + extra[1]
    n_dmg = high - low + 1
    a, d, k, code = np.meshgrid(np.arange(n_slots), np.arange(n_slots), np.arange(n_dmg),
                                np.arange(720),
                                indexing="ij")
    value, _, _ = wound_outcome(setup, rules, a.ravel(), d.ravel(),
                                (k.ravel() + low).astype(np.int16), code.ravel(), None, None, 1)
    return value.astype(np.int32), n_dmg, low


def simulate_segments(segments: Sequence[Segment], rng: SegmentedRng) -> list[Outcomes]:
    """The fights of each segment (:mod:`balance.batching`): segments sharing a
    :func:`batch_key` run in one batch, each on its own stream; a segment larger than the
    batch, or with per-fight rows of the rules language, runs alone."""
    found = [_setup_of(s) for s in segments]
    setups = [setup for setup, _ in found]
    out: list[Outcomes | None] = [None] * len(segments)
    groups: dict[Hashable, list[int]] = {}
    for i, (segment, (setup, key)) in enumerate(zip(segments, found, strict=True)):
        if segment.n > BATCH or setup.lang is not None:
            one = SegmentedRng([rng.generators[i]])
            out[i] = _Kernel([setup], one).run([segment.n])[0]
        else:
            groups.setdefault(key, []).append(i)
    for members in groups.values():
        batch = SegmentedRng([rng.generators[i] for i in members])
        results = _Kernel([setups[i] for i in members], batch).run(
            [segments[i].n for i in members])
        for i, result in zip(members, results, strict=True):
            out[i] = result
    return [o for o in out if o is not None]


def simulate(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights of ``side_a`` against ``side_b`` (a batch of one segment).

    Returns
    -------
    Outcomes
        ``winner`` int8 (n,), ``rounds`` int16 (n,), ``cause`` int8 (n,) indexing
        :data:`.reference.CAUSES`.
    """
    segment = Segment(rules, tuple(side_a), tuple(side_b), n)
    return simulate_segments([segment], SegmentedRng([rng]))[0]
