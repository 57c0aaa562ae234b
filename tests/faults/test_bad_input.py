"""Bad input through every command: one line on stderr, exit status 2, no traceback, and
nothing written.

Each case builds what it needs in a fresh folder (a spec, a copy of a finished run, a
damaged file), snapshots the folder, runs the command line in this process (the working
directory is that folder, so a default output would land there too), and checks the
answer and that no file was created, changed or removed.  A few cases run through
``python -m balance`` as well, to show the real entry point answers the same way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import balance
from balance.cli import main
from balance.experiments.guard import RunLock

ROOT = Path(__file__).resolve().parents[2]

SPEC = """\
ruleset = "crt"
description = "skill against skill (bad-input tests)"
[[a]]
preset = "novice"
[[b]]
preset = "novice"
[[grid.axes]]
field = "a.0.skill"
values = [0, 1]
[[grid.axes]]
field = "b.0.skill"
values = [0, 2]
[run]
fights = 1000
seed = 3
"""

DUEL = ["duel", "crt", "--a", "novice", "--b", "novice"]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run (spec in it as experiment.toml), copied by the cases that need one."""
    folder = tmp_path_factory.mktemp("finished")
    (folder / "exp.toml").write_text(SPEC)
    balance.sweep(folder / "exp.toml", out=folder / "run", executor="serial")
    return folder / "run"


# --- building blocks of the cases -------------------------------------------------------------


def spec(text: str, name: str = "exp.toml") -> Callable[[Path], Path]:
    def write(tmp: Path) -> Path:
        (tmp / name).write_text(text)
        return tmp / name

    return write


def edited(old: str, new: str) -> str:
    assert old in SPEC, old
    return SPEC.replace(old, new)


def sweep_of(text: str, *extra: str) -> Callable[[Path, Path], list[str]]:
    def case(tmp: Path, run: Path) -> list[str]:
        return ["sweep", str(spec(text)(tmp)), "--out", str(tmp / "out"), "-q", *extra]

    return case


def copy_run(tmp: Path, run: Path) -> Path:
    target = tmp / "run"
    shutil.copytree(run, target)
    shutil.copy(run / "experiment.toml", tmp / "exp.toml")
    return target


def damaged_run(damage: Callable[[Path], None], *command: str
                ) -> Callable[[Path, Path], list[str]]:
    """A copy of the finished run, damaged, then ``command`` on it (``RUN`` stands for the
    run folder, ``SPEC`` for its experiment file)."""

    def case(tmp: Path, run: Path) -> list[str]:
        target = copy_run(tmp, run)
        damage(target)
        return [{"RUN": str(target), "SPEC": str(tmp / "exp.toml")}.get(a, a) for a in command]

    return case


def meta_edit(**changes: object) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        meta = json.loads((run / "meta.json").read_text())
        for key, value in changes.items():
            if value is DROP:
                meta.pop(key, None)
            else:
                meta[key] = value
        (run / "meta.json").write_text(json.dumps(meta))

    return damage


DROP = object()


def reseal(run: Path) -> None:
    """Record the tables' present checksums: a damaged table the record vouches for (the
    parsers' own checks are what is left)."""
    from balance.experiments.store import file_checksum

    meta = json.loads((run / "meta.json").read_text())
    meta["checksums"] = {p.name: file_checksum(p) for p in run.glob("results.*")}
    (run / "meta.json").write_text(json.dumps(meta))


def edit_csv(run: Path) -> None:
    """One number of the CSV changed, the Parquet left as it was."""
    text = (run / "results.csv").read_text()
    lines = text.splitlines()
    cells = lines[1].split(",")
    cells[-1] = cells[-1] + "1"
    (run / "results.csv").write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n")


def write_file(name: str, data: bytes) -> Callable[[Path], None]:
    return lambda run: (run / name).write_bytes(data)


def truncate(name: str, keep: float) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        data = (run / name).read_bytes()
        (run / name).write_bytes(data[:int(len(data) * keep)])

    return damage


def both(*damages: Callable[[Path], None]) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        for d in damages:
            d(run)

    return damage


def argv(*words: str) -> Callable[[Path, Path], list[str]]:
    return lambda tmp, run: list(words)


def with_file(make: Callable[[Path], Path], *words: str) -> Callable[[Path, Path], list[str]]:
    """``FILE`` in ``words`` stands for what ``make`` creates."""

    def case(tmp: Path, run: Path) -> list[str]:
        path = make(tmp)
        return [str(path) if w == "FILE" else w for w in words]

    return case


def symlink_loop(tmp: Path) -> Path:
    (tmp / "loop-a.toml").symlink_to(tmp / "loop-b.toml")
    (tmp / "loop-b.toml").symlink_to(tmp / "loop-a.toml")
    return tmp / "loop-a.toml"


def not_utf8(tmp: Path) -> Path:
    (tmp / "bad.toml").write_bytes(b"\xff\xfe = 1")
    return tmp / "bad.toml"


def a_file(tmp: Path) -> Path:
    (tmp / "plain.txt").write_text("not a folder")
    return tmp / "plain.txt"


def a_full_folder(tmp: Path) -> Path:
    (tmp / "mine").mkdir()
    (tmp / "mine" / "notes.txt").write_text("keep")
    return tmp / "mine"


EVIL = "import pathlib\npathlib.Path('pwned.txt').write_text('code ran')\nX = None\n"


def evil_module(tmp: Path) -> str:
    """A module in the working directory that writes a file when imported: if any case
    imported it, the snapshot would show ``pwned.txt``."""
    (tmp / "evilmod.py").write_text(EVIL)
    return "evilmod:X"


def evil_words(*words: str) -> Callable[[Path, Path], list[str]]:
    """``words`` with ``EVIL`` standing for the import path of :func:`evil_module`."""

    def case(tmp: Path, run: Path) -> list[str]:
        ref = evil_module(tmp)
        return [ref if w == "EVIL" else w for w in words]

    return case


def evil_spec(*extra: str) -> Callable[[Path, Path], list[str]]:
    def case(tmp: Path, run: Path) -> list[str]:
        ref = evil_module(tmp)
        path = spec(edited('"crt"', f'"{ref}"'))(tmp)
        return ["sweep", str(path), *extra]

    return case


def evil_run(tmp: Path, run: Path) -> list[str]:
    """A finished run whose record names an importable module as its ruleset."""
    ref = evil_module(tmp)
    target = copy_run(tmp, run)
    meta = json.loads((target / "meta.json").read_text())
    meta["ruleset"] = ref
    meta["spec"]["ruleset"] = ref
    (target / "meta.json").write_text(json.dumps(meta))
    return ["report", str(target)]


def locked_run(tmp: Path, run: Path) -> list[str]:
    target = copy_run(tmp, run)
    meta = json.loads((target / "meta.json").read_text())
    (target / "meta.json").write_text(json.dumps({**meta, "status": "running"}))
    lock = RunLock(target)
    lock.acquire()  # released when the test's process ends; held for this case
    HELD.append(lock)
    return ["sweep", str(tmp / "exp.toml"), "--out", str(target), "--resume", "-q"]


HELD: list[RunLock] = []

SR_DUEL = ["duel", "strike-rank", "--a", "skirmisher,weapon=war pick", "--b", "knight"]
SR_SCENARIO = """\
description = "a strike-rank row in the rules language (bad-input tests)"
[[rules.weapons."war pick".modifiers]]
{row}
[[a]]
preset = "skirmisher"
weapon = "war pick"
[[b]]
preset = "knight"
"""
SR_SPEC = """\
ruleset = "strike-rank"
description = "a strike-rank row in the rules language (bad-input tests)"
[[rules.weapons."war pick".modifiers]]
to = "attack"
amount = 1
when = "target.armor_rank >= 3"
[[a]]
preset = "skirmisher"
weapon = "war pick"
[[b]]
preset = "knight"
[[grid.axes]]
field = "a.0.skill"
values = [30, 35]
[run]
fights = 1000
seed = 3
"""


