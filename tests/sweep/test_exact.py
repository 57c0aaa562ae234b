"""Exact sweeps (`[run] method = "exact"`): each cell solved by the ruleset's exact solver,
on every executor, cached per cell, resumable; rejected cells are reported before any work."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import balance
from balance import analysis
from balance.cli import main
from balance.errors import SpecError
from balance.experiments import expand, load_spec
from balance.report import render

from .helpers import make_spec

CRT = {
    "ruleset": "crt",
    "description": "crt plain duels, exact",
    "question": "How much is a skill level worth in the plain duel?",
    "rules": {"extraordinary": False},
    "a": [{"name": "challenger"}],
    "b": [{"preset": "veteran"}],
    "grid": {"axes": [{"field": "a.0.skill", "values": [0, 2, 4]},
                      {"field": "a.0.combats", "values": [0, 10]}]},
    "run": {"method": "exact"},
    "outputs": {"plots": [{"kind": "curves", "x": "a.0.combats", "by": "a.0.skill"}]},
}
POOL = {
    "ruleset": "pool",
    "description": "pool: Co-ordination against Fortitude, exact (small)",
    "rules": {"max_rounds": 6},
    "a": [{"preset": "average"}],
    "b": [{"preset": "average"}],
    "grid": {"axes": [{"field": "a.0.coordination", "values": [3, 4, 6]},
                      {"field": "b.0.fortitude", "values": [4]}]},
    "run": {"method": "exact"},
}
COIN = make_spec(run={}, axes=[{"field": "a.0.level", "values": [0, 2, 5]},
                               {"field": "b.0.bias", "values": [0.3, 0.5]}])
COIN["run"] = {"method": "exact"}
TIMING = ["solve_ms"]  # the one column that depends on the machine's load


def rows_of(table: pd.DataFrame) -> pd.DataFrame:
    return table.drop(columns=TIMING)


@pytest.fixture(scope="module")
def pool_serial(tmp_path_factory: pytest.TempPathFactory) -> balance.Run:
    return balance.sweep(POOL, out=tmp_path_factory.mktemp("pool") / "run", executor="serial")


def test_crt_plain_duels_are_the_exact_answers(tmp_path: Path) -> None:
    table, path = balance.sweep(CRT, out=tmp_path / "run", executor="serial")
    assert len(table) == 6
    for cell, row in zip(expand(load_spec(CRT)), table.itertuples(index=False), strict=True):
        p = balance.get("crt").exact(cell.rules, cell.side_a, cell.side_b)
        assert (row.a_win, row.b_win, row.draw) == (p.a_win, p.b_win, p.draw)
        assert row.mean_rounds == p.mean_rounds
        assert row.states == p.details["states"]
        assert row.advantage == p.details["advantage"]
    for rate in ("a_win", "b_win", "draw"):  # an exact answer has no sampling interval
        assert (table[f"{rate}_low"] == table[rate]).all()
        assert (table[f"{rate}_high"] == table[rate]).all()
    assert (table["n"] == 0).all() and (table["method"] == "exact").all()
    assert (table["solve_ms"] >= 0).all()
    assert "rounds_q50" not in table.columns
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["method"], meta["status"], meta["fights"]) == ("exact", "complete", 0)
    assert meta["timings"]["cells_solved"] == 6 and meta["timings"]["cells_cached"] == 0
    assert len(list(path.glob("cache/*/*/exact.json"))) == 6
    assert (path / "plots" / "curves-a_win-a.0.combats-by-a.0.skill.png").is_file()
    again = balance.load_run(path).table  # Parquet round trip
    pd.testing.assert_frame_equal(again, table, check_exact=True)


def test_small_pool_grid(pool_serial: balance.Run) -> None:
    table = pool_serial.table
    assert list(table["a.0.coordination"]) == [3, 4, 6]
    cell = expand(load_spec(POOL))[1]
    p = balance.get("pool").exact(cell.rules, cell.side_a, cell.side_b)
    row = table.iloc[1]
    assert (row.a_win, row.b_win, row.draw) == (p.a_win, p.b_win, p.draw)
    assert row.game_value == p.details["game_value"]
    assert row.states == p.details["states"] and row.bid_protocol == "sealed"
    # the game value is A's win chance plus half the draws (draw_worth 0.5)
    assert np.allclose(table["game_value"], table["a_win"] + 0.5 * table["draw"], atol=1e-9)
    assert table["a_win"].is_monotonic_increasing  # more Co-ordination, better for A
    assert "solve_s" not in table.columns and "total_s" not in table.columns


@pytest.mark.parametrize("workers", [1, 2])
def test_processes_match_serial(tmp_path: Path, pool_serial: balance.Run, workers: int) -> None:
    table, path = balance.sweep(POOL, out=tmp_path / "run", executor="processes",
                                workers=workers)
    pd.testing.assert_frame_equal(rows_of(table), rows_of(pool_serial.table), check_exact=True)
    assert json.loads((path / "meta.json").read_text())["workers"] == workers


def test_dask_matches_serial(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    serial = balance.sweep(COIN, out=tmp_path / "serial", executor="serial").table
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        table, _ = balance.sweep(COIN, out=tmp_path / "dask", executor="dask",
                                 scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(rows_of(table), rows_of(serial), check_exact=True)


def test_resume_solves_only_what_is_missing(tmp_path: Path) -> None:
    first, path = balance.sweep(COIN, out=tmp_path / "run", executor="serial")
    answers = sorted(path.glob("cache/*/*/exact.json"))
    assert len(answers) == 6
    for lost in answers[::2]:  # as if the run had been killed before these finished
        lost.unlink()
    (path / "meta.json").write_text(json.dumps({**json.loads((path / "meta.json").read_text()),
                                                "status": "interrupted"}))
    with pytest.raises(SpecError, match="already holds a run; pass --resume"):
        balance.sweep(COIN, out=path, executor="serial")
    table, _ = balance.sweep(COIN, out=path, executor="processes", workers=2, resume=True)
    pd.testing.assert_frame_equal(rows_of(table), rows_of(first), check_exact=True)
    timings = json.loads((path / "meta.json").read_text())["timings"]
    assert (timings["cells_solved"], timings["cells_cached"]) == (3, 3)
    table, _ = balance.sweep(COIN, out=path, executor="serial", resume=True)
    timings = json.loads((path / "meta.json").read_text())["timings"]
    assert (timings["cells_solved"], timings["cells_cached"]) == (0, 6)
    pd.testing.assert_frame_equal(table, balance.load_run(path).table, check_exact=True)


def test_a_simulated_run_is_not_resumed_as_exact(tmp_path: Path) -> None:
    simulated = make_spec(run={"fights": 500, "chunk_size": 500})
    balance.sweep(simulated, out=tmp_path / "run", executor="serial")
    exact = {**simulated, "run": {"method": "exact"}}
    with pytest.raises(SpecError, match="used method 'simulate'"):
        balance.sweep(exact, out=tmp_path / "run", executor="serial", resume=True)


# --- rejected configurations: reported before any work, naming the cell -------------------------


def test_solver_rejects_the_rules(tmp_path: Path) -> None:
    spec = {**CRT, "rules": {}}  # the Extraordinary tables are on by default
    with pytest.raises(SpecError) as err:
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    message = str(err.value)
    assert message.startswith("grid: cell a.0.skill=0, a.0.combats=0: crt has no exact "
                              "solution here: the Extraordinary tables are on"), message
    assert 'method = "simulate"' in message
    assert not (tmp_path / "run").exists()


def test_solver_rejects_one_cell(tmp_path: Path) -> None:
    spec = {**CRT, "rules": {}, "grid": {"axes": [
        {"field": "a.0.skill", "values": [0, 2]},
        {"field": "rules.extraordinary", "values": [False, True]}]}, "outputs": {}}
    with pytest.raises(SpecError, match=r"^grid: cell a\.0\.skill=0, rules\.extraordinary="
                                        r"True: crt has no exact solution"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert not (tmp_path / "run").exists()


def test_pool_state_limit_is_checked_before_solving(tmp_path: Path, write_spec: Any) -> None:
    spec = {**POOL, "a": [{"preset": "average", "wound_points": 999, "weapon": "unarmed",
                           "coordination": 3}],
            "b": [{"preset": "average", "wound_points": 999, "weapon": "unarmed",
                   "coordination": 3}],
            "grid": {"axes": [{"field": "a.0.intellect", "values": [4, 10]}]}}
    path = write_spec(spec)
    with pytest.raises(SpecError, match=r"exp\.toml: grid: cell a\.0\.intellect=4: pool has no "
                                        r"exact solution here: .* exceed the solver's limit"):
        balance.sweep(path, out=tmp_path / "run", executor="serial")
    assert not (tmp_path / "run").exists()


def test_without_a_check_the_first_cell_is_tried_first(tmp_path: Path) -> None:
    # The coin ruleset has no exact_check: the runner solves the first cell to validate.
    spec = {**COIN, "grid": {"axes": [{"field": "rules.target", "values": [2, 1]}]}}
    with pytest.raises(SpecError, match=r"^grid: cell rules\.target=2: coin has no exact "
                                        "solution here: only target = 1 is solved"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert not (tmp_path / "run").exists()


def test_a_cell_rejected_mid_run_is_named_and_the_rest_kept(tmp_path: Path) -> None:
    spec = {**COIN, "grid": {"axes": [{"field": "rules.target", "values": [1, 2]}]}}
    with pytest.raises(SpecError, match=r"^grid: cell rules\.target=2: coin has no exact"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    meta = json.loads((tmp_path / "run" / "meta.json").read_text())
    assert meta["status"] == "failed" and "rules.target=2" in meta["error"]
    assert len(list((tmp_path / "run").glob("cache/*/*/exact.json"))) == 1
    # a retry is told the run failed, and --resume with the cell mended reuses the rest
    with pytest.raises(SpecError, match=r"already holds a run that failed after its work "
                                        r"began .* pass --resume"):
        balance.sweep(spec, out=tmp_path / "run", executor="serial")
    mended = {**spec, "grid": {"axes": [{"field": "rules.target", "values": [1]}]}}
    balance.sweep(mended, out=tmp_path / "run", executor="serial", resume=True)
    timings = json.loads((tmp_path / "run" / "meta.json").read_text())["timings"]
    assert (timings["cells_solved"], timings["cells_cached"]) == (0, 1)


BAD = [
    ({"fights": 1000}, "run.fights", "an exact run solves every cell instead of sampling it"),
    ({"precision": 0.01}, "run.precision", "'precision' does not apply"),
    ({"chunk_size": 100}, "run.chunk_size", "set method = \"simulate\""),
    ({"method": "exactly"}, "run.method", "must be one of simulate, exact"),
]


@pytest.mark.parametrize(("run", "place", "words"), BAD, ids=[b[1] for b in BAD])
def test_bad_run_tables(run: dict[str, Any], place: str, words: str) -> None:
    spec = {**COIN, "run": {"method": "exact", **run}}
    with pytest.raises(SpecError) as err:
        load_spec(spec)
    assert str(err.value).startswith(f"{place}: ") and words in str(err.value), str(err.value)


def test_exact_plots_draw_what_an_exact_run_has() -> None:
    spec = {**COIN, "outputs": {"plots": [{"kind": "heatmap", "x": "b.0.bias",
                                           "y": "a.0.level", "value": "rounds_q50"}]}}
    with pytest.raises(SpecError, match=r"^outputs\.plots\[0\]\.value: an exact run has no "
                                        "rounds_q50"):
        load_spec(spec)


def test_spec_round_trip() -> None:
    spec = load_spec(CRT)
    assert spec.method == "exact" and spec.fights is None and spec.cap == 0
    assert spec.to_dict()["run"] == {"method": "exact"}
    assert load_spec(spec.to_dict()) == spec
    assert load_spec(make_spec()).method == "simulate"


# --- the command line, reports, plots, analyses ------------------------------------------------


def test_cli(capsys: pytest.CaptureFixture[str], write_spec: Any, tmp_path: Path) -> None:
    path = write_spec(CRT)
    assert main(["sweep", str(path), "--dry-run"]) == 0
    assert "6 cells (6 distinct) over a.0.skill, a.0.combats (product); each cell solved " \
           "exactly; valid, nothing run" in capsys.readouterr().out
    assert main(["sweep", str(path), "--out", str(tmp_path / "run"), "--executor", "serial",
                 "-q"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("exp: 6 cells solved exactly in ")
    assert "(6 solved, 0 from cache)" in out and "solve_ms" in out
    bad = write_spec({**CRT, "rules": {}}, name="bad.toml")
    assert main(["sweep", str(bad), "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Extraordinary tables are on" in err
    assert main(["sweep", str(bad), "--dry-run"]) == 2  # the check needs no solving
    assert "Extraordinary tables are on" in capsys.readouterr().err


def test_report_says_exact(tmp_path: Path) -> None:
    _, path = balance.sweep(CRT, out=tmp_path / "run", executor="serial")
    md = render(path, tmp_path / "report")["markdown"].read_text()
    assert "95% Wilson" not in md and "interval band" not in md
    for text in ("crt · 6 cells · exact", "each solved exactly by the crt solver",
                 "Every cell; exact rates", "Marginal value", "exact (each cell by"):
        assert text in md, text


def test_exact_round_robin_report(tmp_path: Path) -> None:
    spec = {**CRT, "a": [{"preset": "novice"}], "b": [{"preset": "novice"}],
            "grid": {"axes": [{"field": "a.0.preset", "values": ["novice", "expert", "master"]},
                              {"field": "b.0.preset", "values": ["novice", "expert", "master"]}]},
            "outputs": {"plots": []}}
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    md = render(path, tmp_path / "report")["markdown"].read_text()
    assert "Metagame equilibrium" in md and "(exact, no resampling)" in md
    assert "Bradley-Terry fitted to the exact score matrix" in md
    assert "optimal strategy the solver" not in md  # crt's exact answers are no game's
    rr = table.rename(columns={"a.0.preset": "a", "b.0.preset": "b"})
    weights = analysis.metagame(rr)
    assert (weights["weight_low"] == weights["weight"]).all()
    assert weights["weight"].idxmax() == "master"


def test_marginal_value_of_an_exact_table() -> None:
    table = pd.DataFrame({"x": [1, 2, 4], "n": 0, "a_win": [0.1, 0.3, 0.4]})
    mv = analysis.marginal_value(table, "x")
    assert np.allclose(mv["per_point"], [0.2, 0.05])
    assert (mv["per_point_low"] == mv["per_point"]).all()
    assert (mv["per_point_high"] == mv["per_point"]).all()
    assert (mv["slope_se"] == 0).all()
    slope = np.polyfit([1, 2, 4], [0.1, 0.3, 0.4], 1)[0]
    assert np.allclose(mv["slope"], slope)


def test_curves_of_an_exact_table_have_no_band(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.collections import PolyCollection

    from balance import plots

    table, _ = balance.sweep(CRT, out=tmp_path / "run", executor="serial")
    ax = plots.curves(table, x="a.0.combats", y="a_win", by="a.0.skill")
    assert not [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert ax.get_ylabel() == "A wins (exact)"
    assert ax.get_title().endswith("(exact)")


def test_a_solver_detail_never_shadows_a_count_column():
    from balance.experiments import exact as sweep_exact

    duelist = balance.get("crt").presets["duelist"]

    class _Cell:
        key, params = "k", {"a.0.x": 1}
        rules, side_a, side_b = balance.get("crt").rules(), (duelist,), (duelist,)

    record = {"a_win": 0.5, "b_win": 0.5, "draw": 0.0, "mean_rounds": 3.0, "wall_s": 0.001,
              "details": {"draws": "stalemate 0.000000", "states": 12, "cell": "x"}}
    (row,) = sweep_exact.rows([_Cell()], {"k": record}, balance.get("crt"))
    assert "draws" not in row and row["detail_draws"] == "stalemate 0.000000"
    assert row["states"] == 12 and row["detail_cell"] == "x" and row["cell"] == "k"
