"""Turn Value ties resolved per fight inside one batch (issue 24, item 2).

A tie left after every tie-break is the ST's call, a seeded coin (003.3 #3): each fight
draws its own order of every tied group, and the kernel runs all fights in one batch.
These tests check that the orders are the coin's (uniform over the orders the ties allow)
and that the kernel's fights keep the reference's and the exact game's distribution.

Statistical checks use fixed seeds and thresholds fixed in advance: ``p > 1e-3`` (a 0.1%
false alarm for a correct kernel).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

import balance
from balance.random import stream
from balance.rulesets.pool import exact
from balance.rulesets.pool.kernel import turn_orders
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import reference_outcomes

POOL = balance.get("pool")


def C(name, **fields):
    return Combatant(name=name, **fields)


def categories(out):
    """Counts of A wins, B wins and draws by end cause, one cell each."""
    n_causes = len(POOL.causes)
    return np.bincount(np.asarray(out.winner) * n_causes + np.asarray(out.cause),
                       minlength=3 * n_causes)


# three groups: two A fighters tied with a B fighter (TV 4), a lone B (TV 5), and an A and
# a B tied on TV 3 (the tie crosses the sides, as in the 6 v 6)
FIGHTERS = (C("a1"), C("a2"), C("a3", coordination=3), C("b1"), C("b2", coordination=5),
            C("b3", coordination=3))


def test_each_fight_draws_a_uniform_order_the_ties_allow():
    allowed = [order for order, _ in exact.linear_orders(Rules(), FIGHTERS)]
    assert len(allowed) == 3 * 2 * 2  # 3! orders of the first group, 2! of the last
    orders = turn_orders(Rules(), FIGHTERS, 60_000, stream(24, "pool-ties", "orders"))
    seen = [tuple(int(x) for x in row) for row in orders]
    assert set(seen) == set(allowed)
    counts = np.array([seen.count(order) for order in allowed])
    assert gof_pvalue(counts, np.full(len(allowed), 1 / len(allowed))) > 1e-3  # 0.1%


def test_listed_ties_keep_the_listed_order():
    orders = turn_orders(Rules(tv_final_tiebreak="listed"), FIGHTERS, 10,
                         stream(24, "pool-ties", "listed"))
    assert (orders == np.array([4, 0, 1, 3, 2, 5])).all()


IDENTICAL_A = C("guard", coordination=4, intellect=2, fortitude=4, combat=2, wound_points=3,
                pool_policy="random_mixed")
IDENTICAL_B = C("duellist", coordination=4, intellect=2, fortitude=3, combat=3,
                wound_points=3, pool_policy="minimal_sure_hit")


def test_tied_groups_match_the_exact_chain():
    """Two identical against two identical, all four tied (24 orders): the kernel's one
    batch against the exact chain, which solves each order as its own game and averages."""
    rules = Rules(randomiser="1d6", max_rounds=12, exact_play="policies", target_policy="first")
    side_a = tuple(dataclasses.replace(IDENTICAL_A, name=f"A{i}") for i in (1, 2))
    side_b = tuple(dataclasses.replace(IDENTICAL_B, name=f"B{i}") for i in (1, 2))
    dist = exact.outcome_distribution(rules, side_a, side_b)
    probs, _ = dist.categories()
    out = POOL.simulate(rules, side_a, side_b, n=100_000, rng=stream(24, "pool-ties", "exact"))
    stale, capped = POOL.causes.code("stalemate"), POOL.causes.code("max_rounds")
    counts = np.array([np.sum(out.winner == 1), np.sum(out.winner == 2),
                       np.sum((out.winner == 0) & (out.cause == stale)),
                       np.sum((out.winner == 0) & (out.cause == capped))])
    assert gof_pvalue(counts, probs) > 1e-3  # false alarm 0.1% for a correct kernel
    rounds = np.bincount(out.rounds, minlength=rules.max_rounds + 1)
    assert gof_pvalue(rounds, dist.rounds()) > 1e-3  # false alarm 0.1%


def test_tied_groups_match_the_reference():
    """Three identical against three identical with cross-side ties, aid and full defence,
    targets the first listed (so who acts first among the tied matters): kernel (60 000
    fights, one batch) against the reference (3 000, a coin per fight)."""
    rules = Rules(randomiser="1d6", target_policy="first", max_rounds=30)
    side_a = (C("A1", coordination=5, combat=2, wound_points=5, pool_policy="random_mixed"),
              C("A2", coordination=5, combat=2, wound_points=5, pool_policy="random_mixed"),
              C("A3", coordination=5, combat=2, wound_points=5, turn_policy="aid"))
    side_b = (C("B1", coordination=5, combat=2, fortitude=5, wound_points=4,
                turn_policy="defend_if_no_hit"),
              C("B2", coordination=5, combat=2, fortitude=5, wound_points=4),
              C("B3", coordination=5, combat=2, fortitude=5, wound_points=4))
    assert len(list(itertools.permutations(range(6)))) == len(
        exact.linear_orders(rules, (*side_a, *side_b)))  # all six tied
    out = POOL.simulate(rules, side_a, side_b, n=60_000, rng=stream(24, "pool-ties", "k"))
    ref = reference_outcomes(POOL, rules, side_a, side_b, 3000,
                             stream(24, "pool-ties", "reference"))
    assert chi2_homogeneity(categories(out), categories(ref)) > 1e-3  # false alarm 0.1%
    top = rules.max_rounds + 1
    assert chi2_homogeneity(np.bincount(out.rounds, minlength=top),
                            np.bincount(ref.rounds, minlength=top)) > 1e-3  # 0.1%
