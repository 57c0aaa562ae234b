"""The race model's score tables kept on disk between runs.

``attack_policy = "best"`` costs a race model per matchup (:mod:`.race`): tens of
milliseconds a pair, so a round robin of a few entrants spends more on it than on its
fights, and spends it again each time it is run.  The tables are pure functions of the
rules, the two fighters and the code, so each one computed is appended to a file and read
back by later runs:

    <cache folder>/race-<code hash>.jsonl      one line a table: key, scores, checksum

* The folder is ``$BALANCE_CACHE`` if set (``off`` turns the store off), else
  ``$XDG_CACHE_HOME/balance`` or ``~/.cache/balance``.
* The file is named by the hash of balance's source code
  (:func:`balance.sources.balance_hash`, as a run cache's tag is), so an edit to the
  model, or to anything else in balance, starts a new file; an older one is never read.
  A process whose balance was edited after it started keeps no store at all.
* A line's key hashes the canonical JSON of every argument of
  :func:`.race.race_scores` (every field of the rules and of both fighters), and its
  checksum covers key and scores: a line that fails (edited, torn by a crash) is not
  used, and the table is computed again.  Floats are written with ``repr`` precision, so
  a table reads back to the same numbers and a run's counts do not depend on whether its
  tables were computed or read.
* Lines are appended, each in one write; processes sharing the folder may append at
  once.  The file stops growing at :data:`MAX_BYTES`, and the files of older code
  versions are deleted but the :data:`KEEP_OTHERS` used last (a file is used when read).
* The store is an optimisation only: a folder it cannot create, read or write is passed
  over in silence and the tables are computed as before.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from ...fields import plain

__all__ = ["ENV", "KEEP_OTHERS", "MAX_BYTES", "folder", "forget", "load", "save"]

ENV = "BALANCE_CACHE"
"""The environment variable naming the cache folder (``off``: no store)."""
MAX_BYTES = 32 << 20
"""The file is not appended to past this size."""
KEEP_OTHERS = 3
"""Files of other code versions kept (the ones used last): the folder holds at most
``KEEP_OTHERS + 1`` files of :data:`MAX_BYTES`."""

Scores = tuple[tuple[float, ...], ...]

_STATE: dict[str, Any] = {"path": None, "tables": None}
"""This process's store: the file it appends to (``None``: none, or it failed) and the
tables read from it (``None``: not read yet)."""


def folder() -> Path | None:
    """The cache folder, or ``None`` when ``$BALANCE_CACHE`` is ``off``."""
    given = os.environ.get(ENV)
    if given is not None:
        return None if given.strip().lower() in ("off", "") else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "balance"


def forget() -> None:
    """Drop what this process read (the next call reads the folder again)."""
    _STATE.update(path=None, tables=None)


def _shown(value: Any) -> Any:
    """``value`` as canonical JSON data: each dataclass by all its fields."""
    if hasattr(value, "__dataclass_fields__"):
        return _once(_shown_dataclass, value)
    if isinstance(value, tuple | list):
        return [_shown(v) for v in value]
    return plain(value)


@lru_cache(maxsize=1024)
def _shown_dataclass(value: Any) -> dict[str, Any]:
    """One frozen dataclass (rules, a combatant) shown once: a round robin's keys share
    them (the answer is only read)."""
    return {"__class__": type(value).__name__,
            **{name: _shown(getattr(value, name)) for name in value.__dataclass_fields__}}


def key_of(args: tuple[Any, ...]) -> str:
    """The key of a :func:`.race.race_scores` call: a hash of its arguments' canonical JSON
    (each dataclass by all its fields, sorted; the list's text is its items' texts joined,
    so each rules object or fighter is written once however many keys it is part of)."""
    text = "[" + ",".join(map(_text, args)) + "]"
    return hashlib.blake2b(text.encode("ascii"), digest_size=16).hexdigest()


def _text(value: Any) -> str:
    if hasattr(value, "__dataclass_fields__"):
        return _once(_dataclass_text, value)
    return _dumps(_shown(value))


def _once(made: Any, value: Any) -> Any:
    """``made(value)``, remembered by ``made``'s cache (a value that cannot be hashed: made
    afresh)."""
    try:
        return made(value)
    except TypeError:
        return made.__wrapped__(value)


@lru_cache(maxsize=1024)
def _dataclass_text(value: Any) -> str:
    return _dumps(_shown(value))


def _dumps(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False)


def _checksum(key: str, scores: Any) -> str:
    text = json.dumps([key, scores], separators=(",", ":"))
    return hashlib.blake2b(text.encode("ascii"), digest_size=16).hexdigest()


def _tables() -> dict[str, Scores]:
    """Every sound table of this code's file (read once; empty without a store)."""
    if _STATE["tables"] is None:
        where = folder()
        if where is None:
            _STATE.update(path=None, tables={})
        else:
            from ... import sources

            code = sources.balance_hash()
            if code.startswith("edited-"):  # the code running is not the files': no store
                _STATE.update(path=None, tables={})
            else:
                path = where / f"race-{code}.jsonl"
                _STATE.update(path=path, tables=_read(path))
                _prune(where, path)
    tables: dict[str, Scores] = _STATE["tables"]
    return tables


def _prune(where: Path, current: Path) -> None:
    """Mark ``current`` as used now and delete the files of other code versions but the
    :data:`KEEP_OTHERS` used last (each version of balance starts a file; without this
    the folder would grow by one at every upgrade or edit).  Only names the store makes
    are candidates (``race-`` and a code hash as long as ``current``'s): ``$BALANCE_CACHE``
    may name a folder that also holds a user's ``race-results.jsonl``."""
    try:
        if current.exists():
            os.utime(current)
        others = [p for p in where.glob("race-*.jsonl")
                  if p.name != current.name and _store_name(p.name, len(current.name))]
        others.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except OSError:
        return  # another process pruned at the same moment, or a folder it cannot change
    for old in others[KEEP_OTHERS:]:
        try:
            old.unlink(missing_ok=True)
        except OSError:
            continue  # a file it may not delete (another's, or open on Windows): the next


def _store_name(name: str, length: int) -> bool:
    """Whether ``name`` is a store file's name (``race-<hex code hash>.jsonl``)."""
    code = name[len("race-"):-len(".jsonl")]
    return len(name) == length and all(c in "0123456789abcdef" for c in code)


def _read(path: Path) -> dict[str, Scores]:
    out: dict[str, Scores] = {}
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            lines = fh.readlines()
    except OSError:
        return out
    for line in lines:
        try:
            record = json.loads(line)
            key, scores = record["key"], record["scores"]
            if record["checksum"] != _checksum(key, scores):
                continue
            out[str(key)] = tuple(tuple(float(v) for v in row) for row in scores)
        except (ValueError, KeyError, TypeError):
            continue  # a torn or edited line: computed again
    return out


def load(key: str) -> Scores | None:
    """The table stored under ``key``, or ``None``."""
    return _tables().get(key)


def save(key: str, scores: Scores) -> None:
    """Append ``scores`` under ``key`` (nothing if there is no store, or it cannot be
    written)."""
    tables = _tables()
    path: Path | None = _STATE["path"]
    if path is None:
        return
    rows = [list(row) for row in scores]
    line = json.dumps({"key": key, "scores": rows, "checksum": _checksum(key, rows)},
                      separators=(",", ":")) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > MAX_BYTES:
            return
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(fd, line.encode("ascii"))
        finally:
            os.close(fd)
    except OSError:
        _STATE["path"] = None  # a folder it cannot write: stop trying
        return
    tables[key] = tuple(tuple(row) for row in scores)
