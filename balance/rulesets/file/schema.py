"""A ruleset file read and checked: the TOML text -> a :class:`System`, or one error.

Every section of the format (``docs/ruleset-file.md``) is read here, in the order a
reader of the file meets them: ``[ruleset]``, ``[fighter]`` and ``[rules]`` (the fields),
``[derived]``, ``[state]``, ``[round]``, ``[choices]``, ``[[actions]]`` (with their
outcomes), ``[[modifiers]]``, ``[end]``, ``[presets]`` and ``[scenarios]``.  Each
expression is compiled by the rules language against the names its place may read, so a
typo is refused before any fight, in one line naming the file, the line, the key and what
is allowed there (:class:`Reader`).

Nothing here runs a fight: :mod:`.engine` plays what the :class:`System` says.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ...errors import SpecError, did_you_mean
from ...fields import TAGS
from ...language import (
    Effect,
    Expression,
    LanguageError,
    Modifier,
    Name,
    Names,
    Vocabulary,
    compile_expression,
)
from ...reading import show
from .keylines import Path, key_lines, line_of

__all__ = [
    "Action",
    "Choice",
    "Derived",
    "End",
    "Order",
    "Outcome",
    "Reader",
    "Stat",
    "StateVar",
    "System",
    "read_system",
]

KINDS = ("int", "bool", "str")
ROLES = ("self", "target")
SITUATION = ("round", "attempt")
"""Names without a dot the engine provides: the round (from 1) and, in an action, the
repetition (from 1)."""
ACTION_VALUES = ("roll", "margin")
MAX_ROUNDS_HIGH = 100_000
MAX_TIMES = 20
"""Most repetitions of one action in a turn."""
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
TOP = ("ruleset", "fighter", "rules", "derived", "state", "round", "choices", "actions",
       "modifiers", "end", "presets", "scenarios")


# --- what the file declares ---------------------------------------------------------------------
@dataclass(frozen=True)
class Stat:
    """A fighter field (``[fighter.NAME]``) or a rule parameter (``[rules.NAME]``)."""

    name: str
    kind: str
    default: Any
    range: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    tag: str = "DEFAULT"
    doc: str = ""
    policy: bool = False
    search: tuple[Any, ...] | None = None
    inert: str = ""
    """Why no fight's outcome depends on it (the contract check then confirms it)."""

    def as_name(self) -> Name:
        return Name(self.kind, range=self.range, choices=self.choices, doc=self.doc,  # type: ignore[arg-type]
                    tag=self.tag)


@dataclass(frozen=True)
class Derived:
    """A value fixed for the fight, computed from the stats and rules: ``self.NAME``."""

    name: str
    expression: Expression
    tag: str = "DEFAULT"
    doc: str = ""

    @property
    def kind(self) -> str:
        return "bool" if self.expression.purpose == "condition" else "int"


@dataclass(frozen=True)
class StateVar:
    """A value that changes during the fight (``self.NAME``): its start, its range (values
    are kept inside it), and when it goes back to its start (``reset``)."""

    name: str
    kind: str
    start: Expression
    range: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    reset: str = "never"
    tag: str = "DEFAULT"
    doc: str = ""

    def as_name(self) -> Name:
        return Name(self.kind, range=self.range, choices=self.choices, doc=self.doc,  # type: ignore[arg-type]
                    tag=self.tag)


@dataclass(frozen=True)
class Choice:
    """A decision each fighter makes each round (each turn, in a sequential round):
    ``self.NAME`` is one of ``options``.  ``policy`` is ``(option, condition)`` pairs
    tried in order, ``default`` when none holds; ``first``: where it holds for one fighter
    and not the other, that one declares first, in public (best play)."""

    name: str
    options: tuple[str, ...]
    default: str
    policy: tuple[tuple[str, Expression], ...]
    first: Expression | None = None
    tag: str = "DEFAULT"
    doc: str = ""


@dataclass(frozen=True)
class Outcome:
    """One tier of an action: where ``when`` holds (the first such tier wins), the target
    takes ``damage``, the actor ``self_damage``, and ``effects`` fire."""

    name: str
    when: Expression | None
    damage: Expression | None = None
    self_damage: Expression | None = None
    effects: tuple[Effect, ...] = ()
    tag: str = "DEFAULT"
    doc: str = ""


@dataclass(frozen=True)
class Action:
    """What each fighter does in its turn: ``times`` repetitions (where ``when`` holds) of
    a roll (``against`` a number or an opposed roll: ``self.margin``), named values
    (``let``), and the first outcome whose condition holds."""

    name: str
    when: Expression | None
    times: Expression
    roll: Expression | None
    against: Expression | None
    lets: tuple[tuple[str, Expression], ...]
    outcomes: tuple[Outcome, ...]
    tag: str = "DEFAULT"
    doc: str = ""


