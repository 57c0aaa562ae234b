"""Fields with provenance: the one validator that rules, combatants, specs and the CLI use.

A rule parameter or combatant field is a field of a frozen, keyword-only dataclass declared
with :func:`param`, so it carries its documentation, its allowed values, its provenance tag
(TEXT / SRC / AMBIG / DEFAULT, see ``../shared/rules/README.md``) and whether it is a
*policy* -- a decision a fighter makes rather than a rule of the game.  :func:`check_fields`
validates an instance in ``__post_init__``; :func:`build` makes one from command-line or TOML
text through the same checks.

Nothing here knows which ruleset it serves.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import types
import typing
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import numpy as np

from .errors import SpecError, did_you_mean

__all__ = [
    "TAGS",
    "FieldInfo",
    "RowReplaced",
    "Table",
    "build",
    "check_fields",
    "check_text",
    "coerce",
    "describe_fields",
    "nondefault",
    "param",
    "plain",
    "read_toml",
    "replaced_rows",
    "split_spec",
]

Tag: TypeAlias = Literal["TEXT", "SRC", "AMBIG", "DEFAULT"]
TAGS: tuple[str, ...] = ("TEXT", "SRC", "AMBIG", "DEFAULT")

# --- immutable table values --------------------------------------------------------------


class Table(Mapping[str, Any]):
    """An immutable, hashable, picklable mapping: a rules table held in a frozen dataclass.

    On the command line a table is written ``key:value,key:value``; the keys given replace
    those of the default and the rest are kept.
    """

    __slots__ = ("_d", "_hash")

    def __init__(self, data: Mapping[str, Any] | Iterable[tuple[str, Any]] = ()) -> None:
        items = data.items() if isinstance(data, Mapping) else data
        self._d = {str(k): _freeze(v) for k, v in items}
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Any:
        return self._d[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __hash__(self) -> int:
        # made once: a rules object is hashed by every cache it keys (its tables are most
        # of the work); never pickled (__reduce__), as string hashes differ by process
        if self._hash is None:
            self._hash = hash(tuple(sorted(self._d.items(), key=lambda kv: kv[0])))
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self._d) == dict(other)

    def __repr__(self) -> str:
        return f"Table({self._d!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Table, (self._d,))

    def replace(self, **changes: Any) -> Table:
        return Table({**self._d, **changes})


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping) and not isinstance(value, Table):
        return Table(value)
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


def plain(value: Any) -> Any:
    """A JSON-ready copy of a field value (tables -> dicts, tuples -> lists)."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


# --- names and text ----------------------------------------------------------------------

_CONTROL_NAMES = {0: "NUL", 7: "BEL", 8: "backspace", 9: "tab", 10: "newline",
                  13: "carriage return", 27: "ESC", 127: "DEL"}
_LINE_BREAKS = "\n\r\t"
"""What free text (a description, a question, notes) may hold that a name may not."""


def _control(char: str) -> bool:
    """C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators."""
    code = ord(char)
    return code < 32 or 127 <= code < 160 or code in (0x2028, 0x2029)


def check_text(value: str, what: str, *, lines: bool = False) -> str:
    """``value``, or a :class:`SpecError` naming ``what`` if it holds a control character.

    Every name a person gives -- a combatant's name, a preset, an entrant, a label, any
    string field -- passes here: ESC, BEL, NUL, a newline or any other C0 / C1 control
    (and DEL) would reach a terminal, a table or a report as it is.  ``lines=True`` is for
    free text (a description, notes), which may also hold newlines and tabs.
    """
    for i, char in enumerate(value):
        if _control(char) and not (lines and char in _LINE_BREAKS):
            code = ord(char)
            name = _CONTROL_NAMES.get(code, f"U+{code:04X}")
            kind = "text (newlines and tabs allowed)" if lines else "a name"
            raise SpecError(" ".join(filter(None, (what, f"holds a control character ({name}) "
                                                         f"at position {i}: {value!r};"
                                                         f" {kind} must be printable"))))
    return value


# --- fields with provenance ----------------------------------------------------------------


