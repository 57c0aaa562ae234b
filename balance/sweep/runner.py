"""Run a sweep: cells -> chunks on an executor -> cached tallies -> one tidy row per cell.

The unit of work is one **chunk** of one cell: ``balance.engine.run_chunk(..., entropy,
key=(cell key,), index=i)``, a pure function of (ruleset, cell, entropy, i, size).  The
client (this process) hands chunks to an executor, writes every completed chunk's
:class:`~balance.results.Tally` atomically to the run's cache, and adds a cell's chunks in
index order, so the table is the same whichever executor ran the chunks, on how many
workers, in whatever order they finished -- and the same as
``balance.engine.run(..., key=(cell key,))`` cell by cell.

* A cell with a fixed number of fights is ``ceil(fights / chunk_size)`` independent chunks.
* A cell with a target precision runs chunks 0, 1, 2, ... and stops at the first prefix
  whose every interval is narrow enough (``balance.engine.reached``): deterministic, because
  chunk ``i`` is always the same numbers.  To keep workers busy when there are few such
  cells, chunks past the current one may be computed ahead; they are cached and used only
  if the cell gets that far.

Executors: ``auto`` (the default: in this process while the work is small, see
:data:`SMALL_WORK_S`, then on ``processes``), ``serial`` (in this process), ``processes`` (a
``ProcessPoolExecutor``, one worker per core, forkserver or spawn start), ``dask`` (a ``dask.distributed`` client: a
``LocalCluster`` started for the run, or an existing scheduler by address).  On Dask every
task has a key naming its chunk; a worker lost mid-sweep has its tasks rerun elsewhere,
which changes nothing since the tasks are pure.

An exact run (``[run] method = "exact"``) has one task per distinct cell instead,
:func:`balance.sweep.exact.solve_task` (the ruleset's exact solver), on the same executors,
cached per cell (``exact.json``) and resumed the same way; see :mod:`balance.sweep.exact`.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import math
import os
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from ..api import versions
from ..engine import reached, run_chunk
from ..errors import SpecError
from ..random import root_entropy
from ..results import Summary, Tally, Winner
from ..rulesets.base import Ruleset
from . import bestplay as _best
from . import exact as _exact
from . import store
from .grid import Cell, display, expand
from .spec import Spec, load_spec, resolve_ruleset

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXECUTORS", "Run", "SweepInterrupted", "default_workers", "load_run", "run_chunk_task",
           "sweep"]

EXECUTORS: tuple[str, ...] = ("auto", "serial", "processes", "dask")
RUN_FORMAT = "balance-run/1"
STOP_GRACE_S = 10.0
"""On Ctrl-C or a failed chunk, how long to wait for running chunks so they are kept."""
SCHEDULER_TIMEOUT_S = 10.0
"""How long to try to reach a dask scheduler given by address."""
SMALL_WORK_S = 2.0
"""The ``auto`` executor's rule: run tasks in this process while the whole sweep is
estimated to take less than this many seconds here (the mean time of the tasks run so far
times the number of tasks), and hand every later task to a ``processes`` pool as soon as the
estimate (or the time already spent) exceeds it.  Starting a pool costs about a second on a
loaded two-core machine (each worker imports NumPy and balance), which a small sweep -- a
few exact cells, a few thousand fights -- would spend several times over; a large sweep
loses at most its first task or two to running here."""


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# --- the task -----------------------------------------------------------------------------------


def run_chunk_task(ruleset: str, rules: Any, side_a: Any, side_b: Any, entropy: int, key: str,
                   index: int, size: int) -> tuple[Tally, float, float]:
    """Chunk ``index`` (``size`` fights) of cell ``key``: the tally, and the wall and CPU
    seconds the engine took.

    A pure function of its arguments: safe to run anywhere, twice, or again after a lost
    worker.  The ruleset travels by name (or import path) and is looked up where it runs.
    """
    rs = resolve_ruleset(ruleset, allow_import=True)  # the parent resolved it first
    start, cpu = time.perf_counter(), time.process_time()
    tally = run_chunk(rs, rules, side_a, side_b, size=size, entropy=entropy, key=(key,),
                      index=index)
    return tally, time.perf_counter() - start, time.process_time() - cpu


def _chunk_size(index: int, cap: int, chunk_size: int) -> int:
    """Size of chunk ``index`` of a ``cap``-fight run (as ``balance.engine.chunk_sizes``)."""
    return max(0, min(chunk_size, cap - index * chunk_size))


# --- one cell's progress ----------------------------------------------------------------------


class _CellRun:
    """The chunks of one distinct cell: which are done, which to run next, the total."""

    def __init__(self, cell: Cell, spec: Spec, causes: tuple[str, ...],
                 cached: Mapping[tuple[int, int], Tally]) -> None:
        self.cell = cell
        self.key = cell.key
        self.copies = 0  # cells of the grid with this key
        self.cap, self.chunk_size = spec.cap, spec.chunk_size
        self.precision, self.confidence = spec.precision, spec.confidence
        self.n_chunks = math.ceil(self.cap / self.chunk_size)
        self.causes = causes
        self.done: dict[int, Tally] = {}
        for (index, size), tally in cached.items():
            if index < self.n_chunks and size == _chunk_size(index, self.cap, self.chunk_size):
                self.done[index] = tally
        self.in_flight: set[int] = set()
        self.finished = False
        self.prefix = Tally.empty(causes)
        self.next = 0
        if self.precision is None:
            self.finished = len(self.done) == self.n_chunks
        else:
            self._advance()
        self.cached_used = len(self.done) if self.precision is None else self.next

    def size(self, index: int) -> int:
        return _chunk_size(index, self.cap, self.chunk_size)

    def _advance(self) -> None:
        # Fold the consecutive completed chunks into the prefix, exactly as engine.run does.
        assert self.precision is not None
        while not self.finished and self.next in self.done:
            self.prefix = self.prefix + self.done[self.next]
            self.next += 1
            if reached(self.prefix, self.precision, self.confidence) \
                    or self.next >= self.n_chunks:
                self.finished = True

    def wanted(self, ahead: int) -> list[int]:
        """Chunk indices to start now: every missing one, or for a precision cell the
        missing ones among the next ``ahead``."""
        if self.finished:
            return []
        if self.precision is None:
            window = range(self.n_chunks)
        else:
            window = range(self.next, min(self.n_chunks, self.next + ahead))
        return [i for i in window if i not in self.done and i not in self.in_flight]

    def add(self, index: int, tally: Tally) -> None:
        self.in_flight.discard(index)
        if self.finished:
            return  # computed ahead past the stopping point: cached, not counted
        self.done[index] = tally
        if self.precision is None:
            self.finished = len(self.done) == self.n_chunks
        else:
            self._advance()

    def total(self) -> Tally:
        if self.precision is not None:
            return self.prefix
        total = Tally.empty(self.causes)
        for index in range(self.n_chunks):  # index order: float extras add the same way
            total = total + self.done[index]
        return total


# --- executors -------------------------------------------------------------------------------------


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; let the client alone handle it, so workers
    # finish (and the client keeps) the chunk they are on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Serial:
    name = "serial"

    def __init__(self) -> None:
        self.workers = 1
        self.window = 1
        self.address: str | None = None

    def submit(self, fn: Callable[..., Any], *args: Any, key: str) -> cf.Future[Any]:
        future: cf.Future[Any] = cf.Future()
        try:
            future.set_result(fn(*args))
        except Exception as exc:
            future.set_exception(exc)
        return future

    def wait_any(self, futures: Iterable[Any]) -> set[Any]:
        return set(futures)

    def cancel(self, futures: Iterable[Any]) -> None:
        pass

    def wait_all(self, futures: Iterable[Any], timeout: float) -> None:
        pass

    def close(self) -> None:
        pass


class _LocalFutures:
    """Waiting on and cancelling ``concurrent.futures`` futures: a process pool's, or ones
    already done in this process."""

    def wait_any(self, futures: Iterable[Any]) -> set[Any]:
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return done

    def cancel(self, futures: Iterable[Any]) -> None:
        for future in futures:
            future.cancel()

    def wait_all(self, futures: Iterable[Any], timeout: float) -> None:
        cf.wait(list(futures), timeout=timeout)


class _Auto(_LocalFutures):
    """Serial while the work is small (:data:`SMALL_WORK_S`), then a process pool."""

    def __init__(self, workers: int | None, n_tasks: int) -> None:
        self.serial, self.pool_workers = _Serial(), workers or default_workers()
        self.pool: _Processes | None = None
        self.n_tasks, self.ran, self.spent = max(1, n_tasks), 0, 0.0
        self.address: str | None = None

    @property
    def name(self) -> str:
        return "processes" if self.pool is not None else "serial"

    @property
    def workers(self) -> int:
        return self.pool.workers if self.pool is not None else self.pool_workers

    @property
    def window(self) -> int:
        return self.pool.window if self.pool is not None else 1

    def estimate_s(self) -> float:
        """The whole sweep's time here, from the tasks run so far."""
        return self.spent / self.ran * self.n_tasks if self.ran else 0.0

    def submit(self, fn: Callable[..., Any], *args: Any, key: str) -> cf.Future[Any]:
        if self.pool is None and (self.spent > SMALL_WORK_S or self.estimate_s() > SMALL_WORK_S):
            self.pool = _Processes(self.pool_workers)
        if self.pool is not None:
            return self.pool.submit(fn, *args, key=key)
        start = time.perf_counter()
        future = self.serial.submit(fn, *args, key=key)
        self.ran, self.spent = self.ran + 1, self.spent + time.perf_counter() - start
        return future

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


