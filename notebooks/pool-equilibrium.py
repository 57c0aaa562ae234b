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
# # The equilibrium of pool
#
# Seed 003 ("Courts", *Worlds Within Worlds*) has no dice: each fighter has one Combat Pool
# for the whole fight and spends it point for point on any check, and the attack must *beat*
# the defence.  Given both sides' spending, a fight is decided -- so "who wins" is the value
# of a game, and `balance` solves that game exactly (digest 003.4, engineering note).
#
# This notebook solves one matchup, reads the equilibrium bids, shows how the answer moves
# with the round cap and the bid protocol (003.3 #2), checks the exact numbers against Monte
# Carlo fights that sample the equilibrium, and runs a small exact sweep through the same
# runner as `balance sweep`.  Sizes are small so it runs in well under a minute.

# %%
import pandas as pd

import balance
from balance import plots

pool = balance.get("pool")
A = "average,intellect=6"     # the average fighter with more Intellect (a bigger pool) ...
B = "average"                 # ... against the average fighter
N = 20_000                    # Monte Carlo fights
SEED = 1
# the seed's formulas (003.2): attack Co + Combat, defence Fort + Combat,
# Combat Pool (Co + Intellect) // 2
fighters = pd.DataFrame([{field: getattr(c, field) for field in
                          ("coordination", "intellect", "fortitude", "combat", "weapon")}
                         for c in (pool.combatant(A), pool.combatant(B))], index=["A", "B"])
fighters["attack"] = fighters.coordination + fighters.combat
fighters["defence"] = fighters.fortitude + fighters.combat
fighters["pool"] = (fighters.coordination + fighters.intellect) // 2
fighters

# %% [markdown]
# ## One matchup, solved exactly
#
# Each fighter's attack equals the other's defence (the table above): an unaided attack
# never beats the defence (it must beat it, not equal it), so every hit is bought with pool
# points.  Under
# sealed bids (the default `bid_protocol`) each exchange is a small matrix game; the solver
# works backwards through every state (health, pools, whose turn, rounds left).  The game
# value is A's win chance plus half the draws (the rule parameter `draw_worth`).

# %%
p = balance.exact("pool", A, B)
print(p)

# %% [markdown]
# ## The equilibrium bid table
#
# `Probabilities.strategy` lists the round-1 states: how likely each is, the mixed bids of
# attacker and defender (`bid:probability`), the chance the attack lands and the state's
# value.  Turn Values (Co-ordination) tie here, so the coin decides the order and both
# orders are solved.

# %%
p.strategy.head(10)

# %% [markdown]
# ## How the value moves with the round cap and the bid protocol
#
# The round cap (`max_rounds`, a draw when reached) is part of the state: the uncapped game's
# value is only approached by strategies that wait ever longer (docs/pool.md).  The bid
# protocol is the central AMBIG reading: with `attacker_first` the defender answers a known
# attack, and with `defender_first` the attacker answers a known defence.

# %%
rows = []
for protocol in ("sealed", "attacker_first", "defender_first"):
    for cap in (2, 5, 10, 20, 50):
        q = balance.exact("pool", A, B, bid_protocol=protocol, max_rounds=cap)
        rows.append({"bid_protocol": protocol, "max_rounds": cap,
                     "value": q.details["game_value"], "A wins": q.a_win, "draw": q.draw})
by_cap = pd.DataFrame(rows)
by_cap.pivot(index="max_rounds", columns="bid_protocol", values="value").round(4)

# %%
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

# %% [markdown]
#
# %%
at_cap = by_cap[by_cap.max_rounds == by_cap.max_rounds.max()].set_index("bid_protocol")
for protocol, row in at_cap.iterrows():
    print(f"{protocol:15s} value {row['value']:.4f}: A wins {row['A wins']:.4f}, "
          f"draw {row['draw']:.4f}")

# %% [markdown]
# An informed defender (`attacker_first`) blocks every attack it can afford, so this fight
# becomes a stalemate; an informed attacker (`defender_first`) always finds the bid that
# lands, so the bigger pool wins.  Sealed bids sit in between, and their value grows with
# the cap as the bigger pool has time to tell (the numbers above, at the largest cap).

