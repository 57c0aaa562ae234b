"""The vectorised kernel of a ruleset file: whole batches of fights per NumPy operation.

Two ways to play a round, the same rules:

* where the round reads no state value (:func:`.table.why_not`) and its dice fall in at
  most :data:`.table.MAX_CODES` ways, a matchup's round is tabulated once
  (:mod:`.table`) and a round of the kernel is one 16-bit word a fight, a lookup and an
  addition per state value (:func:`_tabulated`);
* otherwise the round is :class:`~.engine.Engine`'s, its dice drawn by a
  :class:`~.batch.Sampler` (:func:`_played`).

Either way finished fights are written out after the round they end in, and squeezed out
of the batch (as :func:`balance.rounds.play_rounds` does for the built-in kernels) once
they are a quarter of it, so a round costs about what is still going on without a copy of
every array each round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...dice import codes_from_bits
from ...outcomes import Outcomes, Winner
from .batch import VIEW_A, VIEW_BOTH, Batch, Sampler
from .engine import Engine, fixed_values
from .table import RoundTable, round_table

__all__ = ["simulate"]


def simulate(engine: Engine, rules: Any, a: Any, b: Any, *, n: int,
             rng: np.random.Generator, tabulate: bool = True) -> Outcomes:
    """``n`` fights of ``a`` against ``b`` under ``rules``: winner, rounds and end cause of
    each, in order (``tabulate=False``: the engine's round even where a table would do)."""
    fixed, rule_values = fixed_values(engine.system, rules, a, b)
    max_rounds = int(rules.max_rounds)
    table = round_table(engine, fixed, rule_values, max_rounds) if tabulate else None
    batch = Batch(n, fixed, rule_values, engine.system.names)
    batch.fight["id"] = np.arange(n)
    sampler = Sampler(rng)
    engine.start(batch, sampler)
    if table is not None:
        return _tabulated(engine, table, batch, max_rounds, rng)
    return _played(engine, batch, sampler, max_rounds)


class _Record:
    """Each fight's winner, rounds and end cause, written as fights finish."""

    def __init__(self, engine: Engine, n: int, max_rounds: int) -> None:
        self.causes = engine.system.causes
        self.winner = np.full(n, Winner.DRAW, np.int8)
        self.rounds = np.full(n, max_rounds, np.int32)
        self.cause = np.full(n, self.causes.index("max_rounds"), np.int8)

    def outcomes(self) -> Outcomes:
        return Outcomes(self.winner, self.rounds, self.cause, self.causes)


def _played(engine: Engine, batch: Batch, sampler: Sampler, max_rounds: int) -> Outcomes:
    """The engine's rounds, played over the batch."""
    record = _Record(engine, batch.m, max_rounds)
    recorded = np.zeros(batch.m, bool)  # finished fights written out, not yet squeezed out
    finished = 0
    for round_no in range(1, max_rounds + 1):
        if batch.m == 0:
            break
        engine.play_round(batch, sampler, round_no)
        live = batch.fight["live"]
        done = np.flatnonzero(~(live | recorded))
        if len(done):
            ids = batch.fight["id"][done]
            record.winner[ids] = batch.fight["winner"][done]
            record.cause[ids] = batch.fight["cause"][done]
            record.rounds[ids] = round_no
            recorded[done] = True
            finished += len(done)
            if 4 * finished >= batch.m:  # a quarter finished: squeeze
                keep = np.flatnonzero(live)
                batch.take(keep)
                recorded = np.zeros(len(keep), bool)
                finished = 0
    return record.outcomes()


def _tabulated(engine: Engine, table: RoundTable, batch: Batch, max_rounds: int,
               rng: np.random.Generator) -> Outcomes:
    """The rounds as table lookups: a word a fight, then each step's gains and ``out``."""
    record = _Record(engine, batch.m, max_rounds)
    for name in table.names:
        batch.state[name] = batch.state[name].astype(table.dtype)
    bits = rng.bit_generator
    finished = 0  # finished fights still in the batch
    for round_no in range(1, max_rounds + 1):
        if batch.m == 0:
            break
        batch.scalars["round"] = round_no
        code = codes_from_bits(table.codes, batch.m, bits)
        for step in table.steps:
            for name, gains, lowers, raises in step.gains:
                grid = batch.state[name]
                grid += np.take(gains, code, axis=1)
                bounds = engine.ranges.get(name)
                if bounds is not None and lowers:
                    np.maximum(grid, bounds[0], out=grid)
                if bounds is not None and raises:
                    np.minimum(grid, bounds[1], out=grid)
            finished += _check_out(engine, batch, record, round_no)
        finished += _check_draw(engine, batch, record, round_no)
        if finished and 4 * finished >= batch.m:  # a quarter finished: squeeze
            batch.take(np.flatnonzero(batch.fight["live"]))
            finished = 0
    return record.outcomes()


def _check_out(engine: Engine, batch: Batch, record: _Record, round_no: int) -> int:
    """``out`` read for every fight still going: the ones it ends written out and no longer
    live; how many."""
    end = engine.system.end.out
    out = end.evaluate(batch.env(end, VIEW_BOTH), None, n=2 * batch.m).reshape(2, batch.m)
    live = batch.fight["live"]
    done = np.flatnonzero((out[0] | out[1]) & live)
    if len(done):
        out_a, out_b = out[0, done], out[1, done]
        ids = batch.fight["id"][done]
        record.winner[ids] = np.where(out_a, np.where(out_b, Winner.DRAW, Winner.B), Winner.A)
        record.cause[ids] = record.causes.index("down")
        record.rounds[ids] = round_no
        live[done] = False
    return len(done)


def _check_draw(engine: Engine, batch: Batch, record: _Record, round_no: int) -> int:
    """``draw_when`` read from A's side at the round's end (as :meth:`Engine.end_round`)."""
    end = engine.system.end
    if end.draw_when is None:
        return 0
    held = end.draw_when.evaluate(batch.env(end.draw_when, VIEW_A), None, n=batch.m)
    live = batch.fight["live"]
    done = np.flatnonzero(held & live)
    if len(done):
        ids = batch.fight["id"][done]
        record.winner[ids] = Winner.DRAW
        record.cause[ids] = record.causes.index(end.draw_cause)
        record.rounds[ids] = round_no
        live[done] = False
    return len(done)
