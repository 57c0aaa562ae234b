"""Rows a designer writes in a content table: modifiers and effects, with their conditions.

A :class:`Modifier` adds an amount to one of a ruleset's targets (``attack``, ``parry``,
``damage``, ``initiative``, ...) in the fights where its ``when`` holds::

    [[weapons.war_pick.modifiers]]
    to = "attack"
    amount = 1
    when = "target.armour_rank >= 3"
    name = "war pick against heavy armour"

An :class:`Effect` does something on an outcome the ruleset names (``hit``, ``success``,
...): inflict a condition for some rounds (or until removed), spend a resource, or set a
state::

    [[weapons.bola.effects]]
    on = "success"
    inflict = "entangled"
    rounds = "1d3"

A ruleset's :class:`Vocabulary` lists what its rows may name and reads them from TOML,
every error naming its key path.  :func:`total` sums the modifiers on a target over a batch
of fights (and says which fired where); :func:`fire` gives each effect's fights and amounts.
Nothing here knows a ruleset: what an effect *does* to a fight is the kernel's business.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

import numpy as np

from ..errors import SpecError
from ..fields import Table
from ..reading import Reader, join, show
from .errors import LanguageError
from .expression import Expression, Purpose, compile_amount, compile_condition, compile_expression
from .lines import effect_table, modifier_table
from .names import Name, Names
from .scalar import Distribution, show_value

__all__ = ["Effect", "Firing", "Modifier", "Total", "Vocabulary", "fire", "names_used",
           "narrate_total", "total", "total_distribution"]

ROLES = ("self", "target")
Labels: TypeAlias = Mapping[str, str] | Sequence[str]
"""Names with a line of documentation each, or a plain list of names."""
ACTIONS = ("inflict", "spend", "set")
MAX_ROUNDS = 10_000


# --- rows ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Modifier:
    """``amount`` added to ``to`` in the fights where ``when`` holds (always if ``None``)."""

    to: str
    amount: Expression
    when: Expression | None = None
    name: str = ""

    def label(self) -> str:
        """``war pick +1 to attack``; an amount that is not a constant is shown as written."""
        amount = self.amount.constant
        shown = f"{amount:+d}" if amount is not None else f"+({self.amount.text})"
        return f"{self.name or 'modifier'} {shown} to {self.to}"

    def line(self) -> str:
        """The row's one-line form: ``+1 to attack when target.armour_rank >= 3``."""
        amount = self.amount.constant
        shown = f"{amount:+d}" if amount is not None else self.amount.text
        return f"{shown} to {self.to}" + (f" when {self.when.text}" if self.when else "")

    def applies(self, env: Mapping[str, Any], rng: np.random.Generator | None = None, *,
                n: int) -> np.ndarray:
        """Where it applies: a bool mask over the batch."""
        if self.when is None:
            return np.ones(n, dtype=bool)
        return self.when.evaluate(env, rng, n=n)

    def read(self, env: Mapping[str, Any],
             rng: np.random.Generator | None = None) -> tuple[int, str | None]:
        """One fight: the amount it adds (0 when its condition fails) and the log line
        naming it and why (``None`` when it does not apply)."""
        why = None
        if self.when is not None:
            reading = self.when.read(env, rng)
            if not reading.value:
                return 0, None
            why = str(reading)
        amount = self.amount.read(env, rng)
        line = f"{self.name or 'modifier'} {amount.value:+d} to {self.to}"
        if amount.facts:
            line += f" ({_facts(amount)})"
        return amount.value, line + (f" when {why}" if why else "")

    def distribution(self, env: Mapping[str, Any]) -> Distribution:
        """Exact distribution of what it adds in one fight (0 where ``when`` fails); ``when``
        and ``amount`` roll their own dice, so they are independent."""
        amount = self.amount.distribution(env)
        if self.when is None:
            return amount
        holds = self.when.probability(env)
        out = {v: p * holds for v, p in amount.items()}
        out[0] = out.get(0, Fraction(0)) + (1 - holds)
        return {v: p for v, p in sorted(out.items()) if p}

    def as_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"to": self.to, "amount": _written(self.amount)}
        if self.when is not None:
            out["when"] = self.when.text
        if self.name:
            out["name"] = self.name
        return out


