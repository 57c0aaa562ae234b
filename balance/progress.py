"""A progress line on stderr for commands that run for seconds (``duel``, ``matchups``).

Shown only when stderr is a terminal, and only once the work has run for
:data:`DELAY_S` seconds, so quick commands and piped output stay silent.  It is a ``tqdm``
bar when tqdm is installed (the ``progress`` extra), else one plain line rewritten in place;
either says how long is left when the total is known.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ["DELAY_S", "Progress"]

DELAY_S = 2.0
"""Seconds of work before a progress display appears."""


class Progress:
    """Progress of ``total`` units (``None``: unknown) of work, described by ``desc``.

    Call :meth:`update` with the units done so far (a running total, not an increment) and
    :meth:`close` at the end; usable as a context manager.  ``enabled=None`` shows it when
    ``stream`` is a terminal.  ``initial`` units were done before (a resumed run's cache):
    they count as done but not in the rate that gives the time left.  ``leave`` keeps the
    final bar (tqdm) on screen.
    """

    def __init__(self, total: int | None, *, desc: str, unit: str,
                 stream: IO[str] | None = None, enabled: bool | None = None,
                 delay: float = DELAY_S, initial: int = 0, leave: bool = False) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty()) if callable(isatty) else False
        self.enabled = enabled
        self.delay = delay
        self.start = time.perf_counter()
        self.done = self.initial = initial
        self.note = ""
        self.leave = leave
        self.bar: Any = None
        self.plain = False
        if self.enabled:
            self._open()

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
        elif self.plain and time.perf_counter() - self.start >= self.delay:
            self._line()

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
        elapsed = time.perf_counter() - self.start
        text = f"{self.desc}: {self.done:,}"
        if self.total:
            text += f" / {self.total:,} {self.unit}s ({self.done / self.total:.0%})"
        else:
            text += f" {self.unit}s"
        text += f", {elapsed:.0f} s"
        rate = (self.done - self.initial) / elapsed if elapsed > 0 else 0.0
        if self.total and rate > 0:
            from .budget import duration

            text += f", about {duration(max(0, self.total - self.done) / rate)} left"
        if self.note:
            text += f", {self.note}"
        self.stream.write("\r" + text + " " * 4)
        self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.plain and time.perf_counter() - self.start >= self.delay:
            self.stream.write("\r\033[K")  # clear the line: the result follows cleanly
            self.stream.flush()
        self.plain = False
