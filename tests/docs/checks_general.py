"""Checks of README.md, experiments/README.md and the general docs (experiments, explore,
rulesets, your own ruleset), and the allowlist of figures that are not results in any
document."""

from __future__ import annotations

import importlib.util
import inspect
import tomllib
from collections.abc import Callable
from typing import Any

from .experiments import cell, experiment
from .figures import ROOT, Claims, allow, check, document


def speed_table() -> Any:
    """``benchmarks/speed_table.py`` as a module."""
    spec = importlib.util.spec_from_file_location("speed_table",
                                                  ROOT / "benchmarks" / "speed_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def runs() -> list[dict[str, Any]]:
    return speed_table().load_runs()


# ---------------------------------------------------------------------------------------------
# Not results, in every document

allow("*", "the confidence level of an interval (Summary.confidence, 0.95 by default): a "
      "setting, not a result", pattern=r"\b95% (?:Wilson|interval|intervals|bootstrap|half-width)\b")
allow("*", "a section of a digest (000-003, one per seed document)",
      pattern=r"\b00[0-3](?:\.\d+)+")

# ---------------------------------------------------------------------------------------------
# README.md

README = "README.md"
allow(README, "measurements of test-suite runs (the CI log of record, `issues ci`, and a local "
      "full run), not results of the toolkit", "480 s for 3,154", "pytest 429 s",
      "486 s", "3,114 tests", "2026-12-07")


@check(README, "Each needs only Python 3.11+ and pip")
def python_version(c: Claims) -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    c.holds("3.11+", meta["project"]["requires-python"] == ">=3.11",
            meta["project"]["requires-python"])


@check(README, "vectorised NumPy kernels simulate millions of fights per second")
def millions_per_second(c: Claims) -> None:
    # a speed: the recorded `balance bench` runs the README's speed table shows
    table = speed_table()
    fastest = [max(row.get("kernel_fights_per_cpu_s") or 0 for row in run["bench"])
               for run in runs()]
    c.holds("millions", min(fastest) >= 2e6, f"fastest kernel {table.rate(fastest)} fights/s")


@check(README, 'balance.exact("crt", "duelist", "duelist", extraordinary=False)   # Markov '
               "chain, < 10 ms")
def crt_exact_under_10_ms(c: Claims) -> None:
    # the bench row 'exact plain duel' times this very call (duelist against duelist,
    # no tables): the README's speed table shows it
    table = speed_table()
    times = [table.bench_row(run, "crt", "exact plain duel")["cpu_s"] for run in runs()]
    c.holds("10 ms", max(times) < 0.010, f"recorded {table.ms(times)}")


@check(README, "Monte Carlo within about 0.3 s otherwise")
def explorer_budget_readme(c: Claims) -> None:
    from balance.explorer.compute import BUDGET_S
    c.exact("0.3 s", BUDGET_S)


def _speed_section() -> str:
    try:
        return speed_table().section(runs())
    except (OSError, KeyError, ValueError) as exc:  # the check fails, saying why
        return f"(benchmarks/records/speed.json cannot give the section: {exc!r})"


@check(README, _speed_section())
def speed_table_is_the_records(c: Claims) -> None:
    # The speed table is generated from recorded benchmark runs (benchmarks/speed_table.py),
    # never typed: the README's section must be what the records give, and the records must
    # time the bench cases the rulesets still declare (a renamed case needs a new record).
    import balance

    table = speed_table()
    text = (ROOT / README).read_text(encoding="utf-8")
    start, end = table.readme_section(text)
    generated = table.section(runs())
    declared = {(name, case.name) for name in ("crt", "strike-rank", "zones", "pool")
                for case in balance.get(name).bench_cases()}
    declared |= {(name, case) for name in ("crt", "strike-rank", "zones", "pool")
                 for case in balance.get(name).bench_extra_cases()}
    missing = set(table.bench_cases()) - declared
    c.holds(generated, text[start:end] == generated and not missing,
            "README.md's speed section differs from `python benchmarks/speed_table.py`'s"
            if not missing else f"bench cases no longer declared: {sorted(missing)}")


# ---------------------------------------------------------------------------------------------
# experiments/README.md (the pool questions; each figure is a cell of the named experiment)

EXPERIMENTS = "experiments/README.md"
allow(EXPERIMENTS, "a policy of the experiment's fighters (two Strikes and a Defend), not a "
      "result", "a fighter who Strikes twice and Defends")


@check(EXPERIMENTS, "Decisive in an even fight (0% -> 100% over the scale, a step per pool "
                    "point)", slow=True)
def intellect_even_fight(c: Claims) -> None:
    table = experiment("pool-intellect", {"a.0.coordination": [4],
                                          "rules.exact_play": ["equilibrium"]})
    by_intellect = table.set_index("a.0.intellect")["a_win"]
    c.exact("0% -> 100%", by_intellect.iloc[0], by_intellect.iloc[-1])
    # a step per pool point: Intellect i and i + 1 that give the same pool (Co + Int) // 2
    # give the same answer
    same_pool = [by_intellect[i] == by_intellect[i + 1] for i in by_intellect.index[:-1]
                 if (4 + i) // 2 == (4 + i + 1) // 2]
    c.holds("a step per pool point", all(same_pool) and by_intellect.is_monotonic_increasing,
            str(by_intellect.round(4).to_dict()))


@check(EXPERIMENTS, "(at Co 3 it buys stalemates, not wins: 1% wins and 16% draws at "
                    "Intellect 9-10)", given=["Co 3", "9-10"])
def intellect_across_a_gap(c: Claims) -> None:
    table = experiment("pool-intellect", {"a.0.coordination": [3], "a.0.intellect": [9, 10],
                                          "rules.exact_play": ["equilibrium"]})
    for intellect in (9, 10):
        row = cell(table, a_0_intellect=intellect)
        c.exact("1% wins and 16% draws", row.a_win, row.draw)


@check(EXPERIMENTS, "As written Status only costs initiative (acting second: 28.8% -> 22.0%)", slow=True)
def status_costs_initiative(c: Claims) -> None:
    table = experiment("pool-status", {"rules.status_in_checks": [0]})
    first = cell(table, a_0_status=0)
    c.exact("28.8%", first.a_win)
    for status in range(1, 6):
        c.exact("22.0%", cell(table, a_0_status=status).a_win)


@check(EXPERIMENTS, "at the threshold (defence = attack) any armour turns a 59% loss into a "
                    "certain stalemate", slow=True)
def armour_at_the_threshold(c: Claims) -> None:
    # the duellist attacks at 11 (Co 9 + Combat 2); the average fighter defends at Fort + 2
    table = experiment("pool-armour-vs-fortitude", {"a.0.fortitude": [9]})
    c.exact("59%", cell(table, a_0_armour="none").b_win)
    stalemates = [cell(table, a_0_armour=armour).draw for armour in ("light", "medium", "heavy")]
    c.holds("certain stalemate", all(d == 1.0 for d in stalemates), str(stalemates))


# ---------------------------------------------------------------------------------------------
# docs/explore.md

EXPLORE = "docs/explore.md"


@check(EXPLORE, "chunks of 16,384 fights for about 0.3 s, then more while nothing changes, "
                "until every rate is known to ±0.2 points or 20 s have passed")
def explorer_settings(c: Claims) -> None:
    from balance.explorer import panel
    from balance.explorer.compute import BUDGET_S, CHUNK

    defaults = inspect.signature(panel.Explorer.__init__).parameters
    c.holds("16,384", CHUNK == 16_384, str(CHUNK))
    c.exact("0.3 s", BUDGET_S)
    c.exact("0.2 points", defaults["precision"].default, scale=100)
    c.exact("20 s", defaults["refine_s"].default)


def _recorded(make: Callable[[dict[str, str]], str], figures: str) -> str:
    """A sentence quoting recorded measurements (``figures`` names a function of
    benchmarks/speed_table.py): the document must say exactly this, so re-recording the
    benchmarks tells which sentences to update."""
    try:
        return make(getattr(speed_table(), figures)(runs()))
    except (OSError, KeyError, ValueError) as exc:  # the check fails, saying why
        return f"(benchmarks/records/speed.json cannot give the figures: {exc!r})"


def _explore_sentence(f: dict[str, str]) -> str:
    return (f"a control change to an exact answer in {f['crt']} (crt) to {f['zones']} (zones); "
            f"to a Monte Carlo answer at ±1 point in {f['monte carlo']} across the rulesets "
            "(targets 0.3 s and 1 s")


@check(EXPLORE, _recorded(_explore_sentence, "explore_figures"), given=["±1 point"])
def explorer_speed(c: Claims) -> None:
    # measurements: the explore_bench runs recorded for the README's speed table
    sentence = _explore_sentence(speed_table().explore_figures(runs()))
    c.holds(sentence, bool(document(EXPLORE).find_all(sentence)), "not what the records give")
    targets = {row["target_s"] for run in runs() for row in run["explore"]}
    c.holds("0.3 s and 1 s", targets == {0.3, 1.0}, str(targets))


# ---------------------------------------------------------------------------------------------
# docs/experiments.md

EXPERIMENTS_DOC = "docs/experiments.md"
allow(EXPERIMENTS_DOC, "a spec key's default in a TOML comment, not a result",
      "# draw_worth = 0.5")


def _chunk_sentence(f: dict[str, str]) -> str:
    return (f"a crt kernel call costs a fixed {f['call']} of CPU for its round loop (a call of "
            "100 fights), so small chunks (precision targeting with `chunk_size` of 10 000) run "
            f"{f['slower']} times slower than one chunk of 100 000")


@check(EXPERIMENTS_DOC, _recorded(_chunk_sentence, "chunk_figures"))
def small_chunks(c: Claims) -> None:
    # measurements recorded with the README's speed table (speed_table.chunk_cost)
    sentence = _chunk_sentence(speed_table().chunk_figures(runs()))
    c.holds(sentence, bool(document(EXPERIMENTS_DOC).find_all(sentence)),
            "not what the records give")


# ---------------------------------------------------------------------------------------------
# The notebooks' Markdown cells (their "Reading it" cells format and assert their own
# figures: tests/test_notebooks.py runs them)

allow("notebooks/crt-novice-vs-veteran.py", "a word of the prose, not a figure",
      "puts numbers on both halves of that sentence")
allow("notebooks/zones-skirmish.py", "what a 95% interval means (19 times in 20), not a "
      "result", "inside its interval about 95 times in 100")
allow("notebooks/strike-rank-styles.py", "a section of seed 000 (armour, 5.11)", "(5.11")


@check("notebooks/explorer.py", "Monte Carlo within about 0.3 s otherwise")
def explorer_budget_notebook(c: Claims) -> None:
    from balance.explorer.compute import BUDGET_S
    c.exact("0.3 s", BUDGET_S)


@check("notebooks/zones-skirmish.py", "it shows the interval of a rate near 100%")
def gate_is_a_rout(c: Claims) -> None:
    import balance

    gate = balance.get("zones").scenario("gate")
    # the notebook's N = 20_000 and SEED = 2
    s = balance.duel("zones", gate.side_a, gate.side_b, rules=gate.rules, n=20_000, seed=2)
    c.holds("100%", s.a_win >= 0.99, f"A wins {s.a_win:.4f}")


# ---------------------------------------------------------------------------------------------
# docs/experiments.md: the verdict's named thresholds and the executor's

allow(EXPERIMENTS_DOC, "the even line of an expected score (a draw counts 1/2): a definition, "
      "not a result", pattern=r"\b50%")


# Named constants the page quotes: (check name, quote, snippet, module, constant, scale)
CONSTANTS = (
    ("verdict_balanced_margin", "whether the field is balanced within `BALANCED_MARGIN` (5 "
     "points of expected score, overridable as `[verdict] margin`)", "5 points",
     "balance.analysis.verdict", "BALANCED_MARGIN", 100),
    ("verdict_dominated_sure", "in at least `DOMINATED_SURE` = 95% of bootstrap replicates",
     "95%", "balance.analysis.verdict", "DOMINATED_SURE", None),
    ("verdict_staircase_share", "(`STAIRCASE_SHARE` = 80% of its change in a fifth of the "
     "steps)", "80%", "balance.analysis.verdict", "STAIRCASE_SHARE", None),
    ("verdict_worth_margin", "(by `WORTH_MARGIN` = 2 points, interval included)", "2 points",
     "balance.analysis.verdict", "WORTH_MARGIN", 100),
    ("verdict_negligible_exchange", "lie below `NEGLIGIBLE_EXCHANGE` = 0.1 of a point", "0.1",
     "balance.analysis.verdict", "NEGLIGIBLE_EXCHANGE", None),
    ("verdict_listed", "A sentence lists at most `LISTED` = 6 items", "6",
     "balance.analysis.verdict", "LISTED", None),
    ("shape_roughly", "`ROUGHLY` = 25% of the mean step", "25%", "balance.analysis.shapes",
     "ROUGHLY", None),
    ("shape_cliff_share", "`CLIFF_SHARE` = 60% of the movement", "60%",
     "balance.analysis.shapes", "CLIFF_SHARE", None),
    ("shape_cliff_ratio", "`CLIFF_RATIO` = 2 times the next", "2 times", "balance.analysis.shapes",
     "CLIFF_RATIO", None),
    ("verdict_family_alpha", "the chance of any false claim at most 5%", "5%",
     "balance.analysis.verdict", "FAMILY_ALPHA", None),
    ("verdict_family_alpha_bh", "false claims at most 5% of the claims", "5%",
     "balance.analysis.verdict", "FAMILY_ALPHA", None),
    ("executor_small_work", "is estimated to take under `SMALL_WORK_S` = 2 s there", "2 s",
     "balance.experiments.runner", "SMALL_WORK_S", None),
    ("campaign_sure", "`SURE` = 90% or more to win", "90%", "balance.rulesets.crt.campaign",
     "SURE", None),
)


def _constant_check(name: str, snippet: str, module: str, constant: str,
                    scale: float | None) -> Callable[[Claims], None]:
    def verify(c: Claims) -> None:
        import importlib

        c.exact(snippet, getattr(importlib.import_module(module), constant), scale=scale)
    verify.__name__ = name
    return verify


for _name, _quote, *_how in CONSTANTS:
    check(EXPERIMENTS_DOC, _quote)(_constant_check(_name, *_how))


# ---------------------------------------------------------------------------------------------
# README.md: the flagship reports' verdicts

def _verdict_text(name: str) -> str:
    from balance.report.build import run_verdict

    from .experiments import experiment, meta
    made = run_verdict(experiment(name), meta(name))
    return " ".join(" ".join(s.text for s in made.sentences).split())


def _fragments(c: Claims, quoted: str, name: str) -> None:
    # The sentences are made from the seeded run: each quoted fragment (joined by "...")
    # must be the report's own words, its numbers those of the sentence within the
    # Monte Carlo agreement of the sentence's own interval (so a new random stream for
    # the same rules passes, as for any Monte Carlo figure).
    import re

    from .figures import MC_AGREEMENT, NUMBER, numbers
    text = _verdict_text(name)
    for fragment in quoted.split(" ... "):
        fragment = " ".join(fragment.split())
        parts = re.split(NUMBER, fragment)
        regex = "(" + NUMBER + ")"
        found = re.search(regex.join(re.escape(p) for p in parts), text)
        c.holds(fragment, found is not None, f"the verdict reads: {text}")
        assert found is not None
        said = numbers(found.group(0))
        interval = re.search(r"\[(" + NUMBER + "), (" + NUMBER + r")\]", found.group(0))
        width = (float(interval.group(2)) - float(interval.group(1))) / 2 if interval else 0.0
        for (q, half), (v, _) in zip(numbers(fragment), said, strict=True):
            c.holds(fragment, abs(q - v) <= MC_AGREEMENT * width + half + 1e-9,
                    f"{q:g} is quoted, the verdict says {v:g}: {text}")


@check(README, "*\"One point of skill level is worth 7.0 [6.7, 7.2] points of combats survived "
               "... A's win rate is a staircase in combats survived, not a rate\"* (crt)",
       slow=True)
def verdict_crt(c: Claims) -> None:
    _fragments(c, "One point of skill level is worth 7.0 [6.7, 7.2] points of combats survived "
                  "... A's win rate is a staircase in combats survived, not a rate",
               "crt-skill-vs-experience")


@check(README, "*\"The knight is dominant: it beats every other entrant, scoring at least 78.0% "
               "[77.7, 78.2] (against the gladiator)\"* (strike-rank)", slow=True)
def verdict_strike_rank(c: Claims) -> None:
    _fragments(c, "The knight is dominant: it beats every other entrant, scoring at least "
                  "78.0% [77.7, 78.2] (against the gladiator)", "strike-rank-style-duels")


@check(README, "*\"Strike / Strike / Strike is worse than the default: A wins 36.2% [35.9, 36.5] "
               "... it beats the default by more than 2 points only where Multiple Attack "
               "Penalty = 0, 0, 0\"* (zones)", slow=True)
def verdict_zones(c: Claims) -> None:
    _fragments(c, "Strike / Strike / Strike is worse than the default: A wins 36.2% [35.9, "
                  "36.5] ... it beats the default by more than 2 points only where Multiple "
                  "Attack Penalty = 0, 0, 0", "zones-third-attack")


# ---------------------------------------------------------------------------------------------
# docs/explore.md: opening the page, best play (issue 25)

def explore_bench() -> Any:
    """``benchmarks/explore_bench.py`` as a module."""
    spec = importlib.util.spec_from_file_location("explore_bench",
                                                  ROOT / "benchmarks" / "explore_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@check(EXPLORE, "target under 3 s on an idle machine")
def explorer_page_target(c: Claims) -> None:
    c.exact("3 s", explore_bench().TARGET_PAGE_S)


@check(EXPLORE, "else Monte Carlo to ±1 point of expected score on the panel's seed")
def explorer_best_play_precision(c: Claims) -> None:
    from balance.explorer.play import BEST_PRECISION

    c.exact("1 point", BEST_PRECISION, scale=100)