@dataclass(frozen=True)
class Order:
    """Who acts when in a round: both at once (``simultaneous``) or one whole turn after
    the other (``sequential``; ``first``: a, b, random once a fight, or ``initiative``, an
    amount each fighter rolls each round, higher first, ``ties`` a, b or random)."""

    kind: str = "simultaneous"
    first: str = "a"
    initiative: Expression | None = None
    ties: str = "random"
    tag: str = "DEFAULT"


@dataclass(frozen=True)
class End:
    """When a fighter is out, the round cap, a draw condition at a round's end, and the
    state ``damage`` takes away."""

    out: Expression
    max_rounds: Expression
    health: str
    draw_when: Expression | None = None
    draw_cause: str = "stalemate"
    tag: str = "DEFAULT"


@dataclass(frozen=True)
class System:
    """A whole ruleset file, read and checked."""

    name: str
    title: str
    doc: str
    fighter: tuple[Stat, ...]
    rules: tuple[Stat, ...]
    derived: tuple[Derived, ...]
    state: tuple[StateVar, ...]
    order: Order
    choices: tuple[Choice, ...]
    actions: tuple[Action, ...]
    modifiers: tuple[Modifier, ...]
    end: End
    presets: Mapping[str, Mapping[str, Any]]
    scenarios: Mapping[str, Mapping[str, Any]]
    names: Names = field(compare=False)
    """Every name an expression of the file may read somewhere (for ``balance show``)."""

    @property
    def causes(self) -> tuple[str, ...]:
        middle = (self.end.draw_cause,) if self.end.draw_when is not None else ()
        return ("down", *middle, "max_rounds")


# --- reading with places --------------------------------------------------------------------------
def dotted(path: Sequence[str | int]) -> str:
    """``("actions", 0, "roll")`` -> ``actions[0].roll``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse_place(where: str) -> Path:
    """``actions[0].outcomes[1].when`` -> its path (the inverse of :func:`dotted`)."""
    out: list[str | int] = []
    for word, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", where):
        out.append(int(index) if index else word)
    return tuple(out)


class Reader:
    """Checks values at their key path; every error names the file, the line and the key."""

    def __init__(self, source: str, text: str) -> None:
        self.source = source
        self.lines = key_lines(text)

    def place(self, path: Sequence[str | int]) -> str:
        line = line_of(self.lines, path)
        at = f"{self.source}, line {line}" if line is not None else self.source
        return f"{at}: {dotted(path)}" if path else at

    def fail(self, path: Sequence[str | int], message: str) -> SpecError:
        return SpecError(message, where=self.place(path))

    def relocate(self, exc: SpecError, path: Sequence[str | int]) -> SpecError:
        """A SpecError from the language or the fields, placed in the file: its own key
        path (``where``, relative to ``path``) is kept and given a line."""
        inner = parse_place(exc.where) if exc.where else ()
        full = (*path, *inner) if inner[:len(path)] != tuple(path) else inner
        if isinstance(exc, LanguageError):
            return LanguageError(exc.text, exc.column, exc.detail, where=self.place(full))
        return SpecError(exc.reason, where=self.place(full))

    def table(self, value: Any, path: Path, allowed: Sequence[str],
              required: Sequence[str] = ()) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"must be a table with keys {', '.join(allowed)}, got "
                                  f"{show(value)}")
        for key in value:
            if key not in allowed:
                raise self.fail((*path, key), f"unknown key {key!r}"
                                f"{did_you_mean(key, allowed)}; allowed: {', '.join(allowed)}")
        for key in required:
            if key not in value:
                raise self.fail((*path, key), f"is missing (a {dotted(path) or 'file'} needs "
                                              f"{', '.join(required)})")
        return value

    def text(self, value: Any, path: Path, choices: Sequence[str] | None = None) -> str:
        if not isinstance(value, str):
            raise self.fail(path, "must be a string" + (f" (one of {', '.join(choices)})"
                                                        if choices else "") + f", got {show(value)}")
        if choices is not None and value not in choices:
            raise self.fail(path, f"must be one of {', '.join(choices)}, got {value!r}"
                            + did_you_mean(value, choices))
        return value

    def word(self, value: Any, path: Path) -> str:
        text = self.text(value, path)
        if not WORD.match(text):
            raise self.fail(path, f"{text!r} cannot be a name: letters, digits and _, "
                                  "starting with a letter")
        return text

    def integer(self, value: Any, path: Path, low: int | None = None,
                high: int | None = None) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or (low is not None and value < low) or (high is not None and value > high):
            span = (f" {low}..{high}" if low is not None and high is not None
                    else f" from {low}" if low is not None else "")
            raise self.fail(path, f"must be a whole number{span}, got {show(value)}")
        return int(value)

    def boolean(self, value: Any, path: Path) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"must be true or false, got {show(value)}")
        return value

    def tag(self, data: Mapping[str, Any], path: Path, default: str) -> str:
        return self.text(data.get("tag", default), (*path, "tag"), TAGS)

    def doc(self, data: Mapping[str, Any], path: Path) -> str:
        return self.text(data.get("doc", ""), (*path, "doc"))

    def expression(self, value: Any, names: Names, purpose: Literal["condition", "amount"],
                   path: Path, *, dice: bool = True, what: str = "") -> Expression:
        try:
            compiled = compile_expression(value, names, purpose, where=dotted(path))
        except SpecError as exc:
            raise self.relocate(exc, path) from None
        if not dice and compiled.has_dice:
            raise self.fail(path, f"{what or 'this'} rolls no dice ({compiled.text!r} does)")
        return compiled

    def guarded(self, path: Path, make: Callable[[], Any]) -> Any:
        """``make()``, its SpecError placed in the file at ``path``."""
        try:
            return make()
        except SpecError as exc:
            raise self.relocate(exc, path) from None


# --- the sections ------------------------------------------------------------------------------
def _kind_of(text: str, names: Names) -> str:
    """The type of an expression (``int``, ``bool`` or ``str``) without compiling it for a
    purpose: what a derived value or a let is."""
    from ...language.check import check
    from ...language.syntax import parse

    return check(parse(text), names, text).type


def _kind_at(r: Reader, path: Path, value: Any, names: Names) -> str:
    """The type of a value written at ``path``: a literal's, or an expression's."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if not isinstance(value, str):
        raise r.fail(path, f"must be an expression (a string), a whole number or true/false, "
                           f"got {show(value)}")
    try:
        return _kind_of(value, names)
    except SpecError as exc:
        raise r.relocate(exc, path) from None


