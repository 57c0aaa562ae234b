"""Exact solution of the plain duel of seed 001 as a Markov chain over health states.

"Plain" means one against one with the Extraordinary tables off and no ambush (001.6 and
001.3 switched off).  Diversion is included: every policy is a function of the fighter's
own state (``random`` mixes both actions), so each health state has fixed transition
probabilities.  The round cap ``max_rounds`` is honoured exactly by iterating the
state distribution round by round (a matrix-vector product per round).

The chain is built once per pair of declarations (who diverts, 001.5) by :func:`chain`;
a policy mixes the four per state (:func:`solve`), and best play chooses the mix
(:mod:`.bestplay`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ...dice import pmf
from ...errors import IntractableError, SpecError
from ...outcomes import Probabilities
from ..base import Side
from .language import best_play_unsupported, house_rules, state_terms, unsupported_rows
from .rules import Combatant, Rules, band, combat_score, scores, starting_health

__all__ = ["DECLARATIONS", "Chain", "chain", "damage_pmf", "solve", "solve_best_play",
           "stroke_probability", "unsupported"]

MAX_STATES = 250_000
DENSE_STATES = 400
"""Chains of at most this many states keep their moves as dense arrays (they step faster,
and need no SciPy import: ``balance exact crt`` starts at once); bigger ones are sparse."""

DECLARATIONS: tuple[tuple[bool, bool], ...] = ((False, False), (False, True), (True, False),
                                              (True, True))
"""The four pairs (A diverts, B diverts) of one round's declarations, in the order the
per-declaration arrays of :class:`Chain` use."""

TWELVE = 1 / 36  # P(2d6 = 12): in every band it scores (001.4)


def stroke_probability(advantage: int, rules: Rules) -> Fraction:
    """P(a 2d6 roll is a damaging stroke) for a fighter with ``advantage`` (001.4)."""
    return pmf(2, 6).probability(lambda roll: scores(advantage, roll, rules))


def damage_pmf(attacker: Combatant, target: Combatant, rules: Rules, *,
               deflectable: bool = True) -> dict[int, Fraction]:
    """Distribution of the damage one stroke deals, after shield (if ``deflectable``) and
    armour."""
    mod = rules.weapon_damage_mod[attacker.weapon_type]
    block = Fraction(rules.shield_block[target.shield] if deflectable else 0, 6)
    armour = rules.armour_points[target.armour]
    out: dict[int, Fraction] = {0: block}
    for face in range(1, rules.damage_die + 1):
        dealt = max(0, max(rules.min_damage, face + mod) - armour)
        out[dealt] = out.get(dealt, Fraction(0)) + (1 - block) / rules.damage_die
    return out


def unsupported(rules: Rules, side_a: Side, side_b: Side) -> str | None:
    """Why the solver cannot answer this matchup, or ``None`` if it can."""
    if len(side_a) != 1 or len(side_b) != 1:
        return "the exact solver handles one-against-one duels only"
    if rules.extraordinary:
        return ("the Extraordinary tables are on; set extraordinary=false for the plain duel "
                "(their weapon-loss and chain effects make the state space open-ended)")
    if rules.ambush != "none":
        return "an ambush opening is set; the solver handles the plain duel (ambush=none)"
    n_states = starting_health(side_a[0], rules) * starting_health(side_b[0], rules)
    if n_states > MAX_STATES:
        return f"{n_states:,} health states exceed the solver's limit of {MAX_STATES:,}"
    return unsupported_rows(house_rules(rules), n_states)


def _check(rules: Rules, side_a: Side, side_b: Side) -> None:
    why = unsupported(rules, side_a, side_b)
    if why:
        raise IntractableError(f"crt has no exact solution here: {why}")


NO_EXTRA: tuple[tuple[int, float], ...] = ((0, 1.0),)
"""The distribution of a damage modifier that adds nothing."""


def _damage_array(attacker: Combatant, target: Combatant, rules: Rules, *,
                  deflectable: bool = True,
                  extra: tuple[tuple[int, float], ...] = NO_EXTRA) -> np.ndarray:
    """:func:`damage_pmf` in floats: P(damage = k) at index k (the solver's hot path);
    ``extra``: the distribution of the house rules' damage modifiers, ``(value, p)``."""
    mod = rules.weapon_damage_mod[attacker.weapon_type]
    block = rules.shield_block[target.shield] / 6 if deflectable else 0.0
    faces = np.arange(1, rules.damage_die + 1)
    dealt = [np.maximum(0, np.maximum(rules.min_damage, faces + mod + bonus)
                        - rules.armour_points[target.armour]) for bonus, _ in extra]
    size = max(int(d.max()) for d in dealt) + 1
    out = np.zeros(size)
    for d, (_, p) in zip(dealt, extra, strict=True):
        out += np.bincount(d, minlength=size) * (p * (1 - block) / rules.damage_die)
    out[0] += block
    return out


@dataclass(frozen=True)
class Chain:
    """The plain duel's transient health states and one round's law for each pair of
    declarations.

    Attributes
    ----------
    health_a, health_b
        int (n_states,): each state's health of A and of B (state ``(i - 1) * hb + j - 1``
        for A at health ``i`` and B at ``j``, ``hb`` B's starting health).
    start
        Index of the starting state.
    advantage
        A's advantage in the starting state (B's is its negative); constant in a plain
        duel unless a house rule changes the score with health.
    p_stroke_a, p_stroke_b
        Each side's chance per roll to score in the starting state (001.4), which is also
        the chance that its diversion holds (001.5, 001.8.9).
    moves
        One (n_states, n_states) matrix per pair in :data:`DECLARATIONS`: the chance of
        going from a state to another in one round (rows: from).
    a_wins, b_wins, draws
        float (4, n_states): the chance that the round ends the fight that way.
    advantages
        int (n_states,): A's advantage in each state (house rules included).
    """

    health_a: np.ndarray
    health_b: np.ndarray
    start: int
    advantage: int
    p_stroke_a: float
    p_stroke_b: float
    moves: tuple[Any, ...]
    a_wins: np.ndarray
    b_wins: np.ndarray
    draws: np.ndarray
    advantages: np.ndarray

    @property
    def n_states(self) -> int:
        return self.health_a.size


def _damage_laws(rules: Rules, a: Combatant, b: Combatant, p_stroke_a: float,
                 p_stroke_b: float, extra_a: tuple[tuple[int, float], ...] = NO_EXTRA,
                 extra_b: tuple[tuple[int, float], ...] = NO_EXTRA,
                 ) -> dict[tuple[bool, bool], tuple[np.ndarray, np.ndarray]]:
    """For each pair of declarations, the pmfs of the damage A takes and B takes in a round.

    An attacker scores with his band's chance; his 12 (one chance in 36 in every band) is
    not deflected by a shield (001.9) unless ``shield_stops_12``.  Against a diversion that
    holds (the diverter's own roll scores) only his 12 lands, as an ordinary stroke
    (001.5).  A diverter deals nothing.  Given the declarations the rolls are independent.
    """
    def laws_of(attacker: Combatant, target: Combatant, p_stroke: float, p_holds: float,
                extra: tuple[tuple[int, float], ...]) -> tuple[np.ndarray, np.ndarray]:
        """(attacking freely, attacking into a diversion): pmfs of the damage dealt."""
        ordinary = _damage_array(attacker, target, rules, extra=extra)
        twelve = (ordinary if rules.shield_stops_12 or not rules.shield_block[target.shield]
                  else _damage_array(attacker, target, rules, deflectable=False, extra=extra))
        none = np.zeros(ordinary.size)
        none[0] = 1.0
        free = (1 - p_stroke) * none + (p_stroke - TWELVE) * ordinary + TWELVE * twelve
        into_diversion = (1 - p_holds) * free + p_holds * ((1 - TWELVE) * none + TWELVE * ordinary)
        return free, into_diversion

    nothing = np.array([1.0])
    a_free, a_into = laws_of(a, b, p_stroke_a, p_stroke_b, extra_a)
    b_free, b_into = laws_of(b, a, p_stroke_b, p_stroke_a, extra_b)
    laws = {}
    for a_diverts, b_diverts in DECLARATIONS:
        to_b = nothing if a_diverts else a_into if b_diverts else a_free
        to_a = nothing if b_diverts else b_into if a_diverts else b_free
        laws[(a_diverts, b_diverts)] = (to_a, to_b)
    return laws


def _states(rules: Rules, a: Combatant, b: Combatant) -> tuple[int, np.ndarray, np.ndarray]:
    """A's advantage, and A's and B's health in each transient state."""
    advantage = combat_score(a, rules) - combat_score(b, rules)
    grid_a, grid_b = np.meshgrid(np.arange(1, starting_health(a, rules) + 1),
                                 np.arange(1, starting_health(b, rules) + 1), indexing="ij")
    return advantage, grid_a.ravel(), grid_b.ravel()


Terms = tuple[np.ndarray, list[tuple[int, Any, Any]]]
"""The house rules in each state (:func:`.language.state_terms`): each state's kind, and
per kind (A's score modifier - B's, A's and B's damage modifier distributions)."""


def chain(rules: Rules, side_a: Side, side_b: Side, /, *,
          declarations: tuple[tuple[bool, bool], ...] = DECLARATIONS,
          states: tuple[int, np.ndarray, np.ndarray] | None = None,
          terms: Terms | None = None) -> Chain:
    """Build the plain duel's chain (the pairs not in ``declarations`` get no matrix;
    ``states``: :func:`_states`, if already known; ``terms``: the house rules in each
    state, by default as they read in round 1)."""
    _check(rules, side_a, side_b)
    a, b = side_a[0], side_b[0]
    advantage, health_a, health_b = states or _states(rules, a, b)
    kind, kinds = terms or state_terms(house_rules(rules), a, b, rules, health_a, health_b, 1)
    start_a, start_b = starting_health(a, rules), starting_health(b, rules)
    start = (start_a - 1) * start_b + (start_b - 1)
    n_states = health_a.size
    parts: list[list[tuple[np.ndarray, ...]]] = [[] for _ in DECLARATIONS]
    wins_a, wins_b, draws = np.zeros((3, 4, n_states))
    for number, (score, extra_a, extra_b) in enumerate(kinds):
        mine = np.flatnonzero(kind == number)
        p_a = float(stroke_probability(advantage + score, rules))
        p_b = float(stroke_probability(-advantage - score, rules))
        laws = _damage_laws(rules, a, b, p_a, p_b, extra_a, extra_b)
        for cell, pair in enumerate(DECLARATIONS):
            if pair in declarations:
                rows, cols, prob, ends = _transitions(laws[pair], mine, health_a[mine],
                                                      health_b[mine], start_b)
                parts[cell].append((rows, cols, prob))
                wins_a[cell, mine], wins_b[cell, mine], draws[cell, mine] = ends
    moves = [_matrix(cell_parts, n_states) if pair in declarations else None
             for cell_parts, pair in zip(parts, DECLARATIONS, strict=True)]
    advantages = advantage + np.array([score for score, _, _ in kinds], np.int64)[kind]
    start_advantage = int(advantages[start])
    return Chain(health_a, health_b, start, start_advantage,
                 float(stroke_probability(start_advantage, rules)),
                 float(stroke_probability(-start_advantage, rules)), tuple(moves), wins_a,
                 wins_b, draws, advantages)


def _transitions(law: tuple[np.ndarray, np.ndarray], source: np.ndarray, health_a: np.ndarray,
                 health_b: np.ndarray, start_b: int) -> tuple[Any, ...]:
    """One pair of declarations in the states ``source``: the moves (rows, columns,
    probabilities) of the fights going on, and the chance each state's round ends in A's
    win, B's, a draw."""
    to_a, to_b = law
    joint = to_a[:, None] * to_b[None, :]  # [damage to A, damage to B]
    new_a = health_a[:, None, None] - np.arange(to_a.size)[None, :, None]
    new_b = health_b[:, None, None] - np.arange(to_b.size)[None, None, :]
    shape = (source.size, to_a.size, to_b.size)
    prob = np.broadcast_to(joint, shape)
    new_a, new_b = np.broadcast_to(new_a, shape), np.broadcast_to(new_b, shape)
    a_down, b_down = new_a <= 0, new_b <= 0
    ends = (np.where(b_down & ~a_down, prob, 0).sum(axis=(1, 2)),
            np.where(a_down & ~b_down, prob, 0).sum(axis=(1, 2)),
            np.where(a_down & b_down, prob, 0).sum(axis=(1, 2)))
    going_on = ~a_down & ~b_down & (prob > 0)
    rows = np.broadcast_to(source[:, None, None], shape)[going_on]
    cols = ((new_a - 1) * start_b + (new_b - 1))[going_on]
    return rows, cols, prob[going_on], ends


def _matrix(parts: list[tuple[np.ndarray, ...]], n_states: int) -> Any:
    """The move matrix (rows: from) of the transitions ``parts``."""
    rows, cols, prob = (np.concatenate([p[k] for p in parts]) for k in range(3))
    if n_states <= DENSE_STATES:  # the usual duel: dense, and no SciPy to import
        dense = np.zeros((n_states, n_states))
        np.add.at(dense, (rows, cols), prob)
        return dense
    from scipy import sparse

    return sparse.csr_matrix((prob, (rows, cols)), shape=(n_states, n_states))


def _divert_probability(c: Combatant, advantage: Any, health: np.ndarray, rules: Rules
                        ) -> np.ndarray:
    """P(c diverts) in each of its health states, by its policy (001.5); ``advantage``:
    its own, one for all states or one per state."""
    policy = c.divert
    advantage = np.broadcast_to(np.asarray(advantage), health.shape)
    if policy == "by_band":
        levels, where = np.unique(advantage, return_inverse=True)
        p = np.array([float(c.divert_by_band[band(int(v), rules)]) for v in levels])
        return p[where.reshape(health.shape)]
    if policy == "always":
        return np.ones(health.shape)
    if policy == "if_deficit":
        return (advantage < 0).astype(float)
    if policy in ("below_health", "reactive"):  # reactive: before any answer (see below)
        return (health <= c.divert_health).astype(float)
    if policy == "random":
        return np.full(health.shape, c.divert_p)
    return np.zeros(health.shape)


def declaration_weights(a: Combatant, b: Combatant, advantage: Any, health_a: np.ndarray,
                        health_b: np.ndarray, rules: Rules) -> np.ndarray:
    """float (4, n_states): P(each pair of declarations) in each state (A's and B's health
    given per state, A's ``advantage``: one, or one per state), by both fighters'
    policies."""
    n_states = health_a.size
    advantage = np.broadcast_to(np.asarray(advantage), health_a.shape)
    divert_a = _divert_probability(a, advantage, health_a, rules)
    divert_b = _divert_probability(b, -advantage, health_b, rules)
    weights = np.zeros((4, n_states))
    for cell, (a_diverts, b_diverts) in enumerate(DECLARATIONS):
        weight_a = divert_a if a_diverts else 1 - divert_a
        weight_b = divert_b if b_diverts else 1 - divert_b
        # A reactive fighter with the advantage declares second and answers the foe's
        # public declaration: it never diverts against a diverter (001.5)
        answers = rules.declarations == "deficit_first"
        if answers and a.divert == "reactive" and b_diverts:
            weight_a = np.where(advantage > 0, float(not a_diverts), weight_a)
        if answers and b.divert == "reactive" and a_diverts:
            weight_b = np.where(advantage < 0, float(not b_diverts), weight_b)
        weights[cell] = weight_a * weight_b
    return weights


def mixed_round(duel: Chain, weights: np.ndarray) -> tuple[Any, np.ndarray]:
    """One round's law under per-state declaration ``weights`` (4, n_states): the
    transposed move matrix (dense for small chains, which step faster) and the absorption
    columns (still fighting, A wins, B wins, draw)."""
    dense = duel.n_states <= DENSE_STATES
    moves: Any = None
    for cell in range(4):
        weight = weights[cell]
        if not weight.any():
            continue
        part = duel.moves[cell]
        if not (weight == 1).all():
            part = (part * weight[:, None]) if dense else part.multiply(weight[:, None]).tocsr()
        moves = part if moves is None else moves + part
    absorb = np.column_stack([np.ones(duel.n_states),
                              (weights * duel.a_wins).sum(axis=0),
                              (weights * duel.b_wins).sum(axis=0),
                              (weights * duel.draws).sum(axis=0)])
    assert moves is not None
    return (np.ascontiguousarray(moves.T) if dense else moves.T.tocsr()), absorb


def run_rounds(duel: Chain, rounds: Any, max_rounds: int) -> tuple[float, ...]:
    """Iterate the state distribution from the start: ``rounds(r)`` gives round ``r``'s
    (moves transposed, absorption columns).  Returns mean rounds, A wins, B wins, draws
    (the mass still fighting after ``max_rounds`` is a draw, and is also returned)."""
    distribution = np.zeros(duel.n_states)
    distribution[duel.start] = 1.0
    totals = np.zeros(4)  # mean rounds, a_win, b_win, draw
    for round_number in range(1, max_rounds + 1):
        moves_t, absorb = rounds(round_number)
        step = distribution @ absorb
        if step[0] < 1e-17:
            break
        totals += step
        distribution = moves_t @ distribution
    capped = float(distribution.sum())
    mean_rounds, a_win, b_win, draw = totals
    return float(mean_rounds), float(a_win), float(b_win), float(draw) + capped, capped


def solve(rules: Rules, side_a: Side, side_b: Side, /) -> Probabilities:
    """Win, loss and draw probabilities and the mean length of a plain duel.

    Each round both roll; a stroke lands with the band probability of its roller's
    advantage; a diverter whose own roll succeeds nullifies the foe's strokes except a 12,
    which lands as an ordinary stroke (001.5; with the tables off every stroke is ordinary).
    Strokes deal independent damage (die + weapon modifier, at least ``min_damage``;
    deflected by the shield on d6 <= block; less armour), and both land simultaneously.
    Raises :class:`~balance.errors.IntractableError` outside the plain duel.
    """
    began = time.perf_counter()
    _check(rules, side_a, side_b)
    a, b = side_a[0], side_b[0]
    states = _states(rules, a, b)
    house = house_rules(rules)
    laws: dict[Any, Any] = {}

    def law_of(round_number: int) -> tuple[Chain, Any]:
        """The chain and round law of round ``round_number`` (house rules that read the
        round give each round its own; equal ones are built once)."""
        terms = state_terms(house, a, b, rules, states[1], states[2], round_number)
        key = (terms[0].tobytes(), tuple(terms[1]))
        if key not in laws:
            kind, kinds = terms
            advantages = states[0] + np.array([score for score, _, _ in kinds])[kind]
            weights = declaration_weights(a, b, advantages, *states[1:], rules)
            used = tuple(pair for cell, pair in enumerate(DECLARATIONS) if weights[cell].any())
            duel = chain(rules, side_a, side_b, declarations=used, states=states, terms=terms)
            laws[key] = duel, mixed_round(duel, weights)
        return laws[key]

    duel, first = law_of(1)
    by_round = "round" in house.names
    mean_rounds, a_win, b_win, draw, capped = run_rounds(
        duel, (lambda r: law_of(r)[1]) if by_round else (lambda _: first), rules.max_rounds)
    elapsed = time.perf_counter() - began
    return Probabilities(
        "crt", a_win, b_win, draw, mean_rounds,
        details={"advantage": duel.advantage, "states": duel.n_states,
                 "capped_at_max_rounds": capped, "solve_ms": round(1000 * elapsed, 3)}
        | ({"house_rules": [m.label() for m in house.modifiers]} if house else {})
        | ({"round_laws": len(laws)} if by_round else {}))


# --- best play: diversion chosen state by state ------------------------------------------

_TIE = 1e-13
"""Payoff differences below this are ties, broken toward attacking (no diversion): they
are rounding, not a reason to prefer a diversion."""


@dataclass(frozen=True)
class StagePlay:
    """Both sides' choices in every state for one round (arrays over states).

    ``a_diverts`` / ``b_diverts``: the probability each diverts on the equilibrium path;
    ``answer_to_attack`` / ``answer_to_divert``: whether the side that declares second
    diverts after the first declared an attack / a diversion (NaN when both write their
    declarations down); ``weights`` (4, n_states): the chance of each pair of
    declarations (:data:`DECLARATIONS`).
    """

    a_diverts: np.ndarray
    b_diverts: np.ndarray
    answer_to_attack: np.ndarray
    answer_to_divert: np.ndarray
    weights: np.ndarray


def _simultaneous(m00: np.ndarray, m01: np.ndarray, m10: np.ndarray, m11: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Value and optimal mixtures of 2x2 zero-sum games, one per state (A picks the row
    and maximises; row and column 1 are "divert").  Returns (value, P(A diverts),
    P(B diverts))."""
    row_floor = np.stack([np.minimum(m00, m01), np.minimum(m10, m11)])  # A's guarantee
    col_ceiling = np.stack([np.maximum(m00, m10), np.maximum(m01, m11)])  # B's concession
    lower = row_floor.max(axis=0)
    upper = col_ceiling.min(axis=0)
    saddle = upper - lower <= _TIE
    # a pure saddle: the maximin row and the minimax column (ties toward attacking)
    a_pure = (row_floor[1] > row_floor[0] + _TIE).astype(float)
    b_pure = (col_ceiling[1] < col_ceiling[0] - _TIE).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = m00 - m01 - m10 + m11
        a_mixed = (m00 - m01) / denominator  # P(A diverts) making B indifferent
        b_mixed = (m00 - m10) / denominator  # P(B diverts) making A indifferent
        mixed_value = (m00 * m11 - m01 * m10) / denominator
    value = np.where(saddle, lower, mixed_value)
    return (value, np.where(saddle, a_pure, np.clip(a_mixed, 0, 1)),
            np.where(saddle, b_pure, np.clip(b_mixed, 0, 1)))


def _stage(payoff: np.ndarray, first: str) -> tuple[np.ndarray, StagePlay]:
    """Solve every state's declaration game given ``payoff`` (4, n_states): A's expected
    score for each pair of declarations.  ``first``: "A" or "B" declares first in public
    and the other answers knowing it (001.5), or "neither" (both write theirs down)."""
    m00, m01, m10, m11 = payoff  # (A attacks, B attacks), (A attacks, B diverts), ...
    n_states = m00.size
    nan = np.full(n_states, np.nan)
    if first == "neither":
        value, a_diverts, b_diverts = _simultaneous(m00, m01, m10, m11)
        answer_attack, answer_divert = nan, nan
    elif first == "A":  # B answers each declaration with his best reply
        answer_attack = (m01 < m00 - _TIE).astype(float)
        answer_divert = (m11 < m10 - _TIE).astype(float)
        if_attack = np.where(answer_attack == 1, m01, m00)
        if_divert = np.where(answer_divert == 1, m11, m10)
        a_diverts = (if_divert > if_attack + _TIE).astype(float)
        value = np.where(a_diverts == 1, if_divert, if_attack)
        b_diverts = np.where(a_diverts == 1, answer_divert, answer_attack)
    else:  # B declares first; A answers
        answer_attack = (m10 > m00 + _TIE).astype(float)
        answer_divert = (m11 > m01 + _TIE).astype(float)
        if_attack = np.where(answer_attack == 1, m10, m00)
        if_divert = np.where(answer_divert == 1, m11, m01)
        b_diverts = (if_divert < if_attack - _TIE).astype(float)
        value = np.where(b_diverts == 1, if_divert, if_attack)
        a_diverts = np.where(b_diverts == 1, answer_divert, answer_attack)
    weights = np.stack([(1 - a_diverts) * (1 - b_diverts), (1 - a_diverts) * b_diverts,
                        a_diverts * (1 - b_diverts), a_diverts * b_diverts])
    return value, StagePlay(a_diverts, b_diverts, answer_attack, answer_divert, weights)


def declares_first(rules: Rules, advantage: int) -> str:
    """Who declares first in public (001.5): the side with the deficit; "neither" at zero
    or when declarations are written down (``declarations = secret``)."""
    if rules.declarations == "secret" or advantage == 0:
        return "neither"
    return "A" if advantage < 0 else "B"


def solve_best_play(rules: Rules, side_a: Side, side_b: Side, /, *,
                    draw_worth: float = 0.5) -> Probabilities:
    """The plain duel with diversion chosen by both sides, state by state, exactly.

    A zero-sum stochastic game over the health states: A maximises ``P(A wins) +
    draw_worth * P(draw)``, B minimises it.  Each round both declare whether they divert
    (001.5): in the order of the rules (the deficit side first, in public, the advantaged
    answering; at zero, or under ``declarations = secret``, a 2x2 matrix game solved in
    mixed strategies).  Backward induction over the rounds left (value iteration from
    the round cap, where an unfinished fight is a draw) until the values stop changing
    to machine precision, or ``max_rounds``; the play of the first round (all rounds
    once stationary) is the equilibrium, evaluated exactly by the forward chain.

    ``strategy`` is a table, one row per health state: ``health_a``, ``health_b``,
    ``declares_first``, ``a_diverts`` / ``b_diverts`` (P(diverts) on the equilibrium
    path), ``answer_to_attack`` / ``answer_to_divert`` (the second declarer's reply;
    NaN when both write theirs down) and ``value`` (A's expected score from there).
    The fighters' own ``divert`` policies are set aside: best play chooses.
    """
    import pandas as pd

    began = time.perf_counter()
    if not 0.0 <= draw_worth <= 1.0 or draw_worth != draw_worth:
        raise SpecError(f"draw_worth must be a number in 0..1, got {draw_worth!r}")
    why = unsupported(rules, side_a, side_b) or best_play_unsupported(house_rules(rules))
    if why:
        raise IntractableError(f"crt has no exact best play here: {why}")
    duel = chain(rules, side_a, side_b)
    first = declares_first(rules, duel.advantage)
    ends = duel.a_wins + draw_worth * duel.draws  # (4, n_states): A's score if it ends now
    moves = duel.moves
    value = np.full(duel.n_states, draw_worth)  # no rounds left: the fight is a draw
    plays: list[StagePlay] = []
    stationary = False
    for _ in range(rules.max_rounds):
        payoff = ends + np.stack([moves[cell] @ value for cell in range(4)])
        new_value, play = _stage(payoff, first)
        plays.append(play)
        change = float(np.max(np.abs(new_value - value)))
        value = new_value
        if change <= 1e-15:
            stationary = True
            break
    # Round r of the fight has max_rounds - r + 1 rounds left: plays[-1] until the last
    # len(plays) rounds, which follow the earlier solutions down to plays[0].
    laws: dict[int, Any] = {}

    def law(round_number: int) -> Any:
        left = rules.max_rounds - round_number + 1
        index = min(left, len(plays)) - 1
        if index not in laws:
            laws[index] = mixed_round(duel, plays[index].weights)
        return laws[index]

    mean_rounds, a_win, b_win, draw, capped = run_rounds(duel, law, rules.max_rounds)
    play = plays[-1]
    strategy = pd.DataFrame({
        "health_a": duel.health_a, "health_b": duel.health_b,
        "declares_first": first,
        "a_diverts": play.a_diverts, "b_diverts": play.b_diverts,
        "answer_to_attack": play.answer_to_attack, "answer_to_divert": play.answer_to_divert,
        "value": value,
    })
    elapsed = time.perf_counter() - began
    return Probabilities(
        "crt", a_win, b_win, draw, mean_rounds,
        details={"value": float(value[duel.start]), "draw_worth": draw_worth,
                 "objective": f"A maximises P(A wins) + {draw_worth:g} x P(draw)",
                 "advantage": duel.advantage, "declares_first": first,
                 "states": duel.n_states, "rounds_solved": len(plays),
                 "stationary": stationary, "capped_at_max_rounds": capped,
                 "solve_ms": round(1000 * elapsed, 3)},
        strategy=strategy)
