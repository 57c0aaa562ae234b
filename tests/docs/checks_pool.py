"""docs/pool.md: the solver's settings and tolerances, and the five exact experiments (their
cells, solved exactly, so every figure is compared to its printed digits)."""

from __future__ import annotations

import inspect

import balance

from .experiments import cell, experiment
from .figures import Claims, allow, check, cli_json

POOL = "docs/pool.md"
COFORT = "pool-coordination-vs-fortitude"
INTELLECT = "pool-intellect"
PROTOCOL = "pool-bid-protocol"
STATUS = "pool-status"
ARMOUR = "pool-armour-vs-fortitude"

allow(POOL, "a rough memory size the page gives with the limit, not a result",
      "memory near 1 GB")
allow(POOL, "issue 24's requirement for the benchmark, not a result", "at most 5 times")


@check(POOL, "agrees with the solver to 1e-9 on duels exercising each kind of turn, issue 20's "
             "command among them; the kernel matches the exact chain on a case per kind of "
             "turn (p > 1e-3)")
def pool_turns_tolerances(c: Claims) -> None:
    from tests.pool import test_exact_turns
    source = inspect.getsource(test_exact_turns)
    c.holds("1e-9", source.count("abs=1e-9") >= 3, "the brute-force tests' tolerance")
    c.holds("1e-3", source.count("> 1e-3") >= 2, "the kernel check's threshold")


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


@check(POOL, "The limits are 1,000,000 states (`exact.MAX_STATES`, memory near 1 GB) and "
             "2,000,000 states x turn orders (`exact.MAX_WORK`)")
def pool_state_limit(c: Claims) -> None:
    from balance.rulesets.pool import exact
    c.exact("1,000,000 states", exact.MAX_STATES)
    c.exact("2,000,000 states", exact.MAX_WORK)


@check(POOL, "| `bench` against `bench,status=1` (pools 6/6, 20 WP, 1 damage, attack = defence) "
             "| 43,218 | | scenario `guards-vs-duellist` (2 turn orders) | 75,600 x 2 | | two "
             "`guard` against a `noble` (medium armour; 2 turn orders) | 154,350 x 2 | | three "
             "`militia` against a `duellist` (6 turn orders) | 229,376 x 6 |",
       given=["pools 6/6, 20 WP, 1 damage"])
def pool_scaling_states(c: Claims) -> None:
    from balance.rulesets.pool.exact import Space, linear_orders

    rs = balance.get("pool")
    rules = rs.rules()

    def size(side_a, side_b) -> tuple[int, int]:
        space = Space(rules, side_a, side_b, layout_only=True)
        return space.k * space.n_cores, len(linear_orders(rules, (*side_a, *side_b)))

    guards = rs.scenario("guards-vs-duellist")
    rows = (("| 43,218 |", size(rs.side("bench"), rs.side("bench,status=1"))),
            ("| 75,600 x 2 |", size(guards.side_a, guards.side_b)),
            ("| 154,350 x 2 |", size(rs.side(["guard,name=g1", "guard,name=g2"]),
                                     rs.side("noble"))),
            ("| 229,376 x 6 |", size(rs.side(["militia,name=m1", "militia,name=m2",
                                              "militia,name=m3"]), rs.side("duellist"))))
    for snippet, (states, orders) in rows:
        c.exact(snippet, *((states,) if orders == 1 else (states, orders)))


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

@check(POOL, "scholar against average is worth 0.92 to the scholar sealed, 0.5 attacker first, "
             "1.0 defender first; militia against scholar 0.001, 0.5, 0.0.")
def pool_protocol_example(c: Claims) -> None:
    for a, b, snippets in (("scholar", "average", ("0.92 to the scholar sealed",
                                                   "0.5 attacker first", "1.0 defender first")),
                           ("militia", "scholar", ("0.001,", "0.5, 0.0."))):
        table = experiment(PROTOCOL, {"a.0.preset": [a], "b.0.preset": [b]})
        values = [cell(table, rules_bid_protocol=p).game_value
                  for p in ("sealed", "attacker_first", "defender_first")]
        if a == "scholar":
            for snippet, value in zip(snippets, values, strict=True):
                c.exact(snippet, value)
        else:
            c.exact(snippets[0], values[0])
            c.exact(snippets[1], values[1], values[2])
        informed = cell(table, rules_bid_protocol="attacker_first")
        c.holds("attacker first", informed.draw == 1.0, f"{a} v {b}: {informed.draw}")


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


