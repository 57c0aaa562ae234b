"""A verdict about one entrant against a field speaks of that entrant: where it lands."""

from __future__ import annotations

import pandas as pd
import pytest

from balance import stats
from balance.analysis import verdict as v


def _field_rows(scores: dict[tuple[str, str], float], seated: list[str], field: list[str],
                n: int = 40_000) -> pd.DataFrame:
    rows = []
    for a in seated:
        for b in field:
            p = 0.5 if a == b else scores.get((a, b), 1 - scores.get((b, a), 0.5))
            wins = round(p * n)
            low, high = stats.wilson(wins, n)
            rows.append({"a.0.preset": a, "b.0.preset": b, "n": n, "a_wins": wins,
                         "b_wins": n - wins, "draws": 0, "a_win": wins / n,
                         "a_win_low": float(low), "a_win_high": float(high), "draw": 0.0,
                         "b_win": 1 - wins / n})
    return pd.DataFrame(rows)


def test_a_new_style_in_seat_a_is_told_where_it_lands():
    field = ["knight", "squire", "page"]
    scores = {("knight", "squire"): 0.8, ("knight", "page"): 0.9, ("squire", "page"): 0.7,
              ("rogue", "knight"): 0.3, ("rogue", "squire"): 0.7, ("rogue", "page"): 0.501}
    results = _field_rows(scores, [*field, "rogue"], field)
    axes = ["a.0.preset", "b.0.preset"]
    assert v.newcomer_axes(results, axes) == ("a.0.preset", "b.0.preset")
    made = v.verdict(results, axes)
    texts = [s.text for s in made.sentences]
    assert texts[0] == (
        "The rogue against the field of 3 (side B): an expected score of 50.0% [49.8, 50.3] in "
        "seat A, 2nd of the 4 entrants played against it (the knight leads with 73.3%); it "
        "beats 1 (the squire at 70.0%), loses to 1 (the knight at 30.0%) and is level with 1 (differences claimed at Holm-adjusted 5% over 3 comparisons).")
    # the field's own verdict follows, of the field alone
    assert texts[1].startswith("Among the field itself, the field is not balanced")
    assert "knight is dominant" in texts[2]
    # the page at 49.9% against the rogue: within the noise, level, not "loses"
    assert made.sentences[0].value == pytest.approx((0.3 + 0.7 + 0.501) / 3, abs=1e-4)


def test_side_a_alone_against_a_field_of_presets_speaks_of_side_a():
    field = ["knight", "squire", "page", "archer"]
    scores = {("A", "knight"): 0.2, ("A", "squire"): 0.6, ("A", "page"): 0.9,
              ("A", "archer"): 0.5}
    results = _field_rows(scores, ["A"], field).drop(columns="a.0.preset")
    made = v.grid_verdict(results, ["b.0.preset"])
    texts = [s.text for s in made.sentences]
    assert texts[0] == (
        "Side A against the field of 4 (side B): an expected score of 55.0% [54.8, 55.2] in "
        "seat A; it beats 2 (the page at 90.0% and the squire at 60.0%), loses to 1 (the "
        "knight at 20.0%) and is level with 1 (differences claimed at Holm-adjusted 5% over 4 "
        "comparisons).")
    assert texts[1].startswith("Side B's best option is knight")  # the opponent's, after


def test_presets_beside_their_fixed_variants_are_not_newcomers():
    field = ["knight", "squire", "page"]
    seated = [*field, "knight,f=x", "squire,f=x"]
    rows = _field_rows({}, seated, field).rename(columns={"a.0.preset": "a", "b.0.preset": "b"})
    assert v.newcomer_axes(rows, ["a", "b"]) is None
    assert v.newcomer_axes(rows[~rows["a"].str.contains(",")], ["a", "b"]) is None  # a mirror
    made = v.verdict(rows, ["a", "b"])
    assert made.sentences[0].kind == "variants"
