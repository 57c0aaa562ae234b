"""Small conveniences of the command line: file modes, names, progress, executors."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from balance import files


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_honour_the_umask(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        target = tmp_path / "sub" / "table.csv"
        files.atomic_write(target, "a,b\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask


@pytest.mark.parametrize(("argv", "hint"), [
    (["exact", "crtt", "--a", "veteran", "--b", "expert"], "did you mean 'crt'?"),
    (["exact", "crt", "--a", "veteran", "--b", "exprt"], "did you mean 'expert'?"),
    (["exact", "crt", "--a", "veteran,combat=3", "--b", "expert"], "did you mean 'combats'?"),
    (["exact", "crt", "--a", "veteran", "--b", "expert", "--rule", "ambsh=a"],
     "did you mean 'ambush'?"),
    (["exact", "crt", "--a", "veteran", "--b", "expert", "--rule", "divert_scope=al"],
     "did you mean 'all'?"),
])
def test_unknown_names_get_a_suggestion(argv: list[str], hint: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from balance.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("balance: error: ") and hint in err


def test_no_suggestion_when_nothing_is_close() -> None:
    from balance.errors import did_you_mean

    assert did_you_mean("zzzz", ["expert", "novice"]) == ""
    assert did_you_mean("Strike_Rank", ["crt", "strike-rank"]) == " (did you mean 'strike-rank'?)"


def test_spec_names_get_a_suggestion(tmp_path: Path) -> None:
    import balance
    from balance.errors import SpecError

    spec = {"ruleset": "crt", "a": "veteran", "b": "expert",
            "grid": {"axes": [{"field": "a.0.skil", "values": [1, 2]}]}, "run": {"fights": 10}}
    with pytest.raises(SpecError, match="did you mean 'skill'"):
        balance.load_spec(spec)
    spec["grid"] = {"axes": [{"field": "rules.ambsh", "values": ["a"]}]}
    with pytest.raises(SpecError, match="did you mean 'ambush'"):
        balance.load_spec(spec)


def test_default_names_the_all_defaults_combatant() -> None:
    import balance

    rs = balance.get("crt")
    assert rs.combatant("default") == rs.Combatant()
    assert rs.combatant("default,skill=2") == rs.Combatant(skill=2)
    assert balance.exact("crt", "default", "default", extraordinary=False).a_win == \
        pytest.approx(balance.exact("crt", {}, {}, extraordinary=False).a_win)


class _Terminal:
    """A stream that says it is a terminal and keeps what is written."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_progress_waits_for_its_delay_and_needs_a_terminal(monkeypatch) -> None:
    import builtins

    from balance.progress import Progress

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):  # the plain-line fallback, as without the extra
        if name == "tqdm":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    quick = _Terminal()
    with Progress(10, desc="duel", unit="fight", stream=quick, delay=60.0) as bar:
        bar.update(5)
    assert quick.text == ""  # finished before the delay: silent
    slow = _Terminal()
    with Progress(10, desc="duel", unit="fight", stream=slow, delay=0.0) as bar:
        bar.update(5)
        assert "duel: 5 / 10 fights (50%)" in slow.text
    assert slow.text.endswith("\r\033[K")  # the line is cleared for the result
    piped = _Terminal()
    piped.isatty = lambda: False  # type: ignore[method-assign]
    with Progress(10, desc="duel", unit="fight", stream=piped, delay=0.0) as bar:
        bar.update(5)
    assert piped.text == ""


def test_progress_uses_tqdm_where_installed() -> None:
    pytest.importorskip("tqdm")
    from balance.progress import Progress

    out = _Terminal()
    with Progress(4, desc="matchups", unit="pair", stream=out, delay=0.0) as bar:
        for done in range(1, 5):
            bar.update(done)
    assert "matchups:" in out.text and "0/4 " in out.text  # tqdm redraws at most every 0.1 s


def test_bench_times_whole_commands_from_a_fresh_process() -> None:
    # the figures themselves are printed by `balance bench --case startup`, never asserted
    from balance import bench

    rows = bench.startup(runs=1)
    assert [r["case"] for r in rows] == ["startup: import balance", "startup: balance --help",
                                        "startup: balance exact crt", "startup: balance plot"]
    assert all(r["wall_s_median"] > 0 and r["runs"] == 1 for r in rows)
    assert rows[2]["command"] == "balance exact crt --a veteran --b expert --rule " \
        "extraordinary=false"


def test_spec_labels_are_checked_and_kept(tmp_path: Path) -> None:
    import balance
    from balance.errors import SpecError

    spec = {"ruleset": "crt", "a": [{"name": "challenger"}], "b": "veteran",
            "grid": {"axes": [{"field": "a.0.skill", "values": [0, 1]},
                              {"field": "rules.armour_points",
                               "values": [{"none": 0, "leather": 1, "mail": 2, "plate": 3},
                                          {"none": 0, "leather": 2, "mail": 2, "plate": 3}]}]},
            "run": {"fights": 200, "seed": 1},
            "labels": {"a.0.skill": "challenger's skill", "a_win": "challenger wins",
                       "values": {"a.0.skill": {"0": "unskilled"}}}}
    loaded = balance.load_spec(spec)
    assert balance.load_spec(loaded.to_dict()) == loaded
    for bad, words in (({"a.0.skil": "x"}, "did you mean 'a.0.skill'"),
                       ({"values": {"a.0.skill": {"7": "x"}}}, "not a value of the axis"),
                       ({"values": {"b.0.skill": {"0": "x"}}}, "not a swept axis")):
        with pytest.raises(SpecError, match=words):
            balance.load_spec({**spec, "labels": bad})
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    from balance.labels import Labels

    labels = Labels.for_run(table)
    assert labels.column("a.0.skill") == "challenger's skill"
    assert labels.column("a.0.combats") == "A: combats survived"  # from the field's doc
    assert labels.column("rules.armour_points") == "rule: armour points"
    assert labels.value("a.0.skill", 0) == "unskilled" and labels.value("a.0.skill", 1) == "1"
    # a rule table by the entries that differ between the axis's values, not its JSON
    values = table["rules.armour_points"].unique().tolist()
    assert [labels.value("rules.armour_points", v) for v in values] == ["leather=1",
                                                                         "leather=2"]
    assert labels.is_baseline("rules.armour_points", values[0])  # the rule's default
    assert labels.is_baseline("a.0.skill", 0)  # the challenger's own skill


def test_rates_are_rounded_to_what_their_interval_supports() -> None:
    from balance.labels import rate_with_interval

    assert rate_with_interval(0.53214, 0.5277, 0.5365) == "53.2% [52.8, 53.6]"
    assert rate_with_interval(0.98781, 0.98766, 0.98796) == "98.78% [98.77, 98.80]"
    assert rate_with_interval(0.5, 0.3, 0.7) == "50% [30, 70]"
    assert rate_with_interval(0.25, 0.25, 0.25, exact=True) == "25.00%"
