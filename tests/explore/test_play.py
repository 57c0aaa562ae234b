"""Best play and "make it even" in the explorer panel (issue 25, item 3), driven from
Python: what the panel shows is balance.best_play / balance tune on the same matchup, rules
and seed."""

from __future__ import annotations

import html

import pytest

import balance
from balance.analysis.tune import tune
from balance.explorer import Member, Question, play
from balance.explorer.view import pct

pytest.importorskip("ipywidgets")


def test_best_play_of_an_exact_matchup_is_the_solver_s_with_each_side_s_policy():
    ex = balance.explore("crt", "novice", "veteran", rules={"extraordinary": False},
                         background=False)
    assert ex.best_play is None and ex.best_output.value == ""
    ex.best_toggle.value = True
    bp = balance.best_play("crt", "novice", "veteran", rules={"extraordinary": False})
    assert ex.best_play.method == bp.method == "exact"
    assert ex.best_play.value == bp.value
    shown = ex.best_output.value
    assert f'<span class="best-value">{pct(bp.value)}</span> (exact)' in shown
    assert "A plays" in shown and "B plays" in shown
    assert html.escape(bp.policy_a[0][0]) in shown  # the chosen policy, in words
    # a state-by-state solver's strategy: every state's decisions, in a closed section
    assert f"state by state: {len(bp.strategy):,} states" in shown
    # a change answers best play again; the toggle off clears it
    ex.set("a.0.combats", 20)
    again = balance.best_play("crt", "novice,combats=20", "veteran",
                              rules={"extraordinary": False})
    assert ex.best_play.value == again.value != bp.value
    ex.best_toggle.value = False
    assert ex.best_play is None and ex.best_output.value == ""


def test_best_play_by_monte_carlo_has_its_interval_and_an_estimate_first():
    ex = balance.explore("strike-rank", "skirmisher", "gladiator", background=False,
                         seed=3)
    seen: list[str] = []
    ex.best_output.observe(lambda change: seen.append(change["new"]), "value")
    ex.best_toggle.value = True
    bp = balance.best_play("strike-rank", "skirmisher", "gladiator", method="simulate",
                           precision=play.BEST_PRECISION, seed=3)
    assert ex.best_play.method == "simulate" and ex.best_play.value == bp.value
    low, high = bp.value_ci
    assert f"[{pct(low, 1)}, {pct(high, 1)}] (95%)" in ex.best_output.value
    assert "seed 3" in ex.best_output.value
    # before the search: the working state, with the least time it takes
    estimates = [v for v in seen if "best play by Monte Carlo" in v]
    assert estimates and "at least" in estimates[0] and "balance-working" in estimates[0]


def test_the_estimate_is_a_lower_bound_from_a_pilot():
    question = Question("crt", (Member("novice"),), (Member("veteran"),))
    estimate = play.monte_carlo_estimate(question)
    assert estimate.fights > 0 and estimate.rate > 0
    assert estimate.seconds == estimate.fights / estimate.rate
    assert estimate.text().startswith("at least ")


def test_make_it_even_on_crt_names_the_whole_value_that_is_even():
    ex = balance.explore("crt", "novice", "veteran", rules={"extraordinary": False},
                         background=False)
    assert ex.even_knob.value == "a.0.combats"  # the default knob
    found = ex.make_even()
    direct = tune("crt", "novice", "veteran", rules={"extraordinary": False},
                  knob="a.0.combats", seed=1)
    assert found.sentence() == direct.sentence()
    assert found.status == "hit" and found.crossing == 31
    assert "A needs exactly 31 more combats survived" in ex.even_output.value
    assert '<table class="bracket"' in ex.even_output.value
    # the question changes: the answer stays, greyed, saying it is for the earlier one
    ex.set("b.0.combats", ex.get("b.0.combats") + 1)
    assert "before your last change" in ex.even_output.value


def test_make_it_even_on_strike_rank_brackets_even_with_two_whole_values():
    ex = balance.explore("strike-rank", "bladesman", "feral", background=False)
    assert ex.even_knob.value == "a.0.skill"
    found = ex.make_even()
    direct = tune("strike-rank", "bladesman", "feral", knob="a.0.skill", seed=1)
    assert found.sentence() == direct.sentence()
    lo, hi = found.bracket
    assert hi.value == lo.value + 1 and (lo.rate - 0.5) * (hi.rate - 0.5) <= 0
    for p in (lo, hi):  # both whole values and their rates are in the table
        assert f">{p.value:g}</td><td>{p.text()}</td>" in ex.even_output.value


def test_make_it_even_under_best_play_and_on_a_rule():
    ex = balance.explore("crt", "novice", "veteran", rules={"extraordinary": False},
                         background=False)
    ex.best_toggle.value = True
    found = ex.make_even("rules.damage_die")
    assert found.play == "best"
    assert found.sentence() == tune("crt", "novice", "veteran",
                                    rules={"extraordinary": False}, knob="rules.damage_die",
                                    seed=1, play="best").sentence()


def test_the_knobs_are_every_number_of_each_fighter_and_the_rules():
    ex = balance.explore("crt", "novice", "veteran", background=False)
    paths = [path for _, path in ex.even_knob.options]
    labels = dict((path, label) for label, path in ex.even_knob.options)
    assert "a.0.combats" in paths and "b.0.skill" in paths and "rules.damage_die" in paths
    assert labels["a.0.combats"] == "A1: combats survived"
    assert not [p for p in paths if p.endswith((".name", ".weapon_type"))]
    ex.side_a.grow()
    assert "a.1.combats" in [path for _, path in ex.even_knob.options]
    assert ex.even_knob.value == "a.0.combats"  # the choice is kept


def test_a_newer_question_stops_a_tune():
    question = Question("crt", (Member("novice"),), (Member("veteran"),))
    with pytest.raises(play.Superseded):
        play.make_even(question, "a.0.combats", superseded=lambda: True)
