"""The run directory on disk: chunk cache, results tables, provenance; atomic writes only.

::

    runs/<experiment>/
      meta.json          the spec, seed entropy, versions, chunk size, executor, timings
      experiment.toml    a copy of the spec file as given
      results.parquet    one tidy row per cell
      results.csv        the same table as text
      plots/             figures drawn by `balance plot` or the spec's [[outputs.plots]]
      cache/<tag>/<cell key>/<index>-<size>.json    one completed chunk's Tally
      cache/<tag>/<cell key>/exact.json             an exact run's answer for one cell

Every file is written to a temporary name in its directory and moved into place with
``os.replace``, so a reader (or a run killed at any instant) sees either the old file or
the new one, never a torn one.  The cache ``tag`` hashes what else decides a chunk's numbers
-- the seed entropy and the versions of balance and NumPy -- so a cache can never answer
for a different seed or a different kernel.  An exact run's tag hashes only the versions
(no seed decides an exact answer).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SpecError
from ..results import Tally

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "META",
    "ChunkCache",
    "ExactCache",
    "atomic_write",
    "cache_tag",
    "exact_tag",
    "read_json",
    "read_table",
    "write_json",
    "write_table",
]

META = "meta.json"
SPEC_COPY = "experiment.toml"
RESULTS = {"parquet": "results.parquet", "csv": "results.csv"}


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


def write_json(path: Path, obj: Any) -> None:
    atomic_write(path, json.dumps(obj, indent=2, sort_keys=False, allow_nan=True) + "\n")


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def cache_tag(entropy: int, versions: Mapping[str, str]) -> str:
    """Name of the cache directory for chunks of ``entropy`` made by these versions."""
    text = json.dumps({"entropy": str(entropy), "balance": versions["balance"],
                       "numpy": versions["numpy"]}, sort_keys=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


def exact_tag(versions: Mapping[str, str]) -> str:
    """Name of the cache directory for exact answers made by these versions."""
    text = json.dumps({"method": "exact", "balance": versions["balance"],
                       "numpy": versions["numpy"]}, sort_keys=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


class ExactCache:
    """Exact answers of one run, one small JSON file per cell (``exact.json``).

    A record is plain JSON: the cell key, ``a_win`` / ``b_win`` / ``draw`` /
    ``mean_rounds``, the solver's ``details`` and the solve's wall and CPU seconds.  Floats
    are written with ``repr`` precision, so a record reads back to the same numbers.
    """

    NAME = "exact.json"

    def __init__(self, run_dir: Path, tag: str) -> None:
        self.root = Path(run_dir) / "cache" / tag

    def _path(self, key: str) -> Path:
        return self.root / key / self.NAME

    def save(self, key: str, record: Mapping[str, Any]) -> None:
        atomic_write(self._path(key), json.dumps({**record, "cell": key}, separators=(",", ":"),
                                                 allow_nan=True))

    def load(self, key: str) -> dict[str, Any] | None:
        """The cached answer of cell ``key``, or ``None`` (missing or unreadable)."""
        try:
            record = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("cell") != key \
                or not all(k in record for k in ("a_win", "b_win", "draw")):
            return None
        return record

    def count(self) -> int:
        return sum(1 for _ in self.root.glob(f"*/{self.NAME}")) if self.root.is_dir() else 0


class ChunkCache:
    """Completed chunks of one run, one small JSON file each."""

    def __init__(self, run_dir: Path, tag: str) -> None:
        self.root = Path(run_dir) / "cache" / tag

    def _path(self, key: str, index: int, size: int) -> Path:
        return self.root / key / f"{index:06d}-{size}.json"

    def save(self, key: str, index: int, size: int, tally: Tally) -> None:
        record = {"cell": key, "index": index, "size": size, "tally": tally.to_dict()}
        atomic_write(self._path(key, index, size), json.dumps(record, separators=(",", ":")))

    def load(self, key: str) -> dict[tuple[int, int], Tally]:
        """Every readable cached chunk of cell ``key``: (index, size) -> Tally."""
        folder = self.root / key
        out: dict[tuple[int, int], Tally] = {}
        if not folder.is_dir():
            return out
        for path in folder.glob("[0-9]*-[0-9]*.json"):
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
                tally = Tally.from_dict(record["tally"])
                index, size = int(record["index"]), int(record["size"])
            except (OSError, ValueError, KeyError, TypeError):
                continue  # unreadable: recompute it (atomic writes make this unlikely)
            if record.get("cell") == key and tally.n == size and path == self._path(key, index, size):
                out[index, size] = tally
        return out

    def count(self) -> int:
        return sum(1 for _ in self.root.glob("*/[0-9]*-[0-9]*.json")) if self.root.is_dir() else 0


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


def read_table(run_dir: Path) -> pd.DataFrame:
    """The results table of a run (Parquet if present, else CSV)."""
    import pandas as pd

    parquet, csv = Path(run_dir) / RESULTS["parquet"], Path(run_dir) / RESULTS["csv"]
    if parquet.exists():
        _need_pyarrow()
        return pd.read_parquet(parquet, engine="pyarrow")
    if csv.exists():
        return pd.read_csv(csv)
    raise SpecError(f"{run_dir}: no results table (results.parquet or results.csv); is the run "
                    "finished? (`balance sweep ... --resume` completes it)")
