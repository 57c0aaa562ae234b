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
# # crt: is the novice hopeless against the veteran?
#
# Seed 001 says of its Combat Results Table: *"These combat results are intrinsically unfair to
# the novice and yet lethal to the veteran and even master."*  This notebook puts numbers on
# both halves of that sentence with `balance`: a duel with intervals, the exact answer of the
# plain duel, a sweep of the novice's experience, and a round robin of the six skill levels.
#
# Sizes are small so the notebook runs in seconds; raise `N` for tighter intervals.

# %%
import balance
from balance import analysis, plots

N = 20_000          # fights per matchup
SEED = 1
crt = balance.get("crt")
# what makes each preset: its fields that differ from the defaults (as `balance show crt`)
{name: crt.describe()["presets"][name] for name in ("novice", "veteran")}

# %% [markdown]
# ## One matchup, with intervals
#
# `balance.duel` returns a summary: rates of A wins, B wins and draws, each with its 95% Wilson
# interval, the fight length, how fights ended, and the DEFAULT rule readings the numbers rest
# on.

# %%
s = balance.duel("crt", "novice", "veteran", n=N, seed=SEED)
print(s)
s.to_frame()

# %% [markdown]
# ## The exact answer of the plain duel
#
# With the Extraordinary tables off (no mishaps, no table effects) the duel is a Markov chain
# over both fighters' health, and `balance.exact` solves it in milliseconds.  The tables are
# part of the rules, so the simulated number above is the one to trust for play; the exact
# plain duel shows how much of it the bands alone explain.

# %%
plain = balance.exact("crt", "novice", "veteran", extraordinary=False)
print(plain)
sim = balance.duel("crt", "novice", "veteran", n=N, seed=SEED, extraordinary=False)
print(f"simulated plain duel: A wins {sim.a_win:.4f} {tuple(round(x, 4) for x in sim.a_win_ci)}")

# %% [markdown]
# ## How many combats must the novice survive?
#
# Every combat survived adds one point to the combat score, and the CRT reads only the band of
# the score difference.  A sweep of the novice's combats survived against the veteran, through
# the same runner as `balance sweep`:

# %%
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

# %% [markdown]
# The curve is a staircase: within a band extra points buy nothing, and crossing a band edge
# (a score difference of 0, ±1, ±13, ±25) buys a lot.  The marginal value of a point, step by
# step, with Newcombe intervals:

# %%
analysis.marginal_value(table, "a.0.combats").round(4).head(10)

# %% [markdown]
# ## Every level against every other
#
# A round robin of the six skill-level presets (both seats), Bradley-Terry ratings, and the
# metagame equilibrium: which level a table of clever players would pick.

# %%
levels = ["novice", "skilled", "expert", "veteran", "superior", "master"]
rr = analysis.round_robin("crt", levels, n=N // 4, seed=SEED)
score, _ = analysis.score_matrix(rr)
ax = plots.matchup(rr, x="b", y="a", value="a_win")
analysis.ratings(rr)[["elo", "elo_low", "elo_high", "expected_score"]].round(1)

# %%
analysis.metagame(rr, resamples=50)

# %% [markdown]
# ## Reading it
#
# The numbers below are formatted from the results above (the cell checks the claims it
# makes, so it fails if a change of rules or sizes makes a sentence untrue).

# %%
from IPython.display import Markdown


def pct(x):
    return f"{100 * x:.1f}%"


low, high = s.a_win_ci
floor = min(rr.loc[(rr.a == weaker) & (rr.b == stronger), "a_win"].item()
            for weaker in levels for stronger in levels
            if levels.index(stronger) > levels.index(weaker))
master_loss = rr.loc[(rr.a == "master") & (rr.b == "novice"), "b_win"].item()
mishap = s.cause_shares()["mishap"]
elo = analysis.ratings(rr)["elo"]
even = int(table.loc[table.a_win > table.b_win, "a.0.combats"].min())
steps = table.sort_values("a.0.combats")["a_win"].diff().dropna()
flat = int((steps.abs() < 0.01).sum())
assert s.a_win < 0.1 and score.loc["novice", "veteran"] < 0.1  # "unfair to the novice"
assert master_loss > 0.01                                        # "... lethal to the master"
assert floor > 0                                                 # "keeps a floor"
assert flat > len(steps) / 2 and steps.max() > 0.05              # "flat inside a band, jumps"
Markdown(f"""
* **Unfair to the novice: yes.** The novice beats the veteran in {pct(s.a_win)} of fights
  (95% interval {pct(low)} to {pct(high)}), draws {pct(s.draw)}, and scores
  {score.loc["novice", "veteran"]:.3f} against him over both seats (win 1, draw 1/2).
  The ratings spread {elo.max() - elo.min():.0f} Elo points from the novice to the master.
* **Lethal to the veteran and even the master: yes, a little.** However large the gap,
  the weaker fighter keeps a floor: at least {pct(floor)} of wins in every pairing of the
  round robin, and the master loses {pct(master_loss)} of fights to the novice.  Mishaps on
  the Extraordinary Failure table end {pct(mishap)} of the novice-veteran fights.
* **Experience closes the gap, in steps.** The plain duel (no tables) gives the novice
  {pct(plain.a_win)} exactly.  In the sweep the novice first wins more often than the
  veteran at {even} combats survived, and
  {flat} of the {len(steps)} two-combat steps move his win rate by less than one point: the
  curve is flat inside a band and jumps at its edges.
* These numbers rest on {len(s.assumptions)} DEFAULT / AMBIG readings
  (`s.assumptions`; `balance show crt` prints them all), each changeable with `rules=`.
""")
