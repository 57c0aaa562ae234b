"""Content as data (issue 13 point 1): weapons, missile weapons and styles are named rows of
rule parameters; a designer changes a column or adds a row by name, in TOML or on the
command line, and runs it through ``duel``, ``sweep`` and ``matchups``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import balance
from balance import stats
from balance.errors import SpecError
from balance.rulesets.strike_rank import StrikeRank
from balance.rulesets.strike_rank import tables as T
from balance.rulesets.strike_rank.profile import profile, total
from balance.rulesets.strike_rank.rules import Combatant, Rules
from balance.testing import kernel_counts, reference_counts

RS = StrikeRank()
RULES = Rules()

WAR_HAMMER = {"like": "hammer", "blow": 2, "parry": 10, "strength": 10}
DUELLIST = {"like": "swashbuckler", "weapons": [["kind=blade", 0], ["weapon=war hammer", -5],
                                                ["any", -15]],
            "skill_mod": 2}
RULE_TOML = """
[rules.weapons."war hammer"]   # a new weapon: the hammer's row with three columns changed
like = "hammer"
blow = 2
parry = 10
strength = 10

[rules.weapons."long sword"]   # one column of a table row changed
swing = 1

[rules.styles.duellist]        # a new style: the Swashbuckler's row, other weapon clauses
like = "swashbuckler"
weapons = [["kind=blade", 0], ["weapon=war hammer", -5], ["any", -15]]
skill_mod = 2
"""

PRESETS_TOML = """
[presets.duellist]
style = "duellist"
weapon = "rapier"
[presets.hammerer]
preset = "skirmisher"
weapon = "war hammer"
"""


# --- rows and columns -------------------------------------------------------------------------


def test_weapons_are_named_rows_with_named_columns() -> None:
    assert RULES.weapons["long sword"]["thrust"] == 1
    assert RULES.weapons["great axe"]["thrust"] == "NA"  # the source's own word
    assert set(RULES.weapons["rapier"]) == set(T.WEAPON_COLUMNS)
    assert RULES.weapon("great axe").thrust is None
    assert set(RULES.missile_weapons["crossbow"]) == set(T.MISSILE_COLUMNS)
    assert RULES.styles["shieldman"]["mechanics"] == ("shield_step",)
    assert RULES.style("gladiator").solo and RULES.style("legionnaire").group == "group"


def test_a_column_is_changed_without_restating_the_row() -> None:
    rules = Rules(weapons={"long sword": {"swing": 1}})
    assert rules.weapon("long sword").swing == 1
    assert rules.weapon("long sword").thrust == 1 and rules.weapon("rapier") == RULES.weapon("rapier")
    assert set(rules.weapons) == set(RULES.weapons)


def test_a_new_weapon_and_style_by_name() -> None:
    rules = Rules(weapons={"war hammer": WAR_HAMMER}, styles={"duellist": DUELLIST})
    hammer = rules.weapon("war hammer")
    assert (hammer.thrust, hammer.swing, hammer.blow, hammer.parry, hammer.kind) == (-2, -1, 2, 10, "club")
    duellist = rules.style("duellist")
    assert duellist.solo and duellist.has("armour_rank_limit")  # the Swashbuckler's own
    blade = profile(Combatant(style="duellist", weapon="long sword"), rules)
    assert blade.weapon_mod == 0 and blade.solo
    assert ("duellist style", 2) in blade.attack_parts(blade)
    club = profile(Combatant(style="duellist", weapon="war hammer", strength=12), rules)
    assert club.weapon_mod == -5
    assert profile(Combatant(style="duellist", weapon="battle axe", strength=12),
                   rules).weapon_mod == -15
    # a style composed of the mechanics that exist: a group spearman with the Shieldman's step
    phalanx = {"group": "group", "weapons": [["spear", 0], ["any", -10]], "missiles": [],
               "buckler": 0, "shield": 0, "skill_mod": 0, "aim_doubled": False,
               "mechanics": ["shield_step"]}
    rules2 = Rules(styles={"phalanx": phalanx})
    p = profile(Combatant(style="phalanx", weapon="spear", shield="medium"), rules2)
    assert p.group and p.step(0) == T.SHIELDMAN_STEP and p.shieldman_shield
    assert total(p.parry_parts(p, 1)) == 30 + 10


def test_bad_rows_name_the_column() -> None:
    with pytest.raises(SpecError, match=r"^weapons\.pike: lacks column"):
        Rules(weapons={"pike": {"thrust": 2}})
    with pytest.raises(SpecError, match=r'^weapons\."long sword"\.speed: must be an integer'):
        Rules(weapons={"long sword": {"speed": "fast"}})
    with pytest.raises(SpecError, match="unknown column"):
        Rules(weapons={"long sword": {"edge": 3}})
    with pytest.raises(SpecError, match=r"^weapons\.pike\.like: 'mace' is not a row"):
        Rules(weapons={"pike": {"like": "mace"}})
    with pytest.raises(SpecError, match="allows no attack type"):
        Rules(weapons={"long sword": {"thrust": "NA", "swing": "NA", "blow": "NA"}})
    with pytest.raises(SpecError, match=r"^styles\.ninja\.mechanics: must be a list of"):
        Rules(styles={"ninja": {"like": "assassin", "mechanics": ["invisible"]}})
    with pytest.raises(SpecError, match=r"^styles\.ninja\.weapons: unknown weapon test 'sharp'"):
        Rules(styles={"ninja": {"like": "assassin", "weapons": [["sharp", 0], ["any", -5]]}})
    with pytest.raises(SpecError, match=r"^styles\.ninja\.weapons: must end with an 'any' clause"):
        Rules(styles={"ninja": {"like": "assassin", "weapons": [["kind=blade", 0]]}})
    with pytest.raises(SpecError, match="names weapon 'mace'"):
        Rules(gladiator_weapons=("mace",))
    with pytest.raises(SpecError, match="'weapon' must be a row of rules 'weapons'"):
        profile(Combatant(weapon="mace"), RULES)


# --- from the command line and from TOML --------------------------------------------------------


def test_command_line_rows(cli) -> None:
    rules = RS.rules(weapons="war hammer:like=hammer/blow=2/parry=10/strength=10",
                     styles="duellist:like=swashbuckler/weapons=kind=blade:0;any:-15/skill_mod=2")
    assert rules.weapon("war hammer").blow == 2
    assert rules.style("duellist").weapons == (("kind=blade", 0), ("any", -15))
    code, out, _ = cli("duel", "strike-rank", "--a", "style=duellist,name=duellist",
                       "--b", "skirmisher,weapon=war hammer", "--rule",
                       "weapons=war hammer:like=hammer/blow=2/parry=10/strength=10",
                       "--rule", "styles=duellist:like=swashbuckler/skill_mod=2",
                       "-n", "2000", "--seed", "1", "--json")
    assert code == 0 and json.loads(out)["n"] == 2000
    code, _, err = cli("duel", "strike-rank", "--a", "skirmisher,weapon=mace",
                       "--b", "skirmisher", "-n", "100")
    assert code == 2 and err.startswith("balance: error:") and "'weapon'" in err


def test_scenario_toml_adds_a_weapon_and_a_style(tmp_path: Path,
                                                  cli) -> None:
    path = tmp_path / "duellist.toml"
    path.write_text('description = "a duellist against a war hammer"\n' + RULE_TOML + """