class _Processes(_LocalFutures):
    name = "processes"

    def __init__(self, workers: int) -> None:
        import multiprocessing as mp

        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(method)
        if method == "forkserver":
            # Workers fork from a server that has already imported the task's module.
            ctx.set_forkserver_preload(["balance.sweep.runner"])
        self.workers = workers
        self.window = 2 * workers + 2
        self.address = None
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                           initializer=_ignore_sigint)

    def submit(self, fn: Callable[..., Any], *args: Any, key: str) -> cf.Future[Any]:
        return self.pool.submit(fn, *args)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Dask:
    name = "dask"

    def __init__(self, workers: int | None, scheduler: str | None) -> None:
        import logging

        from distributed import Client, LocalCluster

        self.cluster = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(n_workers=workers or default_workers(),
                                            threads_per_worker=1, processes=True,
                                            dashboard_address=":0",  # any free port
                                            silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            if self.cluster is not None:
                self.cluster.close()
            raise SpecError(f"cannot reach the dask scheduler at {scheduler!r}: {exc}") from None
        self.address: str | None = getattr(self.client.scheduler, "address", scheduler)
        self.workers = max(1, sum(self.client.nthreads().values()))
        self.window = max(64, 4 * self.workers)

    def submit(self, fn: Callable[..., Any], *args: Any, key: str) -> Any:
        return self.client.submit(fn, *args, key=key, pure=False)

    def wait_any(self, futures: Iterable[Any]) -> set[Any]:
        from distributed import wait

        return set(wait(list(futures), return_when="FIRST_COMPLETED").done)

    def cancel(self, futures: Iterable[Any]) -> None:
        self.client.cancel([f for f in futures if not f.done()])

    def wait_all(self, futures: Iterable[Any], timeout: float) -> None:
        pass  # cancelled on the scheduler; what is done is already here

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _make_pool(executor: str, workers: int | None, scheduler: str | None,
               n_tasks: int = 1) -> Any:
    if executor == "auto":
        return _Auto(workers, n_tasks)
    if executor == "serial":
        return _Serial()
    if executor == "processes":
        return _Processes(workers or default_workers())
    return _Dask(workers, scheduler)


# --- progress ----------------------------------------------------------------------------------


class _Progress:
    """A tqdm bar on stderr: cells done, fights per second, time left (or nothing)."""

    def __init__(self, enabled: bool, *, desc: str, n_cells: int, cells_done: int,
                 total_fights: int | None, fights_done: int, stream: IO[str]) -> None:
        self.bar: Any = None
        self.n_cells, self.cells_done = n_cells, cells_done
        self.fights, self.start = 0, time.perf_counter()
        if not enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.by_fights = total_fights is not None
        if self.by_fights:
            self.bar = tqdm(total=total_fights, initial=fights_done, unit="fight",
                            unit_scale=True, desc=desc, file=stream, dynamic_ncols=True,
                            smoothing=0.05)
        else:
            self.bar = tqdm(total=n_cells, initial=cells_done, unit="cell", desc=desc,
                            file=stream, dynamic_ncols=True, smoothing=0.05)
        self._postfix()

    def _postfix(self) -> None:
        text = f"cells {self.cells_done}/{self.n_cells}"
        if not self.by_fights:
            elapsed = time.perf_counter() - self.start
            text += f", {self.fights / elapsed:,.0f} fights/s" if elapsed > 0 and self.fights \
                else ""
        self.bar.set_postfix_str(text, refresh=False)

    def update(self, fights: int, cells: int) -> None:
        self.fights += fights
        self.cells_done += cells
        if self.bar is None:
            return
        self._postfix()
        self.bar.update(fights if self.by_fights else cells)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# --- the scheduling loop ----------------------------------------------------------------------


@dataclass
class _Counts:
    computed: int = 0
    computed_fights: int = 0
    worker_s: float = 0.0
    worker_cpu_s: float = 0.0


_Task = tuple[Callable[..., Any], tuple[Any, ...], str, Any]
"""A task to submit: function, arguments, task key (names it on Dask), and a token that
comes back with its result."""


def _pump(pool: Any, take: Callable[[], _Task | None],
          done: Callable[[Any, Any], None]) -> None:
    """Keep ``pool`` fed from ``take()`` (``None``: nothing to start now) and hand every
    result to ``done(token, result)`` as it completes, until nothing is pending.

    On any exception (Ctrl-C, a failed task, ``done`` raising) the tasks not yet started
    are cancelled, running ones get a moment, and every one that completed is still handed
    to ``done`` (so it is cached) before the exception goes on.
    """
    pending: dict[Any, Any] = {}

    def top_up() -> None:
        while len(pending) < pool.window:
            task = take()
            if task is None:
                return
            fn, args, key, token = task
            pending[pool.submit(fn, *args, key=key)] = token

    def complete(future: Any) -> None:
        token = pending.pop(future)
        done(token, future.result())

    try:
        top_up()
        while pending:
            for future in pool.wait_any(list(pending)):
                complete(future)
            top_up()
    except BaseException:
        # Keep whatever finishes around the stop (Ctrl-C, a failed task): cancel what has
        # not started, give running tasks a moment, keep every one that completed.
        with contextlib.suppress(BaseException):
            pool.cancel(list(pending))
            pool.wait_all([f for f in pending if not f.cancelled()], timeout=STOP_GRACE_S)
        for future in list(pending):
            with contextlib.suppress(BaseException):
                if future.done() and not future.cancelled() and future.exception() is None:
                    complete(future)
        raise


def _execute(runs: list[_CellRun], pool: Any, spec: Spec, entropy: int, tag: str,
             cache: store.ChunkCache, progress: _Progress) -> _Counts:
    """Run every missing chunk of ``runs`` on ``pool``, caching each as it completes."""
    counts = _Counts()
    n_precision = sum(1 for r in runs if r.precision is not None and not r.finished)
    ahead = 1 if n_precision == 0 else max(1, math.ceil(pool.workers / n_precision))
    fixed = deque((r, i) for r in runs if r.precision is None for i in r.wanted(0))
    followups: deque[tuple[_CellRun, int]] = deque(
        (r, i) for r in runs if r.precision is not None for i in r.wanted(ahead))

    def take() -> _Task | None:
        while followups or fixed:
            run, index = followups.popleft() if followups else fixed.popleft()
            if not run.finished and index not in run.done and index not in run.in_flight:
                size = run.size(index)
                run.in_flight.add(index)
                return (run_chunk_task, (spec.ruleset, run.cell.rules, run.cell.side_a,
                                         run.cell.side_b, entropy, run.key, index, size),
                        f"balance-{tag}-{run.key}-{index}-{size}", (run, index, size))
        return None

    def complete(token: tuple[_CellRun, int, int], result: tuple[Tally, float, float]) -> None:
        run, index, size = token
        tally, seconds, cpu_seconds = result
        cache.save(run.key, index, size, tally)
        counts.computed += 1
        counts.computed_fights += size
        counts.worker_s += seconds
        counts.worker_cpu_s += cpu_seconds
        was_finished = run.finished
        run.add(index, tally)
        progress.update(size, run.copies if run.finished and not was_finished else 0)
        if run.precision is not None and not run.finished:
            followups.extend((run, i) for i in run.wanted(ahead))

    _pump(pool, take, complete)
    return counts


def _execute_exact(todo: list[Cell], records: dict[str, dict[str, Any]], pool: Any, spec: Spec,
                   tag: str, cache: store.ExactCache, progress: _Progress,
                   copies: Mapping[str, int], entropy: int | None = None) -> _Counts:
    """Solve every cell of ``todo`` on ``pool``, caching each answer as it completes (one
    task a cell: the exact solver's, or best play's when ``spec.play == "best"``)."""
    counts = _Counts()
    queue = deque(todo)
    best = spec.play == "best"
    opts = _best.options(spec) if best else {}

    def take() -> _Task | None:
        if not queue:
            return None
        cell = queue.popleft()
        if best:
            return (_best.solve_task, (spec.ruleset, cell.rules, cell.side_a, cell.side_b,
                                       opts, entropy, cell.key),
                    f"balance-best-{tag}-{cell.key}", cell)
        return (_exact.solve_task, (spec.ruleset, cell.rules, cell.side_a, cell.side_b),
                f"balance-exact-{tag}-{cell.key}", cell)

    def complete(cell: Cell, record: dict[str, Any]) -> None:
        error = (_best.rejected if best else _exact.rejected)(spec, cell, record)
        if error is not None:
            raise error
        cache.save(cell.key, record)
        records[cell.key] = record
        counts.computed += 1
        counts.worker_s += float(record["wall_s"])
        counts.worker_cpu_s += float(record["cpu_s"])
        progress.update(0, copies[cell.key])

    _pump(pool, take, complete)
    return counts


# --- results -------------------------------------------------------------------------------------


def _rows(cells: Iterable[Cell], totals: Mapping[str, Tally], rs: Ruleset,
          confidence: float) -> list[dict[str, Any]]:
    rows = []
    for cell in cells:
        tally = totals[cell.key]
        row: dict[str, Any] = {name: display(value, name) for name, value in cell.params.items()}
        row.update(Summary(rs.name, tally, confidence).to_row())
        wins = tally.wins
        row["a_wins"], row["b_wins"], row["draws"] = (
            int(wins[Winner.A]), int(wins[Winner.B]), int(wins[Winner.DRAW]))
        row["policies"] = "; ".join(rs.policies(cell.rules, cell.side_a, cell.side_b)) or "none"
        row["cell"] = cell.key
        rows.append(row)
    return rows


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep; every chunk completed so far is in the run's cache."""

    def __init__(self, path: Path) -> None:
        super().__init__(f"sweep interrupted; completed chunks are kept in {path}")
        self.path = path


class Run(NamedTuple):
    """A finished sweep: its results table and its run directory.

    Unpacks as ``table, path = balance.sweep(...)``; ``.meta`` reads ``meta.json``.
    """

    table: pd.DataFrame
    path: Path

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = store.read_json(self.path / store.META)
        return meta


def load_run(path: str | Path) -> Run:
    """The results table and directory of a run written by :func:`sweep`."""
    path = Path(path)
    if not (path / store.META).is_file():
        raise SpecError(f"{str(path)!r} is not a run directory (no {store.META})")
    meta = store.read_json(path / store.META)
    table = store.read_table(path)
    table.attrs.update({"run": str(path), "ruleset": meta.get("ruleset"),
                        "axes": list(meta.get("axes", [])), "spec": meta.get("spec", {})})
    return Run(table, path)


def _assumptions(rs: Ruleset, cells: Iterable[Cell]) -> list[str]:
    """The DEFAULT / AMBIG readings in force in any cell (a ruleset may list only those that
    touch a matchup), each named once with its value in the first cell that has it."""
    seen: dict[str, str] = {}
    for cell in cells:
        for item in rs.assumptions(cell.rules, cell.side_a, cell.side_b):
            seen.setdefault(item.partition("=")[0], item)
    return list(seen.values())


def _policies(rs: Ruleset, cells: Iterable[Cell]) -> list[str]:
    """The policies the run rests on: each distinct disclosure of any cell, in order (a
    policy swept as an axis appears once per value; each row names its own)."""
    seen: dict[str, None] = {}
    for cell in cells:
        for item in rs.policies(cell.rules, cell.side_a, cell.side_b):
            seen.setdefault(item)
    return list(seen)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _default_out(spec: Spec) -> Path:
    if spec.source:
        return Path("runs") / Path(spec.source).stem
    return Path("runs") / f"sweep-{spec.ruleset.replace(':', '-').replace('.', '-')}"


def _check_run_dir(out: Path, resume: bool) -> dict[str, Any] | None:
    """The previous meta.json when resuming; refuse to mix a new run into an old one."""
    if (out / store.META).is_file():
        if not resume:
            raise SpecError(f"{out} already holds a run; pass --resume (resume=True) to reuse "
                            "its cached chunks, or choose another --out")
        meta: dict[str, Any] = store.read_json(out / store.META)
        if meta.get("format") != RUN_FORMAT:
            raise SpecError(f"{out}/{store.META} is not a {RUN_FORMAT} run record")
        return meta
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise SpecError(f"{out} exists and is not a run directory; choose an empty or new --out")
    return None


def _check_executor(executor: str, workers: int | None, scheduler: str | None) -> None:
    if executor not in EXECUTORS:
        raise SpecError(f"unknown executor {executor!r}; executors: " + ", ".join(EXECUTORS))
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise SpecError(f"workers must be a whole number >= 1, got {workers!r}")
    if scheduler is not None and executor != "dask":
        raise SpecError(f"a scheduler address needs executor 'dask', not {executor!r}")
    if scheduler is not None and workers is not None:
        raise SpecError("workers applies to a cluster started for the run; an existing "
                        "scheduler brings its own workers")
    if executor == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise SpecError("executor 'dask' needs dask.distributed: pip install "
                            "'balance[dask]'")


def sweep(spec: Spec | str | Path | Mapping[str, Any], /, *, out: str | Path | None = None,
          executor: str = "auto", workers: int | None = None,
          scheduler: str | None = None, resume: bool = False, progress: bool | None = None,
          stream: IO[str] | None = None, allow_import: bool = False,
          play: str | None = None) -> Run:
    """Run an experiment and write its run directory.

    Parameters
    ----------
    spec
        A :class:`~balance.sweep.spec.Spec`, the path of a TOML experiment, or its mapping.
    out
        Run directory (default ``runs/<experiment file stem>``).  It must be new or empty,
        or hold a run to resume.
    executor
        ``"auto"`` (the default: in this process while the work is small, else
        ``"processes"``; see :data:`SMALL_WORK_S`), ``"serial"``, ``"processes"`` (one
        worker per core) or ``"dask"`` (implied by ``scheduler``).
    workers
        Worker processes (``processes``) or local-cluster workers (``dask``).
    scheduler
        Address of a running ``dask.distributed`` scheduler (implies nothing is started).
    resume
        Continue the run in ``out``: reuse every cached chunk, compute only what is missing.
    progress
        Show a progress bar on ``stream`` (default: when stderr is a terminal).
    allow_import
        Whether the spec may name a ``package.module:OBJECT`` ruleset (importing it runs
        its code; see :func:`balance.rulesets.resolve`).
    play
        Override the experiment's ``[run] play`` (a file or mapping spec only): ``"best"``
        plays every cell under best play; its run directory defaults to
        ``runs/<experiment file stem>-best``.

    Returns
    -------
    Run
        ``(table, path)``: one row per cell, and the run directory.

    Raises
    ------
    SpecError
        Bad spec, executor options or run directory -- before anything is written.
    """
    started, clock = _now(), time.perf_counter()
    if not isinstance(spec, Spec):
        spec = load_spec(spec, allow_import=allow_import, play=play)
        if play == "best" and out is None:
            out = Path(str(_default_out(spec)) + "-best")
    elif play is not None:
        raise SpecError("play= overrides a spec file or mapping; a Spec says its own play")
    if executor == "auto" and scheduler is not None:
        executor = "dask"
    _check_executor(executor, workers, scheduler)
    rs: Ruleset = spec.ruleset_object(allow_import=allow_import)
    cells = expand(spec, rs)
    store.check_formats(spec.tables)
    run_dir = Path(out) if out is not None else _default_out(spec)
    previous = _check_run_dir(run_dir, resume)

    if previous is not None and spec.seed is None:
        entropy = int(previous["entropy"])
    else:
        entropy = root_entropy(spec.seed)
        if previous is not None and int(previous["entropy"]) != entropy:
            raise SpecError(f"the run in {run_dir} used seed entropy {previous['entropy']}; the "
                            f"spec asks for seed {spec.seed}. Resume with the same seed, or "
                            "choose another --out")
    vers = versions()
    if previous is not None:
        before = previous.get("spec", {}).get("run", {}).get("method", "simulate")
        if before != spec.method:
            raise SpecError(f"the run in {run_dir} used method {before!r}; the spec asks for "
                            f"{spec.method!r}. Choose another --out")
        played = previous.get("spec", {}).get("run", {}).get("play", "default")
        if played != spec.play:
            raise SpecError(f"the run in {run_dir} used play {played!r}; the spec asks for "
                            f"{spec.play!r}. Choose another --out")
    best = spec.play == "best"
    exact = spec.method == "exact" or best  # one task a cell (not chunks)
    copies = Counter(cell.key for cell in cells)
    distinct = list({cell.key: cell for cell in cells}.values())
    runs: dict[str, _CellRun] = {}
    records: dict[str, dict[str, Any]] = {}
    probed: dict[str, Any] | None = None
    probed_key = ""
    if exact:
        tag = _best.tag(spec, entropy, vers) if best else store.exact_tag(vers)
        exact_cache = (_best.BestPlayCache if best else store.ExactCache)(run_dir, tag)
        for cell in distinct if previous else ():
            record = exact_cache.load(cell.key)
            if record is not None:
                records[cell.key] = record
        cached = len(records)
        todo_cells = [cell for cell in distinct if cell.key not in records]
        # Validation before any work: the ruleset's own check of every cell, then the first
        # missing cell solved here; either raises a SpecError naming the cell.
        if todo_cells and not best:
            _exact.check_cells(spec, todo_cells, rs)
            probed_key = todo_cells[0].key
            probed = _exact.probe(spec, todo_cells[0])
            records[probed_key] = probed
            todo_cells = todo_cells[1:]
        n_todo = len(todo_cells)
    else:
        tag = store.cache_tag(entropy, vers)
        cache = store.ChunkCache(run_dir, tag)
        causes = tuple(getattr(rs, "causes", ()))
        for cell in distinct:
            runs[cell.key] = _CellRun(cell, spec, causes, cache.load(cell.key) if previous else {})
            runs[cell.key].copies = copies[cell.key]
        run_list = list(runs.values())
        cached = sum(r.cached_used for r in run_list)
        todo = [r for r in run_list if not r.finished]
        n_todo = len(todo)

    n_tasks = n_todo if exact else sum(r.n_chunks - len(r.done) for r in todo)
    pool = _make_pool(executor, workers, scheduler, n_tasks) if n_todo else None
    meta: dict[str, Any] = {
        "format": RUN_FORMAT, "status": "running", "description": spec.description,
        "ruleset": rs.name, "source": spec.source, "spec": spec.to_dict(),
        "axes": list(spec.axis_fields), "method": spec.method, "play": spec.play,
        "seed": spec.seed, "entropy": entropy,
        "chunk_size": spec.chunk_size if not exact or (best and spec.method != "exact") else None,
        "cache": f"cache/{tag}", "executor": executor,
        "workers": pool.workers if pool else None,
        "scheduler": pool.address if pool else None, "versions": vers,
        "cells": len(cells), "distinct_cells": len(distinct), "resumed": previous is not None,
        "assumptions": _assumptions(rs, cells),
        "policies": _policies(rs, cells),
        "timings": {"started": started},
    }
    # Every session that worked on this run directory, oldest first: a resumed run's
    # record keeps what earlier (perhaps interrupted) sessions computed.
    sessions: list[dict[str, Any]] = list(previous.get("sessions", [])) if previous else []
    meta["sessions"] = sessions
    counts = _Counts()
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        if spec.source:
            store.atomic_write(run_dir / store.SPEC_COPY, Path(spec.source).read_bytes())
        store.write_json(run_dir / store.META, meta)
        if probed is not None:
            exact_cache.save(probed_key, probed)
        stream = stream or sys.stderr
        show = bool(progress if progress is not None else stream.isatty()) and pool is not None
        desc = Path(spec.source or "sweep").stem
        if exact:
            bar = _Progress(show, desc=desc, n_cells=len(cells),
                            cells_done=sum(copies[k] for k in records), total_fights=None,
                            fights_done=0, stream=stream)
        else:
            bar = _Progress(show, desc=desc, n_cells=len(cells),
                            cells_done=sum(r.copies for r in run_list if r.finished),
                            total_fights=(sum(r.cap for r in run_list)  # distinct work
                                          if spec.precision is None else None),
                            fights_done=sum(r.size(i) for r in run_list for i in r.done),
                            stream=stream)
        try:
            if pool is not None and exact:
                counts = _execute_exact(todo_cells, records, pool, spec, tag, exact_cache, bar,
                                        copies, entropy)
            elif pool is not None:
                counts = _execute(todo, pool, spec, entropy, tag, cache, bar)
        except BaseException as exc:
            executor = _settle(pool, meta, executor)
            stopped = isinstance(exc, KeyboardInterrupt | SystemExit)
            meta["status"] = "interrupted" if stopped else "failed"
            if not stopped:
                meta["error"] = f"{type(exc).__name__}: {exc}"
            meta["timings"].update({"stopped": _now(),
                                    "elapsed_s": time.perf_counter() - clock})
            sessions.append({"started": started, "stopped": meta["timings"]["stopped"],
                             "status": meta["status"], "executor": executor,
                             "workers": meta["workers"],
                             "elapsed_s": meta["timings"]["elapsed_s"]})
            with contextlib.suppress(Exception):
                store.write_json(run_dir / store.META, meta)
            if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, SweepInterrupted):
                raise SweepInterrupted(run_dir) from None
            raise
        finally:
            bar.close()
    finally:
        if pool is not None:
            pool.close()
    executor = _settle(pool, meta, executor)

    import pandas as pd

    if best:
        table = _exact.tidy(pd.DataFrame.from_records(_best.rows(cells, records)))
        meta["policies"] = list(dict.fromkeys(
            item for cell in table["policies"] for item in str(cell).split("; ")
            if item and item != "none"))
    elif exact:
        table = _exact.tidy(pd.DataFrame.from_records(_exact.rows(cells, records, rs)))
    else:
        totals = {key: run.total() for key, run in runs.items()}
        table = pd.DataFrame.from_records(_rows(cells, totals, rs, spec.confidence))
    table.attrs.update({"run": str(run_dir), "ruleset": rs.name,
                        "axes": list(spec.axis_fields), "spec": spec.to_dict()})
    written = store.write_table(table, run_dir, spec.tables)
    plots = _draw_plots(spec, table, run_dir)
    elapsed = time.perf_counter() - clock
    meta["status"] = "complete"
    meta["fights"] = int(table["fights"].sum() if best else table["n"].sum())
    meta["outputs"] = [p.name for p in written] + [str(p.relative_to(run_dir)) for p in plots]
    meta["timings"].update({"finished": _now(), "elapsed_s": elapsed})
    if exact:
        solved_here = counts.computed + (probed is not None)
        probe_s = float(probed["wall_s"]) if probed is not None else 0.0
        probe_cpu_s = float(probed["cpu_s"]) if probed is not None else 0.0
        meta["timings"].update({
            "cells_solved": solved_here, "cells_cached": cached,
            "worker_s": counts.worker_s + probe_s,
            "worker_cpu_s": counts.worker_cpu_s + probe_cpu_s,
        })
    else:
        meta["timings"].update({
            "chunks_computed": counts.computed, "chunks_cached": cached,
            "fights_computed": counts.computed_fights, "worker_s": counts.worker_s,
            "worker_cpu_s": counts.worker_cpu_s,
            "fights_per_s": counts.computed_fights / elapsed if elapsed > 0 else None,
        })
    sessions.append({"started": started, "finished": meta["timings"]["finished"],
                     "status": "complete", "executor": executor, "workers": meta["workers"],
                     "elapsed_s": elapsed, "worker_s": meta["timings"]["worker_s"],
                     "computed": counts.computed})
    store.write_json(run_dir / store.META, meta)
    return Run(table, run_dir)


