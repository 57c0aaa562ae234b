"""The vectorised kernel of a ruleset file: whole batches of fights per NumPy operation.

The round is :class:`~.engine.Engine`'s, its dice drawn by a :class:`~.batch.Sampler`;
after every round the finished fights are squeezed out of the batch (as
:func:`balance.rounds.play_rounds` does for the built-in kernels), so a round costs what
is still going on.
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
    for round_no in range(1, max_rounds + 1):
        if batch.m == 0:
            break
        engine.play_round(batch, sampler, round_no)
        done = ~batch.fight["live"]
        if done.any():
            ids = batch.fight["id"][done]
            winner[ids] = batch.fight["winner"][done]
            cause[ids] = batch.fight["cause"][done]
            rounds[ids] = round_no
            batch.take(np.flatnonzero(~done))
    return Outcomes(winner, rounds, cause, causes)
