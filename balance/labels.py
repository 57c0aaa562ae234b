"""Display labels for tables and figures: what a designer reads instead of column names.

A run's table is keyed by field paths (``a.0.combats``, ``rules.map``) and rate columns
(``a_win``); figures and reports show them as labels:

* a column's label comes from the experiment's ``[labels]`` table if it names it, else it
  is derived: ``a.0.combats`` -> "A: combats survived" (the lead phrase of the field's
  documentation when it names the field, else the field's name), ``rules.map`` ->
  "rule: map", ``a_win`` -> "A wins";
* a value's label comes from ``[labels.values."<column>"]`` if given, else: a preset's
  title (``Ruleset.preset_titles``) or its name in words, a list as ``0, -2, -4``, a
  rule table by the entries that differ between the axis's values (``leather=2``), never a
  whole JSON table;
* the baseline of an axis -- the value the experiment has without the axis (its ``[rules]``
  override or the rule's default; the side's own combatant) -- is marked "(default)".

:class:`Labels` holds all three for one table; :meth:`Labels.for_run` builds it from a
run's spec.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["RATE_LABELS", "Labels", "display", "field_label", "percent", "rate_with_interval"]

RATE_LABELS: dict[str, str] = {
    "a_win": "A wins", "b_win": "B wins", "draw": "draws", "score": "A's expected score",
    "value": "A's expected score, best play",
    "default_value": "A's expected score, policies as given",
    "mean_rounds": "mean rounds", "rounds_q10": "rounds, 10th percentile",
    "rounds_q50": "rounds, median", "rounds_q90": "rounds, 90th percentile", "n": "fights",
}
_ORDINALS = ("1st", "2nd", "3rd")
_LEAD = re.compile(r"[;(:,]| - ")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def field_label(name: str, doc: str = "") -> str:
    """A field's label from its one-line doc: the doc's lead phrase (up to the first ``;``,
    ``(``, ``:`` or ``,``) when it is at most four words, names the field ("combats
    survived" for ``combats``) and holds no code (``_`` or ``=``), else the field's name in
    words."""
    lead = _LEAD.split(doc, maxsplit=1)[0].strip() if doc else ""
    if lead and len(lead.split()) <= 4 and _fold(name.split("_")[0]) in _fold(lead) \
            and not re.search(r"[_=]", lead):  # code ("armour_mode=roll_reduction") is no label
        return lead
    return _words(name)


def _side_label(side: str, member: str) -> str:
    letter = side.upper()
    if member == "*":
        return f"{letter} (each)"
    index = int(member)
    return letter if index == 0 else f"{letter} ({_ORDINALS[index] if index < 3 else f'{index + 1}th'})"


def percent(value: float, decimals: int = 1) -> str:
    """A rate as a percentage: ``0.5321 -> "53.2%"``."""
    if value is None or not np.isfinite(value):
        return ""
    return f"{100 * value:.{decimals}f}%"


def decimals_for(half_width: float, *, most: int = 2) -> int:
    """Decimals (of a percentage) that an interval of ``half_width`` (a fraction) supports:
    down to the first significant digit of the half-width, at most ``most``."""
    if not half_width or not np.isfinite(half_width) or half_width <= 0:
        return 1
    return int(np.clip(np.ceil(-np.log10(100 * half_width)), 0, most))


def rate_with_interval(value: float, low: float, high: float, *, exact: bool = False) -> str:
    """``"53.2% [52.8, 53.6]"``, rounded to what the interval supports; an exact rate
    (no interval) to two decimals of a percent."""
    if exact or high <= low:
        return percent(value, 2)
    digits = decimals_for((high - low) / 2)
    return f"{percent(value, digits)} [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


@dataclass(frozen=True)
class Labels:
    """Labels of one table's columns and values, and the baseline value of each axis."""

    columns: Mapping[str, str] = field(default_factory=dict)
    """Column -> label, from the spec's ``[labels]`` (and derived labels, filled in)."""
    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Column -> (value as text -> label), from ``[labels.values]``."""
    baselines: Mapping[str, Any] = field(default_factory=dict)
    """Axis -> its value without the axis (as the table shows it)."""
    docs: Mapping[str, str] = field(default_factory=dict)
    """Field name -> its one-line doc (combatant fields and rule parameters)."""
    titles: Mapping[str, str] = field(default_factory=dict)
    """Preset name -> title."""
    axis_values: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    """Axis -> its values, so a table value is labelled against its neighbours."""

    # --- building ---------------------------------------------------------------------------

    @classmethod
    def for_run(cls, table: Any = None, spec: Mapping[str, Any] | None = None,
                ruleset: Any = None) -> Labels:
        """Labels for a run's table from its spec (``meta["spec"]``, or ``table.attrs``).

        Parameters
        ----------
        table
            The results table (``attrs`` may hold ``ruleset``, ``spec`` and ``labels``).
        spec
            The experiment as plain data (``Spec.to_dict()``).
        ruleset
            A ruleset object or name (default: the spec's or the table's).
        """
        attrs = dict(getattr(table, "attrs", {}) or {})
        spec = dict(spec if spec is not None else attrs.get("spec") or {})
        given = dict(spec.get("labels") or attrs.get("labels") or {})
        values = {str(k): {str(a): str(b) for a, b in dict(v).items()}
                  for k, v in dict(given.pop("values", {}) or {}).items()}
        columns = {str(k): str(v) for k, v in given.items()}
        rs = _ruleset(ruleset or spec.get("ruleset") or attrs.get("ruleset"))
        docs: dict[str, str] = {}
        titles: dict[str, str] = {}
        if rs is not None:
            from .fields import describe_fields

            for cls_ in (rs.Rules, rs.Combatant):  # a combatant field wins a shared name
                docs.update({f.name: f.doc for f in describe_fields(cls_)})
            titles = dict(getattr(rs, "preset_titles", {}) or {})
        axes = spec.get("grid", {}).get("axes", []) if spec else []
        axis_values = {a["field"]: tuple(display(v, a["field"]) for v in a.get("values", []))
                       for a in axes if isinstance(a, Mapping) and "field" in a}
        baselines = _baselines(rs, spec, list(axis_values)) if rs is not None else {}
        return cls(columns, values, baselines, docs, titles, axis_values)

    # --- columns ----------------------------------------------------------------------------

    def column(self, name: str) -> str:
        """The label of column ``name``."""
        if name in self.columns:
            return self.columns[name]
        if name in RATE_LABELS:
            return RATE_LABELS[name]
        for suffix, words in (("_low", "lower bound"), ("_high", "upper bound")):
            if name.endswith(suffix) and name[: -len(suffix)] in RATE_LABELS:
                return f"{RATE_LABELS[name[: -len(suffix)]]}, {words}"
        parts = name.split(".")
        if parts[0] == "rules" and len(parts) == 2:
            return "rule: " + field_label(parts[1], self.docs.get(parts[1], ""))
        if parts[0] in ("a", "b"):
            if len(parts) == 1:
                return f"side {parts[0].upper()}"
            if len(parts) == 3:
                who = _side_label(parts[0], parts[1])
                if parts[2] == "preset":
                    return who
                return f"{who}: {field_label(parts[2], self.docs.get(parts[2], ''))}"
        if name.startswith("end_"):
            return "ended by " + _words(name[4:])
        return _words(name)

    def axis(self, name: str) -> str:
        """The title of an axis on ``name``, in words: a side's field as a possessive ("A's
        combats survived", "A's combatant" for its preset, "B's side" for a whole side),
        anything else as :meth:`column` says; a label the spec gives wins."""
        if name in self.columns:
            return self.columns[name]
        parts = name.split(".")
        if parts[0] not in ("a", "b") or len(parts) not in (1, 3):
            return self.column(name)
        letter = parts[0].upper()
        if len(parts) == 1:
            return f"{letter}'s side"
        member, what = parts[1], parts[2]
        noun = "combatant" if what == "preset" else field_label(what, self.docs.get(what, ""))
        if not member.isdigit():
            return f"{letter}'s {noun} (every member)"
        index = int(member)
        if index == 0:
            return f"{letter}'s {noun}"
        nth = _ORDINALS[index] if index < 3 else f"{index + 1}th"
        return f"{letter}'s {nth} member's {noun}"

    # --- values -----------------------------------------------------------------------------

    def value(self, column: str, value: Any) -> str:
        """The label of one value of ``column``, as the table holds it or as a spec writes
        it (a whole side as a list of presets, a rule table as a table: a plot's ``where``)."""
        value = _as_entry(column, value)
        text = _text(value)
        given = self.values.get(column, {})
        if text in given:
            return given[text]
        if column.endswith(".preset") or (column in ("a", "b") and isinstance(value, str)
                                          and value in self.titles):
            return self.titles.get(text, _words(text))
        parsed = _parsed(value)
        if isinstance(parsed, dict):
            return self._table_value(column, parsed)
        if isinstance(parsed, list):
            return ", ".join(_text(v) for v in parsed)
        if isinstance(value, str):
            members = value.split(" + ")
            if len(members) > 1 and len(set(members)) == 1:
                return f"{len(members)} × {members[0]}"
        return text

    def _table_value(self, column: str, table: Mapping[str, Any]) -> str:
        """A rule table by its entries that differ from the other values of the axis."""
        others = [p for p in map(_parsed, self.axis_values.get(column, ()))
                  if isinstance(p, dict)]
        keys = [k for k in table if any(o.get(k) != table[k] for o in others)] or list(table)
        shown = [f"{k}={_text(table[k])}" for k in keys[:4]]
        return ", ".join(shown) + (", ..." if len(keys) > 4 else "")

    def is_baseline(self, column: str, value: Any) -> bool:
        """Whether ``value`` is the axis's value without the axis (its default)."""
        return (column in self.baselines
                and _text(self.baselines[column]) == _text(_as_entry(column, value)))

    def tick(self, column: str, value: Any) -> str:
        """A value's label with "(default)" on the axis's baseline."""
        label = self.value(column, value)
        return label + " (default)" if self.is_baseline(column, value) else label

    def frame(self, frame: Any, columns: Iterable[str] | None = None) -> Any:
        """A copy of ``frame`` with the value labels in ``columns`` (default: the axes)
        and every column renamed to its label."""
        out = frame.copy()
        for column in (self.axis_values if columns is None else columns):
            if column in out.columns:
                out[column] = [self.value(column, v) for v in out[column].tolist()]
        return out.rename(columns={c: self.column(str(c)) for c in out.columns})


_TABLE_TEXT = re.compile(r"^[A-Za-z_]\w*:[^,:]+(,[A-Za-z_]\w*:[^,:]+)+$")


def _parsed(value: Any) -> Any:
    """A table or list written as a table entry: compact JSON, or a rule table in the
    command line's ``key:value,key:value`` form; anything else as it is."""
    if isinstance(value, Mapping | list | tuple):
        return dict(value) if isinstance(value, Mapping) else list(value)
    if not isinstance(value, str):
        return value
    if value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    if _TABLE_TEXT.match(value):
        return {k: v for k, _, v in (part.partition(":") for part in value.split(","))}
    return value


def _as_entry(column: str, value: Any) -> Any:
    """A value as the table's entry: a list or table (as a spec writes it) through
    :func:`display`, so ``["skirmisher"]`` on side ``b`` is the table's ``"skirmisher"``."""
    return display(value, column) if isinstance(value, list | tuple | Mapping) else value


def _text(value: Any) -> str:
    if isinstance(value, float | np.floating):
        return f"{float(value):g}"
    if isinstance(value, np.integer):
        return str(int(value))
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    return str(value)


def display(value: Any, field: str = "") -> Any:
    """An axis value as a table entry: scalars as they are, a whole side of preset specs as
    ``"novice + novice"``, other lists and tables as compact JSON."""
    if field in ("a", "b") and isinstance(value, tuple | list) \
            and all(isinstance(v, str) for v in value):
        return " + ".join(value)
    if isinstance(value, tuple | list | Mapping):
        from .fields import plain

        return json.dumps(plain(value), separators=(",", ":"), sort_keys=True)
    return value


def _ruleset(ref: Any) -> Any:
    if ref is None:
        return None
    if not isinstance(ref, str):
        return ref
    try:
        from .rulesets import resolve

        return resolve(ref)
    except Exception:  # a ruleset no longer importable: labels without its docs
        return None


def _same_side(one: Any, other: Any) -> bool:
    """Two sides of the same fighters, whatever they are called."""
    import dataclasses

    def unnamed(side: Any) -> list[Any]:
        return [dataclasses.replace(c, name="") if hasattr(c, "name") else c for c in side]

    return len(one) == len(other) and unnamed(one) == unnamed(other)


def _baselines(rs: Any, spec: Mapping[str, Any], axes: list[str]) -> dict[str, Any]:
    """Each axis's value in the experiment without that axis."""
    from .fields import plain

    out: dict[str, Any] = {}
    try:
        rules = rs.rules(dict(spec.get("rules") or {}))
    except Exception:
        return out
    sides: dict[str, Any] = {}
    for label in ("a", "b"):
        members = spec.get(label)
        if members is None:
            continue
        try:
            sides[label] = rs.side(members)
        except Exception:
            continue
    for axis in axes:
        parts = axis.split(".")
        if parts[0] in sides and len(parts) == 1:  # a whole side: the value that is the spec's
            for value in next((a.get("values", []) for a in spec.get("grid", {}).get("axes", [])
                               if a.get("field") == axis), []):
                try:
                    if _same_side(rs.side(value), sides[parts[0]]):
                        out[axis] = display(value, axis)
                        break
                except Exception:
                    continue
            continue
        if parts[0] == "rules" and len(parts) == 2 and hasattr(rules, parts[1]):
            out[axis] = display(plain(getattr(rules, parts[1])), axis)
        elif parts[0] in sides and len(parts) == 3:
            side = sides[parts[0]]
            index = 0 if parts[1] == "*" else int(parts[1])
            if index >= len(side):
                continue
            # a swept preset has no baseline: the spec's own (a round robin's placeholder)
            # is not a default the designer chose
            if parts[2] != "preset" and hasattr(side[index], parts[2]):
                out[axis] = display(plain(getattr(side[index], parts[2])), axis)
    return out
