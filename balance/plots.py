"""Figures from a sweep's results table: drawing only.

Each plot function takes the tidy table (one row per cell, as ``balance.sweep`` returns and
``balance.load_run`` reads) and keyword-only column names, draws on ``ax`` (a new figure
when ``None``) and returns the Axes.  None of them shows or saves anything, and nothing here
reads a run or writes a file: :mod:`balance.figures` writes figures with deterministic
bytes, and ``balance plot RUN`` (:func:`balance.experiments.plotting.plot_run`) draws a finished
run's table.

* :func:`heatmap` -- a rate (or fight length) over two swept axes;
* :func:`curves` -- win-rate curves with their interval bands over one axis, one curve per
  value of another;
* :func:`matchup` -- a matchup matrix: side A's combatant by rows, side B's by columns;
* :func:`intervals` -- one rate per row of any table (a sweep's, or rows of
  ``Summary.to_row()``), each with its interval whisker;
* :func:`draw` -- one of the first three on a figure of its own, sized to its grid.

Matplotlib is imported inside the functions, never by ``import balance``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .errors import SpecError, did_you_mean
from .labels import Labels
from .theme import DIVERGING, DRAWS

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["KINDS", "check", "curves", "default_value", "draw", "entrant_order", "heatmap", "intervals",
           "levels", "matchup"]

KINDS: tuple[str, ...] = ("heatmap", "curves", "matchup")
RATES: tuple[str, ...] = ("a_win", "b_win", "draw", "value", "default_value")
"""Fractions on a 0..1 scale (best play's value is A's expected score)."""


# --- table helpers ---------------------------------------------------------------------------


def _need(df: pd.DataFrame, *columns: str | None) -> None:
    for column in columns:
        if column is not None and column not in df.columns:
            raise SpecError(f"no column {column!r} in the table"
                            f"{did_you_mean(column, map(str, df.columns))}; columns: "
                            + ", ".join(map(str, df.columns)))


def levels(series: pd.Series) -> list[Any]:
    """Distinct values in display order: sorted if numeric, else first appearance."""
    values = list(dict.fromkeys(series.tolist()))
    if all(isinstance(v, int | float | np.integer | np.floating) and not isinstance(v, bool)
           for v in values):
        return sorted(values)
    return values


def _unique_rows(df: pd.DataFrame, keys: Sequence[str]) -> None:
    if df.duplicated(list(keys)).any():
        swept = [c for c in df.attrs.get("axes", []) if c not in keys and df[c].nunique() > 1]
        hint = f" ({', '.join(swept)} also vary)" if swept else ""
        raise SpecError(f"several rows share each {' x '.join(keys)}{hint}; select one value "
                        "of the other axes first (e.g. `balance plot RUN --where FIELD=VALUE`)")


def _with_score(df: pd.DataFrame, value: str) -> pd.DataFrame:
    """``df`` with the derived column ``score`` (A's expected score: a win 1, a draw 1/2)
    when it is asked for and missing, with its interval where the table has its fights
    (:func:`balance.analysis.scores.with_scores`)."""
    if value == "score" and "score" not in df.columns:
        _need(df, "a_win", "draw")
        if "n" in df.columns:
            from .analysis.scores import with_scores

            return with_scores(df)
        df = df.assign(score=df["a_win"] + 0.5 * df["draw"])
    return df


def _matrix(df: pd.DataFrame, x: str, y: str, value: str
            ) -> tuple[np.ndarray, list[Any], list[Any]]:
    _need(df, x, y, value)
    _unique_rows(df, [x, y])
    xs, ys = levels(df[x]), levels(df[y])
    grid = np.full((len(ys), len(xs)), np.nan)
    col = {v: i for i, v in enumerate(xs)}
    row = {v: i for i, v in enumerate(ys)}
    for xv, yv, v in zip(df[x].tolist(), df[y].tolist(), df[value].tolist(), strict=True):
        grid[row[yv], col[xv]] = v
    return grid, xs, ys


def _exact(df: pd.DataFrame) -> bool:
    """The table of an exact run (``method = "exact"`` on every row)."""
    return "method" in df.columns and bool((df["method"] == "exact").all())


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=size, layout="constrained")
    return new


PAGE_PX = 980
"""Width (CSS pixels) of a report page's figure column on a 1280-wide screen (the report's
``max-width``): a wider figure is shrunk to it, and its text with it."""
MAX_WIDTH_IN = 9.0
"""Widest figure (inches): its smallest text (8 pt) still shows at least 10 px on
:data:`PAGE_PX` (8 pt x 980 px / 9 in / 72 = 12 px; 10 px on an 810 px column)."""
MIN_TEXT_PT = 8.0
"""The smallest text a figure draws (cell annotations, legends); tick labels are 10 pt."""


def _grid_size(kind: str, nx: int, ny: int) -> tuple[float, float]:
    """Figure size (inches) for a grid of ``nx`` by ``ny`` cells, at most
    :data:`MAX_WIDTH_IN` wide so its text stays readable on a report page."""
    if kind == "curves":
        return (8.5, 4.5)
    per = 0.62 if kind == "matchup" else 0.45
    return (min(MAX_WIDTH_IN, 4.5 + per * nx), min(MAX_WIDTH_IN, 2.5 + 0.8 * per * ny))


def _labels(df: pd.DataFrame, labels: Labels | None) -> Labels:
    return labels if labels is not None else Labels.for_run(df)


def _label(column: str, labels: Labels | None = None) -> str:
    return (labels or Labels()).column(column)


def _wrap(text: str, width: int = 28, breaks: str = r"(?<=,)|(?= \+ )") -> str:
    """A long label on several lines, broken after commas and before " + " (a whole side
    written as ``"knight,knight_double=false"`` or ``"novice + novice"``)."""
    if len(text) <= width:
        return text
    lines = [""]
    for piece in re.split(breaks, text):
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append(piece.lstrip())
        else:
            lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


def _integers(values: Sequence[Any]) -> bool:
    return bool(values) and all(
        isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_) for v in values)


def _tick_positions(values: list[Any]) -> list[int]:
    """Which of ``values`` get a tick: all of up to 20; else every k-th, k a 1-2-5 step, and
    on an evenly spaced integer axis the values that are multiples of k."""
    n = len(values)
    if n <= 20:
        return list(range(n))
    step = next(k for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 10**9) if n / k <= 20)
    if _integers(values) and len({b - a for a, b in itertools.pairwise(values)}) == 1:
        spacing = step * (values[1] - values[0])
        picked = [i for i, v in enumerate(values) if int(v) % spacing == 0]
        if picked:
            return picked
    return list(range(0, n, step))


def _ticks(ax: Axes, axis: str, column: str, values: list[Any], labels: Labels) -> None:
    positions = _tick_positions(values)
    text = [_wrap(labels.value(column, values[i])) for i in positions]
    if axis == "x":
        tilt = any(len(t) > 4 for t in text)
        ax.set_xticks(positions, text, rotation=45 if tilt else 0,
                      ha="right" if tilt else "center", rotation_mode="anchor")
        ticks = ax.get_xticklabels()
    else:
        ax.set_yticks(positions, text)
        ticks = ax.get_yticklabels()
    for tick, i in zip(ticks, positions, strict=True):
        if labels.is_baseline(column, values[i]):
            tick.set_fontweight("bold")


def _axis_title(column: str, values: Sequence[Any], labels: Labels) -> str:
    """An axis's label, naming its default value (drawn bold) where the axis holds it."""
    title = labels.axis(column)
    marked = [v for v in values if labels.is_baseline(column, v)]
    return title + (f" (bold: default, {labels.value(column, marked[0])})" if marked else "")


