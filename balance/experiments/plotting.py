"""A run's figures: the spec's ``[[outputs.plots]]`` drawn at the end of a sweep, and
``balance plot RUN`` on a finished run.

Drawing is :mod:`balance.plots`, writing :mod:`balance.figures`; this module knows the run
(its table, axes and ``plots/`` folder) and picks what to draw from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import SpecError, did_you_mean
from ..labels import Labels, display

if TYPE_CHECKING:
    import pandas as pd

    from .spec import PlotSpec, Spec

__all__ = ["check_spec_plots", "draw_spec_plots", "plot_run"]


def draw_spec_plots(spec: Spec, table: pd.DataFrame, run_dir: Path) -> list[Path]:
    """The figures a spec's ``[[outputs.plots]]`` ask for, in ``run_dir/plots``."""
    if not spec.plots:
        return []
    from ..figures import draw_to

    written: list[Path] = []
    for plot, part, suffix, note in _spec_plots(spec, table):
        written.extend(draw_to(part, run_dir / "plots", kind=plot.kind, x=plot.x,
                               y=plot.y, value=plot.value, by=plot.by, suffix=suffix,
                               note=note))
    return written


def check_spec_plots(spec: Spec, table: pd.DataFrame) -> None:
    """Raise the SpecError :func:`draw_spec_plots` would stop on with a table of this
    shape (see :func:`balance.plots.check`), drawing nothing."""
    from ..plots import check

    for plot, part, _, _ in _spec_plots(spec, table):
        check(part, kind=plot.kind, x=plot.x, y=plot.y, value=plot.value, by=plot.by)


def _spec_plots(spec: Spec, table: pd.DataFrame
                ) -> Iterator[tuple[PlotSpec, pd.DataFrame, str, str]]:
    """Each plot of the spec with the rows it draws (its ``where`` applied), the file name's
    suffix naming the held values, and the note under its title saying them."""
    if not spec.plots:
        return
    labels = Labels.for_run(table)
    for plot in spec.plots:
        part = table
        for name, value in plot.where.items():
            part = part[part[name] == display(value, name)]
        held = [f"{name}={display(value, name)}" for name, value in plot.where.items()]
        note = ", ".join(f"{labels.column(name)} = {labels.value(name, display(value, name))}"
                         for name, value in plot.where.items())
        yield plot, part, "".join(f"-{h}" for h in held), note


def plot_run(run: str | Path, *, kind: str | None = None, x: str | None = None,
             y: str | None = None, value: str | None = None, by: str | None = None,
             where: Sequence[str] = (), out: str | Path | None = None,
             formats: Iterable[str] = ("png", "svg")) -> list[Path]:
    """Draw a plot of a finished run into ``RUN/plots/`` (or ``out``); the paths written.

    Defaults come from the run's axes: with two or more, a heatmap with the second axis
    across and the first up; with one, curves over it.  ``where`` holds ``FIELD=VALUE``
    filters that pick one value of the other axes; without any, the axes the figure does
    not show are held at their default value (else their first), named under the title.
    """
    from ..plots import KINDS
    from ..plots import levels as levels_of
    from .store import load_run

    table, path = load_run(run)
    axes = list(table.attrs.get("axes", []))
    for item in where:
        field, sep, text = item.partition("=")
        if not sep or field not in table.columns:
            raise SpecError(f"--where takes FIELD=VALUE with FIELD one of: {', '.join(axes)}; "
                            f"got {item!r}" + did_you_mean(field, axes))
        keep = table[field].astype(str) == text
        if not keep.any():
            levels = [str(v) for v in levels_of(table[field])]
            raise SpecError(f"--where {item!r} matches no row{did_you_mean(text, levels)}; "
                            f"{field} takes " + ", ".join(levels))
        table = table[keep]
    if kind is None:
        if not axes:
            raise SpecError(f"{path} sweeps no axis: nothing to plot")
        kind = "heatmap" if len(axes) >= 2 else "curves"
    if kind not in KINDS:
        raise SpecError(f"plot kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if x is None:
        if not axes:
            raise SpecError("give --x: the run has no axes")
        x = axes[1] if len(axes) >= 2 else axes[0]
    if kind == "curves":
        if by is None and len(axes) >= 2:
            by = next((a for a in axes if a != x), None)
        y = y or value or "a_win"
    elif y is None:
        others = [a for a in axes if a != x]
        if not others:
            raise SpecError(f"a {kind} needs two axes; give --y")
        y = others[0]
    from ..files import check_folder

    folder = Path(out) if out is not None else path / "plots"
    check_folder(folder, "--out", " for the plots")
    where = list(where)
    if not where:
        # Axes the figure does not show are held at their default (else their first value),
        # so a run of three or more axes draws without --where; the title says so.
        labels = Labels.for_run(table)
        shown = {x, by} | ({y} if kind != "curves" else set())
        for axis in axes:
            if axis in shown or table[axis].nunique() < 2:
                continue
            levels = levels_of(table[axis])
            chosen = next((v for v in levels if labels.is_baseline(axis, v)), levels[0])
            table = table[table[axis] == chosen]
            where.append(f"{axis}={chosen}")
        suffix = ""
    else:
        suffix = "".join(f"-{item}" for item in where)
    labels = Labels.for_run(table)
    note = ", ".join(f"{labels.column(f)} = {labels.value(f, v)}"
                     for f, _, v in (item.partition("=") for item in where))
    from ..figures import draw_to
    from ..files import writing_in

    with writing_in(folder):
        return draw_to(table, folder, kind=kind, x=x, y=y, value=value, by=by, suffix=suffix,
                       note=note, formats=formats)
