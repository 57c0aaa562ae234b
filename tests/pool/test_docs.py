"""Every figure ``docs/pool.md`` quotes, solved again: the cells of the experiments it cites
(each by the ruleset's exact solver, as the experiment's exact sweep solves it) and the
state counts of its scaling table."""

from __future__ import annotations

import pytest

import balance
from balance.rulesets.pool.exact import Space, linear_orders

POOL = balance.get("pool")
SEALED = POOL.rules(bid_protocol="sealed")

pytestmark = pytest.mark.slow


def solve(a: str, b: str, rules=SEALED, **overrides):
    return POOL.exact(POOL.rules(rules, **overrides) if overrides else rules, POOL.side(a),
                      POOL.side(b))


def value(p) -> float:
    return p.a_win + 0.5 * p.draw


@pytest.mark.parametrize(("a", "b", "states", "orders"), [
    ("bench", "bench,status=1", 43_218, 1),
    (["guard,name=guard 1", "guard,name=guard 2"], "duellist", 75_600, 2),
    (["guard,name=guard 1", "guard,name=guard 2"], "noble", 154_350, 2),
    (["militia,name=m1", "militia,name=m2", "militia,name=m3"], "duellist", 229_376, 6),
])
def test_scaling_table_states(a, b, states, orders):
    side_a, side_b = POOL.side(a), POOL.side(b)
    space = Space(SEALED, side_a, side_b, layout_only=True)
    assert space.k * space.n_cores == states
    assert len(linear_orders(SEALED, (*side_a, *side_b))) == orders


def test_the_scenario_guards_match_the_table():
    sc = POOL.scenario("guards-vs-duellist")
    space = Space(SEALED, sc.side_a, sc.side_b, layout_only=True)
    assert space.k * space.n_cores == 75_600


# --- Co-ordination x Fortitude --------------------------------------------------------------

@pytest.mark.parametrize("co", range(2, 11))
def test_above_the_diagonal_a_wins_with_certainty(co):
    for fort in range(1, co):
        p = solve(f"average,coordination={co}", f"average,fortitude={fort}")
        assert p.a_win == pytest.approx(1.0, abs=1e-12), (co, fort)


@pytest.mark.parametrize(("co", "fort", "draw"), [(4, 5, 0.027), (1, 2, 0.005), (8, 9, 0.064)])
def test_below_the_diagonal_the_pool_buys_stalemates(co, fort, draw):
    p = solve(f"average,coordination={co}", f"average,fortitude={fort}")
    assert p.a_win == pytest.approx(0.0, abs=1e-12)
    assert round(p.draw, 3) == draw
    if (co, fort) == (4, 5):
        assert round(p.b_win, 3) == 0.973


@pytest.mark.parametrize(("co", "quoted"), [(4, 0.50), (3, 0.05), (5, 0.05), (7, 0.04),
                                            (1, 0.90)])
def test_the_diagonal(co, quoted):
    p = solve(f"average,coordination={co}", f"average,fortitude={co}")
    assert round(p.details["game_value"], 2) == quoted


# --- Intellect -----------------------------------------------------------------------------

@pytest.mark.parametrize(("intellect", "quoted"), [(1, 0.00), (2, 0.09), (4, 0.50), (6, 0.85),
                                                   (8, 0.98), (10, 1.00)])
def test_intellect_decides_an_even_fight(intellect, quoted):
    p = solve(f"average,intellect={intellect}", "average")
    assert round(p.details["game_value"], 2) == quoted


def test_intellect_across_a_one_point_gap():
    for intellect in range(1, 11):
        assert solve(f"average,coordination=5,intellect={intellect}", "average").a_win == 1.0
    for intellect in range(1, 9):
        assert solve(f"average,coordination=3,intellect={intellect}", "average").a_win == 0.0
    low = solve("average,coordination=3,intellect=1", "average")
    high = solve("average,coordination=3,intellect=9", "average")
    assert solve("average,coordination=3,intellect=10", "average").a_win == high.a_win
    assert round(100 * high.a_win, 1) == 1.0
    assert (round(100 * low.b_win, 1), round(100 * high.b_win, 1)) == (99.5, 82.6)
    assert round(100 * high.draw, 1) == 16.4
    assert (round(low.details["game_value"], 3), round(high.details["game_value"], 3)) == (
        0.002, 0.092)


def test_minimal_sure_hit_is_not_monotone_in_the_pool():
    policies = POOL.rules(SEALED, exact_play="policies")
    poorer = solve("average,intellect=2", "average", policies)
    richer = solve("average,intellect=6", "average", policies)
    assert poorer.a_win == 0.5 and richer.a_win == 0.0


# --- bid protocol ------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b", "quoted"), [("scholar", "average", (0.92, 0.5, 1.0)),
                                                ("militia", "scholar", (0.001, 0.5, 0.0))])
def test_bid_protocol_moves_the_contested(a, b, quoted):
    got = []
    for protocol in ("sealed", "attacker_first", "defender_first"):
        p = solve(a, b, bid_protocol=protocol)
        got.append(value(p))
        if protocol == "attacker_first":
            assert p.draw == pytest.approx(1.0, abs=1e-12)
    assert (round(got[0], 2 if quoted[0] > 0.01 else 3), got[1], got[2]) == pytest.approx(
        quoted, abs=1e-12)


# --- Status --------------------------------------------------------------------------------

def test_status_buys_only_acting_later():
    mirror = solve("average", "average")
    assert [round(100 * x, 1) for x in (mirror.a_win, mirror.b_win, mirror.draw)] == [
        28.8, 28.8, 42.4]
    for status in (1, 5):
        later = solve(f"average,status={status}", "average")
        assert (round(100 * later.a_win, 1), round(100 * later.b_win, 1)) == (22.0, 35.7)
    assert round(100 * (mirror.a_win - later.a_win), 1) == 6.9
    for weight in (1, 2):
        p = solve("average,status=1", "average", status_in_checks=weight)
        assert p.a_win == 1.0 and p.mean_rounds == pytest.approx(3.0)


# --- armour against Fortitude ------------------------------------------------------------------

def test_armour_against_fortitude():
    for fort in range(3, 9):
        for armour in ("none", "light", "medium", "heavy"):
            p = solve(f"average,fortitude={fort},armour={armour}", "duellist")
            assert p.b_win == pytest.approx(1.0, abs=1e-12), (fort, armour)
    assert solve("average,fortitude=8", "duellist").mean_rounds == pytest.approx(5.0)
    assert solve("average,fortitude=8,armour=heavy", "duellist").mean_rounds == pytest.approx(8.0)
    assert round(100 * solve("average,fortitude=9", "duellist").b_win) == 59
    for armour in ("light", "medium", "heavy"):
        p = solve(f"average,fortitude=9,armour={armour}", "duellist")
        assert p.draw == pytest.approx(1.0, abs=1e-12)
    for armour in ("none", "light", "medium", "heavy"):
        assert solve(f"average,fortitude=10,armour={armour}", "duellist").draw == \
            pytest.approx(1.0, abs=1e-12)
