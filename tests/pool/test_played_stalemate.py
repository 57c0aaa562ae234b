"""A stalemate under ``margin_failure_damage`` is played out (issue 20).

docs/pool.md: the stalemate test is made at the start of each round, and the fight is a
draw at the end of the second such round (``stalemate_rounds``).  Where a miss costs the
attacker, those rounds still matter: an attacker who cannot hit may be worn down by its own
misses.  The exact solver, the kernel and the reference all play them.

The check of the solver is a brute force written here from the rules' text alone: every
turn of every round, every pair of sealed bids and every face of the dice enumerated, each
exchange a matrix game solved by linear programming -- no code of the package beyond the
public entry it is compared with.

Statistical checks use a fixed seed and a threshold fixed in advance: ``p > 1e-3`` (a 0.1%
false alarm for a correct kernel).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.optimize import linprog

import balance
from balance.random import stream
from balance.stats import gof_pvalue

WEAPON = {"unarmed": 0, "knife": 2, "sword": 3}
ARMOUR = {"none": 0, "light": 4}


def fighter(co: int, intellect: int, fort: int, combat: int, wp: int, armour: str = "none"
            ) -> dict:
    """One fighter's numbers by the rules (003.2), sword in hand, Status 0."""
    return {"attack": co + combat, "defence": fort + combat, "pool": (co + intellect) // 2,
            "wp": wp, "armour": ARMOUR[armour], "damage": WEAPON["sword"] + co // 3,
            "order": (-co, -co, -combat),  # higher Turn Value, Co, Combat first
            "spec": f"coordination={co},intellect={intellect},fortitude={fort},"
                    f"combat={combat},wound_points={wp},armour={armour},"
                    "turn_policy=attack_always"}  # every turn an attack, as the game plays


def matrix_value(M: np.ndarray) -> float:
    """max over the row player's mixes of min over the columns (linear programming)."""
    m, n = M.shape
    res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.hstack([-M.T, np.ones((n, 1))]),
                  b_ub=np.zeros(n), A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs",
                  options={"primal_feasibility_tolerance": 1e-10,
                           "dual_feasibility_tolerance": 1e-10})
    assert res.status == 0, res.message
    return float(res.x[-1])


