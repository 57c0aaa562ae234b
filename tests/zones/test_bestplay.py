"""Exact best play of the contact duel against the fixed-policy chain, brute force and the
kernel.

The oracles, strongest first: restricting each side to its own policy's plan must give the
fixed-policy Markov chain of ``exact.solve`` to round-off; on tiny duels the game value
must equal an independent recursion over every plan (with the round cap and the stalemate
rule) and the max-min over every deterministic stationary policy pair; the solver's
Shoot / Reload plans are checked against the kernel in distribution.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pytest

import balance
from balance import IntractableError
from balance.dice import pmf
from balance.rulesets.zones.exact import best_play, own_plan, plan_of, plans, solve
from balance.rulesets.zones.rules import Combatant, Rules, category, damage, starting_hp
from balance.stats import gof_pvalue

from .conftest import DUELS, ZONES, joint_counts, kernel_sample

CONTACT = Rules(initial_gap="contact")


def own(rules):
    """Plan sets that hold each side to its own policy's plan (a function of the Reload
    state)."""
    def side(c):
        return lambda loaded: (own_plan(rules, c, loaded),)
    return side


FIXED = {**DUELS, "one defend, steady 2": (
    CONTACT, Combatant(might=3, weapon="light", max_attacks=1, defends=1),
    Combatant(might=1, weapon="two_handed", steady=2, max_attacks=1))}


@pytest.mark.parametrize("name", list(FIXED))
def test_own_plans_reproduce_the_fixed_policy_chain(name):
    rules, a, b = FIXED[name]
    side = own(rules)
    got = best_play(rules, (a,), (b,), plan_sets=(side(a), side(b)))
    chain = solve(rules, (a,), (b,))
    assert got.a_win == pytest.approx(chain.a_win, abs=1e-12)
    assert got.b_win == pytest.approx(chain.b_win, abs=1e-12)
    assert got.draw == pytest.approx(chain.draw, abs=1e-12)
    assert got.mean_rounds == pytest.approx(chain.mean_rounds, abs=1e-9)


@pytest.mark.parametrize("draw_worth", [0.0, 0.5, 1.0])
def test_value_is_the_rates_under_the_equilibrium(draw_worth):
    rules = Rules(initial_gap="contact", max_rounds=4)
    a, b = Combatant(might=2), Combatant(shield=True, armour=2)
    got = best_play(rules, (a,), (b,), draw_worth=draw_worth)
    assert got.a_win + got.b_win + got.draw == pytest.approx(1.0, abs=1e-12)
    assert got.details["value"] == pytest.approx(got.a_win + draw_worth * got.draw, abs=1e-12)


def test_mirror_is_worth_half_and_each_side_plays_alike():
    got = ZONES.exact_best_play(CONTACT, (Combatant(),), (Combatant(),))
    assert got.details["value"] == pytest.approx(0.5, abs=1e-12)
    frame = got.strategy
    key = ["to act", "A HP", "B HP", "foe Defending"]
    a_first = {tuple(r[k] for k in key): r["plan"]
               for r in frame[frame["order"] == "A fighter first"].to_dict("records")}
    b_first = frame[frame["order"] == "B fighter first"].to_dict("records")
    assert len(b_first) == len(a_first)
    # B's plan at (a, b) when B opens is A's plan at (b, a) when A opens
    other = {"A fighter": "B fighter", "B fighter": "A fighter"}
    for r in b_first:
        assert a_first[(other[r["to act"]], r["B HP"], r["A HP"], r["foe Defending"])] \
            == r["plan"]


def test_best_play_is_sandwiched_by_best_responses():
    """Holding A to its own plan and letting B respond can only lower A's value; holding
    B to its own plan can only raise it (a zero-sum game's value lies between)."""
    rules = Rules(initial_gap="contact")
    a, b = ZONES.preset("swordsman"), ZONES.preset("soldier")
    side = own(rules)
    full_a = lambda loaded: plans(rules, a, loaded)  # noqa: E731
    full_b = lambda loaded: plans(rules, b, loaded)  # noqa: E731
    value = best_play(rules, (a,), (b,)).details["value"]
    a_fixed = best_play(rules, (a,), (b,), plan_sets=(side(a), full_b)).details["value"]
    b_fixed = best_play(rules, (a,), (b,), plan_sets=(full_a, side(b))).details["value"]
    both = solve(rules, (a,), (b,))
    assert a_fixed <= value + 1e-12 <= b_fixed + 2e-12
    assert a_fixed <= both.a_win + 0.5 * both.draw + 1e-12 <= b_fixed + 2e-12
    assert b_fixed - a_fixed > 0.01  # the plans matter here


# --- an independent recursion over every plan, with the cap and the stalemate rule -----------

def convolve(a, b):
    out: dict[int, float] = {}
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] = out.get(x + y, 0.0) + px * py
    return out


