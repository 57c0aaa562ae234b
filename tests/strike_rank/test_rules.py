"""The digest's worked examples (000.12) as test vectors, and the rule helpers.

Each test names the row of the "Worked examples as test vectors" table it checks.
Scenario tests drive the scalar reference with scripted dice (``balance.testing.ScriptedRng``).
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from balance.errors import SpecError
from balance.rulesets.strike_rank import StrikeRank, presets
from balance.rulesets.strike_rank import exact as E
from balance.rulesets.strike_rank import rules as R
from balance.rulesets.strike_rank import tables as T
from balance.rulesets.strike_rank.profile import (
    BLOCK,
    DODGE,
    SHIELD_PARRY,
    WEAPON_PARRY,
    profile,
    profiles,
    situation_parts,
    total,
)
from balance.rulesets.strike_rank.reference import _Fight
from balance.rulesets.strike_rank.rules import Combatant, Rules
from balance.testing import ScriptedRng as Scripted

RULES = Rules()


def fight_of(a: Combatant, b: Combatant, dice: list[int], rules: Rules = RULES
             ) -> tuple[_Fight, list[str]]:
    lines: list[str] = []
    f = _Fight(rules, (a,), (b,), Scripted(dice), lines.append)  # type: ignore[arg-type]
    f.round = 1
    return f, lines


def part(parts: list[tuple[str, int]], prefix: str) -> int:
    return sum(v for label, v in parts if label.startswith(prefix))


# --- initiative (000.2) --------------------------------------------------------------------


def test_1_dex_25_index_is_4_plus_2() -> None:
    assert R.initiative_index(25) == (4, 2)
    assert R.initiative_index(25, "floor") == (4, 1)  # the contradicting reading
    assert [R.initiative_index(x) for x in (5, 6, 13, 14, 17, 18, 20, 21, 24, 28, 29)] == [
        (1, 0), (2, 0), (2, 0), (3, 0), (3, 0), (4, 0), (4, 0), (4, 1), (4, 1), (4, 2), (4, 3)]


def test_2_dice_2_3_4_6_give_bonus_4_and_index_1_plus_2() -> None:
    bonus, kept = R.index_resolution([2, 3, 4, 6])
    _dice, flat = R.initiative_index(25)
    assert bonus + flat == 4
    assert (kept, flat) == (1, 2)


def test_2_reference_carries_only_fives_and_sixes() -> None:
    quick = presets.PRESETS["quick_dex25"]
    f, _lines = fight_of(quick, presets.PRESETS["skirmisher"], [2, 3, 4, 6])
    me = f.fs[0]
    f.roll_initiative(me)
    assert me.strike_rank == R.actions(12) + 4 and me.dice == 1
    f.values = None
    f.rng = Scripted([5])  # type: ignore[assignment]
    f.roll_initiative(me)
    assert me.strike_rank == R.actions(12) + 2 + 1 and me.dice == 1


def test_3_no_fives_or_sixes_give_bonus_2_and_index_0_plus_2() -> None:
    bonus, kept = R.index_resolution([1, 2, 3, 4])
    assert bonus + 2 == 2 and kept == 0


def test_4_index_4_plus_1_round_one() -> None:
    pmf = E.initiative_bonus_pmf(4, 1)
    assert pmf[1] == Fraction(2, 3) ** 4 == Fraction(16, 81)
    assert pmf.mean() == 3


def test_5_actions_from_agility() -> None:
    assert [R.actions(x) for x in (5, 6, 10, 11, 24, 25)] == [5, 6, 6, 7, 10, 11]
    assert [R.actions(x) for x in (1, 2, 3, 4, 15, 16, 18, 19, 20, 21, 28, 29)] == [
        1, 2, 3, 4, 7, 8, 8, 9, 9, 10, 11, 12]
    assert R.actions(25, "floor") == 10 and R.actions(28, "floor") == 11


# --- defence penalties (000.5) ----------------------------------------------------------------


def test_6_parry_parry_dodge_penalties() -> None:
    assert [R.defence_penalty(k) for k in range(3)] == [0, -5, -10]
    f, _ = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"], [])
    me, foe = f.fs
    got = []
    for kind in (WEAPON_PARRY, WEAPON_PARRY, DODGE):
        got.append(part(f.defence_options(me, foe, no_parry=False, behind=False)[kind],
                        "after"))
        f.count_defence(me, foe, kind)
    assert got == [0, -5, -10]


def test_7_shieldman_sixth_defence_after_five_shield_parries() -> None:
    shieldman = profile(presets.PRESETS["shieldman"], RULES)
    skirmisher = profile(presets.PRESETS["skirmisher"], RULES)
    assert R.defence_penalty(5, shieldman.step(SHIELD_PARRY)) == -10
    assert R.defence_penalty(5, skirmisher.step(WEAPON_PARRY)) == -25
    # the default scope covers every defence while it has a shield; the alternative only
    # shield parries
    assert shieldman.step(DODGE) == -2
    narrow = profile(presets.PRESETS["shieldman"], Rules(shieldman_step_scope="shield_parries"))
    assert narrow.step(DODGE) == -5 and narrow.step(SHIELD_PARRY) == -2


def test_8_knight_parry_then_armour_block() -> None:
    knight, foe = presets.PRESETS["knight"], presets.PRESETS["skirmisher"]
    # foe attacks: d20 20; knight parries (shield is his best parry): d20 1 -> fails;
    # Armour block d20 20 -> succeeds
    f, lines = fight_of(foe, knight, [20, 1, 20])
    atk, kn = f.fs
    opts = f.defence_options(kn, atk, no_parry=False, behind=False)
    assert part(opts[SHIELD_PARRY], "after") == 0
    f.attack(atk, kn, 1, verb="thrusts", depth=0)
    assert kn.n_def == 2
    block_line = next(x for x in lines if "then Armour block" in x)
    assert "-5 after 1 defence" in block_line and "blocked" in block_line
    # with one earlier defence: parry -5, block -10
    f, lines = fight_of(foe, knight, [20, 1, 20])
    atk, kn = f.fs
    kn.n_def = 1
    assert part(f.defence_options(kn, atk, no_parry=False, behind=False)[SHIELD_PARRY],
                "after") == -5
    f.attack(atk, kn, 1, verb="thrusts", depth=0)
    assert "-10 after 2 defences" in next(x for x in lines if "then Armour block" in x)
    # an armoured knight blocks without the base penalty; others pay it
    assert "armour block" not in [p[0] for p in profile(knight, RULES).block_parts(
        profile(foe, RULES))]
    gladiator = profile(presets.PRESETS["gladiator"], RULES)
    assert part(gladiator.block_parts(profile(foe, RULES)), "armour block") == 0
    legion = profile(presets.PRESETS["legionnaire"], RULES)
    assert part(legion.block_parts(profile(foe, RULES)), "armour block") == -10


# --- overpowering (000.6) -----------------------------------------------------------------------


def test_9_attack_65_vs_17() -> None:
    assert 65 - 17 > 0
    assert R.overpower_blocks(65 - 17) == 2
    assert R.overpower_blocks(40) == 2 and R.overpower_blocks(39) == 1
    assert R.overpower_blocks(40, strict=True) == 1 and R.overpower_blocks(41, strict=True) == 2
    # the example spends them on a called shot to the head and one rank
    assert R.spend_overpower(2, "head", RULES) == (T.HEAD, 1, False)
    assert R.spend_overpower(2, "rank", RULES) == (None, 2, False)
    assert R.spend_overpower(2, "disarm", RULES) == (None, 1, True)
    assert R.spend_overpower(2, "head", Rules(overpower_menu=("rank",))) == (None, 2, False)


def test_10_and_11_riposte_and_disarm_margins() -> None:
    assert R.reaches(60 - 40, T.OVERPOWER_BLOCK) and not R.reaches(60 - 40, T.DISARM_MARGIN)
    assert R.reaches(70 - 40, T.OVERPOWER_BLOCK) and R.reaches(70 - 40, T.DISARM_MARGIN)
    assert not R.reaches(20, 20, strict=True)


def test_10_reference_ripostes_after_a_parry_by_20() -> None:
    # skill 30 vs skill 45 +5 rapier +5 alone: attack d20 1 (31), parry d20 20 (75)
    swash = presets.PRESETS["overpowering_swashbuckler"]
    f, lines = fight_of(presets.PRESETS["skirmisher"], swash, [1, 20, 10, 10, 20, 1, 1])
    atk, sw = f.fs
    f.attack(atk, sw, 1, verb="thrusts", depth=0)
    assert any("ripostes" in x for x in lines)
    assert atk.n_def == 1  # the riposte's defence counts


def test_11_reference_disarms_at_30() -> None:
    swash = dataclasses.replace(presets.PRESETS["overpowering_swashbuckler"],
                                riposte_policy="disarm")
    f, lines = fight_of(presets.PRESETS["skirmisher"], swash, [1, 20])
    atk, sw = f.fs
    f.attack(atk, sw, 1, verb="thrusts", depth=0)
    assert atk.disarmed and any("disarms" in x for x in lines)
    f.rng = Scripted([])  # type: ignore[assignment]
    f.act(atk)  # the next action recovers the weapon
    assert not atk.disarmed


def test_12_dodge_by_20_gets_behind() -> None:
    dodger = Combatant(name="dodger", dodge=50, defence_policy="dodge")
    f, lines = fight_of(presets.PRESETS["skirmisher"], dodger, [1, 20])
    atk, dg = f.fs
    f.attack(atk, dg, 1, verb="thrusts", depth=0)
    assert dg.behind == atk.slot
    opts = f.defence_options(atk, dg, no_parry=False, behind=True)
    assert set(opts) == {DODGE}  # no armour to block with; no parry
    assert opts[DODGE][0] == ("dodge at half skill", 10)
    # the dodger's next attack on it uses the position
    f.rng = Scripted([10, 10, 3, 3])  # overpowered by 20: a called shot, no location roll
    dg.target = atk.slot
    dg.attack_type = 0
    f.act(dg)
    assert dg.behind is None and any("from behind" in x for x in lines)


def test_13_tie_is_a_miss() -> None:
    # skill 30 + d20 6 = 36 vs parry 30 + 5 + d20 1 = 36
    f, lines = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"], [6, 1])
    atk, dfn = f.fs
    f.attack(atk, dfn, 1, verb="thrusts", depth=0)
    assert dfn.points == 0 and "parried by 0" in lines[-1]
    # add_d20: both roll again (8 vs 3): the attack now hits by 5
    f, lines = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"],
                        [6, 1, 8, 3, 20, 1, 1], Rules(tie_rule="add_d20"))
    atk, dfn = f.fs
    f.attack(atk, dfn, 1, verb="thrusts", depth=0)
    assert any("margin +5" in x for x in lines)


def test_14_two_solo_fighters_both_get_plus_5() -> None:
    ps = profiles(RULES, (presets.PRESETS["gladiator"],), (presets.PRESETS["swashbuckler"],))
    for i in range(2):
        skill, dodge = situation_parts(ps, [True, True], i)
        assert total(skill) == 5 and total(dodge) == 5
    ps = profiles(RULES, (presets.PRESETS["gladiator"],), (presets.PRESETS["legionnaire"],))
    assert total(situation_parts(ps, [True, True], 1)[0]) == -5
    assert total(situation_parts(ps, [True, True], 1)[1]) == 0  # Dodge unaffected (default)


def test_15_berserk_gladiator_parries_at_minus_10() -> None:
    bg = presets.PRESETS["berserk_gladiator"]
    f, _ = fight_of(presets.PRESETS["skirmisher"], bg, [])
    atk, b = f.fs
    b.berserk = True
    opts = f.defence_options(b, atk, no_parry=False, behind=False)
    assert DODGE not in opts
    assert part(opts[SHIELD_PARRY], "berserk") == -10
    assert part(opts[BLOCK], "berserk") == -20
    # normal-mode Berserker: -5 on every defensive move; berserk replaces it (default)
    berserker = profile(presets.PRESETS["berserker"], RULES)
    assert total(berserker.berserker_parts(False, DODGE)) == -5
    assert total(berserker.berserker_parts(True, WEAPON_PARRY)) == -10
    stacked = profile(presets.PRESETS["berserker"], Rules(berserk_replaces_normal=False))
    assert total(stacked.berserker_parts(True, WEAPON_PARRY)) == -15


def test_16_swing_then_parry_at_minus_5_blow_minus_10() -> None:
    f, _ = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"], [])
    me, foe = f.fs
    for attack_type, penalty in ((1, -5), (2, -10), (0, 0)):
        me.attack_type = attack_type
        opts = f.defence_options(me, foe, no_parry=False, behind=False)
        assert part(opts[WEAPON_PARRY], "own") == penalty
        assert part(opts[DODGE], "own") == penalty
    # after_attack scope: only once it has attacked
    f, _ = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"], [],
                    Rules(attack_penalty_scope="after_attack"))
    me, foe = f.fs
    me.attack_type = 2
    assert part(f.defence_options(me, foe, no_parry=False, behind=False)[WEAPON_PARRY],
                "own") == 0
    me.acted = True
    assert part(f.defence_options(me, foe, no_parry=False, behind=False)[WEAPON_PARRY],
                "own") == -10


def test_17_and_18_equal_fixed_parts() -> None:
    t = E.opposed_table(0)
    assert t["hit"] == Fraction(19, 40) and t["tie"] == Fraction(1, 20)
    assert t["overpower"] == 0 and t["riposte"] == 0


# --- wounds (000.8.4) ---------------------------------------------------------------------


def test_19_end_14_wound_code_m_s_s() -> None:
    assert R.wound_code(14, RULES) == (T.M, T.S, T.S)
    w, u, k = R.stage_thresholds(14, RULES)
    m, s = R.rank_points(T.M), R.rank_points(T.S)
    assert m >= w and m < u  # one major: wounded
    assert m + s >= u and m + s < k  # then a serious: unconscious
    assert m + 2 * s >= k  # another serious: killed
    # through the reference: M on the left leg (d20 20, 2d6 5+5), then S (3+3)
    f, _lines = fight_of(presets.PRESETS["skirmisher"], presets.PRESETS["skirmisher"],
                        [20, 5, 5, 20, 3, 3])
    atk, dfn = f.fs
    f.wound(atk, dfn, 0, blocks=0)
    assert dfn.wounded and dfn.out is None
    f.wound(atk, dfn, 0, blocks=0)
    assert dfn.out == "unconscious"


def test_20_death_thresholds_by_endurance() -> None:
    assert R.death_ranks(20) == (T.M, T.MM)
    assert R.death_ranks(31) == (T.M, T.MM)
    assert R.death_ranks(32) == (T.MM, T.MM + 1)
    assert R.death_ranks(44) == (T.MM + 1, T.MM + 2)


def test_21_wound_matrix_beyond_17() -> None:
    assert [R.rank_name(R.wound_rank(x)) for x in (17, 18, 21, 22, 25, 26)] == [
        "MM", "MMM", "MMM", "MMMM", "MMMM", "MMMMM"]
    assert R.rank_name(R.wound_rank(18, "floor")) == "MM"
    assert [R.wound_rank(x) for x in (-5, 2, 3, 5, 6, 8, 9, 13, 14)] == [
        0, 0, 1, 1, 2, 2, 3, 3, 4]


def test_22_long_sword_thrust_rank_distribution() -> None:
    dist = E.wound_rank_pmf(RULES.weapon("long sword").thrust)  # type: ignore[arg-type]
    assert (dist[T.M], dist[T.S], dist[T.L]) == (Fraction(15, 36), Fraction(15, 36),
                                                 Fraction(6, 36))


def test_23_strength_requirements() -> None:
    weak = Combatant(strength=5)
    assert "below the long sword" in R.wield_problem(weak, RULES)  # type: ignore[operator]
    assert R.wield_problem(Combatant(strength=12, shield="medium"), RULES) is None
    assert "higher than 11" in R.wield_problem(  # type: ignore[operator]
        Combatant(strength=11, shield="medium"), RULES)
    assert R.wield_problem(weak, Rules(weapon_str_mode="off")) is None


# --- styles and equipment ---------------------------------------------------------------------


@pytest.mark.parametrize(("style", "weapon", "mod"), [
    ("archer", "hand axe", -10), ("archer", "long sword", -20),
    ("assassin", "short sword", 0), ("assassin", "battle axe", -10),
    ("assassin", "great sword", -20), ("bladesman", "knife", -5),
    ("bladesman", "long sword", -20), ("brawling", "punch", 0), ("brawling", "knife", -20),
    ("feral", "claws", 0), ("footpad", "long knife", 0), ("footpad", "short sword", -20),
    ("legionnaire", "long sword", 0), ("legionnaire", "bastard sword", -10),
    ("martial_artist", "punch", 0), ("martial_artist", "spear", -20),
    ("shieldman", "broadsword", 0), ("shieldman", "claymore", -10),
    ("spearman", "spear", 0), ("spearman", "halberd", -5), ("spearman", "long sword", -10),
    ("poleaxeman", "halberd", 0), ("poleaxeman", "spear", -5),
    ("specialist", "whip", 0), ("specialist", "long sword", -20),
    ("swashbuckler", "rapier", 0), ("swashbuckler", "claymore", -10),
    ("swashbuckler", "improvised", 0), ("skirmisher", "great axe", 0),
    ("gladiator", "battle axe", 0),
])
def test_style_weapon_modifiers(style: str, weapon: str, mod: int) -> None:
    c = Combatant(style=style, weapon=weapon, strength=20)
    assert R.style_weapon_mod(c, RULES) == mod
    assert R.style_weapon_mod(dataclasses.replace(c, style="gladiator"),
                              Rules(gladiator_weapons=("spear",))) in (0, -10)


def test_style_shield_and_situation_modifiers() -> None:
    skirm = profile(presets.PRESETS["skirmisher"], RULES)
    # Hunter against an animal: +10 to attacks, parries net 0
    hunter = profile(presets.PRESETS["hunter"], RULES)
    wolf = profile(presets.PRESETS["wolf"], RULES)
    assert hunter.attack_total(wolf) == hunter.attack_total(skirm) + 10
    assert total(hunter.parry_parts(wolf, WEAPON_PARRY)) == total(
        hunter.parry_parts(skirm, WEAPON_PARRY))
    # Knight out of heavy armour: -5 attacks and parries, not Dodge (default)
    bare = profile(presets.PRESETS["knight_unarmoured"], RULES)
    assert part(bare.attack_parts(skirm), "knight") == -5
    assert part(bare.dodge_parts(skirm), "knight") == 0
    # Horseman dismounted -10 on attacks; mounted non-horseman -10
    assert part(profile(presets.PRESETS["horseman_dismounted"], RULES).attack_parts(skirm),
                "horseman") == -10
    assert part(profile(presets.PRESETS["horseman"], RULES).attack_parts(skirm), "horse") == 0
    mounted = profile(Combatant(mounted=True), RULES)
    assert part(mounted.attack_parts(skirm), "mounted") == -10
    # Swashbuckler in Armour Rank 3: -5
    heavy = profile(Combatant(style="swashbuckler", weapon="rapier",
                              armour={"head": 0, "arms": 0, "torso": 3, "legs": 0}), RULES)
    assert part(heavy.attack_parts(skirm), "swashbuckler") == -5
    # Shieldman without a shield: -5; Assassin with a medium shield: -10 on shield parries
    assert part(profile(Combatant(style="shieldman"), RULES).attack_parts(skirm),
                "shieldman") == -5
    assassin = profile(Combatant(style="assassin", weapon="short sword", shield="medium"),
                       RULES)
    assert part(assassin.parry_parts(skirm, SHIELD_PARRY), "assassin") == -10
    assert R.style_shield_mod(Combatant(style="gladiator", shield="medium",
                                        shield_trained=False), RULES) == -10


def test_group_leader_ranks_and_outnumbered() -> None:
    legion = Combatant(style="legionnaire", weapon="short sword", formation="ranked")
    footpad = presets.PRESETS["footpad"]
    ps = profiles(RULES, (legion, legion), (footpad, presets.PRESETS["gladiator"]))
    everyone = [True] * 4
    # slot 0 leads (auto_leader): ranked +5; slot 1 also gets the Task Assist +5
    assert total(situation_parts(ps, everyone, 0)[0]) == 5
    assert total(situation_parts(ps, everyone, 1)[0]) == 10
    # the gladiator with an ally: no solo bonus; alone: +5
    assert total(situation_parts(ps, everyone, 3)[0]) == 0
    assert total(situation_parts(ps, [True, True, False, True], 3)[0]) == 5
    # footpad outnumbered 2 to 1 once the gladiator falls
    assert total(situation_parts(ps, [True, True, True, False], 2)[0]) == -5
    solo_ranked = Combatant(style="gladiator", formation="ranked")
    ps = profiles(RULES, (solo_ranked, solo_ranked), (footpad,))
    assert total(situation_parts(ps, [True, True, True], 0)[0]) == -10


def test_every_preset_can_fight_and_styles_are_covered() -> None:
    for name, c in presets.PRESETS.items():
        assert R.wield_problem(c, RULES) is None, name
    assert {c.style for c in presets.STYLE_PRESETS.values()} == set(T.STYLES)
    for c in presets.STYLE_PRESETS.values():
        if c.style not in ("archer", "bladesman"):  # missile styles: best melee weapon
            assert R.style_weapon_mod(c, RULES) == 0, c.style


def test_wound_codes_and_points() -> None:
    assert [R.rank_points(r) for r in range(6)] == [0, 1, 3, 9, 27, 81]
    assert R.wound_code(1, RULES) == (T.S, T.L, T.L)
    assert R.wound_code(33, RULES) == (T.MM, T.MM, T.MM)
    assert R.wound_code(37, RULES) == (T.MM + 1, T.MM, T.MM)
    assert R.wound_code(45, RULES) == (T.MM + 1, T.MM + 1, T.MM + 1)
    assert R.hit_location(1, RULES.hit_table) == T.HEAD
    assert R.hit_location(20, RULES.hit_table) == T.LEFT_LEG
    assert R.hit_location(3, RULES.hit_table, shift=-3) == T.HEAD


def test_bad_input_names_the_field() -> None:
    with pytest.raises(SpecError, match="hit_table"):
        Rules(hit_table={**T.HIT_FACES, "head": 5})
    with pytest.raises(SpecError, match="wound_code_table"):
        Rules(wound_code_table={**T.WOUND_CODES, "1-4": "S L"})
    with pytest.raises(SpecError, match="sr_tiebreak"):
        Rules(sr_tiebreak=("dex", "dex"))
    with pytest.raises(SpecError, match="'style' must be a row of rules 'styles'"):
        profile(Combatant(style="ninja"), RULES)
    with pytest.raises(SpecError, match="armour"):
        Combatant(armour={"head": 1})
    with pytest.raises(SpecError, match="specialist weapon"):
        profile(Combatant(weapon="whip"), RULES)
    with pytest.raises(SpecError, match="impossible"):
        profile(Combatant(weapon="great axe", attack_policy="thrust", strength=20), RULES)
    with pytest.raises(SpecError, match="two-handed"):
        profile(Combatant(weapon="claymore", shield="medium", strength=30), RULES)


# --- action costs (000.2.4): the digest's formula, with no floor unless one is set -----------


def test_action_cost_has_no_floor_by_default() -> None:
    rapier, knife = Combatant(weapon="rapier"), Combatant(weapon="knife")
    assert [R.action_cost(rapier, t, RULES) for t in range(3)] == [0, 1, 2]
    assert R.action_cost(knife, 0, RULES) == -1
    floored = Rules(action_cost_floor=1)
    assert R.action_cost(rapier, 0, floored) == 1 and R.action_cost(knife, 0, floored) == 1
    assert R.budget_cost(knife, 0, RULES) == 1  # a budget attack spends at least 1 Action
    assert StrikeRank().rules(action_cost_floor="none").action_cost_floor is None
    assert StrikeRank().rules(action_cost_floor="1").action_cost_floor == 1
    with pytest.raises(SpecError, match="action_cost_floor"):
        Rules(action_cost_floor=99)


def test_log_names_the_action_costs_that_break_a_tie() -> None:
    rapier = Combatant(name="rapier", weapon="rapier")
    sword = Combatant(name="sword")
    # round 1: both 2d6 show no 5 or 6, so both stand at 7 Actions; then each picks its
    # only foe (a draw of 0) and draws its random tie-break
    f, lines = fight_of(rapier, sword, [1, 2, 3, 4, 0, 0, 0.5, 0.5])
    for g in f.fs:
        f.roll_initiative(g)
    f.commit(f.fs)
    order = sorted(f.fs, key=f.order_key, reverse=True)
    f.say_order(order)
    assert lines[-1] == "  order: rapier [A1] (7, action cost 0), sword [B1] (7, action cost 1)"
    floored, lines2 = fight_of(rapier, sword, [1, 2, 3, 4, 0, 0], Rules(action_cost_floor=1,
                                                                  sr_tiebreak=("action_cost",
                                                                               "dex")))
    for g in floored.fs:
        floored.roll_initiative(g)
    floored.commit(floored.fs)
    order = sorted(floored.fs, key=floored.order_key, reverse=True)
    assert [g.p.c.name for g in order] == ["rapier", "sword"]  # equal cost and DEX: slot
    floored.say_order(order)
    assert lines2[-1].endswith("(7, action cost 1), sword [B1] (7, action cost 1)")


# --- seed rows (issue 14) ---------------------------------------------------------------------


def test_table_36_moves_are_rows_the_unarmed_styles_use() -> None:
    for move in ("punch", "straight kick", "butt", "knee"):
        w = RULES.weapon(move)
        assert w.kind == "unarmed" and move in T.INVENTED_WEAPON_NAMES
        for style, mod in (("brawling", 0), ("martial_artist", 0), ("feral", 0),
                           ("skirmisher", 0), ("swashbuckler", -10), ("legionnaire", -10)):
            assert R.style_weapon_mod(Combatant(style=style, weapon=move), RULES) == mod
    kick = profile(Combatant(style="brawling", weapon="straight kick"), RULES)
    assert not kick.can_weapon_parry and kick.types == (0, 2)  # no swing, no parry with it
    assert R.style_weapon_mod(Combatant(style="swashbuckler", weapon="improvised"), RULES) == 0


def test_log_names_the_move() -> None:
    lines: list[str] = []
    StrikeRank().fight(RULES, (Combatant(name="brawler", style="brawling",
                                         weapon="straight kick"),),
                       (Combatant(name="boxer", style="brawling", weapon="punch"),),
                       rng=__import__("numpy").random.default_rng(4), log=lines.append)
    text = "\n".join(lines)
    assert "brawler [A1] strikes a blow with its straight kick at boxer [B1]" in text
    assert "with its punch at brawler [A1]" in text


def test_half_skill_with_mods_halves_situation_and_wounds_too() -> None:
    dodger = profile(Combatant(dodge=25), RULES)
    situation = [("alone (solo style)", 5), ("wounded", -5)]
    skill_only = dodger.dodge_parts(dodger, True, situation)
    assert total(skill_only) == 12 + 5 - 5
    with_mods = profile(Combatant(dodge=25), Rules(half_skill_mode="with_mods"))
    assert total(with_mods.dodge_parts(with_mods, True, situation)) == (25 + 5 - 5) // 2
    assert total(with_mods.dodge_parts(with_mods, True, [("alone", 5)])) == 15
    block = profile(Combatant(armour={"head": 0, "arms": 0, "torso": 2, "legs": 0}),
                    Rules(half_skill_mode="with_mods"))
    assert total(block.block_parts(block, True, [("wounded", -5)])) == (30 + 10 - 10 - 5) // 2


def test_a_two_handed_bow_needs_free_hands() -> None:
    with pytest.raises(SpecError, match=r"'missile'.*strapped buckler"):
        profile(Combatant(style="archer", weapon="hand axe", missile="long bow",
                          shield="buckler"), RULES)
    archer = presets.PRESETS["archer"]
    assert archer.buckler_strapped and profile(archer, RULES).missile is not None
    assert R.shield_parry_bonus(archer) == T.STRAPPED_BUCKLER_PARRY


def test_untrained_fighters_roll_a_natural_skill() -> None:
    assert R.natural_dice("1d10") == (1, 10, 0) and R.natural_dice("2d6+3") == (2, 6, 3)
    assert R.natural_dice("7") == (0, 1, 7)
    assert R.natural_skill_mean(RULES) == 5.5
    with pytest.raises(SpecError, match="untrained_skill"):
        Rules(untrained_skill="d")
    with pytest.raises(SpecError, match="'untrained'"):
        profile(Combatant(style="knight", untrained=True), RULES)
    p = profile(Combatant(untrained=True, skill=40), RULES)
    assert p.c.skill == 0  # the natural skill replaces it, rolled each fight
    lines: list[str] = []
    StrikeRank().fight(RULES, (Combatant(name="peasant", untrained=True),),
                       (Combatant(name="brawler", style="brawling", weapon="punch",
                                  untrained=True),),
                       rng=__import__("numpy").random.default_rng(2), log=lines.append)
    assert lines[0] == "peasant [A1] fights skirmisher untrained: natural skill 1d10 -> 9"
    assert "0 skill +9 natural skill + d20" in "\n".join(lines)


def test_swashbuckler_mobility_dodges_on_its_skill_unless_heavily_armoured() -> None:
    def dodge(torso: int, rules: Rules = RULES) -> list[tuple[str, int]]:
        p = profile(Combatant(style="swashbuckler", weapon="rapier", skill=40, dodge=25,
                              armour={"head": 0, "arms": 0, "torso": torso, "legs": 0}), rules)
        return p.dodge_parts(p)
    assert dodge(0) == [("swashbuckler skill (mobility)", 40)]
    assert dodge(2) == [("swashbuckler skill (mobility)", 40)]
    assert dodge(3) == [("dodge", 25)]  # armour rank > 2: too encumbered (5.6)
    assert dodge(0, Rules(mobility_task="off")) == [("dodge", 25)]
    skirmisher = profile(Combatant(skill=40, dodge=25), RULES)
    assert skirmisher.dodge_parts(skirmisher) == [("dodge", 25)]


def test_a_holder_acts_just_before_its_target_once_it_declares() -> None:
    quick = Combatant(name="quick", agility=20, hold_policy="react", target_policy="weakest")
    mid = Combatant(name="mid", skill=28)
    slow = Combatant(name="slow", agility=6, skill=25)
    lines: list[str] = []
    f = _Fight(RULES, (quick,), (mid, slow), __import__("numpy").random.default_rng(1),
               lines.append)
    f.round = 1
    living = list(f.fs)
    for g in living:
        f.roll_initiative(g)
    for g in living:  # no dice: Strike Ranks 9, 7, 6
        g.strike_rank = g.p.actions + g.p.flat
    f.commit(living)
    order = sorted(living, key=f.order_key, reverse=True)
    assert [g.p.c.name for g in order] == ["quick", "mid", "slow"]
    assert f.fs[f.fs[0].target].p.c.name == "slow"  # the weakest: least Skill
    held = f.hold(order)
    assert [g.p.c.name for g in held] == ["mid", "quick", "slow"]
    text = "\n".join(lines)
    assert "quick [A1] holds until slow [B2] declares (thrusts), then acts before it" in text
    assert lines[-1].startswith("  order: mid [B1] (7), quick [A1] (9), slow [B2] (6)")
    # in a duel the order stays (the holder is first), but it answers the declared type
    g, _ = fight_of(Combatant(agility=20, hold_policy="react"),
                    Combatant(attack_policy="blow"), [1, 1, 1, 1, 0, 0, 0.5, 0.5])
    for x in g.fs:
        g.roll_initiative(x)
    g.commit(g.fs)
    duel = sorted(g.fs, key=g.order_key, reverse=True)
    assert g.hold(duel) == duel and g.fs[0].attack_type == g.best[0][1][3]


def test_a_second_style_is_used_where_it_is_better() -> None:
    archer = profile(Combatant(style="archer", weapon="hand axe", second_style="skirmisher",
                               second_skill=25), RULES)
    parts = archer.attack_parts(archer)
    assert parts[0] == ("skirmisher skill", 25) and total(parts) == 25  # not 30 - 10
    alone = profile(Combatant(style="archer", weapon="hand axe"), RULES)
    assert total(alone.attack_parts(alone)) == 20
    assert archer.parry_parts(archer, WEAPON_PARRY)[0] == ("skirmisher skill", 25)
    keen = profile(Combatant(style="archer", weapon="hand axe", second_style="skirmisher",
                             second_skill=15), RULES)
    assert keen.attack_parts(keen)[0] == ("archer skill", 30)  # the archer's own is better
    with pytest.raises(SpecError, match="'second_style' names its first style"):
        profile(Combatant(second_style="skirmisher"), RULES)
    with pytest.raises(SpecError, match="knows no second style"):
        profile(Combatant(untrained=True, second_style="brawling"), RULES)
    with pytest.raises(SpecError, match="'second_style' must be a row"):
        profile(Combatant(second_style="ninja"), RULES)
    with pytest.raises(SpecError, match="'unarmed_move' must be an unarmed row"):
        profile(Combatant(when_disarmed="fight_unarmed", unarmed_move="knife"), RULES)


def test_one_style_a_fight_under_style_mix_per_fight() -> None:
    # style_mix="per_fight" (AMBIG): every roll in the style with the better attack skill
    # with its weapon -- skirmisher 25 against the archer's 30 - 10 with the hand axe -- so
    # the archer shoots at 25 in it; per_roll (the default) shoots at 30 as an archer
    rules = dataclasses.replace(RULES, style_mix="per_fight")
    c = Combatant(style="archer", weapon="hand axe", missile="long bow", missiles=6,
                  second_style="skirmisher", second_skill=25)
    mixed, one = profile(c, RULES), profile(c, rules)
    assert one.committed == "skirmisher" and mixed.committed is None
    assert mixed.missile_parts(mixed)[0] == ("archer skill", 30)
    assert one.missile_parts(one)[0] == ("skirmisher skill", 25)
    assert one.parry_parts(one, WEAPON_PARRY)[0] == ("skirmisher skill", 25)
    keen = profile(dataclasses.replace(c, second_skill=20), rules)  # a tie: the first style
    assert keen.committed == "archer" and keen.parry_parts(keen, WEAPON_PARRY)[0] == (
        "archer skill", 30)
    sailor = profile(Combatant(when_disarmed="fight_unarmed", second_style="brawling",
                               second_skill=40, skill=35), rules)
    # brawling 40 - 20 with a long sword: skirmisher, and unarmed too (brawling would be 40)
    assert sailor.committed == sailor.unarmed.committed == "skirmisher"
    assert sailor.unarmed.attack_parts(sailor)[0] == ("skirmisher skill", 35)
    lines: list[str] = []
    StrikeRank().fight(rules, (c,), (Combatant(name="foe"),),
                       rng=__import__("numpy").random.default_rng(1), log=lines.append)
    text = "\n".join(lines)
    assert "skirmisher skill" in text and "archer skill" not in text


def test_the_disarm_policy_buys_a_rank_against_a_disarmed_foe() -> None:
    # a second disarm buys nothing: the block goes to the menu's next option (+1 rank, else
    # a called shot to the head); a disarming parry ripostes instead
    assert R.spend_overpower(2, "disarm", RULES) == (None, 1, True)
    assert R.spend_overpower(2, "disarm", RULES, disarmed=True) == (None, 2, False)
    no_rank = dataclasses.replace(RULES, overpower_menu=("location", "disarm"))
    assert R.spend_overpower(1, "disarm", no_rank, disarmed=True) == (T.HEAD, 0, False)
    assert R.spend_overpower(1, "head", RULES, disarmed=True) == (T.HEAD, 0, False)
    sailor = Combatant(name="sailor", when_disarmed="fight_unarmed", second_style="brawling",
                       second_skill=30, unarmed_move="straight kick")
    fencer = Combatant(name="fencer", skill=45, overpower_policy="disarm",
                       riposte_policy="disarm")
    fallbacks = 0
    for seed in range(40):
        lines: list[str] = []
        StrikeRank().fight(RULES, (sailor,), (fencer,),
                           rng=__import__("numpy").random.default_rng(seed), log=lines.append)
        text = "\n".join(lines)
        if "sailor [A1] is disarmed" in text or "disarms sailor" in text:
            after = text[min(i for i in (text.find("sailor [A1] is disarmed"),
                                         text.find("disarms sailor")) if i >= 0) + 1:]
            assert ": a disarm" not in after and "disarms sailor" not in after
            fallbacks += "(no disarm: sailor [A1] is disarmed already), +1 rank" in after
    assert fallbacks  # the fallback was exercised


def test_a_disarmed_brawler_fights_on_unarmed() -> None:
    sailor = Combatant(name="sailor", when_disarmed="fight_unarmed", second_style="brawling",
                       second_skill=30)
    fencer = Combatant(name="fencer", riposte_policy="disarm", skill=45)
    for seed in range(60):
        lines: list[str] = []
        StrikeRank().fight(RULES, (sailor,), (fencer,),
                           rng=__import__("numpy").random.default_rng(seed), log=lines.append)
        text = "\n".join(lines)
        assert "recovering its weapon" not in text
        if "sailor [A1] thrusts with its punch (disarmed) at fencer [B1]" in text:
            first = text.index("sailor [A1] thrusts with its punch (disarmed)")
            assert text.index("fencer [B1] disarms sailor [A1]") < first
            return
    raise AssertionError("no unarmed attack after a disarm in 60 fights")


def test_ranks_hold_the_rear_out_of_reach() -> None:
    rs = StrikeRank()
    ranks = rs.side(["legionnaire,formation=ranked,leader=true,name=front",
                     "legionnaire,formation=ranked,name=second",
                     "spearman,formation=ranked,name=pike"])
    foes = rs.side(["skirmisher,name=raider"] * 3)
    rules = Rules(rank_frontage=1, range_rounds=0)
    lines: list[str] = []
    f = _Fight(rules, ranks, foes, __import__("numpy").random.default_rng(3), lines.append)
    assert [f.in_front(g) for g in f.fs] == [True, False, False, True, True, True]
    assert {g.slot for g in f.foes(f.fs[3])} == {0}  # only the front rank can be reached
    f.run()
    text = "\n".join(lines)
    assert "second [A2] waits in the second rank" in text
    assert "pike [A3] thrusts with its spear at raider" in text  # a reach weapon strikes
    with pytest.raises(SpecError, match=r"allows 1\.\.6"):
        rs.check_sides(RULES, rs.side(["skirmisher"] * 7), rs.side("skirmisher"))
