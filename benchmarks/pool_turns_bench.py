"""Benchmark of pool's exact game with turns that are not attacks (issue 24; not a test).

For each exact bench duel of ``balance bench --ruleset pool`` (``exact duel p6 wp20``, with
and without the 1d6 randomiser) it solves, from empty caches, timing CPU seconds
(``time.process_time``):

* ``attack only`` -- the fighters' own turns (both ``turn_policy = "attack"`` without the
  margin of failure: every turn an attack, today's solve);
* ``turns chosen`` -- exact best play's game (``choose_turns``): attack, full defence and
  withdrawal open to each fighter in every state, so the core carries both guard bits;

and prints the ratio (issue 24 asks for at most 5x) with the states and the turns taken.
The best of ``--repeat`` runs of each is kept (the machine is shared).  Usage::

    .venv/bin/python benchmarks/pool_turns_bench.py
    .venv/bin/python benchmarks/pool_turns_bench.py --repeat 3 --json
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any


def solve_once(rules: Any, side_a: Any, side_b: Any, choose: bool) -> tuple[float, Any]:
    from balance.rulesets.pool import exact

    exact.clear_cache()
    start = time.process_time()
    answer = exact.solve_with(rules, side_a, side_b, choose_turns=choose)
    return time.process_time() - start, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=2, help="runs of each solve (best kept)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    import balance

    pool = balance.get("pool")
    rows = []
    for name, _, rules, side_a, side_b in pool._exact_bench_specs():
        row: dict[str, Any] = {"case": name}
        for label, choose in (("attack only", False), ("turns chosen", True)):
            runs = [solve_once(rules, side_a, side_b, choose) for _ in range(args.repeat)]
            seconds = min(s for s, _ in runs)
            answer = runs[0][1]
            row[label] = {"cpu_s": round(seconds, 3), "states": answer.details["states"],
                          "value": answer.details["game_value"],
                          "turns": answer.details["turns"]}
        row["ratio"] = round(row["turns chosen"]["cpu_s"] / row["attack only"]["cpu_s"], 2)
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for row in rows:
        print(f"{row['case']}: turns chosen / attack only = {row['ratio']:.2f}x (issue 24: <= 5x)")
        for label in ("attack only", "turns chosen"):
            r = row[label]
            print(f"  {label:13s} {r['cpu_s']:7.2f} CPU s, {r['states']:,} states, "
                  f"value {r['value']:.6f}; turns {r['turns']}")


if __name__ == "__main__":
    main()