def sequence_damage(rules, attacker, target, actions, defending):
    dist = {0: 1.0}
    bonus, k = 0, 0
    defence = (target.defence + (rules.shield_defence if target.shield else 0)
               + (rules.defend_defence_bonus if defending else 0))
    for action in actions:
        if action == "Steady":
            bonus = min(bonus + rules.steady_bonus, rules.steady_max)
            continue
        if action != "Strike":
            continue
        one: dict[int, float] = {}
        for roll, p in pmf(3, 6).items():
            total = roll + attacker.might + rules.map[min(k, len(rules.map) - 1)] + bonus
            d = damage(category(total - defence, rules.ladder),
                       int(rules.weapon_damage[attacker.weapon]), target.armour, rules)
            one[d] = one.get(d, 0.0) + float(p)
        dist = convolve(dist, one)
        bonus, k = 0, k + 1
    return dist


SEQUENCES = ("Strike", "Steady", "Defend", "Wait")


def recursive_value(rules, a, b, draw_worth):
    """A's value by plain recursion over (rounds left, whose activation, HP, the target
    Defending, idle rounds, round active so far), every action sequence tried."""
    n = rules.actions_per_activation
    fighters = (a, b)
    seqs = list(itertools.product(SEQUENCES, repeat=n))

    @cache
    def dmg(mover, seq, defending):
        return tuple(sequence_damage(rules, fighters[mover], fighters[1 - mover], seq,
                                     defending).items())

    def value(first):
        @cache
        def v(r, pos, hp, defending, idle, active):
            mover = first if pos == 0 else 1 - first
            outcomes = []
            for seq in seqs:
                acts = any(s in ("Strike", "Steady") for s in seq)
                defends = "Defend" in seq
                total = 0.0
                for d, p in dmg(mover, seq, defending):
                    left = list(hp)
                    left[1 - mover] = max(0, left[1 - mover] - d)
                    if left[1 - mover] == 0:
                        total += p * (1.0 if mover == 0 else 0.0)
                        continue
                    if pos == 0:
                        total += p * v(r, 1, tuple(left), defends, idle, acts)
                        continue
                    idle2 = 0 if (active or acts) else idle + 1
                    if idle2 >= 2 or r == 1:
                        total += p * draw_worth
                    else:
                        total += p * v(r - 1, 0, tuple(left), defends, idle2, False)
                outcomes.append(total)
            return max(outcomes) if mover == 0 else min(outcomes)
        return v(rules.max_rounds, 0, (starting_hp(a, rules), starting_hp(b, rules)), False,
                 0, False)

    return 0.5 * (value(0) + value(1))


@pytest.mark.parametrize(("rules", "a", "b", "draw_worth"), [
    (Rules(initial_gap="contact", hp=3, max_rounds=3, actions_per_activation=2),
     Combatant(might=2, armour=0), Combatant(shield=True, armour=0), 0.5),
    (Rules(initial_gap="contact", hp=4, max_rounds=4, actions_per_activation=3,
           defend_defence_bonus=3, steady_bonus=2, steady_max=4),
     Combatant(might=0, armour=2, weapon="two_handed"), Combatant(might=3, weapon="light"), 0.3),
    (Rules(initial_gap="contact", hp=2, max_rounds=5, actions_per_activation=2,
           defend_defence_bonus=4),
     Combatant(might=0, weapon="light", armour=0), Combatant(might=4, armour=3), 1.0),
])
def test_value_equals_an_independent_recursion(rules, a, b, draw_worth):
    got = best_play(rules, (a,), (b,), draw_worth=draw_worth).details["value"]
    assert got == pytest.approx(recursive_value(rules, a, b, draw_worth), abs=1e-12)


# --- every deterministic stationary policy pair, on tiny duels ------------------------------

