"""Write the exploration notebooks from their cell sources (run: python notebooks/make_notebooks.py).

The notebooks are kept without outputs; the test suite executes every one of them.
Editing a notebook in Jupyter is fine too: this script only (re)creates the ones it knows.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).parent
NOTEBOOKS: dict[str, list[tuple[str, str]]] = {}


def notebook(name: str, *cells: tuple[str, str]) -> None:
    NOTEBOOKS[name] = list(cells)


def md(text: str) -> tuple[str, str]:
    return ("md", text.strip())


def code(text: str) -> tuple[str, str]:
    return ("code", text.strip())


notebook(
    "crt-novice-vs-veteran",
    md("""
# crt: is the novice hopeless against the veteran?

Seed 001 says of its Combat Results Table: *"These combat results are intrinsically unfair to
the novice and yet lethal to the veteran and even master."*  This notebook puts numbers on
both halves of that sentence with `balance`: a duel with intervals, the exact answer of the
plain duel, a sweep of the novice's experience, and a round robin of the six skill levels.

Sizes are small so the notebook runs in seconds; raise `N` for tighter intervals.
"""),
    code("""
import balance
from balance import analysis, plots

N = 20_000          # fights per matchup
SEED = 1
crt = balance.get("crt")
crt.presets["novice"], crt.presets["veteran"]
"""),
    md("""
## One matchup, with intervals

`balance.duel` returns a summary: rates of A wins, B wins and draws, each with its 95% Wilson
interval, the fight length, how fights ended, and the DEFAULT rule readings the numbers rest
on.
"""),
    code("""
s = balance.duel("crt", "novice", "veteran", n=N, seed=SEED)
print(s)
s.to_frame()
"""),
    md("""
## The exact answer of the plain duel

With the Extraordinary tables off (no mishaps, no table effects) the duel is a Markov chain
over both fighters' health, and `balance.exact` solves it in milliseconds.  The tables are
part of the rules, so the simulated number above is the one to trust for play; the exact
plain duel shows how much of it the bands alone explain.
"""),
    code("""
plain = balance.exact("crt", "novice", "veteran", extraordinary=False)
print(plain)
sim = balance.duel("crt", "novice", "veteran", n=N, seed=SEED, extraordinary=False)
print(f"simulated plain duel: A wins {sim.a_win:.4f} {tuple(round(x, 4) for x in sim.a_win_ci)}")
"""),
    md("""
## How many combats must the novice survive?

Every combat survived adds one point to the combat score, and the CRT reads only the band of
the score difference.  A sweep of the novice's combats survived against the veteran, through
the same runner as `balance sweep`:
"""),
    code("""
import tempfile

spec = {
    "ruleset": "crt",
    "description": "novice's combats survived against the veteran",
    "a": [{"preset": "novice"}],
    "b": [{"preset": "veteran"}],
    "grid": {"axes": [{"field": "a.0.combats", "values": {"start": 0, "stop": 40, "step": 2}}]},
    "run": {"fights": N, "seed": SEED},
}
table, path = balance.sweep(spec, out=tempfile.mkdtemp() + "/run", executor="serial")
ax = plots.curves(table, x="a.0.combats", y="a_win")
table[["a.0.combats", "a_win", "a_win_low", "a_win_high", "draw"]].head(8)
"""),
    md("""
The curve is a staircase: within a band extra points buy nothing, and crossing a band edge
(a score difference of 0, ±1, ±13, ±25) buys a lot.  The marginal value of a point, step by
step, with Newcombe intervals:
"""),
    code("""
analysis.marginal_value(table, "a.0.combats").round(4).head(10)
"""),
    md("""
## Every level against every other

A round robin of the six skill-level presets (both seats), Bradley-Terry ratings, and the
metagame equilibrium: which level a table of clever players would pick.
"""),
    code("""