def sr_row(line: str, *, to: str = "attack", amount: str = "1",
           table: str = 'weapons."war pick"') -> Callable[[Path, Path], list[str]]:
    """``balance duel strike-rank --scenario FILE`` whose row has ``line`` in it."""
    text = SR_SCENARIO.replace('weapons."war pick"', table).format(
        row=f"to = '{to}'\namount = {amount}\n{line}")
    return with_file(spec(text, "s.toml"), "duel", "strike-rank", "--scenario", "FILE")


def sr_effect(line: str, on: str = "hit") -> Callable[[Path, Path], list[str]]:
    """The same with an effect row."""
    text = SR_SCENARIO.replace(".modifiers]]", ".effects]]").format(row=f"on = '{on}'\n{line}")
    return with_file(spec(text, "s.toml"), "log", "strike-rank", "--scenario", "FILE")


RULES_FILE = (ROOT / "examples" / "rulesets" / "opposed-d10.toml").read_text()


def rules_file(old: str, new: str, *command: str) -> Callable[[Path, Path], list[str]]:
    """The opposed-d10 ruleset file with ``old`` replaced by ``new``, written as
    ``rules.toml``, then ``command`` (``RULES`` stands for the file)."""

    def case(tmp: Path, run: Path) -> list[str]:
        assert old in RULES_FILE, old
        (tmp / "rules.toml").write_text(RULES_FILE.replace(old, new, 1))
        return [str(tmp / "rules.toml") if a == "RULES" else a for a in command]

    return case


FILE_DUEL = ("duel", "RULES", "--a", "veteran", "--b", "novice", "-n", "100")

LONG = "x" * 300
DEEP = "a = " + "[" * 3000 + "]" * 3000 + "\n"


# --- house rules (crt, pool): rows of the rules language in a rule parameter ----------------
CRT_DUEL = ["duel", "crt", "--a", "duelist", "--b", "duelist", "-n", "100"]
POOL_DUEL = ["duel", "pool", "--a", "average", "--b", "average", "-n", "100"]


def crt_rule(line: str, *command: str) -> Callable[[Path, Path], list[str]]:
    """A crt command with one house rule given on the command line (its one-line form)."""
    return argv(*(command or CRT_DUEL), "--rule", f"house_rules=r:{line}")


def house_file(ruleset: str, row: str, *command: str) -> Callable[[Path, Path], list[str]]:
    """A scenario file whose [rules.house_rules.r] table is ``row`` (TOML lines)."""
    preset = "duelist" if ruleset == "crt" else "average"
    text = (f"[rules.house_rules.r]\n{row}\n[[a]]\npreset = \"{preset}\"\n[[b]]\n"
            f"preset = \"{preset}\"\n")
    return with_file(spec(text, "house.toml"),
                     *(command or ("duel", ruleset, "-n", "100")), "--scenario", "FILE")


HOUSE_SPEC = SPEC.replace("[run]", "[rules.house_rules.r]\nmodifiers = ['+1 to score when "
                                   "target.health >= 11']\n[run]")

# (id, case, words the error must contain)
# --- zones weapon rows (issue 21) ---------------------------------------------------------------
def zones_rows(row: str) -> str:
    """A zones scenario file whose hunter throws a bola given by ``row`` (TOML lines of
    its [rules.weapons.bola] table)."""
    return ('[rules.weapons.bola]\nlike = "thrown"\n' + row
            + '\n[[a]]\nranged = "bola"\n[[b]]\nname = "raider"\n')


ZONES_DUEL = ["duel", "zones", "--a", "ranged=bola", "--b", "default", "-n", "100"]
ZONES_SPEC = ('ruleset = "zones"\ndescription = "bola"\n[rules.weapons.bola]\nlike = "thrown"\n'
              'effects = EFFECTS\n[[a]]\nranged = "bola"\n[[b]]\nname = "raider"\n'
              '[[grid.axes]]\nfield = "rules.initial_gap"\nvalues = ["short", "long"]\n'
              '[run]\nfights = 100\nseed = 1\n')
ZONES_ROW_CASES = [
    ("unknown-name", "duel", 'modifiers = "+1 to attack when target.armor >= 2"',
     "weapons.bola.modifiers[0].when: in \"target.armor >= 2\", column 1: unknown name"),
    ("kinds", "log", 'modifiers = "+1 to attack when target.weapon >= 3"', "cannot compare"),
    ("word", "duel", "modifiers = \"+1 to attack when target.weapon == 'axe'\"",
     "target.weapon is never \"axe\""),
    ("condition-number", "duel", 'modifiers = "+1 to attack when self.hp + 1"',
     "a condition must be true or false"),
    ("target", "duel", 'modifiers = "+1 to parry"', "weapons.bola.modifiers[0].to"),
    ("outcome", "duel", 'effects = "on wound inflict slowed"', "weapons.bola.effects[0].on"),
    ("condition", "duel", 'effects = "on hit inflict stunned"', "weapons.bola.effects[0].inflict"),
    ("rounds", "duel", 'effects = "on hit inflict slowed for 1d3 - 1 rounds"',
     "rounds must be 1.."),
    ("like", "duel", '[rules.weapons.sling]\nlike = "slingshot"', "weapons.sling.like"),
    ("column", "duel", "reach = 2", "unknown column 'reach'"),
    ("builtin-damage", "duel", '[rules.weapons.thrown]\ndamage = 2', "rules.weapon_damage.thrown"),
    ("melee-range", "duel", '[rules.weapons.club]\nlike = "light"\nrange = "short"',
     "weapons.club.range"),
    ("melee-ammunition", "duel", '[rules.weapons.club]\nlike = "light"\nammunition = 3',
     "ammunition is for ranged weapons"),
    ("ammunition-unspent", "duel", "ammunition = 3", "carries ammunition that nothing spends"),
    ("spend-without", "duel", 'effects = "on attack spend 1 ammunition"',
     "spends ammunition but carries none"),
    ("spend-target", "duel",
     'ammunition = 2\neffects = "on attack spend 1 ammunition by target"', "who must be self"),
    ("ammunition-range", "duel",
     'ammunition = 100\neffects = "on attack spend 1 ammunition"', "weapons.bola.ammunition"),
    ("movement-target", "duel", 'modifiers = "-1 to movement when target.slowed"',
     "may read self.* and the situation but not target.slowed"),
    ("movement-dice", "log", 'modifiers = "-1 to movement when d6 >= 4"', "may not roll dice"),
    ("exact-hp", "exact", 'modifiers = "+1 to attack when self.wounds > 3"\n'
     '[rules]\ninitial_gap = "contact"\n[rules.weapons.one_handed]\n'
     'modifiers = "+1 to attack when self.wounds > 3"',
     "weapons.one_handed.modifiers[0] reads self.wounds"),
]


