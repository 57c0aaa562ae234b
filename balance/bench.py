"""Throughput of each ruleset's vectorised kernel against its scalar reference.

For every bench case a ruleset declares, the same rules and sides are timed through
``simulate`` (fights per second, the best of several calls of one engine chunk) and through
``fight`` (fights per second over a fixed time budget), in one run, and the ratio printed.
A ruleset may also name ``bench_extra_cases()`` and time them in ``bench_extra(cases)``,
returning JSON-ready rows of its own (an exact solver's timings, say); a row with a ``summary`` string is printed as that line.
Everything runs in this process on one core (NumPy's element-wise kernels are
single-threaded).  ``memory=True`` also runs one long duel per ruleset in a subprocess and
reports its peak resident memory.

The ``startup`` case (:data:`STARTUP`) times whole commands in fresh processes, as a
designer meets them: ``import balance``, ``balance --help``, one exact answer and one
``balance plot`` of a small run; the median wall time of several runs of each.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import IO, Any

from .api import get, versions
from .engine import DEFAULT_CHUNK_SIZE
from .errors import SpecError, did_you_mean
from .fields import plain
from .random import stream
from .rulesets import portable
from .rulesets.base import BenchCase, Ruleset

__all__ = ["STARTUP", "format_table", "measure", "memory_estimates", "run", "startup"]

STARTUP = "startup"
"""The bench case of whole-command start-up times (not a ruleset's case)."""
STARTUP_RUNS = 5
_PLOT_SPEC = {
    "ruleset": "crt", "description": "bench: a small run to plot",
    "a": [{"name": "challenger"}], "b": [{"preset": "veteran"}],
    "grid": {"axes": [{"field": "a.0.skill", "values": [0, 1, 2, 3, 4, 5]},
                      {"field": "a.0.combats", "values": list(range(0, 41, 5))}]},
    "run": {"fights": 1000, "seed": 1},
}


def _time_kernel(rs: Ruleset, case: BenchCase, seconds: float) -> tuple[float, float, int]:
    """Best throughput over repeated calls of one engine chunk (the size the engine uses),
    by the wall clock and by this process's CPU time."""
    rng = stream(0, "bench", rs.name, case.name, "kernel")
    rs.simulate(case.rules, case.side_a, case.side_b, n=1000, rng=rng)  # warm caches
    n = DEFAULT_CHUNK_SIZE
    best = best_cpu = float("inf")
    spent = 0.0
    calls = 0
    while calls < 2 or (spent < seconds and calls < 10):
        start, cpu = time.perf_counter(), time.process_time()
        rs.simulate(case.rules, case.side_a, case.side_b, n=n, rng=rng)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        best, spent, calls = min(best, elapsed), spent + elapsed, calls + 1
        best_cpu = min(best_cpu, cpu)
    return n / best, n / max(best_cpu, 1e-9), n


def _time_reference(rs: Ruleset, case: BenchCase, seconds: float) -> tuple[float, float, int]:
    rng = stream(0, "bench", rs.name, case.name, "reference")
    count = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        rs.fight(case.rules, case.side_a, case.side_b, rng=rng)
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and count >= 20:
            return count / elapsed, count / max(time.process_time() - cpu, 1e-9), count


def measure(rs: Ruleset, case: BenchCase, seconds: float = 1.0) -> dict[str, Any]:
    """Time one case through kernel and reference; a JSON-ready row.

    The ``..._cpu_...`` figures divide by this process's CPU time instead of the wall
    clock: on a shared machine they measure the code rather than the load.
    """
    kernel, kernel_cpu, n_kernel = _time_kernel(rs, case, seconds)
    reference, reference_cpu, n_reference = _time_reference(rs, case, seconds)
    return {"ruleset": rs.name, "case": case.name, "description": case.description,
            "kernel_fights_per_s": kernel, "reference_fights_per_s": reference,
            "ratio": kernel / reference, "kernel_n": n_kernel, "reference_n": n_reference,
            "kernel_fights_per_cpu_s": kernel_cpu, "reference_fights_per_cpu_s": reference_cpu,
            "ratio_cpu": kernel_cpu / reference_cpu, "load_average": os.getloadavg()[0]}


def _peak_memory(rs: Ruleset, case: BenchCase, n: int) -> dict[str, Any]:
    """Run one ``n``-fight duel of ``case`` in a fresh process; its peak RSS."""
    code = (
        "import json, sys, resource, balance\n"
        "from balance.fields import build\n"
        "c = json.loads(sys.argv[1])\n"
        "rs = balance.get(c['ruleset'], allow_import=c['allow_import'])\n"
        "side = lambda s: [build(rs.Combatant, f) for f in s]\n"
        "s = balance.duel(rs, side(c['a']), side(c['b']), rules=build(rs.Rules, c['rules']),"
        " n=c['n'], seed=0)\n"
        "print(json.dumps({'n': s.n, 'elapsed_s': s.meta['elapsed_s'],"
        " 'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    ref, allowed = portable(rs)  # the permission this process had, nothing more
    spec = {"ruleset": ref, "allow_import": allowed, "n": n, "rules": _fields(case.rules),
            "a": [_fields(c) for c in case.side_a], "b": [_fields(c) for c in case.side_b]}
    out = subprocess.run([sys.executable, "-c", code, json.dumps(spec)], check=True,
                         capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    result = json.loads(out.stdout)
    return {"ruleset": rs.name, "case": f"{case.name} memory", "description":
            f"peak resident memory of one {n:,}-fight duel in a fresh process",
            "fights": result["n"], "elapsed_s": result["elapsed_s"],
            "peak_rss_mb": result["peak_rss_mb"]}


def startup(runs: int = STARTUP_RUNS, progress: IO[str] | None = None
            ) -> list[dict[str, Any]]:
    """Wall time of whole commands in fresh processes: the median and the best of ``runs``,
    and the median CPU seconds (user + system), which a loaded machine inflates less.

    Each command runs as ``python -m balance ...`` (what the ``balance`` script does), so
    the time includes the interpreter's own start; ``plot`` draws a heatmap (PNG and SVG)
    of a small crt run made beforehand in a temporary folder.
    """
    import tempfile
    from pathlib import Path

    from .experiments import sweep

    with tempfile.TemporaryDirectory(prefix="balance-bench-") as tmp:
        run_dir = Path(tmp) / "run"
        sweep(_PLOT_SPEC, out=run_dir, executor="serial", progress=False)
        commands = [
            ("import balance", [sys.executable, "-c", "import balance"]),
            ("balance --help", [sys.executable, "-m", "balance", "--help"]),
            ("balance exact crt", [sys.executable, "-m", "balance", "exact", "crt", "--a",
                                   "veteran", "--b", "expert", "--rule",
                                   "extraordinary=false"]),
            ("balance plot", [sys.executable, "-m", "balance", "plot", str(run_dir), "--out",
                              str(Path(tmp) / "plots")]),
        ]
        rows = []
        for name, argv in commands:
            if progress:
                print(f"bench startup / {name} ...", file=progress, flush=True)
            times, cpu = [], []
            for _ in range(runs):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                subprocess.run(argv, check=True, capture_output=True)
                times.append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
            median = sorted(times)[len(times) // 2]
            cpu_median = sorted(cpu)[len(cpu) // 2]
            rows.append({"ruleset": "-", "case": f"{STARTUP}: {name}",
                         "description": "wall time of the command in a fresh process",
                         "command": " ".join(["balance", *argv[3:]] if argv[1] == "-m"
                                             else ["python", *argv[1:]]),
                         "wall_s_median": median, "wall_s_best": min(times),
                         "cpu_s_median": cpu_median, "runs": runs,
                         "load_average": os.getloadavg()[0],
                         "summary": f"{median:.2f} s wall, {cpu_median:.2f} s CPU (medians of "
                                    f"{runs}; best wall {min(times):.2f} s; load "
                                    f"{os.getloadavg()[0]:.1f})"})
    return rows


def _fields(obj: Any) -> dict[str, Any]:
    import dataclasses

    return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}


def memory_estimates(rulesets: Sequence[str | Ruleset], *, cases: Sequence[str] | None = None,
                     memory_n: int = 100_000_000) -> list[tuple[str, Any]]:
    """What the ``memory=True`` duels would cost (``--memory-n`` fights of each ruleset's
    first chosen case): ``(what, balance.budget.Estimate or None)``, for
    :func:`balance.budget.check_all` before anything runs."""
    from . import budget

    parts = []
    for name in rulesets:
        rs = get(name)
        chosen = [c for c in rs.bench_cases() if cases is None or c.name in cases]
        if chosen:
            case = chosen[0]
            parts.append((f"--memory-n {memory_n:,} ({rs.name} / {case.name})", budget.estimate(
                rs, case.rules, case.side_a, case.side_b, fights=memory_n,
                chunk_size=DEFAULT_CHUNK_SIZE)))
    return parts


def run(rulesets: Sequence[str | Ruleset], *, cases: Sequence[str] | None = None, seconds: float = 1.0,
        memory: bool = False, memory_n: int = 100_000_000, progress: IO[str] | None = None,
        allow_import: bool = False) -> list[dict[str, Any]]:
    """Measure every bench case of the named rulesets (or only the named ``cases``;
    ``allow_import``: as :func:`balance.duel`).

    Every row has ``ruleset``, ``case``, ``kernel_fights_per_s``, ``reference_fights_per_s``
    and ``ratio``; rows that time something else (an exact solve, peak memory) have those
    three as ``None`` and say what they measured in their own keys.
    """
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
            or not math.isfinite(seconds) or seconds <= 0:
        raise SpecError(f"bench seconds must be a finite number > 0, got {seconds!r}")
    resolved = [get(name, allow_import=allow_import) for name in rulesets]
    if cases is not None:
        known = {STARTUP} | {c.name for rs in resolved for c in rs.bench_cases()}
        known |= {case for rs in resolved for case in rs.bench_extra_cases()}
        unknown = [c for c in cases if c not in known]
        if unknown:
            raise SpecError(f"unknown bench case {unknown[0]!r}"
                            f"{did_you_mean(unknown[0], known)}; cases: "
                            + ", ".join(sorted(known)))
    rows = []
    for rs in resolved:
        chosen = [c for c in rs.bench_cases() if cases is None or c.name in cases]
        for case in chosen:
            if progress:
                print(f"bench {rs.name} / {case.name} ...", file=progress, flush=True)
            rows.append(measure(rs, case, seconds))
        if rs.bench_extra_cases() and (cases is None or set(cases) & set(rs.bench_extra_cases())):
            if progress:  # ruleset-specific rows, e.g. exact-solver timings
                print(f"bench {rs.name} / extra ...", file=progress, flush=True)
            for name in rs.bench_extra_cases():  # one call a case, to time its CPU alone
                if cases is not None and name not in cases:
                    continue
                cpu = time.process_time()
                extra = rs.bench_extra([name])
                cpu = time.process_time() - cpu
                for row in extra:  # CPU seconds of one solve (the call may repeat it)
                    row.setdefault("cpu_s", cpu / len(extra) / row.get("repeats", 1))
                rows.extend(extra)
        if memory and chosen:
            if progress:
                print(f"bench {rs.name} / memory ({memory_n:,} fights) ...", file=progress,
                      flush=True)
            rows.append(_peak_memory(rs, chosen[0], memory_n))
    if cases is None or STARTUP in cases:
        rows.extend(startup(progress=progress))
    for row in rows:
        for key in ("kernel_fights_per_s", "reference_fights_per_s", "ratio",
                    "kernel_fights_per_cpu_s", "reference_fights_per_cpu_s", "ratio_cpu"):
            row.setdefault(key, None)
        row.update(versions())
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """A plain-text table of bench rows."""
    lines = [f"{'ruleset':<12} {'case':<28} {'kernel fights/s':>16} {'reference fights/s':>19} "
             f"{'ratio':>8} {'kernel /CPU s':>14}"]
    for r in rows:
        if "summary" in r:
            lines.append(f"{r['ruleset']:<12} {r['case']:<28} {r['summary']}")
        elif "peak_rss_mb" in r:
            lines.append(f"{r['ruleset']:<12} {r['case']:<28} {r['fights']:>16,} fights in "
                         f"{r['elapsed_s']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB")
        else:
            lines.append(f"{r['ruleset']:<12} {r['case']:<28} {r['kernel_fights_per_s']:>16,.0f} "
                         f"{r['reference_fights_per_s']:>19,.0f} {r['ratio']:>7,.0f}x "
                         f"{r['kernel_fights_per_cpu_s']:>14,.0f}")
    return "\n".join(lines)
