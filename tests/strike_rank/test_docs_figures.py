"""Every figure quoted in ``docs/strike-rank.md``, reproduced by the call the page names.

Each case is a fragment of the page (whitespace-normalised) and the summaries its
percentages come from, in order (:mod:`.figures`: a ``balance duel`` call or one cell of an
experiment, with the quoted fights and seed).  The quoted rate and the recomputed one must
be estimates of the same chance: they may differ by at most 3.29 standard errors of the
difference of two independent estimates (two-sided p = 0.001 per figure, threshold fixed in
advance), plus the quote's rounding.  The same fights and seed give the same number, but a
new rule parameter changes every experiment cell's key and so its random stream; this
criterion lets such a change pass while catching a figure that is wrong.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

import pytest

from balance.results import Summary
from balance.rulesets.strike_rank import StrikeRank
from balance.rulesets.strike_rank.policy import matchup_setup
from balance.rulesets.strike_rank.presets import STYLE_PRESETS

from .figures import DOC, cell, duel

pytestmark = pytest.mark.slow  # ~2 M fights and 361 policy tables

TEXT = " ".join(DOC.read_text(encoding="utf-8").split())
PERCENT = re.compile(r"(\d+\.\d)%(?: \[(\d+\.\d), (\d+\.\d)\])?")
ONE_V_MANY = "strike-rank-one-against-many"
BROADSWORD = "skirmisher,weapon=broadsword,shield=medium,strength=14"
KNIGHT_KIT = "skirmisher,shield=medium,strength=14,armour=head:2,arms:2,torso:3,legs:2"
THREE = ("skirmisher", "skirmisher", "skirmisher")
DEX = "strike-rank-dexterity-readings"
DEFAULT_TB = ("action_cost", "dex", "random")
RANDOM_TB = ("action_cost", "random")


def _many(defender: str, skill: int, attackers: tuple[str, ...], policy: str = "thrust"
          ) -> Summary:
    return cell(ONE_V_MANY, a=defender, a__0__skill=skill, a__0__attack_policy=policy,
                b=attackers)


def _dex(dex: int, tiebreak: tuple[str, ...], carry: str = "reroll") -> Summary:
    return cell(DEX, a__0__dexterity=dex, rules__sr_tiebreak=tiebreak, rules__carry_mode=carry)


def _skill(skill: int, agility: int) -> Summary:
    return cell("strike-rank-skill-vs-speed", a__0__skill=skill, a__0__agility=agility)


def _typed(a: str, b: str, *types: str) -> list[Summary]:
    return [duel(f"{a},attack_policy={t}", b, 20_000, 11) for t in types]


CASES: list[tuple[str, Callable[[], list[Summary]]]] = [
    # the attack choice
    ("the Gladiator beats the Skirmisher 98.4% [98.2, 98.6] on `best`, which thrusts, "
     "against 90.7% swinging and 91.9% blowing",
     lambda: _typed("gladiator", "skirmisher", "best", "swing", "blow")),
    ("the Assassin beats the Footpad 95.1% [94.8, 95.4] on `best` (thrust) against 81.4% "
     "blowing", lambda: _typed("assassin", "footpad", "best", "blow")),
    ("wins 2.4% [2.2, 2.6] of its duels with the Footpad on `best` (a blow) against 0.1% "
     "thrusting", lambda: _typed("brawler", "footpad", "best", "thrust")),
    ("wins 22.7% [22.2, 23.3] against the Assassin on `best` (a blow) against 19.3% "
     "thrusting", lambda: _typed("berserker", "assassin", "best", "thrust")),
    # action costs
    ("A Skirmisher with a rapier beats one with a long sword 42.8% [42.6, 43.0]",
     lambda: [duel("skirmisher,weapon=rapier", "skirmisher", 200_000, 1)]),
    ("200000 --seed 1`), 40.6% [40.3, 40.8] with `--rule action_cost_floor=1`",
     lambda: [duel("skirmisher,weapon=rapier", "skirmisher", 200_000, 1,
                   action_cost_floor=1)]),
    # the missile layer
    ("the Archer wins 1.1% with `range_rounds=0`, 33.4% with 1, 70.4% with 2 (default), "
     "87.9% with 3, 95.6% with 4",
     lambda: [duel("archer", "skirmisher", 20_000, 1, range_rounds=r) for r in range(5)]),
    ("loses at two range rounds (47.7%) and four (81.2%)",
     lambda: [duel("archer,aim_actions=1", "skirmisher", 20_000, 1, range_rounds=r)
              for r in (2, 4)]),
    ("The Bladesman against a Skirmisher goes from 1.5% to 22.8% at two range rounds, the "
     "Spearman from 22.5% to 73.1%",
     lambda: [duel(a, "skirmisher", 20_000, 1, range_rounds=r)
              for a in ("bladesman", "spearman") for r in (0, 2)]),
    ("the Knight's armour stops the Archer's arrows (0.0%), the Shieldman's shield parries "
     "most of them (4.4%)",
     lambda: [duel("archer", b, 20_000, 1) for b in ("knight", "shieldman")]),
    # what the defaults say
    ("the Gladiator beats the Legionnaire 100.0% [99.9, 100.0]",
     lambda: [duel("gladiator", "legionnaire", 20_000, 1)]),
    ("two Legionnaires beat two Gladiators 89.4% [89.0, 89.8]",
     lambda: [duel(["legionnaire"] * 2, ["gladiator"] * 2, 20_000, 1)]),
    ("70.7% [70.1, 71.3] without the leader's Task Assist",
     lambda: [duel(["legionnaire"] * 2, ["gladiator"] * 2, 20_000, 1, task_assist_bonus=0)]),
    ("(AGI 16 against 12: 52.4% [51.9, 52.9]; AGI 30: 52.6% [52.1, 53.1])",
     lambda: [cell("strike-rank-agility-dexterity", a__0__agility=agility,
                   a__0__dexterity=12) for agility in (16, 30)]),
    ("DEX 13 against 12 at equal Agility wins 52.2% [51.8, 52.5]",
     lambda: [_dex(13, DEFAULT_TB)]),
    ("50.1% [49.8, 50.4] at DEX 13, 50.2% [49.9, 50.5] at DEX 20 (4 dice against 2), 52.4% "
     "[52.1, 52.7] from DEX 21", lambda: [_dex(x, RANDOM_TB) for x in (13, 20, 21)]),
    ("(DEX 20: 51.1% [50.8, 51.4])", lambda: [_dex(20, RANDOM_TB, "keep")]),
    ("Skill 31 against 30 wins 60.2% [59.9, 60.5] at equal Agility; acting first every round "
     "(AGI 16: 52.4% [52.1, 52.7]) instead of second (AGI 6: 47.2% [46.9, 47.5])",
     lambda: [_skill(31, 12), _skill(30, 16), _skill(30, 6)]),
    ("1.7 points at Skill 24, 7.3% against 5.6%, or 36, 94.4% against 92.7%",
     lambda: [_skill(24, 16), _skill(24, 6), _skill(36, 16), _skill(36, 6)]),
    ("a lone Skirmisher is even against one at Skill 30 (50.3% [49.6, 51.0]), wins 6.8% "
     "[6.4, 7.1] against two, needs Skill 35 to hold two (50.7% [50.0, 51.4]) and 40 for "
     "three (61.5% [60.8, 62.1])",
     lambda: [_many("skirmisher", 30, ("skirmisher",)),
              _many("skirmisher", 30, ("skirmisher",) * 2),
              _many("skirmisher", 35, ("skirmisher",) * 2), _many("skirmisher", 40, THREE)]),
    ("88.7% [88.2, 89.1] at Skill 40 against 62.1% [61.4, 62.8] for a Skirmisher",
     lambda: [_many("shieldman", 40, THREE), _many(BROADSWORD, 40, THREE)]),
    ("beats three at Skill 30 (94.8% [94.4, 95.1])", lambda: [_many(KNIGHT_KIT, 30, THREE)]),
    ("at Skill 25 against three, 37.5% [36.8, 38.2] with it, 63.5% [62.8, 64.2] without",
     lambda: [_many("knight", 25, THREE), _many("knight,knight_double=false", 25, THREE)]),
    ("`best` and wins 93.8% [93.4, 94.1] (93.7% [93.3, 94.0] always thrusting)",
     lambda: [_many(BROADSWORD, 45, THREE, "best"), _many(BROADSWORD, 45, THREE)]),
    ("blowing wins 44.8% [44.1, 45.5]",
     lambda: [duel(f"{BROADSWORD},skill=45,attack_policy=blow", list(THREE), 20_000, 1)]),
]


@pytest.mark.parametrize(("fragment", "compute"), CASES, ids=[c[0][:40] for c in CASES])
def test_quoted_figure_is_reproduced(fragment: str, compute: Callable[[], list[Summary]]
                                     ) -> None:
    assert fragment in TEXT, f"docs/strike-rank.md no longer says: {fragment}"
    quoted = PERCENT.findall(fragment)
    summaries = compute()
    assert len(quoted) == len(summaries)
    for (rate, _low, _high), s in zip(quoted, summaries, strict=True):
        se = 100 * math.sqrt(max(s.a_win * (1 - s.a_win), 1 / s.n) / s.n)
        allowed = 3.29 * math.sqrt(2) * se + 0.05
        assert abs(float(rate) - 100 * s.a_win) <= allowed, (fragment, rate, s.a_win, allowed)


def test_quoted_choices_of_the_attack_type() -> None:
    """The types the attack-choice section says ``best`` picks, and its count over the
    preset duels: thrust in 284 of the 342 where the weapon can thrust."""
    rs = StrikeRank()
    rules = rs.rules()
    chosen = {(a, b): matchup_setup(rules, rs.side(a), rs.side(b))[2][0][1][0]
              for a in STYLE_PRESETS for b in STYLE_PRESETS}
    assert chosen["gladiator", "skirmisher"] == 0 and chosen["assassin", "footpad"] == 0
    assert chosen["brawler", "footpad"] == 2 and chosen["berserker", "assassin"] == 2
    thrusting = Counter(t for (a, _), t in chosen.items() if a != "specialist")
    assert "in most preset duels (284 of the 342 where the weapon can thrust)" in TEXT
    assert (thrusting[0], sum(thrusting.values())) == (284, 342)
    assert "swings or blows in the other 58" in TEXT
