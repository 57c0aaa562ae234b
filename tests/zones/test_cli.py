"""The command line for zones: the gate's narration, scenarios and battlefields by TOML file,
and zones' own bad input.  What every ruleset's command line does is tested once in
``tests/core/test_cli_all.py``."""

from __future__ import annotations

import json
import textwrap

import pytest

from .test_gate_timeline import SEED as GATE_SEED

CUSTOM = textwrap.dedent("""
    description = "a ford: a hazard chokepoint between two banks"

    [battlefield]
    name = "ford"
    zones = [{name = "bank"}, {name = "ford", hazard = true, chokepoint = 2},
             {name = "far bank", cover = true}]
    adjacent = [["bank", "ford"], ["ford", "far bank"]]
    front_a = "bank"
    front_b = "far bank"

    [rules]
    initial_gap = "short"
    map = [0, -3, -5]

    [[a]]
    name = "warden"
    zone = "ford"
    policy = "hold"
    shield = true

    [[a]]
    preset = "archer"
    zone = "bank"

    [[b]]
    preset = "raider"

    [[b]]
    preset = "heavy"
""")


def test_log_of_the_gate_follows_the_seed_timeline(cli):
    # the documented example seed; tests/zones/test_gate_timeline.py checks each step
    code, out, err = cli("log", "zones", "--scenario", "gate", "--seed", str(GATE_SEED))
    assert code == 0, err
    events = [
        "Round 1",
        "raider 1 Moves: the approach, medium band out -> the approach, short band out",
        "raider 1 Moves toward gate (band, 1/2 Moves)",          # the third Move banks
        "raider 2 Moves toward gate (band, 1/2 Moves)",
        "Doran Defends, holding its ground (1)", "Doran waits",  # one action on Defend
        "Wick Defends, holding its ground (1)", "Wick waits",
        "Toma shoots (short_bow) at raider 1",
        "target moved 1",                                         # -1 to shoot a mover
        "Round 2",
        "raider 1 (B, 7/8 HP) activates in the approach, short band out with a banked Move",
        "raider 1 Moves: the approach, short band out -> gate (band, 2 Moves)",
        "contact: raider 1 closes into Doran, Wick, Toma",
        "raider 1 Disengages (Maneuver)",                         # not Doran's free Strike
        "raider 1 Moves: gate -> keep-yard (shift, 1 Move)",
        "Sela shoots (spell) at raider 1 in keep-yard, 0 steps away",
        "contact: raider 2 closes into Doran, Wick, Toma",
        "raider 2 strikes Wick in gate",                          # trading with Wick
        "Wick strikes raider 2 in gate",
        "= 13: Success",
        "Wick strikes raider 2 in gate",
        "- MAP 2 + outnumbering 1 - Defence 1 = 11: Partial",
        "Round 3",
        "raider 2 is Down",                                       # the round after it came
        "Wick Moves: gate -> keep-yard",                          # Wick following
        "raider 1 is Down",
        "== side A wins after 4 rounds (down)",
    ]
    at = 0
    for event in events:
        found = out.find(event, at)
        assert found >= 0, f"{event!r} missing after position {at}"
        at = found + 1
    assert "free Strike" not in out


def test_a_scenario_duel_discloses_the_ladder(cli):
    code, out, err = cli("duel", "zones", "--scenario", "skirmish", "-n", "500",
                         "--seed", "1", "--json")
    assert code == 0, err
    assert any(a.startswith("ladder=") for a in json.loads(out)["assumptions"])


def test_duel_and_log_by_scenario_file(cli, tmp_path):
    path = tmp_path / "ford.toml"
    path.write_text(CUSTOM)
    code, out, err = cli("duel", "zones", "--scenario", str(path), "-n", "2000",
                         "--seed", "2", "--json")
    assert code == 0, err
    assert json.loads(out)["rules"]["battlefield"]["name"] == "ford"
    code, out, err = cli("log", "zones", "--scenario", str(path), "--seed", "3")
    assert code == 0, err
    assert "zones on ford" in out and "warden (A) starts in ford" in out


def test_battlefield_from_a_toml_file_by_rule(cli, tmp_path):
    path = tmp_path / "map.toml"
    path.write_text(CUSTOM)
    code, _, err = cli("duel", "zones", "--a", "soldier", "--b", "raider",
                       "--rule", f"battlefield={path}", "-n", "1000", "--seed", "1")
    assert code == 0, err


def test_exact_duel(cli):
    code, out, err = cli("exact", "zones", "--a", "might=2", "--b", "shield=true",
                         "--rule", "initial_gap=contact", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["a_win"] + data["b_win"] + data["draw"] == pytest.approx(1.0)


def test_show_lists_parameters_with_tags(cli):
    code, out, err = cli("show", "zones")
    assert code == 0, err
    for text in ("battlefield", "ladder = [9, 12, 17]  [DEFAULT]", "map = [0, -2, -4]",
                 "shift_speed_rule", "gate:", "End causes: down, stalemate, max_rounds"):
        assert text in out


@pytest.mark.parametrize(("argv", "message"), [
    (["duel", "zones", "--a", "soldier", "--b", "raider", "--rule", "ladder=9,14,17"],
     "13 a Success"),
    (["duel", "zones", "--a", "soldier", "--b", "raider", "--rule", "battlefield=nowhere"],
     "unknown zones battlefield"),
    (["duel", "zones", "--a", "zone=moon", "--b", "raider"], "not on the battlefield"),
    (["duel", "zones", "--a", "policy=guard,guard=nobody", "--b", "raider"], "not an ally"),
    (["duel", "zones", "--a", "might=7", "--b", "raider"], "might"),
    (["duel", "zones", "--a", "soldier", "--b", "raider", "--rule", "initial_gap=far"],
     "initial_gap"),
    (["duel", "zones", "--a", "soldier", "--b", "raider", "--rule", "stress=true"], "stress"),
    (["exact", "zones", "--a", "soldier", "--a", "soldier", "--b", "raider"], "1-against-1"),
    (["exact", "zones", "--a", "soldier", "--b", "raider"], "one location"),
])
def test_bad_input_exits_2_with_one_line(cli, argv, message):
    code, out, err = cli(*argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("balance: error:")
    assert message in err


@pytest.mark.parametrize(("text", "message"), [
    ("[[a]]\nname = ", "not valid TOML"),
    (CUSTOM.replace("hazard = true", "lava = true"), "unknown zone key"),
    (CUSTOM.replace('front_b = "far bank"', 'front_b = "sea"'), "front_b"),
    (CUSTOM.replace('zone = "ford"', 'zone = "sea"'), "not on the battlefield"),
    (CUSTOM + "\n[weather]\nrain = true\n", "unknown key"),
    (CUSTOM.replace("[[b]]\npreset = \"raider\"\n\n[[b]]\npreset = \"heavy\"\n", ""),
     "[[b]] must list"),
])
def test_bad_scenario_files_exit_2(cli, tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    code, _, err = cli("duel", "zones", "--scenario", str(path), "-n", "100")
    assert code == 2
    assert message in err and str(path) in err


def test_missing_scenario_file_exits_2(cli, tmp_path):
    code, _, err = cli("log", "zones", "--scenario", str(tmp_path / "no.toml"))
    assert code == 2 and "does not exist" in err
