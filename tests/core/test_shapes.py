"""Shapes named: synthetic curves of each known shape, classified and worded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from balance import stats
from balance.analysis import verdict as v
from balance.analysis.shapes import CLIFF_SHARE, ROUGHLY, shape


def _exact(rates, xs=None) -> pd.DataFrame:
    xs = list(range(len(rates))) if xs is None else xs
    return pd.DataFrame({"a.0.stat": xs, "n": 0, "a_win": rates, "a_win_low": rates,
                         "a_win_high": rates})


def _simulated(rates, n: int = 200_000, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    wins = rng.binomial(n, np.asarray(rates))
    low, high = stats.wilson(wins, n)
    return pd.DataFrame({"a.0.stat": range(len(rates)), "n": n, "a_win": wins / n,
                         "a_win_low": low, "a_win_high": high})


def _said(table: pd.DataFrame, exact: bool = True) -> str:
    made = v.grid_verdict(table, ["a.0.stat"], exact=exact)
    assert len(made.sentences) == 1
    return made.sentences[0].text


@pytest.mark.parametrize(("rates", "kind"), [
    ([0.2, 0.3, 0.4, 0.5, 0.6], "linear"),
    ([0.2, 0.32, 0.42, 0.5, 0.56], "diminishing"),        # 12, 10, 8, 6
    ([0.2, 0.24, 0.3, 0.38, 0.48], "increasing"),         # 4, 6, 8, 10
    ([0.0, 0.288, 1.0], "cliff"),                         # 28.8 then 71.2: 71% of it
    ([0.0, 0.02, 0.02, 0.29, 0.29, 0.77, 0.77, 0.97], "pairs"),
    ([0.1, 0.1, 0.1, 0.3, 0.3, 0.5, 0.5, 0.5, 0.7], "staircase"),
    ([0.2, 0.4, 0.5, 0.4, 0.2], "peaked"),
    ([0.3, 0.3, 0.3], "flat"),
    ([0.1, 0.2, 0.25, 0.4, 0.45], "uneven"),              # 10, 5, 15, 5
])
def test_each_known_shape_is_named(rates, kind):
    assert shape(range(len(rates)), rates).kind == kind


def test_the_thresholds_draw_the_lines():
    # a cliff: one step of at least CLIFF_SHARE of the movement, twice the next
    assert shape([0, 1, 2], [0.0, 0.35, 1.0]).kind != "cliff"   # 65%, 1.86x: not twice
    assert CLIFF_SHARE == 0.6
    assert shape([0, 1, 2], [0.0, 0.3, 1.0]).kind == "cliff"     # 70%, 2.33x
    assert shape([0, 1, 2], [0.0, 0.7, 0.8]).kind == "cliff"     # falling off one: 88%, 7x
    # roughly linear: steps within a quarter of the mean step of each other
    assert ROUGHLY == 0.25
    assert shape(range(4), [0.0, 0.11, 0.2, 0.3]).kind == "linear"   # 11, 9, 10: 2 <= 2.5
    assert shape(range(4), [0.0, 0.12, 0.21, 0.3]).kind == "diminishing"  # 12, 9, 9: 3


def test_noise_is_not_a_shape_and_a_shape_survives_noise():
    # a linear rate sampled (200,000 fights a cell): still linear
    assert shape(range(6), *_noisy([0.3, 0.35, 0.4, 0.45, 0.5, 0.55])).kind == "linear"
    # ties sampled: steps within their intervals are still
    found = shape(range(6), *_noisy([0.3, 0.3, 0.5, 0.5, 0.7, 0.7]))
    assert found.kind == "pairs" and found.period == 2, found
    assert shape(range(4), *_noisy([0.4, 0.4, 0.4, 0.4])).kind == "flat"


def _noisy(rates, n: int = 200_000):
    t = _simulated(rates, n)
    return t["a_win"].to_numpy(), ((t["a_win_high"] - t["a_win_low"]) / 2).to_numpy()


def test_a_linear_effect_is_said_on_average():
    assert _said(_exact([0.2, 0.3, 0.4, 0.5, 0.6])) == (
        "Each point of A: stat changes A's win rate by +10.00 points on average, roughly "
        "linearly (every step +10.00 points).")
    text = _said(_simulated([0.2, 0.3, 0.4, 0.5, 0.6]), exact=False)
    assert text.startswith("Each point of A: stat changes A's win rate by +9.94 ± 0.06 points "
                           "on average, roughly linearly (its steps from +9.7 to +10.2 points")
    assert text.endswith("points, agreeing within their intervals).")


def test_diminishing_returns_name_the_first_and_last_step_not_an_average():
    # zones-map-vs-might's shape: +27.3, +23.8, +14.2, +6.7
    text = _said(_simulated([0.22, 0.493, 0.731, 0.873, 0.94]), exact=False)
    assert "on average" not in text
    assert text == ("Each point of A: stat changes A's win rate by less than the one before "
                    "(diminishing returns): +27.1 ± 0.3 points from 0 to 1, down to +6.5 ± 0.2 "
                    "from 3 to 4; +71.8 points from 0 to 4 in all.")
    assert _said(_exact([0.2, 0.24, 0.3, 0.38, 0.48])) == (
        "Each point of A: stat changes A's win rate by more than the one before (increasing "
        "returns): +4.00 points from 0 to 1, up to +10.00 from 3 to 4; +28.00 points from 0 "
        "to 4 in all.")


def test_a_cliff_names_the_step_that_carries_it():
    # pool-intellect's Co-ordination at Intellect 4: 0% / 28.8% / 100% at 3 / 4 / 5
    assert _said(_exact([0.0, 0.288, 1.0], xs=[3, 4, 5])) == (
        "A's win rate jumps where A: stat goes from 4 to 5 (0.00% / 28.80% / 100.00% at A: "
        "stat = 3 / 4 / 5): that one step carries 71.20 of the 100.00 points it moves from 3 "
        "to 5.")


def test_a_stat_that_enters_halved_moves_in_pairs():
    # pool-intellect's Intellect: the pool is (Co + Int) // 2
    text = _said(_exact([0.0, 0.02, 0.02, 0.29, 0.29, 0.77, 0.77, 0.97], xs=range(1, 9)))
    assert text == ("A's win rate moves in pairs of A: stat: it changes only at every second "
                    "point (1 to 2, 3 to 4, 5 to 6 and 7 to 8; the largest step +48.00 points "
                    "from 5 to 6) and ties between, from 0.00% at 1 to 97.00% at 8.")


def test_a_staircase_names_its_steps_and_a_peak_its_top():
    assert _said(_exact([0.1, 0.1, 0.1, 0.3, 0.3, 0.5, 0.5, 0.5, 0.7])) == (
        "A's win rate is a staircase in A: stat: it moves only from 2 to 3 (+20.00 points), 4 "
        "to 5 (+20.00) and 7 to 8 (+20.00), and ties between, from 10.00% at 0 to 70.00% at "
        "8.")
    assert _said(_exact([0.2, 0.4, 0.5, 0.4, 0.2])) == (
        "A's win rate rises then falls with A: stat: 20.00% at 0, a peak of 50.00% at 2, "
        "20.00% at 4.")


def test_an_even_effect_with_plateaus_says_where_it_is_flat():
    text = _said(_exact([0.0, 0.0, 0.2, 0.4, 0.6, 1.0, 1.0]))
    # 20, 20, 20, 40 between the plateaus: increasing; the plateaus named
    assert text == ("Each point of A: stat changes A's win rate by more than the one before "
                    "(increasing returns): +20.00 points from 1 to 2, up to +40.00 from 4 to 5; "
                    "+100.00 points from 0 to 6 in all; flat up to A: stat = 1 (0.00%); flat "
                    "from A: stat = 5 on (100.00%).")
    assert _said(_exact([0.3, 0.3, 0.3])) == (
        "A's win rate does not move with A: stat: 30.00% at every value.")


def test_a_long_sampled_staircase_has_only_its_real_steps():
    # crt-bands' shape: 60 steps, three of them real; one at a time, about three of the 57
    # flat ones would clear their own 95% interval by chance -- tested together (Holm), none
    rates = [0.1] * 20 + [0.3] * 20 + [0.6] * 15 + [0.9] * 6
    t = _simulated(rates, n=20_000, seed=3)
    halves = ((t["a_win_high"] - t["a_win_low"]) / 2).to_numpy()
    found = shape(range(61), t["a_win"].to_numpy(), halves)
    assert found.kind == "staircase" and found.moving == [19, 39, 54], found.moving
    one_at_a_time = np.abs(np.diff(t["a_win"].to_numpy())) > np.hypot(halves[:-1], halves[1:])
    assert one_at_a_time.sum() > 3  # the test can fail: noise alone clears its own interval


def test_noise_that_hides_a_step_is_not_a_staircase():
    # a linear rate over few fights: no step sure on its own, yet the whole moves 6 points
    t = _simulated([0.30, 0.31, 0.32, 0.33, 0.34, 0.35], n=2_000, seed=8)
    halves = ((t["a_win_high"] - t["a_win_low"]) / 2).to_numpy()
    assert shape(range(6), t["a_win"].to_numpy(), halves).kind == "linear"
    # and a rate that does not move is flat however it is sampled
    t = _simulated([0.30] * 6, n=2_000, seed=8)
    halves = ((t["a_win_high"] - t["a_win_low"]) / 2).to_numpy()
    assert shape(range(6), t["a_win"].to_numpy(), halves).kind == "flat"
