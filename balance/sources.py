"""The hash of source code that decides numbers: what a cache is keyed on besides its inputs.

:func:`source_hash` hashes every ``.py`` and ``.toml`` file under some folders, once per
process; if any of them changes afterwards (a module edited while a notebook runs), the
running code can no longer be told from the files, and each later call returns a tag of its
own (``edited-...``), so nothing computed by it is shared.  The run cache
(:func:`balance.experiments.store.code_hash`) and the race model's tables on disk
(:mod:`balance.rulesets.strike_rank.race_store`) are keyed on it.
"""

from __future__ import annotations

import hashlib
import secrets
from pathlib import Path

__all__ = ["balance_hash", "source_hash"]


def balance_hash() -> str:
    """:func:`source_hash` of the ``balance`` package itself."""
    return source_hash((Path(__file__).resolve().parent,))


_FIRST_READ: dict[tuple[Path, ...], tuple[tuple[tuple[str, int, int], ...], str]] = {}
"""Per set of roots: the files' (path, mtime, size) when this process first hashed them,
and that hash."""


def _source_files(roots: tuple[Path, ...]) -> list[tuple[Path, Path]]:
    """(root, file) for every ``.py`` and ``.toml`` file under ``roots``, sorted, hidden
    names and anything that is not a regular file (a dangling link) left out."""
    out = []
    for root in roots:
        if not root.is_dir():
            out.extend([(root, root)] if root.is_file() else [])
            continue
        found = {p for suffix in ("*.py", "*.toml") for p in root.rglob(suffix)}
        out.extend((root, p) for p in sorted(found)
                   if p.is_file() and not any(part.startswith(".")
                                              for part in p.relative_to(root).parts))
    return out


def source_hash(roots: tuple[Path, ...]) -> str:
    """A hash of every ``.py`` and ``.toml`` file under ``roots`` (a root that is a file:
    that file), their names relative to their root's parent included; read once per
    process, and ``edited-<random>`` once any of them has changed since."""
    files = _source_files(roots)
    stamps = tuple((str(p), st.st_mtime_ns, st.st_size)
                   for _, p in files for st in (p.stat(),))
    first = _FIRST_READ.get(roots)
    if first is not None:
        return first[1] if first[0] == stamps else "edited-" + secrets.token_hex(8)
    digest = hashlib.blake2b(digest_size=8)
    for root, path in files:
        name = path.name if root == path else path.relative_to(root.parent).as_posix()
        digest.update(name.encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    _FIRST_READ[roots] = (stamps, digest.hexdigest())
    return digest.hexdigest()
