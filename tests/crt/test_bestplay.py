"""Exact best play of the plain duel (diversion decided state by state) against brute force.

The oracle is written here from the rules, independently of the solver: one round's law
for each pair of declarations from the 2d6 table, policy evaluation by a linear solve,
and on tiny duels (health 2 or 3, every stroke dealing 1) an enumeration of every
deterministic stationary policy of both sides; stage games of the finite-horizon check
are solved by linear programming.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog

import balance
from balance.rulesets.crt import Combatant, Rules
from balance.rulesets.crt.rules import scores

crt = balance.get("crt")
TWELVE = 1 / 36
CELLS = ((0, 0), (0, 1), (1, 0), (1, 1))  # (A diverts, B diverts)


def p_stroke(advantage: int, rules: Rules) -> float:
    rolls = [a + b for a in range(1, 7) for b in range(1, 7)]
    return sum(scores(advantage, r, rules) for r in rolls) / 36


class Tiny:
    """A duel in which every landed stroke deals exactly 1: states (health A, health B)."""

    def __init__(self, rules: Rules, bonus: int, health_a: int, health_b: int,
                 draw_worth: float) -> None:
        self.rules, self.w = rules, draw_worth
        self.pa, self.pb = p_stroke(bonus, rules), p_stroke(-bonus, rules)
        self.states = [(i, j) for i in range(1, health_a + 1) for j in range(1, health_b + 1)]
        self.index = {s: k for k, s in enumerate(self.states)}
        self.start = self.index[(health_a, health_b)]
        self._rows: dict = {}

    def lands(self, a_diverts: int, b_diverts: int) -> tuple[float, float]:
        """P(A's stroke lands), P(B's stroke lands) given the declarations (001.5)."""
        pa, pb = self.pa, self.pb
        a = 0.0 if a_diverts else (1 - pb) * pa + pb * TWELVE if b_diverts else pa
        b = 0.0 if b_diverts else (1 - pa) * pb + pa * TWELVE if a_diverts else pb
        return a, b

    def round_law(self, state, cell):
        """{next state or 'A'/'B'/'draw': probability} for one round."""
        (i, j), (la, lb) = state, self.lands(*cell)
        out: dict = {}
        for a_hit, b_hit in itertools.product((0, 1), repeat=2):
            p = (la if a_hit else 1 - la) * (lb if b_hit else 1 - lb)
            ni, nj = i - b_hit, j - a_hit
            key = "draw" if ni <= 0 and nj <= 0 else "B" if ni <= 0 else "A" if nj <= 0 \
                else (ni, nj)
            out[key] = out.get(key, 0.0) + p
        return out

    def payoff_rows(self, cell):
        """(ends, moves): A's score from ending this round, and the move matrix."""
        if cell not in self._rows:
            self._rows[cell] = self._payoff_rows(cell)
        return self._rows[cell]

    def _payoff_rows(self, cell):
        n = len(self.states)
        ends, moves = np.zeros(n), np.zeros((n, n))
        for k, s in enumerate(self.states):
            for key, p in self.round_law(s, cell).items():
                if key == "A":
                    ends[k] += p
                elif key == "draw":
                    ends[k] += self.w * p
                elif key != "B":
                    moves[k, self.index[key]] += p
        return ends, moves

    def evaluate(self, weights: np.ndarray) -> float:
        """A's expected score from the start under per-state cell weights (n, 4); a state
        both sides stall in forever is a draw (the round cap)."""
        n = len(self.states)
        ends, moves = np.zeros(n), np.zeros((n, n))
        for c, cell in enumerate(CELLS):
            e, m = self.payoff_rows(cell)
            ends += weights[:, c] * e
            moves += weights[:, c, None] * m
        stalled = np.isclose(np.diag(moves), 1.0)
        system = np.eye(n) - moves
        rhs = ends.copy()
        system[stalled] = 0
        system[stalled, stalled] = 1
        rhs[stalled] = self.w
        return float(np.linalg.solve(system, rhs)[self.start])


def _weights_simultaneous(a_div: np.ndarray, b_div: np.ndarray) -> np.ndarray:
    return np.stack([(1 - a_div) * (1 - b_div), (1 - a_div) * b_div, a_div * (1 - b_div),
                     a_div * b_div], axis=1)


def _weights_sequential(first_div: np.ndarray, answers: np.ndarray, first: str) -> np.ndarray:
    """``answers[s]`` = (reply to attack, reply to divert) of the second declarer."""
    second_div = np.where(first_div == 1, answers[:, 1], answers[:, 0])
    if first == "A":
        return _weights_simultaneous(first_div, second_div)
    return _weights_simultaneous(second_div, first_div)


def _solve(rules, a, b, w):
    return crt.exact_best_play(rules, (a,), (b,), draw_worth=w)


TINY = dict(extraordinary=False, health="fixed", damage_die=1, max_rounds=5000)


@pytest.mark.parametrize(("bonus", "w"), [(-5, 0.5), (5, 0.5), (-14, 0.9), (20, 0.1),
                                          (-30, 1.0)])
