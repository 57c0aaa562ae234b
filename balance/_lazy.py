"""Names a package exports but imports on first use (PEP 562), so that ``import balance``
and every command (which imports it) load only the modules they run."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from typing import Any


def attribute_loader(package: str, where: Mapping[str, str]) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package``: the name ``n`` is ``where[n]`` (a module
    relative to the package, such as ``".runner"``)'s attribute ``n``, or else the
    package's submodule ``n``, imported when first asked for and kept in the package's
    namespace from then on."""

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            if name.startswith("__") or importlib.util.find_spec(f"{package}.{name}") is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            return importlib.import_module(f"{package}.{name}")  # sets the attribute
        value = getattr(importlib.import_module(module, package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    return __getattr__


def listing(namespace: dict[str, Any]) -> Callable[[], list[str]]:
    """A module ``__dir__`` for the package whose ``globals()`` are ``namespace``: the names
    it holds and every name of its ``__all__``, loaded yet or not (``dir()``, completion)."""

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __dir__