@dataclass(frozen=True)
class Effect:
    """On outcome ``on`` (where ``when`` holds), one of: ``inflict`` a condition for
    ``rounds`` (``None``: until removed), ``spend`` ``amount`` of a resource, or ``set`` a
    state to ``value``; ``who`` is whom it happens to."""

    on: str
    inflict: str = ""
    spend: str = ""
    set: str = ""
    rounds: Expression | None = None
    amount: Expression | None = None
    value: Expression | str | None = None
    who: str = "target"
    when: Expression | None = None
    name: str = ""
    choices: tuple[str, ...] = ()
    """For ``set`` on a str state: its words, in code order (a word's code is its index)."""

    def __post_init__(self) -> None:
        given = [a for a in ACTIONS if getattr(self, a)]
        if len(given) != 1:
            raise SpecError(f"an effect does exactly one of {', '.join(ACTIONS)}; this one "
                            f"has {' and '.join(given) or 'none'}")

    @property
    def action(self) -> str:
        """``"inflict"``, ``"spend"`` or ``"set"``."""
        return next(a for a in ACTIONS if getattr(self, a))

    @property
    def subject(self) -> str:
        """The condition, resource or state it names."""
        return str(getattr(self, self.action))

    @property
    def quantity(self) -> Expression | str | None:
        """Its number: the rounds inflicted, the amount spent, or the value set."""
        return {"inflict": self.rounds, "spend": self.amount, "set": self.value}[self.action]

    def sentence(self, quantity: Any = None) -> str:
        """The row in words; ``quantity``: the value it took in one fight (default: as
        written)."""
        q = self.quantity if quantity is None else quantity
        shown = q.text if isinstance(q, Expression) else None if q is None else show_value(q)
        if self.action == "inflict":
            return f"{self.inflict} on {self.who} " + (
                "until removed" if shown is None else f"for {shown} rounds")
        if self.action == "spend":
            return f"{self.who} spends {shown} {self.spend}"
        return f"{self.who}'s {self.set} set to {shown}"

    def line(self) -> str:
        """The row's one-line form: ``on success inflict entangled for 1d3 rounds``,
        ``on attack spend 1 ammunition by self``, ``on hit set target.stance to prone``."""
        q = self.quantity
        shown = q.text if isinstance(q, Expression) else q  # a word as the form writes it
        if self.action == "inflict":
            text = (f"on {self.on} inflict {self.inflict} on {self.who} "
                    + ("until removed" if shown is None else f"for {shown} rounds"))
        elif self.action == "spend":
            text = f"on {self.on} spend {shown} {self.spend} by {self.who}"
        else:
            text = f"on {self.on} set {self.who}.{self.set} to {shown}"
        return text + (f" when {self.when.text}" if self.when else "")

    def read(self, env: Mapping[str, Any],
             rng: np.random.Generator | None = None) -> tuple[Any, str | None]:
        """One fight where outcome ``on`` happened: its quantity (rounds, amount, value;
        ``None`` for until removed) and the log line, or ``(None, None)`` if ``when`` fails."""
        why = None
        if self.when is not None:
            reading = self.when.read(env, rng)
            if not reading.value:
                return None, None
            why = str(reading)
        quantity: Any = self.quantity
        line = f"{self.name or self.action}: "
        if isinstance(quantity, Expression):
            got = quantity.read(env, rng)
            quantity = got.value
            line += self.sentence(quantity) + (f" ({_facts(got)})" if got.facts else "")
        else:
            line += self.sentence()
        return quantity, line + (f" when {why}" if why else "")

    def as_toml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"on": self.on, self.action: self.subject, "who": self.who}
        for key in ("rounds", "amount", "value"):
            value = getattr(self, key)
            if value is not None:
                out[key] = _written(value) if isinstance(value, Expression) else value
        if self.when is not None:
            out["when"] = self.when.text
        if self.name:
            out["name"] = self.name
        return out


