"""The command line for strike-rank: its tags, narration and own bad input.  What every
ruleset's command line does is tested once in ``tests/core/test_cli_all.py``."""

from __future__ import annotations

import json

import pytest

import balance
from balance.errors import SpecError


def test_show_tags(cli) -> None:
    code, out, _ = cli("show", "strike-rank", "--json")
    assert code == 0
    tags = {f["name"]: f["tag"] for f in json.loads(out)["rule_parameters"]}
    assert tags["block_rounding"] == "AMBIG" and tags["rank_ratio"] == "DEFAULT"


def test_log_narrates_a_fight(cli) -> None:
    code, out, _ = cli("log", "strike-rank", "--a", "skirmisher", "--b", "gladiator",
                       "--seed", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Round 1"
    assert any("Strike Rank" in x for x in lines)
    assert any("+5 alone (solo style)" in x for x in lines)
    assert lines[-1].startswith("== side")


@pytest.mark.parametrize(("argv", "words"), [
    (["duel", "strike-rank", "--a", "skirmisher,style=ninja", "--b", "skirmisher"],
     "'style' must be a row of rules 'styles'"),
    (["duel", "strike-rank", "--a", "skirmisher,strength=3", "--b", "skirmisher"],
     "Strength 3 is below the long sword's 8"),
    (["duel", "strike-rank", "--a", "skirmisher,weapon=whip", "--b", "skirmisher"],
     "the whip is a specialist weapon"),
    (["duel", "strike-rank", "--a", "skirmisher,weapon=great axe,attack_policy=thrust",
      "--b", "skirmisher"], "below the great axe's 14"),
    # a side of 7: one more than max_side (6 since issue 14's ranks)
    (["duel", "strike-rank", "--a", "skirmisher", *["--b", "skirmisher"] * 7],
     "side b has 7 combatants; strike-rank allows 1..6"),
    (["log", "strike-rank", "--a", "skirmisher,armour=chest:2", "--b", "skirmisher"],
     "keys: head, arms, torso, legs; got 'chest:2'"),
])
def test_bad_input_is_one_line_and_exit_2(cli, argv: list[str], words: str) -> None:
    code, out, err = cli(*argv)
    assert code == 2 and out == ""
    assert err.startswith("balance: error: ") and err.count("\n") == 1, err
    assert words in err


def test_log_narrates_the_range_phase(cli) -> None:
    code, out, _ = cli("log", "strike-rank", "--a", "archer", "--b", "skirmisher",
                       "--seed", "6")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Round 1 (range: the sides close in 1 more round)"
    assert any("shoots its long bow at skirmisher" in x for x in lines)
    assert any("the sides close: melee from the next round" in x for x in lines)
    code, out, _ = cli("log", "strike-rank", "--a", "archer", "--b", "skirmisher",
                       "--seed", "6", "--rule", "range_rounds=0")
    assert code == 0 and out.splitlines()[0] == "Round 1" and "shoots" not in out
    code, _, err = cli("duel", "strike-rank", "--a", "archer,weapon=long bow",
                       "--b", "skirmisher", "-n", "100")
    assert code == 2 and "weapon" in err


def test_a_bad_entry_in_a_table_field_is_one_line(tmp_path, cli) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[[a]]\npreset = "skirmisher"\narmour = {head = "x", arms = 0, '
                        'torso = 0, legs = 0}\n[[b]]\npreset = "skirmisher"\n')
    code, _, err = cli("duel", "strike-rank", "--scenario", str(scenario), "-n", "100")
    assert code == 2
    assert "field 'armour.head' must be an integer (0..6), got 'x'" in err
    with pytest.raises(SpecError, match=r"'hit_table.head' must be an integer"):
        balance.get("strike-rank").Rules(hit_table={**balance.get("strike-rank").Rules()
                                                    .hit_table, "head": 2.5})
