"""A round robin as plain text for the terminal (``balance matchups``): the verdict first,
then the matrices (percentages, strongest first) and the analyses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from .. import analysis
from ..analysis.verdict import Verdict
from ..labels import Labels, decimals_for, percent, rate_with_interval

__all__ = ["round_robin_lines", "verdict_lines", "wrap"]

FALLBACK_WIDTH = 100
"""Columns to wrap to when the width of the output cannot be found."""


def wrap(text: str, width: int | None = None, *, first: str = "", rest: str = "  ") -> str:
    """``text`` on lines at most ``width`` columns (default: the terminal's, ``COLUMNS``
    or :data:`FALLBACK_WIDTH`), the first line starting with ``first``, the others with
    ``rest``; broken only at spaces, so a name or a ``field=value`` is never split (a
    longer word overflows its line)."""
    import shutil
    import textwrap

    if width is None:
        width = shutil.get_terminal_size((FALLBACK_WIDTH, 24)).columns
    return textwrap.fill(text, width=max(width, 20), initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False)


def verdict_lines(made: Verdict, title: str = "Verdict") -> list[str]:
    """The verdict as an indented block: one sentence a bullet, then what it rests on."""
    lines = [f"{title}:"]
    lines += [wrap(s.text, first="  - ", rest="    ") for s in made.sentences]
    rests = made.rests_text()
    if rests:
        lines.append(wrap(rests, first="  ", rest="    "))
    return lines


def _matrix(table: pd.DataFrame, order: Sequence[str], cell: Any, labels: Labels,
            column: str) -> str:
    """A row-by-column matrix of ``cell(row)`` text, rows and columns in ``order``."""
    texts = table.assign(_cell=[cell(r) for r in table.itertuples()])
    grid = texts.pivot(index="a", columns="b", values="_cell").reindex(index=order,
                                                                      columns=order)
    shown = {e: labels.value(column, e) for e in order}
    grid = grid.rename(index=shown, columns=shown).fillna("")
    grid.index.name = grid.columns.name = None
    return grid.to_string()


def round_robin_lines(table: pd.DataFrame, made: Verdict, *, header: str,
                      labels: Labels | None = None, column: str = "a.0.preset",
                      resamples: int = 200, seed: int = 0, caveat: str | None = None,
                      rests_on: Sequence[str] = ()) -> list[str]:
    """The terminal report of a round robin (``table`` with entrant columns ``a``, ``b``):
    ``header``, the verdict, ``rests_on`` (the readings and policies in full), then the
    tables."""
    labels = labels or Labels()
    exact = bool((table["n"] == 0).all())
    rating = analysis.ratings(table)
    order = [str(e) for e in rating.index]

    def who(entrant: Any) -> str:
        return labels.value(column, entrant)

    out = [header, "", *verdict_lines(made), *rests_on]
    score, _ = analysis.score_matrix(table)
    score = score.reindex(index=order, columns=order)
    names = {e: who(e) for e in order}
    out += ["", "Expected score of the row against the column, both seats (a win 1, a draw "
                "1/2), strongest first:",
            score.map(lambda v: percent(v, 1)).rename(index=names, columns=names).to_string()]
    if exact:
        out += ["", "Row in seat A: A wins / draws / B wins (exact, %):",
                _matrix(table, order, lambda r: f"{100 * r.a_win:.1f}/{100 * r.draw:.1f}/"
                                                f"{100 * r.b_win:.1f}", labels, column)]
    else:
        out += ["", "Row in seat A: A's win rate [95% Wilson interval]:",
                _matrix(table, order, lambda r: rate_with_interval(r.a_win, r.a_win_low,
                                                                   r.a_win_high),
                        labels, column),
                "", "Draw rate, row in seat A:",
                _matrix(table, order, lambda r: percent(r.draw), labels, column)]
    if exact:
        out += ["", "Mean fight length in rounds, row in seat A (exact):",
                _matrix(table, order, lambda r: f"{r.mean_rounds:.2f}", labels, column)]
    else:
        out += ["", "Fight length in rounds, row in seat A: mean (10% / 50% / 90% quantiles):",
                _matrix(table, order, lambda r: f"{r.mean_rounds:.2f} ({r.rounds_q10:g}/"
                                                f"{r.rounds_q50:g}/{r.rounds_q90:g})",
                        labels, column)]
    if caveat:
        out.append(f"note: {caveat}")
    seat = analysis.seat_advantage(table)
    if len(seat):
        rows = []
        for entrant, r in seat.iterrows():
            d = decimals_for((r.advantage_high - r.advantage_low) / 2)
            text = (f"{100 * r.advantage:+.2f} points" if exact else
                    f"{100 * r.advantage:+.{d}f} [{100 * r.advantage_low:+.{d}f}, "
                    f"{100 * r.advantage_high:+.{d}f}] points")
            rows.append(f"  {who(entrant)}: {text}, draws {percent(r.draw)}")
        out += ["", "Seat advantage in mirror matches, A's win rate minus B's"
                + (" (exact):" if exact else " [95% interval]:"), *rows]
    field = analysis.field_scores(table).reindex(rating.index)
    if exact:
        out += ["", "Bradley-Terry ratings fitted to the exact score matrix (no interval"
                + ("" if rating.attrs["tiers"] == 1 else
                   "; tiers: an entrant of a better tier beats every one of a worse tier, "
                   "Elo is relative within a tier")
                + f"; largest misfit {percent(rating.attrs['max_misfit'])}), and the "
                "expected score against the field:"]
        out += [f"  {who(e)}: Elo {r.elo:.0f}" + (f", tier {r.tier}" if rating.attrs["tiers"] > 1
                                                 else "")
                + f", {percent(field.loc[e, 'score'])} against the field"
                for e, r in rating.iterrows()]
    else:
        out += ["", "Bradley-Terry ratings (Elo scale, 95% interval), and the expected score "
                    "against the field [95% interval]:"]
        out += [f"  {who(e)}: Elo {r.elo:.0f} [{r.elo_low:.0f}, {r.elo_high:.0f}], "
                + rate_with_interval(field.loc[e, "score"], field.loc[e, "score_low"],
                                     field.loc[e, "score_high"]) + " against the field"
                for e, r in rating.iterrows()]
    ups = analysis.upsets(table, rating)
    out += ["", "Upsets: the chance the lower-rated entrant wins, both seats "
            + ("counted alike (exact):" if exact else "pooled [95% Wilson interval]:")]
    out += [f"  {who(r.weaker)} over {who(r.stronger)}: "
            + rate_with_interval(r.upset, r.upset_low, r.upset_high, exact=exact)
            for r in ups.itertuples()]
    meta = analysis.metagame(table, resamples=resamples, seed=seed)
    played = meta[(meta["weight"] >= 0.005) | (meta["weight_high"] >= 0.005)]
    out += ["", ("Metagame equilibrium (exact, no resampling)" if exact else
                 f"Metagame equilibrium (90% bootstrap interval, {resamples} replicates)")
            + (f"; the other {len(meta) - len(played)} entrants get no weight:"
               if len(played) < len(meta) else ":")]
    out += [f"  {who(e)}: {percent(r.weight, 0)}" + ("" if exact else
                                                    f" [{100 * r.weight_low:.0f}, "
                                                    f"{100 * r.weight_high:.0f}]")
            for e, r in played.iterrows()]
    dom = analysis.dominated(table, resamples=resamples, seed=seed + 1)
    dom = dom[(dom["margin"] > 0) | (dom["dominated_share"] > 0)]
    out += ["", "Dominated by a mix of the others (the margin: points of expected score"
            + (", exact):" if exact else "; share of bootstrap replicates):")]
    out += [f"  {who(e)}: {100 * r.margin:.1f} points"
            + ("" if exact else f", in {percent(r.dominated_share, 0)} of replicates")
            for e, r in dom.iterrows()] or ["  none"]
    return out