RATE_LIKE = ("a_win", "b_win", "score", "value", "default_value")
"""Quantities whose even point is 50%: a diverging colour map centred there."""
SEQUENTIAL = {"draw": DRAWS}
"""Quantities that only grow from 0: a sequential map (fight lengths use viridis)."""


def _colour(value: str, grid: np.ndarray) -> dict[str, Any]:
    """The colour map and its limits for ``value``: diverging around 50% for win rates and
    scores, sequential from 0 for draws, sequential over the data for lengths and counts."""
    if value in RATE_LIKE:
        return {"cmap": DIVERGING, "vmin": 0.0, "vmax": 1.0}
    if value in SEQUENTIAL:
        top = float(np.nanmax(grid)) if np.isfinite(grid).any() else 1.0
        return {"cmap": SEQUENTIAL[value], "vmin": 0.0,
                "vmax": min(1.0, max(0.05, float(np.ceil(top * 10) / 10)))}
    return {"cmap": "viridis"}


def _cell_text(value: str, v: float) -> str:
    if value in RATES or value in RATE_LIKE:
        return f"{100 * v:.0f}%"
    return f"{v:.3g}"


def _image(ax: Axes, grid: np.ndarray, value: str, *, annotate: bool,
           origin: Literal["upper", "lower"], labels: Labels, contour: bool = True) -> None:
    """The colour grid, its colour bar, a 50% contour (``contour``: both axes ordered
    numbers, so a line between cells means something) and cell annotations."""
    from matplotlib.ticker import PercentFormatter

    image = ax.imshow(grid, origin=origin, aspect="auto", interpolation="nearest",
                      **_colour(value, grid))
    bar = ax.figure.colorbar(image, ax=ax)
    bar.set_label(_label(value, labels))
    if value in RATES or value in RATE_LIKE:
        bar.ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    even = value in RATE_LIKE and contour and min(grid.shape) >= 2 \
        and np.nanmin(grid) < 0.5 < np.nanmax(grid)
    if even:  # where the matchup is even: the line a designer looks for first
        ax.contour(np.arange(grid.shape[1]), np.arange(grid.shape[0]),
                   np.ma.masked_invalid(grid), levels=[0.5], colors="black", linewidths=1.4)
        bar.ax.axhline(0.5, color="black", linewidth=1.4)
        bar.set_label(f"{_label(value, labels)} (black line: 50%)")
    if annotate:
        cmap, norm = image.get_cmap(), image.norm
        for (r, c), v in np.ndenumerate(grid):
            if np.isnan(v):
                continue
            red, green, blue, _ = cmap(norm(v))
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            ax.text(c, r, _cell_text(value, v), ha="center", va="center", fontsize=MIN_TEXT_PT,
                    color="white" if dark else "black")


