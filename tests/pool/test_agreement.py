"""Kernel, reference and exact solver agree in distribution.

Every statistical test uses a fixed seed and a threshold fixed in advance:
``p > 1e-3`` is a 0.1% false alarm rate for a correct implementation.  Categories whose
expected count is small are pooled (``balance.stats``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import balance
from balance.random import stream
from balance.rulesets.pool import exact
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import reference_outcomes

POOL = balance.get("pool")
CAUSE_ORDER = tuple(POOL.causes)


def C(name, **fields):
    return Combatant(name=name, **fields)


def categories(winner, cause):
    """Counts of A down, B down, draw by stalemate, draw at the cap (as the chain's)."""
    winner, cause = np.asarray(winner), np.asarray(cause)
    stale, capped = CAUSE_ORDER.index("stalemate"), CAUSE_ORDER.index("max_rounds")
    withdrew = CAUSE_ORDER.index("withdrew")
    return np.array([np.sum((winner == 1) & (cause != withdrew)),
                     np.sum((winner == 2) & (cause != withdrew)),
                     np.sum((winner == 0) & (cause == stale)),
                     np.sum((winner == 0) & (cause == capped)),
                     np.sum((winner == 1) & (cause == withdrew)),
                     np.sum((winner == 2) & (cause == withdrew))])


def kernel_sample(rules, side_a, side_b, n, key):
    out = POOL.simulate(rules, side_a, side_b, n=n, rng=stream(2024, "pool", key))
    return out, categories(out.winner, out.cause)


def reference_sample(rules, side_a, side_b, n, key):
    return reference_outcomes(POOL, rules, side_a, side_b, n, stream(2024, "pool-reference", key))


def pool_spent(out):
    """Both sides' pool points spent, as one code per fight."""
    return (out.extras["a_pool_spent"] + 10 * out.extras["b_pool_spent"]).astype(int)


DUELLIST = C("duellist", coordination=7, intellect=5, fortitude=4, combat=4, wound_points=9)
GUARD = C("guard", coordination=5, intellect=3, fortitude=6, combat=3, weapon="spear",
          armour="light", wound_points=9)
AVERAGE = C("average", wound_points=8)

POLICY_CASES = {
    "diceless random mixed, margin": (
        Rules(margin_damage=True),
        (dataclasses.replace(AVERAGE, name="A", pool_policy="random_mixed"),),
        (dataclasses.replace(AVERAGE, name="B", pool_policy="save_for_defence"),)),
    "1d6 sure hit against save for defence": (
        Rules(randomiser="1d6"),
        (dataclasses.replace(DUELLIST, pool_policy="minimal_sure_hit"),),
        (dataclasses.replace(GUARD, pool_policy="save_for_defence"),)),
    "1d10 margin, attacker first, random against all in": (
        Rules(randomiser="1d10", margin_damage=True, bid_protocol="attacker_first"),
        (dataclasses.replace(DUELLIST, pool_policy="random_mixed"),),
        (dataclasses.replace(GUARD, pool_policy="all_in_first"),)),
    "1d6 defender first, coin for the order": (
        Rules(randomiser="1d6", bid_protocol="defender_first"),
        (dataclasses.replace(AVERAGE, name="A", pool_policy="minimal_sure_hit"),),
        (dataclasses.replace(AVERAGE, name="B", pool_policy="random_mixed"),)),
    "2 against 1, 1d6": (
        Rules(randomiser="1d6"),
        (C("militia 1", coordination=4, intellect=3, fortitude=5, combat=1, wound_points=6,
           pool_policy="random_mixed"),
         C("militia 2", coordination=4, intellect=3, fortitude=5, combat=1, wound_points=4,
           pool_policy="minimal_sure_hit")),
        (dataclasses.replace(DUELLIST, pool_policy="save_for_defence"),)),
    "1d6 margins of failure and success": (
        Rules(randomiser="1d6", margin_damage=True, margin_failure_damage=True),
        (dataclasses.replace(AVERAGE, name="A", pool_policy="random_mixed", armour="light"),),
        (dataclasses.replace(GUARD, pool_policy="minimal_sure_hit"),)),
    "3 against 1, 1d6, margin of failure": (
        Rules(randomiser="1d6", margin_failure_damage=True, max_rounds=30),
        (C("militia 1", coordination=4, intellect=1, fortitude=4, combat=1, wound_points=3,
           pool_policy="random_mixed"),
         C("militia 2", coordination=3, intellect=1, fortitude=4, combat=1, wound_points=2,
           pool_policy="minimal_sure_hit"),
         C("militia 3", coordination=3, intellect=0, fortitude=3, combat=1, wound_points=2,
           pool_policy="all_in_first")),
        (C("guard", coordination=4, intellect=2, fortitude=4, combat=2, wound_points=4,
           pool_policy="save_for_defence"),)),
}

# turns that are not attacks (003.2 step 3): kernel against reference here, against the
# exact game in test_exact_turns.py
TURNS = {
    "2 against 2: aid, full defence, withdraw, 1d6": (
        Rules(randomiser="1d6", max_rounds=30),
        (C("captain", coordination=6, intellect=4, fortitude=5, combat=3, wound_points=6,
           pool_policy="random_mixed", withdraw_at=2),
         C("squire", coordination=3, intellect=3, fortitude=4, combat=1, wound_points=4,
           turn_policy="aid_if_no_hit")),
        (C("brute", coordination=5, intellect=2, fortitude=6, combat=2, wound_points=7,
           turn_policy="defend_if_no_hit"),
         C("lackey", coordination=4, intellect=2, fortitude=4, combat=1, wound_points=3,
           turn_policy="aid", pool_policy="random_mixed"))),
    "duel: full defence against a withdrawer, 1d10, margins": (
        Rules(randomiser="1d10", margin_damage=True, margin_failure_damage=True,
              full_defence_bonus=3),
        (C("turtle", coordination=4, intellect=4, fortitude=6, combat=2, wound_points=8,
           turn_policy="defend_if_no_hit", pool_policy="random_mixed"),),
        (C("raider", coordination=6, intellect=2, fortitude=4, combat=2, wound_points=6,
           withdraw_at=3),)),
    "3 against 2, 1d6, margin of failure": (
        Rules(randomiser="1d6", margin_failure_damage=True, max_rounds=30),
        (C("militia 1", coordination=4, intellect=2, fortitude=4, combat=1, wound_points=4,
           pool_policy="random_mixed"),
         C("militia 2", coordination=3, intellect=2, fortitude=4, combat=1, wound_points=3,
           pool_policy="minimal_sure_hit"),
         C("militia 3", coordination=3, intellect=1, fortitude=3, combat=1, wound_points=3,
           pool_policy="all_in_first")),
        (C("guard 1", coordination=4, intellect=2, fortitude=4, combat=2, wound_points=4),
         C("guard 2", coordination=4, intellect=1, fortitude=4, combat=1, wound_points=3,
           pool_policy="save_for_defence"))),
    "1 against 3, all full defence but one": (
        Rules(randomiser="1d6", max_rounds=20),
        (C("hero", coordination=7, intellect=5, fortitude=6, combat=3, wound_points=10),),
        (C("shield 1", turn_policy="full_defence", wound_points=4),
         C("shield 2", turn_policy="full_defence", wound_points=4),
         C("spear", coordination=5, combat=2, wound_points=4, pool_policy="random_mixed"))),
}

EQUILIBRIUM_CASES = {
    "diceless mirror, 20 rounds": (
        Rules(max_rounds=20),
        (C("A", wound_points=6, pool_policy="equilibrium"),),
        (C("B", wound_points=6, pool_policy="equilibrium"),)),
    "1d6 duellist against guard": (
        Rules(randomiser="1d6"),
        (dataclasses.replace(DUELLIST, pool_policy="equilibrium"),),
        (dataclasses.replace(GUARD, pool_policy="equilibrium"),)),
    "1d6 attacker first": (
        Rules(randomiser="1d6", bid_protocol="attacker_first"),
        (dataclasses.replace(DUELLIST, pool_policy="equilibrium"),),
        (dataclasses.replace(GUARD, pool_policy="equilibrium"),)),
    "2 against 1, diceless margin, 20 rounds": (
        Rules(margin_damage=True, max_rounds=20),
        (C("A1", coordination=5, intellect=1, fortitude=5, combat=2, wound_points=3,
           weapon="knife", pool_policy="equilibrium"),
         C("A2", coordination=5, intellect=1, fortitude=3, combat=0, wound_points=5,
           weapon="unarmed", pool_policy="equilibrium")),
        (C("B", coordination=4, intellect=1, fortitude=6, combat=1, wound_points=5,
           weapon="knife", pool_policy="equilibrium"),)),
    "equilibrium against a fixed policy, 1d6": (
        Rules(randomiser="1d6", bid_protocol="defender_first"),
        (dataclasses.replace(DUELLIST, pool_policy="equilibrium"),),
        (dataclasses.replace(GUARD, pool_policy="random_mixed"),)),
}


def _exact(rules, side_a, side_b):
    return exact.outcome_distribution(dataclasses.replace(rules, exact_play="policies"),
                                      side_a, side_b)


def _check_kernel(rules, side_a, side_b, key):
    dist = _exact(rules, side_a, side_b)
    probs, _ = dist.categories()
    out, counts = kernel_sample(rules, side_a, side_b, 200_000, key)
    assert counts[4:].sum() == 0  # nobody withdraws under the game's attack turns
    counts = counts[:4]
    p_outcome = gof_pvalue(counts, probs)
    rounds = np.bincount(out.rounds, minlength=rules.max_rounds + 1)
    p_rounds = gof_pvalue(rounds, dist.rounds())
    assert p_outcome > 1e-3  # false alarm 0.1% for a correct kernel
    assert p_rounds > 1e-3   # false alarm 0.1% for a correct kernel
    return counts


@pytest.mark.parametrize("case", list(POLICY_CASES))
def test_kernel_matches_exact_under_fixed_policies(case):
    """The exact chain evaluates the fixed policies; the kernel must sample it."""
    _check_kernel(*POLICY_CASES[case], case)


@pytest.mark.parametrize("case", list(EQUILIBRIUM_CASES))
def test_kernel_with_equilibrium_matches_the_solver(case):
    """Monte Carlo sampling the solved strategies reproduces the solver's numbers."""
    rules, side_a, side_b = EQUILIBRIUM_CASES[case]
    counts = _check_kernel(rules, side_a, side_b, case)
    if all(c.pool_policy == "equilibrium" for c in (*side_a, *side_b)):
        value = exact.solve(rules, side_a, side_b).details["game_value"]
        n = counts.sum()
        sampled = (counts[0] + rules.draw_worth * (counts[2] + counts[3])) / n
        # the game value within 5 standard errors of the sampled payoff (whose variance
        # is at most 1/4 per fight): a 6e-7 false alarm for a correct kernel
        assert abs(sampled - value) < 5 * 0.5 / np.sqrt(n)


RANDOMISED = {
    **TURNS,
    "3 against 1": POLICY_CASES["3 against 1, 1d6, margin of failure"],
    "1d6 sealed, policies": POLICY_CASES["1d6 sure hit against save for defence"],
    "1d10 margin, attacker first": POLICY_CASES["1d10 margin, attacker first, random against all in"],
    "1d6 2 against 1": POLICY_CASES["2 against 1, 1d6"],
    "1d6 equilibrium": EQUILIBRIUM_CASES["1d6 duellist against guard"],
    "1d6 coin, defender first": POLICY_CASES["1d6 defender first, coin for the order"],
}


@pytest.mark.parametrize("case", list(RANDOMISED))
def test_kernel_matches_reference_with_the_randomiser(case):
    """Kernel (100 000 fights) against the scalar reference (2 000), same rules."""
    rules, side_a, side_b = RANDOMISED[case]
    out, counts = kernel_sample(rules, side_a, side_b, 100_000, case)
    ref = reference_sample(rules, side_a, side_b, 2000, case)
    assert chi2_homogeneity(counts, categories(ref.winner, ref.cause)) > 1e-3  # false alarm 0.1%
    top = rules.max_rounds + 1
    assert chi2_homogeneity(np.bincount(out.rounds, minlength=top),
                            np.bincount(ref.rounds, minlength=top)) > 1e-3  # false alarm 0.1%
    k_spent, r_spent = pool_spent(out), pool_spent(ref)
    size = max(k_spent.max(), r_spent.max()) + 1
    assert chi2_homogeneity(np.bincount(k_spent, minlength=size),
                            np.bincount(r_spent, minlength=size)) > 1e-3  # 0.1%


@pytest.mark.parametrize("case", ["1d6 sure hit against save for defence", "2 against 1, 1d6"])
def test_reference_matches_exact(case):
    rules, side_a, side_b = POLICY_CASES[case]
    probs, _ = _exact(rules, side_a, side_b).categories()
    ref = reference_sample(rules, side_a, side_b, 2000, "exact " + case)
    assert gof_pvalue(categories(ref.winner, ref.cause)[:4], probs) > 1e-3  # false alarm 0.1%


@pytest.mark.parametrize(("case", "cause"), [
    ("2 against 2: aid, full defence, withdraw, 1d6", "withdrew"),
    ("duel: full defence against a withdrawer, 1d10, margins", "withdrew")])
def test_turn_cases_exercise_their_rules(case, cause):
    """The turn policies really act in their agreement cases (some fights end by
    withdrawal); the exact game holds them (kernel against it: test_exact_turns.py)."""
    rules, side_a, side_b = TURNS[case]
    out, _ = kernel_sample(rules, side_a, side_b, 20_000, case)
    assert np.sum(out.cause == POOL.causes.code(cause)) > 100
