"""docs/strike-rank.md: the missile layer's duels and the experiments' cells (their own seeds
and sizes).

The page is being rewritten on branch ``strike-rank`` (issue 11 point 3) together with a
figure test of its own, ``tests/strike_rank/test_docs_figures.py``; when that module lands
these checks step aside (``until``) and the module covers the page (``external``).
"""

from __future__ import annotations

import functools

from .experiments import cell, experiment
from .figures import Claims, allow, check, cli_json, external

SR = "docs/strike-rank.md"
OWN_TESTS = "tests/strike_rank/test_docs_figures.py"
MANY = "strike-rank-one-against-many"
BROADSWORD = "skirmisher,weapon=broadsword,shield=medium,strength=14"
KNIGHT_KIT = "skirmisher,shield=medium,strength=14,armour=head:2,arms:2,torso:3,legs:2"

external(SR, OWN_TESTS, "each case runs the quoted call or experiment cell and compares the "
         "quoted rates with its interval", if_present=True)
allow(SR, "rules of the ruleset (an ambush round, a row's size, the Knight's double defence), "
      "not results", "A fight that ends there lasts 1 round", "thrown rows of 0.8 m or less",
      "no Knight double defence")
allow(SR, "a floating-point format (the race model's chain), not a result", "double precision")
allow(SR, "sections of seed 000", pattern=r"\(5\.1[16]\b")
allow(SR, "sections of seed 000 (3.18, 4.2, 5.2 round, 5.6 styles, 5.14 flails, 5.19 "
      "improvised weapons, 5.25 ranks)", pattern=r"\b(?:3\.18|4\.2|5\.(?:2|6|14|19|25))\b(?!%)")
allow(SR, "a rule parameter's default (rank_reach), not a result", "(1.8 m: spears")
allow(SR, "the rules' words, not results: the dice faces that carry over, what half skill "
      "halves, an illustration of the race", "5s and 6s", "`skill_only` (DEFAULT) halves",
      "`with_mods` halves", "to deal 50% more")


def _rates(summary: dict) -> tuple[float, list[float]]:
    return summary["a_win"], summary["a_win_ci"]


def _row(row) -> tuple[float, tuple[float, float]]:
    return row.a_win, (row.a_win_low, row.a_win_high)


# ---------------------------------------------------------------------------------------------
# The missile layer

@check(SR, "`balance duel strike-rank --a archer --b skirmisher -n 20000 --seed 1`: the Archer "
           "wins 0.6% with `range_rounds=0`, 33.4% with 1, 70.4% with 2 (default), 87.9% with 3, "
           "95.6% with 4. Aiming once (doubled, +10) costs a shot and loses at two range rounds "
           "(47.7%) and four (81.2%). The Bladesman against a Skirmisher goes from 1.1% to 22.4% "
           "at two range rounds, the Spearman from 22.5% to 73.1%; the Knight's armour stops the "
           "Archer's arrows (0.0%), the Shieldman's shield parries most of them (12.9%).",
       until=OWN_TESTS)
def sr_missiles(c: Claims) -> None:
    command = "balance duel strike-rank --a archer --b skirmisher -n 20000 --seed 1"
    for snippet, rounds in (("0.6%", 0), ("33.4%", 1), ("70.4%", 2), ("87.9%", 3),
                            ("95.6%", 4)):
        c.mc(snippet, *_rates(c.run(command, f"--rule range_rounds={rounds}")))
    aimed = command.replace("--a archer", "--a archer,aim_actions=1")
    c.mc("(47.7%)", *_rates(_duel(aimed, 2)))
    c.mc("(81.2%)", *_rates(_duel(aimed, 4)))
    for snippet, a, rounds in (("1.1%", "bladesman", 0), ("22.4%", "bladesman", 2),
                               ("22.5%", "spearman", 0), ("73.1%", "spearman", 2)):
        c.mc(snippet, *_rates(_duel(command.replace("--a archer", f"--a {a}"), rounds)))
    for snippet, b in (("(0.0%)", "knight"), ("(12.9%)", "shieldman")):
        c.mc(snippet, *_rates(_duel(command.replace("--b skirmisher", f"--b {b}"), 2)))


def _duel(command: str, rounds: int) -> dict:
    return cli_json(f"{command} --rule range_rounds={rounds}")


# ---------------------------------------------------------------------------------------------
# Styles alone and in company (20 000 a cell, seed 3002)

