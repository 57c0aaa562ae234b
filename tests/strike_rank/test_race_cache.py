"""The race model's figures pinned while it was made faster (issue 23, part 3).

The score tables below were printed by the code before the speed-up (commit 7c2001e)::

    python -m tests.strike_rank.race_fixture scores

and ``race_choices.json`` (the best-type table of every matchup of the 19 style presets,
both seats, default rules) was written by ``python -m tests.strike_rank.race_fixture
choices`` on the same commit.  The model must keep every score within 1e-9 and every
choice.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from balance.rulesets.strike_rank.presets import STYLE_PRESETS
from balance.rulesets.strike_rank.rules import Rules

from .race_fixture import CASES, CHOICES, case_scores

PINNED: dict[str, tuple[tuple[float, ...], ...]] = {
    "knight-gladiator": (
        (0.9997753284697208, 0.9999999981370851, 0.9999997361437212),
        (0.9952252031316208, 1.0000006710911933, 1.0000005448782747),
        (0.997216514878004, 0.9999994919000537, 1.0000001621067813),
    ),
    "gladiator-knight": (
        (0.00022477427615285702, 0.004772892320130742, 0.00278458089429933),
        (4.954151142829294e-08, 5.540878879325882e-08, 4.826402891964409e-08),
        (3.864312151978035e-08, 5.243881987249312e-08, 4.908927327258636e-08),
    ),
    "archer-skirmisher-range": (
        (0.668618780461494, 0.7312161196454867, 0.7707899077683065),
        (0.6667212266196358, 0.74361260083724, 0.810751969797677),
        (0.6593553700817146, 0.7222418782193161, 0.784131746678725),
    ),
    "specialist-berserker": (
        (0.015117483135965734, 0.017254619147010316, 0.018426393679081474),
        (0.02030824789730654, 0.024702271125134345, 0.030560134131726566),
    ),
    "tough-wolf-big": (
        (0.9999999766514764, 0.999999989278265, 0.9999999732237536),
        (0.999999537928262, 0.9999999742245725, 0.9999999675094382),
        (0.9999963661536734, 0.9999999815253159, 0.999999986978477),
    ),
    "assassin-footpad": (
        (0.7177914586958692, 0.8445403020393165, 0.9068891232123057),
        (0.5939020850954243, 0.7402137061844463, 0.840398561704405),
        (0.5363260193649937, 0.6956725735282174, 0.780273968619788),
    ),
    "hunter-poleaxeman": (
        (0.23930025645854253, 0.44474657819731767, 0.6121308505288678),
        (0.03969816050762347, 0.1098825830927835, 0.19191750460914353),
        (0.04373020104193578, 0.12026589815344325, 0.24690584583595782),
    ),
    "slot-tiebreak-01": (
        (0.881000444514918, 0.9427385310661077, 0.9664941304815529),
        (0.6556740057990369, 0.8011229797361532, 0.8678312673337206),
        (0.6209147512778063, 0.780438896450588, 0.8573801982536436),
    ),
    "slot-tiebreak-10": (
        (0.8510635257351998, 0.9186118012688315, 0.9468907084327512),
        (0.5939932446591895, 0.7402657039927096, 0.812036572465741),
        (0.5363260193649937, 0.6956725735282174, 0.780273968619788),
    ),
    "group-legionnaire-berserker": (
        (0.9999998778836183, 0.999999923957307, 0.9999999378729145),
        (0.995003711593605, 0.9928658515011776, 0.99107183056065),
        (0.9778622751972129, 0.9758151272310139, 0.9707284593433941),
    ),
    "group-duel-fixed": (
        (0.28220850417937576, 0.406097662500017, 0.4636739164209339),
        (0.1554596479307114, 0.25978629103127837, 0.3043274205728689),
        (0.09311081136915779, 0.1596013936716495, 0.21972598965239087),
    ),
    "variant-rules": (
        (0.57352051594176, 0.9674504388052464, 0.9365996374322482),
        (0.3623445682268913, 0.9215787147810168, 0.8454083935113822),
        (0.3865976098944596, 0.9316536489570307, 0.8850141920515301),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_race_scores_are_the_pinned_ones(name: str) -> None:
    got = case_scores(name)
    want = PINNED[name]
    assert len(got) == len(want)
    for row, pinned in zip(got, want, strict=True):
        assert row == pytest.approx(pinned, abs=1e-9, rel=0)


def test_best_type_choices_of_the_19_presets_are_unchanged() -> None:
    from balance.rulesets.strike_rank.policy import matchup_setup

    want = json.loads(CHOICES.read_text())
    rules = Rules()
    names = sorted(STYLE_PRESETS)
    assert len(want) == len(names) ** 2 == 361
    for a in names:
        for b in names:
            table = matchup_setup(rules, (STYLE_PRESETS[a],), (STYLE_PRESETS[b],))[2]
            assert [list(map(list, row)) for row in table] == want[f"{a} v {b}"], (a, b)


# --- what is shared ---------------------------------------------------------------------------


def _counts() -> dict[str, int]:
    from balance.rulesets.strike_rank import race

    return dict(race._COUNTS)


def _fresh() -> None:
    """Forget every table this process made (the race model's and the matchups')."""
    from balance.rulesets.strike_rank import kernel, policy, race

    race.clear_caches()
    policy.matchup_setup.cache_clear()
    kernel._static.cache_clear()


@pytest.mark.parametrize("tiebreak", [None, ("agility",)])
def test_seats_swapped_share_the_races_unless_the_slot_breaks_a_tie(
        tiebreak: tuple[str, ...] | None) -> None:
    from balance.rulesets.strike_rank.policy import matchup_setup

    rules = Rules() if tiebreak is None else Rules(sr_tiebreak=tiebreak)
    a, b = STYLE_PRESETS["assassin"], STYLE_PRESETS["footpad"]  # both AGI 12
    _fresh()
    matchup_setup(rules, (a,), (b,))
    first = _counts()
    assert first == {"models": 2, "races": 18}  # each side's view, 3 x 3 attack types
    matchup_setup(rules, (b,), (a,))  # the seats swapped: the same two models
    if tiebreak is None:  # the random tie-break: the slots change nothing, nothing is new
        assert _counts() == first
    else:  # the lower slot wins a tie: every race is played again, with the new chances
        assert _counts() == {"models": 2, "races": 36}


def test_an_adopted_setup_is_not_computed_again() -> None:
    import pickle

    from balance.rulesets.strike_rank import StrikeRank
    from balance.rulesets.strike_rank.policy import matchup_setup

    rs, rules = StrikeRank(), Rules()
    side_a, side_b = (STYLE_PRESETS["knight"],), (STYLE_PRESETS["archer"],)
    _fresh()
    setup = rs.setup(rules, side_a, side_b)
    assert _counts()["races"] == 18
    want = matchup_setup(rules, side_a, side_b)[2]
    _fresh()  # as in a worker process: nothing made yet
    rs.adopt(pickle.loads(pickle.dumps(setup)))
    assert matchup_setup(rules, side_a, side_b)[2] == want
    assert _counts() == {"models": 0, "races": 0}
    _fresh()  # and without it, the worker computes (the check above can fail)
    assert matchup_setup(rules, side_a, side_b)[2] == want
    assert _counts()["races"] == 18


def test_a_sweeps_workers_take_the_parents_tables(tmp_path: Path) -> None:
    """Two worker processes, the chunks of two cells shared among them: a kernel call
    that plays a race raises (:mod:`tests.strike_rank.worker_check`), so the sweep
    completes only if every task brought its cell's tables; the counts are the serial
    run's."""
    import balance
    from balance.rulesets import resolve

    check = "tests.strike_rank.worker_check:CHECKED"
    resolve(check, allow_import=True)
    spec = {"ruleset": check, "description": "race tables from the parent",
            "a": [{"preset": "knight"}], "b": [{"preset": "gladiator"}],
            "grid": {"combine": "product",
                     "axes": [{"field": "a.0.skill", "values": [25, 35]}]},
            "run": {"fights": 400, "chunk_size": 100, "seed": 3}}
    _fresh()
    table, _ = balance.sweep(spec, out=tmp_path / "workers", executor="processes", workers=2)
    serial = balance.sweep(spec, out=tmp_path / "serial", executor="serial").table
    columns = ["a_wins", "b_wins", "draws"]
    pd.testing.assert_frame_equal(table[columns], serial[columns], check_exact=True)
    _fresh()  # a kernel call that has to make the tables itself fails: the check is live
    with pytest.raises(RuntimeError, match="played 18 race"):
        resolve(check, allow_import=True).simulate(Rules(), (STYLE_PRESETS["knight"],),
                                                   (STYLE_PRESETS["gladiator"],), n=10,
                                                   rng=np.random.default_rng(0))
