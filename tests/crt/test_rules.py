"""Seed 001 worked examples (digest 001.11) and the exact tables of 001.3 / 001.4."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import balance
from balance.dice import pmf
from balance.rulesets.crt import Combatant, Rules
from balance.rulesets.crt.exact import stroke_probability
from balance.rulesets.crt.reference import fight
from balance.rulesets.crt.rules import ambush_result, combat_score, needed, scores

crt = balance.get("crt")
RULES = Rules()


def test_bruggish_score_is_63():  # 001.11 #1
    assert combat_score(crt.presets["bruggish"], RULES) == 63


def test_watchmen_aggregate_is_32():  # 001.11 #2
    watchmen = crt.scenario("bruggish-vs-watchmen").side_b
    assert sum(w.strength for w in watchmen) == 23
    assert sum(w.combats for w in watchmen) == 9
    assert sum(combat_score(w, RULES) for w in watchmen) == 32


def test_bruggish_against_watchmen_bands():  # 001.11 #3, #4
    assert needed(63 - 32, RULES) == 4
    assert needed(32 - 63, RULES) == 10
    # against the 2nd and 3rd watchman he fights at zero: only 7 or 12 score
    assert [r for r in range(2, 13) if scores(0, r, RULES)] == [7, 12]


def test_the_engine_fights_bruggish_as_the_example_says():  # 001.11 #2-#5, through a fight
    scen = crt.scenario("bruggish-vs-watchmen")
    lines: list[str] = []
    fight(Rules(**scen.rules), scen.side_a, scen.side_b, rng=np.random.default_rng(4),
          log=lines.append)
    first = lines[lines.index("Round 1") + 1:lines.index("Round 1") + 4]
    # against the first watchman at the aggregate (+31 / -31), against the others at zero
    assert "watchman 1 [B1] -31 needs 10+" in first[0] and "Bruggish [A1] +31 needs 4+" in first[0]
    assert all("Bruggish [A1] +0 needs 7 or 12" in line for line in first[1:])
    # this seed's round 1 has Bruggish rolling 12 in a zero band: the ES table is consulted
    assert "Bruggish [A1] +0 needs 7 or 12, rolls 12" in first[1]
    assert lines[lines.index("Round 1") + 4].strip().startswith(
        "Bruggish [A1]: Extraordinary Success, table roll")


def test_expected_strokes_per_round_in_the_example():  # 001.11 #3-#4: 1.31 and 0.56
    bruggish = stroke_probability(31, RULES) + 2 * stroke_probability(0, RULES)
    watchmen = stroke_probability(-31, RULES) + 2 * stroke_probability(0, RULES)
    assert float(bruggish) == pytest.approx(1.31, abs=0.005)
    assert float(watchmen) == pytest.approx(0.56, abs=0.005)


def test_zero_band():  # 001.11 #5
    assert not scores(0, 11, RULES)
    assert scores(0, 7, RULES)
    assert scores(0, 12, RULES)


def test_deficit_25():  # 001.11 #6
    assert [scores(-25, r, RULES) for r in (9, 10, 11)] == [False, True, True]


@pytest.mark.parametrize(("adv", "roll"), [(12, 6), (13, 5), (24, 5), (25, 4),
                                           (-12, 8), (-13, 9), (-24, 9), (-25, 10)])
def test_band_edges(adv, roll):  # 001.11 #7, #8
    assert needed(adv, RULES) == roll


@pytest.mark.parametrize(("adv", "p"), [(25, Fraction(33, 36)), (13, Fraction(30, 36)),
                                        (1, Fraction(26, 36)), (0, Fraction(7, 36)),
                                        (-1, Fraction(15, 36)), (-13, Fraction(10, 36)),
                                        (-25, Fraction(6, 36)), (99, Fraction(33, 36)),
                                        (-99, Fraction(6, 36))])
def test_band_probabilities(adv, p):  # 001.4, exact
    assert stroke_probability(adv, RULES) == p


def test_two_never_twelve_always_scores():
    for adv in range(-40, 41):
        assert not scores(adv, 2, RULES)
        assert scores(adv, 12, RULES)


@pytest.mark.parametrize("level", range(6))
def test_ambush_probabilities(level):  # 001.3 table, from the reference's reading
    expected = {0: [Fraction(1, 6), Fraction(1, 2), Fraction(1, 3), 0, 0],
                1: [0, Fraction(1, 2), Fraction(1, 3), Fraction(1, 6), 0],
                2: [0, Fraction(1, 3), Fraction(1, 3), Fraction(1, 3), 0],
                3: [0, Fraction(1, 6), Fraction(1, 3), Fraction(1, 3), Fraction(1, 6)],
                4: [0, 0, Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)],
                5: [0, 0, Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)]}[level]
    d6 = pmf(1, 6) + level
    names = ["warned", "none", "brief", "surprise", "total"]
    got = [d6.probability(lambda t, name=name: ambush_result(t, RULES) == name) for name in names]
    assert got == expected


def test_ambush_vectors():  # 001.11 #9, #10
    assert ambush_result(1 + 0, RULES) == "warned"
    assert ambush_result(4 + 5, RULES) == "total"


def _scripted_round(scripted, values, a, b, rules=RULES):
    rng = scripted(values)
    lines: list[str] = []
    outcome = fight(rules, (a,), (b,), rng=rng, log=lines.append)
    return outcome, lines, rng


def test_diverter_succeeds_foe_rolls_12(scripted):  # 001.11 #11
    # A diverts and rolls 8 (needs 6+ at +5: success); B rolls 12: lands as an ordinary
    # stroke, no ES table.  B's damage die 6 kills A (health 1).
    a = Combatant(name="A", bonus=5, health=1, divert="always")
    b = Combatant(name="B", health=1)
    outcome, lines, rng = _scripted_round(scripted, [4, 4, 6, 6, 6], a, b)
    assert outcome.winner == balance.Winner.B and outcome.rounds == 1
    assert any("ordinary stroke" in line for line in lines)
    assert not any("Extraordinary Success" in line for line in lines)
    assert rng.exhausted


def test_diverter_fails_foe_scores(scripted):  # 001.11 #12
    # A diverts and rolls 3 (fails); B (advantage -5, needs 8+) rolls 9: the stroke lands.
    a = Combatant(name="A", bonus=5, health=1, divert="always")
    b = Combatant(name="B", health=1)
    outcome, _, rng = _scripted_round(scripted, [1, 2, 4, 5, 3], a, b)
    assert outcome.winner == balance.Winner.B
    assert rng.exhausted


def test_both_roll_two_both_consult_failure_table(scripted):  # 001.11 #13
    # Both roll 2; A's table roll 10 (nothing), B's table roll 2 (slain by mishap).
    a = Combatant(name="A")
    b = Combatant(name="B")
    outcome, lines, rng = _scripted_round(scripted, [1, 1, 1, 1, 5, 5, 1, 1], a, b)
    assert sum("Extraordinary Failure" in line for line in lines) == 2
    assert outcome.winner == balance.Winner.A and outcome.cause == "mishap"
    assert rng.exhausted


def test_disarmed_fighter_uses_unarmed_score():
    c = Combatant(agility=10, toughness=6, skill=2, unarmed_skill=1)
    # one-handed: agility + strength + toughness; unarmed: toughness + strength (level 1)
    assert combat_score(c, RULES) == 10 + 7 + 6
    assert combat_score(c, RULES, "unarmed") == 6 + 7


def test_cudgel_governed_by_strength():  # 001.8.5
    w = Combatant(strength=9, agility=4, governing="strength")
    assert combat_score(w, RULES) == 9


def test_bad_fields_raise_spec_errors():
    with pytest.raises(balance.SpecError, match=r"'skill' must be in 0\.\.5"):
        Combatant(skill=6)
    with pytest.raises(balance.SpecError, match="'divert' must be one of"):
        Combatant(divert="sometimes")
    with pytest.raises(balance.SpecError, match="'max_rounds' must be an integer"):
        Rules(max_rounds="ten")
    with pytest.raises(balance.SpecError, match="level_abilities"):
        Rules(level_abilities={"one_handed": ("agility",)})


def test_every_parameter_has_a_tag_and_doc():
    info = crt.describe()
    for f in info["combatant_fields"] + info["rule_parameters"]:
        assert f["tag"] in ("TEXT", "SRC", "AMBIG", "DEFAULT") and f["doc"]


def test_two_d6_lookup_is_exact():
    from balance.dice import sum_table

    counts = np.bincount(sum_table(2, 6), minlength=13)
    assert [Fraction(int(c), 36) for c in counts[2:]] == [pmf(2, 6)[k] for k in range(2, 13)]


def test_a_shield_cannot_deflect_a_12_with_the_tables_off(scripted):  # 001.9
    # Tables off.  A rolls 12 (6, 6), B rolls 3 (1, 2); A's damage die 4 lands on B's large
    # shield, which cannot deflect a 12: no shield die is rolled.
    rules = Rules(extraordinary=False)
    a, b = Combatant(name="A"), Combatant(name="B", health=4, shield="large")
    outcome, lines, rng = _scripted_round(scripted, [6, 6, 1, 2, 4], a, b, rules)
    assert any("large shield cannot deflect a 12" in line for line in lines)
    assert outcome.winner == balance.Winner.A and rng.exhausted
    # shield_stops_12 = true: the shield rolls (d6 2 <= 3) and deflects it
    stops = Rules(extraordinary=False, shield_stops_12=True, max_rounds=1)
    outcome, lines, rng = _scripted_round(scripted, [6, 6, 1, 2, 4, 2], a, b, stops)
    assert any("deflects the stroke (d6 2 <= 3)" in line for line in lines)
    assert outcome.winner == balance.Winner.DRAW and rng.exhausted


def test_shield_stops_12_is_a_reading_where_someone_has_a_shield():
    plain = Rules(extraordinary=False)
    shielded = crt.combatant("duelist", shield="round")
    readings = crt.assumptions(plain, (shielded,), (crt.presets["duelist"],))
    assert "shield_stops_12=False [DEFAULT]" in readings
    bare = crt.assumptions(plain, (crt.presets["duelist"],), (crt.presets["duelist"],))
    assert not any(r.startswith("shield_stops_12") for r in bare)
    deflect = balance.exact("crt", "duelist", shielded, rules=plain)
    stops = balance.exact("crt", "duelist", shielded, extraordinary=False, shield_stops_12=True)
    assert stops.b_win - deflect.b_win > 0.005  # the shield holds off one stroke in 36 more
