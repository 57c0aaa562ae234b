"""The issue's house-rule examples (issue 21) run through every command they name: duel,
log, exact, matchups and show on the rules file, and sweep + report on the experiment
spec, which ends in a report with a verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from balance.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = {
    "crt": (ROOT / "examples" / "crt-shield.toml", "shield_against_two_handed",
            ["--entrant", "duelist,shield=round", "--entrant",
             "duelist,weapon_type=two_handed,strength=10", "--entrant", "duelist"]),
    "pool": (ROOT / "examples" / "pool-wounded-defence.toml", "wounded_defence",
             ["--entrants", "average,duellist,brute"]),
}


@pytest.mark.parametrize("ruleset", list(EXAMPLES))
def test_the_rules_file_runs_through_every_command(ruleset, capsys):
    path, row, entrants = EXAMPLES[ruleset]
    scenario = ["--scenario", str(path)]
    assert main(["duel", ruleset, *scenario, "-n", "2000", "--seed", "1", "--json"]) == 0
    duel = json.loads(capsys.readouterr().out)
    assert duel["n"] == 2000
    assert main(["log", ruleset, *scenario, "--seed", "1"]) == 0
    assert f"{row} +" in capsys.readouterr().out  # the log names the rule that fired
    exact = ["--rule", "extraordinary=false"] if ruleset == "crt" else []
    assert main(["exact", ruleset, *scenario, *exact, "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["a_win"] + answer["b_win"] + answer["draw"] == pytest.approx(1.0)
    assert main(["matchups", ruleset, "--rules", str(path), *entrants, "-n", "500",
                 "--resamples", "10", "--json", *exact]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"]
    assert main(["show", ruleset, "house_rules", row, "--rules", str(path)]) == 0
    assert f"  {row}  (from {path})" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["crt-shield-experiment", "pool-wounded-defence-experiment",
                                  "pool-sunder-experiment"])
def test_the_experiment_becomes_a_report_with_a_verdict(name, tmp_path, capsys):
    run = tmp_path / "run"
    assert main(["sweep", str(ROOT / "examples" / f"{name}.toml"), "--out", str(run), "-q",
                 "--executor", "serial"]) == 0
    assert main(["report", str(run)]) == 0
    capsys.readouterr()
    report = (run / "report" / "report.md").read_text()
    verdict = report.split("## Verdict\n")[1].split("\n## ")[0]
    assert verdict.strip().startswith("- ")
    assert "Sensitivity to house rule" in report  # the rule's effect, cell against twin
