"""One command-line form for every ruleset's table rows (issue 21): ``--rule
TABLE.ROW.COLUMN=VALUE`` (or ``TABLE.ROW=VALUE`` for a row of one value), the key path the
TOML file writes; the older spellings still read; ``balance show RULESET TABLE ROW`` prints
the ``--rule`` arguments of a row, and they give the row back."""

from __future__ import annotations

import json
import shlex
import warnings
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.errors import SpecError
from balance.fields import RowReplaced, plain, read_toml
from balance.rowkeys import arguments, fold, split_key

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def rules(ruleset: str, overrides: dict) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RowReplaced)
        return balance.get(ruleset).rules(overrides)


@pytest.mark.parametrize(("key", "parts"), [
    ("weapons.bola.like", ["weapons", "bola", "like"]),
    ("weapons.war pick.modifiers", ["weapons", "war pick", "modifiers"]),
    ('weapons."war pick".modifiers', ["weapons", "war pick", "modifiers"]),
    ('weapons."a.b".like', ["weapons", "a.b", "like"]),
    ("weapon_damage.sword", ["weapon_damage", "sword"]),
    ("max_rounds", None), ("weapons.", None), ("weapons..like", None), ('weapons."a', None),
])
def test_a_key_path_splits_at_its_dots_outside_quotes(key, parts):
    assert split_key(key) == parts


# (ruleset, the documented form, the same rows written otherwise: TOML or the older form)
SAME = {
    "strike-rank weapon": ("strike-rank", {
        "weapons.war hammer.like": "hammer", "weapons.war hammer.blow": "2",
        "weapons.war hammer.parry": "10",
        "weapons.war hammer.modifiers": "+1 to attack when target.armour_rank >= 3; "
                                        "-1 to parry when self.strength // 2 < 5"},
        {"weapons": "war hammer:like=hammer/blow=2/parry=10/modifiers=+1 to attack when "
                    "target.armour_rank >= 3;-1 to parry when self.strength < 10"}),
    "strike-rank style": ("strike-rank", {"styles.knight.skill_mod": "3"},
                          {"styles": {"knight": {"skill_mod": 3}}}),
    "zones weapon": ("zones", {
        "weapons.bola.like": "thrown", "weapons.bola.ammunition": "3",
        "weapons.bola.effects": "on success inflict entangled for 1d3 rounds; on attack "
                                "spend 1 ammunition"},
        {"weapons": {"bola": {"like": "thrown", "ammunition": 3, "effects": [
            "on success inflict entangled for 1d3 rounds", "on attack spend 1 ammunition"]}}}),
    "zones table of values": ("zones", {"weapon_range.thrown": "short"},
                              {"weapon_range": "thrown:short"}),
    "crt house rule": ("crt", {
        "house_rules.shield.modifiers": '+2 to score when self.shield != "none"',
        "house_rules.shield.doc": "a shield helps"},
        {"house_rules": {"shield": {"doc": "a shield helps", "modifiers": [
            {"to": "score", "amount": 2, "when": 'self.shield != "none"'}]}}}),
    "crt one-line house rule": ("crt", {"house_rules.r": "on wound inflict defend_only for 1 "
                                                         "rounds"},
                                {"house_rules": "r:on wound inflict defend_only for 1 rounds"}),
    "crt table of values": ("crt", {"shield_block.round": "3"}, {"shield_block": "round:3"}),
    "pool house rule": ("pool", {
        "house_rules.shaken.effects": "on hit set target.pool to max(target.pool - 1, 0)"},
        {"house_rules": {"shaken": {"effects": [{"on": "hit", "set": "pool", "who": "target",
                                                 "value": "max(target.pool - 1, 0)"}]}}}),
    "pool table of values": ("pool", {"weapon_damage.sword": "4"},
                             {"weapon_damage": "sword:4"}),
}


def _compiled(ruleset: str, made: object) -> object:
    """What a house-rules table means (its rows compiled), else the rules themselves."""
    if ruleset in ("crt", "pool"):
        from importlib import import_module

        return import_module(f"balance.rulesets.{ruleset}.language").house_rules(made)
    return made


@pytest.mark.parametrize("case", list(SAME))
def test_the_key_path_form_gives_the_rows_the_other_forms_give(case):
    ruleset, keyed, other = SAME[case]
    made, expected = rules(ruleset, keyed), rules(ruleset, other)
    if case == "strike-rank weapon":  # the old form cannot write '//': compare the rest
        row = dict(plain(made.weapons["war hammer"]))
        old = dict(plain(expected.weapons["war hammer"]))
        assert row.pop("modifiers")[1] == "-1 to parry when self.strength // 2 < 5"
        old.pop("modifiers")
        assert row == old and row["blow"] == 2 and row["parry"] == 10
        return
    if "house rule" in case:  # a row's table and its one line mean the same rows
        assert _compiled(ruleset, made) == _compiled(ruleset, expected)
        assert _compiled(ruleset, made)
    else:
        assert made == expected