def param(default: Any, *, tag: Tag, doc: str, choices: Sequence[Any] | None = None,
          low: float | None = None, high: float | None = None, policy: bool = False,
          search: Sequence[Any] | None = None, open_keys: bool = False) -> Any:
    """Declare a rule parameter or combatant field.

    Parameters
    ----------
    default
        The default value (tables may be given as dicts; they are frozen).
    tag
        Provenance of the default: ``"TEXT"`` (the seed says it), ``"SRC"`` (the identified
        source game), ``"AMBIG"`` (a chosen reading of unclear text) or ``"DEFAULT"``
        (invented to fill a gap).
    doc
        One line: what the field means, citing the seed or digest section.
    choices, low, high
        Allowed values: a closed set, or an inclusive numeric range (for tuples and tables,
        the range applies to every element).
    policy
        The field is a decision a fighter makes (attack type, diversion, bids, targets), not
        a rule of the game: results disclose it and best play searches over it.
    search
        For a policy: the values best play tries (default: ``choices``, or both values of a
        bool).  Numeric policies (a health threshold) must give them.
    open_keys
        For a table: keys beyond the default's may be given (content as data: a new weapon
        row); the dataclass's ``__post_init__`` checks them.  Otherwise a table must have
        exactly the default's keys.
    """
    if tag not in TAGS:
        raise ValueError(f"tag must be one of {TAGS}, got {tag!r}")
    if search is not None and not policy:
        raise ValueError("search= is only for policy fields")
    metadata = {"tag": tag, "doc": doc, "choices": tuple(choices) if choices else None,
                "low": low, "high": high, "policy": policy,
                "search": tuple(search) if search is not None else None,
                "open_keys": open_keys}
    default = _freeze(default)
    return field(default=default, metadata=metadata)


@dataclass(frozen=True)
class FieldInfo:
    """What ``balance show`` prints about one field."""

    name: str
    type: str
    default: Any
    allowed: str
    tag: str
    doc: str
    policy: bool = False
    search: tuple[Any, ...] | None = None


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The field types of ``cls`` (read, never changed: one dict per class, kept, since
    every combatant built asks for them)."""
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls)
    return found


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        return " | ".join(_type_name(a) for a in typing.get_args(tp))
    if origin is tuple:
        return f"tuple[{_type_name(typing.get_args(tp)[0])}, ...]"
    return "None" if tp is type(None) else getattr(tp, "__name__", str(tp))


def _allowed(f: dataclasses.Field, tp: Any) -> str:
    md = f.metadata
    if md.get("choices"):
        return " | ".join(str(c) for c in md["choices"])
    low, high = md.get("low"), md.get("high")
    if low is not None or high is not None:
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        return f"{lo}..{hi}"
    if tp is bool:
        return "true | false"
    return "any " + _type_name(tp)


def describe_fields(cls: type) -> list[FieldInfo]:
    """The documented fields of a ``Combatant`` or ``Rules`` dataclass."""
    return list(_described(cls))


@functools.cache
def _described(cls: type) -> tuple[FieldInfo, ...]:
    # A class's fields never change, and resolving its type hints costs ~1 ms: once.
    hints = _hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if "tag" not in f.metadata:
            continue
        md, tp = f.metadata, hints[f.name]
        search = md.get("search")
        if md.get("policy") and search is None:
            search = md["choices"] or ((False, True) if tp is bool else None)
            if search is None:
                raise TypeError(f"{cls.__name__}.{f.name}: a numeric policy needs search=")
        out.append(FieldInfo(f.name, _type_name(tp), plain(f.default), _allowed(f, tp),
                             md["tag"], md["doc"], bool(md.get("policy")),
                             tuple(search) if search is not None else None))
    return tuple(out)


def _fail(owner: str, name: str, allowed: str, value: Any) -> SpecError:
    return SpecError(f"{owner} field '{name}' must be {allowed}, got {value!r}")


def _check_scalar(owner: str, name: str, tp: Any, value: Any, md: Mapping[str, Any]) -> Any:
    """Validate (and normalise int -> float) one value against its type and metadata."""
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        tp = next(a for a in args if a is not type(None))
    if tp is bool:
        if not isinstance(value, bool | np.bool_):
            raise _fail(owner, name, "true or false", value)
        return bool(value)
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise _fail(owner, name, f"an integer ({_allowed_md(md)})", value)
        value = int(value)
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
            raise _fail(owner, name, f"a number ({_allowed_md(md)})", value)
        value = float(value)
        if not math.isfinite(value):
            raise _fail(owner, name, f"a finite number ({_allowed_md(md)})", value)
    elif tp is str and not isinstance(value, str):
        raise _fail(owner, name, f"a string ({_allowed_md(md)})", value)
    if isinstance(value, str):
        check_text(value, f"{owner} field '{name}'")
    if md.get("choices") and value not in md["choices"]:
        raise SpecError(f"{owner} field '{name}' must be one of "
                        f"{', '.join(map(str, md['choices']))}, got {value!r}"
                        + did_you_mean(value, md["choices"]))
    low, high = md.get("low"), md.get("high")
    if isinstance(value, int | float) and ((low is not None and value < low)
                                           or (high is not None and value > high)):
        raise _fail(owner, name, f"in {_allowed_md(md)}", value)
    return value


def _allowed_md(md: Mapping[str, Any]) -> str:
    if md.get("choices"):
        return "one of " + ", ".join(map(str, md["choices"]))
    low, high = md.get("low"), md.get("high")
    if low is None and high is None:
        return "any value"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{lo}..{hi}"


def _check_entry(owner: str, name: str, default: Any, value: Any, md: Mapping[str, Any]
                 ) -> None:
    """One entry of a table field: the type of the default's entry, and the field's range.

    Row-valued entries (tuples, nested tables) must stay rows; their contents are the
    ruleset's to check (their columns differ in type)."""
    if isinstance(default, Mapping | tuple):
        if not isinstance(value, type(default)):
            raise _fail(owner, name, "a table" if isinstance(default, Mapping) else "a list",
                        value)
        return
    if isinstance(value, Mapping | tuple):
        raise _fail(owner, name, f"a single value ({_allowed_md(md)})", value)
    tp = int if default is None else type(default)
    _check_scalar(owner, name, tp if tp in (bool, int, float, str) else type(value), value, md)