[[a]]
style = "duellist"
weapon = "rapier"
[[b]]
preset = "skirmisher"
weapon = "war hammer"
""")
    scenario = RS.load_scenario(path)
    rules = RS.rules(scenario.rules)
    assert rules.weapon("war hammer").blow == 2 and rules.weapon("long sword").swing == 1
    s = balance.duel("strike-rank", scenario.side_a, scenario.side_b, rules=rules, n=2000, seed=1)
    assert s.n == 2000
    code, out, err = cli("log", "strike-rank", "--scenario", str(path), "--seed", "3")
    assert code == 0, err
    assert "+2 duellist style" in out and "war hammer" in out


def test_matchups_runs_a_new_weapon_and_style(tmp_path: Path,
                                             cli) -> None:
    """Issue 13's done-when: a weapon and a style added as data, run through ``matchups``
    (the entrants from a presets file, the rows from ``--rule``) and through a round-robin
    sweep whose spec holds the rows, the presets and the grid in TOML only."""
    presets = tmp_path / "presets.toml"
    presets.write_text(PRESETS_TOML)
    code, out, err = cli("matchups", "strike-rank", "--presets", str(presets),
                         "--entrants", "duellist,hammerer,skirmisher", "-n", "1000",
                         "--seed", "1", "--rule",
                         "weapons=war hammer:like=hammer/blow=2/parry=10/strength=10",
                         "--rule", "styles=duellist:like=swashbuckler/skill_mod=2", "--json")
    assert code == 0, err
    assert "duellist" in out and "hammerer" in out
    spec = tmp_path / "round-robin.toml"
    spec.write_text("""
description = "a new style and weapon in a round robin"
question = "How do the duellist and the war hammer fare?"
ruleset = "strike-rank"
""" + RULE_TOML + PRESETS_TOML + """
[[a]]
preset = "skirmisher"
[[b]]
preset = "skirmisher"

[grid]
combine = "product"
[[grid.axes]]
field = "a.0.preset"
values = ["duellist", "hammerer"]
[[grid.axes]]
field = "b.0.preset"
values = ["duellist", "hammerer", "skirmisher"]

[run]
fights = 1000
seed = 5
[outputs]
tables = ["csv"]
[[outputs.plots]]
kind = "matchup"
x = "b.0.preset"
y = "a.0.preset"
""")
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert len(table) == 6 and (table["n"] == 1000).all()


# --- kernel against reference with designer rows ----------------------------------------------


def test_kernel_agrees_with_reference_on_designer_rows() -> None:
    # threshold fixed in advance: p > 1e-3 (as test_agreement)
    rules = RS.rules(weapons={"war hammer": WAR_HAMMER}, styles={"duellist": DUELLIST})
    a = RS.side("style=duellist,weapon=war hammer,strength=12,name=duellist")
    b = RS.side("skirmisher")
    RS.check_sides(rules, a, b)
    kernel = kernel_counts(RS, rules, a, b, 60_000, seed=31)
    reference = reference_counts(RS, rules, a, b, 2500, seed=32)
    assert stats.chi2_homogeneity(kernel, reference) > 1e-3
    out = RS.simulate(rules, a, b, n=2000, rng=np.random.default_rng(1))
    assert len(out) == 2000