def _written(expression: Expression) -> Any:
    """An expression as TOML holds it: a plain number or boolean as itself, else the text."""
    constant = expression.constant
    if constant is not None and expression.text.strip() == show_value(constant):
        return constant
    return expression.text


def _facts(reading: Any) -> str:
    return "; ".join(reading.facts)


# --- what a ruleset's rows may say ----------------------------------------------------------------
def _labels(value: Labels) -> Table:
    """Names with a line of documentation each (a plain list: no documentation)."""
    if isinstance(value, Mapping):
        return Table({str(k): str(v) for k, v in value.items()})
    return Table({str(k): "" for k in value})


@dataclass(frozen=True)
class Vocabulary:
    """What a ruleset's rows may name, and the reader of those rows.

    Parameters
    ----------
    names
        What conditions and amounts may read.
    targets
        What modifiers may change (``attack``, ``parry``, ``damage``, ...), each with a line
        saying what it is (a mapping) or not (a list).
    outcomes
        The outcomes effects may hang on (``hit``, ``success``, ...).
    conditions, resources
        What effects may inflict / spend.
    states
        What effects may set, each with its type (a :class:`Name`: an int range, a bool, the
        words of a str).
    roles
        Whom an effect may happen to (default ``self`` and ``target``).
    """

    names: Names
    targets: Table = Table()
    outcomes: Table = Table()
    conditions: Table = Table()
    resources: Table = Table()
    states: Names = Names()
    roles: tuple[str, ...] = ROLES

    if TYPE_CHECKING:  # what the constructor takes; the fields hold it normalised
        def __init__(self, names: Mapping[str, Name], targets: Labels = (),
                     outcomes: Labels = (), conditions: Labels = (), resources: Labels = (),
                     states: Mapping[str, Name] | None = None,
                     roles: Sequence[str] = ROLES) -> None:
            ...

    def __post_init__(self) -> None:
        for key in ("targets", "outcomes", "conditions", "resources"):
            object.__setattr__(self, key, _labels(getattr(self, key)))
        object.__setattr__(self, "states", Names(self.states or {}))
        object.__setattr__(self, "roles", tuple(self.roles))
        if not isinstance(self.names, Names):
            object.__setattr__(self, "names", Names(self.names))

    # --- reading rows ---------------------------------------------------------------------------
    def modifier(self, data: Any, *, where: str = "modifier", name: str | None = None) -> Modifier:
        """A :class:`Modifier` from a TOML table ``{to, amount, when?, name?}``; ``name``
        labels it when the table does not (default: ``where``)."""
        reader = Reader(None)
        if isinstance(data, str):  # "+1 to attack when ...": the same table, in one line
            data = modifier_table(data, where=where)
        data = reader.table(data, where, ("to", "amount", "when", "name"))
        _require(reader, data, where, ("to", "amount"))
        return Modifier(
            to=reader.text(data["to"], join(where, "to"), list(self.targets)),
            amount=compile_amount(data["amount"], self.names, where=join(where, "amount")),
            when=self._when(data, where),
            name=self._name(reader, data, where, name))

    def effect(self, data: Any, *, where: str = "effect", name: str | None = None) -> Effect:
        """An :class:`Effect` from a TOML table: ``on`` and one of ``inflict`` (with
        ``rounds``, omitted: until removed), ``spend`` (with ``amount``, default 1) or
        ``set`` (with ``value``); ``who``, ``when`` and ``name`` optional."""
        reader = Reader(None)
        if isinstance(data, str):  # "on success inflict entangled for 2 rounds"
            data = effect_table(data, where=where)
        data = reader.table(data, where, ("on", *ACTIONS, "rounds", "amount", "value", "who",
                                          "when", "name"))
        _require(reader, data, where, ("on",))
        action = _one_action(reader, data, where)
        extra = {"inflict": "rounds", "spend": "amount", "set": "value"}
        for key in set(extra.values()) - {extra[action]}:
            if key in data:
                raise reader.fail(join(where, key), f"{key!r} goes with "
                                  f"{next(a for a, k in extra.items() if k == key)!r}, and this "
                                  f"effect is {action!r}")
        fields: dict[str, Any] = {
            "on": reader.text(data["on"], join(where, "on"), list(self.outcomes)),
            "who": reader.text(data["who"] if "who" in data else _default_who(where, action),
                               join(where, "who"), list(self.roles)),
            "when": self._when(data, where),
            "name": self._name(reader, data, where, name),
        }
        return Effect(**fields, **self._action(reader, data, where, action))

    def modifiers(self, data: Any, *, where: str = "modifiers") -> tuple[Modifier, ...]:
        """Modifiers from a TOML array of tables or one-line rows (:mod:`.lines`)."""
        return tuple(self.modifier(row, where=join(where, i))
                     for i, row in enumerate(_rows(data, where)))

    def effects(self, data: Any, *, where: str = "effects") -> tuple[Effect, ...]:
        """Effects from a TOML array of tables or one-line rows (:mod:`.lines`)."""
        return tuple(self.effect(row, where=join(where, i))
                     for i, row in enumerate(_rows(data, where)))

    def _when(self, data: Mapping[str, Any], where: str) -> Expression | None:
        if "when" not in data:
            return None
        return compile_condition(data["when"], self.names, where=join(where, "when"))

    def _name(self, reader: Reader, data: Mapping[str, Any], where: str,
              default: str | None) -> str:
        if "name" in data:
            return reader.text(data["name"], join(where, "name"))
        return default if default is not None else where

    def _action(self, reader: Reader, data: Mapping[str, Any], where: str,
                action: str) -> dict[str, Any]:
        place = join(where, action)
        declared = {"inflict": self.conditions, "spend": self.resources, "set": self.states}
        if not declared[action]:
            what = {"inflict": "conditions to inflict", "spend": "resources to spend",
                    "set": "states to set"}[action]
            raise reader.fail(place, f"this ruleset has no {what}, got {data[action]!r}")
        if action == "inflict":
            rounds = data.get("rounds")
            return {"inflict": reader.text(data["inflict"], place, list(self.conditions)),
                    "rounds": None if rounds is None else self._rounds(rounds, where)}
        if action == "spend":
            return {"spend": reader.text(data["spend"], place, list(self.resources)),
                    "amount": compile_amount(data.get("amount", 1), self.names,
                                             where=join(where, "amount"))}
        state = reader.text(data["set"], place, list(self.states))
        if "value" not in data:
            raise reader.fail(join(where, "value"), f"'set' needs a value: "
                                                    f"{self.states[state].allowed()}")
        return {"set": state, "value": self._value(reader, data["value"], state, where),
                "choices": self.states[state].choices}

    def _rounds(self, rounds: Any, where: str) -> Expression:
        place = join(where, "rounds")
        expression = compile_amount(rounds, self.names, where=place)
        low, high = expression.range or (None, None)
        if low is None or low < 1 or high is None or high > MAX_ROUNDS:
            raise LanguageError(expression.text, None, f"rounds must be 1..{MAX_ROUNDS:_} in "
                                f"every fight, and this can be {low}..{high} (omit rounds: "
                                "until removed)", where=place)
        return expression

    def _value(self, reader: Reader, value: Any, state: str, where: str) -> Expression | str:
        declared, place = self.states[state], join(where, "value")
        if declared.kind == "str":
            return reader.text(value, place, list(declared.choices))
        purpose: Purpose = "amount" if declared.kind == "int" else "condition"
        expression = compile_expression(value, self.names, purpose, where=place)
        low, high = declared.range or (None, None)
        got_low, got_high = expression.range or (None, None)
        if declared.kind == "int" and ((low is not None and (got_low is None or got_low < low))
                                       or (high is not None and (got_high is None
                                                                 or got_high > high))):
            raise LanguageError(expression.text, None, f"{state} is {declared.allowed()}, and "
                                f"this can be {got_low}..{got_high}", where=place)
        return expression

    # --- showing ---------------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        """Everything a row may name, JSON-ready (for ``balance show`` and the docs)."""
        return {"names": self.names.describe(),
                "targets": dict(self.targets),
                "outcomes": dict(self.outcomes),
                "conditions": dict(self.conditions),
                "resources": dict(self.resources),
                "states": self.states.describe(),
                "roles": list(self.roles)}


    def lines(self) -> list[str]:
        """Everything a row may name, as ``balance show`` prints it."""
        out = ["Names conditions and amounts may read (name: values  [tag]  meaning)"]
        for row in self.names.describe():
            out.append(f"  {row['name']}: {row['allowed']}" + (f"  [{row['tag']}]" if row["tag"]
                                                                 else "")
                       + (f"  {row['doc']}" if row["doc"] else ""))
        for title, table in (("Modifier targets (to = ...)", self.targets),
                             ("Outcomes effects hang on (on = ...)", self.outcomes),
                             ("Conditions effects inflict (inflict = ...)", self.conditions),
                             ("Resources effects spend (spend = ...)", self.resources)):
            if table:
                out.append(title)
                out.extend(f"  {key}" + (f": {doc}" if doc else "")
                           for key, doc in table.items())
        if self.states:
            out.append("States effects set (set = ..., value = ...)")
            out.extend(f"  {row['name']}: {row['allowed']}" + (f"  {row['doc']}" if row["doc"]
                                                               else "")
                       for row in self.states.describe())
        return out


