"""The exact game with turns that are not attacks (issues 24 and 20).

The exact pool game holds full defence (``full_defence_bonus`` until the fighter's next
turn), a hopeless attack declined under ``margin_failure_damage`` (-> full defence), aid and
withdrawal: under the fighters' own turn policies its answer is what the Monte Carlo kernel
plays, and under best play (``--play best``) the turn itself is chosen state by state.

* An independent brute force (written here from docs/pool.md alone: every round, turn,
  sealed bid pair and die face enumerated, each exchange a matrix game solved by linear
  programming, the turn chosen by max / min under best play) equals the solver to 1e-9 on
  duels exercising each kind of turn, among them the command of issue 20.
* The kernel (200 000 fights, fixed seed) matches the exact chain on cases exercising each
  kind of turn; a deliberately broken solver (declines ignored) fails the same check.
  Thresholds fixed in advance: ``p > 1e-3`` (a 0.1% false alarm for a correct kernel).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pytest
from scipy.optimize import linprog

import balance
from balance.errors import IntractableError
from balance.random import stream
from balance.rulesets.pool import exact, exact_turns
from balance.rulesets.pool.rules import Combatant, Rules
from balance.stats import gof_pvalue
from balance.testing import reference_outcomes
from tests.pool.test_agreement import TURNS, categories

POOL = balance.get("pool")
WEAPON = {"unarmed": 0, "knife": 2, "sword": 3}
ARMOUR = {"none": 0, "light": 4}


# --- the oracle: a brute force over every turn -------------------------------------------


def fighter(co: int, intellect: int, fort: int, combat: int, wp: int, *, armour: str = "none",
            turn: str = "attack", withdraw: int = 0, pool_policy: str = "equilibrium") -> dict:
    """One fighter's numbers by the rules (003.2), sword in hand, Status 0, and its turn
    policy; ``spec`` is the same fighter for the command line."""
    return {"attack": co + combat, "defence": fort + combat, "pool": (co + intellect) // 2,
            "wp": wp, "armour": ARMOUR[armour], "damage": WEAPON["sword"] + co // 3,
            "order": (-co, -co, -combat), "turn": turn, "withdraw": withdraw,
            "spec": f"coordination={co},intellect={intellect},fortitude={fort},"
                    f"combat={combat},wound_points={wp},armour={armour},turn_policy={turn},"
                    f"withdraw_at={withdraw},pool_policy={pool_policy}"}


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


def brute(fa: dict, fb: dict, *, cap: int, fdb: int = 2, hold: int = 2, worth: float = 0.5,
          die: int = 0, margin: bool = False, mfd: bool = False, best: bool = False) -> float:
    """A's value, P(A wins) + worth x P(draw), of the duel as docs/pool.md tells it, with
    its turn policies (``best``: each turn chosen among attack, full defence, withdrawal)."""
    F = (fa, fb)
    faces = range(1, die + 1) if die else (0,)
    dice = [(x - y, 1.0 / len(faces) ** 2) for x in faces for y in faces]
    low, high = (1, die) if die else (0, 0)
    declining = ("attack", "aid", "aid_if_no_hit")

    def keeps_guard(f: dict) -> bool:  # declares full defence again while nobody can hit
        return not best and (f["turn"] in ("full_defence", "defend_if_no_hit")
                             or (mfd and f["turn"] in declining))

    def hopeless(i: int, state: tuple) -> bool:
        j = 1 - i
        return (F[i]["attack"] + state[4 * i + 2] + high
                <= F[j]["defence"] + fdb * state[4 * j + 3] + low)

    def threat(state: tuple) -> bool:
        return any((best or F[i]["turn"] != "full_defence")
                   and F[i]["attack"] + state[4 * i + 2] + high
                   > F[1 - i]["defence"] + low + fdb * state[4 * (1 - i) + 3]
                   * keeps_guard(F[1 - i]) for i in (0, 1))

    def policy_turn(i: int, state: tuple) -> str:
        f = F[i]
        if f["withdraw"] and state[4 * i + 1] <= f["withdraw"]:
            return "withdraw"
        if f["turn"] == "full_defence" or (f["turn"] == "defend_if_no_hit"
                                           and hopeless(i, state)):
            return "defend"
        if mfd and f["turn"] in declining and hopeless(i, state):
            return "defend"  # a duel has nobody to aid
        return "attack"

    def hurt(s: list, who: int, amount: int) -> bool:
        """Armour first, then Wound Points; whether ``who`` is out."""
        soak = min(s[4 * who], amount)
        s[4 * who] -= soak
        s[4 * who + 1] -= amount - soak
        return s[4 * who + 1] <= 0

    def value(order: tuple[int, int]) -> float:
        @functools.cache
        def V(rnd: int, turn: int, state: tuple, draw_at: int) -> float:
            if turn == 0 and not draw_at and not threat(state):
                if not mfd:
                    return worth
                draw_at = min(rnd + hold - 1, cap)  # the end of the second such round
            i = order[turn]
            s0 = list(state)
            s0[4 * i + 3] = 0  # full defence lasts until the fighter's next turn

            def then(s: list) -> float:
                if turn == 0:
                    return V(rnd, 1, tuple(s), draw_at)
                if rnd in (cap, draw_at):
                    return worth
                return V(rnd + 1, 0, tuple(s), draw_at)

            def attack() -> float:
                j = 1 - i
                M = np.zeros((s0[4 * i + 2] + 1, s0[4 * j + 2] + 1))
                for a, d in np.ndindex(*M.shape):
                    for t, p in dice:
                        s = list(s0)
                        s[4 * i + 2] -= a
                        s[4 * j + 2] -= d
                        m = (F[i]["attack"] + a + t - F[j]["defence"] - fdb * s[4 * j + 3]
                             - d)
                        if m > 0 and hurt(s, j, F[i]["damage"] + (m // 2 if margin else 0)):
                            out = float(i == 0)
                        elif m <= 0 and mfd and (-m) // 2 and hurt(s, i, (-m) // 2):
                            out = float(j == 0)
                        else:
                            out = then(s)
                        M[a, d] += p * out
                return matrix_value(M) if i == 0 else matrix_value(M.T)  # A maximises

            def defend() -> float:
                s = list(s0)
                s[4 * i + 3] = 1
                return then(s)

            withdraw = float(i == 1)  # the side that leaves loses
            if best:
                values = (attack(), defend(), withdraw)
                return max(values) if i == 0 else min(values)
            kind = policy_turn(i, tuple(s0))
            return attack() if kind == "attack" else defend() if kind == "defend" else withdraw

        start = tuple(x for f in F for x in (f["armour"], f["wp"], f["pool"], 0))
        return V(1, 0, start, 0)

    if fa["order"] != fb["order"]:
        return value((0, 1) if fa["order"] < fb["order"] else (1, 0))
    return (value((0, 1)) + value((1, 0))) / 2  # a coin for the order


ISSUE_A = fighter(3, 1, 5, 2, 5)
ISSUE_B = fighter(4, 2, 4, 2, 5)

# (A, B, rules, brute-force options)
CASES = {
    "issue 20's command: declines under the margin of failure": (
        ISSUE_A, ISSUE_B, {"max_rounds": 4, "margin_failure_damage": True},
        {"mfd": True}),
    "the same, 1d6, 6 rounds": (
        ISSUE_A, ISSUE_B, {"max_rounds": 6, "margin_failure_damage": True,
                           "randomiser": "1d6"}, {"mfd": True, "die": 6}),
    "defend_if_no_hit against a withdrawer, 1d6, full defence +3": (
        fighter(3, 2, 5, 2, 5, turn="defend_if_no_hit"), fighter(4, 2, 4, 2, 6, withdraw=3),
        {"max_rounds": 6, "randomiser": "1d6", "full_defence_bonus": 3},
        {"die": 6, "fdb": 3}),
    "full defence always against attack, armour, margins": (
        fighter(3, 3, 5, 2, 4, armour="light", turn="full_defence"), fighter(5, 1, 3, 2, 6),
        {"max_rounds": 5, "margin_damage": True, "margin_failure_damage": True},
        {"margin": True, "mfd": True}),
}


def _sides(fa: dict, fb: dict) -> tuple[tuple[Combatant, ...], tuple[Combatant, ...]]:
    def build(f: dict, name: str) -> Combatant:
        fields = dict(x.split("=") for x in f["spec"].split(","))
        ints = {k: int(v) for k, v in fields.items()
                if k not in ("armour", "turn_policy", "pool_policy")}
        return Combatant(name=name, weapon="sword", armour=fields["armour"],
                         turn_policy=fields["turn_policy"], pool_policy=fields["pool_policy"],
                         **ints)
    return (build(fa, "A"),), (build(fb, "B"),)


@pytest.mark.parametrize("case", list(CASES))
def test_the_solver_equals_the_brute_force_under_the_turn_policies(case):
    fa, fb, rules, options = CASES[case]
    side_a, side_b = _sides(fa, fb)
    got = exact.solve(Rules(**rules), side_a, side_b).details["game_value"]
    assert got == pytest.approx(brute(fa, fb, cap=rules["max_rounds"], **options), abs=1e-9)


@pytest.mark.parametrize("case", list(CASES))
def test_best_play_equals_the_brute_force_choosing_every_turn(case):
    fa, fb, rules, options = CASES[case]
    side_a, side_b = _sides(fa, fb)
    got = POOL.exact_best_play(Rules(**rules), side_a, side_b).details["value"]
    want = brute(fa, fb, cap=rules["max_rounds"], best=True, **options)
    assert got == pytest.approx(want, abs=1e-9)


def test_the_issue_command_answers_with_the_documented_rule():
    """Issue 20's command answers (no refusal), equal to the brute force: neither side can
    win (a side whose pool runs dry declines for full defence, which the other cannot
    beat); with attack_always the attacker's misses still cost it, as before (0.332771)."""
    side_a, side_b = _sides(ISSUE_A, ISSUE_B)
    rules = Rules(max_rounds=4, margin_failure_damage=True)
    competent = exact.solve(rules, side_a, side_b)
    assert competent.details["game_value"] == pytest.approx(
        brute(ISSUE_A, ISSUE_B, cap=4, mfd=True), abs=1e-9)
    always = [dataclasses.replace(c, turn_policy="attack_always") for c in (*side_a, *side_b)]
    assert exact.solve(rules, always[:1], always[1:]).details["game_value"] == pytest.approx(
        0.332771, abs=1e-6)
    assert competent.draw == pytest.approx(1.0)
    # with the digest's rule of thumb for bids the pools run dry and the declines show
    thumbs = [dataclasses.replace(c, pool_policy="minimal_sure_hit") for c in (*side_a, *side_b)]
    thumb = exact.solve(dataclasses.replace(rules, exact_play="policies"), thumbs[:1],
                        thumbs[1:])
    assert thumb.details["turns"] == "A: full defence 3; B: attack 1, full defence 2"


