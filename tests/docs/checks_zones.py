"""docs/zones.md: best play (exact) and the four experiments (their cells, with the
experiments' own seeds and sizes)."""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

import balance

from .checks_general import _recorded, runs, speed_table
from .experiments import cell, experiment, spec
from .figures import Claims, allow, check, document

ZONES = "docs/zones.md"
MAP = "zones-map-vs-might"
THIRD = "zones-third-attack"
ARCHERS = "zones-archers-vs-band-track"
MOBS = "zones-frontage-vs-mobs"
DEFAULT_MAP, NO_MAP, HARSH_MAP = [0, -2, -4], [0, 0, 0], [0, -4, -8]

allow(ZONES, "a rule (a foe held ground strikes is struck at most once), not a result",
      "no foe struck twice")
allow(ZONES, "the experiment's policy (two Strikes and a Defend), not a result",
      "Both duellists Strike twice and Defend")


def _rates(row) -> tuple[float, tuple[float, float]]:
    return row.a_win, (row.a_win_low, row.a_win_high)


# ---------------------------------------------------------------------------------------------
# Best play (exact)

@functools.cache
def _best(might: int) -> dict[str, float]:
    rs = balance.get("zones")
    a = rs.combatant(f"might={might}")
    got = rs.exact_best_play(rs.rules(initial_gap="contact"), (a,), (a,))
    frame = got.strategy
    share = frame.groupby("plan")["visits"].sum() / frame["visits"].sum()
    return {"strike, strike, defend": float(share["Strike, Strike, Defend"]),
            "third": float(sum(v for plan, v in share.items() if plan.count("Strike") == 3))}


@check(ZONES, "the equilibrium plays Strike, Strike, Defend on 93.85% of its activations and the "
              "third Strike at -4 never, except within a round of the cap; at Might 3 a side "
              "(net +2) the third Strike is the plan of 53.98% of activations (Strike, Strike, "
              "Defend 44.25%)")
def zones_third_attack_best_play(c: Claims) -> None:
    low, high = _best(1), _best(3)
    c.exact("93.85%", low["strike, strike, defend"])
    c.holds("third Strike at -4 never", low["third"] < 1e-3, f"{low['third']:.5f}")
    c.exact("53.98%", high["third"])
    c.exact("Defend 44.25%", high["strike, strike, defend"])


@check(ZONES, "A crossbowman held to its default policy (Strike in contact) beats a swordsman "
              "22.26% of the time; under best play it shoots its crossbow point-blank (no "
              "Defend bonus against a shot, 5 damage) and wins 80.44%", given=["5 damage"])
def zones_crossbowman_best_play(c: Claims) -> None:
    rs = balance.get("zones")
    rules = rs.rules(initial_gap="contact")
    a, b = rs.side("crossbowman"), rs.side("swordsman")
    best = rs.exact_best_play(rules, a, b)
    c.exact("22.26%", rs.exact(rules, a, b).a_win)
    c.exact("80.44%", best.a_win)
    c.holds("shoots its crossbow point-blank", "Shoot" in best.details["opening"],
            best.details["opening"])


@check(ZONES, "(each side held to its own policy's plan gives `exact` to 1e-12)")
def zones_best_play_tolerance(c: Claims) -> None:
    from tests.zones import test_bestplay
    source = inspect.getsource(test_bestplay.test_own_plans_reproduce_the_fixed_policy_chain)
    c.holds("1e-12", "abs=1e-12" in source, "the test's tolerance")


# ---------------------------------------------------------------------------------------------
# Penalty size against Might (200 000 fights a cell, seed 2001)

@check(ZONES, "A harsher penalty lengthens the mirror duel (mean 4.67 rounds without a penalty, "
              "6.13 at the DEFAULT 0/-2/-4, 7.69 at 0/-4/-8)")
def zones_penalty_lengthens(c: Claims) -> None:
    table = experiment(MAP, {"a.0.might": [1]})
    for snippet, schedule in (("4.67 rounds", NO_MAP), ("6.13", DEFAULT_MAP),
                              ("7.69", HARSH_MAP)):
        row = cell(table, rules_map=schedule)
        # the standard error of a mean length of 200 000 fights is under 0.01 rounds
        c.approx(snippet, row.mean_rounds, tolerance=0.02)


@check(ZONES, "Might 4 against 1 wins 91.8% [91.6, 91.9] without a penalty, 94.7% [94.6, 94.8] "
              "at the default, 96.1% [96.0, 96.2] at 0/-4/-8; Might 0 falls from 25.4% to 21.9%",
       given=["Might 4 against 1"], slow=True)
