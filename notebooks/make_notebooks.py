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
