"""Whole questions in shared kernel calls (issue 23): a pair's or a cell's counts do not
depend on what it was batched with, on the batch size or on the executor."""

from __future__ import annotations

import concurrent.futures as cf
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import balance
from balance.analysis import matchups
from balance.api import matchup
from balance.batching import Segment
from balance.engine import batches, run, run_chunk, run_segments
from balance.experiments.store import ChunkCache
from balance.random import root_entropy

STYLES = ["archer", "assassin", "berserker", "bladesman", "brawler", "feral", "footpad",
          "gladiator", "horseman", "hunter", "knight", "legionnaire", "martial_artist",
          "shieldman", "skirmisher", "spearman", "poleaxeman", "specialist", "swashbuckler"]
"""strike-rank's nineteen style presets (as benchmarks/strike_rank_rows_bench.py)."""

COUNTS = ["a", "b", "n", "a_wins", "b_wins", "draws"]
N, CHUNK = 200, 80  # three chunks a pair: 80 + 80 + 40
SEED = 5


def _robin(ruleset: str, names: list[str], executor: str) -> pd.DataFrame:
    """The Monte Carlo round robin of ``names`` at ``N`` fights a pair on ``executor``."""
    rs = balance.get(ruleset)
    resolved = [(a, b, *matchup(rs, a, b, None)) for a in names for b in names]
    common: dict[str, Any] = {"n": N, "precision": None, "seed": SEED, "chunk_size": CHUNK,
                              "progress": None}
    if executor == "threads":
        with cf.ThreadPoolExecutor(max_workers=2) as pool:
            return matchups._simulated_round_robin(names, resolved, pool=pool, **common)
    workers = 2 if executor == "processes" else 1
    return matchups._simulated_round_robin(names, resolved, workers=workers, **common)


def _alone(ruleset: str, a: str, b: str) -> tuple[int, int, int]:
    """The pair's counts run by itself, chunk after chunk (``engine.run``, as before
    batching existed)."""
    rs = balance.get(ruleset)
    _, rules, side_a, side_b = matchup(rs, a, b, None)
    tally = run(rs, rules, side_a, side_b, entropy=root_entropy(SEED), n=N,
                key=("common",), chunk_size=CHUNK)
    draws, a_wins, b_wins = (int(v) for v in tally.wins)
    return a_wins, b_wins, draws


CASES = [("strike-rank", STYLES, [("knight", "gladiator"), ("archer", "archer"),
                                  ("swashbuckler", "brawler")]),
         ("crt", list(balance.get("crt").presets),
          [("novice", "veteran"), ("duelist", "duelist"), ("bruggish", "watchman")])]


@pytest.mark.slow
@pytest.mark.parametrize("executor", ["serial", "threads", "processes"])
@pytest.mark.parametrize(("ruleset", "names", "pairs"), CASES, ids=[c[0] for c in CASES])
def test_a_pair_counts_the_same_alone_and_in_a_round_robin(
        ruleset: str, names: list[str], pairs: list[tuple[str, str]], executor: str) -> None:
    table = _robin(ruleset, names, executor).set_index(["a", "b"])
    assert len(table) == len(names) ** 2 and (table["n"] == N).all()
    for a, b in pairs:
        row = table.loc[(a, b)]
        assert (row.a_wins, row.b_wins, row.draws) == _alone(ruleset, a, b), (a, b)


@pytest.mark.slow
def test_every_executor_gives_the_same_crt_table() -> None:
    names = list(balance.get("crt").presets)
    tables = [_robin("crt", names, executor)[COUNTS] for executor in
              ("serial", "threads", "processes")]
    for other in tables[1:]:
        pd.testing.assert_frame_equal(tables[0], other)


def test_the_matchups_commands_round_robin_counts_each_pair_as_alone() -> None:
    """Through the public round robin (the rules and each entrant's side built once for
    all pairs): every pair's counts are those of the pair run by itself."""
    names = ["knight", "gladiator", "skirmisher", "archer"]
    table = matchups.round_robin("strike-rank", names, n=N, seed=SEED, chunk_size=CHUNK,
                                 method="simulate", workers=1).set_index(["a", "b"])
    assert len(table) == 16
    for a in names:
        for b in names:
            row = table.loc[(a, b)]
            assert (row.a_wins, row.b_wins, row.draws) == _alone("strike-rank", a, b), (a, b)


