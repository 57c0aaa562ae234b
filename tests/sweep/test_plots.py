"""Plot functions draw on an Axes and return it; saved figures have deterministic bytes."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import balance
from balance import figures, plots
from balance.errors import SpecError
from balance.experiments.plotting import plot_run

from .helpers import ROOT, make_spec

SPEC = make_spec(axes=[{"field": "a.0.preset", "values": ["fair", "lucky", "pro"]},
                       {"field": "b.0.preset", "values": ["fair", "lucky", "hopeless"]},
                       {"field": "rules.target", "values": [1, 2]}],
                 run={"fights": 2_000})


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> balance.Run:
    return balance.sweep(SPEC, out=tmp_path_factory.mktemp("plots") / "r", executor="serial")


@pytest.fixture
def one_target(run: balance.Run) -> pd.DataFrame:
    table = run.table
    return table[table["rules.target"] == 1]


@pytest.fixture(autouse=True)
def no_show_no_save(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("plot functions must not show or save")

    monkeypatch.setattr(plt, "show", forbidden)
    monkeypatch.setattr(Figure, "savefig", forbidden)


def test_heatmap_on_given_axes(one_target: pd.DataFrame) -> None:
    figure = Figure()
    ax = figure.subplots()
    out = plots.heatmap(one_target, x="b.0.preset", y="a.0.preset", ax=ax)
    assert out is ax
    assert [t.get_text() for t in ax.get_xticklabels()] == ["fair", "lucky", "hopeless"]
    assert len(ax.texts) == 9  # small grid: annotated


def test_plots_make_their_own_axes(one_target: pd.DataFrame, run: balance.Run) -> None:
    for ax in (plots.heatmap(one_target, x="b.0.preset", y="a.0.preset", value="mean_rounds"),
               plots.matchup(one_target, x="b.0.preset", y="a.0.preset"),
               plots.curves(run.table[run.table["b.0.preset"] == "fair"], x="rules.target",
                            by="a.0.preset")):
        assert isinstance(ax, Axes)
    plt.close("all")


def test_curves_draw_interval_bands(run: balance.Run) -> None:
    part = run.table[run.table["b.0.preset"] == "fair"]
    ax = plots.curves(part, x="rules.target", y="a_win", by="a.0.preset", ax=Figure().subplots())
    assert len(ax.lines) == 3 + 2  # a curve per preset, the 50% line, the default target
    assert len(ax.collections) == 3  # a band per curve
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["fair", "lucky", "pro"]
    assert ax.get_legend().get_title().get_text() == "A's combatant"


def test_long_labels_are_wrapped(one_target: pd.DataFrame) -> None:
    # a whole side written as a spec string would squash the grid to a sliver
    long = {"fair": "skirmisher,shield=medium,strength=14,armour=head:2,arms:2,torso:3,legs:2",
            "lucky": "fair + lucky + fair + lucky + fair + lucky", "pro": "pro"}
    table = one_target.assign(**{"a.0.preset": one_target["a.0.preset"].map(long)})
    ax = plots.heatmap(table, x="b.0.preset", y="a.0.preset", ax=Figure().subplots())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].replace("\n", "") == long["fair"] and labels[2] == "pro"
    assert all(len(line) <= 28 for text in labels for line in text.split("\n"))
    assert labels[1].split("\n")[1].startswith("+ ")


def test_other_varying_axes_are_an_error(run: balance.Run) -> None:
    with pytest.raises(SpecError, match=r"several rows share each b.0.preset x a.0.preset "
                                        r"\(rules.target also vary\)"):
        plots.heatmap(run.table, x="b.0.preset", y="a.0.preset", ax=Figure().subplots())
    with pytest.raises(SpecError, match=r"no column 'a\.0\.level'"):
        plots.curves(run.table, x="a.0.level", ax=Figure().subplots())


def _digest(paths: list[Path]) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


def test_saved_bytes_are_deterministic(one_target: pd.DataFrame, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # saving is the point here
    first = figures.draw_to(one_target, tmp_path / "a", kind="matchup", x="b.0.preset",
                          y="a.0.preset")
    second = figures.draw_to(one_target, tmp_path / "b", kind="matchup", x="b.0.preset",
                           y="a.0.preset")
    assert [p.suffix for p in first] == [".png", ".svg"]
    assert _digest(first) == _digest(second)
    png, svg = (p.read_bytes() for p in first)
    assert b"Software" not in png and b"matplotlib" not in png.lower()
    assert b"<dc:date>" not in svg and b"Matplotlib" not in svg


def test_saved_bytes_are_the_same_in_another_process(run: balance.Run, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    code = ("import sys; from balance.experiments import plotting as p; "
            "p.plot_run(sys.argv[1], kind='curves', x='rules.target', by='a.0.preset', "
            "where=['b.0.preset=lucky'], out=sys.argv[2])")
    digests = []
    for seed in ("1", "2"):  # different string hashing must not matter
        out = tmp_path / seed
        subprocess.run([sys.executable, "-c", code, str(run.path), str(out)], check=True,
                       cwd=ROOT, env={**os.environ, "PYTHONHASHSEED": seed, "MPLBACKEND": "Agg"})
        digests.append(_digest(sorted(out.iterdir())))
    assert digests[0] == digests[1]


def test_plot_run_defaults(run: balance.Run, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    paths = plot_run(run.path, where=["rules.target=2"], out=tmp_path)
    assert [p.name for p in paths] == ["heatmap-a_win-b.0.preset-a.0.preset-rules.target=2.png",
                                       "heatmap-a_win-b.0.preset-a.0.preset-rules.target=2.svg"]
    with pytest.raises(SpecError, match=r"matches no row; rules\.target takes 1, 2"):
        plot_run(run.path, where=["rules.target=3"], out=tmp_path)


def test_spec_plots_are_drawn_at_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    spec = make_spec(outputs={"plots": [{"kind": "heatmap", "x": "b.0.bias", "y": "a.0.level"},
                                        {"kind": "curves", "x": "b.0.bias", "by": "a.0.level",
                                         "y": "draw"},
                                        {"kind": "curves", "x": "a.0.level",
                                         "where": {"b": {"0": {"bias": 0.5}}}}]},
                     run={"fights": 1_000})
    _, path = balance.sweep(spec, out=tmp_path / "r", executor="serial")
    assert sorted(p.name for p in (path / "plots").iterdir()) == [
        "curves-a_win-a.0.level-b.0.bias=0.5.png", "curves-a_win-a.0.level-b.0.bias=0.5.svg",
        "curves-draw-b.0.bias-by-a.0.level.png", "curves-draw-b.0.bias-by-a.0.level.svg",
        "heatmap-a_win-b.0.bias-a.0.level.png", "heatmap-a_win-b.0.bias-a.0.level.svg"]


def test_import_balance_is_light() -> None:
    code = ("import sys, balance; heavy = [m for m in ('matplotlib', 'dask', 'distributed', "
            "'pyarrow', 'tqdm', 'pandas') if m in sys.modules]; print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True, cwd=ROOT)
    assert out.stdout.strip() == ""
    assert callable(balance.sweep) and callable(balance.load_run)


def test_a_side_of_repeated_members_is_labelled_by_count() -> None:
    df = pd.DataFrame({"b": ["pro", "pro + pro", "pro + pro + pro", "fair + pro"],
                       "a_win": [0.9, 0.6, 0.3, 0.5]})
    ax = plots.curves(df, x="b")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["pro", "2 × pro", "3 × pro",
                                                           "fair + pro"]
    plt.close(ax.figure)


def test_intervals_draw_one_whisker_per_row(one_target: pd.DataFrame) -> None:
    ax = plots.intervals(one_target, label=["a.0.preset", "b.0.preset"])
    (bars,) = [c for c in ax.containers]
    segments = bars.lines[2][0].get_segments()
    assert len(segments) == len(one_target)
    # Each whisker spans its row's interval; the first row is drawn at the top.
    assert sorted(p[0] for p in segments[0]) == pytest.approx(
        [one_target["a_win_low"].iloc[0], one_target["a_win_high"].iloc[0]])
    assert segments[0][0][1] == max(seg[0][1] for seg in segments)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == f"{one_target['a.0.preset'].iloc[0]} / {one_target['b.0.preset'].iloc[0]}"
    plt.close(ax.figure)


def test_intervals_need_rows_and_columns(one_target: pd.DataFrame) -> None:
    with pytest.raises(SpecError, match="nope"):
        plots.intervals(one_target, label="nope")
    with pytest.raises(SpecError, match="no rows"):
        plots.intervals(one_target.iloc[:0], label="a.0.preset")


def test_plot_run_holds_the_other_axes_at_their_default(run: balance.Run, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()
    paths = plot_run(run.path, out=tmp_path)  # three axes, no --where: no error
    assert [p.name for p in paths] == ["heatmap-a_win-b.0.preset-a.0.preset.png",
                                       "heatmap-a_win-b.0.preset-a.0.preset.svg"]
    from balance.labels import Labels

    assert Labels.for_run(run.table).is_baseline("rules.target", 1)  # coin's default: held
    with pytest.raises(SpecError, match="several rows share"):  # as before, when told
        plots.heatmap(run.table, x="b.0.preset", y="a.0.preset", ax=Figure().subplots())


def test_a_matchup_reads_draws_as_half_and_puts_the_strongest_first() -> None:
    rows = [{"a": a, "b": b, "a_win": w, "draw": d, "b_win": 1 - w - d}
            for a, b, w, d in (("knight", "knight", 0.0, 1.0), ("knight", "page", 0.9, 0.0),
                               ("page", "knight", 0.05, 0.0), ("page", "page", 0.5, 0.0))]
    ax = plots.matchup(pd.DataFrame(rows), x="b", y="a", ax=Figure().subplots())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["knight", "page"]
    assert ax.texts[0].get_text() == "50%"  # knight v knight: all draws
    assert ax.get_title().startswith("A's expected score")
