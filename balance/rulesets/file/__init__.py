"""A whole combat system written as one TOML file: ``balance duel my-rules.toml ...``.

:func:`load` reads a ruleset file (``docs/ruleset-file.md``) and gives a
:class:`FileRuleset`, a :class:`~balance.rulesets.base.Ruleset` like the built-ins:

* ``Combatant`` and ``Rules`` are dataclasses made from the file's ``[fighter]`` and
  ``[rules]`` fields (:mod:`.classes`), so presets, ``--a``/``--b`` specs, ``--rule``,
  sweeps and ``balance show`` work unchanged;
* ``simulate`` is a vectorised kernel (:mod:`.kernel`): a round that reads no state as a
  table over its dice (:mod:`.table`), made once a matchup, else the rounds of
  :mod:`.engine` over whole batches of fights, every expression evaluated by the rules
  language over per-fight arrays; finished fights compacted;
* ``fight`` is a narrated scalar reference (:mod:`.reference`);
* ``exact`` and ``exact_best_play`` solve the fight as a Markov chain / a zero-sum
  stochastic game over its states, found automatically, where they number at most
  :data:`.exact.MAX_STATES` (:mod:`.exact`).

A file is data: resolving it runs no code of its author's, so it needs no
``--allow-import``.  The same text always gives the same ruleset object (cached by a hash
of the text), which is also how its combatants travel to worker processes.
"""

from __future__ import annotations

import hashlib
import types
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import SpecError
from ...fields import read_text
from ...outcomes import EndCauses, Outcome, Outcomes, Probabilities
from ..base import BenchCase, Log, Ruleset, Scenario, Side
from .classes import make_classes, rebuild
from .schema import System, read_system

__all__ = ["FileRuleset", "from_text", "is_ruleset_file", "load"]

MAX_BYTES = 1_000_000
"""Largest ruleset file read."""

_BY_DIGEST: dict[str, FileRuleset] = {}


def is_ruleset_file(ref: str) -> bool:
    """Whether a ruleset reference names a file (it ends in ``.toml``)."""
    return ref.strip().lower().endswith(".toml")


def load(path: str | Path) -> FileRuleset:
    """The ruleset written in the TOML file ``path``; a missing, unreadable or mistaken
    file is a :class:`~balance.errors.SpecError` of one line naming the file, the line,
    the key and what is allowed."""
    text = read_text(path, "ruleset file", MAX_BYTES)
    return from_text(text, str(path))


