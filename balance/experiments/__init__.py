"""Experiments: TOML sweeps over stats, styles and rules, reproducible anywhere.

``balance.sweep`` (this package's :func:`sweep`) runs one.

>>> import balance
>>> table, path = balance.sweep("experiments/crt-skill-vs-experience.toml")  # doctest: +SKIP
>>> balance.load_run(path).table                                            # doctest: +SKIP

* :mod:`~balance.experiments.spec` -- TOML -> frozen, validated :class:`Spec`;
* :mod:`~balance.experiments.grid` -- cells with stable keys;
* :mod:`~balance.experiments.runner` -- executors (serial, processes, dask), caching per
  cell and chunk, resume;
* :mod:`~balance.experiments.store` -- the run directory: Parquet, CSV, meta.json; ``load_run``;
* :mod:`~balance.experiments.plotting` -- a run's figures (``[[outputs.plots]]``,
  ``balance plot``).
* :mod:`~balance.experiments.tuning` -- a spec's ``[[tune]]`` tables answered (the
  report's "What would make it fair").

Nothing heavy is imported here: pandas, pyarrow, tqdm and dask load only when a sweep runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import attribute_loader, listing

if TYPE_CHECKING:
    from .grid import Cell, expand
    from .runner import EXECUTORS, sweep
    from .spec import Axis, PlotSpec, Spec, load_spec
    from .store import Run, load_run

if not TYPE_CHECKING:  # a type checker sees the names imported above, and flags others
    __getattr__ = attribute_loader(__name__, {
        "Cell": ".grid", "expand": ".grid", "EXECUTORS": ".runner", "sweep": ".runner",
        "Axis": ".spec", "PlotSpec": ".spec", "Spec": ".spec", "load_spec": ".spec",
        "Run": ".store", "load_run": ".store"})
# each imported on first use, so that a command importing one module of the package
# (the CLI's ``guard``) does not load the runner

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
__dir__ = listing(globals())  # the names above too, before their first use
