"""Named fighters and matchups of seed 001."""

from __future__ import annotations

from types import MappingProxyType

from ..base import Scenario
from .rules import Combatant

# 001.11 #1: agility 7, strength 11, toughness 10, creativity 5, 30 combats, veteran (3)
# with one-handed weapons: combat score 63.  He wields his maul one-handed.
BRUGGISH = Combatant(name="Bruggish", agility=7, strength=11, toughness=10, creativity=5,
                     combats=30, weapon_type="one_handed", skill=3, leader=True)

# 001.7: night watchmen, unskilled with cudgels, which the example governs by strength
# (001.8.5).  The three in the example have strengths summing to 23 and 9 combats between
# them; a generic watchman has strength 8 and 3 combats.
WATCHMAN = Combatant(name="watchman", strength=8, combats=3, weapon_type="one_handed",
                     governing="strength")


def _level(name: str, skill: int, combats: int) -> Combatant:
    return Combatant(name=name, skill=skill, combats=combats)


PRESETS = MappingProxyType({
    "bruggish": BRUGGISH,
    "watchman": WATCHMAN,
    # one fighter per skill level, average abilities (7), one-handed weapons; combats
    # survived grow with experience as the seed says skill is "accumulated through combat".
    "novice": _level("novice", 0, 0),
    "skilled": _level("skilled", 1, 2),
    "expert": _level("expert", 2, 5),
    "veteran": _level("veteran", 3, 10),
    "superior": _level("superior", 4, 20),
    "master": _level("master", 5, 30),
    # the benchmark's plain duelist: score 10 with health 10
    "duelist": Combatant(name="duelist", agility=10, toughness=10),
})

# How tables and figures title the level presets: what sets them apart at a glance.
TITLES = MappingProxyType({
    name: f"{name} (skill {c.skill}, {c.combats} combats)"
    for name, c in PRESETS.items() if name in ("novice", "skilled", "expert", "veteran",
                                               "superior", "master")})

SCENARIOS = MappingProxyType({
    "bruggish-vs-watchmen": Scenario(
        "001.7: Bruggish (score 63) against three unskilled watchmen with cudgels "
        "(strengths 8, 8, 7 and 3 combats each: aggregate 32)",
        (BRUGGISH,),
        (Combatant(name="watchman 1", strength=8, combats=3, governing="strength"),
         Combatant(name="watchman 2", strength=8, combats=3, governing="strength"),
         Combatant(name="watchman 3", strength=7, combats=3, governing="strength"))),
    "novice-vs-veteran": Scenario(
        "001.10 q1: 'intrinsically unfair to the novice'",
        (PRESETS["novice"],), (PRESETS["veteran"],)),
})
