"""The verdict on synthetic tables with known answers, and its sensitivity pass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest

from balance import stats
from balance.analysis import verdict as v
from balance.fields import param
from balance.labels import Labels
from tests.sweep import coin


def _pair(a: str, b: str, a_win: float, draw: float, n: int) -> dict[str, Any]:
    """One ordered pair of a simulated round robin, its counts exactly the rates x n."""
    a_wins, draws = round(a_win * n), round(draw * n)
    b_wins = n - a_wins - draws
    row: dict[str, Any] = {"a": a, "b": b, "n": n, "a_wins": a_wins, "b_wins": b_wins,
                           "draws": draws}
    for rate, k in (("a_win", a_wins), ("b_win", b_wins), ("draw", draws)):
        low, high = stats.wilson(k, n)
        row.update({rate: k / n, f"{rate}_low": float(low), f"{rate}_high": float(high)})
    return row


def _round_robin(scores: dict[tuple[str, str], float], names: list[str], n: int = 40_000,
                 draw: float = 0.0) -> pd.DataFrame:
    """A table where ``a`` beats ``b`` with chance ``scores[a, b]`` (less the draws) in
    either seat; mirrors are even."""
    rows = []
    for a in names:
        for b in names:
            p = 0.5 if a == b else scores.get((a, b), 1 - scores.get((b, a), 0.5))
            rows.append(_pair(a, b, p * (1 - draw), draw, n))
    return pd.DataFrame(rows)


def test_a_dominant_entrant_and_the_dominated():
    table = _round_robin({("knight", "squire"): 0.9, ("knight", "page"): 0.95,
                          ("squire", "page"): 0.5}, ["knight", "squire", "page"])
    made = v.round_robin_verdict(table, resamples=20)
    texts = [s.text for s in made.sentences]
    assert texts[0].startswith("The field is not balanced (±5 points)")
    assert texts[1].startswith("The knight is dominant: it beats every other entrant, scoring "
                               "at least 90.0% [")
    assert "(against the squire)" in texts[1] and "metagame weight 100%" in texts[1]
    assert texts[2].startswith("Dominated (2 of 3): squire and page.")
    low, high = made.sentences[1].low, made.sentences[1].high
    assert low < 0.9 < high and high - low < 0.01  # the pooled interval of 80,000 fights


def test_a_balanced_field_has_no_dominant_entrant():
    names = ["rock", "paper", "scissors"]
    table = _round_robin({("paper", "rock"): 0.53, ("scissors", "paper"): 0.53,
                          ("rock", "scissors"): 0.53}, names, n=200_000)
    made = v.round_robin_verdict(table, resamples=20)
    texts = [s.text for s in made.sentences]
    assert texts[0].startswith("The field is balanced within ±5 points: every entrant's expected "
                               "score against the field lies in 45%-55%")
    assert texts[1].startswith("No entrant is dominant")
    assert "a table of clever players would mix" in texts[1]
    assert texts[2] == "No entrant is dominated by a mix of the others."
    # a 3-point margin is not balanced within 2
    assert v.round_robin_verdict(table, margin=0.0, resamples=20).sentences[0].text.startswith(
        "The field is not balanced")


def test_draws_count_half_in_the_verdict():
    # all draws between two: each scores 50%, nobody dominates (A's wins alone would read 0%)
    table = _round_robin({}, ["knight", "gladiator"], draw=1.0)
    made = v.round_robin_verdict(table, resamples=20)
    assert made.sentences[0].text.startswith("The field is balanced")


def _staircase_grid(slope: float = 0.0) -> pd.DataFrame:
    """crt's shape, exact: A's win rate a step function of 7 x skill + combats - 31, in
    bands of 12 (the Combat Results Table's advantage bands), 50% on equal scores (with
    ``slope``: less of it, and that much a combat on top)."""
    rows = []
    for skill in range(5):
        for combats in range(41):
            advantage = 7 * skill + combats - 31
            step = 0 if advantage == 0 else np.sign(advantage) * (1 + (abs(advantage) - 1) // 12)
            p = (float(np.clip(0.5 + 0.15 * step, 0.02, 0.98)) * (1 - 40 * slope)
                 + slope * combats)
            rows.append({"a.0.skill": skill, "a.0.combats": combats, "n": 0, "a_win": p,
                         "a_win_low": p, "a_win_high": p, "b_win": 1 - p, "draw": 0.0})
    return pd.DataFrame(rows)


def test_a_staircase_exchange_rate():
    results = _staircase_grid()
    found = v.exchange_rate(results, "a.0.combats", "a.0.skill")
    assert found["rate"] == pytest.approx(7.0)
    assert found["crossings"] == {0.0: 31.0, 1.0: 24.0, 2.0: 17.0, 3.0: 10.0, 4.0: 3.0}
    made = v.grid_verdict(results, ["a.0.skill", "a.0.combats"], exact=True)
    texts = [s.text for s in made.sentences]
    assert texts[0].startswith("One point of A: skill is worth 7.0 points of A: combats: ")
    assert texts[1].startswith("A's win rate is a staircase in A: combats, not a rate")
    flag, share, jumps = v.staircase(np.arange(41), results[results["a.0.skill"] == 0]["a_win"])
    assert flag and share == pytest.approx(1.0) and jumps == [7.0, 19.0, 31.0, 32.0]
    smooth = v.staircase(np.arange(41), np.linspace(0.1, 0.9, 41))
    assert not smooth[0]


def test_exchange_between_opposite_sides_offsets():
    rows = []
    for a in range(5):
        for b in range(0, 21):
            p = float(np.clip(0.5 + 0.04 * (4 * a - b + 2), 0.0, 1.0))
            rows.append({"a.0.might": a, "b.0.might": b, "n": 0, "a_win": p, "a_win_low": p,
                         "a_win_high": p})
    results = pd.DataFrame(rows)
    made = v.grid_verdict(results, ["a.0.might", "b.0.might"], exact=True)
    assert made.sentences[0].text.startswith("One point of A: might offsets 4.0 points of B: might")


def _exchange_grid(per_point: float, noise: float = 0.0) -> pd.DataFrame:
    """A's win rate 50% where ``x = 10 + per_point * y`` (a rising y moves the even line
    up: the two stats pull A in opposite directions), 4 points a step of x."""
    rows = []
    for y in range(5):
        for x in range(21):
            p = float(np.clip(0.5 + 0.04 * (x - 10 - per_point * y), 0.0, 1.0))
            rows.append({"a.0.x": x, "b.0.y": y, "n": 0, "a_win": p,
                         "a_win_low": max(p - noise, 0.0), "a_win_high": min(p + noise, 1.0)})
    return pd.DataFrame(rows)


def test_the_exchange_rate_is_said_in_words_with_its_unit():
    one = v.grid_verdict(_exchange_grid(1.0), ["a.0.x", "b.0.y"], exact=True)
    assert one.sentences[0].text.startswith(
        "One point of B: y offsets 1.0 point of A: x: where A's win rate crosses 50%, A: x "
        "moves 1.0 per point of B: y (10 at 0, 11 at 1, ")
    two = v.grid_verdict(_exchange_grid(2.5), ["a.0.x", "b.0.y"], exact=True)
    assert two.sentences[0].text.startswith("One point of B: y offsets 2.5 points of A: x: ")
    # a whole-valued stat crosses between two whole values: said as the two that bracket it
    assert "(10 at 0, 12 to 13 at 1, 15 at 2, 17 to 18 at 3, 20 at 4)" in two.sentences[0].text


def test_a_continuous_stat_keeps_its_fractional_crossing():
    grid = _exchange_grid(2.5).assign(**{"a.0.x": lambda d: d["a.0.x"] + 0.25})
    text = v.grid_verdict(grid, ["a.0.x", "b.0.y"], exact=True).sentences[0].text
    assert "(10.2 at 0, 12.8 at 1, " in text, text


def test_an_exchange_rate_below_the_threshold_is_worth_almost_nothing():
    made = v.grid_verdict(_exchange_grid(0.05), ["a.0.x", "b.0.y"], exact=True)
    text = made.sentences[0].text
    assert text.startswith("B: y is worth almost nothing against A: x: one point of B: y "
                           "offsets 0.05 points of A: x (under 0.1 of a point): "), text
    assert made.sentences[0].value == pytest.approx(-0.05)
    # simulated, its interval must lie below the threshold too: here it reaches past it
    noisy = v.grid_verdict(_exchange_grid(0.05, noise=0.01), ["a.0.x", "b.0.y"])
    assert noisy.sentences[0].text.startswith("One point of B: y offsets 0.05 ["), noisy
    assert noisy.sentences[0].high > v.NEGLIGIBLE_EXCHANGE
    # above the threshold: a plain rate
    assert v.grid_verdict(_exchange_grid(0.2), ["a.0.x", "b.0.y"], exact=True).sentences[
        0].text.startswith("One point of B: y offsets 0.20 points of A: x: ")


def test_two_stats_without_an_even_line_get_what_a_point_of_each_is_worth():
    # pool-intellect's shape: A never reaches the even line (nor any level twice), so there
    # is no exchange rate to read; the verdict says what a point of each stat is worth
    rows = []
    for y in range(3):
        for x in range(6):
            p = 0.1 + 0.06 * x if y == 0 else 0.0
            rows.append({"a.0.x": x, "a.0.y": y, "n": 0, "a_win": p, "a_win_low": p,
                         "a_win_high": p})
    made = v.grid_verdict(pd.DataFrame(rows), ["a.0.x", "a.0.y"], exact=True)
    texts = [s.text for s in made.sentences]
    assert texts[0] == ("Each point of A: x changes A's win rate by +6.00 points on average, "
                        "roughly linearly (every step +6.00 points) (with A: y = 0).")
    assert texts[1] == ("A's win rate drops where A: y goes from 0 to 1 (10.00% / 0.00% / 0.00% "
                        "at A: y = 0 / 1 / 2): that one step carries 10.00 of the 10.00 points "
                        "it moves from 0 to 2 (with A: x = 0).")


def test_a_presets_own_choice_against_the_same_preset_with_it_fixed():
    # strike-rank-best-attack-type's shape: each preset as it is and with one field fixed
    rates = {("p", "u"): 0.60, ("p,f=x", "u"): 0.50, ("p,f=y", "u"): 0.55,   # ahead
             ("p", "v"): 0.50, ("p,f=x", "v"): 0.53, ("p,f=y", "v"): 0.40,   # worse (3 points)
             ("q", "u"): 0.50, ("q,f=x", "u"): 0.51,                         # behind (1 point)
             ("q", "v"): 0.50, ("q,f=x", "v"): 0.50}                         # level
    results = pd.DataFrame([_pair("", "", p, 0.0, 200_000) | {"a": a, "b.0.preset": b}
                            for (a, b), p in rates.items()]).drop(columns=["b"])
    made = v.grid_verdict(results, ["a", "b.0.preset"], focus="p,f=x")
    assert len(made.sentences) == 1 and made.claim is None
    text = made.sentences[0].text
    assert text.startswith("A: f as each preset plays it, against the best of x and y fixed, in "
                           "4 matchups (2 presets x 2 cells): worse by more than 2 points in 1 "
                           "(p against v -3.0 ± 0.")
    assert "; behind beyond the noise but by less in 1 (the most: q against u -1.0 ± 0." in text
    assert text.endswith("; ahead of every fixed choice by more than 2 points in 1; level with "
                         "the best of them in 1 (differences claimed at Holm-adjusted 5% over 6 "
                         "comparisons).")
    # not that shape: a fixed field on a preset never played as it is, or two fields
    assert v.variants_verdict(results[results["a"] != "q"].assign(
        a=lambda t: t["a"].replace({"p": "r"})), ["a", "b.0.preset"], "a") is None
    assert v._variants(["p", "q", "p,f=x,g=y"]) is None and v._variants(["p", "q"]) is None


def _options_grid() -> pd.DataFrame:
    rows = []
    for rule in (0, 1):
        for option, p in (("x=1", 0.40), ("x=2", 0.50), ("x=3", 0.45 + 0.15 * rule)):
            rows.append(_pair("", "", p, 0.0, 100_000) | {"a": option, "rules.r": rule})
    return pd.DataFrame(rows).drop(columns=["b"])


def test_an_option_worth_taking_and_against_what():
    results = _options_grid()
    labels = Labels(baselines={"a": "x=2", "rules.r": 0})
    made = v.options_verdict(results, ["a", "rules.r"], "a", labels=labels, focus="x=3")
    texts = [s.text for s in made.sentences]
    assert texts[0].startswith("With rule: r = 0, the default, x=2, is side A's best option")
    assert texts[1].startswith("X=3 is worse than the default: A wins 45.0% [")
    assert "-5.0 ± 0.4 points against x=2" in texts[1]
    assert "; against the other options it beats x=1 by 5.0 points; " in texts[1]
    assert texts[1].endswith("only where rule: r = 1 (differences claimed at Benjamini-Hochberg "
                             "5% false discovery rate over 3 comparisons).")
    # the best option is the one asked about: one sentence says it, each number once
    worth = v.options_verdict(results, ["a", "rules.r"], "a",
                              labels=Labels(baselines={"a": "x=2", "rules.r": 1}), focus="x=3")
    assert len(worth.sentences) == 1
    text = worth.sentences[0].text
    assert text.startswith("With rule: r = 1, side A's best option is x=3, worth taking: A wins "
                           "60.0% [59.7, 60.3], +10.0 ± 0.4 points against the default, x=2 "
                           "(50.0% [49.7, 50.3]); against the other options it beats x=1 by "
                           "20.0 points; ")
    assert text.count("60.0%") == text.count("+10.0") == text.count("50.0%") == 1


def test_the_focus_option_leads_a_grid_that_also_sweeps_stats():
    # zones-third-attack's shape: options of side A, and a stat on each side; the question
    # is about the focus option, so it comes first and the stats' exchange rate after
    rows = []
    for option, shift in (("x=1", -0.1), ("x=2", 0.0), ("x=3", -0.05)):
        for a in range(4):
            for b in range(4):
                p = float(np.clip(0.5 + 0.1 * (a - b) + shift, 0.0, 1.0))
                rows.append({"a": option, "a.0.might": a, "b.0.might": b, "n": 0, "a_win": p,
                             "a_win_low": p, "a_win_high": p})
    results = pd.DataFrame(rows)
    axes = ["a", "a.0.might", "b.0.might"]
    labels = Labels(baselines={"a": "x=2", "a.0.might": 1, "b.0.might": 1})
    plain = [s.text for s in v.grid_verdict(results, axes, labels=labels, exact=True).sentences]
    assert "offsets" in plain[0]  # no focus: the stats lead
    made = v.grid_verdict(results, axes, labels=labels, exact=True, focus="x=3",
                          matchup_of=lambda cell: v.Matchup(None, (cell["a"],), ()))
    texts = [s.text for s in made.sentences]
    assert "is side A's best option" in texts[0]
    assert texts[1].startswith("X=3 is worse than the default")
    assert any("offsets" in t for t in texts[2:])
    # and the key answer the sensitivity pass rechecks is the focus option's
    assert made.claim is not None and made.claim.question == "is x=3 worth taking over x=2?"
    assert [m.side_a for m in made.claim.matchups] == [("x=3",), ("x=2",)]


# --- the sensitivity pass, on a ruleset with a reading that flips the answer -----------------


@dataclass(frozen=True, kw_only=True)
class WindyRules(coin.Rules):
    _owner: ClassVar[str] = "windy rules"

    wind: str = param("calm", tag="AMBIG", choices=("calm", "gale"),
                      doc="in a gale every level of skill costs 0.1 of a toss's chance")
    mood: str = param("calm", tag="DEFAULT", choices=("calm", "grumpy"),
                      doc="changes nothing (a reading the answer does not rest on)")


class Windy(coin.Coin):
    name: ClassVar[str] = "windy"
    Rules: ClassVar[type] = WindyRules

    @staticmethod
    def _still(rules: WindyRules, side: Any) -> tuple[Any, ...]:
        if rules.wind == "calm":
            return side
        return tuple(dataclasses.replace(c, level=0, bias=max(0.0, c.bias - 0.1 * c.level))
                     for c in side)

    def exact(self, rules: Any, side_a: Any, side_b: Any, /) -> Any:
        return super().exact(rules, self._still(rules, side_a), self._still(rules, side_b))

    def simulate(self, rules: Any, side_a: Any, side_b: Any, /, *, n: int, rng: Any) -> Any:
        return super().simulate(rules, self._still(rules, side_a), self._still(rules, side_b),
                                n=n, rng=rng)


def _windy_verdict(rules: Any) -> tuple[Windy, v.Verdict]:
    rs = Windy()
    names = ["pro", "lucky", "fair"]
    rows = []
    for a in names:
        for b in names:
            p = rs.exact(rules, rs.side(a), rs.side(b))
            rows.append({"a": a, "b": b, "n": 0, "a_win": p.a_win, "b_win": p.b_win,
                         "draw": p.draw, **{f"{r}_{e}": getattr(p, r) for r in
                                            ("a_win", "b_win", "draw") for e in ("low", "high")}})
    made = v.round_robin_verdict(pd.DataFrame(rows), matchup_of=lambda x, y: v.Matchup(
        rules, rs.side(x), rs.side(y)))
    return rs, made


def test_the_sensitivity_pass_names_the_reading_that_flips_it():
    rs, made = _windy_verdict(WindyRules())
    assert made.sentences[1].text.startswith("The pro is dominant")
    checked = v.sensitivity(made, rs)
    assert checked.base_answer.startswith("the pro beats the lucky")
    assert checked.checked == ("wind=gale", "mood=grumpy")  # AMBIG readings first
    assert [(f.name, f.value) for f in checked.flips] == [("wind", "gale")]
    assert checked.flips[0].answer.startswith("the lucky beats the pro")
    text = checked.rests_text()
    assert "under `wind = gale` the lucky beats the pro" in text
    assert "each matchup solved exactly" in text


def test_a_reading_that_changes_nothing_does_not_flip_even_by_sampling_noise():
    rs, made = _windy_verdict(WindyRules())
    # simulated, not solved: the same streams for every reading, so "mood" (no effect)
    # gives exactly the base numbers and cannot flip
    simulated = dataclasses.replace(made, claim=dataclasses.replace(made.claim))
    rs.exact_check = lambda *args: "simulate this"  # type: ignore[method-assign]
    checked = v.sensitivity(simulated, rs, fights=5_000)
    assert [f.name for f in checked.flips] == ["wind"]
    assert "5,000 fights a matchup" in checked.rests_text()


def test_the_work_is_bounded():
    rs, made = _windy_verdict(WindyRules())
    rs.exact_check = lambda *args: "simulate this"  # type: ignore[method-assign]
    # room for the base and one alternative only, at the smallest size
    checked = v.sensitivity(made, rs, budget=4 * v.SENSITIVITY_MIN_FIGHTS)
    assert checked.checked == ("wind=gale",) and checked.skipped == ("mood=grumpy",)
    assert "1 more were not tried within the budget" in checked.rests_text()


# --- best play against the policies as given -----------------------------------------------------

GIVEN = {("knight", "squire"): 0.9, ("knight", "page"): 0.9, ("knight", "berserker"): 0.9,
         ("squire", "page"): 0.6, ("squire", "berserker"): 0.7, ("page", "berserker"): 0.6}
BEST = {**GIVEN, ("knight", "berserker"): 0.7, ("squire", "berserker"): 0.2,
        ("page", "berserker"): 0.2}
"""Under best play the berserker (last with its policies as given) beats the squire and the
page; the knight still beats everyone."""


def _best_table(given: pd.DataFrame, best: pd.DataFrame) -> pd.DataFrame:
    """A best-play round robin: ``best``'s rates, ``given``'s as the policies-as-given
    columns (the same fights)."""
    return best.assign(default_a_win=given["a_win"], default_b_win=given["b_win"],
                       default_draw=given["draw"], value=best["a_win"] + best["draw"] / 2)


def test_what_best_play_changes_is_told_apart_from_noise():
    from balance.analysis import bestplay

    names = ["knight", "squire", "page", "berserker"]
    given, best = _round_robin(GIVEN, names), _round_robin(BEST, names)
    found = bestplay.verdict_changes(given, best, resamples=20)
    assert (found.top, found.top_best) == ("knight", "knight")
    assert found.overtakes == {"berserker": ["squire", "page"]}
    assert [(a, b) for a, b, *_ in found.flips] == [("berserker", "squire"),
                                                    ("berserker", "page")]
    assert found.dominated["best"] == found.dominated["given"] == []
    assert found.dominated["both"] == ["berserker", "squire", "page"]  # the knight beats all
    assert found.summary(str.upper) == (
        "Against the policies as given (the same fights), under best play the BERSERKER rises "
        "4th -> 2nd past the SQUIRE and the PAGE; 2 pairings change favourite (the BERSERKER "
        "against the SQUIRE 30.0% -> 80.0%; the BERSERKER against the PAGE 40.0% -> 80.0%); "
        "the KNIGHT is strongest under both (each change beyond the noise: 95% intervals, 90% "
        "of bootstrap replicates).")
    # the same play twice changes nothing, whatever the sampling noise
    again = bestplay.verdict_changes(given, _round_robin(GIVEN, names, n=39_000), resamples=20)
    assert again.summary().startswith("Best play changes none of the verdicts")
    assert not again.overtakes and not again.flips


@pytest.mark.slow  # ~8 CPU s
def test_a_best_play_round_robin_verdict_says_so_and_what_changes():
    names = ["knight", "squire", "page", "berserker"]
    table = _best_table(_round_robin(GIVEN, names), _round_robin(BEST, names))
    labels = Labels(values={"a.0.preset": {"berserker": "Berserker (style)"}})
    made = v.best_play_verdict(table, labels=labels, resamples=20)
    texts = [s.text for s in made.sentences]
    assert texts[0].startswith("Under best play (each side's policies chosen to do its best), "
                               "the field is not balanced")
    assert texts[1].startswith("The knight is dominant")
    assert texts[-1].startswith("Against the policies as given (the same fights), under best "
                                "play the Berserker (style) rises 4th -> 2nd")
    assert "the Berserker (style) rises 4th -> 2nd" in texts[-1]
    # the run-level entry point picks it for a best-play run
    results = table.rename(columns={"a": "a.0.preset", "b": "b.0.preset"})
    made = v.verdict(results, ["a.0.preset", "b.0.preset"], labels=labels, best=True)
    assert [s.text for s in made.sentences][-1] == texts[-1]


# --- what a grid reads, and the thresholds a spec sets ---------------------------------------


def _never_wins_grid(n: int = 0) -> pd.DataFrame:
    """pool-armour-vs-fortitude's shape: A never wins; its draws rise with its stat and
    its option (exact, or ``n`` fights a cell with counts)."""
    rows = []
    for stat in range(6):
        for option, extra in (("none", 0.0), ("light", 0.3)):
            draw = float(np.clip(0.15 * stat + (extra if stat >= 3 else 0.0), 0.0, 1.0))
            if n:
                rows.append(_pair("", "", 0.0, draw, n) | {"a.0.stat": stat, "a.0.kit": option})
            else:
                rows.append({"a.0.stat": stat, "a.0.kit": option, "n": 0, "a_win": 0.0,
                             "a_win_low": 0.0, "a_win_high": 0.0, "draw": draw,
                             "draw_low": draw, "draw_high": draw, "b_win": 1 - draw})
    return pd.DataFrame(rows).drop(columns=["a", "b"], errors="ignore")


def test_a_grid_where_a_never_wins_reads_its_expected_score():
    labels = Labels(baselines={"a.0.kit": "none", "a.0.stat": 4})
    made = v.grid_verdict(_never_wins_grid(), ["a.0.stat", "a.0.kit"], labels=labels,
                          exact=True)
    texts = [s.text for s in made.sentences]
    assert texts[0] == ("A never wins in this grid (0.00% in every cell); the verdict reads "
                        "A's expected score, a draw counting half.")
    # each point of the stat: 0.15 of a draw, 7.5 points of expected score
    assert texts[1] == ("Each point of A: stat changes A's expected score (a draw counts half) "
                        "by +7.50 points on average, roughly linearly (every step +7.50 points) "
                        "(with A: kit = none).")
    assert made.sentences[1].value == pytest.approx(0.075)
    assert not any("+0.00 points" in t or "A wins 0.00%" in t for t in texts), texts
    assert texts[2] == ("With A: stat = 4, side A's best option is light, worth taking: A's "
                        "expected score is 45.00%, +15.00 points against the default, none "
                        "(30.00%); it beats the default by more than 2 points where A: stat = 3 "
                        "or 4 or 5.")
    assert len(texts) == 3
    # asked for: the win rate (flat: no slope), or the score where the win rate moves
    asked = v.grid_verdict(_never_wins_grid(), ["a.0.stat", "a.0.kit"], labels=labels,
                           exact=True, value="a_win")
    assert asked.sentences[0].text == ("A's win rate does not move with A: stat: 0.00% at every "
                                       "value (with A: kit = none).")
    grid = _staircase_grid()
    assert v.choose_measure(grid)[0] == v.WIN and v.choose_measure(grid)[1] is None
    assert v.choose_measure(grid, "score") == (v.SCORE, None)


def test_a_simulated_grid_where_a_never_wins_reads_the_score_with_its_interval():
    results = _never_wins_grid(n=20_000)
    made = v.grid_verdict(results, ["a.0.stat", "a.0.kit"],
                          labels=Labels(baselines={"a.0.kit": "none", "a.0.stat": 2}))
    assert made.sentences[0].text.startswith("A never wins in this grid (0.00% [0.00, 0.02] in "
                                             "every cell)")
    scored = results.pipe(__import__("balance.analysis.matchups",
                                     fromlist=["with_scores"]).with_scores)
    row = scored.iloc[-1]  # 3/4 draws: score 0.375 + the light kit's 0.15
    assert row["score"] == pytest.approx(0.5 * row["draw"])
    se = np.sqrt((0.25 * row["draw"] - row["score"] ** 2) / 20_000)
    assert row["score_high"] - row["score"] == pytest.approx(stats.z_value(0.95) * se)


def test_each_threshold_a_spec_sets_changes_a_verdict():
    # worth_margin: x=3 beats the default by 15 points under rule 1; not by 20
    labels = Labels(baselines={"a": "x=2", "rules.r": 1})
    worth = v.options_verdict(_options_grid(), ["a", "rules.r"], "a", labels=labels,
                              focus="x=3")
    assert [s.text.split(": A wins")[0] for s in worth.sentences] == [
        "With rule: r = 1, side A's best option is x=3, worth taking"]
    strict = v.options_verdict(_options_grid(), ["a", "rules.r"], "a", labels=labels,
                               focus="x=3", thresholds=v.Thresholds(worth_margin=0.2))
    assert strict.sentences[0].text.endswith("no other beats it by more than 20 points.")
    assert strict.sentences[1].text.startswith("X=3 is no better than the default")
    assert "made with [verdict] worth_margin = 0.2 (default 0.02)" in strict.rests_text()
    # dominated_sure: c trails a mix of a and b by half a point in 85% of replicates
    table = _round_robin({("a", "b"): 0.5, ("c", "a"): 0.495, ("c", "b"): 0.495},
                         ["a", "b", "c"], n=4000)
    assert v.round_robin_verdict(table, resamples=20).sentences[2].text == (
        "No entrant is dominated by a mix of the others.")
    loose = v.round_robin_verdict(table, resamples=20,
                                  thresholds=v.Thresholds(dominated_sure=0.8))
    assert loose.sentences[2].text.startswith("Dominated (1 of 3): c.")
    assert "(in at least 80% of bootstrap replicates)" in loose.sentences[2].text
    # staircase_share: curves with 81% of their change in their largest fifth of steps
    grid = _staircase_grid(slope=0.004)
    plain = [s.kind for s in v.grid_verdict(grid, ["a.0.skill", "a.0.combats"],
                                            exact=True).sentences]
    assert plain == ["exchange", "staircase"]
    high = v.grid_verdict(grid, ["a.0.skill", "a.0.combats"], exact=True,
                          thresholds=v.Thresholds(staircase_share=0.9))
    assert [s.kind for s in high.sentences] == ["exchange"]
    # margin: as round_robin_verdict's margin= (test_a_balanced_field_...), from the table
    assert v.Thresholds.of({"margin": 0.1, "focus": "x"}) == v.Thresholds(margin=0.1)
    assert v.Thresholds().changed() == ""


def _rules_grid() -> pd.DataFrame:
    """zones-charge-arrival's shape: rules only. The bonus helps A by 3 points a point
    from a short gap, nothing from a long one (the default)."""
    rows = []
    for gap, base in (("short", 0.50), ("long", 0.35)):
        for bonus in (0, 1, 2):
            p = base + (0.03 * (bonus - 1) if gap == "short" else 0.0)
            rows.append(_pair("", "", p, 0.0, 100_000) | {"rules.gap": gap, "rules.bonus": bonus})
    return pd.DataFrame(rows).drop(columns=["a", "b"])


def test_a_grid_over_rules_gets_the_options_verdict_of_each_rule():
    labels = Labels(baselines={"rules.gap": "long", "rules.bonus": 1})
    made = v.grid_verdict(_rules_grid(), ["rules.gap", "rules.bonus"], labels=labels)
    texts = [s.text for s in made.sentences]
    assert not any(t.startswith("A's win rate runs from") for t in texts), texts
    assert texts[0].startswith("With rule: bonus = 1, A does best under rule: gap = short: A "
                               "wins 50.0% [")
    assert "+15.0 ± 0.4 points against the default, long (35.0% [" in texts[0]
    assert texts[0].endswith("; it helps A by more than 2 points where rule: bonus = 0 or 1 or "
                             "2 (differences claimed at Benjamini-Hochberg 5% false discovery "
                             "rate over 3 comparisons).")
    assert texts[1].startswith("With rule: gap = long, under rule: bonus = 0, A wins 35.0% [")
    assert texts[1].endswith("; it hurts A by more than 2 points where rule: gap = short "
                             "(differences claimed at Benjamini-Hochberg 5% false discovery "
                             "rate over 3 comparisons).")
    assert len(texts) == 2  # one sentence a rule: the default's own is said by its key's
    # the focus names the rule the question is about: it comes first, its key answer
    focused = v.grid_verdict(_rules_grid(), ["rules.gap", "rules.bonus"], labels=labels,
                             focus="0", matchup_of=lambda cell: v.Matchup(cell, (), ()))
    assert [s.text for s in focused.sentences] == texts[::-1]
    assert focused.claim is not None and focused.claim.compared == frozenset()
    assert focused.claim.question == "what does rule: bonus = 0 change against 1?"
    # against the rule's other values, the unit said once
    short = v.grid_verdict(_rules_grid(), ["rules.gap", "rules.bonus"], focus="0",
                           labels=Labels(baselines={"rules.gap": "short", "rules.bonus": 1}))
    assert "1 (50.0% [49.7, 50.3]); A does worse than under 2 by 6.0 points; it hurts A" in \
        short.sentences[1].text


def _one_rule_grid(rates: dict[int, float], n: int = 100_000) -> pd.DataFrame:
    """A grid over one rule axis and nothing else."""
    return pd.DataFrame([_pair("", "", p, 0.0, n) | {"rules.target": t}
                         for t, p in rates.items()]).drop(columns=["a", "b"])


def test_a_grid_over_one_rule_never_contradicts_the_difference_it_gives():
    labels = Labels(baselines={"rules.target": 1})
    far = v.grid_verdict(_one_rule_grid({1: 0.40, 3: 0.316, 5: 0.30}), ["rules.target"],
                         labels=labels, focus="3")
    text = far.sentences[0].text
    assert "-8.4 ± 0.4 points against the default" in text, text
    assert "nowhere" not in text and text.endswith(
        "1 (40.0% [39.7, 40.3]) (differences claimed at Benjamini-Hochberg 5% false discovery "
        "rate over 2 comparisons).")
    near = v.grid_verdict(_one_rule_grid({1: 0.40, 3: 0.395, 5: 0.30}), ["rules.target"],
                          labels=labels, focus="3")
    assert near.sentences[0].text.endswith(
        "; it moves A by more than 2 points nowhere in this grid (differences claimed at "
        "Benjamini-Hochberg 5% false discovery rate over 2 comparisons)."), near.sentences[0].text


def test_an_exchange_rate_interval_is_the_interval_of_the_magnitude_shown():
    # rate -0.30 [-0.66, 0.06]: "offsets 0.30" with the interval of 0.30, crossing 0 as it does
    made = v.grid_verdict(_exchange_grid(0.3, noise=0.02), ["a.0.x", "b.0.y"])
    first = made.sentences[0]
    assert first.text.startswith("One point of B: y offsets 0.30 [-0.06, 0.66] points of A: x"), \
        first.text
    assert first.low < abs(first.value) < first.high
    sure = v.grid_verdict(_exchange_grid(0.5, noise=0.03), ["a.0.x", "b.0.y"])
    assert sure.sentences[0].text.startswith("One point of B: y offsets 0.5 [0.1, 0.9] points")


def test_worth_almost_nothing_is_judged_on_the_numbers_as_shown():
    # 0.097 prints as 0.10: not "under 0.1 of a point"
    for per_point in (0.097, 0.0996):
        text = v.grid_verdict(_exchange_grid(per_point), ["a.0.x", "b.0.y"],
                              exact=True).sentences[0].text
        assert text.startswith("One point of B: y offsets 0.10 points of A: x: "), text
    assert v.grid_verdict(_exchange_grid(0.094), ["a.0.x", "b.0.y"], exact=True).sentences[
        0].text.startswith("B: y is worth almost nothing against A: x: one point of B: y "
                           "offsets 0.09 points of A: x (under 0.1 of a point)")
    # negligible_exchange, set in the spec's [verdict]: 0.2 makes 0.10 "almost nothing"
    wide = v.grid_verdict(_exchange_grid(0.097), ["a.0.x", "b.0.y"], exact=True,
                          thresholds=v.Thresholds(negligible_exchange=0.2))
    assert wide.sentences[0].text.startswith(
        "B: y is worth almost nothing against A: x: one point of B: y offsets 0.10 points of "
        "A: x (under 0.2 of a point)")
    assert "negligible_exchange = 0.2 (default 0.1)" in wide.rests_text()


def test_only_the_thresholds_a_verdict_read_are_named():
    # margin is a round robin's: a grid's verdict does not read it, so does not name it
    grid = _exchange_grid(1.0)
    for th in (v.Thresholds(margin=0.2), v.Thresholds(dominated_sure=0.8)):
        made = v.grid_verdict(grid, ["a.0.x", "b.0.y"], exact=True, thresholds=th)
        assert made.sentences == v.grid_verdict(grid, ["a.0.x", "b.0.y"], exact=True).sentences
        assert made.rests_text() == "", made.rests_text()
    read = v.grid_verdict(grid, ["a.0.x", "b.0.y"], exact=True,
                          thresholds=v.Thresholds(margin=0.2, staircase_share=0.7))
    assert read.rests_text() == ("The verdict was made with [verdict] staircase_share = 0.7 "
                                 "(default 0.8).")
    table = _round_robin({("a", "b"): 0.6}, ["a", "b"])
    rr = v.round_robin_verdict(table, resamples=20,
                               thresholds=v.Thresholds(margin=0.2, worth_margin=0.1))
    assert rr.rests_text() == "The verdict was made with [verdict] margin = 0.2 (default 0.05)."


def test_the_baseline_cell_is_a_condition_of_every_other_axis():
    # zones-charge-arrival's shape: an option and two other axes; the option beats the
    # default in every cell, the baseline cell among them under both axes
    rows = []
    for option, shift in (("plain", 0.0), ("fancy", 0.1)):
        for x in (0, 1, 2):
            for y in ("u", "w"):
                p = 0.4 + shift + 0.01 * x
                rows.append({"a.0.kit": option, "rules.x": x, "rules.y": y, "n": 0,
                             "a_win": p, "a_win_low": p, "a_win_high": p})
    labels = Labels(baselines={"a.0.kit": "plain", "rules.x": 1, "rules.y": "u"})
    made = v.options_verdict(pd.DataFrame(rows), ["a.0.kit", "rules.x", "rules.y"], "a.0.kit",
                             labels=labels, exact=True, focus="fancy")
    assert made.sentences[-1].text.endswith(
        "it beats the default by more than 2 points where rule: x = 0 or 1 or 2; rule: y = u "
        "or w."), made.sentences[-1].text
