"""Run a sweep: cells -> chunks on an executor -> cached tallies -> one tidy row per cell.

The unit of work is one **chunk** of one cell: ``balance.engine.run_chunk(..., entropy,
key=_stream_key(spec, cell), index=i)``, a pure function of (ruleset, cell, entropy, i,
size).  On common streams (the default) the key is ``("common",)``, so chunk ``i`` of every
cell starts from the same numbers and two cells' ``j``-th fights are paired; with
``streams = "independent"`` it is ``(cell key,)``.  The client (this process) hands chunks
to an executor, writes every completed chunk's :class:`~balance.results.Tally` (and on
common streams each fight's winner) atomically to the run's cache, and adds a cell's chunks
in index order, so the table is the same whichever executor ran the chunks, on how many
workers, in whatever order they finished -- and the same as ``balance.engine.run(...,
key=_stream_key(spec, cell))`` cell by cell.  On common streams the run ends by writing
every cell's counted fights' winners to ``winners.npz`` (:mod:`balance.experiments.paired`),
from which a verdict reads the paired error of a difference.

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
:func:`balance.experiments.exact.solve_task` (the ruleset's exact solver), on the same executors,
cached per cell (``exact.json``) and resumed the same way; see :mod:`balance.experiments.exact`.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import datetime as dt
import math
import os
import re
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .. import budget, files
from ..api import versions
from ..batching import Segment
from ..engine import DEFAULT_CHUNK_SIZE, batches, reached, run_chunk_winners, run_segments_winners
from ..errors import Interrupted, SpecError
from ..labels import display
from ..outcomes import ROW_TAG
from ..random import root_entropy
from ..results import Tally, Winner, summary_rows
from ..rulesets import portable
from ..rulesets.base import Ruleset
from . import bestplay as _best
from . import exact as _exact
from . import guard, paired, readback, store
from .grid import Cell, expand
from .plotting import check_spec_plots, draw_spec_plots
from .spec import Spec, load_spec, resolve_ruleset
from .store import Run

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXECUTORS", "SweepInterrupted", "default_workers", "run_batch_task",
           "run_chunk_task", "sweep",
           "validate"]

EXECUTORS: tuple[str, ...] = ("auto", "serial", "processes", "dask")
RUN_FORMAT = store.RUN_FORMAT
STOP_GRACE_S = 10.0
"""On Ctrl-C or a failed chunk, how long to wait for running chunks so they are kept."""
SCHEDULER_TIMEOUT_S = 10.0
"""How long to try to reach a dask scheduler given by address."""
MAX_WORKERS = budget.MAX_WORKERS
"""Most worker processes a run starts on this machine (a typo must not fork thousands): the
one cap of every command; an external dask scheduler brings as many as it has."""
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


def _stream_key(spec: Spec, cell: Cell) -> tuple[str, ...]:
    """The spawn key of a cell's streams (chunk ``i`` is ``stream(entropy, *key, i)``): the
    same for every cell on common streams, so cell x's fight ``j`` and cell y's fight ``j``
    start from the same numbers; the cell's own key with ``streams = "independent"``."""
    return ("common",) if spec.streams == "common" else (cell.key,)


def run_chunk_task(ruleset: str, allow_import: bool, rules: Any, side_a: Any, side_b: Any,
                   entropy: int, key: tuple[str, ...], index: int, size: int,
                   setup: Any = None) -> tuple[Tally, np.ndarray, float, float]:
    """Chunk ``index`` (``size`` fights) on the streams of spawn key ``key``
    (:func:`_stream_key`): the tally, each fight's winner (uint8, in order), and the wall
    and CPU seconds the engine took.

    A pure function of its arguments: safe to run anywhere, twice, or again after a lost
    worker.  The ruleset travels by name (or import path) with the permission the parent
    had to import it (:func:`balance.rulesets.portable`), and is looked up where it runs.
    ``setup``: the cell's per-matchup setup made by the parent (``Ruleset.setup``), taken
    before the fights so that no worker makes it again; it changes no draw.
    """
    rs = resolve_ruleset(ruleset, allow_import=allow_import)
    if setup is not None:
        rs.adopt(setup)
    start, cpu = time.perf_counter(), time.process_time()
    tally, winners = run_chunk_winners(rs, rules, side_a, side_b, size=size, entropy=entropy,
                                       key=tuple(key), index=index)
    return tally, winners, time.perf_counter() - start, time.process_time() - cpu


def run_batch_task(ruleset: str, allow_import: bool,
                   chunks: list[tuple[Any, Any, Any, tuple[str, ...], int, int, Any]],
                   entropy: int) -> tuple[list[tuple[Tally, np.ndarray]], float, float]:
    """Many small chunks in shared kernel calls (:func:`balance.engine.run_segments`): each
    ``(rules, side_a, side_b, key, index, size, setup)``'s tally and fights' winners -- what
    :func:`run_chunk_task` gives it alone (``key``: the stream key, :func:`_stream_key`) --
    and the wall and CPU seconds of the whole batch.  Pure, as :func:`run_chunk_task`; each
    cell's ``setup`` is taken first."""
    rs = resolve_ruleset(ruleset, allow_import=allow_import)
    for *_, setup in chunks:
        if setup is not None:
            rs.adopt(setup)
    start, cpu = time.perf_counter(), time.process_time()
    segments = [Segment(rules, tuple(side_a), tuple(side_b), size, tuple(key), index)
                for rules, side_a, side_b, key, index, size, _ in chunks]
    found = run_segments_winners(rs, segments, entropy=entropy)
    return found, time.perf_counter() - start, time.process_time() - cpu


def _chunk_size(index: int, cap: int, chunk_size: int) -> int:
    """Size of chunk ``index`` of a ``cap``-fight run (as ``balance.engine.chunk_sizes``)."""
    return max(0, min(chunk_size, cap - index * chunk_size))


# --- one cell's progress ----------------------------------------------------------------------


_UNMADE = object()


