"""The vectorised kernel of seed 001: many fights at once, one loop over rounds.

Shapes: ``m`` live fights along axis 0; ``S = len(side_a) + len(side_b)`` combatant slots
(side A first); ``K = 2 * E`` entries, one per fighter per exchange (``E <= 3`` exchanges a
round: entry ``2e`` is the lone or paired fighter ``x`` striking ``y``, entry ``2e + 1`` is
``y`` striking back).  Finished fights are compacted out after every round.

Every round follows :mod:`.reference` step by step: one uniform draw per entry gives its
2d6 roll, its damage die and its shield die (through lookup tables, so each is exact); the
common case (no 2 or 12) is resolved with whole-array operations; the Extraordinary tables
(probability 1/18 per roll) are resolved on index subsets by a small event queue that
follows chains (EF 12 -> ES, ES 2 -> EF), extra exchanges and EF 7 rerolls to the end.

A plain duel (one against one, tables off, no diversion, no ambush) has a faster path:
the whole round's damage for each fighter is one lookup of one draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...dice import codes, expand, sum_table
from ...results import Winner
from ..base import Outcomes
from .reference import CAUSES
from .rules import (
    DIVERT_POLICIES,
    WEAPON_TYPES,
    Combatant,
    Rules,
    combat_score,
    scores,
    starting_health,
)

__all__ = ["simulate"]

DOWN, SURRENDER, BROKE, MISHAP, MAX_ROUNDS = (CAUSES.index(c) + 1 for c in (
    "down", "surrender", "broke", "mishap", "max_rounds"))  # 0 = standing
UNARMED = WEAPON_TYPES.index("unarmed")
NEVER, ALWAYS, IF_DEFICIT, BELOW_HEALTH, RANDOM = range(len(DIVERT_POLICIES))

# STROKE[adv + 25, roll]: does ``roll`` score for a fighter with advantage ``adv`` (clipped
# to -25..25, beyond which the bands do not change)?  Built from the reference's rule.
STROKE = np.array([[roll >= 2 and scores(adv, roll) for roll in range(13)]
                   for adv in range(-25, 26)], dtype=bool)
ROLL_2D6 = sum_table(2, 6).astype(np.int8)  # code 0..35 -> 2d6 total


def _stroke(adv: np.ndarray, roll: np.ndarray) -> np.ndarray:
    return STROKE[np.clip(adv, -25, 25) + 25, roll]


@dataclass
class _Setup:
    """Static per-slot data of one matchup."""

    rules: Rules
    n_a: int
    n_b: int
    score: np.ndarray  # int16 (S, 3): combat score with each weapon type
    health: np.ndarray  # int16 (S,)
    weapon: np.ndarray  # int8 (S,)
    block: np.ndarray  # int8 (S,): shield block value
    armour: np.ndarray  # int16 (S,)
    policy: np.ndarray  # int8 (S,)
    divert_health: np.ndarray  # int16 (S,)
    divert_p: np.ndarray  # float (S,)
    leader: np.ndarray  # bool (S,)
    side: np.ndarray  # int8 (S,)
    ambush: np.ndarray  # int8 (S,)
    dmg_mod: np.ndarray  # int16 (3,): damage modifier by weapon type

    @classmethod
    def of(cls, rules: Rules, side_a: Sequence[Combatant], side_b: Sequence[Combatant]
           ) -> _Setup:
        everyone = list(side_a) + list(side_b)
        return cls(
            rules, len(side_a), len(side_b),
            np.array([[combat_score(c, rules, w) for w in WEAPON_TYPES] for c in everyone],
                     np.int16),
            np.array([starting_health(c, rules) for c in everyone], np.int16),
            np.array([WEAPON_TYPES.index(c.weapon_type) for c in everyone], np.int8),
            np.array([rules.shield_block[c.shield] for c in everyone], np.int8),
            np.array([rules.armour_points[c.armour] for c in everyone], np.int16),
            np.array([DIVERT_POLICIES.index(c.divert) for c in everyone], np.int8),
            np.array([c.divert_health for c in everyone], np.int16),
            np.array([c.divert_p for c in everyone], float),
            np.array([c.leader for c in everyone], bool),
            np.array([0] * len(side_a) + [1] * len(side_b), np.int8),
            np.array([c.ambush for c in everyone], np.int8),
            np.array([rules.weapon_damage_mod[w] for w in WEAPON_TYPES], np.int16),
        )

    @property
    def slots(self) -> int:
        return self.n_a + self.n_b

    @property
    def tables(self) -> bool:
        return self.rules.extraordinary and self.rules.max_table_chain > 0


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
        ``winner`` int8 (n,), ``rounds`` int16 (n,), ``cause`` int8 (n,) indexing
        :data:`~.reference.CAUSES`.
    """
    setup = _Setup.of(rules, side_a, side_b)
    plain = (setup.slots == 2 and not rules.extraordinary and rules.ambush == "none"
             and not setup.policy.any())
    if plain:
        return _plain_duel(setup, n, rng)
    return _General(setup, n, rng).run()


