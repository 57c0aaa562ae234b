"""No noise called a finding: a verdict over many comparisons of identical variants claims
a difference no more often than its procedure's documented rate."""

from __future__ import annotations

import numpy as np
import pandas as pd

from balance import stats
from balance.analysis import verdict as v

PRESETS = [f"p{i:02d}" for i in range(19)]
FIGHTS = 20_000


def _null_grid(rng: np.random.Generator) -> pd.DataFrame:
    """strike-rank-best-attack-type's shape with one fixed variant a preset: 19 presets x 19
    opponents, each preset as it is and always ``f=x``, both with the same true rate in
    every cell (the variant changes nothing): 361 comparisons of identical variants, each
    cell's count binomial on its own streams."""
    true = rng.uniform(0.05, 0.95, size=(19, 19))
    rows = []
    for value, suffix in (("own", ""), ("fixed", ",f=x")):
        wins = rng.binomial(FIGHTS, true)
        low, high = stats.wilson(wins, FIGHTS)
        for i, preset in enumerate(PRESETS):
            for j, opponent in enumerate(PRESETS):
                rows.append({"a": preset + suffix, "b.0.preset": opponent, "n": FIGHTS,
                             "a_win": wins[i, j] / FIGHTS, "a_win_low": low[i, j],
                             "a_win_high": high[i, j], "kind": value})
    return pd.DataFrame(rows)


REPLICATES = 200
MOST_CLAIMING = 18
"""Replicates (of 200) that may claim any difference: with Holm at 5% the chance a
replicate claims one is at most 5%, so the count is at most Binomial(200, 0.05), and
P(X >= 18) = 0.012 (scipy.stats.binom.sf(17, 200, 0.05)); fixed before the run."""


def test_a_null_grid_of_361_comparisons_claims_no_difference_at_the_documented_rate():
    rng = np.random.default_rng(2020)
    claiming = unadjusted = 0
    for _ in range(REPLICATES):
        grid = _null_grid(rng)
        made = v.variants_verdict(grid.drop(columns="kind"), ["a", "b.0.preset"], "a")
        assert made is not None
        text = made.sentences[0].text
        assert text.endswith("(differences claimed at Holm-adjusted 5% over 361 comparisons).")
        level = "level with the best of them in 361 " in text
        assert level == (made.sentences[0].value == 0 and "behind" not in text
                         and "ahead of every fixed choice by more than 2 points in 0;" in text)
        claiming += not level
        # the same comparisons one at a time (each 95% interval): noise called a finding
        own, fixed = (grid[grid["kind"] == k] for k in ("own", "fixed"))
        half = np.hypot(own["a_win_high"].to_numpy() - own["a_win_low"].to_numpy(),
                        fixed["a_win_high"].to_numpy() - fixed["a_win_low"].to_numpy()) / 2
        unadjusted += bool(np.any(np.abs(own["a_win"].to_numpy() - fixed["a_win"].to_numpy())
                                  > half))
    assert claiming < MOST_CLAIMING, claiming
    # the test can fail: read one comparison at a time, nearly every replicate claims one
    # (361 x 5% = 18 expected a replicate; P(none) = 0.95^361 < 1e-8)
    assert unadjusted >= REPLICATES - 1, unadjusted


def test_a_real_difference_is_still_claimed_in_a_grid_of_361():
    rng = np.random.default_rng(11)
    grid = _null_grid(rng)
    # one preset's own choice trails its variant by 5 points in one cell
    hit = (grid["a"] == "p03") & (grid["b.0.preset"] == "p07")
    grid.loc[hit, ["a_win", "a_win_low", "a_win_high"]] = [0.40, 0.3932, 0.4068]
    fixed = (grid["a"] == "p03,f=x") & (grid["b.0.preset"] == "p07")
    grid.loc[fixed, ["a_win", "a_win_low", "a_win_high"]] = [0.45, 0.4431, 0.4569]
    made = v.variants_verdict(grid.drop(columns="kind"), ["a", "b.0.preset"], "a")
    text = made.sentences[0].text
    assert "worse by more than 2 points in 1 (p03 against p07 -5.0 ± 1.0 points against x)" \
        in text, text


def _null_options(rng: np.random.Generator, values: int = 60, n: int = 10_000) -> pd.DataFrame:
    """An option identical to the default at every value of another axis: any place the
    verdict says it beats or trails the default is noise."""
    rows = []
    for option in ("plain", "fancy"):
        wins = rng.binomial(n, 0.5, size=values)
        low, high = stats.wilson(wins, n)
        for x in range(values):
            rows.append({"a.0.kit": option, "b.0.stat": x, "n": n, "a_win": wins[x] / n,
                         "a_win_low": low[x], "a_win_high": high[x]})
    return pd.DataFrame(rows)


OPTION_REPLICATES = 100
OPTIONS_CLAIMING = 12
"""Replicates (of 100) whose options verdict may claim a difference: every hypothesis true,
Benjamini-Hochberg's false discovery rate is its family-wise rate, at most 5%, so the count
is at most Binomial(100, 0.05), and P(X >= 12) = 0.0043 (scipy.stats.binom.sf(11, 100,
0.05)); fixed before the run."""


def test_an_options_verdict_over_many_conditions_lists_no_noise():
    from balance.labels import Labels

    labels = Labels(baselines={"a.0.kit": "plain", "b.0.stat": 0})
    strict = v.Thresholds(worth_margin=0.0)  # any difference counts: the hardest case
    rng = np.random.default_rng(61)
    claiming = unadjusted = 0
    for _ in range(OPTION_REPLICATES):
        grid = _null_options(rng)
        made = v.options_verdict(grid, ["a.0.kit", "b.0.stat"], "a.0.kit", labels=labels,
                                 focus="fancy", thresholds=strict)
        text = made.sentences[-1].text
        assert text.endswith("(differences claimed at Benjamini-Hochberg 5% false discovery "
                             "rate over 60 comparisons).")
        claiming += "beats the default nowhere in this grid" not in text \
            or "no better than the default" not in text
        fancy, plain = (grid[grid["a.0.kit"] == k] for k in ("fancy", "plain"))
        half = np.hypot(fancy["a_win_high"].to_numpy() - fancy["a_win_low"].to_numpy(),
                        plain["a_win_high"].to_numpy() - plain["a_win_low"].to_numpy()) / 2
        unadjusted += bool(np.any(fancy["a_win"].to_numpy() - plain["a_win"].to_numpy() > half))
    assert claiming < OPTIONS_CLAIMING, claiming
    # one comparison at a time, most replicates would list a condition where it "beats" it
    # (60 x 2.5% = 1.5 expected a replicate: P(none) = 0.975^60 = 0.22)
    assert unadjusted > OPTION_REPLICATES // 2, unadjusted