def _cell_setup(rs: Ruleset, cell: Cell) -> Any:
    """The ruleset's per-matchup setup of ``cell``, made once in the parent and sent with
    each of its chunks; ``None`` if the ruleset refuses the matchup (its tasks then fail
    as they always did, in the worker)."""
    try:
        return rs.setup(cell.rules, cell.side_a, cell.side_b)
    except SpecError:
        return None


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
        self.setup: Any = _UNMADE  # Ruleset.setup of the cell, made with its first task
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

    def counted(self) -> list[tuple[int, int]]:
        """The (index, size) of every chunk the total counts, in order."""
        last = self.next if self.precision is not None else self.n_chunks
        return [(index, self.size(index)) for index in range(last)]

    def total(self) -> Tally:
        if self.precision is not None:
            return self.prefix
        total = Tally.empty(self.causes)
        for index in range(self.n_chunks):  # index order: float extras add the same way
            total = total + self.done[index]
        return total


# --- executors -------------------------------------------------------------------------------------


def _worker_start(parent: int, parent_started: str | None) -> None:
    """Every worker process starts here."""
    # Let the client alone handle a stop signal sent to the whole group, so workers finish
    # (and the client keeps) the chunk they are on, and the client stops them.  (A worker
    # forked from the forkserver has them blocked from birth: see _start_forkserver.)
    for signum in guard.STOP_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
    # A worker's parent is the forkserver, not the client: watch the client itself, and
    # end with it (SIGKILL, OOM killer), so nothing of the run outlives it.
    guard.watch_parent(parent, parent_started)


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

    def close(self, abort: bool = False) -> None:
        pass


class _LocalFutures:
    """Waiting on ``concurrent.futures`` futures: a process pool's, or ones already done in
    this process (which there is nothing to cancel of)."""

    def wait_any(self, futures: Iterable[Any]) -> set[Any]:
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return done

    def cancel(self, futures: Iterable[Any]) -> None:
        pass

    def wait_all(self, futures: Iterable[Any], timeout: float) -> None:
        """Wait until every one of ``futures`` has finished or been cancelled (by the pool's
        own thread: ``cf.wait`` would not see that), or ``timeout`` seconds have passed."""
        deadline = time.monotonic() + timeout
        for future in futures:
            with contextlib.suppress(cf.CancelledError, TimeoutError):
                future.exception(timeout=max(0.0, deadline - time.monotonic()))


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

    def cancel(self, futures: Iterable[Any]) -> None:
        if self.pool is not None:
            self.pool.cancel(futures)

    def close(self, abort: bool = False) -> None:
        if self.pool is not None:
            self.pool.close(abort)


def _start_forkserver() -> None:
    """Start multiprocessing's forkserver, if it is not running, deaf to Ctrl-C and SIGTERM
    (:func:`~balance.experiments.guard.stop_signals_blocked`), and so every worker it
    forks.  A forkserver killed by a signal sent to the whole process group would end
    every worker's sentinel: the pool would take its running chunks for lost, break, and
    (CPython before 3.12) print a thread's traceback."""
    from multiprocessing import forkserver

    with guard.stop_signals_blocked():
        forkserver.ensure_running()


