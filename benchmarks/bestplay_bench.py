"""Benchmark of best play (not a test): wall time and profiles evaluated.

* ``round robin`` -- a best-play round robin of the strike-rank style presets, both seats
  and the mirror matches (19 x 19 = 361 ordered pairs with every style), melee only
  (``range_rounds = 0``, as experiments/strike-rank-style-duels.toml), each pair's value to
  within +/- PRECISION (95% bootstrap), pairs solved in worker processes.  Target: under
  10 minutes on a 2-core machine.  Besides the wall time it prints the CPU seconds the
  pairs took (``pairs_cpu_s``) and that divided by the workers (``idle_estimate_s``): the
  wall time on an otherwise idle machine, which a shared machine's wall time is not.
* ``exact`` -- the end-to-end call ``balance.exact(..., play="best")`` on a crt plain duel
  and a zones contact duel (median of REPEATS; the rulesets' own solvers are timed by
  ``balance bench``).  Target: under 1 s.

Usage::

    .venv/bin/python benchmarks/bestplay_bench.py                  # everything
    .venv/bin/python benchmarks/bestplay_bench.py --styles 6 --parts round-robin
    .venv/bin/python benchmarks/bestplay_bench.py --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import balance
from balance import analysis
from balance.errors import SpecError

EXACT_CASES = (
    ("crt plain duel", "crt", "novice", "expert", {"extraordinary": False}),
    ("crt plain duel, 5-round cap", "crt", "novice", "expert",
     {"extraordinary": False, "max_rounds": 5}),
    ("zones contact duel", "zones", "soldier", "swordsman", {"initial_gap": "contact"}),
)


def round_robin(styles: int, precision: float, workers: int, seed: int) -> dict:
    rs = balance.get("strike-rank")
    names = sorted(rs.presets)[:styles]
    start, cpu = time.perf_counter(), time.process_time()
    table = analysis.round_robin("strike-rank", names, rules={"range_rounds": 0},
                                 play="best", precision=precision, seed=seed, workers=workers)
    elapsed = time.perf_counter() - start
    half = (table["value_high"] - table["value_low"]) / 2
    profiles = table["profiles_a"] + table["profiles_b"]
    return {
        "case": "round robin", "styles": len(names), "pairs": len(table),
        "precision": precision, "workers": workers, "elapsed_s": round(elapsed, 1),
        "parent_cpu_s": round(time.process_time() - cpu, 1),
        "pairs_cpu_s": round(float(table["cpu_s"].sum()), 1),
        "idle_estimate_s": round(float(table["cpu_s"].sum()) / workers, 1),
        "profiles_evaluated": int(profiles.sum()),
        "profiles_per_pair": round(float(profiles.mean()), 1),
        "profiles_per_pair_max": int(profiles.max()),
        "fights": int(table["fights"].sum()),
        "pairs_within_precision": int((half <= precision + 1e-12).sum()),
        "widest_half_width": round(float(half.max()), 4),
        "mixed_equilibria": int(table["policy_a"].str.contains(" x \\(").sum()
                                + table["policy_b"].str.contains(" x \\(").sum()),
        "pairs_best_play_moves": int(((table["default_value"] < table["value_low"])
                                      | (table["default_value"] > table["value_high"])).sum()),
    }


def exact_cases(repeats: int) -> list[dict]:
    rows = []
    for name, ruleset, a, b, rules in EXACT_CASES:
        times = []
        try:
            for _ in range(repeats):
                start = time.perf_counter()
                answer = balance.exact(ruleset, a, b, rules=rules, play="best")
                times.append(time.perf_counter() - start)
        except SpecError as exc:
            rows.append({"case": f"exact: {name}", "unavailable": exc.reason})
            continue
        rows.append({"case": f"exact: {name}", "median_s": round(statistics.median(times), 4),
                     "repeats": repeats, "method": answer.method,
                     "value": round(answer.value, 6),
                     "profiles_evaluated": answer.profiles_a + answer.profiles_b})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--styles", type=int, default=19)
    parser.add_argument("--precision", type=float, default=0.01)
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--parts", default="exact,round-robin")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    parts = args.parts.split(",")
    rows = exact_cases(args.repeats) if "exact" in parts else []
    if "round-robin" in parts:
        rows.append(round_robin(args.styles, args.precision, args.workers, args.seed))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(", ".join(f"{k}: {v}" for k, v in row.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