# --- the plain duel -------------------------------------------------------------------------


def _round_damage_table(setup: _Setup, att: int, tgt: int) -> np.ndarray:
    """Damage ``att`` deals ``tgt`` in a round, for each outcome code of one draw.

    A code in ``[0, 36 * D * 6)`` is (2d6 outcome, damage die, shield die); the table holds
    the damage after the stroke test, shield and armour, so one draw and one lookup
    resolve a fighter's whole round.
    """
    rules = setup.rules
    die = rules.damage_die
    adv = int(setup.score[att, setup.weapon[att]] - setup.score[tgt, setup.weapon[tgt]])
    code = np.arange(36 * die * 6)
    roll = ROLL_2D6[code % 36]
    face = (code // 36) % die + 1
    shield_die = code // (36 * die) + 1
    raw = np.maximum(rules.min_damage, face + setup.dmg_mod[setup.weapon[att]])
    dealt = np.maximum(0, raw - setup.armour[tgt])
    dealt = np.where(shield_die <= setup.block[tgt], 0, dealt)
    return np.where(_stroke(np.full_like(roll, adv), roll), dealt, 0).astype(np.int16)


_SETTLED = np.int16(30_000)
"""Health given to both fighters of a finished fight until it is compacted out: no round's
damage can bring it below half of this before the next compaction (at most 1000 rounds
apart), and real health never exceeds 999."""


def _plain_duel(setup: _Setup, n: int, rng: np.random.Generator) -> Outcomes:
    """The plain duel: one draw and one lookup per fighter per round.

    Finished fights are not compacted every round: their health is set to
    :data:`_SETTLED` so they cannot finish again, and the arrays are compacted once a
    quarter of them are settled (compaction costs more than simulating a few dead rows).
    """
    rules = setup.rules
    k = 36 * rules.damage_die * 6
    to_b = expand(_round_damage_table(setup, 0, 1))
    to_a = expand(_round_damage_table(setup, 1, 0))
    winner = np.zeros(n, np.int8)
    rounds = np.full(n, rules.max_rounds, np.int16)
    cause = np.full(n, MAX_ROUNDS - 1, np.int8)
    live = np.arange(n)
    health_a = np.full(n, setup.health[0], np.int16)
    health_b = np.full(n, setup.health[1], np.int16)
    settled = 0
    last_compaction = 0
    for rnd in range(1, rules.max_rounds + 1):
        m = live.size
        health_b -= np.take(to_b, codes(k, m, rng=rng))
        health_a -= np.take(to_a, codes(k, m, rng=rng))
        a_down = health_a <= 0
        done = np.flatnonzero(a_down | (health_b <= 0))
        if done.size:
            a_lost = a_down[done]
            b_lost = health_b[done] <= 0
            idx = live[done]
            winner[idx] = np.where(a_lost, np.where(b_lost, Winner.DRAW, Winner.B), Winner.A)
            rounds[idx] = rnd
            cause[idx] = DOWN - 1
            health_a[done] = _SETTLED
            health_b[done] = _SETTLED
            settled += done.size
            if 4 * settled >= m or rnd - last_compaction >= 1000:
                keep = np.flatnonzero(health_a < _SETTLED // 2)
                live, health_a, health_b = live[keep], health_a[keep], health_b[keep]
                settled, last_compaction = 0, rnd
                if not live.size:
                    break
    # fights still running at the cap are draws (cause max_rounds), already filled in
    return Outcomes(winner, rounds, cause, CAUSES)


# --- the general kernel -----------------------------------------------------------------------


@dataclass
class _Events:
    """A batch of pending table events (one row per event)."""

    row: np.ndarray  # fight index into the live arrays
    p: np.ndarray  # roller slot
    q: np.ndarray  # foe slot
    adv: np.ndarray  # roller's advantage against q
    chain: np.ndarray  # table rolls made so far in this chain
    entry: np.ndarray  # flat entry index (row * K + k) whose hit flag this settles, or -1
    suppress: np.ndarray  # bool: the roller diverted; his strokes on q do not land
    protected: np.ndarray  # bool (attacks only): q's diversion holds against p

    @classmethod
    def empty(cls) -> _Events:
        z = np.zeros(0, np.int64)
        return cls(z, z, z, z, z, z, z.astype(bool), z.astype(bool))

    def __len__(self) -> int:
        return len(self.row)

    def take(self, mask: np.ndarray) -> _Events:
        return _Events(*(getattr(self, f)[mask] for f in _EVENT_FIELDS))

    @staticmethod
    def concat(batches: list[_Events]) -> _Events:
        batches = [b for b in batches if len(b)]
        if not batches:
            return _Events.empty()
        return _Events(*(np.concatenate([getattr(b, f) for b in batches])
                         for f in _EVENT_FIELDS))


_EVENT_FIELDS = ("row", "p", "q", "adv", "chain", "entry", "suppress", "protected")


@dataclass
class _Strokes:
    """Strokes collected during a round, applied together at its end."""

    row: list[np.ndarray] = field(default_factory=list)
    att: list[np.ndarray] = field(default_factory=list)
    tgt: list[np.ndarray] = field(default_factory=list)
    extraordinary: list[np.ndarray] = field(default_factory=list)
    maximum: list[np.ndarray] = field(default_factory=list)
    through: list[np.ndarray] = field(default_factory=list)
    self_inflicted: list[np.ndarray] = field(default_factory=list)

    def add(self, row: np.ndarray, att: np.ndarray, tgt: np.ndarray, *,
            extraordinary: bool | np.ndarray = False, maximum: bool = False,
            through: np.ndarray | None = None, self_inflicted: bool = False) -> None:
        if not len(row):
            return
        self.row.append(row)
        self.att.append(att)
        self.tgt.append(tgt)
        self.extraordinary.append(np.broadcast_to(extraordinary, row.shape))
        self.maximum.append(np.full(row.shape, maximum))
        self.through.append(np.full(row.shape, -1) if through is None else through)
        self.self_inflicted.append(np.full(row.shape, self_inflicted))

    def arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(np.concatenate(getattr(self, f)) for f in (
            "row", "att", "tgt", "extraordinary", "maximum", "through", "self_inflicted"))


class _General:
    """Every rule of seed 001 over ``n`` fights."""

    def __init__(self, setup: _Setup, n: int, rng: np.random.Generator) -> None:
        self.s = setup
        self.rules = setup.rules
        self.rng = rng
        self.n = n
        S = setup.slots
        self.winner = np.zeros(n, np.int8)
        self.rounds = np.full(n, self.rules.max_rounds, np.int16)
        self.cause = np.full(n, MAX_ROUNDS - 1, np.int8)
        self.live = np.arange(n)
        self.health = np.tile(setup.health, (n, 1))
        self.weapon = np.tile(setup.weapon, (n, 1))
        self.block = np.tile(setup.block, (n, 1))
        self.forced = np.zeros((n, S), bool)
        self.out = np.zeros((n, S), np.int8)  # 0 standing, else cause code + 1
        self.fell = np.full((n, S), -1, np.int16)
        self.slot = np.arange(S)
        self.round_number = 0
        self.pending_rerolls: list[_Events] = []
        die = self.rules.damage_die
        code = np.arange(36 * die * 6)
        self.n_codes = code.size
        self.code_roll = ROLL_2D6[code % 36]
        self.code_die = ((code // 36) % die + 1).astype(np.int16)
        self.code_shield = (code // (36 * die) + 1).astype(np.int8)

    # --- rolling -------------------------------------------------------------------------
    def d6(self, size: int) -> np.ndarray:
        return self.rng.integers(1, 7, size, dtype=np.int8)

    def two_d6(self, size: int) -> np.ndarray:
        return ROLL_2D6[self.rng.integers(0, 36, size, dtype=np.uint8)]

    def scores_now(self, bonus: np.ndarray | None = None) -> np.ndarray:
        """int16 (m, S): each slot's combat score with the weapon in hand (+ bonus)."""
        sc = self.s.score[self.slot, self.weapon]
        return sc if bonus is None else sc + bonus

    # --- engagement (001.7), as the reference's ``engage`` --------------------------------
    def engage(self, bonus: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """This round's exchanges for every live fight.

        Returns ``x, y, valid, adv_x, adv_y``, each (m, E): the lone or paired fighter,
        his foe, whether the exchange exists, and both advantages.
        """
        s, rules = self.s, self.rules
        m = self.live.size
        standing = self.out == 0
        if s.n_a == 1 and s.n_b == 1:
            sc = self.scores_now(bonus)
            d = (sc[:, 0] - sc[:, 1])[:, None]
            zero = np.zeros((m, 1), np.int64)
            return zero, zero + 1, np.ones((m, 1), bool), d, -d
        sc = self.scores_now(bonus).astype(np.int32)
        key = np.where(standing, sc, -(1 << 20))
        order_a = np.argsort(-key[:, : s.n_a], axis=1, kind="stable")
        order_b = np.argsort(-key[:, s.n_a:], axis=1, kind="stable") + s.n_a
        cnt_a = standing[:, : s.n_a].sum(axis=1)
        cnt_b = standing[:, s.n_a:].sum(axis=1)
        rows = np.arange(m)[:, None]
        E = min(3, max(s.n_a, s.n_b))
        # Larger side's members j in rank order; j is dealt to lone fighter j % s_lone.
        a_lone = cnt_a < cnt_b
        equal = cnt_a == cnt_b
        lone_cnt = np.maximum(np.minimum(cnt_a, cnt_b), 1)
        pack_cnt = np.maximum(cnt_a, cnt_b)
        limit = np.where(equal, cnt_a, np.minimum(pack_cnt, rules.max_foes * lone_cnt))
        pad_a = np.concatenate([order_a, np.repeat(order_a[:, :1], 3, axis=1)], axis=1)
        pad_b = np.concatenate([order_b, np.repeat(order_b[:, :1], 3, axis=1)], axis=1)
        j = np.arange(E)[None, :]
        lone_idx = np.where(equal[:, None], j, j % lone_cnt[:, None])
        x = np.where(a_lone[:, None] | equal[:, None],
                     np.take_along_axis(pad_a, lone_idx, axis=1),
                     np.take_along_axis(pad_b, lone_idx, axis=1))
        y = np.where(a_lone[:, None] | equal[:, None], pad_b[:, :E], pad_a[:, :E])
        valid = j < limit[:, None]
        score_y = np.where(valid, sc[rows, y], 0)
        # Aggregate of each lone fighter's foes: foes j' with j' % lone == j % lone.
        same = (lone_idx[:, :, None] == lone_idx[:, None, :]) & valid[:, None, :]
        aggregate = (same * score_y[:, None, :]).sum(axis=2)
        first = j < np.where(equal, cnt_a, lone_cnt)[:, None]
        d = sc[rows, x] - aggregate
        adv_x = np.where(first, d, 0)
        keep = rules.multi_zero_mode == "foes_keep_aggregate"
        adv_y = np.where(first | keep, -d, 0)
        return x, y, valid, adv_x, adv_y

    # --- one round ------------------------------------------------------------------------
    def exchange_round(self, bonus: np.ndarray | None, actors: np.ndarray | None,
                       divert_allowed: bool, tables: bool) -> None:
        """Roll, declare, resolve and apply one round for every live fight.

        ``actors`` (m, 2) bool limits who rolls, by side (one-sided ambush exchanges).
        """
        s, rules, rng = self.s, self.rules, self.rng
        m = self.live.size
        x, y, valid, adv_x, adv_y = self.engage(bonus)
        self.exch = (x, y, valid, adv_x, adv_y)
        E = x.shape[1]
        K = 2 * E
        att = np.empty((m, K), np.int64)
        tgt = np.empty((m, K), np.int64)
        adv = np.empty((m, K), np.int32)
        ok = np.empty((m, K), bool)
        att[:, 0::2], att[:, 1::2] = x, y
        tgt[:, 0::2], tgt[:, 1::2] = y, x
        adv[:, 0::2], adv[:, 1::2] = adv_x, adv_y
        ok[:, 0::2], ok[:, 1::2] = valid, valid
        rows = np.arange(m)[:, None]
        if actors is not None:
            ok &= actors[rows, s.side[att]]
        code = rng.integers(0, self.n_codes, (m, K), dtype=np.uint16)
        roll = self.code_roll[code]
        # --- declarations (001.5) ---
        if divert_allowed and (s.policy.any() or self.forced.any()):
            divert = self.decide(att, adv, rows) & ok
        else:
            divert = np.zeros((m, K), bool)
        twelve = roll == 12
        two = roll == 2
        stroke = _stroke(adv, roll)
        success = divert & stroke  # a 12 always succeeds, a 2 never does
        partner = np.arange(K) ^ 1
        if rules.divert_scope == "pair":
            protected = success[:, partner]  # my target's diversion against me holds
        else:
            any_success = np.zeros((m, s.slots), bool)
            for k in range(K):
                any_success[np.arange(m), att[:, k]] |= success[:, k]
            protected = any_success[rows, tgt]
        attacking = ok & ~divert
        if tables:
            ordinary = attacking & ~protected & stroke & ~twelve
        else:
            ordinary = attacking & ~protected & stroke
        ordinary |= attacking & protected & twelve  # a 12 lands through a diversion (001.5)
        self.hit = ordinary.copy()
        self.att, self.tgt, self.adv_entry, self.divert = att, tgt, adv, divert
        self.protected_entry = protected
        self.strokes = _Strokes()
        self.nullify = np.zeros((m, s.slots), bool)
        self.unarm = np.zeros((m, s.slots), bool)
        self.lose_shield = np.zeros((m, s.slots), bool)
        self.forced_next = np.zeros((m, s.slots), bool)
        self.out_new = np.zeros((m, s.slots), np.int8)
        if tables:
            self.tables_round(ok, attacking, divert, protected, two, twelve, K)
        self.apply(ordinary, code, att, tgt)

    def decide(self, att: np.ndarray, adv: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Each entry's diversion declaration, by its fighter's policy (001.5)."""
        s = self.s
        policy = s.policy[att]
        health = self.health[rows, att]
        divert = (policy == ALWAYS) | ((policy == IF_DEFICIT) & (adv < 0))
        divert |= (policy == BELOW_HEALTH) & (health <= s.divert_health[att])
        if (s.policy == RANDOM).any():
            divert |= (policy == RANDOM) & (self.rng.random(att.shape) < s.divert_p[att])
        return divert | self.forced[rows, att]

    # --- the Extraordinary tables (001.6) ----------------------------------------------------
    def tables_round(self, ok: np.ndarray, attacking: np.ndarray, divert: np.ndarray,
                     protected: np.ndarray, two: np.ndarray, twelve: np.ndarray, K: int) -> None:
        rules = self.rules
        flat = np.arange(ok.size).reshape(ok.shape)

        def events(mask: np.ndarray) -> _Events:
            r, k = np.nonzero(mask)
            return _Events(r, self.att[r, k], self.tgt[r, k], self.adv_entry[r, k].astype(np.int64),
                           np.ones(r.size, np.int64), flat[r, k],
                           divert[r, k], np.zeros(r.size, bool))

        # attackers (protected or not) and diverters who rolled 2; a diverter's strokes on
        # his foe never land (``suppress``)
        ef = events(ok & two)
        es = events(attacking & ~protected & twelve)
        es_div = events(divert & twelve) if rules.divert_12_es else _Events.empty()
        self.drain(ef, _Events.concat([es, es_div]), _Events.empty())
        self.rerolls()

    def drain(self, ef: _Events, es: _Events, attacks: _Events) -> None:
        """Resolve table events and extra attack rolls until none are pending."""
        while len(ef) or len(es) or len(attacks):
            new_ef, new_es, new_attacks = [], [], []
            if len(attacks):
                a_ef, a_es = self.attack_rolls(attacks)
                new_ef.append(a_ef)
                new_es.append(a_es)
            if len(ef):
                f_es = self.failure(ef)
                new_es.append(f_es)
            if len(es):
                s_ef, s_att = self.success(es)
                new_ef.append(s_ef)
                new_attacks.append(s_att)
            ef, es, attacks = (_Events.concat(new_ef), _Events.concat(new_es),
                               _Events.concat(new_attacks))

    def set_hit(self, entry: np.ndarray) -> None:
        entry = entry[entry >= 0]
        self.hit.ravel()[entry] = True

    def attack_rolls(self, ev: _Events) -> tuple[_Events, _Events]:
        """Fresh attacking rolls (ES 3 extra exchanges, EF 7 rerolls): as ``attack``."""
        cap = self.rules.max_table_chain
        roll = self.two_d6(len(ev))
        prot = ev.protected
        # protected attacks: only a 12 lands (as an ordinary stroke), nothing else
        through = prot & (roll == 12)
        self.strokes.add(ev.row[through], ev.p[through], ev.q[through])
        self.set_hit(ev.entry[through])
        open_ = ~prot
        to_ef = open_ & (roll == 2) & (ev.chain < cap)
        to_es = open_ & (roll == 12) & (ev.chain < cap)
        plain = open_ & ~to_ef & ~to_es & _stroke(ev.adv, roll)
        self.strokes.add(ev.row[plain], ev.p[plain], ev.q[plain])
        self.set_hit(ev.entry[plain])
        nxt_ef, nxt_es = ev.take(to_ef), ev.take(to_es)
        nxt_ef.chain = nxt_ef.chain + 1
        nxt_es.chain = nxt_es.chain + 1
        return nxt_ef, nxt_es

    def failure(self, ev: _Events) -> _Events:
        """One Extraordinary Failure roll per event; returns the ES events of EF 12."""
        rules = self.rules
        t = self.two_d6(len(ev))
        r, p = ev.row, ev.p
        mishap = (t >= 2) & (t <= 4)
        np.maximum.at(self.out_new, (r[mishap], p[mishap]), MISHAP)
        self.forced_next[r[t == 5], p[t == 5]] = True
        six = np.flatnonzero(t == 6)
        if six.size:
            which = self.d6(six.size)
            has_shield = self.block[r[six], p[six]] > 0
            shield_hit = (which <= 3) & has_shield
            weapon_hit = (which > 3) | ((which <= 3) & ~has_shield
                                         & (rules.ef6_no_shield == "weapon"))
            self.lose_shield[r[six][shield_hit], p[six][shield_hit]] = True
            self.unarm[r[six][weapon_hit], p[six][weapon_hit]] = True
        seven = t == 7
        if seven.any():
            self.pending_rerolls.append(ev.take(seven))
        self.unarm[r[t == 8], p[t == 8]] = True
        if rules.ef9 == "lose_next_attack":
            self.forced_next[r[t == 9], p[t == 9]] = True
        eleven = t == 11
        self.strokes.add(r[eleven], p[eleven], p[eleven], self_inflicted=True)
        twelve = t == 12
        go_on = twelve & (ev.chain < rules.max_table_chain)
        plain = twelve & ~go_on & ~ev.suppress
        self.strokes.add(r[plain], p[plain], ev.q[plain])
        self.set_hit(ev.entry[plain])
        nxt = ev.take(go_on)
        nxt.chain = nxt.chain + 1
        return nxt

    def other_foe(self, r: np.ndarray, p: np.ndarray, q: np.ndarray, skip: np.ndarray | None = None
                  ) -> np.ndarray:
        """The first standing foe engaged with ``p`` other than ``q`` (and ``skip``), or -1."""
        x, y, valid, _, _ = self.exch
        found = np.full(r.shape, -1, np.int64)
        standing = self.out[r] == 0  # out flags change only at the round's end
        for e in range(x.shape[1]):
            xe, ye, ve = x[r, e], y[r, e], valid[r, e]
            cand = np.where(xe == p, ye, np.where(ye == p, xe, -1))
            cand_ok = ve & (cand >= 0) & (cand != q) & (found < 0)
            if skip is not None:
                cand_ok &= cand != skip
            cand_ok &= standing[np.arange(r.size), np.maximum(cand, 0)]
            found = np.where(cand_ok, cand, found)
        return found

    def band(self, r: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``p``'s advantage against ``q`` in this round's exchanges (0 if none)."""
        x, y, valid, adv_x, adv_y = self.exch
        out = np.zeros(r.shape, np.int64)
        for e in range(x.shape[1]):
            xe, ye, ve = x[r, e], y[r, e], valid[r, e]
            out = np.where(ve & (xe == p) & (ye == q), adv_x[r, e], out)
            out = np.where(ve & (ye == p) & (xe == q), adv_y[r, e], out)
        return out

    def success(self, ev: _Events) -> tuple[_Events, _Events]:
        """One Extraordinary Success roll per event; returns new EF events and attacks."""
        rules = self.rules
        cap = rules.max_table_chain
        t = self.two_d6(len(ev))
        r, p, q = ev.row, ev.p, ev.q
        own = ~ev.suppress  # strokes on q land (and settle the hit) unless he diverted
        new_ef: list[_Events] = []
        new_attacks: list[_Events] = []

        def strike(mask: np.ndarray, **kw: object) -> None:
            mask = mask & own
            self.strokes.add(r[mask], p[mask], q[mask], extraordinary=True, **kw)  # type: ignore[arg-type]
            self.set_hit(ev.entry[mask])

        # 2: Before the Devil knows your dead
        devil = t == 2
        if rules.es2_mode == "roller_fails":
            go = devil & (ev.chain < cap)
            nxt = ev.take(go)
            nxt.chain = nxt.chain + 1
            new_ef.append(nxt)
        elif rules.es2_mode == "foe_slain":
            np.maximum.at(self.out_new, (r[devil], q[devil]), MISHAP)
        else:  # foe_rolls_ef: the stroke lands and the foe rolls on the failure table
            strike(devil)
            go = devil & (ev.chain < cap)
            foe = ev.take(go)
            new_ef.append(_Events(foe.row, foe.q, foe.p, -foe.adv, foe.chain + 1,
                                  np.full(len(foe), -1), np.zeros(len(foe), bool),
                                  np.zeros(len(foe), bool)))
        # 3, 4, 5, 9 need another engaged foe of the roller
        needs_other = (t == 3) | (t == 4) | (t == 5) | (t == 9)
        other = np.full(r.shape, -1, np.int64)
        if needs_other.any():
            idx = np.flatnonzero(needs_other)
            other[idx] = self.other_foe(r[idx], p[idx], q[idx])
        strike((t == 3) | (t == 4) | (t == 5) | (t == 8) | (t == 10))
        three = np.flatnonzero((t == 3) & (other >= 0))
        if three.size:
            rr, pp, oo, ch = r[three], p[three], other[three], ev.chain[three]
            none = np.full(three.size, -1)
            no = np.zeros(three.size, bool)
            new_attacks.append(_Events(rr, pp, oo, self.band(rr, pp, oo), ch, none, no, no))
            new_attacks.append(_Events(rr, oo, pp, self.band(rr, oo, pp), ch, none, no, no))
        four = (t == 4) & (other >= 0)
        self.strokes.add(r[four], p[four], other[four])
        five = np.flatnonzero((t == 5) & (other >= 0))
        if five.size:
            rr, pp, qq = r[five], p[five], q[five]
            first = other[five]
            second = self.other_foe(rr, pp, qq, skip=first)
            for target in (first, second):
                has = target >= 0
                roll = self.two_d6(five.size)
                lands = has & (roll != 2) & _stroke(self.band(rr, pp, np.maximum(target, 0)), roll)
                self.strokes.add(rr[lands], pp[lands], target[lands])
        six = t == 6
        strike(six, maximum=True)
        self.unarm[r[six], p[six]] = True
        seven = t == 7
        self.nullify[r[seven], p[seven]] = True
        if rules.es7_own_stroke:
            strike(seven)
        strike(t == 8)  # the second of two strokes
        nine = (t == 9) & own
        self.strokes.add(r[nine], p[nine], q[nine], extraordinary=True, through=other[nine])
        self.set_hit(ev.entry[nine])
        ten = t == 10
        self.unarm[r[ten], q[ten]] = True
        eleven = t == 11
        if rules.es11 == "surrender":
            np.maximum.at(self.out_new, (r[eleven], q[eleven]), SURRENDER)
        else:
            strike(eleven)
            self.unarm[r[eleven], q[eleven]] = True
        twelve = np.flatnonzero(t == 12)
        if twelve.size:
            rr, qq = r[twelve], q[twelve]
            np.maximum.at(self.out_new, (rr, qq), BROKE)
            side_q = self.s.side[qq]
            standing = self.out[rr] == 0
            same_side = self.s.side[None, :] == side_q[:, None]
            allies = (standing & same_side).sum(axis=1)
            leads = self.s.leader[qq] & (allies > 1)
            if leads.any():
                li = np.flatnonzero(leads)
                breaks = self.rng.random(li.size) < rules.leader_break_p
                li = li[breaks]
                whole = standing[li] & same_side[li]
                br, bs = np.nonzero(whole)
                np.maximum.at(self.out_new, (rr[li][br], bs), BROKE)
        return _Events.concat(new_ef), _Events.concat(new_attacks)

    def rerolls(self) -> None:
        """EF 7: a foe who missed rerolls; the new roll stands (as in the reference)."""
        K = self.att.shape[1]
        while self.pending_rerolls:
            batch = _Events.concat(self.pending_rerolls)
            self.pending_rerolls = []
            # the foe's entry in this round's exchanges: fighter = foe, foe = roller
            r, roller, foe = batch.row, batch.p, batch.q
            entry = np.full(r.shape, -1, np.int64)
            for k in range(K):
                match = ((self.att[r, k] == foe) & (self.tgt[r, k] == roller) & ~self.divert[r, k]
                         & ~self.hit[r, k])
                entry = np.where(match & (entry < 0), r * K + k, entry)
            has = entry >= 0
            # two rerolls for one entry in one batch: the second waits for the next pass
            _, first = np.unique(entry[has], return_index=True)
            keep = np.zeros(r.shape, bool)
            keep[np.flatnonzero(has)[first]] = True
            later = has & ~keep
            if later.any():
                self.pending_rerolls.append(batch.take(later))
            e = entry[keep]
            rr, kk = e // K, e % K
            attacks = _Events(rr, self.att[rr, kk], self.tgt[rr, kk],
                              self.adv_entry[rr, kk].astype(np.int64), np.zeros(e.size, np.int64),
                              e, np.zeros(e.size, bool), self.protected_entry[rr, kk])
            self.drain(_Events.empty(), _Events.empty(), attacks)

    # --- applying a round ---------------------------------------------------------------------
    def damage(self, row: np.ndarray, att: np.ndarray, tgt: np.ndarray, die: np.ndarray,
               shield_die: np.ndarray, deflectable: np.ndarray) -> np.ndarray:
        """Damage of strokes after shield and armour (001.9)."""
        rules, s = self.rules, self.s
        raw = np.maximum(rules.min_damage, die + s.dmg_mod[self.weapon[row, att]])
        dealt = np.maximum(0, raw - s.armour[tgt])
        block = self.block[row, tgt]
        return np.where(deflectable & (shield_die <= block), 0, dealt)

    def apply(self, ordinary: np.ndarray, code: np.ndarray, att: np.ndarray, tgt: np.ndarray) -> None:
        S = self.s.slots
        flat_health = self.health.ravel()
        # ordinary strokes of the main pass: each entry's own damage and shield dice
        r, k = np.nonzero(ordinary)
        if r.size:
            a, t = att[r, k], tgt[r, k]
            c = code[r, k]
            dealt = self.damage(r, a, t, self.code_die[c], self.code_shield[c],
                                np.ones(r.size, bool))
            dealt = np.where(self.nullify[r, t], 0, dealt)
            np.subtract.at(flat_health, r * S + t, dealt.astype(np.int16))
        if self.strokes.row:
            row, a, t, ext, mx, through, selfi = self.strokes.arrays()
            die = np.where(mx, self.rules.damage_die,
                           self.rng.integers(1, self.rules.damage_die + 1, row.size))
            deflectable = ~ext & ~selfi
            dealt = self.damage(row, a, t, die, self.d6(row.size), deflectable)
            dealt = np.where(self.nullify[row, t] & ~selfi, 0, dealt)
            np.subtract.at(flat_health, row * S + t, dealt.astype(np.int16))
            spill = (through >= 0) & (dealt // 2 > 0) & ~self.nullify[row, t]
            if spill.any():
                th = through[spill]
                ok = self.out[row[spill], th] == 0
                np.subtract.at(flat_health, row[spill][ok] * S + th[ok],
                               (dealt[spill][ok] // 2).astype(np.int16))
        self.weapon[self.unarm] = UNARMED
        self.block[self.lose_shield] = 0
        self.forced = self.forced_next
        standing = self.out == 0
        newly = standing & (self.out_new > 0)
        down = standing & ~newly & (self.health <= 0)
        self.out = np.where(newly, self.out_new, np.where(down, DOWN, self.out)).astype(np.int8)
        self.fell[newly | down] = self.round_number

    # --- bookkeeping ----------------------------------------------------------------------------
    def settle(self) -> None:
        """Record the fights that ended this round and compact them out."""
        s = self.s
        standing = self.out == 0
        a_left = standing[:, : s.n_a].any(axis=1)
        b_left = standing[:, s.n_a:].any(axis=1)
        done = ~(a_left & b_left)
        if not done.any():
            return
        idx = np.flatnonzero(done)
        winner = np.where(~a_left[idx], np.where(~b_left[idx], Winner.DRAW, Winner.B), Winner.A)
        # cause: the highest-priority cause among the losers who fell this round
        loser_slots = np.where(winner[:, None] == Winner.A, s.side[None, :] == 1,
                               np.where(winner[:, None] == Winner.B, s.side[None, :] == 0, True))
        fell_now = (self.fell[idx] == self.round_number) & loser_slots
        cause = np.where(fell_now, self.out[idx], 0).max(axis=1)
        cause = np.where(cause > 0, cause, DOWN)
        orig = self.live[idx]
        self.winner[orig] = winner
        self.rounds[orig] = self.round_number
        self.cause[orig] = cause - 1
        keep = ~done
        self.live = self.live[keep]
        for name in ("health", "weapon", "block", "forced", "out", "fell"):
            setattr(self, name, getattr(self, name)[keep])

    def ambush(self) -> None:
        """The opening roll and exchange of an ambush (001.3), as the reference's."""
        s, rules = self.s, self.rules
        init = 0 if rules.ambush == "a" else 1
        skills = s.ambush[s.side == init]
        skill = int(skills.max() if rules.ambush_skill == "best" else skills[0])
        m = self.live.size
        total = self.d6(m) + skill
        warned = total == 1
        brief = (total >= 5) & (total <= 6)
        surprise = (total >= 7) & (total <= 8)
        totally = total >= 9
        actors = np.zeros((m, 2), bool)
        actors[warned, 1 - init] = True
        actors[brief | surprise, init] = True
        bonus = np.zeros((m, s.slots), np.int16)
        side_init = s.side == init
        bonus[np.ix_(brief, side_init)] = 6
        bonus[np.ix_(surprise, side_init)] = 12
        self.pending_rerolls = []
        self.exchange_round(bonus, actors, divert_allowed=False,
                            tables=s.tables and rules.ambush_tables)
        if totally.any():
            self.total_surprise(np.flatnonzero(totally), init)
        self.settle()

    def total_surprise(self, rows: np.ndarray, init: int) -> None:
        """Result 9+: each ambusher's 2d6 other than 2 damages its target; a 12, two."""
        s = self.s
        x, y, valid, _, _ = self.engage()
        S = s.slots
        self.strokes = _Strokes()
        self.nullify = np.zeros((self.live.size, S), bool)
        for slot in np.flatnonzero(s.side == init):
            r = rows[self.out[rows, slot] == 0]
            first = np.full(r.size, -1)
            second = np.full(r.size, -1)
            for e in range(x.shape[1]):
                cand = np.where(valid[r, e] & (x[r, e] == slot), y[r, e],
                                np.where(valid[r, e] & (y[r, e] == slot), x[r, e], -1))
                second = np.where((first >= 0) & (second < 0) & (cand >= 0), cand, second)
                first = np.where((first < 0) & (cand >= 0), cand, first)
            has = first >= 0
            r, first, second = r[has], first[has], second[has]
            roll = self.two_d6(r.size)
            hit = roll != 2
            att = np.full(r.size, slot)
            self.strokes.add(r[hit], att[hit], first[hit], extraordinary=True)
            two = (roll == 12) & (second >= 0)
            self.strokes.add(r[two], att[two], second[two], extraordinary=True)
        if self.strokes.row:
            row, a, t, ext, *_ = self.strokes.arrays()
            die = self.rng.integers(1, self.rules.damage_die + 1, row.size)
            dealt = self.damage(row, a, t, die, self.d6(row.size), ~ext)
            np.subtract.at(self.health.ravel(), row * S + t, dealt.astype(np.int16))
            standing = self.out == 0
            down = standing & (self.health <= 0)
            self.out[down] = DOWN
            self.fell[down] = self.round_number

    def run(self) -> Outcomes:
        s, rules = self.s, self.rules
        if rules.ambush != "none":
            self.ambush()
        for rnd in range(1, rules.max_rounds + 1):
            if not self.live.size:
                break
            self.round_number = rnd
            self.pending_rerolls = []
            self.exchange_round(None, None, divert_allowed=True, tables=s.tables)
            self.settle()
        return Outcomes(self.winner, self.rounds, self.cause, CAUSES)