@check(POOL, "Above the diagonal (Co > Fort) A wins with certainty.  Below it A's attack falls "
             "short of B's defence and the pool never makes up the gap plus one for a whole "
             "fight: A does not win, but its pool buys stalemates, more as the pool grows -- at "
             "Co 4 against Fort 5 the fight is drawn 2.7% of the time (B wins 97.3%), at Co 1 "
             "against Fort 2 0.5%, at Co 8 against Fort 9 6.4% (003.5 q3: the underdog's "
             "equilibrium *win* chance is 0 at g = 1).  On the diagonal Fortitude's Wound Points "
             "usually beat Co-ordination's pool, initiative and damage: A's value is 0.50 in the "
             "mirror (Co = Fort = 4), 0.05 at 3 and 5, 0.04 at 7, and 0.90 at 1 (Fortitude 1 "
             "leaves B 3 WP: one bought hit ends it).",
       given=["Co 4 against Fort 5", "Co 1 against Fort 2", "Co 8 against Fort 9", "003.5"],
       slow=True)
def pool_coordination_against_fortitude(c: Claims) -> None:
    above, below, diagonal = _cofort()
    c.holds("A wins with certainty", (above["a_win"] == 1.0).all(), "")
    c.holds("A does not win", (below["a_win"] == 0.0).all(), str(below["a_win"].max()))
    c.exact("2.7%", cell(below, a_0_coordination=4, b_0_fortitude=5).draw)
    c.exact("97.3%", cell(below, a_0_coordination=4, b_0_fortitude=5).b_win)
    c.exact("0.5%", cell(below, a_0_coordination=1, b_0_fortitude=2).draw)
    c.exact("6.4%", cell(below, a_0_coordination=8, b_0_fortitude=9).draw)
    draws = below.groupby("a.0.coordination")["draw"].first()
    c.holds("more as the pool grows", draws.is_monotonic_increasing, str(draws))
    value = diagonal["game_value"]
    c.holds("usually beat", (value < 0.5).sum() > len(value) / 2, str(value.round(3)))
    c.exact("0.50", value[4])
    c.exact("0.05", value[3])
    c.exact("0.05", value[5])
    c.exact("0.04", value[7])
    c.exact("0.90", value[1])
    c.holds("3 WP", balance.get("pool").rules().wp_per_fortitude * 1 == 3, "")


@check("experiments/README.md",
       "(the underdog's equilibrium chance of winning is 0, though its pool buys it "
       "stalemates: at most 6.4% of fights)", slow=True)
def pool_underdog_stalemates(c: Claims) -> None:
    _, below, _ = _cofort()
    c.holds("chance of winning is 0", (below["a_win"] == 0.0).all(), "")
    c.exact("6.4%", below["draw"].max())


# --- turns that are not attacks (issue 24) -----------------------------------------------------

ISSUE_20 = ("balance exact pool --a coordination=3,intellect=1,fortitude=5,combat=2,wound_points=5 "
            "--b coordination=4,intellect=2,fortitude=4,combat=2,wound_points=5 "
            "--rule max_rounds=4 --rule margin_failure_damage=true")
DECLINES = ("balance exact pool --a coordination=3,intellect=3,fortitude=5,combat=1,wound_points=6 "
            "--b coordination=4,intellect=2,fortitude=8,combat=2,wound_points=5 "
            "--rule max_rounds=8 --rule margin_failure_damage=true --rule randomiser=1d6")


def _turns(line: str, side: str, kind: str) -> float:
    """Side ``side``'s expected turns of ``kind`` from exact's ``turns`` line (0 if none)."""
    for part in line.split(";"):
        who, _, counts = part.strip().partition(": ")
        if who == side:
            for item in counts.split(", "):
                name, _, value = item.rpartition(" ")
                if name == kind:
                    return float(value)
    return 0.0


@check(POOL, "is a certain draw under the default turns: a fighter whose pool has run dry "
             "declines its hopeless attacks for full defence, which the other cannot beat.  "
             "Fighters of `attack_always` bleed on their misses instead: A's value is then "
             "0.332771.")
