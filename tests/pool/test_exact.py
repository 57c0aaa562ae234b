"""The exact solver against brute force, closed forms and its own invariants."""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from scipy.optimize import linprog

import balance
from balance.errors import IntractableError
from balance.matrix_game import _linprog, solve_informed, solve_sealed
from balance.rulesets.pool import exact
from balance.rulesets.pool.rules import Combatant, Rules

POOL = balance.get("pool")


# --- the oracle: an independent, slow brute force --------------------------------------
#
# The rules read afresh from the fields.  ``brute_value`` is the value of the fight with its
# round cap (``max_rounds``, then a draw), by plain memoised recursion over (Wound Points,
# armour WP, pools, whose turn, rounds left), every exchange's matrix built bid by bid and
# die by die and solved by ``scipy.optimize.linprog`` (the column player's LP, unlike the
# solver's tableau on the row player's), or by max-min / min-max for the informed
# protocols.  It shares no code with ``balance.rulesets.pool`` beyond the dataclasses.


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
        def V(wp: tuple, arm: tuple, pool: tuple, pos: int, left: int,
              stale: int | None = None) -> float:
            # stale: the rounds to a stalemate's draw, this one included (None: none yet)
            if not any(up(wp, f) for f in range(k) if side[f] == 1):
                return 1.0
            if not any(up(wp, f) for f in range(k) if side[f] == 0):
                return 0.0
            if stale is None and not any(up(wp, x) and up(wp, y) and side[x] != side[y]
                                         and att[x] + pool[x] + die_hi > dfn[y] + die_lo
                                         for x in range(k) for y in range(k)):
                if not rules.margin_failure_damage:
                    return w  # nothing can happen before the draw
                if pos == 0:  # tested at the start of a round; its rounds are played
                    stale = min(rules.stalemate_rounds, left)
            if left == 0 or stale == 0:
                return w
            wraps = pos == k - 1
            nxt = ((pos + 1) % k, left - wraps, None if stale is None else stale - wraps)
            x = order[pos]
            if not up(wp, x):
                return V(wp, arm, pool, *nxt)
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
                        elif rules.margin_failure_damage:  # the miss hurts the attacker
                            hurt = -margin // 2
                            soak = min(arm2[x], hurt)
                            arm2[x] -= soak
                            wp2[x] -= hurt - soak
                        total += pr * V(tuple(wp2), tuple(arm2), tuple(p2), *nxt)
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


def C(name, **fields):
    return Combatant(name=name, **fields)


# --- one exchange -------------------------------------------------------------------------


def test_simplex_matches_linprog_on_random_games():
    rng = np.random.default_rng(0)
    for trial in range(120):
        m, n = rng.integers(1, 10, 2)
        M = rng.random((m, n))
        if trial % 2:
            M = np.round(M * 3) / 3  # degenerate games: many ties
        got = solve_sealed(M)
        assert got.value == pytest.approx(column_lp_value(M), abs=1e-9)
        assert got.value == pytest.approx(_linprog(M).value, abs=1e-9)
        # the strategies are optimal: each side guarantees the value
        assert (got.attack @ M).min() >= got.value - 1e-9
        assert (M @ got.defence).max() <= got.value + 1e-9


