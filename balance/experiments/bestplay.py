"""Best-play sweeps (``[run] play = "best"``): every cell a zero-sum game over the policies.

A cell is one task, :func:`solve_task`: :func:`balance.analysis.bestplay.solve` on the cell's
matchup -- Monte Carlo over the policy profiles, every profile pair on the cell's streams
``stream(entropy, *key, i)`` (common random numbers across its profiles; the key is the
same for every cell on the spec's default common streams, the cell key on independent
ones), or exactly with ``method =
"exact"`` -- a pure function of the cell, the entropy and the options.  The runner hands the
tasks to the same executors as chunks, caches each record as
``cache/<tag>/<cell key>/bestplay.json`` and turns the records into rows: the cell's
parameters, the equilibrium's rates (``n``: fights behind each payoff-matrix entry; 0 for
exact), ``value`` with ``value_low`` / ``value_high``, each side's equilibrium policy
(``policy_a``, ``policy_b``), the value with the policies as given (``default_value``, same
fights), profiles evaluated, all fights run (``fights``) and the policies the cell rests on.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Mapping
from typing import Any

from ..errors import SpecError
from ..labels import display
from ..rulesets import portable
from . import store
from .grid import Cell, place
from .spec import Spec, resolve_ruleset

__all__ = ["BestPlayCache", "options", "probe", "rows", "solve_task", "tag"]


class BestPlayCache(store.ExactCache):
    """Best-play answers of one run, one small JSON file per cell (``bestplay.json``)."""

    NAME = "bestplay.json"


def options(spec: Spec) -> dict[str, Any]:
    """The best-play options of a spec (what a cell's answer depends on besides the cell)."""
    if spec.method == "exact":
        return {"method": "exact", "draw_worth": spec.draw_worth}
    return {"method": "simulate", "draw_worth": spec.draw_worth, "precision": spec.precision,
            "n": spec.fights, "chunk_size": spec.chunk_size, "confidence": spec.confidence}


def tag(spec: Spec, entropy: int, versions: Mapping[str, str]) -> str:
    """Name of the cache directory for best-play answers of these options, entropy and
    versions."""
    from .paired import SEEDING

    data = {"play": "best", **options(spec), **store.decided_by(versions)}
    if spec.method != "exact":
        data.update({"entropy": str(entropy), "streams": spec.streams,
                     "seeding": str(SEEDING)})
    text = json.dumps(data, sort_keys=True)
    return hashlib.blake2b(text.encode("ascii"), digest_size=8).hexdigest()


def solve_task(ruleset: str, allow_import: bool, rules: Any, side_a: Any, side_b: Any,
               opts: Mapping[str, Any], entropy: int, key: tuple[str, ...]
               ) -> dict[str, Any]:
    """The best play of one cell as a plain record, or ``{"rejected": reason}`` (the
    ruleset and the permission to import it as :func:`balance.rulesets.portable` gives
    them); ``key``: the spawn key of the cell's streams (the runner's ``_stream_key``)."""
    from ..analysis import bestplay

    rs = resolve_ruleset(ruleset, allow_import=allow_import)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        answer = bestplay.solve(rs, rules, side_a, side_b, entropy=entropy, key=tuple(key),
                                **opts)
    except SpecError as exc:
        return {"rejected": exc.reason}
    record = answer.to_row()
    record["policies"] = "; ".join(answer.policies) or "none"
    record["wall_s"] = time.perf_counter() - start
    record["cpu_s"] = time.process_time() - cpu
    return record


def rejected(spec: Spec, cell: Cell, record: Mapping[str, Any]) -> SpecError | None:
    """The error to raise for a task's record, if the cell could not be played."""
    if "rejected" in record:
        return SpecError(f"{record['rejected']} (run.play = \"best\")",
                         where=place(spec, cell.params))
    return None


def probe(spec: Spec, cell: Cell, entropy: int, key: tuple[str, ...]) -> dict[str, Any]:
    """Play ``cell`` here, now (validation before a best-play sweep: the cell's game can be
    set up and solved by the method asked for); its record, or a SpecError naming the cell
    if it cannot be played."""
    record = solve_task(*portable(spec.ruleset), cell.rules, cell.side_a, cell.side_b,
                        options(spec), entropy, key)
    error = rejected(spec, cell, record)
    if error is not None:
        raise error
    return record


def rows(cells: Iterable[Cell], records: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per cell: its parameters, then the record (see the module docstring)."""
    out = []
    for cell in cells:
        record = dict(records[cell.key])
        row: dict[str, Any] = {name: display(value, name) for name, value in cell.params.items()}
        seconds = record.pop("wall_s", None)
        record.pop("cpu_s", None)
        record.pop("cell", None)
        for name, value in record.items():
            row[f"detail_{name}" if name in row else name] = value
        if record.get("n"):  # the equilibrium's rates as counts of the fights behind an entry
            n = int(record["n"])
            a_wins, draws = round(record["a_win"] * n), round(record["draw"] * n)
            row.update({"a_wins": a_wins, "b_wins": n - a_wins - draws, "draws": draws})
        row["solve_ms"] = None if seconds is None else round(1000 * float(seconds), 3)
        row["cell"] = cell.key
        out.append(row)
    return out
