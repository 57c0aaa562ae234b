"""The command line for crt: the contract scripts rely on, and every bad-input case."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from balance.cli import main


def run(capsys, *argv):
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def test_rulesets_json(capsys):
    status, out, _ = run(capsys, "rulesets", "--json")
    assert status == 0
    assert "crt" in [r["name"] for r in json.loads(out)]


def test_show_lists_fields_tags_and_presets(capsys):
    status, out, _ = run(capsys, "show", "crt")
    assert status == 0
    for text in ("es2_mode", "[AMBIG]", "multi_zero_mode", "bruggish", "watchman", "[DEFAULT]"):
        assert text in out
    status, out, _ = run(capsys, "show", "crt", "--json")
    info = json.loads(out)
    names = {f["name"] for f in info["rule_parameters"]}
    assert {"es2_mode", "max_table_chain", "multi_zero_mode", "divert_scope"} <= names
    assert info["presets"]["bruggish"]["combats"] == 30


def test_duel_json_contract(capsys):
    status, out, _ = run(capsys, "duel", "crt", "--a", "bruggish", "--b", "watchman",
                         "--b", "watchman", "--b", "watchman,strength=7", "-n", "20000",
                         "--seed", "3", "--json")
    assert status == 0
    data = json.loads(out)
    for key in ("ruleset", "n", "seed", "a_win", "b_win", "draw", "a_win_ci", "b_win_ci",
                "draw_ci", "mean_rounds", "elapsed_s"):
        assert key in data
    assert data["n"] == 20000 and data["seed"] == 3
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1)
    low, high = data["a_win_ci"]
    assert low <= data["a_win"] <= high


def test_duel_same_seed_same_numbers(capsys):
    args = ("duel", "crt", "--a", "veteran", "--b", "expert", "-n", "30000", "--seed", "9",
            "--json")
    first = json.loads(run(capsys, *args)[1])
    second = json.loads(run(capsys, *args)[1])
    assert first["a_win"] == second["a_win"] and first["draw"] == second["draw"]


def test_duel_precision_stops_early(capsys):
    status, out, _ = run(capsys, "duel", "crt", "--a", "novice", "--b", "veteran",
                         "--precision", "0.01", "--seed", "1", "--chunk-size", "5000", "--json")
    data = json.loads(out)
    assert status == 0 and data["n"] < 100_000
    assert (data["a_win_ci"][1] - data["a_win_ci"][0]) / 2 <= 0.01


def test_duel_text_output(capsys):
    status, out, _ = run(capsys, "duel", "crt", "--a", "duelist", "--b", "duelist",
                         "--rule", "extraordinary=false", "-n", "10000", "--seed", "2")
    assert status == 0
    assert "A wins" in out and "Wilson" in out and "fights/s" in out


def test_scenario(capsys):
    status, out, _ = run(capsys, "duel", "crt", "--scenario", "bruggish-vs-watchmen",
                         "-n", "5000", "--seed", "1", "--json")
    assert status == 0 and json.loads(out)["n"] == 5000


def test_exact_json(capsys):
    status, out, _ = run(capsys, "exact", "crt", "--a", "duelist", "--b", "duelist,bonus=-5",
                         "--rule", "extraordinary=false", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["a_win"] > data["b_win"]
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1)
    assert "mean_rounds" in data


def test_log_narrates_a_fight(capsys):
    status, out, _ = run(capsys, "log", "crt", "--scenario", "bruggish-vs-watchmen", "--seed", "4")
    assert status == 0
    assert "Round 1" in out and "Bruggish" in out and "needs 4+" in out
    assert out.strip().splitlines()[-1].startswith("==")


def test_bench_json(capsys):
    status, out, _ = run(capsys, "bench", "--ruleset", "crt", "--case", "plain duel",
                         "--seconds", "0.05", "--json")
    assert status == 0
    row = json.loads(out)[0]
    for key in ("ruleset", "case", "kernel_fights_per_s", "reference_fights_per_s", "ratio"):
        assert key in row
    assert row["kernel_fights_per_s"] > 0 and row["ratio"] > 0


def test_bench_times_the_exact_solver(capsys):
    status, out, _ = run(capsys, "bench", "--ruleset", "crt", "--case", "exact plain duel",
                         "--json")
    assert status == 0
    (row,) = json.loads(out)
    assert row["case"] == "exact plain duel" and row["exact_s"] > 0
    assert "A 0.4833, B 0.4833" in row["summary"]  # the symmetric duel's exact value
    assert row["kernel_fights_per_s"] is None and row["ratio"] is None  # keys always there


BAD = [
    (("bench", "--ruleset", "crt", "--case", "nope"), "unknown bench case 'nope'; cases: "),
    (("bench", "--ruleset", "crt", "--seconds", "nan"), "expected seconds in (0, 600], got 'nan'"),
    (("bench", "--ruleset", "crt", "--seconds", "0"), "expected seconds in (0, 600], got '0'"),
    (("duel", "nope", "--a", "x", "--b", "y"), "unknown ruleset 'nope'"),
    (("duel", "crt", "--a", "agility=7,wisdom=3", "--b", "novice"), "unknown crt combatant field 'wisdom'"),
    (("duel", "crt", "--a", "gandalf", "--b", "novice"), "unknown crt preset 'gandalf'"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "gravity=2"), "unknown crt rules field 'gravity'"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "max_rounds=lots"), "'max_rounds' must be an integer"),
    (("duel", "crt", "--a", "skill=9", "--b", "novice"), "'skill' must be in 0..5"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "-n", "0"), "expected a whole number >= 1"),
    (("duel", "crt", "--a", "=3", "--b", "novice"), "malformed spec"),
    (("duel", "crt", "--a", "skill=1,skill=2", "--b", "novice"), "field 'skill' is given twice"),
    (("duel", "crt", "--a", "novice,,skill=1", "--b", "novice"), "an empty item between commas"),
    (("duel", "crt", "--a", "", "--b", "novice"), "give a preset name or name=value"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "es2_mode=maybe"), "must be one of"),
    (("duel", "crt", "--a", "novice"), "missing --b"),
    (("duel", "crt", "--a", "novice", *("--b", "novice") * 13), "side b has 13 combatants"),
    (("exact", "crt", "--a", "novice", "--b", "novice"), "no exact solution"),
    (("exact", "crt", "--a", "novice", "--b", "novice", "--strategy"), "--strategy"),
    (("duel", "crt", "--scenario", "nowhere", "--a", "novice"), "unknown crt scenario"),
    (("duel", "crt", "--a", "novice", "--b", "novice", "--rule", "armour_points=felt:3"), "keys"),
]


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_bad_input_is_one_line_exit_2(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_argparse_errors_are_one_line_exit_2():
    proc = subprocess.run([sys.executable, "-m", "balance", "duel", "crt", "--a", "novice",
                           "--b", "novice", "-n", "0"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "-n" in proc.stderr and ">= 1" in proc.stderr


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "balance", "rulesets"], capture_output=True,
                          text=True, check=True)
    assert "crt" in proc.stdout


def test_matchups_json(capsys):
    status, out, _ = run(capsys, "matchups", "crt", "--entrants", "novice,expert,master",
                         "-n", "2000", "--resamples", "20", "--json")
    assert status == 0
    data = json.loads(out)
    assert len(data["matchups"]) == 9
    assert data["ratings"][0]["entrant"] == "master"
    assert {"weight", "weight_low", "weight_high"} <= set(data["metagame"][0])


def test_matchups_bad_preset(capsys):
    status, out, err = run(capsys, "matchups", "crt", "--entrants", "novice,bogus")
    assert status == 2 and out == "" and "unknown crt preset 'bogus'" in err
