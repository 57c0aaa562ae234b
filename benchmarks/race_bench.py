"""Benchmark of strike-rank's race model, the setup of ``attack_policy="best"`` (not a test).

* ``setup`` -- CPU seconds (``time.process_time``) to make the best-type tables of every
  ordered pair of the 19 style presets, both seats and the mirror matches (19 x 19 = 361
  matchups, as a 19-style round robin asks for them), from empty caches; the mean per
  matchup; the race models built and the races (one pair of attack types) played.
* ``command`` -- the CPU seconds (user + system, ``getrusage`` of the child) of
  ``balance matchups strike-rank --entrants knight,gladiator,skirmisher,archer,brawler,
  legionnaire -n 3000 --seed 1``, run by the same Python.

It runs on any checkout that has ``balance.rulesets.strike_rank.policy.matchup_setup``
(the figures before the race model's caches were measured by running this file with that
checkout's Python).  Usage::

    .venv/bin/python benchmarks/race_bench.py
    .venv/bin/python benchmarks/race_bench.py --parts setup --styles 6 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time

COMMAND = ["matchups", "strike-rank", "--entrants",
           "knight,gladiator,skirmisher,archer,brawler,legionnaire", "-n", "3000", "--seed",
           "1", "--json"]


def setup(styles: int) -> dict[str, float | int]:
    from balance.rulesets.strike_rank import race
    from balance.rulesets.strike_rank.policy import matchup_setup
    from balance.rulesets.strike_rank.presets import STYLE_PRESETS
    from balance.rulesets.strike_rank.rules import Rules

    names = sorted(STYLE_PRESETS)[:styles]
    rules = Rules()
    matchup_setup.cache_clear()
    if hasattr(race, "clear_caches"):
        race.clear_caches()
    else:  # a checkout from before the caches
        race.race_scores.cache_clear()
    cpu = time.process_time()
    for a in names:
        for b in names:
            matchup_setup(rules, (STYLE_PRESETS[a],), (STYLE_PRESETS[b],))
    cpu = time.process_time() - cpu
    counts = getattr(race, "_COUNTS", {})
    return {"matchups": len(names) ** 2, "cpu_s": round(cpu, 3),
            "per_matchup_ms": round(1000 * cpu / len(names) ** 2, 2),
            "models": counts.get("models", -1), "races": counts.get("races", -1)}


def command() -> dict[str, float | str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="balance-race-bench-") as tmp:
        subprocess.run([sys.executable, "-m", "balance", *COMMAND], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"command": "balance " + " ".join(COMMAND), "cpu_s": round(cpu, 2),
            "wall_s": round(wall, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="setup,command", help="comma-separated")
    parser.add_argument("--styles", type=int, default=19, help="style presets (default 19)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out: dict[str, dict[str, float | int | str]] = {}
    parts = args.parts.split(",")
    if "setup" in parts:
        out["setup"] = setup(args.styles)
    if "command" in parts:
        out["command"] = command()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if "setup" in out:
        s = out["setup"]
        print(f"race-model setup, {s['matchups']} matchups (both seats, mirrors): "
              f"{s['cpu_s']} CPU-s, {s['per_matchup_ms']} ms a matchup "
              f"({s['models']} models, {s['races']} races)")
    if "command" in out:
        c = out["command"]
        print(f"{c['command']}: {c['cpu_s']} CPU-s ({c['wall_s']} s wall)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
