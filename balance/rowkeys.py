"""One command-line form for a row of any ruleset's rules table: its TOML key path.

A rules table (a :class:`~balance.fields.Table` parameter: strike-rank's and zones'
``weapons``, crt's and pool's ``house_rules``, pool's ``weapon_damage``, crt's
``shield_block``, ...) takes a row, or one column of a row, from the command line as the
key path the TOML file writes::

    --rule 'weapons.war pick.modifiers=+1 to attack when target.armour_rank >= 3'
    --rule 'weapons.bola.like=thrown' --rule 'weapons.bola.effects=on success inflict entangled'
    --rule 'house_rules.shaken.effects=on hit set target.pool to max(target.pool - 1, 0)'
    --rule 'weapon_damage.sword=4'

``TABLE.ROW.COLUMN=VALUE`` sets one column of a row (a row given in part changes the
columns given: the ruleset merges it over the built-in row, as a TOML table given in part);
``TABLE.ROW=VALUE`` sets a row that is one value (``weapon_damage.sword=4``), or a row in
the one-line form its ruleset reads (a house rule's ``+1 to defence when ...``).  A row
name holding a dot is quoted, as in TOML: ``weapons."a.b".like=...``.  A ``modifiers`` or
``effects`` column holds one-line rows separated by ``;``; another column's text is read as
a number, true / false or text (a ruleset may read its own columns: ``Rules.row_cell``).

:func:`fold` puts such keys into their table before the rules are built
(:func:`balance.fields.build`); :func:`arguments` gives the ``--rule`` arguments that
write a row (``balance show RULESET TABLE ROW``).  The older spellings stay accepted:
``TABLE=ROW:TEXT,...`` for every table, and strike-rank's ``col=value/...`` row text.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import SpecError, did_you_mean

__all__ = ["FORM", "arguments", "fold", "split_key"]

FORM = "TABLE.ROW.COLUMN=VALUE (or TABLE.ROW=VALUE for a row of one value)"
ROW_COLUMNS = ("modifiers", "effects")
"""Columns that hold rows of the rules language: one-line rows separated by ``;``."""
TEXT_COLUMNS = ("doc", "name")

_PART = re.compile(r'\s*(?:"(?P<quoted>[^"]*)"|(?P<bare>[^".]+))\s*')


def split_key(key: str) -> list[str] | None:
    """``'weapons."war pick".like'`` -> ``['weapons', 'war pick', 'like']``; ``None`` if
    ``key`` is not a key path (no dot outside quotes, or an empty part)."""
    parts, at = [], 0
    while True:
        found = _PART.match(key, at)
        if found is None or found.end() == at:
            return None
        parts.append(found["quoted"] if found["quoted"] is not None else found["bare"].strip())
        at = found.end()
        if at == len(key):
            break
        if key[at] != ".":
            return None
        at += 1
    if len(parts) < 2 or not all(parts):
        return None
    return parts


def _tables(cls: type) -> dict[str, dataclasses.Field[Any]]:
    from .fields import Table

    return {f.name: f for f in dataclasses.fields(cls)
            if "tag" in f.metadata and isinstance(f.default, Table)}


def fold(cls: type, values: Mapping[str, Any], base: Any = None) -> dict[str, Any]:
    """``values`` with every key path into a table of ``cls`` folded into that table (its
    other keys as they are).  The table starts from the value ``values`` gives it, else
    ``base``'s (a rules object), else its built-in rows for a table of fixed rows, or no
    rows for one that takes new rows (its ruleset merges the rows given over its own)."""
    dotted = [k for k in values if isinstance(k, str) and "." in k]
    if not dotted:  # the common case: no work
        return dict(values)
    tables = _tables(cls)
    paths = {}
    for key in dotted:
        parts = split_key(key)
        if parts is not None and parts[0] in tables:
            paths[key] = parts
    if not paths:
        return dict(values)
    out = {k: v for k, v in values.items() if k not in paths}
    started: set[str] = set()
    for key, parts in paths.items():
        name = parts[0]
        if name not in started:  # a copy: the caller's table is never changed
            out[name] = _start(cls, name, out.get(name), base)
            started.add(name)
        if isinstance(out[name], dict):
            _put(cls, out[name], parts, values[key], key)
    return out


def _start(cls: type, name: str, given: Any, base: Any) -> dict[str, Any]:
    """A table's rows to fold key paths into (plain dicts, rows copied)."""
    from .fields import coerce

    field = _tables(cls)[name]
    if isinstance(given, str):
        given = coerce(cls, name, given)
    if given is None:
        given = getattr(base, name) if base is not None else (
            {} if field.metadata.get("open_keys") else field.default)
    if not isinstance(given, Mapping):
        return given  # the field's own check reports it
    return {k: dict(v) if isinstance(v, Mapping) else v for k, v in given.items()}


