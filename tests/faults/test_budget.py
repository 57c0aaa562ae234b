"""Unreasonable runs: the estimate before a run starts, the cap, and progress with time left
(tqdm where installed, plain lines otherwise)."""

from __future__ import annotations

import io
import sys
import time
from pathlib import Path
from typing import ClassVar

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


def test_the_cap_refuses_and_none_lifts_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "cores", lambda: 2)
    found = budget.Estimate(fights=10**12, rate=1e6, workers=2)
    assert found.seconds == 5e5
    with pytest.raises(balance.SpecError, match=r"-n 1: 1,000,000,000,000 fights would take "
                                                r"about 5.8 days .* need --yes"):
        budget.check(found, "-n 1")
    budget.check(found, "-n 1", None)
    budget.check(budget.Estimate(fights=10, rate=1e6), "-n 1")


def test_workers_beyond_the_cores_do_not_shorten_the_estimate(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "cores", lambda: 2)
    many = budget.Estimate(fights=10**9, rate=1e6, workers=256)
    assert many.seconds == budget.Estimate(fights=10**9, rate=1e6, workers=2).seconds == 500
    assert "256 workers on 2 cores" in many.describe()


def test_memory_has_a_cap_too_and_yes_lifts_it() -> None:
    big = budget.Estimate(fights=10, rate=None, memory=3 * 2**30)
    assert big.seconds == 0
    with pytest.raises(balance.SpecError) as refused:
        budget.check(big, "--chunk-size 9", max_bytes=2**30)
    assert str(refused.value) == ("--chunk-size 9: 10 fights would need about 3 GB of memory; "
                                  "runs estimated over 1 GB of memory need --yes (check the "
                                  "numbers, or pass --yes to run it)")
    budget.check(big, "--chunk-size 9", None, max_bytes=2**30)  # --yes
    budget.check(big, "--chunk-size 9", max_bytes=4 * 2**30)
    assert budget.MAX_BYTES >= 2**30


def test_the_parts_of_one_command_add_their_times_not_their_memory() -> None:
    fights = budget.Estimate(fights=3_000, rate=1.0, memory=2**20)  # 50 min, 1 MB
    boot = budget.Estimate(fights=1_200, rate=1.0, memory=2**20, unit="replicates")  # 20 min
    budget.check_all([("-n 3", fights), ("--resamples 9", None)], max_bytes=1.5 * 2**20)
    with pytest.raises(balance.SpecError, match=r"^-n 3: 3,000 fights would take about 50 min "
                       r".*; --resamples 9: 1,200 replicates would take about 20 min .*; runs "
                       r"estimated over 1 h need --yes"):
        budget.check_all([("-n 3", fights), ("--resamples 9", boot)], max_bytes=1.5 * 2**20)


def test_sizes_in_words() -> None:
    assert [budget.size(b) for b in (512, 1536, 3 * 2**30, 146 * 2**40, 2**60)] \
        == ["512 bytes", "1.5 KB", "3 GB", "146 TB", "1,048,576 TB"]


def test_one_worker_cap_everywhere() -> None:
    from balance.analysis import round_robin
    from balance.cli import main

    assert runner.MAX_WORKERS == budget.MAX_WORKERS == 256
    assert budget.check_workers(256) == 256
    for bad in (0, 257, 100_000, True, 2.0):
        with pytest.raises(balance.SpecError, match=r"workers must be a whole number 1..256"):
            budget.check_workers(bad)
    with pytest.raises(balance.SpecError, match=r"1..256"):
        round_robin("crt", ["novice", "veteran"], play="best", workers=100_000)
    with pytest.raises(SystemExit):
        main(["matchups", "crt", "--workers", "257"])


class _FakePool:
    """A ProcessPoolExecutor that records its size and runs the tasks here."""

    sizes: ClassVar[list[int]] = []

    def __init__(self, max_workers: int, **_: object) -> None:
        self.sizes.append(max_workers)

    def __enter__(self) -> _FakePool:
        return self

    def __exit__(self, *_: object) -> None:
        pass

    def submit(self, fn: object, *args: object) -> object:
        import concurrent.futures as cf

        future: cf.Future[object] = cf.Future()
        future.set_result(fn(*args))  # type: ignore[operator]
        return future