@pytest.mark.parametrize(("entrants", "rules", "message"), [
    (["knight", "nobody", "ghost"], None, "nobody"),  # the first entrant that fails
    (["knight", "nobody"], 3, "rules must be a strike-rank Rules object"),  # rules first
    (["knight", "gladiator"], {"no_such_rule": 1}, "no_such_rule"),
])
def test_a_round_robin_refuses_what_a_pair_would(entrants: list[str], rules: Any,
                                                 message: str) -> None:
    with pytest.raises(balance.SpecError, match=message):
        matchups.round_robin("strike-rank", entrants, rules=rules, n=10, seed=1,
                             method="simulate", workers=1)
    with pytest.raises(balance.SpecError, match=message):  # as the pair alone says it
        matchup("strike-rank", entrants[0], entrants[1], rules)


def test_crt_and_strike_rank_batch_and_the_other_kernels_do_not() -> None:
    assert batches(balance.get("crt"))
    assert batches(balance.get("strike-rank"))
    assert not batches(balance.get("pool"))  # the default: each segment alone


# --- a crt sweep: a cell alone, in the sweep, on any executor, resumed ---------------------

SWEEP: dict[str, Any] = {
    "ruleset": "crt", "description": "challenger's combats and skill against a veteran",
    "a": [{"name": "challenger"}], "b": [{"preset": "veteran"}],
    "grid": {"combine": "product", "axes": [
        {"field": "a.0.skill", "values": [0, 2, 4]},
        {"field": "a.0.combats", "values": [0, 10, 20, 30]}]},
    "run": {"fights": 1_500, "chunk_size": 1_000, "seed": 23},
}


def _sweep(tmp_path: Path, name: str, spec: dict[str, Any] = SWEEP, **kwargs: Any
           ) -> pd.DataFrame:
    return balance.sweep(spec, out=tmp_path / name, progress=False, max_seconds=None,
                         **kwargs).table


def _one_cell(skill: int, combats: int) -> dict[str, Any]:
    """The sweep reduced to one of its cells."""
    return {**SWEEP, "grid": {"combine": "product", "axes": [
        {"field": "a.0.skill", "values": [skill]},
        {"field": "a.0.combats", "values": [combats]}]}}


@pytest.mark.slow
def test_a_crt_cell_counts_the_same_alone_and_in_the_sweep(tmp_path: Path) -> None:
    whole = _sweep(tmp_path, "whole", executor="serial")
    assert len(whole) == 12
    for skill, combats in ((0, 0), (2, 20), (4, 30)):
        alone = _sweep(tmp_path, f"alone-{skill}-{combats}", _one_cell(skill, combats),
                       executor="serial")
        row = whole[(whole["a.0.skill"] == skill) & (whole["a.0.combats"] == combats)]
        assert row[COUNTS[2:]].to_numpy().tolist() == alone[COUNTS[2:]].to_numpy().tolist()
        # and the cell's chunks run one by one, as before batching existed, on the sweep's
        # common streams (every cell's chunk i on the same key)
        rs = balance.get("crt")
        side_a = (rs.Combatant(name="challenger", skill=skill, combats=combats),)
        side_b = (rs.presets["veteran"],)
        tally = run(rs, rs.Rules(), side_a, side_b, entropy=root_entropy(23), n=1_500,
                    key=("common",), chunk_size=1_000)
        assert int(tally.wins[1]) == int(alone["a_wins"].iloc[0])
        assert int(tally.wins[2]) == int(alone["b_wins"].iloc[0])


@pytest.mark.slow
def test_a_crt_sweep_is_the_same_on_processes_and_resumed(tmp_path: Path) -> None:
    serial = _sweep(tmp_path, "serial", executor="serial")
    processes = _sweep(tmp_path, "processes", executor="processes", workers=2)
    pd.testing.assert_frame_equal(serial, processes, check_exact=True)
    # a run that lost half its chunks resumes to the same table, computing only those:
    # the small chunks of many cells went as batches, each batch one file in the cache
    run_dir = tmp_path / "serial"
    tag = json.loads((run_dir / "meta.json").read_text())["cache"]
    cache = ChunkCache(run_dir, Path(tag).name)
    assert cache.count() == 12 * 2  # 1000 + 500 a cell, each its own chunk in the cache
    batch_files = sorted(cache.root.glob(ChunkCache.BATCHES))
    assert len(batch_files) >= 2
    lost = sum(len(json.loads(p.read_text())["chunks"]) for p in batch_files[::2])
    for path in batch_files[::2]:
        path.unlink()
    (run_dir / "results.parquet").unlink(missing_ok=True)
    resumed = _sweep(tmp_path, "serial", executor="serial", resume=True)
    pd.testing.assert_frame_equal(serial, resumed, check_exact=True)
    timings = json.loads((run_dir / "meta.json").read_text())["timings"]
    assert (timings["chunks_computed"], timings["chunks_cached"]) == (lost, 24 - lost)