def test_matching_pennies():
    got = solve_sealed(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert got.value == pytest.approx(0.5)
    assert got.attack == pytest.approx([0.5, 0.5])
    assert got.method == "simplex"


def test_saddle_prefers_the_smallest_bids():
    got = solve_sealed(np.array([[0.5, 0.5], [0.5, 0.5]]))
    assert got.method == "saddle" and got.attack[0] == 1 and got.defence[0] == 1


def test_informed_is_max_min_by_enumeration():
    rng = np.random.default_rng(1)
    for _ in range(100):
        M = np.round(rng.random(tuple(rng.integers(1, 6, 2))), 1)
        lead_a = solve_informed(M, "attacker")
        assert lead_a.value == max(min(row) for row in M)
        a = int(np.argmax(lead_a.attack))
        assert M[a, lead_a.defence_response[a]] == lead_a.value
        lead_d = solve_informed(M, "defender")
        assert lead_d.value == min(max(col) for col in M.T)


# --- the whole fight against brute force ------------------------------------------------------

CASES = {
    "diceless margin, mixed": (
        Rules(margin_damage=True),
        [C("A", coordination=4, intellect=3, fortitude=3, combat=0, weapon="knife",
           wound_points=6)],
        [C("B", coordination=4, intellect=4, fortitude=3, combat=0, wound_points=2)]),
    "diceless mirror, waiting": (
        Rules(),
        [C("A", coordination=5, intellect=1, fortitude=5, combat=2, wound_points=4,
           weapon="unarmed")],
        [C("B", coordination=5, intellect=1, fortitude=5, combat=2, wound_points=4,
           weapon="unarmed", status=1)]),
    "diceless armour": (
        Rules(),
        [C("A", coordination=5, intellect=3, fortitude=5, combat=1, wound_points=4,
           weapon="knife", armour="light")],
        [C("B", coordination=5, intellect=3, fortitude=4, combat=1, wound_points=6,
           weapon="knife")]),
    "1d6 sealed": (
        Rules(randomiser="1d6"),
        [C("A", coordination=4, intellect=1, fortitude=4, combat=1, wound_points=4,
           weapon="knife")],
        [C("B", coordination=4, intellect=0, fortitude=4, combat=1, wound_points=4,
           weapon="knife", status=1)]),
    "1d6 attacker first": (
        Rules(randomiser="1d6", bid_protocol="attacker_first"),
        [C("A", coordination=4, intellect=2, fortitude=4, combat=1, wound_points=5,
           weapon="knife")],
        [C("B", coordination=4, intellect=3, fortitude=4, combat=1, wound_points=5,
           weapon="knife", status=1)]),
    "1d6 defender first, margin": (
        Rules(randomiser="1d6", bid_protocol="defender_first", margin_damage=True),
        [C("A", coordination=4, intellect=0, fortitude=4, combat=1, wound_points=5,
           weapon="knife")],
        [C("B", coordination=4, intellect=3, fortitude=4, combat=1, wound_points=5,
           weapon="knife", status=1)]),
    "1d6 coin for the order, draws worth 0": (
        Rules(randomiser="1d6", draw_worth=0.0),
        [C("A", coordination=4, intellect=0, fortitude=4, combat=1, wound_points=4,
           weapon="knife")],
        [C("B", coordination=4, intellect=1, fortitude=4, combat=1, wound_points=4,
           weapon="knife")]),
    "2 against 1, diceless margin": (
        Rules(margin_damage=True),
        [C("A1", coordination=5, intellect=1, fortitude=5, combat=2, wound_points=3,
           weapon="knife"),
         C("A2", coordination=5, intellect=1, fortitude=3, combat=0, wound_points=5,
           weapon="unarmed")],
        [C("B", coordination=4, intellect=1, fortitude=6, combat=1, wound_points=5,
           weapon="knife")]),
    "2 against 1, 1d6": (
        Rules(randomiser="1d6"),
        [C("A1", coordination=4, intellect=0, fortitude=3, combat=1, wound_points=2),
         C("A2", coordination=3, intellect=0, fortitude=3, combat=1, wound_points=2)],
        [C("B", coordination=4, intellect=1, fortitude=4, combat=1, wound_points=5,
           weapon="knife")]),
    "1d6 margin of failure and success, armour": (
        Rules(randomiser="1d6", margin_damage=True, margin_failure_damage=True),
        [C("A", coordination=4, intellect=2, fortitude=4, combat=1, wound_points=4,
           weapon="knife", armour="light")],
        [C("B", coordination=5, intellect=1, fortitude=3, combat=1, wound_points=5,
           weapon="knife")]),
    # the exact game's own turn (issue 24): with turn_policy=attack a fighter who cannot
    # hit would decline the attack under margin_failure_damage, which the game refuses
    "diceless margin of failure": (
        Rules(margin_failure_damage=True),
        [C("A", coordination=5, intellect=1, fortitude=5, combat=1, wound_points=3,
           weapon="unarmed", turn_policy="attack_always")],
        [C("B", coordination=5, intellect=3, fortitude=5, combat=1, wound_points=3,
           weapon="unarmed", turn_policy="attack_always", status=1)]),
    "3 against 1, diceless margin of failure": (
        Rules(margin_failure_damage=True),
        [C("A1", coordination=3, intellect=1, fortitude=3, combat=1, wound_points=2,
           weapon="unarmed", turn_policy="attack_always"),
         C("A2", coordination=3, intellect=1, fortitude=3, combat=1, wound_points=2,
           weapon="unarmed", turn_policy="attack_always"),
         C("A3", coordination=3, intellect=0, fortitude=2, combat=1, wound_points=2,
           weapon="unarmed", turn_policy="attack_always")],
        [C("B", coordination=4, intellect=2, fortitude=3, combat=1, wound_points=3,
           weapon="unarmed", turn_policy="attack_always")]),
}


CHEAP_AT_50 = ["diceless margin, mixed", "diceless mirror, waiting", "diceless armour",
               "1d6 sealed"]


SLOW_BRUTE = {"3 against 1, diceless margin of failure",
              "1d6 margin of failure and success, armour"}


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) if c in SLOW_BRUTE
                                  else c for c in CASES])
