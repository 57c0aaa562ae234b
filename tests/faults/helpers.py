"""Helpers of the fault tests: sweeps of the coin test ruleset run as real processes, and the
processes they leave (read from ``/proc``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ..sweep.helpers import FOREGROUND, ROOT, Gate, make_spec

__all__ = ["ROOT", "Gate", "chunk_files", "descendants", "gone", "group_members", "make_spec",
           "start_sweep", "wait_for_chunks"]


def chunk_files(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("cache/*/*/[0-9]*.json"))


def start_sweep(spec_path: Path, out: Path, gate: Gate, *extra: str,
                session: bool = False) -> subprocess.Popen[str]:
    """``balance sweep`` in a process of its own, as a terminal's foreground job (see
    :data:`tests.sweep.helpers.FOREGROUND`), its coin kernel calls held at ``gate``;
    ``session``: in a session (and process group) of its own, for a signal to the group."""
    env = {**os.environ, **gate.env, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", FOREGROUND, "sweep", str(spec_path),
                             "--out", str(out), "-q", "--allow-import", *extra], cwd=ROOT,
                            env=env, text=True, start_new_session=session,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_chunks(out: Path, proc: subprocess.Popen[str], count: int,
                    timeout: float = 300) -> None:
    """Until the sweep has written ``count`` chunks (``timeout`` only ends a test whose
    sweep is stuck)."""
    deadline = time.monotonic() + timeout
    while len(chunk_files(out)) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.02)


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children, ...), from ``/proc``."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def group_members(pgid: int) -> set[int]:
    """Every process of process group ``pgid`` that has not ended (zombies excluded)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None and int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                found.add(int(entry.name))
    return found


def gone(pids: set[int], timeout: float = 60) -> set[int]:
    """Wait until ``pids`` have ended (a zombie waiting for its reaper has ended), or
    ``timeout`` seconds have passed; the ones still running.  Returns as soon as they have
    ended: the timeout is only how long a process left behind is given."""
    deadline = time.monotonic() + timeout
    while True:
        alive = {p for p in pids if (f := _stat(p)) is not None and f[0] not in ("Z", "X")}
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def kill_all(pids: set[int]) -> None:
    """Clean up after a failed check: end what is left (by pid, these only)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