# --- the kernel plays what the game solves ---------------------------------------------------

KERNEL_CASES = {
    # A declines its hopeless attacks (attack 4 + pool 0..1 + 5 against defence 10) for
    # full defence; B's misses cost it; both sides sample the solved bids
    "declines, equilibrium bids, 1d6": (
        Rules(max_rounds=8, margin_failure_damage=True, randomiser="1d6"),
        (Combatant(name="A", coordination=3, intellect=3, fortitude=5, combat=1,
                   wound_points=6, pool_policy="equilibrium"),),
        (Combatant(name="B", coordination=4, intellect=2, fortitude=8, combat=2,
                   wound_points=5, pool_policy="equilibrium"),)),
    # full defence when hopeless, a withdrawal, margins (fixed pool policies)
    "duel: full defence against a withdrawer": TURNS[
        "duel: full defence against a withdrawer, 1d10, margins"],
    # aid, full defence when hopeless, a withdrawal, 2 against 2
    "2 against 2: aid, full defence, withdraw": TURNS[
        "2 against 2: aid, full defence, withdraw, 1d6"],
    # full defence every turn, 1 against 3
    "1 against 3, full defence": TURNS["1 against 3, all full defence but one"],
}
# two guards (attack 5 against the duellist's defence 8, diceless) aid each other once their
# pools are too low to hit alone; the solver solves every core, those no fight reaches
# among them (aid counts at their top), with the same flags
_GUARDS = tuple(Combatant(name=f"guard {k}", coordination=5, intellect=3, fortitude=6,
                          combat=3, weapon="spear", armour="light", wound_points=5,
                          misc_attack=-3, turn_policy="aid_if_no_hit") for k in (1, 2))
