"""Exact answers for a ruleset file: a Markov chain, and best play as a stochastic game.

The states are found automatically.  A fight's state is every value that changes (each
fighter's ``[state]`` values, who acts first when that is drawn once a fight, and between
the two turns of a sequential round, what the first turn left); the solver explores them
from the start by playing one step -- a simultaneous round, or one turn of a sequential
round -- of every state found so far with the engine's :class:`~.batch.Enumerator`, which
branches on every die with its exact probability (the language's own
:meth:`~balance.language.Expression.distribution`, as floats).  Before exploring,
:func:`state_bound` counts the states the declared ranges allow (the product of the
changing values' ranges for this matchup); above :data:`MAX_STATES` ``exact`` says so in
one line.

* :func:`solve` -- the policies as written: the chain run forward step by step to the round
  cap (a matrix-vector product a step), as the built-in solvers do;
* :func:`best_play` -- each fighter's choices (``[choices]``) picked state by state: A
  maximises P(A wins) + ``draw_worth`` x P(draw), B minimises it.  In a simultaneous round
  both choose at once (a matrix game per state, mixed where it must be; a fighter whose
  ``first`` condition holds and the other's does not declares first, in public, and the
  other answers); in a sequential round the fighter whose turn it is chooses.  Backward
  induction over the rounds left from the cap (an unfinished fight is a draw), until the
  values stop changing; the equilibrium is then played forward exactly.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import IntractableError, SpecError
from ...language import Expression
from ...outcomes import Probabilities, Winner
from .batch import VIEW_BOTH, Batch, Enumerator, rows_alike
from .engine import Engine, fixed_values
from .schema import System

__all__ = ["MAX_STATES", "best_play", "solve", "state_bound", "unsupported"]

MAX_STATES = 250_000
"""Most states (counted by :func:`state_bound`) the exact solver takes on."""
GRID_STATES = 50_000
"""Most states stepped at once, without exploring (see :meth:`_Explorer.explore`)."""
DENSE_STATES = 600
"""Chains of at most this many states step as dense matrices (faster, no SciPy)."""
_TIE = 1e-13
"""Payoff differences below this are ties, broken toward the first option listed."""
ENDS = ("a_win", "b_win", "draw")


def expressions(system: System) -> Iterator[Expression]:
    """Every expression a ruleset file holds."""
    for item in system.derived:
        yield item.expression
    for var in system.state:
        yield var.start
    if system.order.initiative is not None:
        yield system.order.initiative
    for choice in system.choices:
        yield from (when for _, when in choice.policy)
        if choice.first is not None:
            yield choice.first
    for action in system.actions:
        yield from (e for e in (action.when, action.times, action.roll, action.against)
                    if e is not None)
        yield from (e for _, e in action.lets)
        for outcome in action.outcomes:
            yield from (e for e in (outcome.when, outcome.damage, outcome.self_damage)
                        if e is not None)
            for effect in outcome.effects:
                yield from (e for e in (effect.when, effect.amount, effect.value, effect.rounds)
                            if isinstance(e, Expression))
    for modifier in system.modifiers:
        yield modifier.amount
        if modifier.when is not None:
            yield modifier.when
    yield system.end.out
    if system.end.draw_when is not None:
        yield system.end.draw_when


def _raised(system: System, name: str) -> bool:
    """Whether some row can raise state value ``name`` above its start (a ``set``, a
    ``spend`` of a possibly negative amount, a reset that rolls)."""
    for action in system.actions:
        for outcome in action.outcomes:
            for effect in outcome.effects:
                if effect.action == "set" and effect.set == name:
                    return True
                if effect.action == "spend" and effect.spend == name:
                    low = (effect.amount.range or (None, None))[0] if effect.amount else 0
                    if low is None or low < 0:
                        return True
    var = next(v for v in system.state if v.name == name)
    return var.start.has_dice


def _values(system: System, var: Any, fixed: dict[str, np.ndarray], rules: dict[str, Any],
            side: int) -> list[int]:
    """The values state value ``var`` of fighter ``side`` can take in this matchup."""
    if var.kind == "bool":
        return [0, 1]
    if var.kind == "str":
        return list(range(len(var.choices)))
    low, high = var.range or (0, 0)
    if not _raised(system, var.name):
        start = _start_value(var.start, fixed, rules, side)
        if start is not None:
            high = max(low, min(high, start))
    return list(range(low, high + 1))


def state_bound(system: System, rules: Any, a: Any, b: Any) -> int:
    """How many states this matchup can have at most: for each fighter and each
    ``[state]`` value, the values it can take (a whole number from its range's low end to
    its start, when nothing raises it; else its whole range), multiplied together; times
    two where who acts first is drawn once a fight, and twice again for the middle of a
    sequential round."""
    fixed, rule_values = fixed_values(system, rules, a, b)
    count = 1
    for var in system.state:
        for side in (0, 1):
            count *= len(_values(system, var, fixed, rule_values, side))
    if system.order.kind == "sequential":
        count *= 2 * (2 if system.order.first != "a" and system.order.first != "b" else 1)
    return count


def _start_value(start: Expression, fixed: dict[str, np.ndarray], rules: dict[str, Any],
                 side: int) -> int | None:
    if start.has_dice:
        return None
    env: dict[str, Any] = {}
    for name in start.names_used:
        role, dot, field = name.partition(".")
        if not dot:
            env[name] = rules[name]
        elif field in fixed:
            env[name] = int(fixed[field][side if role == "self" else 1 - side])
        else:
            return None
    return int(start.evaluate(env, None, n=1)[0])


def unsupported(ruleset: Any, rules: Any, a: Any, b: Any, *, options: int = 1,
                bound: int | None = None) -> str | None:
    """Why the exact solver cannot answer this matchup (``None``: it can); ``bound``: its
    :func:`state_bound`, if the caller has it already."""
    system: System = ruleset.system
    if any("round" in e.names_used for e in expressions(system)):
        return ("its rules read the round number, so the chain changes every round; the "
                "exact solver takes rules that do not")
    if bound is None:
        bound = state_bound(system, rules, a, b)
    if bound * options > MAX_STATES:
        extra = f" x {options} choices" if options > 1 else ""
        return (f"up to {bound:,} states{extra} (the product of the changing values' "
                f"ranges) exceed the solver's limit of {MAX_STATES:,}")
    return None


# --- exploring the states ----------------------------------------------------------------------
@dataclass
class Chain:
    """The states of one matchup and one step's law from each (per choice profile).

    ``keys``: each state's values (rows); ``phase``: 0, or 1 for the middle of a sequential
    round; ``start``: the starting distribution; ``moves``: (n_states * n_profiles,
    n_states) transition probabilities; ``ends``: (n_states * n_profiles, 3) chance of a
    win for A, for B, a draw this step; ``profiles``: the choice profiles (one ``None``
    profile when the policies choose)."""

    keys: np.ndarray
    phase: np.ndarray
    start: np.ndarray
    moves: Any
    ends: np.ndarray
    profiles: list[Any]
    columns: list[str]
    steps_per_round: int

    @property
    def n_states(self) -> int:
        return len(self.keys)


class _Explorer:
    """Finds the states of a matchup and one step's law from each."""

    def __init__(self, ruleset: Any, rules: Any, a: Any, b: Any, profiles: list[Any]) -> None:
        self.system: System = ruleset.system
        self.engine: Engine = ruleset.engine
        self.fixed, self.rule_values = fixed_values(self.system, rules, a, b)
        self.profiles = profiles
        self.enumerator = Enumerator()
        self.index: dict[bytes, int] = {}
        self.keys: list[np.ndarray] = []
        self.phases: list[int] = []
        self.columns: list[str] = []

    def batch(self, m: int) -> Batch:
        return Batch(m, self.fixed, self.rule_values, self.system.names, weighted=True)

    def layout(self, batch: Batch) -> np.ndarray:
        """The state columns of a batch's rows (fixed column order, set once)."""
        if not self.columns:
            self.columns = ([f"s:{k}" for k in sorted(batch.state)]
                            + [f"f:{k}" for k in sorted(batch.fight)
                               if k not in ("live", "winner", "cause", "origin")])
        parts = []
        for column in self.columns:
            kind, key = column.split(":", 1)
            if kind == "s":
                parts.append(batch.state[key].astype(np.int64))
            else:
                parts.append(batch.fight[key].astype(np.int64)[None, :])
        return np.concatenate(parts, axis=0).T if parts else np.zeros((batch.m, 0), np.int64)

    def restore(self, batch: Batch, keys: np.ndarray) -> None:
        at = 0
        for column in self.columns:
            kind, key = column.split(":", 1)
            if kind == "s":
                batch.state[key] = keys[:, at:at + 2].T.copy()
                at += 2
            else:
                batch.fight[key] = keys[:, at].copy()
                at += 1

    def found(self, keys: np.ndarray, phase: int) -> np.ndarray:
        """The index of each key (new ones added)."""
        keys = np.ascontiguousarray(keys, np.int64)
        first, inverse, count = rows_alike(keys.T)  # the rows in order, as np.unique's
        unique = keys[first]
        ids = np.empty(count, np.int64)
        index, tag, width = self.index, bytes([phase]), 8 * keys.shape[1]
        packed = unique.tobytes()
        for i in range(count):
            code = packed[i * width:(i + 1) * width] + tag
            found = index.get(code)
            if found is None:
                found = index[code] = len(self.keys)
                self.keys.append(unique[i])
                self.phases.append(phase)
            ids[i] = found
        return ids[inverse]

    def start(self) -> np.ndarray:
        batch = self.batch(1)
        self.engine.start(batch, self.enumerator)
        self.engine.begin_round(batch, self.enumerator, 1)
        live = batch.fight["live"]
        assert live.all(), "a fight over before its first round"
        ids = self.found(self.layout(batch), 0)
        start = np.bincount(ids, weights=batch.weight, minlength=len(self.keys))
        return start

    def grid(self) -> np.ndarray | None:
        """Every combination of the state values the ranges allow with nobody out, as
        state keys, or ``None`` where the states hold more than the state values."""
        if self.engine.sequential or any(not c.startswith("s:") for c in self.columns):
            return None
        axes = []
        for column in self.columns:
            var = next((v for v in self.system.state if v.name == column[2:]), None)
            if var is None:
                return None
            for side in (0, 1):
                axes.append(_values(self.system, var, self.fixed, self.rule_values, side))
        if float(np.prod([len(a) for a in axes])) > GRID_STATES:
            return None
        keys = np.array(list(itertools.product(*axes)), np.int64).reshape(-1, len(axes))
        batch = self.batch(len(keys))
        self.restore(batch, keys)
        out = self.enumerator.evaluate(self.system.end.out, batch, VIEW_BOTH)
        return keys[~out.reshape(2, -1).any(axis=0)]

    def step(self, states: np.ndarray) -> tuple[np.ndarray, ...]:
        """One step of ``states`` under every profile: (origin row = state * profiles +
        profile, next state or -1, weight, winner code or -1)."""
        n_profiles = len(self.profiles)
        keys = np.stack([self.keys[s] for s in states]).repeat(n_profiles, axis=0)
        phase = self.phases[states[0]]
        batch = self.batch(len(keys))
        batch.fight["live"] = np.ones(batch.m, bool)
        batch.fight["winner"] = np.zeros(batch.m, np.int8)
        batch.fight["cause"] = np.zeros(batch.m, np.int8)
        self.restore(batch, keys)
        batch.fight["origin"] = (np.asarray(states).repeat(n_profiles) * n_profiles
                                 + np.tile(np.arange(n_profiles), len(states)))
        choose = self.profiles[0] is None
        if not choose:
            self.force(batch, phase)
        engine, backend = self.engine, self.enumerator
        if engine.sequential:
            engine.play_turn(batch, backend, phase, choose=choose)
            if phase == 1:
                engine.end_round(batch, backend)
                engine.begin_round(batch, backend, 1)
        else:
            engine.play_both(batch, backend, choose=choose)
            engine.end_round(batch, backend)  # merges
            engine.begin_round(batch, backend, 1)
        if engine.sequential or engine.round_resets:  # else merged already, nothing since
            batch.merge()
        live = batch.fight["live"]
        nxt = np.full(batch.m, -1, np.int64)
        if live.any():
            rows = np.flatnonzero(live)
            taken = Batch(len(rows), {}, {}, self.system.names)
            taken.state = {k: v[:, rows] for k, v in batch.state.items()}
            taken.fight = {k: v[rows] for k, v in batch.fight.items()}
            nxt[rows] = self.found(self.layout(taken), 1 - phase if engine.sequential else 0)
        winner = np.where(live, -1, batch.fight["winner"]).astype(np.int64)
        assert batch.weight is not None
        return batch.fight["origin"], nxt, batch.weight, winner

    def force(self, batch: Batch, phase: int) -> None:
        """Set each row's choices to its profile (for the fighter(s) choosing)."""
        n_profiles = len(self.profiles)
        profile = np.tile(np.arange(n_profiles), batch.m // n_profiles)
        mover = None
        if self.engine.sequential:
            first = batch.fight["round_first"]
            mover = first if phase == 0 else 1 - first
        for c, choice in enumerate(self.system.choices):
            grid = batch.state.get(choice.name)
            if grid is None:
                grid = np.full((2, batch.m), choice.options.index(choice.default), np.int8)
            grid = grid.copy()
            for p, chosen in enumerate(self.profiles):
                rows = profile == p
                if mover is None:
                    grid[0, rows], grid[1, rows] = chosen[0][c], chosen[1][c]
                else:
                    grid[mover[rows], np.flatnonzero(rows)] = chosen[c]
            batch.state[choice.name] = grid

    def explore(self) -> Chain:
        """Every state reachable from the start, each stepped once under every profile.

        Where a simultaneous fight's states are its state values alone, every state the
        declared ranges allow (those where nobody is out) is stepped at once, in one
        batch; states the first step reaches beyond them (and those of other fights) are
        found breadth first."""
        start = self.start()
        grid = self.grid()
        if grid is not None:
            self.found(grid, 0)
        origins, nexts, weights, winners = [], [], [], []
        stepped = 0
        while stepped < len(self.keys):
            current = np.arange(stepped, len(self.keys))
            stepped = len(self.keys)
            if stepped > MAX_STATES:
                raise IntractableError(f"more than {MAX_STATES:,} states are reachable")
            phases = np.array(self.phases)[current]
            for phase in (0, 1):
                frontier = current[phases == phase]
                if len(frontier):
                    o, nx, w, win = self.step(frontier)
                    origins.append(o)
                    nexts.append(nx)
                    weights.append(w)
                    winners.append(win)
        return self.chain(start, origins, nexts, weights, winners)

    def chain(self, start: np.ndarray, origins: list[np.ndarray], nexts: list[np.ndarray],
              weights: list[np.ndarray], winners: list[np.ndarray]) -> Chain:
        n = len(self.keys)
        n_profiles = len(self.profiles)
        origin = np.concatenate(origins)
        nxt = np.concatenate(nexts)
        weight = np.concatenate(weights)
        winner = np.concatenate(winners)
        going = nxt >= 0
        size = n * n_profiles
        if n <= DENSE_STATES:
            moves: Any = np.bincount(origin[going] * n + nxt[going], weights=weight[going],
                                     minlength=size * n).reshape(size, n)
        else:
            from scipy import sparse

            moves = sparse.csr_matrix((weight[going], (origin[going], nxt[going])),
                                      shape=(size, n))
        ends = np.zeros((size, 3))
        for column, code in enumerate((Winner.A, Winner.B, Winner.DRAW)):
            rows = winner == int(code)
            ends[:, column] = np.bincount(origin[rows], weights=weight[rows], minlength=size)
        start = np.pad(start, (0, n - len(start)))
        return Chain(np.array(self.keys), np.array(self.phases), start, moves, ends,
                     self.profiles, self.columns,
                     2 if self.engine.sequential else 1)


# --- the policies as written --------------------------------------------------------------------
def _check(ruleset: Any, rules: Any, a: Any, b: Any, options: int = 1,
           bound: int | None = None) -> None:
    why = unsupported(ruleset, rules, a, b, options=options, bound=bound)
    if why:
        raise IntractableError(f"{ruleset.name} has no exact solution here: {why}")


def run_forward(chain: Chain, law: Any, max_rounds: int) -> tuple[float, ...]:
    """Play the chain forward from the start: ``law(step)`` is that step's (moves, ends)
    per state (profiles mixed; steps from 0).  Returns mean rounds, A wins, B wins, draws
    (the mass still fighting after ``max_rounds`` is a draw, and is also returned)."""
    dist = chain.start.copy()
    totals = np.zeros(3)
    mean_rounds = 0.0
    for step in range(chain.steps_per_round * max_rounds):
        alive = float(dist.sum())
        if alive < 1e-17:
            break
        if step % chain.steps_per_round == 0:
            mean_rounds += alive
        moves, ends = law(step)
        totals += dist @ ends
        dist = moves.T @ dist
    capped = float(dist.sum())
    return mean_rounds, float(totals[0]), float(totals[1]), float(totals[2]) + capped, capped


def solve(ruleset: Any, rules: Any, a: Any, b: Any) -> Probabilities:
    """Win, loss and draw probabilities and the mean length of the fight, the fighters
    choosing by their policies (see the module docstring)."""
    began = time.perf_counter()
    bound = state_bound(ruleset.system, rules, a, b)
    _check(ruleset, rules, a, b, bound=bound)
    chain = _Explorer(ruleset, rules, a, b, [None]).explore()
    law = (np.ascontiguousarray(chain.moves) if isinstance(chain.moves, np.ndarray)
           else chain.moves, chain.ends)
    mean_rounds, a_win, b_win, draw, capped = run_forward(chain, lambda _: law,
                                                          int(rules.max_rounds))
    return Probabilities(ruleset.name, a_win, b_win, draw, mean_rounds, details={
        "method": "Markov chain over the states found from the start",
        "states": chain.n_states, "state_bound": bound,
        "capped_at_max_rounds": capped, "solve_ms": round(1000 * (time.perf_counter() - began), 3)})


# --- best play ------------------------------------------------------------------------------------
def _options(system: System) -> list[tuple[int, ...]]:
    """Every combination of one fighter's choices (codes), in the order options are
    listed (the first is the policy-free default of ties)."""
    return list(itertools.product(*(range(len(c.options)) for c in system.choices)))


def _two_by_two(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value and optimal mixtures of 2x2 zero-sum games ``m`` (n, 2, 2), A the maximising
    row player: the saddle point where there is one (ties toward the first row and
    column), else the mixed solution in closed form."""
    m00, m01, m10, m11 = m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1]
    row_floor = np.stack([np.minimum(m00, m01), np.minimum(m10, m11)])
    col_ceiling = np.stack([np.maximum(m00, m10), np.maximum(m01, m11)])
    lower, upper = row_floor.max(axis=0), col_ceiling.min(axis=0)
    saddle = upper - lower <= _TIE
    a_pure = (row_floor[1] > row_floor[0] + _TIE).astype(float)
    b_pure = (col_ceiling[1] < col_ceiling[0] - _TIE).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = m00 - m01 - m10 + m11
        a_mixed = np.clip((m00 - m01) / denominator, 0, 1)
        b_mixed = np.clip((m00 - m10) / denominator, 0, 1)
        mixed_value = (m00 * m11 - m01 * m10) / denominator
    value = np.where(saddle, lower, mixed_value)
    a_second = np.where(saddle, a_pure, a_mixed)
    b_second = np.where(saddle, b_pure, b_mixed)
    return (value, np.stack([1 - a_second, a_second], axis=1),
            np.stack([1 - b_second, b_second], axis=1))


def _informed(m: np.ndarray, a_first: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Games where one side declares first, in public, and the other answers with its best
    reply (ties toward the first option): max-min (A first) or min-max (B first)."""
    n, rows, cols = m.shape
    every = np.arange(n)
    if a_first:
        reply = np.argmax(m <= m.min(axis=2, keepdims=True) + _TIE, axis=2)  # (n, rows)
        worth = np.take_along_axis(m, reply[:, :, None], axis=2)[:, :, 0]
        a = np.argmax(worth >= worth.max(axis=1, keepdims=True) - _TIE, axis=1)
        return worth[every, a], np.eye(rows)[a], np.eye(cols)[reply[every, a]]
    reply = np.argmax(m >= m.max(axis=1, keepdims=True) - _TIE, axis=1)  # (n, cols)
    worth = np.take_along_axis(m, reply[:, None, :], axis=1)[:, 0, :]
    b = np.argmax(worth <= worth.min(axis=1, keepdims=True) + _TIE, axis=1)
    return worth[every, b], np.eye(rows)[reply[every, b]], np.eye(cols)[b]


def _sealed(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Games where both choose at once: 2x2 in closed form, larger by a linear program."""
    if m.shape[1:] == (2, 2):
        return _two_by_two(m)
    from ...matrix_game import solve_batch

    solution = solve_batch(m, "sealed")
    return solution.value, solution.attack, solution.defence


class _Game:
    """The stage games of every state: who chooses, and how (see :func:`best_play`)."""

    def __init__(self, explorer: _Explorer, chain: Chain, n_options: int) -> None:
        self.chain = chain
        self.n = n_options
        system = explorer.system
        n_states = chain.n_states
        self.sequential = explorer.engine.sequential
        self.protocol = np.zeros(n_states, np.int8)  # 0 sealed, 1 A first, 2 B first
        self.mover = np.zeros(n_states, np.int8)
        if self.sequential:
            first = chain.keys[:, _column_at(chain, chain.columns.index("f:round_first"))]
            self.mover = np.where(chain.phase == 0, first, 1 - first).astype(np.int8)
            return
        declares = next((c.first for c in system.choices if c.first is not None), None)
        if declares is not None:
            batch = explorer.batch(n_states)
            explorer.restore(batch, chain.keys)
            holds = explorer.enumerator.evaluate(declares, batch, VIEW_BOTH).reshape(2, -1)
            self.protocol[holds[0] & ~holds[1]] = 1
            self.protocol[holds[1] & ~holds[0]] = 2

    def stage(self, payoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each state's value and the chance of each profile, given ``payoff`` (n_states,
        n_profiles): A's expected score after each profile."""
        n_states = len(payoff)
        value = np.zeros(n_states)
        weights = np.zeros(payoff.shape)
        if self.sequential:
            best_a = np.argmax(payoff >= payoff.max(axis=1, keepdims=True) - _TIE, axis=1)
            best_b = np.argmax(payoff <= payoff.min(axis=1, keepdims=True) + _TIE, axis=1)
            pick = np.where(self.mover == 0, best_a, best_b)
            weights[np.arange(n_states), pick] = 1.0
            return payoff[np.arange(n_states), pick], weights
        games = payoff.reshape(n_states, self.n, self.n)
        for code, solver in ((0, _sealed), (1, lambda m: _informed(m, True)),
                             (2, lambda m: _informed(m, False))):
            rows = np.flatnonzero(self.protocol == code)
            if len(rows):
                v, x, y = solver(games[rows])
                value[rows] = v
                weights[rows] = (x[:, :, None] * y[:, None, :]).reshape(len(rows), -1)
        return value, weights


def _mixed(chain: Chain, weights: np.ndarray) -> tuple[Any, np.ndarray]:
    """One step's law when each state plays its profiles with ``weights``."""
    n, j = weights.shape
    ends = (chain.ends.reshape(n, j, 3) * weights[:, :, None]).sum(axis=1)
    if isinstance(chain.moves, np.ndarray):
        moves = (chain.moves.reshape(n, j, n) * weights[:, :, None]).sum(axis=1)
    else:
        from scipy import sparse

        mix = sparse.csr_matrix((weights.ravel(), (np.repeat(np.arange(n), j),
                                                   np.arange(n * j))), shape=(n, n * j))
        moves = mix @ chain.moves
    return moves, ends


def best_play(ruleset: Any, rules: Any, a: Any, b: Any, *,
              draw_worth: float = 0.5) -> Probabilities:
    """Exact best play: each fighter's ``[choices]`` picked state by state (see the module
    docstring).  ``strategy`` holds one row per state: the state values, who chooses and
    how, the chance of each option, and A's value there."""
    began = time.perf_counter()
    if not 0.0 <= draw_worth <= 1.0 or draw_worth != draw_worth:
        raise SpecError(f"draw_worth must be a number in 0..1, got {draw_worth!r}")
    system: System = ruleset.system
    if not system.choices:
        raise IntractableError(f"{ruleset.name} has no exact best play: it declares no "
                               "[choices] for best play to make")
    options = _options(system)
    sequential = system.order.kind == "sequential"
    profiles: list[Any] = options if sequential else list(itertools.product(options, options))
    _check(ruleset, rules, a, b, options=len(profiles))
    explorer = _Explorer(ruleset, rules, a, b, profiles)
    chain = explorer.explore()
    game = _Game(explorer, chain, len(options))
    n = chain.n_states
    score = chain.ends @ np.array([1.0, 0.0, draw_worth])
    value = np.full(n, draw_worth)  # no steps left: a draw
    plays: list[np.ndarray] = []
    stationary = False
    total_steps = chain.steps_per_round * int(rules.max_rounds)
    for _ in range(total_steps):
        payoff = (score + chain.moves @ value).reshape(n, len(profiles))
        new_value, weights = game.stage(payoff)
        plays.append(weights)
        change = float(np.max(np.abs(new_value - value))) if n else 0.0
        value = new_value
        if change <= 1e-15:
            stationary = True
            break
    laws: dict[int, Any] = {}

    def law(step: int) -> Any:
        index = min(total_steps - step, len(plays)) - 1
        if index not in laws:
            laws[index] = _mixed(chain, plays[index])
        return laws[index]

    mean_rounds, a_win, b_win, draw, capped = run_forward(chain, law, int(rules.max_rounds))
    start_value = float(chain.start @ value)
    return Probabilities(ruleset.name, a_win, b_win, draw, mean_rounds, details={
        "value": start_value, "draw_worth": draw_worth,
        "objective": f"A maximises P(A wins) + {draw_worth:g} x P(draw)",
        "states": n, "profiles": len(profiles), "rounds_solved": len(plays),
        "stationary": stationary, "capped_at_max_rounds": capped,
        "solve_ms": round(1000 * (time.perf_counter() - began), 3)},
        strategy=_strategy(explorer, chain, game, plays[-1] if plays else None, value, options))


def _strategy(explorer: _Explorer, chain: Chain, game: _Game, weights: np.ndarray | None,
              value: np.ndarray, options: list[tuple[int, ...]]) -> Any:
    """The equilibrium as a table: one row per state."""
    import pandas as pd

    system = explorer.system
    table: dict[str, Any] = {}
    for i, column in enumerate(chain.columns):
        kind, key = column.split(":", 1)
        if kind == "s" and key in {v.name for v in system.state}:
            var = next(v for v in system.state if v.name == key)
            for side, label in ((0, "A"), (1, "B")):
                raw = chain.keys[:, _column_at(chain, i) + side]
                table[f"{label} {key}"] = ([var.choices[int(x)] for x in raw]
                                           if var.kind == "str" else raw)
    names = [" ".join(c.options[k] for c, k in zip(system.choices, option, strict=True))
             for option in options]
    if game.sequential:
        table["to choose"] = np.where(game.mover == 0, "A", "B")
    else:
        table["declares first"] = np.array(["both at once", "A", "B"])[game.protocol]
    if weights is not None:
        n = chain.n_states
        if game.sequential:
            for k, name in enumerate(names):
                table[f"P({name})"] = weights[:, k]
        else:
            grid = weights.reshape(n, len(options), len(options))
            for k, name in enumerate(names):
                table[f"A: P({name})"] = grid[:, k, :].sum(axis=1)
            for k, name in enumerate(names):
                table[f"B: P({name})"] = grid[:, :, k].sum(axis=1)
    table["value"] = value
    return pd.DataFrame(table)


def _column_at(chain: Chain, index: int) -> int:
    """Where column ``index`` of the layout starts in a state key (a state value takes
    two: A's and B's)."""
    at = 0
    for column in chain.columns[:index]:
        at += 2 if column.startswith("s:") else 1
    return at
