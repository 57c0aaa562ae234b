"""The explorer's question as data: a ruleset, rule overrides and both sides, and the
controls that edit it, derived from the ruleset's field metadata.

Nothing here imports ipywidgets: :func:`controls` says *what* control each field gets (a
dropdown for a closed set, a slider for a bounded number, editable rows for a table), and
``balance.explorer.panel`` turns that into widgets.  A :class:`Question` resolves to the
objects ``balance.duel`` and ``balance.exact`` take, and writes itself as an experiment
spec that ``balance sweep`` runs (:func:`to_toml`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..api import get
from ..errors import SpecError
from ..fields import describe_fields, plain
from ..labels import field_label
from ..rulesets.base import Ruleset, Side

__all__ = ["GUESSES", "Control", "Member", "Question", "controls", "group_controls",
           "sensible_span", "to_spec", "to_toml"]

SLIDER_STEPS = 1000
"""A bounded integer gets a slider when its sensible span has at most this many steps,
else a box."""

GUESSES = {
    "DEFAULT": "DEFAULT: the seed says nothing here; this value was invented to fill the gap",
    "AMBIG": "AMBIG: the seed's text is unclear here; this is the reading chosen",
}
"""What a DEFAULT or AMBIG mark on a control means (its hover text opens with it)."""

EQUIPMENT_WORDS = frozenset({"weapon", "weapons", "armour", "armor", "shield", "buckler", "ranged",
                             "missile", "missiles", "bow", "gear", "helm"})
"""A combatant field whose name holds one of these words is equipment."""

RULE_TOPICS: tuple[tuple[str, frozenset[str]], ...] = (
    ("house rules", frozenset({"house"})),
    ("battlefield and movement", frozenset({"battlefield", "ground", "cover", "shift",
                                            "hazard", "bank", "slowed", "entangle", "zone",
                                            "pursuit", "approach", "ladder"})),
    ("result tables", frozenset({"table", "tables", "extraordinary", "ef", "es", "ef6", "ef8",
                                 "ef9", "es2", "es7", "es11", "chain", "band", "bands"})),
    ("ambush and range", frozenset({"ambush", "surprise", "range", "missile", "aim",
                                    "shot", "pursuit", "gap", "initial"})),
    ("groups and sides", frozenset({"group", "foes", "leader", "side", "rank", "formation",
                                    "outnumber", "outnumbered", "frontage", "multi", "task",
                                    "legionnaire", "auto", "chokepoint", "scope"})),
    ("damage, health and armour", frozenset({"damage", "health", "armour", "shield",
                                             "wound", "death", "block", "ko", "knockout",
                                             "die", "hp", "down", "wounded", "limb", "wp"})),
    ("styles and weapons", frozenset({"style", "weapon", "weapons", "gladiator", "martial",
                                      "knight", "berserk", "hunter", "bladesman", "shieldman",
                                      "feral", "swashbuckler", "mounted", "parry", "riposte",
                                      "overpower", "skill", "untrained", "styles", "disarm"})),
    ("turns and timing", frozenset({"activation", "reloading", "stress", "round", "rounds", "action", "actions", "initiative",
                                    "sr", "tie", "tiebreak", "carry", "hold", "attacks",
                                    "declarations", "rounding", "behind", "half", "mobility",
                                    "stalemate", "bid", "map", "speed", "move",
                                    "divert"})),
    ("modifiers", frozenset({"bonus", "penalty", "penalties", "stacking", "mod", "critical",
                             "modifier", "status", "stat"})),
)
"""Rule topics, in the order the panel shows them: a rule goes under the first topic one
of whose words its name holds (split at ``_``); the rest under "other rules"."""


@dataclass(frozen=True)
class Control:
    """What one field of a ``Combatant`` or ``Rules`` dataclass is edited with.

    ``kind`` is one of ``"dropdown"`` (``options``), ``"checkbox"``, ``"int_slider"`` /
    ``"float_slider"`` (``low``..``high``), ``"int"`` / ``"float"`` (a number box, bounded by
    ``low`` / ``high`` where given), ``"optional_int"`` (a number or none), ``"text"``,
    ``"choice_list"`` (an ordered list from ``options``), ``"number_list"`` (comma-separated
    numbers), ``"table"`` (``rows``: one control per key) or ``"json"`` (a nested value as
    JSON text).
    """

    name: str
    kind: str
    default: Any
    tag: str
    doc: str
    policy: bool = False
    options: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    rows: tuple[Control, ...] = ()
    span: tuple[float, float] | None = None
    """A slider's sensible span (within ``low``..``high``, all of which a box still takes)."""
    percent: bool = False
    """A fraction 0..1 shown and typed as a percentage."""

    @property
    def words(self) -> str:
        """The field in words, as the reports name it (:func:`balance.labels.field_label`:
        "combats survived" for ``combats``)."""
        return field_label(self.name, self.doc)

    @property
    def label(self) -> str:
        """The field in words, marked when its value is a guess (DEFAULT / AMBIG)."""
        unit = " (%)" if self.percent else ""
        return self.words + unit + (f" ({self.tag})" if self.tag in GUESSES else "")

    @property
    def hover(self) -> str:
        """What the field is, its code name, and what its mark means."""
        guess = f"{GUESSES[self.tag]}. " if self.tag in GUESSES else ""
        return f"{guess}{self.doc} [field {self.name}, {self.tag}]"


