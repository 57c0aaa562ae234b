"""Reading what a person wrote: values checked at their place, and field paths.

An experiment spec (:mod:`balance.experiments.spec`) and a tuning knob
(:mod:`balance.analysis.tune`) name the fields they vary by the same **field paths**:
``a.<i>.<field>`` / ``b.<i>.<field>`` for a combatant of side A / B (``a.*.<field>``: every
combatant of the side), ``a.<i>.preset``, ``rules.<parameter>``, or ``a`` / ``b`` for a
whole side.  :func:`field_path` checks one against a ruleset; a :class:`Reader` makes every
error name its place (``x.toml: grid.axes[0].field``) and what is allowed.

Both readers sit here, below the analyses and the experiments that use them, so that
neither has to reach into the other.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .errors import SpecError, did_you_mean
from .fields import check_text, split_spec

if TYPE_CHECKING:
    from .rulesets.base import Ruleset

__all__ = ["SIDES", "Reader", "field_path", "field_types", "join", "member_fields", "reason",
           "show"]

SIDES: tuple[str, ...] = ("a", "b")
"""The labels of the two sides, in order: the first part of a side's field paths."""


class Reader:
    """Validation with file places: every error says where it is and what is allowed.

    ``source`` (a file name, or ``None``) prefixes every place.
    """

    def __init__(self, source: str | None) -> None:
        self.source = source

    def fail(self, place: str, message: str) -> SpecError:
        where = f"{self.source}: {place}" if self.source else place
        return SpecError(message, where=where)

    def table(self, value: Any, place: str, allowed: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(place, f"must be a table with keys {', '.join(allowed)}, "
                                   f"got {show(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail(join(place, key), f"unknown key {key!r}"
                                f"{did_you_mean(key, allowed)}; allowed: " + ", ".join(allowed))
        return value

    def integer(self, value: Any, place: str, low: int, high: int | None = None) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= low \
            and (high is None or value <= high)
        if not ok:
            upper = f"..{high:_}" if high is not None else " or more"
            raise self.fail(place, f"must be a whole number {low}{upper}, got {show(value)}")
        return int(value)

    def number(self, value: Any, place: str, low: float, high: float) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool) \
            and math.isfinite(value) and low < value < high
        if not ok:
            raise self.fail(place, f"must be a number strictly between {low:g} and {high:g}, "
                                   f"got {show(value)}")
        return float(value)

    def text(self, value: Any, place: str, choices: Sequence[str] | None = None, *,
             lines: bool = False) -> str:
        """A string: a name (printable, one line), or free text with ``lines=True``
        (newlines and tabs too; see :func:`balance.fields.check_text`)."""
        if not isinstance(value, str):
            raise self.fail(place, "must be a string"
                            + (f" (one of {', '.join(choices)})" if choices else "")
                            + f", got {show(value)}")
        try:
            check_text(value, "", lines=lines)
        except SpecError as exc:
            raise self.fail(place, reason(exc)) from None
        if choices is not None and value not in choices:
            raise self.fail(place, f"must be one of {', '.join(choices)}, got {value!r}"
                            + did_you_mean(value, choices))
        return value

    def ruled(self, place: str, check: Callable[..., Any], *args: Any) -> Any:
        """Run a ruleset check ``check(*args)``, reporting its SpecError at ``place``."""
        try:
            return check(*args)
        except SpecError as exc:
            raise self.fail(place, reason(exc)) from None


def join(place: str, key: str | int) -> str:
    """The place of ``key`` inside ``place``: ``a[0]``, ``grid.axes``."""
    if isinstance(key, int):
        return f"{place}[{key}]"
    return f"{place}.{key}" if place else key


def show(value: Any) -> str:
    """How an error names a value it rejects: a string quoted, a table or list by its kind."""
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    return repr(value)


def reason(exc: SpecError) -> str:
    """An error's message without its place (a :class:`Reader` gives its own)."""
    return exc.reason if isinstance(exc, SpecError) else str(exc)


@functools.cache
def field_types(cls: type) -> dict[str, Any]:
    """The :func:`~balance.fields.param` fields of ``cls`` and their types."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if "tag" in f.metadata}


def member_fields(member: Any) -> dict[str, Any]:
    """A combatant spec (preset string or table) as a mapping of fields (+ ``preset``)."""
    if isinstance(member, str):
        preset, values = split_spec(member)
        return ({"preset": preset} if preset is not None else {}) | values
    return dict(member)


def field_path(raw: Any, place: str, rs: Ruleset, sides: Mapping[str, Any],
               r: Reader) -> str:
    """Check the field path ``raw`` against the ruleset ``rs``; return it.

    ``sides`` maps a side label to its combatants where they are known (an index past them
    is an error); ``r`` reports an error at ``place``.
    """
    text = r.text(raw, place)
    parts = text.split(".")
    forms = ("a.<i>.<field>, b.<i>.<field>, a.*.<field>, a.<i>.preset, rules.<parameter>, "
             "a or b (a whole side)")
    if parts[0] == "rules" and len(parts) == 2:
        allowed = field_types(rs.Rules)
        if parts[1] not in allowed:
            raise r.fail(place, f"unknown {rs.name} rule parameter {parts[1]!r}"
                                f"{did_you_mean(parts[1], allowed)}; allowed: "
                                + ", ".join(allowed))
        return text
    if parts[0] in SIDES and len(parts) == 1:
        return text
    if parts[0] in SIDES and len(parts) == 3:
        label, member, name = parts
        if member != "*":
            if not member.isdigit():
                raise r.fail(place, f"{text!r}: the combatant index must be a number or *, "
                                    f"e.g. {label}.0.{name}")
            side = sides.get(label)
            if side is not None and int(member) >= len(side):
                raise r.fail(place, f"{text!r}: side {label.upper()} has {len(side)} "
                                    f"combatant(s) (index 0..{len(side) - 1})")
            if int(member) >= rs.max_side:
                raise r.fail(place, f"{text!r}: {rs.name} allows at most {rs.max_side} "
                                    "combatants per side")
        allowed = field_types(rs.Combatant)
        if name != "preset" and name not in allowed:
            raise r.fail(place, f"unknown {rs.name} combatant field {name!r}"
                                f"{did_you_mean(name, ['preset', *allowed])}; allowed: preset, "
                                + ", ".join(allowed))
        return text
    raise r.fail(place, f"{text!r} is not a field to sweep; use one of: {forms}")
