"""Round-robin matchup tables: every entrant against every other, in both seats."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..api import METHODS, matchup
from ..engine import DEFAULT_CHUNK_SIZE, run
from ..errors import SpecError
from ..fields import plain
from ..random import root_entropy
from ..results import Summary

__all__ = ["field_scores", "pair_scores", "policies", "round_robin", "score_matrix"]


DEFAULT_N = 20_000
"""Fights per ordered pair of a simulated round robin (policies as given)."""


def round_robin(ruleset: Any, entrants: Mapping[str, Any] | Sequence[str], *,
                rules: Any = None, n: int | None = None, precision: float | None = None,
                seed: int | None = 0, mirror: bool = True, chunk_size: int | None = None,
                method: str | None = None, play: str = "default", draw_worth: float = 0.5,
                search: Mapping[str, Sequence[Any] | None] | None = None,
                workers: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> pd.DataFrame:
    """Fight every entrant against every other, in both seats.

    Parameters
    ----------
    ruleset
        Registry name or ruleset object (e.g. one with presets of your own,
        :meth:`~balance.rulesets.base.Ruleset.with_presets`).
    entrants
        Name -> side (anything :func:`balance.duel` accepts), or a list of preset names.
    rules
        Rules object or overrides, shared by every matchup.
    n, precision
        Fights per ordered pair (default 20 000), or a target interval half-width (with
        ``n`` the cap).  Under best play: fights per profile pair, or the value's target
        half-width (default 0.01).
    seed
        Root seed.  Each ordered pair ``(a, b)`` draws from its own streams keyed by the
        two names, so adding an entrant never changes the numbers of the others.
    mirror
        Also fight each entrant against itself (the seat advantage).
    method
        ``"simulate"`` (Monte Carlo, ``n`` / ``precision`` fights a pair) or ``"exact"``
        (each pair solved by the ruleset's exact solver: rates without sampling error,
        ``n = 0``, ``_low = _high`` = the rate, no counts).  ``None`` (the default): exact
        when the ruleset has an exact solver that accepts every pair (its ``exact_check``
        says so without solving), else simulate.  The method used is in ``attrs``.
    play
        ``"default"`` (the policies as given) or ``"best"``: each ordered pair's policies
        chosen as a zero-sum game (:mod:`balance.analysis.bestplay`; exact where the
        ruleset's solver reaches every pair, else Monte Carlo over the profiles).
    draw_worth, search
        Best play: what a draw is worth to A, and the policies searched (see
        :func:`balance.analysis.bestplay.best_play`).
    workers
        Best play: pairs solved at once in worker processes (default 1: here).  The
        numbers do not depend on it: each pair's streams are keyed by the two names.

    Returns
    -------
    DataFrame
        One row per ordered pair: ``a``, ``b``, ``n``, ``a_win``/``b_win``/``draw`` with
        ``_low``/``_high`` 95% Wilson bounds, fight-length statistics, and the counts
        ``a_wins``, ``b_wins``, ``draws``, and ``policies``: the policies the pair rests
        on (``Ruleset.policies``, ``"; "``-joined).  Exact rows: ``n = 0``, ``method = "exact"``,
        ``mean_rounds`` where the solver gives it, and the solver's details as
        ``detail_<name>`` columns.

        Best-play rows add ``value`` (A's expected score under best play) with
        ``value_low`` / ``value_high``, ``policy_a`` / ``policy_b`` (each side's
        equilibrium in the game's words), ``profiles_a`` / ``profiles_b`` (profiles
        evaluated), ``default_value`` and ``default_a_win`` / ``_b_win`` / ``_draw`` (the
        policies as given, on the same streams), ``fights`` (all fights run) and
        ``play = "best"``.  Their rates are those of the equilibrium; ``n`` is the fights
        behind each entry of the payoff matrix and the counts are the rates times ``n``
        (the analyses read them as that many fights).  ``attrs["play"]`` says so.
    """
    if not isinstance(entrants, Mapping):
        entrants = {name: name for name in entrants}
    names = list(entrants)
    if len(names) < 2:
        raise SpecError("a round robin needs at least two entrants")
    if method not in (None, *METHODS):
        raise SpecError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    from ..api import get

    rs = get(ruleset)
    ruleset = rs.name
    if play not in ("default", "best"):
        raise SpecError(f"play must be one of default, best, got {play!r}")
    pairs = [(a, b) for a in names for b in names if a != b or mirror]
    resolved = [(a, b, *matchup(rs, entrants[a], entrants[b], rules)) for a, b in pairs]
    if play == "best":
        return _best_round_robin(ruleset, names, resolved, method=method, n=n,
                                 precision=precision, seed=seed, chunk_size=chunk_size,
                                 draw_worth=draw_worth, search=search, workers=workers,
                                 progress=progress)
    n = DEFAULT_N if n is None else n
    chunk_size = DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
    if method is None:
        method = "exact" if all(_solvable(*m[2:]) for m in resolved) else "simulate"
    if method == "exact":
        return _exact_round_robin(ruleset, names, resolved, progress)
    entropy = root_entropy(seed)
    rows = []
    for i, (a, b, rs, rules_obj, side_a, side_b) in enumerate(resolved):
        start = time.perf_counter()
        tally = run(rs, rules_obj, side_a, side_b, entropy=entropy, n=n if precision is None
                    else None, precision=precision, key=("round-robin", a, b),
                    chunk_size=chunk_size)
        summary = Summary(rs.name, tally)
        draws, a_wins, b_wins = (int(v) for v in tally.wins)
        rows.append({"a": a, "b": b, **summary.to_row(), "a_wins": a_wins, "b_wins": b_wins,
                     "draws": draws, "policies": _disclosed(rs, rules_obj, side_a, side_b),
                     "elapsed_s": time.perf_counter() - start})
        if progress is not None:
            progress(i + 1, len(pairs))
    frame = pd.DataFrame(rows)
    frame.attrs.update({"ruleset": ruleset, "seed": seed, "entropy": entropy,
                        "entrants": names, "chunk_size": chunk_size, "method": "simulate",
                        "play": "default"})
    return frame


def _best_pair(ruleset: Any, a: str, b: str, rules: Any, side_a: Any, side_b: Any,
               options: Mapping[str, Any]) -> dict[str, Any]:
    """One ordered pair under best play, as a row (a task: runs in any process)."""
    from ..rulesets import resolve
    from . import bestplay

    rs = resolve(ruleset, allow_import=True) if isinstance(ruleset, str) else ruleset
    start, cpu = time.perf_counter(), time.process_time()
    try:
        answer = bestplay.solve(rs, rules, side_a, side_b, key=("round-robin-best", a, b),
                                **options)
    except SpecError as exc:
        return {"a": a, "b": b, "rejected": exc.reason}
    row: dict[str, Any] = {"a": a, "b": b, **answer.to_row()}
    row["policies"] = "; ".join(answer.policies) or "none"
    if answer.n:  # the equilibrium's rates as counts of the fights behind each entry
        a_wins, draws = round(answer.a_win * answer.n), round(answer.draw * answer.n)
        row.update({"a_wins": a_wins, "b_wins": answer.n - a_wins - draws, "draws": draws})
    row["elapsed_s"] = time.perf_counter() - start
    row["cpu_s"] = time.process_time() - cpu
    return row


def _map_pairs(tasks: Sequence[tuple[Any, ...]], workers: int | None,
               progress: Callable[[int, int], None] | None) -> list[dict[str, Any]]:
    """``_best_pair`` over the tasks, here or in ``workers`` processes, in task order."""
    rows: list[dict[str, Any] | None] = [None] * len(tasks)
    if not workers or workers <= 1 or len(tasks) <= 1:
        for i, task in enumerate(tasks):
            rows[i] = _best_pair(*task)
            if progress is not None:
                progress(i + 1, len(tasks))
        return [r for r in rows if r is not None]
    import concurrent.futures as cf
    import multiprocessing as mp

    method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method)) as pool:
        futures = {pool.submit(_best_pair, *task): i for i, task in enumerate(tasks)}
        for done, future in enumerate(cf.as_completed(futures), start=1):
            rows[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(tasks))
    return [r for r in rows if r is not None]


def _best_round_robin(ruleset: str, names: list[str], resolved: Sequence[tuple[Any, ...]], *,
                      method: str | None, n: int | None, precision: float | None,
                      seed: int | None, chunk_size: int | None, draw_worth: float,
                      search: Mapping[str, Sequence[Any] | None] | None,
                      workers: int | None,
                      progress: Callable[[int, int], None] | None) -> pd.DataFrame:
    """Every ordered pair under best play: exact where the solver reaches every pair (or
    ``method="exact"``), else Monte Carlo for all (one method a table)."""
    from . import bestplay

    if n is None and precision is None:
        precision = bestplay.DEFAULT_PRECISION
    bestplay.check_options(draw_worth=draw_worth, method=method, space=None,
                           precision=precision, n=n,
                           chunk_size=chunk_size or bestplay.CHUNK_SIZE)
    entropy = root_entropy(seed)
    name = resolved[0][2].name if resolved else ruleset
    simulate = {"method": "simulate", "draw_worth": draw_worth, "search": search,
                "precision": precision, "n": n, "entropy": entropy, "seed": seed,
                "chunk_size": chunk_size or bestplay.CHUNK_SIZE}

    def tasks(options: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        ref = ruleset if isinstance(ruleset, str) else name
        return [(ref, a, b, rules_obj, side_a, side_b, options)
                for a, b, rs, rules_obj, side_a, side_b in resolved]

    rows: list[dict[str, Any]] | None = None
    if method in (None, "exact"):
        exact = {"method": "exact", "draw_worth": draw_worth, "search": search}
        first = _best_pair(*tasks(exact)[0]) if resolved else {}
        if "rejected" not in first:
            rows = [first, *_map_pairs(tasks(exact)[1:], workers, progress)]
        rejected = next((r for r in rows or [first] if "rejected" in r), None)
        if rejected is not None:
            if method == "exact":
                raise SpecError(f"{rejected['a']} against {rejected['b']}: "
                                f"{rejected['rejected']} (method 'simulate' runs it by Monte "
                                "Carlo)")
            rows = None
    if rows is None:
        rows = _map_pairs(tasks(simulate), workers, progress)
        bad = next((r for r in rows if "rejected" in r), None)
        if bad is not None:
            raise SpecError(f"{bad['a']} against {bad['b']}: {bad['rejected']}")
    frame = pd.DataFrame(rows)
    used = "simulate" if (frame["method"] == "simulate").all() else "exact"
    frame.attrs.update({"ruleset": name, "entrants": names, "method": used, "play": "best",
                        "draw_worth": draw_worth, "precision": precision, "n": n,
                        **({"seed": seed, "entropy": entropy} if used == "simulate" else {})})
    return frame




def _disclosed(rs: Any, rules: Any, side_a: Any, side_b: Any) -> str:
    """The policies a pair rests on, as one cell (``"; "``-joined, ``"none"``)."""
    return "; ".join(rs.policies(rules, side_a, side_b)) or "none"


def policies(table: pd.DataFrame) -> list[str]:
    """The policies a round-robin table rests on: each distinct disclosure of any pair,
    in order (best-play tables: the rule-scope policies and each pair's equilibria are in
    their ``policy_a`` / ``policy_b`` columns)."""
    seen: dict[str, None] = {}
    for cell in table.get("policies", pd.Series([], dtype=object)):
        for item in str(cell).split("; "):
            if item and item != "none":
                seen.setdefault(item)
    return list(seen)


def _solvable(rs: Any, rules: Any, side_a: Any, side_b: Any) -> bool:
    """Whether the ruleset says (without solving) that its exact solver answers this pair."""
    return not rs.exact_check(rules, side_a, side_b)


def _exact_round_robin(ruleset: str, names: list[str], resolved: Sequence[tuple[Any, ...]],
                       progress: Callable[[int, int], None] | None) -> pd.DataFrame:
    rows = []
    for i, (a, b, rs, rules_obj, side_a, side_b) in enumerate(resolved):
        start = time.perf_counter()
        try:
            answer = rs.exact(rules_obj, side_a, side_b)
        except SpecError as exc:
            raise SpecError(f"{a} against {b}: {exc.reason} (method 'simulate' runs it by "
                            "Monte Carlo)") from None
        row: dict[str, Any] = {"a": a, "b": b, "n": 0}
        for rate in ("a_win", "b_win", "draw"):
            value = float(getattr(answer, rate))
            row[rate] = row[f"{rate}_low"] = row[f"{rate}_high"] = value
        row["mean_rounds"] = (np.nan if answer.mean_rounds is None
                              else float(answer.mean_rounds))
        row["method"] = "exact"
        row["policies"] = _disclosed(rs, rules_obj, side_a, side_b)
        for key, value in dict(answer.details).items():
            plain_value = plain(value)
            row[f"detail_{key}"] = (plain_value if plain_value is None or isinstance(
                plain_value, bool | int | float | str) else str(plain_value))
        row["elapsed_s"] = time.perf_counter() - start
        rows.append(row)
        if progress is not None:
            progress(i + 1, len(resolved))
    frame = pd.DataFrame(rows)
    frame.attrs.update({"ruleset": ruleset, "entrants": names, "method": "exact", "play": "default"})
    return frame


def score_matrix(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Seat-averaged expected score of the row entrant against the column entrant.

    A win scores 1, a draw 0.5.  Both seats are averaged (weighted by fights), so
    ``score[i, j] + score[j, i] = 1``.  A row of an exact run (``n = 0``: rates, no
    counts) counts as one fight with its exact rates.

    Returns
    -------
    score, fights
        Square DataFrames indexed by entrant: the expected score and the fights behind it.
    """
    names = list(dict.fromkeys([*table["a"], *table["b"]]))
    index = {name: i for i, name in enumerate(names)}
    a = np.array([index[x] for x in table["a"]], dtype=np.intp)
    b = np.array([index[x] for x in table["b"]], dtype=np.intp)
    n = table["n"].to_numpy(float)
    exact = n == 0  # an exact answer: its rates, weighted as one fight

    def column(name: str, rows: np.ndarray) -> np.ndarray:
        # Only the rows that use a column are read: exact rows have no counts, simulated
        # ones no meaningful rates-as-scores.
        if name not in table or not rows.any():
            return np.zeros(int(rows.sum()))
        return table[name].to_numpy()[rows].astype(float)

    a_score, b_score = np.empty(len(table)), np.empty(len(table))
    a_score[exact] = column("a_win", exact) + 0.5 * column("draw", exact)
    b_score[exact] = column("b_win", exact) + 0.5 * column("draw", exact)
    counted = ~exact
    a_score[counted] = column("a_wins", counted) + 0.5 * column("draws", counted)
    b_score[counted] = column("b_wins", counted) + 0.5 * column("draws", counted)
    fights = np.where(exact, 1.0, n)
    wins = np.zeros((len(names), len(names)))
    games = np.zeros((len(names), len(names)))
    np.add.at(wins, (a, b), a_score)  # unbuffered: repeated pairs add up
    np.add.at(wins, (b, a), b_score)
    np.add.at(games, (a, b), fights)
    np.add.at(games, (b, a), fights)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = pd.DataFrame(wins / games, index=names, columns=names)
    return score, pd.DataFrame(games, index=names, columns=names)


def pair_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Each entrant's expected score against each other entrant, both seats pooled, with an
    interval.

    A win scores 1 and a draw 1/2.  A simulated pair's interval is the normal one for the
    mean score of its fights (variance ``(w + d/4) / n - s^2`` from its win and draw
    counts); an exact pair's is the value itself.  Mirror matches are left out.

    Returns
    -------
    DataFrame
        One row per ordered pair of distinct entrants: ``entrant``, ``opponent``,
        ``score``, ``score_low``, ``score_high``, ``n`` (fights in both seats; 0 exact).
    """
    from ..stats import z_value

    names = list(dict.fromkeys([*table["a"], *table["b"]]))
    exact = bool((table["n"] == 0).all())
    z = z_value(confidence)
    rows = []
    for i in names:
        for j in names:
            if i == j:
                continue
            as_a = table[(table["a"] == i) & (table["b"] == j)]
            as_b = table[(table["a"] == j) & (table["b"] == i)]
            if exact:
                parts = [*(as_a["a_win"] + 0.5 * as_a["draw"]),
                         *(as_b["b_win"] + 0.5 * as_b["draw"])]
                if not parts:
                    continue
                score = float(np.mean(parts))
                rows.append({"entrant": i, "opponent": j, "score": score, "score_low": score,
                             "score_high": score, "n": 0})
                continue
            wins = float(_count(as_a, "a_win").sum() + _count(as_b, "b_win").sum())
            draws = float(_count(as_a, "draw").sum() + _count(as_b, "draw").sum())
            n = float(as_a["n"].sum() + as_b["n"].sum())
            if n == 0:
                continue
            score, low, high = _score_interval(wins, draws, n, z)
            rows.append({"entrant": i, "opponent": j, "score": float(score),
                         "score_low": float(low), "score_high": float(high), "n": int(n)})
    return pd.DataFrame(rows, columns=["entrant", "opponent", "score", "score_low",
                                       "score_high", "n"])


def _score_interval(wins: Any, draws: Any, n: Any, z: float) -> tuple[Any, Any, Any]:
    """A's expected score from win and draw counts of ``n`` fights (scalars or arrays), and
    its normal interval: the variance of one fight's score is ``(w + d/4) / n - s^2``."""
    score = (wins + 0.5 * draws) / n
    se = np.sqrt(np.maximum((wins + 0.25 * draws) / n - score**2, 0.0) / n)
    return score, np.maximum(0.0, score - z * se), np.minimum(1.0, score + z * se)


def with_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """``table`` (a sweep's rows: ``a_win``, ``draw``, ``n`` and the counts) with A's expected
    score in each row -- ``score`` (a win 1, a draw 1/2), ``score_low``, ``score_high`` --
    its interval as :func:`pair_scores` makes it (an exact row's, ``n = 0``, is the value).
    A table without ``draw`` has none."""
    from ..stats import z_value

    if {"score", "score_low", "score_high"} <= set(table.columns):
        return table
    n = table["n"].to_numpy(float)
    exact = n == 0
    draw = table["draw"] if "draw" in table else pd.Series(0.0, index=table.index)
    counted = table.assign(draw=draw)
    wins = np.where(exact, table["a_win"].to_numpy(float), _count(counted, "a_win").to_numpy())
    draws = np.where(exact, draw.to_numpy(float), _count(counted, "draw").to_numpy())
    score, low, high = _score_interval(wins, draws, np.where(exact, 1.0, n),
                                       z_value(confidence))
    return table.assign(score=score, score_low=np.where(exact, score, low),
                        score_high=np.where(exact, score, high))


COUNTS = {"a_win": "a_wins", "b_win": "b_wins", "draw": "draws"}


def _count(rows: pd.DataFrame, rate: str) -> pd.Series:
    """Fights of ``rows`` that ended in ``rate``: the count column, or (a table of rates
    and fights only, e.g. best play's) the rate times the fights."""
    if COUNTS[rate] in rows:
        return rows[COUNTS[rate]].astype(float)
    return rows[rate].astype(float) * rows["n"].astype(float)


def field_scores(table: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Each entrant's mean expected score against the rest of the field, with an interval,
    and its hardest and easiest opponent (see :func:`pair_scores`).

    Returns
    -------
    DataFrame
        Indexed by entrant, best first: ``score``, ``score_low``, ``score_high`` (the mean
        over opponents, each counted alike; its interval from the pairs' standard errors),
        ``worst`` (the opponent it scores least against), ``worst_score`` with
        ``worst_low`` / ``worst_high``, ``best`` and ``best_score``.
    """
    from ..stats import z_value

    pairs = pair_scores(table, confidence=confidence)
    z = z_value(confidence)
    rows = []
    for entrant, part in pairs.groupby("entrant", sort=False):
        se = (part["score_high"] - part["score_low"]) / (2 * z)
        score = float(part["score"].mean())
        half = z * float(np.sqrt(np.sum(np.square(se)))) / len(part)
        worst = part.loc[part["score"].idxmin()]
        best = part.loc[part["score"].idxmax()]
        rows.append({"entrant": entrant, "score": score, "score_low": score - half,
                     "score_high": score + half, "worst": worst["opponent"],
                     "worst_score": float(worst["score"]),
                     "worst_low": float(worst["score_low"]),
                     "worst_high": float(worst["score_high"]), "best": best["opponent"],
                     "best_score": float(best["score"])})
    out = pd.DataFrame(rows).set_index("entrant")
    return out.sort_values("score", ascending=False)
