"""`balance sweep` and `balance plot`: results on success, one line and status 2 on bad input,
and nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from balance.cli import main

from .helpers import ROOT, make_spec


def test_sweep_prints_where_the_results_are(cli,
                                            write_spec: Any, tmp_path: Path) -> None:
    spec = write_spec(make_spec())
    out_dir = tmp_path / "run"
    status, out, err = cli("sweep", str(spec), "--out", str(out_dir),
                           "--executor", "serial", "-q")
    assert status == 0, err
    assert out.startswith("exp: 9 cells, 45,000 fights in ")
    assert f"results: {out_dir / 'results.parquet'}, {out_dir / 'results.csv'}" in out
    assert f"provenance: {out_dir / 'meta.json'}" in out
    assert "a.0.level  b.0.bias" in out  # small grids print their table
    assert err == ""
    status, out, err = cli("plot", str(out_dir))
    assert status == 0, err
    assert out.splitlines() == [str(out_dir / "plots/heatmap-a_win-b.0.bias-a.0.level.png"),
                                str(out_dir / "plots/heatmap-a_win-b.0.bias-a.0.level.svg")]
    status, out, err = cli("plot", str(out_dir), "--kind", "curves")
    assert status == 0 and "curves-a_win-b.0.bias-by-a.0.level.png" in out


def test_dry_run_writes_nothing(cli, write_spec: Any,
                                tmp_path: Path) -> None:
    spec = write_spec(make_spec())
    status, out, _ = cli("sweep", str(spec), "--out", str(tmp_path / "run"),
                         "--dry-run")
    assert status == 0
    assert "9 cells (9 distinct) over a.0.level, b.0.bias (product); 5,000 fights per cell" in out
    assert not (tmp_path / "run").exists()


BAD_SPECS = [
    (make_spec(axes=[{"field": "a.0.level", "values": [0, 1, 7]}]),
     "grid.axes[0].values[2]: coin combatant field 'level' must be in 0..5, got 7"),
    (make_spec(a=[{"preset": "lucki"}]), "a[0].preset: unknown coin preset 'lucki'"),
    (make_spec(run={"fightz": 10}), "run.fightz: unknown key 'fightz'"),
]


@pytest.mark.parametrize(("spec", "words"), BAD_SPECS, ids=["range", "preset", "key"])
def test_bad_spec_is_one_line_status_2(cli, write_spec: Any,
                                       tmp_path: Path, spec: dict, words: str) -> None:
    path = write_spec(spec)
    status, out, err = cli("sweep", str(path), "--out", str(tmp_path / "run"))
    assert status == 2
    assert out == ""
    assert err == f"balance: error: {path}: {words}" + err.split(words, 1)[1]
    assert err.count("\n") == 1
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("args", "words"), [
    (["--executor", "threads"], "argument --executor: invalid choice: 'threads'"),
    (["--workers", "0"], "argument --workers: expected a whole number >= 1"),
    (["--executor", "serial", "--scheduler", "tcp://h:1"], "needs executor 'dask'"),
])
def test_bad_options_status_2(capsys: pytest.CaptureFixture[str], write_spec: Any,
                              tmp_path: Path, args: list[str], words: str) -> None:
    path = write_spec(make_spec())
    try:
        status = main(["sweep", str(path), "--out", str(tmp_path / "run"), *args])
    except SystemExit as exit_:
        status = exit_.code  # argparse errors exit from inside the parser
    _, err = capsys.readouterr()
    assert status == 2
    assert words in err and err.startswith("balance: error: ")
    assert not (tmp_path / "run").exists()


def test_missing_file_and_existing_run(cli, write_spec: Any,
                                       tmp_path: Path) -> None:
    status, _, err = cli("sweep", str(tmp_path / "nope.toml"))
    assert status == 2 and "does not exist" in err
    path = write_spec(make_spec(run={"fights": 500}))
    out_dir = tmp_path / "run"
    assert cli("sweep", str(path), "--out", str(out_dir), "--executor", "serial",
               "-q")[0] == 0
    status, _, err = cli("sweep", str(path), "--out", str(out_dir))
    assert status == 2 and "already holds a run; pass --resume" in err
    status, out, _ = cli("sweep", str(path), "--out", str(out_dir), "--resume",
                         "-q")
    assert status == 0 and "(0 chunks computed, 9 from cache)" in out
    status, _, err = cli("plot", str(out_dir), "--x", "a.0.bias")
    assert status == 2 and "no column 'a.0.bias'" in err
    status, _, err = cli("plot", str(tmp_path))
    assert status == 2 and "is not a run directory" in err
    status, _, err = cli("plot", str(out_dir), "--value", "cell")
    assert status == 2 and "cannot plot 'cell': it is not a number; plottable columns: " in err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    status, _, err = cli("plot", str(out_dir), "--out", str(a_file))
    assert status == 2 and "is a file; give a folder for the plots" in err
    status, _, err = cli("report", str(out_dir), "--out", str(a_file))
    assert status == 2 and "is a file; give a folder for the report" in err
    assert a_file.read_text() == ""


def test_real_exit_status(write_spec: Any, tmp_path: Path) -> None:
    path = write_spec(make_spec(rules={"max_rounds": 0}))
    done = subprocess.run([sys.executable, "-m", "balance", "sweep", str(path), "--out",
                           str(tmp_path / "run"), "--allow-import"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == (f"balance: error: {path}: rules.max_rounds: coin rules field "
                           "'max_rounds' must be in 1..1000, got 0\n")
    assert not (tmp_path / "run").exists()
