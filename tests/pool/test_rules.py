"""The digest's worked examples (003.6) as test vectors, and the rules' validation."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import balance
from balance.dice import die
from balance.errors import SpecError
from balance.rulesets.pool import exact, kernel, reference
from balance.rulesets.pool.rules import (
    Combatant,
    Rules,
    apply_damage,
    combat_pool,
    hits,
    order_groups,
    profile,
    strength_modifier,
    turn_value,
)

RULES = Rules()
POOL = balance.get("pool")


# --- 003.6 ------------------------------------------------------------------------------


@pytest.mark.parametrize(("co", "intellect", "pool"), [(7, 4, 5), (5, 4, 4)])
def test_vectors_1_2_combat_pool(co, intellect, pool):
    assert combat_pool(Combatant(coordination=co, intellect=intellect)) == pool


@pytest.mark.parametrize(("co", "modifier"), [(2, 0), (3, 1), (7, 2), (9, 3)])
def test_vector_3_strength_modifier(co, modifier):
    assert strength_modifier(Combatant(coordination=co), RULES) == modifier


def test_vector_4_turn_value():
    assert turn_value(Combatant(coordination=6, status=2, misc_turn=0)) == 4


def test_vector_5_tie_goes_to_higher_coordination():
    a = Combatant(name="A", coordination=6, status=2)
    b = Combatant(name="B", coordination=5, status=1)
    assert turn_value(a) == turn_value(b) == 4
    assert order_groups((b, a)) == [[1], [0]]  # A acts first whichever side it is on


def test_vector_6_tie_goes_to_lower_status():
    low = Combatant(name="low", coordination=5, combat=2, status=1)
    high = Combatant(name="high", coordination=5, combat=2, status=3, misc_turn=2)
    assert turn_value(low) == turn_value(high)
    assert order_groups((high, low)) == [[1], [0]]


def test_higher_combat_breaks_a_tie_before_status():
    a = Combatant(coordination=5, combat=3, status=2, misc_turn=1)
    b = Combatant(coordination=5, combat=2, status=1)
    assert order_groups((b, a)) == [[1], [0]]


def test_full_tie_is_one_group_and_a_coin():
    a, b = Combatant(name="A"), Combatant(name="B")
    assert order_groups((a, b)) == [[0, 1]]
    assert exact.linear_orders(RULES, (a, b)) == [((0, 1), 0.5), ((1, 0), 0.5)]
    assert exact.linear_orders(Rules(tv_final_tiebreak="listed"), (a, b)) == [((0, 1), 1.0)]


def test_vector_7_equal_is_a_miss():
    assert not hits(12, 12)
    assert hits(13, 12)


def _example_8():
    a = Combatant(name="A", coordination=6, combat=3, intellect=4)
    b = Combatant(name="B", fortitude=5, combat=2)
    return profile(a, RULES, 0), profile(b, RULES, 1)


def test_vector_8_unaided_attack_hits():
    a, b = _example_8()
    assert (a.attack, b.defence) == (9, 7)
    assert hits(a.attack, b.defence)


@pytest.mark.parametrize(("spend", "hit"), [(2, False), (1, True)])
def test_vector_9_defender_spends(spend, hit):
    a, b = _example_8()
    assert hits(a.attack, b.defence + spend) is hit


def test_vectors_8_9_through_a_fight():
    """B blocks the first attack with 2 pool points (save for defence) and is hit next."""
    a = Combatant(name="A", coordination=6, combat=3, intellect=0, pool_policy="save_for_defence")
    b = Combatant(name="B", coordination=1, fortitude=5, combat=2, intellect=3,
                  pool_policy="save_for_defence")
    lines: list[str] = []
    reference.fight(RULES, (a,), (b,), rng=np.random.default_rng(0), log=lines.append)
    attacks = [line for line in lines if "attacks" in line]
    assert "defence 7 + pool 2 = 9 -> miss (equal)" in attacks[0]  # A's pool is 3
    assert "vs defence 7 + pool 0 = 7 -> hit by 2" in attacks[2]


@pytest.mark.parametrize(("damage", "armour", "wp", "after"),
                         [(7, 5, 10, (0, 8)), (4, 5, 10, (1, 10))])
def test_vectors_10_11_armour_first(damage, armour, wp, after):
    assert apply_damage(armour, wp, damage) == after


def test_vector_12_sword_damage():
    assert profile(Combatant(coordination=6, weapon="sword"), RULES, 0).damage == 5


def test_vector_12_in_the_kernel():
    """A sure hit every turn: 15 WP fall to 5-damage sword blows in three rounds."""
    a = Combatant(name="A", coordination=6, combat=3)
    b = Combatant(name="B", coordination=1, fortitude=5, combat=2, intellect=0)
    out = kernel.simulate(RULES, (a,), (b,), n=100, rng=np.random.default_rng(0))
    assert (out.winner == 1).all() and (out.rounds == 3).all()


# --- other rules ---------------------------------------------------------------------------


def test_margin_damage_adds_half_the_margin():
    a = Combatant(name="A", coordination=6, combat=4, intellect=0)  # attack 10
    b = Combatant(name="B", fortitude=3, combat=2, intellect=0, coordination=1,
                  wound_points=30)  # defence 5: margin 5 -> +2
    lines: list[str] = []
    reference.fight(Rules(margin_damage=True), (a,), (b,), rng=np.random.default_rng(0),
                    log=lines.append)
    assert "hit by 5; 7 damage" in next(line for line in lines if "attacks B" in line)


def narrate(rules, side_a, side_b, seed=0):
    lines: list[str] = []
    out = reference.fight(rules, side_a, side_b, rng=np.random.default_rng(seed),
                          log=lines.append)
    return out, lines


def test_margin_of_failure_hurts_the_attacker():
    """003.2's note, the failure side: a miss by 5 costs the attacker floor(5 / 2) = 2,
    through its armour first; the kernel reads it the same way."""
    a = Combatant(name="A", coordination=3, combat=1, intellect=9, wound_points=9,
                  armour="light", pool_policy="save_for_defence",  # attack 4 (+ pool 6)
                  turn_policy="attack_always")
    b = Combatant(name="B", fortitude=7, combat=2, intellect=0, coordination=1,
                  wound_points=30, turn_policy="attack_always")    # defence 9
    rules = Rules(margin_failure_damage=True, max_rounds=3)
    _, lines = narrate(rules, (a,), (b,))
    first = next(line for line in lines if "attacks B" in line)
    assert "miss by 5; the attacker takes 2 damage: armour 4 -> 2, WP 9 -> 9" in first
    out = POOL.simulate(rules, (a,), (b,), n=10, rng=np.random.default_rng(1))
    assert (out.cause == POOL.causes.max_rounds).all()  # 6 damage in 3 rounds: 4 armour + 2


def test_full_defence_and_aid_are_declared_turns():
    """003.2 step 3: a fighter who cannot hit declares full defence (+2 to its defence
    until its next turn) or aids the next ally to act (+2 to that ally's next attack)."""
    rules = Rules(max_rounds=2)
    captain = Combatant(name="captain", coordination=6, combat=2, intellect=0, wound_points=20)
    squire = Combatant(name="squire", coordination=2, combat=0, intellect=0, wound_points=20,
                       turn_policy="aid_if_no_hit")
    brute = Combatant(name="brute", coordination=5, combat=2, fortitude=6, intellect=0,
                      wound_points=20, turn_policy="defend_if_no_hit")
    _, lines = narrate(rules, (captain, squire), (brute,))
    text = "\n".join(lines)
    assert "squire aids captain (+2 to its next attack): it cannot hit" in text
    assert "captain attacks brute: attack 8 + aid 2 + pool 0 = 10 vs defence 8" in text
    assert "brute declares full defence" not in text  # the brute can hit the squire
    turtle = Combatant(name="turtle", coordination=1, combat=0, fortitude=9, intellect=0,
                       wound_points=20, turn_policy="defend_if_no_hit", misc_turn=9)
    _, lines = narrate(rules, (turtle,), (captain,))
    text = "\n".join(lines)
    assert "turtle declares full defence (+2 defence until its next turn): it cannot hit" in text
    assert "defence 9 + full defence 2 + pool 0 = 11" in text


def test_withdrawal_ends_the_fight_for_the_side_that_leaves():
    a = Combatant(name="A", wound_points=5, withdraw_at=5)
    b = Combatant(name="B", coordination=3, wound_points=5, status=3)
    out, lines = narrate(Rules(), (a,), (b,))
    assert out.winner == balance.Winner.B and out.cause == "withdrew" and out.rounds == 1
    assert "  A withdraws from the fight (5 WP, at or below 5)" in lines
    k = POOL.simulate(Rules(), (a,), (b,), n=10, rng=np.random.default_rng(0))
    assert (k.cause == POOL.causes.withdrew).all() and (k.winner == 2).all()


def test_sides_of_three_act_in_turn_value_order_until_the_lowest():
    """003.2 step 1: every fighter, highest Turn Value first, "until the lowest Turn Value
    is reached", then the round starts again."""
    fighters = [Combatant(name=n, coordination=co, status=st, wound_points=30)
                for n, co, st in (("a1", 5, 0), ("a2", 7, 1), ("a3", 4, 2), ("b1", 6, 0),
                                  ("b2", 3, 0))]
    _, lines = narrate(Rules(max_rounds=1), fighters[:3], fighters[3:])
    assert lines[0] == ("Turn order: a2 (TV 6), b1 (TV 6), a1 (TV 5), b2 (TV 3), a3 (TV 2)")
    actors = [line.split()[0] for line in lines if " attacks " in line]
    assert actors == ["a2", "b1", "a1", "b2", "a3"]


def test_status_in_checks():
    c = Combatant(status=3, coordination=4, combat=2, fortitude=5)
    p = profile(c, Rules(status_in_checks=1), 0)
    assert (p.attack, p.defence) == (9, 10)


def test_wound_points_formula_and_override():
    assert profile(Combatant(fortitude=5), RULES, 0).wound_points == 15
    assert profile(Combatant(fortitude=5), Rules(wp_per_fortitude=2), 0).wound_points == 10
    assert profile(Combatant(fortitude=5, wound_points=7), RULES, 0).wound_points == 7


def test_dice_difference_is_the_exact_pmf():
    for sides in (6, 10):
        got = exact.dice_difference(Rules(randomiser=f"1d{sides}"))
        pmf = die(sides) + die(sides).map(lambda x: -x)
        assert got == pytest.approx({k: float(v) for k, v in pmf.items()}, abs=1e-15)
        assert sum(Fraction(v).limit_denominator(10_000) for v in got.values()) == 1


def test_stalemate_from_the_start_is_a_draw_after_two_rounds():
    a = Combatant(name="A", coordination=3, intellect=1, fortitude=6)  # attack 5 + pool 2
    b = Combatant(name="B", coordination=3, intellect=1, fortitude=6)  # defence 8
    out = POOL.fight(RULES, (a,), (b,), rng=np.random.default_rng(0))
    assert (out.winner, out.rounds, out.cause) == (balance.Winner.DRAW, 2, "stalemate")
    sim = POOL.simulate(RULES, (a,), (b,), n=10, rng=np.random.default_rng(0))
    assert (sim.winner == 0).all() and (sim.rounds == 2).all()
    assert (sim.cause == POOL.causes.index("stalemate")).all()


# --- validation ------------------------------------------------------------------------------


def test_stat_out_of_range_names_the_field():
    with pytest.raises(SpecError, match=r"'coordination' must be in 1\.\.10"):
        balance.exact("pool", "coordination=11", "average")


def test_stat_ranges_can_be_widened():
    p = balance.exact("pool", "coordination=11,wound_points=3", "average,wound_points=3",
                      rules={"stat_ranges": "coordination:1..12"})
    assert p.a_win == 1.0


def test_bad_stat_range_text():
    with pytest.raises(SpecError, match=r"stat_ranges\.combat"):
        POOL.rules(stat_ranges="combat:six")


def test_starting_out_of_the_fight_is_rejected():
    with pytest.raises(SpecError, match="must exceed down_at"):
        balance.duel("pool", "wound_points=2", "average", rules={"down_at": 2}, n=10)


def test_bad_choice():
    with pytest.raises(SpecError, match="bid_protocol"):
        POOL.rules(bid_protocol="whispered")
    with pytest.raises(SpecError, match="pool_policy"):
        POOL.combatant("average,pool_policy=greedy")


def test_side_size():
    with pytest.raises(SpecError, match=r"allows 1\.\.6"):
        balance.duel("pool", ["average"] * 7, "average", n=10)
