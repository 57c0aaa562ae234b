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
# # balance quickstart
#
# `balance` simulates and solves tabletop combat rules to answer "is this fair?" with numbers.
# Four rule systems ship with it; this notebook fights once in each, runs a duel with
# intervals, asks an exact solver, and draws one plot.

# %%
import balance
from balance import plots

for name, rs in balance.RULESETS.items():
    print(f"{name:12s} {rs.title}")

# %% [markdown]
# ## One narrated fight per ruleset
#
# `balance.fight` runs the scalar reference implementation, the executable reading of the
# rules, and narrates every roll.  Only the first lines are shown here.

# %%
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
    print("\n".join(lines[:8]))
    print("...\n")

# %% [markdown]
# ## Many fights, with honest intervals
#
# `balance.duel` runs the vectorised kernel.  Every rate carries its 95% Wilson interval, and
# the summary lists the DEFAULT / AMBIG rule readings the numbers rest on.

# %%
import pandas as pd

rows = []
for name, (a, b) in MATCHES.items():
    s = balance.duel(name, a, b, n=20_000, seed=1)
    rows.append({"ruleset": name, "A": a, "B": b, **s.to_row(), "assumptions": len(s.assumptions)})
summary = pd.DataFrame(rows)
summary[["ruleset", "A", "B", "a_win", "a_win_low", "a_win_high", "draw", "mean_rounds", "assumptions"]]

# %% [markdown]
# ## Exact answers where they exist
#
# The plain crt duel is a Markov chain; pool is diceless, so its honest answer is the value
# of a game, solved by linear programming and backward induction.

# %%
print(balance.exact("crt", "veteran", "expert", extraordinary=False))
print(balance.exact("pool", "duellist", "guard"))

# %% [markdown]
# ## A plot
#
# Win rate of A in each ruleset's matchup, with its interval.  Every plot in `balance.plots`
# takes a DataFrame and an optional Axes, and returns the Axes; `heatmap`, `curves` and
# `matchup` draw sweep tables.

# %%
ax = plots.intervals(summary, label=["ruleset", "A", "B"])
title = ax.set_title("A's win rate in one matchup per ruleset")

# %% [markdown]
# Next: `balance show RULESET` lists every field and rule parameter with its provenance tag;
# `experiments/` holds designer questions as TOML files (`balance sweep`, `balance report`);
# the other notebooks go deeper into one ruleset each, and `explorer` shows the interactive
# panel (`balance.explore()`; `balance explore` for the same panel as a local web page).
