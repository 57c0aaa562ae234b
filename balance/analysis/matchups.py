"""Round-robin matchup tables: every entrant against every other, in both seats."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..api import METHODS
from ..batching import Segment, pack
from ..engine import DEFAULT_CHUNK_SIZE, MAX_FIGHTS, reached, run_segments
from ..errors import SpecError
from ..fields import check_text, plain
from ..random import STREAMS, root_entropy
from ..results import Summary, Tally
from ..rulesets.base import Ruleset
from .scores import field_scores, pair_scores, policies, score_matrix, with_scores

__all__ = ["field_scores", "pair_scores", "policies", "round_robin", "score_matrix",
           "with_scores"]


DEFAULT_N = 20_000
"""Fights per ordered pair of a simulated round robin (policies as given)."""


def round_robin(ruleset: Any, entrants: Mapping[str, Any] | Sequence[str], *,
                rules: Any = None, n: int | None = None, precision: float | None = None,
                seed: int | None = 0, mirror: bool = True, chunk_size: int | None = None,
                method: str | None = None, play: str = "default", draw_worth: float = 0.5,
                search: Mapping[str, Sequence[Any] | None] | None = None,
                workers: int | None = None, streams: str = "common",
                progress: Callable[[int, int], None] | None = None,
                allow_import: bool = False) -> pd.DataFrame:
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
        Root seed.  Adding an entrant never changes the numbers of the others: a pair's
        streams depend on the seed and ``streams`` only, never on its company.
    streams
        ``"common"`` (the default): every ordered pair plays on the same streams (common
        random numbers, the key a sweep's cells use), so two entrants' rows against the
        same opponent differ by what the entrants do, not by their dice, and a pair's
        counts equal a one-cell sweep's or ``balance.engine.run(..., key=("common",))``'s
        with the same seed.  ``"independent"``: each ordered pair on its own streams, keyed
        by the two names.  Simulated round robins only (best play keys its own).
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
    allow_import
        Whether a ``"package.module:OBJECT"`` ruleset may be imported (as
        :func:`balance.duel`); worker processes are given the same permission.

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
    for name in names:
        check_text(str(name), "an entrant's name")
    if method not in (None, *METHODS):
        raise SpecError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if streams not in STREAMS:
        raise SpecError(f"streams must be one of {', '.join(STREAMS)}, got {streams!r}")
    from ..api import get

    rs = get(ruleset, allow_import=allow_import)
    if play not in ("default", "best"):
        raise SpecError(f"play must be one of default, best, got {play!r}")
    if workers is not None:
        from ..budget import check_workers

        check_workers(workers)
    pairs = [(a, b) for a in names for b in names if a != b or mirror]
    resolved = _resolved(rs, entrants, pairs, rules)
    if play == "best":
        return _best_round_robin(rs, names, resolved, method=method, n=n,
                                 precision=precision, seed=seed, chunk_size=chunk_size,
                                 draw_worth=draw_worth, search=search, workers=workers,
                                 progress=progress)
    n = DEFAULT_N if n is None else n
    chunk_size = DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size
    if method is None:
        method = _auto_method(resolved)
    if method == "exact":
        return _exact_round_robin(rs.name, names, resolved, progress)
    return _simulated_round_robin(names, resolved, n=n, precision=precision, seed=seed,
                                  chunk_size=chunk_size, progress=progress, workers=workers,
                                  streams=streams)



def _resolved(rs: Ruleset, entrants: Mapping[str, Any], pairs: Sequence[tuple[str, str]],
              rules: Any) -> list[tuple[Any, ...]]:
    """``(a, b, ruleset, rules, side_a, side_b)`` of each pair, as :func:`balance.api.matchup` makes
    them, the rules and each entrant's side built once (building a ruleset's rules checks
    every table, and a round robin of 19 asks for them 361 times): the same objects, the
    same errors in the same order (the rules first, then the first entrant that fails)."""
    rules_obj = _rules_of(rs, rules)
    sides: dict[str, Any] = {}
    for a, b in pairs:
        for name in (a, b):
            if name not in sides:
                sides[name] = rs.side(entrants[name])
    out = []
    for a, b in pairs:
        rs.check_sides(rules_obj, sides[a], sides[b])
        out.append((a, b, rs, rules_obj, sides[a], sides[b]))
    return out


def _rules_of(rs: Ruleset, rules: Any) -> Any:
    """The rules :func:`balance.api.matchup` makes of ``rules`` (a Rules object or a mapping of
    overrides), or its error."""
    if isinstance(rules, rs.Rules):
        return rs.rules(rules)
    if rules is None or isinstance(rules, Mapping):
        return rs.rules(dict(rules or {}))
    raise SpecError(f"rules must be a {rs.name} Rules object or a mapping of overrides")


def _simulated_round_robin(names: list[str], resolved: Sequence[tuple[Any, ...]], *, n: int,
                           precision: float | None, seed: int | None, chunk_size: int,
                           progress: Callable[[int, int], None] | None,
                           workers: int | None = None, pool: Any = None,
                           streams: str = "common") -> pd.DataFrame:
    """The Monte Carlo round robin: every ordered pair on common streams, or each on its
    own keyed by the two names (``streams``, see :func:`round_robin`).  Every pair's chunks are segments of shared kernel
    calls (:func:`balance.engine.run_segments`); with ``precision``, chunk ``i`` of every
    pair still short of it runs in wave ``i``, each pair stopping where
    :func:`balance.engine.run` would.  Counts are the same alone, in any company, on any
    executor: ``pool`` (a ``concurrent.futures`` executor) or ``workers`` processes."""
    entropy = root_entropy(seed)
    rs = resolved[0][2]
    cap = n if precision is None else MAX_FIGHTS
    n_chunks = -(-cap // chunk_size)

    def size(index: int) -> int:  # as engine.chunk_sizes
        return min(chunk_size, cap - index * chunk_size)

    totals = [Tally.empty(getattr(rs, "causes", ())) for _ in resolved]
    seconds = [0.0] * len(resolved)
    open_ = list(range(len(resolved)))
    finished = 0
    with _batch_pool(workers, pool, len(resolved) * (n_chunks if precision is None else 1)
                     ) as executor:
        wave = 0
        while open_ and wave < n_chunks:
            indices = range(n_chunks) if precision is None else range(wave, wave + 1)
            wave = indices[-1] + 1
            segments = [Segment(m[3], tuple(m[4]), tuple(m[5]), size(i),
                                _pair_key(streams, m[0], m[1]), i)
                        for p in open_ for m in (resolved[p],) for i in indices]
            owners = [p for p in open_ for _ in indices]
            left = Counter(owners)
            still = []
            for j, tally, spent in _run_batches(rs, segments, entropy, executor):
                p = owners[j]  # a pair's chunks come in index order, folded as engine.run
                totals[p], seconds[p], left[p] = totals[p] + tally, seconds[p] + spent, left[p] - 1
                if left[p]:
                    continue
                if precision is not None and wave < n_chunks \
                        and not reached(totals[p], precision):
                    still.append(p)
                    continue
                finished += 1
                if progress is not None:
                    progress(finished, len(resolved))
            open_ = sorted(still)
    rows = []
    for p, (a, b, rs_, rules_obj, side_a, side_b) in enumerate(resolved):
        tally = totals[p]
        draws, a_wins, b_wins = (int(v) for v in tally.wins)
        rows.append({"a": a, "b": b, **Summary(rs_.name, tally).to_row(), "a_wins": a_wins,
                     "b_wins": b_wins, "draws": draws,
                     "policies": _disclosed(rs_, rules_obj, side_a, side_b),
                     "elapsed_s": seconds[p]})
    frame = pd.DataFrame(rows)
    frame.attrs.update({"ruleset": rs.name, "seed": seed, "entropy": entropy,
                        "entrants": names, "chunk_size": chunk_size, "method": "simulate",
                        "play": "default", "streams": streams})
    return frame


def _pair_key(streams: str, a: str, b: str) -> tuple[str, ...]:
    """The spawn key of an ordered pair's streams: the sweep runner's common key, or the
    pair's own."""
    return ("common",) if streams == "common" else ("round-robin", a, b)


