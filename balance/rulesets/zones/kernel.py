"""The vectorised kernel of seed 002: many fights at once, the same reading as ``reference``.

Layout.  Every per-combatant quantity is an array ``(N, F)`` (combatants x fights, small
integer dtypes): row ``i`` is combatant ``i`` (side A first, then side B) in every fight, so
one combatant's values are a contiguous row and a side's are a slice of rows.  Everything
about the matchup that does not change during a fight (attributes, damage and modifier
tables, policies, the location graph) is compiled once into :class:`_Static`.

Flow.  Fights are split by the side that acts first (drawn per fight); within each part the
activation order is fixed (002.8), so the loop is over rounds, then over activation slots:
at slot ``k`` the same combatant ``c`` acts in every fight where it is standing.  Its
policy, weapons and tables are then scalars, and each of its actions is decided and
executed for the subset of fights where it still has actions (``_decide`` mirrors
``reference._Fight.decide``).  At the end of a round finished fights are written out and
compacted away.

Agreement with the reference is in distribution, not roll for roll (the dice are drawn in
a different order); ``tests/zones/test_agreement.py`` checks it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ...dice import sum_table
from ...language.rows import Effect, names_used
from ...language.rows import fire as _fire
from ...language.rows import total as _language_total
from ...outcomes import Outcomes
from ...results import Winner
from .maps import UNREACHABLE, compile_map
from .reference import CAUSES
from .rules import (
    POLICIES,
    TARGETS,
    Combatant,
    Rules,
    activation_order,
    category,
    damage,
    death_probability,
    melee_damage,
    start_location,
    starting_hp,
    total_defence,
)
from .weapons import MAX_DISTANCE, UNTIL_REMOVED, WeaponRow

__all__ = ["simulate"]

# action codes
SPARE, MOVE, DISENGAGE, STRIKE, SHOOT, RELOAD, STEADY, ESCAPE, BLOCKED = range(9)
_ADVANCE, _HOLD, _SKIRMISH, _GUARD = (POLICIES.index(p) for p in POLICIES)
_LUT_OFFSET = 96
_STRIKE_INDEX = np.arange(8, dtype=np.int16)[:, None]
_FLAT = ("ammunition", "defending", "entangled", "hp", "loc", "moved", "n_pressers",
         "occupancy", "pressers", "slowed", "start_loc")
_NEVER_RUNS_OUT = np.int16(32_767)
_STATIC_FIELDS = ("might", "agility", "defence", "armour", "speed", "shield", "large")
_MERGE_BELOW = 1 << 16
"""Below this many fights the two first-side parts share one batch and one merged
schedule (fewer NumPy calls, which dominate small batches); above it they run as two
batches (no work masked off for the other part)."""
_COMPACT = 0.2
"""Finished fights are compacted away once they are this share of the batch."""
_FULL_MODE = 0.6
"""Above this share of fights acting, decisions run on whole rows rather than gathers."""
_INVALID = np.int32(1 << 24)
_THREE_D6 = sum_table(3, 6).astype(np.int16)


@dataclass(frozen=True)
class _Me:
    """Everything static about one combatant as the actor."""

    index: int
    side: int
    bit: int
    foes: slice
    allies: slice
    n_foes: int
    policy: int
    target: int
    might: int
    agility: int
    has_ranged: bool
    reach: int
    reloads: bool
    max_attacks: int
    steady: int
    spare_defend: bool
    defends: int
    leave_engaged: bool
    frontage_full: str
    advance_fire: bool
    disengage: bool
    keep_distance: int
    long_shots: bool
    melee_first: bool
    area: bool                 # an area weapon: hits everyone in the target's zone
    area_avoid: bool           # never aims at a zone holding an ally or itself
    band_cost: int
    shift_cost: int
    free_shift: bool
    ward: int
    can_be_entangled: bool
    melee_dmg: np.ndarray      # int8 (n_foes, 4): damage by foe and result category
    ranged_dmg: np.ndarray     # int8 (n_foes, 4)
    foe_defence: np.ndarray    # int16 (n_foes, 1): total Defence of each foe
    foe_priority: np.ndarray   # int32 (n_foes, 1)
    foe_faster: np.ndarray     # bool (n_foes, 1): outruns me when it has broken away
    j_index: np.ndarray        # int32 (n_foes, 1): 0..n_foes-1
    # the rules language: the rows of its weapons (weapons.py)
    # (the weapon's row, its damage before armour) when its Strikes / shots read rows (its
    # weapon's, a foe's defence); None: the precomputed tables alone
    melee_attack: tuple[WeaponRow, int] | None = None
    ranged_attack: tuple[WeaponRow, int] | None = None
    slow_dynamic: bool = False  # may be Slowed by a row mid-fight
    movement: tuple[tuple[Any, bool], ...] = ()  # (modifier, from its ranged weapon)
    ammo_limited: bool = False
    dry: _Me | None = None     # itself once out of ammunition: no ranged weapon


@dataclass(frozen=True, eq=False)
class _Static:
    rules: Rules
    n: int
    n_a: int
    sides: np.ndarray          # int8 (N,)
    hp0: np.ndarray
    loc0: np.ndarray
    entangled0: np.ndarray
    defence: np.ndarray        # int16 (N,) total Defence
    frontage: np.ndarray       # int8 (N,) melee attackers allowed on each as target
    armour: np.ndarray
    me: tuple[_Me, ...]
    orders: tuple[tuple[int, ...], tuple[int, ...]]
    distance: np.ndarray
    distance_flat: np.ndarray
    sight: np.ndarray
    sight_flat: np.ndarray
    next_step: np.ndarray
    next_flat: np.ndarray
    band_flat: np.ndarray
    band_step: np.ndarray
    retreat: np.ndarray
    commanding: np.ndarray
    cover: np.ndarray
    hazard: np.ndarray
    chokepoint: np.ndarray
    has_choke: bool
    has_walls: bool            # some locations cannot be walked to from others
    has_blind: bool            # range differs from walking distance somewhere
    n_locations: int
    ladder_lut: np.ndarray     # int8: result category of total + _LUT_OFFSET
    map_values: np.ndarray     # int16 MAP by attack index (last repeats)
    melee_dmg_all: np.ndarray  # int8 (N, N, 4) damage of attacker i on target j
    ranged_dmg_all: np.ndarray  # int16 (N, N, 4) the same with i's ranged weapon
    # the rules language (only read when some weapon has rows)
    names: Any = None          # Names of the rules' vocabulary
    values: Any = None         # field -> (N,) static values of each combatant
    defence_rows: tuple[tuple[tuple[Any, ...], tuple[Any, ...]], ...] = ()  # melee, ranged
    guarded: np.ndarray | None = None  # bool (N,): has defence rows
    ammo0: np.ndarray | None = None    # int16 (N,): ammunition at the start
    slowed0: np.ndarray | None = None


@lru_cache(maxsize=32)
def _compile(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
             ) -> _Static:
    cmap = compile_map(rules.battlefield)
    everyone = list(side_a) + list(side_b)
    n, n_a = len(everyone), len(side_a)
    sides = np.array([0] * n_a + [1] * len(side_b), np.int8)
    names = [c.name for c in everyone]
    me_list = []
    for i, c in enumerate(everyone):
        s = int(sides[i])
        foes = slice(n_a, n) if s == 0 else slice(0, n_a)
        allies = slice(0, n_a) if s == 0 else slice(n_a, n)
        foe_list = everyone[foes]
        mdmg = melee_damage(c, rules)
        rdmg = rules.ranged_damage(c.ranged)
        melee = np.array([[damage(k, mdmg, t.armour, rules) for k in range(4)] for t in foe_list],
                         np.int16)
        ranged = np.array([[damage(k, rdmg, t.armour, rules) for k in range(4)]
                           for t in foe_list], np.int16)
        ward = -1
        if c.policy == "guard" and c.guard:
            ward = next(j for j in range(allies.start, allies.stop)
                        if names[j] == c.guard and j != i)
        shift = rules.shift_cost * (2 if rules.shift_speed_rule == "speed1_shift_costs_2"
                                    and c.speed == 1 else 1)
        inflicted = _inflicted(rules, everyone, i, s, sides)
        # Slowed is read per fight when a row may inflict it, or when movement rows must
        # be added before it multiplies the cost; otherwise it is in the static costs
        moves = rules.has_rows and any(rules.weapon_row(w).mods("movement")
                                       for w in {c.weapon, c.ranged} - {"none"})
        slow_dynamic = ("slowed" in inflicted and not c.slowed) or (c.slowed and moves)
        slow = rules.slowed_factor if c.slowed and not slow_dynamic else 1
        me_list.append(_Me(
            index=i, side=s, bit=1 << i, foes=foes, allies=allies, n_foes=len(foe_list),
            policy=POLICIES.index(c.policy), target=TARGETS.index(c.target),
            might=c.might, agility=c.agility, has_ranged=c.ranged != "none",
            reach=rules.reach(c.ranged) if c.ranged != "none" else 0,
            reloads=rules.reloads(c.ranged), max_attacks=c.max_attacks, steady=c.steady,
            spare_defend=c.spare == "defend", defends=c.defends,
            leave_engaged=c.leave_engaged, frontage_full=c.frontage_full,
            advance_fire=c.advance_fire, disengage=c.disengage,
            keep_distance=c.keep_distance, long_shots=c.long_shots, melee_first=c.melee_first,
            area=rules.is_area(c.ranged),
            area_avoid=(rules.is_area(c.ranged) and c.area_allies == "avoid"
                        and rules.area_friendly_fire),
            band_cost=rules.band_cost * slow, shift_cost=shift * slow,
            free_shift=rules.shift_speed_rule == "speed2_first_shift_free" and c.speed >= 2,
            ward=ward, can_be_entangled=c.entangled or "entangled" in inflicted,
            melee_dmg=melee, ranged_dmg=ranged,
            foe_defence=np.array([[total_defence(t, rules)] for t in foe_list], np.int16),
            foe_priority=np.array([[t.priority] for t in foe_list], np.int32),
            foe_faster=np.array([[rules.pursuit == "speed" and t.speed > c.speed]
                                 for t in foe_list]),
            j_index=np.arange(len(foe_list), dtype=np.int32)[:, None],
            **_row_fields(rules, c, slow_dynamic),
        ))
    me_list = [dataclasses.replace(m, dry=dataclasses.replace(
        m, has_ranged=False, ranged_attack=None, ammo_limited=False, movement=tuple(
            x for x in m.movement if not x[1]))) if m.ammo_limited else m for m in me_list]
    lut = np.array([category(t - _LUT_OFFSET, rules.ladder) for t in range(2 * _LUT_OFFSET)],
                   np.int8)
    n_map = max(6, len(rules.map))
    all_melee = np.zeros((n, n, 4), np.int16)
    all_ranged = np.zeros((n, n, 4), np.int16)
    for i, c in enumerate(everyone):
        shot = rules.ranged_damage(c.ranged)
        for j, t in enumerate(everyone):
            all_melee[i, j] = [damage(k, melee_damage(c, rules), t.armour, rules)
                               for k in range(4)]
            all_ranged[i, j] = [damage(k, shot, t.armour, rules) for k in range(4)]
    return _Static(
        rules=rules, n=n, n_a=n_a, sides=sides,
        hp0=np.array([starting_hp(c, rules) for c in everyone], np.int16),
        loc0=np.array([start_location(c, int(sides[i]), rules, cmap)
                       for i, c in enumerate(everyone)], np.int8),
        entangled0=np.array([c.entangled for c in everyone]),
        defence=np.array([total_defence(c, rules) for c in everyone], np.int16),
        frontage=np.array([rules.frontage_large if c.large else rules.frontage
                           for c in everyone], np.int8),
        armour=np.array([c.armour for c in everyone], np.int8),
        me=tuple(me_list),
        orders=(activation_order(rules, side_a, side_b, 0),
                activation_order(rules, side_a, side_b, 1)),
        distance=cmap.distance.astype(np.int16),
        distance_flat=cmap.distance.astype(np.int16).reshape(-1),
        sight=cmap.sight.astype(np.int16),
        sight_flat=cmap.sight.astype(np.int16).reshape(-1),
        next_flat=cmap.next_step.astype(np.int16).reshape(-1),
        band_flat=cmap.band_step.reshape(-1), next_step=cmap.next_step,
        band_step=cmap.band_step, retreat=cmap.retreat, commanding=cmap.commanding,
        cover=cmap.cover, hazard=cmap.hazard, chokepoint=cmap.chokepoint,
        has_choke=bool(cmap.chokepoint.any()),
        has_walls=bool((cmap.distance >= UNREACHABLE).any()),
        has_blind=bool((cmap.sight != cmap.distance).any()), n_locations=cmap.n_locations,
        ladder_lut=lut, map_values=np.array([rules.attack_penalty(k) for k in range(n_map)],
                                            np.int16),
        melee_dmg_all=all_melee, ranged_dmg_all=all_ranged,
        **_static_rows(rules, everyone),
    )


def _inflicted(rules: Rules, everyone: list[Combatant], i: int, side: int,
               sides: np.ndarray) -> set[str]:
    """The conditions some weapon in the fight may inflict on combatant ``i``."""
    out = set()
    for g, c in enumerate(everyone):
        who = "self" if g == i else "target" if sides[g] != side else None
        if who is None:
            continue
        for name in {c.weapon, c.ranged} - {"none"}:
            row = rules.weapon_row(name)
            out |= {e.inflict for e in row.effects if e.inflict and e.who == who}
    return out


def _row_fields(rules: Rules, c: Combatant, slow_dynamic: bool) -> dict[str, Any]:
    """The :class:`_Me` fields of the rules language for ``c`` (defaults when no rows)."""
    melee = rules.weapon_row(c.weapon)
    ranged = rules.weapon_row(c.ranged) if c.ranged != "none" else None
    fields: dict[str, Any] = {"slow_dynamic": slow_dynamic}
    if not rules.has_rows:
        return fields
    guarded = any(rules.weapon_row(w).mods("defence") for w in _arms(rules))
    if melee.has_rows or guarded:
        fields["melee_attack"] = (melee, melee_damage(c, rules))
    if ranged is not None and (ranged.has_rows or guarded):
        fields["ranged_attack"] = (ranged, ranged.damage)
    fields["movement"] = tuple((m, False) for m in melee.mods("movement")) + (
        tuple((m, True) for m in ranged.mods("movement")) if ranged is not None else ())
    fields["ammo_limited"] = ranged is not None and ranged.ammunition is not None
    return fields


def _arms(rules: Rules) -> tuple[str, ...]:
    return rules.weapon_names("melee") + rules.weapon_names("ranged")


def _static_rows(rules: Rules, everyone: list[Combatant]) -> dict[str, Any]:
    """The :class:`_Static` fields of the rules language (none when no weapon has rows)."""
    if not rules.has_rows:
        return {}
    names = rules.vocabulary().names
    values: dict[str, Any] = {f: np.array([getattr(c, f) for c in everyone])
                              for f in _STATIC_FIELDS}
    values["defence"] = np.array([total_defence(c, rules) for c in everyone], np.int16)
    values["weapon"] = names["self.weapon"].encode([c.weapon for c in everyone])
    values["ranged"] = names["self.ranged"].encode([c.ranged for c in everyone])
    rows = [(rules.weapon_row(c.weapon).mods("defence"),
             rules.weapon_row(c.ranged).mods("defence") if c.ranged != "none" else ())
            for c in everyone]
    ammo = [rules.weapon_row(c.ranged).ammunition if c.ranged != "none" else None
            for c in everyone]
    return {"names": names, "values": values, "defence_rows": tuple(rows),
            "guarded": np.array([bool(m or r) for m, r in rows]),
            "ammo0": np.array([_NEVER_RUNS_OUT if a is None else a for a in ammo], np.int16),
            "slowed0": np.array([c.slowed for c in everyone])}


class _Batch:
    """The state of ``F`` fights with one fixed activation order."""

    # flat views (row * F + fight) of the arrays in _FLAT, set by make_flat_views
    f_defending: np.ndarray
    f_hp: np.ndarray
    f_loc: np.ndarray
    f_moved: np.ndarray
    f_n_pressers: np.ndarray
    f_occupancy: np.ndarray
    f_pressers: np.ndarray
    f_start_loc: np.ndarray

    FIELDS = ("hp", "loc", "progress", "moving_to", "moved", "hold", "defending", "struck",
              "free_strikes", "fled", "loaded", "hazard_moves", "entangled", "start_loc",
              "pressers", "n_pressers", "occupancy", "slowed", "entangled_left",
              "slowed_left", "ammunition")
    f_ammunition: np.ndarray
    f_entangled: np.ndarray
    f_slowed: np.ndarray

    def __init__(self, st: _Static, n: int, rng: np.random.Generator, boundary: int = 0
                 ) -> None:
        self.st = st
        self.rules = st.rules
        self.rng = rng
        big = st.n

        def rows(values: np.ndarray, dtype: Any) -> np.ndarray:
            return np.repeat(np.asarray(values, dtype)[:, None], n, axis=1)

        self.hp = rows(st.hp0, np.int16)
        self.loc = rows(st.loc0, np.int8)
        self.progress = np.zeros((big, n), np.int8)
        self.moving_to = np.full((big, n), -1, np.int8)
        self.moved = np.zeros((big, n), bool)
        self.hold = np.zeros((big, n), np.int8)
        self.defending = np.zeros((big, n), bool)
        self.struck = np.zeros((big, n), np.int16)
        self.free_strikes = np.zeros((big, n), np.int8)
        self.fled = np.zeros((big, n), bool)
        self.loaded = np.ones((big, n), bool)
        self.hazard_moves = np.zeros((big, n), np.int8)
        self.entangled = rows(st.entangled0, bool)
        # the rules language's state: conditions' activations left, ammunition (002.2)
        self.entangled_left = self.entangled * np.int16(UNTIL_REMOVED)
        slowed0 = st.slowed0 if st.slowed0 is not None else np.zeros(big, bool)
        self.slowed = rows(slowed0, bool)
        self.slowed_left = self.slowed * np.int16(UNTIL_REMOVED)
        self.ammunition = rows(st.ammo0 if st.ammo0 is not None
                               else np.full(big, _NEVER_RUNS_OUT), np.int16)
        self.round = 1
        self.start_loc = self.loc.copy()
        self.pressers = np.zeros((big, n), np.int16)
        self.n_pressers = np.zeros((big, n), np.int8)
        # standing combatants of each side at each location: row side * L + loc
        n_loc = st.n_locations
        occ = np.zeros(2 * n_loc, np.int8)
        for i in range(big):
            occ[st.sides[i] * n_loc + st.loc0[i]] += 1
        self.occupancy = rows(occ, np.int8)
        groups = 2 if self.rules.chokepoint_scope == "per_side" else 1
        self.choke_groups = groups
        if st.has_choke:
            self.choke_bits = np.zeros((st.n_locations * groups, n), np.int16)
            self.choke_count = np.zeros((st.n_locations * groups, n), np.int8)
        self.ongoing = np.ones(n, bool)
        self.winner = np.zeros(n, np.int8)
        self.cause = np.zeros(n, np.int8)
        self.active = np.zeros(n, bool)
        self.idle = np.zeros(n, np.int8)
        self.orig = np.arange(n)
        self.boundary = boundary
        self.recorded = np.zeros(n, bool)
        self.actions = np.zeros(n, np.int8)
        self.make_flat_views()
        self.arange = np.arange(n)

    @property
    def size(self) -> int:
        return self.hp.shape[1]

    # --- helpers ----------------------------------------------------------------------
    def roll(self, size: int) -> np.ndarray:
        return _THREE_D6.take(self.rng.integers(0, 216, size=size, dtype=np.int16))

    def make_flat_views(self) -> None:
        """Flat views of the arrays indexed as ``row * F + fight`` (renewed on compaction)."""
        for name in _FLAT:
            setattr(self, "f_" + name, getattr(self, name).reshape(-1))

    def end_check(self, ix: np.ndarray, side: int) -> None:
        """Fights ``ix`` where side ``side`` just took damage: is it all Down?"""
        st = self.st
        rows = slice(0, st.n_a) if side == 0 else slice(st.n_a, st.n)
        down = ~(self.hp[rows].take(ix, axis=1) > 0).any(axis=0)
        if _any(down):
            done = ix[down]
            self.ongoing[done] = False
            self.actions[done] = 0
            self.winner[done] = Winner.B if side == 0 else Winner.A
            self.cause[done] = CAUSES.down

    def count_at(self, side: int, ix: np.ndarray, where: np.ndarray) -> np.ndarray:
        """Standing combatants of ``side`` at location ``where`` (per fight of ``ix``)."""
        row = where.astype(np.intp) + side * self.st.n_locations
        return self.f_occupancy.take(row * self.size + ix)

    def occupy(self, side: int, ix: np.ndarray, where: np.ndarray, change: int) -> None:
        flat = (where.astype(np.intp) + side * self.st.n_locations) * self.size + ix
        self.f_occupancy[flat] += np.int8(change)

    # --- attacks ----------------------------------------------------------------------
    def resolve(self, ix: np.ndarray, target: np.ndarray, attribute: int | np.ndarray,
                mods: np.ndarray, defence: np.ndarray, dmg_table: np.ndarray,
                dmg_row: np.ndarray, rows: tuple[int, WeaponRow, int, np.ndarray] | None = None
                ) -> None:
        """Roll for fights ``ix`` (attack on global ``target``) and apply the damage;
        ``rows``: (attacker, its weapon's row, weapon damage, attack number) when rows of
        the rules language apply."""
        # |total| < 60 for any allowed parameters (3d6, attributes 0-4, modifiers within
        # +-4 each, MAP >= -20, Defence <= 12), well inside the table's +-96
        total = self.roll(len(ix)) + (attribute + _LUT_OFFSET) + mods - defence
        if rows is not None:
            attacker, row, weapon, number = rows
            add, more = self.row_attack(attacker, row, ix, target, number)
            total = np.clip(total + add, 0, 2 * _LUT_OFFSET - 1)
        cat = self.st.ladder_lut.take(total)
        if rows is not None and more is not None:
            dmg = _damage(cat, weapon + more, self.st.armour.take(target), self.rules)
        else:
            dmg = dmg_table.reshape(-1).take(dmg_row * 4 + cat)
        flat = target * self.size + ix
        hp = self.f_hp
        before = hp[flat]
        after = np.maximum(before - dmg, 0)
        hp[flat] = after
        if rows is not None and rows[1].effects:
            self.row_effects(rows[0], rows[1], ix, target, rows[3], cat)
        fell = (after == 0) & (before > 0)
        if _any(fell):
            down = flat[fell]
            side = self.st.sides[target[fell]].astype(np.intp)
            row = self.f_loc[down] + side * self.st.n_locations
            self.f_occupancy[row * self.size + ix[fell]] -= 1

    # --- the rules language ---------------------------------------------------------------
    def env(self, names: tuple[str, ...], c: int, t: np.ndarray | int | None,
            ix: np.ndarray, number: np.ndarray | int) -> dict[str, Any]:
        """The values of ``names`` in fights ``ix`` for combatant ``c`` (self) facing
        global ``t`` (target; an array along ``ix`` or one combatant; None: a step), as
        ``reference._Fight.env`` reads them."""
        out: dict[str, Any] = {}
        for name in names:
            role, _, field = name.partition(".")
            if field:
                out[name] = self.fighter_value(field, c if role == "self" else t, ix)
            else:
                out[name] = self.situation(name, c, t, ix, number)
        return out

    def fighter_value(self, field: str, g: Any, ix: np.ndarray) -> Any:
        st, n = self.st, self.size
        flat = np.asarray(g, np.intp) * n + ix
        if field == "hp":
            return self.f_hp.take(flat)
        if field == "wounds":
            return st.hp0.take(g) - self.f_hp.take(flat)
        if field in st.values and field != "ranged":
            return st.values[field].take(g)
        if field == "ranged":
            return st.values["ranged"].take(g) * (self.f_ammunition.take(flat) > 0)
        if field in ("slowed", "entangled", "defending", "moved"):
            return getattr(self, "f_" + field).take(flat)
        loc = self.f_loc.take(flat).astype(np.intp)
        tags = {"cover": st.cover, "commanding": st.commanding, "hazard": st.hazard,
                "chokepoint": st.chokepoint > 0}
        return tags[field].take(loc)

    def situation(self, name: str, c: int, t: Any, ix: np.ndarray, number: Any) -> Any:
        st, n = self.st, self.size
        if name == "round":
            return self.round
        if name == "attack_number":
            return number
        loc = self.loc[c].take(ix).astype(np.intp)
        if name == "distance":
            there = self.f_loc.take(np.asarray(t, np.intp) * n + ix)
            return np.minimum(st.sight_flat.take(loc * st.n_locations + there), MAX_DISTANCE)
        side = int(st.sides[c])
        me_up = self.hp[c].take(ix) > 0
        if name == "foes_engaged":
            return self.count_at(1 - side, ix, loc)
        if name == "allies_engaged":
            return self.count_at(side, ix, loc) - me_up
        rows = slice(0, st.n_a) if (side == 0) == (name == "allies_standing") else slice(
            st.n_a, st.n)
        up = (self.hp[rows].take(ix, axis=1) > 0).sum(axis=0)
        return up - me_up if name == "allies_standing" else up

    def total(self, rows: Any, to: str, c: int, t: Any, ix: np.ndarray, number: Any
              ) -> np.ndarray:
        """The modifiers ``rows`` on ``to`` summed over fights ``ix`` (int64)."""
        if not rows:
            return np.zeros(len(ix), np.int64)
        env = self.env(names_used(rows), c, t, ix, number)
        return _language_total(rows, to, env, self.rng, n=len(ix)).value

    def row_attack(self, c: int, row: WeaponRow, ix: np.ndarray, t: np.ndarray,
                   number: Any) -> tuple[np.ndarray, np.ndarray | None]:
        """What the rows add to attacker ``c``'s attack total with ``row`` on ``t`` (its
        attack modifiers less each defender's defence modifiers), and to its damage (None
        when the row has no damage modifier)."""
        st = self.st
        add = self.total(row.mods("attack"), "attack", c, t, ix, number)
        damage = row.mods("damage")
        more = self.total(damage, "damage", c, t, ix, number) if damage else None
        t = np.broadcast_to(np.asarray(t, np.intp), (len(ix),))
        number = np.broadcast_to(number, (len(ix),))
        for g in np.flatnonzero(st.guarded) if st.guarded is not None else ():
            hit = t == g
            if g == c or not _any(hit):
                continue
            dx = ix[hit]
            melee, ranged = st.defence_rows[g]
            guard = self.total(melee, "defence", int(g), c, dx, number[hit])
            if ranged:
                armed = self.ammunition[g].take(dx) > 0
                guard = guard + self.total(ranged, "defence", int(g), c, dx, number[hit]) * armed
            add[hit] -= guard
        return add, more

    def row_effects(self, c: int, row: WeaponRow, ix: np.ndarray, t: Any, number: Any,
                    cat: np.ndarray) -> None:
        """The effects of ``row`` on the outcomes ``cat`` of ``c``'s attacks on ``t``."""
        n = self.size
        outcomes = {"attack": np.ones(len(ix), bool), "miss": cat == 0, "partial": cat == 1,
                    "hit": cat >= 1, "success": cat >= 2, "critical": cat == 3}
        env = self.env(names_used(row.effects), c, t, ix, number)
        t = np.broadcast_to(np.asarray(t, np.intp), (len(ix),))
        for firing in _fire(row.effects, outcomes, env, self.rng, n=len(ix)):
            effect, mask, quantity = firing
            assert isinstance(effect, Effect)
            if not _any(mask):
                continue
            dx = ix[mask]
            if effect.spend:
                assert quantity is not None
                flat = c * n + dx
                self.f_ammunition[flat] = np.maximum(self.f_ammunition[flat] - quantity[mask], 0)
                continue
            who = np.full(len(dx), c, np.intp) if effect.who == "self" else t[mask]
            flat = who * n + dx
            left = (self.entangled_left if effect.inflict == "entangled"
                    else self.slowed_left).reshape(-1)
            rounds = UNTIL_REMOVED if quantity is None else quantity[mask]
            left[flat] = np.maximum(left[flat], rounds)
            getattr(self, "f_" + effect.inflict)[flat] = True

    def melee_mods(self, attacker: np.ndarray | int, target: np.ndarray | int, ix: np.ndarray,
                   where: np.ndarray, attacker_side: int) -> np.ndarray:
        """Outnumbering and higher ground of melee at ``where`` (002.5, 002.7.6-7)."""
        r, st = self.rules, self.st
        mods = np.zeros(len(ix), np.int16)
        if r.outnumber_scope == "zone":
            occ = self.f_occupancy
            base = where.astype(np.intp) * self.size + ix
            shift = self.st.n_locations * self.size
            ahead = (occ.take(base + attacker_side * shift)
                     > occ.take(base + (1 - attacker_side) * shift))
            mods += ahead * np.int16(r.outnumber_bonus)
        if _any(st.commanding):
            high = st.commanding[where]
            if r.higher_ground == "split":
                n = self.size
                sl = self.f_start_loc
                high &= (sl[np.asarray(attacker, np.intp) * n + ix] == where) & (
                    sl[np.asarray(target, np.intp) * n + ix] != where)
            mods += high * np.int16(r.higher_ground_bonus)
        return mods

    def melee_defence(self, target: np.ndarray, ix: np.ndarray) -> np.ndarray:
        flat = target.astype(np.intp) * self.size + ix
        return (self.st.defence[target]
                + self.f_defending[flat] * np.int16(self.rules.defend_defence_bonus))

    # --- the round ----------------------------------------------------------------------
    def run(self, schedule: tuple[tuple[int, int], ...]) -> tuple[np.ndarray, ...]:
        """Fight every round to the end; ``schedule`` is (combatant, part) per activation
        slot, part 0 = every fight, 1 = the first ``boundary`` fights, 2 = the rest."""
        r = self.rules
        n_total = self.size
        winner = np.zeros(n_total, np.int8)
        rounds = np.zeros(n_total, np.int16)
        cause = np.full(n_total, CAUSES.max_rounds, np.int8)
        standing = np.zeros((2, n_total), np.int8)
        down_mask = np.zeros((self.st.n, n_total), bool)
        for rnd in range(1, r.max_rounds + 1):
            self.round = rnd
            self.pressers[:] = 0
            self.n_pressers[:] = 0
            if self.st.has_choke:
                self.choke_bits[:] = 0
                self.choke_count[:] = 0
            np.copyto(self.start_loc, self.loc)
            self.active[:] = False
            for c, part in schedule:
                self.activate(self.st.me[c], part)
            self.idle = np.where(self.active, 0, self.idle + 1).astype(np.int8)
            stale = self.ongoing & (self.idle >= 2)
            if _any(stale):
                self.ongoing[stale] = False
                self.cause[stale] = CAUSES.stalemate
            last = rnd == r.max_rounds
            done = (~self.ongoing & ~self.recorded) | last
            if _any(done):
                self.recorded |= done
                o = self.orig[done]
                winner[o] = self.winner[done]
                rounds[o] = rnd
                cause[o] = np.where(self.ongoing[done], CAUSES.max_rounds, self.cause[done])
                up = self.hp[:, done] > 0
                standing[0, o] = up[: self.st.n_a].sum(axis=0)
                standing[1, o] = up[self.st.n_a:].sum(axis=0)
                down_mask[:, o] = ~up
            if last:
                break
            n_recorded = int(np.count_nonzero(self.recorded))
            if n_recorded == self.size:
                break
            if n_recorded > _COMPACT * self.size:
                self.compact(~self.recorded)
        return winner, rounds, cause, standing, down_mask

    def compact(self, keep: np.ndarray) -> None:
        self.boundary = int(np.count_nonzero(keep[: self.boundary]))
        for name in self.FIELDS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name)[:, keep]))
        if self.st.has_choke:
            self.choke_bits = np.ascontiguousarray(self.choke_bits[:, keep])
            self.choke_count = np.ascontiguousarray(self.choke_count[:, keep])
        self.arange = self.arange[: self.size]
        for name in ("ongoing", "winner", "cause", "active", "idle", "orig", "recorded"):
            setattr(self, name, getattr(self, name)[keep])
        self.make_flat_views()

    def activate(self, me: _Me, part: int = 0) -> None:
        r = self.rules
        c = me.index
        act = self.ongoing & (self.hp[c] > 0)
        if part == 1:
            act[self.boundary:] = False
        elif part == 2:
            act[: self.boundary] = False
        if not _any(act):
            return
        # whole rows when every fight activates c (the values of a Down combatant or a
        # finished fight are never read); only the acting part's fights otherwise
        fresh = slice(None) if part == 0 else (slice(0, self.boundary) if part == 1
                                               else slice(self.boundary, None))
        self.moved[c, fresh] = False
        self.hold[c, fresh] = 0
        self.defending[c, fresh] = False
        self.struck[c, fresh] = 0
        self.free_strikes[c, fresh] = 0
        self.fled[c, fresh] = False
        window = None if part == 0 else fresh
        width = len(range(*fresh.indices(self.size)))
        n = self.size
        actions = act * np.int8(r.actions_per_activation)
        owed = act & (self.hazard_moves[c] > 0)
        if _any(owed):
            dx = np.flatnonzero(owed)
            actions[dx] -= np.minimum(self.hazard_moves[c, dx],
                                      r.actions_per_activation).astype(np.int8)
            if r.hazard_is_move:
                self.moved[c, dx] = True
            self.active[dx] = True
        self.hazard_moves[c, fresh] = 0
        a = _ActState(n)
        self.actions = actions   # zeroed by end_check / a fall, so actions > 0 is who acts
        for _ in range(r.actions_per_activation + 1):
            going_mask = actions > 0
            going = np.flatnonzero(going_mask)
            if len(going) == 0:
                break
            dry = (self.ammunition[c].take(going) == 0) if me.ammo_limited else None
            if dry is not None and _any(dry):
                # out of ammunition: it decides as a fighter without a ranged weapon
                code, arg = self.decide_split(me, going, dry, actions, a)
            elif len(going) > _FULL_MODE * width:
                # most fights of the part act: decide on its whole rows (views, no
                # gathers), keep the goers
                code, arg = self.decide(me, window, actions, a)
                code, arg = code[going_mask[fresh]], arg[going_mask[fresh]]
            else:
                code, arg = self.decide(me, going, actions, a)
            self.execute(me, going, code, arg, actions, a)
        np.minimum(self.progress[c], r.bank_limit, out=self.progress[c])
        if me.can_be_entangled or me.slow_dynamic:
            self.wear_off(c, np.flatnonzero(act))

    def decide_split(self, me: _Me, going: np.ndarray, dry: np.ndarray, actions: np.ndarray,
                     a: _ActState) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`decide` for fights where ``me`` has ammunition and, as ``me.dry``, for
        those where it has none (a skirmisher closes in, a holder strikes, 002 policies)."""
        code = np.empty(len(going), np.int8)
        arg = np.empty(len(going), np.int16)
        for mask, who in ((dry, me.dry), (~dry, me)):
            if _any(mask):
                assert who is not None
                code[mask], arg[mask] = self.decide(who, going[mask], actions, a)
        return code, arg

    def wear_off(self, c: int, ix: np.ndarray) -> None:
        """A condition inflicted for some activations counts down at the end of each of
        the sufferer's activations (``reference._Fight.wear_off``) [DEFAULT]."""
        for flag, left in ((self.entangled, self.entangled_left),
                           (self.slowed, self.slowed_left)):
            count = left[c].take(ix)
            timed = (count > 0) & (count < UNTIL_REMOVED)
            if _any(timed):
                dx = ix[timed]
                left[c, dx] -= 1
                flag[c, dx[left[c, dx] == 0]] = False

    def step_cost(self, me: _Me, ix: np.ndarray | slice | None, band: np.ndarray,
                  fights: np.ndarray | None = None) -> np.ndarray:
        """Moves each step costs ``me`` in fights ``ix`` (002.2): the band or shift cost,
        its weapons' movement modifiers (at least 1), times slowed_factor when Slowed
        (``reference._Fight.step_cost``); ``fights``: ``ix`` as indices."""
        cost = np.where(band, np.int8(me.band_cost), np.int8(me.shift_cost))
        if not (me.movement or me.slow_dynamic):
            return cost
        c = me.index
        if me.movement:
            if fights is None:
                fights = self.arange[ix] if isinstance(ix, slice) else (
                    self.arange if ix is None else ix)
            rows = [m for m, ranged in me.movement if not ranged]
            extra = self.total(rows, "movement", c, None, fights, 1)
            if any(ranged for _, ranged in me.movement):
                armed = self.ammunition[c].take(fights) > 0
                extra += self.total([m for m, r in me.movement if r], "movement", c, None,
                                    fights, 1) * armed
            cost = np.maximum(cost + extra, 1)
        if me.slow_dynamic:
            slow = _sub(self.slowed[c], ix)
            cost = np.where(slow, cost * self.rules.slowed_factor, cost)
        return cost.astype(np.int8)

    # --- decisions ------------------------------------------------------------------------
    def decide(self, me: _Me, ix: np.ndarray | slice | None, actions: np.ndarray, a: _ActState
               ) -> tuple[np.ndarray, np.ndarray]:
        """Action code and argument (foe index or next location) for fights ``ix``."""
        st = self.st
        view = _View(self, me, ix)
        policy = me.policy
        if policy == _SKIRMISH and not me.has_ranged:
            policy = _ADVANCE
        if policy == _GUARD and me.ward < 0:
            policy = _HOLD
        code = np.full(view.n, -1, np.int8)
        arg = np.zeros(view.n, np.int16)
        todo = np.ones(view.n, bool)

        def take(mask: np.ndarray, codes: np.ndarray, args: np.ndarray) -> None:
            sel = todo & mask
            np.copyto(code, codes, where=sel, casting="unsafe")
            np.copyto(arg, args, where=sel, casting="unsafe")
            todo[sel] = False

        if policy == _GUARD:
            ward_up = _sub(self.hp[me.ward], ix) > 0
            hold = self.hold_choice(me, view, ix, actions, a)  # pure: worked out once
            take(~ward_up, *hold)
            t, has_t = view.best(view.strikable)
            take(has_t, *self.melee_plan(me, ix, t, actions, a))
            ward_loc = _sub(self.loc[me.ward], ix)
            threat = (view.alive & (view.foe_loc == ward_loc)).any(axis=0) & (
                view.my_loc != ward_loc)
            if st.has_walls:  # the ward's zone must be walkable to
                threat &= st.distance_flat.take(view.my_loc.astype(np.intp) * st.n_locations
                                                + ward_loc) < UNREACHABLE
            if _any(threat & todo):
                mc, ma = self.toward(me, view, ix, ward_loc, actions, a)
                take(threat & (mc != BLOCKED), mc, ma)
            if _any(todo):
                take(todo, *hold)
            return code, arg
        if policy == _HOLD:
            return self.hold_choice(me, view, ix, actions, a)
        if policy == _SKIRMISH:
            rear = st.retreat[me.side, view.my_loc]
            rear_ok = (rear >= 0) & ~(view.alive & (view.foe_loc == rear[None, :])).any(axis=0)
            near = np.where(view.alive, view.dist, 127).min(axis=0)
            close = near <= max(me.keep_distance, 0)
            if _any(close & rear_ok):
                mc, ma = self.toward(me, view, ix, np.where(rear_ok, rear, view.my_loc),
                                     actions, a)
                take(close & rear_ok & (mc != BLOCKED), mc, ma)
            engaged = near == 0
            if _any(engaged & todo):
                take(engaged, *self.hold_choice(me, view, ix, actions, a))
            s, has_s = view.best(view.shootable, long_last=True)
            if _any(has_s & todo):
                take(has_s, *self.ranged_plan(me, ix, s, actions, a))
            if not _any(todo):
                return code, arg
        # advance (also a skirmisher with nothing in reach)
        cand = view.strikable | (~view.same_loc & view.alive & view.approachable)
        if not me.leave_engaged:
            # fight where engaged: foes elsewhere only when none may be struck here
            cand = np.where(view.strikable.any(axis=0), view.strikable, cand)
        here_foes = view.alive & view.same_loc
        # foes here, none it may strike: the frontage is full (002.4)
        capped = ~view.strikable.any(axis=0) & here_foes.any(axis=0)
        if me.frontage_full != "switch" and _any(capped):
            if me.frontage_full == "wait":
                cand = cand & ~capped[None, :]     # no target: the spare action
            elif me.has_ranged:
                cand = cand & ~capped[None, :]
        t, has_t = view.best(cand)
        t_loc = view.foe_loc.reshape(-1).take(t * view.n + view.arange)
        here = has_t & (t_loc == view.my_loc)
        mc, _ = self.melee_plan(me, ix, t, actions, a)
        adv_code = np.where(here, mc, np.int8(SPARE))
        adv_arg = t
        away = has_t & ~here
        if _any(away):
            tc, ta = self.toward(me, view, ix, t_loc, actions, a)
            ok = away & (tc != BLOCKED)
            adv_code = np.where(ok, tc, adv_code)
            adv_arg = np.where(ok, ta, adv_arg)
            blocked = away & ~ok
            if _any(blocked):
                s, has_s = view.best(view.strikable)
                sel = blocked & has_s
                adv_code = np.where(sel, mc, adv_code)  # the plan's code is target-free
                adv_arg = np.where(sel, s, adv_arg)
            if me.advance_fire and me.has_ranged:
                fire = ok & ~self.finishes_step(me, view, ix, t_loc, actions, a)
                if _any(fire):
                    s, has_s = view.best(view.shootable, long_last=True)
                    rc, _ = self.ranged_plan(me, ix, s, actions, a)
                    sel = fire & has_s & (rc != SPARE)
                    adv_code = np.where(sel, rc, adv_code)
                    adv_arg = np.where(sel, s, adv_arg)
        if me.frontage_full == "shoot" and me.has_ranged and _any(capped):
            s, _ = view.best(here_foes)
            rc, _ = self.ranged_plan(me, ix, s, actions, a)
            adv_code = np.where(capped, rc, adv_code)
            adv_arg = np.where(capped, s, adv_arg)
        if policy == _ADVANCE:
            return adv_code, adv_arg.astype(np.int16)
        take(todo, adv_code, adv_arg)
        return code, arg

    def melee_plan(self, me: _Me, ix: np.ndarray | slice | None, t: np.ndarray, actions: np.ndarray,
                   a: _ActState) -> tuple[np.ndarray, np.ndarray]:
        return self.attack_plan(me, ix, t, actions, a, STRIKE)

    def ranged_plan(self, me: _Me, ix: np.ndarray | slice | None, t: np.ndarray, actions: np.ndarray,
                    a: _ActState) -> tuple[np.ndarray, np.ndarray]:
        code, t = self.attack_plan(me, ix, t, actions, a, SHOOT)
        if me.reloads:
            code = np.where(_sub(self.loaded[me.index], ix), code, np.int8(RELOAD))
        return code, t

    def attack_plan(self, me: _Me, ix: np.ndarray | slice | None, t: np.ndarray, actions: np.ndarray,
                    a: _ActState, attack: int) -> tuple[np.ndarray, np.ndarray]:
        """Steady while allowed, then up to ``max_attacks`` attacks, then the spare action."""
        att = _sub(a.attacks, ix)
        code = np.where(att < me.max_attacks, np.int8(attack), np.int8(SPARE))
        if me.steady:
            steady = (att == 0) & (_sub(a.steadies, ix) < me.steady) & (_sub(actions, ix) >= 2)
            code = np.where(steady, np.int8(STEADY), code)
        return code, t

    def hold_choice(self, me: _Me, view: _View, ix: np.ndarray | slice | None, actions: np.ndarray,
                    a: _ActState) -> tuple[np.ndarray, np.ndarray]:
        t, has_t = view.best(view.strikable)
        mc, ma = self.melee_plan(me, ix, t, actions, a)
        spare = np.full(view.n, SPARE, np.int8)
        if not me.has_ranged:
            return np.where(has_t, mc, spare), ma
        s, has_s = view.best(view.shootable, long_last=True)
        rc, ra = self.ranged_plan(me, ix, s, actions, a)
        use_melee = has_t if me.melee_first else has_t & ~has_s
        code = np.where(use_melee, mc, np.where(has_s, rc, spare))
        return code.astype(np.int8), np.where(use_melee, ma, ra).astype(np.int16)

    def finishes_step(self, me: _Me, view: _View, ix: np.ndarray | slice | None,
                      dest: np.ndarray, actions: np.ndarray, a: _ActState) -> np.ndarray:
        """Whether the actions left finish the next step toward ``dest`` (an Entangled
        fighter counts as finishing: it fights the snare, ``reference`` likewise)."""
        st = self.st
        c = me.index
        here = view.my_loc.astype(np.intp) * st.n_locations
        nxt = st.next_flat.take(here + dest)
        band = st.band_flat.take(here + nxt)
        cost = self.step_cost(me, ix, band, view.fights)
        progress = _sub(self.progress[c], ix) * (_sub(self.moving_to[c], ix) == nxt)
        left = _sub(actions, ix) + (~band & _sub(a.free_shift, ix) if me.free_shift else 0)
        done = progress + left >= cost
        if me.can_be_entangled:
            done |= _sub(self.entangled[c], ix)
        return done

    def toward(self, me: _Me, view: _View, ix: np.ndarray | slice | None, dest: np.ndarray,
               actions: np.ndarray, a: _ActState) -> tuple[np.ndarray, np.ndarray]:
        """A Move toward ``dest`` (or the Disengage it needs first, or BLOCKED)."""
        st = self.st
        c = me.index
        here = view.my_loc.astype(np.intp) * st.n_locations
        nxt = st.next_flat.take(here + dest)
        code = np.full(view.n, MOVE, np.int8)
        if me.disengage and view.any_holder:
            band = st.band_flat.take(here + nxt)
            cost = self.step_cost(me, ix, band, view.fights)
            prog = _sub(self.progress[c], ix) * (_sub(self.moving_to[c], ix) == nxt)
            need_dis = (prog + 1 >= cost) & ~_sub(a.disengaged, ix) & view.threat
            if _any(need_dis):
                need: np.ndarray | int = (np.where(~band & _sub(a.free_shift, ix), 1, 2)
                                          if me.free_shift else 2)
                code[need_dis] = np.where((_sub(actions, ix) >= need)[need_dis], DISENGAGE,
                                          BLOCKED)
        if me.can_be_entangled:
            tangled = _sub(self.entangled[c], ix)
            code[tangled] = ESCAPE
        return code, nxt

    # --- execution --------------------------------------------------------------------
    def execute(self, me: _Me, ix: np.ndarray, code: np.ndarray, arg: np.ndarray,
                actions: np.ndarray, a: _ActState) -> None:
        r = self.rules
        c = me.index
        present = np.bincount(code, minlength=BLOCKED + 1)
        actions[ix] -= 1
        if me.free_shift and present[MOVE]:
            is_move = code == MOVE
            band = self.st.band_flat.take(self.loc[c, ix].astype(np.intp) * self.st.n_locations
                                          + arg)
            free = is_move & ~band & a.free_shift[ix]
            a.free_shift[ix[free]] = False
            actions[ix[free]] += 1
        if present[SPARE] < len(ix):
            self.active[ix[code != SPARE]] = True
        if present[SPARE]:
            # a spare action is absorbing: nothing it does changes the choice, so every
            # action left this activation is spare too (the reference takes them one by one)
            dx = ix[code == SPARE]
            if me.spare_defend:
                # Defend up to ``defends`` times this activation, then pass (hold counts
                # this activation's Defends: nobody leaves during one's own activation)
                self.hold[c, dx] = np.minimum(self.hold[c, dx] + 1 + actions[dx], me.defends)
                self.defending[c, dx] = True
            actions[dx] = 0
        if present[STEADY]:
            sel = code == STEADY
            dx = ix[sel]
            a.steadies[dx] += 1
            a.steady[dx] = np.minimum(a.steady[dx] + r.steady_bonus, r.steady_max)
        if present[RELOAD]:
            self.loaded[c, ix[code == RELOAD]] = True
        if present[DISENGAGE]:
            a.disengaged[ix[code == DISENGAGE]] = True
        if present[ESCAPE]:
            dx = ix[code == ESCAPE]
            ok = self.roll(len(dx)) + me.might >= r.entangle_save
            self.entangled[c, dx[ok]] = False
            self.entangled_left[c, dx[ok]] = 0
        for kind, act in ((STRIKE, self.strike), (SHOOT, self.shoot), (MOVE, self.move)):
            if present[kind] == len(ix):
                dx, dj = ix, arg
            elif present[kind]:
                sel = code == kind
                dx, dj = ix[sel], arg[sel]
            else:
                continue
            act(me, dx, dj, a)

    def strike(self, me: _Me, ix: np.ndarray, j: np.ndarray, a: _ActState) -> None:
        r, st = self.rules, self.st
        c = me.index
        t = (me.foes.start + j).astype(np.intp)
        charge = a.charge[ix] * np.int16(r.charge_bonus)
        first = a.steady[ix] + charge
        again = charge if r.charge_scope == "all_strikes" else 0
        if r.charge_scope == "first_strike":
            a.charge[ix] = False
        where = self.loc[c, ix]
        mods = self.melee_mods(c, t, ix, where, me.side)
        n = self.size
        flat = t * n + ix
        pressers = self.f_pressers
        new = (pressers[flat] & me.bit) == 0
        pressers[flat] |= np.int16(me.bit)
        self.f_n_pressers[flat] += new.astype(np.int8)
        if st.has_choke:
            cap = st.chokepoint[where] > 0
            if _any(cap):
                g = me.side if self.choke_groups == 2 else 0
                cflat = (where[cap].astype(np.intp) * self.choke_groups + g) * n + ix[cap]
                bits = self.choke_bits.reshape(-1)
                fresh = (bits[cflat] & me.bit) == 0
                bits[cflat] |= np.int16(me.bit)
                self.choke_count.reshape(-1)[cflat] += fresh.astype(np.int8)
        a.steady[ix] = 0
        self.attack_series(me, ix, t, j, me.might + mods - self.melee_defence(t, ix), first,
                           again, me.melee_dmg, True, a, me.melee_attack)

    def shot_mods(self, ix: np.ndarray, here: np.ndarray, there: np.ndarray, d: np.ndarray,
                  reach: int, moved: np.ndarray) -> np.ndarray:
        """Long shot, cover, moved target and higher ground of shots (002.1, 002.5)."""
        r, st = self.rules, self.st
        mods = np.zeros(len(ix), np.int16)
        applies = (d == reach + 1, st.cover[there] & ((there != here) | r.cover_same_zone),
                   moved)
        values = (r.long_shot_penalty, r.cover_penalty, r.moved_target_penalty)
        if r.penalty_stacking == "worst":
            worst = np.full(len(ix), 127, np.int16)
            for hit, value in zip(applies, values, strict=True):
                worst = np.where(hit, np.minimum(worst, value), worst)
            mods += np.where(worst == 127, 0, worst).astype(np.int16)
        else:
            for hit, value in zip(applies, values, strict=True):
                mods += hit * np.int16(value)
        if _any(st.commanding):
            high = st.commanding[here]
            if r.higher_ground == "split":
                high = high & (there != here)
            mods += high * np.int16(r.higher_ground_bonus)
        return mods

    def shoot(self, me: _Me, ix: np.ndarray, j: np.ndarray, a: _ActState) -> None:
        st = self.st
        c = me.index
        t = (me.foes.start + j).astype(np.intp)
        n = self.size
        flat = t * n + ix
        here = self.loc[c, ix]
        there = self.f_loc[flat]
        d = st.sight[here, there]
        if me.reloads:
            self.loaded[c, ix] = False
        first = a.steady[ix]
        a.steady[ix] = 0
        if me.area:
            self.area_attack(me, ix, here, there, d, first, a)
            return
        mods = self.shot_mods(ix, here, there, d, me.reach, self.f_moved[flat])
        self.attack_series(me, ix, t, j, me.agility + mods - st.defence[t], first, 0,
                           me.ranged_dmg, not me.reloads, a, me.ranged_attack)

    def area_attack(self, me: _Me, ix: np.ndarray, here: np.ndarray, there: np.ndarray,
                    d: np.ndarray, first: np.ndarray, a: _ActState) -> None:
        """An area effect on the zone ``there``: everyone in it (allies too, under
        ``area_friendly_fire``), one roll each in listing order, as one attack (002.1)."""
        st = self.st
        base = first + st.map_values.take(a.attacks[ix]) + me.agility
        a.attacks[ix] += 1
        for g in range(st.n):
            if st.sides[g] == me.side and not self.rules.area_friendly_fire:
                continue
            caught = self.ongoing[ix] & (self.hp[g, ix] > 0) & (self.loc[g, ix] == there)
            if not _any(caught):
                continue
            dx = ix[caught]
            mods = base[caught] + self.shot_mods(dx, here[caught], there[caught], d[caught],
                                                 me.reach, self.moved[g, dx])
            target = np.full(len(dx), g, np.intp)
            rows = (None if me.ranged_attack is None
                    else (me.index, *me.ranged_attack, a.attacks[dx]))
            self.resolve(dx, target, 0, mods, st.defence[target], st.ranged_dmg_all[me.index],
                         target, rows)
            self.end_check(dx, int(st.sides[g]))
        self.actions[ix[self.hp[me.index, ix] <= 0]] = 0  # caught in its own blast

    def attack_series(self, me: _Me, ix: np.ndarray, t: np.ndarray, j: np.ndarray,
                      base: np.ndarray, first: np.ndarray, again: np.ndarray | int,
                      table: np.ndarray, can_repeat: bool, a: _ActState,
                      rows: tuple[WeaponRow, int] | None = None) -> None:
        """Resolve an attack on foe ``t`` and, while it stands, the same attack again.

        Repeating is what ``decide`` would choose (after an attack on a foe still standing
        nothing it reads has changed but that foe's HP, which only makes it weaker, and the
        attack count, which only blocks Steady), so up to ``max_attacks`` attacks, as far as
        the actions go, are rolled at once; those after the foe falls are discarded.
        ``base`` is attribute + modifiers - Defence; ``first`` / ``again`` are the extra
        modifiers of the first / later attacks (Steady, charge); the MAP is added here.
        ``rows``: (the weapon's row, its damage) when rows of the rules language apply;
        then one attack at a time (a row may read what the last attack changed).
        """
        st = self.st
        actions = self.actions
        done0 = a.attacks[ix]
        flat = t * self.size + ix
        hp0 = self.f_hp[flat]
        base = base + _LUT_OFFSET
        if can_repeat and me.max_attacks > 1 and rows is None:
            allowed = np.minimum(me.max_attacks - done0, actions[ix] + 1)
            k = int(allowed.max())
        else:
            allowed, k = None, 1
        more = cat = None
        if k == 1:
            total = self.roll(len(ix)) + base + first + st.map_values.take(done0)
            if rows is not None:
                add, more = self.row_attack(me.index, rows[0], ix, t, done0 + 1)
                total = np.clip(total + add, 0, 2 * _LUT_OFFSET - 1)
            cat = st.ladder_lut.take(total)
            if more is not None:
                dmg = _damage(cat, rows[1] + more, st.armour.take(t), self.rules)  # type: ignore[index]
            else:
                dmg = table.reshape(-1).take(j * 4 + cat)
            hp1 = np.maximum(hp0 - dmg, 0)
            made: np.ndarray | int = 1
        else:
            s = _STRIKE_INDEX[:k]
            total = (self.roll(k * len(ix)).reshape(k, -1) + base
                     + np.where(s == 0, first, again) + st.map_values.take(done0 + s))
            dmg = table.reshape(-1).take(j * 4 + st.ladder_lut.take(total)) * (s < allowed)
            cum = np.cumsum(dmg, axis=0, dtype=np.int16)
            standing_after = (cum < hp0).sum(axis=0)
            made_k = np.minimum(allowed, standing_after + 1)
            hp1 = np.maximum(hp0 - cum[-1], 0)
            actions[ix] -= (made_k - 1).astype(np.int8)
            made = made_k
        a.attacks[ix] += np.int8(made) if isinstance(made, int) else made.astype(np.int8)
        self.f_hp[flat] = hp1
        if rows is not None and rows[0].effects:
            assert cat is not None  # one attack at a time with rows
            self.row_effects(me.index, rows[0], ix, t, done0 + 1, cat)
        if can_repeat and rows is None:
            # all attacks made on a foe still standing: the next choice is the same plan,
            # now spare, and spare is absorbing -- take the rest of the activation as spare
            spent = (a.attacks[ix] >= me.max_attacks) & (hp1 > 0) & (actions[ix] > 0)
            if _any(spent):
                dx = ix[spent]
                if me.spare_defend:
                    self.hold[me.index, dx] = np.minimum(self.hold[me.index, dx] + actions[dx],
                                                         me.defends)
                    self.defending[me.index, dx] = True
                actions[dx] = 0
        fell = hp1 == 0
        if _any(fell):
            down = flat[fell]
            side = st.sides[t[fell]].astype(np.intp)
            row = self.f_loc[down] + side * st.n_locations
            self.f_occupancy[row * self.size + ix[fell]] -= 1
            self.end_check(ix[fell], 1 - me.side)

    def move(self, me: _Me, ix: np.ndarray, nxt: np.ndarray, a: _ActState) -> None:
        r, st = self.rules, self.st
        c = me.index
        here = self.loc[c, ix]
        band = st.band_flat.take(here.astype(np.intp) * st.n_locations + nxt)
        nxt = nxt.astype(np.int8)
        self.moved[c, ix] = True  # before the cost: a movement row may read self.moved
        cost = self.step_cost(me, ix, band)
        prog = self.progress[c, ix] * (self.moving_to[c, ix] == nxt) + 1
        done = prog >= cost
        if not done.all():
            self.keep_moving(me, ix, here, prog, cost, done, a)
        self.progress[c, ix] = prog
        self.moving_to[c, ix] = nxt
        if not _any(done):
            return
        ix, here, nxt, band = ix[done], here[done], nxt[done], band[done]
        exposed = ~a.disengaged[ix]
        if _any(exposed) and _any(self.hold[me.foes]):
            self.free_strikes_on_leaving(me, ix[exposed], here[exposed])
            ok = (self.hp[c, ix] > 0) & self.ongoing[ix]
            self.actions[ix[~ok]] = 0
            ix, here, nxt, band = ix[ok], here[ok], nxt[ok], band[ok]
            if len(ix) == 0:
                return
        foe_side = 1 - me.side
        left_foes = self.count_at(foe_side, ix, here) > 0
        self.fled[c, ix[left_foes]] = True
        self.occupy(me.side, ix, here, -1)
        self.occupy(me.side, ix, nxt, +1)
        self.loc[c, ix] = nxt
        self.progress[c, ix] = 0
        self.moving_to[c, ix] = -1
        if r.hazard_cost and _any(st.hazard):
            hz = st.hazard[nxt]
            self.hazard_moves[c, ix[hz]] = r.hazard_cost
        met = self.count_at(foe_side, ix, nxt) > 0
        charge = met if r.charge_on_shift else met & band
        a.charge[ix[charge]] = True

    def keep_moving(self, me: _Me, ix: np.ndarray, here: np.ndarray, prog: np.ndarray,
                    cost: np.ndarray, done: np.ndarray, a: _ActState) -> None:
        """Spend further Moves on a step begun this action, in place (``prog``, ``done``).

        After a Move that does not finish its step nothing ``decide`` reads has changed but
        the progress, so it would choose the same Move again -- unless the Move that
        finishes the step leaves a zone a foe holds, when it may Disengage first.  Those
        fights go back to ``decide``; the rest move on without deciding again.
        """
        actions = self.actions
        going = ~done & (actions[ix] > 0)
        if me.disengage and _any(going) and _any(self.hold[me.foes]):
            foes = me.foes
            held = ((self.hold[foes].take(ix, axis=1) > 0)
                    & (self.loc[foes].take(ix, axis=1) == here)
                    & (self.hp[foes].take(ix, axis=1) > 0)
                    & ((self.struck[foes].take(ix, axis=1) & me.bit) == 0)).any(axis=0)
            going &= ~held | a.disengaged[ix]
        while _any(going):
            actions[ix[going]] -= 1
            prog += going
            done |= going & (prog >= cost)
            going &= ~done & (actions[ix] > 0)

    def free_strikes_on_leaving(self, me: _Me, ix: np.ndarray, here: np.ndarray) -> None:
        """Holders at ``here`` strike the leaver ``me`` (002.3, 002.7.4, 002.7.9)."""
        r, st = self.rules, self.st
        c = me.index
        holders = ((self.hold[me.foes].take(ix, axis=1) > 0)
                   & (self.loc[me.foes].take(ix, axis=1) == here)).any(axis=0)
        ix, here = ix[holders], here[holders]
        if len(ix) == 0:
            return
        struck_once = np.zeros(len(ix), bool)
        for h in range(me.foes.start, me.foes.stop):
            eligible = ((self.hp[h, ix] > 0) & (self.loc[h, ix] == here) & (self.hold[h, ix] > 0)
                        & ((self.struck[h, ix] & me.bit) == 0) & (self.hp[c, ix] > 0)
                        & self.ongoing[ix])
            if r.hold_strikes == "per_leave":
                eligible &= ~struck_once
            if r.free_strike_frontage:
                eligible &= ((self.pressers[c, ix] & (1 << h)) != 0) | (
                    self.n_pressers[c, ix] < st.frontage[c])
            if not _any(eligible):
                continue
            dx, where = ix[eligible], here[eligible]
            struck_once |= eligible
            mods = np.zeros(len(dx), np.int16)
            if r.free_strike_map:
                mods += st.map_values[np.minimum(self.free_strikes[h, dx],
                                                 len(st.map_values) - 1)]
            hm = st.me[h]
            mods += self.melee_mods(h, c, dx, where, hm.side)
            self.hold[h, dx] -= 1
            self.struck[h, dx] |= np.int16(me.bit)
            self.free_strikes[h, dx] += 1
            if r.free_strike_frontage:
                new = (self.pressers[c, dx] & (1 << h)) == 0
                self.pressers[c, dx] |= np.int16(1 << h)
                self.n_pressers[c, dx] += new.astype(np.int8)
            target = np.full(len(dx), c, np.intp)
            rows = (None if hm.melee_attack is None
                    else (h, *hm.melee_attack, self.free_strikes[h, dx]))
            self.resolve(dx, target, hm.might, mods, self.melee_defence(target, dx),
                         st.melee_dmg_all[h], target, rows)
            self.end_check(dx, me.side)


