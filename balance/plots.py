"""Figures from a sweep's results table.

Each plot function takes the tidy table (one row per cell, as ``balance.sweep`` returns and
``balance.load_run`` reads) and keyword-only column names, draws on ``ax`` (a new figure
when ``None``) and returns the Axes.  None of them shows or saves anything; :func:`save`
writes a figure as PNG and SVG with deterministic bytes (fixed metadata, fixed SVG hash
salt), so the same data gives the same files.

* :func:`heatmap` -- a rate (or fight length) over two swept axes;
* :func:`curves` -- win-rate curves with their interval bands over one axis, one curve per
  value of another;
* :func:`matchup` -- a matchup matrix: side A's combatant by rows, side B's by columns;
* :func:`intervals` -- one rate per row of any table (a sweep's, or rows of
  ``Summary.to_row()``), each with its interval whisker.

Matplotlib is imported inside the functions, never by ``import balance``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .errors import SpecError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["KINDS", "curves", "draw_to", "heatmap", "intervals", "matchup", "plot_run", "save"]

KINDS: tuple[str, ...] = ("heatmap", "curves", "matchup")
RATES: tuple[str, ...] = ("a_win", "b_win", "draw", "value", "default_value")
"""Fractions on a 0..1 scale (best play's value is A's expected score)."""
LABELS = {"a_win": "A win rate", "b_win": "B win rate", "draw": "draw rate",
          "value": "A's expected score, best play",
          "default_value": "A's expected score, policies as given",
          "mean_rounds": "mean rounds",
          "rounds_q10": "rounds, 10th percentile", "rounds_q50": "rounds, median",
          "rounds_q90": "rounds, 90th percentile"}
_DETERMINISTIC_RC: Any = {"svg.hashsalt": "balance", "svg.fonttype": "path"}
_PNG_METADATA = {"Software": None}
_SVG_METADATA = {"Date": None, "Creator": None}


# --- table helpers ---------------------------------------------------------------------------


def _need(df: pd.DataFrame, *columns: str | None) -> None:
    for column in columns:
        if column is not None and column not in df.columns:
            raise SpecError(f"no column {column!r} in the table; columns: "
                            + ", ".join(map(str, df.columns)))


def _levels(series: pd.Series) -> list[Any]:
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


def _matrix(df: pd.DataFrame, x: str, y: str, value: str
            ) -> tuple[np.ndarray, list[Any], list[Any]]:
    _need(df, x, y, value)
    _unique_rows(df, [x, y])
    xs, ys = _levels(df[x]), _levels(df[y])
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


def _grid_size(kind: str, nx: int, ny: int) -> tuple[float, float]:
    """Figure size (inches) for a grid of ``nx`` by ``ny`` cells."""
    if kind == "curves":
        return (7.0, 4.5)
    per = 0.8 if kind == "matchup" else 0.45
    return (min(14.0, 4.0 + per * nx), min(12.0, 2.5 + 0.8 * per * ny))


def _label(column: str) -> str:
    return LABELS.get(column, column)


def _fmt(v: Any) -> str:
    """A value as a label; a whole side of one repeated member, "raider + raider + raider",
    as "3 × raider" (whole-side axes over numbers would otherwise crowd the figure)."""
    if isinstance(v, float | np.floating):
        return f"{v:g}"
    members = str(v).split(" + ")
    if len(members) > 1 and len(set(members)) == 1:
        return f"{len(members)} × {members[0]}"
    return str(v)


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


def _ticks(ax: Axes, axis: str, labels: list[Any]) -> None:
    step = max(1, int(np.ceil(len(labels) / 20)))
    positions = list(range(0, len(labels), step))
    text = [_wrap(_fmt(labels[i])) for i in positions]
    if axis == "x":
        ax.set_xticks(positions, text, rotation=45 if any(len(t) > 4 for t in text) else 0,
                      ha="right" if any(len(t) > 4 for t in text) else "center")
    else:
        ax.set_yticks(positions, text)


def _image(ax: Axes, grid: np.ndarray, value: str, *, annotate: bool,
           origin: Literal["upper", "lower"]) -> None:
    rate = value in RATES
    image = ax.imshow(grid, origin=origin, aspect="auto", interpolation="nearest",
                      cmap="RdBu" if rate else "viridis",
                      vmin=0.0 if rate else None, vmax=1.0 if rate else None)
    bar = ax.figure.colorbar(image, ax=ax)
    bar.set_label(_label(value))
    if annotate:
        for (r, c), v in np.ndenumerate(grid):
            if np.isnan(v):
                continue
            text = f"{100 * v:.0f}%" if rate else f"{v:.3g}"
            dark = rate and abs(v - 0.5) > 0.3
            ax.text(c, r, text, ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")


# --- the plots --------------------------------------------------------------------------------


def heatmap(df: pd.DataFrame, *, x: str, y: str, value: str = "a_win", ax: Axes | None = None,
            annotate: bool | None = None) -> Axes:
    """``value`` (default A's win rate) over two swept axes, as a colour grid.

    Rates use a diverging map centred on 50%; cells are annotated when the grid is small
    (at most 12 x 12) unless ``annotate`` says otherwise.
    """
    grid, xs, ys = _matrix(df, x, y, value)
    ax = _new_axes(ax, _grid_size("heatmap", len(xs), len(ys)))
    show = annotate if annotate is not None else max(grid.shape) <= 12
    _image(ax, grid, value, annotate=show, origin="lower")
    _ticks(ax, "x", xs)
    _ticks(ax, "y", ys)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(f"{_label(value)} by {x} and {y}" + (" (exact)" if _exact(df) else ""))
    return ax


def curves(df: pd.DataFrame, *, x: str, y: str = "a_win", by: str | None = None,
           ax: Axes | None = None) -> Axes:
    """``y`` against one swept axis ``x``, one curve per value of ``by``.

    Rates are drawn with their interval band (the ``_low`` / ``_high`` columns of the
    table) and a dashed line at 50%.  An exact run's rates have no interval (``_low`` =
    ``_high``): no band is drawn and the axis says "exact".
    """
    _need(df, x, y, by)
    _unique_rows(df, [x] if by is None else [x, by])
    ax = _new_axes(ax, (7.0, 4.5))
    xs = _levels(df[x])
    numeric = all(isinstance(v, int | float | np.integer | np.floating) for v in xs)
    position = {v: (float(v) if numeric else float(i)) for i, v in enumerate(xs)}
    groups = [(None, df)] if by is None else [(g, df[df[by] == g]) for g in _levels(df[by])]
    band = f"{y}_low" in df.columns and f"{y}_high" in df.columns \
        and bool((df[f"{y}_high"] > df[f"{y}_low"]).any())
    exact = _exact(df)
    for group, part in groups:
        part = part.assign(_pos=[position[v] for v in part[x].tolist()]).sort_values("_pos")
        label = None if by is None else f"{by} = {_fmt(group)}"
        (line,) = ax.plot(part["_pos"], part[y], marker="o", markersize=3, label=label)
        if band:
            ax.fill_between(part["_pos"], part[f"{y}_low"], part[f"{y}_high"],
                            color=line.get_color(), alpha=0.25, linewidth=0)
    if y in RATES:
        from matplotlib.ticker import PercentFormatter

        ax.axhline(0.5, color="0.5", linestyle="--", linewidth=0.8)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    if not numeric:
        _ticks(ax, "x", xs)
    ax.set_xlabel(x)
    ax.set_ylabel(_label(y) + (" (95% interval band)" if band else " (exact)" if exact
                               else ""))
    ax.set_title(f"{_label(y)} by {x}" + (" (exact)" if exact else ""))
    if by is not None:
        ax.legend(fontsize=8, title=None, loc="best")
    ax.grid(True, linewidth=0.3)
    return ax


def matchup(df: pd.DataFrame, *, x: str, y: str, value: str = "a_win",
            ax: Axes | None = None) -> Axes:
    """A matchup matrix: the combatant of side A (``y``, rows) against that of side B (``x``,
    columns), each cell annotated with ``value`` (A's win rate by default)."""
    grid, xs, ys = _matrix(df, x, y, value)
    ax = _new_axes(ax, _grid_size("matchup", len(xs), len(ys)))
    _image(ax, grid, value, annotate=True, origin="upper")
    _ticks(ax, "x", xs)
    _ticks(ax, "y", ys)
    ax.set_xlabel(f"side B: {x}")
    ax.set_ylabel(f"side A: {y}")
    ax.set_title(f"{_label(value)}: row (A) against column (B)"
                 + (" (exact)" if _exact(df) else ""))
    return ax


def intervals(df: pd.DataFrame, *, label: str | Sequence[str], value: str = "a_win",
              ax: Axes | None = None) -> Axes:
    """``value`` of every row of ``df`` as a dot with its interval whisker, one line per row.

    ``label`` names the column (or columns, joined with " / ") that names each row.  Rows
    keep their order, top to bottom.  Rates get a dashed line at 50%; rows whose interval
    columns (``_low`` / ``_high``) are missing or empty are drawn without a whisker.
    """
    names = [label] if isinstance(label, str) else list(label)
    _need(df, value, *names)
    if df.empty:
        raise SpecError("intervals: the table has no rows to draw")
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
    texts = [" / ".join(_fmt(v) for v in row) for row in df[names].itertuples(index=False)]
    ax.set_yticks(ys, [_wrap(t, width=40) for t in texts], fontsize=8)
    if value in RATES:
        from matplotlib.ticker import PercentFormatter

        ax.axvline(0.5, color="0.5", linestyle="--", linewidth=0.8)
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(_label(value) + (" (95% interval)" if low_col in df.columns else ""))
    ax.grid(True, axis="x", linewidth=0.3)
    return ax


# --- saving ------------------------------------------------------------------------------------


def _figure(fig_or_ax: Figure | Axes) -> Figure:
    figure = getattr(fig_or_ax, "figure", None)
    return fig_or_ax if figure is None or figure is fig_or_ax else figure  # type: ignore[return-value]


def save(fig_or_ax: Figure | Axes, path: str | Path, *,
         formats: Iterable[str] = ("png", "svg"), dpi: int = 150) -> list[Path]:
    """Write a figure as ``path`` with each suffix in ``formats``; the paths written.

    The bytes depend only on the figure: PNG without a Software stamp, SVG without date or
    creator and with a fixed hash salt for its element ids.  Each file is written
    atomically.
    """
    import matplotlib

    from .sweep.store import atomic_write

    figure = _figure(fig_or_ax)
    stem = Path(path)
    if stem.suffix.lower() in (".png", ".svg"):
        stem = stem.with_suffix("")
    written = []
    with matplotlib.rc_context(_DETERMINISTIC_RC):
        for fmt in formats:
            if fmt not in ("png", "svg"):
                raise SpecError(f"figure format must be png or svg, got {fmt!r}")
            buffer = io.BytesIO()
            figure.savefig(buffer, format=fmt, dpi=dpi,
                           metadata=_PNG_METADATA if fmt == "png" else _SVG_METADATA)
            target = stem.with_name(stem.name + "." + fmt)
            atomic_write(target, buffer.getvalue())
            written.append(target)
    return written


def draw_to(df: pd.DataFrame, folder: str | Path, *, kind: str, x: str, y: str | None = None,
            value: str = "a_win", by: str | None = None, name: str | None = None,
            suffix: str = "", note: str = "",
            formats: Iterable[str] = ("png", "svg")) -> list[Path]:
    """Draw one plot on a figure of its own (no pyplot state) and save it in ``folder``.

    The file is named after the plot (``heatmap-a_win-X-Y``) plus ``suffix``, or ``name``;
    ``note`` (e.g. the values the other axes are held at) is added under the title.
    """
    from matplotlib.figure import Figure

    if kind not in KINDS:
        raise SpecError(f"plot kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if kind != "curves" and y is None:
        raise SpecError(f"a {kind} needs both x and y")
    _need(df, x, y)
    shown = (y or value) if kind == "curves" else value
    _need(df, shown)
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    def number(column: str) -> bool:
        return is_numeric_dtype(df[column]) and not is_bool_dtype(df[column])

    if not number(shown):
        numeric = [c for c in df.columns if number(c)
                   and c not in (x, y) and not c.endswith(("_low", "_high"))]
        raise SpecError(f"cannot plot {shown!r}: it is not a number; plottable columns: "
                        + ", ".join(numeric))
    size = _grid_size(kind, df[x].nunique(), df[y].nunique() if y is not None else 1)
    figure = Figure(figsize=size, layout="constrained")
    ax = figure.subplots()
    if kind == "heatmap":
        assert y is not None
        heatmap(df, x=x, y=y, value=value, ax=ax)
        stem = f"heatmap-{value}-{x}-{y}"
    elif kind == "matchup":
        assert y is not None
        matchup(df, x=x, y=y, value=value, ax=ax)
        stem = f"matchup-{value}-{x}-{y}"
    else:
        curves(df, x=x, y=y or value, by=by, ax=ax)
        stem = f"curves-{y or value}-{x}" + (f"-by-{by}" if by else "")
    if note:
        ax.set_title(f"{ax.get_title()}\n{_wrap(note, 60, r'(?<=, )')}", fontsize="medium")
    from .sweep.store import bounded_name

    # Held values and names are user strings: keep the file name safe and within what any
    # file system takes (a long combatant name is cut and hashed, not a failed sweep).
    stem = bounded_name(re.sub(r"[^A-Za-z0-9_.=-]+", "_", name or stem + suffix))
    return save(figure, Path(folder) / stem, formats=formats)


def plot_run(run: str | Path, *, kind: str | None = None, x: str | None = None,
             y: str | None = None, value: str = "a_win", by: str | None = None,
             where: Sequence[str] = (), out: str | Path | None = None,
             formats: Iterable[str] = ("png", "svg")) -> list[Path]:
    """Draw a plot of a finished run into ``RUN/plots/`` (or ``out``); the paths written.

    Defaults come from the run's axes: with two or more, a heatmap with the second axis
    across and the first up; with one, curves over it.  ``where`` holds ``FIELD=VALUE``
    filters that pick one value of the other axes.
    """
    from .sweep import load_run

    table, path = load_run(run)
    axes = list(table.attrs.get("axes", []))
    for item in where:
        field, sep, text = item.partition("=")
        if not sep or field not in table.columns:
            raise SpecError(f"--where takes FIELD=VALUE with FIELD one of: {', '.join(axes)}; "
                            f"got {item!r}")
        keep = table[field].astype(str) == text
        if not keep.any():
            raise SpecError(f"--where {item!r} matches no row; {field} takes "
                            + ", ".join(map(_fmt, _levels(table[field]))))
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
        y = y or value
    elif y is None:
        others = [a for a in axes if a != x]
        if not others:
            raise SpecError(f"a {kind} needs two axes; give --y")
        y = others[0]
    from .sweep.store import check_folder

    folder = Path(out) if out is not None else path / "plots"
    check_folder(folder, "--out", " for the plots")
    suffix = "".join(f"-{item}" for item in where)
    return draw_to(table, folder, kind=kind, x=x, y=y, value=value, by=by, suffix=suffix,
                   note=", ".join(where), formats=formats)
