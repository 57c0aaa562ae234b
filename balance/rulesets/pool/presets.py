"""Named fighters and matchups of seed 003."""

from __future__ import annotations

from types import MappingProxyType

from ..base import Scenario
from .rules import Combatant

# 003.4: stats on 1-10 (human average 4), Combat 0-6, Status 0-5.
AVERAGE = Combatant(name="average", coordination=4, intellect=4, fortitude=4, combat=2)

PRESETS = MappingProxyType({
    # the digest's human average: pool 4, 12 WP, attack 6, defence 6, sword for 4
    "average": AVERAGE,
    # quick and skilled: pool 6, attack 11, defence 8, sword for 5
    "duellist": Combatant(name="duellist", coordination=7, intellect=5, fortitude=4, combat=4),
    # slow and tough: pool 3, attack 8, defence 11, 24 WP + light armour, two-handed for 6
    "brute": Combatant(name="brute", coordination=5, intellect=2, fortitude=8, combat=3,
                       weapon="two_handed", armour="light"),
    # all pool: 7 points, attack 6, defence 6, knife for 3 (fairness question 1: Intellect)
    "scholar": Combatant(name="scholar", coordination=4, intellect=10, fortitude=4, combat=2,
                         weapon="knife"),
    # high Status acts late (TV 1) but wears medium armour (fairness question 2)
    "noble": Combatant(name="noble", coordination=5, intellect=6, fortitude=5, combat=3,
                       status=4, armour="medium"),
    # a trained guard: pool 4, attack 8, defence 9, spear, light armour
    "guard": Combatant(name="guard", coordination=5, intellect=3, fortitude=6, combat=3,
                       weapon="spear", armour="light"),
    # a levy: pool 3, attack 5, defence 6, spear
    "militia": Combatant(name="militia", coordination=4, intellect=3, fortitude=5, combat=1,
                         weapon="spear"),
    # the exact solver's benchmark fighter: pool 6, 20 WP, 1 damage a hit (every WP value
    # is reachable), attack 7 and defence 7: against itself every hit must be bought
    "bench": Combatant(name="bench", coordination=5, intellect=7, fortitude=5, combat=2,
                       wound_points=20, weapon="unarmed"),
})

SCENARIOS = MappingProxyType({
    "example-8": Scenario(
        "003.6 #8-9: A (Co 6, Combat 3: attack 9) against B (Fort 5, Combat 2: defence 7); "
        "B must spend 2 pool points to block an unaided attack",
        (Combatant(name="A", coordination=6, intellect=4, fortitude=4, combat=3),),
        (Combatant(name="B", coordination=4, intellect=4, fortitude=5, combat=2),)),
    "mirror": Scenario(
        "two average fighters: equal Turn Values, the coin decides who acts first",
        (Combatant(name="A", coordination=4, intellect=4, fortitude=4, combat=2),),
        (Combatant(name="B", coordination=4, intellect=4, fortitude=4, combat=2),)),
    "guards-vs-duellist": Scenario(
        "2 against 1: two guards (pool 4, light armour) against a duellist (pool 6); under "
        "the equilibrium the guards win, under minimal sure hits the duellist does",
        (Combatant(name="guard 1", coordination=5, intellect=3, fortitude=6, combat=3,
                   weapon="spear", armour="light"),
         Combatant(name="guard 2", coordination=5, intellect=3, fortitude=6, combat=3,
                   weapon="spear", armour="light")),
        (PRESETS["duellist"],)),
    "randomised": Scenario(
        "the mirror match with the 1d6 house-rule randomiser on every check",
        (Combatant(name="A", coordination=4, intellect=4, fortitude=4, combat=2),),
        (Combatant(name="B", coordination=4, intellect=4, fortitude=4, combat=2),),
        {"randomiser": "1d6"}),
})