def sensible_span(low: float, high: float, values: Sequence[Any], *,
                  integer: bool) -> tuple[float, float]:
    """The part of ``low``..``high`` a slider spans: around the values the ruleset uses
    (the default and the presets') by as far again as they reach (at least 10 steps of an
    integer), so ``combats`` 0..1000 with presets at 0..30 slides over 0..60."""
    seen = [float(v) for v in values
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]
    if not seen:
        return (low, high)
    least, most = min(seen), max(seen)
    reach = max(most - least, abs(most), abs(least), 10.0 if integer else 0.0)
    if reach == 0:
        return (low, high)
    lo, hi = max(low, least - reach), min(high, most + reach)
    return (int(lo), int(hi)) if integer else (lo, hi)


_ROWS_OF = re.compile(r"\brows? of (?:rules )?'(\w+)'")
"""A text field naming a row of a rules table (strike-rank's ``style``: "a row of rules
'styles'"): it gets a dropdown of the table's rows."""


_LISTED = re.compile(r":\s*(\w+(?:,\s*\w+)+)\b(?!\w)")


def _row_choices(doc: str, default: Any, rules: Any) -> tuple[Any, ...] | None:
    """The rows a text field names (its doc says which rules table), with "none" when the
    doc allows it and the default when it is not a row; ``None`` if not such a field."""
    found = _ROWS_OF.search(doc)
    table = getattr(rules, found.group(1), None) if found and rules is not None else None
    if not isinstance(table, Mapping):
        return None
    listed = _LISTED.search(doc)  # built-in names the doc lists ("none, short_bow, ...")
    named = [n.strip() for n in listed.group(1).split(",")] if listed else []
    none = ["none"] if re.search(r"\bnone\b", doc) else []
    found_rows = [str(k) for k in table]
    choices = [v for v in [*none, default, *named, *found_rows] if isinstance(v, str)]
    return tuple(dict.fromkeys(choices))


def _scalar_control(name: str, tp: Any, default: Any, md: Mapping[str, Any], *, tag: str,
                    doc: str, policy: bool, examples: Sequence[Any] = (),
                    rules: Any = None) -> Control:
    common: dict[str, Any] = {"name": name, "default": default, "tag": tag, "doc": doc,
                              "policy": policy}
    low, high = md.get("low"), md.get("high")
    if md.get("choices"):
        return Control(kind="dropdown", options=tuple(md["choices"]), **common)
    if tp is bool:
        return Control(kind="checkbox", **common)
    if tp in (int, float) and low is not None and high is not None:
        span = sensible_span(low, high, [default, *examples], integer=tp is int)
        if tp is float:
            return Control(kind="float_slider", low=low, high=high, span=span,
                           percent=low == 0 and high == 1, **common)
        if span[1] - span[0] <= SLIDER_STEPS:
            return Control(kind="int_slider", low=low, high=high, span=span, **common)
    if tp is int:
        return Control(kind="int", low=low, high=high, **common)
    if tp is float:
        return Control(kind="float", low=low, high=high, **common)
    rows = _row_choices(doc, default, rules) if tp is str else None
    if rows:
        return Control(kind="dropdown", options=rows, **common)
    return Control(kind="text", **common)


