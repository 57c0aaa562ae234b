"""The progress line: a heartbeat into a log (output not a terminal) at least once a minute,
driven by an injected clock and timer, never by sleeping."""

from __future__ import annotations

import io
import queue

from balance import progress
from balance.progress import Progress


class Clock:
    """Seconds, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_a_heartbeat_line_every_30_s_and_a_closing_line() -> None:
    clock, log = Clock(), io.StringIO()
    bar = Progress(100, desc="sweep", unit="fight", stream=log, clock=clock, thread=False)
    stamps = []
    for done, at in ((10, 5), (20, 29.9), (40, 30), (50, 45), (60, 59.9), (70, 60.1),
                     (90, 95)):
        clock.now = 1000.0 + at
        before = log.getvalue().count("\n")
        bar.update(done, note=f"cells {done // 10}/10")
        if log.getvalue().count("\n") > before:
            stamps.append(at)
    clock.now = 1100.0
    bar.close()
    lines = log.getvalue().splitlines()
    assert stamps == [30, 60.1, 95]  # >= 30 s after the start, then after the last line
    assert lines[0] == "sweep: 40 / 100 fights (40%), 30 s, about 45 s left, cells 4/10"
    assert lines[-1] == "sweep: 90 / 100 fights (90%), 100 s, about 11 s left, cells 9/10, done"
    assert len(lines) == 4 and "\r" not in log.getvalue()


def test_a_short_run_into_a_log_writes_nothing() -> None:
    clock, log = Clock(), io.StringIO()
    bar = Progress(None, desc="tune knob", unit="evaluation", stream=log, clock=clock,
                   thread=False)
    clock.now += 29.0
    bar.update(7)
    bar.close()
    assert log.getvalue() == ""


def test_a_terminal_or_a_quiet_run_gets_no_heartbeat() -> None:
    clock = Clock()
    for stream, enabled in ((Terminal(), None), (io.StringIO(), False)):
        bar = Progress(10, desc="duel", unit="fight", stream=stream, clock=clock,
                       thread=False, delay=1e9, enabled=enabled)  # no terminal line due
        clock.now += 120
        bar.update(5)
        bar.tick()
        bar.close()
        assert "\n" not in stream.getvalue(), enabled


class Written(io.StringIO):
    """A log that hands each line written to the test (what it synchronises on)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: queue.Queue[str] = queue.Queue()

    def write(self, text: str) -> int:
        self.lines.put(text)
        return super().write(text)


def test_the_heartbeat_thread_writes_while_one_step_runs_for_minutes() -> None:
    # No update for two minutes (one slow chunk): the thread's timer still writes a line at
    # each wake-up.  The test is the timer: it wakes the thread and waits for the line.
    clock, log = Clock(), Written()
    wakes: queue.Queue[bool] = queue.Queue()
    asked: list[float] = []

    def wait(seconds: float) -> bool:
        asked.append(seconds)
        return wakes.get(timeout=30)

    bar = Progress(12, desc="matchups", unit="pair", stream=log, clock=clock, wait=wait)
    bar.update(3)
    for minute in (1, 2):
        clock.now = 1000.0 + 60 * minute
        wakes.put(False)
        line = log.lines.get(timeout=30)
        assert line == f"matchups: 3 / 12 pairs (25%), {60 * minute} s, about " \
            f"{3 * minute} min left\n"
    wakes.put(True)  # the run ends: the thread stops, close() joins it
    bar.close()
    assert asked and set(asked) == {progress.HEARTBEAT_S} and progress.HEARTBEAT_S <= 60
    assert log.getvalue().splitlines()[-1].endswith(", done")


def test_the_default_timer_stops_at_close() -> None:
    bar = Progress(5, desc="duel", unit="fight", stream=io.StringIO())
    assert bar._thread is not None and bar._thread.is_alive()
    bar.close()
    assert bar._thread is None


def test_heartbeat_zero_writes_a_line_at_every_update() -> None:
    clock, log = Clock(), io.StringIO()
    bar = Progress(1000, desc="sweep", unit="fight", stream=log, clock=clock, thread=False,
                   heartbeat=0.0)
    clock.now += 90
    bar.update(100)
    bar.update(100)
    assert log.getvalue() == "sweep: 100 / 1,000 fights (10%), 90 s, about 14 min left\n" * 2