def from_text(text: str, source: str = "<ruleset>") -> FileRuleset:
    """The ruleset a file's ``text`` declares (``source`` names it in errors); the same
    text gives the same object."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
    found = _BY_DIGEST.get(digest)
    if found is None:
        try:
            system = read_system(text, source)
        except RecursionError:
            raise SpecError(f"{source}: nested too deeply to read") from None
        found = FileRuleset(system, text, source, digest)
        _BY_DIGEST[digest] = found
    return found


class FileRuleset(Ruleset):
    """A ruleset read from a file (see the module docstring)."""

    name = "file"
    title = "a ruleset file"
    max_side = 1

    def __init__(self, system: System, text: str, source: str, digest: str) -> None:
        from .engine import Engine

        self.system = system
        self.text = text
        self.source = source
        self.content_hash = digest
        self.name = system.name  # type: ignore[misc]
        self.title = system.title  # type: ignore[misc]
        self.digest = Path(source).name  # type: ignore[misc]
        self.causes = EndCauses(*system.causes)  # type: ignore[misc]
        self.Combatant, self.Rules = make_classes(system, self._reduce)  # type: ignore[misc]
        self.engine = Engine(system)
        self.has_strategy = bool(system.choices)  # type: ignore[misc]
        self.presets = types.MappingProxyType({})  # type: ignore[misc]
        self.scenarios = types.MappingProxyType({})  # type: ignore[misc]
        made = self.with_presets(system.presets, where=f"{source}: presets")
        self.presets = made.presets  # type: ignore[misc]
        self.scenarios = types.MappingProxyType(self._scenarios())  # type: ignore[misc]

    @property
    def reference(self) -> str:
        """What resolves to this ruleset in any process: the file's absolute path."""
        return str(Path(self.source).resolve())

    def _reduce(self, kind: str, instance: Any) -> tuple[Any, ...]:
        import dataclasses

        values = {f.name: getattr(instance, f.name) for f in dataclasses.fields(instance)}
        return (rebuild, (kind, self.text, self.source, values))

    def __reduce__(self) -> tuple[Any, ...]:
        return (from_text, (self.text, self.source))

    def __copy__(self) -> FileRuleset:  # a real copy (with_presets changes the copy only)
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        return clone

    def __repr__(self) -> str:
        return f"<ruleset file {self.source!r}: {self.title}>"

    def _scenarios(self) -> dict[str, Scenario]:
        out = {}
        for key, spec in self.system.scenarios.items():
            where = f"{self.source}: scenarios.{key}"
            try:
                rules = dict(spec.get("rules", {}))
                side_a, side_b = self.side(spec["a"]), self.side(spec["b"])
                self.check_sides(self.rules(rules), side_a, side_b)
            except SpecError as exc:
                raise SpecError(exc.reason, where=where) from None
            out[key] = Scenario(str(spec.get("description", key)), side_a, side_b, rules)
        return out

    # --- the three ways to answer ---------------------------------------------------------
    def simulate(self, rules: Any, side_a: Side, side_b: Side, /, *, n: int,
                 rng: np.random.Generator) -> Outcomes:
        from .kernel import simulate

        return simulate(self.engine, rules, side_a[0], side_b[0], n=n, rng=rng)

    def fight(self, rules: Any, side_a: Side, side_b: Side, /, *, rng: np.random.Generator,
              log: Log | None = None) -> Outcome:
        from .reference import fight

        return fight(self.system, rules, side_a[0], side_b[0], rng=rng, log=log)

    def exact(self, rules: Any, side_a: Side, side_b: Side, /) -> Probabilities:
        import dataclasses

        from . import exact

        answer = exact.solve(self, rules, side_a[0], side_b[0])
        return dataclasses.replace(answer, assumptions=self.assumptions(rules, side_a, side_b),
                                   policies=self.policies(rules, side_a, side_b))

    def exact_check(self, rules: Any, side_a: Side, side_b: Side, /) -> str | None:
        from . import exact

        why = exact.unsupported(self, rules, side_a[0], side_b[0])
        return self.exact_unavailable(why).reason if why else None

    def exact_best_play(self, rules: Any, side_a: Side, side_b: Side, /, *,
                        draw_worth: float = 0.5) -> Probabilities:
        import dataclasses

        from . import exact

        answer = exact.best_play(self, rules, side_a[0], side_b[0], draw_worth=draw_worth)
        chooses = ", ".join(c.name for c in self.system.choices)
        return dataclasses.replace(
            answer, assumptions=self.assumptions(rules, side_a, side_b),
            policies=(f"{chooses}: best play for A and B, state by state",))

    def exact_unavailable(self, why: str) -> Any:
        from ...errors import IntractableError

        return IntractableError(f"{self.name} has no exact solution here: {why}")

    # --- what it says about itself -----------------------------------------------------------
    def vocabulary(self) -> Any:
        from ...language import Vocabulary

        outcomes = {o.name: f"an outcome of {a.name}" for a in self.system.actions
                    for o in a.outcomes}
        targets = {a.name: f"the roll of {a.name}" for a in self.system.actions}
        return Vocabulary(self.system.names, targets={**targets, "damage": "damage dealt"},
                          outcomes=outcomes,
                          resources={s.name: s.doc for s in self.system.state if s.kind == "int"},
                          states={s.name: s.as_name() for s in self.system.state})

    def describe(self) -> dict[str, Any]:
        return super().describe() | {"file": self.source, "rules_text": self.rule_rows()}

    def rule_rows(self) -> list[dict[str, str]]:
        """Every rule the file writes as an expression, with its tag: ``{rule, text, tag,
        doc}`` (``balance show`` prints them)."""
        rows = []
        for item in self.system.derived:
            rows.append(("derived." + item.name, item.expression.text, item.tag, item.doc))
        for var in self.system.state:
            rows.append((f"state.{var.name}.start", var.start.text, var.tag, var.doc))
        for choice in self.system.choices:
            for pick, when in choice.policy:
                rows.append((f"choices.{choice.name}: {pick} when", when.text, choice.tag,
                             choice.doc))
        for action in self.system.actions:
            for key in ("when", "times", "roll", "against"):
                expression = getattr(action, key)
                if expression is not None:
                    rows.append((f"actions.{action.name}.{key}", expression.text, action.tag,
                                 action.doc))
            for name, expression in action.lets:
                rows.append((f"actions.{action.name}.let.{name}", expression.text, action.tag,
                             ""))
            for outcome in action.outcomes:
                for key in ("when", "damage", "self_damage"):
                    expression = getattr(outcome, key)
                    if expression is not None:
                        rows.append((f"actions.{action.name}.{outcome.name}.{key}",
                                     expression.text, outcome.tag, outcome.doc))
                for effect in outcome.effects:
                    rows.append((f"actions.{action.name}.{outcome.name}.effect",
                                 effect.sentence(), outcome.tag, outcome.doc))
        for modifier in self.system.modifiers:
            rows.append((f"modifiers.{modifier.name}", modifier.label(), "DEFAULT", ""))
        end = self.system.end
        rows.append(("end.out", end.out.text, end.tag, "when a fighter is out"))
        if end.draw_when is not None:
            rows.append(("end.draw_when", end.draw_when.text, end.tag, "a draw at a round's end"))
        return [{"rule": r, "text": t, "tag": g, "doc": d} for r, t, g, d in rows]

    def assumptions(self, rules: Any, side_a: Side, side_b: Side) -> tuple[str, ...]:
        rows = tuple(f"{row['rule']}={row['text']!r} [{row['tag']}]" for row in self.rule_rows()
                     if row["tag"] in ("DEFAULT", "AMBIG"))
        return super().assumptions(rules, side_a, side_b) + rows

    def inert_fields(self) -> Mapping[str, str]:
        out = {"combatant.name": "display name: only the narration and the tables show it"}
        for scope, stats in (("combatant", self.system.fighter), ("rules", self.system.rules)):
            out.update({f"{scope}.{s.name}": s.inert for s in stats if s.inert})
        return out

    def bench_cases(self) -> Sequence[BenchCase]:
        cases = [BenchCase(key, s.description, self.rules(s.rules), s.side_a, s.side_b)
                 for key, s in self.scenarios.items()]
        if not cases:
            presets = list(self.presets.values()) or [self.Combatant()]
            cases.append(BenchCase("default", "the first preset against the last",
                                   self.rules(), (presets[0],), (presets[-1],)))
        return cases
