"""Best play: matrix games with known answers, the double oracle against the full matrix,
profiles, common random numbers, Monte Carlo against exact, bad input, round robins."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest

import balance
from balance import analysis
from balance.analysis import bestplay
from balance.errors import IntractableError, SpecError
from balance.random import stream

# crt's plain duel where best play is not the default: with a five-round cap and a draw as
# good as a win, the novice diverts every exchange to hold out for the draw.
CRT_CAP = {"extraordinary": False, "max_rounds": 5}
CRT_KW = {"rules": CRT_CAP, "draw_worth": 1.0}


# --- matrix games with known answers -----------------------------------------------------------


def test_zero_sum_known_games():
    x, y, v = bestplay.zero_sum([[1, -1], [-1, 1]])  # matching pennies
    assert v == pytest.approx(0, abs=1e-9)
    assert np.allclose(x, 0.5) and np.allclose(y, 0.5)
    rps = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    x, y, v = bestplay.zero_sum(rps)
    assert v == pytest.approx(0, abs=1e-9) and np.allclose(x, 1 / 3) and np.allclose(y, 1 / 3)
    # [[3, -1], [-2, 1]]: the row plays 3/7, the column 2/7, the value is 1/7
    x, y, v = bestplay.zero_sum([[3, -1], [-2, 1]])
    assert v == pytest.approx(1 / 7) and x == pytest.approx([3 / 7, 4 / 7])
    assert y == pytest.approx([2 / 7, 5 / 7])
    # a saddle point: row 1 against column 0
    x, y, v = bestplay.zero_sum([[1, 5, 7], [4, 6, 8], [0, 9, 2]])
    assert v == 4 and x.tolist() == [0, 1, 0] and y.tolist() == [1, 0, 0]
    with pytest.raises(ValueError):
        bestplay.zero_sum(np.zeros((0, 2)))


def test_game_values_match_one_by_one():
    games = np.random.default_rng(7).normal(size=(40, 4, 5))
    games[:10] += np.arange(4)[None, :, None] * 10  # some with a saddle point
    assert bestplay.game_values(games) == pytest.approx(
        [bestplay.zero_sum(g)[2] for g in games], abs=1e-9)


@pytest.mark.parametrize("seed", range(12))
def test_double_oracle_reaches_the_full_matrix_equilibrium(seed):
    rng = np.random.default_rng(seed)
    rows, cols = rng.integers(5, 30), rng.integers(5, 30)
    game = rng.uniform(size=(rows, cols))
    if seed % 3 == 0:  # a strong row and a weak column far from the start
        game[rows - 1] += 0.4
        game[:, cols - 1] -= 0.3
    _, _, full = bestplay.zero_sum(game)
    found = bestplay.double_oracle(lambda i, j: game[i, j], rows, cols)
    assert found.value == pytest.approx(full, abs=1e-9)
    x = np.zeros(rows)
    x[list(found.rows)] = found.x
    y = np.zeros(cols)
    y[list(found.cols)] = found.y
    # an equilibrium of the whole game: neither side gains by any pure deviation
    assert (x @ game).min() >= full - 1e-9
    assert (game @ y).max() <= full + 1e-9
    assert found.lower == pytest.approx(full, abs=1e-9)
    assert found.upper == pytest.approx(full, abs=1e-9)
    assert found.evaluated <= rows * cols


# --- profiles -----------------------------------------------------------------------------------


def test_profiles_that_behave_alike_are_one():
    rs = balance.get("crt")
    _, rules, a, b = balance.api.matchup(rs, "novice", "expert", CRT_CAP)
    space_a, space_b = bestplay._spaces(rs, rules, a, b, None)
    # 7 diversion policies x 6 health thresholds x 3 probabilities x 4 band tables, but a
    # threshold only matters to below_health and reactive, a probability only to random, a
    # band table only to by_band (and es11 not at all with the tables off): 3 + 6 + 6 + 3 + 4
    assert space_a.raw_size == 7 * 6 * 3 * 4
    assert len(space_a.listed()) == 22 and len(space_b.listed()) == 22
    assert space_a.listed()[0] == 0 and space_a.describe(0, b) == "divert=never"


def test_a_profile_the_side_cannot_play_is_skipped():
    rs = balance.get("strike-rank")
    _, rules, a, b = balance.api.matchup(rs, "specialist", "feral", {"range_rounds": 0})
    space_a, _ = bestplay._spaces(rs, rules, a, b, {"attack_policy": None})
    described = {space_a.describe(i, b) for i in space_a.listed()}
    assert not any("thrust" in d for d in described)  # a whip cannot thrust
    assert len(described) == 3


def test_search_is_checked():
    with pytest.raises(SpecError, match="not a combatant policy of crt; policies: divert"):
        bestplay.best_play("crt", "novice", "expert", search={"agility": None})
    with pytest.raises(SpecError, match="divert"):
        bestplay.best_play("crt", "novice", "expert", search={"divert": ["sometimes"]})


# --- common random numbers --------------------------------------------------------------------


def test_every_profile_pair_fights_on_the_same_streams(monkeypatch):
    rs = balance.get("crt")
    seen = defaultdict(list)
    original = type(rs).simulate_segments

    def recording(self, segments, rng, /):  # every kernel call, batched or alone
        for segment, generator in zip(segments, rng.generators, strict=True):
            seen[(segment.side_a, segment.side_b, segment.n)].append(
                generator.bit_generator.state["state"]["state"])
        return original(self, segments, rng)

    monkeypatch.setattr(type(rs), "simulate_segments", recording)
    answer = bestplay.best_play(rs, "novice", "expert", method="simulate", n=4_000,
                                seed=17, chunk_size=500, **CRT_KW)
    chunk = [stream(17, i).bit_generator.state["state"]["state"] for i in range(8)]
    screen = stream(17, "screen").bit_generator.state["state"]["state"]
    confirm = stream(17, "confirm").bit_generator.state["state"]["state"]
    pairs = [key for key in seen if key[2] == 500]
    assert len(pairs) == answer.matrix[0] * answer.matrix[1] >= 2
    for key in pairs:  # chunk i of every pair on stream(entropy, i)
        assert seen[key] == chunk
    screened = [states for key, states in seen.items() if key[2] == 1_000]
    assert len(screened) >= 18 and all(states == [screen] for states in screened)
    assert all(states == [confirm] for key, states in seen.items() if key[2] == 4_000)


# --- Monte Carlo against exact ------------------------------------------------------------------


def test_monte_carlo_agrees_with_the_exact_matrix_game_crt():
    exact = bestplay.best_play("crt", "novice", "expert", method="exact", space="profiles",
                               **CRT_KW)
    assert exact.method == "exact-profiles"
    assert exact.describe_a() == "divert=always" and exact.describe_b() == "divert=never"
    assert exact.value == pytest.approx(0.20719380646, abs=1e-9)
    # diverting buys draws (docs/best-play.md quotes these two values)
    assert exact.default_value == pytest.approx(0.14668299304, abs=1e-9)
    assert (exact.a_win, exact.draw) == pytest.approx((0.0, 0.20719380646), abs=1e-9)
    mc = bestplay.best_play("crt", "novice", "expert", method="simulate", seed=5, **CRT_KW)
    # seed fixed in advance; the 95% interval misses the exact value for ~5% of seeds
    low, high = mc.value_ci
    assert low <= exact.value <= high
    assert mc.describe_a() == "divert=always" and mc.describe_b() == "divert=never"
    assert high - low <= 2 * 0.01 + 2 * max(mc.gap)


def test_monte_carlo_agrees_with_the_exact_game_pool():
    kw = {"rules": {"randomiser": "1d6", "max_rounds": 6}}
    exact = bestplay.best_play("pool", "duellist", "guard", **kw)
    attacks = balance.exact("pool", "duellist", "guard", **kw).details["game_value"]
    assert exact.method == "exact" and exact.value == pytest.approx(
        balance.get("pool").exact_best_play(balance.get("pool").rules(**kw["rules"]),
                                            balance.get("pool").side("duellist"),
                                            balance.get("pool").side("guard")).details["value"])
    assert exact.value > exact.default_value + 0.1  # bidding well is worth a lot here
    # best play over the states chooses the turns too (full defence moves it); with every
    # turn an attack (the fighters' own turns here) the solver chooses the bids only:
    # Monte Carlo over the bidding policies
    assert exact.value != pytest.approx(attacks, abs=1e-6)
    mc = bestplay.best_play("pool", "duellist", "guard", method="simulate", seed=2,
                            search={"pool_policy": None}, **kw)
    low, high = mc.value_ci  # seed fixed in advance (95% interval)
    assert low <= attacks <= high
    # the solver's equilibrium is one of the profiles, so the profile game's value is the
    # game's: pool_policy=equilibrium is the best reply on at least one side
    assert "equilibrium" in mc.describe_a() + mc.describe_b()


def test_exact_best_play_of_pool_is_the_solved_game():
    answer = balance.get("pool").exact_best_play(
        balance.get("pool").rules(max_rounds=8), (balance.get("pool").presets["duellist"],),
        (balance.get("pool").presets["brute"],), draw_worth=0.25)
    assert answer.details["value"] == pytest.approx(answer.a_win + 0.25 * answer.draw)
    assert "given" in answer.details and answer.strategy is not None


# --- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("options, match", [
    ({"draw_worth": 2}, "draw_worth must be a number in 0..1"),
    ({"method": "guess"}, "method must be one of exact, simulate"),
    ({"space": "moves"}, "space must be one of states, profiles"),
    ({"space": "states", "method": "simulate"}, "space 'states'"),
    ({"precision": 0.7}, "precision must be a half-width"),
    ({"n": 0}, "n must be a whole number >= 1"),
])
def test_bad_options(options, match):
    with pytest.raises(SpecError, match=match):
        bestplay.best_play("crt", "novice", "expert", **options)


def test_no_exact_best_play_says_why():
    with pytest.raises(IntractableError, match=r"no exact best play here.*Monte Carlo"):
        balance.exact("strike-rank", "gladiator", "skirmisher", play="best")
    with pytest.raises(SpecError, match="play must be one of default, best"):
        balance.duel("crt", "novice", "expert", play="better")


# --- the command line ---------------------------------------------------------------------------


def test_cli_duel_best_json(cli):
    status, out, _ = cli("duel", "crt", "--a", "novice", "--b", "expert", "--rule",
                         "extraordinary=false", "--rule", "max_rounds=5", "--play", "best",
                         "--draw-worth", "1", "-n", "2000", "--seed", "4", "--json")
    assert status == 0
    data = json.loads(out)
    for key in ("value", "value_ci", "policy_a", "policy_b", "profiles_evaluated",
                "assumptions", "policies", "default_value", "n_per_pair", "fights"):
        assert key in data
    assert data["play"] == "best" and data["method"] == "simulate" and data["n_per_pair"] == 2000
    assert data["policy_a"][0]["policy"].startswith("divert=")
    assert any(p.startswith("best play A: ") for p in data["policies"])


def test_cli_exact_best_text(cli):
    status, out, _ = cli("exact", "crt", "--a", "novice", "--b", "expert", "--rule",
                         "extraordinary=false", "--rule", "max_rounds=5", "--play", "best",
                         "--draw-worth", "1")
    assert status == 0
    # crt's own solver decides state by state; diverting every exchange is as good
    for text in ("best play, exact, decisions taken state by state", "value   0.2072",
                 "with the policies as given: 0.1467", "rests on", "policies: "):
        assert text in out


@pytest.mark.parametrize("argv", [
    ("duel", "crt", "--a", "novice", "--b", "expert", "--play", "best", "--draw-worth", "2"),
    ("exact", "strike-rank", "--a", "gladiator", "--b", "skirmisher", "--play", "best"),
    ("duel", "crt", "--a", "novice", "--b", "expert", "--play", "sometimes"),
    ("matchups", "crt", "--entrants", "novice,expert", "--play", "best", "--method", "exact",
     "--rule", "extraordinary=true"),
])
def test_cli_bad_input_is_one_line(cli, argv):
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert err.startswith("balance: error: ") and err.count("\n") == 1


# --- round robins -------------------------------------------------------------------------------


def test_best_round_robin_exact_and_verdicts():
    rr = analysis.round_robin("pool", ["duellist", "brute", "scholar"], rules={"max_rounds": 8},
                              play="best")
    assert rr.attrs["play"] == "best" and rr.attrs["method"] == "exact"
    assert (rr["n"] == 0).all() and (rr["value_low"] == rr["value_high"]).all()
    for column in ("value", "policy_a", "policy_b", "default_value", "policies", "searched"):
        assert column in rr
    given = bestplay.as_given(rr)
    row = given[(given["a"] == "duellist") & (given["b"] == "brute")].iloc[0]
    plain = balance.exact("pool", "duellist", "brute", rules={"max_rounds": 8,
                                                               "exact_play": "policies"})
    assert row["a_win"] == pytest.approx(plain.a_win)
    frame, sentences = bestplay.compare_verdicts(given, rr, resamples=10)
    assert set(frame.columns) >= {"rank", "rank_best", "dominated", "dominated_best",
                                  "metagame", "metagame_best"}
    assert sentences[0].startswith("Strongest: ")


def test_best_round_robin_is_the_same_in_workers():
    kw = {"rules": {"range_rounds": 0}, "play": "best", "n": 2_000, "seed": 9,
          "search": {"attack_policy": None}}
    serial = analysis.round_robin("strike-rank", ["gladiator", "skirmisher"], **kw)
    parallel = analysis.round_robin("strike-rank", ["gladiator", "skirmisher"], workers=2, **kw)
    timings = ["elapsed_s", "cpu_s"]
    pd.testing.assert_frame_equal(serial.drop(columns=timings), parallel.drop(columns=timings))
    for row in serial.itertuples():
        assert row.policy_a.startswith("attack_policy=") and row.value_low <= row.value
        assert row.a_wins + row.b_wins + row.draws == row.n == 2_000


def test_best_pairs_in_lockstep_are_each_pair_alone(monkeypatch):
    """A best-play round robin runs its pairs' Monte Carlo in lockstep, their fights in
    shared kernel calls: every row is the pair's own, solved alone, on any executor."""
    from balance.analysis import matchups
    from balance.rulesets import portable

    kw = {"rules": {"range_rounds": 0}, "play": "best", "precision": 0.05, "seed": 3,
          "search": {"attack_policy": None, "defence_policy": None}}
    names = ["gladiator", "skirmisher", "knight"]
    timings = ["elapsed_s", "cpu_s"]
    monkeypatch.setattr(matchups, "TOGETHER", 4)  # 9 pairs: three tasks, two processes
    together = analysis.round_robin("strike-rank", names, **kw)
    parallel = analysis.round_robin("strike-rank", names, workers=2, **kw)
    pd.testing.assert_frame_equal(together.drop(columns=timings),
                                  parallel.drop(columns=timings))
    rs = balance.get("strike-rank")
    rules = rs.rules(kw["rules"])
    options = {"method": "simulate", "draw_worth": 0.5, "search": kw["search"],
               "precision": 0.05, "n": None, "entropy": 3, "seed": 3, "chunk_size": 1_000}
    for row in together.to_dict("records"):
        alone = matchups._best_pair(*portable(rs), row["a"], row["b"], rules,
                                    rs.side(row["a"]), rs.side(row["b"]), options)
        assert {k: v for k, v in alone.items() if k not in timings} == \
            {k: v for k, v in row.items() if k not in timings}, (row["a"], row["b"])
    assert (together["cpu_s"] > 0).all()
    assert list(zip(together["a"], together["b"], strict=True)) == [
        (a, b) for a in names for b in names]  # the table in pair order, whatever the tasks


