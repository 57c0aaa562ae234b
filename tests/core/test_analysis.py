"""Fairness analyses against games with known answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import balance
from balance import analysis, stats
from balance.cli import main
from balance.errors import SpecError


def synthetic_table(theta, n=20_000, seed=0, draw=0.0):
    """A round robin whose true Bradley-Terry strengths are ``theta``."""
    rng = np.random.default_rng(seed)
    names = [f"s{i}" for i in range(len(theta))]
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            p = 1 / (1 + np.exp(theta[j] - theta[i])) if i != j else 0.5
            probs = [(1 - draw) * p, (1 - draw) * (1 - p), draw]
            a_w, b_w, d = rng.multinomial(n, probs)
            rows.append({"a": a, "b": b, "n": n, "a_wins": a_w, "b_wins": b_w, "draws": d,
                         "a_win": a_w / n, "b_win": b_w / n, "draw": d / n})
    return pd.DataFrame(rows)


def test_bradley_terry_recovers_known_strengths():
    theta = np.array([0.8, 0.2, -0.3, -0.7])
    table = synthetic_table(theta)  # no draws: the score is the win probability itself
    r = analysis.ratings(table, prior=0)
    got = r.loc[[f"s{i}" for i in range(4)], "theta"].to_numpy()
    assert np.allclose(got, theta - theta.mean(), atol=0.03)
    inside = (r["theta_low"] <= r["theta"]) & (r["theta"] <= r["theta_high"])
    assert inside.all()
    # the true values lie inside the intervals (4 checks at 95%: fixed seed, set in advance)
    true = pd.Series(theta - theta.mean(), index=[f"s{i}" for i in range(4)])
    assert ((r["theta_low"] <= true[r.index]) & (true[r.index] <= r["theta_high"])).all()


def test_nash_of_rock_paper_scissors_is_uniform():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    x, v = stats.symmetric_nash(rps)
    assert np.allclose(x, 1 / 3, atol=1e-9) and abs(v) < 1e-9


def test_metagame_and_domination_on_a_known_game():
    # s0 beats everyone: the equilibrium is pure s0; s2 is dominated by s0.
    table = synthetic_table(np.array([1.5, 0.0, -1.0]), n=5000)
    meta = analysis.metagame(table, resamples=50)
    assert meta.index[0] == "s0" and meta.loc["s0", "weight"] == pytest.approx(1.0)
    assert meta.loc["s0", "in_support"] == 1.0
    dom = analysis.dominated(table, resamples=50)
    assert dom.loc["s2", "dominated"] and dom.loc["s2", "dominated_share"] == 1.0
    assert not dom.loc["s0", "dominated"]


def test_metagame_replicates_solved_together_are_each_replicates_linear_program():
    # a cyclic 5-entrant game (a mixed equilibrium); every bootstrap replicate's certified
    # batch answer is the mix the linear program finds for that replicate alone
    from balance.analysis.equilibria import _Replicates
    from balance.matrix_game import solve_batch

    rows = []
    for i in range(5):
        for j in range(5):
            if i != j:
                p = 0.5 + (0.2 if (j - i) % 5 in (1, 2) else -0.2) + 0.01 * (i - j)
                rows.append({"a": f"s{i}", "b": f"s{j}", "n": 400, "a_wins": round(400 * p),
                             "b_wins": 400 - round(400 * p), "draws": 0})
    replicates = _Replicates(pd.DataFrame(rows))
    rng = np.random.default_rng(5)
    games = np.stack([replicates.payoff(rng) for _ in range(100)])
    together = solve_batch(games, "sealed").attack
    alone = np.array([stats.symmetric_nash(g)[0] for g in games])
    assert np.abs(together - alone).max() < 1e-6
    assert (np.count_nonzero(alone > 0.01, axis=1) > 1).all()  # mixed: not only saddles


def test_domination_margin_rock_paper_scissors_none():
    rps = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], float)
    assert all(stats.domination_margin(rps, i) <= 1e-9 for i in range(3))


def test_marginal_value_of_a_linear_stat():
    rng = np.random.default_rng(3)
    xs = np.arange(5, 11)
    n = 40_000
    p = 0.3 + 0.05 * (xs - 5)
    k = rng.binomial(n, p)
    table = pd.DataFrame({"a.0.agility": xs, "n": n, "a_win": k / n})
    mv = analysis.marginal_value(table, "a.0.agility")
    assert len(mv) == 5
    assert mv["slope"].iloc[0] == pytest.approx(0.05, abs=3 * mv["slope_se"].iloc[0])
    assert ((mv["per_point_low"] < 0.05) & (mv["per_point_high"] > 0.05)).mean() >= 0.8


def test_marginal_value_of_a_saturated_curve():
    # A rate that climbs from 0% to 100%: cells stuck at 0 or 1 must not flatten the slope
    # (inverse-variance weights would make them infinitely heavy).  OLS: 4.25 / 17.5.
    xs = np.arange(6)
    table = pd.DataFrame({"x": xs, "n": 1000, "a_win": [0, 0, 0, 0.5, 1, 1]})
    mv = analysis.marginal_value(table, "x")
    assert mv["slope"].iloc[0] == pytest.approx(4.25 / 17.5)
    assert 0 < mv["slope_se"].iloc[0] < 0.01


def test_newcombe_covers_difference():
    low, high = stats.newcombe(60, 100, 40, 100)
    assert float(low) < 0.2 < float(high)
    assert float(low) > 0  # a clear difference


def test_round_robin_on_crt_is_reproducible_and_keyed():
    rr = analysis.round_robin("crt", ["novice", "expert", "veteran"], n=3000, seed=5)
    assert len(rr) == 9 and set(rr.columns) >= {"a", "b", "a_win", "a_win_low", "a_wins"}
    again = analysis.round_robin("crt", ["novice", "expert", "veteran", "master"], n=3000, seed=5)
    # adding an entrant never changes the numbers of existing pairs (stable keys)
    merged = rr.merge(again, on=["a", "b"], suffixes=("", "_2"))
    assert (merged["a_wins"] == merged["a_wins_2"]).all()
    r = analysis.ratings(again)
    assert next(iter(r.index)) == "master" and list(r.index)[-1] == "novice"
    seat = analysis.seat_advantage(again)
    assert (seat["advantage_low"] < 0).all() and (seat["advantage_high"] > 0).all()
    ups = analysis.upsets(again, r)
    assert (ups["upset"] <= 0.5).all()


def test_fight_lengths():
    import balance

    s = balance.duel("crt", "duelist", "duelist", n=5000, seed=1)
    fl = analysis.fight_lengths(s)
    assert fl["count"].sum() == 5000 and fl["cdf"].iloc[-1] == pytest.approx(1)


# --- exact tables (n = 0: probabilities, no counts) -------------------------------------

def exact_table(score, draw=0.0, seat=0.0):
    """A fake exact round robin: ``score[i][j]`` the chance i beats j (no draws unless
    ``draw``), seat A gaining ``seat`` in every pair; a text ``draws`` column as the pool
    solver writes one."""
    names = [f"s{i}" for i in range(len(score))]
    rows = []
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            p = 0.5 if i == j else score[i][j]
            a_win = (1 - draw) * p + seat if i == j else (1 - draw) * p
            b_win = 1 - draw - a_win
            rows.append({"a": a, "b": b, "n": 0, "a_win": a_win, "b_win": b_win, "draw": draw,
                         "a_win_low": a_win, "a_win_high": a_win, "method": "exact",
                         "draws": "stalemate 0.000000, max_rounds 0.000000"})
    return pd.DataFrame(rows)


THETA = np.array([0.9, 0.1, -0.2, -0.8])
LOGISTIC = 1 / (1 + np.exp(THETA[None, :] - THETA[:, None]))


def test_score_matrix_of_an_exact_table_ignores_a_text_draws_column():
    score, games = analysis.score_matrix(exact_table(LOGISTIC, draw=0.2))
    expected = 0.8 * LOGISTIC + 0.1
    np.fill_diagonal(expected, 0.5)
    assert np.allclose(score.to_numpy(), expected)
    assert (games.to_numpy() == 2).all()  # two seats, each one exact answer


def test_exact_ratings_recover_the_strengths_without_intervals():
    r = analysis.ratings(exact_table(LOGISTIC))
    assert r.attrs["exact"] and r.attrs["tiers"] == 1 and r.attrs["max_misfit"] < 1e-6
    got = r.loc[[f"s{i}" for i in range(4)], "theta"].to_numpy()
    assert np.allclose(got, THETA - THETA.mean(), atol=1e-6)  # exact: no sampling error
    assert (r["theta_low"] == r["theta"]).all() and (r["elo_high"] == r["elo"]).all()


def test_exact_ratings_in_tiers_when_an_entrant_never_scores():
    score = [[0.5, 0.7, 1.0], [0.3, 0.5, 1.0], [0.0, 0.0, 0.5]]
    r = analysis.ratings(exact_table(score))
    assert r.attrs["tiers"] == 2 and list(r.index) == ["s0", "s1", "s2"]
    assert list(r["tier"]) == [1, 1, 2] and np.isfinite(r["theta"]).all()
    assert r.loc["s2", "expected_score"] == 0.0
    ups = analysis.upsets(exact_table(score), r).set_index(["weaker", "stronger"])
    assert ups.loc[("s1", "s0"), "upset"] == pytest.approx(0.3)
    assert ups.loc[("s2", "s0"), "upset"] == 0.0 and ups["exact"].all()
    assert (ups["upset_low"] == ups["upset"]).all() and (ups["n"] == 0).all()


def test_exact_seat_advantage_is_exact():
    seat = analysis.seat_advantage(exact_table(LOGISTIC, seat=0.1))
    assert np.allclose(seat["advantage"], 0.2) and seat["exact"].all()
    assert (seat["advantage_low"] == seat["advantage"]).all()
    assert (seat["advantage_high"] == seat["advantage"]).all()
    assert np.isfinite(seat[["advantage_low", "advantage_high"]].to_numpy()).all()


def test_exact_metagame_and_dominance_need_no_resampling():
    score = [[0.5, 0.9, 1.0], [0.1, 0.5, 0.6], [0.0, 0.4, 0.5]]
    meta = analysis.metagame(exact_table(score), resamples=50)
    assert meta.attrs["resamples"] == 0 and meta.loc["s0", "weight"] == pytest.approx(1.0)
    assert (meta["weight_low"] == meta["weight"]).all()
    dom = analysis.dominated(exact_table(score), resamples=50)
    assert dom.loc["s2", "dominated"] and dom.loc["s2", "dominated_share"] == 1.0


POOL_RULES = {"max_rounds": 8}


def test_round_robin_on_pool_defaults_to_exact():
    rr = analysis.round_robin("pool", ["duellist", "brute"], rules=POOL_RULES)
    assert rr.attrs["method"] == "exact" and (rr["n"] == 0).all()
    one = balance.exact("pool", "duellist", "brute", rules=POOL_RULES)
    row = rr[(rr["a"] == "duellist") & (rr["b"] == "brute")].iloc[0]
    assert (row["a_win"], row["draw"]) == (one.a_win, one.draw)
    assert analysis.ratings(rr).attrs["exact"]
    sim = analysis.round_robin("pool", ["duellist", "brute"], rules=POOL_RULES, n=200,
                               method="simulate")
    assert sim.attrs["method"] == "simulate" and (sim["n"] == 200).all()
    assert analysis.round_robin("crt", ["novice", "expert"], n=100).attrs["method"] == "simulate"
    with pytest.raises(SpecError, match="method must be one of simulate, exact"):
        analysis.round_robin("pool", ["duellist", "brute"], method="guess")


def test_matchups_cli_exact_pool(capsys):
    args = ["matchups", "pool", "--entrants", "duellist,guard,brute", "--rule", "max_rounds=8"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("pool: round robin of 3 presets; method exact")
    for text in ("A wins / draws / B wins", "Mean fight length", "optimal strategy the solver",
                 "Seat advantage", "Bradley-Terry ratings fitted to the exact score matrix",
                 "Upsets", "Metagame equilibrium (exact", "Dominated"):
        assert text in out, text
    assert out.splitlines()[2] == "Verdict:"  # the answer comes first
    assert "Wilson" not in out
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "exact" and data["ratings_exact"] and data["caveat"]
    assert data["verdict"][0].startswith("The field is")
    assert {"seat_advantage", "upsets", "fight_lengths", "metagame", "dominated"} <= set(data)


@pytest.mark.slow  # ~9 CPU s
def test_matchups_cli_simulated(capsys):
    assert main(["matchups", "crt", "--entrants", "novice,expert", "-n", "300"]) == 0
    out = capsys.readouterr().out
    assert "method simulate: simulated, 300 fights per ordered pair" in out
    for text in ("Draw rate", "Fight length in rounds", "Seat advantage", "Upsets",
                 "95% Wilson"):
        assert text in out, text
    assert main(["matchups", "pool", "--entrants", "duellist,brute", "--rule", "max_rounds=8",
                 "--precision", "0.2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["method"] == "simulate" and data["precision"] == 0.2
    assert all(m["n"] > 0 and m["a_win_high"] - m["a_win_low"] <= 0.4
               for m in data["matchups"])


@pytest.mark.parametrize(("args", "message"), [
    (["-n", "100", "--method", "exact"], "-n: an exact round robin solves every pair"),
    (["--precision", "0.1", "--method", "exact"], "--precision: an exact round robin"),
    (["--precision", "0.7"], "expected a half-width in (0, 0.5)"),
    (["-n", "10", "--precision", "0.1"], "not allowed with argument"),
    (["--method", "guess"], "invalid choice: 'guess'"),
    (["--entrants", "duellist,nobody"], "nobody"),
])
def test_matchups_cli_bad_input(args, message, capsys):
    try:
        status = main(["matchups", "pool", *args])
    except SystemExit as stop:  # argparse's own errors
        status = stop.code
    assert status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("balance: error:")
    assert message in err


def test_dominated_by_mix_agrees_with_the_linear_program():
    """The shortcuts (best somewhere: not dominated; beaten everywhere by one row:
    dominated) give the linear program's answer; matrices built to hit each case."""
    from balance.stats import dominated_by_mix, domination_margin

    rng = np.random.default_rng(31)
    cases = 0
    for _ in range(300):
        k, m = rng.integers(2, 6), rng.integers(2, 6)
        payoff = rng.random((k, m))
        if rng.random() < 0.3:  # a row beaten everywhere by a mix of two others
            payoff[0] = 0.5 * (payoff[1] + payoff[-1]) - rng.random(m) * 0.05
        for row in range(k):
            assert dominated_by_mix(payoff, row) == (domination_margin(payoff, row) > 0)
            cases += 1
    assert cases > 600


