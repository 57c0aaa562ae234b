# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # zones: a zone skirmish
#
# Seed 002 is a supplement of *abstract zone* rules for a 3d6-ladder skirmish game: position
# is a zone (a few named regions) plus, before the lines meet, a band gap (long / medium /
# short); crossing a band costs 2 Moves, an in-fray shift 1; a foe holding its ground strikes
# whoever leaves; at most two may press one target.  The seed changes only the bookkeeping of
# position: the attack roll, the Multiple Attack Penalty (MAP), damage, armor, Defend and
# Steady belong to a core book that is **missing**.  So `balance` plays it on the digest's
# **DEFAULT core** (002.8), every number of which is a rule parameter.
#
# This notebook walks the seed's worked example (the gate), narrates one fight, runs
# skirmishes with intervals, checks Monte Carlo against the exact duel, and sweeps the
# penalty schedule.  Sizes are small so it runs in seconds; raise `N` for tighter intervals.

# %%
import json
import tempfile

import pandas as pd

import balance
from balance import plots

N = 20_000          # fights per matchup
SEED = 2
zones = balance.get("zones")
print("scenarios:", ", ".join(zones.scenarios))
print("presets:  ", ", ".join(zones.presets))

# %% [markdown]
# ## The map of the worked example
#
# The seed's example (002.6): zones in a line, *approach — gate — keep-yard*.  Doran, Wick
# and the archer Toma hold the gate; the caster Sela shelters in the keep-yard; two raiders
# start in the approach "a medium band out".  Following the digest (002.7.1) the band gap is
# not zone distance: each side's open ground is a track of three band positions (short,
# medium, long) hanging off that side's *front* zone.  The preset map `gate` and the scenario
# of the same name:

# %%
gate = zones.scenario("gate")
field = zones.rules(gate.rules).battlefield


def describe_map(bf):
    tags = ("commanding", "cover", "hazard", "chokepoint")
    for z in bf["zones"]:
        extra = [t if t != "chokepoint" else f"chokepoint {z[t]}" for t in tags if z[t]]
        print(f"zone {z['name']!r}" + (f" ({', '.join(extra)})" if extra else ""))
    for x, y in bf["adjacent"]:
        print(f"  {x} -- {y}: an in-fray shift (1 Move)")
    for side in ("a", "b"):
        print(f"side {side.upper()}'s open ground ({bf['approach_' + side]}): "
              f"{bf['front_' + side]} <- short <- medium <- long (2 Moves a band)")


print(gate.description)
describe_map(field)
hp = zones.rules(gate.rules).hp  # a combatant without its own HP has the rules' 12
pd.DataFrame([{"side": side, **{k: getattr(c, k) for k in
                                ("name", "zone", "might", "agility", "defence", "shield",
                                 "armour", "weapon", "ranged", "policy")}, "hp": c.hp or hp}
              for side, members in (("A", gate.side_a), ("B", gate.side_b))
              for c in members])

# %% [markdown]
# ## One fight, narrated
#
# `balance.fight` plays one fight with the scalar reference implementation and narrates every
# Move, Defend and roll (3d6 + attribute + modifiers − MAP − Defense on the ladder).  Compare
# it with the seed's timeline: the raiders run medium → short with a Move banked, Toma shoots
# at −1 because they moved (one arrow hits, one misses), Doran and Wick each spend an action
# on Defend to hold the gate, the raiders cross the last band with two actions left, the one
# who goes for Sela must Disengage (a Maneuver) before shifting to the keep-yard, the other
# trades with Wick at the gate (13: Success, then 11 at MAP −2: Partial) and falls the next
# round.  Seed 762 is the first seed whose dice follow every step (`tests/zones/
# test_gate_timeline.py`).

# %%
outcome = balance.fight("zones", gate.side_a, gate.side_b, rules=gate.rules, seed=762,
                        log=print)
print(f"== {outcome.winner.name} wins after {outcome.rounds} rounds ({outcome.cause})")

# %% [markdown]
# ## The skirmish many times, with intervals
#
# `balance.duel` runs the vectorised kernel: win, loss and draw rates with 95% Wilson
# intervals, fight length, how fights ended (a side Down, a stalemate of Defends, or the round
# cap) and the DEFAULT readings the numbers rest on.  First the gate: four defenders against
# two raiders is no contest (the seed tells it as a rout), so it shows the interval of a
# rate near 100%.  Then the 4-against-4 `skirmish` scenario on a line of three zones (a
# soldier, a swordsman, a heavy and an archer a side; B comes from a short band out).

