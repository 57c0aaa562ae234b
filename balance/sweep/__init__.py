"""Experiment runner: TOML sweeps over stats, styles and rules, reproducible anywhere.

>>> import balance
>>> table, path = balance.sweep("experiments/crt-skill-vs-experience.toml")  # doctest: +SKIP
>>> balance.load_run(path).table                                            # doctest: +SKIP

* :mod:`~balance.sweep.spec` -- TOML -> frozen, validated :class:`Spec`;
* :mod:`~balance.sweep.grid` -- cells with stable keys;
* :mod:`~balance.sweep.runner` -- executors (serial, processes, dask), caching per cell and
  chunk, resume;
* :mod:`~balance.sweep.store` -- the run directory: Parquet, CSV, meta.json, atomic writes.

Nothing heavy is imported here: pandas, pyarrow, tqdm and dask load only when a sweep runs.
"""

from __future__ import annotations

from .grid import Cell, expand
from .runner import EXECUTORS, Run, load_run, sweep
from .spec import Axis, PlotSpec, Spec, load_spec

__all__ = [
    "EXECUTORS",
    "Axis",
    "Cell",
    "PlotSpec",
    "Run",
    "Spec",
    "expand",
    "load_run",
    "load_spec",
    "sweep",
]
