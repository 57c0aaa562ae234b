"""The plain-duel solver against the digest's race table and a brute-force recursion."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest

import balance
from balance.rulesets.crt import Combatant, Rules
from balance.rulesets.crt.exact import damage_pmf, stroke_probability

crt = balance.get("crt")

# 001.4 analytic sanity checks: (advantage, strokes to drop, stronger, weaker, draw), 3 d.p.
RACE_TABLE = [(25, 1, 0.821, 0.015, 0.164), (25, 2, 0.964, 0.005, 0.031),
              (13, 2, 0.878, 0.034, 0.088), (1, 1, 0.503, 0.138, 0.359),
              (1, 2, 0.684, 0.137, 0.179), (0, 1, 0.446, 0.446, 0.108),
              (0, 2, 0.473, 0.473, 0.054)]


@pytest.mark.parametrize(("adv", "k", "win", "loss", "draw"), RACE_TABLE)
def test_race_table(adv, k, win, loss, draw):
    # each stroke deals exactly 1 (a one-sided damage "die"), health k
    rules = Rules(extraordinary=False, health="fixed", fixed_health=k, damage_die=1)
    p = balance.exact("crt", Combatant(bonus=adv), Combatant(), rules=rules)
    assert p.a_win == pytest.approx(win, abs=5e-4)
    assert p.b_win == pytest.approx(loss, abs=5e-4)
    assert p.draw == pytest.approx(draw, abs=5e-4)
    assert p.a_win + p.b_win + p.draw == pytest.approx(1, abs=1e-12)


def brute_force(rules: Rules, a: Combatant, b: Combatant) -> tuple[Fraction, Fraction, Fraction]:
    """Exact win/loss/draw by recursion over health with Fractions (no round cap).

    Independent of the solver: no matrices, no diversion, the self-loop removed by
    dividing by (1 - P(nothing changes)).  A 12 (1/36) is a stroke no shield deflects
    (001.9), unless ``shield_stops_12``.
    """
    adv = a.bonus - b.bonus
    twelve = Fraction(1, 36)

    def dealt(attacker, target, p_stroke):
        law = {0: 1 - p_stroke}
        for deflectable, weight in ((True, p_stroke - twelve),
                                    (rules.shield_stops_12, twelve)):
            for dmg, p in damage_pmf(attacker, target, rules, deflectable=deflectable).items():
                law[dmg] = law.get(dmg, Fraction(0)) + weight * p
        return law

    to_b = dealt(a, b, stroke_probability(adv, rules))
    to_a = dealt(b, a, stroke_probability(-adv, rules))

    @cache
    def value(ha: int, hb: int) -> tuple[Fraction, Fraction, Fraction]:
        win = loss = draw = Fraction(0)
        stay = Fraction(0)
        for x, px in to_a.items():
            for y, py in to_b.items():
                p = px * py
                na, nb = ha - x, hb - y
                if na <= 0 and nb <= 0:
                    draw += p
                elif na <= 0:
                    loss += p
                elif nb <= 0:
                    win += p
                elif (na, nb) == (ha, hb):
                    stay += p
                else:
                    w, l_, d = value(na, nb)
                    win, loss, draw = win + p * w, loss + p * l_, draw + p * d
        return win / (1 - stay), loss / (1 - stay), draw / (1 - stay)

    return value(rules.fixed_health if a.health is None else a.health,
                 rules.fixed_health if b.health is None else b.health)


@pytest.mark.parametrize("stops_12", [False, True])
@pytest.mark.parametrize(("adv", "ha", "hb", "armour", "shield"), [
    (0, 10, 10, "none", "none"), (7, 6, 9, "leather", "none"), (-14, 8, 5, "none", "round"),
    (30, 4, 12, "mail", "large")])
def test_solver_matches_brute_force(adv, ha, hb, armour, shield, stops_12):
    rules = Rules(extraordinary=False, health="fixed", max_rounds=5000,
                  shield_stops_12=stops_12)
    a = Combatant(bonus=adv, health=ha)
    b = Combatant(health=hb, armour=armour, shield=shield)
    p = balance.exact("crt", a, b, rules=rules)
    win, loss, draw = brute_force(rules, a, b)
    assert p.a_win == pytest.approx(float(win), abs=1e-12)
    assert p.b_win == pytest.approx(float(loss), abs=1e-12)
    assert p.draw == pytest.approx(float(draw), abs=1e-12)


def test_round_cap_turns_the_rest_into_draws():
    rules = Rules(extraordinary=False, max_rounds=3)
    p = balance.exact("crt", "duelist", "duelist", rules=rules)
    assert p.mean_rounds <= 3
    assert p.details["capped_at_max_rounds"] > 0.5
    assert p.a_win + p.b_win + p.draw == pytest.approx(1)


def test_unsolvable_configurations_raise_clearly():
    with pytest.raises(balance.IntractableError, match="Extraordinary tables are on"):
        balance.exact("crt", "duelist", "duelist")
    with pytest.raises(balance.IntractableError, match="one-against-one"):
        balance.exact("crt", "bruggish", ["watchman"] * 2, extraordinary=False)
    with pytest.raises(balance.IntractableError, match="ambush"):
        balance.exact("crt", "duelist", "duelist", extraordinary=False, ambush="a")


def test_solver_is_fast_enough_to_sweep():
    p = balance.exact("crt", "duelist", "duelist", extraordinary=False)
    assert p.details["states"] == 100
    # timing is shown by the details, never asserted
    assert "solve_ms" in p.details


def test_solve_takes_the_contract_signature():
    # solve(rules, side_a, side_b, /): the same call as every ruleset's exact solver
    from balance.rulesets.crt.exact import solve

    rules = Rules(extraordinary=False)
    d = crt.presets["duelist"]
    p = solve(rules, (d,), (d,))
    q = crt.exact(rules, (d,), (d,))
    assert (p.a_win, p.b_win, p.draw, p.mean_rounds) == (q.a_win, q.b_win, q.draw, q.mean_rounds)
    assert q.policies == ("divert=never",) and q.assumptions and not p.assumptions
    with pytest.raises(balance.IntractableError, match="crt has no exact solution here"):
        solve(Rules(), (d,), (d,))
    with pytest.raises(TypeError):
        solve(rules, side_a=(d,), side_b=(d,))
