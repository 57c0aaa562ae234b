"""The ``Combatant`` and ``Rules`` dataclasses of a ruleset file, made from its fields.

Each ``[fighter.NAME]`` and ``[rules.NAME]`` becomes a field declared with
:func:`balance.fields.param` (its default, allowed values, tag, documentation, policy and
search), so a file ruleset's fighters and rules are built, checked, shown and swept by the
same code as the built-ins'.  The classes are made at run time, so an instance pickles as
the file's text and its own values (:func:`rebuild`): a worker process reading it makes
(or finds) the same ruleset, and the same classes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ...fields import check_fields, param
from .schema import Stat, System

__all__ = ["make_classes", "rebuild"]

_TYPES = {"int": int, "bool": bool, "str": str}


def _field(stat: Stat) -> Any:
    low, high = stat.range or (None, None)
    return param(stat.default, tag=stat.tag, doc=stat.doc, choices=stat.choices or None,  # type: ignore[arg-type]
                 low=low, high=high, policy=stat.policy, search=stat.search)


def make_classes(system: System, reduce: Callable[[str, Any], tuple[Any, ...]]
                 ) -> tuple[type, type]:
    """``(Combatant, Rules)`` for ``system``; ``reduce(kind, instance)`` pickles one."""
    fighter: list[tuple[str, type, Any]] = [("name", str, param("fighter", tag="TEXT",
                                   doc="display name in logs and tables"))]
    fighter += [(s.name, _TYPES[s.kind], _field(s)) for s in system.fighter]
    rules: list[tuple[str, type, Any]] = [(s.name, _TYPES[s.kind], _field(s))
                                          for s in system.rules]
    out = []
    for kind, fields in (("combatant", fighter), ("rules", rules)):
        namespace = {
            "_owner": f"{system.name} {kind}",
            "__post_init__": lambda self: check_fields(self),
            "__reduce__": _reducer(kind, reduce),
            "__doc__": f"A {kind} of the ruleset file {system.name!r}.",
        }
        cls = dataclasses.make_dataclass(
            "Combatant" if kind == "combatant" else "Rules", fields, namespace=namespace,
            frozen=True, kw_only=True)
        cls.__module__ = __name__
        cls.__qualname__ = f"{cls.__name__}[{system.name}]"
        out.append(cls)
    return out[0], out[1]


def _reducer(kind: str, reduce: Callable[[str, Any], tuple[Any, ...]]
             ) -> Callable[[Any], tuple[Any, ...]]:
    def __reduce__(self: Any) -> tuple[Any, ...]:
        return reduce(kind, self)

    return __reduce__


def rebuild(kind: str, text: str, source: str, values: dict[str, Any]) -> Any:
    """A combatant or rules instance of the ruleset file ``text`` (unpickling)."""
    from . import from_text

    ruleset = from_text(text, source)
    cls = ruleset.Combatant if kind == "combatant" else ruleset.Rules
    return cls(**values)