def _stat(r: Reader, name: str, spec: Any, path: Path, default_tag: str) -> Stat:
    if not isinstance(spec, Mapping):  # a bare default: `skill = 3`
        spec = {"default": spec}
    spec = r.table(spec, path, ("kind", "range", "choices", "default", "tag", "doc", "policy",
                                "search", "inert"), required=("default",))
    default = spec["default"]
    guess = ("bool" if isinstance(default, bool) else "str" if isinstance(default, str)
             else "int")
    kind = r.text(spec.get("kind", guess), (*path, "kind"), KINDS)
    value_range: tuple[int, int] | None = None
    choices: tuple[str, ...] = ()
    if "range" in spec:
        if kind != "int":
            raise r.fail((*path, "range"), f"a range is for int fields, and {name} is {kind}")
        value_range = _range(r, spec["range"], (*path, "range"))
    if kind == "str":
        if "choices" not in spec:
            raise r.fail((*path, "choices"), f"is missing: a str field lists its words "
                                             f"(choices = [\"{default}\", ...])")
        raw = spec["choices"]
        if not isinstance(raw, list) or not raw:
            raise r.fail((*path, "choices"), f"must be a non-empty list of words, got {show(raw)}")
        choices = tuple(r.word(c, (*path, "choices", i)) for i, c in enumerate(raw))
        if len(set(choices)) != len(choices):
            raise r.fail((*path, "choices"), "a word is listed twice")
    elif "choices" in spec:
        raise r.fail((*path, "choices"), f"choices are for str fields, and {name} is {kind}")
    _check_value(r, default, kind, value_range, choices, (*path, "default"))
    policy = r.boolean(spec.get("policy", False), (*path, "policy"))
    search = None
    if "search" in spec:
        if not policy:
            raise r.fail((*path, "search"), "search lists the values best play tries: only "
                                            "for a field with policy = true")
        raw = spec["search"]
        if not isinstance(raw, list) or len(raw) < 2:
            raise r.fail((*path, "search"), f"must list at least two values, got {show(raw)}")
        for i, value in enumerate(raw):
            _check_value(r, value, kind, value_range, choices, (*path, "search", i))
        search = tuple(raw)
    elif policy and kind == "int":
        raise r.fail((*path, "search"), "is missing: a whole-number policy lists the values "
                                        "best play tries (search = [1, 2, 3])")
    inert = r.text(spec.get("inert", ""), (*path, "inert"))
    return Stat(name, kind, default, value_range, choices, r.tag(spec, path, default_tag),
                r.doc(spec, path), policy, search, inert)


