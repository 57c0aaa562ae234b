"""benchmarks/explore_bench.py still runs (it measures the README's explorer rows; a time
box it passed was once refused and nothing noticed): one change per case, its rows' shape.
No speed is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "explore_bench.py"


def test_the_explorer_benchmark_runs_every_case():
    spec = importlib.util.spec_from_file_location("explore_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from balance.budget import MAX_SECONDS

    rows = bench.run(changes=1, refine_s=MAX_SECONDS)  # refinement ends at its precision,
    # never at a time box a busy machine could reach first
    assert [(r["kind"], r["ruleset"]) for r in rows] == (
        [("exact", c[0]) for c in bench.EXACT_CASES]
        + [("monte carlo", c[0]) for c in bench.MC_CASES])
    assert all(r["changes"] == 1 and r["median_s"] > 0 for r in rows)
    assert all(r["half_width"] <= bench.PRECISION for r in rows if r["kind"] == "monte carlo")
