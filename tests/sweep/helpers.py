"""Helpers of the runner tests: the coin test ruleset's import path, small specs over it, a
gate that holds its kernel calls, and the command line as a terminal would start it."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

from balance.rulesets import resolve

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # specs name the test ruleset as tests.sweep.coin:COIN
    sys.path.insert(0, str(ROOT))

COIN = "tests.sweep.coin:COIN"

# The tests allow this import once (as `--allow-import` or allow_import=True would), so specs
# naming it load in this process; subprocesses pass --allow-import themselves.
resolve(COIN, allow_import=True)

BASE: dict[str, Any] = {
    "ruleset": COIN,
    "description": "coin level against bias",
    "a": [{"preset": "fair"}],
    "b": [{"preset": "lucky"}],
    "grid": {"combine": "product", "axes": [
        {"field": "a.0.level", "values": [0, 2, 5]},
        {"field": "b.0.bias", "values": {"start": 0.3, "stop": 0.7, "step": 0.2}},
    ]},
    "run": {"fights": 5_000, "chunk_size": 2_000, "seed": 11},
}


FOREGROUND = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
              "signal.signal(signal.SIGTERM, signal.SIG_DFL); from balance.cli import main; "
              "sys.exit(main(sys.argv[1:]))")
"""``python -c FOREGROUND ARGS...`` is ``balance ARGS...`` with Ctrl-C and SIGTERM as a
terminal's foreground job has them, whatever the test run inherited: a job started in the
background of a non-interactive shell (``make test &``, a CI step, a scheduler's wrapper)
runs with Ctrl-C ignored, and Python, and so ``balance``, keeps it ignored, as it should."""


class Gate:
    """The gate of the coin kernel (``BALANCE_COIN_GATE``, see :mod:`tests.sweep.coin`):
    closed at first, so a sweep does nothing until the test lets calls through, a counted
    number at a time (:meth:`allow`) or all (:meth:`open`).  A test that lets ``n`` calls
    through and waits for ``n`` chunks knows the sweep is held there: nothing races."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True)
        self.folder, self.given = folder, 0

    @property
    def env(self) -> dict[str, str]:
        return {"BALANCE_COIN_GATE": str(self.folder)}

    def allow(self, calls: int) -> None:
        for number in range(self.given, self.given + calls):
            (self.folder / f"pass-{number:06d}").touch()
        self.given += calls

    def open(self) -> None:
        (self.folder / "open").touch()


def make_spec(**changes: Any) -> dict[str, Any]:
    """A copy of the base coin spec with top-level sections replaced or merged.

    ``run={...}`` merges into [run]; ``axes=[...]`` replaces the grid's axes; anything else
    replaces its section.
    """
    spec = copy.deepcopy(BASE)
    for key, value in changes.items():
        if key == "run":
            spec["run"].update(value)
        elif key == "axes":
            spec["grid"]["axes"] = value
        elif key == "combine":
            spec["grid"]["combine"] = value
        else:
            spec[key] = value
    return spec


def to_toml(spec: dict[str, Any]) -> str:
    """A small TOML writer for the spec shapes the tests use."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + "}"
        if isinstance(v, list | tuple):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    def is_table_list(v: Any) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = []
    for key, v in spec.items():  # plain keys first: they must precede every [table]
        if not isinstance(v, dict) and not is_table_list(v):
            lines.append(f"{key} = {value(v)}")
    for key, v in spec.items():
        if is_table_list(v):
            for member in v:
                lines.append(f"[[{key}]]")
                lines += [f"{k} = {value(x)}" for k, x in member.items()]
        elif isinstance(v, dict) and key == "grid":
            lines.append("[grid]")
            lines += [f"{k} = {value(x)}" for k, x in v.items() if k != "axes"]
            axes = v.get("axes", [])
            if isinstance(axes, list) and all(isinstance(ax, dict) for ax in axes):
                for axis in axes:
                    lines.append("[[grid.axes]]")
                    lines += [f"{k} = {value(x)}" for k, x in axis.items()]
            else:
                lines.append(f"axes = {value(axes)}")
        elif isinstance(v, dict):
            lines.append(f"[{key}]")
            lines += [f"{k} = {value(x)}" for k, x in v.items()]
    return "\n".join(lines) + "\n"
