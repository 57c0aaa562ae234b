"""The ``balance`` command line: parse, build objects, call the API, print.

Bad input (an unknown ruleset, field, preset or value, a value out of range, a malformed
spec or file, a damaged run folder, an output folder that cannot be made) prints one line
``balance: error: ...`` naming what was wrong and what is allowed, exits with status 2, and
writes nothing.  So does a run estimated to take over an hour or to need over half of this
machine's memory unless ``--yes`` is given: ``duel``, ``matchups`` (its fights and its
``--resamples``), ``tune`` (``-n`` of a round robin, ``--max-fights``), ``bench --memory-n``
and ``sweep`` are costed before any work (``balance.budget``: time from a short pilot's CPU
seconds, never the wall clock, so a loaded machine gives the same answer; memory from a
traced kernel call and what the command keeps), and the refusal names the flag, the estimate
and the cap.  ``--workers`` is 1..256 in every command (one validator).  Ctrl-C and
``SIGTERM`` stop a command the same way: one line, a sweep keeps its finished chunks and
marks its run interrupted, and the exit status is ``128 + signal`` (130 for Ctrl-C, 143 for
``SIGTERM``).  Bare ``balance`` lists the commands.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import _process, api, budget  # noqa: F401 (_process: before numpy first loads)
from .errors import Interrupted, SpecError
from .experiments import guard
from .random import STREAMS
from .rulesets import RULESETS, available, resolve
from .rulesets.base import Ruleset

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"balance: error: {message} (see `{self.prog} --help`)\n")


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _workers(text: str) -> int:
    """A worker count: one cap for every command (``balance.budget.MAX_WORKERS``)."""
    value = _positive_int(text)
    if value > budget.MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected a whole number 1..{budget.MAX_WORKERS}, "
                                         f"got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _precision(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a half-width in (0, 0.5), got {text!r}")
    from .engine import MAX_FIGHTS

    if budget.fights_needed(value) > MAX_FIGHTS:  # no run may reach it: refused, not piloted
        smallest = budget.smallest_precision(MAX_FIGHTS)
        raise argparse.ArgumentTypeError(
            f"expected a half-width of at least {smallest:.2g} (a smaller one needs more than "
            f"{MAX_FIGHTS:,} fights, the most a run makes), got {text!r}")
    return value


_ALLOW_IMPORT_HELP = ("a ruleset given as 'package.module:OBJECT' may be imported (that runs "
                      "its code; installed 'balance.rulesets' entry points need no flag)")


def _add_ruleset(p: argparse.ArgumentParser) -> None:
    p.add_argument("ruleset", help="ruleset: a name (see `balance rulesets`) or "
                                   "'package.module:OBJECT' with --allow-import")
    p.add_argument("--allow-import", action="store_true", help=_ALLOW_IMPORT_HELP)
    p.add_argument("--presets", metavar="FILE", default=None,
                   help="a TOML file of [presets.NAME] tables: more named combatants, usable "
                        "wherever a preset is")


def _ruleset(args: argparse.Namespace) -> Ruleset:
    rs = resolve(args.ruleset, allow_import=args.allow_import)
    if getattr(args, "presets", None):
        path = Path(args.presets)
        if not path.is_file() and path.suffix != ".toml":
            raise SpecError(f"--presets takes a TOML file of presets, got {args.presets!r}"
                            + ("; to choose the entrants of a round robin give --entrants "
                               "NAME,NAME or --entrant SPEC" if "," in args.presets else ""))
        rs = rs.load_presets(path)
    return rs


MAX_BENCH_SECONDS = 600.0
"""Longest time budget of one bench measurement (a typo must not run for a day)."""


def _bench_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MAX_BENCH_SECONDS:  # nan fails too
        raise argparse.ArgumentTypeError(f"expected seconds in (0, {MAX_BENCH_SECONDS:g}], "
                                         f"got {text!r}")
    return value


def _add_matchup(p: argparse.ArgumentParser) -> None:
    _add_ruleset(p)
    p.add_argument("--a", action="append", default=[], metavar="SPEC",
                   help="a combatant of side A: 'preset', 'preset,field=value,...' or "
                        "'field=value,...'; repeat for a group")
    p.add_argument("--b", action="append", default=[], metavar="SPEC",
                   help="a combatant of side B (as --a)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="override one rule parameter (see `balance show RULESET`)")
    p.add_argument("--scenario", metavar="NAME|FILE",
                   help="a named scenario or a TOML scenario file; --a/--b replace its sides")


def _add_yes(p: argparse.ArgumentParser) -> None:
    p.add_argument("--yes", action="store_true",
                   help="run even if it is estimated (by a short pilot's CPU time) to take "
                        f"over {budget.duration(budget.MAX_SECONDS)} or to need over "
                        f"{budget.size(budget.MAX_BYTES)} of memory (otherwise refused)")


def _cap(args: argparse.Namespace) -> float | None:
    """The time cap of a command: none with ``--yes`` (which lifts the memory cap too)."""
    return None if args.yes else budget.MAX_SECONDS


def _draw_worth(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in 0..1, got {text!r}")
    return value


def _add_play(p: argparse.ArgumentParser) -> None:
    p.add_argument("--play", choices=("default", "best"), default="default",
                   help="default: the policies as given; best: each side's policies chosen "
                        "to do its best against the other's (a zero-sum game over the "
                        "ruleset's policies; exact where a solver reaches, else Monte Carlo)")
    p.add_argument("--draw-worth", type=_draw_worth, default=0.5, metavar="W",
                   help="with --play best: what a draw is worth to side A, 0..1 (A maximises "
                        "win + W x draw; default 0.5)")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="balance", description="Monte Carlo balance analysis of tabletop "
                     "combat rules.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    _add_fight_commands(sub)
    _add_question_commands(sub)
    _add_run_commands(sub)
    _add_tune_command(sub)
    return parser


def _add_fight_commands(sub: Any) -> None:
    """rulesets, show, duel, exact, log and campaign: one matchup or one ruleset."""
    p = sub.add_parser("rulesets", help="list the rule systems")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("show", help="fields, rule parameters, policies, presets and the names "
                                    "rules may read; or one table (or row) of the rules")
    _add_ruleset(p)
    p.add_argument("table", nargs="?", metavar="TABLE",
                   help="a rule parameter holding a table (house_rules, shield_block, ...): "
                        "print its rows, each with its provenance")
    p.add_argument("row", nargs="?", metavar="ROW", help="one row of TABLE")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE",
                   help="show the table as this override makes it")
    p.add_argument("--rules", metavar="FILE",
                   help="show the table as the [rules] of this TOML file (a scenario or "
                        "experiment file) make it")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("duel", help="simulate many fights and print win rates with intervals")
    _add_matchup(p)
    size = p.add_mutually_exclusive_group()
    size.add_argument("-n", type=_positive_int, help="number of fights (default 100000)")
    size.add_argument("--precision", type=_precision,
                      help="stop when every 95%% interval half-width is at most this")
    p.add_argument("--seed", type=_seed, help="root seed (default: fresh entropy, printed)")
    p.add_argument("--chunk-size", type=_positive_int, default=None)
    _add_yes(p)
    _add_play(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("exact", help="exact win / loss / draw probabilities")
    _add_matchup(p)
    p.add_argument("--strategy", action="store_true",
                   help="also print the equilibrium strategy, where the ruleset has one")
    _add_play(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("log", help="one fight by the reference implementation, narrated")
    _add_matchup(p)
    p.add_argument("--seed", type=_seed, default=None)
    p.add_argument("--json", action="store_true",
                   help="print the outcome and the narration ('log') as one JSON object")

    p = sub.add_parser("campaign", help="a fighter's career: survival and skill fight by fight, "
                                        "with intervals (crt: the experience snowball)")
    p.add_argument("ruleset", choices=("crt",), help="the ruleset (crt only)")
    p.add_argument("--a", required=True, metavar="SPEC", help="the fighter")
    p.add_argument("--b", action="append", required=True, metavar="SPEC",
                   help="a foe he faces in each fight, fresh each time (repeat for a side)")
    p.add_argument("--fights", type=_positive_int, default=20, help="career length (20)")
    p.add_argument("-n", type=_positive_int, default=10_000, help="careers simulated")
    p.add_argument("--seed", type=_seed, default=None)
    p.add_argument("--peers", action="store_true",
                   help="the foes have survived as many combats (and grown as much) as he")
    p.add_argument("--exact", action="store_true", help="the plain duel's exact win chances")
    p.add_argument("--skill-growth", choices=("every", "none"), default="every",
                   help="a skill level per --skill-every fights survived (DEFAULT), or none")
    p.add_argument("--skill-every", type=_positive_int, default=10,
                   help="fights survived per skill level (DEFAULT 10: Bruggish, veteran at 30)")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--json", action="store_true")



def _add_question_commands(sub: Any) -> None:
    """matchups and bench: a round robin, and the kernels' speed."""
    p = sub.add_parser("matchups", help="round robin of presets: matrix, ratings, metagame")
    _add_ruleset(p)
    p.add_argument("--entrants", metavar="NAME,NAME,...",
                   help="entrants by preset name (default: every preset of the ruleset)")
    p.add_argument("--entrant", action="append", default=[], metavar="SPEC",
                   help="an entrant given as any combatant SPEC ('preset,field=value,...' or "
                        "'field=value,...'); repeat, or combine with --entrants")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--rules", metavar="FILE",
                   help="rule overrides from the [rules] of a TOML file (a scenario or "
                        "experiment file); --rule overrides them in turn")
    size = p.add_mutually_exclusive_group()
    size.add_argument("-n", type=_positive_int, default=None,
                      help="fights per ordered pair (default 20000; implies --method simulate)")
    size.add_argument("--precision", type=_precision, metavar="H",
                      help="simulate each pair until every 95%% interval half-width is at most "
                           "H (implies --method simulate)")
    p.add_argument("--method", choices=("simulate", "exact"), default=None,
                   help="simulate (Monte Carlo) or exact (each pair solved by the ruleset's "
                        "exact solver); default exact where the solver accepts every pair, "
                        "else simulate")
    p.add_argument("--seed", type=_seed, default=0)
    p.add_argument("--streams", choices=STREAMS, default="common",
                   help="simulated pairs on common random numbers (the default: every pair "
                        "on the same streams, as a sweep's cells) or each on its own")
    p.add_argument("--resamples", type=_positive_int, default=200,
                   help="bootstrap replicates for the metagame's uncertainty")
    _add_yes(p)
    p.add_argument("--sensitivity", action="store_true",
                   help="recheck the verdict's key answer under each alternative DEFAULT / "
                        "AMBIG reading and policy (bounded work)")
    _add_play(p)
    p.add_argument("--workers", type=_workers, default=None,
                   help="with --play best: pairs solved at once (default: one per core; "
                        f"at most {budget.MAX_WORKERS}, and never more than the pairs)")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("bench", help="kernel against reference throughput")
    p.add_argument("--ruleset", action="append", default=None, metavar="NAME")
    p.add_argument("--allow-import", action="store_true", help=_ALLOW_IMPORT_HELP)
    p.add_argument("--case", action="append", default=None, metavar="NAME")
    p.add_argument("--seconds", type=_bench_seconds, default=1.0,
                   help=f"time budget per measurement (0 < SECONDS <= {MAX_BENCH_SECONDS:g})")
    p.add_argument("--memory", action="store_true",
                   help="also measure peak memory of one long duel per ruleset")
    p.add_argument("--memory-n", type=_positive_int, default=100_000_000, metavar="N",
                   help="fights of the --memory duel (default 100000000)")
    _add_yes(p)
    p.add_argument("--json", action="store_true")



