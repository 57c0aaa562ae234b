"""A sweep killed outright (SIGKILL) or stopped (Ctrl-C) keeps every completed chunk, and
``--resume`` ends with the same table as an uninterrupted run.

The sweeps run the coin kernel behind a :class:`~tests.sweep.helpers.Gate`: the test lets a
number of kernel calls through, waits for that many chunks, and signals a sweep that cannot
get further, however loaded the machine is."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

import balance

from .helpers import FOREGROUND, ROOT, Gate, make_spec

SPEC = make_spec(run={"fights": 4_000, "chunk_size": 500})  # 9 cells x 8 chunks
N_CHUNKS = 72


def chunk_files(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("cache/*/*/[0-9]*.json"))


def start(spec_path: Path, out: Path, gate: Gate, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", FOREGROUND, "sweep", str(spec_path), "--out",
                             str(out), "-q", "--allow-import", *extra], cwd=ROOT,
                            env={**os.environ, **gate.env}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for_chunks(out: Path, proc: subprocess.Popen, count: int) -> None:
    """Until the sweep has written ``count`` chunks (the deadline only ends a test whose
    sweep is stuck)."""
    deadline = time.monotonic() + 300
    while len(chunk_files(out)) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.02)


def resume(spec_path: Path, out: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "balance", "sweep", str(spec_path), "--out",
                           str(out), "--resume", "-q", "--executor", "serial", "--allow-import"], cwd=ROOT,
                          text=True, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"results: {out / 'results.parquet'}" in done.stdout
    return json.loads((out / "meta.json").read_text())


def test_resume_after_sigkill(tmp_path: Path, write_spec: Any) -> None:
    spec_path = write_spec(SPEC)
    expected = balance.sweep(SPEC, out=tmp_path / "whole", executor="serial").table
    out, gate = tmp_path / "killed", Gate(tmp_path / "gate")
    proc = start(spec_path, out, gate, "--executor", "serial")
    gate.allow(10)
    wait_for_chunks(out, proc, 10)  # and held at the gate in its 11th
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    kept = {p: p.stat().st_mtime_ns for p in chunk_files(out)}
    assert len(kept) == 10
    assert json.loads((out / "meta.json").read_text())["status"] == "running"  # never finished
    assert not (out / "results.parquet").exists()

    meta = resume(spec_path, out)
    assert meta["status"] == "complete"
    assert meta["timings"]["chunks_cached"] == len(kept)
    assert meta["timings"]["chunks_computed"] == N_CHUNKS - len(kept)
    assert all(p.stat().st_mtime_ns == t for p, t in kept.items())
    # A killed session leaves no record of its own; the resuming one is the only session.
    assert [s["status"] for s in meta["sessions"]] == ["complete"]
    assert meta["sessions"][0]["computed"] == N_CHUNKS - len(kept)
    pd.testing.assert_frame_equal(balance.load_run(out).table, expected, check_exact=True)


def test_resume_after_ctrl_c(tmp_path: Path, write_spec: Any) -> None:
    spec_path = write_spec(SPEC)
    expected = balance.sweep(SPEC, out=tmp_path / "whole", executor="serial").table
    out, gate = tmp_path / "stopped", Gate(tmp_path / "gate")
    proc = start(spec_path, out, gate, "--executor", "processes", "--workers", "2")
    gate.allow(6)
    wait_for_chunks(out, proc, 6)  # the workers are held at the gate
    proc.send_signal(signal.SIGINT)
    gate.open()  # the chunks the workers are on finish in the stop's grace, and are kept
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert f"every completed chunk is kept in {out}: rerun with --resume" in stderr
    meta = json.loads((out / "meta.json").read_text())
    assert meta["status"] == "interrupted"
    kept = len(chunk_files(out))
    assert 6 <= kept < N_CHUNKS

    meta = resume(spec_path, out)
    assert meta["timings"]["chunks_cached"] == kept
    assert [s["status"] for s in meta["sessions"]] == ["interrupted", "complete"]
    assert meta["sessions"][0]["workers"] == 2
    pd.testing.assert_frame_equal(balance.load_run(out).table, expected, check_exact=True)
