"""Write the exploration notebooks from their cell sources (run: python notebooks/make_notebooks.py).

The notebooks are kept without outputs; the test suite executes every one of them.
Editing a notebook in Jupyter is fine too: this script only (re)creates the ones it knows.
"""

from __future__ import annotations

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

Win rate of A in each ruleset's matchup, with its interval (plots take a DataFrame and an
optional Axes, and return the Axes).
"""),
    code("""
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 3))
ax.errorbar(summary["ruleset"], summary["a_win"],
            yerr=[summary["a_win"] - summary["a_win_low"], summary["a_win_high"] - summary["a_win"]],
            fmt="o", capsize=4)
ax.set_ylabel("A's win rate (95% interval)")
ax.set_ylim(0, 1)
ax.axhline(0.5, color="grey", lw=0.8, ls="--")
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
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.write(nb, HERE / f"{name}.ipynb")
        print(HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
