"""Exact sweeps (``[run] method = "exact"``): every cell solved by the ruleset's exact solver.

A cell is one task, :func:`solve_task`: ``ruleset.exact(rules, side_a, side_b)`` as a plain
JSON record, a pure function of the cell (no seed decides an exact answer).  The runner
hands the tasks to the same executors as chunks, caches each record as
``cache/<tag>/<cell key>/exact.json`` (:class:`~balance.experiments.store.ExactCache`) and turns
the records into the same tidy row shape as a simulated run (:func:`rows`): ``a_win`` /
``b_win`` / ``draw`` with ``_low`` / ``_high`` equal to the value (an exact answer has no
sampling interval), ``mean_rounds``, ``n = 0``, ``method = "exact"``, the solve's wall time
``solve_ms``, and the solver's scalar details as columns.

Which cells a solver can answer is checked before any work: a ruleset may define
``exact_check(rules, side_a, side_b) -> str | None`` (why it cannot answer, or ``None``;
cheap, no solving), which is asked of every cell; without one, the runner solves the first
cell during validation (:func:`probe`).  A cell the solver rejects later still fails as a
:class:`~balance.errors.SpecError` naming the cell.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from ..errors import SpecError
from ..fields import plain
from ..labels import display
from ..rulesets import portable
from ..rulesets.base import Ruleset
from .grid import Cell, place
from .spec import Spec, resolve_ruleset

__all__ = ["TIMING_SUFFIXES", "check_cells", "probe", "rows", "solve_task"]

TIMING_SUFFIXES: tuple[str, ...] = ("_s", "_ms")
"""Solver details named ``..._s`` / ``..._ms`` are timings: kept in the cache record, left
out of the table (whose ``solve_ms`` column is the runner's own measure), so a table does
not depend on how loaded the machine was."""
RATES: tuple[str, ...] = ("a_win", "b_win", "draw")


def _scalar(value: Any) -> Any:
    """A detail as a table entry: numbers, text, flags and None as they are, the rest JSON."""
    value = plain(value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def solve_task(ruleset: str, allow_import: bool, rules: Any, side_a: Any, side_b: Any
               ) -> dict[str, Any]:
    """The exact answer of one cell as a plain record, or ``{"rejected": reason}``.

    A pure function of its arguments (safe to run anywhere, twice).  The ruleset travels
    by name (or import path) with the permission the caller had to import it
    (:func:`balance.rulesets.portable`), and is looked up where the task runs.
    """
    rs = resolve_ruleset(ruleset, allow_import=allow_import)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        answer = rs.exact(rules, side_a, side_b)
    except SpecError as exc:  # IntractableError, or a matchup the solver refuses
        return {"rejected": exc.reason}
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    mean = answer.mean_rounds
    return {"a_win": float(answer.a_win), "b_win": float(answer.b_win),
            "draw": float(answer.draw),
            "mean_rounds": None if mean is None else float(mean),
            "details": {str(k): _scalar(v) for k, v in dict(answer.details).items()},
            "wall_s": wall, "cpu_s": cpu}


def _reject(spec: Spec, cell: Cell, reason: str) -> SpecError:
    return SpecError(f"{reason} (run.method = \"exact\"; method = \"simulate\" runs it by "
                     "Monte Carlo)", where=place(spec, cell.params))


def rejected(spec: Spec, cell: Cell, record: Mapping[str, Any]) -> SpecError | None:
    """The error to raise for a task's record, if the solver rejected the cell."""
    if "rejected" in record:
        return _reject(spec, cell, str(record["rejected"]))
    return None


def check_cells(spec: Spec, cells: Iterable[Cell], rs: Ruleset) -> None:
    """Ask the ruleset's ``exact_check`` about every distinct cell (cheap, no solving);
    raise a SpecError naming the first it rejects.  A ruleset that cannot tell without
    solving answers ``None``: :func:`probe` then finds out on the first cell."""
    seen: set[str] = set()
    for cell in cells:
        if cell.key in seen:
            continue
        seen.add(cell.key)
        why = rs.exact_check(cell.rules, cell.side_a, cell.side_b)
        if why:
            raise _reject(spec, cell, str(why))


def probe(spec: Spec, cell: Cell) -> dict[str, Any]:
    """Solve ``cell`` here, now (validation beyond what ``exact_check`` can tell); its
    record, or a SpecError naming the cell if the solver rejects it."""
    record = solve_task(*portable(spec.ruleset), cell.rules, cell.side_a, cell.side_b)
    error = rejected(spec, cell, record)
    if error is not None:
        raise error
    return record


COUNT_COLUMNS = ("a_wins", "b_wins", "draws")
"""A simulated run's count columns: a solver detail of the same name (pool's ``draws``, the
draws by cause) must not shadow them, so it is kept as ``detail_<name>``."""


def rows(cells: Iterable[Cell], records: Mapping[str, Mapping[str, Any]],
         rs: Ruleset) -> list[dict[str, Any]]:
    """One tidy row per cell, in the shape of a simulated run's rows (with the policies
    each cell rests on)."""
    out = []
    for cell in cells:
        record = records[cell.key]
        row: dict[str, Any] = {name: display(value, name) for name, value in cell.params.items()}
        row["n"] = 0
        for rate in RATES:
            value = float(record[rate])
            row[rate] = row[f"{rate}_low"] = row[f"{rate}_high"] = value
        mean = record.get("mean_rounds")
        row["mean_rounds"] = math.nan if mean is None else float(mean)
        row["method"] = "exact"
        row["solve_ms"] = round(1000 * float(record.get("wall_s", math.nan)), 3)
        for key, value in dict(record.get("details", {})).items():
            if key.endswith(TIMING_SUFFIXES):
                continue
            reserved = key in row or key in COUNT_COLUMNS or key == "cell"
            row[f"detail_{key}" if reserved else key] = value
        row["policies"] = "; ".join(rs.policies(cell.rules, cell.side_a, cell.side_b)) or "none"
        row["cell"] = cell.key
        out.append(row)
    return out


def tidy(frame: Any) -> Any:
    """Detail columns whose cells mix numbers and text become text (Parquet needs one type
    a column)."""
    for column in frame.columns:
        if frame[column].dtype != object:
            continue
        kinds = {type(v) for v in frame[column] if v is not None
                 and not (isinstance(v, float) and np.isnan(v))}
        if len(kinds) > 1:
            frame[column] = [None if v is None else str(v) for v in frame[column]]
    return frame
