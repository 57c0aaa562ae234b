"""What a playtest report says, assembled from a run: the question, the rules and the
readings they rest on, figures, tables with intervals, ratings, and how to reproduce it."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import analysis
from ..analysis.verdict import Verdict
from ..fields import describe_fields
from ..labels import Labels, decimals_for, percent, rate_with_interval
from ..outcomes import split_rows

__all__ = ["VERDICT", "Block", "Figure", "Paragraph", "Report", "Section", "Table",
           "build", "question_from_spec", "run_verdict", "spec_figures"]


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "text"  # "text", "note" (a flagged caveat), "code", "verdict", "rests"


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    caption: str = ""
    collapsed: bool = False  # long tables fold away in HTML


@dataclass(frozen=True)
class Figure:
    name: str  # file stem
    png: bytes
    svg: bytes  # b"" unless asked for (``build(..., svg=True)``)
    caption: str


Block = Paragraph | Table | Figure


@dataclass(frozen=True)
class Section:
    title: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Report:
    title: str
    subtitle: str
    sections: tuple[Section, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)


RATE_LABELS = {"a_win": "A wins", "b_win": "B wins", "draw": "draws"}


def _interval_text(frame: pd.DataFrame, rate: str) -> list[str]:
    return [rate_with_interval(v, lo, hi) for v, lo, hi in
            zip(frame[rate], frame[f"{rate}_low"], frame[f"{rate}_high"], strict=True)]


def signed_points(value: float, half: float = 0.0, *, exact: bool = False) -> str:
    """A change of a rate in percentage points, ``+12.13 ± 0.02 points``: as many decimals
    as the 95% half-width ``half`` supports (at most two), the half-width never shown as
    0 (at least one unit of the last decimal); exact: two decimals, no interval."""
    if exact:
        return f"{100 * value:+.2f} points"
    digits = decimals_for(half, most=2)
    unit = 10.0 ** -digits
    return f"{100 * value:+.{digits}f} ± {max(100 * half, unit):.{digits}f} points"


def is_exact(results: pd.DataFrame, meta: Mapping[str, Any] | None = None) -> bool:
    """Whether a run's numbers are exact answers (``[run] method = "exact"``), not samples."""
    if meta is not None and meta.get("method") is not None:
        return meta.get("method") == "exact"
    return "method" in results.columns and bool((results["method"] == "exact").all())


def is_best(results: pd.DataFrame, meta: Mapping[str, Any] | None = None) -> bool:
    """Whether a run played every cell under best play (``[run] play = "best"``)."""
    if meta is not None and meta.get("play") is not None:
        return meta.get("play") == "best"
    return "play" in results.columns and bool((results["play"] == "best").all())


def best_results_table(results: pd.DataFrame, axes: Sequence[str], *,
                       exact: bool = False) -> pd.DataFrame:
    """The cells of a best-play run: the value (with its interval), the value with the
    policies as given, and each side's equilibrium policy."""
    out = results[list(axes)].copy() if axes else pd.DataFrame(index=results.index)
    out["value"] = (results["value"].map(lambda v: f"{v:.4f}") if exact
                    else _interval_text(results, "value"))
    out["as given"] = results["default_value"].map(lambda v: f"{v:.4f}")
    out["A plays"] = results["policy_a"]
    out["B plays"] = results["policy_b"]
    if not exact:
        out["profiles A/B"] = [f"{a}/{b}" for a, b in zip(results["profiles_a"],
                                                           results["profiles_b"], strict=True)]
        out["fights"] = results["fights"]
    return out.reset_index(drop=True)


def results_table(results: pd.DataFrame, axes: Sequence[str], *, exact: bool = False,
                  labels: Labels | None = None) -> pd.DataFrame:
    """The cells with each rate as a percentage with its interval, ``53.2% [52.8, 53.6]``
    rounded to what the interval supports (exact runs: the value alone) and the fight-length
    summary (exact runs: the solver's state count and time); axes and values labelled."""
    labels = labels or Labels()
    out = (labels.frame(results[list(axes)], axes) if axes
           else pd.DataFrame(index=results.index))
    for rate, label in RATE_LABELS.items():
        if rate in results:
            out[label] = (results[rate].map(lambda v: percent(v, 2)) if exact
                          else _interval_text(results, rate))
    columns = ((("mean_rounds", "mean rounds"), ("states", "states"), ("solve_ms", "solve ms"))
               if exact else
               (("mean_rounds", "mean rounds"), ("rounds_q50", "median rounds"), ("n", "fights")))
    for col, label in columns:
        if col not in results:
            continue
        if col in ("mean_rounds", "solve_ms"):
            out[label] = [("" if pd.isna(v) else f"{v:.2f}") for v in results[col]]
        elif col == "states" and pd.api.types.is_float_dtype(results[col]):
            out[label] = results[col].astype("Int64")  # a count, missing where not solved
        elif col == "rounds_q50":
            out[label] = [("" if pd.isna(v) else f"{v:g}") for v in results[col]]
        else:
            out[label] = results[col]
    return out.reset_index(drop=True)