def test_solver_matches_brute_force(case):
    """The capped game (8 rounds) solved two independent ways agrees to round-off."""
    rules, side_a, side_b = CASES[case]
    rules = dataclasses.replace(rules, max_rounds=8)
    got = exact.solve(rules, side_a, side_b).details["game_value"]
    assert got == pytest.approx(brute_value(rules, side_a, side_b), abs=1e-10)


@pytest.mark.parametrize("case", ["diceless margin of failure",
                                  "3 against 1, diceless margin of failure",
                                  "1d6 margin of failure and success, armour"])
def test_the_margin_of_failure_matters_in_its_cases(case):
    """The brute-force cases of ``margin_failure_damage`` are contested and moved by it."""
    rules, side_a, side_b = CASES[case]
    rules = dataclasses.replace(rules, max_rounds=8)
    with_it = exact.solve(rules, side_a, side_b).details["game_value"]
    without = exact.solve(dataclasses.replace(rules, margin_failure_damage=False), side_a,
                          side_b).details["game_value"]
    assert 0.01 < with_it < 0.99 and abs(with_it - without) > 0.005


@pytest.mark.parametrize("case", CHEAP_AT_50)
def test_solver_matches_brute_force_at_the_default_cap(case):
    rules, side_a, side_b = CASES[case]
    got = exact.solve(rules, side_a, side_b).details["game_value"]
    assert got == pytest.approx(brute_value(rules, side_a, side_b), abs=1e-10)


def test_cases_include_mixed_and_informed_play():
    """The brute-force cases exercise every kind of exchange the solver meets."""
    methods: dict[str, int] = {}
    for rules, side_a, side_b in CASES.values():
        for sol in exact.solved(rules, side_a, side_b).solutions.values():
            for key, value in sol.counts.items():
                methods[key] = methods.get(key, 0) + value
    assert methods["simplex"] > 0 and methods["saddle"] > 0 and methods["minimax"] > 0
    assert methods["unchanged"] > 0


def test_linprog_method_agrees():
    rules, side_a, side_b = CASES["1d6 coin for the order, draws worth 0"]
    rules = dataclasses.replace(rules, max_rounds=10)
    auto = exact.solve(rules, side_a, side_b).details["game_value"]
    slow = exact.solve_with(rules, side_a, side_b, method="linprog").details["game_value"]
    assert auto == pytest.approx(slow, abs=1e-9)


# --- closed forms -----------------------------------------------------------------------------


def test_sure_hits_against_a_harmless_foe():
    """A's attack 9 beats B's defence 7 + B's whole pool of 1 every turn, and B can never
    beat A's defence 6: A wins for sure, in three rounds."""
    a = C("A", coordination=6, combat=3, intellect=4)
    b = C("B", coordination=1, fortitude=5, combat=2, intellect=1)
    p = POOL.exact(Rules(), (a,), (b,))
    assert (p.a_win, p.b_win, p.draw) == (1.0, 0.0, 0.0)
    assert p.mean_rounds == 3.0  # 15 WP, 5 a hit


def test_stalemate_from_the_start():
    a = C("A", coordination=3, intellect=1, fortitude=6)
    p = POOL.exact(Rules(), (a,), (C("B", coordination=3, intellect=1, fortitude=6),))
    assert p.draw == 1.0 and p.mean_rounds == 2.0
    assert "stalemate 1.000000" in p.details["draws"]


def test_waiting_is_a_capped_draw():
    """Equal fighters who must spend to hit and need four hits: both wait to the cap."""
    rules, side_a, side_b = CASES["diceless mirror, waiting"]
    p = exact.solve(rules, side_a, side_b)
    assert p.draw == 1.0 and p.mean_rounds == rules.max_rounds
    assert "max_rounds 1.000000" in p.details["draws"]


def test_value_by_cap_is_the_game_with_that_cap():
    rules, side_a, side_b = CASES["2 against 1, diceless margin"]
    text = exact.solve(rules, side_a, side_b).details["value_by_max_rounds"]
    by_cap = dict(part.split(": ") for part in text.split(", "))
    short = exact.solve(dataclasses.replace(rules, max_rounds=5), side_a, side_b)
    assert float(by_cap["5"]) == pytest.approx(short.details["game_value"], abs=1e-6)


def test_mirror_with_a_coin_is_fair():
    rules = Rules(randomiser="1d6")
    a, b = C("A", wound_points=6), C("B", wound_points=6)
    p = exact.solve(rules, (a,), (b,))
    assert p.a_win == pytest.approx(p.b_win, abs=1e-12)
    assert p.details["turn_orders"] == 2
    assert p.details["game_value"] == pytest.approx(0.5, abs=1e-12)


def test_probabilities_add_up_and_match_the_value():
    """The outcome chain under the solved strategies reproduces the game value exactly."""
    for rules, side_a, side_b in CASES.values():
        p = exact.solve(rules, side_a, side_b)
        assert p.a_win + p.b_win + p.draw == pytest.approx(1.0, abs=1e-12)
        value = p.a_win + rules.draw_worth * p.draw
        assert value == pytest.approx(p.details["game_value"], abs=1e-10)