def test_best_play_starts_no_more_processes_than_pairs(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    import concurrent.futures as cf

    from balance.analysis import matchups

    monkeypatch.setattr(cf, "ProcessPoolExecutor", _FakePool)
    _FakePool.sizes.clear()
    tasks = [(i,) for i in range(4)]
    monkeypatch.setattr(matchups, "_best_pair", lambda i: {"a": i})
    assert matchups._map_pairs(tasks, 200, None) == [{"a": i} for i in range(4)]
    assert matchups._map_pairs(tasks * 100, 200, None)[-1] == {"a": 3}
    assert _FakePool.sizes == [4, 200]  # the tasks, then the workers asked for


def test_a_sweep_over_the_cap_writes_nothing(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "ESTIMATE_ABOVE", 0)  # estimate even this small sweep
    spec = make_spec(run={"fights": 4_000, "chunk_size": 1_000})
    with pytest.raises(balance.SpecError, match="need --yes"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial", max_seconds=1e-9)
    assert not (tmp_path / "run").exists()
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial", max_seconds=None)
    assert len(table) == 9


def test_a_sweep_over_the_memory_cap_writes_nothing(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_BYTES", 2**20)  # 1 MB: a 300,000-fight kernel call is more
    spec = make_spec(run={"fights": 300_000, "chunk_size": 300_000})
    with pytest.raises(balance.SpecError, match=r"^the sweep: 2,700,000 fights would take .* "
                                                r"and need about .* MB of memory; runs "
                                                r"estimated over 1 MB of memory need --yes"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert not (tmp_path / "run").exists()


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
    assert "fights per CPU second; one core); runs estimated over 1 h need --yes" in err


def test_the_documented_limits_are_the_code_s() -> None:
    from balance import files, progress
    from balance.experiments import guard

    docs = (Path(__file__).resolve().parents[2] / "docs" / "experiments.md").read_text()
    text = " ".join(docs.split())
    stated = {
        "of more than 2 million fights": budget.ESTIMATE_ABOVE == 2_000_000,
        "Over an hour (`balance.budget.MAX_SECONDS`)": budget.MAX_SECONDS == 3600,
        "growing until one takes a quarter of a second of CPU time":
            budget.PILOT_SECONDS == 0.25 and budget.cpu_clock is time.process_time,
        "A kernel call of more than 262,144 fights": budget.PROBE_ABOVE == 262_144,
        "the peak NumPy allocates for 65,536 fights": budget.PROBE_LANES == 65_536,
        "half of the machine's memory (`balance.budget.MAX_BYTES`)":
            budget._half_of_memory() == budget.MAX_BYTES,
        "`--workers` is 1..256 in every command": budget.MAX_WORKERS == 256,
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
    assert "; 45,000 fights would take about " in out and "fights per CPU second; one core)" \
        in out
    assert "it needs --yes to start; valid, nothing run" in out
    assert list(tmp_path.iterdir()) == [path]


class _Clock:
    """A clock that moves ``step`` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


@pytest.mark.parametrize("load", ["idle", "loaded"])
def test_machine_load_does_not_flip_the_decision(load: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The pilot reads this process's CPU clock, never the wall clock.

    A CPU clock that says every kernel call of the pilot costs 0.3 CPU s fixes the rate at
    4,096 / 0.3 = 13,653 fights per CPU second.  "loaded" makes every wall clock crawl (an
    hour between readings, as if the machine were busy): a pilot timed by the wall clock
    (the old one) would then see 4,096 fights an hour and refuse both runs.  The decision
    stays: 40 million fights (49 min) start, 60 million (1.2 h) need --yes.
    """
    crt = balance.rulesets.resolve("crt")
    _, rules, a, b = balance.api.matchup(crt, "novice", "novice")
    monkeypatch.setattr(budget, "cpu_clock", _Clock(0.3))
    if load == "loaded":
        for name in ("perf_counter", "monotonic", "time"):
            monkeypatch.setattr(time, name, _Clock(3600.0))
    found = [budget.estimate(crt, rules, a, b, fights=n, chunk_size=1 << 18)
             for n in (40_000_000, 60_000_000)]
    assert [f.rate for f in found if f] == pytest.approx([4096 / 0.3, 4096 / 0.3])
    budget.check(found[0], "-n 40,000,000")
    with pytest.raises(balance.SpecError, match=r"about 1.2 h .*over 1 h need --yes"):
        budget.check(found[1], "-n 60,000,000")


def test_the_bootstrap_pilot_reads_the_cpu_clock_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "cpu_clock", _Clock(0.3))
    for name in ("perf_counter", "monotonic", "time"):
        monkeypatch.setattr(time, name, _Clock(3600.0))
    found = budget.resample_estimate(2, 10**13, passes=3)  # one replicate a batch: 0.3 CPU s
    assert found.rate == pytest.approx(1 / 0.3 / 3)
    assert found.memory == 8 * 2 * 10**13
    small = budget.resample_estimate(2, 200)  # under RESAMPLES_ABOVE: not piloted
    assert small.rate is None and small.seconds == 0


def test_kernel_memory_is_traced_not_timed() -> None:
    crt = balance.rulesets.resolve("crt")
    _, rules, a, b = balance.api.matchup(crt, "novice", "veteran")
    first = budget.kernel_bytes(crt, rules, a, b)
    # allocation sizes, no clock: the same again (but for a cache or two the first call fills)
    assert budget.kernel_bytes(crt, rules, a, b) == pytest.approx(first, rel=0.01)
    assert 1 < first < 10_000  # bytes a fight: its arrays, not a copy of the world
    found = budget.estimate(crt, rules, a, b, fights=1_000_000, chunk_size=10**9)
    assert found is not None and found.rate is None  # too few fights to pilot: memory only
    assert found.memory == pytest.approx(first * 1_000_000, rel=0.01)  # one call, every fight


def test_the_memory_cap_refuses_a_huge_kernel_call(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from balance.cli import main

    monkeypatch.setattr(budget, "MAX_BYTES", 2**20)  # 1 MB
    assert main(["duel", "crt", "--a", "novice", "--b", "novice", "-n", "1000000",
                 "--chunk-size", "1000000"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("balance: error: -n 1,000,000 --chunk-size 1,000,000: 1,000,000 "
                          "fights would need about ")
    assert err.endswith(" MB of memory; runs estimated over 1 MB of memory need --yes (check "
                        "the numbers, or pass --yes to run it)\n")


def test_out_of_memory_past_the_cap_is_still_one_line(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from balance import cli

    def allocate(_: object) -> int:
        raise MemoryError("Unable to allocate 146. TiB for an array")

    monkeypatch.setitem(cli.COMMANDS, "rulesets", allocate)
    assert cli.main(["rulesets"]) == 2
    assert capsys.readouterr().err == (
        "balance: error: out of memory (Unable to allocate 146. TiB for an array): the run "
        "needs more memory than this machine has; ask for fewer fights, replicates or "
        "workers\n")


def test_an_exact_round_robin_is_not_costed_as_fights(monkeypatch: pytest.MonkeyPatch) -> None:
    from balance.analysis.matchups import planned_method

    rules = {"extraordinary": False}
    entrants = {"novice": "novice", "veteran": "veteran"}
    assert planned_method("crt", entrants, rules=rules) == "exact"
    assert planned_method("crt", entrants) == "simulate"  # the Extraordinary tables are on
    assert planned_method("crt", entrants, rules=rules, method="simulate") == "simulate"


def test_the_explorer_s_time_boxes_are_checked_before_they_start() -> None:
    pytest.importorskip("ipywidgets")
    import re

    for options, words in (({"refine_s": 1e13}, "refine_s must be a number of seconds in "
                                                "(0, 1 h], got 10000000000000.0"),
                           ({"refine_s": 0}, "refine_s"), ({"budget": float("nan")}, "budget"),
                           ({"precision": 0.0}, "precision must be a half-width")):
        with pytest.raises(balance.SpecError, match=re.escape(words)):
            balance.explore("crt", "novice", "veteran", background=False, **options)
    ex = balance.explore("crt", "novice", "veteran", background=False, budget=0.01)
    with pytest.raises(balance.SpecError, match=r"seconds must be a number of seconds"):
        ex.refine(1e9)


def test_the_explorer_s_matrix_is_costed_before_it_runs(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    pytest.importorskip("ipywidgets")
    from balance import analysis

    ex = balance.explore("crt", "novice", "veteran", background=False, budget=0.01)
    monkeypatch.setattr(budget, "ESTIMATE_ABOVE", 0)
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    ran: list[object] = []
    monkeypatch.setattr(analysis, "round_robin", lambda *a, **k: ran.append(a))
    ex.run_matrix(["novice", "veteran", "expert"], 100_000)
    assert "9 pairs of 100,000 fights: 900,000 fights would take about" in \
        ex.matrix_status.value and "need --yes" in ex.matrix_status.value
    assert ran == [] and ex.matrix_table is None


def test_a_dry_run_says_when_the_sweep_needs_too_much_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from balance.cli import main

    from ..sweep.helpers import to_toml

    monkeypatch.setattr(budget, "MAX_BYTES", 2**20)
    path = tmp_path / "exp.toml"
    path.write_text(to_toml(make_spec(run={"fights": 300_000, "chunk_size": 300_000})))
    assert main(["sweep", str(path), "--dry-run", "--allow-import", "--executor", "serial"]) == 0
    out = capsys.readouterr().out
    assert " MB of memory; it needs --yes to start; valid, nothing run" in out
    assert list(tmp_path.iterdir()) == [path]
