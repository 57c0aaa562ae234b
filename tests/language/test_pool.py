"""Dice pools in the language: ``successes(N, SIDES, AT_LEAST[, EXPLODE])`` -- the count of
dice showing AT_LEAST or more among N (a name allowed), each die showing EXPLODE or more
rolling one more, at most MAX_EXPLOSIONS in a row.  Exact distributions against a
brute-force enumeration of every face sequence, draws against them by goodness of fit
(threshold fixed in advance), and the refusals."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from balance.language import LanguageError, Name, Names, compile_amount
from balance.language.syntax import MAX_EXPLOSIONS
from balance.stats import gof_pvalue

ALPHA = 1e-4  # false-alarm rate of each goodness-of-fit test for a correct sampler
N_DRAWS = 200_000
SEED = 20240611
NAMES = Names({"self.dice": Name(int, range=(0, 8)), "target.dice": Name(int, range=(0, 8))})


def brute_force(count: int, sides: int, at_least: int, explode: int,
                depth: int = MAX_EXPLOSIONS) -> dict[int, Fraction]:
    """Every sequence of faces of one die (explosions to ``depth``), then the sum of
    ``count`` independent dice by enumerating their pairs: an oracle that shares no code
    with the language's."""

    def one(left: int) -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for face in range(1, sides + 1):
            more = one(left - 1) if explode and face >= explode and left > 0 else {0: 1}
            for k, p in more.items():
                key = (face >= at_least) + k
                out[key] = out.get(key, Fraction(0)) + Fraction(1, sides) * p
        return out

    die = one(depth)
    total: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(count):
        total = {s: sum((p * q for (a, p), (b, q) in itertools.product(total.items(), die.items())
                         if a + b == s), Fraction(0))
                 for s in {a + b for a in total for b in die}}
    return {k: v for k, v in sorted(total.items()) if v}


@pytest.mark.parametrize(("count", "sides", "at_least", "explode"),
                         [(0, 6, 5, 0), (1, 6, 5, 0), (4, 6, 5, 0), (3, 10, 8, 0),
                          (2, 6, 5, 6), (3, 6, 4, 5), (1, 2, 2, 2)])
def test_exact_distribution_is_the_brute_force_one(count, sides, at_least, explode) -> None:
    text = f"successes(self.dice, {sides}, {at_least}" + (f", {explode})" if explode else ")")
    exact = compile_amount(text, NAMES).distribution({"self.dice": count})
    assert exact == brute_force(count, sides, at_least, explode)
    assert sum(exact.values()) == 1


def test_known_answers() -> None:
    # one d6 at 5+: a third; four dice: none succeed with (2/3)^4
    assert compile_amount("successes(1, 6, 5)", NAMES).distribution({})[1] == Fraction(1, 3)
    assert compile_amount("successes(4, 6, 5)", NAMES).distribution({})[0] == Fraction(16, 81)
    # exploding sixes: one die scores two or more only by a six (a success) then a 5+
    two = compile_amount("successes(1, 6, 5, 6)", NAMES).distribution({})
    assert sum(p for k, p in two.items() if k >= 2) == Fraction(1, 6) * Fraction(1, 3)
    # a count below zero rolls nothing
    assert compile_amount("successes(0 - 2, 6, 5)", NAMES).distribution({}) == {0: 1}


@pytest.mark.parametrize("text", ["successes(self.dice, 6, 5)", "successes(self.dice, 6, 5, 6)",
                                  "successes(self.dice, 6, 5) - successes(target.dice, 6, 5)"])
def test_draws_follow_the_exact_distribution(text: str) -> None:
    expression = compile_amount(text, NAMES)
    fight = {"self.dice": 5, "target.dice": 3}
    exact = expression.distribution(fight)
    values = expression.evaluate({k: np.full(N_DRAWS, v) for k, v in fight.items()},
                                 np.random.default_rng(SEED))
    support = sorted(exact)
    observed = np.array([(values == k).sum() for k in support])
    assert observed.sum() == N_DRAWS  # every draw is a value the exact law allows
    p = gof_pvalue(observed, np.array([float(exact[k]) for k in support]))
    assert p > ALPHA, p


def test_counts_differ_per_fight_and_the_narration_shows_the_faces() -> None:
    expression = compile_amount("successes(self.dice, 6, 5, 6)", NAMES)
    counts = np.array([0, 1, 8, 3])
    values = expression.evaluate({"self.dice": counts}, np.random.default_rng(1))
    assert values[0] == 0 and (values >= 0).all()
    reading = expression.read({"self.dice": 3}, np.random.default_rng(2))
    assert reading.facts[-1].startswith("3d6 rolled ")
    assert expression.range == (0, 8 * (1 + MAX_EXPLOSIONS))


@pytest.mark.parametrize(("text", "column", "words"), [
    ("successes(self.dice, 1, 1)", 22, "sides must be 2..1000"),
    ("successes(self.dice, 6, 7)", 25, "succeeds must be 1..6"),
    ("successes(self.dice, 6, 5, 1)", 28, "explodes must be 2..6"),
    ("successes(round, 6, 5)", 11, "at most 100 dice"),
    ("successes(self.dice > 1, 6, 5)", 11, "needs a whole number"),
    ("successes(self.dice, self.dice, 5)", 22, "expected a number"),
])
def test_refusals_name_the_column(text: str, column: int, words: str) -> None:
    names = NAMES | Names({"round": Name(int, range=(1, 1000))})
    with pytest.raises(LanguageError) as caught:
        compile_amount(text, names)
    assert caught.value.column == column and words in str(caught.value), str(caught.value)
