"""A progress line on stderr for commands that run for seconds (``duel``, ``matchups``,
``sweep``, ``tune``).

On a terminal it appears once the work has run for :data:`DELAY_S` seconds, so quick
commands stay silent: a ``tqdm`` bar when tqdm is installed (the ``progress`` extra), else
one plain line rewritten in place; either says how long is left when the total is known.

When stderr is not a terminal (a log file, a CI job) a long run writes a heartbeat instead:
one whole line every :data:`HEARTBEAT_S` seconds (the same counts and time left), from a
background thread so a slow step still shows the run is alive, and a closing line if any
heartbeat was written.  A run shorter than that writes nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

__all__ = ["DELAY_S", "HEARTBEAT_S", "Progress"]

DELAY_S = 2.0
"""Seconds of work before a progress display appears."""
HEARTBEAT_S = 30.0
"""Seconds between heartbeat lines when the output is not a terminal (at least one a minute,
even when one step of the work takes longer than that)."""


class Progress:
    """Progress of ``total`` units (``None``: unknown) of work, described by ``desc``.

    Call :meth:`update` with the units done so far (a running total, not an increment) and
    :meth:`close` at the end; usable as a context manager.  ``enabled=None`` shows it when
    ``stream`` is a terminal.  ``initial`` units were done before (a resumed run's cache):
    they count as done but not in the rate that gives the time left.  ``leave`` keeps the
    final bar (tqdm) on screen.

    With ``enabled=None`` and ``stream`` not a terminal it writes heartbeat lines every
    ``heartbeat`` seconds (default :data:`HEARTBEAT_S`; 0: at every update), from a thread
    unless ``thread`` is false or ``heartbeat`` 0 (lines then come only from
    :meth:`update` and :meth:`tick`).  ``clock`` (seconds) and ``wait``
    (the thread's timer: wait up to its argument, true to stop; default: until
    :meth:`close`) can be replaced, so a test steps time instead of sleeping.
    """

    def __init__(self, total: int | None, *, desc: str, unit: str,
                 stream: IO[str] | None = None, enabled: bool | None = None,
                 delay: float = DELAY_S, initial: int = 0, leave: bool = False,
                 heartbeat: float | None = None,
                 clock: Callable[[], float] = time.perf_counter,
                 wait: Callable[[float], bool] | None = None, thread: bool = True) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        self.beat: float | None = None
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
            self.beat = None if enabled else (HEARTBEAT_S if heartbeat is None else heartbeat)
        self.enabled = enabled
        self.delay = delay
        self.clock = clock
        self.start = clock()
        self.done = self.initial = initial
        self.note = ""
        self.leave = leave
        self.bar: Any = None
        self.plain = False
        self.beats = 0
        self._last = self.start
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.enabled:
            self._open()
        elif self.beat and thread:
            self._start_thread(wait or self._stop.wait)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, done: int, note: str | None = None) -> None:
        """``done`` units so far; ``note`` (e.g. "cells 3/9") is shown after the counts."""
        self.done = done
        if note is not None:
            self.note = note
        if self.bar is not None:  # tqdm keeps the delay itself (and times from the start)
            if note is not None:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(done - self.bar.n)
        elif self.plain and self.clock() - self.start >= self.delay:
            self._line()
        elif self.beat is not None:
            self.tick()

    def tick(self) -> None:
        """Write a heartbeat line if :data:`HEARTBEAT_S` (``heartbeat``) seconds have passed
        since the last one, or since the start."""
        if self.beat is None:
            return
        with self._lock:
            now = self.clock()
            if now - self._last < self.beat:
                return
            self._last = now
            self.beats += 1
            self.stream.write(self._text(now) + "\n")
            self.stream.flush()

    def _start_thread(self, wait: Callable[[float], bool]) -> None:
        assert self.beat is not None
        every = self.beat

        def run() -> None:
            while not wait(every) and not self._stop.is_set():
                self.tick()

        self._thread = threading.Thread(target=run, name=f"heartbeat {self.desc}", daemon=True)
        self._thread.start()

    def _open(self) -> None:
        try:
            from tqdm import tqdm
        except ImportError:
            self.plain = True
            return
        self.bar = tqdm(total=self.total, desc=self.desc, unit=self.unit, initial=self.initial,
                        unit_scale=self.total is None or self.total >= 10_000,
                        file=self.stream, dynamic_ncols=True, leave=self.leave,
                        delay=self.delay)

    def _line(self) -> None:
        self.stream.write("\r" + self._text(self.clock()) + " " * 4)
        self.stream.flush()

    def _text(self, now: float) -> str:
        """The counts, the time spent and left, and the note."""
        elapsed = now - self.start
        text = f"{self.desc}: {self.done:,}"
        if self.total:
            text += f" / {self.total:,} {self.unit}s ({self.done / self.total:.0%})"
        else:
            text += f" {self.unit}{'' if self.done == 1 else 's'}"
        text += f", {elapsed:.0f} s"
        rate = (self.done - self.initial) / elapsed if elapsed > 0 else 0.0
        if self.total and rate > 0:
            from .budget import duration

            text += f", about {duration(max(0, self.total - self.done) / rate)} left"
        if self.note:
            text += f", {self.note}"
        return text

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.beat is not None and self.beats:  # a log that had heartbeats says it ended
            with self._lock:
                self.stream.write(self._text(self.clock()) + ", done\n")
                self.stream.flush()
            self.beat = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.plain and self.clock() - self.start >= self.delay:
            self.stream.write("\r\033[K")  # clear the line: the result follows cleanly
            self.stream.flush()
        self.plain = False
