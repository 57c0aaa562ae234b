"""docs/zones.md: best play (exact) and the seven experiments (their cells, with the
experiments' own seeds and sizes)."""

from __future__ import annotations

import functools
import inspect

import balance

from .experiments import cell, experiment
from .figures import Claims, allow, check

ZONES = "docs/zones.md"
MAP = "zones-map-vs-might"
THIRD = "zones-third-attack"
ARCHERS = "zones-archers-vs-band-track"
MOBS = "zones-frontage-vs-mobs"
SPEED = "zones-speed-pursuit"
CHOKE = "zones-chokepoint"
KITING = "zones-kiting"
CHARGE = "zones-charge-arrival"
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
              "6.13 at the DEFAULT 0/-2/-4, 7.68 at 0/-4/-8)")
def zones_penalty_lengthens(c: Claims) -> None:
    table = experiment(MAP, {"a.0.might": [1]})
    for snippet, schedule in (("4.67 rounds", NO_MAP), ("6.13", DEFAULT_MAP),
                              ("7.68", HARSH_MAP)):
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


# ---------------------------------------------------------------------------------------------
# The third attack (100 000 fights a cell, seed 2002)

def _third(a: str, schedule: list[int], might: int):
    table = experiment(THIRD, {"a": [a], "rules.map": [schedule], "a.0.might": [might],
                               "b.0.might": [might]})
    return _rates(table.iloc[0])


@check(ZONES, "At Might 1 a side (net 0) under the DEFAULT schedule a fighter who takes the "
              "third Strike beats one who Defends instead only 36.2% [35.9, 36.5] of the time. "
              "The third Strike is not worthless (Strike, Strike, nothing wins 27.6% [27.3, "
              "27.9]), but Defend (+1 Defence against both of the foe's swings) is worth far "
              "more; Steady before two Strikes (42.3%) also beats it.",
       given=["Might 1", "+1 Defence"])
def zones_third_attack(c: Claims) -> None:
    c.mc("36.2% [35.9, 36.5]", *_third("max_attacks=3", DEFAULT_MAP, 1))
    c.mc("27.6% [27.3, 27.9]", *_third("spare=pass", DEFAULT_MAP, 1))
    c.mc("42.3%", *_third("steady=1", DEFAULT_MAP, 1))


@check(ZONES, "the third Strike draws level with Defend at 0/-1/-2 for Might 1 (49.1% [48.8, "
              "49.4]) and at the DEFAULT 0/-2/-4 for Might 3 a side (49.4% [49.1, 49.7]); at "
              "0/-1/-2 and Might 3 it wins 60.9%. Under harsh penalties even the second attack "
              "is a poor buy: Steady, one Strike, Defend wins 50.4% at 0/-3/-6 and 59.5% [59.2, "
              "59.8] at 0/-4/-8 against the two-Strike default.")
def zones_break_even(c: Claims) -> None:
    c.mc("49.1% [48.8, 49.4]", *_third("max_attacks=3", [0, -1, -2], 1))
    c.mc("49.4% [49.1, 49.7]", *_third("max_attacks=3", DEFAULT_MAP, 3))
    c.mc("60.9%", *_third("max_attacks=3", [0, -1, -2], 3))
    c.mc("50.4%", *_third("steady=1,max_attacks=1", [0, -3, -6], 1))
    c.mc("59.5% [59.2, 59.8]", *_third("steady=1,max_attacks=1", HARSH_MAP, 1))


# ---------------------------------------------------------------------------------------------
# Archers against the band track (50 000 a cell, seed 2003)

def _band(preset: str, policy: str, penalty: int):
    return experiment(ARCHERS, {"a.*.preset": [preset], "a.*.policy": [policy],
                                "rules.moved_target_penalty": [penalty]})


@check(ZONES, "Three skirmishing archers against four fighters win 0.3% from contact, 19.2% from "
              "short, 51.3% from medium and 84.1% [83.8, 84.4] from long. The -1 against targets "
              "that moved takes back a large share of the volleys but does not offset them: "
              "without it the same archers win 32.8%, 78.1% and 96.9%.")
def zones_archers(c: Claims) -> None:
    table = _band("archer", "skirmish", -1)
    for snippet, gap in (("0.3%", "contact"), ("19.2%", "short"), ("51.3%", "medium"),
                         ("84.1% [83.8, 84.4]", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))
    table = _band("archer", "skirmish", 0)
    for snippet, gap in (("32.8%", "short"), ("78.1%", "medium"), ("96.9%", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))


@check(ZONES, "holding their zone they win 37.9% when the fighters start short (arriving with "
              "one action and the charge), 28.1% from medium (two actions) and 66.9% from long "
              "(six Moves: arriving with none), against 14-20% when they advance to meet them.")