def check_fields(obj: Any) -> None:
    """Validate every :func:`param` field of a frozen dataclass instance, in place.

    Call from ``__post_init__``.  Ints given for float fields become floats, lists become
    tuples and dicts become :class:`Table`; anything else of the wrong type or out of range
    raises :class:`SpecError` naming the field and what is allowed.
    """
    cls = type(obj)
    owner = getattr(cls, "_owner", cls.__name__)
    hints = _hints(cls)
    for f in dataclasses.fields(cls):
        if "tag" not in f.metadata:
            continue
        tp, value, md = hints[f.name], getattr(obj, f.name), f.metadata
        origin = typing.get_origin(tp)
        if origin is tuple:
            if isinstance(value, list):
                value = tuple(value)
            if not isinstance(value, tuple):
                raise _fail(owner, f.name, "a list", value)
            item = typing.get_args(tp)[0]
            value = tuple(_check_scalar(owner, f.name, item, v, md) for v in value)
        elif tp is Table or origin is Table:
            if isinstance(value, Mapping) and not isinstance(value, Table):
                value = Table(value)
            if not isinstance(value, Table):
                raise _fail(owner, f.name, "a table", value)
            expected = set(f.default) if isinstance(f.default, Table) else set(value)
            if md.get("open_keys"):
                expected |= set(value)
            if set(value) != expected:
                raise _fail(owner, f.name, "a table with keys " + ", ".join(sorted(expected)),
                            dict(value))
            defaults = f.default if isinstance(f.default, Table) else {}
            for k, v in value.items():
                check_text(k, f"{owner} field '{f.name}': a key")
                _check_entry(owner, f"{f.name}.{k}", defaults.get(k, v), v, md)
        else:
            value = _check_scalar(owner, f.name, tp, value, md)
        object.__setattr__(obj, f.name, value)


# --- building from text -------------------------------------------------------------------


