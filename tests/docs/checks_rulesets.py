"""The ruleset pages (docs/crt.md, docs/strike-rank.md, docs/zones.md, docs/pool.md) and the
other pages with test modules of their own: what those modules check, what is checked here,
and what is not a result."""

from __future__ import annotations

from .figures import Claims, allow, check, external

# ---------------------------------------------------------------------------------------------
# docs/crt.md: tests/crt/test_docs.py reproduces its figures (each test quotes the page)

CRT = "docs/crt.md"
external(CRT, "tests/crt/test_docs.py", "each test runs the quoted command or call and "
         "compares the quoted digits")
allow(CRT, "the matchup's inputs (a score lead, a round cap, a health gap), not results",
      "a fighter 3 points ahead", "a cap of 3 rounds, a fighter 13 points behind")
allow(CRT, "a rule reading (the lone foe struck twice), not a result",
      "strikes the lone foe twice")
allow(CRT, "the rule that makes a skill level worth 7 combats (abilities 7): tested by "
      "tests/crt/test_docs.py::test_a_skill_level_is_seven_combats",
      "exactly what 7 combats survived add")


@check(CRT, "its value is the never-divert duel's (at equal scores A wins 48.33%, B 48.33%, "
            "draw 3.34%)")
def crt_never_divert_duel(c: Claims) -> None:
    # tests/crt/test_bestplay.py checks that best play never diverts; the figures are the
    # plain duel's, which never diverts
    p = c.run("balance exact crt", "--a duelist --b duelist --rule extraordinary=false")
    c.exact("A wins 48.33%, B 48.33%, draw 3.34%", p["a_win"], p["b_win"], p["draw"])


@check(CRT, "with the default round cap, best play never diverts")
def crt_default_cap(c: Claims) -> None:
    import balance

    c.holds("the default round cap", balance.get("crt").rules().max_rounds == 200,
            "the gain below is measured at 200")


@check(CRT, "a novice against an expert (19 points behind) with a cap of 5 rounds diverts, "
            "and best play raises his expected score from 10.27% to 12.09%, a gain of 1.82 "
            "points")
def crt_diversion_pays_near_the_cap(c: Claims) -> None:
    # the page's claim before issue 20 ("only when a draw is worth as much as a win") was
    # false: at the default draw worth of 1/2, a 5-round cap makes the underdog divert
    cmd = "balance exact crt --a novice --b expert --rule extraordinary=false"
    given = c.run(cmd, "--rule max_rounds=5")
    best = c.run(cmd, "--rule max_rounds=5 --play best")
    c.exact("19 points", -best["details"]["advantage"], scale=1.0)
    c.exact("a cap of 5 rounds", best["details"]["rounds_solved"], scale=1.0)
    c.exact("from 10.27% to 12.09%", given["a_win"] + 0.5 * given["draw"], best["value"])
    c.exact("a gain of 1.82 points", 100 * (best["value"] - given["a_win"] - 0.5 * given["draw"]),
            scale=1.0)
    # the only decision is diversion: were A never to divert, B's best reply could only
    # hold A to the never-divert value or below, so a higher value means A diverts
    c.holds("diverts", best["value"] > given["a_win"] + 0.5 * given["draw"] + 1e-9,
            "best play's value exceeds the never-divert duel's")


@check(CRT, "with a cap of 8 rounds the gain is 0.04 points, and with the default cap nothing")
def crt_diversion_gain_fades(c: Claims) -> None:
    cmd = "balance exact crt --a novice --b expert --rule extraordinary=false"
    gains = []
    for cap in ("--rule max_rounds=8", ""):
        given, best = c.run(cmd, cap), c.run(cmd, f"{cap} --play best".strip())
        gains.append(100 * (best["value"] - given["a_win"] - 0.5 * given["draw"]))
    c.exact("a cap of 8 rounds the gain is 0.04 points", 8, gains[0], scale=1.0)
    c.holds("nothing", abs(gains[1]) < 1e-9, f"{gains[1]:.2g} points at the default cap")