def _figure(draw: Any, name: str, caption: str, svg: bool = False) -> Figure:
    """Draw with matplotlib (Agg) into PNG bytes (and SVG bytes if asked), deterministically."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "balance"
    ax = draw()
    fig = ax.figure
    png, vector = io.BytesIO(), io.BytesIO()
    fig.savefig(png, format="png", dpi=110, metadata={"Software": None})
    if svg:
        fig.savefig(vector, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return Figure(name, png.getvalue(), vector.getvalue(), caption)


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and series.nunique() > 1


def _assumption_rows(ruleset: Any, rules: Mapping[str, Any], flagged: Sequence[str],
                     swept: Mapping[str, Sequence[Any]] | None = None) -> pd.DataFrame:
    """One row per flagged reading; a swept rule parameter shows its swept values (the
    flagged value is only the first cell's)."""
    docs = {f.name: f for f in describe_fields(ruleset.Rules)}
    swept = swept or {}
    rows = []
    for item in flagged:
        name, _, rest = item.partition("=")
        value, _, tag = rest.rpartition(" [")
        if name in swept:
            value = "swept: " + ", ".join(str(v) for v in swept[name])
        info = docs.get(name)
        rows.append({"parameter": name, "value": value, "tag": tag.rstrip("]"),
                     "overridden": name in rules or name in swept,
                     "meaning": info.doc if info else ""})
    return pd.DataFrame(rows)


def _rule_policies(ruleset: Any, disclosed: Sequence[str]) -> list[str]:
    """The rule-scope policies among a run's disclosures (one setting for everyone)."""
    names = {p.name for p in ruleset.policy_space() if p.scope == "rules"}
    return [d for d in disclosed if d.split("=", 1)[0].split(":", 1)[0] in names]


def _policy_rows(ruleset: Any, disclosed: Sequence[str], best: bool) -> pd.DataFrame:
    """One row per policy disclosure of a run (best play: the rule-scope ones, and a row
    saying the combatant ones were chosen by best play, cell by cell)."""
    docs = {p.name: p for p in ruleset.policy_space()}
    rows = []
    for item in (_rule_policies(ruleset, disclosed) if best else disclosed):
        name = item.split("=", 1)[0].split(":", 1)[0]
        policy = docs.get(name)
        rows.append({"policy": item, "who decides": policy.scope if policy else "",
                     "meaning": policy.doc if policy else ""})
    if best:
        searched = [p.name for p in ruleset.policy_space() if p.scope == "combatant"]
        rows.append({"policy": ", ".join(searched),
                     "who decides": "best play (each side, each cell)",
                     "meaning": "chosen as a zero-sum game; each cell names the equilibrium "
                                "(Results: A plays, B plays)"})
    return pd.DataFrame(rows)


def _sides_table(spec: Mapping[str, Any]) -> pd.DataFrame:
    rows = []
    for label in ("a", "b"):
        members = spec.get(label, []) or []
        for i, member in enumerate([members] if isinstance(members, str | Mapping) else members):
            fields = (member if isinstance(member, str)
                      else ", ".join(f"{k}={v}" for k, v in member.items()))
            rows.append({"side": label.upper(), "slot": i, "combatant": fields or "(defaults)"})
    return pd.DataFrame(rows)


def _round_robin_axes(results: pd.DataFrame, axes: Sequence[str]
                      ) -> tuple[str, str, list[str]] | None:
    from ..analysis.verdict import round_robin_axes

    return round_robin_axes(results, axes)


EQUILIBRIUM_CAVEAT = (
    "Fight lengths and draw rates of an exact {name} run are those of the optimal strategy "
    "the solver happened to pick: the game's value is unique, but other optimal strategies "
    "can give other fight lengths and another split between wins and draws.")


def _equilibrium_caveat(ruleset: Any, exact: bool) -> Paragraph | None:
    """The caveat on fight lengths and draws of an exact run solved as a game (a ruleset
    whose exact answer is an equilibrium strategy, e.g. pool), else ``None``."""
    if exact and getattr(ruleset, "has_strategy", False):
        return Paragraph(EQUILIBRIUM_CAVEAT.format(name=ruleset.name), kind="note")
    return None


METAGAME_SHOWN = 0.005
"""Metagame rows shown: an entrant with an equilibrium weight (or its interval's upper end)
of at least 0.5%; the others are counted in one sentence."""


def _interval_cells(values: Any, lows: Any, highs: Any, *, exact: bool) -> list[str]:
    return [percent(v, 1 if exact else decimals_for((h - lo) / 2, most=1)) if exact or h <= lo
            else rate_with_interval(v, lo, h) for v, lo, h in zip(values, lows, highs, strict=True)]


def _elo_cells(rating: pd.DataFrame) -> list[str]:
    return [f"{e:.0f} [{lo:.0f}, {hi:.0f}]" for e, lo, hi in
            zip(rating["elo"], rating["elo_low"], rating["elo_high"], strict=True)]


def score_figure(table: pd.DataFrame, order: Sequence[str], labels: Labels, name: str,
                 caption: str, value: str = "score", column: str = "a.0.preset",
                 svg: bool = False) -> Figure:
    """The matchup matrix of a round robin (``table`` with entrant columns ``a``, ``b``),
    both seats averaged, rows and columns in ``order`` (strongest first)."""
    from .. import plots

    score, _ = analysis.score_matrix(table)
    if value == "draw":
        pooled = table.assign(pair=[tuple(sorted((a, b))) for a, b in zip(
            table["a"], table["b"], strict=True)])
        mean = pooled.groupby("pair")["draw"].mean()
        matrix = pd.DataFrame(
            [[mean.get(tuple(sorted((r, c))), np.nan) for c in score.columns]
             for r in score.index], index=score.index, columns=score.columns)
    else:
        matrix = score.copy()
        for entrant in matrix.index:
            matrix.loc[entrant, entrant] = 0.5  # a style against itself is even
    long = matrix.stack(future_stack=True).rename(value).reset_index()
    long.columns = ["a", "b", value]
    entrant_labels = Labels(values={"a": {e: labels.value(column, e) for e in matrix.index},
                                    "b": {e: labels.value(column, e) for e in matrix.index}},
                            columns={"a": "entrant", "b": "opponent", "score": "expected score",
                                     "draw": "draws"})
    return _figure(lambda: plots.matchup(long, x="b", y="a", value=value, order=list(order),
                                         labels=entrant_labels), name, caption, svg)


def _round_robin_blocks(table: pd.DataFrame, exact: bool, level: str = "",
                        labels: Labels | None = None, figure: bool = False,
                        name: str = "matchups", column: str = "a.0.preset",
                        svg: bool = False) -> list[Block]:
    """Figures, ratings, metagame, dominance, seat advantage and upsets of one round robin
    (``table`` with entrant columns ``a`` and ``b``, entrants labelled as values of the
    run's ``column``); ``level`` captions a level of the run's other axes; ``figure`` adds
    the draw-aware matchup matrix (and a draw matrix where draws are common)."""
    labels = labels or Labels()
    at = f" ({level})" if level else ""

    def who(entrant: str) -> str:
        return labels.value(column, entrant)

    blocks: list[Block] = []
    rating = analysis.ratings(table)
    order = list(rating.index)
    if figure:
        blocks.append(score_figure(
            table, order, labels, name,
            f"Expected score of the row against the column{at}, both seats averaged (a win "
            "counts 1, a draw 1/2, so a matchup of draws reads 50%), strongest first",
            column=column, svg=svg))
        if "draw" in table and table["draw"].max() >= DRAWS_SHOWN:
            blocks.append(score_figure(
                table, order, labels, f"{name}-draws",
                f"Draw rate of each matchup{at}, both seats averaged, in the same order",
                value="draw", column=column, svg=svg))
    blocks.append(_ratings_table(table, rating, exact, at, who))

    meta_game = analysis.metagame(table, resamples=0 if exact else 200, seed=0)
    played = meta_game[(meta_game["weight"] >= METAGAME_SHOWN)
                       | (meta_game["weight_high"] >= METAGAME_SHOWN)]
    mix = pd.DataFrame({"entrant": [who(e) for e in played.index]})
    if exact:
        mix["weight"] = [percent(v) for v in played["weight"]]
    else:
        mix["weight [90% bootstrap interval]"] = [
            f"{percent(v, 0)} [{100 * lo:.0f}, {100 * hi:.0f}]" for v, lo, hi in
            zip(played["weight"], played["weight_low"], played["weight_high"], strict=True)]
        mix["played in (share of resamples)"] = [percent(v, 0) for v in played["in_support"]]
    rest = len(meta_game) - len(played)
    blocks.append(Table(mix, f"Metagame equilibrium{at}: the mix a table of clever players "
                        "settles on " + ("(exact, no resampling)" if exact else
                                         "(90% bootstrap interval, 200 replicates)")
                        + (f"; the other {rest} entrants get no weight" if rest else "")))

    dom = analysis.dominated(table, resamples=200, seed=1)
    dom = dom[(dom["margin"] > 0) | (dom["dominated_share"] > 0)]
    if len(dom):
        shown_dom = pd.DataFrame({
            "entrant": [who(e) for e in dom.index],
            "margin (points of expected score)": [f"{100 * m:.1f}" for m in dom["margin"]]})
        if not exact:
            shown_dom["dominated in (share of resamples)"] = [
                percent(v, 0) for v in dom["dominated_share"]]
        blocks.append(Table(shown_dom, f"Dominated entrants{at}: some mix of the others "
                            "scores at least the margin more against every opponent"
                            + ("; exact" if exact else "")))
    else:
        blocks.append(Paragraph(f"No entrant is dominated{at}: none is beaten against every "
                                "opponent by any mix of the others."))
    blocks.extend(_seat_and_upset_blocks(table, rating, exact, at, who))
    return blocks


def _ratings_table(table: pd.DataFrame, rating: pd.DataFrame, exact: bool, at: str,
                   who: Callable[[str], str]) -> Table:
    """Each entrant's Elo (Bradley-Terry), expected score against the field and hardest
    opponent, strongest first."""
    field = analysis.field_scores(table)
    shown = pd.DataFrame({"entrant": [who(e) for e in rating.index]})
    scores = field.reindex(rating.index)
    if exact:
        shown["Elo"] = rating["elo"].round(0).astype(int).to_numpy()
        if rating.attrs["tiers"] > 1:
            shown["tier"] = rating["tier"].to_numpy()
        shown["expected score against the field"] = [percent(v) for v in scores["score"]]
        tiers = ("" if rating.attrs["tiers"] == 1 else
                 f"; {rating.attrs['tiers']} tiers: some entrants never score against "
                 "others, so the fit has no finite maximum and an entrant of a better tier "
                 "beats every one of a worse tier; Elo is relative within a tier")
        caption = (f"Ratings{at}: Bradley-Terry fitted to the exact score matrix (no "
                   f"interval: no sampling{tiers}; largest gap between a fitted and an exact "
                   f"score {percent(rating.attrs['max_misfit'])}), and the mean expected "
                   "score against the rest of the field")
    else:
        shown["Elo [95% interval]"] = _elo_cells(rating)
        shown["expected score against the field [95% interval]"] = _interval_cells(
            scores["score"], scores["score_low"], scores["score_high"], exact=False)
        caption = (f"Ratings{at}: Bradley-Terry on the Elo scale, and the mean expected "
                   "score against the rest of the field (a win 1, a draw 1/2)")
    shown["hardest opponent"] = [f"{who(w)} ({percent(v)})" for w, v in
                                 zip(scores["worst"], scores["worst_score"], strict=True)]
    return Table(shown, caption)


def _seat_and_upset_blocks(table: pd.DataFrame, rating: pd.DataFrame, exact: bool, at: str,
                          who: Callable[[str], str]) -> list[Block]:
    """The seat advantage in mirror matches (where the round robin has them) and the
    upsets: the chance the lower-rated entrant wins."""
    blocks: list[Block] = []
    if (table["a"] == table["b"]).any():
        seat = analysis.seat_advantage(table)
        seat_rows = pd.DataFrame({"entrant": [who(e) for e in seat.index]})
        seat_rows["A's win rate minus B's" + ("" if exact else " [95% interval]")] = [
            f"{100 * v:+.2f} points" if exact else
            f"{100 * v:+.{d}f} [{100 * lo:+.{d}f}, {100 * hi:+.{d}f}] points"
            for v, lo, hi, d in zip(seat["advantage"], seat["advantage_low"],
                                    seat["advantage_high"],
                                    [decimals_for((h - lo) / 2) for lo, h in zip(
                                        seat["advantage_low"], seat["advantage_high"],
                                        strict=True)], strict=True)]
        seat_rows["draws"] = [percent(v) for v in seat["draw"]]
        blocks.append(Table(seat_rows, f"Seat advantage in mirror matches{at}"
                            + (" (exact)" if exact else ""), collapsed=len(seat_rows) > 40))
    ups = analysis.upsets(table, rating)
    if len(ups):
        ups_rows = pd.DataFrame({"weaker": [who(e) for e in ups["weaker"]],
                                 "stronger": [who(e) for e in ups["stronger"]]})
        ups_rows["upset" + ("" if exact else " [95% interval]")] = _interval_cells(
            ups["upset"], ups["upset_low"], ups["upset_high"], exact=exact)
        blocks.append(Table(ups_rows.reset_index(drop=True),
                            f"Upsets{at}: the chance the lower-rated entrant wins, both seats "
                            + ("counted alike (exact)" if exact else
                               "pooled (95% Wilson interval)"),
                            collapsed=len(ups) > 40))
    return blocks


DRAWS_SHOWN = 0.05
"""A round robin gets a draw-rate matrix when some matchup draws at least this often."""


def _best_play_blocks(table: pd.DataFrame, exact: bool, level: str = "",
                      labels: Labels | None = None, column: str = "a.0.preset") -> list[Block]:
    """What best play changes in one round robin: the verdicts with the policies as given
    (the same fights) and under best play side by side, the sentences naming the changes,
    and the policies each pairing rests on."""
    from ..analysis import bestplay

    labels = labels or Labels()
    at = f" ({level})" if level else ""
    given = bestplay.as_given(table)
    found = bestplay.verdict_changes(given, table, resamples=200, seed=0)
    frame = found.frame
    side_by_side = pd.DataFrame({"entrant": [labels.value(column, e) for e in frame.index]})
    for key, label, cell in (
            ("rank", "rank", lambda v: f"{int(v)}"),
            ("elo", "Elo", lambda v: f"{v:.0f}"),
            ("dominated", "dominated in (share of replicates)", lambda v: percent(v, 0)),
            ("metagame", "metagame weight", lambda v: percent(v, 0))):
        side_by_side[f"{label}, as given"] = [cell(v) for v in frame[key]]
        side_by_side[f"{label}, best play"] = [cell(v) for v in frame[f"{key}_best"]]
    blocks: list[Block] = [
        Paragraph(f"The verdicts{at} with the policies as given (the same fights) and under "
                  "best play, and which change beyond the noise: "
                  + " ".join(found.sentences(lambda e: labels.value(column, e)))),
        Table(side_by_side,
              f"Verdicts{at} side by side, strongest under best play first: rank and Elo "
              "(Bradley-Terry), the share of bootstrap replicates in which the entrant is "
              "dominated by a mix of the others, and its metagame weight, with the policies "
              "as given and under best play")]
    pairs = table[table["a"] != table["b"]]
    moved = ((pairs["default_value"] - pairs["value"]).abs() > 1e-9) if exact else (
        (pairs["default_value"] < pairs["value_low"]) | (pairs["default_value"] > pairs["value_high"]))
    shown = pd.DataFrame({
        "A": pairs["a"], "B": pairs["b"],
        "value": (pairs["value"].map(lambda v: percent(v, 2)) if exact
                  else _interval_text(pairs, "value")),
        "as given": pairs["default_value"].map(lambda v: percent(v, 2 if exact else 1)),
        "A plays": pairs["policy_a"], "B plays": pairs["policy_b"]})
    blocks.append(Table(shown.reset_index(drop=True),
                        f"The policies each pairing's verdict rests on{at}: A's value under "
                        "best play" + ("" if exact else " [95% interval]")
                        + ", with the policies as given, and each side's equilibrium policy "
                        f"(best play moves the value of {int(moved.sum())} of {len(pairs)} "
                        "pairings" + ("" if exact else " beyond its interval") + ")",
                        collapsed=len(shown) > 40))
    return blocks


def _lengths_paragraph(results: pd.DataFrame) -> Paragraph | None:
    """Draw rates and fight lengths over the cells, in one sentence."""
    parts = []
    if "draw" in results and results["draw"].max() > 0:
        parts.append(f"Draws: from {results['draw'].min():.1%} to "
                     f"{results['draw'].max():.1%} of fights")
    if "mean_rounds" in results and results["mean_rounds"].notna().any():
        parts.append(f"mean fight length from {results['mean_rounds'].min():.1f} to "
                     f"{results['mean_rounds'].max():.1f} rounds")
    if not parts:
        return None
    text = "; ".join(parts)
    return Paragraph(text[0].upper() + text[1:] + ".")


def rule_sensitivity(results: pd.DataFrame, axes: Sequence[str], axis: str,
                     threshold: float = 0.1) -> pd.DataFrame | None:
    """How much a swept rule parameter moves A's win rate, the other axes held.

    Each cell is compared with its twin at the axis's first value.  ``None`` unless
    ``axis`` is a ``rules.`` axis with two or more values and there are other axes.
    """
    others = [a for a in axes if a != axis]
    if not axis.startswith("rules.") or not others or results[axis].nunique() < 2:
        return None
    values = list(dict.fromkeys(results[axis]))
    base = results[results[axis] == values[0]].set_index(others)["a_win"]
    rows = []
    for value in values[1:]:
        part = results[results[axis] == value].set_index(others)["a_win"]
        change = (part - base.reindex(part.index)).dropna()
        if not len(change):
            continue
        at = change.abs().idxmax()
        at = at if isinstance(at, tuple) else (at,)
        rows.append({axis: value, "mean |change|": round(float(change.abs().mean()), 4),
                     "largest change": round(float(change.loc[change.abs().idxmax()]), 4),
                     "at": ", ".join(f"{a} = {v}" for a, v in zip(others, at, strict=True)),
                     f"cells moved > {threshold:g}": int((change.abs() > threshold).sum()),
                     "cells": len(change), "at_values": at})
    return pd.DataFrame(rows) if rows else None


def _sensitivity_tables(results: pd.DataFrame, axes: Sequence[str],
                        over: Sequence[str], labels: Labels | None = None) -> list[Table]:
    """A :func:`rule_sensitivity` table for each rule axis of ``over``, labelled, its changes
    in percentage points."""
    labels = labels or Labels()
    tables = []
    for axis in over:
        sensitivity = rule_sensitivity(results, axes, axis)
        if sensitivity is None:
            continue
        others = [a for a in axes if a != axis]
        shown = pd.DataFrame({labels.column(axis): [labels.value(axis, v)
                                                    for v in sensitivity[axis]]})
        shown["mean |change|"] = [f"{100 * v:.1f} points" for v in sensitivity["mean |change|"]]
        shown["largest change"] = [f"{100 * v:+.1f} points"
                                   for v in sensitivity["largest change"]]
        shown["at"] = [", ".join(f"{labels.column(a)} = {labels.value(a, v)}"
                                 for a, v in zip(others, at, strict=True))
                       for at in sensitivity["at_values"]]
        moved = next(c for c in sensitivity.columns if c.startswith("cells moved"))
        shown[f"cells moved > {100 * 0.1:.0f} points"] = sensitivity[moved]
        shown["cells"] = sensitivity["cells"]
        first = results[axis].iloc[0]
        tables.append(Table(shown, f"Sensitivity to {labels.column(axis)}: how far A's win "
                            f"rate moves from {labels.column(axis)} = {labels.value(axis, first)}"
                            " with everything else held (each cell against its twin)"))
    return tables



def question_from_spec(text: str) -> str:
    """The question an experiment file asks: the comment block at its top.

    Command examples (indented lines, or lines starting ``balance ``) are left out; blank
    comment lines separate paragraphs.
    """
    paragraphs: list[list[str]] = [[]]
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            if stripped:
                break
            continue
        body = stripped[1:]
        if body.startswith("   ") or body.strip().startswith("balance "):
            continue
        body = body.strip()
        if not body:
            paragraphs.append([])
        else:
            paragraphs[-1].append(body)
    return "\n\n".join(" ".join(p) for p in paragraphs if p)


def spec_figures(run_dir: Any, meta: Mapping[str, Any], labels: Labels | None = None,
                 svg: bool = False) -> list[Figure]:
    """The figures a run's spec asked for (``[[outputs.plots]]``), as drawn by the runner,
    captioned with the run's labels (with the runner's SVG twin where ``svg`` asks)."""
    from pathlib import Path

    labels = labels or Labels.for_run(spec=meta.get("spec", {}))
    wanted = meta.get("spec", {}).get("outputs", {}).get("plots", [])
    pngs = [o for o in meta.get("outputs", []) if o.endswith(".png")]
    figures = []
    for plot, png in zip(wanted, pngs, strict=False):
        png_path = Path(run_dir) / png
        svg_path = png_path.with_suffix(".svg")
        if not png_path.is_file():
            continue
        kind = plot.get("kind", "plot")
        value = plot.get("value") or ("score" if kind == "matchup" else "a_win")
        over = labels.column(plot.get("x", ""))
        if plot.get("y") and kind != "curves":
            over += f" and {labels.column(plot['y'])}"
        caption = f"{labels.column(value)} over {over}"
        if plot.get("by"):
            caption += f", one curve per {labels.column(plot['by'])}"
        if plot.get("where"):
            caption += " (" + ", ".join(f"{labels.column(k)} = {labels.value(k, v)}"
                                        for k, v in _flat_where(plot["where"]).items()) + ")"
        figures.append(Figure(png_path.stem, png_path.read_bytes(),
                              svg_path.read_bytes() if svg and svg_path.is_file() else b"",
                              caption))
    return figures


def _flat_where(where: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A plot's ``where`` as ``{"a.0.might": 1}``, whether written dotted or nested."""
    out: dict[str, Any] = {}
    for key, value in where.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, Mapping):
            out.update(_flat_where(value, name))
        else:
            out[name] = value
    return out


def run_verdict(results: pd.DataFrame, meta: Mapping[str, Any], *, ruleset: Any = None,
                labels: Labels | None = None, sensitivity: bool = False,
                allow_import: bool = False, budget: int | None = None) -> Verdict:
    """The verdict on a run (see :mod:`balance.analysis.verdict`), its key claim built on
    the run's own cells; with ``sensitivity`` the claim is recomputed under each
    alternative reading and policy (within ``budget`` simulated fights)."""
    from ..analysis import verdict as _verdict
    from ..experiments.readback import RunCells, campaign, run_ruleset
    from ..rulesets.crt.campaign import career_length

    spec = meta.get("spec", {})
    if ruleset is None:
        ruleset = run_ruleset(meta, allow_import=allow_import)
    labels = labels or Labels.for_run(results, spec, ruleset)
    axes = [a for a in meta.get("axes", []) if a in results.columns]
    options = dict(spec.get("verdict", {}) or {})
    cells = RunCells(spec, ruleset, axes, allow_import)

    def matchup_of(row: Mapping[str, Any]) -> Any:
        found = cells.cell(row)
        return _verdict.Matchup(found.rules, found.side_a, found.side_b)

    best = is_best(results, meta)
    made = _verdict.verdict(
        results, axes, labels=labels, exact=is_exact(results, meta) and not best,
        thresholds=_verdict.Thresholds.of(options), value=options.get("value"),
        focus=options.get("focus"), matchup_of=None if best else matchup_of,
        rests_on=[*meta.get("assumptions", []), *meta.get("policies", [])], best=best,
        paired=_pairing(results, meta))
    if sensitivity and not best:
        kwargs = {} if budget is None else {"budget": budget}
        made = _verdict.sensitivity(made, ruleset, **kwargs)
    career = campaign(spec, meta, allow_import=allow_import)
    if career is not None:  # the career's answer, after the grid's
        table, text = career
        mean, low, high = career_length(table)
        rests = [*table.attrs.get("assumptions", []), *table.attrs.get("policies", [])]
        made = dataclasses.replace(made, sentences=(
            *made.sentences, _verdict.Sentence(text, "career", mean, low, high)),
            rests_on=tuple(dict.fromkeys([*made.rests_on, *rests])))  # skill_growth's too
    return made


def _pairing(results: pd.DataFrame, meta: Mapping[str, Any]) -> Any:
    """The paired errors of the run's cells when they played on common streams and the run
    kept their fights (:class:`balance.experiments.paired.Pairing`; the run directory is
    the table's ``attrs["run"]``); else ``None``, and differences add in quadrature."""
    from ..experiments.paired import Pairing

    run_dir = results.attrs.get("run")
    if not run_dir:
        return None
    pairing = Pairing.of_run(run_dir, meta)
    return None if pairing is None else pairing.se


VERDICT = "Verdict"


def build(results: pd.DataFrame, meta: Mapping[str, Any], question: str = "",
          figures: Sequence[Figure] = (), *, allow_import: bool = False,
          verdict: Verdict | None = None, svg: bool = False) -> Report:
    """Assemble a :class:`Report` from a run's results table, ``meta.json``, the
    experiment's question (its comment block) and the figures its spec asked for (drawn
    here when it asked for none).  ``allow_import``: the run's ruleset may be a
    ``package.module:OBJECT`` path to import (see :func:`balance.rulesets.resolve`).

    The report opens with the ``verdict`` (default: :func:`run_verdict` without the
    sensitivity pass); a "what would make it fair" section follows the analyses where the
    spec asks for one (``[[tune]]``).  Figures drawn here are PNG, with an SVG twin only if
    ``svg`` asks."""
    ctx = _context(results, meta, allow_import, svg)
    if verdict is None:
        verdict = run_verdict(results, meta, ruleset=ctx.ruleset, labels=ctx.labels,
                              allow_import=allow_import)
    sections = [_verdict_section(verdict), _question_section(ctx, question),
                *_analysis_sections(ctx, figures), _results_section(ctx),
                _rules_section(ctx), _reproduce_section(ctx)]
    return Report(str(meta.get("description", "balance report")),
                  f"{ctx.ruleset.name} · {len(results):,} cells · "
                  + ("exact" if ctx.exact else f"{ctx.fights:,} fights"), tuple(sections),
                  dict(meta))


@dataclass(frozen=True)
class _Context:
    """What every section of a report reads: the run's table and record, its spec, the
    ruleset (with the spec's own presets), labels, axes, and how the numbers were made."""

    results: pd.DataFrame
    meta: Mapping[str, Any]
    spec: Mapping[str, Any]
    ruleset: Any
    labels: Labels
    axes: list[str]
    flagged: list[str]
    disclosed: list[str]
    exact: bool
    best: bool
    allow_import: bool
    svg: bool

    @property
    def rules_overrides(self) -> Mapping[str, Any]:
        return self.spec.get("rules", {}) or {}

    @property
    def fights(self) -> int:
        results = self.results
        return int(results["fights"].sum() if self.best and "fights" in results
                   else results["n"].sum())


def _context(results: pd.DataFrame, meta: Mapping[str, Any], allow_import: bool,
             svg: bool) -> _Context:
    from ..experiments.readback import run_ruleset

    ruleset = run_ruleset(meta, allow_import=allow_import)
    spec = meta.get("spec", {})
    exact = is_exact(results, meta)
    best = is_best(results, meta)
    if best:
        exact = str(results["method"].iloc[0]).startswith("exact") if len(results) else exact
    return _Context(results, meta, spec, ruleset, Labels.for_run(results, spec, ruleset),
                    [a for a in meta.get("axes", []) if a in results.columns],
                    list(meta.get("assumptions", [])), list(meta.get("policies", [])),
                    exact, best, allow_import, svg)


def _verdict_section(verdict: Verdict) -> Section:
    """The verdict first: its sentences, and what it rests on."""
    blocks: list[Block] = [Paragraph(s.text, kind="verdict") for s in verdict.sentences]
    rests = verdict.rests_text()
    if rests:
        blocks.append(Paragraph(rests, kind="rests"))
    return Section(VERDICT, tuple(blocks))


def _question_section(ctx: _Context, question: str) -> Section:
    """The question (the spec's, else the experiment file's comment block), the notes, the
    range of the answer over the cells and what the numbers rest on."""
    spec = ctx.spec
    question = str(spec.get("question") or "") or question
    blocks: list[Block] = [Paragraph(p) for p in question.split("\n\n") if p]
    if spec.get("notes"):
        blocks.append(Paragraph(str(spec["notes"])))
    blocks.append(_range_paragraph(ctx))
    disclosed, best = ctx.disclosed, ctx.best
    flagged, rows = split_rows(ctx.flagged)
    if flagged or disclosed or rows:
        rule_policies = _rule_policies(ctx.ruleset, disclosed)
        policies_text = ("each cell's policies chosen by best play (and "
                         + "; ".join(rule_policies) + ")"
                         if best and rule_policies else
                         "each cell's policies chosen by best play" if best else
                         "; ".join(disclosed))
        blocks.append(Paragraph(
            f"These numbers rest on {len(flagged)} DEFAULT or AMBIG rule readings (gaps or "
            "unclear passages of the seed filled by a chosen reading) and on the policies "
            f"the fighters play ({policies_text or 'none'})"
            + (f", and on {len(rows)} modifier/effect row{'s' if len(rows) != 1 else ''} "
               "written for these fights" if rows else "")
            + "; all are listed under 'Rules used'. Change a reading with the spec's "
            "[rules] table, a policy with the sides' fields" + ("." if best else ", or let `--play best` choose them."),
            kind="note"))
    return Section("The question", tuple(blocks))


def _range_paragraph(ctx: _Context) -> Paragraph:
    """How the cells were answered, and the range of A's win rate (best play: A's value)
    over them, with the cells at either end."""
    results, labels, exact = ctx.results, ctx.labels, ctx.exact
    n_cells = len(results)
    value = "value" if ctx.best else "a_win"
    lo_i, hi_i = results[value].idxmin(), results[value].idxmax()

    def where(i: Any) -> str:
        return ", ".join(f"{labels.column(a)} = {labels.value(a, results.loc[i, a])}"
                         for a in ctx.axes) or "the only cell"

    def rate(i: Any) -> str:
        if not ctx.best:
            return rate_with_interval(results.loc[i, "a_win"], results.loc[i, "a_win_low"],
                                      results.loc[i, "a_win_high"], exact=exact)
        return rate_with_interval(results.loc[i, "value"], results.loc[i, "value_low"],
                                  results.loc[i, "value_high"], exact=exact)

    if ctx.best:
        worth = float(results["draw_worth"].iloc[0]) if "draw_worth" in results else 0.5
        solved = (f"{n_cells:,} cells under best play: in each, every side's policies are "
                  f"chosen to do its best against the other's (A maximises its expected "
                  f"score, win + {worth:g} x draw; B minimises it; each side plays one "
                  "profile for all its members), "
                  + ("solved exactly" if exact else
                     f"by Monte Carlo over the policy profiles ({int(results['fights'].sum()):,}"
                     " fights, common random numbers within a cell)"))
        closing = ("every number is exact." if exact else
                   "value intervals are 95% bootstrap intervals over chunks.")
        return Paragraph(
            f"{solved}. A's value ranges from {rate(lo_i)} ({where(lo_i)}) to "
            f"{rate(hi_i)} ({where(hi_i)}); {closing} Each cell's equilibrium policies are "
            "in the results table (A plays, B plays).")
    if exact:
        solved = (f"{n_cells:,} cells, each solved exactly by the {ctx.ruleset.name} solver "
                  "(no sampling)")
        closing = ("every number is exact: the probability itself, not an estimate, so "
                   "no interval is shown.")
    else:
        solved = f"{n_cells:,} cells, {ctx.fights:,} fights"
        closing = "every interval is 95% Wilson."
    return Paragraph(f"{solved}. Side A's win rate ranges from {rate(lo_i)} ({where(lo_i)}) "
                     f"to {rate(hi_i)} ({where(hi_i)}); {closing}")


def _analysis_sections(ctx: _Context, figures: Sequence[Figure]) -> list[Section]:
    """"What best play changes" (a best-play round robin), "What the numbers say" (the
    figures and the analyses of a round robin or a grid) and "What would make it fair"
    (the spec's ``[[tune]]`` tables), each where it has something to say."""
    changes: list[Block] = []  # a best-play round robin: its verdicts beside the as-given
    rr = _round_robin_axes(ctx.results, ctx.axes)
    if rr is not None:
        blocks = _round_robin_analyses(ctx, rr, list(figures), changes)
    else:
        blocks = _grid_analyses(ctx, list(figures))
    caveat = _equilibrium_caveat(ctx.ruleset, ctx.exact)
    if caveat is not None and any(isinstance(b, Paragraph) and b.text.startswith(
            ("Draws", "Mean fight length")) for b in blocks):
        blocks.append(caveat)
    sections = []
    if changes:  # first after the question: the answer's other half
        sections.append(Section("What best play changes", tuple(changes)))
    if blocks:
        sections.append(Section("What the numbers say", tuple(blocks)))
    fair = _fair_section(ctx.spec, ctx.meta, ctx.allow_import)
    if fair is not None:
        sections.append(fair)
    career = _career_section(ctx)
    if career is not None:
        sections.append(career)
    return sections


def _career_section(ctx: _Context) -> Section | None:
    """"A career": the spec's ``[campaign]`` (crt) followed fight by fight, its sentence
    (the verdict's last), a figure and every fight's row; the same career as the verdict's
    (seeded by the spec or the run)."""
    from .. import plots
    from ..experiments.readback import campaign
    from ..labels import rate_with_interval

    career = campaign(ctx.spec, ctx.meta, allow_import=ctx.allow_import)
    if career is None:
        return None
    table, text = career
    exact = table.attrs.get("method") == "exact"
    c = ctx.spec["campaign"]
    how = (f"{c['careers']:,} careers of {c['fights']} fights, each fight one kernel run over "
           f"the careers still running; {table.attrs['assumptions'][-1]}"
           + ("; the foes grow alike (peers)" if c.get("peers") else "; the foes fresh"))
    rows = pd.DataFrame({
        "fight": table["fight"], "combats survived": table["combats"],
        "skill": table["skill"], "advantage": table["advantage"].map(lambda v: f"{v:+d}"),
        "wins this fight": [rate_with_interval(r.p_win, r.p_win_low, r.p_win_high,
                                               exact=exact) for r in table.itertuples()],
        "careers running after it": [rate_with_interval(r.alive, r.alive_low, r.alive_high,
                                                        exact=exact)
                                     for r in table.itertuples()]})
    figure = _figure(lambda: plots.career(table), "career", "A career, fight by fight",
                     ctx.svg)
    return Section("A career", (Paragraph(text), Paragraph(how, kind="note"), figure,
                                Table(rows, "Every fight of the career; rates with 95% Wilson "
                                            "intervals", collapsed=len(rows) > 12)))


def _round_robin_analyses(ctx: _Context, rr: tuple[str, str, list[str]],
                          blocks: list[Block], changes: list[Block]) -> list[Block]:
    """The figures and analyses of a round robin of ``a_ax`` against ``b_ax`` (one per
    level of the other axes), after ``blocks`` (the spec's figures); a best-play run's
    verdict comparisons go to ``changes``."""
    from .. import plots

    results, labels, exact, best, svg = ctx.results, ctx.labels, ctx.exact, ctx.best, ctx.svg
    a_ax, b_ax, others = rr

    def entrants(df: pd.DataFrame) -> pd.DataFrame:
        # the analyses name the two entrant columns "a" and "b"; a whole-side axis of
        # that name among the other axes is held fixed here, so it gives way
        df = df.drop(columns=[c for c in ("a", "b") if c in df and c not in (a_ax, b_ax)])
        df = df.rename(columns={a_ax: "a", b_ax: "b"})
        return df.assign(a=df["a"].astype(str), b=df["b"].astype(str))

    table = entrants(results)
    # the report draws its own matrix: seat-averaged, draw-aware, strongest first (under
    # best play: the spec's matrix of A's value, or one drawn here)
    if not best:
        blocks = [b for b in blocks if not (isinstance(b, Figure)
                                            and b.name.startswith("matchup-"))]
    if not others:
        if best and not any(isinstance(b, Figure) for b in blocks):
            blocks.append(_figure(lambda: plots.matchup(results, x=b_ax, y=a_ax,
                                                        value="value"), "matchups",
                                  f"A's value under best play, row ({a_ax}) against "
                                  f"column ({b_ax})", svg))
        blocks.extend(_round_robin_blocks(table, exact, labels=labels, figure=not best,
                                          column=a_ax, svg=svg))
        if best:
            changes.extend(_best_play_blocks(table, exact, labels=labels, column=a_ax))
    else:
        blocks.append(Paragraph(
            f"A round robin of {labels.column(a_ax)} against {labels.column(b_ax)} at "
            f"each level of {', '.join(labels.column(o) for o in others)}: each level's "
            "analyses in turn."))
        for i, (key, part) in enumerate(results.groupby(others, sort=False)):
            keys = key if isinstance(key, tuple) else (key,)
            level = ", ".join(f"{labels.column(o)} = {labels.value(o, v)}"
                              for o, v in zip(others, keys, strict=True))
            blocks.extend(_round_robin_blocks(entrants(part), exact, level, labels=labels,
                                              figure=not best, name=f"matchups-{i + 1}",
                                              column=a_ax, svg=svg))
            if best:
                changes.extend(_best_play_blocks(entrants(part), exact, level,
                                                 labels=labels, column=a_ax))
        blocks.extend(_sensitivity_tables(results, ctx.axes, others, labels))
    lengths = _lengths_paragraph(results)
    if lengths is not None:
        blocks.append(lengths)
    return blocks


def _grid_analyses(ctx: _Context, blocks: list[Block]) -> list[Block]:
    """The figures (the spec's, else a heatmap and curves, or curves) and analyses of a
    grid: the marginal value of each numeric axis, rule sensitivity and draws."""
    from .. import plots

    results, labels, axes, svg = ctx.results, ctx.labels, ctx.axes, ctx.svg
    band = "" if ctx.exact else " with 95% interval bands"
    numeric = sorted((a for a in axes if _numeric(results[a])),
                     key=lambda a: -results[a].nunique())
    others = [a for a in axes if a not in numeric]
    if len(axes) == 2 and not blocks:
        x, y = (numeric + others)[:2]
        blocks.append(_figure(lambda: plots.heatmap(results, x=x, y=y, value="a_win"),
                              "heatmap", f"Side A's win rate over {labels.column(x)} and "
                              f"{labels.column(y)}", svg))
        levels = sorted(results[y].unique(), key=str)
        if len(levels) > 8:  # a readable handful of curves, evenly spread
            keep = {levels[i] for i in np.linspace(0, len(levels) - 1, 6).round().astype(int)}
            shown = results[results[y].isin(keep)]
        else:
            shown = results
        blocks.append(_figure(lambda: plots.curves(shown, x=x, y="a_win", by=y),
                              "curves", f"Side A's win rate against {labels.column(x)}, one "
                              f"curve per {labels.column(y)}{band}", svg))
    elif len(axes) == 1 and not blocks:
        x = axes[0]
        blocks.append(_figure(lambda: plots.curves(results, x=x, y="a_win"), "curves",
                              f"Side A's win rate against {labels.column(x)}"
                              + ("" if ctx.exact else ", with its 95% interval band"), svg))
    blocks.extend(_marginal_value_blocks(ctx, numeric))
    blocks.extend(_sensitivity_tables(results, axes, axes, labels))
    if "draw" in results and results["draw"].max() > 0:
        blocks.append(Paragraph(f"Draws: from {percent(results['draw'].min())} to "
                                f"{percent(results['draw'].max())} of fights."))
    return blocks


def _marginal_value_blocks(ctx: _Context, numeric: Sequence[str]) -> list[Block]:
    """The marginal value of one point of each numeric axis (a table), and a note for
    each whose single steps go against the stat's expected direction."""
    results, labels, axes, exact = ctx.results, ctx.labels, ctx.axes, ctx.exact
    value_rows = []
    wrong_way: list[str] = []  # notes on steps against the stat's expected direction
    for stat in numeric:
        by = [a for a in axes if a != stat] or None
        mv = analysis.marginal_value(results, stat, by=by)
        if not len(mv):
            continue
        per_group = mv.groupby(by)[["slope", "slope_se"]].first() if by \
            else mv[["slope", "slope_se"]].head(1)
        steps = mv["per_point"]
        # Every level of the other axes counts alike: the slopes differ from level to
        # level, and a level stuck at 0% or 100% is not more informative than another.
        slope = float(per_group["slope"].mean())
        if exact:  # no sampling error
            slope_se = 0.0
            up, down = int((steps > 1e-9).sum()), int((steps < -1e-9).sum())
            beyond, beyond_their = "", ""
        else:
            slope_se = float(np.sqrt(np.sum(np.square(per_group["slope_se"])))
                             / len(per_group))
            # Many steps are tested at once: a step counts as going the wrong way only
            # beyond its Bonferroni-corrected interval, so chance alone flags one family
            # in twenty, not 2.5% of the steps.
            strict = analysis.marginal_value(results, stat, by=by,
                                             confidence=1 - 0.05 / len(mv))
            up = int((strict["per_point_low"] > 0).sum())
            down = int((strict["per_point_high"] < 0).sum())
            beyond = (f" beyond its 95% interval (Bonferroni-corrected for the {len(mv)} "
                      "steps)")
            beyond_their = " beyond their Bonferroni-corrected 95% intervals"
        name = labels.column(stat)
        value_rows.append({
            "stat": name,
            "mean change in A's win rate per +1" + ("" if exact else " [±95%]"):
                signed_points(slope, 1.96 * slope_se, exact=exact),
            "smallest step": signed_points(float(steps.min()), exact=True),
            "largest step": signed_points(float(steps.max()), exact=True),
            "steps that hurt A": down, "steps": len(mv)})
        if stat.startswith("a.") and down:
            wrong_way.append(f"In {down} of {len(mv)} single steps of {name}, one more point "
                             f"lowers A's win rate{beyond}: the rules are not monotone there.")
        elif stat.startswith("b.") and up:
            wrong_way.append(f"In {up} of {len(mv)} single steps of {name}, one more point of "
                             f"B's raises A's win rate{beyond}: the rules are not monotone "
                             "there.")
        elif not stat.startswith(("a.", "b.")) and up and down:
            wrong_way.append(f"Single steps of {name} move A's win rate both ways"
                             f"{beyond_their} ({up} up, {down} down, of {len(mv)}).")
    if not value_rows:
        return []
    values = pd.DataFrame(value_rows)
    table = Table(values, "Marginal value of one point of each swept stat: the mean of the "
                  + ("exact " if exact else "")
                  + "least-squares slopes (one per level of the other axes, each counted "
                  "alike), in percentage points of A's win rate, the smallest and largest "
                  "single steps, and "
                  + ("the steps that lower A's win rate" if exact else
                     "the steps that lower A's win rate beyond their 95% interval corrected "
                     "for the number of steps (Bonferroni)"))
    return [table, *(Paragraph(text, kind="note") for text in wrong_way)]


def _results_section(ctx: _Context) -> Section:
    """Every cell in a table (with the equilibrium caveat of an exact game)."""
    results, axes, exact = ctx.results, ctx.axes, ctx.exact
    if ctx.best:
        caption = ("Every cell under best play: A's value" + ("" if exact else
                   " [95% bootstrap interval]") + ", the value with the policies as given, "
                   "and the policies each side plays at the equilibrium (a mix shows each "
                   "profile's weight)" + ("" if exact else "; profiles evaluated and fights run"))
        shown_results = best_results_table(results, axes, exact=exact)
    else:
        caption = ("Every cell; exact rates (no sampling interval), the solver's states and "
                   "time" if exact else "Every cell; rates with 95% Wilson intervals")
        shown_results = results_table(results, axes, exact=exact, labels=ctx.labels)
    blocks: list[Block] = [Table(shown_results, caption, collapsed=len(results) > 40)]
    caveat = _equilibrium_caveat(ctx.ruleset, exact)
    if caveat is not None:
        blocks.append(caveat)
    return Section("Results", tuple(blocks))


def _rules_section(ctx: _Context) -> Section:
    """The ruleset, the rule overrides, the sides, what was swept, and the readings and
    policies the results rest on."""
    ruleset, spec, axes = ctx.ruleset, ctx.spec, ctx.axes
    rules_overrides = ctx.rules_overrides
    blocks: list[Block] = [Paragraph(
        f"Ruleset {ruleset.name}: {ruleset.title} (seed {ruleset.seed_document}; digest "
        f"{ruleset.digest}).")]
    if rules_overrides:
        blocks.append(Paragraph("Rule overrides: " + ", ".join(
            f"{k} = {v}" for k, v in rules_overrides.items())))
    sides = _sides_table(spec)
    if len(sides):
        blocks.append(Table(sides, "Sides (fields given in the spec; the rest are defaults)"))
    if axes:
        grid = spec.get("grid", {})
        blocks.append(Paragraph("Swept: " + ", ".join(axes)
                                + (f" ({grid.get('combine', 'product')})" if grid else "")))
    readings, rows = split_rows(ctx.flagged)
    if readings:
        swept = {a.split(".", 1)[1]: list(dict.fromkeys(ctx.results[a])) for a in axes
                 if a.startswith("rules.")}
        blocks.append(Table(_assumption_rows(ruleset, rules_overrides, readings, swept),
                            "DEFAULT / AMBIG readings in force: the results depend on these"))
    if rows:
        blocks.append(Table(pd.DataFrame([{"row": r.partition(": ")[0],
                                           "rule": r.partition(": ")[2]} for r in rows]),
                            "Modifier and effect rows written for these fights (the "
                            "designer's rules, not the seed's): the results depend on these"))
    policy_rows = _policy_rows(ruleset, ctx.disclosed, ctx.best)
    if len(policy_rows):
        blocks.append(Table(policy_rows, "Policies: the decisions fighters make (not rules); "
                            "the results rest on these too"
                            + (" (best play chose each side's, cell by cell)"
                               if ctx.best else "")))
    return Section("Rules used", tuple(blocks))


def _streams_text(meta: Mapping[str, Any]) -> str:
    """Which streams the cells played on (a run made before ``streams`` existed: each cell
    on its own)."""
    if meta.get("streams", "independent") == "common":
        return ("common: every cell's fight j on the same numbers"
                + (", differences between cells read from the paired fights"
                   if meta.get("winners") else ""))
    return ("independent: each cell on its own streams, differences between cells with "
            "their errors in quadrature")


def _reproduce_section(ctx: _Context) -> Section:
    """The command that reproduces the run, and its provenance."""
    meta, exact, best = ctx.meta, ctx.exact, ctx.best
    versions = meta.get("versions", {})
    timings = meta.get("timings", {})
    source = meta.get("source") or "EXPERIMENT.toml"
    lines = [f"balance sweep {source}" + (" --play best" if best else "")]
    seeds = [] if exact else [{"item": "seed", "value": str(meta.get("seed"))},
                              {"item": "seed entropy", "value": str(meta.get("entropy"))},
                              {"item": "random numbers", "value": _streams_text(meta)}]
    facts = pd.DataFrame([
        *seeds,
        {"item": "method", "value": ("best play, " if best else "")
         + ("exact (each cell by the ruleset's exact solver)"
            if exact else f"simulate (chunk size {meta.get('chunk_size')})")},
        {"item": "executor", "value": _executor_text(meta)},
        {"item": "versions", "value": ", ".join(f"{k} {v}" for k, v in versions.items())},
        {"item": "elapsed", "value": _elapsed_text(meta)},
        {"item": "finished", "value": str(timings.get("finished", ""))},
    ])
    return Section("Reproduce", (
        Paragraph("The same seed and chunk size give the same table on any machine, with any "
                  "executor and worker count:" if not exact else
                  "An exact run needs no seed: the same balance version gives the same "
                  "table (but for the solve_ms timings) on any machine, executor and worker "
                  "count:"),
        Paragraph("\n".join(lines), kind="code"),
        Table(facts, "Provenance")))


def _fair_section(spec: Mapping[str, Any], meta: Mapping[str, Any], allow_import: bool
                  ) -> Section | None:
    """"What would make it fair": the answer to each ``[[tune]]`` table of the spec, worked
    out now by :func:`balance.experiments.tuning.from_spec` (seeded by the run, so the same
    each time), with the values tried and how."""
    from ..experiments.readback import tune_searches

    blocks: list[Block] = []
    for search in tune_searches(spec, meta, allow_import=allow_import):
        result = search()
        around = getattr(result, "around", lambda: "")()
        blocks.append(Paragraph(result.sentence() + (f" {around}" if around else "")))
        frame = result.to_frame()
        blocks.append(Table(frame, "Every value tried" if "fights" in frame else
                            "Handicaps, and each entrant's expected score against the field "
                            "(both seats) before and after", collapsed=len(frame) > 12))
        blocks.append(Paragraph(" ".join([result.how(), *(f"{n[0].upper()}{n[1:]}."
                                                           for n in result.notes)]),
                                kind="note"))
    return Section("What would make it fair", tuple(blocks)) if blocks else None


def _working_sessions(meta: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The sessions of a run that computed something (a resumed run may have several)."""
    return [s for s in meta.get("sessions", []) if s.get("workers")]


def _executor_text(meta: Mapping[str, Any]) -> str:
    working = _working_sessions(meta)
    if meta.get("workers"):
        return f"{meta.get('executor')} ({_workers(meta['workers'])})"
    if working:
        last = working[-1]
        return f"{last['executor']} ({_workers(last['workers'])}; the last session read it " \
               "all from the cache)"
    return f"{meta.get('executor')} (nothing left to compute: every result from the cache)"


def _workers(n: int) -> str:
    return f"{n} worker" if n == 1 else f"{n} workers"


def _elapsed_text(meta: Mapping[str, Any]) -> str:
    timings = meta.get("timings", {})
    text = f"{timings.get('elapsed_s', float('nan')):.1f} s"
    sessions = meta.get("sessions", [])
    if len(sessions) > 1:
        total = sum(float(s.get("elapsed_s", 0.0)) for s in sessions)
        text += f" in the last of {len(sessions)} sessions ({total:.1f} s in all; resumed runs " \
                "compute only what is missing)"
    return text
