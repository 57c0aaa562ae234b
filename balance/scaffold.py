"""``balance new ruleset NAME``: write a ruleset that passes the contract as written.

By default it is a **ruleset file**, ``NAME.toml`` (``docs/ruleset-file.md``): the
opposed-d10 duel below as data, which every command takes by its path -- no Python, no
install.  ``--package`` (:func:`new_ruleset`) writes the same system as a Python package
instead, for rules a file cannot say.

The package is a small, complete example to edit -- an opposed-d10 duel: each round both
fighters roll a d10 and add their skill, the higher total hits for ``damage``, and the first
to run out of health loses.  It has the same shape as the built-in rulesets (``rules.py``,
``presets.py``, ``kernel.py``, ``reference.py``, the ruleset object in ``__init__.py``), a
``pyproject.toml`` that registers it in the ``balance.rulesets`` entry-point group, and a
test running :func:`balance.testing.check_ruleset` over it.  The kernel is one round of
NumPy (:func:`balance.rounds.play_rounds` owns the loop).

After ``pip install -e ./NAME`` every command takes it by name: ``balance duel NAME --a
veteran --b novice``, ``balance sweep``, ``balance report``, ``balance matchups``.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from .errors import SpecError

__all__ = ["new_ruleset", "new_ruleset_file"]

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")

_FILES: dict[str, str] = {
    "pyproject.toml": '''\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "0.1.0"
description = "The {name} ruleset for balance"
requires-python = ">=3.11"
dependencies = ["balance", "numpy"]

[project.entry-points."balance.rulesets"]
{name} = "{name}:RULESET"

[tool.setuptools]
packages = ["{name}"]
''',
    "README.md": '''\
# {name}

A ruleset for `balance`: an opposed-d10 duel to edit into your own rules.

```sh
pip install -e .                         # registers it: every balance command knows '{name}'
balance show {name}
balance duel {name} --a veteran --b novice -n 100000 --seed 1
balance log {name} --a veteran --b novice --seed 3
python -m pytest tests                   # the ruleset contract (balance.testing.check_ruleset)
```

Files: `{name}/rules.py` (fighters and rule parameters, each with its provenance tag),
`{name}/presets.py`, `{name}/kernel.py` (one vectorised round), `{name}/reference.py` (one
plain-Python fight, narrated), `{name}/__init__.py` (the ruleset object).
''',
    "{name}/__init__.py": '''\
"""The ``{name}`` ruleset: an opposed-d10 duel."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from balance.rulesets.base import BenchCase, Log, Ruleset, Side

from . import kernel, reference
from .presets import PRESETS
from .rules import CAUSES, Combatant, Rules

__all__ = ["RULESET", "Combatant", "Rules"]