def _add_run_commands(sub: Any) -> None:
    """sweep, plot, new, explore and report: experiments, their runs and reports."""
    p = sub.add_parser("sweep", help="run an experiment (a TOML grid of matchups) into a run "
                                     "directory of tables")
    p.add_argument("experiment", metavar="EXPERIMENT.toml")
    p.add_argument("--out", metavar="DIR", help="run directory (default runs/<experiment name>)")
    p.add_argument("--executor", choices=("auto", "serial", "processes", "dask"), default=None,
                   help="where chunks run (default auto: in this process while the work is "
                        "small, else processes, one worker per core; dask when --scheduler "
                        "is given)")
    p.add_argument("--workers", type=_workers, default=None,
                   help="worker processes, or workers of the local dask cluster (at most "
                        f"{budget.MAX_WORKERS})")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a running dask.distributed scheduler, e.g. tcp://host:8786")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in DIR: compute only the chunks not cached")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--allow-import", action="store_true",
                   help="the spec's ruleset may be 'package.module:OBJECT' (importing it runs "
                        "its code)")
    p.add_argument("--play", choices=("default", "best"), default=None,
                   help="override the experiment's [run] play: best chooses each cell's "
                        "policies as a zero-sum game (value and policies become columns)")
    p.add_argument("--dry-run", action="store_true",
                   help="validate the experiment and describe its grid; run and write nothing")
    _add_yes(p)
    p.add_argument("--json", action="store_true", help="print the run record (meta.json)")

    p = sub.add_parser("plot", help="draw a run's results as PNG and SVG: heatmap, win-rate "
                                    "curves, matchup matrix")
    p.add_argument("run", metavar="RUN", help="a run directory written by `balance sweep`")
    p.add_argument("--kind", choices=("heatmap", "curves", "matchup"), default=None,
                   help="default: heatmap for two or more axes, curves for one")
    p.add_argument("--x", default=None, help="column across (default: the second axis)")
    p.add_argument("--y", default=None,
                   help="column up (heatmap, matchup; default the first axis) or the rate "
                        "drawn (curves; default --value)")
    p.add_argument("--value", default=None,
                   help="what the colour shows: score (A's expected score, a draw counting "
                        "half: the matchup default), a_win (the default otherwise), b_win, "
                        "draw, mean_rounds, ...")
    p.add_argument("--by", default=None, help="curves: one curve per value of this column")
    p.add_argument("--where", action="append", default=[], metavar="FIELD=VALUE",
                   help="keep the rows with this value of another axis; repeatable")
    p.add_argument("--out", metavar="DIR", default=None, help="folder (default RUN/plots)")

    p = sub.add_parser("new", help="write a new ruleset to edit: a ruleset file NAME.toml "
                                   "(or, with --package, a Python package)")
    p.add_argument("what", choices=("ruleset",))
    p.add_argument("name", help="the new ruleset's name (a lowercase Python identifier)")
    p.add_argument("--out", metavar="DIR", default=".", help="folder to write it in")
    p.add_argument("--package", action="store_true",
                   help="write a Python package (rules, presets, kernel, reference, tests) "
                        "instead of a ruleset file")

    p = sub.add_parser("explore", help="the interactive explorer as a web page on this machine "
                                       "(needs the explore extra)")
    p.add_argument("ruleset", nargs="?", default="crt",
                   help="ruleset: a name (see `balance rulesets`; default crt) or "
                        "'package.module:OBJECT' with --allow-import")
    p.add_argument("--allow-import", action="store_true",
                   help=_ALLOW_IMPORT_HELP + "; the page is given the same permission")
    p.add_argument("--a", action="append", default=[], metavar="SPEC", help="side A to start from")
    p.add_argument("--b", action="append", default=[], metavar="SPEC", help="side B to start from")
    p.add_argument("--rule", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--rules", metavar="FILE",
                   help="rule overrides from the [rules] of a TOML file (a scenario or "
                        "experiment file: house rules, weapon rows with their modifiers and "
                        "effects); --rule overrides them in turn")
    p.add_argument("--seed", type=_seed, default=1)
    p.add_argument("--port", type=int, default=8866, help="port on 127.0.0.1 (default 8866)")
    p.add_argument("--experiments", metavar="DIR", default=".",
                   help="folder 'save as experiment' writes to (default: here)")

    p = sub.add_parser("report", help="write a playtest report of a run: an HTML page, a "
                                      "Markdown twin and their PNG figures")
    p.add_argument("run", metavar="RUN", help="a run directory written by `balance sweep`")
    p.add_argument("--out", metavar="DIR", default=None, help="folder (default RUN/report)")
    p.add_argument("--allow-import", action="store_true",
                   help="the run's ruleset may be 'package.module:OBJECT' (importing it runs "
                        "its code)")
    p.add_argument("--sensitivity", action=argparse.BooleanOptionalAction, default=None,
                   help="recheck the verdict's key answer under each alternative DEFAULT / "
                        "AMBIG reading and policy (default: as the spec's [verdict] says)")
    p.add_argument("--svg", action="store_true", help="also write an SVG of each figure")
    p.add_argument("--embed", action="store_true",
                   help="put the figures inside report.html (one file to send)")



