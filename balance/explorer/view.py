"""HTML for the explorer's answers: pure functions of an Answer or a Comparison.

The panel puts these strings in ipywidgets ``HTML`` widgets; they hold no scripts, only a
table, a stacked bar, an inline SVG histogram of fight lengths and the readings and policies
the numbers rest on.  Elements a test (or a browser) reads carry classes: ``a-win``,
``b-win``, ``draw``, ``method``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from ..outcomes import split_rows
from ..theme import OUTCOME_COLOURS
from .compute import Answer, Comparison, Difference

__all__ = ["answer_html", "best_html", "comparison_html", "error_html", "pct", "tuning_html",
           "working_html"]

COLOURS = OUTCOME_COLOURS
"""A's, B's and the draw's colours: the reports' (:mod:`balance.theme`)."""


def pct(x: float, digits: int = 2) -> str:
    """``0.0391`` -> ``"3.91%"``."""
    return f"{100 * x:.{digits}f}%"


def _esc(text: object) -> str:
    return html.escape(str(text))


def _method_line(a: Answer, refining: bool) -> str:
    """How the answer was reached.  An exact answer is final: the panel may still be
    simulating its fight lengths, which the histogram's note says, not this line."""
    if a.exact:
        solver = a.details.get("method") or a.details.get("play") or "exact solver"
        how = f"exact ({_esc(solver)})"
    else:
        how = (f"Monte Carlo: {a.n:,} fights, seed {a.question.seed}, "
               f"&plusmn;{100 * a.half_width:.2f} points (95%)")
    state = (" &middot; <i>refining&hellip;</i>" if refining and not a.exact else
             ' &middot; <span class="final">final</span>' if a.exact else "")
    return (f'<div class="method" style="color:#4a5568">{how}{state} &middot; '
            f"{1000 * a.elapsed_s:,.0f} ms</div>")


def _rates_table(a: Answer) -> str:
    digits = 3 if a.exact else 2
    rows = []
    for label, cls, rate, (low, high), colour in (
            ("A wins", "a-win", a.a_win, a.a_win_ci, COLOURS["A"]),
            ("B wins", "b-win", a.b_win, a.b_win_ci, COLOURS["B"]),
            ("draw", "draw", a.draw, a.draw_ci, COLOURS["draw"])):
        interval = ("exact" if a.exact else f"[{pct(low, digits)}, {pct(high, digits)}]")
        rows.append(f'<tr><td style="color:{colour};font-weight:bold">{label}</td>'
                    f'<td class="{cls}" style="text-align:right;font-size:1.2em">'
                    f"{pct(rate, digits)}</td><td style=\"color:#4a5568\">{interval}</td></tr>")
    rows.append(f"<tr><td>A's expected score</td><td class=\"score\" style=\"text-align:right\">"
                f"{pct(a.score, digits)}</td>"
                "<td style=\"color:#4a5568\">win 1, draw &frac12;</td></tr>")
    return '<table style="border-collapse:collapse" cellpadding="3">' + "".join(rows) + "</table>"


def _bar(a: Answer) -> str:
    parts = [(a.a_win, COLOURS["A"]), (a.draw, COLOURS["draw"]), (a.b_win, COLOURS["B"])]
    cells = "".join(f'<div style="width:{100 * share:.3f}%;background:{colour}"></div>'
                    for share, colour in parts if share > 0)
    return ('<div style="display:flex;height:14px;width:100%;max-width:420px;'
            f'margin:6px 0;border-radius:3px;overflow:hidden">{cells}</div>')