def _settle(pool: Any, meta: dict[str, Any], executor: str) -> str:
    """The executor that ran the work, recorded in ``meta``: what ``auto`` chose, or
    ``executor`` itself."""
    if not isinstance(pool, _Auto):
        return executor
    meta["executor"] = pool.name
    meta["workers"] = 1 if pool.pool is None else pool.workers
    meta["executor_rule"] = (f"auto: {pool.ran} task(s) run here took {pool.spent:.2f} s, "
                             f"{pool.n_tasks} in all"
                             + (f"; the rest went to a pool of {pool.workers} worker processes"
                                if pool.pool is not None else
                                f"; estimated under {SMALL_WORK_S:g} s, so no worker pool"))
    return pool.name


def _draw_plots(spec: Spec, table: pd.DataFrame, run_dir: Path) -> list[Path]:
    if not spec.plots:
        return []
    from .. import plots
    from ..labels import Labels

    labels = Labels.for_run(table)
    written: list[Path] = []
    for plot in spec.plots:
        part = table
        for name, value in plot.where.items():
            part = part[part[name] == display(value, name)]
        held = [f"{name}={display(value, name)}" for name, value in plot.where.items()]
        note = ", ".join(f"{labels.column(name)} = {labels.value(name, display(value, name))}"
                         for name, value in plot.where.items())
        written.extend(plots.draw_to(part, run_dir / "plots", kind=plot.kind, x=plot.x,
                                     y=plot.y, value=plot.value, by=plot.by,
                                     suffix="".join(f"-{h}" for h in held), note=note))
    return written
