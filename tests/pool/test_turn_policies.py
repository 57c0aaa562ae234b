"""Competent turn policies (issue 24, item 1).

* Aid goes to the soonest ally who will attack on its next turn (before the aid lapses), or
  is not given: never to an ally who only declares full defence, nor after the side's last
  attacker is out.
* Under ``margin_failure_damage`` a fighter of ``turn_policy = "attack"`` who cannot
  possibly hit its target does not attack (a miss could only cost it): it aids an ally who
  will attack, else declares full defence.  ``attack_always`` keeps the old turn.
* The stalemate test counts every defence that applies (a full defence kept while nobody can
  hit) and never counts a fighter who only declares full defence as a threat.

Kernel and reference agree in distribution on cases exercising each rule (fixed seeds,
thresholds fixed in advance: ``p > 1e-3``, a 0.1% false alarm for a correct kernel); the
narrated reference shows each rule at work; the exact game plays them (test_exact_turns.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import balance
from balance.random import stream
from balance.rulesets.pool import reference
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import chi2_homogeneity
from balance.testing import reference_outcomes

POOL = balance.get("pool")


def C(name, **fields):
    return Combatant(name=name, **fields)


def narrate(rules, side_a, side_b, seed=0):
    lines: list[str] = []
    out = reference.fight(rules, side_a, side_b, rng=np.random.default_rng(seed),
                          log=lines.append)
    return out, lines


ISSUE = (
    (C("A1", coordination=6, combat=3), C("A2", coordination=5, turn_policy="aid"),
     C("A3", coordination=3, turn_policy="full_defence")),
    (C("B1", coordination=5), C("B2", coordination=4, withdraw_at=8), C("B3", coordination=4)))


def test_the_issue_command_shows_competent_play(cli):
    code, out, _ = cli("log", "pool", "--a", "name=A1,coordination=6,combat=3",
                       "--a", "name=A2,coordination=5,turn_policy=aid",
                       "--a", "name=A3,coordination=3,turn_policy=full_defence",
                       "--b", "name=B1,coordination=5", "--b", "name=B2,coordination=4,withdraw_at=8",
                       "--b", "name=B3,coordination=4", "--rule", "margin_failure_damage=true",
                       "--seed", "1")
    assert code == 0
    assert "A2 aids A1" in out and "aids A3" not in out  # A3 only ever defends
    assert "B1 aids B2 (+2 to its next attack): it cannot hit" in out
    assert "it cannot hit A3, and a miss would cost it" in out
    assert "the attacker takes" not in out.split("nobody can hit any more")[1]
    assert "== draw after 7 rounds (stalemate)" in out  # no longer the 50-round cap


def test_aid_is_not_given_to_an_ally_who_only_defends():
    helper = C("helper", coordination=5, turn_policy="aid")
    shield = C("shield", coordination=3, turn_policy="full_defence", wound_points=30)
    foe = C("foe", coordination=4, fortitude=6, wound_points=30)
    _, lines = narrate(Rules(max_rounds=3), (helper, shield), (foe,))
    assert not any("aids" in line for line in lines)
    assert any(line.startswith("  helper attacks foe") for line in lines)


def test_aid_stops_when_the_last_attacker_is_out():
    attacker = C("attacker", coordination=6, wound_points=2, fortitude=1)
    helper = C("helper", coordination=5, turn_policy="aid", wound_points=40)
    foe = C("foe", coordination=4, combat=4, fortitude=6, wound_points=40, intellect=0)
    _, lines = narrate(Rules(max_rounds=4), (attacker, helper), (foe,))
    out_at = next(i for i, line in enumerate(lines) if "attacker is out" in line)
    assert any("helper aids attacker" in line for line in lines[:out_at])
    assert not any("aids" in line for line in lines[out_at:])
    assert any(line.startswith("  helper attacks foe") for line in lines[out_at:])


def test_a_hopeless_attack_is_declined_only_where_a_miss_costs():
    weak = C("weak", coordination=2, combat=0, intellect=0, wound_points=20)  # attack 2 + 1
    wall = C("wall", fortitude=6, combat=2, coordination=4, intellect=0, wound_points=20)
    _, costly = narrate(Rules(margin_failure_damage=True, max_rounds=3), (weak,), (wall,))
    assert any("weak declares full defence (+2 defence until its next turn): it cannot hit "
               "wall, and a miss would cost it" in line for line in costly)
    assert not any("weak attacks" in line for line in costly)
    naive = C("weak", coordination=2, combat=0, intellect=0, wound_points=20,
              turn_policy="attack_always")
    _, always = narrate(Rules(margin_failure_damage=True, max_rounds=3), (naive,), (wall,))
    assert any("weak attacks wall" in line and "the attacker takes" in line for line in always)
    _, free = narrate(Rules(max_rounds=3), (weak,), (wall,))
    assert any("weak attacks wall" in line for line in free)  # a free miss: still attacks


def test_the_stalemate_counts_a_kept_full_defence():
    """B can beat A's base defence (7 + 1 > 7) but not A's full defence (+2), and A never
    attacks: a stalemate once A has declared it, not 50 rounds to the cap."""
    turtle = C("turtle", coordination=6, fortitude=5, turn_policy="full_defence")
    b = C("b", coordination=5, intellect=0, fortitude=4)  # attack 7, pool 2
    for rules in (Rules(), Rules(margin_failure_damage=True)):
        out, lines = narrate(rules, (turtle,), (b,))
        assert out.cause == "stalemate" and out.rounds <= 4, lines[-3:]
        sim = POOL.simulate(rules, (turtle,), (b,), n=200, rng=np.random.default_rng(1))
        assert (sim.cause == POOL.causes.code("stalemate")).all()


def test_exact_plays_the_declined_attack():
    """The exact game holds the declined attack (issue 24): the fighter who cannot hit the
    guard declares full defence instead of bleeding on its misses as attack_always does."""
    side_a = (C("average"),)
    side_b = (C("guard", coordination=5, intellect=3, fortitude=6, combat=3),)
    rules = Rules(margin_failure_damage=True, max_rounds=10)
    competent = POOL.exact(rules, side_a, side_b)
    always = tuple(C(c.name, **{**{f: getattr(c, f) for f in ("coordination", "intellect",
                                                               "fortitude", "combat")},
                                 "turn_policy": "attack_always"}) for c in (*side_a, *side_b))
    bleeding = POOL.exact(rules, always[:1], always[1:])
    assert bleeding.b_win > 0.99
    assert "full defence" in competent.details["turns"].split(";")[0]
    assert competent.b_win < bleeding.b_win


def categories(out):
    n_causes = len(POOL.causes)
    return np.bincount(np.asarray(out.winner) * n_causes + np.asarray(out.cause),
                       minlength=3 * n_causes)


CASES = {
    # aid with a full-defence ally and an attacker who falls; 1d6
    "aid goes to attackers only, 1d6": (
        Rules(randomiser="1d6", max_rounds=30),
        (C("striker", coordination=6, combat=3, wound_points=5, fortitude=3),
         C("helper", coordination=5, turn_policy="aid", wound_points=8),
         C("shield", coordination=3, turn_policy="full_defence", wound_points=8)),
        (C("b1", coordination=5, wound_points=6, pool_policy="random_mixed"),
         C("b2", coordination=4, wound_points=6, withdraw_at=2))),
    # declined attacks under the margin of failure: aid or full defence; ties in the order
    "declined attacks, margin of failure, 1d6": (
        Rules(randomiser="1d6", margin_failure_damage=True, max_rounds=30),
        (C("a1", coordination=6, combat=3, wound_points=6),
         C("a2", coordination=2, combat=0, intellect=2, wound_points=6),
         C("a3", coordination=2, combat=0, intellect=2, wound_points=6,
           turn_policy="aid_if_no_hit")),
        (C("wall", coordination=4, fortitude=8, combat=3, wound_points=8,
           pool_policy="random_mixed"),
         C("b2", coordination=5, wound_points=6, turn_policy="defend_if_no_hit"))),
    # the diceless issue command itself, its turn order a coin in two places
    "the issue's melee, diceless": (Rules(margin_failure_damage=True), *ISSUE),
    # full defence kept in a stalemate, randomised bids
    "a kept full defence, diceless": (
        Rules(max_rounds=30),
        (C("turtle", coordination=6, fortitude=5, turn_policy="full_defence", wound_points=6),
         C("ally", coordination=4, wound_points=4, pool_policy="random_mixed")),
        (C("b", coordination=5, intellect=0, fortitude=4, wound_points=8,
           pool_policy="random_mixed"),)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_kernel_matches_reference(case):
    """Kernel (60 000 fights) against the scalar reference (3 000), same rules."""
    rules, side_a, side_b = CASES[case]
    out = POOL.simulate(rules, side_a, side_b, n=60_000, rng=stream(24, "pool-turns", case))
    ref = reference_outcomes(POOL, rules, side_a, side_b, 3000,
                             stream(24, "pool-turns-reference", case))
    assert chi2_homogeneity(categories(out), categories(ref)) > 1e-3  # false alarm 0.1%
    top = rules.max_rounds + 1
    assert chi2_homogeneity(np.bincount(out.rounds, minlength=top),
                            np.bincount(ref.rounds, minlength=top)) > 1e-3  # 0.1%
    spent = [(o.extras["a_pool_spent"] + 20 * o.extras["b_pool_spent"]).astype(int)
             for o in (out, ref)]
    size = max(s.max() for s in spent) + 1
    assert chi2_homogeneity(*(np.bincount(s, minlength=size) for s in spent)) > 1e-3  # 0.1%


@pytest.mark.parametrize(("case", "line"), [
    ("aid goes to attackers only, 1d6", "helper aids striker"),
    ("declined attacks, margin of failure, 1d6", "a miss would cost it"),
    ("declined attacks, margin of failure, 1d6", "a3 aids a1"),
    ("the issue's melee, diceless", "B1 aids B2"),
    ("a kept full defence, diceless", "nobody can hit any more")])
def test_each_case_exercises_its_rule(case, line):
    rules, side_a, side_b = CASES[case]
    seen = 0
    for seed in range(40):
        _, lines = narrate(rules, side_a, side_b, seed)
        seen += any(line in x for x in lines)
    assert seen >= 4, (case, line)