def _add_tune_command(sub: Any) -> None:
    """tune: the value of a knob that makes a matchup even."""
    p = sub.add_parser("tune", help="the value of a knob that makes a matchup even or hits a "
                                    "target rate; with --entrants, handicaps that flatten a "
                                    "round robin")
    _add_matchup(p)
    p.add_argument("--knob", required=True, metavar="FIELD",
                   help="a.<i>.<field>, b.<i>.<field>, a.*.<field> or rules.<name> (or a bare "
                        "rule name): an integer or real field; with --entrants, a combatant "
                        "field name such as combats")
    p.add_argument("--target", type=float, default=0.5,
                   help="the rate to reach (default 0.5: even)")
    p.add_argument("--metric", default="score",
                   help="score (A wins + draw worth x draws; default), a_win, b_win or draw")
    p.add_argument("--draw-worth", type=float, default=None, metavar="W",
                   help="what a draw scores (default 0.5, or the rules' own draw_worth)")
    p.add_argument("--method", choices=("exact", "simulate"), default=None,
                   help="default: exact where the ruleset's solver answers, else simulate")
    p.add_argument("--play", choices=("default", "best"), default="default",
                   help="default: the policies as given; best: at every value tried, each "
                        "side's policies chosen to do its best against the other's (exact "
                        "where a best-play solver reaches, else Monte Carlo; matchup mode)")
    p.add_argument("--seed", type=_seed, default=None,
                   help="root seed of the common random numbers (default: fresh entropy, "
                        "printed; 0 with --entrants)")
    p.add_argument("--precision", type=float, default=None, metavar="H",
                   help="simulate until the crossing's 95%% interval half-width is at most H, "
                        "in the knob's units (default 0.25 for whole numbers, 1%% of the "
                        "range for reals)")
    p.add_argument("--bounds", metavar="LOW,HIGH", default=None,
                   help="search inside these values (default: the field's range)")
    p.add_argument("--max-fights", type=_positive_int, default=None, metavar="N",
                   help="most fights simulated at one value (default 4194304)")
    p.add_argument("--entrants", metavar="NAME,NAME,...", default=None,
                   help="round robin mode: per-entrant handicaps on --knob for these presets")
    p.add_argument("--margin", type=float, default=None,
                   help="round robin: bring every expected score within this of 50%% "
                        "(default 0.02)")
    p.add_argument("-n", type=_positive_int, default=None,
                   help="round robin, simulated: fights per ordered pair and value "
                        "(default 20000)")
    p.add_argument("--anchor", default=None, metavar="NAME",
                   help="round robin: the entrant whose value stays (default the strongest)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress line")
    _add_yes(p)
    p.add_argument("--json", action="store_true")


def _matchup(args: argparse.Namespace) -> tuple[Ruleset, Any, tuple[Any, ...], tuple[Any, ...]]:
    rs = _ruleset(args)
    rules: dict[str, Any] = {}
    side_a: Any = None
    side_b: Any = None
    if args.scenario:
        scenario = (rs.load_scenario(Path(args.scenario)) if args.scenario.endswith(".toml")
                    else rs.scenario(args.scenario))
        rules.update(scenario.rules)
        side_a, side_b = scenario.side_a, scenario.side_b
    for item in args.rule:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SpecError(f"--rule takes NAME=VALUE, got {item!r}")
        rules[name.strip()] = value
    if args.a:
        side_a = args.a
    if args.b:
        side_b = args.b
    if side_a is None or side_b is None:
        missing = "--a" if side_a is None else "--b"
        raise SpecError(f"missing {missing}: give at least one combatant for each side "
                        f"(presets: {', '.join(rs.presets) or 'none'})")
    return api.matchup(rs, side_a, side_b, rules)


def _print_json(obj: Any) -> None:
    print(json.dumps(obj, indent=2, default=str))


def _cmd_rulesets(args: argparse.Namespace) -> int:
    rows = []
    for name, origin in available().items():
        rs = resolve(name)
        rows.append({"name": name, "title": rs.title, "seed": rs.seed_document,
                     "presets": list(rs.presets), "max_side": rs.max_side, "from": origin})
    if args.json:
        _print_json(rows)
    else:
        for row in rows:
            where = f"seed {row['seed']}" if row["from"] == "built-in" else row["from"]
            print(f"{row['name']:<12} {row['title']}  ({where})")
    return 0


def _rules_file(path: str | None) -> dict[str, Any]:
    """The rule overrides of a TOML file: its ``[rules]`` table (a scenario or experiment
    file; the rest of the file is not read here)."""
    if path is None:
        return {}
    from .fields import read_toml

    data = read_toml(path, "rules file")
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise SpecError(f"{path}: [rules] must be a table of rule overrides")
    return rules


