"""``balance show RULESET TABLE [ROW]``: one table of a ruleset's rules, row by row, each
with its provenance; one row also with the ``--rule`` arguments that write it
(:mod:`balance.rowkeys`).

A row's provenance says where it comes from: ``built-in [TAG]`` (the rules as shipped,
with the field's provenance tag), ``from FILE`` (a rules file's ``[rules]``) or ``from
--rule``, and ``replaces the built-in row`` when a row given under a built-in row's name
changes it (the command warns about it too, see :func:`balance.fields.replaced_rows`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from .errors import SpecError, did_you_mean
from .fields import Table, describe_fields, plain
from .rowkeys import arguments, split_key
from .rulesets.base import Ruleset

__all__ = ["show_table", "table_rows"]


def table_rows(rs: Ruleset, table: str, *, file: str | None = None,
               file_rules: Mapping[str, Any] | None = None,
               rule: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The rows of rule parameter ``table`` under ``file_rules`` then ``rule`` (overrides),
    JSON-ready: ``{"table", "tag", "doc", "rows": [{"row", "value", "provenance"}]}``."""
    infos = {info.name: info for info in describe_fields(rs.Rules)}
    tables = [f.name for f in dataclasses.fields(rs.Rules)
              if isinstance(f.default, Table) and f.name in infos]
    if table not in tables:
        raise SpecError(f"{rs.name} has no rules table {table!r}{did_you_mean(table, tables)}; "
                        f"tables: {', '.join(tables)}")
    file_rules, rule = dict(file_rules or {}), dict(rule or {})
    rules = rs.rules({**file_rules, **rule})
    built_in = getattr(rs.Rules(), table)
    given = {"--rule": _keys(rs, table, rule), f"from {file}": _keys(rs, table, file_rules)}
    info = infos[table]
    rows = []
    for key, value in getattr(rules, table).items():
        if key in built_in and plain(built_in[key]) == plain(value):
            provenance = f"built-in [{info.tag}]"
        else:
            source = next((where for where, keys in given.items() if key in keys), "given")
            provenance = source + ("; replaces the built-in row" if key in built_in else "")
        rows.append({"row": key, "value": plain(value), "provenance": provenance})
    return {"ruleset": rs.name, "table": table, "tag": info.tag, "doc": info.doc, "rows": rows}


def _keys(rs: Ruleset, table: str, overrides: Mapping[str, Any]) -> set[str]:
    """The rows an override of ``table`` gives (a table, ``key:value,...`` text, or key
    paths ``TABLE.ROW[.COLUMN]``)."""
    value = overrides.get(table)
    rows: set[str] = set()
    if isinstance(value, Mapping):
        rows = set(value)
    elif isinstance(value, str):
        rows = {part.partition(":")[0].strip() for part in value.split(",") if ":" in part}
    for key in overrides:
        parts = split_key(key) if isinstance(key, str) else None
        if parts is not None and parts[0] == table:
            rows.add(parts[1])
    return rows


def show_table(rs: Ruleset, table: str, row: str | None = None, *, file: str | None = None,
               file_rules: Mapping[str, Any] | None = None,
               rule: Mapping[str, Any] | None = None, as_json: bool = False) -> int:
    """Print ``table`` (or its ``row``) as ``balance show`` does; returns the exit status."""
    shown = table_rows(rs, table, file=file, file_rules=file_rules, rule=rule)
    rows = shown["rows"]
    if row is not None:
        rows = [r for r in rows if r["row"] == row]
        if not rows:
            names = [r["row"] for r in shown["rows"]]
            raise SpecError(f"{rs.name} rules table {table!r} has no row {row!r}"
                            f"{did_you_mean(row, names)}; rows: {', '.join(names) or 'none'}")
        rows = [{**r, "command_line": arguments(table, r["row"], r["value"])[0]} for r in rows]
        shown = {**shown, "rows": rows}
    if as_json:
        print(json.dumps(shown, indent=2, default=str))
        return 0
    print(f"{rs.name} rules table {table}  [{shown['tag']}]: {shown['doc']}")
    if not rows:
        print("  (no rows)")
    for r in rows:
        print("\n".join(_row_lines(r["row"], r["value"], r["provenance"])))
    if row is not None:  # the row on the command line (balance.rowkeys)
        args, notes = arguments(table, row, rows[0]["value"])
        print("  on the command line:\n" + "\n".join(f"    {a}" for a in args))
        for note in notes:
            print(f"    ({note})")
    return 0


def _row_lines(key: str, value: Any, provenance: str) -> list[str]:
    if not isinstance(value, Mapping):
        return [f"  {key} = {json.dumps(value)}  ({provenance})"]
    lines = [f"  {key}  ({provenance})"]
    for column, cell in value.items():
        if isinstance(cell, list) and cell and all(isinstance(c, Mapping) for c in cell):
            lines.extend(f"    {column}[{i}] = {_inline(c)}" for i, c in enumerate(cell))
        else:
            lines.append(f"    {column} = {json.dumps(cell)}")
    return lines


def _inline(table: Mapping[str, Any]) -> str:
    """A table as a TOML inline table: ``{to = "score", amount = 2}`` (a string holding
    double quotes in single ones, as a designer writes a condition)."""
    return "{" + ", ".join(f"{k} = {_value(v)}" for k, v in table.items()) + "}"


def _value(value: Any) -> str:
    if isinstance(value, str) and '"' in value and "'" not in value and "\n" not in value:
        return f"'{value}'"
    return json.dumps(value)
