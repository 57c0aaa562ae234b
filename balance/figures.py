"""Figures as files: the same figure gives the same bytes.

:mod:`balance.plots` draws; this module writes what it draws.

* :func:`figure_bytes` -- a figure encoded as PNG and / or SVG, deterministically: PNG
  without a Software stamp, SVG without date or creator and with a fixed hash salt for its
  element ids;
* :func:`save` -- those bytes written atomically as ``path.png``, ``path.svg``;
* :func:`draw_to` -- one plot (:func:`balance.plots.draw`) saved in a folder under a name
  made from the plot (``heatmap-a_win-X-Y``), bounded in length whatever the user strings.

Matplotlib is imported inside the functions, never by ``import balance``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import SpecError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["draw_to", "figure_bytes", "save"]

_DETERMINISTIC_RC: Any = {"svg.hashsalt": "balance", "svg.fonttype": "path"}
_PNG_METADATA = {"Software": None}
_SVG_METADATA = {"Date": None, "Creator": None}


def _figure(fig_or_ax: Figure | Axes) -> Figure:
    figure = getattr(fig_or_ax, "figure", None)
    return fig_or_ax if figure is None or figure is fig_or_ax else figure  # type: ignore[return-value]


def save(fig_or_ax: Figure | Axes, path: str | Path, *,
         formats: Iterable[str] = ("png", "svg"), dpi: int = 150) -> list[Path]:
    """Write a figure as ``path`` with each suffix in ``formats``; the paths written.

    The bytes depend only on the figure (:func:`figure_bytes`).  Each file is written
    atomically.
    """
    from .files import atomic_write

    figure = _figure(fig_or_ax)
    stem = Path(path)
    if stem.suffix.lower() in (".png", ".svg"):
        stem = stem.with_suffix("")
    formats = list(formats)
    for fmt in formats:
        if fmt not in ("png", "svg"):
            raise SpecError(f"figure format must be png or svg, got {fmt!r}")
    written = []
    for fmt, data in zip(formats, figure_bytes(figure, formats, dpi=dpi), strict=True):
        target = stem.with_name(stem.name + "." + fmt)
        atomic_write(target, data)
        written.append(target)
    return written


def figure_bytes(figure: Figure, formats: Iterable[str], *, dpi: int = 150) -> list[bytes]:
    """The figure encoded in each format, deterministically (see :func:`save`).

    The layout engine (constrained layout) runs for the first format only: the second
    reuses its positions, which halves the cost of a figure with many labels."""
    import matplotlib

    engine = figure.get_layout_engine()
    out = []
    try:
        with matplotlib.rc_context(_DETERMINISTIC_RC):
            for i, fmt in enumerate(formats):
                buffer = io.BytesIO()
                figure.savefig(buffer, format=fmt, dpi=dpi,
                               metadata=_PNG_METADATA if fmt == "png" else _SVG_METADATA)
                out.append(buffer.getvalue())
                if i == 0 and engine is not None:
                    figure.set_layout_engine("none")
    finally:
        if engine is not None:
            figure.set_layout_engine(engine)
    return out


def draw_to(df: pd.DataFrame, folder: str | Path, *, kind: str, x: str, y: str | None = None,
            value: str | None = None, by: str | None = None, name: str | None = None,
            suffix: str = "", note: str = "",
            formats: Iterable[str] = ("png", "svg")) -> list[Path]:
    """Draw one plot (:func:`balance.plots.draw`) and save it in ``folder``.

    The file is named after the plot (``heatmap-a_win-X-Y``) plus ``suffix``, or ``name``.
    """
    from .files import bounded_name
    from .plots import default_value, draw

    figure = draw(df, kind=kind, x=x, y=y, value=value, by=by, note=note)
    value = value or default_value(kind)
    if kind == "curves":
        stem = f"curves-{y or value}-{x}" + (f"-by-{by}" if by else "")
    else:
        stem = f"{kind}-{value}-{x}-{y}"
    # Held values and names are user strings: keep the file name safe and within what any
    # file system takes (a long combatant name is cut and hashed, not a failed sweep).
    stem = bounded_name(re.sub(r"[^A-Za-z0-9_.=-]+", "_", name or stem + suffix))
    return save(figure, Path(folder) / stem, formats=formats)
