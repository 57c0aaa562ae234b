"""Strike-rank that refuses to compute the race model in a sweep's worker process.

Specs name it by import path, ``ruleset = "tests.strike_rank.worker_check:CHECKED"``.  Its
kernel is strike-rank's; it raises if the kernel call played a race of the ``best``
attack-type model (:data:`balance.rulesets.strike_rank.race._COUNTS`).  A task that
brought its cell's tables from the parent (``Ruleset.adopt``) plays none, so a sweep on
worker processes completes; a worker that computes the tables itself fails its task.
"""

from __future__ import annotations

import numpy as np

from balance.outcomes import Outcomes
from balance.rulesets.base import Side
from balance.rulesets.strike_rank import Rules, StrikeRank, race


class WorkerCheck(StrikeRank):
    name = "strike-rank-worker-check"

    def simulate(self, rules: Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        before = race._COUNTS["races"]
        out = super().simulate(rules, side_a, side_b, n=n, rng=rng)
        if race._COUNTS["races"] != before:
            raise RuntimeError(f"the kernel played {race._COUNTS['races'] - before} race(s) "
                               "of the race model")
        return out


CHECKED = WorkerCheck()
