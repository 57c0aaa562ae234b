"""Fairness analyses on top of simulated matchups: round robins, ratings, equilibria,
marginal values of stat points, seat (first-mover) advantage, fight lengths, and what would
make it fair (``balance.analysis.tune``: ``tune``, exported as ``balance.tune``, and
``handicaps``).

Every function takes and returns tidy pandas tables; intervals are 95% unless said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attribute_loader, listing
from .equilibria import dominated, metagame
from .marginal import marginal_value
from .matchups import round_robin
from .ratings import ratings
from .scores import field_scores, pair_scores, score_matrix
from .shape import fight_lengths, seat_advantage, upsets

if TYPE_CHECKING:
    from .tune import handicaps

if not TYPE_CHECKING:  # a type checker sees the names imported above, and flags others
    __getattr__ = attribute_loader(__name__, {"handicaps": ".tune"})
# imported on first use: a round robin does not search for fixes

__all__ = [
    "dominated",
    "field_scores",
    "fight_lengths",
    "handicaps",
    "marginal_value",
    "metagame",
    "pair_scores",
    "ratings",
    "round_robin",
    "score_matrix",
    "seat_advantage",
    "upsets",
]
__dir__ = listing(globals())  # the names above too, before their first use