# --- batches of mixed keys -----------------------------------------------------------------


def _mixed_segments() -> list[tuple[Any, Segment]]:
    crt, sr = balance.get("crt"), balance.get("strike-rank")
    P = crt.presets
    house = {"wounded": {"modifiers": ["-3 to score when self.wounds >= 3"]}}
    crt_cases = [
        (crt.Rules(extraordinary=False), (P["novice"],), (P["veteran"],)),
        (crt.Rules(extraordinary=False, damage_die=8, max_rounds=9), (P["duelist"],),
         (P["expert"],)),
        (crt.Rules(), (P["duelist"],), (replace(P["duelist"], divert="random",
                                                divert_p=0.4),)),
        (crt.Rules(), (P["novice"],), (replace(P["veteran"], divert="by_band"),)),
        (crt.Rules(ambush="a"), (P["expert"], P["skilled"]), (P["veteran"],)),
        (crt.Rules(house_rules=house), (P["duelist"],), (P["veteran"],)),
    ]
    segments: list[tuple[Any, Segment]] = []
    for number, (rules, a, b) in enumerate(crt_cases):
        for index, size in enumerate((700, 333)):
            segments.append((crt, Segment(rules, a, b, size, ("mixed", number), index)))
    _, rules, a, b = matchup(sr, "knight", "archer", None)
    segments += [(sr, Segment(rules, tuple(a), tuple(b), 150, ("sr",), i)) for i in (0, 1)]
    return segments


@pytest.mark.parametrize("batch_fights", [1, 1_000, 1 << 20])
def test_batches_of_mixed_keys_give_each_segment_its_own_counts(batch_fights: int) -> None:
    mixed = _mixed_segments()
    order = np.random.default_rng(batch_fights).permutation(len(mixed))
    for rs in {id(r): r for r, _ in mixed}.values():
        segments = [mixed[i][1] for i in order if mixed[i][0] is rs]
        together = run_segments(rs, segments, entropy=31, batch_fights=batch_fights)
        for segment, tally in zip(segments, together, strict=True):
            alone = run_chunk(rs, segment.rules, segment.side_a, segment.side_b,
                              size=segment.n, entropy=31, key=segment.key,
                              index=segment.index)
            assert np.array_equal(alone.counts, tally.counts), (segment.key, segment.index)
            assert tally.n == segment.n


def test_a_round_robin_plays_every_pair_on_common_streams_unless_told_not_to() -> None:
    """Two entrants alike in every field meet the same opponent on the same dice, so their
    rows are identical on common streams (the default); on independent streams each pair
    draws its own and they differ (seed fixed: this seed's two rows are 56.05% and 55.60%)."""
    from balance.analysis import round_robin

    wins = ["a_wins", "b_wins", "draws"]
    entrants = {"k1": "knight", "k2": "knight", "g": "gladiator"}
    common = round_robin("strike-rank", entrants, n=2_000, seed=SEED).set_index(["a", "b"])
    assert common.attrs["streams"] == "common"
    assert tuple(common.loc[("k1", "g"), wins]) == tuple(common.loc[("k2", "g"), wins])
    own = round_robin("strike-rank", entrants, n=2_000, seed=SEED,
                      streams="independent").set_index(["a", "b"])
    assert own.attrs["streams"] == "independent"
    assert tuple(own.loc[("k1", "g"), wins]) != tuple(own.loc[("k2", "g"), wins])
    with pytest.raises(balance.SpecError, match="streams must be one of common, independent"):
        round_robin("strike-rank", entrants, n=10, streams="paired")


def test_a_round_robin_pair_counts_as_a_one_cell_sweep_of_its_matchup(tmp_path: Path) -> None:
    """docs/experiments.md: on common streams a pair's counts equal a one-cell sweep's of
    the same matchup and seed (more than one chunk, so the chunks must line up too)."""
    from balance.analysis import round_robin

    spec = {"ruleset": "strike-rank", "a": [{"preset": "knight"}], "b": [{"preset": "gladiator"}],
            "run": {"fights": 40_000, "seed": SEED}}
    cell = balance.sweep(spec, out=tmp_path / "run", executor="serial").table.iloc[0]
    pair = round_robin("strike-rank", ["knight", "gladiator"], n=40_000,
                       seed=SEED).set_index(["a", "b"]).loc[("knight", "gladiator")]
    assert (cell.a_wins, cell.b_wins, cell.draws) == (pair.a_wins, pair.b_wins, pair.draws)