@check(CRT, "the tables more than double the underdog's chances")
def crt_tables_double_the_underdog(c: Claims) -> None:
    plain = c.run("balance exact crt --a novice --b veteran --rule extraordinary=false")
    tables = c.run("balance duel crt --a novice --b veteran -n 200000 --seed 1")
    c.holds("double", tables["a_win_ci"][0] > 2 * plain["a_win"],
            f"{tables['a_win']:.4f} with the tables against {plain['a_win']:.4f} without")


# ---------------------------------------------------------------------------------------------
# docs/tune.md: tests/core/test_tune.py runs every command the page shows and compares its
# output, checks every rate its prose quotes is one a command printed, and checks the
# page's constants against the code

TUNE = "docs/tune.md"
external(TUNE, "tests/core/test_tune.py", "runs each command shown and checks the prose's "
         "figures against the outputs and the code", printed=True)
allow(TUNE, "options and their defaults, targets and margins a designer chooses, not results "
      "(tests/core/test_tune.py checks the defaults against the code)",
      "`--draw-worth 0.5` | what a draw scores (default 0.5",
      "`--target 0.5` | the value to reach (0.5 with", "default 0.25 for whole numbers, 1% of the "
      "range for reals", "A's win rate down to 40%", "within the margin of 50%",
      "the scores always average 50%", "the furthest from 50% first, moving each to the value "
      "nearest 50%", "brings the field within 2%", "target = 0.5", "precision = 0.25",
      "draw_worth = 0.5")
allow(TUNE, "what a 95% interval is (the confidence level), not a result",
      "holds the target with probability 95%", "the 95% normal interval")
allow(TUNE, "the tuning benchmark's table: CPU seconds and the load measured by "
      "benchmarks/tune_bench.py (a measurement with its conditions, not a result)",
      pattern=r"load average about \d+|(?<=\| )[\d.]+ \| [\d.]+ \|(?: \d+)? \| [\d,]+ "
              r"(?:solves|fights) \||precision 0\.\d+ \|")
allow(TUNE, "scores worked out from the presets (38 - 7 = 31; tests/core/test_tune.py checks "
      "combat_score), and the whole value below it: inputs, not results",
      "so 31 combats make the scores equal", "while at 30 combats the novice")


# ---------------------------------------------------------------------------------------------
# docs/best-play.md

BEST = "docs/best-play.md"
allow("*", "the name of an algorithm (the double oracle), not a figure",
      pattern=r"\b[Dd]ouble oracle\b")
allow(BEST, "settings of the Monte Carlo search (tests/core/test_bestplay.py exercises them), "
      "not results", "more than twice its standard error", "`precision` (default 0.01, one "
      "point of expected score)", "each to +/- 0.01")


@check(BEST, "an entrant dominated in at least 90% of bootstrap replicates under one play and "
             "at most 10% under the other")
def best_play_dominance_threshold(c: Claims) -> None:
    from balance.analysis import bestplay

    c.exact("90%", bestplay.SURE)
    c.exact("10%", 1 - bestplay.SURE)


@check(BEST, "In crt's plain duel of a novice against an expert with a five-round cap and a "
             "draw worth a win, the novice diverts every exchange: A's value is 0.2072 (all of "
             "it draws) against 0.1467 with the policies as given.")
def best_play_exact_profiles(c: Claims) -> None:
    import balance

    got = balance.best_play("crt", "novice", "expert", rules={"extraordinary": False,
                                                              "max_rounds": 5},
                            draw_worth=1.0, method="exact", space="profiles")
    c.exact("0.2072", got.value)
    c.holds("all of it draws", got.a_win == 0 and abs(got.draw - got.value) < 1e-12,
            f"A wins {got.a_win}, draws {got.draw}")
    c.exact("0.1467", got.default_value)
    c.holds("the novice diverts every exchange",
            tuple(got.policy_a) == (("divert=always", 1.0),),
            str(got.policy_a))
