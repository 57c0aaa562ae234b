"""The vectorised kernel of seed 001: many fights at once, one loop over rounds.

Shapes: ``n_live`` fights still running along the last axis; ``n_slots = len(side_a) +
len(side_b)`` combatant slots (side A first); ``n_entries = 2 * n_exchanges`` entries, one
per fighter per exchange (entry ``2e`` is the lone or paired fighter of exchange ``e``
striking his foe, entry ``2e + 1`` that foe striking back).  Finished fights are compacted
out after every round.

Every round follows :mod:`.reference` step by step: one uniform draw per entry gives its
2d6 roll, its damage die and its shield die (through lookup tables, so each is exact); the
common case (no 2 or 12) is resolved with whole-array operations; the Extraordinary tables
(probability 1/18 per roll) are resolved on index subsets by a small event queue that
follows chains (EF 12 -> ES, ES 2 -> EF), extra exchanges and EF 7 rerolls to the end.

A plain duel (one against one, tables off, no diversion, no ambush) has a faster path:
the whole round's damage for each fighter is one lookup of one draw.

End causes are the codes of :data:`.reference.CAUSES`; a fighter still standing holds
:data:`STANDING` (-1) in ``out_cause``, so the largest code among the fallen is the
round's most drastic cause (the order of ``CAUSES`` is their priority).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from ...batching import Lanes, Segment, SegmentedRng
from ...dice import expand, sum_table
from ...language import fire, names_used, total
from ...outcomes import Outcomes
from ...results import Winner
from ..house import HouseRules
from .language import (
    STATIC_NAMES,
    field_of,
    fighter_value,
    house_rules,
    scalar_env,
    vocabulary,
)
from .reference import CAUSES
from .rules import (
    AMBUSH_RESULTS,
    BANDS,
    DIVERT_POLICIES,
    EF_EFFECTS,
    ES_EFFECTS,
    SHIELDS,
    TABLE_STATE,
    WEAPON_TYPES,
    Combatant,
    Rules,
    band,
    combat_score,
    scores,
    starting_health,
)

__all__ = ["batch_key", "simulate", "simulate_segments"]

STANDING = -1
"""``out_cause`` of a fighter still on his feet."""
DOWN, EXTRAORDINARY, SURRENDER, BROKE, MISHAP, MAX_ROUNDS = (CAUSES.code(c) for c in (
    "down", "extraordinary", "surrender", "broke", "mishap", "max_rounds"))
UNARMED = WEAPON_TYPES.index("unarmed")
NEVER, ALWAYS, IF_DEFICIT, BELOW_HEALTH, RANDOM, REACTIVE, BY_BAND = range(len(DIVERT_POLICIES))

# Effects of the Extraordinary tables and results of the ambush roll, as small codes.
EF = {name: code for code, name in enumerate(EF_EFFECTS)}
ES = {name: code for code, name in enumerate(ES_EFFECTS)}
AMBUSH = {name: code for code, name in enumerate(AMBUSH_RESULTS)}
ROLL_2D6 = sum_table(2, 6).astype(np.int8)  # code 0..35 -> 2d6 total
REACH = 100
"""Advantages are clipped to -REACH..REACH before the band lookup: the band edges lie
within +/-99 (``Rules.band_edges``), so the bands do not change beyond."""


@functools.lru_cache(maxsize=256)
def stroke_table(rules: Rules) -> np.ndarray:
    """bool (2 * REACH + 1, 13): ``[advantage + REACH, roll]`` -- does ``roll`` score for a
    fighter with that advantage?  Built from the reference's rule and the rules' bands."""
    table = np.array([[roll >= 2 and scores(advantage, roll, rules) for roll in range(13)]
                      for advantage in range(-REACH, REACH + 1)], dtype=bool)
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=256)
def band_codes(rules: Rules) -> np.ndarray:
    """int8 (2 * REACH + 1,): ``[advantage + REACH]`` -> index into BANDS (cached: a sweep
    builds one setup a cell, most under the same rules)."""
    table = np.array([BANDS.index(band(advantage, rules))
                      for advantage in range(-REACH, REACH + 1)], np.int8)
    table.setflags(write=False)
    return table


@dataclass
class _Setup:
    """Static per-slot data of one matchup (one row per combatant slot)."""

    rules: Rules
    n_a: int
    n_b: int
    score: np.ndarray  # int16 (n_slots, 3): combat score with each weapon type
    health: np.ndarray  # int16 (n_slots,)
    weapon: np.ndarray  # int8 (n_slots,): weapon type in hand at the start
    shield: np.ndarray  # int8 (n_slots,): index into SHIELDS
    block_of_shield: np.ndarray  # int8 (len(SHIELDS),): the rules' shield_block
    armour: np.ndarray  # int16 (n_slots,): points removed from each stroke
    divert_policy: np.ndarray  # int8 (n_slots,): index into DIVERT_POLICIES
    divert_health: np.ndarray  # int16 (n_slots,)
    divert_p: np.ndarray  # float (n_slots,)
    divert_by_band: np.ndarray  # float (n_slots, len(BANDS))
    es11_surrender: np.ndarray  # bool (n_slots,): accepts surrender on ES 11
    leader: np.ndarray  # bool (n_slots,)
    side: np.ndarray  # intp (n_slots,): 0 for A, 1 for B
    ambush_skill: np.ndarray  # int8 (n_slots,)
    damage_mod: np.ndarray  # int16 (3,): damage modifier by weapon type
    stroke: np.ndarray  # bool (2 * REACH + 1, 13): the Combat Results Table (stroke_table)
    failure_effect: np.ndarray  # int8 (13,): EF effect code of each table roll
    success_effect: np.ndarray  # int8 (13,): ES effect code of each table roll
    ambush_result: np.ndarray  # int8 (12,): ambush result code of each total 1..11
    ambush_bonus: np.ndarray  # int16 (len(AMBUSH_RESULTS),): score bonus of each result
    band_code: np.ndarray  # int8 (2 * REACH + 1,): [advantage + REACH] -> index into BANDS
    fighters: tuple[Combatant, ...]  # (n_slots,): the combatants, for the house rules' names
    damage_bonus: np.ndarray  # int16 (n_slots,): house rules folded into each one's damage

    @classmethod
    def of(cls, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant]
           ) -> _Setup:
        return cls.group([(rules, side_a, side_b)])[0]

    @classmethod
    def group(cls, matchups: Sequence[tuple[Rules, Sequence[Combatant], Sequence[Combatant]]]
              ) -> list[_Setup]:
        """:meth:`of` of each matchup ``(rules, side_a, side_b)``, all of one side size: each
        rules' tables and each combatant's row made once (a sweep's cells share them), and
        each per-slot array once for all the matchups (a setup's are read-only views)."""
        columns, tables, side = _slot_columns(matchups)
        n_slots = len(side)
        return [cls._made(rules, side, [c[s * n_slots:(s + 1) * n_slots] for c in columns],
                          tables[id(rules)], (*side_a, *side_b))
                for s, (rules, side_a, side_b) in enumerate(matchups)]

    @classmethod
    def stacked(cls, matchups: Sequence[tuple[Rules, Sequence[Combatant], Sequence[Combatant]]]
                ) -> _Setup:
        """The setups of :meth:`group` as one, without making them: matchups under equal
        rules and of one side size, every per-slot array holding matchup ``s``'s slot ``k``
        at ``s * n_slots + k`` (the rules' tables the first's, the same for all)."""
        columns, tables, side = _slot_columns(matchups)
        rules = matchups[0][0]
        return cls._made(rules, side, columns, tables[id(rules)],
                         tuple(c for _, side_a, side_b in matchups for c in (*side_a, *side_b)))

    @classmethod
    def _made(cls, rules: Rules, side: np.ndarray, slots: list[np.ndarray],
              tables: dict[str, np.ndarray], fighters: tuple[Combatant, ...]) -> _Setup:
        """A setup from its per-slot arrays (:func:`_fighter_row`'s order), its rules'
        tables and its fighters."""
        n_b = int(side.sum())
        score, health, weapon, shield, armour, policy, divert_health, divert_p, by_band, \
            surrender, leader, ambush = slots
        return cls(
            rules=rules, n_a=len(side) - n_b, n_b=n_b, score=score, health=health,
            weapon=weapon, shield=shield, block_of_shield=tables["block_of_shield"],
            armour=armour, divert_policy=policy, divert_health=divert_health,
            divert_p=divert_p, divert_by_band=by_band, es11_surrender=surrender,
            leader=leader, side=side, ambush_skill=ambush, damage_mod=tables["damage_mod"],
            stroke=tables["stroke"], failure_effect=tables["failure_effect"],
            success_effect=tables["success_effect"], ambush_result=tables["ambush_result"],
            ambush_bonus=tables["ambush_bonus"], band_code=tables["band_code"],
            fighters=fighters, damage_bonus=np.zeros(len(fighters), np.int16))

    @property
    def shield_block(self) -> np.ndarray:
        """int8 (n_slots,): each one's shield block at the start."""
        return self.block_of_shield[self.shield]

    def folded(self, house: HouseRules) -> _Setup:
        """The plain duel's setup with house rules that read only what the duel never
        changes folded in: score modifiers into the scores, damage modifiers into each
        one's damage (see :func:`foldable`)."""
        score, bonus = self.score.copy(), self.damage_bonus.copy()
        for me in (0, 1):
            env = scalar_env(house.names, self.fighters[me], self.fighters[1 - me], self.rules,
                             round_number=None, foes_engaged=1)
            for to, out in (("score", score[me]), ("damage", bonus[me:me + 1])):
                out += sum(m.read(env)[0] for m in house.on(to))
        return replace(self, score=score, damage_bonus=bonus)

    def strokes(self, advantage: np.ndarray, roll: np.ndarray) -> np.ndarray:
        """Whether each ``roll`` scores with each ``advantage`` (001.4)."""
        advantage = np.clip(np.asarray(advantage, np.int64), -REACH, REACH)
        return self.stroke[advantage + REACH, roll]

    @property
    def n_slots(self) -> int:
        return self.n_a + self.n_b

    @property
    def tables(self) -> bool:
        return self.rules.extraordinary and self.rules.max_table_chain > 0


def _rule_tables(rules: Rules) -> dict[str, np.ndarray]:
    """The :class:`_Setup` fields the rules alone decide (read-only: matchups share
    them)."""
    tables: dict[str, np.ndarray] = {
        "block_of_shield": np.array([rules.shield_block[name] for name in SHIELDS], np.int8),
        "damage_mod": np.array([rules.weapon_damage_mod[w] for w in WEAPON_TYPES], np.int16),
        "stroke": stroke_table(rules),
        "failure_effect": np.array([-1, -1] + [EF[rules.ef_table[str(r)]]
                                               for r in range(2, 13)], np.int8),
        "success_effect": np.array([-1, -1] + [ES[rules.es_table[str(r)]]
                                               for r in range(2, 13)], np.int8),
        "ambush_result": np.array([-1] + [AMBUSH[rules.ambush_table[str(t)]]
                                          for t in range(1, 12)], np.int8),
        "ambush_bonus": np.array([rules.ambush_bonus.get(name, 0) for name in AMBUSH_RESULTS],
                                 np.int16),
        "band_code": band_codes(rules),
    }
    for table in tables.values():
        table.setflags(write=False)
    return tables


def _slot_columns(matchups: Sequence[tuple[Rules, Sequence[Combatant], Sequence[Combatant]]]
                  ) -> tuple[list[np.ndarray], dict[int, dict[str, np.ndarray]], np.ndarray]:
    """Every slot's :func:`_fighter_row` of ``matchups`` (one side size), as one read-only
    array a field; each rules' tables by ``id``; the slots' sides."""
    n_a, n_b = len(matchups[0][1]), len(matchups[0][2])
    tables: dict[int, dict[str, np.ndarray]] = {}
    rows: dict[tuple[int, int], tuple[Any, ...]] = {}
    slots: list[tuple[Any, ...]] = []
    for rules, side_a, side_b in matchups:
        if (len(side_a), len(side_b)) != (n_a, n_b):
            raise ValueError("matchups set up together have one side size")
        if id(rules) not in tables:
            tables[id(rules)] = _rule_tables(rules)
        for c in (*side_a, *side_b):
            if (id(c), id(rules)) not in rows:
                rows[id(c), id(rules)] = _fighter_row(c, rules)
            slots.append(rows[id(c), id(rules)])
    columns = [np.array(column, dtype) for column, dtype
               in zip(zip(*slots, strict=True), _FIGHTER_DTYPES, strict=True)]
    for column in columns:
        column.setflags(write=False)
    return columns, tables, np.array([0] * n_a + [1] * n_b, np.intp)


_FIGHTER_DTYPES = (np.int16, np.int16, np.int8, np.int8, np.int16, np.int8, np.int16, float,
                   float, bool, bool, np.int8)
"""The dtypes of :func:`_fighter_row`'s fields."""


def _fighter_row(c: Combatant, rules: Rules) -> tuple[Any, ...]:
    """A combatant's per-slot :class:`_Setup` fields under ``rules``, in the field order:
    score with each weapon type, health, weapon, shield, armour, divert policy, divert
    health, divert p, divert by band, ES 11 surrender, leader, ambush skill."""
    return ([combat_score(c, rules, w) for w in WEAPON_TYPES], starting_health(c, rules),
            WEAPON_TYPES.index(c.weapon_type), SHIELDS.index(c.shield),
            rules.armour_points[c.armour], DIVERT_POLICIES.index(c.divert), c.divert_health,
            c.divert_p, [c.divert_by_band[name] for name in BANDS], c.es11 == "surrender",
            c.leader, c.ambush)


def simulate(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant], /, *,
             n: int, rng: np.random.Generator) -> Outcomes:
    """Simulate ``n`` fights of seed 001.

    Parameters
    ----------
    rules
        Rule parameters.
    side_a, side_b
        1 to 3 combatants each.
    n
        Number of fights.
    rng
        The generator every roll is drawn from.

    Returns
    -------
    Outcomes
        ``winner`` int8 (n,), ``rounds`` int16 (n,), ``cause`` int8 (n,): codes of
        :data:`~.reference.CAUSES`.
    """
    segment = Segment(rules, tuple(side_a), tuple(side_b), n)
    return simulate_segments([segment], SegmentedRng([rng]))[0]


def batch_key(segment: Segment) -> Hashable:
    """Which segments share one code path: plain duels with the same number of outcome
    codes (everything else of theirs -- combatants, bands, damage, armour, the round cap --
    is a per-fight table); other fights under equal rules and side sizes (combatants per
    fight); a fight with house rules the plain duel cannot fold, alone (its house terms
    read one matchup's fighters and draw from one generator)."""
    rules = segment.rules
    house = house_rules(rules)
    if _is_plain(rules, segment.side_a, segment.side_b, house):
        return ("plain", 36 * rules.damage_die * 6)
    if house:
        return ("alone", id(segment))
    return ("general", len(segment.side_a), len(segment.side_b), rules)


def _is_plain(rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant],
              house: HouseRules) -> bool:
    return (len(side_a) + len(side_b) == 2 and not rules.extraordinary
            and rules.ambush == "none" and all(c.divert == "never" for c in (*side_a, *side_b))
            and foldable(house))


