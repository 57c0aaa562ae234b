"""The kernel's tabulated round (:mod:`balance.rulesets.file.table`): which rounds it
takes, that a table holds the round's exact law (counted by hand below), and that fights
played from it match the engine's own round and the exact solver in distribution (fixed
seeds; each p-value against the contract suite's ``ALPHA``, 1e-4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from balance.rulesets import resolve
from balance.rulesets.file import from_text
from balance.rulesets.file.engine import fixed_values
from balance.rulesets.file.kernel import simulate
from balance.rulesets.file.table import round_table, why_not
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import ALPHA, categories

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rulesets"
CRT = resolve(EXAMPLES / "crt-plain.toml")
D10 = resolve(EXAMPLES / "opposed-d10.toml")

TWO_BLOWS = """
[ruleset]
name = "two-blows"
title = "one or two blows a round, stamina spent each round, a draw when both are spent"

[fighter.skill]
range = [0, 5]
default = 2

[fighter.hit_points]
range = [1, 8]
default = 4

[fighter.blows]
range = [1, 2]
default = 2

[state.health]
start = "self.hit_points"
range = [0, 8]

[state.stamina]
start = 3
range = [0, 3]

[[actions]]
name = "strike"
times = "self.blows"
roll = "1d6 + self.skill"

[[actions.outcomes]]
name = "hit"
when = "self.roll - target.roll >= 2"
damage = "1d2"
effects = [EFFECT]

[[actions]]
name = "tire"

[[actions.outcomes]]
name = "spent"
effects = [{spend = "stamina", who = "self", amount = "1"}]

[end]
out = "self.health <= 0"
draw_when = "self.stamina <= 0 and target.stamina <= 0"
max_rounds = 50

[presets.one]
blows = 1
skill = 3

[presets.two]
blows = 2
"""
NO_EFFECT = '{spend = "stamina", who = "self", amount = "0"}'


def two_blows(effect: str = NO_EFFECT) -> object:
    return from_text(TWO_BLOWS.replace("EFFECT", effect), "two-blows.toml")


def table_of(rs: object, a: str, b: str, **changes: object) -> object:
    rules = rs.rules()  # type: ignore[attr-defined]
    side_a, side_b = rs.side(a)[0], rs.side(b)[0]  # type: ignore[attr-defined]
    fixed, rule_values = fixed_values(rs.system, rules, side_a, side_b)  # type: ignore[attr-defined]
    return round_table(rs.engine, fixed, rule_values, int(rules.max_rounds))  # type: ignore[attr-defined]


def gains_of(table: object) -> np.ndarray:
    """The one step's gains of the one state value, over the codes (not their tiling)."""
    (step,) = table.steps  # type: ignore[attr-defined]
    ((name, gains, lowers, raises),) = step.gains
    assert name == "health" and lowers and not raises
    return gains[:, :table.codes]  # type: ignore[attr-defined]


def test_crt_plain_a_round_is_one_word_and_its_table_the_exact_law() -> None:
    table = table_of(CRT, "duelist", "veteran")
    assert table.codes == 36 * 6 * 36 * 6 and table.dtype == np.int16
    gains = gains_of(table)
    # the duelist is 21 behind: a stroke on 9+ (10 ways in 36; 2 never, 12 always); the
    # veteran 21 ahead: on 5+ (30 ways); a scored stroke deals 1d6; both rolls independent.
    # In 216ths (2d6 and 1d6) of each fighter: P(the foe loses 0, 1, ..., 6)
    duelist = np.array([26 * 6] + [10] * 6)
    veteran = np.array([6 * 6] + [30] * 6)
    joint = np.zeros((7, 7), np.int64)
    np.add.at(joint, (-gains[1], -gains[0]), 1)
    assert table.codes == 216 * 216 and np.array_equal(joint, np.outer(duelist, veteran))


