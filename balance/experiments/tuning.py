"""An experiment's ``[[tune]]`` tables answered: what would make its matchup fair.

A spec's ``[[tune]]`` table names a knob (a field path, see :mod:`balance.reading`) and a
target; :func:`from_spec` answers it with :func:`balance.analysis.tune.tune` (a matchup:
the spec's rules and sides with the table's ``where`` values applied) or
:func:`balance.analysis.tune.handicaps` (a table with ``entrants``: a round robin under the
spec's rules).  The report's "What would make it fair" section is made of these answers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..analysis.tune import Handicaps, Progress, Tuning, handicaps, tune
from .spec import Spec, load_spec, tuned_cell

__all__ = ["from_spec", "prepare"]


def from_spec(spec: Any, index: int = 0, *, entropy: int | None = None,
              progress: Progress | None = None, allow_import: bool = False
              ) -> Tuning | Handicaps:
    """Answer the ``index``-th ``[[tune]]`` table of an experiment spec (``allow_import``:
    its ruleset may be a ``package.module:OBJECT`` path, see :func:`balance.rulesets.resolve`).

    A matchup tuning tunes the spec's rules and sides with the table's ``where`` values
    applied (a one-cell grid), under the spec's play (best play where its ``[run]`` asks
    for it); a table with ``entrants`` finds round-robin handicaps under the spec's rules.  The seed is the table's, else the spec's, else ``entropy`` (a run's
    recorded entropy), so a report says the same thing each time it is rendered.
    """
    return prepare(spec, index, entropy=entropy, progress=progress,
                   allow_import=allow_import)()


def prepare(spec: Any, index: int = 0, *, entropy: int | None = None,
            progress: Progress | None = None, allow_import: bool = False
            ) -> Callable[[], Tuning | Handicaps]:
    """:func:`from_spec` up to the search: the ruleset (with the experiment's presets), the
    matchup or the entrants and the seed, resolved now (a SpecError if any is not); the
    search itself, to call."""
    if not isinstance(spec, Spec):
        spec = load_spec(spec, allow_import=allow_import)
    entry = spec.tune[index]
    seed = entry.get("seed", spec.seed if spec.seed is not None else entropy)
    rs = spec.ruleset_object(allow_import=allow_import)  # with the experiment's own presets
    bounds = entry.get("bounds")
    common: dict[str, Any] = {"method": entry.get("method"), "draw_worth":
                              entry.get("draw_worth"), "progress": progress,
                              "bounds": None if bounds is None else tuple(bounds)}
    if "entrants" in entry:
        return functools.partial(handicaps, rs, list(entry["entrants"]), knob=entry["knob"],
                                 margin=entry.get("margin", 0.02), rules=dict(spec.rules),
                                 n=entry.get("fights"), seed=seed,
                                 precision=entry.get("precision"), **common)
    cell = tuned_cell(spec, entry)
    return functools.partial(tune, rs, cell.side_a, cell.side_b, rules=cell.rules,
                             knob=entry["knob"], target=entry.get("target", 0.5),
                             metric=entry.get("metric", "score"),
                             precision=entry.get("precision"), seed=seed, play=spec.play,
                             **common)