def stationary_rows(rules, a, b, choices, draw_worth):
    """The activation-to-activation transition of the fight when each side plays a
    stationary policy (a sequence per (hp_a, hp_b, foe Defending)): for every state the
    row each of its mover's choices gives.  States: (first side, position, hp_a, hp_b,
    target Defending, idle rounds, round active), then absorbing A wins, B wins, draw."""
    fighters = (a, b)
    hp0 = (starting_hp(a, rules), starting_hp(b, rules))
    states = [(first, pos, ha, hb, d, idle, act) for first in (0, 1) for pos in (0, 1)
              for ha in range(1, hp0[0] + 1) for hb in range(1, hp0[1] + 1)
              for d in (False, True) for idle in (0, 1) for act in (False, True)]
    index = {st: i for i, st in enumerate(states)}
    size = len(states) + 3
    win_a, win_b, draw = len(states), len(states) + 1, len(states) + 2
    rows = {}  # (state index, choice) -> row
    for st, i in index.items():
        first, pos, ha, hb, d, idle, act = st
        mover = first if pos == 0 else 1 - first
        for choice, seq in enumerate(choices):
            row = np.zeros(size)
            acts = any(x in ("Strike", "Steady") for x in seq)
            for dmg, p in sequence_damage(rules, fighters[mover], fighters[1 - mover], seq,
                                          d).items():
                hp = [ha, hb]
                hp[1 - mover] = max(0, hp[1 - mover] - dmg)
                if hp[1 - mover] == 0:
                    row[win_a if mover == 0 else win_b] += p
                elif pos == 0:
                    row[index[(first, 1, hp[0], hp[1], "Defend" in seq, idle, acts)]] += p
                else:
                    idle2 = 0 if (act or acts) else idle + 1
                    if idle2 >= 2:
                        row[draw] += p
                    else:
                        row[index[(first, 0, hp[0], hp[1], "Defend" in seq, idle2, False)]] += p
            rows[i, choice] = row
    starts = [index[(first, 0, hp0[0], hp0[1], False, 0, False)] for first in (0, 1)]
    return states, rows, starts, (win_a, win_b, draw), size


@pytest.mark.parametrize(("rules", "a", "b", "choices"), [
    (Rules(initial_gap="contact", hp=1, actions_per_activation=2, max_rounds=512),
     Combatant(might=1, armour=0), Combatant(might=2, armour=1, shield=True),
     None),  # every plan, 2 decision states a side
    (Rules(initial_gap="contact", actions_per_activation=2, max_rounds=512),
     Combatant(might=3, hp=2, armour=0, weapon="light"),
     Combatant(might=1, hp=1, armour=0, weapon="light"),
     (("Strike", "Strike"), ("Steady", "Strike"), ("Strike", "Defend"))),  # 4 states a side
])
def test_value_is_the_maxmin_over_stationary_policies(rules, a, b, choices):
    """Every deterministic stationary policy of each side (a plan per (hp_a, hp_b, foe
    Defending)), each pair played exactly for ``max_rounds`` = 512 rounds (the transition
    matrix to the power 1024 activations: what is left is the capped draw); the max-min
    equals the solver's value."""
    draw_worth = 0.5
    if choices is None:  # one sequence per distinct plan, the solver's own list
        choices = tuple(p.actions for p in plans(rules, a))
        assert choices == tuple(p.actions for p in plans(rules, b))
    hp = (starting_hp(a, rules), starting_hp(b, rules))
    cells = [(ha, hb, d) for ha in range(1, hp[0] + 1) for hb in range(1, hp[1] + 1)
             for d in (False, True)]
    states, rows, starts, (win_a, win_b, _), size = stationary_rows(rules, a, b, choices,
                                                                   draw_worth)
    picks = list(itertools.product(range(len(choices)), repeat=len(cells)))

    def block(side, pick):
        """The rows of the states where ``side`` moves, under its policy ``pick``."""
        policy = dict(zip(cells, pick, strict=True))
        out = np.zeros((size, size))
        for i, (first, pos, ha, hb, d, _, _) in enumerate(states):
            if (first if pos == 0 else 1 - first) == side:
                out[i] = rows[i, policy[(ha, hb, d)]]
        return out

    absorbing = np.zeros((size, size))
    for k in range(len(states), size):
        absorbing[k, k] = 1.0
    b_blocks = np.stack([block(1, pick) for pick in picks])
    steps = int(np.log2(2 * rules.max_rounds))
    assert 2**steps == 2 * rules.max_rounds
    best = -1.0
    for pick in picks:
        power = block(0, pick)[None] + b_blocks + absorbing[None]
        for _ in range(steps):
            power = power @ power
        reach = power[:, starts, :].mean(axis=1)     # both first sides, a coin
        value = reach[:, win_a] + draw_worth * (1 - reach[:, win_a] - reach[:, win_b])
        best = max(best, float(value.min()))
    subset_a = [plan_of(rules, a, seq, True) for seq in choices]
    subset_b = [plan_of(rules, b, seq, True) for seq in choices]
    got = best_play(rules, (a,), (b,), draw_worth=draw_worth,
                    plan_sets=(lambda loaded: subset_a, lambda loaded: subset_b))
    assert got.details["value"] == pytest.approx(best, abs=1e-10)


# --- Shoot and Reload: the solver's fixed policy against the kernel --------------------------

