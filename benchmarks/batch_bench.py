"""Benchmark of whole questions in shared kernel calls (issue 23; not a test).

Each figure is printed beside the kernel's raw rate (one matchup, one large batch), so the
distance between a designer's question and the kernel's speed is read in one run:

* ``robin`` -- strike-rank's round robin of the nineteen style presets at ``-n`` fights a
  pair, both seats and the mirrors (``19 x 19`` ordered pairs), in this process: CPU
  seconds and fights per CPU second (the issue's target: under 10 CPU-s at 3,000 a pair).
* ``best`` -- the best-play round robin of the same styles at +/- ``--precision`` (the
  issue's: 0.01, under 2 minutes wall on 2 cores), on ``--workers`` processes.  Long: run
  it with ``--parts best``; ``--best-pairs K`` times K pairs and prints the estimate for
  all 361.
* ``matchups`` -- the issue's command, ``balance matchups strike-rank --entrants
  knight,gladiator,skirmisher,archer,brawler,legionnaire -n 3000 --seed 1`` (108,000
  fights), in processes of its own: the median CPU seconds of five runs (``--repeat`` if
  more) with the race model's tables computed (each an empty ``$BALANCE_CACHE``) and of
  five reading them back (a folder filled by a run before them), and that all print the
  same (the issue's baseline: 30 CPU-s; its target 20x less).  The package's bytecode is
  compiled first (as any earlier run leaves it), so the figure is the command's and not
  Python's compiler's.
* ``sweep`` -- a ``--side`` x ``--side`` crt sweep (the challenger's and the veteran's
  combats survived, every table on) at ``--cell`` fights a cell, through
  ``balance.sweep(executor="serial")`` and through ``engine.run_segments`` alone, against
  one crt duel of ``side**2 * cell`` fights under the same rules (the issue's target:
  within 1.5x of the duel's CPU time).

CPU times are this process's (``time.process_time``; the matchups command's: its
processes', user + system); the machine may be shared, so each figure is a
best-of-``--repeat`` (the matchups command's: a median, as above).  Usage::

    nice .venv/bin/python benchmarks/batch_bench.py                  # robin and sweep
    nice .venv/bin/python benchmarks/batch_bench.py --parts sweep --side 20 --cell 2000
    nice .venv/bin/python benchmarks/batch_bench.py --parts best --best-pairs 64
    nice .venv/bin/python benchmarks/batch_bench.py --parts matchups
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import balance
from balance import engine
from balance.analysis.matchups import round_robin
from balance.api import matchup
from balance.batching import Segment
from balance.random import root_entropy, stream

STYLES = ["archer", "assassin", "berserker", "bladesman", "brawler", "feral", "footpad",
          "gladiator", "horseman", "hunter", "knight", "legionnaire", "martial_artist",
          "shieldman", "skirmisher", "spearman", "poleaxeman", "specialist", "swashbuckler"]


def cpu(fn: Any, repeat: int = 1) -> tuple[float, float, Any]:
    """Best CPU and wall seconds of ``repeat`` calls of ``fn``, and its last result.  Each
    call starts from a collected heap (as a fresh process would), so a collection of the
    previous call's garbage is not charged to it; collections it causes itself are."""
    best_cpu, best_wall, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        out = None
        gc.collect()
        c, w = time.process_time(), time.perf_counter()
        out = fn()
        best_cpu = min(best_cpu, time.process_time() - c)
        best_wall = min(best_wall, time.perf_counter() - w)
    return best_cpu, best_wall, out


def raw_rate(ruleset: str, rules: Any, side_a: Any, side_b: Any, n: int) -> float:
    """The kernel's fights per CPU second on one matchup in one call of ``n`` fights."""
    rs = balance.get(ruleset)
    rs.simulate(rules, side_a, side_b, n=min(n, 10_000), rng=stream(1, "warm"))
    seconds, _, _ = cpu(lambda: rs.simulate(rules, side_a, side_b, n=n, rng=stream(1, "raw")))
    return n / seconds


def robin(n: int, repeat: int) -> dict[str, Any]:
    rs = balance.get("strike-rank")
    _, rules, a, b = matchup(rs, "knight", "gladiator", None)
    raw = raw_rate("strike-rank", rules, a, b, 1 << 18)
    seconds, wall, table = cpu(lambda: round_robin(rs, STYLES, n=n, seed=1, method="simulate",
                                                   workers=1), repeat)
    fights = int(table["n"].sum())
    return {"pairs": len(table), "fights": fights, "cpu_s": seconds, "wall_s": wall,
            "fights_per_cpu_s": fights / seconds, "raw_fights_per_cpu_s": raw}