def _cmd_show(args: argparse.Namespace) -> int:
    rs = _ruleset(args)
    if args.table is not None:
        from .showing import show_table

        return show_table(rs, args.table, args.row, file=args.rules,
                          file_rules=_rules_file(args.rules),
                          rule=_rule_overrides(args.rule), as_json=args.json)
    if args.rule or args.rules or args.row:
        raise SpecError("--rule, --rules and ROW go with TABLE: `balance show RULESET TABLE "
                        "[ROW] --rules FILE`")
    info = rs.describe()
    if args.json:
        _print_json(info)
        return 0
    print(f"{info['name']}: {info['title']}")
    source = ", ".join(f"{k} {info[k]}" for k in ("seed", "digest") if info[k])
    print((f"{source}; " if source else "") + f"up to {info['max_side']} per side")
    for title, key in (("Combatant fields", "combatant_fields"), ("Rule parameters", "rule_parameters")):
        print(f"\n{title} (name = default  [tag]  allowed: description)")
        for f in info[key]:
            print(f"  {f['name']} = {json.dumps(f['default'])}  [{f['tag']}]  {f['allowed']}: {f['doc']}")
    if info["policies"]:
        print("\nPolicies: the decisions fighters make (results list the ones they rest on; "
              "best play searches the combatant ones)")
        for pol in info["policies"]:
            print(f"  {pol['name']} ({pol['scope']}) = {json.dumps(pol['default'])}; tries "
                  + " | ".join(str(v) for v in pol["values"]))
    print("\nPresets")
    for name, fields in info["presets"].items():
        print(f"  {name}: " + ", ".join(f"{k}={json.dumps(v)}" for k, v in fields.items()))
    if info["scenarios"]:
        print("\nScenarios")
        for name, text in info["scenarios"].items():
            print(f"  {name}: {text}")
    print("\nEnd causes: " + ", ".join(info["end_causes"]))
    vocabulary = rs.vocabulary()
    if vocabulary is not None:
        print("\nRules language (docs/rules-language.md): what conditions, modifiers and "
              "effects may name")
        print("\n".join("  " + line for line in vocabulary.lines()))
    if info.get("rules_text"):  # a ruleset file: the rules it writes, with their tags
        print(f"\nRules written in {info['file']} (rule: text  [tag])")
        for row in info["rules_text"]:
            print(f"  {row['rule']}: {' '.join(row['text'].split())}  [{row['tag']}]")
    return 0


def _cmd_duel(args: argparse.Namespace) -> int:
    from .engine import DEFAULT_CHUNK_SIZE, MAX_FIGHTS

    rs, rules, side_a, side_b = _matchup(args)
    chunk_size = args.chunk_size or DEFAULT_CHUNK_SIZE
    if args.precision is not None:
        fights = min(args.n or MAX_FIGHTS, budget.fights_needed(args.precision))
        what = f"--precision {args.precision:g}"
    else:
        fights = args.n or api.DEFAULT_N
        what = f"-n {fights:,}"
    if args.chunk_size:
        what += f" --chunk-size {args.chunk_size:,}"
    # Best play runs at least this many fights (a profile pair's worth): the same bound.
    found = budget.estimate(rs, rules, side_a, side_b, fights=fights, chunk_size=chunk_size,
                            at_least=args.play == "best")
    budget.check(found, what, _cap(args))
    kwargs: dict[str, Any] = {"n": args.n, "precision": args.precision, "seed": args.seed}
    if args.chunk_size:
        kwargs["chunk_size"] = args.chunk_size
    if args.play == "best":  # Monte Carlo best play: -n fights a profile pair
        best = api.duel(rs, side_a, side_b, rules=rules, play="best",
                        draw_worth=args.draw_worth, **kwargs)
        _print_json(best.to_dict()) if args.json else print(best)
        return 0
    from .progress import Progress

    with Progress(fights, desc="duel", unit="fight") as bar:  # a precision run may end early
        summary = api.duel(rs, side_a, side_b, rules=rules,
                           on_chunk=lambda tally: bar.update(tally.n), **kwargs)
    if args.json:
        _print_json(summary.to_dict())
    else:
        print(summary)
        meta = summary.meta
        print(f"  {meta['elapsed_s']:.2f} s, {meta['fights_per_s']:,.0f} fights/s; "
              f"entropy {meta['entropy']}, chunk size {meta['chunk_size']}")
    return 0


def _cmd_exact(args: argparse.Namespace) -> int:
    rs, rules, side_a, side_b = _matchup(args)
    if args.strategy and not rs.has_strategy and args.play == "default":
        raise SpecError(f"--strategy: {rs.name} has no equilibrium strategy to show; "
                        "rulesets with one: " + ", ".join(
                            r.name for r in RULESETS.values() if r.has_strategy))
    if args.play == "best":
        result = api.exact(rs, side_a, side_b, rules=rules, play="best",
                           draw_worth=args.draw_worth)
    else:
        result = api.solve(rs, rules, side_a, side_b)
    if args.json:
        out = result.to_dict()
        if not args.strategy:
            out.pop("strategy", None)
        _print_json(out)
    else:
        print(result)
        if args.strategy and result.strategy is not None:
            print()
            print(result.strategy.to_string(index=False))
            for note in result.strategy.attrs.get("notes", ()):
                print(note)
    return 0


def _cmd_log(args: argparse.Namespace) -> int:
    from .random import root_entropy

    rs, rules, side_a, side_b = _matchup(args)
    seed = root_entropy(args.seed)  # fresh entropy when no --seed: printed, so replayable
    lines: list[str] = []  # with --json the narration goes inside the JSON, not before it
    outcome = api.fight(rs, side_a, side_b, rules=rules, seed=seed,
                        log=lines.append if args.json else print)
    if args.json:
        _print_json({"winner": outcome.winner.name, "rounds": outcome.rounds,
                     "cause": outcome.cause, "seed": seed, "log": lines})
        return 0
    winner = {0: "draw", 1: "side A wins", 2: "side B wins"}[int(outcome.winner)]
    print(f"== {winner} after {_count(outcome.rounds, 'round')} ({outcome.cause})"
          + ("" if args.seed is not None else f"; replay with --seed {seed}"))
    return 0


def _rule_overrides(items: Sequence[str]) -> dict[str, str]:
    rules: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise SpecError(f"--rule takes NAME=VALUE, got {item!r}")
        rules[name.strip()] = value
    return rules


MATCHUPS_N = 20_000


def _entrant(rs: Ruleset, label: str) -> Any:
    """The combatant an entrant label names: a preset, or a SPEC as written."""
    return rs.preset(label) if label in rs.presets else rs.combatant(label)


def _entrants(args: argparse.Namespace, rs: Ruleset) -> dict[str, Any]:
    """Round-robin entrants: label -> combatant (a preset's label is its name, any other
    SPEC's label is the SPEC as written)."""
    picked: dict[str, Any] = {}
    names = [p.strip() for p in args.entrants.split(",")] if args.entrants else []
    if not names and not args.entrant:
        names = list(rs.presets)
    for name in names:
        picked[name] = rs.preset(name)
    for spec in args.entrant:
        try:
            picked[spec.strip()] = rs.combatant(spec)
        except SpecError as exc:
            raise SpecError(exc.reason, where=f"--entrant {spec!r}") from None
    return picked


