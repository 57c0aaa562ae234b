"""The kernel against the exact duel and against the reference, in distribution.

Every test uses fixed seeds and a threshold fixed in advance: p > 1e-3 (a false alarm rate
of 0.1% for a correct kernel).
"""

from __future__ import annotations

import numpy as np
import pytest

from balance.rulesets.zones.exact import rounds_distribution
from balance.stats import chi2_homogeneity, gof_pvalue

from .conftest import (
    DUELS,
    compare,
    joint_counts,
    kernel_sample,
    reference_sample,
    scenario,
    standing_counts,
)


@pytest.mark.parametrize("name", list(DUELS))
def test_kernel_matches_the_exact_duel(name):
    rules, a, b = DUELS[name]
    exact = rounds_distribution(rules, (a,), (b,))
    out = kernel_sample(rules, (a,), (b,), 200_000, seed=11)
    observed = joint_counts(out.winner, out.rounds, rules.max_rounds)
    assert gof_pvalue(observed, exact.reshape(-1)) > 1e-3  # false alarm 0.1%


def test_reference_matches_the_exact_duel():
    rules, a, b = DUELS["third attack vs steady shield"]
    exact = rounds_distribution(rules, (a,), (b,))
    ref = reference_sample(rules, (a,), (b,), 3000, seed=12)
    assert gof_pvalue(joint_counts(ref.winner, ref.rounds, rules.max_rounds),
                      exact.reshape(-1)) > 1e-3  # false alarm 0.1%


@pytest.mark.parametrize(("name", "n_ref"), [("gate", 1500), ("ogre", 1500)])
def test_kernel_matches_reference_on_scenarios(name, n_ref):
    p = compare(*scenario(name), n_ref, seed=21)
    assert min(p) > 1e-3, p  # false alarm 0.1% per p-value for a correct kernel


def merged_sample(rules, side_a, side_b, n_calls, size, seed):
    """Kernel outcomes from calls small enough to share one batch between the two
    first-side parts (the merged schedule)."""
    from balance.rulesets.zones.kernel import _MERGE_BELOW
    assert size < _MERGE_BELOW
    outs = [kernel_sample(rules, side_a, side_b, size, seed=seed + k) for k in range(n_calls)]
    return (np.concatenate([o.winner for o in outs]), np.concatenate([o.rounds for o in outs]),
            np.concatenate([o.extras["a_standing"] for o in outs]),
            np.concatenate([o.extras["b_standing"] for o in outs]))


def test_merged_schedule_matches_the_exact_duel():
    rules, a, b = DUELS["third attack vs steady shield"]
    exact = rounds_distribution(rules, (a,), (b,))
    winner, rounds, *_ = merged_sample(rules, (a,), (b,), 5, 20_000, seed=51)
    assert gof_pvalue(joint_counts(winner, rounds, rules.max_rounds),
                      exact.reshape(-1)) > 1e-3  # false alarm 0.1%


@pytest.mark.parametrize("name", ["skirmish", "gate"])
def test_merged_schedule_matches_separate_batches(name):
    rules, a, b = scenario(name)
    winner, rounds, sa, sb = merged_sample(rules, a, b, 4, 25_000, seed=61)
    k = kernel_sample(rules, a, b, 100_000, seed=62)
    cap = min(rules.max_rounds, 40)
    assert chi2_homogeneity(joint_counts(k.winner, k.rounds, cap),
                            joint_counts(winner, rounds, cap)) > 1e-3  # false alarm 0.1%
    assert chi2_homogeneity(standing_counts(k.extras["a_standing"], k.extras["b_standing"]),
                            standing_counts(sa, sb)) > 1e-3  # false alarm 0.1%
