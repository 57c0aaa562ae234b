"""The exact solver against brute force, closed forms and its own invariants."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from brute import brute_value, column_lp_value

import balance
from balance.errors import IntractableError
from balance.rulesets.pool import exact
from balance.rulesets.pool.matrix_game import _linprog, solve_informed, solve_sealed
from balance.rulesets.pool.rules import Combatant, Rules

POOL = balance.get("pool")


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
}


CHEAP_AT_50 = ["diceless margin, mixed", "diceless mirror, waiting", "diceless armour",
               "1d6 sealed"]


@pytest.mark.parametrize("case", list(CASES))
def test_solver_matches_brute_force(case):
    """The capped game (8 rounds) solved two independent ways agrees to round-off."""
    rules, side_a, side_b = CASES[case]
    rules = dataclasses.replace(rules, max_rounds=8)
    got = exact.solve(rules, side_a, side_b).details["game_value"]
    assert got == pytest.approx(brute_value(rules, side_a, side_b), abs=1e-10)


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
    slow = exact.solve(rules, side_a, side_b, method="linprog").details["game_value"]
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


def test_strategy_table_shows_the_opening():
    rules, side_a, side_b = CASES["1d6 coin for the order, draws worth 0"]
    frame = exact.solve(rules, side_a, side_b).strategy
    assert list(frame.columns[:3]) == ["order", "turn", "reach"]
    first = frame[frame.turn == 1]
    assert first.reach.sum() == pytest.approx(1.0)
    assert set(first.attacker) == {"A", "B"}
