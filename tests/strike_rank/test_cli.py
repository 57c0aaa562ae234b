"""The command line for strike-rank: show, duel, log, exact, bench, and bad input."""

from __future__ import annotations

import json

import pytest

import balance
from balance.cli import main
from balance.errors import SpecError
from balance.rulesets.strike_rank import presets
from balance.rulesets.strike_rank.rules import Rules


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show_lists_every_parameter_with_its_tag(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "strike-rank")
    assert code == 0
    for name in ("block_rounding", "carry_mode", "tie_rule", "overpower_menu", "hold_policy",
                 "wound_code_table", "armour_block_base_penalty", "feral_as"):
        assert f"  {name} = " in out
    assert "[AMBIG]" in out and "[DEFAULT]" in out
    for name in presets.PRESETS:
        assert f"  {name}: " in out
    code, out, _ = run(capsys, "show", "strike-rank", "--json")
    info = json.loads(out)
    tags = {f["name"]: f["tag"] for f in info["rule_parameters"]}
    assert tags["block_rounding"] == "AMBIG" and tags["rank_ratio"] == "DEFAULT"
    assert set(tags) == {f for f in Rules.__dataclass_fields__ if not f.startswith("_")}


def test_duel_prints_rates(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "duel", "strike-rank", "--a", "skirmisher", "--b", "skirmisher",
                       "-n", "20000", "--seed", "1")
    assert code == 0
    assert "A wins" in out and "rests on" in out
    code, out, _ = run(capsys, "duel", "strike-rank", "--a", "knight", "--b", "skirmisher",
                       "--b", "skirmisher", "-n", "3000", "--seed", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["n"] == 3000 and abs(data["a_win"] + data["b_win"] + data["draw"] - 1) < 1e-9
    code, out, _ = run(capsys, "duel", "strike-rank", "--scenario", "legion-2v3", "-n", "3000",
                       "--seed", "1", "--rule", "tie_rule=add_d20")
    assert code == 0


def test_log_narrates_a_fight(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log", "strike-rank", "--a", "skirmisher", "--b", "gladiator",
                       "--seed", "1")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Round 1"
    assert any("Strike Rank" in x for x in lines)
    assert any("+5 alone (solo style)" in x for x in lines)
    assert lines[-1].startswith("== side")
    code, again, _ = run(capsys, "log", "strike-rank", "--a", "skirmisher", "--b", "gladiator",
                         "--seed", "1")
    assert again == out


def test_exact_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "exact", "strike-rank", "--a", "skirmisher", "--b",
                         "skirmisher")
    assert code == 2 and out == ""
    assert err.startswith("balance: error: strike-rank has no exact solution")
    assert err.count("\n") == 1


def test_bench_runs_the_cases(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "--ruleset", "strike-rank", "--case", "skirmisher duel",
                       "--seconds", "0.02", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["case"] for r in rows] == ["skirmisher duel"]
    assert rows[0]["kernel_fights_per_s"] > 0 and rows[0]["reference_fights_per_s"] > 0


@pytest.mark.parametrize("argv", [
    ["duel", "strike-rank", "--a", "ninja", "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher,style=ninja", "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher,skill=500", "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher", "--b", "skirmisher", "--rule", "tie_rule=coin"],
    ["duel", "strike-rank", "--a", "skirmisher", "--b", "skirmisher", "--rule", "nosuch=1"],
    ["duel", "strike-rank", "--a", "skirmisher,strength=3", "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher,weapon=whip", "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher,weapon=great axe,attack_policy=thrust",
     "--b", "skirmisher"],
    ["duel", "strike-rank", "--a", "skirmisher"],
    # a side of 7: one more than max_side (6 since issue 14's ranks)
    ["duel", "strike-rank", "--a", "skirmisher", *["--b", "skirmisher"] * 7],
    ["log", "strike-rank", "--a", "skirmisher,armour=chest:2", "--b", "skirmisher"],
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                          argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("balance: error: ") and err.count("\n") == 1, err


def test_log_narrates_the_range_phase(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "log", "strike-rank", "--a", "archer", "--b", "skirmisher",
                       "--seed", "6")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Round 1 (range: the sides close in 1 more round)"
    assert any("shoots its long bow at skirmisher" in x for x in lines)
    assert any("the sides close: melee from the next round" in x for x in lines)
    code, out, _ = run(capsys, "log", "strike-rank", "--a", "archer", "--b", "skirmisher",
                       "--seed", "6", "--rule", "range_rounds=0")
    assert code == 0 and out.splitlines()[0] == "Round 1" and "shoots" not in out
    code, _, err = run(capsys, "duel", "strike-rank", "--a", "archer,weapon=long bow",
                       "--b", "skirmisher", "-n", "100")
    assert code == 2 and "weapon" in err


def test_a_bad_entry_in_a_table_field_is_one_line(tmp_path, capsys) -> None:
    scenario = tmp_path / "bad.toml"
    scenario.write_text('[[a]]\npreset = "skirmisher"\narmour = {head = "x", arms = 0, '
                        'torso = 0, legs = 0}\n[[b]]\npreset = "skirmisher"\n')
    code, _, err = run(capsys, "duel", "strike-rank", "--scenario", str(scenario), "-n", "100")
    assert code == 2
    assert "field 'armour.head' must be an integer (0..6), got 'x'" in err
    with pytest.raises(SpecError, match=r"'hit_table.head' must be an integer"):
        balance.get("strike-rank").Rules(hit_table={**balance.get("strike-rank").Rules()
                                                    .hit_table, "head": 2.5})