@check(SR, "Solo styles win their duels against group styles (+5 against -5: 85% to 99%, 95% "
           "on average), but two "
           "Legionnaires beat two Gladiators ~80% (leader's Task Assist, large shields).",
       until=OWN_TESTS)
def sr_alone_and_in_company(c: Claims) -> None:
    table = experiment("strike-rank-alone-vs-company")
    solo = table[~table["a"].astype(str).str.contains(r" \+ ")]
    solo = solo[~solo["b"].astype(str).str.contains(r" \+ ")]
    assert len(solo) == 9, solo
    # 20 000 fights a cell: each rate to about +/- 0.5 points
    c.approx("85% to 99%", float(solo["a_win"].min()), float(solo["a_win"].max()),
             tolerance=0.5)
    c.approx("95% on average", float(solo["a_win"].mean()), tolerance=0.5)
    pair = table[(table["a"].astype(str).str.count("gladiator") == 2)
                 & (table["b"].astype(str).str.count("legionnaire") == 2)]
    assert len(pair) == 1
    c.approx("~80%", float(pair["b_win"].iloc[0]), tolerance=1.5)


# ---------------------------------------------------------------------------------------------
# Initiative: Agility and Dexterity

@check(SR, "two Skirmishers at Skill 30 split 47% / 53% when one always acts first, whatever "
           "the margin (AGI 16 against 12: 52.3% [51.8, 52.8]; AGI 30: 53.0% [52.5, 53.4])",
       given=["Skill 30", "AGI 16 against 12", "AGI 30"], until=OWN_TESTS)
def sr_acting_first(c: Claims) -> None:
    table = experiment("strike-rank-agility-dexterity",
                       {"a.0.agility": [16, 30], "a.0.dexterity": [12]})
    sixteen, thirty = (cell(table, a_0_agility=agility) for agility in (16, 30))
    c.mc("52.3% [51.8, 52.8]", *_row(sixteen))
    c.mc("53.0% [52.5, 53.4]", *_row(thirty))
    for row in (sixteen, thirty):
        c.approx("47% / 53%", row.b_win, row.a_win, tolerance=1.0)


def _dex(dex: int, tiebreak: list[str], carry: str = "reroll"):
    table = experiment("strike-rank-dexterity-readings",
                       {"a.0.dexterity": [dex], "rules.sr_tiebreak": [tiebreak],
                        "rules.carry_mode": [carry]})
    return _row(table.iloc[0])


DEFAULT_TB = ["action_cost", "dex", "random"]
RANDOM_TB = ["action_cost", "random"]


@check(SR, "DEX 13 against 12 at equal Agility wins 52.4% [52.1, 52.7], about as much as AGI 30 "
           "(`strike-rank-dexterity-readings`, 100 000 a cell). With a random tie-break DEX acts "
           "only through its dice and flat part: 50.1% to 50.6% at DEX 13-17, 50.2% [49.9, 50.5] "
           "at DEX 20 (4 dice against 2), 52.4% [52.1, 52.7] from DEX 21 (the flat +1).",
       given=["DEX 13 against 12"], until=OWN_TESTS)
def sr_dexterity_readings(c: Claims) -> None:
    c.mc("wins 52.4% [52.1, 52.7]", *_dex(13, DEFAULT_TB))
    cells = sorted(_dex(dex, RANDOM_TB) for dex in range(13, 18))
    c.mc("50.1%", *cells[0])
    c.mc("50.6%", *cells[-1])
    c.mc("50.2% [49.9, 50.5]", *_dex(20, RANDOM_TB))
    c.mc("52.4% [52.1, 52.7] from", *_dex(21, RANDOM_TB))


@check(SR, "With `carry_mode=\"keep\"` the dice matter a little more (DEX 20: 50.8% [50.5, "
           "51.1]).", given=["DEX 20"], until=OWN_TESTS)
def sr_carry_keep(c: Claims) -> None:
    c.mc("50.8% [50.5, 51.1]", *_dex(20, RANDOM_TB, "keep"))


# ---------------------------------------------------------------------------------------------
# Skill against speed (100 000 a cell, seed 3006)

@functools.cache
def _speed():
    return experiment("strike-rank-skill-vs-speed", {"a.0.skill": [24, 30, 31, 36],
                                                     "a.0.agility": [6, 12, 16]})


