"""What a run's readers rebuild from its record: the ruleset, the cells, the ``[[tune]]``
searches.

The verdict and the report (:mod:`balance.report.build`) read a run long after it ran, from
``meta.json``: the spec as :meth:`~balance.experiments.spec.Spec.to_dict` wrote it, the
ruleset by name or import path.  They rebuild what they need with the functions here, and a
sweep calls :func:`check` with the record it is about to write (and a stand-in table of its
cells) before it runs any fight, so that what the readers would refuse after the work --
an experiment's own presets unknown to the ruleset they resolve, a cell they cannot find, a
verdict option or a ``[[tune]]`` table they cannot read -- refuses the run instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._recent import Recent
from ..errors import SpecError
from ..fields import plain

if TYPE_CHECKING:
    import pandas as pd

    from .grid import Cell
    from .spec import Spec

    Expanded = tuple[Spec, Any, Sequence[Cell]]
    """A spec, the ruleset it was expanded with, and its cells."""

__all__ = ["RunCells", "campaign", "check", "run_ruleset", "tune_searches"]


def run_ruleset(meta: Mapping[str, Any], *, allow_import: bool = False) -> Any:
    """The ruleset a run was made with (its name or import path, see
    :func:`balance.rulesets.resolve`), holding the spec's own ``[presets]``, which its
    cells may name."""
    from ..rulesets import resolve

    spec = meta.get("spec", {}) or {}
    ruleset = resolve(meta.get("source_ruleset") or spec.get("ruleset") or meta["ruleset"],
                      allow_import=allow_import)
    presets = spec.get("presets")
    return ruleset.with_presets(presets) if presets else ruleset


class RunCells:
    """A run's cells by their axis values as its table shows them: the spec read back
    from the run record and expanded with the run's ruleset (when first asked), so a
    reader can rebuild the matchup of any row."""

    def __init__(self, spec: Mapping[str, Any], ruleset: Any, axes: Sequence[str],
                 allow_import: bool = False, expanded: Expanded | None = None) -> None:
        self.spec, self.ruleset, self.axes = spec, ruleset, list(axes)
        self.allow_import = allow_import
        self.expanded = expanded
        self.cells: dict[tuple[str, ...], Cell] | None = None

    def cell(self, row: Mapping[str, Any]) -> Cell:
        """The cell of the row whose axis values are ``row``."""
        if self.cells is None:
            from ..labels import display
            from .grid import expand, grid_of
            from .spec import load_spec

            spec = load_spec(self.spec, allow_import=self.allow_import)
            known = self.expanded
            if (known is not None and known[1] is self.ruleset
                    and grid_of(spec) == grid_of(known[0])):
                cells = known[2]  # the spec read back expands to the cells already made
            else:
                cells = expand(spec, self.ruleset)
            self.cells = {tuple(_key(display(c.params[a], a)) for a in self.axes): c
                          for c in cells}
        found = self.cells.get(tuple(_key(row[a]) for a in self.axes))
        if found is None:
            raise SpecError("the run's spec has no cell " + ", ".join(
                f"{a}={row[a]}" for a in self.axes) + ": its table and its spec disagree")
        return found


def _key(value: Any) -> str:
    """An axis value as a lookup key: a number by its value (an axis of 0, 0.5 and 1 is a
    column of floats in the table, so 0 reads back as 0.0), anything else by its text."""
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(
            value, bool | np.bool_):
        return repr(float(value))
    return str(value)


def tune_searches(spec: Mapping[str, Any], meta: Mapping[str, Any], *,
                  allow_import: bool = False) -> list[Callable[[], Any]]:
    """Each ``[[tune]]`` table of a run's spec (as its record holds it) resolved up to its
    search (:func:`balance.experiments.tuning.prepare`), seeded by the run."""
    if not spec.get("tune"):
        return []
    from .spec import load_spec
    from .tuning import prepare

    parsed = load_spec(spec, name="spec", allow_import=allow_import)
    return [prepare(parsed, i, entropy=meta.get("entropy"), allow_import=allow_import)
            for i in range(len(parsed.tune))]


def campaign(spec: Mapping[str, Any], meta: Mapping[str, Any], *,
             allow_import: bool = False) -> tuple[pd.DataFrame, str] | None:
    """A run's ``[campaign]``: the career's table
    (:func:`balance.experiments.spec.campaign_of`, seeded by the spec or the run) and its
    sentence (``Ruleset.career_sentence``); ``None`` where it has none.  The verdict and
    the report both read it: the last few careers asked are remembered (by the spec's
    canonical JSON and the run's entropy), so a report runs its careers once."""
    if not spec.get("campaign"):
        return None
    key = (json.dumps(plain(spec), sort_keys=True, default=str), meta.get("entropy"),
           allow_import)
    if key not in _CAREERS:
        from .spec import campaign_of, load_spec

        parsed = load_spec(spec, name="spec", allow_import=allow_import)
        table = campaign_of(parsed, meta.get("entropy"), allow_import=allow_import)
        sentence = parsed.ruleset_object(allow_import=allow_import).career_sentence(
            table, _named(parsed.a), _named(parsed.b))
        _CAREERS.keep(key, (table, sentence))
    table, sentence = _CAREERS[key]
    return table.copy(), sentence


_CAREERS: Recent[tuple[Any, ...], tuple[pd.DataFrame, str]] = Recent(4)
"""The last careers :func:`campaign` ran (a few: a process reads few runs at once)."""


def _named(side: Sequence[Any] | None) -> str:
    """A side of a spec as the career's sentence names it: its presets, else "side A"."""
    names = [dict(member).get("preset") for member in side or ()]
    if not names or None in names:
        return "the spec's fighter"
    return " + ".join(f"a {name}" for name in names)


def check(table: pd.DataFrame, meta: Mapping[str, Any], *, allow_import: bool = False,
          expanded: Expanded | None = None) -> None:
    """Raise the SpecError the verdict or the report of a run would stop on when they
    rebuild it from its record ``meta`` and ``table``: the ruleset with the spec's presets,
    the labels, the verdict's options, the cell of every row (the verdict builds matchups
    from them) and each ``[[tune]]`` table up to its search -- by the functions they call.

    ``expanded``: the spec the run expanded, its ruleset and its cells; where the record's
    spec reads back to the same grid under that very ruleset, its cells are those (the
    expansion is not made twice), else the record's own expansion is made.
    """
    from ..analysis.verdict import Thresholds
    from ..labels import Labels

    spec = meta.get("spec", {}) or {}
    ruleset = run_ruleset(meta, allow_import=allow_import)
    Labels.for_run(table, spec, ruleset)
    if meta.get("play") != "best":  # best play's verdict builds no matchup
        axes = [a for a in meta.get("axes", []) if a in table.columns]
        cells = RunCells(spec, ruleset, axes, allow_import, expanded)
        for row in table[axes].to_dict("records"):
            cells.cell(row)
    tune_searches(spec, meta, allow_import=allow_import)
    if spec.get("campaign"):  # the career's spec reads back (its fights run with the report)
        from .spec import load_spec

        load_spec(spec, name="spec", allow_import=allow_import)
    Thresholds.of(dict(spec.get("verdict", {}) or {}))