def zones_might_more_decisive(c: Claims) -> None:
    table = experiment(MAP, {"a.0.might": [0, 4]})
    for snippet, schedule in (("91.8% [91.6, 91.9]", NO_MAP), ("94.7% [94.6, 94.8]", DEFAULT_MAP),
                              ("96.1% [96.0, 96.2]", HARSH_MAP)):
        c.mc(snippet, *_rates(cell(table, a_0_might=4, rules_map=schedule)))
    c.mc("25.4%", *_rates(cell(table, a_0_might=0, rules_map=NO_MAP)))
    c.mc("21.9%", *_rates(cell(table, a_0_might=0, rules_map=HARSH_MAP)))


@check(ZONES, "Over Might 0-4 a point is worth about 17 points of win rate (the report's "
              "least-squares slope)", slow=True)
def zones_point_of_might(c: Claims) -> None:
    table = experiment(MAP)
    # the report's exchange rate: the least-squares slope of A's win rate on Might, per
    # schedule, averaged over the schedules
    slopes = [np.polyfit(part["a.0.might"], part["a_win"], 1)[0]
              for _, part in table.groupby("rules.map")]
    c.approx("17 points", float(np.mean(slopes)), scale=100, tolerance=1.0)


# ---------------------------------------------------------------------------------------------
# The third attack (100 000 fights a cell, seed 2002)

def _third(a: str, schedule: list[int], might: int):
    table = experiment(THIRD, {"a": [a], "rules.map": [schedule], "a.0.might": [might],
                               "b.0.might": [might]})
    return _rates(table.iloc[0])


@check(ZONES, "At Might 1 a side (net 0) under the DEFAULT schedule a fighter who takes the "
              "third Strike beats one who Defends instead only 36.2% [35.9, 36.5] of the time. "
              "The third Strike is not worthless (Strike, Strike, nothing wins 27.8% [27.5, "
              "28.1]), but Defend (+1 Defence against both of the foe's swings) is worth far "
              "more; Steady before two Strikes (42.4%) also beats it.",
       given=["Might 1", "+1 Defence"])
def zones_third_attack(c: Claims) -> None:
    c.mc("36.2% [35.9, 36.5]", *_third("max_attacks=3", DEFAULT_MAP, 1))
    c.mc("27.8% [27.5, 28.1]", *_third("spare=pass", DEFAULT_MAP, 1))
    c.mc("42.4%", *_third("steady=1", DEFAULT_MAP, 1))


@check(ZONES, "the third Strike draws level with Defend at 0/-1/-2 for Might 1 (49.1% [48.8, "
              "49.4]) and at the DEFAULT 0/-2/-4 for Might 3 a side (49.5% [49.2, 49.8]); at "
              "0/-1/-2 and Might 3 it wins 60.8%. Under harsh penalties even the second attack "
              "is a poor buy: Steady, one Strike, Defend wins 50.5% at 0/-3/-6 and 59.5% [59.2, "
              "59.8] at 0/-4/-8 against the two-Strike default.")
def zones_break_even(c: Claims) -> None:
    c.mc("49.1% [48.8, 49.4]", *_third("max_attacks=3", [0, -1, -2], 1))
    c.mc("49.5% [49.2, 49.8]", *_third("max_attacks=3", DEFAULT_MAP, 3))
    c.mc("60.8%", *_third("max_attacks=3", [0, -1, -2], 3))
    c.mc("50.5%", *_third("steady=1,max_attacks=1", [0, -3, -6], 1))
    c.mc("59.5% [59.2, 59.8]", *_third("steady=1,max_attacks=1", HARSH_MAP, 1))


# ---------------------------------------------------------------------------------------------
# Archers against the band track (50 000 a cell, seed 2003)

def _band(preset: str, policy: str, penalty: int):
    return experiment(ARCHERS, {"a.*.preset": [preset], "a.*.policy": [policy],
                                "rules.moved_target_penalty": [penalty]})


@check(ZONES, "Three skirmishing archers against four fighters win 0.3% from contact, 18.8% from "
              "short, 51.7% from medium and 83.7% [83.4, 84.0] from long. The -1 against targets "
              "that moved takes back a large share of the volleys but does not offset them: "
              "without it the same archers win 32.7%, 78.2% and 97.0%.")
def zones_archers(c: Claims) -> None:
    table = _band("archer", "skirmish", -1)
    for snippet, gap in (("0.3%", "contact"), ("18.8%", "short"), ("51.7%", "medium"),
                         ("83.7% [83.4, 84.0]", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))
    table = _band("archer", "skirmish", 0)
    for snippet, gap in (("32.7%", "short"), ("78.2%", "medium"), ("97.0%", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))