@contextlib.contextmanager
def _batch_pool(workers: int | None, pool: Any, n_tasks: int) -> Iterator[Any]:
    """The executor batches go to: ``pool`` as given, else ``workers`` processes (as
    :func:`_map_pairs` starts them), else ``None`` (here)."""
    if pool is not None or not workers or workers <= 1 or n_tasks <= 1:
        yield pool
        return
    import concurrent.futures as cf
    import multiprocessing as mp

    from ..budget import MAX_WORKERS

    method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    with cf.ProcessPoolExecutor(max_workers=min(workers, MAX_WORKERS),
                                mp_context=mp.get_context(method)) as executor:
        yield executor


def _run_batches(rs: Any, segments: Sequence[Segment], entropy: int, executor: Any
                 ) -> Iterator[tuple[int, Tally, float]]:
    """``(segment index, tally, seconds)`` of every segment, the segments packed into
    batches of the ruleset's ``batch_key`` (:func:`balance.batching.pack`), each batch one
    task on ``executor`` (here when ``None``); a batch's seconds are shared out by fights."""
    from ..rulesets import portable

    batches = list(pack(segments, key=rs.batch_key, batch_fights=DEFAULT_CHUNK_SIZE))
    if executor is None:
        results = (segments_task(rs, False, [segments[i] for i in b], entropy)
                   for b in batches)
    else:
        ref = portable(rs)
        results = executor.map(segments_task, *zip(*(
            (*ref, [segments[i] for i in b], entropy) for b in batches), strict=True))
    for members, (tallies, spent) in zip(batches, results, strict=True):
        fights = sum(segments[i].n for i in members)
        for i, tally in zip(members, tallies, strict=True):
            yield i, tally, spent * segments[i].n / fights


