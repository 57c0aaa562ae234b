"""The command line over every registered ruleset and the test ruleset (``coin``, loaded with
``--allow-import``): what each command promises whatever the rules -- ``show``, ``duel``,
``log``, ``exact``, ``matchups``, ``bench`` -- and the bad input every ruleset refuses the
same way (one line, exit status 2, nothing on stdout).

The command line must say what the Python API says: a duel's rates, an exact answer, a
narrated fight are compared with :mod:`balance.api` on the same seed.  What is particular to
one ruleset (its tables, scenarios, narration, solver) is tested in that ruleset's folder.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest

import balance
from balance.fields import describe_fields
from balance.rulesets import RULESETS, resolve

from ..sweep.helpers import COIN

SUBJECTS = [*sorted(RULESETS), COIN]


def _rs(subject: str) -> Any:
    return resolve(subject, allow_import=True)


IDS = [_rs(s).name for s in SUBJECTS]
each_ruleset = pytest.mark.parametrize("subject", SUBJECTS, ids=IDS)


def ref(subject: str) -> list[str]:
    """The ruleset argument of a command (an import path needs --allow-import)."""
    return [subject] if subject in RULESETS else [subject, "--allow-import"]


def default_sides(rs: Any) -> list[str]:
    """One all-defaults fighter against two (one where the ruleset allows no more)."""
    return ["--a", "default", *["--b", "default"] * min(2, rs.max_side)]


def rates(data: dict[str, Any]) -> tuple[float, float, float]:
    return data["a_win"], data["b_win"], data["draw"]


def test_rulesets_lists_every_registered_ruleset(cli) -> None:
    status, out, _ = cli("rulesets")
    assert status == 0 and all(name in out for name in RULESETS)
    status, out, _ = cli("rulesets", "--json")
    assert status == 0 and {r["name"] for r in json.loads(out)} >= set(RULESETS)


def test_the_real_entry_point() -> None:
    done = subprocess.run([sys.executable, "-m", "balance", "rulesets"], capture_output=True,
                          text=True, check=True)
    assert all(name in done.stdout for name in RULESETS)
    # argparse's own errors keep the contract too: one line, exit status 2
    done = subprocess.run([sys.executable, "-m", "balance", "duel", "crt", "--a", "novice",
                           "--b", "novice", "-n", "0"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1
    assert "-n" in done.stderr and ">= 1" in done.stderr


@each_ruleset
def test_show_lists_every_field_with_its_tag_and_every_preset(cli, subject: str) -> None:
    rs = _rs(subject)
    status, out, _ = cli("show", *ref(subject))
    assert status == 0
    fields = [*describe_fields(rs.Rules), *describe_fields(rs.Combatant)]
    for info in fields:
        assert re.search(rf"^  {re.escape(info.name)} = .*  \[{info.tag}\]", out, re.M), info
    for name in rs.presets:
        assert f"\n  {name}: " in out
    assert "End causes: " + ", ".join(rs.causes) in out
    status, out, _ = cli("show", *ref(subject), "--json")
    info = json.loads(out)
    for key, cls in (("rule_parameters", rs.Rules), ("combatant_fields", rs.Combatant)):
        assert {f["name"]: f["tag"] for f in info[key]} == \
            {f.name: f.tag for f in describe_fields(cls)}
    assert set(info["presets"]) == set(rs.presets)


@each_ruleset
def test_duel_json_is_the_api_answer_and_repeats(cli, subject: str) -> None:
    rs = _rs(subject)
    argv = ("duel", *ref(subject), *default_sides(rs), "-n", "3000", "--seed", "3", "--json")
    status, out, _ = cli(*argv)
    assert status == 0
    data = json.loads(out)
    for key in ("ruleset", "n", "seed", "a_win", "b_win", "draw", "a_win_ci", "b_win_ci",
                "draw_ci", "mean_rounds", "elapsed_s", "assumptions", "policies"):
        assert key in data
    assert data["ruleset"] == rs.name and data["n"] == 3000 and data["seed"] == 3
    assert sum(rates(data)) == pytest.approx(1)
    for rate in ("a_win", "b_win", "draw"):
        low, high = data[f"{rate}_ci"]
        assert low <= data[rate] <= high
    n_b = min(2, rs.max_side)
    api = balance.duel(rs, "default", ["default"] * n_b, n=3000, seed=3)
    assert rates(data) == (api.a_win, api.b_win, api.draw)
    assert data["assumptions"] == list(api.assumptions)
    assert rates(json.loads(cli(*argv)[1])) == rates(data)  # the same seed, the same numbers


@each_ruleset
def test_duel_text_gives_rates_intervals_and_speed(cli, subject: str) -> None:
    rs = _rs(subject)
    status, out, _ = cli("duel", *ref(subject), "--a", "default", "--b", "default", "-n",
                         "2000", "--seed", "2")
    assert status == 0
    assert out.startswith(f"{rs.name}: 2,000 fights, seed 2\n")
    assert "A wins" in out and "Wilson" in out and "fights/s" in out
    if rs.assumptions(rs.Rules(), (rs.Combatant(),), (rs.Combatant(),)):
        assert "rests on" in out


@each_ruleset
def test_duel_precision_stops_early(cli, subject: str) -> None:
    status, out, _ = cli("duel", *ref(subject), "--a", "default", "--b", "default",
                         "--precision", "0.02", "--seed", "1", "--chunk-size", "1000", "--json")
    data = json.loads(out)
    assert status == 0 and data["n"] < 10_000  # about 2,400 fights give +-0.02
    assert (data["a_win_ci"][1] - data["a_win_ci"][0]) / 2 <= 0.02


# strike-rank builds its best-attack table for 6 against 6 once per process: ~8 s
SLOW_SCENARIOS = {("strike-rank", "ranks-6v6")}
SCENARIOS = [pytest.param(s, name, id=f"{_rs(s).name}-{name}",
                          marks=[pytest.mark.slow] if (_rs(s).name, name) in SLOW_SCENARIOS
                          else [])
             for s in SUBJECTS for name in _rs(s).scenarios]


@pytest.mark.parametrize(("subject", "scenario"), SCENARIOS)
def test_every_scenario_runs_with_a_rule_changed(cli, subject: str, scenario: str) -> None:
    status, out, err = cli("duel", *ref(subject), "--scenario", scenario, "-n", "200",
                           "--seed", "1", "--rule", "max_rounds=17", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["n"] == 200 and data["rules"]["max_rounds"] == 17


@each_ruleset
def test_log_narrates_the_reference_fight(cli, subject: str) -> None:
    rs = _rs(subject)
    status, out, _ = cli("log", *ref(subject), "--a", "default", "--b", "default", "--seed", "4")
    assert status == 0
    lines: list[str] = []
    told = balance.fight(rs, "default", "default", seed=4, log=lines.append)
    shown = out.strip().splitlines()
    assert lines and shown[:len(lines)] == lines
    assert shown[-1].startswith("==") and told.cause in shown[-1]
    assert cli("log", *ref(subject), "--a", "default", "--b", "default", "--seed", "4")[1] == out
    status, out, _ = cli("log", *ref(subject), "--a", "default", "--b", "default", "--seed",
                         "4", "--json")
    data = json.loads(out)  # the narration inside the JSON, nothing else on stdout
    assert (data["rounds"], data["cause"], data["log"]) == (told.rounds, told.cause, lines)


@each_ruleset
def test_exact_answers_as_the_api_or_says_why(cli, subject: str) -> None:
    rs = _rs(subject)
    rules, side = rs.Rules(), (rs.Combatant(),)
    status, out, err = cli("exact", *ref(subject), "--a", "default", "--b", "default", "--json")
    why = rs.exact_check(rules, side, side)
    if why:
        assert (status, out, err) == (2, "", f"balance: error: {why}\n")
        return
    assert status == 0, err
    data = json.loads(out)
    answer = balance.exact(rs, "default", "default")
    assert sum(rates(data)) == pytest.approx(1)
    assert rates(data) == pytest.approx((answer.a_win, answer.b_win, answer.draw), abs=1e-12)
    assert "mean_rounds" in data and data["assumptions"] == list(answer.assumptions)


@each_ruleset
def test_bench_times_a_case(cli, subject: str) -> None:
    rs = _rs(subject)
    case = rs.bench_cases()[0].name
    status, out, _ = cli("bench", "--ruleset", *ref(subject), "--case", case, "--seconds",
                         "0.02", "--json")
    assert status == 0
    (row,) = json.loads(out)
    assert row["ruleset"] == rs.name and row["case"] == case
    for key in ("kernel_fights_per_s", "reference_fights_per_s", "ratio"):
        assert row[key] > 0


@each_ruleset
def test_matchups_plays_a_round_robin(cli, subject: str) -> None:
    rs = _rs(subject)
    entrants = list(rs.presets)[:3]
    status, out, err = cli("matchups", *ref(subject), "--entrants", ",".join(entrants),
                           "-n", "300", "--resamples", "10", "--seed", "1", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert len(data["matchups"]) == len(entrants) ** 2
    assert {r["entrant"] for r in data["ratings"]} == set(entrants)
    assert {"weight", "weight_low", "weight_high"} <= set(data["metagame"][0])


# --- bad input: one line, exit status 2, nothing on stdout -----------------------------------


def _bad_cases(subject: str) -> list[tuple[str, list[str], str]]:
    """(id, argv, words the error must hold) for one ruleset, built from its own fields."""
    rs = _rs(subject)
    name, r = rs.name, ref(subject)
    duel = ["duel", *r]
    a_b = ["--a", "default", "--b", "default"]
    ints = [i for i in describe_fields(rs.Combatant)
            if isinstance(getattr(rs.Combatant(), i.name), int)
            and not isinstance(getattr(rs.Combatant(), i.name), bool) and ".." in i.allowed]
    field = ints[0]
    high = int(field.allowed.split("..")[1])
    cases = [
        ("unknown-preset", [*duel, "--a", "gandalf", "--b", "default"],
         f"unknown {name} preset 'gandalf'"),
        ("unknown-field", [*duel, "--a", "default,no_such_field=1", "--b", "default"],
         f"unknown {name} combatant field 'no_such_field'"),
        ("unknown-rule", [*duel, *a_b, "--rule", "gravity=2"],
         f"unknown {name} rules field 'gravity'"),
        ("rule-not-an-integer", [*duel, *a_b, "--rule", "max_rounds=lots"],
         "'max_rounds' must be an integer"),
        ("out-of-range", [*duel, "--a", f"default,{field.name}={high + 1}", "--b", "default"],
         f"'{field.name}' must be in {field.allowed}"),
        ("n-zero", [*duel, *a_b, "-n", "0"], "expected a whole number >= 1"),
        ("malformed-spec", [*duel, "--a", "=3", "--b", "default"], "malformed spec"),
        ("field-twice", [*duel, "--a", f"{field.name}=1,{field.name}=1", "--b", "default"],
         f"field '{field.name}' is given twice"),
        ("empty-item", [*duel, "--a", f"default,,{field.name}=1", "--b", "default"],
         "an empty item between commas"),
        ("empty-spec", [*duel, "--a", "", "--b", "default"], "give a preset name or name=value"),
        ("missing-b", [*duel, "--a", "default"], "missing --b"),
        ("log-missing-b", ["log", *r, "--a", "default"], "missing --b"),
        ("too-many", [*duel, "--a", "default", *["--b", "default"] * (rs.max_side + 1)],
         f"side b has {rs.max_side + 1} combatants; {name} allows 1..{rs.max_side}"),
        ("unknown-scenario", [*duel, "--scenario", "nowhere"], f"unknown {name} scenario"),
        ("matchups-unknown-preset", ["matchups", *r, "--entrants", "default,bogus"],
         f"unknown {name} preset 'bogus'"),
        ("bench-unknown-case", ["bench", "--ruleset", *r, "--case", "nope"],
         "unknown bench case 'nope'; cases: "),
        ("bench-seconds-zero", ["bench", "--ruleset", *r, "--seconds", "0"],
         "expected seconds in (0, 600], got '0'"),
    ]
    choices = [i for cls in (rs.Rules, rs.Combatant) for i in describe_fields(cls)
               if isinstance(getattr(cls(), i.name), str) and " | " in i.allowed]
    if choices:
        option = choices[0]
        where = (["--rule", f"{option.name}=no-such-choice", *a_b]
                 if option in describe_fields(rs.Rules)
                 else ["--a", f"default,{option.name}=no-such-choice", "--b", "default"])
        cases.append(("not-a-choice", [*duel, *where], "must be one of"))
    if not rs.has_strategy:
        cases.append(("no-strategy", ["exact", *r, *a_b, "--strategy"],
                      "no equilibrium strategy to show"))
    return cases


BAD = [pytest.param(argv, words, id=f"{_rs(s).name}-{case}")
       for s in SUBJECTS for case, argv, words in _bad_cases(s)]


@pytest.mark.parametrize(("argv", "words"), BAD)
def test_bad_input_is_one_line_exit_2(cli, argv: list[str], words: str) -> None:
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert err.startswith("balance: error: ") and err.count("\n") == 1, err
    assert words in err

