"""The command line for ``pool``, including bad input (one line, exit status 2)."""

from __future__ import annotations

import json

import pytest

from balance.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_rulesets_lists_pool(capsys):
    code, out, _ = run(capsys, "rulesets")
    assert code == 0 and "pool" in out


def test_show(capsys):
    code, out, _ = run(capsys, "show", "pool")
    assert code == 0
    for name in ("bid_protocol = \"sealed\"  [AMBIG]", "randomiser = null  [DEFAULT]",
                 "margin_damage", "status_in_checks", "stalemate_rounds", "draw_worth",
                 "pool_policy = \"minimal_sure_hit\"  [DEFAULT]"):
        assert name in out


def test_exact(capsys):
    code, out, _ = run(capsys, "exact", "pool", "--scenario", "example-8")
    assert code == 0
    assert "A wins  100.0000%" in out and "states:" in out and "solve_s:" in out


def test_exact_strategy_table(capsys):
    code, out, _ = run(capsys, "exact", "pool", "--a", "name=A,wound_points=6",
                       "--b", "name=B,wound_points=6", "--strategy")
    assert code == 0
    assert "attack bids" in out and "defence bids" in out and "A > B" in out


def test_exact_json_with_strategy(capsys):
    code, out, _ = run(capsys, "exact", "pool", "--a", "duellist", "--b", "guard",
                       "--rule", "randomiser=1d6", "--rule", "max_rounds=10", "--json",
                       "--strategy")
    assert code == 0
    data = json.loads(out)
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1.0)
    assert data["strategy"][0]["turn"] == 1


def test_exact_of_fixed_policies(capsys):
    code, out, _ = run(capsys, "exact", "pool", "--a", "duellist,pool_policy=all_in_first",
                       "--b", "guard", "--rule", "exact_play=policies")
    assert code == 0 and "pool_policy duellist=all_in_first" in out


def test_duel_and_log(capsys):
    code, out, _ = run(capsys, "duel", "pool", "--scenario", "randomised", "-n", "20000",
                       "--seed", "3")
    assert code == 0 and "20,000 fights" in out
    code, out, _ = run(capsys, "log", "pool", "--a", "duellist,pool_policy=equilibrium",
                       "--b", "guard", "--rule", "randomiser=1d10", "--seed", "1")
    assert code == 0 and "Turn order: duellist (TV 7), guard (TV 5)" in out
    assert "+ die" in out and "==" in out


def test_two_against_one(capsys):
    code, out, _ = run(capsys, "duel", "pool", "--scenario", "guards-vs-duellist",
                       "-n", "5000", "--seed", "1")
    assert code == 0 and "5,000 fights" in out


@pytest.mark.parametrize("argv, message", [
    (["exact", "pool", "--a", "coordination=12", "--b", "average"], "'coordination' must be"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule", "bid_protocol=loud"],
     "bid_protocol"),
    (["duel", "pool", "--a", "average,pool_policy=greedy", "--b", "average"], "pool_policy"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule", "draw_worth=2"],
     "draw_worth"),
    (["exact", "pool", "--a", "wizard", "--b", "average"], "unknown pool preset"),
    (["duel", "pool"] + ["--a", "average"] * 7 + ["--b", "average"], "allows 1..6"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule",
      "stat_ranges=combat:lots"], "stat_ranges"),
    (["exact", "pool", "--a", "intellect=10,coordination=10,wound_points=900,weapon=unarmed",
      "--b", "intellect=10,coordination=10,wound_points=900,weapon=unarmed",
      "--rule", "margin_damage=true"], "exceed the solver's limit"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert message in err and err.count("\n") == 1 and out == ""