def lengths_svg(rounds: np.ndarray, *, width: int = 420, height: int = 120) -> str:
    """An inline SVG bar chart of a fight-length histogram with its axes: rounds along the
    bottom, the share of fights up the left (the last bar holds the tail beyond the 99th
    percentile)."""
    counts = np.asarray(rounds, dtype=float)
    total = counts.sum()
    if total == 0:
        return ""
    cdf = np.cumsum(counts) / total
    last = int(np.searchsorted(cdf, 0.99)) + 1
    shown = counts[: last + 1].copy()
    tail = counts[last + 1:].sum()
    shown[-1] += tail
    first = int(np.flatnonzero(shown)[0]) if shown.any() else 0
    shown = shown[first:]
    left, bottom, top_pad = 40, 32, 6  # room for the axes' numbers and titles
    plot_w, plot_h = width - left, height - bottom - top_pad
    bar_w = plot_w / len(shown)
    top = shown.max()
    grey = 'fill="#4a5568"'
    bars = []
    for i, c in enumerate(shown):
        h = plot_h * c / top
        label = f"{first + i}{'+' if tail and i == len(shown) - 1 else ''} rounds: {c / total:.1%}"
        bars.append(f'<rect x="{left + i * bar_w:.2f}" y="{top_pad + plot_h - h:.2f}" '
                    f'width="{max(bar_w - 1, 0.5):.2f}" height="{h:.2f}" {grey}>'
                    f"<title>{label}</title></rect>")
    base = top_pad + plot_h
    ticks = sorted({0, len(shown) - 1, (len(shown) - 1) // 2})
    x_labels = "".join(f'<text x="{left + (i + 0.5) * bar_w:.1f}" y="{base + 13}" '
                       f'font-size="11" text-anchor="middle" {grey}>{first + i}'
                       f'{"+" if tail and i == len(shown) - 1 else ""}</text>' for i in ticks)
    y_labels = "".join(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="11" '
                       f'text-anchor="end" {grey}>{text}</text>'
                       for y, text in ((base, "0%"), (top_pad + 4, f"{top / total:.0%}")))
    axes = (f'<line x1="{left}" y1="{top_pad}" x2="{left}" y2="{base}" stroke="#4a5568"/>'
            f'<line x1="{left}" y1="{base}" x2="{width}" y2="{base}" stroke="#4a5568"/>'
            f'<text x="{left + plot_w / 2:.1f}" y="{height - 3}" font-size="11" '
            f'text-anchor="middle" {grey}>rounds</text>'
            f'<text x="11" y="{top_pad + plot_h / 2:.1f}" font-size="11" text-anchor="middle" '
            f'transform="rotate(-90 11 {top_pad + plot_h / 2:.1f})" {grey}>fights</text>')
    return (f'<svg class="lengths" width="{width}" height="{height}" role="img" '
            f'aria-label="fight length distribution">{axes}{"".join(bars)}{x_labels}'
            f"{y_labels}</svg>")


def _quantile(rounds: np.ndarray, q: float) -> int:
    cdf = np.cumsum(rounds)
    return int(np.searchsorted(cdf, q * cdf[-1]))


def _lengths(a: Answer, refining: bool = False) -> str:
    mean = "" if np.isnan(a.mean_rounds) else f"mean {a.mean_rounds:.2f} rounds"
    if a.exact and mean:
        mean += " (exact)"
    parts = [mean]
    if a.n and np.sum(a.rounds):
        parts.append(f"median {_quantile(a.rounds, 0.5)}, 90% within "
                     f"{_quantile(a.rounds, 0.9)}")
    head = ", ".join(p for p in parts if p)
    note = f" &middot; {_esc(a.lengths_note)}" if a.lengths_note else ""
    if refining and a.exact and a.n:
        note += " (more being simulated)"
    ended = ", ".join(f"{_esc(c)} {pct(s, 1)}" for c, s in a.causes.items() if s)
    svg = lengths_svg(a.rounds) if a.n else ""
    return (f"<div><b>Fight length</b>: {head}{note}</div>{svg}"
            + (f'<div style="color:#4a5568">ended by {ended}</div>' if ended else ""))


def _rests_on(a: Answer) -> str:
    out = []
    if a.policies:
        out.append(f"<details><summary>plays {len(a.policies)} policies</summary><ul>"
                   + "".join(f"<li><code>{_esc(p)}</code></li>" for p in a.policies)
                   + "</ul></details>")
    readings, rows = split_rows(a.assumptions)
    out.append(f"<details><summary>rests on {len(readings)} DEFAULT / AMBIG "
               "readings</summary><ul>"
               + "".join(f"<li><code>{_esc(r)}</code></li>" for r in readings)
               + "</ul></details>")
    if rows:
        out.append(f"<details><summary>rests on {len(rows)} written modifier/effect "
                   f"row{'s' if len(rows) != 1 else ''}</summary><ul>"
                   + "".join(f"<li><code>{_esc(r)}</code></li>" for r in rows)
                   + "</ul></details>")
    if a.why_not_exact:
        out.append(f'<div style="color:#4a5568;font-size:0.9em">not exact: '
                   f"{_esc(a.why_not_exact)}</div>")
    return "".join(out)


def answer_html(a: Answer, *, refining: bool = False) -> str:
    """The whole answer to one question."""
    return (f'<div class="balance-answer"><div><b>{_esc(a.question.describe())}</b> '
            f"({_esc(a.question.ruleset)})</div>{_method_line(a, refining)}"
            f"{_rates_table(a)}{_bar(a)}{_lengths(a, refining)}{_rests_on(a)}</div>")


def _difference_row(d: Difference, exact: bool) -> str:
    if exact:
        interval = "exact"
    else:
        interval = (f"[{100 * d.low:+.2f}, {100 * d.high:+.2f}] points; "
                    f"&plusmn;{100 * d.independent_half_width:.2f} without common random "
                    "numbers")
    return (f"<tr><td>{_esc(d.name)}</td><td class=\"diff\" style=\"text-align:right\">"
            f"{100 * d.value:+.2f} points</td><td style=\"color:#4a5568\">{interval}</td></tr>")


def comparison_html(c: Comparison, *, refining: bool = False) -> str:
    """Baseline and variant side by side, with the differences and their intervals."""
    exact = c.method == "exact"
    how = ("both exact" if exact else
           f"common random numbers: {c.baseline.n:,} fights each on the same streams "
           f"(seed {c.baseline.question.seed})")
    state = " &middot; <i>refining&hellip;</i>" if refining and not exact else ""
    diffs = "".join(_difference_row(d, exact) for d in c.differences)
    sides = "".join(f'<div style="flex:1;min-width:280px"><div><b>{label}</b></div>'
                    f"{answer_html(a)}</div>"
                    for label, a in (("baseline", c.baseline), ("variant", c.variant)))
    return (f'<div class="balance-comparison"><div><b>Variant minus baseline</b> '
            f'<span class="method" style="color:#4a5568">({how}){state}</span></div>'
            f'<table style="border-collapse:collapse" cellpadding="3">{diffs}</table>'
            f'<div style="display:flex;gap:16px;flex-wrap:wrap;margin-top:8px">{sides}</div>'
            "</div>")


def error_html(message: str) -> str:
    return (f'<div class="balance-error" style="color:#c53030"><b>cannot answer:</b> '
            f"{_esc(message)}</div>")


def narration_html(title: str, lines: Sequence[str]) -> str:
    return (f"<div><b>{_esc(title)}</b></div><pre style=\"max-height:360px;overflow:auto;"
            f"font-size:0.85em\">{_esc(chr(10).join(lines))}</pre>")


# --- best play and "make it even" ------------------------------------------------------------


def _policy_list(mix: Sequence[tuple[str, float]]) -> str:
    """A side's equilibrium: one policy, or a mix of them with their weights."""
    if len(mix) == 1:
        return f"<code>{_esc(mix[0][0])}</code>"
    return ("a mix:<ul style=\"margin:2px 0\">"
            + "".join(f"<li>{pct(w, 0)}: <code>{_esc(text)}</code></li>" for text, w in mix)
            + "</ul>")


def best_html(bp: object) -> str:
    """Best play (a :class:`~balance.analysis.bestplay.BestPlay`): the value with its
    interval, the rates, what best play changes, and each side's chosen policy."""
    from ..analysis.bestplay import BestPlay

    assert isinstance(bp, BestPlay)
    digits = 2 if bp.exact else 1
    if bp.exact:
        how = {"exact": "exact: every decision taken state by state by the solver",
               "exact-profiles": "exact: the matrix game over the policy profiles"}[bp.method]
        value = f'<span class="best-value">{pct(bp.value, digits)}</span> (exact)'
    else:
        low, high = bp.value_ci
        how = (f"Monte Carlo: {bp.n:,} fights a profile pair, {bp.fights:,} in all, seed "
               f"{bp.meta.get('seed')}, {len(bp.searched)} policies searched")
        value = (f'<span class="best-value">{pct(bp.value, digits)}</span> '
                 f"[{pct(low, digits)}, {pct(high, digits)}] (95%)")
    change = ""
    if bp.default_value is not None:
        moved = 100 * (bp.value - bp.default_value)
        change = (f"<div>with the policies as given: {pct(bp.default_value, digits)}; best "
                  f"play moves A's expected score {moved:+.{digits}f} points</div>")
    rates = " &middot; ".join(
        f'<span style="color:{COLOURS[side]}">{label} {pct(rate, digits)}</span>'
        for label, side, rate in (("A wins", "A", bp.a_win), ("B wins", "B", bp.b_win),
                                  ("draw", "draw", bp.draw)))
    elapsed = float(bp.meta.get("elapsed_s", 0.0))
    return (f'<div class="balance-best"><div><b>Best play</b>: A\'s expected score {value}'
            f'</div><div class="method">{_esc(how)} &middot; {elapsed:,.1f} s</div>'
            f"<div>{rates}</div>{change}"
            f'<div class="policy-a"><b style="color:{COLOURS["A"]}">A plays</b> '
            f"{_policy_list(bp.policy_a)}</div>"
            f'<div class="policy-b"><b style="color:{COLOURS["B"]}">B plays</b> '
            f"{_policy_list(bp.policy_b)}</div>{_strategy(bp.strategy)}</div>")


STRATEGY_ROWS = 60
"""Most states of a state-by-state strategy the panel lists."""


def _strategy(table: object) -> str:
    """A solver's state-by-state strategy as a table in a closed section (its first
    :data:`STRATEGY_ROWS` states)."""
    if table is None:
        return ""
    import pandas as pd

    assert isinstance(table, pd.DataFrame)
    shown = table.head(STRATEGY_ROWS)
    more = (f" (the first {STRATEGY_ROWS})" if len(table) > STRATEGY_ROWS else "")
    body = shown.to_html(index=False, border=0, float_format=lambda v: f"{v:.3f}",
                         classes="strategy")
    return (f'<details><summary>the strategy, state by state: {len(table):,} states{more}'
            f'</summary><div style="max-height:260px;overflow:auto">{body}</div></details>')


def tuning_html(t: object, *, stale: bool = False) -> str:
    """"Make it even" (a :class:`~balance.analysis.tune.Tuning`): the sentence, the whole
    values that bracket even with their rates, and how it was found (``stale``: of the
    question before the last change, greyed and saying so)."""
    from ..analysis.tune import Tuning

    assert isinstance(t, Tuning)
    rows = ""
    if t.bracket is not None:
        lo, hi = t.bracket
        points = [lo] if lo.value == hi.value else [lo, hi]
        rows = ('<table class="bracket" style="border-collapse:collapse" cellpadding="3">'
                f"<tr><th>{_esc(t.knob.label or t.knob.path)}</th><th>{_esc(t.what)}</th></tr>"
                + "".join(f'<tr><td style="text-align:right">{_esc(t.knob.fmt(p.value))}</td>'
                          f"<td>{_esc(p.text())}</td></tr>" for p in points)
                + "</table>")
    elif t.best is not None:
        rows = (f"<div>closest: {_esc(t.knob.fmt(t.best.value))} gives "
                f"{_esc(t.best.text())}</div>")
    around = t.around()
    note = ('<div class="stale"><i>for the question before your last change: click '
            "<b>make it even</b> again</i></div>" if stale else "")
    style = ' style="opacity:0.55"' if stale else ""
    return (f'<div class="balance-even"{style}>{note}<div class="even-sentence">'
            f"{_esc(t.sentence())}</div>{rows}"
            + (f"<div>{_esc(around)}</div>" if around and t.bracket else "")
            + f'<div class="method">{_esc(t.how())} &middot; {t.elapsed_s:,.1f} s</div></div>')


def working_html(what: str, detail: str = "") -> str:
    """A search in progress: what runs, and how far it has got."""
    more = f" &middot; {_esc(detail)}" if detail else ""
    return (f'<div class="balance-working"><span class="spinner"></span> '
            f"<i>{_esc(what)}&hellip;</i>{more}</div>")