# %%
s = balance.duel("zones", gate.side_a, gate.side_b, rules=gate.rules, n=N, seed=SEED)
print(s)
print("defenders standing at the end, on average:", round(s.extra_mean("a_standing"), 2))

# %%
sk = zones.scenario("skirmish")
fight_4v4 = balance.duel("zones", sk.side_a, sk.side_b, rules=sk.rules, n=N, seed=SEED)
print(sk.description)
print(fight_4v4)
fight_4v4.to_frame()

# %% [markdown]
# The 4v4 is not a mirror: side A stands in its zone while B spends Moves crossing the band,
# so the sides differ in who acts with actions to spare.  Which of the readings the seed
# leaves open move this fight?  One at a time, each against the defaults above (same seed):

# %%
readings = [("charge_scope", "all_strikes"), ("hold_strikes", "per_leave"),
            ("outnumber_scope", "off"), ("activation", "side_all"),
            ("shift_speed_rule", "speed2_first_shift_free"), ("armour_mode", "success_bypasses")]
rows = [{"reading": "(defaults)", "A wins": fight_4v4.a_win, "low": fight_4v4.a_win_ci[0],
         "high": fight_4v4.a_win_ci[1]}]
for name, value in readings:
    r = balance.duel("zones", sk.side_a, sk.side_b, rules={**sk.rules, name: value}, n=N, seed=SEED)
    rows.append({"reading": f"{name} = {value}", "A wins": r.a_win, "low": r.a_win_ci[0],
                 "high": r.a_win_ci[1]})
by_reading = pd.DataFrame(rows)
by_reading.round(3)

# %% [markdown]
# ## The exact duel against Monte Carlo
#
# Two fighters in one zone from contact, melee only, is a Markov chain over both HP totals;
# `balance.exact` solves it in milliseconds.  The simulated win rate should hold the exact one
# inside its interval about 95 times in 100.

# %%
rows = []
for might in range(5):
    a = {"name": "duellist", "might": might}
    exact = balance.exact("zones", a, {}, initial_gap="contact")
    sim = balance.duel("zones", a, {}, n=N, seed=SEED, initial_gap="contact")
    low, high = sim.a_win_ci
    rows.append({"A's Might": might, "exact": round(exact.a_win, 4),
                 "simulated": round(sim.a_win, 4), "low": round(low, 4), "high": round(high, 4),
                 "inside": low <= exact.a_win <= high,
                 "exact mean rounds": round(exact.mean_rounds, 2),
                 "simulated mean rounds": round(sim.mean_rounds, 2)})
against_exact = pd.DataFrame(rows)
against_exact

# %% [markdown]
# ## A small sweep: the penalty schedule against Might
#
# The seed gives only the second attack's −2; the DEFAULT core adds −4 for a third.  A sweep
# through the same runner as `balance sweep` (see `experiments/zones-map-vs-might.toml` and
# its report for the full-size run): the duellist's Might against three schedules, every cell
# also solved exactly.