def _damage(cat: np.ndarray, weapon: Any, armour: np.ndarray, rules: Rules) -> np.ndarray:
    """``rules.damage`` over arrays: result categories, weapon damage (made at least 0),
    Armour (002.8 armour_mode)."""
    weapon = np.maximum(weapon, 0)
    if rules.armour_mode == "subtract":
        past = np.maximum(weapon - armour, 0)
        out = np.where(cat == 2, past, past // 2)
    else:
        out = np.where(cat == 2, weapon, np.maximum(weapon - armour, 0))
    out = np.where(cat == 3, weapon + rules.critical_bonus, out)
    return np.where(cat == 0, 0, out).astype(np.int16)


def _schedule(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """Merge two activation orders into one schedule of (combatant, part) slots.

    Part 1 runs the combatant in the fights of the first order only, part 2 in those of the
    second, part 0 in both; each order is exactly the subsequence of its part, so every
    fight sees its own order.  The merge is a shortest common supersequence (built from a
    longest common subsequence), so a combatant acting at the same point of both orders
    runs once for all fights: alternate orders a1 b1 a2 b2 and b1 a1 b2 a2 take 6 slots,
    not 8.
    """
    n, m = len(first), len(second)
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = (lcs[i + 1][j + 1] + 1 if first[i] == second[j]
                         else max(lcs[i + 1][j], lcs[i][j + 1]))
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and first[i] == second[j]:
            out.append((first[i], 0))
            i, j = i + 1, j + 1
        elif j == m or (i < n and lcs[i + 1][j] >= lcs[i][j + 1]):
            out.append((first[i], 1))
            i += 1
        else:
            out.append((second[j], 2))
            j += 1
    return tuple(out)


def _any(mask: Any) -> bool:
    """``mask.any()`` without NumPy's Python-level wrapper (hot in the action loop)."""
    return bool(_OR(mask, axis=None))


_OR = np.logical_or.reduce


def _sub(values: np.ndarray, ix: np.ndarray | slice | None) -> np.ndarray:
    """``values`` for the fights ``ix`` along the last axis: all of them (None), a range
    of them (a slice: a view), or the listed ones (a gather)."""
    if ix is None:
        return values
    if isinstance(ix, slice):
        return values[..., ix]
    return values.take(ix, axis=-1)


class _ActState:
    """What the acting combatant has done this activation, per fight."""

    def __init__(self, n: int) -> None:
        self.attacks = np.zeros(n, np.int8)
        self.steadies = np.zeros(n, np.int8)
        self.steady = np.zeros(n, np.int16)
        self.charge = np.zeros(n, bool)
        self.disengaged = np.zeros(n, bool)
        self.free_shift = np.ones(n, bool)


class _View:
    """The acting combatant's view of its foes in fights ``ix`` (arrays ``(n_foes, n)``)."""

    def __init__(self, b: _Batch, me: _Me, ix: np.ndarray | slice | None) -> None:
        st = b.st
        c = me.index
        foes = me.foes
        self.me = me
        self.b = b
        self.ix = ix
        if ix is None:
            self.n, self.fights = b.size, b.arange
        elif isinstance(ix, slice):
            self.fights = b.arange[ix]
            self.n = len(self.fights)
        else:
            self.n, self.fights = len(ix), ix
        self.arange = b.arange[: self.n]
        self.my_loc = _sub(b.loc[c], ix)
        self.foe_loc = _sub(b.loc[foes], ix)
        self.foe_hp = _sub(b.hp[foes], ix)
        self.alive = self.foe_hp > 0
        self.same_loc = self.foe_loc == self.my_loc
        self.pair = self.my_loc.astype(np.intp) * st.n_locations + self.foe_loc
        self.dist = st.distance_flat.take(self.pair)
        self._sight: np.ndarray | None = None
        self._strikable: np.ndarray | None = None
        self._hold: np.ndarray | None = None
        self._key: np.ndarray | None = None
        self._any_holder: bool | None = None
        self._struck: np.ndarray | None = None

    @property
    def any_holder(self) -> bool:
        """Whether any foe holds ground in any of these fights (cheap pre-check)."""
        if self._any_holder is None:
            self._any_holder = bool(self.b.hold[self.me.foes].any())
        return self._any_holder

    @property
    def threat(self) -> np.ndarray:
        """(n,) a foe here holds ground and has not struck me this holding period."""
        return (self.same_loc & self.alive & (self.foe_hold > 0)
                & ((self.foe_struck & self.me.bit) == 0)).any(axis=0)

    @property
    def foe_hold(self) -> np.ndarray:
        if self._hold is None:
            self._hold = _sub(self.b.hold[self.me.foes], self.ix)
        return self._hold

    @property
    def foe_struck(self) -> np.ndarray:
        if self._struck is None:
            self._struck = _sub(self.b.struck[self.me.foes], self.ix)
        return self._struck

    @property
    def strikable(self) -> np.ndarray:
        if self._strikable is None:
            b, me, ix, st = self.b, self.me, self.ix, self.b.st
            pressers = _sub(b.pressers[me.foes], ix)
            n_pressers = _sub(b.n_pressers[me.foes], ix)
            room = (n_pressers < st.frontage[me.foes][:, None]) | ((pressers & me.bit) != 0)
            ok = self.alive & self.same_loc & room
            if st.has_choke:
                cap = st.chokepoint[self.my_loc]
                capped = cap > 0
                if _any(capped):
                    g = me.side if b.choke_groups == 2 else 0
                    cflat = ((self.my_loc.astype(np.intp) * b.choke_groups + g) * b.size
                             + self.fights)
                    bits = b.choke_bits.reshape(-1)[cflat]
                    count = b.choke_count.reshape(-1)[cflat]
                    fight_ok = ~capped | ((bits & me.bit) != 0) | (count < cap)
                    ok &= fight_ok[None, :]
            self._strikable = ok
        return self._strikable

    @property
    def sight(self) -> np.ndarray:
        """(n_foes, n) steps of the line of sight to each foe: the range of a shot."""
        if self._sight is None:
            st = self.b.st
            self._sight = st.sight_flat.take(self.pair) if st.has_blind else self.dist
        return self._sight

    @property
    def shootable(self) -> np.ndarray:
        reach = self.me.reach + (1 if self.me.long_shots else 0)
        ok = self.alive & (self.sight <= reach)
        if self.me.area_avoid:  # no zone holding an ally, or itself (counted there)
            b = self.b
            row = self.foe_loc.astype(np.intp) + self.me.side * b.st.n_locations
            ok &= b.f_occupancy.take(row * b.size + self.fights[None, :]) == 0
        return ok

    @property
    def approachable(self) -> np.ndarray:
        """A walkable path (002.3: not past a blocked zone), and not a foe that broke away
        and outruns me."""
        ok = self.dist < UNREACHABLE if self.b.st.has_walls else np.ones_like(self.alive)
        if not _any(self.me.foe_faster):
            return ok
        fled = _sub(self.b.fled[self.me.foes], self.ix)
        return ok & ~(fled & self.me.foe_faster)

    def best(self, mask: np.ndarray, long_last: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Local index of the best foe under the target rule among ``mask``, and whether
        there is one (002: target choice)."""
        me = self.me
        if self._key is None:  # the unreachable (127 steps) tie at 63, as all beyond
            self._key = np.minimum(self.dist, 63).astype(np.int32) * 64 + me.j_index
        key = self._key
        if me.target == 1:      # weakest
            key = key + self.foe_hp.astype(np.int32) * 4096
        elif me.target == 2:    # priority
            key = key + (16 - me.foe_priority) * 4096
        if long_last:
            key = key + (self.sight > me.reach).astype(np.int32) * (1 << 20)
        key = key | (~mask * _INVALID)
        low = key.min(axis=0)
        return low & 63, low < _INVALID


def simulate(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...], *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights of side A against side B.

    Returns
    -------
    Outcomes
        ``winner`` int8, ``rounds`` int16, ``cause`` int8, codes of ``CAUSES`` (down,
        stalemate, max_rounds); extras ``a_standing``, ``b_standing`` (and ``a_dead``,
        ``b_dead`` with death saves).  Fights whose first side is A come first.
    """
    st = _compile(rules, tuple(side_a), tuple(side_b))
    if rules.first_side == "random":
        n_a_first = int(rng.binomial(n, 0.5))
    else:
        n_a_first = n if rules.first_side == "a" else 0
    if n_a_first in (0, n):
        schedule = tuple((c, 0) for c in st.orders[0 if n_a_first else 1])
        parts = [_Batch(st, n, rng).run(schedule)]
    elif n < _MERGE_BELOW:
        # one batch: the fights where A acts first, then those where B does; each slot of
        # the merged schedule runs one combatant over one part or both (see _schedule)
        schedule = _schedule(st.orders[0], st.orders[1])
        parts = [_Batch(st, n, rng, n_a_first).run(schedule)]
    else:
        parts = [_Batch(st, size, rng).run(tuple((c, 0) for c in st.orders[first]))
                 for first, size in ((0, n_a_first), (1, n - n_a_first))]
    winner, rounds, cause, standing, down = (np.concatenate(x, axis=-1)
                                             for x in zip(*parts, strict=True))
    extras = {"a_standing": standing[0], "b_standing": standing[1]}
    if rules.death_saves:
        p = float(death_probability(rules))
        dead = down & (rng.random(down.shape) < p)
        extras["a_dead"] = dead[: st.n_a].sum(axis=0).astype(np.int8)
        extras["b_dead"] = dead[st.n_a:].sum(axis=0).astype(np.int8)
    return Outcomes(winner, rounds, cause, CAUSES, extras)

