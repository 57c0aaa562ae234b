"""Every experiment figure ``docs/zones.md`` quotes, run again: each quoted cell of the
experiment, on the cell's own streams (the experiment's seed and the cell's key), gives
the very counts the sweep gave, and so the quoted rate, interval and mean length."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from balance import engine
from balance.results import Summary
from balance.sweep import expand, load_spec

from .conftest import ZONES

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parents[2]


@cache
def _cells(name: str):
    spec = load_spec(ROOT / "experiments" / f"{name}.toml")
    return spec, expand(spec)


def run(name: str, **params) -> Summary:
    """The sweep's result for the cell of experiment ``name`` with these axis values (axis
    names with dots written as double underscores)."""
    spec, cells = _cells(name)
    wanted = {k.replace("__", "."): v for k, v in params.items()}
    found = [c for c in cells if all(_same(c.params[k], v) for k, v in wanted.items())]
    assert len(found) == 1, (name, wanted, len(found))
    cell = found[0]
    tally = engine.run(ZONES, cell.rules, cell.side_a, cell.side_b, entropy=spec.seed,
                       n=spec.cap, key=(cell.key,), chunk_size=spec.chunk_size)
    return Summary("zones", tally, spec.confidence)


def _same(got, want) -> bool:
    return got == (tuple(want) if isinstance(want, list) else want)


def pct(x: float) -> float:
    return round(100 * x, 1)


def rate(s: Summary) -> tuple[float, float, float]:
    return pct(s.a_win), pct(s.a_win_ci[0]), pct(s.a_win_ci[1])


def test_penalty_size_against_might():
    name = "zones-map-vs-might"
    rounds = [round(run(name, rules__map=m, a__0__might=1).mean_rounds, 2)
              for m in ([0, 0, 0], [0, -2, -4], [0, -4, -8])]
    assert rounds == [4.67, 6.13, 7.68]
    assert rate(run(name, rules__map=[0, 0, 0], a__0__might=4)) == (91.8, 91.6, 91.9)
    assert rate(run(name, rules__map=[0, -2, -4], a__0__might=4)) == (94.7, 94.6, 94.8)
    assert rate(run(name, rules__map=[0, -4, -8], a__0__might=4)) == (96.1, 96.0, 96.2)
    assert pct(run(name, rules__map=[0, 0, 0], a__0__might=0).a_win) == 25.4
    assert pct(run(name, rules__map=[0, -4, -8], a__0__might=0).a_win) == 21.9


def test_the_third_attack():
    def cell(a, m, might=1):
        return run("zones-third-attack", a=a, rules__map=m, a__0__might=might,
                   b__0__might=might)
    assert rate(cell("max_attacks=3", [0, -2, -4])) == (36.2, 35.9, 36.5)
    assert rate(cell("spare=pass", [0, -2, -4])) == (27.6, 27.3, 27.9)
    assert pct(cell("steady=1", [0, -2, -4]).a_win) == 42.3
    assert rate(cell("max_attacks=3", [0, -1, -2])) == (49.1, 48.8, 49.4)
    assert rate(cell("max_attacks=3", [0, -2, -4], 3)) == (49.4, 49.1, 49.7)
    assert pct(cell("max_attacks=3", [0, -1, -2], 3).a_win) == 60.9
    assert pct(cell("steady=1,max_attacks=1", [0, -3, -6]).a_win) == 50.4
    assert rate(cell("steady=1,max_attacks=1", [0, -4, -8])) == (59.5, 59.2, 59.8)


def test_archers_against_the_band_track():
    def cell(preset, policy, gap, moved=-1):
        return run("zones-archers-vs-band-track", **{"a.*.preset": preset,
                                                      "a.*.policy": policy},
                   rules__initial_gap=gap, rules__moved_target_penalty=moved)
    got = [pct(cell("archer", "skirmish", g).a_win) for g in ("contact", "short", "medium")]
    assert got == [0.3, 19.2, 51.3]
    assert rate(cell("archer", "skirmish", "long")) == (84.1, 83.8, 84.4)
    assert [pct(cell("archer", "skirmish", g, 0).a_win) for g in ("short", "medium", "long")] \
        == [32.8, 78.1, 96.9]
    assert [pct(cell("swordsman", "hold", g).a_win) for g in ("short", "medium", "long")] \
        == [37.9, 28.1, 66.9]
    advancing = [cell("swordsman", "skirmish", g).a_win
                 for g in ("contact", "short", "medium", "long")]
    assert min(advancing) >= 0.135 and max(advancing) < 0.205  # "14-20%"


def test_frontage_against_mobs():
    def cell(n, frontage, scope="zone"):
        return run("zones-frontage-vs-mobs", b=["raider"] * n, rules__frontage=frontage,
                   rules__outnumber_scope=scope)
    assert [pct(cell(n, 2).a_win) for n in (4, 5)] == [96.2, 84.0]
    assert rate(cell(6, 2)) == (62.4, 62.0, 62.8)
    assert [pct(cell(n, 12).a_win) for n in (4, 5, 6)] == [77.4, 29.3, 4.0]
    assert [pct(cell(n, 2, "off").a_win) for n in (4, 5, 6)] == [99.9, 99.3, 97.1]


def test_what_speed_is_worth():
    def cell(speed, pursuit="speed", shift="flat", where="loop"):
        return run("zones-speed-pursuit", a__0__speed=speed, rules__pursuit=pursuit,
                   rules__shift_speed_rule=shift, rules__battlefield=where)
    assert rate(cell(3)) == (96.8, 96.5, 97.0)
    assert (pct(cell(2).a_win), pct(cell(1).a_win)) == (75.9, 76.8)
    assert pct(cell(3, "free").a_win) == 75.7
    assert (pct(cell(2, where="ruins").a_win), pct(cell(3, where="ruins").a_win)) == (82.4,
                                                                                       98.1)
    assert pct(cell(2, shift="speed2_first_shift_free").a_win) == 70.0


def test_holding_a_chokepoint():
    def cell(where, spare="defend", disengage=True, scope="per_side"):
        return run("zones-chokepoint", rules__battlefield=where, **{
            "a.*.spare": spare, "b.*.disengage": disengage}, rules__chokepoint_scope=scope)
    assert rate(cell("chokepoint")) == (65.6, 65.2, 66.0)
    assert pct(cell("hall").a_win) == 42.1
    assert (pct(cell("chokepoint", "pass").a_win), pct(cell("hall", "pass").a_win)) == (26.8,
                                                                                        14.8)
    assert pct(cell("chokepoint", disengage=False).a_win) == 66.0
    assert pct(cell("chokepoint", scope="total").a_win) == 50.5


def test_the_charge_against_arriving_short_of_actions():
    def cell(gap, bonus, scope="first_strike"):
        return run("zones-charge-arrival", rules__initial_gap=gap, rules__charge_bonus=bonus,
                   rules__charge_scope=scope).a_win
    base = {g: cell(g, 0) for g in ("short", "medium", "long")}
    assert [pct(base[g]) for g in ("short", "medium", "long")] == [48.8, 53.5, 35.8]
    assert pct(cell("short", 1) - base["short"]) == 2.9
    assert pct(cell("medium", 1) - base["medium"]) == 2.9
    assert pct(cell("medium", 1, "all_strikes") - base["medium"]) == 5.9
    assert abs(cell("long", 1) - base["long"]) < 0.005  # "nothing": within its noise
    assert (pct(base["medium"] - base["short"]), pct(base["medium"] - base["long"])) == (4.7,
                                                                                          17.7)


def test_the_seven_experiments_are_the_ones_the_docs_name():
    text = (ROOT / "docs" / "zones.md").read_text(encoding="utf-8")
    for path in sorted((ROOT / "experiments").glob("zones-*.toml")):
        assert f"`{path.stem}`" in text
