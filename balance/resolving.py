"""A matchup from what a caller wrote: a ruleset reference, rules and two sides resolved to
validated ruleset objects.

:mod:`balance.api` offers these (``balance.get``); they live here, below the API and the
analyses, so that an analysis the API runs (best play) resolves its matchup without
importing the API back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import SpecError
from .rulesets import resolve
from .rulesets.base import Ruleset

__all__ = ["get", "matchup"]


def get(ruleset: str | Ruleset, *, allow_import: bool = False) -> Ruleset:
    """The ruleset ``ruleset`` names: a built-in or installed name, the object itself, or a
    ``"package.module:OBJECT"`` path, imported only with ``allow_import=True`` (it runs that
    module's code; see :func:`balance.rulesets.resolve`)."""
    return resolve(ruleset, allow_import=allow_import)


def matchup(ruleset: str | Ruleset, a: Any, b: Any, rules: Any = None, *,
            allow_import: bool = False, **rule_overrides: Any
            ) -> tuple[Ruleset, Any, tuple[Any, ...], tuple[Any, ...]]:
    """Resolve a ruleset name, rules and two sides to validated objects (``allow_import``:
    as :func:`get`)."""
    rs = get(ruleset, allow_import=allow_import)
    if isinstance(rules, rs.Rules):
        rules_obj = rs.rules(rules, **rule_overrides)
    elif rules is None or isinstance(rules, Mapping):
        overrides: dict[str, Any] = dict(rules or {})
        rules_obj = rs.rules({**overrides, **rule_overrides})
    else:
        raise SpecError(f"rules must be a {rs.name} Rules object or a mapping of overrides")
    side_a, side_b = rs.side(a), rs.side(b)
    rs.check_sides(rules_obj, side_a, side_b)
    return rs, rules_obj, side_a, side_b
