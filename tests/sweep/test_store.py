"""The run directory: Parquet, CSV and meta.json round-trip; every write is atomic."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import balance
from balance import files
from balance.experiments import load_spec, store
from balance.results import Tally

from .helpers import make_spec

SPEC = make_spec(rules={"target": 2}, run={"fights": 3_000, "chunk_size": 1_000},
                 axes=[{"field": "a.0.preset", "values": ["fair", "pro"]},
                       {"field": "rules.handicap", "values": [[0.0, 0.0], [0.1, -0.1]]},
                       {"field": "b.0.call", "values": ["heads", "tails"]}])


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> balance.Run:
    return balance.sweep(SPEC, out=tmp_path_factory.mktemp("run") / "r", executor="serial")


def test_parquet_round_trip(run: balance.Run) -> None:
    loaded = balance.load_run(run.path)
    pd.testing.assert_frame_equal(loaded.table, run.table, check_exact=True)
    assert loaded.path == run.path
    assert loaded.table.attrs["axes"] == ["a.0.preset", "rules.handicap", "b.0.call"]


def test_csv_round_trip(run: balance.Run) -> None:
    csv = pd.read_csv(run.path / "results.csv")
    pd.testing.assert_frame_equal(csv, run.table, check_exact=True, check_dtype=False)


def test_table_is_tidy(run: balance.Run) -> None:
    table = run.table
    assert len(table) == 8
    assert list(table.columns[:4]) == ["a.0.preset", "rules.handicap", "b.0.call", "n"]
    assert set(table["rules.handicap"]) == {"[0.0,0.0]", "[0.1,-0.1]"}  # lists as JSON text
    for rate in ("a_win", "b_win", "draw"):
        assert ((table[f"{rate}_low"] <= table[rate]) & (table[rate] <= table[f"{rate}_high"])).all()
    assert (table["a_wins"] + table["b_wins"] + table["draws"] == table["n"]).all()
    assert np.allclose(table["a_win"] + table["b_win"] + table["draw"], 1.0)
    assert {"mean_rounds", "rounds_q10", "rounds_q50", "rounds_q90", "end_decided",
            "end_max_rounds", "mean_margin", "cell"} <= set(table.columns)


def test_meta_round_trip(run: balance.Run) -> None:
    meta = run.meta
    assert meta["format"] == "balance-run/1" and meta["status"] == "complete"
    assert load_spec(meta["spec"]) == load_spec(SPEC)
    assert (meta["seed"], meta["entropy"], meta["chunk_size"]) == (11, 11, 1_000)
    assert set(meta["versions"]) == {"balance", "numpy", "scipy", "pandas", "python", "code"}
    assert (meta["executor"], meta["workers"], meta["cells"], meta["fights"]) == (
        "serial", 1, 8, 24_000)
    assert meta["axes"] == ["a.0.preset", "rules.handicap", "b.0.call"]
    assert {"started", "finished", "elapsed_s", "chunks_computed", "chunks_cached",
            "worker_s", "fights_per_s"} <= set(meta["timings"])
    assert any(a.startswith("max_rounds=") for a in meta["assumptions"])
    assert meta["outputs"] == ["results.parquet", "results.csv", "winners.npz"]


def test_no_temporary_files_left(run: balance.Run) -> None:
    assert not [p for p in run.path.rglob("*") if p.name.endswith(".tmp")]


def test_csv_only_run_loads(tmp_path: Path) -> None:
    spec = make_spec(outputs={"tables": ["csv"]})
    table, path = balance.sweep(spec, out=tmp_path / "r", executor="serial")
    assert not (path / "results.parquet").exists()
    loaded = balance.load_run(path).table
    pd.testing.assert_frame_equal(loaded, table, check_exact=True, check_dtype=False)


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "meta.json"
    files.atomic_write(target, "old")

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        files.atomic_write(target, "new")
    assert target.read_text() == "old"
    assert list(tmp_path.iterdir()) == [target]


def test_cache_ignores_damaged_and_mismatched_chunks(tmp_path: Path) -> None:
    cache = store.ChunkCache(tmp_path, "tag")
    tally = Tally(("decided", "timeout"), np.array([[0, 1], [3, 0], [4, 0]]), np.array([0, 8]))
    cache.save("k", 0, 8, tally)
    cache.save("k", 1, 8, tally)
    assert set(cache.load("k")) == {(0, 8), (1, 8)}
    (tmp_path / "cache/tag/k/000001-8.json").write_text("{not json")
    (tmp_path / "cache/tag/k/000002-9.json").write_text(
        json.dumps({"cell": "k", "index": 2, "size": 9, "tally": tally.to_dict()}))  # 8 != 9
    loaded = cache.load("k")
    assert list(loaded) == [(0, 8)]
    assert loaded[0, 8] == tally


def test_a_batch_of_chunks_is_one_file_and_reads_back_chunk_by_chunk(tmp_path: Path) -> None:
    cache = store.ChunkCache(tmp_path, "tag")
    tally = Tally(("decided", "timeout"), np.array([[0, 1], [3, 0], [4, 0]]), np.array([0, 8]))
    winners = np.array([0, 1, 2, 1, 1, 2, 2, 1], np.uint8)
    assert cache.load("k") == {}  # the folder read (empty) before the batch is written
    cache.save_batch([("k", 0, 8, tally, winners), ("j", 0, 8, tally, None)])
    assert cache.load("k") == {(0, 8): tally}  # the same cache knows what it wrote
    assert cache.winners("k", 0, 8).tolist() == winners.tolist()
    cache.save("k", 1, 8, tally)  # a chunk file beside the batch: both are read
    assert len(list(cache.root.glob(store.ChunkCache.BATCHES))) == 1
    fresh = store.ChunkCache(tmp_path, "tag")
    assert fresh.load("k") == {(0, 8): tally, (1, 8): tally}
    assert fresh.load("j") == {(0, 8): tally}
    assert fresh.winners("k", 0, 8).tolist() == winners.tolist()
    assert fresh.winners("j", 0, 8) is None and fresh.count() == 3 and not fresh.rejected


@pytest.mark.parametrize("damage", ["edited", "truncated", "other cache", "wrong size"])
def test_a_damaged_batch_file_is_rejected_whole(tmp_path: Path, damage: str) -> None:
    cache = store.ChunkCache(tmp_path, "tag")
    tally = Tally(("decided", "timeout"), np.array([[0, 1], [3, 0], [4, 0]]), np.array([0, 8]))
    cache.save_batch([("k", 0, 8, tally, None), ("j", 0, 8, tally, None)])
    path = next(cache.root.glob(store.ChunkCache.BATCHES))
    body = json.loads(path.read_text())
    if damage == "edited":  # a count changed, the checksum kept
        body["chunks"][1]["tally"]["counts"][0][0] = 5
        path.write_text(json.dumps(body))
    elif damage == "truncated":
        path.write_text(path.read_text()[:-20])
    else:  # resealed, so only the content's own claims can tell
        if damage == "other cache":
            body["tag"] = "other"
        else:
            body["chunks"][1]["size"] = 9
        del body["checksum"]
        body["checksum"] = store.checksum(body)
        path.write_text(json.dumps(body))
    fresh = store.ChunkCache(tmp_path, "tag")
    assert fresh.load("k") == {} and fresh.load("j") == {}
    assert fresh.rejected == [path]


def test_load_run_of_a_non_run(tmp_path: Path) -> None:
    with pytest.raises(balance.SpecError, match="is not a run directory"):
        balance.load_run(tmp_path)


def _ruleset_package(root: Path, name: str) -> Path:
    package = root / name
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("class Rules:\n    pass\n\n\nRULESET = Rules()\n")
    (package / "kernel.py").write_text("STEP = 1\n")
    (package / "presets.toml").write_text("[hero]\nskill = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "fast.py").write_text("FAST = 1\n")
    (package / ".#kernel.py").symlink_to("user@host.4242:1")  # an editor's lock: dangling
    return package


def _hash_in_a_new_process(root: Path, name: str) -> str:
    code = (f"import sys; sys.path.insert(0, {str(root)!r}); import importlib; "
            "from balance.experiments.store import code_hash; "
            f"print(code_hash(importlib.import_module({name + '.rules'!r}).RULESET))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_code_hash_follows_the_ruleset_source(tmp_path: Path) -> None:
    package = _ruleset_package(tmp_path, "myrules")
    first = _hash_in_a_new_process(tmp_path, "myrules")
    assert _hash_in_a_new_process(tmp_path, "myrules") == first  # the same in every process
    assert first != store.code_hash(balance.get("crt")) == store.code_hash(balance.get("pool"))
    for name, text in (("kernel.py", "STEP = 2\n"), ("presets.toml", "[hero]\nskill = 2\n"),
                       ("sub/fast.py", "FAST = 2\n")):  # the package's modules, data, subpackages
        (package / name).write_text(text)
        edited = _hash_in_a_new_process(tmp_path, "myrules")
        assert edited != first, name
        first = edited
    (tmp_path / "notes.py").write_text("x = 2\n")  # outside the package: not its code
    assert _hash_in_a_new_process(tmp_path, "myrules") == first


def test_code_edited_while_a_process_runs_shares_no_cache(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    import importlib

    package = _ruleset_package(tmp_path, "liverules")
    monkeypatch.syspath_prepend(str(tmp_path))
    ruleset = importlib.import_module("liverules.rules").RULESET
    first = store.code_hash(ruleset)
    assert store.code_hash(ruleset) == first
    # the module in memory may be the old code or, reloaded, the new: neither can be told
    # from the files, so each run gets a tag of its own
    (package / "kernel.py").write_text("STEP = 2\n")
    edited = store.code_hash(ruleset)
    assert edited.startswith("edited-") and store.code_hash(ruleset) not in (edited, first)
    # a ruleset no file holds (a class defined in a notebook cell) is never shared either
    cell = type("Rules", (), {"__module__": "__a_notebook_cell__"})()
    assert store.code_hash(cell).startswith("unfiled-")
    assert store.code_hash(cell) != store.code_hash(cell)


def test_unpack_reads_each_byte_as_four_codes_low_bits_first() -> None:
    # unpack by a table lookup: the codes the shifts and masks give, for every byte value
    from balance.experiments.store import unpack

    good = np.array([b for b in range(256) if all((b >> s) & 3 < 3 for s in (0, 2, 4, 6))],
                    np.uint8)
    codes = unpack(good.tobytes(), 4 * len(good))
    assert codes.dtype == np.uint8
    assert np.array_equal(codes.reshape(-1, 4),
                          np.stack([(good >> s) & 3 for s in (0, 2, 4, 6)], axis=1))
    assert np.array_equal(unpack(good[:2].tobytes(), 7), codes[:7])
    with pytest.raises(ValueError, match="a winner code above 2"):
        unpack(bytes([0b11000000]), 4)


def test_a_tallys_record_keeps_its_rounds_to_the_last_fight() -> None:
    for rounds in ([0], [0, 0, 0], [0, 3, 0, 0], [1], [0, 0, 2], [5, 0, 1, 0]):
        tally = Tally(("down",), np.zeros((3, 1), np.int64), np.array(rounds, np.int64))
        assert tally.to_dict()["rounds"] == np.trim_zeros(np.array(rounds), "b").tolist()


@pytest.mark.parametrize("damage", ["edited", "truncated", "resealed", "removed"])
def test_winners_read_back_by_the_cache_that_wrote_them_are_the_files(tmp_path: Path,
                                                                      damage: str) -> None:
    # A run's cache reads its own batch files back for the winners file without checking
    # them twice, where their bytes are what it wrote; a file changed since is checked (and
    # refused) as any other reader's would be.
    cache = store.ChunkCache(tmp_path, "tag")
    tally = Tally(("decided", "timeout"), np.array([[0, 1], [3, 0], [4, 0]]), np.array([0, 8]))
    winners = np.array([0, 1, 2, 1, 1, 2, 2, 1], np.uint8)
    cache.load("k")
    cache.save_batch([("k", 0, 8, tally, winners), ("j", 0, 8, tally, winners[::-1])])
    path = next(cache.root.glob(store.ChunkCache.BATCHES))
    assert cache.winners("j", 0, 8).tolist() == winners[::-1].tolist()
    cache._opened = None  # as after reading another file
    body = json.loads(path.read_text())
    body["chunks"][0]["winners"] = base64.b64encode(store.pack(winners[::-1])).decode()
    if damage == "edited":  # the checksum kept
        path.write_text(json.dumps(body, separators=(",", ":")))
    elif damage == "truncated":
        path.write_text(path.read_text()[:-20])
    elif damage == "resealed":  # a sound file, other winners: read as they are now
        del body["checksum"]
        body["checksum"] = store.checksum(body)
        path.write_text(json.dumps(body, separators=(",", ":")))
    else:
        path.unlink()
    found = cache.winners("k", 0, 8)
    if damage == "resealed":
        assert found.tolist() == winners[::-1].tolist()
    else:
        assert found is None
