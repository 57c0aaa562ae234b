"""An independent, slow oracle for the pool solver: the rules read afresh from the fields.

``brute_value`` is the value of the fight with its round cap (``max_rounds``, then a
draw), by plain memoised recursion over (Wound Points, armour WP, pools, whose turn, rounds
left),
every exchange's matrix built bid by bid and die by die and solved by
``scipy.optimize.linprog`` (the column player's LP, unlike the solver's tableau on the row
player's), or by max-min / min-max for the informed protocols.  It shares no code with
``balance.rulesets.pool`` beyond the combatant and rules dataclasses.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

import numpy as np
from scipy.optimize import linprog


def column_lp_value(M: np.ndarray) -> float:
    """Value of the zero-sum game ``M`` (rows maximise) by the column player's LP."""
    row_min, col_max = M.min(axis=1).max(), M.max(axis=0).min()
    if row_min >= col_max - 1e-13:
        return float(row_min)
    m, n = M.shape
    # minimise u subject to M y <= u, sum y = 1, y >= 0
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=np.hstack([M, -np.ones((m, 1))]),
                  b_ub=np.zeros(m), A_eq=np.r_[np.ones(n), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * n + [(None, None)], method="highs",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0, res.message
    return float(res.fun)


def brute_value(rules, side_a: Sequence, side_b: Sequence) -> float:
    """A's value, ``P(A wins) + draw_worth * P(draw)``, of the capped fight."""
    everyone = [*side_a, *side_b]
    side = [0] * len(side_a) + [1] * len(side_b)
    st = rules.status_in_checks
    att = [c.coordination + c.combat + c.misc_attack + st * c.status for c in everyone]
    dfn = [c.fortitude + c.combat + c.misc_defence + st * c.status for c in everyone]
    pool0 = [(c.coordination + c.intellect) // 2 for c in everyone]
    wp0 = [c.wound_points if c.wound_points is not None else rules.wp_per_fortitude * c.fortitude
           for c in everyone]
    arm0 = [rules.armour_wp[c.armour] for c in everyone]
    dmg = [rules.weapon_damage[c.weapon] + c.coordination // 3 for c in everyone]
    n_sides = rules.die_sides
    faces = range(1, n_sides + 1) if n_sides else (0,)
    dice = [(x - y, 1.0 / len(faces) ** 2) for x in faces for y in faces]
    die_lo, die_hi = (1, n_sides) if n_sides else (0, 0)
    w = rules.draw_worth
    k = len(everyone)

    key = [(-(c.coordination - c.status + c.misc_turn), -c.coordination, -c.combat, c.status)
           for c in everyone]
    orders = []
    for perm in itertools.permutations(range(k)):
        if all(key[perm[x]] <= key[perm[x + 1]] for x in range(k - 1)):
            orders.append(perm)
    if rules.tv_final_tiebreak == "listed":
        orders = [min(orders)]

    def up(wp: tuple, f: int) -> bool:
        return wp[f] > rules.down_at

    def value_for(order: tuple) -> float:
        @functools.cache
        def V(wp: tuple, arm: tuple, pool: tuple, pos: int, left: int) -> float:
            if not any(up(wp, f) for f in range(k) if side[f] == 1):
                return 1.0
            if not any(up(wp, f) for f in range(k) if side[f] == 0):
                return 0.0
            if not any(up(wp, x) and up(wp, y) and side[x] != side[y]
                       and att[x] + pool[x] + die_hi > dfn[y] + die_lo
                       for x in range(k) for y in range(k)):
                return w
            if left == 0:
                return w
            x = order[pos]
            if not up(wp, x):
                return V(wp, arm, pool, (pos + 1) % k, left - (pos == k - 1))
            foes = [y for y in range(k) if side[y] != side[x] and up(wp, y)]
            y = foes[0] if rules.target_policy == "first" else min(foes, key=lambda f: (wp[f], f))
            M = np.zeros((pool[x] + 1, pool[y] + 1))
            for a in range(pool[x] + 1):
                for d in range(pool[y] + 1):
                    p2 = list(pool)
                    p2[x] -= a
                    p2[y] -= d
                    total = 0.0
                    for diff, pr in dice:
                        margin = att[x] + a - (dfn[y] + d) + diff
                        wp2, arm2 = list(wp), list(arm)
                        if margin > 0:
                            hurt = dmg[x] + (margin // 2 if rules.margin_damage else 0)
                            soak = min(arm2[y], hurt)
                            arm2[y] -= soak
                            wp2[y] -= hurt - soak
                        total += pr * V(tuple(wp2), tuple(arm2), tuple(p2), (pos + 1) % k,
                                        left - (pos == k - 1))
                    M[a, d] = total
            # rows are the attacker's bids: side A's attacker maximises A's value,
            # side B's minimises it (so maximises the negated matrix)
            sign = 1.0 if side[x] == 0 else -1.0
            if rules.bid_protocol == "attacker_first":
                return sign * float((sign * M).min(axis=1).max())
            if rules.bid_protocol == "defender_first":
                return sign * float((sign * M).max(axis=0).min())
            return sign * column_lp_value(sign * M)

        return V(tuple(wp0), tuple(arm0), tuple(pool0), 0, rules.max_rounds)

    return sum(value_for(o) for o in orders) / len(orders)