def _rows(data: Any, where: str) -> list[Any]:
    if isinstance(data, str):  # one row in its one-line form
        return [data]
    if not isinstance(data, list | tuple):
        raise SpecError(f"must be an array of tables ([[{where}]]) or of one-line rows, got "
                        f"{show(data)}", where=where)
    return list(data)


def _require(reader: Reader, data: Mapping[str, Any], where: str, keys: Iterable[str]) -> None:
    for key in keys:
        if key not in data:
            raise reader.fail(join(where, key), "is missing")


def _one_action(reader: Reader, data: Mapping[str, Any], where: str) -> str:
    given = [a for a in ACTIONS if a in data]
    if len(given) != 1:
        found = "none" if not given else " and ".join(given)
        raise reader.fail(where, f"an effect does exactly one of {', '.join(ACTIONS)}; "
                                 f"this one has {found}")
    return given[0]


def _default_who(where: str, action: str) -> str:
    """A condition is inflicted on the target and a resource spent by oneself unless the
    row says otherwise; a state may be either's, so a 'set' row must say whose."""
    if action == "set":
        raise SpecError("is missing: whose state is set, self or target?", where=join(where, "who"))
    return "target" if action == "inflict" else "self"


# --- over a batch ---------------------------------------------------------------------------------
class Firing(NamedTuple):
    """A row over a batch: the fights where it applies and, per fight, its quantity (an
    int64 array; for a str state, codes; ``None`` for a condition inflicted until removed)."""

    row: Modifier | Effect
    mask: np.ndarray
    quantity: np.ndarray | None