def zones_swordsmen(c: Claims) -> None:
    table = _band("swordsman", "hold", -1)
    for snippet, gap in (("37.9%", "short"), ("28.1%", "medium"), ("66.9%", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))
    # without a ranged weapon the skirmish policy closes in: the swordsmen advance
    advance = _band("swordsman", "skirmish", -1)
    rates = [cell(advance, rules_initial_gap=gap).a_win
             for gap in ("contact", "short", "medium", "long")]
    c.approx("14-20%", min(rates), max(rates), tolerance=0.5)


# ---------------------------------------------------------------------------------------------
# Frontage against mobs (50 000 a cell, seed 2004)

def _mob(size: int) -> list[str]:
    return ["raider"] * size


@check(ZONES, "the hero (Might 3, Defence 2, Armour 2) beats 4, 5, 6 raiders 96.2%, 84.0%, "
              "62.4% [62.0, 62.8] with the cap, 77.4%, 29.3%, 4.0% without. With outnumbering "
              "off the cap nearly does: 99.9%, 99.3%, 97.1%.", slow=True)
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
    for snippet, (rate, ci) in zip(("96.2%", "84.0%", "62.4% [62.0, 62.8]"), capped, strict=True):
        c.mc(snippet, rate, ci)
    for snippet, (rate, ci) in zip(("77.4%", "29.3%", "4.0%"), rates(table, 12, "zone"),
                                   strict=True):
        c.mc(snippet, rate, ci)
    for snippet, (rate, ci) in zip(("99.9%", "99.3%", "97.1%"), rates(off, 2, "off"),
                                   strict=True):
        c.mc(snippet, rate, ci)


# ---------------------------------------------------------------------------------------------
# What Speed is worth (20 000 a cell, seed 2005)

def _speed(pursuit: str = "speed", shift: str = "flat", where: str = "loop"):
    return experiment(SPEED, {"rules.pursuit": [pursuit], "rules.shift_speed_rule": [shift],
                              "rules.battlefield": [where]}).set_index("a.0.speed")


@check(ZONES, "under pursuit by Speed (TEXT, 002.3) the archer wins 96.8% [96.5, 97.0] at Speed 3 "
              "on the loop, 75.9% at Speed 2 and 76.8% at Speed 1 -- being faster than the "
              "pursuer is worth 21 points, being slower costs nothing here (the fighter closes "
              "either way). With pursuit free Speed buys nothing (75.7% at Speed 3). The ruins' "
              "walls (a barred gate, a burning hall) make every archer harder to catch (82.4% at "
              "Speed 2, 98.1% at 3), and `speed2_first_shift_free` gives the fighter a free shift "
              "too, which costs the archer 6 points (70.0% at Speed 2).",
       given=["Speed 3", "Speed 2", "Speed 1", "002.3"])
def zones_speed(c: Claims) -> None:
    loop = _speed()
    c.mc("96.8% [96.5, 97.0]", *_rates(loop.loc[3]))
    c.mc("75.9%", *_rates(loop.loc[2]))
    c.mc("76.8%", *_rates(loop.loc[1]))
    c.approx("21 points", loop.loc[3, "a_win"] - loop.loc[2, "a_win"], scale=100,
             tolerance=0.5)
    c.holds("costs nothing", abs(loop.loc[1, "a_win"] - loop.loc[2, "a_win"]) < 0.015,
            f"{loop.loc[1, 'a_win']:.4f} v {loop.loc[2, 'a_win']:.4f}")
    free = _speed("free")
    c.mc("75.7%", *_rates(free.loc[3]))
    c.holds("buys nothing", abs(free.loc[3, "a_win"] - free.loc[2, "a_win"]) < 0.015,
            f"{free.loc[3, 'a_win']:.4f} v {free.loc[2, 'a_win']:.4f}")
    ruins = _speed(where="ruins")
    c.mc("82.4%", *_rates(ruins.loc[2]))
    c.mc("98.1%", *_rates(ruins.loc[3]))
    c.holds("harder to catch", bool((ruins["a_win"] > loop["a_win"]).all()), "")
    shift = _speed(shift="speed2_first_shift_free")
    c.mc("70.0%", *_rates(shift.loc[2]))
    c.approx("6 points", loop.loc[2, "a_win"] - shift.loc[2, "a_win"], scale=100, tolerance=0.5)


# ---------------------------------------------------------------------------------------------
# Holding a chokepoint (50 000 a cell, seed 2006)

def _door(where: str, spare: str = "defend", disengage: bool = True, scope: str = "per_side"):
    table = experiment(CHOKE, {"rules.battlefield": [where], "a.*.spare": [spare],
                               "b.*.disengage": [disengage], "rules.chokepoint_scope": [scope]})
    return table.iloc[0]


@check(ZONES, "Two soldiers holding a door with Defend beat four raiders 65.6% [65.2, 66.0] when "
              "the door is a chokepoint (one a side may fight there) and 42.1% when it is open: "
              "the cap is worth 24 points. Held ground is worth more still: passing instead of "
              "Defending drops them to 26.8% and 14.8%. The raiders' Disengage changes nothing "
              "(they never need to leave the door; 66.0% without it). Read as one fighter of "
              "either side in all (`chokepoint_scope = \"total\"`) the door is a coin toss "
              "(49.4%).")
