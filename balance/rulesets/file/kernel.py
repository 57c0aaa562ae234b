"""The vectorised kernel of a ruleset file: whole batches of fights per NumPy operation.

The round is :class:`~.engine.Engine`'s, its dice drawn by a :class:`~.batch.Sampler`;
finished fights are written out after the round they end in, and squeezed out of the
batch (as :func:`balance.rounds.play_rounds` does for the built-in kernels) once they are
a quarter of it, so a round costs about what is still going on without a copy of every
array each round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...outcomes import Outcomes, Winner
from .batch import Batch, Sampler
from .engine import Engine, fixed_values

__all__ = ["simulate"]


def simulate(engine: Engine, rules: Any, a: Any, b: Any, *, n: int,
             rng: np.random.Generator) -> Outcomes:
    """``n`` fights of ``a`` against ``b`` under ``rules``: winner, rounds and end cause of
    each, in order."""
    system = engine.system
    causes = system.causes
    max_rounds = int(rules.max_rounds)
    winner = np.full(n, Winner.DRAW, np.int8)
    rounds = np.full(n, max_rounds, np.int32)
    cause = np.full(n, causes.index("max_rounds"), np.int8)
    fixed, rule_values = fixed_values(system, rules, a, b)
    batch = Batch(n, fixed, rule_values, system.names)
    sampler = Sampler(rng)
    batch.fight["id"] = np.arange(n)
    engine.start(batch, sampler)
    recorded = np.zeros(n, bool)  # finished fights written out, not yet squeezed out
    finished = 0
    for round_no in range(1, max_rounds + 1):
        if batch.m == 0:
            break
        engine.play_round(batch, sampler, round_no)
        live = batch.fight["live"]
        done = np.flatnonzero(~(live | recorded))
        if len(done):
            ids = batch.fight["id"][done]
            winner[ids] = batch.fight["winner"][done]
            cause[ids] = batch.fight["cause"][done]
            rounds[ids] = round_no
            recorded[done] = True
            finished += len(done)
            if 4 * finished >= batch.m:  # a quarter finished: squeeze
                keep = np.flatnonzero(live)
                batch.take(keep)
                recorded = np.zeros(len(keep), bool)
                finished = 0
    return Outcomes(winner, rounds, cause, causes)