def _replicate_through_the_table(table, rng):
    """A bootstrap replicate as the table itself resampled (each pair's counts redrawn
    from its rates, one multinomial a row) and read by score_matrix: the reference the
    array-based replicates must equal number for number."""
    out = table.copy()
    counts = table[["a_wins", "b_wins", "draws"]].to_numpy(float)
    n = counts.sum(axis=1)
    draws = np.array([rng.multinomial(int(k), c / k) for k, c in zip(n, counts, strict=True)])
    out[["a_wins", "b_wins", "draws"]] = draws
    score, _ = analysis.score_matrix(out)
    payoff = score.to_numpy(dtype=float, copy=True) - 0.5
    np.fill_diagonal(payoff, 0.0)
    return np.nan_to_num(payoff)


def test_bootstrap_replicates_are_the_resampled_tables_payoffs():
    from balance.analysis.equilibria import _Replicates

    table = synthetic_table([0.4, 0.0, -0.3, 0.1], n=700, seed=3, draw=0.1)
    made = _Replicates(table)
    mine, theirs = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(5):
        assert np.array_equal(made.payoff(mine), _replicate_through_the_table(table, theirs))
    # the metagame draws its replicates together: the same tables, in the same order
    mine, theirs = np.random.default_rng(10), np.random.default_rng(10)
    for game in made.payoffs(mine, 5):
        assert np.array_equal(game, _replicate_through_the_table(table, theirs))