# %%
spec = {
    "ruleset": "zones",
    "description": "penalty schedule x Might (notebook size)",
    "rules": {"initial_gap": "contact"},
    "a": [{"name": "duellist"}],
    "b": [{"name": "fighter"}],
    "grid": {"axes": [{"field": "rules.map", "values": [[0, -1, -2], [0, -2, -4], [0, -4, -8]]},
                      {"field": "a.0.might", "values": [0, 1, 2, 3, 4]}]},
    "run": {"fights": N // 4, "seed": SEED},
}
table, path = balance.sweep(spec, out=tempfile.mkdtemp() + "/run", executor="serial")
table["exact"] = [balance.exact("zones", {"might": int(m)}, {}, initial_gap="contact",
                                map=json.loads(schedule)).a_win
                  for schedule, m in zip(table["rules.map"], table["a.0.might"], strict=True)]
ax = plots.curves(table, x="a.0.might", y="a_win", by="rules.map")
ax.plot(table["a.0.might"], table["exact"], "k.", label="exact")
ax.legend(fontsize=8)
table[["rules.map", "a.0.might", "a_win", "a_win_low", "a_win_high", "exact", "mean_rounds"]]

# %% [markdown]
# Whether a *third* attack is worth taking at all, against spending the action on Defend,
# is the question of `experiments/zones-third-attack.toml`.
#
# ## The DEFAULT core
#
# Everything the missing core book would say is a parameter tagged DEFAULT (a gap filled by
# the digest) or AMBIG (an unclear passage read one way).  `balance show zones` prints them;
# here are the rule parameters of the core (002.8):

# %%
params = pd.DataFrame(zones.describe()["rule_parameters"])
core = params[params["tag"] == "DEFAULT"][["name", "default", "doc"]]
pd.set_option("display.max_colwidth", 90)
core.set_index("name")

# %%
ambig = params[params["tag"] == "AMBIG"][["name", "default", "doc"]]
ambig.set_index("name")

# %% [markdown]
# Every result above lists the readings it rests on (`s.assumptions`), and any of them can be
# changed per call (`rules=` or keyword overrides) or per experiment (`[rules]`, or a
# `rules.<parameter>` axis).  For instance the digest's alternative reading of "full damage
# past armor" (a Success ignores Armor, a Partial is damage − Armor):

# %%
plain = balance.exact("zones", "swordsman", "soldier", initial_gap="contact")
bypass = balance.exact("zones", "swordsman", "soldier", initial_gap="contact",
                       armour_mode="success_bypasses")
print(f"swordsman against soldier: armor subtracted {plain.a_win:.3f}, "
      f"Success bypasses Armor {bypass.a_win:.3f}")

# %% [markdown]
# ## Reading it
#
# Formatted from the results above; the cell checks each claim it makes.

# %%
from IPython.display import Markdown


def pct(x):
    return f"{100 * x:.1f}%"


low, high = fight_4v4.a_win_ci
moves = by_reading.iloc[1:].assign(change=lambda f: f["A wins"] - fight_4v4.a_win)
biggest = moves.loc[moves["change"].abs().idxmax()]
inside = int(against_exact["inside"].sum())
schedules = table.groupby("rules.map")["mean_rounds"].mean().sort_values()
might_value = table.groupby("rules.map").apply(
    lambda g: (g["exact"].max() - g["exact"].min()) / (g["a.0.might"].max() - g["a.0.might"].min()),
    include_groups=False)
assert s.a_win > 0.99 and fight_4v4.a_win > 0.5
assert inside >= len(against_exact) - 1                          # "Monte Carlo agrees"
assert plain.a_win != bypass.a_win                               # "moves ... from ... to"
assert list(schedules.index) == sorted(schedules.index, key=lambda m: -sum(json.loads(m)))
Markdown(f"""
* **The gate is a rout, as the seed tells it:** the defenders win {pct(s.a_win)} of
  {s.n:,} fights (95% interval from {100 * s.a_win_ci[0]:.2f}%) with
  {s.extra_mean("a_standing"):.1f} of the {len(gate.side_a)} defenders standing at the end on
  average.
* **The 4-against-4 skirmish favours the side that holds:** A wins {pct(fight_4v4.a_win)}
  ({pct(low)} to {pct(high)}).  Of the open readings tried one at a time, `{biggest["reading"]}`
  moves it most, to {pct(biggest["A wins"])} ({100 * biggest["change"]:+.1f} points); the
  readings that move it by more than the intervals are the ones to settle first.
* **Monte Carlo agrees with the exact duel:** the exact win rate lies inside the simulated
  95% interval for {inside} of {len(against_exact)} values of Might.
* **A harsher penalty schedule makes fights longer:** mean length
  {schedules.iloc[0]:.2f} rounds under {schedules.index[0]} against {schedules.iloc[-1]:.2f}
  under {schedules.index[-1]}; a point of Might is worth
  {100 * might_value.min():.1f} to {100 * might_value.max():.1f} points of win rate (exact,
  averaged over Might 0 to 4) across the schedules.
* All of it rests on the DEFAULT core: {len(s.assumptions)} DEFAULT / AMBIG readings in the
  gate fight alone; the armour reading alone moves the swordsman's exact chance against the
  soldier from {pct(plain.a_win)} to {pct(bypass.a_win)}.
""")