class _Processes(_LocalFutures):
    name = "processes"

    def __init__(self, workers: int) -> None:
        import multiprocessing as mp

        method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
        ctx = mp.get_context(method)
        if method == "forkserver":
            # Workers fork from a server that has already imported the task's module.
            ctx.set_forkserver_preload(["balance.experiments.runner"])
            _start_forkserver()
        self.workers = workers
        self.window = 2 * workers + 2
        self.address = None
        self.unfinished: set[cf.Future[Any]] = set()
        client = os.getpid()
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                           initializer=_worker_start,
                                           initargs=(client, guard.start_time(client)))

    def submit(self, fn: Callable[..., Any], *args: Any, key: str) -> cf.Future[Any]:
        future = self.pool.submit(fn, *args)
        self.unfinished = {f for f in self.unfinished if not f.done()} | {future}
        return future

    def cancel(self, futures: Iterable[Any]) -> None:
        # The pool's own thread cancels the tasks not yet started.  A future cancelled from
        # here instead could still be failed by that thread if the pool then breaks (its
        # workers killed by close(abort=True)): an InvalidStateError traceback on stderr
        # (CPython before 3.12, gh-107219).  Nothing is submitted after a stop.
        self.pool.shutdown(wait=False, cancel_futures=True)

    def close(self, abort: bool = False) -> None:
        if abort and any(not f.done() for f in self.unfinished):
            # Stopped (Ctrl-C, SIGTERM, a failure) and chunks still running after the grace
            # period: they are dropped.  The executor has no public way to stop a running
            # task, hence its private process table.
            for process in list((getattr(self.pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    process.kill()
        self.pool.shutdown(wait=True, cancel_futures=True)


class _Dask:
    name = "dask"

    def __init__(self, workers: int | None, scheduler: str | None) -> None:
        import logging

        from distributed import Client, LocalCluster

        self.cluster = None
        try:
            if scheduler is None:
                # The cluster's worker processes watch this one and end with it.  Its event
                # loop's thread, and the worker processes that thread starts (now, or to
                # replace a lost one), are deaf to a stop signal sent to the process group:
                # the client stops them (close) once it has kept what finished.
                # Its own logs are silenced: a worker closing with the cluster can log a
                # traceback at ERROR (a heartbeat cut short by the close); a task's failure
                # comes back through its future, and the run reports it.
                with guard.stop_signals_blocked():
                    self.cluster = LocalCluster(n_workers=workers or default_workers(),
                                                threads_per_worker=1, processes=True,
                                                dashboard_address=":0",  # any free port
                                                silence_logs=logging.CRITICAL)
                    self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_S)
        except Exception as exc:  # an address dask cannot parse or reach, in any of its ways
            if self.cluster is not None:
                with contextlib.suppress(Exception):
                    self.cluster.close()
            if scheduler is None:
                raise
            reason = (str(exc).splitlines() or [""])[0][:160]
            raise SpecError(f"--scheduler: cannot reach the dask scheduler at {scheduler!r} "
                            f"({type(exc).__name__}: {reason})") from None
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

    def close(self, abort: bool = False) -> None:
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
    """A sweep's progress on stderr (:class:`balance.progress.Progress`): fights (or cells)
    done, the rate and the time left, and the cells finished."""

    def __init__(self, enabled: bool | None, *, desc: str, n_cells: int, cells_done: int,
                 total_fights: int | None, fights_done: int, stream: IO[str]) -> None:
        from ..progress import Progress

        self.n_cells, self.cells_done = n_cells, cells_done
        self.fights, self.start = 0, time.perf_counter()
        self.by_fights = total_fights is not None
        self.done = fights_done if self.by_fights else cells_done
        self.bar = Progress(total_fights if self.by_fights else n_cells, desc=desc,
                            unit="fight" if self.by_fights else "cell", stream=stream,
                            enabled=enabled, initial=self.done, delay=0.0, leave=True)

    def update(self, fights: int, cells: int) -> None:
        self.fights += fights
        self.cells_done += cells
        self.done += fights if self.by_fights else cells
        note = f"cells {self.cells_done}/{self.n_cells}"
        elapsed = time.perf_counter() - self.start
        if not self.by_fights and elapsed > 0 and self.fights:
            note += f", {self.fights / elapsed:,.0f} fights/s"
        self.bar.update(self.done, note)

    def close(self) -> None:
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
            pool.wait_all(list(pending), timeout=STOP_GRACE_S)
        for future in list(pending):
            with contextlib.suppress(BaseException):
                if future.done() and not future.cancelled() and future.exception() is None:
                    complete(future)
        raise


def _execute(runs: list[_CellRun], pool: Any, spec: Spec, entropy: int, tag: str,
             cache: store.ChunkCache, progress: _Progress, rs: Ruleset) -> _Counts:
    """Run every missing chunk of ``runs`` on ``pool``, caching each as it completes.

    A cell's per-matchup setup (``rs.setup``) is made here once and sent with its chunks;
    for a kernel that runs many segments at once (:func:`balance.engine.batches`), small
    chunks of many cells go as one task (:func:`run_batch_task`), each still a chunk of
    its own in the cache, all of them in one file
    (:meth:`~balance.experiments.store.ChunkCache.save_batch`)."""
    batched = batches(rs)
    counts = _Counts()
    n_precision = sum(1 for r in runs if r.precision is not None and not r.finished)
    ahead = 1 if n_precision == 0 else max(1, math.ceil(pool.workers / n_precision))
    # Fixed-n chunks are listed lazily: a cell of many chunks costs no memory up front.
    fixed: Iterator[tuple[_CellRun, int]] = (
        (r, i) for r in runs if r.precision is None for i in range(r.n_chunks)
        if i not in r.done)
    followups: deque[tuple[_CellRun, int]] = deque(
        (r, i) for r in runs if r.precision is not None for i in r.wanted(ahead))
    where = portable(spec.ruleset)

    held: list[tuple[_CellRun, int]] = []  # taken but left for the next batch
    batch_fights = _batch_fights(runs, pool) if batched else 0
    if batched and isinstance(pool, _Auto):  # its estimate counts tasks: batches, not chunks
        pool.n_tasks = max(1, math.ceil(_fights_left(runs) / batch_fights))

    def next_chunk() -> tuple[_CellRun, int] | None:
        while True:
            if held:
                run, index = held.pop()
            elif followups:
                run, index = followups.popleft()
            else:
                item = next(fixed, None)
                if item is None:
                    return None
                run, index = item
            if not run.finished and index not in run.done and index not in run.in_flight:
                if run.setup is _UNMADE:
                    run.setup = _cell_setup(rs, run.cell)
                return run, index

    def take() -> _Task | None:
        """One chunk, or small chunks of many cells together up to ``batch_fights``."""
        chosen: list[tuple[_CellRun, int, int]] = []
        fights = 0
        while fights < batch_fights or not chosen:
            item = next_chunk()
            if item is None:
                break
            run, index = item
            size = run.size(index)
            if chosen and fights + size > batch_fights:
                held.append(item)
                break
            run.in_flight.add(index)
            chosen.append((run, index, size))
            fights += size
        if not chosen:
            return None
        run, index, size = chosen[0]
        if len(chosen) == 1:
            return (run_chunk_task, (*where, run.cell.rules, run.cell.side_a,
                                     run.cell.side_b, entropy, _stream_key(spec, run.cell),
                                     index, size, run.setup),
                    f"balance-{tag}-{run.key}-{index}-{size}", chosen)
        chunks = [(r.cell.rules, r.cell.side_a, r.cell.side_b, _stream_key(spec, r.cell), i, n,
                   r.setup) for r, i, n in chosen]
        return (run_batch_task, (*where, chunks, entropy),
                f"balance-{tag}-batch-{run.key}-{index}-{len(chosen)}", chosen)

    def complete(token: list[tuple[_CellRun, int, int]], result: tuple[Any, ...]) -> None:
        # a chunk's (tally, winners, wall, cpu), or a batch's ([(tally, winners)], wall, cpu)
        found = [result[:2]] if isinstance(result[0], Tally) else result[0]
        seconds, cpu_seconds = result[-2:]
        counts.worker_s += seconds
        counts.worker_cpu_s += cpu_seconds
        kept = spec.streams == "common"
        if len(token) == 1:
            (run, index, size), (tally, winners) = token[0], found[0]
            cache.save(run.key, index, size, tally, winners if kept else None)
        else:  # a batch of small chunks: one file, not one a chunk
            cache.save_batch([(run.key, index, size, tally, winners if kept else None)
                              for (run, index, size), (tally, winners)
                              in zip(token, found, strict=True)])
        for (run, index, size), (tally, _) in zip(token, found, strict=True):
            counts.computed += 1
            counts.computed_fights += size
            was_finished = run.finished
            run.add(index, tally)
            progress.update(size, run.copies if run.finished and not was_finished else 0)
            if run.precision is not None and not run.finished:
                followups.extend((run, i) for i in run.wanted(ahead))

    _pump(pool, take, complete)
    return counts


def _batch_fights(runs: list[_CellRun], pool: Any) -> int:
    """Fights a batch task holds at most: a kernel call's worth
    (:data:`balance.engine.DEFAULT_CHUNK_SIZE`), less when the work left is small, so that
    every worker still has a few tasks."""
    spread = 4 * max(1, int(getattr(pool, "workers", 1) or 1))
    return max(1, min(DEFAULT_CHUNK_SIZE, math.ceil(_fights_left(runs) / spread)))


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
            return (_best.solve_task, (*portable(spec.ruleset), cell.rules, cell.side_a,
                                       cell.side_b, opts, entropy, _stream_key(spec, cell)),
                    f"balance-best-{tag}-{cell.key}", cell)
        return (_exact.solve_task, (*portable(spec.ruleset), cell.rules, cell.side_a,
                                    cell.side_b),
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
          confidence: float, policies: Callable[[Cell], list[str]] | None = None
          ) -> list[dict[str, Any]]:
    """One row a cell; ``policies`` gives a cell's disclosures (default: ``rs.policies``,
    asked once a matchup)."""
    cells = list(cells)
    summaries = summary_rows(rs.name, [totals[cell.key] for cell in cells], confidence)
    said: dict[tuple[int, int, int], str] = {}  # a matchup's policies, asked once
    rows = []
    for cell, summary in zip(cells, summaries, strict=True):
        tally = totals[cell.key]
        row: dict[str, Any] = {name: display(value, name) for name, value in cell.params.items()}
        row.update(summary)
        wins = tally.wins
        row["a_wins"], row["b_wins"], row["draws"] = (
            int(wins[Winner.A]), int(wins[Winner.B]), int(wins[Winner.DRAW]))
        spot = (id(cell.rules), id(cell.side_a), id(cell.side_b))
        if spot not in said:
            said[spot] = "; ".join(
                rs.policies(cell.rules, cell.side_a, cell.side_b) if policies is None
                else policies(cell)) or "none"
        row["policies"] = said[spot]
        row["cell"] = cell.key
        rows.append(row)
    return rows


class SweepInterrupted(Interrupted):
    """A sweep stopped by Ctrl-C or ``SIGTERM``; every chunk completed so far is in the
    run's cache, and ``meta.json`` says ``interrupted``."""

    def __init__(self, path: Path, signum: int = signal.SIGINT) -> None:
        super().__init__(signum)
        self.args = (f"sweep interrupted; completed chunks are kept in {path}",)
        self.path = path


def _assumptions(rs: Ruleset, cells: Iterable[Cell]) -> list[str]:
    """The DEFAULT / AMBIG readings in force in any cell (a ruleset may list only those that
    touch a matchup), each named once with its value in the first cell that has it."""
    seen: dict[str, str] = {}
    for cell in cells:
        for item in rs.assumptions(cell.rules, cell.side_a, cell.side_b):
            # a reading is named once; a written modifier/effect row once per row
            seen.setdefault(item if item.endswith(ROW_TAG) else item.partition("=")[0], item)
    return list(seen.values())


def _policies(rs: Ruleset, cells: Iterable[Cell],
              policies: Callable[[Cell], list[str]] | None = None) -> list[str]:
    """The policies the run rests on: each distinct disclosure of any cell, in order (a
    policy swept as an axis appears once per value; each row names its own).
    ``policies``: a cell's disclosures (default: ``rs.policies`` of its matchup)."""
    seen: dict[str, None] = {}
    for cell in cells:
        said = (rs.policies(cell.rules, cell.side_a, cell.side_b) if policies is None
                else policies(cell))
        for item in said:
            seen.setdefault(item)
    return list(seen)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _default_out(spec: Spec) -> Path:
    if spec.source:
        return Path("runs") / files.bounded_name(Path(spec.source).stem)
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", spec.ruleset)
    return Path("runs") / files.bounded_name(f"sweep-{name}")


def _check_run_dir(out: Path, resume: bool, locked: bool = False) -> dict[str, Any] | None:
    """The previous meta.json when resuming; refuse to mix a new run into an old one, or
    into one another process is running (unless this one holds the lock: ``locked``)."""
    holder = None if locked else guard.lock_holder(out)
    if holder is not None:
        raise SpecError(f"{out} is in use by {holder}; wait for it to finish (or stop it), or "
                        "choose another --out")
    if (out / store.META).is_file():
        if not resume:
            held = "a run"
            with contextlib.suppress(Exception):  # a damaged record is --resume's to report
                if store.read_meta(out).get("status") == "failed":
                    held = "a run that failed after its work began (its meta.json says why)"
            raise SpecError(f"{out} already holds {held}; pass --resume (resume=True) to reuse "
                            "its cached chunks, or choose another --out")
        return store.read_meta(out)
    if out.exists() and (not out.is_dir() or any(p.name != guard.LOCK_NAME
                                                  for p in out.iterdir())):
        raise SpecError(f"{out} exists and is not a run directory; choose an empty or new --out")
    return None


_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+)(?::(?P<port>[0-9]+))?")
SCHEMES = ("tcp", "tls", "ws", "wss", "ucx", "inproc")


def _check_scheduler(address: str) -> None:
    """A dask scheduler address: ``[SCHEME://]HOST:PORT`` (or ``inproc://...``)."""
    form = "[tcp://]HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if not isinstance(address, str):
        raise SpecError(f"--scheduler takes an address {form}, got {address!r}")
    match = _ADDRESS.fullmatch(address.strip())
    scheme = match["scheme"] if match else None
    if scheme == "inproc":
        return
    if scheme is not None and scheme not in SCHEMES:
        raise SpecError(f"--scheduler: unknown protocol {scheme!r} in {address!r}; protocols: "
                        + ", ".join(SCHEMES))
    if match is None or match["port"] is None:
        raise SpecError(f"--scheduler takes an address {form}, with its port; got {address!r}")
    if not 1 <= int(match["port"]) <= 65535:
        raise SpecError(f"--scheduler: port {match['port']} of {address!r} is not in 1..65535")


def _check_executor(executor: str, workers: int | None, scheduler: str | None) -> None:
    if executor not in EXECUTORS:
        raise SpecError(f"unknown executor {executor!r}; executors: " + ", ".join(EXECUTORS))
    if workers is not None:
        budget.check_workers(workers)
    if scheduler is not None and executor != "dask":
        raise SpecError(f"a scheduler address needs executor 'dask', not {executor!r}")
    if scheduler is not None and workers is not None:
        raise SpecError("workers applies to a cluster started for the run; an existing "
                        "scheduler brings its own workers")
    if scheduler is not None:
        _check_scheduler(scheduler)
    if executor == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise SpecError("executor 'dask' needs dask.distributed: pip install "
                            "'balance[dask]'")


def _fights_left(runs: Iterable[_CellRun]) -> int:
    """Fights still to simulate: every missing chunk of a fixed-n cell; for a precision
    cell, up to the worst-case fights its precision needs (at most its cap)."""
    left = 0
    for run in runs:
        if run.finished:
            continue
        if run.precision is None:
            left += run.cap - sum(run.size(i) for i in run.done)
        else:
            need = min(run.cap, budget.fights_needed(run.precision, run.confidence))
            left += max(0, need - run.next * run.chunk_size)
    return left


def _planned_workers(executor: str, workers: int | None, pool: Any) -> int:
    if pool is not None:
        return int(pool.workers)
    return 1 if executor == "serial" else workers or default_workers()


def _report_rejected(rejected: list[Path], run_dir: Path, what: str, stream: IO[str]) -> None:
    """One line on ``stream`` about cached results that failed their check (and are
    computed again); the files are removed, so they are reported once."""
    if not rejected:
        return
    first = rejected[0]
    with contextlib.suppress(ValueError):
        first = first.relative_to(run_dir)
    count = f"{len(rejected)} cached {what}" + ("s" if len(rejected) > 1 else "")
    verb = "fail their" if len(rejected) > 1 else "fails its"
    print(f"balance: {count} of {run_dir} {verb} checksum (damaged, edited or misplaced; "
          f"first: {first}) and {'are' if len(rejected) > 1 else 'is'} computed again",
          file=stream)
    for path in rejected:
        with contextlib.suppress(OSError):
            path.unlink()


def sweep(spec: Spec | str | Path | Mapping[str, Any], /, *, out: str | Path | None = None,
          executor: str = "auto", workers: int | None = None,
          scheduler: str | None = None, resume: bool = False, progress: bool | None = None,
          stream: IO[str] | None = None,
          max_seconds: float | None = budget.MAX_SECONDS, allow_import: bool = False,
          play: str | None = None) -> Run:
    """Run an experiment and write its run directory.

    Parameters
    ----------
    spec
        A :class:`~balance.experiments.spec.Spec`, the path of a TOML experiment, or its mapping.
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
        Continue the run in ``out``: reuse every sound cached chunk, compute only what is
        missing (or fails its checksum), and remove the temporary files of a killed run.
    progress
        Show progress and time left on ``stream`` (default: when stderr is a terminal): a
        tqdm bar with the ``progress`` extra installed, else a line every few seconds;
        when ``stream`` is not a terminal, a heartbeat line every 30 s of a long run
        (:data:`balance.progress.HEARTBEAT_S`).  ``False``: nothing.
    stream
        Where progress and notes go (default ``sys.stderr``).
    max_seconds
        Refuse, before anything is written, a run whose estimate (a short pilot's rate,
        the fights left and the workers) is longer than this; ``None`` for no limit (the
        command line's ``--yes``).  Default :data:`balance.budget.MAX_SECONDS`, one hour.
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
        Bad spec, executor options or run directory, an estimate over ``max_seconds``, or
        a run directory another run holds -- before anything is written.
    SweepInterrupted
        Ctrl-C or ``SIGTERM``: completed chunks are kept, workers stopped, ``meta.json``
        marked ``interrupted``; ``resume=True`` finishes the run.
    """
    started, clock = _now(), time.perf_counter()
    if executor == "auto" and scheduler is not None:
        executor = "dask"
    plan, work, record = _prepare(spec, out, executor, workers, scheduler, resume,
                                  allow_import, play, started)
    stream = stream or sys.stderr
    # An existing scheduler is asked how many workers it has before the estimate; anything
    # started here is started only once the run is sure to go ahead.
    pool = (_make_pool(executor, workers, scheduler, work.n_tasks)
            if work.n_todo and scheduler is not None else None)
    lock = guard.RunLock(plan.run_dir)
    failed: BaseException | None = None
    try:
        _check_budget(plan, work, pool, max_seconds)
        partial, rejected = _take_folder(plan, work, lock, resume, stream)
        if work.n_todo and pool is None:
            pool = _make_pool(executor, workers, scheduler, work.n_tasks)
        meta = _start_record(plan, record, pool)
        try:
            with guard.terminate_as_interrupt():
                counts = _compute(plan, work, pool, progress, stream)
                executor = _settle(pool, meta, executor)
                if pool is not None:
                    pool.close()
                    pool = None
                table, outputs = _finish(plan, work)
        except BaseException as exc:
            failed = exc
            executor = _settle(pool, meta, executor)
            _record_stop(plan, meta, exc, started, clock, executor)
            if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, SweepInterrupted):
                raise SweepInterrupted(plan.run_dir, getattr(exc, "signum", signal.SIGINT)) \
                    from None
            raise
    finally:
        if pool is not None:
            pool.close(abort=failed is not None)
        lock.release()
    meta.update(outputs)
    _record_finish(plan, work, meta, counts, (partial, len(rejected)), started, clock,
                   executor)
    return Run(table, plan.run_dir)