def test_draw_worth_changes_the_objective_not_the_rules():
    rules, side_a, side_b = CASES["diceless mirror, waiting"]
    values = []
    for worth in (0.0, 0.5, 1.0):
        varied = dataclasses.replace(rules, draw_worth=worth, max_rounds=8)
        values.append(exact.solve(varied, side_a, side_b).details["game_value"])
        assert values[-1] == pytest.approx(brute_value(varied, side_a, side_b), abs=1e-10)
    assert values[0] <= values[1] <= values[2]


def test_more_pool_never_hurts():
    """Free disposal: a bigger pool can always be left unspent."""
    rules = Rules(randomiser="1d6")
    b = C("B", coordination=4, intellect=2, wound_points=5)
    values = [exact.solve(rules, (C("A", coordination=4, intellect=i, wound_points=5),), (b,))
              .details["game_value"] for i in (0, 2, 4)]
    assert values[0] <= values[1] + 1e-12 <= values[2] + 2e-12


# --- fixed policies, evaluated exactly -----------------------------------------------------------


@pytest.mark.parametrize(("pa", "pb"), list(itertools.product(
    ["minimal_sure_hit", "all_in_first", "save_for_defence"], repeat=2)))
@pytest.mark.parametrize("protocol", ["sealed", "attacker_first", "defender_first"])
def test_deterministic_policies_match_the_reference(pa, pb, protocol):
    """Diceless, fixed order, deterministic policies: one possible fight, which the exact
    chain must reproduce with probability one."""
    rules = Rules(bid_protocol=protocol, exact_play="policies")
    a = C("A", coordination=6, intellect=4, fortitude=4, combat=2, pool_policy=pa)
    b = C("B", coordination=5, intellect=5, fortitude=5, combat=2, pool_policy=pb)
    out = POOL.fight(rules, (a,), (b,), rng=np.random.default_rng(0))
    p = POOL.exact(rules, (a,), (b,))
    got = {balance.Winner.A: p.a_win, balance.Winner.B: p.b_win, balance.Winner.DRAW: p.draw}
    assert got[out.winner] == 1.0
    assert p.mean_rounds == out.rounds


def test_equilibrium_against_a_fixed_policy_does_at_least_the_value():
    """The equilibrium strategy guarantees the game value against any opponent."""
    rules, side_a, side_b = CASES["1d6 sealed"]
    eq = [Combatant(**{**c.__dict__, "pool_policy": "equilibrium"}) for c in side_a]
    value = exact.solve(rules, side_a, side_b).details["game_value"]
    for policy in ("minimal_sure_hit", "all_in_first", "save_for_defence", "random_mixed"):
        foe = [Combatant(**{**c.__dict__, "pool_policy": policy}) for c in side_b]
        p = exact.solve(Rules(randomiser="1d6", exact_play="policies"), eq, foe)
        assert p.a_win + 0.5 * p.draw >= value - 1e-9


# --- limits -----------------------------------------------------------------------------------


def test_too_many_states_is_intractable():
    big = C("big", coordination=10, intellect=10, fortitude=10, wound_points=900,
            weapon="unarmed")
    with pytest.raises(IntractableError, match="exceed the solver's limit"):
        POOL.exact(Rules(margin_damage=True, randomiser="1d10"), (big, big), (big,))


def test_strategy_table_names_the_sides_and_explains_waiting():
    avg = POOL.presets["average"]
    frame = POOL.exact(Rules(), (dataclasses.replace(avg, intellect=10),), (avg,)).strategy
    assert set(frame["attacker"]) == {"A average", "B average"}
    notes = frame.attrs["notes"]
    assert notes[0].startswith("reach:") and "value: A's worth" in notes[0]
    assert any("waits" in n for n in notes)  # every opening bid is 0 here


def test_many_turn_orders_are_refused_before_any_work():
    # Four equal Turn Values: 24 orders, each its own game of 640,000 states.
    avg = POOL.presets["average"]
    with pytest.raises(IntractableError, match="24 turn orders"):
        POOL.exact(Rules(), (avg, avg), (avg, avg))
    assert POOL.exact_check(Rules(), (avg, avg), (avg, avg)) is not None


def test_strategy_table_shows_the_opening():
    rules, side_a, side_b = CASES["1d6 coin for the order, draws worth 0"]
    frame = exact.solve(rules, side_a, side_b).strategy
    assert list(frame.columns[:3]) == ["order", "turn", "reach"]
    first = frame[frame.turn == 1]
    assert first.reach.sum() == pytest.approx(1.0)
    assert set(first.attacker) == {"A", "B"}