def test_a_pair_and_its_swapped_seating_share_a_task():
    from balance.analysis.matchups import _seatings

    names = ["a", "b", "c"]
    tasks = [("ruleset", False, x, y) for x in names for y in names]
    order = _seatings(tasks)
    assert sorted(order) == list(range(9))
    seated = [tasks[i][2:4] for i in order]
    assert seated == [("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b"),
                      ("a", "a"), ("b", "b"), ("c", "c")]
    from balance.analysis import matchups

    assert matchups.TOGETHER % 2 == 0  # so a task of that size never splits a pair from its swap


def test_together_keeps_each_computations_answer_and_error(monkeypatch):
    """together(): a computation that raises a SpecError gets it as its answer; a batch
    the kernel refuses together is run request by request, as each alone would be."""
    from balance.batching import Segment

    rs = balance.get("crt")
    fighters = (rs.presets["novice"],), (rs.presets["veteran"],)

    def asks(key, fail=False):
        found = yield (7, [Segment(rs.Rules(), *fighters, 50, (key,), 0)])
        if fail:
            raise balance.SpecError(f"{key} refused")
        return [int(w) for w in found[0].winner]

    alone = bestplay.run_steps(rs, asks("x"))
    real = bestplay._fights
    calls = []

    def picky(ruleset, entropy, segments):
        calls.append(len(segments))
        return None if len(segments) > 1 else real(ruleset, entropy, segments)

    monkeypatch.setattr(bestplay, "_fights", picky)
    found = bestplay.together(rs, [asks("x"), asks("y", fail=True)])
    assert calls == [2, 1, 1]  # refused together, then each alone
    assert found[0][0] == alone
    assert isinstance(found[1][0], balance.SpecError) and "y refused" in str(found[1][0])