# %% [markdown]
# ## Monte Carlo of the equilibrium against its exact value
#
# `pool_policy=equilibrium` makes the kernel sample each bid from the solved strategy, so
# simulated fights of the equilibrium should match the exact probabilities within their
# intervals.

# %%
sim = balance.duel("pool", A + ",pool_policy=equilibrium", B + ",pool_policy=equilibrium",
                   n=N, seed=SEED)
print(sim)
for name, exact_rate, (low, high) in (("A wins", p.a_win, sim.a_win_ci),
                                       ("B wins", p.b_win, sim.b_win_ci),
                                       ("draw", p.draw, sim.draw_ci)):
    inside = "inside" if low <= exact_rate <= high else "OUTSIDE"
    print(f"{name:7s} exact {exact_rate:.4f}, simulated 95% interval [{low:.4f}, {high:.4f}]: "
          f"{inside}")

# %% [markdown]
# ## A small exact sweep
#
# The same grid machinery as `balance sweep`, with `[run] method = "exact"`: every cell is
# solved by the exact solver (one task per cell, cached in the run directory, resumable), and
# the table has the usual columns with intervals of zero width, `method = "exact"` and the
# solver's details (`game_value`, `states`, `solve_ms`, ...).  Here A's Intellect (its pool)
# against the average fighter, under two protocols, with a 20-round cap to keep it quick.
# `experiments/pool-intellect.toml` is the full version.

# %%
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

# %%
ax = plots.curves(table, x="a.0.intellect", y="a_win", by="rules.bid_protocol")

# %% [markdown]
# ## Reading it
#
# Formatted from the results above; the cell checks each claim it makes.

# %%
from IPython.display import Markdown

sealed = table[table["rules.bid_protocol"] == "sealed"].set_index("a.0.intellect")
informed = table[table["rules.bid_protocol"] == "attacker_first"].set_index("a.0.intellect")
equal = int(pool.combatant(B).intellect)
assert sealed["game_value"].is_monotonic_increasing
assert informed["a_win"].max() == 0
assert at_cap.loc["attacker_first", "draw"] > 0.999 and at_cap.loc["defender_first", "A wins"] > 0.999
assert sim.a_win_ci[0] <= p.a_win <= sim.a_win_ci[1]             # "the Monte Carlo agrees"
# the cell above: "Sealed bids sit in between, and their value grows with the cap"
sealed_by_cap = by_cap[by_cap.bid_protocol == "sealed"].set_index("max_rounds")["value"]
assert sealed_by_cap.is_monotonic_increasing
assert (at_cap.loc["attacker_first", "value"] <= at_cap.loc["sealed", "value"]
        <= at_cap.loc["defender_first", "value"])
Markdown(f"""
* **Under sealed bids a bigger pool is decisive.** A's game value (win + half a draw)
  rises with Intellect from {sealed["game_value"].iloc[0]:.3f} at Intellect
  {sealed.index[0]} to {sealed["game_value"].iloc[-1]:.3f} at {sealed.index[-1]}
  ({sealed.loc[equal, "game_value"]:.3f} at equal Intellect {equal}), with a
  {spec["rules"]["max_rounds"]}-round cap.  For the matchup above (Intellect
  {pool.combatant(A).intellect}, the default cap of {pool.rules().max_rounds} rounds), the value is
  {float(p.details["game_value"]):.3f}: A wins {p.a_win:.3f}, B {p.b_win:.3f}.
* **Under attacker-first bids it buys nothing:** A never wins at any Intellect swept
  (the draw rate is at least {informed["draw"].min():.3f}): the defender who
  sees the attack always blocks it.  Under defender-first bids the bigger pool wins
  {at_cap.loc["defender_first", "A wins"]:.3f} of the time.  The protocol (AMBIG) is the
  first reading to settle before any balance claim.
* **The Monte Carlo of the equilibrium agrees:** the exact A-win probability
  {p.a_win:.4f} against a simulated {sim.a_win:.4f} (95% interval {sim.a_win_ci[0]:.4f} to
  {sim.a_win_ci[1]:.4f}).
* The answer is exact: no interval to report, only the {len(p.assumptions)} rule readings
  it rests on (`p.assumptions`; `balance show pool`); change any of them with `rules=`.
""")