def test_a_metagame_asked_twice_is_the_same_answer_and_not_shared():
    from balance.analysis import equilibria

    table = synthetic_table([0.4, 0.0, -0.3], n=900, seed=4)
    first = analysis.metagame(table, resamples=20, seed=2)
    expected = first.copy()
    first.loc[first.index[0], "weight"] = -1.0  # the caller's copy: the next is untouched
    pd.testing.assert_frame_equal(analysis.metagame(table, resamples=20, seed=2), expected)
    # remembered by the table's numbers and the arguments, nothing less
    edited = table.copy()
    edited.loc[0, "a_wins"] += 50
    edited.loc[0, "b_wins"] -= 50
    key = equilibria._remembered("metagame", table, 20, 2, 0.9)
    assert key == equilibria._remembered("metagame", table.copy(), 20, 2, 0.9)
    assert key != equilibria._remembered("metagame", edited, 20, 2, 0.9)
    assert key != equilibria._remembered("metagame", table, 20, 3, 0.9)
    assert key != equilibria._remembered("dominated", table, 20, 2, 0.9)


def test_bradley_terry_newton_finds_the_mm_iterations_maximum():
    # the fit solves by Newton's method where the likelihood has a finite maximum; Zermelo's
    # MM iteration, run to a tighter tolerance, reaches the same strengths
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(60):
        k = int(rng.integers(2, 8))
        s = rng.normal(0, rng.choice([0.3, 1.0, 3.0]), k)
        n = np.triu(rng.integers(0, 1500, (k, k)), 1)
        n = n + n.T
        w = rng.binomial(n, 1 / (1 + np.exp(s[None, :] - s[:, None]))).astype(float)
        np.fill_diagonal(w, 0)
        for prior in (0.5, 0.0):
            ww = w + prior * (1 - np.eye(k))
            if not stats._finite_maximum(ww):
                continue
            theta, _ = stats.bradley_terry(w, prior=prior)
            newton = stats._bt_newton(ww, ww + ww.T, 1e-12)  # settles: no MM fallback here
            assert newton is not None and np.array_equal(theta, newton)
            mm = stats._bt_mm(ww, ww + ww.T, 200_000, 1e-14)
            assert np.abs(theta - mm).max() < 1e-8
            checked += 1
    assert checked > 60


def test_bradley_terry_without_a_finite_maximum_keeps_the_mm_iteration():
    # s0 never loses and there is no prior: no finite maximum, s0 runs far ahead
    w = np.array([[0, 5, 7], [0, 0, 4], [0, 3, 0]], float)
    assert not stats._finite_maximum(w)
    theta, _ = stats.bradley_terry(w)
    assert theta[0] - max(theta[1:]) > 5
