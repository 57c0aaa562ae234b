"""The names an expression may read, declared by the ruleset that evaluates it.

A :class:`Name` is one value a condition can look at -- ``self.wounds`` (a whole number in
a range), ``target.shield`` (one of a few words), ``mounted`` (true or false) -- with its
documentation and provenance tag.  :class:`Names` is a ruleset's whole list: an immutable,
hashable, picklable mapping ``name -> Name``, which the checker reads and ``balance show``
prints.

Strings never travel through the kernels as text: a ``str`` name's values are integer codes,
the positions of its choices (``Name.encode``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, cast

import numpy as np

from ..errors import SpecError, did_you_mean
from ..fields import TAGS

__all__ = ["KINDS", "RESERVED", "Kind", "Name", "Names"]

Kind: TypeAlias = Literal["int", "bool", "str"]
KINDS: tuple[Kind, ...] = ("int", "bool", "str")
RESERVED: frozenset[str] = frozenset(
    {"and", "or", "not", "if", "else", "in", "true", "false", "min", "max"})
"""Words of the language itself; no name may be one (nor start with one as its first part)."""

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*\Z")
_DICE_LIKE = re.compile(r"d[0-9]+\Z")
_KIND_OF_TYPE: dict[Any, Kind] = {int: "int", bool: "bool", str: "str"}
_KIND_WORDS = {"int": "a whole number", "bool": "true or false", "str": "a word"}


@dataclass(frozen=True)
class Name:
    """One value an expression may read.

    Parameters
    ----------
    kind
        ``int``, ``bool`` or ``str`` (the Python type or its name).
    range
        For ``int``: ``(low, high)``, inclusive, either end ``None`` for unbounded.  The
        checker uses it to bound amounts (:attr:`Expression.range`); kernels are trusted to
        keep values inside it.
    choices
        For ``str``: the allowed words, in code order (required, at least one).
    doc
        One line for ``balance show`` and the docs.
    tag
        Provenance: TEXT, SRC, AMBIG or DEFAULT (optional).
    """

    kind: Kind
    range: tuple[int | None, int | None] | None = None
    choices: tuple[str, ...] = ()
    doc: str = ""
    tag: str | None = None

    if TYPE_CHECKING:  # the kind may be given as the type itself; it is stored as its name
        def __init__(self, kind: Kind | type, range: tuple[int | None, int | None] | None = None,
                     choices: Sequence[str] = (), doc: str = "", tag: str | None = None) -> None:
            ...

    def __post_init__(self) -> None:
        kind = _KIND_OF_TYPE.get(self.kind, self.kind)
        if kind not in KINDS:
            raise SpecError(f"a name's kind must be one of int, bool, str, got {self.kind!r}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "choices", tuple(self.choices))
        if self.range is not None:
            self._check_range()
        if kind == "str":
            self._check_choices()
        elif self.choices:
            raise SpecError(f"choices are for str names only, not {kind}")
        if self.tag is not None and self.tag not in TAGS:
            raise SpecError(f"a name's tag must be one of {', '.join(TAGS)}, got {self.tag!r}")

    def _check_range(self) -> None:
        if self.kind != "int":
            raise SpecError(f"a range is for int names only, not {self.kind}")
        low, high = self.range  # type: ignore[misc]
        for end in (low, high):
            if end is not None and (isinstance(end, bool) or not isinstance(end, int | np.integer)):
                raise SpecError(f"a range's ends must be whole numbers or None, got {end!r}")
        if low is not None and high is not None and low > high:
            raise SpecError(f"a range's low end {low} is above its high end {high}")
        object.__setattr__(self, "range", (None if low is None else int(low),
                                           None if high is None else int(high)))

    def _check_choices(self) -> None:
        if not self.choices:
            raise SpecError("a str name needs its choices (the words it may hold)")
        if any(not isinstance(c, str) for c in self.choices):
            raise SpecError(f"a str name's choices must be strings, got {self.choices!r}")
        if len(set(self.choices)) != len(self.choices):
            raise SpecError(f"a str name's choices repeat a word: {self.choices!r}")
        if len(self.choices) > 32767:
            raise SpecError("a str name may have at most 32767 choices")

    # --- strings as codes -------------------------------------------------------------------
    @property
    def code_dtype(self) -> type[np.integer]:
        """The smallest signed integer type holding every code (int8 or int16)."""
        return np.int8 if len(self.choices) <= 127 else np.int16

    def code(self, word: str) -> int:
        """The integer code of one of the choices."""
        try:
            return self.choices.index(word)
        except ValueError:
            raise SpecError(f"{word!r} is not one of {self.allowed()}"
                            + did_you_mean(word, self.choices)) from None

    def encode(self, words: str | Iterable[str]) -> Any:
        """Codes of ``words`` (a string gives an int, anything else an int8/int16 array)."""
        if isinstance(words, str):
            return self.code(words)
        index = {w: i for i, w in enumerate(self.choices)}
        values = list(np.asarray(words, dtype=object).ravel())
        try:
            return np.array([index[w] for w in values], dtype=self.code_dtype)
        except KeyError as exc:
            raise SpecError(f"{exc.args[0]!r} is not one of {self.allowed()}") from None

    def decode(self, code: int) -> str:
        """The word of a code."""
        return self.choices[int(code)]

    # --- describing ----------------------------------------------------------------------
    def allowed(self) -> str:
        """What values this name takes, in words: ``0..10``, ``true or false``, ``one of ...``."""
        if self.kind == "str":
            return "one of " + ", ".join(f'"{c}"' for c in self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.range is None:
            return "a whole number"
        low, high = self.range
        if low is None and high is None:
            return "a whole number"
        if low is None:
            return f"a whole number up to {high}"
        if high is None:
            return f"a whole number from {low}"
        return f"a whole number {low}..{high}"

    def as_toml(self) -> dict[str, Any]:
        """The TOML-ready table :meth:`Names.from_toml` reads back."""
        out: dict[str, Any] = {"kind": self.kind}
        if self.range is not None:
            out["range"] = list(self.range)
        if self.choices:
            out["choices"] = list(self.choices)
        if self.doc:
            out["doc"] = self.doc
        if self.tag is not None:
            out["tag"] = self.tag
        return out


def _check_key(key: object) -> str:
    if not isinstance(key, str) or not _NAME.match(key):
        raise SpecError(f"{key!r} cannot be a name: a name is words of letters, digits and _ "
                        "joined by dots, each word starting with a letter (self.wounds)")
    first = key.split(".")[0]
    if first in RESERVED:
        raise SpecError(f"{key!r} cannot be a name: {first!r} is a word of the rules language "
                        f"({', '.join(sorted(RESERVED))})")
    if _DICE_LIKE.match(first):
        raise SpecError(f"{key!r} cannot be a name: {first!r} reads as dice")
    return key


class Names(Mapping[str, Name]):
    """The names a ruleset's expressions may read: an immutable mapping ``name -> Name``.

    Examples
    --------
    >>> names = Names({"self.wounds": Name(int, range=(0, 10), doc="wounds taken"),
    ...                "target.shield": Name(str, choices=("none", "buckler", "kite"))})
    >>> names["target.shield"].code("kite")
    2
    """

    __slots__ = ("_d",)

    def __init__(self, names: Mapping[str, Name] | Iterable[tuple[str, Name]] = ()) -> None:
        items = names.items() if isinstance(names, Mapping) else names
        d: dict[str, Name] = {}
        for key, name in items:
            if not isinstance(name, Name):
                raise SpecError(f"{key!r} must be declared with Name(...), got {name!r}")
            d[_check_key(key)] = name
        self._d = d

    def __getitem__(self, key: str) -> Name:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        return hash(tuple(self._d.items()))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Names) and self._d == other._d

    def __repr__(self) -> str:
        return f"Names({', '.join(self._d)})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Names, (self._d,))

    def __or__(self, other: Mapping[str, Name]) -> Names:
        """Both lists; a name in both must be declared the same way."""
        for key in set(self._d) & set(other):
            if self._d[key] != other[key]:
                raise SpecError(f"{key!r} is declared twice, differently")
        return Names({**self._d, **other})

    @classmethod
    def for_fighters(cls, fields: Mapping[str, Name],
                     roles: Sequence[str] = ("self", "target")) -> Names:
        """The same fields for each role: ``{"wounds": Name(int)}`` gives ``self.wounds``
        and ``target.wounds``."""
        return cls({f"{role}.{field}": name for role in roles for field, name in fields.items()})

    @classmethod
    def from_toml(cls, data: Mapping[str, Any], *, where: str = "names") -> Names:
        """Names from a TOML table ``{"self.wounds" = {kind = "int", range = [0, 10]}}``,
        each error naming its key path."""
        from ..reading import Reader, join, show

        reader = Reader(None)
        if not isinstance(data, Mapping):
            raise reader.fail(where, f"must be a table of names, got {show(data)}")
        out = {}
        for key, spec in data.items():
            place = join(where, key)
            spec = reader.table(spec, place, ("kind", "range", "choices", "doc", "tag"))
            kind = cast(Kind, reader.text(spec.get("kind", "int"), join(place, "kind"), KINDS))
            try:
                _check_key(key)
                rng = spec.get("range")
                out[key] = Name(kind,
                                range=None if rng is None else _pair(rng),
                                choices=tuple(spec.get("choices", ())),
                                doc=str(spec.get("doc", "")), tag=spec.get("tag"))
            except SpecError as exc:
                raise reader.fail(place, exc.reason) from None
        return cls(out)

    def as_toml(self) -> dict[str, dict[str, Any]]:
        return {key: name.as_toml() for key, name in self._d.items()}

    # --- values -----------------------------------------------------------------------------
    def encode(self, name: str, words: str | Iterable[str]) -> Any:
        """Codes of ``words`` for the str name ``name`` (see :meth:`Name.encode`)."""
        declared = self.lookup(name)
        if declared.kind != "str":
            raise SpecError(f"{name!r} is {declared.kind}, not str: it has no codes")
        return declared.encode(words)

    def lookup(self, name: str) -> Name:
        """The declaration of ``name``, or a SpecError naming the close and allowed names."""
        try:
            return self._d[name]
        except KeyError:
            raise SpecError(f"unknown name {name!r}{did_you_mean(name, self._d)}; "
                            f"names: {self.listing()}") from None

    def listing(self) -> str:
        """The names, comma-separated, for error messages (``none`` when there are none)."""
        return ", ".join(self._d) or "none"

    def describe(self) -> list[dict[str, Any]]:
        """One row per name (name, kind, allowed values, doc, tag), JSON-ready."""
        return [{"name": key, "kind": n.kind, "allowed": n.allowed(), "doc": n.doc,
                 "tag": n.tag or ""} for key, n in self._d.items()]

    def markdown(self) -> str:
        """The names as a Markdown table (for ``docs/<ruleset>.md``)."""
        lines = ["| name | type | values | meaning | tag |", "|---|---|---|---|---|"]
        for row in self.describe():
            lines.append(f"| `{row['name']}` | {row['kind']} | {row['allowed']} | "
                         f"{row['doc']} | {row['tag']} |")
        return "\n".join(lines)


def _pair(value: Any) -> tuple[Any, Any]:
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise SpecError(f"a range is [low, high], got {value!r}")
    return (value[0], value[1])


def kind_words(kind: str) -> str:
    """How an error names a type: ``a whole number``, ``true or false``, ``a word``."""
    return _KIND_WORDS[kind]
