"""The scalar reference of a ruleset file: one fight in plain Python, every roll narrated.

It reads the same :class:`~.schema.System` as the kernel, but plays it as a person would
at a table -- fighter by fighter, roll by roll, words as words -- so it is the second
implementation the kernel is tested against (in distribution) and the source of
``balance log``.  The order of play is the engine's (``docs/ruleset-file.md``, "How a
round is played"); where both fighters act at once, every roll and every outcome of the
step is read before anything changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...language import Expression
from ...outcomes import Outcome, Winner
from .schema import Action, System

__all__ = ["fight"]

Log = Callable[[str], None]
WINNERS = (Winner.A, Winner.B)


class _Fight:
    """One fight in progress: each fighter's values by name, and the narration."""

    def __init__(self, system: System, rules: Any, a: Any, b: Any,
                 rng: np.random.Generator, log: Log | None) -> None:
        self.system, self.rng, self.log = system, rng, log
        self.label = (f"A ({a.name})", f"B ({b.name})")
        self.rules = {s.name: getattr(rules, s.name) for s in system.rules}
        self.values: list[dict[str, Any]] = [
            {s.name: getattr(c, s.name) for s in system.fighter} for c in (a, b)]
        self.scalars: dict[str, int] = {}
        self.first = 0
        for item in system.derived:
            got = [item.expression.read(self.env(i)).value for i in (0, 1)]
            for i in (0, 1):
                self.values[i][item.name] = got[i]
        self.ended: tuple[Winner, str] | None = None

    def say(self, line: str) -> None:
        if self.log is not None:
            self.log(line)

    def env(self, me: int) -> dict[str, Any]:
        """What an expression read by fighter ``me`` sees."""
        out: dict[str, Any] = dict(self.rules)
        out.update(self.scalars)
        for role, who in (("self", me), ("target", 1 - me)):
            for key, value in self.values[who].items():
                out[f"{role}.{key}"] = value
        return out

    def read(self, expression: Expression, me: int) -> Any:
        reading = expression.read(self.env(me), self.rng)
        return reading.value, str(reading)

    # --- state -------------------------------------------------------------------------------
    def reset(self, me: int, when: str) -> None:
        for var in self.system.state:
            if when == "start" or var.reset == when:
                value, text = self.read(var.start, me)
                if var.kind == "str":
                    value = var.choices[int(value)]
                self.values[me][var.name] = self.clamp(var.name, value)
                if when != "start":
                    self.say(f"  {self.label[me]}: {var.name} back to {value} ({text})")

    def clamp(self, name: str, value: Any) -> Any:
        var = next(s for s in self.system.state if s.name == name)
        if var.range is None:
            return value
        return min(max(value, var.range[0]), var.range[1])

    def change(self, who: int, name: str, value: Any, op: str) -> None:
        old = self.values[who][name]
        new = self.clamp(name, old + value if op == "add" else value)
        self.values[who][name] = new
        self.say(f"    {self.label[who]}: {name} {old} -> {new}")

    # --- choices -----------------------------------------------------------------------------
    def choose(self, me: int) -> None:
        for choice in self.system.choices:
            picked, why = choice.default, "the default"
            for pick, when in choice.policy:
                held, text = self.read(when, me)
                if held:
                    picked, why = pick, text
                    break
            self.values[me][choice.name] = picked
            self.say(f"  {self.label[me]} chooses {choice.name} = {picked} ({why})")

    def forget_choices(self) -> None:
        for values in self.values:
            for choice in self.system.choices:
                values.pop(choice.name, None)

    # --- actions -----------------------------------------------------------------------------
    def act(self, action: Action, actors: tuple[int, ...]) -> None:
        """Every repetition of ``action`` by ``actors`` (both at once, or one)."""
        times = {}
        for me in actors:
            does = True
            if action.when is not None:
                does, text = self.read(action.when, me)
                if not does:
                    self.say(f"  {self.label[me]} does not {action.name} ({text})")
            times[me] = self.read(action.times, me)[0] if does else 0
        attempt = 1
        while self.ended is None and any(times[me] >= attempt for me in actors):
            self.scalars["attempt"] = attempt
            going = tuple(me for me in actors if times[me] >= attempt)
            self.attempt(action, going, actors)
            self.check_out()
            attempt += 1
        self.scalars.pop("attempt", None)

    def attempt(self, action: Action, going: tuple[int, ...], actors: tuple[int, ...]) -> None:
        for me in actors:  # a fighter who does not act this time rolled nothing
            for key in ("roll", "margin", *(n for n, _ in action.lets)):
                self.values[me][key] = 0 if me not in going else self.values[me].get(key, 0)
        for me in going:
            self.roll(action, me)
        for name, expression in action.lets:
            got = {me: self.read(expression, me) for me in going}
            for me, (value, text) in got.items():
                self.values[me][name] = value
                self.say(f"    {self.label[me]}: {name} = {value} ({text})")
        chosen = {me: self.outcome(action, me) for me in going}
        self.damage(action, chosen, "damage", 1)
        self.damage(action, chosen, "self_damage", 0)
        self.effects(action, chosen)
        for me in actors:
            for key in ("roll", "margin", *(n for n, _ in action.lets)):
                self.values[me].pop(key, None)

    def roll(self, action: Action, me: int) -> None:
        if action.roll is None:
            return
        total, text = self.read(action.roll, me)
        words = [text]
        for modifier in self.system.modifiers:
            if modifier.to == action.name:
                amount, line = modifier.read(self.env(me), self.rng)
                if line is not None:
                    total += amount
                    words.append(line)
        self.values[me]["roll"] = total
        line = f"  {self.label[me]} {action.name}: {'; '.join(words)}"
        if action.against is not None:
            against, text = self.read(action.against, me)
            self.values[me]["margin"] = total - against
            line += f", total {total} against {text}: margin {total - against}"
        self.say(line)

    def outcome(self, action: Action, me: int) -> int:
        for k, outcome in enumerate(action.outcomes):
            if outcome.when is None:
                self.say(f"    {self.label[me]}: {outcome.name}")
                return k
            held, text = self.read(outcome.when, me)
            if held:
                self.say(f"    {self.label[me]}: {outcome.name} ({text})")
                return k
        self.say(f"    {self.label[me]}: no outcome")
        return -1

    def damage(self, action: Action, chosen: dict[int, int], key: str, to_target: int) -> None:
        health = self.system.end.health
        dealt: dict[int, int] = {}
        for me, k in chosen.items():
            amount = getattr(action.outcomes[k], key) if k >= 0 else None
            if amount is None:
                continue
            value, text = self.read(amount, me)
            parts = [text]
            if key == "damage":
                for modifier in self.system.modifiers:
                    if modifier.to == "damage":
                        extra, line = modifier.read(self.env(me), self.rng)
                        if line is not None:
                            value += extra
                            parts.append(line)
            dealt[me] = max(0, value)
            whom = 1 - me if to_target else me
            self.say(f"    {self.label[whom]} takes {dealt[me]} ({'; '.join(parts)})")
        for me, value in dealt.items():
            self.change(1 - me if to_target else me, health, -value, "add")

    def effects(self, action: Action, chosen: dict[int, int]) -> None:
        for k, outcome in enumerate(action.outcomes):
            for effect in outcome.effects:
                changes = []
                for me in [m for m, c in chosen.items() if c == k]:
                    quantity, line = effect.read(self.env(me), self.rng)
                    if line is None:
                        continue
                    self.say(f"    {self.label[me]}: {line}")
                    whom = me if effect.who == "self" else 1 - me
                    if effect.action == "spend":
                        changes.append((whom, effect.spend, -quantity, "add"))
                    else:
                        if isinstance(quantity, int) and effect.choices:
                            quantity = effect.choices[quantity]
                        changes.append((whom, effect.set, quantity, "set"))
                for change in changes:
                    self.change(*change)

    # --- the end -----------------------------------------------------------------------------
    def check_out(self) -> None:
        if self.ended is not None:
            return
        out = [self.read(self.system.end.out, me) for me in (0, 1)]
        if not (out[0][0] or out[1][0]):
            return
        for me in (0, 1):
            if out[me][0]:
                self.say(f"  {self.label[me]} is out ({out[me][1]})")
        if out[0][0] and out[1][0]:
            self.ended = (Winner.DRAW, "down")
        else:
            self.ended = (WINNERS[1] if out[0][0] else WINNERS[0], "down")

    def round(self, round_no: int) -> None:
        self.scalars["round"] = round_no
        self.say(f"round {round_no}: " + "; ".join(
            f"{self.label[i]} " + ", ".join(f"{v.name} {self.values[i][v.name]}"
                                            for v in self.system.state) for i in (0, 1)))
        for me in (0, 1):
            self.reset(me, "round")
        if self.system.order.kind == "simultaneous":
            for me in (0, 1):
                self.choose(me)
            for action in self.system.actions:
                if self.ended is None:
                    self.act(action, (0, 1))
        else:
            first = self.who_first()
            for me in (first, 1 - first):
                if self.ended is not None:
                    break
                self.say(f"  {self.label[me]}'s turn")
                self.reset(me, "turn")
                self.choose(me)
                for action in self.system.actions:
                    if self.ended is None:
                        self.act(action, (me,))
        self.forget_choices()
        draw_when = self.system.end.draw_when
        if self.ended is None and draw_when is not None:
            held, text = self.read(draw_when, 0)
            if held:
                self.say(f"  a draw: {text}")
                self.ended = (Winner.DRAW, self.system.end.draw_cause)

    def who_first(self) -> int:
        order = self.system.order
        if order.first in ("a", "b"):
            return "ab".index(order.first)
        if order.first == "random":
            return self.first
        assert order.initiative is not None
        got = [self.read(order.initiative, me) for me in (0, 1)]
        for me in (0, 1):
            self.say(f"  {self.label[me]} initiative: {got[me][1]}")
        if got[0][0] != got[1][0]:
            return 0 if got[0][0] > got[1][0] else 1
        if order.ties == "random":
            return int(self.rng.integers(0, 2))
        return "ab".index(order.ties)


def fight(system: System, rules: Any, a: Any, b: Any, *, rng: np.random.Generator,
          log: Log | None = None) -> Outcome:
    """One fight of ``a`` against ``b`` under ``rules``, narrated to ``log``."""
    state = _Fight(system, rules, a, b, rng, log)
    for me in (0, 1):
        state.reset(me, "start")
    if system.order.kind == "sequential" and system.order.first == "random":
        state.first = int(rng.integers(0, 2))
        state.say(f"{state.label[state.first]} acts first this fight (drawn)")
    max_rounds = int(rules.max_rounds)
    for round_no in range(1, max_rounds + 1):
        state.round(round_no)
        if state.ended is not None:
            winner, cause = state.ended
            state.say(f"{'a draw' if winner == Winner.DRAW else 'ABX'[winner - 1] + ' wins'} "
                      f"after {round_no} round{'s' * (round_no != 1)} ({cause})")
            return Outcome(winner, round_no, cause)
    state.say(f"a draw: the round cap ({max_rounds}) is reached")
    return Outcome(Winner.DRAW, max_rounds, "max_rounds")
