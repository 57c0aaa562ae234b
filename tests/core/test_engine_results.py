"""Engine chunking and stopping, tallies, summaries, intervals, the field machinery."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import balance
from balance import engine, stats
from balance.errors import SpecError
from balance.fields import Table, build, split_spec
from balance.outcomes import Outcomes
from balance.results import Summary, Tally, Winner, summary_rows
from balance.rulesets.crt import Combatant, Rules

crt = balance.get("crt")
D = crt.presets["duelist"]


def test_same_seed_same_tally_and_chunks_compose():
    t1 = engine.run(crt, Rules(), (D,), (D,), entropy=5, n=50_000, chunk_size=10_000)
    t2 = engine.run(crt, Rules(), (D,), (D,), entropy=5, n=50_000, chunk_size=10_000)
    assert t1 == t2
    # the total is the sum of its chunks, each reproducible on its own
    parts = [engine.run_chunk(crt, Rules(), (D,), (D,), size=10_000, entropy=5, index=i)
             for i in range(5)]
    total = parts[0]
    for p in reversed(parts[1:]):  # any order
        total = total + p
    assert total == t1
    assert engine.run(crt, Rules(), (D,), (D,), entropy=6, n=50_000, chunk_size=10_000) != t1


def test_memory_is_bounded_by_the_chunk_size(monkeypatch):
    sizes = []
    original = crt.simulate_segments

    def spy(segments, rng):  # every kernel call goes through simulate_segments
        sizes.append(sum(s.n for s in segments))
        return original(segments, rng)

    monkeypatch.setattr(crt, "simulate_segments", spy)
    engine.run(crt, Rules(), (D,), (D,), entropy=1, n=25_001, chunk_size=10_000)
    assert sizes == [10_000, 10_000, 5_001]


def test_precision_target_stops_at_the_first_chunk_that_meets_it():
    tally = engine.run(crt, Rules(), (D,), (D,), entropy=2, precision=0.01, chunk_size=2_000)
    hw = stats.half_width(tally.wins, tally.n)
    assert hw.max() <= 0.01
    smaller = Tally.empty(crt.causes)
    for i in range(tally.n // 2_000 - 1):
        smaller = smaller + engine.run_chunk(crt, Rules(), (D,), (D,), size=2_000, entropy=2,
                                             index=i)
    assert stats.half_width(smaller.wins, smaller.n).max() > 0.01


def test_engine_rejects_bad_counts():
    for kwargs in ({"n": 0}, {"n": -5}, {"n": 2.5}, {"precision": 0.7}, {}):
        with pytest.raises(SpecError):
            engine.run(crt, Rules(), (D,), (D,), entropy=1, **kwargs)


def test_tally_round_trip_and_merge():
    out = Outcomes(np.array([0, 1, 2, 1], np.int8), np.array([3, 1, 4, 1]),
                   np.array([0, 1, 0, 0], np.int8), ("down", "other"),
                   {"x": np.array([1.0, 2.0, 3.0, 4.0])})
    t = Tally.from_outcomes(out)
    assert t.n == 4 and list(t.wins) == [1, 2, 1]
    assert Tally.from_dict(json.loads(json.dumps(t.to_dict()))) == t
    assert (t + t).n == 8
    assert list((t + t).rounds) == [0, 4, 0, 2, 2]


def test_wilson_known_values():
    low, high = stats.wilson(50, 100)
    assert (float(low), float(high)) == pytest.approx((0.40383, 0.59617), abs=1e-5)
    low, high = stats.wilson(0, 20)
    assert float(low) == 0 and float(high) == pytest.approx(0.16113, abs=1e-5)
    low, high = stats.wilson(20, 20)
    assert float(high) == 1


def test_wilson_covers_at_the_nominal_rate():
    # exact coverage of the 95% Wilson interval for p = 0.3, n = 200, from the binomial pmf
    from scipy.stats import binom

    k = np.arange(201)
    low, high = stats.wilson(k, 200)
    cover = binom.pmf(k, 200, 0.3)[(low <= 0.3) & (high >= 0.3)].sum()
    assert 0.93 < cover < 0.97


def test_summary_tables():
    s = balance.duel("crt", "veteran", "novice", n=20_000, seed=4)
    frame = s.to_frame()
    assert list(frame.index) == ["A wins", "B wins", "draw"]
    assert frame["count"].sum() == 20_000
    assert (frame["low"] <= frame["rate"]).all() and (frame["rate"] <= frame["high"]).all()
    row = s.to_row()
    assert row["n"] == 20_000 and row["a_win_low"] <= row["a_win"] <= row["a_win_high"]
    assert "A wins" in str(s) and "<table" in s._repr_html_()
    assert s.meta["entropy"] == 4 and s.meta["chunk_size"] == engine.DEFAULT_CHUNK_SIZE
    assert any("DEFAULT" in a for a in s.assumptions)
    assert isinstance(s, Summary)


def test_duel_accepts_every_form_of_side():
    forms = ["veteran", "veteran,combats=12", {"preset": "veteran", "combats": 12},
             crt.presets["veteran"], [crt.presets["veteran"]]]
    for form in forms:
        assert balance.duel("crt", form, "novice", n=1000, seed=1).n == 1000
    with pytest.raises(SpecError, match="unknown crt preset"):
        balance.duel("crt", "nobody", "novice", n=10)


def test_table_and_build():
    t = Table({"a": 1, "b": 2})
    assert t.replace(a=3) == {"a": 3, "b": 2} and hash(t) == hash(Table({"b": 2, "a": 1}))
    r = build(Rules, {"armour_points": "mail:4", "max_rounds": "50", "extraordinary": "no"})
    assert r.armour_points["mail"] == 4 and r.armour_points["plate"] == 3
    assert r.max_rounds == 50 and r.extraordinary is False
    c = build(Combatant, {"health": "none"})
    assert c.health is None
    with pytest.raises(SpecError, match="health"):
        build(Combatant, {"health": "zero"})
    assert dataclasses.replace(r, max_rounds=10).max_rounds == 10


def test_split_spec():
    assert split_spec("bruggish,combats=10") == ("bruggish", {"combats": "10"})
    assert split_spec("a=1,b=x,y") == (None, {"a": "1", "b": "x,y"})
    with pytest.raises(SpecError):
        split_spec("=1")
    assert Winner.A == 1


def _tallies(seed: int) -> list[Tally]:
    """Tallies of every shape a sweep's rows meet: ragged round histograms, an empty one,
    one of no fights, extras."""
    rng = np.random.default_rng(seed)
    causes = ("down", "mishap", "max_rounds")
    out = []
    for i in range(40):
        counts = rng.integers(0, 400, (3, 3)) * (rng.random((3, 3)) < 0.7)
        rounds = rng.integers(0, 90, rng.integers(1, 60))
        if i == 3:
            counts[:] = 0
            rounds = np.zeros(1, np.int64)
        if i == 5:
            rounds = np.zeros(4, np.int64)  # fights, but no histogram
        extras = {"damage": np.array([rng.random() * 1e3, rng.random() * 1e5])} if i % 7 == 0 \
            else {}
        out.append(Tally(causes, counts, rounds, extras))
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_summary_rows_are_each_summarys_row(seed: int) -> None:
    # summary_rows makes a sweep's rows all at once: the same keys in the same order and
    # the same numbers, bit for bit, as each tally's Summary.to_row
    tallies = _tallies(seed)
    tallies.append(tallies[0])  # a tally given twice is one row twice
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = [Summary("crt", t, 0.9).to_row() for t in tallies]
    rows = summary_rows("crt", tallies, 0.9)
    assert len(rows) == len(expected) and rows[0] is not rows[-1]
    for row, want in zip(rows, expected, strict=True):
        assert list(row) == list(want)
        for key, value in want.items():
            assert type(row[key]) is type(value), key
            assert row[key] == value or (value != value and row[key] != row[key]), key
    mixed = [tallies[0], dataclasses.replace(tallies[1], causes=("a", "b", "c"))]
    assert summary_rows("crt", mixed)[1]["end_a"] == Summary("crt", mixed[1]).to_row()["end_a"]