def validate(spec: Spec | str | Path | Mapping[str, Any], /, *, out: str | Path | None = None,
             executor: str = "auto", workers: int | None = None,
             scheduler: str | None = None, resume: bool = False, allow_import: bool = False,
             play: str | None = None) -> tuple[Spec, tuple[Cell, ...]]:
    """Everything :func:`sweep` checks before it writes anything, and nothing else (the
    command line's ``--dry-run``): the spec, the executor options, every cell, the run
    directory, the first missing cell of an exact or best-play run solved here, and what
    the run's end and its report need (see :func:`_rehearse`).  The spec and its cells;
    raises the SpecError the sweep would raise."""
    if executor == "auto" and scheduler is not None:
        executor = "dask"
    plan, _, _ = _prepare(spec, out, executor, workers, scheduler, resume, allow_import, play,
                          _now())
    return plan.spec, plan.cells


# --- the steps of a sweep ----------------------------------------------------------------------


def _prepare(spec: Spec | str | Path | Mapping[str, Any], out: str | Path | None,
             executor: str, workers: int | None, scheduler: str | None, resume: bool,
             allow_import: bool, play: str | None, started: str
             ) -> tuple[_Plan, _Work, dict[str, Any]]:
    """The checks before any work, writing nothing: the plan, the work left, and the run
    record the run will write."""
    spec, out = _load(spec, out, allow_import, play)
    plan = _plan(spec, out, executor, workers, scheduler, resume, allow_import)
    work = _work(plan)
    record = _run_record(plan, work, started)
    _rehearse(plan, work, record, allow_import)
    return plan, work, record


