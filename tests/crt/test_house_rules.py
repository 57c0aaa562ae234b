"""crt house rules (issue 21): rows of modifiers in the rules language, honoured alike by
the kernel (both paths), the narrated reference and the exact chain.

Statistical thresholds are fixed in advance, as in test_agreement.py: each chi-square test
rejects a correct kernel with probability ALPHA = 1e-3 (its p-value threshold); the seeds
are fixed, so a pass is repeatable.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import balance
from balance.errors import IntractableError, SpecError
from balance.rulesets.crt import Combatant, Rules
from balance.rulesets.crt import kernel as crt_kernel
from balance.rulesets.crt.language import house_rules, vocabulary
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import kernel_counts, reference_counts

crt = balance.get("crt")
ALPHA = 1e-3  # per-test false-alarm rate for a correct kernel

SHIELD = {"shield_against_two_handed": {
    "doc": "a shield adds 2 to the score against a two-handed weapon",
    "modifiers": [{"to": "score", "amount": 2,
                   "when": 'self.shield != "none" and target.weapon == "two_handed"'}]}}
WOUNDED = {"wounded": {"modifiers": [
    "-3 to score when self.wounds >= 3",
    "+1 to damage when target.health <= 4"]}}
OPENING = {"opening": {"modifiers": ['+6 to score when round == 1 and self.shield != "none"']}}
DICE = {"crushing": {"modifiers": ["1d4 to damage when self.health < 6 and target.armour == "
                                   '"none"']}}
A = Combatant(name="a", agility=10, toughness=10, shield="round")
B = Combatant(name="b", strength=10, toughness=9, weapon_type="two_handed")


def _rules(house: dict, **fields) -> Rules:
    return Rules(extraordinary=False, house_rules=house, **fields)


def test_rows_compile_with_their_row_names():
    rows = house_rules(_rules({**SHIELD, **WOUNDED}))
    assert [m.name for m in rows.modifiers] == ["shield_against_two_handed", "wounded",
                                                "wounded"]
    assert [m.to for m in rows.modifiers] == ["score", "score", "damage"]
    assert rows.on("damage")[0].when.names_used == ("target.health",)
    assert not house_rules(Rules())  # no rows: nothing to read, nothing to pay


def test_a_mistake_is_refused_when_the_rules_are_made():
    with pytest.raises(SpecError, match=r"house_rules\.x\.modifiers\[0\]\.when: .*unknown name "
                                        r"'self\.helth'"):
        Rules(house_rules={"x": {"modifiers": [{"to": "score", "amount": 1,
                                                "when": "self.helth < 3"}]}})


def test_vocabulary_names_and_targets():
    names = vocabulary().names
    for field in ("weapon", "shield", "skill", "combats", "health", "wounds"):
        assert f"self.{field}" in names and f"target.{field}" in names
    assert names["round"].range == (0, 10_000) and names["foes_engaged"].range == (1, 3)
    assert names["self.weapon"].choices == ("one_handed", "two_handed", "unarmed")
    assert list(vocabulary().targets) == ["score", "damage"]
    assert crt.describe()["language"]["targets"] == dict(vocabulary().targets)


# --- the exact chain against the kernel --------------------------------------------------------
EXACT_CASES = {
    "shield (fixed names: the plain path folds it)": (SHIELD, A, B),
    "wounded (health: the general path, the chain's states)": (WOUNDED, A, B),
    "opening (round: round-by-round laws)": (OPENING, A, B),
    "crushing (dice in damage: their distribution)": (DICE, A, B),
    "wounded, with diversion": (WOUNDED, dataclasses.replace(A, divert="if_deficit"),
                                dataclasses.replace(B, divert="below_health")),
}


@pytest.mark.parametrize("name", list(EXACT_CASES))
def test_kernel_matches_exact(name):
    house, a, b = EXACT_CASES[name]
    rules = _rules(house)
    exact = crt.exact(rules, (a,), (b,))
    assert exact.a_win + exact.b_win + exact.draw == pytest.approx(1.0, abs=1e-12)
    out = crt.simulate(rules, (a,), (b,), n=200_000, rng=np.random.default_rng(71))
    counts = np.bincount(out.winner, minlength=3)
    assert gof_pvalue(counts, [exact.draw, exact.a_win, exact.b_win]) > ALPHA
    se = out.rounds.std() / np.sqrt(out.rounds.size)
    assert abs(out.rounds.mean() - exact.mean_rounds) < 4.5 * se  # two-sided p ~ 7e-6


def test_the_rows_change_the_answer():
    plain = crt.exact(_rules({}), (A,), (B,))
    for rows in (SHIELD, WOUNDED, OPENING, DICE):
        assert abs(crt.exact(_rules(rows), (A,), (B,)).a_win - plain.a_win) > 0.01, rows
    # the shield rule is A's alone: B bears no shield; swapped, it is B's
    swapped = crt.exact(_rules(SHIELD), (B,), (A,))
    assert swapped.b_win == pytest.approx(crt.exact(_rules(SHIELD), (A,), (B,)).a_win)


def test_shield_rule_is_exactly_two_points_of_score():
    with_rule = crt.exact(_rules(SHIELD), (A,), (B,))
    by_bonus = crt.exact(_rules({}), (dataclasses.replace(A, bonus=2),), (B,))
    assert with_rule.a_win == pytest.approx(by_bonus.a_win, abs=1e-14)
    assert with_rule.details["advantage"] == by_bonus.details["advantage"] == 2


def test_plain_fast_path_folds_fixed_rows_and_matches_the_general_path():
    rules = _rules(SHIELD)
    assert crt_kernel.foldable(house_rules(rules))
    assert not crt_kernel.foldable(house_rules(_rules(WOUNDED)))
    fast = kernel_counts(crt, rules, (A,), (B,), n=100_000, seed=73)
    general = dataclasses.replace(rules, extraordinary=True, max_table_chain=0)
    slow = kernel_counts(crt, general, (A,), (B,), n=100_000, seed=74)
    assert chi2_homogeneity(fast, slow) > ALPHA


# --- the narrated reference against the kernel --------------------------------------------------
VETERAN = crt.presets["veteran"]
SCEN = crt.scenario("bruggish-vs-watchmen")
REFERENCE_CASES = {
    "tables on, shield and wounds": (Rules(house_rules={**SHIELD, **WOUNDED}), (A,), (B,)),
    "tables on, dice and round": (Rules(house_rules={**DICE, **OPENING}), (A,), (B,)),
    "outnumbered, against the first foe": (
        Rules(house_rules={"pack": {"modifiers": [
            "+4 to score when foes_engaged >= 2",
            "+1 to damage when target.score >= 10 and self.combats >= 20"]}}),
        SCEN.side_a, SCEN.side_b),
    "ambush opening and a lost weapon": (
        Rules(ambush="a", house_rules={"ambush": {"modifiers": [
            "+30 to score when round == 0 and self.skill == 0",
            '-3 to damage when self.weapon == "unarmed"']}}),
        (Combatant(name="a", ambush=3),), (VETERAN,)),
    "2v3 pack, table state": (
        Rules(house_rules={"x": {"modifiers": [
            '+2 to score when target.shield == "none" and self.wounds == 0',
            "1d3 to damage when target.leader"]}}),
        (VETERAN, Combatant(name="ally", shield="round")),
        (dataclasses.replace(crt.presets["expert"], leader=True), crt.presets["skilled"],
         crt.presets["novice"])),
}


@pytest.mark.parametrize("name", list(REFERENCE_CASES))
def test_kernel_matches_reference(name):
    rules, side_a, side_b = REFERENCE_CASES[name]
    kernel = kernel_counts(crt, rules, side_a, side_b, n=100_000, seed=75)
    reference = reference_counts(crt, rules, side_a, side_b, n=3000, seed=76)
    assert chi2_homogeneity(kernel, reference) > ALPHA


def test_the_log_names_each_modifier_that_fired_and_why():
    lines: list[str] = []
    crt.fight(_rules({**SHIELD, **WOUNDED}), (A,), (B,), rng=np.random.default_rng(4),
              log=lines.append)
    fired = [line for line in lines if "shield_against_two_handed +2 to score" in line]
    assert fired and all(line.endswith('when self.shield != "none" and target.weapon == '
                                       '"two_handed" (self.shield is "round"; target.weapon '
                                       'is "two_handed")') for line in fired)
    assert fired[0].lstrip().startswith("a [A1]:")  # whose modifier it is
    # B's own shield rule never fires (no shield); the wounded rows fire with their values
    assert not any(line.lstrip().startswith("b [B1]: shield") for line in lines)
    wounded = [line for line in lines if "wounded" in line]
    assert all("(self.wounds is" in line or "(target.health is" in line for line in wounded)


# --- refusals ------------------------------------------------------------------------------------
def test_exact_refuses_a_score_that_rolls_dice_naming_the_row():
    rules = _rules({"lucky": {"modifiers": ["1d6 - 3 to score"]}})
    why = crt.exact_check(rules, (A,), (B,))
    assert why is not None and "house rule 'lucky' rolls dice in a score modifier" in why
    with pytest.raises(IntractableError, match="'lucky'"):
        crt.exact(rules, (A,), (B,))


@pytest.mark.parametrize(("house", "word"), [(OPENING, "reads round"),
                                             (WOUNDED, "changes the score with health")])
def test_exact_best_play_refuses_what_its_game_cannot_hold(house, word):
    with pytest.raises(IntractableError, match=word):
        crt.exact_best_play(_rules(house), (A,), (B,))
    # rows over fixed names and health-dependent damage are held
    crt.exact_best_play(_rules({**SHIELD, "d": {"modifiers": ["+1 to damage when "
                                                             "target.health <= 3"]}}),
                        (A,), (B,))
