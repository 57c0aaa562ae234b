"""Cells of the flagship experiments, computed as ``balance sweep`` computes them.

A document that quotes an experiment's result names the experiment; a check reruns only
the cells it needs: the experiment's own spec with some axes narrowed to the quoted values.
A cell's numbers depend only on its parameters and the spec's seed (its key is a hash of
them, not its place in the grid), so a narrowed grid gives exactly the full run's numbers
for the same cells.
"""

from __future__ import annotations

import copy
import functools
import json
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

import balance

from .figures import ROOT

_OUT = Path(tempfile.mkdtemp(prefix="balance-doc-figures-"))


def spec(name: str) -> dict[str, Any]:
    """The experiment ``experiments/<name>.toml`` as a mapping (plots dropped)."""
    data = tomllib.loads((ROOT / "experiments" / f"{name}.toml").read_text(encoding="utf-8"))
    data.pop("outputs", None)
    return data


def experiment(name: str, axes: Mapping[str, Sequence[Any]] | None = None, *,
               run: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The table ``balance sweep experiments/<name>.toml`` gives for the cells whose swept
    values are in ``axes`` (field -> values; other axes keep every value).  ``run``
    overrides keys of the spec's ``[run]`` table (a check that quotes a smaller n)."""
    return _experiment(name, json.dumps(dict(axes or {}), sort_keys=True),
                       json.dumps(dict(run or {}), sort_keys=True))[0].copy()


def meta(name: str) -> dict[str, Any]:
    """The run record (meta.json) of the whole experiment, as ``balance sweep`` writes it."""
    return _experiment(name, "{}", "{}")[1]


@functools.cache
def _experiment(name: str, axes_json: str, run_json: str) -> tuple[pd.DataFrame, dict]:
    data = copy.deepcopy(spec(name))
    narrowed = json.loads(axes_json)
    if narrowed:  # labels, verdict and tuning name the whole grid's values; numbers do not
        for key in ("labels", "verdict", "tune"):
            data.pop(key, None)
    fields = [axis["field"] for axis in data["grid"]["axes"]]
    unknown = set(narrowed) - set(fields)
    assert not unknown, f"{name} sweeps no {sorted(unknown)}; its axes: {fields}"
    for axis in data["grid"]["axes"]:
        if axis["field"] in narrowed:
            axis["values"] = narrowed[axis["field"]]
    data.setdefault("run", {}).update(json.loads(run_json))
    out = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=_OUT))
    table, path = balance.sweep(data, out=out / "run", executor="serial", progress=False)
    return table, json.loads((path / "meta.json").read_text(encoding="utf-8"))


def cell(table: pd.DataFrame, **where: Any) -> pd.Series:
    """The one row of ``table`` with these values (``a_0_coordination=3`` for the column
    ``a.0.coordination``; a list value is matched as the table displays it)."""
    mask = pd.Series(True, index=table.index)
    for key, value in where.items():
        column = _column(table, key)
        if isinstance(value, list | tuple):
            value = json.dumps(list(value)).replace(" ", "")
            mask &= table[column].astype(str).str.replace(" ", "") == value
        else:
            mask &= table[column] == value
    rows = table[mask]
    assert len(rows) == 1, f"{len(rows)} rows with {where}"
    return rows.iloc[0]


def _column(table: pd.DataFrame, key: str) -> str:
    if key in table.columns:
        return key
    for column in table.columns:
        if column.replace(".", "_") == key:
            return column
    raise KeyError(f"no column {key!r} in {list(table.columns)}")
