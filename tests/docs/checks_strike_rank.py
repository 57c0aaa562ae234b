"""docs/strike-rank.md: ``tests/strike_rank/test_docs_figures.py`` reproduces the page's rates
(each case a fragment of the page and the call or experiment cell behind it); checked here
are the figures that are not one rate: the splits, differences and ratios the page derives
from those cells (the experiments' own seeds and sizes)."""

from __future__ import annotations

import functools

from .experiments import cell, experiment
from .figures import Claims, allow, check, external

SR = "docs/strike-rank.md"
MANY = "strike-rank-one-against-many"
BROADSWORD = "skirmisher,weapon=broadsword,shield=medium,strength=14"

external(SR, "tests/strike_rank/test_docs_figures.py", "each case runs the quoted call or "
         "experiment cell and compares the quoted rates with its interval")
allow(SR, "rules of the ruleset (an ambush round, a row's size, the Knight's double defence, "
      "the Initiative Index dice), not results", "A fight that ends there lasts 1 round",
      "thrown rows of 0.8 m or less", "no Knight double defence", "only 5s and 6s carry over")
allow(SR, "sections of seed 000", pattern=r"\(5\.(?:6|1[16])\b")
allow(SR, "an illustration of the race model's reasoning, not a result",
      "doubles the hits it takes to deal 50% more")


@check(SR, "two Skirmishers at Skill 30 split about 47% / 53% when one always acts first, "
           "whatever the margin", given=["Skill 30"])
def sr_acting_first_split(c: Claims) -> None:
    table = experiment("strike-rank-agility-dexterity",
                       {"a.0.agility": [16, 21, 30], "a.0.dexterity": [12]})
    for agility in (16, 21, 30):  # A acts first in every round, by one band or five
        row = cell(table, a_0_agility=agility)
        c.approx("47% / 53%", row.b_win, row.a_win, tolerance=1.0)


@functools.cache
def _speed():
    return experiment("strike-rank-skill-vs-speed", {"a.0.skill": [30, 31],
                                                     "a.0.agility": [6, 12, 16]})


@check(SR, "A point of Skill is worth about twice the whole of initiative")
def sr_skill_twice_initiative(c: Claims) -> None:
    table = _speed()
    point = (cell(table, a_0_skill=31, a_0_agility=12).a_win
             - cell(table, a_0_skill=30, a_0_agility=12).a_win)
    initiative = (cell(table, a_0_skill=30, a_0_agility=16).a_win
                  - cell(table, a_0_skill=30, a_0_agility=6).a_win)
    c.holds("about twice", 1.5 <= point / initiative <= 2.5, f"{point:.4f} / {initiative:.4f}")


@check(SR, "is worth 5 points of win rate, about half a point of Skill")
def sr_initiative_points(c: Claims) -> None:
    table = _speed()
    initiative = (cell(table, a_0_skill=30, a_0_agility=16).a_win
                  - cell(table, a_0_skill=30, a_0_agility=6).a_win)
    c.approx("5 points", initiative, scale=100, tolerance=0.6)


@check(SR, "The Shieldman's -2 step is worth about 25 points against three", slow=True)
def sr_shieldman_step(c: Claims) -> None:
    def rate(defender: str) -> float:
        table = experiment(MANY, {"a": [defender], "a.0.skill": [40],
                                  "a.0.attack_policy": ["thrust"],
                                  "b": [["skirmisher"] * 3]})
        return float(table["a_win"].iloc[0])
    c.approx("25 points", rate("shieldman") - rate(BROADSWORD), scale=100, tolerance=2.0)
