"""A result that rests on written modifier / effect rows says so, beside its DEFAULT / AMBIG
readings: one item a row, in the row's one-line form (``house rule shield: +2 to score when
...``), in a duel's --json and text output and in a report built from a sweep, for each of
the four rulesets (issue 21)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from balance.cli import main
from balance.outcomes import ROW_TAG, split_rows

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# ruleset: (rules file, its rows as a result lists them)
CASES = {
    "crt": ("crt-shield.toml", [
        'house rule shield_against_two_handed: +2 to score when self.shield != "none" and '
        'target.weapon == "two_handed"']),
    "pool": ("pool-wounded-defence.toml", [
        "house rule wounded_defence: +1 to defence when self.wound_points <= "
        "self.max_wound_points // 2"]),
    "strike-rank": ("strike-rank-war-pick.toml", [
        'weapons."war pick": +1 to attack when target.armour_rank >= 3']),
    "zones": ("zones-bola.toml", [
        "weapons.bola: +1 to attack when target.moved",
        "weapons.bola: on success inflict entangled on target for 1d3 rounds",
        "weapons.bola: on attack spend 1 ammunition by self"]),
}


@pytest.mark.parametrize("ruleset", list(CASES))
def test_a_duel_lists_the_rows_it_rests_on(ruleset, capsys):
    path, rows = CASES[ruleset]
    scenario = ["--scenario", str(EXAMPLES / path)]
    assert main(["duel", ruleset, *scenario, "-n", "500", "--seed", "1", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["assumptions"]
    readings, written = split_rows(items)
    assert all(r in written for r in rows), written
    assert readings and not any(ROW_TAG in r for r in readings)
    assert main(["duel", ruleset, *scenario, "-n", "500", "--seed", "1"]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if "written modifier/effect row" in x)
    assert all(r in line for r in rows) and ROW_TAG not in line


@pytest.mark.parametrize("ruleset,preset", [("crt", "duelist"), ("pool", "average")])
def test_no_rows_no_line(ruleset, preset, capsys):
    assert main(["duel", ruleset, "--a", preset, "--b", preset, "-n", "200", "--seed", "1",
                 "--json"]) == 0
    items = json.loads(capsys.readouterr().out)["assumptions"]
    assert split_rows(items)[1] == []


@pytest.mark.filterwarnings("ignore:.*replaces")
def test_only_the_rows_of_the_weapons_in_use_are_listed(capsys):
    """strike-rank: the war pick's row rests on nothing when nobody carries a war pick."""
    rows = ["--rule", "weapons=war pick:modifiers=+1 to attack when target.armour_rank >= 3"]
    assert main(["duel", "strike-rank", *rows, "--a", "skirmisher,weapon=war pick", "--b",
                 "skirmisher", "-n", "200", "--seed", "1", "--json"]) == 0
    assert len(split_rows(json.loads(capsys.readouterr().out)["assumptions"])[1]) == 1
    assert main(["duel", "strike-rank", *rows, "--a", "skirmisher", "--b", "skirmisher",
                 "-n", "200", "--seed", "1", "--json"]) == 0
    assert split_rows(json.loads(capsys.readouterr().out)["assumptions"])[1] == []


SPEC = """
ruleset = "{ruleset}"
description = "rows disclosed"
question = "Do the rows show under Rules used?"
{rules}
[[a]]
{a}
[[b]]
{b}
[[grid.axes]]
field = "{axis}"
values = {values}
[run]
fights = 300
seed = 21
"""

SWEEPS = {
    "crt": dict(rules='[rules]\nextraordinary = false\nhouse_rules = \'shield:+2 to score when '
                      'self.shield != "none" and target.weapon == "two_handed"\'',
                a='preset = "duelist"\nshield = "round"',
                b='preset = "duelist"\nweapon_type = "two_handed"\nstrength = 10',
                axis="a.0.agility", values="[8, 12]",
                row='+2 to score when self.shield != "none" and target.weapon == "two_handed"'),
    "pool": dict(rules="[rules]\nhouse_rules = 'wounded:+1 to defence when self.wound_points "
                       "<= self.max_wound_points // 2'",
                 a='preset = "average"', b='preset = "average"', axis="a.0.fortitude",
                 values="[4, 5]",
                 row="+1 to defence when self.wound_points <= self.max_wound_points // 2"),
    "strike-rank": dict(rules='[[rules.weapons."war pick".modifiers]]\nto = "attack"\n'
                              'amount = 1\nwhen = "target.armour_rank >= 3"',
                        a='preset = "skirmisher"\nweapon = "war pick"',
                        b='preset = "skirmisher"', axis="b.0.armour",
                        values="[{head = 0, arms = 0, torso = 0, legs = 0}, "
                               "{head = 0, arms = 0, torso = 4, legs = 0}]",
                        row="+1 to attack when target.armour_rank >= 3"),
    "zones": dict(rules='[rules.weapons.bola]\nlike = "thrown"\ndamage = 1\nammunition = 3\n'
                        'effects = ["on success inflict entangled for 1d3 rounds", '
                        '"on attack spend 1 ammunition"]',
                  a='ranged = "bola"\nagility = 3\npolicy = "skirmish"', b='name = "raider"',
                  axis="rules.initial_gap", values='["short", "medium"]',
                  row="on success inflict entangled on target for 1d3 rounds"),
}


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", list(SWEEPS))
def test_a_report_lists_the_rows_under_rules_used(ruleset, tmp_path, capsys):
    case = SWEEPS[ruleset]
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(ruleset=ruleset, **{k: v for k, v in case.items()
                                                    if k != "row"}))
    run = tmp_path / "run"
    assert main(["sweep", str(spec), "--out", str(run), "-q", "--executor", "serial"]) == 0
    assert main(["report", str(run)]) == 0
    capsys.readouterr()
    report = (run / "report" / "report.md").read_text()
    rules_used = report.split("## Rules used")[1].split("\n## ")[0]
    assert "Modifier and effect rows written for these fights" in rules_used
    assert case["row"] in html.unescape(rules_used), rules_used
    question = report.split("## The question")[1].split("\n## ")[0]
    assert "modifier/effect row" in question


@pytest.mark.parametrize("line", [
    "+1 to attack when target.moved",
    "-2 to attack",
    "1d3 to damage when round == 1",
    "on success inflict entangled on target for 1d3 rounds",
    "on hit inflict slowed on self until removed when self.wounds > 0",
    "on attack spend 1 ammunition by self",
])
def test_the_one_line_form_reads_back_as_the_same_row(line):
    """``line()`` is the form the one-line reader takes: reading it back gives the row."""
    from balance.rulesets import resolve

    words = resolve("zones").vocabulary()
    read = words.effect if line.startswith("on ") else words.modifier
    row = read(line, name="r")
    assert row.line() == line
    assert read(row.line(), name="r") == row


def test_the_explorer_shows_the_rows_apart_from_the_readings():
    from types import SimpleNamespace

    from balance.explorer.view import _rests_on

    answer = SimpleNamespace(policies=(), why_not_exact=None, assumptions=(
        "es2_mode='roller_fails' [AMBIG]",
        f"house rule shield: +2 to score when round == 1 {ROW_TAG}"))
    shown = _rests_on(answer)
    assert "rests on 1 DEFAULT / AMBIG readings" in shown
    assert "rests on 1 written modifier/effect row<" in shown
    assert "house rule shield: +2 to score when round == 1</code>" in shown