def brute(fa: dict, fb: dict, *, cap: int, hold: int = 2, worth: float = 0.5,
          die: int = 0, margin: bool = False, stalemate_played: bool = True) -> float:
    """A's value, P(A wins) + worth x P(draw), of the duel as docs/pool.md tells it
    (``stalemate_played=False``: the old reading, a draw the moment nobody can hit)."""
    F = (fa, fb)
    faces = range(1, die + 1) if die else (0,)
    dice = [(x - y, 1.0 / len(faces) ** 2) for x in faces for y in faces]
    low, high = (1, die) if die else (0, 0)

    def hurt(state: list, who: int, amount: int) -> bool:
        """Armour first, then Wound Points; whether ``who`` is out."""
        soak = min(state[3 * who], amount)
        state[3 * who] -= soak
        state[3 * who + 1] -= amount - soak
        return state[3 * who + 1] <= 0

    def value(order: tuple[int, int]) -> float:
        @functools.cache
        def V(rnd: int, turn: int, state: tuple, draw_at: int) -> float:
            if turn == 0 and not draw_at and not any(
                    F[i]["attack"] + state[3 * i + 2] + high > F[1 - i]["defence"] + low
                    for i in (0, 1)):
                if not stalemate_played:
                    return worth
                draw_at = min(rnd + hold - 1, cap)  # the end of the second such round
            i = order[turn]
            j = 1 - i
            M = np.zeros((state[3 * i + 2] + 1, state[3 * j + 2] + 1))
            for a, d in np.ndindex(*M.shape):
                for t, p in dice:
                    s = list(state)
                    s[3 * i + 2] -= a
                    s[3 * j + 2] -= d
                    m = F[i]["attack"] + a + t - F[j]["defence"] - d
                    if m > 0 and hurt(s, j, F[i]["damage"] + (m // 2 if margin else 0)):
                        out = float(i == 0)  # the attacker's side wins
                    elif m <= 0 and (-m) // 2 and hurt(s, i, (-m) // 2):
                        out = float(j == 0)  # the attacker fell to its own miss
                    elif turn == 0:
                        out = V(rnd, 1, tuple(s), draw_at)
                    elif rnd in (cap, draw_at):
                        out = worth
                    else:
                        out = V(rnd + 1, 0, tuple(s), draw_at)
                    M[a, d] += p * out
            # the attacker picks the row; side A maximises, B minimises
            return matrix_value(M) if i == 0 else matrix_value(M.T)

        return V(1, 0, tuple(x for f in F for x in (f["armour"], f["wp"], f["pool"])), 0)

    if fa["order"] != fb["order"]:
        return value((0, 1) if fa["order"] < fb["order"] else (1, 0))
    return (value((0, 1)) + value((1, 0))) / 2  # a coin for the order


# (A, B, rules, brute-force options)
CASES = {
    "the issue's duel, 4 rounds": (
        fighter(3, 1, 5, 2, 5), fighter(4, 2, 4, 2, 5), {"max_rounds": 4}, {}),
    "1d6, 3 rounds": (
        fighter(3, 1, 5, 2, 4), fighter(4, 2, 4, 1, 4), {"max_rounds": 3, "randomiser": "1d6"},
        {"die": 6}),
    "armour, margin of success, coin for the order, 5 rounds": (
        fighter(3, 1, 5, 1, 4, "light"), fighter(3, 3, 4, 1, 6),
        {"max_rounds": 5, "margin_damage": True}, {"margin": True}),
    "three stalemate rounds, 5 rounds": (
        fighter(3, 2, 5, 2, 5), fighter(4, 2, 4, 2, 6), {"max_rounds": 5, "stalemate_rounds": 3},
        {"hold": 3}),
}


def _exact(case: str, **extra) -> balance.Probabilities:
    fa, fb, rules, _ = CASES[case]
    return balance.exact("pool", fa["spec"], fb["spec"], margin_failure_damage=True,
                         **rules, **extra)


@pytest.mark.parametrize("case", list(CASES))
def test_exact_equals_the_brute_force(case):
    fa, fb, rules, options = CASES[case]
    want = brute(fa, fb, cap=rules["max_rounds"], **options)
    got = _exact(case)
    assert got.details["game_value"] == pytest.approx(want, abs=1e-12)
    # the outcome chain under the solved strategies books the same value
    assert got.a_win + 0.5 * got.draw == pytest.approx(want, abs=1e-12)
    assert got.a_win + got.b_win + got.draw == pytest.approx(1.0, abs=1e-12)


def test_the_issue_command_gives_the_documented_value():
    """`balance exact pool ... --rule max_rounds=4 --rule margin_failure_damage=true`:
    0.4167 when the stalemate was a draw at once, 0.3328 with its rounds played."""
    fa, fb, _, _ = CASES["the issue's duel, 4 rounds"]
    assert brute(fa, fb, cap=4, stalemate_played=False) == pytest.approx(5 / 12, abs=1e-12)
    assert _exact("the issue's duel, 4 rounds").details["game_value"] == pytest.approx(
        0.332770982708, abs=1e-11)


@pytest.mark.parametrize("case", ["the issue's duel, 4 rounds",
                                  "three stalemate rounds, 5 rounds"])
def test_the_cases_reach_a_played_stalemate(case):
    """The cases test what changed: the old reading gives another value."""
    fa, fb, rules, options = CASES[case]
    assert abs(brute(fa, fb, cap=rules["max_rounds"], **options)
               - brute(fa, fb, cap=rules["max_rounds"], stalemate_played=False, **options)
               ) > 0.01


@pytest.mark.parametrize("policy", ["equilibrium", "random_mixed"])
def test_kernel_and_reference_agree_with_the_exact_distribution(policy):
    """200 000 kernel fights and 2 000 reference fights against the exact outcome
    distribution (A down, B down, stalemate, cap) and fight lengths: each p > 1e-3."""
    fa, fb, rules, _ = CASES["the issue's duel, 4 rounds"]
    pool = balance.get("pool")
    play = {} if policy == "equilibrium" else {"exact_play": "policies"}
    r = pool.rules(margin_failure_damage=True, **rules, **play)
    side_a = pool.side(fa["spec"] + f",pool_policy={policy}")
    side_b = pool.side(fb["spec"] + f",pool_policy={policy}")
    from balance.rulesets.pool import exact

    dist = exact.outcome_distribution(r, side_a, side_b)
    probs, _ = dist.categories()
    assert probs[2] > 0.05  # stalemates are there to be played
    causes = tuple(pool.causes)
    for n, rng in ((200_000, stream(20, "played-stalemate", policy)),
                   (2_000, stream(20, "played-stalemate-reference", policy))):
        if n == 2_000:
            from balance.testing import reference_outcomes

            out = reference_outcomes(pool, r, side_a, side_b, n, rng)
        else:
            out = pool.simulate(r, side_a, side_b, n=n, rng=rng)
        w, c = np.asarray(out.winner), np.asarray(out.cause)
        counts = np.array([np.sum(w == 1), np.sum(w == 2),
                           np.sum((w == 0) & (c == causes.index("stalemate"))),
                           np.sum((w == 0) & (c == causes.index("max_rounds")))])
        assert counts.sum() == n
        assert gof_pvalue(counts, probs) > 1e-3  # false alarm 0.1%
        rounds = np.bincount(out.rounds, minlength=r.max_rounds + 1)
        assert gof_pvalue(rounds, dist.rounds()) > 1e-3  # false alarm 0.1%


def test_a_group_fight_plays_its_stalemate_alike_in_kernel_and_exact():
    """Two against one under fixed policies: a played stalemate in a group fight (a fighter
    who falls to its own miss passes the turn on).  100 000 kernel fights against the exact
    outcome distribution and fight lengths: each p > 1e-3 (a 0.1% false alarm)."""
    from balance.rulesets.pool import exact

    pool = balance.get("pool")
    r = pool.rules(margin_failure_damage=True, max_rounds=8, exact_play="policies")
    always = ",turn_policy=attack_always"  # every turn an attack, as the game plays
    side_a = pool.side([
        "coordination=3,intellect=2,fortitude=5,combat=2,wound_points=4,pool_policy=random_mixed"
        + always,
        "coordination=3,intellect=1,fortitude=4,combat=1,wound_points=3,pool_policy=all_in_first"
        + always])
    side_b = pool.side("coordination=4,intellect=2,fortitude=5,combat=2,wound_points=5,"
                       "pool_policy=random_mixed" + always)
    dist = exact.outcome_distribution(r, side_a, side_b)
    probs, _ = dist.categories()
    assert probs[1] > 0.1 and probs[2] > 0.1  # B wins in some, others end in a stalemate
    out = pool.simulate(r, side_a, side_b, n=100_000, rng=stream(20, "played-stalemate-group"))
    causes = tuple(pool.causes)
    w, c = np.asarray(out.winner), np.asarray(out.cause)
    counts = np.array([np.sum(w == 1), np.sum(w == 2),
                       np.sum((w == 0) & (c == causes.index("stalemate"))),
                       np.sum((w == 0) & (c == causes.index("max_rounds")))])
    assert gof_pvalue(counts, probs) > 1e-3  # false alarm 0.1%
    rounds = np.bincount(out.rounds, minlength=r.max_rounds + 1)
    assert gof_pvalue(rounds, dist.rounds()) > 1e-3  # false alarm 0.1%