@check(SR, "A point of Skill is worth about twice the whole of initiative "
           "(`strike-rank-skill-vs-speed`, 100 000 a cell): Skill 31 against 30 wins 60.2% "
           "[59.9, 60.5] at equal Agility; acting first every round (AGI 16: 52.6% [52.3, 52.9]) "
           "instead of second (AGI 6: 47.4% [47.1, 47.7]) is worth 5 points of win rate, about "
           "half a point of Skill (less where the fight is lopsided: 2 points at Skill 24 or 36).",
       given=["Skill 31 against 30", "AGI 16", "AGI 6"], until=OWN_TESTS)
def sr_skill_against_speed(c: Claims) -> None:
    table = _speed()
    skill = cell(table, a_0_skill=31, a_0_agility=12)
    first, second = (cell(table, a_0_skill=30, a_0_agility=agi) for agi in (16, 6))
    c.mc("60.2% [59.9, 60.5]", *_row(skill))
    c.mc("52.6% [52.3, 52.9]", *_row(first))
    c.mc("47.4% [47.1, 47.7]", *_row(second))
    initiative = first.a_win - second.a_win
    c.approx("5 points", initiative, scale=100, tolerance=0.6)
    point = skill.a_win - cell(table, a_0_skill=30, a_0_agility=12).a_win
    c.holds("about twice", 1.5 <= point / initiative <= 2.5, f"{point:.4f} / {initiative:.4f}")
    for level in (24, 36):
        gap = (cell(table, a_0_skill=level, a_0_agility=16).a_win
               - cell(table, a_0_skill=level, a_0_agility=6).a_win)
        c.approx("2 points", gap, scale=100, tolerance=1.0)


# ---------------------------------------------------------------------------------------------
# One against several (20 000 a cell, seed 3007)

def _many(defender: str, skill: int, attackers: int, policy: str = "thrust"):
    table = experiment(MANY, {"a": [defender], "a.0.skill": [skill],
                              "a.0.attack_policy": [policy], "b": [["skirmisher"] * attackers]})
    return table.iloc[0]


@check(SR, "needs Skill 35 to hold two (50.5% [49.8, 51.2]) and 40 for three (61.5% [60.8, "
           "62.1]); at equal Skill two attackers win 94%. The Shieldman's -2 step is worth about "
           "25 points against three: 88.4% [88.0, 88.8] at Skill 40 against 62.4% [61.7, 63.1] "
           "for a Skirmisher with the same broadsword and medium shield",
       given=["Skill 35", "Skill 40"], slow=True, until=OWN_TESTS)
def sr_one_against_several(c: Claims) -> None:
    c.mc("(50.5% [49.8, 51.2])", *_row(_many("skirmisher", 35, 2)))
    c.mc("(61.5% [60.8, 62.1])", *_row(_many("skirmisher", 40, 3)))
    even = _many("skirmisher", 30, 2)
    c.mc("94%", even.b_win, (even.b_win_low, even.b_win_high))
    shieldman, kit = _many("shieldman", 40, 3), _many(BROADSWORD, 40, 3)
    c.mc("88.4% [88.0, 88.8]", *_row(shieldman))
    c.mc("62.4% [61.7, 63.1]", *_row(kit))
    c.approx("25 points", shieldman.a_win - kit.a_win, scale=100, tolerance=2.0)


@check(SR, "a Skirmisher in the Knight's armour beats three at Skill 30 (94.8% [94.4, 95.1]). The "
           "Knight's parry-then-block (`knight_double`) *hurts* against several attackers (two "
           "defensive moves on one attack, so the cumulative penalty climbs faster): at Skill 25 "
           "against three, 37.5% [36.8, 38.2] with it, 64.0% [63.3, 64.7] without.",
       given=["Skill 30", "Skill 25"], slow=True, until=OWN_TESTS)
def sr_armour_against_several(c: Claims) -> None:
    c.mc("(94.8% [94.4, 95.1])", *_row(_many(KNIGHT_KIT, 30, 3)))
    c.mc("37.5% [36.8, 38.2]", *_row(_many("knight", 25, 3)))
    c.mc("64.0% [63.3, 64.7]", *_row(_many("knight,knight_double=false", 25, 3)))


@check(SR, "A Skirmisher with broadsword and medium shield at Skill 45 against three Skirmishers "
           "wins 94% thrusting but 45% under `best` (which blows).", given=["Skill 45"],
       slow=True, until=OWN_TESTS)
def sr_best_against_several(c: Claims) -> None:
    c.mc("94%", *_row(_many(BROADSWORD, 45, 3)))
    c.mc("45%", *_row(_many(BROADSWORD, 45, 3, "best")))