def _put(cls: type, table: dict[str, Any], parts: Sequence[str], value: Any, key: str) -> None:
    from .fields import _parse_scalar

    owner = getattr(cls, "_owner", cls.__name__)
    name, row = parts[0], parts[1]
    field = _tables(cls)[name]
    open_keys = bool(field.metadata.get("open_keys"))
    if len(parts) > 3:
        raise SpecError(f"{owner} '{key}': a row's column is set as {FORM}")
    if not open_keys and row not in table:
        raise SpecError(f"{owner} table '{name}' has no row {row!r}{did_you_mean(row, table)}; "
                        f"rows: {', '.join(table)}")
    old = table.get(row)
    if len(parts) == 2:
        if isinstance(value, str) and old is not None and not isinstance(old, Mapping):
            kind = (bool if isinstance(old, bool) else float if isinstance(old, float)
                    else int if isinstance(old, int) else str)
            value = _parse_scalar(owner, f"{name}.{row}", kind, value, field.metadata)
        table[row] = value
        return
    if old is not None and not isinstance(old, Mapping):
        if not open_keys:
            raise SpecError(f"{owner} '{key}': a row of '{name}' is one value, set as "
                            f"{name}.{row}=VALUE")
        raise SpecError(f"{owner} '{key}': row {row!r} of '{name}' is given as one line "
                        "here; give its columns one way")
    column = parts[2]
    cells = table.setdefault(row, {})
    cells[column] = cell(cls, name, column, value) if isinstance(value, str) else value


def cell(cls: type, table: str, column: str, text: str) -> Any:
    """One column's value from command-line text: rows of the rules language split at
    ``;``, a ``doc`` or ``name`` as written, else the ruleset's reading (``Rules.row_cell``)
    or a number, true / false, or text."""
    if column in ROW_COLUMNS:
        return [line.strip() for line in text.split(";") if line.strip()]
    if column in TEXT_COLUMNS:
        return text
    own = getattr(cls, "row_cell", None)
    if own is not None:
        return own(table, column, text.strip())
    return scalar(text)


def scalar(text: str) -> Any:
    """``"2"`` -> 2, ``"1.5"`` -> 1.5, ``"true"`` -> True, else the text (stripped)."""
    text = text.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# --- the form of a row, for `balance show` ------------------------------------------------------
def arguments(table: str, row: str, value: Any) -> tuple[list[str], list[str]]:
    """The ``--rule`` arguments (shell-quoted) that give row ``row`` of ``table`` its value
    ``value`` (as :func:`~balance.fields.plain` shows it), and notes on what the one-line
    form leaves out (a modifier's or effect's ``name``)."""
    path = f"{table}.{_part(row)}"
    if not isinstance(value, Mapping):
        return [_quote(f"{path}={_text(value)}")], []
    args: list[str] = []
    notes: list[str] = []
    for column, cells in value.items():
        if column in ROW_COLUMNS:
            items = cells if isinstance(cells, list) else [cells]
            lines = []
            for i, item in enumerate(items):
                line, left = _one_line(column, item)
                lines.append(line)
                notes.extend(f"{column}[{i}]: {k} = {item[k]!r} is not in the one-line form"
                             for k in left)
            text = "; ".join(lines)
        else:
            text = _text(cells)
        args.append(_quote(f"{path}.{_part(column)}={text}"))
    return args, notes


def _part(name: str) -> str:
    return f'"{name}"' if "." in name or '"' in name or name != name.strip() else name


def _quote(argument: str) -> str:
    return "--rule " + shlex.quote(argument)


def _text(value: Any) -> str:
    """A cell as the command line writes it: true / false, NA for none, a list ``a;b`` (a
    pair ``a:b``; a list of one ``a;``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "NA"
    if isinstance(value, list):  # one item or none: ';' still marks a list
        text = ";".join(":".join(_text(x) for x in v) if isinstance(v, list) else _text(v)
                        for v in value)
        return text + ";" if len(value) < 2 else text
    return str(value)


def _one_line(column: str, item: Any) -> tuple[str, list[str]]:
    """A modifier or effect row (a one-line string, or a table) as one line, and the keys
    of the table the line leaves out."""
    if not isinstance(item, Mapping):
        return str(item), []
    used = {"when"}
    if column == "modifiers":
        amount = item.get("amount")
        shown = f"{amount:+d}" if isinstance(amount, int) and not isinstance(amount, bool) \
            else str(amount)
        line = f"{shown} to {item.get('to')}"
        used |= {"amount", "to"}
    else:
        line, more = _effect_line(item)
        used |= more
    if "when" in item:
        line += f" when {item['when']}"
    return line, [k for k in item if k not in used]


def _effect_line(item: Mapping[str, Any]) -> tuple[str, set[str]]:
    who = item.get("who")
    if "inflict" in item:
        line = f"on {item.get('on')} inflict {item['inflict']}" + (f" on {who}" if who else "")
        if "rounds" in item:
            line += f" for {item['rounds']} rounds"
        return line, {"on", "inflict", "who", "rounds"}
    if "spend" in item:
        amount = f"{item['amount']} " if "amount" in item else ""
        return (f"on {item.get('on')} spend {amount}{item['spend']}" + (f" by {who}" if who
                                                                         else ""),
                {"on", "spend", "amount", "who"})
    return (f"on {item.get('on')} set {who}.{item.get('set')} to {item.get('value')}",
            {"on", "set", "who", "value"})