def pool_issue_20_duel(c: Claims) -> None:
    competent = c.run(ISSUE_20)
    c.holds("is a certain draw", competent["draw"] == 1.0, str(competent["draw"]))
    always = cli_json(ISSUE_20.replace("wound_points=5", "wound_points=5,turn_policy="
                                                         "attack_always"))
    c.exact("0.332771", always["game_value"])


@check(POOL, "A cannot hit B once its pool is low and declares full defence; B can always "
             "possibly hit A, so it attacks, misses into A's full defence and pays for it -- A "
             "wins 59.0% of the fights.  With `--play best` B declares full defence as well "
             "where attacking costs more than it gains: A's value falls from 0.612 to 0.399 (A "
             "wins 2.9%, draws 74.0%), A declaring full defence 6.7 turns a fight and B 3.7.")
def pool_declines_are_not_enough(c: Claims) -> None:
    given = c.run(DECLINES)
    best = c.run(DECLINES, "--play", "best")
    turns = best["details"]["turns"]
    c.exact("A wins 59.0%", given["a_win"])
    c.exact("from 0.612 to 0.399", given["a_win"] + 0.5 * given["draw"],
            best["details"]["value"])
    c.exact("wins 2.9%, draws 74.0%", best["a_win"], best["draw"])
    c.exact("6.7 turns a fight and B 3.7", _turns(turns, "A", "full defence"),
            _turns(turns, "B", "full defence"))


@check(POOL, "(`balance bench` row `exact duel p6 wp20 1d6`, 50 rounds) A's value is 0.5136 with attack turns only and 0.5000 with every turn chosen; "
             "A then declares full defence 14.9 turns a fight, B 20.5.", slow=True)
def pool_full_defence_in_the_bench_duel(c: Claims) -> None:
    rs = balance.get("pool")
    name, _, rules, side_a, side_b = rs._exact_bench_specs()[1]
    c.holds("0.5136", name == "exact duel p6 wp20 1d6", name)
    c.exact("50 rounds", rules.max_rounds)
    attack_only = rs.exact(rules, side_a, side_b).details
    best = rs.exact_best_play(rules, side_a, side_b).details
    c.exact("0.5136 with attack turns only and 0.5000", attack_only["game_value"],
            best["value"])
    c.exact("14.9 turns a fight, B 20.5", _turns(best["turns"], "A", "full defence"),
            _turns(best["turns"], "B", "full defence"))


@check(POOL, "10 rounds) fit best play over the states (201,600 states x 2 turn orders): nobody "
             "withdraws, and full defence is worth next to nothing to the pair (A's value 0.0077 "
             "with attack turns only, 0.0078 with every turn chosen).  The scenario "
             "`guards-vs-duellist` does not: with every turn open its cores carry three guard "
             "bits and two aid counts, 2,419,200 states,")
def pool_withdrawal_in_a_group(c: Claims) -> None:
    from balance.rulesets.pool import exact

    rs = balance.get("pool")
    rules = rs.rules(max_rounds=10, randomiser="1d6")
    pair = rs.side(["average,name=a1,wound_points=4", "average,name=a2,wound_points=4"])
    duellist = rs.side("duellist,wound_points=8")
    best = rs.exact_best_play(rules, pair, duellist).details
    given = rs.exact(rules, pair, duellist).details
    c.exact("10 rounds", rules.max_rounds)
    space = exact.Space(rules, pair, duellist, layout_only=True, choose_turns=True)
    orders = len(exact.linear_orders(rules, (*pair, *duellist)))
    c.exact("201,600 states x 2 turn orders", space.k * space.n_cores, orders)
    c.holds("nobody withdraws", "withdrawal" not in best["turns"], best["turns"])
    c.exact("0.0077 with attack turns only, 0.0078", given["game_value"], best["value"])
    guards = rs.scenario("guards-vs-duellist")
    why = exact.unsupported(rs.rules(), guards.side_a, guards.side_b, choose_turns=True) or ""
    c.holds("2,419,200 states", why.startswith("pool has no exact solution here: 2,419,200 "
                                               "states"), why)
    from balance.rulesets.pool.exact_turns import Flags
    from balance.rulesets.pool.rules import profile

    profiles = ([profile(f, rules, 0) for f in guards.side_a]
                + [profile(f, rules, 1) for f in guards.side_b])
    flags = Flags.of(rs.rules(), profiles, True)
    c.holds("three guard bits and two aid counts",
            sum(flags.guard) == 3 and sum(bool(h) for h in flags.helpers) == 2, str(flags))