def _control(f: dataclasses.Field, tp: Any, tag: str, doc: str, policy: bool,
             examples: Sequence[Any] = (), rules: Any = None) -> Control:
    md, default = f.metadata, plain(f.default)
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(inner) == 1 and inner[0] is int and not md.get("choices"):
            return Control(f.name, "optional_int", default, tag, doc, policy,
                           low=md.get("low"), high=md.get("high"))
        if len(inner) == 1:
            # a closed set or nothing (pool's randomiser): "none" is one more choice
            base = _scalar_control(f.name, inner[0], default, md, tag=tag, doc=doc,
                                   policy=policy)
            if base.kind == "dropdown":
                return dataclasses.replace(base, options=(None, *base.options))
            return base
    if origin is tuple:
        item = typing.get_args(tp)[0]
        if md.get("choices"):
            return Control(f.name, "choice_list", default, tag, doc, policy,
                           options=tuple(md["choices"]))
        if item in (int, float):
            return Control(f.name, "number_list", default, tag, doc, policy,
                           low=md.get("low"), high=md.get("high"))
        return Control(f.name, "json", default, tag, doc, policy)
    if isinstance(default, Mapping):
        scalars = all(isinstance(v, bool | int | float | str) for v in default.values())
        if not scalars:
            return Control(f.name, "json", default, tag, doc, policy)
        rows = tuple(_scalar_control(key, type(value), value, md, tag=tag, doc=doc,
                                     policy=policy) for key, value in default.items())
        return Control(f.name, "table", default, tag, doc, policy, rows=rows)
    return _scalar_control(f.name, tp, default, md, tag=tag, doc=doc, policy=policy,
                           examples=examples, rules=rules)


def controls(cls: type, *, examples: Sequence[Any] = (), rules: Any = None) -> list[Control]:
    """One :class:`Control` per documented field of a ``Combatant`` or ``Rules`` class,
    in declaration order.  ``examples`` (instances: the presets) widen a slider's sensible
    span to the values they hold; ``rules`` (a ``Rules`` instance) gives the rows a field
    naming a rules table's row chooses from."""
    hints = typing.get_type_hints(cls)
    infos = {info.name: info for info in describe_fields(cls)}
    out = []
    for f in dataclasses.fields(cls):
        if f.name not in infos:
            continue
        info = infos[f.name]
        seen = [plain(getattr(e, f.name)) for e in examples if hasattr(e, f.name)]
        out.append(_control(f, hints[f.name], info.tag, info.doc, info.policy, seen, rules))
    return out


def _topic(name: str) -> str:
    words = set(name.lower().split("_"))
    return next((title for title, keys in RULE_TOPICS if words & keys), "other rules")


def _member_group(c: Control) -> str:
    if c.policy:
        return "policies"
    if set(c.name.lower().split("_")) & EQUIPMENT_WORDS:
        return "equipment"
    if c.kind in ("int_slider", "float_slider", "int", "float", "optional_int"):
        return "abilities"
    return "traits"


def group_controls(found: Sequence[Control], *, rules: bool) -> list[tuple[str, list[Control]]]:
    """Controls in the groups the panel shows, each group in declaration order: a
    combatant's abilities, equipment, traits and policies; rules by topic
    (:data:`RULE_TOPICS`), their policies last.  Empty groups are left out."""
    if rules:
        order = [t for t, _ in RULE_TOPICS] + ["other rules", "rule policies"]
        key = [("rule policies" if c.policy else _topic(c.name)) for c in found]
    else:
        order = ["abilities", "equipment", "traits", "policies"]
        key = [_member_group(c) for c in found]
    groups: dict[str, list[Control]] = {title: [] for title in order}
    for c, title in zip(found, key, strict=True):
        groups[title].append(c)
    return [(title, cs) for title, cs in groups.items() if cs]


# --- the question -------------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    """One combatant of a side: a preset (or none) and the fields changed on top of it."""

    preset: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def spec(self) -> dict[str, Any]:
        """The mapping ``Ruleset.combatant`` takes (and an experiment's ``[[a]]`` holds)."""
        return ({"preset": self.preset} if self.preset else {}) | dict(self.fields)


@dataclass(frozen=True)
class Question:
    """A matchup to answer: ruleset, rule overrides, both sides and the seed.

    >>> q = Question("crt", (Member("novice"),), (Member("veteran"),), {"extraordinary": False})
    >>> rs, rules, side_a, side_b = q.resolve()       # what balance.duel / exact take
    """

    ruleset: str
    a: tuple[Member, ...]
    b: tuple[Member, ...]
    rules: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 1

    def resolve(self) -> tuple[Ruleset, Any, Side, Side]:
        """Validated ruleset, rules and sides; a :class:`SpecError` names a bad value."""
        rs = get(self.ruleset)
        rules = rs.rules(dict(self.rules))
        side_a = rs.side([m.spec() for m in self.a])
        side_b = rs.side([m.spec() for m in self.b])
        rs.check_sides(rules, side_a, side_b)
        return rs, rules, side_a, side_b

    def describe(self) -> str:
        """``"novice against veteran"``: the sides as a designer names them."""
        def side(members: Sequence[Member]) -> str:
            names = []
            for m in members:
                name = m.fields.get("name") or m.preset or "fighter"
                changed = [f"{k}={_short(v)}" for k, v in m.fields.items() if k != "name"]
                names.append(name + (f" ({', '.join(changed)})" if changed else ""))
            return " + ".join(names)
        return f"{side(self.a)} against {side(self.b)}"