def _range(r: Reader, raw: Any, path: Path) -> tuple[int, int]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise r.fail(path, f"must be [low, high], got {show(raw)}")
    low = r.integer(raw[0], (*path, 0))
    high = r.integer(raw[1], (*path, 1))
    if low > high:
        raise r.fail(path, f"low {low} is above high {high}")
    return low, high


def _check_value(r: Reader, value: Any, kind: str, value_range: tuple[int, int] | None,
                 choices: tuple[str, ...], path: Path) -> None:
    if kind == "bool":
        r.boolean(value, path)
    elif kind == "str":
        r.text(value, path, choices)
    else:
        low, high = value_range or (None, None)
        r.integer(value, path, low, high)


def _fields(r: Reader, data: Any, section: str, default_tag: str) -> tuple[Stat, ...]:
    if data is None:
        return ()
    if not isinstance(data, Mapping):
        raise r.fail((section,), f"must be a table of fields ([{section}.NAME]), got {show(data)}")
    out = []
    for name, spec in data.items():
        r.word(name, (section, name))
        if section == "fighter" and name == "name":
            raise r.fail((section, name), "every fighter has a name already (its display "
                                          "name); choose another field name")
        out.append(_stat(r, name, spec, (section, name), default_tag))
    return tuple(out)


def _per_fighter(fields: Mapping[str, Name]) -> Names:
    return Names.for_fighters(fields, ROLES)


def _clash(r: Reader, name: str, path: Path, taken: Mapping[str, str]) -> None:
    if name in taken:
        raise r.fail(path, f"{name!r} is already {taken[name]}; each name is declared once")


def _derived(r: Reader, data: Any, names: Names, taken: dict[str, str],
             default_tag: str) -> tuple[tuple[Derived, ...], Names]:
    if data is None:
        return (), names
    if not isinstance(data, Mapping):
        raise r.fail(("derived",), "must be a table: NAME = \"expression\" or "
                                   "[derived.NAME] with value, tag, doc")
    out = []
    for name, spec in data.items():
        path: Path = ("derived", name)
        r.word(name, path)
        _clash(r, name, path, taken)
        if not isinstance(spec, Mapping):
            spec = {"value": spec}
        spec = r.table(spec, path, ("value", "tag", "doc"), required=("value",))
        vpath = (*path, "value") if isinstance(data[name], Mapping) else path
        text = spec["value"]
        kind = _kind_at(r, vpath, text, names)
        if kind == "str":
            raise r.fail(vpath, "a derived value is a number or true/false, not a word")
        purpose: Literal["condition", "amount"] = "condition" if kind == "bool" else "amount"
        expression = r.expression(text, names, purpose, vpath, dice=False,
                                  what="a derived value is fixed for the fight: it")
        item = Derived(name, expression, r.tag(spec, path, default_tag), r.doc(spec, path))
        out.append(item)
        taken[name] = "a derived value"
        names = names | _per_fighter({name: Name(kind, range=expression.range,  # type: ignore[arg-type]
                                                 doc=item.doc, tag=item.tag)})
    return tuple(out), names


def _state(r: Reader, data: Any, names: Names, taken: dict[str, str],
           default_tag: str) -> tuple[StateVar, ...]:
    if not isinstance(data, Mapping) or not data:
        raise r.fail(("state",), "is missing: declare what changes during a fight, e.g. "
                                 "[state.health] start = \"self.health\"")
    out = []
    for name, spec in data.items():
        path: Path = ("state", name)
        r.word(name, path)
        _clash(r, name, path, taken)
        spec = r.table(spec, path, ("kind", "start", "range", "choices", "reset", "tag", "doc"),
                       required=("start",))
        start = spec["start"]
        guess = ("bool" if isinstance(start, bool) else "int" if isinstance(start, int)
                 else "str" if "choices" in spec else None)
        kind = spec.get("kind") or guess or _kind_at(r, (*path, "start"), start, names)
        kind = r.text(kind, (*path, "kind"), KINDS)
        out.append(_state_var(r, name, kind, spec, path, names, default_tag))
        taken[name] = "a state value"
    return tuple(out)


