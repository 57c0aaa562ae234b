"""crt's content as data: the band table, both Extraordinary tables and the ambush table are
rule tables, read alike by the reference, the kernel and the exact solver, editable from
the command line and TOML, and validated (a bad entry is a one-line error).

The agreement tests reject a correct kernel with probability ALPHA each (threshold fixed in
advance; the seeds are fixed, so a pass is repeatable).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import balance
from balance.experiments import load_spec
from balance.rulesets.crt import Combatant, Rules
from balance.rulesets.crt.exact import stroke_probability
from balance.rulesets.crt.reference import fight
from balance.rulesets.crt.rules import band, needed, scores
from balance.stats import chi2_homogeneity, gof_pvalue
from balance.testing import kernel_counts, reference_counts

crt = balance.get("crt")
ALPHA = 1e-3
ROOT = Path(__file__).resolve().parents[2]
NARROW_TEXT = "advantage:7,great_advantage:13,deficit:-7,great_deficit:-13"
NARROW = crt.rules(band_edges=NARROW_TEXT)


def test_the_default_tables_are_the_seeds():
    rules = Rules()
    assert [band(d, rules) for d in (-25, -24, -13, -12, -1, 0, 1, 12, 13, 24, 25)] == [
        "great_deficit", "deficit", "deficit", "slight_deficit", "slight_deficit", "zero",
        "slight_advantage", "slight_advantage", "advantage", "advantage", "great_advantage"]
    assert rules.ef_table["2"] == "slain" and rules.es_table["12"] == "enemy_breaks"
    assert [rules.ambush_table[str(t)] for t in range(1, 12)] == (
        ["warned"] + ["none"] * 3 + ["brief"] * 2 + ["surprise"] * 2 + ["total"] * 3)
    assert dict(rules.ambush_bonus) == {"brief": 6, "surprise": 12}
    tags = {f["name"]: f["tag"] for f in crt.describe()["rule_parameters"]}
    assert all(tags[name] == "TEXT" for name in ("band_edges", "band_needed", "ef_table",
                                                 "es_table", "ambush_table", "ambush_bonus"))


def test_narrow_bands_move_the_edges():
    assert [needed(d, NARROW) for d in (6, 7, 12, 13, -6, -7, -12, -13)] == [
        6, 5, 5, 4, 8, 9, 9, 10]
    assert stroke_probability(7, NARROW) == Fraction(30, 36)
    assert stroke_probability(7, Rules()) == Fraction(26, 36)
    zero_on_eight = crt.rules(band_needed="zero:8")
    assert [r for r in range(2, 13) if scores(0, r, zero_on_eight)] == [8, 12]


def test_exact_and_kernel_read_the_edited_bands():
    rules = crt.rules(NARROW, extraordinary=False, band_needed="slight_deficit:9")
    a, b = Combatant(name="a", bonus=8), Combatant(name="b")  # advantage 8: A in "advantage"
    exact = balance.exact("crt", a, b, rules=rules)
    seed_bands = balance.exact("crt", a, b, extraordinary=False)
    assert exact.a_win - seed_bands.a_win > 0.05
    out = crt.simulate(rules, (a,), (b,), n=100_000, rng=np.random.default_rng(41))
    counts = np.bincount(out.winner, minlength=3)
    assert gof_pvalue(counts, [exact.draw, exact.a_win, exact.b_win]) > ALPHA


EDITED = crt.rules(
    ef_table="2:nothing,5:slain,8:dropped,10:struck_self",
    es_table="3:stroke,7:two_strokes,9:disarm,12:break_weapon",
    ambush_table="2:total,3:surprise,4:brief", ambush_bonus="brief:20", ambush="a",
    band_edges="advantage:4,great_advantage:9")


@pytest.mark.parametrize("side_b", [(crt.presets["duelist"],),
                                    (crt.presets["novice"], crt.presets["skilled"])])
def test_kernel_matches_reference_with_edited_tables(side_b):
    side_a = (Combatant(name="a", agility=10, toughness=10, bonus=3, ambush=1,
                        shield="round"),)
    kernel = kernel_counts(crt, EDITED, side_a, side_b, n=100_000, seed=43)
    reference = reference_counts(crt, EDITED, side_a, side_b, n=3000, seed=44)
    assert chi2_homogeneity(kernel, reference) > ALPHA
    # and the edit matters: the seed's tables give another distribution
    seed_tables = crt.rules(ambush="a")
    other = kernel_counts(crt, seed_tables, side_a, side_b, n=100_000, seed=45)
    assert chi2_homogeneity(kernel, other) < 1e-12


def test_an_edited_entry_is_what_the_log_narrates(scripted):
    # A rolls 12 (6, 6) and B 3; the ES table roll 7 (3, 4) now reads "two_strokes":
    # two damage rolls (2 and 5) on B, who has health 6.
    rules = crt.rules(es_table="7:two_strokes")
    lines: list[str] = []
    outcome = fight(rules, (Combatant(name="A"),), (Combatant(name="B", health=6),),
                    rng=scripted([6, 6, 1, 2, 3, 4, 2, 5]), log=lines.append)
    assert any("table roll 7: two_strokes" in line for line in lines)
    assert outcome.winner == balance.Winner.A and outcome.rounds == 1


BAD = [
    ("band_edges=advantage:30", "'band_edges' must keep the bands in order"),
    ("band_edges=great_deficit:4", "'band_edges' must keep the bands in order"),
    ("band_edges=advantage:500", "'band_edges.advantage' must be in -99..99"),
    ("band_needed=zero:3", "'band_needed.zero' must be in 4..11"),
    ("band_needed=fumble:5", "keys: great_advantage, advantage"),
    ("ef_table=7:flying", "'ef_table.7' must be one of slain, unconscious"),
    ("es_table=7:slain", "'es_table.7' must be one of devil"),
    ("es_table=13:stroke", "keys: 2, 3, 4"),
    ("ambush_table=12:total", "keys: 1, 2, 3"),
    ("ambush_table=5:ambushed", "'ambush_table.5' must be one of warned"),
    ("ambush_bonus=brief:-1", "'ambush_bonus.brief' must be in 0..99"),
]


@pytest.mark.parametrize(("rule", "message"), BAD)
def test_a_bad_table_entry_is_a_one_line_error(cli, rule, message):
    status, out, err = cli("duel", "crt", "--a", "novice", "--b", "novice",
                           "--rule", rule, "-n", "100")
    assert status == 2 and out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_tables_from_the_command_line_and_toml(cli, tmp_path):
    status, out, _ = cli("exact", "crt", "--a", "novice,combats=8", "--b", "novice",
                         "--rule", "extraordinary=false", "--rule",
                         "band_edges=" + NARROW_TEXT, "--json")
    assert status == 0
    narrow = json.loads(out)["a_win"]
    assert narrow == pytest.approx(balance.exact("crt", "novice,combats=8", "novice",
                                                 rules=crt.rules(NARROW, extraordinary=False)).a_win)
    scenario = tmp_path / "tables.toml"
    scenario.write_text('description = "edited tables"\n'
                        '[rules]\nextraordinary = false\n'
                        f'band_edges = "{NARROW_TEXT}"\n'
                        '[[a]]\npreset = "novice"\ncombats = 8\n[[b]]\npreset = "novice"\n')
    status, out, _ = cli("exact", "crt", "--scenario", str(scenario), "--json")
    assert status == 0 and json.loads(out)["a_win"] == pytest.approx(narrow)


@pytest.mark.slow
def test_the_band_experiment_runs_through_sweep_and_report(cli, tmp_path):
    text = (ROOT / "experiments" / "crt-bands.toml").read_text()
    cut = text.replace("values = { start = 0, stop = 60 }", "values = [8, 20, 38]")
    cut = cut.replace("fights = 20_000", "fights = 2_000")
    assert cut.count("[8, 20, 38]") == 1 and "fights = 2_000" in cut
    spec_path = tmp_path / "bands.toml"
    spec_path.write_text(cut)
    assert len(load_spec(spec_path).to_dict()["grid"]["axes"]) == 2
    run_dir = tmp_path / "run"
    status, _, err = cli("sweep", str(spec_path), "--out", str(run_dir),
                         "--executor", "serial", "-q")
    assert status == 0, err
    table = balance.load_run(run_dir).table
    assert len(table) == 9 and table["rules.band_edges"].nunique() == 3
    # combats 20 (advantage -11): a slight deficit under the seed's bands, a deficit under
    # the narrow ones -- the narrow edge costs the challenger about half his chances
    seed_row = table[(table["a.0.combats"] == 20)
                     & table["rules.band_edges"].str.startswith("advantage:13")]
    narrow_row = table[(table["a.0.combats"] == 20)
                       & table["rules.band_edges"].str.startswith("advantage:7")]
    assert float(narrow_row["a_win"].iloc[0]) < float(seed_row["a_win"].iloc[0])
    status, _, err = cli("report", str(run_dir))
    assert status == 0, err
    report = (run_dir / "report" / "report.md").read_text()
    assert "band edges" in report  # the experiment's [labels]
    assert "narrow: 7 / 13" in report or "advantage:7,great_advantage:13" in report
