"""pool house rules (issue 21): rows of modifiers (attack, defence, damage) in the rules
language, honoured alike by the kernel, the narrated reference and the exact game.

Every statistical test uses a fixed seed and a threshold fixed in advance: ``p > 1e-3`` is a
0.1% false alarm rate for a correct implementation.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import balance
from balance.errors import IntractableError, SpecError
from balance.random import stream
from balance.rulesets.pool import exact
from balance.rulesets.pool.language import house_rules, vocabulary
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import reference_outcomes

POOL = balance.get("pool")
CAUSES = tuple(POOL.causes)
ALPHA = 1e-3  # per-test false-alarm rate for a correct implementation

WOUNDED = {"wounded_defence": {
    "doc": "+1 defence while at half Wound Points or less",
    "modifiers": [{"to": "defence", "amount": 1,
                   "when": "self.wound_points <= self.max_wound_points // 2"}]}}
SPENT = {"spent": {"modifiers": ["+2 to damage when self.pool == 0 and target.armour_wp == 0",
                                 "-1 to attack when target.pool >= 3"]}}
OUTNUMBERED = {"outnumbered": {"modifiers": ["+2 to defence when foes_standing >= 2",
                                             "+1 to attack when allies_standing >= 1"]}}
DUELLIST = Combatant(name="duellist", coordination=7, intellect=5, fortitude=4, combat=4,
                     wound_points=9)
GUARD = Combatant(name="guard", coordination=5, intellect=3, fortitude=6, combat=3,
                  weapon="spear", armour="light", wound_points=9)
AVERAGE = Combatant(name="average", wound_points=8)


def C(base: Combatant, **fields) -> Combatant:
    return dataclasses.replace(base, **fields)


def categories(winner, cause):
    """Counts of A wins, B wins, draws by stalemate, draws at the cap (as the chain's)."""
    winner, cause = np.asarray(winner), np.asarray(cause)
    stale, capped = CAUSES.index("stalemate"), CAUSES.index("max_rounds")
    return np.array([np.sum(winner == 1), np.sum(winner == 2),
                     np.sum((winner == 0) & (cause == stale)),
                     np.sum((winner == 0) & (cause == capped))])


def test_rows_compile_and_the_names_are_listed():
    rows = house_rules(Rules(house_rules={**WOUNDED, **SPENT}))
    assert [(m.name, m.to) for m in rows.modifiers] == [
        ("wounded_defence", "defence"), ("spent", "damage"), ("spent", "attack")]
    names = vocabulary().names
    for field in ("wound_points", "max_wound_points", "armour_wp", "pool", "fortitude"):
        assert f"self.{field}" in names and f"target.{field}" in names
    assert list(vocabulary().targets) == ["attack", "defence", "damage"]
    with pytest.raises(SpecError, match=r"house_rules\.x\.when: .*unknown name 'self\.wounds'"):
        Rules(house_rules={"x": "+1 to defence when self.wounds > 3"})


# --- the exact game against the kernel --------------------------------------------------------
POLICY_CASES = {
    "wounded defence, 1d6, sure hit against save for defence": (
        Rules(randomiser="1d6", house_rules=WOUNDED),
        (C(DUELLIST, pool_policy="minimal_sure_hit"),),
        (C(GUARD, pool_policy="save_for_defence"),)),
    "pools and armour, 1d6, random against all in": (
        Rules(randomiser="1d6", house_rules=SPENT, margin_damage=True),
        (C(AVERAGE, armour="light", pool_policy="random_mixed"),),
        (C(GUARD, pool_policy="all_in_first"),)),
    "2 against 1, outnumbered, 1d6": (
        Rules(randomiser="1d6", house_rules={**OUTNUMBERED, **WOUNDED}),
        (C(AVERAGE, name="a1", wound_points=5, pool_policy="random_mixed"),
         C(AVERAGE, name="a2", wound_points=4)),
        (C(AVERAGE, name="b", coordination=6, combat=3, wound_points=8,
           pool_policy="save_for_defence"),)),
    # attack 0 + pool 4 never beats defence 6: without the rule, a stalemate at once
    "diceless, the rule decides who can hit": (
        Rules(max_rounds=20, house_rules={"fresh": "+8 to attack when self.wound_points == "
                                                   "self.max_wound_points"}),
        (C(AVERAGE, name="a", misc_attack=-6, pool_policy="random_mixed"),),
        (C(AVERAGE, name="b", misc_attack=-6, pool_policy="minimal_sure_hit"),)),
}


@pytest.mark.parametrize("case", list(POLICY_CASES))
def test_kernel_matches_exact_under_fixed_policies(case):
    rules, side_a, side_b = POLICY_CASES[case]
    dist = exact.outcome_distribution(dataclasses.replace(rules, exact_play="policies"),
                                      side_a, side_b)
    probs, _ = dist.categories()
    # seed 2124 since issue 24: the kernel draws tied orders per fight, so every stream
    # moved; under 2121 one case landed in the 0.1% tail (p = 0.0008; five fresh seeds:
    # 0.03..0.71)
    out = POOL.simulate(rules, side_a, side_b, n=200_000, rng=stream(2124, "pool-house", case))
    assert gof_pvalue(categories(out.winner, out.cause), probs) > ALPHA
    rounds = np.bincount(out.rounds, minlength=rules.max_rounds + 1)
    assert gof_pvalue(rounds, dist.rounds()) > ALPHA


def test_the_rows_change_the_exact_answer():
    for rules, side_a, side_b in POLICY_CASES.values():
        without = dataclasses.replace(rules, house_rules={}, exact_play="policies")
        with_rows = dataclasses.replace(rules, exact_play="policies")
        a = exact.outcome_distribution(without, side_a, side_b)
        b = exact.outcome_distribution(with_rows, side_a, side_b)
        # exact numbers, no noise: the outcomes or the fight lengths move by 1% or more
        moved = max(np.abs(np.asarray(a.categories()[0]) - b.categories()[0]).max(),
                    np.abs(np.asarray(a.rounds()) - b.rounds()).max())
        assert moved > 0.01


def test_stalemate_counts_the_rows():
    # without the rule A can never hit the guard: a stalemate from the first round
    rules, side_a, side_b = POLICY_CASES["diceless, the rule decides who can hit"]
    plain = dataclasses.replace(rules, house_rules={})
    out = POOL.simulate(plain, side_a, side_b, n=1000, rng=np.random.default_rng(1))
    assert (out.cause == POOL.causes.code("stalemate")).all()
    assert POOL.exact(dataclasses.replace(plain, exact_play="policies"), side_a,
                      side_b).draw == 1.0
    # with it, a fresh fighter can hit: fights are won and lost (and the three agree)
    out = POOL.simulate(rules, side_a, side_b, n=1000, rng=np.random.default_rng(1))
    assert (out.cause == POOL.causes.code("down")).mean() > 0.5
    ref = reference_outcomes(POOL, rules, side_a, side_b, 200, np.random.default_rng(2))
    assert (ref.cause == POOL.causes.code("down")).mean() > 0.5


EQUILIBRIUM_CASES = {
    "1d6, wounded defence": (Rules(randomiser="1d6", house_rules=WOUNDED),
                             (C(DUELLIST, pool_policy="equilibrium"),),
                             (C(GUARD, pool_policy="equilibrium"),)),
    "diceless, pools and armour, 20 rounds": (
        Rules(max_rounds=20, house_rules={**SPENT, **WOUNDED}),
        (C(AVERAGE, name="a", armour="light", coordination=5, pool_policy="equilibrium"),),
        (C(AVERAGE, name="b", fortitude=5, pool_policy="equilibrium"),)),
}


@pytest.mark.parametrize("case", list(EQUILIBRIUM_CASES))
def test_kernel_playing_the_equilibrium_reaches_the_game_value(case):
    rules, side_a, side_b = EQUILIBRIUM_CASES[case]
    value = exact.solve(rules, side_a, side_b).details["game_value"]
    out = POOL.simulate(rules, side_a, side_b, n=100_000, rng=stream(2122, "pool-house", case))
    counts = categories(out.winner, out.cause)
    n = counts.sum()
    sampled = (counts[0] + rules.draw_worth * (counts[2] + counts[3])) / n
    # within 5 standard errors (variance at most 1/4 per fight): a 6e-7 false alarm
    assert abs(sampled - value) < 5 * 0.5 / np.sqrt(n)


# --- the narrated reference against the kernel -------------------------------------------------
REFERENCE_CASES = {
    **{k: POLICY_CASES[k] for k in ("wounded defence, 1d6, sure hit against save for defence",
                                    "2 against 1, outnumbered, 1d6")},
    "dice in the rows, turn policies": (
        Rules(randomiser="1d6", max_rounds=30, house_rules={"wild": {"modifiers": [
            "1d4 - 2 to attack when target.wound_points > 3",
            "1d3 to damage when d6 >= 5",
            "+2 to defence when self.pool == 0"]}}),
        (C(AVERAGE, name="turtle", turn_policy="defend_if_no_hit", pool_policy="random_mixed"),
         C(AVERAGE, name="helper", turn_policy="aid_if_no_hit")),
        (C(GUARD, withdraw_at=2),)),
}


@pytest.mark.parametrize("case", list(REFERENCE_CASES))
def test_kernel_matches_reference(case):
    rules, side_a, side_b = REFERENCE_CASES[case]
    out = POOL.simulate(rules, side_a, side_b, n=100_000, rng=stream(2123, "pool-house", case))
    ref = reference_outcomes(POOL, rules, side_a, side_b, 2000,
                             stream(2124, "pool-house-ref", case))
    withdrew = POOL.causes.code("withdrew")
    k = np.append(categories(out.winner, out.cause), np.sum(out.cause == withdrew))
    r = np.append(categories(ref.winner, ref.cause), np.sum(ref.cause == withdrew))
    assert chi2_homogeneity(k, r) > ALPHA
    top = rules.max_rounds + 1
    assert chi2_homogeneity(np.bincount(out.rounds, minlength=top),
                            np.bincount(ref.rounds, minlength=top)) > ALPHA


def test_the_log_names_each_modifier_that_fired_and_why():
    rules, side_a, side_b = POLICY_CASES[
        "wounded defence, 1d6, sure hit against save for defence"]
    lines: list[str] = []
    for seed in range(20):
        POOL.fight(rules, side_a, side_b, rng=np.random.default_rng(seed), log=lines.append)
    fired = [line for line in lines if "wounded_defence +1 to defence" in line]
    assert fired
    assert all(line.endswith(")") and "when self.wound_points <= self.max_wound_points // 2 "
               "(self.wound_points is" in line for line in fired)
    assert any("+1 house" in line for line in lines)  # the check shows the modifier's part


# --- refusals ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("row", "why"), [
    ("1d4 to damage", "house rule 'r' rolls dice"),
    ("+1 to attack when round <= 3", "house rule 'r' reads round"),
    ("self.pool * 10 to defence", "wider than the 60"),
])
def test_exact_refuses_what_its_game_cannot_hold_naming_the_row(row, why):
    rules = Rules(house_rules={"r": row})
    assert why in POOL.exact_check(rules, (AVERAGE,), (AVERAGE,))
    with pytest.raises(IntractableError, match=why):
        POOL.exact(rules, (AVERAGE,), (AVERAGE,))