def test_sequential_declarations_match_brute_force(bonus, w):
    # The deficit side declares first, in public (001.5): every stationary deterministic
    # policy of the first (an action per state) against every one of the second (a reply
    # to each declaration per state).  A perfect-information stage game has a pure
    # stationary equilibrium, so max-min and min-max over them both equal the value.
    rules = Rules(fixed_health=2, **TINY)
    tiny = Tiny(rules, bonus, 2, 2, w)
    n = len(tiny.states)
    first = "A" if bonus < 0 else "B"
    table = np.zeros((2 ** n, 4 ** n))  # A's score, first mover's policy x second's
    answer_sets = [np.array(list(itertools.product((0, 1), repeat=2)))[list(choice)]
                   for choice in itertools.product(range(4), repeat=n)]
    for f, first_div in enumerate(itertools.product((0, 1), repeat=n)):
        for g, answers in enumerate(answer_sets):
            weights = _weights_sequential(np.array(first_div, float), answers, first)
            table[f, g] = tiny.evaluate(weights)
    if first == "A":  # A maximises over its declaration, B answers to minimise
        guaranteed, conceded = table.min(axis=1).max(), table.max(axis=0).min()
    else:
        guaranteed, conceded = table.max(axis=1).min(), table.min(axis=0).max()
    assert guaranteed == pytest.approx(conceded, abs=1e-12)
    best = _solve(rules, Combatant(bonus=bonus), Combatant(), w)
    assert best.details["declares_first"] == first
    assert best.details["value"] == pytest.approx(guaranteed, abs=1e-9)
    assert best.a_win + w * best.draw == pytest.approx(best.details["value"], abs=1e-12)


@pytest.mark.parametrize(("bonus", "declarations", "w"), [
    (0, "deficit_first", 0.5), (0, "deficit_first", 0.8), (6, "secret", 0.5),
    (-13, "secret", 0.3)])
def test_simultaneous_declarations_match_brute_force(bonus, declarations, w):
    # At zero (or with declarations written down) each state is a 2x2 game in mixed
    # strategies.  Against each side's equilibrium strategy no deterministic stationary
    # policy of the other does better than the value (an MDP's best reply is one of
    # them), and the pure max-min / min-max bracket it.
    rules = Rules(fixed_health=3, declarations=declarations, **TINY)
    tiny = Tiny(rules, bonus, 3, 2, w)
    n = len(tiny.states)
    best = _solve(rules, Combatant(bonus=bonus, health=3), Combatant(health=2), w)
    value = best.details["value"]
    strategy = best.strategy.set_index(["health_a", "health_b"]).loc[tiny.states]
    a_eq, b_eq = strategy["a_diverts"].to_numpy(), strategy["b_diverts"].to_numpy()
    pure = list(itertools.product((0.0, 1.0), repeat=n))
    table = np.array([[tiny.evaluate(_weights_simultaneous(np.array(a), np.array(b)))
                       for b in pure] for a in pure])
    assert table.min(axis=1).max() <= value + 1e-9
    assert table.max(axis=0).min() >= value - 1e-9
    b_replies = [tiny.evaluate(_weights_simultaneous(a_eq, np.array(b))) for b in pure]
    a_replies = [tiny.evaluate(_weights_simultaneous(np.array(a), b_eq)) for a in pure]
    assert min(b_replies) == pytest.approx(value, abs=1e-9)
    assert max(a_replies) == pytest.approx(value, abs=1e-9)
    assert best.a_win + w * best.draw == pytest.approx(value, abs=1e-12)


def _matrix_game_value(m: np.ndarray) -> float:
    """Value of a zero-sum matrix game (rows maximise), by linear programming."""
    rows, cols = m.shape
    # variables: row mixture x (rows) and value v; maximise v s.t. x^T m[:, j] >= v
    c = np.zeros(rows + 1)
    c[-1] = -1
    a_ub = np.hstack([-m.T, np.ones((cols, 1))])
    result = linprog(c, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=[[1] * rows + [0]], b_eq=[1],
                     bounds=[(0, 1)] * rows + [(None, None)])
    return float(result.x[-1])


@pytest.mark.parametrize(("bonus", "declarations", "max_rounds"), [
    (-13, "deficit_first", 3), (-13, "secret", 4), (0, "deficit_first", 3),
    (9, "deficit_first", 5)])
def test_stalling_for_a_draw_near_the_round_cap(bonus, declarations, max_rounds):
    # With a draw worth a win to A and few rounds, diverting to reach the cap pays: play
    # depends on the rounds left.  Backward induction by recursion, stage games by LP
    # (or by the declaration order), against the solver.
    w = 1.0
    rules = Rules(fixed_health=2, declarations=declarations,
                  **{**TINY, "max_rounds": max_rounds})
    tiny = Tiny(rules, bonus, 2, 2, w)
    n = len(tiny.states)
    rows = [tiny.payoff_rows(cell) for cell in CELLS]
    value = np.full(n, w)
    first = "neither" if declarations == "secret" or bonus == 0 else "A" if bonus < 0 else "B"
    for _ in range(max_rounds):
        payoff = np.array([e + m @ value for e, m in rows])  # (4, n)
        new = np.zeros(n)
        for s in range(n):
            m = payoff[:, s].reshape(2, 2)  # [A diverts][B diverts]
            if first == "neither":
                new[s] = _matrix_game_value(m)
            elif first == "A":
                new[s] = max(m[0].min(), m[1].min())
            else:
                new[s] = min(m[:, 0].max(), m[:, 1].max())
        value = new
    best = _solve(rules, Combatant(bonus=bonus), Combatant(), w)
    assert best.details["value"] == pytest.approx(value[tiny.start], abs=1e-9)
    assert best.a_win + w * best.draw == pytest.approx(best.details["value"], abs=1e-12)
    if bonus < 0:  # the weaker A stalls: some state has him diverting
        assert (best.strategy["a_diverts"] > 0).any()
        assert not best.details["stationary"]


