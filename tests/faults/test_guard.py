"""The run lock and process liveness, in one process (the two-process cases are in
test_runner_faults)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from balance.errors import SpecError
from balance.experiments import guard


def test_a_second_lock_is_refused_naming_the_holder(tmp_path: Path) -> None:
    first = guard.RunLock(tmp_path)
    first.acquire()
    holder = json.loads((tmp_path / ".lock").read_text())
    assert holder["pid"] == os.getpid()
    with pytest.raises(SpecError, match=f"is in use by the run of process {os.getpid()}, "
                                        "started "):
        guard.RunLock(tmp_path).acquire()
    assert guard.lock_holder(tmp_path) == f"the run of process {os.getpid()}, started " \
        f"{holder['started']}"
    first.release()
    assert not (tmp_path / ".lock").exists() and guard.lock_holder(tmp_path) is None
    with guard.RunLock(tmp_path):  # free again
        assert (tmp_path / ".lock").exists()


def test_the_lock_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    done = subprocess.Popen(["true"])
    done.wait()
    dead = done.pid
    (tmp_path / ".lock").write_text(json.dumps({"pid": dead, "started": "then"}))
    assert guard.lock_holder(tmp_path) is None
    with guard.RunLock(tmp_path):
        assert json.loads((tmp_path / ".lock").read_text())["pid"] == os.getpid()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_alive_knows_a_reused_pid_and_a_zombie() -> None:
    me = os.getpid()
    assert guard.alive(me) and guard.alive(me, guard.start_time(me))
    assert not guard.alive(me, "1")  # same pid, another start: not the process we knew
    child = subprocess.Popen(["true"])
    while guard.alive(child.pid):  # exits, then stays a zombie until reaped
        time.sleep(0.01)
    assert not guard.alive(child.pid)
    child.wait()