@dataclass
class _Plan:
    """What a sweep decided before writing anything: the spec, its ruleset and cells, the
    run directory (and the run it holds, when resuming), the seed and the versions."""

    spec: Spec
    rs: Ruleset
    cells: tuple[Cell, ...]
    run_dir: Path
    previous: dict[str, Any] | None
    entropy: int
    versions: dict[str, str]
    executor: str
    workers: int | None
    said: dict[tuple[int, int, int], list[str]] = field(default_factory=dict)
    """Each matchup's policy disclosures, asked of the ruleset once (the run record, the
    stand-in table and the results table all name them): by the ids of the cell's rules and
    sides, which the cells hold for the run."""

    def policies(self, cell: Cell) -> list[str]:
        """``rs.policies`` of ``cell``'s matchup, asked once a run."""
        spot = (id(cell.rules), id(cell.side_a), id(cell.side_b))
        if spot not in self.said:
            self.said[spot] = list(self.rs.policies(cell.rules, cell.side_a, cell.side_b))
        return self.said[spot]

    @property
    def best(self) -> bool:
        return self.spec.play == "best"

    @property
    def exact(self) -> bool:
        """One task a cell (an exact solve or a best-play game), not chunks of fights."""
        return self.spec.method == "exact" or self.best


@dataclass
class _Work:
    """What is left to compute and what the cache already holds: the cells' chunk runs (a
    simulated run), or the cells' answers (an exact or best-play run)."""

    tag: str
    copies: Counter[str]
    chunk_cache: store.ChunkCache | None = None
    exact_cache: store.ExactCache | None = None
    runs: dict[str, _CellRun] = field(default_factory=dict)
    todo: list[_CellRun] = field(default_factory=list)
    records: dict[str, dict[str, Any]] = field(default_factory=dict)
    todo_cells: list[Cell] = field(default_factory=list)
    cached: int = 0
    probed: dict[str, Any] | None = None
    probed_key: str = ""

    @property
    def cache(self) -> store.ChunkCache | store.ExactCache:
        cache = self.exact_cache if self.exact_cache is not None else self.chunk_cache
        assert cache is not None
        return cache

    @property
    def n_todo(self) -> int:
        """Cells left to compute."""
        return len(self.todo_cells) if self.exact_cache is not None else len(self.todo)

    @property
    def n_tasks(self) -> int:
        """Tasks left: a cell each (exact, best play), else every missing chunk."""
        if self.exact_cache is not None:
            return len(self.todo_cells)
        return sum(r.n_chunks - len(r.done) for r in self.todo)