# --- the plots --------------------------------------------------------------------------------


def heatmap(df: pd.DataFrame, *, x: str, y: str, value: str = "a_win", ax: Axes | None = None,
            annotate: bool | None = None, labels: Labels | None = None) -> Axes:
    """``value`` (default A's win rate) over two swept axes, as a colour grid.

    Win rates and scores use a diverging map centred on 50% with a black line where the
    matchup is even (when both axes are numbers); draws a sequential map from 0; fight lengths viridis.  Cells are
    annotated when the grid is small (at most 12 x 12) unless ``annotate`` says otherwise.
    Axes and values are labelled by ``labels`` (default: from the table's ``attrs``); an
    axis's default value is drawn bold.
    """
    df = _with_score(df, value)
    labels = _labels(df, labels)
    grid, xs, ys = _matrix(df, x, y, value)
    ax = _new_axes(ax, _grid_size("heatmap", len(xs), len(ys)))
    show = annotate if annotate is not None else max(grid.shape) <= 12
    ordered = all(isinstance(v, int | float | np.integer | np.floating) for v in [*xs, *ys])
    _image(ax, grid, value, annotate=show, origin="lower", labels=labels, contour=ordered)
    _ticks(ax, "x", x, xs, labels)
    _ticks(ax, "y", y, ys, labels)
    ax.set_xlabel(_axis_title(x, xs, labels))
    ax.set_ylabel(_axis_title(y, ys, labels))
    ax.set_title(f"{_label(value, labels)} by {labels.axis(x)} and {labels.axis(y)}"
                 + (" (exact)" if _exact(df) else ""))
    return ax