def _parse_scalar(owner: str, name: str, tp: Any, text: str, md: Mapping[str, Any]) -> Any:
    origin = typing.get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        if text.strip().lower() in ("none", "null", ""):
            return None
        tp = next(a for a in typing.get_args(tp) if a is not type(None))
    text = text.strip()
    try:
        if tp is bool:
            low = text.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise ValueError
        if tp is int:
            return int(text)
        if tp is float:
            return float(text)
    except ValueError:
        kind = {bool: "true or false", int: "an integer", float: "a number"}[tp]
        raise _fail(owner, name, f"{kind} ({_allowed_md(md)})", text) from None
    return text


def coerce(cls: type, name: str, value: Any) -> Any:
    """Convert ``value`` (possibly a command-line string) to field ``name`` of ``cls``."""
    owner = getattr(cls, "_owner", cls.__name__)
    fields = {f.name: f for f in dataclasses.fields(cls) if "tag" in f.metadata}
    if name not in fields:
        raise SpecError(f"unknown {owner} field '{name}'{did_you_mean(name, fields)}; "
                        "allowed: " + ", ".join(fields))
    if not isinstance(value, str):
        return value
    f, tp = fields[name], _hints(cls)[name]
    origin = typing.get_origin(tp)
    if origin is tuple:
        item = typing.get_args(tp)[0]
        parts = [p for p in value.replace("/", ",").split(",") if p.strip()]
        return tuple(_parse_scalar(owner, name, item, p, f.metadata) for p in parts)
    if tp is Table:
        table = dict(f.default)  # type: ignore[arg-type]
        for part in filter(None, (p.strip() for p in value.split(","))):
            key, sep, text = part.partition(":")
            if not sep or (key.strip() not in table and not f.metadata.get("open_keys")):
                raise SpecError(f"{owner} field '{name}' is a table written key:value,...; "
                                f"keys: {', '.join(table)}; got {part!r}")
            old = table.get(key.strip(), "")
            kind = float if isinstance(old, float) else int if isinstance(old, int) else str
            table[key.strip()] = _parse_scalar(owner, f"{name}.{key.strip()}", kind, text,
                                               f.metadata)
        return Table(table)
    return _parse_scalar(owner, name, tp, value, f.metadata)


class RowReplaced(UserWarning):
    """A row given for a content table (one that takes new rows: ``open_keys``) has the
    name of a built-in row, so it replaces (or changes) that row instead of adding one."""


def replaced_rows(cls: type, values: Mapping[str, Any]) -> list[str]:
    """One line for each row of ``values`` (field -> table, as given) that replaces a
    built-in row of a content table of ``cls``, naming the old row and its provenance tag.

    A row replaces the built-in row of its name when it changes it: a table row given in
    part (``{"sr": 3}``) changes it if one of the columns given differs; a row equal to the
    built-in one (a whole table written back, as a saved spec does) replaces nothing."""
    owner = getattr(cls, "_owner", cls.__name__)
    tables: dict[str, tuple[Table, str]] = {
        f.name: (f.default, f.metadata["tag"]) for f in dataclasses.fields(cls)
        if f.metadata.get("open_keys") and isinstance(f.default, Table)}
    out = []
    for name, given in values.items():
        if name not in tables or not isinstance(given, Mapping):
            continue
        default, tag = tables[name]
        for key, row in given.items():
            if key not in default or _same_row(row, default[key]):
                continue
            out.append(f"{owner} '{name}.{key}' replaces the built-in row {key!r} "
                       f"({_short(default[key])}) [{tag}]; give the row a new name to add "
                       "one instead")
    return out


def _same_row(given: Any, old: Any) -> bool:
    if isinstance(given, Mapping) and isinstance(old, Mapping):
        return all(k in old and plain(old[k]) == plain(v) for k, v in given.items())
    return bool(plain(given) == plain(old))


def _short(row: Any, width: int = 70) -> str:
    """A row in a few words: ``col value, col value, ...`` cut to ``width``."""
    if isinstance(row, Mapping):
        text = ", ".join(f"{k} {_short(v, width)}" for k, v in row.items())
    else:
        import json

        text = json.dumps(plain(row), default=str)
    return text if len(text) <= width else text[:width - 3] + "..."


