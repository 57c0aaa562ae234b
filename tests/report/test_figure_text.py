"""Figures read on a report page: every text at least 10 px on a 1280-wide screen, and axis
titles in words.

A report page shows a figure at most :data:`balance.plots.PAGE_PX` wide (its column on a
1280-wide screen); a wider PNG is shrunk to it, its text with it.  The size a reader sees is
read from the saved PNG's width and each text's font size.
"""

from __future__ import annotations

import io
import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest
from PIL import Image

matplotlib.use("Agg")

from matplotlib.text import Text

from balance import plots
from balance.figures import figure_bytes
from balance.labels import Labels

DPI = 150
MIN_PX = 10.0


def _shown_px(figure: object) -> tuple[int, list[tuple[str, float]]]:
    """The saved PNG's width, and each visible text with its size in CSS px on the page."""
    (png,) = figure_bytes(figure, ["png"], dpi=DPI)  # type: ignore[arg-type]
    width = Image.open(io.BytesIO(png)).size[0]
    scale = min(1.0, plots.PAGE_PX / width)
    texts = [(t.get_text(), t.get_fontsize() * DPI / 72 * scale)
             for t in figure.findobj(Text)  # type: ignore[attr-defined]
             if t.get_visible() and t.get_text().strip()]
    return width, texts


def _grid(x: str, xs: list[object], y: str, ys: list[object]) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    cells = list(itertools.product(xs, ys))
    rates = rng.uniform(0.02, 0.97, len(cells))
    rows = [{x: a, y: b, "a_win": w, "a_win_low": w - 0.01, "a_win_high": w + 0.01,
             "draw": 0.0, "b_win": 1 - w} for (a, b), w in zip(cells, rates, strict=True)]
    return pd.DataFrame(rows)


CRT_LIKE = _grid("a.0.combats", list(range(0, 42, 2)), "a.0.skill", [0, 1, 2, 3])
"""The shape of crt-skill-vs-experience's heatmap (21 x 4: once drawn 2100 x 699 px)."""
STYLES = [f"style {i}" for i in range(19)]
ROUND_ROBIN = _grid("b.0.preset", STYLES, "a.0.preset", STYLES)


@pytest.mark.parametrize(("kind", "table", "x", "y"), [
    ("heatmap", CRT_LIKE, "a.0.combats", "a.0.skill"),
    ("matchup", ROUND_ROBIN, "b.0.preset", "a.0.preset"),
    ("curves", CRT_LIKE, "a.0.combats", None),
])
def test_every_text_is_at_least_10_px_on_the_page(kind: str, table: pd.DataFrame, x: str,
                                                  y: str | None) -> None:
    by = {"by": "a.0.skill"} if kind == "curves" else {}
    figure = plots.draw(table, kind=kind, x=x, y=y, **by)
    width, texts = _shown_px(figure)
    assert width <= plots.MAX_WIDTH_IN * DPI
    small = [(text, round(px, 1)) for text, px in texts if px < MIN_PX]
    assert texts and not small


def test_the_crt_heatmap_is_no_longer_shrunk_to_8_px_ticks() -> None:
    figure = plots.draw(CRT_LIKE, kind="heatmap", x="a.0.combats", y="a.0.skill")
    width, texts = _shown_px(figure)
    ax = figure.axes[0]
    ticks = {t.get_text() for t in ax.get_xticklabels()}
    tick_px = [px for text, px in texts if text in ticks]
    assert width < 2100 and min(tick_px) >= 12.0  # 10 pt on a 1350 px PNG shown at 980 px


def test_intervals_text_is_readable() -> None:
    rows = CRT_LIKE.head(30).assign(label=[f"cell {i}" for i in range(30)])
    ax = plots.intervals(rows, label="label")
    _, texts = _shown_px(ax.figure)
    assert not [t for t, px in texts if px < MIN_PX]


def test_axis_titles_are_in_words() -> None:
    heat = plots.draw(CRT_LIKE, kind="heatmap", x="a.0.combats", y="a.0.skill").axes[0]
    assert heat.get_xlabel() == "A's combats" and heat.get_ylabel() == "A's skill"
    grid = plots.draw(ROUND_ROBIN, kind="matchup", x="b.0.preset", y="a.0.preset").axes[0]
    assert grid.get_xlabel() == "B's combatant (column)"
    assert grid.get_ylabel() == "A's combatant (row)"
    assert "side" not in grid.get_title()


@pytest.mark.parametrize(("column", "title"), [
    ("a", "A's side"), ("b.0.preset", "B's combatant"), ("a.1.skill", "A's 2nd member's skill"),
    ("a.*.policy", "A's policy (every member)"), ("rules.map", "rule: map"),
    ("a_win", "A wins")])
def test_axis_title(column: str, title: str) -> None:
    assert Labels().axis(column) == title


def test_a_spec_label_wins() -> None:
    assert Labels(columns={"a.0.preset": "A's style"}).axis("a.0.preset") == "A's style"


def test_a_field_doc_names_the_axis() -> None:
    labels = Labels(docs={"combats": "combats survived (experience)"})
    assert labels.axis("a.0.combats") == "A's combats survived"


def test_a_doc_lead_written_as_code_is_no_label() -> None:
    from balance.labels import field_label

    doc = "armour_mode=roll_reduction: wound-roll points each AI removes"
    assert field_label("armour_roll_per_ai", doc) == "armour roll per ai"
    assert field_label("fixed_health", "starting health under health=fixed") == "fixed health"
