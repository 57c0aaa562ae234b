"""The kernel against the exact solver and against the scalar reference, in distribution.

Thresholds are fixed in advance.  Each chi-square test rejects a correct kernel with
probability 1e-3 (its p-value threshold); the seeds are fixed, so a pass is repeatable.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import balance
from balance.rulesets.crt import Combatant, Rules
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import kernel_counts, reference_counts

crt = balance.get("crt")
ALPHA = 1e-3  # per-test false-alarm rate for a correct kernel


PLAIN_CASES = [  # (A bonus, A health, B health, A armour, B shield, damage die)
    (0, 10, 10, "none", "none", 6),
    (5, 7, 12, "leather", "none", 6),
    (-13, 10, 6, "none", "round", 6),
    (25, 3, 15, "mail", "buckler", 8),
    (-30, 14, 4, "plate", "large", 4),
    (1, 1, 1, "none", "none", 6),
]


def _plain(case):
    bonus, ha, hb, armour, shield, die = case
    rules = Rules(extraordinary=False, damage_die=die)
    a = Combatant(name="a", bonus=bonus, health=ha, armour=armour)
    b = Combatant(name="b", health=hb, shield=shield)
    return rules, a, b


@pytest.mark.parametrize("case", PLAIN_CASES)
def test_plain_kernel_matches_exact(case):
    rules, a, b = _plain(case)
    exact = balance.exact("crt", a, b, rules=rules)
    out = crt.simulate(rules, (a,), (b,), n=200_000, rng=np.random.default_rng(11))
    counts = np.bincount(out.winner, minlength=3)
    p = gof_pvalue(counts, [exact.draw, exact.a_win, exact.b_win])
    assert p > ALPHA
    se = out.rounds.std() / np.sqrt(out.rounds.size)
    assert abs(out.rounds.mean() - exact.mean_rounds) < 4.5 * se  # two-sided p ~ 7e-6


@pytest.mark.parametrize("policy", ["always", "if_deficit", "below_health", "random"])
@pytest.mark.parametrize("case", PLAIN_CASES[:4])
def test_general_kernel_with_diversion_matches_exact(case, policy):
    # Diversion sends the kernel down its general path; max_table_chain=0 keeps the
    # tables from ever being consulted, which is exactly the plain duel the solver knows.
    rules, a, b = _plain(case)
    a = dataclasses.replace(a, divert=policy, divert_health=4, divert_p=0.3)
    exact = balance.exact("crt", a, b, rules=rules)
    general = dataclasses.replace(rules, extraordinary=True, max_table_chain=0)
    out = crt.simulate(general, (a,), (b,), n=100_000, rng=np.random.default_rng(12))
    counts = np.bincount(out.winner, minlength=3)
    assert gof_pvalue(counts, [exact.draw, exact.a_win, exact.b_win]) > ALPHA


@pytest.mark.parametrize("declarations", ["deficit_first", "secret"])
@pytest.mark.parametrize("a_bonus", [3, -3])  # A declares second (answers), or first
def test_reactive_diversion_matches_exact(a_bonus, declarations):
    rules = Rules(extraordinary=False, max_table_chain=0, declarations=declarations)
    a = Combatant(name="a", agility=10, toughness=10, bonus=a_bonus, divert="reactive",
                  divert_health=6)
    b = Combatant(name="b", agility=10, toughness=10, divert="below_health", divert_health=5)
    exact = balance.exact("crt", a, b, rules=rules)
    plain = balance.exact("crt", dataclasses.replace(a, divert="below_health"), b, rules=rules)
    if a_bonus > 0 and declarations == "deficit_first":  # answering an attack only
        assert abs(exact.a_win - plain.a_win) > 0.005
    else:  # declaring first, or all written down: nothing to answer, the two coincide
        assert exact.a_win == pytest.approx(plain.a_win, abs=1e-12)
    general = dataclasses.replace(rules, extraordinary=True)
    out = crt.simulate(general, (a,), (b,), n=100_000, rng=np.random.default_rng(14))
    counts = np.bincount(out.winner, minlength=3)
    assert gof_pvalue(counts, [exact.draw, exact.a_win, exact.b_win]) > ALPHA


SCEN = crt.scenario("bruggish-vs-watchmen")
D = crt.presets["duelist"]
REFERENCE_CASES = {
    "tables duel": (Rules(), (D,), (D,)),
    "tables, unequal, shields and armour": (
        Rules(), (Combatant(name="a", bonus=14, shield="large", armour="leather"),),
        (Combatant(name="b", toughness=12, armour="mail", shield="buckler"),)),
    "diversion mix and es variants": (
        Rules(es2_mode="foe_rolls_ef", es7_own_stroke=True, divert_12_es=True,
              ef6_no_shield="weapon"),
        (Combatant(name="a", bonus=-3, divert="random", divert_p=0.4, shield="round",
                   es11="surrender"),),
        (Combatant(name="b", divert="below_health", divert_health=4),)),
    "reactive against a diverter, tables on": (
        Rules(), (Combatant(name="a", bonus=5, divert="reactive", divert_health=6),),
        (Combatant(name="b", divert="below_health", divert_health=5),)),
    "reactive, declarations written down": (
        Rules(declarations="secret"), (Combatant(name="a", bonus=5, divert="reactive",
                                                 divert_health=6),),
        (Combatant(name="b", divert="below_health", divert_health=5),)),
    "long chains": (Rules(max_table_chain=8, es2_mode="foe_slain"), (D,), (D,)),
    "ambush by a master": (Rules(ambush="a"), (Combatant(name="a", ambush=5),), (D,)),
    "ambush by a master, a 12 strikes twice": (
        Rules(ambush="a", total_surprise_12="twice_if_alone"), (Combatant(name="a", ambush=5),),
        (D,)),
    "ambush, weak, no tables": (Rules(ambush="b", ambush_tables=False), (D,),
                                (Combatant(name="b", ambush=0, bonus=-10),)),
    "bruggish 1v3": (Rules(), SCEN.side_a, SCEN.side_b),
    "1v3 foes keep aggregate, scope all": (
        Rules(multi_zero_mode="foes_keep_aggregate", divert_scope="all"),
        (dataclasses.replace(crt.presets["bruggish"], divert="below_health"),), SCEN.side_b),
    "2v3 with refill and a leader": (
        Rules(ambush="a", leader_break_p=0.5),
        (crt.presets["veteran"], Combatant(name="ally", ambush=3, shield="round")),
        (dataclasses.replace(crt.presets["expert"], leader=True), crt.presets["skilled"],
         crt.presets["novice"])),
    "3v3 pairs": (Rules(), (crt.presets["expert"],) * 3,
                  (crt.presets["skilled"], crt.presets["veteran"], crt.presets["novice"])),
    "2v1 lone b": (Rules(), (crt.presets["novice"], crt.presets["novice"]),
                   (crt.presets["superior"],)),
    "1v3 one foe at a time (queue, refill)": (Rules(max_foes=1), SCEN.side_a, SCEN.side_b),
    "1v3 two at a time, foes keep aggregate": (
        Rules(max_foes=2, multi_zero_mode="foes_keep_aggregate"), SCEN.side_a, SCEN.side_b),
}


@pytest.mark.parametrize("name", list(REFERENCE_CASES))
def test_kernel_matches_reference(name):
    rules, side_a, side_b = REFERENCE_CASES[name]
    kernel = kernel_counts(crt, rules, side_a, side_b, n=100_000, seed=21)
    reference = reference_counts(crt, rules, side_a, side_b, n=3000, seed=22)
    assert chi2_homogeneity(kernel, reference) > ALPHA


def test_plain_fast_path_matches_general_path():
    rules, a, b = _plain(PLAIN_CASES[1])
    fast = kernel_counts(crt, rules, (a,), (b,), n=100_000, seed=31)
    general = dataclasses.replace(rules, extraordinary=True, max_table_chain=0)
    slow = kernel_counts(crt, general, (a,), (b,), n=100_000, seed=32)
    assert chi2_homogeneity(fast, slow) > ALPHA


def test_extraordinary_tables_decide_some_fights():
    out = crt.simulate(Rules(), (D,), (D,), n=50_000, rng=np.random.default_rng(5))
    share = np.bincount(out.cause, minlength=len(crt.causes)) / out.cause.size
    # mishaps (EF 2-4, ES 2 under foe_slain) and breaks (ES 12) happen, rarely.  A sanity
    # band, not a test of a rate: the shares are about 10.7% and 1.8% (50,000 fights give
    # standard errors of 0.14% and 0.06%), so every bound sits more than 25 standard
    # errors away (a false alarm has p < 1e-100).
    assert 0.01 < share[crt.causes.index("mishap")] < 0.3
    assert 0.001 < share[crt.causes.index("broke")] < 0.1


@pytest.mark.parametrize("rules", [Rules(extraordinary=False), Rules()])
def test_kernel_stores_the_end_cause_codes(rules):
    # the kernel's codes are the EndCauses codes themselves (no offset), on both paths
    out = crt.simulate(rules, (D,), (D,), n=20_000, rng=np.random.default_rng(3))
    assert out.causes is crt.causes
    assert out.cause.min() >= 0 and out.cause.max() < len(crt.causes)
    assert (out.cause == crt.causes.down).any()
    if rules.extraordinary:
        assert (out.cause == crt.causes.mishap).any()


@pytest.mark.parametrize("stops_12", [False, True])
def test_twelves_and_shields_kernel_matches_exact(stops_12):
    # a large shield and a round one: 12s (undeflectable unless shield_stops_12) matter
    rules = Rules(extraordinary=False, shield_stops_12=stops_12)
    a = Combatant(name="a", agility=10, toughness=10, bonus=4, shield="large")
    b = Combatant(name="b", agility=10, toughness=12, shield="round", divert="if_deficit")
    exact = balance.exact("crt", a, b, rules=rules)
    for path, general in (("fast", rules), ("general", dataclasses.replace(
            rules, extraordinary=True, max_table_chain=0))):
        fighters = (a, dataclasses.replace(b, divert="never")) if path == "fast" else (a, b)
        expected = exact if path == "general" else balance.exact("crt", *fighters, rules=rules)
        out = crt.simulate(general, (fighters[0],), (fighters[1],), n=100_000,
                           rng=np.random.default_rng(61 + stops_12))
        counts = np.bincount(out.winner, minlength=3)
        assert gof_pvalue(counts, [expected.draw, expected.a_win, expected.b_win]) > ALPHA
