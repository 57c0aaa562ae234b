"""`balance show`: the names a ruleset's rules may read, one rules table or row with its
provenance, and the one-line warning when a row given replaces a built-in one."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.fields import RowReplaced, build, replaced_rows
from balance.rulesets.crt import Rules as CrtRules
from balance.rulesets.strike_rank import Rules as SrRules

ROOT = Path(__file__).resolve().parents[2]
SHIELD = ROOT / "examples" / "crt-shield.toml"


@pytest.mark.parametrize("ruleset", ["crt", "pool"])
def test_show_lists_the_names_rules_may_read(capsys, ruleset):
    assert main(["show", ruleset]) == 0
    out = capsys.readouterr().out
    vocabulary = balance.get(ruleset).vocabulary()
    listing = out.split("what conditions, modifiers and effects may name\n")[1]
    assert listing.splitlines() == ["  " + line for line in vocabulary.lines()]
    assert "self.wound_points: a whole number 1..4950" in out or ruleset == "crt"
    assert "target.weapon: one of \"one_handed\", \"two_handed\", \"unarmed\"" in out \
        or ruleset == "pool"


def test_show_json_carries_the_language(capsys):
    assert main(["show", "crt", "--json"]) == 0
    language = json.loads(capsys.readouterr().out)["language"]
    assert {n["name"] for n in language["names"]} >= {"self.health", "target.weapon", "round"}
    assert set(language["targets"]) == {"score", "damage"}


def test_show_a_table_with_each_rows_provenance(capsys):
    assert main(["show", "crt", "shield_block", "--rule", "shield_block=large:4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("crt rules table shield_block  [DEFAULT]: a scored stroke")
    assert lines[1:] == ["  none = 0  (built-in [DEFAULT])", "  buckler = 1  (built-in [DEFAULT])",
                         "  round = 2  (built-in [DEFAULT])",
                         "  large = 4  (--rule; replaces the built-in row)"]


def test_show_one_row_given_by_a_file(capsys):
    assert main(["show", "crt", "house_rules", "shield_against_two_handed", "--rules",
                 str(SHIELD)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == f"  shield_against_two_handed  (from {SHIELD})"
    assert out[2] == '    doc = "a shield adds 2 to the score against a two-handed weapon"'
    assert out[3] == ("    modifiers[0] = {to = \"score\", amount = 2, when = 'self.shield != "
                      "\"none\" and target.weapon == \"two_handed\"'}")
    assert main(["show", "crt", "house_rules", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["rows"] == [] and shown["tag"] == "TEXT"


def test_show_strike_rank_rows_built_in_and_replaced(capsys, tmp_path):
    (tmp_path / "r.toml").write_text('[rules.weapons."war pick"]\nthrust = 3\n'
                                     "[rules.weapons.morningstar]\nlike = \"mattock\"\n")
    assert main(["show", "strike-rank", "weapons", "war pick", "--rules",
                 str(tmp_path / "r.toml"), "--json"]) == 0
    out, err = capsys.readouterr()
    (row,) = json.loads(out)["rows"]
    assert row["provenance"] == f"from {tmp_path / 'r.toml'}; replaces the built-in row"
    assert row["value"]["thrust"] == 3
    assert err.splitlines() == [
        "balance: warning: strike-rank rules 'weapons.war pick' replaces the built-in row "
        f"'war pick' ({_short_war_pick()}) [SRC]; give the row a new name to add one instead"]
    assert main(["show", "strike-rank", "weapons", "morningstar", "--rules",
                 str(tmp_path / "r.toml"), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["provenance"] == f"from {tmp_path / 'r.toml'}"  # a new row: no warning


def _short_war_pick() -> str:
    from balance.fields import _short

    return _short(SrRules().weapons["war pick"])


def test_replaced_rows_names_only_rows_that_change_a_built_in_one():
    war_pick = dict(SrRules().weapons["war pick"])
    assert replaced_rows(SrRules, {"weapons": {"war pick": {"thrust": war_pick["thrust"]}}}) \
        == []  # given as it was: nothing replaced
    assert replaced_rows(SrRules, {"weapons": {"new pick": {"like": "war pick"}}}) == []
    assert replaced_rows(SrRules, {"weapons": SrRules().weapons}) == []  # a saved spec
    (line,) = replaced_rows(SrRules, {"weapons": {"war pick": {"thrust": 3}}})
    assert "'weapons.war pick' replaces the built-in row 'war pick'" in line
    # tables of fixed keys are changed, not added to: no warning
    assert replaced_rows(CrtRules, {"shield_block": {"large": 4}}) == []


def test_build_warns_once_per_row(recwarn):
    warnings.simplefilter("always")
    build(SrRules, {"weapons": {"war pick": {"thrust": 3}}})
    build(SrRules, {"weapons": {"war pick": {"thrust": 3}, "cleaver": {"thrust": 5}}})
    rows = [str(w.message).split("'")[1] for w in recwarn.list
            if issubclass(w.category, RowReplaced)]
    assert rows == ["weapons.war pick", "weapons.war pick", "weapons.cleaver"]


def test_a_rule_file_runs_through_matchups(capsys):
    words = ["matchups", "crt", "--rules", str(SHIELD), "--entrant", "duelist,shield=round",
             "--entrant", "duelist,weapon_type=two_handed,strength=10", "--method", "exact",
             "--resamples", "10", "--json"]
    assert main([*words, "--rule", "extraordinary=false"]) == 0
    with_rule = json.loads(capsys.readouterr().out)["matchups"]
    assert main([*words[:2], *words[4:], "--rule", "extraordinary=false"]) == 0
    without = json.loads(capsys.readouterr().out)["matchups"]
    first = [r["a_win"] for r in with_rule]
    assert first != [r["a_win"] for r in without]
