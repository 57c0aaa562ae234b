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
from ...outcomes import Outcomes
from ...results import Winner
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
NEVER, ALWAYS, IF_DEFICIT, BELOW_HEALTH, RANDOM, REACTIVE = range(len(DIVERT_POLICIES))

# STROKE[adv + 25, roll]: does ``roll`` score for a fighter with advantage ``adv`` (clipped
# to -25..25, beyond which the bands do not change)?  Built from the reference's rule.
STROKE = np.array([[roll >= 2 and scores(adv, roll) for roll in range(13)]
                   for adv in range(-25, 26)], dtype=bool)
ROLL_2D6 = sum_table(2, 6).astype(np.int8)  # code 0..35 -> 2d6 total
_STROKE_FLAT = STROKE.ravel()  # [(adv + 25) * 13 + roll]


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
    side: np.ndarray  # intp (S,)
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
            np.array([0] * len(side_a) + [1] * len(side_b), np.intp),
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
    """Every rule of seed 001 over ``n`` fights.

    State arrays are slot-major, ``(S, m)``, so that each slot's row is contiguous; entries
    are ``(K, m)``.  Reads of a slot chosen per fight go through flat indices
    (``slot * m + column``) and ``take``, which NumPy does far faster than 2-D fancy
    indexing on narrow arrays.
    """

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
        self.health = np.repeat(setup.health[:, None], n, axis=1)
        self.weapon = np.repeat(setup.weapon[:, None], n, axis=1)
        self.block = np.repeat(setup.block[:, None], n, axis=1)
        self.forced = np.zeros((S, n), bool)
        self.out = np.zeros((S, n), np.int8)  # 0 standing, else cause code + 1
        self.fell = np.full((S, n), -1, np.int16)
        self.round_number = 0
        self.any_forced = False
        self.pending_rerolls: list[_Events] = []
        die = self.rules.damage_die
        code = np.arange(36 * die * 6)
        self.n_codes = code.size
        self.code_roll = expand(ROLL_2D6[code % 36])
        self.code_die = expand(((code // 36) % die + 1).astype(np.int16))
        self.code_shield = expand((code // (36 * die) + 1).astype(np.int8))
        self.score_flat = setup.score.T.ravel().astype(np.int16)  # [weapon * S + slot]

    # --- rolling -------------------------------------------------------------------------
    def d6(self, size: int) -> np.ndarray:
        return self.rng.integers(1, 7, size, dtype=np.int8)

    def two_d6(self, size: int) -> np.ndarray:
        return ROLL_2D6[self.rng.integers(0, 36, size, dtype=np.uint8)]

    def scores_now(self, bonus: np.ndarray | None = None) -> np.ndarray:
        """int16 (S, m): each slot's combat score with the weapon in hand (+ bonus)."""
        S = self.s.slots
        sc = np.take(self.score_flat, self.weapon * S + np.arange(S)[:, None])
        return sc if bonus is None else sc + bonus

    # --- engagement (001.7), as the reference's ``engage`` --------------------------------
    def engage(self, bonus: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """This round's exchanges for every live fight.

        Returns ``x, y, valid, adv_x, adv_y``, each (E, m): the lone or paired fighter,
        his foe, whether the exchange exists, and both advantages.
        """
        s, rules = self.s, self.rules
        m = self.live.size
        if s.n_a == 1 and s.n_b == 1:
            sc = self.scores_now(bonus)
            d = (sc[0] - sc[1])[None, :]
            zero = np.zeros((1, m), np.int64)
            return zero, zero + 1, np.ones((1, m), bool), d, -d
        standing = self.out == 0
        sc = self.scores_now(bonus).astype(np.int32)
        key = np.where(standing, sc, -(1 << 20))
        order_a = np.argsort(-key[: s.n_a], axis=0, kind="stable")
        order_b = np.argsort(-key[s.n_a:], axis=0, kind="stable") + s.n_a
        cnt_a = standing[: s.n_a].sum(axis=0)
        cnt_b = standing[s.n_a:].sum(axis=0)
        E = min(3, max(s.n_a, s.n_b))
        # Larger side's members j in rank order; j is dealt to lone fighter j % s_lone.
        a_lone = cnt_a < cnt_b
        equal = cnt_a == cnt_b
        lone_cnt = np.maximum(np.minimum(cnt_a, cnt_b), 1)
        pack_cnt = np.maximum(cnt_a, cnt_b)
        limit = np.where(equal, cnt_a, np.minimum(pack_cnt, rules.max_foes * lone_cnt))
        pad_a = np.concatenate([order_a, np.repeat(order_a[:1], 3, axis=0)], axis=0)
        pad_b = np.concatenate([order_b, np.repeat(order_b[:1], 3, axis=0)], axis=0)
        j = np.arange(E)[:, None]
        lone_idx = np.where(equal, j, j % lone_cnt)
        a_first = a_lone | equal
        x = np.where(a_first, np.take_along_axis(pad_a, lone_idx, axis=0),
                     np.take_along_axis(pad_b, lone_idx, axis=0))
        y = np.where(a_first, pad_b[:E], pad_a[:E])
        valid = j < limit
        cols = np.arange(m)
        score_y = np.where(valid, np.take(sc.ravel(), y * m + cols), 0)
        # Aggregate of each lone fighter's foes: foes j' with j' % lone == j % lone.
        same = (lone_idx[:, None, :] == lone_idx[None, :, :]) & valid[None, :, :]
        aggregate = (same * score_y[None, :, :]).sum(axis=1)
        first = j < np.where(equal, cnt_a, lone_cnt)
        d = np.take(sc.ravel(), x * m + cols) - aggregate
        adv_x = np.where(first, d, 0)
        keep = rules.multi_zero_mode == "foes_keep_aggregate"
        adv_y = np.where(first | keep, -d, 0)
        return x, y, valid, adv_x, adv_y

    # --- one round ------------------------------------------------------------------------
    def exchange_round(self, bonus: np.ndarray | None, actors: np.ndarray | None,
                       divert_allowed: bool, tables: bool) -> None:
        """Roll, declare, resolve and apply one round for every live fight.

        ``actors`` (2, m) bool limits who rolls, by side (one-sided ambush exchanges).
        """
        s, rules = self.s, self.rules
        m = self.live.size
        S = s.slots
        x, y, valid, adv_x, adv_y = self.engage(bonus)
        self.exch = (x, y, valid, adv_x, adv_y)
        E = x.shape[0]
        K = 2 * E
        att = np.empty((K, m), np.int64)
        tgt = np.empty((K, m), np.int64)
        adv = np.empty((K, m), np.int32)
        ok = np.empty((K, m), bool)
        att[0::2], att[1::2] = x, y
        tgt[0::2], tgt[1::2] = y, x
        adv[0::2], adv[1::2] = adv_x, adv_y
        ok[0::2], ok[1::2] = valid, valid
        cols = np.arange(m)
        f_att = att * m + cols
        f_tgt = tgt * m + cols
        # In a duel entry k is slot k striking slot 1 - k: reads need no gather at all.
        self.duel = S == 2
        if actors is not None:
            ok &= np.take(actors.ravel(), np.take(s.side, att) * m + cols)
        code = codes(self.n_codes, K * m, rng=self.rng).reshape(K, m)
        roll = np.take(self.code_roll, code)
        # --- declarations (001.5) ---
        if divert_allowed and (s.policy.any() or self.any_forced):
            divert = self.decide(att, f_att, adv) & ok
        else:
            divert = np.zeros((K, m), bool)
        twelve = roll == 12
        two = roll == 2
        stroke = np.take(_STROKE_FLAT, (np.clip(adv, -25, 25) + 25) * 13 + roll)
        success = divert & stroke  # a 12 always succeeds, a 2 never does
        partner = np.arange(K) ^ 1
        if rules.divert_scope == "pair":
            protected = success[partner]  # my target's diversion against me holds
        else:
            any_success = np.zeros(S * m, bool)
            for k in range(K):
                any_success[f_att[k]] |= success[k]
            protected = np.take(any_success, f_tgt)
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
        # effects of the tables, kept sparse as flat indices ``slot * m + column``
        self.fx: dict[str, list[np.ndarray]] = {
            "nullify": [], "unarm": [], "lose_shield": [], "forced": [], "out": [], "cause": []}
        if tables:
            self.tables_round(ok & two, attacking & ~protected & twelve, divert & twelve)
        self.apply(ordinary, code, f_att, f_tgt, tgt)

    def decide(self, att: np.ndarray, f_att: np.ndarray, adv: np.ndarray) -> np.ndarray:
        """Each entry's diversion declaration, by its fighter's policy (001.5)."""
        s = self.s
        forced = self.at_att(self.forced, f_att)
        if not s.policy.any():
            return forced
        policy = np.take(s.policy, att)
        divert = (policy == ALWAYS) | ((policy == IF_DEFICIT) & (adv < 0))
        low = None
        if ((s.policy == BELOW_HEALTH) | (s.policy == REACTIVE)).any():
            low = self.at_att(self.health, f_att) <= np.take(s.divert_health, att)
            divert |= (policy == BELOW_HEALTH) & low
        if (s.policy == RANDOM).any():
            divert |= (policy == RANDOM) & (self.rng.random(att.shape) < np.take(s.divert_p, att))
        divert |= forced
        if low is not None and (s.policy == REACTIVE).any():
            # 001.5: the deficit side declares first, in public; the advantaged one answers
            # knowing it (at zero both write theirs down: no answer).  Entries come in
            # pairs, k and k ^ 1 being the two sides of one pairing.
            reactive = policy == REACTIVE
            first = reactive & (adv <= 0)
            divert |= first & low
            partner = np.arange(att.shape[0]) ^ 1
            second = reactive & (adv > 0)
            divert |= second & low & ~divert[partner]
        return divert

    def mark(self, effect: str, slot: np.ndarray, col: np.ndarray) -> None:
        """Record an end-of-round effect on (slot, column) pairs."""
        if slot.size:
            self.fx[effect].append(slot * self.live.size + col)

    def take_out(self, slot: np.ndarray, col: np.ndarray, cause: int) -> None:
        """Mark fighters out at the round's end; the highest-priority cause wins."""
        if slot.size:
            self.fx["out"].append(slot * self.live.size + col)
            self.fx["cause"].append(np.full(slot.size, cause, np.int8))

    def flat(self, effect: str) -> np.ndarray:
        parts = self.fx[effect]
        return np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)

    def at_att(self, state: np.ndarray, f_att: np.ndarray) -> np.ndarray:
        """``state`` (S, m) read at each entry's attacker: (K, m)."""
        return state if self.duel else np.take(state.ravel(), f_att)

    def at_tgt(self, state: np.ndarray, f_tgt: np.ndarray) -> np.ndarray:
        """``state`` (S, m) read at each entry's target: (K, m)."""
        return state[::-1] if self.duel else np.take(state.ravel(), f_tgt)

    # --- the Extraordinary tables (001.6) ----------------------------------------------------
    def tables_round(self, ef_mask: np.ndarray, es_mask: np.ndarray, div12: np.ndarray) -> None:
        m = ef_mask.shape[1]

        def events(mask: np.ndarray) -> _Events:
            k, c = np.nonzero(mask)
            return _Events(c, self.att[k, c], self.tgt[k, c], self.adv_entry[k, c].astype(np.int64),
                           np.ones(c.size, np.int64), k * m + c,
                           self.divert[k, c], np.zeros(c.size, bool))

        # attackers (protected or not) and diverters who rolled 2 go to the failure table;
        # a diverter's strokes on his foe never land (``suppress``)
        ef = events(ef_mask)
        es = events(es_mask)
        es_div = events(div12) if self.rules.divert_12_es else _Events.empty()
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
                new_es.append(self.failure(ef))
            if len(es):
                s_ef, s_att = self.success(es)
                new_ef.append(s_ef)
                new_attacks.append(s_att)
            ef, es, attacks = (_Events.concat(new_ef), _Events.concat(new_es),
                               _Events.concat(new_attacks))

    def set_hit(self, entry: np.ndarray) -> None:
        self.hit.ravel()[entry[entry >= 0]] = True

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
        c, p = ev.row, ev.p
        mishap = (t >= 2) & (t <= 4)
        self.take_out(p[mishap], c[mishap], MISHAP)
        self.mark("forced", p[t == 5], c[t == 5])
        six = np.flatnonzero(t == 6)
        if six.size:
            which = self.d6(six.size)
            has_shield = self.block[p[six], c[six]] > 0
            shield_hit = (which <= 3) & has_shield
            weapon_hit = (which > 3) | ((which <= 3) & ~has_shield
                                         & (rules.ef6_no_shield == "weapon"))
            self.mark("lose_shield", p[six][shield_hit], c[six][shield_hit])
            self.mark("unarm", p[six][weapon_hit], c[six][weapon_hit])
        seven = t == 7
        if seven.any():
            self.pending_rerolls.append(ev.take(seven))
        self.mark("unarm", p[t == 8], c[t == 8])
        if rules.ef9 == "lose_next_attack":
            self.mark("forced", p[t == 9], c[t == 9])
        eleven = t == 11
        self.strokes.add(c[eleven], p[eleven], p[eleven], self_inflicted=True)
        twelve = t == 12
        go_on = twelve & (ev.chain < rules.max_table_chain)
        plain = twelve & ~go_on & ~ev.suppress
        self.strokes.add(c[plain], p[plain], ev.q[plain])
        self.set_hit(ev.entry[plain])
        nxt = ev.take(go_on)
        nxt.chain = nxt.chain + 1
        return nxt

    def other_foe(self, c: np.ndarray, p: np.ndarray, q: np.ndarray,
                  skip: np.ndarray | None = None) -> np.ndarray:
        """The first standing foe engaged with ``p`` other than ``q`` (and ``skip``), or -1."""
        x, y, valid, _, _ = self.exch
        found = np.full(c.shape, -1, np.int64)
        for e in range(x.shape[0]):
            xe, ye, ve = x[e, c], y[e, c], valid[e, c]
            cand = np.where(xe == p, ye, np.where(ye == p, xe, -1))
            cand_ok = ve & (cand >= 0) & (cand != q) & (found < 0)
            if skip is not None:
                cand_ok &= cand != skip
            # out flags change only at the round's end: standing at its start
            cand_ok &= self.out[np.maximum(cand, 0), c] == 0
            found = np.where(cand_ok, cand, found)
        return found

    def band(self, c: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """``p``'s advantage against ``q`` in this round's exchanges (0 if none)."""
        x, y, valid, adv_x, adv_y = self.exch
        out = np.zeros(c.shape, np.int64)
        for e in range(x.shape[0]):
            xe, ye, ve = x[e, c], y[e, c], valid[e, c]
            out = np.where(ve & (xe == p) & (ye == q), adv_x[e, c], out)
            out = np.where(ve & (ye == p) & (xe == q), adv_y[e, c], out)
        return out

    def success(self, ev: _Events) -> tuple[_Events, _Events]:
        """One Extraordinary Success roll per event; returns new EF events and attacks."""
        rules = self.rules
        cap = rules.max_table_chain
        t = self.two_d6(len(ev))
        c, p, q = ev.row, ev.p, ev.q
        own = ~ev.suppress  # strokes on q land (and settle the hit) unless he diverted
        new_ef: list[_Events] = []
        new_attacks: list[_Events] = []

        def strike(mask: np.ndarray, maximum: bool = False) -> None:
            mask = mask & own
            self.strokes.add(c[mask], p[mask], q[mask], extraordinary=True, maximum=maximum)
            self.set_hit(ev.entry[mask])

        # 2: Before the Devil knows your dead
        devil = t == 2
        if rules.es2_mode == "roller_fails":
            nxt = ev.take(devil & (ev.chain < cap))
            nxt.chain = nxt.chain + 1
            new_ef.append(nxt)
        elif rules.es2_mode == "foe_slain":
            self.take_out(q[devil], c[devil], MISHAP)
        else:  # foe_rolls_ef: the stroke lands and the foe rolls on the failure table
            strike(devil)
            foe = ev.take(devil & (ev.chain < cap))
            none = np.full(len(foe), -1)
            no = np.zeros(len(foe), bool)
            new_ef.append(_Events(foe.row, foe.q, foe.p, -foe.adv, foe.chain + 1, none, no, no))
        # 3, 4, 5, 9 need another engaged foe of the roller
        needs_other = (t == 3) | (t == 4) | (t == 5) | (t == 9)
        other = np.full(c.shape, -1, np.int64)
        if needs_other.any():
            idx = np.flatnonzero(needs_other)
            other[idx] = self.other_foe(c[idx], p[idx], q[idx])
        strike((t == 3) | (t == 4) | (t == 5) | (t == 8) | (t == 10))
        three = np.flatnonzero((t == 3) & (other >= 0))
        if three.size:
            cc, pp, oo, ch = c[three], p[three], other[three], ev.chain[three]
            none = np.full(three.size, -1)
            no = np.zeros(three.size, bool)
            new_attacks.append(_Events(cc, pp, oo, self.band(cc, pp, oo), ch, none, no, no))
            new_attacks.append(_Events(cc, oo, pp, self.band(cc, oo, pp), ch, none, no, no))
        four = (t == 4) & (other >= 0)
        self.strokes.add(c[four], p[four], other[four])
        five = np.flatnonzero((t == 5) & (other >= 0))
        if five.size:
            cc, pp, qq = c[five], p[five], q[five]
            first = other[five]
            second = self.other_foe(cc, pp, qq, skip=first)
            for target in (first, second):
                has = target >= 0
                roll = self.two_d6(five.size)
                lands = has & (roll != 2) & _stroke(self.band(cc, pp, np.maximum(target, 0)), roll)
                self.strokes.add(cc[lands], pp[lands], target[lands])
        six = t == 6
        strike(six, maximum=True)
        self.mark("unarm", p[six], c[six])
        seven = t == 7
        self.mark("nullify", p[seven], c[seven])
        if rules.es7_own_stroke:
            strike(seven)
        strike(t == 8)  # the second of two strokes
        nine = (t == 9) & own
        self.strokes.add(c[nine], p[nine], q[nine], extraordinary=True, through=other[nine])
        self.set_hit(ev.entry[nine])
        ten = t == 10
        self.mark("unarm", q[ten], c[ten])
        eleven = t == 11
        if rules.es11 == "surrender":
            self.take_out(q[eleven], c[eleven], SURRENDER)
        else:
            strike(eleven)
            self.mark("unarm", q[eleven], c[eleven])
        twelve = np.flatnonzero(t == 12)
        if twelve.size:
            cc, qq = c[twelve], q[twelve]
            self.take_out(qq, cc, BROKE)
            side_q = self.s.side[qq]
            standing = self.out[:, cc] == 0  # (S, events)
            same_side = self.s.side[:, None] == side_q[None, :]
            allies = (standing & same_side).sum(axis=0)
            leads = self.s.leader[qq] & (allies > 1)
            if leads.any():
                li = np.flatnonzero(leads)
                li = li[self.rng.random(li.size) < rules.leader_break_p]
                slot, ev_i = np.nonzero(standing[:, li] & same_side[:, li])
                self.take_out(slot, cc[li][ev_i], BROKE)
        return _Events.concat(new_ef), _Events.concat(new_attacks)

    def rerolls(self) -> None:
        """EF 7: a foe who missed rerolls; the new roll stands (as in the reference)."""
        K, m = self.att.shape
        while self.pending_rerolls:
            batch = _Events.concat(self.pending_rerolls)
            self.pending_rerolls = []
            # the foe's entry in this round's exchanges: fighter = foe, foe = roller
            c, roller, foe = batch.row, batch.p, batch.q
            entry = np.full(c.shape, -1, np.int64)
            for k in range(K):
                match = ((self.att[k, c] == foe) & (self.tgt[k, c] == roller)
                         & ~self.divert[k, c] & ~self.hit[k, c])
                entry = np.where(match & (entry < 0), k * m + c, entry)
            has = entry >= 0
            # two rerolls for one entry in one batch: the second waits for the next pass
            _, first = np.unique(entry[has], return_index=True)
            keep = np.zeros(c.shape, bool)
            keep[np.flatnonzero(has)[first]] = True
            later = has & ~keep
            if later.any():
                self.pending_rerolls.append(batch.take(later))
            e = entry[keep]
            kk, cc = e // m, e % m
            attacks = _Events(cc, self.att[kk, cc], self.tgt[kk, cc],
                              self.adv_entry[kk, cc].astype(np.int64), np.zeros(e.size, np.int64),
                              e, np.zeros(e.size, bool), self.protected_entry[kk, cc])
            self.drain(_Events.empty(), _Events.empty(), attacks)

    # --- applying a round ---------------------------------------------------------------------
    def damage(self, f_att: np.ndarray, tgt: np.ndarray, f_tgt: np.ndarray, die: np.ndarray,
               shield_die: np.ndarray, deflectable: np.ndarray | bool) -> np.ndarray:
        """Damage of strokes after shield and armour (001.9); flat indices into (S, m)."""
        rules, s = self.rules, self.s
        weapon = np.take(self.weapon.ravel(), f_att)
        raw = np.maximum(rules.min_damage, die + np.take(s.dmg_mod, weapon))
        dealt = np.maximum(0, raw - np.take(s.armour, tgt))
        block = np.take(self.block.ravel(), f_tgt)
        return np.where(deflectable & (shield_die <= block), 0, dealt).astype(np.int16)

    def apply(self, ordinary: np.ndarray, code: np.ndarray, f_att: np.ndarray,
              f_tgt: np.ndarray, tgt: np.ndarray) -> None:
        m = self.live.size
        flat_health = self.health.ravel()
        nullified = self.flat("nullify")  # ES 7: every stroke on these is cancelled
        # ordinary strokes of the main pass: each entry's own damage and shield dice
        if ordinary.any():
            rules, s = self.rules, self.s
            weapon = self.at_att(self.weapon, f_att)
            raw = np.maximum(rules.min_damage,
                             np.take(self.code_die, code) + np.take(s.dmg_mod, weapon))
            armour = s.armour[::-1, None] if self.duel else np.take(s.armour, tgt)
            dealt = np.maximum(0, raw - armour).astype(np.int16)
            deflected = np.take(self.code_shield, code) <= self.at_tgt(self.block, f_tgt)
            dealt[~ordinary | deflected] = 0
            if nullified.size:
                slot, col = np.divmod(nullified, m)
                for k in range(ordinary.shape[0]):
                    dealt[k, col[tgt[k, col] == slot]] = 0
            if self.duel:
                self.health -= dealt[::-1]
            else:
                for k in range(ordinary.shape[0]):  # within one entry row, targets differ
                    flat_health[f_tgt[k]] -= dealt[k]
        if self.strokes.row:
            c, a, t, ext, mx, through, selfi = self.strokes.arrays()
            die = np.where(mx, self.rules.damage_die,
                           self.rng.integers(1, self.rules.damage_die + 1, c.size))
            f_t = t * m + c
            dealt = self.damage(a * m + c, t, f_t, die, self.d6(c.size), ~ext & ~selfi)
            cancelled = np.isin(f_t, nullified) & ~selfi
            dealt[cancelled] = 0
            np.subtract.at(flat_health, f_t, dealt)
            spill = (through >= 0) & (dealt // 2 > 0) & ~cancelled
            if spill.any():
                th, cs = through[spill], c[spill]
                ok = self.out[th, cs] == 0
                np.subtract.at(flat_health, th[ok] * m + cs[ok], (dealt[spill][ok] // 2))
        self.weapon.ravel()[self.flat("unarm")] = UNARMED
        self.block.ravel()[self.flat("lose_shield")] = 0
        forced = self.flat("forced")
        self.forced = np.zeros(self.out.shape, bool)
        self.forced.ravel()[forced] = True
        self.any_forced = bool(forced.size)
        out, fell = self.out.ravel(), self.fell.ravel()
        if self.fx["out"]:
            where, inverse = np.unique(np.concatenate(self.fx["out"]), return_inverse=True)
            cause = np.zeros(where.size, np.int8)
            np.maximum.at(cause, inverse, np.concatenate(self.fx["cause"]))
            newly = out[where] == 0
            out[where[newly]] = cause[newly]
            fell[where[newly]] = self.round_number
        down = np.flatnonzero((out == 0) & (flat_health <= 0))
        out[down] = DOWN
        fell[down] = self.round_number

    # --- bookkeeping ----------------------------------------------------------------------------
    def settle(self) -> None:
        """Record the fights that ended this round and compact them out."""
        s = self.s
        standing = self.out == 0
        a_left = np.logical_or.reduce(standing[: s.n_a], axis=0)
        b_left = np.logical_or.reduce(standing[s.n_a:], axis=0)
        done = ~(a_left & b_left)
        idx = np.flatnonzero(done)
        if not idx.size:
            return
        winner = np.where(~a_left[idx], np.where(~b_left[idx], Winner.DRAW, Winner.B), Winner.A)
        # cause: the highest-priority cause among the losers who fell this round
        side = s.side[:, None]
        loser_slots = np.where(winner == Winner.A, side == 1,
                               np.where(winner == Winner.B, side == 0, True))
        fell_now = (self.fell[:, idx] == self.round_number) & loser_slots
        cause = np.where(fell_now, self.out[:, idx], 0).max(axis=0)
        cause = np.where(cause > 0, cause, DOWN)
        orig = self.live[idx]
        self.winner[orig] = winner
        self.rounds[orig] = self.round_number
        self.cause[orig] = cause - 1
        keep = np.flatnonzero(~done)
        self.live = self.live[keep]
        for name in ("health", "weapon", "block", "forced", "out", "fell"):
            setattr(self, name, np.take(getattr(self, name), keep, axis=1))

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
        actors = np.zeros((2, m), bool)
        actors[1 - init, warned] = True
        actors[init, brief | surprise] = True
        side_init = (s.side == init)[:, None]
        bonus = (np.where(side_init & brief, 6, 0) + np.where(side_init & surprise, 12, 0))
        self.pending_rerolls = []
        self.exchange_round(bonus.astype(np.int16), actors, divert_allowed=False,
                            tables=s.tables and rules.ambush_tables)
        totally = np.flatnonzero(total >= 9)
        if totally.size:
            self.total_surprise(totally, init)
        self.settle()

    def total_surprise(self, cols: np.ndarray, init: int) -> None:
        """Result 9+: each ambusher's 2d6 other than 2 damages its target; a 12, two."""
        s = self.s
        m = self.live.size
        x, y, valid, _, _ = self.engage()
        self.strokes = _Strokes()
        for slot in np.flatnonzero(s.side == init):
            c = cols[self.out[slot, cols] == 0]
            first = np.full(c.size, -1)
            second = np.full(c.size, -1)
            for e in range(x.shape[0]):
                cand = np.where(valid[e, c] & (x[e, c] == slot), y[e, c],
                                np.where(valid[e, c] & (y[e, c] == slot), x[e, c], -1))
                second = np.where((first >= 0) & (second < 0) & (cand >= 0), cand, second)
                first = np.where((first < 0) & (cand >= 0), cand, first)
            has = first >= 0
            c, first, second = c[has], first[has], second[has]
            roll = self.two_d6(c.size)
            att = np.full(c.size, slot)
            hit = roll != 2
            # the target is unaware: no shield deflects these strokes (DEFAULT)
            self.strokes.add(c[hit], att[hit], first[hit], extraordinary=True)
            if self.rules.total_surprise_12 == "twice_if_alone":
                second = np.where(second >= 0, second, first)
            two = (roll == 12) & (second >= 0)
            self.strokes.add(c[two], att[two], second[two], extraordinary=True)
        if self.strokes.row:
            c, a, t, *_ = self.strokes.arrays()
            die = self.rng.integers(1, self.rules.damage_die + 1, c.size)
            dealt = self.damage(a * m + c, t, t * m + c, die, self.d6(c.size), False)
            np.subtract.at(self.health.ravel(), t * m + c, dealt)
            down = (self.out == 0) & (self.health <= 0)
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
