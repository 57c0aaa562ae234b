"""The house style every output of balance shares: the colours of A, B and a draw, the
colour map of rates whose even point is 50%, and the font of pages.

The reports' figures (:mod:`balance.plots`) draw rates and scores on :data:`DIVERGING`
(A's side blue, B's red) and draw rates on :data:`DRAWS`; :data:`OUTCOME_COLOURS` are
points of those same maps, so the explorer's bars and labels (:mod:`balance.explorer.view`)
and a report's heatmaps agree on which colour is whose.  No imports: any module may use it.
"""

from __future__ import annotations

__all__ = ["DIVERGING", "DRAWS", "FONT", "OUTCOME_COLOURS", "OUTCOME_POSITIONS"]

DIVERGING = "RdBu"
"""Matplotlib's (ColorBrewer's) red-blue map: 0 is B's side, 1 A's, white at 50%."""
DRAWS = "Purples"
"""The sequential map of draw rates."""
OUTCOME_POSITIONS = {"A": (DIVERGING, 0.9), "B": (DIVERGING, 0.1), "draw": (DRAWS, 0.625)}
"""Where on its map each outcome's colour lies (ColorBrewer's listed colours sit at these
points: RdBu's 10th and 2nd of 11, Purples' 6th of 9)."""
OUTCOME_COLOURS = {"A": "#2166ac", "B": "#b2182b", "draw": "#807dba"}
"""A winning, B winning, a draw: the colours at :data:`OUTCOME_POSITIONS`."""
FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif'
"""The font of the reports' pages and of the explorer."""
