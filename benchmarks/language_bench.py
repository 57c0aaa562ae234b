"""Benchmark of the rules language (not a test): evaluate time per million fights of a
compiled expression against the same computation written by hand in NumPy.

Each case evaluates over one batch of ``--fights`` fights with per-fight arrays (int8 state,
as kernels keep it), ``--repeat`` times; the best CPU time is kept (steadier than wall time
on a shared machine) and reported per million fights, with the ratio compiled / hand-written.
Both sides of a case compute the same values, checked before timing.  Usage::

    .venv/bin/python benchmarks/language_bench.py
    .venv/bin/python benchmarks/language_bench.py --fights 200000 --repeat 20 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from balance.language import Name, Names, Vocabulary, compile_amount, compile_condition, total

NAMES = Names({
    "target.armour_rank": Name(int, range=(0, 6)),
    "target.shield": Name(str, choices=("none", "buckler", "target", "kite")),
    "self.wounds": Name(int, range=(0, 10)),
    "round": Name(int, range=(1, 100)),
    "foes_engaged": Name(int, range=(0, 6)),
})
VOCABULARY = Vocabulary(NAMES, targets=("attack", "parry", "damage"))


def environment(n: int, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"target.armour_rank": rng.integers(0, 7, n, dtype=np.int8),
            "target.shield": rng.integers(0, 4, n, dtype=np.int8),
            "self.wounds": rng.integers(0, 11, n, dtype=np.int8),
            "round": rng.integers(1, 20, n, dtype=np.int8),
            "foes_engaged": rng.integers(0, 4, n, dtype=np.int8)}


def _cases() -> dict[str, tuple[str, Callable[..., Any], Callable[..., Any]]]:
    """name -> (description, compiled(env, rng), hand-written(env, rng))."""
    heavy = compile_condition("target.armour_rank >= 3", NAMES)
    typical = compile_condition("target.armour_rank >= 3 and target.shield != 'none' "
                                "and round == 1", NAMES)
    amount = compile_amount("2d6 + 1 + self.wounds // 2", NAMES)
    rows = VOCABULARY.modifiers([
        {"to": "attack", "amount": 1, "when": "target.armour_rank >= 3"},
        {"to": "attack", "amount": -1, "when": "foes_engaged >= 2"},
        {"to": "attack", "amount": 2, "when": "round == 1 and target.shield == 'none'"},
    ])

    def modifiers_by_hand(env: dict[str, np.ndarray], rng: Any) -> np.ndarray:
        out = np.zeros(len(env["round"]), dtype=np.int64)
        out += env["target.armour_rank"] >= 3
        out -= env["foes_engaged"] >= 2
        out += ((env["round"] == 1) & (env["target.shield"] == 0)) * np.int8(2)
        return out

    return {
        "condition": ("target.armour_rank >= 3",
                      lambda env, rng: heavy.evaluate(env),
                      lambda env, rng: env["target.armour_rank"] >= 3),
        "typical": ("target.armour_rank >= 3 and target.shield != 'none' and round == 1",
                    lambda env, rng: typical.evaluate(env),
                    lambda env, rng: ((env["target.armour_rank"] >= 3)
                                      & (env["target.shield"] != 0) & (env["round"] == 1))),
        "dice": ("2d6 + 1 + self.wounds // 2 (the same draws on both sides)",
                 lambda env, rng: amount.evaluate(env, rng),
                 lambda env, rng: (_two_d6(len(env["round"]), rng) + 1
                                   + env["self.wounds"].astype(np.int64) // 2)),
        "modifiers": ("three conditional attack modifiers summed (total)",
                      lambda env, rng: total(rows, "attack", env).value,
                      modifiers_by_hand),
    }


def _two_d6(n: int, rng: np.random.Generator) -> np.ndarray:
    from balance.dice import nd

    return nd(2, 6, n, rng=rng).astype(np.int64)


def _best_cpu(run: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def measure(name: str, fights: int, repeat: int) -> dict[str, Any]:
    description, compiled, by_hand = _cases()[name]
    env = environment(fights)
    same = np.array_equal(compiled(env, np.random.default_rng(7)),
                          by_hand(env, np.random.default_rng(7)))
    if not same:
        raise AssertionError(f"{name}: the compiled and hand-written values differ")
    per_million = 1e6 / fights
    ms_compiled = 1e3 * per_million * _best_cpu(
        lambda: compiled(env, np.random.default_rng(3)), repeat)
    ms_by_hand = 1e3 * per_million * _best_cpu(
        lambda: by_hand(env, np.random.default_rng(3)), repeat)
    return {"case": name, "description": description, "fights": fights,
            "compiled_ms_per_million": ms_compiled, "numpy_ms_per_million": ms_by_hand,
            "ratio": ms_compiled / ms_by_hand if ms_by_hand else float("nan")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(_cases()),
                        help="a case to run (repeatable; default: all)")
    parser.add_argument("--fights", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    args = parser.parse_args(argv)
    rows = [measure(name, args.fights, args.repeat) for name in args.case or list(_cases())]
    if args.json:
        json.dump(rows, sys.stdout, indent=2)
        print()
        return 0
    print(f"{'case':<10} {'compiled ms/1M':>15} {'numpy ms/1M':>12} {'ratio':>6}  what")
    for row in rows:
        print(f"{row['case']:<10} {row['compiled_ms_per_million']:>15.2f} "
              f"{row['numpy_ms_per_million']:>12.2f} {row['ratio']:>6.2f}  {row['description']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