def test_opposed_d10_a_round_is_a_hundred_codes() -> None:
    table = table_of(D10, "veteran", "novice")
    gains = gains_of(table)
    assert table.codes == 100
    # veteran (skill 5) hits novice (skill 1) where d10 - d10 >= -1: 64 pairs of 100;
    # the novice hits where its d10 beats the veteran's by 7 or more: 6 pairs
    assert (gains[1] == -1).sum() == 64 and (gains[0] == -1).sum() == 6
    assert set(np.unique(gains)) == {-1, 0}


def test_rounds_that_are_played_by_the_engine() -> None:
    assert table_of(CRT, "duelist", "cautious") is None  # its policy reads health
    assert table_of(CRT, "duelist", "duelist,divert=random") is None  # d100 too: 466,560,000
    assert table_of(CRT, "duelist", "duelist,divert=if_deficit") is not None  # fixed
    pool = resolve(EXAMPLES / "dice-pool.toml")
    assert table_of(pool, "soldier", "brute") is None  # a pool's dice vary in number
    tiers = resolve(EXAMPLES / "three-tiers.toml")
    assert why_not(tiers.system) == "a sequential round (who moves is part of the round)"
    assert table_of(two_blows('{set = "stamina", who = "self", value = "0"}'),
                    "one", "two") is None  # a set is not a gain
    # a hit wounds and then heals its target by 1: one clip of the sum a step would not be
    # the engine's clip after each change (a target at 1 health: 1 - 2 -> 0 -> 1, not 0)
    assert table_of(two_blows('{spend = "health", who = "target", amount = "-1"}'),
                    "one", "two") is None
    # a hit heals its striker, whom only the foe's hit (never in the same blow) wounds
    assert table_of(two_blows('{spend = "health", who = "self", amount = "-1"}'),
                    "one", "two") is not None


def test_the_state_is_kept_as_narrow_as_its_values_allow() -> None:
    assert table_of(two_blows(), "one", "two").dtype == np.int16
    # health up to 30000 and blows of up to 18000 before the clip: past int16
    heavy = TWO_BLOWS.replace('damage = "1d2"', 'damage = "9000 * 1d2"').replace(
        "range = [0, 8]", "range = [0, 30000]").replace("EFFECT", NO_EFFECT)
    assert table_of(from_text(heavy, "heavy.toml"), "one", "two").dtype == np.int32


def test_a_table_is_made_once_a_matchup() -> None:
    assert table_of(D10, "veteran", "novice") is table_of(D10, "veteran", "novice")


CASES = [(CRT, "duelist", "veteran"), (D10, "veteran", "novice"), (two_blows(), "one", "two")]


@pytest.mark.parametrize(("rs", "a", "b"), CASES, ids=["crt-plain", "opposed-d10", "two-blows"])
def test_tabulated_fights_match_the_engines_round_and_the_exact_solver(rs, a, b) -> None:
    assert table_of(rs, a, b) is not None
    rules, side_a, side_b = rs.rules(), rs.side(a), rs.side(b)
    runs = [simulate(rs.engine, rules, side_a[0], side_b[0], n=40_000,
                     rng=np.random.default_rng(seed), tabulate=tabulate)
            for seed, tabulate in ((11, True), (12, False))]
    counts = [np.bincount(categories(o.winner, o.cause, o.rounds)) for o in runs]
    width = max(len(c) for c in counts)
    p = chi2_homogeneity(*(np.pad(c, (0, width - len(c))) for c in counts))
    assert p > ALPHA, f"tabulated against played: p = {p:.2e}"
    # two-blows: one fighter strikes once, the other twice -- exact must branch on the
    # second blow of one side only (it once failed on the side with no rows)
    exact = rs.exact(rules, side_a, side_b)
    winners = np.bincount(runs[0].winner, minlength=3)
    p = gof_pvalue(winners, np.array([exact.draw, exact.a_win, exact.b_win]))
    assert p > ALPHA, f"tabulated against exact: p = {p:.2e}"


def test_the_same_seed_gives_the_same_fights() -> None:
    rules, side = CRT.rules(), CRT.side("duelist")
    one, two = (CRT.simulate(rules, side, side, n=3000, rng=np.random.default_rng(4))
                for _ in range(2))
    assert np.array_equal(one.winner, two.winner) and np.array_equal(one.rounds, two.rounds)
