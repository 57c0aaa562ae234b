"""Benchmark of the explorer (not a test): time from a control change to an updated answer.

Two figures, each the median (and the worst) over several changes of a control, measured
through the panel itself (``balance.explore(background=False)``: a change is answered
before ``set`` returns, with the widget updates included):

* ``exact``       -- the change of a stat in a matchup the exact solver covers (a crt plain
  duel, a zones one-zone duel): solve, one chunk of simulated fight lengths, the HTML.
  Target: under 0.3 s.
* ``monte carlo`` -- the change of a stat in a matchup it does not (every ruleset's Monte
  Carlo case), until A's win rate is known to +/- 1 point (95% interval half-width of every
  rate at most 0.01).  Target: under 1 s.

Each change is a value not seen before (no cache helps).

``--page`` measures instead the time from opening the page of ``balance explore crt`` in
headless Chromium to its first answer on screen (target: under 3 s on an idle machine),
each time once the server has a pre-heated kernel ready (its log says the kernel pool is
filled), as a designer finds it after starting the command.  Usage::

    .venv/bin/python benchmarks/explore_bench.py
    .venv/bin/python benchmarks/explore_bench.py --changes 9 --json
    .venv/bin/python benchmarks/explore_bench.py --page --opens 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import balance

TARGET_EXACT_S = 0.3
TARGET_MC_S = 1.0
TARGET_PAGE_S = 3.0
PRECISION = 0.01

# (ruleset, side A, side B, rules, the control moved, its values); the first value is set
# before timing starts
EXACT_CASES = [
    ("crt", "novice", "veteran", {"extraordinary": False}, "a.0.combats", range(0, 40, 3)),
    ("zones", "swordsman", "soldier", {"initial_gap": "contact"}, "a.0.might", range(0, 6)),
]
MC_CASES = [
    ("crt", "novice", "veteran", {}, "a.0.combats", range(0, 40, 3)),
    ("strike-rank", "skirmisher", "gladiator", {}, "a.0.skill", range(30, 60, 3)),
    ("zones", "swordsman", "soldier", {}, "a.0.might", range(0, 6)),
    ("pool", "duellist", "guard", {}, "a.0.combat", range(1, 6)),
]


def _time_changes(ex: Any, control: str, values: Any, changes: int, *,
                  refine: bool, refine_s: float = 30.0) -> tuple[list[float], list[Any]]:
    values = list(values)
    ex.set(control, values[0])
    times, answers = [], []
    for value in values[1:changes + 1]:
        start = time.perf_counter()
        ex.set(control, value)            # answered before set returns (background=False)
        if refine:
            ex.refine(refine_s)           # stops at ex.precision
        times.append(time.perf_counter() - start)
        answers.append(ex.answer)
    return times, answers


def run(changes: int = 5, refine_s: float = 30.0) -> list[dict[str, Any]]:
    """Each case's control changes, timed; a Monte Carlo answer refined to +/- 1 point
    within ``refine_s`` seconds (the box; it stops at the precision first)."""
    rows = []
    for ruleset, a, b, rules, control, values in EXACT_CASES:
        ex = balance.explore(ruleset, a, b, rules=rules, background=False)
        times, answers = _time_changes(ex, control, values, changes, refine=False)
        assert all(x.exact for x in answers), f"{ruleset}: not exact"
        rows.append({"kind": "exact", "ruleset": ruleset, "matchup": f"{a} v {b}",
                     "control": control, "changes": len(times),
                     "median_s": statistics.median(times), "max_s": max(times),
                     "target_s": TARGET_EXACT_S})
    for ruleset, a, b, rules, control, values in MC_CASES:
        # the first answer after one chunk, then refined to +/- 1 point
        ex = balance.explore(ruleset, a, b, rules=rules, background=False, budget=1e-3,
                             precision=PRECISION)
        ex.use_exact.value = False
        times, answers = _time_changes(ex, control, values, changes, refine=True,
                                       refine_s=refine_s)
        assert all(x.half_width <= PRECISION for x in answers), f"{ruleset}: not +/- 1 point"
        rows.append({"kind": "monte carlo", "ruleset": ruleset, "matchup": f"{a} v {b}",
                     "control": control, "changes": len(times),
                     "median_s": statistics.median(times), "max_s": max(times),
                     "fights": statistics.median(x.n for x in answers),
                     "half_width": max(x.half_width for x in answers),
                     "target_s": TARGET_MC_S})
    return rows


def _pool_filled(stderr: Any) -> None:
    """Read the server's log until it says a pre-heated kernel is ready."""
    for line in stderr:
        if "is filled with" in line:
            return
    raise RuntimeError("balance explore stopped before its kernel pool was filled")


def run_page(opens: int = 3) -> list[dict[str, Any]]:
    """Time from opening the explorer's page to its first answer, ``opens`` times."""
    import subprocess
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import explore_screenshots as shots

    exe = shots.chromium()
    if exe is None:
        raise SystemExit("explore_bench --page: needs chromium (make browser)")
    times = []
    with tempfile.TemporaryDirectory() as folder, shots.serving(
            "crt", "novice", "veteran", folder, stderr=subprocess.PIPE) as (url, process):
        for _ in range(opens):
            _pool_filled(process.stderr)
            with shots.browser_page(exe) as (page, errors):
                start = time.perf_counter()
                page.goto(url)
                page.locator(".balance-answer .a-win").first.wait_for(timeout=120_000)
                times.append(time.perf_counter() - start)
                assert errors == [], errors
    return [{"kind": "page", "ruleset": "crt", "matchup": "novice v veteran",
             "control": "open", "changes": len(times), "median_s": statistics.median(times),
             "max_s": max(times), "target_s": TARGET_PAGE_S}]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--changes", type=int, default=5)
    parser.add_argument("--page", action="store_true",
                        help="time opening the page to its first answer instead")
    parser.add_argument("--opens", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = run_page(args.opens) if args.page else run(args.changes)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("explorer: opening the page -> its first answer, median (worst) of "
          f"{args.opens} opens" if args.page else
          f"explorer: control change -> updated answer, median (worst) of {args.changes} "
          "changes, one core")
    for r in rows:
        ok = "ok" if r["max_s"] < r["target_s"] else "OVER TARGET"
        extra = (f", {r['fights']:,.0f} fights, +/- {100 * r['half_width']:.2f} points"
                 if r["kind"] == "monte carlo" else "")
        print(f"  {r['kind']:<11} {r['ruleset']:<12} {r['matchup']:<22} {r['control']:<12} "
              f"{1000 * r['median_s']:7.1f} ms ({1000 * r['max_s']:.1f} ms){extra}; target "
              f"< {r['target_s']:g} s: {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
