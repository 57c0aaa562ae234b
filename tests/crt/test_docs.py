"""Every figure docs/crt.md quotes, reproduced by the command or call it quotes.

Each test also checks that the page still says what the test reproduces, so the page and
the numbers cannot drift apart.  Monte Carlo figures come from fixed seeds, so they are
reproduced exactly (to the digits quoted).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.rulesets.crt import decided_by_tables
from balance.rulesets.crt.campaign import career, skill_after

crt = balance.get("crt")
PAGE = " ".join((Path(__file__).resolve().parents[2] / "docs" / "crt.md").read_text().split())

pytestmark = pytest.mark.slow


def quoted(*texts: str) -> None:
    for text in texts:
        assert " ".join(text.split()) in PAGE, f"docs/crt.md no longer says {text!r}"


def pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f}%"


def interval(low: float, high: float, digits: int = 1) -> str:
    return f"[{pct(low, digits)}, {pct(high, digits)}]"


def cli_json(capsys, command: str) -> dict:
    argv = command.split()[1:]  # drop "balance"
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(("reading", "figure"), [
    ("", "53.2% [52.9%, 53.4%]"), (" --rule multi_zero_mode=foes_keep_aggregate",
                                   "56.0% [55.8%, 56.3%]")])
def test_bruggish_against_the_watchmen(capsys, reading, figure):
    command = "balance duel crt --scenario bruggish-vs-watchmen -n 200000 --seed 1" + reading
    quoted(command, figure)
    data = cli_json(capsys, command)
    assert f"{pct(data['a_win'])} {interval(*data['a_win_ci'])}" == figure


def test_reactive_diversion(capsys):
    command = ("balance exact crt --a agility=10,toughness=10,bonus=3,divert=reactive,"
               "divert_health=6 --b agility=10,toughness=10,divert=below_health,"
               "divert_health=5 --rule extraordinary=false")
    quoted("wins 70.7% reactively and 54.2% under `below_health`")
    assert pct(cli_json(capsys, command)["a_win"]) == "70.7%"
    plain = command.replace("divert=reactive", "divert=below_health")
    assert pct(cli_json(capsys, plain)["a_win"]) == "54.2%"


def test_novice_against_veteran(capsys):
    quoted("wins 1.58% of plain duels", "3.89% [3.81%, 3.98%] with the Extraordinary tables on",
           "54.6% [53.5%, 55.7%] of them are decided by a table result")
    exact = cli_json(capsys, "balance exact crt --a novice --b veteran --rule extraordinary=false")
    assert pct(exact["a_win"], 2) == "1.58%"
    duel = cli_json(capsys, "balance duel crt --a novice --b veteran -n 200000 --seed 1")
    assert f"{pct(duel['a_win'], 2)} {interval(*duel['a_win_ci'], 2)}" == "3.89% [3.81%, 3.98%]"
    summary = balance.duel("crt", "novice", "veteran", n=200_000, seed=1)
    assert summary.a_win == duel["a_win"]  # the call is the command
    share, ci = decided_by_tables(summary, winner="a")
    assert f"{pct(share)} {interval(*ci)}" == "54.6% [53.5%, 55.7%]"


def test_a_skill_level_is_seven_combats():
    # "With every ability at 7 a skill level adds 7 to the score, exactly what 7 combats
    # survived add, and only the score difference matters"
    quoted("a skill level adds 7 to the score, exactly what 7 combats survived add")
    veteran = crt.presets["veteran"]
    for skill in range(1, 6):
        for combats in (0, 9, 30):
            one = balance.exact("crt", f"skill={skill},combats={combats}", veteran,
                                extraordinary=False)
            other = balance.exact("crt", f"skill={skill - 1},combats={combats + 7}", veteran,
                                  extraordinary=False)
            assert (one.a_win, one.b_win, one.draw) == (other.a_win, other.b_win, other.draw)


def test_luck_at_equal_scores(capsys):
    command = "balance duel crt --a duelist --b duelist -n 200000 --seed 1"
    quoted(command, "27.7% [27.5%, 27.9%] of fights are decided by a table result: 15.2% by "
                    "the strokes of table results, 10.8% by mishaps, 1.8% by a broken enemy")
    data = cli_json(capsys, command)
    causes = data["end_causes"]
    assert [pct(causes[c]) for c in ("extraordinary", "mishap", "broke")] == [
        "15.2%", "10.8%", "1.8%"]
    share, ci = decided_by_tables(balance.duel("crt", "duelist", "duelist", n=200_000, seed=1))
    assert f"{pct(share)} {interval(*ci)}" == "27.7% [27.5%, 27.9%]"


def test_campaign_of_a_novice(capsys):
    quoted("balance campaign crt --a novice --b novice --fights 30 -n 20000 --seed 1",
           "48.0% [47.3%, 48.7%] survive it", "a career wins 1.58 [1.54, 1.62] fights",
           "1.6% [1.5%, 1.8%] of careers survive ten fights and 0.41% [0.33%, 0.51%] twenty",
           "69.5% in the plain duel", "band (+17): 87.5%", "he wins 96.0% of plain duels",
           "at fight 19, which 0.445% of careers reach",
           "0.055% [0.031%, 0.098%] of careers survive thirty fights, against 0.21% [0.16%, "
           "0.28%] with skill growing", "adds the novice's strength (7)",
           "the rate that makes Bruggish (veteran, level 3, after 30 combats) an unskilled novice",
           "a survivor first wins at least 90% (the interval's low end) there, at fight 19")
    bruggish = crt.presets["bruggish"]
    assert (bruggish.skill, bruggish.combats, skill_after(0, 30)) == (3, 30, 3)
    assert main(["campaign", "crt", "--a", "novice", "--b", "novice", "--fights", "30", "-n",
                 "20000", "--seed", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = out["rows"]
    table = career(crt.rules(), crt.presets["novice"], crt.presets["novice"], fights=30,
                   n=20_000, seed=1)
    assert [r["alive"] for r in rows] == list(table["alive"])  # the command is the call
    first, tenth, twentieth = table.iloc[0], table.iloc[9], table.iloc[19]
    assert f"{pct(first.alive)} {interval(first.alive_low, first.alive_high)}" == \
        "48.0% [47.3%, 48.7%]"
    assert f"{pct(tenth.alive)} {interval(tenth.alive_low, tenth.alive_high)}" == \
        "1.6% [1.5%, 1.8%]"
    assert f"{pct(twentieth.alive, 2)} {interval(twentieth.alive_low, twentieth.alive_high, 2)}" \
        == "0.41% [0.33%, 0.51%]"
    won = out["fights_won"]
    assert f"{won['mean']:.2f} [{won['low']:.2f}, {won['high']:.2f}]" == "1.58 [1.54, 1.62]"
    sure = table[table["p_win_low"] >= 0.9].iloc[0]
    assert (int(sure.fight), pct(table["alive"].iloc[17], 3)) == (19, "0.445%")
    last = table.iloc[29]
    assert f"{pct(last.alive, 2)} {interval(last.alive_low, last.alive_high, 2)}" == \
        "0.21% [0.16%, 0.28%]"
    flat = career(crt.rules(), crt.presets["novice"], crt.presets["novice"], fights=30,
                  n=20_000, seed=1, skill_growth="none").iloc[29]
    assert f"{pct(flat.alive, 3)} {interval(flat.alive_low, flat.alive_high, 3)}" == \
        "0.055% [0.031%, 0.098%]"
    exact = career(crt.rules(extraordinary=False), crt.presets["novice"],
                   crt.presets["novice"], fights=30, method="exact")
    assert crt.presets["novice"].strength == 7
    assert {pct(p) for p in exact["p_win"].iloc[1:10]} == {"69.5%"}
    assert {pct(p) for p in exact["p_win"].iloc[10:18]} == {"87.5%"}
    assert list(exact["advantage"].iloc[9:11]) == [9, 17]
    assert exact["advantage"].iloc[18] == 25 and pct(exact["p_win"].iloc[18]) == "96.0%"
    none = career(crt.rules(extraordinary=False), crt.presets["novice"],
                  crt.presets["novice"], fights=30, method="exact", skill_growth="none")
    # the band edge at +13: fight 14 with combats alone, fight 11 with skill growing
    assert none["advantage"].iloc[13] == 13 and none["advantage"].iloc[12] == 12
