"""Every example ruleset file: the contract suite passes on it, it answers the commands a
designer uses (duel, exact, log, show, matchups under best play, tune), and a sweep of it
makes a report that opens with a verdict."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.report.render import render
from balance.rulesets import resolve
from balance.testing import check_ruleset

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "rulesets"
FILES = sorted(p.name for p in EXAMPLES.glob("*.toml"))


def test_the_examples_are_the_six_of_the_issue() -> None:
    assert FILES == ["crt-plain.toml", "d20-armour-class.toml", "dice-pool.toml",
                     "opposed-d10.toml", "three-tiers.toml", "zones-contact.toml"]


@pytest.mark.parametrize("name", FILES)
def test_the_contract_suite_passes(name: str) -> None:
    check_ruleset(resolve(EXAMPLES / name))


def first_scenario(name: str) -> tuple[str, str]:
    scenario = next(iter(tomllib.loads((EXAMPLES / name).read_text())["scenarios"].values()))
    side = scenario["a"], scenario["b"]
    return tuple(s if isinstance(s, str) else s["preset"] for s in side)  # type: ignore[return-value]


@pytest.mark.parametrize("name", FILES)
def test_the_commands_a_designer_uses(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / name)
    a, b = first_scenario(name)
    assert main(["duel", path, "--a", a, "--b", b, "-n", "2000", "--seed", "1"]) == 0
    assert "A wins" in capsys.readouterr().out
    assert main(["exact", path, "--a", a, "--b", b]) == 0
    assert "exact" in capsys.readouterr().out
    assert main(["log", path, "--a", a, "--b", b, "--seed", "2"]) == 0
    assert "round 1" in capsys.readouterr().out
    assert main(["show", path]) == 0
    shown = capsys.readouterr().out
    assert "Rules written in" in shown and "end.out" in shown


@pytest.mark.parametrize("name", ["crt-plain.toml", "three-tiers.toml"])
def test_best_play_round_robin_and_tune(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / name)
    presets = list(resolve(path).presets)[:2]
    assert main(["matchups", path, "--play", "best", "--entrants", ",".join(presets)]) == 0
    assert "best play" in capsys.readouterr().out
    knob = "a.0.score" if name == "crt-plain.toml" else "a.0.stat"
    assert main(["tune", path, "--a", presets[0], "--b", presets[1], "--knob", knob]) == 0
    assert "method: exact" in capsys.readouterr().out


SWEEPS = {
    "crt-plain.toml": ("a.0.score", [8, 10, 12]),
    "zones-contact.toml": ("a.0.might", [1, 2, 3]),
    "opposed-d10.toml": ("a.0.skill", [2, 3, 4]),
    "d20-armour-class.toml": ("a.0.armour_class", [12, 15, 18]),
    "dice-pool.toml": ("rules.exploding", [False, True]),
    "three-tiers.toml": ("a.0.stat", [0, 1, 2]),
}


@pytest.mark.parametrize("name", FILES)
def test_a_sweep_of_it_makes_a_report_with_a_verdict(name: str, tmp_path: Path) -> None:
    # the spec names the file beside it, relative: read where the spec is, not the cwd
    shutil.copy(EXAMPLES / name, tmp_path / name)
    a, b = first_scenario(name)
    field, values = SWEEPS[name]
    (tmp_path / "exp.toml").write_text(
        f'ruleset = "{name}"\ndescription = "{field} in {name}"\n'
        f'a = [{{preset = "{a}"}}]\nb = [{{preset = "{b}"}}]\n'
        f'[grid]\naxes = [{{field = "{field}", values = {str(values).lower()}}}]\n'
        '[run]\nfights = 1500\nseed = 5\n')
    run = balance.sweep(tmp_path / "exp.toml", out=tmp_path / "run", executor="serial")
    assert len(run.table) == len(values)
    paths = render(tmp_path / "run")
    text = Path(paths["markdown"]).read_text()
    assert "Verdict" in text or "verdict" in text
