"""The command line for ``pool``: its parameters, strategies and narration, and its own bad
input (one line, exit status 2).  What every ruleset's command line does is tested once in
``tests/core/test_cli_all.py``."""

from __future__ import annotations

import json

import pytest


def test_show(cli):
    code, out, _ = cli("show", "pool")
    assert code == 0
    for name in ("bid_protocol = \"sealed\"  [AMBIG]", "randomiser = null  [DEFAULT]",
                 "margin_damage", "status_in_checks", "stalemate_rounds", "draw_worth",
                 "pool_policy = \"minimal_sure_hit\"  [DEFAULT]"):
        assert name in out


def test_exact(cli):
    code, out, _ = cli("exact", "pool", "--scenario", "example-8")
    assert code == 0
    assert "A wins  100.0000%" in out and "states:" in out and "solve_s:" in out


def test_exact_strategy_table(cli):
    code, out, _ = cli("exact", "pool", "--a", "name=A,wound_points=6",
                       "--b", "name=B,wound_points=6", "--strategy")
    assert code == 0
    assert "attack bids" in out and "defence bids" in out and "A > B" in out


def test_exact_json_with_strategy(cli):
    code, out, _ = cli("exact", "pool", "--a", "duellist", "--b", "guard",
                       "--rule", "randomiser=1d6", "--rule", "max_rounds=10", "--json",
                       "--strategy")
    assert code == 0
    data = json.loads(out)
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1.0)
    assert data["strategy"][0]["turn"] == 1


def test_exact_of_fixed_policies(cli):
    code, out, _ = cli("exact", "pool", "--a", "duellist,pool_policy=all_in_first",
                       "--b", "guard", "--rule", "exact_play=policies")
    assert code == 0 and "pool_policy duellist=all_in_first" in out


def test_log(cli):
    code, out, _ = cli("log", "pool", "--a", "duellist,pool_policy=equilibrium",
                       "--b", "guard", "--rule", "randomiser=1d10", "--seed", "1")
    assert code == 0 and "Turn order: duellist (TV 7), guard (TV 5)" in out
    assert "+ die" in out and "==" in out


@pytest.mark.parametrize("argv, message", [
    (["exact", "pool", "--a", "coordination=12", "--b", "average"], "'coordination' must be"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule", "bid_protocol=loud"],
     "bid_protocol"),
    (["duel", "pool", "--a", "average,pool_policy=greedy", "--b", "average"], "pool_policy"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule", "draw_worth=2"],
     "draw_worth"),
    (["exact", "pool", "--a", "average", "--b", "average", "--rule",
      "stat_ranges=combat:lots"], "stat_ranges"),
    (["exact", "pool", "--a", "intellect=10,coordination=10,wound_points=900,weapon=unarmed",
      "--b", "intellect=10,coordination=10,wound_points=900,weapon=unarmed",
      "--rule", "margin_damage=true"], "exceed the solver's limit"),
])
def test_bad_input_is_one_line_and_exit_2(cli, argv, message):
    code, out, err = cli(*argv)
    assert code == 2
    assert message in err and err.count("\n") == 1 and out == ""
