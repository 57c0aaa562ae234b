"""What a playtest report says, assembled from a run: the question, the rules and the
readings they rest on, figures, tables with intervals, ratings, and how to reproduce it."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import analysis
from ..fields import describe_fields

__all__ = ["Block", "Figure", "Paragraph", "Report", "Section", "Table", "build",
           "question_from_spec", "spec_figures"]


@dataclass(frozen=True)
class Paragraph:
    text: str
    kind: str = "text"  # "text", "note" (a flagged caveat), "code"


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    caption: str = ""
    collapsed: bool = False  # long tables fold away in HTML


@dataclass(frozen=True)
class Figure:
    name: str  # file stem
    png: bytes
    svg: bytes
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


RATE_LABELS = {"a_win": "A wins", "b_win": "B wins", "draw": "draw"}


def _interval_text(frame: pd.DataFrame, rate: str) -> list[str]:
    return [f"{v:.3f} [{lo:.3f}, {hi:.3f}]" for v, lo, hi in
            zip(frame[rate], frame[f"{rate}_low"], frame[f"{rate}_high"], strict=True)]


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


def results_table(results: pd.DataFrame, axes: Sequence[str], *, exact: bool = False
                  ) -> pd.DataFrame:
    """The cells with each rate as ``rate [low, high]`` (exact runs: the value alone) and
    the fight-length summary (exact runs: the solver's state count and time)."""
    out = results[list(axes)].copy() if axes else pd.DataFrame(index=results.index)
    for rate, label in RATE_LABELS.items():
        if rate in results:
            out[label] = (results[rate].map(lambda v: f"{v:.4f}") if exact
                          else _interval_text(results, rate))
    columns = ((("mean_rounds", "mean rounds"), ("states", "states"), ("solve_ms", "solve ms"))
               if exact else
               (("mean_rounds", "mean rounds"), ("rounds_q50", "median rounds"), ("n", "fights")))
    for col, label in columns:
        if col not in results:
            continue
        if col in ("mean_rounds", "solve_ms"):
            out[label] = results[col].round(2)
        elif col == "states" and pd.api.types.is_float_dtype(results[col]):
            out[label] = results[col].astype("Int64")  # a count, missing where not solved
        else:
            out[label] = results[col]
    return out.reset_index(drop=True)


def _figure(draw: Any, name: str, caption: str) -> Figure:
    """Draw with matplotlib (Agg) into PNG and SVG bytes, deterministically."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "balance"
    ax = draw()
    fig = ax.figure
    png, svg = io.BytesIO(), io.BytesIO()
    fig.savefig(png, format="png", dpi=110, metadata={"Software": None})
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return Figure(name, png.getvalue(), svg.getvalue(), caption)


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
    """A side-A axis and a side-B axis of the same field over the same entrants: the run is
    a round robin (per level of the ``others`` axes, if any)."""
    for a in (x for x in axes if x.startswith("a.")):
        for b in (x for x in axes if x.startswith("b.")):
            if a.split(".")[-1] != b.split(".")[-1]:
                continue  # e.g. A's Co-ordination against B's Fortitude: not entrants
            others = [x for x in axes if x not in (a, b)]
            if others and _numeric(results[a]):
                continue  # a stat swept on both sides among other axes: marginal values
            if (set(results[a].astype(str)) == set(results[b].astype(str))
                    and results[a].nunique() > 1):
                return a, b, others
    return None


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


def _round_robin_blocks(table: pd.DataFrame, exact: bool, level: str = "") -> list[Block]:
    """Ratings, metagame, dominance, seat advantage and upsets of one round robin
    (``table`` with entrant columns ``a`` and ``b``); ``level`` captions a level of the
    run's other axes."""
    at = f" ({level})" if level else ""
    blocks: list[Block] = []
    rating = analysis.ratings(table)
    if exact:
        shown = rating[["theta", "elo", "expected_score", "tier"]].round(
            {"theta": 3, "elo": 1, "expected_score": 3}).reset_index()
        tiers = ("" if rating.attrs["tiers"] == 1 else
                 f"; {rating.attrs['tiers']} tiers: some entrants never score against "
                 "others, so the fit has no finite maximum and an entrant of a better tier "
                 "beats every one of a worse tier; elo is relative within a tier")
        blocks.append(Table(shown, f"Bradley-Terry ratings{at}, fitted to the exact score "
                            f"matrix (no interval: no sampling{tiers}; largest gap between a "
                            f"fitted and an exact score {rating.attrs['max_misfit']:.3f})"))
    else:
        blocks.append(Table(rating[["elo", "elo_low", "elo_high", "expected_score"]]
                            .round(1).reset_index(),
                            f"Bradley-Terry ratings{at} (Elo scale, 95% interval)"))
    meta_game = analysis.metagame(table, resamples=200, seed=0)
    if exact:
        meta_game = meta_game[["weight"]]
    blocks.append(Table(meta_game.round(3).reset_index(),
                        f"Metagame equilibrium{at}: the mix a table of clever players settles "
                        "on " + ("(exact, no resampling)" if exact else
                                 "(90% bootstrap interval, 200 replicates)")))
    dom = analysis.dominated(table, resamples=200, seed=1)
    if exact:
        dom = dom[["margin", "dominated"]]
    blocks.append(Table(dom.round(4).reset_index(),
                        f"Dominated entrants{at} (margin > 0: some mix of the others does "
                        "better against everyone" + ("; exact" if exact else "") + ")"))
    if (table["a"] == table["b"]).any():
        seat = analysis.seat_advantage(table)
        seat = (seat[["advantage", "draw"]] if exact else seat.drop(columns="exact"))
        blocks.append(Table(seat.round(4).reset_index(),
                            f"Seat advantage in mirror matches{at} (A's win rate minus B's"
                            + ("; exact" if exact else ", 95% interval") + ")"))
    ups = analysis.upsets(table, rating)
    if len(ups):
        ups = (ups[["weaker", "stronger", "upset"]] if exact
               else ups[["weaker", "stronger", "upset", "upset_low", "upset_high", "n"]])
        blocks.append(Table(ups.round(4).reset_index(drop=True),
                            f"Upsets{at}: the chance the lower-rated entrant wins, both seats "
                            + ("counted alike (exact)" if exact else
                               "pooled (95% Wilson interval)"),
                            collapsed=len(ups) > 40))
    return blocks


def _best_play_blocks(table: pd.DataFrame, exact: bool, level: str = "") -> list[Block]:
    """What best play changes in one round robin: the verdicts with the policies as given
    (the same fights) and under best play side by side, the sentences naming the changes,
    and the policies each pairing rests on."""
    from ..analysis import bestplay

    at = f" ({level})" if level else ""
    given = bestplay.as_given(table)
    verdicts, changes = bestplay.compare_verdicts(given, table, resamples=200, seed=0)
    blocks: list[Block] = [
        Paragraph(f"Verdicts{at} with the policies as given and under best play. "
                  + " ".join(changes)),
        Table(verdicts.round(3).reset_index(),
              f"Verdicts{at}: rank and Elo (Bradley-Terry), the share of bootstrap replicates "
              "in which the entrant is dominated by a mix of the others, and its metagame "
              "weight, with the policies as given (left) and under best play (_best); "
              "the as-given numbers come from the same fights")]
    pairs = table[table["a"] != table["b"]]
    moved = ((pairs["default_value"] - pairs["value"]).abs() > 1e-9) if exact else (
        (pairs["default_value"] < pairs["value_low"]) | (pairs["default_value"] > pairs["value_high"]))
    shown = pd.DataFrame({
        "A": pairs["a"], "B": pairs["b"],
        "value": (pairs["value"].map(lambda v: f"{v:.4f}") if exact
                  else _interval_text(pairs, "value")),
        "as given": pairs["default_value"].map(lambda v: f"{v:.4f}"),
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
                     "cells": len(change)})
    return pd.DataFrame(rows) if rows else None


def _sensitivity_tables(results: pd.DataFrame, axes: Sequence[str],
                        over: Sequence[str]) -> list[Table]:
    """A :func:`rule_sensitivity` table for each rule axis of ``over``."""
    tables = []
    for axis in over:
        sensitivity = rule_sensitivity(results, axes, axis)
        if sensitivity is not None:
            tables.append(Table(sensitivity, f"Sensitivity to {axis}: how far A's win rate "
                                f"moves from {axis} = {results[axis].iloc[0]} with "
                                "everything else held (each cell against its twin)"))
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


def spec_figures(run_dir: Any, meta: Mapping[str, Any]) -> list[Figure]:
    """The figures a run's spec asked for (``[[outputs.plots]]``), as drawn by the runner."""
    from pathlib import Path

    wanted = meta.get("spec", {}).get("outputs", {}).get("plots", [])
    pngs = [o for o in meta.get("outputs", []) if o.endswith(".png")]
    figures = []
    for plot, png in zip(wanted, pngs, strict=False):
        png_path = Path(run_dir) / png
        svg_path = png_path.with_suffix(".svg")
        if not png_path.is_file():
            continue
        over = plot.get("x", "")
        if plot.get("y") and plot.get("kind") != "curves":
            over += f" and {plot['y']}"
        caption = f"{plot.get('kind', 'plot')} of {plot.get('value', 'a_win')} over {over}"
        if plot.get("by"):
            caption += f", one curve per {plot['by']}"
        if plot.get("where"):
            caption += " (" + ", ".join(f"{k} = {v}" for k, v in plot["where"].items()) + ")"
        figures.append(Figure(png_path.stem, png_path.read_bytes(),
                              svg_path.read_bytes() if svg_path.is_file() else b"", caption))
    return figures


def build(results: pd.DataFrame, meta: Mapping[str, Any], question: str = "",
          figures: Sequence[Figure] = (), *, allow_import: bool = False) -> Report:
    """Assemble a :class:`Report` from a run's results table, ``meta.json``, the
    experiment's question (its comment block) and the figures its spec asked for (drawn
    here when it asked for none).  ``allow_import``: the run's ruleset may be a
    ``package.module:OBJECT`` path to import (see :func:`balance.rulesets.resolve`)."""
    from .. import plots
    from ..rulesets import resolve

    ruleset = resolve(meta.get("source_ruleset") or meta["spec"].get("ruleset")
                      or meta["ruleset"], allow_import=allow_import)
    spec = meta.get("spec", {})
    axes = [a for a in meta.get("axes", []) if a in results.columns]
    rules_overrides = spec.get("rules", {}) or {}
    flagged = meta.get("assumptions", [])
    disclosed = list(meta.get("policies", []))
    exact = is_exact(results, meta)
    best = is_best(results, meta)
    if best:
        exact = str(results["method"].iloc[0]).startswith("exact") if len(results) else exact
    sections: list[Section] = []

    # --- the question ---
    question = str(spec.get("question") or "") or question
    blocks: list[Block] = [Paragraph(p) for p in question.split("\n\n") if p]
    if spec.get("notes"):
        blocks.append(Paragraph(str(spec["notes"])))
    n_cells = len(results)
    fights = int(results["fights"].sum() if best and "fights" in results else results["n"].sum())
    lo_i, hi_i = results["a_win"].idxmin(), results["a_win"].idxmax()
    band = "" if exact else " with 95% interval bands"

    def where(i: Any) -> str:
        return ", ".join(f"{a} = {results.loc[i, a]}" for a in axes) or "the only cell"

    def rate(i: Any) -> str:
        if exact:
            return f"{results.loc[i, 'a_win']:.1%}"
        return (f"{results.loc[i, 'a_win']:.1%} [{results.loc[i, 'a_win_low']:.1%}, "
                f"{results.loc[i, 'a_win_high']:.1%}]")

    if best:
        lo_i, hi_i = results["value"].idxmin(), results["value"].idxmax()

        def rate(i: Any) -> str:
            if exact:
                return f"{results.loc[i, 'value']:.3f}"
            return (f"{results.loc[i, 'value']:.3f} [{results.loc[i, 'value_low']:.3f}, "
                    f"{results.loc[i, 'value_high']:.3f}]")

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
        blocks.append(Paragraph(
            f"{solved}. A's value ranges from {rate(lo_i)} ({where(lo_i)}) to "
            f"{rate(hi_i)} ({where(hi_i)}); {closing} Each cell's equilibrium policies are "
            "in the results table (A plays, B plays)."))
    elif exact:
        solved = (f"{n_cells:,} cells, each solved exactly by the {ruleset.name} solver "
                  "(no sampling)")
        closing = ("every number is exact: the probability itself, not an estimate, so "
                   "no interval is shown.")
    else:
        solved = f"{n_cells:,} cells, {fights:,} fights"
        closing = "every interval is 95% Wilson."
    if not best:
        blocks.append(Paragraph(
            f"{solved}. Side A's win rate ranges from {rate(lo_i)} ({where(lo_i)}) to "
            f"{rate(hi_i)} ({where(hi_i)}); {closing}"))
    if flagged or disclosed:
        policies_text = ("each cell's policies chosen by best play (and "
                         + "; ".join(_rule_policies(ruleset, disclosed)) + ")"
                         if best and _rule_policies(ruleset, disclosed) else
                         "each cell's policies chosen by best play" if best else
                         "; ".join(disclosed))
        blocks.append(Paragraph(
            f"These numbers rest on {len(flagged)} DEFAULT or AMBIG rule readings (gaps or "
            "unclear passages of the seed filled by a chosen reading) and on the policies "
            f"the fighters play ({policies_text or 'none'}); both are listed under 'Rules "
            "used'. Change a reading with the spec's [rules] table, a policy with the "
            "sides' fields" + ("." if best else ", or let `--play best` choose them."),
            kind="note"))
    sections.append(Section("The question", tuple(blocks)))

    # --- figures and analyses ---
    blocks = list(figures)
    rr = _round_robin_axes(results, axes)
    if rr is not None:
        a_ax, b_ax, others = rr

        def entrants(df: pd.DataFrame) -> pd.DataFrame:
            # the analyses name the two entrant columns "a" and "b"; a whole-side axis of
            # that name among the other axes is held fixed here, so it gives way
            df = df.drop(columns=[c for c in ("a", "b") if c in df and c not in (a_ax, b_ax)])
            df = df.rename(columns={a_ax: "a", b_ax: "b"})
            return df.assign(a=df["a"].astype(str), b=df["b"].astype(str))

        table = entrants(results)
        if not others:
            if not figures:
                shown_value = "value" if best else "a_win"
                blocks.append(_figure(lambda: plots.matchup(results, x=b_ax, y=a_ax,
                                                            value=shown_value), "matchups",
                                      ("A's value under best play" if best else
                                       "Side A's win rate")
                                      + f", row ({a_ax}) against column ({b_ax})"))
            blocks.extend(_round_robin_blocks(table, exact))
            if best:
                blocks.extend(_best_play_blocks(table, exact))
        else:
            blocks.append(Paragraph(f"A round robin of {a_ax} against {b_ax} at each level of "
                                    f"{', '.join(others)}: each level's analyses in turn."))
            for key, part in results.groupby(others, sort=False):
                keys = key if isinstance(key, tuple) else (key,)
                level = ", ".join(f"{o} = {v}" for o, v in zip(others, keys, strict=True))
                blocks.extend(_round_robin_blocks(entrants(part), exact, level))
                if best:
                    blocks.extend(_best_play_blocks(entrants(part), exact, level))
            blocks.extend(_sensitivity_tables(results, axes, others))
        lengths = _lengths_paragraph(results)
        if lengths is not None:
            blocks.append(lengths)
    else:
        numeric = sorted((a for a in axes if _numeric(results[a])),
                         key=lambda a: -results[a].nunique())
        others = [a for a in axes if a not in numeric]
        if len(axes) == 2 and not figures:
            x, y = (numeric + others)[:2]
            blocks.append(_figure(lambda: plots.heatmap(results, x=x, y=y, value="a_win"),
                                  "heatmap", f"Side A's win rate over {x} and {y}"))
            levels = sorted(results[y].unique(), key=str)
            if len(levels) > 8:  # a readable handful of curves, evenly spread
                keep = {levels[i] for i in np.linspace(0, len(levels) - 1, 6).round().astype(int)}
                shown = results[results[y].isin(keep)]
            else:
                shown = results
            blocks.append(_figure(lambda: plots.curves(shown, x=x, y="a_win", by=y),
                                  "curves", f"Side A's win rate against {x}, one curve per "
                                  f"{y}{band}"))
        elif len(axes) == 1 and not figures:
            x = axes[0]
            blocks.append(_figure(lambda: plots.curves(results, x=x, y="a_win"), "curves",
                                  f"Side A's win rate against {x}"
                                  + ("" if exact else ", with its 95% interval band")))
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
            value_rows.append({"stat": stat, "mean change in A's win rate per +1": round(slope, 4),
                               "standard error": round(slope_se, 5),
                               "smallest step": round(float(steps.min()), 4),
                               "largest step": round(float(steps.max()), 4),
                               "steps that hurt A": down, "steps": len(mv)})
            if stat.startswith("a.") and down:
                wrong_way.append(f"In {down} of {len(mv)} single steps of {stat}, one more point "
                                 f"lowers A's win rate{beyond}: the rules are not monotone there.")
            elif stat.startswith("b.") and up:
                wrong_way.append(f"In {up} of {len(mv)} single steps of {stat}, one more point of "
                                 f"B's raises A's win rate{beyond}: the rules are not monotone "
                                 "there.")
            elif not stat.startswith(("a.", "b.")) and up and down:
                wrong_way.append(f"Single steps of {stat} move A's win rate both ways"
                                 f"{beyond_their} ({up} up, {down} down, of {len(mv)}).")
        if value_rows:
            values = pd.DataFrame(value_rows)
            if exact:
                values = values.drop(columns="standard error")
            blocks.append(Table(values, "Marginal value of one point of each swept stat: the "
                                "mean of the "
                                + ("exact " if exact else "")
                                + "least-squares slopes (one per level of the other axes, each "
                                "counted alike), the smallest and largest single steps, and "
                                + ("the steps that lower A's win rate" if exact else
                                   "the steps that lower A's win rate beyond their 95% "
                                   "interval corrected for the number of steps (Bonferroni)")))
            if len(values) == 2:
                ranked = values.sort_values("mean change in A's win rate per +1", key=abs,
                                            ascending=False)
                big, small = ranked["mean change in A's win rate per +1"]
                # a near-flat stat makes any ratio meaningless (step-shaped curves), and a
                # ratio of slopes averaged over rule readings or policies (other,
                # non-numeric axes) mixes different games: compare those level by level
                if not all(str(v).startswith(("a.", "b.")) for v in ranked["stat"]):
                    pass  # a rule parameter's "point" is not a stat point: no exchange rate
                elif others:
                    blocks.append(Paragraph(
                        "No exchange rate between the two stats: their slopes are averaged "
                        "over " + ", ".join(others) + "; read the curves level by level."))
                elif abs(small) >= 0.005:
                    verb = "is worth" if big / small > 0 else "offsets"  # same or opposite sides
                    blocks.append(Paragraph(
                        f"Exchange rate: one point of {ranked['stat'].iloc[0]} {verb} about "
                        f"{abs(big / small):.1f} points of {ranked['stat'].iloc[1]}."))
            blocks.extend(Paragraph(text, kind="note") for text in wrong_way)
        blocks.extend(_sensitivity_tables(results, axes, axes))
        if "draw" in results and results["draw"].max() > 0:
            blocks.append(Paragraph(f"Draws: from {results['draw'].min():.1%} to "
                                    f"{results['draw'].max():.1%} of fights."))
    caveat = _equilibrium_caveat(ruleset, exact)
    if caveat is not None and any(isinstance(b, Paragraph) and b.text.startswith(
            ("Draws", "Mean fight length")) for b in blocks):
        blocks.append(caveat)
    if blocks:
        sections.append(Section("What the numbers say", tuple(blocks)))
    fair = _fair_section(spec, meta, allow_import)
    if fair is not None:
        sections.append(fair)

    # --- the table ---
    if best:
        caption = ("Every cell under best play: A's value" + ("" if exact else
                   " [95% bootstrap interval]") + ", the value with the policies as given, "
                   "and the policies each side plays at the equilibrium (a mix shows each "
                   "profile's weight)" + ("" if exact else "; profiles evaluated and fights run"))
        shown_results = best_results_table(results, axes, exact=exact)
    else:
        caption = ("Every cell; exact rates (no sampling interval), the solver's states and "
                   "time" if exact else "Every cell; rates with 95% Wilson intervals")
        shown_results = results_table(results, axes, exact=exact)
    result_blocks: list[Block] = [Table(shown_results, caption, collapsed=len(results) > 40)]
    if caveat is not None:
        result_blocks.append(caveat)
    sections.append(Section("Results", tuple(result_blocks)))

    # --- the rules ---
    blocks = [Paragraph(f"Ruleset {ruleset.name}: {ruleset.title} (seed {ruleset.seed_document};"
                        f" digest {ruleset.digest}).")]
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
    if flagged:
        swept = {a.split(".", 1)[1]: list(dict.fromkeys(results[a])) for a in axes
                 if a.startswith("rules.")}
        blocks.append(Table(_assumption_rows(ruleset, rules_overrides, flagged, swept),
                            "DEFAULT / AMBIG readings in force: the results depend on these"))
    policy_rows = _policy_rows(ruleset, disclosed, best)
    if len(policy_rows):
        blocks.append(Table(policy_rows, "Policies: the decisions fighters make (not rules); "
                            "the results rest on these too"
                            + (" (best play chose each side's, cell by cell)" if best else "")))
    sections.append(Section("Rules used", tuple(blocks)))

    # --- reproduce ---
    versions = meta.get("versions", {})
    timings = meta.get("timings", {})
    source = meta.get("source") or "EXPERIMENT.toml"
    lines = [f"balance sweep {source}" + (" --play best" if best else "")]
    seeds = [] if exact else [{"item": "seed", "value": str(meta.get("seed"))},
                              {"item": "seed entropy", "value": str(meta.get("entropy"))}]
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
    sections.append(Section("Reproduce", (
        Paragraph("The same seed and chunk size give the same table on any machine, with any "
                  "executor and worker count:" if not exact else
                  "An exact run needs no seed: the same balance version gives the same "
                  "table (but for the solve_ms timings) on any machine, executor and worker "
                  "count:"),
        Paragraph("\n".join(lines), kind="code"),
        Table(facts, "Provenance"))))
    return Report(str(meta.get("description", "balance report")),
                  f"{ruleset.name} · {n_cells:,} cells · "
                  + ("exact" if exact else f"{fights:,} fights"), tuple(sections), dict(meta))



def _fair_section(spec: Mapping[str, Any], meta: Mapping[str, Any], allow_import: bool
                  ) -> Section | None:
    """"What would make it fair": the answer to each ``[[tune]]`` table of the spec, worked
    out now by :func:`balance.analysis.tune.from_spec` (seeded by the run, so the same each
    time), with the values tried and how."""
    if not spec.get("tune"):
        return None
    from ..analysis.tune import from_spec
    from ..sweep.spec import load_spec

    parsed = load_spec(spec, name="spec", allow_import=allow_import)
    blocks: list[Block] = []
    for i in range(len(parsed.tune)):
        result = from_spec(parsed, i, entropy=meta.get("entropy"), allow_import=allow_import)
        around = getattr(result, "around", lambda: "")()
        blocks.append(Paragraph(result.sentence() + (f" {around}" if around else "")))
        frame = result.to_frame()
        blocks.append(Table(frame, "Every value tried" if "fights" in frame else
                            "Handicaps, and each entrant's expected score against the field "
                            "(both seats) before and after", collapsed=len(frame) > 12))
        blocks.append(Paragraph(" ".join([result.how(), *(f"{n[0].upper()}{n[1:]}."
                                                           for n in result.notes)]),
                                kind="note"))
    return Section("What would make it fair", tuple(blocks))


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
