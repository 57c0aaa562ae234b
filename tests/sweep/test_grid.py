"""Cells have stable keys, and a cell's numbers are those of the engine under its key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

import balance
from balance import engine
from balance.experiments import expand, load_spec
from balance.experiments.grid import canonical, cell_key
from balance.experiments.spec import resolve_ruleset

from .helpers import COIN, make_spec

RS = resolve_ruleset(COIN)


def keys_by_params(spec: dict) -> dict[tuple, str]:
    return {tuple(c.params.items()): c.key for c in expand(load_spec(spec))}


def test_key_is_hash_of_sorted_canonical_json() -> None:
    cell = expand(load_spec(make_spec()))[0]
    text = canonical(RS.name, cell.rules, cell.side_a, cell.side_b)
    data = json.loads(text)
    assert list(data) == sorted(data) == ["a", "b", "rules", "ruleset"]
    assert list(data["a"][0]) == sorted(data["a"][0])
    assert cell.key == hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def test_every_cell_key_of_a_grid_is_its_matchups_own() -> None:
    """expand builds each distinct side once and joins the canonical text from its parts:
    every key must still be cell_key of the cell's own rules and sides (sides of two
    members, a swept preset, a name with non-ASCII letters, a swept rules table)."""
    spec = make_spec(a=[{"preset": "fair", "name": "Zoë"}, "lucky"], axes=[
        {"field": "a.0.preset", "values": ["fair", "pro"]},
        {"field": "b.0.call", "values": ["heads", "tails"]},
        {"field": "rules.handicap", "values": [[0.0, 0.0], [0.1, -0.1]]}])
    cells = expand(load_spec(spec))
    assert len({c.key for c in cells}) == len(cells) == 8
    for cell in cells:
        assert cell.key == cell_key(RS.name, cell.rules, cell.side_a, cell.side_b)


def test_golden_key() -> None:
    # Pinned: a change here changes every cell's random streams (and orphans every cache).
    rules, a, b = RS.rules(), RS.side("fair"), RS.side("lucky")
    assert canonical("coin", rules, a, b) == (
        '{"a":[{"bias":0.5,"call":"heads","level":0,"name":"fair"}],'
        '"b":[{"bias":0.6,"call":"heads","level":0,"name":"lucky"}],'
        '"rules":{"handicap":[0.0,0.0],"max_rounds":20,"target":1},"ruleset":"coin"}')
    assert cell_key("coin", rules, a, b) == "a20a16bb2d0b72db3bca984d766d20b7"


def test_keys_do_not_depend_on_position() -> None:
    small = keys_by_params(make_spec(axes=[{"field": "a.0.level", "values": [0, 2]},
                                           {"field": "b.0.bias", "values": [0.3, 0.5]}]))
    grown = keys_by_params(make_spec(axes=[{"field": "b.0.bias", "values": [0.7, 0.5, 0.3]},
                                           {"field": "a.0.level", "values": [5, 2, 0]}]))
    for params, key in small.items():
        assert grown[tuple(reversed(params))] == key
    assert len(set(grown.values())) == 9


def test_same_matchup_same_key_whatever_the_path() -> None:
    # "pro" is level 5 named "pro": the same combatant reached by preset or by fields.
    by_preset = expand(load_spec(make_spec(a=["pro"], axes=[])))[0]
    by_fields = expand(load_spec(make_spec(a=[{"name": "pro", "level": 5}], axes=[])))[0]
    assert by_preset.key == by_fields.key
    other = expand(load_spec(make_spec(a=[{"name": "pro", "level": 4}], axes=[])))[0]
    assert other.key != by_preset.key


def test_numbers_survive_growth_and_reordering(tmp_path: Path) -> None:
    small = make_spec(axes=[{"field": "a.0.level", "values": [0, 2]},
                            {"field": "b.0.bias", "values": [0.3, 0.5]}])
    grown = make_spec(axes=[{"field": "b.0.bias", "values": [0.7, 0.5, 0.3]},
                            {"field": "a.0.level", "values": [5, 2, 0]}])
    t1, _ = balance.sweep(small, out=tmp_path / "small", executor="serial")
    t2, _ = balance.sweep(grown, out=tmp_path / "grown", executor="serial")
    merged = t1.merge(t2, on=["a.0.level", "b.0.bias"], suffixes=("", "_grown"))
    assert len(merged) == 4
    for column in ("cell", "n", "a_wins", "b_wins", "draws", "a_win", "mean_rounds",
                   "mean_margin"):
        assert (merged[column] == merged[f"{column}_grown"]).all(), column


@pytest.mark.parametrize("streams", ["common", "independent"])
@pytest.mark.parametrize("fights", [5_000, 2_000, 1_999])
def test_cell_is_the_engine_run_under_its_key(tmp_path: Path, fights: int, streams: str
                                              ) -> None:
    """On common streams (the default) every cell is the engine's run under the one key
    ``("common",)``; ``streams = "independent"`` reproduces the old keys, the cell's own."""
    spec = load_spec({**make_spec(run={"fights": fights, "chunk_size": 2_000}),
                      "streams": streams})
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    for cell, row in zip(expand(spec), table.itertuples(index=False), strict=True):
        key = ("common",) if streams == "common" else (cell.key,)
        tally = engine.run(RS, cell.rules, cell.side_a, cell.side_b, entropy=11, n=fights,
                           key=key, chunk_size=2_000)
        expected = balance.Summary("coin", tally).to_row()
        got = row._asdict()
        assert got["cell"] == cell.key
        assert {k: got[k] for k in expected} == expected


def test_precision_cell_is_the_engine_run_to_that_precision(tmp_path: Path) -> None:
    spec = load_spec(make_spec(run={"precision": 0.02, "chunk_size": 300}, axes=[
        {"field": "b.0.bias", "values": [0.1, 0.5, 0.9]}]))
    table, _ = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    for cell, n in zip(expand(spec), table["n"], strict=True):
        tally = engine.run(RS, cell.rules, cell.side_a, cell.side_b, entropy=11,
                           precision=0.02, key=("common",), chunk_size=300)
        assert tally.n == n
        assert n % 300 == 0
    # different cells need different numbers of fights to reach the same precision
    assert table["n"].nunique() > 1


def test_duplicate_cells_run_once(tmp_path: Path) -> None:
    spec = make_spec(axes=[{"field": "a.0.preset", "values": ["pro", "fair"]},
                           {"field": "a.0.level", "values": [5]}, ])
    # preset pro (level 5) and preset fair with level 5 differ only by name: distinct cells
    table, path = balance.sweep(spec, out=tmp_path / "a", executor="serial")
    assert table["cell"].nunique() == 2
    spec = make_spec(a=[{"name": "pro"}], axes=[{"field": "a.0.preset", "values": ["pro", "fair"]},
                                                {"field": "a.0.level", "values": [5]}])
    table, path = balance.sweep(spec, out=tmp_path / "b", executor="serial")
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["cells"], meta["distinct_cells"]) == (2, 1)
    assert table["cell"].nunique() == 1
    pd.testing.assert_series_equal(table.iloc[0].drop("a.0.preset"),
                                   table.iloc[1].drop("a.0.preset"), check_names=False)
