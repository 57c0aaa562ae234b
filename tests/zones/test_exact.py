"""The exact one-zone melee duel against closed forms and brute force."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import balance
from balance import IntractableError
from balance.rulesets.zones.exact import activation_damage, rounds_distribution
from balance.rulesets.zones.rules import Combatant, Rules, damage, ladder_pmf

ZONES = balance.get("zones")


def test_one_hp_duel_is_a_geometric_race():
    """With 1 HP each any damage kills: P(first wins) = sum_k (q1 q2)^(k-1) p1."""
    rules = Rules(initial_gap="contact", hp=1, first_side="a", max_rounds=20)
    a = Combatant(name="a", might=2, spare="pass", armour=0)
    b = Combatant(name="b", might=0, spare="pass", armour=0)
    hit_a = [1 - ladder_pmf(2 - 1 + m, rules.ladder)[0] for m in (0, -2)]
    hit_b = [1 - ladder_pmf(0 - 1 + m, rules.ladder)[0] for m in (0, -2)]
    q1 = (1 - hit_a[0]) * (1 - hit_a[1])
    q2 = (1 - hit_b[0]) * (1 - hit_b[1])
    p_a = sum((q1 * q2) ** (k - 1) * (1 - q1) for k in range(1, 21))
    p_b = sum((q1 * q2) ** (k - 1) * q1 * (1 - q2) for k in range(1, 21))
    got = ZONES.exact(rules, (a,), (b,))
    assert got.a_win == pytest.approx(float(p_a), abs=1e-12)
    assert got.b_win == pytest.approx(float(p_b), abs=1e-12)
    assert got.draw == pytest.approx(float((q1 * q2) ** 20), abs=1e-12)


def test_activation_damage_is_the_convolution_of_its_strikes():
    rules = Rules()
    a = Combatant(might=2, max_attacks=3, steady=0)
    b = Combatant(armour=1, shield=True)
    table = activation_damage(rules, a, b, target_defending=True, commanding=False)
    assert sum(table.values()) == 1
    # brute force over the three strikes' result categories (Might 2 + MAP - Defence 3)
    brute: dict[int, Fraction] = {}
    cats = [ladder_pmf(2 + pen - 3, rules.ladder) for pen in (0, -2, -4)]
    for c0 in range(4):
        for c1 in range(4):
            for c2 in range(4):
                p = cats[0][c0] * cats[1][c1] * cats[2][c2]
                if p:
                    d = sum(damage(c, 4, 1, rules) for c in (c0, c1, c2))
                    brute[d] = brute.get(d, Fraction(0)) + p
    assert {k: v for k, v in table.items() if v} == {k: v for k, v in brute.items() if v}


def test_steady_applies_to_the_first_strike_only():
    rules = Rules()
    a = Combatant(might=1, steady=1, max_attacks=3)
    table = activation_damage(rules, a, Combatant(), False, False)
    cats = [ladder_pmf(1 + 1 - 1, rules.ladder), ladder_pmf(1 - 2 - 1, rules.ladder)]
    brute: dict[int, Fraction] = {}
    for c0 in range(4):
        for c1 in range(4):
            p = cats[0][c0] * cats[1][c1]
            d = damage(c0, 4, 1, rules) + damage(c1, 4, 1, rules)
            brute[d] = brute.get(d, Fraction(0)) + p
    assert {k: v for k, v in table.items() if v} == {k: v for k, v in brute.items() if v}


def test_rounds_distribution_sums_to_the_win_rates():
    rules = Rules(initial_gap="contact")
    a, b = (Combatant(might=2),), (Combatant(shield=True),)
    dist = rounds_distribution(rules, a, b)
    got = ZONES.exact(rules, a, b)
    assert dist[1].sum() == pytest.approx(got.a_win)
    assert dist[2].sum() == pytest.approx(got.b_win)
    assert dist.sum() == pytest.approx(1.0)
    assert got.mean_rounds == pytest.approx(float((np.arange(dist.shape[1]) * dist).sum()))


def test_symmetric_duel_with_random_first_side_is_fair():
    rules = Rules(initial_gap="contact")
    got = ZONES.exact(rules, (Combatant(),), (Combatant(),))
    assert got.a_win == pytest.approx(got.b_win, abs=1e-12)


@pytest.mark.parametrize(("a", "b", "rules", "match"), [
    ((Combatant(), Combatant()), (Combatant(),), {"initial_gap": "contact"}, "1-against-1"),
    ((Combatant(),), (Combatant(),), {}, "one location"),
    ((Combatant(ranged="short_bow", policy="skirmish"),), (Combatant(),),
     {"initial_gap": "contact"}, "skirmishes"),
])
def test_unsupported_matchups_raise(a, b, rules, match):
    with pytest.raises(IntractableError, match=match):
        ZONES.exact(Rules(**rules), a, b)
