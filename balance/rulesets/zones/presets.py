"""Named combatants and scenarios of seed 002 (``balance show zones`` lists them)."""

from __future__ import annotations

from types import MappingProxyType

from ..base import Scenario
from .rules import Combatant

_PRESETS = {
    "soldier": Combatant(name="soldier", weapon="one_handed", shield=True, armour=2),
    "swordsman": Combatant(name="swordsman", might=2, weapon="one_handed", armour=1),
    "heavy": Combatant(name="heavy", might=2, weapon="two_handed", armour=3, speed=1),
    "skirmisher": Combatant(name="skirmisher", weapon="light", ranged="thrown", defence=2,
                            armour=0, speed=3),
    "archer": Combatant(name="archer", agility=3, weapon="light", ranged="long_bow",
                        armour=1, policy="skirmish"),
    "crossbowman": Combatant(name="crossbowman", agility=2, weapon="light", ranged="crossbow",
                             armour=2, speed=1, policy="hold"),
    "ogre": Combatant(name="ogre", might=4, defence=1, weapon="two_handed", armour=3, speed=1,
                      large=True, hp=18),
    "raider": Combatant(name="raider", might=1, defence=1, weapon="light", armour=1, speed=2,
                        hp=8),
}
PRESETS = MappingProxyType(_PRESETS)

# 002.6 worked example: Doran, Wick and the archer Toma hold the gate, the caster Sela
# shelters in the keep-yard; two raider skirmishers start a medium band out.  Doran holds
# and Wick guards Sela (he fights the raider at the gate, then follows the one that went for
# her); each spends one action on Defend, as in the seed, and waits with the rest.  Both
# raiders want Sela (target priority); the first goes for her, the second fights where it
# is engaged (leave_engaged false), against Wick, the softer of the gate's blades (he has
# no shield) and so its next choice.
GATE = Scenario(
    "002.6 worked example: approach - gate - keep-yard; Doran, Wick, Toma, Sela vs two raiders",
    (
        Combatant(name="Doran", zone="gate", might=2, weapon="one_handed", shield=True,
                  armour=2, speed=1, policy="hold", defends=1),
        Combatant(name="Wick", zone="gate", might=2, weapon="one_handed", armour=1, speed=1,
                  policy="guard", guard="Sela", defends=1, priority=1),
        Combatant(name="Toma", zone="gate", agility=2, weapon="light", ranged="short_bow",
                  armour=1, speed=1, policy="hold"),
        Combatant(name="Sela", zone="keep-yard", agility=2, defence=0, weapon="unarmed",
                  ranged="spell", armour=0, speed=2, policy="hold", priority=2, hp=10,
                  long_shots=False, melee_first=False),
    ),
    (
        Combatant(name="raider 1", might=1, weapon="light", armour=1, speed=2, hp=8,
                  target="priority"),
        Combatant(name="raider 2", might=1, weapon="light", armour=1, speed=2, hp=8,
                  target="priority", leave_engaged=False),
    ),
    {"battlefield": "gate", "initial_gap": "medium", "first_side": "b"},
)

def _line(tag: str) -> tuple[Combatant, ...]:
    return (Combatant(name=f"soldier {tag}", weapon="one_handed", shield=True, armour=2),
            Combatant(name=f"swordsman {tag}", might=2, weapon="one_handed"),
            Combatant(name=f"heavy {tag}", might=2, weapon="two_handed", armour=2, speed=1),
            Combatant(name=f"archer {tag}", agility=3, weapon="light", ranged="long_bow",
                      policy="skirmish"))


SKIRMISH = Scenario(
    "4 against 4 on a line of three zones: soldier, swordsman, heavy and archer a side; "
    "A holds the west, B comes from a short band out",
    _line("a"), _line("b"), {"battlefield": "line", "initial_gap": "short"},
)

RAID = Scenario(
    "4 against 4, mixed: soldiers and an archer hold; fast raiders, a heavy and a "
    "crossbowman come from a medium band out",
    (Combatant(name="soldier 1", weapon="one_handed", shield=True, armour=2),
     Combatant(name="soldier 2", weapon="one_handed", shield=True, armour=2),
     Combatant(name="swordsman", might=2, weapon="one_handed"),
     Combatant(name="archer", agility=3, weapon="light", ranged="long_bow", policy="skirmish")),
    (Combatant(name="raider 1", weapon="light", speed=3, defence=2, armour=0),
     Combatant(name="raider 2", weapon="light", speed=3, defence=2, armour=0, target="weakest"),
     Combatant(name="heavy", might=2, weapon="two_handed", armour=3, speed=1),
     Combatant(name="crossbowman", agility=2, weapon="light", ranged="crossbow", armour=2,
               policy="hold")),
    {"battlefield": "line", "initial_gap": "medium"},
)

DOOR = Scenario(
    "a held door: two soldiers hold a chokepoint (1 a side may fight there) against four "
    "raiders",
    (Combatant(name="soldier 1", zone="door", weapon="one_handed", shield=True, armour=2,
               policy="hold"),
     Combatant(name="soldier 2", zone="hall", weapon="one_handed", shield=True, armour=2,
               policy="guard", guard="soldier 1")),
    tuple(Combatant(name=f"raider {k}", weapon="one_handed", speed=2, hp=8)
          for k in (1, 2, 3, 4)),
    {"battlefield": "chokepoint", "initial_gap": "short"},
)

OGRE = Scenario(
    "one Large ogre against four soldiers (frontage 4 against Large)",
    (Combatant(name="ogre", might=4, defence=1, weapon="two_handed", armour=3, speed=1,
               large=True, hp=18),),
    tuple(Combatant(name=f"soldier {k}", weapon="one_handed", shield=True, armour=2)
          for k in (1, 2, 3, 4)),
    {"initial_gap": "short"},
)

SCENARIOS = MappingProxyType({"gate": GATE, "skirmish": SKIRMISH, "raid": RAID, "door": DOOR,
                               "ogre": OGRE})
