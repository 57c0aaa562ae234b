"""Common random numbers in sweeps: every cell's fight j on the same numbers, differences
read from the paired fights, independent streams on request, old caches recomputed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import balance
from balance import engine
from balance.analysis.scores import with_scores
from balance.analysis.verdict import _difference_se
from balance.experiments import expand, load_spec, paired, store
from balance.experiments.paired import Pairing, pack, paired_se, unpack
from balance.experiments.store import load_run
from balance.report.build import run_verdict
from balance.report.render import render

from .helpers import make_spec

TWINS = {
    "ruleset": "strike-rank",
    "description": "each preset as it plays, and always thrusting (best picks thrust here)",
    "a": [{"preset": "legionnaire"}],
    "b": [{"preset": "horseman"}],
    "grid": {"combine": "product", "axes": [
        {"field": "a", "values": ["legionnaire", "legionnaire,attack_policy=thrust",
                                  "horseman", "horseman,attack_policy=thrust"]}]},
    "run": {"fights": 4_000, "chunk_size": 1_500, "seed": 9000},
}
"""Two presets against the horseman, each as it plays (``attack_policy = "best"``) and
always thrusting: in both matchups best play picks thrust throughout, so on common streams
each pair plays the same fights the same way."""


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    out = tmp_path_factory.mktemp("twins") / "run"
    table, path = balance.sweep(TWINS, out=out, executor="serial")
    return table, path


def test_identical_variants_play_identical_fights(twins) -> None:
    table, path = twins
    by = table.set_index("a")
    for preset in ("legionnaire", "horseman"):
        own, fixed = by.loc[preset], by.loc[f"{preset},attack_policy=thrust"]
        assert own["cell"] != fixed["cell"]
        assert (own["a_wins"], own["b_wins"], own["draws"]) == \
            (fixed["a_wins"], fixed["b_wins"], fixed["draws"])
        pairing = Pairing.of_run(path, load_run(path).meta)
        assert pairing is not None
        assert _difference_se(own, fixed, "a_win", False, pairing.se) == 0.0  # exactly
        assert _difference_se(own, fixed, "score", False, pairing.se) == 0.0
        assert _difference_se(own, fixed, "a_win", False) > 0.004  # quadrature: not zero


def test_the_verdict_calls_identical_variants_level(twins) -> None:
    table, path = twins
    made = run_verdict(table, load_run(path).meta)
    text = made.sentences[0].text
    assert "level with the best of them in 2" in text, text
    assert "never worse" in text and "behind" not in text, text


def test_run_records_its_streams_and_winners(twins) -> None:
    table, path = twins
    meta = json.loads((path / "meta.json").read_text())
    assert (meta["streams"], meta["seeding"]) == ("common", paired.SEEDING)
    assert meta["winners"]["checksum"] == store.file_checksum(path / paired.FILE)
    assert meta["winners"]["cells_without"] == 0 and paired.FILE in meta["outputs"]
    with np.load(path / paired.FILE) as held:
        for row in table.itertuples(index=False):
            winners = held[row.cell]
            assert len(winners) == row.n
            assert np.bincount(winners, minlength=3).tolist() == [row.draws, row.a_wins,
                                                                   row.b_wins]
    render(path, out=path / "report")
    assert "| random numbers | common: every cell's fight j on the same numbers" in \
        (path / "report" / "report.md").read_text()


def test_paired_interval_is_narrower_than_quadrature(tmp_path: Path) -> None:
    """A real difference (skill 2 against skill 3, a novice against a veteran, seed 5,
    20,000 fights): on common streams the two cells' outcomes move together, so the
    difference's paired error is below its quadrature error by more than 5% (0.00320 against
    0.00350 at this seed, a ratio of 0.915; deterministic at a fixed seed, so no p-value)."""
    spec = {"ruleset": "crt", "a": [{"preset": "novice"}], "b": [{"preset": "veteran"}],
            "grid": {"axes": [{"field": "a.0.skill", "values": [2, 3]}]},
            "run": {"fights": 20_000, "seed": 5}}
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    pairing = Pairing.of_run(path, load_run(path).meta)
    assert pairing is not None
    rs = balance.get("crt")
    for cell, row in zip(expand(load_spec(spec)), table.itertuples(index=False), strict=True):
        # crt's cells run batched; each keeps the winners it has alone on the common key
        _, alone = engine.run_chunk_winners(rs, cell.rules, cell.side_a, cell.side_b,
                                            size=20_000, entropy=5, key=("common",))
        assert pairing.winners(row.cell).tolist() == alone.tolist()
    scored = with_scores(table)
    low, high = scored.iloc[0], scored.iloc[1]
    for col in ("a_win", "score"):
        paired_err = _difference_se(low, high, col, False, pairing.se)
        quadrature = _difference_se(low, high, col, False)
        assert 0 < paired_err < 0.95 * quadrature, (col, paired_err, quadrature)


def test_independent_streams_keep_no_winners_and_compare_in_quadrature(tmp_path: Path
                                                                       ) -> None:
    table, path = balance.sweep({**TWINS, "streams": "independent"}, out=tmp_path / "run",
                                executor="serial")
    meta = load_run(path).meta
    assert meta["streams"] == "independent" and "winners" not in meta
    assert not (path / paired.FILE).exists()
    assert Pairing.of_run(path, meta) is None
    by = table.set_index("a")
    own, fixed = by.loc["legionnaire"], by.loc["legionnaire,attack_policy=thrust"]
    assert own["a_wins"] != fixed["a_wins"]  # each on its own numbers
    render(path, out=path / "report")
    assert "| random numbers | independent: each cell on its own streams" in \
        (path / "report" / "report.md").read_text()


def test_resume_across_the_scheme_recomputes(tmp_path: Path) -> None:
    """An old run (cell-keyed streams, a cache tag without the scheme, a record without
    ``streams``) resumed under common streams reuses none of its chunks, and ends as a fresh
    run would; and a run resumed with the other ``streams`` recomputes too."""
    spec = make_spec()
    fresh, _ = balance.sweep(spec, out=tmp_path / "fresh", executor="serial")
    old = tmp_path / "old"
    balance.sweep({**spec, "streams": "independent"}, out=old, executor="serial")
    meta = json.loads((old / "meta.json").read_text())
    new_tag = Path(meta["cache"]).name
    old_tag = store.cache_tag(meta["entropy"], meta["versions"])  # before the scheme
    assert old_tag != new_tag
    shutil.move(old / "cache" / new_tag, old / "cache" / old_tag)
    new_cache, old_cache = (store.ChunkCache(old, t) for t in (new_tag, old_tag))
    for folder in (old / "cache" / old_tag).iterdir():  # re-sealed under the old tag
        for (index, size), tally in new_cache.load(folder.name).items():
            old_cache.save(folder.name, index, size, tally)
    assert not old_cache.rejected
    for key in ("streams", "seeding"):
        meta.pop(key)
    meta["cache"] = f"cache/{old_tag}"
    (old / "meta.json").write_text(json.dumps(meta))
    resumed, _ = balance.sweep(spec, out=old, executor="serial", resume=True)
    after = json.loads((old / "meta.json").read_text())
    assert after["timings"]["chunks_cached"] == 0
    assert after["timings"]["chunks_computed"] == fresh["n"].size * 3  # 5,000 in 2,000s
    assert (after["streams"], after["seeding"]) == ("common", paired.SEEDING)
    for column in ("cell", "a_wins", "b_wins", "draws"):
        assert resumed[column].tolist() == fresh[column].tolist()
    # and back: the same folder resumed on independent streams recomputes every chunk
    balance.sweep({**spec, "streams": "independent"}, out=old, executor="serial",
                  resume=True)
    again = json.loads((old / "meta.json").read_text())
    assert again["timings"]["chunks_cached"] == 0 and again["streams"] == "independent"


def test_pack_round_trip_and_prefix_pairing() -> None:
    rng = np.random.default_rng(4)
    for n in (0, 1, 3, 4, 5, 1001):
        codes = rng.integers(0, 3, n).astype(np.uint8)
        assert unpack(pack(codes), n).tolist() == codes.tolist()
    with pytest.raises(ValueError):
        unpack(b"\xff", 4)  # code 3
    x = rng.integers(0, 3, 1000).astype(np.uint8)
    longer = np.concatenate([x, rng.integers(0, 3, 500).astype(np.uint8)])
    assert paired_se(x, longer, "a_win") == 0.0  # paired over the common prefix
    y = rng.integers(0, 3, 1000).astype(np.uint8)
    d = paired.SCORES["score"][x] - paired.SCORES["score"][y]
    assert paired_se(x, y, "score") == pytest.approx(np.std(d) / np.sqrt(1000), rel=1e-12)


def test_a_shape_reads_its_steps_from_the_paired_fights() -> None:
    """A step of 1 point between cells each known to +/- 1 point: in quadrature it is noise
    (a flat curve), with the paired error of cells that share their fights (+/- 0.1) it
    moves."""
    from balance.analysis.shapes import shape

    xs, ys, halves = [0, 1, 2], [0.50, 0.50, 0.51], [0.01, 0.01, 0.01]
    assert shape(xs, ys, halves).kind == "flat"
    paired_steps = shape(xs, ys, halves, step_halves=[0.0, 0.001], whole_half=0.001)
    assert paired_steps.kind != "flat" and paired_steps.still == (True, False)


def test_the_sensitivity_pass_pairs_its_fights() -> None:
    """The sensitivity pass plays every matchup on the same streams: two matchups that play
    alike (the legionnaire as it plays, and always thrusting) differ by 0 with error 0; a
    real difference's error is its paired one, not the quadrature of the two rates'."""
    from balance.analysis import verdict as v

    rs = balance.get("strike-rank")
    rules = rs.rules({})

    def matchup(a: str, b: str = "horseman") -> v.Matchup:
        return v.Matchup(rules, (rs.combatant(a),), (rs.combatant(b),))

    own, thrust = (v.evaluate(rs, matchup(a), fights=3_000) for a in
                   ("legionnaire", "legionnaire,attack_policy=thrust"))
    assert own.a_win == thrust.a_win and own.winners is not None
    assert v._difference(1)([own, thrust]) == (0.0, 0.0)
    swing = v.evaluate(rs, matchup("legionnaire,attack_policy=swing"), fights=3_000)
    diff, se = v._difference(1, v.SCORE)([own, swing])
    assert se == paired_se(own.winners, swing.winners, "score") > 0
    assert diff == pytest.approx(own.score - swing.score)


def test_an_old_run_compares_in_quadrature(twins, tmp_path: Path) -> None:
    """A run recorded before ``streams`` existed (no ``streams``, ``seeding`` or
    ``winners`` in its record) stays readable: no pairing, its verdict in quadrature."""
    _, path = twins
    old = tmp_path / "old"
    shutil.copytree(path, old)
    meta = json.loads((old / "meta.json").read_text())
    for key in ("streams", "seeding", "winners"):
        meta.pop(key)
    (old / "meta.json").write_text(json.dumps(meta))
    loaded = load_run(old)
    assert Pairing.of_run(old, loaded.meta) is None
    text = run_verdict(loaded.table, loaded.meta).sentences[0].text
    assert "level with the best of them in 2" in text, text
    render(old, out=old / "report")
    assert "| random numbers | independent: each cell on its own streams" in \
        (old / "report" / "report.md").read_text()


def test_precision_cells_keep_the_fights_they_count(tmp_path: Path) -> None:
    """A precision-targeted cell stops at a prefix of its chunks: winners.npz holds exactly
    the fights its row counts (chunks computed ahead are cached, not counted), and two
    cells that stopped apart are paired over the fights they share."""
    spec = make_spec(run={"precision": 0.02, "chunk_size": 300},
                     axes=[{"field": "b.0.bias", "values": [0.1, 0.5, 0.9]}])
    table, path = balance.sweep(spec, out=tmp_path / "run", executor="serial")
    assert table["n"].nunique() > 1
    pairing = Pairing.of_run(path, load_run(path).meta)
    assert pairing is not None
    for row in table.itertuples(index=False):
        winners = pairing.winners(row.cell)
        assert winners is not None and len(winners) == row.n
        assert np.bincount(winners, minlength=3).tolist() == [row.draws, row.a_wins,
                                                               row.b_wins]
    short, long_ = table.sort_values("n").iloc[[0, -1]].to_dict("records")
    x, y = pairing.winners(short["cell"]), pairing.winners(long_["cell"])
    assert pairing.se(short, long_, "a_win") == paired_se(x, y[:len(x)], "a_win")
