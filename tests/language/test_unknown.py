"""``Expression.evaluate(..., unknown=...)``: a value the other values settle is computed
without the unknown names; one that needs an unknown name raises :class:`UnknownRead`
naming it, whatever operation would have read it."""

from __future__ import annotations

import numpy as np
import pytest

from balance.language import Name, Names, UnknownRead, compile_amount, compile_condition

NAMES = Names({"self.health": Name(int, range=(0, 9)), "self.wary": Name(bool),
               "self.stance": Name(str, choices=("steady", "wild"))})
UNKNOWN = frozenset({"self.health"})


@pytest.mark.parametrize(("text", "env", "expected"), [
    ("self.wary and self.health <= 3", {"self.wary": False}, [False] * 3),
    ("self.stance == 'wild' or self.health <= 3", {"self.stance": "wild"}, [True] * 3),
    ("self.wary and self.health <= 3", {"self.wary": np.array([False] * 3)}, None),
])
def test_a_condition_settled_without_the_unknown(text, env, expected) -> None:
    condition = compile_condition(text, NAMES)
    if expected is None:  # an array: the fold cannot stop, so the unknown is read
        with pytest.raises(UnknownRead, match=r"self\.health"):
            condition.evaluate(env, n=3, unknown=UNKNOWN)
        return
    assert condition.evaluate(env, n=3, unknown=UNKNOWN).tolist() == expected


@pytest.mark.parametrize("text", [
    "self.health", "-self.health", "self.health + 1", "2 * self.health", "self.health // 2",
    "max(self.health, 2)", "1d6 + self.health", "3 if self.health > 2 else 1",
    "1 if self.wary and self.health == 1 else 0",
])
def test_an_amount_that_needs_it_raises(text: str) -> None:
    with pytest.raises(UnknownRead) as caught:
        compile_amount(text, NAMES).evaluate({"self.wary": True}, np.random.default_rng(0),
                                              n=3, unknown=UNKNOWN)
    assert caught.value.name == "self.health"


@pytest.mark.parametrize("text", ["self.health in (1, 2)", "1 < self.health < 4",
                                  "not (self.health > 1)", "self.health != 0"])
def test_a_condition_that_needs_it_raises(text: str) -> None:
    with pytest.raises(UnknownRead, match=r"reads self\.health, whose value is not given"):
        compile_condition(text, NAMES).evaluate({}, n=3, unknown=UNKNOWN)
