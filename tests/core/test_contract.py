"""The ruleset contract's shared parts: the resolver, policy spaces and their disclosure,
end causes."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import balance
from balance.errors import SpecError
from balance.outcomes import EndCauses
from balance.rulesets import RULESETS, available, resolve
from balance.rulesets.base import Ruleset

ROOT = Path(__file__).resolve().parents[2]


def test_resolve_names_objects_and_refuses_unknown_with_a_suggestion() -> None:
    crt = RULESETS["crt"]
    assert resolve("crt") is crt and resolve(crt) is crt
    with pytest.raises(SpecError, match=r"unknown ruleset 'cr' \(did you mean 'crt'\?\)"):
        resolve("cr")
    assert set(RULESETS) <= set(available())


def test_an_import_path_runs_code_only_when_allowed(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "planted.py").write_text("import pathlib\npathlib.Path('ran').write_text('x')\n"
                                         "from tests.sweep.coin import COIN\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT))
    with pytest.raises(SpecError, match="would import and run the Python module 'planted'; "
                                        "allow it with --allow-import"):
        resolve("planted:COIN")
    assert not (tmp_path / "ran").exists()
    rs = resolve("planted:COIN", allow_import=True)
    assert isinstance(rs, Ruleset) and (tmp_path / "ran").exists()
    with pytest.raises(SpecError, match="is a str, not a ruleset"):
        (tmp_path / "plain.py").write_text("X = 'no'\n")
        resolve("plain:X", allow_import=True)


def test_the_command_line_refuses_an_import_without_the_flag(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "balance", "show", "tests.sweep.coin:COIN"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--allow-import" in done.stderr
    done = subprocess.run([sys.executable, "-m", "balance", "show", "tests.sweep.coin:COIN",
                           "--allow-import", "--json"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_end_causes_bind_names_to_codes_and_pickle() -> None:
    causes = EndCauses("down", "surrender", "max_rounds")
    assert causes.surrender == causes.code("surrender") == 1 and causes[2] == "max_rounds"
    assert pickle.loads(pickle.dumps(causes)) == causes
    assert type(pickle.loads(pickle.dumps(causes))) is EndCauses
    with pytest.raises(ValueError):
        EndCauses("down", "down")
    for rs in RULESETS.values():
        assert isinstance(rs.causes, EndCauses)


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_built_in_ruleset_declares_policies(name: str) -> None:
    # what a declared policy must be (a field, values to try, each valid) is the contract's
    # check_policy_space, run over every ruleset in tests/test_contract_suite.py
    assert RULESETS[name].policy_space(), f"{name} declares no policies"


def test_results_disclose_their_policies_apart_from_the_readings() -> None:
    s = balance.duel("crt", "veteran", "novice,divert=below_health,divert_health=4", n=2000,
                     seed=1)
    assert "divert: A=never, B=below_health" in s.policies
    assert "divert_health: A=3, B=4" in s.policies    # shown once someone plays it
    assert not any(a.startswith(("divert=", "divert_health=", "divert_p=")) for a in s.assumptions)
    assert s.to_dict()["policies"] == list(s.policies)
    assert "policies: divert: A=never, B=below_health" in str(s)
    p = balance.exact("crt", "veteran", "novice", extraordinary=False)
    assert p.policies == ("divert=never",) and p.assumptions
    assert p.to_dict()["policies"] == ["divert=never"]


def test_sweep_rows_name_their_policies(tmp_path: Path) -> None:
    spec = {"ruleset": "crt", "a": "veteran", "b": "novice", "rules": {"extraordinary": False},
            "grid": {"axes": [{"field": "b.0.divert", "values": ["never", "always"]}]},
            "run": {"method": "exact"}}
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial", progress=False)
    assert list(table["policies"]) == ["divert=never", "divert: A=never, B=always"]
    meta = balance.load_run(path)
    assert "policies" in meta.table.columns


def test_presets_as_data_build_on_each_other_and_leave_the_ruleset_alone() -> None:
    crt = balance.get("crt")
    mine = crt.with_presets({"champion": {"preset": "veteran", "combats": 40},
                             "champion2": "champion,skill=5", "plain": {"agility": 9}})
    assert mine.presets["champion2"].combats == 40 and mine.presets["champion2"].skill == 5
    assert mine.presets["plain"].name == "plain"          # the key names it
    assert "champion" not in crt.presets and resolve("crt") is crt
    with pytest.raises(SpecError, match=r"^presets\.bad: unknown crt combatant field 'agilty'"):
        crt.with_presets({"bad": {"agilty": 9}})
    with pytest.raises(SpecError, match="a preset name is a non-empty word"):
        crt.with_presets({"a,b": {}})


def test_every_command_takes_a_presets_file_and_matchups_any_spec(tmp_path: Path,
                                                                  capsys) -> None:
    from balance.cli import main

    presets = tmp_path / "mine.toml"
    presets.write_text('[presets.champion]\npreset = "veteran"\ncombats = 40\n')
    assert main(["duel", "crt", "--presets", str(presets), "--a", "champion", "--b", "novice",
                 "-n", "2000", "--seed", "1"]) == 0
    assert main(["exact", "crt", "--presets", str(presets), "--a", "champion", "--b", "novice",
                 "--rule", "extraordinary=false"]) == 0
    capsys.readouterr()
    assert main(["matchups", "crt", "--presets", str(presets), "--entrants", "champion,novice",
                 "--entrant", "novice,skill=2", "--rule", "extraordinary=false"]) == 0
    out = capsys.readouterr().out
    assert "novice,skill=2" in out and "champion" in out
    assert main(["matchups", "crt", "--presets", "novice,expert"]) == 2
    err = capsys.readouterr().err
    assert "--presets takes a TOML file" in err and "--entrants" in err
    assert main(["matchups", "crt", "--entrant", "novice,agilty=3"]) == 2
    assert "--entrant 'novice,agilty=3': unknown crt combatant field 'agilty'" in \
        capsys.readouterr().err


def test_an_experiment_defines_its_own_presets(tmp_path: Path) -> None:
    spec = {"ruleset": "crt", "a": [{"preset": "champion"}], "b": "rookie",
            "presets": {"champion": {"preset": "veteran", "combats": 40},
                        "rookie": {"agility": 9}},
            "rules": {"extraordinary": False}, "run": {"method": "exact"}}
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial", progress=False)
    direct = balance.exact("crt", "veteran,combats=40", "agility=9", extraordinary=False)
    assert table["a_win"].iloc[0] == pytest.approx(direct.a_win, abs=1e-12)
    loaded = balance.load_spec(json.loads((path / "meta.json").read_text())["spec"])
    assert loaded.presets["champion"]["combats"] == 40
    with pytest.raises(SpecError, match=r"presets\.rookie: unknown crt combatant field"):
        balance.load_spec({**spec, "presets": {"rookie": {"agilty": 9}}})
