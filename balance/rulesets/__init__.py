"""The registry of built-in rulesets, and the one resolver every command and the API use.

Built-ins are listed here by name, module and class (no package crawling); a built-in's
package is imported the first time the registry is asked for it, so a command about one
ruleset (``balance exact crt``) loads only that one.  Others arrive by the
standard plugin mechanism -- an entry point in the ``balance.rulesets`` group of a package the
user installed -- or as a ``package.module:OBJECT`` path, which is imported only when the user
allows it (``--allow-import`` on the command line, ``allow_import=True`` in Python): a spec
file received from someone else must not run their code without a word.

:func:`resolve` is the one place that decides.  Every command and API function passes the
permission its caller gave (default: none) down to it; nothing below the entry points
assumes it.  An import path this process imported (with permission) is remembered, so a
later lookup of the same path needs no second permission (its code has run already and
does not run again); a worker process re-resolving a ruleset for this process is given the
permission this process had, by :func:`portable`.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import SpecError
from .base import Ruleset

__all__ = ["ENTRY_POINT_GROUP", "RULESETS", "Ruleset", "available", "portable", "resolve"]

# name -> (module, class); the names are checked against each class's ``name`` on import.
_BUILT_INS: dict[str, tuple[str, str]] = {
    "crt": (".crt", "CRT"),
    "pool": (".pool", "Pool"),
    "strike-rank": (".strike_rank", "StrikeRank"),
    "zones": (".zones", "Zones"),
}


class _Registry(Mapping[str, Ruleset]):
    """A read-only mapping that imports a built-in ruleset's package on first lookup."""

    def __init__(self, entries: Mapping[str, tuple[str, str]]) -> None:
        self._entries = dict(entries)
        self._loaded: dict[str, Ruleset] = {}

    def __getitem__(self, name: str) -> Ruleset:
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


RULESETS: Mapping[str, Ruleset] = _Registry(_BUILT_INS)

ENTRY_POINT_GROUP = "balance.rulesets"
"""Installed packages register rulesets here: ``[project.entry-points."balance.rulesets"]``
``d10 = "d10:RULESET"`` (the object, or its class)."""

_LOADED: dict[str, Ruleset] = {}


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available() -> dict[str, str]:
    """Every ruleset name that resolves without an import flag: name -> where it comes from
    (``"built-in"`` or the entry point's ``module:OBJECT``)."""
    out = {name: "built-in" for name in RULESETS}
    for name, ep in _entry_points().items():
        out.setdefault(name, ep.value)
    return out


def _as_ruleset(obj: Any, ref: str) -> Ruleset:
    if isinstance(obj, type) and issubclass(obj, Ruleset):
        obj = obj()
    if not isinstance(obj, Ruleset):
        raise SpecError(f"ruleset {ref!r} is a {type(obj).__name__}, not a ruleset (a "
                        "balance.rulesets.base.Ruleset subclass or instance)")
    return obj


def resolve(ref: str | Path | Ruleset, *, allow_import: bool = False) -> Ruleset:
    """The ruleset ``ref`` names.

    Parameters
    ----------
    ref
        A ruleset object (returned as is), a built-in name (``"crt"``), the path of a
        ruleset file (``"my-rules.toml"``, see ``docs/ruleset-file.md``), the name of an
        installed ``balance.rulesets`` entry point, or ``"package.module:OBJECT"``.
    allow_import
        Whether a ``module:OBJECT`` path may be imported (the current directory is put on
        ``sys.path`` first, as ``python -m`` does).  Without it such a path is refused with
        a message saying what would be imported and how to allow it.

    Raises
    ------
    SpecError
        Unknown name (with the nearest names), refused or failed import, not a ruleset.
    """
    if isinstance(ref, Ruleset):
        return ref
    if isinstance(ref, Path):
        ref = str(ref)
    if not isinstance(ref, str):
        raise SpecError(f"a ruleset is a name, a .toml file or 'package.module:OBJECT', "
                        f"got {ref!r}")
    ref = ref.strip()
    if ref in RULESETS:
        return RULESETS[ref]
    from .file import is_ruleset_file

    if is_ruleset_file(ref):  # a ruleset file is data: it runs nothing, no flag needed
        from .file import load

        return load(ref)
    if ref in _LOADED:
        return _LOADED[ref]
    module_name, sep, attr = ref.partition(":")
    if not sep:
        eps = _entry_points()
        if ref in eps:
            try:
                obj = eps[ref].load()
            except Exception as exc:  # a broken plugin must not be a traceback
                raise SpecError(f"ruleset {ref!r}: entry point {eps[ref].value!r} failed to "
                                f"load: {type(exc).__name__}: {exc}") from None
            _LOADED[ref] = _as_ruleset(obj, ref)
            return _LOADED[ref]
        names = list(available())
        near = difflib.get_close_matches(ref, names, n=1)
        raise SpecError(f"unknown ruleset {ref!r}"
                        + (f" (did you mean {near[0]!r}?)" if near else "")
                        + f"; rulesets: {', '.join(names)} (or 'package.module:OBJECT' with "
                        "--allow-import)")
    if not module_name or not attr.isidentifier():
        raise SpecError(f"ruleset {ref!r}: an import path is 'package.module:OBJECT'")
    if not allow_import:
        raise SpecError(f"ruleset {ref!r} would import and run the Python module "
                        f"{module_name!r}; allow it with --allow-import (in Python: "
                        "allow_import=True), or install it as a 'balance.rulesets' entry point")
    cwd = str(Path.cwd())
    if "" not in sys.path and cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SpecError(f"cannot import ruleset {ref!r}: {exc}") from None
    _LOADED[ref] = _as_ruleset(obj, ref)
    return _LOADED[ref]


def portable(ruleset: str | Ruleset) -> tuple[str, bool]:
    """How another process finds ``ruleset`` again: ``(ref, allow_import)`` to pass to
    :func:`resolve` there.

    A registry or entry-point name needs no permission.  An import path needs the one this
    process was given: it is granted only for a path this process has imported (which it
    could do only with permission).  A ruleset object is found by the path it was imported
    from (it, or the ruleset it was copied from with presets of its own), a ruleset file by
    its path, else by its name.
    """
    if isinstance(ruleset, str):
        ref = ruleset.strip()
        return ref, ":" in ref and ref in _LOADED
    reference = getattr(ruleset, "reference", None)
    if isinstance(reference, str):  # a ruleset file: its path (data: no permission needed)
        return reference, False
    for ref, obj in _LOADED.items():
        if obj is ruleset:
            return ref, ":" in ref
    for ref, obj in _LOADED.items():
        if type(obj) is type(ruleset):
            return ref, ":" in ref
    return ruleset.name, False
