"""What keeps a run safe from other runs and from its own death.

* :class:`RunLock` -- one run at a time in a run directory: an OS lock (``flock``) on
  ``RUN/.lock``, which the kernel releases when its holder dies however it dies, so the lock
  of a killed run is simply taken over; the file names its holder for the message a second
  run gets.
* :func:`watch_parent` -- started in every worker process: the worker exits as soon as the
  process that started the sweep is gone (a ``SIGKILL`` of the sweep leaves no worker, and
  with no worker left the forkserver and the resource tracker, which live as long as a
  worker holds their pipes, end too).
* :func:`terminate_as_interrupt` -- ``SIGTERM`` (what ``timeout`` and batch schedulers send)
  handled like Ctrl-C: an :class:`~balance.errors.Interrupted` exception in the main thread,
  so a sweep keeps its finished chunks, stops its workers and records itself interrupted.
* :func:`stop_signals_blocked` -- what a sweep starts (a forkserver, a dask cluster) is
  started deaf to Ctrl-C and ``SIGTERM``, so a signal sent to the whole process group (a
  terminal's Ctrl-C; systemd, Slurm, ``kill -- -PGID``) reaches the sweep alone, which
  stops its workers itself.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import Interrupted, SpecError

__all__ = ["STOP_SIGNALS", "RunLock", "alive", "lock_holder", "start_time",
           "stop_signals_blocked", "terminate_as_interrupt", "watch_parent"]

LOCK_NAME = ".lock"
WATCH_INTERVAL_S = 0.25
"""How often a worker checks that the process that started it is still there."""

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None  # type: ignore[assignment]


# --- processes ------------------------------------------------------------------------------


def _proc_stat(pid: int) -> list[str] | None:
    """Fields of ``/proc/<pid>/stat`` after the command name (state first), or ``None``
    when there is no such process; raises ``OSError`` where there is no ``/proc``."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        if not Path("/proc/self/stat").exists():
            raise OSError("no /proc") from None
        return None
    except ProcessLookupError:
        return None
    return text.rpartition(")")[2].split()  # the name may hold spaces and parentheses


