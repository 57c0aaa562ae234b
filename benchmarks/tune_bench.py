"""Benchmark of ``balance tune`` (not a test): wall time of exact and Monte Carlo tunings.

Each case is run ``--repeat`` times in this process (the best wall and CPU times are kept:
on a shared machine the CPU time is the steadier figure) and reported with the values tried, the fights simulated or the solves, and the
answer, so a slower run can be told from a harder question.  Usage::

    .venv/bin/python benchmarks/tune_bench.py              # every case, best of 2
    .venv/bin/python benchmarks/tune_bench.py --case mc-integer --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from balance.analysis.tune import handicaps, tune

PLAIN = {"extraordinary": False}
CASES: dict[str, tuple[str, Any]] = {
    "exact-integer": ("crt veteran v novice, b.0.combats, exact (plain duel)",
                      lambda: tune("crt", "veteran", "novice", knob="b.0.combats", rules=PLAIN)),
    "exact-real": ("crt duelist diverting v agility 9, a.0.divert_p, exact (Brent)",
                   lambda: tune("crt", "duelist,divert=random", "duelist,agility=9",
                                knob="a.0.divert_p", rules=PLAIN)),
    "mc-integer": ("crt veteran v novice, b.0.combats, simulated (Extraordinary tables on), "
                   "precision 0.25",
                   lambda: tune("crt", "veteran", "novice", knob="b.0.combats", seed=1)),
    "mc-integer-fine": ("the same, precision 0.005",
                        lambda: tune("crt", "veteran", "novice", knob="b.0.combats", seed=1,
                                     precision=0.005)),
    "mc-real": ("crt duelist diverting v agility 9, a.0.divert_p, simulated, precision 0.01",
                lambda: tune("crt", "duelist,divert=random", "duelist,agility=9",
                             knob="a.0.divert_p", rules=PLAIN, method="simulate", seed=2)),
    "mc-real-fine": ("the same, precision 0.002",
                     lambda: tune("crt", "duelist,divert=random", "duelist,agility=9",
                                  knob="a.0.divert_p", rules=PLAIN, method="simulate", seed=2,
                                  precision=0.002)),
    "rr-exact": ("crt handicaps on combats, novice/expert/veteran/master, exact",
                 lambda: handicaps("crt", ["novice", "expert", "veteran", "master"],
                                   knob="combats", rules=PLAIN)),
    "rr-mc": ("the same simulated with the Extraordinary tables on, 20 000 fights a pair",
              lambda: handicaps("crt", ["novice", "expert", "veteran", "master"],
                                knob="combats")),
}


def measure(name: str, repeat: int) -> dict[str, Any]:
    description, run = CASES[name]
    best, cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = run()
        best = min(best, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    assert result is not None
    values = len(getattr(result, "points", ())) or None
    return {"case": name, "description": description, "seconds": best, "cpu_seconds": cpu,
            "method": result.method, "values_tried": values, "fights": result.fights,
            "solves": result.solves,
            "fights_per_s": result.fights / best if result.fights else None,
            "answer": result.sentence()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", action="append", choices=list(CASES), default=None)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    tune("crt", "veteran", "novice", knob="b.0.combats", rules=PLAIN)  # imports, caches
    rows = [measure(name, args.repeat) for name in args.case or CASES]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'case':<16} {'wall s':>7} {'CPU s':>6} {'values':>6} {'fights':>12} {'solves':>6}"
          "  answer")
    for r in rows:
        print(f"{r['case']:<16} {r['seconds']:7.2f} {r['cpu_seconds']:6.2f} "
              f"{r['values_tried'] or '':>6} "
              f"{r['fights']:>12,} {r['solves']:>6}  {r['answer']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