def _cmd_matchups(args: argparse.Namespace) -> int:
    from . import analysis
    from .engine import MAX_FIGHTS
    from .progress import Progress
    from .report.build import EQUILIBRIUM_CAVEAT

    rs = _ruleset(args)
    entrants = _entrants(args, rs)
    names = list(entrants)
    rules = rs.rules({**_rules_file(args.rules), **_rule_overrides(args.rule)})
    sized = args.n is not None or args.precision is not None
    if args.method == "exact" and sized:
        raise SpecError(f"{'-n' if args.n is not None else '--precision'}: an exact round robin "
                        "solves every pair instead of sampling it; drop it or use --method "
                        "simulate")
    method = args.method or ("simulate" if sized else None)
    _matchups_budget(args, rs, entrants, rules, method)
    if args.play == "best":
        return _matchups_best(args, rs, names, rules, method)
    n = args.n or MATCHUPS_N
    with Progress(len(names) ** 2, desc="matchups", unit="pair") as bar:
        table = analysis.round_robin(rs, entrants, rules=rules, n=n, precision=args.precision,
                                     seed=args.seed, method=method, streams=args.streams,
                                     progress=lambda done, _total: bar.update(done))
    readings = _readings(rs, rules, names)
    disclosed = analysis.matchups.policies(table)
    exact = table.attrs["method"] == "exact"
    rating = analysis.ratings(table)
    meta = analysis.metagame(table, resamples=args.resamples, seed=args.seed)
    dom = analysis.dominated(table, resamples=args.resamples, seed=args.seed + 1)
    seat = analysis.seat_advantage(table)
    ups = analysis.upsets(table, rating)
    length_cols = ["mean_rounds"] if exact else ["mean_rounds", "rounds_q10", "rounds_q50",
                                                 "rounds_q90"]
    lengths = table[["a", "b", "draw", *length_cols]]
    caveat = (EQUILIBRIUM_CAVEAT.format(name=rs.name)
              if exact and rs.has_strategy else None)
    if exact:
        how = "each ordered pair solved exactly (no sampling, no intervals)"
    elif args.precision is not None:
        how = (f"simulated until every 95% half-width <= {args.precision:g} (at most "
               f"{MAX_FIGHTS:,} fights a pair; {int(table['n'].sum()):,} fights in all), "
               f"seed {args.seed}, {args.streams} streams")
    else:
        how = f"simulated, {n:,} fights per ordered pair, seed {args.seed}, {args.streams} streams"
    from .analysis.verdict import Matchup, round_robin_verdict, sensitivity
    from .labels import Labels

    labels = Labels()  # preset names: the terminal's matrices stay narrow

    def matchup_of(first: str, second: str) -> Matchup:
        return Matchup(rules, rs.side(entrants[first]), rs.side(entrants[second]))

    made = round_robin_verdict(table, labels=labels, matchup_of=matchup_of,
                               resamples=args.resamples)
    made = dataclasses.replace(made, rests_on=(*readings, *disclosed))
    if args.sensitivity:
        made = sensitivity(made, rs, seed=args.seed)
    if args.json:
        _print_json({"ruleset": rs.name, "method": table.attrs["method"],
                     "verdict": made.lines(),
                     "n_per_pair": None if exact or args.precision is not None else n,
                     "precision": args.precision, "seed": None if exact else args.seed,
                     "streams": None if exact else args.streams,
                     "matchups": table.to_dict(orient="records"),
                     "ratings": rating.reset_index().to_dict(orient="records"),
                     "ratings_exact": bool(rating.attrs["exact"]),
                     "metagame": meta.reset_index().to_dict(orient="records"),
                     "dominated": dom.reset_index().to_dict(orient="records"),
                     "seat_advantage": seat.reset_index().to_dict(orient="records"),
                     "upsets": ups.to_dict(orient="records"),
                     "fight_lengths": lengths.to_dict(orient="records"),
                     "caveat": caveat, "assumptions": readings, "policies": disclosed})
        return 0
    from .report.console import round_robin_lines

    print("\n".join(round_robin_lines(
        table, made, header=f"{rs.name}: round robin of {len(names)} presets; method "
                            f"{table.attrs['method']}: {how}",
        labels=labels, resamples=args.resamples, seed=args.seed, caveat=caveat,
        rests_on=_rests_on_lines(readings, disclosed))))
    return 0


def _matchups_budget(args: argparse.Namespace, rs: Ruleset, entrants: dict[str, Any],
                     rules: Any, method: str | None) -> None:
    """Refuse a round robin over the caps before it starts: the fights of every ordered
    pair (under best play at least one profile pair's, ``--workers`` pairs at once) and
    the bootstrap replicates of its analyses (none for an exact table)."""
    from .analysis.matchups import planned_method
    from .engine import DEFAULT_CHUNK_SIZE, MAX_FIGHTS

    names = list(entrants)
    if len(names) < 2:
        return  # the round robin itself says why
    best = args.play == "best"
    simulated = (method != "exact" if best else
                 planned_method(rs, entrants, rules=rules, method=method) == "simulate")
    if not simulated:
        return
    parts: list[tuple[str, budget.Estimate | None]] = []
    pairs = len(names) ** 2
    if not best or args.n is not None:
        if args.precision is not None and not best:
            per_pair, flag = (min(MAX_FIGHTS, budget.fights_needed(args.precision)),
                              f"--precision {args.precision:g}")
        else:
            per_pair = args.n or MATCHUPS_N
            flag = f"-n {per_pair:,}"
        if best:
            from .analysis.bestplay import CHUNK_SIZE
            from .experiments.runner import default_workers

            chunk, workers = CHUNK_SIZE, min(pairs, args.workers or default_workers())
        else:
            chunk, workers = min(per_pair, DEFAULT_CHUNK_SIZE), 1
        parts.append((f"{pairs:,} pairs of {flag}", budget.round_robin(
            rs, entrants, rules, per_pair=per_pair, chunk_size=chunk, workers=workers,
            at_least=best)))
    parts.append((f"--resamples {args.resamples:,}",
                  budget.resample_estimate(len(names), args.resamples, passes=4 if best else 3)))
    budget.check_all(parts, _cap(args))


def _readings(rs: Ruleset, rules: Any, names: Sequence[str]) -> list[str]:
    """The DEFAULT / AMBIG readings any pair of a round robin rests on, each named once."""
    seen: dict[str, str] = {}
    for a in names:
        for b in names:
            for item in rs.assumptions(rules, (_entrant(rs, a),), (_entrant(rs, b),)):
                seen.setdefault(_reading_key(item), item)
    return list(seen.values())


def _reading_key(item: str) -> str:
    """A reading is named once (its name); a written row once per row (its whole text)."""
    from .outcomes import ROW_TAG

    return item if item.endswith(ROW_TAG) else item.partition("=")[0]


