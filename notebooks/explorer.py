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
# # The explorer: change a stat, see the odds move
#
# `balance.explore()` is a panel of controls for any ruleset -- both sides (a preset to
# start from, every field below it, more fighters where the ruleset allows groups) and
# every rule parameter -- and the answer beside them, updated as a control moves: exact
# where the ruleset's solver covers the matchup, Monte Carlo within about 0.3 s otherwise,
# refined while nothing changes.  The same panel is a web page with `balance explore`
# (served on this machine only).
#
# Run the next cell and move things: open *fields* under a fighter, pick another preset,
# tick *compare* to pin a baseline, try the *Matchup matrix* tab.  (The controls come from
# each field's metadata: a closed set of choices is a dropdown, a bounded number a slider,
# a table a set of rows; DEFAULT and AMBIG readings say so in their labels.)

# %%
import balance

ex = balance.explore("crt", "novice", "veteran")
ex

# %% [markdown]
# ## Driving it from code
#
# Every control is also reachable from Python, which is how this notebook (and the test
# suite) checks what the panel shows.  `ex.set` moves a control as a designer would;
# `ex.wait()` waits for the answer (the live panel answers in a background thread).
# Here the novice gets twelve combats of experience:

# %%
ex.set("a.0.combats", 12)
ex.wait()
answer = ex.answer
print(f"{answer.question.describe()}: A wins {answer.a_win:.2%} "
      f"[{answer.a_win_ci[0]:.2%}, {answer.a_win_ci[1]:.2%}], {answer.method}, "
      f"{answer.n:,} fights")

# %% [markdown]
# A Monte Carlo answer is exactly `balance.duel` with the explorer's seed, its number of
# fights and its chunk size (`CHUNK`): the explorer runs the same streams
# chunk by chunk, so any number it shows can be reproduced from the command line with
# `balance duel crt --a novice,combats=12 --b veteran -n N --seed 1 --chunk-size 16384`.

# %%
from balance.explorer import CHUNK

same = balance.duel("crt", "novice,combats=12", "veteran", n=answer.n, seed=1,
                    chunk_size=CHUNK)
print(f"balance.duel: A wins {same.a_win:.2%} over {same.n:,} fights")
assert (same.a_win, same.draw) == (answer.a_win, answer.draw)

# %% [markdown]
# ## Exact where the solver reaches
#
# With the Extraordinary tables off, a crt duel is a Markov chain and the answer is exact
# (the fight-length histogram beside it is still simulated, and says so):

# %%
ex.set("rules.extraordinary", False)
ex.wait()
exact = balance.exact("crt", "novice,combats=12", "veteran", extraordinary=False)
print(f"explorer: {ex.answer.method}, A wins {ex.answer.a_win:.4%}; "
      f"balance.exact: {exact.a_win:.4%}")
print("rests on:", len(ex.answer.assumptions), "readings; policies:", ex.answer.policies)

# %% [markdown]
# ## Compare mode
#
# Pin the current question as the baseline, change a rule or a build, and the panel shows
# both answers and their difference.  Two Monte Carlo variants run on common random
# numbers (the same seed and streams, fight for fight), so the difference has a paired
# interval, usually tighter than two independent samples would give; two exact answers
# differ exactly.  Here: what does a heavier damage die do to the novice's chances?

# %%
ex.pin()
ex.set("rules.damage_die", 10)
ex.wait()
compared = ex.comparison
rows = {d.name: d.value for d in compared.differences}
score_change = rows["A's score"]
print(f"{compared.method}: A's win chance moves by {100 * rows['A wins']:+.2f} points, "
      f"A's expected score (win 1, draw 1/2) by {100 * score_change:+.2f}")
ex.unpin()

# %% [markdown]
# ## The matchup matrix
#
# The *Matchup matrix* tab fights a set of presets against each other (both seats) under
# the current rules; each cell is the row's expected score against the column, a win
# counting 1 and a draw 1/2.  Clicking a cell narrates one fight of that pair.

# %%
ex.run_matrix(["novice", "expert", "veteran", "master"], 2000)
ex.wait()
print(ex.matrix_status.value.replace("<b>", "").replace("</b>", ""))
lines = ex.narrate("novice", "master")
print("\n".join(lines[:6]))

# %% [markdown]
# ## Save as experiment
#
# The last tab writes the current question -- and optionally one control swept over values
# -- as a TOML experiment that `balance sweep` runs.  Here the novice's skill level, swept
# from 0 to 5 under the current rules:

# %%
import tempfile
from pathlib import Path

path = ex.save_experiment(Path(tempfile.mkdtemp()) / "novice-skill.toml", axis="a.0.skill",
                          values="0, 1, 2, 3, 4, 5")
print(path.read_text())
table, run = balance.sweep(path, out=path.with_suffix(""), executor="serial", progress=False)
table[["a.0.skill", "a_win", "b_win", "draw"]]

# %% [markdown]
# ## Reading it
#
# Formatted from the results above; the cell checks each claim it makes.

# %%
from IPython.display import Markdown

assert compared.method == "exact"
first = table.loc[table["a.0.skill"] == 0, "a_win"].item()
last = table.loc[table["a.0.skill"] == 5, "a_win"].item()
assert last > first
Markdown(f"""
* Twelve combats of experience take the novice to {answer.a_win:.1%} against the veteran
  (Monte Carlo, {answer.n:,} fights, 95% interval {answer.a_win_ci[0]:.1%} to
  {answer.a_win_ci[1]:.1%}); without the Extraordinary tables the exact answer is
  {exact.a_win:.2%}.
* A damage die of 10 instead of the default moves his chance by
  {100 * rows["A wins"]:+.2f} points ({compared.method}: both answers solved).
* Swept over skill levels under the same rules, his chance goes from {first:.1%}
  (unskilled) to {last:.1%} (master): `balance sweep` ran the experiment the explorer
  wrote, exactly as the panel would have answered each cell.
""")