def test_result_contract():
    rules = Rules(extraordinary=False)
    best = crt.exact_best_play(rules, (crt.combatant("duelist", bonus=3),),
                               (crt.presets["duelist"],))
    assert list(best.strategy.columns) == [
        "health_a", "health_b", "declares_first", "a_diverts", "b_diverts",
        "answer_to_attack", "answer_to_divert", "value"]
    assert len(best.strategy) == best.details["states"] == 100
    assert best.details["declares_first"] == "B"  # B has the deficit
    assert best.policies == ("divert: best play for A and B, state by state "
                             "(B declares first, the other answers)",)
    assert best.assumptions and best.details["stationary"]
    assert best.a_win + best.b_win + best.draw == pytest.approx(1, abs=1e-12)
    json_ready = best.to_dict()
    assert json_ready["value"] == best.details["value"] and len(json_ready["strategy"]) == 100
    with pytest.raises(balance.IntractableError, match="no exact best play here"):
        crt.exact_best_play(Rules(), (crt.presets["duelist"],), (crt.presets["duelist"],))
    with pytest.raises(balance.SpecError, match=r"draw_worth must be a number in 0\.\.1"):
        crt.exact_best_play(rules, (crt.presets["duelist"],), (crt.presets["duelist"],),
                            draw_worth=1.5)


def test_own_policies_are_set_aside():
    # best play chooses the diversions: the fighters' own divert fields change nothing
    rules = Rules(extraordinary=False)
    a = crt.combatant("duelist", bonus=-4)
    plain = crt.exact_best_play(rules, (a,), (crt.presets["duelist"],))
    diverter = crt.exact_best_play(rules, (crt.combatant(a, divert="always"),),
                                   (crt.combatant("duelist", divert="random"),))
    assert plain.details["value"] == diverter.details["value"]


def test_stage_games_in_mixed_strategies_match_linear_programming():
    # The duels above settle on pure saddle points; the 2x2 solver's mixed branch is
    # checked here on random games (rows: A attacks / diverts; A maximises).
    from balance.rulesets.crt.exact import _simultaneous

    rng = np.random.default_rng(5)
    games = rng.random((400, 2, 2))
    games[:3] = [[[1, 0], [0, 1]], [[0.3, 0.3], [0.3, 0.3]], [[0.2, 0.9], [0.6, 0.4]]]
    value, a_div, b_div = _simultaneous(games[:, 0, 0], games[:, 0, 1], games[:, 1, 0],
                                        games[:, 1, 1])
    n_mixed = 0
    for k, m in enumerate(games):
        assert value[k] == pytest.approx(_matrix_game_value(m), abs=1e-9)
        a_mix = np.array([1 - a_div[k], a_div[k]])
        b_mix = np.array([1 - b_div[k], b_div[k]])
        assert (a_mix @ m).min() == pytest.approx(value[k], abs=1e-9)  # A guarantees it
        assert (m @ b_mix).max() == pytest.approx(value[k], abs=1e-9)  # B holds A to it
        n_mixed += 0 < a_div[k] < 1
    assert n_mixed > 50
    assert (a_div[1], b_div[1]) == (0.0, 0.0)  # all ties: attack


@pytest.mark.slow
def test_docs_best_play_never_diverts_in_the_plain_duel():
    # docs/crt.md, "Best play": duelist against duelist, advantage -30..+30, health 10
    # each, both declaration orders: no diversion anywhere, value = the never-divert duel's
    duelist = crt.presets["duelist"]
    for declarations in ("deficit_first", "secret"):
        rules = Rules(extraordinary=False, declarations=declarations)
        for bonus in range(-30, 31):
            a = crt.combatant(duelist, bonus=bonus)
            best = crt.exact_best_play(rules, (a,), (duelist,))
            assert not (best.strategy[["a_diverts", "b_diverts"]] > 0).any().any()
            never = balance.exact("crt", a, duelist, rules=rules)
            assert best.details["value"] == pytest.approx(never.a_win + 0.5 * never.draw,
                                                          abs=1e-12)
    even = crt.exact_best_play(Rules(extraordinary=False), (duelist,), (duelist,))
    assert (round(100 * even.a_win, 2), round(100 * even.b_win, 2),
            round(100 * even.draw, 2)) == (48.33, 48.33, 3.34)