class {cls}(Ruleset):
    """Each round both roll d10 + skill; the higher total hits for ``damage``."""

    name: ClassVar[str] = "{name}"
    title: ClassVar[str] = "Opposed d10 duel"
    Combatant: ClassVar[type] = Combatant
    Rules: ClassVar[type] = Rules
    causes = CAUSES
    presets: ClassVar[Any] = PRESETS
    max_side: ClassVar[int] = 1

    def simulate(self, rules: Rules, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Any:
        return kernel.simulate(rules, side_a[0], side_b[0], n=n, rng=rng)

    def fight(self, rules: Rules, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Any:
        return reference.fight(rules, side_a[0], side_b[0], rng=rng, log=log)

    def bench_cases(self) -> list[BenchCase]:
        return [BenchCase("duel", "veteran against novice", Rules(), (PRESETS["veteran"],),
                          (PRESETS["novice"],))]

    def inert_fields(self) -> dict[str, str]:
        # The contract checks that every other field changes some fight (in the bench
        # cases, else in the matchups field_witnesses() returns): a new field that only a
        # special matchup shows needs a Witness there; one that never can, a reason here.
        return {{"name": "display name: only the narration shows it"}}


RULESET = {cls}()
''',
    "{name}/rules.py": '''\
"""Fighters and rule parameters.  Every field says where it comes from: TEXT (your rules
say so), AMBIG (a reading of unclear text) or DEFAULT (a guess to fill a gap)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from balance.fields import check_fields, param
from balance.outcomes import EndCauses

CAUSES = EndCauses("down", "max_rounds")
"""How a fight ends: someone is down, or the round cap is reached (a draw)."""


@dataclass(frozen=True, kw_only=True)
class Combatant:
    _owner: ClassVar[str] = "{name} combatant"

    name: str = param("fighter", tag="TEXT", doc="display name")
    skill: int = param(0, tag="TEXT", low=0, high=10, doc="added to the d10")
    health: int = param(5, tag="TEXT", low=1, high=50, doc="hits it can take")
    stance: str = param("steady", tag="DEFAULT", choices=("steady", "reckless"), policy=True,
                        doc="reckless: +2 to the roll, but hits on it do double damage")

    def __post_init__(self) -> None:
        check_fields(self)


@dataclass(frozen=True, kw_only=True)
class Rules:
    _owner: ClassVar[str] = "{name} rules"

    damage: int = param(1, tag="TEXT", low=1, high=10, doc="damage of a hit")
    ties: str = param("nothing", tag="AMBIG", choices=("nothing", "both_hit"),
                      doc="equal totals: nobody hits, or both do")
    max_rounds: int = param(100, tag="DEFAULT", low=1, high=10_000,
                            doc="rounds after which the fight is a draw")

    def __post_init__(self) -> None:
        check_fields(self)
''',
    "{name}/presets.py": '''\
"""Named fighters: ``balance duel {name} --a veteran --b novice``."""

from __future__ import annotations

from types import MappingProxyType

from .rules import Combatant

PRESETS = MappingProxyType({{
    "novice": Combatant(name="novice", skill=0),
    "veteran": Combatant(name="veteran", skill=2),
    "berserker": Combatant(name="berserker", skill=1, stance="reckless"),
}})
''',
    "{name}/kernel.py": '''\
"""The vectorised kernel: one round of every live fight (fights along axis 0);
``balance.rounds.play_rounds`` owns the loop, removes finished fights and keeps the tally."""

from __future__ import annotations

from typing import Any

import numpy as np

from balance.outcomes import Outcomes
from balance.rounds import Ended, play_rounds

from .rules import CAUSES, Combatant, Rules


def simulate(rules: Rules, a: Combatant, b: Combatant, *, n: int,
             rng: np.random.Generator) -> Outcomes:
    """``n`` duels of ``a`` against ``b``."""
    state = {{"health_a": np.full(n, a.health, np.int32),
              "health_b": np.full(n, b.health, np.int32)}}
    bonus_a = a.skill + (2 if a.stance == "reckless" else 0)
    bonus_b = b.skill + (2 if b.stance == "reckless" else 0)
    hurt_a = rules.damage * (2 if a.stance == "reckless" else 1)
    hurt_b = rules.damage * (2 if b.stance == "reckless" else 1)

    def one_round(s: Any, rng: np.random.Generator, round_no: int) -> Ended:
        live = len(s["health_a"])
        total_a = rng.integers(1, 11, live) + bonus_a
        total_b = rng.integers(1, 11, live) + bonus_b
        tie = rules.ties == "both_hit"
        s["health_b"] -= hurt_b * ((total_a > total_b) | (tie & (total_a == total_b)))
        s["health_a"] -= hurt_a * ((total_b > total_a) | (tie & (total_a == total_b)))
        down_a, down_b = s["health_a"] <= 0, s["health_b"] <= 0
        return Ended.where(down_a | down_b, a_wins=down_b & ~down_a, b_wins=down_a & ~down_b,
                           cause=CAUSES.down)

    return play_rounds(one_round, state, n=n, rng=rng, max_rounds=rules.max_rounds,
                       causes=CAUSES)
''',
    "{name}/reference.py": '''\
"""The scalar reference: one fight in plain Python, every roll narrated.  It is the
readable statement of the rules and what the kernel is tested against."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from balance.outcomes import Outcome, Winner

from .rules import Combatant, Rules


def fight(rules: Rules, a: Combatant, b: Combatant, *, rng: np.random.Generator,
          log: Callable[[str], None] | None = None) -> Outcome:
    health = {{"A": a.health, "B": b.health}}
    for round_no in range(1, rules.max_rounds + 1):
        roll_a, roll_b = int(rng.integers(1, 11)), int(rng.integers(1, 11))
        total_a = roll_a + a.skill + (2 if a.stance == "reckless" else 0)
        total_b = roll_b + b.skill + (2 if b.stance == "reckless" else 0)
        a_hits = total_a > total_b or (rules.ties == "both_hit" and total_a == total_b)
        b_hits = total_b > total_a or (rules.ties == "both_hit" and total_a == total_b)
        if a_hits:
            health["B"] -= rules.damage * (2 if b.stance == "reckless" else 1)
        if b_hits:
            health["A"] -= rules.damage * (2 if a.stance == "reckless" else 1)
        if log is not None:
            log(f"round {{round_no}}: {{a.name}} rolls {{roll_a}} (total {{total_a}}), "
                f"{{b.name}} rolls {{roll_b}} (total {{total_b}}); health "
                f"{{health['A']}} / {{health['B']}}")
        if health["A"] <= 0 or health["B"] <= 0:
            winner = (Winner.DRAW if health["A"] <= 0 and health["B"] <= 0
                      else Winner.A if health["B"] <= 0 else Winner.B)
            return Outcome(winner, round_no, "down")
    return Outcome(Winner.DRAW, rules.max_rounds, "max_rounds")
''',
    "tests/test_{name}.py": '''\
"""The ruleset contract (balance.testing.check_ruleset), one test per check."""

import pytest

from balance.testing import ruleset_checks
from {name} import RULESET


@pytest.mark.parametrize(("name", "check"), list(ruleset_checks(RULESET)))
def test_contract(name, check):
    check(RULESET)
''',
}


def _check_new(name: str, where: str | Path, root: Path, what: str) -> None:
    from .rulesets import RULESETS

    if not isinstance(name, str) or not _NAME.match(name) or keyword.iskeyword(name):
        raise SpecError(f"ruleset name {name!r} must be a lowercase Python identifier (a-z, "
                        "0-9, _; starting with a letter; at most 40 characters)")
    if name in RULESETS or name == "balance":
        raise SpecError(f"ruleset name {name!r} is taken by a built-in; choose another")
    if root.exists():
        raise SpecError(f"{root} exists already; choose another name or folder")
    if Path(where).exists() and not Path(where).is_dir():
        raise SpecError(f"--out {str(where)!r} is a file, not a folder; give the folder to "
                        f"write the ruleset {what} in")
    if not Path(where).is_dir():
        raise SpecError(f"--out folder {str(where)!r} does not exist; give an existing "
                        f"folder to write the ruleset {what} in")


def new_ruleset_file(name: str, where: str | Path = ".") -> Path:
    """Write ``NAME.toml``, a ruleset file of the opposed-d10 duel, under ``where``; the
    file written.

    Raises
    ------
    SpecError
        As :func:`new_ruleset` (the file exists already: nothing is overwritten).
    """
    root = Path(where) / f"{name}.toml"
    _check_new(name, where, root, "file")
    try:
        with open(root, "x", encoding="utf-8") as out:  # never over a file made meanwhile
            out.write(FILE_TEMPLATE.format(name=name))
    except OSError as exc:
        raise SpecError(f"cannot write {root}: {exc.strerror or exc}") from None
    return root


def new_ruleset(name: str, where: str | Path = ".") -> Path:
    """Write the package of a new ruleset ``name`` under ``where``; the folder written.

    Raises
    ------
    SpecError
        ``name`` is not a lowercase Python identifier, names a built-in ruleset, or its
        folder exists already (nothing is overwritten).
    """
    root = Path(where) / name
    _check_new(name, where, root, "package")
    cls = "".join(part.capitalize() for part in name.split("_")) or "Ruleset"
    if cls[0].isdigit():
        cls = "R" + cls
    texts = {path.format(name=name): text.format(name=name, cls=cls)
             for path, text in _FILES.items()}
    staging = Path(where) / f".{name}.new"
    try:
        for rel, text in texts.items():
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        staging.rename(root)  # all or nothing
    except OSError as exc:
        raise SpecError(f"cannot write {root}: {exc.strerror or exc}") from None
    finally:
        if staging.exists():
            import shutil

            shutil.rmtree(staging, ignore_errors=True)
    return root


FILE_TEMPLATE = """\
# {name}: an opposed-d10 duel, to edit into your own rules (docs/ruleset-file.md).
# Each round both fighters roll a d10 and add their skill; the higher total by
# hit_margin or more hits for one point; the first to run out of health loses.
#   balance show {name}.toml
#   balance duel {name}.toml --a veteran --b novice -n 100000 --seed 1
#   balance log {name}.toml --a veteran --b berserker --seed 3
#   balance exact {name}.toml --a veteran --b novice

[ruleset]
name = "{name}"
title = "Opposed d10 + skill"
tag = "TEXT"                 # TEXT: your rules say so; AMBIG: a reading; DEFAULT: a guess

[fighter.skill]
range = [0, 10]
default = 3
doc = "added to the d10"

[fighter.hit_points]
range = [1, 10]
default = 3
doc = "hits a fighter can take"

[fighter.stance]
kind = "str"
choices = ["steady", "reckless"]
default = "steady"
policy = true
tag = "DEFAULT"
doc = "reckless: +2 to the roll, and a hit on it lands on a win by 1 or more"

[rules.hit_margin]
range = [1, 9]
default = 3
doc = "the win a hit needs"

[state.health]
start = "self.hit_points"
doc = "hits left"

[[actions]]
name = "exchange"
roll = "1d10 + self.skill + (2 if self.stance == 'reckless' else 0)"

[[actions.outcomes]]
name = "hit"
when = "self.roll - target.roll >= (1 if target.stance == 'reckless' else hit_margin)"
damage = 1

[end]
out = "self.health <= 0"
max_rounds = 200
tag = "DEFAULT"

[presets.novice]
skill = 1

[presets.veteran]
skill = 5

[presets.berserker]
skill = 3
stance = "reckless"

[scenarios.veteran-vs-novice]
description = "five points of skill against one"
a = "veteran"
b = "novice"
"""
