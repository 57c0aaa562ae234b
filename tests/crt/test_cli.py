"""The command line for crt: what only crt says (its presets, narration, exact values, table
fields).  What every ruleset's command line does is tested once, over all of them, in
``tests/core/test_cli_all.py``."""

from __future__ import annotations

import json

import pytest


def test_show_json_holds_the_preset_values(cli):
    status, out, _ = cli("show", "crt", "--json")
    assert status == 0
    info = json.loads(out)
    assert info["presets"]["bruggish"]["combats"] == 30
    assert {"es2_mode", "max_table_chain", "multi_zero_mode", "divert_scope"} <= \
        {f["name"] for f in info["rule_parameters"]}


def test_exact_favours_the_better_duellist(cli):
    status, out, _ = cli("exact", "crt", "--a", "duelist", "--b", "duelist,bonus=-5",
                         "--rule", "extraordinary=false", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["a_win"] > data["b_win"]
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1)


def test_log_narrates_a_fight(cli):
    status, out, _ = cli("log", "crt", "--scenario", "bruggish-vs-watchmen", "--seed", "4")
    assert status == 0
    assert "Round 1" in out and "Bruggish" in out and "needs 4+" in out
    assert out.strip().splitlines()[-1].startswith("==")


def test_bench_times_the_exact_solver(cli):
    status, out, _ = cli("bench", "--ruleset", "crt", "--case", "exact plain duel", "--json")
    assert status == 0
    (row,) = json.loads(out)
    assert row["case"] == "exact plain duel" and row["exact_s"] > 0
    assert "A 0.4833, B 0.4833" in row["summary"]  # the symmetric duel's exact value
    assert row["kernel_fights_per_s"] is None and row["ratio"] is None  # keys always there


BAD = [
    (("duel", "crt", "--a", "skill=9", "--b", "novice"), "'skill' must be in 0..5"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "es2_mode=maybe"),
     "must be one of"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "armour_points=felt:3"), "keys"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_input_is_one_line_exit_2(cli, argv, message):
    status, out, err = cli(*argv)
    assert status == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_matchups_rate_the_master_first(cli):
    status, out, _ = cli("matchups", "crt", "--entrants", "novice,expert,master",
                         "-n", "2000", "--resamples", "20", "--json")
    assert status == 0
    data = json.loads(out)
    assert len(data["matchups"]) == 9
    assert data["ratings"][0]["entrant"] == "master"