CASES: list[tuple[str, Callable[[Path, Path], list[str]], str]] = [
    # --- the command line ---
    ("unknown-command", argv("frobnicate"), "invalid choice"),
    ("unknown-option", argv("rulesets", "--colour"), "unrecognized arguments"),
    ("duel-unknown-ruleset", argv("duel", "nosuch", "--a", "x", "--b", "y"), "unknown ruleset"),
    ("duel-unknown-ruleset-json", argv("duel", "nosuch", "--a", "x", "--b", "y", "--json"),
     "unknown ruleset"),
    ("duel-unknown-preset", argv("duel", "crt", "--a", "nobody", "--b", "novice"), "presets:"),
    ("duel-bad-int", argv(*DUEL[:3], "novice,skill=abc", "--b", "novice"), "skill"),
    ("duel-nan", argv(*DUEL[:3], "novice,skill=nan", "--b", "novice"), "0..5"),
    ("duel-inf-float", argv(*DUEL, "--rule", "leader_break_p=inf"), "finite number (0..1)"),
    ("duel-nan-float", argv(*DUEL, "--rule", "leader_break_p=nan", "--json"),
     "finite number (0..1)"),
    ("duel-out-of-range", argv(*DUEL[:3], "novice,skill=9", "--b", "novice"), "0..5"),
    ("duel-unknown-field", argv(*DUEL[:3], "novice,luck=3", "--b", "novice"), "luck"),
    ("duel-n-zero", argv(*DUEL, "-n", "0"), "whole number >= 1"),
    ("duel-n-negative", argv(*DUEL, "-n", "-5"), "whole number >= 1"),
    ("duel-n-text", argv(*DUEL, "-n", "many"), "whole number >= 1"),
    ("duel-n-float", argv(*DUEL, "-n", "1e6"), "whole number >= 1"),
    ("duel-n-huge", argv(*DUEL, "-n", "10000000000000"), "need --yes"),
    ("duel-n-huge-json", argv(*DUEL, "-n", "10000000000000", "--json"), "need --yes"),
    ("duel-precision-nan", argv(*DUEL, "--precision", "nan"), "(0, 0.5)"),
    ("duel-precision-big", argv(*DUEL, "--precision", "0.7"), "(0, 0.5)"),
    ("duel-n-and-precision", argv(*DUEL, "-n", "10", "--precision", "0.1"), "not allowed with"),
    ("duel-seed-negative", argv(*DUEL, "--seed", "-1"), "non-negative integer"),
    ("duel-seed-float", argv(*DUEL, "--seed", "1.5"), "non-negative integer"),
    ("duel-chunk-zero", argv(*DUEL, "--chunk-size", "0"), "whole number >= 1"),
    ("duel-unknown-rule", argv(*DUEL, "--rule", "gravity=1"), "gravity"),
    ("duel-bad-rule-value", argv(*DUEL, "--rule", "extraordinary=maybe"), "extraordinary"),
    ("duel-rule-no-name", argv(*DUEL, "--rule", "=3"), "NAME=VALUE"),
    ("campaign-not-crt", argv("campaign", "zones", "--a", "x", "--b", "y"),
     "invalid choice: 'zones' (choose from 'crt')"),
    ("campaign-skill-every-zero", argv("campaign", "crt", "--a", "novice", "--b", "novice",
                                       "--skill-every", "0"), "--skill-every"),
    ("campaign-skill-growth", argv("campaign", "crt", "--a", "novice", "--b", "novice",
                                   "--skill-growth", "fast"), "choose from 'every', 'none'"),
    ("campaign-unknown-foe", argv("campaign", "crt", "--a", "novice", "--b", "nobody"),
     "unknown crt preset 'nobody'"),
    ("campaign-exact-tables", argv("campaign", "crt", "--a", "novice", "--b", "novice",
                                   "--exact"), "no exact solution"),
    ("sr-style-mix-unknown", argv("duel", "strike-rank", "--a", "skirmisher", "--b",
                                  "skirmisher", "--rule", "style_mix=per_round"),
     "per_roll, per_fight"),
    ("duel-missing-side", argv("duel", "crt", "--a", "novice"), "missing --b"),
    ("duel-too-many", argv("duel", "crt", *["--a", "novice"] * 40, "--b", "novice"),
     "crt allows 1.."),
    ("duel-unknown-scenario", argv("duel", "zones", "--scenario", "nowhere"), "nowhere"),
    ("duel-missing-scenario-file", argv("duel", "zones", "--scenario", "missing.toml"),
     "missing.toml"),
    ("duel-precision-tiny", argv(*DUEL, "--precision", "1e-300"), "at least 3.1e-05"),
    ("duel-precision-beyond-cap", argv(*DUEL, "--precision", "3e-5"), "1,000,000,000 fights"),
    ("scenario-too-deep", with_file(spec(DEEP, "deep.toml"), "duel", "zones", "--scenario",
                                    "FILE"), "nested too deeply"),
    ("scenario-not-utf8", with_file(not_utf8, "duel", "zones", "--scenario", "FILE"),
     "not UTF-8"),
    ("scenario-symlink-loop", with_file(symlink_loop, "log", "zones", "--scenario", "FILE"),
     "symbolic links"),
    ("scenario-not-toml", with_file(spec("[[a]]\nname = ", "s.toml"), "exact", "zones",
                                    "--scenario", "FILE", "--json"), "not valid TOML"),
    # zones weapon rows (issue 21): through a scenario file, a spec's [rules], --rule
    *[(f"zones-row-{name}", with_file(spec(zones_rows(row), "s.toml"), command, "zones",
                                       "--scenario", "FILE"), words)
      for name, command, row, words in ZONES_ROW_CASES],
    ("zones-row-spec", sweep_of(ZONES_SPEC.replace("EFFECTS", '"on success inflict dazed"')),
     "weapons.bola.effects[0].inflict"),
    ("zones-row-rule-one-line", argv(*ZONES_DUEL, "--rule", "weapons.bola.like=thrown",
                                     "--rule", "weapons.bola.modifiers=+1 attack"),
     "weapons.bola.modifiers[0]"),
    ("zones-row-rule-key", argv(*ZONES_DUEL, "--rule", "weapons.bola=thrown"),
     "weapons.bola: must be a table with keys like, damage"),
    # --- a row's key path on the command line (TABLE.ROW.COLUMN=VALUE, every ruleset) ---
    ("row-key-too-deep", argv(*ZONES_DUEL, "--rule", "weapons.bola.like.x=thrown"),
     "zones rules 'weapons.bola.like.x': a row's column is set as TABLE.ROW.COLUMN=VALUE"),
    ("row-key-one-value", argv(*CRT_DUEL, "--rule", "shield_block.round.x=3"),
     "crt rules 'shield_block.round.x': a row of 'shield_block' is one value, set as "
     "shield_block.round=VALUE"),
    ("row-key-unknown-row", argv(*POOL_DUEL, "--rule", "weapon_damage.sabre=3"),
     "pool rules table 'weapon_damage' has no row 'sabre'"),
    ("row-key-bad-value", argv(*POOL_DUEL, "--rule", "weapon_damage.sword=big"),
     "pool rules field 'weapon_damage.sword' must be an integer"),
    ("row-key-sr-column", argv(*SR_DUEL, "--rule", "weapons.war pick.blow=heavy"),
     "error: weapons.\"war pick\".blow: must be an integer in -20..20 or NA, got 'heavy'"),
    # a strike-rank row's column in a spec: the key path once (it was 'rules.weapons:
    # strike-rank rules field 'weapons.war pick'.blow ...')
    ("sr-row-spec-column", sweep_of(SR_SPEC.replace(
        '[[rules.weapons."war pick".modifiers]]\nto = "attack"\namount = 1\n'
        'when = "target.armor_rank >= 3"', '[rules.weapons."war pick"]\nblow = "heavy"')),
     "exp.toml: rules.weapons.\"war pick\".blow: must be an integer in -20..20 or NA"),
    ("sr-row-spec-like", sweep_of(SR_SPEC.replace(
        '[[rules.weapons."war pick".modifiers]]\nto = "attack"\namount = 1\n'
        'when = "target.armor_rank >= 3"', '[rules.weapons."war pick"]\nlike = "spoon"')),
     "exp.toml: rules.weapons.\"war pick\".like: 'spoon' is not a row"),
    ("zones-row-rule-unknown-weapon", argv(*ZONES_DUEL), "'bola' is not a ranged weapon"),
    ("zones-row-rule-name", argv(*ZONES_DUEL, "--rule", "weapons.bola.like=thrown",
                                 "--rule", "weapons.bola.effects=on hit inflict slowed "
                                 "when target.armor > 1"), "did you mean 'target.armour'"),
    ("exact-no-strategy", argv("exact", "crt", "--a", "novice", "--b", "novice", "--strategy"),
     "no equilibrium strategy"),
    ("exact-intractable-json", argv("exact", "strike-rank", "--a", "knight", "--b", "archer",
                                    "--json"), "strike-rank"),
    # --- strike-rank rows in the rules language (issue 21): --rule, --scenario, a spec ---
    ("sr-row-unknown-name", argv(*SR_DUEL, "--rule", "weapons=war pick:modifiers=+1 to attack "
                                 "when target.armor_rank >= 3"), "did you mean 'target.armour_rank'"),
    ("sr-row-one-line-typo", argv(*SR_DUEL, "--rule", "weapons=war pick:modifiers=+1 to atack "
                                  "when round == 1"), "atack"),
    ("sr-row-compare-kinds", sr_row("when = 'target.shield >= 3'"), "cannot compare"),
    ("sr-row-word-never", sr_row("when = 'target.shield == \"bucklr\"'"), "never \"bucklr\""),
    ("sr-row-condition-number", sr_row("when = 'self.wounds + 1'"), "must be true or false"),
    ("sr-row-amount-truth", sr_row("when = 'round == 1'", amount="'round > 1'"),
     "must be a whole number"),
    ("sr-row-divide-by-name", sr_row("when = 'round // self.wounds >= 1'"), "fixed number"),
    ("sr-row-unfinished", sr_row("when = 'round +'"), "ends too soon"),
    ("sr-row-hostile", sr_row("when = \"__import__('os')\""), "cannot read"),
    ("sr-row-unknown-target", sr_row("when = 'round == 1'", to="initiative"),
     "strike_rank"),
    ("sr-row-unknown-key", sr_row("wen = 'round == 1'"), "unknown key 'wen'"),
    ("sr-row-missile-parry", sr_row("when = 'round == 1'", table='missile_weapons."long bow"',
                                    to="parry"), "a missile row's modifiers"),
    ("sr-row-strike-rank-target", sr_row("when = 'target.shield == \"none\"'",
                                         to="strike_rank"), "rolled before targets"),
    ("sr-effect-rounds", sr_effect("inflict = 'disarmed'\nrounds = 2"), "omit rounds"),
    ("sr-effect-outcome", sr_effect("inflict = 'disarmed'", on="success"), "hit, miss"),
    ("sr-effect-condition", sr_effect("inflict = 'entangled'"), "disarmed, berserk"),
    ("sr-effect-spend", sr_effect("spend = 'ammunition'"), "spend"),
    ("sr-row-in-spec", sweep_of(SR_SPEC), "target.armor_rank"),
    ("sr-row-log-json", with_file(spec(SR_SCENARIO.format(row="to = 'attack'\namount = 1\n"
                                                          "when = 'self.wound > 0'"), "s.toml"),
                                  "log", "strike-rank", "--scenario", "FILE", "--json"),
     "self.wound"),
    ("log-missing-side-json", argv("log", "crt", "--a", "novice", "--json"), "missing --b"),
    ("show-unknown-json", argv("show", "nosuch", "--json"), "unknown ruleset"),
    ("matchups-unknown-preset", argv("matchups", "crt", "--entrants", "novice,nobody"),
     "nobody"),
    ("matchups-exact-and-n", argv("matchups", "crt", "--method", "exact", "-n", "100"),
     "exact round robin"),
    ("matchups-bad-entrant", argv("matchups", "crt", "--entrant", "novice,skill=99",
                                  "--entrant", "expert"), "0..5"),
    ("matchups-presets-file-missing", argv("matchups", "crt", "--presets", "nowhere.toml"),
     "nowhere.toml"),
    ("duel-presets-file-not-toml", with_file(spec("[presets\n", "p.toml"), "duel", "crt",
                                             "--presets", "FILE", "--a", "novice", "--b",
                                             "novice"), "not valid TOML"),
    ("matchups-resamples-zero", argv("matchups", "crt", "--resamples", "0"),
     "whole number >= 1"),
    ("matchups-n-huge", argv("matchups", "crt", "--entrants", "novice,expert", "-n",
                             "100000000000"), "need --yes"),
    # --- house rules: every kind of bad expression and bad row, wherever rows are given ---
    ("house-unknown-name", crt_rule('+1 to score when target.armor == "mail"'),
     "unknown name 'target.armor' (did you mean 'target.armour'"),
    ("house-compare-kinds", crt_rule("+1 to score when target.shield >= 3"), "cannot compare"),
    ("house-word-never-held", crt_rule('+1 to score when target.weapon == "two-handed"'),
     'is never "two-handed"'),
    ("house-condition-a-number", crt_rule("+1 to score when self.health + 1"),
     "a condition must be true or false"),
    ("house-amount-a-truth", crt_rule("round > 1 to score"),
     "an amount must be a whole number"),
    ("house-divide-by-name", crt_rule("self.health // target.health to damage"),
     "divides by a fixed number"),
    ("house-no-eval", crt_rule("__import__('os') to damage"), "cannot read"),
    ("house-unfinished", crt_rule("+1 to score when round +"), "ends too soon"),
    ("house-dice-bounds", crt_rule("101d6 to damage"), "1..100"),
    ("house-unknown-target", crt_rule("+1 to attack"), "score, damage"),
    ("house-not-a-sentence", crt_rule("plus one to score"), "cannot stand here"),
    ("house-pool-unknown-name", argv(*POOL_DUEL, "--rule",
                                     "house_rules=r:+1 to defence when self.wounds > 2"),
     "unknown name 'self.wounds'"),
    ("house-pool-unknown-target", argv(*POOL_DUEL, "--rule", "house_rules=r:+1 to score"),
     "attack, defence, damage"),
    ("house-file-missing-amount", house_file("crt", "modifiers = [{to = 'score'}]"),
     "house_rules.r.modifiers[0].amount: is missing"),
    ("house-file-unknown-column", house_file("crt", "modifers = ['+1 to score']"),
     "unknown key 'modifers'"),
    ("house-file-empty-row", house_file("pool", "doc = 'nothing'"),
     "needs modifiers = [...]"),
    ("house-file-effects", house_file("pool", "effects = ['on stroke inflict dazed']"),
     "house_rules.r.effects[0].on: must be one of hit, miss, got 'stroke'"),
    ("house-pool-effect-state", argv(*POOL_DUEL, "--rule", "house_rules=r:on hit set "
                                     "target.wound_points to 1"),
     "house_rules.r.set: must be one of pool, armour_wp, got 'wound_points'"),
    ("house-pool-effect-range", house_file("pool", "effects = [{on = 'hit', set = 'pool', "
                                                   "who = 'target', value = 'target.pool - 1'}]"),
     "house_rules.r.effects[0].value: in \"target.pool - 1\": pool is a whole number 0..99, "
     "and this can be -1..98"),
    ("house-pool-effect-condition", argv(*POOL_DUEL, "--rule", "house_rules=r:on hit inflict "
                                         "dazed for 1 rounds"),
     "this ruleset has no conditions to inflict"),
    ("house-pool-effect-whose", house_file("pool", "effects = [{on = 'miss', set = 'pool', "
                                                   "value = 0}]"),
     "house_rules.r.effects[0].who: is missing: whose state is set, self or target?"),
    ("house-exact-pool-effect", argv("exact", "pool", "--a", "average", "--b", "average",
                                     "--rule", "house_rules=r:on hit set target.pool to 0"),
     "house rule 'r' has an effect (on hit set target.pool to 0)"),
    ("house-exact-best-pool-effect", argv("exact", "pool", "--a", "average", "--b", "average",
                                          "--play", "best", "--rule",
                                          "house_rules=r:on miss set self.armour_wp to 0"),
     "pool has no exact best play here: house rule 'r' has an effect (on miss set "
     "self.armour_wp to 0)"),
    ("house-pool-equilibrium-effect", argv("duel", "pool", "--a", "average,pool_policy="
                                           "equilibrium", "--b", "average", "-n", "100",
                                           "--rule", "house_rules=r:on hit set target.pool to 0"),
     "pool_policy 'equilibrium' samples the exact game's strategies, and pool has no exact "
     "solution here: house rule 'r' has an effect"),
    ("pool-exact-turn-flags", argv("exact", "pool", "--a", "militia", "--a", "militia", "--a",
                                   "militia", "--b", "duellist", "--rule",
                                   "margin_failure_damage=true"),
     "pool has no exact solution here: 6,341,787,648 states (health values [16, 16, 16, 4], "
     "pools [3, 3, 3, 6], full defence of A militia, A militia, A militia (x2 each), aid held "
     "by A militia, A militia, A militia) exceed the solver's limit of 1,000,000"),
    ("pool-equilibrium-turn-flags", argv("duel", "pool", "--a", "militia,pool_policy="
                                         "equilibrium", "--a", "militia", "--a", "militia",
                                         "--b", "duellist", "-n", "100", "--rule",
                                         "margin_failure_damage=true"),
     "pool_policy 'equilibrium' samples the exact game's strategies, and pool has no exact "
     "solution here: 6,341,787,648 states"),
    ("house-effect-unknown-outcome", crt_rule("on stroke inflict defend_only for 1 rounds"),
     "house_rules.r.on: must be one of wound, got 'stroke'"),
    ("house-effect-unknown-condition", crt_rule("on wound inflict dazed for 1 rounds"),
     "must be one of defend_only, got 'dazed'"),
    ("house-effect-rounds-range", house_file("crt", "effects = [{on = 'wound', inflict = "
                                                    "'defend_only', rounds = 0}]"),
     "house_rules.r.effects[0].rounds"),
    ("house-effect-bad-shield", crt_rule("on wound set target.shield to kite"),
     "must be one of none, buckler, round, large, got 'kite'"),
    ("house-effect-nothing-to-spend", crt_rule("on wound spend 1 ammunition"),
     "this ruleset has no resources to spend"),
    ("house-exact-crt-effect", crt_rule("on wound inflict defend_only for 1 rounds", "exact",
                                        "crt", "--a", "duelist", "--b", "duelist", "--rule",
                                        "extraordinary=false"),
     "house rule 'r' has an effect (on wound inflict defend_only on target for 1 rounds)"),
    ("house-file-row-not-table", house_file("pool", "modifiers = 3"),
     "house_rules.r.modifiers[0]"),
    ("house-file-bad-when", house_file("pool", "modifiers = [{to = 'defence', amount = 1, "
                                               "when = 'self.pool >'}]", "log", "pool"),
     "house_rules.r.modifiers[0].when"),
    # the key path once, after the spec's own 'rules.' (it was 'rules.house_rules: house_rules.r...')
    ("house-spec-bad-when", sweep_of(HOUSE_SPEC.replace("target.health", "target.helth")),
     "exp.toml: rules.house_rules.r.modifiers[0].when: in \"target.helth >= 11\", column 1: "
     "unknown name 'target.helth' (did you mean 'target.health'"),
    ("house-spec-dry-run", sweep_of(HOUSE_SPEC.replace(">= 11", ">= true"), "--dry-run"),
     "exp.toml: rules.house_rules.r.modifiers[0].when: in \"target.health >= true\", column 1: "
     "cannot compare"),
    ("house-exact-crt-score-dice", crt_rule("1d6 to score", "exact", "crt", "--a", "duelist",
                                            "--b", "duelist", "--rule",
                                            "extraordinary=false"),
     "house rule 'r' rolls dice in a score modifier"),
    ("house-exact-pool-round", argv("exact", "pool", "--a", "average", "--b", "average",
                                    "--rule", "house_rules=r:+1 to attack when round == 1"),
     "house rule 'r' reads round"),
    ("house-exact-pool-dice", argv("exact", "pool", "--a", "average", "--b", "average",
                                   "--rule", "house_rules=r:1d4 to damage"),
     "house rule 'r' rolls dice"),
    ("house-matchups-rules-missing", argv("matchups", "crt", "--rules", "nowhere.toml"),
     "nowhere.toml"),
    ("show-unknown-table", argv("show", "crt", "shield_blok"),
     "no rules table 'shield_blok' (did you mean 'shield_block'?)"),
    ("show-unknown-row", argv("show", "crt", "shield_block", "kite", "--json"),
     "no row 'kite'"),
    ("show-rules-without-table", argv("show", "crt", "--rule", "max_rounds=3"),
     "go with TABLE"),
    # a round count the kernels' int16 rounds cannot hold was a traceback (OverflowError)
    ("crt-max-rounds-over-int16", argv("duel", "crt", "--a", "novice", "--b", "novice",
                                       "--rule", "max_rounds=100000"),
     "'max_rounds' must be in 1..10000"),
    # --- the budget: estimated (CPU-timed pilot, traced memory) and refused before any work;
    # none of these allocates what it asks for ---
    ("matchups-resamples-huge", argv("matchups", "crt", "--entrants", "novice,veteran", "-n",
                                     "1000", "--resamples", "10000000000000"),
     "--resamples 10,000,000,000,000: 10,000,000,000,000 replicates would take about"),
    ("matchups-resamples-huge-memory", argv("matchups", "crt", "--entrants", "novice,veteran",
                                            "-n", "1000", "--resamples", "10000000000000"),
     "of memory need --yes"),
    ("matchups-resamples-huge-json", argv("matchups", "crt", "--entrant", "novice",
                                          "--entrant", "veteran", "--method", "simulate",
                                          "--resamples", "10000000000000", "--json"),
     "--resamples 10,000,000,000,000"),
    ("matchups-best-n-huge", argv("matchups", "crt", "--entrants", "novice,veteran", "--play",
                                  "best", "--method", "simulate", "-n", "10000000000000"),
     "4 pairs of -n 10,000,000,000,000: 40,000,000,000,000 fights would take at least"),
    ("matchups-workers-thousands", argv("matchups", "crt", "--workers", "100000"), "1..256"),
    ("matchups-best-workers-thousands", argv("matchups", "crt", "--play", "best", "--workers",
                                             "100000"), "1..256"),
    ("tune-round-robin-n-huge", argv("tune", "crt", "--entrants", "novice,veteran", "--knob",
                                     "skill", "-n", "10000000000000"),
     "-n 10,000,000,000,000 over 2 ordered pairs: 20,000,000,000,000 fights would take at "
     "least"),
    ("tune-max-fights-huge", argv("tune", "crt", "--a", "novice", "--b", "veteran", "--knob",
                                  "a.0.skill", "--method", "simulate", "--max-fights",
                                  "10000000000000", "--json"),
     "--max-fights 10,000,000,000,000 (two values simulated to it)"),
    ("bench-memory-n-huge", argv("bench", "--ruleset", "crt", "--memory", "--memory-n",
                                 "10000000000000"),
     "--memory-n 10,000,000,000,000 (crt / plain duel): 10,000,000,000,000 fights would"),
    ("duel-chunk-huge", argv(*DUEL, "-n", "100000000000", "--chunk-size", "100000000000"),
     "-n 100,000,000,000 --chunk-size 100,000,000,000: "),
    ("duel-chunk-huge-memory", argv(*DUEL, "-n", "100000000000", "--chunk-size",
                                    "100000000000"), "of memory need --yes"),
    ("duel-best-n-huge", argv(*DUEL, "--play", "best", "-n", "10000000000000"),
     "fights would take at least"),
    ("explore-experiments-file", with_file(a_file, "explore", "crt", "--experiments", "FILE"),
     "is a file; give a folder for the saved experiments"),
    ("explore-experiments-under-file", lambda t, r: ["explore", "crt", "--experiments",
                                                     str(a_file(t) / "saved")],
     "is a file, not a folder"),
    ("bench-unknown-ruleset", argv("bench", "--ruleset", "nosuch", "--json"),
     "unknown ruleset"),
    ("bench-seconds-nan", argv("bench", "--ruleset", "crt", "--seconds", "nan"), "(0, 600]"),
    ("bench-seconds-negative", argv("bench", "--ruleset", "crt", "--seconds", "-1"),
     "(0, 600]"),
    ("bench-seconds-huge", argv("bench", "--ruleset", "crt", "--seconds", "1e9", "--json"),
     "(0, 600]"),
    ("new-bad-name", argv("new", "ruleset", "../evil"), "lowercase Python identifier"),
    ("new-taken-name", argv("new", "ruleset", "crt"), "taken"),
    ("new-out-missing", argv("new", "ruleset", "good", "--out", "/proc/balance-test"),
     "does not exist"),
    ("explore-unknown-ruleset", argv("explore", "nosuch"), "unknown ruleset"),
    ("explore-bad-seed", argv("explore", "crt", "--seed", "-1"), "non-negative integer"),
    # --- experiment files ---
    ("spec-missing", argv("sweep", "nowhere.toml"), "does not exist"),
    ("spec-is-folder", with_file(lambda t: t, "sweep", "FILE"), "is a folder"),
    ("spec-symlink-loop", with_file(symlink_loop, "sweep", "FILE"), "symbolic links"),
    ("spec-not-utf8", with_file(not_utf8, "sweep", "FILE"), "not UTF-8"),
    ("spec-not-toml", sweep_of("ruleset = \n"), "not valid TOML"),
    ("spec-too-deep", sweep_of(DEEP), "nested too deeply"),
    ("spec-no-ruleset", sweep_of(edited('ruleset = "crt"\n', "")), "ruleset"),
    ("spec-unknown-ruleset", sweep_of(edited('"crt"', '"nosuch"')), "unknown ruleset"),
    ("spec-streams-unknown", sweep_of(edited('ruleset = "crt"\n',
                                             'ruleset = "crt"\nstreams = "shared"\n')),
     "streams: must be one of common, independent, got 'shared'"),
    ("spec-streams-number", sweep_of(edited('ruleset = "crt"\n',
                                            'ruleset = "crt"\nstreams = 1\n')),
     "streams: must be a string (one of common, independent)"),
    ("spec-unknown-key", sweep_of("colour = 1\n" + SPEC), "unknown key 'colour'"),
    ("spec-fights-zero", sweep_of(edited("fights = 1000", "fights = 0")), "run.fights"),
    ("spec-fights-text", sweep_of(edited("fights = 1000", 'fights = "many"')), "run.fights"),
    # 202 cells of a billion fights on one core: days even at crt's fastest rate
    ("spec-fights-huge", sweep_of(edited("fights = 1000", "fights = 1_000_000_000").replace(
        'field = "a.0.skill"\nvalues = [0, 1]',
        'field = "a.0.combats"\nvalues = { start = 0, stop = 100 }'), "--executor", "serial"),
     "need --yes"),
    ("spec-precision-nan", sweep_of(edited("fights = 1000", "precision = nan")),
     "strictly between 0 and 0.5"),
    ("spec-precision-inf", sweep_of(edited("fights = 1000", "precision = inf")),
     "strictly between 0 and 0.5"),
    ("spec-confidence", sweep_of(edited("seed = 3", "seed = 3\nconfidence = 1.5")),
     "run.confidence"),
    ("spec-seed-negative", sweep_of(edited("seed = 3", "seed = -3")), "run.seed"),
    ("spec-chunk-zero", sweep_of(edited("seed = 3", "seed = 3\nchunk_size = 0")),
     "run.chunk_size"),
    ("spec-axis-unknown-field", sweep_of(edited('"a.0.skill"', '"a.0.luck"')), "luck"),
    ("spec-axis-empty", sweep_of(edited("values = [0, 1]", "values = []")), "at least one"),
    ("spec-axis-range-step", sweep_of(edited("values = [0, 1]",
                                             "values = { start = 0, stop = 3, step = 0 }")),
     "step"),
    ("spec-axis-out-of-range", sweep_of(edited("values = [0, 1]", "values = [0, 99]")), "0..5"),
    ("spec-axis-nan", sweep_of(edited("values = [0, 1]", "values = [0, nan]")), "skill"),
    ("spec-axis-duplicate", sweep_of(edited("values = [0, 1]", "values = [1, 1]")),
     "already value"),
    ("spec-too-many-cells", sweep_of(edited("values = [0, 1]",
                                            "values = { start = 0, stop = 5_000_000 }")),
     "at most"),
    ("spec-table-format", sweep_of(SPEC + '[outputs]\ntables = ["xlsx"]\n'), "xlsx"),
    ("spec-verdict-value", sweep_of(SPEC + '[verdict]\nvalue = "draw"\n'),
     "verdict.value: must be one of a_win, score, got 'draw'"),
    ("spec-verdict-value-number", sweep_of(SPEC + '[verdict]\nvalue = 1\n'), "verdict.value"),
    ("spec-verdict-worth-margin", sweep_of(SPEC + "[verdict]\nworth_margin = 0.7\n"),
     "verdict.worth_margin: must be a number strictly between 0 and 0.5, got 0.7"),
    ("spec-verdict-dominated-sure", sweep_of(SPEC + "[verdict]\ndominated_sure = 0.3\n"),
     "verdict.dominated_sure: must be a number above 0.5 and at most 1, got 0.3"),
    ("spec-verdict-staircase-share", sweep_of(SPEC + '[verdict]\nstaircase_share = "most"\n'),
     "verdict.staircase_share: must be a number above 0.2 and at most 1"),
    ("spec-verdict-negligible-exchange", sweep_of(SPEC + '[verdict]\nnegligible_exchange = 2\n'),
     "verdict.negligible_exchange: must be a number above 0 and at most 1"),
    ("spec-campaign-fights", sweep_of(SPEC + "[campaign]\nfights = 0\n"),
     "campaign.fights: must be a whole number 1..1_000, got 0"),
    ("spec-campaign-key", sweep_of(SPEC + "[campaign]\nfight = 3\n"), "campaign"),
    ("spec-campaign-peers", sweep_of(SPEC + '[campaign]\npeers = "yes"\n'),
     "campaign.peers: must be true or false"),
    ("spec-campaign-growth", sweep_of(SPEC + '[campaign]\nskill_growth = "fast"\n'),
     "campaign.skill_growth"),
    ("spec-campaign-ruleset", sweep_of(SPEC.replace('ruleset = "crt"', 'ruleset = "pool"')
                                       .replace('"novice"', '"duellist"')
                                       .replace("a.0.skill", "a.0.combat")
                                       .replace("b.0.skill", "b.0.combat")
                                       .replace("[0, 2]", "[1, 2]").replace("[0, 1]", "[1, 2]")
                                       + "[campaign]\nfights = 3\n"),
     "campaign: only a ruleset whose fighters grow by surviving follows careers (crt)"),
    ("spec-plot-kind", sweep_of(SPEC + '[[outputs.plots]]\nkind = "pie"\nx = "a.0.skill"\n'),
     "heatmap"),
    ("spec-exact-with-fights", sweep_of(edited("seed = 3", 'seed = 3\nmethod = "exact"')),
     "exact"),
    ("spec-dry-run", lambda t, r: ["sweep", str(spec(edited("fights = 1000", "fights = -1"))(t)),
                                   "--dry-run"], "run.fights"),
    # a run its first cell shows cannot be done: refused before anything is written
    ("spec-best-exact-unsolvable", sweep_of(edited("fights = 1000\n", 'method = "exact"\n'
                                                   'play = "best"\n')),
     "cell a.0.skill=0, b.0.skill=0: crt has no exact best play here: the Extraordinary "
     "tables are on"),
    ("spec-best-exact-unsolvable-dry-run",
     sweep_of(edited("fights = 1000\n", 'method = "exact"\nplay = "best"\n'), "--dry-run"),
     "crt has no exact best play here"),
    # --- code that would run without a word: refused ---
    ("import-sweep", evil_spec("--out", "out"), "would import and run the Python module"),
    ("import-sweep-dry-run", evil_spec("--dry-run"), "--allow-import"),
    ("import-sweep-json", evil_spec("--json"), "--allow-import"),
    ("import-duel", evil_words("duel", "EVIL", "--a", "x", "--b", "y"), "'evilmod'"),
    ("import-exact-json", evil_words("exact", "EVIL", "--a", "x", "--b", "y", "--json"),
     "--allow-import"),
    ("import-log", evil_words("log", "EVIL", "--a", "x", "--b", "y"), "--allow-import"),
    ("import-show", evil_words("show", "EVIL"), "--allow-import"),
    ("import-matchups", evil_words("matchups", "EVIL"), "--allow-import"),
    ("import-bench", evil_words("bench", "--ruleset", "EVIL"), "--allow-import"),
    ("import-report", evil_run, "--allow-import"),
    # --- the run folder and executor options ---
    ("out-under-proc", lambda t, r: ["sweep", str(spec(SPEC)(t)), "--out",
                                     "/proc/balance-test/run"], "cannot create"),
    ("out-under-file", lambda t, r: ["sweep", str(spec(SPEC)(t)), "--out",
                                     str(a_file(t) / "run")], "is a file"),
    ("out-is-file", lambda t, r: ["sweep", str(spec(SPEC)(t)), "--out", str(a_file(t))],
     "is a file; give a folder"),
    ("out-name-too-long", lambda t, r: ["sweep", str(spec(SPEC)(t)), "--out", str(t / LONG)],
     "bytes long"),
    ("out-foreign-folder", lambda t, r: ["sweep", str(spec(SPEC)(t)), "--out",
                                         str(a_full_folder(t))], "not a run directory"),
    ("out-holds-a-run", damaged_run(lambda run: None, "sweep", "SPEC", "--out", "RUN"),
     "already holds a run"),
    ("out-other-seed", lambda t, r: ["sweep", str(spec(edited("seed = 3", "seed = 4"),
                                                       "other.toml")(t)),
                                     "--out", str(copy_run(t, r)), "--resume"], "seed"),
    ("out-locked", locked_run, "in use by the run of process"),
    ("workers-zero", sweep_of(SPEC, "--workers", "0"), "whole number >= 1"),
    ("workers-thousands", sweep_of(SPEC, "--workers", "100000"), "1..256"),
    ("scheduler-no-port", sweep_of(SPEC, "--scheduler", "localhost"), "PORT"),
    ("scheduler-bad-port", sweep_of(SPEC, "--scheduler", "tcp://localhost:99999"),
     "1..65535"),
    ("scheduler-bad-protocol", sweep_of(SPEC, "--scheduler", "smtp://localhost:25"),
     "unknown protocol"),
    ("scheduler-not-dask", sweep_of(SPEC, "--executor", "serial", "--scheduler",
                                    "tcp://127.0.0.1:8786"), "needs executor 'dask'"),
    # --- damaged run folders and files ---
    ("meta-not-json-resume", damaged_run(write_file("meta.json", b"{not json"), "sweep",
                                         "SPEC", "--out", "RUN", "--resume"), "not valid JSON"),
    ("meta-not-json-plot", damaged_run(write_file("meta.json", b"{not json"), "plot", "RUN"),
     "not valid JSON"),
    ("meta-list-report", damaged_run(write_file("meta.json", b"[1, 2]"), "report", "RUN"),
     "JSON list"),
    ("meta-too-deep", damaged_run(write_file("meta.json", b"[" * 100_000 + b"]" * 100_000),
                                  "plot", "RUN"), "not valid JSON"),
    ("meta-entropy-text", damaged_run(meta_edit(entropy="abc"), "sweep", "SPEC", "--out", "RUN",
                                      "--resume"), "'entropy' must be a whole number"),
    ("meta-entropy-float", damaged_run(meta_edit(entropy=1.5), "report", "RUN"), "'entropy'"),
    ("meta-no-spec", damaged_run(meta_edit(spec=DROP), "report", "RUN"), "'spec'"),
    ("meta-streams-unknown", damaged_run(meta_edit(streams="shared"), "report", "RUN"),
     "'streams' must be common or independent"),
    ("winners-damaged-report", damaged_run(write_file("winners.npz", b"PK garbage"), "report",
                                           "RUN"), "winners.npz does not match the checksum"),
    ("meta-no-spec-resume", damaged_run(meta_edit(spec=DROP), "sweep", "SPEC", "--out", "RUN",
                                        "--resume"), "'spec'"),
    ("meta-axes-not-list", damaged_run(meta_edit(axes="a.0.skill"), "plot", "RUN"), "'axes'"),
    ("meta-outputs-escape", damaged_run(meta_edit(outputs=["../../etc/passwd.png"]), "report",
                                        "RUN"), "'outputs'"),
    ("meta-wrong-format", damaged_run(meta_edit(format="other/9"), "plot", "RUN"),
     "is not a balance-run/1"),
    ("run-not-a-run", lambda t, r: ["plot", str(t)], "not a run directory"),
    ("run-missing", argv("report", "no-such-run"), "not a run directory"),
    ("parquet-corrupt-plot", damaged_run(write_file("results.parquet", b"PAR1 garbage PAR1"),
                                         "plot", "RUN"), "checksum"),
    ("parquet-corrupt-report", damaged_run(write_file("results.parquet", os.urandom(4096)),
                                           "report", "RUN"), "checksum"),
    ("parquet-corrupt-resealed", damaged_run(
        both(write_file("results.parquet", b"PAR1 garbage PAR1"), reseal), "plot", "RUN"),
     "cannot be read"),
    ("csv-truncated", damaged_run(both(lambda run: (run / "results.parquet").unlink(),
                                       truncate("results.csv", 0.6)), "report", "RUN"),
     "checksum"),
    ("csv-truncated-resealed", damaged_run(
        both(lambda run: (run / "results.parquet").unlink(), truncate("results.csv", 0.6),
             reseal), "plot", "RUN"), "rows but the run has 4 cells"),
    # --- checking cannot be turned off, and both tables are checked ---
    ("meta-no-checksums-plot", damaged_run(meta_edit(checksums=DROP), "plot", "RUN"),
     "has no 'checksums' key, so the results tables cannot be checked"),
    ("meta-no-checksums-report", damaged_run(meta_edit(checksums=DROP), "report", "RUN"),
     "--resume` writes the tables and their checksums again"),
    ("meta-no-checksums-failed", damaged_run(meta_edit(checksums=DROP, status="failed"),
                                             "plot", "RUN"), "it did not finish"),
    ("meta-checksums-lack-csv", damaged_run(lambda run: meta_edit(checksums={
        "results.parquet": json.loads((run / "meta.json").read_text())["checksums"][
            "results.parquet"]})(run), "plot", "RUN"), "records no checksum for results.csv"),
    ("csv-edited-beside-parquet", damaged_run(edit_csv, "report", "RUN"),
     "results.csv is not the table this run wrote (its checksum differs from the one in "
     "meta.json, unlike the results.parquet beside it"),
    ("csv-edited-beside-parquet-plot", damaged_run(edit_csv, "plot", "RUN"),
     "results.csv is not the table this run wrote"),
    ("no-table", damaged_run(both(lambda run: (run / "results.parquet").unlink(),
                                  lambda run: (run / "results.csv").unlink()), "plot", "RUN"),
     "no results table"),
    ("plot-unknown-column", damaged_run(lambda run: None, "plot", "RUN", "--x", "nosuch"),
     "nosuch"),
    ("plot-bad-where", damaged_run(lambda run: None, "plot", "RUN", "--where", "oops"),
     "FIELD=VALUE"),
    ("plot-value-not-number", damaged_run(lambda run: None, "plot", "RUN", "--value", "cell"),
     "not a number"),
    ("plot-out-is-file", lambda t, r: ["plot", str(copy_run(t, r)), "--out", str(a_file(t))],
     "is a file"),
    ("plot-out-too-long", lambda t, r: ["plot", str(copy_run(t, r)), "--out",
                                        str(t / LONG / "plots")], "bytes long"),
    ("report-out-is-file", lambda t, r: ["report", str(copy_run(t, r)), "--out",
                                         str(a_file(t))], "is a file"),
    ("report-out-under-proc", lambda t, r: ["report", str(copy_run(t, r)), "--out",
                                            "/proc/balance-test/report"],
     "--out /proc/balance-test/report: "),
    # a file system that refuses what no check foresaw (as root every folder is "writable")
    ("report-out-under-sys", lambda t, r: ["report", str(copy_run(t, r)), "--out",
                                           "/sys/balance-test-report"],
     "--out /sys/balance-test-report: "),
    ("report-out-is-proc", lambda t, r: ["report", str(copy_run(t, r)), "--out", "/proc"],
     "--out /proc: "),
    ("plot-out-under-proc", lambda t, r: ["plot", str(copy_run(t, r)), "--out",
                                          "/proc/balance-test/plots"],
     "--out /proc/balance-test/plots: "),
    ("plot-out-under-sys", lambda t, r: ["plot", str(copy_run(t, r)), "--out",
                                         "/sys/balance-test-plots"], "--out /sys/balance-test-plots: "),
    # --- options that would be silently ignored, and misleading messages ---
    ("tune-margin-knob-mode", argv("tune", "crt", "--a", "novice", "--b", "veteran", "--knob",
                                   "a.0.combats", "--margin", "inf"),
     "--margin applies to the round robin mode (--entrants) only"),
    ("tune-margin-knob-mode-json", argv("tune", "crt", "--a", "novice", "--b", "veteran",
                                        "--knob", "a.0.combats", "--margin", "0.05", "--json"),
     "--margin applies to the round robin mode"),
    ("tune-max-fights-round-robin", argv("tune", "crt", "--entrants", "novice,veteran",
                                         "--knob", "combats", "--max-fights", "100"),
     "--max-fights applies to the matchup mode"),
    ("tune-margin-inf-round-robin", argv("tune", "crt", "--entrants", "novice,veteran",
                                         "--knob", "combats", "--margin", "inf"),
     "margin must be a rate strictly between 0 and 0.5, got inf"),
    ("tune-play-best-round-robin", argv("tune", "crt", "--entrants", "novice,veteran",
                                        "--knob", "combats", "--play", "best"),
     "--play best applies to the matchup mode"),
    ("tune-bounds-outside-the-rules-range", argv("tune", "pool", "--a", "duellist", "--b",
                                                 "average", "--knob", "b.0.coordination",
                                                 "--bounds", "0,5"),
     "bounds of b.0.coordination must be low < high inside 1..10 (the range the rules allow)"),
    ("new-out-is-file", with_file(a_file, "new", "ruleset", "good", "--out", "FILE"),
     "is a file, not a folder; give the folder to write the ruleset file in"),
    # a ruleset file with a mistake: refused before any fight, naming the line and the key
    ("file-missing", argv("duel", "nowhere.toml", "--a", "x", "--b", "y"), "does not exist"),
    ("file-expression-typo", rules_file("target.roll >=", "target.rol >=", *FILE_DUEL),
     "line 44: actions[0].outcomes[0].when"),
    ("file-unknown-key", rules_file('range = [0, 10]\ndefault = 3', 'range = [0, 10]\ndefalt = 3',
                                    *FILE_DUEL), "line 12: fighter.skill.defalt"),
    ("file-default-out-of-range", rules_file("default = 3\ndoc = \"added", "default = 30\n"
                                             "doc = \"added", *FILE_DUEL),
     "fighter.skill.default: must be a whole number 0..10"),
    ("file-not-toml", rules_file("[end]", "[end", "exact", "RULES", "--a", "veteran", "--b",
                                 "novice"), "not valid TOML"),
    ("file-amount-as-condition", rules_file('damage = 1', 'damage = "self.roll > 3"',
                                            *FILE_DUEL), "an amount must be a whole number"),
    ("file-bad-preset", rules_file("skill = 5", "skill = 50", *FILE_DUEL), "presets.veteran"),
    ("file-sweep-spec", lambda t, r: ["sweep", str(spec(edited('"crt"', '"nowhere.toml"'))(t))],
     "nowhere.toml"),
]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every path under ``folder`` with its size and modification time."""
    out = {}
    for path in [folder, *folder.rglob("*")]:
        info = path.lstat()
        out[str(path.relative_to(folder))] = (info.st_size, info.st_mtime_ns)
    return out


def run_main(words: list[str]) -> int:
    try:
        return main(words)
    except SystemExit as stop:  # argparse's own errors
        return int(stop.code or 0)


TWICE = re.compile(r"(?:error: |: )(?:rules\.)?([\w\"]+(?:\.[\w\" ]+)*): \1[.\[:]")
"""A key path named twice (``rules.house_rules: house_rules.r.when``): a re-placed error that
kept its path in the message and got it again as its place."""


@pytest.mark.parametrize(("case", "words"), [(c, w) for _, c, w in CASES],
                         ids=[i for i, _, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
        case: Callable[[Path, Path], list[str]], words: str, finished: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    command = case(work, finished)
    before = snapshot(work)
    try:
        status = run_main(command)
        after = snapshot(work)
    finally:
        while HELD:
            HELD.pop().release()
    out, err = capsys.readouterr()
    assert status == 2, (command, out, err)
    assert err.count("\n") == 1 and err.startswith("balance: error: "), err
    assert "Traceback" not in err and out == "", (out, err)
    assert words in err, err
    assert not TWICE.search(err), f"the place is named twice: {err}"
    assert after == before, sorted(set(after.items()) ^ set(before.items()))


def test_the_table_is_large_enough() -> None:
    assert len(CASES) >= 60
    assert len({i for i, _, _ in CASES}) == len(CASES)


ENTRY_POINT = [
    ["sweep", "nowhere.toml", "--json"],
    # a MemoryError traceback once: refused by the budget before it allocates
    ["tune", "crt", "--entrants", "novice,veteran", "--knob", "skill", "-n", "10000000000000"],
]


@pytest.mark.parametrize("words", ENTRY_POINT, ids=[w[0] for w in ENTRY_POINT])
def test_the_real_entry_point_answers_the_same(words: list[str], tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "balance", *words], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("balance: error: ")
    assert done.stdout == "" and list(tmp_path.iterdir()) == []


def test_bare_balance_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    for command in ("duel", "exact", "sweep", "plot", "report", "matchups", "bench"):
        assert command in out