@check(ZONES, "holding their zone they win 37.9% when the fighters start short (arriving with "
              "one action and the charge), 28.4% from medium (two actions) and 67.6% from long "
              "(six Moves: arriving with none), against 15-20% when they advance to meet them.")
def zones_swordsmen(c: Claims) -> None:
    table = _band("swordsman", "hold", -1)
    for snippet, gap in (("37.9%", "short"), ("28.4%", "medium"), ("67.6%", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))
    # without a ranged weapon the skirmish policy closes in: the swordsmen advance
    advance = _band("swordsman", "skirmish", -1)
    rates = [cell(advance, rules_initial_gap=gap).a_win for gap in ("short", "medium", "long")]
    c.approx("15-20%", min(rates), max(rates), tolerance=0.5)


# ---------------------------------------------------------------------------------------------
# Frontage against mobs (50 000 a cell, seed 2004)

def _mob(size: int) -> list[str]:
    return ["raider"] * size


@check(ZONES, "the hero (Might 3, Defence 2, Armour 2) beats 4, 5, 6 raiders 96.3%, 84.2%, "
              "62.4% [62.0, 62.9] with the cap, 77.8%, 29.3%, 4.0% without. With outnumbering "
              "off the cap nearly does: 99.9%, 99.3%, 96.9%.", slow=True)
def zones_frontage(c: Claims) -> None:
    table = experiment(MOBS, {"b": [_mob(4), _mob(5), _mob(6)], "rules.frontage": [2, 12]})
    off = experiment(MOBS, {"b": [_mob(4), _mob(5), _mob(6)], "rules.frontage": [2],
                            "rules.outnumber_scope": ["off"]})

    def rates(frame, frontage, scope):
        rows = frame[(frame["rules.frontage"] == frontage)
                     & (frame["rules.outnumber_scope"] == scope)]
        assert len(rows) == 3
        return [_rates(row) for row in rows.itertuples()]

    capped = rates(table, 2, "zone")
    for snippet, (rate, ci) in zip(("96.3%", "84.2%", "62.4% [62.0, 62.9]"), capped, strict=True):
        c.mc(snippet, rate, ci)
    for snippet, (rate, ci) in zip(("77.8%", "29.3%", "4.0%"), rates(table, 12, "zone"),
                                   strict=True):
        c.mc(snippet, rate, ci)
    for snippet, (rate, ci) in zip(("99.9%", "99.3%", "96.9%"), rates(off, 2, "off"),
                                   strict=True):
        c.mc(snippet, rate, ci)


# ---------------------------------------------------------------------------------------------
# Exact against Monte Carlo over the two duel experiments

def _z_scores(name: str) -> list[float]:
    from balance.sweep import expand, load_spec

    rs = balance.get("zones")
    cells = expand(load_spec(spec(name)))
    table = experiment(name)
    return [(row.a_win - p) / math.sqrt(p * (1 - p) / row.n)
            for c, row in zip(cells, table.itertuples(index=False), strict=True)
            for p in [rs.exact(c.rules, c.side_a, c.side_b).a_win]]


@check(ZONES, "Over the 25 cells of `zones-map-vs-might` the simulated win rates give sum z^2 = "
              "25.3 on 25 degrees of freedom (max |z| 2.09; the exact value outside the 95% "
              "interval in 1 cell); over the 120 of `zones-third-attack`, 121.9 on 120 (max |z| "
              "3.16; outside in 8, about the 6 expected).", slow=True,
       given=["95% interval"])
def zones_exact_against_monte_carlo(c: Claims) -> None:
    for name, sum_z2, max_z in ((MAP, "25.3", "2.09"), (THIRD, "121.9", "3.16")):
        z = _z_scores(name)
        c.exact(sum_z2, sum(x * x for x in z))
        c.exact(max_z, max(abs(x) for x in z))
        outside = sum(abs(x) > 1.959964 for x in z)
        expected_outside = {MAP: 1, THIRD: 8}[name]
        c.holds("outside in 8" if name == THIRD else "in 1 cell", outside == expected_outside,
                f"{name}: {outside} cells outside")


def _best_play_time(figures: dict[str, str]) -> str:
    return (f"({figures['zones']} for the default duel; `balance bench --ruleset zones --case "
            '"exact best play duel"`)')


@check(ZONES, _recorded(_best_play_time, "exact_figures"))
def zones_best_play_time(c: Claims) -> None:
    # a measurement: the bench row recorded for the README's speed table
    sentence = _best_play_time(speed_table().exact_figures(runs()))
    c.holds(sentence, bool(document(ZONES).find_all(sentence)), "not what the records give")