def _state_var(r: Reader, name: str, kind: str, spec: Mapping[str, Any], path: Path,
               names: Names, default_tag: str) -> StateVar:
    reset = r.text(spec.get("reset", "never"), (*path, "reset"), ("never", "round", "turn"))
    choices: tuple[str, ...] = ()
    value_range = None
    if kind == "str":
        raw = spec.get("choices")
        if not isinstance(raw, list) or not raw:
            raise r.fail((*path, "choices"), "a str state lists its words (choices = [...])")
        choices = tuple(r.word(c, (*path, "choices", i)) for i, c in enumerate(raw))
        start_word = r.text(spec["start"], (*path, "start"), choices)
        start = _word_start(start_word, choices, names, r, path)
        return StateVar(name, kind, start, None, choices, reset, r.tag(spec, path, default_tag),
                        r.doc(spec, path))
    purpose: Literal["condition", "amount"] = "condition" if kind == "bool" else "amount"
    start = r.expression(spec["start"], names, purpose, (*path, "start"))
    if kind == "int":
        if "range" in spec:
            value_range = _range(r, spec["range"], (*path, "range"))
        else:
            low, high = start.range or (None, None)
            if low is None or high is None:
                raise r.fail((*path, "range"), f"is missing: {start.text!r} has no bounded "
                                               "range; give range = [low, high]")
            value_range = (min(0, low), high)
    elif "range" in spec:
        raise r.fail((*path, "range"), "a range is for int state values")
    return StateVar(name, kind, start, value_range, choices, reset,
                    r.tag(spec, path, default_tag), r.doc(spec, path))


def _word_start(word: str, choices: tuple[str, ...], names: Names, r: Reader,
                path: Path) -> Expression:
    """A str state's start as an amount: the code of its word (states hold codes)."""
    return r.expression(choices.index(word), names, "amount", (*path, "start"))


def _order(r: Reader, data: Any, names: Names, default_tag: str) -> Order:
    if data is None:
        return Order(tag=default_tag)
    data = r.table(data, ("round",), ("order", "first", "initiative", "ties", "tag", "doc"))
    kind = r.text(data.get("order", "simultaneous"), ("round", "order"),
                  ("simultaneous", "sequential"))
    first = r.text(data.get("first", "initiative" if "initiative" in data else "a"),
                   ("round", "first"), ("a", "b", "random", "initiative"))
    if kind == "simultaneous" and ("first" in data or "initiative" in data):
        raise r.fail(("round", "first" if "first" in data else "initiative"),
                     "who goes first is for order = \"sequential\"; a simultaneous round "
                     "has both act at once")
    initiative = None
    if first == "initiative":
        if "initiative" not in data:
            raise r.fail(("round", "initiative"), "is missing: first = \"initiative\" needs "
                                                  "the amount each fighter rolls (higher first)")
        initiative = r.expression(data["initiative"], names, "amount", ("round", "initiative"))
    elif "initiative" in data:
        raise r.fail(("round", "initiative"), "goes with first = \"initiative\"")
    ties = r.text(data.get("ties", "random"), ("round", "ties"), ("a", "b", "random"))
    return Order(kind, first, initiative, ties, r.tag(data, ("round",), default_tag))


def _choices(r: Reader, data: Any, names: Names, taken: dict[str, str],
             default_tag: str) -> tuple[Choice, ...]:
    if data is None:
        return ()
    if not isinstance(data, Mapping):
        raise r.fail(("choices",), "must be a table of [choices.NAME]")
    out = []
    for name, spec in data.items():
        path: Path = ("choices", name)
        r.word(name, path)
        _clash(r, name, path, taken)
        spec = r.table(spec, path, ("options", "default", "policy", "first", "tag", "doc"),
                       required=("options",))
        raw = spec["options"]
        if not isinstance(raw, list) or len(raw) < 2:
            raise r.fail((*path, "options"), f"must list at least two words, got {show(raw)}")
        options = tuple(r.word(o, (*path, "options", i)) for i, o in enumerate(raw))
        if len(set(options)) != len(options):
            raise r.fail((*path, "options"), "an option is listed twice")
        default = r.text(spec.get("default", options[0]), (*path, "default"), options)
        policy = _policy(r, spec.get("policy", []), options, names, (*path, "policy"))
        first = None
        if "first" in spec:
            first = r.expression(spec["first"], names, "condition", (*path, "first"),
                                 dice=False, what="who declares first")
        out.append(Choice(name, options, default, policy, first, r.tag(spec, path, default_tag),
                          r.doc(spec, path)))
        taken[name] = "a choice"
    return tuple(out)


_PICK = re.compile(r"^\s*(?P<pick>[A-Za-z][A-Za-z0-9_]*)\s+when\s+(?P<when>\S.*)$", re.DOTALL)


