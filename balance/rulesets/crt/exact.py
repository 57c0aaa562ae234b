"""Exact solution of the plain duel of seed 001 as a Markov chain over health states.

"Plain" means one against one with the Extraordinary tables off and no ambush (001.6 and
001.3 switched off).  Diversion is included: every policy is a function of the fighter's
own state (``random`` mixes both actions), so each health state has fixed transition
probabilities.  The round cap ``max_rounds`` is honoured exactly by iterating the
state distribution round by round (a sparse matrix-vector product per round).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import sparse

from ...dice import pmf
from ...outcomes import Probabilities
from .rules import Combatant, Rules, combat_score, scores, starting_health

__all__ = ["damage_pmf", "solve", "stroke_probability", "unsupported"]

MAX_STATES = 250_000


def stroke_probability(advantage: int) -> Fraction:
    """P(a 2d6 roll is a damaging stroke) for a fighter with ``advantage`` (001.4)."""
    return pmf(2, 6).probability(lambda roll: scores(advantage, roll))


def damage_pmf(attacker: Combatant, target: Combatant, rules: Rules) -> dict[int, Fraction]:
    """Distribution of the damage one ordinary stroke deals, after shield and armour."""
    mod = rules.weapon_damage_mod[attacker.weapon_type]
    block = Fraction(rules.shield_block[target.shield], 6)
    armour = rules.armour_points[target.armour]
    out: dict[int, Fraction] = {0: block}
    for face in range(1, rules.damage_die + 1):
        dealt = max(0, max(rules.min_damage, face + mod) - armour)
        out[dealt] = out.get(dealt, Fraction(0)) + (1 - block) / rules.damage_die
    return out


def unsupported(rules: Rules, side_a: tuple[Combatant, ...], side_b: tuple[Combatant, ...]
                ) -> str | None:
    """Why the solver cannot answer this matchup, or ``None`` if it can."""
    if len(side_a) != 1 or len(side_b) != 1:
        return "the exact solver handles one-against-one duels only"
    if rules.extraordinary:
        return ("the Extraordinary tables are on; set extraordinary=false for the plain duel "
                "(their weapon-loss and chain effects make the state space open-ended)")
    if rules.ambush != "none":
        return "an ambush opening is set; the solver handles the plain duel (ambush=none)"
    states = starting_health(side_a[0], rules) * starting_health(side_b[0], rules)
    if states > MAX_STATES:
        return f"{states:,} health states exceed the solver's limit of {MAX_STATES:,}"
    return None


def _divert_probability(c: Combatant, advantage: int, health: np.ndarray) -> np.ndarray:
    """P(c diverts) in each of its health states, by its policy (001.5)."""
    policy = c.divert
    if policy == "always":
        return np.ones(health.shape)
    if policy == "if_deficit":
        return np.full(health.shape, float(advantage < 0))
    if policy in ("below_health", "reactive"):  # reactive: before any answer (see solve)
        return (health <= c.divert_health).astype(float)
    if policy == "random":
        return np.full(health.shape, c.divert_p)
    return np.zeros(health.shape)


def solve(rules: Rules, a: Combatant, b: Combatant, *, assumptions: tuple[str, ...] = ()
          ) -> Probabilities:
    """Win, loss and draw probabilities and the mean length of a plain duel.

    Each round both roll; a stroke lands with the band probability of its roller's
    advantage; a diverter whose own roll succeeds nullifies the foe's strokes except a 12,
    which lands as an ordinary stroke (001.5; with the tables off every stroke is ordinary).
    Strokes deal independent damage (die + weapon modifier, at least ``min_damage``;
    deflected by the shield on d6 <= block; less armour), and both land simultaneously.
    """
    start = time.perf_counter()
    adv = combat_score(a, rules) - combat_score(b, rules)
    p_a, p_b = float(stroke_probability(adv)), float(stroke_probability(-adv))
    twelve = 1 / 36
    ha, hb = starting_health(a, rules), starting_health(b, rules)
    dmg_ab = damage_pmf(a, b, rules)
    dmg_ba = damage_pmf(b, a, rules)
    da = np.array(sorted(dmg_ab))
    pa_dmg = np.array([float(dmg_ab[k]) for k in da])
    db = np.array(sorted(dmg_ba))
    pb_dmg = np.array([float(dmg_ba[k]) for k in db])

    # Transient states: A's health i in 1..ha, B's health j in 1..hb; index (i-1)*hb + (j-1).
    i_grid, j_grid = np.meshgrid(np.arange(1, ha + 1), np.arange(1, hb + 1), indexing="ij")
    i_s, j_s = i_grid.ravel(), j_grid.ravel()
    k = i_s.size
    div_a = _divert_probability(a, adv, i_s)
    div_b = _divert_probability(b, -adv, j_s)
    # Damage dealt to B (by A) and to A (by B) this round: 0 if no stroke.
    to_b = np.concatenate([[0], da])
    to_a = np.concatenate([[0], db])
    # The four declarations (A diverts?, B diverts?) mix; given them the strokes are
    # independent, so the joint law is a mixture of products (not a product of mixtures).
    prob = np.zeros((k, to_a.size, to_b.size))
    for a_div in (0, 1):
        for b_div in (0, 1):
            # P(this declaration) for each side, per state
            w_a = div_a if a_div else 1 - div_a
            w_b = div_b if b_div else 1 - div_b
            # A reactive fighter with the advantage declares second and answers the foe's
            # public declaration: it never diverts against a diverter (001.5)
            if a.divert == "reactive" and adv > 0 and b_div:
                w_a = np.full(k, 0.0 if a_div else 1.0)
            if b.divert == "reactive" and adv < 0 and a_div:
                w_b = np.full(k, 0.0 if b_div else 1.0)
            weight = w_a * w_b
            if a_div:
                hit_a = np.zeros(k)
            elif b_div:  # B's diversion holds with p_b; then only A's 12 lands
                hit_a = np.full(k, (1 - p_b) * p_a + p_b * twelve)
            else:
                hit_a = np.full(k, p_a)
            if b_div:
                hit_b = np.zeros(k)
            elif a_div:
                hit_b = np.full(k, (1 - p_a) * p_b + p_a * twelve)
            else:
                hit_b = np.full(k, p_b)
            p_to_b = np.concatenate([(1 - hit_a)[:, None], hit_a[:, None] * pa_dmg], axis=1)
            p_to_a = np.concatenate([(1 - hit_b)[:, None], hit_b[:, None] * pb_dmg], axis=1)
            prob += weight[:, None, None] * p_to_a[:, :, None] * p_to_b[:, None, :]
    new_i = i_s[:, None, None] - to_a[None, :, None]
    new_j = j_s[:, None, None] - to_b[None, None, :]
    new_i, new_j = np.broadcast_to(new_i, prob.shape), np.broadcast_to(new_j, prob.shape)
    src = np.broadcast_to(np.arange(k)[:, None, None], prob.shape)
    a_down, b_down = new_i <= 0, new_j <= 0
    transient = ~a_down & ~b_down & (prob > 0)
    q = sparse.csr_matrix(
        (prob[transient], (src[transient], ((new_i - 1) * hb + (new_j - 1))[transient])),
        shape=(k, k))
    r_a = np.where(b_down & ~a_down, prob, 0).sum(axis=(1, 2))  # A wins this round
    r_b = np.where(a_down & ~b_down, prob, 0).sum(axis=(1, 2))
    r_d = np.where(a_down & b_down, prob, 0).sum(axis=(1, 2))
    # Small chains (the usual duel has ~10^2 states) step faster as a dense matrix; sparse
    # keeps big ones (toughness in the hundreds) in memory.
    qt: Any = q.T.toarray() if k <= 400 else q.T.tocsr()

    # Columns: the round's mass still fighting, then A wins / B wins / draws that round.
    absorb = np.column_stack([np.ones(k), r_a, r_b, r_d])
    v = np.zeros(k)
    v[(ha - 1) * hb + (hb - 1)] = 1.0
    totals = np.zeros(4)  # mean rounds, a_win, b_win, draw
    for _ in range(rules.max_rounds):
        step = v @ absorb
        if step[0] < 1e-17:
            break
        totals += step
        v = qt @ v
    mean_rounds, a_win, b_win, draw = totals
    capped = float(v.sum())
    elapsed = time.perf_counter() - start
    return Probabilities(
        "crt", float(a_win), float(b_win), float(draw + capped), float(mean_rounds),
        details={"advantage": adv, "states": k, "capped_at_max_rounds": capped,
                 "solve_ms": round(1000 * elapsed, 3)},
        assumptions=assumptions)