def segments_task(ruleset: Any, allow_import: bool, segments: Sequence[Segment], entropy: int
                  ) -> tuple[list[Tally], float]:
    """One batch (a task: runs in any process; the ruleset as :func:`balance.rulesets.portable`
    gives it, or the object itself here): each segment's tally and the wall seconds."""
    from ..rulesets import resolve

    rs = resolve(ruleset, allow_import=allow_import) if isinstance(ruleset, str) else ruleset
    start = time.perf_counter()
    tallies = run_segments(rs, segments, entropy=entropy)
    return tallies, time.perf_counter() - start


def planned_method(ruleset: Any, entrants: Mapping[str, Any], *, rules: Any = None,
                   method: str | None = None, mirror: bool = True,
                   allow_import: bool = False) -> str:
    """The method :func:`round_robin` with the policies as given uses: ``method`` when
    given, else exact where the ruleset's solver accepts every pair (asked without
    solving), else simulate.  What a budget is estimated on before the round robin runs."""
    if method is not None:
        return method
    from ..api import get

    rs = get(ruleset, allow_import=allow_import)
    names = list(entrants)
    return _auto_method(_resolved(rs, entrants, [(a, b) for a in names for b in names
                                                 if a != b or mirror], rules))


def _auto_method(resolved: Sequence[tuple[Any, ...]]) -> str:
    return "exact" if all(_solvable(*m[2:]) for m in resolved) else "simulate"


