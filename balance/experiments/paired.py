"""Paired fights: what a difference between two cells played on common streams is sure of.

On common streams (a spec's default ``streams = "common"``, :mod:`balance.experiments.spec`)
chunk ``i`` of every cell is drawn from the same stream, so cell x's fight ``j`` and cell y's
fight ``j`` start from the same numbers.  Their difference is then a mean of per-fight
differences ``d_j = s(x_j) - s(y_j)`` (``s``: A wins 1 or, for the expected score, a draw
1/2 and a B win 0), whose standard error ``sd(d) / sqrt(n)`` is the error of the
difference: zero where the two cells play the same fights the same way, and smaller than
the two cells' errors in quadrature wherever their outcomes move together.  Cells that
stopped at different numbers of fights (a precision target) are paired over the fights
they share, the shorter one's.

The runner keeps each fight's winner (uint8: 0 draw, 1 A, 2 B, as
:meth:`balance.results.Tally.wins` orders them), packed four to a byte, with each cached
chunk, and writes every cell's counted fights, in order, to ``RUN/winners.npz`` (one array
per cell key, deflated) with its checksum in ``meta.json``.  :class:`Pairing` reads it back
and gives :func:`balance.analysis.verdict._difference_se` the paired error of two rows, or
``None`` where the fights are not paired (independent streams, exact cells, a run made
before the file existed): the verdict then adds the two errors in quadrature.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SpecError
from ..stats import SCORES, paired_se
from .store import SEEDING, file_checksum, pack, unpack

__all__ = ["FILE", "SCORES", "SEEDING", "Pairing", "pack", "paired_se", "unpack",
           "write_winners"]

FILE = "winners.npz"
"""Each cell's fights' winners, in the run directory."""


def write_winners(path: Path, cells: Iterable[tuple[str, np.ndarray]]) -> None:
    """Write ``(cell key, winners)`` pairs to ``path`` as a deflated ``.npz``, one cell at a
    time (memory holds one cell's fights), to a temporary name moved into place."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
            for key, winners in cells:
                with zf.open(f"{key}.npy", "w", force_zip64=True) as fh:
                    np.lib.format.write_array(fh, np.asarray(winners, np.uint8),
                                              allow_pickle=False)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    import os

    mask = os.umask(0)
    os.umask(mask)
    return mask


class Pairing:
    """The paired fights of a run: :meth:`se` of two rows' difference, from their cells'
    winners; ``None`` where a row has none.  Cells are read as asked and kept (a verdict
    compares each cell a few times)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with np.load(path, allow_pickle=False) as held:
            self._keys = set(held.files)
        self._held: dict[str, np.ndarray] = {}

    @classmethod
    def of_run(cls, run_dir: str | Path, meta: Mapping[str, Any]) -> Pairing | None:
        """The run's pairing when it played on common streams and kept its winners (checked
        against the checksum ``meta.json`` records); else ``None``."""
        said = meta.get("winners")
        if meta.get("streams") != "common" or not isinstance(said, Mapping):
            return None
        path = Path(run_dir) / FILE
        if not path.is_file():
            return None
        if file_checksum(path) != said.get("checksum"):
            raise SpecError(f"{path} does not match the checksum meta.json records (edited or "
                            "damaged): delete it and run the sweep again with --resume to "
                            "rewrite it from the cache")
        return cls(path)

    def winners(self, key: str) -> np.ndarray | None:
        if key not in self._held:
            if key not in self._keys:
                return None
            with np.load(self.path, allow_pickle=False) as held:  # no handle kept open
                self._held[key] = held[key]
        return self._held[key]

    def se(self, a: Mapping[str, Any], b: Mapping[str, Any], col: str) -> float | None:
        """The paired standard error of row ``a``'s ``col`` minus row ``b``'s, or ``None``
        (no winners for a row's cell, or ``col`` not a per-fight score)."""
        if col not in SCORES:
            return None
        x, y = (self.winners(str(r.get("cell", ""))) for r in (a, b))
        if x is None or y is None or min(len(x), len(y)) == 0:
            return None
        return paired_se(x, y, col)
