"""Files written safely: atomic writes, file names made from user strings, output folders.

Nothing here knows what is written (a run, a figure, a report): the experiment runner,
:mod:`balance.figures` and :mod:`balance.report` all write through these.

* :func:`atomic_write` -- a temporary file in the same folder, then ``os.replace``: a
  reader, or a process killed at any instant, sees the old file or the new one, never a
  torn one;
* :func:`bounded_name` -- a file name from user text that any file system accepts;
* :func:`check_folder` / :func:`make_folder` -- an output folder checked (length limits,
  a file in the way, permissions) before anything is written, each problem one
  :class:`~balance.errors.SpecError`; :func:`writing_in` -- what the file system still
  refuses while writing there, one :class:`~balance.errors.SpecError` naming the option.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import SpecError

__all__ = ["NAME_BYTES", "atomic_write", "bounded_name", "check_folder", "make_folder",
           "writing_in"]

NAME_BYTES = 120
"""Longest file name (in bytes) made from user strings; longer ones are cut and hashed."""


def _file_mode() -> int:
    """The mode ``open()`` would give a new file: 0o666 less the process umask (read without
    changing it where Linux reports it, else set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same directory, then
    ``os.replace``), with the permissions the umask gives a new file (``mkstemp`` alone
    would leave it 0600)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def bounded_name(text: str, limit: int = NAME_BYTES) -> str:
    """``text`` as it is if it fits in ``limit`` bytes, else its first part and a hash of the
    whole: a file name made from user strings that the file system always accepts and that
    still tells different strings apart."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    tag = hashlib.blake2b(raw, digest_size=8).hexdigest()
    head = raw[:limit - len(tag) - 1].decode("utf-8", errors="ignore")
    return f"{head}-{tag}"


def check_folder(path: str | Path, what: str = "--out", purpose: str = "") -> None:
    """Raise a :class:`SpecError` unless ``path`` is a folder, or one that can be made
    there: every name within the file system's length limit, the nearest existing parent a
    writable folder.  Creates nothing.  ``what`` names the option in messages, ``purpose``
    ends them (``" for the plots"``)."""
    given = str(path)
    target = Path(os.path.abspath(path))

    def exists(path: Path) -> bool:
        try:
            return path.exists()
        except OSError:  # a name too long, a loop: it is not there to write in
            return False

    existing = target
    while not exists(existing) and existing != existing.parent:
        existing = existing.parent
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
        path_max = os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError, AttributeError):
        name_max, path_max = 255, 4096
    for part in target.parts:
        size = len(os.fsencode(part))
        if size > name_max:
            raise SpecError(f"{what} {given[:60]}...: a name in it is {size} bytes long; this "
                            f"file system allows at most {name_max}")
    reserve = 120  # room for the run's own files: cache/<tag>/<cell>/<index>-<size>.json
    if len(os.fsencode(str(target))) + reserve > path_max:
        raise SpecError(f"{what} {given[:60]}...: the path is too long; at most "
                        f"{path_max - reserve} bytes here")
    if existing == target:
        if not target.is_dir():
            raise SpecError(f"{what} {given} is a file; give a folder{purpose}")
    elif not existing.is_dir():
        raise SpecError(f"{what} {given}: {existing} is a file, not a folder; give a "
                        f"folder{purpose}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise SpecError(f"{what} {given}: cannot write in {existing} (permission denied)")


def make_folder(path: str | Path, what: str = "--out") -> None:
    """Create folder ``path`` (and its parents) after :func:`check_folder`; an ``OSError``
    (a file system that refuses, e.g. under ``/proc``) becomes a :class:`SpecError`."""
    check_folder(path, what)
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SpecError(f"{what} {path}: cannot create the folder ({exc.strerror or exc})") \
            from None


@contextlib.contextmanager
def writing_in(folder: str | Path, what: str = "--out") -> Iterator[None]:
    """Write into ``folder`` inside this block: an ``OSError`` no check foresaw (a file
    system that refuses, such as ``/proc`` or ``/sys``, a read-only mount, a full disk)
    becomes a :class:`SpecError` naming ``what`` and the folder, not a bare OS message."""
    try:
        yield
    except OSError as exc:
        name = f" {exc.filename}" if exc.filename and str(exc.filename) != str(folder) else ""
        raise SpecError(f"{what} {folder}: cannot write{name} ({exc.strerror or exc})") \
            from None