_DUELLIST = (Combatant(name="duellist", coordination=7, intellect=5, fortitude=4, combat=4,
                       wound_points=10),)
KERNEL_CASES["2 against 1: aid when hopeless"] = (Rules(max_rounds=10), _GUARDS, _DUELLIST)
KERNEL_CASES["2 against 1: aid when hopeless, equilibrium bids"] = (
    Rules(max_rounds=10), *(tuple(dataclasses.replace(c, pool_policy="equilibrium")
                                  for c in side) for side in (_GUARDS, _DUELLIST)))
_RULES, _A, _B = TURNS["2 against 2: aid, full defence, withdraw, 1d6"]
# the same 2 against 2, every fighter sampling the solved bids: the kernel reads the
# strategies of states that hold full defence and aid
KERNEL_CASES["2 against 2: aid, full defence, withdraw, equilibrium bids"] = (
    dataclasses.replace(_RULES, max_rounds=12),
    tuple(dataclasses.replace(c, pool_policy="equilibrium") for c in _A),
    tuple(dataclasses.replace(c, pool_policy="equilibrium") for c in _B))


def _merged(counts: np.ndarray) -> np.ndarray:
    """A wins (down or withdrawn), B wins, stalemate, cap: the chain's categories."""
    return np.array([counts[0] + counts[4], counts[1] + counts[5], counts[2], counts[3]])


