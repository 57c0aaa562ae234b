"""Benchmark of strike-rank's rows in the rules language (not a test): a round robin of the
nineteen style presets with three conditional rows, against the same round robin with the
same three rows flat (no condition), timed in one run; the ratio is the figure issue 21
asks to stay within 1.3.

Two sets of three rows are timed, each against its flat twin:

* ``issue``: the issue's conditions -- a long sword +1 to attack against Armour Rank 3 or
  more, a short sword +2 to parry against a shield, a spear -2 to parry when outnumbered
  (``foes_engaged >= 2``).  In duels all three read names fixed in the matchup, so they
  are folded into the kernel's tables at setup.
* ``per-fight``: conditions on per-fight state -- a long sword +1 to attack on the first
  round, a short sword -2 to parry while wounded, a spear +1 damage against a wounded foe.
  The kernel evaluates these over its batch of fights every round.

Each round robin runs in this process (``workers=1``), from cold caches (the matchup
setups, race models and wound tables are rebuilt), ``--repeat`` times; the best CPU time is
kept (steadier than wall time on a shared machine).  Usage::

    .venv/bin/python benchmarks/strike_rank_rows_bench.py
    .venv/bin/python benchmarks/strike_rank_rows_bench.py -n 2000 --repeat 1 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from balance.analysis.matchups import round_robin
from balance.rulesets.strike_rank import StrikeRank
from balance.rulesets.strike_rank import kernel as K
from balance.rulesets.strike_rank import policy as P
from balance.rulesets.strike_rank import race as RACE

STYLES = ["archer", "assassin", "berserker", "bladesman", "brawler", "feral", "footpad",
          "gladiator", "horseman", "hunter", "knight", "legionnaire", "martial_artist",
          "shieldman", "skirmisher", "spearman", "poleaxeman", "specialist", "swashbuckler"]

ROWS: dict[str, list[tuple[str, str, str]]] = {
    # (weapon row, the row's flat text, its condition)
    "issue": [("long sword", "+1 to attack", "target.armour_rank >= 3"),
              ("short sword", "+2 to parry", 'target.shield != "none"'),
              ("spear", "-2 to parry", "foes_engaged >= 2")],
    "per-fight": [("long sword", "+1 to attack", "round == 1"),
                  ("short sword", "-2 to parry", "self.wounded"),
                  ("spear", "+1 to damage", "target.wounds > 0")],
}


def rules(kind: str, conditional: bool) -> dict[str, Any]:
    weapons = {weapon: {"modifiers": [f"{flat} when {when}" if conditional else flat]}
               for weapon, flat, when in ROWS[kind]}
    return {"range_rounds": 0, "weapons": weapons}


def cold() -> None:
    """Forget every matchup's setup, so each round robin pays for its own."""
    for cached in (K._static, K._cached_wound_table, P.matchup_setup, RACE.race_scores):
        cached.cache_clear()


def timed(overrides: dict[str, Any], n: int, repeat: int) -> tuple[float, Any]:
    rs = StrikeRank()
    best, table = float("inf"), None
    for _ in range(repeat):
        cold()
        start = time.process_time()
        table = round_robin(rs, STYLES, rules=rs.rules(overrides), n=n, seed=1, workers=1)
        best = min(best, time.process_time() - start)
    return best, table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=5000, help="fights per ordered pair")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--kinds", default="issue,per-fight")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = {}
    for kind in args.kinds.split(","):
        flat, _ = timed(rules(kind, False), args.n, args.repeat)
        conditional, table = timed(rules(kind, True), args.n, args.repeat)
        out[kind] = {"flat_s": round(flat, 3), "conditional_s": round(conditional, 3),
                     "ratio": round(conditional / flat, 3), "pairs": len(table),
                     "fights_per_pair": args.n}
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
        return 0
    print(f"strike-rank round robin of {len(STYLES)} style presets, {args.n:,} fights a pair, "
          f"best CPU time of {args.repeat}:")
    for kind, row in out.items():
        print(f"  {kind:10s} flat rows {row['flat_s']:8.2f} s   conditional rows "
              f"{row['conditional_s']:8.2f} s   ratio {row['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
