"""The remaining rows of seed 001 (issue 14): EF 8's weapon passing to the foe, ES 11 as the
roller's choice, diversion mixed per band, crowds beyond three, kills decided by the tables,
and the campaign.  Each: a scripted or narrated reference fight, kernel against reference
in distribution, the exact solver where it reaches.

Each agreement test rejects a correct kernel with probability ALPHA (fixed in advance; the
seeds are fixed, so a pass is repeatable).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import balance
from balance.cli import main
from balance.errors import SpecError
from balance.rulesets.crt import Combatant, Rules, decided_by_tables
from balance.rulesets.crt.campaign import career, career_length, skill_after, summary
from balance.rulesets.crt.reference import fight
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import kernel_counts, reference_counts

crt = balance.get("crt")
ALPHA = 1e-3


def _agree(rules, side_a, side_b, seed, n_kernel=100_000, n_reference=3000):
    kernel = kernel_counts(crt, rules, side_a, side_b, n=n_kernel, seed=seed)
    reference = reference_counts(crt, rules, side_a, side_b, n=n_reference, seed=seed + 1)
    return chi2_homogeneity(kernel, reference)


# --- EF 8: "stripped of your weapon [they have it]" ----------------------------------------

BRAWLER = Combatant(name="B", agility=12, toughness=4, weapon_type="unarmed")


def test_a_stripped_weapon_passes_to_the_foe(scripted):
    # A rolls 2 (1, 1), B 3 (1, 2); A's failure table roll 8 (4, 4): stripped.  B, fighting
    # unarmed at score 4, takes up the one-handed weapon (agility 12: score 12).
    rules = Rules(max_rounds=1)
    lines: list[str] = []
    fight(rules, (Combatant(name="A"),), (BRAWLER,), rng=scripted([1, 1, 1, 2, 4, 4]),
          log=lines.append)
    assert any("table roll 8: stripped" in line for line in lines)
    assert any("A [A1] is now unarmed" in line for line in lines)
    assert any("B [B1] takes up the stripped one-handed weapon (score 4 -> 12)" in line
               for line in lines)
    lines.clear()
    fight(Rules(max_rounds=1, ef8="lost"), (Combatant(name="A"),), (BRAWLER,),
          rng=scripted([1, 1, 1, 2, 4, 4]), log=lines.append)
    assert not any("takes up" in line for line in lines)


def test_an_armed_foe_keeps_the_better_weapon(scripted):
    lines: list[str] = []
    expert = Combatant(name="B", skill=2)  # one-handed expert: score 21 with his own
    fight(Rules(max_rounds=1), (Combatant(name="A", weapon_type="two_handed"),), (expert,),
          rng=scripted([1, 1, 1, 2, 4, 4]), log=lines.append)
    assert any("has the stripped two-handed weapon but keeps his own" in line for line in lines)


STRIPPING = crt.rules(ef_table=",".join(f"{r}:stripped" for r in (3, 5, 6, 9, 10, 11)))


@pytest.mark.parametrize(("side_a", "side_b"), [
    ((Combatant(name="A", skill=2, shield="round"),), (BRAWLER,)),
    ((Combatant(name="A", weapon_type="two_handed", strength=11), crt.presets["novice"]),
     (BRAWLER, Combatant(name="C", weapon_type="unarmed", agility=9))),
])
def test_weapon_passing_kernel_matches_reference(side_a, side_b):
    assert _agree(STRIPPING, side_a, side_b, seed=71) > ALPHA
    lost = crt.rules(STRIPPING, ef8="lost")
    kernel = kernel_counts(crt, STRIPPING, side_a, side_b, n=100_000, seed=73)
    other = kernel_counts(crt, lost, side_a, side_b, n=100_000, seed=73)
    assert chi2_homogeneity(kernel, other) < 1e-6  # the foe taking it up matters


# --- ES 11: the roller's choice ---------------------------------------------------------------


def test_es11_is_the_rollers_choice(scripted):
    # A rolls 12 (6, 6), B 3; A's success table roll 11 (5, 6): break weapon.  A accepts
    # the surrender; B, had he rolled it, would take the damage.
    a = Combatant(name="A", es11="surrender")
    outcome = fight(Rules(), (a,), (Combatant(name="B"),), rng=scripted([6, 6, 1, 2, 5, 6]))
    assert outcome.winner == balance.Winner.A and outcome.cause == "surrender"
    lines: list[str] = []
    outcome = fight(Rules(max_rounds=1), (Combatant(name="A"),), (Combatant(name="B"),),
                    rng=scripted([6, 6, 1, 2, 5, 6, 3]), log=lines.append)
    assert any("B [B1] is now unarmed" in line for line in lines)
    s = balance.duel("crt", "veteran,es11=surrender", "expert", n=2000, seed=1)
    assert "es11: A=surrender, B=damage" in s.policies
    assert "es11" in {p.name for p in crt.policy_space()}


def test_es11_kernel_matches_reference():
    breaking = crt.rules(es_table="3:break_weapon,5:break_weapon,8:break_weapon")
    side_a = (Combatant(name="A", es11="surrender", bonus=2),)
    side_b = (Combatant(name="B"), Combatant(name="C", es11="surrender"))
    assert _agree(breaking, side_a, side_b, seed=75) > ALPHA


# --- diversion mixed per band ----------------------------------------------------------------


def test_by_band_diversion_in_the_exact_solver():
    rules = Rules(extraordinary=False)
    deficit = crt.combatant("duelist", bonus=-5, divert="by_band",
                            divert_by_band="slight_deficit:1.0")
    same = balance.exact("crt", crt.combatant("duelist", bonus=-5, divert="if_deficit"),
                         "duelist", rules=rules)
    assert balance.exact("crt", deficit, "duelist", rules=rules).a_win == pytest.approx(
        same.a_win, abs=1e-14)
    half = crt.combatant(deficit, divert_by_band="slight_deficit:0.5")
    mixed = balance.exact("crt", half, "duelist", rules=rules)
    out = crt.simulate(crt.rules(rules, extraordinary=True, max_table_chain=0), (half,),
                       (crt.presets["duelist"],), n=100_000, rng=np.random.default_rng(77))
    counts = np.bincount(out.winner, minlength=3)
    assert gof_pvalue(counts, [mixed.draw, mixed.a_win, mixed.b_win]) > ALPHA


def test_by_band_diversion_kernel_matches_reference():
    side_a = (crt.combatant(None, name="A", divert="by_band", bonus=-14,
                            divert_by_band="deficit:0.7,great_deficit:0.3"),)
    side_b = (crt.combatant(None, name="B", divert="by_band", divert_by_band="advantage:0.4"),
              crt.combatant(None, name="C", divert="by_band", divert_by_band="zero:0.6"))
    assert _agree(Rules(), side_a, side_b, seed=79) > ALPHA


def test_by_band_is_a_policy_best_play_can_search():
    (policy,) = [p for p in crt.policy_space() if p.name == "divert_by_band"]
    assert policy.scope == "combatant" and len(policy.values) >= 3
    (divert,) = [p for p in crt.policy_space() if p.name == "divert"]
    assert "by_band" in divert.values


# --- crowds -----------------------------------------------------------------------------------

VETERAN, NOVICE = crt.presets["veteran"], crt.presets["novice"]
CROWDS = {
    "1 v 6": ((VETERAN,), (NOVICE,) * 6),
    "2 v 8, two at a time": ((VETERAN, crt.presets["expert"]), (NOVICE,) * 8),
    "4 v 4": ((crt.presets["expert"], crt.presets["skilled"], NOVICE, NOVICE),
              (VETERAN, NOVICE, NOVICE, NOVICE)),
    "5 v 2": ((NOVICE,) * 5, (crt.presets["superior"], crt.presets["skilled"])),
}


@pytest.mark.parametrize("name", list(CROWDS))
def test_crowd_kernel_matches_reference(name):
    side_a, side_b = CROWDS[name]
    rules = Rules(max_foes=2) if "two at a time" in name else Rules()
    assert _agree(rules, side_a, side_b, seed=81, n_kernel=50_000, n_reference=2000) > ALPHA


def test_a_crowd_waits_its_turn():
    lines: list[str] = []
    fight(Rules(), (VETERAN,), (NOVICE,) * 5, rng=np.random.default_rng(3), log=lines.append)
    first = lines.index("Round 1")
    assert lines[first + 1] == "  waiting their turn: novice [B4], novice [B5]"
    with pytest.raises(balance.IntractableError, match="one-against-one"):
        balance.exact("crt", VETERAN, [NOVICE] * 5, extraordinary=False)
    with pytest.raises(balance.SpecError, match=r"side b has 13 combatants; crt allows 1\.\.12"):
        balance.duel("crt", VETERAN, [NOVICE] * 13, n=10)


# --- kills decided by the tables ----------------------------------------------------------------


def test_a_kill_by_a_table_stroke_is_extraordinary(scripted):
    # A rolls 12 (6, 6), B 3: ES table roll 8 (4, 4), two strokes of 2 and 3 on B (health
    # 4): without them B would stand -> "extraordinary".
    lines: list[str] = []
    outcome = fight(Rules(), (Combatant(name="A"),), (Combatant(name="B", health=4),),
                    rng=scripted([6, 6, 1, 2, 4, 4, 2, 3]), log=lines.append)
    assert outcome.cause == "extraordinary"
    assert "B [B1] is down (an extraordinary result decided it)" in lines[-1]
    # a 7 at zero is an ordinary stroke: "down"
    outcome = fight(Rules(), (Combatant(name="A"),), (Combatant(name="B", health=4),),
                    rng=scripted([3, 4, 1, 2, 5]))
    assert outcome.cause == "down"


def test_share_decided_by_the_tables():
    s = balance.duel("crt", "duelist", "duelist", n=20_000, seed=5)
    share, (low, high) = decided_by_tables(s)
    shares = s.cause_shares()
    assert share == pytest.approx(sum(shares[c] for c in ("extraordinary", "surrender",
                                                          "broke", "mishap")))
    assert low < share < high and 0.15 < share < 0.45  # sanity band; the docs pin the figure
    plain = balance.duel("crt", "duelist", "duelist", n=2000, seed=5, extraordinary=False)
    assert decided_by_tables(plain)[0] == 0


# --- the campaign ----------------------------------------------------------------------------------


def test_campaign_simulated_careers_match_the_exact_product():
    rules = Rules(extraordinary=False)
    exact = career(rules, NOVICE, NOVICE, fights=14, method="exact")
    simulated = career(rules, NOVICE, NOVICE, fights=14, n=40_000, seed=3)
    assert list(simulated["combats"]) == list(range(14))
    # the exact survival lies in each simulated interval (99.9% intervals: 14 checks)
    wide = career(rules, NOVICE, NOVICE, fights=14, n=40_000, seed=3, confidence=0.999)
    assert ((wide["alive_low"] <= exact["alive"]) & (exact["alive"] <= wide["alive_high"])).all()
    assert simulated.equals(career(rules, NOVICE, NOVICE, fights=14, n=40_000, seed=3))
    # the snowball: each survived fight is a point of advantage, and the first skill level
    # (after ten) adds an ability (7) at once, lifting the win chance over the band edge
    # at +13; with combats alone the edge comes at fight 14
    assert list(exact["skill"]) == [0] * 10 + [1] * 4
    assert exact["p_win"].iloc[10] - exact["p_win"].iloc[9] > 0.15
    assert exact["alive"].is_monotonic_decreasing
    flat = career(rules, NOVICE, NOVICE, fights=14, method="exact", skill_growth="none")
    assert (flat["skill"] == 0).all()
    assert flat["p_win"].iloc[13] - flat["p_win"].iloc[12] > 0.15


def test_skill_grows_a_level_per_ten_fights_survived():
    # "skill points are accumulated through combat" (001.2): DEFAULT a level per 10 fights,
    # Bruggish's rate (veteran after 30); up to master; none = combats only
    assert [skill_after(0, k) for k in (0, 9, 10, 29, 30, 70)] == [0, 0, 1, 2, 3, 5]
    assert skill_after(2, 10, "every", 5) == 4 and skill_after(3, 40, "none") == 3
    table = career(Rules(extraordinary=False), NOVICE, NOVICE, fights=12, method="exact",
                   skill_every=4)
    assert list(table["skill"]) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2]
    # each level adds the weapon type's ability for it: one-handed strength, then toughness
    assert list(table["score"].iloc[3:5]) == [NOVICE.agility + 3,
                                               NOVICE.agility + 4 + NOVICE.strength]
    for bad, match in (({"skill_growth": "fast"}, "skill_growth must be one of every, none"),
                       ({"skill_every": 0}, "skill_every must be a whole number in 1..1000")):
        with pytest.raises(SpecError, match=match):
            career(Rules(), NOVICE, NOVICE, fights=2, **bad)


def test_campaign_against_peers_stays_even():
    exact = career(Rules(extraordinary=False), NOVICE, NOVICE, fights=5, peers=True,
                   method="exact")
    assert (exact["advantage"] == 0).all()
    assert exact["p_win"].nunique() == 1


def test_campaign_command_line(capsys):
    status = main(["campaign", "crt", "--a", "novice", "--b", "novice", "--fights", "3", "-n",
                   "2000", "--seed", "4", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and len(out["rows"]) == 3 and out["attrs"]["seed"] == 4
    assert out["attrs"]["policies"] and out["attrs"]["skill_growth"] == "every"
    assert [r["skill"] for r in out["rows"]] == [0, 0, 0]
    done = subprocess.run([sys.executable, "-m", "balance", "campaign", "crt", "--a",
                           "novice", "--b", "nobody"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("balance: error: unknown crt preset 'nobody'; presets: "
                           + ", ".join(crt.presets))
    status = main(["campaign", "crt", "--a", "novice", "--b", "novice", "--fights", "3",
                   "--exact"])
    assert status == 2  # tables on: no exact solution
    assert "no exact solution" in capsys.readouterr().err
    status = main(["campaign", "crt", "--a", "novice", "--b", "novice", "--fights", "12",
                   "--exact", "--rule", "extraordinary=false"])
    text = capsys.readouterr().out
    assert status == 0 and "skill_growth=every [DEFAULT]" in text
    assert "fight  11  combats  10  skill 1  advantage  +17" in text
    assert "fights won, of the first 12: mean" in text


def test_the_careers_sentence_reads_its_table():
    rules = Rules(extraordinary=False)
    novice = career(rules, NOVICE, NOVICE, fights=12, method="exact")
    mean = career_length(novice)[0]
    text = summary(novice, "a novice", "a novice")
    assert text.startswith(f"A novice against a novice, fresh each fight, wins {mean:.2f} of "
                           "his first 12 fights on average; ")
    assert f"{100 * novice['alive'].iloc[0]:.2f}% of careers survive the first fight" in text
    assert f"and {100 * novice['alive'].iloc[9]:.2f}% the first ten" in text
    assert text.endswith("at none of the first 12 fights is his chance 90% or more.")
    # the first fight whose chance reaches 90% (the interval's low end when simulated)
    veteran = career(rules, crt.presets["veteran"], NOVICE, fights=3, n=4_000, seed=2)
    assert (veteran["p_win_low"] >= 0.9).iloc[0]
    assert "a survivor's chance is first surely 90% or more at fight 1 (advantage +" in \
        summary(veteran, "a veteran", "a novice")
    late = novice.assign(p_win_low=[0.5] * 10 + [0.95, 0.97])
    assert ("first 90% or more at fight 11 (advantage +17, skill 1), and "
            f"{100 * novice['alive'].iloc[9]:.2f}% of careers get so far.") in \
        summary(late, "a novice", "a novice")


def test_a_spec_campaign_is_the_verdicts_last_sentence_and_a_report_section(tmp_path, monkeypatch):
    from balance.labels import rate_with_interval
    from balance.report.build import build, run_verdict

    text = ('ruleset = "crt"\n[[a]]\npreset = "novice"\n[[b]]\npreset = "novice"\n'
            '[[grid.axes]]\nfield = "a.0.combats"\nvalues = [0, 1]\n[run]\nfights = 2000\n'
            'seed = 8\n[campaign]\nfights = 6\ncareers = 3000\n')
    (tmp_path / "exp.toml").write_text(text)
    run = balance.sweep(tmp_path / "exp.toml", out=tmp_path / "run", executor="serial")
    table = career(crt.rules(), NOVICE, NOVICE, fights=6, n=3000, seed=8)
    sentence = summary(table, "a novice", "a novice")
    made = run_verdict(run.table, run.meta)
    assert made.sentences[-1].text == sentence and made.sentences[-1].kind == "career"
    # the career rests on the skill-growth reading too, and says so
    assert any(r.startswith("skill_growth=every [DEFAULT]") for r in made.rests_on)
    calls = []
    original = type(crt).career
    monkeypatch.setattr(type(crt), "career",
                        lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    from balance.experiments import readback

    readback._CAREERS.clear()
    report = build(run.table, run.meta)  # its verdict and its section: one career run
    assert len(calls) == 1
    (section,) = [s for s in report.sections if s.title == "A career"]
    assert section.blocks[0].text == sentence
    rows = next(b for b in section.blocks if hasattr(b, "frame")).frame
    assert list(rows["fight"]) == list(range(1, 7))
    first = table.iloc[0]
    assert rows["careers running after it"].iloc[0] == rate_with_interval(
        first.alive, first.alive_low, first.alive_high)
