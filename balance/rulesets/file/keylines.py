"""Where each key of a TOML file stands: its line number, found in the text itself.

``tomllib`` gives values, not positions, so an error in a ruleset file could name the key
but not the line.  :func:`key_lines` reads the text once more, line by line, following the
table headers (``[fighter.skill]``, ``[[actions]]`` with its running index) and the
``key = value`` lines (dotted keys, quoted keys and inline tables included), and maps each
key path it meets to its 1-based line.  It is best effort: a key it cannot place (one
inside a multi-line array of tables, say) is placed at the nearest enclosing key it can.

>>> lines = key_lines('[ruleset]\\nname = "x"\\n[[actions]]\\nroll = "2d6"\\n')
>>> lines[("ruleset", "name")], lines[("actions", 0, "roll")]
(2, 4)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["Path", "key_lines", "line_of"]

Path = tuple[str | int, ...]

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(rf"\s*({_KEY}(?:\s*\.\s*{_KEY})*)\s*=")  # match() at a position


def _parts(dotted: str) -> list[str]:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]``."""
    out = []
    for match in re.finditer(_KEY, dotted):
        word = match.group(0)
        out.append(word[1:-1] if word[:1] in "\"'" else word)
    return out


def _inline_keys(text: str, start: int, prefix: Path, line: int, out: dict[Path, int]) -> None:
    """Keys of the inline tables in ``text`` from ``start`` (a value), all on ``line``:
    ``{kind = "int", range = [0, 9]}`` places ``kind`` and ``range`` under ``prefix``, and
    tables inside an array get their index (``a = [{x = 1}, {x = 2}]``: ``a[1].x``)."""
    stack: list[list] = []  # per open bracket: [path, kind, index]
    current: Path = prefix
    i = start
    while i < len(text):
        char = text[i]
        if char in "\"'":
            end = text.find(char, i + 1)
            while char == '"' and end > 0 and text[end - 1] == "\\":
                end = text.find(char, end + 1)
            i = len(text) if end < 0 else end + 1
            continue
        if char == "#":
            break
        if char in "{[":
            path = current
            if stack and stack[-1][1] == "[":
                path = (*stack[-1][0], stack[-1][2])
            stack.append([path, char, 0])
            if char == "{":
                found = _ASSIGN.match(text, i + 1)
                if found:
                    current = (*path, *_parts(found.group(1)))
                    out.setdefault(current, line)
                    i = found.end()
                    continue
        elif char in "}]":
            if stack:
                stack.pop()
        elif char == "," and stack:
            top = stack[-1]
            if top[1] == "[":
                top[2] += 1
            else:
                found = _ASSIGN.match(text, i + 1)
                if found:
                    current = (*top[0], *_parts(found.group(1)))
                    out.setdefault(current, line)
                    i = found.end()
                    continue
        i += 1


def key_lines(text: str) -> dict[Path, int]:
    """Each key path of a TOML document -> the 1-based line where it is written.

    Arrays of tables count their entries (``("actions", 1, "roll")``); a header's own path
    is placed at the header line.
    """
    out: dict[Path, int] = {}
    table: Path = ()
    counts: dict[Path, int] = {}
    in_multiline: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if in_multiline is not None:
            if in_multiline in line:
                in_multiline = None
            continue
        header = _HEADER.match(line)
        if header:
            path = tuple(_parts(header.group(2)))
            resolved = _resolve(path, counts)
            if header.group(1) == "[[":
                index = counts.get(resolved, -1) + 1
                counts[resolved] = index
                table = (*resolved, index)
            else:
                table = resolved
            out.setdefault(resolved, number)
            out.setdefault(table, number)
            continue
        assign = _ASSIGN.match(line)
        if not assign:
            continue
        key = (*table, *_parts(assign.group(1)))
        out.setdefault(key, number)
        rest = line[assign.end():]
        for quote in ('"""', "'''"):
            if rest.count(quote) == 1:
                in_multiline = quote
        if "{" in rest:
            _inline_keys(line, assign.end(), key, number, out)
    return out


def _resolve(path: Path, counts: dict[Path, int]) -> Path:
    """A header path with each array of tables it passes through replaced by its latest
    entry: ``[actions.outcomes]`` under ``[[actions]]`` is ``actions[i].outcomes``."""
    out: list[str | int] = []
    for part in path:
        out.append(part)
        here = tuple(out)
        if here in counts and here != path:
            out.append(counts[here])
    return tuple(out)


def line_of(lines: dict[Path, int], path: Sequence[str | int]) -> int | None:
    """The line of ``path``, or of its nearest enclosing key the text places."""
    key = tuple(path)
    while key:
        if key in lines:
            return lines[key]
        key = key[:-1]
    return None
