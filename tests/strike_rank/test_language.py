"""strike-rank rows in the rules language (issue 21): the issue's war pick example through
every command, static rows folded into the tables, per-fight rows in the kernel, the
narrated log, the race model, and the names the docs list."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import balance
from balance.rulesets.strike_rank import StrikeRank
from balance.rulesets.strike_rank import kernel as K
from balance.rulesets.strike_rank.conditions import vocabulary
from balance.rulesets.strike_rank.policy import matchup_setup

# the rows here change built-in rows on purpose (the warning is tested through the CLI)
pytestmark = pytest.mark.filterwarnings("ignore::balance.fields.RowReplaced")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "strike-rank-war-pick.toml"
SPEC = ROOT / "examples" / "strike-rank-war-pick-spec.toml"
RS = StrikeRank()
WAR_PICK = "weapons=war pick:modifiers=+1 to attack when target.armour_rank >= 3"


def _rows(**weapons: Any) -> Any:
    return RS.rules({"weapons": {"war pick": weapons}})


# --- the example, through duel, log, matchups, sweep and report --------------------------------
def test_example_runs_through_duel_and_log(cli) -> None:
    code, out, err = cli("duel", "strike-rank", "--scenario", str(EXAMPLE), "-n", "2000",
                         "--seed", "1")
    assert code == 0, err
    assert "A wins" in out
    code, out, err = cli("log", "strike-rank", "--scenario", str(EXAMPLE), "--seed", "1")
    assert code == 0, err
    # the log names the modifier that fired and why
    assert ("+1 war pick against heavy armour when target.armour_rank >= 3 "
            "(target.armour_rank is 3)") in out


@pytest.mark.parametrize("rules", [["--rules", str(EXAMPLE)], ["--rule", WAR_PICK]],
                         ids=["file", "one-line"])
def test_example_runs_a_round_robin(cli, rules: list[str]) -> None:
    code, out, err = cli("matchups", "strike-rank", *rules,
                         "--entrant", "skirmisher,weapon=war pick,armour=torso:3",
                         "--entrant", "skirmisher,armour=torso:3", "-n", "400", "--seed", "2")
    assert code == 0, err
    assert "war pick" in out


def test_show_prints_the_row_with_its_modifier(cli) -> None:
    code, out, err = cli("show", "strike-rank", "weapons", "war pick", "--rules", str(EXAMPLE))
    assert code == 0, err
    assert 'when = "target.armour_rank >= 3"' in out


def test_example_spec_sweeps_into_a_report_with_a_verdict(cli, tmp_path: Path) -> None:
    spec = tomllib.loads(SPEC.read_text())
    spec["run"]["fights"] = 1500
    spec["grid"]["axes"][0]["values"] = ["war pick", "war pick (Table 18)"]
    spec["grid"]["axes"][1]["values"] = spec["grid"]["axes"][1]["values"][2:4]
    run = tmp_path / "run"
    balance.sweep(spec, out=run, executor="serial")
    code, _, err = cli("report", str(run), "--out", str(tmp_path / "report"))
    assert code == 0, err
    text = (tmp_path / "report" / "report.md").read_text()
    verdict = text.split("## Verdict", 1)[1].split("##", 1)[0]
    assert "War pick" in verdict


# --- reading rows --------------------------------------------------------------------------------
def test_one_line_and_table_rows_are_the_same_row() -> None:
    table = _rows(modifiers=[{"to": "attack", "amount": 1, "when": "target.armour_rank >= 3"}])
    line = _rows(modifiers="+1 to attack when target.armour_rank >= 3")
    assert table.language("weapons", "war pick") == line.language("weapons", "war pick")
    assert not RS.rules().has_language


def test_words_of_style_and_weapon_are_the_rules_rows() -> None:
    rules = RS.rules({"styles": {"duellist": {"like": "swashbuckler", "modifiers": [
        {"to": "attack", "amount": 2, "when": 'target.style == "duellist"'}]}}})
    assert "duellist" in rules.vocabulary().names["target.style"].choices
    with pytest.raises(balance.SpecError, match="never \"dualist\""):
        RS.rules({"styles": {"duellist": {"like": "swashbuckler", "modifiers": [
            {"to": "attack", "amount": 2, "when": 'target.style == "dualist"'}]}}})


# --- static rows are folded: the same tables as a flat modifier, no per-round work -------------
def test_a_static_row_is_folded_into_the_kernel_tables() -> None:
    a, b = RS.side("skirmisher,weapon=war pick"), RS.side("knight")
    plain = K._static(RS.rules(), a, b)
    ruled = K._static(_rows(modifiers="+1 to attack when target.armour_rank >= 3"), a, b)
    assert ruled.lang is None  # nothing evaluated per round
    assert ruled.attack_total[0][1] == plain.attack_total[0][1] + 1  # the knight: rank 3
    assert ruled.attack_total[1][0] == plain.attack_total[1][0]
    # against an unarmoured foe it does not hold
    c = RS.side("skirmisher")
    assert (K._static(_rows(modifiers="+1 to attack when target.armour_rank >= 3"), a, c)
            .attack_total[0][1] == K._static(RS.rules(), a, c).attack_total[0][1])
    # a weapon row's parry modifier: weapon parries, not the shield's
    shield = _rows(modifiers="+2 to parry")
    knight, pick = RS.side("knight,weapon=war pick,shield=none,strength=14"), a
    tables = K._static(shield, pick, knight).defence_total
    base = K._static(RS.rules(), pick, knight).defence_total
    assert tables[0][0][1] == base[0][0][1] + 2


def test_head_counts_are_fixed_in_a_duel_and_per_fight_in_groups() -> None:
    rules = RS.rules({"styles": {"skirmisher": {"modifiers": "-5 to attack when foes_engaged >= 2"}}})
    assert K._static(rules, RS.side("skirmisher"), RS.side("gladiator")).lang is None
    groups = K._static(rules, RS.side("gladiator"), RS.side(["skirmisher", "skirmisher"]))
    assert groups.lang is not None and "attack" in groups.lang


def test_per_fight_rows_fire_where_they_hold() -> None:
    """A row on the first round only: in a round-1-only world it changes the outcome; a
    condition that never holds changes nothing (same seed, same fights)."""
    a, b = RS.side("skirmisher"), RS.side("skirmisher")
    base = RS.simulate(RS.rules(), a, b, n=4000, rng=np.random.default_rng(5))
    never = RS.rules({"weapons": {"long sword": {"modifiers": "+20 to attack when round == 0"}}})
    same = RS.simulate(never, a, b, n=4000, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(base.winner, same.winner)
    first = RS.rules({"weapons": {"long sword": {"modifiers": "+20 to attack when round == 1"}}},
                     max_rounds=1, range_rounds=0)
    out = RS.simulate(first, a, b, n=4000, rng=np.random.default_rng(5))
    plain = RS.simulate(RS.rules(max_rounds=1, range_rounds=0), a, b, n=4000, rng=np.random.default_rng(5))
    assert (out.winner != 0).mean() > (plain.winner != 0).mean() + 0.2


# --- the race model behind attack_policy=best sees the rows ---------------------------------------
def test_the_race_model_sees_a_damage_row() -> None:
    """A battle axe that does +6 damage against a knight's armour: the model's attack type
    changes, and a per-fight row with the same value (read at the model's round 2) gives
    the same choice as the static one."""
    a, b = RS.side("skirmisher,weapon=battle axe,strength=12"), RS.side("knight")

    def choice(when: str) -> int:
        rules = RS.rules({"weapons": {"battle axe": {"modifiers": [
            {"to": "damage", "amount": 6, "when": when}]}}})
        return matchup_setup(rules, a, b)[2][0][1][0]

    plain = matchup_setup(RS.rules(), a, b)[2][0][1][0]
    assert choice("target.armour_rank >= 3") != plain
    assert choice("round >= 2") == choice("target.armour_rank >= 3")
    assert choice("round == 1") == plain  # the model reads round 2


# --- effects ------------------------------------------------------------------------------------
def test_an_effect_is_narrated_and_disarms() -> None:
    rules = _rows(effects="on hit inflict disarmed")
    lines: list[str] = []
    for seed in range(20):
        RS.fight(rules, RS.side("skirmisher,weapon=war pick"), RS.side("skirmisher"),
                 rng=np.random.default_rng(seed), log=lines.append)
    assert any(line.strip() == "war pick: disarmed on target until removed" for line in lines)
    assert any("recovering its weapon" in line for line in lines)


# --- docs: the names listed in docs/strike-rank.md are the vocabulary's ----------------------------
@pytest.mark.parametrize(("page", "marker"), [("strike-rank.md", "names"),
                                              ("rules-language.md", "strike-rank names")])
def test_docs_list_the_vocabulary(page: str, marker: str) -> None:
    text = (ROOT / "docs" / page).read_text()
    block = re.search(rf"<!-- {marker}: generated.*?-->\n(.*?)\n<!-- end {marker} -->", text,
                      re.S)
    assert block is not None
    assert block.group(1).strip() == vocabulary().names.markdown().strip()