def simulate_segments(segments: Sequence[Segment], rng: SegmentedRng) -> list[Outcomes]:
    """Many matchups at once (:mod:`balance.batching`): the segments grouped by
    :func:`batch_key`, each group one kernel run whose fights carry their segment's
    combatants (and, in a plain duel, rule values); every draw from the lane's own
    segment's generator."""
    groups: dict[Hashable, list[int]] = {}
    for i, segment in enumerate(segments):
        groups.setdefault(batch_key(segment), []).append(i)
    out: list[Outcomes | None] = [None] * len(segments)
    for key, members in groups.items():
        group = [segments[i] for i in members]
        sub = (rng if len(members) == len(segments)
               else SegmentedRng([rng.generators[i] for i in members]))
        counts = [s.n for s in group]
        seg = np.repeat(np.arange(len(group)), counts)
        matchups = [(s.rules, s.side_a, s.side_b) for s in group]
        if key[0] == "plain":  # type: ignore[index]
            houses = [house_rules(s.rules) for s in group]
            setups = [setup.folded(h) if h else setup
                      for setup, h in zip(_Setup.group(matchups), houses, strict=True)]
            joint = _plain_duel(setups, seg, sub)
        else:
            house = house_rules(group[0].rules)
            joint = _General(_Setup.stacked(matchups), seg, sub, house or None).run()
        bounds = np.cumsum([0, *counts])
        for i, lo, hi in zip(members, bounds[:-1], bounds[1:], strict=True):
            out[i] = Outcomes(joint.winner[lo:hi], joint.rounds[lo:hi], joint.cause[lo:hi],
                              CAUSES)
    return [o for o in out if o is not None]


def foldable(house: HouseRules) -> bool:
    """Whether the plain duel can fold ``house`` into its tables: no effects, no dice, and
    only names a plain duel never changes (the combatants' fields; weapon, shield and score,
    which only the tables change; foes_engaged, 1 in a duel)."""
    fixed = STATIC_NAMES | TABLE_STATE | {"foes_engaged"}
    return (not house.effects and not any(m.amount.has_dice or (m.when is not None
                                                                 and m.when.has_dice)
                                          for m in house.modifiers)
            and all(field_of(name) in fixed for name in house.names))


# --- the plain duel -------------------------------------------------------------------------


