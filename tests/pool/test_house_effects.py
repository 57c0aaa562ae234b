"""pool house-rule effects (issue 21): on an attack's outcome (``hit``: it beat the defence,
after its damage; ``miss``: it did not, after any margin-of-failure damage), set a state
the fight keeps -- a fighter's ``pool`` (Combat Pool points left) or ``armour_wp`` (its
armour's Wound Points).  The kernel and the narrated reference agree in distribution; the
exact game, exact best play and the ``equilibrium`` pool policy (which samples the game)
refuse in one line naming the row.

Statistical thresholds are fixed in advance, as in test_house_rules.py: each chi-square
test rejects a correct kernel with probability ALPHA = 1e-3 (its p-value threshold); the
seeds are fixed, so a pass is repeatable.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import balance
from balance.cli import main
from balance.errors import IntractableError, SpecError
from balance.random import stream
from balance.rulesets.pool.language import house_rules
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import chi2_homogeneity
from balance.testing import reference_outcomes

POOL = balance.get("pool")
CAUSES = tuple(POOL.causes)
ALPHA = 1e-3  # per-test false-alarm rate for a correct kernel

SUNDER = {"sunder": {"effects": ['on hit set target.armour_wp to 0 when self.weapon == "axe"']}}
SHAKEN = {"shaken": {"effects": [{"on": "hit", "set": "pool", "who": "target",
                                  "value": "max(target.pool - 1, 0)"}]}}
FLUSTER = {"fluster": {"effects": ["on miss set self.pool to max(self.pool - 1, 0)",
                                   "on hit set self.pool to min(self.pool + 1, self.max_pool) "
                                   "when target.armour_wp == 0"]}}
RATTLE = {"rattle": {"effects": ["on hit set target.pool to max(target.pool - 1d2, 0) when "
                                 "allies_standing >= 1"],
                     "modifiers": ["+1 to defence when self.pool == 0"]}}
GUARD = Combatant(name="guard", coordination=5, intellect=3, fortitude=6, combat=3,
                  weapon="spear", armour="light")
AXEMAN = Combatant(name="axeman", coordination=7, intellect=5, fortitude=4, combat=4,
                   weapon="axe")
AVERAGE = Combatant(name="average")


def C(base: Combatant, **fields) -> Combatant:
    return dataclasses.replace(base, **fields)


def categories(out) -> np.ndarray:
    """A wins, B wins, draws by stalemate, draws at the cap, withdrawals."""
    winner, cause = np.asarray(out.winner), np.asarray(out.cause)
    code = {c: CAUSES.index(c) for c in ("stalemate", "max_rounds", "withdrew")}
    return np.array([np.sum(winner == 1), np.sum(winner == 2),
                     np.sum((winner == 0) & (cause == code["stalemate"])),
                     np.sum((winner == 0) & (cause == code["max_rounds"])),
                     np.sum(cause == code["withdrew"])])


CASES = {
    "sunder and shaken, 1d6, sure hit": (
        Rules(randomiser="1d6", house_rules={**SUNDER, **SHAKEN}), (GUARD,), (AXEMAN,)),
    "fluster on a miss, margin damage both ways, random against all in": (
        Rules(randomiser="1d6", margin_damage=True, margin_failure_damage=True,
              house_rules=FLUSTER),
        (C(AVERAGE, armour="light", pool_policy="random_mixed"),),
        (C(GUARD, pool_policy="all_in_first"),)),
    "2 against 1, dice in the value, turn policies, informed bids": (
        Rules(randomiser="1d6", bid_protocol="attacker_first", max_rounds=30,
              house_rules={**RATTLE, **SUNDER}),
        (C(AVERAGE, name="a1", weapon="axe", turn_policy="defend_if_no_hit"),
         C(AVERAGE, name="a2", turn_policy="aid_if_no_hit", pool_policy="save_for_defence")),
        (C(GUARD, armour="medium", withdraw_at=3),)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_kernel_matches_reference(case):
    rules, side_a, side_b = CASES[case]
    out = POOL.simulate(rules, side_a, side_b, n=100_000, rng=stream(2131, "pool-effects", case))
    ref = reference_outcomes(POOL, rules, side_a, side_b, 2500,
                             stream(2132, "pool-effects-ref", case))
    assert chi2_homogeneity(categories(out), categories(ref)) > ALPHA
    top = rules.max_rounds + 1
    assert chi2_homogeneity(np.bincount(out.rounds, minlength=top),
                            np.bincount(ref.rounds, minlength=top)) > ALPHA
    for extra in ("a_pool_spent", "b_pool_spent"):  # what the effects leave to bid
        assert chi2_homogeneity(np.bincount(out.extras[extra], minlength=100),
                                np.bincount(ref.extras[extra].astype(int), minlength=100)) > ALPHA


def test_the_effects_change_the_answer():
    """Sundering the guard's armour and shaking his pool turn the duel to the axeman.
    Rates to +/- 0.5 points (95%, n = 40,000): a gap of 10 points is no chance (measured:
    about 18 points, 57% -> 40% for the guard)."""
    def guard_wins(house: dict) -> float:
        out = POOL.simulate(Rules(randomiser="1d6", house_rules=house), (GUARD,), (AXEMAN,),
                            n=40_000, rng=np.random.default_rng(11))
        return float(np.mean(out.winner == 1))

    assert guard_wins({**SUNDER, **SHAKEN}) < guard_wins({}) - 0.10


def test_the_log_names_each_effect_and_why_and_the_state_changes():
    rules, side_a, side_b = CASES["sunder and shaken, 1d6, sure hit"]
    fights: list[list[str]] = []
    for seed in range(10):
        fights.append([])
        POOL.fight(rules, side_a, side_b, rng=np.random.default_rng(seed),
                   log=fights[-1].append)
    lines = [x for fight in fights for x in fight]
    sundered = [x for x in lines if ": sunder: " in x]
    assert sundered and all(x == '    axeman: sunder: target\'s armour_wp set to 0 when '
                            'self.weapon == "axe" (self.weapon is "axe") (guard)'
                            for x in sundered)
    shaken = [x for x in lines if ": shaken: target's pool set to " in x]
    assert shaken and all("(target.pool is " in x for x in shaken)
    # each effect follows a hit, and the guard's armour is gone at his next hit taken
    checked = 0
    for fight in fights:
        for i, line in enumerate(fight):
            if ": sunder: " in line:
                assert "-> hit by" in fight[i - 1]
                later = next((x for x in fight[i + 1:] if "axeman attacks guard" in x
                              and "-> hit" in x), None)
                if later is not None:
                    assert "armour " not in later.split("damage: ")[1]
                    checked += 1
    assert checked


def test_every_row_compiles_and_a_value_out_of_the_states_range_is_refused():
    rows = house_rules(Rules(house_rules={**SUNDER, **SHAKEN, **FLUSTER, **RATTLE}))
    assert [(e.name, e.on, e.set, e.who) for e in rows.effects] == [
        ("sunder", "hit", "armour_wp", "target"), ("shaken", "hit", "pool", "target"),
        ("fluster", "miss", "pool", "self"), ("fluster", "hit", "pool", "self"),
        ("rattle", "hit", "pool", "target")]
    with pytest.raises(SpecError, match=r"house_rules\.r\.value: in \"target\.pool - 1\": pool "
                                        r"is a whole number 0\.\.99, and this can be -1\.\.98"):
        Rules(house_rules={"r": "on hit set target.pool to target.pool - 1"})
    with pytest.raises(SpecError, match=r"house_rules\.r\.set: must be one of pool, armour_wp"):
        Rules(house_rules={"r": "on hit set target.wound_points to 1"})
    with pytest.raises(SpecError, match="no conditions to inflict"):
        Rules(house_rules={"r": "on hit inflict dazed for 1 rounds"})


def test_exact_best_play_and_the_equilibrium_policy_refuse_naming_the_row():
    rules = Rules(house_rules=SUNDER)
    why = POOL.exact_check(rules, (GUARD,), (AXEMAN,))
    assert why == ("pool has no exact solution here: house rule 'sunder' has an effect (on hit "
                   'set target.armour_wp to 0 when self.weapon == "axe"); the game\'s exchanges '
                   "move health and bids only (simulate it with duel)")
    with pytest.raises(IntractableError, match="'sunder'"):
        POOL.exact(rules, (GUARD,), (AXEMAN,))
    with pytest.raises(IntractableError, match=r"^pool has no exact solution here: house rule "
                                                r"'sunder'"):  # the prefix once
        POOL.exact_best_play(rules, (GUARD,), (AXEMAN,))
    playing = (C(GUARD, pool_policy="equilibrium"),)
    for run in (lambda: POOL.simulate(rules, playing, (AXEMAN,), n=10,
                                      rng=np.random.default_rng(1)),
                lambda: POOL.fight(rules, playing, (AXEMAN,), rng=np.random.default_rng(1))):
        with pytest.raises(IntractableError, match=r"pool_policy 'equilibrium' samples the "
                                                   r"exact game's strategies, and .*'sunder'"):
            run()


def test_monte_carlo_best_play_searches_without_the_equilibrium_policy(capsys):
    assert main(["duel", "pool", "--a", "guard", "--b", "duellist,weapon=axe", "--play", "best",
                 "-n", "300", "--seed", "1", "--rule",
                 "house_rules.sunder.effects=on hit set target.armour_wp to 0", "--json"]) == 0
    best = json.loads(capsys.readouterr().out)
    played = json.dumps([best["policy_a"], best["policy_b"]])
    assert "equilibrium" not in played and "pool_policy=" in played


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pool-sunder.toml"


def test_the_example_runs_through_duel_log_matchups_and_show(capsys):
    scenario = ["--scenario", str(EXAMPLE)]
    assert main(["duel", "pool", *scenario, "-n", "2000", "--seed", "1", "--json"]) == 0
    duel = json.loads(capsys.readouterr().out)
    assert duel["n"] == 2000
    assert any(a.startswith("house rule sunder: on hit set target.armour_wp to 0")
               for a in duel["assumptions"])
    assert main(["log", "pool", *scenario, "--seed", "1"]) == 0
    log = capsys.readouterr().out
    assert ("    axeman: sunder: target's armour_wp set to 0 when self.weapon == \"two_handed\" "
            "or self.weapon == \"axe\" (self.weapon is \"axe\") (guard)") in log
    assert "    axeman: shaken: target's pool set to 3 (target.pool is 4) (guard)" in log
    assert main(["matchups", "pool", "--rules", str(EXAMPLE), "--entrants",
                 "guard,duellist,brute", "-n", "300", "--resamples", "10", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"]
    assert main(["show", "pool", "house_rules", "shaken", "--rules", str(EXAMPLE)]) == 0
    assert "shaken" in capsys.readouterr().out
    assert main(["exact", "pool", *scenario]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "house rule 'sunder' has an effect" in err
