"""Dice in the language: exact distributions against known answers, and the vectorised draws
against those distributions by a goodness-of-fit test with a threshold fixed in advance."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from balance.dice import WordDice, pmf
from balance.language import compile_amount, compile_condition
from balance.stats import gof_pvalue

from .oracle import NAMES

ALPHA = 1e-4  # false-alarm rate of each goodness-of-fit test for a correct sampler
N_DRAWS = 200_000
SEED = 20240521
FIGHT = {"self.wounds": 5, "target.armour_rank": 2, "round": 1, "foes_engaged": 2,
         "self.edge": 1, "target.shield": "none", "self.stance": "none",
         "target.stance": "none", "mounted": False, "self.prone": True}


def test_exact_distributions_with_known_answers():
    assert compile_amount("2d6", NAMES).distribution({}) == dict(pmf(2, 6))
    two_d6_plus_1 = compile_amount("2d6+1", NAMES).distribution({})
    assert two_d6_plus_1[8] == Fraction(6, 36) and min(two_d6_plus_1) == 3
    assert compile_amount("d%", NAMES).distribution({}) == {k: Fraction(1, 100)
                                                           for k in range(1, 101)}
    # two rolls of a d6 are two dice, not one doubled: 2 * d6 and d6 + d6 differ
    assert 7 not in compile_amount("2 * d6", NAMES).distribution({})
    assert compile_amount("d6 + d6", NAMES).distribution({}) == dict(pmf(2, 6))
    assert compile_amount("max(d6, d6)", NAMES).distribution({})[6] == Fraction(11, 36)
    # a condition on dice: a 5 or 6 on a d6, and 'on a 1' only in the first round
    assert compile_condition("d6 >= 5", NAMES).probability({}) == Fraction(1, 3)
    first = compile_condition("round == 1 and d6 == 1", NAMES)
    assert first.probability({"round": 1}) == Fraction(1, 6)
    assert first.probability({"round": 2}) == 0
    # a chain reads its middle roll once: 2 <= d6 <= 3 is 2 faces in 6
    assert compile_condition("2 <= d6 <= 3", NAMES).probability({}) == Fraction(1, 3)


CASES = [
    "2d6+1",
    "3d6",
    "d%",
    "d20 + self.wounds // 2",
    "max(1, 1d6 - target.armour_rank)",
    "2d10 if mounted else 1d4 + foes_engaged",
    "10d6",  # past the one-draw lookup (6**10 > 65536): ten draws added
]


@pytest.mark.parametrize("source", ["generator", "words"])
@pytest.mark.parametrize("text", CASES)
def test_vectorised_dice_match_their_exact_distribution(text, source):
    # "words": the dice a kernel draws from 16-bit words of the bit stream (WordDice)
    amount = compile_amount(text, NAMES)
    exact = amount.distribution(FIGHT)
    rng = np.random.default_rng(SEED)
    values = amount.evaluate(FIGHT, rng if source == "generator" else WordDice(rng), n=N_DRAWS)
    outcomes = np.array(sorted(exact))
    assert set(np.unique(values)) <= set(outcomes.tolist())
    counts = np.array([np.count_nonzero(values == v) for v in outcomes])
    probabilities = np.array([float(exact[v]) for v in outcomes])
    assert gof_pvalue(counts, probabilities) > ALPHA


def test_per_fight_values_with_dice_match_fight_by_fight():
    # Half the batch is mounted: each half follows its own exact distribution.
    amount = compile_amount("2d10 if mounted else 1d4 + foes_engaged", NAMES)
    mounted = np.arange(N_DRAWS) % 2 == 0
    env = {"mounted": mounted, "foes_engaged": np.full(N_DRAWS, 3, dtype=np.int8)}
    values = amount.evaluate(env, np.random.default_rng(SEED + 1))
    for flag in (True, False):
        exact = amount.distribution({"mounted": flag, "foes_engaged": 3})
        outcomes = sorted(exact)
        part = values[mounted == flag]
        counts = np.array([np.count_nonzero(part == v) for v in outcomes])
        assert counts.sum() == part.size
        assert gof_pvalue(counts, np.array([float(exact[v]) for v in outcomes])) > ALPHA


def test_condition_on_dice_holds_as_often_as_its_probability():
    condition = compile_condition("d6 >= 5 or target.armour_rank >= 4", NAMES)
    armour = np.arange(N_DRAWS) % 7
    held = condition.evaluate({"target.armour_rank": armour}, np.random.default_rng(SEED + 2))
    assert held[armour >= 4].all()
    light = held[armour < 4]
    p = float(condition.probability({"target.armour_rank": 0}))
    counts = np.array([np.count_nonzero(light), np.count_nonzero(~light)])
    assert gof_pvalue(counts, np.array([p, 1 - p])) > ALPHA


def test_the_fit_test_rejects_a_wrong_sampler():
    # The threshold is not so loose that it accepts anything: 1d12 is not 2d6.
    values = compile_amount("1d12", NAMES).evaluate({}, np.random.default_rng(SEED), n=N_DRAWS)
    exact = compile_amount("2d6", NAMES).distribution({})
    outcomes = sorted(exact)
    counts = np.array([np.count_nonzero(values == v) for v in outcomes])
    assert gof_pvalue(counts, np.array([float(exact[v]) for v in outcomes])) < ALPHA


def test_dice_need_a_generator_and_one_fight_narrates_its_rolls():
    amount = compile_amount("2d6+1", NAMES)
    with pytest.raises(ValueError, match="2d6 rolls dice: pass rng"):
        amount.evaluate({}, n=3)
    reading = amount.read({}, np.random.default_rng(3))
    assert 3 <= reading.value <= 13
    (fact,) = reading.facts
    faces, total = fact.removeprefix("2d6 rolled ").split("=")
    assert sum(map(int, faces.split("+"))) == int(total) == reading.value - 1
    assert str(reading) == f"2d6+1 ({fact}) = {reading.value}"


def test_a_scalar_that_settles_and_or_rolls_no_dice():
    # 'mounted' fixed for the batch: False and ... / True or ... never reach the d6, so
    # the generator is where it was; an array operand still rolls for every fight.
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    held = compile_condition("mounted and d6 >= 5", NAMES).evaluate({"mounted": False}, rng,
                                                                      n=10)
    assert not held.any() and rng.bit_generator.state == before
    held = compile_condition("mounted or d6 >= 5", NAMES).evaluate({"mounted": True}, rng, n=10)
    assert held.all() and rng.bit_generator.state == before
    mixed = np.arange(10) % 2 == 0
    compile_condition("mounted and d6 >= 5", NAMES).evaluate({"mounted": mixed}, rng)
    assert rng.bit_generator.state != before


def test_a_condition_fixed_for_the_batch_rolls_only_the_branch_it_picks():
    rng = np.random.default_rng(SEED)
    before = rng.bit_generator.state
    amount = compile_amount("2d10 if mounted else foes_engaged", NAMES)
    values = amount.evaluate({"mounted": False, "foes_engaged": 3}, rng, n=10)
    assert (values == 3).all() and rng.bit_generator.state == before
    values = amount.evaluate({"mounted": True, "foes_engaged": 3}, rng, n=1000)
    assert values.min() >= 2 and values.max() <= 20 and len(set(values.tolist())) > 3