def _rests_on_lines(items: Sequence[str], disclosed: Sequence[str]) -> list[str]:
    """The readings, rows and policies a round robin rests on, each wrapped to the
    terminal's width (a crt round robin's readings made one line of 2,260 characters)."""
    from .outcomes import split_rows
    from .report.console import wrap

    out = []
    readings, rows = split_rows(items)
    if readings:
        out.append(f"rests on {len(readings)} DEFAULT/AMBIG readings (see `balance show`): "
                   + "; ".join(readings))
    if rows:
        out.append(f"rests on {len(rows)} written modifier/effect row"
                   f"{'s' if len(rows) != 1 else ''}: " + "; ".join(rows))
    if disclosed:
        out.append("policies: " + "; ".join(disclosed))
    return [wrap(line, rest="    ") for line in out]


def _print_rests_on(readings: Sequence[str], disclosed: Sequence[str]) -> None:
    for line in _rests_on_lines(readings, disclosed):
        print(line)


def _matchups_best(args: argparse.Namespace, rs: Ruleset, names: list[str], rules: Any,
                   method: str | None) -> int:
    """``balance matchups --play best``: every ordered pair under best play, the analyses
    on its values, and the verdicts beside those of the policies as given."""
    from . import analysis
    from .analysis import bestplay
    from .experiments.runner import default_workers

    table = analysis.round_robin(rs, {name: _entrant(rs, name) for name in names}, rules=rules,
                                 n=args.n, precision=args.precision, seed=args.seed,
                                 method=method, play="best", draw_worth=args.draw_worth,
                                 workers=args.workers or default_workers())
    exact = table.attrs["method"] == "exact"
    given = bestplay.as_given(table)
    rating = analysis.ratings(table)
    meta = analysis.metagame(table, resamples=args.resamples, seed=args.seed)
    dom = analysis.dominated(table, resamples=args.resamples, seed=args.seed + 1)
    seat = analysis.seat_advantage(table)
    found = bestplay.verdict_changes(given, table, resamples=args.resamples, seed=args.seed)
    verdicts, changes = found.frame, found.sentences()
    readings = _readings(rs, rules, names)
    rule_policies = [p for p in analysis.matchups.policies(table)
                     if not p.startswith("best play ")]
    from .analysis.verdict import best_play_verdict
    from .report.console import verdict_lines

    made = dataclasses.replace(best_play_verdict(table, resamples=args.resamples,
                                                 seed=args.seed, changes=found),
                               rests_on=(*readings, *rule_policies))
    searched = "; ".join(dict.fromkeys(table["searched"])) or "none"
    if exact:
        how = "each ordered pair's best play solved exactly"
    else:
        target = (f"value to within +/- {table.attrs['precision']:g} (95% bootstrap)"
                  if table.attrs.get("precision") is not None else
                  f"{table.attrs['n']:,} fights a profile pair")
        how = (f"Monte Carlo best play over the policy profiles (common random numbers, double "
               f"oracle, linear programming), {target}, seed {args.seed}; "
               f"{int(table['fights'].sum()):,} fights in all")
    if args.json:
        _print_json({"ruleset": rs.name, "play": "best", "method": table.attrs["method"],
                     "verdict": made.lines(),
                     "draw_worth": args.draw_worth, "precision": table.attrs.get("precision"),
                     "seed": None if exact else args.seed,
                     "matchups": table.to_dict(orient="records"),
                     "ratings": rating.reset_index().to_dict(orient="records"),
                     "ratings_exact": bool(rating.attrs["exact"]),
                     "metagame": meta.reset_index().to_dict(orient="records"),
                     "dominated": dom.reset_index().to_dict(orient="records"),
                     "seat_advantage": seat.reset_index().to_dict(orient="records"),
                     "verdicts": verdicts.reset_index().to_dict(orient="records"),
                     "verdict_changes": changes, "assumptions": readings,
                     "policies": rule_policies + [
                         f"{r.a} v {r.b}: A plays {r.policy_a}; B plays {r.policy_b}"
                         for r in table.itertuples()]})
        return 0
    print(f"{rs.name}: round robin of {len(names)} presets under best play; method "
          f"{table.attrs['method']}: {how}")
    print(f"each side's policies ({searched}) chosen to do its best: "
          f"A maximises its expected score (win + {args.draw_worth:g} x draw), B minimises it; "
          "each side plays one profile for all its members")
    print("\n".join(["", *verdict_lines(made)]))
    _print_rests_on(readings, rule_policies)
    _print_best_tables(table, names, exact=exact, rating=rating, meta=meta, dom=dom,
                       seat=seat, verdicts=verdicts, changes=changes)
    return 0


def _print_best_tables(table: Any, names: list[str], *, exact: bool, rating: Any, meta: Any,
                       dom: Any, seat: Any, verdicts: Any, changes: list[str]) -> None:
    """``balance matchups --play best``'s tables under its verdict: the values with their
    intervals, the expected scores, the policies each value rests on, seat advantage,
    ratings, the metagame, dominance and the verdicts beside the policies as given."""
    from . import analysis
    from .labels import percent, rate_with_interval

    cells = table.assign(cell=[rate_with_interval(r.value, r.value_low, r.value_high,
                                                  exact=exact) for r in table.itertuples()])
    print("\nValue under best play: the row's expected score in seat A against the column"
          + (" (exact):" if exact else " [95% interval]:"))
    print(cells.pivot(index="a", columns="b", values="cell").loc[names, names].to_string())
    score, _ = analysis.score_matrix(table)
    print("\nExpected score of the row against the column under best play (both seats):")
    print(score.map(lambda v: percent(v, 1)).to_string())
    print("\nThe policies each value rests on (row in seat A):")
    shown = table[["a", "b", "value", "default_value", "policy_a", "policy_b"]].rename(
        columns={"default_value": "as given", "policy_a": "A plays", "policy_b": "B plays"})
    shown = shown.assign(**{c: shown[c].map(lambda v: percent(v, 2))
                            for c in ("value", "as given")})
    plays = set(table["policy_a"]) | set(table["policy_b"])
    if len(plays) == 1:  # the same words everywhere (a solver's state-by-state play)
        print(f"  both sides, every pair: {plays.pop()}")
        shown = shown.drop(columns=["A plays", "B plays"])
    if not exact:
        shown = shown.assign(profiles=[f"{r.profiles_a}/{r.profiles_b}"
                                       for r in table.itertuples()])
    print(shown.round(4).to_string(index=False))
    if len(seat):
        print("\nSeat advantage in mirror matches under best play (A's win rate minus B's):")
        print(seat[["advantage", "advantage_low", "advantage_high", "draw"]].round(4)
              .to_string())
    print("\nBradley-Terry ratings under best play"
          + (" (fitted to the exact score matrix):" if exact else " (Elo scale, 95% interval):"))
    print((rating[["theta", "elo", "expected_score", "tier"]] if exact else
           rating[["elo", "elo_low", "elo_high", "expected_score"]]).round(1).to_string())
    print("\nMetagame equilibrium under best play:")
    print(meta.round(3).to_string())
    print("\nDominated by a mix of the others under best play (margin > 0):")
    print(dom.round(4).to_string())
    print("\nVerdicts with the policies as given (the same fights) and under best play:")
    print(verdicts.round(3).to_string())
    for sentence in changes:
        print("  " + sentence)