def start_time(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or ``None``
    where that cannot be read: with the pid, it names one process even after pid reuse."""
    try:
        fields = _proc_stat(pid)
    except OSError:
        return None
    return fields[19] if fields is not None and len(fields) > 19 else None


def alive(pid: int, started: str | None = None) -> bool:
    """Whether process ``pid`` is running (not a zombie), and is the one that started at
    ``started`` (see :func:`start_time`) when given."""
    try:
        fields = _proc_stat(pid)
    except OSError:  # no /proc: ask the kernel whether the pid exists
        if os.name == "nt":
            return True  # os.kill(pid, 0) would signal it there: cannot tell, assume so
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        except OSError:
            return False
        return True
    if fields is None or fields[0] in ("Z", "X"):
        return False
    return started is None or (len(fields) > 19 and fields[19] == started)


def watch_parent(pid: int, started: str | None) -> None:
    """Exit this process (at once, status 1) when process ``pid`` is gone; runs in a
    daemon thread, so it costs a wake-up every :data:`WATCH_INTERVAL_S`."""

    def watch() -> None:
        while alive(pid, started):
            time.sleep(WATCH_INTERVAL_S)
        os._exit(1)

    threading.Thread(target=watch, name="balance-parent-watch", daemon=True).start()


# --- SIGTERM and Ctrl-C ----------------------------------------------------------------------

STOP_SIGNALS = frozenset({signal.SIGINT, signal.SIGTERM})
"""Ctrl-C and SIGTERM: a sweep's client alone answers them."""


@contextlib.contextmanager
def stop_signals_blocked() -> Iterator[None]:
    """Within the block, Ctrl-C and ``SIGTERM`` are blocked in this thread, and restored
    after; one that comes meanwhile is delivered as soon as they are.

    A process or thread started within the block inherits the mask: a process for life
    (across ``exec`` too), so it, and whatever it forks, never hears a stop signal sent to
    the whole process group; a thread forever, so the ones it starts are deaf too.  Blocked
    rather than ignored here, so this process loses nothing.  Does nothing where the mask
    cannot be set (not POSIX) or outside the main thread.
    """
    if not hasattr(signal, "pthread_sigmask") \
            or threading.current_thread() is not threading.main_thread():
        yield
        return
    # multiprocessing's resource tracker, started on first need by whatever starts a
    # process, unblocks these two signals in the thread that starts it (after blocking them
    # for its own start): started first, it cannot undo the block below.
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, ``SIGTERM`` raises :class:`~balance.errors.Interrupted` (a
    ``KeyboardInterrupt``) in the main thread, as Ctrl-C does; the old handler is restored
    after.  Does nothing outside the main thread or where a handler is already set."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Interrupted(signum)

    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


# --- the run lock -----------------------------------------------------------------------------


def _read_holder(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe(holder: dict[str, Any]) -> str:
    if not isinstance(holder.get("pid"), int):
        return "another run"
    host = holder.get("host")
    where = "" if host in (None, socket.gethostname()) else f" on {host}"
    since = f", started {holder['started']}" if holder.get("started") else ""
    return f"the run of process {holder['pid']}{where}{since}"


def lock_holder(run_dir: Path) -> str | None:
    """Who holds the lock of ``run_dir``, as words, or ``None`` if no live process does.

    Reads the lock file without taking the lock (so it never gets in a starting run's way):
    the answer names the holder in a message; :meth:`RunLock.acquire` is what decides.
    """
    path = Path(run_dir) / LOCK_NAME
    if not path.is_file():
        return None
    holder = _read_holder(path)
    pid = holder.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool):
        return None
    if holder.get("host") not in (None, socket.gethostname()):
        return None  # another machine's process: cannot tell here; the lock itself decides
    return _describe(holder) if alive(pid, holder.get("start_time")) else None


class RunLock:
    """The lock of one run directory, held for the whole run.

    ``acquire`` takes an exclusive ``flock`` on ``RUN/.lock`` without waiting, and raises a
    :class:`SpecError` naming the holder when another process has it.  The kernel drops a
    ``flock`` when its process dies, so the lock file a killed run leaves behind is taken
    over by the next run, with no staleness guess.  ``release`` removes the file (while
    still holding the lock; a run that opened the old file before it went notices the
    change and opens the new one).  Where there is no ``fcntl`` (Windows) the lock is the
    file itself, created exclusively, and a file whose holder is no longer running is
    taken over.
    """

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_NAME
        self.fd: int | None = None

    def _refuse(self) -> SpecError:
        holder = _read_holder(self.path)
        return SpecError(f"{self.run_dir} is in use by {_describe(holder)}; wait for it to "
                         "finish (or stop it), or choose another --out")

    def _record(self) -> bytes:
        pid = os.getpid()
        return json.dumps({"pid": pid, "start_time": start_time(pid),
                           "host": socket.gethostname(),
                           "started": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                           "argv": sys.argv[:8]}).encode("utf-8")

    def acquire(self) -> None:
        if fcntl is None:
            self._acquire_exclusive_file()
            return
        for _ in range(20):  # only loops while another run removes the file under us
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                # The holder may not have written its name yet: give it a moment.
                for _ in range(10):
                    if _read_holder(self.path):
                        break
                    time.sleep(0.02)
                raise self._refuse() from None
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if not same:  # released and removed between our open and our lock: again
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.write(fd, self._record())
            self.fd = fd
            return
        raise SpecError(f"cannot take the lock {self.path}: it keeps changing; is another "
                        "run starting and stopping in this folder?")

    def _acquire_exclusive_file(self) -> None:
        for _ in range(2):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                if lock_holder(self.run_dir) is not None:
                    raise self._refuse() from None
                with contextlib.suppress(OSError):
                    self.path.unlink()  # its holder is gone: take it over
                continue
            os.write(fd, self._record())
            self.fd = fd
            return
        raise self._refuse()

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