def test_folding_changes_nothing_it_is_given():
    table = {"bola": {"like": "thrown"}}
    from balance.rulesets.zones import Rules as ZonesRules

    out = fold(ZonesRules, {"weapons": table, "weapons.bola.ammunition": "2"})
    assert out == {"weapons": {"bola": {"like": "thrown", "ammunition": 2}}}
    assert table == {"bola": {"like": "thrown"}}


def test_a_rules_object_keeps_its_other_rows():
    zones = balance.get("zones")
    base = rules("zones", {"weapons.bola.like": "thrown"})
    more = zones.rules(base, **{"weapons.net.like": "thrown"})
    assert set(more.weapons) == {"bola", "net"}


@pytest.mark.parametrize(("ruleset", "key", "words"), [
    ("zones", "weapons.bola.like.x", "a row's column is set as TABLE.ROW.COLUMN=VALUE"),
    ("zones", "weapon_range.thrown.x", "a row of 'weapon_range' is one value, set as "
                                       "weapon_range.thrown=VALUE"),
    ("crt", "shield_block.kite", "table 'shield_block' has no row 'kite'"),
    ("pool", "weapon_damage.sword", "'weapon_damage.sword' must be an integer"),
])
def test_a_bad_key_path_is_one_error_naming_it(ruleset, key, words):
    with pytest.raises(SpecError, match=words.replace("(", r"\(").replace(".", r"\.")):
        balance.get(ruleset).rules({key: "big"})


# --- `balance show RULESET TABLE ROW` prints the form, and the form gives the row back -------
def _back(ruleset: str, table: str, row: str, given: dict) -> tuple[object, object, list[str]]:
    """The row as given, the row its printed ``--rule`` arguments give, and the notes."""
    value = plain(getattr(rules(ruleset, given), table)[row])
    args, notes = arguments(table, row, value)
    overrides = {}
    for arg in args:
        flag, text = shlex.split(arg)
        assert flag == "--rule"
        key, _, cell = text.partition("=")
        overrides[key] = cell
    return rules(ruleset, given), rules(ruleset, overrides), notes


SR_RULES = balance.get("strike-rank").rules()


ROUND_TRIPS = [
    *[("strike-rank", t, r, None) for t in ("weapons", "missile_weapons", "styles")
      for r in getattr(SR_RULES, t)],  # every built-in row
    ("zones", "weapons", "bola", "zones-bola.toml"),
    ("zones", "weapon_damage", "thrown", None),
    ("crt", "house_rules", "shield_against_two_handed", "crt-shield.toml"),
    ("crt", "house_rules", "stagger", "crt-shatter.toml"),
    ("crt", "shield_block", "round", None),
    ("pool", "house_rules", "shaken", "pool-sunder.toml"),
    ("pool", "house_rules", "wounded_defence", "pool-wounded-defence.toml"),
    ("pool", "weapon_damage", "sword", None),
]


@pytest.mark.parametrize(("ruleset", "table", "row", "example"), ROUND_TRIPS,
                         ids=[f"{r}-{t}-{w}" for r, t, w, _ in ROUND_TRIPS])
def test_the_printed_arguments_give_the_row_back(ruleset, table, row, example):
    given = read_toml(EXAMPLES / example)["rules"] if example else {}
    original, back, notes = _back(ruleset, table, row, given)
    assert not notes
    if table == "house_rules":  # a table row and its one line mean the same
        from balance.rulesets import house

        vocabulary = balance.get(ruleset).vocabulary()
        one = [house.read(vocabulary, {row: made.house_rules[row]}) for made in (back, original)]
        assert one[0] == one[1] and one[0]
    else:
        assert plain(getattr(back, table)[row]) == plain(getattr(original, table)[row])


def test_show_prints_the_form_and_what_it_leaves_out(capsys):
    path = EXAMPLES / "strike-rank-war-pick.toml"
    assert main(["show", "strike-rank", "weapons", "war pick", "--rules", str(path)]) == 0
    out = capsys.readouterr().out
    form = out.split("  on the command line:\n")[1].splitlines()
    assert form[0] == "    --rule 'weapons.war pick.thrust=-4'"
    assert ("    --rule 'weapons.war pick.modifiers=+1 to attack when target.armour_rank >= 3'"
            in form)
    assert form[-1] == ("    (modifiers[0]: name = 'war pick against heavy armour' is not in "
                        "the one-line form)")
    assert main(["show", "crt", "shield_block", "round", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert row["command_line"] == ["--rule shield_block.round=2"]


@pytest.mark.parametrize("ruleset", ["strike-rank", "zones", "crt", "pool"])
def test_show_names_a_row_given_by_key_path_as_from_the_command_line(ruleset, capsys):
    table, key, value = {
        "strike-rank": ("weapons", "weapons.war hammer.like", "hammer"),
        "zones": ("weapons", "weapons.bola.like", "thrown"),
        "crt": ("house_rules", "house_rules.r.modifiers", "+1 to score"),
        "pool": ("house_rules", "house_rules.r.modifiers", "+1 to attack"),
    }[ruleset]
    row = split_key(key)[1]
    assert main(["show", ruleset, table, row, "--rule", f"{key}={value}"]) == 0
    assert f"  {row}  (--rule)" in capsys.readouterr().out