def build(cls: type, values: Mapping[str, Any] | None = None, *, base: Any = None) -> Any:
    """Make a ``cls`` instance from ``base`` (or the defaults) with ``values`` replaced.

    String values are parsed by the field's type, so command-line text and TOML values go
    through the same checks.  A row given for a content table under the name of a built-in
    row warns (:class:`RowReplaced`, once per row and process): it replaces that row.
    """
    from .rowkeys import fold

    values = fold(cls, values or {}, base)  # weapons.bola.like=thrown: into its table
    converted = {name: coerce(cls, name, value) for name, value in values.items()}
    made = cls(**converted) if base is None else dataclasses.replace(base, **converted)
    if converted:  # once the rows are read: a refused row is one error, not a warning too
        import warnings

        for line in replaced_rows(cls, converted):
            warnings.warn(line, RowReplaced, stacklevel=2)
    return made


def split_spec(text: str) -> tuple[str | None, dict[str, str]]:
    """Split ``"preset,name=value,name=value"`` (the preset is optional).

    A part with no ``=`` after the first continues the previous value, so list values may
    be written with commas: ``styles=knight,shieldman``.
    """
    preset: str | None = None
    values: dict[str, str] = {}
    last: str | None = None
    if not text.strip():
        raise SpecError("malformed spec '': give a preset name or name=value fields")
    for i, raw in enumerate(text.split(",")):
        part = raw.strip()
        if not part:
            raise SpecError(f"malformed spec {text!r}: an empty item between commas")
        if "=" in part:
            name, _, value = part.partition("=")
            name = name.strip()
            if not name:
                raise SpecError(f"malformed spec {text!r}: empty field name before '='")
            if name in values:
                raise SpecError(f"malformed spec {text!r}: field '{name}' is given twice")
            values[name] = value.strip()
            last = name
        elif i == 0:
            preset = part
        elif last is not None:
            values[last] += "," + part
        else:
            raise SpecError(f"malformed spec {text!r}: expected name=value, got {part!r}")
    return preset, values


MAX_TOML_BYTES = 10_000_000
"""Largest TOML file read (an experiment of a million cells is far smaller)."""


def read_text(path: Any, what: str = "file", max_bytes: int | None = None) -> str:
    """The text of a designer's file; a file that is missing, unreadable, not UTF-8 or over
    ``max_bytes`` (default :data:`MAX_TOML_BYTES`) is a :class:`SpecError` naming it."""
    from pathlib import Path

    path = Path(path)
    name = f"{what} {str(path)!r}"
    limit = MAX_TOML_BYTES if max_bytes is None else max_bytes
    try:
        size = path.stat().st_size
        if size > limit:
            raise SpecError(f"{name} is {size:,} bytes; at most {limit:,} are read")
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(f"{name} does not exist") from None
    except IsADirectoryError:
        raise SpecError(f"{name} is a folder; give a .toml file") from None
    except UnicodeDecodeError as exc:
        raise SpecError(f"{name} is not UTF-8 text ({exc.reason} at byte {exc.start})") \
            from None
    except OSError as exc:  # a symlink loop, a permission, a device...
        raise SpecError(f"cannot read {name}: {exc.strerror or exc}") from None


def read_toml(path: Any, what: str = "file") -> dict[str, Any]:
    """Parse a TOML file; a file that is missing, unreadable, not UTF-8, too large, nested
    too deeply or not TOML is a :class:`SpecError` naming it (``what``: ``"experiment
    file"``, ``"scenario file"``...)."""
    import tomllib

    text = read_text(path, what)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SpecError(f"{path}: nested too deeply to read (arrays or tables within each "
                        "other hundreds of levels down); a file here is a few levels deep") \
            from None


def nondefault(obj: Any) -> dict[str, Any]:
    """The fields of a dataclass instance that differ from their defaults."""
    out = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if f.default is dataclasses.MISSING or value != f.default:
            out[f.name] = plain(value)
    return out