def _load(spec: Spec | str | Path | Mapping[str, Any], out: str | Path | None,
          allow_import: bool, play: str | None) -> tuple[Spec, str | Path | None]:
    """The spec, read and checked, and the run directory asked for (``play="best"``
    defaults it to ``runs/<stem>-best``)."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec, allow_import=allow_import, play=play)
        if play == "best" and out is None:
            out = Path(str(_default_out(spec)) + "-best")
    elif play is not None:
        raise SpecError("play= overrides a spec file or mapping; a Spec says its own play")
    return spec, out


def _plan(spec: Spec, out: str | Path | None, executor: str, workers: int | None,
          scheduler: str | None, resume: bool, allow_import: bool) -> _Plan:
    """Check the executor options, build every cell, and check the run directory (and
    the run it holds, when resuming) -- writing nothing."""
    _check_executor(executor, workers, scheduler)
    rs: Ruleset = spec.ruleset_object(allow_import=allow_import)
    cells = expand(spec, rs)
    store.check_formats(spec.tables)
    run_dir = Path(out) if out is not None else _default_out(spec)
    files.check_folder(run_dir)
    previous = _check_run_dir(run_dir, resume)
    if previous is not None and spec.seed is None:
        entropy = int(previous["entropy"])
    else:
        entropy = root_entropy(spec.seed)
        if previous is not None and int(previous["entropy"]) != entropy:
            raise SpecError(f"the run in {run_dir} used seed entropy {previous['entropy']}; the "
                            f"spec asks for seed {spec.seed}. Resume with the same seed, or "
                            "choose another --out")
    if previous is not None:
        before = previous.get("method", "simulate")
        if before != spec.method:
            raise SpecError(f"the run in {run_dir} used method {before!r}; the spec asks for "
                            f"{spec.method!r}. Choose another --out")
        played = previous.get("play", "default")
        if played != spec.play:
            raise SpecError(f"the run in {run_dir} used play {played!r}; the spec asks for "
                            f"{spec.play!r}. Choose another --out")
    vers = {**versions(), "code": store.code_hash(rs)}
    return _Plan(spec, rs, cells, run_dir, previous, entropy, vers, executor, workers)


def _work(plan: _Plan) -> _Work:
    """What is cached and what is left: the answers of an exact or best-play run (the
    first missing cell solved here, as a check), else each distinct cell's chunks."""
    spec, previous = plan.spec, plan.previous
    copies = Counter(cell.key for cell in plan.cells)
    distinct = list({cell.key: cell for cell in plan.cells}.values())
    if not plan.exact:
        chunk_cache = store.ChunkCache(plan.run_dir, store.cache_tag(plan.entropy, plan.versions,
                                                                     spec.streams))
        work = _Work(chunk_cache.tag, copies, chunk_cache=chunk_cache)
        causes = tuple(getattr(plan.rs, "causes", ()))
        for cell in distinct:
            work.runs[cell.key] = _CellRun(cell, spec, causes,
                                           chunk_cache.load(cell.key) if previous else {})
            work.runs[cell.key].copies = copies[cell.key]
        work.cached = sum(r.cached_used for r in work.runs.values())
        work.todo = [r for r in work.runs.values() if not r.finished]
        return work
    tag = (_best.tag(spec, plan.entropy, plan.versions) if plan.best
           else store.exact_tag(plan.versions))
    exact_cache = (_best.BestPlayCache if plan.best else store.ExactCache)(plan.run_dir, tag)
    work = _Work(tag, copies, exact_cache=exact_cache)
    for cell in distinct if previous else ():
        record = exact_cache.load(cell.key)
        if record is not None:
            work.records[cell.key] = record
    work.cached = len(work.records)
    work.todo_cells = [cell for cell in distinct if cell.key not in work.records]
    # Validation before any work: the ruleset's own check of every cell (an exact run),
    # then the first missing cell solved (or played) here; either raises a SpecError
    # naming the cell.
    if work.todo_cells:
        first = work.todo_cells[0]
        if plan.best:
            work.probed = _best.probe(spec, first, plan.entropy, _stream_key(spec, first))
        else:
            _exact.check_cells(spec, work.todo_cells, plan.rs)
            work.probed = _exact.probe(spec, first)
        work.probed_key = first.key
        work.records[first.key] = work.probed
        work.todo_cells = work.todo_cells[1:]
    return work