def _cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    names = [resolve(name, allow_import=args.allow_import) for name in
             (args.ruleset or list(RULESETS))]
    if args.memory:
        budget.check_all(bench.memory_estimates(names, cases=args.case, memory_n=args.memory_n),
                         _cap(args))
    rows = bench.run(names, cases=args.case, seconds=args.seconds, memory=args.memory,
                     memory_n=args.memory_n, progress=None if args.json else sys.stderr)
    if args.json:
        _print_json(rows)
    else:
        print(bench.format_table(rows))
    return 0


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _sweep_estimate(spec: Any, rs: Ruleset, cells: Sequence[Any], executor: str,
                    workers: int | None) -> str:
    """What a short pilot says of a whole sweep (for --dry-run), or nothing for a small one."""
    from .experiments.runner import MAX_WORKERS, default_workers

    per_cell = spec.cap if spec.precision is None else min(
        spec.cap, budget.fights_needed(spec.precision, spec.confidence))
    distinct = list({cell.key: cell for cell in cells}.values())
    first = distinct[0]
    planned = 1 if executor == "serial" else min(MAX_WORKERS, workers or default_workers())
    found = budget.estimate(rs, first.rules,
                            first.side_a, first.side_b, fights=per_cell * len(distinct),
                            chunk_size=spec.chunk_size, workers=planned)
    if found is None:
        return ""
    big = found.memory > budget.MAX_BYTES
    over = found.seconds > budget.MAX_SECONDS or big
    return f"; {found.describe(memory=big)}" + ("; it needs --yes to start" if over else "")