class Total(NamedTuple):
    """The sum of the modifiers on one target over a batch, and each modifier's firing."""

    value: np.ndarray
    fired: tuple[Firing, ...]


def _batch_length(env: Mapping[str, Any], n: int | None) -> int:
    if n is not None:
        return n
    for value in env.values():
        if isinstance(value, np.ndarray) and value.ndim == 1:
            return len(value)
    raise ValueError("every value in the environment is a scalar; pass n (the number of fights)")


def total(modifiers: Iterable[Modifier], to: str, env: Mapping[str, Any],
          rng: np.random.Generator | None = None, *, n: int | None = None) -> Total:
    """The modifiers on target ``to`` summed over a batch of fights (int64, shape ``(n,)``),
    with where each fired.  Each ``when`` and amount is one vectorised evaluation; the
    firings' masks and quantities are read-only (a modifier without ``when`` fires
    everywhere: a broadcast ``True``; a constant amount: a broadcast number)."""
    n = _batch_length(env, n)
    value = np.zeros(n, dtype=np.int64)
    fired = []
    for modifier in modifiers:
        if modifier.to != to:
            continue
        mask = None if modifier.when is None else modifier.when.evaluate(env, rng, n=n)
        amount = modifier.amount.constant
        if amount is None:
            per_fight = modifier.amount.evaluate(env, rng, n=n)
            value += per_fight if mask is None else per_fight * mask
        else:
            per_fight = np.broadcast_to(np.int64(amount), (n,))
            _add_where(value, mask, amount)
        fired.append(Firing(modifier, np.broadcast_to(True, (n,)) if mask is None else mask,
                            per_fight))
    return Total(value, tuple(fired))


