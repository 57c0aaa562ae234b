"""One house style (issue 25): the explorer draws A, B and a draw in the reports' colours,
shared from balance.theme, not copied; the colours are the points of the reports' colour
maps that balance.theme says they are."""

from __future__ import annotations

import importlib

import pytest

from balance import plots, theme

render = importlib.import_module("balance.report.render")  # the package exports a function of that name


def test_the_explorer_and_the_reports_share_one_set_of_colours_and_one_font():
    pytest.importorskip("ipywidgets")
    from balance.explorer import panel, view

    assert view.COLOURS is theme.OUTCOME_COLOURS
    assert theme.FONT in panel.THEME_CSS and theme.FONT in render.CSS
    assert plots._colour("a_win", None)["cmap"] == theme.DIVERGING
    assert plots.SEQUENTIAL["draw"] == theme.DRAWS
    # the matrix's cells run from B's colour through white to A's
    assert panel._diverging(1.0) == theme.OUTCOME_COLOURS["A"]
    assert panel._diverging(0.0) == theme.OUTCOME_COLOURS["B"]
    assert panel._diverging(0.5) == "#ffffff"


def test_each_outcome_colour_lies_on_the_reports_colour_map():
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.colors import to_rgb

    for outcome, (name, at) in theme.OUTCOME_POSITIONS.items():
        drawn = matplotlib.colormaps[name](at)[:3]
        ours = to_rgb(theme.OUTCOME_COLOURS[outcome])
        # the map's 256 steps between ColorBrewer's listed colours: within 2 of 255
        assert max(abs(x - y) for x, y in zip(drawn, ours, strict=True)) <= 2 / 255
    # A's end is the blue (high) end of the diverging map, B's the red one
    assert theme.OUTCOME_POSITIONS["A"][1] > 0.5 > theme.OUTCOME_POSITIONS["B"][1]
