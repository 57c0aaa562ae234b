"""The run directory on disk: chunk cache, results tables, provenance; atomic writes only.

::

    runs/<experiment>/
      meta.json          the spec, seed entropy, versions, chunk size, executor, timings
      experiment.toml    a copy of the spec file as given
      results.parquet    one tidy row per cell
      results.csv        the same table as text
      plots/             figures drawn by `balance plot` or the spec's [[outputs.plots]]
      cache/<tag>/<cell key>/<index>-<size>.json    one completed chunk's Tally
      cache/<tag>/batch-<hash>.json                 many cells' small chunks run as one task
      cache/<tag>/<cell key>/exact.json             an exact run's answer for one cell

Every file is written to a temporary name in its directory and moved into place with
``os.replace``, so a reader (or a run killed at any instant) sees either the old file or
the new one, never a torn one.  The cache ``tag`` hashes what else decides a chunk's numbers
-- the seed entropy, the versions of balance, NumPy and SciPy, and a hash of the source
code of balance and of the ruleset (:func:`code_hash`) -- so a cache can never answer for a
different seed or for a kernel or solver that was edited since.  An exact run's tag hashes
only the versions and the code (no seed decides an exact answer).  (The writes themselves are :mod:`balance.files`.)

Nothing read back is trusted blindly.  Every cached chunk and exact answer carries a
checksum of its content together with the cell, chunk and cache it claims to be; one that
fails (edited, truncated, copied from another cell or run) is set aside and recomputed,
and the run says so.  ``meta.json`` is checked field by field and records a checksum of
each results table, so a damaged or edited table -- Parquet or CSV, whichever is read -- is
refused rather than plotted or reported, and so is a record without its checksums.  A damaged run directory is a :class:`~balance.errors.SpecError` naming the file
and the way out, never a traceback.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import secrets
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..errors import SpecError
from ..files import atomic_write
from ..results import Tally
from ..sources import source_hash as _source_hash

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "META",
    "RUN_FORMAT",
    "ChunkCache",
    "ExactCache",
    "Run",
    "cache_tag",
    "check_tables",
    "checksum",
    "code_hash",
    "decided_by",
    "exact_tag",
    "file_checksum",
    "load_run",
    "read_json",
    "read_meta",
    "read_table",
    "remove_partial_writes",
    "write_json",
    "write_table",
]

META = "meta.json"
RUN_FORMAT = "balance-run/1"
SPEC_COPY = "experiment.toml"
RESULTS = {"parquet": "results.parquet", "csv": "results.csv"}


def write_json(path: Path, obj: Any) -> None:
    atomic_write(path, json.dumps(obj, indent=2, sort_keys=False, allow_nan=True) + "\n")


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def checksum(obj: Any) -> str:
    """BLAKE2b-128 of the canonical JSON of ``obj`` (sorted keys, no whitespace), as hex."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=True)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def file_checksum(path: Path) -> str:
    """BLAKE2b-128 of a file's bytes, as hex."""
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _sealed(body: Mapping[str, Any]) -> dict[str, Any]:
    """``body`` with its checksum added."""
    return {**body, "checksum": checksum(body)}


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _unsealed(path: Path) -> dict[str, Any] | None:
    """The record in ``path`` without its checksum, or ``None`` if it is unreadable, not a
    JSON object, or its checksum does not match its content."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    claimed = record.pop("checksum", None)
    if not isinstance(claimed, str) or claimed != checksum(record):
        return None
    return record


def code_hash(ruleset: Any) -> str:
    """A hash of the source code that decides a ruleset's numbers: every module of
    ``balance`` (the engine, the solvers and the built-in rulesets) and, for a ruleset
    defined outside ``balance``, every module and TOML file of its top-level package (or
    its own file, for a module outside any package); for a ruleset file
    (:mod:`balance.rulesets.file`), the hash of its text.  An edit to any of them, even one
    that keeps the version number, gives a new hash, so a cache never answers for code that
    changed.  Hidden files and folders (an editor's lock files) are not read.

    A process reads a module once, when it imports it; so the files are hashed once, the
    first time a process asks, and if any of them changes after that (a ruleset edited
    while a notebook runs, reloaded or not) the code running can no longer be told from
    the files, and each later call returns a tag of its own: such a run neither reuses nor
    leaves reusable answers (restart the process to share the cache again).  A ruleset
    whose class no file holds (defined in a notebook cell) gets a tag of its own the same
    way.  (An edit made between a module's import and the process's first hash cannot be
    seen: restart the kernel after editing a ruleset.)
    """
    roots = [Path(__file__).resolve().parents[1]]
    content = getattr(ruleset, "content_hash", None)
    if isinstance(content, str):  # a ruleset file: its text decides, beside balance's code
        return _source_hash(tuple(roots)) + "-" + content
    module = sys.modules.get(type(ruleset).__module__)
    own = getattr(module, "__file__", None)
    if module is None or own is None:
        return "unfiled-" + secrets.token_hex(8)
    path = Path(own).resolve()
    if roots[0] not in path.parents:
        top = sys.modules.get(module.__name__.split(".", 1)[0])
        places = [Path(p).resolve() for p in getattr(top, "__path__", None) or ()]
        roots.extend(places or [path])
    return _source_hash(tuple(roots))


SEEDING = 2
"""The seeding scheme's version, recorded in ``meta.json``: 1, each cell's chunk ``i`` on
``stream(entropy, cell key, i)`` (every run made before ``streams`` existed); 2, the
spec's ``streams`` decides (``"common"``: ``stream(entropy, "common", i)``)."""


def pack(winners: np.ndarray) -> bytes:
    """Winner codes (0..2), four to a byte, first fight in the low bits."""
    codes = np.asarray(winners, np.uint8)
    padded = np.zeros(4 * math.ceil(len(codes) / 4), np.uint8)
    padded[:len(codes)] = codes
    quads = padded.reshape(-1, 4)
    return (quads[:, 0] | quads[:, 1] << 2 | quads[:, 2] << 4 | quads[:, 3] << 6).tobytes()


def unpack(data: bytes, n: int) -> np.ndarray:
    """The first ``n`` winner codes of :func:`pack`'s bytes."""
    raw = np.frombuffer(data, np.uint8)
    if len(raw) != math.ceil(n / 4):
        raise ValueError(f"{len(raw)} bytes cannot hold {n} fights packed four to a byte")
    codes = _UNPACKED[raw].ravel()[:n]
    if np.any(codes > 2):
        raise ValueError("a winner code above 2")
    return codes


_UNPACKED = np.array([[(byte >> shift) & 3 for shift in (0, 2, 4, 6)] for byte in range(256)],
                     np.uint8)
"""Each byte's four codes, first fight in the low bits (:func:`unpack` by one lookup)."""
_UNPACKED.setflags(write=False)


def decided_by(versions: Mapping[str, str]) -> dict[str, str]:
    """What decides a cached answer besides its seed: the versions of balance, NumPy and
    SciPy (the solvers' linear programs), and the hash of the code (:func:`code_hash`,
    recorded by the runner as ``versions["code"]``)."""
    return {k: versions[k] for k in ("balance", "numpy", "scipy", "code") if k in versions}


def cache_tag(entropy: int, versions: Mapping[str, str], streams: str | None = None) -> str:
    """Name of the cache directory for chunks of ``entropy`` made by this code and these
    versions (:func:`decided_by`) on ``streams`` (``"common"`` or ``"independent"``, under
    the seeding scheme :data:`SEEDING`; ``None``: the tag of a
    run made before the scheme was recorded, whose chunks no later run reuses)."""
    data: dict[str, str] = {"entropy": str(entropy), **decided_by(versions)}
    if streams is not None:
        data.update({"streams": streams, "seeding": str(SEEDING)})
    text = json.dumps(data, sort_keys=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


def exact_tag(versions: Mapping[str, str]) -> str:
    """Name of the cache directory for exact answers made by this code and these
    versions."""
    text = json.dumps({"method": "exact", **decided_by(versions)}, sort_keys=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


class ExactCache:
    """Exact answers of one run, one small JSON file per cell (``exact.json``).

    A record is plain JSON: the cell key, ``a_win`` / ``b_win`` / ``draw`` /
    ``mean_rounds``, the solver's ``details`` and the solve's wall and CPU seconds, the
    cache tag, and a checksum of all of it.  Floats are written with ``repr`` precision, so
    a record reads back to the same numbers.  A record that fails its checksum, or claims
    another cell or cache, is not used: it is listed in :attr:`rejected` and solved again.
    """

    NAME = "exact.json"

    def __init__(self, run_dir: Path, tag: str) -> None:
        self.root = Path(run_dir) / "cache" / tag
        self.tag = tag
        self.rejected: list[Path] = []

    def _path(self, key: str) -> Path:
        return self.root / key / self.NAME

    def save(self, key: str, record: Mapping[str, Any]) -> None:
        body = {k: v for k, v in record.items() if k != "checksum"}
        body.update({"cell": key, "tag": self.tag})
        atomic_write(self._path(key), json.dumps(_sealed(body), separators=(",", ":"),
                                                 allow_nan=True))

    def load(self, key: str) -> dict[str, Any] | None:
        """The cached answer of cell ``key``, or ``None`` (missing, or failing its check)."""
        path = self._path(key)
        if not path.exists():
            return None
        record = _unsealed(path)
        if record is None or record.get("cell") != key or record.get("tag") != self.tag \
                or not all(isinstance(record.get(k), int | float)
                           for k in ("a_win", "b_win", "draw")):
            self.rejected.append(path)
            return None
        record.pop("tag")
        return record

    def count(self) -> int:
        return sum(1 for _ in self.root.glob(f"*/{self.NAME}")) if self.root.is_dir() else 0


class ChunkCache:
    """Completed chunks of one run, one small JSON file each, or many in one batch file.

    A chunk's record holds its cell key, index, size and cache tag beside the tally, each
    fight's winner (:func:`balance.experiments.paired.pack`, base64) when the run kept
    them, and a checksum of all of them: a chunk is used only where it is what its file name and folder
    say it is and its content is what was written.  Any other file is listed in
    :attr:`rejected` and its chunk is computed again.

    Small chunks of many cells that ran as one task (:func:`save_batch`) are one file,
    ``batch-<hash>.json`` (the hash names the chunks it holds), sealed as a whole: on a
    slow file system a file per chunk cost more than the fights.  A batch file that fails
    its checksum, claims another cache or holds an unsound record is rejected whole, and
    every chunk in it is computed again.
    """

    BATCHES = "batch-*.json"

    def __init__(self, run_dir: Path, tag: str) -> None:
        self.root = Path(run_dir) / "cache" / tag
        self.tag = tag
        self.rejected: list[Path] = []
        # the sound batch files' chunks: cell -> (index, size) -> (tally, file); their
        # winners stay on disk, read a file at a time (a run's cells come in file order)
        self._batched: dict[str, dict[tuple[int, int], tuple[Tally, Path]]] | None = None
        self._opened: tuple[Path, dict[tuple[str, int, int], Any]] | None = None
        # the batch files this object wrote: the digest of each one's text, so that reading
        # one back (a run's winners) knows it unchanged by its bytes, not by re-checking
        self._wrote: dict[Path, bytes] = {}

    def _path(self, key: str, index: int, size: int) -> Path:
        return self.root / key / f"{index:06d}-{size}.json"

    def _record(self, key: str, index: int, size: int, tally: Tally,
                winners: Any) -> dict[str, Any]:
        body = {"cell": key, "index": index, "size": size, "tag": self.tag,
                "tally": tally.to_dict()}
        if winners is not None:
            body["winners"] = base64.b64encode(pack(winners)).decode("ascii")
        return body

    def save(self, key: str, index: int, size: int, tally: Tally,
             winners: Any = None) -> None:
        body = self._record(key, index, size, tally, winners)
        atomic_write(self._path(key, index, size), json.dumps(_sealed(body),
                                                              separators=(",", ":")))

    def save_batch(self, chunks: Sequence[tuple[str, int, int, Tally, Any]]) -> None:
        """Many chunks ``(key, index, size, tally, winners)`` in one file."""
        records = [self._record(*chunk) for chunk in chunks]
        names = json.dumps([[r["cell"], r["index"], r["size"]] for r in records])
        path = self.root / f"batch-{hashlib.blake2b(names.encode('ascii'), digest_size=16).hexdigest()}.json"
        known = self._batch_index()  # what the folder held: read before this write
        text = json.dumps(_sealed({"tag": self.tag, "chunks": records}), separators=(",", ":"))
        atomic_write(path, text)
        self._wrote[path] = _digest(text.encode("utf-8"))
        for key, index, size, tally, _ in chunks:
            known.setdefault(key, {})[index, size] = (tally, path)

    def _batch_file(self, path: Path) -> dict[tuple[str, int, int], Any] | None:
        """The records of a sound batch file by (cell, index, size) with their tallies, or
        ``None`` (it fails its checksum, claims another cache, or holds an unsound
        record)."""
        if self._opened is not None and self._opened[0] == path:
            return self._opened[1]
        if path in self._wrote:
            found = self._written_batch(path)
            if found is not None:
                self._opened = (path, found)
                return found
        body = _unsealed(path)
        chunks = body.get("chunks") if body is not None else None
        if body is None or body.get("tag") != self.tag or not isinstance(chunks, list):
            return None
        found = {}
        for record in chunks:
            tally = _sound_tally(record, self.tag)
            if tally is None:
                return None
            found[record["cell"], record["index"], record["size"]] = (record, tally)
        self._opened = (path, found)
        return found

    def _written_batch(self, path: Path) -> dict[tuple[str, int, int], Any] | None:
        """:meth:`_batch_file` of a batch file this object wrote, if its bytes are still
        the text it wrote (sealed and sound as made, so its checksum and records need no
        second check; the tallies are the ones saved); else ``None``."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if _digest(data) != self._wrote[path]:
            return None
        body = json.loads(data)
        saved = self._batch_index()
        return {(r["cell"], r["index"], r["size"]): (r, saved[r["cell"]][r["index"], r["size"]][0])
                for r in body["chunks"]}

    def _batch_index(self) -> dict[str, dict[tuple[int, int], tuple[Tally, Path]]]:
        """Every sound batch file's chunks: cell key -> (index, size) -> (tally, file)
        (the folder read once; unsound files listed in :attr:`rejected`)."""
        if self._batched is not None:
            return self._batched
        self._batched = {}
        for path in sorted(self.root.glob(self.BATCHES)) if self.root.is_dir() else ():
            found = self._batch_file(path)
            if found is None:
                self.rejected.append(path)
                continue
            for (key, index, size), (_, tally) in found.items():
                self._batched.setdefault(key, {})[index, size] = (tally, path)
        return self._batched

    def load(self, key: str) -> dict[tuple[int, int], Tally]:
        """Every sound cached chunk of cell ``key``: (index, size) -> Tally."""
        folder = self.root / key
        out: dict[tuple[int, int], Tally] = {
            spot: tally for spot, (tally, _) in self._batch_index().get(key, {}).items()}
        if not folder.is_dir():
            return out
        for path in sorted(folder.glob("[0-9]*-[0-9]*.json")):
            record = _unsealed(path)
            sound = False
            if record is not None:
                try:
                    tally = Tally.from_dict(record["tally"])
                    index, size = record["index"], record["size"]
                    sound = (record["cell"] == key and record["tag"] == self.tag
                             and isinstance(index, int) and isinstance(size, int)
                             and path == self._path(key, index, size) and tally.n == size)
                except (ValueError, KeyError, TypeError):
                    sound = False
            if sound:
                out[index, size] = tally
            else:
                self.rejected.append(path)
        return out

    def winners(self, key: str, index: int, size: int) -> Any:
        """The winners of a cached chunk (uint8, in fight order), or ``None`` (no such
        chunk, one failing its check, or one saved without them)."""
        record: dict[str, Any] | None = None
        batched = self._batch_index().get(key, {}).get((index, size))
        if batched is not None:
            found = self._batch_file(batched[1])
            record = (found.get((key, index, size)) or (None,))[0] if found else None
        else:
            path = self._path(key, index, size)
            record = _unsealed(path) if path.exists() else None
        if record is None or record.get("cell") != key or record.get("tag") != self.tag \
                or not isinstance(record.get("winners"), str):
            return None
        try:
            return unpack(base64.b64decode(record["winners"], validate=True), size)
        except ValueError:
            return None

    def count(self) -> int:
        """Cached chunks: one a chunk file, and each record of every sound batch file."""
        if not self.root.is_dir():
            return 0
        alone = sum(1 for _ in self.root.glob("*/[0-9]*-[0-9]*.json"))
        return alone + sum(len(v) for v in self._batch_index().values())


def _sound_tally(record: Any, tag: str) -> Tally | None:
    """The tally of one record of a batch file, or ``None`` if the record is not one (a
    field missing or of the wrong kind, another cache's, a tally of the wrong size)."""
    try:
        tally = Tally.from_dict(record["tally"])
        index, size = record["index"], record["size"]
        sound = (isinstance(record["cell"], str) and record["tag"] == tag
                 and isinstance(index, int) and isinstance(size, int) and tally.n == size
                 and isinstance(record.get("winners", ""), str))
    except (ValueError, KeyError, TypeError):
        return None
    return tally if sound else None


def remove_partial_writes(run_dir: Path) -> int:
    """Delete the temporary files of the runner's writes a killed run left half done
    (``.*.tmp`` in the run folder, its cache and its plots; never read as results); the
    number removed.  Call only while holding the run's lock."""
    run_dir = Path(run_dir)
    removed = 0
    for path in [*run_dir.glob(".*.tmp"), *(run_dir / "plots").glob(".*.tmp"),
                 *(run_dir / "cache").rglob(".*.tmp")]:
        try:
            path.unlink()
            removed += 1
        except OSError:
            pass
    return removed


def _need_pyarrow() -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise SpecError("results.parquet needs pyarrow: pip install 'balance[parquet]', or "
                        "set outputs.tables = [\"csv\"]") from None


def check_formats(formats: Iterable[str]) -> None:
    """Fail before any work if a requested table format cannot be written."""
    if "parquet" in formats:
        _need_pyarrow()


def write_table(frame: pd.DataFrame, run_dir: Path, formats: Iterable[str]) -> list[Path]:
    """Write the results table in each format, atomically; the paths written."""
    import io

    written = []
    for fmt in formats:
        path = Path(run_dir) / RESULTS[fmt]
        if fmt == "parquet":
            _need_pyarrow()
            buffer = io.BytesIO()
            frame.to_parquet(buffer, index=False, engine="pyarrow")
            atomic_write(path, buffer.getvalue())
        else:
            atomic_write(path, frame.to_csv(index=False, lineterminator="\n"))
        written.append(path)
    return written


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_STATUSES = ("running", "interrupted", "failed", "complete")


def read_meta(run_dir: Path) -> dict[str, Any]:
    """The run record ``RUN/meta.json``, checked: a :class:`SpecError` naming the file and
    the field if it is missing, unreadable, not a run record, or damaged."""
    run_dir = Path(run_dir)
    path = run_dir / META
    if not path.is_file():
        raise SpecError(f"{str(run_dir)!r} is not a run directory (no {META})")
    again = "the run record is damaged: run the experiment again into a new --out"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SpecError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise SpecError(f"{path} is not valid JSON ({str(exc).splitlines()[0][:80]}); "
                        f"{again}") from None
    if not isinstance(meta, dict):
        raise SpecError(f"{path} holds a JSON {type(meta).__name__}, not a run record (an "
                        f"object); {again}")
    if meta.get("format") != RUN_FORMAT:
        raise SpecError(f"{path} is not a {RUN_FORMAT} run record (format "
                        f"{_short(meta.get('format'))})")

    def whole(value: Any, low: int) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value >= low

    def text_list(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    checks: list[tuple[str, bool, str]] = [
        ("status", meta.get("status") in _STATUSES, "one of " + ", ".join(_STATUSES)),
        ("ruleset", isinstance(meta.get("ruleset"), str), "a ruleset name"),
        ("spec", isinstance(meta.get("spec"), dict), "the experiment as a table"),
        ("method", meta.get("method", "simulate") in ("simulate", "exact"),
         "simulate or exact"),
        ("play", meta.get("play", "default") in ("default", "best"), "default or best"),
        ("streams", meta.get("streams", "independent") in ("common", "independent"),
         "common or independent"),
        ("seeding", whole(meta.get("seeding", 1), 1), "a whole number >= 1"),
        ("entropy", whole(meta.get("entropy"), 0), "a whole number >= 0"),
        ("axes", text_list(meta.get("axes")), "a list of swept fields"),
        ("cells", whole(meta.get("cells"), 1), "a whole number >= 1"),
        ("outputs", text_list(meta.get("outputs", [])) and all(
            not Path(o).is_absolute() and ".." not in Path(o).parts
            for o in meta.get("outputs", [])), "a list of paths inside the run directory"),
        ("timings", isinstance(meta.get("timings", {}), dict), "a table"),
        ("sessions", isinstance(meta.get("sessions", []), list)
         and all(isinstance(x, dict) for x in meta.get("sessions", [])), "a list of tables"),
        ("checksums", isinstance(meta.get("checksums", {}), dict)
         and all(isinstance(v, str) for v in meta.get("checksums", {}).values()),
         "a table of file name = checksum"),
    ]
    for name, ok, allowed in checks:
        if not ok:
            got = "nothing" if name not in meta else _short(meta[name])
            raise SpecError(f"{path}: {name!r} must be {allowed}, got {got}; {again}")
    return meta


def check_tables(run_dir: Path, meta: Mapping[str, Any], resume: str) -> None:
    """Check every results table in ``run_dir`` (Parquet and CSV alike, whichever is read)
    against the checksum the run record holds for it: a :class:`SpecError` for a record
    without checksums, a table it has none for, or a table that differs from the one the
    run wrote -- an edited CSV beside an intact Parquet included.

    A record without its ``checksums`` key is refused rather than read unchecked: deleting
    the key must not turn checking off.  ``resume`` is the command that writes the tables
    and their checksums again (``balance sweep SPEC --out RUN --resume``)."""
    path = run_dir / META
    rewrite = f"{resume} writes it again from the cache"
    if "checksums" not in meta:
        unfinished = meta.get("status") != "complete"
        raise SpecError(
            f"{path} has no 'checksums' key, so the results tables cannot be checked against "
            "the ones the run wrote" + (f" (the run's status is {_short(meta.get('status'))}"
                                        ": it did not finish)" if unfinished else "")
            + f"; {resume} writes the tables and their checksums again from the cache")
    checksums = meta["checksums"]
    for fmt in ("parquet", "csv"):
        table = run_dir / RESULTS[fmt]
        if not table.exists():
            continue
        expected = checksums.get(table.name)
        if expected is None:
            raise SpecError(f"{path} records no checksum for {table.name}: it is not a table "
                            f"this run wrote, or the record was edited; {rewrite}")
        try:
            found = file_checksum(table)
        except OSError as exc:
            raise SpecError(f"cannot read {table}: {exc.strerror or exc}; {rewrite}") from None
        if found != expected:
            twin = run_dir / RESULTS["parquet" if fmt == "csv" else "csv"]
            beside = f", unlike the {twin.name} beside it" if twin.exists() else ""
            raise SpecError(f"{table} is not the table this run wrote (its checksum differs "
                            f"from the one in {META}{beside}: damaged or edited); {rewrite}")


def read_table(run_dir: Path, meta: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The results table of a run (Parquet if present, else CSV), checked against the run
    record ``meta`` when given: the checksums it records for every table in the folder
    (:func:`check_tables`), the swept columns and one row per cell.  A damaged table is a
    :class:`SpecError` saying how to rewrite it."""
    import pandas as pd

    run_dir = Path(run_dir)
    path = next((run_dir / RESULTS[f] for f in ("parquet", "csv")
                 if (run_dir / RESULTS[f]).exists()), None)
    if path is None:
        raise SpecError(f"{run_dir}: no results table (results.parquet or results.csv); is "
                        "the run finished? (`balance sweep ... --resume` completes it)")
    source = (meta or {}).get("source") or "EXPERIMENT.toml"
    resume = f"`balance sweep {source} --out {run_dir} --resume`"
    rewrite = f"{resume} writes it again from the cache"
    if meta is not None:
        check_tables(run_dir, meta, resume)
    try:
        if path.suffix == ".parquet":
            _need_pyarrow()
            table = pd.read_parquet(path, engine="pyarrow")
        else:
            table = pd.read_csv(path)
    except SpecError:
        raise
    except Exception as exc:  # a damaged file: whatever the parser makes of it
        reason = (str(exc).splitlines() or [""])[0][:100]
        raise SpecError(f"{path} cannot be read ({type(exc).__name__}: {reason}); "
                        f"{rewrite}") from None
    if meta is not None:
        missing = [c for c in (*meta.get("axes", []), "cell", "n", "a_win")
                   if c not in table.columns]
        if missing:
            raise SpecError(f"{path} lacks the column(s) {', '.join(missing)}: damaged; "
                            f"{rewrite}")
        if len(table) != meta.get("cells"):
            raise SpecError(f"{path} holds {len(table)} rows but the run has {meta.get('cells')} "
                            f"cells: damaged or truncated; {rewrite}")
    return table


class Run(NamedTuple):
    """A finished sweep: its results table and its run directory.

    Unpacks as ``table, path = balance.sweep(...)``; ``.meta`` reads ``meta.json``.
    """

    table: pd.DataFrame
    path: Path

    @property
    def meta(self) -> dict[str, Any]:
        return read_meta(self.path)


def load_run(path: str | Path) -> Run:
    """The results table and directory of a run written by :func:`sweep`.

    Raises :class:`SpecError` (naming the file and the way out) for a folder that is not a
    run, a damaged ``meta.json``, or a results table that is missing, unreadable, or not
    the one the run wrote (see :func:`read_table`).
    """
    path = Path(path)
    meta = read_meta(path)
    table = read_table(path, meta)
    table.attrs.update({"run": str(path), "ruleset": meta.get("ruleset"),
                        "axes": list(meta.get("axes", [])), "spec": meta.get("spec", {})})
    return Run(table, path)
