"""`balance new ruleset NAME`: the package it writes passes the contract as written, and,
installed, works by name with duel, sweep and report (no edit to balance/)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from balance.cli import main
from balance.rulesets import resolve
from balance.testing import check_ruleset, ruleset_checks

ROOT = Path(__file__).resolve().parents[1]


def test_the_written_ruleset_passes_the_contract(tmp_path: Path, monkeypatch, capsys) -> None:
    assert main(["new", "ruleset", "toy_d10", "--out", str(tmp_path), "--package"]) == 0
    assert "pip install -e" in capsys.readouterr().out
    package = tmp_path / "toy_d10"
    assert {p.name for p in package.iterdir()} == {"pyproject.toml", "README.md", "toy_d10",
                                                    "tests"}
    monkeypatch.chdir(package)
    rs = resolve("toy_d10:RULESET", allow_import=True)
    check_ruleset(rs)
    assert [p.name for p in rs.policy_space()] == ["stance"]


def test_by_default_it_writes_a_ruleset_file_that_passes_the_contract(
        tmp_path: Path, capsys) -> None:
    assert main(["new", "ruleset", "toy_file", "--out", str(tmp_path)]) == 0
    assert "a ruleset file" in capsys.readouterr().out
    assert [p.name for p in tmp_path.iterdir()] == ["toy_file.toml"]
    rs = resolve(str(tmp_path / "toy_file.toml"))
    assert rs.name == "toy_file" and [p.name for p in rs.policy_space()] == ["stance"]
    check_ruleset(rs)
    assert main(["new", "ruleset", "toy_file", "--out", str(tmp_path)]) == 2  # never over it
    assert "exists already" in capsys.readouterr().err


def test_the_guide_counts_the_contract_checks() -> None:
    guide = (ROOT / "docs" / "your-own-ruleset.md").read_text()
    count = len(list(ruleset_checks(resolve("crt"))))
    assert f"# the contract suite: {count} checks" in guide


@pytest.mark.parametrize(("argv", "message"), [
    (["new", "ruleset", "Bad-Name"], "must be a lowercase Python identifier"),
    (["new", "ruleset", "crt"], "taken by a built-in"),
    (["new", "ruleset", "class"], "must be a lowercase Python identifier"),
    (["new", "ruleset", "toy", "--out", "/nonexistent/folder"], "does not exist"),
])
def test_bad_names_are_one_line_and_write_nothing(tmp_path: Path, monkeypatch, capsys, argv,
                                                  message) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_overwritten(tmp_path: Path, capsys) -> None:
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "mine.txt").write_text("keep")
    assert main(["new", "ruleset", "toy", "--out", str(tmp_path), "--package"]) == 2
    assert "exists already" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "toy").iterdir()] == ["mine.txt"]


@pytest.mark.slow
def test_installed_it_works_by_name_through_duel_sweep_and_report(tmp_path: Path) -> None:
    assert main(["new", "ruleset", "d10", "--out", str(tmp_path), "--package"]) == 0
    site = tmp_path / "site"
    # Installed into a folder of its own (not this environment): the entry point is found
    # through PYTHONPATH exactly as an installed package's would be.
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                           "--no-build-isolation", "--target", str(site),
                           str(tmp_path / "d10")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}

    def balance(*args: str) -> str:
        run = subprocess.run([sys.executable, "-m", "balance", *args], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        return run.stdout

    assert "d10" in balance("rulesets")
    assert "A wins" in balance("duel", "d10", "--a", "veteran", "--b", "novice", "-n",
                               "20000", "--seed", "1")
    spec = tmp_path / "skill.toml"
    spec.write_text('ruleset = "d10"\ndescription = "what a point of skill is worth"\n'
                    'a = [{preset = "veteran"}]\nb = [{preset = "novice"}]\n'
                    '[grid]\naxes = [{field = "b.0.skill", values = [0, 1, 2, 3]}]\n'
                    '[run]\nfights = 4000\nseed = 3\n')
    balance("sweep", str(spec), "--out", str(tmp_path / "run"), "--executor", "serial", "-q")
    out = balance("report", str(tmp_path / "run"))
    assert (tmp_path / "run" / "report" / "report.html").is_file(), out
