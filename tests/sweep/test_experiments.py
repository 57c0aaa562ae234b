"""Every experiment in experiments/ is valid, and a cut-down crt flagship runs the same way on
every executor as through the engine directly."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import balance
from balance import engine
from balance.experiments import expand, load_spec

from .helpers import ROOT

EXPERIMENTS = sorted((ROOT / "experiments").glob("*.toml"))


def test_there_are_experiments() -> None:
    assert any(p.name.startswith("crt-") for p in EXPERIMENTS)


@pytest.mark.parametrize("path", EXPERIMENTS, ids=[p.stem for p in EXPERIMENTS])
def test_experiment_is_valid(path: Path) -> None:
    spec = load_spec(path)
    assert spec.description and spec.question  # a real question, for the report
    assert spec.seed is not None or spec.method == "exact"  # flagship numbers are reproducible
    cells = expand(spec)
    assert len({c.key for c in cells}) == len(cells)
    assert spec.plots, "a flagship experiment says which figure answers its question"


def test_small_crt_flagship(tmp_path: Path) -> None:
    spec = load_spec(ROOT / "experiments" / "crt-skill-vs-experience.toml").to_dict()
    spec["grid"]["axes"] = [{"field": "a.0.skill", "values": [0, 3]},
                            {"field": "a.0.combats", "values": [10, 24]}]
    spec["run"]["fights"] = 3_000
    spec["run"]["chunk_size"] = 1_000
    spec["outputs"]["plots"] = []
    serial, _ = balance.sweep(spec, out=tmp_path / "serial", executor="serial")
    parallel, _ = balance.sweep(spec, out=tmp_path / "processes", executor="processes",
                                workers=2)
    pd.testing.assert_frame_equal(serial, parallel, check_exact=True)
    rs = balance.get("crt")
    for cell, row in zip(expand(load_spec(spec)), serial.itertuples(index=False), strict=True):
        tally = engine.run(rs, cell.rules, cell.side_a, cell.side_b, entropy=1001, n=3_000,
                           key=("common",), chunk_size=1_000)
        assert (row.a_wins, row.b_wins, row.draws) == tuple(tally.wins[[1, 2, 0]])
