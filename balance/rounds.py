"""The round loop of a vectorised kernel, written once: a small ruleset writes one round.

A kernel simulates ``n`` fights side by side, one array element per fight.  Most of its
code is the same in every ruleset: loop over rounds, stop the fights that ended, remember
who won, when and how, squeeze the finished fights out of the arrays so later rounds cost
only what is still going on, and give up at the round cap.  :func:`play_rounds` owns all
of that; a ruleset supplies the state (a mapping of arrays, fights along axis 0) and one
function that plays one round of every live fight::

    def one_round(state, rng, round_no):
        roll_a = rng.integers(1, 11, len(state["health_a"])) + state["skill_a"]
        roll_b = rng.integers(1, 11, len(state["health_b"])) + state["skill_b"]
        state["health_b"] -= roll_a > roll_b          # the higher roll hits
        state["health_a"] -= roll_b > roll_a
        down_a, down_b = state["health_a"] <= 0, state["health_b"] <= 0
        return Ended.where(down_a | down_b, a_wins=down_b & ~down_a,
                           b_wins=down_a & ~down_b, cause=CAUSES.down)

    outcomes = play_rounds(one_round, state, n=n, rng=rng, max_rounds=rules.max_rounds,
                           causes=CAUSES)

Fights that are still undecided at ``max_rounds`` are draws with the cause ``max_rounds``
(which ``causes`` must name).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass

import numpy as np

from .outcomes import EndCauses, Outcomes, Winner

__all__ = ["Ended", "RoundStep", "play_rounds"]


@dataclass(frozen=True)
class Ended:
    """Which live fights ended this round, and how.

    Attributes
    ----------
    ended
        bool ``(live,)``: the fight is over.
    winner
        int8 ``(live,)``: :class:`~balance.outcomes.Winner` code (read where ``ended``).
    cause
        int8 ``(live,)`` or one int: end-cause code (read where ``ended``).
    """

    ended: np.ndarray
    winner: np.ndarray
    cause: np.ndarray | int

    @classmethod
    def where(cls, ended: np.ndarray, *, a_wins: np.ndarray, b_wins: np.ndarray,
              cause: np.ndarray | int) -> Ended:
        """From masks: A wins where ``a_wins``, B where ``b_wins``, otherwise (among the
        ended fights) a draw."""
        winner = np.where(a_wins, np.int8(Winner.A),
                          np.where(b_wins, np.int8(Winner.B), np.int8(Winner.DRAW)))
        return cls(np.asarray(ended, bool), winner.astype(np.int8), cause)


RoundStep = Callable[[MutableMapping[str, np.ndarray], np.random.Generator, int], Ended]
"""``one_round(state, rng, round_no) -> Ended``: plays round ``round_no`` (from 1) of every
live fight, updating ``state``'s arrays in place."""


def play_rounds(one_round: RoundStep, state: MutableMapping[str, np.ndarray], *, n: int,
                rng: np.random.Generator, max_rounds: int, causes: EndCauses,
                extras: Callable[[MutableMapping[str, np.ndarray]], dict[str, np.ndarray]]
                | None = None) -> Outcomes:
    """Run ``n`` fights round by round until each ends or ``max_rounds`` is reached.

    Parameters
    ----------
    one_round
        Plays one round of every live fight (see :data:`RoundStep`).
    state
        Arrays with the ``n`` fights along axis 0 (any other axes are kept).  Mutated:
        after every round the finished fights are squeezed out, so each round's arrays
        hold only live fights and a round costs what is still going on.
    n, rng, max_rounds
        Number of fights, the only source of randomness, the round cap.
    causes
        The ruleset's end causes; ``causes.max_rounds`` is given to fights still going at
        the cap.
    extras
        Optional per-fight measurements taken from the state of the fights that just
        ended (and of those still going at the cap), e.g.
        ``lambda s: {"margin": s["health_a"] - s["health_b"]}``.

    Returns
    -------
    Outcomes
        Winner, rounds and cause of every fight, in the order of ``state``'s rows.
    """
    winner = np.full(n, Winner.DRAW, np.int8)
    rounds = np.full(n, max_rounds, np.int32)
    cause = np.full(n, causes.code("max_rounds"), np.int8)
    measured: dict[str, np.ndarray] = {}
    fight_id = np.arange(n)          # row of `state` -> original fight

    def record(rows: np.ndarray) -> None:
        if extras is None or not rows.any():
            return
        for name, values in extras({k: v[rows] for k, v in state.items()}).items():
            out = measured.setdefault(name, np.zeros(n, np.float64))
            out[fight_id[rows]] = values

    for round_no in range(1, max_rounds + 1):
        if fight_id.size == 0:
            break
        ended = one_round(state, rng, round_no)
        done = np.asarray(ended.ended, bool)
        if not done.any():
            continue
        ids = fight_id[done]
        winner[ids] = np.asarray(ended.winner)[done]
        rounds[ids] = round_no
        cause[ids] = ended.cause if np.isscalar(ended.cause) else np.asarray(ended.cause)[done]
        record(done)
        keep = ~done
        for key in state:
            state[key] = state[key][keep]
        fight_id = fight_id[keep]
    record(np.ones(fight_id.size, bool))
    return Outcomes(winner, rounds, cause, causes, measured)
