"""What fights return: per-fight :class:`Outcomes` of a kernel batch, one :class:`Outcome`
of a reference fight, exact :class:`Probabilities`, and the one end-cause type
:class:`EndCauses` every ruleset binds its causes with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from .fields import plain

__all__ = ["ROW_TAG", "EndCauses", "Outcome", "Outcomes", "Probabilities", "Winner",
           "rests_on", "row_item", "split_rows"]

ROW_TAG = "[ROW]"
"""The tag of a written row among the items a result rests on (``Ruleset.assumptions``):
``"weapons.war pick: +1 to attack when target.armour_rank >= 3 [ROW]"``, beside the
``"name=value [DEFAULT]"`` readings."""


def row_item(place: str, row: Any) -> str:
    """One modifier or effect row in force, as a result discloses it: where it is written
    and its one-line form (``house rule shield: +2 to score when ...``), tagged ``[ROW]``."""
    return f"{place}: {row.line()} {ROW_TAG}"


def split_rows(items: Any) -> tuple[list[str], list[str]]:
    """``Ruleset.assumptions`` items as (the DEFAULT / AMBIG readings, the written rows,
    untagged)."""
    readings, rows = [], []
    for item in items:
        if item.endswith(" " + ROW_TAG):
            rows.append(item[:-len(ROW_TAG) - 1])
        else:
            readings.append(item)
    return readings, rows


def rests_on(assumptions: tuple[str, ...], policies: tuple[str, ...]) -> list[str]:
    """The lines a printed result ends with: the readings, the written modifier and effect
    rows, and the policies it rests on."""
    lines = []
    readings, rows = split_rows(assumptions)
    if readings:
        lines.append(f"  rests on {len(readings)} DEFAULT/AMBIG readings (see `balance "
                     "show`); e.g. " + "; ".join(readings[:3]))
    if rows:
        lines.append(f"  rests on {len(rows)} written modifier/effect row"
                     f"{'s' if len(rows) != 1 else ''}: " + "; ".join(rows))
    if policies:
        lines.append("  policies: " + "; ".join(policies))
    return lines


class Winner(IntEnum):
    """Who won one fight. Draws are a first-class outcome."""

    DRAW = 0
    A = 1
    B = 2


class EndCauses(tuple[str, ...]):
    """A ruleset's end-cause names, in code order: how every fight can end.

    Kernels store the code (``causes.code("down")`` or ``causes.down``, an ``int``), the
    reference and the tables the name; one object binds both, so they cannot drift.

    >>> CAUSES = EndCauses("down", "surrender", "max_rounds")
    >>> CAUSES.surrender, CAUSES.code("max_rounds"), CAUSES[0]
    (1, 2, 'down')
    """

    def __new__(cls, *names: str) -> EndCauses:
        if len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
            raise ValueError(f"end causes must be distinct identifiers, got {names!r}")
        return super().__new__(cls, names)

    def code(self, name: str) -> int:
        """The integer code of cause ``name``."""
        try:
            return self.index(name)
        except ValueError:
            raise KeyError(f"no end cause {name!r}; causes: {', '.join(self)}") from None

    def __getattr__(self, name: str) -> int:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.code(name)
        except KeyError as exc:
            raise AttributeError(str(exc)) from None

    def __getnewargs__(self) -> tuple[str, ...]:  # pickling passes the names, not one tuple
        return tuple(self)

    def __repr__(self) -> str:
        return f"EndCauses{tuple(self)!r}"


@dataclass(frozen=True)
class Outcomes:
    """Per-fight results of one vectorised batch (fights along axis 0).

    Attributes
    ----------
    winner
        int8 ``(n,)``: :class:`Winner` codes.
    rounds
        integer ``(n,)``: rounds fought.
    cause
        int8 ``(n,)``: index into ``causes`` of how the fight ended.
    causes
        The ruleset's end-cause names.
    extras
        Optional per-fight measurements (name -> ``(n,)`` numeric array).
    """

    winner: np.ndarray
    rounds: np.ndarray
    cause: np.ndarray
    causes: tuple[str, ...]
    extras: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.winner)


@dataclass(frozen=True)
class Outcome:
    """The result of one scalar reference fight."""

    winner: Winner
    rounds: int
    cause: str
    extras: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Probabilities:
    """An exact answer: win, loss and draw probabilities of one matchup.

    ``details`` holds solver facts (state count, time); ``strategy`` an optional table of
    equilibrium play (a ``pandas.DataFrame``) where the ruleset has one.
    """

    ruleset: str
    a_win: float
    b_win: float
    draw: float
    mean_rounds: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    strategy: Any = None
    assumptions: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {"ruleset": self.ruleset, "a_win": self.a_win, "b_win": self.b_win,
               "draw": self.draw, "mean_rounds": self.mean_rounds}
        out.update(plain(dict(self.details)))
        out["assumptions"] = list(self.assumptions)
        out["policies"] = list(self.policies)
        if self.strategy is not None:
            out["strategy"] = self.strategy.to_dict(orient="records")
        return out

    def __str__(self) -> str:
        lines = [f"{self.ruleset}: exact",
                 f"  A wins  {100 * self.a_win:8.4f}%",
                 f"  B wins  {100 * self.b_win:8.4f}%",
                 f"  draw    {100 * self.draw:8.4f}%"]
        if self.mean_rounds is not None:
            lines.append(f"  rounds  mean {self.mean_rounds:.3f}")
        for k, v in self.details.items():
            lines.append(f"  {k}: {v}")
        lines.extend(rests_on(self.assumptions, self.policies))
        return "\n".join(lines)

