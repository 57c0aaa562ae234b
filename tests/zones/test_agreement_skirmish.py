"""Kernel against reference on N-vs-M skirmishes over zone maps: frontage, chokepoints,
held ground, ranged fire and the movement rules.  Thresholds fixed in advance: every
p-value must exceed 1e-3 (false alarm 0.1% each for a correct kernel)."""

from __future__ import annotations

import pytest

from balance.rulesets.zones.rules import Combatant, Rules

from .conftest import ZONES, compare, scenario

ARCHER = Combatant(name="archer", agility=3, weapon="light", ranged="long_bow",
                   policy="skirmish", keep_distance=1, speed=3)
HEAVY = Combatant(name="heavy", might=2, weapon="two_handed", armour=3, speed=1, slowed=True)

VARIANTS = {
    # hazard, cover and commanding zones; slowed and entangled; pursuit; free shifts
    "hill": (Rules(battlefield="hill", initial_gap="medium", shift_speed_rule=
                   "speed2_first_shift_free", activation="initiative_speed", death_saves=True),
             (ARCHER, Combatant(name="guard", policy="guard", guard="archer", shield=True),
              Combatant(name="spear", zone="copse", ranged="thrown", policy="hold",
                        melee_first=False)),
             (HEAVY, Combatant(name="runner", speed=3, entangled=True, target="weakest"),
              Combatant(name="xbow", ranged="crossbow", policy="skirmish", agility=2))),
    # a held line that leavers must pass; per-leave free strikes with MAP and frontage
    "held line": (Rules(battlefield="loop", initial_gap="short", hold_strikes="per_leave",
                        free_strike_map=True, free_strike_frontage=True,
                        penalty_stacking="worst", charge_scope="all_strikes",
                        shift_speed_rule="speed1_shift_costs_2", activation="side_all"),
                  (Combatant(name="h1", zone="north", policy="hold", speed=1),
                   Combatant(name="h2", zone="north", policy="hold", shield=True),
                   Combatant(name="prize", zone="south", priority=3, policy="hold",
                             ranged="short_bow"),
                   Combatant(name="bow", zone="west", policy="skirmish", ranged="short_bow")),
                  (Combatant(name="r1", zone="north", target="priority", disengage=False, speed=3),
                   Combatant(name="r2", target="priority", steady=1, max_attacks=3),
                   Combatant(name="r3", zone="north", target="priority"),
                   Combatant(name="r4", target="weakest", spare="pass"))),
    # a gauntlet: leaving the held centre draws free Strikes unless the leaver Disengages
    "gauntlet": (Rules(battlefield="line", initial_gap="short"),
                 (Combatant(name="h1", zone="centre", policy="hold", max_attacks=1),
                  Combatant(name="h2", zone="centre", policy="hold", max_attacks=1, shield=True),
                  Combatant(name="prize", zone="west", priority=2, policy="hold",
                            ranged="short_bow", hp=16)),
                 tuple(Combatant(name=f"r{k}", target="priority", disengage=k % 2 == 0,
                                 weapon="light") for k in range(4))),
    # Defend capped at one or two actions (the rest wait), leavers who take the free
    # Strikes, and attackers who fight where they are engaged
    "capped defends": (Rules(battlefield="line", initial_gap="short"),
                       (Combatant(name="h1", zone="centre", policy="hold", max_attacks=1,
                                  might=3, weapon="two_handed", defends=1),
                        Combatant(name="h2", zone="centre", policy="hold", max_attacks=1,
                                  might=3, weapon="two_handed", shield=True, defends=2),
                        Combatant(name="prize", zone="west", priority=2, policy="hold",
                                  ranged="short_bow", hp=16, defends=1)),
                       tuple(Combatant(name=f"r{k}", target="priority", disengage=False,
                                       leave_engaged=k % 2 == 0, hp=12) for k in range(4))),
}


@pytest.mark.parametrize(("name", "n_ref"), [("skirmish", 700), ("door", 700)])
def test_kernel_matches_reference_on_skirmish_scenarios(name, n_ref):
    p = compare(*scenario(name), n_ref, seed=31)
    assert min(p) > 1e-3, p  # false alarm 0.1% per p-value for a correct kernel


@pytest.mark.parametrize("name", list(VARIANTS))
def test_kernel_matches_reference_on_rule_variants(name):
    rules, a, b = VARIANTS[name]
    ZONES.check_sides(rules, a, b)
    p = compare(rules, a, b, 700, seed=41)
    assert min(p) > 1e-3, p  # false alarm 0.1% per p-value for a correct kernel
