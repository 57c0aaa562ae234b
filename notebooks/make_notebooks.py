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
