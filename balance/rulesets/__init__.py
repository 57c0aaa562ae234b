"""The registry: ruleset name -> ruleset object, built by explicit import.

Nothing is discovered by crawling packages; adding a ruleset means adding a line here.
Each built-in is listed by name, module and class, and its package is imported the first
time the registry is asked for it, so a command about one ruleset (``balance exact crt``)
loads only that one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from .base import Ruleset, RulesetBase

__all__ = ["RULESETS", "Ruleset", "RulesetBase"]

# name -> (module, class); the names are checked against each class's ``name`` on import.
_BUILT_INS: dict[str, tuple[str, str]] = {
    "crt": (".crt", "CRT"),
    "pool": (".pool", "Pool"),
    "strike-rank": (".strike_rank", "StrikeRank"),
    "zones": (".zones", "Zones"),
}


class _Registry(Mapping[str, RulesetBase]):
    """A read-only mapping that imports a built-in ruleset's package on first lookup."""

    def __init__(self, entries: Mapping[str, tuple[str, str]]) -> None:
        self._entries = dict(entries)
        self._loaded: dict[str, RulesetBase] = {}

    def __getitem__(self, name: str) -> RulesetBase:
        try:
            return self._loaded[name]
        except KeyError:
            pass
        module, attr = self._entries[name]  # KeyError for an unknown name, as a Mapping
        cls = getattr(importlib.import_module(module, __name__), attr)
        if cls.name != name:
            raise RuntimeError(f"registry lists {attr} as {name!r} but it is named {cls.name!r}")
        self._loaded[name] = obj = cls()
        return obj

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"RULESETS({', '.join(self._entries)})"


RULESETS: Mapping[str, RulesetBase] = _Registry(_BUILT_INS)