def _short(value: Any) -> str:
    text = json.dumps(plain(value)) if not isinstance(value, str) else value
    return text if len(text) <= 30 else text[:27] + "..."


def overrides(base: Any, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``values`` that differ from the same fields of ``base`` (a dataclass
    instance: a preset, or the defaults)."""
    return {k: v for k, v in values.items() if plain(getattr(base, k)) != plain(v)}


# --- as an experiment ---------------------------------------------------------------------


def to_spec(question: Question, *, description: str | None = None,
            axis: tuple[str, Sequence[Any]] | None = None, fights: int | None = 100_000,
            exact: bool = False) -> dict[str, Any]:
    """The question as an experiment spec (the structure of a ``balance sweep`` TOML file).

    Parameters
    ----------
    axis
        Optional ``(field, values)`` to sweep (``"a.0.skill"``, ``"rules.damage_die"``...);
        without one the experiment is the single matchup.
    fights
        Fights per cell of a simulated run.
    exact
        Solve every cell with the ruleset's exact solver (``[run] method = "exact"``).
    """
    spec: dict[str, Any] = {
        "description": description or f"{question.ruleset}: {question.describe()} (explorer)",
        "question": f"How does {question.describe()} come out"
                    + (f" as {axis[0]} varies?" if axis else "?"),
        "ruleset": question.ruleset,
    }
    if question.rules:
        spec["rules"] = {k: plain(v) for k, v in question.rules.items()}
    spec["a"] = [plain(m.spec()) for m in question.a]
    spec["b"] = [plain(m.spec()) for m in question.b]
    if axis is not None:
        spec["grid"] = {"axes": [{"field": axis[0], "values": [plain(v) for v in axis[1]]}]}
    spec["run"] = {"method": "exact"} if exact else {"fights": int(fights or 100_000),
                                                    "seed": question.seed}
    return spec


def to_toml(spec: Mapping[str, Any]) -> str:
    """Write an experiment spec (as :func:`to_spec` makes) as TOML text.

    The spec's own shape is known, so a small writer suffices: top-level scalars, then
    ``[rules]``, ``[[a]]`` / ``[[b]]``, ``[grid]`` with ``[[grid.axes]]``, and ``[run]``;
    nested tables are written inline.
    """
    lines = ["# Written by the balance explorer (balance.explore): run it with", "#",
             "#   balance sweep THIS_FILE.toml", ""]
    for key in ("description", "question", "notes", "ruleset"):
        if key in spec:
            lines.append(f"{key} = {_toml_value(spec[key])}")
    if spec.get("rules"):
        lines += ["", "[rules]"] + [f"{_toml_key(k)} = {_toml_value(v)}"
                                     for k, v in spec["rules"].items()]
    for side in ("a", "b"):
        for member in spec[side]:
            lines += ["", f"[[{side}]]"] + [f"{_toml_key(k)} = {_toml_value(v)}"
                                             for k, v in member.items()]
    if "grid" in spec:
        grid = spec["grid"]
        lines += ["", "[grid]"]
        if "combine" in grid:
            lines.append(f"combine = {_toml_value(grid['combine'])}")
        for ax in grid["axes"]:
            lines += ["", "[[grid.axes]]", f"field = {_toml_value(ax['field'])}",
                      f"values = {_toml_value(ax['values'])}"]
    lines += ["", "[run]"] + [f"{_toml_key(k)} = {_toml_value(v)}"
                              for k, v in spec["run"].items()]
    return "\n".join(lines) + "\n"


def _toml_key(key: str) -> str:
    bare = key.replace("_", "").replace("-", "").isalnum() and key.isascii()
    return key if bare else json.dumps(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise SpecError(f"cannot write the non-finite number {value!r} to an experiment")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml_key(str(k))} = {_toml_value(v)}"
                                for k, v in value.items()) + " }"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if value is None:
        raise SpecError("an experiment cannot hold an empty value (none): leave the field "
                        "at its default instead")
    raise SpecError(f"cannot write {type(value).__name__} {value!r} to an experiment")