def _add_where(value: np.ndarray, mask: np.ndarray | None, amount: int) -> None:
    """``value += amount`` where ``mask``, in place.  A bool mask is added or subtracted as
    it is for +-1, else multiplied in the smallest integer type holding ``amount``
    (``np.add(..., where=mask)`` is ten times slower)."""
    if mask is None:
        value += amount
    elif amount == 1:
        np.add(value, mask, out=value)
    elif amount == -1:
        np.subtract(value, mask, out=value)
    elif amount:
        np.add(value, mask * (np.int8 if -128 <= amount <= 127 else np.int64)(amount),
               out=value)


def narrate_total(modifiers: Iterable[Modifier], to: str, env: Mapping[str, Any],
                  rng: np.random.Generator | None = None) -> tuple[int, list[str]]:
    """One fight: the modifiers on ``to`` summed, and a log line for each that applied."""
    value, lines = 0, []
    for modifier in modifiers:
        if modifier.to == to:
            amount, line = modifier.read(env, rng)
            if line is not None:
                value += amount
                lines.append(line)
    return value, lines


def total_distribution(modifiers: Iterable[Modifier], to: str,
                       env: Mapping[str, Any]) -> Distribution:
    """One fight: the exact distribution of the modifiers on ``to`` summed (each row's dice
    its own, so the rows are independent and their distributions convolve)."""
    out: Distribution = {0: Fraction(1)}
    for modifier in modifiers:
        if modifier.to != to:
            continue
        step: dict[int, Fraction] = {}
        for (a, p), (b, q) in itertools.product(out.items(), modifier.distribution(env).items()):
            step[a + b] = step.get(a + b, Fraction(0)) + p * q
        out = dict(sorted(step.items()))
    return out


def fire(effects: Iterable[Effect], outcomes: Mapping[str, np.ndarray], env: Mapping[str, Any],
         rng: np.random.Generator | None = None, *, n: int | None = None) -> tuple[Firing, ...]:
    """Each effect whose outcome is in ``outcomes`` (outcome name -> bool mask over the
    batch): the fights where it fires (the outcome and its ``when``) and its quantity."""
    out = []
    for effect in effects:
        if effect.on not in outcomes:
            continue
        mask = np.asarray(outcomes[effect.on], dtype=bool)
        size = len(mask) if n is None else n
        if effect.when is not None:
            mask = mask & effect.when.evaluate(env, rng, n=size)
        out.append(Firing(effect, mask, _quantity(effect, env, rng, size)))
    return tuple(out)


def _quantity(effect: Effect, env: Mapping[str, Any], rng: np.random.Generator | None,
              n: int) -> np.ndarray | None:
    quantity = effect.quantity
    if quantity is None:
        return None
    if isinstance(quantity, str):  # a word set on a str state: its code
        return np.full(n, effect.choices.index(quantity), dtype=np.int64)
    values = quantity.evaluate(env, rng, n=n)
    return values.astype(np.int64) if values.dtype == np.bool_ else values


def names_used(*rows: Modifier | Effect | Expression | Iterable[Any]) -> tuple[str, ...]:
    """Every name the given rows or expressions read (nested iterables flattened), in order:
    a kernel builds only these arrays."""
    out: dict[str, None] = {}
    for row in rows:
        if isinstance(row, Expression):
            out.update(dict.fromkeys(row.names_used))
        elif isinstance(row, Modifier | Effect):
            for part in (getattr(row, k, None) for k in ("when", "amount", "rounds", "value")):
                if isinstance(part, Expression):
                    out.update(dict.fromkeys(part.names_used))
        elif isinstance(row, Iterable) and not isinstance(row, str):
            out.update(dict.fromkeys(names_used(*row)))
    return tuple(out)

