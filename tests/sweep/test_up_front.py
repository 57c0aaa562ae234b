"""A run that would fail at its end fails in its first second, writing nothing.

Each kind of late failure found so far -- at the end of the work, in the verdict printed
after it, or in ``balance report`` on the run -- is built here and must be refused before
any fight: one line, exit status 2, no run folder (so a retry is not blocked), under
``--dry-run`` and a real run alike (or ``validate`` and ``sweep`` for a spec only the
Python API can make).  The kinds fixed at their cause are run to the end instead, report
included.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

import balance
from balance.errors import SpecError
from balance.experiments import readback
from balance.experiments.grid import expand
from balance.experiments.runner import validate
from balance.experiments.spec import PlotSpec, load_spec
from balance.fields import Table
from balance.labels import display
from balance.report import render
from balance.rulesets import resolve

from .helpers import make_spec

PRESETS_ROUND_ROBIN = """\
description = "an experiment's own presets in a round robin"
ruleset = "crt"
[presets.pickman]
preset = "veteran"
skill = 2
[[a]]
preset = "novice"
[[b]]
preset = "novice"
[[grid.axes]]
field = "a.0.preset"
values = ["pickman", "novice"]
[[grid.axes]]
field = "b.0.preset"
values = ["pickman", "novice"]
[run]
fights = 400
seed = 5
"""

BEST_EXACT_EXTRAORDINARY = """\
description = "exact best play with the Extraordinary tables on"
ruleset = "crt"
[rules]
extraordinary = true
[[a]]
preset = "veteran"
[[b]]
preset = "novice"
[[grid.axes]]
field = "a.0.skill"
values = [0, 1]
[run]
method = "exact"
play = "best"
"""


def refused_up_front(cli, spec: Path, out: Path, words: str) -> None:
    """``--dry-run`` and a real run both refuse ``spec`` in one line naming ``words``,
    exit 2, and leave no run folder."""
    for extra in (("--dry-run",), ("-q",)):
        status, stdout, err = cli("sweep", str(spec), "--out", str(out), *extra)
        assert status == 2, (extra, stdout, err)
        assert err.startswith("balance: error: ") and err.count("\n") == 1, err
        assert words in err, err
        assert stdout == "" and not out.exists(), (extra, stdout)


def test_exact_best_play_the_solver_cannot_do_is_refused_up_front(
        cli, tmp_path: Path) -> None:
    spec = tmp_path / "best.toml"
    spec.write_text(BEST_EXACT_EXTRAORDINARY)
    out = tmp_path / "run"
    refused_up_front(cli, spec, out, "cell a.0.skill=0: crt has no exact best play here: the "
                                     "Extraordinary tables are on")
    _, _, err = cli("sweep", str(spec), "--out", str(out), "-q")
    assert err.count("Extraordinary tables are on") == 1, err  # said once, not twice
    # nothing blocks the retry once the spec is mended: the same --out is free
    spec.write_text(BEST_EXACT_EXTRAORDINARY.replace("extraordinary = true",
                                                     "extraordinary = false"))
    status, stdout, err = cli("sweep", str(spec), "--out", str(out), "-q")
    assert status == 0, err
    assert "2 cells under best play (exact)" in stdout


def test_a_reader_that_would_not_know_the_spec_presets_refuses_the_run(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # How the report and the verdict resolved a run's ruleset before: by name, without the
    # experiment's own presets.  A 400-cell round robin over them ran to its end and then
    # failed ("unknown strike-rank preset 'pickman'"); the sweep checks with the readers'
    # own code, so the same reader now refuses the run before any fight.
    def without_presets(meta, *, allow_import=False):
        return resolve(meta["spec"]["ruleset"], allow_import=allow_import)

    monkeypatch.setattr(readback, "run_ruleset", without_presets)
    spec = tmp_path / "rr.toml"
    spec.write_text(PRESETS_ROUND_ROBIN)
    refused_up_front(cli, spec, tmp_path / "run", "unknown crt preset 'pickman'")


def test_a_round_robin_over_the_spec_presets_runs_and_reports(cli, tmp_path: Path) -> None:
    spec = tmp_path / "rr.toml"
    spec.write_text(PRESETS_ROUND_ROBIN)
    out = tmp_path / "run"
    status, stdout, err = cli("sweep", str(spec), "--out", str(out), "-q")
    assert status == 0, err
    assert "pickman" in stdout.split("Verdict:")[1]  # the verdict names the spec's preset
    status, stdout, err = cli("report", str(out), "--out", str(tmp_path / "report"))
    assert status == 0, err
    assert "pickman" in (tmp_path / "report" / "report.md").read_text()


def test_an_axis_of_whole_and_fractional_numbers_finds_its_cells(tmp_path: Path) -> None:
    # 0, 0.5 and 1 make a float column: the row of 0 reads 0.0, and the verdict looked its
    # cell up by that text and did not find it
    spec = {"ruleset": "crt", "a": [{"preset": "veteran", "divert": "random"}],
            "b": [{"preset": "novice"}],
            "grid": {"axes": [{"field": "a.0.divert_p", "values": [0, 0.5, 1]}]},
            "run": {"fights": 200, "seed": 1}}
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert table["a.0.divert_p"].tolist() == [0.0, 0.5, 1.0]
    meta = balance.load_run(path).meta
    cells = readback.RunCells(meta["spec"], readback.run_ruleset(meta), ["a.0.divert_p"])
    found = [cells.cell(row).side_a[0].divert_p for row in table.to_dict("records")]
    assert found == [0.0, 0.5, 1.0]


def test_a_plot_the_table_cannot_draw_is_refused_up_front(tmp_path: Path) -> None:
    # A Spec made in Python (not read from a file) is not checked by the reader: a plot of
    # a column the table will not have used to fail after the work, when drawn.
    spec = load_spec(make_spec())
    bad = dataclasses.replace(spec, plots=(PlotSpec("curves", "a.0.level", "rounds_q50x"),))
    out = tmp_path / "run"
    for call in (validate, balance.sweep):
        with pytest.raises(SpecError,
                           match=re.escape("no column 'rounds_q50x' in the table")):
            call(bad, out=out)
        assert not out.exists()


def test_a_spec_its_readers_cannot_read_back_is_refused_up_front(tmp_path: Path) -> None:
    # The verdict and the report read the spec back from the run record: one they would
    # refuse (here a [labels] entry for a column no run has) refuses the run.
    spec = load_spec(make_spec())
    bad = dataclasses.replace(spec, labels=Table({"a.0.levle": "level"}))
    out = tmp_path / "run"
    for call in (validate, balance.sweep):
        with pytest.raises(SpecError, match=re.escape("labels.a.0.levle: not an axis or "
                                                      "result column")):
            call(bad, out=out)
        assert not out.exists()


def test_the_checks_cost_one_stand_in_table_not_the_work(tmp_path: Path) -> None:
    # validate runs no chunk: a spec of ten million fights a cell is checked in a moment
    spec = make_spec(run={"fights": 10_000_000})
    checked, cells = validate(spec, out=tmp_path / "run")
    assert len(cells) == 9 and checked.fights == 10_000_000
    assert not (tmp_path / "run").exists()


def test_the_report_of_a_run_made_before_still_renders(tmp_path: Path) -> None:
    # readback is what the report calls: a finished run renders with it as before
    _, path = balance.sweep(make_spec(), out=tmp_path / "run", executor="serial")
    assert render(path, tmp_path / "report")["markdown"].is_file()


def _reader(spec: Any, expanded: Any) -> readback.RunCells:
    """The verdict's cells of a run of ``spec``, as the sweep's check builds them."""
    meta = {"spec": spec.to_dict(), "ruleset": spec.ruleset}
    return readback.RunCells(meta["spec"], readback.run_ruleset(meta),
                             list(spec.axis_fields), expanded=expanded)


def _row(cell: Any) -> dict[str, Any]:
    return {name: display(value, name) for name, value in cell.params.items()}


def test_the_readback_takes_the_runs_cells_only_for_the_grid_they_expand() -> None:
    # The check reads the record's spec back as the readers will; where it reads back to
    # the grid the run expanded, under the very ruleset, the run's cells are its own (the
    # grid is not expanded twice) ...
    spec = load_spec(make_spec())
    rs = spec.ruleset_object()
    cells = expand(spec, rs)
    reader = _reader(spec, (spec, rs, cells))
    assert all(reader.cell(_row(cell)) is cell for cell in cells)
    # ... and any other grid is expanded from the record: a decoy's cells are not taken
    decoy_spec = load_spec(make_spec(axes=[{"field": "a.0.level", "values": [1, 3, 4]},
                                           {"field": "b.0.bias", "values": [0.3]}]))
    decoy = expand(decoy_spec, rs)
    reader = _reader(spec, (decoy_spec, rs, decoy))
    found = [reader.cell(_row(cell)) for cell in cells]
    assert [c.key for c in found] == [c.key for c in cells]
    assert not any(c is d for c in found for d in decoy)
    with pytest.raises(SpecError, match="the run's spec has no cell"):
        reader.cell(_row(decoy[0]))
    # ... as is the same grid under another ruleset object
    other = _reader(spec, (spec, copy.copy(rs), cells))
    assert not any(other.cell(_row(cell)) is cell for cell in cells)
