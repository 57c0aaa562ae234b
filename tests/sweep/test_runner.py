"""Executors give identical tables; the cache keeps every chunk; resume computes only the rest."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import balance
from balance.errors import SpecError
from balance.experiments import load_spec

from .helpers import COIN, Gate, make_spec

# Fixed-size cells (with a remainder chunk) and precision-targeted cells, so both ways of
# running a cell go through every executor.
FIXED = make_spec(run={"fights": 5_000, "chunk_size": 2_000})
PRECISE = make_spec(run={"precision": 0.03, "chunk_size": 250},
                    axes=[{"field": "b.0.bias", "values": [0.1, 0.5, 0.8]}])


@pytest.fixture(scope="module")
def serial_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pd.DataFrame]:
    root = tmp_path_factory.mktemp("serial")
    return {name: balance.sweep(spec, out=root / name, executor="serial").table
            for name, spec in (("fixed", FIXED), ("precise", PRECISE))}


def chunk_files(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("cache/*/*/*.json"))


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("which", ["fixed", "precise"])
def test_processes_match_serial(tmp_path: Path, serial_tables: dict[str, pd.DataFrame],
                                which: str, workers: int) -> None:
    spec = FIXED if which == "fixed" else PRECISE
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="processes",
                                workers=workers)
    pd.testing.assert_frame_equal(table, serial_tables[which], check_exact=True)
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["executor"], meta["workers"], meta["status"]) == ("processes", workers,
                                                                    "complete")


@pytest.mark.parametrize("which", ["fixed", "precise"])
def test_auto_runs_small_work_here_and_large_work_on_a_pool(
        tmp_path: Path, serial_tables: dict[str, pd.DataFrame], which: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from balance.experiments import runner

    spec = FIXED if which == "fixed" else PRECISE
    # the rule, not the machine's load, decides here: every sweep "small", then "large"
    monkeypatch.setattr(runner, "SMALL_WORK_S", 1e9)
    table, path = balance.sweep(spec, out=tmp_path / "small")  # the default: auto
    pd.testing.assert_frame_equal(table, serial_tables[which], check_exact=True)
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["executor"], meta["workers"]) == ("serial", 1)
    assert "no worker pool" in meta["executor_rule"]
    monkeypatch.setattr(runner, "SMALL_WORK_S", 0.0)  # every sweep is "large"
    table, path = balance.sweep(spec, out=tmp_path / "large", workers=2)
    pd.testing.assert_frame_equal(table, serial_tables[which], check_exact=True)
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["executor"], meta["workers"]) == ("processes", 2)
    assert "1 task(s) run here" in meta["executor_rule"]


def test_dask_matches_serial(tmp_path: Path, serial_tables: dict[str, pd.DataFrame]) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        for which, spec in (("fixed", FIXED), ("precise", PRECISE)):
            table, path = balance.sweep(spec, out=tmp_path / which, executor="dask",
                                        scheduler=cluster.scheduler_address)
            pd.testing.assert_frame_equal(table, serial_tables[which], check_exact=True)
            meta = json.loads((path / "meta.json").read_text())
            assert meta["scheduler"] == cluster.scheduler_address
            assert meta["workers"] == 2


def test_dask_worker_lost_mid_sweep(tmp_path: Path, serial_tables: dict[str, pd.DataFrame],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    distributed = pytest.importorskip("distributed")
    spec = make_spec(run={"fights": 4_000, "chunk_size": 1_000})  # 9 cells x 4 chunks
    expected = balance.sweep(spec, out=tmp_path / "serial", executor="serial").table
    gate = Gate(tmp_path / "gate")
    for name, value in gate.env.items():
        monkeypatch.setenv(name, value)  # inherited by the worker processes
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
        result: dict[str, Any] = {}

        def run() -> None:
            try:
                result["table"] = balance.sweep(spec, out=tmp_path / "dask", executor="dask",
                                                scheduler=cluster.scheduler_address).table
            except BaseException as exc:  # pragma: no cover - reported below
                result["error"] = exc

        thread = threading.Thread(target=run)
        thread.start()
        gate.allow(6)
        deadline = time.monotonic() + 300  # only ends a test whose sweep is stuck
        while len(chunk_files(tmp_path / "dask")) < 6:
            assert thread.is_alive(), result
            assert time.monotonic() < deadline, "the sweep made no progress"
            time.sleep(0.02)
        # both workers are held at the gate: one dies mid-sweep, its task is run elsewhere
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        done_at_kill = len(chunk_files(tmp_path / "dask"))
        gate.open()
        thread.join(300)
    assert "error" not in result, result.get("error")
    assert done_at_kill == 6
    assert len(chunk_files(tmp_path / "dask")) == 36
    pd.testing.assert_frame_equal(result["table"], expected, check_exact=True)


def test_resume_computes_only_the_missing_chunks(tmp_path: Path,
                                                 serial_tables: dict[str, pd.DataFrame]) -> None:
    out = tmp_path / "run"
    balance.sweep(FIXED, out=out, executor="serial")
    files = chunk_files(out)
    assert len(files) == 9 * 3  # 5000 fights = 2000 + 2000 + 1000
    for path in files[::4]:
        path.unlink()
    (out / "results.parquet").unlink()
    kept = {p: p.stat().st_mtime_ns for p in chunk_files(out)}
    table, _ = balance.sweep(FIXED, out=out, executor="processes", workers=2, resume=True)
    pd.testing.assert_frame_equal(table, serial_tables["fixed"], check_exact=True)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["timings"]["chunks_computed"] == len(files[::4])
    assert meta["timings"]["chunks_cached"] == len(kept)
    assert meta["resumed"] is True
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())  # untouched


def test_resume_after_growing_the_grid_reuses_cells(tmp_path: Path) -> None:
    out = tmp_path / "run"
    balance.sweep(FIXED, out=out, executor="serial")
    grown = make_spec(run={"fights": 5_000, "chunk_size": 2_000},
                      axes=[{"field": "a.0.level", "values": [0, 1, 2, 5]},
                            {"field": "b.0.bias", "values": [0.3, 0.5, 0.7]}])
    table, _ = balance.sweep(grown, out=out, executor="serial", resume=True)
    meta = json.loads((out / "meta.json").read_text())
    assert len(table) == 12
    assert meta["timings"]["chunks_cached"] == 27
    assert meta["timings"]["chunks_computed"] == 9  # the 3 new cells


def test_more_fights_reuse_the_first_chunks(tmp_path: Path) -> None:
    out = tmp_path / "run"
    balance.sweep(make_spec(run={"fights": 4_000}), out=out, executor="serial")
    table, _ = balance.sweep(make_spec(run={"fights": 6_000}), out=out, executor="serial",
                             resume=True)
    meta = json.loads((out / "meta.json").read_text())
    assert (meta["timings"]["chunks_cached"], meta["timings"]["chunks_computed"]) == (18, 9)
    fresh = balance.sweep(make_spec(run={"fights": 6_000}), out=tmp_path / "fresh",
                          executor="serial").table
    pd.testing.assert_frame_equal(table, fresh, check_exact=True)


def test_existing_run_needs_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    balance.sweep(FIXED, out=out, executor="serial")
    before = sorted(p.name for p in out.iterdir())
    with pytest.raises(SpecError, match="already holds a run; pass --resume"):
        balance.sweep(FIXED, out=out, executor="serial")
    assert sorted(p.name for p in out.iterdir()) == before


def test_foreign_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SpecError, match="not a run directory"):
        balance.sweep(FIXED, out=tmp_path, executor="serial", resume=True)


def test_resume_with_another_seed_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    balance.sweep(FIXED, out=out, executor="serial")
    with pytest.raises(SpecError, match="used seed entropy 11; the spec asks for seed 12"):
        balance.sweep(make_spec(run={"seed": 12}), out=out, executor="serial", resume=True)


def test_fresh_entropy_is_recorded_and_reused(tmp_path: Path) -> None:
    spec = make_spec()
    del spec["run"]["seed"]
    out = tmp_path / "run"
    first, _ = balance.sweep(spec, out=out, executor="serial")
    entropy = json.loads((out / "meta.json").read_text())["entropy"]
    assert entropy > 2**64
    for path in chunk_files(out)[:5]:
        path.unlink()
    again, _ = balance.sweep(spec, out=out, executor="serial", resume=True)
    pd.testing.assert_frame_equal(first, again, check_exact=True)


@pytest.mark.parametrize(("kwargs", "words"), [
    ({"executor": "threads"}, "unknown executor 'threads'; executors: auto, serial, processes, dask"),
    ({"executor": "serial", "scheduler": "tcp://x:1"}, "needs executor 'dask'"),
    ({"executor": "processes", "workers": 0}, "workers must be a whole number 1..256"),
])
def test_bad_executor_options_write_nothing(tmp_path: Path, kwargs: dict, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        balance.sweep(FIXED, out=tmp_path / "run", **kwargs)
    assert not (tmp_path / "run").exists()


def test_unreachable_scheduler_writes_nothing(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    from balance.experiments import runner

    monkeypatch.setattr(runner, "SCHEDULER_TIMEOUT_S", 1.0)
    with pytest.raises(SpecError, match="cannot reach the dask scheduler"):
        balance.sweep(FIXED, out=tmp_path / "run", executor="dask",
                      scheduler="tcp://127.0.0.1:9")
    assert not (tmp_path / "run").exists()


def test_failed_chunk_is_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.sweep import coin

    calls = {"n": 0}
    real = coin.Coin.simulate

    def flaky(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("kernel bug")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(coin.Coin, "simulate", flaky)
    out = tmp_path / "run"
    with pytest.raises(RuntimeError, match="kernel bug"):
        balance.sweep(FIXED, out=out, executor="serial")
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "failed" and "kernel bug" in meta["error"]
    assert len(chunk_files(out)) == 4  # every chunk before the failure is kept
    monkeypatch.setattr(coin.Coin, "simulate", real)
    balance.sweep(FIXED, out=out, executor="serial", resume=True)
    assert json.loads((out / "meta.json").read_text())["timings"]["chunks_cached"] == 4


def test_spec_object_and_path_agree(tmp_path: Path, write_spec: Any,
                                    serial_tables: dict[str, pd.DataFrame]) -> None:
    path = write_spec(FIXED)
    table, run_dir = balance.sweep(load_spec(path), out=tmp_path / "run", executor="serial")
    pd.testing.assert_frame_equal(table, serial_tables["fixed"], check_exact=True)
    assert (run_dir / "experiment.toml").read_text() == path.read_text()


def test_dask_local_cluster_started_for_the_run(tmp_path: Path,
                                                serial_tables: dict[str, pd.DataFrame]) -> None:
    pytest.importorskip("distributed")
    table, path = balance.sweep(FIXED, out=tmp_path / "run", executor="dask", workers=2)
    pd.testing.assert_frame_equal(table, serial_tables["fixed"], check_exact=True)
    meta = json.loads((path / "meta.json").read_text())
    assert meta["workers"] == 2 and meta["scheduler"].startswith("tcp://127.0.0.1:")


def test_progress_bar(tmp_path: Path) -> None:
    import io

    stream = io.StringIO()
    balance.sweep(FIXED, out=tmp_path / "run", executor="serial", progress=True, stream=stream)
    text = stream.getvalue()
    assert "45.0k/45.0k" in text and "fight/s" in text and "cells 9/9" in text
    quiet = io.StringIO()
    balance.sweep(FIXED, out=tmp_path / "quiet", executor="serial", stream=quiet)
    assert quiet.getvalue() == ""  # not a terminal: no bar


def test_a_sweep_into_a_log_writes_heartbeat_lines(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from balance import progress

    monkeypatch.setattr(progress, "HEARTBEAT_S", 0.0)  # every update is a heartbeat
    log = io.StringIO()
    balance.sweep(FIXED, out=tmp_path / "run", executor="serial", stream=log)
    lines = log.getvalue().splitlines()
    assert lines and "\r" not in log.getvalue()
    assert lines[-1].endswith("cells 9/9, done") and "45,000 / 45,000 fights (100%)" in lines[-1]
    quiet = io.StringIO()
    balance.sweep(FIXED, out=tmp_path / "quiet", executor="serial", stream=quiet,
                  progress=False)
    assert quiet.getvalue() == ""


def test_an_edit_to_the_code_recomputes_the_cached_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The cache is keyed by the hash of the code as well as the versions: a kernel edited
    # without a new version number must not be answered from chunks the old code made.
    from balance.experiments import store

    out = tmp_path / "run"
    first = balance.sweep(FIXED, out=out, executor="serial").table
    meta = json.loads((out / "meta.json").read_text())
    assert meta["versions"]["code"] == store.code_hash(balance.get(COIN))
    monkeypatch.setattr(store, "code_hash", lambda ruleset: "an edited kernel")
    again = balance.sweep(FIXED, out=out, executor="serial", resume=True).table
    meta = json.loads((out / "meta.json").read_text())
    assert meta["timings"]["chunks_cached"] == 0
    assert meta["timings"]["chunks_computed"] == len(chunk_files(out)) // 2
    pd.testing.assert_frame_equal(first, again, check_exact=True)  # the same code, really