def curves(df: pd.DataFrame, *, x: str, y: str = "a_win", by: str | None = None,
           ax: Axes | None = None, labels: Labels | None = None) -> Axes:
    """``y`` against one swept axis ``x``, one curve per value of ``by``.

    Rates are drawn with their interval band (the ``_low`` / ``_high`` columns of the
    table) and a dashed line at 50%.  An exact run's rates have no interval (``_low`` =
    ``_high``): no band is drawn and the axis says "exact".  The legend sits outside the
    plot, right of it; an integer axis gets integer ticks; the default value of ``x`` gets a
    dotted line.
    """
    df = _with_score(df, y)
    labels = _labels(df, labels)
    _need(df, x, y, by)
    _unique_rows(df, [x] if by is None else [x, by])
    ax = _new_axes(ax, (8.5, 4.5))
    xs = levels(df[x])
    numeric = all(isinstance(v, int | float | np.integer | np.floating) for v in xs)
    position = {v: (float(v) if numeric else float(i)) for i, v in enumerate(xs)}
    groups = [(None, df)] if by is None else [(g, df[df[by] == g]) for g in levels(df[by])]
    band = f"{y}_low" in df.columns and f"{y}_high" in df.columns \
        and bool((df[f"{y}_high"] > df[f"{y}_low"]).any())
    exact = _exact(df)
    for group, part in groups:
        part = part.assign(_pos=[position[v] for v in part[x].tolist()]).sort_values("_pos")
        label = None if by is None else labels.tick(by, group)
        (line,) = ax.plot(part["_pos"], part[y], marker="o", markersize=3, label=label)
        if band:
            ax.fill_between(part["_pos"], part[f"{y}_low"], part[f"{y}_high"],
                            color=line.get_color(), alpha=0.25, linewidth=0)
    if y in RATES or y in RATE_LIKE:
        from matplotlib.ticker import PercentFormatter

        ax.axhline(0.5, color="0.5", linestyle="--", linewidth=0.8)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    if not numeric:
        _ticks(ax, "x", x, xs, labels)
    else:
        if _integers(xs):
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        marked = [v for v in xs if labels.is_baseline(x, v)]
        if marked:
            ax.axvline(float(marked[0]), color="0.35", linestyle=":", linewidth=1.0)
    ax.set_xlabel(_axis_title(x, xs, labels) if not numeric else labels.axis(x) + (
        f" (dotted: default, {labels.value(x, marked[0])})" if numeric and marked else ""))
    ax.set_ylabel(_label(y, labels) + (" (95% interval band)" if band else " (exact)" if exact
                                       else ""))
    ax.set_title(f"{_label(y, labels)} by {labels.axis(x)}" + (" (exact)" if exact else ""))
    if by is not None:
        ax.legend(fontsize=MIN_TEXT_PT, title=labels.axis(by), title_fontsize=MIN_TEXT_PT, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    ax.grid(True, linewidth=0.3)
    return ax


def career(table: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """A career fight by fight (:func:`balance.rulesets.crt.campaign.career`'s table): the
    chance to win each fight having survived the ones before, and the share of careers
    still running after it, each with its 95% band (none when exact)."""
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    _need(table, "fight", "p_win", "alive")
    ax = _new_axes(ax, (8.5, 4.5))
    for column, label in (("p_win", "chance to win this fight, having survived the ones "
                                    "before"), ("alive", "careers still running after it")):
        (line,) = ax.plot(table["fight"], table[column], marker="o", markersize=3, label=label)
        low, high = table[f"{column}_low"], table[f"{column}_high"]
        if bool((high > low).any()):
            ax.fill_between(table["fight"], low, high, color=line.get_color(), alpha=0.25,
                            linewidth=0)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("fight of the career")
    ax.set_ylabel("share (95% interval band)" if table.attrs.get("method") != "exact"
                  else "share (exact)")
    ax.set_title("A career, fight by fight")
    ax.legend(fontsize=MIN_TEXT_PT + 1, loc="center right", frameon=False)
    ax.grid(True, linewidth=0.3)
    return ax


def entrant_order(df: pd.DataFrame, *, x: str, y: str) -> list[Any]:
    """Entrants of a round robin (row ``y`` in seat A against column ``x`` in seat B) from
    the strongest: by mean expected score against the field, both seats counted alike."""
    import pandas as pd

    score = df["a_win"] + 0.5 * df["draw"]
    as_a = score.groupby(df[y].astype(str)).mean()
    as_b = (1 - score).groupby(df[x].astype(str)).mean()
    names = levels(pd.concat([df[y], df[x]], ignore_index=True))
    strength = {v: np.nanmean([as_a.get(str(v), np.nan), as_b.get(str(v), np.nan)])
                for v in names}
    return sorted(names, key=lambda v: -strength[v])


def matchup(df: pd.DataFrame, *, x: str, y: str, value: str = "score",
            ax: Axes | None = None, order: Sequence[Any] | None = None,
            labels: Labels | None = None) -> Axes:
    """A matchup matrix: the combatant of side A (``y``, rows) against that of side B (``x``,
    columns), each cell annotated with ``value``.

    The default ``value`` is A's expected score (a win 1, a draw 1/2), so a matchup of all
    draws reads 50%, not a loss.  Rows and columns are in ``order``, by default the
    strongest first (:func:`entrant_order`) when both sides hold the same entrants.
    """
    df = _with_score(df, value)
    labels = _labels(df, labels)
    grid, xs, ys = _matrix(df, x, y, value)
    if order is None and set(map(str, xs)) == set(map(str, ys)) and {"a_win", "draw"} <= set(df):
        order = entrant_order(df, x=x, y=y)
    if order is not None:
        by_text = {str(v): i for i, v in enumerate(xs)}
        cols = [by_text[str(v)] for v in order if str(v) in by_text]
        by_text = {str(v): i for i, v in enumerate(ys)}
        rows = [by_text[str(v)] for v in order if str(v) in by_text]
        grid, xs, ys = grid[np.ix_(rows, cols)], [xs[i] for i in cols], [ys[i] for i in rows]
    ax = _new_axes(ax, _grid_size("matchup", len(xs), len(ys)))
    _image(ax, grid, value, annotate=True, origin="upper", labels=labels, contour=False)
    _ticks(ax, "x", x, xs, labels)
    _ticks(ax, "y", y, ys, labels)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    for tick in ax.get_xticklabels():
        tick.set_horizontalalignment("left")
    ax.set_xlabel(f"{labels.axis(x)} (column)")
    ax.set_ylabel(f"{labels.axis(y)} (row)")
    ax.set_title(f"{_label(value, labels)}: row (A) against column (B)"
                 + (", strongest first" if order is not None else "")
                 + (" (exact)" if _exact(df) else ""))
    return ax


def intervals(df: pd.DataFrame, *, label: str | Sequence[str], value: str = "a_win",
              ax: Axes | None = None, labels: Labels | None = None) -> Axes:
    """``value`` of every row of ``df`` as a dot with its interval whisker, one line per row.

    ``label`` names the column (or columns, joined with " / ") that names each row.  Rows
    keep their order, top to bottom.  Rates get a dashed line at 50%; rows whose interval
    columns (``_low`` / ``_high``) are missing or empty are drawn without a whisker.
    """
    names = [label] if isinstance(label, str) else list(label)
    _need(df, value, *names)
    if df.empty:
        raise SpecError("intervals: the table has no rows to draw")
    labels = _labels(df, labels)
    ax = _new_axes(ax, (7.0, 1.2 + 0.35 * len(df)))
    ys = np.arange(len(df))[::-1]
    mid = df[value].to_numpy(dtype=float)
    low_col, high_col = f"{value}_low", f"{value}_high"
    if low_col in df.columns and high_col in df.columns:
        err = np.vstack([mid - df[low_col].to_numpy(dtype=float),
                         df[high_col].to_numpy(dtype=float) - mid])
        ax.errorbar(mid, ys, xerr=np.clip(err, 0.0, None), fmt="o", capsize=3, markersize=4)
    else:
        ax.plot(mid, ys, "o", markersize=4)
    texts = [" / ".join(labels.value(n, v) for n, v in zip(names, row, strict=True))
             for row in df[names].itertuples(index=False)]
    ax.set_yticks(ys, [_wrap(t, width=40) for t in texts], fontsize=MIN_TEXT_PT)
    if value in RATES or value in RATE_LIKE:
        from matplotlib.ticker import PercentFormatter

        ax.axvline(0.5, color="0.5", linestyle="--", linewidth=0.8)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(_label(value, labels) + (" (95% interval)" if low_col in df.columns else ""))
    ax.grid(True, axis="x", linewidth=0.3)
    return ax


# --- one plot on a figure of its own ----------------------------------------------------------


def default_value(kind: str) -> str:
    """The column a plot of ``kind`` shows when none is given: A's expected score for a
    matchup matrix, else A's win rate."""
    return "score" if kind == "matchup" else "a_win"


def check(df: pd.DataFrame, *, kind: str, x: str, y: str | None = None,
          value: str | None = None, by: str | None = None) -> tuple[pd.DataFrame, str]:
    """Raise the SpecError :func:`draw` would stop on (a kind it does not know, a column
    the table lacks or that is not a number, several rows to one point), without drawing
    anything (no matplotlib); the table with any derived column (``score``) and the value
    drawn.  A sweep asks it of its spec's plots before running any fight."""
    if kind not in KINDS:
        raise SpecError(f"plot kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind != "curves" and y is None:
        raise SpecError(f"a {kind} needs both x and y")
    _need(df, x, y)
    value = value or default_value(kind)
    shown = (y or value) if kind == "curves" else value
    df = _with_score(df, shown)
    _need(df, shown, by if kind == "curves" else None)
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    def number(column: str) -> bool:
        return is_numeric_dtype(df[column]) and not is_bool_dtype(df[column])

    if not number(shown):
        numeric = [c for c in df.columns if number(c)
                   and c not in (x, y) and not c.endswith(("_low", "_high"))]
        raise SpecError(f"cannot plot {shown!r}: it is not a number; plottable columns: "
                        + ", ".join(numeric))
    if kind == "curves":
        _unique_rows(df, [x] if by is None else [x, by])
    else:
        assert y is not None
        _unique_rows(df, [x, y])
    return df, value


def draw(df: pd.DataFrame, *, kind: str, x: str, y: str | None = None,
         value: str | None = None, by: str | None = None, note: str = "") -> Figure:
    """One plot of ``kind`` (see :data:`KINDS`) on a figure of its own, sized to the grid
    (no pyplot state, nothing shown or saved); ``note`` (e.g. the values the other axes are
    held at) is added under the title.  ``value`` defaults to :func:`default_value`."""
    df, value = check(df, kind=kind, x=x, y=y, value=value, by=by)
    from matplotlib.figure import Figure

    size = _grid_size(kind, df[x].nunique(), df[y].nunique() if y is not None else 1)
    figure = Figure(figsize=size, layout="constrained")
    ax = figure.subplots()
    if kind == "heatmap":
        assert y is not None
        heatmap(df, x=x, y=y, value=value, ax=ax)
    elif kind == "matchup":
        assert y is not None
        matchup(df, x=x, y=y, value=value, ax=ax)
    else:
        curves(df, x=x, y=y or value, by=by, ax=ax)
    if note:
        ax.set_title(f"{ax.get_title()}\n{_wrap(note, 60, r'(?<=, )')}", fontsize="medium")
    return figure
