"""balance: Monte Carlo and exact balance analysis for tabletop combat rules.

Conventions, stated once:

* A **ruleset** is one rule system (``"crt"``, ``"strike-rank"``, ``"zones"``, ``"pool"``);
  ``balance.RULESETS`` maps names to ruleset objects.  Each has ``Combatant`` and ``Rules``
  frozen dataclasses whose every field carries a provenance tag: TEXT (the seed says it),
  SRC (the identified source game), AMBIG (a chosen reading) or DEFAULT (invented to fill a
  gap).  Results name the DEFAULT / AMBIG readings they rest on.
* A **side** is a tuple of combatants; a duel is one against one.  Anywhere a side is
  expected you may pass a preset name, a ``"preset,field=value"`` spec, a mapping of fields,
  a combatant, or a list of these.
* Fights are **A against B**; outcomes are A wins, B wins or a draw, always all three.
* Randomness is explicit: every kernel takes ``rng=`` (a ``numpy.random.Generator``); public
  functions take ``seed=`` and record the entropy used, so every number can be reproduced.
* Rates are fractions of fights with 95% Wilson intervals unless said otherwise.

>>> import balance
>>> s = balance.duel("crt", "bruggish", ["watchman"] * 3, n=200_000, seed=1)
>>> s.to_frame()                          # doctest: +SKIP
>>> table, path = balance.sweep("experiments/crt-skill-vs-experience.toml")  # doctest: +SKIP
>>> balance.tune("crt", "veteran", "novice", knob="b.0.combats").sentence()  # doctest: +SKIP
>>> balance.best_play("strike-rank", "gladiator", "skirmisher", seed=11)  # doctest: +SKIP

``balance.best_play`` (and ``play="best"`` on ``duel``, ``exact``, round robins and sweeps)
chooses each side's policies -- attack type, diversion, bids, targets -- as a zero-sum game:
exact where a solver reaches, Monte Carlo over the policy profiles elsewhere.

``balance.sweep`` is the function that runs an experiment; the package behind it is
``balance.experiments`` (``.spec``, ``.grid``, ``.runner``, ``.store``, ``.plotting``).
Likewise ``balance.explore`` is the function that opens the interactive explorer; its
package is ``balance.explorer`` (``.question``, ``.compute``, ``.panel``, ``.serve``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import attribute_loader, listing
from ._version import __version__
from .errors import IntractableError, SpecError

__all__ = [
    "RULESETS",
    "IntractableError",
    "Outcome",
    "Outcomes",
    "Probabilities",
    "Run",
    "SpecError",
    "Summary",
    "Tally",
    "Winner",
    "__version__",
    "best_play",
    "duel",
    "exact",
    "explore",
    "fight",
    "get",
    "load_run",
    "load_spec",
    "sweep",
    "tune",
    "versions",
]


if TYPE_CHECKING:
    from .analysis.tune import tune
    from .api import best_play, duel, exact, fight, get, versions
    from .experiments import Run, load_run, load_spec, sweep
    from .explorer import explore
    from .outcomes import Outcome, Outcomes, Probabilities
    from .results import Summary, Tally, Winner
    from .rulesets import RULESETS

if not TYPE_CHECKING:  # a type checker sees the names imported above, and flags others
    __getattr__ = attribute_loader(__name__, {
        **dict.fromkeys(("best_play", "duel", "exact", "fight", "get", "versions"), ".api"),
        **dict.fromkeys(("Outcome", "Outcomes", "Probabilities"), ".outcomes"),
        **dict.fromkeys(("Summary", "Tally", "Winner"), ".results"),
        "RULESETS": ".rulesets", "tune": ".analysis.tune",
        **dict.fromkeys(("Run", "load_run", "load_spec", "sweep"), ".experiments"),
        "explore": ".explorer"})
# Every name imported on first use (and every submodule, as ``balance.rulesets``), so that
# ``import balance`` loads neither numpy nor pandas and a command loads only what it runs:
# the command line sets up the process (``balance.cli``) before numpy is first imported.
__dir__ = listing(globals())  # every name of __all__, loaded yet or not
