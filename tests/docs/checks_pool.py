"""docs/pool.md: the solver's settings and tolerances, and the five exact experiments (their
cells, solved exactly, so every figure is compared to its printed digits)."""

from __future__ import annotations

import inspect

import balance

from .experiments import cell, experiment
from .figures import Claims, allow, check

POOL = "docs/pool.md"
COFORT = "pool-coordination-vs-fortitude"
INTELLECT = "pool-intellect"
PROTOCOL = "pool-bid-protocol"
STATUS = "pool-status"
ARMOUR = "pool-armour-vs-fortitude"

allow(POOL, "wall times measured by hand under the load the page states, not results (the "
      "benchmarked exact solve is the README's speed table, recorded from `balance bench`)",
      "| 43,218 | 6.5-8 s |", "| 43,218 | 12-15 s |", "| 43,218 | 2.5-5 / 7 / 16 s |",
      "| 155,682 | 56 / 59 s |", "| 406,802 | 110 s |", "| 75,600 x 2 | 6 s |",
      "| 154,350 x 2 | 37 s |", "| 30,720 x 6 | 30 s |", "where memory nears 1 GB",
      "100 cells, 30-55 s on 2 shared cores", "60 cells, 20-35 s", "147 cells, 35-65 s",
      "18 cells, ~10 s", "32 cells, ~10 s")


@check(POOL, "**Objective** (`draw_worth`, default 0.5): A maximises P(A wins) + draw_worth x "
             "P(draw), B minimises it.  0.5 is the same as maximising P(A wins) - P(B wins).",
       given=["0.5 is the same"])  # P(A) + P(draw) / 2 = (1 + P(A) - P(B)) / 2
def pool_draw_worth(c: Claims) -> None:
    c.exact("default 0.5", balance.get("pool").rules().draw_worth)


@check(POOL, "agrees with the solver to 1e-10 on sealed, informed, randomised, margin, armour, "
             "tie-order and 2v1 fights")
def pool_brute_force_tolerance(c: Claims) -> None:
    from tests.pool import test_exact
    source = inspect.getsource(test_exact)
    c.holds("1e-10", source.count("abs=1e-10") >= 2, "the brute-force tests' tolerance")


@check(POOL, "chi- square with thresholds fixed in advance (p > 1e-3)")
def pool_agreement_threshold(c: Claims) -> None:
    from tests.pool import test_agreement
    source = inspect.getsource(test_agreement)
    c.holds("1e-3", source.count("> 1e-3") >= 2, "the agreement tests' threshold")


@check(POOL, "cap 50 rounds")
def pool_cap(c: Claims) -> None:
    c.exact("50 rounds", balance.get("pool").rules().max_rounds)


@check(POOL, "the limit is 1,000,000 states (`exact.MAX_STATES`)")
def pool_state_limit(c: Claims) -> None:
    from balance.rulesets.pool import exact
    c.exact("1,000,000 states", exact.MAX_STATES)


# ---------------------------------------------------------------------------------------------
# Intellect (60 cells)

def _intellect(co: int, play: str = "equilibrium"):
    return experiment(INTELLECT, {"a.0.coordination": [co], "rules.exact_play": [play]}
                      ).set_index("a.0.intellect")


@check(POOL, "A's value goes 0.00, 0.09, 0.50, 0.85, 0.98, 1.00 as the pool goes 2..7 (two "
             "Intellect points a pool point)", slow=True)