def strike_rank_raw() -> float:
    rs = balance.get("strike-rank")
    _, rules, a, b = matchup(rs, "knight", "gladiator", None)
    return raw_rate("strike-rank", rules, a, b, 1 << 18)


MATCHUPS = ["matchups", "strike-rank", "--entrants",
            "knight,gladiator,skirmisher,archer,brawler,legionnaire", "-n", "3000", "--seed", "1"]


def matchups_command(repeat: int = 5) -> dict[str, Any]:
    """The issue's command in processes of their own: ``repeat`` runs each computing the
    race tables (each in an empty cache folder of its own), then ``repeat`` runs reading
    them back (one folder, filled by a run before them); each run's CPU seconds (user +
    system, from the kernel's accounting of the child) and their medians."""
    command = [str(Path(sys.executable).with_name("balance")), *MATCHUPS]
    out: dict[str, Any] = {"fights": 36 * 3000, "repeat": repeat}
    env = dict(os.environ)
    # as on a user's machine after any first run: the package's bytecode is on disk
    # (an environment that forbids writing it would time the compiler instead)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(balance.__file__).parent)],
                   env=env, check=True, capture_output=True)

    def timed(folder: str) -> tuple[float, str]:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(command, env={**env, "BALANCE_CACHE": folder},
                              capture_output=True, text=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
                done.stdout)

    printed, computed, read = set(), [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as fresh:
            spent, stdout = timed(fresh)
        computed.append(spent)
        printed.add(stdout)
    with tempfile.TemporaryDirectory() as kept:
        timed(kept)  # fills the folder
        for _ in range(repeat):
            spent, stdout = timed(kept)
            read.append(spent)
            printed.add(stdout)
    for label, times in (("computed", computed), ("read", read)):
        out[f"cpu_s_{label}_runs"] = times
        out[f"cpu_s_{label}"] = statistics.median(times)
    out["same_output"] = len(printed) == 1
    out["raw_fights_per_cpu_s"] = strike_rank_raw()
    return out


def best(precision: float, workers: int, pairs: int | None) -> dict[str, Any]:
    names = STYLES
    if pairs is not None:  # a sample of pairs: the estimate scales by 361 / pairs
        take = max(2, int(np.ceil(np.sqrt(pairs))))
        names = STYLES[:take]
    wall0 = time.perf_counter()
    table = round_robin("strike-rank", names, play="best", precision=precision, seed=1,
                        method="simulate", workers=workers)
    wall = time.perf_counter() - wall0
    full = len(STYLES) ** 2
    return {"pairs": len(table), "wall_s": wall, "fights": int(table["fights"].sum()),
            "cpu_s_in_workers": float(table["cpu_s"].sum()) if "cpu_s" in table else None,
            "estimate_wall_s_all_361": wall * full / len(table),
            "raw_fights_per_cpu_s": strike_rank_raw()}


def sweep_spec(side: int, cell: int) -> dict[str, Any]:
    return {"ruleset": "crt", "description": f"batch bench: {side} x {side} crt, {cell} a cell",
            "a": [{"name": "challenger"}], "b": [{"preset": "veteran"}],
            "grid": {"combine": "product", "axes": [
                {"field": "a.0.combats", "values": list(range(0, 2 * side, 2))},
                {"field": "b.0.combats", "values": list(range(0, 2 * side, 2))}]},
            "run": {"fights": cell, "seed": 7}}


def sweep(side: int, cell: int, repeat: int) -> dict[str, Any]:
    rs = balance.get("crt")
    rules = rs.Rules()
    challenger = rs.Combatant(name="challenger", combats=side)  # mid-grid
    veteran = rs.presets["veteran"]
    total = side * side * cell
    duel_cpu, _, _ = cpu(lambda: engine.run(rs, rules, (challenger,), (veteran,),
                                            entropy=root_entropy(7), n=total), repeat)
    segments = [Segment(rules, (rs.Combatant(name="challenger", combats=x),),
                        (dataclasses.replace(veteran, combats=y),), cell, (x, y))
                for x in range(0, 2 * side, 2) for y in range(0, 2 * side, 2)]
    kernel_cpu, _, _ = cpu(lambda: engine.run_segments(rs, segments, entropy=7), repeat)
    one_by_one_cpu, _, _ = cpu(lambda: [engine.run_segments(rs, [s], entropy=7)
                                        for s in segments], 1)

    def whole(grid: int = side, fights: int = cell) -> Any:
        with tempfile.TemporaryDirectory() as tmp:
            return balance.sweep(sweep_spec(grid, fights), out=Path(tmp) / "run",
                                 executor="serial", progress=False, max_seconds=None).table

    whole(2, 10)  # untimed: a process's one-time imports (the runner, Parquet) are no sweep's
    sweep_cpu, sweep_wall, table = cpu(whole, repeat)
    assert int(table["n"].sum()) == total
    return {"cells": side * side, "fights": total, "duel_cpu_s": duel_cpu,
            "run_segments_cpu_s": kernel_cpu, "cell_by_cell_cpu_s": one_by_one_cpu,
            "sweep_cpu_s": sweep_cpu, "sweep_wall_s": sweep_wall,
            "sweep_over_duel": sweep_cpu / duel_cpu,
            "run_segments_over_duel": kernel_cpu / duel_cpu,
            "raw_fights_per_cpu_s": total / duel_cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="robin,sweep",
                        help="robin, best, matchups, sweep")
    parser.add_argument("-n", type=int, default=3000, help="robin: fights per ordered pair")
    parser.add_argument("--precision", type=float, default=0.01, help="best: half-width")
    parser.add_argument("--workers", type=int, default=2, help="best: worker processes")
    parser.add_argument("--best-pairs", type=int, default=None,
                        help="best: time about this many pairs and estimate all 361")
    parser.add_argument("--side", type=int, default=20, help="sweep: grid side")
    parser.add_argument("--cell", type=int, default=2000, help="sweep: fights a cell")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    out: dict[str, Any] = {}
    if "robin" in parts:
        out["robin"] = robin(args.n, args.repeat)
    if "best" in parts:
        out["best"] = best(args.precision, args.workers, args.best_pairs)
    if "matchups" in parts:
        out["matchups"] = matchups_command(max(args.repeat, 5))
    if "sweep" in parts:
        out["sweep"] = sweep(args.side, args.cell, args.repeat)
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print("shared machine: CPU seconds of this process, best of", args.repeat)
    if "robin" in out:
        r = out["robin"]
        print(f"robin  strike-rank {len(STYLES)} styles, {args.n:,} a pair, {r['pairs']} pairs: "
              f"{r['cpu_s']:.2f} CPU-s, {r['fights_per_cpu_s']:,.0f} fights/CPU-s "
              f"(kernel raw {r['raw_fights_per_cpu_s']:,.0f}; target < 10 CPU-s)")
    if "best" in out:
        b = out["best"]
        print(f"best   {b['pairs']} pairs at +/-{args.precision}: {b['wall_s']:.1f} s wall on "
              f"{args.workers} workers, {b['fights']:,} fights; all 361 pairs est. "
              f"{b['estimate_wall_s_all_361']:.0f} s (target < 120 s); "
              f"{b['fights'] / b['cpu_s_in_workers']:,.0f} fights/CPU-s in the workers "
              f"(kernel raw {b['raw_fights_per_cpu_s']:,.0f})")
    if "matchups" in out:
        m = out["matchups"]
        runs = "median of {}: {} computed, {} read back".format(
            m["repeat"], *(" ".join(f"{v:.2f}" for v in m[f"cpu_s_{k}_runs"])
                           for k in ("computed", "read")))
        print(f"matchups  the issue's command ({m['fights']:,} fights): "
              f"{m['cpu_s_computed']:.2f} CPU-s with the race tables computed, "
              f"{m['cpu_s_read']:.2f} CPU-s read back ({runs})"
              f"{'' if m['same_output'] else ' (OUTPUT DIFFERS)'} (kernel raw "
              f"{m['raw_fights_per_cpu_s']:,.0f} fights/CPU-s; baseline 30 CPU-s, target "
              "20x less)")
    if "sweep" in out:
        s = out["sweep"]
        print(f"sweep  crt {args.side}x{args.side} at {args.cell:,} a cell ({s['fights']:,} "
              f"fights): sweep {s['sweep_cpu_s']:.2f} CPU-s ({s['sweep_over_duel']:.2f}x the "
              f"duel), run_segments {s['run_segments_cpu_s']:.2f} CPU-s "
              f"({s['run_segments_over_duel']:.2f}x), cell by cell "
              f"{s['cell_by_cell_cpu_s']:.2f} CPU-s; one duel of {s['fights']:,} "
              f"{s['duel_cpu_s']:.2f} CPU-s (kernel raw {s['raw_fights_per_cpu_s']:,.0f} "
              f"fights/CPU-s; target within 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
