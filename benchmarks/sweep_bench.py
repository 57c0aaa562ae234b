"""Benchmark of the experiment runner (not a test): wall time and overhead.

A SIDE x SIDE ``crt`` grid (side A's agility against side B's agility, both from 3 up) with
FIGHTS fights a cell is run

* ``direct``    -- by calling ``balance.engine.run`` cell after cell in this process, the
  baseline a hand-written loop would get;
* ``serial``    -- by ``balance.sweep(executor="serial")``: the same work through the runner
  (grid, chunk tasks, atomic cache writes, summaries, Parquet/CSV/meta), so the difference
  from ``direct`` is the runner's overhead;
* ``processes`` -- by ``balance.sweep(executor="processes")`` on every core: the wall time a
  designer waits.

The tables of every mode are checked to hold the same counts.  Usage::

    .venv/bin/python benchmarks/sweep_bench.py                      # 20 x 20, 100 000 a cell
    .venv/bin/python benchmarks/sweep_bench.py --side 5 --modes direct,serial
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import balance
from balance import engine
from balance.experiments import expand, load_spec


def spec(side: int, fights: int, seed: int) -> dict:
    return {
        "ruleset": "crt",
        "description": f"benchmark: {side} x {side} agility grid, {fights:,} fights a cell",
        "a": [{"name": "a"}], "b": [{"name": "b"}],
        "grid": {"axes": [{"field": "a.0.agility", "values": {"start": 3, "stop": 2 + side}},
                          {"field": "b.0.agility", "values": {"start": 3, "stop": 2 + side}}]},
        "run": {"fights": fights, "seed": seed},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", type=int, default=20, help="grid side (default 20)")
    parser.add_argument("--fights", type=int, default=100_000, help="fights a cell")
    parser.add_argument("--modes", default="direct,serial,processes",
                        help="comma-separated; repeat a mode to see the noise (the fastest "
                             "direct run is the baseline)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    modes = args.modes.split(",")
    experiment = load_spec(spec(args.side, args.fights, args.seed))
    cells = expand(experiment)
    rs = balance.get("crt")
    fights = len(cells) * args.fights
    results: dict[str, dict] = {}
    counts: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix="balance-bench-") as tmp:
        for i, mode in enumerate(modes):
            label = mode if modes.count(mode) == 1 else f"{mode}#{modes[:i].count(mode) + 1}"
            print(f"{label}: {len(cells)} cells x {args.fights:,} fights ...", file=sys.stderr,
                  flush=True)
            start, cpu = time.perf_counter(), time.process_time()
            if mode == "direct":
                tallies = [engine.run(rs, c.rules, c.side_a, c.side_b, entropy=args.seed,
                                      n=args.fights, key=(c.key,),
                                      chunk_size=experiment.chunk_size) for c in cells]
                elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
                counts[label] = [list(t.wins) for t in tallies]
                workers = 1
            else:
                table, path = balance.sweep(experiment, out=Path(tmp) / label, executor=mode,
                                            workers=args.workers, progress=False)
                elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
                counts[label] = table[["draws", "a_wins", "b_wins"]].values.tolist()
                meta = json.loads((path / "meta.json").read_text())
                workers = meta["workers"]
                engine_cpu = meta["timings"]["worker_cpu_s"]
            results[label] = {"elapsed_s": elapsed, "cpu_s": cpu,
                              "fights_per_s": fights / elapsed, "workers": workers}
            if mode != "direct":
                # CPU seconds spent inside the engine (run_chunk), summed over the workers:
                # whatever else this process spent is the runner's own cost.
                results[label]["engine_cpu_s"] = engine_cpu
                if workers == 1:
                    results[label]["runner_cpu_share"] = (cpu - engine_cpu) / engine_cpu
                else:
                    results[label]["runner_cpu_share"] = cpu / engine_cpu
    reference = next(iter(counts.values()))
    assert all(c == reference for c in counts.values()), "modes disagree on the counts"
    direct = [r for label, r in results.items() if label.startswith("direct")]
    if direct:
        wall = min(r["elapsed_s"] for r in direct)
        cpu = min(r["cpu_s"] for r in direct)
        for r in results.values():
            # overhead per unit of work: a W-worker run should take wall / W
            r["wall_overhead"] = r["elapsed_s"] * r["workers"] / wall - 1
            if r["workers"] == 1:  # all the work is in this process: compare CPU time
                r["cpu_overhead"] = r["cpu_s"] / cpu - 1
            else:  # this process only schedules, caches and tabulates
                r["client_cpu_share"] = r["cpu_s"] / cpu
    report = {"grid": f"{args.side} x {args.side}", "cells": len(cells),
              "fights_per_cell": args.fights, "fights": fights, "cpus": os.cpu_count(),
              "load_average": os.getloadavg(), "versions": balance.versions(), "modes": results}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"crt {report['grid']} grid, {args.fights:,} fights a cell, {fights:,} fights; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    print(f"{'mode':<12} {'workers':>7} {'wall s':>8} {'fights/s':>12} {'wall ovh':>9} "
          f"{'cpu s':>7} {'cpu ovh':>8} {'runner':>8}")
    for label, r in results.items():
        wall_ovh = f"{100 * r['wall_overhead']:+.1f}%" if "wall_overhead" in r else ""
        cpu_ovh = (f"{100 * r['cpu_overhead']:+.1f}%" if "cpu_overhead" in r else
                   f"({100 * r['client_cpu_share']:.1f}%)" if "client_cpu_share" in r else "")
        runner = f"{100 * r['runner_cpu_share']:.1f}%" if "runner_cpu_share" in r else ""
        print(f"{label:<12} {r['workers']:>7} {r['elapsed_s']:>8.1f} {r['fights_per_s']:>12,.0f} "
              f"{wall_ovh:>9} {r['cpu_s']:>7.1f} {cpu_ovh:>8} {runner:>8}")
    print("wall ovh: wall time x workers against the fastest direct run; cpu ovh: this "
          "process's CPU time against it\n(for several workers, in brackets: the client's CPU "
          "time as a share of the direct work);\nrunner: the runner's own CPU time (outside "
          "the engine's run_chunk) as a share of the engine's CPU time in the same run")
    print("identical counts in every mode")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