def _rehearse(plan: _Plan, work: _Work, record: Mapping[str, Any], allow_import: bool) -> None:
    """Refuse now what would stop the run at its end, or its verdict or report, after the
    work: the spec's plots, and what the verdict and report rebuild from the run record
    (the ruleset with the spec's presets, labels, the cell of every row, ``[[tune]]``
    tables) are checked by the code that will draw and rebuild them
    (:func:`check_spec_plots`, :func:`balance.experiments.readback.check`), on a stand-in
    table of the run's shape and the record it is about to write."""
    table = _stand_in_table(plan, work)
    check_spec_plots(plan.spec, table)
    readback.check(table, record, allow_import=allow_import,
                   expanded=(plan.spec, plan.rs, plan.cells))


def _stand_in_table(plan: _Plan, work: _Work) -> pd.DataFrame:
    """The results table the run will write, in shape: every cell's row made by the run's
    own code from a stand-in answer where the cell has none yet (a simulated cell: three
    one-round fights, one of each outcome; an exact or best-play cell: the answer of the
    cell solved as a check, or of a cached one)."""
    if plan.exact:
        template = work.probed if work.probed is not None else next(iter(work.records.values()))
        records = {cell.key: work.records.get(cell.key, template) for cell in plan.cells}
        return _results_table(plan, {}, records)
    causes = tuple(getattr(plan.rs, "causes", ()))
    counts = np.zeros((3, len(causes)), np.int64)
    if causes:
        counts[:, 0] = 1
    tally = Tally(causes, counts, np.array([0, int(counts.sum())], np.int64))
    return _results_table(plan, {key: tally for key in work.runs}, {})


def _check_budget(plan: _Plan, work: _Work, pool: Any, max_seconds: float | None) -> None:
    """Refuse a simulated run whose estimate (a short pilot) exceeds ``max_seconds``."""
    if plan.exact or not work.todo:
        return
    first = work.todo[0].cell
    found = budget.estimate(plan.rs, first.rules, first.side_a, first.side_b,
                            fights=_fights_left(work.todo), chunk_size=plan.spec.chunk_size,
                            workers=_planned_workers(plan.executor, plan.workers, pool))
    budget.check(found, plan.spec.source or "the sweep", max_seconds)


def _take_folder(plan: _Plan, work: _Work, lock: guard.RunLock, resume: bool,
                 stream: IO[str]) -> tuple[int, list[Path]]:
    """Make the run directory and take its lock; remove a killed run's partial writes and
    the cached results that fail their checksum (saying so on ``stream``).  The partial
    writes removed, and the rejected results."""
    files.make_folder(plan.run_dir)
    lock.acquire()
    # Under the lock: the folder is as it was when checked (no run slipped in between).
    if (_check_run_dir(plan.run_dir, resume, locked=True) is None) != (plan.previous is None):
        raise SpecError(f"{plan.run_dir} changed while this run was starting (another run "
                        "finished there); run the command again")
    partial = store.remove_partial_writes(plan.run_dir)
    rejected = list(work.cache.rejected)
    _report_rejected(rejected, plan.run_dir, "result" if plan.exact else "chunk", stream)
    return partial, rejected


def _run_record(plan: _Plan, work: _Work, started: str) -> dict[str, Any]:
    """The run record (``meta.json``) as the run will start it, status running; its
    ``sessions`` lists every earlier session that worked on this run directory, oldest
    first (a resumed run keeps what interrupted sessions computed)."""
    spec, cells, previous = plan.spec, plan.cells, plan.previous
    return {
        "format": RUN_FORMAT, "status": "running", "description": spec.description,
        "ruleset": plan.rs.name, "source": spec.source, "spec": spec.to_dict(),
        "axes": list(spec.axis_fields), "method": spec.method, "play": spec.play,
        "seed": spec.seed, "entropy": plan.entropy,
        "streams": spec.streams, "seeding": paired.SEEDING,
        "chunk_size": (spec.chunk_size if not plan.exact
                       or (plan.best and spec.method != "exact") else None),
        "cache": f"cache/{work.tag}", "executor": plan.executor, "workers": None,
        "scheduler": None, "versions": plan.versions,
        "cells": len(cells), "distinct_cells": len(work.copies),
        "resumed": previous is not None,
        "assumptions": _assumptions(plan.rs, cells),
        "policies": _policies(plan.rs, cells, plan.policies),
        "timings": {"started": started},
        "sessions": list(previous.get("sessions", [])) if previous else [],
    }


def _start_record(plan: _Plan, record: dict[str, Any], pool: Any) -> dict[str, Any]:
    """Write the run record (with the pool's workers and scheduler) and the spec's copy;
    the record."""
    meta = {**record, "workers": pool.workers if pool else None,
            "scheduler": pool.address if pool else None}
    if plan.spec.source:
        files.atomic_write(plan.run_dir / store.SPEC_COPY,
                           Path(plan.spec.source).read_bytes())
    store.write_json(plan.run_dir / store.META, meta)
    return meta


def _compute(plan: _Plan, work: _Work, pool: Any, progress: bool | None,
             stream: IO[str]) -> _Counts:
    """Cache the probe's answer, then run every missing task on ``pool`` with a progress
    bar (shown when asked, or when ``stream`` is a terminal, and work is left; else
    heartbeat lines on a long run unless ``progress`` is false)."""
    if work.probed is not None:
        assert work.exact_cache is not None
        work.exact_cache.save(work.probed_key, work.probed)
    # None: a bar on a terminal, heartbeat lines into a log (balance.progress decides)
    show = progress if pool is not None else False
    bar = _progress_bar(plan, work, show, stream)
    try:
        if pool is None:
            return _Counts()
        if plan.exact:
            assert work.exact_cache is not None
            return _execute_exact(work.todo_cells, work.records, pool, plan.spec, work.tag,
                                  work.exact_cache, bar, work.copies, plan.entropy)
        assert work.chunk_cache is not None
        return _execute(work.todo, pool, plan.spec, plan.entropy, work.tag, work.chunk_cache,
                        bar, plan.rs)
    finally:
        bar.close()