def pool_intellect_even_fight(c: Claims) -> None:
    table = _intellect(4)
    # pool = (Co + Int) // 2: Intellect 1, 2, 4, 6, 8, 10 give pools 2 .. 7
    by_pool = {(4 + i) // 2: table.loc[i, "game_value"] for i in table.index}
    assert sorted(by_pool) == [2, 3, 4, 5, 6, 7]
    c.exact("0.00, 0.09, 0.50, 0.85, 0.98, 1.00", *(by_pool[p] for p in range(2, 8)))
    same = all(table.loc[i, "game_value"] == table.loc[i + 1, "game_value"]
               for i in table.index[:-1] if (4 + i) // 2 == (5 + i) // 2)
    c.holds("two Intellect points a pool point", same, "values differ within one pool")


@check(POOL, "at Co 5 A wins whatever its pool; at Co 3 A's win chance stays 0 up to Intellect 8 "
             "and reaches only 1.0% at 9-10, but the pool turns losses into stalemates (B's "
             "wins fall from 99.5% to 82.6%, draws rise to 16.4%), so the underdog's value "
             "grows from 0.002 to 0.092.", given=["Co 5", "Co 3", "9-10"], slow=True)
def pool_intellect_across_a_gap(c: Claims) -> None:
    five, three = _intellect(5), _intellect(3)
    c.holds("A wins whatever its pool", (five["a_win"] == 1.0).all(), str(five["a_win"]))
    c.holds("stays 0 up to Intellect 8", (three.loc[:8, "a_win"] == 0).all(),
            str(three["a_win"]))
    c.exact("1.0%", three.loc[9, "a_win"])
    c.exact("1.0%", three.loc[10, "a_win"])
    c.exact("99.5% to 82.6%", three.loc[1, "b_win"], three.loc[10, "b_win"])
    c.exact("16.4%", three.loc[10, "draw"])
    c.exact("0.002 to 0.092", three.loc[1, "game_value"], three.loc[10, "game_value"])


@check(POOL, "Under the digest's `minimal_sure_hit` rule of thumb (computed exactly with "
             "`exact_play = \"policies\"`) more pool is not even monotone", slow=True)
def pool_rule_of_thumb(c: Claims) -> None:
    tables = [_intellect(co, "policies")["a_win"] for co in (3, 4, 5)]
    c.holds("not even monotone", any(not t.is_monotonic_increasing for t in tables),
            str([t.round(3).tolist() for t in tables]))


# ---------------------------------------------------------------------------------------------
# Bid protocol (147 cells)

@check(POOL, "(e.g. scholar against average: 0.92 sealed, 0.5 attacker first, 1.0 defender "
             "first)")
def pool_protocol_example(c: Claims) -> None:
    table = experiment(PROTOCOL, {"a.0.preset": ["scholar"], "b.0.preset": ["average"]})
    for snippet, protocol in (("0.92 sealed", "sealed"), ("0.5 attacker first", "attacker_first"),
                              ("1.0 defender first", "defender_first")):
        c.exact(snippet, cell(table, rules_bid_protocol=protocol).game_value)


# ---------------------------------------------------------------------------------------------
# Status (18 cells)

@check(POOL, "the average mirror is 28.8% / 28.8% / 42.4% draws with a coin for the order; A "
             "acting second (any Status from 1 to 5) falls to 22.0% against 35.7% -- acting "
             "first is worth 6.9 points of win chance in the race to 0 WP",
       given=["Status from 1 to 5"])
def pool_status_initiative(c: Claims) -> None:
    table = experiment(STATUS, {"rules.status_in_checks": [0]}).set_index("a.0.status")
    mirror = table.loc[0]
    c.exact("28.8% / 28.8% / 42.4%", mirror.a_win, mirror.b_win, mirror.draw)
    for status in range(1, 6):
        c.exact("22.0% against 35.7%", table.loc[status, "a_win"], table.loc[status, "b_win"])
    # acting first for sure, against a coin for the order
    c.exact("6.9 points", table.loc[1, "b_win"] - mirror.b_win, scale=100)


@check(POOL, "With Status in the checks (`status_in_checks` 1 or 2) a single Status point is "
             "decisive: +1 to attack and defence wins with certainty in 3 rounds.")
def pool_status_in_checks(c: Claims) -> None:
    table = experiment(STATUS, {"a.0.status": [1], "rules.status_in_checks": [1, 2]})
    c.holds("wins with certainty", (table["a_win"] == 1.0).all(), str(table["a_win"].tolist()))
    for rounds in table["mean_rounds"]:
        c.exact("3 rounds", rounds)


# ---------------------------------------------------------------------------------------------
# Armour against Fortitude (32 cells)

@check(POOL, "While the duellist out-attacks A's defence (Fort + 2 < 11) A loses with certainty "
             "whatever its armour: armour's Wound Points only make the loss last longer (5 -> 8 "
             "rounds at Fort 8). Where defence meets attack (Fort 9), every hit must be bought "
             "from the pool, and any armour turns B's 59% into a certain stalemate; at Fort 10 "
             "nobody can win.", given=["Fort 8", "Fort 9", "Fort 10"], slow=True)
def pool_armour(c: Claims) -> None:
    table = experiment(ARMOUR)
    below = table[table["a.0.fortitude"] <= 8]
    c.holds("loses with certainty", (below["b_win"] == 1.0).all(), str(below["b_win"].tolist()))
    c.exact("5 -> 8 rounds", cell(table, a_0_fortitude=8, a_0_armour="none").mean_rounds,
            cell(table, a_0_fortitude=8, a_0_armour="heavy").mean_rounds)
    c.exact("59%", cell(table, a_0_fortitude=9, a_0_armour="none").b_win)
    armoured = [cell(table, a_0_fortitude=9, a_0_armour=a).draw for a in ("light", "medium",
                                                                           "heavy")]
    c.holds("certain stalemate", armoured == [1.0, 1.0, 1.0], str(armoured))
    top = table[table["a.0.fortitude"] == 10]
    c.holds("nobody can win", (top["draw"] == 1.0).all(), str(top["draw"].tolist()))


# ---------------------------------------------------------------------------------------------
# Co-ordination x Fortitude (100 cells)

def _cofort():
    table = experiment(COFORT)
    return (table[table["a.0.coordination"] > table["b.0.fortitude"]],
            table[table["a.0.coordination"] < table["b.0.fortitude"]],
            table[table["a.0.coordination"] == table["b.0.fortitude"]
                  ].set_index("a.0.coordination"))


@check(POOL, "A wins with certainty whenever Co > Fort and never wins whenever Co < Fort -- the "
             "pool never overturns even a one-point gap between attack and defence at average "
             "Intellect (003.5 q3: the underdog's equilibrium chance is 0 at g = 1; a much "
             "bigger pool buys a little, see Intellect).  It is not a certain loss: the "
             "underdog's pool buys stalemates, 0.5% of fights at Co 1 rising to 6.4% at Co 8 "
             "and 9, whatever the gap.  Only the diagonal is contested, and there Fortitude's "
             "Wound Points usually beat Co-ordination's pool, initiative and damage (A's value "
             "0.05 at Co = Fort = 3 and 5, 0.04 at 7, 0.28 at 9; 0.28-0.65 at the even ones, "
             "where A's pool grows; 0.90 at 1).", given=["Co 1", "Co 8 and 9"], slow=True)
def pool_coordination_against_fortitude(c: Claims) -> None:
    above, below, diagonal = _cofort()
    c.holds("A wins with certainty", (above["a_win"] == 1.0).all(), "")
    c.holds("never wins", (below["a_win"] == 0.0).all(), str(below["a_win"].max()))
    draws = below.groupby("a.0.coordination")["draw"]
    c.holds("whatever the gap", bool((draws.max() - draws.min() < 1e-12).all()),
            str(draws.agg(["min", "max"])))
    by_co = draws.first()
    c.exact("0.5%", by_co[1])
    c.exact("6.4%", by_co[8])
    c.holds("rising", by_co.is_monotonic_increasing and by_co[9] == by_co[8], str(by_co))
    value = diagonal["game_value"]
    c.holds("usually beat", (value < 0.5).sum() > len(value) / 2, str(value.round(3)))
    c.exact("0.05", value[3])
    c.exact("0.05", value[5])
    c.exact("0.04", value[7])
    c.exact("0.28", value[9])
    even = value[value.index % 2 == 0]
    c.exact("0.28-0.65", even.min(), even.max())
    c.exact("0.90", value[1])


@check("experiments/README.md",
       "(the underdog's equilibrium chance of winning is 0, though its pool buys it "
       "stalemates: at most 6.4% of fights)", slow=True)
def pool_underdog_stalemates(c: Claims) -> None:
    _, below, _ = _cofort()
    c.holds("chance of winning is 0", (below["a_win"] == 0.0).all(), "")
    c.exact("6.4%", below["draw"].max())