def _p_values(rules, side_a, side_b, key) -> tuple[float, float]:
    dist = exact.outcome_distribution(
        rules if any(c.pool_policy == "equilibrium" for c in (*side_a, *side_b))
        else dataclasses.replace(rules, exact_play="policies"), side_a, side_b)
    out = POOL.simulate(rules, side_a, side_b, n=200_000, rng=stream(2024, "pool-turns", key))
    counts = _merged(categories(out.winner, out.cause))
    rounds = np.bincount(out.rounds, minlength=rules.max_rounds + 1)
    return gof_pvalue(counts, dist.categories()[0]), gof_pvalue(rounds, dist.rounds())


@pytest.mark.parametrize("case", list(KERNEL_CASES))
def test_the_kernel_plays_what_the_exact_game_solves(case):
    p_outcome, p_rounds = _p_values(*KERNEL_CASES[case], case)
    assert p_outcome > 1e-3  # false alarm 0.1% for a correct kernel
    assert p_rounds > 1e-3   # false alarm 0.1% for a correct kernel


@pytest.mark.parametrize("case", ["declines, equilibrium bids, 1d6",
                                  "2 against 2: aid, full defence, withdraw, equilibrium bids"])
def test_the_reference_plays_what_the_exact_game_solves(case):
    """The scalar reference, sampling the solved bids in states with full defence and aid
    held, matches the exact chain (2 000 fights)."""
    rules, side_a, side_b = KERNEL_CASES[case]
    dist = exact.outcome_distribution(rules, side_a, side_b)
    ref = reference_outcomes(POOL, rules, side_a, side_b, 2000,
                             stream(2024, "pool-turns-reference", case))
    counts = _merged(categories(ref.winner, ref.cause))
    assert gof_pvalue(counts, dist.categories()[0]) > 1e-3  # false alarm 0.1%


def test_the_aid_case_aids():
    """The 2 against 1 case really aids (once a fight, by the exact chain)."""
    rules, side_a, side_b = KERNEL_CASES["2 against 1: aid when hopeless"]
    turns = exact.solve(dataclasses.replace(rules, exact_play="policies"), side_a,
                        side_b).details["turns"]
    assert turns.startswith("A: attack ") and ", aid 1;" in turns, turns


def test_a_solver_that_ignores_declines_fails_the_kernel_check(monkeypatch):
    """The check above can fail: a solver whose fighters attack where the kernel's decline
    (the old attack-only game) is told apart on the same seed."""
    real = exact_turns.fixed_kinds

    def attacks_anyway(space, turns, actor, cores):
        kinds = real(space, turns, actor, cores)
        return np.where(kinds == exact_turns.DEFEND, space.targets(actor, cores), kinds)

    monkeypatch.setattr(exact_turns, "fixed_kinds", attacks_anyway)
    exact.clear_cache()
    case = "declines, equilibrium bids, 1d6"
    p_outcome, p_rounds = _p_values(*KERNEL_CASES[case], case)
    exact.clear_cache()
    assert min(p_outcome, p_rounds) < 1e-3


# --- best play: which turns pay ----------------------------------------------------------------


def test_full_defence_pays_under_best_play_and_withdrawal_never_in_a_duel():
    """In the duel of declines (above), choosing the turn moves the value: both sides take
    full defence; a duel's withdrawal is a loss, never chosen."""
    rules, a, b = KERNEL_CASES["declines, equilibrium bids, 1d6"]
    best = POOL.exact_best_play(rules, a, b).details
    attack_only = exact.solve(rules, a, b).details
    assert "full defence" in best["turns"].split(";")[0]
    assert "full defence" in best["turns"].split(";")[1]
    assert "withdrawal" not in best["turns"]
    assert best["value"] != pytest.approx(attack_only["game_value"], abs=1e-6)


def test_best_play_over_the_states_refuses_a_group_too_large_in_one_line():
    militia = POOL.presets["militia"]
    with pytest.raises(IntractableError, match="full defence of") as err:
        POOL.exact_best_play(Rules(), (militia, militia, militia), (POOL.presets["duellist"],))
    assert "\n" not in str(err.value)