def _cmd_sweep(args: argparse.Namespace) -> int:
    from .experiments import sweep
    from .experiments.runner import SweepInterrupted, validate

    executor = args.executor or ("dask" if args.scheduler else "auto")
    if args.dry_run:
        # the sweep's own checks, up to the first fight: what would refuse the run, or its
        # verdict or report at its end, refuses it now
        spec, cells = validate(args.experiment, out=args.out, executor=executor,
                               workers=args.workers, scheduler=args.scheduler,
                               resume=args.resume, allow_import=args.allow_import,
                               play=args.play)
        if spec.play == "best":
            size = ("each cell's best play solved exactly" if spec.method == "exact" else
                    "each cell's best play by Monte Carlo, "
                    + (f"{spec.fights:,} fights a profile pair" if spec.precision is None
                       else f"value to within +/- {spec.precision:g}"))
        elif spec.method == "exact":
            size = "each cell solved exactly"
        elif spec.precision is None:
            size = f"{spec.fights:,} fights per cell"
        else:
            size = (f"until every interval half-width is <= {spec.precision:g} (at most "
                    f"{spec.cap:,} fights)")
        if spec.method != "exact":
            size += _sweep_estimate(spec, resolve(spec.ruleset, allow_import=args.allow_import),
                                    cells, executor, args.workers)
        print(f"{args.experiment}: {spec.ruleset}, {_count(len(cells), 'cell')} "
              f"({len({c.key for c in cells}):,} distinct) over "
              f"{', '.join(spec.axis_fields) or 'no axes'} ({spec.combine}); {size}; "
              "valid, nothing run")
        return 0
    try:
        table, path = sweep(args.experiment, out=args.out, executor=executor,
                            workers=args.workers, scheduler=args.scheduler,
                            resume=args.resume, progress=False if args.quiet else None,
                            max_seconds=None if args.yes else budget.MAX_SECONDS,
                            allow_import=args.allow_import, play=args.play)
    except SweepInterrupted as stop:
        how = "interrupted" if stop.signum == signal.SIGINT else "terminated"
        print(f"balance: {how}; every completed chunk is kept in {stop.path}: rerun "
              "with --resume to finish", file=sys.stderr)
        return 128 + stop.signum
    meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
    if args.json:
        _print_json(meta)
        return 0
    t = meta["timings"]
    on = f"on {meta['executor']}" + (f" x{meta['workers']}" if meta["workers"] else "")
    if meta.get("play") == "best":
        print(f"{Path(args.experiment).stem}: {_count(meta['cells'], 'cell')} under best play "
              f"({meta['method']}) in {t['elapsed_s']:.1f} s {on} ({t['cells_solved']:,} "
              f"played, {t['cells_cached']:,} from cache; {meta['fights']:,} fights)")
        shown = [*meta["axes"], "value", "value_low", "value_high", "default_value",
                 "policy_a", "policy_b"]
    elif meta.get("method") == "exact":
        print(f"{Path(args.experiment).stem}: {_count(meta['cells'], 'cell')} solved exactly in "
              f"{t['elapsed_s']:.1f} s {on} ({t['cells_solved']:,} solved, "
              f"{t['cells_cached']:,} from cache)")
        shown = [*meta["axes"], "a_win", "b_win", "draw", "mean_rounds", "solve_ms"]
    else:
        print(f"{Path(args.experiment).stem}: {_count(meta['cells'], 'cell')}, "
              f"{meta['fights']:,} fights in {t['elapsed_s']:.1f} s {on}"
              f" ({_count(t['chunks_computed'], 'chunk')} computed, {t['chunks_cached']:,} "
              "from cache"
              + (f", {t['fights_per_s']:,.0f} fights/s" if t["fights_computed"] else "") + ")")
        shown = [*meta["axes"], "a_win", "a_win_low", "a_win_high", "draw", "mean_rounds", "n"]
    if len(table) <= 40:
        print(table[shown].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print(f"results: {path / 'results.parquet'}, {path / 'results.csv'}")
    print(f"provenance: {path / 'meta.json'}; plots: balance plot {path}")
    from .report.build import run_verdict
    from .report.console import verdict_lines

    print()
    print("\n".join(verdict_lines(run_verdict(
        table, meta, sensitivity=bool((meta["spec"].get("verdict") or {}).get("sensitivity")),
        allow_import=args.allow_import))))
    return 0


def _cmd_plot(args: argparse.Namespace) -> int:
    from .experiments.plotting import plot_run

    written = plot_run(args.run, kind=args.kind, x=args.x, y=args.y, value=args.value,
                       by=args.by, where=args.where, out=args.out)
    for path in written:
        print(path)
    return 0


def _cmd_new(args: argparse.Namespace) -> int:
    from .scaffold import new_ruleset, new_ruleset_file

    if not args.package:
        path = new_ruleset_file(args.name, args.out)
        print(f"wrote {path}, a ruleset file (docs/ruleset-file.md). Next:")
        print(f"  balance show {path}")
        print(f"  balance duel {path} --a veteran --b novice -n 100000 --seed 1")
        print(f"  balance exact {path} --a veteran --b novice")
        print("  (a Python package instead: balance new ruleset NAME --package)")
        return 0
    root = new_ruleset(args.name, args.out)
    print(f"wrote {root}/ (rules, presets, kernel, reference, tests). Next:")
    print(f"  pip install -e {root}        # registers '{args.name}' with every balance command")
    print(f"  balance duel {args.name} --a veteran --b novice -n 100000 --seed 1")
    print(f"  cd {root} && python -m pytest tests   # the ruleset contract")
    print(f"  (without installing: balance duel {args.name}:RULESET --allow-import ... from "
          f"inside {root})")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import render

    paths = render(args.run, args.out, allow_import=args.allow_import,
                   sensitivity=args.sensitivity, svg=args.svg, embed=args.embed)
    print(f"report: {paths['html']}")
    print(f"markdown: {paths['markdown']} (figures in {paths['markdown'].parent / 'figures'})")
    return 0


def _cmd_explore(args: argparse.Namespace) -> int:
    from .explorer.serve import serve

    rules = {**_rules_file(args.rules), **_rule_overrides(args.rule)}
    return serve(args.ruleset, args.a, args.b, rules, seed=args.seed,
                 port=args.port, experiments=args.experiments, allow_import=args.allow_import)


def _cmd_tune(args: argparse.Namespace) -> int:
    from .analysis import tune as tuning
    from .progress import Progress

    bounds = None
    if args.bounds is not None:
        try:
            bounds = [float(v) for v in args.bounds.split(",")]
        except ValueError:
            bounds = None
        if bounds is None or len(bounds) != 2:
            raise SpecError(f"--bounds takes LOW,HIGH (two numbers), got {args.bounds!r}")
    with Progress(None, desc=f"tune {args.knob}", unit="evaluation",
                  enabled=False if args.quiet else None) as bar:
        result = _tuned(args, tuning, {"knob": args.knob, "method": args.method,
                                       "bounds": bounds, "draw_worth": args.draw_worth,
                                       "progress": bar.update})
    if args.json:
        _print_json(result.to_dict())
    else:
        print(result)
    return 0


def _tuned(args: argparse.Namespace, tuning: Any, common: dict[str, Any]) -> Any:
    """The answer of ``balance tune``: handicaps with --entrants, else one knob's value."""
    if args.entrants is not None:
        for flag, given in (("--a", args.a), ("--b", args.b), ("--scenario", args.scenario)):
            if given:
                raise SpecError(f"{flag}: the round robin mode (--entrants) takes its entrants "
                                "from --entrants only")
        if args.target != 0.5 or args.metric != "score":
            raise SpecError("--target/--metric: the round robin mode brings every expected "
                            "score to 50%")
        if args.max_fights is not None:
            raise SpecError("--max-fights applies to the matchup mode (no --entrants); the "
                            "round robin mode's fights are -n per pair and value")
        if args.play != "default":
            raise SpecError("--play best applies to the matchup mode (no --entrants); the "
                            "round robin mode plays the policies as given")
        names = [p.strip() for p in args.entrants.split(",")]
        _handicaps_budget(args, tuning, names)
        margin = 0.02 if args.margin is None else args.margin
        return tuning.handicaps(_ruleset(args), names, margin=margin,
                                rules=_rule_overrides(args.rule), n=args.n,
                                seed=0 if args.seed is None else args.seed,
                                precision=args.precision, anchor=args.anchor, **common)
    for flag, given in (("-n", args.n), ("--anchor", args.anchor), ("--margin", args.margin)):
        if given is not None:
            raise SpecError(f"{flag} applies to the round robin mode (--entrants) only")
    rs, rules, side_a, side_b = _matchup(args)
    if args.method == "simulate" or (args.method is None
                                     and rs.exact_check(rules, side_a, side_b) is not None):
        cap = args.max_fights or (tuning.BEST_MAX_FIGHTS if args.play == "best"
                                  else tuning.MAX_FIGHTS)
        # the two values that bracket the crossing, each simulated to the cap (the worst
        # case of the bracket; refining inside it reuses their fights' streams)
        budget.check(budget.estimate(rs, rules, side_a, side_b, fights=2 * cap,
                                     chunk_size=tuning.CHUNK_SIZE, held_bytes=8 * cap),
                     f"--max-fights {cap:,} (two values simulated to it)", _cap(args))
    extra = {} if args.max_fights is None else {"max_fights": args.max_fights}
    return tuning.tune(rs, side_a, side_b, rules=rules, target=args.target,
                       metric=args.metric, precision=args.precision, seed=args.seed,
                       play=args.play, **common, **extra)


def _handicaps_budget(args: argparse.Namespace, tuning: Any, names: list[str]) -> None:
    """Refuse a simulated round robin of handicaps over the caps before it starts: at least
    every ordered pair once at ``-n`` fights (each value's fights are one kernel call of
    ``-n`` fights, and their outcomes are kept)."""
    rs = _ruleset(args)
    if args.method == "exact" or len(names) < 2 or len(set(names)) != len(names):
        return  # exact, or refused by the tuning itself
    entrants = {name: rs.preset(name) for name in names}
    overrides = _rule_overrides(args.rule)
    pairs = [api.matchup(rs, entrants[x], entrants[y], overrides)
             for x in names for y in names if x != y]
    if args.method is None and all(found.exact_check(rules, a, b) is None
                                   for found, rules, a, b in pairs):
        return  # solved exactly: -n is not used
    n = args.n or tuning.RR_FIGHTS
    _, rules, side_a, side_b = pairs[0]
    budget.check(budget.estimate(rs, rules, side_a, side_b, fights=n * len(pairs),
                                 chunk_size=n, at_least=True, held_bytes=n * len(pairs)),
                 f"-n {n:,} over {len(pairs):,} ordered pairs", _cap(args))


def _cmd_campaign(args: argparse.Namespace) -> int:
    from .rulesets.crt.campaign import run

    return run(args)


COMMANDS = {"rulesets": _cmd_rulesets, "show": _cmd_show, "duel": _cmd_duel,
            "exact": _cmd_exact, "log": _cmd_log, "bench": _cmd_bench,
            "matchups": _cmd_matchups, "sweep": _cmd_sweep, "plot": _cmd_plot,
            "report": _cmd_report, "new": _cmd_new, "explore": _cmd_explore,
            "tune": _cmd_tune, "campaign": _cmd_campaign}


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _one_line_warnings() -> None:
    """Warnings meant for the designer (``fields.RowReplaced``) print as one line
    ``balance: warning: ...`` on stderr; any other keeps Python's form."""
    import warnings

    from .fields import RowReplaced

    shown = warnings.showwarning
    if getattr(shown, "one_line", False):
        return

    def show(message: Any, category: type[Warning], *rest: Any, **kw: Any) -> None:
        if issubclass(category, RowReplaced):
            print(f"balance: warning: {_one_line(str(message))}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kw)

    show.one_line = True  # type: ignore[attr-defined]
    warnings.showwarning = show


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``balance`` command; returns the exit status."""
    parser = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # bare `balance`: what it can do
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    _one_line_warnings()
    try:
        with guard.terminate_as_interrupt():
            return COMMANDS[args.command](args)
    except SpecError as exc:
        print(f"balance: error: {_one_line(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except MemoryError as exc:  # past the memory cap with --yes: still one line
        print("balance: error: out of memory" + (f" ({_one_line(str(exc))})" if str(exc)
                                                 else "") + ": the run needs more memory than "
              "this machine has; ask for fewer fights, replicates or workers",
              file=sys.stderr)
        return 2
    except OSError as exc:
        # A path given on the command line (or named in a spec) that the system refuses
        # in a way no check foresaw: still one line, never a traceback.
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"balance: error: {_one_line(where + (exc.strerror or str(exc)))}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
        print("balance: " + ("interrupted" if signum == signal.SIGINT else "terminated"),
              file=sys.stderr)
        return 128 + signum