def _round_damage_table(setup: _Setup, attacker: int, target: int) -> np.ndarray:
    """Damage ``attacker`` deals ``target`` in a round, for each outcome code of one draw.

    A code in ``[0, 36 * D * 6)`` is (2d6 outcome, damage die, shield die); the table holds
    the damage after the stroke test, shield and armour, so one draw and one lookup
    resolve a fighter's whole round.
    """
    rules = setup.rules
    die = rules.damage_die
    advantage = int(setup.score[attacker, setup.weapon[attacker]]
                    - setup.score[target, setup.weapon[target]])
    code = np.arange(36 * die * 6)
    roll = ROLL_2D6[code % 36]
    face = (code // 36) % die + 1
    shield_die = code // (36 * die) + 1
    raw = np.maximum(rules.min_damage, face + setup.damage_mod[setup.weapon[attacker]]
                     + setup.damage_bonus[attacker])
    dealt = np.maximum(0, raw - setup.armour[target])
    deflectable = (roll != 12) | rules.shield_stops_12  # 001.9: a 12 cannot be deflected
    dealt = np.where(deflectable & (shield_die <= setup.shield_block[target]), 0, dealt)
    # the advantage as a plain int array: a score gap beyond int8 (combats up to 1000)
    # must not wrap before the band lookup clips it to the outermost bands
    return np.where(setup.strokes(np.full(roll.shape, advantage), roll), dealt,
                    0).astype(np.int16)


_SETTLED = np.int16(30_000)
"""Health given to both fighters of a finished fight until it is compacted out: no round's
damage can bring it below half of this before the next compaction (at most 1000 rounds
apart), and real health never exceeds 999."""


def _plain_duel(setups: Sequence[_Setup], seg: np.ndarray, rng: SegmentedRng) -> Outcomes:
    """Plain duels, fight ``i`` of segment ``seg[i]`` (``setups[seg[i]]``): one draw and one
    lookup per fighter per round.

    Finished fights are not compacted every round: their health is set to
    :data:`_SETTLED` so they cannot finish again (they still draw, as they always have),
    and a segment's lanes are compacted once a quarter of them are settled (compaction costs
    more than simulating a few dead rows).  Each segment keeps its own count, so when its
    settled lanes stop drawing never depends on the other segments of the batch.
    """
    n_seg = len(setups)
    n_codes = 36 * setups[0].rules.damage_die * 6
    to_b = [_round_damage_table(s, 0, 1) for s in setups]
    to_a = [_round_damage_table(s, 1, 0) for s in setups]
    if n_seg == 1:  # one table tiled to every code: no modulo
        damage_to_b, damage_to_a = expand(to_b[0]), expand(to_a[0])
    else:
        damage_to_b, damage_to_a = np.concatenate(to_b), np.concatenate(to_a)
    cap = np.array([s.rules.max_rounds for s in setups], np.int64)
    n = seg.size
    winner = np.zeros(n, np.int8)
    rounds = cap[seg].astype(np.int16)
    cause = np.full(n, MAX_ROUNDS, np.int8)
    live = np.arange(n)
    lane_seg = seg.copy()
    health_a = np.array([s.health[0] for s in setups], np.int16)[seg]
    health_b = np.array([s.health[1] for s in setups], np.int16)[seg]
    n_settled = np.zeros(n_seg, np.int64)
    last_compaction = np.zeros(n_seg, np.int64)

    def lookup(table: np.ndarray, code: np.ndarray) -> np.ndarray:
        if n_seg == 1:
            return np.take(table, code)
        return np.take(table, lane_seg * n_codes + code % n_codes)

    for round_number in range(1, int(cap.max(initial=0)) + 1):
        if not live.size:
            break
        health_b -= lookup(damage_to_b, rng.codes(n_codes, lane_seg))
        health_a -= lookup(damage_to_a, rng.codes(n_codes, lane_seg))
        a_down = health_a <= 0
        done = np.flatnonzero(a_down | (health_b <= 0))
        if done.size:
            a_lost = a_down[done]
            b_lost = health_b[done] <= 0
            fights = live[done]
            winner[fights] = np.where(a_lost, np.where(b_lost, Winner.DRAW, Winner.B), Winner.A)
            rounds[fights] = round_number
            cause[fights] = DOWN
            health_a[done] = _SETTLED
            health_b[done] = _SETTLED
            if n_seg == 1:
                finished, n_live = np.array([done.size]), np.array([live.size])
            else:
                finished = np.bincount(lane_seg[done], minlength=n_seg)
                n_live = np.bincount(lane_seg, minlength=n_seg)
            n_settled += finished
            compact = (finished > 0) & ((4 * n_settled >= n_live)
                                        | (round_number - last_compaction >= 1000))
            if compact.any():
                keep = np.flatnonzero(~compact[lane_seg] | (health_a < _SETTLED // 2))
                live, health_a, health_b = live[keep], health_a[keep], health_b[keep]
                lane_seg = lane_seg[keep]
                n_settled[compact], last_compaction[compact] = 0, round_number
        if (cap == round_number).any():  # segments at their round cap stop here
            keep = np.flatnonzero(cap[lane_seg] > round_number)
            live, health_a, health_b = live[keep], health_a[keep], health_b[keep]
            lane_seg = lane_seg[keep]
    # fights still running at the cap are draws (cause max_rounds), already filled in
    return Outcomes(winner, rounds, cause, CAUSES)


# --- the general kernel -----------------------------------------------------------------------


@dataclass
class _Events:
    """A batch of pending table events, one row per event."""

    fight: np.ndarray  # column of the fight in the live arrays
    roller: np.ndarray  # slot of the fighter whose roll this is
    foe: np.ndarray  # slot of the foe of that roll
    advantage: np.ndarray  # the roller's advantage against the foe
    chain: np.ndarray  # table rolls made so far in this chain
    entry: np.ndarray  # flat entry index (entry * n_live + fight) whose hit it settles, or -1
    diverted: np.ndarray  # bool: the roller diverted, so his strokes on the foe do not land
    protected: np.ndarray  # bool (attacks only): the foe's diversion holds against him

    @classmethod
    def empty(cls) -> _Events:
        z, no = _NO_EVENTS  # empty arrays: nothing can be written into them
        return cls(z, z, z, z, z, z, no, no)

    def __len__(self) -> int:
        return len(self.fight)

    def take(self, mask: np.ndarray) -> _Events:
        return _Events(*(getattr(self, f)[mask] for f in _EVENT_FIELDS))

    @staticmethod
    def concat(batches: list[_Events]) -> _Events:
        batches = [b for b in batches if len(b)]
        if not batches:
            return _Events.empty()
        return _Events(*(np.concatenate([getattr(b, f) for b in batches])
                         for f in _EVENT_FIELDS))


_EVENT_FIELDS = ("fight", "roller", "foe", "advantage", "chain", "entry", "diverted",
                 "protected")
_NO_EVENTS = (np.zeros(0, np.int64), np.zeros(0, bool))
"""The fields of no events (every empty batch's: a round makes many)."""


@functools.cache
def _es_among(names: tuple[str, ...]) -> np.ndarray:
    """bool by ES effect code (the last entry, code -1, False): whether the code is one of
    ``names`` -- ``np.isin`` by one lookup."""
    table = np.zeros(len(ES) + 1, bool)
    table[[ES[name] for name in names]] = True
    table.setflags(write=False)
    return table


@dataclass
class _Strokes:
    """Strokes collected during a round, applied together at its end."""

    fight: list[np.ndarray] = field(default_factory=list)
    attacker: list[np.ndarray] = field(default_factory=list)
    target: list[np.ndarray] = field(default_factory=list)
    deflectable: list[np.ndarray] = field(default_factory=list)  # not an ES stroke, nor a 12
    maximum: list[np.ndarray] = field(default_factory=list)  # ES 6: maximum damage
    through: list[np.ndarray] = field(default_factory=list)  # ES 9: companion hit, or -1
    self_inflicted: list[np.ndarray] = field(default_factory=list)  # EF 11

    def add(self, fight: np.ndarray, attacker: np.ndarray, target: np.ndarray, *,
            deflectable: bool | np.ndarray = True, maximum: bool = False,
            through: np.ndarray | None = None, self_inflicted: bool = False) -> None:
        if not len(fight):
            return
        self.fight.append(fight)
        self.attacker.append(attacker)
        self.target.append(target)
        self.deflectable.append(np.broadcast_to(deflectable, fight.shape))
        self.maximum.append(np.full(fight.shape, maximum))
        self.through.append(np.full(fight.shape, -1) if through is None else through)
        self.self_inflicted.append(np.full(fight.shape, self_inflicted))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(getattr(self, f)) for f in (
            "fight", "attacker", "target", "deflectable", "maximum", "through",
            "self_inflicted"))


class _Set(NamedTuple):
    """An effect to take hold at the round's end: at flat indices ``where``, inflict
    ``subject`` (``defend_only``) for ``value`` rounds, or set it (``shield``) to code
    ``value``."""

    where: np.ndarray
    subject: str
    value: np.ndarray


UNTIL_REMOVED = np.iinfo(np.int16).max
"""The rounds of a condition inflicted until removed (nothing removes one: the fight)."""


class _HouseTerms:
    """The house rules' modifiers over a :class:`_General` kernel's live fights.

    Names are read as they stand at the start of the round (``health``: ``round_health``,
    set before any stroke of the round lands); the arrays are built only for the names the
    rows read.  A kernel without house rules never calls this.
    """

    def __init__(self, kernel: _General, house: HouseRules) -> None:
        self.k = kernel
        self.score_rows = house.on("score")
        self.damage_rows = house.on("damage")
        self.effects = house.effects
        self.score_names = names_used(self.score_rows)
        self.damage_names = names_used(self.damage_rows)
        self.effect_names = names_used(self.effects)
        self.reads_health = any(field_of(n) in ("health", "wounds")
                                for n in (*self.damage_names, *self.effect_names))
        self.static: dict[str, np.ndarray] = {}
        for name in (*self.score_names, *self.damage_names, *self.effect_names):
            field_ = field_of(name)
            if field_ in STATIC_NAMES and field_ not in self.static:
                values = [fighter_value(field_, c, kernel.rules) for c in kernel.setup.fighters]
                declared = vocabulary().names[name]
                self.static[field_] = (declared.encode(values) if declared.kind == "str"
                                       else np.array(values))

    def values(self, field_: str, flat: np.ndarray) -> np.ndarray:
        """One fighter field at flat indices ``slot * n_live + fight``."""
        k = self.k
        n_live = k.live.size
        if field_ == "weapon":
            return np.take(k.weapon.ravel(), flat)
        if field_ == "shield":
            return np.take(k.shield.ravel(), flat)
        if field_ == "health":
            return np.take(k.round_health.ravel(), flat)
        if field_ == "wounds":
            return (np.take(k.setup.health, flat // n_live)
                    - np.take(k.round_health.ravel(), flat))
        if field_ == "score":
            return np.take(k.score_by_weapon, np.take(k.weapon.ravel(), flat) * k.setup.n_slots
                           + flat // n_live)
        return np.take(self.static[field_], flat // n_live)

    def rows_of(self, field_: str, order: np.ndarray) -> np.ndarray:
        """One fighter field for every slot in ``order`` (a permutation of the slots), all
        live fights: ``(n_slots * n_live,)``, slot-major, without a gather per fight."""
        k = self.k
        if field_ in ("weapon", "shield", "health"):
            state = {"weapon": k.weapon, "shield": k.shield, "health": k.round_health}[field_]
            return state[order].ravel()
        if field_ == "wounds":
            return (k.setup.health[order, None] - k.round_health[order]).ravel()
        if field_ == "score":
            return np.take(k.score_by_weapon, k.weapon[order] * k.setup.n_slots
                           + order[:, None]).ravel()
        return np.repeat(self.static[field_][order], k.live.size)

    def env(self, names: Sequence[str], flat_self: np.ndarray, flat_target: np.ndarray,
            orders: tuple[np.ndarray, np.ndarray] | None = None) -> dict[str, Any]:
        """The values of ``names`` for fighters ``flat_self`` facing ``flat_target`` (flat
        indices, one dimension); ``orders``: the slots of each, when they are whole slot
        rows (every slot facing a fixed foe: a duel), read without a gather."""
        env: dict[str, Any] = {}
        for name in names:
            if name == "round":
                env[name] = self.k.round_number
            elif name == "foes_engaged":
                env[name] = np.take(self.k.foes_engaged().ravel(), flat_self)
            else:
                role, _, field_ = name.partition(".")
                me = role == "self"
                env[name] = (self.rows_of(field_, orders[0 if me else 1]) if orders is not None
                             else self.values(field_, flat_self if me else flat_target))
        return env

    def score(self, x: np.ndarray, y: np.ndarray, valid: np.ndarray) -> np.ndarray:
        """int32 (n_slots, n_live): the score modifiers of every fighter against the foe it
        faces first in the exchanges ``x, y, valid`` (0 for one facing nobody)."""
        k = self.k
        n_slots, n_live = k.setup.n_slots, k.live.size
        if n_slots == 2:  # a duel: each faces the other, every slot row whole
            slots = np.arange(2)
            env = self.env(self.score_names, slots, slots, orders=(slots, slots[::-1]))
            return total(self.score_rows, "score", env, k.rng,
                         n=2 * n_live).value.reshape(2, n_live).astype(np.int32)
        fights = np.arange(n_live)
        target = np.full((n_slots, n_live), -1, np.int64)
        flat_target = target.ravel()
        for e in reversed(range(x.shape[0])):  # the first exchange of a lone fighter wins
            ok = valid[e]
            flat_target[(x[e] * n_live + fights)[ok]] = y[e][ok]
            flat_target[(y[e] * n_live + fights)[ok]] = x[e][ok]
        has = target >= 0
        slot = np.arange(n_slots)[:, None]
        flat_self = (slot * n_live + fights).ravel()
        flat_foe = (np.where(has, target, slot) * n_live + fights).ravel()
        value = total(self.score_rows, "score", self.env(self.score_names, flat_self, flat_foe),
                      k.rng, n=flat_self.size).value
        return np.where(has, value.reshape(n_slots, n_live), 0).astype(np.int32)

    def wounds(self, flat_self: np.ndarray, flat_target: np.ndarray) -> list[_Set]:
        """The effects on a ``wound`` by each ``flat_self`` on its ``flat_target`` (flat
        indices, one dimension), read as the round found them: what to set at the round's
        end, in the rows' order (``_Set``: the flat indices, the condition or state, the
        rounds or the shield code)."""
        out: list[_Set] = []
        if not flat_self.size:
            return out
        env = self.env(self.effect_names, flat_self, flat_target)
        n = flat_self.size
        for firing in fire(self.effects, {"wound": np.ones(n, bool)}, env, self.k.rng, n=n):
            effect = firing.row
            who = flat_self if effect.who == "self" else flat_target  # type: ignore[union-attr]
            mask = np.broadcast_to(firing.mask, (n,))
            quantity = (np.full(n, UNTIL_REMOVED, np.int64) if firing.quantity is None
                        else np.broadcast_to(firing.quantity, (n,)))
            out.append(_Set(who[mask], effect.subject,  # type: ignore[union-attr]
                            quantity[mask]))
        return out

    def damage(self, flat_self: np.ndarray, flat_target: np.ndarray,
               where: np.ndarray | None = None) -> np.ndarray | int:
        """int64 (the shape of ``flat_self``): the damage modifiers of strokes by
        ``flat_self`` on ``flat_target`` (only ``where``, if given; 0 elsewhere)."""
        if not self.damage_rows:
            return 0
        out = np.zeros(flat_self.shape, np.int64)
        idx = np.flatnonzero(where) if where is not None else np.arange(flat_self.size)
        if idx.size:
            env = self.env(self.damage_names, flat_self.ravel()[idx], flat_target.ravel()[idx])
            out.ravel()[idx] = total(self.damage_rows, "damage", env, self.k.rng,
                                     n=idx.size).value
        return out


class _General:
    """Every rule of seed 001 over fights of many matchups under the same rules and side
    sizes: fight ``i`` is one of segment ``seg[i]`` (its combatants at ``setup``'s rows
    ``seg[i] * n_slots + slot``, :meth:`_Setup.stacked`), and every draw for it comes from
    that segment's generator (:mod:`balance.batching`).

    State arrays are slot-major, ``(n_slots, n_live)``, so that each slot's row is
    contiguous; entries are ``(n_entries, n_live)``.  Reads of a slot chosen per fight go
    through flat indices (``slot * n_live + fight``) and ``take``, which NumPy does far
    faster than 2-D fancy indexing on narrow arrays.  A combatant's own values (score,
    armour, policy, ...) are read at ``slot + base`` (``base``: each live fight's
    segment times ``n_slots``; 0 with one segment).
    """

    def __init__(self, setup: _Setup, seg: np.ndarray, rng: SegmentedRng,
                 house: HouseRules | None = None) -> None:
        self.setup = setup
        self.rules = setup.rules
        self.srng = rng
        self.single = len(rng) == 1
        if house and not self.single:
            raise ValueError("house terms read one matchup's fighters: one segment a batch")
        self.rng = rng.generators[0] if self.single else None  # the house terms' dice
        n = seg.size
        n_slots = setup.n_slots
        self.width = setup.score.shape[0]  # n_segments * n_slots
        self.seg = seg  # each live fight's segment
        self.base: np.ndarray | int = 0 if self.single else seg * n_slots
        has = setup.divert_policy.reshape(-1, n_slots)
        self.has_random = (has == RANDOM).any(axis=1)  # per segment
        self.has_by_band = (has == BY_BAND).any(axis=1)
        self.winner = np.zeros(n, np.int8)
        self.rounds = np.full(n, self.rules.max_rounds, np.int16)
        self.cause = np.full(n, MAX_ROUNDS, np.int8)
        self.live = np.arange(n)
        rows = np.arange(n_slots)[:, None] + seg * n_slots  # (n_slots, n): each one's row
        self.health = setup.health[rows]
        self.weapon = setup.weapon[rows]
        self.shield = setup.shield[rows]  # codes: SHIELDS
        self.forced_diversion = np.zeros((n_slots, n), bool)  # may only defend (EF 5, EF 9)
        self.out_cause = np.full((n_slots, n), STANDING, np.int8)
        self.fell_in_round = np.full((n_slots, n), -1, np.int16)
        self.round_number = 0
        self.any_forced_diversion = False
        self.pending_rerolls: list[_Events] = []
        die = self.rules.damage_die
        code = np.arange(36 * die * 6)
        self.n_codes = code.size
        self.code_roll = expand(ROLL_2D6[code % 36])
        self.code_damage_die = expand(((code // 36) % die + 1).astype(np.int16))
        self.code_shield_die = expand((code // (36 * die) + 1).astype(np.int8))
        # [weapon type * width + row]: combat score of that row with that weapon type
        self.score_by_weapon = setup.score.T.ravel().astype(np.int16)
        self.stroke_flat = setup.stroke.ravel()  # [(advantage + REACH) * 13 + roll]
        self.round_health = self.health  # health at the start of the round (house rules)
        self.terms = _HouseTerms(self, house) if house else None
        # house-rule effects: rounds left of "may only defend" (after this one)
        self.defend_only = (np.zeros((n_slots, n), np.int16)
                            if self.terms is not None and self.terms.effects else None)

    def foes_engaged(self) -> np.ndarray:
        """int (n_slots, n_live): how many foes each fighter faces in this round's
        exchanges."""
        x, y, valid = self.exchanges[:3]
        n_live = self.live.size
        count = np.zeros((self.setup.n_slots, n_live), np.int64)
        fights = np.arange(n_live)
        for e in range(x.shape[0]):
            count.ravel()[x[e] * n_live + fights] += valid[e]
            count.ravel()[y[e] * n_live + fights] += valid[e]
        return count

    @property
    def standing(self) -> np.ndarray:
        return self.out_cause == STANDING

    # --- rolling: every draw for live fights ``fight``, from their segments' streams -----
    def lanes(self, fight: np.ndarray) -> Lanes | np.ndarray:
        """The lanes of live fights ``fight`` for several draws (:class:`Lanes`)."""
        return self.seg[fight] if self.single else self.srng.lanes(self.seg[fight])

    def live_lanes(self) -> Lanes | np.ndarray:
        """The lanes of every live fight: ``seg`` stays in segment order (fights are laid
        out segment by segment, and compaction keeps their order), so no sort."""
        return self.seg if self.single else Lanes.ascending(self.seg, len(self.srng))

    def d6(self, fight: np.ndarray, lanes: Lanes | np.ndarray | None = None) -> np.ndarray:
        return self.srng.integers(1, 7, self.seg[fight] if lanes is None else lanes,
                                  dtype=np.int8)

    def two_d6(self, fight: np.ndarray) -> np.ndarray:
        return ROLL_2D6[self.srng.integers(0, 36, self.seg[fight], dtype=np.uint8)]

    def uniform(self, fight: np.ndarray) -> np.ndarray:
        return self.srng.random(self.seg[fight])

    def row(self, slot: np.ndarray, fight: np.ndarray) -> np.ndarray:
        """The setup row of ``slot`` in live fights ``fight`` (its segment's combatant)."""
        return slot if self.single else slot + np.take(self.base, fight)

    def scores_now(self, bonus: np.ndarray | None = None) -> np.ndarray:
        """int16 (n_slots, n_live): each slot's combat score with the weapon in hand."""
        n_slots = self.setup.n_slots
        score = np.take(self.score_by_weapon,
                        self.weapon.astype(np.intp) * self.width
                        + np.arange(n_slots)[:, None] + self.base)
        return score if bonus is None else score + bonus

    # --- engagement (001.7), as the reference's ``engage`` --------------------------------
    def engage(self, bonus: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """This round's exchanges for every live fight.

        Returns ``x, y, valid, advantage_x, advantage_y``, each (n_exchanges, n_live): the
        lone or paired fighter, his foe, whether the exchange exists, and both advantages.
        """
        setup, rules = self.setup, self.rules
        n_live = self.live.size
        if setup.n_a == 1 and setup.n_b == 1:
            score = self.scores_now(bonus)
            d = (score[0] - score[1])[None, :]
            zero = np.zeros((1, n_live), np.int64)
            return zero, zero + 1, np.ones((1, n_live), bool), d, -d
        standing = self.standing
        score = self.scores_now(bonus).astype(np.int32)
        key = np.where(standing, score, -(1 << 20))
        order_a = np.argsort(-key[: setup.n_a], axis=0, kind="stable")
        order_b = np.argsort(-key[setup.n_a:], axis=0, kind="stable") + setup.n_a
        n_standing_a = standing[: setup.n_a].sum(axis=0)
        n_standing_b = standing[setup.n_a:].sum(axis=0)
        n_exchanges = max(setup.n_a, setup.n_b)  # the larger side, all engaged at most
        # Larger side's members j in rank order; j is dealt to lone fighter j % n_lone.
        a_lone = n_standing_a < n_standing_b
        equal = n_standing_a == n_standing_b
        n_lone = np.maximum(np.minimum(n_standing_a, n_standing_b), 1)
        n_pack = np.maximum(n_standing_a, n_standing_b)
        n_engaged = np.where(equal, n_standing_a, np.minimum(n_pack, rules.max_foes * n_lone))
        pad_a = np.concatenate([order_a, np.repeat(order_a[:1], n_exchanges, axis=0)], axis=0)
        pad_b = np.concatenate([order_b, np.repeat(order_b[:1], n_exchanges, axis=0)], axis=0)
        j = np.arange(n_exchanges)[:, None]
        lone_index = np.where(equal, j, j % n_lone)
        a_first = a_lone | equal
        x = np.where(a_first, np.take_along_axis(pad_a, lone_index, axis=0),
                     np.take_along_axis(pad_b, lone_index, axis=0))
        y = np.where(a_first, pad_b[:n_exchanges], pad_a[:n_exchanges])
        valid = j < n_engaged
        fights = np.arange(n_live)
        score_y = np.where(valid, np.take(score.ravel(), y * n_live + fights), 0)
        # Aggregate of each lone fighter's foes: foes j' with j' % n_lone == j % n_lone.
        same = (lone_index[:, None, :] == lone_index[None, :, :]) & valid[None, :, :]
        aggregate = (same * score_y[None, :, :]).sum(axis=1)
        first = j < np.where(equal, n_standing_a, n_lone)
        d = np.take(score.ravel(), x * n_live + fights) - aggregate
        advantage_x = np.where(first, d, 0)
        keep = rules.multi_zero_mode == "foes_keep_aggregate"
        advantage_y = np.where(first | keep, -d, 0)
        return x, y, valid, advantage_x, advantage_y

    # --- one round ------------------------------------------------------------------------
    def exchange_round(self, bonus: np.ndarray | None, actors: np.ndarray | None,
                       divert_allowed: bool, tables: bool) -> None:
        """Roll, declare, resolve and apply one round for every live fight.

        ``actors`` (2, n_live) bool limits who rolls, by side (one-sided ambush exchanges).
        """
        setup, rules = self.setup, self.rules
        n_live = self.live.size
        n_slots = setup.n_slots
        self.round_health = self.health
        x, y, valid, advantage_x, advantage_y = self.engage(bonus)
        if self.terms is not None and self.terms.score_rows:
            # house rules on the score, against the foe each faces as the scores before
            # modifiers pair them; then the exchanges again with the modified scores
            self.exchanges = (x, y, valid, advantage_x, advantage_y)
            extra = self.terms.score(x, y, valid)
            bonus = extra if bonus is None else bonus + extra
            x, y, valid, advantage_x, advantage_y = self.engage(bonus)
        self.exchanges = (x, y, valid, advantage_x, advantage_y)
        n_entries = 2 * x.shape[0]
        attacker = np.empty((n_entries, n_live), np.int64)
        target = np.empty((n_entries, n_live), np.int64)
        advantage = np.empty((n_entries, n_live), np.int32)
        rolls = np.empty((n_entries, n_live), bool)  # the entry exists and its fighter rolls
        attacker[0::2], attacker[1::2] = x, y
        target[0::2], target[1::2] = y, x
        advantage[0::2], advantage[1::2] = advantage_x, advantage_y
        rolls[0::2], rolls[1::2] = valid, valid
        fights = np.arange(n_live)
        flat_attacker = attacker * n_live + fights
        flat_target = target * n_live + fights
        # In a duel entry k is slot k striking slot 1 - k: reads need no gather at all.
        self.duel = n_slots == 2
        if actors is not None:
            rolls &= np.take(actors.ravel(), np.take(setup.side, attacker) * n_live + fights)
        code = self.srng.codes(self.n_codes, self.live_lanes(), rows=n_entries)
        roll = np.take(self.code_roll, code)
        # --- declarations (001.5) ---
        if divert_allowed and (setup.divert_policy.any() or self.any_forced_diversion):
            diverts = self.decide(attacker, flat_attacker, advantage) & rolls
        else:
            diverts = np.zeros((n_entries, n_live), bool)
        twelve = roll == 12
        two = roll == 2
        stroke = np.take(self.stroke_flat, (np.clip(advantage, -REACH, REACH) + REACH) * 13
                         + roll)
        holds = diverts & stroke  # a diversion holds on a scoring roll (a 12 always, a 2 never)
        partner = np.arange(n_entries) ^ 1
        if rules.divert_scope == "pair":
            protected = holds[partner]  # my target's diversion against me holds
        else:
            holds_by_slot = np.zeros(n_slots * n_live, bool)
            for k in range(n_entries):
                holds_by_slot[flat_attacker[k]] |= holds[k]
            protected = np.take(holds_by_slot, flat_target)
        attacking = rolls & ~diverts
        if tables:
            ordinary = attacking & ~protected & stroke & ~twelve
        else:
            ordinary = attacking & ~protected & stroke
        ordinary |= attacking & protected & twelve  # a 12 lands through a diversion (001.5)
        # a 12 read without the ES table is still a 12: no shield deflects it (001.9)
        undeflectable = (ordinary & twelve & ~protected if not rules.shield_stops_12
                         else np.zeros_like(ordinary))
        self.hit = ordinary.copy()
        self.attacker, self.target, self.advantage, self.diverts = (
            attacker, target, advantage, diverts)
        self.protected = protected
        self.strokes = _Strokes()
        # effects of the tables, kept sparse as flat indices ``slot * n_live + fight``
        self.effects: dict[str, list[np.ndarray]] = {
            "nullify": [], "unarm": [], "lose_shield": [], "forced": [], "out": [], "cause": [],
            "take": [], "taken_weapon": []}
        if tables:
            self.tables_round(rolls & two, attacking & ~protected & twelve, diverts & twelve)
        self.apply(ordinary, undeflectable, code, flat_attacker, flat_target, target)

    def decide(self, attacker: np.ndarray, flat_attacker: np.ndarray, advantage: np.ndarray
               ) -> np.ndarray:
        """Each entry's diversion declaration, by its fighter's policy (001.5)."""
        setup = self.setup
        forced = self.at_attacker(self.forced_diversion, flat_attacker)
        if not setup.divert_policy.any():
            return forced
        row = attacker + self.base
        policy = np.take(setup.divert_policy, row)
        diverts = (policy == ALWAYS) | ((policy == IF_DEFICIT) & (advantage < 0))
        low = None
        if ((setup.divert_policy == BELOW_HEALTH) | (setup.divert_policy == REACTIVE)).any():
            low = (self.at_attacker(self.health, flat_attacker)
                   <= np.take(setup.divert_health, row))
            diverts |= (policy == BELOW_HEALTH) & low
        if self.has_random.any():
            diverts |= (policy == RANDOM) & (self.entry_uniforms(self.has_random, row.shape)
                                             < np.take(setup.divert_p, row))
        if self.has_by_band.any():
            band_code = setup.band_code[np.clip(advantage, -REACH, REACH) + REACH]
            p_divert = np.take(setup.divert_by_band.ravel(), row * len(BANDS) + band_code)
            diverts |= (policy == BY_BAND) & (self.entry_uniforms(self.has_by_band, row.shape)
                                              < p_divert)
        diverts |= forced
        if low is not None and (setup.divert_policy == REACTIVE).any():
            # 001.5: the deficit side declares first, in public; the advantaged one answers
            # knowing it (at zero, or with declarations written down, no answer).  Entries
            # come in pairs, k and k ^ 1 being the two sides of one pairing.
            reactive = policy == REACTIVE
            answers = self.rules.declarations == "deficit_first"
            first = reactive & ((advantage <= 0) | (not answers))
            diverts |= first & low
            partner = np.arange(attacker.shape[0]) ^ 1
            second = reactive & ~first
            diverts |= second & low & ~diverts[partner]
        return diverts

    def entry_uniforms(self, drawing: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Uniforms ``(n_entries, n_live)`` for the fights of segments ``drawing`` (bool per
        segment: those with a fighter whose policy draws), entry-major as one segment alone
        draws them; 1 (never below a probability) for the rest, who draw nothing."""
        if self.single:
            return self.srng.random(np.zeros(int(np.prod(shape)), np.intp)).reshape(shape)
        lanes = np.flatnonzero(drawing[self.seg])
        out = np.ones(shape)
        out[:, lanes] = self.srng.draw(self.seg[lanes], lambda g, c: g.random(c), rows=shape[0])
        return out

    def mark(self, effect: str, slot: np.ndarray, fight: np.ndarray) -> None:
        """Record an end-of-round effect on (slot, fight) pairs."""
        if slot.size:
            self.effects[effect].append(slot * self.live.size + fight)

    def take_out(self, slot: np.ndarray, fight: np.ndarray, cause: int) -> None:
        """Mark fighters out at the round's end; the highest-priority cause wins."""
        if slot.size:
            self.effects["out"].append(slot * self.live.size + fight)
            self.effects["cause"].append(np.full(slot.size, cause, np.int8))

    def flat(self, effect: str) -> np.ndarray:
        parts = self.effects[effect]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)

    def at_attacker(self, state: np.ndarray, flat_attacker: np.ndarray) -> np.ndarray:
        """``state`` (n_slots, n_live) read at each entry's attacker: (n_entries, n_live)."""
        return state if self.duel else np.take(state.ravel(), flat_attacker)

    def at_target(self, state: np.ndarray, flat_target: np.ndarray) -> np.ndarray:
        """``state`` (n_slots, n_live) read at each entry's target: (n_entries, n_live)."""
        return state[::-1] if self.duel else np.take(state.ravel(), flat_target)

    # --- the Extraordinary tables (001.6) ----------------------------------------------------
    def tables_round(self, failure_mask: np.ndarray, success_mask: np.ndarray,
                     diverted_twelve: np.ndarray) -> None:
        n_live = failure_mask.shape[1]

        def events(mask: np.ndarray) -> _Events:
            k, fight = np.nonzero(mask)
            return _Events(fight, self.attacker[k, fight], self.target[k, fight],
                           self.advantage[k, fight].astype(np.int64),
                           np.ones(fight.size, np.int64), k * n_live + fight,
                           self.diverts[k, fight], np.zeros(fight.size, bool))

        # attackers (protected or not) and diverters who rolled 2 go to the failure table;
        # a diverter's strokes on his foe never land (``diverted``)
        failures = events(failure_mask)
        successes = events(success_mask)
        diverted_successes = (events(diverted_twelve) if self.rules.divert_12_es
                              else _Events.empty())
        self.drain(failures, _Events.concat([successes, diverted_successes]), _Events.empty())
        self.rerolls()

    def drain(self, failures: _Events, successes: _Events, attacks: _Events) -> None:
        """Resolve table events and extra attack rolls until none are pending."""
        while len(failures) or len(successes) or len(attacks):
            new_failures, new_successes, new_attacks = [], [], []
            if len(attacks):
                from_attacks = self.attack_rolls(attacks)
                new_failures.append(from_attacks[0])
                new_successes.append(from_attacks[1])
            if len(failures):
                new_successes.append(self.failure(failures))
            if len(successes):
                from_successes = self.success(successes)
                new_failures.append(from_successes[0])
                new_attacks.append(from_successes[1])
            failures, successes, attacks = (_Events.concat(new_failures),
                                            _Events.concat(new_successes),
                                            _Events.concat(new_attacks))

    def deflectable(self, roll: np.ndarray) -> np.ndarray:
        """Whether strokes scored by ``roll`` without the ES table may be deflected: a 12
        may not (001.9), unless ``shield_stops_12``."""
        return (roll != 12) | self.rules.shield_stops_12

    def set_hit(self, entry: np.ndarray) -> None:
        self.hit.ravel()[entry[entry >= 0]] = True

    def attack_rolls(self, ev: _Events) -> tuple[_Events, _Events]:
        """Fresh attacking rolls (ES 3 extra exchanges, EF 7 rerolls): as ``attack``."""
        cap = self.rules.max_table_chain
        roll = self.two_d6(ev.fight)
        # protected attacks: only a 12 lands (as an ordinary stroke), nothing else
        through = ev.protected & (roll == 12)
        self.strokes.add(ev.fight[through], ev.roller[through], ev.foe[through])
        self.set_hit(ev.entry[through])
        open_ = ~ev.protected
        to_failure = open_ & (roll == 2) & (ev.chain < cap)
        to_success = open_ & (roll == 12) & (ev.chain < cap)
        plain = open_ & ~to_failure & ~to_success & self.setup.strokes(ev.advantage, roll)
        self.strokes.add(ev.fight[plain], ev.roller[plain], ev.foe[plain],
                         deflectable=self.deflectable(roll[plain]))
        self.set_hit(ev.entry[plain])
        next_failures, next_successes = ev.take(to_failure), ev.take(to_success)
        next_failures.chain = next_failures.chain + 1
        next_successes.chain = next_successes.chain + 1
        return next_failures, next_successes

    def failure(self, ev: _Events) -> _Events:
        """One Extraordinary Failure roll per event; returns the ES events of EF 12."""
        rules = self.rules
        effect = self.setup.failure_effect[self.two_d6(ev.fight)]
        fight, roller = ev.fight, ev.roller
        mishap = (effect == EF["slain"]) | (effect == EF["unconscious"]) | (effect == EF["maimed"])
        self.take_out(roller[mishap], fight[mishap], MISHAP)
        tripped = effect == EF["tripped"]
        self.mark("forced", roller[tripped], fight[tripped])
        six = np.flatnonzero(effect == EF["shattered"])
        if six.size:
            which = self.d6(fight[six])
            has_shield = self.shield[roller[six], fight[six]] > 0
            shield_hit = (which <= 3) & has_shield
            weapon_hit = (which > 3) | ((which <= 3) & ~has_shield
                                         & (rules.ef6_no_shield == "weapon"))
            self.mark("lose_shield", roller[six][shield_hit], fight[six][shield_hit])
            self.mark("unarm", roller[six][weapon_hit], fight[six][weapon_hit])
        reroll = effect == EF["foe_reroll"]
        if reroll.any():
            self.pending_rerolls.append(ev.take(reroll))
        stripped = effect == EF["stripped"]
        self.mark("unarm", roller[stripped], fight[stripped])
        if rules.ef8 == "foe_takes_it" and stripped.any():  # "[they have it]"
            weapon = self.weapon[roller[stripped], fight[stripped]]
            armed = weapon != UNARMED
            self.mark("take", ev.foe[stripped][armed], fight[stripped][armed])
            self.effects["taken_weapon"].append(weapon[armed])
        if rules.ef9 == "lose_next_attack":
            dropped = effect == EF["dropped"]
            self.mark("forced", roller[dropped], fight[dropped])
        struck_self = effect == EF["struck_self"]
        self.strokes.add(fight[struck_self], roller[struck_self], roller[struck_self],
                         self_inflicted=True)
        won_through = effect == EF["won_through"]
        go_on = won_through & (ev.chain < rules.max_table_chain)
        plain = won_through & ~go_on & ~ev.diverted
        self.strokes.add(fight[plain], roller[plain], ev.foe[plain])
        self.set_hit(ev.entry[plain])
        following = ev.take(go_on)
        following.chain = following.chain + 1
        return following

    def other_foe(self, fight: np.ndarray, roller: np.ndarray, foe: np.ndarray,
                  skip: np.ndarray | None = None) -> np.ndarray:
        """The first standing foe engaged with ``roller`` other than ``foe`` (and ``skip``),
        or -1."""
        x, y, valid, _, _ = self.exchanges
        found = np.full(fight.shape, -1, np.int64)
        for e in range(x.shape[0]):
            xe, ye, ve = x[e, fight], y[e, fight], valid[e, fight]
            candidate = np.where(xe == roller, ye, np.where(ye == roller, xe, -1))
            usable = ve & (candidate >= 0) & (candidate != foe) & (found < 0)
            if skip is not None:
                usable &= candidate != skip
            # out causes change only at the round's end: standing at its start
            usable &= self.out_cause[np.maximum(candidate, 0), fight] == STANDING
            found = np.where(usable, candidate, found)
        return found

    def band(self, fight: np.ndarray, roller: np.ndarray, foe: np.ndarray) -> np.ndarray:
        """``roller``'s advantage against ``foe`` in this round's exchanges (0 if none)."""
        x, y, valid, advantage_x, advantage_y = self.exchanges
        out = np.zeros(fight.shape, np.int64)
        for e in range(x.shape[0]):
            xe, ye, ve = x[e, fight], y[e, fight], valid[e, fight]
            out = np.where(ve & (xe == roller) & (ye == foe), advantage_x[e, fight], out)
            out = np.where(ve & (ye == roller) & (xe == foe), advantage_y[e, fight], out)
        return out

    def success(self, ev: _Events) -> tuple[_Events, _Events]:
        """One Extraordinary Success roll per event; returns new EF events and attacks."""
        rules = self.rules
        cap = rules.max_table_chain
        effect = self.setup.success_effect[self.two_d6(ev.fight)]
        fight, roller, foe = ev.fight, ev.roller, ev.foe
        own = ~ev.diverted  # strokes on the foe land (and settle the hit) unless he diverted
        new_failures: list[_Events] = []
        new_attacks: list[_Events] = []

        def strike(mask: np.ndarray, maximum: bool = False) -> None:
            mask = mask & own
            self.strokes.add(fight[mask], roller[mask], foe[mask], deflectable=False,
                             maximum=maximum)
            self.set_hit(ev.entry[mask])

        def among(*names: str) -> np.ndarray:
            return _es_among(names)[effect]

        # Before the Devil knows your dead
        devil = effect == ES["devil"]
        if rules.es2_mode == "roller_fails":
            following = ev.take(devil & (ev.chain < cap))
            following.chain = following.chain + 1
            new_failures.append(following)
        elif rules.es2_mode == "foe_slain":
            self.take_out(foe[devil], fight[devil], MISHAP)
        else:  # foe_rolls_ef: the stroke lands and the foe rolls on the failure table
            strike(devil)
            foes = ev.take(devil & (ev.chain < cap))
            none = np.full(len(foes), -1)
            no = np.zeros(len(foes), bool)
            new_failures.append(_Events(foes.fight, foes.foe, foes.roller, -foes.advantage,
                                        foes.chain + 1, none, no, no))
        # these need another engaged foe of the roller
        needs_other = among("extra_exchange", "extra_stroke", "two_extra_attacks",
                            "strike_through")
        other = np.full(fight.shape, -1, np.int64)
        if needs_other.any():
            idx = np.flatnonzero(needs_other)
            other[idx] = self.other_foe(fight[idx], roller[idx], foe[idx])
        strike(among("extra_exchange", "extra_stroke", "two_extra_attacks", "two_strokes",
                     "disarm", "stroke"))
        three = np.flatnonzero((effect == ES["extra_exchange"]) & (other >= 0))
        if three.size:
            f3, r3, o3, chain = fight[three], roller[three], other[three], ev.chain[three]
            none = np.full(three.size, -1)
            no = np.zeros(three.size, bool)
            new_attacks.append(_Events(f3, r3, o3, self.band(f3, r3, o3), chain, none, no, no))
            new_attacks.append(_Events(f3, o3, r3, self.band(f3, o3, r3), chain, none, no, no))
        four = (effect == ES["extra_stroke"]) & (other >= 0)
        self.strokes.add(fight[four], roller[four], other[four])
        five = np.flatnonzero((effect == ES["two_extra_attacks"]) & (other >= 0))
        if five.size:
            f5, r5, foe5 = fight[five], roller[five], foe[five]
            first = other[five]
            second = self.other_foe(f5, r5, foe5, skip=first)
            for extra_target in (first, second):
                has = extra_target >= 0
                roll = self.two_d6(f5)
                lands = has & (roll != 2) & self.setup.strokes(
                    self.band(f5, r5, np.maximum(extra_target, 0)), roll)
                self.strokes.add(f5[lands], r5[lands], extra_target[lands],
                                 deflectable=self.deflectable(roll[lands]))
        stuck = effect == ES["max_damage_stuck"]
        strike(stuck, maximum=True)
        self.mark("unarm", roller[stuck], fight[stuck])
        slip = effect == ES["slip_saves"]
        self.mark("nullify", roller[slip], fight[slip])
        if rules.es7_own_stroke:
            strike(slip)
        strike(effect == ES["two_strokes"])  # the second of two strokes
        through = (effect == ES["strike_through"]) & own
        self.strokes.add(fight[through], roller[through], foe[through], deflectable=False,
                         through=other[through])
        self.set_hit(ev.entry[through])
        disarm = effect == ES["disarm"]
        self.mark("unarm", foe[disarm], fight[disarm])
        broken = effect == ES["break_weapon"]
        surrender = broken & self.setup.es11_surrender[self.row(roller, fight)]  # his choice
        self.take_out(foe[surrender], fight[surrender], SURRENDER)
        broken &= ~surrender
        strike(broken)
        self.mark("unarm", foe[broken], fight[broken])
        breaks = np.flatnonzero(effect == ES["enemy_breaks"])
        if breaks.size:
            f12, foe12 = fight[breaks], foe[breaks]
            self.take_out(foe12, f12, BROKE)
            side_of_foe = self.setup.side[foe12]
            standing = self.out_cause[:, f12] == STANDING  # (n_slots, events)
            same_side = self.setup.side[:, None] == side_of_foe[None, :]
            n_allies = (standing & same_side).sum(axis=0)
            leads = self.setup.leader[self.row(foe12, f12)] & (n_allies > 1)
            if leads.any():
                led = np.flatnonzero(leads)
                led = led[self.uniform(f12[led]) < rules.leader_break_p]
                slot, event = np.nonzero(standing[:, led] & same_side[:, led])
                self.take_out(slot, f12[led][event], BROKE)
        return _Events.concat(new_failures), _Events.concat(new_attacks)

    def rerolls(self) -> None:
        """EF 7: a foe who missed rerolls; the new roll stands (as in the reference)."""
        n_entries, n_live = self.attacker.shape
        while self.pending_rerolls:
            batch = _Events.concat(self.pending_rerolls)
            self.pending_rerolls = []
            # the foe's entry in this round's exchanges: attacker = foe, target = roller
            fight, roller, foe = batch.fight, batch.roller, batch.foe
            entry = np.full(fight.shape, -1, np.int64)
            for k in range(n_entries):
                match = ((self.attacker[k, fight] == foe) & (self.target[k, fight] == roller)
                         & ~self.diverts[k, fight] & ~self.hit[k, fight])
                entry = np.where(match & (entry < 0), k * n_live + fight, entry)
            has = entry >= 0
            # two rerolls for one entry in one batch: the second waits for the next pass
            _, first = np.unique(entry[has], return_index=True)
            keep = np.zeros(fight.shape, bool)
            keep[np.flatnonzero(has)[first]] = True
            later = has & ~keep
            if later.any():
                self.pending_rerolls.append(batch.take(later))
            e = entry[keep]
            k, f = e // n_live, e % n_live
            attacks = _Events(f, self.attacker[k, f], self.target[k, f],
                              self.advantage[k, f].astype(np.int64), np.zeros(e.size, np.int64),
                              e, np.zeros(e.size, bool), self.protected[k, f])
            self.drain(_Events.empty(), _Events.empty(), attacks)

    # --- applying a round ---------------------------------------------------------------------
    def damage(self, flat_attacker: np.ndarray, target: np.ndarray, flat_target: np.ndarray,
               die: np.ndarray, shield_die: np.ndarray, deflectable: np.ndarray | bool
               ) -> np.ndarray:
        """Damage of strokes after shield and armour (001.9); flat indices into
        (n_slots, n_live)."""
        rules, setup = self.rules, self.setup
        weapon = np.take(self.weapon.ravel(), flat_attacker)
        bonus = 0 if self.terms is None else self.terms.damage(flat_attacker, flat_target)
        raw = np.maximum(rules.min_damage, die + np.take(setup.damage_mod, weapon) + bonus)
        fight = flat_target % self.live.size if self.live.size else flat_target
        dealt = np.maximum(0, raw - np.take(setup.armour, self.row(target, fight)))
        block = np.take(self.setup.block_of_shield, np.take(self.shield.ravel(), flat_target))
        return np.where(deflectable & (shield_die <= block), 0, dealt).astype(np.int16)

    def apply(self, ordinary: np.ndarray, undeflectable: np.ndarray, code: np.ndarray,
              flat_attacker: np.ndarray, flat_target: np.ndarray, target: np.ndarray) -> None:
        n_live = self.live.size
        if self.terms is not None and self.terms.reads_health:
            self.round_health = self.health.copy()  # strokes land one by one below
        flat_health = self.health.ravel()
        nullified = self.flat("nullify")  # ES 7: every stroke on these is cancelled
        # ordinary strokes of the main pass: each entry's own damage and shield dice
        if ordinary.any():
            rules, setup = self.rules, self.setup
            weapon = self.at_attacker(self.weapon, flat_attacker)
            bonus = (0 if self.terms is None
                     else self.terms.damage(flat_attacker, flat_target, where=ordinary))
            raw = np.maximum(rules.min_damage, np.take(self.code_damage_die, code)
                             + np.take(setup.damage_mod, weapon) + bonus)
            armour = (setup.armour[::-1, None] if self.duel and self.single
                      else np.take(setup.armour, target + self.base))
            dealt = np.maximum(0, raw - armour).astype(np.int16)
            deflected = ((np.take(self.code_shield_die, code)
                          <= np.take(setup.block_of_shield,
                                     self.at_target(self.shield, flat_target)))
                         & ~undeflectable)
            dealt[~ordinary | deflected] = 0
            if nullified.size:
                slot, fight = np.divmod(nullified, n_live)
                for k in range(ordinary.shape[0]):
                    dealt[k, fight[target[k, fight] == slot]] = 0
            if self.duel:
                self.health -= dealt[::-1]
            else:
                for k in range(ordinary.shape[0]):  # within one entry row, targets differ
                    flat_health[flat_target[k]] -= dealt[k]
            if self.defend_only is not None:  # the house rules' effects on a wound
                wound = dealt > 0
                pending = self.terms.wounds(flat_attacker[wound],  # type: ignore[union-attr]
                                            flat_target[wound])
        else:
            pending = []
        # Every stroke collected in ``self.strokes`` comes from a table result; the damage
        # each fighter takes from them this round decides the end cause of his fall.
        table_damage = None
        if self.strokes.fight:
            table_damage = np.zeros(flat_health.size, np.int32)
            fight, attacker, target_, deflectable, maximum, through, self_inflicted = (
                self.strokes.arrays())
            lanes = self.lanes(fight)
            die = np.where(maximum, self.rules.damage_die,
                           self.srng.integers(1, self.rules.damage_die + 1, lanes))
            flat_struck = target_ * n_live + fight
            dealt = self.damage(attacker * n_live + fight, target_, flat_struck, die,
                                self.d6(fight, lanes), deflectable & ~self_inflicted)
            cancelled = (np.isin(flat_struck, nullified) if nullified.size
                         else np.zeros(flat_struck.shape, bool)) & ~self_inflicted
            dealt[cancelled] = 0
            np.subtract.at(flat_health, flat_struck, dealt)
            np.add.at(table_damage, flat_struck, dealt)
            spill = (through >= 0) & (dealt // 2 > 0) & ~cancelled
            if spill.any():
                companion, spill_fight = through[spill], fight[spill]
                standing = self.out_cause[companion, spill_fight] == STANDING
                flat_companion = companion[standing] * n_live + spill_fight[standing]
                np.subtract.at(flat_health, flat_companion, dealt[spill][standing] // 2)
                np.add.at(table_damage, flat_companion, dealt[spill][standing] // 2)
        self.weapon.ravel()[self.flat("unarm")] = UNARMED
        if self.effects["take"]:  # EF 8: the foe wields a taken weapon if it scores higher
            taker = np.concatenate(self.effects["take"])
            taken = np.concatenate(self.effects["taken_weapon"]).astype(np.int64)
            width = self.width
            slot, fight = np.divmod(taker, n_live)
            row = self.row(slot, fight)
            held = self.weapon.ravel()[taker].astype(np.int64)
            gain = (self.score_by_weapon[taken * width + row]
                    > self.score_by_weapon[held * width + row])
            order = np.argsort(self.score_by_weapon[taken * width + row], kind="stable")
            order = order[gain[order]]  # the best of several taken weapons is set last
            self.weapon.ravel()[taker[order]] = taken[order]
        self.shield.ravel()[self.flat("lose_shield")] = 0  # "none"
        forced = self.flat("forced")
        self.forced_diversion = np.zeros(self.out_cause.shape, bool)
        self.forced_diversion.ravel()[forced] = True
        self.any_forced_diversion = bool(forced.size)
        if self.defend_only is not None:
            self.take_hold(pending)
        out_cause, fell_in_round = self.out_cause.ravel(), self.fell_in_round.ravel()
        if self.effects["out"]:
            where, inverse = np.unique(np.concatenate(self.effects["out"]), return_inverse=True)
            cause = np.full(where.size, STANDING, np.int8)
            np.maximum.at(cause, inverse, np.concatenate(self.effects["cause"]))
            newly = out_cause[where] == STANDING
            out_cause[where[newly]] = cause[newly]
            fell_in_round[where[newly]] = self.round_number
        down = np.flatnonzero((out_cause == STANDING) & (flat_health <= 0))
        out_cause[down] = DOWN
        if table_damage is not None:  # he would still stand without the tables' strokes
            decided = down[flat_health[down] + table_damage[down] > 0]
            out_cause[decided] = EXTRAORDINARY
        fell_in_round[down] = self.round_number

    def take_hold(self, pending: list[_Set]) -> None:
        """The round's end for the house rules' effects: a round of ``defend_only`` passes,
        then what this round's wounds inflicted and set takes hold (in the rows' order)."""
        counter = self.defend_only
        assert counter is not None
        np.subtract(counter, 1, out=counter, where=counter > 0)
        flat_counter = counter.ravel()
        for effect in pending:
            if effect.subject == "defend_only":
                np.maximum.at(flat_counter, effect.where, effect.value.astype(np.int16))
            else:  # shield
                self.shield.ravel()[effect.where] = effect.value
        held = counter > 0
        if held.any():
            self.forced_diversion |= held
            self.any_forced_diversion = True

    # --- bookkeeping ----------------------------------------------------------------------------
    def settle(self) -> None:
        """Record the fights that ended this round and compact them out."""
        setup = self.setup
        standing = self.standing
        a_left = np.logical_or.reduce(standing[: setup.n_a], axis=0)
        b_left = np.logical_or.reduce(standing[setup.n_a:], axis=0)
        done = ~(a_left & b_left)
        idx = np.flatnonzero(done)
        if not idx.size:
            return
        winner = np.where(~a_left[idx], np.where(~b_left[idx], Winner.DRAW, Winner.B), Winner.A)
        # cause: the highest-priority cause among the losers who fell this round
        side = setup.side[:, None]
        loser_slots = np.where(winner == Winner.A, side == 1,
                               np.where(winner == Winner.B, side == 0, True))
        fell_now = (self.fell_in_round[:, idx] == self.round_number) & loser_slots
        cause = np.where(fell_now, self.out_cause[:, idx], STANDING).max(axis=0)
        cause = np.where(cause != STANDING, cause, DOWN)
        fights = self.live[idx]
        self.winner[fights] = winner
        self.rounds[fights] = self.round_number
        self.cause[fights] = cause
        keep = np.flatnonzero(~done)
        self.live = self.live[keep]
        self.seg = self.seg[keep]
        if not self.single:
            self.base = self.seg * setup.n_slots
        for name in ("health", "weapon", "shield", "forced_diversion", "out_cause",
                     "fell_in_round"):
            setattr(self, name, np.take(getattr(self, name), keep, axis=1))
        if self.defend_only is not None:
            self.defend_only = np.take(self.defend_only, keep, axis=1)

    def ambush(self) -> None:
        """The opening roll and exchange of an ambush (001.3), as the reference's."""
        setup, rules = self.setup, self.rules
        ambusher_side = 0 if rules.ambush == "a" else 1
        skills = setup.ambush_skill.reshape(-1, setup.n_slots)[:, setup.side == ambusher_side]
        skill = skills.max(axis=1) if rules.ambush_skill == "best" else skills[:, 0]
        n_live = self.live.size
        result = setup.ambush_result[self.d6(np.arange(n_live)) + skill[self.seg]]
        warned = result == AMBUSH["warned"]
        brief = result == AMBUSH["brief"]
        surprise = result == AMBUSH["surprise"]
        actors = np.zeros((2, n_live), bool)
        actors[1 - ambusher_side, warned] = True
        actors[ambusher_side, brief | surprise] = True
        ambushers = (setup.side == ambusher_side)[:, None]
        bonus = np.where(ambushers, setup.ambush_bonus[result][None, :], 0)
        self.pending_rerolls = []
        self.exchange_round(bonus.astype(np.int16), actors, divert_allowed=False,
                            tables=setup.tables and rules.ambush_tables)
        totally = np.flatnonzero(result == AMBUSH["total"])
        if totally.size:
            self.total_surprise(totally, ambusher_side)
        self.settle()

    def total_surprise(self, fights: np.ndarray, ambusher_side: int) -> None:
        """Result 9+: each ambusher's 2d6 other than 2 damages its target; a 12, two."""
        setup = self.setup
        n_live = self.live.size
        x, y, valid, _, _ = self.engage()
        self.round_health = self.health
        self.strokes = _Strokes()
        for slot in np.flatnonzero(setup.side == ambusher_side):
            fight = fights[self.out_cause[slot, fights] == STANDING]
            first = np.full(fight.size, -1)
            second = np.full(fight.size, -1)
            for e in range(x.shape[0]):
                foe = np.where(valid[e, fight] & (x[e, fight] == slot), y[e, fight],
                               np.where(valid[e, fight] & (y[e, fight] == slot), x[e, fight], -1))
                second = np.where((first >= 0) & (second < 0) & (foe >= 0), foe, second)
                first = np.where((first < 0) & (foe >= 0), foe, first)
            has = first >= 0
            fight, first, second = fight[has], first[has], second[has]
            roll = self.two_d6(fight)
            attacker = np.full(fight.size, slot)
            hit = roll != 2
            # the target is unaware: no shield deflects these strokes (DEFAULT)
            self.strokes.add(fight[hit], attacker[hit], first[hit], deflectable=False)
            if self.rules.total_surprise_12 == "twice_if_alone":
                second = np.where(second >= 0, second, first)
            two = (roll == 12) & (second >= 0)
            self.strokes.add(fight[two], attacker[two], second[two], deflectable=False)
        if self.strokes.fight:
            fight, attacker, target, *_ = self.strokes.arrays()
            die = self.srng.integers(1, self.rules.damage_die + 1, self.seg[fight])
            dealt = self.damage(attacker * n_live + fight, target, target * n_live + fight, die,
                                self.d6(fight), False)
            np.subtract.at(self.health.ravel(), target * n_live + fight, dealt)
            down = self.standing & (self.health <= 0)
            self.out_cause[down] = DOWN
            self.fell_in_round[down] = self.round_number

    def run(self) -> Outcomes:
        setup, rules = self.setup, self.rules
        if rules.ambush != "none":
            self.ambush()
        for round_number in range(1, rules.max_rounds + 1):
            if not self.live.size:
                break
            self.round_number = round_number
            self.pending_rerolls = []
            self.exchange_round(None, None, divert_allowed=True, tables=setup.tables)
            self.settle()
        return Outcomes(self.winner, self.rounds, self.cause, CAUSES)