def test_cli_matchups_best_json(cli):
    status, out, _ = cli("matchups", "pool", "--entrants", "duellist,brute", "--rule",
                         "max_rounds=8", "--play", "best", "--resamples", "10", "--workers",
                         "1", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["play"] == "best" and data["method"] == "exact"
    assert {"value", "policy_a", "policy_b"} <= set(data["matchups"][0])
    assert data["verdict_changes"] and data["assumptions"]
    assert any(" v " in p and "A plays" in p for p in data["policies"])
    # the verdict, as the report states it: best play's, then what it changes (exact here)
    assert data["verdict"][0].startswith("Under best play (each side's policies chosen")
    assert data["verdict"][-2].startswith(("Against the policies as given (the same fights), "
                                           "under best play ", "Best play changes none"))
    assert data["verdict"][-1].startswith("It rests on ")
    status, out, _ = cli("matchups", "pool", "--entrants", "duellist,brute", "--rule",
                         "max_rounds=8", "--play", "best", "--resamples", "10", "--workers", "1")
    lines = out.splitlines()
    assert status == 0 and lines[3] == "Verdict:"  # after the two header lines, first
    bullet = [lines[4], *itertools.takewhile(lambda line: line.startswith("    "), lines[5:])]
    assert " ".join(line.strip() for line in bullet) == "- " + data["verdict"][0]  # wrapped


def test_cli_matchups_discloses_policies(cli):
    status, out, _ = cli("matchups", "crt", "--entrants", "novice,expert", "-n", "500",
                         "--resamples", "5")
    assert status == 0 and "policies: divert=never" in out
    status, out, _ = cli("matchups", "crt", "--entrants", "novice,expert", "-n", "500",
                         "--resamples", "5", "--json")
    data = json.loads(out)
    assert data["policies"][0] == "divert=never"  # then es11=damage (the tables are on)
    assert all(row["policies"] == "; ".join(data["policies"]) for row in data["matchups"])


def test_verdict_changes_speak_in_percent() -> None:
    """"What best play changes" keeps the report's percentages: a pairing that changes
    favourite reads 41.7% -> 69.7%, not 0.417 -> 0.697."""
    import pandas as pd

    from balance.analysis.bestplay import VerdictChanges

    frame = pd.DataFrame({"rank": [1, 2], "rank_best": [1, 2]}, index=["x", "y"])
    changes = VerdictChanges(frame, "x", "x", {}, [], {"given": [], "best": [], "both": []},
                             [], ["x"], ["x"], flips=[("y", "x", 0.417, 0.697)],
                             near=[("x", "y", 0.503, 0.497)])
    text = " ".join(changes.sentences())
    assert "y v x: 41.7% -> 69.7%" in text and "x v y: 50.3% -> 49.7%" in text
    assert "crosses 50%" in text and "0.4" not in text


def test_the_exact_profile_game_leaves_a_rulesets_skipped_policies_as_given():
    # pool's state game chooses turns state by state; where it does not reach (a group
    # past its state limit) the exact profile game would pay one exact solve per
    # turn_policy profile, so it leaves turn_policy as given unless a search names it
    pool = balance.get("pool")
    assert pool.exact_profiles_skip == ("turn_policy",)
    rules = pool.rules({"randomiser": "none", "max_rounds": 2})
    a, b = (pool.combatant("average"),), (pool.combatant("average"),)
    answer = bestplay._exact_profiles(pool, rules, a, b, 0.5, None)
    assert "turn_policy" not in answer.searched and "pool_policy" in answer.searched
    assert answer.details["left as given"].startswith("turn_policy")
    named = bestplay._exact_profiles(pool, rules, a, b, 0.5,
                                     {"turn_policy": None, "pool_policy": None})
    assert "turn_policy" in named.searched and "left as given" not in named.details
