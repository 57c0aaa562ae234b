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

def main(names: list[str]) -> None:
    for name, cells in NOTEBOOKS.items():
        if names and name not in names:
            continue
        nb = new_notebook(cells=[new_markdown_cell(src) if kind == "md" else new_code_cell(src)
                                 for kind, src in cells])
        for i, cell in enumerate(nb.cells):  # stable ids: regenerating changes nothing
            cell.id = f"{name}-{i}"
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.metadata["language_info"] = {"name": "python"}
        nbformat.write(nb, HERE / f"{name}.ipynb")
        print(HERE / f"{name}.ipynb")


if __name__ == "__main__":
    main(sys.argv[1:])
