"""``balance.tune`` and ``balance.analysis.handicaps``: exact brackets against a brute-force
scan, simulated intervals against exact crossings, round-robin handicaps, bad input."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

import balance
from balance.analysis.tune import handicaps, parse_knob, tune
from balance.cli import main
from balance.errors import SpecError

PLAIN = {"extraordinary": False}  # crt's exact solver answers the plain duel


def scan(a, b, knob, values, metric="score", rules=PLAIN):
    """Brute force: the exact metric at every value of the knob."""
    rs = balance.get("crt")
    k = parse_knob(rs, knob)
    out = []
    for v in values:
        side_a, side_b = rs.side(a), rs.side(b)
        rules_obj = rs.rules(rules)
        if k.target == "rules":
            rules_obj = rs.rules(rules_obj, **{k.name: v})
        elif k.target == "a":
            side_a = (rs.combatant(side_a[0], **{k.name: v}),)
        else:
            side_b = (rs.combatant(side_b[0], **{k.name: v}),)
        p = rs.exact(rules_obj, side_a, side_b)
        out.append({"score": p.a_win + 0.5 * p.draw, "a_win": p.a_win, "b_win": p.b_win,
                    "draw": p.draw}[metric])
    return np.array(out)


# (a, b, knob, bounds, metric, target); B's win rate over the damage die is not monotone
EXACT_CASES = [
    ("veteran", "novice", "b.0.combats", (0, 80), "score", 0.5),     # lands on 31 exactly
    ("veteran", "novice", "b.0.combats", (0, 80), "a_win", 0.4),
    ("expert", "novice", "b.0.health", (1, 60), "score", 0.5),       # health unset: default
    ("duelist", "duelist", "b.0.bonus", (-20, 20), "score", 0.3),
    ("expert", "novice,toughness=9", "b.0.agility", (0, 30), "score", 0.5),
    ("duelist", "duelist,agility=9", "rules.damage_die", (1, 20), "b_win", 0.2),
]


@pytest.mark.parametrize(("a", "b", "knob", "bounds", "metric", "target"), EXACT_CASES)
def test_exact_bracket_is_the_true_bracket(a, b, knob, bounds, metric, target):
    values = np.arange(bounds[0], bounds[1] + 1)
    rates = scan(a, b, knob, values, metric)
    steps = np.diff(rates)
    monotone = (steps >= -1e-12).all() or (steps <= 1e-12).all()
    result = tune("crt", a, b, knob=knob, bounds=bounds, metric=metric, target=target,
                  rules=PLAIN)
    assert result.method == "exact" and result.interval is None
    gap = rates - target
    hits = np.flatnonzero(np.abs(gap) < 1e-12)
    if hits.size:
        assert result.status == "hit"
        assert result.crossing == values[hits[0]]
        return
    # the true brackets: the neighbours between which the rate passes the target; one
    # where the rate moves one way, and the answer must be one of them where it does not
    brackets = np.flatnonzero(np.sign(gap[:-1]) != np.sign(gap[1:]))
    assert len(brackets) == 1 or not monotone
    lo, hi = result.bracket
    j = int(lo.value - values[0])
    assert j in brackets and hi.value == values[j + 1]
    assert lo.rate == pytest.approx(rates[j], abs=1e-12)
    assert hi.rate == pytest.approx(rates[j + 1], abs=1e-12)
    assert lo.n == hi.n == 0 and lo.low == lo.rate == lo.high
    expected = values[j] + (target - rates[j]) / (rates[j + 1] - rates[j])
    assert result.crossing == pytest.approx(expected, abs=1e-9)
    assert values[j] < result.crossing < values[j + 1]


def test_exact_unreachable_names_the_closest_end():
    # a novice with every skill level still trails a master's score of 72 by 30: band +25
    values = np.arange(0, 6)
    rates = scan("master", "novice", "b.0.skill", values)
    assert (rates > 0.5).all()
    result = tune("crt", "master", "novice", knob="b.0.skill", rules=PLAIN)
    assert result.status == "unreachable" and result.crossing is None
    assert result.best.rate == pytest.approx(min(rates[0], rates[-1]), abs=1e-12)
    assert result.best.value in (0, 5)
    assert ("No b.0.skill in 0..5 (the field's range) brings A's expected score to 50.0%"
            in result.sentence())


def test_exact_real_knob_is_root_found():
    # A diverts with probability p each exchange (001.5), which costs it its attack
    result = tune("crt", "duelist,divert=random", "duelist,agility=9", knob="a.0.divert_p",
                  rules=PLAIN)
    assert result.method == "exact" and result.status == "crossing"
    at = balance.exact("crt", f"duelist,divert=random,divert_p={result.crossing!r}",
                       "duelist,agility=9", rules=PLAIN)
    assert at.a_win + 0.5 * at.draw == pytest.approx(0.5, abs=1e-7)
    assert result.sentence().startswith("A needs 0.1923 more divert p to be even")


def test_the_example_of_the_issue_by_exact_and_by_simulation():
    exact = tune("crt", "veteran", "novice", knob="b.0.combats", rules=PLAIN)
    assert exact.sentence() == ("B needs exactly 31 more combats survived to be even "
                                "(b.0.combats from 0 to 31).")
    simulated = tune("crt", "veteran", "novice", knob="b.0.combats", seed=3)
    assert simulated.method == "simulate"  # the Extraordinary tables are on: no solver
    low, high = simulated.interval
    assert 30 < low < simulated.crossing < high < 31
    assert simulated.sentence().startswith("No whole number of combats survived for B "
                                           "(b.0.combats) makes it even: 30 gives ")


# Monte Carlo against exact crossings.  Each case is run on 20 seeds of its own (the cases
# share matchups: one seed list would make their misses move together); a 95% interval
# misses the exact crossing in 1 run of 20.  Threshold: at most 9 misses in the 60 runs, so a
# calibrated method fails with probability 0.0007 (P(10 or more | 60 runs at 5%)) whatever
# the seeds, while a method that missed 1 time in 5 would fail with probability 0.79.
MC_CASES = [
    ("veteran", "novice", "b.0.combats", "score", 0.5, {}),             # exactly 31
    ("veteran", "novice", "b.0.combats", "a_win", 0.4, {}),             # 31.26
    ("duelist,divert=random", "duelist,agility=9", "a.0.divert_p", "score", 0.5,
     {"precision": 0.004}),                                              # 0.6923
]


@pytest.mark.slow  # ~17 CPU s
def test_simulated_intervals_cover_the_exact_crossing():
    misses, runs = 0, 0
    for case, (a, b, knob, metric, target, extra) in enumerate(MC_CASES):
        truth = tune("crt", a, b, knob=knob, metric=metric, target=target, rules=PLAIN)
        for seed in range(100 * case, 100 * case + 20):
            got = tune("crt", a, b, knob=knob, metric=metric, target=target, rules=PLAIN,
                       method="simulate", seed=seed, **extra)
            assert got.status == "crossing" and got.reached
            low, high = got.interval
            assert low <= got.crossing <= high
            misses += not low <= truth.crossing <= high
            runs += 1
            assert abs(got.crossing - truth.crossing) < 3 * (high - low) + 1e-9
    assert runs == 60 and misses <= 9


@pytest.mark.parametrize("seed", range(1000, 1012))
def test_interval_holds_a_value_exactly_when_its_band_holds_the_target(seed):
    # The interval is a test inversion: it holds 31 (where the exact score is 50%) exactly
    # when the 95% normal interval of the score simulated at 31 holds 50%, computed here from
    # balance.duel on the same streams.  Coverage is then that of the pointwise interval.
    got = tune("crt", "veteran", "novice", knob="b.0.combats", rules=PLAIN, method="simulate",
               seed=seed)
    at = {p.value: p for p in got.points}[31]
    s = balance.duel("crt", "veteran", "novice,combats=31", rules=PLAIN, n=at.n, seed=seed,
                     chunk_size=got.chunk_size)
    score = s.a_win + 0.5 * s.draw
    se = np.sqrt((s.a_win + 0.25 * s.draw - score ** 2) / s.n)
    low, high = got.interval
    assert (low <= 31 <= high) == (abs(score - 0.5) <= 1.959964 * se)


def test_simulation_uses_common_random_numbers_of_duel():
    got = tune("crt", "veteran", "novice", knob="b.0.combats", seed=11, method="simulate",
               rules=PLAIN)
    for point in got.points[:3]:
        summary = balance.duel("crt", "veteran", f"novice,combats={point.value}", rules=PLAIN,
                               n=point.n, seed=11, chunk_size=got.chunk_size)
        assert point.rate == summary.a_win + 0.5 * summary.draw
    again = tune("crt", "veteran", "novice", knob="b.0.combats", seed=11, method="simulate",
                 rules=PLAIN)
    assert again.to_dict() | {"elapsed_s": 0} == got.to_dict() | {"elapsed_s": 0}


def test_precision_is_reached_by_growing_the_sample():
    loose = tune("crt", "duelist,divert=random", "duelist,agility=9", knob="a.0.divert_p",
                 rules=PLAIN, method="simulate", seed=5, precision=0.02)
    tight = tune("crt", "duelist,divert=random", "duelist,agility=9", knob="a.0.divert_p",
                 rules=PLAIN, method="simulate", seed=5, precision=0.003)
    for result, precision in ((loose, 0.02), (tight, 0.003)):
        assert result.reached and (result.interval[1] - result.interval[0]) / 2 <= precision
    assert max(p.n for p in tight.points) > max(p.n for p in loose.points)
    capped = tune("crt", "duelist,divert=random", "duelist,agility=9", knob="a.0.divert_p",
                  rules=PLAIN, method="simulate", seed=5, precision=0.0001,
                  max_fights=1 << 15)
    assert not capped.reached and any("precision" in note for note in capped.notes)


def test_exact_falls_back_to_simulation_where_the_solver_gives_up():
    # fixed health 999 each is 998,001 health states: beyond crt's solver
    kwargs = dict(knob="rules.fixed_health", rules={**PLAIN, "health": "fixed"},
                  bounds=(1, 999))
    result = tune("crt", "duelist", "duelist,agility=9", seed=1, **kwargs)
    assert result.method == "simulate"
    assert any("exact solver cannot answer" in note for note in result.notes)
    with pytest.raises(balance.IntractableError, match="method simulate"):
        tune("crt", "duelist", "duelist,agility=9", method="exact", **kwargs)


def test_progress_is_reported():
    counts: list[int] = []
    result = tune("crt", "veteran", "novice", knob="b.0.combats", rules=PLAIN,
                  progress=counts.append)
    assert counts == list(range(1, len(counts) + 1)) and len(counts) >= len(result.points)


def test_crt_plain_kernel_takes_a_score_gap_beyond_int8():
    # combats 1000 is inside the field's range; the gap once overflowed the int8 lookup
    s = balance.duel("crt", "veteran", "novice,combats=1000", rules=PLAIN, n=50_000, seed=2)
    p = balance.exact("crt", "veteran", "novice,combats=1000", rules=PLAIN)
    assert abs(s.a_win - p.a_win) < 5 * np.sqrt(p.a_win * (1 - p.a_win) / s.n)


# --- round robin handicaps ----------------------------------------------------------------------


def test_exact_handicaps_equalise_combat_scores():
    result = handicaps("crt", ["novice", "expert", "veteran"], knob="combats", rules=PLAIN)
    assert result.method == "exact" and result.converged and result.confirmed
    assert result.anchor == "veteran"
    # every combat score becomes the veteran's 38: novice 7 + 31, expert 26 + 12
    assert dict(zip(result.entrants, result.handicaps, strict=True)) == \
        {"novice": 31, "expert": 12, "veteran": 0}
    assert all(p.rate == pytest.approx(0.5, abs=1e-12) for p in result.scores)
    assert result.initial[0].rate < 0.1 and result.worst() <= 0.02


def test_simulated_handicaps_converge_within_the_margin():
    result = handicaps("crt", ["novice", "skilled", "expert", "veteran"], knob="bonus",
                       rules=PLAIN, method="simulate", n=8192, seed=4, margin=0.03)
    assert result.converged and result.worst() <= 0.03
    assert result.anchor == "veteran" and result.handicaps[-1] == 0
    # bonus adds to the combat score: the same score gaps as combats (38 - 7, 38 - 16, ...)
    assert result.handicaps[:3] == (31, 22, 12)
    for p in result.scores:
        assert p.low <= p.rate <= p.high and p.n == 8192
    text = str(result)
    assert "within 3.0% of 50%" in text and "(anchor)" in text


def test_handicaps_that_cannot_reach_the_margin_say_so():
    # one whole step of skill moves a combat score by 7: never within 1% of even
    result = handicaps("crt", ["novice", "master"], knob="skill", rules=PLAIN, margin=0.01)
    assert not result.converged
    assert result.sentence().startswith("No handicaps on skill found bring every entrant")


# --- command line -----------------------------------------------------------------------------------


def test_cli_tune_prints_the_answer_and_json(cli):
    status, out, err = cli("tune", "crt", "--a", "veteran", "--b", "novice", "--knob",
                           "b.0.combats", "--rule", "extraordinary=false")
    assert status == 0 and err == ""
    assert out.startswith("crt: B needs exactly 31 more combats survived to be even")
    status, out, _ = cli("tune", "crt", "--a", "veteran", "--b", "novice", "--knob",
                         "b.0.combats", "--seed", "2", "--json")
    data = json.loads(out)
    assert status == 0 and data["method"] == "simulate" and data["seed"] == 2
    assert data["interval"][0] <= data["crossing"] <= data["interval"][1]
    assert data["sentence"].startswith("No whole number of combats survived for B")


def test_cli_round_robin(cli):
    status, out, _ = cli("tune", "crt", "--entrants", "novice,expert,veteran", "--knob",
                         "combats", "--rule", "extraordinary=false", "--json")
    data = json.loads(out)
    assert status == 0 and data["converged"]
    assert [e["handicap"] for e in data["entrants"]] == [31, 12, 0]


@pytest.mark.parametrize(("argv", "says"), [
    (["--knob", "b.0.weapon_type"], "not an integer or real field; tunable"),
    (["--knob", "b.0.preset"], "a preset or a whole side"),
    (["--knob", "b.0.agilty"], "unknown crt combatant field 'agilty'"),
    (["--knob", "combats"], "needs its side and slot, e.g. b.0.combats"),
    (["--knob", "rules.es2_mode"], "not an integer or real field"),
    (["--knob", "b.3.combats"], "side B has 1 combatant"),
    (["--knob", "b.0.combats", "--bounds=-5,10"], "bounds of b.0.combats must be"),
    (["--knob", "b.0.combats", "--bounds", "1.5,10"], "must be whole numbers"),
    (["--knob", "b.0.combats", "--bounds", "7"], "--bounds takes LOW,HIGH"),
    (["--knob", "b.0.combats", "--target", "1.5"], "target must be a rate strictly between"),
    (["--knob", "b.0.combats", "--metric", "elo"], "metric must be one of score"),
    (["--knob", "b.0.combats", "--precision", "0"], "precision must be a half-width"),
    (["--knob", "b.0.combats", "--draw-worth", "2"], "draw_worth must be a number in 0..1"),
    (["--knob", "b.0.combats", "-n", "100"], "-n applies to the round robin mode"),
    (["--knob", "b.0.combats", "--entrants", "novice,expert"], "--a: the round robin mode"),
])
def test_cli_bad_input_is_one_line_and_status_2(cli, argv, says):
    status, out, err = cli("tune", "crt", "--a", "veteran", "--b", "novice", *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("balance: error: ") and says in err


@pytest.mark.parametrize(("argv", "says"), [
    (["--knob", "b.0.combats"], "give its bare name"),
    (["--knob", "weapon_type"], "not an integer or real crt combatant field"),
    (["--knob", "combats", "--entrants", "novice,nobody"], "unknown crt preset 'nobody'"),
    (["--knob", "combats", "--margin", "0.7"], "margin must be a rate strictly between"),
    (["--knob", "combats", "--anchor", "master"], "anchor 'master' is not an entrant"),
])
def test_cli_round_robin_bad_input(cli, argv, says):
    if "--entrants" not in argv:
        argv = [*argv, "--entrants", "novice,expert"]
    status, out, err = cli("tune", "crt", *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and says in err


def test_knob_parsing():
    rs = balance.get("crt")
    assert parse_knob(rs, "damage_die").path == "rules.damage_die"
    k = parse_knob(rs, "a.*.combats", bounds=(0, 50))
    assert (k.member, k.low, k.high, k.integer) == ("*", 0, 50, True)
    assert not parse_knob(rs, "b.0.divert_p").integer
    with pytest.raises(SpecError, match=r"bounds of rules\.damage_die must be low < high"):
        parse_knob(rs, "rules.damage_die", bounds=(5, 5))


def test_public_names_and_a_light_import():
    import subprocess
    import sys

    from balance import analysis
    from balance.analysis import tune as module

    assert balance.tune is module.tune and analysis.handicaps is module.handicaps
    assert "tune" in balance.__all__
    code = ("import sys, balance; assert 'pandas' not in sys.modules; "
            "from balance import tune; assert tune.__module__ == 'balance.analysis.tune'")
    subprocess.run([sys.executable, "-c", code], check=True)


# --- [[tune]] in an experiment, and the report section -------------------------------------------

FAIR = {
    "ruleset": "crt",
    "description": "crt: what would make it fair (test)",
    "question": "How many combats make a challenger even with a veteran?",
    "rules": {"extraordinary": False},
    "a": [{"name": "challenger"}],
    "b": [{"preset": "veteran"}],
    "grid": {"axes": [{"field": "a.0.skill", "values": [0, 2]},
                      {"field": "a.0.combats", "values": [0, 20]}]},
    "run": {"fights": 2000, "seed": 8},
    "tune": [{"knob": "a.0.combats", "where": {"a": {"0": {"skill": 2}}}},
             {"knob": "a.0.skill", "method": "simulate", "precision": 0.1},
             {"knob": "combats", "entrants": ["novice", "expert", "veteran"]}],
}


def test_tune_tables_in_a_spec_are_answered():
    from balance.experiments.tuning import from_spec

    spec = balance.load_spec(FAIR)
    assert balance.load_spec(spec.to_dict()) == spec
    assert spec.tune[0]["where"] == {"a.0.skill": 2} or "a" in spec.tune[0]["where"]
    first = from_spec(spec, 0)
    # skill 2 adds two abilities of 7 to the score: 7 + 14 + combats = 38 at 17 combats
    assert first.status == "hit" and first.crossing == 17
    second = from_spec(spec, 1)
    assert second.method == "simulate" and second.seed == 8  # the run's seed
    assert 4 < second.interval[0] <= second.crossing <= second.interval[1] < 5
    third = from_spec(spec, 2)
    assert third.converged and third.handicaps == (31, 12, 0)


def test_report_states_what_would_make_it_fair(tmp_path):
    from balance.report import render

    run = balance.sweep(FAIR, out=tmp_path / "run", executor="serial").path
    first = render(run, tmp_path / "one")
    html, md = first["html"].read_text(), first["markdown"].read_text()
    for text in ("What would make it fair",
                 "A needs exactly 17 more combats survived to be even (a.0.combats from 0 to 17).",
                 "Every value tried", "novice +31, expert +12, against veteran unchanged",
                 "common random numbers"):
        assert text in html and text in md, text
    again = render(run, tmp_path / "two")
    assert again["markdown"].read_text() == md  # seeded by the run: the same every time
    plain = dict(FAIR, tune=[])
    run = balance.sweep(plain, out=tmp_path / "plain", executor="serial").path
    assert "What would make it fair" not in render(run, tmp_path / "three")["html"].read_text()


# --- docs/tune.md: every command shown is run, and its figures checked ---------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "tune.md"


def doc_commands() -> list[tuple[str, str]]:
    """``(command, output)`` for every ``$ balance ...`` line of a console block."""
    pairs = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(), flags=re.S):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            pairs.append((command, output.rstrip("\n")))
    return pairs


@pytest.mark.parametrize(("command", "output"), doc_commands(),
                         ids=[c for c, _ in doc_commands()])
def test_documented_command_prints_what_the_doc_shows(cli, command, output):
    status, out, _ = cli(*shlex.split(command)[1:])
    assert status == 0
    assert out.rstrip("\n") == output


def test_documented_figures_come_from_the_code():
    from balance.analysis import tune as module
    from balance.rulesets.crt import exact as crt_exact
    from balance.rulesets.crt.rules import combat_score

    prose = re.sub(r"```.*?```", "", DOC.read_text(), flags=re.S)
    text = " ".join(DOC.read_text().split())  # prose lines wrap anywhere
    shown = "\n".join(output for _, output in doc_commands())
    for rate in set(re.findall(r"\d+\.\d%", prose)):
        assert rate in shown, rate  # every rate quoted in prose is one a command printed
    assert len(doc_commands()) >= 8
    rs = balance.get("crt")
    rules = rs.rules()
    sentence = tune("crt", "veteran", "novice", knob="b.0.combats", seed=1).sentence()
    assert f"# '{sentence.split(' (')[0]} (...)'" in text  # the Python example's answer
    assert combat_score(rs.preset("veteran"), rules) == 38
    assert combat_score(rs.preset("master"), rules) == 72 == 7 + 35 + 30
    assert combat_score(rs.combatant("novice,combats=31"), rules) == 38
    assert "16,384 fights each" in text and module.CHUNK_SIZE == 16_384
    assert "4,194,304" in text and module.MAX_FIGHTS == 4_194_304
    assert "past 24 values" in text and module.MAX_WINDOW == 24
    assert "250,000 health" in text and crt_exact.MAX_STATES == 250_000
    assert "on six crt cases" in text and len(EXACT_CASES) == 6
    assert "twelve seeds" in text and len(range(1000, 1012)) == 12
    from scipy.stats import binom

    assert "over 60 runs" in text and "at least 51 times" in text
    assert "probability 0.0007" in text and round(binom.sf(9, 60, 0.05), 4) == 0.0007


def test_a_knob_on_a_side_of_several():
    # two watchmen against Bruggish (001.7): the combats of one of them, or of both
    one = tune("crt", "bruggish", ["watchman", "watchman"], knob="b.1.combats", seed=1,
               precision=1)
    both = tune("crt", "bruggish", ["watchman", "watchman"], knob="b.*.combats", seed=1,
                precision=1)
    assert one.sentence().startswith("No whole number of combats survived for B's combatant 1 "
                                     "(watchman) (b.1.combats) makes it even")
    assert both.sentence().startswith("No whole number of combats survived for every "
                                      "combatant of B (b.*.combats) makes it even")
    assert both.crossing < one.crossing  # raising both is worth more than raising one
    assert one.current == both.current == 3


def test_the_command_line_shows_progress_on_a_terminal(monkeypatch, capsys):
    # balance.progress.Progress draws once the work has run its delay; with the delay at 0
    # and stderr a terminal, `balance tune` draws it and clears it before printing
    import io

    from balance import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setitem(progress.Progress.__init__.__kwdefaults__, "delay", 0.0)
    assert main(["tune", "crt", "--a", "veteran", "--b", "novice", "--knob", "b.0.combats",
                 "--rule", "extraordinary=false"]) == 0
    assert "tune b.0.combats" in err.getvalue()
    assert capsys.readouterr().out.startswith("crt: B needs exactly 31")
    quiet = Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    assert main(["tune", "crt", "--a", "veteran", "--b", "novice", "--knob", "b.0.combats",
                 "--rule", "extraordinary=false", "-q"]) == 0
    assert quiet.getvalue() == ""

@pytest.mark.parametrize(("tune_table", "says"), [
    ({"knob": "a.0.combats", "colour": 1}, "tune.colour: unknown key 'colour'"),
    ({"target": 0.5}, "tune: missing 'knob'"),
    ({"knob": "a.0.weapon_type"}, "tune.knob: knob 'a.0.weapon_type' is not an integer"),
    ({"knob": "a.0.combats", "metric": "elo"}, "tune.metric: must be one of score"),
    ({"knob": "a.0.combats", "target": 2}, "tune.target: must be a number strictly between"),
    ({"knob": "a.0.combats", "bounds": [-1, 5]}, "bounds of a.0.combats must be low < high"),
    ({"knob": "a.0.combats", "where": {"a.0.combats": 2}}, "is the knob being tuned"),
    ({"knob": "a.0.combats", "where": {"a.0.skill": 9}}, "'skill' must be in 0..5"),
    ({"knob": "a.0.combats", "margin": 0.1}, "'margin' belongs to a round robin"),
    ({"knob": "combats", "entrants": ["novice", "nobody"]}, "unknown crt preset 'nobody'"),
    ({"knob": "combats", "entrants": ["novice", "expert"], "target": 0.4},
     "'target' belongs to a matchup tuning"),
])
def test_bad_tune_tables_are_refused_at_their_place(tune_table, says):
    spec = {key: value for key, value in FAIR.items() if key != "tune"}
    with pytest.raises(SpecError, match=re.escape(says)):
        balance.load_spec({**spec, "tune": tune_table}, name="x.toml")


def test_a_bad_tune_table_on_the_command_line(tmp_path, cli):
    path = tmp_path / "x.toml"
    path.write_text('ruleset = "crt"\ndescription = "x"\na = "veteran"\nb = "novice"\n'
                    '[run]\nfights = 100\n[[tune]]\nknob = "b.0.weapon_type"\n')
    status, out, err = cli("sweep", str(path), "--dry-run")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"{path}: tune[0].knob: knob 'b.0.weapon_type' is not an integer" in err
