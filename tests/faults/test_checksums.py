"""The results tables are checked against the checksums the run recorded, and checking
cannot be turned off: a record without its ``checksums`` is refused (with the way to write
them again), and an edited CSV is noticed beside an intact Parquet, whichever is read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import balance
from balance.cli import main

from .helpers import make_spec

SPEC = make_spec(run={"fights": 1_000, "chunk_size": 500})  # 9 cells of the coin ruleset


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return balance.sweep(SPEC, out=tmp_path_factory.mktemp("pristine") / "run",
                         executor="serial", progress=False).path


def copy(pristine: Path, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(pristine, run)
    return run


def edit_meta(run: Path, **changes: object) -> None:
    meta = json.loads((run / "meta.json").read_text())
    for key, value in changes.items():
        if value is None:
            del meta[key]
        else:
            meta[key] = value
    (run / "meta.json").write_text(json.dumps(meta))


def test_a_record_without_checksums_is_refused_and_resume_mends_it(
        pristine: Path, tmp_path: Path) -> None:
    run = copy(pristine, tmp_path)
    edit_meta(run, checksums=None)
    with pytest.raises(balance.SpecError) as refused:
        balance.load_run(run)
    message = str(refused.value)
    assert "has no 'checksums' key" in message and "\n" not in message
    assert f"--out {run} --resume` writes the tables and their checksums again" in message
    # the way out it names: every chunk is cached, the tables and checksums written again
    table, _ = balance.sweep(SPEC, out=run, executor="serial", resume=True, progress=False)
    meta = json.loads((run / "meta.json").read_text())
    assert meta["timings"]["chunks_computed"] == 0
    assert set(meta["checksums"]) == {"results.parquet", "results.csv"}
    pd.testing.assert_frame_equal(balance.load_run(run).table, table)


def test_an_edited_csv_beside_an_intact_parquet_is_noticed(
        pristine: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = copy(pristine, tmp_path)
    frame = pd.read_csv(run / "results.csv")
    frame.loc[0, "a_win"] = 0.99
    frame.to_csv(run / "results.csv", index=False, lineterminator="\n")
    with pytest.raises(balance.SpecError, match=r"results\.csv is not the table this run "
                                                r"wrote .* unlike the results\.parquet beside it"):
        balance.load_run(run)  # which reads the Parquet: the CSV is checked all the same
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    assert main(["plot", str(run)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "results.csv" in err
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before  # nothing drawn


def test_an_edited_csv_alone_is_refused_and_a_missing_twin_is_not(
        pristine: Path, tmp_path: Path) -> None:
    run = copy(pristine, tmp_path)
    (run / "results.parquet").unlink()  # a missing file holds no wrong number
    assert len(balance.load_run(run).table) == 9
    (run / "results.csv").write_text((run / "results.csv").read_text().replace("0.", "0.9", 1))
    with pytest.raises(balance.SpecError, match=r"results\.csv is not the table this run wrote"):
        balance.load_run(run)


def test_a_table_the_record_does_not_vouch_for_is_refused(pristine: Path,
                                                          tmp_path: Path) -> None:
    run = copy(pristine, tmp_path)
    meta = json.loads((run / "meta.json").read_text())
    edit_meta(run, checksums={"results.parquet": meta["checksums"]["results.parquet"]})
    with pytest.raises(balance.SpecError, match=r"records no checksum for results\.csv"):
        balance.load_run(run)