def _policy(r: Reader, raw: Any, options: tuple[str, ...], names: Names,
            path: Path) -> tuple[tuple[str, Expression], ...]:
    """``[{pick = "divert", when = "..."}, "divert when ..."]`` -> (option, condition)
    pairs, tried in order."""
    if isinstance(raw, str | Mapping):
        raw = [raw]
    if not isinstance(raw, list):
        raise r.fail(path, f"must be a list of 'OPTION when CONDITION' lines or "
                           f"{{pick, when}} tables, got {show(raw)}")
    out = []
    for i, row in enumerate(raw):
        place = (*path, i)
        if isinstance(row, str):
            found = _PICK.match(row)
            if found is None:
                raise r.fail(place, f"a policy line is 'OPTION when CONDITION', got {row!r}")
            row = {"pick": found["pick"], "when": found["when"]}
        row = r.table(row, place, ("pick", "when"), required=("pick", "when"))
        pick = r.text(row["pick"], (*place, "pick"), options)
        when = r.expression(row["when"], names, "condition",
                            (*place, "when") if isinstance(raw[i], Mapping) else place)
        out.append((pick, when))
    return tuple(out)


@dataclass
class _Scope:
    """The names of one action, growing as its parts are read."""

    names: Names
    simultaneous: bool

    def add(self, name: str, declared: Name) -> None:
        roles = ROLES if self.simultaneous else ("self",)
        self.names = self.names | Names({f"{role}.{name}": declared for role in roles})


