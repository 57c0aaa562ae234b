"""The missile layer: style missile modifiers (000.7), Aim (5.16 / 000.10), the range phase.

Digest-derived vectors for the style clauses and the Aim rule; the kernel against the
reference in distribution with missiles on (chi-square homogeneity, fixed seeds, threshold
fixed in advance: ``p > 1e-3``, a false alarm of 0.1% per matchup for a correct kernel);
``range_rounds=0`` reproducing the melee-only numbers exactly; bad input naming its field.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from balance import stats
from balance.errors import SpecError
from balance.random import stream
from balance.rulesets.strike_rank import StrikeRank, presets
from balance.rulesets.strike_rank import reference as ref
from balance.rulesets.strike_rank import rules as R
from balance.rulesets.strike_rank.profile import profile, profiles, range_phase, total
from balance.rulesets.strike_rank.rules import Combatant, Rules
from balance.testing import kernel_counts, reference_counts

RS = StrikeRank()
RULES = Rules()
P_MIN = 1e-3  # false alarm 0.1% per comparison for a correct kernel


# --- 000.7: the styles' missile and thrown clauses ------------------------------------------

@pytest.mark.parametrize(("style", "missile", "mod"), [
    # Archer / Crossbowman: bows & crossbows 0; short weapons <= 0.8 m -10; others -20
    ("archer", "long bow", 0), ("archer", "short bow", 0), ("archer", "crossbow", 0),
    ("archer", "throwing knife", -10), ("archer", "throwing axe", -10),
    ("archer", "javelin", -20), ("archer", "sling", -20),
    # Berserker: missile weapons -5
    ("berserker", "long bow", -5), ("berserker", "javelin", -5),
    # Bladesman: thrown 0, missile weapons -5 (000.9 #16)
    ("bladesman", "throwing knife", 0), ("bladesman", "throwing axe", 0),
    ("bladesman", "javelin", 0), ("bladesman", "short bow", -5), ("bladesman", "sling", -5),
    # Footpad: most missile and thrown -5, bows & crossbows -10
    ("footpad", "throwing knife", -5), ("footpad", "sling", -5), ("footpad", "long bow", -10),
    ("footpad", "crossbow", -10),
    # Knight: missile and thrown -20; Martial artist -20; Shieldman -10
    ("knight", "crossbow", -20), ("knight", "javelin", -20),
    ("martial_artist", "throwing knife", -20), ("shieldman", "short bow", -10),
    ("shieldman", "javelin", -10),
    # Spearman: may throw spears (0), other missiles -10; Poleaxeman spears -5, others -10
    ("spearman", "thrown spear", 0), ("spearman", "javelin", 0), ("spearman", "sling", -10),
    ("poleaxeman", "thrown spear", -5), ("poleaxeman", "long bow", -10),
    # no missile clause: the melee rules on the row (Skirmisher none, Assassin by Speed)
    ("skirmisher", "long bow", 0), ("hunter", "short bow", 0),
    ("assassin", "throwing knife", 0), ("assassin", "short bow", -10),
    ("assassin", "crossbow", -20), ("legionnaire", "javelin", -10),
])
def test_style_missile_modifiers(style: str, missile: str, mod: int) -> None:
    c = Combatant(style=style, missile=missile, strength=20)
    assert R.style_missile_mod(c, RULES) == mod
    # the melee modifier is untouched by the missile field
    assert R.style_weapon_mod(c, RULES) == R.style_weapon_mod(
        dataclasses.replace(c, missile="none"), RULES)


def test_aim_doubled_and_capped() -> None:
    def bonus(style: str, aims: int, rules: Rules = RULES) -> int:
        return R.aim_bonus(Combatant(style=style, aim_actions=aims), rules)

    # 000.10: +5 per aim, at most +10; doubled for Archer / Crossbowman and Bladesman
    assert [bonus("skirmisher", k) for k in range(4)] == [0, 5, 10, 10]
    assert [bonus("archer", k) for k in range(4)] == [0, 10, 20, 20]
    assert [bonus("bladesman", k) for k in range(4)] == [0, 10, 20, 20]
    assert bonus("knight", 2, Rules(aim_step=3, aim_max=5)) == 5
    assert bonus("archer", 1, Rules(aim_step=3, aim_max=5)) == 6


def test_shot_totals_and_presets() -> None:
    archer = dataclasses.replace(presets.PRESETS["archer"], aim_actions=1)
    skirmisher = presets.PRESETS["skirmisher"]
    pa, ps = profiles(RULES, (archer,), (skirmisher,))
    # 30 skill + 0 (long bow) + 10 (one aim, doubled)
    assert total(pa.missile_parts(ps)) == 40
    assert pa.shot_cost == 1 and ps.missile is None
    assert range_phase([pa, ps]) == 2
    assert range_phase(profiles(Rules(range_rounds=0), (archer,), (skirmisher,))) == 0
    # nobody with shots, or an ambush: no range phase
    assert range_phase(profiles(RULES, (skirmisher,), (skirmisher,))) == 0
    victim = Combatant(surprised=True)
    assert range_phase(profiles(RULES, (archer,), (victim,))) == 0
    crossbow = profile(Combatant(missile="crossbow", aim_actions=1), RULES)
    assert crossbow.shot_cost == 2  # one reload, one aim
    assert profile(dataclasses.replace(archer, missiles=0), RULES).missile is None
    assert R.style_missile_mod(presets.PRESETS["bladesman"], RULES) == 0
    assert R.style_missile_mod(presets.PRESETS["spearman"], RULES) == 0


def test_reference_log_narrates_the_range_phase() -> None:
    lines: list[str] = []
    a = (Combatant(name="xbow", style="archer", missile="crossbow", missiles=3, aim_actions=1,
                   weapon="knife"),)
    b = (presets.PRESETS["shieldman"],)
    out = ref.fight(Rules(range_rounds=5), a, b, rng=np.random.default_rng(4),
                    log=lines.append)
    assert out.rounds > 5  # this seed's fight reaches melee
    text = "\n".join(lines)
    assert lines[0].startswith("Round 1 (range: the sides close in 4 more rounds)")
    assert "shieldman [B1] has nothing to shoot and closes in" in text
    assert "xbow [A1] aims at shieldman [B1] (1/1)" in text
    assert "xbow [A1] shoots its crossbow at shieldman [B1] (2 left): 30 skill +10 aimed x1" in text
    assert "xbow [A1] reloads its crossbow (1/1)" in text
    assert "shield parry" in text  # the Shieldman parries shots with its shield
    assert "the sides close: melee from the next round" in text
    assert "Round 6\n" in text + "\n" or any(x == "Round 6" for x in lines)


def test_range_rounds_zero_reproduces_the_melee_numbers() -> None:
    # counts from the kernel before the missile layer existed (commit cc9bb81), same seed;
    # both sides thrust, as the attack-type rule of that time chose for these matchups, and
    # action costs are floored at 1, as they were then
    # (the Archer then held its buckler, Parry +5; its preset now straps it to the forearm,
    # Parry +0, for the two-handed long bow: that Archer is the same fighter with a one-handed
    # missile weapon, which the buckler in hand allows)
    before = {("archer,buckler_strapped=false,missile=sling", "skirmisher"):
              ([0, 119, 19881], 123303),
              ("bladesman", "spearman"): ([0, 391, 19609], 65634)}
    for (a, b), (wins, rounds) in before.items():
        out = RS.simulate(Rules(range_rounds=0, action_cost_floor=1),
                          RS.side(f"{a},attack_policy=thrust"),
                          RS.side(f"{b},attack_policy=thrust"), n=20000,
                          rng=stream(5, "melee"))
        assert np.bincount(out.winner, minlength=3).tolist() == wins
        assert int(out.rounds.sum()) == rounds
    # the preset Archer (long bow, strapped buckler) fights as it does without its bow
    bow, no_bow = (RS.simulate(Rules(range_rounds=0), RS.side(a), RS.side("skirmisher"),
                               n=5000, rng=stream(5, "melee"))
                   for a in ("archer", "archer,missile=none,missiles=0"))
    assert np.array_equal(bow.winner, no_bow.winner)
    assert np.array_equal(bow.rounds, no_bow.rounds)
    # and a melee-only matchup is the same whatever range_rounds says
    side = RS.side("skirmisher")
    one = RS.simulate(Rules(range_rounds=0), side, side, n=5000, rng=stream(6, "x"))
    two = RS.simulate(Rules(range_rounds=3), side, side, n=5000, rng=stream(6, "x"))
    assert np.array_equal(one.winner, two.winner) and np.array_equal(one.rounds, two.rounds)


def test_range_phase_helps_the_archer() -> None:
    a, b = RS.side("archer"), RS.side("skirmisher")
    rates = [float(np.mean(RS.simulate(Rules(range_rounds=r), a, b, n=20000,
                                       rng=stream(7, "r")).winner == 1)) for r in (0, 2)]
    assert rates[0] < 0.02 and rates[1] > 0.35, rates


def test_bad_missile_input_names_the_field() -> None:
    # names are rows of the rules' tables, checked when the fighter is profiled (every
    # command does that before it runs)
    with pytest.raises(SpecError, match="'weapon'"):
        profile(Combatant(weapon="long bow"), RULES)  # a bow is no melee sidearm
    with pytest.raises(SpecError, match="'missile'"):
        profile(Combatant(missile="bazooka"), RULES)
    with pytest.raises(SpecError, match="'missiles'"):
        Combatant(missile="sling", missiles=-1)
    with pytest.raises(SpecError, match="'aim_actions'"):
        Combatant(aim_actions=-1)
    with pytest.raises(SpecError, match="'range_rounds'"):
        Rules(range_rounds=-1)
    with pytest.raises(SpecError, match="'range_rounds'"):
        Rules(range_rounds=10, max_rounds=10)
    with pytest.raises(SpecError, match=r"missile_weapons\.crossbow\.reload: must be"):
        Rules(missile_weapons={"crossbow": {"reload": -1}})
    with pytest.raises(SpecError, match="'missile'"):
        profile(Combatant(missile="long bow", strength=8), RULES)
    with pytest.raises(SpecError, match="missile"):
        RS.check_sides(RS.rules(), RS.side(["skirmisher,missile=trebuchet"]),
                       RS.side("skirmisher"))
    tougher = Rules(missile_weapons={"long bow": {"damage": 4}})  # one column changed
    assert tougher.missile("long bow").damage == 4 and tougher.missile("long bow").kind == "bow"
    assert tougher.missile("short bow") == RULES.missile("short bow")


# --- the kernel against the reference with missiles on ----------------------------------------

N_KERNEL = 60_000
CASES: list[tuple[str, list[str], list[str], dict[str, Any], int]] = [
    ("archer-vs-skirmisher", ["archer"], ["skirmisher"], {}, 2500),
    ("crossbow-reload-vs-shieldman", ["archer,missile=crossbow,missiles=3,aim_actions=2,"
                                      "weapon=knife"], ["shieldman"], {"range_rounds": 6},
     2500),
    ("throwers-duel-berserk", ["bladesman,aim_actions=1"],
     ["berserk_gladiator,missile=javelin,missiles=2"],
     {"range_rounds": 4, "tie_rule": "add_d20", "missile_weapon_parry": True}, 2500),
    ("footpad-knives-vs-knight", ["footpad,missile=throwing knife,missiles=5,"
                                  "overpower_policy=rank,defence_policy=dodge"],
     ["knight,shield=buckler,buckler_strapped=true,missile=crossbow,missiles=2"],
     {"range_rounds": 5, "limb_destroyed": "crippled", "overpower_strict": True}, 2000),
    ("groups-shooting", ["archer,target_policy=weakest", "spearman"],
     ["skirmisher,missile=sling,missiles=4,defence_policy=none", "hunter,missile=short bow"],
     {"range_rounds": 3, "action_economy": "budget"}, 800),
]


def test_two_handed_missile_weapon_needs_free_hands() -> None:
    # the Knight's medium shield leaves no hand for a crossbow; a strapped buckler does
    # (5.6 Archer); a one-handed javelin goes with the shield
    with pytest.raises(SpecError, match=r"two-handed.*field 'missile'"):
        RS.check_sides(RS.rules(), RS.side("footpad"),
                       RS.side("knight,missile=crossbow,missiles=2"))
    RS.check_sides(RS.rules(), RS.side("footpad"),
                   RS.side("knight,shield=buckler,buckler_strapped=true,missile=crossbow"))
    RS.check_sides(RS.rules(), RS.side("footpad"), RS.side("knight,missile=javelin"))


@pytest.mark.parametrize(("a", "b", "overrides", "n_ref"),
                         [pytest.param(a, b, o, n, id=i) for i, a, b, o, n in CASES])
def test_kernel_agrees_with_reference_with_missiles(a: list[str], b: list[str],
                                                    overrides: dict[str, Any],
                                                    n_ref: int) -> None:
    rules = RS.rules(overrides)
    side_a, side_b = RS.side(a), RS.side(b)
    RS.check_sides(rules, side_a, side_b)
    assert range_phase(profiles(rules, side_a, side_b)) > 0
    kernel = kernel_counts(RS, rules, side_a, side_b, N_KERNEL, seed=21)
    reference = reference_counts(RS, rules, side_a, side_b, n_ref, seed=22)
    p = stats.chi2_homogeneity(kernel, reference)
    assert p > P_MIN, (p, kernel.sum(), reference.sum())