def _best_pair(ruleset: str, allow_import: bool, a: str, b: str, rules: Any, side_a: Any,
               side_b: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """One ordered pair under best play, as a row (a task: runs in any process; the ruleset
    travels as :func:`balance.rulesets.portable` gives it, with the permission the caller
    had)."""
    from ..rulesets import resolve
    from . import bestplay

    rs = resolve(ruleset, allow_import=allow_import)
    start, cpu = time.perf_counter(), time.process_time()
    answer: Any
    try:
        answer = bestplay.solve(rs, rules, side_a, side_b, key=("round-robin-best", a, b),
                                **options)
    except SpecError as exc:
        answer = exc
    return _best_row(a, b, answer, time.perf_counter() - start, time.process_time() - cpu)


def _best_row(a: str, b: str, answer: Any, elapsed: float, cpu: float) -> dict[str, Any]:
    """A best-play answer (or the SpecError that refused it) as a round-robin row."""
    if isinstance(answer, SpecError):
        return {"a": a, "b": b, "rejected": answer.reason}
    row: dict[str, Any] = {"a": a, "b": b, **answer.to_row()}
    row["policies"] = "; ".join(answer.policies) or "none"
    if answer.n:  # the equilibrium's rates as counts of the fights behind each entry
        a_wins, draws = round(answer.a_win * answer.n), round(answer.draw * answer.n)
        row.update({"a_wins": a_wins, "b_wins": answer.n - a_wins - draws, "draws": draws})
    row["elapsed_s"], row["cpu_s"] = elapsed, cpu
    return row


TOGETHER = 16
"""Pairs whose Monte Carlo best play runs in lockstep, their fights in shared kernel calls
(:func:`balance.analysis.bestplay.together`): one task of a best-play round robin."""


def _best_pairs_together(ruleset: str, allow_import: bool,
                         pairs: Sequence[tuple[str, str, Any, Any, Any]],
                         options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Monte Carlo best play of many ordered pairs at once, as rows (a task, as
    :func:`_best_pair`; each row is the one :func:`_best_pair` makes, its seconds its own
    steps' and its share of the shared kernel calls)."""
    from ..rulesets import resolve
    from . import bestplay

    rs = resolve(ruleset, allow_import=allow_import)
    steps = [bestplay.solve_steps(rs, rules, side_a, side_b, key=("round-robin-best", a, b),
                                  **options) for a, b, rules, side_a, side_b in pairs]
    return [_best_row(a, b, answer, wall, cpu) for (a, b, *_), (answer, wall, cpu)
            in zip(pairs, bestplay.together(rs, steps), strict=True)]


def _map_together(tasks: Sequence[tuple[Any, ...]], workers: int | None,
                  progress: Callable[[int, int], None] | None) -> list[dict[str, Any]]:
    """``_best_pair``'s rows of the tasks, :data:`TOGETHER` pairs to a task in lockstep
    (:func:`_best_pairs_together`), here or in ``workers`` processes, in task order.

    A pair and the same pair with the seats swapped go into one task (:func:`_seatings`):
    they ask a ruleset's per-matchup set-up for the same things (strike-rank's race
    model), which a process computes once.  A pair's row does not depend on its task."""
    order = _seatings(tasks)
    ordered = [tasks[i] for i in order]
    groups = [ordered[i:i + TOGETHER] for i in range(0, len(ordered), TOGETHER)]
    jobs = [(*group[0][:2], [task[2:7] for task in group], group[0][7]) for group in groups]
    rows: list[list[dict[str, Any]] | None] = [None] * len(jobs)
    done = 0

    def finished(i: int, found: list[dict[str, Any]]) -> None:
        nonlocal done
        rows[i] = found
        done += len(found)
        if progress is not None:
            progress(done, len(tasks))

    if not workers or workers <= 1 or len(jobs) <= 1:
        for i, job in enumerate(jobs):
            finished(i, _best_pairs_together(*job))
    else:
        import concurrent.futures as cf
        import multiprocessing as mp

        from ..budget import MAX_WORKERS

        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        workers = min(workers, len(jobs), MAX_WORKERS)
        with cf.ProcessPoolExecutor(max_workers=workers,
                                    mp_context=mp.get_context(method)) as pool:
            futures = {pool.submit(_best_pairs_together, *job): i for i, job in enumerate(jobs)}
            for future in cf.as_completed(futures):
                finished(futures[future], future.result())
    out: list[dict[str, Any]] = [{}] * len(tasks)
    for i, row in zip(order, (row for found in rows if found is not None for row in found),
                      strict=True):
        out[i] = row
    return out


def _seatings(tasks: Sequence[tuple[Any, ...]]) -> list[int]:
    """The tasks' indices with each pair next to its swapped seating (``(a, b)`` then
    ``(b, a)``, in the order the first appears; mirror matches last), so that an even task
    size never splits them."""
    first: dict[frozenset[str], int] = {}
    for i, task in enumerate(tasks):
        first.setdefault(frozenset(task[2:4]), i)
    return sorted(range(len(tasks)), key=lambda i: (tasks[i][2] == tasks[i][3],
                                                    first[frozenset(tasks[i][2:4])], i))


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

    from ..budget import MAX_WORKERS

    method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    workers = min(workers, len(tasks), MAX_WORKERS)  # never a process without a pair
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method)) as pool:
        futures = {pool.submit(_best_pair, *task): i for i, task in enumerate(tasks)}
        for done, future in enumerate(cf.as_completed(futures), start=1):
            rows[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(tasks))
    return [r for r in rows if r is not None]


def _best_round_robin(ruleset: Any, names: list[str], resolved: Sequence[tuple[Any, ...]], *,
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
    from ..rulesets import portable

    name = ruleset.name
    ref = portable(ruleset)
    simulate = {"method": "simulate", "draw_worth": draw_worth, "search": search,
                "precision": precision, "n": n, "entropy": entropy, "seed": seed,
                "chunk_size": chunk_size or bestplay.CHUNK_SIZE}

    def tasks(options: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        return [(*ref, a, b, rules_obj, side_a, side_b, options)
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
        rows = _map_together(tasks(simulate), workers, progress)
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
