"""Unreasonable runs: the estimate before a run starts, the cap, and progress with time left
(tqdm where installed, plain lines otherwise)."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path

import pytest

import balance
from balance import budget
from balance.experiments import runner

from ..sweep.helpers import make_spec


def test_fights_needed_is_the_worst_case_wilson_size() -> None:
    # z = 1.959964; z^2 / (4 h^2) at h = 0.01 is 9603.6
    assert budget.fights_needed(0.01) == 9604
    assert budget.fights_needed(0.001) == 960_365
    assert budget.fights_needed(0.01, 0.99) == 16_588  # z = 2.575829


def test_duration_words() -> None:
    assert [budget.duration(s) for s in (5, 600, 3600, 5400, 3 * 86400, 1e12, float("inf"))] \
        == ["5 s", "10 min", "1 h", "1.5 h", "3 days", "31,688 years", "forever"]


def test_small_runs_are_not_estimated() -> None:
    crt = balance.rulesets.resolve("crt")
    assert budget.estimate(crt, None, (), (), fights=budget.ESTIMATE_ABOVE,
                           chunk_size=1000) is None  # nothing is run: no matchup needed


def test_the_cap_refuses_and_none_lifts_it() -> None:
    found = budget.Estimate(fights=10**12, rate=1e6, workers=2)
    assert found.seconds == 5e5
    with pytest.raises(balance.SpecError, match=r"-n 1: 1,000,000,000,000 fights would take "
                                                r"about 5.8 days .* need --yes"):
        budget.check(found, "-n 1")
    budget.check(found, "-n 1", None)
    budget.check(budget.Estimate(fights=10, rate=1e6), "-n 1")


def test_a_sweep_over_the_cap_writes_nothing(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "ESTIMATE_ABOVE", 0)  # estimate even this small sweep
    spec = make_spec(run={"fights": 4_000, "chunk_size": 1_000})
    with pytest.raises(balance.SpecError, match="need --yes"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial", max_seconds=1e-9)
    assert not (tmp_path / "run").exists()
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial", max_seconds=None)
    assert len(table) == 9


def test_plain_progress_without_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # as if the extra were not installed
    stream = io.StringIO()
    bar = runner._Progress(True, desc="exp", n_cells=4, cells_done=0, total_fights=1000,
                           fights_done=0, stream=stream)
    assert bar.bar.plain
    bar.update(250, 1)
    time.sleep(0.01)  # a rate to tell the time left by
    bar.update(250, 1)
    last = stream.getvalue().split("\r")[-1]
    assert last.startswith("exp: 500 / 1,000 fights (50%), ")
    assert " left, cells 2/4" in last and "about " in last
    bar.close()


def test_the_duel_command_refuses_a_typo_and_says_how(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from balance.cli import main

    assert main(["duel", "crt", "--a", "novice", "--b", "novice", "-n", "10000000000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("balance: error: -n 10,000,000,000,000: 10,000,000,000,000 fights "
                          "would take about ")
    assert "fights/s on one core); runs estimated over 1 h need --yes" in err


def test_the_documented_limits_are_the_code_s() -> None:
    from balance import files, progress
    from balance.experiments import guard

    docs = (Path(__file__).resolve().parents[2] / "docs" / "experiments.md").read_text()
    text = " ".join(docs.split())
    stated = {
        "of more than 2 million fights": budget.ESTIMATE_ABOVE == 2_000_000,
        "Over an hour (`balance.budget.MAX_SECONDS`)": budget.MAX_SECONDS == 3600,
        "growing until one takes a quarter of a second": budget.PILOT_SECONDS == 0.25,
        "exits within a quarter of a second of its death": guard.WATCH_INTERVAL_S == 0.25,
        "past 120 bytes": files.NAME_BYTES == 120,
        "still running after two seconds shows its progress": progress.DELAY_S == 2,
    }
    for words, holds in stated.items():
        assert words in text, words
        assert holds, words


def test_a_dry_run_says_how_long_the_sweep_would_take(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from balance.cli import main

    from ..sweep.helpers import to_toml

    monkeypatch.setattr(budget, "ESTIMATE_ABOVE", 0)
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    path = tmp_path / "exp.toml"
    path.write_text(to_toml(make_spec()))
    assert main(["sweep", str(path), "--dry-run", "--allow-import", "--executor", "serial"]) == 0
    out = capsys.readouterr().out
    assert "; 45,000 fights would take about " in out and "fights/s on one core)" in out
    assert "it needs --yes to start; valid, nothing run" in out
    assert list(tmp_path.iterdir()) == [path]