def _progress_bar(plan: _Plan, work: _Work, show: bool | None, stream: IO[str]) -> _Progress:
    """The bar: cells (an exact or best-play run) or fights, starting from what is cached."""
    desc = Path(plan.spec.source or "sweep").stem[:40]
    if plan.exact:
        return _Progress(show, desc=desc, n_cells=len(plan.cells),
                         cells_done=sum(work.copies[k] for k in work.records),
                         total_fights=None, fights_done=0, stream=stream)
    runs = list(work.runs.values())
    return _Progress(show, desc=desc, n_cells=len(plan.cells),
                     cells_done=sum(r.copies for r in runs if r.finished),
                     total_fights=(sum(r.cap for r in runs)  # distinct work
                                   if plan.spec.precision is None else None),
                     fights_done=sum(r.size(i) for r in runs for i in r.done),
                     stream=stream)


def _record_stop(plan: _Plan, meta: dict[str, Any], exc: BaseException, started: str,
                 clock: float, executor: str) -> None:
    """Mark the run record ``interrupted`` (Ctrl-C, SIGTERM) or ``failed`` (with the
    error), with this session, as far as it can still be written."""
    stopped = isinstance(exc, KeyboardInterrupt | SystemExit)
    meta["status"] = "interrupted" if stopped else "failed"
    if not stopped:
        meta["error"] = f"{type(exc).__name__}: {exc}"
    meta["timings"].update({"stopped": _now(), "elapsed_s": time.perf_counter() - clock})
    meta["sessions"].append({"started": started, "stopped": meta["timings"]["stopped"],
                             "status": meta["status"], "executor": executor,
                             "workers": meta["workers"],
                             "elapsed_s": meta["timings"]["elapsed_s"]})
    with contextlib.suppress(Exception):
        store.write_json(plan.run_dir / store.META, meta)


def _record_finish(plan: _Plan, work: _Work, meta: dict[str, Any], counts: _Counts,
                   cleaned: tuple[int, int], started: str, clock: float,
                   executor: str) -> None:
    """Mark the run record ``complete``, with its timings and this session."""
    partial, rejected = cleaned
    elapsed = time.perf_counter() - clock
    meta["status"] = "complete"
    meta["timings"].update({"finished": _now(), "elapsed_s": elapsed})
    if plan.exact:
        probed = work.probed
        meta["timings"].update({
            "cells_solved": counts.computed + (probed is not None),
            "cells_cached": work.cached, "cells_rejected": rejected,
            "worker_s": counts.worker_s + (float(probed["wall_s"]) if probed else 0.0),
            "worker_cpu_s": counts.worker_cpu_s + (float(probed["cpu_s"]) if probed else 0.0),
        })
    else:
        meta["timings"].update({
            "chunks_computed": counts.computed, "chunks_cached": work.cached,
            "chunks_rejected": rejected, "partial_writes_removed": partial,
            "fights_computed": counts.computed_fights, "worker_s": counts.worker_s,
            "worker_cpu_s": counts.worker_cpu_s,
            "fights_per_s": counts.computed_fights / elapsed if elapsed > 0 else None,
        })
    meta["sessions"].append({"started": started, "finished": meta["timings"]["finished"],
                             "status": "complete", "executor": executor,
                             "workers": meta["workers"], "elapsed_s": elapsed,
                             "worker_s": meta["timings"]["worker_s"],
                             "computed": counts.computed})
    store.write_json(plan.run_dir / store.META, meta)


def _finish(plan: _Plan, work: _Work) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The results table, written with the spec's plots, and what the run record says of
    them: the fights in all, the files written and the tables' checksums (and under best
    play, the policies the cells' equilibria rest on)."""
    spec, run_dir = plan.spec, plan.run_dir
    table = _results_table(plan, {key: run.total() for key, run in work.runs.items()},
                           work.records)
    said: dict[str, Any] = {}
    if plan.best:
        said["policies"] = list(dict.fromkeys(
            item for cell in table["policies"] for item in str(cell).split("; ")
            if item and item != "none"))
    written = store.write_table(table, run_dir, spec.tables)
    if not plan.exact and spec.streams == "common":
        said["winners"] = _write_winners(work, run_dir)
    plots = draw_spec_plots(spec, table, run_dir)
    said.update({
        "fights": int(table["fights"].sum() if plan.best else table["n"].sum()),
        "outputs": [p.name for p in written] + ([paired.FILE] if "winners" in said else [])
                   + [str(p.relative_to(run_dir)) for p in plots],
        "checksums": {p.name: store.file_checksum(p) for p in written},
    })
    return table, said


def _write_winners(work: _Work, run_dir: Path) -> dict[str, Any]:
    """Write each cell's counted fights' winners (from the chunk cache, in order) to
    ``winners.npz``; what ``meta.json`` says of it (its checksum, and the cells whose
    chunks hold no winners, which are then compared in quadrature)."""
    assert work.chunk_cache is not None
    cache, missing = work.chunk_cache, []

    def cells() -> Iterator[tuple[str, np.ndarray]]:
        for key, run in work.runs.items():
            parts = [cache.winners(key, index, size) for index, size in run.counted()]
            if any(part is None for part in parts):
                missing.append(key)
                continue
            yield key, (np.concatenate(parts) if parts else np.zeros(0, np.uint8))

    path = run_dir / paired.FILE
    paired.write_winners(path, cells())
    return {"file": paired.FILE, "checksum": store.file_checksum(path),
            "cells_without": len(missing)}


def _results_table(plan: _Plan, totals: Mapping[str, Tally],
                   records: Mapping[str, dict[str, Any]]) -> pd.DataFrame:
    """One row per cell: from its tally (a simulated run) or its record (an exact or
    best-play run)."""
    import pandas as pd

    spec, rs, cells = plan.spec, plan.rs, plan.cells
    if plan.best:
        table = _exact.tidy(pd.DataFrame.from_records(_best.rows(cells, records)))
    elif spec.method == "exact":
        table = _exact.tidy(pd.DataFrame.from_records(_exact.rows(cells, records, rs)))
    else:
        table = pd.DataFrame.from_records(_rows(cells, totals, rs, spec.confidence,
                                                plan.policies))
    table.attrs.update({"run": str(plan.run_dir), "ruleset": rs.name,
                        "axes": list(spec.axis_fields), "spec": spec.to_dict()})
    return table


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

