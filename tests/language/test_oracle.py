"""The compiled language against an independent oracle (``oracle.py``): random well-typed
expressions and random batches, every fight compared.

Hypothesis runs derandomised (the same examples every run), so the suite is never flaky.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from balance.language import compile_amount, compile_condition

from .oracle import NAMES, bools, environment, ints

SETTINGS = settings(derandomize=True, max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
N_FIGHTS = 40


def _check_batch(expression, drawn, seed):
    batch, fights = environment(seed, N_FIGHTS)
    got = expression.evaluate(batch)
    want = [drawn.fn(fight, iter(())) for fight in fights]
    assert got.shape == (N_FIGHTS,)
    assert got.tolist() == want, drawn.text
    # the narrated reading of one fight: the same value, and every name it read
    reading = expression.read(fights[0])
    assert reading.value == want[0]
    assert all(f"{name} is " in str(reading) for name in expression.names_used)


@SETTINGS
@given(drawn=bools(), seed=st.integers(0, 2**32 - 1))
def test_conditions_equal_the_oracle_fight_by_fight(drawn, seed):
    condition = compile_condition(drawn.text, NAMES)
    assert not condition.has_dice
    _check_batch(condition, drawn, seed)
    got = condition.evaluate(environment(seed, N_FIGHTS)[0])
    assert got.dtype == np.bool_


@SETTINGS
@given(drawn=ints(), seed=st.integers(0, 2**32 - 1))
def test_amounts_equal_the_oracle_fight_by_fight(drawn, seed):
    amount = compile_amount(drawn.text, NAMES)
    _check_batch(amount, drawn, seed)
    batch, _ = environment(seed, N_FIGHTS)
    got = amount.evaluate(batch)
    assert got.dtype == np.int64
    low, high = amount.range
    assert low is not None and high is not None  # every test name has a bounded range
    assert low <= got.min() and got.max() <= high


def _enumerated(drawn, fight):
    """The exact distribution by brute force: every face of every die, through the oracle."""
    faces = [list(itertools.product(range(1, sides + 1), repeat=count))
             for count, sides in drawn.dice]
    weight = Fraction(1, math.prod(sides**count for count, sides in drawn.dice))
    out: dict = {}
    for combination in itertools.product(*faces):
        value = drawn.fn(fight, iter(sum(f) for f in combination))
        out[value] = out.get(value, Fraction(0)) + weight
    return {v: p for v, p in sorted(out.items()) if p}


def _small(drawn):
    return 0 < len(drawn.dice) <= 3 and math.prod(s**c for c, s in drawn.dice) <= 2000


@settings(derandomize=True, max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(drawn=ints(depth=2, dice=True).filter(_small), seed=st.integers(0, 2**32 - 1))
def test_amount_distributions_equal_enumeration(drawn, seed):
    amount = compile_amount(drawn.text, NAMES)
    assert amount.has_dice
    _, fights = environment(seed, 1)
    exact = amount.distribution(fights[0])
    assert exact == _enumerated(drawn, fights[0]), drawn.text
    assert sum(exact.values()) == 1
    # a batch of this fight (scalars, words as words) draws only values the exact
    # distribution allows, within the bounds
    drawn_values = amount.evaluate(fights[0], np.random.default_rng(seed), n=200)
    assert set(drawn_values.tolist()) <= set(exact)
    low, high = amount.range
    assert low <= min(exact) and max(exact) <= high


@settings(derandomize=True, max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(drawn=bools(depth=2, dice=True).filter(_small), seed=st.integers(0, 2**32 - 1))
def test_condition_probabilities_equal_enumeration(drawn, seed):
    condition = compile_condition(drawn.text, NAMES)
    _, fights = environment(seed, 1)
    exact = condition.distribution(fights[0])
    assert exact == _enumerated(drawn, fights[0]), drawn.text
    assert condition.probability(fights[0]) == exact.get(True, 0)


def test_the_oracle_can_fail():
    # The comparisons above compare 40 fights of varied values: an oracle saying the
    # opposite is caught, and the batch is not all one value.
    condition = compile_condition("round >= 3", NAMES)
    batch, fights = environment(1, N_FIGHTS)
    got = condition.evaluate(batch).tolist()
    assert got != [not (f["round"] >= 3) for f in fights]
    assert got == [f["round"] >= 3 for f in fights]
    assert 0 < sum(got) < N_FIGHTS