levels = ["novice", "skilled", "expert", "veteran", "superior", "master"]
rr = analysis.round_robin("crt", levels, n=N // 4, seed=SEED)
score, _ = analysis.score_matrix(rr)
ax = plots.matchup(rr, x="b", y="a", value="a_win")
analysis.ratings(rr)[["elo", "elo_low", "elo_high", "expected_score"]].round(1)
"""),
    code("""
analysis.metagame(rr, resamples=50)
"""),
    md("""
## Reading it

* The first half of the seed's sentence holds: look at the novice's row of the matchup
  matrix and at how far the ratings spread.
* The second half ("lethal to the veteran and even master") is the mishap share and the
  draws: look at `s.cause_shares()` above and at the `end_mishap` column of any sweep.
* Every number here rests on the DEFAULT readings listed in `s.assumptions`; `balance show
  crt` prints them all, and any can be changed with `rules=` or `--rule`.
"""),
    code("""
s.cause_shares(), s.assumptions[:5]
"""),
)


notebook(
    "strike-rank-styles",
    md("""
# strike-rank: fighting-style fairness

Seed 000 (*Avatar*, Abstract Combat) gives every fighter a fighting style: solo styles
(Gladiator, Swashbuckler, Assassin) fight at +5 when alone, group styles (Legionnaire,
Spearman, Poleaxeman) at -5, and the others have their own rules (the Shieldman's -2
defence step, the Knight's penalty-free Armour block and parry-then-block in heavy armour).
Are the styles fair against each other in a duel?  This notebook answers with `balance`:
one duel with intervals, a round robin of six style presets, Bradley-Terry ratings, the
metagame equilibrium with its bootstrap uncertainty, the dominated styles, and the DEFAULT
readings all of it rests on -- above all the armour rules the digest had to invent.

Sizes are small so the notebook runs in seconds; raise `N` for tighter intervals.
"""),
    code("""
import pandas as pd

import balance
from balance import analysis, plots

N = 1_000           # fights per ordered pair in the round robins
SEED = 1
sr = balance.get("strike-rank")
styles = ["gladiator", "swashbuckler", "assassin", "legionnaire", "shieldman", "knight"]
pd.DataFrame({name: balance.api.plain_fields(sr.presets[name]) for name in styles}).T[
    ["style", "skill", "weapon", "shield", "armour"]]
"""),
    md("""
Every preset is one style on the same baseline (Skill 30, Dodge 20, AGI / DEX 12, END 14,
STR 12) with a weapon its style uses without penalty.  Only the style, the weapon, the
shield and the armour differ.

## One duel, with intervals

The solo style against the group style: a Gladiator (+5 alone) against a Legionnaire (-5
alone, but a large shield and torso armour).  `balance.duel` returns the rates of A wins,
B wins and draws with 95% Wilson intervals, the fight length, how fights ended, and the
DEFAULT / AMBIG readings in force.
"""),
    code("""
s = balance.duel("strike-rank", "gladiator", "legionnaire", n=20_000, seed=SEED)
print(s)
s.to_frame()
"""),
    md("""
## Every style against every other

`analysis.round_robin` fights each ordered pair in both seats (and each style against
itself, for the seat advantage).  Each pair draws from its own random streams, keyed by
the two names, so adding a style never changes the numbers of the others.
"""),
    code("""
rr = analysis.round_robin("strike-rank", styles, n=N, seed=SEED)
ax = plots.matchup(rr, x="b", y="a", value="a_win")
rr[["a", "b", "a_win", "a_win_low", "a_win_high", "draw", "mean_rounds"]].head(8).round(3)
"""),
    md("""
Bradley-Terry ratings (draws count half a win to each side), on the Elo scale with 95%
intervals, and each style's expected score against the field:
"""),
    code("""
analysis.ratings(rr)[["elo", "elo_low", "elo_high", "expected_score"]].round(2)
"""),
    md("""
## The metagame

If both players pick a style knowing the matrix, which mix do they settle on?
`analysis.metagame` solves the symmetric equilibrium of the seat-averaged score by linear
programming and redraws every pair's counts (a parametric bootstrap) to show how sure the
mix is; `in_support` is the share of replicates that play the style at all.
`analysis.dominated` lists the styles some mix of the others beats against everyone.
"""),
    code("""
analysis.metagame(rr, resamples=30).round(3)
"""),
    code("""
analysis.dominated(rr, resamples=30).round(3)
"""),
    md("""
The equilibrium is pure: one style beats or holds every other, so every other style is
dominated.  That style is the armoured Knight.

## What the numbers rest on

The seed's armour section (5.11) was not retrieved, so its armour rules are the digest's
DEFAULT proposals (000.10): passive armour lowers a wound's rank by the Armour Index at
the struck location (`armour_mode = "rank_reduction"`), and an Armour block adds 5 x the
torso AI.  The Knight preset wears AI 2 / 2 / 3 / 2 (head, arms, torso, legs), enough to
turn most long-sword wounds into nothing.  These are all the DEFAULT and AMBIG readings
the duel above used:
"""),
    code("""
readings = pd.DataFrame([{"parameter": a.partition("=")[0],
                          "value": a.partition("=")[2].rpartition(" [")[0],
                          "tag": a.rpartition("[")[2].rstrip("]")} for a in s.assumptions])
print(len(readings), "readings;", "armour:", ", ".join(
    readings.loc[readings.parameter.str.contains("armour"), "parameter"]))
readings
"""),
    md("""
### Changing the armour reading

Any reading can be changed with `rules=` (or `--rule` on the command line).  The other
reading of the digest, `armour_mode = "roll_reduction"`, takes 3 per AI off the wound roll
instead; the same round robin under it (the pairs' keys are the same, so only the rule
differs):
"""),
    code("""
rr_roll = analysis.round_robin("strike-rank", styles, n=N, seed=SEED,
                               rules={"armour_mode": "roll_reduction"})
both = pd.concat({"rank_reduction (DEFAULT)": analysis.ratings(rr)["expected_score"],
                  "roll_reduction": analysis.ratings(rr_roll)["expected_score"]}, axis=1)
both.round(3)
"""),
    code("""
analysis.metagame(rr_roll, resamples=30).round(3)
"""),
    md("""
The other reading changes almost nothing: three points per AI off a 2d6 roll is about one
rank per AI, the same as the DEFAULT.  What makes the Knight is the armour itself.  A
designer can try lighter armour by changing the entrant instead of the rules -- here a
Knight with only its torso at AI 2 (still "heavy armour" for the style) -- and the
metagame of the others shows what the duel game looks like without it:
"""),
    code("""
lighter = {**{name: name for name in styles if name != "knight"},
           "knight (torso AI 2)": "knight,armour=torso:2"}
rr_light = analysis.round_robin("strike-rank", lighter, n=N, seed=SEED)
ax = plots.matchup(rr_light, x="b", y="a", value="a_win")
analysis.ratings(rr_light)[["elo", "elo_low", "elo_high", "expected_score"]].round(2)
"""),
    code("""
analysis.metagame(rr_light, resamples=30).round(3)
"""),
    md("""
## Reading it

* In duels at equal Skill the styles are not balanced: under the DEFAULT armour rules the
  armoured Knight beats every other preset or draws (two Knights always draw at the round
  cap), and the alternative `roll_reduction` reading does not change that.  The armour
  rules (5.11, missing from the seed) are the first thing for a designer to settle.
* Without heavy armour the solo styles lead (their +5 alone), and the group style trails
  (-5 alone): compare the Gladiator's and the Legionnaire's rows.  Whether that flips in
  company is the question of `experiments/strike-rank-alone-vs-company.toml`.
* Every number here rests on the readings listed above; `balance show strike-rank` prints
  them all with their digest sections, and `balance sweep
  experiments/strike-rank-style-duels.toml` runs the full nineteen-style round robin.
"""),
)


notebook(
    "zones-skirmish",
    md("""
# zones: a zone skirmish

Seed 002 is a supplement of *abstract zone* rules for a 3d6-ladder skirmish game: position
is a zone (a few named regions) plus, before the lines meet, a band gap (long / medium /
short); crossing a band costs 2 Moves, an in-fray shift 1; a foe holding its ground strikes
whoever leaves; at most two may press one target.  The seed changes only the bookkeeping of
position: the attack roll, the Multiple Attack Penalty (MAP), damage, armor, Defend and
Steady belong to a core book that is **missing**.  So `balance` plays it on the digest's
**DEFAULT core** (002.8), every number of which is a rule parameter.

This notebook walks the seed's worked example (the gate), narrates one fight, runs
skirmishes with intervals, checks Monte Carlo against the exact duel, and sweeps the
penalty schedule.  Sizes are small so it runs in seconds; raise `N` for tighter intervals.
"""),
    code("""
import json
import tempfile

import pandas as pd

import balance
from balance import plots

N = 20_000          # fights per matchup
SEED = 2
zones = balance.get("zones")
list(zones.scenarios), list(zones.presets)
"""),
    md("""
## The map of the worked example

The seed's example (002.6): zones in a line, *approach — gate — keep-yard*.  Doran, Wick
and the archer Toma hold the gate; the caster Sela shelters in the keep-yard; two raiders
start in the approach "a medium band out".  Following the digest (002.7.1) the band gap is
not zone distance: each side's open ground is a track of three band positions (short,
medium, long) hanging off that side's *front* zone.  The preset map `gate` and the scenario
of the same name:
"""),
    code("""
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
"""),
    md("""
## One fight, narrated

`balance.fight` plays one fight with the scalar reference implementation and narrates every
Move, Defend and roll (3d6 + attribute + modifiers − MAP − Defense on the ladder).  Compare
it with the seed's timeline: the raiders run medium → short with a Move banked, Toma shoots
at −1 because they moved (one arrow hits, one misses), Doran and Wick each spend an action
on Defend to hold the gate, the raiders cross the last band with two actions left, the one
who goes for Sela must Disengage (a Maneuver) before shifting to the keep-yard, the other
trades with Wick at the gate (13: Success, then 11 at MAP −2: Partial) and falls the next
round.  Seed 762 is the first seed whose dice follow every step (`tests/zones/
test_gate_timeline.py`).
"""),
    code("""
outcome = balance.fight("zones", gate.side_a, gate.side_b, rules=gate.rules, seed=762,
                        log=print)
outcome
"""),
    md("""
## The skirmish many times, with intervals

`balance.duel` runs the vectorised kernel: win, loss and draw rates with 95% Wilson
intervals, fight length, how fights ended (a side Down, a stalemate of Defends, or the round
cap) and the DEFAULT readings the numbers rest on.  First the gate: four defenders against
two raiders is no contest (the seed tells it as a rout), so it shows the interval of a
rate near 100%.  Then the 4-against-4 `skirmish` scenario on a line of three zones (a
soldier, a swordsman, a heavy and an archer a side; B comes from a short band out).
"""),
    code("""
s = balance.duel("zones", gate.side_a, gate.side_b, rules=gate.rules, n=N, seed=SEED)
print(s)
print("defenders standing at the end, on average:", round(s.extra_mean("a_standing"), 2))
"""),
    code("""
sk = zones.scenario("skirmish")
fight_4v4 = balance.duel("zones", sk.side_a, sk.side_b, rules=sk.rules, n=N, seed=SEED)
print(sk.description)
print(fight_4v4)
fight_4v4.to_frame()
"""),
    md("""
The 4v4 is not a mirror: side A stands in its zone while B spends Moves crossing the band,
so the sides differ in who acts with actions to spare.  Which of the readings the seed
leaves open move this fight?  One at a time, each against the defaults above (same seed):
"""),
    code("""
readings = [("charge_scope", "all_strikes"), ("hold_strikes", "per_leave"),
            ("outnumber_scope", "off"), ("activation", "side_all"),
            ("shift_speed_rule", "speed2_first_shift_free"), ("armour_mode", "success_bypasses")]
rows = [{"reading": "(defaults)", "A wins": fight_4v4.a_win, "low": fight_4v4.a_win_ci[0],
         "high": fight_4v4.a_win_ci[1]}]
for name, value in readings:
    r = balance.duel("zones", sk.side_a, sk.side_b, rules={**sk.rules, name: value}, n=N, seed=SEED)
    rows.append({"reading": f"{name} = {value}", "A wins": r.a_win, "low": r.a_win_ci[0],
                 "high": r.a_win_ci[1]})
pd.DataFrame(rows).round(3)
"""),
    md("""
## The exact duel against Monte Carlo

Two fighters in one zone from contact, melee only, is a Markov chain over both HP totals;
`balance.exact` solves it in milliseconds.  The simulated win rate should hold the exact one
inside its interval about 95 times in 100.
"""),
    code("""
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
pd.DataFrame(rows)
"""),
    md("""
## A small sweep: the penalty schedule against Might

The seed gives only the second attack's −2; the DEFAULT core adds −4 for a third.  A sweep
through the same runner as `balance sweep` (see `experiments/zones-map-vs-might.toml` and
its report for the full-size run): the duellist's Might against three schedules, every cell
also solved exactly.
"""),
    code("""
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
"""),
    md("""
A harsher penalty makes fights longer (every second swing slides down the 3d6 bell) and
a point of Might a little more valuable: the stronger fighter keeps more of his penalised
hits.  Whether a *third* attack is worth taking is `experiments/zones-third-attack.toml`:
under the DEFAULT core, spending the third action on Defend (+1 Defense against melee)
beats the third Strike at −4 for a fighter of Might 1.

## The DEFAULT core

Everything the missing core book would say is a parameter tagged DEFAULT (a gap filled by
the digest) or AMBIG (an unclear passage read one way).  `balance show zones` prints them;
here are the rule parameters of the core (002.8):
"""),
    code("""
params = pd.DataFrame(zones.describe()["rule_parameters"])
core = params[params["tag"] == "DEFAULT"][["name", "default", "doc"]]
pd.set_option("display.max_colwidth", 90)
core.set_index("name")
"""),
    code("""
ambig = params[params["tag"] == "AMBIG"][["name", "default", "doc"]]
ambig.set_index("name")
"""),
    md("""
Every result above lists the readings it rests on (`s.assumptions`), and any of them can be
changed per call (`rules=` or keyword overrides) or per experiment (`[rules]`, or a
`rules.<parameter>` axis).  For instance the digest's alternative reading of "full damage
past armor" (a Success ignores Armor, a Partial is damage − Armor):
"""),
    code("""
plain = balance.exact("zones", "swordsman", "soldier", initial_gap="contact")
bypass = balance.exact("zones", "swordsman", "soldier", initial_gap="contact",
                       armour_mode="success_bypasses")
print(f"swordsman against soldier (Armor 2, shield): armor subtracted {plain.a_win:.3f}, "
      f"Success bypasses Armor {bypass.a_win:.3f}")
len(s.assumptions), s.assumptions[:4]
"""),
)


notebook(
    "quickstart",
    md("""
# balance quickstart

`balance` simulates and solves tabletop combat rules to answer "is this fair?" with numbers.
Four rule systems ship with it; this notebook fights once in each, runs a duel with
intervals, asks an exact solver, and draws one plot.
"""),
    code("""
import balance
from balance import plots

for name, rs in balance.RULESETS.items():
    print(f"{name:12s} {rs.title}")
"""),
    md("""
## One narrated fight per ruleset

`balance.fight` runs the scalar reference implementation, the executable reading of the
rules, and narrates every roll.  Only the first lines are shown here.
"""),
    code("""
MATCHES = {
    "crt": ("veteran", "expert"),
    "strike-rank": ("skirmisher", "gladiator"),
    "zones": ("swordsman", "soldier"),
    "pool": ("duellist", "guard"),
}
for name, (a, b) in MATCHES.items():
    lines = []
    outcome = balance.fight(name, a, b, seed=1, log=lines.append)
    print(f"=== {name}: {a} against {b}: {outcome.winner.name} after {outcome.rounds} rounds ({outcome.cause})")
    print("\\n".join(lines[:8]))
    print("...\\n")
"""),
    md("""
## Many fights, with honest intervals

`balance.duel` runs the vectorised kernel.  Every rate carries its 95% Wilson interval, and
the summary lists the DEFAULT / AMBIG rule readings the numbers rest on.
"""),
    code("""
import pandas as pd

rows = []
for name, (a, b) in MATCHES.items():
    s = balance.duel(name, a, b, n=20_000, seed=1)
    rows.append({"ruleset": name, "A": a, "B": b, **s.to_row(), "assumptions": len(s.assumptions)})
summary = pd.DataFrame(rows)
summary[["ruleset", "A", "B", "a_win", "a_win_low", "a_win_high", "draw", "mean_rounds", "assumptions"]]
"""),
    md("""
## Exact answers where they exist

The plain crt duel is a Markov chain; pool is diceless, so its honest answer is the value
of a game, solved by linear programming and backward induction.
"""),
    code("""
print(balance.exact("crt", "veteran", "expert", extraordinary=False))
print(balance.exact("pool", "duellist", "guard"))
"""),
    md("""
## A plot

Win rate of A in each ruleset's matchup, with its interval.  Every plot in `balance.plots`
takes a DataFrame and an optional Axes, and returns the Axes; `heatmap`, `curves` and
`matchup` draw sweep tables.
"""),
    code("""
ax = plots.intervals(summary, label=["ruleset", "A", "B"])
ax.set_title("A's win rate in one matchup per ruleset")
"""),
    md("""
Next: `balance show RULESET` lists every field and rule parameter with its provenance tag;
`experiments/` holds designer questions as TOML files (`balance sweep`, `balance report`);
the other notebooks go deeper into one ruleset each.
"""),
)


notebook(
    "pool-equilibrium",
    md("""
# The equilibrium of pool

Seed 003 ("Courts", *Worlds Within Worlds*) has no dice: each fighter has one Combat Pool
for the whole fight and spends it point for point on any check, and the attack must *beat*
the defence.  Given both sides' spending, a fight is decided -- so "who wins" is the value
of a game, and `balance` solves that game exactly (digest 003.4, engineering note).

This notebook solves one matchup, reads the equilibrium bids, shows how the answer moves
with the round cap and the bid protocol (003.3 #2), checks the exact numbers against Monte
Carlo fights that sample the equilibrium, and runs a small exact sweep through the same
runner as `balance sweep`.  Sizes are small so it runs in well under a minute.
"""),
    code("""
import balance
from balance import plots

pool = balance.get("pool")
A = "average,intellect=6"     # the average fighter with a pool of 5 ...
B = "average"                 # ... against the average fighter (pool 4)
N = 20_000                    # Monte Carlo fights
SEED = 1
pool.combatant(A), pool.combatant(B)
"""),
    md("""
## One matchup, solved exactly

Both fighters have attack 6 (Co 4 + Combat 2) against defence 6 (Fort 4 + Combat 2): an
unaided attack never beats the defence, so every hit is bought with pool points.  Under
sealed bids (the default `bid_protocol`) each exchange is a small matrix game; the solver
works backwards through every state (health, pools, whose turn, rounds left).  The game
value is A's win chance plus half the draws (`draw_worth = 0.5`).
"""),
    code("""
p = balance.exact("pool", A, B)
print(p)
"""),
    md("""
## The equilibrium bid table

`Probabilities.strategy` lists the round-1 states: how likely each is, the mixed bids of
attacker and defender (`bid:probability`), the chance the attack lands and the state's
value.  Turn Values tie here (Co 4 each), so the coin decides the order and both orders are
solved.
"""),
    code("""
p.strategy.head(10)
"""),
    md("""
## How the value moves with the round cap and the bid protocol

The round cap (`max_rounds`, a draw when reached) is part of the state: the uncapped game's
value is only approached by strategies that wait ever longer (docs/pool.md).  The bid
protocol is the central AMBIG reading: with `attacker_first` the defender answers a known
attack, and with `defender_first` the attacker answers a known defence.
"""),
    code("""
import pandas as pd

rows = []
for protocol in ("sealed", "attacker_first", "defender_first"):
    for cap in (2, 5, 10, 20, 50):
        q = balance.exact("pool", A, B, bid_protocol=protocol, max_rounds=cap)
        rows.append({"bid_protocol": protocol, "max_rounds": cap,
                     "value": q.details["game_value"], "A wins": q.a_win, "draw": q.draw})
by_cap = pd.DataFrame(rows)
by_cap.pivot(index="max_rounds", columns="bid_protocol", values="value").round(4)
"""),
    code("""
from matplotlib.figure import Figure

fig = Figure(figsize=(6, 3.5), layout="constrained")
ax = fig.subplots()
for protocol, part in by_cap.groupby("bid_protocol"):
    ax.plot(part["max_rounds"], part["value"], marker="o", label=protocol)
ax.set_xscale("log")
ax.set_xlabel("max_rounds")
ax.set_ylabel("game value for A")
ax.set_title(f"{A} against {B}")
ax.legend()
fig
"""),
    md("""
An informed defender (`attacker_first`) blocks every attack it can afford, so this fight
becomes a certain stalemate (value 0.5); an informed attacker (`defender_first`) always
finds the one bid that lands, so the bigger pool wins outright.  Sealed bids sit in
between, and their value grows with the cap as the bigger pool has time to tell.
"""),
    md("""
## Monte Carlo of the equilibrium against its exact value

`pool_policy=equilibrium` makes the kernel sample each bid from the solved strategy, so
simulated fights of the equilibrium should match the exact probabilities within their
intervals.
"""),
    code("""
sim = balance.duel("pool", A + ",pool_policy=equilibrium", B + ",pool_policy=equilibrium",
                   n=N, seed=SEED)
print(sim)
for name, exact_rate, (low, high) in (("A wins", p.a_win, sim.a_win_ci),
                                       ("B wins", p.b_win, sim.b_win_ci),
                                       ("draw", p.draw, sim.draw_ci)):
    inside = "inside" if low <= exact_rate <= high else "OUTSIDE"
    print(f"{name:7s} exact {exact_rate:.4f}, simulated 95% interval [{low:.4f}, {high:.4f}]: "
          f"{inside}")
"""),
    md("""
## A small exact sweep

The same grid machinery as `balance sweep`, with `[run] method = "exact"`: every cell is
solved by the exact solver (one task per cell, cached in the run directory, resumable), and
the table has the usual columns with intervals of zero width, `method = "exact"` and the
solver's details (`game_value`, `states`, `solve_ms`, ...).  Here A's Intellect (its pool)
against the average fighter, under two protocols, with a 20-round cap to keep it quick.
`experiments/pool-intellect.toml` is the full version.
"""),
    code("""
import tempfile

spec = {
    "ruleset": "pool",
    "description": "A's Intellect against the average fighter, two bid protocols",
    "rules": {"max_rounds": 20},
    "a": [{"preset": "average"}],
    "b": [{"preset": "average"}],
    "grid": {"axes": [{"field": "a.0.intellect", "values": {"start": 2, "stop": 8}},
                      {"field": "rules.bid_protocol", "values": ["sealed", "attacker_first"]}]},
    "run": {"method": "exact"},
}
table, path = balance.sweep(spec, out=tempfile.mkdtemp() + "/run", executor="serial")
table[["a.0.intellect", "rules.bid_protocol", "a_win", "b_win", "draw", "game_value",
       "states", "solve_ms"]]
"""),
    code("""
ax = plots.curves(table, x="a.0.intellect", y="a_win", by="rules.bid_protocol")
"""),
    md("""
## Reading it

* Intellect buys pool at two points a pool point, and in this even fight each pool point
  moves A's chances a lot -- under sealed bids.  Under attacker-first bids it buys nothing:
  every contested fight stalls.
* The answer is exact: no interval to report, only the rule readings it rests on
  (`p.assumptions`; `balance show pool`).  Change any of them with `rules=` or `--rule`.
"""),
    code("""
p.assumptions
"""),
)


def main(names: list[str]) -> None:
    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        nb = new_notebook(cells=[new_markdown_cell(src) if kind == "md" else new_code_cell(src)
                                 for kind, src in cells])
        for i, cell in enumerate(nb.cells):  # stable ids: regenerating changes nothing
            cell.id = hashlib.blake2b(f"{name}/{i}".encode(), digest_size=4).hexdigest()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.write(nb, HERE / f"{name}.ipynb")
        print(HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