def test_shooting_in_contact_matches_the_kernel():
    """A crossbowman who prefers its bolt in contact (Reload, Shoot) against a swordsman: the
    game held to both own policies against 200,000 kernel fights."""
    rules = Rules(initial_gap="contact", max_rounds=30)
    a = Combatant(name="crossbowman", agility=2, weapon="light", ranged="crossbow", armour=2,
                  policy="hold", melee_first=False, steady=1, max_attacks=1)
    b = ZONES.preset("swordsman")
    side = own(rules)
    got = best_play(rules, (a,), (b,), plan_sets=(side(a), side(b)))
    out = kernel_sample(rules, (a,), (b,), 200_000, seed=31)
    assert got.details["states"] > 0
    p_a = np.mean(out.winner == 1)
    # the chain's rates, and the kernel within 4.5 standard errors (two-sided p ~ 7e-6)
    se = np.sqrt(got.a_win * (1 - got.a_win) / 200_000)
    assert abs(p_a - got.a_win) < 4.5 * se
    # a finer check: the winner by the round it fell (chi-square, false alarm 0.1%)
    observed = joint_counts(out.winner, out.rounds, rules.max_rounds)
    expected = best_play_rounds(rules, a, b)
    assert gof_pvalue(observed, expected) > 1e-3


def best_play_rounds(rules, a, b):
    from balance.rulesets.zones.exact import _BestPlay

    side = own(rules)
    game = _BestPlay(rules, (a,), (b,), 0.5, (side(a), side(b)))
    out = np.zeros((3, rules.max_rounds + 1))
    for first in (0, 1):
        run = game.chain(game.solve_order(first))
        out[1] += 0.5 * run["ends"]["a"]
        out[2] += 0.5 * run["ends"]["b"]
        out[0] += 0.5 * run["ends"]["stalemate"]
        out[0, rules.max_rounds] += 0.5 * run["capped"]
    return out.reshape(-1)


# --- the hook, its table and its limits ----------------------------------------------------

def test_strategy_table_names_plans_in_the_games_words():
    got = ZONES.exact_best_play(CONTACT, (ZONES.preset("swordsman"),),
                                (ZONES.preset("soldier"),))
    frame = got.strategy
    assert {"to act", "A HP", "B HP", "foe Defending", "plan", "visits", "value"} <= set(frame)
    names = {p.name for p in plans(CONTACT, ZONES.preset("swordsman"))}
    assert len(names) == 14  # docs/zones.md
    assert set(frame["plan"]) <= names
    assert frame["visits"].iloc[0] == pytest.approx(1.0)  # the opening state
    assert got.details["opening"].startswith("swordsman first: ")
    assert got.policies and "best play" in got.policies[0]
    assert any(a.startswith("armour_mode=") for a in got.assumptions)


@pytest.mark.parametrize(("might", "two_strikes_defend", "three_strikes"),
                         [(1, 0.9385, 0.0), (3, 0.4425, 0.5398)])
def test_the_third_attack_under_best_play(might, two_strikes_defend, three_strikes):
    """002.9 q1 under best play, a mirror of default fighters at Might 1 and 3 (net
    modifier 0 and +2 against Defence 1), as ``docs/zones.md`` quotes it: the share of
    the equilibrium fight's activations (visits) spent on each plan."""
    a = Combatant(might=might)
    got = ZONES.exact_best_play(CONTACT, (a,), (a,))
    frame = got.strategy
    share = frame.groupby("plan")["visits"].sum() / frame["visits"].sum()
    assert share["Strike, Strike, Defend"] == pytest.approx(two_strikes_defend, abs=5e-5)
    thirds = sum(v for plan, v in share.items() if plan.count("Strike") == 3)
    assert thirds == pytest.approx(three_strikes, abs=5e-5)
    assert got.details["value"] == pytest.approx(0.5, abs=1e-12)


@pytest.mark.parametrize(("a", "b", "rules", "match"), [
    ((Combatant(), Combatant()), (Combatant(),), CONTACT, "1-against-1"),
    ((Combatant(),), (Combatant(),), Rules(), "one location"),
])
def test_unsupported_matchups_raise(a, b, rules, match):
    with pytest.raises(IntractableError, match=match):
        ZONES.exact_best_play(rules, a, b)


def test_a_crossbowman_shoots_point_blank_under_best_play():
    """docs/zones.md: held to its default policy a crossbowman strikes a swordsman (22.26%);
    under best play it shoots (80.44%)."""
    rules = ZONES.rules(initial_gap="contact")
    a, b = ZONES.side("crossbowman"), ZONES.side("swordsman")
    best = ZONES.exact_best_play(rules, a, b)
    assert round(100 * ZONES.exact(rules, a, b).a_win, 2) == 22.26
    assert round(100 * best.a_win, 2) == 80.44
    assert best.details["opening"].startswith("crossbowman first: Shoot, Reload")


def test_api_reaches_the_hook():
    rs = balance.get("zones")
    got = rs.exact_best_play(rs.rules(initial_gap="contact"), rs.side("heavy"),
                             rs.side("soldier"), draw_worth=0.0)
    assert 0.99 < got.details["value"] <= 1.0
