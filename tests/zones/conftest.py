"""Shared helpers of the zones tests: outcome histograms of kernel and reference runs."""

from __future__ import annotations

import numpy as np

import balance
from balance.rulesets.zones.rules import Combatant, Rules
from balance.stats import chi2_homogeneity
from balance.testing import reference_outcomes

ZONES = balance.get("zones")

# one-zone duels from contact, each exercising different readings (kernel, exact chain and
# best play are compared on them)
DUELS = {
    "default": (Rules(initial_gap="contact"), Combatant(), Combatant()),
    "third attack vs steady shield": (
        Rules(initial_gap="contact"), Combatant(might=2, max_attacks=3),
        Combatant(shield=True, armour=2, steady=1)),
    "bypass armour, no defend": (
        Rules(initial_gap="contact", armour_mode="success_bypasses", map=(0, -3),
              first_side="b", activation="initiative_speed", max_rounds=8),
        Combatant(might=3, weapon="two_handed", spare="pass", speed=1),
        Combatant(defence=2, armour=3, speed=3, hp=20)),
    "commanding, might to damage": (
        Rules(battlefield={"zones": [{"name": "hill", "commanding": True}]},
              initial_gap="contact", higher_ground="any_from_commanding", might_to_damage=True,
              ladder=(8, 13, 16), critical_bonus=2),
        Combatant(might=3, weapon="light", large=True), Combatant(might=1, weapon="two_handed")),
}


def joint_counts(winner: np.ndarray, rounds: np.ndarray, max_rounds: int) -> np.ndarray:
    """Counts over (winner, rounds) cells, flattened: the distribution tests compare."""
    cells = np.asarray(winner, np.int64) * (max_rounds + 1) + np.minimum(rounds, max_rounds)
    return np.bincount(cells, minlength=3 * (max_rounds + 1))


def standing_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.bincount(np.asarray(a, np.int64) * 8 + np.asarray(b, np.int64), minlength=64)


def kernel_sample(rules, side_a, side_b, n: int, seed: int):
    out = ZONES.simulate(rules, side_a, side_b, n=n, rng=np.random.default_rng(seed))
    return out


def reference_sample(rules, side_a, side_b, n: int, seed: int):
    return reference_outcomes(ZONES, rules, side_a, side_b, n, np.random.default_rng(seed))


def dead_counts(out) -> np.ndarray:
    """Counts over (A's dead, B's dead) cells (zero where a run keeps no death saves)."""
    a, b = (np.asarray(out.extras.get(k, np.zeros(len(out))), np.int64)
            for k in ("a_dead", "b_dead"))
    return np.bincount(a + 8 * b, minlength=64)


def compare(rules, side_a, side_b, n_reference, seed):
    """p-values of kernel (100,000 fights) against reference (``n_reference``): outcome by
    round, survivors, end cause (and the dead, with death saves)."""
    k = kernel_sample(rules, side_a, side_b, 100_000, seed=seed)
    ref = reference_sample(rules, side_a, side_b, n_reference, seed=seed + 1)
    cap = min(rules.max_rounds, 40)
    p_outcome = chi2_homogeneity(joint_counts(k.winner, k.rounds, cap),
                                 joint_counts(ref.winner, ref.rounds, cap))
    p_standing = chi2_homogeneity(standing_counts(k.extras["a_standing"], k.extras["b_standing"]),
                                  standing_counts(ref.extras["a_standing"],
                                                  ref.extras["b_standing"]))
    p_cause = chi2_homogeneity(np.bincount(k.cause, minlength=3),
                               np.bincount(ref.cause, minlength=3))
    if not rules.death_saves:
        return p_outcome, p_standing, p_cause
    return p_outcome, p_standing, p_cause, chi2_homogeneity(dead_counts(k), dead_counts(ref))


def scenario(name):
    sc = ZONES.scenario(name)
    return ZONES.rules(sc.rules), sc.side_a, sc.side_b