def zones_chokepoint(c: Claims) -> None:
    held, open_door = _door("chokepoint"), _door("hall")
    c.mc("65.6% [65.2, 66.0]", *_rates(held))
    c.mc("42.1%", *_rates(open_door))
    c.approx("24 points", held.a_win - open_door.a_win, scale=100, tolerance=0.5)
    c.mc("26.8%", *_rates(_door("chokepoint", "pass")))
    c.mc("14.8%", *_rates(_door("hall", "pass")))
    c.mc("66.0%", *_rates(_door("chokepoint", disengage=False)))
    c.mc("49.4%", *_rates(_door("chokepoint", scope="total")))


# ---------------------------------------------------------------------------------------------
# The charge against arriving short of actions (50 000 a cell, seed 2007)

def _charge(gap: str, bonus: int, scope: str = "first_strike") -> float:
    table = experiment(CHARGE, {"rules.initial_gap": [gap], "rules.charge_bonus": [bonus],
                                "rules.charge_scope": [scope]})
    return float(table.iloc[0].a_win)


@check(ZONES, "A swordsman charging a swordsman who holds wins, with no charge bonus, 48.6% from "
              "a short band (arriving with one action), 53.7% from medium (two, a Move banked) "
              "and 35.5% from long (none: he eats a full activation first). The +1 adds 3.0 "
              "points from short and 3.1 from medium (5.2 when it lasts for every Strike that "
              "activation) and nothing from long (no action is left to strike with). An action "
              "fewer on arrival costs 5.1 points (medium to short), arriving with none 18.2: the "
              "bonus never pays for a missing action.", given=["+1"])
def zones_charge(c: Claims) -> None:
    base = {gap: _charge(gap, 0) for gap in ("short", "medium", "long")}
    table = experiment(CHARGE, {"rules.charge_bonus": [0],
                                "rules.charge_scope": ["first_strike"]})
    for snippet, gap in (("48.6%", "short"), ("53.7%", "medium"), ("35.5%", "long")):
        c.mc(snippet, *_rates(cell(table, rules_initial_gap=gap)))
    # differences of two cells of one sweep (common streams): compared to the printed digits
    c.exact("3.0 points", _charge("short", 1) - base["short"], scale=100)
    c.exact("from medium (5.2", _charge("medium", 1, "all_strikes") - base["medium"],
            scale=100)
    c.exact("3.1 from medium", _charge("medium", 1) - base["medium"], scale=100)
    c.holds("nothing from long", abs(_charge("long", 1) - base["long"]) < 0.005, "")
    c.exact("5.1 points", base["medium"] - base["short"], scale=100)
    c.exact("none 18.2", base["medium"] - base["long"], scale=100)


# ---------------------------------------------------------------------------------------------
# Kiting behind the ruins' walls (20 000 fights a cell, seed 2008)

@check(ZONES, "Six skirmishing archers beat six swordsmen 100% on the ruins from the DEFAULT long "
              "gap, but archers who hold do as well there (100%), and on the open field from "
              "long both nearly do (99.98% kiting, 99.08% holding): from long the swordsmen "
              "cross three bands under the volleys, so that result is the band track, a rule, "
              "not the kiting. The policy and the walls decide closer in. From a short band "
              "kiting archers win 73.3% on the field against 11.4% for holding ones, and 99.8% "
              "on the ruins; from contact, 10.1% on the field and 78.4% [77.8, 78.9] on the "
              "ruins, where the fronts are two zones apart through the arch and the barred gate "
              "and burning hall lengthen every way round to a kiting archer (holding, 27.4%). "
              "Archers who advance into melee with their light blades lose from every gap, on "
              "either map (at most 9.7%).", given=["Six", "six", "three bands"])
def zones_kiting(c: Claims) -> None:
    table = experiment(KITING)

    def at(policy: str, battlefield: str, gap: str):
        return _rates(cell(table, **{"a.*.policy": policy}, rules_battlefield=battlefield,
                           rules_initial_gap=gap))
    c.mc("beat six swordsmen 100%", *at("skirmish", "ruins", "long"))
    c.mc("(100%)", *at("hold", "ruins", "long"))
    c.mc("99.98% kiting", *at("skirmish", "field", "long"))
    c.mc("99.08% holding", *at("hold", "field", "long"))
    c.mc("73.3% on the field", *at("skirmish", "field", "short"))
    c.mc("11.4% for", *at("hold", "field", "short"))
    c.mc("99.8% on the ruins", *at("skirmish", "ruins", "short"))
    c.mc("10.1% on the field", *at("skirmish", "field", "contact"))
    c.mc("78.4% [77.8, 78.9]", *at("skirmish", "ruins", "contact"))
    c.mc("(holding, 27.4%)", *at("hold", "ruins", "contact"))
    worst = max(at("advance", m, g)[0] for m in ("field", "ruins")
                for g in ("contact", "short", "long"))
    c.holds("(at most 9.7%)", worst < 0.0975, f"{worst:.4f}")