def _action_names(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        return []
    return [a["name"] for a in raw if isinstance(a, Mapping) and isinstance(a.get("name"), str)]


def _modifiers(r: Reader, data: Any, names: Names, actions: Sequence[str]) -> tuple[Modifier, ...]:
    if data is None:
        return ()
    targets = {a: f"the roll of action {a}" for a in actions} | {"damage": "damage dealt"}
    vocabulary = Vocabulary(names, targets=targets)
    return r.guarded(("modifiers",), lambda: vocabulary.modifiers(data, where="modifiers"))


def _summed_range(parts: Sequence[tuple[int | None, int | None] | None]
                  ) -> tuple[int | None, int | None]:
    low: int | None = 0
    high: int | None = 0
    for part in parts:
        a, b = part or (None, None)
        low = None if low is None or a is None else low + a
        high = None if high is None or b is None else high + b
    return low, high


def _action(r: Reader, raw: Any, index: int, base: Names, states: tuple[StateVar, ...],
            modifiers: tuple[Modifier, ...], simultaneous: bool, default_tag: str) -> Action:
    path: Path = ("actions", index)
    data = r.table(raw, path, ("name", "when", "times", "roll", "against", "let", "outcomes",
                               "tag", "doc"), required=("name", "outcomes"))
    name = r.word(data["name"], (*path, "name"))
    when = None
    if "when" in data:
        when = r.expression(data["when"], base, "condition", (*path, "when"))
    times = r.expression(data.get("times", 1), base, "amount", (*path, "times"))
    low, high = times.range or (None, None)
    if low is None or high is None or low < 0 or high > MAX_TIMES:
        raise r.fail((*path, "times"), f"must be 0..{MAX_TIMES} in every fight, and "
                                       f"{times.text!r} can be {low}..{high}")
    scope = _Scope(base | Names({"attempt": Name("int", range=(1, max(1, high)),
                                                 doc="the repetition of this action, from 1")}),
                   simultaneous)
    before = scope.names
    roll = against = None
    if "roll" in data:
        roll = r.expression(data["roll"], before, "amount", (*path, "roll"))
        added = [_modifier_range(m) for m in modifiers if m.to == name]
        scope.add("roll", Name("int", range=_summed_range([roll.range, *added]),
                               doc=f"the total of {name}'s roll"))
    if "against" in data:
        if roll is None:
            raise r.fail((*path, "against"), "needs a roll to set against")
        against = r.expression(data["against"], before, "amount", (*path, "against"))
        roll_range = scope.names["self.roll"].range or (None, None)
        a_low, a_high = against.range or (None, None)
        scope.add("margin", Name("int", range=(
            None if roll_range[0] is None or a_high is None else roll_range[0] - a_high,
            None if roll_range[1] is None or a_low is None else roll_range[1] - a_low),
            doc="the roll less what it is against"))
    lets = _lets(r, data.get("let"), scope, path)
    outcomes = _outcomes(r, data["outcomes"], scope.names, states, path, default_tag)
    return Action(name, when, times, roll, against, lets, outcomes,
                  r.tag(data, path, default_tag), r.doc(data, path))


def _modifier_range(m: Modifier) -> tuple[int | None, int | None]:
    low, high = m.amount.range or (None, None)
    if m.when is None:
        return low, high
    return (None if low is None else min(0, low), None if high is None else max(0, high))


def _lets(r: Reader, data: Any, scope: _Scope, path: Path) -> tuple[tuple[str, Expression], ...]:
    if data is None:
        return ()
    if not isinstance(data, Mapping):
        raise r.fail((*path, "let"), "must be a table: NAME = \"expression\"")
    out = []
    for name, text in data.items():
        place = (*path, "let", name)
        r.word(name, place)
        if f"self.{name}" in scope.names:
            raise r.fail(place, f"self.{name} is already a name here; choose another")
        kind = _kind_at(r, place, text, scope.names)
        if kind == "str":
            raise r.fail(place, "a let value is a number or true/false, not a word")
        purpose: Literal["condition", "amount"] = "condition" if kind == "bool" else "amount"
        expression = r.expression(text, scope.names, purpose, place)
        scope.add(name, Name(kind, range=expression.range))  # type: ignore[arg-type]
        out.append((name, expression))
    return tuple(out)


def _outcomes(r: Reader, raw: Any, names: Names, states: tuple[StateVar, ...], path: Path,
              default_tag: str) -> tuple[Outcome, ...]:
    place: Path = (*path, "outcomes")
    if not isinstance(raw, list) or not raw:
        raise r.fail(place, "must list the outcomes ([[actions.outcomes]]), at least one")
    vocabulary = Vocabulary(
        names, outcomes={},  # filled per outcome below
        resources={s.name: s.doc for s in states if s.kind == "int"},
        states={s.name: s.as_name() for s in states})
    out = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        here = (*place, i)
        data = r.table(item, here, ("name", "when", "damage", "self_damage", "effects", "tag",
                                    "doc"), required=("name",))
        name = r.word(data["name"], (*here, "name"))
        if name in seen:
            raise r.fail((*here, "name"), f"outcome {name!r} is listed twice")
        seen.add(name)
        when = None
        if "when" in data:
            when = r.expression(data["when"], names, "condition", (*here, "when"))
        elif i != len(raw) - 1:
            raise r.fail((*here, "when"), "is missing: only the last outcome may hold always "
                                          "(the first outcome whose condition holds is taken)")
        damage = {key: r.expression(data[key], names, "amount", (*here, key))
                  for key in ("damage", "self_damage") if key in data}
        effects = _effects(r, data.get("effects"), vocabulary, name, here)
        out.append(Outcome(name, when, damage.get("damage"), damage.get("self_damage"), effects,
                           r.tag(data, here, default_tag), r.doc(data, here)))
    return tuple(out)


def _effects(r: Reader, raw: Any, vocabulary: Vocabulary, outcome: str,
             path: Path) -> tuple[Effect, ...]:
    if raw is None:
        return ()
    rows = raw if isinstance(raw, list) else [raw]
    filled = []
    for row in rows:  # an outcome's own effects need not say "on OUTCOME"
        if isinstance(row, str) and not row.lstrip().startswith("on "):
            row = f"on {outcome} {row}"
        elif isinstance(row, Mapping) and "on" not in row:
            row = {"on": outcome, **row}
        filled.append(row)
    words = Vocabulary(vocabulary.names, outcomes={outcome: ""}, resources=vocabulary.resources,
                       states=vocabulary.states)
    return r.guarded(path, lambda: words.effects(filled, where="effects"))


def _end(r: Reader, data: Mapping[str, Any], names: Names, states: tuple[StateVar, ...],
         max_rounds: Expression, default_tag: str) -> End:
    path: Path = ("end",)
    if "out" not in data:
        raise r.fail((*path, "out"), "is missing: say when a fighter is out, e.g. "
                                     "out = \"self.health <= 0\"")
    out = r.expression(data["out"], names, "condition", (*path, "out"), dice=False,
                       what="whether a fighter is out")
    ints = [s.name for s in states if s.kind == "int"]
    health = r.text(data.get("health", ints[0] if ints else ""), (*path, "health"), ints or None)
    draw_when = None
    if "draw_when" in data:
        draw_when = r.expression(data["draw_when"], names, "condition", (*path, "draw_when"),
                                 dice=False, what="a draw condition")
    cause = r.word(data.get("draw_cause", "stalemate"), (*path, "draw_cause"))
    if cause in ("down", "max_rounds"):
        raise r.fail((*path, "draw_cause"), f"{cause!r} is taken; name the draw otherwise")
    return End(out, max_rounds, health, draw_when, cause, r.tag(data, path, default_tag))


def _max_rounds(r: Reader, data: Mapping[str, Any], rules: list[Stat],
                default_tag: str) -> None:
    """The round cap is the rule parameter ``max_rounds``: declared in ``[rules]``, or made
    from ``[end] max_rounds = N`` (default 100)."""
    declared = next((s for s in rules if s.name == "max_rounds"), None)
    if declared is not None:
        if "max_rounds" in data:
            raise r.fail(("end", "max_rounds"), "[rules.max_rounds] already sets the round cap")
        low, high = declared.range or (None, None)
        if declared.kind != "int" or low is None or low < 1 or high is None \
                or high > MAX_ROUNDS_HIGH:
            raise r.fail(("rules", "max_rounds"), f"the round cap is a whole number with "
                                                  f"range [1..{MAX_ROUNDS_HIGH}] at most")
        return
    default = r.integer(data.get("max_rounds", 100), ("end", "max_rounds"), 1, MAX_ROUNDS_HIGH)
    rules.append(Stat("max_rounds", "int", default, (1, MAX_ROUNDS_HIGH),
                      tag=r.tag(data, ("end",), default_tag),
                      doc="rounds after which an unfinished fight is a draw"))


def _sides_table(r: Reader, data: Any, section: str) -> dict[str, Mapping[str, Any]]:
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise r.fail((section,), f"must be a table of [{section}.NAME] tables")
    out: dict[str, Mapping[str, Any]] = {}
    for name, spec in data.items():
        if not isinstance(spec, Mapping):
            raise r.fail((section, name), f"must be a table, got {show(spec)}")
        if section == "scenarios":
            r.table(spec, (section, name), ("description", "a", "b", "rules"),
                    required=("a", "b"))
        out[str(name)] = dict(spec)
    return out


# --- the whole file ------------------------------------------------------------------------------
def read_system(text: str, source: str) -> System:
    """The :class:`System` a ruleset file's ``text`` declares (``source`` names it in
    errors), or the :class:`~balance.errors.SpecError` of its first mistake."""
    import tomllib

    r = Reader(source, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"not valid TOML: {exc}", where=source) from None
    r.table(data, (), TOP, required=("ruleset", "state", "actions", "end"))
    head = r.table(data["ruleset"], ("ruleset",), ("name", "title", "doc", "tag"),
                   required=("name",))
    name = r.text(head["name"], ("ruleset", "name"))
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", name):
        raise r.fail(("ruleset", "name"), f"{name!r}: letters, digits, '_', '-' and '.', "
                                          "starting with a letter")
    default_tag = r.tag(head, ("ruleset",), "DEFAULT")
    fighter = _fields(r, data.get("fighter"), "fighter", default_tag)
    rules = list(_fields(r, data.get("rules"), "rules", default_tag))
    end_data = r.table(data["end"], ("end",), ("out", "max_rounds", "draw_when", "draw_cause",
                                               "health", "tag"))
    _max_rounds(r, end_data, rules, default_tag)
    taken = {s.name: "a fighter field" for s in fighter} | {"name": "the fighter's name"}
    for s in rules:
        _clash(r, s.name, ("rules", s.name), {**taken, **dict.fromkeys(SITUATION, "the engine's")})
        taken[s.name] = "a rule parameter"
    names = _per_fighter({s.name: s.as_name() for s in fighter}) | Names(
        {s.name: s.as_name() for s in rules})
    derived, names = _derived(r, data.get("derived"), names, taken, default_tag)
    states = _state(r, data.get("state"), names, taken, default_tag)
    cap = next(s for s in rules if s.name == "max_rounds")
    names = names | _per_fighter({s.name: s.as_name() for s in states}) | Names(
        {"round": Name("int", range=(1, (cap.range or (1, MAX_ROUNDS_HIGH))[1]),
                       doc="the round, from 1")})
    order = _order(r, data.get("round"), names, default_tag)
    choices = _choices(r, data.get("choices"), names, taken, default_tag)
    base = names | _per_fighter({c.name: Name("str", choices=c.options, doc=c.doc, tag=c.tag)
                                 for c in choices})
    raw_actions = data["actions"]
    if not isinstance(raw_actions, list) or not raw_actions:
        raise r.fail(("actions",), "must list the actions of a turn ([[actions]]), at least one")
    action_names = _action_names(raw_actions)
    modifier_names = base | Names({"attempt": Name("int", range=(1, MAX_TIMES))})
    modifiers = _modifiers(r, data.get("modifiers"), modifier_names, action_names)
    actions = tuple(_action(r, raw, i, base, states, modifiers, order.kind == "simultaneous",
                            default_tag) for i, raw in enumerate(raw_actions))
    seen = [a.name for a in actions]
    for i, action in enumerate(actions):
        if action.name in seen[:i]:
            raise r.fail(("actions", i, "name"), f"action {action.name!r} is listed twice")
    end = _end(r, end_data, names, states, compile_expression("max_rounds", names, "amount"),
               default_tag)
    return System(name, r.text(head.get("title", name), ("ruleset", "title")),
                  r.doc(head, ("ruleset",)), fighter, tuple(rules), derived, states, order,
                  choices, actions, modifiers, end, _sides_table(r, data.get("presets"), "presets"),
                  _sides_table(r, data.get("scenarios"), "scenarios"), base)
