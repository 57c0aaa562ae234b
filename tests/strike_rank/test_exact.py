"""Exact distributions of the dice layer against the digest's tables and against samplers.

Oracles, strongest first: the digest's closed forms and tables (000.2.3, 000.3, 000.8.4)
against :mod:`balance.rulesets.strike_rank.exact`; then the kernel's samplers (and
``balance.dice``'s Index Resolution sampler) against those exact pmfs by chi-square
goodness of fit at fixed seeds, each asserting ``p > 1e-4`` (false alarm 0.01% for a
correct sampler); the kernel's deterministic maps (rank of a roll) against the reference's
on every input.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from balance import dice, stats
from balance.errors import IntractableError
from balance.rulesets.strike_rank import StrikeRank, kernel, presets
from balance.rulesets.strike_rank import exact as E
from balance.rulesets.strike_rank import rules as R
from balance.rulesets.strike_rank.rules import Rules

P_MIN = 1e-4  # false alarm 0.01% per test for a correct sampler
N = 200_000


def gof(samples: np.ndarray, pmf: dice.Pmf) -> float:
    outcomes, probs = pmf.to_arrays()
    low = min(int(outcomes.min()), int(samples.min()))
    counts = np.bincount(samples.astype(np.int64) - low)
    full = np.zeros(max(len(counts), int(outcomes.max()) - low + 1))
    full[:len(counts)] = counts
    expected = np.zeros_like(full)
    expected[outcomes - low] = probs
    return stats.gof_pvalue(full, expected)


# --- exact values against the digest ----------------------------------------------------------

IR_TABLE = {  # 000.2.3 "Exact round-1 bonus distributions"
    1: {0: Fraction(2, 3), 1: Fraction(1, 6), 2: Fraction(1, 6)},
    2: {0: Fraction(4, 9), 1: Fraction(2, 9), 2: Fraction(1, 4), 3: Fraction(1, 18),
        4: Fraction(1, 36)},
    3: {0: Fraction(8, 27), 1: Fraction(2, 9), 2: Fraction(5, 18), 3: Fraction(25, 216),
        4: Fraction(5, 72), 5: Fraction(1, 72), 6: Fraction(1, 216)},
    4: {0: Fraction(16, 81), 1: Fraction(16, 81), 2: Fraction(22, 81), 3: Fraction(13, 81),
        4: Fraction(145, 1296), 5: Fraction(13, 324), 6: Fraction(11, 648),
        7: Fraction(1, 324), 8: Fraction(1, 1296)},
}


@pytest.mark.parametrize("n_dice", [1, 2, 3, 4])
def test_index_resolution_pmf_matches_digest(n_dice: int) -> None:
    pmf = E.initiative_bonus_pmf(n_dice)
    assert dict(pmf) == IR_TABLE[n_dice]
    assert pmf.mean() == Fraction(n_dice, 2)
    assert pmf.variance() == Fraction(7 * n_dice, 12)
    assert E.carried_dice_pmf(n_dice).mean() == Fraction(n_dice, 3)


def test_opposed_table_matches_digest() -> None:
    hit = {-10: "11.25", -5: "26.25", 0: "47.5", 5: "70", 10: "86.25", 15: "96.25", 20: "100"}
    tie = {-10: "2.5", -5: "3.75", 0: "5", 5: "3.75", 10: "2.5", 15: "1.25", 20: "0"}
    over = {-10: "0", -5: "0", 0: "0", 5: "3.75", 10: "13.75", 15: "30", 20: "52.5"}
    for delta in hit:
        t = E.opposed_table(delta)
        assert t["hit"] == Fraction(hit[delta]) / 100
        assert t["tie"] == Fraction(tie[delta]) / 100
        assert t["overpower"] == Fraction(over[delta]) / 100
    # the closed form of 000.3 for every difference
    for delta in range(-25, 26):
        k = 1 - delta
        closed = (Fraction(0) if k >= 20 else Fraction(1) if k <= -19 else
                  Fraction((20 - k) * (21 - k), 800) if k >= 1 else
                  1 - Fraction((19 + k) * (20 + k), 800))
        assert E.opposed_table(delta)["hit"] == closed
    # the digest's riposte example: at a parry lead of +15, riposte 30%, disarm 3.75%
    t = E.opposed_table(-15)
    assert (t["riposte"], t["disarm"]) == (Fraction(30, 100), Fraction(375, 10000))


WOUND_TABLE = {  # 000.8.4, /36 for F, L, S, M, MM
    -3: (10, 16, 9, 1, 0), -2: (6, 15, 12, 3, 0), -1: (3, 12, 15, 6, 0), 0: (1, 9, 16, 10, 0),
    1: (0, 6, 15, 15, 0), 2: (0, 3, 12, 20, 1), 3: (0, 1, 9, 23, 3), 4: (0, 0, 6, 24, 6),
    5: (0, 0, 3, 23, 10)}


@pytest.mark.parametrize("mod", sorted(WOUND_TABLE))
def test_wound_rank_pmf_matches_digest(mod: int) -> None:
    pmf = E.wound_rank_pmf(mod)
    assert tuple(pmf[r] * 36 for r in range(5)) == WOUND_TABLE[mod]


def test_whole_fights_have_no_exact_answer() -> None:
    rs = StrikeRank()
    with pytest.raises(IntractableError, match="no exact solution"):
        rs.exact(Rules(), (presets.PRESETS["skirmisher"],), (presets.PRESETS["skirmisher"],))


# --- samplers against the exact pmfs ---------------------------------------------------------


@pytest.mark.parametrize("n_dice", [1, 2, 3, 4])
def test_kernel_initiative_dice_sampler(n_dice: int) -> None:
    bits = np.random.default_rng(100 + n_dice).bit_generator
    bonus, kept = kernel.initiative_dice(bits, np.full(N, n_dice, np.int8))
    assert gof(bonus, E.initiative_bonus_pmf(n_dice)) > P_MIN
    assert gof(kept, E.carried_dice_pmf(n_dice)) > P_MIN
    assert np.all(kept <= n_dice)


@pytest.mark.parametrize("n_dice", [1, 4])
def test_core_index_resolution_sampler(n_dice: int) -> None:
    bonus, kept = dice.index_resolution(np.full(N, n_dice), rng=np.random.default_rng(7))
    assert gof(bonus, E.initiative_bonus_pmf(n_dice)) > P_MIN
    assert gof(kept, E.carried_dice_pmf(n_dice)) > P_MIN


@pytest.mark.parametrize("delta", [-7, 0, 12])
def test_kernel_opposed_dice_sampler(delta: int) -> None:
    x, y = kernel.opposed_dice(np.random.default_rng(200 + delta).bit_generator, N)
    assert x.min() >= 0 and x.max() <= 19 and y.min() >= 0 and y.max() <= 19
    assert gof(delta + x - y, E.opposed_margin_pmf(delta)) > P_MIN
    # independence of the two dice from one word
    table = np.bincount(x * 20 + y, minlength=400)
    assert stats.gof_pvalue(table, np.full(400, 1 / 400)) > P_MIN


@pytest.mark.parametrize("mod", [-3, 1, 5])
def test_kernel_wound_sampler(mod: int) -> None:
    face, two_d6 = kernel.wound_dice(np.random.default_rng(300 + mod).bit_generator, N)
    ranks = kernel.rank_of(two_d6 + np.int16(mod))
    assert gof(ranks, E.wound_rank_pmf(mod)) > P_MIN
    assert gof(two_d6, dice.pmf(2, 6)) > P_MIN
    assert gof(face + 1, dice.die(20)) > P_MIN


def test_kernel_rank_of_equals_reference_on_every_roll() -> None:
    rolls = np.arange(-30, 60, dtype=np.int16)
    for rounding in ("ceil", "floor"):
        got = kernel.rank_of(rolls, rounding)
        assert got.tolist() == [R.wound_rank(int(r), rounding) for r in rolls]


def test_kernel_uniform_is_exact_for_awkward_ranges() -> None:
    bits = np.random.default_rng(5).bit_generator
    for k in (3, 6, 400, 720, 1296):
        u, _ = kernel.split(kernel.uniform(bits, 60_000, k), k)
        assert u.max() < k
        assert stats.gof_pvalue(np.bincount(u, minlength=k), np.full(k, 1 / k)) > P_MIN
