"""Named fighters and matchups of seed 000.

One fighter per fighting style, each with a weapon (and shield) its style uses without
penalty where the melee tables have one, on the same baseline: Skill 30, Dodge 20, AGI 12,
DEX 12, END 14 (the source's M S S example), STR 12.  Archer and Bladesman are missile and
throwing styles: the Archer shoots a long bow (no aiming: over the default two range
rounds two shots beat one aimed shot) and fights in melee with its best close weapon
(hand axe at -10), the Bladesman throws knives (0) and
then fights with a knife (-5); the Spearman carries two throwing spears besides its own.
Missiles only matter in the range phase (rule ``range_rounds``); with ``range_rounds=0``
every preset fights exactly as before the missile layer.  Then the fighters of the
digest's worked examples (000.12).
"""

from __future__ import annotations

from types import MappingProxyType

from ...fields import Table
from ..base import Scenario
from .rules import Combatant


def _style(style: str, weapon: str, **fields: object) -> Combatant:
    return Combatant(name=fields.pop("name", style), style=style, weapon=weapon,  # type: ignore[arg-type]
                     **fields)  # type: ignore[arg-type]


def _armour(head: int = 0, arms: int = 0, torso: int = 0, legs: int = 0) -> Table:
    return Table({"head": head, "arms": arms, "torso": torso, "legs": legs})


STYLE_PRESETS = {
    # the buckler strapped to the forearm, leaving both hands for the two-handed bow (5.6
    # Archer: "the buckler was mounted on the forearm, leaving the hands free")
    "archer": _style("archer", "hand axe", shield="buckler", buckler_strapped=True,
                     missile="long bow", missiles=12),
    "assassin": _style("assassin", "short sword", shield="buckler"),
    "berserker": _style("berserker", "battle axe", berserk_trigger="on_first_wound"),
    "bladesman": _style("bladesman", "knife", missile="throwing knife", missiles=4),
    "brawler": _style("brawling", "punch", name="brawler"),
    "feral": _style("feral", "claws"),
    "footpad": _style("footpad", "long knife"),
    "gladiator": _style("gladiator", "short sword", shield="medium", armour=_armour(torso=1)),
    "horseman": _style("horseman", "long sword", mounted=True),
    "hunter": _style("hunter", "spear"),
    "knight": _style("knight", "long sword", shield="medium", strength=14,
                     armour=_armour(head=2, arms=2, torso=3, legs=2)),
    "legionnaire": _style("legionnaire", "short sword", shield="large",
                          armour=_armour(torso=2)),
    "martial_artist": _style("martial_artist", "punch", name="martial artist"),
    "shieldman": _style("shieldman", "broadsword", shield="medium", strength=14),
    "skirmisher": _style("skirmisher", "long sword"),
    "spearman": _style("spearman", "spear", shield="medium", missile="thrown spear",
                       missiles=2),
    "poleaxeman": _style("poleaxeman", "halberd", strength=14),
    "specialist": _style("specialist", "whip", specialist_weapon="whip"),
    "swashbuckler": _style("swashbuckler", "rapier"),
}

EXAMPLE_PRESETS = {
    # 5.5: a Swashbuckler rolling 65 on skill + d20 has a Skill of at least 45.
    "overpowering_swashbuckler": _style("swashbuckler", "rapier", skill=45,
                                        name="overpowering swashbuckler"),
    # 5.3: Dexterity 25 -> Initiative Index 4+2.
    "quick_dex25": _style("skirmisher", "long sword", dexterity=25, name="quick (DEX 25)"),
    # 5.6 Berserker: knows Berserker and Gladiator, goes berserk and parries with Gladiator.
    "berserk_gladiator": _style("gladiator", "short sword", shield="medium", berserker=True,
                                berserk_trigger="start", armour=_armour(torso=1),
                                name="berserk gladiator"),
    # 000.8.4: END 32 raises the death thresholds to head MM, torso MMM.
    "tough_end32": _style("skirmisher", "long sword", endurance=32, name="tough (END 32)"),
    # 5.6 Hunter: an animal to hunt.
    "wolf": _style("feral", "claws", animal=True, skill=25, dodge=25, agility=16,
                   dexterity=16, endurance=10, strength=8, name="wolf"),
    # 5.6 Horseman dismounted: -10 to all attacks.
    "horseman_dismounted": _style("horseman", "long sword", name="dismounted horseman"),
    # 5.6 Knight out of heavy armour: -5.
    "knight_unarmoured": _style("knight", "long sword", shield="medium", strength=14,
                                name="unarmoured knight"),
}

PRESETS = MappingProxyType({**STYLE_PRESETS, **EXAMPLE_PRESETS})

_S = STYLE_PRESETS

SCENARIOS = MappingProxyType({
    "skirmisher-duel": Scenario(
        "two Skirmishers with long swords (the benchmark duel)",
        (_S["skirmisher"],), (_S["skirmisher"],)),
    "solo-vs-group": Scenario(
        "000.7: a Gladiator (+5 alone) against a Legionnaire (-5 alone)",
        (_S["gladiator"],), (_S["legionnaire"],)),
    "legionnaires-vs-gladiators": Scenario(
        "000.7 fairness question 1 in company: two Legionnaires (leader's Task Assist) "
        "against two Gladiators (no solo bonus)",
        (_S["legionnaire"], _S["legionnaire"]), (_S["gladiator"], _S["gladiator"])),
    "hunter-vs-wolf": Scenario(
        "5.6 Hunter: +10 Skill against an animal, parries net 0",
        (_S["hunter"],), (EXAMPLE_PRESETS["wolf"],)),
    "knight-vs-two": Scenario(
        "000.11 fairness question 5: a Knight in heavy armour against two Skirmishers",
        (_S["knight"],), (_S["skirmisher"], _S["skirmisher"])),
    "shieldman-vs-three": Scenario(
        "000.5: a Shieldman's -2 defence step against three Skirmishers",
        (_S["shieldman"],), (_S["skirmisher"], _S["skirmisher"], _S["skirmisher"])),
    "ambush": Scenario(
        "5.6 Assassin: an ambush on a surprised Skirmisher (+1 damage rank)",
        (_S["assassin"],), (Combatant(name="victim", surprised=True),)),
    "archer-vs-skirmisher": Scenario(
        "the missile layer: an Archer (long bow, sidearm hand axe) against a "
        "Skirmisher closing over range_rounds rounds",
        (_S["archer"],), (_S["skirmisher"],)),
    "legion-2v3": Scenario(
        "two ranked Legionnaires against three loose Skirmishers",
        (Combatant(name="legionnaire", style="legionnaire", weapon="short sword",
                   shield="large", formation="ranked", leader=True),
         Combatant(name="legionnaire", style="legionnaire", weapon="short sword",
                   shield="large", formation="ranked")),
        (_S["skirmisher"], _S["skirmisher"], _S["skirmisher"])),
    "ranks-6v6": Scenario(
        "sides of six (5.25 DEFAULT ranks): three ranked Legionnaires with a leader in front "
        "of three ranked Spearmen, whose spears strike from the second rank, against six "
        "loose Skirmishers of Skill 38",
        tuple(Combatant(name="legionnaire", style="legionnaire", weapon="short sword",
                        shield="large", armour=_armour(torso=2), formation="ranked",
                        leader=i == 0) for i in range(3))
        + tuple(Combatant(name="spearman", style="spearman", weapon="spear", shield="medium",
                          missile="thrown spear", missiles=2, formation="ranked")
                for _ in range(3)),
        tuple(Combatant(name="skirmisher", skill=38) for _ in range(6))),
})
